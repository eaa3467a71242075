//! Elementwise math: `tl.exp`... , `tl.where`, `tl.maximum`, `tl.fma`, `tl.umulhi` and the
//! `libdevice` functions, mapped onto the IR's math ops.

use crate::errors::{self, err, Result};
use crate::lower::{Args, Lowerer};
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_ir::{BinaryOp, CmpPred, MathFn, OpKind, ScalarType, UnaryOp, Value};

/// `tl.*` functions that Triton restricts to fp32/fp64 operands (`_check_dtype`).
fn tl_unary(name: &str) -> Option<MathFn> {
    Some(match name {
        "exp" => MathFn::Exp,
        "exp2" => MathFn::Exp2,
        "log" => MathFn::Log,
        "log2" => MathFn::Log2,
        "sqrt" | "sqrt_rn" => MathFn::Sqrt,
        "rsqrt" => MathFn::Rsqrt,
        "sin" => MathFn::Sin,
        "cos" => MathFn::Cos,
        "erf" => MathFn::Erf,
        "floor" => MathFn::Floor,
        "ceil" => MathFn::Ceil,
        _ => return None,
    })
}

fn libdevice_unary(name: &str) -> Option<MathFn> {
    Some(match name {
        "fast_expf" => MathFn::Exp,
        "fast_logf" => MathFn::Log,
        "log1p" => MathFn::Log1p,
        "expm1" => MathFn::Expm1,
        "tan" => MathFn::Tan,
        "tanh" => MathFn::Tanh,
        "sinh" => MathFn::Sinh,
        "cosh" => MathFn::Cosh,
        "asin" => MathFn::Asin,
        "acos" => MathFn::Acos,
        "atan" => MathFn::Atan,
        "cbrt" => MathFn::Cbrt,
        "trunc" => MathFn::Trunc,
        "round" => MathFn::Round,
        other => return tl_unary(other),
    })
}

