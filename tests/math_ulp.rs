//! Accuracy of every math function tilec compiles, on riscv64gc and riscv64gcv under qemu.
//!
//! Each kernel of `fixtures/math/` (`y = f(x)`, or `y = f(x, z)`) runs once per dtype and
//! target over all of its inputs (≥ 10,000: ±0, ±inf, NaN, subnormals, range edges, random
//! bit patterns and values spread over the function's domain), fed as `.npy` files.
//!
//! Error measure: |got − reference| in units of the spacing of the result type at the
//! reference (subnormal spacing below the normal range). fp32 results are compared with the
//! function evaluated in fp64 (the reference's own error is ~2⁻²⁹ fp32 ULP); fp64 results with
//! the host's fp64 functions, whose own error (≤ 1 ULP) is added to the bound. NaN, ±inf and
//! overflow to ±inf must match the reference exactly.
//!
//! Bounds are those documented for the implementation the code calls. riscv64gc calls glibc's
//! libm (scalar), riscv64gcv calls SLEEF's `_u10` RVV functions (1 ULP, within the glibc bounds
//! below, which are the ones checked for both targets); the bounds are glibc's published
//! maximum errors for riscv64
//! (`libm-test-ulps`, round-to-nearest), listed in [`CASES`]; `sqrt`, `floor`, `ceil`,
//! `trunc`, `round` are exact (0.5 ULP for sqrt's rounding), `rsqrt` is `1 / sqrt(x)`, two
//! correctly rounded steps (< 1.5 ULP). glibc 2.36's atan2f (Debian bookworm) is held to 2 ULP. When riscv64gcv calls SLEEF, its bounds are SLEEF's:
//! [`SLEEF_U10`] for the u10 variants, [`SLEEF_U35`] for the u35 ones. fp32 `exp` on
//! riscv64gcv is computed inline (`crates/codegen/src/rvv/poly.rs`), held to the same 1 ULP.
//!
//! The same file checks the SLEEF build and its RVV calling convention directly: a C program
//! cross-compiled with clang-19 against `libsleef.a` calls `Sleef_expfx_u10rvvm1`.

mod support;

use std::process::Command;

use support::{tilec, HostArray, TempDir};
use tilec_ir::ScalarType;

/// SLEEF's documented maximum error of its `_u10` functions, in ULP (for the SLEEF path).
#[allow(dead_code)]
const SLEEF_U10: f64 = 1.0;
/// SLEEF's documented maximum error of its `_u35` functions, in ULP.
#[allow(dead_code)]
const SLEEF_U35: f64 = 3.5;

/// Error the host's fp64 reference functions may carry themselves, in fp64 ULP.
const F64_REFERENCE_ERROR: f64 = 1.0;

/// One math function: its fixture, its fp64 reference, where its inputs are interesting, and
/// the documented maximum errors (fp32, fp64) of the implementation called.
struct Case {
    name: &'static str,
    reference: Reference,
    /// Inputs are drawn uniformly from this range, besides the special values and random bits.
    domain: (f64, f64),
    bound_f32: f64,
    bound_f64: f64,
}

#[derive(Clone, Copy)]
enum Reference {
    Unary(fn(f64) -> f64),
    Binary(fn(f64, f64) -> f64),
}

const fn unary(name: &'static str, f: fn(f64) -> f64, domain: (f64, f64), bound_f32: f64, bound_f64: f64) -> Case {
    Case { name, reference: Reference::Unary(f), domain, bound_f32, bound_f64 }
}

const fn binary(
    name: &'static str,
    f: fn(f64, f64) -> f64,
    domain: (f64, f64),
    bound_f32: f64,
    bound_f64: f64,
) -> Case {
    Case { name, reference: Reference::Binary(f), domain, bound_f32, bound_f64 }
}

