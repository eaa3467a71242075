//! `tl.load`, `tl.store` and atomics.

use crate::errors::{self, err, err_label, Result};
use crate::lower::{Args, Lowerer};
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_ir::{AtomicOp, Elem, MemSem, OpKind, ScalarType, Value};
use tilec_syntax::ast::{self, CmpOp};

impl Lowerer<'_> {
    /// A pointer (or tensor of pointers) argument and its pointee type.
    fn pointer_arg(&mut self, v: &Val, span: Span, what: &str) -> Result<(Value, ScalarType)> {
        let p = match v {
            Val::T(p) => *p,
            other => {
                return Err(err_label(
                    errors::NOT_POINTER,
                    span,
                    format!("`{what}` needs a pointer, got {}", other.describe()),
                    "not a pointer",
                ))
            }
        };
        match self.ty(p).elem {
            Elem::Ptr(s) => Ok((p, s)),
            Elem::Scalar(s) => Err(err_label(
                errors::NOT_POINTER,
                span,
                format!("`{what}` needs a pointer, got a value of type {}", crate::ops::type_name(&self.ty(p).clone())),
                format!("this is {}, not a pointer", s.name()),
            )),
        }
    }

    /// The mask of a memory op, as `i1` of the pointer's shape.
    fn mask_arg(&mut self, v: Option<&Val>, ptr: Value, span: Span) -> Result<Option<Value>> {
        let Some(v) = v else { return Ok(None) };
        let m = self.tensor_arg(v, span)?;
        let mty = self.ty(m).clone();
        if mty.scalar_type() != Some(ScalarType::I1) {
            return Err(err_label(
                errors::TYPE_ERROR,
                span,
                format!("a mask must be boolean, got {}", crate::ops::type_name(&mty)),
                "not a boolean",
            ));
        }
        let shape = self.ty(ptr).shape.clone();
        if shape.is_empty() && mty.is_tensor() {
            return Err(err_label(
                errors::MASK_SHAPE,
                span,
                "a mask cannot be a block when the pointer is a scalar",
                format!("this mask has shape {:?}", mty.shape),
            ));
        }
        let same_rank_ok = mty.shape.is_empty() || mty.shape.len() == shape.len();
        if !same_rank_ok {
            return Err(err_label(
                errors::MASK_SHAPE,
                span,
                format!("the mask has shape {:?} but the pointer block has shape {:?}", mty.shape, shape),
                "mask shape does not match",
            ));
        }
        Ok(Some(self.broadcast_to(m, &shape, errors::MASK_SHAPE, span)?))
    }

    fn sem_arg(&self, v: Option<&Val>, span: Span) -> Result<MemSem> {
        match v {
            None => Ok(MemSem::AcqRel),
            Some(Val::Str(s)) => match s.as_str() {
                "relaxed" => Ok(MemSem::Relaxed),
                "acquire" => Ok(MemSem::Acquire),
                "release" => Ok(MemSem::Release),
                "acq_rel" => Ok(MemSem::AcqRel),
                other => Err(err(errors::VALUE, span, format!("unknown memory semantics `{other}`"))),
            },
            Some(other) => Err(err(errors::VALUE, span, format!("`sem` must be a string, got {}", other.describe()))),
        }
    }

    pub(super) fn memory(&mut self, name: &str, args: Args, span: Span) -> Result<Val> {
        match name {
            "load" => {
                let b = args.bind(
                    name,
                    &[
                        "pointer",
                        "mask",
                        "other",
                        "boundary_check",
                        "padding_option",
                        "cache_modifier",
                        "eviction_policy",
                        "volatile",
                    ],
                    1,
                    span,
                )?;
                if let Val::BlockPtr(p) = b.val(0) {
                    return self.load_block_ptr(&p, &b, span);
                }
                self.no_boundary_check(&b, &[3, 4])?;
                let (ptr, pointee) = self.pointer_arg(&b.val(0), b.span(0), "tl.load")?;
                let mask = self.mask_arg(b.get(1), ptr, b.span(1))?;
                let shape = self.ty(ptr).shape.clone();
                let (load_ptr, load_ty) = if pointee == ScalarType::I1 {
                    (self.cast_elem(ptr, Elem::Ptr(ScalarType::I8), span)?, ScalarType::I8)
                } else {
                    (ptr, pointee)
                };
                let other = match (mask, b.get(2)) {
                    (Some(_), Some(o)) => {
                        let o = self.tensor_arg(o, b.span(2))?;
                        if shape.is_empty() && self.ty(o).is_tensor() {
                            return Err(err(
                                errors::SHAPE,
                                b.span(2),
                                "`other` cannot be a block when the pointer is a scalar",
                            ));
                        }
                        let o = self.cast(o, load_ty, b.span(2))?;
                        Some(self.broadcast_to(o, &shape, errors::BROADCAST, b.span(2))?)
                    }
                    _ => None,
                };
                let ty = self.ty(load_ptr).with_elem(Elem::Scalar(load_ty));
                let v = self.emit(OpKind::Load { ptr: load_ptr, mask, other }, ty, span);
                Ok(Val::T(if pointee == ScalarType::I1 { self.cast(v, ScalarType::I1, span)? } else { v }))
            }
            "store" => {
                let b = args.bind(
                    name,
                    &["pointer", "value", "mask", "boundary_check", "cache_modifier", "eviction_policy"],
                    2,
                    span,
                )?;
                if let Val::BlockPtr(p) = b.val(0) {
                    return self.store_block_ptr(&p, &b, span);
                }
                self.no_boundary_check(&b, &[3])?;
                let (ptr, pointee) = self.pointer_arg(&b.val(0), b.span(0), "tl.store")?;
                let shape = self.ty(ptr).shape.clone();
                let value = self.tensor_arg(&b.val(1), b.span(1))?;
                if shape.is_empty() && self.ty(value).is_tensor() {
                    return Err(err_label(
                        errors::SHAPE,
                        b.span(1),
                        "cannot store a block through a scalar pointer",
                        format!("this value has shape {:?}", self.ty(value).shape),
                    ));
                }
                let value = self.broadcast_to(value, &shape, errors::BROADCAST, b.span(1))?;
                let mask = self.mask_arg(b.get(2), ptr, b.span(2))?;
                let (ptr, elem) = if pointee == ScalarType::I1 {
                    (self.cast_elem(ptr, Elem::Ptr(ScalarType::I8), span)?, ScalarType::I8)
                } else {
                    (ptr, pointee)
                };
                let value = self.cast(value, elem, b.span(1))?;
                self.f.append_op(self.region, OpKind::Store { ptr, value, mask }, vec![], span);
                Ok(Val::None)
            }
            "atomic_cas" => {
                let b = args.bind(name, &["pointer", "cmp", "val", "sem", "scope"], 3, span)?;
                let (ptr, pointee) = self.pointer_arg(&b.val(0), b.span(0), "tl.atomic_cas")?;
                if pointee.bits() < 16 {
                    return Err(err(
                        errors::TYPE_ERROR,
                        b.span(0),
                        format!("`atomic_cas` supports elements of 16, 32 or 64 bits, not {}", pointee.name()),
                    ));
                }
                // Triton's `tt.atomic_cas` verifier: `cmp` and `val` have exactly the
                // pointers' type (shape and element type); neither is broadcast nor cast.
                let shape = self.ty(ptr).shape.clone();
                let mut operands = Vec::new();
                for (i, what) in [(1, "compare value"), (2, "new value")] {
                    let v = self.tensor_arg(&b.val(i), b.span(i))?;
                    let ty = self.ty(v);
                    if ty.shape != shape {
                        let has =
                            if ty.shape.is_empty() { "a scalar".to_string() } else { format!("shape {:?}", ty.shape) };
                        let wants = if shape.is_empty() { "a scalar".to_string() } else { format!("shape {shape:?}") };
                        return Err(err_label(
                            errors::SHAPE,
                            b.span(i),
                            format!("the {what} of `atomic_cas` must have the pointers' shape ({wants}): Triton does not broadcast it"),
                            format!("this is {has}; broadcast it with `tl.broadcast_to`"),
                        ));
                    }
                    if ty.elem != Elem::Scalar(pointee) {
                        return Err(err_label(
                            errors::TYPE_ERROR,
                            b.span(i),
                            format!(
                                "the {what} of `atomic_cas` must have the pointers' element type {}: Triton does not cast it",
                                pointee.name()
                            ),
                            format!(
                                "this is {}; convert it with `.to()`",
                                ty.elem.scalar().map_or("a pointer", |s| s.name())
                            ),
                        ));
                    }
                    operands.push(v);
                }
                let sem = self.sem_arg(b.get(3), b.span(3))?;
                let ty = self.ty(ptr).with_elem(Elem::Scalar(pointee));
                Ok(Val::T(self.emit(OpKind::AtomicCas { ptr, cmp: operands[0], value: operands[1], sem }, ty, span)))
            }
            _ => {
                let op = match name {
                    "atomic_add" => AtomicOp::Add,
                    "atomic_max" => AtomicOp::Max,
                    "atomic_min" => AtomicOp::Min,
                    "atomic_xchg" => AtomicOp::Xchg,
                    "atomic_and" => AtomicOp::And,
                    "atomic_or" => AtomicOp::Or,
                    _ => AtomicOp::Xor,
                };
                let b = args.bind(name, &["pointer", "val", "mask", "sem", "scope"], 2, span)?;
                let (ptr, pointee) = self.pointer_arg(&b.val(0), b.span(0), name)?;
                // Triton's `_validate_atomic_rmw_element_type`: no 8-bit, 16-bit integer or
                // boolean elements, fp16/bf16 for `atomic_add` only; float max/min need
                // fp32 or fp64.
                if pointee.bits() < 16 || matches!(pointee, ScalarType::I16 | ScalarType::U16) {
                    return Err(err(
                        errors::TYPE_ERROR,
                        b.span(0),
                        format!("`{name}` does not support {} elements", pointee.name()),
                    ));
                }
                if pointee.is_half() && op != AtomicOp::Add {
                    return Err(err(
                        errors::TYPE_ERROR,
                        b.span(0),
                        format!("`{name}` does not support {} elements (only `atomic_add` does)", pointee.name()),
                    ));
                }
                if pointee.is_float() && matches!(op, AtomicOp::And | AtomicOp::Or | AtomicOp::Xor) {
                    return Err(err(
                        errors::TYPE_ERROR,
                        span,
                        format!("`{name}` needs an integer pointer, got a pointer to {}", pointee.name()),
                    ));
                }
                let shape = self.ty(ptr).shape.clone();
                let v = self.tensor_arg(&b.val(1), b.span(1))?;
                if shape.is_empty() && self.ty(v).is_tensor() {
                    return Err(err(
                        errors::SHAPE,
                        b.span(1),
                        "an atomic through a scalar pointer takes a scalar value",
                    ));
                }
                let v = self.cast(v, pointee, b.span(1))?;
                let v = self.broadcast_to(v, &shape, errors::BROADCAST, b.span(1))?;
                let mask = self.mask_arg(b.get(2), ptr, b.span(2))?;
                let sem = self.sem_arg(b.get(3), b.span(3))?;
                if pointee.is_float() && matches!(op, AtomicOp::Max | AtomicOp::Min) {
                    return Ok(Val::T(self.float_atomic_extreme(op, ptr, v, mask, sem, span)?));
                }
                let ty = self.ty(ptr).with_elem(Elem::Scalar(pointee));
                Ok(Val::T(self.emit(OpKind::AtomicRmw { op, ptr, value: v, mask, sem }, ty, span)))
            }
        }
    }

    /// Float `atomic_max`/`atomic_min` as Triton builds them (`semantic.atomic_max`): the
    /// lanes whose value has a clear sign bit run a signed integer max (min) on the bits,
    /// then the others an unsigned min (max); the old values are taken from the one each
    /// lane ran. On the bits that orders -NaN < -inf < -0.0 < +0.0 < +inf < +NaN, and the
    /// non-negative lanes update memory before the negative ones.
    fn float_atomic_extreme(
        &mut self,
        op: AtomicOp,
        ptr: Value,
        v: Value,
        mask: Option<Value>,
        sem: MemSem,
        span: Span,
    ) -> Result<Value> {
        let float = self.ty(v).scalar_type().unwrap_or(ScalarType::F32);
        let (signed, unsigned) = if float == ScalarType::F64 {
            (ScalarType::I64, ScalarType::U64)
        } else {
            (ScalarType::I32, ScalarType::U32)
        };
        let signed_ptr = self.cast_elem(ptr, Elem::Ptr(signed), span)?;
        let unsigned_ptr = self.cast_elem(ptr, Elem::Ptr(unsigned), span)?;
        let signed_bits = self.bitcast(v, Elem::Scalar(signed), span)?;
        let unsigned_bits = self.bitcast(v, Elem::Scalar(unsigned), span)?;
        let negative = self.compare(CmpOp::Lt, &Val::T(signed_bits), &Val::Int(0), span)?;
        let positive = self.unary(ast::UnaryOp::Not, &negative, span)?;
        let lanes = |l: &mut Self, sign: &Val| -> Result<Value> {
            match mask {
                Some(m) => match l.logical(ast::BoolOp::And, &Val::T(m), sign, span)? {
                    Val::T(x) => Ok(x),
                    _ => Err(err(errors::INTERNAL, span, "a mask that is not a value")),
                },
                None => l.tensor_arg(sign, span),
            }
        };
        let (positive_mask, negative_mask) = (lanes(self, &positive)?, lanes(self, &negative)?);
        let (first, second) =
            if op == AtomicOp::Max { (AtomicOp::Max, AtomicOp::Min) } else { (AtomicOp::Min, AtomicOp::Max) };
        let ty = self.ty(signed_bits).clone();
        let old_positive = self.emit(
            OpKind::AtomicRmw { op: first, ptr: signed_ptr, value: signed_bits, mask: Some(positive_mask), sem },
            ty,
            span,
        );
        let ty = self.ty(unsigned_bits).clone();
        let old_negative = self.emit(
            OpKind::AtomicRmw { op: second, ptr: unsigned_ptr, value: unsigned_bits, mask: Some(negative_mask), sem },
            ty,
            span,
        );
        let old_negative = self.cast(old_negative, signed, span)?;
        let old = self.select(&positive, &Val::T(old_positive), &Val::T(old_negative), span)?;
        self.bitcast(old, Elem::Scalar(float), span)
    }
}
