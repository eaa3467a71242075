//! Machine code of a planned nest (see the module doc of [`super`] for the loop shape).
//!
//! Two phases: the strip code (straight-line, no labels) is emitted first into its own
//! [`Assembler`], creating the streams and constants it needs on the way; then the function
//! is assembled: prologue (constants, stream starts, range length), the full-strip loop and
//! the tail strip, each with a copy of the strip code. Every failure is `None`.

use std::collections::HashMap;

use tilec_rvv::*;
use tilec_vector::*;

use super::analysis::{accumulation, expr_reads, stmt_reads, Class, Coef, Lin, Plan};
use super::{poly, Leaf, LeafArg, LeafCall};

mod convert;
mod scan;

use convert::{is_half, register_scalar};

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

/// Bytes of one element in memory (global pointee, or scratch element of
/// [`register_scalar`] type); `i1` is a byte.
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

/// Where a stream starts: a live-in pointer, a scratch buffer, or nothing (a value stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Base {
    Var(Var),
    Buf(Buf),
    Value,
}

/// A scalar register walking `base + scale·lin` along the flat range.
#[derive(Clone, Debug)]
struct Stream {
    base: Base,
    lin: Lin,
    scale: i64,
    reg: XReg,
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

/// A row accumulation (`buf[index]` the same for the whole flat range): a register group
/// folds the strips lane by lane from `identity`; once the range is done the group is
/// reduced and combined with the element (see [`finish_row_acc`]).
struct RowAcc {
    /// The stream register holding the element's address (step 0).
    addr: XReg,
    w: u32,
    reg: VReg,
    lanes: AccLanes,
    identity: Opnd,
    /// For float max/min `vfredmax`/`vfredmin`: IEEE 754-2019 maximumNumber/minimumNumber
    /// over `vs1[0]` and the active elements, i.e. Triton's `maxnum`/`minnum` (a NaN loses;
    /// only NaNs give NaN), like the lane-wise `vfmax`/`vfmin`.
    reduction: VBinOp,
}

/// A row arg-accumulation (`vals[index]`, `idxs[index]` the same for the whole flat
/// range): each lane folds its elements into (`best`, `best_index`) groups with the
/// interpreter's rule (the new element replaces unless the best so far is `>=` it, `<=`
/// for argmin: so ties keep the earlier position and a NaN on either side replaces).
/// A strip holding a NaN at position J resets every lane to (NaN, J) first and folds only
/// its later lanes, as the sequential fold forgets everything before its last NaN. After
/// the range: the extreme of the non-NaN lanes with the smallest index among lanes equal
/// to it, or (NaN, J) when every lane is NaN (see [`finish_row_arg`]).
struct RowArg {
    vals_addr: XReg,
    idxs_addr: XReg,
    /// Value width (bytes) and type.
    w: u32,
    st: ScalarType,
    kind: ArgKind,
    best: VReg,
    best_index: VReg,
}

/// The registers reserved for a row arg-accumulation.
#[derive(Clone, Copy)]
struct ArgRegs {
    best: VReg,
    best_index: VReg,
}

/// The width (bytes) of arg-accumulation positions (`i32`).
const POSITION_BYTES: u32 = 4;

/// How a row accumulator holds its partial result across strips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AccLanes {
    /// A register group at the accumulator's width: strips fold in lane by lane, one
    /// reduction after the range.
    Group,
    /// Element 0 of one register: every strip is reduced into it (`vfredusum.vs acc, x,
    /// acc`), as cheap per strip as the lane-wise fold. Used when a group does not fit,
    /// so the data keep the largest LMUL.
    Single,
}

/// The lane-wise operation and the reduction of an accumulation over `st` (`None` for
/// products: there is no product reduction).
fn acc_ops(op: AccOp, st: ScalarType) -> Option<(VBinOp, Option<VBinOp>)> {
    let signed = st.is_signed_int();
    Some(if st.is_float() {
        match op {
            AccOp::Sum => (VBinOp::Fadd, Some(VBinOp::Fredusum)),
            AccOp::Prod => (VBinOp::Fmul, None),
            AccOp::Max => (VBinOp::Fmax, Some(VBinOp::Fredmax)),
            AccOp::Min => (VBinOp::Fmin, Some(VBinOp::Fredmin)),
            AccOp::Xor | AccOp::And | AccOp::Or => return None,
        }
    } else {
        match op {
            AccOp::Sum => (VBinOp::Add, Some(VBinOp::Redsum)),
            AccOp::Prod => (VBinOp::Mul, None),
            AccOp::Max if signed => (VBinOp::Max, Some(VBinOp::Redmax)),
            AccOp::Max => (VBinOp::Maxu, Some(VBinOp::Redmaxu)),
            AccOp::Min if signed => (VBinOp::Min, Some(VBinOp::Redmin)),
            AccOp::Min => (VBinOp::Minu, Some(VBinOp::Redminu)),
            AccOp::Xor => (VBinOp::Xor, Some(VBinOp::Redxor)),
            AccOp::And => (VBinOp::And, Some(VBinOp::Redand)),
            AccOp::Or => (VBinOp::Or, Some(VBinOp::Redor)),
        }
    })
}

/// SLEEF's name of a math function it provides (`None`: computed inline or not at all).
fn sleef_name(f: MathFn) -> Option<&'static str> {
    match f {
        MathFn::Sqrt | MathFn::Rsqrt | MathFn::Floor | MathFn::Ceil | MathFn::Trunc | MathFn::Round | MathFn::Rint => {
            None
        }
        // SLEEF has no Bessel functions: such nests stay scalar loops calling libm.
        MathFn::J0 | MathFn::J1 | MathFn::Y0 | MathFn::Y1 => None,
        _ => Some(f.c_name()),
    }
}

/// The accuracy suffix of SLEEF's most accurate variant of `name`: `u05` (0.5 ULP) for
/// `sinpi`, `cospi` and `hypot`, `u15` for `erfc` (its only one), else `u10` (1 ULP).
fn sleef_accuracy(name: &str) -> &'static str {
    match name {
        "sinpi" | "cospi" | "hypot" => "u05",
        "erfc" => "u15",
        _ => "u10",
    }
}

/// Whether `func` over `st` is computed by an inline polynomial ([`super::poly`]) rather
/// than a SLEEF call.
fn computed_inline(func: MathFn, st: ScalarType) -> bool {
    matches!(func, MathFn::Exp | MathFn::Exp2) && st == ScalarType::F32
}

/// Whether the nest body calls SLEEF (then the leaf keeps its state in callee-saved
/// registers and runs at LMUL 1).
fn calls_sleef(f: &Function, nest: &Nest) -> bool {
    nest.body.iter().any(|s| match s {
        Stmt::Assign { dst, expr: Expr::Math(func, _), .. } => {
            let st = f.ty(*dst).scalar();
            sleef_name(*func).is_some()
                && st.is_some_and(|s| s.is_float())
                && !st.is_some_and(|s| computed_inline(*func, s))
        }
        Stmt::Assign { dst, expr: Expr::Binary(BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot, _, _), .. } => {
            f.ty(*dst).scalar().is_some_and(|s| s.is_float())
        }
        _ => false,
    })
}

/// The quiet NaN (RISC-V's canonical NaN), as bits of a `w`-byte float.
fn canonical_nan(w: u32) -> i64 {
    if w == 8 {
        0x7ff8_0000_0000_0000
    } else {
        0x7fc0_0000
    }
}

struct Emitter<'a> {
    f: &'a Function,
    plan: &'a Plan,
    nest_body: &'a [Stmt],
    /// Registers of one group at the widest width.
    lmul_regs: u32,
    /// The widest register width (bytes).
    wide: u32,
    asm: Assembler,
    vused: [bool; 32],
    vals: HashMap<Var, VReg>,
    scalars: HashMap<Var, Opnd>,
    bufs: HashMap<Buf, XReg>,
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
    row_regs: HashMap<Buf, VReg>,
    /// Index of the body statement being emitted.
    at: usize,
    /// When the strip calls SLEEF: the callee-saved register holding `vl` across calls.
    call_vl: Option<XReg>,
    /// Calls emitted in the strip: instruction index of the `auipc` and the symbol.
    calls: Vec<(usize, String)>,
    /// Tail-undisturbed policy (row accumulators keep their lanes past a short `vl`).
    tail_undisturbed: bool,
    /// Scans along the strip: the prefix register of each accumulator, until read back.
    scan_vals: HashMap<Buf, VReg>,
    /// How row accumulators hold their partial results.
    acc_lanes: AccLanes,
    row_args: Vec<RowArg>,
    /// Registers of each row arg-accumulation (by its values buffer), reserved before the
    /// strip is emitted.
    arg_regs: HashMap<Buf, ArgRegs>,
    /// Scalar scratch registers of the arg-accumulations' NaN resets.
    arg_scratch: Option<(XReg, XReg)>,
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
}

/// Values spilled by the strip: when no register group is free, the value held in
/// registers whose next use is farthest (and that the statement being emitted does not
/// read) is stored with a whole-register store to its stack slot, and reloaded with a
/// whole-register load before its next use. Slot `k` is at `sp + k·vlenb`, in an area
/// of `size` registers below the leaf's frame (vlenb is a multiple of 16: `sp` stays
/// aligned). A value is assigned once, so a value spilled again keeps its slot and needs no
/// second store.
struct Spill {
    /// `vlenb` (set by the prologue, constant afterwards).
    vlenb: XReg,
    /// Scratch register for slot addresses.
    addr: XReg,
    slots: HashMap<Var, u32>,
    /// Registers' worth of slots in the area.
    size: u32,
}

/// `sp + slot·vlenb` in `addr` (slot 0: `sp` itself, no instruction); the base register.
fn slot_address(out: &mut Assembler, addr: XReg, vlenb: XReg, slot: u32) -> XReg {
    match slot {
        0 => return XReg::SP,
        1 => out.mv(addr, vlenb),
        k if k.is_power_of_two() => out.slli(addr, vlenb, k.trailing_zeros() as i32),
        k => {
            out.li(addr, k as i64);
            out.mul(addr, addr, vlenb);
        }
    }
    out.add(addr, addr, XReg::SP);
    addr
}

/// A loop-invariant splat: `reg` (a group at width `w`) holds `src` in every lane from
/// the prologue on; nothing in the strip writes it.
struct Hoisted {
    var: Var,
    w: u32,
    reg: VReg,
    src: Opnd,
}

impl<'a> Emitter<'a> {
    fn base_vtype(&self) -> VType {
        self.vtype_for(self.wide)
    }

    fn vtype_for(&self, w: u32) -> VType {
        let w = w.max(1);
        let num = self.lmul_regs * w;
        let lmul = if num >= self.wide {
            match num / self.wide {
                1 => Lmul::M1,
                2 => Lmul::M2,
                4 => Lmul::M4,
                _ => Lmul::M8,
            }
        } else {
            match self.wide / num {
                2 => Lmul::Mf2,
                4 => Lmul::Mf4,
                _ => Lmul::Mf8,
            }
        };
        let vt = VType::new(sew(w), lmul).mask_undisturbed();
        if self.tail_undisturbed {
            vt.tail_undisturbed()
        } else {
            vt
        }
    }

    fn group(&self, w: u32) -> u32 {
        (self.lmul_regs * w / self.wide).max(1)
    }

    fn set_width(&mut self, w: u32) {
        let vt = self.vtype_for(w);
        if vt != self.vtype {
            self.asm.vsetvli(XReg::ZERO, XReg::ZERO, vt);
            self.vtype = vt;
        }
    }

    fn alloc_v(&mut self, w: u32) -> Option<VReg> {
        if w > self.wide {
            return None;
        }
        let g = if w == 0 { 1 } else { self.group(w) } as usize;
        loop {
            if let Some(start) = (g..32).step_by(g).find(|&s| self.vused[s..s + g].iter().all(|u| !u)) {
                self.vused[start..start + g].iter_mut().for_each(|u| *u = true);
                return VReg::new(start as u8);
            }
            self.spill_one()?;
        }
    }

