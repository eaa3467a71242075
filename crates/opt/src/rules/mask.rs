//! Boolean and mask folding. Comparisons decided by range facts (`make_range` bounds against
//! a constant, program ids are non-negative, ...) fold to constants in the analysis; these
//! rules handle the boolean algebra around them. Loads and stores whose mask folded to
//! all-true lose the mask during elaboration.

use super::{constant, data, same_class, Rhs, Root, Rule};
use crate::analysis::Graph;
use crate::lang::{Const, NodeOp, TileNode};
use tilec_ir::{BinaryOp, CmpPred};

pub const RULES: &[Rule] = &[
    Rule::new(
        "bool-known-operand",
        bool_known_operand,
        &[Root::Binary(BinaryOp::And), Root::Binary(BinaryOp::Or), Root::Binary(BinaryOp::Xor)],
    ),
    Rule::new("int-compare-self", int_compare_self, &[Root::Cmp]),
];

/// `x & true, x | false, x ^ false → x`; `x & false → false`; `x | true → true`.
fn bool_known_operand(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let NodeOp::Binary(op) = node.op else { return None };
    if !node.ty.scalar_type()?.is_bool() {
        return None;
    }
    let (lhs, rhs) = (node.children[0], node.children[1]);
    let (known, other) = match (constant(g, lhs), constant(g, rhs)) {
        (Some(_), Some(_)) | (None, None) => return None,
        (Some(Const::Bool(b)), None) => (b, rhs),
        (None, Some(Const::Bool(b))) => (b, lhs),
        _ => return None,
    };
    let keep_other = Some(Rhs::Class(other));
    let result = |b| Some(Rhs::constant(Const::Bool(b), node.ty.clone()));
    match (op, known) {
        (BinaryOp::And, true) | (BinaryOp::Or, false) | (BinaryOp::Xor, false) => keep_other,
        (BinaryOp::And, false) => result(false),
        (BinaryOp::Or, true) => result(true),
        _ => None,
    }
}

/// `x == x, x <= x, x >= x → true`; `x != x, x < x, x > x → false` for integers (not for
/// floats: NaN is not equal to itself).
fn int_compare_self(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let NodeOp::Cmp(pred) = node.op else { return None };
    let (lhs, rhs) = (node.children[0], node.children[1]);
    if !same_class(g, lhs, rhs) || !data(g, lhs).ty.scalar_type()?.is_int() || constant(g, lhs).is_some() {
        return None;
    }
    let value = matches!(pred, CmpPred::Eq | CmpPred::Le | CmpPred::Ge);
    Some(Rhs::constant(Const::Bool(value), node.ty.clone()))
}
