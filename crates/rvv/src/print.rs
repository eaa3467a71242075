//! Assembly text of [`Inst`] in GNU/LLVM syntax.
//!
//! Two styles, both matching `llvm-mc` output exactly (up to whitespace: one space after
//! the mnemonic): [`Inst`]'s `Display` prints like `llvm-mc` by default, with the
//! standard aliases (`li`, `mv`, `ret`, `csrr`, `vmv1r.v`, ...) and without a dynamic
//! rounding mode; [`Inst::canonical`] prints every instruction under its own name with
//! all operands, like `llvm-mc -M no-aliases`.

use std::fmt::{self, Display, Formatter, Write};

use crate::inst::*;
use crate::ops::*;
use crate::reg::{VReg, XReg};

/// Printing style; see the module documentation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Aliases,
    Canonical,
}

/// [`Inst`] printed in [`Inst::canonical`] style.
pub struct Canonical<'a>(&'a Inst);

impl Display for Canonical<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_inst(self.0, f, Style::Canonical, "")
    }
}

impl Inst {
    /// The instruction under its own mnemonic with every operand (no aliases).
    pub fn canonical(&self) -> Canonical<'_> {
        Canonical(self)
    }
}

impl Display for Inst {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_inst(self, f, Style::Aliases, "")
    }
}

impl Display for Target {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        TargetText { target: *self, label_prefix: "" }.fmt(f)
    }
}

/// A branch target as printed: a byte offset, or a label `.L<label_prefix><n>`.
struct TargetText<'a> {
    target: Target,
    label_prefix: &'a str,
}

impl Display for TargetText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.target {
            Target::Label(label) => write!(f, ".L{}{}", self.label_prefix, label.index()),
            Target::Offset(off) => write!(f, "{off}"),
        }
    }
}

/// `inst` printed with aliases, label targets as `.L<label_prefix><n>`.
pub(crate) struct Labeled<'a> {
    pub inst: &'a Inst,
    pub label_prefix: &'a str,
}

impl Display for Labeled<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_inst(self.inst, f, Style::Aliases, self.label_prefix)
    }
}

impl Display for Csr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "{}", self.0),
        }
    }
}

impl Display for FenceSet {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("0");
        }
        for (bit, letter) in [(8, 'i'), (4, 'o'), (2, 'r'), (1, 'w')] {
            if self.0 & bit != 0 {
                f.write_char(letter)?;
            }
        }
        Ok(())
    }
}

/// `, v0.t` for masked instructions, nothing otherwise.
struct MaskSuffix(Mask);

impl Display for MaskSuffix {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.0 {
            Mask::Unmasked => Ok(()),
            Mask::V0 => f.write_str(", v0.t"),
        }
    }
}

/// `, <rm>` unless the style leaves this rounding mode implicit.
struct RmSuffix {
    rm: RoundingMode,
    style: Style,
    /// The rounding mode the assembler assumes when none is written: `rne` for the
    /// exact conversions (`fcvt.d.s`, `fcvt.d.w[u]`), `dyn` otherwise.
    default: RoundingMode,
}

impl Display for RmSuffix {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let implicit = self.rm == self.default && (self.style == Style::Aliases || self.default == RoundingMode::Rne);
        if implicit {
            Ok(())
        } else {
            write!(f, ", {}", self.rm.name())
        }
    }
}

fn amo_ordering(aq: bool, rl: bool) -> &'static str {
    match (aq, rl) {
        (false, false) => "",
        (true, false) => ".aq",
        (false, true) => ".rl",
        (true, true) => ".aqrl",
    }
}

/// Suffix letters of a binary vector operation with `src1`, e.g. `vv`, `wx`, `vim`.
fn vbin_suffix(shape: VShape, src1: VSrc) -> String {
    let operand = match src1 {
        VSrc::V(_) => 'v',
        VSrc::X(_) => 'x',
        VSrc::F(_) => 'f',
        VSrc::Imm(_) => 'i',
    };
    match shape {
        VShape::Plain | VShape::MulAdd => format!("v{operand}"),
        VShape::Wide => format!("w{operand}"),
        VShape::Merge => format!("v{operand}m"),
        VShape::Reduction => "vs".to_string(),
        VShape::MaskLogic => "mm".to_string(),
        VShape::Compress => "vm".to_string(),
    }
}

impl Display for VSrc {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            VSrc::V(r) => r.fmt(f),
            VSrc::X(r) => r.fmt(f),
            VSrc::F(r) => r.fmt(f),
            VSrc::Imm(imm) => imm.fmt(f),
        }
    }
}