    /// Frees the registers of one value (see [`Spill`]); `None` when this attempt does not
    /// spill or no value may be spilled.
    fn spill_one(&mut self) -> Option<()> {
        self.spill.as_ref()?;
        let reads = stmt_reads(&self.nest_body[self.at])?;
        let next_use = |v: Var| {
            (self.at + 1..self.nest_body.len())
                .find(|&i| stmt_reads(&self.nest_body[i]).is_none_or(|r| r.contains(&v)))
                .unwrap_or(usize::MAX)
        };
        let (&victim, &reg) =
            self.vals.iter().filter(|(v, _)| !reads.contains(v)).max_by_key(|&(v, r)| (next_use(*v), r.num()))?;
        let w = self.width_of(victim)?;
        let g = if w == 0 { 1 } else { self.group(w) };
        let spill = self.spill.as_mut()?;
        if !spill.slots.contains_key(&victim) {
            let slot = spill.size;
            spill.size += g;
            spill.slots.insert(victim, slot);
            let (vlenb, addr) = (spill.vlenb, spill.addr);
            let base = slot_address(&mut self.asm, addr, vlenb, slot);
            self.asm.vstore_whole(g as u8, reg, base);
        }
        self.vals.remove(&victim);
        self.free_v(reg, w);
        Some(())
    }

    /// Spilled value `v` back in registers (a whole-register load from its slot).
    fn reload(&mut self, v: Var) -> Option<VReg> {
        let slot = *self.spill.as_ref()?.slots.get(&v)?;
        let w = self.width_of(v)?;
        let r = self.alloc_v(w)?;
        let g = if w == 0 { 1 } else { self.group(w) };
        let spill = self.spill.as_ref()?;
        let base = slot_address(&mut self.asm, spill.addr, spill.vlenb, slot);
        self.asm.vload_whole(g as u8, sew(w.max(1)), r, base);
        self.vals.insert(v, r);
        Some(r)
    }

    fn free_v(&mut self, v: VReg, w: u32) {
        let g = if w == 0 { 1 } else { self.group(w) } as usize;
        let s = v.num() as usize;
        self.vused[s..s + g].iter_mut().for_each(|u| *u = false);
        if self.v0 == Some(v) {
            self.v0 = None;
        }
    }

    /// The register for the result (width `w > 0`) of the statement being emitted: the
    /// register of the first of `srcs` that holds a value of width `w` whose last use is
    /// this statement (it then belongs to the result), else a fresh one. The caller's
    /// instructions must read such a source no later than the instruction that first
    /// writes the result.
    fn alloc_result(&mut self, w: u32, srcs: &[VReg]) -> Option<VReg> {
        if w > 0 {
            for &r in srcs {
                let dying = self.vals.iter().find(|&(v, &reg)| {
                    reg == r && self.width_of(*v) == Some(w) && self.plan.last_use.get(v).is_none_or(|&l| l <= self.at)
                });
                if let Some((&v, _)) = dying {
                    self.vals.remove(&v);
                    return Some(r);
                }
            }
        }
        self.alloc_v(w)
    }

    fn temp(&mut self, w: u32) -> Option<VReg> {
        let v = self.alloc_v(w)?;
        self.temps.push((v, w));
        Some(v)
    }

    fn free_temps(&mut self) {
        for (v, w) in std::mem::take(&mut self.temps) {
            self.free_v(v, w);
        }
    }

    fn xreg(&mut self) -> Option<XReg> {
        self.xpool.pop()
    }

    fn xconst(&mut self, value: i64) -> Option<XReg> {
        if value == 0 {
            return Some(XReg::ZERO);
        }
        if let Some(&(r, _)) = self.xconsts.iter().find(|(_, v)| *v == value) {
            return Some(r);
        }
        let r = self.xreg()?;
        self.xconsts.push((r, value));
        Some(r)
    }

    fn fconst(&mut self, bits: u64, double: bool) -> Option<FReg> {
        if let Some(&(r, _, _)) = self.fconsts.iter().find(|(_, b, d)| *b == bits && *d == double) {
            return Some(r);
        }
        let r = self.fpool.pop()?;
        self.fconsts.push((r, bits, double));
        Some(r)
    }

    fn width_of(&self, v: Var) -> Option<u32> {
        width(self.f.ty(v))
    }

    fn stream(&mut self, base: Base, lin: &Lin, scale: i64) -> Option<usize> {
        if let Some(i) = self.streams.iter().position(|s| s.base == base && s.lin == *lin && s.scale == scale) {
            return Some(i);
        }
        let reg = match self.base_to_walk(base, lin) {
            Some(r) => r,
            None => self.xreg()?,
        };
        self.streams.push(Stream { base, lin: lin.clone(), scale, reg });
        Some(self.streams.len() - 1)
    }

    /// The argument register of `base` when a stream starting exactly at `base` may walk
    /// it in place: no outer loop restarts the stream, no call moves the arguments, no
    /// other stream walks it, and nothing else reads it (a scratch address, or a pointer
    /// read only to form streams).
    fn base_to_walk(&self, base: Base, lin: &Lin) -> Option<XReg> {
        let starts_at_base = lin.uniform_part_is_constant() && lin.offset == 0;
        if !starts_at_base || !self.plan.outer.is_empty() || self.call_vl.is_some() {
            return None;
        }
        let reg = match base {
            Base::Buf(b) => *self.bufs.get(&b)?,
            Base::Var(v) if self.only_stream_base(v) => match self.scalars.get(&v)? {
                Opnd::X(r) if self.plan.live_in.contains(&v) => *r,
                _ => return None,
            },
            _ => return None,
        };
        (!self.streams.iter().any(|s| s.reg == reg)).then_some(reg)
    }

    /// Whether every read of `v` in the body is as the pointer of an `addptr` that makes
    /// a stream.
    fn only_stream_base(&self, v: Var) -> bool {
        self.nest_body.iter().all(|s| match s {
            Stmt::Assign { dst, expr: Expr::AddPtr { ptr, offset }, .. } if *ptr == v && *offset != v => {
                matches!(self.plan.classes.get(dst), Some(Class::PtrLin { .. }))
            }
            s => stmt_reads(s).is_some_and(|reads| !reads.contains(&v)),
        })
    }

    fn step(&self, s: &Stream) -> Coef {
        self.plan.flat_coef(&s.lin).scaled(s.scale)
    }

    /// A register holding `step` (a constant, or a runtime step computed by the prologue).
    fn step_reg(&mut self, step: &Coef) -> Option<XReg> {
        if let Some(c) = step.constant() {
            return self.xconst(c);
        }
        if let Some((_, r)) = self.step_regs.iter().find(|(c, _)| c == step) {
            return Some(*r);
        }
        let r = self.xreg()?;
        self.step_regs.push((step.clone(), r));
        Some(r)
    }

    /// Element `lane` of a value stream as a vector: `cur + step·vid`.
    fn materialize_stream(&mut self, base: Base, lin: &Lin, scale: i64, w: u32) -> Option<VReg> {
        let i = self.stream(base, lin, scale)?;
        let (reg, step) = (self.streams[i].reg, self.step(&self.streams[i].clone()));
        let t = self.temp(w)?;
        self.set_width(w);
        let Some(step) = step.constant() else {
            let k = self.step_reg(&step)?;
            self.set_width(w);
            self.asm.vid(t, Mask::Unmasked);
            self.asm.vop(VBinOp::Mul, t, t, k, Mask::Unmasked);
            self.asm.vop(VBinOp::Add, t, t, reg, Mask::Unmasked);
            return Some(t);
        };
        if step == 0 {
            self.asm.vmv(t, reg);
            return Some(t);
        }
        self.asm.vid(t, Mask::Unmasked);
        if step != 1 {
            if step > 0 && (step as u64).is_power_of_two() {
                self.asm.vop(VBinOp::Sll, t, t, step.trailing_zeros() as i32, Mask::Unmasked);
            } else {
                let k = self.xconst(step)?;
                self.asm.vop(VBinOp::Mul, t, t, k, Mask::Unmasked);
            }
        }
        self.asm.vop(VBinOp::Add, t, t, reg, Mask::Unmasked);
        Some(t)
    }

    /// The operand for reading `v` (materialized into a temp when needed).
    fn operand(&mut self, v: Var) -> Option<Opnd> {
        match self.plan.classes.get(&v)? {
            Class::Uniform => match self.scalars.get(&v) {
                Some(&op) => Some(op),
                None => {
                    let c = *self.plan.live_constants.get(&v)?;
                    let op = self.constant(self.f.ty(v), c)?;
                    self.scalars.insert(v, op);
                    Some(op)
                }
            },
            Class::Vector => match self.vals.get(&v) {
                Some(&r) => Some(Opnd::V(r)),
                None => self.reload(v).map(Opnd::V),
            },
            Class::Lin(lin) => {
                let lin = lin.clone();
                let w = self.width_of(v)?;
                self.materialize_stream(Base::Value, &lin, 1, w).map(Opnd::V)
            }
            Class::PtrLin { base, off, bytes } => {
                let (base, off, bytes) = (*base, off.clone(), *bytes);
                self.materialize_stream(Base::Var(base), &off, bytes, 8).map(Opnd::V)
            }
            Class::AllTrue => {
                let t = self.temp(0)?;
                self.asm.vop(VBinOp::Mxnor, t, t, t, Mask::Unmasked);
                Some(Opnd::V(t))
            }
        }
    }

    /// The scalar operand of uniform `v` before the strip runs: a live-in, a live-in
    /// constant or a constant assigned in the body (`None` for other uniforms).
    fn uniform_source(&mut self, v: Var) -> Option<Opnd> {
        if let Some(&op) = self.scalars.get(&v) {
            return Some(op);
        }
        let c = match self.plan.live_constants.get(&v) {
            Some(c) => *c,
            None => self.nest_body.iter().find_map(|s| match s {
                Stmt::Assign { dst, expr: Expr::Const(c), .. } if *dst == v => Some(*c),
                _ => None,
            })?,
        };
        self.constant(self.f.ty(v), c)
    }

