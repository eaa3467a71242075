//! `tl.math` and the other elementwise builtins of `triton.language`: `tl.exp`... ,
//! `tl.where`, `tl.maximum`, `tl.fma`, `tl.umulhi`, `tl.fdiv`. `libdevice` is in
//! [`super::libdevice`].

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

impl Lowerer<'_> {
    /// A float operand of a math function: fp32 or fp64 (fp32 only for `sqrt_rn`), as
    /// Triton's `_check_dtype` requires of tensors.
    fn float_operand(&mut self, v: &Val, span: Span, fname: &str) -> Result<Value> {
        let x = self.tensor_arg(v, span)?;
        let fp32_only = fname == "sqrt_rn";
        match self.ty(x).scalar_type() {
            Some(ScalarType::F32) => Ok(x),
            Some(ScalarType::F64) if !fp32_only => Ok(x),
            Some(s) => {
                let expected = if fp32_only { "fp32" } else { "fp32 or fp64" };
                Err(err(errors::TYPE_ERROR, span, format!("`{fname}` expects {expected}, got {}", s.name())).with_note(
                    if s.is_float() { "cast with `.to(tl.float32)` first" } else { "cast to a float type first" },
                ))
            }
            None => Err(err(errors::TYPE_ERROR, span, format!("`{fname}` is not defined on pointers"))),
        }
    }

    /// Triton's `_check_dtype` on the tensor arguments (numbers are not checked).
    fn check_dtypes(&self, b: &Bound, fname: &str, allowed: &[ScalarType]) -> Result<()> {
        for i in 0..b.vals.len() {
            if let Some(Val::T(x)) = b.get(i) {
                let s = self.ty(*x).scalar_type();
                if !s.is_some_and(|s| allowed.contains(&s)) {
                    let names: Vec<&str> = allowed.iter().map(|t| t.name()).collect();
                    let got = s.map_or("a pointer".to_string(), |s| s.name().to_string());
                    return Err(err(
                        errors::TYPE_ERROR,
                        b.span(i),
                        format!("`{fname}` expects {}, got {got}", names.join(", ")),
                    ));
                }
            }
        }
        Ok(())
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
            Some(s) if s.is_fp8() => Err(err(
                errors::TYPE_ERROR,
                span,
                format!("{} has no arithmetic; convert it with `.to(tl.float32)` (or fp16, bf16) first", s.name()),
            )),
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
            "div_rn" => {
                let b = args.bind(name, &["x", "y"], 2, span)?;
                self.check_dtypes(&b, name, &[ScalarType::F32])?;
                self.float_binary(BinaryOp::Div, &b.val(0), &b.val(1), span, name)?
            }
            "fdiv" => {
                // `approx` may give any result within 2 ULP: the exact quotient is one.
                let b = args.bind(name, &["x", "y", "ieee_rounding", "approx"], 2, span)?;
                let ieee = self.const_bool(&b.val(2), b.span(2), "`ieee_rounding`")?;
                let approx = self.const_bool(&b.val(3), b.span(3), "`approx`")?;
                if ieee && approx {
                    return Err(err(errors::VALUE, span, "`approx` and `ieee_rounding` cannot both be True"));
                }
                let v = self.float_binary(BinaryOp::Div, &b.val(0), &b.val(1), span, name)?;
                if approx && self.ty(v).scalar_type() != Some(ScalarType::F32) {
                    return Err(err(
                        errors::TYPE_ERROR,
                        span,
                        "approximate division (`approx=True`) requires fp32 operands",
                    ));
                }
                v
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
}
