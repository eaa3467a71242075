//! The loop-carried rules (`src/carried.rs`): each applies where its precondition holds, the
//! IR verifies after the pass alone and after the whole optimizer, the interpreter gets the
//! same results before and after, and near misses are left alone.

mod support;

use support::*;
use tilec_interp::Arg;
use tilec_opt::carried::{self, CARRIED_POINTER_OFFSET, SUM_OF_CARRIED_SUM};

/// Applies only the loop-carried rules and verifies the result.
fn rewrite_checked(source: &str) -> (tilec_ir::Function, tilec_ir::Function, Vec<(&'static str, usize)>) {
    let f = kernel_ir(source);
    let mut rewritten = f.clone();
    let applied = carried::rewrite(&mut rewritten);
    if let Err(errors) = tilec_ir::verify(&rewritten) {
        panic!("rewritten IR does not verify: {errors:?}\n{}", tilec_ir::print_function(&rewritten));
    }
    (f, rewritten, applied)
}

fn count(applied: &[(&str, usize)], rule: &str) -> usize {
    applied.iter().find(|(name, _)| *name == rule).map_or(0, |&(_, n)| n)
}

fn floats(values: &[f32]) -> Arg {
    Arg::Buffer { data: values.iter().flat_map(|v| v.to_le_bytes()).collect(), elem: tilec_ir::ScalarType::F32 }
}

fn ints(values: &[i32]) -> Arg {
    Arg::Buffer { data: values.iter().flat_map(|v| v.to_le_bytes()).collect(), elem: tilec_ir::ScalarType::I32 }
}

/// Runs `f` on one program and returns the output buffer at `out`.
fn run(f: &tilec_ir::Function, mut args: Vec<Arg>, out: usize) -> Arg {
    tilec_interp::run(f, &mut args, [1, 1, 1]).unwrap_or_else(|e| panic!("{}", e.message));
    args.swap_remove(out)
}

fn as_f32(arg: &Arg) -> Vec<f32> {
    let Arg::Buffer { data, .. } = arg else { panic!("not a buffer") };
    data.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn row_sum_kernel(dtype: &str, init: &str, after: &str) -> String {
    format!(
        r#"# tilec: -k k -s "*{dtype}:16, *{dtype}:16, i32"
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, out_ptr, N, BLOCK: tl.constexpr = 16):
    acc = {init}
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < N, other=0)
    tl.store(out_ptr, {after})
"#
    )
}

#[test]
fn zero_tile_summed_after_the_loop_becomes_a_scalar_sum() {
    let source = row_sum_kernel("fp32", "tl.zeros([BLOCK], dtype=tl.float32)", "tl.sum(acc, axis=0)");
    let (f, rewritten, applied) = rewrite_checked(&source);
    assert_eq!(count(&applied, SUM_OF_CARRIED_SUM), 1);
    let text = tilec_ir::print_function(&rewritten);
    assert!(text.contains("-> (f32)"), "the loop carries a scalar:\n{text}");
    assert_eq!(levels(&text, "tt.reduce"), vec![1], "one partial sum per iteration:\n{text}");
    let (optimized, report) = optimize_checked(&f);
    assert!(report.rule_applications.iter().any(|(r, n)| r == SUM_OF_CARRIED_SUM && *n == 1), "{report}");
    let x: Vec<f32> = (0..40).map(|i| (i % 7) as f32 * 0.25 - 0.5).collect();
    for n in [0, 5, 16, 40] {
        let args = || vec![floats(&x), floats(&[9.0]), Arg::Int(n)];
        let expected: f32 = x[..n as usize].iter().sum();
        for g in [&f, &rewritten] {
            assert_eq!(as_f32(&run(g, args(), 1)), vec![expected], "N = {n}");
        }
        assert_eq!(as_f32(&run(&optimized_fn(&f), args(), 1)), vec![expected], "N = {n}");
    }
    assert!(optimized.contains("-> (f32)"), "{optimized}");
}

fn optimized_fn(f: &tilec_ir::Function) -> tilec_ir::Function {
    tilec_opt::optimize(f, &tilec_opt::Options::default()).0
}

#[test]
fn integer_sums_are_regrouped_exactly() {
    let source = row_sum_kernel("i32", "tl.zeros([BLOCK], dtype=tl.int32)", "tl.sum(acc, axis=0)");
    let (f, rewritten, applied) = rewrite_checked(&source);
    assert_eq!(count(&applied, SUM_OF_CARRIED_SUM), 1);
    let x: Vec<i32> = (0..37).map(|i| i * 1_000_003 - 7).collect();
    let args = || vec![ints(&x), ints(&[0]), Arg::Int(37)];
    assert_eq!(run(&f, args(), 1), run(&rewritten, args(), 1));
}

