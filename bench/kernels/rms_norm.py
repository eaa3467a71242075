# tilec: -k rms_norm_kernel -s "*fp16:16, *fp16:16, *fp16:16, i32:16, 1, i32:16, 1, i32:16, fp32" -c BLOCK_SIZE=4096
# tilec-run: --grid 256 Y=zeros:fp16:256x4096 X=rand:fp16:256x4096:1 W=rand:fp16:4096:2 y_stride_r=4096 y_stride_c=1 x_stride_r=4096 x_stride_c=1 N=4096 eps=1e-5 BLOCK_SIZE=4096
# Benchmark: RMS norm forward, written after FlagGems' `rms_norm_kernel`
# (src/flag_gems/ops/rms_norm.py of FlagOpen/FlagGems): one row per program, the whole row in
# one block (BLOCK_SIZE = the next power of two of N), the mean square in fp32, the normalized
# row rounded to the output type before the weight multiplies it (an fp16 product for fp16
# data, as in FlagGems).
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(Y, X, W, y_stride_r, y_stride_c, x_stride_r, x_stride_c, N, eps, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    Y += pid * y_stride_r
    X += pid * x_stride_r

    mask = tl.arange(0, BLOCK_SIZE) < N
    cols = tl.arange(0, BLOCK_SIZE)
    x = tl.load(X + cols * x_stride_c, mask, other=0.0).to(tl.float32)

    var = tl.sum(x * x, axis=0) / N
    rrms = 1 / tl.sqrt(var + eps)

    w = tl.load(W + tl.arange(0, BLOCK_SIZE), mask=mask, other=0.0)
    y = (x * rrms).to(Y.dtype.element_ty) * w
    tl.store(Y + cols * y_stride_c, y, mask=mask)
