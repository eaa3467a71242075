/*
 * Cross-entropy loss forward with class-index targets (FlagGems' celoss_indices_kernel,
 * bench/kernels/cross_entropy.py, D = 1, BLOCK_C = 512): program (0, n) takes row n of the
 * [N, C] logits. Each of the BLOCK_C lanes keeps a running maximum (from 0) and a rescaled
 * running sum of exponentials over the classes lane, lane + BLOCK_C, ...; then loss =
 * log(sum) + max - logit[target], times the row's weight (1, or 0 for ignore_index), which is
 * stored too. Included by cross_entropy.c and cross_entropy_sleef.c with LANE_UPDATE(x, tmax,
 * tsum, count) (the lanes' update with a block of logits), EXPF and LOGF defined.
 */
#include "kernel_abi.h"

#define BLOCK_C 512

void celoss_indices_kernel(const float *restrict inp, const int64_t *restrict tgt, float *restrict out,
                           float *restrict w_tgt, int32_t ignore_index, int32_t c, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    int32_t row = pid_y;
    const float *logits = inp + (int64_t)row * c;
    float tmax[BLOCK_C] = {0}, tsum[BLOCK_C] = {0};
    for (int32_t off = 0; off < c; off += BLOCK_C) LANE_UPDATE(logits + off, tmax, tsum, c - off < BLOCK_C ? c - off : BLOCK_C);
    float final_max = tmax[0];
    for (int32_t j = 1; j < BLOCK_C; j++) final_max = final_max > tmax[j] ? final_max : tmax[j];
    float sum = 0.0f;
    for (int32_t j = 0; j < BLOCK_C; j++) sum += tsum[j] * EXPF(tmax[j] - final_max);
    int64_t target = tgt[row];
    float weight = target != ignore_index ? 1.0f : 0.0f;
    w_tgt[row] = weight;
    out[row] = (LOGF(sum) + final_max - logits[target]) * weight;
}

void celoss_indices_kernel_launch(const uint64_t *args, PROGRAM_PARAMS) {
    celoss_indices_kernel(ARG_PTR(const float, 0), ARG_PTR(const int64_t, 1), ARG_PTR(float, 2), ARG_PTR(float, 3),
                          ARG_I32(4), ARG_I32(5), PROGRAM_ARGS);
}
