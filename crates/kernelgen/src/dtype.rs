//! Element types the generator draws from, with Triton's promotion rules.

/// A Triton element type. `I1` only appears as the result of comparisons (masks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    I1,
    I8,
    I16,
    I32,
    I64,
    U8,
    U32,
    F16,
    BF16,
    F32,
    F64,
}

/// The numeric types kernels load, compute in and store.
pub const NUMERIC: &[Dtype] = &[
    Dtype::I8,
    Dtype::I16,
    Dtype::I32,
    Dtype::I64,
    Dtype::U8,
    Dtype::U32,
    Dtype::F16,
    Dtype::BF16,
    Dtype::F32,
    Dtype::F64,
];

impl Dtype {
    /// The `tl.` name (`tl.float16`).
    pub fn triton(self) -> &'static str {
        match self {
            Dtype::I1 => "tl.int1",
            Dtype::I8 => "tl.int8",
            Dtype::I16 => "tl.int16",
            Dtype::I32 => "tl.int32",
            Dtype::I64 => "tl.int64",
            Dtype::U8 => "tl.uint8",
            Dtype::U32 => "tl.uint32",
            Dtype::F16 => "tl.float16",
            Dtype::BF16 => "tl.bfloat16",
            Dtype::F32 => "tl.float32",
            Dtype::F64 => "tl.float64",
        }
    }

    /// The short name of signatures and `tilec run` arrays (`fp16`).
    pub fn short(self) -> &'static str {
        match self {
            Dtype::I1 => "i1",
            Dtype::I8 => "i8",
            Dtype::I16 => "i16",
            Dtype::I32 => "i32",
            Dtype::I64 => "i64",
            Dtype::U8 => "u8",
            Dtype::U32 => "u32",
            Dtype::F16 => "fp16",
            Dtype::BF16 => "bf16",
            Dtype::F32 => "fp32",
            Dtype::F64 => "fp64",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Dtype::F16 | Dtype::BF16 | Dtype::F32 | Dtype::F64)
    }

    pub fn is_int(self) -> bool {
        !self.is_float() && self != Dtype::I1
    }

    pub fn is_unsigned(self) -> bool {
        matches!(self, Dtype::U8 | Dtype::U32)
    }

    pub fn bits(self) -> u32 {
        match self {
            Dtype::I1 => 1,
            Dtype::I8 | Dtype::U8 => 8,
            Dtype::I16 | Dtype::F16 | Dtype::BF16 => 16,
            Dtype::I32 | Dtype::U32 | Dtype::F32 => 32,
            Dtype::I64 | Dtype::F64 => 64,
        }
    }

    /// The largest magnitude a value of this type holds (finite floats).
    pub fn max_abs(self) -> f64 {
        match self {
            Dtype::I1 => 1.0,
            Dtype::I8 => 128.0,
            Dtype::I16 => 32768.0,
            Dtype::I32 => 2147483648.0,
            Dtype::I64 => 9.3e18,
            Dtype::U8 => 255.0,
            Dtype::U32 => 4294967295.0,
            Dtype::F16 => 65504.0,
            Dtype::BF16 | Dtype::F32 => 3.0e38,
            Dtype::F64 => 1.0e308,
        }
    }

    /// Magnitudes a float value may reach and stay far from overflow (a product of two such
    /// values is still finite in fp32): the generator keeps float values below this.
    pub fn safe_float_bound(self) -> f64 {
        match self {
            Dtype::F16 => 2.0e3,
            _ => 1.0e6,
        }
    }

    /// Relative precision (unit roundoff) of a float type; 0 for integers.
    pub fn epsilon(self) -> f64 {
        match self {
            Dtype::F16 => 9.8e-4,
            Dtype::BF16 => 7.9e-3,
            Dtype::F32 => 1.2e-7,
            Dtype::F64 => 2.3e-16,
            _ => 0.0,
        }
    }
}

/// Triton's `computation_type_impl` for two tensors (no Python literals involved).
pub fn promote(a: Dtype, b: Dtype) -> Dtype {
    use Dtype::*;
    if a == b {
        return a;
    }
    if a.is_float() || b.is_float() {
        return if a == F64 || b == F64 {
            F64
        } else if a == F32 || b == F32 {
            F32
        } else if a == F16 || b == F16 {
            // fp16 wins over bf16 (Triton's rule 3 comes before its bf16 rule)
            F16
        } else {
            // bf16 stays bf16 only with bf16 (handled above); with an integer it is fp32
            F32
        };
    }
    if a == I1 {
        return b;
    }
    if b == I1 {
        return a;
    }
    if a.is_unsigned() == b.is_unsigned() {
        return if a.bits() >= b.bits() { a } else { b };
    }
    let (unsigned, signed) = if a.is_unsigned() { (a, b) } else { (b, a) };
    if unsigned.bits() >= signed.bits() {
        unsigned
    } else {
        signed
    }
}

/// Triton's type of `/` (and `//`, `%`) on two tensors: as [`promote`], but division in a
/// 16-bit float type is done in fp32.
pub fn promote_div(a: Dtype, b: Dtype) -> Dtype {
    match promote(a, b) {
        Dtype::F16 | Dtype::BF16 => Dtype::F32,
        t => t,
    }
}

/// The result type of `tl.sum`, `tl.cumsum` and `tl.cumprod` (integers narrower than 32 bits
/// widen to int32, unsigned ones and bool, which Triton counts as unsigned, to uint32).
pub fn sum_type(d: Dtype) -> Dtype {
    match d {
        Dtype::U8 | Dtype::I1 => Dtype::U32,
        d if d.is_int() && d.bits() < 32 => Dtype::I32,
        d => d,
    }
}

/// The type `tl.max`/`tl.min` compute in (narrower than 32 bits is widened).
pub fn minmax_type(d: Dtype) -> Dtype {
    match d {
        d if d.is_float() && d.bits() < 32 => Dtype::F32,
        d if d.bits() < 32 => Dtype::I32,
        d => d,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_follows_triton() {
        assert_eq!(promote(Dtype::I8, Dtype::U8), Dtype::U8);
        assert_eq!(promote(Dtype::U8, Dtype::I32), Dtype::I32);
        assert_eq!(promote(Dtype::U32, Dtype::I32), Dtype::U32);
        assert_eq!(promote(Dtype::I64, Dtype::U32), Dtype::I64);
        assert_eq!(promote(Dtype::F16, Dtype::BF16), Dtype::F16);
        assert_eq!(promote(Dtype::BF16, Dtype::BF16), Dtype::BF16);
        assert_eq!(promote(Dtype::BF16, Dtype::I8), Dtype::F32);
        assert_eq!(promote(Dtype::U8, Dtype::F16), Dtype::F16);
        assert_eq!(promote_div(Dtype::F16, Dtype::F16), Dtype::F32);
        assert_eq!(promote_div(Dtype::BF16, Dtype::I32), Dtype::F32);
        assert_eq!(promote_div(Dtype::F64, Dtype::F16), Dtype::F64);
        assert_eq!(promote(Dtype::I64, Dtype::F16), Dtype::F16);
        assert_eq!(promote(Dtype::F32, Dtype::F64), Dtype::F64);
        assert_eq!(sum_type(Dtype::I8), Dtype::I32);
        assert_eq!(minmax_type(Dtype::U8), Dtype::I32);
    }
}