    /// The integer constant value of uniform `v`, if it is one.
    fn int_constant(&self, v: Var) -> Option<i64> {
        match self.plan.live_constants.get(&v)? {
            Constant::Int(i) if !self.f.ty(v).scalar()?.is_float() => Some(*i),
            Constant::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }

    /// `v` as an operand, as a 5-bit immediate when it is a constant that `fits`.
    fn operand_imm(&mut self, v: Var, fits: impl Fn(i64) -> bool) -> Option<Opnd> {
        match self.int_constant(v) {
            Some(i) if fits(i) => Some(Opnd::Imm(i as i32)),
            _ => self.operand(v),
        }
    }

    /// `v` as a vector register (scalars splat at width `w`).
    fn vector(&mut self, v: Var, w: u32) -> Option<VReg> {
        if let Some(h) = self.hoisted.iter().find(|h| h.var == v && h.w == w) {
            return Some(h.reg);
        }
        match self.operand(v)? {
            Opnd::V(r) => Some(r),
            s => {
                if self.plan.classes.get(&v) == Some(&Class::Uniform) && !self.splatted.contains(&(v, w)) {
                    self.splatted.push((v, w));
                }
                let t = self.temp(w)?;
                self.set_width(w);
                self.asm.vmv(t, s.src());
                Some(t)
            }
        }
    }

    /// A mask register for the `i1` variable `v` (`None` operand: unmasked).
    fn mask_reg(&mut self, v: Var) -> Option<VReg> {
        match self.operand(v)? {
            Opnd::V(r) => Some(r),
            _ => None,
        }
    }

    /// Puts mask `m` into `v0`.
    fn put_in_v0(&mut self, m: VReg) {
        if self.v0 != Some(m) {
            self.asm.vop(VBinOp::Mand, VReg::V0, m, m, Mask::Unmasked);
            self.v0 = Some(m);
        }
    }

    /// The mask under which a memory access runs: `Unmasked` or `v0` holding it.
    fn access_mask(&mut self, mask: Option<Var>) -> Option<Mask> {
        let Some(m) = mask else { return Some(Mask::Unmasked) };
        if self.plan.classes.get(&m) == Some(&Class::AllTrue) {
            return Some(Mask::Unmasked);
        }
        let r = self.mask_reg(m)?;
        self.put_in_v0(r);
        Some(Mask::V0)
    }

    /// Address mode and base register of the access through pointer variable `ptr`.
    fn global_access(&mut self, ptr: Var) -> Option<(VMemMode, XReg)> {
        match self.plan.classes.get(&ptr)?.clone() {
            Class::PtrLin { base, off, bytes } => {
                let i = self.stream(Base::Var(base), &off, bytes)?;
                self.stream_access(i, bytes)
            }
            Class::Vector | Class::Uniform => {
                let index = self.vector(ptr, 8)?;
                Some((VMemMode::Indexed { index, ordered: false }, XReg::ZERO))
            }
            _ => None,
        }
    }

    fn stream_access(&mut self, i: usize, bytes: i64) -> Option<(VMemMode, XReg)> {
        let s = self.streams[i].clone();
        let step = self.step(&s);
        if step.constant() == Some(bytes) {
            Some((VMemMode::UnitStride, s.reg))
        } else {
            let stride = self.step_reg(&step)?;
            Some((VMemMode::Strided(stride), s.reg))
        }
    }

    fn scratch_access(&mut self, buf: Buf, index: &Affine) -> Option<(VMemMode, XReg, ScalarType)> {
        let elem = self.f.bufs[buf].elem;
        let st = register_scalar(scalar_of(elem));
        let bytes = crate::kernel::reg_type(elem).bytes() as i64;
        let lin = Lin::affine(index, self.dims);
        let i = self.stream(Base::Buf(buf), &lin, bytes)?;
        let (mode, reg) = self.stream_access(i, bytes)?;
        Some((mode, reg, st))
    }

    /// Loads elements of `st` into a fresh value register (masks for `i1`).
    fn load(&mut self, mode: VMemMode, base: XReg, st: ScalarType, mask: Mask, other: Option<Var>) -> Option<VReg> {
        if is_half(st) {
            return self.load_half(mode, base, st, mask, other);
        }
        let mb = mem_bytes(st)?;
        let eew_of = |mode: VMemMode| match mode {
            VMemMode::Indexed { .. } => Sew::E64,
            _ => sew(mb),
        };
        if st.is_bool() {
            let bytes = self.temp(1)?;
            self.set_width(1);
            if mask == Mask::V0 {
                self.asm.vmv(bytes, 0);
            }
            self.asm.vload(eew_of(mode), mode, bytes, base, mask);
            let d = self.alloc_v(0)?;
            self.asm.vop(VBinOp::Msne, d, bytes, 0, Mask::Unmasked);
            return Some(d);
        }
        let d = self.alloc_v(mb)?;
        self.set_width(mb);
        if mask == Mask::V0 {
            match other {
                Some(o) => {
                    let src = self.operand_imm(o, |i| (-16..16).contains(&i))?;
                    self.set_width(mb);
                    self.asm.vmv(d, src.src());
                }
                None => self.asm.vmv(d, 0),
            }
        }
        self.asm.vload(eew_of(mode), mode, d, base, mask);
        Some(d)
    }

    fn store(&mut self, mode: VMemMode, base: XReg, st: ScalarType, value: Var, mask: Mask) -> Option<()> {
        let mb = mem_bytes(st)?;
        let eew = match mode {
            VMemMode::Indexed { .. } => Sew::E64,
            _ => sew(mb),
        };
        if st.is_bool() {
            let m = self.mask_reg(value)?;
            let saved = self.v0;
            let bytes = self.temp(1)?;
            self.set_width(1);
            self.asm.vmv(bytes, 0);
            // The value mask goes to v0 for the merge; the access mask (if any) after it.
            let access = if mask == Mask::V0 { saved } else { None };
            self.put_in_v0(m);
            self.asm.vop(VBinOp::Merge, bytes, bytes, 1, Mask::V0);
            if let Some(a) = access {
                self.put_in_v0(a);
            }
            self.asm.vstore(eew, mode, bytes, base, mask);
            return Some(());
        }
        let v = self.vector(value, mb)?;
        self.set_width(mb);
        self.asm.vstore(eew, mode, v, base, mask);
        Some(())
    }

    fn stmt(&mut self, s: &Stmt) -> Option<()> {
        match s {
            Stmt::Assign { dst, expr, .. } => {
                if self.plan.classes.get(dst) == Some(&Class::Vector) {
                    let r = self.expr_rounded(*dst, expr)?;
                    self.vals.insert(*dst, r);
                    if let Some(spill) = &mut self.spill {
                        spill.slots.remove(dst);
                    }
                } else if let (Class::Uniform, Expr::Const(c)) = (&self.plan.classes[dst], expr) {
                    let op = self.constant(self.f.ty(*dst), *c)?;
                    self.scalars.insert(*dst, op);
                } else if let Expr::Copy(src) = expr {
                    if let Some(&op) = self.scalars.get(src) {
                        self.scalars.insert(*dst, op);
                    }
                }
            }
            Stmt::Store { ptr, value, mask, .. } => {
                let st = self.f.ty(*ptr).pointee()?;
                if is_half(st) {
                    return self.store_half(*ptr, st, *value, *mask);
                }
                let (mode, base) = self.global_access(*ptr)?;
                let mask = self.access_mask(*mask)?;
                self.store(mode, base, st, *value, mask)?;
            }
            Stmt::StoreScratch { buf, index, value } => {
                let (mode, base, st) = self.scratch_access(*buf, index)?;
                self.store(mode, base, st, *value, Mask::Unmasked)?;
            }
            Stmt::Accumulate { buf, index, op, value } => self.accumulate(*buf, index, *op, *value)?,
            Stmt::AccumulateWith { .. } => self.accumulate_with(s)?,
            Stmt::AccumulateArg { vals, idxs, index, kind, value, position } => {
                self.accumulate_arg(*vals, *idxs, index, *kind, *value, *position)?
            }
            _ => return None,
        }
        Some(())
    }

    /// `buf[index] = op(buf[index], value)` over the strip: a row accumulation when the
    /// element is the same for the whole flat range, else (distinct elements per lane) a
    /// lane-wise read-modify-write in the scalar path's order.
    fn accumulate(&mut self, buf: Buf, index: &Affine, op: AccOp, value: Var) -> Option<()> {
        let st = scalar_of(self.f.bufs[buf].elem);
        if st.is_bool() || is_half(st) || self.width_of(value)? != mem_bytes(st)? {
            return None;
        }
        let w = mem_bytes(st)?;
        let (lanewise, reduction) = acc_ops(op, st)?;
        let row = self.row_regs.get(&buf).copied();
        if row.is_none() && self.plan.scans.contains(&buf) {
            let mut strides = index.strides.clone();
            strides.resize(self.dims, 0);
            if self.plan.flat_stride(&strides) == 0 {
                return self.scan_along_strip(buf, index, op, value);
            }
        }
        let lanes = self.acc_lanes;
        let (mode, base, _) = self.scratch_access(buf, index)?;
        let x = self.vector(value, w)?;
        let u = Mask::Unmasked;
        if let Some(reg) = row {
            let identity = self.identity(op, st)?;
            let reduction = reduction?;
            self.row_accs.push(RowAcc { addr: base, w, reg, lanes, identity, reduction });
            self.set_width(w);
            match lanes {
                AccLanes::Group => self.asm.vop(lanewise, reg, reg, x, u),
                AccLanes::Single => self.asm.vop(reduction, reg, x, reg, u),
            }
            return Some(());
        }
        let old = self.load(mode, base, st, u, None)?;
        self.set_width(w);
        self.asm.vop(lanewise, old, old, x, u);
        self.asm.vstore(sew(w), mode, old, base, u);
        self.free_v(old, w);
        Some(())
    }

    /// The mask (written to `v0`) of the lanes that keep their best so far against `x`:
    /// `best >= x` (`<=` for argmin), false when either is NaN.
    fn keep_mask(&mut self, kind: ArgKind, st: ScalarType, best: VReg, x: VReg) {
        let op = match (st.is_float(), st.is_signed_int()) {
            (true, _) => VBinOp::Mfle,
            (false, true) => VBinOp::Msle,
            (false, false) => VBinOp::Msleu,
        };
        let (lo, hi) = if kind == ArgKind::Max { (x, best) } else { (best, x) };
        self.asm.vop(op, VReg::V0, lo, hi, Mask::Unmasked);
        self.v0 = None;
    }

    /// Emits the instructions `block` adds to the strip into a separate list (the vtype
    /// the block leaves is restored to the one it started with).
    fn side_block(&mut self, block: impl FnOnce(&mut Self) -> Option<()>) -> Option<Vec<Inst>> {
        let vt = self.vtype;
        let outer = std::mem::replace(&mut self.asm, Assembler::new());
        let done = block(self);
        if self.vtype != vt {
            self.asm.vsetvli(XReg::ZERO, XReg::ZERO, vt);
            self.vtype = vt;
        }
        let side = std::mem::replace(&mut self.asm, outer);
        done?;
        Some(side.insts().to_vec())
    }

    /// `AccumulateArg` over the strip: row (vector accumulators, see [`RowArg`]) or, when
    /// each lane has its own element, a lane-wise read-compare-merge-write.
    fn accumulate_arg(
        &mut self,
        vals: Buf,
        idxs: Buf,
        index: &Affine,
        kind: ArgKind,
        value: Var,
        position: Var,
    ) -> Option<()> {
        let st = scalar_of(self.f.bufs[vals].elem);
        let w = mem_bytes(st)?;
        if st.is_bool() || self.width_of(value)? != w || self.f.bufs[idxs].elem != Elem::Scalar(ScalarType::I32) {
            return None;
        }
        if self.width_of(position)? != POSITION_BYTES {
            return None;
        }
        let (mode, vals_addr, _) = self.scratch_access(vals, index)?;
        let (imode, idxs_addr, _) = self.scratch_access(idxs, index)?;
        let x = self.vector(value, w)?;
        let p = self.vector(position, POSITION_BYTES)?;
        let u = Mask::Unmasked;
        let Some(regs) = self.arg_regs.get(&vals).copied() else {
            // Lane-wise: this lane's element, read, merged and written back.
            let best = self.load(mode, vals_addr, st, u, None)?;
            let best_index = self.load(imode, idxs_addr, ScalarType::I32, u, None)?;
            self.set_width(w);
            self.keep_mask(kind, st, best, x);
            self.asm.vop(VBinOp::Merge, best, x, best, Mask::V0);
            self.set_width(POSITION_BYTES);
            self.asm.vop(VBinOp::Merge, best_index, p, best_index, Mask::V0);
            self.asm.vstore(Sew::E32, imode, best_index, idxs_addr, u);
            self.set_width(w);
            self.asm.vstore(sew(w), mode, best, vals_addr, u);
            self.free_v(best, w);
            self.free_v(best_index, POSITION_BYTES);
            return Some(());
        };
        // Positions must grow with the lane (the reset keeps the lanes after the last NaN).
        let Some(Class::Lin(pos)) = self.plan.classes.get(&position) else { return None };
        if self.call_vl.is_some() || self.plan.flat_coef(pos).constant().is_none_or(|c| c <= 0) {
            return None;
        }
        let ArgRegs { best, best_index } = regs;
        self.row_args.push(RowArg { vals_addr, idxs_addr, w, st, kind, best, best_index });
        self.set_width(w);
        let merge = |e: &mut Self| {
            e.keep_mask(kind, st, best, x);
            e.asm.vop(VBinOp::Merge, best, x, best, Mask::V0);
            e.set_width(POSITION_BYTES);
            e.asm.vop(VBinOp::Merge, best_index, p, best_index, Mask::V0);
            Some(())
        };
        if !st.is_float() {
            return merge(self);
        }
        let nan = self.temp(0)?;
        let red = self.temp(0)?;
        // The NaN count, then J; the strip's `vl` (shared by every row arg-accumulation).
        let (last, vl) = match self.arg_scratch {
            Some(regs) => regs,
            None => (self.xreg()?, self.xreg()?),
        };
        self.arg_scratch = Some((last, vl));
        let (count, vlmax) = (last, self.vlmax);
        let nan_bits = self.xconst(canonical_nan(w))?;
        self.asm.vop(VBinOp::Mfne, nan, x, x, u);
        self.asm.push(Inst::VMaskScalar { op: VMaskScalarOp::Cpop, rd: count, vs2: nan, mask: u });
        let vt_w = self.vtype_for(w);
        let vt_p = self.vtype_for(POSITION_BYTES);
        let reset = self.side_block(|e| {
            // J = the last NaN's position; every lane (to VLMAX) becomes (NaN, J); the
            // strip's lanes after J take their element.
            e.put_in_v0(nan);
            e.set_width(POSITION_BYTES);
            e.asm.push(Inst::VMvSX { vd: red, rs1: XReg::ZERO });
            e.asm.vop(VBinOp::Redmaxu, red, p, red, Mask::V0);
            e.asm.push(Inst::VMvXS { rd: last, vs2: red });
            e.asm.csrr(vl, Csr::VL);
            e.asm.vsetvli(XReg::ZERO, vlmax, vt_p);
            e.asm.vmv(best_index, last);
            e.asm.vsetvli(XReg::ZERO, XReg::ZERO, vt_w);
            e.asm.vmv(best, nan_bits);
            e.asm.vsetvli(XReg::ZERO, vl, vt_p);
            e.vtype = vt_p;
            e.asm.vop(VBinOp::Msgtu, VReg::V0, p, last, u);
            e.v0 = None;
            e.asm.vop(VBinOp::Merge, best_index, best_index, p, Mask::V0);
            e.set_width(w);
            e.asm.vop(VBinOp::Merge, best, best, x, Mask::V0);
            Some(())
        })?;
        let fold = self.side_block(merge)?;
        // beqz count, fold; reset; j end; fold; end:
        let bytes = |n: usize| (n as i32 + 1) * 4;
        let to_fold = Target::Offset(bytes(reset.len() + 1));
        self.asm.push(Inst::Branch { cond: BranchCond::Eq, rs1: count, rs2: XReg::ZERO, target: to_fold });
        reset.into_iter().for_each(|i| self.asm.push(i));
        self.asm.push(Inst::Jal { rd: XReg::ZERO, target: Target::Offset(bytes(fold.len())) });
        fold.into_iter().for_each(|i| self.asm.push(i));
        self.v0 = None;
        Some(())
    }

    /// `Sleef_<name>{f,d}x_u10rvvm1(args)`: arguments in `v8`, `v9`, result in `v8`, at
    /// VLMAX of e32/e64 m1 (the strip runs at LMUL 1 when it calls, see [`emit`]). Every
    /// vector register in use is saved around the call in the stack area below `sp`
    /// (register r at `sp + r·vlenb`) with whole-register stores; `vl` is kept in a
    /// callee-saved register and `vtype` restored after the call.
    fn call_sleef(&mut self, name: &str, args: &[Var], w: u32) -> Option<VReg> {
        let vl_reg = self.call_vl?;
        if self.group(w) != 1 || !(w == 4 || w == 8) {
            return None;
        }
        let symbol = format!("Sleef_{name}{}x_{}rvvm1", if w == 8 { "d" } else { "f" }, sleef_accuracy(name));
        let xs = args.iter().map(|&a| self.vector(a, w)).collect::<Option<Vec<VReg>>>()?;
        let d = self.alloc_v(w)?;
        // Saved: registers in use except the result, this statement's temps and values whose
        // last use is this statement (the arguments, usually).
        let mut dead: Vec<u8> = vec![d.num()];
        for (reg, w) in &self.temps {
            dead.extend((0..self.group(*w).max(1) as u8).map(|k| reg.num() + k));
        }
        for (v, reg) in &self.vals {
            if self.plan.last_use.get(v).is_none_or(|&l| l <= self.at) {
                let g = self.width_of(*v).map_or(1, |w| self.group(w).max(1)) as u8;
                dead.extend((0..g).map(|k| reg.num() + k));
            }
        }
        let spilled: Vec<u8> = (1..32u8).filter(|&r| self.vused[r as usize] && !dead.contains(&r)).collect();
        let (vlenb, addr) = (XReg::T0, XReg::T1);
        self.asm.csrr(vl_reg, Csr::VL);
        self.asm.csrr(vlenb, Csr::VLENB);
        for &r in &spilled {
            let base = slot_address(&mut self.asm, addr, vlenb, r as u32);
            self.asm.vstore_whole(1, VReg::new(r)?, base);
        }
        let arg_regs = [VReg::new(8)?, VReg::new(9)?];
        if xs.len() == 2 && xs[0] == arg_regs[1] && xs[1] == arg_regs[0] {
            return None;
        }
        // The second argument first when the first would overwrite it.
        let mut moves: Vec<(VReg, VReg)> = xs.iter().copied().zip(arg_regs).map(|(x, a)| (a, x)).collect();
        if moves.len() == 2 && moves[1].1 == arg_regs[0] {
            moves.swap(0, 1);
        }
        for (to, from) in moves {
            if to != from {
                self.asm.vmv_whole(1, to, from);
            }
        }
        self.calls.push((self.asm.insts().len(), symbol));
        self.asm.push(Inst::Auipc { rd: XReg::RA, imm20: 0 });
        self.asm.jalr(XReg::RA, XReg::RA, 0);
        if d != arg_regs[0] {
            self.asm.vmv_whole(1, d, arg_regs[0]);
        }
        self.asm.csrr(vlenb, Csr::VLENB);
        for &r in &spilled {
            let base = slot_address(&mut self.asm, addr, vlenb, r as u32);
            self.asm.vload_whole(1, Sew::E8, VReg::new(r)?, base);
        }
        self.asm.vsetvli(XReg::ZERO, vl_reg, self.vtype);
        // `v0` was not saved: the mask it held is reloaded from its own register.
        self.v0 = None;
        Some(d)
    }

    /// The identity element of `op` over `st` as a splat source.
    fn identity(&mut self, op: AccOp, st: ScalarType) -> Option<Opnd> {
        if st.is_float() {
            let x = match op {
                AccOp::Sum => -0.0,
                AccOp::Prod => 1.0,
                // `vfmax`/`vfmin` are `maxnum`/`minnum`, whose neutral element is NaN (see
                // `tilec_vector`'s accumulator identities).
                AccOp::Max | AccOp::Min => f64::NAN,
                _ => return None,
            };
            return self.constant(Elem::Scalar(st), Constant::Float(x));
        }
        let bits = st.bytes() * 8;
        let (smin, smax) = (i64::MIN >> (64 - bits), i64::MAX >> (64 - bits));
        let value = match op {
            AccOp::Sum | AccOp::Xor | AccOp::Or => 0,
            AccOp::Prod => 1,
            AccOp::And => -1,
            AccOp::Max if st.is_signed_int() => smin,
            AccOp::Max => 0,
            AccOp::Min if st.is_signed_int() => smax,
            AccOp::Min => -1,
        };
        Some(if (-16..16).contains(&value) { Opnd::Imm(value as i32) } else { Opnd::X(self.xconst(value)?) })
    }

    fn constant(&mut self, elem: Elem, c: Constant) -> Option<Opnd> {
        let st = scalar_of(elem);
        let as_f64 = match c {
            Constant::Int(i) => i as f64,
            Constant::Float(x) => x,
            Constant::Bool(b) => b as i64 as f64,
        };
        Some(match st {
            ScalarType::F32 => Opnd::F(self.fconst((as_f64 as f32).to_bits() as u64, false)?),
            ScalarType::F64 => Opnd::F(self.fconst(as_f64.to_bits(), true)?),
            ScalarType::F16 | ScalarType::BF16 => Opnd::F(self.fconst(convert::half_constant_bits(st, as_f64), false)?),
            _ => {
                let bits = match c {
                    Constant::Int(i) => i,
                    Constant::Float(x) => x as i64,
                    Constant::Bool(b) => b as i64,
                };
                let bits = if st.is_bool() { bits & 1 } else { bits };
                Opnd::X(self.xconst(bits)?)
            }
        })
    }

    fn expr(&mut self, dst: Var, e: &Expr) -> Option<VReg> {
        let dst_elem = self.f.ty(dst);
        let dw = width(dst_elem)?;
        let st = scalar_of(dst_elem);
        match e {
            Expr::Copy(a) | Expr::Cast(CastOp::PtrCast | CastOp::IntRetype, a) if width(self.f.ty(*a)) == Some(dw) => {
                let src = self.operand(*a)?;
                let d = self.alloc_v(dw)?;
                if dw == 0 {
                    let Opnd::V(m) = src else { return None };
                    self.asm.vop(VBinOp::Mand, d, m, m, Mask::Unmasked);
                } else {
                    self.set_width(dw);
                    self.asm.vmv(d, src.src());
                }
                Some(d)
            }
            Expr::Binary(op @ (BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot), a, b) if st.is_float() => {
                let name = match op {
                    BinaryOp::Pow => "pow",
                    BinaryOp::Atan2 => "atan2",
                    _ => "hypot",
                };
                self.call_sleef(name, &[*a, *b], dw)
            }
            Expr::Binary(op, a, b) => self.binary(*op, dst, *a, *b),
            Expr::Unary(op, a) => {
                let w = dw;
                let x = self.vector(*a, w)?;
                // Signed integer abs reads `x` after writing the result.
                let in_place = !(*op == UnaryOp::Abs && st.is_signed_int());
                let srcs = if in_place { vec![x] } else { vec![] };
                let d = self.alloc_result(w, &srcs)?;
                if w == 0 {
                    if *op != UnaryOp::Not {
                        return None;
                    }
                    self.asm.vop(VBinOp::Mnand, d, x, x, Mask::Unmasked);
                    return Some(d);
                }
                self.set_width(w);
                let u = Mask::Unmasked;
                match (op, st.is_float()) {
                    (UnaryOp::Neg, true) => self.asm.vop(VBinOp::Fsgnjn, d, x, x, u),
                    (UnaryOp::Neg, false) => self.asm.vop(VBinOp::Rsub, d, x, XReg::ZERO, u),
                    (UnaryOp::Not, false) => self.asm.vop(VBinOp::Xor, d, x, -1, u),
                    (UnaryOp::Abs, true) => self.asm.vop(VBinOp::Fsgnjx, d, x, x, u),
                    (UnaryOp::Abs, false) if st.is_signed_int() => {
                        self.asm.vop(VBinOp::Rsub, d, x, XReg::ZERO, u);
                        self.asm.vop(VBinOp::Max, d, d, x, u);
                    }
                    (UnaryOp::Abs, false) => self.asm.vmv(d, x),
                    (UnaryOp::Not, true) => return None,
                }
                Some(d)
            }
            Expr::Math(func, a) if st.is_float() => {
                let x = self.vector(*a, dw)?;
                let in_place = matches!(func, MathFn::Sqrt | MathFn::Rsqrt);
                let srcs = if in_place { vec![x] } else { vec![] };
                let d = self.alloc_result(dw, &srcs)?;
                self.set_width(dw);
                match func {
                    MathFn::Sqrt => self.asm.vunary(VUnaryOp::Fsqrt, d, x, Mask::Unmasked),
                    MathFn::Rsqrt => {
                        let one = if dw == 8 {
                            self.fconst(1f64.to_bits(), true)?
                        } else {
                            self.fconst(1f32.to_bits() as u64, false)?
                        };
                        self.asm.vunary(VUnaryOp::Fsqrt, d, x, Mask::Unmasked);
                        self.asm.vop(VBinOp::Frdiv, d, d, one, Mask::Unmasked);
                    }
                    MathFn::Exp | MathFn::Exp2 if computed_inline(*func, st) => {
                        // `x` is overwritten: a copy unless it is a temp or dies here.
                        let dies = self.temps.iter().any(|&(t, _)| t == x)
                            || self
                                .vals
                                .iter()
                                .any(|(v, &r)| r == x && self.plan.last_use.get(v).is_none_or(|&l| l <= self.at));
                        let x = if dies {
                            x
                        } else {
                            let copy = self.temp(dw)?;
                            self.asm.vmv(copy, x);
                            copy
                        };
                        let t = self.temp(dw)?;
                        let n = self.temp(dw / 2)?;
                        let bits = if *func == MathFn::Exp { poly::EXP_F32_BITS } else { poly::EXP2_F32_BITS };
                        let mut f = [FReg::new(0)?; 13];
                        for (reg, bits) in f.iter_mut().zip(bits) {
                            *reg = self.fconst(bits as u64, false)?;
                        }
                        let consts = poly::ExpConsts {
                            f,
                            bias: self.xconst(255)?,
                            vtype_f32: self.vtype_for(dw),
                            vtype_i16: self.vtype_for(dw / 2),
                        };
                        poly::exp_f32(&mut self.asm, d, x, t, n, &consts);
                        // `v0` now holds the NaN lanes.
                        self.v0 = None;
                    }
                    f => {
                        self.free_v(d, dw);
                        return self.call_sleef(sleef_name(*f)?, &[*a], dw);
                    }
                }
                Some(d)
            }
            Expr::Fma(a, b, c) => {
                let (x, y, z) = (self.vector(*a, dw)?, self.vector(*b, dw)?, self.vector(*c, dw)?);
                let d = self.alloc_result(dw, &[x, z])?;
                self.set_width(dw);
                let float = st.is_float();
                if d == z && d != x {
                    // d = x·y + d
                    let op = if float { VBinOp::Fmacc } else { VBinOp::Macc };
                    self.asm.vop(op, d, x, y, Mask::Unmasked);
                } else {
                    // d = d·y + z with d = x
                    if d != x {
                        self.asm.vmv(d, x);
                    }
                    let op = if float { VBinOp::Fmadd } else { VBinOp::Madd };
                    self.asm.vop(op, d, z, y, Mask::Unmasked);
                }
                Some(d)
            }
            Expr::Cmp(pred, a, b) => self.compare(*pred, *a, *b),
            Expr::Select { cond, on_true, on_false } => {
                if dw == 0 {
                    return None;
                }
                if self.plan.classes.get(cond) == Some(&Class::AllTrue) {
                    // Every lane that runs takes `on_true`.
                    let t = self.vector(*on_true, dw)?;
                    let d = self.alloc_result(dw, &[t])?;
                    if d != t {
                        self.set_width(dw);
                        self.asm.vmv(d, t);
                    }
                    return Some(d);
                }
                let c = self.mask_reg(*cond)?;
                let f = self.vector(*on_false, dw)?;
                let t = self.operand(*on_true)?;
                let t_reg = if let Opnd::V(r) = t { vec![r] } else { vec![] };
                let d = self.alloc_result(dw, &[&[f][..], &t_reg].concat())?;
                self.put_in_v0(c);
                self.set_width(dw);
                let op = if matches!(t, Opnd::F(_)) { VBinOp::Fmerge } else { VBinOp::Merge };
                self.asm.vop(op, d, f, t.src(), Mask::V0);
                Some(d)
            }
            Expr::Cast(op, a) => self.cast(*op, dst, *a),
            Expr::AddPtr { ptr, offset } => {
                let bytes = self.f.ty(*ptr).pointee().map_or(1, |s| s.bytes()) as i64;
                let oe = self.f.ty(*offset);
                let ow = width(oe)?;
                let p = self.vector(*ptr, 8)?;
                let o = self.vector(*offset, ow)?;
                let d = self.alloc_v(8)?;
                self.set_width(8);
                self.extend(d, o, ow, 8, scalar_of(oe).is_signed_int())?;
                if bytes > 1 {
                    self.asm.vop(VBinOp::Sll, d, d, bytes.trailing_zeros() as i32, Mask::Unmasked);
                }
                self.asm.vop(VBinOp::Add, d, d, p, Mask::Unmasked);
                Some(d)
            }
            Expr::LoadScratch { buf, index } => {
                let (mode, base, st) = self.scratch_access(*buf, index)?;
                self.load(mode, base, st, Mask::Unmasked, None)
            }
            Expr::Load { ptr, mask, other } => {
                let st = self.f.ty(*ptr).pointee()?;
                let (mode, base) = self.global_access(*ptr)?;
                let m = self.access_mask(*mask)?;
                self.load(mode, base, st, m, *other)
            }
            _ => None,
        }
    }

    /// `d` (width `to`, current vtype at `to`) = integer `x` of width `from` resized.
    fn extend(&mut self, d: VReg, x: VReg, from: u32, to: u32, signed: bool) -> Option<()> {
        use VUnaryOp::*;
        self.set_width(to);
        let op = match (to / from.max(1), signed) {
            (1, _) => {
                self.asm.vmv(d, x);
                return Some(());
            }
            (2, true) => SextVf2,
            (2, false) => ZextVf2,
            (4, true) => SextVf4,
            (4, false) => ZextVf4,
            (8, true) => SextVf8,
            (8, false) => ZextVf8,
            _ => return None,
        };
        self.asm.vunary(op, d, x, Mask::Unmasked);
        Some(())
    }

    /// `d` (width `to`) = low bits of integer `x` (width `from` > `to`), one halving at a time.
    fn truncate(&mut self, d: VReg, x: VReg, from: u32, to: u32) -> Option<()> {
        let mut src = x;
        let mut w = from;
        while w > to {
            w /= 2;
            let dst = if w == to { d } else { self.temp(w)? };
            self.set_width(w);
            self.asm.vop(VBinOp::Nsrl, dst, src, 0, Mask::Unmasked);
            src = dst;
        }
        Some(())
    }

    fn cast(&mut self, op: CastOp, dst: Var, a: Var) -> Option<VReg> {
        let (from, to) = (self.f.ty(a), self.f.ty(dst));
        let (fw, tw) = (width(from)?, width(to)?);
        let (fs, ts) = (scalar_of(from), scalar_of(to));
        let u = Mask::Unmasked;
        // i1 sources: 0/1 in the destination's width.
        if fw == 0 {
            if tw == 0 || ts.is_float() {
                return None;
            }
            let m = self.mask_reg(a)?;
            let d = self.alloc_v(tw)?;
            self.put_in_v0(m);
            self.set_width(tw);
            self.asm.vmv(d, 0);
            self.asm.vop(VBinOp::Merge, d, d, 1, Mask::V0);
            return Some(d);
        }
        let x = self.vector(a, fw)?;
        if tw == 0 {
            if fs.is_float() {
                return None;
            }
            let d = self.alloc_v(0)?;
            self.set_width(fw);
            let t = self.temp(fw)?;
            self.asm.vop(VBinOp::And, t, x, 1, u);
            self.asm.vop(VBinOp::Msne, d, t, 0, u);
            return Some(d);
        }
        let d = self.alloc_v(tw)?;
        match op {
            CastOp::IntExt | CastOp::IntTrunc | CastOp::IntRetype | CastOp::PtrToInt | CastOp::IntToPtr => {
                if fs.is_float() || ts.is_float() {
                    return None;
                }
                if tw >= fw {
                    self.extend(d, x, fw, tw, fs.is_signed_int())?;
                } else {
                    self.truncate(d, x, fw, tw)?;
                }
            }
            CastOp::Bitcast | CastOp::PtrCast if fw == tw => {
                self.set_width(tw);
                self.asm.vmv(d, x);
            }
            CastOp::FloatExt | CastOp::FloatTrunc => match (fw, tw) {
                (4, 8) => {
                    self.set_width(4);
                    self.asm.vunary(VUnaryOp::FwcvtFF, d, x, u);
                }
                (8, 4) => {
                    self.set_width(4);
                    self.asm.vunary(VUnaryOp::FncvtFF, d, x, u);
                }
                (a, b) if a == b => {
                    self.set_width(tw);
                    self.asm.vmv(d, x);
                }
                _ => return None,
            },
            CastOp::IntToFloat => {
                let signed = fs.is_signed_int();
                let src = if fw < tw {
                    let t = self.temp(tw)?;
                    self.extend(t, x, fw, tw, signed)?;
                    t
                } else {
                    x
                };
                match (fw.max(tw), tw) {
                    (a, b) if a == b => {
                        self.set_width(tw);
                        let op = if signed { VUnaryOp::FcvtFX } else { VUnaryOp::FcvtFXu };
                        self.asm.vunary(op, d, src, u);
                    }
                    (8, 4) => {
                        self.set_width(4);
                        let op = if signed { VUnaryOp::FncvtFX } else { VUnaryOp::FncvtFXu };
                        self.asm.vunary(op, d, src, u);
                    }
                    _ => return None,
                }
            }
            CastOp::FloatToInt => {
                let signed = ts.is_signed_int();
                // Convert to the float's width (or narrow f64 to 32 bits), then truncate.
                let mid = if tw >= fw { fw } else { fw.min(4).max(tw.max(4).min(fw)) };
                if tw > fw {
                    return None;
                }
                let t = if mid == tw { d } else { self.temp(mid)? };
                if mid == fw {
                    self.set_width(fw);
                    let op = if signed { VUnaryOp::FcvtRtzXF } else { VUnaryOp::FcvtRtzXuF };
                    self.asm.vunary(op, t, x, u);
                } else {
                    self.set_width(mid);
                    let op = if signed { VUnaryOp::FncvtRtzXF } else { VUnaryOp::FncvtRtzXuF };
                    self.asm.vunary(op, t, x, u);
                }
                // NaN converts to 0 (saturating semantics).
                let nan = self.temp(0)?;
                self.set_width(fw);
                self.asm.vop(VBinOp::Mfne, nan, x, x, u);
                self.put_in_v0(nan);
                self.set_width(mid);
                self.asm.vop(VBinOp::Merge, t, t, 0, Mask::V0);
                if mid != tw {
                    self.truncate(d, t, mid, tw)?;
                }
            }
            _ => return None,
        }
        Some(d)
    }

    fn binary(&mut self, op: BinaryOp, dst: Var, a: Var, b: Var) -> Option<VReg> {
        let elem = self.f.ty(a);
        let st = scalar_of(elem);
        let w = width(elem)?;
        let u = Mask::Unmasked;
        if w == 0 {
            let vop = match op {
                BinaryOp::And => VBinOp::Mand,
                BinaryOp::Or => VBinOp::Mor,
                BinaryOp::Xor => VBinOp::Mxor,
                _ => return None,
            };
            let all = |c: Option<&Class>| c == Some(&Class::AllTrue);
            if op == BinaryOp::And && (all(self.plan.classes.get(&a)) || all(self.plan.classes.get(&b))) {
                let other = if all(self.plan.classes.get(&a)) { b } else { a };
                let m = self.mask_reg(other)?;
                let d = self.alloc_v(0)?;
                self.asm.vop(VBinOp::Mand, d, m, m, u);
                return Some(d);
            }
            let (x, y) = (self.mask_reg(a)?, self.mask_reg(b)?);
            let d = self.alloc_v(0)?;
            self.asm.vop(vop, d, x, y, u);
            return Some(d);
        }
        let _ = dst;
        let signed = st.is_signed_int();
        let (vop, swapped, commutes) = if st.is_float() {
            match op {
                BinaryOp::Add => (VBinOp::Fadd, None, true),
                BinaryOp::Sub => (VBinOp::Fsub, Some(VBinOp::Frsub), false),
                BinaryOp::Mul => (VBinOp::Fmul, None, true),
                BinaryOp::Div => (VBinOp::Fdiv, Some(VBinOp::Frdiv), false),
                BinaryOp::Max => (VBinOp::Fmax, None, true),
                BinaryOp::Min => (VBinOp::Fmin, None, true),
                _ => return None,
            }
        } else {
            match op {
                BinaryOp::Add => (VBinOp::Add, None, true),
                BinaryOp::Sub => (VBinOp::Sub, Some(VBinOp::Rsub), false),
                BinaryOp::Mul => (VBinOp::Mul, None, true),
                BinaryOp::Div => (if signed { VBinOp::Div } else { VBinOp::Divu }, None, false),
                BinaryOp::Rem => (if signed { VBinOp::Rem } else { VBinOp::Remu }, None, false),
                BinaryOp::And => (VBinOp::And, None, true),
                BinaryOp::Or => (VBinOp::Or, None, true),
                BinaryOp::Xor => (VBinOp::Xor, None, true),
                BinaryOp::Shl => (VBinOp::Sll, None, false),
                BinaryOp::Shr => (if signed { VBinOp::Sra } else { VBinOp::Srl }, None, false),
                BinaryOp::Max => (if signed { VBinOp::Max } else { VBinOp::Maxu }, None, true),
                BinaryOp::Min => (if signed { VBinOp::Min } else { VBinOp::Minu }, None, true),
                BinaryOp::MulHi => (if signed { VBinOp::Mulh } else { VBinOp::Mulhu }, None, true),
                _ => return None,
            }
        };
        let imm_ok = |op: VBinOp| match op {
            VBinOp::Add | VBinOp::And | VBinOp::Or | VBinOp::Xor => Some(false),
            VBinOp::Sll | VBinOp::Srl | VBinOp::Sra => Some(true),
            _ => None,
        };
        let y = match imm_ok(vop) {
            Some(unsigned) => {
                self.operand_imm(b, |i| if unsigned { (0..32).contains(&i) } else { (-16..16).contains(&i) })?
            }
            None => self.operand(b)?,
        };
        let x = self.operand(a)?;
        let (vs2, src1, vop) = match (x, y) {
            (Opnd::V(x), y) => (x, y.src(), vop),
            (x, Opnd::V(y)) if commutes => (y, x.src(), vop),
            (x, Opnd::V(y)) if swapped.is_some() => (y, x.src(), swapped?),
            (x, y) => {
                let t = self.temp(w)?;
                self.set_width(w);
                self.asm.vmv(t, x.src());
                (t, y.src(), vop)
            }
        };
        let src1_reg = if let VSrc::V(r) = src1 { vec![r] } else { vec![] };
        let d = self.alloc_result(w, &[&[vs2][..], &src1_reg].concat())?;
        self.set_width(w);
        self.asm.vop(vop, d, vs2, src1, u);
        Some(d)
    }

    fn compare(&mut self, pred: CmpPred, a: Var, b: Var) -> Option<VReg> {
        let elem = self.f.ty(a);
        let st = scalar_of(elem);
        let w = width(elem)?;
        if w == 0 {
            return None;
        }
        let signed = st.is_signed_int();
        let float = st.is_float();
        let pick = |s: VBinOp, uns: VBinOp| if signed || float { s } else { uns };
        // (op for `a pred b` with a vector `a`, op for `b pred' a` (swapped) with vector b).
        let (lt, le, gt, ge) = if float {
            (VBinOp::Mflt, VBinOp::Mfle, VBinOp::Mfgt, VBinOp::Mfge)
        } else {
            (
                pick(VBinOp::Mslt, VBinOp::Msltu),
                pick(VBinOp::Msle, VBinOp::Msleu),
                pick(VBinOp::Msgt, VBinOp::Msgtu),
                VBinOp::Mseq,
            )
        };
        let eq = if float { VBinOp::Mfeq } else { VBinOp::Mseq };
        let ne = if float { VBinOp::Mfne } else { VBinOp::Msne };
        let (x, y) = (self.operand(a)?, self.operand(b)?);
        let d = self.alloc_v(0)?;
        let u = Mask::Unmasked;
        // Normalise to a vector first operand: `b pred a` flips the predicate.
        let (x, y, pred) = match (x, y) {
            (Opnd::V(_), _) => (x, y, pred),
            (_, Opnd::V(_)) => (
                y,
                x,
                match pred {
                    CmpPred::Lt => CmpPred::Gt,
                    CmpPred::Le => CmpPred::Ge,
                    CmpPred::Gt => CmpPred::Lt,
                    CmpPred::Ge => CmpPred::Le,
                    p => p,
                },
            ),
            _ => {
                let t = self.temp(w)?;
                self.set_width(w);
                self.asm.vmv(t, x.src());
                (Opnd::V(t), y, pred)
            }
        };
        let Opnd::V(xv) = x else { return None };
        self.set_width(w);
        match (pred, y) {
            (CmpPred::Eq, y) => self.asm.vop(eq, d, xv, y.src(), u),
            (CmpPred::Ne, y) => self.asm.vop(ne, d, xv, y.src(), u),
            (CmpPred::Lt, y) => self.asm.vop(lt, d, xv, y.src(), u),
            (CmpPred::Le, y) => self.asm.vop(le, d, xv, y.src(), u),
            // Vector-vector greater-than: swap the operands of less-than.
            (CmpPred::Gt, Opnd::V(yv)) => self.asm.vop(lt, d, yv, xv, u),
            (CmpPred::Ge, Opnd::V(yv)) => self.asm.vop(le, d, yv, xv, u),
            (CmpPred::Gt, y) => self.asm.vop(gt, d, xv, y.src(), u),
            (CmpPred::Ge, y) if float => self.asm.vop(VBinOp::Mfge, d, xv, y.src(), u),
            (CmpPred::Ge, y) => {
                let _ = ge;
                let t = self.temp(w)?;
                self.asm.vmv(t, y.src());
                self.asm.vop(le, d, t, xv, u);
            }
        }
        Some(d)
    }
}

/// After the range: `buf[index] = op(buf[index], reduce(acc))`. `vt` is the accumulator's
/// width at the nest's LMUL, `vlmax` its VLMAX; `fin` (a group of the accumulator's width)
/// is a free vector register. Leaves `vtype` and `vl` changed.
fn finish_row_acc(out: &mut Assembler, acc: &RowAcc, vt: VType, vlmax: XReg, fin: VReg) {
    let u = Mask::Unmasked;
    let eew = sew(acc.w);
    // A single-register accumulator is read at LMUL 1 (it need not start a group).
    let one_vt = match acc.lanes {
        AccLanes::Group => vt,
        AccLanes::Single => VType::new(eew, Lmul::M1),
    };
    out.vsetivli(XReg::ZERO, 1, one_vt);
    out.vle(eew, fin, acc.addr, u);
    match acc.lanes {
        AccLanes::Group => {
            out.vsetvli(XReg::ZERO, vlmax, vt);
            out.vop(acc.reduction, fin, acc.reg, fin, u);
            out.vsetivli(XReg::ZERO, 1, vt);
        }
        AccLanes::Single => out.vop(acc.reduction, fin, acc.reg, fin, u),
    }
    out.vse(eew, fin, acc.addr, u);
}

/// After the range: the row's (value, index) from the lanes of `a` (see [`RowArg`]) to
/// its scratch elements, at `vl` = VLMAX. `vts`: vtypes at the value's and the index's
/// width; `r` two free vector registers; `ftmp` and `tmp` free scalar registers. Clobbers
/// `v0`; leaves `vtype` and `vl` changed.
fn finish_row_arg(
    out: &mut Assembler,
    a: &RowArg,
    vts: (VType, VType),
    vlmax: XReg,
    r: (VReg, VReg),
    ftmp: FReg,
    tmp: [XReg; 2],
) {
    let u = Mask::Unmasked;
    let (extreme, value) = (r.0, r.1);
    let reduction = match (a.st.is_float(), a.st.is_signed_int(), a.kind) {
        (true, _, ArgKind::Max) => VBinOp::Fredmax,
        (true, _, ArgKind::Min) => VBinOp::Fredmin,
        (false, true, ArgKind::Max) => VBinOp::Redmax,
        (false, true, ArgKind::Min) => VBinOp::Redmin,
        (false, false, ArgKind::Max) => VBinOp::Redmaxu,
        (false, false, ArgKind::Min) => VBinOp::Redminu,
    };
    out.vsetvli(XReg::ZERO, vlmax, vts.0);
    // The extreme of the lanes (NaN lanes ignored; NaN when all are) and the lanes equal
    // to it, or every lane when all are NaN (they all hold the last NaN's position).
    out.vop(reduction, extreme, a.best, a.best, u);
    if a.st.is_float() {
        out.push(Inst::VFMvFS { rd: ftmp, vs2: extreme });
        out.vop(VBinOp::Mfeq, VReg::V0, a.best, ftmp, u);
        out.push(Inst::VMaskScalar { op: VMaskScalarOp::Cpop, rd: tmp[0], vs2: VReg::V0, mask: u });
        let some = out.new_label();
        out.bne(tmp[0], XReg::ZERO, some);
        out.vop(VBinOp::Mxnor, VReg::V0, VReg::V0, VReg::V0, u);
        out.bind(some);
    } else {
        out.push(Inst::VMvXS { rd: tmp[0], vs2: extreme });
        out.vop(VBinOp::Mseq, VReg::V0, a.best, tmp[0], u);
    }
    out.vsetvli(XReg::ZERO, XReg::ZERO, vts.1);
    out.li(tmp[1], -1);
    out.push(Inst::VMvSX { vd: value, rs1: tmp[1] });
    out.vop(VBinOp::Redminu, value, a.best_index, value, Mask::V0);
    out.vsetivli(XReg::ZERO, 1, VType::new(Sew::E32, Lmul::M1));
    out.vse(Sew::E32, value, a.idxs_addr, u);
    out.vsetivli(XReg::ZERO, 1, VType::new(sew(a.w), Lmul::M1));
    out.vse(sew(a.w), extreme, a.vals_addr, u);
}

/// `dst` = `src` as an integer of `bits` bits, sign- or zero-extended to 64.
fn resize_to(out: &mut Assembler, dst: XReg, src: XReg, bits: u32, signed: bool) {
    match (bits, signed) {
        (64, _) => {
            if dst != src {
                out.mv(dst, src);
            }
        }
        (32, true) => out.alu_imm(AluImmOp::Addiw, dst, src, 0),
        (b, signed) => {
            let shift = 64 - b as i32;
            out.slli(dst, src, shift);
            out.alu_imm(if signed { AluImmOp::Srai } else { AluImmOp::Srli }, dst, dst, shift);
        }
    }
}

/// `dst = c · src` (`scratch` may be `dst`; `src` must differ from `dst` unless `c` is a
/// power of two).
fn mul_const(out: &mut Assembler, dst: XReg, src: XReg, c: i64) {
    if c == 1 {
        out.mv(dst, src);
    } else if c > 0 && (c as u64).is_power_of_two() {
        out.slli(dst, src, c.trailing_zeros() as i32);
    } else if c == -1 {
        out.sub(dst, XReg::ZERO, src);
    } else {
        out.li(dst, c);
        out.mul(dst, src, dst);
    }
}

/// The registers of the uniform quantities a sum may read: live-in scalars, the outer loop
/// counters, products of two uniform variables (set by the prologue) and products of an
/// outer counter with a runtime stride variable (set at the top of the innermost outer loop).
struct SumRegs<'a> {
    scalars: &'a HashMap<Var, Opnd>,
    outer: &'a [(usize, XReg)],
    products: &'a [((Var, Var), XReg)],
    outer_scaled: &'a [((usize, Var), XReg)],
}

