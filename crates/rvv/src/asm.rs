//! [`Assembler`]: an instruction buffer with labels, branch fix-ups, the usual
//! pseudo-instructions and a listing printer.

use std::fmt::Write;

use crate::encode::{BRANCH_RANGE, JAL_RANGE};
use crate::error::AsmError;
use crate::inst::*;
use crate::ops::*;
use crate::print::Labeled;
use crate::reg::{FReg, VReg, XReg};
use crate::vtype::{Sew, VType};

/// Collects instructions and labels; [`Assembler::finish`] resolves branch targets and
/// encodes everything. Builder methods never fail: operand errors (an immediate out of
/// range, a form the operation lacks) and label errors surface in `finish`.
#[derive(Clone, Debug, Default)]
pub struct Assembler {
    insts: Vec<Inst>,
    /// Instruction index each label is bound to (`None` until `bind`).
    label_positions: Vec<Option<usize>>,
    /// The first misuse of `bind` (a label bound twice or not made here), reported by
    /// `finish`.
    bind_error: Option<AsmError>,
}

/// Assembled machine code: 32-bit little-endian words plus the text it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Code {
    /// One encoded word per instruction, in order.
    pub words: Vec<u32>,
    insts: Vec<Inst>,
    label_positions: Vec<usize>,
}

impl Assembler {
    pub fn new() -> Assembler {
        Assembler::default()
    }

    /// A fresh, unbound label.
    pub fn new_label(&mut self) -> Label {
        self.label_positions.push(None);
        Label(self.label_positions.len() as u32 - 1)
    }

    /// Binds `label` to the next instruction pushed (or to the end of the code).
    pub fn bind(&mut self, label: Label) {
        let error = match self.label_positions.get_mut(label.0 as usize) {
            None => Some(AsmError::UnknownLabel { label }),
            Some(Some(_)) => Some(AsmError::LabelBoundTwice { label }),
            Some(slot) => {
                *slot = Some(self.insts.len());
                None
            }
        };
        if self.bind_error.is_none() {
            self.bind_error = error;
        }
    }

    /// A fresh label bound to the next instruction (a backward branch target).
    pub fn label_here(&mut self) -> Label {
        let label = self.new_label();
        self.bind(label);
        label
    }

    /// Appends one instruction.
    pub fn push(&mut self, inst: Inst) {
        self.insts.push(inst);
    }

    /// Appends a copy of `code`'s instructions; each of its labels becomes a fresh label of
    /// `self` bound at the same place in the copy, so the same code can be appended twice.
    pub fn append(&mut self, code: &Assembler) {
        let labels: Vec<Label> = code.label_positions.iter().map(|_| self.new_label()).collect();
        let start = self.insts.len();
        for inst in &code.insts {
            let inst = match *inst {
                Inst::Branch { cond, rs1, rs2, target: Target::Label(l) } => {
                    Inst::Branch { cond, rs1, rs2, target: Target::Label(labels[l.0 as usize]) }
                }
                Inst::Jal { rd, target: Target::Label(l) } => {
                    Inst::Jal { rd, target: Target::Label(labels[l.0 as usize]) }
                }
                other => other,
            };
            self.insts.push(inst);
        }
        for (label, position) in labels.iter().zip(&code.label_positions) {
            if let Some(p) = position {
                self.label_positions[label.0 as usize] = Some(start + p);
            }
        }
        if self.bind_error.is_none() {
            self.bind_error = code.bind_error.clone();
        }
    }

    /// The instructions pushed so far.
    pub fn insts(&self) -> &[Inst] {
        &self.insts
    }

    /// Byte offset of the next instruction.
    pub fn offset(&self) -> usize {
        self.insts.len() * 4
    }

