//! Errors of the `tilec` command-line tool: diagnostics, with the source they point into
//! when there is one.

use tilec_diagnostics::Diagnostic;

/// Codes of errors raised by the command-line tool itself (not by a compiler stage).
pub mod codes {
    /// A command-line argument that does not parse.
    pub const BAD_ARGUMENT: &str = "E0901";
    /// A kernel parameter without a value.
    pub const MISSING_ARGUMENT: &str = "E0902";
    /// A value for a name that is not a kernel parameter.
    pub const EXTRA_ARGUMENT: &str = "E0903";
    /// An array given to a `tl.constexpr` parameter.
    pub const CONSTEXPR_RUNTIME_VALUE: &str = "E0904";
    /// A `.npy` file that cannot be read or has an unsupported dtype.
    pub const BAD_NPY: &str = "E0905";
    /// qemu, the runner or the sysroot is missing.
    pub const TOOLCHAIN_MISSING: &str = "E0906";
    /// The kernel died of a signal.
    pub const KERNEL_FAULT: &str = "E0907";
    /// The runner or the interpreter failed for another reason.
    pub const RUN_FAILED: &str = "E0908";
    /// A file could not be read or written.
    pub const IO: &str = "E0909";
    /// The kernel ran past `tilec run --timeout` and was killed.
    pub const TIMED_OUT: &str = "E0910";
}

/// Diagnostics to print before exiting with a failure.
#[derive(Debug)]
pub struct CliError {
    pub diagnostics: Vec<Diagnostic>,
    /// File name and text the diagnostics' spans point into.
    pub source: Option<(String, String)>,
}

impl CliError {
    pub fn new(code: &'static str, message: impl Into<String>) -> CliError {
        CliError::from(Diagnostic::error(code, message))
    }

    /// Diagnostics whose spans point into `source`.
    pub fn in_source(diagnostics: Vec<Diagnostic>, file_name: &str, source: &str) -> CliError {
        CliError { diagnostics, source: Some((file_name.to_string(), source.to_string())) }
    }

    pub fn render(&self) -> String {
        match &self.source {
            Some((file_name, source)) => tilec_diagnostics::render(file_name, source, &self.diagnostics),
            None => self
                .diagnostics
                .iter()
                .map(|d| {
                    let notes: String = d.notes.iter().map(|n| format!("  = note: {n}\n")).collect();
                    format!("{d}\n{notes}")
                })
                .collect(),
        }
    }
}

impl From<Diagnostic> for CliError {
    fn from(d: Diagnostic) -> CliError {
        CliError { diagnostics: vec![d], source: None }
    }
}

impl From<Vec<Diagnostic>> for CliError {
    fn from(diagnostics: Vec<Diagnostic>) -> CliError {
        CliError { diagnostics, source: None }
    }
}
