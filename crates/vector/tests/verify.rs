//! The Vector IR verifier: lowered kernels pass, hand-built broken functions are rejected
//! with the code and the exact message of what is wrong.

use cranelift_entity::PrimaryMap;
use tilec_diagnostics::Span;
use tilec_vector::*;

const F32: Elem = Elem::Scalar(ScalarType::F32);
const I32: Elem = Elem::Scalar(ScalarType::I32);
const I64: Elem = Elem::Scalar(ScalarType::I64);
const BOOL: Elem = Elem::Scalar(ScalarType::I1);
const PF32: Elem = Elem::Ptr(ScalarType::F32);

/// A kernel `k(%0 p: ptr<fp32>, %1 n: i32)` with one scratch buffer `$0: fp32[8]`, built
/// statement by statement.
struct Kernel {
    f: Function,
    p: Var,
    n: Var,
    buf: Buf,
}

impl Kernel {
    fn new() -> Kernel {
        let mut f = Function {
            name: "k".into(),
            params: Vec::new(),
            vars: PrimaryMap::new(),
            bufs: PrimaryMap::new(),
            body: Vec::new(),
        };
        let p = f.new_var(PF32, Some("p".into()));
        let n = f.new_var(I32, Some("n".into()));
        f.params = vec![
            Param { name: "p".into(), var: p, divisibility: 1 },
            Param { name: "n".into(), var: n, divisibility: 1 },
        ];
        let buf = f.new_buf(F32, 8);
        Kernel { f, p, n, buf }
    }

    fn var(&mut self, ty: Elem) -> Var {
        self.f.new_var(ty, None)
    }

    /// A fresh variable assigned `expr` (span 10..20).
    fn assign(block: &mut Block, dst: Var, expr: Expr) -> Var {
        block.push(Stmt::Assign { dst, expr, span: Span::new(10, 20) });
        dst
    }

    fn def(&mut self, block: &mut Block, ty: Elem, expr: Expr) -> Var {
        let v = self.var(ty);
        Self::assign(block, v, expr)
    }

    /// `nest [8] (i) { body(i) }` appended to the kernel body.
    fn nest(&mut self, body: impl FnOnce(&mut Kernel, Var, &mut Block)) {
        let i = self.var(I64);
        let mut block = Vec::new();
        body(self, i, &mut block);
        self.f.body.push(Stmt::Nest(Nest { shape: vec![8], indices: vec![i], body: block }));
    }

    /// `x = p[i]` in a nest body: an index, an address and a load.
    fn load_elem(&mut self, block: &mut Block) -> Var {
        let idx = self.def(block, I32, Expr::Index(Affine { offset: 0, strides: vec![1] }));
        let ptr = self.def(block, PF32, Expr::AddPtr { ptr: self.p, offset: idx });
        self.def(block, F32, Expr::Load { ptr, mask: None, other: None })
    }
}

fn at(i: i64) -> Affine {
    Affine { offset: 0, strides: vec![i] }
}

/// Verifies `f` and checks the first diagnostic's code and message.
fn check_error(f: &Function, code: &str, message: &str) {
    let errors = verify(f).expect_err(&format!("the verifier accepted:\n{}", print_function(f)));
    let first = &errors[0];
    assert_eq!((first.code.to_string().as_str(), first.message.as_str()), (code, message), "\n{}", print_function(f));
}

