//! Error codes of the front end (documented in the `tilec_diagnostics::codes` registry) and
//! small constructors.

use tilec_diagnostics::{Code, Diagnostic, Span};

pub use tilec_diagnostics::codes::front::*;

/// An error diagnostic with `code`, `message` and a primary span.
pub fn err(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, message).with_label(span, "")
}

/// An error with a label under its span.
pub fn err_label(code: Code, span: Span, message: impl Into<String>, label: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, message).with_label(span, label)
}

/// The failure of an expression that reads a value whose computation already failed and
/// was reported: [`crate::lower::Lowerer::report`] drops it.
pub fn follow_on() -> Diagnostic {
    Diagnostic::error(FOLLOW_ON, "a value that could not be computed (reported already)")
}

pub type Result<T> = std::result::Result<T, Diagnostic>;
