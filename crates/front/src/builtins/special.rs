//! The special functions of `libdevice` that no IR math op computes, composed from the ones
//! that do: the inverse error functions (`erfinv`, `erfcinv`, `normcdfinv`), the scaled
//! complementary error function `erfcx`, the modified Bessel functions `cyl_bessel_i0`/`i1`
//! and the Bessel functions of integer order `jn`/`yn`.
//!
//! Every composition works in fp64 (fp32 arguments are widened and the result rounded once),
//! so the later stages see only ordinary ops, `for` loops and reductions. Special values follow
//! CUDA's definitions of the same functions (which Triton's `libdevice` calls): `jn`/`yn` of a
//! negative order are NaN, `erfinv(±1) = ±inf`, `erfcinv(0) = +inf`, `erfcinv(2) = −inf`,
//! arguments outside the domain are NaN.

use super::compose::Ew;
use tilec_ir::{BinaryOp, CmpPred, Constant, MathFn, OpKind, ReduceKind, ScalarType, Type, Value};
use ScalarType::{F64, I32};

/// 2/√π.
const TWO_OVER_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;
/// 1/√π.
const ONE_OVER_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI / 2.0;
/// Winitzki's constant `a` of erf(x) ≈ √(1 − exp(−x²(4/π + ax²)/(1 + ax²))), inverted in
/// closed form for the starting point of the inverse error functions (relative error below
/// 2·10⁻³ everywhere, so three quadratically converging steps reach fp64 precision).
const WINITZKI_A: f64 = 0.147;
/// `erfcx` uses its continued fraction from this argument on ([`ERFCX_FRACTION_DEPTH`]
/// levels reach fp64 precision there) and exp(x²)·erfc(x) below it.
const ERFCX_FRACTION_FROM: f64 = 4.0;
const ERFCX_FRACTION_DEPTH: u32 = 24;
/// `cyl_bessel_i0`/`i1` sum their power series below this argument (with
/// [`BESSEL_I_SERIES_TERMS`] terms) and their asymptotic expansion (with
/// [`BESSEL_I_ASYMPTOTIC_TERMS`] terms, whose smallest is below 2⁻⁵³ there) from it on.
const BESSEL_I_SERIES_BELOW: f64 = 20.0;
const BESSEL_I_SERIES_TERMS: u32 = 40;
const BESSEL_I_ASYMPTOTIC_TERMS: u32 = 30;
/// The rescaling of Miller's backward recurrence for `jn`: values beyond 2^600 are scaled
/// down by 2^600 and the result scaled back with an exact `ldexp`.
const MILLER_SCALE_EXPONENT: i32 = 600;
/// Orders from which `jn(n, x)` is +0 and `yn(n, x)` is −inf whenever n ≥ 3|x|:
/// |J_n(x)| ≤ (|x|/2)^n/n! ≤ (e|x|/2n)^n < 2^−n there, below fp64's smallest subnormal, and
/// |Y_n(x)| grows as fast.
const BESSEL_ORDER_VANISHES: i64 = 1100;

/// A number held as the unevaluated sum of two doubles, for computing series coefficients
/// to full precision.
#[derive(Clone, Copy)]
struct DoubleDouble(f64, f64);

impl DoubleDouble {
    fn normalized(hi: f64, lo: f64) -> DoubleDouble {
        let s = hi + lo;
        DoubleDouble(s, lo - (s - hi))
    }

    fn mul_int(self, m: i64) -> DoubleDouble {
        let m = m as f64;
        let p = self.0 * m;
        let e = self.0.mul_add(m, -p);
        DoubleDouble::normalized(p, self.1.mul_add(m, e))
    }

    fn div_int(self, d: i64) -> DoubleDouble {
        let d = d as f64;
        let q = self.0 / d;
        let r = (-q).mul_add(d, self.0) + self.1;
        DoubleDouble::normalized(q, r / d)
    }
}

/// Coefficients of Σ tᵏ/(k!·(k+shift)!) for k < `terms`.
fn bessel_i_series(shift: i64, terms: u32) -> Vec<f64> {
    let mut c = (1..=shift).fold(DoubleDouble(1.0, 0.0), |c, j| c.div_int(j));
    let mut out = vec![c.0];
    for k in 1..terms as i64 {
        c = c.div_int(k).div_int(k + shift);
        out.push(c.0);
    }
    out
}

