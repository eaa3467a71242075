//! The leaf function at one register shape: argument registers, the strip, the prologue
//! (saved registers, constants, stream starts, range length), the full-strip loop, the tail
//! strip, the accumulators' finish and the outer loops.

use super::*;

/// The registers and facts the range's length computation reads ([`emit_cut`]).
#[derive(Clone, Copy)]
struct CutRegs<'a> {
    f: &'a Function,
    plan: &'a Plan,
    cut: Option<&'a tilec_vector::stride::Prefix>,
    outer: &'a [(usize, XReg)],
    rem: XReg,
    count: XReg,
    tmp: XReg,
    rest_len: Option<XReg>,
    /// Where a prefix's guard is evaluated.
    guard: Option<XReg>,
    /// A register already holding the prefix's length before its guard.
    prefix_len: Option<XReg>,
}

/// The number of lanes the range runs into `c.rem` (the prefix of a cut, else the whole
/// flat range) and, for a split, the rest's length into `c.rest_len`; clobbers `c.count`
/// and `c.tmp`. Answers whether `c.tmp` then holds the flat range's length.
fn emit_cut(out: &mut Assembler, c: &CutRegs, regs: &SumRegs, held: &mut HeldPart) -> Option<bool> {
    let CutRegs { f, plan, cut, outer, rem, count, tmp, rest_len, guard, prefix_len } = *c;
    // Whether `tmp` holds the range's length after the cut.
    let mut tmp_is_flat_len = false;
    match cut {
        Some(_) if prefix_len.is_some() => out.mv(rem, prefix_len?),
        Some(p) => {
            // x₀ (lane 0's value) and the bound as integers of the comparison's type (the
            // bound is one: arguments arrive extended by their type); the lanes run while
            // x₀ + j < bound (`<=`): clamp(bound − x₀ (+1), 0, N).
            let bound = regs.x(p.bound)?;
            let x0_is_a_var = p
                .lin
                .single_term()
                .filter(|&v| f.ty(v) == f.ty(p.bound) && outer.iter().all(|&(d, _)| p.lin.stride(d) == Coef::ZERO));
            if p.bits < 64 {
                // Both fit in 33 bits: the difference is exact as a signed 64-bit number.
                if x0_is_a_var.is_some() {
                    emit_sum(out, rem, Some(bound), &p.lin, -1, regs, held)?;
                } else if p.lin.uniform_part_is_constant()
                    && outer.iter().all(|&(d, _)| p.lin.stride(d) == Coef::ZERO)
                    && (-2047..=2048).contains(&p.lin.offset)
                {
                    // x₀ is a constant of the comparison's type.
                    out.addi(rem, bound, -(p.lin.offset as i32));
                } else {
                    emit_sum(out, rem, None, &p.lin, 1, regs, held)?;
                    resize_to(out, rem, rem, p.bits, p.signed);
                    out.sub(rem, bound, rem);
                }
                if p.inclusive {
                    out.addi(rem, rem, 1);
                }
                let non_negative = out.new_label();
                out.bge(rem, XReg::ZERO, non_negative);
                out.mv(rem, XReg::ZERO);
                out.bind(non_negative);
                out.li(tmp, plan.flat_len);
                let within = out.new_label();
                out.bge(tmp, rem, within);
                out.mv(rem, tmp);
                out.bind(within);
                tmp_is_flat_len = true;
            } else {
                // 64 bits: none when x₀ is past the bound (`count`, free here, is the flag:
                // all ones or zero), else min(bound − x₀ (+1), N) as an unsigned number.
                let x0 = match x0_is_a_var {
                    Some(v) => regs.x(v)?,
                    None => {
                        emit_sum(out, rem, None, &p.lin, 1, regs, held)?;
                        rem
                    }
                };
                let slt = if p.signed { AluOp::Slt } else { AluOp::Sltu };
                if p.inclusive {
                    out.alu(slt, count, bound, x0);
                    out.addi(count, count, -1);
                } else {
                    out.alu(slt, count, x0, bound);
                    out.sub(count, XReg::ZERO, count);
                }
                out.sub(rem, bound, x0);
                out.li(tmp, plan.flat_len - p.inclusive as i64);
                let short = out.new_label();
                out.bltu(rem, tmp, short);
                out.mv(rem, tmp);
                out.bind(short);
                if p.inclusive {
                    out.addi(rem, rem, 1);
                }
                out.alu(AluOp::And, rem, rem, count);
            }
        }
        None => out.li(rem, plan.flat_len),
    }
    // A guard that fails empties the prefix.
    if let (Some(g), Some(x)) = (cut.and_then(|p| p.guard.as_ref()), guard) {
        // The guarded value straight into `x`, resized from its register when it is one.
        match sum_parts(&g.lin, 1, regs)?[..] {
            [(r, 1)] if g.lin.offset == 0 => resize_to(out, x, r, g.bits, g.signed),
            ref parts => {
                sum_into(out, x, parts, g.lin.offset, regs.tmp);
                resize_to(out, x, x, g.bits, g.signed);
            }
        }
        tmp_is_flat_len = false;
        let bound = regs.x(g.bound)?;
        let (l, r) = if g.swapped { (bound, x) } else { (x, bound) };
        let holds = out.new_label();
        let cond = match (g.inclusive, g.signed) {
            (false, true) => BranchCond::Lt,
            (false, false) => BranchCond::Ltu,
            (true, true) => BranchCond::Ge,
            (true, false) => BranchCond::Geu,
        };
        // l < r, or l <= r as r >= l.
        match g.inclusive {
            false => out.branch(cond, l, r, holds),
            true => out.branch(cond, r, l, holds),
        }
        out.mv(rem, XReg::ZERO);
        out.bind(holds);
    }
    if let Some(rest_len) = rest_len {
        if !tmp_is_flat_len {
            out.li(tmp, plan.flat_len);
            tmp_is_flat_len = true;
        }
        out.sub(rest_len, tmp, rem);
    }
    Some(tmp_is_flat_len)
}

/// Loads integer and float constants into their registers (`tmp` is clobbered). fp32
/// constants come from a pool of words in the code when that takes fewer instructions (a
/// `jal` over the words leaves their address in `tmp`, one `flw` each), else from integer
/// registers (`fmv.w.x` reads the low 32 bits: a sign-extended pattern loads in fewer
/// steps).
fn load_constants(out: &mut Assembler, xconsts: &[(XReg, i64)], fconsts: &[(FReg, u64, bool)], tmp: XReg) {
    for &(r, v) in xconsts {
        out.li(r, v);
    }
    let int_bits = |bits: u64, double: bool| if double { bits as i64 } else { bits as u32 as i32 as i64 };
    let pooled: Vec<(FReg, u32)> =
        fconsts.iter().filter(|&&(_, bits, double)| !double && bits != 0).map(|&(r, b, _)| (r, b as u32)).collect();
    let inline_cost: usize = pooled.iter().map(|&(_, b)| li_sequence(tmp, b as i32 as i64).len() + 1).sum();
    let pool = pooled.len() + 1 < inline_cost;
    if pool {
        let over = out.new_label();
        out.jal(tmp, over);
        pooled.iter().for_each(|&(_, b)| out.push(Inst::Word(b)));
        out.bind(over);
        for (k, &(r, _)) in pooled.iter().enumerate() {
            out.fload(FFmt::S, r, tmp, 4 * k as i32);
        }
    }
    for &(r, bits, double) in fconsts {
        if pool && !double && bits != 0 {
            continue;
        }
        let src = if bits == 0 {
            XReg::ZERO
        } else {
            out.li(tmp, int_bits(bits, double));
            tmp
        };
        out.push(Inst::FMvFromInt { fmt: if double { FFmt::D } else { FFmt::S }, rd: r, rs1: src });
    }
}

