//! Stride analysis of a loop nest, for a back end that strip-mines it: which values are
//! uniform over the iteration space, linear in the nest indices ([`Lin`]) or pointers that
//! walk memory with a fixed step ([`Class::PtrLin`]), which dims run as one flat strip-mined
//! range, and whether a prefix mask shortens that range ([`plan`]).
//!
//! Integer values are classified as linear functions of the nest indices plus uniform
//! scalars: `index` expressions, sums and differences with uniform values, products with
//! integer constants or with one runtime uniform integer (then a stride is `k + Σ c·var`,
//! and the uniform part may hold products of two uniform variables), integer extensions.
//! A pointer `uniform base + Lin` walks memory with the step of its `Lin` along the flat
//! range. Index arithmetic is assumed not to wrap (as Triton's own pointer analysis
//! assumes).
//!
//! Iteration space: dims of size 1 are dropped; the longest suffix of the remaining dims
//! along which every affine position of the body is linear in the row-major flattened
//! index ("collapsible": stride of dim k = stride of dim k+1 × size of dim k+1) is the flat
//! range ([`Plan::inner`]); the dims before it are looped one by one ([`Plan::outer`]).
//!
//! Prefix masks: when every store of the nest is masked by the same `cmp lt/le x, bound`
//! (signed or unsigned, any integer width) with `x` = uniform + flat index, the lanes run
//! are a prefix of the flat range ([`Plan::prefix`]) and the mask is all-true inside it
//! ([`Class::AllTrue`]); likewise for a masked load whose masked-off lanes only feed sums
//! with a zero.
//!
//! The analysis reads only the Vector IR. `None` anywhere means the nest uses something it
//! does not classify (atomics, program ids, a variable reassigned in the body, an
//! accumulator used otherwise than by one update and read-backs): the nest then stays a
//! scalar loop.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::smallvec;

use cranelift_entity::SecondaryMap;

use crate::vir::*;

/// `Σ coef·var + Σ coef·a·b + offset + Σ_k (strides[k] + Σ_v c_v[k]·v)·i_k`: an integer
/// value linear in the nest indices with coefficients that may be runtime uniform integers
/// (`scaled`, e.g. `rows * stride` with a runtime `stride`), plus a uniform part that may
/// hold products of two uniform variables (`(pid·B + i)·stride` → `pid·stride·B`). Exact
/// arithmetic: no wrapping assumed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lin {
    pub terms: Vec<(Var, i64)>,
    /// Products `a·b` of uniform variables (`a <= b`) with their coefficients.
    pub products: Vec<((Var, Var), i64)>,
    pub offset: i64,
    /// Constant part of the stride of each nest dim.
    pub strides: Vec<i64>,
    /// Runtime part of the strides: per uniform variable `v`, its coefficient in the stride
    /// of each nest dim (never all zero).
    pub scaled: Vec<(Var, Vec<i64>)>,
}

/// `konst + Σ coef·var`: a stride, known at compile time when `vars` is empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coef {
    pub konst: i64,
    pub vars: Vec<(Var, i64)>,
}

impl Coef {
    pub const ZERO: Coef = Coef { konst: 0, vars: Vec::new() };

    /// The value when it is a compile-time constant.
    pub fn constant(&self) -> Option<i64> {
        self.vars.is_empty().then_some(self.konst)
    }

    pub fn scaled(&self, c: i64) -> Coef {
        Coef { konst: self.konst * c, vars: self.vars.iter().map(|&(v, k)| (v, k * c)).filter(|t| t.1 != 0).collect() }
    }
}

/// Adds `more` into `into`, summing the coefficients of equal keys; zero entries go.
fn merge<K: PartialEq + Clone>(into: &mut Vec<(K, i64)>, more: &[(K, i64)]) {
    for (k, c) in more {
        match into.iter_mut().find(|(w, _)| w == k) {
            Some(t) => t.1 += c,
            None => into.push((k.clone(), *c)),
        }
    }
    into.retain(|(_, c)| *c != 0);
}

impl Lin {
    pub fn affine(a: &Affine, dims: usize) -> Lin {
        let mut strides = a.strides.clone();
        strides.resize(dims, 0);
        Lin { terms: Vec::new(), products: Vec::new(), offset: a.offset, strides, scaled: Vec::new() }
    }

    fn uniform(v: Var, dims: usize) -> Lin {
        Lin { terms: vec![(v, 1)], ..Lin::affine(&Affine::constant(0), dims) }
    }

    /// The stride of nest dim `dim`.
    pub fn stride(&self, dim: usize) -> Coef {
        let vars = self.scaled.iter().map(|(v, cs)| (*v, cs[dim])).filter(|t| t.1 != 0).collect();
        Coef { konst: self.strides[dim], vars }
    }

    /// `v` when the value at index 0 is exactly the variable `v` (one term, coefficient 1).
    pub fn single_term(&self) -> Option<Var> {
        match self.terms[..] {
            [(v, 1)] if self.products.is_empty() && self.offset == 0 => Some(v),
            _ => None,
        }
    }

    /// Whether the value does not depend on any variable at index 0 (it is `offset`).
    pub fn uniform_part_is_constant(&self) -> bool {
        self.terms.is_empty() && self.products.is_empty()
    }

    fn scaled(&self, c: i64) -> Lin {
        Lin {
            terms: self.terms.iter().map(|&(v, k)| (v, k * c)).filter(|t| t.1 != 0).collect(),
            products: self.products.iter().map(|&(p, k)| (p, k * c)).filter(|t| t.1 != 0).collect(),
            offset: self.offset * c,
            strides: self.strides.iter().map(|s| s * c).collect(),
            scaled: if c == 0 {
                Vec::new()
            } else {
                self.scaled.iter().map(|(v, cs)| (*v, cs.iter().map(|s| s * c).collect())).collect()
            },
        }
    }

