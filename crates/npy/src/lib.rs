//! Host arrays of `tilec run`: NumPy `.npy` files in and out, and the generated inputs
//! `zeros:`, `rand:` and `arange:` ([`ArraySource`]). The tests and `cargo xtask difftest`
//! read `tilec run --out` files with the same type.
//!
//! Invariant: `data` holds `shape.product()` elements of `dtype`, little-endian, C order;
//! booleans are one byte (0 or 1); `bf16` is stored as its 16 bits (`.npy` descr `|V2`, the
//! way NumPy saves a 2-byte void/bfloat16 array); the fp8 formats are stored as their 8 bits
//! (`.npy` descr `|u1`, as Triton keeps them in uint8 tensors), so a file read back is `u8`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use half::{bf16, f16};
use npyz::{DType, TypeChar, WriterBuilder};
use tilec_ir::ScalarType;

/// A dense array with its element type and shape.
#[derive(Clone, Debug, PartialEq)]
pub struct HostArray {
    pub dtype: ScalarType,
    pub shape: Vec<u64>,
    pub data: Vec<u8>,
}

impl HostArray {
    /// The number of elements.
    pub fn len(&self) -> u64 {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn byte_len(dtype: ScalarType, shape: &[u64]) -> Result<usize, String> {
        shape
            .iter()
            .try_fold(u64::from(dtype.bytes()), |acc, &d| acc.checked_mul(d))
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= 1 << 34)
            .ok_or_else(|| format!("an array of shape {} is too large", shape_text(shape)))
    }

    pub fn zeros(dtype: ScalarType, shape: &[u64]) -> Result<HostArray, String> {
        let bytes = Self::byte_len(dtype, shape)?;
        Ok(HostArray { dtype, shape: shape.to_vec(), data: vec![0; bytes] })
    }

    /// 0, 1, 2, ... converted to `dtype` (wrapping for narrow integers).
    pub fn arange(dtype: ScalarType, shape: &[u64]) -> Result<HostArray, String> {
        let mut array = Self::zeros(dtype, shape)?;
        for i in 0..array.len() {
            array.set(i, Number::Int(i64::try_from(i).unwrap_or(i64::MAX)));
        }
        Ok(array)
    }

