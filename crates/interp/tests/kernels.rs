//! Hand-built kernels run through the interpreter and checked against hand-written values.

use tilec_interp::{run, Arg};
use tilec_ir::ScalarType::*;
use tilec_ir::*;
use tilec_testkit::ir_builder::*;

fn f32_buffer(values: &[f32]) -> Arg {
    Arg::Buffer { data: values.iter().flat_map(|v| v.to_le_bytes()).collect(), elem: F32 }
}

fn i32_buffer(values: &[i32]) -> Arg {
    Arg::Buffer { data: values.iter().flat_map(|v| v.to_le_bytes()).collect(), elem: I32 }
}

fn f16_buffer(values: &[f32]) -> Arg {
    let data = values.iter().flat_map(|&v| half::f16::from_f32(v).to_le_bytes()).collect();
    Arg::Buffer { data, elem: F16 }
}

fn f32s(arg: &Arg) -> Vec<f32> {
    let Arg::Buffer { data, .. } = arg else { panic!("not a buffer") };
    data.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn i32s(arg: &Arg) -> Vec<i32> {
    let Arg::Buffer { data, .. } = arg else { panic!("not a buffer") };
    data.chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn f16s(arg: &Arg) -> Vec<f32> {
    let Arg::Buffer { data, .. } = arg else { panic!("not a buffer") };
    data.chunks(2).map(|c| half::f16::from_le_bytes(c.try_into().unwrap()).to_f32()).collect()
}

#[test]
fn vector_add_masks_the_tail() {
    let f = vector_add();
    let n = 300;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32).collect();
    let mut args = [f32_buffer(&x), f32_buffer(&y), f32_buffer(&vec![-1.0; n]), Arg::Int(n as i64)];
    // Three programs of 128 lanes cover 384 > 300 elements: the tail must stay untouched.
    run(&f, &mut args, [3, 1, 1]).unwrap();
    let expected: Vec<f32> = (0..n).map(|i| x[i] + y[i]).collect();
    assert_eq!(f32s(&args[2]), expected);
}

#[test]
fn unmasked_access_past_the_end_is_reported() {
    let mut f = vector_add();
    // Drop the mask of the first load.
    for op in f.ops.values_mut() {
        if let OpKind::Load { mask, .. } = &mut op.kind {
            *mask = None;
            break;
        }
    }
    let n = 200;
    let mut args =
        [f32_buffer(&vec![1.0; n]), f32_buffer(&vec![1.0; n]), f32_buffer(&vec![0.0; n]), Arg::Int(n as i64)];
    let err = run(&f, &mut args, [2, 1, 1]).unwrap_err();
    assert_eq!(err.code, tilec_interp::codes::OUT_OF_BOUNDS);
    assert_eq!(err.program_id, Some([1, 0, 0]));
    let text = err.to_string();
    assert!(
        text.starts_with("`%10 = tt.load %9 : tensor<128x!tt.ptr<f32>>`: out-of-bounds access at lane 72"),
        "{text}"
    );
    assert!(text.contains("address 0x100000320 is byte 800 of buffer `x_ptr`, which has 800 bytes"), "{text}");
    assert!(text.ends_with("(program (1, 0, 0))"), "{text}");
    assert_eq!(err.to_diagnostic().code, tilec_interp::codes::OUT_OF_BOUNDS);
}

/// `out[i] = load(x + i, mask = i < n, other = -inf)` over 8 lanes.
#[test]
fn masked_load_reads_other_in_masked_lanes() {
    let mut b = Builder::new(&[("x", Type::ptr(F32)), ("out", Type::ptr(F32)), ("n", scalar(I32))]);
    let (x, out, n) = (b.param(0), b.param(1), b.param(2));
    let r = b.range(8);
    let nt = b.splat(n, &[8]);
    let m = b.val(OpKind::Cmp { pred: CmpPred::Lt, lhs: r, rhs: nt }, tensor(I1, &[8]));
    let xp = b.ptr_tensor(x, r);
    let other = b.float(f64::NEG_INFINITY, tensor(F32, &[8]));
    let v = b.load(xp, Some(m), Some(other));
    let op = b.ptr_tensor(out, r);
    b.store(op, v, None);
    // `x` holds only 5 elements: lanes 5..8 must not be read.
    let mut args = [f32_buffer(&[1.0, 2.0, 3.0, 4.0, 5.0]), f32_buffer(&[0.0; 8]), Arg::Int(5)];
    run(&b.f, &mut args, [1, 1, 1]).unwrap();
    let inf = f32::NEG_INFINITY;
    assert_eq!(f32s(&args[1]), vec![1.0, 2.0, 3.0, 4.0, 5.0, inf, inf, inf]);
}

#[test]
fn for_loop_if_and_while_run_with_their_iter_args() {
    // `control_flow`: acc[16] = sum(k for k < n); total = sum(acc); *p = f16(total if total != 1e-7 else 1e-7)
    let f = control_flow();
    let mut args = [Arg::Int(5), f16_buffer(&[0.0])];
    run(&f, &mut args, [1, 1, 1]).unwrap();
    assert_eq!(f16s(&args[1]), vec![160.0]);
}

/// Row sums, row maxima and row argmax of a 4x8 matrix, stored as [sum, max, argmax] rows.
#[test]
fn reductions_along_an_axis() {
    let mut b = Builder::new(&[("x", Type::ptr(F32)), ("out", Type::ptr(F32)), ("idx", Type::ptr(I32))]);
    let (x, out, idx) = (b.param(0), b.param(1), b.param(2));
    let r = b.range(32);
    let xp = b.ptr_tensor(x, r);
    let flat = b.load(xp, None, None);
    let m = b.val(OpKind::Reshape(flat), tensor(F32, &[4, 8]));
    let sum = b.val(OpKind::Reduce { kind: ReduceKind::Sum, value: m, axis: 1 }, tensor(F32, &[4]));
    let max = b.val(OpKind::Reduce { kind: ReduceKind::Max, value: m, axis: 1 }, tensor(F32, &[4]));
    let arg = b.vals(
        OpKind::Reduce { kind: ReduceKind::ArgMax, value: m, axis: 1 },
        vec![tensor(F32, &[4]), tensor(I32, &[4])],
    )[1];
    let col_min = b.vals(
        OpKind::Reduce { kind: ReduceKind::ArgMin, value: m, axis: 0 },
        vec![tensor(F32, &[8]), tensor(I32, &[8])],
    )[1];
    let r4 = b.range(4);
    let four = b.int(4, tensor(I32, &[4]));
    let sp = b.ptr_tensor(out, r4);
    b.store(sp, sum, None);
    let r4b = b.bin(BinaryOp::Add, r4, four);
    let mp = b.ptr_tensor(out, r4b);
    b.store(mp, max, None);
    let ip = b.ptr_tensor(idx, r4);
    b.store(ip, arg, None);
    let r8 = b.range(8);
    let eight = b.int(4, tensor(I32, &[8]));
    let r8b = b.bin(BinaryOp::Add, r8, eight);
    let cp = b.ptr_tensor(idx, r8b);
    b.store(cp, col_min, None);
    let rows: [[f32; 8]; 4] = [
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
        [3.0, 9.0, 1.0, 9.0, 0.0, 0.0, 0.0, 0.0], // tie: first 9 wins
        [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0],
        [0.5; 8], // all equal: index 0
    ];
    let flat: Vec<f32> = rows.iter().flatten().copied().collect();
    let mut args = [f32_buffer(&flat), f32_buffer(&[0.0; 8]), i32_buffer(&[0; 12])];
    run(&b.f, &mut args, [1, 1, 1]).unwrap();
    assert_eq!(f32s(&args[1]), vec![36.0, 22.0, -36.0, 4.0, 8.0, 9.0, -1.0, 0.5]);
    // Row argmax, then the column argmin (row of the smallest value, first on ties).
    assert_eq!(i32s(&args[2]), vec![7, 1, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2]);
}

/// `c = a @ b + acc` with f16 inputs and an f32 accumulator.
#[test]
fn dot_accumulates_in_f32() {
    let mut b = Builder::new(&[("a", Type::ptr(F16)), ("b", Type::ptr(F16)), ("c", Type::ptr(F32))]);
    let (pa, pb, pc) = (b.param(0), b.param(1), b.param(2));
    let r4 = b.range(4);
    let a_ptr = b.ptr_tensor(pa, r4);
    let a_flat = b.load(a_ptr, None, None);
    let a = b.val(OpKind::Reshape(a_flat), tensor(F16, &[2, 2]));
    let b_ptr = b.ptr_tensor(pb, r4);
    let b_flat = b.load(b_ptr, None, None);
    let bm = b.val(OpKind::Reshape(b_flat), tensor(F16, &[2, 2]));
    let acc = b.float(0.25, tensor(F32, &[2, 2]));
    let d = b.val(OpKind::Dot { a, b: bm, acc, precision: DotPrecision::Ieee }, tensor(F32, &[2, 2]));
    let d_flat = b.val(OpKind::Reshape(d), tensor(F32, &[4]));
    let c_ptr = b.ptr_tensor(pc, r4);
    b.store(c_ptr, d_flat, None);
    // 2049 is not an f16 value, but the f32 accumulator holds the exact sums.
    let mut args = [f16_buffer(&[1.0, 2.0, 3.0, 4.0]), f16_buffer(&[2048.0, 0.5, 0.5, 1.0]), f32_buffer(&[0.0; 4])];
    run(&b.f, &mut args, [1, 1, 1]).unwrap();
    assert_eq!(f32s(&args[2]), vec![2049.25, 2.75, 6146.25, 5.75]);
}

/// Integer ops wrap at their width and divide like C.
#[test]
fn integer_semantics() {
    let cases: &[(BinaryOp, ScalarType, i64, i64, i64)] = &[
        (BinaryOp::Div, I32, -7, 2, -3),
        (BinaryOp::Rem, I32, -7, 2, -1),
        (BinaryOp::Rem, I32, 7, -2, 1),
        (BinaryOp::Div, U32, -2, 2, 0x7FFF_FFFF),
        (BinaryOp::Add, I8, 127, 1, -128),
        (BinaryOp::Mul, U8, 16, 17, 16),
        (BinaryOp::Shr, I32, -8, 1, -4),
        (BinaryOp::Shr, U32, -8, 1, 0x7FFF_FFFC),
        (BinaryOp::Shl, I32, 1, 33, 2),
        (BinaryOp::MulHi, U32, -1, -1, -2),
        (BinaryOp::Max, U16, -1, 5, 0xFFFF),
        (BinaryOp::Min, I16, -1, 5, -1),
    ];
    for &(op, ty, x, y, want) in cases {
        let mut b = Builder::new(&[("out", Type::ptr(I64))]);
        let out = b.param(0);
        let xv = b.int(x, scalar(ty));
        let yv = b.int(y, scalar(ty));
        let r = b.bin(op, xv, yv);
        // Widening keeps the value: sign-extended for signed types, zero-extended otherwise.
        let wide = b.val(OpKind::Cast { op: CastOp::IntExt, value: r }, scalar(I64));
        b.store(out, wide, None);
        let mut args = [Arg::Buffer { data: vec![0; 8], elem: I64 }];
        run(&b.f, &mut args, [1, 1, 1]).unwrap();
        let Arg::Buffer { data, .. } = &args[0] else { unreachable!() };
        let got = i64::from_le_bytes(data[..8].try_into().unwrap());
        let want = tilec_interp::scalar::normalize(want as u64, ty) as i64;
        assert_eq!(got, want, "{op:?} on {ty:?}: {x}, {y}");
    }
}

#[test]
fn division_by_zero_is_an_error() {
    let mut b = Builder::new(&[("n", scalar(I32))]);
    let n = b.param(0);
    let zero = b.int(0, scalar(I32));
    b.bin(BinaryOp::Rem, n, zero);
    let err = run(&b.f, &mut [Arg::Int(3)], [1, 1, 1]).unwrap_err();
    assert_eq!(err.code, tilec_interp::codes::DIVISION_BY_ZERO);
    assert_eq!(err.to_string(), "`%1 = arith.remsi %n, %0 : i32`: integer division by zero (program (0, 0, 0))");
}

#[test]
fn failed_assert_names_its_message() {
    let mut b = Builder::new(&[("n", scalar(I32))]);
    let n = b.param(0);
    let r = b.range(4);
    let nt = b.splat(n, &[4]);
    let ok = b.val(OpKind::Cmp { pred: CmpPred::Lt, lhs: r, rhs: nt }, tensor(I1, &[4]));
    b.eff(OpKind::Assert { cond: ok, message: "index out of range".into() });
    assert!(run(&b.f, &mut [Arg::Int(4)], [1, 1, 1]).is_ok());
    let err = run(&b.f, &mut [Arg::Int(3)], [2, 1, 1]).unwrap_err();
    assert_eq!(err.code, tilec_interp::codes::ASSERT_FAILED);
    assert!(err.to_string().contains("assertion failed at lane 3: index out of range"), "{err}");
    assert_eq!(err.program_id, Some([0, 0, 0]));
}

/// The offsets `pid * 4 + [0, 4)` of a 4-lane program and the keys it loads from `x` there.
fn four_lanes_of(b: &mut Builder, x: Value) -> (Value, Value) {
    let pid = b.val(OpKind::ProgramId(Axis::X), scalar(I32));
    let four = b.int(4, scalar(I32));
    let start = b.bin(BinaryOp::Mul, pid, four);
    let r = b.range(4);
    let st = b.splat(start, &[4]);
    let offs = b.bin(BinaryOp::Add, st, r);
    let xp = b.ptr_tensor(x, offs);
    (offs, b.load(xp, None, None))
}

/// An atomic histogram: each program adds 1 to `bins[x[i]]` for its 4 lanes and stores the
/// old values; programs run in order so the old values are deterministic.
#[test]
fn atomics_apply_in_order_and_return_old_values() {
    let mut b = Builder::new(&[("x", Type::ptr(I32)), ("bins", Type::ptr(I32)), ("old", Type::ptr(I32))]);
    let (x, bins, old) = (b.param(0), b.param(1), b.param(2));
    let (offs, keys) = four_lanes_of(&mut b, x);
    let bp = b.ptr_tensor(bins, keys);
    let one = b.int(1, tensor(I32, &[4]));
    let prev = b.val(
        OpKind::AtomicRmw { op: AtomicOp::Add, ptr: bp, value: one, mask: None, sem: MemSem::AcqRel },
        tensor(I32, &[4]),
    );
    let op = b.ptr_tensor(old, offs);
    b.store(op, prev, None);
    let keys = [0, 1, 1, 2, 1, 0, 2, 2];
    let mut args = [i32_buffer(&keys), i32_buffer(&[0; 3]), i32_buffer(&[0; 8])];
    run(&b.f, &mut args, [2, 1, 1]).unwrap();
    assert_eq!(i32s(&args[1]), vec![2, 3, 3]);
    assert_eq!(i32s(&args[2]), vec![0, 0, 1, 0, 2, 1, 1, 2]);
}

/// Compare-and-swap claims: each lane swaps `lane + 1` into `slots[key]` only when the
/// slot still holds 0, so the first lane (in grid, then lane order) with each key owns it,
/// and every lane gets the value it compared against.
#[test]
fn atomic_cas_swaps_only_where_the_compare_value_matches() {
    let mut b = Builder::new(&[("x", Type::ptr(I32)), ("slots", Type::ptr(I32)), ("old", Type::ptr(I32))]);
    let (x, slots, old) = (b.param(0), b.param(1), b.param(2));
    let (offs, keys) = four_lanes_of(&mut b, x);
    let sp = b.ptr_tensor(slots, keys);
    let zero = b.int(0, tensor(I32, &[4]));
    let one = b.int(1, tensor(I32, &[4]));
    let claim = b.bin(BinaryOp::Add, offs, one);
    let prev = b.val(OpKind::AtomicCas { ptr: sp, cmp: zero, value: claim, sem: MemSem::AcqRel }, tensor(I32, &[4]));
    let op = b.ptr_tensor(old, offs);
    b.store(op, prev, None);
    let keys = [2, 0, 2, 1, 0, 3, 1, 2];
    let mut args = [i32_buffer(&keys), i32_buffer(&[0, 0, 0, 9]), i32_buffer(&[-1; 8])];
    run(&b.f, &mut args, [2, 1, 1]).unwrap();
    assert_eq!(i32s(&args[1]), vec![2, 4, 1, 9]);
    assert_eq!(i32s(&args[2]), vec![0, 0, 1, 0, 2, 9, 4, 1]);
}

/// Programs run in (z, y, x) order and see their ids and the grid size.
#[test]
fn grid_order_and_program_ids() {
    let mut b = Builder::new(&[("out", Type::ptr(I32))]);
    let out = b.param(0);
    let [x, y, z] = [Axis::X, Axis::Y, Axis::Z].map(|a| b.val(OpKind::ProgramId(a), scalar(I32)));
    let [nx, ny] = [Axis::X, Axis::Y].map(|a| b.val(OpKind::NumPrograms(a), scalar(I32)));
    // linear = (z * ny + y) * nx + x; out[linear] = counter++ (atomic add returns the order).
    let zy = b.bin(BinaryOp::Mul, z, ny);
    let zy = b.bin(BinaryOp::Add, zy, y);
    let zyx = b.bin(BinaryOp::Mul, zy, nx);
    let linear = b.bin(BinaryOp::Add, zyx, x);
    let one = b.int(1, scalar(I32));
    let zero = b.int(0, scalar(I32));
    let counter_ptr = b.val(OpKind::AddPtr { ptr: out, offset: zero }, Type::ptr(I32));
    let order = b.val(
        OpKind::AtomicRmw { op: AtomicOp::Add, ptr: counter_ptr, value: one, mask: None, sem: MemSem::AcqRel },
        scalar(I32),
    );
    let slot = b.bin(BinaryOp::Add, linear, one);
    let p = b.val(OpKind::AddPtr { ptr: out, offset: slot }, Type::ptr(I32));
    b.store(p, order, None);
    let mut args = [i32_buffer(&[0; 13])];
    run(&b.f, &mut args, [3, 2, 2]).unwrap();
    assert_eq!(i32s(&args[0]), (0..13).map(|i| if i == 0 { 12 } else { i - 1 }).collect::<Vec<_>>());
}

#[test]
fn arguments_must_match_the_parameters() {
    let f = vector_add();
    let err = run(&f, &mut [Arg::Int(1)], [1, 1, 1]).unwrap_err();
    assert_eq!(err.code, tilec_interp::codes::BAD_ARGUMENT);
    let mut args = [Arg::Int(0), f32_buffer(&[]), f32_buffer(&[]), Arg::Int(0)];
    let err = run(&f, &mut args, [1, 1, 1]).unwrap_err();
    assert!(err.to_string().contains("does not fit parameter `x_ptr`"), "{err}");
}

/// Inclusive scans forward and reversed, and a round trip through bf16 (nearest even).
#[test]
fn scans_and_half_precision_casts() {
    let mut b = Builder::new(&[("x", Type::ptr(F32)), ("out", Type::ptr(F32))]);
    let (x, out) = (b.param(0), b.param(1));
    let r = b.range(4);
    let xp = b.ptr_tensor(x, r);
    let v = b.load(xp, None, None);
    let fwd = b.val(OpKind::Scan { kind: ScanKind::Sum, value: v, axis: 0, reverse: false }, tensor(F32, &[4]));
    let rev = b.val(OpKind::Scan { kind: ScanKind::Max, value: v, axis: 0, reverse: true }, tensor(F32, &[4]));
    let low = b.val(OpKind::Cast { op: CastOp::FloatTrunc, value: v }, tensor(BF16, &[4]));
    let back = b.val(OpKind::Cast { op: CastOp::FloatExt, value: low }, tensor(F32, &[4]));
    for (i, t) in [fwd, rev, back].into_iter().enumerate() {
        let base = b.int(4 * i as i64, tensor(I32, &[4]));
        let offs = b.bin(BinaryOp::Add, r, base);
        let p = b.ptr_tensor(out, offs);
        b.store(p, t, None);
    }
    // 1 + 2^-8 is halfway between two bf16 values: it rounds to the even 1.0;
    // 1 + 3 * 2^-8 rounds up to 1 + 2^-6.
    let input = [1.0, 1.0 + 2f32.powi(-8), -3.0, 1.0 + 3.0 * 2f32.powi(-8)];
    let mut args = [f32_buffer(&input), f32_buffer(&[0.0; 12])];
    run(&b.f, &mut args, [1, 1, 1]).unwrap();
    let got = f32s(&args[1]);
    let s1 = input[0] + input[1];
    assert_eq!(got[..4], [1.0, s1, s1 - 3.0, s1 - 3.0 + input[3]]);
    assert_eq!(got[4..8], [input[3], input[3], input[3], input[3]]);
    assert_eq!(got[8..], [1.0, 1.0, -3.0, 1.0 + 2f32.powi(-6)]);
}
