//! Function → e-graph: every pure op becomes an e-node; region parameters and results of
//! skeleton ops (effects and ops with regions) become opaque leaves. A value bounded by a
//! top-level `tt.assume` (`tilec_ir::assume`) gets that bound in its class's integer range
//! when its class is created, before any op using it is added.

use crate::analysis::{Graph, TileAnalysis};
use crate::fold;
use crate::lang::{Children, NodeOp, TileNode};
use egg::Id;
use rustc_hash::FxHashMap;
use tilec_ir::assume::{assumed_facts, Fact};
use tilec_ir::{Function, OpKind, RegionId, Value};

/// The e-graph of a function and the class of each of its values.
pub struct Built {
    pub egraph: Graph,
    pub class_of: FxHashMap<Value, Id>,
    /// Number of pure ops in the input.
    pub pure_ops: usize,
    /// What the kernel's assumptions state, by value.
    facts: std::collections::HashMap<Value, Fact>,
}

impl Built {
    /// Records `id` as the class of `v`, narrowing its range by what is assumed about `v`.
    fn define(&mut self, v: Value, id: Id) {
        self.class_of.insert(v, id);
        let Some(fact) = self.facts.get(&v) else { return };
        let data = &mut self.egraph[id].data;
        let Some(s) = data.ty.scalar_type().filter(|s| s.is_int() && !s.is_bool()) else { return };
        let (lo, hi) = data.range.unwrap_or_else(|| fold::int_bounds(s));
        let narrowed = (fact.min.map_or(lo, |m| m.max(lo)), fact.max.map_or(hi, |m| m.min(hi)));
        if narrowed.0 <= narrowed.1 {
            data.range = Some(narrowed);
        }
    }
}

/// Whether the regions of `kind` run repeatedly (their params are one loop level deeper).
pub fn is_loop(kind: &OpKind) -> bool {
    matches!(kind, OpKind::For { .. } | OpKind::While { .. } | OpKind::ReduceCustom { .. } | OpKind::ScanCustom { .. })
}

/// Fails only on input that breaks the IR's scope rule (an operand used before defined).
pub fn build(f: &Function) -> Result<Built, String> {
    // Sized once: every value gets a class, and at most one leaf depth.
    let analysis = TileAnalysis { leaf_depth: FxHashMap::with_capacity_and_hasher(f.values.len(), Default::default()) };
    let mut built = Built {
        egraph: Graph::new(analysis),
        class_of: FxHashMap::with_capacity_and_hasher(f.values.len(), Default::default()),
        pure_ops: 0,
        facts: assumed_facts(f),
    };
    add_region(f, f.body, 0, &mut built)?;
    Ok(built)
}

fn add_leaf(f: &Function, v: Value, depth: u32, built: &mut Built) {
    built.egraph.analysis.leaf_depth.insert(v, depth);
    let id = built.egraph.add(TileNode::new(NodeOp::Leaf(v), f.ty(v).clone(), Children::new()));
    built.define(v, id);
}

fn add_region(f: &Function, region: RegionId, depth: u32, built: &mut Built) -> Result<(), String> {
    for &p in &f.regions[region].params {
        add_leaf(f, p, depth, built);
    }
    for &op_id in &f.regions[region].ops {
        let op = &f.ops[op_id];
        match NodeOp::of_pure_op(&op.kind) {
            Some(node_op) => {
                let children: Children = op
                    .kind
                    .operands()
                    .iter()
                    .map(|v| built.class_of.get(v).copied().ok_or_else(|| format!("{v} is used before it is defined")))
                    .collect::<Result<_, _>>()?;
                // An argmax/argmin's index: a node of its own over the same child.
                if let Some((index_op, 0)) = node_op.sibling() {
                    let index = op.results[1];
                    let index_id = built.egraph.add(TileNode::new(index_op, f.ty(index).clone(), children.clone()));
                    built.define(index, index_id);
                }
                let result = op.results[0];
                let id = built.egraph.add(TileNode::new(node_op, f.ty(result).clone(), children));
                built.define(result, id);
                built.pure_ops += 1;
            }
            None => {
                let inner_depth = depth + is_loop(&op.kind) as u32;
                for r in op.kind.regions() {
                    add_region(f, r, inner_depth, built)?;
                }
                for &v in &op.results {
                    add_leaf(f, v, depth, built);
                }
            }
        }
    }
    Ok(())
}
