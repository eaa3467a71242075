//! Function → e-graph: every pure op becomes an e-node; region parameters and results of
//! skeleton ops (effects and ops with regions) become opaque leaves.

use crate::analysis::{Graph, TileAnalysis};
use crate::lang::{NodeOp, TileNode};
use egg::Id;
use std::collections::HashMap;
use tilec_ir::{Function, OpKind, RegionId, Value};

/// The e-graph of a function and the class of each of its values.
pub struct Built {
    pub egraph: Graph,
    pub class_of: HashMap<Value, Id>,
    /// Number of pure ops in the input.
    pub pure_ops: usize,
}

/// Whether the regions of `kind` run repeatedly (their params are one loop level deeper).
pub fn is_loop(kind: &OpKind) -> bool {
    matches!(kind, OpKind::For { .. } | OpKind::While { .. } | OpKind::ReduceCustom { .. } | OpKind::ScanCustom { .. })
}

/// Fails only on input that breaks the IR's scope rule (an operand used before defined).
pub fn build(f: &Function) -> Result<Built, String> {
    let mut built = Built { egraph: Graph::new(TileAnalysis::default()), class_of: HashMap::new(), pure_ops: 0 };
    add_region(f, f.body, 0, &mut built)?;
    Ok(built)
}

fn add_leaf(f: &Function, v: Value, depth: u32, built: &mut Built) {
    built.egraph.analysis.leaf_depth.insert(v, depth);
    let id = built.egraph.add(TileNode::new(NodeOp::Leaf(v), f.ty(v).clone(), Vec::new()));
    built.class_of.insert(v, id);
}

fn add_region(f: &Function, region: RegionId, depth: u32, built: &mut Built) -> Result<(), String> {
    for &p in &f.regions[region].params {
        add_leaf(f, p, depth, built);
    }
    for &op_id in &f.regions[region].ops {
        let op = &f.ops[op_id];
        match NodeOp::of_pure_op(&op.kind) {
            Some(node_op) => {
                let children = op
                    .kind
                    .operands()
                    .iter()
                    .map(|v| built.class_of.get(v).copied().ok_or_else(|| format!("{v} is used before it is defined")))
                    .collect::<Result<_, _>>()?;
                let result = op.results[0];
                let id = built.egraph.add(TileNode::new(node_op, f.ty(result).clone(), children));
                built.class_of.insert(result, id);
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
