//! What `tt.assume` ops (`tl.assume`) state about integer values, for the analyses.
//!
//! Recognized conditions, with `c` a constant (a scalar constant or a splat of one) on either
//! side where it makes sense and `x` any integer value:
//! - `x % c == 0` and `x & (c - 1) == 0` (`c` a power of two): every element of `x` is a
//!   multiple of the largest power of two dividing `c` ([`Fact::divisor`]);
//! - `x > c`, `x >= c`, `x < c`, `x <= c`, `x == c` (and mirrored): bounds on every
//!   element of `x` ([`Fact::min`], [`Fact::max`]);
//! - `a & b` of two such conditions (booleans): both facts.
//!
//! Only assumes directly in the function's body region count: they execute on every run of
//! the kernel (structured control flow, no early exit), so what they state holds for the
//! value itself, wherever it is computed or used. An assume under an `if` or in a loop is
//! kept by every stage but states nothing here. Anything else is ignored: an assumption is
//! a promise, never a requirement, so recognizing less is always sound.

use crate::ir::*;
use std::collections::HashMap;

/// What the assumes state about one value; `None`/`1` when they state nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fact {
    /// A power of two dividing every element (1 when unknown).
    pub divisor: i64,
    /// Inclusive lower bound of every element.
    pub min: Option<i128>,
    /// Inclusive upper bound of every element.
    pub max: Option<i128>,
}

impl Fact {
    fn none() -> Fact {
        Fact { divisor: 1, min: None, max: None }
    }

    /// Both facts at once.
    fn and(&mut self, other: &Fact) {
        self.divisor = self.divisor.max(other.divisor);
        self.min = match (self.min, other.min) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.max = match (self.max, other.max) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
}

/// The facts of every top-level `tt.assume` of `f`, by value.
pub fn assumed_facts(f: &Function) -> HashMap<Value, Fact> {
    let mut facts: HashMap<Value, Fact> = HashMap::new();
    let Some(body) = f.regions.get(f.body) else { return facts };
    for &op in &body.ops {
        if let Some(OpKind::Assume { cond }) = f.ops.get(op).map(|o| &o.kind) {
            collect(f, *cond, &mut facts);
        }
    }
    facts
}

/// The op defining `v`, when `v` is an op result.
fn def(f: &Function, v: Value) -> Option<&OpKind> {
    match f.values.get(v)?.def {
        ValueDef::Result(op, _) => f.ops.get(op).map(|o| &o.kind),
        ValueDef::Param(..) => None,
    }
}

/// The integer constant `v` is (through splats and broadcasts).
fn constant(f: &Function, v: Value) -> Option<i64> {
    match def(f, v)? {
        OpKind::Constant(Constant::Int(i)) => Some(*i),
        OpKind::Splat(x) | OpKind::Broadcast(x) => constant(f, *x),
        _ => None,
    }
}

/// `v` itself, or the scalar `v` is a splat or broadcast of (a fact on every element of the
/// tile is a fact on the scalar).
fn source(f: &Function, v: Value) -> Value {
    match def(f, v) {
        Some(OpKind::Splat(x)) | Some(OpKind::Broadcast(x)) => source(f, *x),
        _ => v,
    }
}

/// The integer (non-boolean) element type of `v`.
fn int_type(f: &Function, v: Value) -> Option<ScalarType> {
    f.values.get(v)?.ty.scalar_type().filter(|s| s.is_int() && !s.is_bool())
}

fn collect(f: &Function, cond: Value, facts: &mut HashMap<Value, Fact>) {
    let Some(kind) = def(f, cond) else { return };
    match kind {
        OpKind::Binary { op: BinaryOp::And, lhs, rhs } => {
            collect(f, *lhs, facts);
            collect(f, *rhs, facts);
        }
        OpKind::Splat(x) | OpKind::Broadcast(x) => collect(f, *x, facts),
        OpKind::Cmp { pred, lhs, rhs } => {
            let (pred, x, c) = match (constant(f, *lhs), constant(f, *rhs)) {
                (None, Some(c)) => (*pred, *lhs, c),
                (Some(c), None) => (mirror(*pred), *rhs, c),
                _ => return,
            };
            let Some(s) = int_type(f, x) else { return };
            // Constants are stored sign-extended; an unsigned type reads them unsigned.
            let c =
                if s.is_unsigned_int() { i128::from(c as u64 & (u64::MAX >> (64 - s.bits()))) } else { i128::from(c) };
            let fact = match pred {
                CmpPred::Gt => Fact { min: Some(c + 1), ..Fact::none() },
                CmpPred::Ge => Fact { min: Some(c), ..Fact::none() },
                CmpPred::Lt => Fact { max: Some(c - 1), ..Fact::none() },
                CmpPred::Le => Fact { max: Some(c), ..Fact::none() },
                CmpPred::Eq => match divisor_test(f, x).filter(|_| c == 0) {
                    Some((y, d)) => return add(facts, source(f, y), Fact { divisor: d, ..Fact::none() }),
                    None => Fact { divisor: 1, min: Some(c), max: Some(c) },
                },
                CmpPred::Ne => return,
            };
            add(facts, source(f, x), fact);
        }
        _ => {}
    }
}

/// `c ⋈ x` as `x ⋈' c`.
fn mirror(pred: CmpPred) -> CmpPred {
    match pred {
        CmpPred::Lt => CmpPred::Gt,
        CmpPred::Le => CmpPred::Ge,
        CmpPred::Gt => CmpPred::Lt,
        CmpPred::Ge => CmpPred::Le,
        other => other,
    }
}

/// `y % c` or `y & (2^k - 1)`: the value tested and the power of two its being zero implies.
fn divisor_test(f: &Function, v: Value) -> Option<(Value, i64)> {
    match def(f, v)? {
        OpKind::Binary { op: BinaryOp::Rem, lhs, rhs } => {
            let c = constant(f, *rhs)?;
            (c != 0).then(|| (*lhs, crate::axis::pow2_divisor(c)))
        }
        OpKind::Binary { op: BinaryOp::And, lhs, rhs } => {
            let (y, mask) = match (constant(f, *lhs), constant(f, *rhs)) {
                (None, Some(m)) => (*lhs, m),
                (Some(m), None) => (*rhs, m),
                _ => return None,
            };
            let low_ones = mask > 0 && (mask & (mask + 1)) == 0;
            low_ones.then(|| (y, mask + 1))
        }
        _ => None,
    }
}

fn add(facts: &mut HashMap<Value, Fact>, v: Value, fact: Fact) {
    facts.entry(v).or_insert_with(Fact::none).and(&fact);
}
