# tilec: -k argmax_kernel -s "*fp32:16, *i64:16, i32:16, i32:16, 1" -c BLOCK_M=4 -c BLOCK_N=1024
# tilec-run: --grid 256,1 inp=rand:fp32:1024x1024 out_index=zeros:i64:1024 M=1024 N=1024 K=1 BLOCK_M=4 BLOCK_N=1024
# Benchmark: argmax along a dimension, written after FlagGems' `argmax_kernel`
# (src/flag_gems/ops/argmax.py of FlagOpen/FlagGems): the tensor seen as [M, N, K], BLOCK_M rows
# per program, the reduced dimension in BLOCK_N steps, each step's maximum and first index
# (`tl.max(..., return_indices=True, return_indices_tie_break_left=True)`) merged into running
# ones; int64 indices. Here the last dimension is reduced, so K = 1; masked elements read the
# dtype's lowest value, as FlagGems' `get_dtype_min`.
import triton
import triton.language as tl


@triton.jit
def argmax_kernel(inp, out_index, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_k = tl.program_id(1)
    m_offset = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)

    min_value: tl.constexpr = -3.4028234663852886e38
    max_values = tl.full([BLOCK_M], dtype=tl.float32, value=min_value)
    argmax_values = tl.full([BLOCK_M], dtype=tl.int64, value=0)
    for start_n in range(0, N, BLOCK_N):
        n_offset = start_n + tl.arange(0, BLOCK_N)
        offset = m_offset[:, None] * N * K + n_offset[None, :] * K + pid_k
        mask = m_offset[:, None] < M and n_offset[None, :] < N
        inp_ptrs = inp + offset
        inp_vals = tl.load(inp_ptrs, mask=mask, other=min_value)
        local_max, local_argmax = tl.max(inp_vals, 1, return_indices=True, return_indices_tie_break_left=True)
        update = local_max > max_values
        max_values = tl.where(update, local_max, max_values)
        argmax_values = tl.where(update, start_n + local_argmax, argmax_values)

    offset_index = m_offset * K + pid_k
    out_index_ptrs = out_index + offset_index
    mask1 = m_offset < M
    tl.store(out_index_ptrs, argmax_values, mask=mask1)
