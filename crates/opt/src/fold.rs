//! Exact constant evaluation on scalar elements (a tensor constant is a splat, so folding
//! one element folds the tensor).
//!
//! Invariants: integer results wrap at the type's width and follow its signedness; nothing
//! is folded whose run-time result could differ from the folded one: division or remainder
//! by zero, signed `MIN / -1`, shifts by the width or more, and float operations other than
//! the correctly rounded ones (add, sub, mul, div, neg, abs, comparisons, exact casts) on
//! fp32/fp64 stay unfolded. fp16/bf16 arithmetic is never folded.

use crate::lang::Const;
use tilec_ir::{BinaryOp, CastOp, CmpPred, ScalarType, UnaryOp};

/// Keeps the low `bits(s)` bits of `v` and sign-extends them to 64 bits (the storage form of
/// [`Const::Int`]).
pub fn normalize(v: i128, s: ScalarType) -> i64 {
    let bits = s.bits();
    let low = v as i64;
    if bits >= 64 {
        return low;
    }
    let shift = 64 - bits;
    (low << shift) >> shift
}

/// The mathematical value of integer bits `c` of type `s` (zero-extended when unsigned).
pub fn int_value(c: i64, s: ScalarType) -> i128 {
    if s.is_unsigned_int() || s.is_bool() {
        let bits = s.bits();
        let mask: u64 = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        ((c as u64) & mask) as i128
    } else {
        c as i128
    }
}

/// Smallest and largest value of integer type `s`.
pub fn int_bounds(s: ScalarType) -> (i128, i128) {
    let bits = s.bits();
    if s.is_signed_int() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// The integer value of a constant of integer type `s` (`Bool` as 0/1).
pub fn const_int_value(c: Const, s: ScalarType) -> Option<i128> {
    match c {
        Const::Int(i) => Some(int_value(i, s)),
        Const::Bool(b) => Some(b as i128),
        Const::Float(_) => None,
    }
}

/// The constant of type `s` holding integer value `v` (wrapped to the width).
pub fn int_const(v: i128, s: ScalarType) -> Const {
    if s.is_bool() {
        Const::Bool(v & 1 == 1)
    } else {
        Const::Int(normalize(v, s))
    }
}

/// Whether `s` is a float type whose arithmetic the host computes with the same rounding.
fn exact_float(s: ScalarType) -> bool {
    matches!(s, ScalarType::F32 | ScalarType::F64)
}

/// Rounds `x` to the precision of `s` (fp32 or fp64).
fn round_to(x: f64, s: ScalarType) -> f64 {
    if s == ScalarType::F32 {
        x as f32 as f64
    } else {
        x
    }
}

/// Whether `x` is exactly a value of the 16-bit float type `s` (so narrowing it is exact).
fn representable(x: f64, s: ScalarType) -> bool {
    // (significand bits incl. the implicit one, smallest normal exponent, largest finite)
    let (precision, min_exp, max) = match s {
        ScalarType::F16 => (11, -14, 65504.0),
        ScalarType::BF16 => (8, -126, 3.3895313892515355e38),
        _ => return false,
    };
    if x == 0.0 || x.is_infinite() {
        return true;
    }
    if x.is_nan() || x.abs() > max {
        return false;
    }
    let exp = ((x.abs().to_bits() >> 52) as i32 & 0x7ff) - 1023;
    let quantum = exp.max(min_exp) - (precision - 1);
    (x * 2f64.powi(-quantum)).fract() == 0.0
}

pub fn binary(op: BinaryOp, a: Const, b: Const, s: ScalarType) -> Option<Const> {
    if s.is_bool() {
        let (Const::Bool(x), Const::Bool(y)) = (a, b) else { return None };
        return match op {
            BinaryOp::And => Some(Const::Bool(x & y)),
            BinaryOp::Or => Some(Const::Bool(x | y)),
            BinaryOp::Xor => Some(Const::Bool(x ^ y)),
            _ => None,
        };
    }
    if s.is_float() {
        let (x, y) = (a.as_float()?, b.as_float()?);
        if !exact_float(s) {
            return None;
        }
        let r = if s == ScalarType::F32 {
            let (x, y) = (x as f32, y as f32);
            (match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                _ => return None,
            }) as f64
        } else {
            match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                _ => return None,
            }
        };
        return Some(Const::float(r));
    }
    let (Const::Int(ra), Const::Int(rb)) = (a, b) else { return None };
    let (x, y) = (int_value(ra, s), int_value(rb, s));
    let bits = s.bits() as i128;
    let (min, _) = int_bounds(s);
    let r = match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x.wrapping_mul(y),
        BinaryOp::Div | BinaryOp::Rem => {
            if y == 0 || (s.is_signed_int() && x == min && y == -1) {
                return None;
            }
            if op == BinaryOp::Div {
                x / y
            } else {
                x % y
            }
        }
        BinaryOp::And => (ra & rb) as i128,
        BinaryOp::Or => (ra | rb) as i128,
        BinaryOp::Xor => (ra ^ rb) as i128,
        BinaryOp::Shl | BinaryOp::Shr => {
            if y < 0 || y >= bits {
                return None;
            }
            if op == BinaryOp::Shl {
                x << y
            } else {
                x >> y
            }
        }
        BinaryOp::Max => x.max(y),
        BinaryOp::Min => x.min(y),
        BinaryOp::MulHi => {
            if bits == 64 && s.is_unsigned_int() {
                (((x as u128) * (y as u128)) >> 64) as i128
            } else {
                (x * y) >> bits
            }
        }
        BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot => return None,
    };
    Some(int_const(r, s))
}