    /// `self · v` for a uniform integer variable `v`, when the result stays in the form
    /// (`self` has no products and no runtime strides).
    fn times_var(&self, v: Var) -> Option<Lin> {
        if !self.products.is_empty() || !self.scaled.is_empty() {
            return None;
        }
        let dims = self.strides.len();
        let mut lin = Lin::affine(&Affine::constant(0), dims);
        merge(&mut lin.terms, &[(v, self.offset)]);
        let products: Vec<((Var, Var), i64)> = self.terms.iter().map(|&(t, k)| ((t.min(v), t.max(v)), k)).collect();
        merge(&mut lin.products, &products);
        if self.strides.iter().any(|&s| s != 0) {
            lin.scaled.push((v, self.strides.clone()));
        }
        Some(lin)
    }

    fn plus(&self, other: &Lin) -> Lin {
        let mut lin = self.clone();
        merge(&mut lin.terms, &other.terms);
        merge(&mut lin.products, &other.products);
        lin.offset += other.offset;
        lin.strides.iter_mut().zip(&other.strides).for_each(|(a, b)| *a += b);
        for (v, cs) in &other.scaled {
            match lin.scaled.iter_mut().find(|(w, _)| w == v) {
                Some((_, mine)) => mine.iter_mut().zip(cs).for_each(|(a, b)| *a += b),
                None => lin.scaled.push((*v, cs.clone())),
            }
        }
        lin.scaled.retain(|(_, cs)| cs.iter().any(|&c| c != 0));
        lin
    }
}

/// How a variable of the nest body is represented.
#[derive(Clone, Debug, PartialEq)]
pub enum Class {
    /// The same for every element: a live-in or an in-nest constant, in a scalar register.
    Uniform,
    Lin(Lin),
    /// `base + off` elements of `bytes` each, `base` uniform.
    PtrLin {
        base: Var,
        off: Lin,
        bytes: i64,
    },
    /// A mask known true on every element that runs (the prefix mask).
    AllTrue,
    /// A mask known false on every element that runs (the lanes past a [`Plan::split`]).
    AllFalse,
    /// A value read from scratch at a position that does not move along the flat range: a
    /// scalar for the whole range, read once per iteration of the outer loops (see
    /// [`Plan::outer_loads`] and [`plan_for_leaf`]).
    OuterUniform,
    /// A vector register (group), or a mask register for `i1`.
    Vector,
}

/// The prefix mask: lanes run while `lin < bound` (`<=` when `inclusive`), compared as
/// integers of `bits` bits, signed or not (the comparison's type).
#[derive(Clone, Debug)]
pub struct Prefix {
    pub lin: Lin,
    pub bound: Var,
    pub inclusive: bool,
    pub bits: u32,
    pub signed: bool,
    /// A condition the mask also requires that does not change along the flat range
    /// ([`plan_for_leaf`] only): when it fails, the prefix is empty.
    pub guard: Option<Guard>,
}

/// A comparison `lin < bound` (`<=` when `inclusive`; `bound < lin` / `bound <= lin` when
/// `swapped`) of a linear value with no stride along the flat range and a uniform value,
/// as integers of `bits` bits, signed or not.
#[derive(Clone, Debug)]
pub struct Guard {
    pub lin: Lin,
    pub bound: Var,
    pub inclusive: bool,
    pub swapped: bool,
    pub bits: u32,
    pub signed: bool,
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub classes: FxHashMap<Var, Class>,
    /// Nest dims looped by scalar code, outermost first.
    pub outer: Vec<usize>,
    /// Nest dims strip-mined as one flat range (may be empty: one element).
    pub inner: Vec<usize>,
    /// Number of elements of the flat range.
    pub flat_len: i64,
    pub prefix: Option<Prefix>,
    /// A mask of the body in prefix form (see [`find_prefix`]) when there is no
    /// [`Plan::prefix`]: a back end may run the range as two, the prefix with the mask
    /// [`Class::AllTrue`] and the rest with it [`Class::AllFalse`] (in [`Plan::classes`] it
    /// stays [`Class::Vector`]). Only in nests without scans or arg-accumulations.
    pub split: Option<(Var, Prefix)>,
    /// Row sums (one element for the whole flat range) whose lanes past the prefix add
    /// +0.0 to an element that may hold −0.0: when the prefix is shorter than the range,
    /// their accumulators start at +0.0 instead of −0.0, which is adding those +0.0 once.
    pub prefix_zero_sums: Vec<Buf>,
    /// Live-in variables read by the body, in first-use order (leaf arguments).
    pub live_in: Vec<Var>,
    /// Live-in variables that are constants (materialized in the leaf, not passed).
    pub live_constants: FxHashMap<Var, Constant>,
    /// Scratch buffers the body touches, in first-use order.
    pub bufs: Vec<Buf>,
    /// Index of the last body statement reading each variable.
    pub last_use: FxHashMap<Var, usize>,
    /// Accumulators read back in the nest after their update: scans.
    pub scans: FxHashSet<Buf>,
    /// The [`Class::OuterUniform`] values: each variable, the buffer and position it is
    /// read from, in body order.
    pub outer_loads: Vec<(Var, Buf, Affine)>,
    /// Accumulators whose element holds the identity of their accumulation when the nest
    /// starts: the statement storing it precedes the nest in its block, with nothing
    /// touching the buffer in between (a reduction's initialisation).
    pub fresh: Vec<Buf>,
}

impl Plan {
    /// Whether the range is cut or split by a prefix with a [`Guard`].
    pub fn is_guarded(&self) -> bool {
        let guarded = |p: &Prefix| p.guard.is_some();
        self.prefix.as_ref().is_some_and(guarded) || self.split.as_ref().is_some_and(|(_, p)| guarded(p))
    }

    /// Coefficient of the flat index in `lin`.
    pub fn flat_stride(&self, lin_strides: &[i64]) -> i64 {
        self.inner.last().map_or(0, |&k| lin_strides[k])
    }

    /// Whether `index` names one element for the whole flat range (a row accumulation).
    pub fn is_row(&self, index: &Affine) -> bool {
        !self.inner.is_empty() && self.inner.last().is_some_and(|&k| index.strides.get(k).is_none_or(|&s| s == 0))
    }

