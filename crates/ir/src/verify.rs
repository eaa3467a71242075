//! The Tile IR verifier: types, shapes, scope and terminators.
//!
//! Every diagnostic names the offending op in printer syntax (see [`crate::print::op_text`])
//! and carries the op's span. Codes are `tilec_diagnostics::codes::ir` (E03xx).

use crate::ir::*;
use crate::print::{op_text, ValueNames};
use std::collections::HashSet;
use tilec_diagnostics::codes::ir as codes;
use tilec_diagnostics::{Code, Diagnostic};

/// Checks every invariant documented in [`crate::ir`]; returns all violations found.
pub fn verify(f: &Function) -> Result<(), Vec<Diagnostic>> {
    let mut v = Verifier {
        f,
        names: ValueNames::new(f),
        errors: Default::default(),
        defined: HashSet::new(),
        scopes: Vec::new(),
        visited_regions: HashSet::new(),
    };
    v.check_signature();
    v.region(f.body, RegionRole::Body, None);
    let errors = v.errors.into_inner();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// What a region is for, which decides its terminator.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RegionRole {
    /// The function body: no terminator.
    Body,
    /// Ends in `scf.yield` of the given types (checked by the parent op).
    Yields,
    /// The `before` region of `scf.while`: ends in `scf.condition`.
    Condition,
}

struct Verifier<'f> {
    f: &'f Function,
    names: ValueNames,
    errors: std::cell::RefCell<Vec<Diagnostic>>,
    /// Every value defined so far (to catch double definitions).
    defined: HashSet<Value>,
    /// Values visible at the current point, one set per enclosing region.
    scopes: Vec<HashSet<Value>>,
    visited_regions: HashSet<RegionId>,
}

/// The shape of a type, or nothing for a value that is not in the function.
type Shape = Vec<u32>;

