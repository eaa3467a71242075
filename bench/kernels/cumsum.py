# tilec: -k cumsum_kernel -s "*fp32:16, *fp32:16, i32:16, i32:16, 1" -c BLOCK_M=8 -c BLOCK_N=1024
# tilec-run: --grid 128,1 inp=rand:fp32:1024x1024 out=zeros:fp32:1024x1024 M=1024 N=1024 K=1 BLOCK_M=8 BLOCK_N=1024
# Benchmark: cumulative sum along a dimension, written after FlagGems' `cumsum_kernel`
# (src/flag_gems/ops/cumsum.py of FlagOpen/FlagGems): the tensor seen as [M, N, K] with the scan
# over N, BLOCK_M rows of the whole dimension (BLOCK_N = the next power of two of N) per
# program, the scan in fp32 (`tl.cumsum` on axis 1 of a [BLOCK_M, BLOCK_N, 1] tile). Here the
# last dimension is scanned, so K = 1.
import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(inp, out, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_k = tl.program_id(1)
    m_offset = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    n_offset = tl.arange(0, BLOCK_N)
    offset = m_offset[:, None, None] * N * K + n_offset[None, :, None] * K + pid_k
    mask = m_offset[:, None, None] < M and n_offset[None, :, None] < N
    inp_ptrs = inp + offset
    inp_vals = tl.load(inp_ptrs, mask=mask).to(tl.float32)
    result = tl.cumsum(inp_vals, axis=1)
    out_ptrs = out + offset
    tl.store(out_ptrs, result, mask=mask)
