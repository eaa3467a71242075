//! Inline vector `erf` for fp32: no call, at the nest's LMUL, within 1 ULP.
//!
//! Three regions of `|x|`, each a polynomial evaluated in fp32:
//! - `|x| < 1` (`x² < 1`): `erf(x) = x + x·R(u)`, `u = x² − ½` (exact), `R` of degree 6
//!   fitted to `erf(x)/x − 1` (Horner steps unfused after the first, so they need no
//!   register besides the result's; the last step is one `vfmadd`, `x·R + x`);
//! - `1 ≤ |x| < 2`: `1 − H₁(|x| − 1.5)`, `H₁` of degree 9 fitted to `erfc`;
//! - `|x| ≥ 2`: `1 − H₂(min(|x|, 4) − 3)`, `H₂` of degree 11 fitted to `erfc` (`erf(4)`
//!   rounds to 1 like every larger argument), with `x`'s sign.
//!
//! Every `u` is exact (a difference of two fp32 within a factor of two of each other, or
//! with a common unit), so the error is the polynomial's and the roundings' only. The
//! polynomials are Chebyshev interpolants on their interval, turned into monomials about its
//! middle and rounded to fp32 from the highest degree down (each lower part refitted to what
//! the rounded higher coefficients leave); `H₁`/`H₂` are evaluated in fused steps. Measured
//! against fp64 `erf` on every fp32 in `[0, 4.5]`: 0.97 ULP (`|x| < 1`), 0.77 (`[1, 2)`),
//! 0.56 (`[2, 4.5]`); `tests/math_ulp.rs` checks 1 ULP at several VLENs.
//!
//! Each strip takes one of two paths, with the same bits wherever both apply:
//! - the *fast path*, when no lane has `x² ≥ 1` (NaN lanes compare false and stay NaN
//!   through `R`): the first region's formula alone, 17 vector instructions;
//! - the *full path* otherwise: the first region's formula for every lane (the same
//!   instructions, so the same bits), then each other region computed for every lane and
//!   merged into the lanes it covers (`|x| ≥ 1`, then `|x| ≥ 2`; NaN lanes are in neither).
//!
//! Registers: the fast path needs `x` (overwritten by the full path), `d` (the result) and
//! one more group `t`, which may be `v0`'s (its lowest register then holds the full path's
//! merge masks only while `t` is dead). The full path needs two more groups: two free ones
//! ([`ErfParts::Whole`]), or, when the nest has none (LMUL ≥ 2), the high halves of `t`
//! and of `d` or `x` ([`ErfParts::Halves`]: the strip's lanes in two halves at half the
//! LMUL, each run at its VLMAX, so lanes past `vl` are computed and ignored).

use tilec_rvv::{Assembler, Csr, FFmt, FReg, Inst, Mask, Target, VBinOp, VMaskScalarOp, VReg, VType, XReg};

/// `R`'s coefficients (fp32 bits), degree 0 up; `u = x² − ERF_CENTER`.
pub(crate) const ERF_SMALL_BITS: [u32; 7] =
    [0xbd0d_70a7, 0xbe8f_e8b2, 0x3da2_a1b4, 0xbc95_c74b, 0x3b64_1447, 0xba14_0f7d, 0x38a5_2b48];

/// ½, the middle of `R`'s interval of `x²`.
pub(crate) const ERF_CENTER: f32 = 0.5;

/// `H₁`'s coefficients, degree 0 up, in `|x| − 1.5`.
const ERF_NEAR_BITS: [u32; 10] = [
    0x3d0a_d555,
    0xbdf3_91b9,
    0x3e36_ad4a,
    0xbe0e_150a,
    0x3d36_adc2,
    0x3c73_9fae,
    0xbc9e_5ee1,
    0x3b9a_4b0c,
    0x3b1d_4056,
    0xbacb_de41,
];

