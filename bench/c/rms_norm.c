/*
 * RMS norm forward (FlagGems' rms_norm_kernel, bench/kernels/rms_norm.py) on fp16 data: one row
 * per program, the mean square in fp32, rrms = 1 / sqrt(mean square + eps), y = fp16(x·rrms)
 * multiplied by w in fp16 (the product of two fp16 values rounded to fp16: exact in fp32, then
 * rounded once).
 */
#include <math.h>

#include "half.h"
#include "kernel_abi.h"

void rms_norm_kernel(uint16_t *restrict y, const uint16_t *restrict x, const uint16_t *restrict w, int32_t y_stride_r,
                     int32_t x_stride_r, int32_t n, float eps, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    const uint16_t *row = x + (int64_t)pid_x * x_stride_r;
    uint16_t *out = y + (int64_t)pid_x * y_stride_r;
    float sum = 0.0f;
    for (int32_t i = 0; i < n; i++) {
        float v = half_to_float(row[i]);
        sum += v * v;
    }
    float rrms = 1.0f / sqrtf(sum / (float)n + eps);
    for (int32_t i = 0; i < n; i++) {
        float normalized = half_to_float(float_to_half(half_to_float(row[i]) * rrms));
        out[i] = float_to_half(normalized * half_to_float(w[i]));
    }
}

void rms_norm_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    rms_norm_kernel(ARG_PTR(uint16_t, 0), ARG_PTR(const uint16_t, 1), ARG_PTR(const uint16_t, 2), ARG_I32(3), ARG_I32(4),
                    ARG_I32(5), arg_f32(args, 6), PROGRAM_ARGS);
}
