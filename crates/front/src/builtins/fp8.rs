//! Conversions between the fp8 formats and the other floats, composed from integer and fp32
//! ops, so no later stage knows the formats (they move fp8 values as 8-bit patterns).
//! `tilec_ir::fp8` states the rules; its `Fp8Format::{decode, encode}` are the reference the
//! compositions are tested against (`tests/fp8.rs`).

use super::compose::Ew;
use tilec_ir::fp8::{Fp8Format, Fp8Rounding, Fp8Special};
use tilec_ir::{BinaryOp, CmpPred, ScalarType, Value};

use BinaryOp::*;
use ScalarType::{F32, I32, U32, U8};

impl Ew<'_, '_> {
    /// An fp8 value as fp32 (exact): the magnitude bits placed in an fp32's exponent and
    /// mantissa fields, scaled by 2^(127 − bias) (exact for normal and subnormal values
    /// alike), then the sign and the format's infinities and NaNs.
    pub fn fp8_to_f32(&mut self, x: Value, f: Fp8Format) -> Value {
        let byte = self.reinterpret(x, U8);
        let wide = self.convert(byte, U32);
        let magnitude = self.bin_k(And, wide, 0x7f);
        let placed = self.bin_k(Shl, magnitude, u64::from(23 - f.mantissa_bits));
        let unscaled = self.reinterpret(placed, F32);
        let scaled = self.bin_f(Mul, unscaled, 2f64.powi(127 - f.bias));
        let scaled_bits = self.reinterpret(scaled, U32);
        let sign = self.bin_k(And, wide, 0x80);
        let sign = self.bin_k(Shl, sign, 24);
        let signed_bits = self.bin(Or, scaled_bits, sign);
        let value = self.reinterpret(signed_bits, F32);
        let nan = self.float(F32, f64::NAN);
        match f.special {
            Fp8Special::Ieee => {
                let infinity_magnitude = 0x7f & !((1u64 << f.mantissa_bits) - 1);
                let infinity_bits = self.bin_k(Or, sign, 0x7f80_0000);
                let infinity = self.reinterpret(infinity_bits, F32);
                let is_infinity = self.cmp_k(CmpPred::Eq, magnitude, infinity_magnitude);
                let value = self.select(is_infinity, infinity, value);
                let is_nan = self.cmp_k(CmpPred::Gt, magnitude, infinity_magnitude);
                self.select(is_nan, nan, value)
            }
            Fp8Special::MaxIsNan => {
                let is_nan = self.cmp_k(CmpPred::Eq, magnitude, 0x7f);
                self.select(is_nan, nan, value)
            }
            Fp8Special::NegativeZeroIsNan => {
                let is_nan = self.cmp_k(CmpPred::Eq, wide, 0x80);
                self.select(is_nan, nan, value)
            }
            Fp8Special::Finite => value,
        }
    }

