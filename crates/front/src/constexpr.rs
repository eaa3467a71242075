//! Compile-time evaluation with Python semantics (constexpr arithmetic, comparisons, truth).

use crate::value::Val;
use tilec_syntax::ast::{BinOp, CmpOp};

/// `lhs op rhs` on compile-time numbers; `None` when the operands are not both numbers.
/// `Err` carries a message for Python runtime errors (division by zero, overflow).
pub fn binary(op: BinOp, lhs: &Val, rhs: &Val) -> Option<Result<Val, String>> {
    match (lhs, rhs) {
        (Val::Str(a), Val::Str(b)) if op == BinOp::Add => return Some(Ok(Val::Str(format!("{a}{b}")))),
        // Lists and tuples (both are tuples here): concatenation and repetition.
        (Val::Tuple(a), Val::Tuple(b)) if op == BinOp::Add => {
            return Some(Ok(Val::Tuple(a.iter().chain(b).cloned().collect())));
        }
        (Val::Tuple(items), Val::Int(n)) | (Val::Int(n), Val::Tuple(items)) if op == BinOp::Mul => {
            let count = (*n).clamp(0, 1 << 16) as usize;
            if items.len().saturating_mul(count) > 1 << 16 {
                return Some(Err("repeated sequence too long".into()));
            }
            return Some(Ok(Val::Tuple(items.iter().cloned().cycle().take(items.len() * count).collect())));
        }
        (Val::Bool(a), Val::Bool(b)) if matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor) => {
            let r = match op {
                BinOp::BitAnd => a & b,
                BinOp::BitOr => a | b,
                _ => a ^ b,
            };
            return Some(Ok(Val::Bool(r)));
        }
        _ => {}
    }
    let a = as_num(lhs)?;
    let b = as_num(rhs)?;
    Some(match (a, b) {
        (Num::I(x), Num::I(y)) => int_binary(op, x, y),
        _ => float_binary(op, a.to_f64(), b.to_f64()),
    })
}

#[derive(Clone, Copy)]
enum Num {
    I(i128),
    F(f64),
}

impl Num {
    fn to_f64(self) -> f64 {
        match self {
            Num::I(i) => i as f64,
            Num::F(f) => f,
        }
    }
}

fn as_num(v: &Val) -> Option<Num> {
    match v {
        Val::Int(i) => Some(Num::I(*i)),
        Val::Bool(b) => Some(Num::I(*b as i128)),
        Val::Float(f) => Some(Num::F(*f)),
        _ => None,
    }
}

const OVERFLOW: &str = "integer overflow in constexpr arithmetic";

fn int_binary(op: BinOp, x: i128, y: i128) -> Result<Val, String> {
    let int = |r: Option<i128>| r.map(Val::Int).ok_or_else(|| OVERFLOW.to_string());
    match op {
        BinOp::Add => int(x.checked_add(y)),
        BinOp::Sub => int(x.checked_sub(y)),
        BinOp::Mul => int(x.checked_mul(y)),
        BinOp::Div => {
            if y == 0 {
                Err("division by zero".into())
            } else {
                Ok(Val::Float(x as f64 / y as f64))
            }
        }
        BinOp::FloorDiv | BinOp::Mod => {
            if y == 0 {
                return Err("integer division or modulo by zero".into());
            }
            // Python floors toward negative infinity; the remainder takes the divisor's sign.
            let (mut q, mut r) = (x / y, x % y);
            if r != 0 && (r < 0) != (y < 0) {
                q -= 1;
                r += y;
            }
            Ok(Val::Int(if op == BinOp::FloorDiv { q } else { r }))
        }
        BinOp::Pow => {
            if y < 0 {
                Ok(Val::Float((x as f64).powf(y as f64)))
            } else {
                int(u32::try_from(y).ok().and_then(|e| x.checked_pow(e)))
            }
        }
        BinOp::LShift => {
            if !(0..=127).contains(&y) {
                return Err("shift count out of range".into());
            }
            int(x.checked_mul(1i128 << y))
        }
        BinOp::RShift => {
            if y < 0 {
                return Err("negative shift count".into());
            }
            Ok(Val::Int(x >> y.min(127)))
        }
        BinOp::BitAnd => Ok(Val::Int(x & y)),
        BinOp::BitOr => Ok(Val::Int(x | y)),
        BinOp::BitXor => Ok(Val::Int(x ^ y)),
        BinOp::MatMul => Err("`@` is not defined on numbers".into()),
    }
}

