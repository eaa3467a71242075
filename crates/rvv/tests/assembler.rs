//! The assembler: label fix-ups in both directions and at the edge of their reach,
//! label errors, operand rejection, the `li` expansion and a listing snapshot.

use std::path::Path;

use tilec_rvv::*;

fn finish(asm: Assembler) -> Code {
    asm.finish().unwrap_or_else(|e| panic!("assembly failed: {e}"))
}

fn encode(inst: Inst) -> u32 {
    inst.encode().unwrap_or_else(|e| panic!("{e}"))
}

/// The strip-mined `z = x + y` loop over `a0` fp32 elements, as the RVV emitter will
/// write it.
fn vector_add() -> Assembler {
    let mut asm = Assembler::new();
    let (n, x, y, z, vl, bytes) = (XReg::A0, XReg::A1, XReg::A2, XReg::A3, XReg::T0, XReg::T1);
    let done = asm.new_label();
    let top = asm.new_label();
    asm.beq(n, XReg::ZERO, done);
    asm.bind(top);
    asm.vsetvli(vl, n, VType::new(Sew::E32, Lmul::M8));
    asm.vle(Sew::E32, VReg::V8, x, Mask::Unmasked);
    asm.vle(Sew::E32, VReg::V16, y, Mask::Unmasked);
    asm.vop(VBinOp::Fadd, VReg::V8, VReg::V8, VReg::V16, Mask::Unmasked);
    asm.vse(Sew::E32, VReg::V8, z, Mask::Unmasked);
    asm.slli(bytes, vl, 2);
    asm.add(x, x, bytes);
    asm.add(y, y, bytes);
    asm.add(z, z, bytes);
    asm.sub(n, n, vl);
    asm.bne(n, XReg::ZERO, top);
    asm.bind(done);
    asm.ret();
    asm
}

#[test]
fn vector_add_listing() {
    let code = finish(vector_add());
    let mut text = code.listing();
    text.push_str("\n# words\n");
    for word in &code.words {
        text.push_str(&format!("{word:08x}\n"));
    }
    insta::with_settings!({
        snapshot_path => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../snapshots"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
        description => "strip-mined fp32 vector add built with tilec_rvv::Assembler",
    }, {
        insta::assert_snapshot!("rvv__vector_add", text);
    });
}

#[test]
fn branches_are_fixed_up_forward_and_backward() {
    let code = finish(vector_add());
    // beq at 0 to `ret` at index 12; bne at index 11 back to the vsetvli at index 1.
    assert_eq!(
        code.words[0],
        encode(Inst::Branch { cond: BranchCond::Eq, rs1: XReg::A0, rs2: XReg::ZERO, target: Target::Offset(48) })
    );
    assert_eq!(
        code.words[11],
        encode(Inst::Branch { cond: BranchCond::Ne, rs1: XReg::A0, rs2: XReg::ZERO, target: Target::Offset(-40) })
    );
    assert_eq!(code.bytes().len(), 13 * 4);
    assert_eq!(&code.bytes()[..4], &code.words[0].to_le_bytes());
}

#[test]
fn listing_as_a_named_function() {
    let mut asm = Assembler::new();
    let top = asm.label_here();
    asm.addi(XReg::A0, XReg::A0, -1);
    asm.bne(XReg::A0, XReg::ZERO, top);
    asm.ret();
    let code = finish(asm);
    assert_eq!(
        code.listing_as("add_kernel_v0"),
        "add_kernel_v0:\n.Ladd_kernel_v0_0:\n    addi a0, a0, -1\n    bnez a0, .Ladd_kernel_v0_0\n    ret\n"
    );
}

