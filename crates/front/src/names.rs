//! Name resolution tables: modules, import aliases, dtypes and built-in function names.

use std::collections::BTreeMap;

use crate::value::{Ns, Val};
use tilec_ir::ScalarType;
use tilec_syntax::ast;

const MODULES: &[&str] = &[
    "triton",
    "triton.language",
    "triton.language.core",
    "triton.language.standard",
    "triton.language.random",
    "triton.language.math",
    "triton.language.extra",
    "triton.language.extra.cuda",
    "triton.language.extra.cpu",
    "triton.language.extra.libdevice",
    "triton.language.extra.cuda.libdevice",
    "triton.language.extra.cpu.libdevice",
    "triton.language.libdevice",
];

/// The interned path of a known module.
pub fn canonical_module(path: &str) -> Option<&'static str> {
    MODULES.iter().copied().find(|m| *m == path)
}

/// Which built-in namespace a module's functions live in.
pub fn namespace(module: &str) -> Option<Ns> {
    if module == "triton" {
        Some(Ns::Triton)
    } else if module == "triton.language.extra.cuda.libdevice" {
        Some(Ns::CudaLibdevice)
    } else if module.ends_with("libdevice") {
        Some(Ns::Libdevice)
    } else if module.starts_with("triton.language")
        && !module.ends_with("extra")
        && !module.ends_with("cuda")
        && !module.ends_with("cpu")
    {
        Some(Ns::Tl)
    } else {
        None
    }
}

/// Module-level names bound by the imports of `module`. `from m import x` where `x` is not
/// a module is recorded as `Tuple([Str(m), Str(x)])` and resolved on use.
pub fn import_aliases(module: &ast::Module) -> BTreeMap<String, Val> {
    let mut out = BTreeMap::new();
    for imp in &module.imports {
        let path: Vec<&str> = imp.module.iter().map(|i| i.name.as_str()).collect();
        let dotted = path.join(".");
        if imp.is_from {
            for (name, alias) in &imp.names {
                let bound = alias.as_ref().unwrap_or(name).name.clone();
                let full = format!("{dotted}.{}", name.name);
                let v = match canonical_module(&full) {
                    Some(m) => Val::Module(m),
                    None => Val::Tuple(vec![Val::Str(dotted.clone()), Val::Str(name.name.clone())]),
                };
                out.insert(bound, v);
            }
        } else if let Some(alias) = &imp.alias {
            if let Some(m) = canonical_module(&dotted) {
                out.insert(alias.name.clone(), Val::Module(m));
            }
        } else if let Some(first) = path.first() {
            if let Some(m) = canonical_module(first) {
                out.insert(first.to_string(), Val::Module(m));
            }
        }
    }
    out
}

/// `tl.float16` and friends (Triton's spellings only).
pub fn dtype(name: &str) -> Option<ScalarType> {
    match name {
        "float16" | "bfloat16" | "float32" | "float64" | "int1" | "int8" | "int16" | "int32" | "int64" | "uint8"
        | "uint16" | "uint32" | "uint64" | "float8e4nv" | "float8e5" | "float8e4b15" | "float8e4b8" | "float8e5b16" => {
            ScalarType::from_name(name)
        }
        _ => None,
    }
}

