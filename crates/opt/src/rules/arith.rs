//! Arithmetic identities on integers and floats (constant folding itself is in the
//! analysis, see `crate::fold`).

use super::{constant, data, is_float_constant, same_class, Rhs, Root, Rule};
use crate::analysis::Graph;
use crate::fold;
use crate::lang::{Const, NodeOp, TileNode};
use tilec_ir::{BinaryOp, ScalarType, UnaryOp};

use BinaryOp::{Add, And, Div, Max, Min, Mul, Or, Rem, Shl, Shr, Sub, Xor};
use Root::Binary;

pub const RULES: &[Rule] = &[
    Rule::new(
        "int-neutral-operand",
        int_neutral_operand,
        &[
            Binary(Add),
            Binary(Or),
            Binary(Xor),
            Binary(Sub),
            Binary(Shl),
            Binary(Shr),
            Binary(Mul),
            Binary(Div),
            Binary(And),
        ],
    ),
    Rule::new("int-absorbing-operand", int_absorbing_operand, &[Binary(Mul), Binary(And), Binary(Rem), Binary(Or)]),
    Rule::new(
        "int-same-operands",
        int_same_operands,
        &[Binary(Sub), Binary(Xor), Binary(And), Binary(Or), Binary(Max), Binary(Min)],
    ),
    Rule::new("int-constant-chain", int_constant_chain, &[Binary(Add), Binary(Sub)]),
    Rule::new("float-neutral-operand", float_neutral_operand, &[Binary(Mul), Binary(Div), Binary(Add), Binary(Sub)]),
    Rule::new("unary-involution", unary_involution, &[Root::Unary]),
];

/// The binary op, operands and scalar type of an integer (non-`i1`) node (a binary op's
/// operands have its result type).
fn int_binary(node: &TileNode) -> Option<(BinaryOp, egg::Id, egg::Id, ScalarType)> {
    let NodeOp::Binary(op) = node.op else { return None };
    let s = node.ty.scalar_type()?;
    (s.is_int() && !s.is_bool()).then_some((op, node.children[0], node.children[1], s))
}

/// An integer operand's constant, if it has one: whether it is the value `v`, or all ones
/// (`-1` in storage form), at the operation's scalar type `s`.
#[derive(Clone, Copy)]
struct IntOperand(Option<Const>, ScalarType);

impl IntOperand {
    fn of(g: &Graph, id: egg::Id, s: ScalarType) -> IntOperand {
        IntOperand(constant(g, id), s)
    }

    fn is(self, v: i128) -> bool {
        self.0.and_then(|c| fold::const_int_value(c, self.1)) == Some(v)
    }

    fn is_all_ones(self) -> bool {
        self.0 == Some(Const::Int(-1))
    }
}

/// `x+0, 0+x, x-0, x*1, 1*x, x/1, x|0, 0|x, x^0, 0^x, x&-1, -1&x, x<<0, x>>0 → x`.
fn int_neutral_operand(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let (op, lhs, rhs, s) = int_binary(node)?;
    let (l, r) = (IntOperand::of(g, lhs, s), IntOperand::of(g, rhs, s));
    let keep_lhs = match op {
        BinaryOp::Add | BinaryOp::Or | BinaryOp::Xor | BinaryOp::Sub | BinaryOp::Shl | BinaryOp::Shr => r.is(0),
        BinaryOp::Mul | BinaryOp::Div => r.is(1),
        BinaryOp::And => r.is_all_ones(),
        _ => false,
    };
    let keep_rhs = match op {
        BinaryOp::Add | BinaryOp::Or | BinaryOp::Xor => l.is(0),
        BinaryOp::Mul => l.is(1),
        BinaryOp::And => l.is_all_ones(),
        _ => false,
    };
    if keep_lhs {
        Some(Rhs::Class(lhs))
    } else if keep_rhs {
        Some(Rhs::Class(rhs))
    } else {
        None
    }
}

