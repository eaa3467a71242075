//! Binary encoding of [`Inst`]: field packing per instruction format, with every
//! operand range checked.

use crate::error::AsmError;
use crate::inst::*;
use crate::ops::*;
use crate::reg::{VReg, XReg};

/// Reach of a conditional branch: a signed 13-bit even byte offset.
pub(crate) const BRANCH_RANGE: (i64, i64) = (-4096, 4094);
/// Reach of `jal`: a signed 21-bit even byte offset.
pub(crate) const JAL_RANGE: (i64, i64) = (-(1 << 20), (1 << 20) - 2);

fn r_type(opcode: u32, rd: u32, funct3: u32, rs1: u32, rs2: u32, funct7: u32) -> u32 {
    (funct7 << 25) | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | opcode
}

/// The immediate fields of the base instruction formats: each function places an immediate
/// (or byte offset) at its format's bit positions, the rest of the word zero; bits of the
/// value beyond what the format holds are dropped (range checks are the caller's).
pub mod imm_fields {
    /// I-type: `imm[11:0]` in bits 31:20.
    pub fn i(imm: i64) -> u32 {
        ((imm as u32) & 0xfff) << 20
    }

    /// S-type: `imm[11:5]` in bits 31:25, `imm[4:0]` in bits 11:7.
    pub fn s(imm: i64) -> u32 {
        let imm = imm as u32;
        (((imm >> 5) & 0x7f) << 25) | ((imm & 0x1f) << 7)
    }

    /// B-type: the even offset's `[12|10:5]` in bits 31:25, `[4:1|11]` in bits 11:7.
    pub fn b(offset: i64) -> u32 {
        let off = offset as u32;
        (((off >> 12) & 1) << 31) | (((off >> 5) & 0x3f) << 25) | (((off >> 1) & 0xf) << 8) | (((off >> 11) & 1) << 7)
    }

    /// J-type: the even offset's `[20|10:1|11|19:12]` in bits 31:12.
    pub fn j(offset: i64) -> u32 {
        let off = offset as u32;
        (((off >> 20) & 1) << 31)
            | (((off >> 1) & 0x3ff) << 21)
            | (((off >> 11) & 1) << 20)
            | (((off >> 12) & 0xff) << 12)
    }

    /// U-type: `imm[19:0]` (the upper 20 bits of a 32-bit value) in bits 31:12.
    pub fn u(hi: i64) -> u32 {
        ((hi as u32) & 0xfffff) << 12
    }

    /// Compressed CB-type (`c.beqz`, `c.bnez`, 16 bits): the even offset's `[8|4:3]` in
    /// bits 12:10, `[7:6|2:1|5]` in bits 6:2.
    pub fn cb(offset: i64) -> u16 {
        let off = offset as u16;
        (((off >> 8) & 1) << 12)
            | (((off >> 3) & 3) << 10)
            | (((off >> 6) & 3) << 5)
            | (((off >> 1) & 3) << 3)
            | (((off >> 5) & 1) << 2)
    }

    /// Compressed CJ-type (`c.j`, 16 bits): the even offset's `[11|4|9:8|10|6|7|3:1|5]` in
    /// bits 12:2.
    pub fn cj(offset: i64) -> u16 {
        let off = offset as u16;
        (((off >> 11) & 1) << 12)
            | (((off >> 4) & 1) << 11)
            | (((off >> 8) & 3) << 9)
            | (((off >> 10) & 1) << 8)
            | (((off >> 6) & 1) << 7)
            | (((off >> 7) & 1) << 6)
            | (((off >> 1) & 7) << 3)
            | (((off >> 5) & 1) << 2)
    }
}

fn i_type(opcode: u32, rd: u32, funct3: u32, rs1: u32, imm12: i32) -> u32 {
    imm_fields::i(imm12.into()) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | opcode
}

fn s_type(opcode: u32, funct3: u32, rs1: u32, rs2: u32, imm12: i32) -> u32 {
    imm_fields::s(imm12.into()) | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) | opcode
}

fn b_type(funct3: u32, rs1: u32, rs2: u32, offset: i32) -> u32 {
    imm_fields::b(offset.into()) | (rs2 << 20) | (rs1 << 15) | (funct3 << 12) | OPC_BRANCH
}

