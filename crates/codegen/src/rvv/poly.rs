//! Inline vector `exp` and `exp2` for fp32: no call, no spill, at the nest's LMUL.
//!
//! `exp(x) = 2ⁿ · p(r)` with `n = round(x·log₂e)` (round to nearest even), `r = x − n·ln2_hi
//! − n·ln2_lo` (`|r| ≤ ln2/2`; `ln2_hi` has 16 significant bits so `n·ln2_hi` is exact for
//! `|n| ≤ 150`) and `p(r) = 1 + r + r²·q(r)`, `q` a degree-4 polynomial fitted to
//! `(eʳ − 1 − r)/r²` by iteratively reweighted least squares on the relative error of `p`
//! (0.06·2⁻²⁴ with the coefficients rounded to fp32; with the arithmetic's roundings, 0.87
//! ULP at most over every fp32 input with a normal result, in a model of the steps). Every
//! step of `p` is fused, `p = 1 + r·(1 + r·q)`.
//!
//! Each strip takes one of two paths, which give the same bits wherever both apply:
//! - the *fast path*, when every lane has `n ∈ [−125, 127]` (no NaN): `2ⁿ·p` is a normal
//!   number, and `2ⁿ` is an integer add of `n << 23` to the bits of `p` (exact). It costs
//!   the conversions to `n`, one compare of `n` against the range, `vfirst.m` and a branch;
//! - the *full path* otherwise: `x` is first clamped to `[−104, 89]` (above, `2¹²⁸·p`
//!   overflows to `+inf`; below, the result rounds to `0`) and `2ⁿ` is applied in two steps,
//!   `2^⌊n/2⌋` by an integer add to the exponent field (exact: `p·2^⌊n/2⌋` stays normal) and
//!   `2^⌈n/2⌉` by a multiplication that rounds once, so subnormal results are correctly
//!   rounded; NaN lanes are restored from a mask taken before the clamp. For lanes in the
//!   fast path's range the clamp changes nothing and the second step is exact, so both paths
//!   agree there, and the result does not depend on how lanes are grouped into strips.
//!
//! Registers: `x` (overwritten), `t`, `d` (the result) are full groups, none of them `v0`'s;
//! the full path also needs `v0` and `n` (16-bit lanes: half a group). The fast path keeps
//! `n` at 32 bits in `v0`'s whole group when it is free ([`ExpRegs::wide_n`]), else at 16
//! bits in `n` (two `vsetvli` and a widening at the end).

use tilec_rvv::{
    Assembler, BranchCond, FFmt, FReg, Inst, Mask, Target, VBinOp, VMaskScalarOp, VReg, VType, VUnaryOp, XReg,
};

/// The fp32 constants [`exp_f32`] reads for `exp`, as bits, in the order of
/// [`ExpConsts::f`]: clamp bounds, the factor to `n` (log₂e), `ln2_hi`, `ln2_lo`, q0..q4,
/// the linear coefficient of `p`, 1 and NaN.
pub(crate) const EXP_F32_BITS: [u32; 13] = [
    0xc2d0_0000, // −104: lower clamp
    0x42b2_0000, // 89: upper clamp
    0x3fb8_aa3b, // log₂e
    0x3f31_7200, // ln2_hi = 0.693145751953125
    0x35bf_be8e, // ln2_lo = ln2 − ln2_hi
    0x3eff_fffe, // q0
    0x3e2a_aa49, // q1
    0x3d2a_ac79, // q2
    0x3c09_1cea, // q3
    0x3ab5_1222, // q4
    0x3f80_0000, // linear coefficient 1
    0x3f80_0000, // 1
    0x7fc0_0000, // canonical quiet NaN
];

/// The same for `exp2`: `n = round(x)`, `r = x − n` (exact), `p(r) = 2ʳ` with linear
/// coefficient ln2 (fitted like `exp`'s: 0.05·2⁻²⁴), clamp to `[−151, 129]`.
pub(crate) const EXP2_F32_BITS: [u32; 13] = [
    0xc317_0000, // −151: lower clamp
    0x4301_0000, // 129: upper clamp
    0x3f80_0000, // 1
    0x3f80_0000, // 1
    0x0000_0000, // 0
    0x3e75_fdee, // q0
    0x3d63_57bd, // q1
    0x3c1d_96fd, // q2
    0x3aaf_849a, // q3
    0x3920_afe0, // q4
    0x3f31_7218, // linear coefficient ln2
    0x3f80_0000, // 1
    0x7fc0_0000, // canonical quiet NaN
];

/// The fast path's range of `n`: `n + FAST_N_OFFSET` is at most `FAST_N_SPAN` as an
/// unsigned number exactly when `n ∈ [−125, 127]`.
pub(super) const FAST_N_OFFSET: i64 = 125;
pub(super) const FAST_N_SPAN: i64 = 252;

