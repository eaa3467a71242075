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
//! - Loads, like every effect, stay where they are: a load is never hoisted out of a loop,
//!   even when its operands are invariant, because proving it safe needs both that nothing
//!   in the loop may write the memory it reads (no alias analysis here) and that the loop
//!   runs at least once.

use crate::analysis::Graph;
use crate::cost::{DepthCost, Extraction};
use crate::lang::{Const, NodeOp, TileNode};
use crate::rules::int_constant;
use egg::{CostFunction, Id};
use std::collections::{HashMap, HashSet};
use tilec_diagnostics::Span;
use tilec_ir::{BinaryOp, Function, OpKind, RegionId, Value};

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
    kind: ScopeKind,
    values: HashMap<Id, Value>,
}

/// Whether a constant's bit pattern is all zeros (`+0.0`, `0`, `false`).
fn is_zero_bits(c: Const) -> bool {
    matches!(c, Const::Int(0) | Const::Float(0) | Const::Bool(false))
}

pub struct Elaborator<'a> {
    src: &'a Function,
    egraph: &'a Graph,
    extraction: Extraction,
    class_of: &'a HashMap<Value, Id>,
    /// Span and name of the first input value of each class.
    origin: HashMap<Id, (Span, Option<String>)>,
    out: Function,
    scopes: Vec<Scope>,
    in_progress: HashSet<Id>,
    pub stats: ElabStats,
}

