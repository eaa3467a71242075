//! The stable text form of the AST (`--emit ast`).
//!
//! One node per line, children indented by two spaces, each line `ROLE KIND DETAILS @start..end`
//! where ROLE names the node's place in its parent (`value`, `arg`, `target`, ...). Section
//! headers without a span (`body`, `orelse`, `params`, ...) group statement lists. The format
//! is part of the snapshot tests: change it deliberately.

use std::fmt::Write;

use crate::ast::*;

/// Prints a whole module.
pub fn print_module(module: &Module) -> String {
    let mut p = Printer { out: String::new() };
    p.line(0, "module");
    for import in &module.imports {
        p.import(1, import);
    }
    for global in &module.globals {
        p.global(1, global);
    }
    for function in &module.functions {
        p.function(1, function);
    }
    p.out
}

struct Printer {
    out: String,
}

fn at(span: Span) -> String {
    format!("@{}..{}", span.start, span.end)
}

fn dotted(path: &[Ident]) -> String {
    path.iter().map(|i| i.name.as_str()).collect::<Vec<_>>().join(".")
}

impl Printer {
    fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn import(&mut self, depth: usize, import: &Import) {
        let mut text = if import.is_from {
            let names: Vec<String> = import
                .names
                .iter()
                .map(|(name, alias)| match alias {
                    Some(alias) => format!("{} as {}", name.name, alias.name),
                    None => name.name.clone(),
                })
                .collect();
            let dots = ".".repeat(import.level as usize);
            format!("from {dots}{} import {}", dotted(&import.module), names.join(", "))
        } else {
            format!("import {}", dotted(&import.module))
        };
        if let Some(alias) = &import.alias {
            let _ = write!(text, " as {}", alias.name);
        }
        self.line(depth, &format!("{text} {}", at(import.span)));
    }

    fn global(&mut self, depth: usize, g: &Global) {
        let parsed = if g.value.is_none() { " (host code)" } else { "" };
        self.line(depth, &format!("global {} {}{parsed}", g.name.name, at(g.span)));
        if let Some(annotation) = &g.annotation {
            self.expr(depth + 1, "annotation", annotation);
        }
        if let Some(value) = &g.value {
            self.expr(depth + 1, "value", value);
        }
    }

    fn function(&mut self, depth: usize, f: &FunctionDef) {
        let kind = match f.kind {
            FunctionKind::Jit => "function",
            FunctionKind::ConstexprFunction => "constexpr_function",
        };
        let name = f.scope.iter().chain([&f.name.name]).cloned().collect::<Vec<_>>().join(".");
        self.line(depth, &format!("{kind} {name} {}", at(f.span)));
        let d = depth + 1;
        for decorator in &f.decorators {
            self.expr(d, "decorator", decorator);
        }
        if let Some(autotune) = &f.autotune {
            self.line(d, &format!("autotune {}", at(autotune.span)));
            for config in &autotune.configs {
                self.line(d + 1, &format!("config {}", at(config.span)));
                for (name, value) in &config.kwargs {
                    self.expr(d + 2, &format!("const {name}"), value);
                }
                for option in &config.options {
                    self.keyword(d + 2, option);
                }
            }
            let key: Vec<String> = autotune.key.iter().map(|k| format!("{k:?}")).collect();
            self.line(d + 1, &format!("key [{}]", key.join(", ")));
            for (what, names) in
                [("reset_to_zero", &autotune.reset_to_zero), ("restore_value", &autotune.restore_value)]
            {
                if !names.is_empty() {
                    let names: Vec<String> = names.iter().map(|k| format!("{k:?}")).collect();
                    self.line(d + 1, &format!("{what} [{}]", names.join(", ")));
                }
            }
            if let Some(span) = autotune.configs_from_host {
                self.line(d + 1, &format!("configs_from_host {}", at(span)));
            }
            for option in &autotune.options {
                self.keyword(d + 1, option);
            }
        }
        for (name, value) in &f.heuristics {
            self.expr(d, &format!("heuristic {} {}", name.name, at(name.span)), value);
        }
        for kw in &f.jit_kwargs {
            self.line(d, "jit_kwarg");
            self.keyword(d + 1, kw);
        }
        if let Some(doc) = &f.docstring {
            self.line(d, &format!("docstring {doc:?}"));
        }
        self.line(d, "params");
        for param in &f.params {
            let kind = match param.kind {
                ParamKind::Positional => "param ",
                ParamKind::VarArgs => "param *",
                ParamKind::KeywordOnly => "keyword-only param ",
            };
            self.line(d + 1, &format!("{kind}{} {}", param.name.name, at(param.span)));
            if let Some(annotation) = &param.annotation {
                self.expr(d + 2, "annotation", annotation);
            }
            if let Some(default) = &param.default {
                self.expr(d + 2, "default", default);
            }
        }
        self.block(d, "body", &f.body);
    }

