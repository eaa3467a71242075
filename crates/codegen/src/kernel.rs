//! Translation of one Vector IR function into the Cranelift IR of the kernel function.
//!
//! Every Vector IR variable written more than once is a Cranelift `Variable` (the frontend
//! builds SSA for it); one written once is held as the value written; every scratch buffer
//! is an explicit stack slot; nests become counted loops (bottom-tested: a nest's dims are
//! static and at least 1). Register types: `i1` is an `i8` holding 0 or 1; fp16/bf16 are
//! held as `f32`, rounded back to their precision after every operation and converted at
//! memory and ABI boundaries ([`crate::float16`]).

use rustc_hash::{FxHashMap, FxHashSet};

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, AtomicRmwOp, FuncRef, Inst, InstBuilder, MemFlagsData, Signature, StackSlot, StackSlotData,
    StackSlotKind, TrapCode, Type, Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use cranelift_module::{FuncOrDataId, Linkage, Module};
use cranelift_object::ObjectModule;
use tilec_diagnostics::Diagnostic;
use tilec_vector::*;

use crate::{float16, opaque, scratch};
use tilec_diagnostics::codes::codegen as codes;

mod dot;
mod erf;
mod flat;
mod max_num;
pub mod outline;
mod poly;

/// The register type holding an element.
/// The integer type of an element's bits in memory (`i16` for fp16/bf16, which registers
/// hold as f32).
fn memory_int_type(elem: Elem) -> Type {
    match elem {
        Elem::Scalar(s) if s.is_half() => types::I16,
        _ => types::Type::int(reg_type(elem).bits() as u16).expect("an integer type of this width"),
    }
}

pub fn reg_type(elem: Elem) -> Type {
    match elem {
        Elem::Ptr(_) => types::I64,
        Elem::Scalar(s) => match s {
            ScalarType::I1 | ScalarType::I8 | ScalarType::U8 => types::I8,
            // fp8 values are moved as their bits; the front end converts them with integer ops.
            ScalarType::F8E4NV | ScalarType::F8E5 | ScalarType::F8E4B15 | ScalarType::F8E4B8 | ScalarType::F8E5B16 => {
                types::I8
            }
            ScalarType::I16 | ScalarType::U16 => types::I16,
            ScalarType::I32 | ScalarType::U32 => types::I32,
            ScalarType::I64 | ScalarType::U64 => types::I64,
            ScalarType::F16 | ScalarType::BF16 | ScalarType::F32 => types::F32,
            ScalarType::F64 => types::F64,
        },
    }
}

/// The ABI type of a kernel parameter (fp16/bf16 scalars travel as their 16 bits).
pub fn abi_param(elem: Elem) -> AbiParam {
    match elem {
        Elem::Scalar(ScalarType::F16 | ScalarType::BF16) => AbiParam::new(types::I16).uext(),
        Elem::Scalar(s) if s.is_signed_int() => AbiParam::new(reg_type(elem)).sext(),
        Elem::Scalar(s) if s.is_int() => AbiParam::new(reg_type(elem)).uext(),
        _ => AbiParam::new(reg_type(elem)),
    }
}

/// The kernel's signature: runtime params, then pid x/y/z (i32), grid x/y/z (u32), and when
/// `checked` the address of the bounds table (see [`crate::bounds`]).
pub fn kernel_signature(f: &Function, module: &ObjectModule, checked: bool) -> Signature {
    let mut sig = module.make_signature();
    for p in &f.params {
        sig.params.push(abi_param(f.ty(p.var)));
    }
    for _ in 0..3 {
        sig.params.push(AbiParam::new(types::I32).sext());
    }
    for _ in 0..3 {
        sig.params.push(AbiParam::new(types::I32).uext());
    }
    if checked {
        sig.params.push(AbiParam::new(types::I64));
    }
    sig
}

fn is_signed(elem: Elem) -> bool {
    matches!(elem, Elem::Scalar(s) if s.is_signed_int())
}

fn scalar(elem: Elem) -> ScalarType {
    match elem {
        Elem::Scalar(s) => s,
        Elem::Ptr(_) => ScalarType::U64,
    }
}

fn err(message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(codes::CODEGEN, message.into())
}

/// The program instance a kernel body runs as: pid x/y/z (`i32`), grid x/y/z (`i32`
/// holding the `u32` sizes), and the address of the bounds table when accesses are checked.
#[derive(Clone, Copy, Debug)]
pub struct Program {
    pub pids: [Value; 3],
    pub grids: [Value; 3],
    pub bounds: Option<Value>,
}

/// What a translation defined besides the function's body.
pub struct Translated {
    /// Name and code of each RVV leaf function (its listing is printed only when asked for).
    pub leaves: Vec<(String, tilec_rvv::Code)>,
    /// The checked accesses, by site number (empty without checks).
    pub sites: Vec<crate::bounds::Site>,
    /// What became of each nest and dot, in translation order (empty unless vector).
    pub nests: Vec<crate::NestReport>,
    /// The instructions to give [`drop_unread`] once the function is sealed.
    pub narrowing: Vec<Inst>,
}

/// Removes from `func`'s layout each of the pure instructions `made` whose results no
/// instruction reads, counting the reads of those removed before it. `made` is in the order
/// the instructions were made, so an instruction comes after those whose results it reads.
/// Call it once every block is sealed (every read of a variable is then an argument); it
/// walks the function's instructions once when `made` is not empty.
pub fn drop_unread(func: &mut cranelift_codegen::ir::Function, made: &[Inst]) {
    use cranelift_codegen::entity::EntityRef;
    if made.is_empty() {
        return;
    }
    let cranelift_codegen::ir::function::FunctionStencil { dfg, layout, .. } = &mut func.stencil;
    let mut reads = vec![0u32; dfg.num_values()];
    let mut read = |v: Value| reads[dfg.resolve_aliases(v).index()] += 1;
    for block in layout.blocks() {
        for inst in layout.block_insts(block) {
            dfg.inst_args(inst).iter().for_each(|&v| read(v));
        }
        // A block's only branch is its last instruction.
        let last = layout.last_inst(block).expect("a finished block ends in a branch");
        for call in dfg.insts[last].branch_destination(&dfg.jump_tables, &dfg.exception_tables) {
            call.args(&dfg.value_lists).filter_map(|arg| arg.as_value()).for_each(&mut read);
        }
    }
    for &inst in made.iter().rev() {
        if dfg.inst_results(inst).iter().all(|r| reads[r.index()] == 0) {
            for &arg in dfg.inst_args(inst) {
                reads[dfg.resolve_aliases(arg).index()] -= 1;
            }
            layout.remove_inst(inst);
        }
    }
}

pub struct Translator<'a, 'b> {
    f: &'a Function,
    b: FunctionBuilder<'b>,
    module: &'a mut ObjectModule,
    vars: FxHashMap<Var, Variable>,
    /// The values of the variables written once ([`VarFacts::single`]) written so far.
    fixed: FxHashMap<Var, Value>,
    /// Where each scratch buffer the function uses lives.
    bufs: FxHashMap<Buf, BufHome>,
    pids: [Value; 3],
    grids: [Value; 3],
    imports: FxHashMap<String, FuncRef>,
    /// Emit RVV leaf functions, with these extensions, for the nests
    /// [`crate::rvv::compile_nest`] accepts (`None`: scalar code only).
    vector: Option<crate::VectorExtensions>,
    /// What the functions of one kernel share (an outlined statement's translator holds it
    /// while it runs).
    kernel: KernelState,
    /// The array extents every global access is checked against, when checked.
    bounds: Option<crate::bounds::Extents>,
    /// The span of the statement being translated (none inside a dot).
    span: Option<tilec_diagnostics::Span>,
    /// Inside the flat range of a nest: its walks, known mask and row registers.
    flat: Option<flat::Flat>,
    /// How many `for`/`while` bodies the statement being translated is in.
    loop_depth: u32,
    /// Whether some loop of the function holds a dot: no nest of the function is then
    /// unrolled (see `flat::unroll_factor`). The nests outside every loop run once per
    /// program, against a whole dot per iteration inside; the nests inside the loops run
    /// beside the dots, which do most of the work, while their copies are most of what
    /// the register allocator works on (attention backward on riscv64gc: a third of the
    /// compile for 15% more instructions run, still a fifth of clang's). A loop of
    /// elementwise nests alone does about as much work per iteration as a nest outside it,
    /// which may be all the loop's trip count.
    loops_hold_dots: bool,
    /// Set while translating the assignment of an unrounded variable: the final
    /// rounding of its expression is left to the store.
    defer_round: bool,
    /// For 32-bit integers computed by wrapping arithmetic (and the high halves of
    /// products): an `i64` whose low 32 bits are the value (its upper bits arbitrary).
    /// Chains of such operations run on these, so an operation that needs a 32-bit value in
    /// a 64-bit register (the multiply-high of [`Self::mul_high_32`]) needs no extension.
    wide: FxHashMap<Value, Value>,
    /// The pure instructions made for the 32-bit values of [`Self::wide`] forms, in the
    /// order they were made; most are never read, and [`drop_unread`] removes those before
    /// Cranelift sees the function.
    narrowing: Vec<Inst>,
    /// The 64-bit extension of a 32-bit value, by value and signedness, for the operands
    /// of [`Self::wide`] operations ([`Self::extended_once`]).
    extensions: FxHashMap<(Value, bool), Value>,
    /// The function's constants kept in registers across loops, each built once.
    held: opaque::Held,
    /// The scratch buffers held in variables ([`register_bufs`]): a nest that reads or
    /// writes one in memory finds its value stored before it and leaves the value it
    /// stored read back after it.
    registers: FxHashMap<Buf, Variable>,
}

/// What every function translated for one kernel adds to or reads: a translator holds it
/// while it translates, and hands it to the translator of an outlined statement for as long
/// as that one runs.
#[derive(Default)]
struct KernelState {
    /// The distinct leaf functions called so far, in order of first call.
    leaves: Vec<DefinedLeaf>,
    /// The checked accesses so far, numbered in translation order.
    sites: Vec<crate::bounds::Site>,
    /// What became of the nests and dots translated so far (vector only).
    nests: Vec<crate::NestReport>,
    /// The fp16/bf16 variables whose register holds their value before its rounding to the
    /// half type ([`VarFacts::unrounded`]); every other half register holds a rounded value.
    /// And the variables that hold a constant.
    facts: VarFacts,
    /// The function's constants as the stride analysis reads them, computed at the first
    /// nest planned (one walk of the function for all its nests).
    constants: Option<tilec_vector::stride::Constants>,
    /// The range each pointer variable comes from ([`crate::bounds::own_ranges`]), computed
    /// at the first checked nest.
    own_ranges: Option<FxHashMap<Var, usize>>,
    /// Where the outlined statements go once translated.
    outlined: outline::Sink,
}

/// Where a scratch buffer lives in the function being built.
#[derive(Clone, Copy)]
enum BufHome {
    /// A stack slot of its frame.
    Slot(StackSlot),
    /// The caller's memory, at an address the function takes as a parameter (an outlined
    /// statement's buffers that other statements use too).
    Param(Value),
}

/// Moves `pos` right after the definition of `v` (to the top of its block for a block
/// parameter), where a value computed from `v` dominates every use of `v`.
fn goto_after_definition(pos: &mut cranelift_codegen::cursor::FuncCursor, v: Value) {
    use cranelift_codegen::cursor::Cursor;
    match pos.func.dfg.value_def(v) {
        cranelift_codegen::ir::ValueDef::Result(inst, _) => pos.goto_after_inst(inst),
        cranelift_codegen::ir::ValueDef::Param(block, _) => pos.goto_first_insertion_point(block),
        cranelift_codegen::ir::ValueDef::Union(..) => unreachable!("unions are made by Cranelift's mid-end only"),
    }
}