#[test]
fn jal_is_fixed_up_forward_and_backward() {
    let mut asm = Assembler::new();
    let back = asm.new_label();
    let fwd = asm.new_label();
    asm.bind(back);
    asm.nop();
    asm.jal(XReg::RA, fwd);
    asm.j(back);
    asm.bind(fwd);
    asm.ret();
    let code = finish(asm);
    assert_eq!(code.words[1], encode(Inst::Jal { rd: XReg::RA, target: Target::Offset(8) }));
    assert_eq!(code.words[2], encode(Inst::Jal { rd: XReg::ZERO, target: Target::Offset(-8) }));
    assert_eq!(code.listing(), ".L0:\n    nop\n    jal .L1\n    j .L0\n.L1:\n    ret\n");
}

/// Data words in the code: a `jal` over them leaves their address in its link register.
#[test]
fn words_are_data_jumped_over() {
    let mut asm = Assembler::new();
    let over = asm.new_label();
    asm.jal(XReg::T6, over);
    asm.push(Inst::Word(0x3fb8_aa3b));
    asm.push(Inst::Word(0xffff_ffff));
    asm.bind(over);
    asm.fload(FFmt::S, FReg::new(0).expect("ft0"), XReg::T6, 4);
    let code = finish(asm);
    assert_eq!(&code.words[1..3], &[0x3fb8_aa3b, 0xffff_ffff]);
    assert_eq!(code.words[0], encode(Inst::Jal { rd: XReg::T6, target: Target::Offset(12) }));
    assert_eq!(
        code.listing(),
        "    jal t6, .L0\n    .word 0x3fb8aa3b\n    .word 0xffffffff\n.L0:\n    flw ft0, 4(t6)\n"
    );
}

#[test]
fn appended_code_gets_fresh_labels_per_copy() {
    let mut strip = Assembler::new();
    let skip = strip.new_label();
    strip.beq(XReg::A0, XReg::ZERO, skip);
    strip.addi(XReg::A0, XReg::A0, -1);
    strip.bind(skip);
    let mut asm = Assembler::new();
    let outer = asm.new_label();
    asm.append(&strip);
    asm.append(&strip);
    asm.bind(outer);
    asm.ret();
    let code = finish(asm);
    // Each copy's branch skips its own `addi` only.
    let beq = encode(Inst::Branch { cond: BranchCond::Eq, rs1: XReg::A0, rs2: XReg::ZERO, target: Target::Offset(8) });
    assert_eq!([code.words[0], code.words[2]], [beq, beq]);
    assert_eq!(code.words.len(), 5);
}

/// A branch (or `jal`) to a label `distance` instructions away (negative: backward),
/// with nops in between.
fn branch_over(distance: i64, jal: bool) -> Result<Code, AsmError> {
    let mut asm = Assembler::new();
    let label = asm.new_label();
    let jump = |asm: &mut Assembler| {
        if jal {
            asm.j(label)
        } else {
            asm.beq(XReg::A0, XReg::A1, label)
        }
    };
    if distance < 0 {
        asm.bind(label);
        for _ in 0..-distance {
            asm.nop();
        }
        jump(&mut asm);
    } else {
        jump(&mut asm);
        for _ in 1..distance {
            asm.nop();
        }
        asm.bind(label);
        asm.nop();
    }
    asm.finish()
}

#[test]
fn conditional_branches_reach_exactly_4_kib() {
    assert!(branch_over(1023, false).is_ok(), "+4092 bytes is in range");
    assert!(branch_over(-1024, false).is_ok(), "-4096 bytes is in range");
    for distance in [1024, -1025] {
        match branch_over(distance, false) {
            Err(AsmError::BranchOutOfRange { distance: d, max: 4094, .. }) => {
                assert_eq!(d, distance * 4)
            }
            other => panic!("distance {distance}: expected an out-of-range error, got {other:?}"),
        }
    }
}

