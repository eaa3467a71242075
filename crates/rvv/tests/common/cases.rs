//! The instruction list behind `tests/data/cases.s`: at least one line per instruction
//! form, with every SEW/LMUL/policy of `vsetvli`, masked and unmasked forms and register
//! extremes. `tests/encodings.rs` prints it into `cases.s` for `tests/data/gen.sh` and
//! checks the encoder against the assembler's output.

use tilec_rvv::*;

/// A titled group of instructions (the title becomes a `#` comment in `cases.s`).
pub struct Section {
    pub title: &'static str,
    pub insts: Vec<Inst>,
}

const MASKS: [Mask; 2] = [Mask::Unmasked, Mask::V0];

pub fn sections() -> Vec<Section> {
    vec![
        Section { title: "lui, auipc", insts: upper_immediates() },
        Section { title: "integer register-register", insts: alu() },
        Section { title: "integer register-immediate", insts: alu_imm() },
        Section { title: "integer loads and stores", insts: loads_stores() },
        Section { title: "branches and jumps", insts: branches() },
        Section { title: "CSR access", insts: csrs() },
        Section { title: "fences and atomics", insts: atomics() },
        Section { title: "scalar floating point", insts: scalar_float() },
        Section { title: "vector configuration", insts: vsetvl() },
        Section { title: "vector loads and stores", insts: vector_memory() },
        Section { title: "vector binary operations", insts: vector_binary() },
        Section { title: "vector unary operations and moves", insts: vector_unary() },
        Section { title: "alias corner cases", insts: alias_corners() },
    ]
}

fn upper_immediates() -> Vec<Inst> {
    let mut out = Vec::new();
    for (rd, imm20) in [(XReg::A0, 0), (XReg::A0, 1), (XReg::T6, 0xfffff), (XReg::ZERO, 0x80000)] {
        out.push(Inst::Lui { rd, imm20 });
        out.push(Inst::Auipc { rd, imm20 });
    }
    out
}

fn alu() -> Vec<Inst> {
    let regs = [(XReg::A0, XReg::A1, XReg::A2), (XReg::T6, XReg::ZERO, XReg::T6), (XReg::ZERO, XReg::T6, XReg::ZERO)];
    let mut out = Vec::new();
    for &op in AluOp::ALL {
        for (rd, rs1, rs2) in regs {
            out.push(Inst::Alu { op, rd, rs1, rs2 });
        }
    }
    out
}

fn alu_imm() -> Vec<Inst> {
    let mut out = Vec::new();
    for &op in AluImmOp::ALL {
        let imms: &[i32] = match op {
            AluImmOp::Slli | AluImmOp::Srli | AluImmOp::Srai => &[0, 1, 63],
            AluImmOp::Slliw | AluImmOp::Srliw | AluImmOp::Sraiw => &[0, 1, 31],
            _ => &[-2048, -1, 0, 1, 2047],
        };
        for &imm in imms {
            out.push(Inst::AluImm { op, rd: XReg::A0, rs1: XReg::A1, imm });
            out.push(Inst::AluImm { op, rd: XReg::T6, rs1: XReg::ZERO, imm });
        }
    }
    // nop and the `slti zero, zero, imm` hint.
    out.push(Inst::AluImm { op: AluImmOp::Addi, rd: XReg::ZERO, rs1: XReg::ZERO, imm: 0 });
    out.push(Inst::AluImm { op: AluImmOp::Slti, rd: XReg::ZERO, rs1: XReg::ZERO, imm: 7 });
    out
}

fn loads_stores() -> Vec<Inst> {
    let places = [(XReg::A0, XReg::SP, -8), (XReg::T6, XReg::ZERO, -2048), (XReg::ZERO, XReg::T6, 2047)];
    let mut out = Vec::new();
    for &op in LoadOp::ALL {
        for (rd, base, offset) in places {
            out.push(Inst::Load { op, rd, base, offset });
        }
    }
    for &op in StoreOp::ALL {
        for (src, base, offset) in places {
            out.push(Inst::Store { op, src, base, offset });
        }
    }
    out
}

