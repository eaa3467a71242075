# tilec: -k asin_kernel -s "*fp32:16, *fp32:16, i32" -c BLOCK_SIZE=1024
# The kernel of Triton's tutorial 07, extern functions (python/tutorials/07-extern-functions.py
# of triton-lang/triton, MIT licence): libdevice's asin, elementwise; the host code is left out.
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def asin_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    x = libdevice.asin(x)
    tl.store(y_ptr + offsets, x, mask=mask)
