#!/usr/bin/env python3
"""Runs every @triton.jit kernel of Triton's tutorials 01-09 with tilec and checks it against numpy.

    PYTHON docs/scripts/tutorial_table.py --tilec target/release/tilec --tutorials DIR [--only NAME]

DIR is a `python/tutorials` directory of Triton (docs/tutorials.md says which commit the
table used); PYTHON needs numpy (the oracle's environment has it:
`~/.cache/tilec/toolchain/oracle-triton-3.9.0-1/bin/python`). No network is used. Each
kernel runs unmodified, with the signature and constants its host code passes (the
autotuned block sizes given as constants, GPU-only switches at their CPU meaning), on the
interpreter, riscv64gc and riscv64gcv at VLEN 128, 256 and 512; its outputs are compared
with a numpy reference computed in float64 from the same inputs, with the tolerance the
tutorial's own test uses. Prints one line per kernel and target and a Markdown table.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

TARGETS = [
    ("interp", ["--target", "interp"]),
    ("riscv64gc", ["--target", "riscv64gc"]),
    ("riscv64gcv VLEN 128", ["--target", "riscv64gcv", "--vlen", "128"]),
    ("riscv64gcv VLEN 256", ["--target", "riscv64gcv", "--vlen", "256"]),
    ("riscv64gcv VLEN 512", ["--target", "riscv64gcv", "--vlen", "512"]),
]


class Runner:
    """Runs kernels of the tutorial files with `tilec run` on one target."""

    def __init__(self, tilec, tutorials, flags, work):
        self.tilec, self.tutorials, self.flags, self.work = tilec, tutorials, flags, work
        self.count = 0

    def run(self, file, kernel, grid, args):
        """`args`: name -> numpy array (an input or output array), `("desc", block, array)`
        (a host tensor descriptor), `("ptrs", [arrays])` (a table of addresses) or a scalar or
        constexpr value (int, float, bool, str). Returns every array argument after the run,
        by name (tables' arrays as `name.0`, `name.1`, ...)."""
        self.count += 1
        job = os.path.join(self.work, f"run{self.count}")
        os.makedirs(job)

        def array_arg(name, a):
            path = os.path.join(job, f"in_{name}.npy")
            if a.dtype == FP8E4NV or a.dtype == FP8E5:
                np.save(path, a.view(np.uint8))
                return f"@{path}:" + ("fp8e4nv" if a.dtype == FP8E4NV else "fp8e5")
            np.save(path, a)
            return f"@{path}"

        words = []
        for name, v in args.items():
            if isinstance(v, np.ndarray):
                words.append(f"{name}={array_arg(name, v)}")
            elif isinstance(v, tuple) and v[0] == "desc":
                block = "x".join(str(b) for b in v[1])
                words.append(f"{name}=desc:{block}:{array_arg(name, v[2])}")
            elif isinstance(v, tuple) and v[0] == "ptrs":
                words.append(f"{name}=ptrs:" + ",".join(array_arg(f"{name}{i}", a) for i, a in enumerate(v[1])))
            elif isinstance(v, str):
                words.append(f"{name}='{v}'")
            elif isinstance(v, float):
                words.append(f"{name}={v!r}")
            else:
                words.append(f"{name}={v}")
        out = os.path.join(job, "out")
        cmd = [self.tilec, "run", os.path.join(self.tutorials, file), "-k", kernel, "--grid", grid, "--out", out]
        cmd += self.flags + words
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
        if p.returncode != 0:
            raise RuntimeError(f"tilec run failed:\n{p.stderr[-3000:]}")
        result = {}
        for f in os.listdir(out):
            if f.endswith(".npy") and not f.endswith(".failed.npy"):
                result[f[:-4]] = np.load(os.path.join(out, f))
        return result


try:
    import ml_dtypes

    FP8E4NV = np.dtype(ml_dtypes.float8_e4m3fn)
    FP8E5 = np.dtype(ml_dtypes.float8_e5m2)
except ImportError:
    FP8E4NV = FP8E5 = None


def close(got, want, atol, rtol=0.0):
    """The largest error and whether every element is within `atol + rtol * |want|`."""
    got = got.astype(np.float64)
    err = np.abs(got - want)
    ok = bool(np.all(err <= atol + rtol * np.abs(want)))
    return float(err.max()), ok


def f16(x):
    return x.astype(np.float16)


# ---- Philox, as `tl.rand` computes it (Triton's constants and rounds) ----


def rand(seed, offsets):
    m = np.uint64(0xFFFFFFFF)
    c0 = offsets.astype(np.uint64) & m
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0 = np.full_like(c0, seed & 0xFFFFFFFF)
    k1 = np.full_like(c0, (seed >> 32) & 0xFFFFFFFF)
    ka, kb, ra, rb = 0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57
    for _ in range(10):
        p0, p2 = c0, c2
        c0 = ((np.uint64(rb) * p2) >> np.uint64(32)) ^ c1 ^ k0
        c2 = ((np.uint64(ra) * p0) >> np.uint64(32)) ^ c3 ^ k1
        c1 = (np.uint64(rb) * p2) & m
        c3 = (np.uint64(ra) * p0) & m
        k0 = (k0 + np.uint64(ka)) & m
        k1 = (k1 + np.uint64(kb)) & m
    x = c0.astype(np.uint32).view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    return (x.astype(np.float32) * np.float32(4.6566127342e-10)).astype(np.float32)


# ---- the cases: (tutorial, kernel, variant, function(run) -> [(output, error, ok)]) ----


def t01(run):
    rng = np.random.default_rng(0)
    n = 98432
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = run("01-vector-add.py", "add_kernel", "97", dict(
        x_ptr=x, y_ptr=y, output_ptr=np.zeros(n, np.float32), n_elements=n, BLOCK_SIZE=1024))
    return [("output", *close(out["output_ptr"], (x + y).astype(np.float64), 0.0))]


def t02(run):
    rng = np.random.default_rng(0)
    rows, cols = 64, 781
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    out = run("02-fused-softmax.py", "softmax_kernel", "8", dict(
        output_ptr=np.zeros_like(x), input_ptr=x, input_row_stride=cols, output_row_stride=cols,
        n_rows=rows, n_cols=cols, BLOCK_SIZE=1024, num_stages=4))
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    ref = e / e.sum(1, keepdims=True)
    # torch.allclose's defaults
    return [("output", *close(out["output_ptr"], ref, 1e-8, 1e-5))]


def t03(activation):
    def case(run):
        rng = np.random.default_rng(1)
        m, n, k = 70, 90, 40
        a, b = f16(rng.standard_normal((m, k))), f16(rng.standard_normal((k, n)))
        out = run("03-matrix-multiplication.py", "matmul_kernel", "9", dict(
            a_ptr=a, b_ptr=b, c_ptr=np.zeros((m, n), np.float16), M=m, N=n, K=k, stride_am=k, stride_ak=1,
            stride_bk=n, stride_bn=1, stride_cm=n, stride_cn=1, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32,
            BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION=activation))
        c = a.astype(np.float64) @ b.astype(np.float64)
        if activation == "leaky_relu":
            c = np.where(c >= 0, c, 0.01 * c)
        return [("c", *close(out["c_ptr"], c, 1e-2))]
    return case


def t04_dropout(run):
    rng = np.random.default_rng(2)
    n, p = 1000, 0.5
    x = rng.standard_normal(n, dtype=np.float32)
    keep = (rng.random(n) > p).astype(np.int32)
    out = run("04-low-memory-dropout.py", "_dropout", "1", dict(
        x_ptr=x, x_keep_ptr=keep, output_ptr=np.zeros(n, np.float32), n_elements=n, p=p, BLOCK_SIZE=1024))
    ref = np.where(keep != 0, x / np.float32(1 - p), np.float32(0)).astype(np.float64)
    return [("output", *close(out["output_ptr"], ref, 0.0))]


def t04_seeded(run):
    rng = np.random.default_rng(3)
    n, p, seed = 3000, 0.5, 123
    x = rng.standard_normal(n, dtype=np.float32)
    out = run("04-low-memory-dropout.py", "_seeded_dropout", "3", dict(
        x_ptr=x, output_ptr=np.zeros(n, np.float32), n_elements=n, p=p, seed=seed, BLOCK_SIZE=1024))
    keep = rand(seed, np.arange(n)) > np.float32(p)
    ref = np.where(keep, x / np.float32(1 - p), np.float32(0)).astype(np.float64)
    return [("output", *close(out["output_ptr"], ref, 0.0))]


def layer_norm_inputs():
    rng = np.random.default_rng(4)
    m, n = 16, 300
    x = f16(-2.3 + 0.5 * rng.standard_normal((m, n)))
    w, b = f16(rng.random(n)), f16(rng.random(n))
    dy = f16(0.1 * rng.standard_normal((m, n)))
    return m, n, x, w, b, dy


def layer_norm_reference(x, w, b, dy, eps):
    x, w, b, dy = (a.astype(np.float64) for a in (x, w, b, dy))
    mean = x.mean(1, keepdims=True)
    rstd = 1 / np.sqrt(((x - mean) ** 2).mean(1, keepdims=True) + eps)
    xhat = (x - mean) * rstd
    y = xhat * w + b
    wdy = w * dy
    n = x.shape[1]
    dx = (wdy - (xhat * (xhat * wdy).sum(1, keepdims=True) + wdy.sum(1, keepdims=True)) / n) * rstd
    return y, mean[:, 0], rstd[:, 0], dx, (dy * xhat).sum(0), dy.sum(0)


def t05_fwd(run):
    m, n, x, w, b, dy = layer_norm_inputs()
    out = run("05-layer-norm.py", "_layer_norm_fwd_fused", str(m), dict(
        X=x, Y=np.zeros_like(x), W=w, B=b, Mean=np.zeros(m, np.float32), Rstd=np.zeros(m, np.float32),
        stride=n, N=n, eps=1e-5, BLOCK_SIZE=512))
    y, mean, rstd, *_ = layer_norm_reference(x, w, b, dy, 1e-5)
    return [("y", *close(out["Y"], y, 1e-2)), ("mean", *close(out["Mean"], mean, 1e-2)),
            ("rstd", *close(out["Rstd"], rstd, 1e-2))]


def t05_bwd(run):
    m, n, x, w, b, dy = layer_norm_inputs()
    fwd = run("05-layer-norm.py", "_layer_norm_fwd_fused", str(m), dict(
        X=x, Y=np.zeros_like(x), W=w, B=b, Mean=np.zeros(m, np.float32), Rstd=np.zeros(m, np.float32),
        stride=n, N=n, eps=1e-5, BLOCK_SIZE=512))
    group = 256  # the tutorial's GROUP_SIZE_M for N <= 1024
    dx_out = run("05-layer-norm.py", "_layer_norm_bwd_dx_fused", str(m), dict(
        DX=np.zeros_like(x), DY=dy, DW=np.zeros((group, n), np.float16), DB=np.zeros((group, n), np.float16),
        X=x, W=w, Mean=fwd["Mean"], Rstd=fwd["Rstd"], Lock=np.zeros(2 * group, np.int32), stride=n, N=n,
        GROUP_SIZE_M=group, BLOCK_SIZE_N=512))
    dwdb = run("05-layer-norm.py", "_layer_norm_bwd_dwdb", str(-(-n // 128)), dict(
        DW=dx_out["DW"], DB=dx_out["DB"], FINAL_DW=np.zeros(n, np.float16), FINAL_DB=np.zeros(n, np.float16),
        M=min(group, m), N=n, BLOCK_SIZE_M=32, BLOCK_SIZE_N=128))
    _, _, _, dx, dw, db = layer_norm_reference(x, w, b, dy, 1e-5)
    return [("dx", *close(dx_out["DX"], dx, 1e-2)), ("dw", *close(dwdb["FINAL_DW"], dw, 1e-2)),
            ("db", *close(dwdb["FINAL_DB"], db, 1e-2))]


def attention_inputs():
    rng = np.random.default_rng(20)
    z, h, n_ctx, d = 1, 2, 128, 16
    q, k, v, do = (f16(rng.normal(0.0, 0.5, (z, h, n_ctx, d))) for _ in range(4))
    return z, h, n_ctx, d, q, k, v, do


def attention_reference(q, k, v, do, causal, sm_scale):
    q, k, v, do = (a.astype(np.float64) for a in (q, k, v, do))
    s = q @ k.transpose(0, 1, 3, 2) * sm_scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n))) == 0, -np.inf, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = p @ v
    dv = p.transpose(0, 1, 3, 2) @ do
    dp = do @ v.transpose(0, 1, 3, 2)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True))
    return o, ds @ k * sm_scale, ds.transpose(0, 1, 3, 2) @ q * sm_scale, dv