#[test]
fn a_well_formed_kernel_passes() {
    let mut k = Kernel::new();
    // Sum of p[0..8] into $1[0], then p[i] = p[i] * sum, and a loop with a carried count.
    let acc = k.f.new_buf(F32, 1);
    let mut body = Vec::new();
    let zero = k.def(&mut body, F32, Expr::Const(Constant::Float(0.0)));
    body.push(Stmt::StoreScratch { buf: acc, index: Affine::constant(0), value: zero });
    k.f.body = body;
    k.nest(|k, _, b| {
        let x = k.load_elem(b);
        b.push(Stmt::Accumulate { buf: acc, index: at(0), op: AccOp::Sum, value: x });
        b.push(Stmt::StoreScratch { buf: k.buf, index: at(1), value: x });
    });
    let mut tail = Vec::new();
    let sum = k.def(&mut tail, F32, Expr::LoadScratch { buf: acc, index: Affine::constant(0) });
    k.f.body.append(&mut tail);
    k.nest(|k, _, b| {
        let x = k.def(b, F32, Expr::LoadScratch { buf: k.buf, index: at(1) });
        let y = k.def(b, F32, Expr::Binary(BinaryOp::Mul, x, sum));
        b.push(Stmt::StoreScratch { buf: k.buf, index: at(1), value: y });
    });
    let mut tail = Vec::new();
    let (iv, count) = (k.var(I32), k.var(I32));
    let one = k.def(&mut tail, I32, Expr::Const(Constant::Int(1)));
    Kernel::assign(&mut tail, count, Expr::Const(Constant::Int(0)));
    let mut loop_body = Vec::new();
    let next = k.def(&mut loop_body, I32, Expr::Binary(BinaryOp::Add, count, one));
    Kernel::assign(&mut loop_body, count, Expr::Copy(next));
    tail.push(Stmt::For { iv, lower: one, upper: k.n, step: one, body: loop_body });
    let positive = k.def(&mut tail, BOOL, Expr::Cmp(CmpPred::Gt, count, one));
    let (then_block, else_block) = (vec![], vec![]);
    tail.push(Stmt::If { cond: positive, then_block, else_block });
    k.f.body.append(&mut tail);
    verify(&k.f).unwrap_or_else(|e| panic!("{}\n{}", e[0], print_function(&k.f)));
}

/// A reversed max-scan of `p[0..16]` stored back, and the argmax of the scan stored to
/// `q`: accumulators, a flipped scratch position, loads and stores.
const SCAN_KERNEL: &str = "\
tt.func @k(%p: !tt.ptr<f32> {tt.divisibility = 16}, %q: !tt.ptr<i32>) {
  %0 = tt.make_range {start = 0, end = 16} : tensor<16xi32>
  %1 = tt.splat %p : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %2 = tt.addptr %1, %0 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %3 = tt.load %2 : tensor<16x!tt.ptr<f32>>
  %4 = tt.scan max %3 {axis = 0, reverse = true} : tensor<16xf32>
  tt.store %2, %4 : tensor<16x!tt.ptr<f32>>
  %5, %6 = tt.reduce argmax %4 {axis = 0} : tensor<16xf32> -> (f32, i32)
  tt.store %q, %6 : !tt.ptr<i32>
  tt.return
}
";

fn lowered_scan_kernel() -> Function {
    let f = tilec_ir::parse_function(SCAN_KERNEL).unwrap_or_else(|d| panic!("{d}"));
    lower(&f).expect("lowers")
}

#[test]
fn lowered_tile_ir_passes() {
    let lowered = lowered_scan_kernel();
    verify(&lowered).unwrap_or_else(|e| panic!("{}\n{}", e[0], print_function(&lowered)));
}

// ----- scopes ------------------------------------------------------------------------

#[test]
fn a_variable_read_before_any_assignment() {
    let mut k = Kernel::new();
    let (x, y) = (k.var(I32), k.var(I32));
    Kernel::assign(&mut k.f.body, y, Expr::Copy(x));
    check_error(&k.f, "E0521", "`%3: i32 = copy %2`: %2 is read but never assigned");
}

#[test]
fn a_nest_temporary_read_after_the_nest() {
    let mut k = Kernel::new();
    let mut x = None;
    k.nest(|k, _, b| x = Some(k.load_elem(b)));
    let y = k.var(F32);
    Kernel::assign(&mut k.f.body, y, Expr::Copy(x.unwrap()));
    check_error(
        &k.f,
        "E0521",
        "`%6: fp32 = copy %5`: %5 is a temporary of another nest (values leave a nest only through memory)",
    );
}

#[test]
fn a_nest_index_read_outside_its_nest() {
    let mut k = Kernel::new();
    let mut index = None;
    k.nest(|k, i, b| {
        index = Some(i);
        k.load_elem(b);
    });
    let y = k.var(I64);
    Kernel::assign(&mut k.f.body, y, Expr::Copy(index.unwrap()));
    check_error(&k.f, "E0521", "`%6: i64 = copy %2`: %2 is the index of another nest (nest 0)");
}