fn float_binary(op: BinOp, x: f64, y: f64) -> Result<Val, String> {
    let r = match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => {
            if y == 0.0 {
                return Err("float division by zero".into());
            }
            x / y
        }
        BinOp::FloorDiv | BinOp::Mod => {
            if y == 0.0 {
                return Err(format!("float {} by zero", if op == BinOp::Mod { "modulo" } else { "floor division" }));
            }
            let (q, r) = python_float_divmod(x, y);
            if op == BinOp::FloorDiv {
                q
            } else {
                r
            }
        }
        BinOp::Pow => x.powf(y),
        _ => return Err(format!("unsupported operand types for `{}`: float", op.symbol())),
    };
    Ok(Val::Float(r))
}

/// Python's `divmod` on floats (CPython's `float_divmod`): the remainder is C's `fmod`
/// moved to the divisor's sign (a zero remainder takes the divisor's sign too), and the
/// quotient is `(x - remainder) / y` rounded to the nearest integer, so that
/// `7.0 // 0.1 == 69.0` as in Python rather than `floor(7.0 / 0.1) == 70.0`.
fn python_float_divmod(x: f64, y: f64) -> (f64, f64) {
    let mut r = x % y;
    let mut q = (x - r) / y;
    if r != 0.0 {
        if (y < 0.0) != (r < 0.0) {
            r += y;
            q -= 1.0;
        }
    } else {
        r = 0.0f64.copysign(y);
    }
    let q = if q != 0.0 {
        let f = q.floor();
        if q - f > 0.5 {
            f + 1.0
        } else {
            f
        }
    } else {
        0.0f64.copysign(x / y)
    };
    (q, r)
}

/// `lhs op rhs` for comparisons of compile-time values; `None` if not comparable here.
pub fn compare(op: CmpOp, lhs: &Val, rhs: &Val) -> Option<Result<bool, String>> {
    use std::cmp::Ordering;
    let ord: Option<Ordering> = match (lhs, rhs) {
        (Val::Str(a), Val::Str(b)) => Some(a.cmp(b)),
        _ => match (as_num(lhs), as_num(rhs)) {
            (Some(Num::I(a)), Some(Num::I(b))) => Some(a.cmp(&b)),
            (Some(a), Some(b)) => a.to_f64().partial_cmp(&b.to_f64()),
            _ => None,
        },
    };
    let equal = |a: &Val, b: &Val| -> Option<bool> {
        match (a, b) {
            (Val::T(_), _) | (_, Val::T(_)) => None,
            _ => Some(match ord {
                Some(o) => o == Ordering::Equal,
                None => a == b,
            }),
        }
    };
    Some(Ok(match op {
        CmpOp::Eq => equal(lhs, rhs)?,
        CmpOp::NotEq => !equal(lhs, rhs)?,
        CmpOp::Is => match (lhs, rhs) {
            (Val::None, other) | (other, Val::None) => matches!(other, Val::None),
            _ => equal(lhs, rhs)?,
        },
        CmpOp::IsNot => !compare(CmpOp::Is, lhs, rhs)?.ok()?,
        CmpOp::In | CmpOp::NotIn => {
            let Val::Tuple(items) = rhs else {
                return Some(Err("`in` needs a tuple or list on the right".into()));
            };
            let mut found = false;
            for item in items {
                if compare(CmpOp::Eq, lhs, item)?.ok()? {
                    found = true;
                }
            }
            found == (op == CmpOp::In)
        }
        CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE => {
            let Some(o) = ord else {
                if as_num(lhs).is_some() && as_num(rhs).is_some() {
                    return Some(Ok(false)); // NaN
                }
                return if matches!(lhs, Val::T(_)) || matches!(rhs, Val::T(_)) {
                    None
                } else {
                    Some(Err(format!(
                        "`{}` is not defined between {} and {}",
                        op.symbol(),
                        lhs.describe(),
                        rhs.describe()
                    )))
                };
            };
            match op {
                CmpOp::Lt => o == Ordering::Less,
                CmpOp::LtE => o != Ordering::Greater,
                CmpOp::Gt => o == Ordering::Greater,
                _ => o != Ordering::Less,
            }
        }
    }))
}