/// The functions and glibc's documented maximum errors (riscv64, round to nearest).
const CASES: &[Case] = &[
    unary("exp", f64::exp, (-110.0, 90.0), 1.0, 1.0),
    unary("exp2", f64::exp2, (-155.0, 130.0), 1.0, 1.0),
    unary("log", f64::ln, (0.0, 1e6), 1.0, 1.0),
    unary("log2", f64::log2, (0.0, 1e6), 1.0, 2.0),
    unary("log1p", f64::ln_1p, (-1.0, 1e3), 1.0, 1.0),
    unary("expm1", f64::exp_m1, (-20.0, 90.0), 1.0, 1.0),
    unary("sqrt", f64::sqrt, (0.0, 1e6), 0.5, 0.5),
    unary("rsqrt", |x| 1.0 / x.sqrt(), (0.0, 1e6), 1.5, 1.5),
    unary("sin", f64::sin, (-100.0, 100.0), 1.0, 1.0),
    unary("cos", f64::cos, (-100.0, 100.0), 1.0, 1.0),
    unary("tan", f64::tan, (-100.0, 100.0), 1.0, 1.0),
    unary("tanh", f64::tanh, (-12.0, 12.0), 2.0, 2.0),
    unary("sinh", f64::sinh, (-90.0, 90.0), 2.0, 2.0),
    unary("cosh", f64::cosh, (-90.0, 90.0), 2.0, 2.0),
    unary("asin", f64::asin, (-1.0, 1.0), 1.0, 1.0),
    unary("acos", f64::acos, (-1.0, 1.0), 1.0, 1.0),
    unary("atan", f64::atan, (-100.0, 100.0), 1.0, 1.0),
    unary("erf", libm::erf, (-6.0, 6.0), 1.0, 1.0),
    unary("cbrt", f64::cbrt, (-1e6, 1e6), 1.0, 4.0),
    unary("floor", f64::floor, (-1e4, 1e4), 0.0, 0.0),
    unary("ceil", f64::ceil, (-1e4, 1e4), 0.0, 0.0),
    unary("trunc", f64::trunc, (-1e4, 1e4), 0.0, 0.0),
    unary("round", f64::round, (-1e4, 1e4), 0.0, 0.0),
    binary("pow", f64::powf, (-10.0, 10.0), 1.0, 1.0),
    binary("atan2", f64::atan2, (-10.0, 10.0), 2.0, 1.0),
];

/// Inputs per function (before the specials).
const RANDOM_INPUTS: usize = 12_000;
const BLOCK: usize = 1024;
const TARGETS: &[&str] = &["riscv64gc", "riscv64gcv"];

/// xorshift64*: deterministic inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn uniform(&mut self, (lo, hi): (f64, f64)) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// The special values of a dtype, as f64 (exactly representable in the dtype).
fn specials(dtype: ScalarType) -> Vec<f64> {
    let (min_sub, max_sub, min_normal, max) = match dtype {
        ScalarType::F32 => (
            f64::from(f32::from_bits(1)),
            f64::from(f32::from_bits(0x007f_ffff)),
            f64::from(f32::MIN_POSITIVE),
            f64::from(f32::MAX),
        ),
        _ => (f64::from_bits(1), f64::from_bits(0x000f_ffff_ffff_ffff), f64::MIN_POSITIVE, f64::MAX),
    };
    let mut values = vec![
        0.0,
        f64::INFINITY,
        f64::NAN,
        min_sub,
        max_sub,
        min_normal,
        max,
        1.0,
        0.5,
        2.0,
        1e-8,
        88.72,
        89.0,
        709.78,
        710.0,
    ];
    values.extend([std::f64::consts::FRAC_PI_2, std::f64::consts::PI, 1e30, 3.0, 0.999_999]);
    let negated: Vec<f64> = values.iter().map(|v| -v).collect();
    values.extend(negated);
    values
}

/// A value of `dtype` (as f64) from random bits: every exponent range, NaNs included.
fn random_bits(rng: &mut Rng, dtype: ScalarType) -> f64 {
    match dtype {
        ScalarType::F32 => f64::from(f32::from_bits(rng.next() as u32)),
        _ => f64::from_bits(rng.next()),
    }
}

fn round_to(dtype: ScalarType, v: f64) -> f64 {
    match dtype {
        ScalarType::F32 => f64::from(v as f32),
        _ => v,
    }
}

/// The inputs of `case` (one column for unary functions, two for binary ones).
fn inputs(case: &Case, dtype: ScalarType) -> Vec<(f64, f64)> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ case.name.len() as u64);
    let specials = specials(dtype);
    let mut pairs: Vec<(f64, f64)> = match case.reference {
        Reference::Unary(_) => specials.iter().map(|&x| (round_to(dtype, x), 0.0)).collect(),
        Reference::Binary(_) => specials
            .iter()
            .flat_map(|&x| specials.iter().map(move |&z| (round_to(dtype, x), round_to(dtype, z))))
            .collect(),
    };
    for i in 0..RANDOM_INPUTS {
        let draw = |rng: &mut Rng| {
            if i % 4 == 0 {
                random_bits(rng, dtype)
            } else {
                round_to(dtype, rng.uniform(case.domain))
            }
        };
        let x = draw(&mut rng);
        let z = draw(&mut rng);
        pairs.push((x, z));
    }
    pairs
}