/// The uniform variables the prologue of a leaf for `plan` reads: the bases and terms of
/// linear values and pointers (stream starts and steps) and the bound of its prefix.
fn prologue_vars(plan: &Plan) -> Vec<Var> {
    fn lin_vars(lin: &Lin, vars: &mut Vec<Var>) {
        vars.extend(lin.terms.iter().map(|t| t.0));
        vars.extend(lin.products.iter().flat_map(|((a, b), _)| [*a, *b]));
        vars.extend(lin.scaled.iter().map(|t| t.0));
    }
    let mut vars: Vec<Var> = Vec::new();
    for class in plan.classes.values() {
        match class {
            Class::Lin(lin) => lin_vars(lin, &mut vars),
            Class::PtrLin { base, off, .. } => {
                lin_vars(off, &mut vars);
                vars.push(*base);
            }
            _ => {}
        }
    }
    for p in plan.prefix.iter().chain(plan.split.as_ref().map(|(_, p)| p)) {
        vars.push(p.bound);
        if let Some(g) = &p.guard {
            lin_vars(&g.lin, &mut vars);
            vars.push(g.bound);
        }
    }
    vars
}

impl Emitter<'_> {
    /// The vector values of the body no emitted statement reads (under this plan's classes:
    /// a mask known true or false is not read, nor the side of a select it rules out).
    fn unused_values(&self) -> FxHashSet<Var> {
        let known = |v: &Var| matches!(self.plan.classes.get(v), Some(Class::AllTrue | Class::AllFalse));
        let is_false = |v: &Var| self.plan.classes.get(v) == Some(&Class::AllFalse);
        let mut needed: FxHashSet<Var> = FxHashSet::default();
        let mut unused = FxHashSet::default();
        for s in self.nest_body.iter().rev() {
            let reads: tilec_vector::vir::Operands = match s {
                Stmt::Assign { dst, expr, .. } => {
                    if self.plan.classes.get(dst) != Some(&Class::Vector) {
                        continue;
                    }
                    if !needed.contains(dst) {
                        unused.insert(*dst);
                        continue;
                    }
                    match expr {
                        Expr::Load { mask: Some(m), other, .. } if is_false(m) => other.iter().copied().collect(),
                        Expr::Load { ptr, mask: Some(m), other } if known(m) => {
                            [Some(*ptr), *other].into_iter().flatten().collect()
                        }
                        Expr::Select { cond, on_true, on_false } if known(cond) => {
                            [if is_false(cond) { *on_false } else { *on_true }].into_iter().collect()
                        }
                        Expr::Select { .. } => {
                            self.sign_fold(*dst).map_or_else(|| expr.operands(), |x| [x].into_iter().collect())
                        }
                        e => e.operands(),
                    }
                }
                Stmt::Store { mask: Some(m), .. } if is_false(m) => continue,
                Stmt::Store { ptr, value, mask, .. } => {
                    [Some(*ptr), Some(*value), mask.filter(|m| !known(m))].into_iter().flatten().collect()
                }
                s => match stmt_reads(s) {
                    Some(reads) => reads,
                    None => return FxHashSet::default(),
                },
            };
            needed.extend(reads);
        }
        unused
    }

    /// The `x` of a select of the body that is `x ^ (x >> (bits - 1))`
    /// ([`tilec_vector::patterns::sign_fold`]).
    pub(super) fn sign_fold(&self, r: Var) -> Option<Var> {
        let def = |v: Var| {
            self.nest_body.iter().find_map(|s| match s {
                Stmt::Assign { dst, expr, .. } if *dst == v => Some(expr),
                _ => None,
            })
        };
        tilec_vector::patterns::sign_fold(self.f, r, def, |v| self.int_constant(v))
    }

    /// The strip code of the body into `self.asm` (the `vtype` is the base one before and
    /// after); each value's registers are freed after its last use.
    fn strip(&mut self, progress: &Cell<Progress>) -> Option<()> {
        let base = self.base_vtype();
        self.unused = self.unused_values();
        for (at, s) in self.nest_body.iter().enumerate() {
            self.at = at;
            progress.set(Progress::Statement(at));
            let unused = matches!(s, Stmt::Assign { dst, .. } if self.unused.contains(dst));
            if !unused {
                self.stmt(s)?;
            }
            self.free_temps();
            let mut reads = stmt_reads(s)?;
            reads.sort();
            reads.dedup();
            if let Stmt::Assign { dst, .. } = s {
                if !self.plan.last_use.contains_key(dst) {
                    reads.push(*dst);
                }
            }
            for v in reads {
                if self.plan.last_use.get(&v).is_none_or(|&l| l == at) {
                    if let Some(r) = self.vals.remove(&v) {
                        let w = self.width_of(v)?;
                        self.free_v(r, w);
                    }
                }
            }
        }
        if self.vtype != base {
            self.asm.vsetvli(XReg::ZERO, XReg::ZERO, base);
            self.vtype = base;
        }
        Some(())
    }
}

/// A strip with its calls (instruction index of each `auipc`, the symbol).
type StripCode = (Assembler, Vec<(usize, String)>);

/// The strip as the full-strip loop runs it, entered at another vtype than `base`: a strip
/// of straight-line code that starts by changing the vtype (keeping `vl`) and ends by
/// changing it back to `base` runs in a loop entered at its first vtype, without its first
/// instruction and with its last one changed to that vtype, or dropped when the strip's
/// last vtype is that one already. `None` for any other strip. The loop and the tail strip
/// are entered at the vtype returned, and `base` is set again after them.
fn loop_strip(strip: &Assembler, base: VType) -> Option<(StripCode, VType)> {
    let insts = strip.insts();
    let keeps_vl = |i: &Inst| matches!(i, Inst::VSetVli { rd: XReg::ZERO, avl: XReg::ZERO, .. });
    let (Some(&Inst::VSetVli { vtype: entry, .. }), Some(&Inst::VSetVli { vtype: last, .. })) =
        (insts.first(), insts.last())
    else {
        return None;
    };
    let straight = insts.iter().all(|i| match i {
        Inst::Branch { .. } | Inst::Jal { .. } | Inst::Jalr { .. } | Inst::VSetIVli { .. } | Inst::VSetVl { .. } => {
            false
        }
        Inst::VSetVli { .. } => keeps_vl(i),
        _ => true,
    });
    if !straight || entry == base || last != base || insts.len() < 2 {
        return None;
    }
    let body = &insts[1..insts.len() - 1];
    let exit = body.iter().rev().find_map(|i| match i {
        Inst::VSetVli { vtype, .. } => Some(*vtype),
        _ => None,
    });
    let mut code = Assembler::new();
    body.iter().for_each(|&i| code.push(i));
    if exit.is_some_and(|vt| vt != entry) {
        code.vsetvli(XReg::ZERO, XReg::ZERO, entry);
    }
    Some(((code, Vec::new()), entry))
}

