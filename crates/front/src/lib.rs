//! Front end: a parsed Triton module + a specialization → one Tile IR [`Function`].
//!
//! Invariant: the output passes `tilec_ir::verify`; every user error is a [`Diagnostic`]
//! with a span; no input panics.

use tilec_diagnostics::{Diagnostic, Span};
use tilec_ir::{Function, ScalarType};
use tilec_syntax::ast;

/// A compile-time value (constexpr parameter, `-c NAME=VALUE`).
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
    None,
    /// A dtype such as `tl.float16`.
    DType(ScalarType),
}

/// One entry of a Triton `compile.py` style signature (`*fp32:16`, `i32`, `i32:1`, `1024`).
#[derive(Clone, Debug, PartialEq)]
pub enum SigItem {
    Ptr { pointee: ScalarType, divisibility: u32 },
    Scalar { ty: ScalarType, divisibility: u32, equal_to_one: bool },
    Constexpr(ConstValue),
}

/// A parameter of a `@triton.jit` function, as declared.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelParam {
    pub name: String,
    pub constexpr: bool,
    pub has_default: bool,
    pub span: Span,
}

/// Parses a signature string such as `"*fp32:16, *fp32:16, i32, i32:1, 1024"`.
pub fn parse_signature(text: &str) -> Result<Vec<SigItem>, Diagnostic> {
    let _ = text;
    Err(Diagnostic::error("E0000", "signature parsing is not written yet"))
}

/// Parses the text of a constant (`-c NAME=VALUE`): an int, float, `True`/`False`, `None`,
/// a dtype name (`tl.float16`, `fp16`) or else a string.
pub fn parse_const_value(text: &str) -> ConstValue {
    ConstValue::Str(text.to_string())
}

/// The declared parameters of kernel `kernel` in `module`.
pub fn kernel_params(module: &ast::Module, kernel: &str) -> Result<Vec<KernelParam>, Diagnostic> {
    let _ = (module, kernel);
    Err(Diagnostic::error("E0000", "not written yet"))
}

/// Specializes kernel `kernel` of `module`. Parameters are matched in order: a parameter
/// named in `constants` takes that value and consumes no signature item; every other
/// parameter consumes the next item of `signature`; a parameter with a default that is left
/// over takes its default.
pub fn specialize(
    module: &ast::Module,
    kernel: &str,
    signature: &[SigItem],
    constants: &[(String, ConstValue)],
) -> Result<Function, Vec<Diagnostic>> {
    let _ = (module, kernel, signature, constants);
    Err(vec![Diagnostic::error("E0000", "the front end is not written yet")])
}