    /// Deterministic pseudo-random values for `seed`: floats uniform in [-1, 1), signed
    /// integers in [-100, 100), unsigned integers in [0, 200), booleans 0 or 1.
    pub fn random(dtype: ScalarType, shape: &[u64], seed: u64) -> Result<HostArray, String> {
        let mut array = Self::zeros(dtype, shape)?;
        let mut state = seed;
        for i in 0..array.len() {
            let bits = splitmix64(&mut state);
            let value = if dtype.is_float() || dtype.is_fp8() {
                Number::Float((bits >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
            } else if dtype.is_bool() {
                Number::Int((bits >> 63) as i64)
            } else if dtype.is_signed_int() {
                Number::Int((bits % 200) as i64 - 100)
            } else {
                Number::Int((bits % 200) as i64)
            };
            array.set(i, value);
        }
        Ok(array)
    }

    /// Element `index` as a number.
    pub fn get(&self, index: u64) -> Number {
        let bits = self.bits(index);
        match self.dtype {
            ScalarType::I1 => Number::Int((bits & 1) as i64),
            ScalarType::I8 => Number::Int(bits as u8 as i8 as i64),
            ScalarType::I16 => Number::Int(bits as u16 as i16 as i64),
            ScalarType::I32 => Number::Int(bits as u32 as i32 as i64),
            ScalarType::I64 => Number::Int(bits as i64),
            ScalarType::U8 | ScalarType::U16 | ScalarType::U32 => Number::Int(bits as i64),
            ScalarType::U64 => Number::UInt(bits),
            ScalarType::F16 => Number::Float(f16::from_bits(bits as u16).to_f64()),
            ScalarType::BF16 => Number::Float(bf16::from_bits(bits as u16).to_f64()),
            ScalarType::F32 => Number::Float(f64::from(f32::from_bits(bits as u32))),
            ScalarType::F64 => Number::Float(f64::from_bits(bits)),
            fp8 => Number::Float(f64::from(fp8.fp8_format().map_or(f32::NAN, |f| f.decode(bits as u8)))),
        }
    }

    /// The bits of element `index`, zero-extended.
    pub fn bits(&self, index: u64) -> u64 {
        let size = self.dtype.bytes() as usize;
        let start = index as usize * size;
        let mut raw = [0u8; 8];
        raw[..size].copy_from_slice(&self.data[start..start + size]);
        u64::from_le_bytes(raw)
    }

    /// Stores `value` converted to the array's dtype at element `index`.
    pub fn set(&mut self, index: u64, value: Number) {
        let bits = value.encode(self.dtype);
        let size = self.dtype.bytes() as usize;
        let start = index as usize * size;
        self.data[start..start + size].copy_from_slice(&bits.to_le_bytes()[..size]);
    }

    /// Reads a `.npy` file; errors name the file and what is wrong with it.
    pub fn read_npy(path: &Path) -> Result<HostArray, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let bad = |why: String| format!("{} is not a usable .npy file: {why}", path.display());
        let npy = npyz::NpyFile::new(std::io::BufReader::new(file)).map_err(|e| bad(e.to_string()))?;
        if npy.order() != npyz::Order::C {
            return Err(bad("it is in Fortran order; save it in C order".into()));
        }
        let shape = npy.shape().to_vec();
        let type_str = match npy.dtype() {
            DType::Plain(t) => t,
            other => return Err(bad(format!("dtype `{}` is not a plain numeric type", other.descr()))),
        };
        let dtype = scalar_type_of(&type_str).ok_or_else(|| bad(format!("dtype `{type_str}` is not supported")))?;
        let big_endian = type_str.endianness() == npyz::Endianness::Big && dtype.bytes() > 1;
        let bytes = Self::byte_len(dtype, &shape).map_err(bad)?;
        let mut data = vec![0u8; bytes];
        npy.into_inner()
            .read_exact(&mut data)
            .map_err(|_| bad(format!("it holds fewer than the {bytes} data bytes its header announces")))?;
        if big_endian {
            for element in data.chunks_mut(dtype.bytes() as usize) {
                element.reverse();
            }
        }
        if dtype.is_bool() && data.iter().any(|&b| b > 1) {
            return Err(bad("a boolean element is neither 0 nor 1".into()));
        }
        Ok(HostArray { dtype, shape, data })
    }

    /// Reads a `.npy` file of uint8 (or int8) patterns as an array of fp8 dtype `dtype`.
    pub fn read_npy_fp8(path: &Path, dtype: ScalarType) -> Result<HostArray, String> {
        let array = Self::read_npy(path)?;
        if !matches!(array.dtype, ScalarType::U8 | ScalarType::I8) {
            return Err(format!(
                "{} holds {} elements; {} data is read from uint8 patterns",
                path.display(),
                array.dtype.name(),
                dtype.name()
            ));
        }
        Ok(HostArray { dtype, ..array })
    }

    /// Writes the array as a `.npy` file.
    pub fn write_npy(&self, path: &Path) -> Result<(), String> {
        let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
        let file = std::fs::File::create(path).map_err(fail)?;
        let type_str: npyz::TypeStr = npy_descr(self.dtype).parse().map_err(|e| format!("{e}"))?;
        let mut writer = npyz::WriteOptions::new_header_only()
            .dtype(DType::Plain(type_str))
            .shape(&self.shape)
            .writer(std::io::BufWriter::new(file))
            .write_header_only()
            .map_err(fail)?;
        writer.write_all(&self.data).map_err(fail)?;
        writer.flush().map_err(fail)
    }

    /// One line: `fp32[64x32] [0.5, -0.25, ...]` with at most `max_values` leading values.
    pub fn summary(&self, max_values: u64) -> String {
        let shown = self.len().min(max_values);
        let values: Vec<String> = (0..shown).map(|i| self.get(i).to_string()).collect();
        let more = if self.len() > shown { ", ..." } else { "" };
        format!("{}[{}] [{}{more}]", self.dtype.name(), shape_text(&self.shape), values.join(", "))
    }
}

/// Where an array argument of `tilec run` comes from: `@FILE.npy`, `@FILE.npy:FP8` (a
/// uint8 file holding patterns of fp8 dtype `FP8`, e.g. `fp8e4nv`), `zeros:DTYPE:SHAPE`,
/// `rand:DTYPE:SHAPE[:SEED]` or `arange:DTYPE:SHAPE`.
#[derive(Clone, Debug, PartialEq)]
pub enum ArraySource {
    File(PathBuf),
    Fp8File { path: PathBuf, dtype: ScalarType },
    Zeros { dtype: ScalarType, shape: Vec<u64> },
    Random { dtype: ScalarType, shape: Vec<u64>, seed: Option<u64> },
    Arange { dtype: ScalarType, shape: Vec<u64> },
}

impl ArraySource {
    /// The array source `text` denotes; `None` when it is not written as an array at all
    /// (a number, `True`, ...), `Some(Err)` when it is one but malformed.
    pub fn parse(text: &str) -> Option<Result<ArraySource, String>> {
        if let Some(path) = text.strip_prefix('@') {
            if path.is_empty() {
                return Some(Err("`@` needs a file name".into()));
            }
            if let Some((file, dtype)) = path.rsplit_once(':') {
                if let Some(dtype) = ScalarType::from_name(dtype).filter(|d| d.is_fp8()) {
                    return Some(Ok(ArraySource::Fp8File { path: PathBuf::from(file), dtype }));
                }
            }
            return Some(Ok(ArraySource::File(PathBuf::from(path))));
        }
        let parts: Vec<&str> = text.split(':').collect();
        let generator = parts[0];
        if !matches!(generator, "zeros" | "rand" | "arange") {
            return None;
        }
        Some(Self::parse_generated(generator, &parts))
    }