/// Coefficients of Iᵥ(x)·√(2πx)/eˣ ~ Σ (−1)ᵏ·∏ⱼ₌₁..ₖ(4ν² − (2j − 1)²)/(k!·8ᵏ)·x⁻ᵏ.
fn bessel_i_asymptotic(order: i64, terms: u32) -> Vec<f64> {
    let mut c = DoubleDouble(1.0, 0.0);
    let mut out = vec![1.0];
    for k in 1..terms as i64 {
        c = c.mul_int((2 * k - 1) * (2 * k - 1) - 4 * order * order).div_int(8 * k);
        out.push(c.0);
    }
    out
}

impl Ew<'_, '_> {
    /// `body` applied to the fp64 form of `x` (an fp32 argument widened, the result rounded
    /// back once).
    pub fn in_f64(&mut self, x: Value, body: impl FnOnce(&mut Self, Value) -> Value) -> Value {
        let s = self.scalar(x);
        let wide = self.convert(x, F64);
        let y = body(self, wide);
        self.convert(y, s)
    }

    /// Σ cₖ·tᵏ by Horner's rule.
    fn polynomial(&mut self, coefficients: &[f64], t: Value) -> Value {
        let (&last, rest) = coefficients.split_last().expect("a polynomial has a coefficient");
        let mut acc = self.float(F64, last);
        for &c in rest.iter().rev() {
            let c = self.float(F64, c);
            acc = self.fma(acc, t, c);
        }
        acc
    }

    /// A scalar as a value of this shape.
    fn lanes(&mut self, scalar: Value) -> Value {
        if self.shape.is_empty() {
            return scalar;
        }
        let ty = self.l.ty(scalar).with_shape(self.shape.clone());
        self.l.emit(OpKind::Splat(scalar), ty, self.span)
    }

    /// The largest lane of an `i32` value, as a scalar.
    fn max_over_lanes(&mut self, v: Value) -> Value {
        let ty = self.l.ty(v).clone();
        if ty.shape.is_empty() {
            return v;
        }
        let flat = if ty.shape.len() > 1 {
            let t = ty.with_shape(vec![ty.numel() as u32]);
            self.l.emit(OpKind::Reshape(v), t, self.span)
        } else {
            v
        };
        self.l.emit(OpKind::Reduce { kind: ReduceKind::Max, value: flat, axis: 0 }, Type::scalar(I32), self.span)
    }

    /// `for j in range(0, count)` (an `i32` scalar) carrying `init` (values of this shape):
    /// `body` gets `j` (a scalar) and the carried values and returns their next values.
    fn counted_loop(
        &mut self,
        count: Value,
        init: Vec<Value>,
        body: impl FnOnce(&mut Ew, Value, &[Value]) -> Vec<Value>,
    ) -> Vec<Value> {
        let span = self.span;
        let zero = self.l.emit(OpKind::Constant(Constant::Int(0)), Type::scalar(I32), span);
        let one = self.l.emit(OpKind::Constant(Constant::Int(1)), Type::scalar(I32), span);
        let region = self.l.f.new_region();
        let j = self.l.f.add_region_param(region, Type::scalar(I32), Some("j".into()));
        let params: Vec<Value> = init
            .iter()
            .map(|&v| {
                let ty = self.l.ty(v).clone();
                self.l.f.add_region_param(region, ty, None)
            })
            .collect();
        let shape = self.shape.clone();
        let next = self.l.in_region(region, |l| body(&mut Ew { l, shape, span }, j, &params));
        self.l.f.append_op(region, OpKind::Yield(next), vec![], span);
        let types = init.iter().map(|&v| self.l.ty(v).clone()).collect();
        let kind = OpKind::For { lower: zero, upper: count, step: one, init, body: region };
        let op = self.l.f.append_op(self.l.region, kind, types, span);
        self.l.f.ops[op].results.clone()
    }

