//! Nests on the scalar path as counted loops over their flat range, from the stride
//! analysis the RVV emitter uses ([`tilec_vector::stride::plan_with`]).
//!
//! The dims of [`Plan::outer`] are counted loops; the dims of [`Plan::inner`] run as one flat
//! range `j = 0 .. flat_len` in which:
//! - every linear value the body reads (an integer [`Class::Lin`], a pointer
//!   [`Class::PtrLin`], the element address of a scratch access) is a register that starts at
//!   its value at `j = 0` and steps by its flat coefficient (a pointer bump, never `index ×
//!   stride`); unrolled copies read it at a constant offset;
//! - a prefix mask `x < bound` ([`find_prefix`]) splits the range at `p = clamp(bound − x₀,
//!   0, flat_len)`: the loop over `0 .. p` runs with the mask known true, the one over `p ..
//!   flat_len` with it known false (masked loads yield `other`, masked stores vanish; no
//!   loop at all when the body's only effects are stores under that mask), so no access
//!   tests it and the elements still run in order with their values unchanged;
//! - a row accumulation (one element for the whole range, [`Plan::is_row`]) is a register,
//!   loaded before the range and stored after it, still combined element by element in
//!   order (bit for bit the element loop's result);
//! - short bodies are unrolled ([`unroll_factor`]): the main loop runs `p / U` times `U`
//!   copies, a remainder loop the `p mod U` last elements, left out where `p` is known to
//!   be a multiple of `U` (the bound's and the start's low zero bits, from the signature's
//!   divisibility: `n: i32:16` and a block start `pid · BLOCK`); a pointer walk's end ends
//!   the loop where there is one (no counter).
//!
//! Nests the analysis does not plan (atomics, program ids, reassigned variables) stay the
//! element loops of [`Translator::nest`].

use rustc_hash::{FxHashMap, FxHashSet};

use tilec_vector::stride::{find_prefix, stmt_reads, Class, Coef, Lin, Plan, Prefix};

use super::*;

/// The step of a [`Walk`] per flat element: a constant, or a runtime value with its
/// multiples `0 ..= max unroll` (computed before the range).
#[derive(Clone)]
enum Step {
    Const(i64),
    Value(Vec<Value>),
}

/// An `i64` register holding a linear value at the current loop position.
#[derive(Clone)]
struct Walk {
    var: Variable,
    step: Step,
}

/// What the translation of a flat body knows besides the variables.
pub(super) struct Flat {
    /// The unrolled copy being translated: its element is the walks' position + `copy`.
    copy: i64,
    /// Walks of the linear variables the body reads, with their register type.
    vars: FxHashMap<Var, (Walk, Type)>,
    /// Walks of the scratch element addresses the body accesses.
    scratch: FxHashMap<(Buf, Affine), Walk>,
    /// Every walk, in creation order (the order the loops bump them).
    order: Vec<Walk>,
    /// The split mask and its value in the loop being translated.
    mask: Option<(Var, bool)>,
    /// Row accumulators held in registers.
    rows: FxHashMap<Buf, Variable>,
    /// The element copy the body is, if it is one (see [`WideCopy`]).
    wide: Option<WideCopy>,
    /// Linear variables computed by their assignment rather than walked: products whose
    /// step along the range is no immediate (a walk would hold the step in a register too,
    /// and a multiplication is one instruction).
    computed: FxHashSet<Var>,
}

/// A body that only copies elements from one walk to another (a load whose value only a
/// store reads, both moving by one element per flat element, under the split mask or
/// none): the main loop moves `group` elements (8 bytes) per load and store when both
/// walks start 8-byte aligned. The bits move unchanged (fp16 NaN payloads included).
#[derive(Clone, Copy)]
struct WideCopy {
    from: Var,
    to: Var,
    group: i64,
}

/// The [`WideCopy`] `nest`'s body is, with `mask` the split mask.
fn wide_copy(f: &Function, nest: &Nest, plan: &Plan, mask: Option<Var>) -> Option<WideCopy> {
    let split = |m: &Option<Var>| m.is_none() || *m == mask;
    let (mut load, mut store) = (None, None);
    for s in &nest.body {
        match s {
            Stmt::Assign { dst, expr: Expr::Load { ptr, mask: m, .. }, .. } if load.is_none() && split(m) => {
                load = Some((*dst, *ptr));
            }
            Stmt::Assign { expr: Expr::Load { .. } | Expr::AtomicRmw { .. } | Expr::AtomicCas { .. }, .. } => {
                return None
            }
            Stmt::Assign { .. } => {}
            Stmt::Store { ptr, value, mask: m, .. } if store.is_none() && split(m) => {
                store = Some((*ptr, *value));
            }
            _ => return None,
        }
    }
    let ((value, from), (to, stored)) = (load?, store?);
    let read_elsewhere = nest
        .body
        .iter()
        .any(|s| !matches!(s, Stmt::Store { .. }) && stmt_reads(s).is_some_and(|reads| reads.contains(&value)));
    let pointee = f.ty(from).pointee()?;
    if stored != value || read_elsewhere || f.ty(to).pointee() != Some(pointee) || !matches!(pointee.bytes(), 1 | 2 | 4)
    {
        return None;
    }
    let bytes = i64::from(pointee.bytes());
    let steps_one_element = |p: Var| match plan.classes.get(&p) {
        Some(Class::PtrLin { off, bytes: b, .. }) => *b == bytes && plan.flat_coef(off).constant() == Some(1),
        _ => false,
    };
    (steps_one_element(from) && steps_one_element(to)).then_some(WideCopy { from, to, group: 8 / bytes })
}

