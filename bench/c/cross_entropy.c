/* Cross-entropy loss forward (FlagGems' celoss_indices_kernel) with libm's expf and logf; see
 * cross_entropy.h. */
#include <math.h>
#include <stdint.h>

#define EXPF expf
#define LOGF logf

static inline void lane_update(const float *x, float *tmax, float *tsum, int32_t count) {
    for (int32_t j = 0; j < count; j++) {
        float cur = x[j] > tmax[j] ? x[j] : tmax[j];
        tsum[j] = tsum[j] * expf(tmax[j] - cur) + expf(x[j] - cur);
        tmax[j] = cur;
    }
}
#define LANE_UPDATE lane_update

#include "cross_entropy.h"