/// What the translation knows of variables before translating their uses.
#[derive(Default)]
struct VarFacts {
    /// The fp16/bf16 variables assigned once and read only as the value of global stores.
    /// The store rounds to the half type itself, with the same result for a value as for
    /// the value rounded (rounding to nearest is idempotent), so their assignments skip the
    /// rounding.
    unrounded: FxHashSet<Var>,
    /// The variables assigned once, by a constant, and their constants.
    constants: FxHashMap<Var, Constant>,
    /// The fp32 variables assigned once, by +0.0.
    float_zeros: FxHashSet<Var>,
    /// Selects `r = x < 0 ? -x - 1 : x` (or `~x`) of a signed integer `x`, all assigned
    /// once, mapped to `x`: `r` is `x ^ (x >> (bits - 1))`, two instructions where the
    /// compare, negation and branch take five (Triton's `uint_to_uniform_float` folds the
    /// random word so).
    sign_folds: FxHashMap<Var, Var>,
    /// Bitwise operations regrouped so that their loop-invariant operands combine outside
    /// the loop ([`Reassociated`]).
    reassociated: FxHashMap<Var, Reassociated>,
    /// The variables written once: the parameters the body does not assign, and those the
    /// body assigns once, outside every nest (so the assignment is translated once), and
    /// that nothing else writes. Every read of one comes after its write on every path
    /// (definite assignment), so the write's value dominates the reads: the translator holds
    /// it as that value ([`Translator::fixed`]), not as a Cranelift variable, which would
    /// pass it through every loop header on the way to a read as a block parameter.
    single: FxHashSet<Var>,
    /// Integer variables with low bits known to be zero, and how many: parameters by their
    /// divisibility (the signature's `:16`), `for` counters by their start and step, and
    /// variables assigned once through constants, sums, products, shifts by a constant and
    /// integer casts (each value such a variable takes has them, in a nest too).
    low_zeros: FxHashMap<Var, u32>,
}

fn var_facts(f: &Function) -> VarFacts {
    /// What one pass over the function records of each variable.
    #[derive(Default)]
    struct Walk<'a> {
        /// Assignments (counted) and whether the last was of a constant.
        assigned: FxHashMap<Var, (u32, bool)>,
        /// Variables read otherwise than as the value of a store of their own type.
        other_reads: FxHashSet<Var>,
        /// The (last) expression assigned to each variable.
        exprs: FxHashMap<Var, &'a Expr>,
        /// The loop depth of each variable's (last) assignment.
        depths: FxHashMap<Var, u32>,
        /// Reads by assignments.
        reads: FxHashMap<Var, u32>,
        /// Variables written otherwise than by an assignment outside the nests.
        other_writes: FxHashSet<Var>,
        /// How many nests (and combine bodies) the statements being walked are in.
        nests: u32,
        /// The start and step of each `for` counter.
        counters: FxHashMap<Var, (Var, Var)>,
    }
    impl<'a> Walk<'a> {
        fn block(&mut self, f: &Function, block: &'a Block, depth: u32) {
            for s in block {
                match s {
                    Stmt::Assign { dst, expr, .. } => {
                        let entry = self.assigned.entry(*dst).or_default();
                        *entry = (entry.0 + 1, matches!(expr, Expr::Const(_)));
                        self.other_reads.extend(expr.operands());
                        for v in expr.operands() {
                            *self.reads.entry(v).or_default() += 1;
                        }
                        self.exprs.insert(*dst, expr);
                        self.depths.insert(*dst, depth);
                        if self.nests > 0 {
                            self.other_writes.insert(*dst);
                        }
                    }
                    Stmt::Store { ptr, value, mask, .. } => {
                        self.other_reads.extend([Some(*ptr), *mask].into_iter().flatten());
                        // A store to memory of another type converts the value otherwise.
                        if f.ty(*ptr).pointee() != Some(scalar(f.ty(*value))) {
                            self.other_reads.insert(*value);
                        }
                    }
                    Stmt::StoreScratch { value, .. } | Stmt::Accumulate { value, .. } => {
                        self.other_reads.insert(*value);
                    }
                    Stmt::AccumulateArg { value, position, .. } => self.other_reads.extend([*value, *position]),
                    Stmt::AccumulateWith { values, position, accs, body, results, .. } => {
                        self.other_reads.extend(values.iter().chain(results).copied().chain([*position]));
                        self.other_writes.extend(accs.iter().chain(results).copied());
                        self.nests += 1;
                        self.block(f, body, depth + 1);
                        self.nests -= 1;
                    }
                    Stmt::Assert { cond, .. } => {
                        self.other_reads.insert(*cond);
                    }
                    Stmt::Nest(nest) => {
                        self.other_writes.extend(nest.indices.iter().copied());
                        self.nests += 1;
                        self.block(f, &nest.body, depth + 1);
                        self.nests -= 1;
                    }
                    // A dot reads integers only (its limit and offsets).
                    Stmt::Dot(_) => {}
                    Stmt::For { iv, lower, upper, step, body } => {
                        self.assigned.entry(*iv).or_default().0 += 1;
                        self.counters.insert(*iv, (*lower, *step));
                        self.other_writes.insert(*iv);
                        self.depths.insert(*iv, depth + 1);
                        self.other_reads.extend([*lower, *upper, *step]);
                        self.block(f, body, depth + 1);
                    }
                    Stmt::If { cond, then_block, else_block } => {
                        self.other_reads.insert(*cond);
                        self.block(f, then_block, depth);
                        self.block(f, else_block, depth);
                    }
                    Stmt::While { before, cond, after } => {
                        self.other_reads.insert(*cond);
                        self.block(f, before, depth + 1);
                        self.block(f, after, depth + 1);
                    }
                }
            }
        }
    }
    let mut w = Walk::default();
    w.block(f, &f.body, 0);
    let once = || w.assigned.iter().filter(|(_, (n, _))| *n == 1);
    let def = |v: &Var| w.exprs.get(v).copied().filter(|_| w.assigned.get(v).is_some_and(|(n, _)| *n == 1));
    let int = |v: Var| match def(&v) {
        Some(Expr::Const(Constant::Int(c))) => Some(*c),
        _ => None,
    };
    let sign_folds = once()
        .filter_map(|(r, _)| tilec_vector::patterns::sign_fold(f, *r, |v| def(&v), int).map(|x| (*r, x)))
        .collect();
    // `r = (a op p) op q` with `p`, `q` assigned outside the loop assigning `r` and `a op p`
    // read only there.
    let depth = |v: &Var| w.depths.get(v).copied().unwrap_or(0);
    let outer = |v: &Var, r: &Var| depth(v) < depth(r) && w.assigned.get(v).is_none_or(|(n, _)| *n == 1);
    let reassociated = once()
        .filter_map(|(r, _)| {
            let Some(Expr::Binary(op @ (BinaryOp::Xor | BinaryOp::And | BinaryOp::Or), x, y)) = def(r) else {
                return None;
            };
            if !matches!(f.ty(*r), Elem::Scalar(s) if s.is_int() && !s.is_bool()) {
                return None;
            }
            [(x, y), (y, x)].into_iter().find_map(|(inner, q)| {
                let Some(Expr::Binary(inner_op, a, b)) = def(inner) else { return None };
                if inner_op != op || !outer(q, r) || depth(inner) != depth(r) || w.reads.get(inner) != Some(&1) {
                    return None;
                }
                [(a, b), (b, a)].into_iter().find_map(|(a, p)| {
                    (outer(p, r) && !outer(a, r)).then_some((*r, Reassociated { op: *op, a: *a, p: *p, q: *q }))
                })
            })
        })
        .collect();
    // A parameter the body assigns holds other values too.
    let params: FxHashMap<Var, u32> = f
        .params
        .iter()
        .filter(|p| !w.assigned.contains_key(&p.var))
        .map(|p| (p.var, p.divisibility.trailing_zeros()))
        .collect();
    let single =
        params.keys().copied().chain(once().map(|(v, _)| *v)).filter(|v| !w.other_writes.contains(v)).collect();
    let mut zeros = LowZeros { f, params, memo: FxHashMap::default() };
    let counter = |v: &Var| w.counters.get(v).copied().filter(|_| w.assigned.get(v).is_some_and(|(n, _)| *n == 1));
    let candidates: Vec<Var> = f.params.iter().map(|p| p.var).chain(w.assigned.keys().copied()).collect();
    let low_zeros = candidates.into_iter().map(|v| (v, zeros.of(v, &def, &counter))).filter(|&(_, z)| z > 0).collect();
    VarFacts {
        low_zeros,
        sign_folds,
        reassociated,
        single,
        unrounded: once()
            .filter(|(v, _)| !w.other_reads.contains(v) && matches!(f.ty(**v), Elem::Scalar(s) if s.is_half()))
            .map(|(v, _)| *v)
            .collect(),
        constants: once()
            .filter_map(|(v, _)| match def(v) {
                Some(Expr::Const(c)) => Some((*v, *c)),
                _ => None,
            })
            .collect(),
        float_zeros: once()
            .filter(|(v, _)| {
                f.ty(**v) == Elem::Scalar(ScalarType::F32)
                    && matches!(def(v), Some(Expr::Const(Constant::Float(x))) if x.to_bits() == 0)
            })
            .map(|(v, _)| *v)
            .collect(),
    }
}

/// The low zero bits of integer variables ([`VarFacts::low_zeros`]), memoized; a variable
/// met again while its own definition is being walked has none known.
struct LowZeros<'f> {
    f: &'f Function,
    /// The parameters the body does not assign, by their divisibility.
    params: FxHashMap<Var, u32>,
    memo: FxHashMap<Var, u32>,
}

impl LowZeros<'_> {
    fn of<'e>(
        &mut self,
        v: Var,
        def: &impl Fn(&Var) -> Option<&'e Expr>,
        counter: &impl Fn(&Var) -> Option<(Var, Var)>,
    ) -> u32 {
        let bits = match self.f.ty(v) {
            Elem::Scalar(s) if s.is_int() && !s.is_bool() => s.bits(),
            _ => return 0,
        };
        if let Some(&z) = self.memo.get(&v) {
            return z;
        }
        self.memo.insert(v, 0);
        let param = self.params.get(&v).copied();
        let mut of = |x: Var| self.of(x, def, counter);
        let zeros = if let Some(zeros) = param {
            zeros
        } else if let Some((start, step)) = counter(&v) {
            of(start).min(of(step))
        } else {
            match def(&v) {
                Some(Expr::Const(Constant::Int(c))) => c.trailing_zeros(),
                Some(Expr::Copy(x) | Expr::Unary(UnaryOp::Neg, x)) => of(*x),
                Some(Expr::Binary(BinaryOp::Add | BinaryOp::Sub, a, b)) => of(*a).min(of(*b)),
                Some(Expr::Binary(BinaryOp::Mul, a, b)) => of(*a) + of(*b),
                Some(Expr::Binary(BinaryOp::And, a, b)) => of(*a).max(of(*b)),
                Some(Expr::Binary(BinaryOp::Shl, a, b)) => match def(b) {
                    Some(Expr::Const(Constant::Int(k))) if (0..i64::from(bits)).contains(k) => of(*a) + *k as u32,
                    _ => 0,
                },
                Some(Expr::Cast(CastOp::IntExt | CastOp::IntTrunc | CastOp::IntRetype, x)) => of(*x),
                _ => 0,
            }
        };
        // Past the width every bit is zero: the width is what is known.
        let zeros = zeros.min(bits);
        self.memo.insert(v, zeros);
        zeros
    }
}

/// `r = (a op p) op q` translated as `a op (p op q)`, with `p op q` loop-invariant where
/// `a op p` was not: one loop-invariant register instead of two, one operation less in the
/// loop. `op` is a bitwise integer operation (associative and commutative).
#[derive(Clone, Copy)]
struct Reassociated {
    op: BinaryOp,
    a: Var,
    p: Var,
    q: Var,
}

/// A stack slot of `b`'s frame for each of `bufs`, in their order; each is smaller than
/// 2 GiB.
fn stack_slots(
    f: &Function,
    b: &mut FunctionBuilder,
    bufs: impl Iterator<Item = Buf>,
) -> Result<FxHashMap<Buf, BufHome>, Diagnostic> {
    let align_shift = scratch::ALIGN.trailing_zeros() as u8;
    bufs.map(|buf| {
        // Offsets into a buffer are then `i32` immediates.
        let size = i32::try_from(scratch::buffer_bytes(&f.bufs[buf]))
            .map_err(|_| err("a scratch buffer is too large"))? as u32;
        let data = StackSlotData::new(StackSlotKind::ExplicitSlot, size.max(1), align_shift);
        Ok((buf, BufHome::Slot(b.create_sized_stack_slot(data))))
    })
    .collect()
}