const TL: &[&str] = &[
    "program_id",
    "num_programs",
    "arange",
    "zeros",
    "zeros_like",
    "full",
    "load",
    "store",
    "where",
    "maximum",
    "minimum",
    "clamp",
    "exp",
    "exp2",
    "log",
    "log2",
    "sqrt",
    "sqrt_rn",
    "rsqrt",
    "sin",
    "cos",
    "abs",
    "floor",
    "ceil",
    "erf",
    "fma",
    "div_rn",
    "fdiv",
    "umulhi",
    "sum",
    "max",
    "min",
    "argmax",
    "argmin",
    "xor_sum",
    "reduce",
    "cumsum",
    "cumprod",
    "associative_scan",
    "dot",
    "trans",
    "permute",
    "reshape",
    "view",
    "broadcast_to",
    "broadcast",
    "expand_dims",
    "ravel",
    "join",
    "split",
    "interleave",
    "cat",
    "flip",
    "sort",
    "topk",
    "gather",
    "histogram",
    "squeeze",
    "unsqueeze",
    "atomic_add",
    "atomic_max",
    "atomic_min",
    "atomic_xchg",
    "atomic_cas",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "multiple_of",
    "max_contiguous",
    "max_constancy",
    "assume",
    "make_block_ptr",
    "advance",
    "make_tensor_descriptor",
    "load_tensor_descriptor",
    "store_tensor_descriptor",
    "device_assert",
    "device_print",
    "static_assert",
    "static_print",
    "debug_barrier",
    "range",
    "static_range",
    "constexpr",
    "to_tensor",
    "cast",
    "item",
    "pointer_type",
];

const TRITON: &[&str] = &["next_power_of_2"];

const PY: &[&str] =
    &["range", "min", "max", "abs", "float", "int", "bool", "len", "print", "isinstance", "getattr", "hasattr"];

const TENSOR_METHODS: &[&str] = &[
    "to",
    "cast",
    "item",
    "sum",
    "max",
    "min",
    "argmax",
    "argmin",
    "xor_sum",
    "reduce",
    "cumsum",
    "cumprod",
    "associative_scan",
    "reshape",
    "view",
    "trans",
    "permute",
    "broadcast_to",
    "expand_dims",
    "ravel",
    "split",
    "sort",
    "flip",
    "gather",
    "histogram",
    "exp",
    "exp2",
    "log",
    "log2",
    "sqrt",
    "sqrt_rn",
    "rsqrt",
    "sin",
    "cos",
    "abs",
    "floor",
    "ceil",
    "erf",
    "sigmoid",
    "softmax",
    "logical_and",
    "logical_or",
];

const DTYPE_METHODS: &[&str] = &[
    "is_floating",
    "is_int",
    "is_int_signed",
    "is_int_unsigned",
    "is_fp16",
    "is_bf16",
    "is_fp32",
    "is_fp64",
    "is_bool",
    "is_ptr",
    "is_block",
    "is_void",
    "is_const",
    "is_fp8",
    "is_fp8e4nv",
    "is_fp8e5",
    "is_fp8e4b15",
    "is_fp8e4b8",
    "is_fp8e5b16",
    "is_standard_floating",
    "is_int1",
    "is_int8",
    "is_int16",
    "is_int32",
    "is_int64",
    "is_uint8",
    "is_uint16",
    "is_uint32",
    "is_uint64",
];

/// Names of `triton.language` that exist but that tilec does not implement.
const UNSUPPORTED: &[&str] = &["inline_asm_elementwise", "extra"];

/// The interned name of built-in `name` in namespace `ns`, if it exists.
pub fn builtin(ns: Ns, name: &str) -> Option<&'static str> {
    let table = match ns {
        Ns::Tl => TL,
        Ns::Libdevice | Ns::CudaLibdevice => return crate::builtins::libdevice::lookup(name),
        Ns::Triton => TRITON,
        Ns::Py => PY,
        Ns::Tensor => TENSOR_METHODS,
        Ns::DType => DTYPE_METHODS,
        Ns::TensorDesc => crate::builtins::DESC_METHODS,
        Ns::BlockPtr => &["advance"],
    };
    table.iter().copied().find(|n| *n == name)
}

pub fn python_builtin(name: &str) -> Option<&'static str> {
    builtin(Ns::Py, name)
}

pub fn unsupported_builtin(name: &str) -> bool {
    UNSUPPORTED.contains(&name)
}

/// A cheap "did you mean": same length ±1 and at most one differing character position.
pub fn similar(a: &str, b: &str) -> bool {
    if a == b || a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    prefix + suffix + 1 >= a.len().max(b.len())
}