impl<'f> Verifier<'f> {
    fn ty(&self, v: Value) -> Option<&'f Type> {
        self.f.values.get(v).map(|d| &d.ty)
    }

    fn tt(&self, v: Value) -> String {
        self.ty(v).map_or_else(|| "<?>".to_string(), crate::print::type_text)
    }

    fn error(&self, op: OpId, code: Code, message: impl AsRef<str>) {
        let text = op_text(self.f, &self.names, op);
        let mut d = Diagnostic::error(code, format!("`{text}`: {}", message.as_ref()));
        if let Some(o) = self.f.ops.get(op) {
            d = d.with_span(o.span);
        }
        self.errors.borrow_mut().push(d);
    }

    fn function_error(&self, code: Code, message: String) {
        let d = Diagnostic::error(code, format!("`tt.func @{}`: {message}", self.f.name)).with_span(self.f.span);
        self.errors.borrow_mut().push(d);
    }

    fn check_signature(&self) {
        let Some(body) = self.f.regions.get(self.f.body) else {
            self.function_error(codes::MALFORMED_REGION, "the body region does not exist".into());
            return;
        };
        if body.params.len() != self.f.params.len() {
            self.function_error(
                codes::PARAMETERS,
                format!("{} kernel parameters but the body has {} parameters", self.f.params.len(), body.params.len()),
            );
        }
        for (p, &v) in self.f.params.iter().zip(&body.params) {
            if self.ty(v) != Some(&p.ty) {
                let msg = format!(
                    "parameter `{}` is declared {} but the body parameter has type {}",
                    p.name,
                    crate::print::type_text(&p.ty),
                    self.tt(v)
                );
                self.function_error(codes::PARAMETERS, msg);
            }
        }
    }

    /// Defines `v` in the innermost scope, checking it is defined once and where its record says.
    fn define(&mut self, v: Value, expected: ValueDef, op: Option<OpId>) {
        let name = self.names.get(v);
        let problem = match self.f.values.get(v) {
            None => Some((codes::REDEFINED_VALUE, format!("{name} is not a value of this function"))),
            Some(_) if !self.defined.insert(v) => {
                Some((codes::REDEFINED_VALUE, format!("{name} is defined more than once")))
            }
            Some(d) if d.def != expected => Some((
                codes::REDEFINED_VALUE,
                format!("{name} is recorded as defined at {:?} but appears at {expected:?}", d.def),
            )),
            Some(d) if d.ty.shape.contains(&0) => {
                Some((codes::WRONG_SHAPE, format!("{name} has type {}, with a zero-sized dimension", self.tt(v))))
            }
            Some(_) => None,
        };
        if let Some((code, msg)) = problem {
            match op {
                Some(op) => self.error(op, code, msg),
                None => self.function_error(code, msg),
            }
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(v);
        }
    }

    fn in_scope(&self, v: Value) -> bool {
        self.scopes.iter().any(|s| s.contains(&v))
    }

    /// Walks `r`: params into scope, each op checked in order, terminator checked by role.
    /// `owner` is the op the region belongs to (for messages about the region itself).
    fn region(&mut self, r: RegionId, role: RegionRole, owner: Option<OpId>) {
        if !self.visited_regions.insert(r) {
            if let Some(op) = owner {
                self.error(op, codes::MALFORMED_REGION, format!("{r} is also used by another op"));
            }
            return;
        }
        let Some(region) = self.f.regions.get(r) else {
            if let Some(op) = owner {
                self.error(op, codes::MALFORMED_REGION, format!("{r} does not exist"));
            }
            return;
        };
        self.scopes.push(HashSet::new());
        for (i, &p) in region.params.iter().enumerate() {
            self.define(p, ValueDef::Param(r, i as u32), owner);
        }
        let count = region.ops.len();
        for (i, &op) in region.ops.iter().enumerate() {
            let Some(op_data) = self.f.ops.get(op) else {
                let msg = format!("{r} lists {op}, which does not exist");
                match owner {
                    Some(o) => self.error(o, codes::MALFORMED_REGION, msg),
                    None => self.function_error(codes::MALFORMED_REGION, msg),
                }
                continue;
            };
            if op_data.kind.is_terminator() {
                let expected = match role {
                    RegionRole::Body => None,
                    RegionRole::Yields => Some(matches!(op_data.kind, OpKind::Yield(_))),
                    RegionRole::Condition => Some(matches!(op_data.kind, OpKind::Condition { .. })),
                };
                match expected {
                    None => self.error(op, codes::TERMINATOR, "a terminator in the function body"),
                    Some(false) => self.error(op, codes::TERMINATOR, "the wrong terminator for this region"),
                    Some(true) if i + 1 != count => {
                        self.error(op, codes::TERMINATOR, "a terminator that is not the last op of its region")
                    }
                    Some(true) => {}
                }
            }
            self.op(op, op_data);
        }
        let has_terminator = region.ops.last().and_then(|&o| self.f.ops.get(o)).is_some_and(|o| o.kind.is_terminator());
        if role != RegionRole::Body && !has_terminator {
            if let Some(op) = owner {
                let want = if role == RegionRole::Condition { "scf.condition" } else { "scf.yield" };
                self.error(op, codes::TERMINATOR, format!("a region does not end in `{want}`"));
            }
        }
        self.scopes.pop();
    }

    /// The operands of `r`'s terminator, when it has one of the right kind.
    fn terminator(&self, r: RegionId) -> Option<(OpId, &'f OpKind)> {
        let &last = self.f.regions.get(r)?.ops.last()?;
        let op = self.f.ops.get(last)?;
        op.kind.is_terminator().then_some((last, &op.kind))
    }

    fn region_params(&self, r: RegionId) -> Vec<Value> {
        self.f.regions.get(r).map(|reg| reg.params.clone()).unwrap_or_default()
    }

    fn types_of(&self, vs: &[Value]) -> Vec<Option<&'f Type>> {
        vs.iter().map(|&v| self.ty(v)).collect()
    }

    fn op(&mut self, id: OpId, op: &'f Op) {
        for v in op.kind.operands() {
            if self.f.values.get(v).is_none() {
                self.error(
                    id,
                    codes::UNDEFINED_VALUE,
                    format!("{} is not a value of this function", self.names.get(v)),
                );
            } else if !self.in_scope(v) {
                self.error(
                    id,
                    codes::UNDEFINED_VALUE,
                    format!("{} is used where it is not defined", self.names.get(v)),
                );
            }
        }
        self.check_result_count(id, op);
        // Nested regions see the values defined before the op, not its results.
        match &op.kind {
            OpKind::For { body, .. } => self.region(*body, RegionRole::Yields, Some(id)),
            OpKind::If { then_region, else_region, .. } => {
                self.region(*then_region, RegionRole::Yields, Some(id));
                self.region(*else_region, RegionRole::Yields, Some(id));
            }
            OpKind::While { before, after, .. } => {
                self.region(*before, RegionRole::Condition, Some(id));
                self.region(*after, RegionRole::Yields, Some(id));
            }
            OpKind::ReduceCustom { combine, .. } | OpKind::ScanCustom { combine, .. } => {
                self.region(*combine, RegionRole::Yields, Some(id))
            }
            _ => {}
        }
        for (i, &r) in op.results.iter().enumerate() {
            self.define(r, ValueDef::Result(id, i as u32), Some(id));
        }
        // Typing needs every operand and result to exist.
        let all_exist = op.kind.operands().iter().chain(&op.results).all(|&v| self.f.values.get(v).is_some());
        if all_exist && self.expected_result_count(op).is_none_or(|n| n == op.results.len()) {
            self.check_types(id, op);
        }
    }

    fn expected_result_count(&self, op: &Op) -> Option<usize> {
        use OpKind::*;
        match &op.kind {
            Store { .. }
            | Assert { .. }
            | Assume { .. }
            | Print { .. }
            | DebugBarrier
            | Yield(_)
            | Condition { .. } => Some(0),
            For { init, .. } => Some(init.len()),
            ReduceCustom { values, .. } | ScanCustom { values, .. } => Some(values.len()),
            Reduce { kind, .. } if kind.is_arg() => Some(2),
            If { .. } => None,
            While { before, .. } => match self.terminator(*before) {
                Some((_, Condition { args, .. })) => Some(args.len()),
                _ => None,
            },
            _ => Some(1),
        }
    }

    fn check_result_count(&self, id: OpId, op: &Op) {
        if let Some(n) = self.expected_result_count(op) {
            if n != op.results.len() {
                self.error(id, codes::RESULT_COUNT, format!("expected {n} result(s), found {}", op.results.len()));
            }
        }
    }

    /// Reports `code` unless `ok`.
    fn require(&self, id: OpId, ok: bool, code: Code, message: impl FnOnce() -> String) -> bool {
        if !ok {
            self.error(id, code, message());
        }
        ok
    }

    fn require_same_type(&self, id: OpId, what: &str, a: Value, b: Value) -> bool {
        let (ta, tb) = (self.ty(a), self.ty(b));
        if ta == tb {
            return true;
        }
        let code = if ta.map(|t| &t.shape) != tb.map(|t| &t.shape) { codes::WRONG_SHAPE } else { codes::WRONG_TYPE };
        let msg = format!("{what} have different types ({} and {})", self.tt(a), self.tt(b));
        self.error(id, code, msg);
        false
    }

    /// `v` is an `i1` (mask/condition) of shape `shape`.
    fn require_mask(&self, id: OpId, what: &str, v: Value, shape: &Shape) {
        let ty = self.ty(v);
        let is_bool = ty.is_some_and(|t| t.elem == Elem::Scalar(ScalarType::I1));
        if !self.require(id, is_bool, codes::WRONG_TYPE, || format!("{what} must be i1, found {}", self.tt(v))) {
            return;
        }
        let same = ty.is_some_and(|t| &t.shape == shape);
        self.require(id, same, codes::WRONG_SHAPE, || {
            format!("{what} has type {} but the op's shape is {}", self.tt(v), shape_text(shape))
        });
    }

    fn require_elem(&self, id: OpId, what: &str, v: Value, ok: impl Fn(ScalarType) -> bool, want: &str) -> bool {
        let fine = self.ty(v).and_then(|t| t.scalar_type()).is_some_and(ok);
        self.require(id, fine, codes::WRONG_TYPE, || format!("{what} must be {want}, found {}", self.tt(v)))
    }

    fn require_axis(&self, id: OpId, axis: u32, rank: usize) -> bool {
        self.require(id, (axis as usize) < rank, codes::BAD_ATTRIBUTE, || {
            format!("axis {axis} is out of range for rank {rank}")
        })
    }

    fn require_result(&self, id: OpId, result: Value, expected: &Type) {
        let actual = self.ty(result);
        if actual == Some(expected) {
            return;
        }
        let code =
            if actual.map(|t| &t.shape) != Some(&expected.shape) { codes::WRONG_SHAPE } else { codes::WRONG_TYPE };
        let msg =
            format!("the result should have type {}, found {}", crate::print::type_text(expected), self.tt(result));
        self.error(id, code, msg);
    }

    /// `yielded` values of the terminator of `region` have types `expected`.
    fn require_yield_types(&self, id: OpId, region: RegionId, expected: &[Option<&Type>], what: &str) {
        let Some((term, OpKind::Yield(values))) = self.terminator(region) else { return };
        let actual = self.types_of(values);
        if actual.as_slice() != expected {
            let show = |ts: &[Option<&Type>]| {
                ts.iter()
                    .map(|t| t.map_or_else(|| "<?>".to_string(), crate::print::type_text))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let msg = format!("{what}: yields ({}) but ({}) is expected", show(&actual), show(expected));
            self.error(term, codes::TERMINATOR, msg);
            let _ = id;
        }
    }

    fn require_params(&self, id: OpId, region: RegionId, expected: &[Option<&Type>], what: &str) {
        let params = self.region_params(region);
        let actual = self.types_of(&params);
        if actual.as_slice() != expected {
            let show = |ts: &[Option<&Type>]| {
                ts.iter()
                    .map(|t| t.map_or_else(|| "<?>".to_string(), crate::print::type_text))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            self.error(
                id,
                codes::MALFORMED_REGION,
                format!("{what} has parameters ({}) but ({}) is expected", show(&actual), show(expected)),
            );
        }
    }

    fn check_types(&self, id: OpId, op: &'f Op) {
        use OpKind::*;
        let result = op.results.first().copied();
        let result_ty = result.and_then(|r| self.ty(r));
        match &op.kind {
            Constant(c) => {
                let Some(ty) = result_ty else { return };
                self.require(id, constant_fits(*c, ty.elem), codes::BAD_ATTRIBUTE, || {
                    format!("the constant does not fit type {}", crate::print::type_text(ty))
                });
            }
            ProgramId(_) | NumPrograms(_) => {
                self.require_result(id, op.results[0], &Type::scalar(ScalarType::I32));
            }
            MakeRange { start, end } => {
                let len = (*end as i64) - (*start as i64);
                let ok = len > 0 && (len as u64).is_power_of_two();
                if self.require(id, ok, codes::BAD_ATTRIBUTE, || {
                    format!("the range length {len} is not a positive power of two")
                }) {
                    let expected = Type::tensor(Elem::Scalar(ScalarType::I32), vec![len as u32]);
                    self.require_result(id, op.results[0], &expected);
                }
            }
            Splat(v) => {
                let Some(src) = self.ty(*v) else { return };
                let src_scalar = !src.is_tensor();
                if self.require(id, src_scalar, codes::WRONG_SHAPE, || "the operand must be a scalar".into()) {
                    let ok = result_ty.is_some_and(|t| t.is_tensor() && t.elem == src.elem);
                    self.require(id, ok, codes::WRONG_TYPE, || {
                        "the result must be a tensor of the operand's type".into()
                    });
                }
            }
            Broadcast(v) => {
                let (Some(src), Some(dst)) = (self.ty(*v), result_ty) else { return };
                self.require(id, src.elem == dst.elem, codes::WRONG_TYPE, || {
                    "the result element type differs from the operand's".into()
                });
                let ok = src.shape.len() == dst.shape.len()
                    && src.shape.iter().zip(&dst.shape).all(|(&s, &d)| s == d || s == 1);
                self.require(id, ok && src.is_tensor(), codes::WRONG_SHAPE, || {
                    "the operand must have the result's rank, and each dim equal to the result's or 1".into()
                });
            }
            ExpandDims { value, axis } => {
                let Some(src) = self.ty(*value) else { return };
                if self.require_axis(id, *axis, src.shape.len() + 1) {
                    let mut shape = src.shape.clone();
                    shape.insert(*axis as usize, 1);
                    self.require_result(id, op.results[0], &src.with_shape(shape));
                }
            }
            Reshape(v) => {
                let (Some(src), Some(dst)) = (self.ty(*v), result_ty) else { return };
                self.require(id, src.elem == dst.elem, codes::WRONG_TYPE, || {
                    "the result element type differs from the operand's".into()
                });
                self.require(id, src.numel() == dst.numel() && dst.is_tensor(), codes::WRONG_SHAPE, || {
                    "the result must be a tensor with as many elements as the operand".into()
                });
            }
            Trans { value, order } => {
                let Some(src) = self.ty(*value) else { return };
                let mut sorted = order.clone();
                sorted.sort_unstable();
                let is_perm =
                    sorted.iter().enumerate().all(|(i, &d)| d as usize == i) && order.len() == src.shape.len();
                if self.require(id, is_perm, codes::BAD_ATTRIBUTE, || {
                    format!("order {order:?} is not a permutation of the operand's {} dims", src.shape.len())
                }) {
                    let shape = order.iter().map(|&d| src.shape[d as usize]).collect();
                    self.require_result(id, op.results[0], &src.with_shape(shape));
                }
            }
            AddPtr { ptr, offset } => {
                let (Some(p), Some(o)) = (self.ty(*ptr), self.ty(*offset)) else { return };
                let ptr_ok = matches!(p.elem, Elem::Ptr(_));
                self.require(id, ptr_ok, codes::WRONG_TYPE, || {
                    format!("the first operand must be a pointer, found {}", self.tt(*ptr))
                });
                let off_ok = o.scalar_type().is_some_and(|s| s.is_int() && !s.is_bool());
                self.require(id, off_ok, codes::WRONG_TYPE, || {
                    format!("the offset must be an integer, found {}", self.tt(*offset))
                });
                self.require(id, p.shape == o.shape, codes::WRONG_SHAPE, || "pointer and offset shapes differ".into());
                self.require_result(id, op.results[0], p);
            }
            Load { ptr, mask, other } => {
                let Some((p, loaded)) = self.pointer_operand(id, *ptr) else { return };
                self.require_result(id, op.results[0], &loaded);
                if let Some(m) = mask {
                    self.require_mask(id, "the mask", *m, &p.shape);
                }
                if let Some(o) = other {
                    self.require(id, mask.is_some(), codes::WRONG_TYPE, || "`other` is given without a mask".into());
                    let ok = self.ty(*o) == Some(&loaded);
                    self.require(id, ok, codes::WRONG_TYPE, || {
                        format!("`other` must have type {}, found {}", crate::print::type_text(&loaded), self.tt(*o))
                    });
                }
            }
            Store { ptr, value, mask } => {
                let Some((p, stored)) = self.pointer_operand(id, *ptr) else { return };
                let ok = self.ty(*value) == Some(&stored);
                self.require(id, ok, codes::WRONG_TYPE, || {
                    format!(
                        "the stored value must have type {}, found {}",
                        crate::print::type_text(&stored),
                        self.tt(*value)
                    )
                });
                if let Some(m) = mask {
                    self.require_mask(id, "the mask", *m, &p.shape);
                }
            }
            Binary { op: bop, lhs, rhs } => {
                if self.require_same_type(id, "the operands", *lhs, *rhs) {
                    let (pred, want): (fn(ScalarType) -> bool, &str) = match bop {
                        BinaryOp::Add
                        | BinaryOp::Sub
                        | BinaryOp::Mul
                        | BinaryOp::Div
                        | BinaryOp::Rem
                        | BinaryOp::Max
                        | BinaryOp::Min => (|s| !s.is_fp8(), "a number (fp8 has no arithmetic)"),
                        BinaryOp::And
                        | BinaryOp::Or
                        | BinaryOp::Xor
                        | BinaryOp::Shl
                        | BinaryOp::Shr
                        | BinaryOp::MulHi => (ScalarType::is_int, "an integer"),
                        BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot => (ScalarType::is_float, "a float"),
                    };
                    if self.require_elem(id, "the operands", *lhs, pred, want) {
                        let expected = self.ty(*lhs).cloned();
                        if let Some(t) = expected {
                            self.require_result(id, op.results[0], &t);
                        }
                    }
                }
            }
            Unary { op: uop, value } => {
                let (pred, want): (fn(ScalarType) -> bool, &str) = match uop {
                    UnaryOp::Neg | UnaryOp::Abs => (|s| !s.is_fp8(), "a number (fp8 has no arithmetic)"),
                    UnaryOp::Not => (ScalarType::is_int, "an integer"),
                };
                if self.require_elem(id, "the operand", *value, pred, want) {
                    if let Some(t) = self.ty(*value) {
                        self.require_result(id, op.results[0], t);
                    }
                }
            }
            Math { value, .. } => {
                if self.require_elem(id, "the operand", *value, ScalarType::is_float, "a float") {
                    if let Some(t) = self.ty(*value) {
                        self.require_result(id, op.results[0], t);
                    }
                }
            }
            Fma { a, b, c } => {
                let ok = self.require_same_type(id, "the operands", *a, *b)
                    && self.require_same_type(id, "the operands", *a, *c);
                if ok && self.require_elem(id, "the operands", *a, ScalarType::is_float, "a float") {
                    if let Some(t) = self.ty(*a) {
                        self.require_result(id, op.results[0], t);
                    }
                }
            }
            Cmp { lhs, rhs, .. } => {
                let numbers = self.require_elem(id, "the operands", *lhs, |s| !s.is_fp8(), "numbers (not fp8)");
                if numbers && self.require_same_type(id, "the operands", *lhs, *rhs) {
                    if let Some(t) = self.ty(*lhs) {
                        self.require_result(id, op.results[0], &t.with_elem(Elem::Scalar(ScalarType::I1)));
                    }
                }
            }
            Select { cond, on_true, on_false } => {
                if self.require_same_type(id, "the selected values", *on_true, *on_false) {
                    let Some(t) = self.ty(*on_true) else { return };
                    self.require_result(id, op.results[0], t);
                    let cond_shape = self.ty(*cond).map(|c| c.shape.clone()).unwrap_or_default();
                    let shape = if cond_shape.is_empty() { Vec::new() } else { t.shape.clone() };
                    self.require_mask(id, "the condition", *cond, &shape);
                }
            }
            Cast { op: cop, value } => {
                let (Some(src), Some(dst)) = (self.ty(*value), result_ty) else { return };
                self.require(id, src.shape == dst.shape, codes::WRONG_SHAPE, || "a cast must keep the shape".into());
                let legal = cast_is_legal(*cop, src.elem, dst.elem);
                self.require(id, legal, codes::BAD_CAST, || {
                    format!("cannot convert {} to {} with this cast", elem_text(src.elem), elem_text(dst.elem))
                });
            }
            Reduce { kind, value, axis } => {
                let Some(src) = self.ty(*value) else { return };
                if !self.require(id, src.is_tensor(), codes::WRONG_SHAPE, || "the operand must be a tensor".into()) {
                    return;
                }
                if self.require_axis(id, *axis, src.shape.len()) {
                    let (pred, want): (fn(ScalarType) -> bool, &str) = match kind {
                        ReduceKind::Xor | ReduceKind::And | ReduceKind::Or => (ScalarType::is_int, "an integer"),
                        _ => (|s| !s.is_fp8(), "a number (fp8 has no arithmetic)"),
                    };
                    self.require_elem(id, "the operand", *value, pred, want);
                    let mut shape = src.shape.clone();
                    shape.remove(*axis as usize);
                    self.require_result(id, op.results[0], &Type::tensor(src.elem, shape.clone()));
                    if kind.is_arg() {
                        self.require_result(id, op.results[1], &Type::tensor(Elem::Scalar(ScalarType::I32), shape));
                    }
                }
            }
            ReduceCustom { values, axis, combine } | ScanCustom { values, axis, combine, .. } => {
                let Some(types) = values.iter().map(|&v| self.ty(v)).collect::<Option<Vec<&Type>>>() else { return };
                let Some(first) = types.first() else {
                    self.error(id, codes::RESULT_COUNT, "a reduction or scan needs at least one operand");
                    return;
                };
                if !self.require(id, first.is_tensor(), codes::WRONG_SHAPE, || "the operands must be tensors".into()) {
                    return;
                }
                let same_shape = types.iter().all(|t| t.shape == first.shape);
                if !self.require(id, same_shape, codes::WRONG_SHAPE, || "the operands have different shapes".into()) {
                    return;
                }
                if self.require_axis(id, *axis, first.shape.len()) {
                    let elems: Vec<Type> = types.iter().map(|t| Type { elem: t.elem, shape: Vec::new() }).collect();
                    let yielded: Vec<Option<&Type>> = elems.iter().map(Some).collect();
                    let params: Vec<Option<&Type>> = yielded.iter().chain(&yielded).copied().collect();
                    self.require_params(id, *combine, &params, "the combine region");
                    self.require_yield_types(id, *combine, &yielded, "the combine region");
                    for (&t, &r) in types.iter().zip(&op.results) {
                        let expected = if matches!(op.kind, ReduceCustom { .. }) {
                            let mut shape = t.shape.clone();
                            shape.remove(*axis as usize);
                            t.with_shape(shape)
                        } else {
                            t.clone()
                        };
                        self.require_result(id, r, &expected);
                    }
                }
            }
            Gather { src, index, axis } => {
                let (Some(s), Some(i)) = (self.ty(*src), self.ty(*index)) else { return };
                self.require_elem(id, "the index", *index, |t| t.is_int() && !t.is_bool(), "an integer");
                let shapes_ok = s.is_tensor()
                    && s.shape.len() == i.shape.len()
                    && s.shape.iter().zip(&i.shape).enumerate().all(|(d, (a, b))| d == *axis as usize || a == b);
                let ok = self.require(id, shapes_ok, codes::WRONG_SHAPE, || {
                    format!(
                        "the source {} and the index {} must have one rank and equal dims except along the axis",
                        self.tt(*src),
                        self.tt(*index)
                    )
                });
                if ok && self.require_axis(id, *axis, s.shape.len()) {
                    self.require_result(id, op.results[0], &i.with_elem(s.elem));
                }
            }
            Scan { value, axis, .. } => {
                let Some(src) = self.ty(*value) else { return };
                if !self.require(id, src.is_tensor(), codes::WRONG_SHAPE, || "the operand must be a tensor".into()) {
                    return;
                }
                if self.require_axis(id, *axis, src.shape.len()) {
                    self.require_elem(id, "the operand", *value, |s| !s.is_fp8(), "a number (fp8 has no arithmetic)");
                    self.require_result(id, op.results[0], src);
                }
            }
            Dot { a, b, acc, .. } => self.check_dot(id, op, *a, *b, *acc),
            AtomicRmw { op: aop, ptr, value, mask, .. } => {
                let Some((p, operand)) = self.pointer_operand(id, *ptr) else { return };
                let ok = self.ty(*value) == Some(&operand);
                self.require(id, ok, codes::WRONG_TYPE, || {
                    format!("the value must have type {}, found {}", crate::print::type_text(&operand), self.tt(*value))
                });
                let int_only = matches!(aop, AtomicOp::And | AtomicOp::Or | AtomicOp::Xor);
                if int_only {
                    self.require_elem(id, "the value", *value, ScalarType::is_int, "an integer");
                }
                if let Some(m) = mask {
                    self.require_mask(id, "the mask", *m, &p.shape);
                }
                self.require_result(id, op.results[0], &operand);
            }
            AtomicCas { ptr, cmp, value, .. } => {
                let Some((_, operand)) = self.pointer_operand(id, *ptr) else { return };
                for (what, v) in [("the compared value", *cmp), ("the new value", *value)] {
                    let ok = self.ty(v) == Some(&operand);
                    self.require(id, ok, codes::WRONG_TYPE, || {
                        format!("{what} must have type {}, found {}", crate::print::type_text(&operand), self.tt(v))
                    });
                }
                self.require_result(id, op.results[0], &operand);
            }
            Assert { cond, .. } | Assume { cond } => {
                let shape = self.ty(*cond).map(|t| t.shape.clone()).unwrap_or_default();
                self.require_mask(id, "the condition", *cond, &shape);
            }
            Print { .. } | DebugBarrier => {}
            Hint { value, hint } => {
                let Some(t) = self.ty(*value) else { return };
                self.require_result(id, op.results[0], t);
                let values = match hint {
                    crate::ir::Hint::MultipleOf(v)
                    | crate::ir::Hint::MaxContiguous(v)
                    | crate::ir::Hint::MaxConstancy(v) => v,
                };
                let rank = t.shape.len().max(1);
                self.require(id, values.len() == rank, codes::BAD_ATTRIBUTE, || {
                    format!("the hint has {} values for rank {rank}", values.len())
                });
            }
            For { lower, upper, step, init, body } => {
                let Some(lt) = self.ty(*lower) else { return };
                let bounds_ok = !lt.is_tensor() && lt.scalar_type().is_some_and(|s| s.is_int() && !s.is_bool());
                self.require(id, bounds_ok, codes::WRONG_TYPE, || {
                    format!("loop bounds must be scalar integers, found {}", self.tt(*lower))
                });
                for v in [*upper, *step] {
                    self.require_same_type(id, "the loop bounds and step", *lower, v);
                }
                let mut params = vec![Some(lt)];
                params.extend(self.types_of(init));
                self.require_params(id, *body, &params, "the loop body");
                let init_types = self.types_of(init);
                self.require_yield_types(id, *body, &init_types, "the loop body");
                let results = self.types_of(&op.results);
                if results != init_types {
                    self.error(id, codes::WRONG_TYPE, "the results must have the types of the iter-args");
                }
            }
            If { cond, then_region, else_region } => {
                let ok = self.ty(*cond).is_some_and(|t| *t == Type::scalar(ScalarType::I1));
                self.require(id, ok, codes::WRONG_TYPE, || {
                    format!("the condition must be a scalar i1, found {}", self.tt(*cond))
                });
                let results = self.types_of(&op.results);
                for r in [*then_region, *else_region] {
                    self.require_params(id, r, &[], "a branch");
                    self.require_yield_types(id, r, &results, "a branch");
                }
            }
            While { init, before, after } => {
                let init_types = self.types_of(init);
                self.require_params(id, *before, &init_types, "the `before` region");
                if let Some((term, Condition { cond, args })) = self.terminator(*before) {
                    let ok = self.ty(*cond).is_some_and(|t| *t == Type::scalar(ScalarType::I1));
                    if !ok {
                        let msg = format!("the condition must be a scalar i1, found {}", self.tt(*cond));
                        self.error(term, codes::WRONG_TYPE, msg);
                    }
                    let arg_types = self.types_of(args);
                    self.require_params(id, *after, &arg_types, "the `after` region");
                    if self.types_of(&op.results) != arg_types {
                        self.error(
                            id,
                            codes::WRONG_TYPE,
                            "the results must have the types of the `scf.condition` arguments",
                        );
                    }
                }
                self.require_yield_types(id, *after, &init_types, "the `after` region");
            }
            Yield(_) | Condition { .. } => {}
        }
    }

    /// The type of pointer operand `ptr` and the type of the values it points to, or an
    /// error when it is not a pointer.
    fn pointer_operand(&self, id: OpId, ptr: Value) -> Option<(&'f Type, Type)> {
        let p = self.ty(ptr)?;
        let Elem::Ptr(pointee) = p.elem else {
            self.error(id, codes::WRONG_TYPE, format!("the address must be a pointer, found {}", self.tt(ptr)));
            return None;
        };
        Some((p, p.with_elem(Elem::Scalar(pointee))))
    }

    fn check_dot(&self, id: OpId, op: &Op, a: Value, b: Value, acc: Value) {
        let (Some(ta), Some(tb), Some(tc)) = (self.ty(a), self.ty(b), self.ty(acc)) else { return };
        let rank = ta.shape.len();
        let shapes_ok = (rank == 2 || rank == 3) && tb.shape.len() == rank && tc.shape.len() == rank && {
            let batch = rank - 2;
            let (m, k) = (ta.shape[batch], ta.shape[batch + 1]);
            let (k2, n) = (tb.shape[batch], tb.shape[batch + 1]);
            ta.shape[..batch] == tb.shape[..batch]
                && ta.shape[..batch] == tc.shape[..batch]
                && k == k2
                && tc.shape[batch] == m
                && tc.shape[batch + 1] == n
        };
        self.require(id, shapes_ok, codes::WRONG_SHAPE, || {
            format!("shapes {}, {}, {} do not form [M,K] x [K,N] + [M,N]", self.tt(a), self.tt(b), self.tt(acc))
        });
        let (ea, eb, ec) = (ta.scalar_type(), tb.scalar_type(), tc.scalar_type());
        let elems_ok = match (ea, eb, ec) {
            (Some(x), Some(y), Some(z)) => x == y && x.is_float() == z.is_float() && !x.is_bool(),
            _ => false,
        };
        self.require(id, elems_ok, codes::WRONG_TYPE, || {
            "the inputs must have one element type and the accumulator the same kind (float or integer)".into()
        });
        self.require_result(id, op.results[0], tc);
    }
}

fn shape_text(shape: &[u32]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join("x"))
}

