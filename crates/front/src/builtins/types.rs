//! Types as values, folded at compile time: `x.type` (a dtype, a pointer type or a block
//! type), the classes of `triton.language` (`tl.tensor`, `tl.tensor_descriptor`, ...) and
//! `isinstance(x, CLASS)`.

use crate::errors::{self, err, Result};
use crate::lower::{Args, Lowerer};
use crate::value::{Ns, Val};
use tilec_diagnostics::Span;
use tilec_ir::Elem;

/// Classes of `triton.language` that `isinstance` knows.
pub const CLASSES: &[&str] =
    &["tensor", "tensor_descriptor", "tensor_descriptor_base", "dtype", "block_type", "base_value", "base_type"];

impl Lowerer<'_> {
    /// `x.type` of a runtime value: its dtype (a pointer type for pointers), or the block type
    /// of a tensor.
    pub(crate) fn type_of(&self, v: tilec_ir::Value) -> Val {
        let ty = self.ty(v);
        match (ty.is_tensor(), ty.elem) {
            (true, elem) => Val::BlockType(elem, ty.shape.clone()),
            (false, Elem::Scalar(s)) => Val::DType(s),
            (false, Elem::Ptr(s)) => Val::PtrDType(s),
        }
    }

    /// Attributes of a block type: `element_ty`/`scalar`, `shape`, `numel` and the
    /// `is_block()`-style methods.
    pub(crate) fn block_type_attribute(&self, elem: Elem, shape: &[u32], attr: &str, span: Span) -> Result<Val> {
        let scalar = match elem {
            Elem::Scalar(s) => Val::DType(s),
            Elem::Ptr(s) => Val::PtrDType(s),
        };
        match attr {
            "element_ty" | "scalar" => Ok(scalar),
            "shape" => Ok(Val::Tuple(shape.iter().map(|&d| Val::Int(d as i128)).collect())),
            "numel" => Ok(Val::Int(shape.iter().map(|&d| d as i128).product())),
            "is_block" | "is_ptr" | "is_floating" | "is_int" => Ok(Val::Method(
                Box::new(Val::BlockType(elem, shape.to_vec())),
                Ns::DType,
                match attr {
                    "is_block" => "is_block",
                    "is_ptr" => "is_ptr",
                    "is_floating" => "is_floating",
                    _ => "is_int",
                },
            )),
            _ => Err(err(errors::UNKNOWN_ATTRIBUTE, span, format!("block types have no attribute `{attr}`"))),
        }
    }

    /// `isinstance(x, classinfo)`, on what the front end knows at compile time.
    pub(super) fn isinstance(&mut self, args: Args, span: Span) -> Result<Val> {
        let b = args.bind("isinstance", &["obj", "classinfo"], 2, span)?;
        let x = b.val(0);
        let classes = match b.val(1) {
            Val::Tuple(items) => items,
            one => vec![one],
        };
        let mut result = false;
        for class in &classes {
            result |= match class {
                Val::Class(name) => match *name {
                    "tensor" => matches!(x, Val::T(_) | Val::BlockPtr(_)),
                    "tensor_descriptor" | "tensor_descriptor_base" => matches!(x, Val::TensorDesc(_)),
                    "dtype" => matches!(x, Val::DType(_) | Val::PtrDType(_)),
                    "block_type" => matches!(x, Val::BlockType(..)),
                    "base_value" => matches!(x, Val::T(_) | Val::BlockPtr(_) | Val::TensorDesc(_)),
                    _ => matches!(x, Val::DType(_) | Val::PtrDType(_) | Val::BlockType(..)),
                },
                Val::Builtin(Ns::Tl, "constexpr") => !matches!(x, Val::T(_) | Val::BlockPtr(_) | Val::TensorDesc(_)),
                Val::Builtin(Ns::Py, "int") => matches!(x, Val::Int(_) | Val::Bool(_)),
                Val::Builtin(Ns::Py, "float") => matches!(x, Val::Float(_)),
                Val::Builtin(Ns::Py, "bool") => matches!(x, Val::Bool(_)),
                other => {
                    return Err(err(
                        errors::UNSUPPORTED,
                        b.span(1),
                        format!("`isinstance` with {} is not supported", other.describe()),
                    )
                    .with_note(
                        "tilec folds `isinstance` against classes of `triton.language`, `int`, `float` and `bool`",
                    ))
                }
            };
        }
        Ok(Val::Bool(result))
    }
}

/// Compile-time properties of dtype `t` (`tl.float16.primitive_bitwidth`, ...), or `None`
/// when `attr` is not one of them (methods are looked up separately).
pub fn dtype_property(t: tilec_ir::ScalarType, attr: &str) -> Option<Val> {
    use tilec_ir::ScalarType as S;
    let int = |i: u32| Some(Val::Int(i as i128));
    match attr {
        "primitive_bitwidth" => int(t.bits()),
        "int_bitwidth" if t.is_int() => int(t.bits()),
        "itemsize" => int(t.bytes()),
        "fp_mantissa_width" | "exponent_bias" if t.is_fp8() => {
            let f = t.fp8_format()?;
            int(if attr == "exponent_bias" { f.bias as u32 } else { f.mantissa_bits })
        }
        "fp_mantissa_width" => match t {
            S::F16 => int(10),
            S::BF16 => int(7),
            S::F32 => int(23),
            S::F64 => int(52),
            _ => None,
        },
        "exponent_bias" => match t {
            S::F16 => int(15),
            S::BF16 | S::F32 => int(127),
            S::F64 => int(1023),
            _ => None,
        },
        "name" => Some(Val::Str(triton_name(t).to_string())),
        "scalar" | "value" => Some(Val::DType(t)),
        _ => None,
    }
}

/// `dtype.name` in Triton (`fp16`, `bf16`, `int32`, `uint8`, `int1`, ...).
fn triton_name(t: tilec_ir::ScalarType) -> &'static str {
    use tilec_ir::ScalarType as S;
    match t {
        S::I1 => "int1",
        S::I8 => "int8",
        S::I16 => "int16",
        S::I32 => "int32",
        S::I64 => "int64",
        S::U8 => "uint8",
        S::U16 => "uint16",
        S::U32 => "uint32",
        S::U64 => "uint64",
        S::F16 => "fp16",
        S::BF16 => "bf16",
        S::F32 => "fp32",
        S::F64 => "fp64",
        fp8 => fp8.name(),
    }
}
