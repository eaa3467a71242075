//! Block pointers: `tl.make_block_ptr`, `tl.advance` (and `.advance`), and `tl.load` /
//! `tl.store` through them with `boundary_check` and `padding_option`.
//!
//! Semantics of Triton 3.x before block pointers were removed (3.9 raises on
//! `make_block_ptr`; triton-cpu and tutorial 08-experimental-block-pointer use them):
//! `shape` and `strides` are `i64`, `offsets` `i32`, `block_shape` compile-time powers of
//! two, `order` a permutation (layout advice only: it changes no value). A load checks only
//! the dimensions listed in `boundary_check`, and elements outside the tensor along them read
//! `padding_option` (zero by default, `"nan"` for floats); a store skips them. `mask` and
//! `other` are refused, as in Triton. A block pointer of `int1` addresses `int8`.

use super::block::{Padding, StridedTensor};
use crate::errors::{self, err, err_label, Result};
use crate::lower::{Bound, Lowerer};
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_ir::{Elem, OpKind, ScalarType};
use tilec_syntax::ast::BinOp;

/// A block pointer: a block of `tensor` at `offsets` (one `i32` per dimension).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockPtr {
    pub tensor: StridedTensor,
    pub offsets: Vec<Val>,
    /// The dimension order from fastest to slowest varying (kept for `order`'s checks only).
    pub order: Vec<u32>,
}

impl Lowerer<'_> {
    /// `tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)`.
    pub(super) fn make_block_ptr(&mut self, b: &Bound, span: Span) -> Result<Val> {
        let base = self.scalar_pointer_base(b, "tl.make_block_ptr")?;
        let block = self.shape_arg(&b.val(4), b.span(4))?;
        let rank = block.len();
        let shape = self.index_list(&b.val(1), Some(rank), ScalarType::I64, "shape", b.span(1))?;
        let strides = self.index_list(&b.val(2), Some(rank), ScalarType::I64, "strides", b.span(2))?;
        let offsets = self.index_list(&b.val(3), Some(rank), ScalarType::I32, "offsets", b.span(3))?;
        let order = self.list_arg(&b.val(5), Some(rank), "order", b.span(5))?;
        let order =
            order.iter().map(|o| self.const_int(o, b.span(5), "an item of `order`")).collect::<Result<Vec<_>>>()?;
        let mut sorted = order.clone();
        sorted.sort_unstable();
        if sorted != (0..rank as i128).collect::<Vec<_>>() {
            return Err(err_label(
                errors::VALUE,
                b.span(5),
                format!("`order` must be a permutation of 0..{rank}"),
                format!("this is {order:?}"),
            ));
        }
        let order = order.into_iter().map(|i| i as u32).collect();
        let Elem::Ptr(mut elem) = self.ty(base).elem else { unreachable!("checked above") };
        let mut base = base;
        if elem == ScalarType::I1 {
            elem = ScalarType::I8;
            base = self.cast_elem(base, Elem::Ptr(elem), span)?;
        }
        let tensor = StridedTensor { base, elem, shape, strides, block };
        Ok(Val::BlockPtr(Box::new(BlockPtr { tensor, offsets, order })))
    }

    /// `tl.advance(ptr, offsets)`: the same block pointer with `offsets` added.
    pub(super) fn advance(&mut self, b: &Bound, span: Span) -> Result<Val> {
        let Val::BlockPtr(p) = b.val(0) else {
            return Err(err_label(
                errors::NOT_POINTER,
                b.span(0),
                "`tl.advance` needs a block pointer (from `tl.make_block_ptr`)",
                format!("this is {}", describe(self, &b.val(0))),
            ));
        };
        let rank = p.tensor.block.len();
        let by = self.index_list(&b.val(1), Some(rank), ScalarType::I32, "offsets", b.span(1))?;
        let mut moved = p.clone();
        for (o, d) in moved.offsets.iter_mut().zip(&by) {
            let sum = self.binary(BinOp::Add, o, d, span)?;
            *o = self.index_scalar(&sum, ScalarType::I32, "an offset", span)?;
        }
        Ok(Val::BlockPtr(moved))
    }

    /// The checked dimensions of `boundary_check` (a dimension or a list of them).
    fn boundary_check(&self, v: &Val, rank: usize, span: Span) -> Result<Vec<bool>> {
        let mut checked = vec![false; rank];
        let dims = match v {
            Val::None => return Ok(checked),
            Val::Tuple(items) => items.clone(),
            other => vec![other.clone()],
        };
        for d in dims {
            let i = self.const_int(&d, span, "a dimension of `boundary_check`")?;
            if i < 0 || i >= rank as i128 {
                return Err(err(
                    errors::SHAPE,
                    span,
                    format!("`boundary_check` dimension {i} is out of range for a block of rank {rank}"),
                ));
            }
            if checked[i as usize] {
                return Err(err(errors::VALUE, span, format!("dimension {i} appears twice in `boundary_check`")));
            }
            checked[i as usize] = true;
        }
        Ok(checked)
    }

    /// `tl.load(block_ptr, ...)`: the arguments bound as `tl.load`'s.
    pub(super) fn load_block_ptr(&mut self, p: &BlockPtr, b: &Bound, span: Span) -> Result<Val> {
        if b.get(1).is_some() || b.get(2).is_some() {
            return Err(err(
                errors::UNSUPPORTED,
                b.span(if b.get(1).is_some() { 1 } else { 2 }),
                "`mask` and `other` cannot be given when loading through a block pointer",
            )
            .with_note("use `boundary_check` and `padding_option`"));
        }
        let checked = self.boundary_check(&b.val(3), p.tensor.block.len(), b.span(3))?;
        let padding = Padding::parse(&b.val(4), Padding::Zero, b.span(4))?;
        padding.check(p.tensor.elem, b.span(4))?;
        let (ptrs, mask) = self.block_access(&p.tensor, &p.offsets, &checked, span)?;
        Ok(Val::T(self.block_load(&p.tensor, ptrs, mask, padding, span)?))
    }

    /// `tl.store(block_ptr, value, ...)`: the arguments bound as `tl.store`'s.
    pub(super) fn store_block_ptr(&mut self, p: &BlockPtr, b: &Bound, span: Span) -> Result<Val> {
        if b.get(2).is_some() {
            return Err(err(
                errors::UNSUPPORTED,
                b.span(2),
                "`mask` cannot be given when storing through a block pointer",
            )
            .with_note("use `boundary_check`"));
        }
        if let Val::T(v) = b.val(1) {
            let s = self.ty(v).scalar_type();
            if self.ty(v).is_tensor() && s != Some(p.tensor.elem) {
                return Err(err_label(
                    errors::TYPE_ERROR,
                    b.span(1),
                    format!(
                        "the value's elements are {} but the block pointer's are {}",
                        s.map_or("pointers", |s| s.name()),
                        p.tensor.elem.name()
                    ),
                    "convert it with `.to(...)` first",
                ));
            }
        }
        let value = self.block_value(&p.tensor, &b.val(1), "the stored value", b.span(1))?;
        let checked = self.boundary_check(&b.val(3), p.tensor.block.len(), b.span(3))?;
        let (ptr, mask) = self.block_access(&p.tensor, &p.offsets, &checked, span)?;
        self.f.append_op(self.region, OpKind::Store { ptr, value, mask }, vec![], span);
        Ok(Val::None)
    }
}

