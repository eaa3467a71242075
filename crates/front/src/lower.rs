//! Statements and expressions to Tile IR: scopes, control flow, constexpr folding and the
//! inlining of helper `@triton.jit` functions.
//!
//! Scoping follows Python: one scope per (inlined) function. Control flow with a runtime
//! condition becomes structured regions: a variable changed in an `if` and present in both
//! branches becomes a result of the `scf.if`; a variable defined before a loop and assigned
//! in its body is carried (`iter_args`). A `return` under a runtime `if` makes the rest of
//! the function part of both branches, so returns never need unstructured control flow.

use std::collections::{BTreeMap, BTreeSet};

use crate::errors::{self, err, err_label, Result};
use crate::value::{FuncRef, ModuleId, Ns, PropagateNan, Val};
use crate::{carry, constexpr, promote};
use tilec_diagnostics::{Diagnostic, Span};
use tilec_ir::{Constant, Function, OpKind, RegionId, ScalarType, Type, Value, ValueDef};
use tilec_syntax::ast::{self, Expr, ExprKind, Stmt, StmtKind};
use tilec_syntax::{Binding, Links};

/// Variables of one function activation, in name order (deterministic merges).
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    pub vars: BTreeMap<String, Val>,
    pub module: ModuleId,
    /// The function whose body this is (an index into the module's functions), if any: a
    /// name not bound here resolves in the `def`s it is nested in, innermost first.
    pub function: Option<usize>,
}

impl Scope {
    /// An empty scope for code of `module` (in the body of `function`, if given).
    pub fn new(module: ModuleId, function: Option<usize>) -> Scope {
        Scope { vars: BTreeMap::new(), module, function }
    }
}

/// How a statement list ended.
pub(crate) enum Flow {
    Next,
    Return(Val),
}

/// Where a statement list sits: at function level (possibly under `if`s), where `return`
/// is allowed, or inside a loop, where it is not.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ctx {
    Tail,
    Loop,
}

/// Positional and keyword arguments of a call, evaluated.
pub(crate) struct Args {
    pub pos: Vec<(Val, Span)>,
    pub kw: Vec<(String, Val, Span)>,
}

/// Arguments bound to a parameter list; `None` for an absent optional parameter.
pub(crate) struct Bound {
    pub vals: Vec<Option<(Val, Span)>>,
    pub call: Span,
}

impl Bound {
    pub fn get(&self, i: usize) -> Option<&Val> {
        self.vals[i].as_ref().map(|(v, _)| v).filter(|v| !matches!(v, Val::None))
    }

    pub fn span(&self, i: usize) -> Span {
        self.vals[i].as_ref().map_or(self.call, |(_, s)| *s)
    }

    /// The argument, or `None` (Python's) when absent.
    pub fn val(&self, i: usize) -> Val {
        self.vals[i].as_ref().map_or(Val::None, |(v, _)| v.clone())
    }
}

impl Args {
    /// Binds arguments to `params` as Python does; the first `required` are mandatory. A
    /// parameter spelled `*name` collects the remaining positional arguments as a tuple; a
    /// bare `*` takes none (its slot stays empty) and makes the parameters after it, like
    /// those after `*name`, keyword-only.
    pub fn bind(self, fname: &str, params: &[&str], required: usize, call: Span) -> Result<Bound> {
        let mut vals: Vec<Option<(Val, Span)>> = vec![None; params.len()];
        let star = params.iter().position(|p| p.starts_with('*'));
        let mut pos = self.pos.into_iter();
        for (i, p) in params.iter().enumerate() {
            if *p == "*" {
                break;
            }
            if p.starts_with('*') {
                let rest: Vec<(Val, Span)> = pos.by_ref().collect();
                let span = rest.iter().map(|(_, s)| *s).reduce(|a, b| a.to(b)).unwrap_or(call);
                vals[i] = Some((Val::Tuple(rest.into_iter().map(|(v, _)| v).collect()), span));
                break;
            }
            match pos.next() {
                Some(a) => vals[i] = Some(a),
                None => break,
            }
        }
        if let Some((_, span)) = pos.next() {
            let max = star.unwrap_or(params.len());
            return Err(err_label(
                errors::ARITY,
                span,
                format!("`{fname}` takes at most {max} positional argument{}", if max == 1 { "" } else { "s" }),
                "unexpected argument",
            ));
        }
        for (name, v, span) in self.kw {
            // As in Python, a `*name` parameter takes no keyword argument.
            let Some(i) = params.iter().position(|p| *p == name) else {
                return Err(err_label(
                    errors::UNKNOWN_KEYWORD,
                    span,
                    format!("`{fname}` has no parameter named `{name}`"),
                    "unknown keyword argument",
                )
                .with_note(format!("parameters: {}", params.join(", "))));
            };
            if vals[i].is_some() {
                return Err(err(errors::ARITY, span, format!("`{fname}` got multiple values for argument `{name}`")));
            }
            vals[i] = Some((v, span));
        }
        for (i, p) in params.iter().enumerate().take(required) {
            if vals[i].is_none() {
                return Err(err_label(
                    errors::ARITY,
                    call,
                    format!("`{fname}` is missing the required argument `{p}`"),
                    format!("takes {required} required argument{}", if required == 1 { "" } else { "s" }),
                ));
            }
        }
        Ok(Bound { vals, call })
    }
}

/// One file of the program as the lowering sees it.
pub(crate) struct FileModule<'a> {
    /// The module's dotted name.
    pub name: &'a str,
    pub module: &'a ast::Module,
    /// Its import lines' names bound to other files of the program.
    pub links: &'a Links,
    /// Its import lines' names bound to `triton` modules and their members.
    imports: BTreeMap<String, Val>,
    /// Its globals as a kernel sees them (each evaluated when the module is imported,
    /// seeing only the globals above it); an error is reported when a kernel reads the name.
    globals: BTreeMap<String, std::result::Result<Val, Diagnostic>>,
}

/// How many re-exports (`from .a import f` in `b`, `from .b import f` in the kernel's file)
/// a name is followed through: deeper chains are cycles.
const MAX_REEXPORTS: usize = 32;

/// `triton.language.standard`'s private compile-time helpers that kernels import
/// (`from triton.language.standard import _log2`).
const STANDARD_HELPERS: &[&str] = &["_log2", "_is_power_of_two"];

/// The state of lowering one kernel.
pub(crate) struct Lowerer<'a> {
    /// The program's files; the kernel is in file 0.
    pub files: Vec<FileModule<'a>>,
    pub f: Function,
    /// The region ops are appended to.
    pub region: RegionId,
    call_stack: Vec<FuncRef>,
    /// The built-in library's import aliases (every file of it imports the same), made when
    /// one of its functions is first lowered.
    prelude_imports: std::cell::OnceCell<BTreeMap<String, Val>>,
    /// The errors reported so far, in the order found (see [`Lowerer::block`]).
    pub errors: Vec<Diagnostic>,
}

impl<'a> Lowerer<'a> {
    /// `files`: each module of the program with its links, the kernel's file first.
    pub fn new(files: &[crate::SourceModule<'a>], f: Function) -> Lowerer<'a> {
        let region = f.body;
        let files = files
            .iter()
            .map(|&crate::SourceModule { name, module, links }| FileModule {
                name,
                module,
                links,
                imports: crate::names::import_aliases(module),
                globals: BTreeMap::new(),
            })
            .collect();
        Lowerer {
            files,
            f,
            region,
            call_stack: Vec::new(),
            prelude_imports: std::cell::OnceCell::new(),
            errors: Vec::new(),
        }
    }

    /// Evaluates every file's globals in source order, as importing the files would: the
    /// imported files first (last loaded first, so a module's imports come before it).
    pub fn import_globals(&mut self) {
        for file in (0..self.files.len()).rev() {
            for g in &self.files[file].module.globals {
                let value = self.global_value(file, g);
                self.files[file].globals.insert(g.name.name.clone(), value);
            }
        }
    }

    /// The value a kernel sees for module global `g`: Triton lets kernels read globals
    /// declared `NAME = tl.constexpr(value)` (tilec also takes `NAME: tl.constexpr = value`)
    /// and globals bound to a function, a module or a dtype (`rsqrt = libdevice.rsqrt`),
    /// which tilec finds when the value is a dotted name.
    fn global_value(&mut self, file: usize, g: &ast::Global) -> Result<Val> {
        let not_constexpr = || {
            Diagnostic::error(
                errors::NON_CONSTEXPR_GLOBAL,
                format!("module global `{}` is not a `tl.constexpr`", g.name.name),
            )
            .with_secondary(g.span, "defined here")
            .with_note(format!(
                "Triton kernels read module globals declared `{} = tl.constexpr(...)`, or bound to a \
                 `@triton.jit` function, a Triton function, module or dtype",
                g.name.name
            ))
        };
        let Some(value) = &g.value else {
            return Err(not_constexpr());
        };
        let wrapped = match &value.kind {
            ExprKind::Call { func, args, keywords } if args.len() == 1 && keywords.is_empty() => {
                crate::signature::is_constexpr_annotation(Some(func)).then_some(&args[0])
            }
            _ => None,
        };
        let annotated = crate::signature::is_constexpr_annotation(g.annotation.as_ref());
        let expr = match wrapped {
            Some(inner) => inner,
            None if annotated => value,
            None if is_dotted_name(value) => {
                return match self.expr(&mut Scope::new(ModuleId::File(file), None), value) {
                    Ok(v @ (Val::Func(_) | Val::Builtin(..) | Val::Module(_) | Val::FileModule(_) | Val::DType(_))) => {
                        Ok(v)
                    }
                    Ok(_) => Err(not_constexpr()),
                    Err(d) => Err(not_constexpr()
                        .with_note(format!("its value is not a Triton function, module or dtype: {}", d.message))),
                };
            }
            None => return Err(not_constexpr()),
        };
        let v = self.expr(&mut Scope::new(ModuleId::File(file), None), expr)?;
        if matches!(v, Val::T(_) | Val::BlockPtr(_) | Val::TensorDesc(_)) {
            return Err(err(errors::NOT_CONSTEXPR, expr.span, "a module global must be a compile-time value"));
        }
        Ok(v)
    }

    pub fn module(&self, id: ModuleId) -> &'a ast::Module {
        match id {
            ModuleId::File(i) => self.files[i].module,
            ModuleId::Prelude(library) => library.module(),
        }
    }

    pub fn func_def(&self, r: FuncRef) -> &'a ast::FunctionDef {
        &self.module(r.module).functions[r.index]
    }