    /// The NaN of `x`'s type where `invalid` holds, else `v`.
    fn nan_where(&mut self, invalid: Value, v: Value) -> Value {
        let nan = self.float(self.scalar(v), f64::NAN);
        self.select(invalid, nan, v)
    }

    /// `-v` where `flip` holds.
    fn negate_where(&mut self, flip: Value, v: Value) -> Value {
        let n = self.neg(v);
        self.select(flip, n, v)
    }

    // ----- the error function family -----

    /// erfcx(x) = exp(x²)·erfc(x) (fp64): below [`ERFCX_FRACTION_FROM`] as that product with
    /// x² carried in two doubles (exp(hi + lo) = exp(hi)·(1 + lo)); from it on by Laplace's
    /// continued fraction erfcx(x) = 1/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))).
    pub fn erfcx(&mut self, x: Value) -> Value {
        let hi = self.bin(BinaryOp::Mul, x, x);
        let nhi = self.neg(hi);
        let lo = self.fma(x, x, nhi);
        let e = self.math(MathFn::Exp, hi);
        let c = self.math(MathFn::Erfc, x);
        let p = self.bin(BinaryOp::Mul, e, c);
        let product = self.fma(p, lo, p);
        // exp(x²) = inf (x ≤ −26.6, or −inf, where lo is NaN): erfcx overflows too.
        let overflow = self.is_inf(p);
        let product = self.select(overflow, p, product);
        let mut tail = x;
        for k in (1..=ERFCX_FRACTION_DEPTH).rev() {
            let q = self.float(F64, f64::from(k) / 2.0);
            let q = self.bin(BinaryOp::Div, q, tail);
            tail = self.bin(BinaryOp::Add, x, q);
        }
        // 1/√π divided last, so that 1/(√π·x) stays finite (subnormal) for the largest x.
        let k = self.float(F64, ONE_OVER_SQRT_PI);
        let fraction = self.bin(BinaryOp::Div, k, tail);
        let near = self.cmp_f(CmpPred::Lt, x, ERFCX_FRACTION_FROM);
        self.select(near, product, fraction)
    }

    /// The y ≥ 0 with erf(y) = `e` where `use_erf` holds, else with erfc(y) = `c` (fp64;
    /// callers choose erf for targets up to 1/2, where 1 − e is far from 0).
    ///
    /// Start: Winitzki's closed form of the inverse, with L = ln(1 − erf(y)²) = ln(1 − e²) or
    /// ln(c·(2 − c)) (the root of a quadratic in y², rationalized where it would cancel).
    /// Then three steps: Halley's on erf(y) − e (erf″ = −2y·erf′, so the step is
    /// r/(erf′ + y·r)) or Newton's on ln erfc(y) − ln c written as y² − ln erfcx(y) + ln c,
    /// whose derivative is 2/(√π·erfcx(y)): well scaled down to the smallest subnormal `c`.
    fn inverse_erf_core(&mut self, e: Value, c: Value, use_erf: Value) -> Value {
        let e2 = self.bin(BinaryOp::Mul, e, e);
        let ne2 = self.neg(e2);
        let l_erf = self.math(MathFn::Log1p, ne2);
        let lc = self.math(MathFn::Log, c);
        let one = self.float(F64, 1.0);
        let one_minus_c = self.bin(BinaryOp::Sub, one, c);
        let l2 = self.math(MathFn::Log1p, one_minus_c);
        let l_erfc = self.bin(BinaryOp::Add, lc, l2);
        let l = self.select(use_erf, l_erf, l_erfc);
        let half_l = self.bin_f(BinaryOp::Mul, l, 0.5);
        let t = self.bin_f(BinaryOp::Add, half_l, 2.0 / (std::f64::consts::PI * WINITZKI_A));
        let minus_l_over_a = self.bin_f(BinaryOp::Mul, l, -1.0 / WINITZKI_A);
        let radicand = self.fma(t, t, minus_l_over_a);
        let s = self.math(MathFn::Sqrt, radicand);
        let sum = self.bin(BinaryOp::Add, s, t);
        let rationalized = self.bin(BinaryOp::Div, minus_l_over_a, sum);
        let difference = self.bin(BinaryOp::Sub, s, t);
        let positive = self.cmp_f(CmpPred::Gt, t, 0.0);
        let y2 = self.select(positive, rationalized, difference);
        let mut y = self.math(MathFn::Sqrt, y2);
        for _ in 0..3 {
            let r = self.math(MathFn::Erf, y);
            let r = self.bin(BinaryOp::Sub, r, e);
            let yy = self.bin(BinaryOp::Mul, y, y);
            let nyy = self.neg(yy);
            let d = self.math(MathFn::Exp, nyy);
            let d = self.bin_f(BinaryOp::Mul, d, TWO_OVER_SQRT_PI);
            let denominator = self.fma(y, r, d);
            let step = self.bin(BinaryOp::Div, r, denominator);
            let by_erf = self.bin(BinaryOp::Sub, y, step);
            let u = self.erfcx(y);
            let lu = self.math(MathFn::Log, u);
            let g = self.bin(BinaryOp::Sub, yy, lu);
            let g = self.bin(BinaryOp::Add, g, lc);
            let gu = self.bin(BinaryOp::Mul, g, u);
            let k = self.float(F64, -1.0 / TWO_OVER_SQRT_PI);
            let by_erfc = self.fma(gu, k, y);
            y = self.select(use_erf, by_erf, by_erfc);
        }
        y
    }

