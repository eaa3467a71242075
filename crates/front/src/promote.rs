//! Triton's type promotion rules (`semantic.py`: `computation_type_impl`,
//! `integer_promote_impl`, `to_tensor`), as pure functions on scalar types.

use tilec_ir::ScalarType;

/// Kind order used when a Python number meets a tensor: bool < integral < floating.
fn kind(t: ScalarType) -> u8 {
    if t.is_bool() {
        0
    } else if t.is_int() {
        1
    } else {
        2
    }
}

/// The type a Python number takes when it becomes a tensor (`to_tensor`): `bool` → i1;
/// ints → i32, else u32, else i64, else u64; floats → fp32 unless out of fp32 range.
pub fn literal_int_type(v: i128) -> Option<ScalarType> {
    if i32::MIN as i128 <= v && v <= i32::MAX as i128 {
        Some(ScalarType::I32)
    } else if 0 <= v && v <= u32::MAX as i128 {
        Some(ScalarType::U32)
    } else if i64::MIN as i128 <= v && v <= i64::MAX as i128 {
        Some(ScalarType::I64)
    } else if 0 <= v && v <= u64::MAX as i128 {
        Some(ScalarType::U64)
    } else {
        None
    }
}

pub fn literal_float_type(x: f64) -> ScalarType {
    if x.is_nan() || x.is_infinite() || x.abs() <= f32::MAX as f64 {
        ScalarType::F32
    } else {
        ScalarType::F64
    }
}

/// Triton's signedness: `int1` is one of its unsigned types (`dtype.UINT_TYPES`), which
/// matters for `/`, `//` and `%` operands, `>>`, reductions' accumulator types and the
/// dtype predicates.
pub fn is_unsigned(t: ScalarType) -> bool {
    t.is_unsigned_int() || t.is_bool()
}

/// The integer type of the same width and the other signedness (`i32` ↔ `u32`); `i1` and
/// floats have none.
pub fn other_signedness(t: ScalarType) -> Option<ScalarType> {
    use ScalarType::*;
    Some(match t {
        I8 => U8,
        I16 => U16,
        I32 => U32,
        I64 => U64,
        U8 => I8,
        U16 => I16,
        U32 => I32,
        U64 => I64,
        _ => return None,
    })
}

/// C's usual arithmetic conversions on two integer types.
pub fn integer_promote(a: ScalarType, b: ScalarType) -> ScalarType {
    let (ra, rb) = (a.bits(), b.bits());
    let (ua, ub) = (a.is_unsigned_int(), b.is_unsigned_int());
    if ua == ub {
        if ra > rb {
            a
        } else {
            b
        }
    } else if ua {
        if ra >= rb {
            a
        } else {
            b
        }
    } else if rb >= ra {
        b
    } else {
        a
    }
}

/// The type both operands of an arithmetic op are converted to. `a_lit`/`b_lit` say the
/// operand is a Python number (it then does not take part in promotion when its kind is not
/// above the other operand's). `div_or_mod` is set for `/`, `//`, `%`.
pub fn computation_type(
    a: ScalarType,
    a_lit: bool,
    b: ScalarType,
    b_lit: bool,
    div_or_mod: bool,
) -> Result<ScalarType, String> {
    use ScalarType::*;
    if a.is_fp8() || b.is_fp8() {
        // Different fp8 formats meet in fp16 (Triton's rule), an fp8 tensor and an fp16,
        // bf16, fp32 or fp64 one by the rules below; an fp8 format with itself, a number or
        // an integer would compute in fp8, which has no arithmetic.
        if a.is_fp8() && b.is_fp8() && a != b && !a_lit && !b_lit {
            return Ok(if div_or_mod { F32 } else { F16 });
        }
        let (fp8, other, other_lit) = if a.is_fp8() { (a, b, b_lit) } else { (b, a, a_lit) };
        if other_lit || !other.is_float() {
            return Err(format!(
                "{} has no arithmetic; convert the operands with `.to(tl.float32)` (or fp16, bf16) first",
                fp8.name()
            ));
        }
    }
    if a_lit != b_lit {
        let (lit, tensor) = if a_lit { (a, b) } else { (b, a) };
        if kind(lit) <= kind(tensor) {
            if div_or_mod && matches!(tensor, F16 | BF16) {
                return Ok(F32);
            }
            return Ok(tensor);
        }
    }
    if a == F64 || b == F64 {
        return Ok(F64);
    }
    if a == F32 || b == F32 {
        return Ok(F32);
    }
    if a == F16 || b == F16 {
        return Ok(if div_or_mod { F32 } else { F16 });
    }
    if a == BF16 || b == BF16 {
        return Ok(if div_or_mod || a != b { F32 } else { BF16 });
    }
    if div_or_mod && is_unsigned(a) != is_unsigned(b) {
        return Err(format!(
            "cannot use /, // or % with {} and {} because they have different signedness; cast them to the same signedness",
            a.name(),
            b.name()
        ));
    }
    Ok(integer_promote(a, b))
}

