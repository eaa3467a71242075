//! Axis analysis: Triton's `AxisInfo` on the Tile IR.
//!
//! For every value it computes, per dimension `d` (a scalar counts as one dimension of
//! length 1):
//! - `contiguity[d]`: the values come in runs of this many consecutive integers along `d`
//!   (`x, x+1, x+2, ...`; for pointers, consecutive elements of the pointee), and the runs are
//!   aligned: each starts at an index that is a multiple of the run length;
//! - `divisibility[d]`: a power of two dividing the first value of each such run (in bytes
//!   for pointers, as the `:16` signature attribute says);
//! - `constancy[d]`: the values come in aligned runs of this many equal values along `d`;
//! - and the value itself when it is one known integer for every element.
//!
//! The facts hold for every element on every execution (assuming, as Triton does, that
//! index arithmetic does not wrap around). Sources are the kernel parameters' divisibility
//! (`:16`), `tt.make_range`, constants, splats, the hint ops (`tl.multiple_of`,
//! `tl.max_contiguous`, `tl.max_constancy`), which *replace* the computed vector they name,
//! as in Triton, and the top-level `tt.assume` ops ([`crate::assume`]): `x % 16 == 0`
//! raises the divisibility of `x` to 16, `x == c` makes it the constant `c` (bounds such as
//! `x > 0` say nothing about runs; the optimizer's integer ranges use them). Transfer rules follow Triton's `AxisInfo.cpp`; values the rules know
//! nothing about (loads, reductions, float math, ...) get the pessimistic `1`s. Loop-carried
//! values are solved to a fixed point starting from the initial values (each round can only
//! lose facts, so it terminates; a bound on the rounds falls back to the pessimistic state).
//!
//! Floats are analysed too (only constancy can be non-trivial for them) but the text form,
//! [`print_axis_info`], lists integer and pointer values only.

use crate::ir::*;
use crate::print::ValueNames;
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::fmt::Write;

/// Divisibility of the integer 0 (the largest power of two the analysis tracks).
pub const MAX_DIVISIBILITY: i64 = 1 << 62;

/// Rounds of a loop's fixed point before its carried values are taken as unknown.
const MAX_LOOP_ROUNDS: usize = 32;

/// What is known about one value, one entry per dimension (one for a scalar).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisInfo {
    pub contiguity: Vec<i64>,
    pub divisibility: Vec<i64>,
    pub constancy: Vec<i64>,
    /// The value of every element, when known (integer bits sign-extended, as in
    /// [`Constant::Int`]; pointers' addresses are never known).
    pub constant: Option<i64>,
}

impl AxisInfo {
    /// Nothing known: runs of length 1, divisibility 1.
    pub fn unknown(rank: usize) -> AxisInfo {
        AxisInfo { contiguity: vec![1; rank], divisibility: vec![1; rank], constancy: vec![1; rank], constant: None }
    }

    /// Every element equals `value`, over a value of shape `dims`.
    fn known(value: i64, dims: &[i64]) -> AxisInfo {
        AxisInfo {
            contiguity: vec![1; dims.len()],
            divisibility: vec![pow2_divisor(value); dims.len()],
            constancy: dims.to_vec(),
            constant: Some(value),
        }
    }

    pub fn rank(&self) -> usize {
        self.contiguity.len()
    }

    /// Whether dimension `d` of length `len` is one run of consecutive integers.
    pub fn is_contiguous_dim(&self, d: usize, len: i64) -> bool {
        self.contiguity.get(d).is_some_and(|&c| c >= len)
    }

    /// Whether dimension `d` of length `len` holds one value.
    pub fn is_constant_dim(&self, d: usize, len: i64) -> bool {
        self.constancy.get(d).is_some_and(|&c| c >= len)
    }

    /// The facts that hold for both `self` and `other` (control-flow merges).
    pub fn join(&self, other: &AxisInfo) -> AxisInfo {
        let rank = self.rank().min(other.rank());
        AxisInfo {
            contiguity: (0..rank).map(|d| gcd(self.contiguity[d], other.contiguity[d])).collect(),
            divisibility: (0..rank).map(|d| divisibility_of_merge(self, other, d)).collect(),
            constancy: (0..rank).map(|d| gcd(self.constancy[d], other.constancy[d])).collect(),
            constant: if self.constant == other.constant { self.constant } else { None },
        }
    }

    /// `contiguity [..] divisibility [..] constancy [..]` (and `= C` when constant).
    pub fn text(&self) -> String {
        let list = |v: &[i64]| {
            let items: Vec<String> =
                v.iter().map(|&x| if x >= MAX_DIVISIBILITY { "max".to_string() } else { x.to_string() }).collect();
            format!("[{}]", items.join(", "))
        };
        let mut s = format!(
            "contiguity {} divisibility {} constancy {}",
            list(&self.contiguity),
            list(&self.divisibility),
            list(&self.constancy)
        );
        if let Some(c) = self.constant {
            let _ = write!(s, " = {c}");
        }
        s
    }
}

