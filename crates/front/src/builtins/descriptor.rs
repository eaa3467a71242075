//! Tensor descriptors (Triton 3.9): `tl.make_tensor_descriptor`, `tensordesc` kernel
//! parameters, `desc.load` / `desc.store` / `desc.atomic_*`, `desc.shape`, `desc.strides`,
//! `desc.block_shape`, `desc.dtype`, and `tl.load_tensor_descriptor` /
//! `tl.store_tensor_descriptor`.
//!
//! As in Triton (`semantic.py`, and the interpreter's `TensorDescHandle`): 1 to 5
//! dimensions; `shape` is `i32`, `strides` `i64` with the last one the constant 1, other
//! compile-time strides 16-byte multiples; the last block dimension covers at least 16
//! bytes; offsets are `i32`. Every dimension is bounds-checked: elements outside the tensor
//! read zero (NaN with `padding_option="nan"`) and are never written. Accesses lower like
//! block pointers' (`block.rs`).

use super::block::{Padding, StridedTensor};
use crate::errors::{self, err, err_label, Result};
use crate::lower::{Args, Lowerer};
use crate::value::{Ns, Val};
use tilec_diagnostics::Span;
use tilec_ir::{AtomicOp, Elem, MemSem, OpKind, ScalarType, Type, Value};

/// A tensor descriptor: a strided tensor read and written a block at a time.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorDesc {
    pub tensor: StridedTensor,
    pub padding: Padding,
}

/// Methods of descriptors.
pub const DESC_METHODS: &[&str] =
    &["load", "store", "atomic_add", "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor"];

impl TensorDesc {
    /// The descriptor of a `tensordesc<ELEM[BLOCK]>` kernel parameter: its base pointer,
    /// shape (`i32`) and leading strides (`i64`; the last stride is 1).
    pub fn from_params(
        base: Value,
        elem: ScalarType,
        shape: &[Value],
        strides: &[Value],
        block: Vec<u32>,
    ) -> TensorDesc {
        let mut stride_vals: Vec<Val> = strides.iter().map(|&s| Val::T(s)).collect();
        stride_vals.push(Val::Int(1));
        let tensor = StridedTensor {
            base,
            elem,
            shape: shape.iter().map(|&s| Val::T(s)).collect(),
            strides: stride_vals,
            block,
        };
        TensorDesc { tensor, padding: Padding::Zero }
    }
}

