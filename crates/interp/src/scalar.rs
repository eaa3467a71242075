//! Scalars as 64-bit patterns, and the arithmetic on them.
//!
//! Every lane of a runtime value is a `u64` whose meaning comes from the value's element:
//! - integers hold their value *normalized* to the declared width: signed types
//!   sign-extended, unsigned types and `i1` zero-extended ([`normalize`]);
//! - floats hold their IEEE bits in the low bits (`f16`/`bf16`: 16, `f32`: 32, `f64`: 64);
//! - pointers hold the address.
//!
//! Float arithmetic is done in the type's own precision: `f32` in `f32`, `f64` in `f64`;
//! `f16`/`bf16` are computed in `f32` and rounded to nearest even, which gives the same
//! result as native half-precision `+ - * /` because `f32` holds more than twice their
//! precision.

use half::{bf16, f16};
use tilec_ir::{Elem, ScalarType};

/// `bits` truncated to the width of `s` and sign- or zero-extended to 64 bits.
pub fn normalize(bits: u64, s: ScalarType) -> u64 {
    let width = s.bits();
    if width >= 64 || s.is_float() {
        return bits;
    }
    let shift = 64 - width;
    if s.is_signed_int() {
        (((bits << shift) as i64) >> shift) as u64
    } else {
        (bits << shift) >> shift
    }
}

/// The integer value of normalized bits, by the signedness of `s`.
pub fn int_value(bits: u64, s: ScalarType) -> i128 {
    if s.is_signed_int() {
        bits as i64 as i128
    } else {
        bits as i128
    }
}

/// Float bits of type `s` as an `f64` (exact).
pub fn to_f64(bits: u64, s: ScalarType) -> f64 {
    match s {
        ScalarType::F16 => f16::from_bits(bits as u16).to_f64(),
        ScalarType::BF16 => bf16::from_bits(bits as u16).to_f64(),
        ScalarType::F32 => f32::from_bits(bits as u32) as f64,
        ScalarType::F64 => f64::from_bits(bits),
        _ => int_value(bits, s) as f64,
    }
}

/// `x` rounded (to nearest even) to float type `s`, as bits.
pub fn from_f64(x: f64, s: ScalarType) -> u64 {
    match s {
        // Through f32 rounded to odd: exact for every half, unlike `half`'s own `from_f64`,
        // which ignores the low 32 bits of `x` when rounding.
        ScalarType::F16 | ScalarType::BF16 => from_f32(tilec_ir::f64_to_f32_round_to_odd(x), s),
        ScalarType::F32 => (x as f32).to_bits() as u64,
        ScalarType::F64 => x.to_bits(),
        _ => float_to_int(x, s),
    }
}

/// A float-to-float conversion (`fpext`/`fptrunc`), rounded to nearest even. A NaN
/// converts as compiled code converts it: to or from `f64` (RISC-V's `fcvt`) it becomes the
/// canonical NaN; among `f32`, `f16` and `bf16` (integer operations) it keeps its sign, to
/// `f16` it becomes the quiet NaN `0x7e00` with that sign, to `bf16` it keeps the top
/// payload bits (quiet bit set), to `f32` a half's payload is shifted into place.
pub fn convert_float(bits: u64, from: ScalarType, to: ScalarType) -> u64 {
    let x = to_f64(bits, from);
    if !x.is_nan() {
        return from_f64(x, to);
    }
    if from == ScalarType::F64 || to == ScalarType::F64 {
        return from_f64(f64::NAN, to);
    }
    let wide = to_f32(bits, from).to_bits();
    match to {
        ScalarType::F16 => ((wide >> 16) & 0x8000 | 0x7e00) as u64,
        ScalarType::BF16 => ((wide >> 16) | 0x40) as u64,
        _ => wide as u64,
    }
}

/// Float bits of a type no wider than `f32` as an `f32` (exact).
pub fn to_f32(bits: u64, s: ScalarType) -> f32 {
    match s {
        ScalarType::F16 => f16::from_bits(bits as u16).to_f32(),
        ScalarType::BF16 => bf16::from_bits(bits as u16).to_f32(),
        _ => f32::from_bits(bits as u32),
    }
}

