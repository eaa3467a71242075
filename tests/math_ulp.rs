//! Accuracy of every math function tilec compiles, on riscv64gc and riscv64gcv under qemu.
//!
//! Each kernel of `fixtures/math/` (`y = f(x)`, or `y = f(x, z)`) runs once per dtype and
//! target over all of its inputs (≥ 10,000: ±0, ±inf, NaN, subnormals, range edges, random
//! bit patterns and values spread over the function's domain), fed as `.npy` files.
//!
//! Error measure: |got − reference| in units of the spacing of the result type at the
//! reference (subnormal spacing below the normal range). fp32 results are compared with the
//! function evaluated in fp64 (the reference's own error is ~2⁻²⁹ fp32 ULP); fp64 results with
//! fp64 references, whose own error (≤ 1 ULP) is added to the bound. NaN, ±inf and overflow
//! to ±inf must match the reference exactly; exact functions must match bit for bit.
//!
//! Bounds are those documented for the implementation the code calls, listed in [`CASES`]:
//! riscv64gc calls glibc 2.36's libm (its `libm-test-ulps` for riscv64, round to nearest),
//! riscv64gcv SLEEF 3.9's `rvvm2` (or `rvvm1`) functions (`_u10`: 1 ULP, within the glibc bounds, which
//! are the ones checked for both targets; `sinpi`/`cospi`/`hypot` `_u05`, `erfc` `_u15`);
//! functions composed by the front end state their own, and the special functions composed
//! in fp64 (`erfinv`, `erfcx`, `cyl_bessel_i0`, `jn`, ...: no library defines them) are
//! measured on the interpreter too, against references computed independently (bisection
//! on erf/erfc, a trapezoidal integral, double-double recurrences). `sqrt`, `floor`, `ceil`, `trunc`,
//! `round`, `rint` and the bit-level functions are exact, `rsqrt` is `1 / sqrt(x)`, two
//! correctly rounded steps (< 1.5 ULP). fp32 `exp`, `erf` and `log` on riscv64gcv are
//! computed inline (`crates/codegen/src/rvv/poly.rs`, `rvv/erf.rs`, `rvv/log.rs`; `erf`
//! checked at several VLENs too), held to the same 1 ULP; so are fp32 `exp`/`exp2` and `erf` on riscv64gc
//! (`crates/codegen/src/kernel/poly.rs`, `kernel/erf.rs`). Where a measured maximum
//! exceeds glibc's list (which covers glibc's own test inputs) the case says so.
//!
//! The integer functions, conversions and directed roundings of `libdevice` are checked bit
//! for bit on the interpreter and both targets: against Rust's integer operations and
//! conversions, and (directed arithmetic) against C compiled for riscv64 with `fesetround`.
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
    /// `None`: the function has no fp64 variant (Triton declares it for fp32 only).
    bound_f64: Option<f64>,
    /// A result within this absolute error (fp32, fp64) of the reference also passes, where
    /// the implementation's bound is absolute rather than relative (see [`absolute_bound`]).
    absolute: Option<Absolute>,
    /// The result must be the reference rounded, bit for bit (signed zeros included).
    exact: bool,
    /// Measured on the interpreter too: the function is composed by the front end, so the
    /// interpreter runs the same composition (of its own correctly rounded fp64 math).
    interp: bool,
}

/// An absolute error bound (fp32, fp64), and where it applies.
#[derive(Clone, Copy)]
struct Absolute {
    f32: f64,
    f64: f64,
    region: Region,
}

/// Where an [`Absolute`] bound applies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Region {
    Everywhere,
    NegativeArguments,
    /// Where a Bessel function of order n oscillates: |x| > n.
    BeyondOrder,
}

#[derive(Clone, Copy)]
enum Reference {
    Unary(fn(f64) -> f64),
    Binary(fn(f64, f64) -> f64),
    /// A function whose fp32 result is not the fp64 one rounded (`nextafter`).
    BinaryPerType(fn(f32, f32) -> f32, fn(f64, f64) -> f64),
    /// `f(x, n)` with an `i32` second argument drawn from the range (fp32, fp64).
    IntSecond(fn(f64, i32) -> f64, (i32, i32), (i32, i32)),
    /// `f(x, n)` with an `i32` order `n` (a loop runs as many times as the largest order of
    /// a block needs): drawn from the range, besides the orders of [`FIXED_ORDERS`].
    Order(fn(f64, i32) -> f64, (i32, i32)),
}

/// The orders every special argument of a [`Reference::Order`] function is tried with: the
/// recurrences' edges, invalid negative orders, and one large enough to vanish (underflow
/// or overflow) for most arguments.
const FIXED_ORDERS: [i32; 6] = [0, 1, 2, -1, i32::MIN, 5000];

impl Reference {
    fn arity(self) -> usize {
        if matches!(self, Reference::Unary(_)) {
            1
        } else {
            2
        }
    }
}

const fn unary(name: &'static str, f: fn(f64) -> f64, domain: (f64, f64), bound_f32: f64, bound_f64: f64) -> Case {
    Case {
        name,
        reference: Reference::Unary(f),
        domain,
        bound_f32,
        bound_f64: Some(bound_f64),
        absolute: None,
        exact: false,
        interp: false,
    }
}

const fn unary_fp32(name: &'static str, f: fn(f64) -> f64, domain: (f64, f64), bound_f32: f64) -> Case {
    Case {
        name,
        reference: Reference::Unary(f),
        domain,
        bound_f32,
        bound_f64: None,
        absolute: None,
        exact: false,
        interp: false,
    }
}

const fn binary(
    name: &'static str,
    f: fn(f64, f64) -> f64,
    domain: (f64, f64),
    bound_f32: f64,
    bound_f64: f64,
) -> Case {
    Case {
        name,
        reference: Reference::Binary(f),
        domain,
        bound_f32,
        bound_f64: Some(bound_f64),
        absolute: None,
        exact: false,
        interp: false,
    }
}

const fn with_reference(case: Case, reference: Reference) -> Case {
    Case { reference, ..case }
}

const fn with_absolute(case: Case, f32: f64, f64: f64) -> Case {
    Case { absolute: Some(Absolute { f32, f64, region: Region::Everywhere }), ..case }
}

/// A Bessel function of integer order, held to an absolute bound where it oscillates.
const fn oscillating(case: Case, f32: f64, f64: f64) -> Case {
    Case { absolute: Some(Absolute { f32, f64, region: Region::BeyondOrder }), ..case }
}

/// A function composed by the front end: measured on the interpreter as well.
const fn composed(case: Case) -> Case {
    Case { interp: true, ..case }
}

/// A correctly rounded function (≤ 0.5 ULP), checked bit for bit.
const fn exact(case: Case) -> Case {
    Case { exact: true, bound_f32: 0.5, bound_f64: if case.bound_f64.is_some() { Some(0.5) } else { None }, ..case }
}