    fn block(&mut self, depth: usize, header: &str, stmts: &[Stmt]) {
        self.line(depth, header);
        for stmt in stmts {
            self.stmt(depth + 1, stmt);
        }
    }

    fn stmt(&mut self, depth: usize, stmt: &Stmt) {
        let span = at(stmt.span);
        let d = depth + 1;
        match &stmt.kind {
            StmtKind::Expr(e) => {
                self.line(depth, &format!("Expr {span}"));
                self.expr(d, "value", e);
            }
            StmtKind::Assign { targets, value } => {
                self.line(depth, &format!("Assign {span}"));
                for target in targets {
                    self.expr(d, "target", target);
                }
                self.expr(d, "value", value);
            }
            StmtKind::AugAssign { target, op, value } => {
                self.line(depth, &format!("AugAssign {}= {span}", op.symbol()));
                self.expr(d, "target", target);
                self.expr(d, "value", value);
            }
            StmtKind::AnnAssign { target, annotation, value } => {
                self.line(depth, &format!("AnnAssign {span}"));
                self.expr(d, "target", target);
                self.expr(d, "annotation", annotation);
                if let Some(value) = value {
                    self.expr(d, "value", value);
                }
            }
            StmtKind::If { test, body, orelse } => {
                self.line(depth, &format!("If {span}"));
                self.expr(d, "test", test);
                self.block(d, "body", body);
                if !orelse.is_empty() {
                    self.block(d, "orelse", orelse);
                }
            }
            StmtKind::For { target, iter, body, orelse } => {
                self.line(depth, &format!("For {span}"));
                self.expr(d, "target", target);
                self.expr(d, "iter", iter);
                self.block(d, "body", body);
                if !orelse.is_empty() {
                    self.block(d, "orelse", orelse);
                }
            }
            StmtKind::While { test, body, orelse } => {
                self.line(depth, &format!("While {span}"));
                self.expr(d, "test", test);
                self.block(d, "body", body);
                if !orelse.is_empty() {
                    self.block(d, "orelse", orelse);
                }
            }
            StmtKind::Return(value) => {
                self.line(depth, &format!("Return {span}"));
                if let Some(value) = value {
                    self.expr(d, "value", value);
                }
            }
            StmtKind::Pass => self.line(depth, &format!("Pass {span}")),
            StmtKind::Break => self.line(depth, &format!("Break {span}")),
            StmtKind::Continue => self.line(depth, &format!("Continue {span}")),
            StmtKind::Assert { test, msg } => {
                self.line(depth, &format!("Assert {span}"));
                self.expr(d, "test", test);
                if let Some(msg) = msg {
                    self.expr(d, "msg", msg);
                }
            }
            StmtKind::Unsupported { what } => self.line(depth, &format!("Unsupported {what:?} {span}")),
        }
    }

    fn keyword(&mut self, depth: usize, kw: &Keyword) {
        let role = match &kw.name {
            Some(name) => format!("keyword {}", name.name),
            None => "keyword **".to_string(),
        };
        self.expr(depth, &role, &kw.value);
    }