    /// Resolves labels and encodes every instruction.
    pub fn finish(self) -> Result<Code, AsmError> {
        if let Some(error) = self.bind_error {
            return Err(error);
        }
        let known = self.label_positions.len();
        if let Some(label) = self.insts.iter().filter_map(target_label).find(|l| l.0 as usize >= known) {
            return Err(AsmError::UnknownLabel { label });
        }
        let mut label_positions = Vec::with_capacity(self.label_positions.len());
        for (index, position) in self.label_positions.iter().enumerate() {
            match position {
                Some(p) => label_positions.push(*p),
                None if self.insts.iter().any(|i| refers_to(i, Label(index as u32))) => {
                    return Err(AsmError::UnboundLabel { label: Label(index as u32) })
                }
                // Never used: any position will do.
                None => label_positions.push(self.insts.len()),
            }
        }
        let mut words = Vec::with_capacity(self.insts.len());
        for (index, inst) in self.insts.iter().enumerate() {
            let resolved = resolve(inst, index, &label_positions)?;
            words.push(resolved.encode()?);
        }
        Ok(Code { words, insts: self.insts, label_positions })
    }
}

/// The target label of a branch or jump.
fn target_label(inst: &Inst) -> Option<Label> {
    match inst {
        Inst::Branch { target: Target::Label(label), .. } | Inst::Jal { target: Target::Label(label), .. } => {
            Some(*label)
        }
        _ => None,
    }
}

fn refers_to(inst: &Inst, label: Label) -> bool {
    target_label(inst) == Some(label)
}

/// `inst` (at instruction `index`) with a label target replaced by its byte offset.
fn resolve(inst: &Inst, index: usize, label_positions: &[usize]) -> Result<Inst, AsmError> {
    let Some(label) = target_label(inst) else {
        return Ok(*inst);
    };
    let distance = (label_positions[label.0 as usize] as i64 - index as i64) * 4;
    let ((min, max), resolved) = match *inst {
        Inst::Branch { cond, rs1, rs2, .. } => {
            (BRANCH_RANGE, Inst::Branch { cond, rs1, rs2, target: Target::Offset(distance as i32) })
        }
        Inst::Jal { rd, .. } => (JAL_RANGE, Inst::Jal { rd, target: Target::Offset(distance as i32) }),
        _ => unreachable!("target_label only returns labels of branches and jumps"),
    };
    if distance < min || distance > max {
        return Err(AsmError::BranchOutOfRange { inst: inst.to_string(), at: index * 4, distance, max });
    }
    Ok(resolved)
}

impl Code {
    /// The code as little-endian bytes, ready to place in an object file.
    pub fn bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The instructions, as pushed (branches still name their labels).
    pub fn insts(&self) -> &[Inst] {
        &self.insts
    }

    /// Assembly text: label lines `.L<n>:` at their positions, each instruction on its
    /// own line indented by four spaces, in `llvm-mc` style with aliases. `llvm-mc`
    /// assembles it back to [`Code::words`].
    pub fn listing(&self) -> String {
        self.write_listing("")
    }

    /// The listing of a function: a `symbol:` line, then [`Code::listing`] with labels
    /// named `.L<symbol>_<n>` so that several functions can share one assembly file.
    pub fn listing_as(&self, symbol: &str) -> String {
        format!("{symbol}:\n{}", self.write_listing(&format!("{symbol}_")))
    }

    fn write_listing(&self, label_prefix: &str) -> String {
        let mut labels_at: Vec<(usize, usize)> =
            self.label_positions.iter().enumerate().map(|(label, &pos)| (pos, label)).collect();
        labels_at.sort_unstable();
        let mut labels = labels_at.into_iter().peekable();
        let mut text = String::new();
        for position in 0..=self.insts.len() {
            while let Some((_, label)) = labels.next_if(|&(pos, _)| pos == position) {
                let _ = writeln!(text, ".L{label_prefix}{label}:");
            }
            if let Some(inst) = self.insts.get(position) {
                let _ = writeln!(text, "    {}", Labeled { inst, label_prefix });
            }
        }
        text
    }
}

/// Builder methods: each appends one instruction (`li` may append several).
impl Assembler {
    pub fn alu(&mut self, op: AluOp, rd: XReg, rs1: XReg, rs2: XReg) {
        self.push(Inst::Alu { op, rd, rs1, rs2 });
    }

