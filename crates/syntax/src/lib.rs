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
//! # Diagnostic codes
//!
//! | code  | meaning |
//! |-------|---------|
//! | E0101 | unexpected token (the message names the token, the label what was expected) |
//! | E0102 | unterminated string literal |
//! | E0103 | unindent does not match any outer indentation level |
//! | E0104 | inconsistent use of tabs and spaces in indentation |
//! | E0105 | unexpected end of file |
//! | E0106 | invalid character |
//! | E0107 | unmatched, mismatched or unclosed bracket |
//! | E0108 | invalid number literal (leading zeros, too large) |
//! | E0109 | unexpected indent, or an indented block expected |
//! | E0110 | parameter form not allowed in kernels (`*args`, `**kwargs`, `/`, `*`) |
//! | E0111 | brackets nested too deeply, or a statement with too many operators |
//! | E0112 | invalid escape sequence in a string literal |
//! | E0113 | positional argument after keyword argument |
//! | E0114 | malformed `autotune` / `heuristics` decorator |

// Diagnostics are the error type everywhere; boxing them would buy nothing here.
#![allow(clippy::result_large_err)]

pub mod ast;
mod decorators;
pub mod layout;
mod parser;
mod print;
pub mod token;

use tilec_diagnostics::Diagnostic;

pub use print::print_module;

/// Diagnostic codes of this crate (see the table in the crate docs).
pub mod codes {
    pub const UNEXPECTED_TOKEN: &str = "E0101";
    pub const UNTERMINATED_STRING: &str = "E0102";
    pub const DEDENT: &str = "E0103";
    pub const TABS: &str = "E0104";
    pub const UNEXPECTED_EOF: &str = "E0105";
    pub const INVALID_CHARACTER: &str = "E0106";
    pub const BRACKET: &str = "E0107";
    pub const INVALID_NUMBER: &str = "E0108";
    pub const INDENTATION: &str = "E0109";
    pub const PARAMETER: &str = "E0110";
    pub const TOO_DEEP: &str = "E0111";
    pub const INVALID_ESCAPE: &str = "E0112";
    pub const ARGUMENT_ORDER: &str = "E0113";
    pub const DECORATOR: &str = "E0114";
}

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
