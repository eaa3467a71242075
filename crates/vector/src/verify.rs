//! The Vector IR verifier: types, scopes, explicit and in-bounds memory accesses, well-formed
//! loop nests, and the ordering rules [`crate::vir`] states for nests.
//!
//! Every diagnostic names the offending statement by its first printed line (see
//! [`crate::print::statement_text`]) and carries the statement's span when it has one.
//! Codes: `tilec_diagnostics::codes::vector`, E0521–E0530.

use std::collections::HashMap;

use tilec_diagnostics::codes::vector as codes;
use tilec_diagnostics::{Code, Diagnostic, Span};
use tilec_ir::verify::{cast_is_legal, constant_fits};

use crate::print::{elem_name, statement_text};
use crate::vir::*;
use cranelift_entity::EntityRef;

/// Checks every invariant documented in [`crate::vir`]; returns all violations found.
pub fn verify(f: &Function) -> Result<(), Vec<Diagnostic>> {
    let mut v = Verifier {
        f,
        errors: Vec::new(),
        sites: HashMap::new(),
        index_of: HashMap::new(),
        assigned: vec![false; f.vars.len()],
        nest: None,
        in_combine: false,
        nests: 0,
    };
    v.collect_sites(&f.body, None);
    v.nests = 0;
    v.check_header();
    v.block(&f.body);
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

/// Where a variable is assigned: outside nests, or in the nest with this number (nests are
/// numbered in program order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Site {
    Skeleton,
    Nest(u32),
}

/// A scratch access of the nest being checked, in program order.
struct Access {
    buf: Buf,
    index: Affine,
    kind: AccessKind,
    /// The statement's text and span, for messages.
    text: String,
    span: Option<Span>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum AccessKind {
    Load,
    Store,
    Accumulate,
}

/// The nest whose body is being checked.
struct NestScope {
    number: u32,
    shape: Vec<u32>,
    indices: Vec<Var>,
    accesses: Vec<Access>,
    /// The first global store or atomic of the body, by text.
    global_write: Option<String>,
}

struct Verifier<'f> {
    f: &'f Function,
    errors: Vec<Diagnostic>,
    /// Every place each variable is assigned.
    sites: HashMap<Var, Vec<Site>>,
    /// The nest number whose index each index variable is.
    index_of: HashMap<Var, u32>,
    /// Definitely assigned variables at the current point.
    assigned: Vec<bool>,
    nest: Option<NestScope>,
    /// Checking the body of an `accumulate.with`.
    in_combine: bool,
    /// Nests entered so far (the same numbering as [`Verifier::collect_sites`]).
    nests: u32,
}

impl<'f> Verifier<'f> {
    fn indices(&self) -> &[Var] {
        self.nest.as_ref().map_or(&[], |n| &n.indices)
    }

    fn text(&self, stmt: &Stmt) -> String {
        statement_text(self.f, stmt, self.indices())
    }

    fn error(&mut self, stmt: &Stmt, code: Code, message: impl AsRef<str>) {
        let text = self.text(stmt);
        self.report(&text, stmt_span(stmt), code, message.as_ref());
    }

    fn report(&mut self, text: &str, span: Option<Span>, code: Code, message: &str) {
        let mut d = Diagnostic::error(code, format!("`{text}`: {message}"));
        if let Some(span) = span {
            d = d.with_span(span);
        }
        self.errors.push(d);
    }

    fn ty(&self, v: Var) -> Option<Elem> {
        self.f.vars.get(v).map(|d| d.ty)
    }

    fn type_name(&self, v: Var) -> String {
        self.ty(v).map_or_else(|| "<?>".to_string(), elem_name)
    }

    // ----- assignment sites ----------------------------------------------------------