fn j_type(rd: u32, offset: i32) -> u32 {
    imm_fields::j(offset.into()) | (rd << 7) | OPC_JAL
}

/// OP-V arithmetic format: `funct6 | vm | vs2 | vs1/rs1/imm | funct3 | vd/rd | 0x57`.
fn v_type(funct6: u32, vm: u32, vs2: u32, src1: u32, funct3: u32, vd: u32) -> u32 {
    (funct6 << 26) | (vm << 25) | (vs2 << 20) | ((src1 & 0x1f) << 15) | (funct3 << 12) | (vd << 7) | OPC_OP_V
}

/// Vector load/store format: `nf | mew | mop | vm | field | rs1 | width | vd | opcode`.
#[allow(clippy::too_many_arguments)] // one argument per field of the format
fn v_mem(opcode: u32, nf: u32, mop: u32, vm: u32, field: u32, rs1: u32, width: u32, vd: u32) -> u32 {
    (nf << 29) | (mop << 26) | (vm << 25) | (field << 20) | (rs1 << 15) | (width << 12) | (vd << 7) | opcode
}

fn x(r: XReg) -> u32 {
    r.num() as u32
}

fn v(r: VReg) -> u32 {
    r.num() as u32
}

/// `lumop`/`sumop` values of unit-stride vector memory operations.
const LUMOP_WHOLE: u32 = 0b01000;
const LUMOP_MASK: u32 = 0b01011;
const LUMOP_FAULT_FIRST: u32 = 0b10000;