/// `x*0, 0*x, x&0, 0&x, x%1 → 0`; `x|-1, -1|x → -1`.
fn int_absorbing_operand(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let (op, lhs, rhs, s) = int_binary(node)?;
    let (l, r) = (IntOperand::of(g, lhs, s), IntOperand::of(g, rhs, s));
    if l.0.is_some() && r.0.is_some() {
        return None; // folding handles it
    }
    let zero = match op {
        BinaryOp::Mul | BinaryOp::And => l.is(0) || r.is(0),
        BinaryOp::Rem => r.is(1),
        _ => false,
    };
    if zero {
        return Some(Rhs::constant(fold::int_const(0, s), node.ty.clone()));
    }
    if op == BinaryOp::Or && (l.is_all_ones() || r.is_all_ones()) {
        let ones = if l.is_all_ones() { lhs } else { rhs };
        return Some(Rhs::Class(ones));
    }
    None
}

/// `x-x, x^x → 0`; `x&x, x|x, max(x,x), min(x,x) → x` (integers).
fn int_same_operands(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let (op, lhs, rhs, s) = int_binary(node)?;
    if !same_class(g, lhs, rhs) || constant(g, lhs).is_some() {
        return None;
    }
    match op {
        BinaryOp::Sub | BinaryOp::Xor => Some(Rhs::constant(fold::int_const(0, s), node.ty.clone())),
        BinaryOp::And | BinaryOp::Or | BinaryOp::Max | BinaryOp::Min => Some(Rhs::Class(lhs)),
        _ => None,
    }
}

/// `(x ± c1) ± c2 → x + c` with `c` folded in the type's wrapping arithmetic, which is
/// exact: integer addition modulo 2^width is associative.
fn int_constant_chain(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let (outer, inner_class, c2, s) = int_binary(node)?;
    if !matches!(outer, BinaryOp::Add | BinaryOp::Sub) {
        return None;
    }
    let c2 = constant(g, c2)?;
    if constant(g, inner_class).is_some() {
        return None;
    }
    for inner in g[inner_class].nodes.iter() {
        let NodeOp::Binary(inner_op @ (BinaryOp::Add | BinaryOp::Sub)) = inner.op else { continue };
        let (x, c1) = (inner.children[0], inner.children[1]);
        let Some(c1) = constant(g, c1) else { continue };
        if constant(g, x).is_some() {
            continue;
        }
        // x + (±c1 ± c2)
        let c1_signed = if inner_op == BinaryOp::Sub { fold::unary(UnaryOp::Neg, c1, s)? } else { c1 };
        let sum = fold::binary(outer, c1_signed, c2, s)?;
        let c_ty = data(g, node.children[1]).ty.clone();
        return Some(Rhs::Node(
            NodeOp::Binary(BinaryOp::Add),
            node.ty.clone(),
            vec![Rhs::Class(x), Rhs::constant(sum, c_ty)],
        ));
    }
    None
}

/// `x*1.0, 1.0*x, x/1.0, x+(-0.0), (-0.0)+x, x-0.0 → x` on floats. `x+0.0` is not `x`
/// (it turns `-0.0` into `+0.0`), so it is deliberately absent.
fn float_neutral_operand(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let NodeOp::Binary(op) = node.op else { return None };
    if !node.ty.scalar_type()?.is_float() {
        return None;
    }
    let (lhs, rhs) = (node.children[0], node.children[1]);
    let is = |id, v| is_float_constant(g, id, v);
    match op {
        BinaryOp::Mul if is(rhs, 1.0) => Some(Rhs::Class(lhs)),
        BinaryOp::Mul if is(lhs, 1.0) => Some(Rhs::Class(rhs)),
        BinaryOp::Div if is(rhs, 1.0) => Some(Rhs::Class(lhs)),
        BinaryOp::Add if is(rhs, -0.0) => Some(Rhs::Class(lhs)),
        BinaryOp::Add if is(lhs, -0.0) => Some(Rhs::Class(rhs)),
        BinaryOp::Sub if is(rhs, 0.0) => Some(Rhs::Class(lhs)),
        _ => None,
    }
}

/// `-(-x) → x`, `not(not x) → x` (exact for integers, floats and booleans).
fn unary_involution(g: &Graph, node: &TileNode) -> Option<Rhs> {
    let NodeOp::Unary(op @ (UnaryOp::Neg | UnaryOp::Not)) = node.op else { return None };
    let inner = super::operand_of(g, node.children[0], &NodeOp::Unary(op))?;
    Some(Rhs::Class(inner))
}