/// Copies of the body per iteration of the main loop: more for cheaper bodies (the loop
/// overhead is then a larger share; the copies must also fit the registers and the
/// instruction cache). No nest of a function whose loops hold dots is unrolled (see
/// `Translator::loops_hold_dots`). The cost counts the statements the flat translation emits, those
/// that expand to many instructions (fp16/bf16 rounding, calls, divisions) as several.
fn unroll_factor(f: &Function, body: &Block, plan: &Plan) -> i64 {
    let half = |v: &Var| matches!(f.ty(*v), Elem::Scalar(s) if s.is_half());
    let cost: u32 = body
        .iter()
        .map(|s| match s {
            Stmt::Assign { dst, .. } if is_linear(plan, *dst) => 0,
            Stmt::Assign { dst, expr, .. } => {
                if half(dst) || expr.operands().iter().any(half) {
                    12
                } else {
                    match expr {
                        // The inline polynomial and its out-of-range path.
                        Expr::Math(MathFn::Exp | MathFn::Exp2, x) if f.ty(*x) == Elem::Scalar(ScalarType::F32) => {
                            EXP_COST
                        }
                        Expr::Math(..) => 10,
                        Expr::Binary(BinaryOp::Div | BinaryOp::Rem | BinaryOp::Max | BinaryOp::Min, ..) => 4,
                        _ => 1,
                    }
                }
            }
            Stmt::Store { value, .. } if half(value) => 12,
            Stmt::Accumulate { op: AccOp::Max | AccOp::Min, .. } => 4,
            Stmt::AccumulateWith { body, .. } => 2 + body.len() as u32,
            _ => 1,
        })
        .sum();
    match cost {
        0..=10 => 8,
        11..=20 => 4,
        21..=120 if invariant_integers(f, body, plan) > MANY_INVARIANTS => 4,
        21..=120 => 2,
        _ => 1,
    }
}

/// The unrolling cost of an inline fp32 `exp` or `exp2`, about its instructions: some 18 on
/// its usual path and 35 on its out-of-range path, which every copy adds for Cranelift to
/// allocate. A body holding one and a few other statements gets 2 copies (a second copy
/// halves a loop overhead of 3 or 4 instructions; 4 copies made fused softmax 16% more
/// instructions to compile for 2% fewer to run); a body holding two gets 1 (cross-entropy's
/// running sum: 9% fewer instructions to compile, 7% more to run).
const EXP_COST: u32 = 60;

/// Loop-invariant integers past which a body's loop cannot hold them all in registers
/// beside its temporaries (Cranelift's allocator has 24 integer registers on riscv64): the
/// spilled ones are reloaded at the top of each iteration and stored back on the back edge,
/// so such bodies get 4 copies per iteration to share that traffic (Philox's round keys:
/// seeded dropout ran 5% fewer instructions than with 2).
const MANY_INVARIANTS: usize = 16;

/// The integer (and pointer) variables `body` reads that hold the same value on its whole
/// range: assigned before the nest and not walked.
fn invariant_integers(f: &Function, body: &Block, plan: &Plan) -> usize {
    let assigned: FxHashSet<Var> = body
        .iter()
        .filter_map(|s| match s {
            Stmt::Assign { dst, .. } => Some(*dst),
            _ => None,
        })
        .collect();
    let integer = |v: Var| match f.ty(v) {
        Elem::Ptr(_) => true,
        Elem::Scalar(s) => s.is_int() && !s.is_bool(),
    };
    let read: FxHashSet<Var> = body
        .iter()
        .filter(|s| !matches!(s, Stmt::Assign { dst, .. } if is_linear(plan, *dst)))
        .flat_map(|s| stmt_reads(s).unwrap_or_default())
        .filter(|v| !assigned.contains(v) && !is_linear(plan, *v) && integer(*v))
        .collect();
    read.len()
}

/// Whether `expr` reads the nest indices otherwise than through a linear class the plan
/// gives its destination (the flat translation sets no index variable).
fn reads_indices(e: &Expr) -> bool {
    matches!(e, Expr::Index(_))
}

/// Whether every use of the nest indices in `body` is an `index` assignment the plan
/// classifies as linear (the flat translation sets no index variable).
fn indices_are_linear(body: &Block, plan: &Plan) -> bool {
    body.iter().all(|s| match s {
        Stmt::Assign { dst, expr, .. } => !reads_indices(expr) || matches!(plan.classes.get(dst), Some(Class::Lin(_))),
        Stmt::AccumulateWith { body, .. } => {
            body.iter().all(|s| !matches!(s, Stmt::Assign { expr, .. } if reads_indices(expr)))
        }
        _ => true,
    })
}

