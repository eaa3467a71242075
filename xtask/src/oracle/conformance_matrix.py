"""Writes the dtype-matrix fixtures of fixtures/conformance/ (the files named in MATRIX).

Run with the oracle's Python (`cargo xtask oracle setup` prints where it is):
    PYTHON xtask/src/oracle/conformance_matrix.py
then bless their expectations with `cargo xtask oracle --bless`.

Each fixture is one kernel and one `# tilec-run:` line per dtype (or dtype pair). The dtype
of every output array is the type Triton gives the stored value, asked of Triton itself
(its interpreter, on one-element tensors), so a store never converts; a line whose kernel
Triton rejects (e.g. `/` of a signed and an unsigned integer) is kept: tilec must reject it
too. The other fixtures of that folder are written by hand.
"""

import os
import sys

os.environ["TRITON_INTERPRET"] = "1"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import run_triton  # noqa: E402  (the oracle's corrections, HostTensor)
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
OUT = os.path.join(ROOT, "fixtures", "conformance")

INTS = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
FLOATS = ["fp16", "bf16", "fp32", "fp64"]
ALL = INTS + FLOATS
NUMPY = {
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16,
    "u32": np.uint32, "u64": np.uint64, "fp16": np.float16, "bf16": run_triton.BF16, "fp32": np.float32,
    "fp64": np.float64
}
SHORT = {
    "int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16",
    "uint32": "u32", "uint64": "u64", "fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "fp64": "fp64"
}

_types = {}


@triton.jit
def _probe(X, Y):
    x = tl.load(X)
    y = tl.load(Y)
    for name, fn in _PROBES.items():
        try:
            _types[name] = SHORT[str(fn(x, y).dtype)]
        except Exception:
            _types[name] = None


_PROBES = {}


def result_types(a, b, probes):
    """What Triton types `fn(x, y)` as, for x of dtype a and y of dtype b (None: rejected)."""
    _PROBES.clear()
    _PROBES.update(probes)
    _types.clear()
    x = run_triton.HostTensor(np.ones(1, NUMPY[a]))
    y = run_triton.HostTensor(np.ones(1, NUMPY[b]))
    _probe[(1, )](x, y)
    return dict(_types)


def write(name, kernel, header, lines, body):
    path = os.path.join(OUT, f"{name}.py")
    with open(path, "w") as f:
        f.write(f"# tilec: -k {kernel}\n")
        for line in lines:
            f.write(f"# tilec-run: {line}\n")
        for line in header:
            f.write(f"# {line}\n" if line else "#\n")
        f.write("# Run lines written by xtask/src/oracle/conformance_matrix.py.\n")
        f.write("import triton\nimport triton.language as tl\n\n\n@triton.jit\n")
        f.write(body.strip("\n") + "\n")
    print("wrote", os.path.relpath(path, ROOT))


N = 64


def arrays(outputs):
    return " ".join(f"{name}_ptr=zeros:{dtype}:{N}" for name, dtype in outputs)


