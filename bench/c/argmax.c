/*
 * Argmax along the last dimension (FlagGems' argmax_kernel, bench/kernels/argmax.py, K = 1):
 * BLOCK_M rows per program, the first index of each row's maximum, as int64.
 */
#include "kernel_abi.h"

#define BLOCK_M 4

void argmax_kernel(const float *restrict inp, int64_t *restrict out_index, int32_t m, int32_t n, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    for (int32_t r = pid_x * BLOCK_M; r < pid_x * BLOCK_M + BLOCK_M && r < m; r++) {
        const float *row = inp + (int64_t)r * n;
        float best = -3.4028234663852886e38f;
        int64_t index = 0;
        for (int32_t i = 0; i < n; i++) {
            if (row[i] > best) {
                best = row[i];
                index = i;
            }
        }
        out_index[r] = index;
    }
}

void argmax_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    argmax_kernel(ARG_PTR(const float, 0), ARG_PTR(int64_t, 1), ARG_I32(2), ARG_I32(3), PROGRAM_ARGS);
}
