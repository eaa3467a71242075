//! The `tl.dot` microkernel: a [`Dot`] as an RVV leaf function, on scratch buffers or, when
//! both operands are [`DotOperand::Global`], straight from global memory (see the section
//! "operands read straight from global memory" below: unit-stride rows checked at run time,
//! the scalar loops otherwise).
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
//! strips). The row blocks of a column strip are a loop (a single block runs straight;
//! the `m mod R` rows left over are one more block); the k loop runs up to [`K_UNROLL`] k
//! steps per iteration (A offsets as immediates, so one pointer bump per iteration); the
//! strip loop and the batch loop are loops. The unroll factor is the largest whose leaf
//! fits [`LEAF_BUDGET_BYTES`] (see [`fit_budget`]).
//!
//! Cost per k step of a block of R rows: one B load, one bump of the B pointer, R scalar
//! loads and R multiply-adds, plus 2–4 instructions per k-loop iteration; and about 5
//! instructions per row block.
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
use tilec_vector::{Dot, DotOperand, Elem, Function, GlobalTile, ScalarType};

use super::{Leaf, LeafArg};
use crate::scratch;

/// How many scalar registers may walk A in the k loop.
const A_POINTERS: usize = 3;

/// The register groups the run-time choice picks from, smallest first.
const LMULS: [Lmul; 4] = [Lmul::M1, Lmul::M2, Lmul::M4, Lmul::M8];

/// k steps per iteration of the k loop (at most; k itself when smaller — both are powers
/// of two, so it divides k).
const K_UNROLL: u32 = 8;

/// k steps that the global-operand kernel unrolls completely (with immediate offsets and
/// no pointer updates); larger k runs loops of this many steps.
const K_FULL_UNROLL: u32 = 32;

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
/// The row-block loop (callee-saved, on the leaf's frame): blocks left in the strip, the
/// current block's first A row and first C row.
const BLOCKS_LEFT: XReg = XReg::S1;
const A_BLOCK: XReg = XReg::S2;
const C_BLOCK: XReg = XReg::S3;
const BLOCK_SAVED: [XReg; 3] = [BLOCKS_LEFT, A_BLOCK, C_BLOCK];
const BLOCK_FRAME: i32 = 32;

/// How the products are formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arith {
    Float(FFmt),
    /// Integer products; B elements are `b_sew` wide and extended by `b_signed`, A
    /// elements are loaded with `a_load`.
    Int {
        a_load: LoadOp,
        b_sew: Sew,
        b_signed: bool,
    },
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

/// Bytes of a scratch element ([`crate::scratch`]: fp16/bf16 as fp32); `None` for `i1`,
/// which no dot multiplies.
fn scratch_bytes(s: ScalarType) -> Option<i64> {
    (s != ScalarType::I1).then(|| scratch::elem_bytes(Elem::Scalar(s)) as i64)
}

fn scalar(e: Elem) -> Option<ScalarType> {
    match e {
        Elem::Scalar(s) => Some(s),
        Elem::Ptr(_) => None,
    }
}

