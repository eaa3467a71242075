//! Code generation and linking of a hand-built vector-add kernel.

use tilec_diagnostics::Span;
use tilec_ir::*;

/// `add_kernel(x, y, out, n)` with BLOCK_SIZE = 1024, as the front end would build it.
fn add_kernel() -> Function {
    let s = Span::DUMMY;
    let param = |name: &str, ty: Type| Param { name: name.into(), ty, divisibility: 1, span: s };
    let f32p = Type::ptr(ScalarType::F32);
    let mut f = Function::new(
        "add_kernel",
        vec![
            param("x_ptr", f32p.clone()),
            param("y_ptr", f32p.clone()),
            param("output_ptr", f32p.clone()),
            param("n_elements", Type::scalar(ScalarType::I32)),
        ],
        s,
    );
    let body = f.body;
    let [x, y, out, n] = [0, 1, 2, 3].map(|i| f.param_values()[i]);
    let i32t = Type::scalar(ScalarType::I32);
    let block = vec![1024];
    let ti32 = Type::tensor(Elem::Scalar(ScalarType::I32), block.clone());
    let pid = f.append_value(body, OpKind::ProgramId(Axis::X), i32t.clone(), s);
    let size = f.append_value(body, OpKind::Constant(Constant::Int(1024)), i32t.clone(), s);
    let start = f.append_value(body, OpKind::Binary { op: BinaryOp::Mul, lhs: pid, rhs: size }, i32t.clone(), s);
    let range = f.append_value(body, OpKind::MakeRange { start: 0, end: 1024 }, ti32.clone(), s);
    let starts = f.append_value(body, OpKind::Splat(start), ti32.clone(), s);
    let offs = f.append_value(body, OpKind::Binary { op: BinaryOp::Add, lhs: starts, rhs: range }, ti32.clone(), s);
    let ns = f.append_value(body, OpKind::Splat(n), ti32.clone(), s);
    let mask_ty = Type::tensor(Elem::Scalar(ScalarType::I1), block.clone());
    let mask = f.append_value(body, OpKind::Cmp { pred: CmpPred::Lt, lhs: offs, rhs: ns }, mask_ty, s);
    let ptrs = Type::tensor(Elem::Ptr(ScalarType::F32), block.clone());
    let vals = Type::tensor(Elem::Scalar(ScalarType::F32), block.clone());
    let load = |f: &mut Function, base: Value| {
        let b = f.append_value(body, OpKind::Splat(base), ptrs.clone(), s);
        let p = f.append_value(body, OpKind::AddPtr { ptr: b, offset: offs }, ptrs.clone(), s);
        f.append_value(body, OpKind::Load { ptr: p, mask: Some(mask), other: None }, vals.clone(), s)
    };
    let xv = load(&mut f, x);
    let yv = load(&mut f, y);
    let sum = f.append_value(body, OpKind::Binary { op: BinaryOp::Add, lhs: xv, rhs: yv }, vals.clone(), s);
    let ob = f.append_value(body, OpKind::Splat(out), ptrs.clone(), s);
    let op = f.append_value(body, OpKind::AddPtr { ptr: ob, offset: offs }, ptrs.clone(), s);
    f.append_op(body, OpKind::Store { ptr: op, value: sum, mask: Some(mask) }, vec![], s);
    f
}

/// Little-endian u16 / u32 at `at`.
fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

const ET_REL: u16 = 1;
const ET_DYN: u16 = 3;
const EM_RISCV: u16 = 243;

#[test]
fn add_kernel_fuses_into_one_nest() {
    let f = tilec_vector::lower(&add_kernel()).expect("lowers");
    let text = tilec_vector::print_function(&f);
    assert_eq!(text.matches("nest [").count(), 1, "{text}");
    assert!(!text.contains("scratch"), "no tile crosses a nest:\n{text}");
}

#[test]
fn riscv_object_has_kernel_and_launcher() {
    let f = tilec_vector::lower(&add_kernel()).expect("lowers");
    let compiled = tilec_codegen::compile(&f, tilec_codegen::Target::Riscv64gc).expect("compiles");
    let obj = &compiled.object;
    assert_eq!(&obj[..4], b"\x7fELF");
    assert_eq!(u16_at(obj, 16), ET_REL);
    assert_eq!(u16_at(obj, 18), EM_RISCV);
    assert!(contains(obj, b"add_kernel\0"));
    assert!(contains(obj, b"add_kernel_launch\0"));
    assert!(compiled.asm.contains("add_kernel:") && compiled.asm.contains("add_kernel_launch:"));
    assert!(compiled.asm.contains("ret"), "{}", compiled.asm);
}

#[test]
fn riscv_object_links_into_a_shared_object() {
    let f = tilec_vector::lower(&add_kernel()).expect("lowers");
    let compiled = tilec_codegen::compile(&f, tilec_codegen::Target::Riscv64gc).expect("compiles");
    let so = tilec_codegen::link_shared(&compiled.object).expect("links");
    assert_eq!(&so[..4], b"\x7fELF");
    assert_eq!(u16_at(&so, 16), ET_DYN);
    assert_eq!(u16_at(&so, 18), EM_RISCV);
    assert!(contains(&so, b"add_kernel_launch\0"));
}