    /// Coefficient of the flat index in `lin`, runtime parts included.
    pub fn flat_coef(&self, lin: &Lin) -> Coef {
        self.inner.last().map_or(Coef { konst: 0, vars: Vec::new() }, |&k| lin.stride(k))
    }
}

/// The variables of a function assigned exactly once, by a constant: what the plans of its
/// nests start from. Computing it walks the whole function, so a back end planning many
/// nests of one function computes it once ([`Constants::of`]) and plans with [`plan_with`].
pub struct Constants {
    values: FxHashMap<Var, Constant>,
    /// The integer ones.
    ints: FxHashMap<Var, i64>,
}

impl Constants {
    /// The single-assignment constants of `f`.
    pub fn of(f: &Function) -> Constants {
        let values = single_constants(f);
        let ints =
            values.iter().filter_map(|(v, c)| if let Constant::Int(i) = c { Some((*v, *i)) } else { None }).collect();
        Constants { values, ints }
    }
}

/// Variables assigned exactly once in `f`, by a constant.
fn single_constants(f: &Function) -> FxHashMap<Var, Constant> {
    /// Counts the assignments of every variable (a loop's induction variable counts twice)
    /// and lists the assignments of constants.
    fn walk(block: &Block, count: &mut SecondaryMap<Var, u32>, assigned: &mut Vec<(Var, Constant)>) {
        for s in block {
            match s {
                Stmt::Assign { dst, expr, .. } => {
                    count[*dst] += 1;
                    if let Expr::Const(c) = expr {
                        assigned.push((*dst, *c));
                    }
                }
                Stmt::Nest(n) => walk(&n.body, count, assigned),
                Stmt::For { iv, body, .. } => {
                    count[*iv] += 2;
                    walk(body, count, assigned)
                }
                Stmt::If { then_block, else_block, .. } => {
                    walk(then_block, count, assigned);
                    walk(else_block, count, assigned);
                }
                Stmt::While { before, after, .. } => {
                    walk(before, count, assigned);
                    walk(after, count, assigned);
                }
                _ => {}
            }
        }
    }
    let mut count = SecondaryMap::with_capacity(f.vars.len());
    let mut assigned = Vec::new();
    walk(&f.body, &mut count, &mut assigned);
    for p in &f.params {
        count[p.var] += 1;
    }
    assigned.into_iter().filter(|(v, _)| count[*v] == 1).collect()
}

/// Variables read by a nest body statement (`None` for statements that cannot be in a
/// strip-mined body: nests, dots, control flow, asserts).
pub fn stmt_reads(s: &Stmt) -> Option<Operands> {
    Some(match s {
        Stmt::Assign { expr, .. } => expr.operands(),
        Stmt::Store { ptr, value, mask, .. } => [Some(*ptr), Some(*value), *mask].into_iter().flatten().collect(),
        Stmt::StoreScratch { value, .. } => smallvec![*value],
        Stmt::Accumulate { value, .. } => smallvec![*value],
        Stmt::AccumulateWith { values, position, .. } => values.iter().copied().chain([*position]).collect(),
        Stmt::AccumulateArg { value, position, .. } => smallvec![*value, *position],
        _ => return None,
    })
}

/// The scratch buffers a body statement touches.
pub fn stmt_bufs(s: &Stmt) -> Vec<Buf> {
    match s {
        Stmt::Assign { expr: Expr::LoadScratch { buf, .. } | Expr::LoadScratchAt { buf, .. }, .. } => vec![*buf],
        Stmt::StoreScratch { buf, .. } | Stmt::Accumulate { buf, .. } => vec![*buf],
        Stmt::AccumulateWith { bufs, .. } => bufs.clone(),
        Stmt::AccumulateArg { vals, idxs, .. } => vec![*vals, *idxs],
        _ => Vec::new(),
    }
}

/// An accumulation as `(buf, index, op, value, position)`: a [`Stmt::Accumulate`], or a
/// [`Stmt::AccumulateWith`] whose combine is one binary operation of `acc` and `value` (in
/// either order) that an [`AccOp`] names; `position` is then where the element starts
/// over (its buffer is not initialized: the first combine stores the value).
pub fn accumulation<'s>(f: &Function, s: &'s Stmt) -> Option<(Buf, &'s Affine, AccOp, Var, Option<Var>)> {
    match s {
        Stmt::Accumulate { buf, index, op, value } => Some((*buf, index, *op, *value, None)),
        Stmt::AccumulateWith { bufs, index, values, position, accs, body, results } => {
            let ([buf], [value], [acc], [result]) = (&bufs[..], &values[..], &accs[..], &results[..]) else {
                return None;
            };
            let [Stmt::Assign { dst, expr: Expr::Binary(op, a, b), .. }] = body.as_slice() else { return None };
            let operands_are_acc_and_value = (*a == *acc && *b == *value) || (*a == *value && *b == *acc);
            if dst != result || !operands_are_acc_and_value || f.ty(*result) != f.bufs[*buf].elem {
                return None;
            }
            let op = match op {
                BinaryOp::Add => AccOp::Sum,
                BinaryOp::Mul => AccOp::Prod,
                BinaryOp::Max => AccOp::Max,
                BinaryOp::Min => AccOp::Min,
                BinaryOp::And => AccOp::And,
                BinaryOp::Or => AccOp::Or,
                BinaryOp::Xor => AccOp::Xor,
                _ => return None,
            };
            Some((*buf, index, op, *value, Some(*position)))
        }
        _ => None,
    }
}

/// Whether a nest dim sequence is collapsible for `strides`.
fn collapsible(dims: &[usize], shape: &[u32], strides: &[i64]) -> bool {
    dims.windows(2).all(|w| strides[w[0]] == strides[w[1]] * shape[w[1]] as i64)
}

/// The analysis of `nest` (a nest of `f`), or `None` when the nest is not strip-mined (see
/// the module doc).
pub fn plan(f: &Function, nest: &Nest) -> Option<Plan> {
    plan_with(f, &Constants::of(f), nest)
}

