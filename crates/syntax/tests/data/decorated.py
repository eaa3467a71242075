import triton
import triton.language as tl


@triton.heuristics({"EVEN_N": lambda args: args["N"] % args["BLOCK"] == 0})
@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 128}, num_warps=4),
        triton.Config({"BLOCK": 256}, num_warps=8, num_stages=2),
    ],
    key=["N"],
)
@triton.jit(do_not_specialize=["N"])
def scaled_copy(src, dst, N, scale, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    """Copies src * scale into dst."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN_N:
        tl.store(dst + offs, tl.load(src + offs) * scale)
    else:
        m = offs < N
        tl.store(dst + offs, tl.load(src + offs, mask=m) * scale, mask=m)
    for i in tl.static_range(2):
        scale = scale * 0.5 if i > 0 else -scale
    while N > 0 and not EVEN_N:
        N -= BLOCK
    return src, dst
