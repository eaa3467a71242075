//! `select` simplification.

use super::{constant, data, same_class, Rhs, Root, Rule};
use crate::analysis::Graph;
use crate::lang::{Const, NodeOp, TileNode};
use tilec_ir::UnaryOp;

pub const RULES: &[Rule] = &[
    Rule::new("select-known-condition", select_known_condition, &[Root::Select]),
    Rule::new("select-same-arms", select_same_arms, &[Root::Select]),
    Rule::new("select-of-booleans", select_of_booleans, &[Root::Select]),
];

fn select_operands(node: &TileNode) -> Option<(egg::Id, egg::Id, egg::Id)> {
    (node.op == NodeOp::Select).then(|| (node.children[0], node.children[1], node.children[2]))
}

/// `select(true, a, b) → a`, `select(false, a, b) → b`.
fn select_known_condition(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let (cond, a, b) = select_operands(node)?;
    match constant(g, cond)? {
        Const::Bool(true) => Some(Rhs::Class(a)),
        Const::Bool(false) => Some(Rhs::Class(b)),
        _ => None,
    }
}

/// `select(c, a, a) → a`.
fn select_same_arms(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let (_, a, b) = select_operands(node)?;
    same_class(g, a, b).then_some(Rhs::Class(a))
}

/// `select(c, true, false) → c` and `select(c, false, true) → not c`, when `c` has the
/// result's type (a scalar condition over tensors is left alone).
fn select_of_booleans(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let (cond, a, b) = select_operands(node)?;
    if data(g, cond).ty != node.ty || constant(g, cond).is_some() {
        return None;
    }
    match (constant(g, a)?, constant(g, b)?) {
        (Const::Bool(true), Const::Bool(false)) => Some(Rhs::Class(cond)),
        (Const::Bool(false), Const::Bool(true)) => {
            Some(Rhs::Node(NodeOp::Unary(UnaryOp::Not), node.ty.clone(), vec![Rhs::Class(cond)]))
        }
        _ => None,
    }
}
