//! The token-stream adapter between the logos lexer and the grammar.
//!
//! Two steps:
//! 1. [`top_level_items`] cuts the raw token stream into top-level statements (a statement
//!    starts at a token in column 0 outside brackets; decorator lines stick to the statement
//!    they decorate) and keeps only `import` / `from` lines and functions decorated with
//!    `@triton.jit`, `@jit`, `@triton.jit(...)` or `@jit(...)`. Everything else is host code
//!    and is dropped unexamined, lexer errors included.
//! 2. [`layout`] turns one kept item into the grammar's token stream: NEWLINE at the end of
//!    each logical line, INDENT/DEDENT from an indentation stack, none of them inside
//!    brackets; blank and comment-only lines produce nothing; INDENT and DEDENT have
//!    zero-width spans; the end of the item closes every open level.

use std::ops::Range;

use tilec_diagnostics::{Diagnostic, Span};

use crate::codes;
use crate::token::{LexErrorKind, Tok};

/// One lexed token (or lexer error) with its byte range.
pub type RawToken = (Result<Tok, LexErrorKind>, Range<usize>);

/// A token as the grammar consumes it: `(start, token, end)`.
pub type Spanned = (usize, Tok, usize);

/// Brackets nested deeper than this are rejected (bounds the parser's and printer's depth).
pub const MAX_BRACKET_DEPTH: usize = 200;

/// A logical line with more operator-like tokens than this is rejected: it bounds the depth
/// of the expression trees built from one statement, which every later stage walks
/// recursively. Real kernels stay far below it.
pub const MAX_OPERATORS_PER_LINE: usize = 500;

/// Whether a token can add a level to an expression tree (operators, keywords, trailers).
fn nests(tok: &Tok) -> bool {
    !matches!(
        tok,
        Tok::Name(_)
            | Tok::Int(_)
            | Tok::Float(_)
            | Tok::Imaginary
            | Tok::Str(_)
            | Tok::Comma
            | Tok::Colon
            | Tok::Semi
            | Tok::RPar
            | Tok::RSqb
            | Tok::RBrace
            | Tok::Newline
    )
}

/// The ranges (indices into `raw`) of the top-level items to parse, in source order.
pub fn top_level_items(source: &str, raw: &[RawToken]) -> Vec<Range<usize>> {
    let starts = logical_line_starts(source, raw);
    let mut items = Vec::new();
    // Index in `starts` of the first line of the current group (decorators + statement).
    let mut group: Option<usize> = None;
    for n in 0..starts.len() {
        let first = *group.get_or_insert(n);
        if matches!(raw[starts[n]].0, Ok(Tok::At)) {
            continue; // a decorator line: the group goes on with the decorated statement
        }
        let end = starts.get(n + 1).copied().unwrap_or(raw.len());
        if is_kept(raw, &starts[first..=n]) {
            items.push(starts[first]..end);
        }
        group = None;
    }
    // Decorators at the end of the file decorate nothing: a jit one is a kernel cut short.
    if let Some(first) = group {
        if starts[first..].iter().any(|&s| is_jit_decorator(raw, s)) {
            items.push(starts[first]..raw.len());
        }
    }
    items
}

/// Indices of the tokens that begin a top-level logical line (column 0, outside brackets).
fn logical_line_starts(source: &str, raw: &[RawToken]) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut depth = 0usize;
    let mut at_line_start = true;
    for (i, (tok, span)) in raw.iter().enumerate() {
        if let Ok(Tok::Newline) = tok {
            if depth == 0 {
                at_line_start = true;
            }
            continue;
        }
        if at_line_start && depth == 0 && indentation(source, line_start(source, span.start), span.start) == (0, 0) {
            starts.push(i);
        }
        at_line_start = false;
        match tok.as_ref().ok().and_then(Tok::bracket) {
            Some(true) => depth += 1,
            Some(false) => depth = depth.saturating_sub(1),
            None => {}
        }
    }
    starts
}

