//! Elementwise math: `tl.exp`... , `tl.where`, `tl.maximum`, `tl.fma`, `tl.umulhi` and the
//! `libdevice` functions, mapped onto the IR's math ops.

use crate::errors::{self, err, err_label, Result};
use crate::lower::{Args, Bound, Lowerer};
use crate::value::{PropagateNan, Val};
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
            Some(s) => Err(err(errors::TYPE_ERROR, span, format!("`{fname}` expects fp32 or fp64, got {}", s.name()))
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
            return Err(err(
                errors::TYPE_ERROR,
                span,
                format!("`{fname}` needs floating-point operands, got {}", ret.name()),
            ));
        }
        Ok(v)
    }

    fn fma(&mut self, a: &Val, b: &Val, c: &Val, span: Span) -> Result<Value> {
        let (x, y, ret) = self.arith_operands(a, b, false, "fma", span)?;
        if !ret.is_float() {
            return Err(err(
                errors::TYPE_ERROR,
                span,
                format!("`fma` needs floating-point operands, got {}", ret.name()),
            ));
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

    /// `x != x`: true exactly where the float `x` is NaN.
    fn is_nan(&mut self, x: Value, span: Span) -> Value {
        let ty = self.ty(x).with_elem(tilec_ir::Elem::Scalar(ScalarType::I1));
        self.emit(OpKind::Cmp { pred: CmpPred::Ne, lhs: x, rhs: x }, ty, span)
    }

    /// `where(x != x, x, v)`: NaN wherever the float `x` is NaN, `v` elsewhere (broadcast
    /// together). The IR's float max/min are `maxnum`/`minnum` (a NaN operand loses), so
    /// `PropagateNan.ALL` (`maximumf`/`minimumf`: a NaN operand wins) is composed from them
    /// with this, for each operand whose NaN must win; no stage after the front end knows it.
    fn nan_if_nan(&mut self, x: Value, v: Value, span: Span) -> Result<Value> {
        let nan = self.is_nan(x, span);
        self.select(&Val::T(nan), &Val::T(x), &Val::T(v), span)
    }

    /// The `propagate_nan` argument (position `i`) of `tl.maximum`, `tl.minimum` and
    /// `tl.clamp`: `tl.PropagateNan.NONE` when absent, an error unless a member of
    /// `tl.PropagateNan` (checked for every dtype, though only floats use it).
    fn propagate_nan_arg(&self, b: &Bound, i: usize) -> Result<PropagateNan> {
        match &b.vals[i] {
            None => Ok(PropagateNan::None),
            Some((Val::PropagateNan(p), _)) => Ok(*p),
            Some((other, at)) => {
                let (code, what) = match other {
                    Val::T(_) => (errors::NOT_CONSTEXPR, "a runtime value".to_string()),
                    other => (errors::VALUE, other.describe()),
                };
                Err(err_label(
                    code,
                    *at,
                    "`propagate_nan` must be `tl.PropagateNan.NONE` or `tl.PropagateNan.ALL`",
                    format!("this is {what}"),
                ))
            }
        }
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
                let propagate = self.propagate_nan_arg(&b, 2)?;
                let op = if name == "maximum" { BinaryOp::Max } else { BinaryOp::Min };
                let (x, y, ret) = self.arith_operands(&b.val(0), &b.val(1), false, name, span)?;
                let v = self.emit_binary(op, x, y, span);
                if propagate == PropagateNan::All && ret.is_float() {
                    let v = self.nan_if_nan(y, v, span)?;
                    self.nan_if_nan(x, v, span)?
                } else {
                    v
                }
            }
            "clamp" => {
                // Triton's `tt.clampf`: `minnum(maxnum(x, min), max)`, so a NaN `x` gives `min`.
                let b = args.bind(name, &["x", "min", "max", "propagate_nan"], 3, span)?;
                let propagate = self.propagate_nan_arg(&b, 3)?;
                let (x, lo, ret) = self.arith_operands(&b.val(0), &b.val(1), false, name, span)?;
                let raised = self.emit_binary(BinaryOp::Max, x, lo, span);
                let (v, clamped) = self.arith(BinaryOp::Min, &Val::T(raised), &b.val(2), false, name, span)?;
                if !clamped.is_float() {
                    return Err(err(
                        errors::TYPE_ERROR,
                        span,
                        format!("`clamp` supports floating-point operands only, got {}", clamped.name()),
                    ));
                }
                if propagate == PropagateNan::All && ret.is_float() {
                    self.nan_if_nan(x, v, span)?
                } else {
                    v
                }
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
                // Triton checks the dtype of each tensor operand (`_check_dtype`), then
                // multiplies as unsigned whatever the signedness: a signed result holds the
                // bits of the unsigned high half.
                let b = args.bind(name, &["x", "y"], 2, span)?;
                for i in 0..2 {
                    if let Val::T(v) = b.val(i) {
                        let t = self.ty(v).scalar_type();
                        if !matches!(t, Some(ScalarType::I32 | ScalarType::I64 | ScalarType::U32 | ScalarType::U64)) {
                            return Err(err(
                                errors::TYPE_ERROR,
                                b.span(i),
                                format!(
                                    "`umulhi` expects int32, int64, uint32 or uint64 operands, got {}",
                                    crate::ops::type_name(self.ty(v))
                                ),
                            ));
                        }
                    }
                }
                let (x, y, ret) = self.arith_operands(&b.val(0), &b.val(1), false, name, span)?;
                if !ret.is_int() {
                    return Err(err(
                        errors::TYPE_ERROR,
                        span,
                        format!("`umulhi` needs integer operands, got {}", ret.name()),
                    ));
                }
                match crate::promote::other_signedness(ret) {
                    Some(u) if ret.is_signed_int() => {
                        let (x, y) = (self.cast(x, u, span)?, self.cast(y, u, span)?);
                        let hi = self.emit_binary(BinaryOp::MulHi, x, y, span);
                        self.cast(hi, ret, span)?
                    }
                    _ => self.emit_binary(BinaryOp::MulHi, x, y, span),
                }
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
                self.is_nan(x, span)
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
