//! Splat and broadcast reordering (Triton's reorder-broadcast): elementwise ops move below
//! `splat`/`broadcast` so they run on the smaller operand; shape ops on splats and identity
//! shape ops disappear.

use super::{constant, data, operand_of, Rhs, Root, Rule};
use crate::analysis::Graph;
use crate::lang::{NodeOp, TileNode};
use egg::Id;

pub const RULES: &[Rule] = &[
    Rule::new("splat-elementwise", splat_elementwise, ELEMENTWISE),
    Rule::new("broadcast-elementwise", broadcast_elementwise, ELEMENTWISE),
    Rule::new("shape-op-of-splat", shape_op_of_splat, &[Root::Broadcast, Root::ExpandDims, Root::Reshape, Root::Trans]),
    Rule::new("shape-op-identity", shape_op_identity, SAME_SHAPE_OPS),
    Rule::new("shape-op-chain", shape_op_chain, SAME_SHAPE_OPS),
];

/// The operators of [`is_elementwise`].
const ELEMENTWISE: &[Root] =
    &[Root::AnyBinary, Root::Cmp, Root::AddPtr, Root::Unary, Root::Math, Root::Cast, Root::Select, Root::Fma];

/// The shape ops that compose with themselves.
const SAME_SHAPE_OPS: &[Root] = &[Root::Broadcast, Root::Reshape, Root::Trans];

fn is_elementwise(op: &NodeOp) -> bool {
    matches!(
        op,
        NodeOp::Binary(_)
            | NodeOp::Cmp(_)
            | NodeOp::AddPtr
            | NodeOp::Unary(_)
            | NodeOp::Math(_)
            | NodeOp::Cast(_)
            | NodeOp::Select
            | NodeOp::Fma
    )
}

/// The operand of class `id` as a uniform value of shape `shape`: the scalar of a splat
/// (re-splatted when `shape` is not scalar) or the constant at that shape.
fn uniform_at(g: &Graph, id: Id, shape: &[u32]) -> Option<Rhs> {
    let ty = &data(g, id).ty;
    if let Some(c) = constant(g, id) {
        return Some(Rhs::constant(c, ty.with_shape(shape.to_vec())));
    }
    let scalar = operand_of(g, id, &NodeOp::Splat)?;
    if shape.is_empty() {
        Some(Rhs::Class(scalar))
    } else {
        Some(Rhs::Node(NodeOp::Splat, ty.with_shape(shape.to_vec()).into(), vec![Rhs::Class(scalar)]))
    }
}

/// `op(splat a, splat b) → splat(op(a, b))` for every elementwise op (constants count as
/// splats; a scalar `select` condition stays as it is).
fn splat_elementwise(g: &Graph, node: &TileNode) -> Option<Rhs> {
    if !is_elementwise(&node.op) || !node.ty.is_tensor() {
        return None;
    }
    if node.children.iter().all(|&c| constant(g, c).is_some()) {
        return None; // folding handles it
    }
    let args = node
        .children
        .iter()
        .map(|&c| if data(g, c).ty.is_tensor() { uniform_at(g, c, &[]) } else { Some(Rhs::Class(c)) })
        .collect::<Option<Vec<_>>>()?;
    let scalar = Rhs::Node(node.op.clone(), node.ty.with_shape(Vec::new()).into(), args);
    Some(Rhs::Node(NodeOp::Splat, node.ty.clone(), vec![scalar]))
}

/// `op(broadcast a, broadcast b) → broadcast(op(a, b))` when `a` and `b` have one shape;
/// splat and constant operands are re-splatted at that shape.
fn broadcast_elementwise(g: &Graph, node: &TileNode) -> Option<Rhs> {
    if !is_elementwise(&node.op) || !node.ty.is_tensor() {
        return None;
    }
    let source = |c: Id| operand_of(g, c, &NodeOp::Broadcast);
    let first = node.children.iter().find_map(|&c| source(c))?;
    let shape = data(g, first).ty.shape.clone();
    if shape == node.ty.shape {
        return None;
    }
    let mut args = Vec::with_capacity(node.children.len());
    for &c in &node.children {
        let ty = &data(g, c).ty;
        if !ty.is_tensor() {
            args.push(Rhs::Class(c));
        } else if let Some(src) = source(c).filter(|&s| data(g, s).ty.shape == shape) {
            args.push(Rhs::Class(src));
        } else {
            args.push(uniform_at(g, c, &shape)?);
        }
    }
    let small = Rhs::Node(node.op.clone(), node.ty.with_shape(shape).into(), args);
    Some(Rhs::Node(NodeOp::Broadcast, node.ty.clone(), vec![small]))
}

fn is_shape_op(op: &NodeOp) -> bool {
    matches!(op, NodeOp::Broadcast | NodeOp::ExpandDims(_) | NodeOp::Reshape | NodeOp::Trans(_))
}

/// `broadcast/expand_dims/reshape/trans (splat x) → splat x`.
fn shape_op_of_splat(g: &Graph, node: &TileNode) -> Option<Rhs> {
    if !is_shape_op(&node.op) || constant(g, node.children[0]).is_some() {
        return None;
    }
    let scalar = operand_of(g, node.children[0], &NodeOp::Splat)?;
    Some(Rhs::Node(NodeOp::Splat, node.ty.clone(), vec![Rhs::Class(scalar)]))
}

/// `broadcast x`, `reshape x` of the same type, and `trans` with the identity order, are `x`.
fn shape_op_identity(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let x = *node.children.first()?;
    let identity = match &node.op {
        NodeOp::Broadcast | NodeOp::Reshape => data(g, x).ty == node.ty,
        NodeOp::Trans(order) => order.iter().enumerate().all(|(i, &d)| i as u32 == d),
        _ => false,
    };
    identity.then_some(Rhs::Class(x))
}

/// `broadcast(broadcast x) → broadcast x`, `reshape(reshape x) → reshape x`,
/// `trans(trans x) → trans x` with the composed order (or `x`).
fn shape_op_chain(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let x = *node.children.first()?;
    match &node.op {
        NodeOp::Broadcast | NodeOp::Reshape => {
            let inner = operand_of(g, x, &node.op)?;
            Some(Rhs::Node(node.op.clone(), node.ty.clone(), vec![Rhs::Class(inner)]))
        }
        NodeOp::Trans(outer) => {
            let (inner, inner_order) = g[x].nodes.iter().find_map(|n| match &n.op {
                NodeOp::Trans(order) => Some((n.children[0], order.clone())),
                _ => None,
            })?;
            let composed: Vec<u32> = outer.iter().map(|&d| inner_order[d as usize]).collect();
            if composed.iter().enumerate().all(|(i, &d)| i as u32 == d) {
                Some(Rhs::Class(inner))
            } else {
                Some(Rhs::Node(NodeOp::Trans(composed), node.ty.clone(), vec![Rhs::Class(inner)]))
            }
        }
        _ => None,
    }
}