fn shape(f: &Function, d: &Dot) -> Option<Shape> {
    let [a, b, c] = [d.a.elem(f), d.b.elem(f), f.bufs[d.c].elem].map(scalar);
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

/// A dot's leaf function.
#[derive(Clone, Debug)]
pub struct DotLeaf {
    pub leaf: Leaf,
    /// The leaf returns an `i64`: zero when it computed the dot, nonzero when it found at
    /// run time that it cannot (the caller then runs the scalar loops).
    pub may_decline: bool,
}

/// The dot as a leaf function, or `None` when its types or operands are not handled here
/// (see the module doc): `(a, b, c)` over three scratch buffers.
pub fn compile_dot(f: &Function, d: &Dot) -> Option<DotLeaf> {
    let shape = shape(f, d)?;
    if shape.batch == 0 || shape.m == 0 || shape.n == 0 || shape.k == 0 {
        return None;
    }
    if let (DotOperand::Global(a), DotOperand::Global(b)) = (&d.a, &d.b) {
        return compile_global(f, d, &shape, a, b);
    }
    let (DotOperand::Scratch(a), DotOperand::Scratch(b)) = (&d.a, &d.b) else {
        return None;
    };
    let code = fit_budget(shape.k, K_UNROLL, |k_unroll| emit(&shape, k_unroll)).ok()?;
    let leaf = Leaf {
        args: vec![LeafArg::Buf(*a), LeafArg::Buf(*b), LeafArg::Buf(d.c)],
        code,
        calls: Vec::new(),
        sites: Vec::new(),
        returns: None,
    };
    Some(DotLeaf { leaf, may_decline: false })
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

/// The code-size budget of a dot leaf: half of a 32 KiB instruction cache, so that the
/// kernel around it keeps room.
pub const LEAF_BUDGET_BYTES: usize = 16 * 1024;

/// The code `emit` makes with the largest k unroll factor (of `k.min(max)` halved down to
/// 4) whose code fits [`LEAF_BUDGET_BYTES`], else with the smallest: fewer k-loop
/// iterations as long as the code stays small. `k` and `max` are powers of two, so every
/// factor divides `k`.
fn fit_budget(k: u32, max: u32, emit: impl Fn(u32) -> Result<Code, AsmError>) -> Result<Code, AsmError> {
    let mut unroll = k.min(max);
    loop {
        let code = emit(unroll)?;
        if code.bytes().len() <= LEAF_BUDGET_BYTES || unroll <= 4 {
            return Ok(code);
        }
        unroll /= 2;
    }
}

/// The scratch-operand kernel with `k_unroll` k steps per iteration of the k loop.
fn emit(s: &Shape, k_unroll: u32) -> Result<Code, AsmError> {
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
        variant(&mut asm, s, lmul, k_unroll);
    }
    asm.finish()
}

/// One complete kernel for register groups of `lmul`, ending in `ret`.
///
/// Row blocks: a single block runs straight; more full blocks run as a loop over blocks
/// (block base pointers and count in callee-saved registers, saved on the leaf's frame),
/// then one block of the remaining `m mod rows` rows.
fn variant(asm: &mut Assembler, s: &Shape, lmul: Lmul, k_unroll: u32) {
    let group = lmul.registers() as u32;
    let widen = matches!(s.arith, Arith::Int { b_sew, .. } if b_sew != s.c_sew);
    let reserved = if widen { 2 } else { 1 };
    // Rows sharing one A pointer: their offsets r·k·a_bytes fit a 12-bit immediate.
    let a_row_bytes = s.k as i64 * s.a_bytes;
    let unroll = k_unroll;
    let rows_per_pointer = (1 + (2047 - (unroll as i64 - 1) * s.a_bytes) / a_row_bytes) as u32;
    let rows = (32 / group - reserved).min(s.m).min(rows_per_pointer * A_POINTERS as u32).max(1);
    let vtype = VType::new(s.c_sew, lmul);
    let (full_blocks, remainder) = (s.m / rows, s.m % rows);
    let looped = full_blocks > 1;
    let block = RowBlock { s, lmul, reserved, rows_per_pointer, unroll };

    if looped {
        asm.addi(XReg::SP, XReg::SP, -BLOCK_FRAME);
        for (i, &reg) in BLOCK_SAVED.iter().enumerate() {
            asm.sd(reg, XReg::SP, 8 * i as i32);
        }
    }
    if s.batch > 1 {
        asm.li(BATCH_LEFT, s.batch as i64);
    }
    let batch_top = asm.label_here();
    asm.mv(B_STRIP, B_BASE);
    asm.mv(C_STRIP, C_BASE);
    asm.li(COLS_LEFT, s.n as i64);
    let strip_top = asm.label_here();
    asm.vsetvli(VL, COLS_LEFT, vtype);
    let c_row_bytes = s.n as i64 * s.c_bytes;
    if looped {
        asm.mv(A_BLOCK, A_BASE);
        asm.mv(C_BLOCK, C_STRIP);
        asm.li(BLOCKS_LEFT, full_blocks as i64);
        let block_top = asm.label_here();
        block.emit(asm, (A_BLOCK, 0), (C_BLOCK, 0), rows);
        add_const(asm, A_BLOCK, A_BLOCK, rows as i64 * a_row_bytes);
        add_const(asm, C_BLOCK, C_BLOCK, rows as i64 * c_row_bytes);
        asm.addi(BLOCKS_LEFT, BLOCKS_LEFT, -1);
        bne_far(asm, BLOCKS_LEFT, block_top);
        if remainder > 0 {
            block.emit(asm, (A_BLOCK, 0), (C_BLOCK, 0), remainder);
        }
    } else {
        let mut first = 0;
        while first < s.m {
            let count = rows.min(s.m - first);
            let first_bytes = |row_bytes: i64| first as i64 * row_bytes;
            block.emit(asm, (A_BASE, first_bytes(a_row_bytes)), (C_STRIP, first_bytes(c_row_bytes)), count);
            first += count;
        }
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
    if looped {
        for (i, &reg) in BLOCK_SAVED.iter().enumerate() {
            asm.ld(reg, XReg::SP, 8 * i as i32);
        }
        asm.addi(XReg::SP, XReg::SP, BLOCK_FRAME);
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

/// The per-variant constants of a row block.
struct RowBlock<'a> {
    s: &'a Shape,
    lmul: Lmul,
    reserved: u32,
    rows_per_pointer: u32,
    unroll: u32,
}

impl RowBlock<'_> {
    /// `count` rows of the current column strip, the first of them at `a.0 + a.1` bytes
    /// in A and `c.0 + c.1` bytes in C: load C, run k, store C.
    fn emit(&self, asm: &mut Assembler, a: (XReg, i64), c: (XReg, i64), count: u32) {
        let RowBlock { s, lmul, reserved, rows_per_pointer, unroll } = *self;
        let (n, k) = (s.n as i64, s.k as i64);
        let c_row_bytes = n * s.c_bytes;
        let b_row_bytes = n * s.b_bytes;
        let c_rows = |asm: &mut Assembler, store: bool| {
            // A_INT walks the C rows of the block (it is free outside the k loop).
            add_const(asm, A_INT, c.0, c.1);
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
            add_const(asm, reg, a.0, a.1 + (p as u32 * rows_per_pointer) as i64 * k * s.a_bytes);
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

// ----- operands read straight from global memory ------------------------------------------
//
// A dot whose operands are both `DotOperand::Global` (fp32 or fp64 throughout, no batch)
// reads them where they are: row r of A starts at its pointer `pa(r, 0)`, row k of B at
// `pb(k, 0)`, and separability (the lowering's invariant) gives every row the column offsets
// of row 0. On entry the leaf checks at run time that those offsets are unit-stride (A along
// k, B along n); when they are not it returns 1 and the kernel runs the scalar loops.
// Otherwise it builds a table of the B row addresses of the current column strip on its
// stack frame, keeps one scalar register per A row of a block (`s0..s11`, saved and restored),
// and runs the same outer-product k loop as the scratch kernel (`ld` of the B row address,
// `vle`, then `fl*` + `vfmacc.vf` per row), for `clamp(k_limit, 0, k)` steps: all k steps
// unrolled when `k ≤ K_FULL_UNROLL` and the leaf fits its budget, else a loop of up to
// `K_FULL_UNROLL` steps per iteration ([`fit_budget`]); then one step at a time.

/// Arguments, moved to these registers on entry.
const G_A_TILE: XReg = XReg::A0;
const G_A_OFF: XReg = XReg::A1;
const G_B_TILE: XReg = XReg::A2;
/// B's element offset in bytes; from the first strip on, also the strip's column offset.
const G_B_COL: XReg = XReg::A3;
const G_C: XReg = XReg::A4;
const G_K_LIMIT: XReg = XReg::A5;
const G_VL: XReg = XReg::T0;
const G_COLS_LEFT: XReg = XReg::T1;
const G_C_STRIP: XReg = XReg::T2;
const G_TMP: XReg = XReg::T3;
/// The table chunk's length (table building only).
const G_TMP2: XReg = XReg::T4;
const G_COUNT: XReg = XReg::T5;
/// The table's write position (table building only).
const G_TABLE: XReg = XReg::T6;
/// C row walk, then the B row table walk of a row block.
const G_WALK: XReg = XReg::A6;
/// The B row stride (table building only).
const G_STRIDE: XReg = XReg::A7;
/// The address of the current row block's first A row pointer (row blocks only).
const G_A_ROWS: XReg = XReg::A7;
/// The address of the current row block's first C row (row blocks only).
const G_C_ROWS: XReg = XReg::T4;
/// Full row blocks left in the current strip.
const G_BLOCKS_LEFT: XReg = XReg::T6;
/// One register per A row of a block.
const G_ROWS: [XReg; 12] = [
    XReg::S0,
    XReg::S1,
    XReg::S2,
    XReg::S3,
    XReg::S4,
    XReg::S5,
    XReg::S6,
    XReg::S7,
    XReg::S8,
    XReg::S9,
    XReg::S10,
    XReg::S11,
];

/// The global-operand dot as a leaf `(a ptrs, [a offset], b ptrs, [b offset], c, [k limit])`
/// returning 0, or 1 when the operands are not unit-stride at run time.
fn compile_global(f: &Function, d: &Dot, s: &Shape, a: &GlobalTile, b: &GlobalTile) -> Option<DotLeaf> {
    let Arith::Float(fmt) = s.arith else { return None };
    let elem_bytes = match fmt {
        FFmt::S => 4,
        _ => 8,
    };
    let same = [d.a.elem(f), d.b.elem(f), f.bufs[d.c].elem]
        .iter()
        .all(|e| scalar(*e).map(|t| t.bytes() as i64) == Some(elem_bytes));
    if !same || s.batch != 1 || a.index.strides.len() != 2 || b.index.strides.len() != 2 {
        return None;
    }
    // The frame: the B row table, then the saved registers.
    let table_bytes = (s.k as i64 * 8 + 15) / 16 * 16;
    let frame = table_bytes + 8 * G_ROWS.len() as i64;
    if frame > 2032 {
        return None;
    }
    let mut args = vec![LeafArg::Buf(a.ptrs)];
    let mut present = vec![G_A_TILE];
    if let Some(o) = a.offset {
        args.push(LeafArg::Var(o));
        present.push(G_A_OFF);
    }
    args.push(LeafArg::Buf(b.ptrs));
    present.push(G_B_TILE);
    if let Some(o) = b.offset {
        args.push(LeafArg::Var(o));
        present.push(G_B_COL);
    }
    args.push(LeafArg::Buf(d.c));
    present.push(G_C);
    if let Some(l) = d.k_limit {
        args.push(LeafArg::Var(l));
        present.push(G_K_LIMIT);
    }
    let code = fit_budget(s.k, K_FULL_UNROLL, |k_unroll| {
        let g = Global { s, a, b, elem_bytes, fmt, k_unroll };
        emit_global(&g, &present, frame, table_bytes)
    })
    .ok()?;
    Some(DotLeaf { leaf: Leaf { args, code, calls: Vec::new(), sites: Vec::new(), returns: None }, may_decline: true })
}

/// The constants of a global-operand kernel.
struct Global<'a> {
    s: &'a Shape,
    a: &'a GlobalTile,
    b: &'a GlobalTile,
    elem_bytes: i64,
    fmt: FFmt,
    /// k steps per iteration of the k loop (`s.k`: fully unrolled).
    k_unroll: u32,
}

/// `rd = rs + value`, through `tmp` when `value` does not fit an immediate.
fn add_const_via(asm: &mut Assembler, rd: XReg, rs: XReg, value: i64, tmp: XReg) {
    if (-2048..2048).contains(&value) {
        if value != 0 || rd != rs {
            asm.addi(rd, rs, value as i32);
        }
    } else {
        asm.li(tmp, value);
        asm.add(rd, rs, tmp);
    }
}

fn emit_global(g: &Global, present: &[XReg], frame: i64, table_bytes: i64) -> Result<Code, AsmError> {
    let Global { s, a, b, elem_bytes, .. } = *g;
    let mut asm = Assembler::new();
    let shift = elem_bytes.trailing_zeros() as i32;
    // Arguments arrive packed in a0.. in order; move each to its register, last first
    // (a register's packed position is never above its own).
    for (i, &reg) in present.iter().enumerate().rev() {
        let arrived = XReg::new(10 + i as u8).expect("at most six arguments");
        if arrived != reg {
            asm.mv(reg, arrived);
        }
    }
    for (reg, tile) in [(G_A_OFF, a), (G_B_COL, b)] {
        if tile.offset.is_some() {
            asm.slli(reg, reg, shift);
        } else {
            asm.li(reg, 0);
        }
    }
    let k = s.k as i64;
    if present.contains(&G_K_LIMIT) {
        let non_negative = asm.new_label();
        asm.bge(G_K_LIMIT, XReg::ZERO, non_negative);
        asm.li(G_K_LIMIT, 0);
        asm.bind(non_negative);
        let below = asm.new_label();
        asm.li(G_TMP, k);
        asm.blt(G_K_LIMIT, G_TMP, below);
        asm.mv(G_K_LIMIT, G_TMP);
        asm.bind(below);
    } else {
        asm.li(G_K_LIMIT, k);
    }
    let decline = asm.new_label();
    let finished = asm.new_label();
    unit_stride_check(&mut asm, G_A_TILE, a, k, elem_bytes, decline);
    unit_stride_check(&mut asm, G_B_TILE, b, s.n as i64, elem_bytes, decline);
    let work = asm.new_label();
    asm.bne(G_K_LIMIT, XReg::ZERO, work);
    asm.j(finished);
    asm.bind(work);

    asm.addi(XReg::SP, XReg::SP, -frame as i32);
    for (i, &reg) in G_ROWS.iter().enumerate() {
        asm.sd(reg, XReg::SP, (table_bytes + 8 * i as i64) as i32);
    }
    let epilogue = asm.new_label();
    let variants: Vec<Label> = LMULS.iter().map(|_| asm.new_label()).collect();
    asm.li(G_TMP, s.n as i64);
    for (&lmul, &label) in LMULS.iter().zip(&variants).take(LMULS.len() - 1) {
        asm.vsetvli(G_VL, XReg::ZERO, VType::new(s.c_sew, lmul));
        let next = asm.new_label();
        asm.bltu(G_VL, G_TMP, next);
        asm.j(label);
        asm.bind(next);
    }
    for (&lmul, &label) in LMULS.iter().zip(&variants).rev() {
        asm.bind(label);
        global_variant(&mut asm, g, lmul);
        asm.j(epilogue);
    }
    asm.bind(epilogue);
    for (i, &reg) in G_ROWS.iter().enumerate() {
        asm.ld(reg, XReg::SP, (table_bytes + 8 * i as i64) as i32);
    }
    asm.addi(XReg::SP, XReg::SP, frame as i32);
    asm.bind(finished);
    asm.li(XReg::A0, 0);
    asm.ret();
    asm.bind(decline);
    asm.li(XReg::A0, 1);
    asm.ret();
    asm.finish()
}

/// Branches to `decline` unless `tile`'s row-0 pointers are `len` consecutive elements of
/// `elem_bytes` (uses `t0..t5`, `v8..v31`).
fn unit_stride_check(
    asm: &mut Assembler,
    tile_reg: XReg,
    tile: &GlobalTile,
    len: i64,
    elem_bytes: i64,
    decline: Label,
) {
    let (vl, count, addr, stride, expect, tmp) = (XReg::T0, XReg::T1, XReg::T2, XReg::T3, XReg::T4, XReg::T5);
    let col_stride = tile.index.strides[1] * 8;
    add_const_via(asm, addr, tile_reg, tile.index.offset * 8, tmp);
    asm.li(count, len);
    asm.li(stride, col_stride);
    asm.ld(expect, addr, 0);
    let top = asm.label_here();
    asm.vsetvli(vl, count, VType::new(Sew::E64, Lmul::M8));
    asm.vload(Sew::E64, VMemMode::Strided(stride), VReg::V8, addr, Mask::Unmasked);
    asm.vid(VReg::V16, Mask::Unmasked);
    asm.vop(VBinOp::Sll, VReg::V16, VReg::V16, elem_bytes.trailing_zeros() as i32, Mask::Unmasked);
    asm.vop(VBinOp::Add, VReg::V16, VReg::V16, expect, Mask::Unmasked);
    asm.vop(VBinOp::Msne, VReg::V24, VReg::V8, VReg::V16, Mask::Unmasked);
    asm.push(Inst::VMaskScalar { op: VMaskScalarOp::Cpop, rd: tmp, vs2: VReg::V24, mask: Mask::Unmasked });
    bne_far(asm, tmp, decline);
    asm.slli(tmp, vl, elem_bytes.trailing_zeros() as i32);
    asm.add(expect, expect, tmp);
    asm.mul(tmp, vl, stride);
    asm.add(addr, addr, tmp);
    asm.sub(count, count, vl);
    asm.bne(count, XReg::ZERO, top);
}

/// One complete global-operand kernel for register groups of `lmul` (the frame is set up).
///
/// Per column strip: the B row table, then the row blocks of `rows` rows as a run-time loop
/// (`G_BLOCKS_LEFT`), then one block of the remaining `m % rows` rows.
fn global_variant(asm: &mut Assembler, g: &Global, lmul: Lmul) {
    let Global { s, a, b, elem_bytes, .. } = *g;
    let group = lmul.registers() as u32;
    let rows = (32 / group - 1).min(G_ROWS.len() as u32).min(s.m).max(1);
    let vtype = VType::new(s.c_sew, lmul);
    let shift = elem_bytes.trailing_zeros() as i32;
    let c_row_bytes = s.n as i64 * s.c_bytes;
    let a_row_step = a.index.strides[0] * 8;
    asm.mv(G_C_STRIP, G_C);
    asm.li(G_COLS_LEFT, s.n as i64);
    let strip_top = asm.label_here();
    // B row addresses of this strip: table[k] = pb(k, 0) + offset + strip columns.
    add_const_via(asm, G_WALK, G_B_TILE, b.index.offset * 8, G_TMP);
    asm.li(G_STRIDE, b.index.strides[0] * 8);
    asm.li(G_COUNT, s.k as i64);
    asm.mv(G_TABLE, XReg::SP);
    let table_top = asm.label_here();
    asm.vsetvli(G_TMP2, G_COUNT, VType::new(Sew::E64, Lmul::M8));
    asm.vload(Sew::E64, VMemMode::Strided(G_STRIDE), VReg::V8, G_WALK, Mask::Unmasked);
    asm.vop(VBinOp::Add, VReg::V8, VReg::V8, G_B_COL, Mask::Unmasked);
    asm.vse(Sew::E64, VReg::V8, G_TABLE, Mask::Unmasked);
    asm.mul(G_TMP, G_TMP2, G_STRIDE);
    asm.add(G_WALK, G_WALK, G_TMP);
    asm.slli(G_TMP, G_TMP2, 3);
    asm.add(G_TABLE, G_TABLE, G_TMP);
    asm.sub(G_COUNT, G_COUNT, G_TMP2);
    asm.bne(G_COUNT, XReg::ZERO, table_top);
    asm.vsetvli(G_VL, G_COLS_LEFT, vtype);
    // The row blocks: G_A_ROWS points at the block's first A row pointer, G_C_ROWS at its
    // first C row.
    add_const_via(asm, G_A_ROWS, G_A_TILE, a.index.offset * 8, G_TMP);
    asm.mv(G_C_ROWS, G_C_STRIP);
    let full_blocks = s.m / rows;
    let remainder = s.m % rows;
    let advance = |asm: &mut Assembler, count: u32| {
        add_const_via(asm, G_A_ROWS, G_A_ROWS, a_row_step * count as i64, G_TMP);
        add_const_via(asm, G_C_ROWS, G_C_ROWS, c_row_bytes * count as i64, G_TMP);
    };
    if full_blocks > 1 {
        asm.li(G_BLOCKS_LEFT, full_blocks as i64);
        let block_top = asm.label_here();
        global_row_block(asm, g, lmul, rows);
        advance(asm, rows);
        asm.addi(G_BLOCKS_LEFT, G_BLOCKS_LEFT, -1);
        bne_far(asm, G_BLOCKS_LEFT, block_top);
    } else {
        global_row_block(asm, g, lmul, rows);
        if remainder > 0 {
            advance(asm, rows);
        }
    }
    if remainder > 0 {
        global_row_block(asm, g, lmul, remainder);
    }
    asm.slli(G_TMP, G_VL, shift);
    asm.add(G_C_STRIP, G_C_STRIP, G_TMP);
    asm.add(G_B_COL, G_B_COL, G_TMP);
    asm.sub(G_COLS_LEFT, G_COLS_LEFT, G_VL);
    bne_far(asm, G_COLS_LEFT, strip_top);
}

/// `if a != b { goto target }` at any distance.
fn bne_regs_far(asm: &mut Assembler, a: XReg, b: XReg, target: Label) {
    let done = asm.new_label();
    asm.beq(a, b, done);
    asm.j(target);
    asm.bind(done);
}

/// The `count` rows at `G_A_ROWS` / `G_C_ROWS` of the current strip: load C, point at the
/// A rows, run the k steps, store C.
///
/// k steps: with `k ≤ K_FULL_UNROLL` and `k_limit = k` (the usual case) all k steps run
/// unrolled with immediate offsets and no pointer updates; with larger `k` the k loop runs
/// `K_FULL_UNROLL` steps per iteration; the remaining `k_limit mod unroll` steps (or all
/// `k_limit < k` steps when fully unrolled) run one at a time.
fn global_row_block(asm: &mut Assembler, g: &Global, lmul: Lmul, count: u32) {
    let Global { s, a, elem_bytes, .. } = *g;
    let c_row_bytes = s.n as i64 * s.c_bytes;
    let c_rows = |asm: &mut Assembler, store: bool| {
        asm.mv(G_WALK, G_C_ROWS);
        for r in 0..count {
            let v = c_group(lmul, 1, r);
            if store {
                asm.vse(s.c_sew, v, G_WALK, Mask::Unmasked);
            } else {
                asm.vle(s.c_sew, v, G_WALK, Mask::Unmasked);
            }
            if r + 1 < count {
                add_const_via(asm, G_WALK, G_WALK, c_row_bytes, G_TMP);
            }
        }
    };
    c_rows(asm, false);
    // A row pointers: pa(first + r, 0) + offset, as immediate offsets from G_A_ROWS while
    // they fit.
    let row_step = a.index.strides[0] * 8;
    asm.mv(G_WALK, G_A_ROWS);
    let mut walk_offset = 0i64;
    for (r, &row) in G_ROWS.iter().enumerate().take(count as usize) {
        let offset = r as i64 * row_step - walk_offset;
        if !(-2048..2048).contains(&offset) {
            add_const_via(asm, G_WALK, G_WALK, offset, G_TMP);
            walk_offset += offset;
        }
        asm.ld(row, G_WALK, (r as i64 * row_step - walk_offset) as i32);
        if a.offset.is_some() {
            asm.add(row, row, G_A_OFF);
        }
    }
    asm.mv(G_WALK, XReg::SP);
    let unroll = g.k_unroll;
    let singles = asm.new_label();
    let done = asm.new_label();
    if unroll == s.k {
        asm.li(G_TMP, s.k as i64);
        bne_regs_far(asm, G_K_LIMIT, G_TMP, singles);
        for step in 0..unroll {
            global_k_step(asm, g, lmul, count, step as i64);
        }
        asm.j(done);
    } else {
        let log_unroll = unroll.trailing_zeros() as i32;
        asm.srli(G_COUNT, G_K_LIMIT, log_unroll);
        asm.beq(G_COUNT, XReg::ZERO, singles);
        let top = asm.label_here();
        for step in 0..unroll {
            global_k_step(asm, g, lmul, count, step as i64);
        }
        global_k_advance(asm, elem_bytes, count, unroll as i64);
        bne_far(asm, G_COUNT, top);
    }
    asm.bind(singles);
    if unroll > 1 {
        asm.alu_imm(AluImmOp::Andi, G_COUNT, G_K_LIMIT, unroll as i32 - 1);
        asm.beq(G_COUNT, XReg::ZERO, done);
        let single_top = asm.label_here();
        global_k_step(asm, g, lmul, count, 0);
        global_k_advance(asm, elem_bytes, count, 1);
        asm.bne(G_COUNT, XReg::ZERO, single_top);
    }
    asm.bind(done);
    c_rows(asm, true);
}

/// Step `step` of the current k iteration: B row from the table at `G_WALK`, then each A
/// row's scalar.
fn global_k_step(asm: &mut Assembler, g: &Global, lmul: Lmul, count: u32, step: i64) {
    let Global { s, elem_bytes, fmt, .. } = *g;
    let b_vec = VReg::V0;
    asm.ld(G_TMP, G_WALK, (step * 8) as i32);
    asm.vle(s.c_sew, b_vec, G_TMP, Mask::Unmasked);
    for r in 0..count {
        let fa = A_FLOATS[r as usize % A_FLOATS.len()];
        asm.fload(fmt, fa, G_ROWS[r as usize], (step * elem_bytes) as i32);
        asm.vop(VBinOp::Fmacc, c_group(lmul, 1, r), b_vec, fa, Mask::Unmasked);
    }
}

/// After `steps` k steps: advance the table walk and the A rows, count the iteration down.
fn global_k_advance(asm: &mut Assembler, elem_bytes: i64, count: u32, steps: i64) {
    asm.addi(G_WALK, G_WALK, (steps * 8) as i32);
    for &reg in G_ROWS.iter().take(count as usize) {
        asm.addi(reg, reg, (steps * elem_bytes) as i32);
    }
    asm.addi(G_COUNT, G_COUNT, -1);
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
            let s = shape(m, n, k, Arith::Float(FFmt::S));
            let code = emit(&s, k.min(K_UNROLL)).unwrap_or_else(|e| panic!("{m}x{n}x{k}: {e}"));
            let text = code.listing();
            assert!(text.contains("vfmacc.vf"), "{text}");
        }
    }
}