    /// erfinv(x) (fp64): erf(y) = |x| for |x| < 1/2, erfc(y) = 1 − |x| (exact) above; ±inf
    /// at ±1, NaN beyond.
    pub fn erfinv(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let one = self.float(F64, 1.0);
        let c = self.bin(BinaryOp::Sub, one, a);
        let use_erf = self.cmp_f(CmpPred::Lt, a, 0.5);
        let y = self.inverse_erf_core(a, c, use_erf);
        let edge = self.cmp_f(CmpPred::Eq, a, 1.0);
        let inf = self.float(F64, f64::INFINITY);
        let y = self.select(edge, inf, y);
        let y = self.copysign(y, x);
        // NaN for |x| > 1 and NaN.
        let inside = self.cmp_f(CmpPred::Le, a, 1.0);
        let outside = self.not(inside);
        self.nan_where(outside, y)
    }

    /// The y ≥ 0 with erfc(y) = min(c, 2 − c) (fp64, c in [0, 2]; 2 − c is exact from 1 on),
    /// and whether c > 1 (the inverse is −y there).
    fn erfcinv_magnitude(&mut self, c: Value) -> (Value, Value) {
        let two = self.float(F64, 2.0);
        let reflected = self.bin(BinaryOp::Sub, two, c);
        let above = self.cmp_f(CmpPred::Gt, c, 1.0);
        let cc = self.select(above, reflected, c);
        let one = self.float(F64, 1.0);
        let e = self.bin(BinaryOp::Sub, one, cc);
        let use_erf = self.cmp_f(CmpPred::Gt, cc, 0.5);
        let y = self.inverse_erf_core(e, cc, use_erf);
        let zero = self.cmp_f(CmpPred::Eq, cc, 0.0);
        let inf = self.float(F64, f64::INFINITY);
        (self.select(zero, inf, y), above)
    }

    /// NaN where `c` is outside [0, 2] or NaN.
    fn outside_erfc_range(&mut self, c: Value) -> Value {
        let low = self.cmp_f(CmpPred::Ge, c, 0.0);
        let high = self.cmp_f(CmpPred::Le, c, 2.0);
        let inside = self.and(low, high);
        self.not(inside)
    }

    /// erfcinv(c) (fp64): +inf at 0, −inf at 2, NaN outside [0, 2].
    pub fn erfcinv(&mut self, c: Value) -> Value {
        let (y, above) = self.erfcinv_magnitude(c);
        let y = self.negate_where(above, y);
        let outside = self.outside_erfc_range(c);
        self.nan_where(outside, y)
    }

