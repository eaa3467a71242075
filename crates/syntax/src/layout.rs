//! The token-stream adapter between the logos lexer and the grammar.
//!
//! Two steps:
//! 1. [`top_level_items`] cuts the raw token stream into logical lines (a line starts at a
//!    token outside brackets; decorator lines stick to the statement they decorate) and
//!    keeps top-level `import` / `from` lines (and those of the body of a top-level `try:`,
//!    which Python runs when they succeed), top-level assignments to one name (candidate
//!    module globals), and functions decorated with `@triton.jit`, `@jit`, `@triton.jit(...)`,
//!    `@jit(...)` or `@triton.constexpr_function` at any depth (a kernel defined inside a
//!    test function is kept with the names of the `def`s around it). Everything else is host
//!    code and is dropped unexamined, lexer errors included.
//! 2. [`layout`] turns one kept item into the grammar's token stream: NEWLINE at the end of
//!    each logical line, INDENT/DEDENT from an indentation stack, none of them inside
//!    brackets (the item's first line is the base level, so nested functions need no
//!    re-indenting); blank and comment-only lines produce nothing; INDENT and DEDENT have
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

/// What a kept item is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// A top-level `import` / `from` line.
    Import,
    /// A function decorated with `@triton.jit` (or `@triton.constexpr_function`), at any
    /// depth: `scope` names the `def`s and `class`es around it, outermost first.
    Function { scope: Vec<String> },
    /// A top-level assignment to one name (`NAME = ...`, `NAME: annotation = ...`): a
    /// candidate module global, parsed leniently since it may be host code.
    Global,
    /// A top-level `def` without a kept decorator: host Python, of which only the name is
    /// kept (its tokens are the `def` keyword and the name), so that a kernel calling it
    /// can be told why it cannot.
    HostFunction,
}

/// One item to parse: its tokens (indices into `raw`) and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptItem {
    pub tokens: Range<usize>,
    pub kind: ItemKind,
}

/// The items to parse, in source order. A function item nested in another kept function
/// is not an item of its own (the enclosing function's parse rejects it).
pub fn top_level_items(source: &str, raw: &[RawToken]) -> Vec<KeptItem> {
    let lines = logical_lines(source, raw);
    let tok = |i: usize| raw.get(i).and_then(|(t, _)| t.as_ref().ok());
    let mut items: Vec<KeptItem> = Vec::new();
    // Enclosing `def`/`class` statements: (indentation, name).
    let mut scopes: Vec<(u32, String)> = Vec::new();
    let mut inside_kept_function_until = 0usize;
    // The indentation of the body of the top-level `try:` being read, if any: its imports
    // are the ones Python runs (an `except ImportError:` fallback is for older Tritons).
    let mut try_body: Option<Option<u32>> = None;
    let mut n = 0;
    while n < lines.len() {
        let (first, col) = lines[n];
        // Decorator lines stick to the statement they decorate (same indentation).
        let mut last = n;
        while matches!(tok(lines[last].0), Some(Tok::At)) && lines.get(last + 1).is_some_and(|l| l.1 == col) {
            last += 1;
        }
        let statement = lines[last].0;
        let end = lines[last + 1..].iter().find(|l| l.1 <= col).map_or(raw.len(), |l| l.0);
        let group: Vec<usize> = lines[n..=last].iter().map(|l| l.0).collect();
        scopes.retain(|(indent, _)| *indent < col);
        let decorated = group.len() > 1 || matches!(tok(statement), Some(Tok::At));
        if col == 0 {
            try_body = matches!(tok(first), Some(Tok::Try)).then_some(None);
        } else if let Some(body) = &mut try_body {
            let indent = *body.get_or_insert(col);
            if col == indent && matches!(tok(first), Some(Tok::Import | Tok::From)) {
                items.push(KeptItem { tokens: first..end, kind: ItemKind::Import });
            }
        }
        if first >= inside_kept_function_until {
            if decorated && group.iter().any(|&s| is_kept_decorator(raw, s)) {
                let is_def = matches!(tok(statement), Some(Tok::Def));
                // Decorators at the end of the file decorate nothing: a kept one is a
                // function cut short, parsed so that the error is reported.
                if is_def || last + 1 == lines.len() && matches!(tok(statement), Some(Tok::At)) {
                    let scope = scopes.iter().map(|(_, name)| name.clone()).collect();
                    items.push(KeptItem { tokens: first..end, kind: ItemKind::Function { scope } });
                    inside_kept_function_until = end;
                }
            } else if col == 0 && !decorated {
                let kind = match tok(first) {
                    Some(Tok::Import) => Some(ItemKind::Import),
                    Some(Tok::From) => Some(ItemKind::Import),
                    Some(Tok::Name(_)) if matches!(tok(first + 1), Some(Tok::Equal | Tok::Colon)) => {
                        Some(ItemKind::Global)
                    }
                    Some(Tok::Def) if matches!(tok(first + 1), Some(Tok::Name(_))) => {
                        items.push(KeptItem { tokens: first..first + 2, kind: ItemKind::HostFunction });
                        None
                    }
                    _ => None,
                };
                if let Some(kind) = kind {
                    items.push(KeptItem { tokens: first..end, kind });
                }
            }
        }
        let def_name = match (tok(statement), tok(statement + 1), tok(statement + 2)) {
            (Some(Tok::Def | Tok::Class), Some(Tok::Name(name)), _) => Some(name.clone()),
            (Some(Tok::Async), Some(Tok::Def), Some(Tok::Name(name))) => Some(name.clone()),
            _ => None,
        };
        if let Some(name) = def_name {
            scopes.push((col, name));
        }
        n = last + 1;
    }
    items
}

