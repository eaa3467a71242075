//! Values of the front end: compile-time (constexpr) values and runtime IR values.

use crate::builtins::{BlockPtr, TensorDesc};
use tilec_ir::{Elem, ScalarType, Value};

/// Which parsed module a `@triton.jit` function lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleId {
    /// A file of the program: 0 is the kernel's file, the others the modules it imports
    /// (indices of `tilec_syntax::Program::modules`).
    File(usize),
    /// A file of the built-in library written in Triton itself (`crate::prelude`).
    Prelude(crate::prelude::Library),
}

/// A reference to a `@triton.jit` function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FuncRef {
    pub module: ModuleId,
    pub index: usize,
}

/// Namespaces of built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ns {
    /// `triton.language`
    Tl,
    /// `triton.language.extra.libdevice` and `triton.language.extra.cpu.libdevice`
    /// (triton-cpu's definitions first, see `builtins::libdevice`)
    Libdevice,
    /// `triton.language.extra.cuda.libdevice`
    CudaLibdevice,
    /// `triton`
    Triton,
    /// Python builtins (`range`, `min`, `float`, ...)
    Py,
    /// Methods of tensors (`x.to`, `x.sum`)
    Tensor,
    /// Methods of dtypes (`x.dtype.is_floating()`)
    DType,
    /// Methods of tensor descriptors (`desc.load`)
    TensorDesc,
    /// Methods of block pointers (`ptr.advance`)
    BlockPtr,
}

/// A member of `tl.PropagateNan`: whether float `tl.maximum`, `tl.minimum` and `tl.clamp`
/// return NaN when an operand is NaN (`All`) or return the other operand (`None`, Triton's
/// default: `maxnum`/`minnum`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropagateNan {
    None,
    All,
}

impl PropagateNan {
    /// The member named `name` (`NONE`, `ALL`), as Triton spells them.
    pub fn from_name(name: &str) -> Option<PropagateNan> {
        match name {
            "NONE" => Some(PropagateNan::None),
            "ALL" => Some(PropagateNan::All),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PropagateNan::None => "NONE",
            PropagateNan::All => "ALL",
        }
    }
}

/// What a name or expression evaluates to. Everything except [`Val::T`] is known at
/// compile time (a constexpr in Triton's terms).
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
    None,
    DType(ScalarType),
    /// The dtype of a pointer value (`ptr.dtype`); `.element_ty` gives the pointee.
    PtrDType(ScalarType),
    /// A runtime value (scalar, pointer or tensor) in the IR.
    T(Value),
    Tuple(Vec<Val>),
    /// A Python module such as `triton.language`, by canonical dotted path.
    Module(&'static str),
    /// A module of the program's own files (an index of `tilec_syntax::Program::modules`).
    FileModule(usize),
    Func(FuncRef),
    Builtin(Ns, &'static str),
    /// A method bound to its receiver (`x.to`, `dtype.is_floating`).
    Method(Box<Val>, Ns, &'static str),
    /// The enum `tl.PropagateNan` itself; its attributes are its members.
    PropagateNanEnum,
    /// A member of `tl.PropagateNan`.
    PropagateNan(PropagateNan),
    /// A block pointer (`tl.make_block_ptr`): compile-time structure around runtime values.
    BlockPtr(Box<BlockPtr>),
    /// A tensor descriptor (`tl.make_tensor_descriptor`, or a `tensordesc` parameter).
    TensorDesc(Box<TensorDesc>),
    /// The type of a tensor (`x.type` of a block): element and shape.
    BlockType(Elem, Vec<u32>),
    /// A class of `triton.language` for `isinstance` (`tensor`, `tensor_descriptor`, ...).
    Class(&'static str),
    /// The `args` dict a `triton.heuristics` lambda receives: each parameter with its
    /// compile-time value, or `None` for a runtime argument (unknown when compiling).
    HeuristicArgs(Vec<(String, Option<Val>)>),
    /// What a name holds after the statement assigning it failed (the error is reported):
    /// reading it fails with `errors::follow_on`, which is never reported.
    Poison,
}

impl Val {
    /// Whether the value is a compile-time number (`int`, `float`, `bool`).
    pub fn is_number(&self) -> bool {
        matches!(self, Val::Int(_) | Val::Float(_) | Val::Bool(_))
    }

    /// A short description for diagnostics.
    pub fn describe(&self) -> String {
        match self {
            Val::Int(i) => format!("constexpr int {i}"),
            Val::Float(x) => format!("constexpr float {x}"),
            Val::Bool(b) => format!("constexpr bool {}", if *b { "True" } else { "False" }),
            Val::Str(s) => format!("constexpr string {s:?}"),
            Val::None => "None".into(),
            Val::DType(t) => format!("dtype {}", t.name()),
            Val::PtrDType(t) => format!("dtype pointer<{}>", t.name()),
            Val::T(_) => "tensor".into(),
            Val::Tuple(v) => format!("tuple of {} elements", v.len()),
            Val::Module(m) => format!("module `{m}`"),
            Val::FileModule(_) => "module".into(),
            Val::Func(_) => "function".into(),
            Val::Builtin(_, b) => format!("builtin `{b}`"),
            Val::Method(_, _, m) => format!("method `{m}`"),
            Val::PropagateNanEnum => "enum `tl.PropagateNan`".into(),
            Val::PropagateNan(p) => format!("`tl.PropagateNan.{}`", p.name()),
            Val::BlockPtr(b) => format!("block pointer to {} blocks of {:?}", b.tensor.elem.name(), b.tensor.block),
            Val::TensorDesc(d) => {
                format!("tensor descriptor of {} blocks of {:?}", d.tensor.elem.name(), d.tensor.block)
            }
            Val::BlockType(elem, shape) => {
                format!("block type {}", crate::ops::type_name(&tilec_ir::Type::tensor(*elem, shape.clone())))
            }
            Val::Class(name) => format!("class `tl.{name}`"),
            Val::HeuristicArgs(_) => "the arguments of a heuristic".into(),
            Val::Poison => "a value that could not be computed".into(),
        }
    }
}