/// `H₂`'s coefficients, degree 0 up, in `min(|x|, 4) − 3`.
const ERF_FAR_BITS: [u32; 12] = [
    0x37b9_4ada,
    0xb912_0429,
    0x39db_020d,
    0xba4e_dda9,
    0x3a88_f447,
    0xba85_34d9,
    0x3a40_d777,
    0xb9cd_4665,
    0x3913_203a,
    0xb74e_0cb5,
    0xb7b6_811d,
    0x3721_6977,
];

/// One of the full path's regions: `1 − H(min(|x|, clamp) − center)` for `|x| ≥ lower`.
struct Region {
    coefficients: &'static [u32],
    center: f32,
    lower: f32,
    clamp: Option<f32>,
}

const REGIONS: [Region; 2] = [
    Region { coefficients: &ERF_NEAR_BITS, center: 1.5, lower: 1.0, clamp: None },
    Region { coefficients: &ERF_FAR_BITS, center: 3.0, lower: 2.0, clamp: Some(4.0) },
];

/// The words of the full path's constant pool: each region's coefficients, then its
/// center, lower bound and clamp.
fn pool_words() -> Vec<u32> {
    let mut words = Vec::new();
    for r in &REGIONS {
        words.extend_from_slice(r.coefficients);
        words.extend([r.center.to_bits(), r.lower.to_bits(), r.clamp.unwrap_or(0.0).to_bits()]);
    }
    words
}

/// Float registers holding [`ERF_SMALL_BITS`], [`ERF_CENTER`] and 1, and one the full path
/// loads its own constants into, one at a time.
pub(super) struct ErfConsts {
    pub small: [FReg; 7],
    pub center: FReg,
    pub one: FReg,
    pub scratch: FReg,
    /// The nest's fp32 `vtype`, in effect before and after.
    pub vtype: VType,
}

/// Where the full path finds its two more register groups.
pub(super) enum ErfParts {
    /// Two free groups of the nest's LMUL.
    Whole { s2: VReg, s3: VReg },
    /// The strip in two halves at `half` (the nest's LMUL halved); `vl` is a scalar
    /// register the strip's `vl` is kept in meanwhile.
    Halves { half: VType, vl: XReg },
}

/// The registers of [`erf_f32`]: `d = erf(x)`; `x`, `t`, `d` distinct full groups, `x`
/// overwritten (by the full path), `t` possibly `v0`'s group; `first` a scalar scratch
/// register.
pub(super) struct ErfRegs {
    pub d: VReg,
    pub x: VReg,
    pub t: VReg,
    pub first: XReg,
    pub parts: ErfParts,
}

/// `d = erf(x)` lane-wise on fp32 (see the module doc). Overwrites `x`, `t`, `v0`, the
/// parts' registers, `first` and `k.scratch`.
pub(super) fn erf_f32(asm: &mut Assembler, regs: &ErfRegs, k: &ErfConsts) {
    let &ErfRegs { d, x, t, first, .. } = regs;
    let u = Mask::Unmasked;
    // The lanes with x² ≥ 1 (a mask in `d`'s first register) and the first of them.
    asm.vop(VBinOp::Fmul, t, x, x, u);
    asm.vop(VBinOp::Mfge, d, t, k.one, u);
    asm.push(Inst::VMaskScalar { op: VMaskScalarOp::First, rd: first, vs2: d, mask: u });
    let mut full = Assembler::new();
    erf_full(&mut full, regs, k);
    let mut fast = Assembler::new();
    fast.vop(VBinOp::Fsub, t, t, k.center, u);
    small(&mut fast, d, x, t, k);
    super::poly::fast_or_full(asm, first, &full, &fast);
}

/// `d = x + x·R(u)` with `u` in `u_reg` (the first region's formula).
fn small(asm: &mut Assembler, d: VReg, x: VReg, u_reg: VReg, k: &ErfConsts) {
    let u = Mask::Unmasked;
    let [c0, c1, c2, c3, c4, c5, c6] = k.small;
    asm.vmv(d, c5);
    asm.vop(VBinOp::Fmacc, d, u_reg, c6, u);
    for c in [c4, c3, c2, c1, c0] {
        asm.vop(VBinOp::Fmul, d, d, u_reg, u);
        asm.vop(VBinOp::Fadd, d, d, c, u);
    }
    asm.vop(VBinOp::Fmadd, d, x, x, u);
}

