//! Math functions of the interpreter.
//!
//! `sqrt`, `rsqrt` and the roundings are computed in the lane's own type (`rsqrt` is
//! `1 / sqrt(x)`, two correctly rounded steps, as the compiled code does). Every other
//! function is evaluated in `f64` with the `libm` crate (a port of musl's, the same on every
//! host) and rounded once to the lane's type, so an `f32` result is within about half an
//! ULP of the exact value. `sinpi`/`cospi`, which `libm` lacks, are [`sinpi`] and [`cospi`]. A NaN result is the
//! canonical NaN, as RISC-V's float arithmetic gives.

use crate::scalar::{canonical64, float_arith_unary, from_f64, to_f64};
use tilec_ir::{MathFn, ScalarType};

/// One lane of `func` on float type `s`.
pub fn math(func: MathFn, a: u64, s: ScalarType) -> u64 {
    use MathFn::*;
    match func {
        Sqrt => float_arith_unary(a, s, f32::sqrt, f64::sqrt),
        Rsqrt => float_arith_unary(a, s, |x| 1.0 / x.sqrt(), |x| 1.0 / x.sqrt()),
        Floor => float_arith_unary(a, s, f32::floor, f64::floor),
        Ceil => float_arith_unary(a, s, f32::ceil, f64::ceil),
        Trunc => float_arith_unary(a, s, f32::trunc, f64::trunc),
        Round => float_arith_unary(a, s, f32::round, f64::round),
        Rint => float_arith_unary(a, s, f32::round_ties_even, f64::round_ties_even),
        _ => from_f64(canonical64(eval(func, to_f64(a, s))), s),
    }
}

/// `func(x)` in `f64`.
fn eval(func: MathFn, x: f64) -> f64 {
    use MathFn::*;
    match func {
        Exp => libm::exp(x),
        Exp2 => libm::exp2(x),
        Exp10 => exp10(x),
        Expm1 => libm::expm1(x),
        Log => libm::log(x),
        Log2 => libm::log2(x),
        Log10 => libm::log10(x),
        Log1p => libm::log1p(x),
        Sin => libm::sin(x),
        Cos => libm::cos(x),
        Tan => libm::tan(x),
        SinPi => sinpi(x),
        CosPi => cospi(x),
        Sinh => libm::sinh(x),
        Cosh => libm::cosh(x),
        Tanh => libm::tanh(x),
        Asin => libm::asin(x),
        Acos => libm::acos(x),
        Atan => libm::atan(x),
        Asinh => libm::asinh(x),
        Acosh => libm::acosh(x),
        Atanh => libm::atanh(x),
        Erf => libm::erf(x),
        Erfc => libm::erfc(x),
        Lgamma => libm::lgamma(x),
        Tgamma => libm::tgamma(x),
        Cbrt => libm::cbrt(x),
        J0 => libm::j0(x),
        J1 => libm::j1(x),
        Y0 => libm::y0(x),
        Y1 => libm::y1(x),
        Sqrt => x.sqrt(),
        Rsqrt => 1.0 / x.sqrt(),
        Floor => x.floor(),
        Ceil => x.ceil(),
        Trunc => x.trunc(),
        Round => x.round(),
        Rint => x.round_ties_even(),
    }
}

/// 10^x as e^(x·ln 10) with x·ln 10 carried in two doubles (`libm`'s own `exp10` is off
/// by up to 4 ULP).
pub fn exp10(x: f64) -> f64 {
    const LN10_HI: f64 = std::f64::consts::LN_10;
    const LN10_LO: f64 = -2.170_756_223_382_249_4e-16; // ln 10 − LN10_HI, rounded
    let hi = x * LN10_HI;
    if !hi.is_finite() {
        return libm::exp(hi);
    }
    let lo = x.mul_add(LN10_HI, -hi) + x * LN10_LO;
    let e = libm::exp(hi);
    e + e * lo
}

/// One lane of `hypot(x, y)` on float type `s`.
pub fn hypot(a: u64, b: u64, s: ScalarType) -> u64 {
    from_f64(canonical64(libm::hypot(to_f64(a, s), to_f64(b, s))), s)
}