    /// Records where every variable is assigned and which variables are nest indices;
    /// `nest` is the number of the enclosing nest.
    fn collect_sites(&mut self, block: &Block, nest: Option<u32>) {
        let site = nest.map_or(Site::Skeleton, Site::Nest);
        for stmt in block {
            match stmt {
                Stmt::Assign { dst, .. } => self.sites.entry(*dst).or_default().push(site),
                Stmt::AccumulateWith { acc, body, .. } => {
                    self.sites.entry(*acc).or_default().push(site);
                    self.collect_sites(body, nest);
                }
                Stmt::Nest(n) => {
                    let number = self.nests;
                    self.nests += 1;
                    for &i in &n.indices {
                        self.index_of.insert(i, number);
                    }
                    self.collect_sites(&n.body, Some(number));
                }
                Stmt::For { iv, body, .. } => {
                    self.sites.entry(*iv).or_default().push(site);
                    self.collect_sites(body, nest);
                }
                Stmt::If { then_block, else_block, .. } => {
                    self.collect_sites(then_block, nest);
                    self.collect_sites(else_block, nest);
                }
                Stmt::While { before, after, .. } => {
                    self.collect_sites(before, nest);
                    self.collect_sites(after, nest);
                }
                Stmt::Store { .. }
                | Stmt::StoreScratch { .. }
                | Stmt::Accumulate { .. }
                | Stmt::AccumulateArg { .. }
                | Stmt::Assert { .. }
                | Stmt::Dot(_) => {}
            }
        }
    }

    fn check_header(&mut self) {
        let text = format!("kernel {}", self.f.name);
        let mut seen = Vec::new();
        for p in &self.f.params {
            if self.ty(p.var).is_none() {
                self.report(
                    &text,
                    None,
                    codes::HEADER,
                    &format!("parameter `{}` is {}, not a variable", p.name, p.var),
                );
                continue;
            }
            if seen.contains(&p.var) {
                let message = format!("parameter `{}` is {}, which is already a parameter", p.name, p.var);
                self.report(&text, None, codes::HEADER, &message);
            }
            seen.push(p.var);
            self.assigned[p.var.index()] = true;
        }
    }

    /// Checks that `stmt` may assign `v` here, then marks it assigned.
    fn assign(&mut self, stmt: &Stmt, v: Var) {
        if self.ty(v).is_none() {
            self.error(stmt, codes::NOT_ASSIGNED, format!("{v} is not a variable of this function"));
            return;
        }
        if let Some(&number) = self.index_of.get(&v) {
            let whose = if self.nest.as_ref().is_some_and(|n| n.number == number) { "this" } else { "a" };
            self.error(stmt, codes::BAD_ASSIGNMENT, format!("{v} is the index of {whose} nest, which is read-only"));
        } else if let Some(scope) = &self.nest {
            let number = scope.number;
            let sites = self.sites.get(&v).map_or(&[][..], Vec::as_slice);
            if sites.iter().any(|&s| s != Site::Nest(number)) {
                let message =
                    format!("{v} is assigned in this nest and outside it (a nest's variables are its own temporaries)");
                self.error(stmt, codes::BAD_ASSIGNMENT, message);
            } else if sites.len() > 1 && self.assigned[v.index()] {
                self.error(stmt, codes::BAD_ASSIGNMENT, format!("{v} is assigned twice in one nest"));
            }
        }
        self.assigned[v.index()] = true;
    }

    /// Checks that `v` is a variable assigned on every path to this read.
    fn read(&mut self, stmt: &Stmt, v: Var) -> bool {
        if self.ty(v).is_none() {
            self.error(stmt, codes::NOT_ASSIGNED, format!("{v} is not a variable of this function"));
            return false;
        }
        if self.assigned[v.index()] {
            return true;
        }
        let current = self.nest.as_ref().map(|n| n.number);
        let sites = self.sites.get(&v).map_or(&[][..], Vec::as_slice);
        let message = if let Some(&number) = self.index_of.get(&v).filter(|&&n| Some(n) != current) {
            format!("{v} is the index of another nest (nest {number})")
        } else if !sites.is_empty() && sites.iter().all(|s| matches!(s, Site::Nest(n) if Some(*n) != current)) {
            format!("{v} is a temporary of another nest (values leave a nest only through memory)")
        } else if sites.is_empty() {
            format!("{v} is read but never assigned")
        } else {
            format!("{v} is read where it is not assigned on every path")
        };
        self.error(stmt, codes::NOT_ASSIGNED, message);
        false
    }

    fn read_all(&mut self, stmt: &Stmt, vars: &[Var]) -> bool {
        let mut ok = true;
        for &v in vars {
            ok &= self.read(stmt, v);
        }
        ok
    }