/// The one-element buffer whose row accumulation the leaf returns in a register
/// ([`crate::rvv::Leaf::returns`]) and takes no address of: the nest's only accumulation,
/// fresh (the leaf never reads the element), in a nest without outer loops.
fn returned_buffer(f: &Function, nest: &Nest, plan: &Plan) -> Option<Buf> {
    if !plan.outer.is_empty() {
        return None;
    }
    let mut accs = nest
        .body
        .iter()
        .filter(|s| matches!(s, Stmt::Accumulate { .. } | Stmt::AccumulateArg { .. } | Stmt::AccumulateWith { .. }));
    let (Some(Stmt::Accumulate { buf, .. }), None) = (accs.next(), accs.next()) else { return None };
    (f.bufs[*buf].len == 1 && plan.fresh.contains(buf) && !plan.scans.contains(buf)).then_some(*buf)
}

/// A leaf at one register shape and what the search learns from it.
pub(super) struct Emitted {
    pub(super) leaf: Leaf,
    /// The uniform values the strip splatted per strip (in first-use order).
    pub(super) splatted: Vec<(Var, u32)>,
    pub(super) cost: StripCost,
    /// Integer live-ins the strip reads from their stack slots.
    pub(super) stacked_in_memory: usize,
    /// Scalar registers no part of the leaf used.
    pub(super) spare_x: usize,
}

