//! Inline vector `exp` for fp32: no call, no spill, at the nest's LMUL.
//!
//! `exp(x) = 2ⁿ · p(r)` with `n = round(x·log₂e)` (`vfcvt.x.f.v`, round to nearest even),
//! `r = x − n·ln2_hi − n·ln2_lo` (`|r| ≤ ln2/2`; `ln2_hi` has 16 significant bits so
//! `n·ln2_hi` is exact for `|n| ≤ 150`) and `p(r) = 1 + (r + r²·q(r))`, `q` a degree-4
//! polynomial fitted to `(eʳ − 1 − r)/r²` by iteratively reweighted least squares on the
//! relative error of `p` (0.06·2⁻²⁴ with the coefficients rounded to fp32; with the
//! arithmetic's roundings, 0.99 ULP over 1.5M random inputs). The scale `2ⁿ` is applied in two steps, `2^⌊n/2⌋` by an integer add
//! to the exponent field (exact: `p·2^⌊n/2⌋` stays normal) and `2^⌈n/2⌉` by a
//! multiplication that rounds once, so subnormal results are correctly rounded.
//! `x` is first clamped to `[−104, 89]`: above, `2¹²⁸·p` overflows to `+inf`; below,
//! the result rounds to `0`. NaN lanes are restored from a mask taken before the clamp.

use tilec_rvv::{Assembler, FReg, Mask, VBinOp, VReg, VUnaryOp, XReg};

/// The fp32 constants [`exp_f32`] reads, as bits, in the order of [`ExpConsts`]'s fields.
pub(super) const EXP_F32_BITS: [u32; 12] = [
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
    0x3f80_0000, // 1
    0x7fc0_0000, // canonical quiet NaN
];

/// Float registers holding [`EXP_F32_BITS`] (same order) and an integer register holding 127.
pub(super) struct ExpConsts {
    pub f: [FReg; 12],
    pub bias: XReg,
}

/// `d = exp(x)` lane-wise on fp32 at the current `vtype` (SEW 32). Overwrites `x`
/// (clamped, then `r`, then scratch), `n` (scratch) and `v0` (the NaN lanes). `x`, `n`
/// and `d` are distinct register groups, none of them `v0`: with the input, three groups,
/// all a nest at LMUL 8 has besides `v0` (a nest with more live values drops to LMUL 4).
pub(super) fn exp_f32(asm: &mut Assembler, d: VReg, x: VReg, n: VReg, k: &ExpConsts) {
    let u = Mask::Unmasked;
    let [lo, hi, log2e, ln2_hi, ln2_lo, q0, q1, q2, q3, q4, one, nan] = k.f;
    asm.vop(VBinOp::Mfne, VReg::V0, x, x, u);
    asm.vop(VBinOp::Fmax, x, x, lo, u);
    asm.vop(VBinOp::Fmin, x, x, hi, u);
    asm.vop(VBinOp::Fmul, d, x, log2e, u);
    asm.vunary(VUnaryOp::FcvtXF, n, d, u);
    asm.vunary(VUnaryOp::FcvtFX, d, n, u);
    asm.vop(VBinOp::Fnmsac, x, d, ln2_hi, u);
    asm.vop(VBinOp::Fnmsac, x, d, ln2_lo, u);
    // q(r) by Horner: d = q3 + q4·r (fused), then d = d·r + q_k.
    asm.vmv(d, q3);
    asm.vop(VBinOp::Fmacc, d, x, q4, u);
    for q in [q2, q1, q0] {
        asm.vop(VBinOp::Fmul, d, d, x, u);
        asm.vop(VBinOp::Fadd, d, d, q, u);
    }
    // p = 1 + (r + r·(r·q)).
    asm.vop(VBinOp::Fmul, d, d, x, u);
    asm.vop(VBinOp::Fmadd, d, x, x, u);
    asm.vop(VBinOp::Fadd, d, d, one, u);
    // d · 2^⌊n/2⌋ (exponent add) · 2^⌈n/2⌉ (multiply).
    asm.vop(VBinOp::Sra, x, n, 1, u);
    asm.vop(VBinOp::Sub, n, n, x, u);
    asm.vop(VBinOp::Sll, x, x, 23, u);
    asm.vop(VBinOp::Add, d, d, x, u);
    asm.vop(VBinOp::Add, n, n, k.bias, u);
    asm.vop(VBinOp::Sll, n, n, 23, u);
    asm.vop(VBinOp::Fmul, d, d, n, u);
    asm.vop(VBinOp::Fmerge, d, d, nan, Mask::V0);
}