impl Inst {
    /// The 32-bit encoding. Fails on operands the encoding cannot hold and on branch
    /// targets that are labels (use an [`Assembler`](crate::Assembler) for those).
    pub fn encode(&self) -> Result<u32, AsmError> {
        let invalid = |reason: String| AsmError::InvalidOperand { inst: self.to_string(), reason };
        let in_range = |what: &str, value: i64, min: i64, max: i64| {
            if (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(invalid(format!("{what} {value} is outside {min}..={max}")))
            }
        };
        let offset12 = |offset: i32| in_range("offset", offset as i64, -2048, 2047);
        let target_offset = |target: Target, (min, max): (i64, i64)| match target {
            Target::Label(_) => Err(AsmError::UnresolvedLabel { inst: self.to_string() }),
            Target::Offset(off) => {
                in_range("target offset", off as i64, min, max)?;
                if off % 2 != 0 {
                    return Err(invalid(format!("target offset {off} is odd")));
                }
                Ok(off)
            }
        };
        let whole_group = |nregs: u8, regs: &[VReg]| {
            if ![1, 2, 4, 8].contains(&nregs) {
                return Err(invalid(format!("{nregs} is not a register count of 1, 2, 4 or 8")));
            }
            match regs.iter().find(|r| !r.num().is_multiple_of(nregs)) {
                Some(r) => Err(invalid(format!("{r} is not a multiple of {nregs}"))),
                None => Ok(()),
            }
        };
        let not_v0_when_masked = |vd: VReg, mask: Mask| {
            if mask == Mask::V0 && vd == VReg::V0 {
                Err(invalid("a masked instruction cannot write its mask register v0".into()))
            } else {
                Ok(())
            }
        };

        Ok(match *self {
            Inst::Lui { rd, imm20 } | Inst::Auipc { rd, imm20 } => {
                in_range("immediate", imm20 as i64, 0, 0xfffff)?;
                let opcode = if matches!(self, Inst::Lui { .. }) { OPC_LUI } else { OPC_AUIPC };
                (imm20 << 12) | (x(rd) << 7) | opcode
            }
            Inst::Alu { op, rd, rs1, rs2 } => {
                let info = op.info();
                r_type(info.opcode, x(rd), info.funct3, x(rs1), x(rs2), info.funct7)
            }
            Inst::AluImm { op, rd, rs1, imm } => {
                let info = op.info();
                let field = match info.imm {
                    ImmField::Signed12 => {
                        in_range("immediate", imm as i64, -2048, 2047)?;
                        imm
                    }
                    ImmField::Shamt6 { funct6 } => {
                        in_range("shift amount", imm as i64, 0, 63)?;
                        ((funct6 << 6) as i32) | imm
                    }
                    ImmField::Shamt5 { funct7 } => {
                        in_range("shift amount", imm as i64, 0, 31)?;
                        ((funct7 << 5) as i32) | imm
                    }
                };
                i_type(info.opcode, x(rd), info.funct3, x(rs1), field)
            }
            Inst::Load { op, rd, base, offset } => {
                offset12(offset)?;
                i_type(OPC_LOAD, x(rd), op.info().code, x(base), offset)
            }
            Inst::Store { op, src, base, offset } => {
                offset12(offset)?;
                s_type(OPC_STORE, op.info().code, x(base), x(src), offset)
            }
            Inst::Branch { cond, rs1, rs2, target } => {
                let off = target_offset(target, BRANCH_RANGE)?;
                b_type(cond.info().code, x(rs1), x(rs2), off)
            }
            Inst::Jal { rd, target } => j_type(x(rd), target_offset(target, JAL_RANGE)?),
            Inst::Jalr { rd, base, offset } => {
                offset12(offset)?;
                i_type(OPC_JALR, x(rd), 0, x(base), offset)
            }
            Inst::Csr { op, rd, csr, rs1 } => {
                in_range("CSR number", csr.0 as i64, 0, 0xfff)?;
                i_type(OPC_SYSTEM, x(rd), op.info().code, x(rs1), csr.0 as i32)
            }
            Inst::CsrImm { op, rd, csr, uimm } => {
                in_range("CSR number", csr.0 as i64, 0, 0xfff)?;
                in_range("immediate", uimm as i64, 0, 31)?;
                i_type(OPC_SYSTEM, x(rd), op.info().code + 4, uimm as u32, csr.0 as i32)
            }
            Inst::Fence { pred, succ } => {
                in_range("fence set", pred.bits().max(succ.bits()) as i64, 0, 15)?;
                i_type(OPC_MISC_MEM, 0, 0, 0, ((pred.bits() << 4) | succ.bits()) as i32)
            }
            Inst::Amo { op, width, aq, rl, rd, src, addr } => {
                if op == AmoOp::LoadReserved && src != XReg::ZERO {
                    return Err(invalid("lr takes no source register".into()));
                }
                let funct7 = (op.info().code << 2) | ((aq as u32) << 1) | rl as u32;
                r_type(OPC_AMO, x(rd), width.funct3(), x(addr), x(src), funct7)
            }
            Inst::FLoad { fmt, rd, base, offset } => {
                offset12(offset)?;
                i_type(OPC_LOAD_FP, rd.num() as u32, fmt.mem_funct3(), x(base), offset)
            }
            Inst::FStore { fmt, src, base, offset } => {
                offset12(offset)?;
                s_type(OPC_STORE_FP, fmt.mem_funct3(), x(base), src.num() as u32, offset)
            }
            Inst::FArith { op, fmt, rd, rs1, rs2, rm } => {
                op_fp(op.info().code, fmt, rd.num(), rs1.num(), rs2.num() as u32, rm.field())
            }
            Inst::FSqrt { fmt, rd, rs1, rm } => op_fp(0x0b, fmt, rd.num(), rs1.num(), 0, rm.field()),
            Inst::FBin { op, fmt, rd, rs1, rs2 } => {
                let info = op.info();
                op_fp(info.funct5, fmt, rd.num(), rs1.num(), rs2.num() as u32, info.funct3)
            }
            Inst::FFma { op, fmt, rd, rs1, rs2, rs3, rm } => {
                let funct7 = ((rs3.num() as u32) << 2) | fmt.field();
                r_type(op.info().code, rd.num() as u32, rm.field(), rs1.num() as u32, rs2.num() as u32, funct7)
            }
            Inst::FCmp { op, fmt, rd, rs1, rs2 } => {
                let info = op.info();
                op_fp(info.funct5, fmt, rd.num(), rs1.num(), rs2.num() as u32, info.funct3)
            }
            Inst::FCvtToInt { int, fmt, rd, rs1, rm } => {
                op_fp(0x18, fmt, rd.num(), rs1.num(), int.info().code, rm.field())
            }
            Inst::FCvtFromInt { int, fmt, rd, rs1, rm } => {
                op_fp(0x1a, fmt, rd.num(), rs1.num(), int.info().code, rm.field())
            }
            Inst::FCvtFmt { to, rd, rs1, rm } => {
                let from = match to {
                    FFmt::S => FFmt::D,
                    FFmt::D => FFmt::S,
                };
                op_fp(0x08, to, rd.num(), rs1.num(), from.field(), rm.field())
            }
            Inst::FMvToInt { fmt, rd, rs1 } => op_fp(0x1c, fmt, rd.num(), rs1.num(), 0, 0),
            Inst::FMvFromInt { fmt, rd, rs1 } => op_fp(0x1e, fmt, rd.num(), rs1.num(), 0, 0),

            Inst::VSetVli { rd, avl, vtype } => {
                (vtype.bits() << 20) | (x(avl) << 15) | (OPCFG << 12) | (x(rd) << 7) | OPC_OP_V
            }
            Inst::VSetIVli { rd, avl, vtype } => {
                in_range("AVL", avl as i64, 0, 31)?;
                (0b11 << 30) | (vtype.bits() << 20) | ((avl as u32) << 15) | (OPCFG << 12) | (x(rd) << 7) | OPC_OP_V
            }
            Inst::VSetVl { rd, avl, vtype } => r_type(OPC_OP_V, x(rd), OPCFG, x(avl), x(vtype), 0b1000000),
            Inst::VLoad { eew, mode, vd, base, mask } => {
                not_v0_when_masked(vd, mask)?;
                let (mop, field) = mem_mode_fields(mode);
                let width = eew.mem_width_field();
                v_mem(OPC_LOAD_FP, 0, mop, mask.vm_bit(), field, x(base), width, v(vd))
            }
            Inst::VStore { eew, mode, src, base, mask } => {
                if mode == VMemMode::FaultOnlyFirst {
                    return Err(invalid("stores have no fault-only-first form".into()));
                }
                let (mop, field) = mem_mode_fields(mode);
                let width = eew.mem_width_field();
                v_mem(OPC_STORE_FP, 0, mop, mask.vm_bit(), field, x(base), width, v(src))
            }
            Inst::VLoadWhole { nregs, eew, vd, base } => {
                whole_group(nregs, &[vd])?;
                let nf = nregs as u32 - 1;
                v_mem(OPC_LOAD_FP, nf, 0, 1, LUMOP_WHOLE, x(base), eew.mem_width_field(), v(vd))
            }
            Inst::VStoreWhole { nregs, src, base } => {
                whole_group(nregs, &[src])?;
                v_mem(OPC_STORE_FP, nregs as u32 - 1, 0, 1, LUMOP_WHOLE, x(base), 0, v(src))
            }
            Inst::VLoadMask { vd, base } => v_mem(OPC_LOAD_FP, 0, 0, 1, LUMOP_MASK, x(base), 0, v(vd)),
            Inst::VStoreMask { src, base } => v_mem(OPC_STORE_FP, 0, 0, 1, LUMOP_MASK, x(base), 0, v(src)),
            Inst::VBinary { op, vd, vs2, src1, mask } => {
                let info = op.info();
                match info.shape {
                    VShape::Merge if mask != Mask::V0 => {
                        return Err(invalid(format!("{} is always masked by v0", info.name)))
                    }
                    VShape::MaskLogic | VShape::Compress if mask != Mask::Unmasked => {
                        return Err(invalid(format!("{} cannot be masked", info.name)))
                    }
                    VShape::Plain | VShape::Wide | VShape::MulAdd if !writes_mask(op) => not_v0_when_masked(vd, mask)?,
                    _ => {}
                }
                let (funct3, field) = match (info.unit, src1) {
                    (unit, VSrc::V(vs1)) if info.forms & VV != 0 => {
                        let funct3 = match unit {
                            VUnit::Int => OPIVV,
                            VUnit::Mul => OPMVV,
                            VUnit::Float => OPFVV,
                        };
                        (funct3, v(vs1))
                    }
                    (VUnit::Int, VSrc::X(rs1)) if info.forms & VS != 0 => (OPIVX, x(rs1)),
                    (VUnit::Mul, VSrc::X(rs1)) if info.forms & VS != 0 => (OPMVX, x(rs1)),
                    (VUnit::Float, VSrc::F(rs1)) if info.forms & VS != 0 => (OPFVF, rs1.num() as u32),
                    (VUnit::Int, VSrc::Imm(imm)) if info.forms & VI != 0 => {
                        if info.unsigned_imm {
                            in_range("immediate", imm as i64, 0, 31)?;
                        } else {
                            in_range("immediate", imm as i64, -16, 15)?;
                        }
                        (OPIVI, imm as u32)
                    }
                    (_, src) => {
                        return Err(invalid(format!(
                            "{} has no form with {} as its source operand",
                            info.name,
                            describe_src(src)
                        )))
                    }
                };
                v_type(info.funct6, mask.vm_bit(), v(vs2), field, funct3, v(vd))
            }
            Inst::VUnary { op, vd, vs2, mask } => {
                not_v0_when_masked(vd, mask)?;
                let info = op.info();
                v_type(info.funct6, mask.vm_bit(), v(vs2), info.vs1, info.funct3, v(vd))
            }
            Inst::VId { vd, mask } => {
                not_v0_when_masked(vd, mask)?;
                v_type(VID.funct6, mask.vm_bit(), 0, VID.vs1, VID.funct3, v(vd))
            }
            Inst::VMv { vd, src } => {
                let (funct3, field) = match src {
                    VSrc::V(vs1) => (OPIVV, v(vs1)),
                    VSrc::X(rs1) => (OPIVX, x(rs1)),
                    VSrc::F(rs1) => (OPFVF, rs1.num() as u32),
                    VSrc::Imm(imm) => {
                        in_range("immediate", imm as i64, -16, 15)?;
                        (OPIVI, imm as u32)
                    }
                };
                v_type(VMV_MERGE, 1, 0, field, funct3, v(vd))
            }
            Inst::VMvWhole { nregs, vd, vs2 } => {
                whole_group(nregs, &[vd, vs2])?;
                v_type(VMV_WHOLE, 1, v(vs2), nregs as u32 - 1, OPIVI, v(vd))
            }
            Inst::VMvXS { rd, vs2 } => v_type(VWXUNARY0, 1, v(vs2), 0, OPMVV, x(rd)),
            Inst::VMvSX { vd, rs1 } => v_type(VWXUNARY0, 1, 0, x(rs1), OPMVX, v(vd)),
            Inst::VFMvFS { rd, vs2 } => v_type(VWXUNARY0, 1, v(vs2), 0, OPFVV, rd.num() as u32),
            Inst::VFMvSF { vd, rs1 } => v_type(VWXUNARY0, 1, 0, rs1.num() as u32, OPFVF, v(vd)),
            Inst::VMaskScalar { op, rd, vs2, mask } => {
                v_type(VWXUNARY0, mask.vm_bit(), v(vs2), op.info().code, OPMVV, x(rd))
            }
            Inst::Word(w) => w,
        })
    }
}