impl Lowerer<'_> {
    /// A float operand of a math function; fp32 or fp64 only, as Triton checks.
    fn float_operand(&mut self, v: &Val, span: Span, fname: &str) -> Result<Value> {
        let x = self.tensor_arg(v, span)?;
        match self.ty(x).scalar_type() {
            Some(ScalarType::F32) | Some(ScalarType::F64) => Ok(x),
            Some(s) => Err(err(
                errors::TYPE_ERROR,
                span,
                format!("`{fname}` expects fp32 or fp64, got {}", s.name()),
            )
            .with_note("cast with `.to(tl.float32)` first")),
            None => Err(err(errors::TYPE_ERROR, span, format!("`{fname}` is not defined on pointers"))),
        }
    }

    fn math1(&mut self, func: MathFn, v: &Val, span: Span, fname: &str) -> Result<Value> {
        let x = self.float_operand(v, span, fname)?;
        let ty = self.ty(x).clone();
        Ok(self.emit(OpKind::Math { func, value: x }, ty, span))
    }

    fn abs(&mut self, v: &Val, span: Span) -> Result<Value> {
        let x = self.tensor_arg(v, span)?;
        let ty = self.ty(x).clone();
        match ty.scalar_type() {
            Some(s) if s.is_unsigned_int() || s.is_bool() => Ok(x),
            Some(_) => Ok(self.emit(OpKind::Unary { op: UnaryOp::Abs, value: x }, ty, span)),
            None => Err(err(errors::TYPE_ERROR, span, "`abs` is not defined on pointers")),
        }
    }

    fn float_binary(&mut self, op: BinaryOp, a: &Val, b: &Val, span: Span, fname: &str) -> Result<Value> {
        let (v, ret) = self.arith(op, a, b, false, fname, span)?;
        if !ret.is_float() {
            return Err(err(errors::TYPE_ERROR, span, format!("`{fname}` needs floating-point operands, got {}", ret.name())));
        }
        Ok(v)
    }

    fn fma(&mut self, a: &Val, b: &Val, c: &Val, span: Span) -> Result<Value> {
        let (x, y, ret) = self.arith_operands(a, b, false, "fma", span)?;
        if !ret.is_float() {
            return Err(err(errors::TYPE_ERROR, span, format!("`fma` needs floating-point operands, got {}", ret.name())));
        }
        let z = self.tensor_arg(c, span)?;
        let z = self.cast(z, ret, span)?;
        let shape = Self::broadcast_shape(&self.ty(x).shape, &self.ty(z).shape)
            .ok_or_else(|| err(errors::BROADCAST, span, "the operands of `fma` do not broadcast together"))?;
        let x = self.broadcast_to(x, &shape, errors::BROADCAST, span)?;
        let y = self.broadcast_to(y, &shape, errors::BROADCAST, span)?;
        let z = self.broadcast_to(z, &shape, errors::BROADCAST, span)?;
        let ty = self.ty(x).clone();
        Ok(self.emit(OpKind::Fma { a: x, b: y, c: z }, ty, span))
    }

    pub(super) fn tl_math(&mut self, name: &str, args: Args, span: Span) -> Result<Val> {
        if let Some(func) = tl_unary(name) {
            let b = args.bind(name, &["x"], 1, span)?;
            return Ok(Val::T(self.math1(func, &b.val(0), b.span(0), name)?));
        }
        let v = match name {
            "abs" => {
                let b = args.bind(name, &["x"], 1, span)?;
                self.abs(&b.val(0), b.span(0))?
            }
            "where" => {
                let b = args.bind(name, &["condition", "x", "y"], 3, span)?;
                self.select(&b.val(0), &b.val(1), &b.val(2), span)?
            }
            "maximum" | "minimum" => {
                let b = args.bind(name, &["x", "y", "propagate_nan"], 2, span)?;
                let op = if name == "maximum" { BinaryOp::Max } else { BinaryOp::Min };
                self.arith(op, &b.val(0), &b.val(1), false, name, span)?.0
            }
            "clamp" => {
                let b = args.bind(name, &["x", "min", "max", "propagate_nan"], 3, span)?;
                let (hi, _) = self.arith(BinaryOp::Min, &b.val(0), &b.val(2), false, name, span)?;
                self.arith(BinaryOp::Max, &Val::T(hi), &b.val(1), false, name, span)?.0
            }
            "fma" => {
                let b = args.bind(name, &["x", "y", "z"], 3, span)?;
                self.fma(&b.val(0), &b.val(1), &b.val(2), span)?
            }
            "div_rn" | "fdiv" => {
                let b = args.bind(name, &["x", "y", "ieee_rounding"], 2, span)?;
                self.float_binary(BinaryOp::Div, &b.val(0), &b.val(1), span, name)?
            }
            "umulhi" => {
                let b = args.bind(name, &["x", "y"], 2, span)?;
                let (v, ret) = self.arith(BinaryOp::MulHi, &b.val(0), &b.val(1), false, name, span)?;
                if !ret.is_int() {
                    return Err(err(errors::TYPE_ERROR, span, format!("`umulhi` needs integer operands, got {}", ret.name())));
                }
                v
            }
            _ => return Err(err(errors::INTERNAL, span, format!("unknown math builtin {name}"))),
        };
        Ok(Val::T(v))
    }

    pub(super) fn libdevice(&mut self, name: &str, args: Args, span: Span) -> Result<Val> {
        if let Some(func) = libdevice_unary(name) {
            let b = args.bind(name, &["arg0"], 1, span)?;
            return Ok(Val::T(self.math1(func, &b.val(0), b.span(0), name)?));
        }
        let v = match name {
            "abs" | "fabs" => {
                let b = args.bind(name, &["arg0"], 1, span)?;
                self.abs(&b.val(0), b.span(0))?
            }
            "log10" | "exp10" => {
                let b = args.bind(name, &["arg0"], 1, span)?;
                let x = self.float_operand(&b.val(0), b.span(0), name)?;
                let ty = self.ty(x).clone();
                if name == "log10" {
                    let l = self.emit(OpKind::Math { func: MathFn::Log, value: x }, ty.clone(), span);
                    let k = self.constant(ty.clone(), &Val::Float(std::f64::consts::LOG10_E), span)?;
                    self.emit(OpKind::Binary { op: BinaryOp::Mul, lhs: l, rhs: k }, ty, span)
                } else {
                    let k = self.constant(ty.clone(), &Val::Float(std::f64::consts::LOG2_10), span)?;
                    let m = self.emit(OpKind::Binary { op: BinaryOp::Mul, lhs: x, rhs: k }, ty.clone(), span);
                    self.emit(OpKind::Math { func: MathFn::Exp2, value: m }, ty, span)
                }
            }
            "isnan" => {
                let b = args.bind(name, &["arg0"], 1, span)?;
                let x = self.float_operand(&b.val(0), b.span(0), name)?;
                let ty = self.ty(x).with_elem(tilec_ir::Elem::Scalar(ScalarType::I1));
                self.emit(OpKind::Cmp { pred: CmpPred::Ne, lhs: x, rhs: x }, ty, span)
            }
            "pow" | "atan2" | "fmax" | "fmin" | "div_rn" | "fast_dividef" => {
                let b = args.bind(name, &["arg0", "arg1"], 2, span)?;
                let op = match name {
                    "pow" => BinaryOp::Pow,
                    "atan2" => BinaryOp::Atan2,
                    "fmax" => BinaryOp::Max,
                    "fmin" => BinaryOp::Min,
                    _ => BinaryOp::Div,
                };
                let v = self.float_binary(op, &b.val(0), &b.val(1), span, name)?;
                let s = self.ty(v).scalar_type();
                if !matches!(s, Some(ScalarType::F32) | Some(ScalarType::F64)) {
                    return Err(err(errors::TYPE_ERROR, span, format!("`{name}` expects fp32 or fp64 operands")));
                }
                v
            }
            "fma" => {
                let b = args.bind(name, &["arg0", "arg1", "arg2"], 3, span)?;
                self.fma(&b.val(0), &b.val(1), &b.val(2), span)?
            }
            _ => return Err(err(errors::INTERNAL, span, format!("unknown libdevice function {name}"))),
        };
        Ok(Val::T(v))
    }
}