impl Lowerer<'_> {
    /// Refuses `boundary_check` / `padding_option` (arguments `indices` of a bound `tl.load`
    /// or `tl.store`) on an ordinary pointer, as Triton does: only a block pointer knows the
    /// tensor's bounds.
    pub(super) fn no_boundary_check(&self, b: &Bound, indices: &[usize]) -> Result<()> {
        for &i in indices {
            let given = match b.get(i) {
                None => false,
                Some(Val::Str(s)) => !s.is_empty(),
                Some(Val::Tuple(items)) => !items.is_empty(),
                Some(_) => true,
            };
            if given {
                return Err(err(
                    errors::UNSUPPORTED,
                    b.span(i),
                    "`boundary_check` and `padding_option` need a block pointer (from `tl.make_block_ptr`)",
                )
                .with_note("the compiler does not know the bounds of a tensor of pointers; use `mask` and `other`"));
            }
        }
        Ok(())
    }
}

/// A description of `v` for messages (the type of a runtime value).
impl Lowerer<'_> {
    /// Argument 0 of `b` (`base` of `callee`) as a scalar pointer, or a diagnostic.
    pub(super) fn scalar_pointer_base(&self, b: &Bound, callee: &str) -> Result<tilec_ir::Value> {
        match b.val(0) {
            Val::T(p) if !self.ty(p).is_tensor() && matches!(self.ty(p).elem, Elem::Ptr(_)) => Ok(p),
            other => Err(err_label(
                errors::NOT_POINTER,
                b.span(0),
                format!("`base` of `{callee}` must be a scalar pointer"),
                format!("this is {}", describe(self, &other)),
            )),
        }
    }
}

pub(super) fn describe(l: &Lowerer<'_>, v: &Val) -> String {
    match v {
        Val::T(x) => crate::ops::type_name(l.ty(*x)),
        other => other.describe(),
    }
}