    pub fn alu_imm(&mut self, op: AluImmOp, rd: XReg, rs1: XReg, imm: i32) {
        self.push(Inst::AluImm { op, rd, rs1, imm });
    }

    pub fn add(&mut self, rd: XReg, rs1: XReg, rs2: XReg) {
        self.alu(AluOp::Add, rd, rs1, rs2);
    }

    pub fn sub(&mut self, rd: XReg, rs1: XReg, rs2: XReg) {
        self.alu(AluOp::Sub, rd, rs1, rs2);
    }

    pub fn mul(&mut self, rd: XReg, rs1: XReg, rs2: XReg) {
        self.alu(AluOp::Mul, rd, rs1, rs2);
    }

    pub fn addi(&mut self, rd: XReg, rs1: XReg, imm: i32) {
        self.alu_imm(AluImmOp::Addi, rd, rs1, imm);
    }

    pub fn slli(&mut self, rd: XReg, rs1: XReg, shamt: i32) {
        self.alu_imm(AluImmOp::Slli, rd, rs1, shamt);
    }

    pub fn srli(&mut self, rd: XReg, rs1: XReg, shamt: i32) {
        self.alu_imm(AluImmOp::Srli, rd, rs1, shamt);
    }

    /// `mv rd, rs` (`addi rd, rs, 0`).
    pub fn mv(&mut self, rd: XReg, rs: XReg) {
        self.addi(rd, rs, 0);
    }

    /// `nop` (`addi zero, zero, 0`).
    pub fn nop(&mut self) {
        self.addi(XReg::ZERO, XReg::ZERO, 0);
    }

    /// The hint `slti zero, zero, imm`: no architectural effect, visible in traces.
    pub fn hint(&mut self, imm: i32) {
        self.alu_imm(AluImmOp::Slti, XReg::ZERO, XReg::ZERO, imm);
    }

    /// `li rd, value`: materialises any 64-bit value with the sequence of
    /// [`li_sequence`].
    pub fn li(&mut self, rd: XReg, value: i64) {
        self.insts.extend(li_sequence(rd, value));
    }

    pub fn load(&mut self, op: LoadOp, rd: XReg, base: XReg, offset: i32) {
        self.push(Inst::Load { op, rd, base, offset });
    }

    pub fn store(&mut self, op: StoreOp, src: XReg, base: XReg, offset: i32) {
        self.push(Inst::Store { op, src, base, offset });
    }

    pub fn ld(&mut self, rd: XReg, base: XReg, offset: i32) {
        self.load(LoadOp::Ld, rd, base, offset);
    }

    pub fn sd(&mut self, src: XReg, base: XReg, offset: i32) {
        self.store(StoreOp::Sd, src, base, offset);
    }

    pub fn fload(&mut self, fmt: FFmt, rd: FReg, base: XReg, offset: i32) {
        self.push(Inst::FLoad { fmt, rd, base, offset });
    }

    pub fn fstore(&mut self, fmt: FFmt, src: FReg, base: XReg, offset: i32) {
        self.push(Inst::FStore { fmt, src, base, offset });
    }

    /// `b<cond> rs1, rs2, label`
    pub fn branch(&mut self, cond: BranchCond, rs1: XReg, rs2: XReg, label: Label) {
        self.push(Inst::Branch { cond, rs1, rs2, target: Target::Label(label) });
    }

    pub fn beq(&mut self, rs1: XReg, rs2: XReg, label: Label) {
        self.branch(BranchCond::Eq, rs1, rs2, label);
    }

    pub fn bne(&mut self, rs1: XReg, rs2: XReg, label: Label) {
        self.branch(BranchCond::Ne, rs1, rs2, label);
    }

    pub fn blt(&mut self, rs1: XReg, rs2: XReg, label: Label) {
        self.branch(BranchCond::Lt, rs1, rs2, label);
    }

