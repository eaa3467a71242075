//! Focused optimizer tests from kernel source text: parse and specialize with the front
//! end, optimize, verify, and check properties of the printed IR.

mod support;

use support::*;

fn optimize_source(source: &str) -> (String, tilec_opt::Report) {
    optimize_checked(&kernel_ir(source))
}

#[test]
fn repeated_expression_is_computed_once() {
    let (text, _) = optimize_source(
        r#"# tilec: -k k -s "*fp32:16, *fp32:16, i32"
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr = 128):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = tl.exp(x) * 2.0 + tl.exp(x)
    tl.store(y_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), y, mask=tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) < n)
"#,
    );
    assert_eq!(count_ops(&text, "math.exp"), 1, "{text}");
    assert_eq!(count_ops(&text, "tt.make_range"), 1, "{text}");
    assert_eq!(count_ops(&text, "tt.get_program_id"), 1, "{text}");
    assert_eq!(count_ops(&text, "arith.cmpi"), 1, "{text}");
}

#[test]
fn k_loop_pointer_arithmetic_is_hoisted_and_loads_stay() {
    let (text, report) = optimize_source(
        r#"# tilec: -k k -s "*fp32:16, *fp32:16, i32, i32"
import triton
import triton.language as tl

@triton.jit
def k(a_ptr, out_ptr, K, stride, BLOCK: tl.constexpr = 32):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(0, K):
        offs = tl.arange(0, BLOCK) * stride
        a = tl.load(a_ptr + offs + k)
        acc += a
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)
"#,
    );
    assert_eq!(levels(&text, "tt.make_range"), vec![0], "{text}");
    assert!(levels(&text, "arith.muli").iter().all(|&l| l == 0), "{text}");
    assert_eq!(levels(&text, "tt.load"), vec![1], "{text}");
    assert!(report.elab.hoisted > 0, "{report}");
}

#[test]
fn load_stays_in_a_loop_that_stores() {
    let (text, _) = optimize_source(
        r#"# tilec: -k k -s "*fp32:16, *fp32:16, i32"
import triton
import triton.language as tl

@triton.jit
def k(p, q, n):
    for i in range(0, n):
        v = tl.load(p)
        tl.store(q, v + 1.0)
"#,
    );
    assert_eq!(levels(&text, "tt.load"), vec![1], "{text}");
    assert_eq!(levels(&text, "arith.addf"), vec![1], "{text}");
}

#[test]
fn full_block_mask_is_dropped() {
    let (text, report) = optimize_source(
        r#"# tilec: -k k -s "*fp32:16, *fp32:16"
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, y_ptr, BLOCK: tl.constexpr = 64):
    offs = tl.arange(0, BLOCK)
    mask = offs < BLOCK
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, x * 1.0, mask=mask)
"#,
    );
    assert_eq!(count_ops(&text, "arith.cmpi"), 0, "{text}");
    assert_eq!(count_ops(&text, "arith.mulf"), 0, "{text}");
    assert_eq!(report.elab.masks_dropped, 2, "{report}");
}

#[test]
fn float_rules_that_must_not_fire() {
    let (text, _) = optimize_source(
        r#"# tilec: -k k -s "*fp32:16, *fp32:16"
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, y_ptr, BLOCK: tl.constexpr = 64):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = ((x + 1.0) + 2.0) + 0.0
    z = x - x
    tl.store(y_ptr + offs, y + z)
"#,
    );
    assert_eq!(count_ops(&text, "arith.addf"), 4, "{text}");
    assert_eq!(count_ops(&text, "arith.subf"), 1, "{text}");
}

#[test]
fn integer_overflow_cases_stay_exact() {
    let (text, _) = optimize_source(
        r#"# tilec: -k k -s "*i8:16, *i8:16, i32"
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, y_ptr, d, BLOCK: tl.constexpr = 16):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    one = tl.full((BLOCK,), 1, tl.int8)
    tl.store(y_ptr + offs, (x + one) - one)
"#,
    );
    assert_eq!(count_ops(&text, "arith.addi"), 0, "{text}");
    assert_eq!(count_ops(&text, "arith.subi"), 0, "{text}");
    let loaded = op_lines(&text, "tt.load")[0].trim().split(" = ").next().unwrap().to_string();
    let store = op_lines(&text, "tt.store")[0];
    assert!(store.contains(&format!(", {loaded} :")), "the loaded value is stored as it is:\n{text}");
}

