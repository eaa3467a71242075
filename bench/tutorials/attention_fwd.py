# tilec: -k _attn_fwd -s "fp32, *fp32:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, 1, i32, i32:16" -c HEAD_DIM=64 -c BLOCK_M=64 -c BLOCK_N=32 -c STAGE=3
# tilec-run: --grid 4,2 sm_scale=0.125 M=zeros:fp32:512 Q=rand:fp16:512x64:1 K=rand:fp16:512x64:2 V=rand:fp16:512x64:3 Out=zeros:fp16:512x64 stride_z=32768 stride_h=16384 stride_tok=64 stride_d=1 H=2 N_CTX=256 HEAD_DIM=64 BLOCK_M=64 BLOCK_N=32 STAGE=3
# Benchmark: the forward kernel of Triton's tutorial 06, fused attention
# (python/tutorials/06-fused-attention.py of triton-lang/triton), written here after it with
# plain pointers where the tutorial loads through tensor descriptors: one program per
# BLOCK_M queries of one (batch, head), the keys and values in BLOCK_N steps with an online
# softmax in base 2; STAGE 3 is the causal case (the blocks left of the diagonal, then the
# diagonal block under a mask). Stores the fp16 output and the row statistics M (log2 of the
# softmax denominator plus the row maximum), as the tutorial does for its backward pass.
import triton
import triton.language as tl


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, K, V, stride_tok, stride_d, start_m, qk_scale, BLOCK_M: tl.constexpr,
                    HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr, offs_m, offs_n, N_CTX):
    # The key range of this stage: left of the diagonal block, the diagonal block, or all.
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    offs_d = tl.arange(0, HEAD_DIM)
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = tl.load(K + (start_n + offs_n)[:, None] * stride_tok + offs_d[None, :] * stride_d).T
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + (start_n + offs_n)[:, None] * stride_tok + offs_d[None, :] * stride_d)
        acc = tl.dot(p.to(tl.float16), v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(sm_scale, M, Q, K, V, Out, stride_z, stride_h, stride_tok, stride_d, H, N_CTX,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    tl.static_assert(BLOCK_N <= HEAD_DIM)
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    qkv_offset = off_z.to(tl.int64) * stride_z + off_h.to(tl.int64) * stride_h
    Q += qkv_offset
    K += qkv_offset
    V += qkv_offset
    Out += qkv_offset

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale
    qk_scale *= 1.44269504  # 1/log(2)
    q = tl.load(Q + offs_m[:, None] * stride_tok + offs_d[None, :] * stride_d)
    # Stage 1: the blocks off the diagonal (causal), or every block (STAGE 1).
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K, V, stride_tok, stride_d, start_m, qk_scale, BLOCK_M,
                                        HEAD_DIM, BLOCK_N, 4 - STAGE, offs_m, offs_n, N_CTX)
    # Stage 2: the diagonal block, masked.
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K, V, stride_tok, stride_d, start_m, qk_scale, BLOCK_M,
                                        HEAD_DIM, BLOCK_N, 2, offs_m, offs_n, N_CTX)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    tl.store(Out + offs_m[:, None] * stride_tok + offs_d[None, :] * stride_d, acc.to(Out.type.element_ty))
