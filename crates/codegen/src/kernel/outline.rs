//! Top-level loops compiled as functions of their own (on the scalar targets).
//!
//! Cranelift's register allocation costs more than linearly in the size of a function, and
//! the body of a kernel such as attention backward is one function of thousands of values
//! in several loops, each holding dots. Each loop of the function's top-level region that
//! holds a dot (in a body of `OUTLINE_ANY_LOOP_FROM` statements or more, each of its
//! loops) becomes a local function (`NAME__partN`, numbered in call order) that the body
//! calls where the loop stood, so each is allocated on its own:
//! - its parameters are the variables it reads (or may leave unchanged) that an earlier
//!   top-level statement or a kernel parameter assigns, except the constants, which it
//!   assigns again (so its code sees a loop's bounds and step as the body's would); the
//!   addresses of the scratch buffers it shares with other statements; the bounds table
//!   when accesses are checked; the address of a block in the caller's frame where it
//!   stores the variables that later statements read (one 8-byte slot each, read back
//!   after the call); the program ids and grid sizes when it reads them;
//! - the buffers no other statement uses are in its own frame.
//!
//! The loop's code is translated as it would be inline; what a program pays more is a call,
//! the passing of its values and a prologue per outlined loop.

use std::collections::{BTreeMap, BTreeSet};

use cranelift_codegen::ir::UserFuncName;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_module::FuncId;

use super::*;

/// A function declared in the module and built, still to be compiled: an outlined
/// statement's (the code generator defines these after the body's, numbered in the order
/// their translations start), or the grid entry, kernel or launcher on their way to the
/// compiling threads.
pub struct Outlined {
    pub id: FuncId,
    pub name: String,
    pub func: cranelift_codegen::ir::Function,
}

/// The functions waiting to be compiled, shared by the translating thread (which adds them
/// as each is built, then closes the queue) and the compiling threads (which take the
/// largest first, so that the last ones to finish are small and the threads end close
/// together). Which thread compiles a function does not change its code.
#[derive(Default)]
pub struct Queue {
    state: std::sync::Mutex<QueueState>,
    ready: std::sync::Condvar,
}

#[derive(Default)]
struct QueueState {
    waiting: Vec<Outlined>,
    closed: bool,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Adds `o` to the functions waiting.
    pub fn push(&self, o: Outlined) {
        self.lock().waiting.push(o);
        self.ready.notify_one();
    }