#[test]
fn jal_reaches_exactly_1_mib() {
    assert!(branch_over((1 << 18) - 1, true).is_ok());
    assert!(branch_over(-(1 << 18), true).is_ok());
    let err = branch_over(1 << 18, true).unwrap_err();
    assert!(matches!(err, AsmError::BranchOutOfRange { distance: 1048576, .. }), "{err:?}");
    assert_eq!(err.code(), tilec_diagnostics::codes::rvv::BRANCH_OUT_OF_RANGE);
    let err = branch_over(-(1 << 18) - 1, true).unwrap_err();
    assert!(matches!(err, AsmError::BranchOutOfRange { distance: -1048580, .. }), "{err:?}");
}

#[test]
fn label_errors_are_reported() {
    let mut asm = Assembler::new();
    let unbound = asm.new_label();
    asm.bne(XReg::A0, XReg::ZERO, unbound);
    assert_eq!(asm.finish(), Err(AsmError::UnboundLabel { label: unbound }));

    let mut asm = Assembler::new();
    let twice = asm.new_label();
    asm.bind(twice);
    asm.nop();
    asm.bind(twice);
    assert_eq!(asm.finish(), Err(AsmError::LabelBoundTwice { label: twice }));

    // A label nobody branches to need not be bound.
    let mut asm = Assembler::new();
    let _unused = asm.new_label();
    asm.ret();
    assert_eq!(finish(asm).words.len(), 1);

    // Labels of another assembler, used or bound.
    let mut other = Assembler::new();
    let foreign = {
        let mut first = Assembler::new();
        first.new_label();
        first.new_label()
    };
    other.j(foreign);
    assert_eq!(other.finish(), Err(AsmError::UnknownLabel { label: foreign }));
    let mut other = Assembler::new();
    other.bind(foreign);
    assert_eq!(other.finish(), Err(AsmError::UnknownLabel { label: foreign }));

    let err = Inst::Jal { rd: XReg::ZERO, target: Target::Label(unbound) }.encode().unwrap_err();
    assert!(matches!(err, AsmError::UnresolvedLabel { .. }), "{err:?}");
}

