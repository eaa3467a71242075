//! Elaboration: from the optimized e-graph back to a [`Function`] (the aegraph's "scoped
//! elaboration", over structured regions).
//!
//! The skeleton (effects and ops with regions) is re-emitted in its original order. Each
//! operand it needs is elaborated on demand: the best node of the operand's class (per the
//! depth-aware cost) is emitted after its children, in the outermost open region where
//! every child is available. Values are remembered per region scope, so a value needed twice
//! is emitted once (CSE), a value never needed is never emitted (DCE), and a value whose
//! operands are defined outside a loop is emitted before the loop (LICM).
//!
//! Placement rules (all conservative):
//! - Values only move out of loop bodies (`for`, both regions of `while`). They never move
//!   out of `if` arms (no speculation of work the program might skip) nor out of the
//!   combine regions of custom reductions and scans (those regions stay self-contained).
//! - Integer division and remainder whose divisor is not a known safe constant stay in the
//!   region that uses them: hoisting them out of a loop that runs zero times could trap.
//!   Exception: the input already computed the same quotient (same class, same divisor
//!   class) unconditionally in an enclosing region, before the loop; it may go back there
//!   (a rewrite that moved its only use into a loop must not make the loop divide).
//! - Other effects stay where they are, except invariant loads (below).
//!
//! Invariant loads: a `tt.load` sitting directly in a loop body (not under an `if` in it)
//! whose operands (pointer, mask, other) are all available outside the loop moves before
//! the loop when
//! - nothing in the loop, nested regions included, may write memory or fail first: no
//!   store, atomic or assert. Aliasing is conservative: any store may alias any load, so a
//!   single store anywhere in the loop keeps every load in it;
//! - the load would have run: the loop provably runs at least once (constant bounds, or
//!   the `before` region of a `while`, which runs every time the `while` does), or else the
//!   hoisted load is guarded, `scf.if (lower < upper) { load } else { zeros }` (`>` for a
//!   negative step, both tests for a step not known at compile time), so a loop that runs
//!   zero times still reads nothing. The `else` value is never used: the load's uses are all
//!   inside the loop. The `after` region of a `while` has no cheap guard; its loads stay.
//!
//! A load leaves several nested loops at once when every loop it crosses is proven to run
//! at least once; it crosses at most one loop that needs a guard, the outermost.

use crate::analysis::Graph;
use crate::cost::{DepthCost, Extraction};
use crate::lang::{Const, NodeOp, TileNode};
use crate::rules::int_constant;
use egg::{CostFunction, Id};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cmp::Ordering;
use tilec_diagnostics::Span;
use tilec_ir::{BinaryOp, CmpPred, Constant, Elem, Function, OpKind, RegionId, ScalarType, Type, Value};

/// What elaboration did, for the report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ElabStats {
    /// Pure ops emitted.
    pub pure_ops: usize,
    /// Pure ops placed in a region enclosing the one that first needed them.
    pub hoisted: usize,
    /// Load/store/atomic masks that folded to all-true and were dropped.
    pub masks_dropped: usize,
    /// Stores whose mask folded to all-false, removed.
    pub stores_dropped: usize,
    /// Loads moved out of at least one loop (guarded ones included).
    pub loads_hoisted: usize,
    /// Hoisted loads placed under an `scf.if` because the loop might run zero times.
    pub loads_guarded: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ScopeKind {
    /// The function body.
    Body,
    /// A loop body: values may move out of it.
    Loop,
    /// An `if` arm: values stay in it.
    Branch,
    /// A combine region: values stay in it and it sees nothing outside it.
    Isolated,
}

struct Scope {
    region: RegionId,
    /// The input region this scope re-emits, and the index of its op being emitted.
    src_region: RegionId,
    at: usize,
    kind: ScopeKind,
    values: FxHashMap<Id, Value>,
    /// For loop scopes: whether and how loads may leave the loop.
    load_hoisting: Option<LoadHoisting>,
}

/// How often a loop region runs each time its loop op runs.
#[derive(Clone, Copy, Debug)]
enum Trips {
    /// At least once: constant bounds prove it, or it is the `before` region of a `while`.
    AtLeastOnce,
    /// Possibly zero times; `lower`, `upper`, `step` are the loop's bounds in the output,
    /// available in the enclosing scope, and `step_sign` the step's sign when known.
    Guardable { lower: Value, upper: Value, step: Value, step_sign: Option<Ordering> },
    /// Possibly zero times, with no cheap test (the `after` region of a `while`).
    Unknown,
}

