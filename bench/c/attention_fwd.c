/*
 * The forward kernel of Triton's tutorial 06, fused attention (bench/tutorials/attention_fwd.py),
 * causal (STAGE 3), HEAD_DIM 64, BLOCK_M 64, BLOCK_N 32, fp16 q, k, v and output: one program
 * per BLOCK_M queries of one (batch, head), program (start_m, off_hz). The keys go in BLOCK_N
 * blocks as in the kernel, so the online softmax rescales at the same points: per block the
 * scores q·k (fp32), the new row maximum, p = exp2(score·scale - max) (the diagonal block with
 * the causal mask added as -1e6 before the maximum), the row sum, acc·alpha + fp16(p)·v.
 */
#include <math.h>

#include "half.h"
#include "kernel_abi.h"

#define HEAD_DIM 64
#define BLOCK_M 64
#define BLOCK_N 32

/* One block of keys [start_n, start_n + BLOCK_N) for query row `row` (0..BLOCK_M). */
static void attend_block(const float *q, const uint16_t *k, const uint16_t *v, int32_t stride_tok, int32_t start_n,
                         float qk_scale, int diagonal, int32_t query, float *acc, float *l_i, float *m_i) {
    float qk[BLOCK_N];
    float block_max = -INFINITY;
    for (int32_t j = 0; j < BLOCK_N; j++) {
        const uint16_t *key = k + (int64_t)(start_n + j) * stride_tok;
        float dot = 0.0f;
        for (int32_t d = 0; d < HEAD_DIM; d++) dot += q[d] * half_to_float(key[d]);
        if (diagonal) dot = dot * qk_scale + (query >= start_n + j ? 0.0f : -1.0e6f);
        qk[j] = dot;
        block_max = fmaxf(block_max, dot);
    }
    float m_ij = fmaxf(*m_i, diagonal ? block_max : block_max * qk_scale);
    float l_ij = 0.0f;
    for (int32_t j = 0; j < BLOCK_N; j++) {
        qk[j] = exp2f(diagonal ? qk[j] - m_ij : qk[j] * qk_scale - m_ij);
        l_ij += qk[j];
    }
    float alpha = exp2f(*m_i - m_ij);
    for (int32_t d = 0; d < HEAD_DIM; d++) acc[d] *= alpha;
    for (int32_t j = 0; j < BLOCK_N; j++) {
        float p = half_to_float(float_to_half(qk[j]));
        const uint16_t *value = v + (int64_t)(start_n + j) * stride_tok;
        for (int32_t d = 0; d < HEAD_DIM; d++) acc[d] += p * half_to_float(value[d]);
    }
    *l_i = *l_i * alpha + l_ij;
    *m_i = m_ij;
}

void _attn_fwd(float sm_scale, float *restrict m_out, const uint16_t *restrict q_in, const uint16_t *restrict k_in,
               const uint16_t *restrict v_in, uint16_t *restrict out, int32_t stride_z, int32_t stride_h,
               int32_t stride_tok, int32_t h, int32_t n_ctx, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    int32_t start_m = pid_x, off_hz = pid_y;
    int64_t offset = (int64_t)(off_hz / h) * stride_z + (int64_t)(off_hz % h) * stride_h;
    const uint16_t *q_head = q_in + offset, *k = k_in + offset, *v = v_in + offset;
    uint16_t *o = out + offset;
    float qk_scale = sm_scale * 1.44269504f;
    for (int32_t i = 0; i < BLOCK_M; i++) {
        int32_t query = start_m * BLOCK_M + i;
        float q[HEAD_DIM], acc[HEAD_DIM] = {0};
        for (int32_t d = 0; d < HEAD_DIM; d++) q[d] = half_to_float(q_head[(int64_t)query * stride_tok + d]);
        float m_i = -INFINITY, l_i = 1.0f;
        for (int32_t start_n = 0; start_n < start_m * BLOCK_M; start_n += BLOCK_N)
            attend_block(q, k, v, stride_tok, start_n, qk_scale, 0, query, acc, &l_i, &m_i);
        for (int32_t start_n = start_m * BLOCK_M; start_n < (start_m + 1) * BLOCK_M; start_n += BLOCK_N)
            attend_block(q, k, v, stride_tok, start_n, qk_scale, 1, query, acc, &l_i, &m_i);
        m_out[(int64_t)off_hz * n_ctx + query] = m_i + log2f(l_i);
        for (int32_t d = 0; d < HEAD_DIM; d++) o[(int64_t)query * stride_tok + d] = float_to_half(acc[d] / l_i);
    }
}

void _attn_fwd_launch(const uint64_t *args, PROGRAM_PARAMS) {
    _attn_fwd(arg_f32(args, 0), ARG_PTR(float, 1), ARG_PTR(const uint16_t, 2), ARG_PTR(const uint16_t, 3),
              ARG_PTR(const uint16_t, 4), ARG_PTR(uint16_t, 5), ARG_I32(6), ARG_I32(7), ARG_I32(8), ARG_I32(9),
              ARG_I32(10), PROGRAM_ARGS);
}
