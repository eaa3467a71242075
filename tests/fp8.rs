//! The fp8 conversions on every target: all 256 patterns of each format converted to fp32,
//! and fp32 and fp16 values converted to each format, on the interpreter, riscv64gc and
//! riscv64gcv, bit for bit against `tilec_ir::fp8` (whose decoding is checked against
//! ml_dtypes in `crates/ir/tests/fp8.rs`). The down-conversion inputs are the edge cases of
//! rounding: every value of the format, every tie between neighbours and the fp32 values on
//! either side of it, subnormals, values beyond the largest finite one, ±inf, NaN, ±0, and
//! random bit patterns.

mod support;

use support::{run, workspace_root, HostArray, Number, TempDir};
use tilec_ir::ScalarType;

const TARGETS: [&str; 3] = ["interp", "riscv64gc", "riscv64gcv"];
const BLOCK: u64 = 128;

fn fp8_types() -> impl Iterator<Item = ScalarType> {
    ScalarType::ALL.into_iter().filter(|s| s.is_fp8())
}

fn fixture() -> std::path::PathBuf {
    workspace_root().join("fixtures/fp8_convert.py")
}

/// Runs `kernel` of the fixture with `src` (an argument text) into `dst` (zeros of `dst_type`).
fn convert(kernel: &str, target: &str, src: &str, dst_type: ScalarType, n: u64) -> HostArray {
    let args = vec![
        format!("src_ptr={src}"),
        format!("dst_ptr=zeros:{}:{n}", dst_type.name()),
        format!("N={n}"),
        format!("BLOCK={BLOCK}"),
    ];
    let grid = n.div_ceil(BLOCK).to_string();
    let out = run(&fixture(), kernel, &["--target", target, "--grid", &grid], &args)
        .unwrap_or_else(|e| panic!("{kernel} on {target}: {e}"));
    out.read_npy("dst_ptr")
}

#[test]
fn every_pattern_converts_up_exactly() {
    let dir = TempDir::new("fp8-patterns");
    let patterns = HostArray { dtype: ScalarType::U8, shape: vec![256], data: (0..=255u8).collect() };
    let path = dir.join("patterns.npy");
    patterns.write_npy(&path).unwrap();
    for fp8 in fp8_types() {
        let format = fp8.fp8_format().unwrap();
        for target in TARGETS {
            let src = format!("@{}:{}", path.display(), fp8.name());
            let got = convert("fp8_to_float", target, &src, ScalarType::F32, 256);
            for bits in 0..=255u8 {
                let want = format.decode(bits);
                let got = f32::from_bits(got.bits(u64::from(bits)) as u32);
                let same = got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
                assert!(same, "{} {bits:#04x} on {target}: got {got:e}, want {want:e}", fp8.name());
            }
        }
    }
}

/// The fp32 edge cases of rounding to `fp8`.
fn edge_cases(fp8: ScalarType) -> Vec<f32> {
    let format = fp8.fp8_format().unwrap();
    let mut magnitudes: Vec<f32> = (0..=0x7fu8).map(|c| format.decode(c)).filter(|x| x.is_finite()).collect();
    magnitudes.sort_by(f32::total_cmp);
    let mut values = magnitudes.clone();
    for pair in magnitudes.windows(2) {
        let tie = ((f64::from(pair[0]) + f64::from(pair[1])) / 2.0) as f32;
        values.extend([tie, f32::from_bits(tie.to_bits() + 1), f32::from_bits(tie.to_bits() - 1)]);
    }
    let largest = *magnitudes.last().unwrap();
    values.extend([largest * 1.03, largest * 1.5, largest * 4.0, f32::MAX, f32::INFINITY, f32::NAN]);
    values.extend([f32::from_bits(1), f32::MIN_POSITIVE, magnitudes[1] / 2.0, magnitudes[1] / 3.0]);
    let mut state = 0x5eed_u64 + u64::from(format.bias as u32);
    for _ in 0..400 {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        values.push(f32::from_bits((state >> 33) as u32));
        // near the format's range: a random mantissa at a random exponent around it
        let exponent = ((state >> 20) % 40) as i32 - 24;
        values.push((1.0 + (state >> 40) as f32 / (1u64 << 24) as f32) * 2f32.powi(exponent));
    }
    let negated: Vec<f32> = values.iter().map(|x| -x).collect();
    values.extend(negated);
    values
}

#[test]
fn edge_cases_convert_down_bit_for_bit() {
    let dir = TempDir::new("fp8-edges");
    for fp8 in fp8_types() {
        let format = fp8.fp8_format().unwrap();
        let values = edge_cases(fp8);
        for source in [ScalarType::F32, ScalarType::F16, ScalarType::BF16] {
            let n = values.len() as u64;
            let mut input = HostArray::zeros(source, &[n]).unwrap();
            for (i, x) in values.iter().enumerate() {
                input.set(i as u64, Number::Float(f64::from(*x)));
            }
            let path = dir.join(&format!("{}-{}.npy", fp8.name(), source.name()));
            input.write_npy(&path).unwrap();
            for target in TARGETS {
                let got = convert("fp8_from_float", target, &format!("@{}", path.display()), fp8, n);
                for i in 0..n {
                    let Number::Float(x) = input.get(i) else { unreachable!() };
                    let want = format.encode(x);
                    let got = got.bits(i) as u8;
                    assert_eq!(
                        got,
                        want,
                        "{} from {} {x:e} ({:#x}) on {target}: got {got:#04x}, want {want:#04x}",
                        fp8.name(),
                        source.name(),
                        input.bits(i)
                    );
                }
            }
        }
    }
}