    /// No function will be added any more: [`Queue::pop`] answers `None` once it is empty.
    pub fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_all();
    }

    /// The waiting function of the most instructions (the first added of those), waiting
    /// for one while the queue is open; `None` once it is closed and empty.
    pub fn pop(&self) -> Option<Outlined> {
        let mut state = self.lock();
        loop {
            let largest = (0..state.waiting.len()).rev().max_by_key(|&i| state.waiting[i].func.dfg.num_insts());
            if let Some(i) = largest {
                return Some(state.waiting.remove(i));
            }
            if state.closed {
                return None;
            }
            state = self.ready.wait(state).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

/// Where the outlined statements' functions go once translated: to the queue of the
/// threads that compile them. A translator's own sink has none until the kernel's is lent
/// to it (the translator of an outlined statement translates with the kernel's).
#[derive(Default)]
pub struct Sink {
    /// How many functions were started (queued or still being translated): the next one's
    /// number.
    started: usize,
    queue: Option<std::sync::Arc<Queue>>,
}

impl Sink {
    /// A sink adding each finished function to `queue`.
    pub fn queueing(queue: std::sync::Arc<Queue>) -> Sink {
        Sink { queue: Some(queue), ..Sink::default() }
    }

    fn put(&self, o: Outlined) {
        self.queue.as_ref().expect("statements are outlined with the kernel's sink").push(o);
    }
}

/// How a top-level statement is outlined (see the module doc).
pub(super) struct Outline {
    /// How many top-level statements it covers (from the one it is planned at).
    pub(super) len: usize,
    /// The variables passed in, in order.
    inputs: Vec<Var>,
    /// The variables it reads that are constants (assigned once, by a constant, at the top
    /// level): assigned again in its function rather than passed, so that its code sees the
    /// constants (a loop's bounds and step, a scale) as the body's would.
    constants: Vec<(Var, Constant)>,
    /// The variables passed back, in order.
    outputs: Vec<Var>,
    /// The buffers other statements use too, whose addresses are passed in, in order.
    shared: Vec<Buf>,
    /// The buffers only this statement uses.
    pub(super) local: Vec<Buf>,
    /// Whether it reads program ids or grid sizes.
    program: bool,
}

/// What a statement reads, assigns and uses.
#[derive(Default)]
pub(super) struct Uses {
    reads: BTreeSet<Var>,
    assigns: BTreeSet<Var>,
    /// The scratch buffers it touches, in nested statements too.
    pub(super) bufs: BTreeSet<Buf>,
    program: bool,
}

impl Uses {
    pub(super) fn of(stmt: &Stmt) -> Uses {
        let mut uses = Uses::default();
        uses.stmt(stmt);
        uses
    }

    /// What consecutive statements read, assign and use together.
    fn union(all: &[Uses]) -> Uses {
        let mut uses = Uses::default();
        for u in all {
            uses.reads.extend(&u.reads);
            uses.assigns.extend(&u.assigns);
            uses.bufs.extend(&u.bufs);
            uses.program |= u.program;
        }
        uses
    }

    fn block(&mut self, block: &Block) {
        block.iter().for_each(|s| self.stmt(s));
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Assign { dst, expr, .. } => {
                self.assigns.insert(*dst);
                self.reads.extend(expr.operands());
                match expr {
                    Expr::ProgramId(_) | Expr::NumPrograms(_) => self.program = true,
                    Expr::LoadScratch { buf, .. } | Expr::LoadScratchAt { buf, .. } => {
                        self.bufs.insert(*buf);
                    }
                    _ => {}
                }
            }
            Stmt::Store { ptr, value, mask, .. } => {
                self.reads.extend([Some(*ptr), Some(*value), *mask].into_iter().flatten())
            }
            Stmt::StoreScratch { buf, value, .. } | Stmt::Accumulate { buf, value, .. } => {
                self.bufs.insert(*buf);
                self.reads.insert(*value);
            }
            Stmt::AccumulateArg { vals, idxs, value, position, .. } => {
                self.bufs.extend([*vals, *idxs]);
                self.reads.extend([*value, *position]);
            }
            Stmt::AccumulateWith { bufs, values, position, accs, body, results, .. } => {
                self.bufs.extend(bufs);
                self.reads.extend(values.iter().chain(results).chain([position]));
                self.assigns.extend(accs);
                self.block(body);
            }
            Stmt::Assert { cond, .. } => {
                self.reads.insert(*cond);
            }
            Stmt::Nest(nest) => {
                self.assigns.extend(&nest.indices);
                self.block(&nest.body);
            }
            Stmt::Dot(dot) => {
                self.bufs.insert(dot.c);
                for operand in [&dot.a, &dot.b] {
                    match operand {
                        DotOperand::Scratch(buf) => {
                            self.bufs.insert(*buf);
                        }
                        DotOperand::Global(g) => {
                            self.bufs.insert(g.ptrs);
                            self.reads.extend(g.offset);
                        }
                    }
                }
                self.reads.extend(dot.k_limit);
            }
            Stmt::For { iv, lower, upper, step, body } => {
                self.assigns.insert(*iv);
                self.reads.extend([*iv, *lower, *upper, *step]);
                self.block(body);
            }
            Stmt::If { cond, then_block, else_block } => {
                self.reads.insert(*cond);
                self.block(then_block);
                self.block(else_block);
            }
            Stmt::While { before, cond, after } => {
                self.reads.insert(*cond);
                self.block(before);
                self.block(after);
            }
        }
    }
}

/// Statements (nested ones included) from which a kernel's body is big enough that each of
/// its top-level loops is outlined, dots or not: below it, the second compiling thread and
/// the calls cost more than allocating the registers of the body as one function (tutorial
/// 05's layer norm forward, 77 statements, compiles slower outlined; FlagGems' cross-entropy,
/// 97, faster).
const OUTLINE_ANY_LOOP_FROM: usize = 90;

/// Statements (nested ones included) from which a run of nests of such a body is outlined:
/// a smaller one (filling a buffer, a short conversion) costs more as a call and a function
/// to compile than it balances.
const OUTLINE_NESTS_FROM: usize = 12;

/// The statements of `block`, nested ones included.
fn statements(block: &[Stmt]) -> usize {
    let nested = |s: &Stmt| match s {
        Stmt::Nest(nest) => statements(&nest.body),
        Stmt::AccumulateWith { body, .. } | Stmt::For { body, .. } => statements(body),
        Stmt::If { then_block, else_block, .. } => statements(then_block) + statements(else_block),
        Stmt::While { before, after, .. } => statements(before) + statements(after),
        _ => 0,
    };
    block.iter().map(|s| 1 + nested(s)).sum()
}

/// Whether top-level statement `stmt` of a body of `size` statements is outlined: a loop
/// holding a dot, or any loop of a body of [`OUTLINE_ANY_LOOP_FROM`] statements or more.
fn outlined(stmt: &Stmt, size: usize) -> bool {
    matches!(stmt, Stmt::For { .. } | Stmt::While { .. })
        && (size >= OUTLINE_ANY_LOOP_FROM || loops_hold_dots(std::slice::from_ref(stmt), false))
}

/// Whether `f` has top-level statements to outline (on the scalar targets, which outline).
pub fn outlines_any(f: &Function) -> bool {
    let size = statements(&f.body);
    f.body.iter().any(|s| outlined(s, size))
}

/// The outlined statements of `f`'s top-level region, by index.
pub(super) fn plan(f: &Function, facts: &VarFacts) -> BTreeMap<usize, Outline> {
    if !outlines_any(f) {
        return BTreeMap::new();
    }
    let uses: Vec<Uses> = f.body.iter().map(Uses::of).collect();
    let mut plans = BTreeMap::new();
    for (start, len) in outlined_ranges(&f.body) {
        let here = Uses::union(&uses[start..start + len]);
        let (before, after) = (&uses[..start], &uses[start + len..]);
        let assigned_before: BTreeSet<Var> =
            f.params.iter().map(|p| p.var).chain(before.iter().flat_map(|u| u.assigns.iter().copied())).collect();
        let read_after: BTreeSet<Var> = after.iter().flat_map(|u| u.reads.iter().copied()).collect();
        let outputs: Vec<Var> = here.assigns.intersection(&read_after).copied().collect();
        let passed: BTreeSet<Var> =
            here.reads.iter().chain(&outputs).filter(|v| assigned_before.contains(v)).copied().collect();
        let (constants, inputs): (Vec<Var>, Vec<Var>) =
            passed.into_iter().partition(|v| facts.constants.contains_key(v));
        let constants = constants.into_iter().map(|v| (v, facts.constants[&v])).collect();
        let inside = start..start + len;
        let elsewhere = |buf: &Buf| uses.iter().enumerate().any(|(j, u)| !inside.contains(&j) && u.bufs.contains(buf));
        let (shared, local) = here.bufs.iter().partition(|b| elsewhere(b));
        plans.insert(start, Outline { len, inputs, constants, outputs, shared, local, program: here.program });
    }
    plans
}

/// The top-level statements outlined, as (first index, count): each loop [`outlined`], and
/// in a body big enough that all its loops are, each run of consecutive nests of
/// [`OUTLINE_NESTS_FROM`] statements or more too, so that the functions the compiling
/// threads share out are of more even sizes (the body keeps its scalar statements and the
/// calls).
fn outlined_ranges(body: &[Stmt]) -> Vec<(usize, usize)> {
    let size = statements(body);
    let mut ranges = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let run = body[i..].iter().take_while(|s| matches!(s, Stmt::Nest(_))).count();
        if size >= OUTLINE_ANY_LOOP_FROM && run > 0 && statements(&body[i..i + run]) >= OUTLINE_NESTS_FROM {
            ranges.push((i, run));
            i += run;
        } else {
            if outlined(&body[i], size) {
                ranges.push((i, 1));
            }
            i += 1;
        }
    }
    ranges
}