    /// normcdfinv(p) = −√2·erfcinv(2p) (fp64; 2p is exact), with √2 in two doubles so the
    /// product rounds once; +0 at p = 1/2, ∓inf at 0 and 1, NaN outside [0, 1].
    pub fn normcdfinv(&mut self, p: Value) -> Value {
        const SQRT2_HI: f64 = std::f64::consts::SQRT_2;
        const SQRT2_LO: f64 = -9.667_293_313_452_913e-17; // √2 − SQRT2_HI, rounded
        let c = self.bin(BinaryOp::Add, p, p);
        let (y, _) = self.erfcinv_magnitude(c);
        let low = self.bin_f(BinaryOp::Mul, y, SQRT2_LO);
        let k = self.float(F64, SQRT2_HI);
        let scaled = self.fma(y, k, low);
        let infinite = self.is_inf(y);
        let scaled = self.select(infinite, y, scaled);
        // erfcinv(2p) ≥ 0 for p ≤ 1/2, so normcdfinv is ≤ 0 there (+0 at 1/2 itself).
        let below = self.cmp_f(CmpPred::Lt, c, 1.0);
        let scaled = self.negate_where(below, scaled);
        let outside = self.outside_erfc_range(c);
        self.nan_where(outside, scaled)
    }

    // ----- Bessel functions -----

    /// I₀(x) (`order` 0) or I₁(x) (`order` 1), fp64. Below [`BESSEL_I_SERIES_BELOW`]: the
    /// power series S(t) = Σ tᵏ/(k!)² and R(t) = Σ tᵏ/(k!(k+1)!) at t = x²/4, with x² carried
    /// in two doubles and the low part t' applied through the derivatives (S′ = R and
    /// t·R′ = S − R): I₀ = S + t'·R, I₁ = (x/2)·(R + t'·(S − R)/t). From it on: the
    /// asymptotic expansion eˣ/√(2πx)·P(1/x), with eˣ taken as (e^(x/2))² past 700 where
    /// eˣ alone would overflow before the result does.
    pub fn bessel_i(&mut self, x: Value, order: i64) -> Value {
        let a = self.abs(x);
        let hi = self.bin(BinaryOp::Mul, a, a);
        let nhi = self.neg(hi);
        let lo = self.fma(a, a, nhi);
        let t = self.bin_f(BinaryOp::Mul, hi, 0.25);
        let t_lo = self.bin_f(BinaryOp::Mul, lo, 0.25);
        let s = self.polynomial(&bessel_i_series(0, BESSEL_I_SERIES_TERMS), t);
        let r = self.polynomial(&bessel_i_series(1, BESSEL_I_SERIES_TERMS), t);
        let series = if order == 0 {
            self.fma(t_lo, r, s)
        } else {
            let s_minus_r = self.bin(BinaryOp::Sub, s, r);
            let slope = self.bin(BinaryOp::Div, s_minus_r, t);
            let nonzero = self.cmp_f(CmpPred::Gt, t, 0.0);
            let zero = self.float(F64, 0.0);
            let slope = self.select(nonzero, slope, zero);
            let sum = self.fma(t_lo, slope, r);
            let half = self.bin_f(BinaryOp::Mul, a, 0.5);
            self.bin(BinaryOp::Mul, half, sum)
        };
        let one = self.float(F64, 1.0);
        let z = self.bin(BinaryOp::Div, one, a);
        let p = self.polynomial(&bessel_i_asymptotic(order, BESSEL_I_ASYMPTOTIC_TERMS), z);
        let two_pi_a = self.bin_f(BinaryOp::Mul, a, 2.0 * std::f64::consts::PI);
        let root = self.math(MathFn::Sqrt, two_pi_a);
        let q = self.bin(BinaryOp::Div, p, root);
        let big = self.cmp_f(CmpPred::Gt, a, 700.0);
        let half = self.bin_f(BinaryOp::Mul, a, 0.5);
        let exponent = self.select(big, half, a);
        let h = self.math(MathFn::Exp, exponent);
        let hq = self.bin(BinaryOp::Mul, h, q);
        let hhq = self.bin(BinaryOp::Mul, h, hq);
        let asymptotic = self.select(big, hhq, hq);
        let small = self.cmp_f(CmpPred::Lt, a, BESSEL_I_SERIES_BELOW);
        let v = self.select(small, series, asymptotic);
        // Past 713.99 the result overflows (and h·(h·q) may be inf·0 from 714 on).
        let overflows = self.cmp_f(CmpPred::Ge, a, 714.0);
        let inf = self.float(F64, f64::INFINITY);
        let v = self.select(overflows, inf, v);
        if order == 0 {
            v
        } else {
            self.copysign(v, x)
        }
    }