/// The full path: the pool of constants (its address in `first`), then each part.
fn erf_full(asm: &mut Assembler, regs: &ErfRegs, k: &ErfConsts) {
    let &ErfRegs { d, x, t, first, .. } = regs;
    let words = pool_words();
    let pool = |asm: &mut Assembler| {
        asm.push(Inst::Jal { rd: first, target: Target::Offset((words.len() as i32 + 1) * 4) });
        words.iter().for_each(|&w| asm.push(Inst::Word(w)));
    };
    match regs.parts {
        ErfParts::Whole { s2, s3 } => {
            pool(asm);
            part(asm, [x, d, t, s2, s3], first, k);
        }
        ErfParts::Halves { half, vl } => {
            let h = (half.lmul.ratio().0 as u8).max(1);
            let hi = |r: VReg| VReg::new(r.num() + h).expect("the high half of a group is a register");
            asm.csrr(vl, Csr::VL);
            asm.vsetvli(first, XReg::ZERO, half);
            pool(asm);
            part(asm, [x, d, t, hi(t), hi(d)], first, k);
            part(asm, [hi(x), hi(d), t, hi(t), x], first, k);
            asm.vsetvli(XReg::ZERO, vl, k.vtype);
        }
    }
}

/// The full path on one part of the strip, at the `vtype` in effect: `d = erf(x)` with
/// scratch groups `s1` (possibly `v0`'s), `s2` and `s3`; the pool's address is in `pool`.
fn part(asm: &mut Assembler, [x, d, s1, s2, s3]: [VReg; 5], pool: XReg, k: &ErfConsts) {
    let u = Mask::Unmasked;
    let f = k.scratch;
    let mut base = 0;
    asm.vop(VBinOp::Fmul, s1, x, x, u);
    asm.vop(VBinOp::Fsub, s1, s1, k.center, u);
    small(asm, d, x, s1, k);
    for r in &REGIONS {
        // s2 = min(|x|, clamp) − center; H by fused Horner steps alternating between s3
        // and s1, started so that H ends in s3.
        let n = r.coefficients.len() - 1;
        let at = |asm: &mut Assembler, i: usize| asm.fload(FFmt::S, f, pool, 4 * (base + i) as i32);
        asm.vop(VBinOp::Fsgnjx, s2, x, x, u);
        if r.clamp.is_some() {
            at(asm, n + 3);
            asm.vop(VBinOp::Fmin, s2, s2, f, u);
        }
        at(asm, n + 1);
        asm.vop(VBinOp::Fsub, s2, s2, f, u);
        let (mut acc, mut other) = if (n - 1) % 2 == 0 { (s3, s1) } else { (s1, s3) };
        at(asm, n - 1);
        asm.vmv(acc, f);
        at(asm, n);
        asm.vop(VBinOp::Fmacc, acc, s2, f, u);
        for i in (0..n - 1).rev() {
            at(asm, i);
            asm.vmv(other, f);
            asm.vop(VBinOp::Fmacc, other, s2, acc, u);
            (acc, other) = (other, acc);
        }
        debug_assert_eq!(acc, s3);
        // 1 − H with x's sign, into the lanes with |x| ≥ lower.
        asm.vop(VBinOp::Frsub, s3, s3, k.one, u);
        asm.vop(VBinOp::Fsgnj, s3, s3, x, u);
        asm.vop(VBinOp::Fsgnjx, s1, x, x, u);
        at(asm, n + 2);
        asm.vop(VBinOp::Mfge, VReg::V0, s1, f, u);
        asm.vop(VBinOp::Merge, d, d, s3, Mask::V0);
        base += n + 4;
    }
}
