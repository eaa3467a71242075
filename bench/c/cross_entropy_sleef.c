/*
 * Cross-entropy loss forward (FlagGems' celoss_indices_kernel) calling SLEEF, as a C
 * programmer writes it; see cross_entropy.h. With the V extension the lanes' update is a
 * strip-mined loop in RVV intrinsics at e32m2 calling `Sleef_expfx_u10rvvm2` twice per strip
 * (the lanes' state stays in memory: BLOCK_C lanes are more than the registers hold); without
 * it the scalar loop calling `Sleef_expf_u10`. The per-row epilogue calls the scalar
 * `Sleef_expf_u10` and `Sleef_logf_u10` in both.
 */
#include <sleef.h>
#include <stdint.h>

#define EXPF Sleef_expf_u10
#define LOGF Sleef_logf_u10

static inline void lane_update(const float *x, float *tmax, float *tsum, int32_t count) {
#if defined(__riscv_v)
    for (int32_t j = 0; j < count;) {
        size_t vl = __riscv_vsetvl_e32m2((size_t)(count - j));
        vfloat32m2_t xv = __riscv_vle32_v_f32m2(x + j, vl);
        vfloat32m2_t old = __riscv_vle32_v_f32m2(tmax + j, vl);
        vfloat32m2_t cur = __riscv_vfmax_vv_f32m2(old, xv, vl);
        vfloat32m2_t scale = Sleef_expfx_u10rvvm2(__riscv_vfsub_vv_f32m2(old, cur, vl));
        vfloat32m2_t e = Sleef_expfx_u10rvvm2(__riscv_vfsub_vv_f32m2(xv, cur, vl));
        vfloat32m2_t sum = __riscv_vle32_v_f32m2(tsum + j, vl);
        __riscv_vse32_v_f32m2(tsum + j, __riscv_vfadd_vv_f32m2(__riscv_vfmul_vv_f32m2(sum, scale, vl), e, vl), vl);
        __riscv_vse32_v_f32m2(tmax + j, cur, vl);
        j += (int32_t)vl;
    }
#else
    for (int32_t j = 0; j < count; j++) {
        float cur = x[j] > tmax[j] ? x[j] : tmax[j];
        tsum[j] = tsum[j] * Sleef_expf_u10(tmax[j] - cur) + Sleef_expf_u10(x[j] - cur);
        tmax[j] = cur;
    }
#endif
}
#define LANE_UPDATE lane_update

#include "cross_entropy.h"