impl SumRegs<'_> {
    fn x(&self, v: Var) -> Option<XReg> {
        match self.scalars.get(&v)? {
            Opnd::X(r) => Some(*r),
            _ => None,
        }
    }
}

/// The variable part of a sum, `scale · (Σ coef·var + Σ coef·a·b + Σ_outer stride·counter)`,
/// as (register, coefficient) pairs without zero terms.
fn sum_parts(lin: &Lin, scale: i64, regs: &SumRegs) -> Option<Vec<(XReg, i64)>> {
    let mut parts = Vec::new();
    for &(v, c) in &lin.terms {
        parts.push((regs.x(v)?, c * scale));
    }
    for &(pair, c) in &lin.products {
        let (_, r) = regs.products.iter().find(|(p, _)| *p == pair)?;
        parts.push((*r, c * scale));
    }
    for &(dim, counter) in regs.outer {
        parts.push((counter, lin.strides[dim] * scale));
        for (v, cs) in &lin.scaled {
            if cs[dim] != 0 {
                let (_, r) = regs.outer_scaled.iter().find(|(k, _)| *k == (dim, *v))?;
                parts.push((*r, cs[dim] * scale));
            }
        }
    }
    parts.retain(|&(r, c)| c != 0 && r != XReg::ZERO);
    Some(parts)
}

