//! The `tl.dot` microkernel: a [`Dot`] on scratch buffers as an RVV leaf function.
//!
//! Outer-product form, register-blocked: `R` rows of C live in vector register groups of
//! LMUL `L` while the k loop runs; each step loads row k of B once (one `vle`), and for
//! every row r of the block loads the scalar `a[r, k]` (`flw`/`fld`, or `lb`/`lh`/`lw`/`ld`)
//! and multiply-adds it into row r (`vfmacc.vf` / `vmacc.vx`). C rows are loaded before the
//! k loop and stored after it. Columns are strip-mined with `vsetvli` on the remaining
//! count, so the code is vector-length agnostic.
//!
//! Register budget: group 0 holds the B row (int inputs narrower than C: group 1 holds the
//! narrow row, which `vsext`/`vzext` widens into group 0), the other `32/L - 1` (or
//! `- 2`) groups hold C rows. The leaf carries four copies of the kernel, for `L` = m1, m2,
//! m4, m8, and picks one at run time from `vlenb`: the smallest `L` whose VLMAX covers all
//! `n` columns in one strip (most C rows per block, so fewest B loads), else m8 (fewest
//! strips). Row blocks are unrolled (their count is static); the k loop runs
//! [`K_UNROLL`] k steps per iteration (A offsets as immediates, so one pointer bump per
//! iteration); the strip loop and the batch loop are loops.
//!
//! Cost per k step of a block of R rows: one B load, one bump of the B pointer, R scalar
//! loads and R multiply-adds, plus 2–4 instructions per [`K_UNROLL`] steps.
//!
//! A scalars are addressed as `offset(p)` with a few pointers `p` stepping along k; rows
//! whose offset would not fit a 12-bit immediate get their own pointer (at most
//! [`A_POINTERS`], which caps the rows of a block when k is very large).
//!
//! Types (the scalar path's semantics, bit for bit: one fused multiply-add per k, in k
//! order): fp32 C with fp32, fp16 or bf16 inputs (the code generator keeps fp16/bf16
//! scratch elements as fp32, exactly representable, so they need no conversion here;
//! `input_precision="tf32"` is computed as full fp32), fp64 C with fp64 inputs, and
//! integer C (32 or 64 bits) with integer inputs of that width or narrower (sign- or
//! zero-extended by their own signedness, products and sums wrapping in C's width:
//! int8 × int8 → int32 loads the B row with `vle8` and widens it with `vsext.vf4`).
//! Everything else (fp16/bf16 C, mixed int/float) returns `None`: the scalar loops.

use tilec_rvv::*;
use tilec_vector::{Dot, Elem, Function, ScalarType};

use super::{Leaf, LeafArg};

/// How many scalar registers may walk A in the k loop.
const A_POINTERS: usize = 3;

/// The register groups the run-time choice picks from, smallest first.
const LMULS: [Lmul; 4] = [Lmul::M1, Lmul::M2, Lmul::M4, Lmul::M8];

/// k steps per iteration of the k loop (at most; k itself when smaller — both are powers
/// of two, so it divides k).
const K_UNROLL: u32 = 8;

/// Scalar float registers cycled through for A elements.
const A_FLOATS: [FReg; 8] = [FReg::FT0, FReg::FT1, FReg::FT2, FReg::FT3, FReg::FT4, FReg::FT5, FReg::FT6, FReg::FT7];

// Register assignment (all caller-saved): arguments, strip state, k-loop state.
const A_BASE: XReg = XReg::A0;
const B_BASE: XReg = XReg::A1;
const C_BASE: XReg = XReg::A2;
const BATCH_LEFT: XReg = XReg::A3;
const COLS_LEFT: XReg = XReg::A4;
const B_STRIP: XReg = XReg::A5;
const C_STRIP: XReg = XReg::A6;
const VL: XReg = XReg::T0;
const B_ROW: XReg = XReg::T1;
const B_END: XReg = XReg::T2;
/// Integer A element; also a scratch register outside the k loop.
const A_INT: XReg = XReg::T3;
const A_PTRS: [XReg; A_POINTERS] = [XReg::A7, XReg::T4, XReg::T5];
/// Scratch: strides that do not fit an immediate.
const TMP: XReg = XReg::T6;