    /// An fp32 value converted to fp8 format `to` (see `tilec_ir::fp8` for the rounding,
    /// saturation and NaN rules). Results in the format's normal range round on the fp32
    /// bits rebiased to the format; subnormal results round `|x| · 2^(bias + m − 1)` to an
    /// integer (its fraction is exact in fp32).
    pub fn f32_to_fp8(&mut self, x: Value, to: ScalarType) -> Value {
        let f = to.fp8_format().expect("an fp8 destination");
        let m = f.mantissa_bits;
        let bits = self.reinterpret(x, U32);
        let sign = self.bin_k(Shr, bits, 24);
        let sign = self.bin_k(And, sign, 0x80);
        let magnitude = self.bin_k(And, bits, 0x7fff_ffff);
        let is_nan = self.cmp_k(CmpPred::Gt, magnitude, 0x7f80_0000);

        // Normal results: the fp32 bits rebiased, rounded at the format's mantissa width.
        let shift = u64::from(23 - m);
        let rebiased = self.bin_k(Sub, magnitude, ((127 - f.bias) as u64) << 23);
        let half = 1u64 << (shift - 1);
        let rounded = match f.rounding {
            Fp8Rounding::NearestEven => {
                let kept = self.bin_k(Shr, rebiased, shift);
                let odd = self.bin_k(And, kept, 1);
                let biased = self.bin_k(Add, rebiased, half - 1);
                self.bin(Add, biased, odd)
            }
            Fp8Rounding::HalfAway => self.bin_k(Add, rebiased, half),
        };
        let normal_code = self.bin_k(Shr, rounded, shift);

        // Subnormal results: |x| in units of the smallest subnormal, rounded to an integer.
        let absolute = self.reinterpret(magnitude, F32);
        let units = self.bin_f(Mul, absolute, 2f64.powi(f.bias + m as i32 - 1));
        let whole = self.convert(units, I32);
        let whole_float = self.convert(whole, F32);
        let fraction = self.bin(Sub, units, whole_float);
        let up = match f.rounding {
            Fp8Rounding::NearestEven => {
                let above = self.cmp_f(CmpPred::Gt, fraction, 0.5);
                let tie = self.cmp_f(CmpPred::Eq, fraction, 0.5);
                let whole_bits = self.reinterpret(whole, U32);
                let low = self.bin_k(And, whole_bits, 1);
                let odd = self.cmp_k(CmpPred::Eq, low, 1);
                let tie_up = self.and(tie, odd);
                self.or(above, tie_up)
            }
            Fp8Rounding::HalfAway => self.cmp_f(CmpPred::Ge, fraction, 0.5),
        };
        let whole_bits = self.reinterpret(whole, U32);
        let step = self.flag(up, U32);
        let subnormal_code = self.bin(Add, whole_bits, step);

        let min_normal = ((127 - f.bias + 1) as u64) << 23;
        let is_subnormal = self.cmp_k(CmpPred::Lt, magnitude, min_normal);
        let code = self.select(is_subnormal, subnormal_code, normal_code);
        let too_large = self.cmp_k(CmpPred::Gt, code, u64::from(f.max_code));
        let max_code = self.int(U32, u64::from(f.max_code));
        let code = self.select(too_large, max_code, code);
        let result = match f.nan_code {
            Some(nan_code) => {
                let nan = self.int(U32, u64::from(nan_code));
                let code = self.select(is_nan, nan, code);
                self.bin(Or, code, sign)
            }
            None => {
                let signed = self.bin(Or, code, sign);
                let is_zero = self.cmp_k(CmpPred::Eq, code, 0);
                let zero = self.int(U32, 0);
                let result = self.select(is_zero, zero, signed);
                let nan = self.int(U32, 0x80);
                self.select(is_nan, nan, result)
            }
        };
        let byte = self.convert(result, U8);
        self.reinterpret(byte, to)
    }
}

impl crate::lower::Lowerer<'_> {
    /// `x.to(dtype)` where the source or the destination is an fp8 format: through fp32, which
    /// holds every fp8 value exactly. Integers and fp64 do not convert to or from fp8 (Triton
    /// has no such conversion).
    pub(crate) fn convert_fp8(
        &mut self,
        v: Value,
        from: ScalarType,
        to: ScalarType,
        span: tilec_diagnostics::Span,
    ) -> crate::errors::Result<Value> {
        let convertible = |s: ScalarType| s.is_fp8() || matches!(s, ScalarType::F16 | ScalarType::BF16 | F32);
        if !convertible(from) || !convertible(to) {
            return Err(crate::errors::err(
                crate::errors::TYPE_ERROR,
                span,
                format!("cannot convert {} to {}", from.name(), to.name()),
            )
            .with_note("fp8 values convert to and from fp16, bf16 and fp32 (`x.to(tl.float32)`)"));
        }
        let shape = self.ty(v).shape.clone();
        let wide = match from.fp8_format() {
            Some(f) => Ew { l: self, shape: shape.clone(), span }.fp8_to_f32(v, f),
            None => self.cast(v, F32, span)?,
        };
        if to.is_fp8() {
            Ok(Ew { l: self, shape, span }.f32_to_fp8(wide, to))
        } else {
            self.cast(wide, to, span)
        }
    }
}
