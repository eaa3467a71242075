# The part of `triton.language` that is written in Triton itself: the compile-time helpers
# `_log2` and `_is_power_of_two` of `triton.language.standard`, `tl.cdiv`, `tl.sigmoid`,
# `tl.softmax`, `tl.swizzle2d` and the Philox random number generator of `tl.rand`,
# `tl.randn`, `tl.randint` and `tl.randint4x`. Every function here is inlined like a user
# helper; the generator follows Triton's algorithm exactly (same constants, rounds and
# conversions), so kernels draw the same numbers as under Triton.
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


@triton.jit
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr = 10):
    if c0.dtype == tl.uint32:
        KEY_A: tl.constexpr = 0x9E3779B9
        KEY_B: tl.constexpr = 0xBB67AE85
        ROUND_A: tl.constexpr = 0xD2511F53
        ROUND_B: tl.constexpr = 0xCD9E8D57
    else:
        tl.static_assert(c0.dtype == tl.uint64, "philox needs uint32 or uint64 counters")
        KEY_A: tl.constexpr = 0x9E3779B97F4A7C15
        KEY_B: tl.constexpr = 0xBB67AE8584CAA73B
        ROUND_A: tl.constexpr = 0xD2E7470EE14C6C93
        ROUND_B: tl.constexpr = 0xCA5A826395121157
    for _ in tl.static_range(n_rounds):
        prev_c0 = c0
        prev_c2 = c2
        c0 = tl.umulhi(ROUND_B, prev_c2) ^ c1 ^ k0
        c2 = tl.umulhi(ROUND_A, prev_c0) ^ c3 ^ k1
        c1 = ROUND_B * prev_c2
        c3 = ROUND_A * prev_c0
        k0 = k0 + KEY_A
        k1 = k1 + KEY_B
    return c0, c1, c2, c3


@triton.jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = 10):
    seed = tl.to_tensor(seed)
    tl.static_assert(seed.dtype.is_int())
    seed = seed.to(tl.uint64)
    c0 = tl.to_tensor(c0)
    c1 = tl.to_tensor(c1)
    c2 = tl.to_tensor(c2)
    c3 = tl.to_tensor(c3)
    if c0.dtype.primitive_bitwidth == 32:
        counter_type: tl.constexpr = tl.uint32
        seed_hi = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
        seed_lo = (seed & 0xFFFFFFFF).to(tl.uint32)
    else:
        tl.static_assert(c0.dtype.primitive_bitwidth == 64, "philox needs 32- or 64-bit counters")
        counter_type: tl.constexpr = tl.uint64
        seed_hi = tl.full((1,), 0, dtype=tl.uint64)
        seed_lo = seed
    c0 = c0.to(counter_type, bitcast=True)
    c1 = c1.to(counter_type, bitcast=True)
    c2 = c2.to(counter_type, bitcast=True)
    c3 = c3.to(counter_type, bitcast=True)
    return philox_impl(c0, c1, c2, c3, seed_lo, seed_hi, n_rounds)


@triton.jit
def randint4x(seed, offset, n_rounds: tl.constexpr = 10):
    zero = offset * 0
    return philox(seed, offset, zero, zero, zero, n_rounds)


@triton.jit
def randint(seed, offset, n_rounds: tl.constexpr = 10):
    first, _, _, _ = randint4x(seed, offset, n_rounds)
    return first


@triton.jit
def uint_to_uniform_float(x):
    if (x.dtype == tl.uint32) or (x.dtype == tl.int32):
        x = x.to(tl.int32, bitcast=True)
        scale = 4.6566127342e-10
    else:
        tl.static_assert((x.dtype == tl.uint64) or (x.dtype == tl.int64))
        x = x.to(tl.int64, bitcast=True)
        scale = 1.0842020432385337e-19
    x = tl.where(x < 0, -x - 1, x)
    return x * scale


@triton.jit
def rand(seed, offset, n_rounds: tl.constexpr = 10):
    offset = tl.to_tensor(offset)
    bits = randint(seed, offset, n_rounds)
    return uint_to_uniform_float(bits)


@triton.jit
def rand4x(seed, offsets, n_rounds: tl.constexpr = 10):
    offsets = tl.to_tensor(offsets)
    i1, i2, i3, i4 = randint4x(seed, offsets, n_rounds)
    return uint_to_uniform_float(i1), uint_to_uniform_float(i2), uint_to_uniform_float(i3), uint_to_uniform_float(i4)


@triton.jit
def pair_uniform_to_normal(u1, u2):
    u1 = tl.maximum(1.0e-7, u1)
    theta = 6.283185307179586 * u2
    radius = tl.sqrt(-2.0 * tl.log(u1))
    return radius * tl.cos(theta), radius * tl.sin(theta)


@triton.jit
def randn(seed, offset, n_rounds: tl.constexpr = 10):
    offset = tl.to_tensor(offset)
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    u1 = uint_to_uniform_float(i1)
    u2 = uint_to_uniform_float(i2)
    n1, _ = pair_uniform_to_normal(u1, u2)
    return n1


@triton.jit
def randn4x(seed, offset, n_rounds: tl.constexpr = 10):
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4
