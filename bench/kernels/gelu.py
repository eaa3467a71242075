# tilec: -k gelu_none_kernel -s "*fp32:16, *fp32:16, i32:16" -c BLOCK_SIZE=1024
# tilec-run: --grid 1024 in0_ptr=rand:fp32:1048576 out0_ptr=zeros:fp32:1048576 num_tasks=1048576 BLOCK_SIZE=1024
# Benchmark: GELU (exact, through erf), written after FlagGems' `gelu`
# (src/flag_gems/ops/gelu.py of FlagOpen/FlagGems): the elementwise body `gelu_none` inside the
# one-dimensional kernel that FlagGems' `pointwise_dynamic` generates for a contiguous tensor
# (a block of BLOCK_SIZE elements per program, masked at the end). FlagGems' `fast_erf` is
# libdevice's erf, `tl.erf` here.
import triton
import triton.language as tl


@triton.jit
def gelu_none(x):
    scale: tl.constexpr = 0.7071067811
    output = 0.5 * x * (1 + tl.erf(x * scale))
    return output


@triton.jit
def gelu_none_kernel(in0_ptr, out0_ptr, num_tasks, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < num_tasks
    in0 = tl.load(in0_ptr + offsets, mask=mask)
    out0 = gelu_none(in0)
    tl.store(out0_ptr + offsets, out0, mask=mask)
