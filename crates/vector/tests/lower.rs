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
    let x = f.append_value(body, OpKind::Load { ptr: p, mask: None, other: None }, Type::scalar(ScalarType::F32), Span::DUMMY);
    f.append_op(body, OpKind::Print { prefix: "x".into(), args: vec![x], hex: false }, vec![], Span::new(20, 35));
    let d = tilec_vector::lower(&f).expect_err("print is not compiled");
    assert_eq!(d.code, tilec_vector::lower::E_UNSUPPORTED);
    assert_eq!(d.span, Some(Span::new(20, 35)));
    assert!(d.message.contains("device_print"), "{}", d.message);
}

/// `p[i] = sum(p[0:8]) * arange(8)`: the reduction closes its nest; the product is one more.
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
    let total = f.append_value(body, OpKind::Reduce { kind: ReduceKind::Sum, value: x, axis: 0 }, Type::scalar(ScalarType::F32), s);
    let totals = f.append_value(body, OpKind::Splat(total), tf32.clone(), s);
    let rf = f.append_value(body, OpKind::Cast { op: CastOp::IntToFloat, value: range }, tf32.clone(), s);
    let y = f.append_value(body, OpKind::Binary { op: BinaryOp::Mul, lhs: totals, rhs: rf }, tf32, s);
    f.append_op(body, OpKind::Store { ptr: ptrs, value: y, mask: None }, vec![], s);
    let lowered = tilec_vector::lower(&f).expect("lowers");
    let text = tilec_vector::print_function(&lowered);
    let expected = "\
kernel k(%0 p: ptr<fp32>)
  scratch $0: fp32[1]
  scratch $1: ptr<fp32>[8]
  %5: fp32 = const 0.0
  nest [1] (%6) {
    store $0[%6], %5
  }
  nest [8] (%1) {
    %2: i32 = index %1
    %3: ptr<fp32> = addptr %0, %2
    %4: fp32 = load.global %3
    accumulate.sum $0[0], %4
    store $1[%1], %3
  }
  %7: fp32 = load $0[0]
  nest [8] (%8) {
    %9: i32 = index %8
    %10: fp32 = itofp %9
    %11: fp32 = mul %7, %10
    %12: ptr<fp32> = load $1[%8]
    store.global %12, %11
  }
";
    assert_eq!(text, expected);
}