/// A register holding the variable part of the last sum that needed one, so that the
/// next sum with the same part (streams over the same offsets) reuses it.
struct HeldPart {
    reg: XReg,
    parts: Option<Vec<(XReg, i64)>>,
}

/// `dst = base + scale · (Σ coef·var + offset + Σ_outer stride·counter)`; `tmp` is
/// clobbered; a variable part of more than one plain register is computed into
/// `held.reg` (which must differ from `dst` and `tmp`) or reused from there.
#[allow(clippy::too_many_arguments)]
fn emit_sum(
    out: &mut Assembler,
    dst: XReg,
    base: Option<XReg>,
    lin: &Lin,
    scale: i64,
    regs: &SumRegs,
    tmp: XReg,
    held: &mut HeldPart,
) -> Option<()> {
    let mut parts = sum_parts(lin, scale, regs)?;
    let plain = parts.len() <= 1 && parts.iter().all(|&(_, c)| c == 1 || c == -1);
    if !plain {
        if held.parts.as_ref() != Some(&parts) {
            sum_into(out, held.reg, &parts, 0, tmp);
            held.parts = Some(parts.clone());
        }
        parts = vec![(held.reg, 1)];
    }
    let mut all: Vec<(XReg, i64)> = base.map(|b| (b, 1)).into_iter().collect();
    all.extend(parts);
    sum_into(out, dst, &all, lin.offset * scale, tmp);
    Some(())
}