/// Whether the plan computes `v` from the walks (its assignment is not translated).
fn is_linear(plan: &Plan, v: Var) -> bool {
    matches!(plan.classes.get(&v), Some(Class::Lin(_) | Class::PtrLin { .. } | Class::AllTrue))
}

/// The mask a flat range is split at: a prefix mask, or the conjunction of a prefix mask
/// and a `guard` that is the same on the whole range (rows past a bound, in a nest whose
/// flat range runs along columns). With the guard false no element runs with the mask
/// true: the split is at 0.
struct SplitMask {
    mask: Var,
    guard: Option<Var>,
}

/// `mask`'s prefix form ([`find_prefix`]), or that of one operand of the `and` assigning
/// it with the other operand as its guard, when that one is [`range_invariant`].
fn guarded_prefix(f: &Function, nest: &Nest, plan: &Plan, mask: Var) -> Option<(Prefix, Option<Var>)> {
    if let Some(p) = find_prefix(f, nest, plan, mask) {
        return Some((p, None));
    }
    let (a, b) = nest.body.iter().find_map(|s| match s {
        Stmt::Assign { dst, expr: Expr::Binary(BinaryOp::And, a, b), .. } if *dst == mask => Some((*a, *b)),
        _ => None,
    })?;
    [(a, b), (b, a)].into_iter().find_map(|(guard, prefix)| {
        if !range_invariant(nest, plan, guard) {
            return None;
        }
        find_prefix(f, nest, plan, prefix).map(|p| (p, Some(guard)))
    })
}

/// Whether the body accesses `buf` only to accumulate into element `index` and to read
/// that element back ([`Plan::scans`] places the reads after the update).
fn only_read_back(nest: &Nest, buf: Buf, index: &Affine) -> bool {
    nest.body.iter().all(|s| match s {
        Stmt::Accumulate { buf: b, index: i, .. }
        | Stmt::Assign { expr: Expr::LoadScratch { buf: b, index: i }, .. } => *b != buf || i == index,
        Stmt::Assign { expr: Expr::LoadScratchAt { buf: b, .. }, .. } | Stmt::StoreScratch { buf: b, .. } => *b != buf,
        Stmt::AccumulateArg { vals, idxs, .. } => *vals != buf && *idxs != buf,
        Stmt::AccumulateWith { bufs, .. } => !bufs.contains(&buf),
        _ => true,
    })
}

/// Whether `vals` and `idxs` are accessed only by one arg-accumulation into both.
fn only_arg_accumulated(nest: &Nest, vals: Buf, idxs: Buf) -> bool {
    let mut updates = 0;
    let untouched = nest.body.iter().all(|s| match s {
        Stmt::AccumulateArg { vals: v, idxs: i, .. } if (*v, *i) == (vals, idxs) => {
            updates += 1;
            true
        }
        Stmt::AccumulateArg { vals: v, idxs: i, .. } => ![*v, *i].iter().any(|b| *b == vals || *b == idxs),
        Stmt::Accumulate { buf: b, .. }
        | Stmt::StoreScratch { buf: b, .. }
        | Stmt::Assign { expr: Expr::LoadScratch { buf: b, .. } | Expr::LoadScratchAt { buf: b, .. }, .. } => {
            *b != vals && *b != idxs
        }
        Stmt::AccumulateWith { bufs, .. } => !bufs.contains(&vals) && !bufs.contains(&idxs),
        _ => true,
    });
    untouched && updates == 1
}

/// The assignment of `v` in the nest's body, if there is one.
fn definition(nest: &Nest, v: Var) -> Option<&Expr> {
    nest.body.iter().find_map(|s| match s {
        Stmt::Assign { dst, expr, .. } if *dst == v => Some(expr),
        _ => None,
    })
}

/// Whether the `i1` `v` is the same on the whole flat range and [`Translator::invariant_value`]
/// can compute it before the range: a live-in, or a comparison of integers that are
/// live-ins or linear with no step along the inner dims.
fn range_invariant(nest: &Nest, plan: &Plan, v: Var) -> bool {
    let operand = |x: Var| match definition(nest, x) {
        None => true,
        Some(_) => matches!(plan.classes.get(&x), Some(Class::Lin(lin)) if constant_on_range(plan, lin)),
    };
    match definition(nest, v) {
        None => true,
        Some(Expr::Cmp(_, a, b)) => operand(*a) && operand(*b),
        Some(_) => false,
    }
}

/// Whether `lin` has no step along any inner dim.
fn constant_on_range(plan: &Plan, lin: &Lin) -> bool {
    plan.inner.iter().all(|&d| lin.stride(d) == Coef::ZERO)
}