impl Translator<'_, '_> {
    /// Translates top-level statements `stmts` into a function of their own, as `o` says,
    /// and calls it.
    pub(super) fn outline(&mut self, stmts: &[Stmt], o: &Outline) -> Result<(), Diagnostic> {
        let name = format!("{}__part{}", self.f.name, self.kernel.outlined.started);
        let mut sig = self.module.make_signature();
        let input_types: Vec<Type> = o.inputs.iter().map(|&v| reg_type(self.ty(v))).collect();
        sig.params.extend(input_types.iter().map(|&ty| AbiParam::new(ty)));
        let addresses = o.shared.len() + usize::from(self.bounds.is_some()) + usize::from(!o.outputs.is_empty());
        sig.params.extend((0..addresses).map(|_| AbiParam::new(types::I64)));
        if o.program {
            sig.params.extend((0..6).map(|_| AbiParam::new(types::I32)));
        }
        let id = self
            .module
            .declare_function(&name, Linkage::Local, &sig)
            .map_err(|e| err(format!("outlined function `{name}`: {e}")))?;
        let mut func = cranelift_codegen::ir::Function::with_name_signature(UserFuncName::user(0, id.as_u32()), sig);
        // Its number is taken before the statements inside it take theirs.
        self.kernel.outlined.started += 1;
        let mut fctx = FunctionBuilderContext::new();
        self.translate_outlined(stmts, o, &mut func, &mut fctx)?;
        self.kernel.outlined.put(Outlined { id, name, func });

        let mut args: Vec<Value> = o.inputs.iter().map(|&v| self.get(v)).collect();
        for &buf in &o.shared {
            let address = self.buf_addr(buf);
            args.push(address);
        }
        args.extend(self.bounds.as_ref().map(|b| b.table()));
        let outputs = (!o.outputs.is_empty()).then(|| {
            let data = StackSlotData::new(StackSlotKind::ExplicitSlot, 8 * o.outputs.len() as u32, 3);
            let slot = self.b.create_sized_stack_slot(data);
            self.b.ins().stack_addr(types::I64, slot, 0)
        });
        args.extend(outputs);
        if o.program {
            args.extend(self.pids.iter().chain(&self.grids));
        }
        let callee = self.module.declare_func_in_func(id, self.b.func);
        self.b.ins().call(callee, &args);
        for (i, &v) in o.outputs.iter().enumerate() {
            let address = outputs.expect("a block for the outputs");
            let ty = reg_type(self.ty(v));
            let value = self.b.ins().load(ty, MemFlagsData::trusted(), address, 8 * i as i32);
            self.set(v, value);
        }
        Ok(())
    }

