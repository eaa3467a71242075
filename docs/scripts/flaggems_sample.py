#!/usr/bin/env python3
"""Compiles every launched `@triton.jit` kernel of FlagGems' `src/flag_gems/ops/` with tilec.

    python3 docs/scripts/flaggems_sample.py --tilec target/debug/tilec --flaggems DIR [--out FILE.tsv]

DIR is a checkout of FlagOpen/FlagGems (the sample in docs/coverage.md used commit
532ff438c70343d7aec9becdabb76a71225a0553). A kernel is "launched" when its file calls it as
`NAME[grid](...)`. Each one is compiled for riscv64gc and riscv64gcv (`tilec compile ...
-o k.so`, with `-I DIR/src` so `flag_gems.*` imports resolve) with the signature and
constants its host code passes: derived from the parameter names (pointers, index
pointers, float scalars, constexpr block sizes and flags), with the exceptions read from
the host code listed in OVERRIDES. Prints one line per kernel (file, kernel, `ok` or the
first error) and the count; `--out` also writes file, kernel, signature, constants and
result as tab-separated lines. Needs only Python's standard library.
"""
import argparse
import ast
import glob
import os
import re
import subprocess
import tempfile

# Per-kernel parameter values the host code passes where the name-based guesses below are
# wrong: a signature item, or "=VALUE" for a constexpr.
_abc = {'B': 'i32', 'C': 'i32', 'part_num': 'i32'}
OVERRIDES = {
    ('cummax.py', 'scan_part_max_abc_kernel'): _abc, ('cummax.py', 'add_base_max_abc_kernel'): _abc,
    ('cummax.py', 'scan_part_max_abc_loop_kernel'): _abc,
    ('cummin.py', 'scan_part_min_abc_kernel'): _abc, ('cummin.py', 'add_base_min_abc_kernel'): _abc,
    ('cummin.py', 'scan_part_min_abc_loop_kernel'): _abc,
    ('cumsum.py', 'scan_part_sum_abc_kernel'): _abc, ('cumsum.py', 'add_base_sum_abc_kernel'): _abc,
    ('groupnorm.py', 'group_norm_kernel'): {'C': 'i32', 'BLOCK_GROUP_SIZE': '=4', 'BLOCK_HW_SIZE': '=64'},
    ('groupnorm.py', 'group_norm_backward_kernel'): {'C': 'i32', 'BLOCK_GROUP_SIZE': '=4', 'BLOCK_HW_SIZE': '=64'},
    ('groupnorm.py', 'weight_bias_backward_kernel'): {'C': 'i32'},
    ('linspace.py', 'linspace_kernel'): {'mid': 'fp32'},
    ('nllloss.py', 'nll_loss_forward_kernel'): {'C': 'i32'},
    ('nllloss.py', 'nll_loss_backward_kernel'): {'C': 'i32', 'total_weight': '*fp32'},
    ('nllloss.py', 'nll_loss2d_forward_kernel'): {'C': 'i32', 'D': 'i32'},
    ('nllloss.py', 'nll_loss2d_backward_kernel'): {'C': 'i32', 'D': 'i32', 'total_weight': '*fp32'},
    ('quantile.py', 'quantile_kernel'): {'q': '*fp32', 'Q': 'i32', 'interpolation': "='linear'"},
    ('select_scatter.py', 'select_scatter_kernel'): {'index': 'i32'},
    ('slice_scatter.py', 'slice_scatter_kernel'): {'start': 'i32', 'step': 'i32'},
    ('upsample_nearest2d.py', 'upsample_nearest2d_kernel'): {'C': 'i32'},
    ('embedding.py', 'embedding_kernel'): {'in_ptr': '*i64'},
    ('embedding.py', 'embedding_grad_scale_kernel'): {'indice_freq': '*i32'},
    ('embedding.py', 'indice_freq_kernel'): {'indices_freq': '*i32'},
    ('masked_select.py', 'masked_select_single_pass_kernel'): {'mask_ptr': '*i1'},
    ('masked_select.py', 'mask_part_sum_kernel'): {'mask_ptr': '*i1', 'part_sums_ptr': '*i64', 'counter_ptr': '*i32'},
    ('masked_select.py', 'write_back_kernel'): {'mask_ptr': '*i1', 'part_sums_ptr': '*i64'},
    ('unique.py', 'global_quick_unique_flat_kernel'): {'tile_sum_ptr': '*i64'},
    ('unique.py', 'global_cumsum_flat_kernel'): {'tile_sum_ptr': '*i64', 'ne_result_ptr': '*i1'},
    ('unique.py', 'local_quick_unique_flat_kernel'): {'tile_sum_ptr': '*i64'},
    ('unique.py', 'local_ne_flat_kernel'): {'tile_sum_ptr': '*i64', 'ne_result_ptr': '*i1'},
    ('mm_streamk.py', 'first_wave'): {'locks': '*i32'},
    ('mm_streamk.py', 'first_wave_for_bf16'): {'locks': '*i32'},
    ('attention.py', '_attn_fwd'): {'K': '*fp16', 'Q': '*fp16', 'V': '*fp16', 'Out': '*fp16', 'attn_mask': '*fp32', 'M': '*fp32',
                                    'GROUP_HEAD': '=1', 'HEAD_DIM': '=64', 'BLOCK_M': '=64', 'BLOCK_N': '=32', 'STAGE': '=3',
                                    'HAS_ATTN_MASK': '=False', 'PRE_LOAD_V': '=0'},
    ('attention.py', '_attn_bwd'): {'K': '*fp16', 'Q': '*fp16', 'V': '*fp16', 'DO': '*fp16', 'DQ': '*fp16', 'DK': '*fp16', 'DV': '*fp16',
                                    'M': '*fp32', 'D': '*fp32', 'GROUP_HEAD': '=1', 'BLOCK_M1': '=32', 'BLOCK_N1': '=64', 'BLOCK_M2': '=64',
                                    'BLOCK_N2': '=32', 'BLK_SLICE_FACTOR': '=2', 'BLOCK_DMODEL': '=64'},
    ('attention.py', '_attn_bwd_preprocess'): {'O': '*fp16', 'DO': '*fp16', 'Delta': '*fp32', 'D_HEAD': '=64', 'BLOCK_M': '=64'},
    ('randperm.py', 'bitonic_sortbykey_kernel'): {'chunk_x': '*i64', 'chunk_index': '*i64', 'y_ptr': '*i64'},
    ('topk.py', 'topk_stage1_kernel'): {'index_ptr': '*i64'},
}

