//! Inline vector `log` for fp32: no call, at the nest's LMUL, within 1 ULP.
//!
//! `log(x) = k·ln2 + log(m)` with `x = 2ᵏ·m`, `m ∈ [√½, √2)`: the bits of `x` less those of
//! `√½` (`LOG_OFFSET`), shifted right arithmetically by 23, are `k`; their low 23 bits plus
//! `LOG_OFFSET` are `m`'s. Subnormal inputs are first scaled by 2²³ (exact), `k` lowered by
//! 23. With `f = m − 1` (exact), `s = f/(2 + f)` (`2 + f` computed as `m + 1`, the same
//! rounding), `z = s²`:
//!
//! `log(m) = f − (½f² − s·(½f² + R(z)))`, `R(z) = z·(c1 + z·(c2 + z·(c3 + z·c4)))`
//!
//! which is `2s + s·R(z)`: `R` approximates `2·atanh(s)/s − 2` over `z ∈ [0, (3 − 2√2)²]`.
//! Its coefficients are fitted by `cargo xtask fit-log` (`xtask/src/fit_log.rs`): minimax
//! for the relative error of `log(m)` (an error `δ` of `R` is `δ/(2 + R)` of `log(m)`) by
//! iteratively reweighted least squares, rounded to fp32 one at a time with the remaining
//! ones re-fitted; their own share of the error is 2.5·10⁻¹¹ relative. `k·ln2` is split
//! into `ln2_hi` (exact products) and `ln2_lo`: `log(x) = k·ln2_hi − ((½f² − (s·u +
//! k·ln2_lo)) − f)`, `u = ½f² + R`. The first Horner step, `s·u + k·ln2_lo` and the last
//! step are fused. A model of these exact steps (in the same xtask), run on every positive
//! fp32 (subnormals included) against fp64 `ln`, errs by 0.840 ULP at most (at 1.4133185,
//! the arithmetic's roundings); `tests/math_ulp.rs` checks 1 ULP.
//!
//! Special inputs change `k` before it is used, so the steps above give the result: for
//! `x ≤ 0` (as a signed integer: ±0, negative numbers and NaNs with the sign set) `k` is
//! `√x − ∞` (−∞ for ±0, NaN otherwise), for `+∞` and the other NaNs `k` is `x`; every other
//! term stays finite (`m ∈ [√½, √2)` whatever the bits), so the result is `k·ln2_hi` plus a
//! finite value, or NaN: −∞, NaN or `x`.
//!
//! Straight-line, 32 vector instructions, no `vsetvli`. Registers: `x` (overwritten, then
//! reused), `t`, `k`, `p` and the result `d`, five distinct full groups, none of them `v0`'s;
//! `v0` holds the masks.

use tilec_rvv::{Assembler, FReg, Mask, VBinOp, VReg, VUnaryOp, XReg};

/// `c1..c4` (fp32 bits), degree 1 up (`R(z) = c1·z + c2·z² + c3·z³ + c4·z⁴`), as
/// `cargo xtask fit-log` prints them.
pub(crate) const LOG_R_BITS: [u32; 4] = [0x3f2a_aaaa, 0x3ecc_ce14, 0x3e91_e989, 0x3e78_b0e9];
/// `ln2_hi` (16 significant bits: `k·ln2_hi` is exact) and `ln2_lo = ln2 − ln2_hi`.
pub(crate) const LOG_LN2_HI_BITS: u32 = 0x3f31_7180;
pub(crate) const LOG_LN2_LO_BITS: u32 = 0x3717_f7d1;
/// 2²³ (subnormals' scale), 1, ½ and −∞.
pub(crate) const LOG_SCALE_BITS: u32 = 0x4b00_0000;
pub(crate) const LOG_ONE_BITS: u32 = 0x3f80_0000;
pub(crate) const LOG_HALF_BITS: u32 = 0x3f00_0000;
pub(crate) const LOG_NEG_INF_BITS: u32 = 0xff80_0000;
/// The bits of `√½` rounded (the low end of `m`'s range).
pub(crate) const LOG_OFFSET: i64 = 0x3f35_04f3;
/// The fraction field's mask; also the largest subnormal's bits (`x ≤ LOG_FRACTION` as a
/// signed integer: subnormal, zero or negative).
pub(crate) const LOG_FRACTION: i64 = 0x007f_ffff;
/// The largest finite fp32's bits: above it (signed), `+∞` and the NaNs with a clear sign.
pub(crate) const LOG_MAX_FINITE: i64 = 0x7f7f_ffff;
/// The exponent drop of the subnormals' scale.
pub(crate) const LOG_SCALE_EXPONENT: i64 = 23;

