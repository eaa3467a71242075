//! Focused optimizer tests on IR built by hand: CSE, LICM, each combine rule, and rules
//! that must not fire. Every test verifies the IR before and after optimizing.

mod support;

use support::*;
use tilec_ir::{BinaryOp, CastOp, CmpPred, ScalarType::*, Type};

fn i32t() -> Type {
    scalar(I32)
}

#[test]
fn same_expression_twice_is_computed_once() {
    let mut b = Builder::new(&[("out", Type::ptr(I32)), ("x", i32t()), ("y", i32t())]);
    let (out, x, y) = (b.param(0), b.param(1), b.param(2));
    let first = b.binary(BinaryOp::Mul, x, y);
    b.store(out, first, None);
    let second = b.binary(BinaryOp::Mul, x, y);
    b.store(out, second, None);
    let (text, _) = optimize_checked(&b.finish());
    assert_eq!(count_ops(&text, "arith.muli"), 1, "{text}");
    assert_eq!(count_ops(&text, "tt.store"), 2, "{text}");
}

#[test]
fn unused_pure_values_are_dropped() {
    let mut b = Builder::new(&[("x", i32t())]);
    let x = b.param(0);
    b.binary(BinaryOp::Mul, x, x);
    let (text, report) = optimize_checked(&b.finish());
    assert_eq!(count_ops(&text, "arith.muli"), 0, "{text}");
    assert_eq!(report.elab.pure_ops, 0);
}

/// The matmul K loop shape: `a_ptrs = a + offs * stride` inside the loop depends only on
/// kernel arguments, so it leaves the loop; the load stays.
#[test]
fn pointer_arithmetic_leaves_the_k_loop() {
    let mut b = Builder::new(&[("a", Type::ptr(F32)), ("stride", i32t()), ("K", i32t())]);
    let (a, stride, k_end) = (b.param(0), b.param(1), b.param(2));
    let zero = b.int(0, i32t());
    let one = b.int(1, i32t());
    let acc0 = b.float(0.0, tensor(F32, &[64]));
    let results = b.for_loop((zero, k_end, one), vec![acc0], |b, _k, args| {
        let offs = b.make_range(64);
        let stride_t = b.splat(stride, &[64]);
        let offsets = b.binary(BinaryOp::Mul, offs, stride_t);
        let base = b.splat(a, &[64]);
        let ptrs = b.addptr(base, offsets);
        let v = b.load(ptrs, None);
        vec![b.binary(BinaryOp::Add, args[0], v)]
    });
    let out = b.splat(a, &[64]);
    let offs = b.make_range(64);
    let ptrs = b.addptr(out, offs);
    b.store(ptrs, results[0], None);
    let (text, report) = optimize_checked(&b.finish());
    for op in ["tt.make_range", "arith.muli", "tt.splat"] {
        assert!(levels(&text, op).iter().all(|&l| l == 0), "{op} not hoisted:\n{text}");
    }
    assert_eq!(levels(&text, "tt.addptr"), vec![0, 0], "{text}");
    assert_eq!(levels(&text, "tt.load"), vec![1], "{text}");
    assert_eq!(levels(&text, "arith.addf"), vec![1], "{text}");
    // One make_range and one splat of `a` serve both the loop and the store (CSE).
    assert_eq!(count_ops(&text, "tt.make_range"), 1, "{text}");
    assert!(report.elab.hoisted >= 4, "{report}");
}

/// A load of a loop-invariant pointer in a loop that also stores (possibly to the same
/// address) must stay in the loop, after the store of the previous iteration.
#[test]
fn nothing_is_hoisted_past_a_store_that_may_alias() {
    let mut b = Builder::new(&[("p", Type::ptr(F32)), ("q", Type::ptr(F32)), ("n", i32t())]);
    let (p, q, n) = (b.param(0), b.param(1), b.param(2));
    let zero = b.int(0, i32t());
    let one = b.int(1, i32t());
    b.for_loop((zero, n, one), vec![], |b, _k, _| {
        let v = b.load(p, None);
        let two = b.float(2.0, scalar(F32));
        let doubled = b.binary(BinaryOp::Mul, v, two);
        b.store(q, doubled, None);
        vec![]
    });
    let (text, _) = optimize_checked(&b.finish());
    assert_eq!(levels(&text, "tt.load"), vec![1], "{text}");
    assert_eq!(levels(&text, "arith.mulf"), vec![1], "{text}");
    let load = text.find("tt.load").unwrap();
    let store = text.find("tt.store").unwrap();
    assert!(load < store, "{text}");
}

