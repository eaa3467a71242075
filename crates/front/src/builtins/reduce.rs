//! Reductions (`tl.sum`, `tl.max`, `tl.argmax`, `tl.reduce`, ...) and scans
//! (`tl.cumsum`, `tl.cumprod`, `tl.associative_scan`), with Triton's dtype rules.

use crate::errors::{self, err, Result};
use crate::lower::{Args, Lowerer};
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_ir::{Elem, OpKind, ReduceKind, RegionId, ScalarType, ScanKind, Type, Value};

/// How a reduction is computed.
enum Combine {
    Kind(ReduceKind),
    Custom(Val),
}

impl Lowerer<'_> {
    /// `_pick_sum_dtype`: integers narrower than 32 bits are summed in (u)int32.
    fn sum_dtype(&self, x: Value, dtype: Option<&Val>, span: Span) -> Result<Option<ScalarType>> {
        if let Some(d) = dtype {
            return match self.dtype_arg(d, span)? {
                Elem::Scalar(s) => Ok(Some(s)),
                Elem::Ptr(_) => Err(err(errors::TYPE_ERROR, span, "cannot sum into a pointer type")),
            };
        }
        Ok(match self.ty(x).scalar_type() {
            Some(s) if crate::promote::is_unsigned(s) && s.bits() < 32 => Some(ScalarType::U32),
            Some(s) if s.is_int() && s.bits() < 32 => Some(ScalarType::I32),
            _ => None,
        })
    }

    /// `max`/`min`: values narrower than 32 bits are widened (floats, fp8 included, to fp32,
    /// ints to int32).
    fn widen_for_minmax(&mut self, x: Value, span: Span) -> Result<Value> {
        match self.ty(x).scalar_type() {
            Some(s) if s.bits() < 32 && (s.is_float() || s.is_fp8()) => self.cast(x, ScalarType::F32, span),
            Some(s) if s.bits() < 32 => self.cast(x, ScalarType::I32, span),
            _ => Ok(x),
        }
    }

    /// fp16/bf16/fp8 sums, products and their scans accumulate in fp32 and round once per
    /// result element to the result dtype (which stays fp16/bf16/fp8, as `_pick_sum_dtype`
    /// says; Triton's combine `a + b` is typed in it): the operand widened to fp32, and the
    /// narrow type to round the result back to (fp8 by Triton's conversion rules).
    fn widen_narrow_float(&mut self, x: Value, span: Span) -> Result<(Value, Option<ScalarType>)> {
        match self.ty(x).scalar_type() {
            Some(s) if s.is_half() || s.is_fp8() => Ok((self.cast(x, ScalarType::F32, span)?, Some(s))),
            _ => Ok((x, None)),
        }
    }

    fn narrow_to(&mut self, r: Value, half: Option<ScalarType>, span: Span) -> Result<Value> {
        match half {
            Some(s) => self.cast(r, s, span),
            None => Ok(r),
        }
    }

    pub(super) fn reduction(&mut self, name: &str, args: Args, span: Span) -> Result<Val> {
        match name {
            "sum" => {
                let b = args.bind(name, &["input", "axis", "keep_dims", "dtype"], 1, span)?;
                let x = self.numeric_tensor(&b.val(0), b.span(0), name)?;
                let x = match self.sum_dtype(x, b.get(3), b.span(3))? {
                    Some(t) => self.cast(x, t, span)?,
                    None => x,
                };
                let keep = self.const_bool(&b.val(2), b.span(2), "`keep_dims`")?;
                let (x, half) = self.widen_narrow_float(x, span)?;
                let r = self.reduce(Combine::Kind(ReduceKind::Sum), x, &b.val(1), b.span(1), keep, span)?;
                Ok(Val::T(self.narrow_to(r, half, span)?))
            }
            "max" | "min" => {
                let b = args.bind(
                    name,
                    &["input", "axis", "return_indices", "return_indices_tie_break_left", "keep_dims"],
                    1,
                    span,
                )?;
                let x = self.numeric_tensor(&b.val(0), b.span(0), name)?;
                let keep = self.const_bool(&b.val(4), b.span(4), "`keep_dims`")?;
                let with_index = self.const_bool(&b.val(2), b.span(2), "`return_indices`")?;
                let (kind, arg) = if name == "max" {
                    (ReduceKind::Max, ReduceKind::ArgMax)
                } else {
                    (ReduceKind::Min, ReduceKind::ArgMin)
                };
                // Only the plain reduction widens narrow types (`tl.max` of int8 is int32); with
                // `return_indices` the value keeps the input's dtype. Widening is exact, so the
                // maximum is computed wide and narrowed back.
                let narrow = self.ty(x).scalar_type();
                let x = self.widen_for_minmax(x, span)?;
                if with_index {
                    // Triton's value is the element its (value, index) combine keeps.
                    let rs = self.reduce_values(Combine::Kind(arg), vec![x], &b.val(1), b.span(1), keep, span)?;
                    let value = match narrow {
                        Some(t) => self.cast(rs[0], t, span)?,
                        None => rs[0],
                    };
                    return Ok(Val::Tuple(vec![Val::T(value), Val::T(rs[1])]));
                }
                Ok(Val::T(self.reduce(Combine::Kind(kind), x, &b.val(1), b.span(1), keep, span)?))
            }
            "argmax" | "argmin" => {
                let b = args.bind(name, &["input", "axis", "tie_break_left", "keep_dims"], 2, span)?;
                let x = self.numeric_tensor(&b.val(0), b.span(0), name)?;
                let x = self.widen_for_minmax(x, span)?;
                let keep = self.const_bool(&b.val(3), b.span(3), "`keep_dims`")?;
                let kind = if name == "argmax" { ReduceKind::ArgMax } else { ReduceKind::ArgMin };
                let rs = self.reduce_values(Combine::Kind(kind), vec![x], &b.val(1), b.span(1), keep, span)?;
                Ok(Val::T(rs[1]))
            }
            "xor_sum" => {
                let b = args.bind(name, &["input", "axis", "keep_dims"], 1, span)?;
                let x = self.numeric_tensor(&b.val(0), b.span(0), name)?;
                if !self.ty(x).scalar_type().is_some_and(|s| s.is_int()) {
                    return Err(err(errors::TYPE_ERROR, b.span(0), "`xor_sum` needs an integer tensor"));
                }
                let keep = self.const_bool(&b.val(2), b.span(2), "`keep_dims`")?;
                Ok(Val::T(self.reduce(Combine::Kind(ReduceKind::Xor), x, &b.val(1), b.span(1), keep, span)?))
            }
            "reduce" => {
                let b = args.bind(name, &["input", "axis", "combine_fn", "keep_dims"], 3, span)?;
                let keep = self.const_bool(&b.val(3), b.span(3), "`keep_dims`")?;
                let (xs, tuple) = self.operand_tensors(&b.val(0), b.span(0), name)?;
                let rs = self.reduce_values(Combine::Custom(b.val(2)), xs, &b.val(1), b.span(1), keep, span)?;
                Ok(results_val(rs, tuple))
            }
            "cumsum" | "cumprod" => {
                let b = args.bind(name, &["input", "axis", "reverse", "dtype"], 1, span)?;
                let x = self.numeric_tensor(&b.val(0), b.span(0), name)?;
                let x = match self.sum_dtype(x, b.get(3), b.span(3))? {
                    Some(t) => self.cast(x, t, span)?,
                    None => x,
                };
                let reverse = self.const_bool(&b.val(2), b.span(2), "`reverse`")?;
                let kind = if name == "cumsum" { ScanKind::Sum } else { ScanKind::Prod };
                let (x, half) = self.widen_narrow_float(x, span)?;
                let r = self.scan(Some(kind), None, x, b.get(1), b.span(1), reverse, span)?;
                Ok(Val::T(self.narrow_to(r, half, span)?))
            }
            _ => {
                let b = args.bind(name, &["input", "axis", "combine_fn", "reverse"], 3, span)?;
                let (xs, tuple) = self.operand_tensors(&b.val(0), b.span(0), name)?;
                let reverse = self.const_bool(&b.val(3), b.span(3), "`reverse`")?;
                let rs = self.scan_values(None, Some(b.val(2)), xs, b.get(1), b.span(1), reverse, span)?;
                Ok(results_val(rs, tuple))
            }
        }
    }

    /// The operands of `tl.reduce` / `tl.associative_scan`: one tensor, or a tuple of
    /// tensors of one shape (`true` when a tuple was given).
    fn operand_tensors(&mut self, v: &Val, span: Span, fname: &str) -> Result<(Vec<Value>, bool)> {
        let Val::Tuple(items) = v else {
            return Ok((vec![self.numeric_tensor(v, span, fname)?], false));
        };
        if items.is_empty() {
            return Err(err(errors::TYPE_ERROR, span, format!("`{fname}` needs at least one tensor")));
        }
        let xs = items.iter().map(|x| self.numeric_tensor(x, span, fname)).collect::<Result<Vec<_>>>()?;
        let shape = &self.ty(xs[0]).shape;
        if let Some(other) = xs.iter().find(|&&x| &self.ty(x).shape != shape) {
            return Err(err(
                errors::SHAPE,
                span,
                format!(
                    "all inputs of `{fname}` must have the same shape, got {:?} and {:?}",
                    shape,
                    self.ty(*other).shape
                ),
            ));
        }
        Ok((xs, true))
    }

    fn numeric_tensor(&mut self, v: &Val, span: Span, fname: &str) -> Result<Value> {
        let x = self.tensor_arg(v, span)?;
        if self.ty(x).scalar_type().is_none() {
            return Err(err(errors::TYPE_ERROR, span, format!("`{fname}` is not defined on pointers")));
        }
        if !self.ty(x).is_tensor() {
            let ty = self.ty(x).with_shape(vec![1]);
            return Ok(self.emit(OpKind::Splat(x), ty, span));
        }
        Ok(x)
    }

    fn reduce(
        &mut self,
        combine: Combine,
        x: Value,
        axis: &Val,
        axis_span: Span,
        keep_dims: bool,
        span: Span,
    ) -> Result<Value> {
        Ok(self.reduce_values(combine, vec![x], axis, axis_span, keep_dims, span)?[0])
    }

    /// Reduces the tensors `xs` (one shape; one tensor unless `combine` is a function)
    /// along `axis` (`None`: all of them), one result per tensor.
    fn reduce_values(
        &mut self,
        combine: Combine,
        xs: Vec<Value>,
        axis: &Val,
        axis_span: Span,
        keep_dims: bool,
        span: Span,
    ) -> Result<Vec<Value>> {
        let ty = self.ty(xs[0]).clone();
        let rank = ty.shape.len();
        let axis_none = matches!(axis, Val::None);
        let (xs, axis) = if axis_none {
            let flat = xs
                .into_iter()
                .map(|x| {
                    if rank > 1 {
                        let t = self.ty(x).with_shape(vec![ty.numel() as u32]);
                        self.emit(OpKind::Reshape(x), t, span)
                    } else {
                        x
                    }
                })
                .collect::<Vec<_>>();
            (flat, 0)
        } else {
            (xs, self.axis_arg(axis, rank, axis_span)?)
        };
        let in_ty = self.ty(xs[0]).clone();
        let mut shape = in_ty.shape.clone();
        shape.remove(axis as usize);
        let results = match combine {
            Combine::Kind(kind) => {
                let mut types = vec![Type::tensor(in_ty.elem, shape.clone())];
                if kind.is_arg() {
                    types.push(Type::tensor(Elem::Scalar(ScalarType::I32), shape));
                }
                let op = self.f.append_op(self.region, OpKind::Reduce { kind, value: xs[0], axis }, types, span);
                self.f.ops[op].results.clone()
            }
            Combine::Custom(f) => {
                let elems: Vec<Elem> = xs.iter().map(|&x| self.ty(x).elem).collect();
                let combine = self.combine_region(&f, &elems, span)?;
                let types = elems.iter().map(|&e| Type::tensor(e, shape.clone())).collect();
                let op = self.f.append_op(self.region, OpKind::ReduceCustom { values: xs, axis, combine }, types, span);
                self.f.ops[op].results.clone()
            }
        };
        if !keep_dims {
            return Ok(results);
        }
        results
            .into_iter()
            .map(|r| {
                if axis_none && rank > 1 {
                    // axis=None on a rank>1 tensor: every dimension kept as 1.
                    let t = self.ty(r).with_shape(vec![1; rank]);
                    return Ok(self.emit(OpKind::Splat(r), t, span));
                }
                self.expand_dims(r, axis, span)
            })
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn scan(
        &mut self,
        kind: Option<ScanKind>,
        f: Option<Val>,
        x: Value,
        axis: Option<&Val>,
        axis_span: Span,
        reverse: bool,
        span: Span,
    ) -> Result<Value> {
        Ok(self.scan_values(kind, f, vec![x], axis, axis_span, reverse, span)?[0])
    }

    /// Scans the tensors `xs` (one shape; one tensor for a built-in `kind`) along `axis`.
    #[allow(clippy::too_many_arguments)]
    fn scan_values(
        &mut self,
        kind: Option<ScanKind>,
        f: Option<Val>,
        xs: Vec<Value>,
        axis: Option<&Val>,
        axis_span: Span,
        reverse: bool,
        span: Span,
    ) -> Result<Vec<Value>> {
        let ty = self.ty(xs[0]).clone();
        let axis = self.axis_arg(axis.unwrap_or(&Val::Int(0)), ty.shape.len(), axis_span)?;
        Ok(match (kind, f) {
            (Some(kind), _) => vec![self.emit(OpKind::Scan { kind, value: xs[0], axis, reverse }, ty, span)],
            (None, Some(f)) => {
                let elems: Vec<Elem> = xs.iter().map(|&x| self.ty(x).elem).collect();
                let combine = self.combine_region(&f, &elems, span)?;
                let types = xs.iter().map(|&x| self.ty(x).clone()).collect();
                let kind = OpKind::ScanCustom { values: xs, axis, reverse, combine };
                let op = self.f.append_op(self.region, kind, types, span);
                self.f.ops[op].results.clone()
            }
            (None, None) => return Err(err(errors::INTERNAL, span, "scan without combine")),
        })
    }

    /// A combine region `(acc..., x...) -> acc...` over scalars of `elems`, built by
    /// inlining `f` (which returns one value, or a tuple of one value per element type).
    fn combine_region(&mut self, f: &Val, elems: &[Elem], span: Span) -> Result<RegionId> {
        let Val::Func(fref) = f else {
            return Err(err(
                errors::TYPE_ERROR,
                span,
                format!("`combine_fn` must be a `@triton.jit` function, got {}", f.describe()),
            ));
        };
        let region = self.f.new_region();
        let mut params = Vec::with_capacity(2 * elems.len());
        for name in ["acc", "x"] {
            for &elem in elems {
                params.push(self.f.add_region_param(region, Type { elem, shape: vec![] }, Some(name.into())));
            }
        }
        let fref = *fref;
        let outs = self.in_region(region, |l| -> Result<Vec<Value>> {
            let args = Args { pos: params.iter().map(|&p| (Val::T(p), span)).collect(), kw: vec![] };
            let r = l.call_jit(fref, args, span)?;
            let values = match r {
                Val::Tuple(items) => items,
                single => vec![single],
            };
            if values.len() != elems.len() {
                return Err(err(
                    errors::TYPE_ERROR,
                    span,
                    format!("`combine_fn` must return {} value(s), one per input, got {}", elems.len(), values.len()),
                ));
            }
            values
                .iter()
                .zip(elems)
                .map(|(v, &elem)| {
                    let v = l.tensor_value(v, span)?;
                    if l.ty(v).is_tensor() {
                        return Err(err(errors::TYPE_ERROR, span, "`combine_fn` must return scalars"));
                    }
                    match elem {
                        Elem::Scalar(s) => l.cast(v, s, span),
                        Elem::Ptr(_) => Err(err(errors::TYPE_ERROR, span, "cannot reduce pointers")),
                    }
                })
                .collect()
        })?;
        self.f.append_op(region, OpKind::Yield(outs), vec![], span);
        Ok(region)
    }
}

/// The results of a reduction or scan as Python sees them: a tuple when the input was one.
fn results_val(rs: Vec<Value>, tuple: bool) -> Val {
    if tuple {
        Val::Tuple(rs.into_iter().map(Val::T).collect())
    } else {
        Val::T(rs[0])
    }
}