/// The one-element scratch buffers of an integer or float type that the statements outside
/// the nests only store to and load from (none is a dot's), in buffer order. On the vector
/// target the translator holds them in variables ([`Translator::registers`]): the RVV leaf
/// of a nest whose only accumulation reduces into one of them returns the result
/// ([`crate::rvv::Leaf::returns`]) rather than reading or writing it, so its initial value
/// and the result stay in registers.
fn register_bufs(f: &Function) -> Vec<Buf> {
    fn walk(block: &Block, excluded: &mut FxHashSet<Buf>) {
        for s in block {
            match s {
                Stmt::Nest(_) | Stmt::StoreScratch { .. } => {}
                Stmt::Assign { expr: Expr::LoadScratch { .. }, .. } => {}
                Stmt::For { body, .. } => walk(body, excluded),
                Stmt::If { then_block, else_block, .. } => {
                    walk(then_block, excluded);
                    walk(else_block, excluded);
                }
                Stmt::While { before, after, .. } => {
                    walk(before, excluded);
                    walk(after, excluded);
                }
                s => excluded.extend(outline::Uses::of(s).bufs),
            }
        }
    }
    let mut excluded = FxHashSet::default();
    walk(&f.body, &mut excluded);
    let register = |data: &BufData| {
        data.len == 1
            && matches!(data.elem, Elem::Scalar(s) if (s.is_int() && !s.is_bool()) || s.is_float())
            && reg_type(data.elem).bytes() == scratch::elem_bytes(data.elem)
    };
    f.bufs.iter().filter(|(buf, data)| register(data) && !excluded.contains(buf)).map(|(buf, _)| buf).collect()
}

/// Whether a `for`/`while` of `block` (or `block` itself, when `in_loop`) holds a dot.
fn loops_hold_dots(block: &[Stmt], in_loop: bool) -> bool {
    block.iter().any(|s| match s {
        Stmt::Dot(_) => in_loop,
        Stmt::For { body, .. } => loops_hold_dots(body, true),
        Stmt::While { before, after, .. } => loops_hold_dots(before, true) || loops_hold_dots(after, true),
        Stmt::If { then_block, else_block, .. } => {
            loops_hold_dots(then_block, in_loop) || loops_hold_dots(else_block, in_loop)
        }
        _ => false,
    })
}

/// A leaf function the translation defined (or found defined) in the module. Leaves with
/// the same code, external calls and signature compute the same thing: one is defined and
/// every call site calls it.
struct DefinedLeaf {
    name: String,
    code: tilec_rvv::Code,
    bytes: Vec<u8>,
    calls: Vec<crate::rvv::LeafCall>,
    sig: Signature,
}

impl<'a, 'b> Translator<'a, 'b> {
    /// Translates the body of `f` at the builder's current block, starting from `params`
    /// (the runtime params in their ABI form, see [`abi_param`]) and `program`; returns the
    /// builder positioned where the body falls through (no block is sealed or finalized) and
    /// the name and listing of each leaf function called. A leaf already defined in `module`
    /// under its name (by an earlier translation of the same `f`) is called, not redefined.
    /// The outlined statements' functions go to `outlined` as each is translated.
    pub fn translate_body(
        f: &'a Function,
        mut b: FunctionBuilder<'b>,
        module: &'a mut ObjectModule,
        vector: Option<crate::VectorExtensions>,
        params: &[Value],
        program: Program,
        outlined: outline::Sink,
    ) -> Result<(FunctionBuilder<'b>, Translated), Diagnostic> {
        let facts = var_facts(f);
        // The RVV leaves keep the vector target's functions small: there, outlining cost
        // more compile time than it saved (attention backward).
        let outlines = if vector.is_none() { outline::plan(f, &facts) } else { Default::default() };
        let frame = f.bufs.keys().filter(|buf| !outlines.values().any(|o| o.local.contains(buf)));
        let bufs = stack_slots(f, &mut b, frame)?;
        let mut t = Translator::new(f, b, module, vector, bufs, program);
        t.kernel.facts = facts;
        t.kernel.outlined = outlined;
        if vector.is_some() {
            for buf in register_bufs(f) {
                let var = t.b.declare_var(reg_type(f.bufs[buf].elem));
                t.registers.insert(buf, var);
            }
        }
        for (p, &value) in f.params.iter().zip(params) {
            let value = match f.ty(p.var) {
                Elem::Scalar(ScalarType::F16) => float16::f16_bits_to_f32(&mut t.b, value),
                Elem::Scalar(ScalarType::BF16) => float16::bf16_bits_to_f32(&mut t.b, value),
                _ => value,
            };
            t.set(p.var, value);
        }
        let mut i = 0;
        while i < f.body.len() {
            match outlines.get(&i) {
                Some(o) => {
                    t.outline(&f.body[i..i + o.len], o)?;
                    i += o.len;
                }
                None => {
                    t.stmt(&f.body[i], &[])?;
                    i += 1;
                }
            }
        }
        let leaves = t.kernel.leaves.into_iter().map(|l| (l.name, l.code)).collect();
        Ok((t.b, Translated { leaves, sites: t.kernel.sites, nests: t.kernel.nests, narrowing: t.narrowing }))
    }

    /// A translator of (part of) `f` into the function `b` builds, with nothing translated
    /// yet: `bufs` are where its scratch buffers live, `program` its program instance.
    fn new(
        f: &'a Function,
        mut b: FunctionBuilder<'b>,
        module: &'a mut ObjectModule,
        vector: Option<crate::VectorExtensions>,
        bufs: FxHashMap<Buf, BufHome>,
        program: Program,
    ) -> Self {
        let vars = f.vars.iter().map(|(var, data)| (var, b.declare_var(reg_type(data.ty)))).collect();
        let Program { pids, grids, bounds } = program;
        let bounds = bounds.map(|table| crate::bounds::Extents::load(f, &mut b, table));
        let held = opaque::Held::at(b.current_block().expect("translation starts in a block"));
        Translator {
            f,
            b,
            module,
            vars,
            fixed: FxHashMap::default(),
            bufs,
            pids,
            grids,
            imports: FxHashMap::default(),
            vector,
            kernel: KernelState::default(),
            bounds,
            span: None,
            flat: None,
            loop_depth: 0,
            loops_hold_dots: loops_hold_dots(&f.body, false),
            defer_round: false,
            wide: FxHashMap::default(),
            narrowing: Vec::new(),
            extensions: FxHashMap::default(),
            held,
            registers: FxHashMap::default(),
        }
    }

    /// Stores the values of the [`Self::registers`] buffers `bufs` into their memory and
    /// takes them out of `registers` (the code up to [`Self::registers_from_memory`] reads
    /// and writes them there); returns them with their variables.
    fn registers_to_memory(&mut self, bufs: &[Buf]) -> Vec<(Buf, Variable)> {
        let mut held = Vec::new();
        for &buf in bufs {
            let Some(var) = self.registers.remove(&buf) else { continue };
            let value = self.b.use_var(var);
            let addr = self.buf_addr(buf);
            self.b.ins().store(MemFlagsData::trusted(), value, addr, 0);
            held.push((buf, var));
        }
        held
    }

    /// Reads the buffers [`Self::registers_to_memory`] took out back into their variables.
    fn registers_from_memory(&mut self, held: Vec<(Buf, Variable)>) {
        for (buf, var) in held {
            let addr = self.buf_addr(buf);
            let value = self.b.ins().load(reg_type(self.f.bufs[buf].elem), MemFlagsData::trusted(), addr, 0);
            self.b.def_var(var, value);
            self.registers.insert(buf, var);
        }
    }

    /// The address of scratch buffer `buf`.
    fn buf_addr(&mut self, buf: Buf) -> Value {
        match self.bufs[&buf] {
            BufHome::Slot(slot) => self.b.ins().stack_addr(types::I64, slot, 0),
            BufHome::Param(address) => address,
        }
    }

    /// Calls `leaf` with its arguments, defining it first as a local function of the module
    /// unless an identical leaf is defined already ([`DefinedLeaf`]). Its external calls
    /// (`leaf.calls`) are relocated to imported symbols. With `returns`, the leaf returns a
    /// value of that type (its value results).
    fn call_leaf(
        &mut self,
        leaf: crate::rvv::Leaf,
        returns: Option<Type>,
    ) -> Result<(String, Option<Value>), Diagnostic> {
        let mut sig = self.module.make_signature();
        sig.returns.extend(returns.map(AbiParam::new));
        let mut args = Vec::new();
        for arg in &leaf.args {
            match *arg {
                crate::rvv::LeafArg::Var(v) => {
                    // Integers travel as 64 bits, sign- or zero-extended by their type. The
                    // extension is explicit IR (not the call's ABI extension) so that
                    // Cranelift hoists it out of loops when `v` is invariant.
                    let elem = self.ty(v);
                    let value = self.get(v);
                    let (param, value) = match elem {
                        Elem::Scalar(s) if s.is_float() => (AbiParam::new(reg_type(elem)), value),
                        Elem::Scalar(s) if reg_type(elem) == types::I32 => {
                            (AbiParam::new(types::I64), self.extended_once(value, s.is_signed_int()))
                        }
                        Elem::Scalar(s) => (
                            AbiParam::new(types::I64),
                            self.int_resize(value, reg_type(elem), s.is_signed_int(), types::I64),
                        ),
                        Elem::Ptr(_) => (AbiParam::new(types::I64), value),
                    };
                    sig.params.push(param);
                    args.push(value);
                }
                crate::rvv::LeafArg::Buf(buf) => {
                    sig.params.push(AbiParam::new(types::I64));
                    args.push(self.buf_addr(buf));
                }
                crate::rvv::LeafArg::Bounds => {
                    let table = self.bounds.as_ref().map(|b| b.table()).ok_or_else(|| err("an unchecked leaf call"))?;
                    sig.params.push(AbiParam::new(types::I64));
                    args.push(table);
                }
            }
        }
        let bytes = leaf.code.bytes();
        let same = |d: &&DefinedLeaf| d.bytes == bytes && d.calls == leaf.calls && d.sig == sig;
        let name = match self.kernel.leaves.iter().find(same) {
            Some(defined) => defined.name.clone(),
            None => {
                let name = format!("{}__rvv{}", self.f.name, self.kernel.leaves.len());
                let calls = leaf.calls.clone();
                self.kernel.leaves.push(DefinedLeaf {
                    name: name.clone(),
                    code: leaf.code.clone(),
                    bytes: bytes.clone(),
                    calls,
                    sig: sig.clone(),
                });
                name
            }
        };
        let leaf_err = |e: cranelift_module::ModuleError| err(format!("RVV leaf function `{name}`: {e}"));
        // Translation is deterministic: the n-th distinct leaf of a second translation of `f`
        // (the grid entry's copy of the body) is the n-th of the first.
        let id = match self.module.get_name(&name) {
            Some(FuncOrDataId::Func(id)) => id,
            _ => {
                let id = self.module.declare_function(&name, Linkage::Local, &sig).map_err(leaf_err)?;
                let relocs = self.leaf_relocs(&leaf).map_err(|e| err(format!("RVV leaf function `{name}`: {e}")))?;
                self.module.define_function_bytes(id, 4, &bytes, &relocs).map_err(leaf_err)?;
                id
            }
        };
        let func = self.module.declare_func_in_func(id, self.b.func);
        let call = self.b.ins().call(func, &args);
        let result = self.b.inst_results(call).first().copied();
        Ok((name, result))
    }

    /// Records what became of `nest`, with the first source span of its statements.
    fn report_nest(&mut self, nest: &tilec_vector::Nest, outcome: crate::NestOutcome) {
        let span = nest.body.iter().find_map(|s| match s {
            Stmt::Assign { span, .. } | Stmt::Store { span, .. } => Some(*span),
            _ => None,
        });
        let shape: Vec<String> = nest.shape.iter().map(u32::to_string).collect();
        self.kernel.nests.push(crate::NestReport { what: format!("nest [{}]", shape.join(", ")), span, outcome });
    }

    /// `R_RISCV_CALL_PLT` relocations of the leaf's external calls, to imported symbols.
    fn leaf_relocs(&mut self, leaf: &crate::rvv::Leaf) -> Result<Vec<cranelift_module::ModuleReloc>, String> {
        let mut relocs = Vec::new();
        for call in &leaf.calls {
            let sig = self.module.make_signature();
            let callee =
                self.module.declare_function(&call.symbol, Linkage::Import, &sig).map_err(|e| e.to_string())?;
            relocs.push(cranelift_module::ModuleReloc {
                offset: call.offset,
                kind: cranelift_codegen::binemit::Reloc::RiscvCallPlt,
                name: cranelift_module::ModuleRelocTarget::user(0, callee.as_u32()),
                addend: 0,
            });
        }
        Ok(relocs)
    }

    fn get(&mut self, v: Var) -> Value {
        match self.fixed.get(&v) {
            Some(&value) => value,
            None => self.b.use_var(self.vars[&v]),
        }
    }