/// Integer division by a value that may be zero stays in the loop that guards it (the loop
/// may run zero times).
#[test]
fn possibly_trapping_division_is_not_hoisted() {
    let mut b = Builder::new(&[("out", Type::ptr(I32)), ("x", i32t()), ("y", i32t()), ("n", i32t())]);
    let (out, x, y, n) = (b.param(0), b.param(1), b.param(2), b.param(3));
    let zero = b.int(0, i32t());
    let one = b.int(1, i32t());
    b.for_loop((zero, n, one), vec![], |b, _k, _| {
        let q = b.binary(BinaryOp::Div, x, y);
        let sum = b.binary(BinaryOp::Add, x, y);
        b.store(out, q, None);
        b.store(out, sum, None);
        vec![]
    });
    let (text, _) = optimize_checked(&b.finish());
    assert_eq!(levels(&text, "arith.divsi"), vec![1], "{text}");
    assert_eq!(levels(&text, "arith.addi"), vec![0], "{text}");
}

/// Values are not speculated out of `if` arms.
#[test]
fn values_stay_in_if_arms() {
    let mut b = Builder::new(&[("out", Type::ptr(F32)), ("x", scalar(F32)), ("c", scalar(I1))]);
    let (out, x, c) = (b.param(0), b.param(1), b.param(2));
    let then_region = b.f.new_region();
    let else_region = b.f.new_region();
    let exp = b.f.append_value(
        then_region,
        tilec_ir::OpKind::Math { func: tilec_ir::MathFn::Exp, value: x },
        scalar(F32),
        tilec_diagnostics::Span::DUMMY,
    );
    for (region, stored) in [(then_region, exp), (else_region, x)] {
        let ops = [tilec_ir::OpKind::Store { ptr: out, value: stored, mask: None }, tilec_ir::OpKind::Yield(vec![])];
        for kind in ops {
            b.f.append_op(region, kind, vec![], tilec_diagnostics::Span::DUMMY);
        }
    }
    b.effect(tilec_ir::OpKind::If { cond: c, then_region, else_region });
    let (text, _) = optimize_checked(&b.finish());
    assert_eq!(levels(&text, "math.exp"), vec![1], "{text}");
}

/// Stores `value` through `out` and returns the optimized text (a minimal skeleton that
/// keeps `value` alive).
fn optimize_stored(b: Builder, out: tilec_ir::Value, value: tilec_ir::Value) -> String {
    let mut b = b;
    b.store(out, value, None);
    optimize_checked(&b.finish()).0
}

#[test]
fn integer_identities_fire() {
    let mut b = Builder::new(&[("out", Type::ptr(I32)), ("x", i32t())]);
    let (out, x) = (b.param(0), b.param(1));
    let zero = b.int(0, i32t());
    let one = b.int(1, i32t());
    let a = b.binary(BinaryOp::Add, x, zero);
    let m = b.binary(BinaryOp::Mul, one, a);
    let s = b.binary(BinaryOp::Sub, m, x); // x - x
    let r = b.binary(BinaryOp::Or, s, x); // 0 | x
    let text = optimize_stored(b, out, r);
    assert_eq!(text.matches("arith.").count(), 0, "{text}");
    assert!(text.contains("tt.store %out, %x"), "{text}");
}

