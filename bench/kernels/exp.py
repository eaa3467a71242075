# tilec: -k exp_kernel -s "*fp32:16, *fp32:16, i32" -c BLOCK_SIZE=1024
# tilec-run: --grid 1024 x_ptr=rand:fp32:1048576 y_ptr=zeros:fp32:1048576 n_elements=1048576 BLOCK_SIZE=1024
# Benchmark: elementwise exp.
import triton
import triton.language as tl


@triton.jit
def exp_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.exp(x), mask=mask)
