//! The fp8 formats of `triton.language` and the conversions Triton compiles for them.
//!
//! An fp8 value is a sign bit, `8 - 1 - mantissa_bits` exponent bits and `mantissa_bits`
//! mantissa bits, with its own bias and its own use of the top patterns ([`Fp8Special`]).
//! Converting to a wider float is exact. Converting from one rounds as Triton's back ends do:
//! - `fp8e4nv`, `fp8e5`: to nearest even, saturating at the largest finite value (PTX
//!   `cvt.rn.satfinite`: infinities too); NaN becomes the NaN pattern with its sign;
//! - `fp8e4b8`, `fp8e5b16` (the FNUZ formats): to nearest even, saturating; NaN becomes
//!   `0x80`, and a result of zero is `+0` (they have no `-0.0`);
//! - `fp8e4b15`: Triton's own sequence (`convert_float16_to_fp8e4b15`): the magnitude is
//!   clamped to 1.75 (NaN and infinities too) and rounded half away from zero, the sign kept.
//!
//! [`Fp8Format::decode`] and [`Fp8Format::encode`] are the host-side definitions, used for
//! host data and compile-time constants and as the reference the front end's composed
//! conversions are tested against.

use crate::ScalarType;

/// How a format uses its top patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fp8Special {
    /// IEEE style: the top exponent holds infinities (mantissa 0) and NaNs (`fp8e5`).
    Ieee,
    /// No infinities; the all-ones magnitude `0x7f` is NaN (`fp8e4nv`).
    MaxIsNan,
    /// No infinities and no `-0.0`: `0x80` is the only NaN (`fp8e4b8`, `fp8e5b16`).
    NegativeZeroIsNan,
    /// Every pattern is a finite number (`fp8e4b15`).
    Finite,
}

/// How a wider float is rounded to the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fp8Rounding {
    NearestEven,
    /// Ties go to the larger magnitude.
    HalfAway,
}

/// The layout and conversion rules of one fp8 format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fp8Format {
    pub mantissa_bits: u32,
    pub bias: i32,
    pub special: Fp8Special,
    pub rounding: Fp8Rounding,
    /// The largest magnitude pattern a conversion produces (saturation).
    pub max_code: u8,
    /// The pattern a NaN converts to, without its sign; `None` for the FNUZ formats, whose
    /// NaN is `0x80`.
    pub nan_code: Option<u8>,
}

impl Fp8Format {
    pub fn of(s: ScalarType) -> Option<Fp8Format> {
        use Fp8Rounding::*;
        use Fp8Special::*;
        let f = |mantissa_bits, bias, special, rounding, max_code, nan_code| Fp8Format {
            mantissa_bits,
            bias,
            special,
            rounding,
            max_code,
            nan_code,
        };
        Some(match s {
            ScalarType::F8E4NV => f(3, 7, MaxIsNan, NearestEven, 0x7e, Some(0x7f)),
            ScalarType::F8E5 => f(2, 15, Ieee, NearestEven, 0x7b, Some(0x7f)),
            ScalarType::F8E4B15 => f(3, 15, Finite, HalfAway, 0x7e, Some(0x7e)),
            ScalarType::F8E4B8 => f(3, 8, NegativeZeroIsNan, NearestEven, 0x7f, None),
            ScalarType::F8E5B16 => f(2, 16, NegativeZeroIsNan, NearestEven, 0x7f, None),
            _ => return None,
        })
    }

    /// The value of a pattern (exact in `f32`).
    pub fn decode(self, bits: u8) -> f32 {
        let negative = bits & 0x80 != 0;
        let magnitude = bits & 0x7f;
        let nan = match self.special {
            Fp8Special::Ieee => magnitude > self.infinity_magnitude(),
            Fp8Special::MaxIsNan => magnitude == 0x7f,
            Fp8Special::NegativeZeroIsNan => bits == 0x80,
            Fp8Special::Finite => false,
        };
        if nan {
            return f32::NAN;
        }
        let value = if self.special == Fp8Special::Ieee && magnitude == self.infinity_magnitude() {
            f32::INFINITY
        } else {
            self.magnitude_value(magnitude) as f32
        };
        if negative {
            -value
        } else {
            value
        }
    }