    /// The lanes of `n` (`i32`) where the order is at least [`BESSEL_ORDER_VANISHES`] and at
    /// least 3|x|: Jₙ(x) is 0 and Yₙ(x) −inf there.
    fn order_vanishes(&mut self, n: Value, nf: Value, a: Value) -> Value {
        let big = self.cmp_k(CmpPred::Ge, n, BESSEL_ORDER_VANISHES as u64);
        let three_a = self.bin_f(BinaryOp::Mul, a, 3.0);
        let beyond = self.cmp(CmpPred::Ge, nf, three_a);
        self.and(big, beyond)
    }

    /// c_{k+1} = (2k/x)·c_k − c_{k−1} for k = 1 .. `count` per lane (an `i32` value of this
    /// shape) from (c₀, c₁) = (`c0`, `c1`): c at each lane's last step. A lane stops early
    /// once its value is infinite (Yₙ overflowing to −inf, which the next step would turn
    /// into NaN).
    fn forward_recurrence(&mut self, count: Value, x: Value, c0: Value, c1: Value) -> Value {
        let trips = self.max_over_lanes(count);
        let ends = self.counted_loop(trips, vec![c0, c1], |ew, j, carried| {
            let (previous, current) = (carried[0], carried[1]);
            let j = ew.lanes(j);
            let within = ew.cmp(CmpPred::Lt, j, count);
            let finite = ew.is_finite(current);
            let active = ew.and(within, finite);
            let k = ew.bin_k(BinaryOp::Add, j, 1);
            let factor = ew.recurrence_factor(k, x);
            let np = ew.neg(previous);
            let next = ew.fma(factor, current, np);
            vec![ew.select(active, current, previous), ew.select(active, next, current)]
        });
        ends[1]
    }

    /// 2k/x for the recurrences (`k` an `i32` value of this shape).
    fn recurrence_factor(&mut self, k: Value, x: Value) -> Value {
        let kf = self.convert(k, F64);
        let twice = self.bin(BinaryOp::Add, kf, kf);
        self.bin(BinaryOp::Div, twice, x)
    }

