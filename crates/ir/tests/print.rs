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