/// `x` rounded to float type `s` (no wider than `f32`), as bits.
pub fn from_f32(x: f32, s: ScalarType) -> u64 {
    match s {
        ScalarType::F16 => f16::from_f32(x).to_bits() as u64,
        ScalarType::BF16 => bf16::from_f32(x).to_bits() as u64,
        _ => x.to_bits() as u64,
    }
}

/// Applies `op32` (for `f16`, `bf16`, `f32`) or `op64` (for `f64`) to float lanes, keeping
/// the NaN it returns as it is (for the sign operations `-x` and `abs`).
pub fn float_unary(bits: u64, s: ScalarType, op32: impl Fn(f32) -> f32, op64: impl Fn(f64) -> f64) -> u64 {
    if s == ScalarType::F64 {
        op64(f64::from_bits(bits)).to_bits()
    } else {
        from_f32(op32(to_f32(bits, s)), s)
    }
}

/// [`float_unary`] for arithmetic (`sqrt`, math functions): a NaN result is the canonical
/// NaN, see [`canonical32`].
pub fn float_arith_unary(bits: u64, s: ScalarType, op32: impl Fn(f32) -> f32, op64: impl Fn(f64) -> f64) -> u64 {
    float_unary(bits, s, |x| canonical32(op32(x)), |x| canonical64(op64(x)))
}

/// A binary arithmetic op on float lanes; a NaN result is the canonical NaN.
pub fn float_binary(
    a: u64,
    b: u64,
    s: ScalarType,
    op32: impl Fn(f32, f32) -> f32,
    op64: impl Fn(f64, f64) -> f64,
) -> u64 {
    if s == ScalarType::F64 {
        canonical64(op64(f64::from_bits(a), f64::from_bits(b))).to_bits()
    } else {
        from_f32(canonical32(op32(to_f32(a, s), to_f32(b, s))), s)
    }
}

/// The NaN RISC-V's arithmetic produces (its canonical NaN: positive, quiet, no payload)
/// in place of any NaN `x`; the host's (x86 makes a negative one from `sqrt(-1)`) is not
/// what compiled kernels compute. Decided on the bits: Rust (LLVM) treats NaN payloads as
/// unspecified and may drop a float-level replacement of one NaN by another.
pub fn canonical32(x: f32) -> f32 {
    let bits = x.to_bits();
    f32::from_bits(if bits & 0x7fff_ffff > 0x7f80_0000 { 0x7fc0_0000 } else { bits })
}

pub fn canonical64(x: f64) -> f64 {
    let bits = x.to_bits();
    f64::from_bits(if bits & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000 { 0x7ff8_0000_0000_0000 } else { bits })
}

/// `maxnum` (`max == true`) or `minnum`: a NaN operand loses (two NaNs give NaN), and
/// `-0.0` orders below `+0.0` (as RISC-V's `fmax`/`fmin` do).
pub fn max_num<F: num_like::Float>(max: bool, x: F, y: F) -> F {
    if x.is_nan() {
        return y;
    }
    if y.is_nan() {
        return x;
    }
    if x == y {
        // Equal values differ at most in the sign of zero.
        return if max == x.is_sign_negative() { y } else { x };
    }
    if (x > y) == max {
        x
    } else {
        y
    }
}

/// The float operations [`max_num`] needs, for `f32` and `f64`.
pub mod num_like {
    pub trait Float: Copy + PartialOrd {
        fn is_nan(self) -> bool;
        fn is_sign_negative(self) -> bool;
    }
    impl Float for f32 {
        fn is_nan(self) -> bool {
            f32::is_nan(self)
        }
        fn is_sign_negative(self) -> bool {
            f32::is_sign_negative(self)
        }
    }
    impl Float for f64 {
        fn is_nan(self) -> bool {
            f64::is_nan(self)
        }
        fn is_sign_negative(self) -> bool {
            f64::is_sign_negative(self)
        }
    }
}

