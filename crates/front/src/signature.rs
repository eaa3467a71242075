//! Signatures in the format of Triton's `compile.py` and constant values of `-c NAME=VALUE`.

use crate::errors::{self, BAD_SIGNATURE};
use crate::{ConstValue, KernelParam, SigItem};
use tilec_diagnostics::Diagnostic;
use tilec_ir::{ScalarType, Type};
use tilec_syntax::ast;

/// Parses `"*fp32:16, i32, i32:1, 1024"`; an empty string is an empty signature. Every bad
/// item is reported, in order.
pub fn parse_signature(text: &str) -> Result<Vec<SigItem>, Vec<Diagnostic>> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let (items, bad): (Vec<_>, Vec<_>) = split_top_level(text)
        .into_iter()
        .enumerate()
        .map(|(i, item)| parse_item(item.trim(), i))
        .partition(Result::is_ok);
    match bad.is_empty() {
        true => Ok(items.into_iter().flatten().collect()),
        false => Err(bad.into_iter().filter_map(Result::err).collect()),
    }
}

/// `text` split at the commas outside parentheses, brackets and angle brackets (so a tuple
/// value such as `(2, 4)` and `tensordesc<fp16[64, 64]>` stay one item each).
fn split_top_level(text: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '<' => depth += 1,
            ')' | ']' | '>' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&text[start..]);
    items
}