// ---- invariant loads ----

/// A K loop accumulating `a[k] * bias` where `bias` is loaded inside the loop from an
/// invariant address; `RANGE` is the loop header's range arguments.
fn bias_k_loop(range: &str) -> String {
    format!(
        r#"# tilec: -k k -s "*fp32:16, *fp32:16, *fp32:16, i32, i32"
import triton
import triton.language as tl

@triton.jit
def k(a_ptr, bias_ptr, out_ptr, K, S, BLOCK: tl.constexpr = 16):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range({range}):
        a = tl.load(a_ptr + k * BLOCK + tl.arange(0, BLOCK))
        bias = tl.load(bias_ptr + tl.arange(0, BLOCK))
        acc += a * bias
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)
"#
    )
}

#[test]
fn invariant_load_leaves_a_loop_with_constant_trips_unguarded() {
    let (text, report) = optimize_source(&bias_k_loop("0, 4"));
    assert_eq!(levels(&text, "tt.load"), vec![0, 1], "{text}");
    assert_eq!(count_ops(&text, "scf.if"), 0, "{text}");
    assert_eq!((report.elab.loads_hoisted, report.elab.loads_guarded), (1, 0), "{report}");
}

/// Index of the first line of `text` holding op `name`.
fn first_line_of(text: &str, name: &str) -> usize {
    let line = op_lines(text, name).into_iter().next().unwrap_or_else(|| panic!("no {name} in\n{text}"));
    text.lines().position(|l| std::ptr::eq(l, line)).expect("line of text")
}

/// The bias load sits under an `scf.if` placed before the loop; the other load stays.
fn assert_guarded_bias_load(text: &str, report: &tilec_opt::Report) {
    assert_eq!(levels(text, "scf.if"), vec![0], "{text}");
    assert!(first_line_of(text, "scf.if") < first_line_of(text, "scf.for"), "{text}");
    assert!(first_line_of(text, "scf.if") < first_line_of(text, "tt.load"), "{text}");
    assert_eq!(levels(text, "tt.load"), vec![1, 1], "{text}");
    assert_eq!((report.elab.loads_hoisted, report.elab.loads_guarded), (1, 1), "{report}");
}

#[test]
fn invariant_load_leaves_a_loop_with_runtime_trips_under_a_guard() {
    let (text, report) = optimize_source(&bias_k_loop("0, K"));
    assert_guarded_bias_load(&text, &report);
    assert_eq!(op_lines(&text, "arith.cmpi"), vec!["  %7 = arith.cmpi slt, %0, %K : i32"], "{text}");
}

#[test]
fn guard_of_a_counting_down_loop_tests_lower_above_upper() {
    let (text, report) = optimize_source(&bias_k_loop("K, 0, -1"));
    assert_guarded_bias_load(&text, &report);
    let guards = op_lines(&text, "arith.cmpi");
    assert!(guards.len() == 1 && guards[0].contains("arith.cmpi sgt, %K, "), "{text}");
}

#[test]
fn guard_of_a_loop_with_runtime_step_tests_both_directions() {
    let (text, report) = optimize_source(&bias_k_loop("0, K, S"));
    assert_guarded_bias_load(&text, &report);
    assert_eq!(count_ops(&text, "arith.cmpi"), 4, "{text}");
    assert_eq!(levels(&text, "arith.ori"), vec![0], "{text}");
}