    /// Runs `f` with `region` as the insertion point.
    pub fn in_region<T>(&mut self, region: RegionId, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.region, region);
        let r = f(self);
        self.region = saved;
        r
    }

    pub fn emit(&mut self, kind: OpKind, ty: Type, span: Span) -> Value {
        self.f.append_value(self.region, kind, ty, span)
    }

    pub fn ty(&self, v: Value) -> &Type {
        self.f.ty(v)
    }

    // ----- statements -----

    /// Lowers a statement list. A statement that fails is reported (see [`Lowerer::report`])
    /// and lowering goes on with the next one; the names it would have assigned are
    /// poisoned, so what depends on them fails silently rather than cascading. A failed
    /// statement that decides how the list ends (a `return`, an `if` containing one) ends
    /// it with a poisoned return value. `Err` is left only for a follow-on failure.
    pub fn block(&mut self, scope: &mut Scope, stmts: &[Stmt], ctx: Ctx) -> Result<Flow> {
        for (i, stmt) in stmts.iter().enumerate() {
            match self.statement(scope, stmts, i, ctx) {
                Ok(None) => {}
                Ok(Some(flow)) => return Ok(flow),
                Err(d) => {
                    self.report(d);
                    let mut names = BTreeSet::new();
                    assigned_names(std::slice::from_ref(stmt), &mut names);
                    for name in names {
                        scope.vars.insert(name, Val::Poison);
                    }
                    if matches!(stmt.kind, StmtKind::Return(_))
                        || (matches!(stmt.kind, StmtKind::If { .. }) && contains_return(std::slice::from_ref(stmt)))
                    {
                        return Ok(Flow::Return(Val::Poison));
                    }
                }
            }
        }
        Ok(Flow::Next)
    }

    /// Records an error to be reported once lowering ends: the same diagnostic once (an
    /// inlined helper or an unrolled loop reaches it several times), a follow-on never.
    pub fn report(&mut self, d: Diagnostic) {
        if d.code != errors::FOLLOW_ON && !self.errors.contains(&d) {
            self.errors.push(d);
        }
    }

    /// Statement `i` of `stmts`; `Some` when the list ends there.
    fn statement(&mut self, scope: &mut Scope, stmts: &[Stmt], i: usize, ctx: Ctx) -> Result<Option<Flow>> {
        let stmt = &stmts[i];
        {
            match &stmt.kind {
                StmtKind::If { test, body, orelse } => {
                    let cond = self.expr(scope, test)?;
                    let rest = &stmts[i + 1..];
                    if let Some(taken) = self.const_truth(&cond) {
                        let branch = if taken { body } else { orelse };
                        if ctx == Ctx::Tail && !rest.is_empty() && contains_return(branch) {
                            let joined: Vec<Stmt> = branch.iter().chain(rest).cloned().collect();
                            return self.block(scope, &joined, ctx).map(Some);
                        }
                        if let Flow::Return(v) = self.block(scope, branch, ctx)? {
                            return Ok(Some(Flow::Return(v)));
                        }
                        return Ok(None);
                    }
                    let cond = self.condition(&cond, test.span)?;
                    if contains_return(body) || contains_return(orelse) {
                        if ctx == Ctx::Loop {
                            return Err(return_in_loop(stmt.span));
                        }
                        return self.if_with_return(scope, cond, body, orelse, rest, stmt.span).map(Some);
                    }
                    self.if_stmt(scope, cond, body, orelse, ctx, stmt.span)?;
                }
                StmtKind::Return(value) => {
                    if ctx == Ctx::Loop {
                        return Err(return_in_loop(stmt.span));
                    }
                    let v = match value {
                        Some(e) => self.expr(scope, e)?,
                        None => Val::None,
                    };
                    return Ok(Some(Flow::Return(v)));
                }
                _ => self.stmt(scope, stmt)?,
            }
        }
        Ok(None)
    }

    fn stmt(&mut self, scope: &mut Scope, stmt: &Stmt) -> Result<()> {
        match &stmt.kind {
            StmtKind::Expr(e) => {
                self.expr(scope, e)?;
            }
            StmtKind::Assign { targets, value } => {
                let v = self.expr(scope, value)?;
                let v = self.assigned_value(scope, v, value.span)?;
                for t in targets {
                    self.assign(scope, t, v.clone())?;
                }
            }
            StmtKind::AugAssign { target, op, value } => {
                let ExprKind::Name(name) = &target.kind else {
                    return Err(err(
                        errors::UNSUPPORTED,
                        target.span,
                        "augmented assignment to anything but a name is not supported",
                    ));
                };
                let cur = self.lookup(scope, name, target.span)?;
                let rhs = self.expr(scope, value)?;
                let v = self.binary(*op, &cur, &rhs, stmt.span)?;
                let v = self.assigned_value(scope, v, stmt.span)?;
                self.bind(scope, name, v);
            }
            StmtKind::AnnAssign { target, annotation, value } => {
                let Some(value) = value else { return Ok(()) };
                let v = self.expr(scope, value)?;
                // Triton binds whatever a `tl.constexpr`-annotated assignment computes (its
                // code generator does not check the value), so a runtime value is bound as by
                // a plain assignment.
                let v = if crate::signature::is_constexpr_annotation(Some(annotation)) && !matches!(v, Val::T(_)) {
                    v
                } else {
                    self.assigned_value(scope, v, value.span)?
                };
                self.assign(scope, target, v)?;
            }
            StmtKind::For { target, iter, body, orelse } => {
                if !orelse.is_empty() {
                    return Err(err(errors::UNSUPPORTED, stmt.span, "`for ... else` is not supported"));
                }
                self.for_stmt(scope, target, iter, body, stmt.span)?;
            }
            StmtKind::While { test, body, orelse } => {
                if !orelse.is_empty() {
                    return Err(err(errors::UNSUPPORTED, stmt.span, "`while ... else` is not supported"));
                }
                if self.in_constexpr_function(scope) {
                    self.python_while(scope, test, body, stmt.span)?;
                } else {
                    self.while_stmt(scope, test, body, stmt.span)?;
                }
            }
            StmtKind::Pass => {}
            StmtKind::Break | StmtKind::Continue => {
                let what = if matches!(stmt.kind, StmtKind::Break) { "break" } else { "continue" };
                return Err(err(
                    errors::UNSUPPORTED,
                    stmt.span,
                    format!("`{what}` is not supported in Triton kernels"),
                ));
            }
            StmtKind::Assert { test, msg } => {
                let cond = self.expr(scope, test)?;
                let message = match msg {
                    Some(m) => match self.expr(scope, m)? {
                        Val::Str(s) => s,
                        other => other.describe(),
                    },
                    None => String::new(),
                };
                self.assert(cond, message, test.span)?;
            }
            StmtKind::Unsupported { what } => {
                return Err(err(errors::UNSUPPORTED, stmt.span, format!("{what} is not supported in Triton kernels")));
            }
            // Handled by `block`, which sees the statements that follow them.
            StmtKind::If { .. } | StmtKind::Return(_) => {}
        }
        Ok(())
    }

    /// `assert` and `tl.device_assert`: checked now when the condition is a constexpr.
    pub fn assert(&mut self, cond: Val, message: String, span: Span) -> Result<()> {
        if let Some(ok) = self.const_truth(&cond) {
            if !ok {
                let text = if message.is_empty() {
                    "assertion failed".to_string()
                } else {
                    format!("assertion failed: {message}")
                };
                return Err(err(errors::STATIC_ASSERT, span, text));
            }
            return Ok(());
        }
        let v = self.tensor_value(&cond, span)?;
        let c = self.cast(v, ScalarType::I1, span)?;
        self.f.append_op(self.region, OpKind::Assert { cond: c, message }, vec![], span);
        Ok(())
    }

    fn assign(&mut self, scope: &mut Scope, target: &Expr, v: Val) -> Result<()> {
        match &target.kind {
            ExprKind::Name(n) => {
                self.bind(scope, n, v);
                Ok(())
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let Val::Tuple(vals) = v else {
                    return Err(err(
                        errors::TYPE_ERROR,
                        target.span,
                        format!("cannot unpack {} into {} names", v.describe(), items.len()),
                    ));
                };
                if vals.len() != items.len() {
                    return Err(err(
                        errors::TYPE_ERROR,
                        target.span,
                        format!("cannot unpack a tuple of {} values into {} names", vals.len(), items.len()),
                    ));
                }
                for (t, v) in items.iter().zip(vals) {
                    self.assign(scope, t, v)?;
                }
                Ok(())
            }
            _ => Err(err(errors::UNSUPPORTED, target.span, "assignment to an attribute or subscript is not supported")),
        }
    }

    /// Triton's rule for assigned values (`_sanitize_target_value`): a number assigned to a
    /// name without a `tl.constexpr` annotation becomes a scalar tensor of its literal type,
    /// so it takes part in type promotion and has tensor methods (`acc = 0` then
    /// `acc += x_i8` is int32; `acc.to(tl.int64)` works). Tuples are converted element by
    /// element; every other value is kept. Where a compile-time value is needed, such a
    /// constant is still accepted (see [`Lowerer::known_number`]), where Triton would refuse.
    /// In a `@triton.constexpr_function` (plain Python) values are kept as they are.
    fn assigned_value(&mut self, scope: &Scope, v: Val, span: Span) -> Result<Val> {
        if self.in_constexpr_function(scope) {
            return Ok(v);
        }
        match v {
            v if v.is_number() => Ok(Val::T(self.tensor_value(&v, span)?)),
            Val::Tuple(items) => {
                Ok(Val::Tuple(items.into_iter().map(|x| self.assigned_value(scope, x, span)).collect::<Result<_>>()?))
            }
            other => Ok(other),
        }
    }

    /// Whether `scope` is the body of a `@triton.constexpr_function`, which runs as Python
    /// while compiling: its loops run then, its assignments keep compile-time values.
    pub fn in_constexpr_function(&self, scope: &Scope) -> bool {
        scope
            .function
            .is_some_and(|i| self.module(scope.module).functions[i].kind == ast::FunctionKind::ConstexprFunction)
    }

    /// Runs a `while` loop of a `@triton.constexpr_function` while compiling.
    fn python_while(&mut self, scope: &mut Scope, test: &Expr, body: &[Stmt], span: Span) -> Result<()> {
        const LIMIT: usize = 1 << 20;
        for _ in 0..LIMIT {
            let cond = self.expr(scope, test)?;
            let Some(go_on) = self.const_truth(&self.compile_time(&cond)) else {
                return Err(err(
                    errors::NOT_CONSTEXPR,
                    test.span,
                    "a compile-time function's loop condition must be a compile-time value",
                ));
            };
            if !go_on {
                return Ok(());
            }
            self.block(scope, body, Ctx::Loop)?;
        }
        Err(err(errors::VALUE, span, format!("this loop ran {LIMIT} iterations while compiling")))
    }

    /// The number a scalar constant tensor holds (a number assigned to a name), or `None`.
    pub fn known_number(&self, v: &Val) -> Option<Val> {
        let Val::T(x) = v else { return None };
        let ty = self.ty(*x);
        let s = ty.scalar_type().filter(|_| !ty.is_tensor())?;
        let ValueDef::Result(op, _) = self.f.values[*x].def else { return None };
        let OpKind::Constant(c) = &self.f.ops[op].kind else { return None };
        Some(match *c {
            Constant::Bool(b) => Val::Bool(b),
            Constant::Int(i) if s.is_bool() => Val::Bool(i != 0),
            Constant::Int(i) if s.is_unsigned_int() => Val::Int(i as u64 as i128),
            Constant::Int(i) if s.is_float() => Val::Float(i as f64),
            Constant::Int(i) => Val::Int(i as i128),
            Constant::Float(x) if s.is_float() => Val::Float(x),
            Constant::Float(x) => Val::Int(x as i128),
        })
    }

    /// `v`, or the number it holds when it is a scalar constant tensor.
    pub fn compile_time(&self, v: &Val) -> Val {
        self.known_number(v).unwrap_or_else(|| v.clone())
    }

    /// Binds `name`, naming the IR value after it when it has no name yet.
    pub fn bind(&mut self, scope: &mut Scope, name: &str, v: Val) {
        if let Val::T(value) = v {
            let data = &mut self.f.values[value];
            if data.name.is_none() && name != "_" {
                data.name = Some(name.to_string());
            }
        }
        scope.vars.insert(name.to_string(), v);
    }

    /// The truth of a compile-time condition; `None` for runtime values.
    pub fn const_truth(&self, v: &Val) -> Option<bool> {
        constexpr::truth(v)
    }

    /// A runtime condition as a scalar `i1`; a one-element tensor counts as its element.
    fn condition(&mut self, cond: &Val, span: Span) -> Result<Value> {
        let mut v = self.tensor_value(cond, span)?;
        if self.ty(v).numel() == 1 {
            v = self.unsplat(v, span)?;
        }
        if self.ty(v).is_tensor() {
            return Err(err_label(
                errors::TYPE_ERROR,
                span,
                "the condition of `if`/`while` must be a scalar",
                format!("this is a tensor of shape {:?}", self.ty(v).shape),
            ));
        }
        self.cast(v, ScalarType::I1, span)
    }

    // ----- if -----

    fn if_stmt(
        &mut self,
        scope: &mut Scope,
        cond: Value,
        body: &[Stmt],
        orelse: &[Stmt],
        ctx: Ctx,
        span: Span,
    ) -> Result<()> {
        let then_r = self.f.new_region();
        let else_r = self.f.new_region();
        let mut then_scope = scope.clone();
        let mut else_scope = scope.clone();
        self.in_region(then_r, |l| l.block(&mut then_scope, body, ctx))?;
        self.in_region(else_r, |l| l.block(&mut else_scope, orelse, ctx))?;
        let mut plan = Vec::new();
        let (mut ya, mut yb) = (Vec::new(), Vec::new());
        for (name, a) in &then_scope.vars {
            let Some(b) = else_scope.vars.get(name) else { continue };
            let m = self.merge(a, b, then_r, else_r, &mut ya, &mut yb, span, &format!("`{name}`"))?;
            plan.push((name.clone(), m));
        }
        let results = self.finish_if(cond, then_r, else_r, ya, yb, span);
        scope.vars.retain(|n, _| then_scope.vars.contains_key(n) && else_scope.vars.contains_key(n));
        for (name, m) in plan {
            let v = rebuild(&m, &results);
            self.bind(scope, &name, v);
        }
        Ok(())
    }

    /// A runtime `if` one of whose branches returns: the statements after it run in both
    /// branches, and the `scf.if` yields the return value.
    fn if_with_return(
        &mut self,
        scope: &mut Scope,
        cond: Value,
        body: &[Stmt],
        orelse: &[Stmt],
        rest: &[Stmt],
        span: Span,
    ) -> Result<Flow> {
        let then_stmts: Vec<Stmt> = body.iter().chain(rest).cloned().collect();
        let else_stmts: Vec<Stmt> = orelse.iter().chain(rest).cloned().collect();
        let then_r = self.f.new_region();
        let else_r = self.f.new_region();
        let mut then_scope = scope.clone();
        let mut else_scope = scope.clone();
        let a = self.in_region(then_r, |l| l.block(&mut then_scope, &then_stmts, Ctx::Tail))?;
        let b = self.in_region(else_r, |l| l.block(&mut else_scope, &else_stmts, Ctx::Tail))?;
        let a = flow_value(a);
        let b = flow_value(b);
        let (mut ya, mut yb) = (Vec::new(), Vec::new());
        let m = self.merge(&a, &b, then_r, else_r, &mut ya, &mut yb, span, "the returned value")?;
        let results = self.finish_if(cond, then_r, else_r, ya, yb, span);
        Ok(Flow::Return(rebuild(&m, &results)))
    }

    /// Appends the yields to both regions and the `scf.if` to the current region.
    fn finish_if(
        &mut self,
        cond: Value,
        then_r: RegionId,
        else_r: RegionId,
        ya: Vec<Value>,
        yb: Vec<Value>,
        span: Span,
    ) -> Vec<Value> {
        let types: Vec<Type> = ya.iter().map(|v| self.ty(*v).clone()).collect();
        self.f.append_op(then_r, OpKind::Yield(ya), vec![], span);
        self.f.append_op(else_r, OpKind::Yield(yb), vec![], span);
        let op =
            self.f.append_op(self.region, OpKind::If { cond, then_region: then_r, else_region: else_r }, types, span);
        self.f.ops[op].results.clone()
    }

    /// Plans how two values reaching a join (the ends of two branches) combine: equal
    /// compile-time values stay compile-time; numbers and tensors become yielded values.
    #[allow(clippy::too_many_arguments)]
    fn merge(
        &mut self,
        a: &Val,
        b: &Val,
        ra: RegionId,
        rb: RegionId,
        ya: &mut Vec<Value>,
        yb: &mut Vec<Value>,
        span: Span,
        what: &str,
    ) -> Result<Merged> {
        if *a == Val::Poison || *b == Val::Poison {
            return Ok(Merged::Same(Val::Poison));
        }
        if a == b && !matches!(a, Val::Tuple(_)) {
            return Ok(Merged::Same(a.clone()));
        }
        match (a, b) {
            (Val::Tuple(xs), Val::Tuple(ys)) if xs.len() == ys.len() => {
                let mut parts = Vec::new();
                for (x, y) in xs.iter().zip(ys) {
                    parts.push(self.merge(x, y, ra, rb, ya, yb, span, what)?);
                }
                Ok(Merged::Tuple(parts))
            }
            (x, y) if carry::is_structure(x) && carry::same_structure(x, y) => {
                let mut parts = Vec::new();
                for (lx, ly) in carry::leaves(x).iter().zip(carry::leaves(y)) {
                    parts.push(self.merge(lx, &ly, ra, rb, ya, yb, span, what)?);
                }
                Ok(Merged::Struct(x.clone(), parts))
            }
            (x, y) if carry::is_leaf(x) && carry::is_leaf(y) => {
                let va = self.in_region(ra, |l| l.tensor_value(x, span))?;
                let vb = self.in_region(rb, |l| l.tensor_value(y, span))?;
                if self.ty(va) != self.ty(vb) {
                    return Err(err(
                        errors::BRANCH_TYPE,
                        span,
                        format!(
                            "{what} has type {} in one branch and {} in the other",
                            crate::ops::type_name(self.ty(va)),
                            crate::ops::type_name(self.ty(vb))
                        ),
                    ));
                }
                ya.push(va);
                yb.push(vb);
                Ok(Merged::Slot(ya.len() - 1))
            }
            _ => Err(err(
                errors::BRANCH_TYPE,
                span,
                format!("{what} is {} in one branch and {} in the other", a.describe(), b.describe()),
            )),
        }
    }

    // ----- loops -----

    fn for_stmt(&mut self, scope: &mut Scope, target: &Expr, iter: &Expr, body: &[Stmt], span: Span) -> Result<()> {
        // As Triton's code generator: the iterable is a call of a range (so a tuple such as
        // `*args` is not iterated directly).
        let not_a_range = || {
            err_label(
                errors::UNSUPPORTED,
                iter.span,
                "a `for` loop must iterate over `range`, `tl.range` or `tl.static_range`",
                "not a range",
            )
            .with_note("to go through a tuple `t` (such as `*args`), use `for i in tl.static_range(len(t))` and `t[i]`")
        };
        let ExprKind::Call { func, args, keywords } = &iter.kind else {
            return Err(not_a_range());
        };
        let callee = self.expr(scope, func)?;
        let kind = match callee {
            Val::Builtin(Ns::Py, "range") | Val::Builtin(Ns::Tl, "range") => "range",
            Val::Builtin(Ns::Tl, "static_range") => "static_range",
            _ => return Err(not_a_range()),
        };
        let ExprKind::Name(iv_name) = &target.kind else {
            return Err(err(errors::UNSUPPORTED, target.span, "the loop variable must be a single name"));
        };
        let a = self.call_args(scope, args, keywords)?;
        let params: &[&str] = if kind == "range" {
            &[
                "arg1",
                "arg2",
                "step",
                "num_stages",
                "loop_unroll_factor",
                "disallow_acc_multi_buffer",
                "flatten",
                "warp_specialize",
            ]
        } else {
            &["arg1", "arg2", "step"]
        };
        let b = a.bind(kind, params, 1, iter.span)?;
        let (start, end) = match b.get(1) {
            Some(e) => (b.val(0), e.clone()),
            None => (Val::Int(0), b.val(0)),
        };
        let step = b.get(2).cloned().unwrap_or(Val::Int(1));
        if matches!(step, Val::Int(0)) {
            return Err(err(errors::VALUE, b.span(2), "the step of a range must not be zero"));
        }
        // A constexpr function's `range` loop runs while compiling, as a static range.
        if kind == "static_range" || self.in_constexpr_function(scope) {
            let mut ints = Vec::new();
            for (i, v) in [&start, &end, &step].into_iter().enumerate() {
                match &self.compile_time(v) {
                    Val::Int(x) => ints.push(*x),
                    Val::Bool(x) => ints.push(*x as i128),
                    other => {
                        return Err(err_label(
                            errors::NOT_CONSTEXPR,
                            b.span(if b.get(1).is_some() { i } else { 0 }),
                            "`tl.static_range` needs compile-time integer bounds",
                            format!("this is {}", other.describe()),
                        ))
                    }
                }
            }
            let (lo, hi, st) = (ints[0], ints[1], ints[2]);
            let count = if st > 0 {
                (hi - lo).max(0) / st + ((hi - lo).max(0) % st != 0) as i128
            } else {
                (lo - hi).max(0) / -st + ((lo - hi).max(0) % -st != 0) as i128
            };
            if count > 4096 {
                return Err(err(
                    errors::VALUE,
                    iter.span,
                    format!("`tl.static_range` would unroll {count} iterations (limit 4096)"),
                ));
            }
            for k in 0..count {
                self.bind(scope, iv_name, Val::Int(lo + k * st));
                self.block(scope, body, Ctx::Loop)?;
            }
            return Ok(());
        }
        // A runtime `scf.for`: bounds and step share one integer type.
        let mut iv_ty: Option<ScalarType> = None;
        for v in [&start, &end, &step] {
            let t = self.int_operand_type(v, iter.span)?;
            iv_ty = Some(match iv_ty {
                None => t,
                Some(p) => promote::integer_promote(p, t),
            });
        }
        let iv_ty = iv_ty.unwrap_or(ScalarType::I32);
        let mut bounds = Vec::new();
        for v in [&start, &end, &step] {
            let t = self.tensor_value(v, iter.span)?;
            bounds.push(self.cast(t, iv_ty, iter.span)?);
        }
        let mut carry = self.carried(scope, body, Some(iv_name));
        let mut attempt = 0;
        loop {
            let snapshot = (attempt < 2 && carry.has_structure()).then(|| self.f.clone());
            let init = self.carried_init(&carry, span)?;
            let body_r = self.f.new_region();
            let iv = self.f.add_region_param(body_r, Type::scalar(iv_ty), Some(iv_name.clone()));
            let params = self.carried_params(&carry, &init, body_r);
            let mut body_scope = scope.clone();
            body_scope.vars.insert(iv_name.clone(), Val::T(iv));
            let entry = carry.entry_values(&params);
            for (name, v) in carry.names.iter().zip(&entry) {
                body_scope.vars.insert(name.clone(), v.clone());
            }
            self.in_region(body_r, |l| l.block(&mut body_scope, body, Ctx::Loop))?;
            let ends = self.loop_ends(&body_scope, &carry, span)?;
            if let Some(next) = self.next_carry(&carry, &entry, &ends, &mut attempt, snapshot) {
                carry = next;
                continue;
            }
            let yields = self.loop_yields(&carry, &ends, &init, body_r, span)?;
            self.f.append_op(body_r, OpKind::Yield(yields), vec![], span);
            let types: Vec<Type> = init.iter().map(|v| self.ty(*v).clone()).collect();
            let op = self.f.append_op(
                self.region,
                OpKind::For { lower: bounds[0], upper: bounds[1], step: bounds[2], init, body: body_r },
                types,
                span,
            );
            let results = self.f.ops[op].results.clone();
            self.bind_carried(scope, &carry, &results);
            return Ok(());
        }
    }

    fn while_stmt(&mut self, scope: &mut Scope, test: &Expr, body: &[Stmt], span: Span) -> Result<()> {
        let mut carry = self.carried(scope, body, None);
        let mut attempt = 0;
        loop {
            let snapshot = (attempt < 2 && carry.has_structure()).then(|| self.f.clone());
            let init = self.carried_init(&carry, span)?;
            let types: Vec<Type> = init.iter().map(|v| self.ty(*v).clone()).collect();
            let before = self.f.new_region();
            let after = self.f.new_region();
            let before_args = self.carried_params(&carry, &init, before);
            let after_params = self.carried_params(&carry, &init, after);
            let mut before_scope = scope.clone();
            let mut after_scope = scope.clone();
            for (name, v) in carry.names.iter().zip(carry.entry_values(&before_args)) {
                before_scope.vars.insert(name.clone(), v);
            }
            let entry = carry.entry_values(&after_params);
            for (name, v) in carry.names.iter().zip(&entry) {
                after_scope.vars.insert(name.clone(), v.clone());
            }
            let cond = self.in_region(before, |l| -> Result<Value> {
                let c = l.expr(&mut before_scope, test)?;
                if let Some(true) = l.const_truth(&c) {
                    return Err(err(
                        errors::UNSUPPORTED,
                        test.span,
                        "a `while` loop whose condition is always true never ends (`break` is not supported)",
                    ));
                }
                l.condition(&c, test.span)
            })?;
            self.f.append_op(before, OpKind::Condition { cond, args: before_args }, vec![], span);
            self.in_region(after, |l| l.block(&mut after_scope, body, Ctx::Loop))?;
            let ends = self.loop_ends(&after_scope, &carry, span)?;
            if let Some(next) = self.next_carry(&carry, &entry, &ends, &mut attempt, snapshot) {
                carry = next;
                continue;
            }
            let yields = self.loop_yields(&carry, &ends, &init, after, span)?;
            self.f.append_op(after, OpKind::Yield(yields), vec![], span);
            let op = self.f.append_op(self.region, OpKind::While { init, before, after }, types, span);
            let results = self.f.ops[op].results.clone();
            self.bind_carried(scope, &carry, &results);
            return Ok(());
        }
    }

    /// The variables a loop carries: names assigned in its body that hold a value before it
    /// that can cross iterations (see `carry.rs`).
    fn carried(&self, scope: &Scope, body: &[Stmt], exclude: Option<&str>) -> carry::Carry {
        let mut assigned = BTreeSet::new();
        assigned_names(body, &mut assigned);
        let names: Vec<String> = assigned
            .into_iter()
            .filter(|n| Some(n.as_str()) != exclude)
            .filter(|n| scope.vars.get(n).is_some_and(carry::carriable))
            .collect();
        let before = names.iter().map(|n| scope.vars[n].clone()).collect();
        carry::Carry::all(names, before)
    }

    /// The runtime values the carried leaves start from (numbers become constants).
    fn carried_init(&mut self, carry: &carry::Carry, span: Span) -> Result<Vec<Value>> {
        carry.carried_leaves().iter().map(|leaf| self.tensor_value(leaf, span)).collect()
    }

    /// One parameter of `region` per carried leaf, named after its variable.
    fn carried_params(&mut self, carry: &carry::Carry, init: &[Value], region: RegionId) -> Vec<Value> {
        let mut names = Vec::new();
        for (name, fixed) in carry.names.iter().zip(&carry.fixed) {
            names.extend(fixed.iter().filter(|f| !**f).map(|_| name.clone()));
        }
        init.iter()
            .zip(names)
            .map(|(v, name)| {
                let ty = self.ty(*v).clone();
                self.f.add_region_param(region, ty, Some(name))
            })
            .collect()
    }

    /// The carried variables' values at the end of an iteration; their structure must not
    /// change.
    fn loop_ends(&self, body_scope: &Scope, carry: &carry::Carry, span: Span) -> Result<Vec<Val>> {
        let mut ends = Vec::new();
        for (name, before) in carry.names.iter().zip(&carry.before) {
            let v = match body_scope.vars.get(name) {
                Some(Val::Poison) => return Err(errors::follow_on()),
                Some(v) if carry::same_structure(before, v) => v.clone(),
                Some(other) => {
                    return Err(err(
                        errors::LOOP_CARRIED_TYPE,
                        span,
                        format!(
                            "loop-carried variable `{name}` is {} before the loop but {} after an iteration",
                            before.describe(),
                            other.describe()
                        ),
                    ))
                }
                None => {
                    return Err(err(
                        errors::LOOP_CARRIED_TYPE,
                        span,
                        format!("loop-carried variable `{name}` is undefined at the end of the loop"),
                    ))
                }
            };
            ends.push(v);
        }
        Ok(ends)
    }

    /// Whether to lower the loop again, and with which plan: once with the leaves that the
    /// first lowering showed unchanged kept fixed, and, should a fixed leaf then change after
    /// all, once more carrying everything. `snapshot` is the function before the attempt.
    fn next_carry(
        &mut self,
        carry: &carry::Carry,
        entry: &[Val],
        ends: &[Val],
        attempt: &mut u32,
        snapshot: Option<Function>,
    ) -> Option<carry::Carry> {
        let next = match *attempt {
            0 => carry.refined(entry, ends)?,
            1 if !carry.fixed_hold(ends) => carry::Carry::all(carry.names.clone(), carry.before.clone()),
            _ => return None,
        };
        self.f = snapshot?;
        *attempt += 1;
        Some(next)
    }

    /// Binds the carried variables to the loop's results.
    fn bind_carried(&mut self, scope: &mut Scope, carry: &carry::Carry, results: &[Value]) {
        let after = carry.entry_values(results);
        for (name, v) in carry.names.iter().zip(after) {
            self.bind(scope, name, v);
        }
    }

    /// The values a loop body yields for its carried leaves; their types must not change.
    fn loop_yields(
        &mut self,
        carry: &carry::Carry,
        ends: &[Val],
        init: &[Value],
        region: RegionId,
        span: Span,
    ) -> Result<Vec<Value>> {
        let mut names = Vec::new();
        for (name, fixed) in carry.names.iter().zip(&carry.fixed) {
            names.extend(fixed.iter().filter(|f| !**f).map(|_| name.clone()));
        }
        let mut out = Vec::new();
        for ((leaf, init_v), name) in carry.carried_ends(ends).iter().zip(init).zip(names) {
            let v = self.in_region(region, |l| l.tensor_value(leaf, span))?;
            if self.ty(v) != self.ty(*init_v) {
                return Err(err_label(
                    errors::LOOP_CARRIED_TYPE,
                    span,
                    format!(
                        "loop-carried variable `{name}` has type {} before the loop but {} after an iteration",
                        crate::ops::type_name(self.ty(*init_v)),
                        crate::ops::type_name(self.ty(v))
                    ),
                    "in this loop",
                )
                .with_note(
                    "the type of a variable must stay the same across loop iterations; cast it with `.to(...)`",
                ));
            }
            out.push(v);
        }
        Ok(out)
    }

    fn int_operand_type(&mut self, v: &Val, span: Span) -> Result<ScalarType> {
        let t = match v {
            Val::Int(i) => promote::literal_int_type(*i)
                .ok_or_else(|| err(errors::VALUE, span, format!("{i} does not fit in 64 bits")))?,
            Val::Bool(_) => ScalarType::I32,
            Val::T(x) if !self.ty(*x).is_tensor() => match self.ty(*x).scalar_type() {
                Some(s) if s.is_int() => s,
                _ => return Err(err(errors::TYPE_ERROR, span, "loop bounds must be integers")),
            },
            other => {
                return Err(err(
                    errors::TYPE_ERROR,
                    span,
                    format!("loop bounds must be integer scalars, got {}", other.describe()),
                ))
            }
        };
        Ok(if t == ScalarType::I1 { ScalarType::I32 } else { t })
    }

    // ----- calls -----

    pub fn call_args(&mut self, scope: &mut Scope, args: &[Expr], keywords: &[ast::Keyword]) -> Result<Args> {
        let mut pos = Vec::new();
        for a in args {
            if let ExprKind::Starred(inner) = &a.kind {
                match self.expr(scope, inner)? {
                    Val::Tuple(items) => pos.extend(items.into_iter().map(|v| (v, inner.span))),
                    other => {
                        return Err(err(
                            errors::TYPE_ERROR,
                            a.span,
                            format!("cannot unpack {} with `*`", other.describe()),
                        ))
                    }
                }
            } else {
                pos.push((self.expr(scope, a)?, a.span));
            }
        }
        let mut kw = Vec::new();
        for k in keywords {
            let Some(name) = &k.name else {
                return Err(err(errors::UNSUPPORTED, k.span, "`**kwargs` is not supported"));
            };
            kw.push((name.name.clone(), self.expr(scope, &k.value)?, k.span));
        }
        Ok(Args { pos, kw })
    }

    pub fn call(&mut self, callee: Val, args: Args, span: Span) -> Result<Val> {
        match callee {
            Val::Func(r) if self.func_def(r).kind == ast::FunctionKind::ConstexprFunction => {
                self.call_constexpr_function(r, args, span)
            }
            Val::Func(r) => self.call_jit(r, args, span),
            Val::Builtin(ns, name) => self.call_builtin(ns, name, None, args, span),
            Val::Method(recv, ns, name) => self.call_builtin(ns, name, Some(*recv), args, span),
            other => Err(err(errors::TYPE_ERROR, span, format!("{} is not callable", other.describe()))),
        }
    }

    /// Runs a `@triton.constexpr_function` on compile-time arguments: its body is Python
    /// evaluated while compiling, so a tensor going in or coming out is an error.
    fn call_constexpr_function(&mut self, r: FuncRef, args: Args, span: Span) -> Result<Val> {
        let def = self.func_def(r);
        let runtime = args.pos.iter().map(|(v, s)| (v, *s)).chain(args.kw.iter().map(|(_, v, s)| (v, *s)));
        for (v, arg_span) in runtime {
            if matches!(v, Val::T(_) | Val::BlockPtr(_) | Val::TensorDesc(_)) {
                return Err(err_label(
                    errors::CONSTEXPR_FUNCTION,
                    arg_span,
                    format!(
                        "`{}` is a `triton.constexpr_function`: its arguments must be compile-time values",
                        def.name.name
                    ),
                    format!("{} here", v.describe()),
                )
                .with_secondary(def.name.span, "defined here"));
            }
        }
        let result = self.call_jit(r, args, span)?;
        if matches!(result, Val::T(_) | Val::BlockPtr(_) | Val::TensorDesc(_)) {
            return Err(err_label(
                errors::CONSTEXPR_FUNCTION,
                span,
                format!("`{}` is a `triton.constexpr_function` but returned a runtime value", def.name.name),
                "this call",
            ));
        }
        Ok(result)
    }

    /// Inlines a `@triton.jit` function.
    pub fn call_jit(&mut self, r: FuncRef, args: Args, span: Span) -> Result<Val> {
        let def = self.func_def(r);
        if self.call_stack.contains(&r) {
            return Err(err_label(
                errors::RECURSION,
                span,
                format!("recursive call of `{}`", def.name.name),
                "this call is recursive",
            )
            .with_secondary(def.name.span, "function defined here")
            .with_note("helper functions are inlined, so they cannot call themselves"));
        }
        // Python's parameter list: `*name` collects positional arguments, a bare `*` (before
        // the first keyword-only parameter that no `*name` precedes) takes none.
        let mut names: Vec<String> = Vec::new();
        let mut slots = Vec::new();
        for p in &def.params {
            match p.kind {
                ast::ParamKind::VarArgs => names.push(format!("*{}", p.name.name)),
                ast::ParamKind::KeywordOnly if !names.iter().any(|n| n.starts_with('*')) => {
                    names.push("*".into());
                    names.push(p.name.name.clone());
                }
                _ => names.push(p.name.name.clone()),
            }
            slots.push(names.len() - 1);
        }
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let bound = args.bind(&def.name.name, &names, 0, span)?;
        let mut scope = Scope::new(r.module, Some(r.index));
        for (p, &slot) in def.params.iter().zip(&slots) {
            let v = match &bound.vals[slot] {
                Some((v, _)) => v.clone(),
                None if p.kind == ast::ParamKind::VarArgs => Val::Tuple(Vec::new()),
                None => match &p.default {
                    Some(d) => {
                        let mut empty = Scope::new(r.module, Some(r.index));
                        self.expr(&mut empty, d)?
                    }
                    None => {
                        return Err(err_label(
                            errors::ARITY,
                            span,
                            format!("`{}` is missing the required argument `{}`", def.name.name, p.name.name),
                            "in this call",
                        )
                        .with_secondary(p.span, "parameter declared here"));
                    }
                },
            };
            // A helper's `tl.constexpr` annotation is not checked: Triton's code generator binds
            // whatever the call passes (tutorial 06 passes tensors to `offs_m: tl.constexpr`).
            self.bind(&mut scope, &p.name.name, v);
        }
        self.call_stack.push(r);
        let flow = self.block(&mut scope, &def.body, Ctx::Tail);
        self.call_stack.pop();
        match flow_value(flow?) {
            Val::Poison => Err(errors::follow_on()),
            v => Ok(v),
        }
    }

    // ----- names -----

    pub fn lookup(&self, scope: &Scope, name: &str, span: Span) -> Result<Val> {
        if let Some(v) = scope.vars.get(name) {
            if *v == Val::Poison {
                return Err(errors::follow_on());
            }
            return Ok(v.clone());
        }
        let module = self.module(scope.module);
        if let Some(index) = resolve_function(module, scope.function, name) {
            return Ok(Val::Func(FuncRef { module: scope.module, index }));
        }
        let file = match scope.module {
            ModuleId::File(i) => Some(i),
            ModuleId::Prelude(_) => None,
        };
        if let Some(v) = file.and_then(|i| self.files[i].links.bindings.get(name)) {
            return self.binding(v, span, 0);
        }
        let imports = match file {
            Some(i) => &self.files[i].imports,
            None => self.prelude_imports.get_or_init(|| crate::names::import_aliases(self.module(scope.module))),
        };
        if let Some(v) = imports.get(name) {
            return match v {
                Val::Tuple(path) => self.import_member(path, span),
                v => Ok(v.clone()),
            };
        }
        if let Some(i) = file {
            if let Some(v) = self.file_global(i, name, span) {
                return v;
            }
            for &star in &self.files[i].links.star {
                if let Some(v) = self.file_member(star, name, span, 1) {
                    return v;
                }
            }
        }
        if let Some(b) = crate::names::python_builtin(name) {
            return Ok(Val::Builtin(Ns::Py, b));
        }
        let mut d = err_label(errors::UNKNOWN_NAME, span, format!("unknown name `{name}`"), "not defined");
        if let Some(close) = scope.vars.keys().find(|k| crate::names::similar(k, name)) {
            d = d.with_note(format!("a variable named `{close}` exists"));
        }
        Err(self.host_code_note(module, name, d))
    }

    /// `d` with a note when `name` is host Python of `module`: a function defined without
    /// `@triton.jit`, or a module it imports that is not Triton's or the program's.
    fn host_code_note(&self, module: &ast::Module, name: &str, d: Diagnostic) -> Diagnostic {
        if let Some(f) = module.host_functions.iter().find(|f| f.name == name) {
            return d.with_secondary(f.span, "defined here without `@triton.jit`").with_note(format!(
                "`{name}` is a host Python function, which tilec does not run: kernels call `@triton.jit` \
                 functions, and compile-time helpers are `@triton.constexpr_function`s"
            ));
        }
        let imported = module.imports.iter().find(|i| {
            !i.is_from
                && i.alias.as_ref().map_or_else(|| i.module.first().is_some_and(|m| m.name == name), |a| a.name == name)
        });
        if let Some(import) = imported {
            let path: Vec<&str> = import.module.iter().map(|m| m.name.as_str()).collect();
            return d.with_secondary(import.span, "imported here").with_note(format!(
                "`{}` is a host Python module, which tilec does not evaluate: kernels and their constexpr \
                 globals can use `triton`, `triton.language` and the program's own files",
                path.join(".")
            ));
        }
        d
    }

    /// Global `name` of file `file`, if it has one (an error when it is not a constexpr).
    fn file_global(&self, file: usize, name: &str, span: Span) -> Option<Result<Val>> {
        let value = self.files[file].globals.get(name)?;
        Some(value.clone().map_err(|d| {
            let read = format!("`{name}` is read here");
            if d.code == errors::NON_CONSTEXPR_GLOBAL {
                d.with_label(span, read)
            } else {
                d.with_secondary(span, read)
            }
        }))
    }

    /// What an import binding names.
    fn binding(&self, b: &Binding, span: Span, depth: usize) -> Result<Val> {
        match b {
            Binding::Module(i) => Ok(Val::FileModule(*i)),
            Binding::Member(i, name) => self.member_of(*i, name, span, depth + 1),
        }
    }

    /// [`Lowerer::file_member`], or an error naming the module when it has no such name.
    fn member_of(&self, file: usize, name: &str, span: Span, depth: usize) -> Result<Val> {
        self.file_member(file, name, span, depth).unwrap_or_else(|| {
            Err(err(
                errors::UNKNOWN_NAME,
                span,
                format!("module `{}` has no `@triton.jit` function or constexpr named `{name}`", self.files[file].name),
            ))
        })
    }

    /// `module.name` for a file of the program: a module-level function, a global, a name
    /// its imports bind, a submodule, or a name of a module it star-imports.
    fn file_member(&self, file: usize, name: &str, span: Span, depth: usize) -> Option<Result<Val>> {
        if depth > MAX_REEXPORTS {
            return Some(Err(err(errors::UNKNOWN_NAME, span, format!("`{name}` is imported in a cycle"))));
        }
        let module = self.files[file].module;
        if let Some(index) = resolve_function(module, None, name) {
            return Some(Ok(Val::Func(FuncRef { module: ModuleId::File(file), index })));
        }
        if let Some(v) = self.file_global(file, name, span) {
            return Some(v);
        }
        let links = self.files[file].links;
        if let Some(b) = links.bindings.get(name) {
            return Some(self.binding(b, span, depth));
        }
        if let Some(v) = self.files[file].imports.get(name) {
            return Some(match v {
                Val::Tuple(path) => self.import_member(path, span),
                v => Ok(v.clone()),
            });
        }
        if let Some(&sub) = links.submodules.get(name) {
            return Some(Ok(Val::FileModule(sub)));
        }
        links.star.iter().find_map(|&star| self.file_member(star, name, span, depth + 1))
    }

    /// `from m import x`: the member `x` of module `m` (encoded as a tuple of strings).
    fn import_member(&self, path: &[Val], span: Span) -> Result<Val> {
        let (Some(Val::Str(module)), Some(Val::Str(member))) = (path.first(), path.get(1)) else {
            return Err(err(errors::INTERNAL, span, "malformed import"));
        };
        match crate::names::canonical_module(module) {
            Some(m) => self.module_attr(m, member, span),
            None => Err(err(
                errors::UNKNOWN_NAME,
                span,
                format!("`{member}` comes from module `{module}`, which kernels cannot use"),
            )
            .with_note(format!(
                "no file `{}.py` was found beside the kernel's file or in an include directory (`-I DIR`)",
                module.replace('.', "/")
            ))),
        }
    }

    pub fn module_attr(&self, module: &'static str, attr: &str, span: Span) -> Result<Val> {
        let full = format!("{module}.{attr}");
        if let Some(m) = crate::names::canonical_module(&full) {
            return Ok(Val::Module(m));
        }
        let ns = crate::names::namespace(module);
        if let Some(ns) = ns {
            if ns == Ns::Tl {
                if let Some(t) = crate::names::dtype(attr) {
                    return Ok(Val::DType(t));
                }
                if attr == "PropagateNan" {
                    return Ok(Val::PropagateNanEnum);
                }
                if let Some(class) = crate::builtins::CLASSES.iter().find(|c| **c == attr) {
                    return Ok(Val::Class(class));
                }
                // `tl.pi32_t = pointer_type(int32)`, Triton's one predefined pointer type.
                if attr == "pi32_t" {
                    return Ok(Val::PtrDType(ScalarType::I32));
                }
            }
            if let Some(name) = crate::names::builtin(ns, attr) {
                return Ok(Val::Builtin(ns, name));
            }
            if matches!(ns, Ns::Tl | Ns::Triton) {
                if let Some((library, index)) = crate::prelude::function(attr)? {
                    // Private helpers stay private, except the compile-time functions of
                    // `triton.language.standard` that kernels import by name.
                    let standard = module == "triton.language.standard" && STANDARD_HELPERS.contains(&attr);
                    if !attr.starts_with('_') || standard {
                        return Ok(Val::Func(FuncRef { module: ModuleId::Prelude(library), index }));
                    }
                }
            }
            if crate::names::unsupported_builtin(attr) {
                return Err(err(errors::UNSUPPORTED, span, format!("`{full}` is not supported by tilec")));
            }
        }
        let d = err_label(
            errors::UNKNOWN_ATTRIBUTE,
            span,
            format!("module `{module}` has no attribute `{attr}`"),
            "unknown attribute",
        );
        Err(match ns {
            Some(Ns::Tl) if crate::builtins::libdevice::lookup(attr).is_some() => d.with_note(format!(
                "`{attr}` is in `triton.language.extra.libdevice` (Triton 3 has no `tl.math.{attr}`)"
            )),
            _ => d,
        })
    }

    // ----- expressions -----

    pub fn expr(&mut self, scope: &mut Scope, e: &Expr) -> Result<Val> {
        match &e.kind {
            ExprKind::Name(n) => self.lookup(scope, n, e.span),
            ExprKind::Int(i) => Ok(Val::Int(*i)),
            ExprKind::Float(x) => Ok(Val::Float(*x)),
            ExprKind::Str(s) => Ok(Val::Str(s.clone())),
            ExprKind::Bool(b) => Ok(Val::Bool(*b)),
            ExprKind::None => Ok(Val::None),
            ExprKind::Attribute { value, attr } => {
                let base = self.expr(scope, value)?;
                self.attribute(base, &attr.name, attr.span.to(e.span))
            }
            ExprKind::Call { func, args, keywords } => {
                let callee = self.expr(scope, func)?;
                if matches!(
                    callee,
                    Val::Builtin(Ns::Tl, "static_range")
                        | Val::Builtin(Ns::Tl, "range")
                        | Val::Builtin(Ns::Py, "range")
                ) {
                    return Err(err(
                        errors::UNSUPPORTED,
                        e.span,
                        "ranges can only be used as the iterable of a `for` loop",
                    ));
                }
                let a = self.call_args(scope, args, keywords)?;
                self.call(callee, a, e.span)
            }
            ExprKind::Subscript { value, index } => {
                let base = self.expr(scope, value)?;
                self.subscript(scope, base, index, e.span)
            }
            ExprKind::BinOp { op, lhs, rhs } => {
                let a = self.expr(scope, lhs)?;
                let b = self.expr(scope, rhs)?;
                self.binary(*op, &a, &b, e.span)
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.expr(scope, operand)?;
                self.unary(*op, &v, e.span)
            }
            ExprKind::BoolOp { op, values } => self.bool_op(scope, *op, values, e.span),
            ExprKind::Compare { left, ops, comparators } => {
                let mut lhs = self.expr(scope, left)?;
                let mut result = Val::Bool(true);
                for (i, (op, c)) in ops.iter().zip(comparators).enumerate() {
                    let rhs = self.expr(scope, c)?;
                    let r = self.compare(*op, &lhs, &rhs, e.span)?;
                    if i > 0 && !(result.is_number() && r.is_number()) {
                        return Err(err(
                            errors::UNSUPPORTED,
                            e.span,
                            "chained comparisons of tensors are not supported; split them with `&`",
                        ));
                    }
                    result = if i == 0 {
                        r
                    } else {
                        Val::Bool(self.const_truth(&result) == Some(true) && self.const_truth(&r) == Some(true))
                    };
                    lhs = rhs;
                }
                Ok(result)
            }
            ExprKind::IfExp { test, body, orelse } => {
                let c = self.expr(scope, test)?;
                if let Some(t) = self.const_truth(&c) {
                    return self.expr(scope, if t { body } else { orelse });
                }
                let cond = self.condition(&c, test.span)?;
                let then_r = self.f.new_region();
                let else_r = self.f.new_region();
                let a = self.in_region(then_r, |l| l.expr(scope, body))?;
                let b = self.in_region(else_r, |l| l.expr(scope, orelse))?;
                let (mut ya, mut yb) = (Vec::new(), Vec::new());
                let m = self.merge(&a, &b, then_r, else_r, &mut ya, &mut yb, e.span, "the conditional expression")?;
                let results = self.finish_if(cond, then_r, else_r, ya, yb, e.span);
                Ok(rebuild(&m, &results))
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let mut out = Vec::new();
                for it in items {
                    if let ExprKind::Starred(inner) = &it.kind {
                        match self.expr(scope, inner)? {
                            Val::Tuple(xs) => out.extend(xs),
                            other => {
                                return Err(err(
                                    errors::TYPE_ERROR,
                                    it.span,
                                    format!("cannot unpack {} with `*`", other.describe()),
                                ))
                            }
                        }
                    } else {
                        out.push(self.expr(scope, it)?);
                    }
                }
                Ok(Val::Tuple(out))
            }
            ExprKind::Dict(_) => {
                Err(err(errors::UNSUPPORTED, e.span, "dictionaries are not supported in Triton kernels"))
            }
            ExprKind::Lambda { .. } => {
                Err(err(errors::UNSUPPORTED, e.span, "lambda expressions are not supported in Triton kernels")
                    .with_note("define a `@triton.jit` helper function instead"))
            }
            ExprKind::Starred(_) => {
                Err(err(errors::UNSUPPORTED, e.span, "`*` unpacking is only supported in calls and tuples"))
            }
            ExprKind::Slice { .. } => Err(err(errors::UNSUPPORTED, e.span, "a slice is only valid inside `[...]`")),
            ExprKind::Ellipsis => Err(err(errors::UNSUPPORTED, e.span, "`...` is not supported in Triton kernels")),
            ExprKind::Unsupported { what } => {
                Err(err(errors::UNSUPPORTED, e.span, format!("{what} is not supported in Triton kernels")))
            }
        }
    }

    fn bool_op(&mut self, scope: &mut Scope, op: ast::BoolOp, values: &[Expr], span: Span) -> Result<Val> {
        let mut acc = self.expr(scope, &values[0])?;
        for v in &values[1..] {
            if let Some(t) = self.const_truth(&acc) {
                // Python short-circuit on compile-time values.
                let stop = match op {
                    ast::BoolOp::And => !t,
                    ast::BoolOp::Or => t,
                };
                if stop {
                    return Ok(acc);
                }
                acc = self.expr(scope, v)?;
                continue;
            }
            let rhs = self.expr(scope, v)?;
            acc = self.logical(op, &acc, &rhs, span)?;
        }
        Ok(acc)
    }

    fn subscript(&mut self, scope: &mut Scope, base: Val, index: &[Expr], span: Span) -> Result<Val> {
        match base {
            Val::HeuristicArgs(args) => {
                let key = match index {
                    [one] => self.expr(scope, one)?,
                    _ => Val::None,
                };
                let Val::Str(key) = key else {
                    return Err(err(errors::HEURISTIC, span, "a heuristic reads its arguments as `args['NAME']`"));
                };
                match args.iter().find(|(name, _)| *name == key) {
                    Some((_, Some(v))) => Ok(v.clone()),
                    Some((_, None)) => Err(err_label(
                        errors::HEURISTIC,
                        span,
                        format!(
                            "this heuristic reads `{key}`, a runtime argument, whose value is not known when compiling"
                        ),
                        "a runtime argument",
                    )),
                    None => Err(err_label(
                        errors::HEURISTIC,
                        span,
                        format!("the kernel has no parameter `{key}`"),
                        "not a parameter",
                    )),
                }
            }
            Val::Tuple(items) => {
                if index.len() != 1 {
                    return Err(err(errors::UNSUPPORTED, span, "tuples take a single index"));
                }
                if let ExprKind::Slice { lower, upper, step } = &index[0].kind {
                    let mut bound = |e: &Option<Box<Expr>>| -> Result<Option<i128>> {
                        let Some(e) = e else { return Ok(None) };
                        match self.expr(scope, e)? {
                            Val::None => Ok(None),
                            v => self.const_int(&v, e.span, "a slice bound").map(Some),
                        }
                    };
                    let (lo, hi, st) = (bound(lower)?, bound(upper)?, bound(step)?);
                    return match python_slice(items.len(), lo, hi, st) {
                        Some(picked) => Ok(Val::Tuple(picked.into_iter().map(|i| items[i].clone()).collect())),
                        None => Err(err(errors::VALUE, index[0].span, "slice step cannot be zero")),
                    };
                }
                let i = self.expr(scope, &index[0])?;
                let Val::Int(i) = self.compile_time(&i) else {
                    return Err(err(
                        errors::NOT_CONSTEXPR,
                        index[0].span,
                        format!("a tuple index must be a compile-time int, got {}", i.describe()),
                    ));
                };
                let n = items.len() as i128;
                let k = if i < 0 { i + n } else { i };
                if k < 0 || k >= n {
                    return Err(err(
                        errors::VALUE,
                        index[0].span,
                        format!("tuple index {i} out of range for a tuple of {n}"),
                    ));
                }
                Ok(items[k as usize].clone())
            }
            Val::T(v) => {
                // Triton's `tensor.__getitem__`: `None` inserts a dimension, a slice whose
                // bounds are all `None` (`:`, `None:`) keeps one; nothing else is allowed.
                let mut out = v;
                for (dim, ix) in (0u32..).zip(index) {
                    let keep = match &ix.kind {
                        ExprKind::Slice { lower, upper, step } => {
                            for b in [lower, upper, step].into_iter().flatten() {
                                if !matches!(self.expr(scope, b)?, Val::None) {
                                    return Err(err(
                                        errors::UNSUPPORTED,
                                        b.span,
                                        "only `:` and `None` can index a tensor (slice bounds must be `None`)",
                                    ));
                                }
                            }
                            true
                        }
                        _ => match self.expr(scope, ix)? {
                            Val::None => false,
                            _ => {
                                return Err(err(errors::UNSUPPORTED, ix.span, "only `:` and `None` can index a tensor"))
                            }
                        },
                    };
                    if keep {
                        if dim as usize >= self.ty(out).shape.len() {
                            return Err(err(errors::SHAPE, ix.span, "too many `:` for the rank of the tensor"));
                        }
                    } else {
                        out = self.expand_dims(out, dim, ix.span)?;
                    }
                }
                Ok(Val::T(out))
            }
            other => Err(err(errors::TYPE_ERROR, span, format!("{} cannot be indexed", other.describe()))),
        }
    }

    pub(crate) fn attribute(&mut self, base: Val, attr: &str, span: Span) -> Result<Val> {
        match base {
            Val::Module(m) => self.module_attr(m, attr, span),
            Val::FileModule(i) => self.member_of(i, attr, span, 0),
            Val::T(v) => {
                let ty = self.ty(v).clone();
                match attr {
                    "dtype" => Ok(match ty.elem {
                        tilec_ir::Elem::Scalar(s) => Val::DType(s),
                        tilec_ir::Elem::Ptr(s) => Val::PtrDType(s),
                    }),
                    "shape" => Ok(Val::Tuple(ty.shape.iter().map(|&d| Val::Int(d as i128)).collect())),
                    "numel" => Ok(Val::Int(ty.numel() as i128)),
                    "type" => Ok(self.type_of(v)),
                    "T" => Ok(Val::T(self.trans(v, None, span)?)),
                    _ => match crate::names::builtin(Ns::Tensor, attr) {
                        Some(name) => Ok(Val::Method(Box::new(Val::T(v)), Ns::Tensor, name)),
                        None => {
                            Err(err(errors::UNKNOWN_ATTRIBUTE, span, format!("tensors have no attribute `{attr}`")))
                        }
                    },
                }
            }
            Val::DType(t) => match crate::builtins::dtype_property(t, attr) {
                Some(v) => Ok(v),
                None => match crate::names::builtin(Ns::DType, attr) {
                    Some(name) => Ok(Val::Method(Box::new(Val::DType(t)), Ns::DType, name)),
                    None => Err(err(
                        errors::UNKNOWN_ATTRIBUTE,
                        span,
                        format!("dtype {} has no attribute `{attr}`", t.name()),
                    )),
                },
            },
            Val::PtrDType(t) => match attr {
                "element_ty" => Ok(Val::DType(t)),
                "primitive_bitwidth" => Ok(Val::Int(64)),
                "itemsize" => Ok(Val::Int(8)),
                "scalar" | "value" => Ok(Val::PtrDType(t)),
                _ => match crate::names::builtin(Ns::DType, attr) {
                    Some(name) => Ok(Val::Method(Box::new(Val::PtrDType(t)), Ns::DType, name)),
                    None => {
                        Err(err(errors::UNKNOWN_ATTRIBUTE, span, format!("pointer dtypes have no attribute `{attr}`")))
                    }
                },
            },
            Val::BlockPtr(p) => match attr {
                "advance" => Ok(Val::Method(Box::new(Val::BlockPtr(p)), Ns::BlockPtr, "advance")),
                _ => Err(err(errors::UNKNOWN_ATTRIBUTE, span, format!("block pointers have no attribute `{attr}`"))),
            },
            Val::TensorDesc(d) => self.desc_attribute(&d, attr, span),
            Val::BlockType(elem, shape) => self.block_type_attribute(elem, &shape, attr, span),
            Val::PropagateNanEnum => match PropagateNan::from_name(attr) {
                Some(p) => Ok(Val::PropagateNan(p)),
                None => Err(err_label(
                    errors::UNKNOWN_ATTRIBUTE,
                    span,
                    format!("`tl.PropagateNan` has no member `{attr}`"),
                    "unknown member",
                )
                .with_note("its members are `NONE` and `ALL`")),
            },
            v if v.is_number() => match (attr, &v) {
                ("value", _) => Ok(v),
                _ => Err(err(errors::UNKNOWN_ATTRIBUTE, span, format!("{} has no attribute `{attr}`", v.describe()))),
            },
            other => {
                Err(err(errors::UNKNOWN_ATTRIBUTE, span, format!("{} has no attribute `{attr}`", other.describe())))
            }
        }
    }
}