    fn expr(&mut self, depth: usize, role: &str, e: &Expr) {
        let span = at(e.span);
        let d = depth + 1;
        match &e.kind {
            ExprKind::Name(n) => self.line(depth, &format!("{role} Name {n} {span}")),
            ExprKind::Int(v) => self.line(depth, &format!("{role} Int {v} {span}")),
            ExprKind::Float(v) => self.line(depth, &format!("{role} Float {v:?} {span}")),
            ExprKind::Str(s) => self.line(depth, &format!("{role} Str {s:?} {span}")),
            ExprKind::Bool(b) => self.line(depth, &format!("{role} Bool {} {span}", if *b { "True" } else { "False" })),
            ExprKind::None => self.line(depth, &format!("{role} None {span}")),
            ExprKind::Ellipsis => self.line(depth, &format!("{role} Ellipsis {span}")),
            ExprKind::Attribute { value, attr } => {
                self.line(depth, &format!("{role} Attribute .{} {span}", attr.name));
                self.expr(d, "value", value);
            }
            ExprKind::Call { func, args, keywords } => {
                self.line(depth, &format!("{role} Call {span}"));
                self.expr(d, "func", func);
                for arg in args {
                    self.expr(d, "arg", arg);
                }
                for kw in keywords {
                    self.keyword(d, kw);
                }
            }
            ExprKind::Subscript { value, index } => {
                self.line(depth, &format!("{role} Subscript {span}"));
                self.expr(d, "value", value);
                for i in index {
                    self.expr(d, "index", i);
                }
            }
            ExprKind::Slice { lower, upper, step } => {
                self.line(depth, &format!("{role} Slice {span}"));
                for (name, part) in [("lower", lower), ("upper", upper), ("step", step)] {
                    if let Some(part) = part {
                        self.expr(d, name, part);
                    }
                }
            }
            ExprKind::BinOp { op, lhs, rhs } => {
                self.line(depth, &format!("{role} BinOp {} {span}", op.symbol()));
                self.expr(d, "lhs", lhs);
                self.expr(d, "rhs", rhs);
            }
            ExprKind::UnaryOp { op, operand } => {
                let symbol = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Pos => "+",
                    UnaryOp::Invert => "~",
                    UnaryOp::Not => "not",
                };
                self.line(depth, &format!("{role} UnaryOp {symbol} {span}"));
                self.expr(d, "operand", operand);
            }
            ExprKind::BoolOp { op, values } => {
                let word = match op {
                    BoolOp::And => "and",
                    BoolOp::Or => "or",
                };
                self.line(depth, &format!("{role} BoolOp {word} {span}"));
                for v in values {
                    self.expr(d, "value", v);
                }
            }
            ExprKind::Compare { left, ops, comparators } => {
                let ops: Vec<&str> = ops.iter().map(|op| op.symbol()).collect();
                self.line(depth, &format!("{role} Compare [{}] {span}", ops.join(", ")));
                self.expr(d, "left", left);
                for c in comparators {
                    self.expr(d, "right", c);
                }
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.line(depth, &format!("{role} IfExp {span}"));
                self.expr(d, "test", test);
                self.expr(d, "body", body);
                self.expr(d, "orelse", orelse);
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let kind = if matches!(e.kind, ExprKind::Tuple(_)) { "Tuple" } else { "List" };
                self.line(depth, &format!("{role} {kind} {span}"));
                for item in items {
                    self.expr(d, "item", item);
                }
            }
            ExprKind::Dict(entries) => {
                self.line(depth, &format!("{role} Dict {span}"));
                for (k, v) in entries {
                    self.expr(d, "key", k);
                    self.expr(d, "value", v);
                }
            }
            ExprKind::Lambda { params, body } => {
                let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
                self.line(depth, &format!("{role} Lambda ({}) {span}", names.join(", ")));
                self.expr(d, "body", body);
            }
            ExprKind::Starred(inner) => {
                self.line(depth, &format!("{role} Starred {span}"));
                self.expr(d, "value", inner);
            }
            ExprKind::Unsupported { what } => self.line(depth, &format!("{role} Unsupported {what:?} {span}")),
        }
    }
}