impl Translator<'_, '_> {
    /// The value of a [`range_invariant`] variable for the outer position `outer`, computed
    /// before the flat range.
    fn invariant_value(&mut self, nest: &Nest, plan: &Plan, v: Var, outer: &[(usize, Value)]) -> Value {
        let operand = |t: &mut Self, x: Var| match plan.classes.get(&x) {
            Some(Class::Lin(lin)) if definition(nest, x).is_some() => {
                // In wrapping i64 arithmetic; the variable is its low bits.
                let wide = t.lin_start(lin, outer);
                t.int_resize(wide, types::I64, false, reg_type(t.ty(x)))
            }
            _ => t.get(x),
        };
        match definition(nest, v) {
            Some(Expr::Cmp(pred, a, b)) => {
                let (x, y) = (operand(self, *a), operand(self, *b));
                self.compare(*pred, self.ty(*a), x, y)
            }
            _ => self.get(v),
        }
    }

    /// Translates `nest` as flat loops when the stride analysis plans it; `false` when it
    /// does not (nothing was emitted then).
    pub(super) fn flat_nest(&mut self, nest: &Nest) -> Result<bool, Diagnostic> {
        let constants = self.kernel.constants.get_or_insert_with(|| tilec_vector::stride::Constants::of(self.f));
        let Some(mut plan) = tilec_vector::stride::plan_with(self.f, constants, nest) else { return Ok(false) };
        if plan.inner.is_empty() || !indices_are_linear(&nest.body, &plan) {
            return Ok(false);
        }
        // The split mask: the plan's prefix, else the first masked access's mask that is one
        // (alone or under a guard).
        let mask = match &plan.prefix {
            Some(_) => plan
                .classes
                .iter()
                .find(|(_, c)| **c == Class::AllTrue)
                .map(|(v, _)| SplitMask { mask: *v, guard: None }),
            None => nest.body.iter().find_map(|s| {
                let m = match s {
                    Stmt::Assign { expr: Expr::Load { mask: Some(m), .. }, .. } => *m,
                    Stmt::Store { mask: Some(m), .. } => *m,
                    _ => return None,
                };
                let (prefix, guard) = guarded_prefix(self.f, nest, &plan, m)?;
                plan.prefix = Some(prefix);
                Some(SplitMask { mask: m, guard })
            }),
        };
        let mask = mask.filter(|_| plan.prefix.is_some());
        let mut outer = Vec::new();
        self.flat_outer(nest, &plan, mask.as_ref(), 0, &mut outer)?;
        Ok(true)
    }

    /// Loops the outer dims from `depth` on, then runs the flat range.
    fn flat_outer(
        &mut self,
        nest: &Nest,
        plan: &Plan,
        mask: Option<&SplitMask>,
        depth: usize,
        outer: &mut Vec<(usize, Value)>,
    ) -> Result<(), Diagnostic> {
        let Some(&dim) = plan.outer.get(depth) else { return self.flat_range(nest, plan, mask, outer) };
        let mut result = Ok(());
        self.counted(nest.shape[dim], &mut |this: &mut Self, i| {
            if result.is_ok() {
                outer.push((dim, i));
                result = this.flat_outer(nest, plan, mask, depth + 1, outer);
                outer.pop();
            }
        });
        result
    }

    /// An integer variable extended to `i64` by its signedness.
    fn extended(&mut self, v: Var) -> Value {
        let elem = self.ty(v);
        let x = self.get(v);
        self.int_resize(x, reg_type(elem), is_signed(elem), types::I64)
    }

    fn coef_value(&mut self, c: &Coef) -> Value {
        let mut sum = self.sum_from(c.konst);
        for &(v, k) in &c.vars {
            let x = self.extended(v);
            let term = self.scaled(x, k);
            sum = self.plus(sum, term);
        }
        self.sum_value(sum)
    }

    /// `lin` at flat index 0 and the outer counters `outer`, in wrapping `i64` arithmetic.
    fn lin_start(&mut self, lin: &Lin, outer: &[(usize, Value)]) -> Value {
        let mut sum = self.sum_from(lin.offset);
        for &(v, k) in &lin.terms {
            let x = self.extended(v);
            let term = self.scaled(x, k);
            sum = self.plus(sum, term);
        }
        for &((a, b), k) in &lin.products {
            let (x, y) = (self.extended(a), self.extended(b));
            let p = self.b.ins().imul(x, y);
            let term = self.scaled(p, k);
            sum = self.plus(sum, term);
        }
        for &(dim, i) in outer {
            let stride = lin.stride(dim);
            if stride != Coef::ZERO {
                let s = self.coef_value(&stride);
                let term = self.b.ins().imul(s, i);
                sum = self.plus(sum, term);
            }
        }
        self.sum_value(sum)
    }

    /// The low bits known zero in the value of `v` ([`VarFacts::low_zeros`]).
    fn low_zeros(&self, v: Var) -> u32 {
        self.kernel.facts.low_zeros.get(&v).copied().unwrap_or(0)
    }