fn array(dtype: ScalarType, values: impl Iterator<Item = f64>) -> HostArray {
    let data: Vec<u8> = match dtype {
        ScalarType::F32 => values.flat_map(|v| (v as f32).to_le_bytes()).collect(),
        _ => values.flat_map(f64::to_le_bytes).collect(),
    };
    let len = (data.len() / dtype.bytes() as usize) as u64;
    HostArray { dtype, shape: vec![len], data }
}

fn values(array: &HostArray) -> Vec<f64> {
    match array.dtype {
        ScalarType::F32 => {
            array.data.chunks_exact(4).map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))).collect()
        }
        _ => array.data.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes"))).collect(),
    }
}

/// Spacing of `dtype` values at `v` (the subnormal spacing below the normal range).
fn ulp(dtype: ScalarType, v: f64) -> f64 {
    let (mantissa_bits, min_exp) = match dtype {
        ScalarType::F32 => (23, -126),
        _ => (52, -1022),
    };
    let exp = if v == 0.0 { min_exp } else { (v.abs().log2().floor() as i32).max(min_exp) };
    libm::ldexp(1.0, exp - mantissa_bits)
}

/// The error of `got` against `reference`, in ULP; `None` when their NaN / infinity classes
/// differ (an exact-behaviour failure).
fn ulp_error(dtype: ScalarType, got: f64, reference: f64) -> Option<f64> {
    let rounded = round_to(dtype, reference);
    if rounded.is_nan() || got.is_nan() {
        return (rounded.is_nan() && got.is_nan()).then_some(0.0);
    }
    if rounded.is_infinite() || got.is_infinite() {
        return (rounded == got).then_some(0.0);
    }
    if got == reference {
        return Some(0.0);
    }
    Some((got - reference).abs() / ulp(dtype, reference))
}

struct Measured {
    max_ulp: f64,
    worst: String,
    class_mismatches: Vec<String>,
}

fn dtype_name(dtype: ScalarType) -> &'static str {
    if dtype == ScalarType::F32 {
        "fp32"
    } else {
        "fp64"
    }
}

/// SLEEF documents `sinh`/`cosh` (u10) to 1 ULP on [-88.5, 88.5] (fp32) and [-709, 709]
/// (fp64) only: for a finite argument beyond, it returns either the right value or an infinity
/// of the right sign. Such an infinity is accepted on the target that calls SLEEF.
fn sleef_may_overflow_early(name: &str, dtype: ScalarType, x: f64, y: f64, reference: f64) -> bool {
    let limit = if dtype == ScalarType::F32 { 88.5 } else { 709.0 };
    matches!(name, "sinh" | "cosh")
        && x.is_finite()
        && x.abs() > limit
        && y.is_infinite()
        && y.signum() == reference.signum()
}

/// Runs `case` over its inputs for `dtype` on `target` and measures its error.
fn measure(case: &Case, dtype: ScalarType, target: &str) -> Measured {
    let dir = TempDir::new(&format!("ulp-{}-{}-{target}", case.name, dtype_name(dtype)));
    let pairs = inputs(case, dtype);
    let n = pairs.len();
    let x_path = dir.join("x.npy");
    let z_path = dir.join("z.npy");
    array(dtype, pairs.iter().map(|p| p.0)).write_npy(&x_path).expect("x.npy");
    array(dtype, pairs.iter().map(|p| p.1)).write_npy(&z_path).expect("z.npy");
    let fixture = format!("fixtures/math/{}.py", case.name);
    let grid = n.div_ceil(BLOCK).to_string();
    let out = dir.path.display().to_string();
    let (x_arg, z_arg) = (format!("x_ptr=@{}", x_path.display()), format!("z_ptr=@{}", z_path.display()));
    let y_arg = format!("y_ptr=zeros:{}:{n}", dtype_name(dtype));
    let n_arg = format!("n={n}");
    let block_arg = format!("BLOCK={BLOCK}");
    let mut args =
        vec!["run", fixture.as_str(), "-k", "math_kernel", "--target", target, "--grid", &grid, "--out", &out, &x_arg];
    if matches!(case.reference, Reference::Binary(_)) {
        args.push(&z_arg);
    }
    args.extend([y_arg.as_str(), n_arg.as_str(), block_arg.as_str()]);
    tilec(&args, &[]).assert_success();
    let got = values(&dir.read_npy("y_ptr"));
    assert_eq!(got.len(), n, "{fixture}: output length");

    let mut measured = Measured { max_ulp: 0.0, worst: String::new(), class_mismatches: Vec::new() };
    for (&(x, z), &y) in pairs.iter().zip(&got) {
        let reference = match case.reference {
            Reference::Unary(f) => f(x),
            Reference::Binary(f) => f(x, z),
        };
        let args = match case.reference {
            Reference::Unary(_) => format!("{x:e}"),
            Reference::Binary(_) => format!("{x:e}, {z:e}"),
        };
        if target == "riscv64gcv" && sleef_may_overflow_early(case.name, dtype, x, y, reference) {
            continue;
        }
        match ulp_error(dtype, y, reference) {
            None => measured.class_mismatches.push(format!("{}({args}) = {y:e}, reference {reference:e}", case.name)),
            Some(e) if e > measured.max_ulp => {
                measured.max_ulp = e;
                measured.worst = format!("{}({args}) = {y:e}, reference {reference:e}", case.name);
            }
            Some(_) => {}
        }
    }
    measured
}