/// The logical lines outside brackets: the index of each one's first token and its
/// indentation (tabs to multiples of 8).
fn logical_lines(source: &str, raw: &[RawToken]) -> Vec<(usize, u32)> {
    let mut lines = Vec::new();
    let mut depth = 0usize;
    let mut at_line_start = true;
    for (i, (tok, span)) in raw.iter().enumerate() {
        if let Ok(Tok::Newline) = tok {
            if depth == 0 {
                at_line_start = true;
            }
            continue;
        }
        if at_line_start && depth == 0 {
            lines.push((i, indentation(source, line_start(source, span.start), span.start).0));
        }
        at_line_start = false;
        match tok.as_ref().ok().and_then(Tok::bracket) {
            Some(true) => depth += 1,
            Some(false) => depth = depth.saturating_sub(1),
            None => {}
        }
    }
    lines
}

/// The statements of a block, as token ranges of `raw`: the logical lines from `first_line`
/// on (indices into [`logical_lines`]) grouped under those at the indentation of the
/// first, each with the deeper lines that follow it (a compound statement's body).
/// (`elif`, `else`, `except` and `finally` lines continue the statement before them.)
fn groups(raw: &[RawToken], lines: &[(usize, u32)]) -> Vec<Range<usize>> {
    let Some(&(_, col)) = lines.first() else { return Vec::new() };
    let continues = |first: usize| matches!(raw[first].0, Ok(Tok::Elif | Tok::Else | Tok::Except | Tok::Finally));
    let starts: Vec<usize> = lines.iter().filter(|l| l.1 <= col && !continues(l.0)).map(|l| l.0).collect();
    starts.iter().enumerate().map(|(i, &start)| start..starts.get(i + 1).copied().unwrap_or(raw.len())).collect()
}

/// The statements of the body of the function whose tokens (decorators first) are `raw`,
/// as token ranges of `raw`; empty when the body is on the `def` line.
pub fn body_statements(source: &str, raw: &[RawToken]) -> Vec<Range<usize>> {
    let lines = logical_lines(source, raw);
    let Some(def) = lines
        .iter()
        .position(|&(first, _)| matches!(raw[first].0, Ok(Tok::Def)) || matches!(raw[first].0, Ok(Tok::Async)))
    else {
        return Vec::new();
    };
    groups(raw, &lines[def + 1..])
}

/// The statements nested in the compound statement whose tokens are `raw` (its header
/// line first), as token ranges of `raw`.
pub fn nested_statements(source: &str, raw: &[RawToken]) -> Vec<Range<usize>> {
    let lines = logical_lines(source, raw);
    groups(raw, lines.get(1..).unwrap_or_default())
}

/// Whether the decorator line starting at the `@` token `at` keeps its function:
/// `@triton.jit` / `@jit` (bare or called) or `@triton.constexpr_function`.
fn is_kept_decorator(raw: &[RawToken], at: usize) -> bool {
    is_jit_decorator(raw, at) || is_constexpr_function_decorator(raw, at)
}

/// `@triton.constexpr_function` (or `@constexpr_function`, `@tl.constexpr_function`), or a
/// function wrapped in a constexpr (`@tl.constexpr`, `@triton.language.constexpr`,
/// `@core.constexpr`), which Triton calls at compile time the same way.
fn is_constexpr_function_decorator(raw: &[RawToken], at: usize) -> bool {
    let tok = |i: usize| raw.get(i).and_then(|(t, _)| t.as_ref().ok());
    let mut path = Vec::new();
    let mut i = at + 1;
    while let Some(Tok::Name(n)) = tok(i) {
        path.push(n.as_str());
        i += 1;
        if !matches!(tok(i), Some(Tok::Dot)) {
            break;
        }
        i += 1;
    }
    matches!(tok(i), None | Some(Tok::Newline)) && crate::decorators::is_constexpr_function_path(&path)
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
    // A nested function's lines are indented: its first line is the base level.
    let base = raw.first().map_or((0, 0), |(_, span)| indentation(source, line_start(source, span.start), span.start));
    let mut levels: Vec<(u32, u32)> = vec![base];
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
