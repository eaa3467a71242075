/*
 * The backward kernel `_attn_bwd` of Triton's tutorial 06, fused attention
 * (bench/tutorials/attention_bwd.py), causal, HEAD_DIM 64, BLOCK_M1 32, BLOCK_N1 128, BLOCK_M2
 * 128, BLOCK_N2 32, BLK_SLICE_FACTOR 2, fp16 tensors: program (pid, 0, bhid) computes dk and
 * dv of keys [pid·BLOCK_N1, +BLOCK_N1) over the queries at or after them, then dq of queries
 * [pid·BLOCK_M2, +BLOCK_M2) over the keys at or before them, the block on the diagonal first
 * (masked), as the kernel. K is taken as already scaled and M as the base-2 row statistics,
 * as the tutorial passes them: p = exp2(q·k - M), ds = p·(do·v - D) rounded to fp16, and p
 * rounded to fp16 where the kernel feeds it to a dot.
 */
#include <math.h>

#include "half.h"
#include "kernel_abi.h"

#define HEAD_DIM 64
#define BLOCK_N1 128
#define BLOCK_M2 128

static float dot_row(const uint16_t *a, const uint16_t *b) {
    float sum = 0.0f;
    for (int32_t d = 0; d < HEAD_DIM; d++) sum += half_to_float(a[d]) * half_to_float(b[d]);
    return sum;
}

static float fp16_round(float value) { return half_to_float(float_to_half(value)); }

void _attn_bwd(const uint16_t *restrict q_in, const uint16_t *restrict k_in, const uint16_t *restrict v_in,
               float sm_scale, const uint16_t *restrict do_in, uint16_t *restrict dq_out, uint16_t *restrict dk_out,
               uint16_t *restrict dv_out, const float *restrict m_in, const float *restrict d_in, int32_t stride_z,
               int32_t stride_h, int32_t stride_tok, int32_t h, int32_t n_ctx, PROGRAM_PARAMS) {
    UNUSED_PROGRAM_PARAMS();
    int32_t pid = pid_x, bhid = pid_z;
    int64_t adj = (int64_t)stride_h * (bhid % h) + (int64_t)stride_z * (bhid / h);
    const uint16_t *q = q_in + adj, *k = k_in + adj, *v = v_in + adj, *dout = do_in + adj;
    const float *m = m_in + (int64_t)bhid * n_ctx, *delta = d_in + (int64_t)bhid * n_ctx;
#define ROW(base, i) ((base) + (int64_t)(i) * stride_tok)

    /* dk, dv of the key block: the queries of the diagonal block (masked), then the rest. */
    int32_t start_n = pid * BLOCK_N1;
    for (int32_t n = start_n; n < start_n + BLOCK_N1; n++) {
        float dk[HEAD_DIM] = {0}, dv[HEAD_DIM] = {0};
        for (int32_t i = start_n; i < n_ctx; i++) {
            if (i < n) continue; /* the causal mask: p = 0 */
            float p = exp2f(dot_row(ROW(k, n), ROW(q, i)) - m[i]);
            float p16 = fp16_round(p);
            float dp = dot_row(ROW(v, n), ROW(dout, i));
            float ds = fp16_round(p * (dp - delta[i]));
            for (int32_t d = 0; d < HEAD_DIM; d++) {
                dv[d] += p16 * half_to_float(ROW(dout, i)[d]);
                dk[d] += ds * half_to_float(ROW(q, i)[d]);
            }
        }
        for (int32_t d = 0; d < HEAD_DIM; d++) {
            ROW(dv_out + adj, n)[d] = float_to_half(dv[d]);
            ROW(dk_out + adj, n)[d] = float_to_half(dk[d] * sm_scale);
        }
    }

    /* dq of the query block: the keys of the diagonal block (masked), then the keys before it. */
    int32_t start_m = pid * BLOCK_M2;
    for (int32_t i = start_m; i < start_m + BLOCK_M2; i++) {
        float dq[HEAD_DIM] = {0};
        for (int32_t pass = 0; pass < 2; pass++) {
            int32_t lo = pass == 0 ? start_m : 0, hi = pass == 0 ? start_m + BLOCK_M2 : start_m;
            for (int32_t n = lo; n < hi; n++) {
                if (n > i) continue; /* the causal mask: p = 0 */
                float p = exp2f(dot_row(ROW(q, i), ROW(k, n)) - m[i]);
                float dp = dot_row(ROW(dout, i), ROW(v, n));
                float ds = fp16_round(p * (dp - delta[i]));
                for (int32_t d = 0; d < HEAD_DIM; d++) dq[d] += ds * half_to_float(ROW(k, n)[d]);
            }
        }
        for (int32_t d = 0; d < HEAD_DIM; d++) ROW(dq_out + adj, i)[d] = float_to_half(dq[d] * 0.6931471824645996f);
    }
#undef ROW
}

void _attn_bwd_launch(const uint64_t *args, PROGRAM_PARAMS) {
    _attn_bwd(ARG_PTR(const uint16_t, 0), ARG_PTR(const uint16_t, 1), ARG_PTR(const uint16_t, 2), arg_f32(args, 3),
              ARG_PTR(const uint16_t, 4), ARG_PTR(uint16_t, 5), ARG_PTR(uint16_t, 6), ARG_PTR(uint16_t, 7),
              ARG_PTR(const float, 8), ARG_PTR(const float, 9), ARG_I32(10), ARG_I32(11), ARG_I32(12), ARG_I32(13),
              ARG_I32(14), PROGRAM_ARGS);
}