impl Lowerer<'_> {
    /// `tl.make_tensor_descriptor(base, shape, strides, block_shape, padding_option)`.
    pub(super) fn make_tensor_descriptor(&mut self, args: Args, span: Span) -> Result<Val> {
        let b = args.bind(
            "make_tensor_descriptor",
            &["base", "shape", "strides", "block_shape", "padding_option"],
            4,
            span,
        )?;
        let base = self.scalar_pointer_base(&b, "tl.make_tensor_descriptor")?;
        let Elem::Ptr(elem) = self.ty(base).elem else { unreachable!("checked above") };
        let shape_items = self.list_arg(&b.val(1), None, "shape", b.span(1))?;
        let rank = shape_items.len();
        if !(1..=5).contains(&rank) {
            return Err(err(
                errors::SHAPE,
                b.span(1),
                format!("a tensor descriptor has 1 to 5 dimensions, not {rank}"),
            ));
        }
        let block = self.shape_arg(&b.val(3), b.span(3))?;
        if block.len() != rank {
            return Err(err(
                errors::SHAPE,
                b.span(3),
                format!("`block_shape` has {} dimensions but `shape` has {rank}", block.len()),
            ));
        }
        let bytes = elem.bytes();
        if block[rank - 1] * bytes < 16 {
            return Err(err_label(
                errors::SHAPE,
                b.span(3),
                "the last block dimension of a tensor descriptor must cover at least 16 bytes",
                format!("{} × {bytes} = {} bytes", block[rank - 1], block[rank - 1] * bytes),
            ));
        }
        let mut shape = Vec::new();
        for item in &shape_items {
            // `make_scalar(x, int32)`: an integer scalar of any width is cast to i32
            let wide = self.index_scalar(item, ScalarType::I64, "an item of `shape`", b.span(1))?;
            shape.push(match wide {
                Val::T(x) => Val::T(self.cast(x, ScalarType::I32, span)?),
                constant => self.index_scalar(&constant, ScalarType::I32, "an item of `shape`", b.span(1))?,
            });
        }
        let strides = self.index_list(&b.val(2), Some(rank), ScalarType::I64, "strides", b.span(2))?;
        if strides[rank - 1] != Val::Int(1) {
            return Err(err_label(
                errors::VALUE,
                b.span(2),
                "the last stride of a tensor descriptor must be the constant 1",
                format!("this is {}", super::block_ptr::describe(self, &strides[rank - 1])),
            ));
        }
        for s in &strides[..rank - 1] {
            if let Val::Int(i) = s {
                if (i * bytes as i128) % 16 != 0 {
                    return Err(err(
                        errors::VALUE,
                        b.span(2),
                        format!("tensor descriptor strides must be 16-byte aligned, but got {i} × {bytes} bytes"),
                    ));
                }
            }
        }
        let padding = Padding::parse(&b.val(4), Padding::Zero, b.span(4))?;
        padding.check(elem, b.span(4))?;
        let tensor = StridedTensor { base, elem, shape, strides, block };
        Ok(Val::TensorDesc(Box::new(TensorDesc { tensor, padding })))
    }

    /// `desc.NAME` other than methods.
    pub(crate) fn desc_attribute(&mut self, d: &TensorDesc, attr: &str, span: Span) -> Result<Val> {
        let t = &d.tensor;
        match attr {
            "shape" => Ok(Val::Tuple(t.shape.clone())),
            "strides" => Ok(Val::Tuple(t.strides.clone())),
            "block_shape" => Ok(Val::Tuple(t.block.iter().map(|&n| Val::Int(n as i128)).collect())),
            "dtype" => Ok(Val::DType(t.elem)),
            "block_type" => Ok(Val::BlockType(Elem::Scalar(t.elem), t.block.clone())),
            "gather" | "scatter" => Err(err(
                errors::UNSUPPORTED,
                span,
                format!("`desc.{attr}` (TMA gather/scatter of rows) is not supported by tilec"),
            )),
            _ => match DESC_METHODS.iter().find(|m| **m == attr) {
                Some(m) => Ok(Val::Method(Box::new(Val::TensorDesc(Box::new(d.clone()))), Ns::TensorDesc, m)),
                None => {
                    Err(err(errors::UNKNOWN_ATTRIBUTE, span, format!("tensor descriptors have no attribute `{attr}`")))
                }
            },
        }
    }

    /// `tl.load_tensor_descriptor(desc, offsets)` and `tl.store_tensor_descriptor(desc,
    /// offsets, value)`.
    pub(super) fn descriptor_function(&mut self, name: &str, mut args: Args, span: Span) -> Result<Val> {
        if args.pos.is_empty() {
            let i = args.kw.iter().position(|(k, _, _)| k == "desc");
            if let Some(i) = i {
                let (_, v, s) = args.kw.remove(i);
                args.pos.insert(0, (v, s));
            }
        }
        let Some((desc, desc_span)) = (!args.pos.is_empty()).then(|| args.pos.remove(0)) else {
            return Err(err(errors::ARITY, span, format!("`tl.{name}` is missing the required argument `desc`")));
        };
        let method = if name == "load_tensor_descriptor" { "load" } else { "store" };
        self.desc_method(desc, desc_span, method, args, span)
    }

    /// `desc.load(offsets)`, `desc.store(offsets, value)`, `desc.atomic_*(offsets, value)`.
    pub(super) fn desc_method(
        &mut self,
        recv: Val,
        recv_span: Span,
        name: &str,
        args: Args,
        span: Span,
    ) -> Result<Val> {
        let Val::TensorDesc(d) = recv else {
            return Err(err_label(
                errors::TYPE_ERROR,
                recv_span,
                "expected a tensor descriptor",
                format!("this is {}", super::block_ptr::describe(self, &recv)),
            ));
        };
        let t = &d.tensor;
        let rank = t.block.len();
        let all = vec![true; rank];
        if name == "load" {
            let b = args.bind(name, &["offsets"], 1, span)?;
            let offsets = self.index_list(&b.val(0), Some(rank), ScalarType::I32, "offsets", b.span(0))?;
            let (ptrs, mask) = self.block_access(t, &offsets, &all, span)?;
            return Ok(Val::T(self.block_load(t, ptrs, mask, d.padding, span)?));
        }
        let b = args.bind(name, &["offsets", "value"], 2, span)?;
        let offsets = self.index_list(&b.val(0), Some(rank), ScalarType::I32, "offsets", b.span(0))?;
        if let Val::T(v) = b.val(1) {
            if self.ty(v).shape != t.block {
                return Err(err_label(
                    errors::SHAPE,
                    b.span(1),
                    format!("the value has shape {:?} but the descriptor's block is {:?}", self.ty(v).shape, t.block),
                    "shape does not match the block",
                ));
            }
        }
        let value = self.block_value(t, &b.val(1), "the value", b.span(1))?;
        let (ptr, mask) = self.block_access(t, &offsets, &all, span)?;
        if name == "store" {
            self.f.append_op(self.region, OpKind::Store { ptr, value, mask }, vec![], span);
            return Ok(Val::None);
        }
        let (op, allowed): (AtomicOp, &[ScalarType]) = {
            use ScalarType::*;
            match name {
                "atomic_add" => (AtomicOp::Add, &[U32, I32, U64, F32, F16, BF16]),
                "atomic_min" => (AtomicOp::Min, &[U32, I32, U64, I64]),
                "atomic_max" => (AtomicOp::Max, &[U32, I32, U64, I64]),
                "atomic_and" => (AtomicOp::And, &[U32, I32, U64, I64]),
                "atomic_or" => (AtomicOp::Or, &[U32, I32, U64, I64]),
                _ => (AtomicOp::Xor, &[U32, I32, U64, I64]),
            }
        };
        if !allowed.contains(&t.elem) {
            let names: Vec<&str> = allowed.iter().map(|s| s.name()).collect();
            return Err(err(
                errors::TYPE_ERROR,
                span,
                format!("`desc.{name}` does not support {} elements (it takes {})", t.elem.name(), names.join(", ")),
            ));
        }
        let ty = Type::tensor(Elem::Scalar(t.elem), t.block.clone());
        self.emit(OpKind::AtomicRmw { op, ptr, value, mask, sem: MemSem::AcqRel }, ty, span);
        Ok(Val::None)
    }
}