/// Parses `tensordesc<fp16[64, 64]>` (Triton's spelling in signatures).
fn parse_descriptor(item: &str, index: usize) -> Result<SigItem, Diagnostic> {
    let expected = "expected `tensordesc<DTYPE[B0, B1, ...]>`";
    let inner =
        item.strip_prefix("tensordesc<").and_then(|r| r.strip_suffix('>')).ok_or_else(|| bad(index, item, expected))?;
    let (dtype, rest) = inner.split_once('[').ok_or_else(|| bad(index, item, expected))?;
    let dims = rest.strip_suffix(']').ok_or_else(|| bad(index, item, expected))?;
    let elem = ScalarType::from_name(dtype.trim())
        .ok_or_else(|| bad(index, item, &format!("unknown element type `{}`", dtype.trim())))?;
    let block = dims
        .split(',')
        .map(|d| match d.trim().parse::<u32>() {
            Ok(n) if n.is_power_of_two() => Ok(n),
            _ => Err(bad(index, item, &format!("block dimension `{}` is not a power of two", d.trim()))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if !(1..=5).contains(&block.len()) {
        return Err(bad(index, item, "a tensor descriptor has 1 to 5 dimensions"));
    }
    if block[block.len() - 1] * elem.bytes() < 16 {
        return Err(bad(index, item, "the last block dimension must cover at least 16 bytes"));
    }
    Ok(SigItem::TensorDesc { elem, block })
}

/// The runtime parameters a `tensordesc` parameter `name` of `rank` dimensions becomes, in
/// order: the base pointer (`name`, 16-byte aligned), the shape (`name_shape_D`, `i32`) and
/// the strides but the last (`name_stride_D`, `i64`, multiples of 16 bytes).
pub fn descriptor_params(name: &str, elem: ScalarType, rank: usize) -> Vec<(String, Type, u32)> {
    let mut out = vec![(name.to_string(), Type::ptr(elem), 16)];
    out.extend((0..rank).map(|d| (format!("{name}_shape_{d}"), Type::scalar(ScalarType::I32), 1)));
    let stride_divisibility = (16 / elem.bytes()).max(1);
    out.extend(
        (0..rank - 1).map(|d| (format!("{name}_stride_{d}"), Type::scalar(ScalarType::I64), stride_divisibility)),
    );
    out
}

fn bad(index: usize, item: &str, why: &str) -> Diagnostic {
    Diagnostic::error(BAD_SIGNATURE, format!("bad signature item {} `{item}`: {why}", index + 1))
        .with_note(
            "expected `*TYPE[:16]`, `TYPE[:1|:16]`, `tensordesc<TYPE[BLOCK]>` or a constexpr value, e.g. \"*fp32:16, i32, 1024\"",
        )
}

fn parse_item(item: &str, index: usize) -> Result<SigItem, Diagnostic> {
    if item.is_empty() {
        return Err(bad(index, item, "empty item"));
    }
    if item.starts_with("tensordesc") {
        return parse_descriptor(item, index);
    }
    let (body, attr) = match item.split_once(':') {
        Some((b, a)) => (b.trim(), Some(a.trim())),
        None => (item, None),
    };
    let divisibility = match attr {
        None => 1,
        Some(a) => match a.parse::<u32>() {
            Ok(d) if d >= 1 && d.is_power_of_two() => d,
            _ => return Err(bad(index, item, "the number after `:` must be a power of two (1 or 16)")),
        },
    };
    if let Some(pointee) = body.strip_prefix('*') {
        let pointee = ScalarType::from_name(pointee.trim())
            .ok_or_else(|| bad(index, item, &format!("unknown pointee type `{}`", pointee.trim())))?;
        if divisibility == 1 && attr.is_some() {
            return Err(bad(index, item, "a pointer cannot be equal to 1"));
        }
        return Ok(SigItem::Ptr { pointee, divisibility });
    }
    if let Some(ty) = ScalarType::from_name(body) {
        if attr.is_some() && !ty.is_int() {
            return Err(bad(index, item, "only integer parameters take `:1` or `:16`"));
        }
        let equal_to_one = attr.is_some() && divisibility == 1;
        return Ok(SigItem::Scalar { ty, divisibility, equal_to_one });
    }
    if attr.is_some() {
        return Err(bad(index, item, &format!("unknown type `{body}`")));
    }
    match parse_const_value(body) {
        ConstValue::Str(_) if !is_quoted(body) => Err(bad(index, item, &format!("unknown type `{body}`"))),
        v => Ok(SigItem::Constexpr(v)),
    }
}

fn is_quoted(s: &str) -> bool {
    s.len() >= 2 && ((s.starts_with('"') && s.ends_with('"')) || (s.starts_with('\'') && s.ends_with('\'')))
}

/// Parses an int (decimal, hex, octal or binary, with sign), float, `True`/`False`, `None`,
/// a dtype (`tl.float16`, `triton.language.int8`, `fp16`), a tuple or list of these
/// (`(2, 4)`, `[1]`, `(8,)`) or else a string (quotes removed).
pub fn parse_const_value(text: &str) -> ConstValue {
    let t = text.trim();
    let bracketed = (t.starts_with('(') && t.ends_with(')')) || (t.starts_with('[') && t.ends_with(']'));
    if bracketed && t.len() >= 2 {
        let inner = t[1..t.len() - 1].trim();
        if inner.is_empty() {
            return ConstValue::Tuple(Vec::new());
        }
        let mut parts = split_top_level(inner);
        if parts.last().is_some_and(|p| p.trim().is_empty()) {
            parts.pop();
        }
        return ConstValue::Tuple(parts.into_iter().map(parse_const_value).collect());
    }
    if let Some(i) = parse_int(t) {
        return ConstValue::Int(i);
    }
    if let Ok(x) = t.parse::<f64>() {
        if t.chars().any(|c| c.is_ascii_digit()) || t.contains("inf") || t.contains("nan") {
            return ConstValue::Float(x);
        }
    }
    match t {
        "True" | "true" => return ConstValue::Bool(true),
        "False" | "false" => return ConstValue::Bool(false),
        "None" => return ConstValue::None,
        _ => {}
    }
    let dtype = t.strip_prefix("triton.language.").or_else(|| t.strip_prefix("tl.")).unwrap_or(t);
    if let Some(ty) = ScalarType::from_name(dtype) {
        return ConstValue::DType(ty);
    }
    if is_quoted(t) {
        return ConstValue::Str(t[1..t.len() - 1].to_string());
    }
    ConstValue::Str(t.to_string())
}

fn parse_int(t: &str) -> Option<i128> {
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let digits = digits.replace('_', "");
    let lower = digits.to_ascii_lowercase();
    let value = if let Some(h) = lower.strip_prefix("0x") {
        i128::from_str_radix(h, 16).ok()?
    } else if let Some(o) = lower.strip_prefix("0o") {
        i128::from_str_radix(o, 8).ok()?
    } else if let Some(b) = lower.strip_prefix("0b") {
        i128::from_str_radix(b, 2).ok()?
    } else if !lower.is_empty() && lower.bytes().all(|c| c.is_ascii_digit()) {
        lower.parse::<i128>().ok()?
    } else {
        return None;
    };
    Some(if neg { -value } else { value })
}

/// [`parse_signature`] for kernel `kernel` of `module`: a bad signature is reported at the
/// kernel's name, so the diagnostic names a line and column of the file.
pub fn parse_signature_for(module: &ast::Module, kernel: &str, text: &str) -> Result<Vec<SigItem>, Vec<Diagnostic>> {
    let kernel = find_kernel(module, kernel).ok();
    parse_signature(text).map_err(|ds| {
        ds.into_iter()
            .map(|d| match kernel {
                Some(f) => d.with_label(f.name.span, format!("signature \"{text}\" given for this kernel")),
                None => d,
            })
            .collect()
    })
}

/// Whether a parameter annotation says `tl.constexpr` (any spelling ending in `constexpr`).
pub fn is_constexpr_annotation(annotation: Option<&ast::Expr>) -> bool {
    match annotation.map(|a| &a.kind) {
        Some(ast::ExprKind::Name(n)) => n == "constexpr",
        Some(ast::ExprKind::Attribute { attr, .. }) => attr.name == "constexpr",
        Some(ast::ExprKind::Str(s)) => s.ends_with("constexpr"),
        _ => false,
    }
}

/// The dotted name of `f` with the `def`s and `class`es around it (`test_add.kernel`).
pub fn qualified_name(f: &ast::FunctionDef) -> String {
    f.scope.iter().chain([&f.name.name]).cloned().collect::<Vec<_>>().join(".")
}

/// Finds kernel `kernel` in `module`: by qualified name (`kernel`, `test_add.kernel`; the
/// last definition wins, as in Python), else by a dotted suffix of it (`kernel` or
/// `test_add.kernel` for `TestOps.test_add.kernel`) when one function has it.
pub fn find_kernel<'m>(module: &'m ast::Module, kernel: &str) -> Result<&'m ast::FunctionDef, Diagnostic> {
    find_kernel_index(module, kernel).map(|i| &module.functions[i])
}

/// [`find_kernel`], as an index into `module.functions`.
pub fn find_kernel_index(module: &ast::Module, kernel: &str) -> Result<usize, Diagnostic> {
    let functions = &module.functions;
    let found = functions.iter().rposition(|f| qualified_name(f) == kernel).map_or_else(
        || {
            let suffix = format!(".{kernel}");
            let by_name: Vec<usize> =
                (0..functions.len()).filter(|&i| qualified_name(&functions[i]).ends_with(&suffix)).collect();
            let mut names: Vec<String> = by_name.iter().map(|&i| qualified_name(&functions[i])).collect();
            names.dedup();
            match (by_name.last(), names.len()) {
                (Some(&i), 1) => Ok(i),
                (Some(&i), _) => Err(Diagnostic::error(
                    errors::AMBIGUOUS_KERNEL,
                    format!("{} `@triton.jit` functions are named `{kernel}`", names.len()),
                )
                .with_label(functions[i].name.span, "one of them")
                .with_note(format!("select one by its qualified name: {}", names.join(", ")))),
                (None, _) => Err(unknown_kernel(module, kernel)),
            }
        },
        Ok,
    )?;
    let f = &functions[found];
    if f.kind == ast::FunctionKind::ConstexprFunction {
        return Err(errors::err_label(
            errors::UNKNOWN_KERNEL,
            f.name.span,
            format!("`{kernel}` is a `triton.constexpr_function`, not a kernel"),
            "defined here",
        ));
    }
    Ok(found)
}

fn unknown_kernel(module: &ast::Module, kernel: &str) -> Diagnostic {
    let d = Diagnostic::error(errors::UNKNOWN_KERNEL, format!("no `@triton.jit` function named `{kernel}`"));
    let closest = module.functions.iter().find(|f| crate::names::similar(&f.name.name, kernel));
    match (closest, module.functions.first()) {
        (Some(f), _) => d.with_label(f.name.span, format!("did you mean `{}`?", qualified_name(f))),
        (None, Some(f)) => {
            let names: Vec<String> = module.functions.iter().map(qualified_name).collect();
            d.with_label(f.name.span, "a kernel of this file")
                .with_note(format!("the file defines: {}", names.join(", ")))
        }
        (None, None) => d
            .with_label(tilec_diagnostics::Span::new(0, 0), "in this file")
            .with_note("the file defines no `@triton.jit` function"),
    }
}

/// The declared parameters of kernel `kernel` in `module`.
pub fn kernel_params(module: &ast::Module, kernel: &str) -> Result<Vec<KernelParam>, Diagnostic> {
    let f = find_kernel(module, kernel)?;
    Ok(f.params
        .iter()
        .map(|p| KernelParam {
            name: p.name.name.clone(),
            constexpr: is_constexpr_annotation(p.annotation.as_ref()),
            has_default: p.default.is_some(),
            has_heuristic: f.heuristics.iter().any(|(n, _)| n.name == p.name.name),
            default: p.default.as_ref().and_then(literal_value),
            span: p.span,
        })
        .collect())
}

/// The value of a literal expression (a number, `True`/`False`, `None`, a string, a dtype
/// such as `tl.float16`, or a tuple or list of these); `None` for anything else.
pub fn literal_value(e: &ast::Expr) -> Option<ConstValue> {
    use ast::ExprKind as E;
    Some(match &e.kind {
        E::Int(i) => ConstValue::Int(*i),
        E::Float(x) => ConstValue::Float(*x),
        E::Bool(b) => ConstValue::Bool(*b),
        E::None => ConstValue::None,
        E::Str(s) => ConstValue::Str(s.clone()),
        E::UnaryOp { op: ast::UnaryOp::Neg, operand } => match literal_value(operand)? {
            ConstValue::Int(i) => ConstValue::Int(-i),
            ConstValue::Float(x) => ConstValue::Float(-x),
            _ => return None,
        },
        E::Attribute { attr, .. } => ConstValue::DType(crate::names::dtype(&attr.name)?),
        E::Tuple(items) | E::List(items) => ConstValue::Tuple(items.iter().map(literal_value).collect::<Option<_>>()?),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expected: &str) {
        let got = match parse_signature(input) {
            Ok(items) => items.iter().map(describe).collect::<Vec<_>>().join(", "),
            Err(ds) => ds.iter().map(|d| format!("error {}: {}", d.code, d.message)).collect::<Vec<_>>().join("; "),
        };
        assert_eq!(got, expected, "signature {input:?}");
    }

    fn describe(item: &SigItem) -> String {
        match item {
            SigItem::Ptr { pointee, divisibility } => format!("ptr {} div {divisibility}", pointee.name()),
            SigItem::Scalar { ty, divisibility, equal_to_one } => {
                format!("{} div {divisibility}{}", ty.name(), if *equal_to_one { " =1" } else { "" })
            }
            SigItem::Constexpr(v) => format!("const {v:?}"),
            SigItem::TensorDesc { elem, block } => format!("desc {} {block:?}", elem.name()),
        }
    }

    #[test]
    fn signatures() {
        check("*fp32:16, *fp32:16, *fp32:16, i32", "ptr fp32 div 16, ptr fp32 div 16, ptr fp32 div 16, i32 div 1");
        check(
            "*fp16, *bf16, *i8, *u8, *i64",
            "ptr fp16 div 1, ptr bf16 div 1, ptr i8 div 1, ptr u8 div 1, ptr i64 div 1",
        );
        check("i32:1, i32:16, i64", "i32 div 1 =1, i32 div 16, i64 div 1");
        check("fp32, 1024, 0.5, True", "fp32 div 1, const Int(1024), const Float(0.5), const Bool(true)");
        check("", "");
        check("*fp32, , i32", "error E0209: bad signature item 2 ``: empty item");
        check("*fp33", "error E0209: bad signature item 1 `*fp33`: unknown pointee type `fp33`");
        check(
            "i32:3",
            "error E0209: bad signature item 1 `i32:3`: the number after `:` must be a power of two (1 or 16)",
        );
        check("fp32:16", "error E0209: bad signature item 1 `fp32:16`: only integer parameters take `:1` or `:16`");
        check("float", "error E0209: bad signature item 1 `float`: unknown type `float`");
        check("'relu'", "const Str(\"relu\")");
        check("tensordesc<fp16[128, 64]>, i32", "desc fp16 [128, 64], i32 div 1");
        check("tensordesc<fp32[16]>,tensordesc<bf16[2,8]>", "desc fp32 [16], desc bf16 [2, 8]");
        check(
            "tensordesc<fp16[64, 6]>",
            "error E0209: bad signature item 1 `tensordesc<fp16[64, 6]>`: block dimension `6` is not a power of two",
        );
        check(
            "tensordesc<fp32[64, 2]>",
            "error E0209: bad signature item 1 `tensordesc<fp32[64, 2]>`: the last block dimension must cover at least 16 bytes",
        );
        check(
            "tensordesc<fp17[4]>",
            "error E0209: bad signature item 1 `tensordesc<fp17[4]>`: unknown element type `fp17`",
        );
        check("*fp32, (2, 4), i32", "ptr fp32 div 1, const Tuple([Int(2), Int(4)]), i32 div 1");
    }

    #[test]
    fn const_values() {
        assert_eq!(parse_const_value("1024"), ConstValue::Int(1024));
        assert_eq!(parse_const_value("-0x10"), ConstValue::Int(-16));
        assert_eq!(parse_const_value("1e-5"), ConstValue::Float(1e-5));
        assert_eq!(parse_const_value("False"), ConstValue::Bool(false));
        assert_eq!(parse_const_value("None"), ConstValue::None);
        assert_eq!(parse_const_value("tl.float16"), ConstValue::DType(ScalarType::F16));
        assert_eq!(parse_const_value("bf16"), ConstValue::DType(ScalarType::BF16));
        assert_eq!(parse_const_value("leaky_relu"), ConstValue::Str("leaky_relu".into()));
        assert_eq!(parse_const_value("\"gelu\""), ConstValue::Str("gelu".into()));
        let ints = |v: &[i128]| ConstValue::Tuple(v.iter().map(|&i| ConstValue::Int(i)).collect());
        assert_eq!(parse_const_value("(2, 4)"), ints(&[2, 4]));
        assert_eq!(parse_const_value("[8]"), ints(&[8]));
        assert_eq!(parse_const_value("(8,)"), ints(&[8]));
        assert_eq!(parse_const_value("()"), ints(&[]));
        assert_eq!(
            parse_const_value("((1, 2), tl.float16)"),
            ConstValue::Tuple(vec![ints(&[1, 2]), ConstValue::DType(ScalarType::F16)])
        );
    }
}
