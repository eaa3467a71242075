//! Front end: a parsed Triton module + a specialization → one Tile IR [`Function`].
//!
//! Invariant: the output passes `tilec_ir::verify`; every user error is a [`Diagnostic`]
//! with a code and a span; no input panics.
//!
//! Modules: [`signature`] (compile.py signatures, constants, kernel parameters),
//! `constexpr` (Python semantics on compile-time values), `promote` (Triton's type
//! promotion), `lower` (scopes, statements, control flow, inlining of helpers), `ops`
//! (typed arithmetic, casts, broadcasting), `builtins` (`tl.*` per family) and
//! `prelude` (the parts of `triton.language` written in Triton: `tl.rand`, `tl.randn`,
//! `tl.randint`, `tl.sigmoid`, `tl.softmax`, `tl.cdiv`), whose files are parsed on first use and
//! inlined like user helpers.
//!
//! Error codes are `tilec_diagnostics::codes::front` (E02xx).

mod builtins;
mod carry;
mod constexpr;
mod errors;
mod lower;
mod names;
mod ops;
mod prelude;
mod promote;
pub mod signature;
mod value;

use lower::{Ctx, Flow, Lowerer, Scope};
use tilec_diagnostics::{Diagnostic, Span};
use tilec_ir::{Function, Param, ScalarType, Type};
use tilec_syntax::ast;
use value::{ModuleId, Val};

pub use signature::{kernel_params, parse_const_value, parse_signature, parse_signature_for};

/// A compile-time value (constexpr parameter, `-c NAME=VALUE`).
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
    None,
    /// A dtype such as `tl.float16`.
    DType(ScalarType),
    /// A tuple (or list) of values, such as `(2, 4)`.
    Tuple(Vec<ConstValue>),
}

/// One entry of a Triton `compile.py` style signature (`*fp32:16`, `i32`, `i32:1`, `1024`).
#[derive(Clone, Debug, PartialEq)]
pub enum SigItem {
    Ptr {
        pointee: ScalarType,
        divisibility: u32,
    },
    /// `tensordesc<fp16[64, 64]>`: a host-side tensor descriptor of blocks of that shape. The
    /// kernel receives its base pointer (16-byte aligned), its shape (`i32` per dimension)
    /// and its strides but the last (`i64`, 16-byte multiples; the last stride is 1).
    TensorDesc {
        elem: ScalarType,
        block: Vec<u32>,
    },
    Scalar {
        ty: ScalarType,
        divisibility: u32,
        equal_to_one: bool,
    },
    Constexpr(ConstValue),
}

/// A parameter of a `@triton.jit` function, as declared.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelParam {
    pub name: String,
    pub constexpr: bool,
    pub has_default: bool,
    /// Whether a `triton.heuristics` decorator computes it (when no value is given).
    pub has_heuristic: bool,
    /// The default when it is a literal (a number, `True`/`False`, `None`, a string, a
    /// dtype or a tuple of these), so a caller can pass it as Triton's launcher would.
    pub default: Option<ConstValue>,
    pub span: Span,
}

fn const_to_val(c: &ConstValue) -> Val {
    match c {
        ConstValue::Int(i) => Val::Int(*i),
        ConstValue::Float(x) => Val::Float(*x),
        ConstValue::Bool(b) => Val::Bool(*b),
        ConstValue::Str(s) => Val::Str(s.clone()),
        ConstValue::None => Val::None,
        ConstValue::DType(t) => Val::DType(*t),
        ConstValue::Tuple(items) => Val::Tuple(items.iter().map(const_to_val).collect()),
    }
}

