# tilec: -k celoss_indices_kernel -s "*fp32:16, *i64:16, *fp32:16, *fp32:16, i32, i32:16, 1" -c BLOCK_C=512 -c BLOCK_D=1
# tilec-run: --grid 1,256 inp_ptr=rand:fp32:256x4096 tgt_ptr=@targets.npy out_ptr=zeros:fp32:256 w_tgt_ptr=zeros:fp32:256 ignore_index=-100 C=4096 D=1 BLOCK_C=512 BLOCK_D=1
# (targets.npy: 256 int64 class indices in [0, 4096))
# Benchmark: cross-entropy loss forward with class-index targets and no class weights, written
# after FlagGems' `celoss_indices_kernel` (src/flag_gems/ops/cross_entropy_loss.py of
# FlagOpen/FlagGems): the input seen as [N, C, D], a [BLOCK_C, BLOCK_D] tile per step over the
# classes with a running maximum (started at 0, as FlagGems does) and a rescaled running sum of
# exponentials, then loss = log(sum) + max - input[target] per position, and the position's
# weight (1, or 0 for `ignore_index`). Here D = 1 (logits of shape [N, C]): BLOCK_D = 1 and
# BLOCK_C = FlagGems' heuristic max(64, next_power_of_2(cdiv(C, 12))).
import triton
import triton.language as tl


@triton.jit
def celoss_indices_kernel(inp_ptr, tgt_ptr, out_ptr, w_tgt_ptr, ignore_index, C, D, BLOCK_C: tl.constexpr,
                          BLOCK_D: tl.constexpr):
    pid_d = tl.program_id(0)
    pid_n = tl.program_id(1)
    offset_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)

    tgt_ptrs = tgt_ptr + pid_n * D + offset_d
    tgt_mask = offset_d < D
    tgt = tl.load(tgt_ptrs, mask=tgt_mask, other=0)

    ignore_mask = not (tgt == ignore_index) and tgt_mask

    tmp_max = tl.zeros([BLOCK_C, BLOCK_D], dtype=tl.float32)
    tmp_sum = tl.zeros([BLOCK_C, BLOCK_D], dtype=tl.float32)

    for off in range(0, C, BLOCK_C):
        offset_c = off + tl.arange(0, BLOCK_C)
        inp_ptrs = inp_ptr + pid_n * C * D + offset_c[:, None] * D + offset_d[None, :]
        inp_mask = offset_c[:, None] < C and offset_d[None, :] < D
        inp = tl.load(inp_ptrs, inp_mask, other=-float("inf")).to(tl.float32)
        cur_max = tl.maximum(tmp_max, inp)
        cur_exp = tl.exp(inp - cur_max)
        tmp_sum = tmp_sum * tl.exp(tmp_max - cur_max) + cur_exp
        tmp_max = cur_max
    final_max = tl.max(tmp_max, axis=0)
    tmp_sum = tmp_sum * tl.exp(tmp_max - final_max[None, :])
    final_sum = tl.log(tl.sum(tmp_sum, axis=0))

    inp_tgt_ptrs = inp_ptr + pid_n * C * D + tgt * D + offset_d
    inp_tgt = tl.load(inp_tgt_ptrs, mask=tgt_mask, other=-float("inf")).to(tl.float32)

    out = final_sum + final_max - inp_tgt
    w_tgt = ignore_mask.to(tl.float32)
    w_tgt_ptrs = w_tgt_ptr + pid_n * D + offset_d
    tl.store(w_tgt_ptrs, w_tgt, mask=tgt_mask)
    out *= w_tgt
    out_ptrs = out_ptr + pid_n * D + offset_d
    tl.store(out_ptrs, out, mask=tgt_mask)