/// Smallest and largest value of an integer type.
pub fn int_range(t: ScalarType) -> (i128, i128) {
    if t.is_bool() {
        return (0, 1);
    }
    let bits = t.bits();
    if t.is_unsigned_int() {
        (0, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    /// `a op b` where `L:` marks a Python-number operand; expected result type name or error.
    fn check(input: &str, expected: &str) {
        let parts: Vec<&str> = input.split_whitespace().collect();
        let parse = |s: &str| match s.strip_prefix("L:") {
            Some(t) => (ScalarType::from_name(t).unwrap(), true),
            None => (ScalarType::from_name(s).unwrap(), false),
        };
        let (a, al) = parse(parts[0]);
        let div = parts[1] == "/";
        let (b, bl) = parse(parts[2]);
        let got = match computation_type(a, al, b, bl, div) {
            Ok(t) => t.name().to_string(),
            Err(_) => "error".to_string(),
        };
        assert_eq!(got, expected, "{input}");
    }

    #[test]
    fn promotion_rules() {
        check("i32 + i64", "i64");
        check("i8 + u8", "u8");
        check("i64 + u32", "i64");
        check("i32 + u32", "u32");
        check("u8 + i16", "i16");
        check("fp16 + fp32", "fp32");
        check("fp16 + bf16", "fp16"); // rule 3 (half) applies before rule 4 (bf16)
        check("bf16 + bf16", "bf16");
        check("fp16 + fp16", "fp16");
        check("fp16 / fp16", "fp32");
        check("fp64 + fp16", "fp64");
        check("i32 + fp16", "fp16");
        check("i1 + i1", "i1");
        check("u8 + L:i32", "u8");
        check("i8 + L:i32", "i8");
        check("fp16 + L:fp32", "fp16");
        check("bf16 / L:fp32", "fp32");
        check("i32 + L:fp32", "fp32");
        check("i1 + L:i32", "i32");
        check("L:i32 + i64", "i64");
        check("i32 / u32", "error");
        // int1 is unsigned in Triton: it meets a signed int in `/`, `//`, `%` only by a cast.
        check("i1 / i32", "error");
        check("i1 / L:i32", "error");
        check("i1 / u8", "u8");
        check("i1 / i1", "i1");
        check("u16 / u32", "u32");
        check("fp8e4nv + fp32", "fp32");
        check("fp8e5 + fp16", "fp16");
        check("fp8e4nv + bf16", "fp32");
        check("fp8e4nv + fp8e5", "fp16");
        check("fp8e4nv + fp8e4nv", "error");
        check("fp8e4nv + L:fp32", "error");
        check("fp8e4b8 + i32", "error");
    }

    #[test]
    fn literal_types() {
        assert_eq!(literal_int_type(5), Some(I32));
        assert_eq!(literal_int_type(-(1 << 31)), Some(I32));
        assert_eq!(literal_int_type(0xD2511F53), Some(U32));
        assert_eq!(literal_int_type(1 << 32), Some(I64));
        assert_eq!(literal_int_type(0x9E3779B97F4A7C15), Some(U64));
        assert_eq!(literal_int_type(1 << 64), None);
        assert_eq!(literal_float_type(0.5), F32);
        assert_eq!(literal_float_type(1e300), F64);
        assert_eq!(int_range(U8), (0, 255));
        assert_eq!(int_range(I8), (-128, 127));
    }
}