/// Whether `fcvt.<fmt>.<int>` is exact, so that its default rounding mode is `rne`.
fn exact_int_to_float(int: IntKind, fmt: FFmt) -> bool {
    fmt == FFmt::D && matches!(int, IntKind::W | IntKind::Wu)
}

/// Writes `inst`; label targets print as `.L<label_prefix><n>`.
pub(crate) fn write_inst(inst: &Inst, f: &mut Formatter<'_>, style: Style, label_prefix: &str) -> fmt::Result {
    if style == Style::Aliases {
        if let Some(text) = alias(inst, label_prefix) {
            return f.write_str(&text);
        }
    }
    let rm_suffix = |rm, default| RmSuffix { rm, style, default };
    match *inst {
        Inst::Lui { rd, imm20 } => write!(f, "lui {rd}, {imm20}"),
        Inst::Auipc { rd, imm20 } => write!(f, "auipc {rd}, {imm20}"),
        Inst::Alu { op, rd, rs1, rs2 } => write!(f, "{} {rd}, {rs1}, {rs2}", op.info().name),
        Inst::AluImm { op, rd, rs1, imm } => write!(f, "{} {rd}, {rs1}, {imm}", op.info().name),
        Inst::Load { op, rd, base, offset } => {
            write!(f, "{} {rd}, {offset}({base})", op.info().name)
        }
        Inst::Store { op, src, base, offset } => {
            write!(f, "{} {src}, {offset}({base})", op.info().name)
        }
        Inst::Branch { cond, rs1, rs2, target } => {
            let target = TargetText { target, label_prefix };
            write!(f, "{} {rs1}, {rs2}, {target}", cond.info().name)
        }
        Inst::Jal { rd, target } => {
            let target = TargetText { target, label_prefix };
            write!(f, "jal {rd}, {target}")
        }
        Inst::Jalr { rd, base, offset } => write!(f, "jalr {rd}, {offset}({base})"),
        Inst::Csr { op, rd, csr, rs1 } => write!(f, "{} {rd}, {csr}, {rs1}", op.info().name),
        Inst::CsrImm { op, rd, csr, uimm } => {
            write!(f, "{}i {rd}, {csr}, {uimm}", op.info().name)
        }
        Inst::Fence { pred, succ } => write!(f, "fence {pred}, {succ}"),
        Inst::Amo { op, width, aq, rl, rd, src, addr } => {
            let name = op.info().name;
            let order = amo_ordering(aq, rl);
            let width = width.suffix();
            if op == AmoOp::LoadReserved {
                write!(f, "{name}.{width}{order} {rd}, ({addr})")
            } else {
                write!(f, "{name}.{width}{order} {rd}, {src}, ({addr})")
            }
        }
        Inst::FLoad { fmt, rd, base, offset } => {
            write!(f, "fl{} {rd}, {offset}({base})", fmt.mv_letter())
        }
        Inst::FStore { fmt, src, base, offset } => {
            write!(f, "fs{} {src}, {offset}({base})", fmt.mv_letter())
        }
        Inst::FArith { op, fmt, rd, rs1, rs2, rm } => {
            write!(f, "{}.{} {rd}, {rs1}, {rs2}{}", op.info().name, fmt.suffix(), rm_suffix(rm, RoundingMode::Dyn))
        }
        Inst::FSqrt { fmt, rd, rs1, rm } => {
            write!(f, "fsqrt.{} {rd}, {rs1}{}", fmt.suffix(), rm_suffix(rm, RoundingMode::Dyn))
        }
        Inst::FBin { op, fmt, rd, rs1, rs2 } => {
            write!(f, "{}.{} {rd}, {rs1}, {rs2}", op.info().name, fmt.suffix())
        }
        Inst::FFma { op, fmt, rd, rs1, rs2, rs3, rm } => write!(
            f,
            "{}.{} {rd}, {rs1}, {rs2}, {rs3}{}",
            op.info().name,
            fmt.suffix(),
            rm_suffix(rm, RoundingMode::Dyn)
        ),
        Inst::FCmp { op, fmt, rd, rs1, rs2 } => {
            write!(f, "{}.{} {rd}, {rs1}, {rs2}", op.info().name, fmt.suffix())
        }
        Inst::FCvtToInt { int, fmt, rd, rs1, rm } => {
            write!(f, "fcvt.{}.{} {rd}, {rs1}{}", int.info().name, fmt.suffix(), rm_suffix(rm, RoundingMode::Dyn))
        }
        Inst::FCvtFromInt { int, fmt, rd, rs1, rm } => {
            let default = if exact_int_to_float(int, fmt) { RoundingMode::Rne } else { RoundingMode::Dyn };
            write!(f, "fcvt.{}.{} {rd}, {rs1}{}", fmt.suffix(), int.info().name, rm_suffix(rm, default))
        }
        Inst::FCvtFmt { to: FFmt::S, rd, rs1, rm } => {
            write!(f, "fcvt.s.d {rd}, {rs1}{}", rm_suffix(rm, RoundingMode::Dyn))
        }
        Inst::FCvtFmt { to: FFmt::D, rd, rs1, rm } => {
            write!(f, "fcvt.d.s {rd}, {rs1}{}", rm_suffix(rm, RoundingMode::Rne))
        }
        Inst::FMvToInt { fmt, rd, rs1 } => write!(f, "fmv.x.{} {rd}, {rs1}", fmt.mv_letter()),
        Inst::FMvFromInt { fmt, rd, rs1 } => write!(f, "fmv.{}.x {rd}, {rs1}", fmt.mv_letter()),

        Inst::VSetVli { rd, avl, vtype } => write!(f, "vsetvli {rd}, {avl}, {vtype}"),
        Inst::VSetIVli { rd, avl, vtype } => write!(f, "vsetivli {rd}, {avl}, {vtype}"),
        Inst::VSetVl { rd, avl, vtype } => write!(f, "vsetvl {rd}, {avl}, {vtype}"),
        Inst::VLoad { eew, mode, vd, base, mask } => write_vmem(f, "l", eew.bits(), mode, vd, base, mask),
        Inst::VStore { eew, mode, src, base, mask } => write_vmem(f, "s", eew.bits(), mode, src, base, mask),
        Inst::VLoadWhole { nregs, eew, vd, base } => {
            write!(f, "vl{nregs}re{}.v {vd}, ({base})", eew.bits())
        }
        Inst::VStoreWhole { nregs, src, base } => write!(f, "vs{nregs}r.v {src}, ({base})"),
        Inst::VLoadMask { vd, base } => write!(f, "vlm.v {vd}, ({base})"),
        Inst::VStoreMask { src, base } => write!(f, "vsm.v {src}, ({base})"),
        Inst::VBinary { op, vd, vs2, src1, mask } => {
            let info = op.info();
            let name = info.name;
            let suffix = vbin_suffix(info.shape, src1);
            let mask = MaskSuffix(mask);
            match info.shape {
                VShape::MulAdd => write!(f, "{name}.{suffix} {vd}, {src1}, {vs2}{mask}"),
                VShape::Merge => write!(f, "{name}.{suffix} {vd}, {vs2}, {src1}, v0"),
                _ => write!(f, "{name}.{suffix} {vd}, {vs2}, {src1}{mask}"),
            }
        }
        Inst::VUnary { op, vd, vs2, mask } => {
            write!(f, "{} {vd}, {vs2}{}", op.info().name, MaskSuffix(mask))
        }
        Inst::VId { vd, mask } => write!(f, "vid.v {vd}{}", MaskSuffix(mask)),
        Inst::VMv { vd, src } => match src {
            VSrc::V(_) => write!(f, "vmv.v.v {vd}, {src}"),
            VSrc::X(_) => write!(f, "vmv.v.x {vd}, {src}"),
            VSrc::Imm(_) => write!(f, "vmv.v.i {vd}, {src}"),
            VSrc::F(_) => write!(f, "vfmv.v.f {vd}, {src}"),
        },
        Inst::VMvWhole { nregs, vd, vs2 } => write!(f, "vmv{nregs}r.v {vd}, {vs2}"),
        Inst::VMvXS { rd, vs2 } => write!(f, "vmv.x.s {rd}, {vs2}"),
        Inst::VMvSX { vd, rs1 } => write!(f, "vmv.s.x {vd}, {rs1}"),
        Inst::VFMvFS { rd, vs2 } => write!(f, "vfmv.f.s {rd}, {vs2}"),
        Inst::VFMvSF { vd, rs1 } => write!(f, "vfmv.s.f {vd}, {rs1}"),
        Inst::VMaskScalar { op, rd, vs2, mask } => {
            write!(f, "{} {rd}, {vs2}{}", op.info().name, MaskSuffix(mask))
        }
        Inst::Word(w) => write!(f, ".word {w:#010x}"),
    }
}

