//! Output arrays compared element by element.
//!
//! By default two outputs must be equal bit for bit: same dtype, shape and element bits,
//! except that any NaN equals any NaN (payloads are not semantics tilec keeps). `-0.0` and
//! `+0.0` differ. A [`Tolerance`] relaxes float elements only, and is always declared with
//! its reason: in a fixture's `# tilec-tolerance:` line (see [`crate::fixture`]), or by the
//! differential generator, whose tolerances derive from magnitude bounds it computed
//! ([`compare_generated`]).

use std::fmt;

use tilec_ir::ScalarType;
use tilec_kernelgen::OutputCheck;
use tilec_npy::HostArray;

/// How far a float element may be from the reference. An element passes when it has the
/// reference's bits, or both are NaN, or `|got - want| <= abs + rel * |want|`, or the two
/// are at most `ulp` representable values of the output's dtype apart.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tolerance {
    pub abs: f64,
    pub rel: f64,
    pub ulp: u64,
    /// Why the outputs may differ; `None` only for the exact comparison.
    pub reason: Option<String>,
}

impl Tolerance {
    /// Bit for bit (NaN payloads aside).
    pub fn exact() -> Tolerance {
        Tolerance::default()
    }

    pub fn is_exact(&self) -> bool {
        self.abs == 0.0 && self.rel == 0.0 && self.ulp == 0
    }

    /// Whether float elements `got` and `want` (both of `dtype`, given as raw bits) agree.
    fn floats_agree(&self, dtype: ScalarType, got: u64, want: u64) -> bool {
        let (g, w) = (float_value(dtype, got), float_value(dtype, want));
        if got == want || (g.is_nan() && w.is_nan()) {
            return true;
        }
        if self.is_exact() || g.is_nan() || w.is_nan() {
            return false;
        }
        (g - w).abs() <= self.abs + self.rel * w.abs() || ulp_distance(dtype, got, want) <= u128::from(self.ulp)
    }
}

impl fmt::Display for Tolerance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_exact() {
            return write!(f, "bit for bit");
        }
        let mut parts = Vec::new();
        if self.abs != 0.0 {
            parts.push(format!("abs={}", self.abs));
        }
        if self.rel != 0.0 {
            parts.push(format!("rel={}", self.rel));
        }
        if self.ulp != 0 {
            parts.push(format!("ulp={}", self.ulp));
        }
        write!(f, "within {}", parts.join(" "))?;
        if let Some(reason) = &self.reason {
            write!(f, " ({reason})")?;
        }
        Ok(())
    }
}

/// `Ok` when output `name` of a run (`got`) matches the reference (`want`) as `tolerance`
/// says; the error names the output, how many elements differ and the first few, with
/// their bits.
pub fn compare_arrays(name: &str, got: &HostArray, want: &HostArray, tolerance: &Tolerance) -> Result<(), String> {
    if got.dtype != want.dtype || got.shape != want.shape {
        return Err(format!("`{name}`: got {} but the reference is {}", got.summary(0), want.summary(0)));
    }
    let dtype = got.dtype;
    let differing: Vec<u64> = (0..got.len())
        .filter(|&i| {
            let (g, w) = (got.bits(i), want.bits(i));
            if dtype.is_float() {
                !tolerance.floats_agree(dtype, g, w)
            } else {
                g != w
            }
        })
        .collect();
    if differing.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = differing
        .iter()
        .take(6)
        .map(|&i| format!("[{i}] {} against {}", element_text(got, i), element_text(want, i)))
        .collect();
    Err(format!(
        "`{name}` ({}, compared {tolerance}): {} of {} elements differ: {}",
        dtype.name(),
        differing.len(),
        got.len(),
        shown.join(", ")
    ))
}

/// Compares output `check` of a generated kernel: the reference `want` (tilec's interpreter or Triton)
/// must stay within the generator's magnitude bound, else the tolerance derived from that
/// bound cannot be trusted and the error says it is a generator bug; then `got` must match
/// within the generator's absolute tolerance (bit for bit when it is zero).
pub fn compare_generated(check: &OutputCheck, got: &HostArray, want: &HostArray) -> Result<(), String> {
    if check.bound != f64::INFINITY {
        let over = (0..want.len()).find(|&i| {
            let magnitude = match want.get(i) {
                tilec_npy::Number::Int(v) => v.unsigned_abs() as f64,
                tilec_npy::Number::UInt(v) => v as f64,
                tilec_npy::Number::Float(v) => v.abs(),
            };
            !check.within_bound(magnitude)
        });
        if let Some(i) = over {
            return Err(format!(
                "`{}`: the reference's [{i}] = {} exceeds the generator's bound {} (a generator bug: the tolerance {} derives from that bound)",
                check.name,
                want.get(i),
                check.bound,
                check.abs_tol
            ));
        }
    }
    let tolerance = Tolerance {
        abs: check.abs_tol,
        reason: Some("derived by the generator from the output's magnitude bound".into()),
        ..Tolerance::exact()
    };
    compare_arrays(&check.name, got, want, &tolerance)
}

