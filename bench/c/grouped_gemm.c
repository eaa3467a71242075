/*
 * The grouped GEMM of Triton's tutorial 08 (bench/tutorials/grouped_gemm.py), NUM_SM 8 and
 * 64x64x32 blocks: program `pid` computes tiles pid, pid + NUM_SM, ... of the concatenated tile
 * lists of the group's GEMMs; the matrices come from tables of addresses, their sizes and
 * leading dimensions from int32 tables of three entries per GEMM. fp16 inputs widened to fp32,
 * an fp32 accumulator, the tile rounded to fp16.
 */
#include "half.h"
#include "kernel_abi.h"

#define NUM_SM 8
#define BLOCK_M 64
#define BLOCK_N 64

static void gemm_tile(const uint16_t *a, const uint16_t *b, uint16_t *c, int32_t k, int32_t lda, int32_t ldb,
                      int32_t ldc, int32_t row0, int32_t col0) {
    float acc[BLOCK_M][BLOCK_N];
    memset(acc, 0, sizeof acc);
    for (int32_t i = 0; i < BLOCK_M; i++) {
        const uint16_t *a_row = a + (int64_t)(row0 + i) * lda;
        for (int32_t kk = 0; kk < k; kk++) {
            float av = half_to_float(a_row[kk]);
            const uint16_t *b_row = b + (int64_t)kk * ldb + col0;
            for (int32_t j = 0; j < BLOCK_N; j++) acc[i][j] += av * half_to_float(b_row[j]);
        }
    }
    for (int32_t i = 0; i < BLOCK_M; i++)
        for (int32_t j = 0; j < BLOCK_N; j++) c[(int64_t)(row0 + i) * ldc + col0 + j] = float_to_half(acc[i][j]);
}

void grouped_matmul_kernel(const int64_t *restrict a_ptrs, const int64_t *restrict b_ptrs,
                           const int64_t *restrict c_ptrs, const int32_t *restrict sizes, const int32_t *restrict lds,
                           int32_t group_size, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    int32_t tile_idx = pid_x, last_problem_end = 0;
    for (int32_t g = 0; g < group_size; g++) {
        int32_t gm = sizes[g * 3], gn = sizes[g * 3 + 1], gk = sizes[g * 3 + 2];
        int32_t num_n_tiles = (gn + BLOCK_N - 1) / BLOCK_N;
        int32_t num_tiles = (gm + BLOCK_M - 1) / BLOCK_M * num_n_tiles;
        while (tile_idx >= last_problem_end && tile_idx < last_problem_end + num_tiles) {
            int32_t tile = tile_idx - last_problem_end;
            gemm_tile((const uint16_t *)(uintptr_t)a_ptrs[g], (const uint16_t *)(uintptr_t)b_ptrs[g],
                      (uint16_t *)(uintptr_t)c_ptrs[g], gk, lds[g * 3], lds[g * 3 + 1], lds[g * 3 + 2],
                      tile / num_n_tiles * BLOCK_M, tile % num_n_tiles * BLOCK_N);
            tile_idx += NUM_SM;
        }
        last_problem_end += num_tiles;
    }
}

void grouped_matmul_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    grouped_matmul_kernel(ARG_PTR(const int64_t, 0), ARG_PTR(const int64_t, 1), ARG_PTR(const int64_t, 2),
                          ARG_PTR(const int32_t, 3), ARG_PTR(const int32_t, 4), ARG_I32(5), PROGRAM_ARGS);
}
