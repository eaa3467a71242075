//! The printer's text form, checked on hand-built functions.

use tilec_ir::*;
use tilec_testkit::ir_builder::{control_flow, vector_add};

fn check(f: &Function, expected: &str) {
    let text = print_function(f);
    assert_eq!(text, expected, "printed:\n{text}");
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
    assert_eq!(
        tilec_ir::print::op_text(&f, &names, body_ops[4]),
        "%7 = tt.reduce sum %3 {axis = 0} : tensor<16xf32> -> f32"
    );
    assert_eq!(tilec_ir::print::op_name(&f, body_ops[3]), "scf.for");
    assert_eq!(tilec_ir::print::op_name(&f, body_ops[9]), "tt.store");
}

/// One op of each remaining kind, to pin their syntax.
fn op_zoo() -> Function {
    use tilec_testkit::ir_builder::{ptrs, scalar, tensor, Builder, S};
    use ScalarType::*;
    let mut b = Builder::new(&[("p", Type::ptr(U8)), ("q", Type::ptr(F32)), ("n", scalar(U32))]);
    let (p, q, n) = (b.param(0), b.param(1), b.param(2));
    let _ = b.val(OpKind::NumPrograms(Axis::Y), scalar(I32));
    let t = b.val(OpKind::Constant(Constant::Bool(true)), scalar(I1));
    let r = b.range(8);
    let col = b.val(OpKind::ExpandDims { value: r, axis: 1 }, tensor(I32, &[8, 1]));
    let wide = b.val(OpKind::Broadcast(col), tensor(I32, &[8, 4]));
    let tr = b.val(OpKind::Trans { value: wide, order: vec![1, 0] }, tensor(I32, &[4, 8]));
    let flat = b.val(OpKind::Reshape(tr), tensor(I32, &[32]));
    let _ = b.val(OpKind::Hint { value: flat, hint: Hint::MaxContiguous(vec![8]) }, tensor(I32, &[32]));
    let bytes = b.ptr_tensor(p, flat);
    let x = b.load(bytes, None, None);
    let d = b.bin(BinaryOp::Div, x, x);
    let _ = b.bin(BinaryOp::Shr, d, x);
    let _ = b.val(OpKind::Cmp { pred: CmpPred::Ge, lhs: d, rhs: x }, tensor(I1, &[32]));
    let _ = b.val(OpKind::Unary { op: UnaryOp::Not, value: n }, scalar(U32));
    let fl = b.val(OpKind::Cast { op: CastOp::IntToFloat, value: n }, scalar(F32));
    let _ = b.val(OpKind::Math { func: MathFn::Exp2, value: fl }, scalar(F32));
    let _ = b.val(OpKind::Fma { a: fl, b: fl, c: fl }, scalar(F32));
    let _ = b.val(OpKind::Select { cond: t, on_true: fl, on_false: fl }, scalar(F32));
    let _ = b.val(OpKind::Cast { op: CastOp::FloatToInt, value: fl }, scalar(U8));
    let addr = b.val(OpKind::Cast { op: CastOp::PtrToInt, value: q }, scalar(I64));
    let _ = b.val(OpKind::Cast { op: CastOp::IntToPtr, value: addr }, Type::ptr(F32));
    let _ = b.val(OpKind::Cast { op: CastOp::PtrCast, value: q }, Type::ptr(I32));
    let _ = b.val(OpKind::Cast { op: CastOp::Bitcast, value: fl }, scalar(I32));
    let qs = b.splat(q, &[32]);
    let v = b.float(-0.5, tensor(F32, &[32]));
    let qp = b.val(OpKind::AddPtr { ptr: qs, offset: flat }, ptrs(F32, &[32]));
    let _ = b.val(OpKind::Scan { kind: ScanKind::Max, value: v, axis: 0, reverse: true }, tensor(F32, &[32]));
    let _ = b.val(OpKind::AtomicCas { ptr: qp, cmp: v, value: v, sem: MemSem::Relaxed }, tensor(F32, &[32]));
    let _ = b.val(
        OpKind::AtomicRmw { op: AtomicOp::Max, ptr: qp, value: v, mask: None, sem: MemSem::AcqRel },
        tensor(F32, &[32]),
    );
    b.eff(OpKind::Assert { cond: t, message: "n \"fits\"".into() });
    b.eff(OpKind::Print { prefix: "n = ".into(), args: vec![n], hex: true });
    b.eff(OpKind::DebugBarrier);
    let combine = b.f.new_region();
    let acc = b.f.add_region_param(combine, scalar(F32), Some("a".into()));
    let y = b.f.add_region_param(combine, scalar(F32), Some("b".into()));
    let m = b.f.append_value(combine, OpKind::Binary { op: BinaryOp::Max, lhs: acc, rhs: y }, scalar(F32), S);
    b.f.append_op(combine, OpKind::Yield(vec![m]), vec![], S);
    let _ = b.val(OpKind::ReduceCustom { value: v, axis: 0, combine }, scalar(F32));
    b.f
}

