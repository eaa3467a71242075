# tilec: -k embedding_kernel -s "*fp32:16, *i64:16, *fp32:16" -c N=1024 -c BLOCK_SIZE=1024
# tilec-run: --grid 1024 out_ptr=zeros:fp32:1024x1024 in_ptr=@indices.npy weight_ptr=rand:fp32:4096x1024 N=1024 BLOCK_SIZE=1024
# (indices.npy: 1024 int64 token ids in [0, 4096))
# Benchmark: the embedding lookup (a gather of weight rows by token id), written after FlagGems'
# `embedding_kernel` (src/flag_gems/ops/embedding.py of FlagOpen/FlagGems, the forward kernel of
# its first releases): one token per program, its row of N elements copied from the table.
import triton
import triton.language as tl


@triton.jit
def embedding_kernel(out_ptr, in_ptr, weight_ptr, N: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    out_ptr += pid * N
    in_ptr += pid

    mask = tl.arange(0, BLOCK_SIZE) < N
    cols = tl.arange(0, BLOCK_SIZE)

    row_idx = tl.load(in_ptr)
    weight_ptr += row_idx * N
    embedding_weight = tl.load(weight_ptr + cols, mask, other=0.0)
    tl.store(out_ptr + cols, embedding_weight, mask)