/// Greatest common divisor, with `gcd(0, x) = x` as in Triton.
fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.min(MAX_DIVISIBILITY as u64) as i64
}

fn gcd3(a: i64, b: i64, c: i64) -> i64 {
    gcd(gcd(a, b), c)
}

/// The largest power of two dividing `v` (capped at [`MAX_DIVISIBILITY`], which 0 gets).
pub fn pow2_divisor(v: i64) -> i64 {
    if v == 0 {
        return MAX_DIVISIBILITY;
    }
    1i64.checked_shl(v.trailing_zeros()).filter(|&p| p > 0 && p <= MAX_DIVISIBILITY).unwrap_or(MAX_DIVISIBILITY)
}

/// `a · b` saturating at [`MAX_DIVISIBILITY`].
fn mul_divisor(a: i64, b: i64) -> i64 {
    a.checked_mul(b).filter(|&p| p <= MAX_DIVISIBILITY).unwrap_or(MAX_DIVISIBILITY)
}

/// Divisibility of a merge of `a` and `b` along `d`: when the run lengths differ, a run of
/// the result may start inside a run of either side.
fn divisibility_of_merge(a: &AxisInfo, b: &AxisInfo, d: usize) -> i64 {
    let (ca, cb) = (a.contiguity[d], b.contiguity[d]);
    if ca == cb || ca >= MAX_DIVISIBILITY || cb >= MAX_DIVISIBILITY {
        gcd(a.divisibility[d], b.divisibility[d])
    } else {
        gcd(gcd(a.divisibility[d], b.divisibility[d]), gcd(ca, cb))
    }
}

/// Keeps the low bits of `v` for integer type `s`, sign-extended (the storage form).
fn wrap(v: i64, s: ScalarType) -> i64 {
    let bits = s.bits();
    if bits >= 64 {
        return v;
    }
    let shift = 64 - bits;
    (v << shift) >> shift
}

/// The analysis result: an [`AxisInfo`] for every value of a function.
pub struct AxisAnalysis {
    infos: FxHashMap<Value, AxisInfo>,
}

impl AxisAnalysis {
    /// Analyses `f` (which should have passed the verifier; malformed parts get `unknown`).
    pub fn new(f: &Function) -> AxisAnalysis {
        // Sized once: every value gets an entry.
        let infos = FxHashMap::with_capacity_and_hasher(f.values.len(), Default::default());
        let mut a = Analyzer { f, infos, facts: crate::assume::assumed_facts(f) };
        for (i, &v) in f.param_values().iter().enumerate() {
            let mut info = AxisInfo::unknown(1);
            if let Some(p) = f.params.get(i) {
                info.divisibility[0] = i64::from(p.divisibility.max(1));
            }
            a.set(v, info);
        }
        a.region(f.body);
        AxisAnalysis { infos: a.infos }
    }

    /// The facts about `v` (`None` for a value outside the analysed function).
    pub fn get(&self, v: Value) -> Option<&AxisInfo> {
        self.infos.get(&v)
    }
}

struct Analyzer<'f> {
    f: &'f Function,
    infos: FxHashMap<Value, AxisInfo>,
    /// What the kernel's `tt.assume`s state, applied whenever a value's facts are set.
    facts: HashMap<Value, crate::assume::Fact>,
}

/// The dimensions of `ty` as the analysis sees them (`[1]` for a scalar).
fn dims_of(ty: &Type) -> Vec<i64> {
    if ty.shape.is_empty() {
        vec![1]
    } else {
        ty.shape.iter().map(|&d| i64::from(d)).collect()
    }
}