impl<'a> Elaborator<'a> {
    pub fn new(src: &'a Function, egraph: &'a Graph, class_of: &'a HashMap<Value, Id>) -> Elaborator<'a> {
        let mut origin: HashMap<Id, (Span, Option<String>)> = HashMap::new();
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
        let mut body_values = HashMap::new();
        for (old, new) in src.param_values().iter().zip(out.param_values()) {
            if let Some(&class) = class_of.get(old) {
                body_values.insert(egraph.find(class), *new);
            }
        }
        let scopes = vec![Scope { region: out.body, kind: ScopeKind::Body, values: body_values }];
        Elaborator {
            src,
            egraph,
            extraction: Extraction::new(egraph),
            class_of,
            origin,
            out,
            scopes,
            in_progress: HashSet::new(),
            stats: ElabStats::default(),
        }
    }

    /// Elaborates the whole function.
    pub fn run(mut self) -> Result<(Function, ElabStats), String> {
        self.emit_region_ops(self.src.body)?;
        Ok((self.out, self.stats))
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
        let mut level = if self.may_trap(&node) { self.current() } else { self.hoist_floor() };
        let mut args = Vec::with_capacity(node.children.len());
        for &child in &node.children {
            let (v, child_level) = self.elaborate(child)?;
            args.push(v);
            level = level.max(child_level);
        }
        self.in_progress.remove(&c);
        let kind = node.op.to_op_kind(&args).ok_or_else(|| format!("class {c} is a leaf out of scope"))?;
        let (span, name) = self.origin.get(&c).cloned().unwrap_or((self.src.span, None));
        let v = self.out.append_value(self.scopes[level].region, kind, node.ty.clone(), span);
        self.out.values[v].name = name;
        self.scopes[level].values.insert(c, v);
        self.stats.pure_ops += 1;
        if level < self.current() {
            self.stats.hoisted += 1;
        }
        Ok((v, level))
    }

    fn value(&mut self, v: Value) -> Result<Value, String> {
        let c = self.class(v)?;
        Ok(self.elaborate(c)?.0)
    }

    fn values(&mut self, vs: &[Value]) -> Result<Vec<Value>, String> {
        vs.iter().map(|&v| self.value(v)).collect()
    }

    fn constant_of(&self, v: Value) -> Option<Const> {
        self.class_of.get(&v).and_then(|&c| self.egraph[c].data.constant)
    }

    /// The elaborated mask, or `None` when the mask folded to all-true.
    fn mask(&mut self, mask: Option<Value>) -> Result<Option<Value>, String> {
        match mask {
            Some(m) if self.constant_of(m) == Some(Const::Bool(true)) => {
                self.stats.masks_dropped += 1;
                Ok(None)
            }
            Some(m) => Ok(Some(self.value(m)?)),
            None => Ok(None),
        }
    }

    fn emit_region_ops(&mut self, region: RegionId) -> Result<(), String> {
        let src = self.src;
        for &op_id in &src.regions[region].ops {
            let op = &src.ops[op_id];
            if NodeOp::of_pure_op(&op.kind).is_none() {
                self.emit_skeleton_op(op)?;
            }
        }
        Ok(())
    }

    /// Emits the new version of region `old` as a nested scope of kind `kind`.
    fn nested_region(&mut self, old: RegionId, kind: ScopeKind) -> Result<RegionId, String> {
        let src = self.src;
        let new = self.out.new_region();
        let mut values = HashMap::new();
        for &p in &src.regions[old].params {
            let data = &src.values[p];
            let np = self.out.add_region_param(new, data.ty.clone(), data.name.clone());
            values.insert(self.class(p)?, np);
        }
        self.scopes.push(Scope { region: new, kind, values });
        let result = self.emit_region_ops(old);
        self.scopes.pop();
        result.map(|()| new)
    }

    fn emit_skeleton_op(&mut self, op: &tilec_ir::Op) -> Result<(), String> {
        use OpKind::*;
        let kind = match &op.kind {
            Load { ptr, mask, other } => {
                let ptr = self.value(*ptr)?;
                let mask = self.mask(*mask)?;
                // Masked-off lanes read zero when `other` is absent, so a zero `other` goes.
                let zero_other = other.and_then(|o| self.constant_of(o)).is_some_and(is_zero_bits);
                let other = match (mask, other) {
                    (Some(_), Some(o)) if !zero_other => Some(self.value(*o)?),
                    _ => None,
                };
                Load { ptr, mask, other }
            }
            Store { ptr, value, mask } => {
                if mask.and_then(|m| self.constant_of(m)) == Some(Const::Bool(false)) {
                    self.stats.stores_dropped += 1;
                    return Ok(());
                }
                let (ptr, value) = (self.value(*ptr)?, self.value(*value)?);
                Store { ptr, value, mask: self.mask(*mask)? }
            }
            AtomicRmw { op: rmw, ptr, value, mask, sem } => {
                let (ptr, value) = (self.value(*ptr)?, self.value(*value)?);
                AtomicRmw { op: *rmw, ptr, value, mask: self.mask(*mask)?, sem: *sem }
            }
            AtomicCas { ptr, cmp, value, sem } => {
                AtomicCas { ptr: self.value(*ptr)?, cmp: self.value(*cmp)?, value: self.value(*value)?, sem: *sem }
            }
            Assert { cond, message } => Assert { cond: self.value(*cond)?, message: message.clone() },
            Print { prefix, args, hex } => Print { prefix: prefix.clone(), args: self.values(args)?, hex: *hex },
            DebugBarrier => DebugBarrier,
            Yield(vs) => Yield(self.values(vs)?),
            Condition { cond, args } => Condition { cond: self.value(*cond)?, args: self.values(args)? },
            For { lower, upper, step, init, body } => {
                let (lower, upper, step) = (self.value(*lower)?, self.value(*upper)?, self.value(*step)?);
                let init = self.values(init)?;
                For { lower, upper, step, init, body: self.nested_region(*body, ScopeKind::Loop)? }
            }
            If { cond, then_region, else_region } => {
                let cond = self.value(*cond)?;
                let then_region = self.nested_region(*then_region, ScopeKind::Branch)?;
                let else_region = self.nested_region(*else_region, ScopeKind::Branch)?;
                If { cond, then_region, else_region }
            }
            While { init, before, after } => {
                let init = self.values(init)?;
                let before = self.nested_region(*before, ScopeKind::Loop)?;
                let after = self.nested_region(*after, ScopeKind::Loop)?;
                While { init, before, after }
            }
            ReduceCustom { value, axis, combine } => {
                let value = self.value(*value)?;
                ReduceCustom { value, axis: *axis, combine: self.nested_region(*combine, ScopeKind::Isolated)? }
            }
            ScanCustom { value, axis, reverse, combine } => {
                let value = self.value(*value)?;
                let combine = self.nested_region(*combine, ScopeKind::Isolated)?;
                ScanCustom { value, axis: *axis, reverse: *reverse, combine }
            }
            pure => return Err(format!("pure op in the skeleton: {pure:?}")),
        };
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