#[test]
fn near_misses_keep_the_carried_tile() {
    let cases = [
        // Not zero at the start.
        row_sum_kernel("fp32", "tl.full([BLOCK], 1.0, dtype=tl.float32)", "tl.sum(acc, axis=0)"),
        // Not a sum after the loop.
        row_sum_kernel("fp32", "tl.zeros([BLOCK], dtype=tl.float32)", "tl.max(acc, axis=0)"),
        // fp16 accumulation: regrouping would change rounding much more than fp32's.
        row_sum_kernel("fp16", "tl.zeros([BLOCK], dtype=tl.float16)", "tl.sum(acc, axis=0)"),
    ];
    for source in cases {
        let (_, _, applied) = rewrite_checked(&source);
        assert_eq!(count(&applied, SUM_OF_CARRIED_SUM), 0, "{source}");
    }
    // The tile is also read elementwise in the loop.
    let (_, _, applied) = rewrite_checked(
        r#"# tilec: -k k -s "*fp32:16, *fp32:16, i32"
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, out_ptr, N, BLOCK: tl.constexpr = 16):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        tl.store(out_ptr + tl.arange(0, BLOCK), acc)
        acc += tl.load(x_ptr + off + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.sum(acc, axis=0))
"#,
    );
    assert_eq!(count(&applied, SUM_OF_CARRIED_SUM), 0);
}

/// `acc` of `[ROWS, BLOCK]`, filled by a loop over column blocks, summed along `axis` after it.
fn row_sums_kernel(axis: u32) -> String {
    let summed = if axis == 1 { "ROWS" } else { "BLOCK" };
    format!(
        r#"# tilec: -k k -s "*fp32:16, *fp32:16, i32"
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, out_ptr, N, ROWS: tl.constexpr = 4, BLOCK: tl.constexpr = 8):
    rows = tl.arange(0, ROWS)
    acc = tl.zeros([ROWS, BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=cols[None, :] < N, other=0.0)
    tl.store(out_ptr + tl.arange(0, {summed}), tl.sum(acc, axis={axis}))
"#
    )
}

#[test]
fn tile_summed_along_its_last_axis_becomes_running_row_sums() {
    let (f, rewritten, applied) = rewrite_checked(&row_sums_kernel(1));
    assert_eq!(count(&applied, SUM_OF_CARRIED_SUM), 1);
    let text = tilec_ir::print_function(&rewritten);
    assert!(text.contains("-> (tensor<4xf32>)"), "the loop carries the 4 row sums:\n{text}");
    assert_eq!(levels(&text, "tt.reduce"), vec![1], "one partial sum per iteration:\n{text}");
    // Quarters, so that every order of the additions gives the same sums.
    let x: Vec<f32> = (0..4 * 21).map(|i| (i % 9) as f32 * 0.25 - 1.0).collect();
    for n in [0usize, 5, 8, 21] {
        let expected: Vec<f32> = (0..4).map(|r| x[r * n..(r + 1) * n].iter().sum()).collect();
        let args = || vec![floats(&x), floats(&[9.0; 4]), Arg::Int(n as i64)];
        for g in [&f, &rewritten, &optimized_fn(&f)] {
            assert_eq!(as_f32(&run(g, args(), 1)), expected, "N = {n}");
        }
    }
}

#[test]
fn tile_summed_along_another_axis_stays() {
    let (_, _, applied) = rewrite_checked(&row_sums_kernel(0));
    assert_eq!(count(&applied, SUM_OF_CARRIED_SUM), 0);
}

const POINTER_LOOP: &str = r#"# tilec: -k k -s "*fp32:16, *fp32:16, i32, i32"
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, out_ptr, K, step, BLOCK: tl.constexpr = 8):
    ptrs = x_ptr + tl.arange(0, BLOCK) * 2
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, K):
        acc += tl.load(ptrs)
        ptrs += step
    tl.store(out_ptr + tl.arange(0, BLOCK), acc + tl.load(ptrs))
"#;

#[test]
fn pointer_tile_advanced_by_a_scalar_becomes_an_offset() {
    let (f, rewritten, applied) = rewrite_checked(POINTER_LOOP);
    assert_eq!(count(&applied, CARRIED_POINTER_OFFSET), 1);
    let text = tilec_ir::print_function(&rewritten);
    assert!(text.contains("%ptrs_offset = %") && text.contains("-> (tensor<8xf32>, i64)"), "{text}");
    let (optimized, _) = optimize_checked(&f);
    assert!(!optimized.contains("tensor<8x!tt.ptr<f32>>, tensor<8xf32>"), "no pointer tile is carried:\n{optimized}");
    let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
    for (trips, step) in [(0, 3), (1, 3), (4, 5), (2, 0)] {
        let args = || vec![floats(&x), floats(&[0.0; 8]), Arg::Int(trips), Arg::Int(step)];
        let expected = run(&f, args(), 1);
        assert_eq!(run(&rewritten, args(), 1), expected, "K = {trips}, step = {step}");
        assert_eq!(run(&optimized_fn(&f), args(), 1), expected, "K = {trips}, step = {step}");
    }
}

#[test]
fn pointer_tile_advanced_by_a_tile_stays() {
    let (_, _, applied) = rewrite_checked(&POINTER_LOOP.replace("ptrs += step", "ptrs += tl.arange(0, BLOCK)"));
    assert_eq!(count(&applied, CARRIED_POINTER_OFFSET), 0);
}
