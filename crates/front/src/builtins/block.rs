//! Blocks of strided tensors in memory: what block pointers (`block_ptr.rs`) and tensor
//! descriptors (`descriptor.rs`) have in common, and how their accesses lower.
//!
//! Neither is a new kind of IR value or memory op. The front end keeps them as compile-time
//! structures around runtime scalars (base pointer, shape, strides, offsets), and each
//! load or store becomes an ordinary pointer tile with a mask:
//!
//! ```text
//! ptrs = base + Σ_d (offset_d + arange(block_d)) · stride_d      (i64, broadcast over the block)
//! mask = ∧_{checked d} 0 <= offset_d + arange(block_d) < shape_d
//! ```
//!
//! so everything downstream (the optimizer folding `>= 0` from integer ranges, the axis
//! analysis finding a unit-stride last dimension when its stride is the constant 1, the RVV
//! unit-stride and strided streams, prefix masks) applies unchanged. A dedicated IR op
//! would have to re-teach each of those stages the same address arithmetic.

use crate::errors::{self, err, err_label, Result};
use crate::lower::Lowerer;
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_ir::{Constant, Elem, OpKind, ScalarType, Type, Value};
use tilec_syntax::ast::{BinOp, CmpOp};

/// A tensor in global memory seen through blocks of a fixed shape.
#[derive(Clone, Debug, PartialEq)]
pub struct StridedTensor {
    /// Scalar pointer to element `[0, 0, ...]`.
    pub base: Value,
    /// The element type (`i1` tensors are addressed as `i8`, as Triton does).
    pub elem: ScalarType,
    /// Extent of each dimension: a compile-time int or a runtime integer scalar.
    pub shape: Vec<Val>,
    /// Distance in elements between neighbours along each dimension (ints or scalars).
    pub strides: Vec<Val>,
    /// The block shape: every dimension a power of two.
    pub block: Vec<u32>,
}

/// What a load returns for elements outside the tensor (`padding_option`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    Zero,
    Nan,
}

impl Padding {
    /// `"zero"`, `"nan"`; `""` and `None` are `default`.
    pub fn parse(v: &Val, default: Padding, span: Span) -> Result<Padding> {
        match v {
            Val::None => Ok(default),
            Val::Str(s) if s.is_empty() => Ok(default),
            Val::Str(s) if s == "zero" => Ok(Padding::Zero),
            Val::Str(s) if s == "nan" => Ok(Padding::Nan),
            other => Err(err_label(
                errors::VALUE,
                span,
                format!("unknown padding option {}", other.describe()),
                "expected \"zero\" or \"nan\"",
            )),
        }
    }

    /// Checks that the padding suits elements of type `elem` (no NaN for integers).
    pub fn check(self, elem: ScalarType, span: Span) -> Result<()> {
        if self == Padding::Nan && !elem.is_float() {
            return Err(err(
                errors::TYPE_ERROR,
                span,
                format!("padding option \"nan\" is not supported for {} blocks (integers have no NaN)", elem.name()),
            ));
        }
        Ok(())
    }
}