/// Facts about a loop scope that decide whether loads may leave it.
#[derive(Clone, Debug)]
struct LoadHoisting {
    /// The loop's regions (nested ones included) hold a store, atomic or assert.
    writes_or_fails: bool,
    trips: Trips,
    /// The guard condition, once emitted in the enclosing scope.
    guard: Option<Value>,
}

/// Whether `region` or a region nested in it holds an op that may write memory or fail:
/// stores, atomics, asserts.
fn writes_or_fails(f: &Function, region: RegionId) -> bool {
    f.regions[region].ops.iter().any(|&op_id| {
        let kind = &f.ops[op_id].kind;
        matches!(
            kind,
            OpKind::Store { .. } | OpKind::AtomicRmw { .. } | OpKind::AtomicCas { .. } | OpKind::Assert { .. }
        ) || kind.regions().into_iter().any(|r| writes_or_fails(f, r))
    })
}

/// The all-zero constant of a scalar element type (`0`, `+0.0`, `false`).
fn zero_constant(s: ScalarType) -> Constant {
    if s.is_bool() {
        Constant::Bool(false)
    } else if s.is_float() {
        Constant::Float(0.0)
    } else {
        Constant::Int(0)
    }
}

/// Whether a constant's bit pattern is all zeros (`+0.0`, `0`, `false`).
fn is_zero_bits(c: Const) -> bool {
    matches!(c, Const::Int(0) | Const::Float(0) | Const::Bool(false))
}

pub struct Elaborator<'a> {
    src: &'a Function,
    egraph: &'a Graph,
    extraction: Extraction,
    class_of: &'a FxHashMap<Value, Id>,
    /// Span and name of the first input value of each class.
    origin: FxHashMap<Id, (Span, Option<String>)>,
    out: Function,
    scopes: Vec<Scope>,
    in_progress: FxHashSet<Id>,
    /// Where the input computes each integer quotient or remainder, keyed by the classes of
    /// the result and of the divisor: (input region, op index).
    divided_at: FxHashMap<(Id, Id), Vec<(RegionId, usize)>>,
    pub stats: ElabStats,
}

