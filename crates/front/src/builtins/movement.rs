//! Data movement: `tl.join`, `tl.split`, `tl.interleave`, `tl.cat`, `tl.flip`, `tl.sort`,
//! `tl.topk`, `tl.gather`, `tl.histogram`, `tl.squeeze` and `tl.unsqueeze`.
//!
//! Each is built from existing Tile IR ops and `tt.gather`, with the semantics of Triton
//! 3.9's `semantic.py` / `standard.py`:
//! - `join` selects between its operands broadcast along a new last dim of 2;
//! - `split` and `flip` gather with indices known at compile time (the lowering turns those
//!   into views);
//! - `sort` and `topk` run Triton's bitonic network on the last dim: each compare-and-swap
//!   exchanges partners with a gather and keeps `where((x > y) != (flip ^ is_right), y, x)`,
//!   exactly Triton's formula, so NaN and -0.0 land where Triton puts them; `topk` reduces
//!   with `tl.max`/`tl.min` between merges (widening narrow types as they do);
//! - `histogram` counts with a comparison against every bin and an int32 sum.

use crate::errors::{self, err, err_label, Result};
use crate::lower::{Args, Lowerer};
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_ir::{BinaryOp, CmpPred, Elem, OpKind, ReduceKind, ScalarType, Type, Value};
use tilec_syntax::ast::CmpOp;

/// The direction of one bitonic merge: every block ascending or descending, or blocks
/// alternating with bit `stage` of the position (Triton's `order` 0, 1 and 2).
#[derive(Clone, Copy)]
enum Order {
    Fixed(bool),
    Alternating,
}

