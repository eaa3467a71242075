//! Shape operations and `tl.dot`.

use crate::errors::{self, err, err_label, Result};
use crate::lower::{Args, Lowerer};
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_ir::{DotPrecision, Elem, OpKind, ScalarType, Type, Value};

impl Lowerer<'_> {
    /// Dims given either as varargs or as one tuple (`x.reshape(a, b)` / `x.reshape((a, b))`).
    fn dims_arg(&self, v: &Val, span: Span, what: &str) -> Result<Vec<i128>> {
        let items = match v {
            Val::Tuple(items) => match items.as_slice() {
                [Val::Tuple(inner)] => inner.clone(),
                _ => items.clone(),
            },
            other => vec![other.clone()],
        };
        items.iter().map(|d| self.const_int(d, span, what)).collect()
    }

    pub(super) fn shape_op(&mut self, name: &str, args: Args, span: Span) -> Result<Val> {
        let v = match name {
            "dot" => {
                let b = args.bind(
                    name,
                    &["input", "other", "acc", "input_precision", "allow_tf32", "max_num_imprecise_acc", "out_dtype"],
                    2,
                    span,
                )?;
                let a = self.tensor_arg(&b.val(0), b.span(0))?;
                let o = self.tensor_arg(&b.val(1), b.span(1))?;
                let acc = match b.get(2) {
                    Some(v) => Some(self.tensor_arg(v, b.span(2))?),
                    None => None,
                };
                let out = match b.get(6) {
                    Some(d) => match self.dtype_arg(d, b.span(6))? {
                        Elem::Scalar(s) => Some(s),
                        Elem::Ptr(_) => {
                            return Err(err(errors::TYPE_ERROR, b.span(6), "`out_dtype` must be a scalar dtype"))
                        }
                    },
                    None => None,
                };
                let precision = match (b.get(3), b.get(4)) {
                    (Some(Val::Str(p)), _) => Some(match p.as_str() {
                        "ieee" => DotPrecision::Ieee,
                        "tf32" => DotPrecision::Tf32,
                        "tf32x3" => DotPrecision::Tf32x3,
                        other => {
                            return Err(err(errors::VALUE, b.span(3), format!("unknown `input_precision` \"{other}\"")))
                        }
                    }),
                    (Some(other), _) => {
                        return Err(err(
                            errors::VALUE,
                            b.span(3),
                            format!("`input_precision` must be a string, got {}", other.describe()),
                        ))
                    }
                    (None, Some(tf32)) => Some(if self.const_bool(tf32, b.span(4), "`allow_tf32`")? {
                        DotPrecision::Tf32
                    } else {
                        DotPrecision::Ieee
                    }),
                    (None, None) => None,
                };
                self.dot(a, o, acc, out, precision, span)?
            }
            "trans" | "permute" => {
                let b = args.bind(name, &["input", "*dims"], 1, span)?;
                let x = self.tensor_arg(&b.val(0), b.span(0))?;
                let dims = self.dims_arg(&b.val(1), b.span(1), "a dimension")?;
                let order = if dims.is_empty() {
                    if name == "permute" {
                        return Err(err(errors::ARITY, span, "`permute` needs the new order of the dimensions"));
                    }
                    None
                } else {
                    Some(dims.iter().map(|&d| d.max(0) as u32).collect())
                };
                self.trans(x, order, span)?
            }
            "reshape" | "view" => {
                let b = args.bind(name, &["input", "*shape", "can_reorder"], 1, span)?;
                let x = self.tensor_arg(&b.val(0), b.span(0))?;
                let dims = self.dims_arg(&b.val(1), b.span(1), "a shape dimension")?;
                let shape = self.shape_arg(&Val::Tuple(dims.iter().map(|&d| Val::Int(d)).collect()), b.span(1))?;
                let ty = self.ty(x).clone();
                if shape.is_empty() {
                    // Triton: `block_type` of no dimensions ("0d block_type is forbidden").
                    return Err(err(errors::SHAPE, b.span(1), "cannot reshape to a tensor of no dimensions"));
                }
                let numel: u64 = shape.iter().map(|&d| d as u64).product();
                if numel != ty.numel() {
                    return Err(err_label(
                        errors::SHAPE,
                        span,
                        format!("cannot reshape a tensor of {} elements into shape {shape:?}", ty.numel()),
                        format!("shape {:?}", ty.shape),
                    ));
                }
                if ty.shape.is_empty() {
                    self.emit(OpKind::Splat(x), ty.with_shape(shape), span)
                } else {
                    self.emit(OpKind::Reshape(x), ty.with_shape(shape), span)
                }
            }
            "ravel" => {
                let b = args.bind(name, &["x", "can_reorder"], 1, span)?;
                let x = self.tensor_arg(&b.val(0), b.span(0))?;
                let ty = self.ty(x).clone();
                if ty.shape.len() == 1 {
                    x
                } else {
                    self.emit(OpKind::Reshape(x), ty.with_shape(vec![ty.numel() as u32]), span)
                }
            }
            "broadcast_to" => {
                let b = args.bind(name, &["input", "*shape"], 1, span)?;
                let x = self.tensor_arg(&b.val(0), b.span(0))?;
                let dims = self.dims_arg(&b.val(1), b.span(1), "a shape dimension")?;
                let shape = self.shape_arg(&Val::Tuple(dims.iter().map(|&d| Val::Int(d)).collect()), b.span(1))?;
                self.broadcast_to(x, &shape, errors::BROADCAST, span)?
            }
            "broadcast" => {
                let b = args.bind(name, &["input", "other"], 2, span)?;
                let x = self.tensor_arg(&b.val(0), b.span(0))?;
                let y = self.tensor_arg(&b.val(1), b.span(1))?;
                let (x, y) = self.broadcast_pair(x, y, span)?;
                return Ok(Val::Tuple(vec![Val::T(x), Val::T(y)]));
            }
            "expand_dims" => {
                let b = args.bind(name, &["input", "axis"], 2, span)?;
                let mut x = self.tensor_arg(&b.val(0), b.span(0))?;
                let axes = self.dims_arg(&b.val(1), b.span(1), "`axis`")?;
                let new_rank = (self.ty(x).shape.len() + axes.len()) as i128;
                let mut norm: Vec<u32> = Vec::new();
                for a in axes {
                    let k = if a < 0 { a + new_rank } else { a };
                    if k < 0 || k >= new_rank {
                        return Err(err(errors::SHAPE, b.span(1), format!("axis {a} is out of range")));
                    }
                    norm.push(k as u32);
                }
                norm.sort_unstable();
                for a in norm {
                    x = self.expand_dims(x, a, span)?;
                }
                x
            }
            _ => return Err(err(errors::INTERNAL, span, format!("unknown shape builtin {name}"))),
        };
        Ok(Val::T(v))
    }

    /// `tl.dot(a, b, acc)`: [M,K]×[K,N] (+ a leading batch dim), same operand dtypes;
    /// int8 operands accumulate in int32, floats in `out_dtype` (fp32 by default).
    pub fn dot(
        &mut self,
        a: Value,
        b: Value,
        acc: Option<Value>,
        out_dtype: Option<ScalarType>,
        precision: Option<DotPrecision>,
        span: Span,
    ) -> Result<Value> {
        // fp8 operands are widened to fp16 (exact) and multiply as fp16 operands do, as in
        // Triton's interpreter; every product is exact in the fp32 accumulator.
        let widen = |v: Value, l: &mut Self| match l.ty(v).scalar_type() {
            Some(s) if s.is_fp8() => l.cast(v, ScalarType::F16, span),
            _ => Ok(v),
        };
        let a = widen(a, self)?;
        let b = widen(b, self)?;
        let (ta, tb) = (self.ty(a).clone(), self.ty(b).clone());
        let rank = ta.shape.len();
        if !(rank == 2 || rank == 3) || tb.shape.len() != rank {
            return Err(err(
                errors::SHAPE,
                span,
                format!("`tl.dot` needs two 2D (or two 3D) tensors, got shapes {:?} and {:?}", ta.shape, tb.shape),
            ));
        }
        let (Some(sa), Some(sb)) = (ta.scalar_type(), tb.scalar_type()) else {
            return Err(err(errors::TYPE_ERROR, span, "`tl.dot` is not defined on pointers"));
        };
        if sa != sb {
            return Err(err(
                errors::TYPE_ERROR,
                span,
                format!("both operands of `tl.dot` must have the same dtype, got {} and {}", sa.name(), sb.name()),
            ));
        }
        let k = rank - 1;
        if ta.shape[k] != tb.shape[k - 1] || (rank == 3 && ta.shape[0] != tb.shape[0]) {
            return Err(err_label(
                errors::SHAPE,
                span,
                format!("incompatible shapes for `tl.dot`: {:?} and {:?}", ta.shape, tb.shape),
                "the inner dimensions must match",
            ));
        }
        let mut shape = ta.shape.clone();
        shape[k] = tb.shape[k];
        // Triton's result dtype (`semantic.dot`): int8 gives int32 whatever `out_dtype` says;
        // fp32 and bf16 give fp32; fp64 gives fp64; fp16 gives `out_dtype` (fp16 or fp32).
        // `out_dtype` defaults to the accumulator's dtype, and the accumulator must have it.
        let out_dtype = out_dtype.or_else(|| acc.and_then(|c| self.ty(c).scalar_type()));
        let out = match sa {
            ScalarType::I8 => ScalarType::I32,
            s if s.is_int() => {
                return Err(err(
                    errors::TYPE_ERROR,
                    span,
                    format!("integer `tl.dot` needs int8 operands, got {}", s.name()),
                ));
            }
            _ if out_dtype == Some(ScalarType::BF16) => {
                return Err(err(
                    errors::TYPE_ERROR,
                    span,
                    "`out_dtype=tl.bfloat16` is not supported by `tl.dot`; use fp32 and cast with `.to(tl.bfloat16)`",
                ));
            }
            ScalarType::F32 | ScalarType::BF16 => ScalarType::F32,
            ScalarType::F64 => ScalarType::F64,
            _ => match out_dtype {
                None | Some(ScalarType::F32) => ScalarType::F32,
                Some(ScalarType::F16) => ScalarType::F16,
                Some(other) => {
                    return Err(err(
                        errors::TYPE_ERROR,
                        span,
                        format!("`tl.dot` of fp16 operands gives fp16 or fp32, not {}", other.name()),
                    ));
                }
            },
        };
        let acc = match acc {
            Some(c) => {
                let tc = self.ty(c).clone();
                if tc.shape != shape {
                    return Err(err(
                        errors::SHAPE,
                        span,
                        format!("the accumulator of `tl.dot` has shape {:?}, expected {shape:?}", tc.shape),
                    ));
                }
                if tc.scalar_type() != Some(out) || out_dtype.is_some_and(|d| d != out) {
                    return Err(err(
                        errors::TYPE_ERROR,
                        span,
                        format!(
                            "`tl.dot` of {} operands gives {}, but the accumulator is {}{}",
                            sa.name(),
                            out.name(),
                            crate::ops::type_name(&tc),
                            out_dtype.map_or(String::new(), |d| format!(" and `out_dtype` is {}", d.name()))
                        ),
                    ));
                }
                c
            }
            None => self.constant(Type::tensor(Elem::Scalar(out), shape.clone()), &Val::Int(0), span)?,
        };
        let precision =
            precision.unwrap_or(if sa == ScalarType::F32 { DotPrecision::Tf32 } else { DotPrecision::Ieee });
        // An fp16 result accumulates in fp32 from the accumulator and is rounded once, as
        // fp32 results are (the products of fp16 values are exact in fp32).
        let acc = if out == ScalarType::F16 { self.cast(acc, ScalarType::F32, span)? } else { acc };
        let ty = self.ty(acc).clone();
        let d = self.emit(OpKind::Dot { a, b, acc, precision }, ty, span);
        self.cast(d, out, span)
    }
}