/// How a joined value is rebuilt from the results of an `scf.if`.
pub(crate) enum Merged {
    Same(Val),
    Slot(usize),
    Tuple(Vec<Merged>),
    /// A block pointer or descriptor: the first branch's, with its leaves merged.
    Struct(Val, Vec<Merged>),
}

pub(crate) fn rebuild(m: &Merged, results: &[Value]) -> Val {
    match m {
        Merged::Same(v) => v.clone(),
        Merged::Slot(i) => Val::T(results[*i]),
        Merged::Tuple(parts) => Val::Tuple(parts.iter().map(|p| rebuild(p, results)).collect()),
        Merged::Struct(template, parts) => carry::with_leaves(template, &mut parts.iter().map(|p| rebuild(p, results))),
    }
}

fn flow_value(f: Flow) -> Val {
    match f {
        Flow::Next => Val::None,
        Flow::Return(v) => v,
    }
}

fn return_in_loop(span: Span) -> tilec_diagnostics::Diagnostic {
    err(errors::RETURN, span, "`return` inside a loop is not supported")
}

/// Whether `e` is a name or a chain of attributes of one (`tl.math.rsqrt`).
fn is_dotted_name(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Name(_) => true,
        ExprKind::Attribute { value, .. } => is_dotted_name(value),
        _ => false,
    }
}