    /// `x` converted to the format by the rules of the module documentation.
    pub fn encode(self, x: f64) -> u8 {
        let sign = if x.is_sign_negative() { 0x80 } else { 0 };
        if x.is_nan() {
            return match self.nan_code {
                Some(code) => code | sign,
                None => 0x80,
            };
        }
        let a = x.abs();
        let max = self.magnitude_value(self.max_code);
        let code = if a >= max {
            self.max_code
        } else {
            // The largest code not above `a`, then the rounding between it and the next.
            let below = (0..=self.max_code).rev().find(|&c| self.magnitude_value(c) <= a).unwrap_or(0);
            let (lo, hi) = (self.magnitude_value(below), self.magnitude_value(below + 1));
            let up = match (a - lo).partial_cmp(&(hi - a)) {
                Some(std::cmp::Ordering::Greater) => true,
                Some(std::cmp::Ordering::Equal) => match self.rounding {
                    Fp8Rounding::NearestEven => below & 1 == 1,
                    Fp8Rounding::HalfAway => true,
                },
                _ => false,
            };
            below + u8::from(up)
        };
        if code == 0 && self.special == Fp8Special::NegativeZeroIsNan {
            0
        } else {
            code | sign
        }
    }

    /// The magnitude pattern of infinity for [`Fp8Special::Ieee`] (all-ones exponent).
    fn infinity_magnitude(self) -> u8 {
        0x7f & !((1u8 << self.mantissa_bits) - 1)
    }

    /// The value of a magnitude pattern read as a finite number (`0..=0x7f`).
    pub fn magnitude_value(self, magnitude: u8) -> f64 {
        let m = self.mantissa_bits;
        let exponent = i32::from(magnitude >> m);
        let mantissa = f64::from(magnitude & ((1 << m) - 1));
        let scale = |e: i32| 2f64.powi(e);
        if exponent == 0 {
            mantissa * scale(1 - self.bias - m as i32)
        } else {
            (1.0 + mantissa / f64::from(1u32 << m)) * scale(exponent - self.bias)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        let e4nv = Fp8Format::of(ScalarType::F8E4NV).unwrap();
        assert_eq!(e4nv.decode(0x7e), 448.0);
        assert!(e4nv.decode(0xff).is_nan());
        assert_eq!(e4nv.decode(0x01), 2f32.powi(-9));
        assert_eq!(e4nv.encode(1e9), 0x7e);
        assert_eq!(e4nv.encode(f64::NEG_INFINITY), 0xfe);
        assert_eq!(e4nv.encode(-0.0), 0x80);
        // 1 + 1/16 is the tie between 1 (0x38, even) and 1.125.
        assert_eq!(e4nv.encode(1.0625), 0x38);
        assert_eq!(e4nv.encode(1.1875), 0x3a);
        let e5 = Fp8Format::of(ScalarType::F8E5).unwrap();
        assert_eq!(e5.decode(0x7b), 57344.0);
        assert_eq!(e5.decode(0xfc), f32::NEG_INFINITY);
        assert!(e5.decode(0x7d).is_nan());
        assert_eq!(e5.encode(f64::INFINITY), 0x7b);
        let e4b15 = Fp8Format::of(ScalarType::F8E4B15).unwrap();
        assert_eq!(e4b15.decode(0x7f), 1.875);
        assert_eq!(e4b15.encode(1.8), 0x7e);
        assert_eq!(e4b15.encode(f64::NAN), 0x7e);
        // Half away from zero: 1 + 1/16 goes up.
        assert_eq!(e4b15.encode(-(1.0 + 1.0 / 16.0)), 0xf9);
        let e4b8 = Fp8Format::of(ScalarType::F8E4B8).unwrap();
        assert!(e4b8.decode(0x80).is_nan());
        assert_eq!(e4b8.decode(0x7f), 240.0);
        assert_eq!(e4b8.encode(-0.0), 0x00);
        assert_eq!(e4b8.encode(-1e-9), 0x00);
        assert_eq!(e4b8.encode(f64::NAN), 0x80);
        let e5b16 = Fp8Format::of(ScalarType::F8E5B16).unwrap();
        assert_eq!(e5b16.decode(0x7f), 57344.0);
        assert_eq!(e5b16.decode(0x01), 2f32.powi(-17));
    }

    #[test]
    fn encode_inverts_decode() {
        for s in ScalarType::ALL.into_iter().filter(|s| s.is_fp8()) {
            let f = s.fp8_format().unwrap();
            for bits in 0..=255u8 {
                let x = f.decode(bits);
                if x.is_finite() && bits & 0x7f <= f.max_code {
                    assert_eq!(f.encode(x as f64), bits, "{} {bits:#x}", s.name());
                }
            }
        }
    }
}
