//! The printer's text form, checked on hand-built functions.

use tilec_diagnostics::Span;
use tilec_ir::*;

const S: Span = Span::DUMMY;

fn param(name: &str, ty: Type, divisibility: u32) -> Param {
    Param { name: name.into(), ty, divisibility, span: S }
}

fn i32t() -> Type {
    Type::scalar(ScalarType::I32)
}

fn check(f: &Function, expected: &str) {
    let text = print_function(f);
    assert_eq!(text, expected, "printed:\n{text}");
}

/// `add_kernel` from Triton's first tutorial, as the front end would produce it.
fn vector_add() -> Function {
    let ptr = Type::ptr(ScalarType::F32);
    let mut f = Function::new(
        "add_kernel",
        vec![param("x_ptr", ptr.clone(), 16), param("y_ptr", ptr.clone(), 16), param("out_ptr", ptr, 16), param("n", i32t(), 1)],
        S,
    );
    f.constexprs.push(("BLOCK_SIZE".into(), "128".into()));
    let b = f.body;
    let [x, y, out, n] = [0, 1, 2, 3].map(|i| f.param_values()[i]);
    let t_i32 = Type::tensor(Elem::Scalar(ScalarType::I32), vec![128]);
    let t_f32 = Type::tensor(Elem::Scalar(ScalarType::F32), vec![128]);
    let t_ptr = Type::tensor(Elem::Ptr(ScalarType::F32), vec![128]);
    let t_i1 = Type::tensor(Elem::Scalar(ScalarType::I1), vec![128]);
    let pid = f.append_value(b, OpKind::ProgramId(Axis::X), i32t(), S);
    let block = f.append_value(b, OpKind::Constant(Constant::Int(128)), i32t(), S);
    let start = f.append_value(b, OpKind::Binary { op: BinaryOp::Mul, lhs: pid, rhs: block }, i32t(), S);
    let range = f.append_value(b, OpKind::MakeRange { start: 0, end: 128 }, t_i32.clone(), S);
    let start_t = f.append_value(b, OpKind::Splat(start), t_i32.clone(), S);
    let offs = f.append_value(b, OpKind::Binary { op: BinaryOp::Add, lhs: start_t, rhs: range }, t_i32.clone(), S);
    let n_t = f.append_value(b, OpKind::Splat(n), t_i32.clone(), S);
    let mask = f.append_value(b, OpKind::Cmp { pred: CmpPred::Lt, lhs: offs, rhs: n_t }, t_i1, S);
    let load = |f: &mut Function, base: Value| {
        let base_t = f.append_value(b, OpKind::Splat(base), t_ptr.clone(), S);
        let p = f.append_value(b, OpKind::AddPtr { ptr: base_t, offset: offs }, t_ptr.clone(), S);
        (p, f.append_value(b, OpKind::Load { ptr: p, mask: Some(mask), other: None }, t_f32.clone(), S))
    };
    let (_, xv) = load(&mut f, x);
    let (_, yv) = load(&mut f, y);
    let sum = f.append_value(b, OpKind::Binary { op: BinaryOp::Add, lhs: xv, rhs: yv }, t_f32.clone(), S);
    let out_t = f.append_value(b, OpKind::Splat(out), t_ptr.clone(), S);
    let out_p = f.append_value(b, OpKind::AddPtr { ptr: out_t, offset: offs }, t_ptr.clone(), S);
    f.append_op(b, OpKind::Store { ptr: out_p, value: sum, mask: Some(mask) }, vec![], S);
    f
}

#[test]
fn vector_add_prints_like_ttir() {
    check(
        &vector_add(),
        "\
// constexprs: BLOCK_SIZE = 128
tt.func @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %out_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %n: i32) {
  %0 = tt.get_program_id x : i32
  %1 = arith.constant 128 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %4 = tt.splat %2 : i32 -> tensor<128xi32>
  %5 = arith.addi %4, %3 : tensor<128xi32>
  %6 = tt.splat %n : i32 -> tensor<128xi32>
  %7 = arith.cmpi slt, %5, %6 : tensor<128xi32>
  %8 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %9 = tt.addptr %8, %5 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %10 = tt.load %9, %7 : tensor<128x!tt.ptr<f32>>
  %11 = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %12 = tt.addptr %11, %5 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %13 = tt.load %12, %7 : tensor<128x!tt.ptr<f32>>
  %14 = arith.addf %10, %13 : tensor<128xf32>
  %15 = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %16 = tt.addptr %15, %5 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %16, %14, %7 : tensor<128x!tt.ptr<f32>>
  tt.return
}
",
    );
}