/// How the products are formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arith {
    Float(FFmt),
    /// Integer products; B elements are `b_sew` wide and extended by `b_signed`, A
    /// elements are loaded with `a_load`.
    Int { a_load: LoadOp, b_sew: Sew, b_signed: bool },
}

/// The static shape and element layout of one dot.
#[derive(Clone, Copy, Debug)]
struct Shape {
    batch: u32,
    m: u32,
    n: u32,
    k: u32,
    /// Bytes of one scratch element of A, B, C.
    a_bytes: i64,
    b_bytes: i64,
    c_bytes: i64,
    c_sew: Sew,
    arith: Arith,
}

/// Bytes of a scratch element as the code generator lays it out (fp16/bf16 as fp32).
fn scratch_bytes(s: ScalarType) -> Option<i64> {
    match s {
        ScalarType::I1 => None,
        ScalarType::F16 | ScalarType::BF16 => Some(4),
        _ => Some(s.bytes() as i64),
    }
}

fn scalar(e: Elem) -> Option<ScalarType> {
    match e {
        Elem::Scalar(s) => Some(s),
        Elem::Ptr(_) => None,
    }
}

fn shape(f: &Function, d: &Dot) -> Option<Shape> {
    let [a, b, c] = [d.a, d.b, d.c].map(|buf| scalar(f.bufs[buf].elem));
    let (a, b, c) = (a?, b?, c?);
    let (a_bytes, b_bytes, c_bytes) = (scratch_bytes(a)?, scratch_bytes(b)?, scratch_bytes(c)?);
    let narrow_float = |s: ScalarType| matches!(s, ScalarType::F16 | ScalarType::BF16 | ScalarType::F32);
    let arith = match c {
        ScalarType::F32 if narrow_float(a) && narrow_float(b) => Arith::Float(FFmt::S),
        ScalarType::F64 if a == ScalarType::F64 && b == ScalarType::F64 => Arith::Float(FFmt::D),
        _ if c.is_int() && !c.is_bool() && a.is_int() && b.is_int() && !a.is_bool() && !b.is_bool() => {
            if c_bytes < 4 || a_bytes > c_bytes || b_bytes > c_bytes {
                return None;
            }
            let a_load = match (a_bytes, a.is_signed_int()) {
                (1, true) => LoadOp::Lb,
                (1, false) => LoadOp::Lbu,
                (2, true) => LoadOp::Lh,
                (2, false) => LoadOp::Lhu,
                (4, true) => LoadOp::Lw,
                (4, false) => LoadOp::Lwu,
                _ => LoadOp::Ld,
            };
            Arith::Int { a_load, b_sew: Sew::from_bits(b_bytes as u32 * 8)?, b_signed: b.is_signed_int() }
        }
        _ => return None,
    };
    let c_sew = Sew::from_bits(c_bytes as u32 * 8)?;
    Some(Shape { batch: d.batch, m: d.m, n: d.n, k: d.k, a_bytes, b_bytes, c_bytes, c_sew, arith })
}

/// The dot as a leaf function `(a, b, c)` over the three scratch buffers, or `None` when
/// its types are not handled here (see the module doc).
pub fn compile_dot(f: &Function, d: &Dot) -> Option<Leaf> {
    let shape = shape(f, d)?;
    if shape.batch == 0 || shape.m == 0 || shape.n == 0 || shape.k == 0 {
        return None;
    }
    let code = emit(&shape).ok()?;
    Some(Leaf { args: vec![LeafArg::Buf(d.a), LeafArg::Buf(d.b), LeafArg::Buf(d.c)], code, calls: Vec::new() })
}

/// `rd = rs + value` (an immediate when it fits, else through [`TMP`]).
fn add_const(asm: &mut Assembler, rd: XReg, rs: XReg, value: i64) {
    if (-2048..2048).contains(&value) {
        if value != 0 || rd != rs {
            asm.addi(rd, rs, value as i32);
        }
    } else {
        asm.li(TMP, value);
        asm.add(rd, rs, TMP);
    }
}