fn branches() -> Vec<Inst> {
    let mut out = Vec::new();
    for &cond in BranchCond::ALL {
        for (rs1, rs2, off) in [
            (XReg::A0, XReg::A1, 8),
            (XReg::T6, XReg::ZERO, -4096),
            (XReg::ZERO, XReg::T6, 4094),
            (XReg::A0, XReg::A0, 0),
        ] {
            out.push(Inst::Branch { cond, rs1, rs2, target: Target::Offset(off) });
        }
    }
    for (rd, off) in [(XReg::ZERO, 8), (XReg::RA, -1048576), (XReg::T6, 1048574), (XReg::A0, 0)] {
        out.push(Inst::Jal { rd, target: Target::Offset(off) });
    }
    for (rd, base, offset) in [
        (XReg::ZERO, XReg::RA, 0),
        (XReg::ZERO, XReg::A0, 0),
        (XReg::RA, XReg::A0, 0),
        (XReg::A0, XReg::T6, -2048),
        (XReg::T6, XReg::A0, 2047),
        (XReg::ZERO, XReg::RA, 4),
    ] {
        out.push(Inst::Jalr { rd, base, offset });
    }
    out
}

fn csrs() -> Vec<Inst> {
    let csrs = [
        Csr::VL,
        Csr::VTYPE,
        Csr::VLENB,
        Csr::VSTART,
        Csr::VXRM,
        Csr::VXSAT,
        Csr::VCSR,
        Csr::FCSR,
        Csr::FRM,
        Csr::FFLAGS,
        Csr::CYCLE,
        Csr::TIME,
        Csr::INSTRET,
        Csr(0x7c0),
        Csr(0xfff),
    ];
    let mut out = Vec::new();
    for &op in CsrOp::ALL {
        for csr in csrs {
            for (rd, rs1) in [(XReg::A0, XReg::A1), (XReg::A0, XReg::ZERO), (XReg::ZERO, XReg::T6)] {
                out.push(Inst::Csr { op, rd, csr, rs1 });
            }
            for (rd, uimm) in [(XReg::A0, 5), (XReg::ZERO, 31), (XReg::T6, 0)] {
                out.push(Inst::CsrImm { op, rd, csr, uimm });
            }
        }
    }
    out
}

fn atomics() -> Vec<Inst> {
    let mut out = vec![
        Inst::Fence { pred: FenceSet::IORW, succ: FenceSet::IORW },
        Inst::Fence { pred: FenceSet::RW, succ: FenceSet::RW },
        Inst::Fence { pred: FenceSet::R, succ: FenceSet::RW },
        Inst::Fence { pred: FenceSet::I.with(FenceSet::O), succ: FenceSet::W },
    ];
    for &op in AmoOp::ALL {
        for width in [AmoWidth::W, AmoWidth::D] {
            for (aq, rl) in [(false, false), (true, false), (false, true), (true, true)] {
                let src = if op == AmoOp::LoadReserved { XReg::ZERO } else { XReg::A1 };
                out.push(Inst::Amo { op, width, aq, rl, rd: XReg::A0, src, addr: XReg::A2 });
            }
            let src = if op == AmoOp::LoadReserved { XReg::ZERO } else { XReg::T6 };
            out.push(Inst::Amo { op, width, aq: false, rl: false, rd: XReg::T6, src, addr: XReg::ZERO });
        }
    }
    out
}