/// OP-FP format: `funct5 | fmt | rs2 | rs1 | rm | rd`.
fn op_fp(funct5: u32, fmt: FFmt, rd: u8, rs1: u8, rs2: u32, rm: u32) -> u32 {
    r_type(OPC_OP_FP, rd as u32, rm, rs1 as u32, rs2, (funct5 << 2) | fmt.field())
}

/// `mop` and the `lumop`/`rs2`/`vs2` field of a vector load or store.
fn mem_mode_fields(mode: VMemMode) -> (u32, u32) {
    match mode {
        VMemMode::UnitStride => (0b00, 0),
        VMemMode::FaultOnlyFirst => (0b00, LUMOP_FAULT_FIRST),
        VMemMode::Strided(stride) => (0b10, x(stride)),
        VMemMode::Indexed { index, ordered: false } => (0b01, v(index)),
        VMemMode::Indexed { index, ordered: true } => (0b11, v(index)),
    }
}

/// Whether a binary operation's destination is a mask (compares) or a reduction's
/// scalar, which may be `v0` even under a mask.
fn writes_mask(op: VBinOp) -> bool {
    use VBinOp::*;
    matches!(op, Mseq | Msne | Msltu | Mslt | Msleu | Msle | Msgtu | Msgt | Mfeq | Mfne | Mflt | Mfle | Mfgt | Mfge)
}

fn describe_src(src: VSrc) -> String {
    match src {
        VSrc::V(r) => format!("vector register {r}"),
        VSrc::X(r) => format!("integer register {r}"),
        VSrc::F(r) => format!("float register {r}"),
        VSrc::Imm(i) => format!("immediate {i}"),
    }
}