    /// Builds `func`, the function of outlined statements `stmts` (its signature set), with
    /// the state the kernel's functions share lent to its translation.
    fn translate_outlined(
        &mut self,
        stmts: &[Stmt],
        o: &Outline,
        func: &mut cranelift_codegen::ir::Function,
        fctx: &mut FunctionBuilderContext,
    ) -> Result<(), Diagnostic> {
        let config = self.module.isa().frontend_config();
        let mut b = FunctionBuilder::new(func, fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let (inputs, rest) = params.split_at(o.inputs.len());
        let mut rest = rest.iter().copied();
        let mut bufs = stack_slots(self.f, &mut b, o.local.iter().copied())?;
        bufs.extend(o.shared.iter().map(|&buf| (buf, BufHome::Param(rest.next().expect("a buffer address")))));
        let bounds = self.bounds.as_ref().map(|_| rest.next().expect("the bounds table"));
        let outputs = (!o.outputs.is_empty()).then(|| rest.next().expect("the outputs' address"));
        let program: Vec<Value> = rest.collect();
        let (pids, grids) = match program[..] {
            [px, py, pz, gx, gy, gz] => ([px, py, pz], [gx, gy, gz]),
            _ => {
                // Never read: the statement reads no program id or grid size.
                let zero = b.ins().iconst(types::I32, 0);
                ([zero; 3], [zero; 3])
            }
        };
        let mut t = Translator::new(self.f, b, &mut *self.module, self.vector, bufs, Program { pids, grids, bounds });
        // The statement's translator holds the kernel's shared state while it runs.
        std::mem::swap(&mut self.kernel, &mut t.kernel);
        for (&v, &value) in o.inputs.iter().zip(inputs) {
            t.set(v, value);
        }
        for &(v, c) in &o.constants {
            let value = t.constant(t.ty(v), c);
            t.set(v, value);
        }
        let translated = stmts.iter().try_for_each(|stmt| t.stmt(stmt, &[]));
        std::mem::swap(&mut self.kernel, &mut t.kernel);
        translated?;
        for (i, &v) in o.outputs.iter().enumerate() {
            let value = t.get(v);
            let address = outputs.expect("the outputs' address");
            t.b.ins().store(MemFlagsData::trusted(), value, address, 8 * i as i32);
        }
        t.b.ins().return_(&[]);
        t.b.seal_all_blocks();
        super::drop_unread(t.b.func, &t.narrowing);
        t.b.finalize(config);
        Ok(())
    }
}