fn scalar_float() -> Vec<Inst> {
    use RoundingMode::*;
    let fmts = [FFmt::S, FFmt::D];
    let mut out = Vec::new();
    for fmt in fmts {
        for (reg, base, offset) in
            [(FReg::FA0, XReg::SP, -8), (FReg::FT11, XReg::ZERO, 2047), (FReg::FT0, XReg::T6, -2048)]
        {
            out.push(Inst::FLoad { fmt, rd: reg, base, offset });
            out.push(Inst::FStore { fmt, src: reg, base, offset });
        }
        for &op in FArithOp::ALL {
            for rm in RoundingMode::ALL {
                out.push(Inst::FArith { op, fmt, rd: FReg::FA0, rs1: FReg::FA1, rs2: FReg::FA2, rm });
            }
            out.push(Inst::FArith { op, fmt, rd: FReg::FT11, rs1: FReg::FT0, rs2: FReg::FT11, rm: Dyn });
        }
        for rm in RoundingMode::ALL {
            out.push(Inst::FSqrt { fmt, rd: FReg::FA0, rs1: FReg::FT11, rm });
        }
        for &op in FBinOp::ALL {
            out.push(Inst::FBin { op, fmt, rd: FReg::FA0, rs1: FReg::FA1, rs2: FReg::FA2 });
            out.push(Inst::FBin { op, fmt, rd: FReg::FT11, rs1: FReg::FT0, rs2: FReg::FT0 });
        }
        for &op in FFmaOp::ALL {
            for rm in [Dyn, Rne, Rtz] {
                out.push(Inst::FFma { op, fmt, rd: FReg::FA0, rs1: FReg::FA1, rs2: FReg::FA2, rs3: FReg::FA3, rm });
            }
            out.push(Inst::FFma { op, fmt, rd: FReg::FT11, rs1: FReg::FT0, rs2: FReg::FT11, rs3: FReg::FT0, rm: Rmm });
        }
        for &op in FCmpOp::ALL {
            out.push(Inst::FCmp { op, fmt, rd: XReg::A0, rs1: FReg::FA0, rs2: FReg::FA1 });
            out.push(Inst::FCmp { op, fmt, rd: XReg::T6, rs1: FReg::FT11, rs2: FReg::FT0 });
        }
        for &int in IntKind::ALL {
            for rm in RoundingMode::ALL {
                out.push(Inst::FCvtToInt { int, fmt, rd: XReg::A0, rs1: FReg::FA0, rm });
                out.push(Inst::FCvtFromInt { int, fmt, rd: FReg::FA0, rs1: XReg::A0, rm });
            }
        }
        for rm in RoundingMode::ALL {
            out.push(Inst::FCvtFmt { to: fmt, rd: FReg::FA0, rs1: FReg::FA1, rm });
        }
        out.push(Inst::FMvToInt { fmt, rd: XReg::A0, rs1: FReg::FA0 });
        out.push(Inst::FMvToInt { fmt, rd: XReg::T6, rs1: FReg::FT11 });
        out.push(Inst::FMvFromInt { fmt, rd: FReg::FA0, rs1: XReg::A0 });
        out.push(Inst::FMvFromInt { fmt, rd: FReg::FT11, rs1: XReg::ZERO });
    }
    out
}

fn vsetvl() -> Vec<Inst> {
    let mut out = Vec::new();
    for sew in Sew::ALL {
        for lmul in Lmul::ALL {
            let vt = VType::new(sew, lmul);
            for vtype in [vt, vt.tail_undisturbed(), vt.mask_undisturbed(), vt.tail_undisturbed().mask_undisturbed()] {
                out.push(Inst::VSetVli { rd: XReg::T0, avl: XReg::A0, vtype });
            }
            out.push(Inst::VSetIVli { rd: XReg::T0, avl: 31, vtype: vt });
        }
    }
    let vt = VType::new(Sew::E32, Lmul::M8);
    out.push(Inst::VSetVli { rd: XReg::ZERO, avl: XReg::ZERO, vtype: vt });
    out.push(Inst::VSetVli { rd: XReg::T6, avl: XReg::T6, vtype: vt.tail_undisturbed() });
    out.push(Inst::VSetVli { rd: XReg::A0, avl: XReg::ZERO, vtype: vt });
    out.push(Inst::VSetIVli { rd: XReg::ZERO, avl: 0, vtype: vt });
    out.push(Inst::VSetIVli { rd: XReg::T6, avl: 16, vtype: vt.mask_undisturbed() });
    out.push(Inst::VSetVl { rd: XReg::A0, avl: XReg::A1, vtype: XReg::A2 });
    out.push(Inst::VSetVl { rd: XReg::ZERO, avl: XReg::T6, vtype: XReg::ZERO });
    out
}

