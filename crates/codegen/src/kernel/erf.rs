//! Inline fp32 `erf` on the scalar path (glibc's `erff` runs about 60 instructions).
//!
//! Evaluated in f64 and rounded once: `|x| < 1` (the usual inputs, e.g. GELU's) is
//! `x · P(x² − 1/2)`, `1 ≤ |x| < 2` and `2 ≤ |x| < 4` are polynomials in `|x|` about the
//! interval's middle with `x`'s sign, `|x| ≥ 4` is ±1 (erfc(4) ≈ 1.5·10⁻⁸ is below half
//! a unit below 1), and NaN stays NaN. The polynomials are Chebyshev interpolants of erf
//! (of erf(√t)/√t for the first) of degrees 8, 10 and 15, their errors 8.4·10⁻¹³
//! (relative), 1.3·10⁻¹⁰ and 8.9·10⁻¹³ (absolute), far below half an fp32 unit, so the
//! result is erf rounded to fp32 but where erf lies within that error of a rounding
//! boundary: 1 ulp at most (checked against glibc's fp64 `erf` rounded, on every third
//! fp32 of `[0, 4.5]` and its negation, and by `tests/math_ulp.rs`). `|x| ≥ 1` runs in a
//! cold block.

use super::*;

/// `erf(√t)/√t = P(t − R1_MIDDLE)` for `t = x² < 1`.
const R1_MIDDLE: f64 = 0.5;
const R1: [f64; 9] = [
    0.965468738669868,
    -0.28107217803107426,
    0.0794099867545602,
    -0.0182838852551536,
    0.0034802745675758867,
    -0.0005611783937903662,
    7.829548849258572e-05,
    -9.673582199967414e-06,
    1.0589669222503694e-06,
];
/// `erf(a) = P(a − R2_MIDDLE)` for `1 ≤ a < 2`.
const R2_MIDDLE: f64 = 1.5;
const R2: [f64; 11] = [
    0.9661051464753109,
    0.11893028668536736,
    -0.17839543311735062,
    0.13875220734669794,
    -0.04459891604215988,
    -0.014870850040890364,
    0.01932746977659731,
    -0.004701123272876761,
    -0.0023746895493042593,
    0.0015403397800665434,
    -4.358018552672795e-05,
];
/// `erf(a) = P(a − R3_MIDDLE)` for `2 ≤ a < 4`.
const R3_MIDDLE: f64 = 3.0;
const R3: [f64; 16] = [
    0.9999779095026882,
    0.00013925305241502262,
    -0.00041775911586720144,
    0.0007891005682583718,
    -0.0010443987152954914,
    0.001016548527639216,
    -0.0007380347841008383,
    0.0003905616596835415,
    -0.0001348007432691034,
    1.3946198020420297e-05,
    1.5661619888973632e-05,
    -1.087760458062803e-05,
    2.9881300775969066e-06,
    2.2278652522800257e-07,
    -4.410937037846452e-07,
    1.0459439181431662e-07,
];

impl Translator<'_, '_> {
    /// `p(u)` by Horner's rule in fused multiply-adds, `coefficients` from degree 0 up.
    fn polynomial_f64(&mut self, coefficients: &[f64], u: Value) -> Value {
        let (&last, rest) = coefficients.split_last().expect("a polynomial has a coefficient");
        let mut p = self.held.get(&mut self.b, types::F64, last.to_bits() as i64);
        for &c in rest.iter().rev() {
            let c = self.held.get(&mut self.b, types::F64, c.to_bits() as i64);
            p = self.b.ins().fma(p, u, c);
        }
        p
    }

    /// `erf(x)` of an fp32 `x`.
    pub(super) fn erf_f32(&mut self, x: Value) -> Value {
        let wide = self.b.ins().fpromote(types::F64, x);
        let square = self.b.ins().fmul(wide, wide);
        let one = self.held.get(&mut self.b, types::F64, 1f64.to_bits() as i64);
        let small = self.b.ins().fcmp(FloatCC::LessThan, square, one);
        let usual = self.b.create_block();
        let cold = self.b.create_block();
        self.b.set_cold_block(cold);
        let merge = self.b.create_block();
        self.b.append_block_param(merge, types::F64);
        self.b.ins().brif(small, usual, &[], cold, &[]);
        self.b.switch_to_block(usual);
        let middle = self.held.get(&mut self.b, types::F64, R1_MIDDLE.to_bits() as i64);
        let u = self.b.ins().fsub(square, middle);
        let p = self.polynomial_f64(&R1, u);
        let y = self.b.ins().fmul(wide, p);
        self.b.ins().jump(merge, &[y.into()]);
        // |x| ≥ 1 or NaN: the range of |x|, then its polynomial with x's sign, or ±1, or
        // the NaN.
        self.b.switch_to_block(cold);
        let magnitude = self.b.ins().fabs(wide);
        for (limit, middle, coefficients) in [(2.0, R2_MIDDLE, &R2[..]), (4.0, R3_MIDDLE, &R3[..])] {
            let limit = self.b.ins().f64const(limit);
            let inside = self.b.ins().fcmp(FloatCC::LessThan, magnitude, limit);
            let range = self.b.create_block();
            self.b.set_cold_block(range);
            let next = self.b.create_block();
            self.b.set_cold_block(next);
            self.b.ins().brif(inside, range, &[], next, &[]);
            self.b.switch_to_block(range);
            let middle = self.b.ins().f64const(middle);
            let u = self.b.ins().fsub(magnitude, middle);
            let p = self.polynomial_f64(coefficients, u);
            let y = self.b.ins().fcopysign(p, wide);
            self.b.ins().jump(merge, &[y.into()]);
            self.b.switch_to_block(next);
        }
        let unit = self.b.ins().f64const(1.0);
        let saturated = self.b.ins().fcopysign(unit, wide);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, wide, wide);
        let y = self.b.ins().select(nan, wide, saturated);
        self.b.ins().jump(merge, &[y.into()]);
        self.b.switch_to_block(merge);
        let y = self.b.block_params(merge)[0];
        self.b.ins().fdemote(types::F32, y)
    }
}
