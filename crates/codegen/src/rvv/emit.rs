//! Machine code of a planned nest (see the module doc of [`super`] for the loop shape).
//!
//! Two phases: the strip code (straight-line, no labels) is emitted first into its own
//! [`Assembler`], creating the streams and constants it needs on the way; then the function
//! is assembled: prologue (constants, stream starts, range length), the full-strip loop and
//! the tail strip, each with a copy of the strip code. Every failure is `None`.
//!
//! The layers, each a module adding to the one [`Emitter`] state defined here:
//! - [`lmul`]: the search over register shapes ([`RegShape`]: widest element, LMUL,
//!   accumulator lanes), the hoisting of loop-invariant splats, spilling as the last resort;
//! - [`leaf`]: the leaf function at one register shape (arguments, strip, prologue, loops);
//! - [`select`]: instruction selection for the body's statements;
//! - [`accumulate`]: reductions and arg-reductions; [`scan`]: scans;
//! - [`streams`]: address streams and the scalar sums that start them;
//! - [`regalloc`]: vector register groups, temporaries, spills, scalar registers, constants;
//! - [`sleef`]: calls to SLEEF's vector math; [`convert`]: fp16/bf16 held as f32.

use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::Cell;

use tilec_rvv::*;
use tilec_vector::stride::{accumulation, stmt_bufs, stmt_reads, Class, Coef, Lin, Plan};
use tilec_vector::*;

use super::{erf, log, poly, Checked, Leaf, LeafArg, LeafCall};
use crate::scratch;

mod accumulate;
mod check;
mod convert;
mod cost;
mod leaf;
mod lmul;
mod regalloc;
mod scan;
mod select;
mod sleef;
mod streams;

use accumulate::*;
use convert::{is_half, register_scalar};
use cost::StripCost;
use leaf::{try_emit, Emitted};
use lmul::RegShape;
pub(in crate::rvv) use lmul::{emit, with_early_stores, with_single_reads};
use lmul::{Attempt, Progress};
use regalloc::*;
use sleef::*;
use streams::*;

/// Smallest `VLEN` (bits) the leaves run at (the `V` extension's minimum).
const MIN_VLEN: i64 = 128;

/// `vxrm`'s encoding of round-to-nearest-even.
const VXRM_RNE: u8 = 1;

/// Register bytes of a value of `elem` (`Some(0)` for `i1` masks; `None`: not vectorized).
fn width(elem: Elem) -> Option<u32> {
    match elem {
        Elem::Ptr(_) => Some(8),
        Elem::Scalar(s) => match s {
            ScalarType::I1 => Some(0),
            _ => Some(register_scalar(s).bytes()),
        },
    }
}

/// Bytes of one element in memory (a global pointee, or a scratch element of its
/// [`scratch::stored_scalar`] type); `i1` is a byte.
fn mem_bytes(s: ScalarType) -> Option<u32> {
    match s {
        ScalarType::I1 => Some(1),
        _ => Some(s.bytes()),
    }
}

fn scalar_of(elem: Elem) -> ScalarType {
    match elem {
        Elem::Scalar(s) => s,
        Elem::Ptr(_) => ScalarType::U64,
    }
}

fn sew(bytes: u32) -> Sew {
    Sew::from_bits(bytes * 8).expect("element widths are 1, 2, 4 or 8 bytes")
}

/// A scalar operand register or a vector operand.
#[derive(Clone, Copy)]
enum Opnd {
    V(VReg),
    X(XReg),
    F(FReg),
    Imm(i32),
}

impl Opnd {
    fn src(self) -> VSrc {
        match self {
            Opnd::V(v) => VSrc::V(v),
            Opnd::X(x) => VSrc::X(x),
            Opnd::F(f) => VSrc::F(f),
            Opnd::Imm(i) => VSrc::Imm(i),
        }
    }
}