def binary_fixtures():
    arith_ops = {
        "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
        "max": lambda x, y: tl.maximum(x, y), "min": lambda x, y: tl.minimum(x, y)
    }
    div_ops = {"div": lambda x, y: x / y, "mod": lambda x, y: x % y, "floordiv": lambda x, y: x // y}
    bit_ops = {
        "and": lambda x, y: x & y, "or": lambda x, y: x | y, "xor": lambda x, y: x ^ y, "shl": lambda x, y: x << y,
        "shr": lambda x, y: x >> y
    }
    compares = ["lt", "le", "gt", "ge", "eq", "ne"]
    arith, divmod_, bitwise = [], [], []
    for a in ALL:
        for b in ALL:
            inputs = f"x_ptr=rand:{a}:{N}:1 y_ptr=rand:{b}:{N}:2"
            t = result_types(a, b, {**arith_ops, **div_ops, **bit_ops})
            outs = [(op, t[op]) for op in arith_ops] + [(c, "i8") for c in compares]
            arith.append(f"--grid 1 {inputs} {arrays(outs)} n={N} BLOCK={N}")
            # a kernel Triton rejects keeps the types of the ops it accepts (the rest: i8)
            floordiv = t["floordiv"] is not None
            outs = [("div", t["div"] or "i8"), ("mod", t["mod"] or "i8"), ("floordiv", t["floordiv"] or "i8")]
            divmod_.append(f"--grid 1 {inputs} {arrays(outs)} n={N} FLOORDIV={floordiv} BLOCK={N}")
            ints = a in INTS and b in INTS
            odd_float = (a, b) in [("fp32", "i32"), ("fp16", "fp16"), ("i8", "fp64"), ("bf16", "u8")]
            if ints or odd_float:
                width = int(''.join(ch for ch in (t["shl"] or "i8") if ch.isdigit()))
                outs = [(op, t[op] or "i8") for op in bit_ops]
                bitwise.append(f"--grid 1 {inputs} {arrays(outs)} n={N} WIDTH={width} BLOCK={N}")
    write(
        "arith", "arith", [
            "Binary arithmetic, maximum/minimum and comparisons over every pair of the 12 dtypes",
            "(in the spirit of test_core.py's test_bin_op and test_compare_op): Triton's promotion,",
            "integer wrap-around, fp16/bf16 rounding per operation."
        ], arith, """
def arith(x_ptr, y_ptr, add_ptr, sub_ptr, mul_ptr, max_ptr, min_ptr, lt_ptr, le_ptr, gt_ptr, ge_ptr, eq_ptr, ne_ptr, n,
          BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    tl.store(add_ptr + offs, x + y, mask=mask)
    tl.store(sub_ptr + offs, x - y, mask=mask)
    tl.store(mul_ptr + offs, x * y, mask=mask)
    tl.store(max_ptr + offs, tl.maximum(x, y), mask=mask)
    tl.store(min_ptr + offs, tl.minimum(x, y), mask=mask)
    tl.store(lt_ptr + offs, (x < y).to(tl.int8), mask=mask)
    tl.store(le_ptr + offs, (x <= y).to(tl.int8), mask=mask)
    tl.store(gt_ptr + offs, (x > y).to(tl.int8), mask=mask)
    tl.store(ge_ptr + offs, (x >= y).to(tl.int8), mask=mask)
    tl.store(eq_ptr + offs, (x == y).to(tl.int8), mask=mask)
    tl.store(ne_ptr + offs, (x != y).to(tl.int8), mask=mask)
""")
    write(
        "div_mod", "div_mod", [
            "`/`, `%` and (integers only) `//` over every pair of the 12 dtypes: true division in",
            "fp32 for narrow floats and integers, C-style remainder (fmod for floats), rejection",
            "of a signed and an unsigned integer operand. Zero divisors are replaced by 1."
        ], divmod_, """
def div_mod(x_ptr, y_ptr, div_ptr, mod_ptr, floordiv_ptr, n, FLOORDIV: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    y = tl.where(y == 0, 1, y)
    tl.store(div_ptr + offs, x / y, mask=mask)
    tl.store(mod_ptr + offs, x % y, mask=mask)
    if FLOORDIV:
        tl.store(floordiv_ptr + offs, x // y, mask=mask)
""")
    write(
        "bitwise", "bitwise", [
            "`&`, `|`, `^`, `<<`, `>>` over every pair of the 8 integer dtypes (test_bitwise_op,",
            "test_shift_op): promotion, arithmetic or logical right shift, shift amounts below the",
            "result's WIDTH; and four pairs with a float operand, which Triton rejects."
        ], bitwise, """
def bitwise(x_ptr, y_ptr, and_ptr, or_ptr, xor_ptr, shl_ptr, shr_ptr, n, WIDTH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    tl.store(and_ptr + offs, x & y, mask=mask)
    tl.store(or_ptr + offs, x | y, mask=mask)
    tl.store(xor_ptr + offs, x ^ y, mask=mask)
    tl.store(shl_ptr + offs, x << (y & (WIDTH - 1)), mask=mask)
    tl.store(shr_ptr + offs, x >> (y & (WIDTH - 1)), mask=mask)
""")


def literal_fixtures():
    int_ops = {
        "add": lambda x, y: x + 3, "sub": lambda x, y: x - 5, "mul": lambda x, y: x * 3,
        "floordiv": lambda x, y: x // 3, "mod": lambda x, y: x % 3, "and": lambda x, y: x & 0x3F,
        "or": lambda x, y: x | 5, "xor": lambda x, y: x ^ 0x55, "shl": lambda x, y: x << 3,
        "shr": lambda x, y: x >> 1, "neg": lambda x, y: -x, "lsub": lambda x, y: 7 - x,
        "add8": lambda x, y: (x + 8) << 5, "wrap": lambda x, y: ((x + 8) << 5) >> 5
    }
    float_ops = {
        "add": lambda x, y: x + 2.5, "mul": lambda x, y: x * 0.5, "div": lambda x, y: x / 3.0,
        "mod": lambda x, y: x % 0.375, "isub": lambda x, y: x - 1, "rdiv": lambda x, y: 1.5 / (x + 2.0),
        "neg": lambda x, y: -x
    }
    lines = []
    for a in INTS:
        t = result_types(a, a, int_ops)
        lines.append(f"--grid 1 x_ptr=rand:{a}:{N}:3 {arrays([(op, t[op]) for op in int_ops])} n={N} BLOCK={N}")
    write(
        "literals_int", "literals_int", [
            "Integer tensors with Python int literals: the literal takes the tensor's dtype, for",
            "arithmetic, bitwise and shift operators alike (`(x_u8 + 8) << 5` stays uint8)."
        ], lines, """
def literals_int(x_ptr, add_ptr, sub_ptr, mul_ptr, floordiv_ptr, mod_ptr, and_ptr, or_ptr, xor_ptr, shl_ptr, shr_ptr,
                 neg_ptr, lsub_ptr, add8_ptr, wrap_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    tl.store(add_ptr + offs, x + 3, mask=mask)
    tl.store(sub_ptr + offs, x - 5, mask=mask)
    tl.store(mul_ptr + offs, x * 3, mask=mask)
    tl.store(floordiv_ptr + offs, x // 3, mask=mask)
    tl.store(mod_ptr + offs, x % 3, mask=mask)
    tl.store(and_ptr + offs, x & 0x3F, mask=mask)
    tl.store(or_ptr + offs, x | 5, mask=mask)
    tl.store(xor_ptr + offs, x ^ 0x55, mask=mask)
    tl.store(shl_ptr + offs, x << 3, mask=mask)
    tl.store(shr_ptr + offs, x >> 1, mask=mask)
    tl.store(neg_ptr + offs, -x, mask=mask)
    tl.store(lsub_ptr + offs, 7 - x, mask=mask)
    tl.store(add8_ptr + offs, (x + 8) << 5, mask=mask)
    # the shift wraps in the tensor's dtype before the shift back
    tl.store(wrap_ptr + offs, ((x + 8) << 5) >> 5, mask=mask)
""")
    lines = []
    for a in FLOATS:
        t = result_types(a, a, float_ops)
        lines.append(f"--grid 1 x_ptr=rand:{a}:{N}:4 {arrays([(op, t[op]) for op in float_ops])} n={N} BLOCK={N}")
    write(
        "literals_float", "literals_float", [
            "Float tensors with Python literals: the literal takes the tensor's dtype (fp16, bf16",
            "stay narrow), `/` and `%` compute narrow floats in fp32, `%` is fmod."
        ], lines, """
def literals_float(x_ptr, add_ptr, mul_ptr, div_ptr, mod_ptr, isub_ptr, rdiv_ptr, neg_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    tl.store(add_ptr + offs, x + 2.5, mask=mask)
    tl.store(mul_ptr + offs, x * 0.5, mask=mask)
    tl.store(div_ptr + offs, x / 3.0, mask=mask)
    tl.store(mod_ptr + offs, x % 0.375, mask=mask)
    tl.store(isub_ptr + offs, x - 1, mask=mask)
    tl.store(rdiv_ptr + offs, 1.5 / (x + 2.0), mask=mask)
    tl.store(neg_ptr + offs, -x, mask=mask)
""")


def cast_fixture():
    lines = []
    for a in ALL:
        scale = 1 if a in INTS else 100
        outs = [(f"to_{b}", b) for b in ALL]
        lines.append(f"--grid 1 x_ptr=rand:{a}:{N}:5 {arrays(outs)} n={N} SCALE={scale} BLOCK={N}")
    names = ", ".join(f"to_{b}_ptr" for b in ALL)
    stores = "\n".join(
        f"    tl.store(to_{b}_ptr + offs, {'u' if b.startswith('u') else 'v'}.to(tl.{tl_name(b)}), mask=mask)"
        for b in ALL)
    write(
        "casts", "casts", [
            "`.to(dtype)` from each of the 12 dtypes to each (test_cast): integer wrap-around and",
            "sign extension, float-to-int truncation toward zero (float values are scaled by 100",
            "into range; unsigned targets get their magnitude), int-to-float and float-to-float",
            "rounding to nearest even."
        ], lines, f"""
def casts(x_ptr, {names}, n, SCALE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=1) * SCALE
    u = tl.abs(v)
{stores}
""")


def tl_name(short):
    return {
        "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32",
        "u64": "uint64", "fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64"
    }[short]


M, K = 8, 16


def reduce_fixtures():
    sum_type = {"i8": "i32", "i16": "i32", "u8": "u32", "u16": "u32"}
    wide = {"i8": "i32", "i16": "i32", "u8": "i32", "u16": "i32", "fp16": "fp32", "bf16": "fp32"}

    def outs(a, ints):
        s, w = sum_type.get(a, a), wide.get(a, a)
        o = [("sum0", s, K), ("sum1", s, M), ("sumall", s, 1), ("max0", w, K), ("max1", w, M), ("maxall", w, 1),
             ("min0", w, K), ("min1", w, M), ("argmax0", "i32", K), ("argmax1", "i32", M), ("argmin0", "i32", K),
             ("argmin1", "i32", M), ("rimax", a, M), ("rimin", a, M)]
        if ints:
            o += [("xor0", a, K), ("xor1", a, M)]
        return " ".join(f"{n}_ptr=zeros:{d}:{c}" for n, d, c in o)

    def body(name, ints):
        xor = "    tl.store(xor0_ptr + c, tl.xor_sum(x, axis=0))\n    tl.store(xor1_ptr + r, tl.xor_sum(x, axis=1))\n"
        params = "x_ptr, sum0_ptr, sum1_ptr, sumall_ptr, max0_ptr, max1_ptr, maxall_ptr, min0_ptr, min1_ptr, " \
                 "argmax0_ptr, argmax1_ptr, argmin0_ptr, argmin1_ptr, rimax_ptr, rimin_ptr"
        if ints:
            params += ", xor0_ptr, xor1_ptr"
        bump = "100" if ints else "0.5"
        return f"""
def {name}({params}, M: tl.constexpr, K: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, K)
    x = tl.load(x_ptr + r[:, None] * K + c[None, :])
    tl.store(sum0_ptr + c, tl.sum(x, axis=0))
    tl.store(sum1_ptr + r, tl.sum(x, axis=1))
    tl.store(sumall_ptr, tl.sum(x))
    tl.store(max0_ptr + c, tl.max(x, axis=0))
    tl.store(max1_ptr + r, tl.max(x, axis=1))
    tl.store(maxall_ptr, tl.max(x))
    tl.store(min0_ptr + c, tl.min(x, axis=0))
    tl.store(min1_ptr + r, tl.min(x, axis=1))
    tl.store(argmax0_ptr + c, tl.argmax(x, axis=0))
    tl.store(argmax1_ptr + r, tl.argmax(x, axis=1))
    tl.store(argmin0_ptr + c, tl.argmin(x, axis=0))
    tl.store(argmin1_ptr + r, tl.argmin(x, axis=1))
    # return_indices keeps the input's dtype: the value wraps or rounds there
    vmax, imax = tl.max(x, axis=1, return_indices=True)
    tl.store(rimax_ptr + r, vmax + {bump} + imax)
    vmin, imin = tl.min(x, axis=1, return_indices=True)
    tl.store(rimin_ptr + r, vmin - {bump} - imin)
{xor if ints else ''}"""

    common = [
        "tl.sum, tl.max, tl.min, tl.argmax, tl.argmin along axis 0, 1 and the whole tile",
        "(test_reduce1d/2d), and max/min with return_indices=True, whose value keeps the input's",
        "dtype; an 8x16 tile of random values. Result dtypes: sums of narrow integers in",
        "(u)int32, plain max/min of narrow types widened to int32/fp32."
    ]
    lines = [f"--grid 1 x_ptr=rand:{a}:{M}x{K}:6 {outs(a, True)} M={M} K={K}" for a in INTS]
    write("reduce_int", "reduce_int", common + ["Integers, and tl.xor_sum."], lines, body("reduce_int", True))
    def tolerances(abs_tol):
        why = "float sums round in an order Triton leaves unspecified"
        return [f'tilec-tolerance: {n}_ptr abs={abs_tol} reason="{why}"' for n in ["sum0", "sum1", "sumall"]]

    lines = [f"--grid 1 x_ptr=rand:{a}:{M}x{K}:6 {outs(a, False)} M={M} K={K}" for a in ["fp32", "fp64"]]
    write("reduce_float", "reduce_float", tolerances("1e-5") + common + ["fp32 and fp64."], lines,
          body("reduce_float", False))
    lines = [f"--grid 1 x_ptr=rand:{a}:{M}x{K}:6 {outs(a, False)} M={M} K={K}" for a in ["fp16", "bf16"]]
    write("reduce_half", "reduce_half", tolerances("0.5") + common + ["fp16 and bf16: sums stay in the narrow type."],
          lines, body("reduce_half", False))


def scan_fixtures():
    sum_type = {"i8": "i32", "i16": "i32", "u8": "u32", "u16": "u32"}

    def outs(a):
        s = sum_type.get(a, a)
        return " ".join(f"{n}_ptr=zeros:{s}:{M}x{K}" for n in ["cs0", "cs1", "csr1", "cp1", "cpr0"])

    body = """
def NAME(x_ptr, cs0_ptr, cs1_ptr, csr1_ptr, cp1_ptr, cpr0_ptr, M: tl.constexpr, K: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, K)
    tile = r[:, None] * K + c[None, :]
    x = tl.load(x_ptr + tile)
    tl.store(cs0_ptr + tile, tl.cumsum(x, axis=0))
    tl.store(cs1_ptr + tile, tl.cumsum(x, axis=1))
    tl.store(csr1_ptr + tile, tl.cumsum(x, axis=1, reverse=True))
    tl.store(cp1_ptr + tile, tl.cumprod(x, axis=1))
    tl.store(cpr0_ptr + tile, tl.cumprod(x, axis=0, reverse=True))
"""
    common = [
        "tl.cumsum and tl.cumprod along both axes, forward and reversed (test_scan2d); an 8x16",
        "tile. Triton 3.9 accumulates narrow integers in (u)int32 for both."
    ]
    lines = [f"--grid 1 x_ptr=rand:{a}:{M}x{K}:7 {outs(a)} M={M} K={K}" for a in INTS]
    write("scan_int", "scan_int", common, lines, body.replace("NAME", "scan_int"))
    def tolerances(abs_tol):
        why = "float prefix sums and products round in an order Triton leaves unspecified"
        return [f'tilec-tolerance: {n}_ptr abs={abs_tol} reason="{why}"' for n in ["cs0", "cs1", "csr1", "cp1", "cpr0"]]

    lines = [f"--grid 1 x_ptr=rand:{a}:{M}x{K}:7 {outs(a)} M={M} K={K}" for a in ["fp32", "fp64"]]
    write("scan_float", "scan_float", tolerances("1e-5") + common + ["fp32 and fp64."], lines,
          body.replace("NAME", "scan_float"))
    lines = [f"--grid 1 x_ptr=rand:{a}:{M}x{K}:7 {outs(a)} M={M} K={K}" for a in ["fp16", "bf16"]]
    write("scan_half", "scan_half", tolerances("0.5") + common + ["fp16 and bf16 stay narrow."], lines,
          body.replace("NAME", "scan_half"))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    binary_fixtures()
    literal_fixtures()
    cast_fixture()
    reduce_fixtures()
    scan_fixtures()