#[test]
fn constants_fold_with_wrap_around_at_the_type_width() {
    let mut b = Builder::new(&[("out", Type::ptr(I8))]);
    let out = b.param(0);
    let max = b.int(127, scalar(I8));
    let one = b.int(1, scalar(I8));
    let wrapped = b.binary(BinaryOp::Add, max, one);
    let text = optimize_stored(b, out, wrapped);
    assert!(text.contains("arith.constant -128 : i8"), "{text}");
    assert_eq!(count_ops(&text, "arith.addi"), 0, "{text}");
}

/// `(x + 1) - 1` on i8 is `x` for every x, 127 included: wrapping addition is exact.
#[test]
fn add_then_subtract_on_i8_folds_to_x() {
    let mut b = Builder::new(&[("out", Type::ptr(I8)), ("x", scalar(I8))]);
    let (out, x) = (b.param(0), b.param(1));
    let one = b.int(1, scalar(I8));
    let plus = b.binary(BinaryOp::Add, x, one);
    let back = b.binary(BinaryOp::Sub, plus, one);
    let text = optimize_stored(b, out, back);
    assert!(text.contains("tt.store %out, %x"), "{text}");
}

/// `(x + 100) + 100` on i8 becomes `x + (-56)`: the constant is folded modulo 2^8.
#[test]
fn constant_chains_fold_modulo_the_width() {
    let mut b = Builder::new(&[("out", Type::ptr(I8)), ("x", scalar(I8))]);
    let (out, x) = (b.param(0), b.param(1));
    let hundred = b.int(100, scalar(I8));
    let once = b.binary(BinaryOp::Add, x, hundred);
    let twice = b.binary(BinaryOp::Add, once, hundred);
    let text = optimize_stored(b, out, twice);
    assert_eq!(count_ops(&text, "arith.addi"), 1, "{text}");
    assert!(text.contains("arith.constant -56 : i8"), "{text}");
}

#[test]
fn division_by_zero_is_not_folded() {
    let mut b = Builder::new(&[("out", Type::ptr(I32))]);
    let out = b.param(0);
    let seven = b.int(7, i32t());
    let zero = b.int(0, i32t());
    let q = b.binary(BinaryOp::Div, seven, zero);
    let text = optimize_stored(b, out, q);
    assert_eq!(count_ops(&text, "arith.divsi"), 1, "{text}");
}

#[test]
fn float_plus_zero_is_kept_but_plus_negative_zero_goes() {
    let mut b = Builder::new(&[("out", Type::ptr(F32)), ("x", scalar(F32))]);
    let (out, x) = (b.param(0), b.param(1));
    let pos = b.float(0.0, scalar(F32));
    let neg = b.float(-0.0, scalar(F32));
    let one = b.float(1.0, scalar(F32));
    let kept = b.binary(BinaryOp::Add, x, pos);
    let gone = b.binary(BinaryOp::Add, kept, neg);
    let times_one = b.binary(BinaryOp::Mul, gone, one);
    let text = optimize_stored(b, out, times_one);
    assert_eq!(count_ops(&text, "arith.addf"), 1, "{text}");
    assert_eq!(count_ops(&text, "arith.mulf"), 0, "{text}");
    assert!(text.contains("arith.constant 0.0 : f32"), "{text}");
}

#[test]
fn float_arithmetic_is_not_reassociated() {
    let mut b = Builder::new(&[("out", Type::ptr(F32)), ("x", scalar(F32))]);
    let (out, x) = (b.param(0), b.param(1));
    let one = b.float(1.0, scalar(F32));
    let two = b.float(2.0, scalar(F32));
    let first = b.binary(BinaryOp::Add, x, one);
    let second = b.binary(BinaryOp::Add, first, two);
    let text = optimize_stored(b, out, second);
    assert_eq!(count_ops(&text, "arith.addf"), 2, "{text}");
    assert!(!text.contains("3.0"), "{text}");
}