struct Emitter<'a> {
    f: &'a Function,
    /// Zvfhmin's fp16 ⇄ fp32 conversions are available (see [`convert`]).
    fp16_conversions: bool,
    plan: &'a Plan,
    nest_body: &'a [Stmt],
    shape: RegShape,
    asm: Assembler,
    vused: [bool; 32],
    vals: FxHashMap<Var, VReg>,
    scalars: FxHashMap<Var, Opnd>,
    /// Live-ins of a leaf with calls still in their (caller-saved) argument registers: the
    /// strip has not read them (see [`Emitter::scalar`]).
    args_in_place: FxHashSet<Var>,
    /// Moves of arguments into callee-saved registers, (to, from), made by the prologue.
    arg_moves: Vec<(Opnd, Opnd)>,
    bufs: FxHashMap<Buf, XReg>,
    streams: Vec<Stream>,
    xpool: Vec<XReg>,
    fpool: Vec<FReg>,
    /// Integer constants loaded by the prologue.
    xconsts: Vec<(XReg, i64)>,
    /// Float constants (bits, is double) loaded by the prologue.
    fconsts: Vec<(FReg, u64, bool)>,
    vtype: VType,
    /// The mask register whose copy is in `v0`.
    v0: Option<VReg>,
    temps: Vec<(VReg, u32)>,
    /// Number of nest dims.
    dims: usize,
    row_accs: Vec<RowAcc>,
    /// The accumulator register (group) of each row accumulation, reserved before the strip
    /// is emitted.
    row_regs: FxHashMap<Buf, VReg>,
    /// Index of the body statement being emitted.
    at: usize,
    /// When the strip calls SLEEF: the callee-saved register holding `vl` across calls.
    call_vl: Option<XReg>,
    /// The strip rounds under `vxrm` = rne: the prologue sets it once (a leaf without calls;
    /// with calls, each use sets it, as a callee may change it).
    vxrm_rne: bool,
    /// Calls emitted in the strip: instruction index of the `auipc` and the symbol.
    calls: Vec<(usize, String)>,
    /// Tail-undisturbed policy (row accumulators keep their lanes past a short `vl`).
    tail_undisturbed: bool,
    /// Scans along the strip: the prefix register of each accumulator, until read back.
    scan_vals: FxHashMap<Buf, VReg>,
    row_args: Vec<RowArg>,
    /// Registers of each row arg-accumulation (by its values buffer), reserved before the
    /// strip is emitted.
    arg_regs: FxHashMap<Buf, ArgRegs>,
    /// Scalar scratch registers of the arg-accumulations' NaN resets.
    arg_scratch: Option<(XReg, XReg)>,
    /// A scalar register a statement of the strip may use and leave dead (taken from the
    /// pool on first use).
    strip_x: Option<XReg>,
    /// The float registers the full path of inline `exp` loads its own constants into.
    exp_full_f: Option<[FReg; 3]>,
    /// The scalar register inline `erf` keeps `vl` in (see [`Emitter::erf_vl_xreg`]).
    erf_vl: Option<XReg>,
    /// The register holding `vl - 1` in every strip, set before the full strips and before
    /// the tail (taken on first use, [`Emitter::last_lane_xreg`]).
    last_lane: Option<XReg>,
    /// Whether this attempt gives `vl - 1` a register.
    last_lane_allowed: bool,
    /// fp16 widenings start at 16 bits (see [`Attempt::widen_at_16`]).
    widen_at_16: bool,
    /// Integer live-ins left in their stack slots (see [`StackedUniforms`]).
    memory: Option<StackedUniforms>,
    /// Streams kept in memory when registers run out (attempts that allow it).
    stream_slots: Option<StreamSlots>,
    /// Values of the body the strip being emitted never reads (not computed).
    unused: FxHashSet<Var>,
    /// VLMAX at the base vtype (set by the prologue, constant afterwards).
    vlmax: XReg,
    /// Registers holding runtime stream steps in bytes (set by the prologue).
    step_regs: Vec<(Coef, XReg)>,
    /// Splats of uniform values held for the whole range: filled by the prologue, read by
    /// every strip (see [`Hoisted`]).
    hoisted: Vec<Hoisted>,
    /// Uniform values the strip splatted into temps (value, width), in first-use order:
    /// the candidates for hoisting in a second attempt.
    splatted: Vec<(Var, u32)>,
    /// Spilling, when this attempt may spill (only while the strip is emitted).
    spill: Option<Spill>,
    /// Bounds checks of global accesses, in a checked leaf.
    checks: Option<check::Checks<'a>>,
    /// The span of the statement being emitted (the site of its checked access).
    span: Option<tilec_diagnostics::Span>,
}

/// Integer live-ins that arrived on the stack and stay there (when the scalar registers
/// are too few for them): each read in the strip loads the value into one of two
/// temporaries, in turn (an instruction reads at most two scalars).
struct StackedUniforms {
    /// Each variable's offset from the stack pointer at entry.
    vars: FxHashMap<Var, i32>,
    /// The stack pointer at entry (set by the prologue).
    args: XReg,
    temps: [XReg; 2],
    next: usize,
}

impl Emitter<'_> {
    fn width_of(&self, v: Var) -> Option<u32> {
        width(self.f.ty(v))
    }
}
