/*
 * Embedding lookup (FlagGems' embedding_kernel, bench/kernels/embedding.py), N = 1024: program
 * `pid` copies row indices[pid] of the weight table to output row pid.
 */
#include "kernel_abi.h"

#define N 1024

void embedding_kernel(float *restrict out, const int64_t *restrict indices, const float *restrict weight,
                      PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    const float *row = weight + indices[pid_x] * N;
    float *dst = out + (int64_t)pid_x * N;
    for (int32_t i = 0; i < N; i++) dst[i] = row[i];
}

void embedding_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    embedding_kernel(ARG_PTR(float, 0), ARG_PTR(const int64_t, 1), ARG_PTR(const float, 2), PROGRAM_ARGS);
}
