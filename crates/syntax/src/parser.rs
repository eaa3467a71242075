//! Glue between the lalrpop grammar and the AST: node builders used by the grammar's
//! actions, decorator decoding, and the conversion of parse errors into diagnostics.
//!
//! Invariant: the grammar's actions build AST nodes only through this module or the AST
//! types directly; nothing here knows about the token stream's origin.

use lalrpop_util::ParseError;
use tilec_diagnostics::{Diagnostic, Span};

use crate::ast::*;
use crate::codes;
use crate::layout::Spanned;
use crate::token::{StrKind, StrLit, Tok};

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, unused_imports, dead_code)]
    grammar,
    "/triton.rs"
);

/// The error type of grammar actions.
pub type SyntaxError = Diagnostic;

/// One kept top-level item.
pub enum Item {
    Imports(Vec<Import>),
    Function(Box<FunctionDef>),
}

/// A `def` as the grammar sees it, before decorators are attached and checked.
pub struct RawFunction {
    pub name: Ident,
    pub params: Vec<ParamItem>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// A parameter slot: a named parameter, `*name`, a bare `*`, or a form tilec does not take
/// (`**kwargs`, `/`).
pub enum ParamItem {
    Plain(Box<Param>),
    VarArgs(Box<Param>),
    /// A bare `*`: the parameters after it are keyword-only.
    Star(Span),
    Other(&'static str, Span),
}

/// One call argument, before positional and keyword arguments are separated.
pub enum Arg {
    Positional(Expr),
    Keyword(Box<Keyword>),
}

/// Parses a candidate module global's token stream: one simple statement line.
pub fn parse_global(tokens: Vec<Spanned>, end_of_input: usize) -> Result<Vec<Stmt>, Diagnostic> {
    grammar::GlobalLineParser::new()
        .parse(tokens.into_iter().map(Ok::<Spanned, SyntaxError>))
        .map_err(|e| parse_error(e, end_of_input))
}

/// Parses one item's token stream (from [`crate::layout::layout`]).
pub fn parse_item(tokens: Vec<Spanned>, end_of_input: usize) -> Result<Item, Diagnostic> {
    grammar::ItemParser::new()
        .parse(tokens.into_iter().map(Ok::<Spanned, SyntaxError>))
        .map_err(|e| parse_error(e, end_of_input))
}

fn parse_error(error: ParseError<usize, Tok, SyntaxError>, end_of_input: usize) -> Diagnostic {
    match error {
        ParseError::User { error } => error,
        ParseError::InvalidToken { location } => Diagnostic::error(codes::INVALID_CHARACTER, "invalid token")
            .with_label(Span::new(location, location), "here"),
        ParseError::UnrecognizedEof { location, expected } => {
            let location = location.max(end_of_input);
            if expected.iter().any(|e| e == "INDENT") {
                return Diagnostic::error(codes::INDENTATION, "expected an indented block")
                    .with_label(Span::new(location, location), "the block ends before its first statement");
            }
            Diagnostic::error(codes::UNEXPECTED_EOF, "unexpected end of file")
                .with_label(Span::new(location, location), format!("expected {}", expected_list(&expected)))
        }
        ParseError::UnrecognizedToken { token: (start, tok, end), expected } => unexpected(tok, start, end, &expected),
        ParseError::ExtraToken { token: (start, tok, end) } => unexpected(tok, start, end, &[]),
    }
}

fn unexpected(tok: Tok, start: usize, end: usize, expected: &[String]) -> Diagnostic {
    let span = Span::new(start, end);
    let expects_indent = expected.iter().any(|e| e == "INDENT");
    match tok {
        Tok::Indent => Diagnostic::error(codes::INDENTATION, "unexpected indent")
            .with_label(span, "this line is indented more than the block it belongs to"),
        _ if expects_indent => Diagnostic::error(codes::INDENTATION, "expected an indented block")
            .with_label(span, format!("found {}", tok.describe())),
        Tok::Dedent => Diagnostic::error(codes::UNEXPECTED_TOKEN, "unexpected end of block")
            .with_label(span, format!("expected {}", expected_list(expected))),
        _ => {
            let label = if expected.is_empty() {
                "not expected here".to_string()
            } else {
                format!("expected {}", expected_list(expected))
            };
            Diagnostic::error(codes::UNEXPECTED_TOKEN, format!("unexpected {}", tok.describe())).with_label(span, label)
        }
    }
}

/// Names lalrpop's expected terminals readably: `` `)` ``, `a name`, `end of line`, ...
/// Long lists are summarized ("an expression", "an operator or the end of the line").
fn expected_list(expected: &[String]) -> String {
    const SHOWN: usize = 6;
    let has = |terminal: &str| expected.iter().any(|e| e == terminal);
    if expected.len() > SHOWN {
        if has("Name") && has("Int") {
            return "an expression".to_string();
        }
        if has("NEWLINE") {
            return "an operator or the end of the line".to_string();
        }
        for closer in [r#"")""#, r#""]""#, r#""}""#] {
            if has(closer) && has(r#"",""#) {
                return format!("an operator, `,` or `{}`", closer.trim_matches('"'));
            }
        }
    }
    // Structural tokens first: they are what a truncated list should show.
    const FIRST: [&str; 8] = [r#"":""#, r#""in""#, r#""=""#, r#"",""#, r#"")""#, r#""]""#, r#""}""#, r#""(""#];
    let mut ordered: Vec<&String> = expected.iter().collect();
    ordered.sort_by_key(|e| FIRST.iter().position(|f| f == e).unwrap_or(FIRST.len()));
    let names: Vec<String> = ordered
        .into_iter()
        .map(|e| match e.as_str() {
            "Name" => "a name".to_string(),
            "Int" | "Float" | "Imaginary" => "a number".to_string(),
            "Str" => "a string".to_string(),
            "NEWLINE" => "the end of the line".to_string(),
            "INDENT" => "an indented block".to_string(),
            "DEDENT" => "the end of the block".to_string(),
            quoted => format!("`{}`", quoted.trim_matches('"').replace("\\\"", "\"")),
        })
        .fold(Vec::new(), |mut seen, name| {
            if !seen.contains(&name) {
                seen.push(name);
            }
            seen
        });
    match names.len() {
        0 => "something else".to_string(),
        1 => names[0].clone(),
        n if n <= SHOWN => format!("one of {}", names.join(", ")),
        n => format!("one of {}, ... ({} more)", names[..SHOWN].join(", "), n - SHOWN),
    }
}

pub fn span(l: usize, r: usize) -> Span {
    Span::new(l, r)
}

pub fn prepend<T>(first: T, mut rest: Vec<T>) -> Vec<T> {
    rest.insert(0, first);
    rest
}

/// The end of the last statement, or `default` if there is none.
pub fn end_of(stmts: &[Stmt], default: usize) -> usize {
    stmts.last().map_or(default, |s| s.span.end as usize)
}

pub fn tuple_or_single(first: Expr, rest: Vec<Expr>, trailing_comma: bool, span: Span) -> Expr {
    if rest.is_empty() && !trailing_comma {
        return first;
    }
    Expr { kind: ExprKind::Tuple(prepend(first, rest)), span }
}

/// `( e )`: a tuple takes the parentheses into its span; any other expression keeps its own.
pub fn parenthesized(e: Expr, span: Span) -> Expr {
    match e.kind {
        ExprKind::Tuple(_) => Expr { span, ..e },
        _ => e,
    }
}

pub fn binop(op: BinOp, lhs: Expr, rhs: Expr, span: Span) -> Expr {
    Expr { kind: ExprKind::BinOp { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span }
}

pub fn unary(op: UnaryOp, operand: Expr, span: Span) -> Expr {
    Expr { kind: ExprKind::UnaryOp { op, operand: Box::new(operand) }, span }
}

pub fn boolop(op: BoolOp, first: Expr, rest: Vec<Expr>, span: Span) -> Expr {
    Expr { kind: ExprKind::BoolOp { op, values: prepend(first, rest) }, span }
}

pub fn compare(left: Expr, rest: Vec<(CmpOp, Expr)>, span: Span) -> Expr {
    let (ops, comparators) = rest.into_iter().unzip();
    Expr { kind: ExprKind::Compare { left: Box::new(left), ops, comparators }, span }
}

pub fn unsupported(what: &str, span: Span) -> Expr {
    Expr { kind: ExprKind::Unsupported { what: what.to_string() }, span }
}

pub fn unsupported_stmt(what: &str) -> StmtKind {
    StmtKind::Unsupported { what: what.to_string() }
}

/// A boxed statement of `kind` whose span the caller sets.
pub fn unspanned(kind: StmtKind) -> Box<Stmt> {
    Box::new(Stmt { kind, span: Span::default() })
}

pub fn unsupported_stmt_at(what: &str, start: usize, end: usize) -> Box<Stmt> {
    Box::new(Stmt { kind: unsupported_stmt(what), span: span(start, end) })
}

/// `a = b = value`: every part but the last is a target.
pub fn assign(first: Expr, mut rest: Vec<Expr>) -> StmtKind {
    let value = rest.pop().unwrap_or_else(|| unsupported("assignment without a value", first.span));
    StmtKind::Assign { targets: prepend(first, rest), value }
}

/// A lambda whose parameters are all plain names; defaults and star parameters make it
/// `Unsupported`.
pub fn lambda(params: Vec<Option<Ident>>, body: Expr, span: Span) -> Expr {
    match params.into_iter().collect::<Option<Vec<Ident>>>() {
        Some(params) => Expr { kind: ExprKind::Lambda { params, body: Box::new(body) }, span },
        None => unsupported("lambda with default or star parameters", span),
    }
}

pub fn dict(entries: Vec<Option<Box<(Expr, Expr)>>>, span: Span) -> Expr {
    match entries.into_iter().collect::<Option<Vec<_>>>() {
        Some(entries) => Expr { kind: ExprKind::Dict(entries.into_iter().map(|e| *e).collect()), span },
        None => unsupported("dict unpacking `**`", span),
    }
}

/// Adjacent string literals concatenate; f-strings and bytes are `Unsupported`.
pub fn strings(parts: Vec<StrLit>, span: Span) -> Expr {
    if parts.iter().any(|s| s.kind == StrKind::Format) {
        return unsupported("f-string", span);
    }
    if parts.iter().any(|s| s.kind == StrKind::Bytes) {
        return unsupported("bytes literal", span);
    }
    Expr { kind: ExprKind::Str(parts.into_iter().map(|s| s.value).collect()), span }
}

pub fn call(func: Expr, args: Vec<Arg>, span: Span) -> Result<Expr, ParseError<usize, Tok, SyntaxError>> {
    let mut positional = Vec::new();
    let mut keywords: Vec<Keyword> = Vec::new();
    for arg in args {
        match arg {
            Arg::Positional(e) => {
                let starred = matches!(e.kind, ExprKind::Starred(_));
                if let Some(kw) = keywords.last().filter(|_| !starred || keywords.iter().any(|k| k.name.is_none())) {
                    return Err(ParseError::User {
                        error: Diagnostic::error(codes::ARGUMENT_ORDER, "positional argument follows keyword argument")
                            .with_label(e.span, "positional argument")
                            .with_secondary(kw.span, "after this keyword argument"),
                    });
                }
                positional.push(e);
            }
            Arg::Keyword(k) => keywords.push(*k),
        }
    }
    Ok(Expr { kind: ExprKind::Call { func: Box::new(func), args: positional, keywords }, span })
}

fn second_star(span: Span) -> ParseError<usize, Tok, SyntaxError> {
    ParseError::User {
        error: Diagnostic::error(codes::PARAMETER, "`*` may appear only once in a parameter list")
            .with_label(span, "second `*`"),
    }
}

/// Attaches decorators to a top-level `def`, decodes autotune/heuristics/jit arguments,
/// takes out the docstring, and rejects parameter forms kernels cannot have.
///
/// The docstring (a first statement that is a plain string literal) is removed from `body`
/// and kept in [`FunctionDef::docstring`].
pub fn finish_function(
    decorators: Vec<Expr>,
    def: RawFunction,
) -> Result<FunctionDef, ParseError<usize, Tok, SyntaxError>> {
    let mut params: Vec<Param> = Vec::new();
    let mut keyword_only = false;
    for item in def.params {
        match item {
            ParamItem::Plain(mut p) => {
                if keyword_only {
                    p.kind = ParamKind::KeywordOnly;
                }
                params.push(*p)
            }
            ParamItem::VarArgs(p) if keyword_only => return Err(second_star(p.span)),
            ParamItem::Star(span) if keyword_only => return Err(second_star(span)),
            ParamItem::VarArgs(p) => {
                keyword_only = true;
                params.push(Param { kind: ParamKind::VarArgs, ..*p })
            }
            ParamItem::Star(_) => keyword_only = true,
            ParamItem::Other(what, span) => {
                return Err(ParseError::User {
                    error: Diagnostic::error(
                        codes::PARAMETER,
                        format!("{what} are not supported in `@triton.jit` functions"),
                    )
                    .with_label(span, "unsupported parameter"),
                })
            }
        }
    }
    let mut body = def.body;
    let docstring = match body.first().map(|s| &s.kind) {
        Some(StmtKind::Expr(Expr { kind: ExprKind::Str(text), .. })) => {
            let text = text.clone();
            body.remove(0);
            Some(text)
        }
        _ => None,
    };
    let mut function = FunctionDef {
        name: def.name,
        scope: Vec::new(),
        kind: FunctionKind::Jit,
        params,
        body,
        decorators: Vec::new(),
        autotune: None,
        heuristics: Vec::new(),
        heuristics_from_host: None,
        jit_kwargs: Vec::new(),
        docstring,
        span: def.span,
    };
    for decorator in &decorators {
        crate::decorators::decode(decorator, &mut function).map_err(|error| ParseError::User { error })?;
    }
    if let Some(first) = decorators.first() {
        function.span = first.span.to(function.span);
    }
    function.decorators = decorators;
    Ok(function)
}