#[test]
fn a_variable_assigned_in_one_branch_only() {
    let mut k = Kernel::new();
    let mut body = Vec::new();
    let c = k.def(&mut body, BOOL, Expr::Const(Constant::Bool(true)));
    let x = k.var(I32);
    let then_block = vec![Stmt::Assign { dst: x, expr: Expr::Const(Constant::Int(1)), span: Span::DUMMY }];
    body.push(Stmt::If { cond: c, then_block, else_block: vec![] });
    let y = k.def(&mut body, I32, Expr::Copy(x));
    let _ = y;
    k.f.body = body;
    check_error(&k.f, "E0521", "`%4: i32 = copy %3`: %3 is read where it is not assigned on every path");
}

#[test]
fn a_variable_assigned_only_in_a_loop_body() {
    let mut k = Kernel::new();
    let mut body = Vec::new();
    let one = k.def(&mut body, I32, Expr::Const(Constant::Int(1)));
    let (iv, x) = (k.var(I32), k.var(I32));
    let loop_body = vec![Stmt::Assign { dst: x, expr: Expr::Copy(iv), span: Span::DUMMY }];
    body.push(Stmt::For { iv, lower: one, upper: k.n, step: one, body: loop_body });
    k.def(&mut body, I32, Expr::Copy(x));
    k.f.body = body;
    check_error(&k.f, "E0521", "`%5: i32 = copy %4`: %4 is read where it is not assigned on every path");
}

#[test]
fn a_while_condition_assigned_in_the_before_block_is_visible_after_the_loop() {
    let mut k = Kernel::new();
    let c = k.var(BOOL);
    let before = vec![Stmt::Assign { dst: c, expr: Expr::Const(Constant::Bool(false)), span: Span::DUMMY }];
    k.f.body.push(Stmt::While { before, cond: c, after: vec![] });
    let mut tail = Vec::new();
    k.def(&mut tail, BOOL, Expr::Copy(c));
    k.f.body.append(&mut tail);
    verify(&k.f).unwrap_or_else(|e| panic!("{}", e[0]));
}

#[test]
fn a_nest_index_assigned() {
    let mut k = Kernel::new();
    k.nest(|_, i, b| {
        Kernel::assign(b, i, Expr::Const(Constant::Int(0)));
    });
    check_error(&k.f, "E0522", "`%2: i64 = const 0`: %2 is the index of this nest, which is read-only");
}

#[test]
fn an_outer_variable_assigned_in_a_nest() {
    let mut k = Kernel::new();
    let mut body = Vec::new();
    let x = k.def(&mut body, F32, Expr::Const(Constant::Float(1.0)));
    k.f.body = body;
    k.nest(|k, _, b| {
        let y = k.load_elem(b);
        Kernel::assign(b, x, Expr::Copy(y));
    });
    check_error(
        &k.f,
        "E0522",
        "`%2: fp32 = copy %6`: %2 is assigned in this nest and outside it (a nest's variables are its own temporaries)",
    );
}

#[test]
fn a_variable_assigned_twice_in_a_nest() {
    let mut k = Kernel::new();
    k.nest(|k, _, b| {
        let x = k.load_elem(b);
        Kernel::assign(b, x, Expr::Const(Constant::Float(2.0)));
    });
    check_error(&k.f, "E0522", "`%5: fp32 = const 2.0`: %5 is assigned twice in one nest");
}

// ----- types -------------------------------------------------------------------------

#[test]
fn binary_operands_of_two_types() {
    let mut k = Kernel::new();
    let mut body = Vec::new();
    let x = k.def(&mut body, F32, Expr::Const(Constant::Float(1.0)));
    k.def(&mut body, I32, Expr::Binary(BinaryOp::Add, k.n, x));
    k.f.body = body;
    check_error(
        &k.f,
        "E0523",
        "`%3: i32 = add %1, %2`: the right operand %2 has type fp32, but the left operand %1 is i32",
    );
}

#[test]
fn a_load_through_an_integer() {
    let mut k = Kernel::new();
    let n = k.n;
    let mut body = Vec::new();
    k.def(&mut body, F32, Expr::Load { ptr: n, mask: None, other: None });
    k.f.body = body;
    check_error(&k.f, "E0523", "`%2: fp32 = load.global %1`: the address %1 must be a pointer, found i32");
}