/// The value of float bits of `dtype`.
fn float_value(dtype: ScalarType, bits: u64) -> f64 {
    match dtype {
        ScalarType::F16 => half::f16::from_bits(bits as u16).to_f64(),
        ScalarType::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
        ScalarType::F32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}

/// How many representable values of `dtype` lie between two non-NaN floats (0 for `±0`).
fn ulp_distance(dtype: ScalarType, a: u64, b: u64) -> u128 {
    let width = dtype.bits();
    let ordered = |bits: u64| -> i128 {
        let sign = 1u64 << (width - 1);
        let magnitude = i128::from(bits & (sign - 1));
        if bits & sign != 0 {
            -magnitude
        } else {
            magnitude
        }
    };
    (ordered(a) - ordered(b)).unsigned_abs()
}

/// `-0` with its bits, so that a difference the decimal form hides shows.
fn element_text(array: &HostArray, i: u64) -> String {
    let hex_digits = array.dtype.bytes() as usize * 2;
    if array.dtype.is_float() {
        let value = float_value(array.dtype, array.bits(i));
        let value = if array.dtype == ScalarType::F64 { value.to_string() } else { (value as f32).to_string() };
        format!("{value} (0x{:0hex_digits$x})", array.bits(i))
    } else {
        array.get(i).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tilec_npy::Number;

    fn floats(dtype: ScalarType, values: &[f64]) -> HostArray {
        let mut a = HostArray::zeros(dtype, &[values.len() as u64]).unwrap();
        for (i, v) in values.iter().enumerate() {
            a.set(i as u64, Number::Float(*v));
        }
        a
    }

    #[test]
    fn exact_comparison_tells_zeros_apart_and_not_nans() {
        let exact = Tolerance::exact();
        let plus = floats(ScalarType::F32, &[0.0, 1.0, f64::NAN]);
        let minus = floats(ScalarType::F32, &[-0.0, 1.0, f64::NAN]);
        let err = compare_arrays("y", &plus, &minus, &exact).unwrap_err();
        assert!(err.contains("1 of 3 elements differ"), "{err}");
        assert!(err.contains("[0] 0 (0x00000000) against -0 (0x80000000)"), "{err}");
        let mut other_nan = plus.clone();
        other_nan.data[8..12].copy_from_slice(&0x7fc0_0001u32.to_le_bytes());
        assert_eq!(compare_arrays("y", &other_nan, &plus, &exact), Ok(()));
        for dtype in [ScalarType::F16, ScalarType::BF16, ScalarType::F64] {
            let err = compare_arrays("y", &floats(dtype, &[0.0]), &floats(dtype, &[-0.0]), &exact);
            assert!(err.is_err(), "{}", dtype.name());
        }
    }

    #[test]
    fn integers_compare_exactly_whatever_the_tolerance() {
        let loose = Tolerance { abs: 10.0, ..Tolerance::exact() };
        let a = HostArray::arange(ScalarType::I32, &[4]).unwrap();
        let mut b = a.clone();
        b.set(3, Number::Int(4));
        assert!(compare_arrays("i", &a, &b, &loose).is_err());
        assert!(compare_arrays("i", &a, &a, &Tolerance::exact()).is_ok());
    }

    #[test]
    fn tolerances_bound_the_difference() {
        let one = floats(ScalarType::F32, &[1.0]);
        let next = floats(ScalarType::F32, &[f64::from(f32::from_bits(1.0f32.to_bits() + 2))]);
        let ulp = |n| Tolerance { ulp: n, reason: Some("test".into()), ..Tolerance::exact() };
        assert!(compare_arrays("y", &next, &one, &ulp(1)).is_err());
        assert!(compare_arrays("y", &next, &one, &ulp(2)).is_ok());
        let abs = Tolerance { abs: 1e-6, ..Tolerance::exact() };
        assert!(compare_arrays("y", &next, &one, &abs).is_ok());
        let rel = Tolerance { rel: 1e-7, ..Tolerance::exact() };
        assert!(compare_arrays("y", &next, &one, &rel).is_err());
        let nan = floats(ScalarType::F32, &[f64::NAN]);
        assert!(compare_arrays("y", &nan, &one, &abs).is_err());
        let h16 = |v| floats(ScalarType::F16, &[v]);
        assert!(compare_arrays("h", &h16(1.0 + 1.0 / 1024.0), &h16(1.0), &ulp(1)).is_ok());
        assert!(compare_arrays("h", &h16(-0.0), &h16(0.0), &ulp(1)).is_ok());
    }

    #[test]
    fn mismatched_shapes_or_dtypes_differ() {
        let a = floats(ScalarType::F32, &[1.0, 2.0]);
        assert!(compare_arrays("y", &a, &floats(ScalarType::F32, &[1.0]), &Tolerance::exact()).is_err());
        assert!(compare_arrays("y", &a, &floats(ScalarType::F64, &[1.0, 2.0]), &Tolerance::exact()).is_err());
    }

    #[test]
    fn generated_outputs_check_the_bound_first() {
        let check = OutputCheck {
            name: "y".into(),
            dtype: tilec_kernelgen::NUMERIC[0],
            abs_tol: 0.5,
            triton_abs_tol: 0.5,
            bound: 2.0,
            undefined_in_triton: None,
        };
        let want = floats(ScalarType::F32, &[1.0, 1.5]);
        assert_eq!(compare_generated(&check, &floats(ScalarType::F32, &[1.25, 1.5]), &want), Ok(()));
        let err = compare_generated(&check, &want, &floats(ScalarType::F32, &[1.0, 9.0])).unwrap_err();
        assert!(err.contains("generator bug"), "{err}");
    }
}