/// The functions and their documented maximum errors: glibc 2.36's (`libm-test-ulps` of
/// riscv64, round to nearest; 1 where it lists none), which cover SLEEF's `_u10` (1 ULP)
/// where both are called; exact functions have 0 (0.5 for correctly rounded ones).
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
    unary("tan", f64::tan, (-100.0, 100.0), 1.01, 1.0),
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
    // libdevice: inverse hyperbolic functions, exp10/log10, error and gamma functions.
    // Measured maxima above glibc's listed ones (its lists cover its own test inputs):
    // tanf 1.008, erfcf 2.011, lgammaf 3.52 (at x = −3.29).
    unary("acosh", acosh, (1.0, 1e4), 2.0, 2.0),
    unary("asinh", libm::asinh, (-1e4, 1e4), 2.0, 2.0),
    unary("atanh", libm::atanh, (-1.0, 1.0), 2.0, 2.0),
    // SLEEF documents 1.09 ULP for exp10.
    unary("exp10", exp10, (-46.0, 39.0), 1.09, 2.0),
    unary("log10", libm::log10, (0.0, 1e6), 2.0, 2.0),
    unary("erfc", libm::erfc, (-6.0, 30.0), 2.02, 2.0),
    // lgamma between its poles at negative arguments has no relative bound anywhere (its
    // zeros): SLEEF documents max(1 ULP, 1e-8) (fp32) and max(1 ULP, 1e-15) (fp64) there,
    // held for both targets (2e-15: the reflection-formula reference's own error added).
    Case {
        absolute: Some(Absolute { f32: 1e-8, f64: 2e-15, region: Region::NegativeArguments }),
        ..unary("lgamma", lgamma, (-20.0, 40.0), 3.6, 3.0)
    },
    unary("tgamma", libm::tgamma, (-20.0, 40.0), 8.0, 9.0),
    // sinpi/cospi: SLEEF's u05 functions on riscv64gcv, max(0.506 ULP, FLT_MIN/DBL_MIN);
    // riscv64gc composes glibc's fp64 sin and cos of an exactly reduced argument (fp32
    // rounded once from fp64; fp64 within glibc's 1 ULP plus the product's correction).
    with_absolute(
        unary("sinpi", tilec_interp::math::sinpi, (-1e3, 1e3), 0.506, 1.0),
        f32::MIN_POSITIVE as f64,
        f64::MIN_POSITIVE,
    ),
    with_absolute(
        unary("cospi", tilec_interp::math::cospi, (-1e3, 1e3), 0.506, 1.0),
        f32::MIN_POSITIVE as f64,
        f64::MIN_POSITIVE,
    ),
    exact(unary("rint", f64::round_ties_even, (-1e4, 1e4), 0.0, 0.0)),
    // glibc's Bessel functions (no SLEEF variant: scalar libm on both targets), with glibc's
    // listed ULP; near the functions' zeros their error is absolute (half an ULP of 1).
    with_absolute(unary("j0", libm::j0, (0.0, 100.0), 9.0, 3.0), 6e-8, 1.2e-16),
    with_absolute(unary("j1", libm::j1, (0.0, 100.0), 9.0, 4.0), 6e-8, 1.2e-16),
    with_absolute(unary("y0", libm::y0, (0.0, 100.0), 8.0, 2.0), 6e-8, 1.2e-16),
    with_absolute(unary("y1", libm::y1, (0.0, 100.0), 9.0, 3.0), 6e-8, 1.2e-16),
    binary("hypot", libm::hypot, (-1e3, 1e3), 1.0, 1.0),
    // Composed by the front end (see `builtins/libdevice.rs`): fp32 in fp64 and rounded once.
    // CUDA documents 5 ULP (fp64) for its normcdf; the reference's tail has its own ~2 ULP.
    unary("normcdf", normcdf, (-40.0, 10.0), 1.0, 5.0),
    unary("rcbrt", |x| 1.0 / libm::cbrt(x), (-1e6, 1e6), 1.0, 5.5),
    binary("rhypot", |x, y| 1.0 / libm::hypot(x, y), (-1e3, 1e3), 1.0, 2.0),
    binary("norm3d", |x, y| norm(&[x, y, 0.5 * x]), (-1e3, 1e3), 1.0, 2.0),
    binary("rnorm3d", |x, y| 1.0 / norm(&[x, y, 0.5 * x]), (-1e3, 1e3), 1.0, 2.5),
    with_reference(
        binary("powi", |x, _| x, (-10.0, 10.0), 1.0, 1.0),
        Reference::IntSecond(|x, n| libm::pow(x, f64::from(n)), (-40, 40), (-40, 40)),
    ),
    // Composed by the front end in fp64 (`builtins/special.rs`) from erf, erfc, exp, log
    // and the Bessel functions of orders 0 and 1; fp32 results are rounded once from fp64.
    composed(unary("erfinv", erfinv, (-1.0, 1.0), COMPOSED_F32, ERFINV_F64)),
    composed(unary("erfcinv", erfcinv, (0.0, 2.0), COMPOSED_F32, ERFINV_F64)),
    composed(unary("normcdfinv", normcdfinv, (0.0, 1.0), COMPOSED_F32, NORMCDFINV_F64)),
    composed(unary("erfcx", erfcx, (-26.0, 60.0), COMPOSED_F32, ERFCX_F64)),
    composed(unary("cyl_bessel_i0", |x| bessel_i(0, x), (-720.0, 720.0), COMPOSED_F32, BESSEL_I_F64)),
    composed(unary("cyl_bessel_i1", |x| bessel_i(1, x), (-720.0, 720.0), COMPOSED_F32, BESSEL_I_F64)),
    composed(oscillating(
        with_reference(binary("jn", |x, _| x, (-100.0, 100.0), COMPOSED_F32, JN_F64), Reference::Order(jn, (0, 40))),
        JN_ABSOLUTE_F32,
        JN_ABSOLUTE_F64,
    )),
    composed(oscillating(
        with_reference(binary("yn", |x, _| x, (0.0, 100.0), COMPOSED_F32, JN_F64), Reference::Order(yn, (0, 40))),
        JN_ABSOLUTE_F32,
        JN_ABSOLUTE_F64,
    )),
    // Exact functions.
    exact(with_reference(
        binary("ldexp", |x, _| x, (-10.0, 10.0), 0.0, 0.0),
        Reference::IntSecond(libm::ldexp, (-300, 300), (-2200, 2200)),
    )),
    exact(binary("fmod", libm::fmod, (-100.0, 100.0), 0.0, 0.0)),
    exact(binary("remainder", libm::remainder, (-100.0, 100.0), 0.0, 0.0)),
    exact(binary("fdim", libm::fdim, (-100.0, 100.0), 0.0, 0.0)),
    exact(binary("copysign", libm::copysign, (-100.0, 100.0), 0.0, 0.0)),
    exact(with_reference(
        binary("nextafter", libm::nextafter, (-2.0, 2.0), 0.0, 0.0),
        Reference::BinaryPerType(libm::nextafterf, libm::nextafter),
    )),
    exact(unary("logb", logb, (-1e6, 1e6), 0.0, 0.0)),
    exact(unary_fp32("saturatef", |x| if x > 0.0 { x.min(1.0) } else { 0.0 }, (-2.0, 2.0), 0.0)),
    // Correctly rounded: within half an ULP of the fp64 reference (whose own error is 2^-29
    // fp32 ULP).
    unary_fp32("rsqrt_rn", |x| 1.0 / x.sqrt(), (0.0, 1e6), 0.5 + 1e-7),
];

/// Bounds of the functions composed in fp64 (`builtins/special.rs`): fp32 results are the
/// fp64 value rounded once (measured 0.500 for all eight; the fp64 value's own error adds
/// far less than 10⁻³ ULP). fp64: the measured maxima over this test's inputs plus 1 ULP,
/// the same on every target (the compositions' own roundings dominate the erf, erfc, exp
/// and log they call, SLEEF's on riscv64gcv).
const COMPOSED_F32: f64 = 0.501;
/// erfinv/erfcinv: measured 2 (three Newton or Halley steps on erf/erfc converge; what is
/// left is erf's and erfc's own error divided by their slope).
const ERFINV_F64: f64 = 3.0;
/// normcdfinv: measured 4 (erfcinv's error and the product by √2).
const NORMCDFINV_F64: f64 = 5.0;
/// erfcx: measured 3 (exp(x²)·erfc(x) below 4: the two functions' errors and the product).
const ERFCX_F64: f64 = 4.0;
/// cyl_bessel_i0/i1: measured 4 (40-term series below 20; eˣ, √(2πx) and a 30-term series
/// above).
const BESSEL_I_F64: f64 = 5.0;
/// jn/yn: measured 15 (jn) and 17 (yn) with orders up to 40: glibc's recurrences in fp64
/// add about one rounding per order (the references run them in double-double).
const JN_F64: f64 = 18.0;
/// jn/yn where the functions oscillate (x > n), where their error is absolute: fp32 half an
/// ULP of 1 (as j0/j1); fp64 a few units of 10⁻¹⁶ times the oscillation's amplitude.
const JN_ABSOLUTE_F32: f64 = 6e-8;
const JN_ABSOLUTE_F64: f64 = 1e-14;

/// The f64 whose `f` is nearest `target`, for `f` non-decreasing over all f64 (by
/// bisection over the f64 values in order).
fn solve_increasing(f: impl Fn(f64) -> f64, target: f64) -> f64 {
    // Ordered integers: −inf … −0 as −(bits), +0 … +inf as bits.
    let value = |k: i128| if k < 0 { -f64::from_bits(k.unsigned_abs() as u64) } else { f64::from_bits(k as u64) };
    let inf = i128::from(f64::INFINITY.to_bits());
    let (mut lo, mut hi) = (-inf, inf);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if f(value(mid)) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let (a, b) = (value(lo), value(hi));
    if (f(a) - target).abs() < (f(b) - target).abs() {
        a
    } else {
        b
    }
}

