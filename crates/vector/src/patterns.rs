//! Patterns of element computations that back ends compute in fewer instructions than the
//! statements that spell them.

use crate::vir::*;

/// For `r = x < 0 ? -x - 1 : x` (or `~x` in the taken arm) of a signed integer `x`, that
/// `x`: `r` is `x ^ (x >> (bits - 1))` (Triton's `uint_to_uniform_float` folds its random
/// word so). `def` gives a variable's single assignment, `int` an integer constant's value.
pub fn sign_fold<'a>(
    f: &Function,
    r: Var,
    def: impl Fn(Var) -> Option<&'a Expr>,
    int: impl Fn(Var) -> Option<i64>,
) -> Option<Var> {
    let Expr::Select { cond, on_true, on_false } = def(r)? else { return None };
    let Expr::Cmp(CmpPred::Lt, x, zero) = def(*cond)? else { return None };
    let not_x = match def(*on_true)? {
        Expr::Unary(UnaryOp::Not, a) => a == x,
        Expr::Binary(BinaryOp::Sub, n, one) => {
            int(*one) == Some(1) && matches!(def(*n), Some(Expr::Unary(UnaryOp::Neg, a)) if a == x)
        }
        _ => false,
    };
    let signed = matches!(f.ty(*x), Elem::Scalar(s) if s.is_signed_int());
    (x == on_false && int(*zero) == Some(0) && not_x && signed).then_some(*x)
}