    pub fn bge(&mut self, rs1: XReg, rs2: XReg, label: Label) {
        self.branch(BranchCond::Ge, rs1, rs2, label);
    }

    pub fn bltu(&mut self, rs1: XReg, rs2: XReg, label: Label) {
        self.branch(BranchCond::Ltu, rs1, rs2, label);
    }

    pub fn bgeu(&mut self, rs1: XReg, rs2: XReg, label: Label) {
        self.branch(BranchCond::Geu, rs1, rs2, label);
    }

    /// `jal rd, label`
    pub fn jal(&mut self, rd: XReg, label: Label) {
        self.push(Inst::Jal { rd, target: Target::Label(label) });
    }

    /// `j label` (`jal zero, label`).
    pub fn j(&mut self, label: Label) {
        self.jal(XReg::ZERO, label);
    }

    pub fn jalr(&mut self, rd: XReg, base: XReg, offset: i32) {
        self.push(Inst::Jalr { rd, base, offset });
    }

    /// `ret` (`jalr zero, 0(ra)`).
    pub fn ret(&mut self) {
        self.jalr(XReg::ZERO, XReg::RA, 0);
    }

    /// `csrr rd, csr` (`csrrs rd, csr, zero`), e.g. `csrr t0, vlenb`.
    pub fn csrr(&mut self, rd: XReg, csr: Csr) {
        self.push(Inst::Csr { op: CsrOp::ReadSet, rd, csr, rs1: XReg::ZERO });
    }

    /// `vsetvli rd, avl, vtype`
    pub fn vsetvli(&mut self, rd: XReg, avl: XReg, vtype: VType) {
        self.push(Inst::VSetVli { rd, avl, vtype });
    }

    /// `vsetivli rd, avl, vtype` (`avl < 32`).
    pub fn vsetivli(&mut self, rd: XReg, avl: u8, vtype: VType) {
        self.push(Inst::VSetIVli { rd, avl, vtype });
    }

    /// `vsetvl rd, avl, vtype_reg`
    pub fn vsetvl(&mut self, rd: XReg, avl: XReg, vtype: XReg) {
        self.push(Inst::VSetVl { rd, avl, vtype });
    }

    /// Vector load of `eew`-bit elements (index width for indexed modes).
    pub fn vload(&mut self, eew: Sew, mode: VMemMode, vd: VReg, base: XReg, mask: Mask) {
        self.push(Inst::VLoad { eew, mode, vd, base, mask });
    }

    /// Vector store of `eew`-bit elements (index width for indexed modes).
    pub fn vstore(&mut self, eew: Sew, mode: VMemMode, src: VReg, base: XReg, mask: Mask) {
        self.push(Inst::VStore { eew, mode, src, base, mask });
    }

    /// `vle<eew>.v vd, (base)`
    pub fn vle(&mut self, eew: Sew, vd: VReg, base: XReg, mask: Mask) {
        self.vload(eew, VMemMode::UnitStride, vd, base, mask);
    }

    /// `vse<eew>.v src, (base)`
    pub fn vse(&mut self, eew: Sew, src: VReg, base: XReg, mask: Mask) {
        self.vstore(eew, VMemMode::UnitStride, src, base, mask);
    }

    /// A binary vector operation `vd = op(vs2, src1)`; `src1` is a `VReg`, `XReg`,
    /// `FReg` or `i32` immediate. Multiply-adds print as `op vd, src1, vs2`.
    pub fn vop(&mut self, op: VBinOp, vd: VReg, vs2: VReg, src1: impl Into<VSrc>, mask: Mask) {
        self.push(Inst::VBinary { op, vd, vs2, src1: src1.into(), mask });
    }

    pub fn vunary(&mut self, op: VUnaryOp, vd: VReg, vs2: VReg, mask: Mask) {
        self.push(Inst::VUnary { op, vd, vs2, mask });
    }

    /// `vmv.v.v`, `vmv.v.x`, `vmv.v.i` or `vfmv.v.f`, by the kind of `src`.
    pub fn vmv(&mut self, vd: VReg, src: impl Into<VSrc>) {
        self.push(Inst::VMv { vd, src: src.into() });
    }