#[test]
fn a_load_of_the_wrong_element_type() {
    let mut k = Kernel::new();
    let p = k.p;
    let mut body = Vec::new();
    k.def(&mut body, I32, Expr::Load { ptr: p, mask: None, other: None });
    k.f.body = body;
    check_error(&k.f, "E0523", "`%2: i32 = load.global %0`: the result %2 has type i32, but the pointee of %0 is fp32");
}

#[test]
fn a_cast_the_kind_does_not_do() {
    let mut k = Kernel::new();
    let n = k.n;
    let mut body = Vec::new();
    k.def(&mut body, F32, Expr::Cast(CastOp::IntExt, n));
    k.f.body = body;
    check_error(&k.f, "E0523", "`%2: fp32 = ext %1`: cannot convert i32 to fp32 with this cast");
}

#[test]
fn a_mask_that_is_not_boolean() {
    let mut k = Kernel::new();
    let (p, n) = (k.p, k.n);
    let mut body = Vec::new();
    let x = k.def(&mut body, F32, Expr::Const(Constant::Float(0.0)));
    body.push(Stmt::Store { ptr: p, value: x, mask: Some(n), span: Span::new(3, 4) });
    k.f.body = body;
    check_error(&k.f, "E0523", "`store.global %0, %2 mask %1`: the mask %1 must be i1, found i32");
}

#[test]
fn a_constant_too_wide_for_its_type() {
    let mut k = Kernel::new();
    let mut body = Vec::new();
    k.def(&mut body, Elem::Scalar(ScalarType::I8), Expr::Const(Constant::Int(300)));
    k.f.body = body;
    check_error(&k.f, "E0530", "`%2: i8 = const 300`: the constant does not fit type i8");
}

// ----- positions -----------------------------------------------------------------------

#[test]
fn a_scratch_read_past_the_end() {
    let mut k = Kernel::new();
    k.nest(|k, _, b| {
        k.def(b, F32, Expr::LoadScratch { buf: k.buf, index: Affine { offset: 1, strides: vec![1] } });
    });
    check_error(&k.f, "E0524", "`%3: fp32 = load $0[%2 + 1]`: the position reaches elements 1 to 8 of $0, which has 8");
}

#[test]
fn a_reversed_scratch_read_before_the_start() {
    let mut k = Kernel::new();
    k.nest(|k, _, b| {
        k.def(b, F32, Expr::LoadScratch { buf: k.buf, index: Affine { offset: 6, strides: vec![-1] } });
    });
    check_error(
        &k.f,
        "E0524",
        "`%3: fp32 = load $0[-1*%2 + 6]`: the position reaches elements -1 to 6 of $0, which has 8",
    );
}

#[test]
fn a_position_with_too_many_strides() {
    let mut k = Kernel::new();
    k.nest(|k, _, b| {
        k.def(b, F32, Expr::LoadScratch { buf: k.buf, index: Affine { offset: 0, strides: vec![1, 0] } });
    });
    check_error(&k.f, "E0524", "`%3: fp32 = load $0[%2]`: the position has 2 strides, but the nest has 1 dims");
}

#[test]
fn a_varying_position_outside_a_nest() {
    let mut k = Kernel::new();
    let mut body = Vec::new();
    k.def(&mut body, F32, Expr::LoadScratch { buf: k.buf, index: at(1) });
    k.f.body = body;
    check_error(
        &k.f,
        "E0524",
        "`%2: fp32 = load $0[0]`: a position outside a nest must be a constant, found 1 strides",
    );
}

// ----- placement and nests -------------------------------------------------------------

#[test]
fn a_nest_inside_a_nest() {
    let mut k = Kernel::new();
    let inner_index = k.var(I64);
    k.nest(|_, _, b| {
        b.push(Stmt::Nest(Nest { shape: vec![2], indices: vec![inner_index], body: vec![] }));
    });
    check_error(&k.f, "E0525", "`nest [2] (%2) {`: a nest body holds only element statements");
}

