//! Lowering of hand-built Tile IR: diagnostics for unsupported ops, and nest structure.

use tilec_diagnostics::Span;
use tilec_ir::*;

fn kernel_with_one_ptr() -> Function {
    let param = Param { name: "p".into(), ty: Type::ptr(ScalarType::F32), divisibility: 16, span: Span::new(10, 11) };
    Function::new("k", vec![param], Span::new(0, 40))
}

#[test]
fn device_print_is_a_diagnostic_with_the_op_span() {
    let mut f = kernel_with_one_ptr();
    let body = f.body;
    let p = f.param_values()[0];
    let x = f.append_value(
        body,
        OpKind::Load { ptr: p, mask: None, other: None },
        Type::scalar(ScalarType::F32),
        Span::DUMMY,
    );
    f.append_op(body, OpKind::Print { prefix: "x".into(), args: vec![x], hex: false }, vec![], Span::new(20, 35));
    let d = tilec_vector::lower(&f).expect_err("print is not compiled");
    assert_eq!(d.code, tilec_diagnostics::codes::vector::UNSUPPORTED);
    assert_eq!(d.span, Some(Span::new(20, 35)));
    assert!(d.message.contains("device_print"), "{}", d.message);
}

/// `p[i] = sum(p[0:8]) * arange(8)`: the reduction closes its nest; the product is one more.
/// The scalar accumulator is initialized by one block-level store, and the pointer tile is
/// recomputed in the second nest (an index and an `addptr`) instead of going through scratch.
#[test]
fn reduction_result_feeds_a_second_nest() {
    let s = Span::DUMMY;
    let mut f = kernel_with_one_ptr();
    let body = f.body;
    let p = f.param_values()[0];
    let shape = vec![8];
    let ti32 = Type::tensor(Elem::Scalar(ScalarType::I32), shape.clone());
    let tf32 = Type::tensor(Elem::Scalar(ScalarType::F32), shape.clone());
    let tptr = Type::tensor(Elem::Ptr(ScalarType::F32), shape.clone());
    let range = f.append_value(body, OpKind::MakeRange { start: 0, end: 8 }, ti32, s);
    let base = f.append_value(body, OpKind::Splat(p), tptr.clone(), s);
    let ptrs = f.append_value(body, OpKind::AddPtr { ptr: base, offset: range }, tptr, s);
    let x = f.append_value(body, OpKind::Load { ptr: ptrs, mask: None, other: None }, tf32.clone(), s);
    let total = f.append_value(
        body,
        OpKind::Reduce { kind: ReduceKind::Sum, value: x, axis: 0 },
        Type::scalar(ScalarType::F32),
        s,
    );
    let totals = f.append_value(body, OpKind::Splat(total), tf32.clone(), s);
    let rf = f.append_value(body, OpKind::Cast { op: CastOp::IntToFloat, value: range }, tf32.clone(), s);
    let y = f.append_value(body, OpKind::Binary { op: BinaryOp::Mul, lhs: totals, rhs: rf }, tf32, s);
    f.append_op(body, OpKind::Store { ptr: ptrs, value: y, mask: None }, vec![], s);
    let lowered = tilec_vector::lower(&f).expect("lowers");
    let text = tilec_vector::print_function(&lowered);
    let expected = "\
kernel k(%0 p: ptr<fp32> {divisibility = 16})
  scratch $0: fp32[1]
  %1: fp32 = const -0.0
  store $0[0], %1
  nest [8] (%2) {
    %3: i32 = index %2
    %4: ptr<fp32> = addptr %0, %3
    %5: fp32 = load.global %4
    accumulate.sum $0[0], %5
  }
  %6: fp32 = load $0[0]
  nest [8] (%7) {
    %8: i32 = index %7
    %9: fp32 = itofp %8
    %10: fp32 = mul %6, %9
    %11: ptr<fp32> = addptr %0, %8
    store.global %11, %10
  }
";
    assert_eq!(text, expected);
}

/// `acc = zeros(8); for k in 0..n: acc = acc + p[0:8]` (then `acc, old = acc + x, acc` for the
/// second kernel): returns the printed Vector IR.
fn carried_tile_loop(also_yield_old: bool) -> String {
    let s = Span::DUMMY;
    let mut f = kernel_with_one_ptr();
    let body = f.body;
    let p = f.param_values()[0];
    let tf32 = Type::tensor(Elem::Scalar(ScalarType::F32), vec![8]);
    let tptr = Type::tensor(Elem::Ptr(ScalarType::F32), vec![8]);
    let ti32 = Type::tensor(Elem::Scalar(ScalarType::I32), vec![8]);
    let i32t = Type::scalar(ScalarType::I32);
    let zero = f.append_value(body, OpKind::Constant(Constant::Int(0)), i32t.clone(), s);
    let one = f.append_value(body, OpKind::Constant(Constant::Int(1)), i32t.clone(), s);
    let n = f.append_value(body, OpKind::Constant(Constant::Int(3)), i32t.clone(), s);
    let acc0 = f.append_value(body, OpKind::Constant(Constant::Float(0.0)), tf32.clone(), s);
    let range = f.append_value(body, OpKind::MakeRange { start: 0, end: 8 }, ti32, s);
    let base = f.append_value(body, OpKind::Splat(p), tptr.clone(), s);
    let ptrs = f.append_value(body, OpKind::AddPtr { ptr: base, offset: range }, tptr, s);
    let loop_body = f.new_region();
    f.add_region_param(loop_body, i32t, None);
    let acc = f.add_region_param(loop_body, tf32.clone(), None);
    let old = f.add_region_param(loop_body, tf32.clone(), None);
    let x = f.append_value(loop_body, OpKind::Load { ptr: ptrs, mask: None, other: None }, tf32.clone(), s);
    let sum = f.append_value(loop_body, OpKind::Binary { op: BinaryOp::Add, lhs: acc, rhs: x }, tf32.clone(), s);
    let second = if also_yield_old { acc } else { old };
    f.append_op(loop_body, OpKind::Yield(vec![sum, second]), vec![], s);
    let init = vec![acc0, acc0];
    let op = f.append_op(
        body,
        OpKind::For { lower: zero, upper: n, step: one, init, body: loop_body },
        vec![tf32.clone(), tf32],
        s,
    );
    let result = f.ops[op].results[0];
    f.append_op(body, OpKind::Store { ptr: ptrs, value: result, mask: None }, vec![], s);
    tilec_ir::verify(&f).expect("the hand-built kernel verifies");
    tilec_vector::print_function(&tilec_vector::lower(&f).expect("lowers"))
}

/// The body's nest loads the carried slot and stores the sum back into it at the same
/// position: no copy nest at the yield.
#[test]
fn carried_tile_is_updated_in_place() {
    let text = carried_tile_loop(false);
    let loop_text = &text[text.find("  for ").expect("a loop")..];
    let loop_text = &loop_text[..loop_text.find("\n  }\n").expect("the loop ends")];
    assert_eq!(loop_text.matches("nest [8]").count(), 1, "{text}");
    assert!(loop_text.contains("load $0[%") && loop_text.contains("store $0[%"), "{text}");
}

/// The old value is yielded too, so it is still read after the update: the sum goes to a
/// fresh buffer and the yield copies it.
#[test]
fn carried_tile_read_after_the_update_is_copied() {
    let text = carried_tile_loop(true);
    let loop_text = &text[text.find("  for ").expect("a loop")..];
    assert!(loop_text.matches("nest [8]").count() >= 2, "{text}");
    let body_nest = &loop_text[..loop_text.find("    }\n").expect("a nest")];
    assert!(!body_nest.contains("store $0["), "{text}");
}
