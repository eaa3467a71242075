//! Program ids, ranges, constant blocks and conversions.

use crate::errors::{self, err, err_label, Result};
use crate::lower::{Args, Bound, Lowerer};
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_ir::{Axis, BinaryOp, Elem, OpKind, ScalarType, Type, UnaryOp, Value};
use tilec_syntax::ast::CmpOp;

impl Lowerer<'_> {
    pub(super) fn creation(&mut self, name: &str, args: Args, span: Span) -> Result<Val> {
        match name {
            "program_id" | "num_programs" => {
                let b = args.bind(name, &["axis"], 0, span)?;
                let axis = match b.get(0) {
                    None => Axis::X,
                    Some(v) => match self.const_int(v, b.span(0), "`axis`")? {
                        0 => Axis::X,
                        1 => Axis::Y,
                        2 => Axis::Z,
                        a => return Err(err(errors::VALUE, b.span(0), format!("`axis` must be 0, 1 or 2, got {a}"))),
                    },
                };
                let kind = if name == "program_id" { OpKind::ProgramId(axis) } else { OpKind::NumPrograms(axis) };
                Ok(Val::T(self.emit(kind, Type::scalar(ScalarType::I32), span)))
            }
            "arange" => {
                let b = args.bind(name, &["start", "end"], 2, span)?;
                let start = self.const_int(&b.val(0), b.span(0), "the start of `tl.arange`")?;
                let end = self.const_int(&b.val(1), b.span(1), "the end of `tl.arange`")?;
                if start < i32::MIN as i128 || end > i32::MAX as i128 {
                    return Err(err(errors::ARANGE, span, "`tl.arange` bounds must fit in int32"));
                }
                let len = end - start;
                if len <= 0 {
                    return Err(err(
                        errors::ARANGE,
                        span,
                        format!("`tl.arange({start}, {end})` is empty; end must be greater than start"),
                    ));
                }
                if len & (len - 1) != 0 {
                    return Err(err_label(
                        errors::ARANGE,
                        span,
                        format!("the length of `tl.arange` must be a power of two, got {len}"),
                        format!("{end} - {start} = {len}"),
                    ));
                }
                let ty = Type::tensor(Elem::Scalar(ScalarType::I32), vec![len as u32]);
                Ok(Val::T(self.emit(OpKind::MakeRange { start: start as i32, end: end as i32 }, ty, span)))
            }
            "zeros" => {
                let b = args.bind(name, &["shape", "dtype"], 2, span)?;
                let shape = self.shape_arg(&b.val(0), b.span(0))?;
                let dtype = self.dtype_arg(&b.val(1), b.span(1))?;
                Ok(Val::T(self.constant(Type::tensor(dtype, shape), &Val::Int(0), span)?))
            }
            "zeros_like" => {
                let b = args.bind(name, &["input"], 1, span)?;
                let x = self.tensor_arg(&b.val(0), b.span(0))?;
                let ty = self.ty(x).clone();
                Ok(Val::T(self.constant(ty, &Val::Int(0), span)?))
            }
            "full" => {
                let b = args.bind(name, &["shape", "value", "dtype"], 3, span)?;
                let shape = self.shape_arg(&b.val(0), b.span(0))?;
                let Elem::Scalar(dtype) = self.dtype_arg(&b.val(2), b.span(2))? else {
                    return Err(err(errors::TYPE_ERROR, b.span(2), "`tl.full` needs a scalar dtype"));
                };
                let value = b.val(1);
                if value.is_number() {
                    return Ok(Val::T(self.constant(Type::tensor(Elem::Scalar(dtype), shape), &value, span)?));
                }
                let v = self.tensor_arg(&value, b.span(1))?;
                if self.ty(v).is_tensor() {
                    return Err(err(errors::TYPE_ERROR, b.span(1), "the value of `tl.full` must be a scalar"));
                }
                let v = self.cast(v, dtype, span)?;
                Ok(Val::T(self.broadcast_to(v, &shape, errors::BROADCAST, span)?))
            }
            "to_tensor" => {
                let b = args.bind(name, &["x"], 1, span)?;
                Ok(Val::T(self.tensor_arg(&b.val(0), b.span(0))?))
            }
            "constexpr" => {
                let b = args.bind(name, &["value"], 1, span)?;
                match b.val(0) {
                    Val::T(_) => {
                        Err(err(errors::NOT_CONSTEXPR, b.span(0), "`tl.constexpr(...)` needs a compile-time value"))
                    }
                    v => Ok(v),
                }
            }
            "cast" => {
                let b = args.bind(name, &["input", "dtype", "fp_downcast_rounding", "bitcast"], 2, span)?;
                self.convert(&b, span)
            }
            "item" => {
                let b = args.bind(name, &["input"], 1, span)?;
                let x = self.tensor_arg(&b.val(0), b.span(0))?;
                Ok(Val::T(self.unsplat(x, b.span(0))?))
            }
            "pointer_type" => {
                let b = args.bind(name, &["element_ty", "address_space", "const"], 1, span)?;
                match self.dtype_arg(&b.val(0), b.span(0))? {
                    Elem::Scalar(s) => Ok(Val::PtrDType(s)),
                    Elem::Ptr(_) => Err(err(errors::UNSUPPORTED, b.span(0), "pointers to pointers are not supported")),
                }
            }
            _ => Err(err(errors::INTERNAL, span, format!("unknown creation builtin {name}"))),
        }
    }

    /// `x.item()` (Triton's `_unsplat`): the one element of a one-element tensor as a scalar
    /// (a scalar is returned as it is). Computed as the maximum of the single element, in a
    /// type of at least 32 bits (widening and narrowing back are exact).
    pub fn unsplat(&mut self, x: Value, span: Span) -> Result<Value> {
        let ty = self.ty(x).clone();
        if !ty.is_tensor() {
            return Ok(x);
        }
        if ty.numel() != 1 {
            return Err(err_label(
                errors::SHAPE,
                span,
                "only a one-element tensor can become a scalar",
                format!("this has shape {:?}", ty.shape),
            ));
        }
        let flat = if ty.shape.len() > 1 { self.emit(OpKind::Reshape(x), ty.with_shape(vec![1]), span) } else { x };
        let (wide, back) = match ty.elem {
            Elem::Ptr(_) => (self.cast(flat, ScalarType::I64, span)?, ty.elem),
            Elem::Scalar(s) if s.bits() < 32 => {
                let w = if s.is_float() { ScalarType::F32 } else { ScalarType::I32 };
                (self.cast(flat, w, span)?, ty.elem)
            }
            Elem::Scalar(_) => (flat, ty.elem),
        };
        let wide_ty = self.ty(wide).clone();
        let one = self.emit(
            OpKind::Reduce { kind: tilec_ir::ReduceKind::Max, value: wide, axis: 0 },
            wide_ty.with_shape(vec![]),
            span,
        );
        self.cast_elem(one, back, span)
    }

    /// `x.to(dtype, fp_downcast_rounding=None, bitcast=False)`.
    pub(super) fn tensor_to(&mut self, args: Args, span: Span) -> Result<Val> {
        let b = args.bind("to", &["self", "dtype", "fp_downcast_rounding", "bitcast"], 2, span)?;
        self.convert(&b, span)
    }

    /// `input, dtype, fp_downcast_rounding, bitcast` of `tl.cast` / `x.to`.
    fn convert(&mut self, b: &Bound, span: Span) -> Result<Val> {
        let to = self.dtype_arg(&b.val(1), b.span(1))?;
        let v = self.tensor_arg(&b.val(0), b.span(0))?;
        let bitcast = self.const_bool(&b.val(3), b.span(3), "`bitcast`")?;
        if bitcast {
            return Ok(Val::T(self.bitcast(v, to, span)?));
        }
        let toward_zero = match b.get(2) {
            None => false,
            Some(Val::Str(m)) if m == "rtne" || m == "rtz" => {
                let narrowing = matches!(
                    (self.ty(v).scalar_type(), to.scalar()),
                    (Some(f), Some(t)) if f.is_float() && t.is_float() && t.bits() < f.bits()
                );
                if !narrowing {
                    return Err(err(
                        errors::VALUE,
                        b.span(2),
                        "`fp_downcast_rounding` applies only to conversions to a narrower float type",
                    ));
                }
                m == "rtz"
            }
            Some(other) => {
                return Err(err_label(
                    errors::VALUE,
                    b.span(2),
                    "`fp_downcast_rounding` must be \"rtne\" or \"rtz\"",
                    format!("this is {}", other.describe()),
                ))
            }
        };
        let r = self.cast_elem(v, to, span)?;
        Ok(Val::T(if toward_zero { self.toward_zero(v, r, span)? } else { r }))
    }

    /// Turns `rounded`, `x` narrowed to nearest even, into `x` narrowed toward zero: where
    /// widening it back gives a larger magnitude than `x` (rounding went away from zero, or
    /// overflowed to infinity), its bits are decremented, which steps its magnitude down by
    /// one unit in the last place (to the largest finite value from infinity). NaN and exact
    /// results are kept.
    fn toward_zero(&mut self, x: Value, rounded: Value, span: Span) -> Result<Value> {
        let (Some(wide), Some(narrow)) = (self.ty(x).scalar_type(), self.ty(rounded).scalar_type()) else {
            return Err(err(errors::INTERNAL, span, "rounding toward zero of a non-float"));
        };
        let back = self.cast(rounded, wide, span)?;
        let abs_ty = self.ty(x).clone();
        let abs_x = self.emit(OpKind::Unary { op: UnaryOp::Abs, value: x }, abs_ty.clone(), span);
        let abs_back = self.emit(OpKind::Unary { op: UnaryOp::Abs, value: back }, abs_ty, span);
        let away = self.compare(CmpOp::Gt, &Val::T(abs_back), &Val::T(abs_x), span)?;
        let bits_ty = ScalarType::from_name(&format!("i{}", narrow.bits()))
            .ok_or_else(|| err(errors::INTERNAL, span, "no integer type of a float's width"))?;
        let bits = self.bitcast(rounded, Elem::Scalar(bits_ty), span)?;
        let one = self.constant(self.ty(bits).clone(), &Val::Int(1), span)?;
        let lower = self.emit_binary(BinaryOp::Sub, bits, one, span);
        let lower = self.bitcast(lower, Elem::Scalar(narrow), span)?;
        self.select(&away, &Val::T(lower), &Val::T(rounded), span)
    }
}