/// Float to integer: truncation toward zero, saturating at the type's range, NaN → 0
/// (`i1`: `x != 0`).
pub fn float_to_int(x: f64, s: ScalarType) -> u64 {
    if s == ScalarType::I1 {
        return (x != 0.0) as u64;
    }
    let bits = s.bits();
    let v: i128 = if x.is_nan() {
        0
    } else if s.is_signed_int() {
        let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
        (x.trunc().clamp(lo as f64, hi as f64) as i128).clamp(lo, hi)
    } else {
        let hi = (1i128 << bits) - 1;
        (x.trunc().clamp(0.0, hi as f64) as i128).clamp(0, hi)
    };
    normalize(v as u64, s)
}

/// Integer (normalized, of type `from`) to float type `to`, rounded to nearest even.
pub fn int_to_float(bits: u64, from: ScalarType, to: ScalarType) -> u64 {
    let v = int_value(bits, from);
    match to {
        ScalarType::F32 => {
            let x = if from.is_signed_int() { v as i64 as f32 } else { v as u64 as f32 };
            x.to_bits() as u64
        }
        ScalarType::F64 => {
            let x = if from.is_signed_int() { v as i64 as f64 } else { v as u64 as f64 };
            x.to_bits()
        }
        // Every integer that f16/bf16 can tell apart is exact in f64 after at most one
        // rounding far below their precision.
        _ => from_f64(v as f64, to),
    }
}

/// Converts a lane between two element types by value (used for constants and arguments).
pub fn encode_int(v: i128, elem: Elem) -> u64 {
    match elem {
        Elem::Scalar(s) if s.is_float() => from_f64(v as f64, s),
        Elem::Scalar(s) => normalize(v as u64, s),
        Elem::Ptr(_) => v as u64,
    }
}

pub fn encode_float(x: f64, elem: Elem) -> u64 {
    match elem {
        Elem::Scalar(s) => from_f64(x, s),
        Elem::Ptr(_) => x as u64,
    }
}

/// Whether a lane is a true `i1` (or a nonzero integer).
pub fn truthy(bits: u64) -> bool {
    bits != 0
}