pub fn unary(op: UnaryOp, a: Const, s: ScalarType) -> Option<Const> {
    match a {
        Const::Bool(b) => match op {
            UnaryOp::Not => Some(Const::Bool(!b)),
            _ => None,
        },
        Const::Float(_) => {
            let x = a.as_float()?;
            match op {
                // Sign operations are exact at every precision.
                UnaryOp::Neg => Some(Const::float(-x)),
                UnaryOp::Abs => Some(Const::float(x.abs())),
                UnaryOp::Not => None,
            }
        }
        Const::Int(i) => {
            let x = int_value(i, s);
            Some(int_const(
                match op {
                    UnaryOp::Neg => -x,
                    UnaryOp::Not => !i as i128,
                    UnaryOp::Abs => x.abs(),
                },
                s,
            ))
        }
    }
}

pub fn cmp(pred: CmpPred, a: Const, b: Const, s: ScalarType) -> Option<Const> {
    let result = if s.is_float() {
        let (x, y) = (a.as_float()?, b.as_float()?);
        pred.holds(x, y)
    } else {
        let (x, y) = (const_int_value(a, s)?, const_int_value(b, s)?);
        return compare_ranges(pred, (x, x), (y, y)).map(Const::Bool);
    };
    Some(Const::Bool(result))
}

/// Decides `x pred y` for every `x` in range `a` and `y` in range `b` (inclusive bounds),
/// or `None` when the outcome depends on the values.
pub fn compare_ranges(pred: CmpPred, a: (i128, i128), b: (i128, i128)) -> Option<bool> {
    let always_lt = a.1 < b.0;
    let always_ge = a.0 >= b.1;
    let always_le = a.1 <= b.0;
    let always_gt = a.0 > b.1;
    let single_equal = a.0 == a.1 && b.0 == b.1 && a.0 == b.0;
    let disjoint = always_lt || always_gt;
    match pred {
        CmpPred::Lt => decide(always_lt, always_ge),
        CmpPred::Ge => decide(always_ge, always_lt),
        CmpPred::Le => decide(always_le, always_gt),
        CmpPred::Gt => decide(always_gt, always_le),
        CmpPred::Eq => decide(single_equal, disjoint),
        CmpPred::Ne => decide(disjoint, single_equal),
    }
}

fn decide(always_true: bool, always_false: bool) -> Option<bool> {
    if always_true {
        Some(true)
    } else if always_false {
        Some(false)
    } else {
        None
    }
}

