//! The e-class analysis: result type, constant value, integer range and loop depth.
//!
//! Invariants: all nodes of a class have the same type; `constant`, when known, is the value
//! of every element; `range` bounds every element's mathematical value (inclusive) for
//! integer classes; `depth` is the smallest loop depth at which some node of the class can
//! be computed (leaves: the depth of their definition; other nodes: the deepest child).

use crate::fold;
use crate::lang::{Const, NodeOp, SharedType, TileNode};
use egg::{DidMerge, EGraph, Id};
use rustc_hash::FxHashMap;
use tilec_ir::{Axis, BinaryOp, CastOp, ReduceKind, ScalarType, Type, Value};

pub type Graph = EGraph<TileNode, TileAnalysis>;

#[derive(Clone, Debug, PartialEq)]
pub struct ClassData {
    pub ty: SharedType,
    pub constant: Option<Const>,
    pub range: Option<(i128, i128)>,
    pub depth: u32,
}

/// Per-graph facts the nodes cannot carry: the loop depth of each opaque leaf.
#[derive(Clone, Debug, Default)]
pub struct TileAnalysis {
    pub leaf_depth: FxHashMap<Value, u32>,
}

impl TileAnalysis {
    /// The loop depth at which `node` can be computed, given its children's classes.
    pub fn node_depth(egraph: &Graph, node: &TileNode) -> u32 {
        match node.op {
            NodeOp::Leaf(v) => egraph.analysis.leaf_depth.get(&v).copied().unwrap_or(0),
            _ => node.children.iter().map(|&c| egraph[c].data.depth).max().unwrap_or(0),
        }
    }
}

fn element(ty: &Type) -> Option<ScalarType> {
    ty.scalar_type()
}

fn constant_of(egraph: &Graph, node: &TileNode) -> Option<Const> {
    let data = |i: usize| &egraph[node.children[i]].data;
    let child_const = |i: usize| data(i).constant;
    match &node.op {
        NodeOp::Const(c) => Some(*c),
        NodeOp::Splat
        | NodeOp::Broadcast
        | NodeOp::ExpandDims(_)
        | NodeOp::Reshape
        | NodeOp::Trans(_)
        | NodeOp::Hint(_)
        | NodeOp::Gather(_) => child_const(0),
        NodeOp::Binary(op) => fold::binary(*op, child_const(0)?, child_const(1)?, element(&data(0).ty)?),
        NodeOp::Unary(op) => fold::unary(*op, child_const(0)?, element(&data(0).ty)?),
        NodeOp::Cmp(pred) => {
            let s = element(&data(0).ty)?;
            match (child_const(0), child_const(1)) {
                (Some(a), Some(b)) => fold::cmp(*pred, a, b, s),
                _ if s.is_int() => fold::compare_ranges(*pred, data(0).range?, data(1).range?).map(Const::Bool),
                _ => None,
            }
        }
        NodeOp::Select => match child_const(0) {
            Some(Const::Bool(true)) => child_const(1),
            Some(Const::Bool(false)) => child_const(2),
            _ => child_const(1).filter(|a| child_const(2) == Some(*a)),
        },
        NodeOp::Cast(op) => fold::cast(*op, child_const(0)?, element(&data(0).ty)?, element(&node.ty)?),
        NodeOp::Reduce(ReduceKind::Max | ReduceKind::Min | ReduceKind::And | ReduceKind::Or, _) => child_const(0),
        _ => None,
    }
}