/// Error function in `f64`: Taylor series near 0, continued fraction for `erfc` beyond.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let value = if a < 2.5 {
        // erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
        let x2 = a * a;
        let mut term = a;
        let mut sum = a;
        let mut n = 0.0;
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -x2 / n;
            sum += term / (2.0 * n + 1.0);
        }
        sum * std::f64::consts::FRAC_2_SQRT_PI
    } else if a < 6.0 {
        // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
        let mut tail = a;
        for k in (1..=80).rev() {
            tail = a + (k as f64 / 2.0) / tail;
        }
        1.0 - (-a * a).exp() / (tail * std::f64::consts::PI.sqrt())
    } else {
        1.0
    };
    value.copysign(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_wraps_at_the_width() {
        assert_eq!(normalize(0x1_0000_0005, ScalarType::I32), 5);
        assert_eq!(normalize(0xFFFF_FFFF, ScalarType::I32) as i64, -1);
        assert_eq!(normalize(u64::MAX, ScalarType::U8), 255);
        assert_eq!(normalize(3, ScalarType::I1), 1);
    }

    #[test]
    fn float_to_int_truncates_and_saturates() {
        assert_eq!(float_to_int(-2.7, ScalarType::I32) as i64, -2);
        assert_eq!(float_to_int(1e10, ScalarType::I32) as i64, i32::MAX as i64);
        assert_eq!(float_to_int(f64::NAN, ScalarType::I8), 0);
        assert_eq!(float_to_int(-3.0, ScalarType::U8), 0);
        assert_eq!(float_to_int(300.0, ScalarType::U8), 255);
    }

    #[test]
    fn half_precision_rounds_to_nearest_even() {
        // 1 + 2^-11 lies halfway between 1 and the next f16; ties go to the even 1.0.
        let halfway = 1.0 + 2f64.powi(-11);
        assert_eq!(from_f64(halfway, ScalarType::F16), f16::from_f32(1.0).to_bits() as u64);
        let sum = float_binary(
            from_f64(1.0, ScalarType::BF16),
            from_f64(2f64.powi(-9), ScalarType::BF16),
            ScalarType::BF16,
            |a, b| a + b,
            |a, b| a + b,
        );
        assert_eq!(to_f64(sum, ScalarType::BF16), 1.0);
    }

    #[test]
    fn half_rounding_sees_every_bit_of_the_source() {
        // Just above the bf16 tie between 0x4d2a and 0x4d2b: rounds up.
        let above_tie = f32::from_bits(0x4d2a_8006) as f64;
        assert_eq!(from_f64(above_tie, ScalarType::BF16), 0x4d2b);
        // Just above the fp16 tie between 1 and 1 + 2^-10, by 2^-40 (only in f64): rounds up.
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(from_f64(x, ScalarType::F16), 0x3c01);
        assert_eq!(from_f64(-x, ScalarType::F16), 0xbc01);
        // Exact ties still go to even; tiny values round to zero or the smallest subnormal.
        assert_eq!(from_f64(1.0 + 2f64.powi(-11), ScalarType::F16), 0x3c00);
        assert_eq!(from_f64(2f64.powi(-25) * 1.0001, ScalarType::F16), 0x0001);
        assert_eq!(from_f64(1e-300, ScalarType::F16), 0x0000);
        assert_eq!(from_f64(-1e-300, ScalarType::BF16), 0x8000);
        assert_eq!(from_f64(1e300, ScalarType::F16), 0x7c00);
    }

    #[test]
    fn max_num_orders_signed_zeros_and_drops_nans() {
        let bits = |x: f32| x.to_bits();
        assert_eq!(bits(max_num(true, -0.0f32, 0.0)), bits(0.0));
        assert_eq!(bits(max_num(true, 0.0f32, -0.0)), bits(0.0));
        assert_eq!(bits(max_num(false, 0.0f32, -0.0)), bits(-0.0));
        assert_eq!(bits(max_num(false, -0.0f32, 0.0)), bits(-0.0));
        assert_eq!(max_num(true, f32::NAN, 1.0), 1.0);
        assert_eq!(max_num(false, 2.0f64, f64::NAN), 2.0);
        assert_eq!(max_num(true, 2.0f64, 3.0), 3.0);
        assert_eq!(max_num(false, 2.0f64, 3.0), 2.0);
    }

    #[test]
    fn arithmetic_nans_are_canonical() {
        let minus_one = from_f64(-1.0, ScalarType::F32);
        let root = float_arith_unary(minus_one, ScalarType::F32, f32::sqrt, f64::sqrt);
        assert_eq!(root, 0x7fc0_0000);
        let zero = from_f64(0.0, ScalarType::F64);
        assert_eq!(float_binary(zero, zero, ScalarType::F64, |x, y| x / y, |x, y| x / y), 0x7ff8_0000_0000_0000);
        let zero = from_f64(0.0, ScalarType::F16);
        assert_eq!(float_binary(zero, zero, ScalarType::F16, |x, y| x / y, |x, y| x / y), 0x7e00);
        // Sign operations keep the NaN's bits.
        let nan = 0x7fc0_0001;
        assert_eq!(float_unary(nan, ScalarType::F32, |x| -x, |x| -x), 0xffc0_0001);
    }

    #[test]
    fn nans_convert_as_compiled_code_converts_them() {
        use ScalarType::*;
        let negative_payload = 0xffc0_0001u64;
        assert_eq!(convert_float(negative_payload, F32, F64), 0x7ff8_0000_0000_0000);
        assert_eq!(convert_float(0xfff8_0000_0000_0001, F64, F32), 0x7fc0_0000);
        assert_eq!(convert_float(negative_payload, F32, F16), 0xfe00);
        assert_eq!(convert_float(negative_payload, F32, BF16), 0xffc0);
        assert_eq!(convert_float(0xfe01, F16, F32), 0xffc0_2000);
        assert_eq!(convert_float(0xfe01, F16, F64), 0x7ff8_0000_0000_0000);
        assert_eq!(convert_float(from_f64(1.5, F32), F32, F16), from_f64(1.5, F16));
    }

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.5204998778130465),
            (1.0, 0.8427007929497149),
            (2.0, 0.9953222650189527),
            (3.0, 0.9999779095030014),
            (-1.5, -0.9661051464753108),
        ] {
            assert!((erf(x) - want).abs() < 1e-14, "erf({x}) = {} != {want}", erf(x));
        }
    }
}
