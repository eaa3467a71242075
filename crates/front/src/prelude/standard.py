# The functions of `triton.language.standard` that are written in Triton itself: the
# compile-time helpers `_log2` and `_is_power_of_two`, `tl.cdiv`, `tl.sigmoid`, `tl.softmax`
# and `tl.swizzle2d`. Every function here is inlined like a user helper.
import triton
import triton.language as tl


@triton.constexpr_function
def _log2(i):
    log2 = 0
    n = i
    while n > 1:
        n >>= 1
        log2 += 1
    return log2


@triton.constexpr_function
def _is_power_of_two(i):
    return (i & (i - 1)) == 0 and i != 0


@triton.jit
def cdiv(x, div):
    return (x + div - 1) // div


@triton.jit
def sigmoid(x):
    return 1 / (1 + tl.exp(-x))


@triton.jit
def softmax(x, ieee_rounding=False):
    shifted = x - tl.max(x, 0)
    numerator = tl.exp(shifted)
    denominator = tl.sum(numerator, 0)
    return tl.fdiv(numerator, denominator, ieee_rounding)


@triton.jit
def swizzle2d(i, j, size_i, size_j, size_g):
    linear = i * size_j + j
    group_size = size_g * size_j
    group = linear // group_size
    first_row = group * size_g
    rows = tl.minimum(size_i - first_row, size_g)
    within = linear % group_size
    return first_row + within % rows, within // rows