#[test]
fn an_accumulation_outside_a_nest() {
    let mut k = Kernel::new();
    let mut body = Vec::new();
    let x = k.def(&mut body, F32, Expr::Const(Constant::Float(1.0)));
    body.push(Stmt::Accumulate { buf: k.buf, index: Affine::constant(0), op: AccOp::Sum, value: x });
    k.f.body = body;
    check_error(&k.f, "E0525", "`accumulate.sum $0[0], %2`: an accumulation outside a nest");
}

#[test]
fn a_combine_body_that_loads() {
    let mut k = Kernel::new();
    k.nest(|k, _, b| {
        let x = k.load_elem(b);
        let position = k.def(b, I32, Expr::Index(at(1)));
        let (acc, result) = (k.var(F32), k.var(F32));
        let p = k.p;
        let combine =
            vec![Stmt::Assign { dst: result, expr: Expr::Load { ptr: p, mask: None, other: None }, span: Span::DUMMY }];
        b.push(Stmt::AccumulateWith {
            bufs: vec![k.buf],
            index: at(0),
            values: vec![x],
            position,
            accs: vec![acc],
            body: combine,
            results: vec![result],
        });
    });
    check_error(
        &k.f,
        "E0525",
        "`%8: fp32 = load.global %0`: a combine body does not access memory (it also runs for the first element)",
    );
}

#[test]
fn a_nest_with_a_zero_sized_dim() {
    let mut k = Kernel::new();
    let i = k.var(I64);
    k.f.body.push(Stmt::Nest(Nest { shape: vec![0], indices: vec![i], body: vec![] }));
    check_error(&k.f, "E0526", "`nest [0] (%2) {`: a nest needs at least one dim, and no dim of size 0");
}

#[test]
fn a_nest_index_that_is_not_i64() {
    let mut k = Kernel::new();
    let i = k.var(I32);
    k.f.body.push(Stmt::Nest(Nest { shape: vec![4], indices: vec![i], body: vec![] }));
    check_error(&k.f, "E0526", "`nest [4] (%2) {`: index %2 must be an i64 variable, found i32");
}

// ----- dependences between iterations ------------------------------------------------------

#[test]
fn a_buffer_read_at_another_position_in_the_nest_that_stores_it() {
    let mut k = Kernel::new();
    k.nest(|k, _, b| {
        let x = k.def(b, F32, Expr::LoadScratch { buf: k.buf, index: Affine { offset: 7, strides: vec![-1] } });
        b.push(Stmt::StoreScratch { buf: k.buf, index: at(1), value: x });
    });
    check_error(
        &k.f,
        "E0527",
        "`store $0[%2], %3`: $0 is read in the nest that stores it, other than by an in-place update at the \
         nest's own position (`%3: fp32 = load $0[-1*%2 + 7]`)",
    );
}

#[test]
fn an_in_place_update_read_after_the_store() {
    let mut k = Kernel::new();
    k.nest(|k, _, b| {
        let x = k.load_elem(b);
        b.push(Stmt::StoreScratch { buf: k.buf, index: at(1), value: x });
        k.def(b, F32, Expr::LoadScratch { buf: k.buf, index: at(1) });
    });
    check_error(
        &k.f,
        "E0527",
        "`store $0[%2], %5`: $0 is read after the in-place update stored it (`%6: fp32 = load $0[%2]`)",
    );
}

#[test]
fn an_accumulator_read_before_its_update() {
    let mut k = Kernel::new();
    k.nest(|k, _, b| {
        let x = k.load_elem(b);
        k.def(b, F32, Expr::LoadScratch { buf: k.buf, index: at(0) });
        b.push(Stmt::Accumulate { buf: k.buf, index: at(0), op: AccOp::Sum, value: x });
    });
    check_error(&k.f, "E0527", "`accumulate.sum $0[0], %5`: $0 is read before it is updated (`%6: fp32 = load $0[0]`)");
}

#[test]
fn a_store_that_several_iterations_write() {
    let mut k = Kernel::new();
    k.nest(|k, _, b| {
        let x = k.load_elem(b);
        b.push(Stmt::StoreScratch { buf: k.buf, index: at(0), value: x });
    });
    check_error(
        &k.f,
        "E0527",
        "`store $0[0], %5`: the position is the same for several iterations, which race on the stored element",
    );
}