/// Whether a statement list contains a `return` (not counting nested functions).
pub(crate) fn contains_return(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::If { body, orelse, .. }
        | StmtKind::For { body, orelse, .. }
        | StmtKind::While { body, orelse, .. } => contains_return(body) || contains_return(orelse),
        _ => false,
    })
}

/// Every name a statement list may assign.
fn assigned_names(stmts: &[Stmt], out: &mut BTreeSet<String>) {
    fn target(e: &Expr, out: &mut BTreeSet<String>) {
        match &e.kind {
            ExprKind::Name(n) => {
                out.insert(n.clone());
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => items.iter().for_each(|i| target(i, out)),
            ExprKind::Starred(inner) => target(inner, out),
            _ => {}
        }
    }
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { targets, .. } => targets.iter().for_each(|t| target(t, out)),
            StmtKind::AugAssign { target: t, .. } | StmtKind::AnnAssign { target: t, .. } => target(t, out),
            StmtKind::If { body, orelse, .. } | StmtKind::While { body, orelse, .. } => {
                assigned_names(body, out);
                assigned_names(orelse, out);
            }
            StmtKind::For { target: t, body, orelse, .. } => {
                target(t, out);
                assigned_names(body, out);
                assigned_names(orelse, out);
            }
            _ => {}
        }
    }
}

