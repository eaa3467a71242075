//! Pointer arithmetic canonicalization.

use super::{data, int_constant, Rhs, Root, Rule};
use crate::analysis::Graph;
use crate::lang::{NodeOp, TileNode};
use tilec_ir::BinaryOp;

pub const RULES: &[Rule] =
    &[Rule::new("addptr-zero", addptr_zero, &[Root::AddPtr]), Rule::new("addptr-chain", addptr_chain, &[Root::AddPtr])];

/// `addptr(p, 0) → p`.
fn addptr_zero(g: &Graph, node: &TileNode) -> Option<Rhs> {
    if node.op != NodeOp::AddPtr {
        return None;
    }
    (int_constant(g, node.children[1]) == Some(0)).then_some(Rhs::Class(node.children[0]))
}

/// `addptr(addptr(p, a), b) → addptr(p, a + b)` when `a` and `b` have one type. As in
/// Triton's combine pass, offsets are assumed not to overflow their type when summed.
/// Extraction keeps the nested form when the inner `addptr` is cheaper to keep (for
/// instance when it is loop-invariant and the outer offset is not).
fn addptr_chain(g: &Graph, node: &TileNode) -> Option<Rhs> {
    if node.op != NodeOp::AddPtr {
        return None;
    }
    let b = node.children[1];
    let offset_ty = &data(g, b).ty;
    g[node.children[0]].nodes.iter().find_map(|inner| {
        if inner.op != NodeOp::AddPtr || &data(g, inner.children[1]).ty != offset_ty {
            return None;
        }
        let (p, a) = (inner.children[0], inner.children[1]);
        let sum = Rhs::Node(NodeOp::Binary(BinaryOp::Add), offset_ty.clone(), vec![Rhs::Class(a), Rhs::Class(b)]);
        Some(Rhs::Node(NodeOp::AddPtr, node.ty.clone(), vec![Rhs::Class(p), sum]))
    })
}