/// Folds a conversion from element type `src` to `dst`; pointer casts are never folded.
pub fn cast(op: CastOp, a: Const, src: ScalarType, dst: ScalarType) -> Option<Const> {
    match op {
        CastOp::IntExt | CastOp::IntRetype | CastOp::IntTrunc => {
            if dst.is_bool() || dst.is_float() {
                return None;
            }
            Some(int_const(const_int_value(a, src)?, dst))
        }
        // A float constant holds its value unrounded (`0.3` typed fp16 means the fp16 nearest
        // 0.3): widening it is exact only once it is rounded to the source type, narrowing
        // once it is rounded to the destination type: to the narrower of the two.
        CastOp::FloatExt | CastOp::FloatTrunc => {
            let narrower = if op == CastOp::FloatExt { src } else { dst };
            let x = a.as_float()?;
            if exact_float(narrower) {
                Some(Const::float(round_to(x, narrower)))
            } else {
                representable(x, narrower).then_some(Const::float(x))
            }
        }
        CastOp::IntToFloat => {
            let v = const_int_value(a, src)?;
            match dst {
                ScalarType::F32 => Some(Const::float(v as f32 as f64)),
                ScalarType::F64 => Some(Const::float(v as f64)),
                // Folded only when the half holds `v` exactly (no rounding to decide here).
                ScalarType::F16 | ScalarType::BF16 => {
                    let x = v as f64;
                    (x as i128 == v && representable(x, dst)).then_some(Const::float(x))
                }
                _ => None,
            }
        }
        CastOp::FloatToInt => {
            let x = a.as_float()?;
            if dst.is_bool() || !(exact_float(src) || representable(x, src)) {
                return None;
            }
            let x = if exact_float(src) { round_to(x, src) } else { x };
            // Truncation toward zero, saturating, NaN → 0, as the IR defines it.
            let (min, max) = int_bounds(dst);
            Some(int_const((x as i128).clamp(min, max), dst))
        }
        CastOp::Bitcast => match (a, src, dst) {
            (Const::Float(_), ScalarType::F32, d) if d.bits() == 32 && d.is_int() => {
                Some(int_const((a.as_float()? as f32).to_bits() as i128, d))
            }
            (Const::Float(bits), ScalarType::F64, d) if d.bits() == 64 && d.is_int() => {
                Some(int_const(bits as i128, d))
            }
            (Const::Int(i), s, ScalarType::F32) if s.bits() == 32 => {
                Some(Const::float(f32::from_bits(i as u32) as f64))
            }
            (Const::Int(i), s, ScalarType::F64) if s.bits() == 64 => Some(Const::float(f64::from_bits(i as u64))),
            (Const::Int(_), s, d) if s.bits() == d.bits() && s.is_int() && d.is_int() && !d.is_bool() => {
                Some(int_const(const_int_value(a, s)?, d))
            }
            _ => None,
        },
        CastOp::PtrToInt | CastOp::IntToPtr | CastOp::PtrCast => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_folding_wraps_at_the_width() {
        let i8c = |v| Const::Int(v);
        assert_eq!(binary(BinaryOp::Add, i8c(127), i8c(1), ScalarType::I8), Some(i8c(-128)));
        // u8 255 is stored sign-extended as -1.
        assert_eq!(binary(BinaryOp::Add, i8c(-1), i8c(1), ScalarType::U8), Some(i8c(0)));
        assert_eq!(binary(BinaryOp::Div, i8c(-1), i8c(2), ScalarType::U8), Some(i8c(127)));
        assert_eq!(binary(BinaryOp::Div, i8c(-1), i8c(2), ScalarType::I8), Some(i8c(0)));
        assert_eq!(binary(BinaryOp::Shr, i8c(-4), i8c(1), ScalarType::I32), Some(i8c(-2)));
        assert_eq!(binary(BinaryOp::Shr, i8c(-4), i8c(1), ScalarType::U32), Some(i8c(0x7fff_fffe)));
    }

    #[test]
    fn undefined_integer_cases_are_not_folded() {
        let c = Const::Int;
        assert_eq!(binary(BinaryOp::Div, c(7), c(0), ScalarType::I32), None);
        assert_eq!(binary(BinaryOp::Rem, c(7), c(0), ScalarType::U32), None);
        assert_eq!(binary(BinaryOp::Div, c(i32::MIN as i64), c(-1), ScalarType::I32), None);
        assert_eq!(binary(BinaryOp::Shl, c(1), c(32), ScalarType::I32), None);
    }

    #[test]
    fn float_folding_rounds_to_the_type() {
        let third = binary(BinaryOp::Div, Const::float(1.0), Const::float(3.0), ScalarType::F32);
        assert_eq!(third, Some(Const::float((1.0f32 / 3.0f32) as f64)));
        assert_eq!(binary(BinaryOp::Add, Const::float(1.0), Const::float(2.0), ScalarType::F16), None);
    }

    #[test]
    fn narrowing_to_half_folds_only_exact_values() {
        let trunc = |x: f64, s| cast(CastOp::FloatTrunc, Const::float(x), ScalarType::F32, s);
        assert_eq!(trunc(0.0, ScalarType::F16), Some(Const::float(0.0)));
        assert_eq!(trunc(-1.5, ScalarType::F16), Some(Const::float(-1.5)));
        assert_eq!(trunc(65504.0, ScalarType::F16), Some(Const::float(65504.0)));
        assert_eq!(trunc(0.1, ScalarType::F16), None);
        assert_eq!(trunc(65520.0, ScalarType::F16), None);
        assert_eq!(trunc(2f64.powi(-24), ScalarType::F16), Some(Const::float(2f64.powi(-24))));
        assert_eq!(trunc(2f64.powi(-25), ScalarType::F16), None);
        assert_eq!(trunc(1.0 + 2f64.powi(-7), ScalarType::BF16), Some(Const::float(1.0 + 2f64.powi(-7))));
        assert_eq!(trunc(1.0 + 2f64.powi(-8), ScalarType::BF16), None);
    }

    #[test]
    fn widening_folds_the_rounded_constant() {
        // An fp16 constant written 0.3 is the fp16 nearest 0.3, not 0.3.
        let ext = |x: f64, s| cast(CastOp::FloatExt, Const::float(x), s, ScalarType::F64);
        assert_eq!(ext(0.3, ScalarType::F16), None);
        assert_eq!(ext(0.300048828125, ScalarType::F16), Some(Const::float(0.300048828125)));
        assert_eq!(ext(0.1, ScalarType::F32), Some(Const::float(0.1f32 as f64)));
        let to_int = |x: f64, s| cast(CastOp::FloatToInt, Const::float(x), s, ScalarType::I32);
        assert_eq!(to_int(2.99999999, ScalarType::F32), Some(Const::Int(3)));
        assert_eq!(to_int(2.999, ScalarType::F16), None);
    }

    #[test]
    fn casts_follow_the_source_signedness() {
        assert_eq!(cast(CastOp::IntExt, Const::Int(-1), ScalarType::U8, ScalarType::I32), Some(Const::Int(255)));
        assert_eq!(cast(CastOp::IntExt, Const::Int(-1), ScalarType::I8, ScalarType::I32), Some(Const::Int(-1)));
        assert_eq!(
            cast(CastOp::FloatToInt, Const::float(f64::NAN), ScalarType::F32, ScalarType::I32),
            Some(Const::Int(0))
        );
        assert_eq!(
            cast(CastOp::FloatToInt, Const::float(1e20), ScalarType::F32, ScalarType::I8),
            Some(Const::Int(127))
        );
    }

    #[test]
    fn integers_fold_into_halves_only_when_exact() {
        let to_half = |v: i64, dst| cast(CastOp::IntToFloat, Const::Int(v), ScalarType::I32, dst);
        assert_eq!(to_half(0, ScalarType::F16), Some(Const::float(0.0)));
        assert_eq!(to_half(-2048, ScalarType::F16), Some(Const::float(-2048.0)));
        // 2049 lies between the fp16 neighbours 2048 and 2050: left to the conversion.
        assert_eq!(to_half(2049, ScalarType::F16), None);
        assert_eq!(to_half(70000, ScalarType::F16), None);
        assert_eq!(to_half(256, ScalarType::BF16), Some(Const::float(256.0)));
        assert_eq!(to_half(257, ScalarType::BF16), None);
    }

    #[test]
    fn ranges_decide_comparisons() {
        assert_eq!(compare_ranges(CmpPred::Lt, (0, 127), (128, 128)), Some(true));
        assert_eq!(compare_ranges(CmpPred::Lt, (0, 128), (128, 128)), None);
        assert_eq!(compare_ranges(CmpPred::Ge, (0, 127), (128, 128)), Some(false));
        assert_eq!(compare_ranges(CmpPred::Ne, (0, 3), (4, 9)), Some(true));
    }
}