    /// Jₙ(x) for an `i32` order `n` (fp64 `x`), as glibc's `jn` computes it: J₀ and J₁
    /// directly; for |x| > n the forward recurrence J_{k+1} = (2k/x)·J_k − J_{k−1} from
    /// them; otherwise Miller's backward recurrence from order n + 6√n + 20 (started at 1,
    /// rescaled by 2^600 whenever it grows past that) normalized by whichever of J₀(x), J₁(x)
    /// is larger in magnitude. Jₙ(−x) = (−1)ⁿ·Jₙ(x); NaN for n < 0 (CUDA's `jn`).
    /// Each loop runs as many times as its largest lane needs.
    pub fn bessel_jn(&mut self, n: Value, x: Value) -> Value {
        let a = self.abs(x);
        let nf = self.convert(n, F64);
        let z = self.math(MathFn::J0, a);
        let w = self.math(MathFn::J1, a);
        let at_least_two = self.cmp_k(CmpPred::Ge, n, 2);
        let vanishes = self.order_vanishes(n, nf, a);
        // Below 2^−410 the recurrence's factor 2k/x could overflow; there Jₙ(x) is
        // (x/2)ⁿ/n!, which is 0 from n = 3 on and x²/8 for n = 2.
        let tiny = self.cmp_f(CmpPred::Lt, a, 2f64.powi(-410));
        let zero_result = self.and(vanishes, at_least_two);
        // Only finite x and orders from 2 on run a recurrence (so a NaN argument or a
        // negative order never sets a loop's length).
        let small = self.or(zero_result, tiny);
        let live = self.not(small);
        let finite = self.is_finite(a);
        let live = self.and(live, finite);
        let live = self.and(live, at_least_two);
        let above = self.cmp(CmpPred::Gt, a, nf);
        let forward = self.and(above, live);
        let not_above = self.not(above);
        let backward = self.and(not_above, live);

        // Forward: k = 1 .. n − 1.
        let zero_i = self.int(I32, 0);
        let n_minus_one = self.bin_k(BinaryOp::Sub, n, 1);
        let forward_count = self.select(forward, n_minus_one, zero_i);
        let by_forward = self.forward_recurrence(forward_count, a, z, w);

        // Backward: k = M .. 1 computes p_{k−1} = (2k/x)·p_k − p_{k+1}, each lane starting at
        // its own M with p_M = 1, p_{M+1} = 0 (all zeros before).
        let root = self.math(MathFn::Sqrt, nf);
        let extra = self.bin_f(BinaryOp::Mul, root, 6.0);
        let start = self.bin(BinaryOp::Add, nf, extra);
        let start = self.bin_f(BinaryOp::Add, start, 20.0);
        let start = self.convert(start, I32);
        let start = self.select(backward, start, zero_i);
        let top = self.max_over_lanes(start);
        let top_lanes = self.lanes(top);
        let at_top = self.cmp(CmpPred::Eq, start, top_lanes);
        let (one_f, zero_f) = (self.float(F64, 1.0), self.float(F64, 0.0));
        let first = self.select(at_top, one_f, zero_f);
        let init = vec![zero_f, first, zero_f, zero_i];
        let ends = self.counted_loop(top, init, |ew, j, carried| {
            let (after, current, stored, rescales) = (carried[0], carried[1], carried[2], carried[3]);
            // k = top − j; the new value is p_{k−1}.
            let j = ew.lanes(j);
            let k = ew.bin(BinaryOp::Sub, top_lanes, j);
            let factor = ew.recurrence_factor(k, a);
            let na = ew.neg(after);
            let next = ew.fma(factor, current, na);
            let index = ew.bin_k(BinaryOp::Sub, k, 1);
            let starts = ew.cmp(CmpPred::Eq, index, start);
            let one = ew.float(F64, 1.0);
            let next = ew.select(starts, one, next);
            let at_n = ew.cmp(CmpPred::Eq, index, n);
            let stored = ew.select(at_n, next, stored);
            let recorded = ew.cmp(CmpPred::Le, index, n);
            let m = ew.abs(next);
            let big = ew.cmp_f(CmpPred::Gt, m, 2f64.powi(MILLER_SCALE_EXPONENT));
            let (down, keep) = (ew.float(F64, 2f64.powi(-MILLER_SCALE_EXPONENT)), ew.float(F64, 1.0));
            let scale = ew.select(big, down, keep);
            let next = ew.bin(BinaryOp::Mul, next, scale);
            let current = ew.bin(BinaryOp::Mul, current, scale);
            let counts = ew.and(big, recorded);
            let step = ew.flag(counts, I32);
            let rescales = ew.bin(BinaryOp::Add, rescales, step);
            vec![current, next, stored, rescales]
        });
        let (p1, p0, stored, rescales) = (ends[0], ends[1], ends[2], ends[3]);
        let (az, aw) = (self.abs(z), self.abs(w));
        let by_j0 = self.cmp(CmpPred::Ge, az, aw);
        let norm = self.select(by_j0, z, w);
        let p = self.select(by_j0, p0, p1);
        let ratio = self.bin(BinaryOp::Div, norm, p);
        let r = self.bin(BinaryOp::Mul, stored, ratio);
        let shift = self.bin_k(BinaryOp::Mul, rescales, (-MILLER_SCALE_EXPONENT) as i64 as u64);
        let by_backward = self.ldexp(r, shift);

        let v = self.select(forward, by_forward, by_backward);
        let is_zero_order = self.cmp_k(CmpPred::Eq, n, 0);
        let is_one = self.cmp_k(CmpPred::Eq, n, 1);
        let v = self.select(is_one, w, v);
        let v = self.select(is_zero_order, z, v);
        let square = self.bin(BinaryOp::Mul, a, a);
        let by_series = self.bin_f(BinaryOp::Mul, square, 0.125);
        let is_two = self.cmp_k(CmpPred::Eq, n, 2);
        let by_series = self.select(is_two, by_series, zero_f);
        let tiny_high = self.and(tiny, at_least_two);
        let v = self.select(tiny_high, by_series, v);
        let infinite = self.is_inf(a);
        let vanish = self.or(zero_result, infinite);
        let v = self.select(vanish, zero_f, v);
        // Jₙ(−x) = (−1)ⁿ·Jₙ(x), signed zeros included.
        let odd = self.bin_k(BinaryOp::And, n, 1);
        let odd = self.cmp_k(CmpPred::Eq, odd, 1);
        let sign = self.sign_bit(x);
        let negative = self.cmp_k(CmpPred::Eq, sign, 1);
        let flip = self.and(odd, negative);
        let v = self.negate_where(flip, v);
        let negative_order = self.cmp_k(CmpPred::Lt, n, 0);
        self.nan_where(negative_order, v)
    }

