//! Tile IR functions built by hand, for the tests of the IR and of the interpreter.

use tilec_diagnostics::Span;
use tilec_ir::*;

pub const S: Span = Span::DUMMY;

pub fn scalar(s: ScalarType) -> Type {
    Type::scalar(s)
}

pub fn tensor(s: ScalarType, shape: &[u32]) -> Type {
    Type::tensor(Elem::Scalar(s), shape.to_vec())
}

pub fn ptrs(s: ScalarType, shape: &[u32]) -> Type {
    Type::tensor(Elem::Ptr(s), shape.to_vec())
}

/// A function under construction, appending to `region` (the body unless changed).
pub struct Builder {
    pub f: Function,
    pub region: RegionId,
}

impl Builder {
    /// A kernel `k` with the given runtime parameters (divisibility 1).
    pub fn new(params: &[(&str, Type)]) -> Builder {
        let params = params
            .iter()
            .map(|(name, ty)| Param { name: name.to_string(), ty: ty.clone(), divisibility: 1, span: S })
            .collect();
        let f = Function::new("k", params, S);
        let region = f.body;
        Builder { f, region }
    }

    pub fn param(&self, i: usize) -> Value {
        self.f.param_values()[i]
    }

    /// Appends a one-result op.
    pub fn val(&mut self, kind: OpKind, ty: Type) -> Value {
        self.f.append_value(self.region, kind, ty, S)
    }

    /// Appends an op with one result per type.
    pub fn vals(&mut self, kind: OpKind, types: Vec<Type>) -> Vec<Value> {
        let op = self.f.append_op(self.region, kind, types, S);
        self.f.ops[op].results.clone()
    }

    /// Appends an op without results.
    pub fn eff(&mut self, kind: OpKind) -> OpId {
        self.f.append_op(self.region, kind, vec![], S)
    }

    pub fn int(&mut self, v: i64, ty: Type) -> Value {
        self.val(OpKind::Constant(Constant::Int(v)), ty)
    }

    pub fn float(&mut self, v: f64, ty: Type) -> Value {
        self.val(OpKind::Constant(Constant::Float(v)), ty)
    }

    pub fn bin(&mut self, op: BinaryOp, lhs: Value, rhs: Value) -> Value {
        let ty = self.f.ty(lhs).clone();
        self.val(OpKind::Binary { op, lhs, rhs }, ty)
    }

    pub fn range(&mut self, n: u32) -> Value {
        self.val(OpKind::MakeRange { start: 0, end: n as i32 }, tensor(ScalarType::I32, &[n]))
    }

    pub fn splat(&mut self, v: Value, shape: &[u32]) -> Value {
        let ty = self.f.ty(v).with_shape(shape.to_vec());
        self.val(OpKind::Splat(v), ty)
    }

    /// `base + offsets` as a pointer tensor shaped like `offsets`.
    pub fn ptr_tensor(&mut self, base: Value, offsets: Value) -> Value {
        let shape = self.f.ty(offsets).shape.clone();
        let splat = self.splat(base, &shape);
        let ty = self.f.ty(splat).clone();
        self.val(OpKind::AddPtr { ptr: splat, offset: offsets }, ty)
    }

    pub fn load(&mut self, ptr: Value, mask: Option<Value>, other: Option<Value>) -> Value {
        let pt = self.f.ty(ptr).clone();
        let ty = pt.with_elem(Elem::Scalar(pt.elem.pointee().expect("a pointer")));
        self.val(OpKind::Load { ptr, mask, other }, ty)
    }

    pub fn store(&mut self, ptr: Value, value: Value, mask: Option<Value>) {
        self.eff(OpKind::Store { ptr, value, mask });
    }