/// `dst = Σ coef·reg + konst` (no `reg` is `dst` or `tmp`); `tmp` is clobbered.
fn sum_into(out: &mut Assembler, dst: XReg, parts: &[(XReg, i64)], konst: i64, tmp: XReg) {
    let mut acc: Option<XReg> = None;
    for &(r, c) in parts {
        if c == 0 || r == XReg::ZERO {
            continue;
        }
        acc = Some(match acc {
            Some(a) if c == -1 => {
                out.sub(dst, a, r);
                dst
            }
            None if c == 1 => r,
            None => {
                mul_const(out, dst, r, c);
                dst
            }
            Some(a) if c == 1 => {
                out.add(dst, a, r);
                dst
            }
            Some(a) => {
                mul_const(out, tmp, r, c);
                out.add(dst, a, tmp);
                dst
            }
        });
    }
    if konst != 0 {
        match acc {
            None => out.li(dst, konst),
            Some(a) if (-2048..2048).contains(&konst) => out.addi(dst, a, konst as i32),
            Some(a) => {
                out.li(tmp, konst);
                out.add(dst, a, tmp);
            }
        }
        acc = Some(dst);
    }
    if acc != Some(dst) {
        out.mv(dst, acc.unwrap_or(XReg::ZERO));
    }
}