    /// Yₙ(x) for an `i32` order `n` (fp64 `x`), as glibc's `yn` computes it: Y₀ and Y₁
    /// directly, then the forward recurrence (stable for Y), stopped in each lane once it
    /// reaches −inf. −inf at x = 0, +0 at +inf; NaN for x < 0 and for n < 0 (CUDA's `yn`).
    pub fn bessel_yn(&mut self, n: Value, x: Value) -> Value {
        let nf = self.convert(n, F64);
        let z = self.math(MathFn::Y0, x);
        let w = self.math(MathFn::Y1, x);
        let overflows = self.order_vanishes(n, nf, x);
        // Only positive finite x and orders from 2 on run the recurrence.
        let positive = self.cmp_f(CmpPred::Gt, x, 0.0);
        let finite = self.is_finite(x);
        let at_least_two = self.cmp_k(CmpPred::Ge, n, 2);
        let not_overflowing = self.not(overflows);
        let live = self.and(positive, finite);
        let live = self.and(live, at_least_two);
        let live = self.and(live, not_overflowing);
        let zero_i = self.int(I32, 0);
        let n_minus_one = self.bin_k(BinaryOp::Sub, n, 1);
        let count = self.select(live, n_minus_one, zero_i);
        let by_recurrence = self.forward_recurrence(count, x, z, w);
        let is_zero_order = self.cmp_k(CmpPred::Eq, n, 0);
        let v = self.select(is_zero_order, z, by_recurrence);
        let minus_inf = self.float(F64, f64::NEG_INFINITY);
        let v = self.select(overflows, minus_inf, v);
        let at_zero = self.cmp_f(CmpPred::Eq, x, 0.0);
        let v = self.select(at_zero, minus_inf, v);
        let infinite = self.cmp_f(CmpPred::Eq, x, f64::INFINITY);
        let zero_f = self.float(F64, 0.0);
        let v = self.select(infinite, zero_f, v);
        let negative_x = self.cmp_f(CmpPred::Lt, x, 0.0);
        let negative_order = self.cmp_k(CmpPred::Lt, n, 0);
        let invalid = self.or(negative_x, negative_order);
        self.nan_where(invalid, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_coefficients_are_correctly_rounded_reciprocals() {
        let s = bessel_i_series(0, 30);
        assert_eq!(s[0], 1.0);
        assert_eq!(s[3], 1.0 / 36.0);
        // 1/(20!)² to the last bit: 20! is exact in f64, its square is not.
        let f20 = (1..=20u64).product::<u64>() as f64;
        let expected = 1.0 / f20 / f20;
        assert!((s[20] - expected).abs() <= expected * 2e-16, "{} vs {expected}", s[20]);
        let r = bessel_i_series(1, 5);
        assert_eq!(r, vec![1.0, 0.5, 1.0 / 12.0, 1.0 / 144.0, 1.0 / 2880.0]);
    }

    #[test]
    fn asymptotic_coefficients_follow_the_product_formula() {
        // I₀: 1, 1/8, 9/128, 225/3072; I₁: 1, −3/8, −15/128, −315/3072.
        assert_eq!(bessel_i_asymptotic(0, 4), vec![1.0, 0.125, 9.0 / 128.0, 225.0 / 3072.0]);
        assert_eq!(bessel_i_asymptotic(1, 4), vec![1.0, -0.375, -15.0 / 128.0, -315.0 / 3072.0]);
    }
}