impl Analyzer<'_> {
    fn dims(&self, v: Value) -> Vec<i64> {
        self.f.values.get(v).map_or_else(|| vec![1], |d| dims_of(&d.ty))
    }

    fn info(&self, v: Value) -> AxisInfo {
        self.infos.get(&v).cloned().unwrap_or_else(|| AxisInfo::unknown(self.dims(v).len()))
    }

    fn scalar_type(&self, v: Value) -> Option<ScalarType> {
        self.f.values.get(v).and_then(|d| d.ty.scalar_type())
    }

    fn set(&mut self, v: Value, mut info: AxisInfo) {
        if let Some(fact) = self.facts.get(&v) {
            for d in info.divisibility.iter_mut() {
                *d = (*d).max(fact.divisor);
            }
            let known = fact.min.filter(|&c| fact.max == Some(c));
            if let (Some(c), None, Some(s)) = (known, info.constant, self.scalar_type(v)) {
                // the storage form: the low bits of the type, sign-extended
                info = AxisInfo::known(wrap(c as i64, s), &self.dims(v));
            }
        }
        self.infos.insert(v, info);
    }

    fn region(&mut self, r: RegionId) {
        let Some(region) = self.f.regions.get(r) else { return };
        for &op in &region.ops {
            self.op(op);
        }
    }

    /// The values yielded by the terminator of `r` (`Yield` or `Condition` args).
    fn yielded(&self, r: RegionId) -> Vec<Value> {
        let last = self.f.regions.get(r).and_then(|reg| reg.ops.last()).and_then(|&op| self.f.ops.get(op));
        match last.map(|op| &op.kind) {
            Some(OpKind::Yield(vs)) => vs.clone(),
            Some(OpKind::Condition { args, .. }) => args.clone(),
            _ => Vec::new(),
        }
    }

    fn unknown_params(&mut self, r: RegionId) {
        let params = self.f.regions.get(r).map(|reg| reg.params.clone()).unwrap_or_default();
        for p in params {
            let rank = self.dims(p).len();
            self.set(p, AxisInfo::unknown(rank));
        }
    }

    /// Solves loop-carried params `carried` of a loop whose one round is `round` (which
    /// analyses the loop's regions and returns the values carried to the next round).
    fn fixed_point(&mut self, carried: &[Value], init: &[AxisInfo], mut round: impl FnMut(&mut Self) -> Vec<Value>) {
        let mut current: Vec<AxisInfo> = init.to_vec();
        for _ in 0..MAX_LOOP_ROUNDS {
            for (&p, info) in carried.iter().zip(&current) {
                self.set(p, info.clone());
            }
            let next_values = round(self);
            let next: Vec<AxisInfo> = current
                .iter()
                .enumerate()
                .map(|(i, start)| match next_values.get(i) {
                    Some(&v) => init[i].join(&self.info(v)).join(start),
                    None => AxisInfo::unknown(start.rank()),
                })
                .collect();
            if next == current {
                return;
            }
            current = next;
        }
        for &p in carried {
            let rank = self.dims(p).len();
            self.set(p, AxisInfo::unknown(rank));
        }
        round(self);
    }

    fn op(&mut self, op_id: OpId) {
        let f = self.f;
        let Some(op) = f.ops.get(op_id) else { return };
        match &op.kind {
            OpKind::For { lower, step, init, body, .. } => {
                let params = f.regions.get(*body).map(|r| r.params.clone()).unwrap_or_default();
                if let Some(&iv) = params.first() {
                    let (lb, st) = (self.info(*lower), self.info(*step));
                    let mut info = AxisInfo::unknown(1);
                    info.divisibility[0] = gcd(lb.divisibility[0], st.divisibility[0]);
                    self.set(iv, info);
                }
                let carried = params.get(1..).unwrap_or_default().to_vec();
                let init_infos: Vec<AxisInfo> = init.iter().map(|&v| self.info(v)).collect();
                let body = *body;
                self.fixed_point(&carried, &init_infos, |a| {
                    a.region(body);
                    a.yielded(body)
                });
                for (&r, &p) in op.results.iter().zip(&carried) {
                    let info = self.info(p);
                    self.set(r, info);
                }
            }
            OpKind::While { init, before, after } => {
                let carried = f.regions.get(*before).map(|r| r.params.clone()).unwrap_or_default();
                let passed = f.regions.get(*after).map(|r| r.params.clone()).unwrap_or_default();
                let init_infos: Vec<AxisInfo> = init.iter().map(|&v| self.info(v)).collect();
                let (before, after) = (*before, *after);
                self.fixed_point(&carried, &init_infos, |a| {
                    a.region(before);
                    for (&p, v) in passed.iter().zip(a.yielded(before)) {
                        let info = a.info(v);
                        a.set(p, info);
                    }
                    a.region(after);
                    a.yielded(after)
                });
                for (&r, &p) in op.results.iter().zip(&passed) {
                    let info = self.info(p);
                    self.set(r, info);
                }
            }
            OpKind::If { then_region, else_region, .. } => {
                self.region(*then_region);
                self.region(*else_region);
                let (then_values, else_values) = (self.yielded(*then_region), self.yielded(*else_region));
                for (i, &r) in op.results.iter().enumerate() {
                    let info = match (then_values.get(i), else_values.get(i)) {
                        (Some(&a), Some(&b)) => self.info(a).join(&self.info(b)),
                        _ => AxisInfo::unknown(self.dims(r).len()),
                    };
                    self.set(r, info);
                }
            }
            OpKind::ReduceCustom { combine, .. } | OpKind::ScanCustom { combine, .. } => {
                self.unknown_params(*combine);
                self.region(*combine);
                for &r in &op.results {
                    let rank = self.dims(r).len();
                    self.set(r, AxisInfo::unknown(rank));
                }
            }
            kind => {
                if let Some(&result) = op.results.first() {
                    let info = self.transfer(kind, result);
                    self.set(result, info);
                }
            }
        }
    }

    /// The facts about `result`, the single result of a region-free op `kind`.
    fn transfer(&self, kind: &OpKind, result: Value) -> AxisInfo {
        let dims = self.dims(result);
        let rank = dims.len();
        let result_type = self.scalar_type(result);
        match kind {
            OpKind::Constant(c) => match c {
                Constant::Int(i) => AxisInfo::known(*i, &dims),
                Constant::Bool(b) => AxisInfo::known(i64::from(*b), &dims),
                Constant::Float(_) => AxisInfo { constancy: dims, ..AxisInfo::unknown(rank) },
            },
            OpKind::ProgramId(_) | OpKind::NumPrograms(_) => AxisInfo::unknown(1),
            OpKind::MakeRange { start, end } => AxisInfo {
                contiguity: vec![i64::from(*end) - i64::from(*start)],
                divisibility: vec![pow2_divisor(i64::from(*start))],
                constancy: vec![1],
                constant: None,
            },
            OpKind::Splat(v) => {
                let x = self.info(*v);
                AxisInfo {
                    contiguity: vec![1; rank],
                    divisibility: vec![x.divisibility[0]; rank],
                    constancy: dims,
                    constant: x.constant,
                }
            }
            OpKind::Broadcast(v) => {
                let x = self.info(*v);
                let from = self.dims(*v);
                let stretched = |d: usize| from.get(d).is_some_and(|&n| n == 1);
                AxisInfo {
                    contiguity: (0..rank).map(|d| if stretched(d) { 1 } else { x.contiguity[d] }).collect(),
                    divisibility: (0..rank).map(|d| x.divisibility[d]).collect(),
                    constancy: (0..rank).map(|d| if stretched(d) { dims[d] } else { x.constancy[d] }).collect(),
                    constant: x.constant,
                }
            }
            OpKind::ExpandDims { value, axis } => {
                let mut x = self.info(*value);
                let inserted = new_dim_divisibility(&x);
                let axis = (*axis as usize).min(x.rank());
                x.contiguity.insert(axis, 1);
                x.divisibility.insert(axis, inserted);
                x.constancy.insert(axis, 1);
                x
            }
            OpKind::Reshape(v) => self.reshape(*v, &dims),
            OpKind::Trans { value, order } => {
                let x = self.info(*value);
                let pick = |vec: &[i64]| order.iter().map(|&d| vec.get(d as usize).copied().unwrap_or(1)).collect();
                AxisInfo {
                    contiguity: pick(&x.contiguity),
                    divisibility: pick(&x.divisibility),
                    constancy: pick(&x.constancy),
                    constant: x.constant,
                }
            }
            OpKind::AddPtr { ptr, offset } => {
                let bytes =
                    self.f.values.get(*ptr).and_then(|d| d.ty.elem.pointee()).map_or(1, |s| i64::from(s.bytes()));
                let (p, o) = (self.info(*ptr), self.info(*offset));
                AxisInfo {
                    contiguity: (0..rank)
                        .map(|d| gcd(p.constancy[d], o.contiguity[d]).max(gcd(p.contiguity[d], o.constancy[d])))
                        .collect(),
                    divisibility: (0..rank)
                        .map(|d| gcd(p.divisibility[d], mul_divisor(o.divisibility[d], bytes)))
                        .collect(),
                    constancy: (0..rank).map(|d| gcd(p.constancy[d], o.constancy[d])).collect(),
                    constant: None,
                }
            }
            OpKind::Binary { op, lhs, rhs } => match result_type {
                Some(s) if s.is_int() => self.binary(*op, &self.info(*lhs), &self.info(*rhs), &dims, s),
                _ => self.elementwise(&[*lhs, *rhs], rank),
            },
            OpKind::Unary { op, value } => {
                let x = self.info(*value);
                let mut info = AxisInfo { constancy: x.constancy.clone(), ..AxisInfo::unknown(rank) };
                if matches!(op, UnaryOp::Neg | UnaryOp::Abs) && result_type.is_some_and(|s| s.is_int()) {
                    info.divisibility = x.divisibility.clone();
                }
                info
            }
            OpKind::Cmp { pred, lhs, rhs } => self.compare(*pred, &self.info(*lhs), &self.info(*rhs), &dims),
            OpKind::Select { cond, on_true, on_false } => {
                let (c, a, b) = (self.info(*cond), self.info(*on_true), self.info(*on_false));
                match c.constant {
                    Some(0) => b,
                    Some(_) => a,
                    None => {
                        let scalar_cond = self.f.ty(*cond).shape.is_empty() && !self.f.ty(*on_true).shape.is_empty();
                        let cond_constancy = |d: usize| if scalar_cond { MAX_DIVISIBILITY } else { c.constancy[d] };
                        AxisInfo {
                            contiguity: (0..rank)
                                .map(|d| gcd3(a.contiguity[d], b.contiguity[d], cond_constancy(d)))
                                .collect(),
                            divisibility: (0..rank).map(|d| divisibility_of_merge(&a, &b, d)).collect(),
                            constancy: (0..rank)
                                .map(|d| gcd3(a.constancy[d], b.constancy[d], cond_constancy(d)))
                                .collect(),
                            constant: if a.constant == b.constant { a.constant } else { None },
                        }
                    }
                }
            }
            OpKind::Cast { op, value } => self.cast(*op, *value, result),
            OpKind::Load { ptr, mask, other } => {
                let mut info = AxisInfo::unknown(rank);
                info.constancy = self.info(*ptr).constancy;
                for v in [mask, other].into_iter().flatten() {
                    let x = self.info(*v);
                    for d in 0..rank {
                        info.constancy[d] = gcd(info.constancy[d], x.constancy[d]);
                    }
                }
                info
            }
            OpKind::Math { value, .. } => self.elementwise(&[*value], rank),
            OpKind::Fma { a, b, c } => self.elementwise(&[*a, *b, *c], rank),
            OpKind::Hint { value, hint } => {
                let mut x = self.info(*value);
                let (target, values) = match hint {
                    Hint::MultipleOf(v) => (&mut x.divisibility, v),
                    Hint::MaxContiguous(v) => (&mut x.contiguity, v),
                    Hint::MaxConstancy(v) => (&mut x.constancy, v),
                };
                if values.len() == target.len() {
                    *target = values.iter().map(|&n| i64::from(n.max(1))).collect();
                }
                x
            }
            _ => AxisInfo::unknown(rank),
        }
    }

    /// An op whose elements depend only on the same elements of `operands`: runs of equal
    /// operands give runs of equal results.
    fn elementwise(&self, operands: &[Value], rank: usize) -> AxisInfo {
        let mut info = AxisInfo::unknown(rank);
        info.constancy = vec![MAX_DIVISIBILITY; rank];
        for &v in operands {
            let x = self.info(v);
            for d in 0..rank {
                info.constancy[d] = gcd(info.constancy[d], x.constancy.get(d).copied().unwrap_or(1));
            }
        }
        info
    }

    /// `tt.reshape`: facts carry over when only size-1 dims are added or removed; a value
    /// constant over the whole tile stays so; otherwise nothing is known.
    fn reshape(&self, v: Value, to: &[i64]) -> AxisInfo {
        let x = self.info(v);
        let from = self.dims(v);
        if from.iter().zip(&x.constancy).all(|(&n, &c)| c >= n) {
            return AxisInfo {
                contiguity: vec![1; to.len()],
                divisibility: vec![x.divisibility.iter().copied().fold(MAX_DIVISIBILITY, gcd); to.len()],
                constancy: to.to_vec(),
                constant: x.constant,
            };
        }
        let kept_from: Vec<usize> = (0..from.len()).filter(|&d| from[d] != 1).collect();
        let kept_to: Vec<usize> = (0..to.len()).filter(|&d| to[d] != 1).collect();
        let same = kept_from.len() == kept_to.len() && kept_from.iter().zip(&kept_to).all(|(&a, &b)| from[a] == to[b]);
        if !same {
            return AxisInfo::unknown(to.len());
        }
        let inserted = new_dim_divisibility(&x);
        let mut info = AxisInfo {
            contiguity: vec![1; to.len()],
            divisibility: vec![inserted; to.len()],
            constancy: vec![1; to.len()],
            constant: None,
        };
        for (&a, &b) in kept_from.iter().zip(&kept_to) {
            info.contiguity[b] = x.contiguity[a];
            info.divisibility[b] = x.divisibility[a];
            info.constancy[b] = x.constancy[a];
        }
        info
    }

    fn cast(&self, op: CastOp, value: Value, result: Value) -> AxisInfo {
        let x = self.info(value);
        let rank = x.rank();
        let from = self.f.values.get(value).map(|d| d.ty.elem);
        let to = self.f.values.get(result).map(|d| d.ty.elem);
        let int = |e: Option<Elem>| matches!(e, Some(Elem::Scalar(s)) if s.is_int() && !s.is_bool());
        // Contiguity in elements survives a pointer/integer change only for 1-byte pointees.
        let byte_pointer = |e: Option<Elem>| matches!(e, Some(Elem::Ptr(s)) if s.bytes() == 1);
        let keep_all = match op {
            CastOp::IntExt | CastOp::IntTrunc | CastOp::IntRetype | CastOp::Bitcast => int(from) && int(to),
            CastOp::PtrCast => matches!((from, to), (Some(Elem::Ptr(a)), Some(Elem::Ptr(b))) if a.bytes() == b.bytes()),
            CastOp::PtrToInt => byte_pointer(from),
            CastOp::IntToPtr => byte_pointer(to),
            _ => false,
        };
        if keep_all {
            let constant = match (x.constant, to.and_then(|e| e.scalar())) {
                (Some(c), Some(s)) if op == CastOp::IntTrunc => Some(wrap(c, s)),
                (Some(c), Some(_))
                    if op == CastOp::IntExt && from.and_then(|e| e.scalar()).is_some_and(|s| s.is_signed_int()) =>
                {
                    Some(c)
                }
                _ => None,
            };
            return AxisInfo { constant, ..x };
        }
        let mut info = AxisInfo { constancy: x.constancy.clone(), ..AxisInfo::unknown(rank) };
        if matches!(op, CastOp::PtrCast | CastOp::PtrToInt | CastOp::IntToPtr) {
            info.divisibility = x.divisibility.clone();
        }
        info
    }

    fn binary(&self, op: BinaryOp, a: &AxisInfo, b: &AxisInfo, dims: &[i64], s: ScalarType) -> AxisInfo {
        let rank = dims.len();
        let constant = match (a.constant, b.constant) {
            (Some(x), Some(y)) => match op {
                BinaryOp::Add => Some(wrap(x.wrapping_add(y), s)),
                BinaryOp::Sub => Some(wrap(x.wrapping_sub(y), s)),
                BinaryOp::Mul => Some(wrap(x.wrapping_mul(y), s)),
                BinaryOp::And => Some(x & y),
                BinaryOp::Or => Some(x | y),
                BinaryOp::Xor => Some(x ^ y),
                _ => None,
            },
            _ => None,
        };
        if let Some(c) = constant {
            return AxisInfo {
                contiguity: vec![1; rank],
                divisibility: vec![pow2_divisor(c); rank],
                constancy: (0..rank).map(|d| a.constancy[d].max(b.constancy[d])).collect(),
                constant: Some(c),
            };
        }
        let both_constancy = |d: usize| gcd(a.constancy[d], b.constancy[d]);
        let is = |x: &AxisInfo, v: i64| x.constant == Some(v);
        let per_dim = |contiguity: &dyn Fn(usize) -> i64,
                       divisibility: &dyn Fn(usize) -> i64,
                       constancy: &dyn Fn(usize) -> i64| {
            AxisInfo {
                contiguity: (0..rank).map(contiguity).collect(),
                divisibility: (0..rank).map(divisibility).collect(),
                constancy: (0..rank).map(constancy).collect(),
                constant: None,
            }
        };
        match op {
            BinaryOp::Add => per_dim(
                &|d| gcd(a.constancy[d], b.contiguity[d]).max(gcd(a.contiguity[d], b.constancy[d])),
                &|d| gcd(a.divisibility[d], b.divisibility[d]),
                &both_constancy,
            ),
            BinaryOp::Sub => per_dim(
                &|d| gcd(a.contiguity[d], b.constancy[d]),
                &|d| gcd(a.divisibility[d], b.divisibility[d]),
                &both_constancy,
            ),
            BinaryOp::Mul => per_dim(
                &|d| {
                    let left = if is(b, 1) { a.contiguity[d] } else { 1 };
                    let right = if is(a, 1) { b.contiguity[d] } else { 1 };
                    left.max(right)
                },
                &|d| {
                    // A run [2^n, 2^n + 1, ...] is only divisible by 1 once multiplied.
                    let left = if a.contiguity[d] > 1 && !is(b, 1) { 1 } else { a.divisibility[d] };
                    let right = if b.contiguity[d] > 1 && !is(a, 1) { 1 } else { b.divisibility[d] };
                    mul_divisor(left, right)
                },
                &both_constancy,
            ),
            BinaryOp::Div => per_dim(
                &|d| if is(b, 1) { a.contiguity[d] } else { 1 },
                &|d| {
                    if is(a, 0) || is(b, 1) {
                        a.divisibility[d]
                    } else if let Some(y) = b.constant.filter(|y| *y != 0 && (y.unsigned_abs()).is_power_of_two()) {
                        if a.contiguity[d] == 1 {
                            (a.divisibility[d] / y.unsigned_abs() as i64).max(1)
                        } else {
                            1
                        }
                    } else {
                        1
                    }
                },
                &|d| {
                    let mut constancy = both_constancy(d);
                    if a.is_contiguous_dim(d, dims[d]) && b.is_constant_dim(d, dims[d]) {
                        constancy = constancy.max(gcd3(a.contiguity[d], a.divisibility[d], b.divisibility[d]));
                    }
                    constancy
                },
            ),
            BinaryOp::Rem => per_dim(
                &|d| {
                    if a.is_contiguous_dim(d, dims[d]) && b.is_constant_dim(d, dims[d]) {
                        gcd3(a.contiguity[d], a.divisibility[d], b.divisibility[d])
                    } else {
                        1
                    }
                },
                &|d| if b.constancy[d] > 1 { gcd(a.divisibility[d], b.divisibility[d]) } else { 1 },
                &|d| if is(b, 1) { dims[d] } else { both_constancy(d) },
            ),
            BinaryOp::Shl => per_dim(
                &|d| if is(b, 0) { a.contiguity[d] } else { 1 },
                &|d| {
                    let shift = b.constant.filter(|&k| (0..62).contains(&k)).unwrap_or(0);
                    let left = if a.contiguity[d] > 1 && shift > 0 { 1 } else { a.divisibility[d] };
                    mul_divisor(left, 1 << shift)
                },
                &both_constancy,
            ),
            BinaryOp::Shr => per_dim(
                &|d| if is(b, 0) { a.contiguity[d] } else { 1 },
                &|d| match b.constant.filter(|&k| (0..63).contains(&k)) {
                    Some(shift) => {
                        let left = if a.contiguity[d] > 1 && shift > 0 { 1 } else { a.divisibility[d] };
                        (left >> shift).max(1)
                    }
                    None => 1,
                },
                &both_constancy,
            ),
            BinaryOp::Max | BinaryOp::Min => per_dim(
                &|d| gcd(a.contiguity[d], b.contiguity[d]),
                &|d| divisibility_of_merge(a, b, d),
                &both_constancy,
            ),
            BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::MulHi
            | BinaryOp::Pow
            | BinaryOp::Atan2
            | BinaryOp::Hypot => per_dim(&|_| 1, &|_| 1, &both_constancy),
        }
    }

    fn compare(&self, pred: CmpPred, a: &AxisInfo, b: &AxisInfo, dims: &[i64]) -> AxisInfo {
        let rank = dims.len();
        let constancy = (0..rank)
            .map(|d| {
                let mut c = gcd(a.constancy[d], b.constancy[d]);
                let (run, constant_side) = match pred {
                    // constant ⋈ run: `4 > [4, 5, 6, 7]` is uniform over aligned runs.
                    CmpPred::Gt | CmpPred::Le => (b, a),
                    CmpPred::Lt | CmpPred::Ge => (a, b),
                    CmpPred::Eq | CmpPred::Ne => return c,
                };
                if constant_side.is_constant_dim(d, dims[d]) {
                    c = c.max(gcd3(run.contiguity[d], a.divisibility[d], b.divisibility[d]));
                }
                c
            })
            .collect();
        AxisInfo { constancy, ..AxisInfo::unknown(rank) }
    }
}

