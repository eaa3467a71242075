/*
 * Layer norm forward (Triton tutorial 05): one row per program; stores mean and rstd (fp32).
 * Included by layernorm.c and layer_norm_fp16.c with ELEM (the element type of x, w, b and
 * y), LOAD(p) (an element as a float) and STORE(v) (a float as an element) defined.
 */
#include <math.h>

#include "kernel_abi.h"

void _layer_norm_fwd_fused(const ELEM *restrict x, ELEM *restrict y, const ELEM *restrict w,
                           const ELEM *restrict b, float *restrict mean_out, float *restrict rstd_out,
                           int32_t stride, int32_t n, float eps, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    const ELEM *row = x + (int64_t)pid_x * stride;
    ELEM *out = y + (int64_t)pid_x * stride;
    float sum = 0.0f;
    for (int32_t i = 0; i < n; i++) sum += LOAD(&row[i]);
    float mean = sum / (float)n;
    float var_sum = 0.0f;
    for (int32_t i = 0; i < n; i++) {
        float d = LOAD(&row[i]) - mean;
        var_sum += d * d;
    }
    float rstd = 1.0f / sqrtf(var_sum / (float)n + eps);
    mean_out[pid_x] = mean;
    rstd_out[pid_x] = rstd;
    for (int32_t i = 0; i < n; i++) out[i] = STORE((LOAD(&row[i]) - mean) * rstd * LOAD(&w[i]) + LOAD(&b[i]));
}

void _layer_norm_fwd_fused_launch(const uint64_t *args, PROGRAM_PARAMS) {
    _layer_norm_fwd_fused(ARG_PTR(const ELEM, 0), ARG_PTR(ELEM, 1), ARG_PTR(const ELEM, 2), ARG_PTR(const ELEM, 3),
                          ARG_PTR(float, 4), ARG_PTR(float, 5), ARG_I32(6), ARG_I32(7), arg_f32(args, 8), PROGRAM_ARGS);
}
