//! The `tl.*`, `libdevice.*`, `triton.*`, Python built-ins and tensor/dtype methods.
//!
//! One dispatcher ([`Lowerer::call_builtin`]) binds arguments with the parameter names of
//! Triton's own signatures (so unknown keywords and wrong arity are diagnosed uniformly)
//! and hands over to the family modules.

mod assume;
mod block;
mod block_ptr;
mod compose;
mod creation;
mod debug;
mod descriptor;
mod fp8;
pub(crate) mod libdevice;
mod math;
mod memory;
mod movement;
mod python;
mod reduce;
mod rounding;
mod shape;
mod special;
mod types;

pub use block_ptr::BlockPtr;
pub use descriptor::{TensorDesc, DESC_METHODS};
pub use types::{dtype_property, CLASSES};

use crate::errors::{self, err, err_label, Result};
use crate::lower::{Args, Lowerer};
use crate::value::{FuncRef, ModuleId, Ns, Val};
use tilec_diagnostics::Span;
use tilec_ir::{Elem, Value};

impl Lowerer<'_> {
    pub fn call_builtin(
        &mut self,
        ns: Ns,
        name: &'static str,
        recv: Option<Val>,
        mut args: Args,
        span: Span,
    ) -> Result<Val> {
        if let Some(r) = recv {
            match ns {
                Ns::DType => return self.dtype_method(r, name, args, span),
                Ns::TensorDesc => return self.desc_method(r, span, name, args, span),
                _ => {}
            }
            args.pos.insert(0, (r, span));
        }
        match ns {
            Ns::Py => self.python_builtin(name, args, span),
            Ns::Triton => self.triton_builtin(name, args, span),
            Ns::Libdevice => self.libdevice(libdevice::Flavor::Cpu, name, args, span),
            Ns::CudaLibdevice => self.libdevice(libdevice::Flavor::Cuda, name, args, span),
            Ns::DType | Ns::TensorDesc => Err(err(errors::INTERNAL, span, "method without receiver")),
            Ns::BlockPtr => self.tl_builtin(name, args, span),
            Ns::Tensor => match name {
                "to" => self.tensor_to(args, span),
                "sigmoid" | "softmax" => self.call_prelude(name, args, span),
                "logical_and" | "logical_or" => {
                    let b = args.bind(name, &["input", "other"], 2, span)?;
                    let op = if name == "logical_and" {
                        tilec_syntax::ast::BoolOp::And
                    } else {
                        tilec_syntax::ast::BoolOp::Or
                    };
                    self.logical(op, &b.val(0), &b.val(1), span)
                }
                _ => self.tl_builtin(name, args, span),
            },
            Ns::Tl => self.tl_builtin(name, args, span),
        }
    }

    fn tl_builtin(&mut self, name: &'static str, args: Args, span: Span) -> Result<Val> {
        match name {
            "program_id" | "num_programs" | "arange" | "zeros" | "zeros_like" | "full" | "to_tensor" | "constexpr"
            | "cast" | "item" | "pointer_type" => self.creation(name, args, span),
            "load" | "store" | "atomic_add" | "atomic_max" | "atomic_min" | "atomic_xchg" | "atomic_cas"
            | "atomic_and" | "atomic_or" | "atomic_xor" => self.memory(name, args, span),
            "sum" | "max" | "min" | "argmax" | "argmin" | "xor_sum" | "reduce" | "cumsum" | "cumprod"
            | "associative_scan" => self.reduction(name, args, span),
            "dot" | "trans" | "permute" | "reshape" | "view" | "broadcast_to" | "broadcast" | "expand_dims"
            | "ravel" => self.shape_op(name, args, span),
            "join" | "split" | "interleave" | "cat" | "flip" | "sort" | "topk" | "gather" | "histogram" | "squeeze"
            | "unsqueeze" => self.movement(name, args, span),
            "multiple_of" | "max_contiguous" | "max_constancy" | "device_assert" | "device_print" | "static_assert"
            | "static_print" | "debug_barrier" => self.debug_op(name, args, span),
            "assume" => self.assume(args, span),
            "make_block_ptr" => {
                let params = ["base", "shape", "strides", "offsets", "block_shape", "order"];
                let b = args.bind(name, &params, 6, span)?;
                self.make_block_ptr(&b, span)
            }
            "advance" => {
                let b = args.bind(name, &["base", "offsets"], 2, span)?;
                self.advance(&b, span)
            }
            "make_tensor_descriptor" => self.make_tensor_descriptor(args, span),
            "load_tensor_descriptor" | "store_tensor_descriptor" => self.descriptor_function(name, args, span),
            "range" | "static_range" => {
                Err(err(errors::UNSUPPORTED, span, "ranges can only be used as the iterable of a `for` loop"))
            }
            _ => self.tl_math(name, args, span),
        }
    }

    /// Calls a function of the built-in Triton-source library by name.
    pub fn call_prelude(&mut self, name: &str, args: Args, span: Span) -> Result<Val> {
        let (library, index) = crate::prelude::function(name)?
            .ok_or_else(|| err(errors::INTERNAL, span, format!("built-in library function `{name}` is missing")))?;
        self.call_jit(FuncRef { module: ModuleId::Prelude(library), index }, args, span)
    }

    /// A compile-time integer argument.
    pub fn const_int(&self, v: &Val, span: Span, what: &str) -> Result<i128> {
        match &self.compile_time(v) {
            Val::Int(i) => Ok(*i),
            Val::Bool(b) => Ok(*b as i128),
            other => Err(err_label(
                errors::NOT_CONSTEXPR,
                span,
                format!("{what} must be a compile-time integer (`tl.constexpr`)"),
                format!(
                    "this is {}",
                    if matches!(other, Val::T(_)) { "a runtime value".to_string() } else { other.describe() }
                ),
            )),
        }
    }

    /// A compile-time bool argument (`keep_dims=True`).
    pub fn const_bool(&self, v: &Val, span: Span, what: &str) -> Result<bool> {
        match v {
            Val::None => Ok(false),
            v => self
                .const_truth(&self.compile_time(v))
                .ok_or_else(|| err(errors::NOT_CONSTEXPR, span, format!("{what} must be a compile-time value"))),
        }
    }

    /// A block shape: an int or a tuple of ints, each a power of two.
    pub fn shape_arg(&self, v: &Val, span: Span) -> Result<Vec<u32>> {
        let dims = match v {
            Val::Tuple(items) => {
                items.iter().map(|d| self.const_int(d, span, "a shape dimension")).collect::<Result<Vec<_>>>()?
            }
            other => vec![self.const_int(other, span, "a shape")?],
        };
        let mut out = Vec::new();
        for d in dims {
            if d <= 0 || d > (1 << 20) || (d & (d - 1)) != 0 {
                return Err(err_label(
                    errors::SHAPE,
                    span,
                    format!("shape dimension {d} is not a power of two"),
                    "every dimension of a block must be a power of two",
                ));
            }
            out.push(d as u32);
        }
        if out.iter().map(|&d| d as u64).product::<u64>() > (1 << 20) {
            return Err(err(errors::SHAPE, span, "a block may hold at most 1048576 elements"));
        }
        Ok(out)
    }

    pub fn dtype_arg(&self, v: &Val, span: Span) -> Result<Elem> {
        match v {
            Val::DType(t) => Ok(Elem::Scalar(*t)),
            Val::PtrDType(t) => Ok(Elem::Ptr(*t)),
            other => Err(err(
                errors::TYPE_ERROR,
                span,
                format!("expected a dtype such as `tl.float32`, got {}", other.describe()),
            )),
        }
    }

    /// A runtime tensor argument (numbers become constants).
    pub fn tensor_arg(&mut self, v: &Val, span: Span) -> Result<Value> {
        self.tensor_value(v, span)
    }

    /// Normalizes a possibly negative axis for a tensor of `rank`.
    pub fn axis_arg(&self, v: &Val, rank: usize, span: Span) -> Result<u32> {
        let a = self.const_int(v, span, "`axis`")?;
        let r = rank as i128;
        let k = if a < 0 { a + r } else { a };
        if k < 0 || k >= r.max(1) {
            return Err(err(errors::SHAPE, span, format!("axis {a} is out of range for a tensor of rank {rank}")));
        }
        Ok(k as u32)
    }
}