#[test]
fn float_constants_fold_at_the_type_precision() {
    let mut b = Builder::new(&[("out", Type::ptr(F32))]);
    let out = b.param(0);
    let one = b.float(1.0, scalar(F32));
    let three = b.float(3.0, scalar(F32));
    let third = b.binary(BinaryOp::Div, one, three);
    let text = optimize_stored(b, out, third);
    let expected = format!("arith.constant {:?} : f32", (1.0f32 / 3.0f32) as f64);
    assert!(text.contains(&expected), "expected {expected}:\n{text}");
}

#[test]
fn select_simplifies() {
    let mut b = Builder::new(&[("out", Type::ptr(I32)), ("x", i32t()), ("y", i32t()), ("c", scalar(I1))]);
    let (out, x, y, c) = (b.param(0), b.param(1), b.param(2), b.param(3));
    let t = b.boolean(true, scalar(I1));
    let same = b.select(c, x, x);
    let known = b.select(t, same, y);
    let text = optimize_stored(b, out, known);
    assert_eq!(count_ops(&text, "arith.select"), 0, "{text}");
    assert!(text.contains("tt.store %out, %x"), "{text}");
}

/// `offs < BLOCK` with `offs = make_range(0, BLOCK)` is always true: the mask goes away.
#[test]
fn mask_proven_true_by_range_is_dropped() {
    let mut b = Builder::new(&[("p", Type::ptr(F32))]);
    let p = b.param(0);
    let offs = b.make_range(128);
    let bound = b.int(128, i32t());
    let bound_t = b.splat(bound, &[128]);
    let mask = b.cmp(CmpPred::Lt, offs, bound_t);
    let t = b.boolean(true, tensor(I1, &[128]));
    let mask = b.binary(BinaryOp::And, mask, t);
    let base = b.splat(p, &[128]);
    let ptrs = b.addptr(base, offs);
    let v = b.load(ptrs, Some(mask));
    b.store(ptrs, v, Some(mask));
    let (text, report) = optimize_checked(&b.finish());
    assert_eq!(count_ops(&text, "arith.cmpi"), 0, "{text}");
    assert_eq!(report.elab.masks_dropped, 2, "{report}");
    assert!(
        op_lines(&text, "tt.load")[0].contains("tt.load %") && !op_lines(&text, "tt.load")[0].contains(','),
        "{text}"
    );
}

/// `offs < 100` is not decided by the range 0..127: the mask stays.
#[test]
fn mask_not_proven_stays() {
    let mut b = Builder::new(&[("p", Type::ptr(F32))]);
    let p = b.param(0);
    let offs = b.make_range(128);
    let bound = b.int(100, i32t());
    let bound_t = b.splat(bound, &[128]);
    let mask = b.cmp(CmpPred::Lt, offs, bound_t);
    let base = b.splat(p, &[128]);
    let ptrs = b.addptr(base, offs);
    let v = b.load(ptrs, Some(mask));
    b.store(ptrs, v, Some(mask));
    let (text, report) = optimize_checked(&b.finish());
    assert_eq!(count_ops(&text, "arith.cmpi"), 1, "{text}");
    assert_eq!(report.elab.masks_dropped, 0, "{report}");
}

#[test]
fn elementwise_ops_on_splats_become_scalar_ops() {
    let mut b = Builder::new(&[("out", Type::ptr(I32)), ("x", i32t()), ("y", i32t())]);
    let (out, x, y) = (b.param(0), b.param(1), b.param(2));
    let xs = b.splat(x, &[256]);
    let ys = b.splat(y, &[256]);
    let sum = b.binary(BinaryOp::Add, xs, ys);
    let base = b.splat(out, &[256]);
    let offs = b.make_range(256);
    let ptrs = b.addptr(base, offs);
    b.store(ptrs, sum, None);
    let (text, _) = optimize_checked(&b.finish());
    let adds = op_lines(&text, "arith.addi");
    assert_eq!(adds.len(), 1, "{text}");
    assert!(adds[0].ends_with(": i32"), "{text}");
}

