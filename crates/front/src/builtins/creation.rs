//! Program ids, ranges, constant blocks and conversions.

use crate::errors::{self, err, err_label, Result};
use crate::lower::{Args, Lowerer};
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_ir::{Axis, Elem, OpKind, ScalarType, Type};

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
                self.convert(&b.val(0), &b.val(1), &b.val(3), span)
            }
            _ => Err(err(errors::INTERNAL, span, format!("unknown creation builtin {name}"))),
        }
    }

    /// `x.to(dtype, fp_downcast_rounding=None, bitcast=False)`.
    pub(super) fn tensor_to(&mut self, args: Args, span: Span) -> Result<Val> {
        let b = args.bind("to", &["self", "dtype", "fp_downcast_rounding", "bitcast"], 2, span)?;
        self.convert(&b.val(0), &b.val(1), &b.val(3), span)
    }

    fn convert(&mut self, x: &Val, dtype: &Val, bitcast: &Val, span: Span) -> Result<Val> {
        let to = self.dtype_arg(dtype, span)?;
        let v = self.tensor_arg(x, span)?;
        let bitcast = self.const_bool(bitcast, span, "`bitcast`")?;
        Ok(Val::T(if bitcast { self.bitcast(v, to, span)? } else { self.cast_elem(v, to, span)? }))
    }
}