    /// `scf.for iv = lb to ub step st iter_args(init)`: `body` gets (builder, iv, iter args)
    /// and returns the yielded values. Returns the results.
    pub fn for_loop(
        &mut self,
        lb: Value,
        ub: Value,
        step: Value,
        init: Vec<Value>,
        body: impl FnOnce(&mut Builder, Value, Vec<Value>) -> Vec<Value>,
    ) -> Vec<Value> {
        let region = self.f.new_region();
        let iv_ty = self.f.ty(lb).clone();
        let iv = self.f.add_region_param(region, iv_ty, None);
        let args: Vec<Value> = init
            .iter()
            .map(|&v| {
                let ty = self.f.ty(v).clone();
                self.f.add_region_param(region, ty, None)
            })
            .collect();
        let outer = std::mem::replace(&mut self.region, region);
        let yielded = body(self, iv, args);
        self.eff(OpKind::Yield(yielded));
        self.region = outer;
        let types = init.iter().map(|&v| self.f.ty(v).clone()).collect();
        let op =
            self.f.append_op(self.region, OpKind::For { lower: lb, upper: ub, step, init, body: region }, types, S);
        self.f.ops[op].results.clone()
    }
}

fn param(name: &str, ty: Type, divisibility: u32) -> Param {
    Param { name: name.into(), ty, divisibility, span: S }
}

fn i32t() -> Type {
    Type::scalar(ScalarType::I32)
}

/// `add_kernel` from Triton's first tutorial, as the front end would produce it.
pub fn vector_add() -> Function {
    let ptr = Type::ptr(ScalarType::F32);
    let mut f = Function::new(
        "add_kernel",
        vec![
            param("x_ptr", ptr.clone(), 16),
            param("y_ptr", ptr.clone(), 16),
            param("out_ptr", ptr, 16),
            param("n", i32t(), 1),
        ],
        S,
    );
    f.constexprs.push(("BLOCK_SIZE".into(), "128".into()));
    let b = f.body;
    let [x, y, out, n] = [0, 1, 2, 3].map(|i| f.param_values()[i]);
    let t_i32 = Type::tensor(Elem::Scalar(ScalarType::I32), vec![128]);
    let t_f32 = Type::tensor(Elem::Scalar(ScalarType::F32), vec![128]);
    let t_ptr = Type::tensor(Elem::Ptr(ScalarType::F32), vec![128]);
    let t_i1 = Type::tensor(Elem::Scalar(ScalarType::I1), vec![128]);
    let pid = f.append_value(b, OpKind::ProgramId(Axis::X), i32t(), S);
    let block = f.append_value(b, OpKind::Constant(Constant::Int(128)), i32t(), S);
    let start = f.append_value(b, OpKind::Binary { op: BinaryOp::Mul, lhs: pid, rhs: block }, i32t(), S);
    let range = f.append_value(b, OpKind::MakeRange { start: 0, end: 128 }, t_i32.clone(), S);
    let start_t = f.append_value(b, OpKind::Splat(start), t_i32.clone(), S);
    let offs = f.append_value(b, OpKind::Binary { op: BinaryOp::Add, lhs: start_t, rhs: range }, t_i32.clone(), S);
    let n_t = f.append_value(b, OpKind::Splat(n), t_i32.clone(), S);
    let mask = f.append_value(b, OpKind::Cmp { pred: CmpPred::Lt, lhs: offs, rhs: n_t }, t_i1, S);
    let load = |f: &mut Function, base: Value| {
        let base_t = f.append_value(b, OpKind::Splat(base), t_ptr.clone(), S);
        let p = f.append_value(b, OpKind::AddPtr { ptr: base_t, offset: offs }, t_ptr.clone(), S);
        (p, f.append_value(b, OpKind::Load { ptr: p, mask: Some(mask), other: None }, t_f32.clone(), S))
    };
    let (_, xv) = load(&mut f, x);
    let (_, yv) = load(&mut f, y);
    let sum = f.append_value(b, OpKind::Binary { op: BinaryOp::Add, lhs: xv, rhs: yv }, t_f32.clone(), S);
    let out_t = f.append_value(b, OpKind::Splat(out), t_ptr.clone(), S);
    let out_p = f.append_value(b, OpKind::AddPtr { ptr: out_t, offset: offs }, t_ptr.clone(), S);
    f.append_op(b, OpKind::Store { ptr: out_p, value: sum, mask: Some(mask) }, vec![], S);
    f
}