/// Bounds of an integer value, from constants, `make_range`, program ids and a few
/// arithmetic ops; `None` when unknown or when a bound would leave the type's range.
fn range_of(egraph: &Graph, node: &TileNode, constant: Option<Const>) -> Option<(i128, i128)> {
    let s = element(&node.ty).filter(|s| s.is_int() && !s.is_bool())?;
    if let Some(c) = constant {
        let v = fold::const_int_value(c, s)?;
        return Some((v, v));
    }
    let range = |i: usize| egraph[node.children[i]].data.range;
    let (min, max) = fold::int_bounds(s);
    let r = match &node.op {
        NodeOp::MakeRange { start, end } => (*start as i128, *end as i128 - 1),
        NodeOp::ProgramId(_) => (0, i32::MAX as i128),
        NodeOp::NumPrograms(Axis::X | Axis::Y | Axis::Z) => (1, i32::MAX as i128),
        NodeOp::Splat
        | NodeOp::Broadcast
        | NodeOp::ExpandDims(_)
        | NodeOp::Reshape
        | NodeOp::Trans(_)
        | NodeOp::Hint(_) => range(0)?,
        NodeOp::Binary(op) => {
            let (a, b) = (range(0)?, range(1)?);
            match op {
                BinaryOp::Add => (a.0 + b.0, a.1 + b.1),
                BinaryOp::Sub => (a.0 - b.1, a.1 - b.0),
                BinaryOp::Mul => {
                    let products = [a.0 * b.0, a.0 * b.1, a.1 * b.0, a.1 * b.1];
                    (*products.iter().min()?, *products.iter().max()?)
                }
                BinaryOp::Max => (a.0.max(b.0), a.1.max(b.1)),
                BinaryOp::Min => (a.0.min(b.0), a.1.min(b.1)),
                BinaryOp::Rem if a.0 >= 0 && b.0 > 0 => (0, a.1.min(b.1 - 1)),
                BinaryOp::Div if a.0 >= 0 && b.0 > 0 => (a.0 / b.1, a.1 / b.0),
                BinaryOp::And if a.0 >= 0 || b.0 >= 0 => {
                    let cap = if a.0 >= 0 && b.0 >= 0 {
                        a.1.min(b.1)
                    } else if a.0 >= 0 {
                        a.1
                    } else {
                        b.1
                    };
                    (0, cap)
                }
                _ => return None,
            }
        }
        NodeOp::Cast(CastOp::IntExt) => range(0)?,
        _ => return None,
    };
    (r.0 >= min && r.1 <= max && r.0 <= r.1).then_some(r)
}

impl egg::Analysis<TileNode> for TileAnalysis {
    type Data = ClassData;

    fn make(egraph: &mut Graph, enode: &TileNode, _id: Id) -> ClassData {
        let constant = constant_of(egraph, enode);
        ClassData {
            ty: enode.ty.clone(),
            constant,
            range: range_of(egraph, enode, constant),
            depth: TileAnalysis::node_depth(egraph, enode),
        }
    }

    fn merge(&mut self, a: &mut ClassData, b: ClassData) -> DidMerge {
        let mut a_changed = false;
        let mut b_changed = false;
        match (a.constant, b.constant) {
            (None, Some(c)) => {
                a.constant = Some(c);
                a_changed = true;
            }
            (Some(_), None) => b_changed = true,
            _ => {}
        }
        match (a.range, b.range) {
            (None, Some(r)) => {
                a.range = Some(r);
                a_changed = true;
            }
            (Some(_), None) => b_changed = true,
            (Some(x), Some(y)) => {
                let both = (x.0.max(y.0), x.1.min(y.1));
                if both.0 <= both.1 {
                    a_changed |= both != x;
                    b_changed |= both != y;
                    a.range = Some(both);
                }
            }
            (None, None) => {}
        }
        if b.depth < a.depth {
            a.depth = b.depth;
            a_changed = true;
        } else if a.depth < b.depth {
            b_changed = true;
        }
        DidMerge(a_changed, b_changed)
    }

    /// A class with a known constant also gets the constant node, which extraction prefers.
    fn modify(egraph: &mut Graph, id: Id) {
        let data = &egraph[id].data;
        if let Some(c) = data.constant {
            if data.ty.elem.scalar().is_some() {
                let ty = data.ty.clone();
                let c = if ty.scalar_type() == Some(ScalarType::I1) {
                    match c {
                        Const::Int(i) => Const::Bool(i & 1 == 1),
                        other => other,
                    }
                } else {
                    c
                };
                let added = egraph.add(TileNode::constant(c, ty));
                egraph.union(id, added);
            }
        }
    }
}