pub(super) fn emit(f: &Function, nest: &Nest, plan: &Plan) -> Option<Leaf> {
    // The widest vector value; values kept as streams (`Lin`, `PtrLin`) only count when
    // they must be materialized (then the narrow attempt fails and the wide one runs).
    let mut wide = 1;
    for (v, class) in &plan.classes {
        let w = width(f.ty(*v))?;
        if *class == Class::Vector {
            wide = wide.max(w);
        }
    }
    for b in &plan.bufs {
        wide = wide.max(mem_bytes(register_scalar(scalar_of(f.bufs[*b].elem)))?);
    }
    // Values materialized from streams may be wider than `wide`: then wider attempts run.
    let widths: Vec<u32> = [1, 2, 4, 8].into_iter().filter(|&w| w >= wide).collect();
    let lmuls: &[u32] = if calls_sleef(f, nest) { &[1] } else { &[8, 4, 2, 1] };
    let attempts = widths.into_iter().flat_map(|w| {
        lmuls.iter().flat_map(move |&l| [AccLanes::Group, AccLanes::Single].map(move |lanes| (w, l, lanes)))
    });
    for (wide, lmul_regs, lanes) in attempts.clone() {
        let Some((leaf, splatted)) = try_emit(f, nest, plan, wide, lmul_regs, lanes, &[], false) else { continue };
        // Loop-invariant splats move to the prologue when registers allow: as many as fit,
        // in first-use order (not across calls, which would save and restore them).
        if !calls_sleef(f, nest) {
            for k in (1..=splatted.len()).rev() {
                if let Some((hoisted, _)) = try_emit(f, nest, plan, wide, lmul_regs, lanes, &splatted[..k], false) {
                    return Some(hoisted);
                }
            }
        }
        return Some(leaf);
    }
    // The last resort: LMUL 1 with spills (not around calls, which save registers
    // themselves; no hoisted splats, which would only spill more).
    if calls_sleef(f, nest) {
        return None;
    }
    attempts
        .filter(|&(_, lmul_regs, _)| lmul_regs == 1)
        .find_map(|(wide, _, lanes)| try_emit(f, nest, plan, wide, 1, lanes, &[], true))
        .map(|(leaf, _)| leaf)
}