fn vector_memory() -> Vec<Inst> {
    let mut out = Vec::new();
    let modes = [
        VMemMode::UnitStride,
        VMemMode::FaultOnlyFirst,
        VMemMode::Strided(XReg::A2),
        VMemMode::Indexed { index: VReg::V16, ordered: false },
        VMemMode::Indexed { index: VReg::V16, ordered: true },
    ];
    for eew in Sew::ALL {
        for mode in modes {
            for mask in MASKS {
                out.push(Inst::VLoad { eew, mode, vd: VReg::V8, base: XReg::A1, mask });
                if mode != VMemMode::FaultOnlyFirst {
                    out.push(Inst::VStore { eew, mode, src: VReg::V8, base: XReg::A1, mask });
                }
            }
        }
        // Register extremes.
        let extremes = [
            VMemMode::UnitStride,
            VMemMode::Strided(XReg::T6),
            VMemMode::Strided(XReg::ZERO),
            VMemMode::Indexed { index: VReg::V0, ordered: true },
            VMemMode::Indexed { index: VReg::V31, ordered: false },
        ];
        for mode in extremes {
            let vd =
                if mode == (VMemMode::Indexed { index: VReg::V31, ordered: false }) { VReg::V0 } else { VReg::V31 };
            out.push(Inst::VLoad { eew, mode, vd, base: XReg::T6, mask: Mask::Unmasked });
            out.push(Inst::VStore { eew, mode, src: vd, base: XReg::ZERO, mask: Mask::Unmasked });
        }
    }
    for nregs in [1u8, 2, 4, 8] {
        for eew in Sew::ALL {
            out.push(Inst::VLoadWhole { nregs, eew, vd: VReg::V8, base: XReg::A0 });
        }
        let last = VReg::new(32 - nregs).unwrap();
        out.push(Inst::VLoadWhole { nregs, eew: Sew::E64, vd: last, base: XReg::T6 });
        out.push(Inst::VLoadWhole { nregs, eew: Sew::E8, vd: VReg::V0, base: XReg::ZERO });
        out.push(Inst::VStoreWhole { nregs, src: VReg::V8, base: XReg::A0 });
        out.push(Inst::VStoreWhole { nregs, src: last, base: XReg::T6 });
        out.push(Inst::VStoreWhole { nregs, src: VReg::V0, base: XReg::ZERO });
    }
    for (reg, base) in [(VReg::V0, XReg::A0), (VReg::V31, XReg::T6), (VReg::V8, XReg::ZERO)] {
        out.push(Inst::VLoadMask { vd: reg, base });
        out.push(Inst::VStoreMask { src: reg, base });
    }
    out
}

/// The `src1` operands to try for `op`: every form it has, with extreme values.
fn sources(op: VBinOp, vector: VReg, scalar_x: XReg, scalar_f: FReg) -> Vec<VSrc> {
    let candidates = [
        VSrc::V(vector),
        VSrc::X(scalar_x),
        VSrc::F(scalar_f),
        VSrc::Imm(-16),
        VSrc::Imm(-1),
        VSrc::Imm(0),
        VSrc::Imm(15),
        VSrc::Imm(31),
    ];
    candidates
        .into_iter()
        .filter(|&src1| {
            // Keep the forms the encoder accepts (each op's valid operand kinds and
            // immediate range); the rest are covered by the rejection tests.
            Inst::VBinary { op, vd: VReg::V8, vs2: VReg::V16, src1, mask: Mask::Unmasked }.encode().is_ok()
                || Inst::VBinary { op, vd: VReg::V8, vs2: VReg::V16, src1, mask: Mask::V0 }.encode().is_ok()
        })
        .collect()
}

