//! Errors of the `tilec` command-line tool: diagnostics, with the source they point into
//! when there is one.

use tilec_diagnostics::{Code, Diagnostic};

/// Codes of errors raised by the command-line tool itself (not by a compiler stage), E10xx.
pub use tilec_diagnostics::codes::tilec as codes;

/// Diagnostics to print before exiting with a failure.
#[derive(Debug)]
pub struct CliError {
    pub diagnostics: Vec<Diagnostic>,
    /// File name and text the diagnostics' spans point into.
    pub source: Option<(String, String)>,
}

impl CliError {
    pub fn new(code: Code, message: impl Into<String>) -> CliError {
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