/// Whether a group of logical lines (given by their first tokens: decorator lines, then the
/// statement) is an import or a jit-decorated function.
fn is_kept(raw: &[RawToken], lines: &[usize]) -> bool {
    let tok = |i: usize| raw.get(i).and_then(|(t, _)| t.as_ref().ok());
    let (Some(&statement), Some(&first)) = (lines.last(), lines.first()) else {
        return false;
    };
    match tok(first) {
        Some(Tok::Import) => true,
        Some(Tok::From) => !matches!(tok(first + 1), Some(Tok::Dot | Tok::Ellipsis)),
        Some(Tok::At) => {
            let decorators = &lines[..lines.len() - 1];
            matches!(tok(statement), Some(Tok::Def)) && decorators.iter().any(|&s| is_jit_decorator(raw, s))
        }
        _ => false,
    }
}

/// `@triton.jit` / `@jit`, bare or called, starting at the `@` token `at`.
fn is_jit_decorator(raw: &[RawToken], at: usize) -> bool {
    let tok = |i: usize| raw.get(i).and_then(|(t, _)| t.as_ref().ok());
    let name_is = |i: usize, want: &str| matches!(tok(i), Some(Tok::Name(n)) if n == want);
    let after = if name_is(at + 1, "triton") && matches!(tok(at + 2), Some(Tok::Dot)) && name_is(at + 3, "jit") {
        at + 4
    } else if name_is(at + 1, "jit") {
        at + 2
    } else {
        return false;
    };
    matches!(tok(after), None | Some(Tok::Newline | Tok::LPar))
}

/// Byte offset of the start of the physical line containing `offset`.
fn line_start(source: &str, offset: usize) -> usize {
    source.as_bytes()[..offset.min(source.len())].iter().rposition(|&b| b == b'\n' || b == b'\r').map_or(0, |p| p + 1)
}

/// Indentation of a line as (width with tabs to multiples of 8, width with tabs as 1), the
/// pair CPython compares to detect inconsistent use of tabs and spaces.
fn indentation(source: &str, line_start: usize, token_start: usize) -> (u32, u32) {
    let (mut col, mut alt) = (0u32, 0u32);
    for &b in &source.as_bytes()[line_start..token_start] {
        match b {
            b' ' => {
                col += 1;
                alt += 1;
            }
            b'\t' => {
                col = (col / 8 + 1) * 8;
                alt += 1;
            }
            b'\x0C' => {
                col = 0;
                alt = 0;
            }
            // The bytes of a byte-order mark (the only other skipped text before a line's
            // first token) take no width.
            _ => {}
        }
    }
    (col, alt)
}

/// Turns one kept item's raw tokens into the grammar's token stream. Lexer and layout errors
/// are pushed to `diagnostics`; the stream is meaningful only if none were pushed.
pub fn layout(source: &str, raw: &[RawToken], diagnostics: &mut Vec<Diagnostic>) -> Vec<Spanned> {
    let mut out: Vec<Spanned> = Vec::with_capacity(raw.len() + 8);
    let mut levels: Vec<(u32, u32)> = vec![(0, 0)];
    let mut brackets: Vec<(Tok, Range<usize>)> = Vec::new();
    let mut at_line_start = true;
    let mut line_has_tokens = false;
    let mut operators_on_line = 0usize;
    let end_of_item = raw.last().map_or(0, |(_, span)| span.end);

    for (tok, span) in raw {
        let tok = match tok {
            Ok(tok) => tok,
            Err(kind) => {
                diagnostics.push(lex_error(kind, span.clone()));
                line_has_tokens = true;
                at_line_start = false;
                continue;
            }
        };
        if *tok == Tok::Newline {
            if brackets.is_empty() && line_has_tokens {
                // Zero-width, so that a diagnostic on it stays on its line.
                out.push((span.start, Tok::Newline, span.start));
                line_has_tokens = false;
                at_line_start = true;
                operators_on_line = 0;
            }
            continue;
        }
        if nests(tok) {
            operators_on_line += 1;
            if operators_on_line > MAX_OPERATORS_PER_LINE {
                diagnostics.push(
                    Diagnostic::error(codes::TOO_DEEP, "statement too complex")
                        .with_label(
                            to_span(span),
                            format!("more than {MAX_OPERATORS_PER_LINE} operators in one statement"),
                        )
                        .with_note("split the statement into several assignments"),
                );
                return out;
            }
        }
        if at_line_start {
            at_line_start = false;
            let (col, alt) = indentation(source, line_start(source, span.start), span.start);
            indent_or_dedent(&mut levels, col, alt, span.start, &mut out, diagnostics);
        }
        line_has_tokens = true;
        match tok.bracket() {
            Some(true) => {
                if brackets.len() == MAX_BRACKET_DEPTH {
                    diagnostics.push(
                        Diagnostic::error(codes::TOO_DEEP, "too many nested brackets")
                            .with_label(to_span(span), format!("more than {MAX_BRACKET_DEPTH} levels deep")),
                    );
                    return out;
                }
                brackets.push((tok.clone(), span.clone()));
            }
            Some(false) => match brackets.pop() {
                None => diagnostics.push(
                    Diagnostic::error(codes::BRACKET, format!("unmatched `{tok}`"))
                        .with_label(to_span(span), "no bracket to close here"),
                ),
                Some((open, open_span)) if open.closing().as_ref() != Some(tok) => diagnostics.push(
                    Diagnostic::error(codes::BRACKET, format!("closing `{tok}` does not match `{open}`"))
                        .with_label(to_span(span), format!("expected `{}`", open.closing().unwrap_or(Tok::RPar)))
                        .with_secondary(to_span(&open_span), "opened here"),
                ),
                Some(_) => {}
            },
            None => {}
        }
        out.push((span.start, tok.clone(), span.end));
    }

    if let Some((open, open_span)) = brackets.first() {
        diagnostics.push(
            Diagnostic::error(codes::BRACKET, format!("`{open}` was never closed"))
                .with_label(to_span(open_span), "unclosed bracket"),
        );
    }
    if line_has_tokens {
        out.push((end_of_item, Tok::Newline, end_of_item));
    }
    for _ in 1..levels.len() {
        out.push((end_of_item, Tok::Dedent, end_of_item));
    }
    out
}