/// [`plan`] with the constants of `f` computed already.
pub fn plan_with(f: &Function, constants: &Constants, nest: &Nest) -> Option<Plan> {
    plan_at(f, constants, nest, nest)
}

/// [`plan_with`] of `nest`, a rewrite of `site` (a nest of `f`) with the same accumulations
/// and scratch buffers: what `f` does around the nest is looked up at `site`.
fn plan_at(f: &Function, constants: &Constants, nest: &Nest, site: &Nest) -> Option<Plan> {
    let dims = nest.shape.len();
    let consts = &constants.ints;
    let constants = &constants.values;
    let mut live_constants = FxHashMap::default();
    let assigned: FxHashSet<Var> =
        nest.body.iter().filter_map(|s| if let Stmt::Assign { dst, .. } = s { Some(*dst) } else { None }).collect();
    let mut classes: FxHashMap<Var, Class> = FxHashMap::default();
    let mut live_in = Vec::new();
    let mut bufs = Vec::new();
    let mut last_use = FxHashMap::default();
    let mut affines: Vec<Vec<i64>> = Vec::new();
    let use_buf = |b: Buf, bufs: &mut Vec<Buf>| {
        if !bufs.contains(&b) {
            bufs.push(b);
        }
    };
    for (at, s) in nest.body.iter().enumerate() {
        for v in stmt_reads(s)? {
            last_use.insert(v, at);
            if !assigned.contains(&v) && !classes.contains_key(&v) {
                if nest.indices.contains(&v) {
                    return None;
                }
                match constants.get(&v) {
                    Some(c) => {
                        live_constants.insert(v, *c);
                    }
                    None => live_in.push(v),
                }
                classes.insert(v, Class::Uniform);
            }
        }
        match s {
            Stmt::StoreScratch { buf, index, .. } | Stmt::Accumulate { buf, index, .. } => {
                use_buf(*buf, &mut bufs);
                affines.push(Lin::affine(index, dims).strides);
            }
            Stmt::AccumulateWith { .. } => {
                let (buf, index, ..) = accumulation(f, s)?;
                use_buf(buf, &mut bufs);
                affines.push(Lin::affine(index, dims).strides);
            }
            Stmt::AccumulateArg { vals, idxs, index, .. } => {
                use_buf(*vals, &mut bufs);
                use_buf(*idxs, &mut bufs);
                affines.push(Lin::affine(index, dims).strides);
            }
            Stmt::Assign { dst, expr, .. } => {
                if let Expr::LoadScratch { buf, index } = expr {
                    use_buf(*buf, &mut bufs);
                    affines.push(Lin::affine(index, dims).strides);
                }
                if let Expr::Index(a) = expr {
                    affines.push(Lin::affine(a, dims).strides);
                }
                let class = classify(f, expr, *dst, &classes, consts, dims)?;
                if classes.contains_key(dst) {
                    // Reassigned in the body: keep it simple, leave it to the scalar path.
                    return None;
                }
                classes.insert(*dst, class);
            }
            _ => {}
        }
    }
    let scans = scan_accumulators(f, nest)?;
    // Sums of collapsible affine functions are collapsible: checking the leaves suffices.
    let non_unit: Vec<usize> = (0..dims).filter(|&k| nest.shape[k] > 1).collect();
    let mut split = non_unit.len();
    while split > 0 && affines.iter().all(|s| collapsible(&non_unit[split - 1..], &nest.shape, s)) {
        split -= 1;
    }
    let (outer, inner) = (non_unit[..split].to_vec(), non_unit[split..].to_vec());
    let flat_len = inner.iter().map(|&k| nest.shape[k] as i64).product();
    // A rewrite of the site moves statements, not what the nest reads: its leaf takes its
    // arguments in the site's order.
    if !std::ptr::eq(nest, site) {
        let first = |touches: &dyn Fn(&Stmt) -> bool| site.body.iter().position(touches).unwrap_or(usize::MAX);
        live_in.sort_by_key(|v| first(&|s| stmt_reads(s).is_none_or(|r| r.contains(v))));
        bufs.sort_by_key(|b| first(&|s| stmt_bufs(s).contains(b)));
    }
    let mut plan = Plan {
        classes,
        outer,
        inner,
        flat_len,
        prefix: None,
        split: None,
        prefix_zero_sums: Vec::new(),
        live_in,
        live_constants,
        bufs,
        last_use,
        scans,
        fresh: fresh_accumulators(f, constants, site),
        outer_loads: Vec::new(),
    };
    if let Some((mask, zero_sums)) = prefix_candidate(f, constants, nest, site, &plan) {
        plan.prefix = find_prefix(f, nest, &plan, mask);
        if plan.prefix.is_some() {
            plan.classes.insert(mask, Class::AllTrue);
            plan.prefix_zero_sums = zero_sums;
        }
    }
    if plan.prefix.is_none() && splittable(&plan) {
        plan.split = load_split(nest, |m| find_prefix(f, nest, &plan, m));
    }
    Some(plan)
}

/// Whether a masked load may split the flat range ([`Plan::split`]): not in nests with
/// scans.
fn splittable(plan: &Plan) -> bool {
    plan.scans.is_empty()
}

/// The first masked load's mask that `prefix_of` puts in prefix form, with that prefix.
fn load_split(nest: &Nest, prefix_of: impl Fn(Var) -> Option<Prefix>) -> Option<(Var, Prefix)> {
    nest.body
        .iter()
        .filter_map(|s| match s {
            Stmt::Assign { expr: Expr::Load { mask: Some(m), .. }, .. } => Some(*m),
            _ => None,
        })
        .find_map(|m| Some((m, prefix_of(m)?)))
}