/// A row sum over a `scf.for` with an iter-arg, an `scf.if` with a result, an `scf.while`,
/// and a few ops with attributes.
pub fn control_flow() -> Function {
    let mut f = Function::new("loops", vec![param("n", i32t(), 1), param("p", Type::ptr(ScalarType::F16), 16)], S);
    let b = f.body;
    let n = f.param_values()[0];
    let p = f.param_values()[1];
    let t16 = Type::tensor(Elem::Scalar(ScalarType::F32), vec![16]);
    let zero = f.append_value(b, OpKind::Constant(Constant::Float(0.0)), t16.clone(), S);
    let lb = f.append_value(b, OpKind::Constant(Constant::Int(0)), i32t(), S);
    let one = f.append_value(b, OpKind::Constant(Constant::Int(1)), i32t(), S);
    let body = f.new_region();
    let k = f.add_region_param(body, i32t(), Some("k".into()));
    let acc = f.add_region_param(body, t16.clone(), Some("acc".into()));
    let kf = f.append_value(body, OpKind::Cast { op: CastOp::IntToFloat, value: k }, Type::scalar(ScalarType::F32), S);
    let kt = f.append_value(body, OpKind::Splat(kf), t16.clone(), S);
    let next = f.append_value(body, OpKind::Binary { op: BinaryOp::Add, lhs: acc, rhs: kt }, t16.clone(), S);
    f.append_op(body, OpKind::Yield(vec![next]), vec![], S);
    let for_op =
        f.append_op(b, OpKind::For { lower: lb, upper: n, step: one, init: vec![zero], body }, vec![t16.clone()], S);
    let acc_final = f.ops[for_op].results[0];
    let total = f.append_value(
        b,
        OpKind::Reduce { kind: ReduceKind::Sum, value: acc_final, axis: 0 },
        Type::scalar(ScalarType::F32),
        S,
    );
    let big = f.append_value(b, OpKind::Constant(Constant::Float(1e-7)), Type::scalar(ScalarType::F32), S);
    let cond =
        f.append_value(b, OpKind::Cmp { pred: CmpPred::Ne, lhs: total, rhs: big }, Type::scalar(ScalarType::I1), S);
    let then_r = f.new_region();
    f.append_op(then_r, OpKind::Yield(vec![total]), vec![], S);
    let else_r = f.new_region();
    f.append_op(else_r, OpKind::Yield(vec![big]), vec![], S);
    let if_op = f.append_op(
        b,
        OpKind::If { cond, then_region: then_r, else_region: else_r },
        vec![Type::scalar(ScalarType::F32)],
        S,
    );
    let chosen = f.ops[if_op].results[0];
    let half =
        f.append_value(b, OpKind::Cast { op: CastOp::FloatTrunc, value: chosen }, Type::scalar(ScalarType::F16), S);
    f.append_op(b, OpKind::Store { ptr: p, value: half, mask: None }, vec![], S);
    let before = f.new_region();
    let i = f.add_region_param(before, i32t(), None);
    let go = f.append_value(before, OpKind::Cmp { pred: CmpPred::Lt, lhs: i, rhs: n }, Type::scalar(ScalarType::I1), S);
    f.append_op(before, OpKind::Condition { cond: go, args: vec![i] }, vec![], S);
    let after = f.new_region();
    let j = f.add_region_param(after, i32t(), None);
    let j2 = f.append_value(after, OpKind::Binary { op: BinaryOp::Add, lhs: j, rhs: one }, i32t(), S);
    f.append_op(after, OpKind::Yield(vec![j2]), vec![], S);
    f.append_op(b, OpKind::While { init: vec![lb], before, after }, vec![i32t()], S);
    f
}