    fn buf(&mut self, stmt: &Stmt, b: Buf) -> Option<&'f BufData> {
        let data = self.f.bufs.get(b);
        if data.is_none() {
            self.error(stmt, codes::NOT_ASSIGNED, format!("{b} is not a scratch buffer of this function"));
        }
        data
    }

    // ----- statements ----------------------------------------------------------------

    fn block(&mut self, block: &Block) {
        for stmt in block {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        let in_nest = self.nest.is_some();
        let element = matches!(
            stmt,
            Stmt::Assign { .. }
                | Stmt::Store { .. }
                | Stmt::StoreScratch { .. }
                | Stmt::Accumulate { .. }
                | Stmt::AccumulateArg { .. }
                | Stmt::AccumulateWith { .. }
                | Stmt::Assert { .. }
        );
        if in_nest && !element {
            self.error(stmt, codes::PLACEMENT, "a nest body holds only element statements");
            return;
        }
        if self.in_combine && !matches!(stmt, Stmt::Assign { .. }) {
            self.error(stmt, codes::PLACEMENT, "a combine body holds only assignments");
            return;
        }
        let accumulation =
            matches!(stmt, Stmt::Accumulate { .. } | Stmt::AccumulateArg { .. } | Stmt::AccumulateWith { .. });
        if !in_nest && accumulation {
            self.error(stmt, codes::PLACEMENT, "an accumulation outside a nest");
            return;
        }
        match stmt {
            Stmt::Assign { dst, expr, .. } => {
                self.expr(stmt, *dst, expr);
                self.assign(stmt, *dst);
            }
            Stmt::Store { ptr, value, mask, .. } => {
                let ok = self.read_all(stmt, &[*ptr, *value]) & self.read_mask(stmt, *mask);
                if ok {
                    self.pointee_is(stmt, *ptr, &[("the stored value", *value)]);
                }
                self.global_write(stmt);
            }
            Stmt::StoreScratch { buf, index, value } => {
                if self.read(stmt, *value) {
                    if let Some(data) = self.buf(stmt, *buf) {
                        self.same_type(stmt, "the stored value", *value, data.elem, &format!("the element of {buf}"));
                    }
                }
                self.access(stmt, *buf, index, AccessKind::Store);
            }
            Stmt::Accumulate { buf, index, op, value } => {
                if self.read(stmt, *value) {
                    if let Some(data) = self.buf(stmt, *buf) {
                        if self.same_type(stmt, "the value", *value, data.elem, &format!("the element of {buf}")) {
                            let int_only = matches!(op, AccOp::Xor | AccOp::And | AccOp::Or);
                            self.require_scalar(stmt, "the value", *value, |s| !int_only || s.is_int());
                        }
                    }
                }
                self.access(stmt, *buf, index, AccessKind::Accumulate);
            }
            Stmt::AccumulateArg { vals, idxs, index, value, position, .. } => {
                if self.read_all(stmt, &[*value, *position]) {
                    if let Some(data) = self.buf(stmt, *vals) {
                        if self.same_type(stmt, "the value", *value, data.elem, &format!("the element of {vals}")) {
                            self.require_scalar(stmt, "the value", *value, |_| true);
                        }
                    }
                    self.require_type(stmt, "the position", *position, Elem::Scalar(ScalarType::I32));
                }
                if let Some(data) = self.buf(stmt, *idxs) {
                    if data.elem != Elem::Scalar(ScalarType::I32) {
                        let message =
                            format!("the positions buffer {idxs} must hold i32, not {}", elem_name(data.elem));
                        self.error(stmt, codes::TYPE, message);
                    }
                }
                self.access(stmt, *vals, index, AccessKind::Accumulate);
                self.access(stmt, *idxs, index, AccessKind::Accumulate);
            }
            Stmt::AccumulateWith { buf, index, value, position, acc, body, result } => {
                if self.read_all(stmt, &[*value, *position]) {
                    self.require_type(stmt, "the position", *position, Elem::Scalar(ScalarType::I32));
                    if let Some(data) = self.buf(stmt, *buf) {
                        let what = format!("the element of {buf}");
                        self.same_type(stmt, "the value", *value, data.elem, &what);
                        self.same_type(stmt, "the accumulator", *acc, data.elem, &what);
                        self.same_type(stmt, "the result", *result, data.elem, &what);
                    }
                }
                self.access(stmt, *buf, index, AccessKind::Accumulate);
                let saved = self.assigned.clone();
                self.assign(stmt, *acc);
                self.in_combine = true;
                self.block(body);
                self.in_combine = false;
                self.read(stmt, *result);
                self.assigned = saved;
            }
            Stmt::Assert { cond, .. } => {
                if self.read(stmt, *cond) {
                    self.require_type(stmt, "the condition", *cond, BOOL);
                }
            }
            Stmt::Nest(nest) => self.nest(stmt, nest),
            Stmt::Dot(dot) => self.dot(stmt, dot),
            Stmt::For { iv, lower, upper, step, body } => {
                if self.read_all(stmt, &[*lower, *upper, *step]) {
                    let bounds_ok =
                        self.require_scalar(stmt, "the induction variable", *iv, |s| s.is_int() && !s.is_bool());
                    if bounds_ok {
                        let iv_ty = self.ty(*iv).unwrap_or(BOOL);
                        for (what, v) in [("the lower bound", *lower), ("the upper bound", *upper), ("the step", *step)]
                        {
                            self.same_type(stmt, what, v, iv_ty, "the induction variable");
                        }
                    }
                }
                // The body may run zero times: what it assigns is not assigned after the loop.
                let saved = self.assigned.clone();
                self.assign(stmt, *iv);
                self.block(body);
                self.assigned = saved;
            }
            Stmt::If { cond, then_block, else_block } => {
                if self.read(stmt, *cond) {
                    self.require_type(stmt, "the condition", *cond, BOOL);
                }
                let saved = self.assigned.clone();
                self.block(then_block);
                let after_then = std::mem::replace(&mut self.assigned, saved);
                self.block(else_block);
                for (a, t) in self.assigned.iter_mut().zip(after_then) {
                    *a &= t;
                }
            }
            Stmt::While { before, cond, after } => {
                // `before` runs at least once; `after` may not run at all.
                self.block(before);
                if self.read(stmt, *cond) {
                    self.require_type(stmt, "the condition", *cond, BOOL);
                }
                let saved = self.assigned.clone();
                self.block(after);
                self.assigned = saved;
            }
        }
    }

    fn read_mask(&mut self, stmt: &Stmt, mask: Option<Var>) -> bool {
        let Some(m) = mask else { return true };
        self.read(stmt, m) && self.require_type(stmt, "the mask", m, BOOL)
    }

    fn global_write(&mut self, stmt: &Stmt) {
        let text = self.text(stmt);
        if let Some(scope) = &mut self.nest {
            scope.global_write.get_or_insert(text);
        }
    }

    // ----- types ---------------------------------------------------------------------

    /// `v` has type `want` (reported as `what` must be ...).
    fn require_type(&mut self, stmt: &Stmt, what: &str, v: Var, want: Elem) -> bool {
        let ok = self.ty(v) == Some(want);
        if !ok {
            let message = format!("{what} {v} must be {}, found {}", elem_name(want), self.type_name(v));
            self.error(stmt, codes::TYPE, message);
        }
        ok
    }

    /// `v`'s type equals `want`, which is the type of `whose`.
    fn same_type(&mut self, stmt: &Stmt, what: &str, v: Var, want: Elem, whose: &str) -> bool {
        let ok = self.ty(v) == Some(want);
        if !ok {
            let message = format!("{what} {v} has type {}, but {whose} is {}", self.type_name(v), elem_name(want));
            self.error(stmt, codes::TYPE, message);
        }
        ok
    }

    /// `v` is a scalar (not a pointer) satisfying `ok`.
    fn require_scalar(&mut self, stmt: &Stmt, what: &str, v: Var, ok: impl Fn(ScalarType) -> bool) -> bool {
        let fine = self.ty(v).and_then(Elem::scalar).is_some_and(ok);
        if !fine {
            let message = format!("{what} {v} cannot have type {}", self.type_name(v));
            self.error(stmt, codes::TYPE, message);
        }
        fine
    }

    /// `ptr` is a pointer and each of `values` has its pointee type.
    fn pointee_is(&mut self, stmt: &Stmt, ptr: Var, values: &[(&str, Var)]) -> bool {
        let Some(Elem::Ptr(pointee)) = self.ty(ptr) else {
            let message = format!("the address {ptr} must be a pointer, found {}", self.type_name(ptr));
            self.error(stmt, codes::TYPE, message);
            return false;
        };
        let whose = format!("the pointee of {ptr}");
        values.iter().fold(true, |ok, &(what, v)| self.same_type(stmt, what, v, Elem::Scalar(pointee), &whose) && ok)
    }

    /// Checks `expr`'s operands are assigned and typed for a result of `dst`'s type.
    fn expr(&mut self, stmt: &Stmt, dst: Var, expr: &Expr) {
        if self.in_combine
            && matches!(
                expr,
                Expr::Load { .. } | Expr::LoadScratch { .. } | Expr::AtomicRmw { .. } | Expr::AtomicCas { .. }
            )
        {
            self.error(
                stmt,
                codes::PLACEMENT,
                "a combine body does not access memory (it also runs for the first element)",
            );
            return;
        }
        let Some(dst_ty) = self.ty(dst) else { return };
        let operands = expr.operands();
        if !self.read_all(stmt, &operands) {
            return;
        }
        let result = "the result";
        match expr {
            Expr::Const(c) => {
                if !constant_fits(*c, dst_ty) {
                    self.error(stmt, codes::CONSTANT, format!("the constant does not fit type {}", elem_name(dst_ty)));
                }
            }
            Expr::ProgramId(_) | Expr::NumPrograms(_) => {
                self.require_type(stmt, result, dst, Elem::Scalar(ScalarType::I32));
            }
            Expr::Copy(v) => {
                self.same_type(stmt, result, dst, self.ty(*v).unwrap_or(dst_ty), &format!("the type of {v}"));
            }
            Expr::Index(index) => {
                self.require_scalar(stmt, result, dst, |s| s.is_int() && !s.is_bool());
                self.position(stmt, None, index);
            }
            Expr::Binary(op, a, b) => {
                let a_ty = self.ty(*a).unwrap_or(dst_ty);
                if self.same_type(stmt, "the right operand", *b, a_ty, &format!("the left operand {a}")) {
                    let ok: fn(ScalarType) -> bool = match op {
                        BinaryOp::And
                        | BinaryOp::Or
                        | BinaryOp::Xor
                        | BinaryOp::Shl
                        | BinaryOp::Shr
                        | BinaryOp::MulHi => ScalarType::is_int,
                        BinaryOp::Pow | BinaryOp::Atan2 => ScalarType::is_float,
                        _ => |_| true,
                    };
                    if self.require_scalar(stmt, "the operand", *a, ok) {
                        self.same_type(stmt, result, dst, a_ty, "the operands' type");
                    }
                }
            }
            Expr::Unary(op, a) => {
                let ok: fn(ScalarType) -> bool = if *op == UnaryOp::Not { ScalarType::is_int } else { |_| true };
                if self.require_scalar(stmt, "the operand", *a, ok) {
                    self.same_type(stmt, result, dst, self.ty(*a).unwrap_or(dst_ty), "the operand's type");
                }
            }
            Expr::Math(_, a) => {
                if self.require_scalar(stmt, "the operand", *a, ScalarType::is_float) {
                    self.same_type(stmt, result, dst, self.ty(*a).unwrap_or(dst_ty), "the operand's type");
                }
            }
            Expr::Fma(a, b, c) => {
                if self.require_scalar(stmt, "the operand", *a, ScalarType::is_float) {
                    let a_ty = self.ty(*a).unwrap_or(dst_ty);
                    let whose = format!("the first operand {a}");
                    let ok = self.same_type(stmt, "the operand", *b, a_ty, &whose)
                        & self.same_type(stmt, "the operand", *c, a_ty, &whose);
                    if ok {
                        self.same_type(stmt, result, dst, a_ty, "the operands' type");
                    }
                }
            }
            Expr::Cmp(_, a, b) => {
                let a_ty = self.ty(*a).unwrap_or(dst_ty);
                self.same_type(stmt, "the right operand", *b, a_ty, &format!("the left operand {a}"));
                self.require_type(stmt, result, dst, BOOL);
            }
            Expr::Select { cond, on_true, on_false } => {
                self.require_type(stmt, "the condition", *cond, BOOL);
                let t = self.ty(*on_true).unwrap_or(dst_ty);
                if self.same_type(stmt, "the false value", *on_false, t, &format!("the true value {on_true}")) {
                    self.same_type(stmt, result, dst, t, "the selected values' type");
                }
            }
            Expr::Cast(op, a) => {
                let src = self.ty(*a).unwrap_or(dst_ty);
                if !cast_is_legal(*op, src, dst_ty) {
                    let message = format!("cannot convert {} to {} with this cast", elem_name(src), elem_name(dst_ty));
                    self.error(stmt, codes::TYPE, message);
                }
            }
            Expr::AddPtr { ptr, offset } => {
                if self.pointee_is(stmt, *ptr, &[]) {
                    self.require_scalar(stmt, "the offset", *offset, |s| s.is_int() && !s.is_bool());
                    self.same_type(stmt, result, dst, self.ty(*ptr).unwrap_or(dst_ty), "the pointer's type");
                }
            }
            Expr::LoadScratch { buf, index } => {
                if let Some(data) = self.buf(stmt, *buf) {
                    self.same_type(stmt, result, dst, data.elem, &format!("the element of {buf}"));
                }
                self.access(stmt, *buf, index, AccessKind::Load);
            }
            Expr::Load { ptr, mask, other } => {
                let mut values = vec![(result, dst)];
                values.extend(other.map(|o| ("`other`", o)));
                self.pointee_is(stmt, *ptr, &values);
                if let Some(m) = mask {
                    self.require_type(stmt, "the mask", *m, BOOL);
                }
                if let Some(scope) = &self.nest {
                    if let Some(write) = &scope.global_write {
                        let message = format!("a global load after `{write}` in the same nest");
                        self.error(stmt, codes::DEPENDENCE, message);
                    }
                }
            }
            Expr::AtomicRmw { op, ptr, value, mask, .. } => {
                if self.pointee_is(stmt, *ptr, &[("the value", *value), (result, dst)]) {
                    let int_only = matches!(op, AtomicOp::And | AtomicOp::Or | AtomicOp::Xor);
                    self.require_scalar(stmt, "the value", *value, |s| !int_only || s.is_int());
                }
                if let Some(m) = mask {
                    self.require_type(stmt, "the mask", *m, BOOL);
                }
                self.global_write(stmt);
            }
            Expr::AtomicCas { ptr, cmp, value, .. } => {
                self.pointee_is(stmt, *ptr, &[("the compared value", *cmp), ("the new value", *value), (result, dst)]);
                self.global_write(stmt);
            }
        }
    }

    // ----- positions and scratch accesses --------------------------------------------

    /// Checks `index` has one stride per index of the enclosing nest (none outside nests)
    /// and, with `buf`, stays inside the buffer on every iteration.
    fn position(&mut self, stmt: &Stmt, buf: Option<(Buf, u64)>, index: &Affine) -> bool {
        let shape = self.nest.as_ref().map_or(&[][..], |n| &n.shape[..]).to_vec();
        if index.strides.len() != shape.len() {
            let message = if shape.is_empty() {
                format!("a position outside a nest must be a constant, found {} strides", index.strides.len())
            } else {
                format!("the position has {} strides, but the nest has {} dims", index.strides.len(), shape.len())
            };
            self.error(stmt, codes::POSITION, message);
            return false;
        }
        let Some((buf, len)) = buf else { return true };
        let (lowest, highest) = extent(index, &shape);
        if lowest < 0 || highest >= len as i128 {
            let message = format!("the position reaches elements {lowest} to {highest} of {buf}, which has {len}");
            self.error(stmt, codes::POSITION, message);
            return false;
        }
        true
    }

    fn access(&mut self, stmt: &Stmt, buf: Buf, index: &Affine, kind: AccessKind) {
        let Some(data) = self.buf(stmt, buf) else { return };
        if !self.position(stmt, Some((buf, data.len)), index) {
            return;
        }
        let text = self.text(stmt);
        if let Some(scope) = &mut self.nest {
            scope.accesses.push(Access { buf, index: index.clone(), kind, text, span: stmt_span(stmt) });
        }
    }

    // ----- nests ---------------------------------------------------------------------

    fn nest(&mut self, stmt: &Stmt, nest: &Nest) {
        let number = self.nests;
        self.nests += 1;
        if nest.shape.is_empty() || nest.shape.contains(&0) {
            self.error(stmt, codes::NEST, "a nest needs at least one dim, and no dim of size 0");
        }
        if nest.indices.len() != nest.shape.len() {
            let message = format!("{} index variables for {} dims", nest.indices.len(), nest.shape.len());
            self.error(stmt, codes::NEST, message);
            return;
        }
        for (k, &i) in nest.indices.iter().enumerate() {
            if self.ty(i) != Some(Elem::Scalar(ScalarType::I64)) {
                self.error(
                    stmt,
                    codes::NEST,
                    format!("index {i} must be an i64 variable, found {}", self.type_name(i)),
                );
                return;
            }
            if nest.indices[..k].contains(&i) {
                self.error(stmt, codes::NEST, format!("index {i} is listed twice"));
                return;
            }
        }
        let saved = self.assigned.clone();
        for &i in &nest.indices {
            self.assigned[i.index()] = true;
        }
        self.nest = Some(NestScope {
            number,
            shape: nest.shape.clone(),
            indices: nest.indices.clone(),
            accesses: Vec::new(),
            global_write: None,
        });
        self.block(&nest.body);
        let scope = self.nest.take().expect("the nest scope set above");
        self.assigned = saved;
        self.check_dependences(&scope);
    }

    /// Scratch accesses of one nest: accumulators are read back only at their own position
    /// after the update; a buffer the nest stores to is read only by an in-place update;
    /// every store writes each element from one iteration at most.
    fn check_dependences(&mut self, scope: &NestScope) {
        let identity = Affine::row_major(&scope.shape);
        for (k, a) in scope.accesses.iter().enumerate() {
            if a.kind == AccessKind::Store && !one_to_one(&a.index, &scope.shape) {
                let message = "the position is the same for several iterations, which race on the stored element";
                self.report(&a.text, a.span, codes::DEPENDENCE, message);
            }
            for (j, b) in scope.accesses.iter().enumerate() {
                if j == k || b.buf != a.buf {
                    continue;
                }
                let problem = match (a.kind, b.kind) {
                    (AccessKind::Accumulate, AccessKind::Store) => Some("is also stored to in this nest"),
                    (AccessKind::Accumulate, AccessKind::Load) if b.index != a.index => {
                        Some("is read at another position in this nest")
                    }
                    (AccessKind::Accumulate, AccessKind::Load) if j < k => Some("is read before it is updated"),
                    (AccessKind::Accumulate, AccessKind::Accumulate) if j > k && b.index != a.index => {
                        Some("is updated at two positions in this nest")
                    }
                    (AccessKind::Store, AccessKind::Store) if j > k => Some("is stored to twice in this nest"),
                    (AccessKind::Store, AccessKind::Load) if a.index != identity || b.index != identity => {
                        Some("is read in the nest that stores it, other than by an in-place update at the nest's own position")
                    }
                    (AccessKind::Store, AccessKind::Load) if j > k => Some("is read after the in-place update stored it"),
                    _ => None,
                };
                if let Some(problem) = problem {
                    let message = format!("{} {problem} (`{}`)", a.buf, b.text);
                    self.report(&a.text, a.span, codes::DEPENDENCE, &message);
                }
            }
        }
    }

    // ----- dot -----------------------------------------------------------------------

    fn dot(&mut self, stmt: &Stmt, dot: &Dot) {
        let Dot { a, b, c, batch, m, n, k, k_limit } = dot;
        if [*batch, *m, *n, *k].contains(&0) {
            self.error(stmt, codes::DOT, "batch, m, n and k must be at least 1");
            return;
        }
        let (batch, m, n, k) = (*batch as u64, *m as u64, *n as u64, *k as u64);
        let Some(c_data) = self.buf(stmt, *c) else { return };
        let Elem::Scalar(c_elem) = c_data.elem else {
            self.error(stmt, codes::DOT, format!("the accumulator {c} holds pointers"));
            return;
        };
        if c_data.len < batch * m * n {
            let message = format!("the accumulator {c} has {} elements, fewer than {}", c_data.len, batch * m * n);
            self.error(stmt, codes::DOT, message);
        }
        let mut elems = Vec::new();
        for (name, operand, rows, cols) in [("a", a, m, k), ("b", b, k, n)] {
            let operand_buf = match operand {
                DotOperand::Scratch(buf) => *buf,
                DotOperand::Global(g) => g.ptrs,
            };
            if operand_buf == *c {
                self.error(stmt, codes::DOT, format!("the accumulator {c} is also operand {name}'s buffer"));
            }
            let elem = match operand {
                DotOperand::Scratch(buf) => {
                    let Some(data) = self.buf(stmt, *buf) else { return };
                    if data.len < batch * rows * cols {
                        let message = format!(
                            "operand {name} ({buf}) has {} elements, fewer than {}",
                            data.len,
                            batch * rows * cols
                        );
                        self.error(stmt, codes::DOT, message);
                    }
                    data.elem
                }
                DotOperand::Global(g) => {
                    if batch != 1 {
                        self.error(
                            stmt,
                            codes::DOT,
                            format!("operand {name} is read from global memory in a batched dot"),
                        );
                    }
                    if let Some(offset) = g.offset {
                        if self.read(stmt, offset) {
                            self.require_scalar(stmt, "the offset", offset, |s| s.is_int() && !s.is_bool());
                        }
                    }
                    let Some(data) = self.buf(stmt, g.ptrs) else { return };
                    let shape = [rows as u32, cols as u32];
                    let (lowest, highest) = extent(&g.index, &shape);
                    if g.index.strides.len() != 2 {
                        let message = format!(
                            "operand {name}'s pointer position needs 2 strides, found {}",
                            g.index.strides.len()
                        );
                        self.error(stmt, codes::POSITION, message);
                    } else if lowest < 0 || highest >= data.len as i128 {
                        let message = format!(
                            "operand {name}'s pointers reach elements {lowest} to {highest} of {}, which has {}",
                            g.ptrs, data.len
                        );
                        self.error(stmt, codes::POSITION, message);
                    }
                    match data.elem {
                        Elem::Ptr(s) => Elem::Scalar(s),
                        other => {
                            let message =
                                format!("operand {name}'s pointer tile {} holds {}", g.ptrs, elem_name(other));
                            self.error(stmt, codes::DOT, message);
                            return;
                        }
                    }
                }
            };
            elems.push(elem);
        }
        let kinds_ok = match (elems[0], elems[1]) {
            (Elem::Scalar(x), Elem::Scalar(y)) => x == y && !x.is_bool() && x.is_float() == c_elem.is_float(),
            _ => false,
        };
        if !kinds_ok {
            let message = format!(
                "operands of {} and {} into {}: the operands need one element type, of the accumulator's kind",
                elem_name(elems[0]),
                elem_name(elems[1]),
                elem_name(c_data.elem)
            );
            self.error(stmt, codes::DOT, message);
        }
        if let Some(limit) = k_limit {
            if !matches!((a, b), (DotOperand::Global(_), DotOperand::Global(_))) {
                self.error(stmt, codes::DOT, "a k limit needs both operands read from global memory");
            }
            if self.read(stmt, *limit) {
                self.require_scalar(stmt, "the k limit", *limit, |s| s.is_int() && !s.is_bool());
            }
        }
    }
}