impl Lowerer<'_> {
    /// A list argument (`(M, K)`, `[M, K]` or a single value) of `n` items, when `n` is given.
    pub(super) fn list_arg(&self, v: &Val, n: Option<usize>, what: &str, span: Span) -> Result<Vec<Val>> {
        let items = match v {
            Val::Tuple(items) => items.clone(),
            other => vec![other.clone()],
        };
        if let Some(n) = n {
            if items.len() != n {
                return Err(err_label(
                    errors::SHAPE,
                    span,
                    format!(
                        "`{what}` has {} item{}, expected {n}",
                        items.len(),
                        if items.len() == 1 { "" } else { "s" }
                    ),
                    format!("the block has {n} dimension{}", if n == 1 { "" } else { "s" }),
                ));
            }
        }
        Ok(items)
    }

    /// An integer of a shape, stride or offset list as Triton converts it
    /// (`_convert_elem_to_ir_value`): a compile-time int stays one (checked against the
    /// range of `ty`); a runtime scalar integer is cast to `ty` (`i64`), or must already
    /// fit it (`i32`: an `i64` offset is refused, as Triton does).
    pub(super) fn index_scalar(&mut self, v: &Val, ty: ScalarType, what: &str, span: Span) -> Result<Val> {
        match v {
            Val::Int(_) | Val::Bool(_) => {
                let i = self.const_int(v, span, what)?;
                let fits = if ty == ScalarType::I64 { i64::try_from(i).is_ok() } else { i32::try_from(i).is_ok() };
                if !fits {
                    return Err(err(errors::VALUE, span, format!("{what} {i} does not fit in {}", ty.name())));
                }
                Ok(Val::Int(i))
            }
            Val::T(x) => {
                let t = self.ty(*x).clone();
                let Some(s) = t.scalar_type().filter(|s| s.is_int() && !t.is_tensor() && t.numel() == 1) else {
                    return Err(err_label(
                        errors::TYPE_ERROR,
                        span,
                        format!("{what} must be an integer scalar"),
                        format!("this is {}", crate::ops::type_name(&t)),
                    ));
                };
                if ty == ScalarType::I32 && s.bits() > 32 {
                    return Err(err_label(
                        errors::TYPE_ERROR,
                        span,
                        format!("{what} must be a 32-bit integer, got {}", s.name()),
                        "add `.to(tl.int32)`",
                    ));
                }
                let x = if s == ScalarType::I1 { self.cast(*x, ScalarType::I32, span)? } else { *x };
                Ok(Val::T(self.cast(x, ty, span)?))
            }
            other => Err(err_label(
                errors::TYPE_ERROR,
                span,
                format!("{what} must be an integer"),
                format!("this is {}", other.describe()),
            )),
        }
    }

    /// The list `v` of `n` integers converted with [`Lowerer::index_scalar`].
    pub(super) fn index_list(
        &mut self,
        v: &Val,
        n: Option<usize>,
        ty: ScalarType,
        what: &str,
        span: Span,
    ) -> Result<Vec<Val>> {
        let items = self.list_arg(v, n, what, span)?;
        items.iter().map(|x| self.index_scalar(x, ty, &format!("an item of `{what}`"), span)).collect()
    }

    /// The pointer tile of the block of `t` at `offsets` and, when some dimension is
    /// checked, the mask of the elements inside the tensor.
    pub(super) fn block_access(
        &mut self,
        t: &StridedTensor,
        offsets: &[Val],
        checked: &[bool],
        span: Span,
    ) -> Result<(Value, Option<Value>)> {
        let rank = t.block.len();
        let mut address: Option<Val> = None;
        let mut mask: Option<Val> = None;
        for d in 0..rank {
            // offset_d + arange(block_d) in i64, shaped [1, .., block_d, .., 1]
            let range_ty = Type::tensor(Elem::Scalar(ScalarType::I32), vec![t.block[d]]);
            let range = self.emit(OpKind::MakeRange { start: 0, end: t.block[d] as i32 }, range_ty, span);
            let range = self.cast(range, ScalarType::I64, span)?;
            let offset = match &offsets[d] {
                Val::T(o) => Val::T(self.cast(*o, ScalarType::I64, span)?),
                other => other.clone(),
            };
            let index = self.binary(BinOp::Add, &Val::T(range), &offset, span)?;
            let term = match &t.strides[d] {
                Val::Int(1) => index.clone(),
                stride => self.binary(BinOp::Mul, &index, stride, span)?,
            };
            let term = self.expand_to_rank(&term, d, rank, span)?;
            address = Some(match address {
                None => term,
                Some(a) => self.binary(BinOp::Add, &a, &term, span)?,
            });
            if checked[d] {
                let low = self.compare(CmpOp::GtE, &index, &Val::Int(0), span)?;
                let high = self.compare(CmpOp::Lt, &index, &t.shape[d], span)?;
                let inside = self.binary(BinOp::BitAnd, &low, &high, span)?;
                let inside = self.expand_to_rank(&inside, d, rank, span)?;
                mask = Some(match mask {
                    None => inside,
                    Some(m) => self.binary(BinOp::BitAnd, &m, &inside, span)?,
                });
            }
        }
        let address = self.tensor_value(&address.unwrap_or(Val::Int(0)), span)?;
        let address = self.broadcast_to(address, &t.block, errors::BROADCAST, span)?;
        let base = self.emit(OpKind::Splat(t.base), Type::tensor(Elem::Ptr(t.elem), t.block.clone()), span);
        let ptrs = self.addptr(base, address, span)?;
        let mask = match mask {
            Some(m) => {
                let m = self.tensor_value(&m, span)?;
                Some(self.broadcast_to(m, &t.block, errors::BROADCAST, span)?)
            }
            None => None,
        };
        Ok((ptrs, mask))
    }

    /// A rank-1 tile along dimension `d` reshaped to rank `rank` (size 1 elsewhere).
    fn expand_to_rank(&mut self, v: &Val, d: usize, rank: usize, span: Span) -> Result<Val> {
        let mut x = self.tensor_value(v, span)?;
        for axis in 0..rank {
            if axis != d {
                x = self.expand_dims(x, axis as u32, span)?;
            }
        }
        Ok(Val::T(x))
    }

    /// Loads the block at `ptrs`; elements outside `mask` read `padding`.
    pub(super) fn block_load(
        &mut self,
        t: &StridedTensor,
        ptrs: Value,
        mask: Option<Value>,
        padding: Padding,
        span: Span,
    ) -> Result<Value> {
        let ty = Type::tensor(Elem::Scalar(t.elem), t.block.clone());
        let other = match mask {
            Some(_) if t.elem.is_fp8() => {
                let value = if padding == Padding::Nan { Val::Float(f64::NAN) } else { Val::Float(0.0) };
                Some(self.constant(ty.clone(), &value, span)?)
            }
            Some(_) => {
                let c = match padding {
                    Padding::Zero if t.elem.is_float() => Constant::Float(0.0),
                    Padding::Zero => Constant::Int(0),
                    Padding::Nan => Constant::Float(f64::NAN),
                };
                Some(self.emit(OpKind::Constant(c), ty.clone(), span))
            }
            None => None,
        };
        Ok(self.emit(OpKind::Load { ptr: ptrs, mask, other }, ty, span))
    }

    /// Converts `v` to a block of `t`: a scalar is broadcast; a tensor must have the block's
    /// shape; the elements are cast to the tensor's type.
    pub(super) fn block_value(&mut self, t: &StridedTensor, v: &Val, what: &str, span: Span) -> Result<Value> {
        let x = self.tensor_arg(v, span)?;
        let shape = self.ty(x).shape.clone();
        if !shape.is_empty() && shape != t.block {
            return Err(err_label(
                errors::SHAPE,
                span,
                format!("{what} has shape {shape:?} but the block has shape {:?}", t.block),
                "shape does not match the block",
            ));
        }
        let x = self.broadcast_to(x, &t.block, errors::BROADCAST, span)?;
        self.cast(x, t.elem, span)
    }
}