    /// The low bits known zero in `lin`'s value at flat index 0 for any outer position (at
    /// most 64: all of them when it is zero).
    fn lin_zeros(&self, lin: &Lin, outer: &[(usize, Value)]) -> u32 {
        let term = |k: i64, zeros: u32| k.trailing_zeros().saturating_add(zeros).min(64);
        let coef =
            |c: &Coef| c.vars.iter().fold(c.konst.trailing_zeros(), |z, &(v, k)| z.min(term(k, self.low_zeros(v))));
        let terms = lin.terms.iter().map(|&(v, k)| term(k, self.low_zeros(v)));
        let products = lin.products.iter().map(|&((a, b), k)| term(k, self.low_zeros(a) + self.low_zeros(b)));
        let strides = outer.iter().map(|&(dim, _)| coef(&lin.stride(dim)));
        terms.chain(products).chain(strides).fold(lin.offset.trailing_zeros(), u32::min)
    }

    /// A walk starting at `base + scale·lin` (at flat index 0) stepping by `scale` times
    /// the flat coefficient of `lin`.
    fn new_walk(
        &mut self,
        plan: &Plan,
        base: Option<Value>,
        lin: &Lin,
        scale: i64,
        outer: &[(usize, Value)],
        unroll: i64,
    ) -> Walk {
        let start = self.lin_start(lin, outer);
        let start = self.b.ins().imul_imm_s(start, scale);
        let start = match base {
            Some(b) => self.b.ins().iadd(b, start),
            None => start,
        };
        let var = self.b.declare_var(types::I64);
        self.b.def_var(var, start);
        let coef = plan.flat_coef(lin).scaled(scale);
        let step = match coef.constant() {
            Some(k) => Step::Const(k),
            None => {
                let s = self.coef_value(&coef);
                Step::Value((0..=unroll).map(|k| self.b.ins().imul_imm_s(s, k)).collect())
            }
        };
        Walk { var, step }
    }

    /// `v + k` for an `i64` `v`: an immediate when `k` fits one, else a constant kept in a
    /// register across the loop.
    fn add_const(&mut self, v: Value, k: i64) -> Value {
        if (-2048..2048).contains(&k) {
            self.b.ins().iadd_imm_s(v, k)
        } else {
            let k = self.held.get(&mut self.b, types::I64, k);
            self.b.ins().iadd(v, k)
        }
    }

    /// The walk's value at the current copy.
    fn walk_value(&mut self, w: &Walk, copy: i64) -> Value {
        let v = self.b.use_var(w.var);
        match &w.step {
            Step::Const(s) if copy * s == 0 => v,
            Step::Const(s) => self.add_const(v, copy * s),
            Step::Value(_) if copy == 0 => v,
            Step::Value(m) => self.b.ins().iadd(v, m[copy as usize]),
        }
    }

    /// The address of scratch element `index` of `buf` in a flat body.
    pub(super) fn flat_scratch_addr(&mut self, buf: Buf, index: &Affine) -> Option<Value> {
        let flat = self.flat.as_ref()?;
        let w = flat.scratch.get(&(buf, index.clone()))?.clone();
        let copy = flat.copy;
        Some(self.walk_value(&w, copy))
    }

    /// The value of `mask` where the flat translation knows it.
    pub(super) fn known_mask(&self, mask: Var) -> Option<bool> {
        match self.flat.as_ref()?.mask {
            Some((m, value)) if m == mask => Some(value),
            _ => None,
        }
    }

    /// The register of a row accumulator held in one.
    pub(super) fn row_register(&self, buf: Buf) -> Option<Variable> {
        self.flat.as_ref()?.rows.get(&buf).copied()
    }