PTR_NAMES = {'inp','out','mid','X','Y','W','B','A','C','O','Mean','Rstd','Var','DX','DY','DW','dY','dX','dW','dB','Out','Inp',
    'output','norm','v','g','w','v_grad','g_grad','Q','V','DO','DQ','DK','DV','M_ptr','Delta','D','grad_y','grad_x','grad_in','grad_out',
    'index','indices','indices_freq','target','Acc','Average','Count','Mid','Tmp_sum','Tmp_sum_sq','locks','P','sums','base','q','key','key_in','key_out',
    'value_in','value_out','digit_hist','d_lookback','chunk_x','chunk_index','mid_value','mid_index','out_value','out_index','out_indices','in_indices',
    'partial_sum','partial_max','partial_max_indices','partial_min','partial_min_indices','prefix_sum','shape','attn_mask','Inp','dropout_mask','DY','DX',
    'INV_RMS','rscale_ptr','cdf_ptr','data_ptr','ptr_o','ptr_i','sorted_data_ptr'}
INT_PTR = re.compile(r'(index|indices|idx|tgt|digit_hist|lookback|counter|status|prefix_sum|count|shape|locks|key|perm|hist|map_ptr|repeats|cumsum_ptr|seqlen|num_.*blocks|cu_seqlens|splits)', re.I)
FLOAT_SCALARS = re.compile(r'^(eps|alpha|beta|p|scale|lambd|sm_scale|from_|to|start|end|step|step_size|mid|reciprocal_scale_.*|total_weight|correction|ord|value|fill_value|min|max|negative_slope|threshold|rtol|atol|upper|lower|weight|momentum|log2_base|base)$')
INT64_SCALARS = re.compile(r'^(philox_seed|philox_offset)$')
def const_default(name):
    n = name
    if re.match(r'^(ONE_TILE_PER_CTA|HAS_.*|IS_.*|USE_.*|NEED_.*|DIVISIBLE_.*|EVEN_.*|SAME_.*|OUTPUT_SUMS|NORMALIZE|DESCENDING|descending|invert|return_.*|is_.*|.*_is_conj|HAS_OUT_LAYOUT)$', n):
        return 'False'
    if re.search(r'BLOCK|TILE|CHUNK|tile_size|NBLOCK', n, re.I):
        if re.search(r'_M$|_M\d|ROW|BATCH|_Q$|GROUP_SIZE', n): return '16'
        return '64'
    table = {'GROUP_M': '8', 'reduction': '1', 'interpolation': '0', 'ndim': '2', 'N': '128', 'k': '4', 'log_n': '7',
             'kernel_h': '3', 'kernel_w': '3', 'stride_h': '1', 'stride_w': '1', 'padding_h': '1', 'padding_w': '1', 'dilation_h': '1', 'dilation_w': '1',
             'diagonal': '0', 'num_bits_per_pass': '4', 'k_bits': '4', 'sort_dim': '128', 'elem_cnt': '256', 'inp_stride': '1', 'other_stride': '1'}
    return table.get(n, '16')

