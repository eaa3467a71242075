//! Inline vector `exp` and `exp2` for fp32: no call, no spill, at the nest's LMUL.
//!
//! `exp(x) = 2ⁿ · p(r)` with `n = round(x·log₂e)` (`vfncvt.x.f.w` to 16 bits, round to
//! nearest even), `r = x − n·ln2_hi − n·ln2_lo` (`|r| ≤ ln2/2`; `ln2_hi` has 16 significant
//! bits so `n·ln2_hi` is exact for `|n| ≤ 150`) and `p(r) = 1 + r + r²·q(r)`, `q` a
//! degree-4 polynomial fitted to `(eʳ − 1 − r)/r²` by iteratively reweighted least squares
//! on the relative error of `p` (0.06·2⁻²⁴ with the coefficients rounded to fp32; with the
//! arithmetic's roundings, 0.85 ULP at most over 300,000 random inputs in a model of it).
//! Every step of `p` is fused (`vfmacc`), `p = 1 + r·(1 + r·q)`. `n` waits in a 16-bit
//! group (half a register group), so the computation needs three full groups besides
//! `v0`'s: its input's (overwritten), a temporary and the result's.
//! The scale `2ⁿ` is applied in two steps, `2^⌊n/2⌋` by an integer add to the exponent
//! field (exact: `p·2^⌊n/2⌋` stays normal) and `2^⌈n/2⌉` by a multiplication that rounds
//! once, so subnormal results are correctly rounded. `x` is first clamped to `[−104, 89]`:
//! above, `2¹²⁸·p` overflows to `+inf`; below, the result rounds to `0`. NaN lanes are
//! restored from a mask taken before the clamp.

use tilec_rvv::{Assembler, FReg, Mask, VBinOp, VReg, VType, VUnaryOp, XReg};

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

/// Float registers holding [`EXP_F32_BITS`] or [`EXP2_F32_BITS`] (same order), an integer register holding
/// 255 and the `vtype`s of the fp32 lanes and of the same lanes at 16 bits.
pub(super) struct ExpConsts {
    pub f: [FReg; 13],
    pub bias: XReg,
    pub vtype_f32: VType,
    pub vtype_i16: VType,
}

/// `d = exp(x)` (or `exp2(x)` with [`EXP2_F32_BITS`]) lane-wise on fp32; the `vtype` is `k.vtype_f32` before and after. Overwrites
/// `x` (clamped, then `r`, then scratch), `t` (scratch), `n` (`n` as i16, a group of half
/// the width) and `v0` (the NaN lanes). `x`, `t`, `n` and `d` are distinct register groups,
/// none of them `v0`: at LMUL 8, `x`, `t` and `d` are the three groups besides `v0`'s and
/// `n` takes half of that one (a nest with more live values runs at LMUL 4).
pub(super) fn exp_f32(asm: &mut Assembler, d: VReg, x: VReg, t: VReg, n: VReg, k: &ExpConsts) {
    let u = Mask::Unmasked;
    let [lo, hi, log2e, ln2_hi, ln2_lo, q0, q1, q2, q3, q4, linear, one, nan] = k.f;
    asm.vop(VBinOp::Mfne, VReg::V0, x, x, u);
    asm.vop(VBinOp::Fmax, x, x, lo, u);
    asm.vop(VBinOp::Fmin, x, x, hi, u);
    asm.vop(VBinOp::Fmul, d, x, log2e, u);
    // n = round(x·log₂e) ∈ [−150, 128], kept as i16; d = n as fp32.
    asm.vsetvli(XReg::ZERO, XReg::ZERO, k.vtype_i16);
    asm.vunary(VUnaryOp::FncvtXF, n, d, u);
    asm.vunary(VUnaryOp::FwcvtFX, d, n, u);
    asm.vsetvli(XReg::ZERO, XReg::ZERO, k.vtype_f32);
    asm.vop(VBinOp::Fnmsac, x, d, ln2_hi, u);
    asm.vop(VBinOp::Fnmsac, x, d, ln2_lo, u);
    // q(r) by fused Horner steps alternating between `t` and `d`: t = q3 + q4·r, then
    // q_k + r·(…) for q2, q1, q0 (q ends in `d`); then t = c1 + r·q and p = 1 + r·t in `d`.
    asm.vmv(t, q3);
    asm.vop(VBinOp::Fmacc, t, x, q4, u);
    let (mut acc, mut next) = (t, d);
    for q in [q2, q1, q0, linear, one] {
        asm.vmv(next, q);
        asm.vop(VBinOp::Fmacc, next, x, acc, u);
        (acc, next) = (next, acc);
    }
    // p · 2^⌊n/2⌋ by an add to the exponent field, then · 2^⌈n/2⌉ with
    // bits (⌈n/2⌉ + 127) << 23 = ((n + 255) >> 1) << 23.
    asm.vunary(VUnaryOp::SextVf2, x, n, u);
    asm.vop(VBinOp::Sra, x, x, 1, u);
    asm.vop(VBinOp::Sll, x, x, 23, u);
    asm.vop(VBinOp::Add, d, d, x, u);
    asm.vunary(VUnaryOp::SextVf2, x, n, u);
    asm.vop(VBinOp::Add, x, x, k.bias, u);
    asm.vop(VBinOp::Sra, x, x, 1, u);
    asm.vop(VBinOp::Sll, x, x, 23, u);
    asm.vop(VBinOp::Fmul, d, d, x, u);
    asm.vop(VBinOp::Fmerge, d, d, nan, Mask::V0);
}
