# tilec: -k add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32" -c BLOCK_SIZE=1024
# tilec-run: --grid 1024 x=rand:fp32:1048576 y=rand:fp32:1048576 output=zeros:fp32:1048576 n_elements=1048576 BLOCK_SIZE=1024
# Benchmark: vector add (Triton tutorial 01).
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)