/// A guard ([`Guard`]) from mask `m` of the body: a comparison of a linear value that does
/// not move along the flat range with a uniform value.
fn find_guard(f: &Function, nest: &Nest, plan: &Plan, m: Var) -> Option<Guard> {
    let (pred, a, b) = nest.body.iter().find_map(|s| match s {
        Stmt::Assign { dst, expr: Expr::Cmp(pred, a, b), .. } if *dst == m => Some((*pred, *a, *b)),
        _ => None,
    })?;
    let Elem::Scalar(st) = f.ty(a) else { return None };
    if !st.is_int() || st.is_bool() {
        return None;
    }
    let (lin_var, bound, inclusive, swapped) = match (pred, plan.classes.get(&a)) {
        (CmpPred::Lt, Some(Class::Lin(_))) => (a, b, false, false),
        (CmpPred::Le, Some(Class::Lin(_))) => (a, b, true, false),
        (CmpPred::Gt, Some(Class::Lin(_))) => (a, b, false, true),
        (CmpPred::Ge, Some(Class::Lin(_))) => (a, b, true, true),
        (CmpPred::Gt, _) => (b, a, false, false),
        (CmpPred::Ge, _) => (b, a, true, false),
        (CmpPred::Lt, _) => (b, a, false, true),
        (CmpPred::Le, _) => (b, a, true, true),
        _ => return None,
    };
    let Some(Class::Lin(lin)) = plan.classes.get(&lin_var) else { return None };
    if plan.classes.get(&bound) != Some(&Class::Uniform) || plan.flat_coef(lin) != Coef::ZERO {
        return None;
    }
    let (bits, signed) = (st.bytes() * 8, st.is_signed_int());
    Some(Guard { lin: lin.clone(), bound, inclusive, swapped, bits, signed })
}

/// [`find_prefix`], or for `m = and(x, y)` with one side in prefix form and the other a
/// [`Guard`], that prefix guarded.
fn find_guarded_prefix(f: &Function, nest: &Nest, plan: &Plan, m: Var) -> Option<Prefix> {
    if let Some(p) = find_prefix(f, nest, plan, m) {
        return Some(p);
    }
    let (a, b) = nest.body.iter().find_map(|s| match s {
        Stmt::Assign { dst, expr: Expr::Binary(BinaryOp::And, a, b), .. } if *dst == m => Some((*a, *b)),
        _ => None,
    })?;
    [(a, b), (b, a)].into_iter().find_map(|(p, g)| {
        let guard = find_guard(f, nest, plan, g)?;
        Some(Prefix { guard: Some(guard), ..find_prefix(f, nest, plan, p)? })
    })
}

/// [`plan`] for a back end that reads, once per iteration of the outer loops, the scratch
/// elements the body reads at a position that does not move along the flat range
/// ([`Class::OuterUniform`]): a pointer tile's row base read from scratch then starts a
/// stream rather than making every access a gather. The buffer must not be written by the
/// nest; the classes of the values computed from such a read are derived again. With
/// `guards`, a mask that adds a [`Guard`] to a prefix cuts or splits the range too
/// ([`Plan::is_guarded`]); a back end that cannot fit that form plans again without.
///
/// `site` is the nest as it stands in `f`, of which `nest` may be a rewrite with the same
/// accumulations and scratch buffers (what `f` does around the nest is looked up there).
pub fn plan_for_leaf(f: &Function, constants: &Constants, nest: &Nest, site: &Nest, guards: bool) -> Option<Plan> {
    let mut plan = plan_at(f, constants, nest, site)?;
    // Masks that add a guard to a prefix: the stores' mask cuts the range (in a nest with
    // scans and no masked store, its loads' mask), else a masked load's splits it.
    if guards && plan.prefix.is_none() && plan.split.is_none() && !plan.inner.is_empty() {
        // The loads' mask qualifies when the lanes it rules out are inert (rows the guard
        // rules out add no +0.0 to sums: no sum may need it).
        let inert_load_mask = || {
            let (mask, zero_sums) = prefix_candidate(f, &constants.values, nest, site, &plan)?;
            zero_sums.is_empty().then_some(mask)
        };
        let guard = match store_mask(nest) {
            Some(Some(mask)) => Some(mask),
            _ => (!plan.scans.is_empty()).then(inert_load_mask).flatten(),
        };
        if let Some(mask) = guard {
            if let Some(p) = find_guarded_prefix(f, nest, &plan, mask) {
                plan.classes.insert(mask, Class::AllTrue);
                plan.prefix = Some(p);
            }
        } else if splittable(&plan) {
            plan.split = load_split(nest, |m| find_guarded_prefix(f, nest, &plan, m));
        }
    }
    if plan.inner.is_empty() {
        return Some(plan);
    }
    let dims = nest.shape.len();
    let written: FxHashSet<Buf> = nest
        .body
        .iter()
        .flat_map(|s| match s {
            Stmt::StoreScratch { buf, .. } | Stmt::Accumulate { buf, .. } => vec![*buf],
            Stmt::AccumulateWith { bufs, .. } => bufs.clone(),
            Stmt::AccumulateArg { vals, idxs, .. } => vec![*vals, *idxs],
            _ => Vec::new(),
        })
        .collect();
    let consts = &constants.ints;
    let mut changed = false;
    for s in &nest.body {
        let Stmt::Assign { dst, expr, .. } = s else { continue };
        if let Expr::LoadScratch { buf, index } = expr {
            let still = plan.inner.iter().all(|&k| index.strides.get(k).is_none_or(|&st| st == 0));
            let scalar =
                matches!(f.ty(*dst), Elem::Ptr(_)) || matches!(f.ty(*dst), Elem::Scalar(st) if st != ScalarType::I1);
            if still && scalar && !written.contains(buf) {
                plan.classes.insert(*dst, Class::OuterUniform);
                plan.outer_loads.push((*dst, *buf, index.clone()));
                changed = true;
                continue;
            }
        }
        if changed && plan.classes.get(dst) != Some(&Class::AllTrue) {
            let class = classify(f, expr, *dst, &plan.classes, consts, dims)?;
            plan.classes.insert(*dst, class);
        }
    }
    // A value read per outer iteration may be a term of a linear value (its stream starts
    // after the read), not a factor of the products and strides set before the loops.
    let loaded = |v: &Var| plan.outer_loads.iter().any(|l| l.0 == *v);
    let factor = |lin: &Lin| {
        lin.products.iter().any(|((a, b), _)| loaded(a) || loaded(b)) || lin.scaled.iter().any(|(v, _)| loaded(v))
    };
    let factors = plan.classes.values().any(|c| match c {
        Class::Lin(lin) | Class::PtrLin { off: lin, .. } => factor(lin),
        _ => false,
    });
    if factors {
        return plan_at(f, constants, nest, site);
    }
    Some(plan)
}