#[test]
fn loop_that_runs_zero_times_reads_nothing_after_hoisting() {
    use tilec_interp::Arg;
    let f = kernel_ir(&bias_k_loop("0, K"));
    let (optimized, report) = tilec_opt::optimize(&f, &tilec_opt::Options::default());
    assert_eq!(report.elab.loads_guarded, 1, "{report}");
    let floats = |values: &[f32]| Arg::Buffer {
        data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        elem: tilec_ir::ScalarType::F32,
    };
    let run = |f: &tilec_ir::Function, bias: &[f32], trips: i64| {
        let a: Vec<f32> = (0..64).map(|i| i as f32 * 0.5).collect();
        let mut args = vec![floats(&a), floats(bias), floats(&[0.0; 16]), Arg::Int(trips), Arg::Int(1)];
        tilec_interp::run(f, &mut args, [1, 1, 1]).map(|()| args.swap_remove(2)).map_err(|e| e.message)
    };
    // With zero trips a one-element bias buffer is never read: an unguarded hoisted load of
    // 16 elements would be out of bounds.
    assert_eq!(run(&optimized, &[7.0], 0), Ok(floats(&[0.0; 16])));
    let bias: Vec<f32> = (0..16).map(|i| 1.0 - i as f32 * 0.25).collect();
    assert_eq!(run(&optimized, &bias, 3), run(&f, &bias, 3));
    assert!(run(&f, &bias, 3).is_ok());
}

#[test]
fn invariant_load_leaves_nested_loops_with_one_guard() {
    let (text, report) = optimize_source(
        r#"# tilec: -k k -s "*fp32:16, *fp32:16, i32"
import triton
import triton.language as tl

@triton.jit
def k(b_ptr, out_ptr, M, BLOCK: tl.constexpr = 16):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for m in range(0, M):
        for j in range(0, 2):
            acc += tl.load(b_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)
"#,
    );
    assert_eq!(levels(&text, "scf.if"), vec![0], "{text}");
    assert_eq!(levels(&text, "tt.load"), vec![1], "{text}");
    assert_eq!((report.elab.loads_hoisted, report.elab.loads_guarded), (1, 1), "{report}");
}

#[test]
fn no_load_leaves_a_loop_with_a_store_anywhere_in_it() {
    let (text, report) = optimize_source(
        r#"# tilec: -k k -s "*fp32:16, *fp32:16, i32"
import triton
import triton.language as tl

@triton.jit
def k(b_ptr, out_ptr, K, BLOCK: tl.constexpr = 16):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(0, 4):
        acc += tl.load(b_ptr + tl.arange(0, BLOCK))
        if k == K:
            tl.store(out_ptr + tl.arange(0, BLOCK), acc)
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)
"#,
    );
    assert_eq!(levels(&text, "tt.load"), vec![1], "{text}");
    assert_eq!(report.elab.loads_hoisted, 0, "{report}");
}

#[test]
fn load_under_an_if_in_the_loop_stays() {
    let (text, report) = optimize_source(
        r#"# tilec: -k k -s "*fp32:16, *fp32:16, i32"
import triton
import triton.language as tl

@triton.jit
def k(b_ptr, out_ptr, K, BLOCK: tl.constexpr = 16):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(0, 4):
        if k < K:
            acc += tl.load(b_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)
"#,
    );
    assert_eq!(levels(&text, "tt.load"), vec![2], "{text}");
    assert_eq!(report.elab.loads_hoisted, 0, "{report}");
}

#[test]
fn invariant_load_in_a_while_condition_leaves_unguarded() {
    let (text, report) = optimize_source(
        r#"# tilec: -k k -s "*i32:16, *i32:16"
import triton
import triton.language as tl

@triton.jit
def k(limit_ptr, out_ptr):
    i = 0
    while i < tl.load(limit_ptr):
        i += 3
    tl.store(out_ptr, i)
"#,
    );
    assert_eq!(levels(&text, "tt.load"), vec![0], "{text}");
    assert_eq!(count_ops(&text, "scf.if"), 0, "{text}");
    assert_eq!((report.elab.loads_hoisted, report.elab.loads_guarded), (1, 0), "{report}");
}

#[test]
fn load_in_a_while_body_stays() {
    let (text, report) = optimize_source(
        r#"# tilec: -k k -s "*i32:16, *i32:16, i32"
import triton
import triton.language as tl

@triton.jit
def k(step_ptr, out_ptr, n):
    i = 0
    while i < n:
        i += tl.load(step_ptr)
    tl.store(out_ptr, i)
"#,
    );
    assert_eq!(levels(&text, "tt.load"), vec![1], "{text}");
    assert_eq!(report.elab.loads_hoisted, 0, "{report}");
}
