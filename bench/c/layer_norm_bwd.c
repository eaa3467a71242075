/*
 * The backward kernels of Triton's tutorial 05, layer norm (bench/tutorials/layer_norm_bwd.py),
 * on fp16 data, one program per row (dx) or per BLOCK_N columns (dw, db), as the tutorial
 * launches them.
 *
 * _layer_norm_bwd_dx_fused: dx of the row, and the row's dy * xhat and dy added into the
 * partial sums DW, DB of row group `row % GROUP_SIZE_M` (fp32 sums rounded to fp16 at each
 * store, the first writer of a group storing its own values, as the count in the lock array
 * tells). The kernel takes a spin lock around the update; the runner runs the grid on one
 * thread, so the C keeps the count and does without the lock.
 *
 * _layer_norm_bwd_dwdb: the column sums of the partial sums, in fp32, rounded to fp16.
 */
#include "half.h"
#include "kernel_abi.h"

#define GROUP_SIZE_M 128
#define BLOCK_SIZE_N 128

void _layer_norm_bwd_dx_fused(uint16_t *restrict dx_out, const uint16_t *restrict dy_in, uint16_t *restrict dw,
                              uint16_t *restrict db, const uint16_t *restrict x_in, const uint16_t *restrict w,
                              const float *restrict mean_in, const float *restrict rstd_in, int32_t *restrict lock,
                              int32_t stride, int32_t n, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    int32_t row = pid_x;
    const uint16_t *x = x_in + (int64_t)row * stride;
    const uint16_t *dy = dy_in + (int64_t)row * stride;
    uint16_t *dx = dx_out + (int64_t)row * stride;
    int32_t lock_id = row % GROUP_SIZE_M;
    int32_t *count = lock + GROUP_SIZE_M + lock_id;
    uint16_t *dw_row = dw + (int64_t)lock_id * n;
    uint16_t *db_row = db + (int64_t)lock_id * n;
    float mean = mean_in[row], rstd = rstd_in[row];

    float sum_xhat_wdy = 0.0f, sum_wdy = 0.0f;
    for (int32_t i = 0; i < n; i++) {
        float xhat = (half_to_float(x[i]) - mean) * rstd;
        float wdy = half_to_float(w[i]) * half_to_float(dy[i]);
        sum_xhat_wdy += xhat * wdy;
        sum_wdy += wdy;
    }
    float c1 = sum_xhat_wdy / (float)n, c2 = sum_wdy / (float)n;
    int first = *count == 0;
    *count = 1;
    for (int32_t i = 0; i < n; i++) {
        float dyv = half_to_float(dy[i]);
        float xhat = (half_to_float(x[i]) - mean) * rstd;
        float wdy = half_to_float(w[i]) * dyv;
        dx[i] = float_to_half((wdy - (xhat * c1 + c2)) * rstd);
        float partial_dw = dyv * xhat, partial_db = dyv;
        if (!first) {
            partial_dw += half_to_float(dw_row[i]);
            partial_db += half_to_float(db_row[i]);
        }
        dw_row[i] = float_to_half(partial_dw);
        db_row[i] = float_to_half(partial_db);
    }
}

void _layer_norm_bwd_dx_fused_launch(const uint64_t *args, PROGRAM_PARAMS) {
    _layer_norm_bwd_dx_fused(ARG_PTR(uint16_t, 0), ARG_PTR(const uint16_t, 1), ARG_PTR(uint16_t, 2),
                             ARG_PTR(uint16_t, 3), ARG_PTR(const uint16_t, 4), ARG_PTR(const uint16_t, 5),
                             ARG_PTR(const float, 6), ARG_PTR(const float, 7), ARG_PTR(int32_t, 8), ARG_I32(9),
                             ARG_I32(10), PROGRAM_ARGS);
}

void _layer_norm_bwd_dwdb(const uint16_t *restrict dw, const uint16_t *restrict db, uint16_t *restrict final_dw,
                          uint16_t *restrict final_db, int32_t m, int32_t n, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    int32_t col0 = pid_x * BLOCK_SIZE_N;
    int32_t cols = n - col0 < BLOCK_SIZE_N ? n - col0 : BLOCK_SIZE_N;
    float sum_dw[BLOCK_SIZE_N] = {0}, sum_db[BLOCK_SIZE_N] = {0};
    for (int32_t i = 0; i < m; i++) {
        for (int32_t j = 0; j < cols; j++) {
            sum_dw[j] += half_to_float(dw[(int64_t)i * n + col0 + j]);
            sum_db[j] += half_to_float(db[(int64_t)i * n + col0 + j]);
        }
    }
    for (int32_t j = 0; j < cols; j++) {
        final_dw[col0 + j] = float_to_half(sum_dw[j]);
        final_db[col0 + j] = float_to_half(sum_db[j]);
    }
}

void _layer_norm_bwd_dwdb_launch(const uint64_t *args, PROGRAM_PARAMS) {
    _layer_norm_bwd_dwdb(ARG_PTR(const uint16_t, 0), ARG_PTR(const uint16_t, 1), ARG_PTR(uint16_t, 2),
                         ARG_PTR(uint16_t, 3), ARG_I32(4), ARG_I32(5), PROGRAM_ARGS);
}