/// `x` split as `n/2 + r` with `n` an integer and |r| ≤ 1/4 (exact); returns `(n mod 4, r)`.
fn half_turns(x: f64) -> (u8, f64) {
    if x.abs() >= 2f64.powi(52) {
        // An integer (even from 2^53 on): n = 2x is 0 or 2 mod 4.
        let odd = x.abs() < 2f64.powi(53) && (x.abs() as u64) & 1 == 1;
        return (if odd { 2 } else { 0 }, 0.0);
    }
    let n = (2.0 * x).round_ties_even();
    let r = x - 0.5 * n;
    // |n| < 2^1024, so n mod 4 is exact in f64.
    (n.rem_euclid(4.0) as u8, r)
}

/// sin(πr) and cos(πr) for |r| ≤ 1/4, with πr carried in two doubles.
fn sin_cos_pi_small(r: f64) -> (f64, f64) {
    const PI_LO: f64 = 1.224_646_799_147_353_2e-16; // π − PI, rounded
    let hi = std::f64::consts::PI * r;
    let lo = std::f64::consts::PI.mul_add(r, -hi) + PI_LO * r;
    let (s, c) = (libm::sin(hi), libm::cos(hi));
    (s + lo * c, c - lo * s)
}

/// sin(πx), with sinpi(±n) = ±0 for integers n, as IEEE 754 recommends.
pub fn sinpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let (q, r) = half_turns(x);
    let (s, c) = sin_cos_pi_small(r);
    let v = match q {
        0 => s,
        1 => c,
        2 => -s,
        _ => -c,
    };
    if v == 0.0 {
        0.0f64.copysign(x)
    } else {
        v
    }
}

/// cos(πx), with cospi(n + ½) = +0 for integers n, as IEEE 754 recommends.
pub fn cospi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let (q, r) = half_turns(x);
    let (s, c) = sin_cos_pi_small(r);
    let v = match q {
        0 => c,
        1 => -s,
        2 => -c,
        _ => s,
    };
    if v == 0.0 {
        0.0
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sinpi_and_cospi_are_exact_at_multiples_of_a_half() {
        assert_eq!(sinpi(0.5), 1.0);
        assert_eq!(sinpi(-0.5), -1.0);
        assert_eq!(cospi(1.0), -1.0);
        assert_eq!(sinpi(3.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(sinpi(-2.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(cospi(2.5).to_bits(), 0.0f64.to_bits());
        assert_eq!(cospi(-1.5).to_bits(), 0.0f64.to_bits());
        assert_eq!(sinpi(1e300), 0.0);
        assert_eq!(cospi(f64::MAX), 1.0);
        assert_eq!(cospi(2f64.powi(52) + 1.0), -1.0);
        assert!(sinpi(f64::INFINITY).is_nan() && cospi(f64::NAN).is_nan());
    }

    #[test]
    fn sinpi_and_cospi_match_sin_and_cos_of_pi_x() {
        for x in [0.1, 0.25, -0.3, 1.7, 12.34, -1000.125] {
            let (s, c) = ((std::f64::consts::PI * x).sin(), (std::f64::consts::PI * x).cos());
            assert!((sinpi(x) - s).abs() < 1e-12, "sinpi({x}) = {} vs {s}", sinpi(x));
            assert!((cospi(x) - c).abs() < 1e-12, "cospi({x}) = {} vs {c}", cospi(x));
        }
        // Near an integer the reduction keeps full relative accuracy: sin(π·2^-40) ≈ π·2^-40.
        let tiny = 2f64.powi(-40);
        assert!((sinpi(3.0 + tiny) / (-std::f64::consts::PI * tiny) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn f32_lanes_round_once_from_f64() {
        let x = 0.3f32;
        let got = f32::from_bits(math(MathFn::Exp10, x.to_bits() as u64, ScalarType::F32) as u32);
        assert_eq!(got, libm::exp10(0.3f32 as f64) as f32);
        let lgamma = f32::from_bits(math(MathFn::Lgamma, 0.5f32.to_bits() as u64, ScalarType::F32) as u32);
        assert_eq!(lgamma, (std::f64::consts::PI.sqrt().ln()) as f32);
    }
}
