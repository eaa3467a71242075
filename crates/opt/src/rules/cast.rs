//! Cast chains, folded only where the composition is exact.

use super::{data, Rhs, Root, Rule};
use crate::analysis::Graph;
use crate::lang::{NodeOp, TileNode};
use tilec_ir::CastOp;

pub const RULES: &[Rule] = &[
    Rule::new("cast-to-same-type", cast_to_same_type, &[Root::Cast]),
    Rule::new("int-ext-chain", int_ext_chain, &[Root::Cast]),
    Rule::new("int-trunc-of-ext", int_trunc_of_ext, &[Root::Cast]),
    Rule::new("float-trunc-of-ext", float_trunc_of_ext, &[Root::Cast]),
    Rule::new("reinterpret-chain", reinterpret_chain, &[Root::Cast]),
];

/// The inner cast `(op, operand)` of class `id` with op `op`.
fn inner_cast(g: &Graph, id: egg::Id, op: CastOp) -> Option<egg::Id> {
    g[id].nodes.iter().find(|n| n.op == NodeOp::Cast(op)).map(|n| n.children[0])
}

/// A cast whose result type is its operand's type is the operand.
fn cast_to_same_type(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let NodeOp::Cast(_) = node.op else { return None };
    (data(g, node.children[0]).ty == node.ty).then_some(Rhs::Class(node.children[0]))
}

/// `ext(ext x) → ext x` when both extensions agree: the first zero-extends (unsigned or
/// `i1` source), or the intermediate type is signed (so the second sign-extends a value the
/// first already sign-extended).
fn int_ext_chain(g: &Graph, node: &TileNode) -> Option<Rhs> {
    if node.op != NodeOp::Cast(CastOp::IntExt) {
        return None;
    }
    let mid = node.children[0];
    let x = inner_cast(g, mid, CastOp::IntExt)?;
    let src = data(g, x).ty.scalar_type()?;
    let mid_ty = data(g, mid).ty.scalar_type()?;
    let agree = src.is_unsigned_int() || src.is_bool() || mid_ty.is_signed_int();
    agree.then(|| Rhs::Node(NodeOp::Cast(CastOp::IntExt), node.ty.clone(), vec![Rhs::Class(x)]))
}

/// `trunc(ext x)`: the low bits of an extension are `x` itself (up to signedness), a
/// truncation of `x`, or a shorter extension of `x`.
fn int_trunc_of_ext(g: &Graph, node: &TileNode) -> Option<Rhs> {
    if node.op != NodeOp::Cast(CastOp::IntTrunc) {
        return None;
    }
    let x = inner_cast(g, node.children[0], CastOp::IntExt)?;
    let x_ty = &data(g, x).ty;
    let (src, dst) = (x_ty.scalar_type()?, node.ty.scalar_type()?);
    if dst.is_bool() {
        return None;
    }
    let cast = |op| Some(Rhs::Node(NodeOp::Cast(op), node.ty.clone(), vec![Rhs::Class(x)]));
    match dst.bits().cmp(&src.bits()) {
        std::cmp::Ordering::Equal if *x_ty == node.ty => Some(Rhs::Class(x)),
        std::cmp::Ordering::Equal => cast(CastOp::IntRetype),
        std::cmp::Ordering::Less => cast(CastOp::IntTrunc),
        std::cmp::Ordering::Greater => cast(CastOp::IntExt),
    }
}

/// `fptrunc(fpext x) → x` when the result has `x`'s type (widening is exact, so rounding
/// back gives `x`). The other order is not exact and is left alone.
fn float_trunc_of_ext(g: &Graph, node: &TileNode) -> Option<Rhs> {
    if node.op != NodeOp::Cast(CastOp::FloatTrunc) {
        return None;
    }
    let x = inner_cast(g, node.children[0], CastOp::FloatExt)?;
    (data(g, x).ty == node.ty).then_some(Rhs::Class(x))
}

/// Two reinterpretations (`retype`, `bitcast`, `ptr cast`) of the same kind compose into
/// one (or vanish when the types round-trip).
fn reinterpret_chain(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let NodeOp::Cast(op @ (CastOp::IntRetype | CastOp::Bitcast | CastOp::PtrCast)) = node.op else { return None };
    let x = inner_cast(g, node.children[0], op)?;
    if data(g, x).ty == node.ty {
        Some(Rhs::Class(x))
    } else {
        Some(Rhs::Node(NodeOp::Cast(op), node.ty.clone(), vec![Rhs::Class(x)]))
    }
}