fn vector_binary() -> Vec<Inst> {
    let mut out = Vec::new();
    for &op in VBinOp::ALL {
        for src1 in sources(op, VReg::V24, XReg::A0, FReg::FA0) {
            for mask in MASKS {
                let inst = Inst::VBinary { op, vd: VReg::V8, vs2: VReg::V16, src1, mask };
                if inst.encode().is_ok() {
                    out.push(inst);
                }
            }
        }
        // Register extremes, unmasked (merges are always masked).
        let mask = if matches!(op, VBinOp::Merge | VBinOp::Fmerge) { Mask::V0 } else { Mask::Unmasked };
        for src1 in sources(op, VReg::V0, XReg::T6, FReg::FT11) {
            out.push(Inst::VBinary { op, vd: VReg::V31, vs2: VReg::V0, src1, mask });
        }
        for src1 in sources(op, VReg::V31, XReg::ZERO, FReg::FT0) {
            if matches!(src1, VSrc::V(_) | VSrc::X(_) | VSrc::F(_)) {
                let vd = if mask == Mask::V0 { VReg::V1 } else { VReg::V0 };
                out.push(Inst::VBinary { op, vd, vs2: VReg::V31, src1, mask });
            }
        }
    }
    // Mask-register idioms with all operands equal.
    for op in [VBinOp::Mxor, VBinOp::Mxnor, VBinOp::Mand, VBinOp::Mnand, VBinOp::Mor] {
        out.push(Inst::VBinary { op, vd: VReg::V1, vs2: VReg::V1, src1: VSrc::V(VReg::V1), mask: Mask::Unmasked });
    }
    out
}

fn vector_unary() -> Vec<Inst> {
    let mut out = Vec::new();
    for &op in VUnaryOp::ALL {
        for mask in MASKS {
            out.push(Inst::VUnary { op, vd: VReg::V8, vs2: VReg::V16, mask });
        }
        out.push(Inst::VUnary { op, vd: VReg::V31, vs2: VReg::V0, mask: Mask::Unmasked });
        out.push(Inst::VUnary { op, vd: VReg::V0, vs2: VReg::V24, mask: Mask::Unmasked });
    }
    for (vd, mask) in
        [(VReg::V8, Mask::Unmasked), (VReg::V8, Mask::V0), (VReg::V31, Mask::Unmasked), (VReg::V0, Mask::Unmasked)]
    {
        out.push(Inst::VId { vd, mask });
    }
    for vd in [VReg::V8, VReg::V0, VReg::V31] {
        for src in [
            VSrc::V(VReg::V16),
            VSrc::V(VReg::V31),
            VSrc::X(XReg::A0),
            VSrc::X(XReg::ZERO),
            VSrc::X(XReg::T6),
            VSrc::Imm(-16),
            VSrc::Imm(0),
            VSrc::Imm(15),
            VSrc::F(FReg::FA0),
            VSrc::F(FReg::FT11),
        ] {
            out.push(Inst::VMv { vd, src });
        }
    }
    for nregs in [1u8, 2, 4, 8] {
        let last = VReg::new(32 - nregs).unwrap();
        out.push(Inst::VMvWhole { nregs, vd: VReg::V8, vs2: VReg::V16 });
        out.push(Inst::VMvWhole { nregs, vd: VReg::V0, vs2: last });
        out.push(Inst::VMvWhole { nregs, vd: last, vs2: VReg::V0 });
    }
    for (x, f, v) in
        [(XReg::A0, FReg::FA0, VReg::V8), (XReg::T6, FReg::FT11, VReg::V31), (XReg::ZERO, FReg::FT0, VReg::V0)]
    {
        out.push(Inst::VMvXS { rd: x, vs2: v });
        out.push(Inst::VMvSX { vd: v, rs1: x });
        out.push(Inst::VFMvFS { rd: f, vs2: v });
        out.push(Inst::VFMvSF { vd: v, rs1: f });
    }
    for &op in VMaskScalarOp::ALL {
        for mask in MASKS {
            out.push(Inst::VMaskScalar { op, rd: XReg::A0, vs2: VReg::V8, mask });
        }
        out.push(Inst::VMaskScalar { op, rd: XReg::T6, vs2: VReg::V31, mask: Mask::Unmasked });
        out.push(Inst::VMaskScalar { op, rd: XReg::ZERO, vs2: VReg::V0, mask: Mask::Unmasked });
    }
    out
}

