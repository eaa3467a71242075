//! The extraction cost: loop depth first, then op cost scaled by tile size.
//!
//! A node's own cost is `op_cost × size_weight × LOOP_FACTOR^depth`, where `depth` is the
//! loop depth at which the node can be computed (its deepest child); a term costs the sum
//! of its nodes. So a form that can leave a loop wins over any form that cannot, and among
//! forms at one depth the cheaper ops on smaller tiles win.

use crate::analysis::{Graph, TileAnalysis};
use crate::lang::{NodeOp, TileNode};
use egg::{CostFunction, Id};
use rustc_hash::FxHashMap;
use tilec_ir::{BinaryOp, Type};

/// Cost multiplier per loop level (a loop is assumed to run about this many times).
pub const LOOP_FACTOR: f64 = 64.0;

pub struct DepthCost<'g> {
    pub egraph: &'g Graph,
}

/// The relative cost of one op, before scaling by size and depth.
pub fn op_cost(op: &NodeOp) -> f64 {
    match op {
        NodeOp::Leaf(_) => 0.0,
        NodeOp::Hint(_) => 0.01,
        NodeOp::ExpandDims(_) | NodeOp::Reshape => 0.1,
        NodeOp::Const(_) | NodeOp::ProgramId(_) | NodeOp::NumPrograms(_) => 0.5,
        NodeOp::Splat | NodeOp::Broadcast | NodeOp::Trans(_) | NodeOp::MakeRange { .. } => 1.0,
        NodeOp::Binary(BinaryOp::Div | BinaryOp::Rem | BinaryOp::MulHi) => 4.0,
        NodeOp::Binary(BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot) => 16.0,
        NodeOp::Binary(_) | NodeOp::Unary(_) | NodeOp::Cmp(_) | NodeOp::Select | NodeOp::Cast(_) => 1.0,
        NodeOp::AddPtr | NodeOp::Fma => 2.0,
        NodeOp::Math(_) => 8.0,
        NodeOp::Reduce(..) | NodeOp::ArgIndex(..) | NodeOp::Scan { .. } | NodeOp::Gather(_) => 4.0,
        NodeOp::Dot(_) => 64.0,
    }
}

/// Larger tiles cost more, sub-linearly (the lowering strip-mines them over vectors).
pub fn size_weight(ty: &Type) -> f64 {
    1.0 + (ty.numel() as f64).log2() / 2.0
}

impl CostFunction<TileNode> for DepthCost<'_> {
    type Cost = f64;

    fn cost<C>(&mut self, enode: &TileNode, mut costs: C) -> f64
    where
        C: FnMut(Id) -> f64,
    {
        let depth = TileAnalysis::node_depth(self.egraph, enode);
        let own = op_cost(&enode.op) * size_weight(&enode.ty) * LOOP_FACTOR.powi(depth as i32);
        enode.children.iter().fold(own, |sum, &c| sum + costs(c))
    }
}

/// The cheapest node of every class under [`DepthCost`].
///
/// Costs are computed by passes over the classes in increasing id order until nothing
/// improves; ids grow with insertion, so children mostly come before their users and few
/// passes are needed (egg's own extractor visits classes in hash order). Only nodes whose
/// children all have a cost are considered, so the choices never form a cycle.
pub struct Extraction {
    best: FxHashMap<Id, (f64, TileNode)>,
}

impl Extraction {
    pub fn new(egraph: &Graph) -> Extraction {
        let mut ids: Vec<Id> = egraph.classes().map(|c| c.id).collect();
        ids.sort();
        let mut cost_fn = DepthCost { egraph };
        let mut best: FxHashMap<Id, (f64, TileNode)> =
            FxHashMap::with_capacity_and_hasher(ids.len(), Default::default());
        let mut changed = true;
        while changed {
            changed = false;
            for &id in &ids {
                for node in &egraph[id].nodes {
                    let known = node.children.iter().all(|&c| best.contains_key(&egraph.find(c)));
                    if !known {
                        continue;
                    }
                    let cost = cost_fn.cost(node, |c| best[&egraph.find(c)].0);
                    if best.get(&id).is_none_or(|(old, _)| cost < *old) {
                        best.insert(id, (cost, node.clone()));
                        changed = true;
                    }
                }
            }
        }
        Extraction { best }
    }

    /// The cheapest node of class `id`, if any node of it has a finite cost.
    pub fn best_node(&self, egraph: &Graph, id: Id) -> Option<&TileNode> {
        self.best.get(&egraph.find(id)).map(|(_, n)| n)
    }

    /// The cost of the cheapest term of class `id` (infinite when it has none).
    pub fn best_cost(&self, egraph: &Graph, id: Id) -> f64 {
        self.best.get(&egraph.find(id)).map_or(f64::INFINITY, |(c, _)| *c)
    }
}