/// Float registers holding [`EXP_F32_BITS`] or [`EXP2_F32_BITS`] (same order; the full
/// path's own constants, the clamp bounds and NaN, are registers it loads itself, so the
/// fast path's callers do not), integer registers holding [`FAST_N_OFFSET`] and
/// [`FAST_N_SPAN`] and 2²³, and the `vtype`s of the fp32 lanes and of the same lanes at 16 bits.
pub(super) struct ExpConsts {
    pub f: [FReg; 13],
    pub offset: XReg,
    pub span: XReg,
    /// 2²³, one in the exponent field.
    pub exponent_one: XReg,
    pub vtype_f32: VType,
    pub vtype_i16: VType,
    /// `exp2`: `n = round(x)` and `r = x − n`, no multiplications.
    pub two: bool,
}

/// The registers of [`exp_f32`]: `d = exp(x)`; `x` (overwritten), `t` and `d` are distinct
/// full groups other than `v0`'s; `n` is a group of half the width that overlaps none of
/// them nor `v0`; `first` is a scalar scratch register.
pub(super) struct ExpRegs {
    pub d: VReg,
    pub x: VReg,
    pub t: VReg,
    pub n: VReg,
    /// `v0`'s whole group is free: the fast path keeps `n` there at 32 bits (and `n` lies
    /// in that group too).
    pub wide_n: bool,
    pub first: XReg,
}

/// `d = exp(x)` (or `exp2(x)`) lane-wise on fp32; the `vtype` is `k.vtype_f32` before and
/// after. Overwrites `x`, `t`, `n`, `v0` (and with `wide_n` `v0`'s group), `first` and the
/// full path's float registers.
pub(super) fn exp_f32(asm: &mut Assembler, regs: &ExpRegs, k: &ExpConsts) {
    let &ExpRegs { d, x, t, n, wide_n, first } = regs;
    let u = Mask::Unmasked;
    let [_, _, log2e, ..] = k.f;
    // n (rounded x·log₂e), the lanes outside the fast path's range (a mask in `t`), the
    // first of them (or −1), and n as fp32 in `d`.
    let scaled = if k.two {
        x
    } else {
        asm.vop(VBinOp::Fmul, d, x, log2e, u);
        d
    };
    let wide = VReg::V0;
    if wide_n {
        asm.vunary(VUnaryOp::FcvtXF, wide, scaled, u);
        asm.vop(VBinOp::Add, t, wide, k.offset, u);
    } else {
        asm.vsetvli(XReg::ZERO, XReg::ZERO, k.vtype_i16);
        asm.vunary(VUnaryOp::FncvtXF, n, scaled, u);
        asm.vop(VBinOp::Add, t, n, k.offset, u);
    }
    asm.vop(VBinOp::Msgtu, t, t, k.span, u);
    asm.push(Inst::VMaskScalar { op: VMaskScalarOp::First, rd: first, vs2: t, mask: u });
    if wide_n {
        asm.vunary(VUnaryOp::FcvtFX, d, wide, u);
    } else {
        asm.vunary(VUnaryOp::FwcvtFX, d, n, u);
        asm.vsetvli(XReg::ZERO, XReg::ZERO, k.vtype_f32);
    }
    let mut full = Assembler::new();
    exp_full(&mut full, regs, k);
    let mut fast = Assembler::new();
    reduce(&mut fast, x, d, k);
    polynomial(&mut fast, d, x, t, k);
    // 2ⁿ·p by an add of n·2²³ to the bits of p (one multiply-add).
    let n32 = if wide_n {
        wide
    } else {
        fast.vunary(VUnaryOp::SextVf2, x, n, u);
        x
    };
    fast.vop(VBinOp::Macc, d, n32, k.exponent_one, u);
    fast_or_full(asm, first, &full, &fast);
}

/// `bltz first, fast; <full>; j end; fast: <fast>; end:` — the fast path when `first`
/// (a `vfirst.m` of the lanes it does not cover) is negative.
pub(super) fn fast_or_full(asm: &mut Assembler, first: XReg, full: &Assembler, fast: &Assembler) {
    let (full, fast) = (full.insts(), fast.insts());
    let bytes = |n: usize| (n as i32 + 1) * 4;
    asm.push(Inst::Branch {
        cond: BranchCond::Lt,
        rs1: first,
        rs2: XReg::ZERO,
        target: Target::Offset(bytes(full.len() + 1)),
    });
    full.iter().for_each(|&i| asm.push(i));
    asm.push(Inst::Jal { rd: XReg::ZERO, target: Target::Offset(bytes(fast.len())) });
    fast.iter().for_each(|&i| asm.push(i));
}