    fn set(&mut self, v: Var, value: Value) {
        if self.kernel.facts.single.contains(&v) {
            self.fixed.insert(v, value);
        } else {
            self.b.def_var(self.vars[&v], value);
        }
    }

    fn ty(&self, v: Var) -> Elem {
        self.f.ty(v)
    }

    fn block(&mut self, block: &Block) -> Result<(), Diagnostic> {
        self.block_in(block, &[])
    }

    /// Statements with the index variables of the enclosing nest.
    fn block_in(&mut self, block: &Block, indices: &[Var]) -> Result<(), Diagnostic> {
        for stmt in block {
            self.stmt(stmt, indices)?;
        }
        Ok(())
    }

    // ----- addresses -----------------------------------------------------------------

    /// `offset + Σ stride·index`, summed in that order.
    fn affine(&mut self, a: &Affine, indices: &[Var]) -> Value {
        let mut sum = self.sum_from(a.offset);
        for (&stride, &index) in a.strides.iter().zip(indices) {
            if stride != 0 {
                let i = self.get(index);
                let term = self.scaled(i, stride);
                sum = self.plus(sum, term);
            }
        }
        self.sum_value(sum)
    }

    // An i64 sum built term by term without the `0 +` and `· 1` steps that Cranelift's
    // mid-end would only remove again: `None` is the empty sum.

    /// A sum starting at the constant `offset`.
    fn sum_from(&mut self, offset: i64) -> Option<Value> {
        (offset != 0).then(|| self.b.ins().iconst(types::I64, offset))
    }

    /// `x · k`.
    fn scaled(&mut self, x: Value, k: i64) -> Value {
        if k == 1 {
            x
        } else {
            self.b.ins().imul_imm_s(x, k)
        }
    }

    /// `sum + term`.
    fn plus(&mut self, sum: Option<Value>, term: Value) -> Option<Value> {
        Some(match sum {
            Some(sum) => self.b.ins().iadd(sum, term),
            None => term,
        })
    }

    /// The value of a sum.
    fn sum_value(&mut self, sum: Option<Value>) -> Value {
        sum.unwrap_or_else(|| self.b.ins().iconst(types::I64, 0))
    }

    fn scratch_addr(&mut self, buf: Buf, index: &Affine, indices: &[Var]) -> Value {
        if let Some(addr) = self.flat_scratch_addr(buf, index) {
            return addr;
        }
        let elem_bytes = scratch::elem_bytes(self.f.bufs[buf].elem) as i64;
        let pos = self.affine(index, indices);
        let offset = self.b.ins().imul_imm_s(pos, elem_bytes);
        let base = self.buf_addr(buf);
        self.b.ins().iadd(base, offset)
    }

    fn load_scratch(&mut self, buf: Buf, index: &Affine, indices: &[Var]) -> Value {
        let addr = self.scratch_addr(buf, index, indices);
        let ty = reg_type(self.f.bufs[buf].elem);
        self.b.ins().load(ty, MemFlagsData::trusted(), addr, 0)
    }

    fn store_scratch(&mut self, buf: Buf, index: &Affine, indices: &[Var], value: Value) {
        let addr = self.scratch_addr(buf, index, indices);
        self.b.ins().store(MemFlagsData::trusted(), value, addr, 0);
    }

    /// Loads an element of `pointee` from global memory into its register form.
    fn load_global(&mut self, pointee: ScalarType, addr: Value) -> Value {
        self.check_access(addr, pointee.bytes(), crate::bounds::Access::Read);
        let flags = MemFlagsData::new();
        match pointee {
            ScalarType::F16 => float16::load_f16(&mut self.b, &mut self.held, flags, addr),
            ScalarType::BF16 => {
                let bits = self.b.ins().load(types::I16, flags, addr, 0);
                float16::bf16_bits_to_f32(&mut self.b, bits)
            }
            _ => self.b.ins().load(reg_type(Elem::Scalar(pointee)), flags, addr, 0),
        }
    }

    fn store_global(&mut self, pointee: ScalarType, addr: Value, value: Value) {
        self.check_access(addr, pointee.bytes(), crate::bounds::Access::Write);
        let flags = MemFlagsData::new();
        let value = match pointee {
            ScalarType::F16 => return float16::store_f16(&mut self.b, &mut self.held, flags, value, addr),
            ScalarType::BF16 => float16::f32_to_bf16_bits(&mut self.b, value),
            _ => value,
        };
        self.b.ins().store(flags, value, addr, 0);
    }

    /// With checks on: stops the program unless `[addr, addr + bytes)` lies inside one of the
    /// arrays (a new site, numbered in translation order).
    fn check_access(&mut self, addr: Value, bytes: u32, access: crate::bounds::Access) {
        let Some(bounds) = &self.bounds else { return };
        let site = self.kernel.sites.len();
        self.kernel.sites.push(crate::bounds::Site { span: self.span, access });
        bounds.check(&mut self.b, addr, bytes, site);
    }

    /// Runs `then` only when `mask` (an i8 0/1) is set; its value (or `otherwise`) results.
    fn when(
        &mut self,
        mask: Option<Var>,
        ty: Option<Type>,
        then: impl FnOnce(&mut Self) -> Result<Option<Value>, Diagnostic>,
        otherwise: impl FnOnce(&mut Self) -> Option<Value>,
    ) -> Result<Option<Value>, Diagnostic> {
        let Some(mask) = mask else { return then(self) };
        match self.known_mask(mask) {
            Some(true) => return then(self),
            Some(false) => return Ok(otherwise(self)),
            None => {}
        }
        let m = self.get(mask);
        let on = self.b.create_block();
        let off = self.b.create_block();
        let merge = self.b.create_block();
        if let Some(ty) = ty {
            self.b.append_block_param(merge, ty);
        }
        self.b.ins().brif(m, on, &[], off, &[]);
        self.b.switch_to_block(on);
        let v = then(self)?;
        let args: Vec<_> = v.into_iter().map(Into::into).collect();
        self.b.ins().jump(merge, &args);
        self.b.switch_to_block(off);
        let v = otherwise(self);
        let args: Vec<_> = v.into_iter().map(Into::into).collect();
        self.b.ins().jump(merge, &args);
        self.b.switch_to_block(merge);
        Ok(self.b.block_params(merge).first().copied())
    }

    // ----- statements ----------------------------------------------------------------