/// The y with erfc(y) = c for c in [0, 2], solved on erf(y) = 1 − c (exact) where erfc is
/// near 1, and on erfc itself in the tails (where a relative error of c moves y little).
fn erfcinv(c: f64) -> f64 {
    if c.is_nan() || !(0.0..=2.0).contains(&c) {
        return f64::NAN;
    }
    if c == 0.0 {
        return f64::INFINITY;
    }
    if c == 2.0 {
        return f64::NEG_INFINITY;
    }
    if (0.5..=1.5).contains(&c) {
        return solve_increasing(libm::erf, 1.0 - c);
    }
    // Below the normal range erfc's results lose precision: there −ln erfc(y) = y² −
    // ln erfcx(y) is solved instead.
    let tail = |c: f64| {
        if c < f64::MIN_POSITIVE {
            solve_increasing(|y| if y < 1.0 { y - 1.0 } else { y * y - erfcx(y).ln() }, -c.ln())
        } else {
            solve_increasing(|y| -libm::erfc(y), -c)
        }
    };
    if c < 1.0 {
        tail(c)
    } else {
        -tail(2.0 - c)
    }
}

fn erfinv(x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() || a > 1.0 {
        return f64::NAN;
    }
    let y = if a < 0.5 { solve_increasing(libm::erf, a) } else { erfcinv(1.0 - a) };
    y.copysign(x)
}

fn normcdfinv(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    -std::f64::consts::SQRT_2 * erfcinv(2.0 * p)
}

/// exp(x²)·erfc(x): the product with x² carried in two doubles below 5, the continued
/// fraction of erfc (400 levels, converged far beyond fp64 there) from 5 on.
fn erfcx(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 5.0 {
        let hi = x * x;
        let lo = x.mul_add(x, -hi);
        let p = libm::exp(hi) * libm::erfc(x);
        return if p.is_infinite() { p } else { p.mul_add(lo, p) };
    }
    let mut tail = x;
    for k in (1..=400).rev() {
        tail = x + f64::from(k) / 2.0 / tail;
    }
    1.0 / std::f64::consts::PI.sqrt() / tail
}

/// Iᵥ(x) for ν = 0, 1: the power series below 2 (few positive terms, compensated sum);
/// above, eˣ/π·∫₀^π exp(−2x·sin²(θ/2))·cos(νθ) dθ by the trapezoidal rule, which converges
/// geometrically for this periodic integrand (x + 80 intervals are far more than enough).
fn bessel_i(order: i32, x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() {
        return a;
    }
    if a > 720.0 {
        // eˣ/√(2πx) overflows from 713.99 on.
        return f64::INFINITY.copysign(if order == 1 { x } else { 1.0 });
    }
    let v = if a < 2.0 {
        let t = a * a / 4.0;
        let mut term = if order == 0 { 1.0 } else { a / 2.0 };
        let (mut sum, mut carry) = (0.0f64, 0.0f64);
        for k in 1..40 {
            let y = term - carry;
            let s = sum + y;
            carry = (s - sum) - y;
            sum = s;
            term *= t / (f64::from(k) * f64::from(k + order));
        }
        sum
    } else {
        let n = a.ceil() as usize + 80;
        let (mut sum, mut carry) = (0.0f64, 0.0f64);
        for j in 0..=n {
            let theta = std::f64::consts::PI * j as f64 / n as f64;
            let s = (theta / 2.0).sin();
            let mut term = (-2.0 * a * s * s).exp() * (f64::from(order) * theta).cos();
            if j == 0 || j == n {
                term /= 2.0;
            }
            let y = term - carry;
            let t = sum + y;
            carry = (t - sum) - y;
            sum = t;
        }
        let h = libm::exp(a / 2.0);
        h * (h * (sum / n as f64))
    };
    if order == 1 {
        v.copysign(x)
    } else {
        v
    }
}

/// A double-double: the unevaluated sum hi + lo, for references carried past fp64.
#[derive(Clone, Copy)]
struct Dd(f64, f64);

impl Dd {
    fn new(hi: f64, lo: f64) -> Dd {
        let s = hi + lo;
        Dd(s, lo - (s - hi))
    }

    fn mul(self, o: Dd) -> Dd {
        let p = self.0 * o.0;
        Dd::new(p, self.0.mul_add(o.0, -p) + self.0 * o.1 + self.1 * o.0)
    }

    fn sub(self, o: Dd) -> Dd {
        let s = self.0 - o.0;
        let v = s - self.0;
        let e = (self.0 - (s - v)) + (-o.0 - v);
        Dd::new(s, e + self.1 - o.1)
    }

    fn scale(self, k: f64) -> Dd {
        Dd(self.0 * k, self.1 * k)
    }

    /// 2k/x to double-double precision.
    fn ratio(k: i32, x: f64) -> Dd {
        let num = 2.0 * f64::from(k);
        let q = num / x;
        if q.is_infinite() {
            return Dd(q, 0.0);
        }
        Dd::new(q, (-q).mul_add(x, num) / x)
    }

    fn value(self) -> f64 {
        self.0 + self.1
    }
}

/// The recurrence c_{k+1} = (2k/x)·c_k − c_{k−1} for k = 1 .. n − 1 from (c₀, c₁) in
/// double-double (stopped where it overflows): forward, Yₙ always, Jₙ where x > n.
fn forward_recurrence(n: i32, x: f64, c0: f64, c1: f64) -> f64 {
    let (mut previous, mut current) = (Dd(c0, 0.0), Dd(c1, 0.0));
    for k in 1..n {
        let ratio = Dd::ratio(k, x);
        let estimate = ratio.0 * current.0 - previous.0;
        if !estimate.is_finite() {
            return estimate;
        }
        let next = ratio.mul(current).sub(previous);
        previous = current;
        current = next;
    }
    current.value()
}

/// Jₙ(x) (musl's `j0`/`j1` at orders 0 and 1), NaN for negative orders (CUDA's `jn`;
/// glibc's reflects them). From order 2 the recurrences run in double-double: forward where
/// |x| > n; else Miller's backward recurrence from order n + 10√n + 40, normalized by the
/// larger of J₀ and J₁ (musl's own `jn`, the same algorithms in fp64, is off by up to 16 ULP
/// against a 30-digit evaluation where x < n). Below 2^−400, (x/2)ⁿ/n! (musl's).
fn jn(x: f64, n: i32) -> f64 {
    let a = x.abs();
    if n < 0 || x.is_nan() {
        return f64::NAN;
    }
    if n < 2 || a < 2f64.powi(-400) || a.is_infinite() || a == 0.0 {
        return libm::jn(n, x);
    }
    let sign = if n % 2 == 1 && x.is_sign_negative() { -1.0 } else { 1.0 };
    let (z, w) = (libm::j0(a), libm::j1(a));
    if a > f64::from(n) {
        return sign * forward_recurrence(n, a, z, w);
    }
    let top = n + 40 + (10.0 * f64::from(n).sqrt()) as i32;
    let (mut after, mut current, mut stored, mut rescales) = (Dd(0.0, 0.0), Dd(1.0, 0.0), Dd(0.0, 0.0), 0);
    for k in (1..=top).rev() {
        let next = Dd::ratio(k, a).mul(current).sub(after);
        after = current;
        current = next;
        if k - 1 == n {
            stored = current;
        }
        if current.0.abs() > 2f64.powi(600) {
            current = current.scale(2f64.powi(-600));
            after = after.scale(2f64.powi(-600));
            if k - 1 <= n {
                rescales += 1;
            }
        }
    }
    let r = if z.abs() >= w.abs() { stored.value() / current.value() * z } else { stored.value() / after.value() * w };
    sign * libm::ldexp(r, -600 * rescales)
}

/// Yₙ(x) (musl's `y0`/`y1` at orders 0 and 1, and below 0 or at 0 and +inf), NaN for
/// negative orders (CUDA's `yn`); from order 2 the forward recurrence in double-double
/// (musl's own `yn` is off by up to 9 ULP against a 30-digit evaluation).
fn yn(x: f64, n: i32) -> f64 {
    if n < 0 {
        return f64::NAN;
    }
    if n < 2 || x.is_nan() || x <= 0.0 || x.is_infinite() {
        return libm::yn(n, x);
    }
    forward_recurrence(n, x, libm::y0(x), libm::y1(x))
}

