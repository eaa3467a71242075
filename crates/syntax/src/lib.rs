//! Syntax of Triton kernel files: lexer, indentation adapter, grammar and AST.
//!
//! Invariant: parsing never panics; it returns a [`ast::Module`] holding the imports, the
//! module-level assignments and the `@triton.jit` / `@triton.constexpr_function` functions
//! of the file (at any depth), or diagnostics with spans.
//!
//! Pipeline: [`token`] (logos) lexes the whole file, errors kept in place; [`layout`] keeps
//! only top-level `import`/`from` lines and assignments, and decorated functions (host code,
//! whatever it contains, is skipped, its lexer errors included) and gives each kept item
//! NEWLINE/INDENT/DEDENT tokens; the lalrpop grammar (`grammar/triton.lalrpop`) parses each
//! item on its own, so errors in several kernels are all reported; in a function that
//! does not parse, each statement is parsed again on its own, so its other syntax errors
//! are reported too.
//!
//! A function's docstring (a first statement that is a string literal) is *not* in its
//! `body`; it is in [`ast::FunctionDef::docstring`]. Relative imports (`from .m import x`)
//! keep their level ([`ast::Import::level`]). `from m import *` has the single name `*`.
//!
//! A program of several files ([`program::load`]) puts every file at its own base offset, so a
//! [`ast::Span`] names a file and a range in it (see [`tilec_diagnostics::SourceMap`]).
//!
//! Diagnostic codes are `tilec_diagnostics::codes::syntax` (E01xx).

pub mod ast;
mod decorators;
pub mod layout;
mod parser;
mod print;
pub mod program;
pub mod token;

use std::ops::Range;

use tilec_diagnostics::Diagnostic;

pub use print::print_module;
pub use program::{load, Binding, Links, LoadedModule, Program};

/// Diagnostic codes of this crate (E01xx), documented in the registry.
pub use tilec_diagnostics::codes::syntax as codes;

/// Parses a whole Triton source file. Host code around the kernels is skipped; a candidate
/// module global that does not parse is kept without a value (it is host code unless a
/// kernel reads it).
pub fn parse(source: &str) -> Result<ast::Module, Vec<Diagnostic>> {
    parse_at(source, 0)
}

/// [`parse`] for a file placed at byte offset `base` of a program: every span of the module
/// and of the diagnostics is `base` more than the offset in `source`.
pub fn parse_at(source: &str, base: u32) -> Result<ast::Module, Vec<Diagnostic>> {
    let base = base as usize;
    let raw = token::lex(source);
    let mut diagnostics = Vec::new();
    let mut module = ast::Module::default();
    for item in layout::top_level_items(source, &raw) {
        let item_raw = &raw[item.tokens];
        let end = item_raw.last().map_or(source.len(), |(_, span)| span.end);
        if item.kind == layout::ItemKind::Global {
            module.globals.extend(global(source, item_raw, end, base));
            continue;
        }
        if item.kind == layout::ItemKind::HostFunction {
            if let Some((Ok(token::Tok::Name(name)), span)) = item_raw.get(1) {
                let span = ast::Span::new(span.start + base, span.end + base);
                module.host_functions.push(ast::Ident { name: name.clone(), span });
            }
            continue;
        }
        let tokens = match laid_out(source, item_raw, base) {
            Ok(tokens) => tokens,
            Err(errors) => {
                diagnostics.extend(errors);
                continue;
            }
        };
        match parser::parse_item(shifted(tokens, base), end + base) {
            Ok(parser::Item::Imports(imports)) => module.imports.extend(imports),
            Ok(parser::Item::Function(mut function)) => {
                if let layout::ItemKind::Function { scope } = item.kind {
                    function.scope = scope;
                }
                module.functions.push(*function)
            }
            Err(diagnostic) => {
                let statements = match item.kind {
                    layout::ItemKind::Function { .. } => layout::body_statements(source, item_raw),
                    _ => Vec::new(),
                };
                let found = statement_errors(source, item_raw, &statements, base);
                // Errors in the `def` line itself are found by the whole parse only.
                if found.is_empty() {
                    diagnostics.push(diagnostic);
                } else {
                    diagnostics.extend(found);
                }
            }
        }
    }
    if diagnostics.is_empty() {
        Ok(module)
    } else {
        Err(diagnostics)
    }
}