    fn parse_generated(generator: &str, parts: &[&str]) -> Result<ArraySource, String> {
        let max_parts = if generator == "rand" { 4 } else { 3 };
        if parts.len() < 3 || parts.len() > max_parts {
            let seed = if generator == "rand" { "[:SEED]" } else { "" };
            return Err(format!("expected {generator}:DTYPE:SHAPE{seed}"));
        }
        let dtype = ScalarType::from_name(parts[1]).ok_or_else(|| format!("unknown dtype `{}`", parts[1]))?;
        let shape = parse_shape(parts[2])?;
        Ok(match generator {
            "zeros" => ArraySource::Zeros { dtype, shape },
            "arange" => ArraySource::Arange { dtype, shape },
            _ => {
                let seed = match parts.get(3) {
                    Some(s) => Some(s.parse::<u64>().map_err(|_| format!("seed `{s}` is not a non-negative integer"))?),
                    None => None,
                };
                ArraySource::Random { dtype, shape, seed }
            }
        })
    }
}

/// `4000` or `64x32`: every dimension at least 1.
pub fn parse_shape(text: &str) -> Result<Vec<u64>, String> {
    text.split(['x', ','])
        .map(|d| match d.trim().parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("shape `{text}` is not like 4000 or 64x32 (dimensions >= 1)")),
        })
        .collect()
}

/// `64x32` (and `scalar` for an empty shape).
pub fn shape_text(shape: &[u64]) -> String {
    if shape.is_empty() {
        return "scalar".into();
    }
    shape.iter().map(u64::to_string).collect::<Vec<_>>().join("x")
}

/// An element value while converting between dtypes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i64),
    UInt(u64),
    Float(f64),
}

impl Number {
    /// The bits of `self` converted to `dtype` (integers wrap, floats round to nearest),
    /// zero-extended to 64 bits.
    pub fn encode(self, dtype: ScalarType) -> u64 {
        let as_int = |n: Number| match n {
            Number::Int(i) => i as u64,
            Number::UInt(u) => u,
            Number::Float(f) => f as i64 as u64,
        };
        let as_float = |n: Number| match n {
            Number::Int(i) => i as f64,
            Number::UInt(u) => u as f64,
            Number::Float(f) => f,
        };
        match dtype {
            ScalarType::I1 => u64::from(as_int(self) != 0),
            // rounded once (`half`'s own `from_f64` ignores the low bits of an f64)
            ScalarType::F16 => u64::from(f16::from_f32(tilec_ir::f64_to_f32_round_to_odd(as_float(self))).to_bits()),
            ScalarType::BF16 => u64::from(bf16::from_f32(tilec_ir::f64_to_f32_round_to_odd(as_float(self))).to_bits()),
            ScalarType::F32 => u64::from((as_float(self) as f32).to_bits()),
            ScalarType::F64 => as_float(self).to_bits(),
            fp8 if fp8.is_fp8() => u64::from(fp8.fp8_format().map_or(0, |f| f.encode(as_float(self)))),
            int => {
                let bits = int.bits();
                let value = as_int(self);
                if bits == 64 {
                    value
                } else {
                    value & ((1u64 << bits) - 1)
                }
            }
        }
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Number::Int(i) => write!(f, "{i}"),
            Number::UInt(u) => write!(f, "{u}"),
            Number::Float(x) => write!(f, "{x:.6}"),
        }
    }
}