/// acosh, NaN below 1 (musl's, in `libm`, answers for |x| instead).
fn acosh(x: f64) -> f64 {
    if x < 1.0 {
        f64::NAN
    } else {
        libm::acosh(x)
    }
}

/// 10^x as e^(x·ln 10) with x·ln 10 in two doubles (`libm`'s `exp10` is off by up to 4 ULP).
fn exp10(x: f64) -> f64 {
    let hi = x * std::f64::consts::LN_10;
    if !hi.is_finite() {
        return hi.exp();
    }
    let lo = x.mul_add(std::f64::consts::LN_10, -hi) + x * -2.170_756_223_382_249_4e-16;
    let e = hi.exp();
    if e == 0.0 || e.is_infinite() {
        return e;
    }
    e + e * lo
}

/// log|Γ(x)|: `libm`'s for x > 0; for x < 0 the reflection log(π/|sin πx|) − lgamma(1 − x),
/// with 1 − x in two doubles and its low part applied through the digamma function (musl's
/// own negative branch is off by several ULP near −6).
fn lgamma(x: f64) -> f64 {
    if x.is_nan() || x >= -1e-30 || x.is_infinite() || x == x.floor() {
        return libm::lgamma(x);
    }
    let s = 1.0 - x;
    let e = (1.0 - s) - x;
    let reflected = libm::lgamma(s) + e * digamma(s);
    (std::f64::consts::PI / tilec_interp::math::sinpi(x).abs()).ln() - reflected
}

/// ψ(s) for s > 0 to about 1e-10: shifted up, then the asymptotic series.
fn digamma(mut s: f64) -> f64 {
    let mut acc = 0.0;
    while s < 10.0 {
        acc -= 1.0 / s;
        s += 1.0;
    }
    let r = 1.0 / (s * s);
    acc + s.ln() - 0.5 / s - r * (1.0 / 12.0 - r * (1.0 / 120.0 - r / 252.0))
}

/// Φ(x), the standard normal distribution function: erfc(z)/2 at z = −x/√2 carried in two
/// doubles (its low part applied through erfc′) for x ≥ −3; for x < −3, φ(x)·R(|x|) with
/// Mills' ratio R from its continued fraction and φ's exponent split exactly.
fn normcdf(x: f64) -> f64 {
    const SQRT1_2_LO: f64 = -4.833_646_656_726_457e-17;
    if x.is_nan() || x >= -3.0 {
        let hi = -x * std::f64::consts::FRAC_1_SQRT_2;
        if !hi.is_finite() {
            return 0.5 * libm::erfc(hi);
        }
        let lo = (-x).mul_add(std::f64::consts::FRAC_1_SQRT_2, -hi) + -x * SQRT1_2_LO;
        let slope = -std::f64::consts::FRAC_2_SQRT_PI * (-hi * hi).exp();
        return 0.5 * (libm::erfc(hi) + lo * slope);
    }
    if x == f64::NEG_INFINITY {
        return 0.0;
    }
    let t = -x;
    // R(t) = 1/(t + 1/(t + 2/(t + 3/(t + ...)))), evaluated from a deep tail.
    let mut tail = t;
    for k in (1..=400).rev() {
        tail = t + f64::from(k) / tail;
    }
    let ratio = 1.0 / tail;
    // exp(−t²/2) with t = hi + lo, hi having 26 significant bits (hi² exact).
    let hi = f64::from_bits(t.to_bits() & !((1u64 << 27) - 1));
    let lo = t - hi;
    let density = (-0.5 * hi * hi).exp() * (-(hi * lo + 0.5 * lo * lo)).exp() / (2.0 * std::f64::consts::PI).sqrt();
    density * ratio
}

/// √(Σ xᵢ²) with the arguments scaled by a power of two and the squares and their sum
/// carried in two doubles; an infinite argument gives +inf (even beside a NaN).
fn norm(xs: &[f64]) -> f64 {
    if xs.iter().any(|x| x.is_infinite()) {
        return f64::INFINITY;
    }
    if xs.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    let m = xs.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if m == 0.0 {
        return 0.0;
    }
    let k = libm::ilogb(m);
    let (mut hi, mut lo) = (0.0f64, 0.0f64);
    for &x in xs {
        let s = libm::ldexp(x, -k);
        let sq = s * s;
        let sq_lo = s.mul_add(s, -sq);
        let sum = hi + sq;
        let bb = sum - hi;
        lo += (hi - (sum - bb)) + (sq - bb) + sq_lo;
        hi = sum;
    }
    let root = hi.sqrt();
    let root = root + (hi - root * root + lo) / (2.0 * root);
    libm::ldexp(root, k)
}

/// C's `logb`: the exponent of |x| as a float (−inf at 0, +inf at ±inf).
fn logb(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else if x.is_infinite() {
        f64::INFINITY
    } else {
        f64::from(libm::ilogb(x))
    }
}

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

/// The inputs of `case` (one column for unary functions, two for binary ones; the second
/// holds integers for [`Reference::IntSecond`] and [`Reference::Order`]).
fn inputs(case: &Case, dtype: ScalarType) -> Vec<(f64, f64)> {
    let seed =
        case.name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed);
    let specials = specials(dtype);
    let ints = match case.reference {
        Reference::IntSecond(_, f32_range, f64_range) => {
            Some(if dtype == ScalarType::F32 { f32_range } else { f64_range })
        }
        Reference::Order(_, range) => Some(range),
        _ => None,
    };
    let fixed_ints: Vec<i32> = match (case.reference, ints) {
        (Reference::Order(..), _) => FIXED_ORDERS.to_vec(),
        (_, Some((lo, hi))) => vec![0, 1, -1, lo, hi, lo - 1, hi + 1, i32::MIN, i32::MAX],
        _ => Vec::new(),
    };
    let mut pairs: Vec<(f64, f64)> = match (case.reference.arity(), ints) {
        (1, _) => specials.iter().map(|&x| (round_to(dtype, x), 0.0)).collect(),
        (_, Some(_)) => {
            specials.iter().flat_map(|&x| fixed_ints.iter().map(move |&n| (round_to(dtype, x), f64::from(n)))).collect()
        }
        _ => specials
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
        let z = match ints {
            Some((lo, hi)) => rng.uniform((f64::from(lo), f64::from(hi) + 1.0)).floor(),
            None => draw(&mut rng),
        };
        pairs.push((x, z));
    }
    pairs
}