/// Divisibility of a new size-1 dimension: what every element is known to be a multiple of.
fn new_dim_divisibility(x: &AxisInfo) -> i64 {
    if let Some(c) = x.constant {
        return pow2_divisor(c);
    }
    (0..x.rank()).map(|d| if x.contiguity[d] > 1 { 1 } else { x.divisibility[d] }).fold(MAX_DIVISIBILITY, gcd)
}

/// Whether the text form lists `v` (integers, booleans and pointers).
fn is_listed(f: &Function, v: Value) -> bool {
    f.values.get(v).is_some_and(|d| match d.ty.elem {
        Elem::Ptr(_) => true,
        Elem::Scalar(s) => s.is_int(),
    })
}

/// The stable text form of the analysis (`tilec compile --emit axis`): the Tile IR listing
/// with, after each op and after each region's opening line, a `//` comment per integer or
/// pointer value it defines.
pub fn print_axis_info(f: &Function, analysis: &AxisAnalysis) -> String {
    let names = ValueNames::new(f);
    let annotate = |v: Value| -> Option<String> {
        if !is_listed(f, v) {
            return None;
        }
        analysis.get(v).map(|info| format!("{}: {}", names.get(v), info.text()))
    };
    crate::print::print_function_annotated(f, &annotate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tilec_diagnostics::Span;

    fn i32_tensor(n: u32) -> Type {
        Type::tensor(Elem::Scalar(ScalarType::I32), vec![n])
    }

    #[test]
    fn pow2_divisor_of_common_values() {
        assert_eq!(pow2_divisor(0), MAX_DIVISIBILITY);
        assert_eq!(pow2_divisor(1), 1);
        assert_eq!(pow2_divisor(48), 16);
        assert_eq!(pow2_divisor(-64), 64);
        assert_eq!(pow2_divisor(i64::MIN), MAX_DIVISIBILITY);
    }

    /// `pid * 256 + arange(0, 256)` is one run of 256 consecutive integers starting at a
    /// multiple of 256; `% m` with `m:16` keeps runs of 16.
    #[test]
    fn block_offsets_are_contiguous_and_rem_keeps_runs_of_the_divisor() {
        let span = Span::default();
        let m = Param { name: "m".into(), ty: Type::scalar(ScalarType::I32), divisibility: 16, span };
        let mut f = Function::new("k", vec![m], span);
        let body = f.body;
        let m = f.param_values()[0];
        let i32t = Type::scalar(ScalarType::I32);
        let pid = f.append_value(body, OpKind::ProgramId(Axis::X), i32t.clone(), span);
        let block = f.append_value(body, OpKind::Constant(Constant::Int(256)), i32t.clone(), span);
        let start =
            f.append_value(body, OpKind::Binary { op: BinaryOp::Mul, lhs: pid, rhs: block }, i32t.clone(), span);
        let start_t = f.append_value(body, OpKind::Splat(start), i32_tensor(256), span);
        let range = f.append_value(body, OpKind::MakeRange { start: 0, end: 256 }, i32_tensor(256), span);
        let offs =
            f.append_value(body, OpKind::Binary { op: BinaryOp::Add, lhs: start_t, rhs: range }, i32_tensor(256), span);
        let m_t = f.append_value(body, OpKind::Splat(m), i32_tensor(256), span);
        let wrapped =
            f.append_value(body, OpKind::Binary { op: BinaryOp::Rem, lhs: offs, rhs: m_t }, i32_tensor(256), span);
        let hinted = f.append_value(
            body,
            OpKind::Hint { value: wrapped, hint: Hint::MaxContiguous(vec![256]) },
            i32_tensor(256),
            span,
        );
        let a = AxisAnalysis::new(&f);
        let info = |v| a.get(v).unwrap().clone();
        assert_eq!(info(start).divisibility, vec![256]);
        assert_eq!(
            (info(offs).contiguity, info(offs).divisibility, info(offs).constancy),
            (vec![256], vec![256], vec![1])
        );
        assert_eq!(info(m_t).constancy, vec![256]);
        assert_eq!(info(wrapped).contiguity, vec![16]);
        assert_eq!(info(hinted).contiguity, vec![256]);
        assert_eq!(info(hinted).divisibility, info(wrapped).divisibility);
    }

    /// A pointer advanced by a loop-invariant step keeps its contiguity across iterations; an
    /// offset that grows by 1 each iteration loses its constant value.
    #[test]
    fn loop_carried_values_reach_a_fixed_point() {
        let span = Span::default();
        let p = Param { name: "p".into(), ty: Type::ptr(ScalarType::F32), divisibility: 16, span };
        let mut f = Function::new("k", vec![p], span);
        let body = f.body;
        let p = f.param_values()[0];
        let i32t = Type::scalar(ScalarType::I32);
        let ptrs_t = Type::tensor(Elem::Ptr(ScalarType::F32), vec![64]);
        let zero = f.append_value(body, OpKind::Constant(Constant::Int(0)), i32t.clone(), span);
        let four = f.append_value(body, OpKind::Constant(Constant::Int(4)), i32t.clone(), span);
        let one = f.append_value(body, OpKind::Constant(Constant::Int(1)), i32t.clone(), span);
        let base = f.append_value(body, OpKind::Splat(p), ptrs_t.clone(), span);
        let range = f.append_value(body, OpKind::MakeRange { start: 0, end: 64 }, i32_tensor(64), span);
        let ptrs = f.append_value(body, OpKind::AddPtr { ptr: base, offset: range }, ptrs_t.clone(), span);
        let loop_body = f.new_region();
        let iv = f.add_region_param(loop_body, i32t.clone(), None);
        let carried_ptrs = f.add_region_param(loop_body, ptrs_t.clone(), None);
        let counter = f.add_region_param(loop_body, i32t.clone(), None);
        let step = f.append_value(loop_body, OpKind::Constant(Constant::Int(64)), i32_tensor(64), span);
        let next_ptrs =
            f.append_value(loop_body, OpKind::AddPtr { ptr: carried_ptrs, offset: step }, ptrs_t.clone(), span);
        let next_counter =
            f.append_value(loop_body, OpKind::Binary { op: BinaryOp::Add, lhs: counter, rhs: one }, i32t.clone(), span);
        f.append_op(loop_body, OpKind::Yield(vec![next_ptrs, next_counter]), vec![], span);
        let for_op = f.append_op(
            body,
            OpKind::For { lower: zero, upper: four, step: one, init: vec![ptrs, zero], body: loop_body },
            vec![ptrs_t, i32t],
            span,
        );
        let a = AxisAnalysis::new(&f);
        let info = |v| a.get(v).unwrap().clone();
        assert_eq!(info(ptrs).contiguity, vec![64]);
        assert_eq!(info(ptrs).divisibility, vec![16]);
        assert_eq!(info(carried_ptrs).contiguity, vec![64]);
        assert_eq!(info(carried_ptrs).divisibility, vec![16]);
        assert_eq!(info(iv).divisibility, vec![1]);
        assert_eq!(info(counter).constant, None);
        assert_eq!(info(f.ops[for_op].results[0]).contiguity, vec![64]);
    }
}