/// The leaf at one register shape, with the splats of `hoist` held in registers for the
/// whole range.
pub(super) fn try_emit<'p>(
    f: &'p Function,
    nest: &'p Nest,
    plan: &'p Plan,
    attempt: Attempt<'p>,
    checked: Option<Checked<'p>>,
    progress: &Cell<Progress>,
) -> Option<Emitted> {
    let Attempt {
        shape,
        hoist,
        spill,
        ext,
        rest,
        stacked_uniforms,
        stacked_in_registers,
        slot_base_reserve,
        last_lane,
        spill_streams,
        widen_at_16,
    } = attempt;
    // The prefix the range is split at (its lanes run the strip of `plan`, the others the
    // strip of `rest`).
    let split = rest.and(plan.split.as_ref()).map(|(_, p)| p);
    progress.set(Progress::Setup);
    let mut args = Vec::new();
    let mut scalars = FxHashMap::default();
    let mut bufs = FxHashMap::default();
    let (mut xargs, mut fargs) = (0u8, 0u8);
    // Integer arguments after the eighth arrive on the stack (8 bytes each, in order); the
    // prologue loads them into pool registers.
    let mut stacked: Vec<LeafArg> = Vec::new();
    // With `stacked_uniforms`, the integers the prologue reads (stream bases and terms,
    // the prefix bound) come first, so that only values the strip reads stay on the stack.
    let mut live_in = plan.live_in.clone();
    let prologue = if stacked_uniforms { prologue_vars(plan) } else { Vec::new() };
    live_in.sort_by_key(|v| !prologue.contains(v));
    for &v in &live_in {
        if matches!(f.ty(v), Elem::Scalar(s) if s.is_float()) {
            scalars.insert(v, Opnd::F(FReg::new(10 + fargs).filter(|_| fargs < 8)?));
            fargs += 1;
        } else if xargs < 8 {
            scalars.insert(v, Opnd::X(XReg::new(10 + xargs)?));
            xargs += 1;
        } else {
            stacked.push(LeafArg::Var(v));
        }
        args.push(LeafArg::Var(v));
    }
    let returns = returned_buffer(f, nest, plan);
    for &b in &plan.bufs {
        if Some(b) == returns {
            bufs.insert(b, XReg::ZERO);
            continue;
        }
        if xargs < 8 {
            bufs.insert(b, XReg::new(10 + xargs)?);
            xargs += 1;
        } else {
            stacked.push(LeafArg::Buf(b));
        }
        args.push(LeafArg::Buf(b));
    }
    // A checked leaf takes the bounds table last.
    let mut table = None;
    if checked.is_some() {
        if xargs < 8 {
            table = Some(XReg::new(10 + xargs)?);
            xargs += 1;
        } else {
            stacked.push(LeafArg::Bounds);
        }
        args.push(LeafArg::Bounds);
    }
    // Popped from the end: t0 first, callee-saved s0..s11 last (saved on the stack if
    // used), and without calls `ra` after them (saved like them, restored before `ret`).
    let calls = calls_sleef(f, nest);
    let (first_saved, last_saved): (&[u8], &[u8]) = if calls { (&[8, 9], &[]) } else { (&[9], &[8, 1]) };
    let saved: Vec<XReg> = first_saved
        .iter()
        .copied()
        .chain(18..28)
        .chain(last_saved.iter().copied())
        .rev()
        .filter_map(XReg::new)
        .collect();
    let mut xpool: Vec<XReg> = saved.clone();
    xpool.extend((10 + xargs..18).rev().filter_map(XReg::new));
    xpool.extend([XReg::T6, XReg::T5, XReg::T4, XReg::T3, XReg::T2, XReg::T1, XReg::T0]);
    let mut fpool: Vec<FReg> = (10 + fargs..18).rev().filter_map(FReg::new).collect();
    fpool.extend((0..8).chain(28..32).rev().filter_map(FReg::new));
    // With calls, everything that lives across a call is in a callee-saved register: the
    // arguments move there. Without outer loops, only the live-ins the strip reads do
    // ([`Emitter::scalar`]: the others, and scratch addresses, only feed the prologue,
    // which runs before any call); with them, every live-in moves, as the outer loops
    // compute stream starts again.
    let mut arg_moves: Vec<(Opnd, Opnd)> = Vec::new();
    let mut args_in_place: FxHashSet<Var> = FxHashSet::default();
    if calls {
        xpool = saved.clone();
        fpool = [8u8, 9].into_iter().chain(18..28).rev().filter_map(FReg::new).collect();
        for v in &plan.live_in {
            let Some(op) = scalars.get_mut(v) else { continue };
            if plan.outer.is_empty() {
                args_in_place.insert(*v);
                continue;
            }
            let to = match op {
                Opnd::X(_) => Opnd::X(xpool.pop()?),
                Opnd::F(_) => Opnd::F(fpool.pop()?),
                _ => return None,
            };
            arg_moves.push((to, *op));
            *op = to;
        }
        for b in plan.bufs.iter().filter(|_| !plan.outer.is_empty()) {
            let Some(r) = bufs.get_mut(b) else { continue };
            let to = xpool.pop()?;
            arg_moves.push((Opnd::X(to), Opnd::X(*r)));
            *r = to;
        }
        if let Some(r) = &mut table {
            let to = xpool.pop()?;
            arg_moves.push((Opnd::X(to), Opnd::X(*r)));
            *r = to;
        }
    }
    // Stacked arguments: loaded into pool registers, or (`stacked_uniforms`) the integer
    // live-ins left in their stack slots and loaded where the strip reads them.
    let mut stack_loads: Vec<(XReg, i32)> = Vec::new();
    let mut in_memory: FxHashMap<Var, i32> = FxHashMap::default();
    let mut in_registers = 0;
    for (slot, arg) in stacked.iter().enumerate() {
        let offset = slot as i32 * 8;
        match *arg {
            LeafArg::Var(v) if stacked_uniforms && !prologue.contains(&v) => {
                if in_registers < stacked_in_registers {
                    in_registers += 1;
                } else {
                    in_memory.insert(v, offset);
                    continue;
                }
            }
            _ => {}
        }
        let r = xpool.pop()?;
        match *arg {
            LeafArg::Var(v) => scalars.insert(v, Opnd::X(r)).map_or(Some(()), |_| None)?,
            LeafArg::Buf(b) => bufs.insert(b, r).map_or(Some(()), |_| None)?,
            LeafArg::Bounds => table = Some(r),
        }
        stack_loads.push((r, offset));
    }
    let memory = match in_memory.is_empty() {
        true => None,
        false => {
            Some(StackedUniforms { vars: in_memory, args: xpool.pop()?, temps: [xpool.pop()?, xpool.pop()?], next: 0 })
        }
    };

    let mut e = Emitter {
        f,
        fp16_conversions: ext.fp16_conversions(),
        plan,
        nest_body: &nest.body,
        shape,
        asm: Assembler::new(),
        vused: [false; 32],
        vals: FxHashMap::default(),
        scalars,
        args_in_place,
        arg_moves,
        bufs,
        streams: Vec::new(),
        xpool,
        fpool,
        xconsts: Vec::new(),
        fconsts: Vec::new(),
        vtype: VType::new(Sew::E8, Lmul::M1),
        v0: None,
        temps: Vec::new(),
        dims: nest.shape.len(),
        row_accs: Vec::new(),
        row_regs: FxHashMap::default(),
        call_vl: None,
        vxrm_rne: false,
        calls: Vec::new(),
        at: 0,
        tail_undisturbed: nest
            .body
            .iter()
            .any(|s| matches!(s, Stmt::Accumulate { .. } | Stmt::AccumulateWith { .. } | Stmt::AccumulateArg { .. })),
        scan_vals: FxHashMap::default(),
        row_args: Vec::new(),
        arg_regs: FxHashMap::default(),
        arg_scratch: None,
        strip_x: None,
        exp_full_f: None,
        erf_vl: None,
        last_lane: None,
        last_lane_allowed: last_lane,
        widen_at_16,
        memory,
        stream_slots: None,
        unused: FxHashSet::default(),
        vlmax: XReg::ZERO,
        step_regs: Vec::new(),
        hoisted: Vec::new(),
        splatted: Vec::new(),
        spill: None,
        checks: None,
        span: None,
    };
    e.vlmax = e.xreg()?;
    if let Some(reserve) = spill_streams {
        e.stream_slots = Some(StreamSlots { temps: [e.xreg()?, e.xreg()?], next: 0, count: 0, reserve });
    }
    // The scalars read from scratch once per outer iteration.
    for &(v, ..) in &plan.outer_loads {
        let op = match f.ty(v) {
            Elem::Scalar(s) if s.is_float() => Opnd::F(e.fpool.pop()?),
            _ => Opnd::X(e.xreg()?),
        };
        e.scalars.insert(v, op);
    }
    if spill {
        e.spill = Some(Spill {
            computed: None,
            slots: FxHashMap::default(),
            size: 0,
            bases: Vec::new(),
            reserve: slot_base_reserve,
        });
    }
    e.vused[0] = true;
    if calls {
        e.call_vl = Some(e.xreg()?);
    }
    let base = e.base_vtype();
    e.vtype = base;
    if let Some(Checked { first_site, own_ranges }) = checked {
        let ranges = f.params.iter().filter(|p| matches!(f.ty(p.var), Elem::Ptr(_))).count();
        let lanes = e.alloc_v(0)?;
        e.checks =
            Some(check::Checks { table: table?, ranges, own_ranges, first_site, sites: Vec::new(), lanes, x: None });
    }
    for s in &nest.body {
        let Some((buf, index, ..)) = accumulation(f, s) else { continue };
        let buf = &buf;
        if plan.is_row(index) && !plan.scans.contains(buf) {
            let st = scalar_of(f.bufs[*buf].elem);
            let reg = match shape.acc_lanes {
                AccLanes::Group => e.alloc_v(mem_bytes(st)?)?,
                AccLanes::Single => e.alloc_v(0)?,
            };
            e.row_regs.insert(*buf, reg);
        }
    }

    for s in &nest.body {
        let Stmt::AccumulateArg { vals, index, .. } = s else { continue };
        let mut strides = index.strides.clone();
        strides.resize(e.dims, 0);
        if plan.flat_stride(&strides) == 0 && !plan.inner.is_empty() {
            let best = e.alloc_v(mem_bytes(scalar_of(f.bufs[*vals].elem))?)?;
            let best_index = e.alloc_v(POSITION_BYTES)?;
            e.arg_regs.insert(*vals, ArgRegs { best, best_index });
        }
    }

    for &(var, w) in hoist {
        // A uniform copied in the body has no register before the strip: it stays a splat.
        let Some(src) = e.uniform_source(var) else { continue };
        let reg = e.alloc_v(w)?;
        e.hoisted.push(Hoisted { var, w, reg, src });
    }

    // ----- the strip (twice for a split range) ---------------------------------------
    e.strip(progress)?;
    let looped = loop_strip(&e.asm, base);
    // The loop bumps each stream and the index and branches.
    let control = e.streams.len() as u32 + 2;
    let cost = match &looped {
        Some(((code, _), entry)) => StripCost::of(code.insts(), *entry, control, shape.lmul_regs),
        None => StripCost::of(e.asm.insts(), base, control, shape.lmul_regs),
    };
    let mut loop_strips = vec![looped];
    let mut strips: Vec<StripCode> = vec![(e.asm.clone(), std::mem::take(&mut e.calls))];
    let mut rest_consts = (0..0, 0..0);
    if let Some(rest) = rest {
        e.plan = rest;
        e.asm = Assembler::new();
        e.v0 = None;
        // The first strip's spilled values are dead once it has run: the rest's slots start
        // over at slot 0 (with the same base registers), the area fits the larger of the two.
        let first_area = e.spill.as_mut().map(|s| {
            s.slots.clear();
            std::mem::take(&mut s.size)
        });
        let (x0, f0) = (e.xconsts.len(), e.fconsts.len());
        e.strip(progress)?;
        if let (Some(s), Some(first)) = (e.spill.as_mut(), first_area) {
            s.size = s.size.max(first);
        }
        rest_consts = (x0..e.xconsts.len(), f0..e.fconsts.len());
        loop_strips.push(loop_strip(&e.asm, base));
        strips.push((e.asm.clone(), std::mem::take(&mut e.calls)));
    }
    progress.set(Progress::Function);
    // Nothing spills after the strip; the area holds the slots the strip used.
    let spill_area = e.spill.take().filter(|s| s.size > 0);
    // The range's cut: the prefix run (the rest skipped), or the split.
    let cut = plan.prefix.as_ref().or(split);
    // A constant prefix bound gets its register (the prologue loads the constants).
    // A constant bound of the prefix or of its guard gets its register (a live-in bound
    // is read where it is: only the prologue reads it).
    let bounds = cut.into_iter().flat_map(|p| [Some(p.bound), p.guard.as_ref().map(|g| g.bound)]).flatten();
    for bound in bounds.collect::<Vec<_>>() {
        if !e.scalars.contains_key(&bound) {
            e.operand(bound)?;
        }
    }

    // ----- the function ------------------------------------------------------------
    // Scratch registers, never live across the strip (`t0`, `t1` belong to the calls).
    let nan_checks = !e.row_args.is_empty();
    let (tmp, tmp2) = match (calls, nan_checks) {
        (true, _) => (XReg::T2, XReg::T3),
        // A checked leaf's check registers are only used inside the strip.
        (false, true) if e.checks.is_some() => {
            let x = e.check_xregs()?;
            (x[2], x[3])
        }
        (false, true) => (e.xreg()?, e.xreg()?),
        // The second is only used by NaN checks.
        (false, false) => {
            let tmp = e.xreg()?;
            (tmp, tmp)
        }
    };
    let vlmax = e.vlmax;
    // Group accumulators finish at `vl` = VLMAX: the tail strips set it back.
    let restore_vl = e.row_accs.iter().any(|a| a.lanes == AccLanes::Group);
    // The float register row accumulators move their scratch element through.
    let acc_ftmp = match e.row_accs.is_empty() {
        true => None,
        false => e.fpool.pop(),
    };
    let finish_reg = match e.row_accs.iter().map(|a| a.w).max() {
        Some(w) => Some(e.alloc_v(w)?),
        None => None,
    };
    let arg_finish_regs = match e.row_args.is_empty() {
        true => None,
        false => Some((e.alloc_v(0)?, e.alloc_v(0)?, e.alloc_v(POSITION_BYTES)?, e.fpool.pop()?)),
    };
    let rem = e.xreg()?;
    let count = e.xreg()?;
    // The length of the rest of a split range.
    let rest_len = match split {
        Some(_) => Some(e.xreg()?),
        None => None,
    };
    let guard_reg = match cut.and_then(|p| p.guard.as_ref()) {
        Some(_) => Some(e.xreg()?),
        None => None,
    };

    // The full-strip count is dead once the loop limit is computed from it.
    let lim = count;
    let outer: Vec<(usize, XReg)> = plan.outer.iter().map(|&d| Some((d, e.xreg()?))).collect::<Option<_>>()?;
    let steps: Vec<Coef> = e.streams.iter().map(|s| e.step(s)).collect();
    let mut bumps: Vec<(Coef, XReg)> = Vec::new();
    // Spilled streams with a constant step of their own form their bump when they move.
    let own_bump: Vec<bool> = (0..steps.len())
        .map(|k| {
            e.streams[k].slot.is_some()
                && steps[k].constant().is_some()
                && !e.streams.iter().zip(&steps).any(|(s, st)| s.slot.is_none() && *st == steps[k])
        })
        .collect();
    for (k, step) in steps.iter().enumerate() {
        if own_bump[k] {
            continue;
        }
        if step.constant() != Some(0) && !bumps.iter().any(|(s, _)| s == step) {
            // A step of 1 bumps by `vlmax` itself; a runtime step needs its step register.
            if step.constant().is_none() {
                e.step_reg(step)?;
            }
            let reg = if step.constant() == Some(1) { vlmax } else { e.xreg()? };
            bumps.push((step.clone(), reg));
        }
    }
    let bump_of = |step: &Coef| bumps.iter().find(|(s, _)| s == step).map(|(_, r)| *r);
    // Uniform products and outer counter × runtime stride products read by the sums.
    let mut lins: Vec<Lin> = e.streams.iter().map(|s| s.lin.clone()).collect();
    lins.extend(cut.map(|p| p.lin.clone()));
    lins.extend(cut.and_then(|p| p.guard.as_ref()).map(|g| g.lin.clone()));
    let mut products: Vec<((Var, Var), XReg)> = Vec::new();
    let mut outer_scaled: Vec<((usize, Var), XReg)> = Vec::new();
    for lin in &lins {
        for &(pair, _) in &lin.products {
            if !products.iter().any(|(p, _)| *p == pair) {
                products.push((pair, e.xreg()?));
            }
        }
        for (v, cs) in &lin.scaled {
            for &(dim, _) in &outer {
                if cs[dim] != 0 && !outer_scaled.iter().any(|(k, _)| *k == (dim, *v)) {
                    outer_scaled.push(((dim, *v), e.xreg()?));
                }
            }
        }
    }

    // With outer loops, a range length that does not depend on them is computed once,
    // before them: its full strips (`.0`) and the lanes left (`.1`), when registers allow.
    let invariant_cut = cut.is_none_or(|p| {
        let fixed = |lin: &Lin| plan.outer.iter().all(|&d| lin.stride(d) == Coef::ZERO);
        fixed(&p.lin) && p.guard.as_ref().is_none_or(|g| fixed(&g.lin))
    });
    // A range no longer than the base vtype's VLMAX at the smallest VLEN is one strip,
    // full or not: no strip count, no loop.
    let one_strip = (plan.flat_len as u64) <= u64::from(base.vlmax(MIN_VLEN as u32));
    // One strip over a whole range of at most 31 lanes sets `vl` by an immediate.
    let constant_len =
        (one_strip && cut.is_none() && e.last_lane.is_none() && !e.row_accs.iter().any(|a| a.zero_when_short))
            .then(|| u8::try_from(plan.flat_len).ok().filter(|&n| n < 32))
            .flatten();
    let hoisted = match !plan.outer.is_empty()
        && constant_len.is_none()
        && invariant_cut
        && !e.row_accs.iter().any(|a| a.zero_when_short)
    {
        true if e.xpool.len() >= 2 => e.xreg().zip(e.xreg()),
        _ => None,
    };
    // With outer loops, the part of a stream's start that no outer counter changes (its
    // base, uniform terms and offset) is summed once, before them, into a register of its
    // own when one is left: each outer iteration then adds only the counters' part.
    // Only when that takes two instructions or more from each of two outer iterations or
    // more, and no live-in or stream waits in memory for a register.
    let outer_trips: u64 = plan.outer.iter().map(|&d| u64::from(nest.shape[d])).product();
    let mut invariant_starts: Vec<(usize, XReg)> = Vec::new();
    if !plan.outer.is_empty() && outer_trips >= 2 && e.memory.is_none() && e.stream_slots.is_none() {
        for (k, s) in e.streams.iter().enumerate() {
            let lin = &s.lin;
            let coefs = lin.terms.iter().map(|t| t.1).chain(lin.products.iter().map(|p| p.1));
            let steps: usize =
                coefs.map(|c| if c * s.scale == 1 { 1 } else { 2 }).sum::<usize>() + (lin.offset != 0) as usize;
            // A scalar read from scratch per outer iteration is no invariant.
            let reloaded = |v: Var| plan.outer_loads.iter().any(|&(l, ..)| l == v);
            let invariant = !lin.terms.iter().any(|&(v, _)| reloaded(v))
                && !lin.products.iter().any(|&((a, b), _)| reloaded(a) || reloaded(b))
                && !matches!(s.base, Base::Var(v) if reloaded(v));
            if invariant && s.slot.is_none() && steps >= 2 && !matches!(s.base, Base::Buf(b) if Some(b) == returns) {
                let Some(r) = e.xpool.pop() else { break };
                invariant_starts.push((k, r));
            }
        }
    }
    // Else, a prefix that no outer counter moves under a guard that one does: the prefix's
    // length is computed once, the guard in every outer iteration (with a register the
    // streams' starts left).
    let prefix_len = match cut {
        Some(p) if !plan.outer.is_empty() && hoisted.is_none() && !invariant_cut => {
            let fixed = plan.outer.iter().all(|&d| p.lin.stride(d) == Coef::ZERO);
            fixed.then(|| e.xpool.pop()).flatten()
        }
        _ => None,
    };
    let mut out = Assembler::new();
    let mut used_saved: Vec<XReg> = saved.iter().copied().filter(|r| !e.xpool.contains(r)).collect();
    let used_fsaved: Vec<FReg> = if calls {
        [8u8, 9].into_iter().chain(18..28).filter_map(FReg::new).filter(|r| !e.fpool.contains(r)).collect()
    } else {
        Vec::new()
    };
    if calls {
        used_saved.push(XReg::RA);
    }
    let fsave_at = used_saved.len() as i32 * 8;
    let frame = ((used_saved.len() + used_fsaved.len()) as i32 * 8 + 15) / 16 * 16;
    if frame > 0 {
        out.addi(XReg::SP, XReg::SP, -frame);
        for (i, &r) in used_saved.iter().enumerate() {
            out.sd(r, XReg::SP, i as i32 * 8);
        }
        for (i, &r) in used_fsaved.iter().enumerate() {
            out.fstore(FFmt::D, r, XReg::SP, fsave_at + i as i32 * 8);
        }
    }
    // The stack pointer at entry, once the register (callee-saved, maybe) is saved.
    if let Some(m) = &e.memory {
        out.addi(m.args, XReg::SP, frame);
    }
    for &(r, offset) in &stack_loads {
        out.ld(r, XReg::SP, frame + offset);
    }
    // The vector save area of the calls: 32 registers of `vlenb` bytes below the frame.
    let save_area = |out: &mut Assembler, grow: bool| {
        out.csrr(XReg::T0, Csr::VLENB);
        out.slli(XReg::T0, XReg::T0, 5);
        if grow {
            out.sub(XReg::SP, XReg::SP, XReg::T0);
        } else {
            out.add(XReg::SP, XReg::SP, XReg::T0);
        }
    };
    if calls {
        save_area(&mut out, true);
    }
    // The spill area, sized in `tmp`, then the slots' address registers and the `vlenb`
    // the strip computes the other addresses from.
    let spill_area_size = |out: &mut Assembler, area: &Spill| {
        out.csrr(tmp, Csr::VLENB);
        out.slli(tmp, tmp, area.area_shift() as i32);
    };
    // The epilogue sizes the area again in `tmp`: not the register of a returned integer.
    if spill_area.is_some() && returns.is_some() && tmp == XReg::A0 {
        return None;
    }
    if let Some(area) = &spill_area {
        spill_area_size(&mut out, area);
        out.sub(XReg::SP, XReg::SP, tmp);
        out.csrr(tmp, Csr::VLENB);
        for &(slot, reg) in &area.bases {
            slot_address(&mut out, reg, tmp, slot);
        }
        if let Some((vlenb, _)) = area.computed {
            out.mv(vlenb, tmp);
        }
    }
    // The spilled streams' slots, below everything (at `sp + slot` in the loops).
    let stream_temp = e.stream_slots.as_ref().map(|s| s.temps[0]);
    let stream_area = e.stream_slots.as_ref().map_or(0, |s| (s.count * 8 + 15) / 16 * 16);
    if stream_area > 0 {
        out.addi(XReg::SP, XReg::SP, -stream_area);
    }
    // `s.reg += by` for a stream in a register, through its slot for a spilled one.
    let bump_stream = |out: &mut Assembler, s: &Stream, by: XReg| -> Option<()> {
        match s.slot {
            None => out.add(s.reg, s.reg, by),
            Some(slot) => {
                let t = stream_temp?;
                out.ld(t, XReg::SP, slot);
                out.add(t, t, by);
                out.sd(t, XReg::SP, slot);
            }
        }
        Some(())
    };
    for &(to, from) in &e.arg_moves {
        match (to, from) {
            (Opnd::X(t), Opnd::X(f)) => out.mv(t, f),
            (Opnd::F(t), Opnd::F(f)) => out.push(Inst::FBin { op: FBinOp::Sgnj, fmt: FFmt::D, rd: t, rs1: f, rs2: f }),
            _ => return None,
        }
    }
    // Constants the second strip of a split range alone reads are loaded before it runs.
    let rest_xconsts = rest_consts.0.clone();
    let rest_fconsts = rest_consts.1.clone();
    let prologue_x: Vec<(XReg, i64)> =
        e.xconsts.iter().enumerate().filter(|(k, _)| !rest_xconsts.contains(k)).map(|(_, &c)| c).collect();
    let prologue_f: Vec<(FReg, u64, bool)> =
        e.fconsts.iter().enumerate().filter(|(k, _)| !rest_fconsts.contains(k)).map(|(_, &c)| c).collect();
    load_constants(&mut out, &prologue_x, &prologue_f, tmp);
    let regs = SumRegs { scalars: &e.scalars, outer: &outer, products: &products, outer_scaled: &outer_scaled, tmp };
    for &((a, b), r) in &products {
        out.mul(r, regs.x(a)?, regs.x(b)?);
    }
    for (step, r) in &e.step_regs {
        let parts = step.vars.iter().map(|&(v, k)| Some((regs.x(v)?, k))).collect::<Option<Vec<_>>>()?;
        sum_into(&mut out, *r, &parts, step.konst, tmp);
    }
    // A leaf that runs one strip of a constant length and reads no VLMAX (no outer loops,
    // split, accumulators, scans, calls, checks or spills) sets that length here, once.
    let vl_once = constant_len.filter(|_| {
        outer.is_empty()
            && split.is_none()
            && e.row_accs.is_empty()
            && e.row_args.is_empty()
            && plan.scans.is_empty()
            && !calls
            && e.checks.is_none()
            && spill_area.is_none()
    });
    match vl_once {
        Some(len) => out.vsetivli(XReg::ZERO, len, base),
        None => out.vsetvli(vlmax, XReg::ZERO, base),
    }
    if e.vxrm_rne {
        out.push(Inst::CsrImm { op: CsrOp::ReadWrite, rd: XReg::ZERO, csr: Csr::VXRM, uimm: VXRM_RNE });
    }
    // One strip needs the bumps only to move on to a split range's rest.
    let bumped = !one_strip || split.is_some();
    for (step, r) in bumps.iter().filter(|(step, _)| bumped && step.constant() != Some(1)) {
        match step.constant() {
            Some(c) => mul_const(&mut out, *r, vlmax, c),
            None => out.mul(*r, e.step_regs.iter().find(|(s, _)| s == step)?.1, vlmax),
        }
    }
    let cut_regs = CutRegs { f, plan, cut, outer: &outer, rem, count, tmp, rest_len, guard: guard_reg, prefix_len };
    if let Some(r) = prefix_len {
        let prefix = CutRegs { rem: r, rest_len: None, guard: None, prefix_len: None, ..cut_regs };
        emit_cut(&mut out, &prefix, &regs, &mut HeldPart { reg: count, parts: None })?;
    }
    if let Some((full, left)) = hoisted {
        emit_cut(&mut out, &cut_regs, &regs, &mut HeldPart { reg: count, parts: None })?;
        if one_strip {
            out.mv(left, rem);
        } else {
            out.alu(AluOp::Divu, full, rem, vlmax);
            out.alu(AluOp::Remu, left, rem, vlmax);
        }
    }
    let base_reg_of = |s: &Stream| match s.base {
        Base::Var(v) => match e.scalars.get(&v) {
            Some(Opnd::X(r)) => Some(Some(*r)),
            _ => None,
        },
        Base::Buf(b) => Some(Some(e.bufs[&b])),
        Base::Value => Some(None),
    };
    // The streams' invariant parts (no outer counter: `outer` left out of the sums).
    let invariant_regs = SumRegs { outer: &[], ..regs };
    let mut invariant_held = HeldPart { reg: count, parts: None };
    for &(k, r) in &invariant_starts {
        let s = &e.streams[k];
        let lin = Lin { strides: vec![0; s.lin.strides.len()], scaled: Vec::new(), ..s.lin.clone() };
        emit_sum(&mut out, r, base_reg_of(s)?, &lin, s.scale, &invariant_regs, &mut invariant_held)?;
    }
    let mut tops = Vec::new();
    for &(_, counter) in &outer {
        out.mv(counter, XReg::ZERO);
        let top = out.new_label();
        out.bind(top);
        tops.push(top);
    }
    if !outer.is_empty() {
        out.vsetvli(XReg::ZERO, vlmax, base);
    }
    for &((dim, v), r) in &outer_scaled {
        let counter = outer.iter().find(|(d, _)| *d == dim)?.1;
        out.mul(r, counter, regs.x(v)?);
    }
    // `count` is free until the range is split into strips.
    let mut held = HeldPart { reg: count, parts: None };
    for (v, buf, index) in &plan.outer_loads {
        let elem = f.bufs[*buf].elem;
        let bytes = scratch::elem_bytes(elem) as i64;
        let lin = Lin::affine(index, e.dims);
        // The address goes to the destination itself, or to `rem` (free until the range's
        // length is computed) for a float.
        let addr = match e.scalars.get(v)? {
            Opnd::X(r) => *r,
            _ => rem,
        };
        emit_sum(&mut out, addr, Some(e.bufs[buf]), &lin, bytes, &regs, &mut held)?;
        match (e.scalars.get(v)?, scratch::stored_scalar(elem)) {
            (Opnd::F(r), st) => out.fload(if st.bytes() == 8 { FFmt::D } else { FFmt::S }, *r, addr, 0),
            (Opnd::X(r), st) => {
                let op = match (st.bytes(), st.is_signed_int() || matches!(elem, Elem::Ptr(_))) {
                    (1, true) => LoadOp::Lb,
                    (1, false) => LoadOp::Lbu,
                    (2, true) => LoadOp::Lh,
                    (2, false) => LoadOp::Lhu,
                    (4, true) => LoadOp::Lw,
                    (4, false) => LoadOp::Lwu,
                    _ => LoadOp::Ld,
                };
                out.load(op, *r, addr, 0);
            }
            _ => return None,
        }
    }
    // The returned accumulator's element has no address to start from. The streams that
    // walk their base's register start last, once every other start has read it.
    let mut starts = Vec::new();
    for (k, s) in e.streams.iter().enumerate().filter(|(_, s)| !matches!(s.base, Base::Buf(b) if Some(b) == returns)) {
        starts.push((k, s, base_reg_of(s)?));
    }
    starts.sort_by_key(|&(_, s, base_reg)| base_reg == Some(s.reg));
    for (k, s, base_reg) in starts {
        if let Some(&(_, r)) = invariant_starts.iter().find(|&&(i, _)| i == k) {
            let lin = Lin { terms: Vec::new(), products: Vec::new(), offset: 0, ..s.lin.clone() };
            emit_sum(&mut out, s.reg, Some(r), &lin, s.scale, &regs, &mut held)?;
            continue;
        }
        match s.slot {
            None => emit_sum(&mut out, s.reg, base_reg, &s.lin, s.scale, &regs, &mut held)?,
            Some(slot) => {
                let t = stream_temp?;
                emit_sum(&mut out, t, base_reg, &s.lin, s.scale, &regs, &mut held)?;
                out.sd(t, XReg::SP, slot);
            }
        }
    }
    // Arg-accumulation lanes start from the scratch element (a broadcast load of the value;
    // the position less each lane's offset, see `RowArg`).
    // The vtype is the base one here (every vtype of a leaf has its VLMAX: `vl` stays).
    let mut arg_vtype = base;
    let mut set_vtype = |out: &mut Assembler, vt: VType| {
        if vt != arg_vtype {
            out.vsetvli(XReg::ZERO, XReg::ZERO, vt);
            arg_vtype = vt;
        }
    };
    for a in &e.row_args {
        set_vtype(&mut out, e.vtype_for(a.w));
        out.vload(sew(a.w), VMemMode::Strided(XReg::ZERO), a.best, a.vals_addr, Mask::Unmasked);
        set_vtype(&mut out, e.vtype_for(POSITION_BYTES));
        out.load(LoadOp::Lw, tmp, a.idxs_addr, 0);
        let step_reg = (!(a.step as u64).is_power_of_two()).then(|| {
            out.li(tmp2, a.step);
            tmp2
        });
        lane_offsets(&mut out, a.best_index, a.step, step_reg);
        out.vop(VBinOp::Rsub, a.best_index, a.best_index, tmp, Mask::Unmasked);
    }
    set_vtype(&mut out, base);
    // `vl` is VLMAX here; a single-register accumulator is set at `vl` = 1 and LMUL 1.
    let mut prologue_vtype = base;
    let mut vl_changed = false;
    for h in &e.hoisted {
        let vt = e.vtype_for(h.w);
        if vt != prologue_vtype {
            out.vsetvli(XReg::ZERO, XReg::ZERO, vt);
            prologue_vtype = vt;
        }
        out.vmv(h.reg, h.src.src());
    }
    for acc in &e.row_accs {
        // A single-register accumulator is its element 0: a scalar move sets it at any
        // LMUL (at `vl` = VLMAX here), when the element width is the vtype's; from the
        // scratch element when it is seeded.
        if let (true, Some(ftmp)) = (acc.seeded(base) && !acc.fresh, acc_ftmp) {
            if prologue_vtype.sew != sew(acc.w) {
                out.vsetivli(XReg::ZERO, 1, VType::new(sew(acc.w), Lmul::M1));
                prologue_vtype = VType::new(sew(acc.w), Lmul::M1);
                vl_changed = true;
            }
            acc.move_element(&mut out, acc.reg, false, tmp, ftmp);
            continue;
        }
        if acc.lanes == AccLanes::Single
            && prologue_vtype.sew == sew(acc.w)
            && acc.move_identity_to_element0(&mut out, acc.reg)
        {
            continue;
        }
        let vt = e.row_acc_vtype(acc);
        if vt != prologue_vtype {
            match acc.lanes {
                AccLanes::Group => out.vsetvli(XReg::ZERO, if vl_changed { vlmax } else { XReg::ZERO }, vt),
                AccLanes::Single => {
                    out.vsetivli(XReg::ZERO, 1, vt);
                    vl_changed = true;
                }
            }
            prologue_vtype = vt;
        }
        out.vmv(acc.reg, acc.identity.src());
    }
    if vl_changed {
        out.vsetvli(XReg::ZERO, vlmax, base);
    } else if prologue_vtype != base {
        out.vsetvli(XReg::ZERO, XReg::ZERO, base);
    }
    let tmp_is_flat_len = match (hoisted, constant_len) {
        (None, None) => emit_cut(&mut out, &cut_regs, &regs, &mut held)?,
        _ => false,
    };
    // The row sums whose skipped lanes would add +0.0 start at +0.0 instead when the prefix
    // is shorter than the range (`Plan::prefix_zero_sums`).
    if e.row_accs.iter().any(|a| a.zero_when_short) {
        let full = out.new_label();
        if !tmp_is_flat_len {
            out.li(tmp, plan.flat_len);
        }
        out.bge(rem, tmp, full);
        let mut vtype = base;
        for acc in e.row_accs.iter().filter(|a| a.zero_when_short) {
            let vt = e.row_acc_vtype(acc);
            if vt != vtype {
                out.vsetvli(XReg::ZERO, vlmax, vt);
                vtype = vt;
            }
            out.vmv(acc.reg, Opnd::Imm(0).src());
        }
        if vtype != base {
            out.vsetvli(XReg::ZERO, vlmax, base);
        }
        out.bind(full);
    }
    // The loop counter: a stream with a constant non-zero step (a runtime step may be 0).
    let counter_stream = e
        .streams
        .iter()
        .zip(&steps)
        .find(|(s, st)| s.slot.is_none() && st.constant().is_some_and(|c| c != 0))
        .map(|(s, st)| (s.reg, st));
    let mut calls_at: Vec<LeafCall> = Vec::new();
    let mut copy_strip = |out: &mut Assembler, (strip, calls): &StripCode| {
        let start = out.offset();
        for (at, symbol) in calls {
            calls_at.push(LeafCall { offset: (start + 4 * at) as u32, symbol: symbol.clone() });
        }
        out.append(strip);
    };
    // The end of a split range (its second part is skipped when empty).
    let done = split.map(|_| out.new_label());
    for (k, strip) in strips.iter().enumerate() {
        if k == 1 {
            // The lanes past the prefix, if any: the streams move on by the tail's lanes.
            let rest_len = rest_len?;
            out.beq(rest_len, XReg::ZERO, done?);
            load_constants(&mut out, &e.xconsts[rest_xconsts.clone()], &e.fconsts[rest_fconsts.clone()], tmp);
            for (s, step) in e.streams.iter().zip(&steps) {
                match step.constant() {
                    Some(0) => continue,
                    Some(c) => mul_const(&mut out, tmp, rem, c),
                    None => out.mul(tmp, rem, e.step_regs.iter().find(|(st, _)| st == step)?.1),
                }
                bump_stream(&mut out, s, tmp)?;
            }
            if !restore_vl {
                out.vsetvli(XReg::ZERO, vlmax, base);
            }
            out.mv(rem, rest_len);
        }
        let looped = loop_strips[k].as_ref();
        let tail = out.new_label();
        if let Some((_, left)) = hoisted.filter(|_| one_strip && k == 0) {
            out.mv(rem, left);
        }
        if !one_strip {
            // The full strips' count (`count`, or the hoisted one) and the lanes left in `rem`.
            let full = match hoisted.filter(|_| k == 0) {
                Some((full, left)) => {
                    out.mv(rem, left);
                    if counter_stream.is_none() {
                        out.mv(count, full);
                    }
                    full
                }
                None => {
                    out.alu(AluOp::Divu, count, rem, vlmax);
                    out.alu(AluOp::Remu, rem, rem, vlmax);
                    count
                }
            };
            out.beq(full, XReg::ZERO, tail);
            if let Some((reg, step)) = counter_stream {
                out.mul(lim, full, bump_of(step)?);
                out.add(lim, lim, reg);
            }
            if let Some(r) = e.last_lane {
                out.addi(r, vlmax, -1);
            }
            let body = out.new_label();
            if let Some((_, entry)) = looped {
                out.vsetvli(XReg::ZERO, XReg::ZERO, *entry);
            }
            out.bind(body);
            copy_strip(&mut out, looped.map_or(strip, |(code, _)| code));
            for (s, step) in e.streams.iter().zip(&steps) {
                match (step.constant(), bump_of(step)) {
                    (Some(0), _) => {}
                    (_, Some(bump)) => bump_stream(&mut out, s, bump)?,
                    (Some(c), None) => {
                        mul_const(&mut out, tmp, vlmax, c);
                        bump_stream(&mut out, s, tmp)?;
                    }
                    (None, None) => return None,
                }
            }
            match counter_stream {
                Some((reg, _)) => out.bne(reg, lim, body),
                None => {
                    out.addi(count, count, -1);
                    out.bne(count, XReg::ZERO, body);
                }
            }
        }
        out.bind(tail);
        let end = out.new_label();
        let entry = looped.map_or(base, |(_, entry)| *entry);
        match constant_len.filter(|_| k == 0) {
            // The whole range, a constant number of lanes (no `rem`).
            Some(_) if vl_once.is_some() && entry == base => {}
            Some(len) => out.vsetivli(XReg::ZERO, len, entry),
            None => {
                out.beq(rem, XReg::ZERO, end);
                out.vsetvli(XReg::ZERO, rem, entry);
            }
        }
        if let Some(r) = e.last_lane {
            out.addi(r, rem, -1);
        }
        copy_strip(&mut out, looped.map_or(strip, |(code, _)| code));
        if restore_vl {
            out.vsetvli(XReg::ZERO, vlmax, base);
        }
        out.bind(end);
        // The loop and the tail of a strip entered at another vtype may leave it set (for
        // the vector code after them: a split range's second part, the accumulators'
        // finish).
        let vector_after = k + 1 < strips.len() || finish_reg.is_some() || arg_finish_regs.is_some();
        if looped.is_some() && vector_after {
            out.vsetvli(XReg::ZERO, XReg::ZERO, base);
        }
    }
    if let Some(done) = done {
        out.bind(done);
    }
    match &mut e.row_accs[..] {
        [acc] if Some(acc.buf) == returns && e.row_args.is_empty() => acc.returned = true,
        _ if returns.is_some() => return None,
        _ => {}
    }
    if let Some(fin) = finish_reg {
        // The first group accumulator at the base vtype finishes at `vl` = VLMAX (the tail
        // strips restore it); after it the vtype may differ.
        // Whether the vtype is still the base one (and `vl` VLMAX, with `restore_vl`).
        let mut at_base = true;
        for acc in &e.row_accs {
            let vt = e.vtype_for(acc.w);
            if let (true, Some(ftmp)) = (acc.seeded(base), acc_ftmp) {
                // Element 0 holds the scratch element combined with the range.
                if !at_base {
                    out.vsetivli(XReg::ZERO, 1, VType::new(sew(acc.w), Lmul::M1));
                }
                acc.move_element(&mut out, acc.reg, true, tmp, ftmp);
                continue;
            }
            let scalar = match acc_ftmp {
                Some(ftmp)
                    if at_base && restore_vl && vt == base && acc.lanes == AccLanes::Group && acc.reduction.is_ok() =>
                {
                    Some((tmp, ftmp))
                }
                _ => None,
            };
            at_base &= scalar.is_some();
            finish_row_acc(&mut out, acc, vt, vlmax, fin, scalar, tmp);
        }
    }
    if let Some((r1, r2, lanes, ftmp)) = arg_finish_regs {
        for a in &e.row_args {
            let vts = (e.vtype_for(a.w), e.vtype_for(POSITION_BYTES));
            finish_row_arg(&mut out, a, vts, vlmax, (r1, r2, lanes), ftmp, [tmp, tmp2]);
        }
    }
    for (&(dim, counter), &top) in outer.iter().zip(&tops).rev() {
        out.addi(counter, counter, 1);
        out.li(tmp, nest.shape[dim] as i64);
        out.blt(counter, tmp, top);
    }
    if calls {
        save_area(&mut out, false);
    }
    if stream_area > 0 {
        out.addi(XReg::SP, XReg::SP, stream_area);
    }
    if let Some(area) = &spill_area {
        spill_area_size(&mut out, area);
        out.add(XReg::SP, XReg::SP, tmp);
    }
    for (i, &r) in used_saved.iter().enumerate() {
        out.ld(r, XReg::SP, i as i32 * 8);
    }
    for (i, &r) in used_fsaved.iter().enumerate() {
        out.fload(FFmt::D, r, XReg::SP, fsave_at + i as i32 * 8);
    }
    if frame > 0 {
        out.addi(XReg::SP, XReg::SP, frame);
    }
    out.ret();
    let code = out.finish().ok()?;
    let sites = e.checks.map(|c| c.sites).unwrap_or_default();
    let (stacked_in_memory, spare_x) = (e.memory.as_ref().map_or(0, |m| m.vars.len()), e.xpool.len());
    let leaf = Leaf { args, code, calls: calls_at, sites, returns };
    Some(Emitted { leaf, splatted: e.splatted, cost, stacked_in_memory, spare_x })
}