impl<'a> Elaborator<'a> {
    pub fn new(src: &'a Function, egraph: &'a Graph, class_of: &'a FxHashMap<Value, Id>) -> Elaborator<'a> {
        let mut origin: FxHashMap<Id, (Span, Option<String>)> =
            FxHashMap::with_capacity_and_hasher(src.ops.len(), Default::default());
        for op in src.ops.values() {
            if NodeOp::of_pure_op(&op.kind).is_none() {
                continue;
            }
            let Some(&class) = op.results.first().and_then(|r| class_of.get(r)) else { continue };
            let entry = origin.entry(egraph.find(class)).or_insert((op.span, None));
            if entry.1.is_none() {
                entry.1 = src.values[op.results[0]].name.clone();
            }
        }
        let mut out = Function::new(src.name.clone(), src.params.clone(), src.span);
        out.constexprs = src.constexprs.clone();
        let mut body_values = FxHashMap::default();
        for (old, new) in src.param_values().iter().zip(out.param_values()) {
            if let Some(&class) = class_of.get(old) {
                body_values.insert(egraph.find(class), *new);
            }
        }
        let mut divided_at: FxHashMap<(Id, Id), Vec<(RegionId, usize)>> = FxHashMap::default();
        for region in src.regions.keys() {
            for (at, &op) in src.regions[region].ops.iter().enumerate() {
                let OpKind::Binary { op: BinaryOp::Div | BinaryOp::Rem, rhs, .. } = src.ops[op].kind else { continue };
                let (Some(&q), Some(&d)) = (class_of.get(&src.ops[op].results[0]), class_of.get(&rhs)) else {
                    continue;
                };
                divided_at.entry((egraph.find(q), egraph.find(d))).or_default().push((region, at));
            }
        }
        let scopes = vec![Scope {
            region: out.body,
            src_region: src.body,
            at: 0,
            kind: ScopeKind::Body,
            values: body_values,
            load_hoisting: None,
        }];
        Elaborator {
            src,
            egraph,
            extraction: Extraction::new(egraph),
            class_of,
            origin,
            out,
            scopes,
            in_progress: FxHashSet::default(),
            divided_at,
            stats: ElabStats::default(),
        }
    }

    /// Elaborates the whole function.
    pub fn run(mut self) -> Result<(Function, ElabStats), String> {
        self.emit_region_ops(self.src.body)?;
        let Elaborator { out, stats, extraction, origin, scopes, in_progress, divided_at, .. } = self;
        tilec_ir::drop_in_background((extraction, origin, scopes, in_progress, divided_at));
        Ok((out, stats))
    }

    fn class(&self, v: Value) -> Result<Id, String> {
        self.class_of.get(&v).map(|&c| self.egraph.find(c)).ok_or_else(|| format!("{v} has no e-class"))
    }

    fn current(&self) -> usize {
        self.scopes.len() - 1
    }

    /// The value of class `c` in an open scope, and that scope's level.
    fn lookup(&self, c: Id) -> Option<(Value, usize)> {
        for level in (0..self.scopes.len()).rev() {
            if let Some(&v) = self.scopes[level].values.get(&c) {
                return Some((v, level));
            }
            if self.scopes[level].kind == ScopeKind::Isolated {
                break;
            }
        }
        None
    }

    /// The outermost level a value needed at the current level may be placed at.
    fn hoist_floor(&self) -> usize {
        let mut level = self.current();
        while level > 0 && self.scopes[level].kind == ScopeKind::Loop {
            level -= 1;
        }
        level
    }

    /// Integer division or remainder that could trap at run time.
    fn may_trap(&self, node: &TileNode) -> bool {
        let NodeOp::Binary(BinaryOp::Div | BinaryOp::Rem) = node.op else { return false };
        let Some(s) = node.ty.scalar_type().filter(|s| s.is_int()) else { return false };
        match int_constant(self.egraph, node.children[1]) {
            Some(d) => d == 0 || (s.is_signed_int() && d == -1),
            None => true,
        }
    }

    /// The outermost level a possibly trapping `node` of class `c` may be placed at: the
    /// current one, or an enclosing one (up to the hoist floor) where the input computed the
    /// same division earlier in the same region.
    fn trap_floor(&self, c: Id, node: &TileNode) -> usize {
        let divisor = self.egraph.find(node.children[1]);
        let sites = self.divided_at.get(&(c, divisor)).map_or(&[][..], |s| s.as_slice());
        (self.hoist_floor()..self.current())
            .find(|&l| sites.iter().any(|&(r, at)| r == self.scopes[l].src_region && at < self.scopes[l].at))
            .unwrap_or(self.current())
    }

    /// The node to emit for class `c`, which is not available in any open scope: the
    /// extracted best node, or, when that is a leaf out of scope, the cheapest other node.
    fn choose_node(&mut self, c: Id) -> Result<TileNode, String> {
        if let Some(best) = self.extraction.best_node(self.egraph, c) {
            if !matches!(best.op, NodeOp::Leaf(_)) {
                return Ok(best.clone());
            }
        }
        let mut cost_fn = DepthCost { egraph: self.egraph };
        let mut choice: Option<(f64, &TileNode)> = None;
        for node in &self.egraph[c].nodes {
            if matches!(node.op, NodeOp::Leaf(_)) || node.children.iter().any(|&k| self.egraph.find(k) == c) {
                continue;
            }
            let cost = cost_fn.cost(node, |k| self.extraction.best_cost(self.egraph, k));
            if choice.is_none_or(|(best_cost, _)| cost < best_cost) {
                choice = Some((cost, node));
            }
        }
        choice.map(|(_, n)| n.clone()).ok_or_else(|| format!("class {c} is only available out of scope"))
    }

    /// The value of class `class` at the current point, emitting it if needed; returns the
    /// value and the level of the scope that holds it.
    fn elaborate(&mut self, class: Id) -> Result<(Value, usize), String> {
        let c = self.egraph.find(class);
        if let Some(found) = self.lookup(c) {
            return Ok(found);
        }
        let node = self.choose_node(c)?;
        if !self.in_progress.insert(c) {
            return Err(format!("class {c} depends on itself"));
        }
        let mut level = if self.may_trap(&node) { self.trap_floor(c, &node) } else { self.hoist_floor() };
        let mut args = Vec::with_capacity(node.children.len());
        for &child in &node.children {
            let (v, child_level) = self.elaborate(child)?;
            args.push(v);
            level = level.max(child_level);
        }
        self.in_progress.remove(&c);
        let kind = node.op.to_op_kind(&args).ok_or_else(|| format!("class {c} is a leaf out of scope"))?;
        let (span, name) = self.origin.get(&c).cloned().unwrap_or((self.src.span, None));
        let v = match node.op.sibling() {
            None => self.out.append_value(self.scopes[level].region, kind, Type::clone(&node.ty), span),
            Some((sibling_op, which)) => self.append_pair(level, &node, c, kind, (sibling_op, which), span),
        };
        self.out.values[v].name = name;
        self.scopes[level].values.insert(c, v);
        self.stats.pure_ops += 1;
        if level < self.current() {
            self.stats.hoisted += 1;
        }
        Ok((v, level))
    }

    /// Emits the two-result op (kept element, index) of argmax/argmin `node` of class `c`,
    /// which is result `which`, at `level`; the other result becomes the value of its class,
    /// when the e-graph has one. Returns result `which`.
    fn append_pair(
        &mut self,
        level: usize,
        node: &TileNode,
        c: Id,
        kind: OpKind,
        (sibling_op, which): (NodeOp, usize),
        span: Span,
    ) -> Value {
        let shape = node.ty.shape.clone();
        let value_ty = Type { elem: self.egraph[node.children[0]].data.ty.elem, shape: shape.clone() };
        let index_ty = Type { elem: Elem::Scalar(ScalarType::I32), shape };
        let sibling_ty = if which == 0 { index_ty.clone() } else { value_ty.clone() };
        let op = self.out.append_op(self.scopes[level].region, kind, vec![value_ty, index_ty], span);
        let results = self.out.ops[op].results.clone();
        if let Some(sibling) = self.egraph.lookup(TileNode::new(sibling_op, sibling_ty, node.children.clone())) {
            let sibling = self.egraph.find(sibling);
            if sibling != c && self.lookup(sibling).is_none() {
                self.scopes[level].values.insert(sibling, results[1 - which]);
            }
        }
        results[which]
    }

    fn value(&mut self, v: Value) -> Result<Value, String> {
        Ok(self.value_and_level(v)?.0)
    }

    /// The value of `v` and the level of the scope that holds it.
    fn value_and_level(&mut self, v: Value) -> Result<(Value, usize), String> {
        let c = self.class(v)?;
        self.elaborate(c)
    }

    fn values(&mut self, vs: &[Value]) -> Result<Vec<Value>, String> {
        vs.iter().map(|&v| self.value(v)).collect()
    }

    fn constant_of(&self, v: Value) -> Option<Const> {
        self.class_of.get(&v).and_then(|&c| self.egraph[c].data.constant)
    }

    /// The elaborated mask, or `None` when the mask folded to all-true.
    fn mask(&mut self, mask: Option<Value>) -> Result<Option<Value>, String> {
        Ok(self.mask_and_level(mask)?.map(|(m, _)| m))
    }

    /// [`Self::mask`] with the level of the scope holding the mask.
    fn mask_and_level(&mut self, mask: Option<Value>) -> Result<Option<(Value, usize)>, String> {
        match mask {
            Some(m) if self.constant_of(m) == Some(Const::Bool(true)) => {
                self.stats.masks_dropped += 1;
                Ok(None)
            }
            Some(m) => Ok(Some(self.value_and_level(m)?)),
            None => Ok(None),
        }
    }

    /// Where a load at the current point whose operands are all available at
    /// `operand_level` may go: the target level and, when the outermost loop it leaves may
    /// run zero times, that loop's level (the load needs a guard). `None`: it stays.
    fn load_destination(&self, operand_level: usize, ty: &Type) -> Option<(usize, Option<usize>)> {
        let guardable_type = matches!(ty.elem, Elem::Scalar(_));
        let mut level = self.current();
        let mut guarded_loop = None;
        while level > operand_level && self.scopes[level].kind == ScopeKind::Loop {
            let Some(hoisting) = &self.scopes[level].load_hoisting else { break };
            if hoisting.writes_or_fails {
                break;
            }
            match hoisting.trips {
                Trips::AtLeastOnce => level -= 1,
                Trips::Guardable { .. } if guardable_type => {
                    guarded_loop = Some(level);
                    level -= 1;
                    break;
                }
                Trips::Guardable { .. } | Trips::Unknown => break,
            }
        }
        (level < self.current()).then_some((level, guarded_loop))
    }

    /// Appends a pure op without an e-class (guard arithmetic) to the scope at `level`.
    fn append_plain(&mut self, level: usize, kind: OpKind, ty: Type, span: Span) -> Value {
        self.out.append_value(self.scopes[level].region, kind, ty, span)
    }

    /// The `i1` condition "the loop of scope `loop_level` runs at least once", emitted once
    /// in the enclosing scope.
    fn loop_guard(&mut self, loop_level: usize, span: Span) -> Result<Value, String> {
        let hoisting = self.scopes[loop_level].load_hoisting.as_ref().ok_or("guard of a scope that is no loop")?;
        if let Some(guard) = hoisting.guard {
            return Ok(guard);
        }
        let Trips::Guardable { lower, upper, step, step_sign } = hoisting.trips else {
            return Err("guard of a loop without bounds".to_string());
        };
        let at = loop_level - 1;
        let bool_ty = Type::scalar(ScalarType::I1);
        let cmp = |this: &mut Self, pred, lhs, rhs| {
            this.append_plain(at, OpKind::Cmp { pred, lhs, rhs }, bool_ty.clone(), span)
        };
        let guard = match step_sign {
            Some(Ordering::Greater) => cmp(self, CmpPred::Lt, lower, upper),
            Some(Ordering::Less) => cmp(self, CmpPred::Gt, lower, upper),
            Some(Ordering::Equal) => return Err("guard of a loop with a zero step".to_string()),
            None => {
                let step_ty = self.out.ty(step).clone();
                let zero_kind = OpKind::Constant(step_ty.scalar_type().map_or(Constant::Int(0), zero_constant));
                let zero = self.append_plain(at, zero_kind, step_ty, span);
                let up_step = cmp(self, CmpPred::Gt, step, zero);
                let up_trip = cmp(self, CmpPred::Lt, lower, upper);
                let down_step = cmp(self, CmpPred::Lt, step, zero);
                let down_trip = cmp(self, CmpPred::Gt, lower, upper);
                let and = |this: &mut Self, lhs, rhs| {
                    this.append_plain(at, OpKind::Binary { op: BinaryOp::And, lhs, rhs }, bool_ty.clone(), span)
                };
                let up = and(self, up_step, up_trip);
                let down = and(self, down_step, down_trip);
                self.append_plain(at, OpKind::Binary { op: BinaryOp::Or, lhs: up, rhs: down }, bool_ty.clone(), span)
            }
        };
        if let Some(hoisting) = self.scopes[loop_level].load_hoisting.as_mut() {
            hoisting.guard = Some(guard);
        }
        Ok(guard)
    }

    /// Emits load `op` (operands already elaborated into `kind`), out of its loops when
    /// [`Self::load_destination`] allows, and records its result.
    fn emit_load(&mut self, op: &tilec_ir::Op, kind: OpKind, operand_level: usize) -> Result<(), String> {
        let old = op.results[0];
        let ty = self.src.ty(old).clone();
        let Some((level, guarded_loop)) = self.load_destination(operand_level, &ty) else {
            return self.append_skeleton_op(op, kind);
        };
        let loaded = match guarded_loop {
            None => self.out.append_value(self.scopes[level].region, kind, ty.clone(), op.span),
            Some(loop_level) => {
                let cond = self.loop_guard(loop_level, op.span)?;
                let then_region = self.out.new_region();
                let loaded = self.out.append_value(then_region, kind, ty.clone(), op.span);
                self.out.values[loaded].name = self.src.values[old].name.clone();
                self.out.append_op(then_region, OpKind::Yield(vec![loaded]), vec![], op.span);
                let else_region = self.out.new_region();
                let zero_kind = OpKind::Constant(ty.scalar_type().map_or(Constant::Int(0), zero_constant));
                let zero = self.out.append_value(else_region, zero_kind, ty.clone(), op.span);
                self.out.append_op(else_region, OpKind::Yield(vec![zero]), vec![], op.span);
                let if_kind = OpKind::If { cond, then_region, else_region };
                let if_op = self.out.append_op(self.scopes[level].region, if_kind, vec![ty.clone()], op.span);
                self.stats.loads_guarded += 1;
                self.out.ops[if_op].results[0]
            }
        };
        self.out.values[loaded].name = self.src.values[old].name.clone();
        let c = self.class(old)?;
        self.scopes[level].values.insert(c, loaded);
        self.stats.loads_hoisted += 1;
        Ok(())
    }

    fn emit_region_ops(&mut self, region: RegionId) -> Result<(), String> {
        let src = self.src;
        for (at, &op_id) in src.regions[region].ops.iter().enumerate() {
            let op = &src.ops[op_id];
            let level = self.current();
            self.scopes[level].at = at;
            if NodeOp::of_pure_op(&op.kind).is_none() {
                self.emit_skeleton_op(op)?;
            }
        }
        Ok(())
    }

    /// Emits the new version of region `old` as a nested scope of kind `kind`.
    fn nested_region(&mut self, old: RegionId, kind: ScopeKind) -> Result<RegionId, String> {
        self.nested_region_with(old, kind, None)
    }

    /// [`Self::nested_region`] for a loop region, with what decides whether loads leave it.
    fn nested_region_with(
        &mut self,
        old: RegionId,
        kind: ScopeKind,
        load_hoisting: Option<LoadHoisting>,
    ) -> Result<RegionId, String> {
        let src = self.src;
        let new = self.out.new_region();
        let mut values = FxHashMap::default();
        for &p in &src.regions[old].params {
            let data = &src.values[p];
            let np = self.out.add_region_param(new, data.ty.clone(), data.name.clone());
            values.insert(self.class(p)?, np);
        }
        self.scopes.push(Scope { region: new, src_region: old, at: 0, kind, values, load_hoisting });
        let result = self.emit_region_ops(old);
        self.scopes.pop();
        result.map(|()| new)
    }

    fn emit_skeleton_op(&mut self, op: &tilec_ir::Op) -> Result<(), String> {
        use OpKind::*;
        let kind = match &op.kind {
            Load { ptr, mask, other } => {
                let (ptr, ptr_level) = self.value_and_level(*ptr)?;
                let mask = self.mask_and_level(*mask)?;
                // Masked-off lanes read zero when `other` is absent, so a zero `other` goes.
                let zero_other = other.and_then(|o| self.constant_of(o)).is_some_and(is_zero_bits);
                let other = match (mask, other) {
                    (Some(_), Some(o)) if !zero_other => Some(self.value_and_level(*o)?),
                    _ => None,
                };
                let operand_level =
                    [Some(ptr_level), mask.map(|m| m.1), other.map(|o| o.1)].into_iter().flatten().max();
                let kind = Load { ptr, mask: mask.map(|m| m.0), other: other.map(|o| o.0) };
                return self.emit_load(op, kind, operand_level.unwrap_or(0));
            }
            Store { ptr, value, mask } => {
                if mask.and_then(|m| self.constant_of(m)) == Some(Const::Bool(false)) {
                    self.stats.stores_dropped += 1;
                    return Ok(());
                }
                // The stored value first: address and mask arithmetic, cheap to recompute, is
                // then placed after the value's computation, next to the store, where the
                // lowering fuses it into the store's loop nest instead of keeping a pointer
                // tile alive in scratch across the reductions the value needs.
                let value = self.value(*value)?;
                Store { ptr: self.value(*ptr)?, value, mask: self.mask(*mask)? }
            }
            AtomicRmw { op: rmw, ptr, value, mask, sem } => {
                let value = self.value(*value)?;
                let ptr = self.value(*ptr)?;
                AtomicRmw { op: *rmw, ptr, value, mask: self.mask(*mask)?, sem: *sem }
            }
            AtomicCas { ptr, cmp, value, sem } => {
                AtomicCas { ptr: self.value(*ptr)?, cmp: self.value(*cmp)?, value: self.value(*value)?, sem: *sem }
            }
            Assert { cond, message } => Assert { cond: self.value(*cond)?, message: message.clone() },
            Print { prefix, args, hex } => Print { prefix: prefix.clone(), args: self.values(args)?, hex: *hex },
            Assume { cond } => Assume { cond: self.value(*cond)? },
            DebugBarrier => DebugBarrier,
            Yield(vs) => Yield(self.values(vs)?),
            Condition { cond, args } => Condition { cond: self.value(*cond)?, args: self.values(args)? },
            For { lower: old_lower, upper: old_upper, step: old_step, init, body } => {
                let (lower, upper, step) = (self.value(*old_lower)?, self.value(*old_upper)?, self.value(*old_step)?);
                let init = self.values(init)?;
                let hoisting = LoadHoisting {
                    writes_or_fails: writes_or_fails(self.src, *body),
                    trips: self.for_trips(*old_lower, *old_upper, *old_step, (lower, upper, step))?,
                    guard: None,
                };
                For { lower, upper, step, init, body: self.nested_region_with(*body, ScopeKind::Loop, Some(hoisting))? }
            }
            If { cond, then_region, else_region } => {
                let cond = self.value(*cond)?;
                let then_region = self.nested_region(*then_region, ScopeKind::Branch)?;
                let else_region = self.nested_region(*else_region, ScopeKind::Branch)?;
                If { cond, then_region, else_region }
            }
            While { init, before, after } => {
                let init = self.values(init)?;
                let writes_or_fails = writes_or_fails(self.src, *before) || writes_or_fails(self.src, *after);
                let hoisting = |trips| Some(LoadHoisting { writes_or_fails, trips, guard: None });
                let before = self.nested_region_with(*before, ScopeKind::Loop, hoisting(Trips::AtLeastOnce))?;
                let after = self.nested_region_with(*after, ScopeKind::Loop, hoisting(Trips::Unknown))?;
                While { init, before, after }
            }
            ReduceCustom { values, axis, combine } => {
                let values = self.values(values)?;
                ReduceCustom { values, axis: *axis, combine: self.nested_region(*combine, ScopeKind::Isolated)? }
            }
            ScanCustom { values, axis, reverse, combine } => {
                let values = self.values(values)?;
                let combine = self.nested_region(*combine, ScopeKind::Isolated)?;
                ScanCustom { values, axis: *axis, reverse: *reverse, combine }
            }
            pure => return Err(format!("pure op in the skeleton: {pure:?}")),
        };
        self.append_skeleton_op(op, kind)
    }

    /// How often the body of `scf.for` with source bounds `lower`, `upper`, `step` runs;
    /// `bounds` are the same bounds in the output.
    fn for_trips(
        &self,
        lower: Value,
        upper: Value,
        step: Value,
        bounds: (Value, Value, Value),
    ) -> Result<Trips, String> {
        let constant = |v| Ok::<_, String>(int_constant(self.egraph, self.class(v)?));
        let step_sign = constant(step)?.map(|s| s.cmp(&0));
        let runs = match (constant(lower)?, constant(upper)?, step_sign) {
            (Some(l), Some(u), Some(Ordering::Greater)) => l < u,
            (Some(l), Some(u), Some(Ordering::Less)) => l > u,
            _ => false,
        };
        Ok(match step_sign {
            _ if runs => Trips::AtLeastOnce,
            Some(Ordering::Equal) => Trips::Unknown,
            _ => Trips::Guardable { lower: bounds.0, upper: bounds.1, step: bounds.2, step_sign },
        })
    }

    /// Appends the new skeleton op `kind` for `op` to the current scope and records its
    /// results.
    fn append_skeleton_op(&mut self, op: &tilec_ir::Op, kind: OpKind) -> Result<(), String> {
        let level = self.current();
        let types = op.results.iter().map(|&r| self.src.ty(r).clone()).collect();
        let new_op = self.out.append_op(self.scopes[level].region, kind, types, op.span);
        for (i, &old) in op.results.iter().enumerate() {
            let new = self.out.ops[new_op].results[i];
            self.out.values[new].name = self.src.values[old].name.clone();
            let c = self.class(old)?;
            self.scopes[level].values.insert(c, new);
        }
        Ok(())
    }
}