/// `v{l,s}{e,se,uxei,oxei}<eew>[ff].v reg, (base)[, stride|index][, v0.t]`
fn write_vmem(
    f: &mut Formatter<'_>,
    dir: &str,
    eew: u32,
    mode: VMemMode,
    reg: VReg,
    base: XReg,
    mask: Mask,
) -> fmt::Result {
    let mask = MaskSuffix(mask);
    match mode {
        VMemMode::UnitStride => write!(f, "v{dir}e{eew}.v {reg}, ({base}){mask}"),
        VMemMode::FaultOnlyFirst => write!(f, "v{dir}e{eew}ff.v {reg}, ({base}){mask}"),
        VMemMode::Strided(stride) => write!(f, "v{dir}se{eew}.v {reg}, ({base}), {stride}{mask}"),
        VMemMode::Indexed { index, ordered } => {
            let order = if ordered { 'o' } else { 'u' };
            write!(f, "v{dir}{order}xei{eew}.v {reg}, ({base}), {index}{mask}")
        }
    }
}

/// The alias `llvm-mc` prints for `inst`, if it has one. Where two aliases match
/// (`slt a0, zero, zero`), the first in this function is the one `llvm-mc` picks.
fn alias(inst: &Inst, label_prefix: &str) -> Option<String> {
    let zero = XReg::ZERO;
    Some(match *inst {
        Inst::AluImm { op: AluImmOp::Addi, rd, rs1, imm } => match (rd, rs1, imm) {
            (XReg::ZERO, XReg::ZERO, 0) => "nop".to_string(),
            (_, XReg::ZERO, _) => format!("li {rd}, {imm}"),
            (_, _, 0) => format!("mv {rd}, {rs1}"),
            _ => return None,
        },
        Inst::AluImm { op: AluImmOp::Addiw, rd, rs1, imm: 0 } => format!("sext.w {rd}, {rs1}"),
        Inst::AluImm { op: AluImmOp::Xori, rd, rs1, imm: -1 } => format!("not {rd}, {rs1}"),
        Inst::AluImm { op: AluImmOp::Sltiu, rd, rs1, imm: 1 } => format!("seqz {rd}, {rs1}"),
        Inst::Alu { op, rd, rs1, rs2 } => match op {
            AluOp::Sub if rs1 == zero => format!("neg {rd}, {rs2}"),
            AluOp::Subw if rs1 == zero => format!("negw {rd}, {rs2}"),
            AluOp::Sltu if rs1 == zero => format!("snez {rd}, {rs2}"),
            AluOp::Slt if rs2 == zero => format!("sltz {rd}, {rs1}"),
            AluOp::Slt if rs1 == zero => format!("sgtz {rd}, {rs2}"),
            _ => return None,
        },
        Inst::Branch { cond, rs1, rs2, target } => match (cond, TargetText { target, label_prefix }) {
            (BranchCond::Eq, target) if rs2 == zero => format!("beqz {rs1}, {target}"),
            (BranchCond::Ne, target) if rs2 == zero => format!("bnez {rs1}, {target}"),
            (BranchCond::Ge, target) if rs1 == zero => format!("blez {rs2}, {target}"),
            (BranchCond::Ge, target) if rs2 == zero => format!("bgez {rs1}, {target}"),
            (BranchCond::Lt, target) if rs2 == zero => format!("bltz {rs1}, {target}"),
            (BranchCond::Lt, target) if rs1 == zero => format!("bgtz {rs2}, {target}"),
            _ => return None,
        },
        Inst::Jal { rd: XReg::ZERO, target } => format!("j {}", TargetText { target, label_prefix }),
        Inst::Jal { rd: XReg::RA, target } => format!("jal {}", TargetText { target, label_prefix }),
        Inst::Jalr { rd, base, offset } => match (rd, base, offset) {
            (XReg::ZERO, XReg::RA, 0) => "ret".to_string(),
            (XReg::ZERO, _, 0) => format!("jr {base}"),
            (XReg::RA, _, 0) => format!("jalr {base}"),
            (XReg::ZERO, _, _) => format!("jr {offset}({base})"),
            (XReg::RA, _, _) => format!("jalr {offset}({base})"),
            _ => return None,
        },
        Inst::Csr { op, rd, csr, rs1 } => return csr_alias(op, rd, csr, rs1),
        Inst::CsrImm { op, rd, csr, uimm } => {
            let name = match (op, csr) {
                (CsrOp::ReadWrite, Csr::FRM) => "fsrmi",
                (CsrOp::ReadWrite, Csr::FFLAGS) => "fsflagsi",
                _ if rd != zero => return None,
                (CsrOp::ReadWrite, _) => return Some(format!("csrwi {csr}, {uimm}")),
                (CsrOp::ReadSet, _) => return Some(format!("csrsi {csr}, {uimm}")),
                (CsrOp::ReadClear, _) => return Some(format!("csrci {csr}, {uimm}")),
            };
            if rd == zero {
                format!("{name} {uimm}")
            } else {
                format!("{name} {rd}, {uimm}")
            }
        }
        Inst::Fence { pred: FenceSet::IORW, succ: FenceSet::IORW } => "fence".to_string(),
        Inst::FBin { op, fmt, rd, rs1, rs2 } if rs1 == rs2 => {
            let name = match op {
                FBinOp::Sgnj => "fmv",
                FBinOp::Sgnjn => "fneg",
                FBinOp::Sgnjx => "fabs",
                FBinOp::Min | FBinOp::Max => return None,
            };
            format!("{name}.{} {rd}, {rs1}", fmt.suffix())
        }
        Inst::VLoadWhole { nregs, eew: crate::vtype::Sew::E8, vd, base } => {
            format!("vl{nregs}r.v {vd}, ({base})")
        }
        Inst::VBinary { op, vd, vs2, src1, mask } => {
            let mask = MaskSuffix(mask);
            let name = match (op, src1) {
                (VBinOp::Rsub, VSrc::X(XReg::ZERO)) => "vneg.v",
                (VBinOp::Wadd, VSrc::X(XReg::ZERO)) => "vwcvt.x.x.v",
                (VBinOp::Waddu, VSrc::X(XReg::ZERO)) => "vwcvtu.x.x.v",
                (VBinOp::Nsrl, VSrc::X(XReg::ZERO)) => "vncvt.x.x.w",
                (VBinOp::Xor, VSrc::Imm(-1)) => "vnot.v",
                (VBinOp::Fsgnjn, VSrc::V(vs1)) if vs1 == vs2 => "vfneg.v",
                (VBinOp::Fsgnjx, VSrc::V(vs1)) if vs1 == vs2 => "vfabs.v",
                (VBinOp::Mxor, VSrc::V(vs1)) if vs1 == vs2 && vd == vs2 => return Some(format!("vmclr.m {vd}")),
                (VBinOp::Mxnor, VSrc::V(vs1)) if vs1 == vs2 && vd == vs2 => return Some(format!("vmset.m {vd}")),
                (VBinOp::Mand, VSrc::V(vs1)) if vs1 == vs2 => "vmmv.m",
                (VBinOp::Mnand, VSrc::V(vs1)) if vs1 == vs2 => "vmnot.m",
                _ => return None,
            };
            format!("{name} {vd}, {vs2}{mask}")
        }
        _ => return None,
    })
}

