//! The library's error type: diagnostics, with the source they point into when there is one.

use tilec_diagnostics::{Code, Diagnostic, SourceMap};

/// Codes of errors raised by this crate itself (not by a compiler stage), E10xx.
pub use tilec_diagnostics::codes::tilec as codes;

/// What went wrong, as diagnostics (each with its [`Code`]); [`Error::render`] (and
/// `Display`) prints them with the source lines they point into, as the command line does.
///
/// ```
/// let source = "import triton\n\n@triton.jit\ndef f(x):\n    return x +\n";
/// let error = tilec::Kernel::from_source("k.py", source, "f").build(&tilec::Target::interp()).unwrap_err();
/// assert_eq!(error.code(), Some(tilec::diagnostics::codes::syntax::UNEXPECTED_TOKEN));
/// assert!(error.to_string().contains("k.py:5:"), "{error}");
/// ```
pub struct Error {
    /// The diagnostics, in the order they were found (at least one).
    pub diagnostics: Vec<Diagnostic>,
    /// The files the diagnostics' spans point into (the kernel's file and the modules it
    /// imports).
    pub files: Option<SourceMap>,
}

impl Error {
    /// One diagnostic of severity error.
    pub fn new(code: Code, message: impl Into<String>) -> Error {
        Error::from(Diagnostic::error(code, message))
    }

    /// Diagnostics whose spans point into `source`.
    pub fn in_source(diagnostics: Vec<Diagnostic>, file_name: &str, source: &str) -> Error {
        let mut files = SourceMap::default();
        files.add(file_name, source);
        Error::in_files(diagnostics, files)
    }

    /// Diagnostics whose spans point into the files of `files`.
    pub fn in_files(diagnostics: Vec<Diagnostic>, files: SourceMap) -> Error {
        Error { diagnostics, files: Some(files) }
    }

    /// Adds a note to the first diagnostic.
    pub fn with_note(mut self, note: impl Into<String>) -> Error {
        if let Some(d) = self.diagnostics.first_mut() {
            d.notes.push(note.into());
        }
        self
    }

    /// The code of the first diagnostic.
    pub fn code(&self) -> Option<Code> {
        self.diagnostics.first().map(|d| d.code)
    }

    /// The diagnostics as text, with source context when the spans point into a source.
    pub fn render(&self) -> String {
        match &self.files {
            Some(files) => files.render(&self.diagnostics),
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

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.render().trim_end())
    }
}

/// The rendered diagnostics, so that `fn main() -> Result<(), Box<dyn Error>>` (and a
/// failed doctest) prints them readably.
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "\n{}", self.render().trim_end())
    }
}

impl std::error::Error for Error {}

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Error {
        Error { diagnostics: vec![d], files: None }
    }
}

impl From<Vec<Diagnostic>> for Error {
    fn from(diagnostics: Vec<Diagnostic>) -> Error {
        Error { diagnostics, files: None }
    }
}