/// Python truthiness of a compile-time value; `None` for runtime values and callables.
pub fn truth(v: &Val) -> Option<bool> {
    Some(match v {
        Val::Int(i) => *i != 0,
        Val::Float(f) => *f != 0.0,
        Val::Bool(b) => *b,
        Val::Str(s) => !s.is_empty(),
        Val::None => false,
        Val::Tuple(t) => !t.is_empty(),
        Val::DType(_) | Val::PtrDType(_) => true,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(op: BinOp, a: Val, b: Val, expected: Val) {
        assert_eq!(binary(op, &a, &b).unwrap().unwrap(), expected, "{a:?} {} {b:?}", op.symbol());
    }

    #[test]
    fn python_arithmetic() {
        check(BinOp::FloorDiv, Val::Int(-7), Val::Int(2), Val::Int(-4));
        check(BinOp::Mod, Val::Int(-7), Val::Int(2), Val::Int(1));
        check(BinOp::Mod, Val::Int(7), Val::Int(-2), Val::Int(-1));
        check(BinOp::Div, Val::Int(7), Val::Int(2), Val::Float(3.5));
        check(BinOp::Add, Val::Bool(true), Val::Int(1), Val::Int(2));
        check(BinOp::Pow, Val::Int(2), Val::Int(10), Val::Int(1024));
        check(BinOp::Mod, Val::Float(-1.5), Val::Float(1.0), Val::Float(0.5));
        check(BinOp::Add, Val::Str("a".into()), Val::Str("b".into()), Val::Str("ab".into()));
        let t = |v: &[i128]| Val::Tuple(v.iter().map(|&i| Val::Int(i)).collect());
        check(BinOp::Mul, t(&[2]), Val::Int(3), t(&[2, 2, 2]));
        check(BinOp::Mul, Val::Int(2), t(&[1, 4]), t(&[1, 4, 1, 4]));
        check(BinOp::Mul, t(&[2]), Val::Int(-1), t(&[]));
        check(BinOp::Add, t(&[1]), t(&[2, 3]), t(&[1, 2, 3]));
        // A negative divisor floors toward negative infinity too (Python: 7 // -2 == -4).
        check(BinOp::FloorDiv, Val::Int(7), Val::Int(-2), Val::Int(-4));
        check(BinOp::FloorDiv, Val::Int(-9), Val::Int(-4), Val::Int(2));
        check(BinOp::FloorDiv, Val::Int(-8), Val::Int(-4), Val::Int(2));
        check(BinOp::FloorDiv, Val::Int(9), Val::Int(4), Val::Int(2));
        check(BinOp::Mod, Val::Int(-9), Val::Int(-4), Val::Int(-1));
        check(BinOp::Mod, Val::Int(9), Val::Int(-4), Val::Int(-3));
        check(BinOp::FloorDiv, Val::Float(7.0), Val::Float(0.1), Val::Float(69.0));
        check(BinOp::FloorDiv, Val::Float(-7.5), Val::Float(2.0), Val::Float(-4.0));
        check(BinOp::Mod, Val::Float(7.5), Val::Float(-2.0), Val::Float(-0.5));
        // A zero remainder takes the divisor's sign.
        for (x, y) in [(4.0, -2.0), (-4.0, 2.0)] {
            let Some(Ok(Val::Float(z))) = binary(BinOp::Mod, &Val::Float(x), &Val::Float(y)) else { panic!() };
            assert!(z == 0.0 && z.is_sign_negative() == (y < 0.0), "{x} % {y} = {z}");
        }
        assert!(binary(BinOp::Div, &Val::Int(1), &Val::Int(0)).unwrap().is_err());
    }

    #[test]
    fn comparisons() {
        assert_eq!(compare(CmpOp::Eq, &Val::Str("relu".into()), &Val::Str("relu".into())), Some(Ok(true)));
        assert_eq!(compare(CmpOp::Lt, &Val::Int(1), &Val::Float(1.5)), Some(Ok(true)));
        assert_eq!(compare(CmpOp::Is, &Val::None, &Val::None), Some(Ok(true)));
        assert_eq!(compare(CmpOp::IsNot, &Val::Int(3), &Val::None), Some(Ok(true)));
        assert_eq!(compare(CmpOp::In, &Val::Int(2), &Val::Tuple(vec![Val::Int(1), Val::Int(2)])), Some(Ok(true)));
    }
}