/// The text of a constexpr value as Python would print it.
fn const_text(v: &Val) -> String {
    match v {
        Val::Int(i) => i.to_string(),
        Val::Float(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 => format!("{x:.1}"),
        Val::Float(x) => format!("{x}"),
        Val::Bool(b) => if *b { "True" } else { "False" }.into(),
        Val::Str(s) => format!("'{s}'"),
        Val::None => "None".into(),
        Val::DType(t) => t.name().into(),
        Val::Tuple(items) if items.len() == 1 => format!("({},)", const_text(&items[0])),
        Val::Tuple(items) => format!("({})", items.iter().map(const_text).collect::<Vec<_>>().join(", ")),
        other => other.describe(),
    }
}

/// How one kernel parameter gets its value.
enum ParamSource<'m> {
    Runtime(Type, u32),
    /// A host tensor descriptor: runtime parameters for its base, shape and strides.
    Desc {
        elem: ScalarType,
        block: Vec<u32>,
    },
    Const(Val),
    /// A default or autotune-config expression, evaluated as a constexpr.
    Expr(&'m ast::Expr),
    /// A `triton.heuristics` lambda, evaluated once every other parameter has its value;
    /// the value given for the parameter, if any, is used when the lambda reads a runtime
    /// argument (Triton computes it at every launch, overriding what the caller passed).
    Heuristic(&'m ast::Expr, Option<Val>),
}

/// One file of a program as the front end reads it.
#[derive(Clone, Copy, Debug)]
pub struct SourceModule<'a> {
    /// The module's dotted name (for diagnostics).
    pub name: &'a str,
    pub module: &'a ast::Module,
    /// Its import lines' names bound to other files of the program.
    pub links: &'a tilec_syntax::Links,
}

/// [`specialize`] for kernel `kernel` of the first file of `program`, with the `@triton.jit`
/// functions and constexpr globals of the modules it imports.
pub fn specialize_program(
    program: &tilec_syntax::Program,
    kernel: &str,
    signature: &[SigItem],
    constants: &[(String, ConstValue)],
) -> Result<Function, Vec<Diagnostic>> {
    let files: Vec<SourceModule<'_>> =
        program.modules.iter().map(|m| SourceModule { name: &m.name, module: &m.module, links: &m.links }).collect();
    specialize_one(&files, kernel, signature, constants)
}

/// Specializes kernel `kernel` of `module`. Parameters are matched in order: a parameter
/// named in `constants` takes that value and consumes no signature item; every other
/// parameter consumes the next item of `signature`; a parameter with a default that is left
/// over takes its default (or, for autotuned kernels, the value of the first config).
pub fn specialize(
    module: &ast::Module,
    kernel: &str,
    signature: &[SigItem],
    constants: &[(String, ConstValue)],
) -> Result<Function, Vec<Diagnostic>> {
    let links = tilec_syntax::Links::default();
    let file = SourceModule { name: "", module, links: &links };
    specialize_one(&[file], kernel, signature, constants)
}

fn specialize_one(
    files: &[SourceModule<'_>],
    kernel: &str,
    signature: &[SigItem],
    constants: &[(String, ConstValue)],
) -> Result<Function, Vec<Diagnostic>> {
    let module = files[0].module;
    let kernel_index = signature::find_kernel_index(module, kernel).map_err(|d| vec![d])?;
    let def = &module.functions[kernel_index];
    // Every mismatch between the parameters and what is given for them is reported.
    let mut problems = Vec::new();
    for p in def.params.iter().filter(|p| p.kind == ast::ParamKind::VarArgs) {
        problems.push(
            errors::err_label(
                errors::UNSUPPORTED,
                p.span,
                format!("`*{}` parameters are supported in helper functions, not in kernel `{kernel}`", p.name.name),
                "variadic kernel parameter",
            )
            .with_note("a kernel's parameters are its launch arguments: give each its own name"),
        );
    }
    for (name, _) in constants {
        if !def.params.iter().any(|p| &p.name.name == name) {
            problems.push(errors::err_label(
                errors::PARAM_COUNT,
                def.name.span,
                format!("kernel `{kernel}` has no parameter named `{name}` (given as a constant)"),
                "kernel defined here",
            ));
        }
    }
    let mut items = signature.iter();
    let mut sources = Vec::new();
    for p in def.params.iter().filter(|p| p.kind != ast::ParamKind::VarArgs) {
        let name = &p.name.name;
        let is_constexpr = signature::is_constexpr_annotation(p.annotation.as_ref());
        let heuristic = def.heuristics.iter().find(|(n, _)| n.name == *name).map(|(_, e)| e);
        let given = constants.iter().find(|(n, _)| n == name).map(|(_, c)| const_to_val(c));
        let source = if let Some(h) = heuristic.filter(|_| is_constexpr) {
            // A heuristic's value is a specialization: it takes no signature item.
            ParamSource::Heuristic(h, given)
        } else if let Some(v) = given {
            ParamSource::Const(v)
        } else if let Some(item) = items.next() {
            match item {
                SigItem::Constexpr(c) => ParamSource::Const(const_to_val(c)),
                SigItem::Scalar { equal_to_one: true, .. } => ParamSource::Const(Val::Int(1)),
                SigItem::Ptr { .. } | SigItem::Scalar { .. } | SigItem::TensorDesc { .. } if is_constexpr => {
                    problems.push(
                        errors::err_label(
                            errors::CONSTEXPR_PARAM,
                            p.span,
                            format!("parameter `{name}` is a `tl.constexpr` but the signature gives it a runtime type"),
                            "declared `tl.constexpr` here",
                        )
                        .with_note("give a value in the signature or with `-c NAME=VALUE`"),
                    );
                    continue;
                }
                SigItem::Ptr { pointee, divisibility } => ParamSource::Runtime(Type::ptr(*pointee), *divisibility),
                SigItem::TensorDesc { elem, block } => ParamSource::Desc { elem: *elem, block: block.clone() },
                SigItem::Scalar { ty, divisibility, .. } => ParamSource::Runtime(Type::scalar(*ty), *divisibility),
            }
        } else if let Some(d) = &p.default {
            ParamSource::Expr(d)
        } else if let Some(e) = def
            .autotune
            .as_ref()
            .and_then(|a| a.configs.first())
            .and_then(|c| c.kwargs.iter().find(|(k, _)| k == name).map(|(_, e)| e))
        {
            ParamSource::Expr(e)
        } else {
            let mut d = errors::err_label(
                errors::PARAM_COUNT,
                p.span,
                format!(
                    "the signature has {} item{} but parameter `{name}` of `{kernel}` still needs a value",
                    signature.len(),
                    if signature.len() == 1 { "" } else { "s" }
                ),
                "no value for this parameter",
            );
            if let Some(host) = def.heuristics_from_host.filter(|_| is_constexpr) {
                d = d.with_secondary(host, "heuristics computed by host code, which tilec does not run").with_note(
                    "a `@triton.heuristics` table built by host code is not evaluated: give the values it sets \
                     with `-c NAME=VALUE`",
                );
            }
            problems.push(d.with_note("add a signature item or a constant `-c NAME=VALUE`"));
            continue;
        };
        sources.push(source);
    }
    let extra = items.count();
    // (A variadic kernel, reported above, would have taken them.)
    if extra > 0 && !def.params.iter().any(|p| p.kind == ast::ParamKind::VarArgs) {
        problems.push(errors::err_label(
            errors::PARAM_COUNT,
            def.name.span,
            format!(
                "the signature has {extra} item{} more than kernel `{kernel}` has parameters",
                if extra == 1 { "" } else { "s" }
            ),
            "kernel defined here",
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let params: Vec<Param> = def
        .params
        .iter()
        .zip(&sources)
        .flat_map(|(p, s)| match s {
            ParamSource::Runtime(ty, divisibility) => {
                vec![Param { name: p.name.name.clone(), ty: ty.clone(), divisibility: *divisibility, span: p.span }]
            }
            ParamSource::Desc { elem, block } => signature::descriptor_params(&p.name.name, *elem, block.len())
                .into_iter()
                .map(|(name, ty, divisibility)| Param { name, ty, divisibility, span: p.span })
                .collect(),
            _ => vec![],
        })
        .collect();
    let f = Function::new(&def.name.name, params, def.span);
    let mut l = Lowerer::new(files, f);
    l.import_globals();
    let mut scope = Scope::new(ModuleId::File(0), Some(kernel_index));
    let mut runtime = l.f.param_values().to_vec().into_iter();
    let mut heuristics = Vec::new();
    for (p, s) in def.params.iter().zip(sources) {
        let mut next = || runtime.next().ok_or_else(|| Diagnostic::error(errors::INTERNAL, "param count"));
        let v = match s {
            ParamSource::Runtime(..) => next().map(Val::T),
            ParamSource::Desc { elem, block } => (|| {
                let base = next()?;
                let shape = (0..block.len()).map(|_| next()).collect::<Result<Vec<_>, _>>()?;
                let strides = (1..block.len()).map(|_| next()).collect::<Result<Vec<_>, _>>()?;
                let desc = builtins::TensorDesc::from_params(base, elem, &shape, &strides, block);
                Ok(Val::TensorDesc(Box::new(desc)))
            })(),
            ParamSource::Const(v) => Ok(v),
            ParamSource::Heuristic(e, given) => {
                heuristics.push((p.name.name.as_str(), e, given));
                continue;
            }
            ParamSource::Expr(e) => {
                let mut empty = Scope::new(ModuleId::File(0), Some(kernel_index));
                match l.expr(&mut empty, e) {
                    Ok(Val::T(_)) => {
                        Err(errors::err(errors::NOT_CONSTEXPR, e.span, "a default value must be a compile-time value"))
                    }
                    v => v,
                }
            }
        };
        let v = v.unwrap_or_else(|d| {
            l.report(d);
            Val::Poison
        });
        scope.vars.insert(p.name.name.clone(), v);
    }
    // As Triton's `Heuristics.run`: in decorator order, each seeing the arguments and the
    // values of the heuristics before it.
    for (name, lambda, given) in heuristics {
        let v = match (heuristic_value(&mut l, &scope, def, kernel_index, lambda), given) {
            (Err(d), Some(given)) if d.code == errors::HEURISTIC => given,
            (Err(d), _) => {
                let d = match d.code == errors::HEURISTIC {
                    true => d.with_note(format!("give `{name}` a value (`-c {name}=...`) to compile without it")),
                    false => d,
                };
                l.report(d);
                Val::Poison
            }
            (Ok(v), _) => v,
        };
        scope.vars.insert(name.to_string(), v);
    }
    // The compile-time parameters, in declaration order (the IR's header).
    let constexprs = def
        .params
        .iter()
        .filter_map(|p| {
            scope
                .vars
                .get(&p.name.name)
                .filter(|v| !matches!(v, Val::T(_)))
                .map(|v| (p.name.name.clone(), const_text(v)))
        })
        .collect();
    l.f.constexprs = constexprs;
    match l.block(&mut scope, &def.body, Ctx::Tail) {
        Ok(Flow::Return(v)) if v != Val::None && v != Val::Poison => {
            let span = return_span(&def.body).unwrap_or(def.name.span);
            l.report(errors::err(
                errors::RETURN,
                span,
                format!("kernel `{kernel}` returns a value; kernels return nothing"),
            ));
        }
        Ok(_) => {}
        Err(d) => l.report(d),
    }
    match l.errors.is_empty() {
        true => Ok(l.f),
        false => Err(l.errors),
    }
}

/// Evaluates the heuristic `lambda args: ...` on the parameters bound in `scope`.
fn heuristic_value(
    l: &mut Lowerer<'_>,
    scope: &Scope,
    def: &ast::FunctionDef,
    kernel_index: usize,
    lambda: &ast::Expr,
) -> Result<Val, Diagnostic> {
    let ast::ExprKind::Lambda { params, body } = &lambda.kind else {
        return Err(errors::err(errors::HEURISTIC, lambda.span, "a heuristic must be a `lambda args: ...`"));
    };
    let [args] = params.as_slice() else {
        return Err(errors::err(errors::HEURISTIC, lambda.span, "a heuristic's lambda takes one parameter (`args`)"));
    };
    let values = def
        .params
        .iter()
        .map(|p| {
            let v = scope.vars.get(&p.name.name).filter(|v| !matches!(v, Val::T(_) | Val::TensorDesc(_)));
            (p.name.name.clone(), v.cloned())
        })
        .collect();
    let mut inner = Scope::new(ModuleId::File(0), Some(kernel_index));
    inner.vars.insert(args.name.clone(), Val::HeuristicArgs(values));
    let v = l.expr(&mut inner, body)?;
    if matches!(v, Val::T(_) | Val::BlockPtr(_) | Val::TensorDesc(_) | Val::HeuristicArgs(_)) {
        return Err(errors::err(errors::HEURISTIC, body.span, "a heuristic must give a compile-time value"));
    }
    Ok(v)
}

fn return_span(stmts: &[ast::Stmt]) -> Option<Span> {
    stmts.iter().rev().find_map(|s| match &s.kind {
        ast::StmtKind::Return(Some(_)) => Some(s.span),
        ast::StmtKind::If { body, orelse, .. } => return_span(body).or_else(|| return_span(orelse)),
        _ => None,
    })
}
