/*
 * GELU through erf (FlagGems' gelu, bench/kernels/gelu.py): y = 0.5·x·(1 + erf(x·0.7071067811))
 * over one BLOCK_SIZE block per program, erf from libm.
 */
#include <math.h>

#include "kernel_abi.h"

#define BLOCK_SIZE 1024

void gelu_none_kernel(const float *restrict x, float *restrict y, int32_t n, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    int32_t start = pid_x * BLOCK_SIZE;
    int32_t end = start + BLOCK_SIZE < n ? start + BLOCK_SIZE : n;
    for (int32_t i = start; i < end; i++) y[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.7071067811f));
}

void gelu_none_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    gelu_none_kernel(ARG_PTR(const float, 0), ARG_PTR(float, 1), ARG_I32(2), PROGRAM_ARGS);
}
