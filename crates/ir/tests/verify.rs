//! The verifier: valid functions pass, each kind of breakage is caught with its code.

use tilec_diagnostics::codes::ir as codes;
use tilec_diagnostics::Code;
use tilec_ir::ScalarType::*;
use tilec_ir::*;
use tilec_testkit::ir_builder::*;

/// Verifies `f` and checks the first diagnostic has `code` and a message containing `text`.
fn check_error(name: &str, f: &Function, code: Code, text: &str) {
    let errors = verify(f).expect_err(&format!("{name}: the verifier accepted a broken function"));
    let first = &errors[0];
    assert_eq!(first.code, code, "{name}: {first}");
    assert!(first.message.contains(text), "{name}: message `{}` lacks `{text}`", first.message);
    assert!(first.span.is_some(), "{name}: no span");
}

#[test]
fn valid_functions_pass() {
    for (name, f) in [("vector_add", vector_add()), ("control_flow", control_flow())] {
        if let Err(errors) = verify(&f) {
            panic!("{name}: {}", errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"));
        }
    }
}

#[test]
fn more_valid_ops_pass() {
    let mut b = Builder::new(&[("a", scalar(I32)), ("p", Type::ptr(F16))]);
    let r = b.range(16);
    let col = b.val(OpKind::ExpandDims { value: r, axis: 1 }, tensor(I32, &[16, 1]));
    let row = b.val(OpKind::ExpandDims { value: r, axis: 0 }, tensor(I32, &[1, 16]));
    let cols = b.val(OpKind::Broadcast(col), tensor(I32, &[16, 16]));
    let rows = b.val(OpKind::Broadcast(row), tensor(I32, &[16, 16]));
    let idx = b.bin(BinaryOp::Add, cols, rows);
    let t = b.val(OpKind::Trans { value: idx, order: vec![1, 0] }, tensor(I32, &[16, 16]));
    let flat = b.val(OpKind::Reshape(t), tensor(I32, &[256]));
    let p = b.param(1);
    let ptr = b.ptr_tensor(p, idx);
    let x = b.load(ptr, None, None);
    let acc = b.float(0.0, tensor(F32, &[16, 16]));
    let d = b.val(OpKind::Dot { a: x, b: x, acc, precision: DotPrecision::Ieee }, tensor(F32, &[16, 16]));
    let am = b.vals(
        OpKind::Reduce { kind: ReduceKind::ArgMax, value: d, axis: 1 },
        vec![tensor(F32, &[16]), tensor(I32, &[16])],
    )[1];
    let cs = b.val(OpKind::Scan { kind: ScanKind::Sum, value: am, axis: 0, reverse: false }, tensor(I32, &[16]));
    let wide = b.val(OpKind::Cast { op: CastOp::IntExt, value: flat }, tensor(I64, &[256]));
    let _ = b.val(OpKind::Cast { op: CastOp::IntToFloat, value: cs }, tensor(BF16, &[16]));
    let _ = b.val(OpKind::Hint { value: wide, hint: Hint::MultipleOf(vec![16]) }, tensor(I64, &[256]));
    let h = b.val(OpKind::Cast { op: CastOp::FloatTrunc, value: d }, tensor(F16, &[16, 16]));
    let m = b.val(OpKind::Cmp { pred: CmpPred::Gt, lhs: h, rhs: x }, tensor(I1, &[16, 16]));
    let old = b.val(
        OpKind::AtomicRmw { op: AtomicOp::Add, ptr, value: h, mask: Some(m), sem: MemSem::AcqRel },
        tensor(F16, &[16, 16]),
    );
    let sel = b.val(OpKind::Select { cond: m, on_true: old, on_false: h }, tensor(F16, &[16, 16]));
    b.store(ptr, sel, Some(m));
    b.eff(OpKind::Assert { cond: m, message: "positive".into() });
    let a = b.param(0);
    b.eff(OpKind::Print { prefix: "a=".into(), args: vec![a, sel], hex: false });
    verify(&b.f).unwrap_or_else(|e| panic!("{}", e[0]));
}

/// A builder whose body starts with `%p: !tt.ptr<f32>`, `%n: i32` and a 64-element range.
fn base() -> (Builder, Value, Value, Value) {
    let mut b = Builder::new(&[("p", Type::ptr(F32)), ("n", scalar(I32))]);
    let r = b.range(64);
    let (p, n) = (b.param(0), b.param(1));
    (b, p, n, r)
}

type Case = (&'static str, fn() -> Function, Code, &'static str);

const CASES: &[Case] = &[
    (
        "binary operands of two types",
        || {
            let (mut b, _, n, _) = base();
            let w = b.int(1, scalar(I64));
            b.val(OpKind::Binary { op: BinaryOp::Add, lhs: n, rhs: w }, scalar(I32));
            b.f
        },
        codes::WRONG_TYPE,
        "arith.addi %n, %1 : i32",
    ),
    (
        "binary operands of two shapes",
        || {
            let (mut b, _, n, r) = base();
            b.val(OpKind::Binary { op: BinaryOp::Add, lhs: r, rhs: n }, scalar(I32));
            b.f
        },
        codes::WRONG_SHAPE,
        "different types",
    ),
    (
        "shift of floats",
        || {
            let (mut b, ..) = base();
            let x = b.float(1.0, scalar(F32));
            b.bin(BinaryOp::Shl, x, x);
            b.f
        },
        codes::WRONG_TYPE,
        "must be an integer",
    ),
    (
        "comparison yielding i32",
        || {
            let (mut b, _, n, _) = base();
            b.val(OpKind::Cmp { pred: CmpPred::Lt, lhs: n, rhs: n }, scalar(I32));
            b.f
        },
        codes::WRONG_TYPE,
        "result should have type i1",
    ),
    (
        "select with a mask of another shape",
        || {
            let (mut b, _, _, r) = base();
            let c = b.val(OpKind::Constant(Constant::Bool(true)), tensor(I1, &[32]));
            b.val(OpKind::Select { cond: c, on_true: r, on_false: r }, tensor(I32, &[64]));
            b.f
        },
        codes::WRONG_SHAPE,
        "the condition",
    ),
    (
        "addptr with a float offset",
        || {
            let (mut b, p, ..) = base();
            let x = b.float(1.0, scalar(F32));
            b.val(OpKind::AddPtr { ptr: p, offset: x }, Type::ptr(F32));
            b.f
        },
        codes::WRONG_TYPE,
        "offset must be an integer",
    ),
    (
        "addptr of mismatched shapes",
        || {
            let (mut b, p, _, r) = base();
            b.val(OpKind::AddPtr { ptr: p, offset: r }, Type::ptr(F32));
            b.f
        },
        codes::WRONG_SHAPE,
        "shapes differ",
    ),
    (
        "load with an i32 mask",
        || {
            let (mut b, p, _, r) = base();
            let ptr = b.ptr_tensor(p, r);
            b.load(ptr, Some(r), None);
            b.f
        },
        codes::WRONG_TYPE,
        "mask must be i1",
    ),
    (
        "load with a mask of another shape",
        || {
            let (mut b, p, _, r) = base();
            let ptr = b.ptr_tensor(p, r);
            let m = b.val(OpKind::Constant(Constant::Bool(true)), tensor(I1, &[32]));
            b.load(ptr, Some(m), None);
            b.f
        },
        codes::WRONG_SHAPE,
        "mask",
    ),
    (
        "load with `other` of another type",
        || {
            let (mut b, p, _, r) = base();
            let ptr = b.ptr_tensor(p, r);
            let m = b.val(OpKind::Constant(Constant::Bool(true)), tensor(I1, &[64]));
            let o = b.float(0.0, tensor(F16, &[64]));
            b.load(ptr, Some(m), Some(o));
            b.f
        },
        codes::WRONG_TYPE,
        "`other` must have type tensor<64xf32>",
    ),
    (
        "load with `other` and no mask",
        || {
            let (mut b, p, _, r) = base();
            let ptr = b.ptr_tensor(p, r);
            let o = b.float(0.0, tensor(F32, &[64]));
            b.load(ptr, None, Some(o));
            b.f
        },
        codes::WRONG_TYPE,
        "without a mask",
    ),
    (
        "load through an integer",
        || {
            let (mut b, _, n, _) = base();
            b.val(OpKind::Load { ptr: n, mask: None, other: None }, scalar(I32));
            b.f
        },
        codes::WRONG_TYPE,
        "must be a pointer",
    ),
    (
        "store of the wrong element type",
        || {
            let (mut b, p, n, _) = base();
            b.store(p, n, None);
            b.f
        },
        codes::WRONG_TYPE,
        "stored value must have type f32",
    ),
    (
        "splat of a tensor",
        || {
            let (mut b, _, _, r) = base();
            b.val(OpKind::Splat(r), tensor(I32, &[64]));
            b.f
        },
        codes::WRONG_SHAPE,
        "must be a scalar",
    ),
    (
        "broadcast of a dim that is not 1",
        || {
            let (mut b, _, _, r) = base();
            let c = b.val(OpKind::ExpandDims { value: r, axis: 1 }, tensor(I32, &[64, 1]));
            b.val(OpKind::Broadcast(c), tensor(I32, &[32, 8]));
            b.f
        },
        codes::WRONG_SHAPE,
        "each dim",
    ),
    (
        "expand_dims past the rank",
        || {
            let (mut b, _, _, r) = base();
            b.val(OpKind::ExpandDims { value: r, axis: 2 }, tensor(I32, &[64, 1]));
            b.f
        },
        codes::BAD_ATTRIBUTE,
        "axis 2 is out of range",
    ),
    (
        "expand_dims with the wrong result",
        || {
            let (mut b, _, _, r) = base();
            b.val(OpKind::ExpandDims { value: r, axis: 0 }, tensor(I32, &[64, 1]));
            b.f
        },
        codes::WRONG_SHAPE,
        "tensor<1x64xi32>",
    ),
    (
        "reshape changing the element count",
        || {
            let (mut b, _, _, r) = base();
            b.val(OpKind::Reshape(r), tensor(I32, &[8, 4]));
            b.f
        },
        codes::WRONG_SHAPE,
        "as many elements",
    ),
    (
        "trans with a non-permutation",
        || {
            let (mut b, _, _, r) = base();
            let c = b.val(OpKind::Reshape(r), tensor(I32, &[8, 8]));
            b.val(OpKind::Trans { value: c, order: vec![1, 1] }, tensor(I32, &[8, 8]));
            b.f
        },
        codes::BAD_ATTRIBUTE,
        "not a permutation",
    ),
    (
        "make_range of 48 elements",
        || {
            let (mut b, ..) = base();
            b.val(OpKind::MakeRange { start: 0, end: 48 }, tensor(I32, &[48]));
            b.f
        },
        codes::BAD_ATTRIBUTE,
        "power of two",
    ),
    (
        "reduce along a missing axis",
        || {
            let (mut b, _, _, r) = base();
            b.val(OpKind::Reduce { kind: ReduceKind::Sum, value: r, axis: 1 }, scalar(I32));
            b.f
        },
        codes::BAD_ATTRIBUTE,
        "axis 1",
    ),
    (
        "argmax index typed like its operand",
        || {
            let (mut b, ..) = base();
            let x = b.float(0.0, tensor(F32, &[64]));
            b.vals(OpKind::Reduce { kind: ReduceKind::ArgMax, value: x, axis: 0 }, vec![scalar(F32), scalar(F32)]);
            b.f
        },
        codes::WRONG_TYPE,
        "result should have type i32",
    ),
    (
        "argmax without its value result",
        || {
            let (mut b, ..) = base();
            let x = b.float(0.0, tensor(F32, &[64]));
            b.val(OpKind::Reduce { kind: ReduceKind::ArgMax, value: x, axis: 0 }, scalar(I32));
            b.f
        },
        codes::RESULT_COUNT,
        "expected 2 result(s)",
    ),
    (
        "scan along a missing axis",
        || {
            let (mut b, _, _, r) = base();
            b.val(OpKind::Scan { kind: ScanKind::Sum, value: r, axis: 3, reverse: false }, tensor(I32, &[64]));
            b.f
        },
        codes::BAD_ATTRIBUTE,
        "axis 3",
    ),
    (
        "dot with mismatched K",
        || {
            let (mut b, ..) = base();
            let a = b.float(1.0, tensor(F16, &[16, 32]));
            let c = b.float(1.0, tensor(F16, &[16, 16]));
            let acc = b.float(0.0, tensor(F32, &[16, 16]));
            b.val(OpKind::Dot { a, b: c, acc, precision: DotPrecision::Ieee }, tensor(F32, &[16, 16]));
            b.f
        },
        codes::WRONG_SHAPE,
        "[M,K] x [K,N]",
    ),
    (
        "dot with an integer accumulator for floats",
        || {
            let (mut b, ..) = base();
            let a = b.float(1.0, tensor(F16, &[16, 16]));
            let acc = b.int(0, tensor(I32, &[16, 16]));
            b.val(OpKind::Dot { a, b: a, acc, precision: DotPrecision::Ieee }, tensor(I32, &[16, 16]));
            b.f
        },
        codes::WRONG_TYPE,
        "accumulator",
    ),
    (
        "atomic and on floats",
        || {
            let (mut b, p, ..) = base();
            let x = b.float(1.0, scalar(F32));
            b.val(
                OpKind::AtomicRmw { op: AtomicOp::And, ptr: p, value: x, mask: None, sem: MemSem::AcqRel },
                scalar(F32),
            );
            b.f
        },
        codes::WRONG_TYPE,
        "must be an integer",
    ),
    (
        "atomic_cas with a wrongly typed compare value",
        || {
            let (mut b, p, n, _) = base();
            let x = b.float(1.0, scalar(F32));
            b.val(OpKind::AtomicCas { ptr: p, cmp: n, value: x, sem: MemSem::AcqRel }, scalar(F32));
            b.f
        },
        codes::WRONG_TYPE,
        "compared value",
    ),
    (
        "integer extension that narrows",
        || {
            let (mut b, _, n, _) = base();
            b.val(OpKind::Cast { op: CastOp::IntExt, value: n }, scalar(I16));
            b.f
        },
        codes::BAD_CAST,
        "cannot convert i32 to i16",
    ),
    (
        "int_to_ptr from i32",
        || {
            let (mut b, _, n, _) = base();
            b.val(OpKind::Cast { op: CastOp::IntToPtr, value: n }, Type::ptr(F32));
            b.f
        },
        codes::BAD_CAST,
        "cannot convert",
    ),
    (
        "cast changing the shape",
        || {
            let (mut b, _, _, r) = base();
            b.val(OpKind::Cast { op: CastOp::IntToFloat, value: r }, tensor(F32, &[32]));
            b.f
        },
        codes::WRONG_SHAPE,
        "keep the shape",
    ),
    (
        "constant too wide for i8",
        || {
            let (mut b, ..) = base();
            b.int(300, scalar(I8));
            b.f
        },
        codes::BAD_ATTRIBUTE,
        "does not fit",
    ),
    (
        "float constant of an integer type",
        || {
            let (mut b, ..) = base();
            b.float(1.5, scalar(I32));
            b.f
        },
        codes::BAD_ATTRIBUTE,
        "does not fit",
    ),
    (
        "use before definition",
        || {
            let (mut b, _, n, _) = base();
            let x = b.bin(BinaryOp::Add, n, n);
            let y = b.bin(BinaryOp::Mul, x, x);
            // Swap the two ops so that `y` comes first.
            let body = b.f.body;
            let ops = &mut b.f.regions[body].ops;
            let len = ops.len();
            ops.swap(len - 1, len - 2);
            let _ = y;
            b.f
        },
        codes::UNDEFINED_VALUE,
        "is used where it is not defined",
    ),
    (
        "use of a loop-body value after the loop",
        || {
            let (mut b, _, n, _) = base();
            let zero = b.int(0, scalar(I32));
            let one = b.int(1, scalar(I32));
            let mut inner = None;
            b.for_loop(zero, n, one, vec![], |b, iv, _| {
                inner = Some(b.bin(BinaryOp::Add, iv, iv));
                vec![]
            });
            let v = inner.unwrap();
            b.bin(BinaryOp::Add, v, v);
            b.f
        },
        codes::UNDEFINED_VALUE,
        "is used where it is not defined",
    ),
    (
        "an op listed twice",
        || {
            let (mut b, _, n, _) = base();
            b.bin(BinaryOp::Add, n, n);
            let body = b.f.body;
            let last = *b.f.regions[body].ops.last().unwrap();
            b.f.regions[body].ops.push(last);
            b.f
        },
        codes::REDEFINED_VALUE,
        "defined more than once",
    ),
    (
        "loop body without a yield",
        || {
            let (mut b, _, n, _) = base();
            let zero = b.int(0, scalar(I32));
            let one = b.int(1, scalar(I32));
            b.for_loop(zero, n, one, vec![], |_, _, _| vec![]);
            let body = match &b.f.ops[*b.f.regions[b.f.body].ops.last().unwrap()].kind {
                OpKind::For { body, .. } => *body,
                _ => unreachable!(),
            };
            b.f.regions[body].ops.clear();
            b.f
        },
        codes::TERMINATOR,
        "does not end in `scf.yield`",
    ),
    (
        "loop yielding the wrong type",
        || {
            let (mut b, _, n, _) = base();
            let zero = b.int(0, scalar(I32));
            let one = b.int(1, scalar(I32));
            let acc = b.float(0.0, scalar(F32));
            b.for_loop(zero, n, one, vec![acc], |_, iv, _| vec![iv]);
            b.f
        },
        codes::TERMINATOR,
        "yields (i32) but (f32) is expected",
    ),
    (
        "loop bounds of two types",
        || {
            let (mut b, _, n, _) = base();
            let zero = b.int(0, scalar(I64));
            let one = b.int(1, scalar(I64));
            b.for_loop(zero, n, one, vec![], |_, _, _| vec![]);
            b.f
        },
        codes::WRONG_TYPE,
        "loop bounds and step",
    ),
    (
        "if on an i32",
        || {
            let (mut b, _, n, _) = base();
            let (t, e) = (b.f.new_region(), b.f.new_region());
            b.f.append_op(t, OpKind::Yield(vec![]), vec![], S);
            b.f.append_op(e, OpKind::Yield(vec![]), vec![], S);
            b.eff(OpKind::If { cond: n, then_region: t, else_region: e });
            b.f
        },
        codes::WRONG_TYPE,
        "scalar i1",
    ),
    (
        "if whose branches yield different types",
        || {
            let (mut b, _, n, _) = base();
            let c = b.val(OpKind::Cmp { pred: CmpPred::Eq, lhs: n, rhs: n }, scalar(I1));
            let (t, e) = (b.f.new_region(), b.f.new_region());
            b.f.append_op(t, OpKind::Yield(vec![n]), vec![], S);
            b.f.append_op(e, OpKind::Yield(vec![c]), vec![], S);
            b.f.append_op(b.f.body, OpKind::If { cond: c, then_region: t, else_region: e }, vec![scalar(I32)], S);
            b.f
        },
        codes::TERMINATOR,
        "yields (i1) but (i32)",
    ),
    (
        "a yield in the function body",
        || {
            let (mut b, ..) = base();
            b.eff(OpKind::Yield(vec![]));
            b.f
        },
        codes::TERMINATOR,
        "in the function body",
    ),
    (
        "a yield before the end of a loop body",
        || {
            let (mut b, _, n, _) = base();
            let zero = b.int(0, scalar(I32));
            let one = b.int(1, scalar(I32));
            b.for_loop(zero, n, one, vec![], |b, iv, _| {
                b.eff(OpKind::Yield(vec![]));
                b.bin(BinaryOp::Add, iv, iv);
                vec![]
            });
            b.f
        },
        codes::TERMINATOR,
        "not the last op",
    ),
    (
        "while whose `before` region yields",
        || {
            let (mut b, _, n, _) = base();
            let (before, after) = (b.f.new_region(), b.f.new_region());
            b.f.add_region_param(before, scalar(I32), None);
            b.f.append_op(before, OpKind::Yield(vec![]), vec![], S);
            b.f.add_region_param(after, scalar(I32), None);
            b.f.append_op(after, OpKind::Yield(vec![n]), vec![], S);
            b.f.append_op(b.f.body, OpKind::While { init: vec![n], before, after }, vec![], S);
            b.f
        },
        codes::TERMINATOR,
        "wrong terminator",
    ),
    (
        "while with a non-boolean condition",
        || {
            let (mut b, _, n, _) = base();
            let (before, after) = (b.f.new_region(), b.f.new_region());
            let i = b.f.add_region_param(before, scalar(I32), None);
            b.f.append_op(before, OpKind::Condition { cond: i, args: vec![i] }, vec![], S);
            let j = b.f.add_region_param(after, scalar(I32), None);
            b.f.append_op(after, OpKind::Yield(vec![j]), vec![], S);
            b.f.append_op(b.f.body, OpKind::While { init: vec![n], before, after }, vec![scalar(I32)], S);
            b.f
        },
        codes::WRONG_TYPE,
        "scalar i1",
    ),
    (
        "a store with a result",
        || {
            let (mut b, p, ..) = base();
            let x = b.float(1.0, scalar(F32));
            b.f.append_op(b.f.body, OpKind::Store { ptr: p, value: x, mask: None }, vec![scalar(F32)], S);
            b.f
        },
        codes::RESULT_COUNT,
        "expected 0 result",
    ),
    (
        "a region used by two loops",
        || {
            let (mut b, _, n, _) = base();
            let zero = b.int(0, scalar(I32));
            let one = b.int(1, scalar(I32));
            b.for_loop(zero, n, one, vec![], |_, _, _| vec![]);
            let first = b.f.ops[*b.f.regions[b.f.body].ops.last().unwrap()].kind.clone();
            b.eff(first);
            b.f
        },
        codes::MALFORMED_REGION,
        "also used by another op",
    ),
    (
        "a zero-sized tensor",
        || {
            let (mut b, _, n, _) = base();
            b.val(OpKind::Splat(n), tensor(I32, &[0]));
            b.f
        },
        codes::WRONG_SHAPE,
        "zero-sized dimension",
    ),
    (
        "kernel parameter and body parameter disagree",
        || {
            let (mut b, ..) = base();
            b.f.params[1].ty = scalar(I64);
            b.f
        },
        codes::PARAMETERS,
        "parameter `n` is declared i64",
    ),
];

#[test]
fn each_breakage_is_caught() {
    for (name, build, code, text) in CASES {
        check_error(name, &build(), *code, text);
    }
}

#[test]
fn messages_name_the_op_in_printer_syntax() {
    let (mut b, _, n, _) = base();
    let w = b.int(1, scalar(I64));
    b.val(OpKind::Binary { op: BinaryOp::Add, lhs: n, rhs: w }, scalar(I32));
    let errors = verify(&b.f).unwrap_err();
    assert_eq!(
        errors[0].to_string(),
        "error[E0303]: `%2 = arith.addi %n, %1 : i32`: the operands have different types (i32 and i64)"
    );
}
