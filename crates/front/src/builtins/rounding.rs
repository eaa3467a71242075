//! The directed roundings of `libdevice` (`_rz`, `_rd`, `_ru`): conversions and arithmetic
//! rounded toward zero, down or up, composed exactly from round-to-nearest IR ops.
//!
//! Each result starts as the round-to-nearest value `r`; whether `r` lies above or below the
//! exact value is decided exactly, and `r` moves one step in the rounding's direction when
//! it lies on the wrong side. The exact comparison comes from fp64 for fp32 results (an
//! fp32 product is exact in fp64; a sum is carried as fp64 `s + e` by TwoSum; an fp32
//! quotient or square root computed in fp64 is never on or across an fp32 number unless it
//! is exact), and for fp64 results from error-free residuals (TwoSum, `fma`) on operands
//! scaled to [1, 2) so that no residual underflows.

use super::compose::{Ew, Format};
use super::libdevice::{Op, Round};
use crate::errors::{self, err, Result};
use tilec_diagnostics::Span;
use tilec_ir::{BinaryOp, CmpPred, MathFn, ScalarType, Value};
use ScalarType::{F32, F64};

impl Ew<'_, '_> {
    /// The next float above `x` (−max from −inf, the smallest subnormal from ±0).
    fn next_up(&mut self, x: Value) -> Value {
        let f = Format::of(self.scalar(x));
        let positive = self.cmp_f(CmpPred::Gt, x, 0.0);
        let (out, toward) = (self.step(x, 1), self.step(x, -1));
        let next = self.select(positive, out, toward);
        let zero = self.cmp_f(CmpPred::Eq, x, 0.0);
        let tiny = self.int(f.bits, 1);
        let tiny = self.reinterpret(tiny, f.float);
        self.select(zero, tiny, next)
    }

    /// The next float below `x`.
    fn next_down(&mut self, x: Value) -> Value {
        let n = self.neg(x);
        let up = self.next_up(n);
        self.neg(up)
    }

    /// `r` (the value rounded to nearest) moved to the neighbour the rounding wants, given
    /// whether `r` lies above or below the exact value (both false when exact or NaN).
    fn directed_fix(&mut self, r: Value, round: Round, above: Value, below: Value) -> Value {
        match round {
            Round::Nearest => r,
            Round::Down => {
                let down = self.next_down(r);
                self.select(above, down, r)
            }
            Round::Up => {
                let up = self.next_up(r);
                self.select(below, up, r)
            }
            Round::Zero => {
                let positive = self.cmp_f(CmpPred::Gt, r, 0.0);
                let negative = self.cmp_f(CmpPred::Lt, r, 0.0);
                let shrink_down = self.and(positive, above);
                let shrink_up = self.and(negative, below);
                let (down, up) = (self.next_down(r), self.next_up(r));
                let r = self.select(shrink_down, down, r);
                self.select(shrink_up, up, r)
            }
        }
    }

    /// `x` converted to float type `to`, rounded in direction `round` (from an integer, or
    /// from fp64 to fp32).
    pub(super) fn convert_rounded(&mut self, x: Value, to: ScalarType, round: Round) -> Value {
        let from = self.scalar(x);
        let r = self.convert(x, to);
        if round == Round::Nearest {
            return r;
        }
        let (above, below) = if from.is_float() {
            // fp64 → fp32: the fp32 value widened back is exact.
            let back = self.convert(r, from);
            (self.cmp(CmpPred::Gt, back, x), self.cmp(CmpPred::Lt, back, x))
        } else {
            // Integer → float: the float converted back to the integer type is exact unless
            // it is 2^(width) (unsigned) or 2^(width−1) (signed), which lies above every
            // value of the type.
            let limit = if from.is_signed_int() { from.bits() - 1 } else { from.bits() };
            let huge = self.cmp_f(CmpPred::Ge, r, 2f64.powi(limit as i32));
            let back = self.convert(r, from);
            let greater = self.cmp(CmpPred::Gt, back, x);
            let above = self.or(huge, greater);
            let less = self.cmp(CmpPred::Lt, back, x);
            let not_huge = self.not(huge);
            (above, self.and(not_huge, less))
        };
        self.directed_fix(r, round, above, below)
    }

    /// `op` on `xs` rounded in direction `round`.
    pub(super) fn directed(&mut self, name: &str, op: Op, round: Round, xs: &[Value], span: Span) -> Result<Value> {
        let s = self.scalar(xs[0]);
        if round == Round::Nearest {
            return Ok(self.nearest(op, xs));
        }
        if s == F32 {
            return Ok(self.directed_f32(op, round, xs));
        }
        Ok(match op {
            Op::Add | Op::Sub => {
                let b = if op == Op::Sub { self.neg(xs[1]) } else { xs[1] };
                self.sum_f64(xs[0], b, round)
            }
            Op::Mul => self.scaled_f64(Op::Mul, xs[0], xs[1], round),
            Op::Div => self.scaled_f64(Op::Div, xs[0], xs[1], round),
            Op::Rcp => {
                let one = self.float(F64, 1.0);
                self.scaled_f64(Op::Div, one, xs[0], round)
            }
            Op::Sqrt => self.sqrt_f64(xs[0], round),
            Op::Fma => {
                return Err(err(
                    errors::UNSUPPORTED,
                    span,
                    format!("`libdevice.{name}` is not supported for fp64: tilec has no exact fp64 fused multiply-add rounded other than to nearest"),
                )
                .with_note("fp32 operands are supported, and `fma_rn` for fp64"))
            }
        })
    }