/// The syntax errors of the statements `statements` (token ranges of `raw`) of a function
/// whose parse failed: each statement parsed on its own, as the body of a function of its
/// own, so that an error in one does not hide the errors of the next (error recovery inside
/// a function). A compound statement with an error reports it and the errors of its nested
/// statements after it.
fn statement_errors(
    source: &str,
    raw: &[layout::RawToken],
    statements: &[Range<usize>],
    base: usize,
) -> Vec<Diagnostic> {
    let mut found: Vec<Diagnostic> = Vec::new();
    for range in statements {
        let statement = &raw[range.clone()];
        let Some(start) = statement.first().map(|(_, span)| span.start) else { continue };
        let end = statement.last().map_or(start, |(_, span)| span.end);
        let tokens = match laid_out(source, statement, base) {
            Ok(tokens) => tokens,
            Err(errors) => {
                found.extend(errors);
                continue;
            }
        };
        // `@jit def _(): NEWLINE INDENT <statement> DEDENT`, the frame at the statement's start
        let at = |tok: token::Tok| (start, tok, start);
        let mut framed = vec![
            at(token::Tok::At),
            at(token::Tok::Name("jit".into())),
            at(token::Tok::Newline),
            at(token::Tok::Def),
            at(token::Tok::Name("_".into())),
            at(token::Tok::LPar),
            at(token::Tok::RPar),
            at(token::Tok::Colon),
            at(token::Tok::Newline),
            at(token::Tok::Indent),
        ];
        framed.extend(tokens);
        framed.push((end, token::Tok::Dedent, end));
        if let Err(d) = parser::parse_item(shifted(framed, base), end + base) {
            let at_error = d.span.map_or(0, |s| s.start as usize);
            let nested = layout::nested_statements(source, statement);
            let nested: Vec<Range<usize>> = nested
                .into_iter()
                .map(|r| r.start + range.start..r.end + range.start)
                .filter(|r| raw.get(r.start).is_some_and(|(_, span)| span.start + base > at_error))
                .collect();
            found.push(d);
            found.extend(statement_errors(source, raw, &nested, base));
        }
    }
    found
}

/// The grammar's tokens for `raw` ([`layout::layout`]), or its layout errors moved `base`
/// bytes later.
fn laid_out(source: &str, raw: &[layout::RawToken], base: usize) -> Result<Vec<layout::Spanned>, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let tokens = layout::layout(source, raw, &mut errors);
    if errors.is_empty() {
        return Ok(tokens);
    }
    let shift = |span: ast::Span| ast::Span::new(span.start as usize + base, span.end as usize + base);
    Err(errors.into_iter().map(|d| d.map_spans(shift)).collect())
}

/// `tokens` moved `base` bytes later.
fn shifted(tokens: Vec<layout::Spanned>, base: usize) -> Vec<layout::Spanned> {
    tokens.into_iter().map(|(l, t, r)| (l + base, t, r + base)).collect()
}

/// A top-level `NAME = value` / `NAME: annotation = value` line as a [`ast::Global`]; its
/// errors are dropped (the line may be host code).
fn global(source: &str, raw: &[layout::RawToken], end: usize, base: usize) -> Option<ast::Global> {
    let (Some((Ok(token::Tok::Name(name)), first)), Some((_, last))) =
        (raw.first(), raw.iter().rev().find(|(t, _)| !matches!(t, Ok(token::Tok::Newline))))
    else {
        return None;
    };
    let span = ast::Span::new(first.start + base, last.end + base);
    let name = ast::Ident { name: name.clone(), span: ast::Span::new(first.start + base, first.end + base) };
    let unparsed = ast::Global { name: name.clone(), annotation: None, value: None, span };
    let mut diagnostics = Vec::new();
    let tokens = layout::layout(source, raw, &mut diagnostics);
    if !diagnostics.is_empty() {
        return Some(unparsed);
    }
    let Ok(statements) = parser::parse_global(shifted(tokens, base), end + base) else {
        return Some(unparsed);
    };
    let [statement] = statements.as_slice() else {
        return Some(unparsed);
    };
    let is_name = |target: &ast::Expr| matches!(&target.kind, ast::ExprKind::Name(n) if *n == name.name);
    Some(match &statement.kind {
        ast::StmtKind::Assign { targets, value } if targets.len() == 1 && is_name(&targets[0]) => {
            ast::Global { name, annotation: None, value: Some(value.clone()), span }
        }
        ast::StmtKind::AnnAssign { target, annotation, value: Some(value) } if is_name(target) => {
            ast::Global { name, annotation: Some(annotation.clone()), value: Some(value.clone()), span }
        }
        _ => unparsed,
    })
}

/// The token stream the grammar sees for `source` (kept imports and functions only, layout
/// tokens included), one token per entry as text; lexer and layout errors as diagnostics.
/// Used by tests and by anyone debugging the adapter.
pub fn token_texts(source: &str) -> Result<Vec<String>, Vec<Diagnostic>> {
    let raw = token::lex(source);
    let mut diagnostics = Vec::new();
    let mut texts = Vec::new();
    for item in layout::top_level_items(source, &raw) {
        if matches!(item.kind, layout::ItemKind::Global | layout::ItemKind::HostFunction) {
            continue;
        }
        let tokens = layout::layout(source, &raw[item.tokens], &mut diagnostics);
        texts.extend(tokens.into_iter().map(|(_, tok, _)| tok.to_string()));
    }
    if diagnostics.is_empty() {
        Ok(texts)
    } else {
        Err(diagnostics)
    }
}
