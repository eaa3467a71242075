/* Elementwise exp: y[i] = expf(x[i]) over one BLOCK_SIZE block per program. */
#include <math.h>

#include "kernel_abi.h"

#define BLOCK_SIZE 1024

void exp_kernel(const float *restrict x, float *restrict y, int32_t n_elements, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    int32_t start = pid_x * BLOCK_SIZE;
    int32_t end = start + BLOCK_SIZE < n_elements ? start + BLOCK_SIZE : n_elements;
    for (int32_t i = start; i < end; i++) y[i] = expf(x[i]);
}

void exp_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    exp_kernel(ARG_PTR(const float, 0), ARG_PTR(float, 1), ARG_I32(2), PROGRAM_ARGS);
}
