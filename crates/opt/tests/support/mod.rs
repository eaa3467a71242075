//! Shared helpers of the optimizer tests: a small IR builder over `Function::append_*`,
//! optimization with verification, and queries on the printed IR.
#![allow(dead_code)]

use tilec_diagnostics::Span;
use tilec_ir::*;

/// Builds a function region by region; ops go to the innermost open region.
pub struct Builder {
    pub f: Function,
    open: Vec<RegionId>,
}

pub fn scalar(s: ScalarType) -> Type {
    Type::scalar(s)
}

pub fn tensor(s: ScalarType, shape: &[u32]) -> Type {
    Type::tensor(Elem::Scalar(s), shape.to_vec())
}

pub fn ptr_tensor(s: ScalarType, shape: &[u32]) -> Type {
    Type::tensor(Elem::Ptr(s), shape.to_vec())
}

impl Builder {
    pub fn new(params: &[(&str, Type)]) -> Builder {
        let params = params
            .iter()
            .map(|(name, ty)| Param { name: name.to_string(), ty: ty.clone(), divisibility: 1, span: Span::DUMMY })
            .collect();
        let f = Function::new("kernel", params, Span::DUMMY);
        let body = f.body;
        Builder { f, open: vec![body] }
    }

    pub fn param(&self, i: usize) -> Value {
        self.f.param_values()[i]
    }

    fn region(&self) -> RegionId {
        *self.open.last().expect("a region is open")
    }

    pub fn value(&mut self, kind: OpKind, ty: Type) -> Value {
        let region = self.region();
        self.f.append_value(region, kind, ty, Span::DUMMY)
    }

    pub fn effect(&mut self, kind: OpKind) {
        let region = self.region();
        self.f.append_op(region, kind, vec![], Span::DUMMY);
    }

    pub fn int(&mut self, v: i64, ty: Type) -> Value {
        self.value(OpKind::Constant(Constant::Int(v)), ty)
    }

    pub fn float(&mut self, v: f64, ty: Type) -> Value {
        self.value(OpKind::Constant(Constant::Float(v)), ty)
    }

    pub fn boolean(&mut self, v: bool, ty: Type) -> Value {
        self.value(OpKind::Constant(Constant::Bool(v)), ty)
    }

    pub fn binary(&mut self, op: BinaryOp, lhs: Value, rhs: Value) -> Value {
        let ty = self.f.ty(lhs).clone();
        self.value(OpKind::Binary { op, lhs, rhs }, ty)
    }

    pub fn cmp(&mut self, pred: CmpPred, lhs: Value, rhs: Value) -> Value {
        let ty = self.f.ty(lhs).with_elem(Elem::Scalar(ScalarType::I1));
        self.value(OpKind::Cmp { pred, lhs, rhs }, ty)
    }

    pub fn select(&mut self, cond: Value, on_true: Value, on_false: Value) -> Value {
        let ty = self.f.ty(on_true).clone();
        self.value(OpKind::Select { cond, on_true, on_false }, ty)
    }

    pub fn cast(&mut self, op: CastOp, value: Value, to: ScalarType) -> Value {
        let ty = self.f.ty(value).with_elem(Elem::Scalar(to));
        self.value(OpKind::Cast { op, value }, ty)
    }

    pub fn splat(&mut self, v: Value, shape: &[u32]) -> Value {
        let ty = self.f.ty(v).with_shape(shape.to_vec());
        self.value(OpKind::Splat(v), ty)
    }

    pub fn broadcast(&mut self, v: Value, shape: &[u32]) -> Value {
        let ty = self.f.ty(v).with_shape(shape.to_vec());
        self.value(OpKind::Broadcast(v), ty)
    }

    pub fn expand_dims(&mut self, v: Value, axis: u32) -> Value {
        let mut shape = self.f.ty(v).shape.clone();
        shape.insert(axis as usize, 1);
        let ty = self.f.ty(v).with_shape(shape);
        self.value(OpKind::ExpandDims { value: v, axis }, ty)
    }