fn emit(s: &Shape) -> Result<Code, AsmError> {
    let mut asm = Assembler::new();
    let variants: Vec<Label> = LMULS.iter().map(|_| asm.new_label()).collect();
    // Pick the smallest LMUL whose VLMAX holds n columns; m8 otherwise.
    asm.li(TMP, s.n as i64);
    for (&lmul, &label) in LMULS.iter().zip(&variants).take(LMULS.len() - 1) {
        asm.vsetvli(VL, XReg::ZERO, VType::new(s.c_sew, lmul));
        let next = asm.new_label();
        asm.bltu(VL, TMP, next);
        asm.j(label);
        asm.bind(next);
    }
    // m8 first: it is where the checks fall through.
    for (&lmul, &label) in LMULS.iter().zip(&variants).rev() {
        asm.bind(label);
        variant(&mut asm, s, lmul);
    }
    asm.finish()
}

/// One complete kernel for register groups of `lmul`, ending in `ret`.
fn variant(asm: &mut Assembler, s: &Shape, lmul: Lmul) {
    let group = lmul.registers() as u32;
    let widen = matches!(s.arith, Arith::Int { b_sew, .. } if b_sew != s.c_sew);
    let reserved = if widen { 2 } else { 1 };
    // Rows sharing one A pointer: their offsets r·k·a_bytes fit a 12-bit immediate.
    let a_row_bytes = s.k as i64 * s.a_bytes;
    let unroll = s.k.min(K_UNROLL);
    let rows_per_pointer = (1 + (2047 - (unroll as i64 - 1) * s.a_bytes) / a_row_bytes) as u32;
    let rows = (32 / group - reserved).min(s.m).min(rows_per_pointer * A_POINTERS as u32).max(1);
    let vtype = VType::new(s.c_sew, lmul);

    if s.batch > 1 {
        asm.li(BATCH_LEFT, s.batch as i64);
    }
    let batch_top = asm.label_here();
    asm.mv(B_STRIP, B_BASE);
    asm.mv(C_STRIP, C_BASE);
    asm.li(COLS_LEFT, s.n as i64);
    let strip_top = asm.label_here();
    asm.vsetvli(VL, COLS_LEFT, vtype);
    let mut first = 0;
    while first < s.m {
        let count = rows.min(s.m - first);
        row_block(asm, s, lmul, reserved, first, count, rows_per_pointer, unroll);
        first += count;
    }
    // Next strip of columns.
    for (i, (ptr, bytes)) in [(B_STRIP, s.b_bytes), (C_STRIP, s.c_bytes)].into_iter().enumerate() {
        if i == 0 || s.b_bytes != s.c_bytes {
            asm.slli(TMP, VL, bytes.trailing_zeros() as i32);
        }
        asm.add(ptr, ptr, TMP);
    }
    asm.sub(COLS_LEFT, COLS_LEFT, VL);
    bne_far(asm, COLS_LEFT, strip_top);
    if s.batch > 1 {
        let (m, n, k) = (s.m as i64, s.n as i64, s.k as i64);
        add_const(asm, A_BASE, A_BASE, m * k * s.a_bytes);
        add_const(asm, B_BASE, B_BASE, k * n * s.b_bytes);
        add_const(asm, C_BASE, C_BASE, m * n * s.c_bytes);
        asm.addi(BATCH_LEFT, BATCH_LEFT, -1);
        bne_far(asm, BATCH_LEFT, batch_top);
    }
    asm.ret();
}

/// `if reg != 0 { goto target }` at any distance (the unrolled row blocks may put a loop's
/// top beyond a conditional branch's ±4 KiB).
fn bne_far(asm: &mut Assembler, reg: XReg, target: Label) {
    let done = asm.new_label();
    asm.beq(reg, XReg::ZERO, done);
    asm.j(target);
    asm.bind(done);
}

/// The vector register group holding C row `r` of a block.
fn c_group(lmul: Lmul, reserved: u32, r: u32) -> VReg {
    VReg::new(((reserved + r) * lmul.registers() as u32) as u8).expect("rows fit in 32 registers")
}