#[test]
fn a_global_load_after_a_global_store() {
    let mut k = Kernel::new();
    k.nest(|k, _, b| {
        let x = k.load_elem(b);
        let p = k.p;
        b.push(Stmt::Store { ptr: p, value: x, mask: None, span: Span::DUMMY });
        k.def(b, F32, Expr::Load { ptr: p, mask: None, other: None });
    });
    check_error(
        &k.f,
        "E0527",
        "`%6: fp32 = load.global %0`: a global load after `store.global %0, %5` in the same nest",
    );
}

// ----- dot and header ------------------------------------------------------------------

/// `c += a x b` over 2x`k` and `k`x2 scratch operands.
fn scratch_dot(a: Buf, b: Buf, c: Buf, k: u32, k_limit: Option<Var>) -> Stmt {
    Stmt::Dot(Dot { a: DotOperand::Scratch(a), b: DotOperand::Scratch(b), c, batch: 1, m: 2, n: 2, k, k_limit })
}

#[test]
fn a_dot_whose_operand_buffer_is_too_small() {
    let mut k = Kernel::new();
    let (a, c) = (k.f.new_buf(F32, 4), k.f.new_buf(F32, 4));
    k.f.body.push(scratch_dot(a, k.buf, c, 4, None));
    check_error(
        &k.f,
        "E0528",
        "`dot $2 += $1 x $0 [batch 1, m 2, n 2, k 4]`: operand a ($1) has 4 elements, fewer than 8",
    );
}

#[test]
fn a_dot_k_limit_with_scratch_operands() {
    let mut k = Kernel::new();
    let c = k.f.new_buf(F32, 4);
    k.f.body.push(scratch_dot(k.buf, k.buf, c, 2, Some(k.n)));
    check_error(
        &k.f,
        "E0528",
        "`dot $1 += $0 x $0 [batch 1, m 2, n 2, k 2, k < %1]`: a k limit needs both operands read from global memory",
    );
}

#[test]
fn a_dot_accumulating_into_its_operand() {
    let mut k = Kernel::new();
    let c = k.f.new_buf(F32, 4);
    k.f.body.push(scratch_dot(c, k.buf, c, 2, None));
    check_error(
        &k.f,
        "E0528",
        "`dot $1 += $1 x $0 [batch 1, m 2, n 2, k 2]`: the accumulator $1 is also operand a's buffer",
    );
}

#[test]
fn a_parameter_listed_twice() {
    let mut k = Kernel::new();
    let p = k.p;
    k.f.params.push(Param { name: "q".into(), var: p, divisibility: 1 });
    check_error(&k.f, "E0529", "`kernel k`: parameter `q` is %0, which is already a parameter");
}

#[test]
fn every_violation_is_reported_with_the_statement_span() {
    let mut k = Kernel::new();
    let (x, y) = (k.var(I32), k.var(I32));
    Kernel::assign(&mut k.f.body, y, Expr::Copy(x));
    let mut body = Vec::new();
    k.def(&mut body, F32, Expr::Cast(CastOp::IntExt, k.n));
    k.f.body.append(&mut body);
    let errors = verify(&k.f).expect_err("two violations");
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors.iter().all(|e| e.span == Some(Span::new(10, 20))), "{errors:?}");
}

/// Dangling variables and buffers anywhere are diagnosed, never a panic: every prefix of
/// the variable and buffer tables of a lowered kernel is checked.
#[test]
fn dangling_variables_and_buffers_never_panic() {
    let lowered = lowered_scan_kernel();
    let mut rejected = 0;
    for keep_vars in 0..lowered.vars.len() {
        for keep_bufs in [0, lowered.bufs.len() / 2, lowered.bufs.len()] {
            let mut broken = lowered.clone();
            broken.vars = lowered.vars.values().take(keep_vars).cloned().collect();
            broken.bufs = lowered.bufs.values().take(keep_bufs).cloned().collect();
            let errors = verify(&broken).expect_err("dangling references are rejected");
            assert!(errors.iter().all(|e| e.code.to_string().starts_with("E05")), "{errors:?}");
            rejected += 1;
        }
    }
    assert!(rejected > 30, "{rejected}");
}
