# tilec: -k _layer_norm_bwd_dx_fused -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, *i32:16, i32:16, i32:16" -c GROUP_SIZE_M=96 -c BLOCK_SIZE_N=8192
# tilec: -k _layer_norm_bwd_dwdb -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32, i32:16" -c BLOCK_SIZE_M=32 -c BLOCK_SIZE_N=128
# tilec-run: --grid 4 DX=zeros:fp16:4x100 DY=rand:fp16:4x100:1 DW=zeros:fp16:4x100 DB=zeros:fp16:4x100 X=rand:fp16:4x100:2 W=rand:fp16:100:3 Mean=rand:fp32:4:5 Rstd=rand:fp32:4:6 Lock=zeros:i32:8 stride=100 N=100 GROUP_SIZE_M=4 BLOCK_SIZE_N=128
# tilec-run: -k _layer_norm_bwd_dwdb --grid 2 DW=rand:fp16:40x200:7 DB=rand:fp16:40x200:8 FINAL_DW=zeros:fp16:200 FINAL_DB=zeros:fp16:200 M=40 N=200 BLOCK_SIZE_M=32 BLOCK_SIZE_N=128
# The backward kernels of Triton's tutorial 05, layer norm, as the tutorial launches them for
# N = 8192 (the runs: smaller, with one lock per row so that the partial sums do not depend on
# the order of the programs), from python/tutorials/05-layer-norm.py of triton-lang/triton-cpu
# at commit 910ba2e98deb (MIT licence, its notice in LICENSE-triton beside this file); the tutorial's forward kernel, host code and comments
# are left out.
import triton
import triton.language as tl


@triton.jit
def _layer_norm_bwd_dx_fused(DX,
                             DY,
                             DW,
                             DB,
                             X,
                             W,
                             Mean,
                             Rstd,
                             Lock,
                             stride,
                             N,
                             GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.)
    wdy = tl.where(mask, wdy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = (dy).to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)

    tl.debug_barrier()

    tl.atomic_xchg(Lock, 0)


@triton.jit
def _layer_norm_bwd_dwdb(DW,
                         DB,
                         FINAL_DW,
                         FINAL_DB,
                         M,
                         N,
                         BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.)
        db += tl.load(DB + offs, mask=mask, other=0.)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)
