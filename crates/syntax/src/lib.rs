//! Syntax of Triton kernel files: lexer, indentation adapter, grammar and AST.
//!
//! Invariant: parsing never panics; it returns a [`ast::Module`] holding the imports and the
//! `@triton.jit` functions of the file, or diagnostics with spans.
//!
//! Pipeline: [`token`] (logos) lexes the whole file, errors kept in place; [`layout`] keeps
//! only top-level `import`/`from` lines and `@triton.jit` / `@jit` functions (host code,
//! whatever it contains, is skipped, its lexer errors included) and gives each kept item
//! NEWLINE/INDENT/DEDENT tokens; the lalrpop grammar (`grammar/triton.lalrpop`) parses each
//! item on its own, so errors in several kernels are all reported.
//!
//! A function's docstring (a first statement that is a string literal) is *not* in its
//! `body`; it is in [`ast::FunctionDef::docstring`]. Relative imports (`from . import x`)
//! are host code and skipped. `from m import *` has the single name `*`.
//!
//! Diagnostic codes are `tilec_diagnostics::codes::syntax` (E01xx).

pub mod ast;
mod decorators;
pub mod layout;
mod parser;
mod print;
pub mod token;

use tilec_diagnostics::Diagnostic;

pub use print::print_module;

/// Diagnostic codes of this crate (E01xx), documented in the registry.
pub use tilec_diagnostics::codes::syntax as codes;

/// Parses a whole Triton source file. Host code around the kernels is skipped.
pub fn parse(source: &str) -> Result<ast::Module, Vec<Diagnostic>> {
    let raw = token::lex(source);
    let mut diagnostics = Vec::new();
    let mut module = ast::Module::default();
    for item in layout::top_level_items(source, &raw) {
        let before = diagnostics.len();
        let item_raw = &raw[item];
        let tokens = layout::layout(source, item_raw, &mut diagnostics);
        if diagnostics.len() > before {
            continue;
        }
        let end = item_raw.last().map_or(source.len(), |(_, span)| span.end);
        match parser::parse_item(tokens, end) {
            Ok(parser::Item::Imports(imports)) => module.imports.extend(imports),
            Ok(parser::Item::Function(function)) => module.functions.push(*function),
            Err(diagnostic) => diagnostics.push(diagnostic),
        }
    }
    if diagnostics.is_empty() {
        Ok(module)
    } else {
        Err(diagnostics)
    }
}

/// The token stream the grammar sees for `source` (kept items only, layout tokens
/// included), one token per entry as text; lexer and layout errors as diagnostics.
/// Used by tests and by anyone debugging the adapter.
pub fn token_texts(source: &str) -> Result<Vec<String>, Vec<Diagnostic>> {
    let raw = token::lex(source);
    let mut diagnostics = Vec::new();
    let mut texts = Vec::new();
    for item in layout::top_level_items(source, &raw) {
        let tokens = layout::layout(source, &raw[item], &mut diagnostics);
        texts.extend(tokens.into_iter().map(|(_, tok, _)| tok.to_string()));
    }
    if diagnostics.is_empty() {
        Ok(texts)
    } else {
        Err(diagnostics)
    }
}