def spec_for(path, fn):
    params, sig, consts = [], [], []
    for a in fn.args.args:
        ann = ast.unparse(a.annotation) if a.annotation else ''
        params.append((a.arg, ann))
    ov = OVERRIDES.get((os.path.basename(path), fn.name), {})
    for name, ann in params:
        if name in ov:
            v = ov[name]
            if v.startswith('='):
                consts.append(f'{name}={v[1:]}')
            else:
                sig.append(v)
            continue
        if 'constexpr' in ann:
            consts.append(f'{name}={const_default(name)}')
        elif name in PTR_NAMES or re.search(r'ptr|pointer', name):
            sig.append('*i64' if INT_PTR.search(name) else '*fp32')
        elif FLOAT_SCALARS.match(name):
            sig.append('fp32')
        elif INT64_SCALARS.match(name) or 'int64' in ann:
            sig.append('i64')
        else:
            sig.append('i32')
    return ', '.join(sig), consts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec", required=True)
    parser.add_argument("--flaggems", required=True, help="a checkout of FlagOpen/FlagGems")
    parser.add_argument("--out", help="write the table as tab-separated lines")
    args = parser.parse_args()
    src = os.path.join(args.flaggems, "src")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(glob.glob(os.path.join(src, "flag_gems", "ops", "*.py"))):
            source = open(path).read()
            for node in ast.parse(source).body:
                if not isinstance(node, ast.FunctionDef):
                    continue
                if not any("jit" in ast.unparse(d) for d in node.decorator_list):
                    continue
                if node.name + "[" not in source:
                    continue
                sig, consts = spec_for(path, node)
                status = "ok"
                for target in ["riscv64gc", "riscv64gcv"]:
                    cmd = [args.tilec, "compile", path, "-I", src, "-k", node.name, "-s", sig, "--target", target]
                    cmd += ["-o", os.path.join(tmp, "k.so")]
                    for c in consts:
                        cmd += ["-c", c]
                    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
                    if p.returncode != 0:
                        errors = [l for l in p.stderr.splitlines() if l.startswith("error")]
                        status = f"{target}: " + (errors[0] if errors else p.stderr.strip()[:200])
                        break
                rows.append((os.path.basename(path), node.name, sig, " ".join(consts), status))
                print(f"{rows[-1][0]}\t{rows[-1][1]}\t{status}", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            for r in rows:
                f.write("\t".join(r) + "\n")
    print("compiled:", sum(r[4] == "ok" for r in rows), "of", len(rows))


if __name__ == "__main__":
    main()