    /// The flat range of one outer position: walks, the split, the loops, the rows.
    fn flat_range(
        &mut self,
        nest: &Nest,
        plan: &Plan,
        split_mask: Option<&SplitMask>,
        outer: &[(usize, Value)],
    ) -> Result<(), Diagnostic> {
        let mask = split_mask.map(|m| m.mask);
        let dims = nest.shape.len();
        let cold = self.loops_hold_dots;
        // Copies (unchecked: a check covers one element) move 8 bytes per access, twice as
        // many per iteration as the cheapest computing bodies.
        let wide = wide_copy(self.f, nest, plan, mask).filter(|_| self.bounds.is_none());
        let unroll = match wide {
            _ if cold => 1,
            Some(w) => (2 * w.group).max(16).min(plan.flat_len.max(1)),
            None => unroll_factor(self.f, &nest.body, plan).min(plan.flat_len.max(1)),
        };
        // A power of two.
        let unroll = 1i64 << (63 - unroll.leading_zeros());
        let mut flat = Flat {
            copy: 0,
            vars: FxHashMap::default(),
            scratch: FxHashMap::default(),
            order: Vec::new(),
            mask: None,
            rows: FxHashMap::default(),
            wide,
            computed: FxHashSet::default(),
        };
        // Row accumulators: plain accumulations of one element for the whole range that the
        // body reads back only at that element after updating it (scans).
        // So are the two of an arg-accumulation of one element that nothing else accesses.
        let mut rows = Vec::new();
        for s in &nest.body {
            match s {
                Stmt::Accumulate { buf, index, .. }
                    if plan.is_row(index)
                        && only_read_back(nest, *buf, index)
                        && !rows.iter().any(|(b, _)| b == buf) =>
                {
                    rows.push((*buf, index.clone()));
                }
                Stmt::AccumulateArg { vals, idxs, index, .. }
                    if plan.is_row(index) && only_arg_accumulated(nest, *vals, *idxs) =>
                {
                    rows.push((*vals, index.clone()));
                    rows.push((*idxs, index.clone()));
                }
                _ => {}
            }
        }
        for (buf, index) in &rows {
            let elem = self.f.bufs[*buf].elem;
            let addr = self.row_slot(*buf, index, dims, outer);
            let value = self.b.ins().load(reg_type(elem), MemFlagsData::trusted(), addr, 0);
            let var = self.b.declare_var(reg_type(elem));
            self.b.def_var(var, value);
            flat.rows.insert(*buf, var);
        }
        // Walks, in the order the body first reads them.
        for s in &nest.body {
            if let Stmt::Assign { dst, .. } = s {
                if is_linear(plan, *dst) || Some(*dst) == mask {
                    continue;
                }
            }
            let mut reads = stmt_reads(s).unwrap_or_default();
            if let Stmt::AccumulateWith { body, .. } = s {
                reads.extend(body.iter().flat_map(|s| stmt_reads(s).unwrap_or_default()));
            }
            while let Some(v) = reads.pop() {
                if flat.vars.contains_key(&v) || flat.computed.contains(&v) {
                    continue;
                }
                let walk = match plan.classes.get(&v) {
                    Some(Class::Lin(lin)) => match definition(nest, v) {
                        Some(expr @ Expr::Binary(BinaryOp::Mul, ..))
                            if !plan.flat_coef(lin).constant().is_some_and(|k| (-2048..2048).contains(&k)) =>
                        {
                            flat.computed.insert(v);
                            reads.extend(expr.operands());
                            continue;
                        }
                        _ => self.new_walk(plan, None, lin, 1, outer, unroll),
                    },
                    Some(Class::PtrLin { base, off, bytes }) => {
                        let b = self.get(*base);
                        self.new_walk(plan, Some(b), off, *bytes, outer, unroll)
                    }
                    _ => continue,
                };
                flat.order.push(walk.clone());
                flat.vars.insert(v, (walk, reg_type(self.ty(v))));
            }
            let accesses: Vec<(Buf, &Affine)> = match s {
                Stmt::Assign { expr: Expr::LoadScratch { buf, index }, .. }
                | Stmt::Assign { expr: Expr::LoadScratchAt { buf, index, .. }, .. }
                | Stmt::StoreScratch { buf, index, .. }
                | Stmt::Accumulate { buf, index, .. } => vec![(*buf, index)],
                Stmt::AccumulateArg { vals, idxs, index, .. } => vec![(*vals, index), (*idxs, index)],
                Stmt::AccumulateWith { bufs, index, .. } => bufs.iter().map(|b| (*b, index)).collect(),
                _ => Vec::new(),
            };
            for (buf, index) in accesses {
                if flat.rows.contains_key(&buf) || flat.scratch.contains_key(&(buf, index.clone())) {
                    continue;
                }
                let base = self.buf_addr(buf);
                let scale = scratch::elem_bytes(self.f.bufs[buf].elem) as i64;
                let walk = self.new_walk(plan, Some(base), &Lin::affine(index, dims), scale, outer, unroll);
                flat.order.push(walk.clone());
                flat.scratch.insert((buf, index.clone()), walk);
            }
        }
        // The split point (elements before it run with the mask true).
        let len = plan.flat_len;
        let len_zeros = if len == 0 { 0 } else { len.trailing_zeros() };
        let split = match (&plan.prefix, mask) {
            (Some(p), Some(_)) => {
                let x0 = self.lin_start(&p.lin, outer);
                let bound = self.get(p.bound);
                let bound_ty = reg_type(self.ty(p.bound));
                let bound = self.int_resize(bound, bound_ty, p.signed, types::I64);
                let incl = p.inclusive as i64;
                Some(if p.bits < 64 {
                    // x₀ as the comparison sees it; both fit in 33 bits, so the difference
                    // is exact.
                    let narrow = Type::int(p.bits as u16).expect("an integer width");
                    let x0 = self.b.ins().ireduce(narrow, x0);
                    let x0 = self.int_resize(x0, narrow, p.signed, types::I64);
                    let d = self.b.ins().isub(bound, x0);
                    let d = self.b.ins().iadd_imm_s(d, incl);
                    let zero = self.b.ins().iconst(types::I64, 0);
                    let d = self.b.ins().smax(d, zero);
                    let n = self.b.ins().iconst(types::I64, len);
                    self.b.ins().smin(d, n)
                } else {
                    // None when x₀ is past the bound, else min(bound − x₀ (+1), N), unsigned.
                    let cc = match (p.signed, p.inclusive) {
                        (true, false) => IntCC::SignedLessThan,
                        (true, true) => IntCC::SignedLessThanOrEqual,
                        (false, false) => IntCC::UnsignedLessThan,
                        (false, true) => IntCC::UnsignedLessThanOrEqual,
                    };
                    let some = self.b.ins().icmp(cc, x0, bound);
                    let d = self.b.ins().isub(bound, x0);
                    let n = self.b.ins().iconst(types::I64, len - incl);
                    let d = self.b.ins().umin(d, n);
                    let d = self.b.ins().iadd_imm_s(d, incl);
                    let zero = self.b.ins().iconst(types::I64, 0);
                    self.b.ins().select(some, d, zero)
                })
            }
            _ => None,
        };
        let split = match (split, split_mask.and_then(|m| m.guard)) {
            (Some(p), Some(guard)) => {
                let g = self.invariant_value(nest, plan, guard, outer);
                let zero = self.b.ins().iconst(types::I64, 0);
                Some(self.b.ins().select(g, p, zero))
            }
            (split, _) => split,
        };
        self.flat = Some(flat);
        let result = (|| -> Result<(), Diagnostic> {
            match split {
                Some(p) => {
                    let m = mask.expect("a split has a mask");
                    let prefix = plan.prefix.as_ref().expect("a split has a prefix");
                    // min(bound − x₀, N) has the low zero bits all three have (0 also has them).
                    let zeros = match prefix.inclusive {
                        false => self.low_zeros(prefix.bound).min(self.lin_zeros(&prefix.lin, outer).min(prefix.bits)),
                        true => 0,
                    };
                    self.flat.as_mut().expect("flat state").mask = Some((m, true));
                    self.flat_loops(nest, plan, Count::Value(p), zeros.min(len_zeros), unroll)?;
                    // Where every effect of the body is a store masked by `m`, the elements
                    // past the split do nothing.
                    let inert = nest.body.iter().all(|s| match s {
                        Stmt::Assign { .. } => true,
                        Stmt::Store { mask, .. } => *mask == Some(m),
                        _ => false,
                    });
                    if inert {
                        return Ok(());
                    }
                    let n = self.b.ins().iconst(types::I64, len);
                    let rest = self.b.ins().isub(n, p);
                    self.flat.as_mut().expect("flat state").mask = Some((m, false));
                    self.flat_loops(nest, plan, Count::Value(rest), 0, 1)
                }
                None => self.flat_loops(nest, plan, Count::Const(len), len_zeros, unroll),
            }
        })();
        let flat = self.flat.take().expect("flat state");
        result?;
        for (buf, index) in &rows {
            let addr = self.row_slot(*buf, index, dims, outer);
            let value = self.b.use_var(flat.rows[buf]);
            self.b.ins().store(MemFlagsData::trusted(), value, addr, 0);
        }
        Ok(())
    }