/// `r = x − n·ln2_hi − n·ln2_lo` in `x`, with `n` as fp32 in `nf` (`exp2`: `x − n`).
fn reduce(asm: &mut Assembler, x: VReg, nf: VReg, k: &ExpConsts) {
    let u = Mask::Unmasked;
    let [_, _, _, ln2_hi, ln2_lo, ..] = k.f;
    if k.two {
        asm.vop(VBinOp::Fsub, x, x, nf, u);
    } else {
        asm.vop(VBinOp::Fnmsac, x, nf, ln2_hi, u);
        asm.vop(VBinOp::Fnmsac, x, nf, ln2_lo, u);
    }
}

/// `p(r)` in `d`, with `r` in `x`; overwrites `t`.
fn polynomial(asm: &mut Assembler, d: VReg, x: VReg, t: VReg, k: &ExpConsts) {
    let u = Mask::Unmasked;
    let [_, _, _, _, _, q0, q1, q2, q3, q4, linear, one, _] = k.f;
    // q(r) by fused Horner steps alternating between `t` and `d`: t = q3 + q4·r, then
    // q_k + r·(…) for q2, q1, q0 (q ends in `d`).
    asm.vmv(t, q3);
    asm.vop(VBinOp::Fmacc, t, x, q4, u);
    let (mut acc, mut next) = (t, d);
    for q in [q2, q1, q0] {
        asm.vmv(next, q);
        asm.vop(VBinOp::Fmacc, next, x, acc, u);
        (acc, next) = (next, acc);
    }
    // p = 1 + r·(c + r·q) in `d`, each step `d = d·r + c` with `c` splatted in `t` (once
    // when both coefficients are 1).
    if linear == one {
        asm.vmv(t, one);
        asm.vop(VBinOp::Fmadd, d, t, x, u);
        asm.vop(VBinOp::Fmadd, d, t, x, u);
    } else {
        for c in [linear, one] {
            asm.vmv(t, c);
            asm.vop(VBinOp::Fmadd, d, t, x, u);
        }
    }
}

/// The full path (see the module doc): `d = exp(x)` for every input; overwrites `x`, `t`,
/// `n` and `v0`.
fn exp_full(asm: &mut Assembler, regs: &ExpRegs, k: &ExpConsts) {
    let &ExpRegs { d, x, t, n, first, .. } = regs;
    let u = Mask::Unmasked;
    let [lo, hi, log2e, .., nan] = k.f;
    let bits = if k.two { EXP2_F32_BITS } else { EXP_F32_BITS };
    for (r, b) in [(lo, bits[0]), (hi, bits[1]), (nan, bits[12])] {
        asm.li(first, b as i32 as i64);
        asm.push(Inst::FMvFromInt { fmt: FFmt::S, rd: r, rs1: first });
    }
    let bias = first;
    asm.li(bias, 255);
    asm.vop(VBinOp::Mfne, VReg::V0, x, x, u);
    asm.vop(VBinOp::Fmax, x, x, lo, u);
    asm.vop(VBinOp::Fmin, x, x, hi, u);
    asm.vop(VBinOp::Fmul, d, x, log2e, u);
    // n = round(x·log₂e) ∈ [−150, 128], kept as i16; d = n as fp32.
    asm.vsetvli(XReg::ZERO, XReg::ZERO, k.vtype_i16);
    asm.vunary(VUnaryOp::FncvtXF, n, d, u);
    asm.vunary(VUnaryOp::FwcvtFX, d, n, u);
    asm.vsetvli(XReg::ZERO, XReg::ZERO, k.vtype_f32);
    reduce(asm, x, d, k);
    polynomial(asm, d, x, t, k);
    // p · 2^⌊n/2⌋ by an add to the exponent field, then · 2^⌈n/2⌉ with
    // bits (⌈n/2⌉ + 127) << 23 = ((n + 255) >> 1) << 23.
    asm.vunary(VUnaryOp::SextVf2, x, n, u);
    asm.vop(VBinOp::Sra, x, x, 1, u);
    asm.vop(VBinOp::Sll, x, x, 23, u);
    asm.vop(VBinOp::Add, d, d, x, u);
    asm.vunary(VUnaryOp::SextVf2, x, n, u);
    asm.vop(VBinOp::Add, x, x, bias, u);
    asm.vop(VBinOp::Sra, x, x, 1, u);
    asm.vop(VBinOp::Sll, x, x, 23, u);
    asm.vop(VBinOp::Fmul, d, d, x, u);
    asm.vop(VBinOp::Fmerge, d, d, nan, Mask::V0);
}