/// Operands that make two aliases match at once, or aliases of masked forms.
fn alias_corners() -> Vec<Inst> {
    use XReg as X;
    let (v8, v16, v1, v2) = (VReg::V8, VReg::V16, VReg::V1, VReg::V2);
    let vbin = |op, vd, vs2, src1: VSrc, mask| Inst::VBinary { op, vd, vs2, src1, mask };
    vec![
        Inst::Alu { op: AluOp::Slt, rd: X::A0, rs1: X::ZERO, rs2: X::ZERO },
        Inst::Alu { op: AluOp::Sub, rd: X::A0, rs1: X::ZERO, rs2: X::ZERO },
        Inst::Alu { op: AluOp::Sltu, rd: X::A0, rs1: X::ZERO, rs2: X::ZERO },
        Inst::Branch { cond: BranchCond::Ge, rs1: X::ZERO, rs2: X::ZERO, target: Target::Offset(8) },
        Inst::Branch { cond: BranchCond::Lt, rs1: X::ZERO, rs2: X::ZERO, target: Target::Offset(8) },
        Inst::Branch { cond: BranchCond::Eq, rs1: X::ZERO, rs2: X::ZERO, target: Target::Offset(8) },
        Inst::Jalr { rd: X::RA, base: X::A0, offset: 4 },
        Inst::Jalr { rd: X::RA, base: X::RA, offset: 0 },
        Inst::Csr { op: CsrOp::ReadSet, rd: X::ZERO, csr: Csr::VL, rs1: X::ZERO },
        Inst::Csr { op: CsrOp::ReadSet, rd: X::ZERO, csr: Csr::FCSR, rs1: X::ZERO },
        Inst::Csr { op: CsrOp::ReadWrite, rd: X::ZERO, csr: Csr::FCSR, rs1: X::ZERO },
        Inst::Fence { pred: FenceSet::W, succ: FenceSet::NONE },
        Inst::Fence { pred: FenceSet::NONE, succ: FenceSet::NONE },
        vbin(VBinOp::Rsub, v8, v16, VSrc::X(X::ZERO), Mask::V0),
        vbin(VBinOp::Xor, v8, v16, VSrc::Imm(-1), Mask::V0),
        vbin(VBinOp::Fsgnjn, v8, v16, VSrc::V(v16), Mask::V0),
        vbin(VBinOp::Fsgnjx, v8, v16, VSrc::V(v16), Mask::V0),
        vbin(VBinOp::Fsgnj, v8, v16, VSrc::V(v16), Mask::Unmasked),
        vbin(VBinOp::Nsrl, v8, v16, VSrc::X(X::ZERO), Mask::V0),
        vbin(VBinOp::Wadd, v8, v16, VSrc::X(X::ZERO), Mask::V0),
        vbin(VBinOp::Waddu, v8, v16, VSrc::X(X::ZERO), Mask::V0),
        vbin(VBinOp::Mxor, v1, v2, VSrc::V(v2), Mask::Unmasked),
        vbin(VBinOp::Mxnor, v1, v2, VSrc::V(v2), Mask::Unmasked),
        vbin(VBinOp::Mor, v1, v2, VSrc::V(v2), Mask::Unmasked),
        vbin(VBinOp::Msltu, v8, v16, VSrc::X(X::ZERO), Mask::Unmasked),
    ]
}
