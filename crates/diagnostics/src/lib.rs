//! Source spans and diagnostics shared by every stage of tilec.
//!
//! Invariant: every error a user can cause is a [`Diagnostic`] with an error code, a
//! message and (where there is source) a primary [`Span`]; no stage panics on bad input.
//! Rendering goes through `codespan-reporting` and is deterministic (no colour), so
//! rendered diagnostics can be snapshot-tested.

use std::fmt;

pub mod codes;

pub use codes::Code;

/// A half-open byte range `[start, end)` into one source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const DUMMY: Span = Span { start: 0, end: 0 };

    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    pub fn is_dummy(self) -> bool {
        self == Span::DUMMY
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// One message for the user. `code` is stable and documented in the [`codes`] registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    /// Primary location; `None` for errors with no source position (bad CLI input, tools).
    pub span: Option<Span>,
    /// Text shown under the primary span.
    pub label: Option<String>,
    /// Secondary locations with their own labels.
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span: None,
            label: None,
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn with_span(mut self, span: Span) -> Diagnostic {
        self.span = Some(span);
        self
    }

    pub fn with_label(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.span = Some(span);
        self.label = Some(label.into());
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The same diagnostic with every span passed through `f`.
    pub fn map_spans(mut self, f: impl Fn(Span) -> Span) -> Diagnostic {
        self.span = self.span.map(&f);
        for (span, _) in &mut self.secondary {
            *span = f(*span);
        }
        self
    }
}

impl fmt::Display for Diagnostic {
    /// The one-line form `error[E0101]: message`, without source context.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        write!(f, "{sev}[{}]: {}", self.code, self.message)
    }
}

impl std::error::Error for Diagnostic {}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(source: &str, offset: u32) -> (usize, usize) {
    let offset = (offset as usize).min(source.len());
    let before = &source[..floor_char_boundary(source, offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Renders diagnostics with source context, without colour, as `file:line:col` plus the
/// offending lines. Spans outside the source are clamped, never a panic.
pub fn render(file_name: &str, source: &str, diagnostics: &[Diagnostic]) -> String {
    let mut files = SourceMap::default();
    files.add(file_name, source);
    files.render(diagnostics)
}

/// The source files of one program, each at its own base offset so that one [`Span`] names a
/// file and a range in it. Invariant: files are added in order, each starting after the
/// previous one's end (so a span falls in at most one file).
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

/// One file of a [`SourceMap`].
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name diagnostics show (a path as the user wrote it, or relative to the first file).
    pub name: String,
    pub text: String,
    /// The offset of the file's first byte in the program's span space.
    pub base: u32,
}

impl SourceMap {
    /// Adds a file after the last one and returns its base offset.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> u32 {
        let base = self.next_base();
        self.files.push(SourceFile { name: name.into(), text: text.into(), base });
        base
    }

    /// The base the next added file will get (one byte past the last file, so an empty span at
    /// a file's end is still that file's).
    pub fn next_base(&self) -> u32 {
        self.files.last().map_or(0, |f| f.base + f.text.len() as u32 + 1)
    }

    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// The index of the file `offset` falls in (the last one starting at or before it).
    pub fn file_of(&self, offset: u32) -> Option<usize> {
        self.files.iter().rposition(|f| f.base <= offset)
    }

    /// `file:line:col` of a span-space offset, none when no file holds it.
    pub fn location(&self, offset: u32) -> Option<String> {
        let f = &self.files[self.file_of(offset)?];
        let (line, col) = line_col(&f.text, offset - f.base);
        Some(format!("{}:{line}:{col}", f.name))
    }

    /// Renders `diagnostics` as [`render`] does, each label in the file its span falls in.
    pub fn render(&self, diagnostics: &[Diagnostic]) -> String {
        use codespan_reporting::diagnostic::{Diagnostic as CsDiag, Label};
        use codespan_reporting::files::SimpleFiles;
        use codespan_reporting::term::{self, Config};

        let mut files = SimpleFiles::new();
        for f in &self.files {
            files.add(f.name.as_str(), f.text.as_str());
        }
        let locate = |s: Span| {
            let id = self.file_of(s.start)?;
            let f = &self.files[id];
            let local = |o: u32| floor_char_boundary(&f.text, (o.saturating_sub(f.base) as usize).min(f.text.len()));
            let start = local(s.start);
            Some((id, start..local(s.end).max(start)))
        };
        let mut out = String::new();
        for d in diagnostics {
            let mut cs = match d.severity {
                Severity::Error => CsDiag::error(),
                Severity::Warning => CsDiag::warning(),
                Severity::Note => CsDiag::note(),
            }
            .with_code(d.code.to_string())
            .with_message(&d.message);
            let mut labels = Vec::new();
            if let Some((id, range)) = d.span.and_then(locate) {
                labels.push(Label::primary(id, range).with_message(d.label.clone().unwrap_or_default()));
            }
            for (span, msg) in &d.secondary {
                if let Some((id, range)) = locate(*span) {
                    labels.push(Label::secondary(id, range).with_message(msg.clone()));
                }
            }
            cs = cs.with_labels(labels).with_notes(d.notes.clone());
            let mut buf = String::new();
            if term::emit_to_string(&mut buf, &Config::default(), &files, &cs).is_err() {
                buf = format!("{d}\n");
            }
            out.push_str(&buf);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let src = "ab\ncdé\nf";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 3), (2, 1));
        assert_eq!(line_col(src, 8), (3, 1));
        assert_eq!(line_col(src, 1000), (3, 2));
    }

    #[test]
    fn render_names_line_and_column() {
        let src = "x = 1\ny = z\n";
        let d = Diagnostic::error(codes::front::UNKNOWN_NAME, "unknown name `z`")
            .with_label(Span::new(10, 11), "not defined");
        let text = render("k.py", src, &[d]);
        assert!(text.contains("error[E0201]: unknown name `z`"), "{text}");
        assert!(text.contains("k.py:2:5"), "{text}");
    }

    /// Clippy's `result_large_err` limit: a `Result<_, Diagnostic>` stays cheap to return.
    #[test]
    fn a_diagnostic_fits_in_128_bytes() {
        assert!(std::mem::size_of::<Diagnostic>() <= 128, "{} bytes", std::mem::size_of::<Diagnostic>());
    }
}
