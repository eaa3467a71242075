/*
 * Matmul (Triton tutorial 03): one BLOCK_M x BLOCK_N block of C per program, grouped program
 * order, K loop in BLOCK_K steps with masks at the edge, fp32 accumulator. Included by
 * matmul_f32.c, matmul_f16.c and matmul_fp16_tutorial.c with ELEM (the input element type),
 * LOAD(p) (its value as a float), and optionally OUT (the output element type, default float),
 * STORE(v) (a float as OUT) and the block sizes defined.
 */
#include "kernel_abi.h"

#ifndef BLOCK_M
#define BLOCK_M 64
#define BLOCK_N 64
#define BLOCK_K 32
#endif
#define GROUP_M 8
#ifndef OUT
#define OUT float
#define STORE(v) (v)
#endif

void matmul_kernel(const ELEM *restrict a, const ELEM *restrict b, OUT *restrict c, int32_t m_size, int32_t n_size,
                   int32_t k_size, int32_t stride_am, int32_t stride_bk, int32_t stride_cm, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    int32_t num_pid_m = (m_size + BLOCK_M - 1) / BLOCK_M;
    int32_t num_pid_n = (n_size + BLOCK_N - 1) / BLOCK_N;
    int32_t num_pid_in_group = GROUP_M * num_pid_n;
    int32_t group_id = pid_x / num_pid_in_group;
    int32_t first_pid_m = group_id * GROUP_M;
    int32_t group_size_m = num_pid_m - first_pid_m < GROUP_M ? num_pid_m - first_pid_m : GROUP_M;
    int32_t pid_m = first_pid_m + (pid_x % num_pid_in_group) % group_size_m;
    int32_t pid_n = (pid_x % num_pid_in_group) / group_size_m;

    /* The block's rows and columns inside the matrix (Triton's `% M` / `% N` wrap-around and
     * edge masks become loop bounds). */
    int32_t row0 = pid_m * BLOCK_M, col0 = pid_n * BLOCK_N;
    int32_t rows = m_size - row0 < BLOCK_M ? m_size - row0 : BLOCK_M;
    int32_t cols = n_size - col0 < BLOCK_N ? n_size - col0 : BLOCK_N;

    float acc[BLOCK_M][BLOCK_N];
    memset(acc, 0, sizeof acc);
    for (int32_t k0 = 0; k0 < k_size; k0 += BLOCK_K) {
        int32_t k_end = k_size - k0 < BLOCK_K ? k_size : k0 + BLOCK_K;
        for (int32_t i = 0; i < rows; i++) {
            const ELEM *a_row = a + (int64_t)(row0 + i) * stride_am;
            for (int32_t k = k0; k < k_end; k++) {
                float av = LOAD(&a_row[k]);
                const ELEM *b_row = b + (int64_t)k * stride_bk + col0;
                for (int32_t j = 0; j < cols; j++) acc[i][j] += av * LOAD(&b_row[j]);
            }
        }
    }
    for (int32_t i = 0; i < rows; i++) {
        OUT *c_row = c + (int64_t)(row0 + i) * stride_cm + col0;
        for (int32_t j = 0; j < cols; j++) c_row[j] = STORE(acc[i][j]);
    }
}

void matmul_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    matmul_kernel(ARG_PTR(const ELEM, 0), ARG_PTR(const ELEM, 1), ARG_PTR(OUT, 2), ARG_I32(3), ARG_I32(4),
                  ARG_I32(5), ARG_I32(6), ARG_I32(7), ARG_I32(8), PROGRAM_ARGS);
}