/// Float registers of [`log_f32`]'s constants.
pub(crate) struct LogConsts {
    /// [`LOG_R_BITS`].
    pub r: [FReg; 4],
    pub ln2_hi: FReg,
    pub ln2_lo: FReg,
    pub scale: FReg,
    pub one: FReg,
    pub half: FReg,
    pub neg_inf: FReg,
    /// `LOG_OFFSET`, `LOG_FRACTION`, `LOG_MAX_FINITE`, `LOG_SCALE_EXPONENT`.
    pub offset: XReg,
    pub fraction: XReg,
    pub max_finite: XReg,
    pub scale_exponent: XReg,
}

/// The registers of [`log_f32`]: `d = log(x)`, `x` overwritten; all distinct full groups
/// at the nest's fp32 `vtype` (in effect), none of them `v0`'s.
pub(crate) struct LogRegs {
    pub d: VReg,
    pub x: VReg,
    pub t: VReg,
    pub k: VReg,
    pub p: VReg,
}

/// `d = log(x)` for fp32 lanes (see the module doc); `v0` is clobbered.
pub(crate) fn log_f32(asm: &mut Assembler, r: &LogRegs, c: &LogConsts) {
    let u = Mask::Unmasked;
    let LogRegs { d, x, t, k, p } = *r;
    // Subnormal (and zero, negative) lanes scaled into the normal range.
    asm.vop(VBinOp::Msle, VReg::V0, x, c.fraction, u);
    asm.vop(VBinOp::Fmul, x, x, c.scale, Mask::V0);
    asm.vop(VBinOp::Sub, t, x, c.offset, u);
    asm.vop(VBinOp::Sra, k, t, 23, u);
    asm.vop(VBinOp::Sub, k, k, c.scale_exponent, Mask::V0);
    asm.vunary(VUnaryOp::FcvtFX, k, k, u);
    // x ≤ 0: k = √x − ∞; +∞ and NaN: k = x.
    asm.vop(VBinOp::Msle, VReg::V0, x, 0, u);
    asm.vunary(VUnaryOp::Fsqrt, k, x, Mask::V0);
    asm.vop(VBinOp::Fadd, k, k, c.neg_inf, Mask::V0);
    asm.vop(VBinOp::Msgt, VReg::V0, x, c.max_finite, u);
    asm.vop(VBinOp::Merge, k, k, x, Mask::V0);
    // m, then s = f / (m + 1) in x, f in t.
    asm.vop(VBinOp::And, t, t, c.fraction, u);
    asm.vop(VBinOp::Add, t, t, c.offset, u);
    asm.vop(VBinOp::Fadd, x, t, c.one, u);
    asm.vop(VBinOp::Fsub, t, t, c.one, u);
    asm.vop(VBinOp::Fdiv, x, t, x, u);
    // z in d, R in p.
    asm.vop(VBinOp::Fmul, d, x, x, u);
    asm.vmv(p, c.r[2]);
    asm.vop(VBinOp::Fmacc, p, d, c.r[3], u);
    asm.vop(VBinOp::Fmul, p, p, d, u);
    asm.vop(VBinOp::Fadd, p, p, c.r[1], u);
    asm.vop(VBinOp::Fmul, p, p, d, u);
    asm.vop(VBinOp::Fadd, p, p, c.r[0], u);
    asm.vop(VBinOp::Fmul, p, p, d, u);
    // ½f² in d; u = ½f² + R, then s·u + k·ln2_lo in p.
    asm.vop(VBinOp::Fmul, d, t, c.half, u);
    asm.vop(VBinOp::Fmul, d, d, t, u);
    asm.vop(VBinOp::Fadd, p, p, d, u);
    asm.vop(VBinOp::Fmul, p, p, x, u);
    asm.vop(VBinOp::Fmacc, p, k, c.ln2_lo, u);
    // k·ln2_hi − ((½f² − p) − f).
    asm.vop(VBinOp::Fsub, d, d, p, u);
    asm.vop(VBinOp::Fsub, d, d, t, u);
    asm.vop(VBinOp::Fmsac, d, k, c.ln2_hi, u);
}