def attention_forward(run, z, h, n_ctx, d, q, k, v, causal, sm_scale):
    rows = z * h * n_ctx
    return run("06-fused-attention.py", "_attn_fwd", f"{n_ctx // 32},{z * h}", dict(
        sm_scale=sm_scale, M=np.zeros(rows, np.float32), Z=z, H=h, desc_q=q.reshape(rows, d),
        desc_k=k.reshape(rows, d), desc_v=v.reshape(rows, d), desc_o=np.zeros((rows, d), np.float16),
        N_CTX=n_ctx, HEAD_DIM=d, BLOCK_M=32, BLOCK_N=16, FP8_OUTPUT=False, STAGE=3 if causal else 1,
        warp_specialize=False, IS_HOPPER=False))


def t06_fwd(causal):
    def case(run):
        z, h, n_ctx, d, q, k, v, do = attention_inputs()
        out = attention_forward(run, z, h, n_ctx, d, q, k, v, causal, 0.5)
        o, *_ = attention_reference(q, k, v, do, causal, 0.5)
        return [("o", *close(out["desc_o"].reshape(o.shape), o, 1e-2))]
    return case


def t06_bwd(causal):
    def case(run):
        z, h, n_ctx, d, q, k, v, do = attention_inputs()
        sm_scale = 0.5
        fwd = attention_forward(run, z, h, n_ctx, d, q, k, v, causal, sm_scale)
        o = fwd["desc_o"].reshape(q.shape)
        pre = run("06-fused-attention.py", "_attn_bwd_preprocess", f"{n_ctx // 128},{z * h}", dict(
            O=o, DO=do, Delta=np.zeros(z * h * n_ctx, np.float32), Z=z, H=h, N_CTX=n_ctx, BLOCK_M=128,
            HEAD_DIM=d))
        # the host scales K before the launch (`arg_k = k * (sm_scale * RCP_LN2)`, in fp16)
        arg_k = f16(k.astype(np.float32) * np.float32(sm_scale * 1.4426950408889634))
        bwd = run("06-fused-attention.py", "_attn_bwd", f"{n_ctx // 128},1,{z * h}", dict(
            Q=q, K=arg_k, V=v, sm_scale=sm_scale, DO=do, DQ=np.zeros_like(q), DK=np.zeros_like(k),
            DV=np.zeros_like(v), M=fwd["M"], D=pre["Delta"], stride_z=h * n_ctx * d, stride_h=n_ctx * d,
            stride_tok=d, stride_d=1, H=h, N_CTX=n_ctx, BLOCK_M1=32, BLOCK_N1=128, BLOCK_M2=128, BLOCK_N2=32,
            BLK_SLICE_FACTOR=2, HEAD_DIM=d, CAUSAL=causal))
        _, dq, dk, dv = attention_reference(q, k, v, do, causal, sm_scale)
        return [("dq", *close(bwd["DQ"], dq, 1e-2)), ("dk", *close(bwd["DK"], dk, 1e-2)),
                ("dv", *close(bwd["DV"], dv, 1e-2))]
    return case