    /// The address of row accumulator `buf`'s element for this outer position.
    fn row_slot(&mut self, buf: Buf, index: &Affine, dims: usize, outer: &[(usize, Value)]) -> Value {
        let elem = self.f.bufs[buf].elem;
        let base = self.buf_addr(buf);
        let pos = self.lin_start(&Lin::affine(index, dims), outer);
        let off = self.b.ins().imul_imm_s(pos, scratch::elem_bytes(elem) as i64);
        self.b.ins().iadd(base, off)
    }

    /// `count` elements, a number whose low `zeros` bits are known to be zero: a main loop
    /// of `unroll` copies, then a remainder loop of one unless `unroll` divides `count`.
    fn flat_loops(
        &mut self,
        nest: &Nest,
        plan: &Plan,
        count: Count,
        zeros: u32,
        unroll: i64,
    ) -> Result<(), Diagnostic> {
        let shift = unroll.trailing_zeros() as i64;
        match count {
            Count::Const(n) => {
                if unroll > 1 {
                    self.flat_main_loop(nest, plan, Count::Const(n >> shift), unroll)?;
                }
                self.flat_loop(nest, plan, Count::Const(if unroll > 1 { n & (unroll - 1) } else { n }), 1, false)
            }
            Count::Value(n) => {
                if unroll > 1 {
                    let main = self.b.ins().ushr_imm_u(n, shift);
                    self.flat_main_loop(nest, plan, Count::Value(main), unroll)?;
                    if i64::from(zeros) >= shift {
                        return Ok(());
                    }
                    let rest = self.b.ins().band_imm_s(n, unroll - 1);
                    self.flat_loop(nest, plan, Count::Value(rest), 1, false)
                } else {
                    self.flat_loop(nest, plan, Count::Value(n), 1, false)
                }
            }
        }
    }

    /// The main loop of `unroll` copies; for a [`WideCopy`], the 8-byte one when both walks
    /// start 8-byte aligned, else the element one.
    fn flat_main_loop(&mut self, nest: &Nest, plan: &Plan, count: Count, unroll: i64) -> Result<(), Diagnostic> {
        let flat = self.flat.as_ref().expect("flat state");
        let walks = flat.wide.filter(|w| unroll % w.group == 0).and_then(|w| {
            let walk = |v: Var| flat.vars.get(&v).map(|(w, _)| w.var);
            Some((walk(w.from)?, walk(w.to)?))
        });
        let Some((from, to)) = walks else { return self.flat_loop(nest, plan, count, unroll, false) };
        if count == Count::Const(0) {
            return Ok(());
        }
        let (a, b) = (self.b.use_var(from), self.b.use_var(to));
        let either = self.b.ins().bor(a, b);
        let low = self.b.ins().band_imm_u(either, 7);
        let wide = self.b.create_block();
        let narrow = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(low, narrow, &[], wide, &[]);
        self.b.switch_to_block(wide);
        self.flat_loop(nest, plan, count, unroll, true)?;
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(narrow);
        self.flat_loop(nest, plan, count, unroll, false)?;
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        Ok(())
    }

