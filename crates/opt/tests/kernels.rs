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