    fn nearest(&mut self, op: Op, xs: &[Value]) -> Value {
        match op {
            Op::Add => self.bin(BinaryOp::Add, xs[0], xs[1]),
            Op::Sub => self.bin(BinaryOp::Sub, xs[0], xs[1]),
            Op::Mul => self.bin(BinaryOp::Mul, xs[0], xs[1]),
            Op::Div => self.bin(BinaryOp::Div, xs[0], xs[1]),
            Op::Rcp => {
                let one = self.float(self.scalar(xs[0]), 1.0);
                self.bin(BinaryOp::Div, one, xs[0])
            }
            Op::Sqrt => self.math(MathFn::Sqrt, xs[0]),
            Op::Fma => self.fma(xs[0], xs[1], xs[2]),
        }
    }

    /// The sign an exact zero sum takes when rounding down: −0 unless both addends are +0
    /// (IEEE 754); other directions give what round-to-nearest gives.
    fn zero_sum_down(&mut self, a: Value, b: Value) -> Value {
        let f = Format::of(self.scalar(a));
        let (ba, bb) = (self.bits_of(a), self.bits_of(b));
        let either = self.or(ba, bb);
        let sign = self.bin_k(BinaryOp::And, either, f.sign_bit());
        self.reinterpret(sign, f.float)
    }

    /// fp32 `op` by way of fp64: the exact value as `s + e` (fp64), rounded to fp32.
    fn directed_f32(&mut self, op: Op, round: Round, xs: &[Value]) -> Value {
        let w: Vec<Value> = xs.iter().map(|&x| self.convert(x, F64)).collect();
        let zero = self.float(F64, 0.0);
        // (s, e, addends whose exact zero sum takes the rounding's sign)
        let (s, e, addends) = match op {
            Op::Add | Op::Sub => {
                let b = if op == Op::Sub { self.neg(w[1]) } else { w[1] };
                let (s, e) = self.two_sum(w[0], b);
                (s, e, Some((w[0], b)))
            }
            Op::Mul => (self.bin(BinaryOp::Mul, w[0], w[1]), zero, None),
            Op::Div => (self.bin(BinaryOp::Div, w[0], w[1]), zero, None),
            Op::Rcp => {
                let one = self.float(F64, 1.0);
                (self.bin(BinaryOp::Div, one, w[0]), zero, None)
            }
            Op::Sqrt => (self.math(MathFn::Sqrt, w[0]), zero, None),
            Op::Fma => {
                let p = self.bin(BinaryOp::Mul, w[0], w[1]);
                let (s, e) = self.two_sum(p, w[2]);
                (s, e, Some((p, w[2])))
            }
        };
        let r = self.convert(s, F32);
        let back = self.convert(r, F64);
        let on = self.cmp(CmpPred::Eq, back, s);
        let (e_neg, e_pos) = (self.cmp_f(CmpPred::Lt, e, 0.0), self.cmp_f(CmpPred::Gt, e, 0.0));
        let (gt, lt) = (self.cmp(CmpPred::Gt, back, s), self.cmp(CmpPred::Lt, back, s));
        let on_neg = self.and(on, e_neg);
        let on_pos = self.and(on, e_pos);
        let above = self.or(gt, on_neg);
        let below = self.or(lt, on_pos);
        let r = self.directed_fix(r, round, above, below);
        match (round, addends) {
            (Round::Down, Some((a, b))) => {
                let exact_zero = self.cmp_f(CmpPred::Eq, s, 0.0);
                let z = self.zero_sum_down(a, b);
                let z = self.convert(z, F32);
                self.select(exact_zero, z, r)
            }
            _ => r,
        }
    }

    /// Knuth's TwoSum: `s = RN(a + b)` and the exact `e = a + b − s` (finite `s`).
    fn two_sum(&mut self, a: Value, b: Value) -> (Value, Value) {
        let s = self.bin(BinaryOp::Add, a, b);
        let bb = self.bin(BinaryOp::Sub, s, a);
        let ab = self.bin(BinaryOp::Sub, s, bb);
        let da = self.bin(BinaryOp::Sub, a, ab);
        let db = self.bin(BinaryOp::Sub, b, bb);
        let e = self.bin(BinaryOp::Add, da, db);
        (s, e)
    }