    /// A loop of `count` iterations of `copies` body copies, bumping every walk. The first
    /// walk with a constant nonzero step drives it (the loop ends when that walk reaches
    /// its end); without one, a counter does.
    /// With `wide`, the copies are the [`WideCopy`]'s 8-byte moves.
    fn flat_loop(&mut self, nest: &Nest, plan: &Plan, count: Count, copies: i64, wide: bool) -> Result<(), Diagnostic> {
        if count == Count::Const(0) {
            return Ok(());
        }
        let order = self.flat.as_ref().expect("flat state").order.clone();
        let driver = order.iter().find_map(|w| match w.step {
            Step::Const(s) if s != 0 => Some((w.var, s * copies)),
            _ => None,
        });
        let n = match count {
            Count::Const(n) => self.b.ins().iconst(types::I64, n),
            Count::Value(v) => v,
        };
        let (left, end) = match driver {
            Some((var, stride)) => {
                let start = self.b.use_var(var);
                let distance = match count {
                    Count::Const(n) => self.held.get(&mut self.b, types::I64, n * stride),
                    Count::Value(v) => self.b.ins().imul_imm_s(v, stride),
                };
                (None, Some(self.b.ins().iadd(start, distance)))
            }
            None => {
                let left = self.b.declare_var(types::I64);
                self.b.def_var(left, n);
                (Some(left), None)
            }
        };
        let body = self.b.create_block();
        let exit = self.b.create_block();
        match count {
            Count::Const(_) => {
                self.b.ins().jump(body, &[]);
            }
            Count::Value(v) => {
                self.b.ins().brif(v, body, &[], exit, &[]);
            }
        }
        self.b.switch_to_block(body);
        match self.flat.as_ref().expect("flat state").wide.filter(|_| wide) {
            Some(w) => self.wide_copies(w, copies),
            None => {
                for copy in 0..copies {
                    self.flat.as_mut().expect("flat state").copy = copy;
                    self.flat_copy(nest, plan)?;
                }
            }
        }
        for w in &order {
            let v = self.b.use_var(w.var);
            let next = match &w.step {
                Step::Const(0) => continue,
                Step::Const(s) => self.add_const(v, copies * s),
                Step::Value(m) => self.b.ins().iadd(v, m[copies as usize]),
            };
            self.b.def_var(w.var, next);
        }
        let more = match (left, end, driver) {
            (Some(left), _, _) => {
                let l = self.b.use_var(left);
                let l = self.b.ins().iadd_imm_s(l, -1);
                self.b.def_var(left, l);
                l
            }
            (None, Some(end), Some((var, _))) => {
                let at = self.b.use_var(var);
                self.b.ins().icmp(IntCC::NotEqual, at, end)
            }
            _ => unreachable!("a loop has a counter or a driver"),
        };
        self.b.ins().brif(more, body, &[], exit, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// `copies` elements of a [`WideCopy`] as 8-byte loads and stores.
    fn wide_copies(&mut self, w: WideCopy, copies: i64) {
        let (from, to) = {
            let vars = &self.flat.as_ref().expect("flat state").vars;
            (vars[&w.from].0.clone(), vars[&w.to].0.clone())
        };
        let flags = MemFlagsData::new();
        for first in (0..copies).step_by(w.group as usize) {
            let (src, dst) = (self.walk_value(&from, first), self.walk_value(&to, first));
            let bits = self.b.ins().load(types::I64, flags, src, 0);
            self.b.ins().store(flags, bits, dst, 0);
        }
    }

    /// One copy of the body at the current position.
    fn flat_copy(&mut self, nest: &Nest, plan: &Plan) -> Result<(), Diagnostic> {
        let (copy, mask) = {
            let flat = self.flat.as_ref().expect("flat state");
            (flat.copy, flat.mask)
        };
        for s in &nest.body {
            if let Stmt::Assign { dst, .. } = s {
                if let Some((m, value)) = mask.filter(|(m, _)| m == dst) {
                    let c = self.b.ins().iconst(types::I8, value as i64);
                    self.set(m, c);
                    continue;
                }
                if is_linear(plan, *dst) && !self.flat.as_ref().expect("flat state").computed.contains(dst) {
                    let walk = self.flat.as_ref().expect("flat state").vars.get(dst).cloned();
                    if let Some((w, ty)) = walk {
                        let v = self.walk_value(&w, copy);
                        let v = self.int_resize(v, types::I64, false, ty);
                        self.set(*dst, v);
                    }
                    continue;
                }
            }
            self.stmt(s, &nest.indices)?;
        }
        Ok(())
    }
}

/// An iteration count known at compile time or at run time.
#[derive(Clone, Copy, PartialEq)]
enum Count {
    Const(i64),
    Value(Value),
}