/// A row sum over a `scf.for` with an iter-arg, an `scf.if` with a result, an `scf.while`,
/// and a few ops with attributes.
fn control_flow() -> Function {
    let mut f = Function::new("loops", vec![param("n", i32t(), 1), param("p", Type::ptr(ScalarType::F16), 16)], S);
    let b = f.body;
    let n = f.param_values()[0];
    let p = f.param_values()[1];
    let t16 = Type::tensor(Elem::Scalar(ScalarType::F32), vec![16]);
    let zero = f.append_value(b, OpKind::Constant(Constant::Float(0.0)), t16.clone(), S);
    let lb = f.append_value(b, OpKind::Constant(Constant::Int(0)), i32t(), S);
    let one = f.append_value(b, OpKind::Constant(Constant::Int(1)), i32t(), S);
    let body = f.new_region();
    let k = f.add_region_param(body, i32t(), Some("k".into()));
    let acc = f.add_region_param(body, t16.clone(), Some("acc".into()));
    let kf = f.append_value(body, OpKind::Cast { op: CastOp::IntToFloat, value: k }, Type::scalar(ScalarType::F32), S);
    let kt = f.append_value(body, OpKind::Splat(kf), t16.clone(), S);
    let next = f.append_value(body, OpKind::Binary { op: BinaryOp::Add, lhs: acc, rhs: kt }, t16.clone(), S);
    f.append_op(body, OpKind::Yield(vec![next]), vec![], S);
    let for_op = f.append_op(b, OpKind::For { lower: lb, upper: n, step: one, init: vec![zero], body }, vec![t16.clone()], S);
    let acc_final = f.ops[for_op].results[0];
    let total = f.append_value(b, OpKind::Reduce { kind: ReduceKind::Sum, value: acc_final, axis: 0 }, Type::scalar(ScalarType::F32), S);
    let big = f.append_value(b, OpKind::Constant(Constant::Float(1e-7)), Type::scalar(ScalarType::F32), S);
    let cond = f.append_value(b, OpKind::Cmp { pred: CmpPred::Ne, lhs: total, rhs: big }, Type::scalar(ScalarType::I1), S);
    let then_r = f.new_region();
    f.append_op(then_r, OpKind::Yield(vec![total]), vec![], S);
    let else_r = f.new_region();
    f.append_op(else_r, OpKind::Yield(vec![big]), vec![], S);
    let if_op = f.append_op(b, OpKind::If { cond, then_region: then_r, else_region: else_r }, vec![Type::scalar(ScalarType::F32)], S);
    let chosen = f.ops[if_op].results[0];
    let half = f.append_value(b, OpKind::Cast { op: CastOp::FloatTrunc, value: chosen }, Type::scalar(ScalarType::F16), S);
    f.append_op(b, OpKind::Store { ptr: p, value: half, mask: None }, vec![], S);
    let before = f.new_region();
    let i = f.add_region_param(before, i32t(), None);
    let go = f.append_value(before, OpKind::Cmp { pred: CmpPred::Lt, lhs: i, rhs: n }, Type::scalar(ScalarType::I1), S);
    f.append_op(before, OpKind::Condition { cond: go, args: vec![i] }, vec![], S);
    let after = f.new_region();
    let j = f.add_region_param(after, i32t(), None);
    let j2 = f.append_value(after, OpKind::Binary { op: BinaryOp::Add, lhs: j, rhs: one }, i32t(), S);
    f.append_op(after, OpKind::Yield(vec![j2]), vec![], S);
    f.append_op(b, OpKind::While { init: vec![lb], before, after }, vec![i32t()], S);
    f
}

#[test]
fn control_flow_prints_scf_regions() {
    check(
        &control_flow(),
        "\
tt.func @loops(%n: i32, %p: !tt.ptr<f16> {tt.divisibility = 16}) {
  %0 = arith.constant dense<0.0> : tensor<16xf32>
  %1 = arith.constant 0 : i32
  %2 = arith.constant 1 : i32
  %3 = scf.for %k = %1 to %n step %2 iter_args(%acc = %0) -> (tensor<16xf32>) : i32 {
    %4 = arith.sitofp %k : i32 -> f32
    %5 = tt.splat %4 : f32 -> tensor<16xf32>
    %6 = arith.addf %acc, %5 : tensor<16xf32>
    scf.yield %6 : tensor<16xf32>
  }
  %7 = tt.reduce sum %3 {axis = 0} : tensor<16xf32> -> f32
  %8 = arith.constant 1e-7 : f32
  %9 = arith.cmpf une, %7, %8 : f32
  %10 = scf.if %9 -> (f32) {
    scf.yield %7 : f32
  } else {
    scf.yield %8 : f32
  }
  %11 = arith.truncf %10 : f32 -> f16
  tt.store %p, %11 : !tt.ptr<f16>
  %12 = scf.while (%13 = %1) : (i32) -> (i32) {
    %14 = arith.cmpi slt, %13, %n : i32
    scf.condition(%14) %13 : i32
  } do {
  ^bb0(%15: i32):
    %16 = arith.addi %15, %2 : i32
    scf.yield %16 : i32
  }
  tt.return
}
",
    );
}

#[test]
fn op_text_names_values_like_the_listing() {
    let f = control_flow();
    let names = tilec_ir::print::ValueNames::new(&f);
    let body_ops = &f.regions[f.body].ops;
    assert_eq!(tilec_ir::print::op_text(&f, &names, body_ops[4]), "%7 = tt.reduce sum %3 {axis = 0} : tensor<16xf32> -> f32");
    assert_eq!(tilec_ir::print::op_name(&f, body_ops[3]), "scf.for");
    assert_eq!(tilec_ir::print::op_name(&f, body_ops[9]), "tt.store");
}