fn scalar_type_of(t: &npyz::TypeStr) -> Option<ScalarType> {
    Some(match (t.type_char(), t.size_field()) {
        (TypeChar::Bool, 1) => ScalarType::I1,
        (TypeChar::Int, 1) => ScalarType::I8,
        (TypeChar::Int, 2) => ScalarType::I16,
        (TypeChar::Int, 4) => ScalarType::I32,
        (TypeChar::Int, 8) => ScalarType::I64,
        (TypeChar::Uint, 1) => ScalarType::U8,
        (TypeChar::Uint, 2) => ScalarType::U16,
        (TypeChar::Uint, 4) => ScalarType::U32,
        (TypeChar::Uint, 8) => ScalarType::U64,
        (TypeChar::Float, 2) => ScalarType::F16,
        (TypeChar::Float, 4) => ScalarType::F32,
        (TypeChar::Float, 8) => ScalarType::F64,
        (TypeChar::RawData, 2) => ScalarType::BF16,
        _ => return None,
    })
}

fn npy_descr(dtype: ScalarType) -> &'static str {
    match dtype {
        ScalarType::I1 => "|b1",
        ScalarType::I8 => "|i1",
        ScalarType::I16 => "<i2",
        ScalarType::I32 => "<i4",
        ScalarType::I64 => "<i8",
        ScalarType::U8 => "|u1",
        ScalarType::U16 => "<u2",
        ScalarType::U32 => "<u4",
        ScalarType::U64 => "<u8",
        ScalarType::F16 => "<f2",
        ScalarType::BF16 => "|V2",
        ScalarType::F32 => "<f4",
        ScalarType::F64 => "<f8",
        ScalarType::F8E4NV | ScalarType::F8E5 | ScalarType::F8E4B15 | ScalarType::F8E4B8 | ScalarType::F8E5B16 => "|u1",
    }
}

/// SplitMix64: a small, well-mixed, reproducible generator.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_round_trip_keeps_dtype_shape_and_bytes() {
        let dir = std::env::temp_dir().join(format!("tilec-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for dtype in ScalarType::ALL {
            let array = HostArray::random(dtype, &[3, 5], 7).unwrap();
            let path = dir.join(format!("{}.npy", dtype.name()));
            array.write_npy(&path).unwrap();
            let stored = if dtype.is_fp8() { HostArray { dtype: ScalarType::U8, ..array } } else { array };
            assert_eq!(HostArray::read_npy(&path).unwrap(), stored, "{}", dtype.name());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn generated_values_are_deterministic_and_in_range() {
        let a = HostArray::random(ScalarType::F32, &[1000], 1).unwrap();
        assert_eq!(a, HostArray::random(ScalarType::F32, &[1000], 1).unwrap());
        assert_ne!(a, HostArray::random(ScalarType::F32, &[1000], 2).unwrap());
        assert!((0..1000).all(|i| matches!(a.get(i), Number::Float(x) if (-1.0..1.0).contains(&x))));
        let r = HostArray::arange(ScalarType::I8, &[300]).unwrap();
        assert_eq!(r.get(5), Number::Int(5));
        assert_eq!(r.get(200), Number::Int(200 - 256));
    }

    #[test]
    fn array_sources_parse_their_forms() {
        assert_eq!(ArraySource::parse("3"), None);
        assert_eq!(ArraySource::parse("tl.float16"), None);
        assert_eq!(ArraySource::parse("@x.npy"), Some(Ok(ArraySource::File("x.npy".into()))));
        assert_eq!(
            ArraySource::parse("@x.npy:fp8e5"),
            Some(Ok(ArraySource::Fp8File { path: "x.npy".into(), dtype: ScalarType::F8E5 }))
        );
        assert_eq!(
            ArraySource::parse("rand:fp16:64x32:3"),
            Some(Ok(ArraySource::Random { dtype: ScalarType::F16, shape: vec![64, 32], seed: Some(3) }))
        );
        for bad in ["@", "zeros:fp32", "zeros:f99:4", "zeros:fp32:0", "rand:i32:4:s", "arange:i32:4:1"] {
            assert!(matches!(ArraySource::parse(bad), Some(Err(_))), "{bad}");
        }
    }

    #[test]
    fn summary_shows_shape_and_leading_values() {
        let a = HostArray::arange(ScalarType::I32, &[2, 3]).unwrap();
        assert_eq!(a.summary(4), "i32[2x3] [0, 1, 2, 3, ...]");
    }
}