    /// fp64 `a + b` rounded in direction `round`.
    fn sum_f64(&mut self, a: Value, b: Value, round: Round) -> Value {
        let (s, e) = self.two_sum(a, b);
        // An overflow of finite addends: the exact sum is finite, so an infinite `s` lies
        // beyond it.
        let overflow = self.is_inf(s);
        let (fa, fb) = (self.is_finite(a), self.is_finite(b));
        let finite = self.and(fa, fb);
        let overflow = self.and(overflow, finite);
        let (e_neg, e_pos) = (self.cmp_f(CmpPred::Lt, e, 0.0), self.cmp_f(CmpPred::Gt, e, 0.0));
        let (s_pos, s_neg) = (self.cmp_f(CmpPred::Gt, s, 0.0), self.cmp_f(CmpPred::Lt, s, 0.0));
        let (over_pos, over_neg) = (self.and(overflow, s_pos), self.and(overflow, s_neg));
        let above = self.or(e_neg, over_pos);
        let below = self.or(e_pos, over_neg);
        let r = self.directed_fix(s, round, above, below);
        if round == Round::Down {
            let exact_zero = self.cmp_f(CmpPred::Eq, s, 0.0);
            let z = self.zero_sum_down(a, b);
            self.select(exact_zero, z, r)
        } else {
            r
        }
    }

    /// `x` scaled to [1, 2) (for a finite nonzero `x`), with the exponent taken out.
    fn normalized(&mut self, x: Value) -> (Value, Value) {
        let e = self.exponent(x);
        let ne = self.neg(e);
        (self.ldexp(x, ne), e)
    }

    /// fp64 `a·b` or `a/b` rounded in direction `round`: the operands scaled to [1, 2), the
    /// scaled result `q` with its exact residual, then `q·2^E` rounded to nearest (`ldexp`)
    /// and compared with the exact value through the residual.
    fn scaled_f64(&mut self, op: Op, a: Value, b: Value, round: Round) -> Value {
        let plain = self.nearest(op, &[a, b]);
        // Zeros, infinities and NaNs give exact results.
        let (fa, fb) = (self.is_finite(a), self.is_finite(b));
        let (za, zb) = (self.cmp_f(CmpPred::Ne, a, 0.0), self.cmp_f(CmpPred::Ne, b, 0.0));
        let ordinary = [fb, za, zb].into_iter().fold(fa, |acc, c| self.and(acc, c));
        let (an, ea) = self.normalized(a);
        let (bn, eb) = self.normalized(b);
        let (q, e) = if op == Op::Mul {
            (self.bin(BinaryOp::Mul, an, bn), self.bin(BinaryOp::Add, ea, eb))
        } else {
            (self.bin(BinaryOp::Div, an, bn), self.bin(BinaryOp::Sub, ea, eb))
        };
        // Mul: an·bn − q exactly; div: an − q·bn exactly, whose sign times bn's is the sign
        // of an/bn − q.
        let residual = if op == Op::Mul {
            let nq = self.neg(q);
            self.fma(an, bn, nq)
        } else {
            let nq = self.neg(q);
            let r = self.fma(nq, bn, an);
            self.bin(BinaryOp::Mul, r, bn)
        };
        let y = self.ldexp(q, e);
        let ne = self.neg(e);
        let back = self.ldexp(y, ne);
        // q − y·2^-E: zero, or at least one unit of q's last place (so it outweighs the
        // residual, which is under half a unit).
        let t = self.bin(BinaryOp::Sub, q, back);
        let t_zero = self.cmp_f(CmpPred::Eq, t, 0.0);
        let err = self.select(t_zero, residual, t);
        let (above, below) = (self.cmp_f(CmpPred::Lt, err, 0.0), self.cmp_f(CmpPred::Gt, err, 0.0));
        let (above, below) = (self.and(above, ordinary), self.and(below, ordinary));
        let y = self.select(ordinary, y, plain);
        self.directed_fix(y, round, above, below)
    }

    /// fp64 √x rounded in direction `round`: x scaled by an even power of two into [1, 4),
    /// whose root's residual `x − s²` is exact (the root itself never needs rescaling
    /// rounding: it is normal for every positive x).
    fn sqrt_f64(&mut self, x: Value, round: Round) -> Value {
        let plain = self.math(MathFn::Sqrt, x);
        let positive = self.cmp_f(CmpPred::Gt, x, 0.0);
        let finite = self.is_finite(x);
        let ordinary = self.and(positive, finite);
        let e = self.exponent(x);
        let half = self.bin_k(BinaryOp::Shr, e, 1);
        let even = self.bin_k(BinaryOp::Shl, half, 1);
        let neven = self.neg(even);
        let xs = self.ldexp(x, neven);
        let s = self.math(MathFn::Sqrt, xs);
        let ns = self.neg(s);
        let residual = self.fma(ns, s, xs);
        let (above, below) = (self.cmp_f(CmpPred::Lt, residual, 0.0), self.cmp_f(CmpPred::Gt, residual, 0.0));
        let (above, below) = (self.and(above, ordinary), self.and(below, ordinary));
        self.directed_fix(plain, round, above, below)
    }
}