/// Compares a new line's indentation with the stack and emits INDENT or DEDENTs.
fn indent_or_dedent(
    levels: &mut Vec<(u32, u32)>,
    col: u32,
    alt: u32,
    at: usize,
    out: &mut Vec<Spanned>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let tab_error = || {
        Diagnostic::error(codes::TABS, "inconsistent use of tabs and spaces in indentation")
            .with_label(Span::new(at, at), "this line's indentation is ambiguous")
            .with_note("indent with spaces only")
    };
    let &(top_col, top_alt) = levels.last().unwrap_or(&(0, 0));
    if col > top_col {
        if alt <= top_alt {
            diagnostics.push(tab_error());
        }
        levels.push((col, alt));
        out.push((at, Tok::Indent, at));
        return;
    }
    while levels.len() > 1 && levels.last().is_some_and(|&(c, _)| col < c) {
        levels.pop();
        out.push((at, Tok::Dedent, at));
    }
    let &(top_col, top_alt) = levels.last().unwrap_or(&(0, 0));
    if col != top_col {
        diagnostics.push(
            Diagnostic::error(codes::DEDENT, "unindent does not match any outer indentation level")
                .with_label(Span::new(at, at), "this line's indentation matches no enclosing block"),
        );
    } else if alt != top_alt {
        diagnostics.push(tab_error());
    }
}

fn to_span(range: &Range<usize>) -> Span {
    Span::new(range.start, range.end)
}

/// The diagnostic for a lexer error at `span`.
pub fn lex_error(kind: &LexErrorKind, span: Range<usize>) -> Diagnostic {
    let span = to_span(&span);
    match kind {
        LexErrorKind::InvalidCharacter => {
            Diagnostic::error(codes::INVALID_CHARACTER, "invalid character").with_label(span, "not part of any token")
        }
        LexErrorKind::UnterminatedString => {
            Diagnostic::error(codes::UNTERMINATED_STRING, "unterminated string literal")
                .with_label(Span::new(span.start as usize, span.start as usize + 1), "string starts here")
        }
        LexErrorKind::InvalidNumber(why) => {
            Diagnostic::error(codes::INVALID_NUMBER, format!("invalid number literal: {why}")).with_label(span, "here")
        }
        LexErrorKind::InvalidEscape(why) => {
            Diagnostic::error(codes::INVALID_ESCAPE, format!("invalid escape sequence: {why}"))
                .with_label(span, "in this string")
        }
    }
}
