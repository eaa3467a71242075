//! Error codes of the front end (documented in the crate doc) and small constructors.

use tilec_diagnostics::{Diagnostic, Span};

pub const UNKNOWN_NAME: &str = "E0201";
pub const ARITY: &str = "E0202";
pub const UNKNOWN_KEYWORD: &str = "E0203";
pub const BROADCAST: &str = "E0204";
pub const ARANGE: &str = "E0205";
pub const NOT_CONSTEXPR: &str = "E0206";
pub const NOT_POINTER: &str = "E0207";
pub const MASK_SHAPE: &str = "E0208";
pub const BAD_SIGNATURE: &str = "E0209";
pub const PARAM_COUNT: &str = "E0210";
pub const UNKNOWN_KERNEL: &str = "E0211";
pub const UNSUPPORTED: &str = "E0212";
pub const RECURSION: &str = "E0213";
pub const LOOP_CARRIED_TYPE: &str = "E0214";
pub const TYPE_ERROR: &str = "E0215";
pub const STATIC_ASSERT: &str = "E0216";
pub const CONSTEXPR_PARAM: &str = "E0217";
pub const SHAPE: &str = "E0218";
pub const RETURN: &str = "E0219";
pub const BRANCH_TYPE: &str = "E0220";
pub const VALUE: &str = "E0221";
pub const UNKNOWN_ATTRIBUTE: &str = "E0222";
pub const FALSE_ASSUMPTION: &str = "E0223";
pub const INTERNAL: &str = "E0299";

/// An error diagnostic with `code`, `message` and a primary span.
pub fn err(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, message).with_label(span, "")
}

/// An error with a label under its span.
pub fn err_label(code: &'static str, span: Span, message: impl Into<String>, label: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, message).with_label(span, label)
}

pub type Result<T> = std::result::Result<T, Diagnostic>;
