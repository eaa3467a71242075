//! Errors of the encoder and assembler. None of them is a panic: an instruction the
//! hardware cannot encode, a label never bound, or a branch whose target is too far
//! away all come back as an [`AsmError`].

use std::fmt;

use crate::inst::Label;
use tilec_diagnostics::codes::rvv as codes;
use tilec_diagnostics::Code;

/// Why an instruction or a piece of code could not be assembled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AsmError {
    /// An operand does not fit its field, or the operation has no such form.
    /// `inst` is the instruction as printed.
    InvalidOperand { inst: String, reason: String },
    /// [`Inst::encode`](crate::Inst::encode) was given a branch to a label; only the
    /// assembler can resolve labels.
    UnresolvedLabel { inst: String },
    /// A branch refers to a label that was never bound.
    UnboundLabel { label: Label },
    /// A label was bound twice.
    LabelBoundTwice { label: Label },
    /// A label that this assembler did not create (it came from another one).
    UnknownLabel { label: Label },
    /// A branch or jump target is farther away than the instruction can reach.
    BranchOutOfRange { inst: String, at: usize, distance: i64, max: i64 },
}

impl AsmError {
    /// The stable diagnostic code of this error (E07xx, the RVV layer's range).
    pub fn code(&self) -> Code {
        match self {
            AsmError::InvalidOperand { .. } => codes::INVALID_OPERAND,
            AsmError::UnresolvedLabel { .. } => codes::UNRESOLVED_LABEL,
            AsmError::UnboundLabel { .. } => codes::UNBOUND_LABEL,
            AsmError::LabelBoundTwice { .. } => codes::LABEL_BOUND_TWICE,
            AsmError::BranchOutOfRange { .. } => codes::BRANCH_OUT_OF_RANGE,
            AsmError::UnknownLabel { .. } => codes::UNKNOWN_LABEL,
        }
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AsmError::InvalidOperand { inst, reason } => {
                write!(f, "cannot encode `{inst}`: {reason}")
            }
            AsmError::UnresolvedLabel { inst } => {
                write!(f, "cannot encode `{inst}` outside an assembler: its target is a label")
            }
            AsmError::UnboundLabel { label } => {
                write!(f, "label .L{} is used but never bound", label.index())
            }
            AsmError::LabelBoundTwice { label } => {
                write!(f, "label .L{} is bound twice", label.index())
            }
            AsmError::UnknownLabel { label } => {
                write!(f, "label .L{} belongs to another assembler", label.index())
            }
            AsmError::BranchOutOfRange { inst, at, distance, max } => write!(
                f,
                "`{inst}` at byte {at} cannot reach its target {distance} bytes away \
                 (limit ±{max})"
            ),
        }
    }
}

impl std::error::Error for AsmError {}

impl From<AsmError> for tilec_diagnostics::Diagnostic {
    fn from(err: AsmError) -> tilec_diagnostics::Diagnostic {
        tilec_diagnostics::Diagnostic::error(err.code(), err.to_string())
    }
}
