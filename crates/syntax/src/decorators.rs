//! Decoding of kernel decorators into [`FunctionDef`] fields.
//!
//! Recognized (with or without the `triton.` prefix): `jit` (bare or called: its keywords go
//! to `jit_kwargs`), `constexpr_function` or `tl.constexpr` (set
//! [`FunctionKind::ConstexprFunction`]), `autotune(configs=[Config(...), ...], key=[...], reset_to_zero=[...],
//! restore_value=[...])` (configs and key also positionally; other keywords are kept as
//! `options`) and `heuristics({'NAME': expr, ...})`. Other decorators are only kept in
//! `decorators`. Autotune configs given by a host expression (`configs=get_configs()`)
//! rather than a list literal are not decoded: `configs` is then empty; so are heuristics
//! tables computed by host code (`heuristics(get_heuristic_config("softmax"))`), whose span
//! is kept in `heuristics_from_host`. Literal structures
//! with the wrong shape (a config dict key that is not a string, ...) are diagnostics.

use tilec_diagnostics::Diagnostic;

use crate::ast::*;
use crate::codes;

/// Decodes one decorator into `function`.
pub fn decode(decorator: &Expr, function: &mut FunctionDef) -> Result<(), Diagnostic> {
    let (callee, args, keywords) = match &decorator.kind {
        ExprKind::Call { func, args, keywords } => (func.as_ref(), args.as_slice(), keywords.as_slice()),
        _ => (decorator, &[][..], &[][..]),
    };
    if dotted_path(callee).is_some_and(|path| is_constexpr_function_path(&path)) {
        function.kind = FunctionKind::ConstexprFunction;
        return Ok(());
    }
    match triton_name(callee) {
        Some("jit") => function.jit_kwargs.extend(keywords.iter().cloned()),
        Some("autotune") => function.autotune = Some(autotune(decorator, args, keywords)?),
        Some("heuristics") => match args.first().or_else(|| keyword(keywords, "values")) {
            Some(Expr { kind: ExprKind::Dict(entries), .. }) => function.heuristics.extend(heuristics(entries)?),
            Some(host) => function.heuristics_from_host = Some(host.span),
            None => {}
        },
        _ => {}
    }
    Ok(())
}

/// Whether a decorator's dotted name makes a compile-time function: `constexpr_function`
/// (bare, or from `triton`, `tl`, `triton.language`), or `constexpr` from `tl`,
/// `triton.language`, `language` or `core` (a function wrapped in a `tl.constexpr`, which
/// Triton calls at compile time like a `constexpr_function`).
pub fn is_constexpr_function_path(path: &[&str]) -> bool {
    let Some((last, prefix)) = path.split_last() else { return false };
    let prefix = prefix.join(".");
    match *last {
        "constexpr_function" => matches!(prefix.as_str(), "" | "triton" | "tl" | "triton.language"),
        "constexpr" => matches!(prefix.as_str(), "tl" | "triton.language" | "language" | "core" | "tl.core"),
        _ => false,
    }
}

/// The names of a dotted name expression (`tl.constexpr` → `["tl", "constexpr"]`).
fn dotted_path(e: &Expr) -> Option<Vec<&str>> {
    match &e.kind {
        ExprKind::Name(n) => Some(vec![n.as_str()]),
        ExprKind::Attribute { value, attr } => {
            let mut path = dotted_path(value)?;
            path.push(attr.name.as_str());
            Some(path)
        }
        _ => None,
    }
}

/// `triton.NAME` or `NAME` → `NAME`.
fn triton_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Name(n) => Some(n),
        ExprKind::Attribute { value, attr } if matches!(&value.kind, ExprKind::Name(m) if m == "triton") => {
            Some(&attr.name)
        }
        _ => None,
    }
}

fn keyword<'a>(keywords: &'a [Keyword], name: &str) -> Option<&'a Expr> {
    keywords.iter().find(|k| k.name.as_ref().is_some_and(|n| n.name == name)).map(|k| &k.value)
}