    /// `vl<nregs>re<eew>.v vd, (base)`: reload `nregs` whole registers (spills).
    pub fn vload_whole(&mut self, nregs: u8, eew: Sew, vd: VReg, base: XReg) {
        self.push(Inst::VLoadWhole { nregs, eew, vd, base });
    }

    /// `vs<nregs>r.v src, (base)`: store `nregs` whole registers (spills).
    pub fn vstore_whole(&mut self, nregs: u8, src: VReg, base: XReg) {
        self.push(Inst::VStoreWhole { nregs, src, base });
    }

    /// `vmv<nregs>r.v vd, vs2`: copy `nregs` whole registers regardless of `vl`.
    pub fn vmv_whole(&mut self, nregs: u8, vd: VReg, vs2: VReg) {
        self.push(Inst::VMvWhole { nregs, vd, vs2 });
    }

    /// `vid.v vd`
    pub fn vid(&mut self, vd: VReg, mask: Mask) {
        self.push(Inst::VId { vd, mask });
    }
}

/// The instructions `li rd, value` stands for; `value` is any 64-bit integer.
///
/// Sequence (the same recursion as LLVM's `RISCVMatInt`, without its search for shorter
/// variants):
/// - `value` fits in 32 signed bits: `lui rd, hi20` then `addiw rd, rd, lo12`, where
///   `lo12` is the sign-extended low 12 bits and `hi20 = (value - lo12) >> 12`; either
///   instruction is left out when its immediate is zero, and a lone `lo12` becomes
///   `addi rd, zero, lo12`. `addiw` (not `addi`) makes values just below 2³¹, whose
///   `hi20` wraps to a negative `lui`, come out right.
/// - otherwise: split off `lo12` as above; the rest is `hi << shift` with `shift >= 12`
///   taken as large as the trailing zeros allow; emit `li rd, hi` recursively, then
///   `slli rd, rd, shift` and, if `lo12 != 0`, `addi rd, rd, lo12`.
///
/// Each recursion level strips at least 12 bits, so the sequence has at most 8
/// instructions and uses no register besides `rd`.
pub fn li_sequence(rd: XReg, value: i64) -> Vec<Inst> {
    let mut seq = Vec::new();
    push_li(rd, value, &mut seq);
    seq
}

/// Sign-extends the low `bits` bits of `value`.
fn sign_extend(value: i64, bits: u32) -> i64 {
    let unused = 64 - bits;
    (value << unused) >> unused
}

fn push_li(rd: XReg, value: i64, seq: &mut Vec<Inst>) {
    let lo12 = sign_extend(value, 12);
    if i32::try_from(value).is_ok() {
        let hi20 = ((value - lo12) >> 12) & 0xfffff;
        if hi20 == 0 {
            seq.push(Inst::AluImm { op: AluImmOp::Addi, rd, rs1: XReg::ZERO, imm: lo12 as i32 });
            return;
        }
        seq.push(Inst::Lui { rd, imm20: hi20 as u32 });
        if lo12 != 0 {
            seq.push(Inst::AluImm { op: AluImmOp::Addiw, rd, rs1: rd, imm: lo12 as i32 });
        }
        return;
    }
    // `value - lo12` rounded to a multiple of 4096, as an unsigned 52-bit quantity; it
    // is non-zero because `value` does not fit in 32 bits.
    let hi52 = (value as u64).wrapping_add(0x800) >> 12;
    let zeros = hi52.trailing_zeros();
    let shift = 12 + zeros;
    let hi = sign_extend((hi52 >> zeros) as i64, 64 - shift);
    push_li(rd, hi, seq);
    seq.push(Inst::AluImm { op: AluImmOp::Slli, rd, rs1: rd, imm: shift as i32 });
    if lo12 != 0 {
        seq.push(Inst::AluImm { op: AluImmOp::Addi, rd, rs1: rd, imm: lo12 as i32 });
    }
}
