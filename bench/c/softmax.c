/* Fused softmax (Triton tutorial 02): one row per program. */
#include <math.h>

#include "kernel_abi.h"

void softmax_kernel(float *restrict output, const float *restrict input, int32_t input_row_stride,
                    int32_t output_row_stride, int32_t n_cols, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    const float *row = input + (int64_t)pid_x * input_row_stride;
    float *out = output + (int64_t)pid_x * output_row_stride;
    float max = -INFINITY;
    for (int32_t i = 0; i < n_cols; i++) max = fmaxf(max, row[i]);
    float sum = 0.0f;
    for (int32_t i = 0; i < n_cols; i++) {
        float e = expf(row[i] - max);
        out[i] = e;
        sum += e;
    }
    for (int32_t i = 0; i < n_cols; i++) out[i] = out[i] / sum;
}

void softmax_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    softmax_kernel(ARG_PTR(float, 0), ARG_PTR(const float, 1), ARG_I32(2), ARG_I32(3), ARG_I32(4), PROGRAM_ARGS);
}