def t07(run):
    rng = np.random.default_rng(7)
    n = 98432
    x = rng.uniform(-1, 1, n).astype(np.float32)
    out = run("07-extern-functions.py", "asin_kernel", "97", dict(
        x_ptr=x, y_ptr=np.zeros(n, np.float32), n_elements=n, BLOCK_SIZE=1024))
    # torch.allclose's defaults
    return [("y", *close(out["y_ptr"], np.arcsin(x.astype(np.float64)), 1e-8, 1e-5))]


def grouped_inputs():
    rng = np.random.default_rng(8)
    shapes = [(64, 48, 32), (32, 16, 64), (48, 32, 48)]
    a = [f16(rng.standard_normal((m, k))) for m, k, _ in shapes]
    b = [f16(rng.standard_normal((k, n))) for _, k, n in shapes]
    return shapes, a, b


def t08(tma):
    def case(run):
        shapes, a, b = grouped_inputs()
        sizes = np.array([s for m, k, n in shapes for s in (m, n, k)], np.int32)
        c = [np.zeros((m, n), np.float16) for m, _, n in shapes]
        if tma:
            # the TMA kernel takes B transposed (N x K)
            bt = [np.ascontiguousarray(x.T) for x in b]
            lds = np.array([s for (m, k, n) in shapes for s in (k, k, n)], np.int32)
            out = run("08-grouped-gemm.py", "grouped_matmul_tma_kernel", "4", dict(
                group_a_ptrs=("ptrs", a), group_b_ptrs=("ptrs", bt), group_c_ptrs=("ptrs", c),
                group_gemm_sizes=sizes, g_lds=lds, group_size=len(shapes), NUM_SM=4, BLOCK_SIZE_M=16,
                BLOCK_SIZE_N=16, BLOCK_SIZE_K=16, FP8=False))
            name = "group_c_ptrs"
        else:
            lds = np.array([s for (m, k, n) in shapes for s in (k, n, n)], np.int32)
            out = run("08-grouped-gemm.py", "grouped_matmul_kernel", "4", dict(
                group_a_ptrs=("ptrs", a), group_b_ptrs=("ptrs", b), group_c_ptrs=("ptrs", c),
                group_gemm_sizes=sizes, g_lds=lds, group_size=len(shapes), NUM_SM=4, BLOCK_SIZE_M=16,
                BLOCK_SIZE_N=16, BLOCK_SIZE_K=16))
            name = "group_c_ptrs"
        results = []
        for i in range(len(shapes)):
            ref = a[i].astype(np.float64) @ b[i].astype(np.float64)
            results.append((f"c{i}", *close(out[f"{name}.{i}"], ref, 1e-2, 1e-2)))
        return results
    return case