#[test]
fn elementwise_ops_on_broadcasts_run_on_the_small_shape() {
    let mut b = Builder::new(&[("out", Type::ptr(I32)), ("x", i32t())]);
    let (out, x) = (b.param(0), b.param(1));
    let col = b.make_range(64);
    let col = b.expand_dims(col, 1); // 64x1
    let wide = b.broadcast(col, &[64, 32]);
    let xs = b.splat(x, &[64, 32]);
    let prod = b.binary(BinaryOp::Mul, wide, xs);
    let base = b.splat(out, &[64, 32]);
    let ptrs = b.addptr(base, prod);
    b.store(ptrs, prod, None);
    let (text, _) = optimize_checked(&b.finish());
    let muls = op_lines(&text, "arith.muli");
    assert_eq!(muls.len(), 1, "{text}");
    assert!(muls[0].ends_with("tensor<64x1xi32>"), "{text}");
}

#[test]
fn nested_addptr_with_constant_offsets_merges() {
    let mut b = Builder::new(&[("p", Type::ptr(F32))]);
    let p = b.param(0);
    let four = b.int(4, i32t());
    let eight = b.int(8, i32t());
    let q = b.addptr(p, four);
    let r = b.addptr(q, eight);
    let v = b.load(r, None);
    b.store(p, v, None);
    let (text, _) = optimize_checked(&b.finish());
    assert_eq!(count_ops(&text, "tt.addptr"), 1, "{text}");
    assert!(text.contains("arith.constant 12 : i32"), "{text}");
}

#[test]
fn extension_chains_collapse_when_exact() {
    let mut b = Builder::new(&[("out", Type::ptr(I64)), ("x", scalar(I8)), ("u", scalar(U8))]);
    let (out, x, u) = (b.param(0), b.param(1), b.param(2));
    // sext i8→i32→i64: one extension.
    let mid = b.cast(CastOp::IntExt, x, I32);
    let wide = b.cast(CastOp::IntExt, mid, I64);
    // zext u8→u16, then zext u16→u64: one extension.
    let umid = b.cast(CastOp::IntExt, u, U16);
    let uwide = b.cast(CastOp::IntExt, umid, U64);
    let uwide = b.cast(CastOp::IntRetype, uwide, I64);
    let sum = b.binary(BinaryOp::Add, wide, uwide);
    let text = optimize_stored(b, out, sum);
    assert_eq!(count_ops(&text, "arith.extsi") + count_ops(&text, "arith.extui"), 2, "{text}");
}

/// `i8 → u32 → u64` sign-extends then zero-extends: not one extension.
#[test]
fn extension_chain_with_signedness_change_is_kept() {
    let mut b = Builder::new(&[("out", Type::ptr(U64)), ("x", scalar(I8))]);
    let (out, x) = (b.param(0), b.param(1));
    let mid = b.cast(CastOp::IntExt, x, U32);
    let wide = b.cast(CastOp::IntExt, mid, U64);
    let text = optimize_stored(b, out, wide);
    assert_eq!(count_ops(&text, "arith.extsi") + count_ops(&text, "arith.extui"), 2, "{text}");
}

#[test]
fn truncation_of_an_extension_is_the_value() {
    let mut b = Builder::new(&[("out", Type::ptr(I16)), ("x", scalar(I16))]);
    let (out, x) = (b.param(0), b.param(1));
    let wide = b.cast(CastOp::IntExt, x, I64);
    let back = b.cast(CastOp::IntTrunc, wide, I16);
    let text = optimize_stored(b, out, back);
    assert!(text.contains("tt.store %out, %x"), "{text}");
}

#[test]
fn report_names_the_stop_reason() {
    let mut b = Builder::new(&[("out", Type::ptr(I32)), ("x", i32t())]);
    let (out, x) = (b.param(0), b.param(1));
    let zero = b.int(0, i32t());
    let a = b.binary(BinaryOp::Add, x, zero);
    b.store(out, a, None);
    let (_, report) = optimize_checked(&b.finish());
    assert_eq!(report.stop_reason, "Saturated");
    let dump = report.to_string();
    assert!(dump.contains("stop reason: Saturated"), "{dump}");
    assert!(dump.contains("rule int-neutral-operand: 1"), "{dump}");
}
