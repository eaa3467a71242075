/*
 * Matmul (Triton tutorial 03): one BLOCK_M x BLOCK_N block of C per program, grouped program
 * order, K loop in BLOCK_K steps with masks at the edge, fp32 accumulator. Included by
 * matmul_f32.c and matmul_f16.c with ELEM (the input element type) and LOAD(p) (its value
 * as a float) defined.
 */
#include "kernel_abi.h"

#define BLOCK_M 64
#define BLOCK_N 64
#define BLOCK_K 32
#define GROUP_M 8

void matmul_kernel(const ELEM *restrict a, const ELEM *restrict b, float *restrict c, int32_t m_size, int32_t n_size,
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

    float acc[BLOCK_M][BLOCK_N];
    memset(acc, 0, sizeof acc);
    for (int32_t k0 = 0; k0 < k_size; k0 += BLOCK_K) {
        for (int32_t i = 0; i < BLOCK_M; i++) {
            int32_t row = (pid_m * BLOCK_M + i) % m_size;
            for (int32_t kk = 0; kk < BLOCK_K; kk++) {
                int32_t k = k0 + kk;
                if (k >= k_size) break;
                float av = LOAD(&a[(int64_t)row * stride_am + k]);
                const ELEM *b_row = b + (int64_t)k * stride_bk;
                for (int32_t j = 0; j < BLOCK_N; j++) {
                    int32_t col = (pid_n * BLOCK_N + j) % n_size;
                    acc[i][j] += av * LOAD(&b_row[col]);
                }
            }
        }
    }
    for (int32_t i = 0; i < BLOCK_M; i++) {
        int32_t row = pid_m * BLOCK_M + i;
        if (row >= m_size) break;
        for (int32_t j = 0; j < BLOCK_N; j++) {
            int32_t col = pid_n * BLOCK_N + j;
            if (col < n_size) c[(int64_t)row * stride_cm + col] = acc[i][j];
        }
    }
}

void matmul_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    matmul_kernel(ARG_PTR(const ELEM, 0), ARG_PTR(const ELEM, 1), ARG_PTR(float, 2), ARG_I32(3), ARG_I32(4),
                  ARG_I32(5), ARG_I32(6), ARG_I32(7), ARG_I32(8), PROGRAM_ARGS);
}