fn malformed(e: &Expr, message: &str) -> Diagnostic {
    Diagnostic::error(codes::DECORATOR, format!("malformed decorator: {message}")).with_label(e.span, "here")
}

fn autotune(decorator: &Expr, args: &[Expr], keywords: &[Keyword]) -> Result<Autotune, Diagnostic> {
    let configs_expr = args.first().or_else(|| keyword(keywords, "configs"));
    let key_expr = args.get(1).or_else(|| keyword(keywords, "key"));
    let (configs, configs_from_host) = match configs_expr {
        Some(Expr { kind: ExprKind::List(items), .. }) => (items.iter().map(config).collect::<Result<_, _>>()?, None),
        Some(other) => (Vec::new(), Some(other.span)),
        None => (Vec::new(), None),
    };
    let names = |name: &str| keyword(keywords, name).map_or(Ok(Vec::new()), |e| string_list(e, name));
    const DECODED: [&str; 4] = ["configs", "key", "reset_to_zero", "restore_value"];
    let options = keywords
        .iter()
        .filter(|k| k.name.as_ref().is_none_or(|n| !DECODED.contains(&n.name.as_str())))
        .cloned()
        .collect();
    Ok(Autotune {
        configs,
        configs_from_host,
        key: key_expr.map_or(Ok(Vec::new()), |e| string_list(e, "key"))?,
        key_span: key_expr.map_or(decorator.span, |e| e.span),
        reset_to_zero: names("reset_to_zero")?,
        restore_value: names("restore_value")?,
        options,
        span: decorator.span,
    })
}

/// A list or tuple of string literals (`key=['n', 'm']`); `None` is the empty list.
fn string_list(e: &Expr, what: &str) -> Result<Vec<String>, Diagnostic> {
    match &e.kind {
        ExprKind::List(items) | ExprKind::Tuple(items) => items
            .iter()
            .map(|item| match &item.kind {
                ExprKind::Str(s) => Ok(s.clone()),
                _ => Err(malformed(item, &format!("autotune `{what}` entries must be strings"))),
            })
            .collect(),
        ExprKind::None => Ok(Vec::new()),
        _ => Err(malformed(e, &format!("autotune `{what}` must be a list of parameter names"))),
    }
}

/// `triton.Config({'BLOCK': 128}, num_warps=4)`.
fn config(e: &Expr) -> Result<AutotuneConfig, Diagnostic> {
    let ExprKind::Call { func, args, keywords } = &e.kind else {
        return Err(malformed(e, "autotune configs must be `triton.Config(...)` calls"));
    };
    if triton_name(func) != Some("Config") {
        return Err(malformed(e, "autotune configs must be `triton.Config(...)` calls"));
    }
    let table = args.first().or_else(|| keyword(keywords, "kwargs"));
    let kwargs = match table {
        Some(Expr { kind: ExprKind::Dict(entries), .. }) => entries
            .iter()
            .map(|(k, v)| match &k.kind {
                ExprKind::Str(name) => Ok((name.clone(), v.clone())),
                _ => Err(malformed(k, "`triton.Config` keys must be strings")),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(malformed(other, "the first argument of `triton.Config` must be a dict literal")),
        None => Vec::new(),
    };
    let options = keywords.iter().filter(|k| k.name.as_ref().is_none_or(|n| n.name != "kwargs")).cloned().collect();
    Ok(AutotuneConfig { kwargs, options, span: e.span })
}

/// `{'NAME': expr, ...}` → `(NAME, expr)` pairs, the name's span being its string literal's.
fn heuristics(entries: &[(Expr, Expr)]) -> Result<Vec<(Ident, Expr)>, Diagnostic> {
    entries
        .iter()
        .map(|(k, v)| match &k.kind {
            ExprKind::Str(name) => Ok((Ident { name: name.clone(), span: k.span }, v.clone())),
            _ => Err(malformed(k, "heuristics keys must be strings")),
        })
        .collect()
}