    fn stmt(&mut self, stmt: &Stmt, indices: &[Var]) -> Result<(), Diagnostic> {
        if let Stmt::Dot(_) = stmt {
            self.span = None;
        }
        match stmt {
            Stmt::Assign { dst, expr, span } => {
                self.span = Some(*span);
                self.defer_round = self.kernel.facts.unrounded.contains(dst);
                let v = self.expr(*dst, expr, indices);
                self.defer_round = false;
                self.set(*dst, v?);
            }
            Stmt::Store { ptr, value, mask, span } => {
                self.span = Some(*span);
                let pointee = self.ty(*ptr).pointee().unwrap_or(scalar(self.ty(*value)));
                self.when(
                    *mask,
                    None,
                    |t| {
                        let (p, v) = (t.get(*ptr), t.get(*value));
                        t.store_global(pointee, p, v);
                        Ok(None)
                    },
                    |_| None,
                )?;
            }
            Stmt::StoreScratch { buf, value, .. } if self.registers.contains_key(buf) => {
                let v = self.get(*value);
                self.b.def_var(self.registers[buf], v);
            }
            Stmt::StoreScratch { buf, index, value } => {
                let v = self.get(*value);
                self.store_scratch(*buf, index, indices, v);
            }
            Stmt::Accumulate { buf, op, value, .. } if self.row_register(*buf).is_some() => {
                let acc = self.row_register(*buf).expect("a row register");
                let elem = self.f.bufs[*buf].elem;
                let (old, x) = (self.b.use_var(acc), self.get(*value));
                match op {
                    AccOp::Max | AccOp::Min if scalar(elem) == ScalarType::F32 || scalar(elem) == ScalarType::F64 => {
                        self.row_extremum(*op == AccOp::Max, acc, old, x)
                    }
                    _ => {
                        let new = self.accumulate(*op, elem, old, x);
                        self.b.def_var(acc, new);
                    }
                }
            }
            Stmt::Accumulate { buf, index, op, value } => {
                let elem = self.f.bufs[*buf].elem;
                let old = self.load_scratch(*buf, index, indices);
                let x = self.get(*value);
                let new = self.accumulate(*op, elem, old, x);
                self.store_scratch(*buf, index, indices, new);
            }
            Stmt::AccumulateArg { vals, idxs, kind, value, position, .. }
                if self.row_register(*vals).is_some() && self.row_register(*idxs).is_some() =>
            {
                let (vals_row, idxs_row) = (self.row_register(*vals), self.row_register(*idxs));
                let (vals_row, idxs_row) = (vals_row.expect("a row register"), idxs_row.expect("a row register"));
                let elem = self.f.bufs[*vals].elem;
                let old = self.b.use_var(vals_row);
                let x = self.get(*value);
                let better = self.arg_better(elem, *kind, x, old);
                // A new best is rare after the first elements: the update is a cold block.
                let update = self.b.create_block();
                self.b.set_cold_block(update);
                let merge = self.b.create_block();
                self.b.ins().brif(better, update, &[], merge, &[]);
                self.b.switch_to_block(update);
                let pos = self.get(*position);
                self.b.def_var(vals_row, x);
                self.b.def_var(idxs_row, pos);
                self.b.ins().jump(merge, &[]);
                self.b.switch_to_block(merge);
            }
            Stmt::AccumulateArg { vals, idxs, index, kind, value, position } => {
                let elem = self.f.bufs[*vals].elem;
                let old = self.load_scratch(*vals, index, indices);
                let old_idx = self.load_scratch(*idxs, index, indices);
                let x = self.get(*value);
                let better = self.arg_better(elem, *kind, x, old);
                let new = self.b.ins().select(better, x, old);
                let pos = self.get(*position);
                let new_idx = self.b.ins().select(better, pos, old_idx);
                self.store_scratch(*vals, index, indices, new);
                self.store_scratch(*idxs, index, indices, new_idx);
            }
            Stmt::AccumulateWith { bufs, index, values, position, accs, body, results } => {
                for (&buf, &acc) in bufs.iter().zip(accs) {
                    let old = self.load_scratch(buf, index, indices);
                    self.set(acc, old);
                }
                self.block_in(body, indices)?;
                let pos = self.get(*position);
                let first = self.b.ins().icmp_imm_s(IntCC::Equal, pos, 0);
                let new: Vec<Value> = values
                    .iter()
                    .zip(results)
                    .map(|(&value, &result)| {
                        let (x, combined) = (self.get(value), self.get(result));
                        self.b.ins().select(first, x, combined)
                    })
                    .collect();
                for (&buf, v) in bufs.iter().zip(new) {
                    self.store_scratch(buf, index, indices, v);
                }
            }
            Stmt::Assert { cond, .. } => {
                let c = self.get(*cond);
                self.b.ins().trapz(c, TrapCode::unwrap_user(1));
            }
            Stmt::Nest(nest) => {
                let leaf = self.vector.map(|ext| {
                    let kernel = &mut self.kernel;
                    let constants = kernel.constants.get_or_insert_with(|| tilec_vector::stride::Constants::of(self.f));
                    let checked = self.bounds.as_ref().map(|_| crate::rvv::Checked {
                        first_site: kernel.sites.len(),
                        own_ranges: kernel.own_ranges.get_or_insert_with(|| crate::bounds::own_ranges(self.f)),
                    });
                    crate::rvv::compile_nest(self.f, constants, nest, checked, ext)
                });
                match leaf {
                    Some(Ok(leaf)) => {
                        self.kernel.sites.extend_from_slice(&leaf.sites);
                        let returns = leaf.returns;
                        let in_memory: Vec<Buf> = leaf
                            .args
                            .iter()
                            .filter_map(|arg| match arg {
                                crate::rvv::LeafArg::Buf(buf) => Some(*buf),
                                _ => None,
                            })
                            .collect();
                        let held = self.registers_to_memory(&in_memory);
                        let (name, result) = self.call_leaf(leaf, returns.map(|b| reg_type(self.f.bufs[b].elem)))?;
                        self.registers_from_memory(held);
                        match (returns, result) {
                            (Some(buf), Some(value)) if self.registers.contains_key(&buf) => {
                                self.b.def_var(self.registers[&buf], value);
                            }
                            (Some(buf), Some(value)) => {
                                let addr = self.buf_addr(buf);
                                self.b.ins().store(MemFlagsData::trusted(), value, addr, 0);
                            }
                            _ => {}
                        }
                        self.report_nest(nest, crate::NestOutcome::Leaf(name));
                    }
                    scalar => {
                        if let Some(Err(reason)) = scalar {
                            self.report_nest(nest, crate::NestOutcome::Scalar(reason));
                        }
                        let in_memory: Vec<Buf> = if self.registers.is_empty() {
                            Vec::new()
                        } else {
                            outline::Uses::of(stmt).bufs.into_iter().collect()
                        };
                        let held = self.registers_to_memory(&in_memory);
                        if !self.flat_nest(nest)? {
                            self.nest(nest, 0)?
                        }
                        self.registers_from_memory(held);
                    }
                }
            }
            // A checked dot is scalar code: the microkernel reads its operands unchecked.
            Stmt::Dot(dot) => {
                let outcome = match (self.vector.is_some() && self.bounds.is_none())
                    .then(|| crate::rvv::compile_dot(self.f, dot))
                    .flatten()
                {
                    Some(crate::rvv::DotLeaf { leaf, may_decline: false }) => {
                        let (leaf, _) = self.call_leaf(leaf, None)?;
                        crate::NestOutcome::Microkernel { leaf, may_decline: false }
                    }
                    Some(crate::rvv::DotLeaf { leaf, may_decline: true }) => {
                        // The leaf returns nonzero when it left the work to the scalar loops.
                        let (leaf, declined) = self.call_leaf(leaf, Some(types::I64))?;
                        let declined = declined.expect("the leaf returns a status");
                        let scalar = self.b.create_block();
                        let done = self.b.create_block();
                        self.b.ins().brif(declined, scalar, &[], done, &[]);
                        self.b.switch_to_block(scalar);
                        self.dot(dot);
                        self.b.ins().jump(done, &[]);
                        self.b.switch_to_block(done);
                        crate::NestOutcome::Microkernel { leaf, may_decline: true }
                    }
                    None => {
                        self.dot(dot);
                        crate::NestOutcome::Scalar(if self.bounds.is_some() {
                            "bounds-checked: the microkernel reads its operands unchecked".to_string()
                        } else {
                            "the microkernel has no form for its operand layouts or element types".to_string()
                        })
                    }
                };
                if self.vector.is_some() {
                    let what = format!("dot {}x{}x{}", dot.m, dot.n, dot.k);
                    self.kernel.nests.push(crate::NestReport { what, span: None, outcome });
                }
            }
            // Rotated on the vector target only, and there not around dots. A loop holding
            // dots does a dot's work per iteration, beside which its bound test weighs
            // nothing, while the rotated form's merge of the loop's variables at its exit
            // costs register allocation time (attention backward: 3% more to compile). On the
            // scalar target a loop's nests are element loops, and the rotated form changed
            // their register allocation for the worse in places (cross-entropy: 0.75% more
            // instructions run).
            Stmt::For { iv, lower, upper, step, body } if self.vector.is_none() || loops_hold_dots(body, true) => {
                let (lo, up, st) = (self.get(*lower), self.get(*upper), self.get(*step));
                let signed = is_signed(self.ty(*iv));
                self.set(*iv, lo);
                let header = self.b.create_block();
                let body_block = self.b.create_block();
                let exit = self.b.create_block();
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(header);
                let i = self.get(*iv);
                let go = self.for_continues(signed, i, up, st);
                self.b.ins().brif(go, body_block, &[], exit, &[]);
                self.b.switch_to_block(body_block);
                self.for_body(body, *iv, st)?;
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(exit);
            }
            Stmt::For { iv, lower, upper, step, body } => {
                // Rotated: the bound is tested once before the first iteration and once at
                // the end of each. A signed 32-bit counter runs as its 64-bit sign extension
                // (the body reads its low half), so neither test extends it again.
                let (lo, up, st) = (self.get(*lower), self.get(*upper), self.get(*step));
                let elem = self.ty(*iv);
                let signed = is_signed(elem);
                let wide = signed && reg_type(elem) == types::I32;
                let body_block = self.b.create_block();
                let exit = self.b.create_block();
                self.set(*iv, lo);
                let (first, up) = if wide {
                    self.b.append_block_param(body_block, types::I64);
                    (self.extended_once(lo, true), self.extended_bound(up))
                } else {
                    (lo, up)
                };
                let go = self.for_continues(signed, first, up, st);
                let first_args = if wide { vec![first.into()] } else { Vec::new() };
                self.b.ins().brif(go, body_block, &first_args, exit, &[]);
                self.b.switch_to_block(body_block);
                if wide {
                    let counter = self.b.block_params(body_block)[0];
                    let i = self.b.ins().ireduce(types::I32, counter);
                    self.extensions.insert((i, true), counter);
                    self.set(*iv, i);
                }
                let next = self.for_body(body, *iv, st)?;
                let (next, next_args) = if wide {
                    // `iadd` of 32 bits leaves its result sign-extended: no instruction.
                    let counter = self.b.ins().sextend(types::I64, next);
                    (counter, vec![counter.into()])
                } else {
                    (next, Vec::new())
                };
                let go = self.for_continues(signed, next, up, st);
                self.b.ins().brif(go, body_block, &next_args, exit, &[]);
                self.b.switch_to_block(exit);
            }
            Stmt::If { cond, then_block, else_block } => {
                let c = self.get(*cond);
                let then_b = self.b.create_block();
                let else_b = self.b.create_block();
                let merge = self.b.create_block();
                self.b.ins().brif(c, then_b, &[], else_b, &[]);
                self.b.switch_to_block(then_b);
                self.block(then_block)?;
                self.b.ins().jump(merge, &[]);
                self.b.switch_to_block(else_b);
                self.block(else_block)?;
                self.b.ins().jump(merge, &[]);
                self.b.switch_to_block(merge);
            }
            Stmt::While { before, cond, after } => {
                let header = self.b.create_block();
                let after_b = self.b.create_block();
                let exit = self.b.create_block();
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(header);
                self.loop_depth += 1;
                self.block(before)?;
                let c = self.get(*cond);
                self.b.ins().brif(c, after_b, &[], exit, &[]);
                self.b.switch_to_block(after_b);
                self.block(after)?;
                self.loop_depth -= 1;
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(exit);
            }
        }
        Ok(())
    }

    /// Translates the body of a `for` loop one loop deeper, then steps its counter `iv` by
    /// `step`; returns the counter's next value.
    fn for_body(&mut self, body: &Block, iv: Var, step: Value) -> Result<Value, Diagnostic> {
        self.loop_depth += 1;
        self.block(body)?;
        self.loop_depth -= 1;
        let i = self.get(iv);
        let next = self.b.ins().iadd(i, step);
        self.set(iv, next);
        Ok(next)
    }

