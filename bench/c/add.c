/* Vector add (Triton tutorial 01): out[i] = x[i] + y[i] over one BLOCK_SIZE block per program. */
#include "kernel_abi.h"

#define BLOCK_SIZE 1024

void add_kernel(const float *restrict x, const float *restrict y, float *restrict out, int32_t n_elements,
                PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    int32_t start = pid_x * BLOCK_SIZE;
    int32_t end = start + BLOCK_SIZE < n_elements ? start + BLOCK_SIZE : n_elements;
    for (int32_t i = start; i < end; i++) out[i] = x[i] + y[i];
}

void add_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    add_kernel(ARG_PTR(const float, 0), ARG_PTR(const float, 1), ARG_PTR(float, 2), ARG_I32(3), PROGRAM_ARGS);
}