    pub fn make_range(&mut self, end: i32) -> Value {
        self.value(OpKind::MakeRange { start: 0, end }, tensor(ScalarType::I32, &[end as u32]))
    }

    pub fn addptr(&mut self, ptr: Value, offset: Value) -> Value {
        let ty = self.f.ty(ptr).clone();
        self.value(OpKind::AddPtr { ptr, offset }, ty)
    }

    pub fn load(&mut self, ptr: Value, mask: Option<Value>) -> Value {
        let ty = self.f.ty(ptr);
        let ty = ty.with_elem(Elem::Scalar(ty.elem.pointee().expect("pointer")));
        let other = None;
        self.value(OpKind::Load { ptr, mask, other }, ty)
    }

    pub fn store(&mut self, ptr: Value, value: Value, mask: Option<Value>) {
        self.effect(OpKind::Store { ptr, value, mask });
    }

    /// `scf.for` from `lower` to `upper` step `step` with iter-args `init`; `body` gets the
    /// builder, the induction variable and the iter-args and returns the yielded values.
    pub fn for_loop(
        &mut self,
        (lower, upper, step): (Value, Value, Value),
        init: Vec<Value>,
        body: impl FnOnce(&mut Builder, Value, Vec<Value>) -> Vec<Value>,
    ) -> Vec<Value> {
        let region = self.f.new_region();
        let iv_ty = self.f.ty(lower).clone();
        let iv = self.f.add_region_param(region, iv_ty, Some("k".to_string()));
        let args: Vec<Value> = init
            .iter()
            .map(|&v| {
                let ty = self.f.ty(v).clone();
                self.f.add_region_param(region, ty, None)
            })
            .collect();
        self.open.push(region);
        let yielded = body(self, iv, args);
        self.effect(OpKind::Yield(yielded));
        self.open.pop();
        let types = init.iter().map(|&v| self.f.ty(v).clone()).collect();
        let outer = self.region();
        let op = self.f.append_op(outer, OpKind::For { lower, upper, step, init, body: region }, types, Span::DUMMY);
        self.f.ops[op].results.clone()
    }

    pub fn finish(self) -> Function {
        self.f
    }
}

/// Verifies `f`, optimizes it, verifies the result, checks that the optimizer did not fall
/// back, and returns the printed output and the report.
pub fn optimize_checked(f: &Function) -> (String, tilec_opt::Report) {
    if let Err(errors) = verify(f) {
        panic!("input does not verify: {errors:?}\n{}", print_function(f));
    }
    let (out, report) = tilec_opt::optimize(f, &tilec_opt::Options::default());
    let text = print_function(&out);
    if let Err(errors) = verify(&out) {
        panic!("output does not verify: {errors:?}\n{text}");
    }
    assert_eq!(report.fallback, None, "{report}\n{text}");
    (text, report)
}

/// Lines of `text` holding op `name` (matched as a word after `=` or at line start).
pub fn op_lines<'t>(text: &'t str, name: &str) -> Vec<&'t str> {
    text.lines()
        .filter(|line| {
            let body = line.split_once(" = ").map_or(line.trim(), |(_, rest)| rest.trim());
            body.split_whitespace().next() == Some(name)
        })
        .collect()
}

pub fn count_ops(text: &str, name: &str) -> usize {
    op_lines(text, name).len()
}

/// Nesting level of an op line: 0 in the function body, 1 inside one region, ...
pub fn nesting(line: &str) -> usize {
    let indent = line.len() - line.trim_start().len();
    (indent - 2) / 2
}

/// Nesting levels of every line with op `name`.
pub fn levels(text: &str, name: &str) -> Vec<usize> {
    op_lines(text, name).into_iter().map(nesting).collect()
}

/// Specializes a kernel source given with its one `# tilec:` header line.
pub fn kernel_ir(source: &str) -> Function {
    let fixture = tilec_testkit::Fixture::from_source("kernel.py", source).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(fixture.compile.len(), 1, "expected one `# tilec:` line");
    fixture.specialize(&fixture.compile[0]).unwrap_or_else(|e| panic!("{e}"))
}