/// The statements before `nest` in the block holding it, nearest first.
fn statements_before<'f>(block: &'f Block, nest: &Nest) -> Option<Vec<&'f Stmt>> {
    for (k, s) in block.iter().enumerate() {
        let inner: Vec<&Block> = match s {
            Stmt::Nest(n) if std::ptr::eq(n, nest) => return Some(block[..k].iter().rev().collect()),
            Stmt::For { body, .. } => vec![body],
            Stmt::If { then_block, else_block, .. } => vec![then_block, else_block],
            Stmt::While { before, after, .. } => vec![before, after],
            _ => continue,
        };
        if let Some(found) = inner.into_iter().find_map(|b| statements_before(b, nest)) {
            return Some(found);
        }
    }
    None
}

/// Whether two constants are the same value (floats bit for bit, any NaN equal to any).
fn same_constant(a: Constant, b: Constant) -> bool {
    match (a, b) {
        (Constant::Float(x), Constant::Float(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

/// The row accumulators of `nest` whose element holds its accumulation's identity when
/// the nest starts (see [`Plan::fresh`]).
fn fresh_accumulators(f: &Function, constants: &FxHashMap<Var, Constant>, nest: &Nest) -> Vec<Buf> {
    let Some(before) = statements_before(&f.body, nest) else { return Vec::new() };
    let mut fresh = Vec::new();
    for s in &nest.body {
        let Some((buf, index, op, ..)) = accumulation(f, s) else { continue };
        if !matches!(s, Stmt::Accumulate { .. }) || index.strides.iter().any(|&st| st != 0) {
            continue;
        }
        let Elem::Scalar(st) = f.bufs[buf].elem else { continue };
        let identity = crate::lower::identity(op, st);
        for stmt in &before {
            match stmt {
                Stmt::StoreScratch { buf: b, index: i, value } if *b == buf => {
                    let same_element = i.offset == index.offset && i.strides.iter().all(|&st| st == 0);
                    if same_element && constants.get(value).is_some_and(|&c| same_constant(c, identity)) {
                        fresh.push(buf);
                    }
                    break;
                }
                Stmt::Assign { .. } | Stmt::Store { .. } | Stmt::StoreScratch { .. } => {}
                _ => break,
            }
        }
    }
    fresh
}

/// The accumulators of the body that are scans, or `None` when some accumulator is used
/// otherwise than as: updated by one statement and, for a scan, read back after it at the
/// same element (never stored to, never read before the update; arg-accumulations never
/// read back).
fn scan_accumulators(f: &Function, nest: &Nest) -> Option<FxHashSet<Buf>> {
    // The element each accumulator updates (`None`: an arg-accumulation's buffers).
    let mut updates: FxHashMap<Buf, Option<&Affine>> = FxHashMap::default();
    for s in &nest.body {
        let updated: Vec<(Buf, Option<&Affine>)> = match s {
            Stmt::AccumulateArg { vals, idxs, .. } => vec![(*vals, None), (*idxs, None)],
            _ => accumulation(f, s).map(|(buf, index, ..)| (buf, Some(index))).into_iter().collect(),
        };
        for (buf, index) in updated {
            if updates.insert(buf, index).is_some() {
                return None;
            }
        }
    }
    let mut scans = FxHashSet::default();
    let mut updated = FxHashSet::default();
    for s in &nest.body {
        match s {
            Stmt::Accumulate { buf, .. } => {
                updated.insert(*buf);
            }
            Stmt::AccumulateWith { bufs, .. } => updated.extend(bufs.iter().copied()),
            Stmt::StoreScratch { buf, .. } if updates.contains_key(buf) => return None,
            Stmt::Assign { expr: Expr::LoadScratch { buf, index }, .. } if updates.contains_key(buf) => {
                if !updated.contains(buf) || updates[buf] != Some(index) {
                    return None;
                }
                scans.insert(*buf);
            }
            _ => {}
        }
    }
    Some(scans)
}

/// The mask shared by every store of the body (`Some(None)`: some store is unmasked). An
/// accumulation counts as an unmasked store: every lane of the range contributes to it.
fn store_mask(nest: &Nest) -> Option<Option<Var>> {
    let mut mask = None;
    for s in &nest.body {
        let m = match s {
            Stmt::Store { mask, .. } => *mask,
            Stmt::StoreScratch { .. }
            | Stmt::Accumulate { .. }
            | Stmt::AccumulateWith { .. }
            | Stmt::AccumulateArg { .. } => None,
            _ => continue,
        };
        match mask {
            None => mask = Some(m),
            Some(prev) if prev != m => return Some(None),
            Some(_) => {}
        }
    }
    mask
}

/// The mask that may shorten the range to its prefix: the stores' common mask, or, for a
/// nest whose lanes where `mask` is false only ever feed sums with a zero (see
/// [`lanes_past_prefix_are_inert`]), the mask of its first masked load, with the row sums
/// that must then add +0.0 once ([`Plan::prefix_zero_sums`]).
fn prefix_candidate(
    f: &Function,
    constants: &FxHashMap<Var, Constant>,
    nest: &Nest,
    site: &Nest,
    plan: &Plan,
) -> Option<(Var, Vec<Buf>)> {
    if let Some(Some(mask)) = store_mask(nest) {
        return Some((mask, Vec::new()));
    }
    let mask = nest.body.iter().find_map(|s| match s {
        Stmt::Assign { expr: Expr::Load { mask: Some(m), .. }, .. } => Some(*m),
        _ => None,
    })?;
    lanes_past_prefix_are_inert(f, constants, nest, site, plan, mask).map(|zero_sums| (mask, zero_sums))
}

/// Whether skipping the lanes where `mask` is false leaves every result bit for bit as
/// running them does, and the row sums that need +0.0 added once for that (`None`: it
/// does not). Every global store must be masked by `mask`, nothing else written but sums
/// and scans, and each sum's value a zero on those lanes. Adding −0.0 (or an integer 0)
/// changes nothing. Adding +0.0 changes only a −0.0: never when the element cannot hold
/// −0.0 (every write to its buffer is a sum or a store of a constant other than −0.0, and
/// a sum is −0.0 only when all its terms are); for a row sum, adding it any number of
/// times at least once is adding it once; other sums are not shortened. A scan along the
/// flat range (a row) whose buffer nothing outside the nest reads is inert past the prefix
/// whatever it adds: those lanes come after every lane of the prefix in the row, so they
/// change no value a lane of the prefix reads back, only the accumulator's last value.
fn lanes_past_prefix_are_inert(
    f: &Function,
    constants: &FxHashMap<Var, Constant>,
    nest: &Nest,
    site: &Nest,
    plan: &Plan,
    mask: Var,
) -> Option<Vec<Buf>> {
    let off = values_where_false(f, nest, plan, mask);
    let mut zero_sums = Vec::new();
    for s in &nest.body {
        let inert = match s {
            Stmt::Assign { .. } => true,
            Stmt::Store { mask: m, .. } => *m == Some(mask),
            Stmt::Accumulate { buf, index, .. } if plan.scans.contains(buf) => {
                plan.is_row(index) && !read_outside(&f.body, *buf, site)
            }
            Stmt::Accumulate { buf, index, op: AccOp::Sum, value } => match off.get(value) {
                Some(Constant::Int(0)) => true,
                Some(Constant::Float(z))
                    if *z == 0.0 && (z.is_sign_negative() || never_negative_zero(f, constants, *buf)) =>
                {
                    true
                }
                Some(Constant::Float(z)) if *z == 0.0 && plan.is_row(index) => {
                    if !zero_sums.contains(buf) {
                        zero_sums.push(*buf);
                    }
                    true
                }
                _ => false,
            },
            _ => false,
        };
        if !inert {
            return None;
        }
    }
    Some(zero_sums)
}

/// The values known on the lanes where `mask` is false: constants, loads masked by `mask`
/// (their `other`, or zero), selects on `mask`, copies, and sums, differences and products
/// of zeros (exact in every precision).
fn values_where_false(f: &Function, nest: &Nest, plan: &Plan, mask: Var) -> FxHashMap<Var, Constant> {
    let mut off: FxHashMap<Var, Constant> = FxHashMap::default();
    for s in &nest.body {
        let Stmt::Assign { dst, expr, .. } = s else { continue };
        let known =
            |v: &Var, off: &FxHashMap<Var, Constant>| off.get(v).or_else(|| plan.live_constants.get(v)).copied();
        let value = if *dst == mask {
            Some(Constant::Bool(false))
        } else {
            match expr {
                Expr::Const(c) => Some(*c),
                Expr::Copy(a) => known(a, &off),
                Expr::Load { mask: Some(m), other, .. } if *m == mask => match other {
                    Some(o) => known(o, &off),
                    None => match f.ty(*dst) {
                        Elem::Scalar(st) if st.is_float() => Some(Constant::Float(0.0)),
                        Elem::Scalar(st) if st.is_int() && !st.is_bool() => Some(Constant::Int(0)),
                        _ => None,
                    },
                },
                Expr::Select { cond, on_true, on_false } => match known(cond, &off) {
                    Some(Constant::Bool(c)) => known(if c { on_true } else { on_false }, &off),
                    _ => None,
                },
                Expr::Binary(op @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul), a, b) => {
                    match (known(a, &off), known(b, &off)) {
                        (Some(Constant::Float(x)), Some(Constant::Float(y))) if x == 0.0 && y == 0.0 => {
                            Some(Constant::Float(match op {
                                BinaryOp::Add => x + y,
                                BinaryOp::Sub => x - y,
                                _ => x * y,
                            }))
                        }
                        (Some(Constant::Int(0)), Some(Constant::Int(0))) => Some(Constant::Int(0)),
                        _ => None,
                    }
                }
                _ => None,
            }
        };
        if let Some(c) = value {
            off.insert(*dst, c);
        }
    }
    off
}

/// Whether a statement of `block` outside `nest` reads `buf` (a dot touching it counts).
fn read_outside(block: &Block, buf: Buf, nest: &Nest) -> bool {
    let reads =
        |e: &Expr| matches!(e, Expr::LoadScratch { buf: b, .. } | Expr::LoadScratchAt { buf: b, .. } if *b == buf);
    block.iter().any(|s| match s {
        Stmt::Nest(n) => !std::ptr::eq(n, nest) && read_outside(&n.body, buf, nest),
        Stmt::Assign { expr, .. } => reads(expr),
        Stmt::Accumulate { buf: b, .. } => *b == buf,
        Stmt::AccumulateWith { bufs, body, .. } => bufs.contains(&buf) || read_outside(body, buf, nest),
        Stmt::AccumulateArg { vals, idxs, .. } => *vals == buf || *idxs == buf,
        Stmt::Dot(d) => d.c == buf || d.a.scratch() == Some(buf) || d.b.scratch() == Some(buf),
        Stmt::For { body, .. } => read_outside(body, buf, nest),
        Stmt::If { then_block, else_block, .. } => {
            read_outside(then_block, buf, nest) || read_outside(else_block, buf, nest)
        }
        Stmt::While { before, after, .. } => read_outside(before, buf, nest) || read_outside(after, buf, nest),
        _ => false,
    })
}

/// Whether no write to `buf` anywhere in `f` can leave −0.0 in it: every write is a sum or
/// a store of a constant other than −0.0.
fn never_negative_zero(f: &Function, constants: &FxHashMap<Var, Constant>, buf: Buf) -> bool {
    fn walk(block: &Block, buf: Buf, constants: &FxHashMap<Var, Constant>) -> bool {
        block.iter().all(|s| match s {
            Stmt::StoreScratch { buf: b, value, .. } if *b == buf => match constants.get(value) {
                Some(Constant::Float(x)) => !(*x == 0.0 && x.is_sign_negative()),
                Some(_) => true,
                None => false,
            },
            Stmt::Accumulate { buf: b, op, .. } if *b == buf => *op == AccOp::Sum,
            Stmt::AccumulateWith { bufs, .. } => !bufs.contains(&buf),
            Stmt::AccumulateArg { vals, idxs, .. } => *vals != buf && *idxs != buf,
            Stmt::Dot(d) => d.c != buf,
            Stmt::Nest(n) => walk(&n.body, buf, constants),
            Stmt::For { body, .. } => walk(body, buf, constants),
            Stmt::If { then_block, else_block, .. } => {
                walk(then_block, buf, constants) && walk(else_block, buf, constants)
            }
            Stmt::While { before, after, .. } => walk(before, buf, constants) && walk(after, buf, constants),
            _ => true,
        })
    }
    walk(&f.body, buf, constants)
}

/// The prefix form of `mask` (an `i1` assigned in the body by a `cmp` of a value with flat
/// coefficient 1 against a uniform bound): the lanes where it holds are a prefix of the flat
/// range. Unlike [`Plan::prefix`] this says nothing about the lanes past the prefix; a back
/// end that runs them with the mask known false needs no more.
pub fn find_prefix(f: &Function, nest: &Nest, plan: &Plan, mask: Var) -> Option<Prefix> {
    let (pred, a, b) = nest.body.iter().find_map(|s| match s {
        Stmt::Assign { dst, expr: Expr::Cmp(pred, a, b), .. } if *dst == mask => Some((*pred, *a, *b)),
        _ => None,
    })?;
    let Elem::Scalar(st) = f.ty(a) else { return None };
    if !st.is_int() || st.is_bool() {
        return None;
    }
    let (lin_var, bound, inclusive) = match pred {
        CmpPred::Lt => (a, b, false),
        CmpPred::Le => (a, b, true),
        CmpPred::Gt => (b, a, false),
        CmpPred::Ge => (b, a, true),
        _ => return None,
    };
    let Some(Class::Lin(lin)) = plan.classes.get(&lin_var) else { return None };
    if plan.classes.get(&bound) != Some(&Class::Uniform) || plan.inner.is_empty() {
        return None;
    }
    let (bits, signed) = (st.bytes() * 8, st.is_signed_int());
    (plan.flat_coef(lin).constant() == Some(1)).then(|| Prefix {
        lin: lin.clone(),
        bound,
        inclusive,
        bits,
        signed,
        guard: None,
    })
}

fn is_int(f: &Function, v: Var) -> bool {
    matches!(f.ty(v), Elem::Scalar(s) if s.is_int() && !s.is_bool())
}

fn classify(
    f: &Function,
    expr: &Expr,
    dst: Var,
    classes: &FxHashMap<Var, Class>,
    consts: &FxHashMap<Var, i64>,
    dims: usize,
) -> Option<Class> {
    let lin_of = |v: Var| -> Option<Lin> {
        match classes.get(&v)? {
            Class::Lin(l) => Some(l.clone()),
            Class::Uniform if consts.contains_key(&v) => Some(Lin::affine(&Affine::constant(consts[&v]), dims)),
            Class::Uniform | Class::OuterUniform if is_int(f, v) => Some(Lin::uniform(v, dims)),
            _ => None,
        }
    };
    let is_lin = |v: Var| matches!(classes.get(&v), Some(Class::Lin(_)));
    Some(match expr {
        Expr::Const(_) => Class::Uniform,
        Expr::ProgramId(_) | Expr::NumPrograms(_) | Expr::AtomicRmw { .. } | Expr::AtomicCas { .. } => return None,
        Expr::Copy(v) => classes.get(v)?.clone(),
        Expr::Index(a) if is_int(f, dst) => Class::Lin(Lin::affine(a, dims)),
        Expr::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) if is_int(f, dst) && (is_lin(*a) || is_lin(*b)) => {
            match (lin_of(*a), lin_of(*b)) {
                (Some(x), Some(y)) => Class::Lin(x.plus(&y.scaled(if *op == BinaryOp::Sub { -1 } else { 1 }))),
                _ => Class::Vector,
            }
        }
        Expr::Binary(BinaryOp::Mul, a, b) if is_int(f, dst) => match (classes.get(a), classes.get(b)) {
            (Some(Class::Lin(x)), _) if consts.contains_key(b) => Class::Lin(x.scaled(consts[b])),
            (_, Some(Class::Lin(y))) if consts.contains_key(a) => Class::Lin(y.scaled(consts[a])),
            (Some(Class::Lin(x)), Some(Class::Uniform)) if is_int(f, *b) => {
                x.times_var(*b).map_or(Class::Vector, Class::Lin)
            }
            (Some(Class::Uniform), Some(Class::Lin(y))) if is_int(f, *a) => {
                y.times_var(*a).map_or(Class::Vector, Class::Lin)
            }
            _ => Class::Vector,
        },
        Expr::Cast(CastOp::IntExt | CastOp::IntRetype, a) if is_lin(*a) && is_int(f, dst) => classes[a].clone(),
        Expr::AddPtr { ptr, offset } => {
            let bytes = f.ty(*ptr).pointee().map_or(1, |s| s.bytes()) as i64;
            match (classes.get(ptr), lin_of(*offset)) {
                (Some(Class::Uniform | Class::OuterUniform), Some(off)) if is_lin(*offset) => {
                    Class::PtrLin { base: *ptr, off, bytes }
                }
                (Some(Class::PtrLin { base, off, bytes: b0 }), Some(more)) if *b0 == bytes => {
                    Class::PtrLin { base: *base, off: off.plus(&more), bytes }
                }
                _ => Class::Vector,
            }
        }
        _ => Class::Vector,
    })
}