impl Lowerer<'_> {
    pub(super) fn movement(&mut self, name: &str, args: Args, span: Span) -> Result<Val> {
        match name {
            "join" => {
                let b = args.bind(name, &["a", "b"], 2, span)?;
                let (x, y) = (self.tensor_arg(&b.val(0), b.span(0))?, self.tensor_arg(&b.val(1), b.span(1))?);
                Ok(Val::T(self.join(x, y, span)?))
            }
            "split" => {
                let b = args.bind(name, &["a"], 1, span)?;
                let x = self.tensor_arg(&b.val(0), b.span(0))?;
                let (lo, hi) = self.split(x, b.span(0), span)?;
                Ok(Val::Tuple(vec![Val::T(lo), Val::T(hi)]))
            }
            "interleave" => {
                let b = args.bind(name, &["a", "b"], 2, span)?;
                let (x, y) = (self.tensor_arg(&b.val(0), b.span(0))?, self.tensor_arg(&b.val(1), b.span(1))?);
                let c = self.join(x, y, span)?;
                let shape = self.ty(c).shape.clone();
                if shape.len() == 1 {
                    return Ok(Val::T(c));
                }
                let mut flat = shape[..shape.len() - 1].to_vec();
                *flat.last_mut().expect("rank >= 2") *= 2;
                Ok(Val::T(self.reshape_to(c, flat, span)))
            }
            "cat" => {
                let b = args.bind(name, &["input", "other", "can_reorder", "dim"], 2, span)?;
                let (x, y) = (self.tensor_arg(&b.val(0), b.span(0))?, self.tensor_arg(&b.val(1), b.span(1))?);
                let can_reorder = self.const_bool(&b.val(2), b.span(2), "`can_reorder`")?;
                Ok(Val::T(self.cat(x, y, can_reorder, b.get(3), b.span(3), span)?))
            }
            "flip" => {
                let b = args.bind(name, &["x", "dim"], 1, span)?;
                let x = self.tensor_arg(&b.val(0), b.span(0))?;
                let rank = self.ty(x).shape.len();
                let dim = match b.get(1) {
                    None => rank as i128 - 1,
                    Some(d) => {
                        let d = self.const_int(d, b.span(1), "`dim`")?;
                        if d < 0 {
                            d + rank as i128
                        } else {
                            d
                        }
                    }
                };
                if dim < 0 || dim >= rank as i128 {
                    return Err(err(errors::STATIC_ASSERT, span, "flip: dim must be None or in [-rank, rank)"));
                }
                Ok(Val::T(self.flip(x, dim as u32, span)?))
            }
            "sort" | "topk" => {
                let (k, dim, descending) = if name == "sort" {
                    let b = args.bind(name, &["x", "dim", "descending"], 1, span)?;
                    let x = self.tensor_arg(&b.val(0), b.span(0))?;
                    let descending = self.const_bool(&b.val(2), b.span(2), "`descending`")?;
                    (None, (x, b.get(1).cloned(), b.span(1)), descending)
                } else {
                    let b = args.bind(name, &["x", "k", "dim", "descending"], 2, span)?;
                    let x = self.tensor_arg(&b.val(0), b.span(0))?;
                    let k = self.const_int(&b.val(1), b.span(1), "`k`")?;
                    let descending = match b.get(3) {
                        None => true,
                        Some(d) => self.const_bool(d, b.span(3), "`descending`")?,
                    };
                    (Some((k, b.span(1))), (x, b.get(2).cloned(), b.span(2)), descending)
                };
                let (x, dim, dim_span) = dim;
                Ok(Val::T(self.sort(x, k, dim.as_ref(), dim_span, descending, span)?))
            }
            "gather" => {
                let b = args.bind(name, &["src", "index", "axis"], 3, span)?;
                let src = self.tensor_arg(&b.val(0), b.span(0))?;
                let index = self.tensor_arg(&b.val(1), b.span(1))?;
                Ok(Val::T(self.gather(src, index, &b.val(2), b.span(2), span)?))
            }
            "histogram" => {
                let b = args.bind(name, &["input", "num_bins", "mask"], 2, span)?;
                let x = self.tensor_arg(&b.val(0), b.span(0))?;
                let bins = self.shape_arg(&b.val(1), b.span(1))?;
                let mask = match b.get(2) {
                    Some(m) => Some(self.tensor_arg(m, b.span(2))?),
                    None => None,
                };
                let [bins] = bins[..] else {
                    return Err(err(errors::TYPE_ERROR, b.span(1), "`num_bins` must be one integer"));
                };
                Ok(Val::T(self.histogram(x, bins, mask, b.span(0), span)?))
            }
            "squeeze" | "unsqueeze" => {
                let b = args.bind(name, &["x", "dim"], 2, span)?;
                let x = self.tensor_arg(&b.val(0), b.span(0))?;
                let mut shape = self.ty(x).shape.clone();
                let rank = shape.len() as i128 + i128::from(name == "unsqueeze");
                let dim = self.const_int(&b.val(1), b.span(1), "`dim`")?;
                if dim < -rank || dim >= rank {
                    return Err(err(errors::STATIC_ASSERT, b.span(1), format!("`dim` {dim} is out of range")));
                }
                let dim = if dim < 0 { dim + rank } else { dim } as usize;
                if name == "unsqueeze" {
                    shape.insert(dim, 1);
                } else if shape[dim] != 1 {
                    return Err(err_label(
                        errors::STATIC_ASSERT,
                        b.span(1),
                        format!("`squeeze` needs dim {dim} to have size 1"),
                        format!("shape {:?}", shape),
                    ));
                } else {
                    shape.remove(dim);
                }
                if shape.is_empty() {
                    return Ok(Val::T(self.first_element(x, span)));
                }
                Ok(Val::T(self.reshape_to(x, shape, span)))
            }
            _ => Err(err(errors::INTERNAL, span, format!("unknown data movement builtin {name}"))),
        }
    }

    /// `x` with shape `shape` (same element count, row-major order kept).
    fn reshape_to(&mut self, x: Value, shape: Vec<u32>, span: Span) -> Value {
        let ty = self.ty(x).clone();
        if ty.shape == shape {
            return x;
        }
        if ty.shape.is_empty() {
            return self.emit(OpKind::Splat(x), ty.with_shape(shape), span);
        }
        self.emit(OpKind::Reshape(x), ty.with_shape(shape), span)
    }

    /// The one element of a one-element tensor as a scalar, bit for bit (a reduction whose
    /// combine keeps the accumulator, so the first element is the result).
    pub(crate) fn first_element(&mut self, x: Value, span: Span) -> Value {
        let ty = self.ty(x).clone();
        if ty.shape.is_empty() {
            return x;
        }
        let flat = self.reshape_to(x, vec![ty.numel() as u32], span);
        let combine = self.f.new_region();
        let scalar = Type { elem: ty.elem, shape: Vec::new() };
        let acc = self.f.add_region_param(combine, scalar.clone(), Some("acc".into()));
        self.f.add_region_param(combine, scalar.clone(), Some("x".into()));
        self.f.append_op(combine, OpKind::Yield(vec![acc]), vec![], span);
        self.emit(OpKind::ReduceCustom { values: vec![flat], axis: 0, combine }, scalar, span)
    }

    /// An i32 tensor of `shape` holding each element's index along `dim`.
    fn position_along(&mut self, shape: &[u32], dim: usize, span: Span) -> Result<Value> {
        let n = shape[dim];
        let i32t = Elem::Scalar(ScalarType::I32);
        if n == 1 {
            return self.constant(Type::tensor(i32t, shape.to_vec()), &Val::Int(0), span);
        }
        let range = self.emit(OpKind::MakeRange { start: 0, end: n as i32 }, Type::tensor(i32t, vec![n]), span);
        let mut v = range;
        for d in 0..shape.len() {
            if d != dim {
                v = self.expand_dims(v, d as u32, span)?;
            }
        }
        self.broadcast_to(v, shape, errors::BROADCAST, span)
    }

    /// An i32 constant tensor of `shape`.
    fn int_tensor(&mut self, shape: &[u32], value: i128, span: Span) -> Result<Value> {
        self.constant(Type::tensor(Elem::Scalar(ScalarType::I32), shape.to_vec()), &Val::Int(value), span)
    }

    fn gather_op(&mut self, src: Value, index: Value, axis: u32, span: Span) -> Value {
        let ty = self.ty(index).with_elem(self.ty(src).elem);
        self.emit(OpKind::Gather { src, index, axis }, ty, span)
    }

    /// `tl.join(a, b)`: the operands (broadcast to one shape) side by side in a new last
    /// dim of 2; two scalars give a tensor of 2.
    fn join(&mut self, a: Value, b: Value, span: Span) -> Result<Value> {
        let (ea, eb) = (self.ty(a).elem, self.ty(b).elem);
        if ea != eb {
            return Err(err(
                errors::TYPE_ERROR,
                span,
                format!("`tl.join` needs two tensors of one dtype, got {} and {}", elem_name(ea), elem_name(eb)),
            ));
        }
        let (a, b) = self.broadcast_pair(a, b, span)?;
        let mut shape = self.ty(a).shape.clone();
        let rank = shape.len() as u32;
        shape.push(2);
        let mut sides = Vec::with_capacity(2);
        for v in [a, b] {
            let widened = self.expand_dims(v, rank, span)?;
            sides.push(self.broadcast_to(widened, &shape, errors::BROADCAST, span)?);
        }
        let position = self.position_along(&shape, rank as usize, span)?;
        let zero = self.int_tensor(&shape, 0, span)?;
        let first = self.emit(
            OpKind::Cmp { pred: CmpPred::Eq, lhs: position, rhs: zero },
            Type::tensor(Elem::Scalar(ScalarType::I1), shape.clone()),
            span,
        );
        Ok(self.emit(
            OpKind::Select { cond: first, on_true: sides[0], on_false: sides[1] },
            self.ty(sides[0]).clone(),
            span,
        ))
    }

    /// `tl.split(a)`: the two halves of a last dim of size 2 (two scalars from a tensor of 2).
    fn split(&mut self, a: Value, a_span: Span, span: Span) -> Result<(Value, Value)> {
        let shape = self.ty(a).shape.clone();
        if shape.last() != Some(&2) {
            return Err(err_label(
                errors::SHAPE,
                a_span,
                format!("`tl.split` needs a last dimension of size 2, got shape {shape:?}"),
                "split along the last dimension",
            ));
        }
        let rank = shape.len();
        let mut picked = shape.clone();
        picked[rank - 1] = 1;
        let mut halves = Vec::with_capacity(2);
        for side in 0..2 {
            let index = self.int_tensor(&picked, side, span)?;
            let half = self.gather_op(a, index, (rank - 1) as u32, span);
            halves.push(if rank == 1 {
                self.first_element(half, span)
            } else {
                self.reshape_to(half, shape[..rank - 1].to_vec(), span)
            });
        }
        Ok((halves[0], halves[1]))
    }

    /// `tl.cat(input, other, can_reorder, dim)`: join, move the new dim before `dim`, merge.
    fn cat(
        &mut self,
        x: Value,
        y: Value,
        can_reorder: bool,
        dim: Option<&Val>,
        dim_span: Span,
        span: Span,
    ) -> Result<Value> {
        let (sx, sy) = (self.ty(x).shape.clone(), self.ty(y).shape.clone());
        if can_reorder && sx.len() != 1 {
            return Err(err(errors::SHAPE, span, format!("`tl.cat` with `can_reorder` needs 1D tensors, got {sx:?}")));
        }
        if sx != sy || sx.is_empty() {
            return Err(err(
                errors::SHAPE,
                span,
                format!("`tl.cat` needs two tensors of one shape, got {sx:?} and {sy:?}"),
            ));
        }
        let rank = sx.len();
        let dim = match dim {
            Some(d) if !can_reorder => self.axis_arg(d, rank, dim_span)? as usize,
            _ => 0,
        };
        let joined = self.join(x, y, span)?;
        let mut order: Vec<u32> = (0..rank as u32).collect();
        order.insert(dim, rank as u32);
        let moved = self.trans(joined, Some(order), span)?;
        let mut shape = sx;
        shape[dim] *= 2;
        Ok(self.reshape_to(moved, shape, span))
    }

    /// `tl.flip(x, dim)`: a gather with the reversed positions along `dim`.
    fn flip(&mut self, x: Value, dim: u32, span: Span) -> Result<Value> {
        let shape = self.ty(x).shape.clone();
        let n = shape[dim as usize];
        if n == 1 {
            return Ok(x);
        }
        let position = self.position_along(&shape, dim as usize, span)?;
        let last = self.int_tensor(&shape, i128::from(n) - 1, span)?;
        let reversed = self.emit_binary(BinaryOp::Sub, last, position, span);
        Ok(self.gather_op(x, reversed, dim, span))
    }

    /// `tl.gather(src, index, axis)`.
    fn gather(&mut self, src: Value, index: Value, axis: &Val, axis_span: Span, span: Span) -> Result<Value> {
        let (ts, ti) = (self.ty(src).clone(), self.ty(index).clone());
        if !ti.scalar_type().is_some_and(|s| s.is_int()) {
            return Err(err(errors::TYPE_ERROR, span, "the index of `tl.gather` must be an integer tensor"));
        }
        if ts.shape.is_empty() || ts.shape.len() != ti.shape.len() {
            return Err(err(
                errors::SHAPE,
                span,
                format!("`tl.gather` needs a source and an index of one rank, got {:?} and {:?}", ts.shape, ti.shape),
            ));
        }
        let axis = self.axis_arg(axis, ts.shape.len(), axis_span)?;
        let mismatch = (0..ts.shape.len()).find(|&d| d != axis as usize && ts.shape[d] != ti.shape[d]);
        if let Some(d) = mismatch {
            return Err(err_label(
                errors::SHAPE,
                span,
                format!("index dim {d} must match the corresponding source dim ({:?} and {:?})", ti.shape, ts.shape),
                "only the gathered axis may differ",
            ));
        }
        let index =
            if ti.scalar_type() == Some(ScalarType::I1) { self.cast(index, ScalarType::I32, span)? } else { index };
        Ok(self.gather_op(src, index, axis, span))
    }

    /// `tl.histogram(input, num_bins, mask)`: int32 counts of the (unmasked) values equal to
    /// each bin `0 .. num_bins`; other values are not counted.
    fn histogram(&mut self, x: Value, bins: u32, mask: Option<Value>, x_span: Span, span: Span) -> Result<Value> {
        let ty = self.ty(x).clone();
        if ty.shape.len() != 1 {
            return Err(err(
                errors::SHAPE,
                x_span,
                format!("`tl.histogram` needs a 1D input, got shape {:?}", ty.shape),
            ));
        }
        let st = ty.scalar_type().filter(|s| s.is_int() && !s.is_bool() && s.bits() == 32).ok_or_else(|| {
            err(
                errors::TYPE_ERROR,
                x_span,
                format!("`tl.histogram` only supports 32-bit integer input, got {}", elem_name(ty.elem)),
            )
        })?;
        let n = ty.shape[0];
        let grid = vec![n, bins];
        let values = self.expand_dims(x, 1, span)?;
        let values = self.broadcast_to(values, &grid, errors::BROADCAST, span)?;
        let bin = self.position_along(&grid, 1, span)?;
        let bin = self.cast(bin, st, span)?;
        let bool_grid = Type::tensor(Elem::Scalar(ScalarType::I1), grid.clone());
        let mut hit = self.emit(OpKind::Cmp { pred: CmpPred::Eq, lhs: values, rhs: bin }, bool_grid.clone(), span);
        if let Some(m) = mask {
            if self.ty(m).scalar_type() != Some(ScalarType::I1) {
                return Err(err(errors::TYPE_ERROR, span, "the mask of `tl.histogram` must be boolean"));
            }
            let m = self.broadcast_to(m, &[n], errors::BROADCAST, span)?;
            let m = self.expand_dims(m, 1, span)?;
            let m = self.broadcast_to(m, &grid, errors::BROADCAST, span)?;
            hit = self.emit(OpKind::Binary { op: BinaryOp::And, lhs: hit, rhs: m }, bool_grid, span);
        }
        let ones = self.cast(hit, ScalarType::I32, span)?;
        let counts = Type::tensor(Elem::Scalar(ScalarType::I32), vec![bins]);
        Ok(self.emit(OpKind::Reduce { kind: ReduceKind::Sum, value: ones, axis: 0 }, counts, span))
    }

    /// `tl.sort(x, dim, descending)` (`k` = None) and `tl.topk(x, k, dim, descending)`:
    /// Triton's `sort_impl` on the last dim.
    fn sort(
        &mut self,
        x: Value,
        k: Option<(i128, Span)>,
        dim: Option<&Val>,
        dim_span: Span,
        descending: bool,
        span: Span,
    ) -> Result<Value> {
        let shape = self.ty(x).shape.clone();
        if shape.is_empty() {
            return Err(err(errors::SHAPE, span, "`tl.sort` and `tl.topk` need a tensor"));
        }
        if self.ty(x).scalar_type().is_none() {
            return Err(err(errors::TYPE_ERROR, span, "`tl.sort` and `tl.topk` are not defined on pointers"));
        }
        let last = shape.len() - 1;
        if let Some(d) = dim {
            if self.const_int(d, dim_span, "`dim`")? != last as i128 {
                return Err(err_label(
                    errors::STATIC_ASSERT,
                    dim_span,
                    "only minor dimension is currently supported",
                    format!("the minor dimension of this tensor is {last}"),
                ));
            }
        }
        let log_n = shape[last].trailing_zeros();
        let log_k = match k {
            None => log_n,
            Some((k, k_span)) => {
                if k <= 0 || k & (k - 1) != 0 || k > i128::from(shape[last]) {
                    return Err(err(
                        errors::STATIC_ASSERT,
                        k_span,
                        format!("topk: k must be a positive power of two no larger than {}, got {k}", shape[last]),
                    ));
                }
                k.trailing_zeros()
            }
        };
        if log_k == 0 {
            return self.extreme(x, last, descending, true, span);
        }
        let mut h = x;
        for i in 1..=log_k {
            let order = if i < log_n { Order::Alternating } else { Order::Fixed(descending) };
            h = self.bitonic_merge(h, i, order, span)?;
        }
        for i in log_k + 1..=log_n {
            // Reduce the pairs at distance k (bit log_k of the position), then merge again.
            let cur = self.ty(h).shape.clone();
            let n = cur[last];
            let mut blocks = cur[..last].to_vec();
            blocks.extend([n >> (log_k + 1), 2, 1 << log_k]);
            let grouped = self.reshape_to(h, blocks, span);
            h = self.extreme(grouped, last + 1, descending, false, span)?;
            let mut halved = cur[..last].to_vec();
            halved.push(n / 2);
            h = self.reshape_to(h, halved, span);
            let order = if i < log_n { Order::Alternating } else { Order::Fixed(descending) };
            h = self.bitonic_merge(h, log_k, order, span)?;
        }
        Ok(h)
    }

    /// `tl.max(x, axis, keep_dims)` (or `tl.min` when not `largest`), with the widening of
    /// narrow types that Triton's `max`/`min` apply.
    fn extreme(&mut self, x: Value, axis: usize, largest: bool, keep_dims: bool, span: Span) -> Result<Value> {
        let args = Args {
            pos: vec![(Val::T(x), span), (Val::Int(axis as i128), span)],
            kw: vec![("keep_dims".into(), Val::Bool(keep_dims), span)],
        };
        let r = self.reduction(if largest { "max" } else { "min" }, args, span)?;
        self.tensor_value(&r, span)
    }

    /// Triton's `_bitonic_merge_hypercube(x, stage, order)` on the last dim: compare-and-swap
    /// at distances `2^(stage-1)`, ..., 2, 1.
    fn bitonic_merge(&mut self, x: Value, stage: u32, order: Order, span: Span) -> Result<Value> {
        let mut x = x;
        for s in (0..stage).rev() {
            x = self.compare_and_swap(x, stage, s, order, span)?;
        }
        Ok(x)
    }

    /// Triton's `_compare_and_swap` at distance `m = 2^s` along the last dim: the element at
    /// position `j` and its partner `j ^ m` are ordered by `where((x > y) != (flip ^
    /// is_right), y, x)`, where `is_right` is bit `s` of `j` and `flip` the merge direction
    /// (bit `stage` of `j` when alternating). Computed on the last dim seen as `[n/2m, 2, m]`
    /// so the partner is the other entry of the middle dim.
    fn compare_and_swap(&mut self, x: Value, stage: u32, s: u32, order: Order, span: Span) -> Result<Value> {
        let shape = self.ty(x).shape.clone();
        let last = shape.len() - 1;
        let (n, m) = (shape[last], 1u32 << s);
        let mut view = shape[..last].to_vec();
        view.extend([n / (2 * m), 2]);
        if m > 1 {
            view.push(m);
        }
        let pair = last + 1;
        let xr = self.reshape_to(x, view.clone(), span);
        let side = self.position_along(&view, pair, span)?;
        let one = self.int_tensor(&view, 1, span)?;
        let other = self.emit_binary(BinaryOp::Sub, one, side, span);
        let y = self.gather_op(xr, other, pair as u32, span);
        let flip = match order {
            Order::Fixed(descending) => self.int_tensor(&view, i128::from(descending), span)?,
            Order::Alternating => {
                // Bit `stage` of j = a·2m + b·m + c is bit `stage - s - 1` of the block a.
                let block = self.position_along(&view, last, span)?;
                let shift = self.int_tensor(&view, i128::from(stage - s - 1), span)?;
                let shifted = self.emit_binary(BinaryOp::Shr, block, shift, span);
                let one = self.int_tensor(&view, 1, span)?;
                self.emit_binary(BinaryOp::And, shifted, one, span)
            }
        };
        let swapped_side = self.emit_binary(BinaryOp::Xor, flip, side, span);
        let bool_view = Type::tensor(Elem::Scalar(ScalarType::I1), view.clone());
        let zero = self.int_tensor(&view, 0, span)?;
        let wants_larger =
            self.emit(OpKind::Cmp { pred: CmpPred::Ne, lhs: swapped_side, rhs: zero }, bool_view.clone(), span);
        let greater = self.compare(CmpOp::Gt, &Val::T(xr), &Val::T(y), span)?;
        let greater = self.tensor_value(&greater, span)?;
        let take_other = self.emit(OpKind::Cmp { pred: CmpPred::Ne, lhs: greater, rhs: wants_larger }, bool_view, span);
        let ty = self.ty(xr).clone();
        let r = self.emit(OpKind::Select { cond: take_other, on_true: y, on_false: xr }, ty, span);
        Ok(self.reshape_to(r, shape, span))
    }
}

fn elem_name(e: Elem) -> String {
    crate::ops::type_name(&Type { elem: e, shape: Vec::new() })
}