const BOOL: Elem = Elem::Scalar(ScalarType::I1);

fn stmt_span(stmt: &Stmt) -> Option<Span> {
    match stmt {
        Stmt::Assign { span, .. } | Stmt::Store { span, .. } | Stmt::Assert { span, .. } => Some(*span),
        _ => None,
    }
}

/// The lowest and highest element `index` reaches over the iteration space `shape` (strides
/// beyond `shape` are ignored).
fn extent(index: &Affine, shape: &[u32]) -> (i128, i128) {
    let mut range = (index.offset as i128, index.offset as i128);
    for (&s, &d) in index.strides.iter().zip(shape) {
        let reach = s as i128 * (d as i128 - 1).max(0);
        if reach < 0 {
            range.0 += reach;
        } else {
            range.1 += reach;
        }
    }
    range
}

/// Whether `index` gives distinct positions to distinct iterations of `shape`: sorted by
/// stride magnitude, each stride of a dim longer than 1 exceeds the reach of the smaller
/// ones (row-major maps, their permutations and reversals all qualify).
fn one_to_one(index: &Affine, shape: &[u32]) -> bool {
    let mut dims: Vec<(i128, i128)> = index
        .strides
        .iter()
        .zip(shape)
        .filter(|&(_, &d)| d > 1)
        .map(|(&s, &d)| ((s as i128).abs(), d as i128))
        .collect();
    dims.sort_unstable();
    let mut reach = 0i128;
    for (stride, len) in dims {
        if stride <= reach {
            return false;
        }
        reach += stride * (len - 1);
    }
    true
}