/// Aliases of the register forms of `csrrw`/`csrrs`/`csrrc`.
fn csr_alias(op: CsrOp, rd: XReg, csr: Csr, rs1: XReg) -> Option<String> {
    let zero = XReg::ZERO;
    // Reads and swaps of the floating-point CSRs have their own names.
    let float_name = match (op, csr) {
        (CsrOp::ReadWrite, Csr::FCSR) => Some("fscsr"),
        (CsrOp::ReadWrite, Csr::FRM) => Some("fsrm"),
        (CsrOp::ReadWrite, Csr::FFLAGS) => Some("fsflags"),
        _ => None,
    };
    if let Some(name) = float_name {
        return Some(if rd == zero { format!("{name} {rs1}") } else { format!("{name} {rd}, {rs1}") });
    }
    if op == CsrOp::ReadSet && rs1 == zero {
        let read_name = match csr {
            Csr::FCSR => "frcsr",
            Csr::FRM => "frrm",
            Csr::FFLAGS => "frflags",
            Csr::CYCLE => "rdcycle",
            Csr::TIME => "rdtime",
            Csr::INSTRET => "rdinstret",
            _ => return Some(format!("csrr {rd}, {csr}")),
        };
        return Some(format!("{read_name} {rd}"));
    }
    if rd != zero {
        return None;
    }
    let name = match op {
        CsrOp::ReadWrite => "csrw",
        CsrOp::ReadSet => "csrs",
        CsrOp::ReadClear => "csrc",
    };
    Some(format!("{name} {csr}, {rs1}"))
}
