/*
 * Cumulative sum along the last dimension (FlagGems' cumsum_kernel, bench/kernels/cumsum.py,
 * K = 1): BLOCK_M rows of N per program, each row's prefix sums in fp32.
 */
#include "kernel_abi.h"

#define BLOCK_M 8

void cumsum_kernel(const float *restrict inp, float *restrict out, int32_t m, int32_t n, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    for (int32_t r = pid_x * BLOCK_M; r < pid_x * BLOCK_M + BLOCK_M && r < m; r++) {
        const float *row = inp + (int64_t)r * n;
        float *dst = out + (int64_t)r * n;
        float sum = 0.0f;
        for (int32_t i = 0; i < n; i++) {
            sum += row[i];
            dst[i] = sum;
        }
    }
}

void cumsum_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    cumsum_kernel(ARG_PTR(const float, 0), ARG_PTR(float, 1), ARG_I32(2), ARG_I32(3), PROGRAM_ARGS);
}