fn array(dtype: ScalarType, values: impl Iterator<Item = f64>) -> HostArray {
    let data: Vec<u8> = match dtype {
        ScalarType::F32 => values.flat_map(|v| (v as f32).to_le_bytes()).collect(),
        ScalarType::I32 => values.flat_map(|v| (v as i32).to_le_bytes()).collect(),
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
/// (fp64) only, and `lgamma` below 4e36 (fp32) and 2e305 (fp64): for a finite argument
/// beyond, it returns either the right value or an infinity of the right sign. Such an
/// infinity is accepted on the target that calls SLEEF.
fn sleef_may_overflow_early(name: &str, dtype: ScalarType, x: f64, y: f64, reference: f64) -> bool {
    let f32 = dtype == ScalarType::F32;
    let limit = match name {
        "sinh" | "cosh" if f32 => 88.5,
        "sinh" | "cosh" => 709.0,
        "lgamma" if f32 => 4e36,
        "lgamma" => 2e305,
        _ => return false,
    };
    x.is_finite() && x.abs() > limit && y.is_infinite() && y.signum() == reference.signum()
}

/// The absolute error a result of `case` at `(x, z)` may have instead of its ULP bound.
fn absolute_bound(case: &Case, dtype: ScalarType, x: f64, z: f64) -> Option<f64> {
    let a = case.absolute?;
    let applies = match a.region {
        Region::Everywhere => true,
        Region::NegativeArguments => x < 0.0,
        Region::BeyondOrder => x.abs() > z,
    };
    applies.then_some(if dtype == ScalarType::F32 { a.f32 } else { a.f64 })
}

/// Runs `case` over its inputs for `dtype` on `target` and measures its error.
fn measure(case: &Case, dtype: ScalarType, target: &str) -> Measured {
    let dir = TempDir::new(&format!("ulp-{}-{}-{target}", case.name, dtype_name(dtype)));
    let pairs = inputs(case, dtype);
    let n = pairs.len();
    let x_path = dir.join("x.npy");
    let z_path = dir.join("z.npy");
    array(dtype, pairs.iter().map(|p| p.0)).write_npy(&x_path).expect("x.npy");
    let z_dtype =
        if matches!(case.reference, Reference::IntSecond(..) | Reference::Order(..)) { ScalarType::I32 } else { dtype };
    array(z_dtype, pairs.iter().map(|p| p.1)).write_npy(&z_path).expect("z.npy");
    let fixture = format!("fixtures/math/{}.py", case.name);
    let grid = n.div_ceil(BLOCK).to_string();
    let out = dir.path.display().to_string();
    let (x_arg, z_arg) = (format!("x_ptr=@{}", x_path.display()), format!("z_ptr=@{}", z_path.display()));
    let y_arg = format!("y_ptr=zeros:{}:{n}", dtype_name(dtype));
    let n_arg = format!("n={n}");
    let block_arg = format!("BLOCK={BLOCK}");
    let mut args =
        vec!["run", fixture.as_str(), "-k", "math_kernel", "--target", target, "--grid", &grid, "--out", &out, &x_arg];
    if case.reference.arity() == 2 {
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
            Reference::BinaryPerType(f32_fn, _) if dtype == ScalarType::F32 => f64::from(f32_fn(x as f32, z as f32)),
            Reference::BinaryPerType(_, f64_fn) => f64_fn(x, z),
            Reference::IntSecond(f, ..) | Reference::Order(f, _) => f(x, z as i32),
        };
        let args = match case.reference.arity() {
            1 => format!("{x:e}"),
            _ => format!("{x:e}, {z:e}"),
        };
        if target == "riscv64gcv" && sleef_may_overflow_early(case.name, dtype, x, y, reference) {
            continue;
        }
        if let Some(tolerance) = absolute_bound(case, dtype, x, z) {
            if (y - reference).abs() <= tolerance {
                continue;
            }
        }
        if case.exact && y.to_bits() != round_to(dtype, reference).to_bits() && !(y.is_nan() && reference.is_nan()) {
            measured.class_mismatches.push(format!("{}({args}) = {y:e}, exactly {reference:e}", case.name));
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
            let dtypes: &[ScalarType] =
                if c.bound_f64.is_some() { &[ScalarType::F32, ScalarType::F64] } else { &[ScalarType::F32] };
            let targets: &[&str] = if c.interp { EXACT_TARGETS } else { TARGETS };
            dtypes.iter().flat_map(move |&d| targets.iter().map(move |&t| (c, d, t)))
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
    println!("{:<10} {:<5} {:<11} {:>9} {:>6}", "function", "dtype", "target", "max ULP", "bound");
    for (i, measured) in &results {
        let (case, dtype, target) = jobs[*i];
        let bound = match case.bound_f64 {
            Some(b) if dtype == ScalarType::F64 => b + F64_REFERENCE_ERROR,
            _ => case.bound_f32,
        };
        println!("{:<10} {:<5} {:<11} {:>9.3} {:>6.3}", case.name, dtype_name(dtype), target, measured.max_ulp, bound);
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

/// fp32 `erf` on riscv64gcv is inline (`crates/codegen/src/rvv/erf.rs`): a fast path for
/// strips whose lanes all have |x| < 1, three polynomials merged lane by lane otherwise, run
/// in two halves when the nest has no registers to spare. Its results must not depend on
/// how lanes fall into strips, so it runs at VLEN 128, 256 and 512 over dense inputs of its
/// three regions (in order, and interleaved so that strips mix them), their edges, the
/// specials and random bit patterns: within 1 ULP of fp64 `erf`, the same bits at every VLEN.
#[test]
fn inline_erf_is_within_one_ulp_and_the_same_at_every_vlen() {
    let mut rng = Rng(0x5eed_e4f0);
    let mut xs: Vec<f64> = (0..12_000).map(|i| -4.5 + 9.0 * f64::from(i) / 11_999.0).collect();
    xs.extend((0..4_000).map(|i| if i % 2 == 0 { rng.uniform((-1.0, 1.0)) } else { rng.uniform((-6.0, 6.0)) }));
    for edge in [1.0f32, 2.0, 4.0] {
        let bits = edge.to_bits();
        for b in bits - 40..bits + 40 {
            let v = f64::from(f32::from_bits(b));
            xs.extend([v, -v]);
        }
    }
    xs.extend(specials(ScalarType::F32));
    xs.extend((0..2_000).map(|_| random_bits(&mut rng, ScalarType::F32)));
    let xs: Vec<f64> = xs.into_iter().map(|x| round_to(ScalarType::F32, x)).collect();
    let n = xs.len();
    let dir = TempDir::new("erf-vlen");
    let x_path = dir.join("x.npy");
    array(ScalarType::F32, xs.iter().copied()).write_npy(&x_path).expect("x.npy");
    let x_arg = format!("x_ptr=@{}", x_path.display());
    let (y_arg, n_arg, block_arg) = (format!("y_ptr=zeros:fp32:{n}"), format!("n={n}"), format!("BLOCK={BLOCK}"));
    let grid = n.div_ceil(BLOCK).to_string();
    let mut first: Option<HostArray> = None;
    for vlen in ["128", "256", "512"] {
        let out_dir = dir.join(&format!("vlen{vlen}"));
        let out = out_dir.display().to_string();
        let args = [
            "run",
            "fixtures/math/erf.py",
            "-k",
            "math_kernel",
            "--target",
            "riscv64gcv",
            "--vlen",
            vlen,
            "--grid",
            &grid,
            "--out",
            &out,
            &x_arg,
            &y_arg,
            &n_arg,
            &block_arg,
        ];
        tilec(&args, &[]).assert_success();
        let got = HostArray::read_npy(&out_dir.join("y_ptr.npy")).expect("y_ptr.npy");
        let mut worst = (0.0, 0.0);
        for (&x, y) in xs.iter().zip(values(&got)) {
            let reference = libm::erf(x);
            let error = ulp_error(ScalarType::F32, y, reference)
                .unwrap_or_else(|| panic!("VLEN {vlen}: erf({x:e}) = {y:e}, reference {reference:e}"));
            assert!(
                y != 0.0 || y.is_sign_negative() == x.is_sign_negative(),
                "VLEN {vlen}: erf({x:e}) = {y:e}, the sign of zero differs"
            );
            if error > worst.0 {
                worst = (error, x);
            }
        }
        println!("VLEN {vlen}: max {:.3} ULP at {:e}", worst.0, worst.1);
        assert!(worst.0 <= 1.0, "VLEN {vlen}: erf({:e}) is {:.3} ULP off", worst.1, worst.0);
        match &first {
            None => first = Some(got),
            Some(f) => assert!(f.data == got.data, "VLEN {vlen}: erf's bits differ from VLEN 128's"),
        }
    }
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

// ----- Bit-exact functions: integers, conversions, directed roundings -----

/// The targets the bit-exact functions run on (the interpreter included: it must agree too).
const EXACT_TARGETS: &[&str] = &["interp", "riscv64gc", "riscv64gcv"];

/// Values of an integer type (as bits): edges, powers of two and random bits.
fn int_inputs(rng: &mut Rng, width: u32, n: usize) -> Vec<u64> {
    let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    let mut v: Vec<u64> = vec![0, 1, mask, mask >> 1, (mask >> 1) + 1, 2, 3, 0xff, 0x80, 0xff_ffff, 0x80_0000];
    v.extend((0..width).map(|k| 1u64 << k));
    while v.len() < n {
        let r = rng.next();
        // Some small magnitudes of either sign, the rest random bits.
        v.push(if v.len().is_multiple_of(3) { (r % 2001).wrapping_sub(1000) & mask } else { r & mask });
    }
    v.truncate(n);
    v
}

/// Float inputs (as f64) of `dtype`: the specials, values near the rounding boundaries of
/// integer conversions, and random bits.
fn float_inputs(rng: &mut Rng, dtype: ScalarType, n: usize) -> Vec<f64> {
    let mut v: Vec<f64> = specials(dtype).into_iter().map(|x| round_to(dtype, x)).collect();
    for edge in [2f64.powi(31), 2f64.powi(32), 2f64.powi(63), 2f64.powi(64), 2f64.powi(24), 2f64.powi(53)] {
        for x in [edge, -edge, edge - 0.5, edge + 1.0, -edge - 1.0] {
            v.push(round_to(dtype, x));
        }
    }
    v.extend([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.0].map(|x| round_to(dtype, x)));
    while v.len() < n {
        let x = match v.len() % 3 {
            0 => random_bits(rng, dtype),
            1 => round_to(dtype, rng.uniform((-1e3, 1e3))),
            _ => round_to(dtype, rng.uniform((-5e9, 5e9))),
        };
        v.push(x);
    }
    v.truncate(n);
    v
}

fn int_array(dtype: ScalarType, bits: &[u64]) -> HostArray {
    let bytes = dtype.bytes() as usize;
    let data = bits.iter().flat_map(|b| b.to_le_bytes()[..bytes].to_vec()).collect();
    HostArray { dtype, shape: vec![bits.len() as u64], data }
}

/// The lanes of an output array as bits.
fn lanes(array: &HostArray) -> Vec<u64> {
    let bytes = array.dtype.bytes() as usize;
    array
        .data
        .chunks_exact(bytes)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..bytes].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

/// Runs `fixture`'s kernel on `target` with `inputs` (name, array) and zeroed `outputs`
/// (name, dtype, lanes), and returns the outputs' lanes.
fn run_exact(
    fixture: &str,
    kernel: &str,
    target: &str,
    inputs: &[(&str, HostArray)],
    outputs: &[(&str, ScalarType, usize)],
    n: usize,
) -> Vec<Vec<u64>> {
    let dir = TempDir::new(&format!("exact-{kernel}-{target}"));
    let mut args: Vec<String> = vec![
        "run".into(),
        format!("fixtures/math/{fixture}.py"),
        "-k".into(),
        kernel.into(),
        "--target".into(),
        target.into(),
        "--grid".into(),
        n.div_ceil(256).to_string(),
        "--out".into(),
        dir.path.display().to_string(),
        format!("n={n}"),
        "BLOCK=256".into(),
    ];
    for (name, array) in inputs {
        let path = dir.join(&format!("{name}.npy"));
        array.write_npy(&path).expect("input .npy");
        args.push(format!("{name}=@{}", path.display()));
    }
    for (name, dtype, len) in outputs {
        args.push(format!("{name}=zeros:{}:{len}", dtype.name()));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    tilec(&args, &[]).assert_success();
    outputs.iter().map(|(name, ..)| lanes(&dir.read_npy(name))).collect()
}

/// Compares `got` (functions × n lanes) with `want` lane by lane; `names[k]` labels function
/// k and `args(i)` lane i's arguments. Returns the first mismatches.
fn mismatches(
    what: &str,
    names: &[&str],
    got: &[u64],
    want: &[u64],
    n: usize,
    args: &dyn Fn(usize) -> String,
) -> Vec<String> {
    let mut out = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let mut shown = 0;
        for i in 0..n {
            let (g, w) = (got[k * n + i], want[k * n + i]);
            if g != w && shown < 2 {
                out.push(format!("{what}: {name}({}) = {g:#x}, expected {w:#x}", args(i)));
                shown += 1;
            }
        }
    }
    out
}

fn refs(names: &[String]) -> Vec<&str> {
    names.iter().map(String::as_str).collect()
}

/// `r`, the round-to-nearest value of an exact quantity, moved one step in direction
/// `mode` (0 nearest, 1 toward zero, 2 down, 3 up) given how `r` compares with it.
fn directed_f32(r: f32, r_vs_exact: std::cmp::Ordering, mode: usize) -> f32 {
    use std::cmp::Ordering::*;
    match (mode, r_vs_exact) {
        (2, Greater) => r.next_down(),
        (3, Less) => r.next_up(),
        (1, Greater) if r > 0.0 => r.next_down(),
        (1, Less) if r < 0.0 => r.next_up(),
        _ => r,
    }
}

fn directed_f64(r: f64, r_vs_exact: std::cmp::Ordering, mode: usize) -> f64 {
    use std::cmp::Ordering::*;
    match (mode, r_vs_exact) {
        (2, Greater) => r.next_down(),
        (3, Less) => r.next_up(),
        (1, Greater) if r > 0.0 => r.next_down(),
        (1, Less) if r < 0.0 => r.next_up(),
        _ => r,
    }
}

/// The float nearest an integer and how it compares with it (exact, through i128).
fn int_to_f32(v: i128, mode: usize) -> u64 {
    let r = v as f32;
    u64::from(directed_f32(r, (r as i128).cmp(&v), mode).to_bits())
}

fn int_to_f64(v: i128, mode: usize) -> u64 {
    let r = v as f64;
    directed_f64(r, (r as i128).cmp(&v), mode).to_bits()
}

/// CUDA's `ilogb` values: INT_MIN for ±0 and NaN, INT_MAX for ±inf.
fn ilogb(x: f64) -> i32 {
    if x == 0.0 || x.is_nan() {
        i32::MIN
    } else if x.is_infinite() {
        i32::MAX
    } else {
        libm::ilogb(x)
    }
}

/// `x` rounded to an integral value in direction `mode` (0 to nearest even, 1 toward
/// zero, 2 down, 3 up).
fn round_mode(x: f64, mode: usize) -> f64 {
    match mode {
        0 => x.round_ties_even(),
        1 => x.trunc(),
        2 => x.floor(),
        _ => x.ceil(),
    }
}

#[test]
fn libdevice_integer_functions_are_exact() {
    let n = 3000;
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let a = int_inputs(&mut rng, 32, n);
    let mut b = int_inputs(&mut rng, 32, n);
    b.rotate_left(7);
    let c = int_inputs(&mut rng, 32, n);
    let u = int_inputs(&mut rng, 64, n);
    let mut v = int_inputs(&mut rng, 64, n);
    v.rotate_left(11);
    let i32_of = |x: u64| x as u32 as i32;
    let names32 = [
        "clz",
        "popc",
        "ffs",
        "brev",
        "byte_perm",
        "mulhi",
        "mulhi.u32",
        "mul24",
        "mul24.u32",
        "sad",
        "sad.u32",
        "hadd",
        "rhadd",
        "hadd.u32",
        "rhadd.u32",
        "abs",
        "tl.umulhi",
        "clz.i64",
        "popc.i64",
        "ffs.i64",
    ];
    let mut want32 = vec![0u64; names32.len() * n];
    let names64 = ["brev.i64", "mulhi.i64", "mulhi.u64", "abs.i64", "tl.umulhi.i64"];
    let mut want64 = vec![0u64; names64.len() * n];
    for i in 0..n {
        let (x, y, s) = (i32_of(a[i]), i32_of(b[i]), i32_of(c[i]));
        let (ux, uy, us) = (x as u32, y as u32, s as u32);
        let (l, m) = (u[i] as i64, v[i] as i64);
        let bytes = (u64::from(uy) << 32) | u64::from(ux);
        let perm = (0..4).fold(0u32, |acc, k| {
            let sel = (us >> (4 * k)) & 7;
            acc | ((((bytes >> (8 * sel)) & 0xff) as u32) << (8 * k))
        });
        let sext24 = |v: i32| (v << 8) >> 8;
        let values32: [i64; 20] = [
            i64::from(x.leading_zeros()),
            i64::from(x.count_ones()),
            if x == 0 { 0 } else { i64::from(x.trailing_zeros() + 1) },
            i64::from(x.reverse_bits()),
            i64::from(perm as i32),
            (i64::from(x) * i64::from(y)) >> 32,
            i64::from(((u64::from(ux) * u64::from(uy)) >> 32) as u32 as i32),
            i64::from(sext24(x).wrapping_mul(sext24(y))),
            i64::from(((ux & 0xff_ffff).wrapping_mul(uy & 0xff_ffff)) as i32),
            i64::from(((i64::from(x) - i64::from(y)).unsigned_abs() as u32).wrapping_add(us) as i32),
            i64::from(ux.abs_diff(uy).wrapping_add(us) as i32),
            (i64::from(x) + i64::from(y)) >> 1,
            (i64::from(x) + i64::from(y) + 1) >> 1,
            i64::from(((u64::from(ux) + u64::from(uy)) >> 1) as u32 as i32),
            i64::from(((u64::from(ux) + u64::from(uy) + 1) >> 1) as u32 as i32),
            i64::from(x.wrapping_abs()),
            i64::from(((u64::from(ux) * u64::from(uy)) >> 32) as u32 as i32),
            i64::from(l.leading_zeros()),
            i64::from(l.count_ones()),
            if l == 0 { 0 } else { i64::from(l.trailing_zeros() + 1) },
        ];
        for (k, w) in values32.iter().enumerate() {
            want32[k * n + i] = u64::from(*w as i32 as u32);
        }
        let values64: [i64; 5] = [
            l.reverse_bits(),
            ((i128::from(l) * i128::from(m)) >> 64) as i64,
            ((u128::from(l as u64) * u128::from(m as u64)) >> 64) as i64,
            l.wrapping_abs(),
            ((u128::from(l as u64) * u128::from(m as u64)) >> 64) as i64,
        ];
        for (k, w) in values64.iter().enumerate() {
            want64[k * n + i] = *w as u64;
        }
    }
    let inputs = [
        ("a_ptr", int_array(ScalarType::I32, &a)),
        ("b_ptr", int_array(ScalarType::I32, &b)),
        ("c_ptr", int_array(ScalarType::I32, &c)),
        ("u_ptr", int_array(ScalarType::I64, &u)),
        ("v_ptr", int_array(ScalarType::I64, &v)),
    ];
    let outputs =
        [("out32_ptr", ScalarType::I32, names32.len() * n), ("out64_ptr", ScalarType::I64, names64.len() * n)];
    let args = |i: usize| format!("{:#x}, {:#x}, {:#x} | {:#x}, {:#x}", a[i], b[i], c[i], u[i], v[i]);
    let mut failures = Vec::new();
    for target in EXACT_TARGETS {
        let got = run_exact("integers", "integers_kernel", target, &inputs, &outputs, n);
        let got32: Vec<u64> = got[0].iter().map(|&g| g & 0xffff_ffff).collect();
        failures.extend(mismatches(target, &names32, &got32, &want32, n, &args));
        failures.extend(mismatches(target, &names64, &got[1], &want64, n, &args));
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn libdevice_conversions_are_exact() {
    let n = 3000;
    let mut rng = Rng(0x5eed_1234_abcd_0002);
    let x: Vec<f64> = float_inputs(&mut rng, ScalarType::F32, n);
    let d: Vec<f64> = float_inputs(&mut rng, ScalarType::F64, n);
    let i = int_inputs(&mut rng, 32, n);
    let l = int_inputs(&mut rng, 64, n);
    let modes = ["rn", "rz", "rd", "ru"];
    let with_modes = |base: &str| modes.map(|m| format!("{base}_{m}"));
    let mut names32: Vec<String> =
        ["isnan", "isinf", "finitef", "signbit", "ilogb", "isnan.d", "isinf.d", "isfinited", "signbit.d", "ilogb.d"]
            .map(String::from)
            .to_vec();
    for base in ["float2int", "float2uint", "double2int", "double2uint"] {
        names32.extend(with_modes(base));
    }
    names32.extend(
        ["float_as_int", "float_as_uint", "double2hiint", "double2loint", "cpu.isnan", "cpu.isinf.d", "cpu.signbit"]
            .map(String::from),
    );
    let mut names64: Vec<String> = Vec::new();
    for base in ["float2ll", "float2ull", "double2ll", "double2ull"] {
        names64.extend(with_modes(base));
    }
    names64.extend(
        ["llrint", "llrint.d", "llround", "llround.d", "double_as_longlong", "cpu.signbit.d"].map(String::from),
    );
    let mut names_f: Vec<String> = Vec::new();
    for base in ["int2float", "uint2float", "ll2float", "ull2float", "double2float"] {
        names_f.extend(with_modes(base));
    }
    names_f.extend(["int_as_float", "uint_as_float"].map(String::from));
    let mut names_d: Vec<String> = Vec::new();
    for base in ["ll2double", "ull2double"] {
        names_d.extend(with_modes(base));
    }
    names_d.extend(["int2double_rn", "uint2double_rn", "longlong_as_double", "hiloint2double"].map(String::from));

    let (mut w32, mut w64, mut wf, mut wd) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    w32.resize(names32.len() * n, 0u64);
    w64.resize(names64.len() * n, 0u64);
    wf.resize(names_f.len() * n, 0u64);
    wd.resize(names_d.len() * n, 0u64);
    for k in 0..n {
        let (xf, dk) = (x[k] as f32, d[k]);
        let (ik, lk) = (i[k] as u32 as i32, l[k] as i64);
        let flag = |b: bool| i32::from(b);
        let mut v32: Vec<i32> = vec![
            flag(xf.is_nan()),
            flag(xf.is_infinite()),
            flag(xf.is_finite()),
            flag(xf.is_sign_negative()),
            ilogb(f64::from(xf)),
            flag(dk.is_nan()),
            flag(dk.is_infinite()),
            flag(dk.is_finite()),
            flag(dk.is_sign_negative()),
            ilogb(dk),
        ];
        v32.extend((0..4).map(|m| round_mode(f64::from(xf), m) as i32));
        v32.extend((0..4).map(|m| round_mode(f64::from(xf), m) as u32 as i32));
        v32.extend((0..4).map(|m| round_mode(dk, m) as i32));
        v32.extend((0..4).map(|m| round_mode(dk, m) as u32 as i32));
        v32.extend([
            xf.to_bits() as i32,
            xf.to_bits() as i32,
            (dk.to_bits() >> 32) as u32 as i32,
            dk.to_bits() as u32 as i32,
            flag(xf.is_nan()),
            flag(dk.is_infinite()),
            flag(xf.is_sign_negative()),
        ]);
        let mut v64: Vec<i64> = Vec::new();
        v64.extend((0..4).map(|m| round_mode(f64::from(xf), m) as i64));
        v64.extend((0..4).map(|m| round_mode(f64::from(xf), m) as u64 as i64));
        v64.extend((0..4).map(|m| round_mode(dk, m) as i64));
        v64.extend((0..4).map(|m| round_mode(dk, m) as u64 as i64));
        v64.extend([
            round_mode(f64::from(xf), 0) as i64,
            round_mode(dk, 0) as i64,
            f64::from(xf).round() as i64,
            dk.round() as i64,
            dk.to_bits() as i64,
            i64::from(dk.is_sign_negative()),
        ]);
        let mut vf: Vec<u64> = Vec::new();
        vf.extend((0..4).map(|m| int_to_f32(i128::from(ik), m)));
        vf.extend((0..4).map(|m| int_to_f32(i128::from(ik as u32), m)));
        vf.extend((0..4).map(|m| int_to_f32(i128::from(lk), m)));
        vf.extend((0..4).map(|m| int_to_f32(i128::from(lk as u64), m)));
        vf.extend((0..4).map(|m| {
            let r = dk as f32;
            let ord = f64::from(r).partial_cmp(&dk).unwrap_or(std::cmp::Ordering::Equal);
            u64::from(directed_f32(r, ord, m).to_bits())
        }));
        vf.extend([u64::from(ik as u32), u64::from(ik as u32)]);
        let mut vd: Vec<u64> = Vec::new();
        vd.extend((0..4).map(|m| int_to_f64(i128::from(lk), m)));
        vd.extend((0..4).map(|m| int_to_f64(i128::from(lk as u64), m)));
        vd.extend([
            f64::from(ik).to_bits(),
            f64::from(ik as u32).to_bits(),
            lk as u64,
            (u64::from(ik as u32) << 32) | u64::from(ik.wrapping_mul(7) as u32),
        ]);
        for (j, w) in v32.iter().enumerate() {
            w32[j * n + k] = u64::from(*w as u32);
        }
        for (j, w) in v64.iter().enumerate() {
            w64[j * n + k] = *w as u64;
        }
        for (j, w) in vf.iter().enumerate() {
            wf[j * n + k] = *w;
        }
        for (j, w) in vd.iter().enumerate() {
            wd[j * n + k] = *w;
        }
    }
    let inputs = [
        ("x_ptr", array(ScalarType::F32, x.iter().copied())),
        ("d_ptr", array(ScalarType::F64, d.iter().copied())),
        ("i_ptr", int_array(ScalarType::I32, &i)),
        ("l_ptr", int_array(ScalarType::I64, &l)),
    ];
    let outputs = [
        ("out32_ptr", ScalarType::I32, names32.len() * n),
        ("out64_ptr", ScalarType::I64, names64.len() * n),
        ("outf_ptr", ScalarType::F32, names_f.len() * n),
        ("outd_ptr", ScalarType::F64, names_d.len() * n),
    ];
    let args = |k: usize| format!("{:e} | {:e} | {:#x} | {:#x}", x[k], d[k], i[k], l[k]);
    // A converted NaN is any NaN (RISC-V returns the canonical one); bitcasts keep the bits.
    let converted = |j: usize| names_f[j / n].starts_with("double2float");
    let canonical = |j: usize, v: u64| if converted(j) && f32::from_bits(v as u32).is_nan() { 0x7fc0_0000 } else { v };
    let wf: Vec<u64> = wf.iter().enumerate().map(|(j, &v)| canonical(j, v)).collect();
    let mut failures = Vec::new();
    for target in EXACT_TARGETS {
        let got = run_exact("conversions", "conversions_kernel", target, &inputs, &outputs, n);
        let got_f: Vec<u64> = got[2].iter().enumerate().map(|(j, &v)| canonical(j, v)).collect();
        failures.extend(mismatches(target, &refs(&names32), &got[0], &w32, n, &args));
        failures.extend(mismatches(target, &refs(&names64), &got[1], &w64, n, &args));
        failures.extend(mismatches(target, &refs(&names_f), &got_f, &wf, n, &args));
        failures.extend(mismatches(target, &refs(&names_d), &got[3], &wd, n, &args));
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// The directed-rounding arithmetic of `fixtures/math/directed.py`, computed by C under
/// qemu with `fesetround` (the hardware's own directed roundings): reads n, x, y, z (fp32),
/// p, q, r (fp64) from stdin and writes the kernel's two output arrays to stdout.
const DIRECTED_C: &str = r#"
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#pragma STDC FENV_ACCESS ON

static void *take(size_t bytes) {
  void *p = malloc(bytes);
  if (fread(p, 1, bytes, stdin) != bytes) exit(2);
  return p;
}

int main(void) {
  long n;
  if (fread(&n, sizeof n, 1, stdin) != 1) return 2;
  float *x = take(4 * n), *y = take(4 * n), *z = take(4 * n);
  double *p = take(8 * n), *q = take(8 * n), *r = take(8 * n);
  float *o32 = malloc(4 * 28 * n);
  double *o64 = malloc(8 * 25 * n);
  const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  for (int m = 0; m < 4; m++) {
    fesetround(modes[m]);
    for (long i = 0; i < n; i++) {
      o32[(0 * 4 + m) * n + i] = x[i] + y[i];
      o32[(1 * 4 + m) * n + i] = x[i] - y[i];
      o32[(2 * 4 + m) * n + i] = x[i] * y[i];
      o32[(3 * 4 + m) * n + i] = x[i] / y[i];
      o32[(4 * 4 + m) * n + i] = 1.0f / x[i];
      o32[(5 * 4 + m) * n + i] = sqrtf(x[i]);
      o32[(6 * 4 + m) * n + i] = fmaf(x[i], y[i], z[i]);
      o64[(0 * 4 + m) * n + i] = p[i] + q[i];
      o64[(1 * 4 + m) * n + i] = p[i] - q[i];
      o64[(2 * 4 + m) * n + i] = p[i] * q[i];
      o64[(3 * 4 + m) * n + i] = p[i] / q[i];
      o64[(4 * 4 + m) * n + i] = 1.0 / p[i];
      o64[(5 * 4 + m) * n + i] = sqrt(p[i]);
    }
  }
  fesetround(FE_TONEAREST);
  for (long i = 0; i < n; i++) o64[24 * n + i] = fma(p[i], q[i], r[i]);
  fwrite(o32, 4, 28 * n, stdout);
  fwrite(o64, 8, 25 * n, stdout);
  return 0;
}
"#;

#[test]
fn libdevice_directed_roundings_are_exact() {
    let n = 3000;
    let mut rng = Rng(0x5eed_1234_abcd_0003);
    let mut float_triple = |dtype| {
        let a = float_inputs(&mut rng, dtype, n);
        let mut b = float_inputs(&mut rng, dtype, n);
        b.rotate_left(5);
        // Exact cancellations and ties between the operands.
        for k in (0..n).step_by(17) {
            b[k] = -a[k];
        }
        let mut c = float_inputs(&mut rng, dtype, n);
        c.rotate_left(13);
        (a, b, c)
    };
    let (x, y, z) = float_triple(ScalarType::F32);
    let (p, q, r) = float_triple(ScalarType::F64);

    // The reference: C under qemu.
    let layout = toolchain_layout();
    let dir = TempDir::new("directed-ref");
    let source = dir.write("directed.c", DIRECTED_C);
    let program = dir.join("directed");
    let out = Command::new("clang-19")
        .args(["--target=riscv64-linux-gnu", "-march=rv64gc", "-O1", "-frounding-math", "-static", "-fuse-ld=lld"])
        .arg("-o")
        .arg(&program)
        .arg(&source)
        .arg("-lm")
        .output()
        .expect("clang-19 runs (cargo xtask setup installs it)");
    assert!(out.status.success(), "clang-19 failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let mut stdin = (n as i64).to_le_bytes().to_vec();
    for column in [&x, &y, &z] {
        stdin.extend(column.iter().flat_map(|v| (*v as f32).to_le_bytes()));
    }
    for column in [&p, &q, &r] {
        stdin.extend(column.iter().flat_map(|v| v.to_le_bytes()));
    }
    let input = dir.join("input.bin");
    std::fs::write(&input, &stdin).expect("input.bin");
    let run = Command::new(layout.qemu_riscv64())
        .args(["-cpu", "rv64"])
        .arg(&program)
        .stdin(std::fs::File::open(&input).expect("input.bin"))
        .output()
        .expect("qemu-riscv64 runs");
    assert!(run.status.success(), "the reference program failed: {}", String::from_utf8_lossy(&run.stderr));
    let (bytes32, bytes64) = run.stdout.split_at(4 * 28 * n);
    assert_eq!(bytes64.len(), 8 * 25 * n, "reference output size");
    let want32: Vec<u64> =
        bytes32.chunks_exact(4).map(|c| u64::from(u32::from_le_bytes(c.try_into().expect("4")))).collect();
    let want64: Vec<u64> = bytes64.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8"))).collect();

    let modes = ["rn", "rz", "rd", "ru"];
    let names =
        |ops: &[&str]| -> Vec<String> { ops.iter().flat_map(|op| modes.map(|m| format!("{op}_{m}"))).collect() };
    let names32 = names(&["add", "sub", "mul", "div", "rcp", "sqrt", "fma"]);
    let mut names64 = names(&["add", "sub", "mul", "div", "rcp", "sqrt"]);
    names64.push("fma_rn".into());
    let inputs = [
        ("x_ptr", array(ScalarType::F32, x.iter().copied())),
        ("y_ptr", array(ScalarType::F32, y.iter().copied())),
        ("z_ptr", array(ScalarType::F32, z.iter().copied())),
        ("p_ptr", array(ScalarType::F64, p.iter().copied())),
        ("q_ptr", array(ScalarType::F64, q.iter().copied())),
        ("r_ptr", array(ScalarType::F64, r.iter().copied())),
    ];
    let outputs = [("out32_ptr", ScalarType::F32, 28 * n), ("out64_ptr", ScalarType::F64, 25 * n)];
    let args32 = |k: usize| format!("{:e}, {:e}, {:e}", x[k], y[k], z[k]);
    let args64 = |k: usize| format!("{:e}, {:e}, {:e}", p[k], q[k], r[k]);
    // NaN results compare as NaN whatever their payload.
    let canonical32 = |v: u64| if f32::from_bits(v as u32).is_nan() { 0x7fc0_0000 } else { v };
    let canonical64 = |v: u64| if f64::from_bits(v).is_nan() { 0x7ff8_0000_0000_0000 } else { v };
    let want32: Vec<u64> = want32.into_iter().map(canonical32).collect();
    let want64: Vec<u64> = want64.into_iter().map(canonical64).collect();
    let mut failures = Vec::new();
    for target in EXACT_TARGETS {
        let got = run_exact("directed", "directed_kernel", target, &inputs, &outputs, n);
        let got32: Vec<u64> = got[0].iter().map(|&v| canonical32(v)).collect();
        let got64: Vec<u64> = got[1].iter().map(|&v| canonical64(v)).collect();
        failures.extend(mismatches(target, &refs(&names32), &got32, &want32, n, &args32));
        failures.extend(mismatches(target, &refs(&names64), &got64, &want64, n, &args64));
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}