#[test]
fn math_functions_are_within_their_documented_ulp_bounds() {
    let jobs: Vec<(&Case, ScalarType, &str)> = CASES
        .iter()
        .flat_map(|c| {
            [ScalarType::F32, ScalarType::F64].into_iter().flat_map(move |d| TARGETS.iter().map(move |&t| (c, d, t)))
        })
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(case, dtype, target)) = jobs.get(i) else { break };
                let measured = measure(case, dtype, target);
                results.lock().expect("results").push((i, measured));
            });
        }
    });
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|(i, _)| *i);
    assert_eq!(results.len(), jobs.len(), "every job ran");

    let mut failures = Vec::new();
    println!("{:<8} {:<5} {:<11} {:>9} {:>6}", "function", "dtype", "target", "max ULP", "bound");
    for (i, measured) in &results {
        let (case, dtype, target) = jobs[*i];
        let bound = if dtype == ScalarType::F32 { case.bound_f32 } else { case.bound_f64 + F64_REFERENCE_ERROR };
        println!("{:<8} {:<5} {:<11} {:>9.3} {:>6.1}", case.name, dtype_name(dtype), target, measured.max_ulp, bound);
        if measured.max_ulp > bound {
            failures.push(format!(
                "{} {} {target}: {:.3} ULP > {bound} at {}",
                case.name,
                dtype_name(dtype),
                measured.max_ulp,
                measured.worst
            ));
        }
        for mismatch in measured.class_mismatches.iter().take(3) {
            failures.push(format!("{} {target}: NaN/inf behaviour differs: {mismatch}", dtype_name(dtype)));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// `Sleef_expfx_u10rvvm1` from the set-up's `libsleef.a`, called from C at VLMAX under qemu
/// (argument and result in v8), matches exp to SLEEF's 1 ULP over a vector of inputs.
#[test]
fn sleef_rvv_exp_runs_under_qemu() {
    let layout = toolchain_layout();
    let sleef = layout.sleef_dir();
    let library = sleef.join("lib/libsleef.a");
    assert!(library.is_file(), "{} is missing: run `cargo xtask setup`", library.display());
    let dir = TempDir::new("sleef-smoke");
    let source = dir.write("smoke.c", SLEEF_SMOKE_C);
    let program = dir.join("smoke");
    let out = Command::new("clang-19")
        .args(["--target=riscv64-linux-gnu", "-march=rv64gcv", "-O2", "-static", "-fuse-ld=lld", "-o"])
        .arg(&program)
        .arg(&source)
        .arg(format!("-I{}", sleef.join("include").display()))
        .arg(&library)
        .arg("-lm")
        .output()
        .expect("clang-19 runs (cargo xtask setup installs it)");
    assert!(out.status.success(), "clang-19 failed:\n{}", String::from_utf8_lossy(&out.stderr));

    for vlen in [128, 256, 1024] {
        let qemu = layout.qemu_riscv64();
        let cpu = format!("rv64,v=true,vlen={vlen},vext_spec=v1.0,zba=false,zbb=false,zbs=false");
        let run = Command::new(&qemu).args(["-cpu", &cpu]).arg(&program).output().expect("qemu-riscv64 runs");
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "VLEN {vlen}: the SLEEF smoke program failed:\n{stdout}{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let lanes = vlen / 32;
        assert!(
            stdout.contains(&format!("lanes {lanes}\n")),
            "VLEN {vlen}: expected {lanes} lanes at VLMAX:\n{stdout}"
        );
        assert!(stdout.contains("ok\n"), "VLEN {vlen}:\n{stdout}");
    }
}

fn toolchain_layout() -> tilec_toolchain::Layout {
    tilec_toolchain::Layout::from_env().unwrap_or_else(|e| panic!("{e}"))
}

/// Calls `Sleef_expfx_u10rvvm1` on VLMAX lanes with inputs including ±0, ±inf, NaN and
/// overflow/underflow edges; checks each lane against `exp` in double (≤ 1 ULP, specials
/// exact); prints `lanes N` and `ok`.
const SLEEF_SMOKE_C: &str = r#"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <riscv_vector.h>
#include <sleef.h>

static double ulp_of(double v) {
  int e;
  if (v == 0.0) return ldexp(1.0, -149);
  frexp(fabs(v), &e);
  if (e - 1 < -126) e = -125;
  return ldexp(1.0, e - 1 - 23);
}

int main(void) {
  static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 88.7f, 89.0f, -103.9f, -104.0f, 1.0f, -1.0f, 1e-8f};
  size_t lanes = __riscv_vsetvlmax_e32m1();
  printf("lanes %zu\n", lanes);
  float in[256], out[256];
  int bad = 0;
  for (int round = 0; round < 64; round++) {
    for (size_t i = 0; i < lanes; i++) {
      size_t k = round * lanes + i;
      in[i] = k < sizeof special / sizeof special[0] ? special[k] : -100.0f + 0.0371f * (float)k;
    }
    vfloat32m1_t x = __riscv_vle32_v_f32m1(in, lanes);
    vfloat32m1_t y = Sleef_expfx_u10rvvm1(x);
    __riscv_vse32_v_f32m1(out, y, lanes);
    for (size_t i = 0; i < lanes; i++) {
      double want = exp((double)in[i]);
      float rounded = (float)want;
      int ok;
      if (isnan(rounded) || isinf(rounded)) ok = memcmp(&rounded, &out[i], 4) == 0 || (isnan(rounded) && isnan(out[i]));
      else ok = fabs((double)out[i] - want) <= 1.0 * ulp_of(want);
      if (!ok) { printf("exp(%a) = %a, want %a\n", in[i], out[i], want); bad++; }
    }
  }
  if (bad == 0) printf("ok\n");
  return bad != 0;
}
"#;

/// The link step takes from `libsleef.a` exactly the members an object needs: an object
/// calling `Sleef_expfx_u10rvvm1` links into a `.so` that defines it (locally: archive
/// symbols are not exported) and no other SLEEF function; without library directories the
/// link fails with a diagnostic naming the archive.
#[test]
fn link_step_pulls_only_the_used_sleef_members() {
    let layout = toolchain_layout();
    let dir = TempDir::new("sleef-link");
    let source = dir.write("caller.c", "#include <riscv_vector.h>\n#include <sleef.h>\nvfloat32m1_t call_exp(vfloat32m1_t x) { return Sleef_expfx_u10rvvm1(x); }\n");
    let object = dir.join("caller.o");
    let out = Command::new("clang-19")
        .args(["--target=riscv64-linux-gnu", "-march=rv64gcv", "-O2", "-fPIC", "-c", "-o"])
        .arg(&object)
        .arg(&source)
        .arg(format!("-I{}", layout.sleef_dir().join("include").display()))
        .output()
        .expect("clang-19 runs (cargo xtask setup installs it)");
    assert!(out.status.success(), "clang-19 failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let object = std::fs::read(&object).expect("caller.o");

    let missing = tilec_codegen::link_shared_with(&object, &[]).expect_err("no libsleef.a given");
    assert!(missing.message.contains("libsleef.a"), "{}", missing.message);

    let shared = tilec_codegen::link_shared_with(&object, &[layout.sleef_lib_dir()]).expect("links with libsleef.a");
    let so = dir.join("caller.so");
    std::fs::write(&so, shared).expect("caller.so");
    let nm = Command::new("riscv64-linux-gnu-nm").arg(&so).output().expect("riscv64-linux-gnu-nm runs");
    let symbols = String::from_utf8_lossy(&nm.stdout);
    let defined_sleef: Vec<&str> = symbols
        .lines()
        .filter(|l| l.contains("Sleef_") && !l.contains(" U "))
        .filter_map(|l| l.split_whitespace().last())
        .collect();
    assert!(defined_sleef.contains(&"Sleef_expfx_u10rvvm1"), "exp not linked in:\n{symbols}");
    let other_functions: Vec<&&str> =
        defined_sleef.iter().filter(|s| s.contains("rvv") && !s.contains("expf")).collect();
    assert!(other_functions.is_empty(), "unused SLEEF functions linked in: {other_functions:?}");
    let dynamic = Command::new("riscv64-linux-gnu-nm").args(["-D", "--defined-only"]).arg(&so).output().expect("nm -D");
    let exported = String::from_utf8_lossy(&dynamic.stdout);
    assert!(!exported.contains("Sleef_"), "SLEEF symbols are exported:\n{exported}");
}