/// Rows `first .. first + count` of the current column strip: load C, run k, store C.
#[allow(clippy::too_many_arguments)]
fn row_block(
    asm: &mut Assembler,
    s: &Shape,
    lmul: Lmul,
    reserved: u32,
    first: u32,
    count: u32,
    rows_per_pointer: u32,
    unroll: u32,
) {
    let (n, k) = (s.n as i64, s.k as i64);
    let c_row_bytes = n * s.c_bytes;
    let b_row_bytes = n * s.b_bytes;
    let c_rows = |asm: &mut Assembler, store: bool| {
        // A_INT walks the C rows of the block (it is free outside the k loop).
        add_const(asm, A_INT, C_STRIP, first as i64 * c_row_bytes);
        for r in 0..count {
            let v = c_group(lmul, reserved, r);
            if store {
                asm.vse(s.c_sew, v, A_INT, Mask::Unmasked);
            } else {
                asm.vle(s.c_sew, v, A_INT, Mask::Unmasked);
            }
            if r + 1 < count {
                add_const(asm, A_INT, A_INT, c_row_bytes);
            }
        }
    };
    c_rows(asm, false);

    let pointers = count.div_ceil(rows_per_pointer) as usize;
    for (p, &reg) in A_PTRS.iter().enumerate().take(pointers) {
        let row = first as i64 + (p as u32 * rows_per_pointer) as i64;
        add_const(asm, reg, A_BASE, row * k * s.a_bytes);
    }
    asm.mv(B_ROW, B_STRIP);
    add_const(asm, B_END, B_STRIP, k * b_row_bytes);

    let k_top = asm.label_here();
    for step in 0..unroll {
        k_step(asm, s, lmul, reserved, count, rows_per_pointer, step as i64 * s.a_bytes);
        add_const(asm, B_ROW, B_ROW, b_row_bytes);
    }
    for &reg in A_PTRS.iter().take(pointers) {
        asm.addi(reg, reg, (unroll as i64 * s.a_bytes) as i32);
    }
    asm.bne(B_ROW, B_END, k_top);

    c_rows(asm, true);
}

/// One k step of a row block: B row k into group 0 (widened when narrower than C), then
/// `a[r, k]` (at `k_offset` bytes past the A pointers' current column) times it into each
/// of the `count` C rows.
fn k_step(asm: &mut Assembler, s: &Shape, lmul: Lmul, reserved: u32, count: u32, rows_per_pointer: u32, k_offset: i64) {
    let b_vec = VReg::V0;
    match s.arith {
        Arith::Int { b_sew, b_signed, .. } if b_sew != s.c_sew => {
            let narrow = c_group(lmul, 1, 0);
            asm.vle(b_sew, narrow, B_ROW, Mask::Unmasked);
            let op = match (s.c_sew.bits() / b_sew.bits(), b_signed) {
                (2, true) => VUnaryOp::SextVf2,
                (2, false) => VUnaryOp::ZextVf2,
                (4, true) => VUnaryOp::SextVf4,
                (4, false) => VUnaryOp::ZextVf4,
                (_, true) => VUnaryOp::SextVf8,
                (_, false) => VUnaryOp::ZextVf8,
            };
            asm.vunary(op, b_vec, narrow, Mask::Unmasked);
        }
        _ => asm.vle(s.c_sew, b_vec, B_ROW, Mask::Unmasked),
    }
    for r in 0..count {
        let ptr = A_PTRS[(r / rows_per_pointer) as usize];
        let offset = ((r % rows_per_pointer) as i64 * s.k as i64 * s.a_bytes + k_offset) as i32;
        let acc = c_group(lmul, reserved, r);
        match s.arith {
            Arith::Float(fmt) => {
                let fa = A_FLOATS[r as usize % A_FLOATS.len()];
                asm.fload(fmt, fa, ptr, offset);
                asm.vop(VBinOp::Fmacc, acc, b_vec, fa, Mask::Unmasked);
            }
            Arith::Int { a_load, .. } => {
                asm.load(a_load, A_INT, ptr, offset);
                asm.vop(VBinOp::Macc, acc, b_vec, A_INT, Mask::Unmasked);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(m: u32, n: u32, k: u32, arith: Arith) -> Shape {
        Shape { batch: 1, m, n, k, a_bytes: 4, b_bytes: 4, c_bytes: 4, c_sew: Sew::E32, arith }
    }

    #[test]
    fn fp32_kernel_assembles() {
        for (m, n, k) in [(2, 8, 4), (64, 64, 32), (1, 1, 1), (4, 4, 1024), (256, 256, 64), (128, 64, 512)] {
            let code = emit(&shape(m, n, k, Arith::Float(FFmt::S))).unwrap_or_else(|e| panic!("{m}x{n}x{k}: {e}"));
            let text = code.listing();
            assert!(text.contains("vfmacc.vf"), "{text}");
        }
    }
}