fn elem_text(e: Elem) -> String {
    crate::print::type_text(&Type { elem: e, shape: Vec::new() })
}

/// Whether constant `c` is a value of element type `elem`: an integer that fits its width
/// (read as signed or unsigned), a float of a float type, a boolean of `i1`.
pub fn constant_fits(c: Constant, elem: Elem) -> bool {
    match (c, elem) {
        (Constant::Int(i), Elem::Scalar(s)) if s.is_int() => int_fits(i, s),
        (Constant::Float(_), Elem::Scalar(s)) => s.is_float(),
        (Constant::Bool(_), Elem::Scalar(s)) => s == ScalarType::I1,
        _ => false,
    }
}

/// Whether `value` (sign-extended bits) fits integer type `s` read as signed or unsigned.
fn int_fits(value: i64, s: ScalarType) -> bool {
    let bits = s.bits();
    if bits >= 64 {
        return true;
    }
    if bits == 1 {
        return matches!(value, -1..=1);
    }
    let v = value as i128;
    v >= -(1i128 << (bits - 1)) && v < (1i128 << bits)
}

/// Which element conversions each cast kind performs (see [`CastOp`]). `FloatTrunc` also
/// converts between `f16` and `bf16` (a rounding conversion of equal width).
pub fn cast_is_legal(op: CastOp, src: Elem, dst: Elem) -> bool {
    use Elem::{Ptr, Scalar};
    match (op, src, dst) {
        (CastOp::IntExt, Scalar(a), Scalar(b)) => a.is_int() && b.is_int() && b.bits() > a.bits(),
        (CastOp::IntTrunc, Scalar(a), Scalar(b)) => a.is_int() && b.is_int() && b.bits() < a.bits(),
        (CastOp::IntRetype, Scalar(a), Scalar(b)) => a.is_int() && b.is_int() && a.bits() == b.bits(),
        (CastOp::FloatExt, Scalar(a), Scalar(b)) => a.is_float() && b.is_float() && b.bits() > a.bits(),
        (CastOp::FloatTrunc, Scalar(a), Scalar(b)) => {
            a.is_float() && b.is_float() && (b.bits() < a.bits() || (a.bits() == 16 && a != b))
        }
        (CastOp::IntToFloat, Scalar(a), Scalar(b)) => a.is_int() && b.is_float(),
        (CastOp::FloatToInt, Scalar(a), Scalar(b)) => a.is_float() && b.is_int(),
        (CastOp::Bitcast, Scalar(a), Scalar(b)) => a.bits() == b.bits(),
        (CastOp::PtrToInt, Ptr(_), Scalar(b)) => b.is_int() && b.bits() == 64,
        (CastOp::IntToPtr, Scalar(a), Ptr(_)) => a.is_int() && a.bits() == 64,
        (CastOp::PtrCast, Ptr(_), Ptr(_)) => true,
        _ => false,
    }
}