#[test]
fn invalid_operands_are_rejected() {
    use Mask::{Unmasked, V0};
    let vbin = |op, vd, src1: VSrc, mask| Inst::VBinary { op, vd, vs2: VReg::V16, src1, mask };
    let x = |rd, imm| Inst::AluImm { op: AluImmOp::Addi, rd, rs1: XReg::A0, imm };
    let cases: Vec<(Inst, &str)> = vec![
        (vbin(VBinOp::Sub, VReg::V8, VSrc::Imm(1), Unmasked), "no form with immediate 1"),
        (vbin(VBinOp::Add, VReg::V8, VSrc::Imm(16), Unmasked), "immediate 16 is outside -16..=15"),
        (vbin(VBinOp::Sll, VReg::V8, VSrc::Imm(32), Unmasked), "immediate 32 is outside 0..=31"),
        (vbin(VBinOp::Sll, VReg::V8, VSrc::Imm(-1), Unmasked), "immediate -1 is outside 0..=31"),
        (vbin(VBinOp::Fadd, VReg::V8, VSrc::X(XReg::A0), Unmasked), "integer register a0"),
        (vbin(VBinOp::Add, VReg::V8, VSrc::F(FReg::FA0), Unmasked), "float register fa0"),
        (vbin(VBinOp::Mfgt, VReg::V8, VSrc::V(VReg::V24), Unmasked), "vector register v24"),
        (vbin(VBinOp::Merge, VReg::V8, VSrc::V(VReg::V24), Unmasked), "always masked"),
        (vbin(VBinOp::Mand, VReg::V8, VSrc::V(VReg::V24), V0), "cannot be masked"),
        (vbin(VBinOp::Add, VReg::V0, VSrc::V(VReg::V24), V0), "cannot write its mask register"),
        (
            Inst::VLoad { eew: Sew::E32, mode: VMemMode::UnitStride, vd: VReg::V0, base: XReg::A0, mask: V0 },
            "cannot write its mask register",
        ),
        (
            Inst::VStore {
                eew: Sew::E32,
                mode: VMemMode::FaultOnlyFirst,
                src: VReg::V8,
                base: XReg::A0,
                mask: Unmasked,
            },
            "no fault-only-first",
        ),
        (Inst::VLoadWhole { nregs: 2, eew: Sew::E32, vd: VReg::V9, base: XReg::A0 }, "v9 is not a multiple of 2"),
        (Inst::VMvWhole { nregs: 3, vd: VReg::V0, vs2: VReg::V3 }, "3 is not a register count"),
        (Inst::VMvWhole { nregs: 8, vd: VReg::V0, vs2: VReg::V4 }, "v4 is not a multiple of 8"),
        (Inst::VMv { vd: VReg::V8, src: VSrc::Imm(-17) }, "immediate -17"),
        (Inst::VSetIVli { rd: XReg::T0, avl: 32, vtype: VType::new(Sew::E8, Lmul::M1) }, "AVL 32"),
        (x(XReg::A0, 2048), "immediate 2048 is outside -2048..=2047"),
        (x(XReg::A0, -2049), "immediate -2049"),
        (Inst::AluImm { op: AluImmOp::Slli, rd: XReg::A0, rs1: XReg::A0, imm: 64 }, "shift amount 64"),
        (Inst::AluImm { op: AluImmOp::Slliw, rd: XReg::A0, rs1: XReg::A0, imm: 32 }, "shift amount 32"),
        (Inst::Lui { rd: XReg::A0, imm20: 1 << 20 }, "immediate 1048576"),
        (Inst::Load { op: LoadOp::Ld, rd: XReg::A0, base: XReg::SP, offset: 2048 }, "offset 2048"),
        (Inst::FStore { fmt: FFmt::D, src: FReg::FA0, base: XReg::SP, offset: -2049 }, "offset -2049"),
        (
            Inst::Branch { cond: BranchCond::Eq, rs1: XReg::A0, rs2: XReg::A1, target: Target::Offset(6 + 1) },
            "target offset 7 is odd",
        ),
        (
            Inst::Branch { cond: BranchCond::Eq, rs1: XReg::A0, rs2: XReg::A1, target: Target::Offset(4096) },
            "target offset 4096",
        ),
        (Inst::Jal { rd: XReg::RA, target: Target::Offset(1 << 20) }, "target offset 1048576"),
        (Inst::Csr { op: CsrOp::ReadSet, rd: XReg::A0, csr: Csr(0x1000), rs1: XReg::ZERO }, "CSR number 4096"),
        (Inst::CsrImm { op: CsrOp::ReadWrite, rd: XReg::A0, csr: Csr::VXRM, uimm: 32 }, "immediate 32"),
        (
            Inst::Amo {
                op: AmoOp::LoadReserved,
                width: AmoWidth::D,
                aq: false,
                rl: false,
                rd: XReg::A0,
                src: XReg::A1,
                addr: XReg::A2,
            },
            "lr takes no source register",
        ),
    ];
    for (inst, reason) in cases {
        match inst.encode() {
            Err(err @ AsmError::InvalidOperand { .. }) => {
                let message = err.to_string();
                assert!(message.contains(reason), "{inst}: {message:?} does not say {reason:?}");
                assert!(message.contains(&inst.to_string()), "{message:?} names the instruction");
                let diagnostic: tilec_diagnostics::Diagnostic = err.into();
                assert_eq!(diagnostic.code, tilec_diagnostics::codes::rvv::INVALID_OPERAND);
            }
            other => panic!("{inst}: expected an operand error, got {other:?}"),
        }
    }
    // The errors of an assembler's instructions come out of `finish`.
    let mut asm = Assembler::new();
    asm.addi(XReg::A0, XReg::A0, 4096);
    assert!(matches!(asm.finish(), Err(AsmError::InvalidOperand { .. })));
}