/// The leaf at one register shape, with the splats of `hoist` held in registers for the
/// whole range; also the uniform values it splatted per strip.
#[allow(clippy::too_many_arguments)]
fn try_emit(
    f: &Function,
    nest: &Nest,
    plan: &Plan,
    wide: u32,
    lmul_regs: u32,
    acc_lanes: AccLanes,
    hoist: &[(Var, u32)],
    spill: bool,
) -> Option<(Leaf, Vec<(Var, u32)>)> {
    let mut args = Vec::new();
    let mut scalars = HashMap::new();
    let mut bufs = HashMap::new();
    let (mut xargs, mut fargs) = (0u8, 0u8);
    // Integer arguments after the eighth arrive on the stack (8 bytes each, in order); the
    // prologue loads them into pool registers.
    let mut stacked: Vec<LeafArg> = Vec::new();
    for &v in &plan.live_in {
        if matches!(f.ty(v), Elem::Scalar(s) if s.is_float()) {
            scalars.insert(v, Opnd::F(FReg::new(10 + fargs).filter(|_| fargs < 8)?));
            fargs += 1;
        } else if xargs < 8 {
            scalars.insert(v, Opnd::X(XReg::new(10 + xargs)?));
            xargs += 1;
        } else {
            stacked.push(LeafArg::Var(v));
        }
        args.push(LeafArg::Var(v));
    }
    for &b in &plan.bufs {
        if xargs < 8 {
            bufs.insert(b, XReg::new(10 + xargs)?);
            xargs += 1;
        } else {
            stacked.push(LeafArg::Buf(b));
        }
        args.push(LeafArg::Buf(b));
    }
    // Popped from the end: t0 first, callee-saved s1..s11 last (saved on the stack if used).
    let calls = calls_sleef(f, nest);
    // With calls, `s0` joins them (the leaf saves it like the others).
    let first_saved: &[u8] = if calls { &[8, 9] } else { &[9] };
    let saved: Vec<XReg> = first_saved.iter().copied().chain(18..28).rev().filter_map(XReg::new).collect();
    let mut xpool: Vec<XReg> = saved.clone();
    xpool.extend((10 + xargs..18).rev().filter_map(XReg::new));
    xpool.extend([XReg::T6, XReg::T5, XReg::T4, XReg::T3, XReg::T2, XReg::T1, XReg::T0]);
    let mut fpool: Vec<FReg> = (10 + fargs..18).rev().filter_map(FReg::new).collect();
    fpool.extend((0..8).chain(28..32).rev().filter_map(FReg::new));
    // With calls, everything that lives across a call is in a callee-saved register: the
    // arguments move there (scratch addresses only feed the streams' starts: they stay
    // unless outer loops recompute those).
    let mut arg_moves: Vec<(Opnd, Opnd)> = Vec::new();
    if calls {
        xpool = saved.clone();
        fpool = [8u8, 9].into_iter().chain(18..28).rev().filter_map(FReg::new).collect();
        for v in &plan.live_in {
            let Some(op) = scalars.get_mut(v) else { continue };
            let to = match op {
                Opnd::X(_) => Opnd::X(xpool.pop()?),
                Opnd::F(_) => Opnd::F(fpool.pop()?),
                _ => return None,
            };
            arg_moves.push((to, *op));
            *op = to;
        }
        for b in plan.bufs.iter().filter(|_| !plan.outer.is_empty()) {
            let Some(r) = bufs.get_mut(b) else { continue };
            let to = xpool.pop()?;
            arg_moves.push((Opnd::X(to), Opnd::X(*r)));
            *r = to;
        }
    }
    let mut stack_loads: Vec<XReg> = Vec::new();
    for arg in &stacked {
        let r = xpool.pop()?;
        match *arg {
            LeafArg::Var(v) => scalars.insert(v, Opnd::X(r)).map_or(Some(()), |_| None)?,
            LeafArg::Buf(b) => bufs.insert(b, r).map_or(Some(()), |_| None)?,
        }
        stack_loads.push(r);
    }

    let mut e = Emitter {
        f,
        plan,
        nest_body: &nest.body,
        lmul_regs,
        wide,
        asm: Assembler::new(),
        vused: [false; 32],
        vals: HashMap::new(),
        scalars,
        bufs,
        streams: Vec::new(),
        xpool,
        fpool,
        xconsts: Vec::new(),
        fconsts: Vec::new(),
        vtype: VType::new(Sew::E8, Lmul::M1),
        v0: None,
        temps: Vec::new(),
        dims: nest.shape.len(),
        row_accs: Vec::new(),
        row_regs: HashMap::new(),
        call_vl: None,
        calls: Vec::new(),
        at: 0,
        tail_undisturbed: nest
            .body
            .iter()
            .any(|s| matches!(s, Stmt::Accumulate { .. } | Stmt::AccumulateWith { .. } | Stmt::AccumulateArg { .. })),
        scan_vals: HashMap::new(),
        acc_lanes,
        row_args: Vec::new(),
        arg_regs: HashMap::new(),
        arg_scratch: None,
        vlmax: XReg::ZERO,
        step_regs: Vec::new(),
        hoisted: Vec::new(),
        splatted: Vec::new(),
        spill: None,
    };
    e.vlmax = e.xreg()?;
    if spill {
        e.spill = Some(Spill { vlenb: e.xreg()?, addr: e.xreg()?, slots: HashMap::new(), size: 0 });
    }
    e.vused[0] = true;
    if calls {
        e.call_vl = Some(e.xreg()?);
    }
    let base = e.base_vtype();
    e.vtype = base;
    for s in &nest.body {
        let Some((buf, index, ..)) = accumulation(f, s) else { continue };
        let buf = &buf;
        let mut strides = index.strides.clone();
        strides.resize(e.dims, 0);
        if plan.flat_stride(&strides) == 0 && !plan.inner.is_empty() && !plan.scans.contains(buf) {
            let st = scalar_of(f.bufs[*buf].elem);
            let reg = match acc_lanes {
                AccLanes::Group => e.alloc_v(mem_bytes(st)?)?,
                AccLanes::Single => e.alloc_v(0)?,
            };
            e.row_regs.insert(*buf, reg);
        }
    }

    for s in &nest.body {
        let Stmt::AccumulateArg { vals, index, .. } = s else { continue };
        let mut strides = index.strides.clone();
        strides.resize(e.dims, 0);
        if plan.flat_stride(&strides) == 0 && !plan.inner.is_empty() {
            let best = e.alloc_v(mem_bytes(scalar_of(f.bufs[*vals].elem))?)?;
            let best_index = e.alloc_v(POSITION_BYTES)?;
            e.arg_regs.insert(*vals, ArgRegs { best, best_index });
        }
    }

    for &(var, w) in hoist {
        // A uniform copied in the body has no register before the strip: it stays a splat.
        let Some(src) = e.uniform_source(var) else { continue };
        let reg = e.alloc_v(w)?;
        e.hoisted.push(Hoisted { var, w, reg, src });
    }

    // ----- the strip ---------------------------------------------------------------
    for (at, s) in nest.body.iter().enumerate() {
        e.at = at;
        e.stmt(s)?;
        e.free_temps();
        let mut reads = stmt_reads(s)?;
        reads.sort();
        reads.dedup();
        if let Stmt::Assign { dst, .. } = s {
            if !plan.last_use.contains_key(dst) {
                reads.push(*dst);
            }
        }
        for v in reads {
            if plan.last_use.get(&v).is_none_or(|&l| l == at) {
                if let Some(r) = e.vals.remove(&v) {
                    let w = e.width_of(v)?;
                    e.free_v(r, w);
                }
            }
        }
    }
    let _ = expr_reads;
    if e.vtype != base {
        e.asm.vsetvli(XReg::ZERO, XReg::ZERO, base);
    }
    let strip: Vec<Inst> = e.asm.insts().to_vec();
    // Nothing spills after the strip; the area holds the slots the strip used.
    let spill_area = e.spill.take().filter(|s| s.size > 0).map(|s| (s.vlenb, s.addr, s.size));
    // A constant prefix bound gets its register (the prologue loads the constants).
    if let Some(p) = &plan.prefix {
        e.operand(p.bound)?;
    }

    // ----- the function ------------------------------------------------------------
    // Scratch registers, never live across the strip (`t0`, `t1` belong to the calls).
    let nan_checks = !e.row_args.is_empty();
    let (tmp, tmp2) = match (calls, nan_checks) {
        (true, _) => (XReg::T2, XReg::T3),
        (false, true) => (e.xreg()?, e.xreg()?),
        // The second is only used by NaN checks.
        (false, false) => {
            let tmp = e.xreg()?;
            (tmp, tmp)
        }
    };
    let vlmax = e.vlmax;
    let finish_reg = match e.row_accs.iter().map(|a| a.w).max() {
        Some(w) => Some(e.alloc_v(w)?),
        None => None,
    };
    let arg_finish_regs = match e.row_args.is_empty() {
        true => None,
        false => Some((e.alloc_v(0)?, e.alloc_v(0)?, e.fpool.pop()?)),
    };
    let rem = e.xreg()?;
    let count = e.xreg()?;
    // The full-strip count is dead once the loop limit is computed from it.
    let lim = count;
    let outer: Vec<(usize, XReg)> = plan.outer.iter().map(|&d| Some((d, e.xreg()?))).collect::<Option<_>>()?;
    let steps: Vec<Coef> = e.streams.iter().map(|s| e.step(s)).collect();
    let mut bumps: Vec<(Coef, XReg)> = Vec::new();
    for step in &steps {
        if step.constant() != Some(0) && !bumps.iter().any(|(s, _)| s == step) {
            // A step of 1 bumps by `vlmax` itself; a runtime step needs its step register.
            if step.constant().is_none() {
                e.step_reg(step)?;
            }
            let reg = if step.constant() == Some(1) { vlmax } else { e.xreg()? };
            bumps.push((step.clone(), reg));
        }
    }
    let bump_of = |step: &Coef| bumps.iter().find(|(s, _)| s == step).map(|(_, r)| *r);
    // Uniform products and outer counter × runtime stride products read by the sums.
    let mut lins: Vec<Lin> = e.streams.iter().map(|s| s.lin.clone()).collect();
    lins.extend(plan.prefix.as_ref().map(|p| p.lin.clone()));
    let mut products: Vec<((Var, Var), XReg)> = Vec::new();
    let mut outer_scaled: Vec<((usize, Var), XReg)> = Vec::new();
    for lin in &lins {
        for &(pair, _) in &lin.products {
            if !products.iter().any(|(p, _)| *p == pair) {
                products.push((pair, e.xreg()?));
            }
        }
        for (v, cs) in &lin.scaled {
            for &(dim, _) in &outer {
                if cs[dim] != 0 && !outer_scaled.iter().any(|(k, _)| *k == (dim, *v)) {
                    outer_scaled.push(((dim, *v), e.xreg()?));
                }
            }
        }
    }

    let mut out = Assembler::new();
    let mut used_saved: Vec<XReg> = saved.iter().copied().filter(|r| !e.xpool.contains(r)).collect();
    let used_fsaved: Vec<FReg> = if calls {
        [8u8, 9].into_iter().chain(18..28).filter_map(FReg::new).filter(|r| !e.fpool.contains(r)).collect()
    } else {
        Vec::new()
    };
    if calls {
        used_saved.push(XReg::RA);
    }
    let fsave_at = used_saved.len() as i32 * 8;
    let frame = ((used_saved.len() + used_fsaved.len()) as i32 * 8 + 15) / 16 * 16;
    if frame > 0 {
        out.addi(XReg::SP, XReg::SP, -frame);
        for (i, &r) in used_saved.iter().enumerate() {
            out.sd(r, XReg::SP, i as i32 * 8);
        }
        for (i, &r) in used_fsaved.iter().enumerate() {
            out.fstore(FFmt::D, r, XReg::SP, fsave_at + i as i32 * 8);
        }
    }
    for (slot, &r) in stack_loads.iter().enumerate() {
        out.ld(r, XReg::SP, frame + slot as i32 * 8);
    }
    // The vector save area of the calls: 32 registers of `vlenb` bytes below the frame.
    let save_area = |out: &mut Assembler, grow: bool| {
        out.csrr(XReg::T0, Csr::VLENB);
        out.slli(XReg::T0, XReg::T0, 5);
        if grow {
            out.sub(XReg::SP, XReg::SP, XReg::T0);
        } else {
            out.add(XReg::SP, XReg::SP, XReg::T0);
        }
    };
    if calls {
        save_area(&mut out, true);
    }
    // The spill area (`vlenb` stays in its register for the strip's slot addresses).
    let spill_area_size = |out: &mut Assembler, (vlenb, addr, size): (XReg, XReg, u32)| {
        out.li(addr, size as i64);
        out.mul(addr, addr, vlenb);
    };
    if let Some(area) = spill_area {
        out.csrr(area.0, Csr::VLENB);
        spill_area_size(&mut out, area);
        out.sub(XReg::SP, XReg::SP, area.1);
    }
    for &(to, from) in &arg_moves {
        match (to, from) {
            (Opnd::X(t), Opnd::X(f)) => out.mv(t, f),
            (Opnd::F(t), Opnd::F(f)) => out.push(Inst::FBin { op: FBinOp::Sgnj, fmt: FFmt::D, rd: t, rs1: f, rs2: f }),
            _ => return None,
        }
    }
    for &(r, v) in &e.xconsts {
        out.li(r, v);
    }
    for &(r, bits, double) in &e.fconsts {
        let src = if bits == 0 {
            XReg::ZERO
        } else {
            out.li(tmp, bits as i64);
            tmp
        };
        out.push(Inst::FMvFromInt { fmt: if double { FFmt::D } else { FFmt::S }, rd: r, rs1: src });
    }
    let regs = SumRegs { scalars: &e.scalars, outer: &outer, products: &products, outer_scaled: &outer_scaled };
    for &((a, b), r) in &products {
        out.mul(r, regs.x(a)?, regs.x(b)?);
    }
    for (step, r) in &e.step_regs {
        let parts = step.vars.iter().map(|&(v, k)| Some((regs.x(v)?, k))).collect::<Option<Vec<_>>>()?;
        sum_into(&mut out, *r, &parts, step.konst, tmp);
    }
    out.vsetvli(vlmax, XReg::ZERO, base);
    for (step, r) in bumps.iter().filter(|(step, _)| step.constant() != Some(1)) {
        match step.constant() {
            Some(c) => mul_const(&mut out, *r, vlmax, c),
            None => out.mul(*r, e.step_regs.iter().find(|(s, _)| s == step)?.1, vlmax),
        }
    }
    let mut tops = Vec::new();
    for &(_, counter) in &outer {
        out.mv(counter, XReg::ZERO);
        let top = out.new_label();
        out.bind(top);
        tops.push(top);
    }
    if !outer.is_empty() {
        out.vsetvli(XReg::ZERO, vlmax, base);
    }
    for &((dim, v), r) in &outer_scaled {
        let counter = outer.iter().find(|(d, _)| *d == dim)?.1;
        out.mul(r, counter, regs.x(v)?);
    }
    // `count` is free until the range is split into strips.
    let mut held = HeldPart { reg: count, parts: None };
    for s in &e.streams {
        let base_reg = match s.base {
            Base::Var(v) => match e.scalars.get(&v) {
                Some(Opnd::X(r)) => Some(*r),
                _ => return None,
            },
            Base::Buf(b) => Some(e.bufs[&b]),
            Base::Value => None,
        };
        emit_sum(&mut out, s.reg, base_reg, &s.lin, s.scale, &regs, tmp, &mut held)?;
    }
    // Arg-accumulation lanes start from the scratch element (a broadcast load).
    for a in &e.row_args {
        out.vsetvli(XReg::ZERO, XReg::ZERO, e.vtype_for(a.w));
        out.vload(sew(a.w), VMemMode::Strided(XReg::ZERO), a.best, a.vals_addr, Mask::Unmasked);
        out.vsetvli(XReg::ZERO, XReg::ZERO, e.vtype_for(POSITION_BYTES));
        out.vload(Sew::E32, VMemMode::Strided(XReg::ZERO), a.best_index, a.idxs_addr, Mask::Unmasked);
    }
    if !e.row_args.is_empty() {
        out.vsetvli(XReg::ZERO, XReg::ZERO, base);
    }
    // `vl` is VLMAX here; a single-register accumulator is set at `vl` = 1 and LMUL 1.
    let mut prologue_vtype = base;
    let mut vl_changed = false;
    for h in &e.hoisted {
        let vt = e.vtype_for(h.w);
        if vt != prologue_vtype {
            out.vsetvli(XReg::ZERO, XReg::ZERO, vt);
            prologue_vtype = vt;
        }
        out.vmv(h.reg, h.src.src());
    }
    for acc in &e.row_accs {
        let vt = match acc.lanes {
            AccLanes::Group => e.vtype_for(acc.w),
            AccLanes::Single => VType::new(sew(acc.w), Lmul::M1),
        };
        if vt != prologue_vtype {
            match acc.lanes {
                AccLanes::Group => out.vsetvli(XReg::ZERO, if vl_changed { vlmax } else { XReg::ZERO }, vt),
                AccLanes::Single => {
                    out.vsetivli(XReg::ZERO, 1, vt);
                    vl_changed = true;
                }
            }
            prologue_vtype = vt;
        }
        out.vmv(acc.reg, acc.identity.src());
    }
    if vl_changed {
        out.vsetvli(XReg::ZERO, vlmax, base);
    } else if prologue_vtype != base {
        out.vsetvli(XReg::ZERO, XReg::ZERO, base);
    }
    match &plan.prefix {
        Some(p) => {
            // x₀ (lane 0's value) and the bound as integers of the comparison's type (the
            // bound is one: arguments arrive extended by their type); the lanes run while
            // x₀ + j < bound (`<=`): clamp(bound − x₀ (+1), 0, N).
            let bound = regs.x(p.bound)?;
            let x0_is_a_var = p
                .lin
                .single_term()
                .filter(|&v| f.ty(v) == f.ty(p.bound) && outer.iter().all(|&(d, _)| p.lin.stride(d) == Coef::ZERO));
            if p.bits < 64 {
                // Both fit in 33 bits: the difference is exact as a signed 64-bit number.
                if x0_is_a_var.is_some() {
                    emit_sum(&mut out, rem, Some(bound), &p.lin, -1, &regs, tmp, &mut held)?;
                } else {
                    emit_sum(&mut out, rem, None, &p.lin, 1, &regs, tmp, &mut held)?;
                    resize_to(&mut out, rem, rem, p.bits, p.signed);
                    out.sub(rem, bound, rem);
                }
                if p.inclusive {
                    out.addi(rem, rem, 1);
                }
                let non_negative = out.new_label();
                out.bge(rem, XReg::ZERO, non_negative);
                out.mv(rem, XReg::ZERO);
                out.bind(non_negative);
                out.li(tmp, plan.flat_len);
                let within = out.new_label();
                out.bge(tmp, rem, within);
                out.mv(rem, tmp);
                out.bind(within);
            } else {
                // 64 bits: none when x₀ is past the bound (`count`, free here, is the flag:
                // all ones or zero), else min(bound − x₀ (+1), N) as an unsigned number.
                let x0 = match x0_is_a_var {
                    Some(v) => regs.x(v)?,
                    None => {
                        emit_sum(&mut out, rem, None, &p.lin, 1, &regs, tmp, &mut held)?;
                        rem
                    }
                };
                let slt = if p.signed { AluOp::Slt } else { AluOp::Sltu };
                if p.inclusive {
                    out.alu(slt, count, bound, x0);
                    out.addi(count, count, -1);
                } else {
                    out.alu(slt, count, x0, bound);
                    out.sub(count, XReg::ZERO, count);
                }
                out.sub(rem, bound, x0);
                out.li(tmp, plan.flat_len - p.inclusive as i64);
                let short = out.new_label();
                out.bltu(rem, tmp, short);
                out.mv(rem, tmp);
                out.bind(short);
                if p.inclusive {
                    out.addi(rem, rem, 1);
                }
                out.alu(AluOp::And, rem, rem, count);
            }
        }
        None => out.li(rem, plan.flat_len),
    }
    out.alu(AluOp::Divu, count, rem, vlmax);
    out.alu(AluOp::Remu, rem, rem, vlmax);
    let tail = out.new_label();
    out.beq(count, XReg::ZERO, tail);
    // The loop counter: a stream with a constant non-zero step (a runtime step may be 0).
    let counter_stream =
        e.streams.iter().zip(&steps).find(|(_, st)| st.constant().is_some_and(|c| c != 0)).map(|(s, st)| (s.reg, st));
    if let Some((reg, step)) = counter_stream {
        out.mul(lim, count, bump_of(step)?);
        out.add(lim, lim, reg);
    }
    let mut calls_at: Vec<LeafCall> = Vec::new();
    let mut copy_strip = |out: &mut Assembler| {
        for (i, inst) in strip.iter().enumerate() {
            if let Some((_, symbol)) = e.calls.iter().find(|(at, _)| *at == i) {
                calls_at.push(LeafCall { offset: out.offset() as u32, symbol: symbol.clone() });
            }
            out.push(*inst);
        }
    };
    let body = out.new_label();
    out.bind(body);
    copy_strip(&mut out);
    for (s, step) in e.streams.iter().zip(&steps) {
        if step.constant() != Some(0) {
            out.add(s.reg, s.reg, bump_of(step)?);
        }
    }
    match counter_stream {
        Some((reg, _)) => out.bne(reg, lim, body),
        None => {
            out.addi(count, count, -1);
            out.bne(count, XReg::ZERO, body);
        }
    }
    out.bind(tail);
    let done = out.new_label();
    out.beq(rem, XReg::ZERO, done);
    out.vsetvli(XReg::ZERO, rem, base);
    copy_strip(&mut out);
    out.bind(done);
    if let Some(fin) = finish_reg {
        for acc in &e.row_accs {
            finish_row_acc(&mut out, acc, e.vtype_for(acc.w), vlmax, fin);
        }
    }
    if let Some((r1, r2, ftmp)) = arg_finish_regs {
        for a in &e.row_args {
            let vts = (e.vtype_for(a.w), e.vtype_for(POSITION_BYTES));
            finish_row_arg(&mut out, a, vts, vlmax, (r1, r2), ftmp, [tmp, tmp2]);
        }
    }
    for (&(dim, counter), &top) in outer.iter().zip(&tops).rev() {
        out.addi(counter, counter, 1);
        out.li(tmp, nest.shape[dim] as i64);
        out.blt(counter, tmp, top);
    }
    if calls {
        save_area(&mut out, false);
    }
    if let Some(area) = spill_area {
        spill_area_size(&mut out, area);
        out.add(XReg::SP, XReg::SP, area.1);
    }
    for (i, &r) in used_saved.iter().enumerate() {
        out.ld(r, XReg::SP, i as i32 * 8);
    }
    for (i, &r) in used_fsaved.iter().enumerate() {
        out.fload(FFmt::D, r, XReg::SP, fsave_at + i as i32 * 8);
    }
    if frame > 0 {
        out.addi(XReg::SP, XReg::SP, frame);
    }
    out.ret();
    let code = out.finish().ok()?;
    Some((Leaf { args, code, calls: calls_at }, e.splatted))
}