#[test]
fn every_op_kind_has_its_syntax() {
    check(
        &op_zoo(),
        "\
tt.func @k(%p: !tt.ptr<ui8>, %q: !tt.ptr<f32>, %n: ui32) {
  %0 = tt.get_num_programs y : i32
  %1 = arith.constant true : i1
  %2 = tt.make_range {start = 0, end = 8} : tensor<8xi32>
  %3 = tt.expand_dims %2 {axis = 1} : tensor<8xi32> -> tensor<8x1xi32>
  %4 = tt.broadcast %3 : tensor<8x1xi32> -> tensor<8x4xi32>
  %5 = tt.trans %4 {order = [1, 0]} : tensor<8x4xi32> -> tensor<4x8xi32>
  %6 = tt.reshape %5 : tensor<4x8xi32> -> tensor<32xi32>
  %7 = tt.max_contiguous %6 [8] : tensor<32xi32>
  %8 = tt.splat %p : !tt.ptr<ui8> -> tensor<32x!tt.ptr<ui8>>
  %9 = tt.addptr %8, %6 : tensor<32x!tt.ptr<ui8>>, tensor<32xi32>
  %10 = tt.load %9 : tensor<32x!tt.ptr<ui8>>
  %11 = arith.divui %10, %10 : tensor<32xui8>
  %12 = arith.shrui %11, %10 : tensor<32xui8>
  %13 = arith.cmpi uge, %11, %10 : tensor<32xui8>
  %14 = arith.noti %n : ui32
  %15 = arith.uitofp %n : ui32 -> f32
  %16 = math.exp2 %15 : f32
  %17 = math.fma %15, %15, %15 : f32
  %18 = arith.select %1, %15, %15 : i1, f32
  %19 = arith.fptoui %15 : f32 -> ui8
  %20 = tt.ptr_to_int %q : !tt.ptr<f32> -> i64
  %21 = tt.int_to_ptr %20 : i64 -> !tt.ptr<f32>
  %22 = tt.bitcast %q : !tt.ptr<f32> -> !tt.ptr<i32>
  %23 = arith.bitcast %15 : f32 -> i32
  %24 = tt.splat %q : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %25 = arith.constant dense<-0.5> : tensor<32xf32>
  %26 = tt.addptr %24, %6 : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  %27 = tt.scan max %25 {axis = 0, reverse = true} : tensor<32xf32>
  %28 = tt.atomic_cas relaxed, %26, %25, %25 : tensor<32x!tt.ptr<f32>>
  %29 = tt.atomic_rmw max, acq_rel, %26, %25 : tensor<32x!tt.ptr<f32>>
  tt.assert %1, \"n \\\"fits\\\"\" : i1
  tt.print \"n = \" {hex = true} %n : ui32
  gpu.barrier
  %30 = tt.reduce %25 {axis = 0} : tensor<32xf32> -> f32 combine(%a: f32, %b: f32) {
    %31 = arith.maxnumf %a, %b : f32
    scf.yield %31 : f32
  }
  tt.return
}
",
    );
}

#[test]
fn the_zoo_is_valid_ir() {
    verify(&op_zoo()).unwrap_or_else(|e| panic!("{}", e[0]));
}