    /// Whether a `for` counter at `i` runs another iteration: below `up` when `step` is
    /// positive, above it otherwise (`i` and `up` of one type, compared by `signed`).
    fn for_continues(&mut self, signed: bool, i: Value, up: Value, step: Value) -> Value {
        let (lt, gt) = if signed {
            (IntCC::SignedLessThan, IntCC::SignedGreaterThan)
        } else {
            (IntCC::UnsignedLessThan, IntCC::UnsignedGreaterThan)
        };
        let up_cond = self.b.ins().icmp(lt, i, up);
        let down_cond = self.b.ins().icmp(gt, i, up);
        let counts_up = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, step, 0);
        self.b.ins().select(counts_up, up_cond, down_cond)
    }

    /// Loops `nest.indices[dim..]` (bottom-tested), then runs the body.
    fn nest(&mut self, nest: &Nest, dim: usize) -> Result<(), Diagnostic> {
        if dim == nest.shape.len() {
            return self.block_in(&nest.body, &nest.indices);
        }
        let index = nest.indices[dim];
        let zero = self.b.ins().iconst(types::I64, 0);
        self.set(index, zero);
        if nest.shape[dim] == 1 {
            return self.nest(nest, dim + 1);
        }
        let body = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(body, &[]);
        self.b.switch_to_block(body);
        self.nest(nest, dim + 1)?;
        let i = self.get(index);
        let next = self.b.ins().iadd_imm_s(i, 1);
        self.set(index, next);
        let more = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, next, nest.shape[dim] as i64);
        self.b.ins().brif(more, body, &[], exit, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// A counted loop `for i in 0..n` over an i64 counter, `body(i)`.
    fn counted(&mut self, n: u32, body: &mut dyn FnMut(&mut Self, Value)) {
        let counter = self.b.declare_var(types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(counter, zero);
        let block = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(block, &[]);
        self.b.switch_to_block(block);
        let i = self.b.use_var(counter);
        body(self, i);
        let next = self.b.ins().iadd_imm_s(i, 1);
        self.b.def_var(counter, next);
        let more = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, next, n as i64);
        self.b.ins().brif(more, block, &[], exit, &[]);
        self.b.switch_to_block(exit);
    }

    /// Whether `x` replaces the best `old` of an arg-accumulation (an i8): it beats it, or
    /// either is NaN (see [`Stmt::AccumulateArg`]).
    fn arg_better(&mut self, elem: Elem, kind: ArgKind, x: Value, old: Value) -> Value {
        match (scalar(elem).is_float(), kind) {
            (true, ArgKind::Max) => self.b.ins().fcmp(FloatCC::UnorderedOrGreaterThan, x, old),
            (true, ArgKind::Min) => self.b.ins().fcmp(FloatCC::UnorderedOrLessThan, x, old),
            (false, ArgKind::Max) => {
                let cc = if is_signed(elem) { IntCC::SignedGreaterThan } else { IntCC::UnsignedGreaterThan };
                self.b.ins().icmp(cc, x, old)
            }
            (false, ArgKind::Min) => {
                let cc = if is_signed(elem) { IntCC::SignedLessThan } else { IntCC::UnsignedLessThan };
                self.b.ins().icmp(cc, x, old)
            }
        }
    }

    /// `acc = maxnum(acc, x)` (`minnum` when `!max`) on the float row register `acc`
    /// holding `old`. When `x` is a number below `old` (above, for `min`) the register
    /// keeps `old`, which is the usual case after the first elements of a row and costs a
    /// comparison and a branch; otherwise a cold block computes the operation.
    fn row_extremum(&mut self, max: bool, acc: Variable, old: Value, x: Value) {
        let keeps = self.b.ins().fcmp(if max { FloatCC::LessThan } else { FloatCC::GreaterThan }, x, old);
        let update = self.b.create_block();
        self.b.set_cold_block(update);
        let merge = self.b.create_block();
        self.b.ins().brif(keeps, merge, &[], update, &[]);
        self.b.switch_to_block(update);
        let new = self.max_num_composed(max, old, x);
        self.b.def_var(acc, new);
        self.b.ins().jump(merge, &[]);
        self.b.switch_to_block(merge);
    }

    fn accumulate(&mut self, op: AccOp, elem: Elem, old: Value, x: Value) -> Value {
        let st = scalar(elem);
        let signed = is_signed(elem);
        let v = if st.is_float() {
            match op {
                AccOp::Sum => self.b.ins().fadd(old, x),
                AccOp::Prod => self.b.ins().fmul(old, x),
                AccOp::Max => self.max_num(true, old, x),
                AccOp::Min => self.max_num(false, old, x),
                // Bitwise reductions of floats are rejected by the front end; keep the value.
                AccOp::Xor | AccOp::And | AccOp::Or => old,
            }
        } else {
            let ins = self.b.ins();
            match op {
                AccOp::Sum => ins.iadd(old, x),
                AccOp::Prod => ins.imul(old, x),
                AccOp::Max if signed => ins.smax(old, x),
                AccOp::Max => ins.umax(old, x),
                AccOp::Min if signed => ins.smin(old, x),
                AccOp::Min => ins.umin(old, x),
                AccOp::Xor => ins.bxor(old, x),
                AccOp::And => ins.band(old, x),
                AccOp::Or => ins.bor(old, x),
            }
        };
        let v = self.round(elem, v);
        if st.is_bool() && matches!(op, AccOp::Sum | AccOp::Prod) {
            self.b.ins().band_imm_u(v, 1)
        } else {
            v
        }
    }

    /// Rounds an f32 register holding an fp16/bf16 value to that precision (not in the
    /// assignment of an unrounded variable, see [`VarFacts::unrounded`]).
    fn round(&mut self, elem: Elem, v: Value) -> Value {
        if self.defer_round {
            return v;
        }
        match elem {
            Elem::Scalar(ScalarType::F16) => float16::round_f16(&mut self.b, &mut self.held, v),
            Elem::Scalar(ScalarType::BF16) => {
                let bits = float16::f32_to_bf16_bits(&mut self.b, v);
                float16::bf16_bits_to_f32(&mut self.b, bits)
            }
            _ => v,
        }
    }

    // ----- expressions ---------------------------------------------------------------

    fn expr(&mut self, dst: Var, e: &Expr, indices: &[Var]) -> Result<Value, Diagnostic> {
        let dst_elem = self.ty(dst);
        let ty = reg_type(dst_elem);
        Ok(match e {
            Expr::Const(c) => self.constant(dst_elem, *c),
            Expr::ProgramId(axis) => self.pids[axis.index() as usize],
            Expr::NumPrograms(axis) => self.grids[axis.index() as usize],
            Expr::Copy(v) => self.get(*v),
            Expr::Index(a) => {
                let v = self.affine(a, indices);
                self.int_resize(v, types::I64, true, ty)
            }
            Expr::Binary(BinaryOp::MulHi, a, b) if reg_type(self.ty(*a)) == types::I32 => {
                let (c, v) = if self.kernel.facts.constants.contains_key(a) { (*a, *b) } else { (*b, *a) };
                let (c, v) = (self.get(c), self.get(v));
                self.mul_high_32(is_signed(self.ty(*a)), c, v)
            }
            Expr::Binary(..) if self.kernel.facts.reassociated.contains_key(&dst) => {
                let Reassociated { op, a, p, q } = self.kernel.facts.reassociated[&dst];
                let invariant = self.binary_of(op, p, q)?;
                let x = self.get(a);
                self.binary_values(op, dst_elem, [x, invariant], [false; 2])?
            }
            Expr::Binary(op, a, b) => self.binary_of(*op, *a, *b)?,
            Expr::Unary(op, a) => {
                let x = self.get(*a);
                let elem = self.ty(*a);
                let st = scalar(elem);
                let v = match op {
                    UnaryOp::Neg if st.is_float() => self.b.ins().fneg(x),
                    // -x wraps to x at one bit.
                    UnaryOp::Neg if st.is_bool() => x,
                    UnaryOp::Neg => self.b.ins().ineg(x),
                    UnaryOp::Not if st.is_bool() => self.b.ins().bxor_imm_u(x, 1),
                    UnaryOp::Not => self.b.ins().bnot(x),
                    UnaryOp::Abs if st.is_float() => self.b.ins().fabs(x),
                    UnaryOp::Abs if st.is_signed_int() => self.b.ins().iabs(x),
                    UnaryOp::Abs => x,
                };
                self.round(elem, v)
            }
            Expr::Math(func, a) => {
                let x = self.get(*a);
                let elem = self.ty(*a);
                let v = self.math(*func, elem, x)?;
                self.round(elem, v)
            }
            Expr::Fma(a, b, c) => {
                let (x, y, z) = (self.get(*a), self.get(*b), self.get(*c));
                self.multiply_add(dst_elem, x, y, z)
            }
            Expr::Cmp(pred, a, b) => {
                let (x, y) = (self.get(*a), self.get(*b));
                self.compare(*pred, self.ty(*a), x, y)
            }
            Expr::Select { cond, on_true, on_false } if self.known_mask(*cond).is_some() => {
                self.get(if self.known_mask(*cond) == Some(true) { *on_true } else { *on_false })
            }
            Expr::Select { .. } if self.kernel.facts.sign_folds.contains_key(&dst) => {
                let x = self.get(self.kernel.facts.sign_folds[&dst]);
                let sign = self.b.ins().sshr_imm_u(x, i64::from(ty.bits()) - 1);
                self.b.ins().bxor(x, sign)
            }
            Expr::Select { cond, on_true, on_false } => {
                let c = self.get(*cond);
                let [x, y] = [*on_true, *on_false].map(|v| {
                    if ty == types::F32 && !self.loops_hold_dots && self.kernel.facts.float_zeros.contains(&v) {
                        // In a register across loops: Cranelift would rebuild it (an
                        // `fmv.w.x`) in each iteration for the select. Not where loops hold
                        // dots, whose register blocks want the float registers.
                        self.held.get(&mut self.b, types::F32, 0)
                    } else {
                        self.get(v)
                    }
                });
                self.b.ins().select(c, x, y)
            }
            Expr::Cast(op, a) => {
                let x = self.get(*a);
                self.cast(*op, self.ty(*a), dst_elem, x)?
            }
            Expr::AddPtr { ptr, offset } => {
                let p = self.get(*ptr);
                let o = self.get(*offset);
                let oe = self.ty(*offset);
                let o = self.int_resize(o, reg_type(oe), is_signed(oe), types::I64);
                let size = self.ty(*ptr).pointee().map_or(1, |s| s.bytes()) as i64;
                let o = self.b.ins().imul_imm_s(o, size);
                self.b.ins().iadd(p, o)
            }
            Expr::LoadScratch { buf, .. } if self.registers.contains_key(buf) => self.b.use_var(self.registers[buf]),
            Expr::LoadScratch { buf, .. } if self.row_register(*buf).is_some() => {
                let row = self.row_register(*buf).expect("a row register");
                self.b.use_var(row)
            }
            Expr::LoadScratch { buf, index } => self.load_scratch(*buf, index, indices),
            Expr::LoadScratchAt { buf, index, at, len, stride } => {
                let base = self.scratch_addr(*buf, index, indices);
                let ae = self.ty(*at);
                let at = self.get(*at);
                let at = self.int_resize(at, reg_type(ae), is_signed(ae), types::I64);
                let chosen = self.b.ins().band_imm_s(at, i64::from(*len) - 1);
                let elem_bytes = reg_type(self.f.bufs[*buf].elem).bytes() as i64;
                let offset = self.b.ins().imul_imm_s(chosen, stride * elem_bytes);
                let addr = self.b.ins().iadd(base, offset);
                let ty = reg_type(self.f.bufs[*buf].elem);
                self.b.ins().load(ty, MemFlagsData::trusted(), addr, 0)
            }
            Expr::Load { ptr, mask, other } => {
                let pointee = self.ty(*ptr).pointee().unwrap_or(scalar(dst_elem));
                let v = self.when(
                    *mask,
                    Some(ty),
                    |t| {
                        let p = t.get(*ptr);
                        Ok(Some(t.load_global(pointee, p)))
                    },
                    |t| {
                        Some(match other {
                            Some(o) => t.get(*o),
                            None => t.zero(ty),
                        })
                    },
                )?;
                v.expect("a load yields a value")
            }
            Expr::AtomicRmw { op, ptr, value, mask, .. } => {
                let v = self.when(
                    *mask,
                    Some(ty),
                    |t| {
                        let (p, x) = (t.get(*ptr), t.get(*value));
                        t.atomic_rmw(*op, dst_elem, p, x).map(Some)
                    },
                    |t| Some(t.zero(ty)),
                )?;
                v.expect("an atomic yields a value")
            }
            Expr::AtomicCas { ptr, cmp, value, .. } => {
                let (p, c, x) = (self.get(*ptr), self.get(*cmp), self.get(*value));
                self.atomic_cas(dst_elem, p, c, x)?
            }
        })
    }

    fn zero(&mut self, ty: Type) -> Value {
        if ty == types::F32 {
            self.b.ins().f32const(0.0)
        } else if ty == types::F64 {
            self.b.ins().f64const(0.0)
        } else {
            self.b.ins().iconst(ty, 0)
        }
    }

    fn constant(&mut self, elem: Elem, c: Constant) -> Value {
        let ty = reg_type(elem);
        let as_f64 = match c {
            Constant::Int(i) => i as f64,
            Constant::Float(x) => x,
            Constant::Bool(b) => b as i64 as f64,
        };
        if ty == types::F32 {
            let x = match elem {
                Elem::Scalar(st) if st.is_half() => float16::half_value(st, float16::nearest_half_bits(st, as_f64)),
                _ => as_f64 as f32,
            };
            return if x.to_bits() == 0 {
                self.b.ins().f32const(x)
            } else {
                self.held.get(&mut self.b, types::F32, i64::from(x.to_bits()))
            };
        }
        if ty == types::F64 {
            return if as_f64.to_bits() == 0 {
                self.b.ins().f64const(as_f64)
            } else {
                self.held.get(&mut self.b, types::F64, as_f64.to_bits() as i64)
            };
        }
        let bits = match c {
            Constant::Int(i) => i,
            Constant::Float(x) => x as i64,
            Constant::Bool(b) => b as i64,
        };
        let bits = if scalar(elem).is_bool() { bits & 1 } else { bits };
        let width = ty.bits();
        let masked = if width >= 64 { bits } else { bits & ((1i64 << width) - 1) };
        // Cranelift folds small constants into immediates and multiplications and divisions
        // by constants into shifts; the others it would rebuild in every block using them.
        let sign_extended = if width >= 64 { bits } else { (bits << (64 - width)) >> (64 - width) };
        if (-2048..2048).contains(&sign_extended) || sign_extended.unsigned_abs().is_power_of_two() {
            self.b.ins().iconst(ty, masked)
        } else {
            self.held.get(&mut self.b, ty, masked)
        }
    }

    /// Integer `v` of type `from` to type `to`, extending by `signed`.
    fn int_resize(&mut self, v: Value, from: Type, signed: bool, to: Type) -> Value {
        if from == to {
            v
        } else if from.bits() > to.bits() {
            let narrow = self.b.ins().ireduce(to, v);
            if from == types::I64 && to == types::I32 {
                self.wide.insert(narrow, v);
                self.narrowing.push(self.b.func.dfg.value_def(narrow).unwrap_inst());
            }
            narrow
        } else if signed {
            self.b.ins().sextend(to, v)
        } else {
            self.b.ins().uextend(to, v)
        }
    }

    fn binary(&mut self, op: BinaryOp, elem: Elem, x: Value, y: Value) -> Result<Value, Diagnostic> {
        let st = scalar(elem);
        if st.is_float() {
            let v = match op {
                BinaryOp::Add => self.b.ins().fadd(x, y),
                BinaryOp::Sub => self.b.ins().fsub(x, y),
                BinaryOp::Mul => self.b.ins().fmul(x, y),
                BinaryOp::Div => self.b.ins().fdiv(x, y),
                BinaryOp::Max => self.max_num(true, x, y),
                BinaryOp::Min => self.max_num(false, x, y),
                BinaryOp::Rem => self.libm_call("fmod", elem, &[x, y]),
                BinaryOp::Pow => self.libm_call("pow", elem, &[x, y]),
                BinaryOp::Atan2 => self.libm_call("atan2", elem, &[x, y]),
                BinaryOp::Hypot => self.libm_call("hypot", elem, &[x, y]),
                _ => return Err(err(format!("`{op:?}` on floats has no code generation"))),
            };
            return Ok(self.round(elem, v));
        }
        if st.is_bool() && !matches!(op, BinaryOp::Pow | BinaryOp::Atan2) {
            return Ok(self.bool_binary(op, x, y));
        }
        let signed = st.is_signed_int();
        let ty = reg_type(elem);
        Ok(match op {
            BinaryOp::Add => self.b.ins().iadd(x, y),
            BinaryOp::Sub => self.b.ins().isub(x, y),
            BinaryOp::Mul => self.b.ins().imul(x, y),
            BinaryOp::Div | BinaryOp::Rem => {
                // Cranelift traps on x / 0 and MIN / -1; keep the result undefined but never
                // trap (masked-off lanes may divide by zero).
                let is_zero = self.b.ins().icmp_imm_s(IntCC::Equal, y, 0);
                let one = self.b.ins().iconst(ty, 1);
                let safe = self.b.ins().select(is_zero, one, y);
                if signed {
                    let is_minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, safe, -1);
                    let safe = self.b.ins().select(is_minus_one, one, safe);
                    if op == BinaryOp::Div {
                        let q = self.b.ins().sdiv(x, safe);
                        let neg = self.b.ins().ineg(x);
                        self.b.ins().select(is_minus_one, neg, q)
                    } else {
                        let r = self.b.ins().srem(x, safe);
                        let zero = self.b.ins().iconst(ty, 0);
                        self.b.ins().select(is_minus_one, zero, r)
                    }
                } else if op == BinaryOp::Div {
                    self.b.ins().udiv(x, safe)
                } else {
                    self.b.ins().urem(x, safe)
                }
            }
            BinaryOp::And => self.b.ins().band(x, y),
            BinaryOp::Or => self.b.ins().bor(x, y),
            BinaryOp::Xor => self.b.ins().bxor(x, y),
            BinaryOp::Shl => self.b.ins().ishl(x, y),
            BinaryOp::Shr if signed => self.b.ins().sshr(x, y),
            BinaryOp::Shr => self.b.ins().ushr(x, y),
            BinaryOp::Max if signed => self.b.ins().smax(x, y),
            BinaryOp::Max => self.b.ins().umax(x, y),
            BinaryOp::Min if signed => self.b.ins().smin(x, y),
            BinaryOp::Min => self.b.ins().umin(x, y),
            BinaryOp::MulHi if signed => self.b.ins().smulhi(x, y),
            BinaryOp::MulHi => self.b.ins().umulhi(x, y),
            BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot => {
                return Err(err(format!("`{op:?}` on integers has no code generation")))
            }
        })
    }

    /// `a op b` of two variables.
    fn binary_of(&mut self, op: BinaryOp, a: Var, b: Var) -> Result<Value, Diagnostic> {
        let (x, y) = (self.get(a), self.get(b));
        let constant = [a, b].map(|v| self.kernel.facts.constants.contains_key(&v));
        self.binary_values(op, self.ty(a), [x, y], constant)
    }

    /// `x op y` of operands of `elem` (on their wide forms where they have them).
    fn binary_values(
        &mut self,
        op: BinaryOp,
        elem: Elem,
        [x, y]: [Value; 2],
        constant: [bool; 2],
    ) -> Result<Value, Diagnostic> {
        match self.wide_binary(op, elem, [x, y], constant) {
            Some(v) => Ok(v),
            None => self.binary(op, elem, x, y),
        }
    }

    /// The high half of the 64-bit product of two 32-bit integers (signed or not) from one
    /// 64-bit multiply-high: `c` (the constant operand, if there is one) extended to 64
    /// bits (which Cranelift hoists out of loops), `v` moved into the upper half by a shift,
    /// whatever its upper bits held: `(c · v · 2³²) >> 64 = (c · v) >> 32`. (Cranelift's
    /// own 32-bit form extends both operands and shifts the full product down.)
    fn mul_high_32(&mut self, signed: bool, c: Value, v: Value) -> Value {
        let c = self.extended_once(c, signed);
        let v = match self.wide.get(&v) {
            Some(&w) => w,
            None => self.b.ins().sextend(types::I64, v),
        };
        // Behind a bitcast, so that Cranelift does not trade the shift for an extension.
        let v = self.b.ins().bitcast(types::I64, MemFlagsData::new(), v);
        let v = self.b.ins().ishl_imm_u(v, 32);
        let high = if signed { self.b.ins().smulhi(c, v) } else { self.b.ins().umulhi(c, v) };
        self.narrow_of_wide(high)
    }

    /// The 32-bit `v` extended to 64 bits by `signed`, made once, right after `v`'s
    /// definition (so it dominates every use of `v`). A Philox round extends the same
    /// constant and key at every step.
    fn extended_once(&mut self, v: Value, signed: bool) -> Value {
        if let Some(&e) = self.extensions.get(&(v, signed)) {
            return e;
        }
        let mut pos = self.b.cursor();
        goto_after_definition(&mut pos, v);
        let e = if signed { pos.ins().sextend(types::I64, v) } else { pos.ins().uextend(types::I64, v) };
        self.extensions.insert((v, signed), e);
        e
    }

    /// The 64-bit sign extension of a loop bound `v`, as [`Self::extended_once`] gives it
    /// from then on: behind a `bitcast` to its own type. Cranelift's mid-end rewrites a
    /// comparison of a sign extension with a constant into one of the 32-bit value, which
    /// its lowering extends again where the comparison stands (in the body of an outer
    /// loop, once per iteration: a rotated loop's first test); the opaque copy is compared
    /// as it is, in the register that holds the extension computed once.
    fn extended_bound(&mut self, v: Value) -> Value {
        let e = self.extended_once(v, true);
        let def = self.b.func.dfg.value_def(e).inst();
        if def.is_some_and(|inst| self.b.func.dfg.insts[inst].opcode() == cranelift_codegen::ir::Opcode::Bitcast) {
            return e;
        }
        let mut pos = self.b.cursor();
        goto_after_definition(&mut pos, e);
        let opaque = pos.ins().bitcast(types::I64, MemFlagsData::new(), e);
        self.extensions.insert((v, true), opaque);
        opaque
    }

    /// The 32-bit value in the low half of the [`Self::wide`] `w`. The truncation is of an
    /// opaque copy of `w`, so that Cranelift does not move it into the operations computing
    /// `w` (narrowing the chain to 32-bit operations, each constant then in a second,
    /// sign-extended register).
    fn narrow_of_wide(&mut self, w: Value) -> Value {
        let opaque = self.b.ins().bitcast(types::I64, MemFlagsData::new(), w);
        let narrow = self.b.ins().ireduce(types::I32, opaque);
        self.wide.insert(narrow, w);
        let dfg = &self.b.func.dfg;
        self.narrowing.extend([opaque, narrow].map(|v| dfg.value_def(v).unwrap_inst()));
        narrow
    }

    /// A wrapping 32-bit `op` of `elem` on the [`Self::wide`] forms of `x` and `y`, when at
    /// least one has one: the low 32 bits of the 64-bit result, which becomes its wide form.
    /// The other operand is sign-extended (outside the loop when it is invariant), or, when
    /// it is a `constant`, extended as [`Self::mul_high_32`] extends its constant, so that a
    /// constant both use is one register.
    fn wide_binary(&mut self, op: BinaryOp, elem: Elem, [x, y]: [Value; 2], constant: [bool; 2]) -> Option<Value> {
        let wrapping =
            matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::And | BinaryOp::Or | BinaryOp::Xor);
        let narrow = matches!(elem, Elem::Scalar(s) if s.is_int() && !s.is_bool()) && reg_type(elem) == types::I32;
        if !narrow || !wrapping || !(self.wide.contains_key(&x) || self.wide.contains_key(&y)) {
            return None;
        }
        let operand = |t: &mut Self, v: Value, constant: bool| match t.wide.get(&v) {
            Some(&w) => w,
            None => t.extended_once(v, !constant || is_signed(elem)),
        };
        let (a, b) = (operand(self, x, constant[0]), operand(self, y, constant[1]));
        let ins = self.b.ins();
        let w = match op {
            BinaryOp::Add => ins.iadd(a, b),
            BinaryOp::Sub => ins.isub(a, b),
            BinaryOp::Mul => ins.imul(a, b),
            BinaryOp::And => ins.band(a, b),
            BinaryOp::Or => ins.bor(a, b),
            _ => ins.bxor(a, b),
        };
        Some(self.narrow_of_wide(w))
    }

    /// A binary op on `i1` (0 or 1 in an `I8`), wrapping at one bit as the IR says: `+` and
    /// `-` are xor, `*` and `min` are and, `max` is or; shift amounts are taken modulo the
    /// width (1), so shifts keep `x`; `x / 1` is `x` and `x % 1` is 0 (division by zero is
    /// undefined); the high half of a one-bit product is 0.
    fn bool_binary(&mut self, op: BinaryOp, x: Value, y: Value) -> Value {
        match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Xor => self.b.ins().bxor(x, y),
            BinaryOp::Mul | BinaryOp::Min | BinaryOp::And => self.b.ins().band(x, y),
            BinaryOp::Max | BinaryOp::Or => self.b.ins().bor(x, y),
            BinaryOp::Shl | BinaryOp::Shr | BinaryOp::Div | BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot => x,
            BinaryOp::Rem | BinaryOp::MulHi => self.b.ins().iconst(types::I8, 0),
        }
    }

    fn compare(&mut self, pred: CmpPred, elem: Elem, x: Value, y: Value) -> Value {
        if scalar(elem).is_float() {
            let cc = match pred {
                CmpPred::Eq => FloatCC::Equal,
                CmpPred::Ne => FloatCC::NotEqual,
                CmpPred::Lt => FloatCC::LessThan,
                CmpPred::Le => FloatCC::LessThanOrEqual,
                CmpPred::Gt => FloatCC::GreaterThan,
                CmpPred::Ge => FloatCC::GreaterThanOrEqual,
            };
            return self.b.ins().fcmp(cc, x, y);
        }
        let signed = is_signed(elem);
        let cc = match (pred, signed) {
            (CmpPred::Eq, _) => IntCC::Equal,
            (CmpPred::Ne, _) => IntCC::NotEqual,
            (CmpPred::Lt, true) => IntCC::SignedLessThan,
            (CmpPred::Le, true) => IntCC::SignedLessThanOrEqual,
            (CmpPred::Gt, true) => IntCC::SignedGreaterThan,
            (CmpPred::Ge, true) => IntCC::SignedGreaterThanOrEqual,
            (CmpPred::Lt, false) => IntCC::UnsignedLessThan,
            (CmpPred::Le, false) => IntCC::UnsignedLessThanOrEqual,
            (CmpPred::Gt, false) => IntCC::UnsignedGreaterThan,
            (CmpPred::Ge, false) => IntCC::UnsignedGreaterThanOrEqual,
        };
        self.b.ins().icmp(cc, x, y)
    }

    /// Converts a register value between element types as `Cast` would (numeric value kept).
    fn convert(&mut self, v: Value, from: Elem, to: Elem) -> Value {
        let (fs, ts) = (scalar(from), scalar(to));
        match (fs.is_float(), ts.is_float()) {
            (true, true) => {
                let (fty, tty) = (reg_type(from), reg_type(to));
                let v = if fty == tty {
                    v
                } else if fty.bits() < tty.bits() {
                    self.b.ins().fpromote(tty, v)
                } else if ts.is_half() {
                    float16::f64_to_f32_round_to_odd(&mut self.b, v)
                } else {
                    self.b.ins().fdemote(tty, v)
                };
                self.round(to, v)
            }
            (false, true) => {
                let wide = self.int_resize(v, reg_type(from), fs.is_signed_int(), types::I64);
                // a half goes through f64 (exact up to 2^53) and f32 rounded to odd, so it
                // is rounded once
                let via = if ts.is_half() { types::F64 } else { reg_type(to) };
                let f = if fs.is_signed_int() {
                    self.b.ins().fcvt_from_sint(via, wide)
                } else {
                    self.b.ins().fcvt_from_uint(via, wide)
                };
                let f = if ts.is_half() { float16::f64_to_f32_round_to_odd(&mut self.b, f) } else { f };
                self.round(to, f)
            }
            (true, false) if ts.is_bool() => {
                // `x != 0`, as the front end casts to bool (NaN is true).
                let zero = self.constant(from, Constant::Float(0.0));
                let ne = self.b.ins().fcmp(FloatCC::NotEqual, v, zero);
                self.int_resize(ne, types::I8, false, reg_type(to))
            }
            (true, false) => {
                // Saturating at the destination's range, NaN to 0: convert to at least 32
                // bits (Cranelift saturates there), clamp to a narrower type's range, then
                // narrow.
                let tty = reg_type(to);
                let wide = if tty.bits() < 32 { types::I32 } else { tty };
                let i = if ts.is_signed_int() {
                    self.b.ins().fcvt_to_sint_sat(wide, v)
                } else {
                    self.b.ins().fcvt_to_uint_sat(wide, v)
                };
                let i = if tty.bits() < 32 {
                    let bits = tty.bits();
                    if ts.is_signed_int() {
                        let hi = self.b.ins().iconst(wide, (1i64 << (bits - 1)) - 1);
                        let lo = self.b.ins().iconst(wide, -(1i64 << (bits - 1)));
                        let i = self.b.ins().smin(i, hi);
                        self.b.ins().smax(i, lo)
                    } else {
                        let hi = self.b.ins().iconst(wide, (1i64 << bits) - 1);
                        self.b.ins().umin(i, hi)
                    }
                } else {
                    i
                };
                self.int_resize(i, wide, true, tty)
            }
            (false, false) => {
                let r = self.int_resize(v, reg_type(from), fs.is_signed_int(), reg_type(to));
                if ts.is_bool() && !fs.is_bool() {
                    self.b.ins().band_imm_u(r, 1)
                } else {
                    r
                }
            }
        }
    }

    fn cast(&mut self, op: CastOp, from: Elem, to: Elem, v: Value) -> Result<Value, Diagnostic> {
        Ok(match op {
            CastOp::IntExt
            | CastOp::IntTrunc
            | CastOp::IntRetype
            | CastOp::FloatExt
            | CastOp::FloatTrunc
            | CastOp::IntToFloat
            | CastOp::FloatToInt => self.convert(v, from, to),
            CastOp::Bitcast => {
                let (fs, ts) = (scalar(from), scalar(to));
                // Bits of the source in memory form.
                let bits = match fs {
                    ScalarType::F16 => float16::f32_to_f16_bits(&mut self.b, v),
                    ScalarType::BF16 => float16::f32_to_bf16_bits(&mut self.b, v),
                    ScalarType::F32 => self.b.ins().bitcast(types::I32, MemFlagsData::new(), v),
                    ScalarType::F64 => self.b.ins().bitcast(types::I64, MemFlagsData::new(), v),
                    _ => v,
                };
                match ts {
                    ScalarType::F16 => float16::f16_bits_to_f32(&mut self.b, bits),
                    ScalarType::BF16 => float16::bf16_bits_to_f32(&mut self.b, bits),
                    ScalarType::F32 => self.b.ins().bitcast(types::F32, MemFlagsData::new(), bits),
                    ScalarType::F64 => self.b.ins().bitcast(types::F64, MemFlagsData::new(), bits),
                    _ => bits,
                }
            }
            CastOp::PtrToInt => self.int_resize(v, types::I64, false, reg_type(to)),
            CastOp::IntToPtr => self.int_resize(v, reg_type(from), is_signed(from), types::I64),
            CastOp::PtrCast => v,
        })
    }

    fn math(&mut self, func: MathFn, elem: Elem, x: Value) -> Result<Value, Diagnostic> {
        if !scalar(elem).is_float() {
            return Err(err(format!("`{func:?}` on integers has no code generation")));
        }
        Ok(match func {
            MathFn::Sqrt => self.b.ins().sqrt(x),
            MathFn::Rsqrt => {
                let s = self.b.ins().sqrt(x);
                let one = self.constant(elem, Constant::Float(1.0));
                self.b.ins().fdiv(one, s)
            }
            MathFn::Floor => self.b.ins().floor(x),
            MathFn::Ceil => self.b.ins().ceil(x),
            MathFn::Trunc => self.b.ins().trunc(x),
            MathFn::Rint => self.b.ins().nearest(x),
            MathFn::SinPi | MathFn::CosPi => self.sin_cos_pi(func == MathFn::SinPi, elem, x),
            MathFn::Exp | MathFn::Exp2 if elem == Elem::Scalar(ScalarType::F32) => {
                self.exp_f32(func == MathFn::Exp2, x)
            }
            MathFn::Erf if reg_type(elem) == types::F32 => self.erf_f32(x),
            _ => {
                // rsqrt, sqrt, floor, ceil, trunc, rint, sinpi and cospi are computed above.
                let name = func.c_name();
                self.libm_call(name, elem, &[x])
            }
        })
    }

    /// sin(πx) or cos(πx), which glibc lacks, from libm's fp64 `sin` and `cos`: x reduced
    /// exactly to r ∈ [−1/2, 1/2] (sinpi(x) = ±sinpi(r)), πr carried in two doubles,
    /// sin(πr) = sin(hi) + lo·cos(hi). An fp32 `x` is computed in fp64 and rounded once.
    /// sinpi(±n) = ±0 and cospi(n + 1/2) = +0 for integers n, as IEEE 754 recommends.
    fn sin_cos_pi(&mut self, sine: bool, elem: Elem, x: Value) -> Value {
        const PI_LO: f64 = 1.224_646_799_147_353_2e-16; // π − PI, rounded
        let double = Elem::Scalar(ScalarType::F64);
        let w = if reg_type(elem) == types::F64 { x } else { self.b.ins().fpromote(types::F64, x) };
        let c = |s: &mut Self, v: f64| s.constant(double, Constant::Float(v));
        // r = w − 2·nearest(w/2) ∈ [−1, 1], exact (NaN for ±inf).
        let half = c(self, 0.5);
        let h = self.b.ins().fmul(w, half);
        let n = self.b.ins().nearest(h);
        let twice = self.b.ins().fadd(n, n);
        let r = self.b.ins().fsub(w, twice);
        let a = self.b.ins().fabs(r);
        // sinpi: |r| folded to t ∈ [0, 1/2] (sinpi(a) = sinpi(1 − a)), sign of r;
        // cospi: cospi(a) = sinpi(1/2 − a).
        let t = if sine {
            let one = c(self, 1.0);
            let folded = self.b.ins().fsub(one, a);
            let over = self.b.ins().fcmp(FloatCC::GreaterThan, a, half);
            let t = self.b.ins().select(over, folded, a);
            self.b.ins().fcopysign(t, r)
        } else {
            self.b.ins().fsub(half, a)
        };
        let pi = c(self, std::f64::consts::PI);
        let hi = self.b.ins().fmul(pi, t);
        let neg_hi = self.b.ins().fneg(hi);
        let lo = self.b.ins().fma(pi, t, neg_hi);
        let pi_lo = c(self, PI_LO);
        let lo = self.b.ins().fma(pi_lo, t, lo);
        let s = self.libm_call("sin", double, &[hi]);
        let cs = self.libm_call("cos", double, &[hi]);
        let y = self.b.ins().fma(lo, cs, s);
        // Zeros: sinpi(±n) takes x's sign, cospi(n + 1/2) is +0.
        let zero = c(self, 0.0);
        let is_zero = self.b.ins().fcmp(FloatCC::Equal, y, zero);
        let signed_zero = if sine { self.b.ins().fcopysign(zero, w) } else { zero };
        let y = self.b.ins().select(is_zero, signed_zero, y);
        if reg_type(elem) == types::F64 {
            y
        } else {
            self.b.ins().fdemote(types::F32, y)
        }
    }

    /// Calls libm's `name` (the `f` variant for fp32 and narrower), resolved when the `.so`
    /// is loaded.
    fn libm_call(&mut self, name: &'static str, elem: Elem, args: &[Value]) -> Value {
        let double = reg_type(elem) == types::F64;
        let symbol = if double { name.to_string() } else { format!("{name}f") };
        let func = match self.imports.get(&symbol) {
            Some(&f) => f,
            None => {
                let ty = if double { types::F64 } else { types::F32 };
                let mut sig = self.module.make_signature();
                for _ in args {
                    sig.params.push(AbiParam::new(ty));
                }
                sig.returns.push(AbiParam::new(ty));
                let id = self
                    .module
                    .declare_function(&symbol, Linkage::Import, &sig)
                    .expect("libm names are declared with one signature each");
                let f = self.module.declare_func_in_func(id, self.b.func);
                self.imports.insert(symbol, f);
                f
            }
        };
        let call = self.b.ins().call(func, args);
        self.b.inst_results(call)[0]
    }

    fn atomic_rmw(&mut self, op: AtomicOp, elem: Elem, p: Value, x: Value) -> Result<Value, Diagnostic> {
        let st = scalar(elem);
        self.check_access(p, st.bytes(), crate::bounds::Access::Atomic);
        let ty = reg_type(elem);
        let flags = MemFlagsData::new();
        if st.is_half() && op != AtomicOp::Add {
            return Err(err(format!("atomic {op:?} on {} has no code generation", st.name())));
        }
        if st.is_float() || st.is_bool() {
            return Ok(self.cas_loop(op, elem, p, x));
        }
        let signed = st.is_signed_int();
        let rmw = match op {
            AtomicOp::Add => AtomicRmwOp::Add,
            AtomicOp::Max if signed => AtomicRmwOp::Smax,
            AtomicOp::Max => AtomicRmwOp::Umax,
            AtomicOp::Min if signed => AtomicRmwOp::Smin,
            AtomicOp::Min => AtomicRmwOp::Umin,
            AtomicOp::Xchg => AtomicRmwOp::Xchg,
            AtomicOp::And => AtomicRmwOp::And,
            AtomicOp::Or => AtomicRmwOp::Or,
            AtomicOp::Xor => AtomicRmwOp::Xor,
        };
        Ok(self.b.ins().atomic_rmw(ty, flags, rmw, p, x))
    }

    /// `old = *p; loop { new = op(old, x); seen = cas(p, old, new); if seen == old break; old = seen }`
    /// on the memory bits of a float (or i1) element: fp16/bf16 are 16-bit words widened to
    /// f32 for the add and rounded back (RISC-V has no 16-bit atomics; Cranelift's 16-bit
    /// compare-and-swap works on the containing aligned word).
    fn cas_loop(&mut self, op: AtomicOp, elem: Elem, p: Value, x: Value) -> Value {
        let ty = reg_type(elem);
        let st = scalar(elem);
        let int_ty = memory_int_type(elem);
        let flags = MemFlagsData::new();
        let first = self.b.ins().load(int_ty, flags, p, 0);
        let head = self.b.create_block();
        self.b.append_block_param(head, int_ty);
        let exit = self.b.create_block();
        self.b.append_block_param(exit, int_ty);
        self.b.ins().jump(head, &[first.into()]);
        self.b.switch_to_block(head);
        let old_bits = self.b.block_params(head)[0];
        let new_bits = match op {
            // Triton's float max/min from integer atomics: a signed max (min) of the bits
            // when `x` is not negative, else an unsigned min (max).
            AtomicOp::Max | AtomicOp::Min if ty.is_float() => {
                let xb = self.float_bits(st, x);
                let negative = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, xb, 0);
                let (signed, unsigned) = if op == AtomicOp::Max {
                    (self.b.ins().smax(old_bits, xb), self.b.ins().umin(old_bits, xb))
                } else {
                    (self.b.ins().smin(old_bits, xb), self.b.ins().umax(old_bits, xb))
                };
                self.b.ins().select(negative, unsigned, signed)
            }
            AtomicOp::Add if ty.is_float() => {
                let old = self.bits_float(st, old_bits);
                let sum = self.b.ins().fadd(old, x);
                let sum = self.round(elem, sum);
                self.float_bits(st, sum)
            }
            AtomicOp::Xchg if ty.is_float() => self.float_bits(st, x),
            AtomicOp::Xchg => x,
            AtomicOp::Add | AtomicOp::Xor => self.b.ins().bxor(old_bits, x),
            AtomicOp::And | AtomicOp::Min => self.b.ins().band(old_bits, x),
            AtomicOp::Or | AtomicOp::Max => self.b.ins().bor(old_bits, x),
        };
        let seen = self.b.ins().atomic_cas(flags, p, old_bits, new_bits);
        let done = self.b.ins().icmp(IntCC::Equal, seen, old_bits);
        self.b.ins().brif(done, exit, &[seen.into()], head, &[seen.into()]);
        self.b.switch_to_block(exit);
        let bits = self.b.block_params(exit)[0];
        if ty.is_float() {
            self.bits_float(st, bits)
        } else {
            bits
        }
    }

    /// The memory bits (of [`memory_int_type`]) of float `v` of type `st`.
    fn float_bits(&mut self, st: ScalarType, v: Value) -> Value {
        match st {
            ScalarType::F16 => float16::f32_to_f16_bits(&mut self.b, v),
            ScalarType::BF16 => float16::f32_to_bf16_bits(&mut self.b, v),
            _ => {
                let int_ty = types::Type::int(reg_type(Elem::Scalar(st)).bits() as u16).expect("an integer type");
                self.b.ins().bitcast(int_ty, MemFlagsData::new(), v)
            }
        }
    }

    /// The float register value of the memory bits `bits` of type `st`.
    fn bits_float(&mut self, st: ScalarType, bits: Value) -> Value {
        match st {
            ScalarType::F16 => float16::f16_bits_to_f32(&mut self.b, bits),
            ScalarType::BF16 => float16::bf16_bits_to_f32(&mut self.b, bits),
            _ => self.b.ins().bitcast(reg_type(Elem::Scalar(st)), MemFlagsData::new(), bits),
        }
    }

    fn atomic_cas(&mut self, elem: Elem, p: Value, c: Value, x: Value) -> Result<Value, Diagnostic> {
        let st = scalar(elem);
        self.check_access(p, st.bytes(), crate::bounds::Access::Atomic);
        if st.is_float() {
            let cb = self.float_bits(st, c);
            let xb = self.float_bits(st, x);
            let old = self.b.ins().atomic_cas(MemFlagsData::new(), p, cb, xb);
            return Ok(self.bits_float(st, old));
        }
        Ok(self.b.ins().atomic_cas(MemFlagsData::new(), p, c, x))
    }
}