def matmul_inputs():
    rng = np.random.default_rng(9)
    m, n, k = 72, 48, 40
    a, b = f16(rng.standard_normal((m, k))), f16(rng.standard_normal((k, n)))
    return m, n, k, a, b, a.astype(np.float64) @ b.astype(np.float64)


BLOCKS = dict(BLOCK_SIZE_M=16, BLOCK_SIZE_N=16, BLOCK_SIZE_K=16, GROUP_SIZE_M=8)


def t09(kernel, **constants):
    def case(run):
        m, n, k, a, b, ref = matmul_inputs()
        c = np.zeros((m, n), np.float16)
        tiles = -(-m // 16) * -(-n // 16)
        bt = np.ascontiguousarray(b.T)
        if kernel in ("matmul_kernel", "matmul_kernel_persistent"):
            args = dict(a_ptr=a, b_ptr=b, c_ptr=c, M=m, N=n, K=k, stride_am=k, stride_ak=1, stride_bk=n,
                        stride_bn=1, stride_cm=n, stride_cn=1)
            out_name = "c_ptr"
        elif kernel == "matmul_kernel_descriptor_persistent":
            args = dict(a_ptr=a, b_ptr=bt, c_ptr=c, M=m, N=n, K=k)
            out_name = "c_ptr"
        else:
            # the host's pre_hook gives C's descriptor half a block with EPILOGUE_SUBTILE
            c_block = [16, 8] if constants.get("EPILOGUE_SUBTILE") else [16, 16]
            args = dict(a_desc=("desc", [16, 16], a), b_desc=("desc", [16, 16], bt), c_desc=("desc", c_block, c),
                        M=m, N=n, K=k)
            out_name = "c_desc"
        grid = str(4 if "NUM_SMS" in constants else tiles)
        out = run("09-persistent-matmul.py", kernel, grid, {**args, **BLOCKS, **constants})
        # the tutorial's check: atol 1.0 (fp16 products of K = 40 terms)
        return [("c", *close(out[out_name], ref, 1.0))]
    return case


def fp8(x):
    return x.astype(FP8E4NV)


def t08_fp8(run):
    # K and N multiples of 16 bytes for fp8 descriptors
    rng = np.random.default_rng(10)
    shapes = [(64, 48, 32), (32, 16, 64), (48, 32, 48)]
    a = [fp8(rng.standard_normal((m, k))) for m, k, _ in shapes]
    bt = [fp8(rng.standard_normal((n, k))) for _, k, n in shapes]
    sizes = np.array([s for m, k, n in shapes for s in (m, n, k)], np.int32)
    lds = np.array([s for (m, k, n) in shapes for s in (k, k, n)], np.int32)
    c = [fp8(np.zeros((m, n))) for m, _, n in shapes]
    out = run("08-grouped-gemm.py", "grouped_matmul_tma_kernel", "4", dict(
        group_a_ptrs=("ptrs", a), group_b_ptrs=("ptrs", bt), group_c_ptrs=("ptrs", c), group_gemm_sizes=sizes,
        g_lds=lds, group_size=len(shapes), NUM_SM=4, BLOCK_SIZE_M=16, BLOCK_SIZE_N=16, BLOCK_SIZE_K=16, FP8=True))
    results = []
    for i in range(len(shapes)):
        ref = a[i].astype(np.float64) @ bt[i].astype(np.float64).T
        got = out[f"group_c_ptrs.{i}"].view(FP8E4NV)
        # the product rounded to fp8 (3 mantissa bits) is within 1/16 of it, and (the fp32
        # sums of these few fp8 products being exact) equal to numpy's product rounded
        results.append((f"c{i}", *close(got, ref, 1e-2, 1 / 16)))
        differ = int(np.sum(got.astype(np.float64) != fp8(ref).astype(np.float64)))
        results.append((f"c{i} elements unlike fp8(numpy)", differ, differ == 0))
    return results


def t09_fp8(run):
    rng = np.random.default_rng(11)
    m, n, k = 72, 48, 48
    a, bt = fp8(rng.standard_normal((m, k))), fp8(rng.standard_normal((n, k)))
    c = fp8(np.zeros((m, n)))
    out = run("09-persistent-matmul.py", "matmul_kernel_tma_persistent", "4", dict(
        a_desc=("desc", [16, 16], a), b_desc=("desc", [16, 16], bt), c_desc=("desc", [16, 16], c), M=m, N=n, K=k,
        **BLOCKS, FP8_OUTPUT=True, EPILOGUE_SUBTILE=False, NUM_SMS=4, WARP_SPECIALIZE=False))
    ref = a.astype(np.float64) @ bt.astype(np.float64).T
    got = out["c_desc"].view(FP8E4NV)
    differ = int(np.sum(got.astype(np.float64) != fp8(ref).astype(np.float64)))
    # the tutorial's check (atol 1.0), and equality with numpy's product rounded to fp8
    return [("c", *close(got, ref, 1.0)), ("elements unlike fp8(numpy)", differ, differ == 0)]


CASES = [
    ("01", "add_kernel", "", t01),
    ("02", "softmax_kernel", "", t02),
    ("03", "matmul_kernel", "fp16", t03("")),
    ("03", "matmul_kernel", "leaky_relu", t03("leaky_relu")),
    ("04", "_dropout", "", t04_dropout),
    ("04", "_seeded_dropout", "", t04_seeded),
    ("05", "_layer_norm_fwd_fused", "", t05_fwd),
    ("05", "_layer_norm_bwd_dx_fused + _layer_norm_bwd_dwdb", "", t05_bwd),
    ("06", "_attn_fwd", "causal", t06_fwd(True)),
    ("06", "_attn_fwd", "non-causal", t06_fwd(False)),
    ("06", "_attn_bwd_preprocess + _attn_bwd", "causal", t06_bwd(True)),
    ("06", "_attn_bwd_preprocess + _attn_bwd", "non-causal", t06_bwd(False)),
    ("07", "asin_kernel", "", t07),
    ("08", "grouped_matmul_kernel", "", t08(False)),
    ("08", "grouped_matmul_tma_kernel", "", t08(True)),
    ("08", "grouped_matmul_tma_kernel", "FP8 (fp8e4nv)", t08_fp8),
    ("09", "matmul_kernel", "", t09("matmul_kernel")),
    ("09", "matmul_kernel_tma", "", t09("matmul_kernel_tma", FP8_OUTPUT=False, WARP_SPECIALIZE=False)),
    ("09", "matmul_kernel_persistent", "", t09("matmul_kernel_persistent", NUM_SMS=4)),
    ("09", "matmul_kernel_tma_persistent", "", t09(
        "matmul_kernel_tma_persistent", FP8_OUTPUT=False, EPILOGUE_SUBTILE=False, NUM_SMS=4, WARP_SPECIALIZE=False)),
    ("09", "matmul_kernel_tma_persistent", "EPILOGUE_SUBTILE", t09(
        "matmul_kernel_tma_persistent", FP8_OUTPUT=False, EPILOGUE_SUBTILE=True, NUM_SMS=4, WARP_SPECIALIZE=False)),
    ("09", "matmul_kernel_tma_persistent", "FP8_OUTPUT (fp8e4nv)", t09_fp8),
    ("09", "matmul_kernel_tma_clc", "", t09(
        "matmul_kernel_tma_clc", FP8_OUTPUT=False, EPILOGUE_SUBTILE=False, WARP_SPECIALIZE=False)),
    ("09", "matmul_kernel_descriptor_persistent", "EPILOGUE_SUBTILE", t09(
        "matmul_kernel_descriptor_persistent", EPILOGUE_SUBTILE=True, NUM_SMS=4, WARP_SPECIALIZE=False,
        FLATTEN=True)),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec", required=True)
    parser.add_argument("--tutorials", required=True, help="Triton's python/tutorials directory")
    parser.add_argument("--only", help="only the kernels whose name contains this")
    args = parser.parse_args()
    table = []
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        for number, kernel, variant, case in CASES:
            if args.only and args.only not in kernel:
                continue
            row = []
            for target, flags in TARGETS:
                runner = Runner(os.path.abspath(args.tilec), args.tutorials, flags,
                                tempfile.mkdtemp(dir=work))
                try:
                    results = case(runner.run)
                    ok = all(r[2] for r in results)
                    detail = ", ".join(f"{name} {err:.2g}" if isinstance(err, float) else f"{name} {err}"
                                       for name, err, _ in results)
                    cell = ("ok" if ok else "FAIL") + f" ({detail})"
                except Exception as e:  # a failed run is a row of the table
                    lines = [l for l in str(e).splitlines() if l.strip()]
                    ok, cell = False, "FAIL: " + (lines[1] if len(lines) > 1 else str(e))[:200]
                failures += not ok
                row.append(cell)
                print(f"{number} {kernel} {variant} on {target}: {cell}", flush=True)
            table.append((number, kernel, variant, row))
    print()
    print("| tutorial | kernel | | " + " | ".join(t for t, _ in TARGETS) + " |")
    print("|---|---|---|" + "---|" * len(TARGETS))
    for number, kernel, variant, row in table:
        print(f"| {number} | `{kernel}` | {variant} | " + " | ".join(row) + " |")
    print(f"\n{failures} failing kernel x target pairs")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