/// The indices Python's `seq[lo:hi:step]` picks from a sequence of `len` items; `None` for a
/// zero step.
fn python_slice(len: usize, lo: Option<i128>, hi: Option<i128>, step: Option<i128>) -> Option<Vec<usize>> {
    let n = len as i128;
    let step = step.unwrap_or(1);
    if step == 0 {
        return None;
    }
    let clamp = |v: i128, lo_limit: i128, hi_limit: i128| {
        let v = if v < 0 { v + n } else { v };
        v.clamp(lo_limit, hi_limit)
    };
    let mut out = Vec::new();
    if step > 0 {
        let (mut i, end) = (lo.map_or(0, |v| clamp(v, 0, n)), hi.map_or(n, |v| clamp(v, 0, n)));
        while i < end {
            out.push(i as usize);
            i += step;
        }
    } else {
        let (mut i, end) = (lo.map_or(n - 1, |v| clamp(v, -1, n - 1)), hi.map_or(-1, |v| clamp(v, -1, n - 1)));
        while i > end {
            out.push(i as usize);
            i += step;
        }
    }
    Some(out)
}

/// The function `name` as Python resolves it from the body of `function`: defined in the
/// same enclosing `def`, then in each `def` further out, then at module level.
pub(crate) fn resolve_function(module: &ast::Module, function: Option<usize>, name: &str) -> Option<usize> {
    let outer: &[String] = function.map_or(&[], |i| &module.functions[i].scope);
    (0..=outer.len()).rev().find_map(|depth| {
        module.functions.iter().position(|f| f.name.name == name && f.scope.as_slice() == &outer[..depth])
    })
}

#[cfg(test)]
mod tests {
    use super::python_slice;

    #[test]
    fn slices_follow_python() {
        let s = |lo, hi, st| python_slice(5, lo, hi, st).unwrap();
        assert_eq!(s(None, Some(-1), None), [0, 1, 2, 3]);
        assert_eq!(s(Some(1), None, None), [1, 2, 3, 4]);
        assert_eq!(s(None, None, Some(-1)), [4, 3, 2, 1, 0]);
        assert_eq!(s(Some(-2), None, None), [3, 4]);
        assert_eq!(s(None, None, Some(2)), [0, 2, 4]);
        assert_eq!(s(Some(10), None, None), Vec::<usize>::new());
        assert_eq!(s(Some(3), Some(0), Some(-1)), [3, 2, 1]);
        assert!(python_slice(5, None, None, Some(0)).is_none());
    }
}