/// Runs a `li` sequence on a tiny RV64 model and returns the value left in `rd`.
fn evaluate_li(rd: XReg, seq: &[Inst]) -> i64 {
    let mut regs = [0i64; 32];
    let sext12 = |imm: i32| {
        assert!((-2048..=2047).contains(&imm), "immediate {imm} out of range");
        imm as i64
    };
    for inst in seq {
        let (dst, value) = match *inst {
            Inst::Lui { rd, imm20 } => (rd, ((imm20 << 12) as i32) as i64),
            Inst::AluImm { op: AluImmOp::Addi, rd, rs1, imm } => {
                (rd, regs[rs1.num() as usize].wrapping_add(sext12(imm)))
            }
            Inst::AluImm { op: AluImmOp::Addiw, rd, rs1, imm } => {
                (rd, (regs[rs1.num() as usize].wrapping_add(sext12(imm)) as i32) as i64)
            }
            Inst::AluImm { op: AluImmOp::Slli, rd, rs1, imm } => {
                assert!((0..64).contains(&imm));
                (rd, regs[rs1.num() as usize] << imm)
            }
            other => panic!("li emitted unexpected {other}"),
        };
        assert_eq!(dst, rd, "li writes only its destination");
        if dst != XReg::ZERO {
            regs[dst.num() as usize] = value;
        }
        inst.encode().unwrap_or_else(|e| panic!("{e}"));
    }
    regs[rd.num() as usize]
}

fn edge_immediates() -> Vec<i64> {
    let mut values = vec![
        0,
        1,
        -1,
        2047,
        2048,
        -2048,
        -2049,
        4095,
        4096,
        0x7ffff7ff,
        0x7ffff800,
        0x7fffffff,
        -0x80000000,
        -0x80000001,
        0x80000000,
        0xffffffff,
        0x1_0000_0000,
        0x1234_5678_9abc_def0,
        0x5555_5555_5555_5555,
        0xaaaa_aaaa_aaaa_aaaau64 as i64,
        0x8000_0000_0000_0800u64 as i64,
        0x7fff_ffff_ffff_f800,
        i64::MAX,
        i64::MIN,
        i64::MIN + 1,
    ];
    for k in 0..64 {
        let p = 1i64.wrapping_shl(k);
        values.extend([p, p.wrapping_sub(1), p.wrapping_neg(), p ^ 0x800, !p]);
    }
    // Deterministic xorshift values of every magnitude.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        values.push((state >> (i % 64)) as i64);
        values.push(state as i64);
    }
    values
}

#[test]
fn li_materialises_every_64_bit_value() {
    for value in edge_immediates() {
        let seq = li_sequence(XReg::T3, value);
        assert!((1..=8).contains(&seq.len()), "li {value:#x}: {} instructions", seq.len());
        assert_eq!(evaluate_li(XReg::T3, &seq), value, "li {value:#x}: {seq:?}");
    }
}

#[test]
fn li_uses_the_short_forms() {
    let text = |value| li_sequence(XReg::A0, value).iter().map(|i| i.to_string()).collect::<Vec<_>>().join("; ");
    assert_eq!(text(0), "li a0, 0");
    assert_eq!(text(-2048), "li a0, -2048");
    assert_eq!(text(4096), "lui a0, 1");
    assert_eq!(text(0x12345678), "lui a0, 74565; addiw a0, a0, 1656");
    assert_eq!(text(0x7fffffff), "lui a0, 524288; addiw a0, a0, -1");
    assert_eq!(text(1 << 40), "li a0, 1; slli a0, a0, 40");
    assert_eq!(text(i64::MIN), "li a0, -1; slli a0, a0, 63");
    let mut asm = Assembler::new();
    asm.li(XReg::A0, 0x1234_5678_9abc_def0);
    assert_eq!(asm.insts().len(), li_sequence(XReg::A0, 0x1234_5678_9abc_def0).len());
}
