//! The LMUL search: the register shapes a nest is tried at, widest groups first, then the
//! hoisting of loop-invariant splats, then wider shapes that spill when their strips cost
//! less ([`StripCost`]), and spilling at LMUL 1 as the last resort.

use super::*;

/// A register shape a leaf is tried at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct RegShape {
    /// The widest register element (bytes) of the nest's values.
    pub(super) wide: u32,
    /// Registers of one group at the widest width (the LMUL of `wide`: 1, 2, 4 or 8).
    pub(super) lmul_regs: u32,
    /// How row accumulators hold their partial results.
    pub(super) acc_lanes: AccLanes,
}

/// One leaf attempt: a register shape, the loop-invariant splats moved to the prologue,
/// and whether values may spill.
#[derive(Clone, Copy, Debug)]
pub(super) struct Attempt<'h> {
    pub(super) shape: RegShape,
    pub(super) hoist: &'h [(Var, u32)],
    pub(super) spill: bool,
    /// The RVV extensions the leaf may use.
    pub(super) ext: crate::VectorExtensions,
    /// With a [`Plan::split`]: the plan of the lanes past the prefix (its mask
    /// [`Class::AllFalse`]; the plan the leaf is given has it [`Class::AllTrue`]).
    pub(super) rest: Option<&'h Plan>,
    /// Integer live-ins that arrive on the stack stay there ([`super::StackedUniforms`]),
    /// but for the first `stacked_in_registers` of them the strip reads.
    pub(super) stacked_uniforms: bool,
    pub(super) stacked_in_registers: usize,
    /// Scalar registers the spilled slots' address registers leave in the pool
    /// ([`super::Spill::bases`]).
    pub(super) slot_base_reserve: usize,
    /// Scans may hold `vl - 1` in a register ([`super::Emitter::last_lane`]).
    pub(super) last_lane: bool,
    /// Streams may live in memory ([`super::StreamSlots`]), keeping this many scalar
    /// registers free for the function around the strip.
    pub(super) spill_streams: Option<usize>,
    /// fp16 widenings start at 16 bits ([`super::Emitter::widen_half`]): fewer weighted
    /// instructions, two more integer constants.
    pub(super) widen_at_16: bool,
}

impl<'h> Attempt<'h> {
    /// The first attempt at `shape`: nothing hoisted, no spills, every stacked live-in read
    /// from the stack, a register for `vl - 1` allowed.
    /// `uses`: whether the nest has scans and fp16 values (without them `last_lane` and
    /// `widen_at_16` change nothing, and are off so that no attempt is retried for them).
    fn first(
        shape: RegShape,
        ext: crate::VectorExtensions,
        rest: Option<&'h Plan>,
        (stacked_uniforms, spill_streams): (bool, Option<usize>),
        uses: Uses,
    ) -> Attempt<'h> {
        Attempt {
            shape,
            hoist: &[],
            spill: false,
            ext,
            rest,
            stacked_uniforms,
            stacked_in_registers: 0,
            slot_base_reserve: SLOT_BASE_RESERVE,
            last_lane: uses.scans,
            spill_streams,
            widen_at_16: uses.halves,
        }
    }
}

/// What of a nest the [`Attempt`] options act on.
#[derive(Clone, Copy)]
struct Uses {
    scans: bool,
    halves: bool,
}

impl Uses {
    fn of(f: &Function, nest: &Nest, plan: &Plan) -> Uses {
        let half = |v: &Var| f.ty(*v) == Elem::Scalar(ScalarType::F16);
        let halves = plan.live_in.iter().any(half)
            || nest.body.iter().any(|s| matches!(s, Stmt::Assign { dst, .. } if half(dst)));
        Uses { scans: !plan.scans.is_empty(), halves }
    }
}

/// How far one leaf attempt got before it failed ([`decline_reason`] names it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Progress {
    /// Arguments, accumulator and hoisted registers.
    Setup,
    /// The strip code of the body's statement at this position.
    Statement(usize),
    /// The prologue, loops and tail after a complete strip.
    Function,
}

/// Scalar registers a leaf reading live-ins from the stack holds for it: the stack
/// pointer at entry and two temporaries ([`super::StackedUniforms`]).
const STACKED_READ_REGS: usize = 3;

/// The widest vector value's element bytes (values kept as streams, `Lin` and `PtrLin`,
/// only count when they must be materialized: then the narrow attempt fails and the wide one
/// runs); `Err` names a value with no vector register form.
fn widest(f: &Function, nest: &Nest, plan: &Plan) -> Result<u32, Var> {
    let mut wide = 1;
    for (v, class) in &plan.classes {
        let w = width(f.ty(*v)).ok_or(*v)?;
        if *class == Class::Vector {
            wide = wide.max(w);
        }
    }
    // Buffers read only once per outer iteration (into scalar registers) have no lanes.
    let lanes = |b: &Buf| {
        nest.body.iter().any(|s| match s {
            Stmt::Assign { dst, expr: Expr::LoadScratch { buf, .. }, .. } => {
                buf == b && !plan.outer_loads.iter().any(|l| l.0 == *dst)
            }
            s => stmt_bufs(s).contains(b),
        })
    };
    for b in plan.bufs.iter().filter(|b| lanes(b)) {
        wide = wide.max(scratch::elem_bytes(f.bufs[*b].elem));
    }
    Ok(wide)
}

/// The nest with its elementwise values computed early ([`early_values`]) and each store of a
/// value into a scratch buffer moved right after the value's assignment, when no statement
/// between them touches the buffer (`None` when nothing moves):
/// the value need not stay live to the end of the body, where the lowering puts the stores
/// of the values other nests read, so the strip may keep a larger LMUL. The accesses to the
/// buffer keep their order, so no statement reads anything else.
pub(in crate::rvv) fn with_early_stores(nest: &Nest) -> Option<Nest> {
    let mut body = nest.body.clone();
    let mut moved = early_values(&mut body);
    let mut at = 0;
    while at < body.len() {
        let Stmt::StoreScratch { buf, value, .. } = &body[at] else {
            at += 1;
            continue;
        };
        let (buf, value) = (*buf, *value);
        let assigned = body[..at].iter().position(|s| matches!(s, Stmt::Assign { dst, .. } if *dst == value));
        // Right after the assignment and the stores already moved there.
        let to = assigned.map(|a| {
            a + 1
                + body[a + 1..at]
                    .iter()
                    .take_while(|s| matches!(s, Stmt::StoreScratch { value: v, .. } if *v == value))
                    .count()
        });
        match to {
            Some(to) if to < at && body[to..at].iter().all(|s| !stmt_bufs(s).contains(&buf)) => {
                let store = body.remove(at);
                body.insert(to, store);
                moved = true;
            }
            _ => {}
        }
        at += 1;
    }
    moved.then(|| Nest { body, ..nest.clone() })
}

/// Moves each elementwise operation (no memory access, no math function) up to right after
/// the last assignment of its operands, when an operand it reads is read by no other
/// statement from there on: that operand's registers are free earlier, the result's taken
/// earlier, so no point of the strip holds more values (fewer where several operands die).
/// Cross-entropy's `inp - cur_max` then comes before the first `exp`, which `inp` no longer
/// stays live across. Whether anything moved.
fn early_values(body: &mut Vec<Stmt>) -> bool {
    let mut moved = false;
    for at in 0..body.len() {
        let Stmt::Assign { expr, .. } = &body[at] else { continue };
        if !matches!(expr, Expr::Binary(..) | Expr::Unary(..) | Expr::Cmp(..) | Expr::Cast(..) | Expr::Select { .. }) {
            continue;
        }
        let operands = expr.operands();
        let defined = |v: Var| body[..at].iter().rposition(|s| matches!(s, Stmt::Assign { dst, .. } if *dst == v));
        let to = operands.iter().filter_map(|&v| defined(v)).max().map_or(0, |k| k + 1);
        let read_elsewhere = |v: Var| {
            body[to..].iter().enumerate().any(|(k, s)| to + k != at && stmt_reads(s).is_none_or(|r| r.contains(&v)))
        };
        if to < at && operands.iter().any(|&v| defined(v).is_some() && !read_elsewhere(v)) {
            let s = body.remove(at);
            body.insert(to, s);
            moved = true;
        }
    }
    moved
}

/// The nest with each scratch element read again (the buffer and index of an earlier read,
/// and no write to the buffer between them) replaced by the earlier read's value (`None`
/// when no read repeats, or the body holds a statement this does not rewrite): one load
/// fewer per strip, and the value live from the first read to the last use of either.
pub(in crate::rvv) fn with_single_reads(nest: &Nest) -> Option<Nest> {
    let mut reads: Vec<(Buf, Affine, Var)> = Vec::new();
    let mut renamed: FxHashMap<Var, Var> = FxHashMap::default();
    let mut body = Vec::with_capacity(nest.body.len());
    for s in &nest.body {
        let mut s = s.clone();
        let rename = |v: &mut Var| *v = renamed.get(v).copied().unwrap_or(*v);
        match &mut s {
            Stmt::Assign { expr, .. } => expr.operands_mut().into_iter().for_each(rename),
            Stmt::Store { ptr, value, mask, .. } => {
                [Some(ptr), Some(value), mask.as_mut()].into_iter().flatten().for_each(rename)
            }
            Stmt::StoreScratch { value, .. } | Stmt::Accumulate { value, .. } => rename(value),
            Stmt::AccumulateArg { value, position, .. } => [value, position].into_iter().for_each(rename),
            _ => return None,
        }
        match &s {
            Stmt::Assign { dst, expr: Expr::LoadScratch { buf, index }, .. } => {
                match reads.iter().find(|(b, i, _)| b == buf && i == index) {
                    Some(&(_, _, first)) => {
                        renamed.insert(*dst, first);
                        continue;
                    }
                    None => reads.push((*buf, index.clone(), *dst)),
                }
            }
            Stmt::StoreScratch { buf, .. } | Stmt::Accumulate { buf, .. } => reads.retain(|(b, _, _)| b != buf),
            Stmt::AccumulateArg { vals, idxs, .. } => reads.retain(|(b, _, _)| b != vals && b != idxs),
            _ => {}
        }
        body.push(s);
    }
    (!renamed.is_empty()).then(|| Nest { body, ..nest.clone() })
}

/// The register shapes of widths from `wide` up at the given LMULs, in the order [`emit`]
/// tries them.
fn shapes(wide: u32, lmuls: &[u32], flat_len: i64) -> impl Iterator<Item = RegShape> + Clone + '_ {
    [1, 2, 4, 8].into_iter().filter(move |&w| w >= wide).flat_map(move |wide| {
        lmuls.iter().filter(move |&&l| !oversized(l, wide, flat_len)).flat_map(move |&lmul_regs| {
            [AccLanes::Group, AccLanes::Single].map(move |acc_lanes| RegShape { wide, lmul_regs, acc_lanes })
        })
    })
}

/// Whether groups of `lmul_regs` registers are wider than a range of `flat_len` lanes of
/// `wide` bytes needs: groups of half as many hold it in one strip at the smallest VLEN
/// (a wider group runs the same instructions, each on more registers).
fn oversized(lmul_regs: u32, wide: u32, flat_len: i64) -> bool {
    let half_lanes = i64::from(lmul_regs / 2) * MIN_VLEN / 8 / i64::from(wide);
    lmul_regs > 1 && flat_len <= half_lanes
}

/// Why [`emit`] found no leaf: how far its LMUL-1 attempts (the last resort, spilling unless
/// the nest calls SLEEF) got at best.
fn decline_reason(f: &Function, nest: &Nest, furthest: Progress, sleef: bool) -> String {
    match furthest {
        Progress::Setup => "its arguments, accumulators and live-in values do not fit in the leaf's registers".into(),
        Progress::Statement(at) => format!(
            "no vector code for `{}` (an operation without a vector form, or no register left for its operands{})",
            tilec_vector::print::statement_text(f, &nest.body[at], &nest.indices),
            if sleef { " across SLEEF calls" } else { "" }
        ),
        Progress::Function => {
            "its prologue (streams, constants, loop registers) does not fit in the leaf's registers".into()
        }
    }
}

/// [`try_emit`], again without a register for `vl - 1` ([`Emitter::last_lane`]) when the
/// attempt failed after its strip for want of registers, then (both ways) with the fp16
/// widenings that take fewer constants.
fn emit_at<'p>(
    f: &'p Function,
    nest: &'p Nest,
    plan: &'p Plan,
    attempt: Attempt<'p>,
    checked: Option<Checked<'p>>,
    progress: &Cell<Progress>,
) -> Option<Emitted> {
    let out_of_registers = || progress.get() == Progress::Function;
    let emit = |attempt: Attempt<'p>| {
        try_emit(f, nest, plan, attempt, checked, progress).or_else(|| {
            let again = out_of_registers() && attempt.last_lane;
            again.then(|| try_emit(f, nest, plan, Attempt { last_lane: false, ..attempt }, checked, progress))?
        })
    };
    emit(attempt).or_else(|| {
        let again = out_of_registers() && attempt.widen_at_16;
        again.then(|| emit(Attempt { widen_at_16: false, ..attempt }))?
    })
}

/// The nest as a leaf at the first register shape that fits, widest groups first; else why
/// not ([`decline_reason`]).
pub(in crate::rvv) fn emit(
    f: &Function,
    nest: &Nest,
    plan: &Plan,
    checked: Option<Checked<'_>>,
    ext: crate::VectorExtensions,
) -> Result<Leaf, String> {
    let wide = widest(f, nest, plan)
        .map_err(|v| format!("its {} values have no vector register form", tilec_vector::print::elem_name(f.ty(v))))?;
    // Values materialized from streams may be wider than `wide`: then wider attempts run.
    let sleef = calls_sleef(f, nest);
    // SLEEF builds its RVV functions at LMUL 1 and 2: a nest that calls runs at one of them.
    let lmuls: &[u32] = if sleef { &[2, 1] } else { &[8, 4, 2, 1] };
    // A split range runs the strip twice, with the mask known true, then known false. A
    // checked leaf numbers each access once: split only when the lanes past the prefix
    // access no memory.
    let split_plans = plan.split.as_ref().filter(|(mask, _)| checked.is_none() || only_accesses_under(nest, *mask));
    let split_plans = split_plans.map(|(mask, _)| {
        let known = |class: Class| {
            let mut p = plan.clone();
            p.classes.insert(*mask, class);
            p
        };
        (known(Class::AllTrue), known(Class::AllFalse))
    });
    let (plan, rest) = match &split_plans {
        Some((prefix, rest)) => (prefix, Some(rest)),
        None => (plan, None),
    };
    let progress = Cell::new(Progress::Setup);
    let mut furthest = Progress::Setup;
    let attempts = shapes(wide, lmuls, plan.flat_len);
    let uses = Uses::of(f, nest, plan);
    // Integer live-ins on the stack (after the eighth integer argument) may stay there
    // when the registers are too few for them: tried after every shape failed without.
    let ints = plan.live_in.iter().filter(|&&v| !matches!(f.ty(v), Elem::Scalar(s) if s.is_float())).count();
    let stacked = ints + plan.bufs.len() + checked.is_some() as usize > 8 && !sleef;
    // Then streams kept in memory, more of them each round (not in checked leaves, nor
    // around calls or vector spills, whose stack areas would move the streams' slots).
    let spilling = checked.is_none() && !sleef;
    let rounds = [(false, None), (true, None), (stacked, Some(6)), (stacked, Some(10)), (stacked, Some(16))];
    let rounds = rounds.into_iter().filter(|&(m, s)| (!m || stacked) && (s.is_none() || spilling));
    for (stacked_uniforms, spill_streams) in rounds {
        for shape in attempts.clone() {
            let attempt = Attempt::first(shape, ext, rest, (stacked_uniforms, spill_streams), uses);
            let Some(found) = emit_at(f, nest, plan, attempt, checked, &progress) else {
                if shape.lmul_regs == 1 {
                    furthest = furthest.max(progress.get());
                }
                continue;
            };
            let splatted = found.splatted.clone();
            let mut best = (found, attempt);
            // Loop-invariant splats move to the prologue when registers allow: as many as
            // fit, in first-use order (not across calls, which would save and restore them).
            if !sleef {
                for k in (1..=splatted.len()).rev() {
                    let attempt = Attempt { hoist: &splatted[..k], ..attempt };
                    if let Some(hoisted) = emit_at(f, nest, plan, attempt, checked, &progress) {
                        best = (hoisted, attempt);
                        break;
                    }
                }
            }
            // A wider shape that spills, when its strip costs less per element (not around
            // calls, in checked leaves, nor with streams in memory, as for the last resort).
            if spilling && spill_streams.is_none() {
                let wider = lmuls
                    .iter()
                    .filter(|&&l| l > shape.lmul_regs && !oversized(l, shape.wide, plan.flat_len))
                    .map(|&lmul_regs| RegShape { lmul_regs, ..shape });
                for wide_shape in wider {
                    let attempt = Attempt { shape: wide_shape, hoist: &[], spill: true, ..attempt };
                    if let Some(spilled) = emit_at(f, nest, plan, attempt, checked, &progress) {
                        if spilled.cost.cheaper_than(&best.0.cost) {
                            best = (spilled, attempt);
                        }
                    }
                }
            }
            // Stacked live-ins the strip reads take the registers the leaf left spare (all
            // of them when that frees the registers reading them from the stack too); the
            // slots' address registers keep what they had by reserving that many fewer.
            let (found, attempt) = best;
            let (n, spare) = (found.stacked_in_memory, found.spare_x);
            if n > 0 && spare > 0 {
                let k = if spare + STACKED_READ_REGS >= n { n } else { spare };
                let slot_base_reserve = attempt.slot_base_reserve.saturating_sub(k);
                let attempt = Attempt { stacked_in_registers: k, slot_base_reserve, ..attempt };
                if let Some(held) = emit_at(f, nest, plan, attempt, checked, &progress) {
                    return Ok(held.leaf);
                }
            }
            return Ok(found.leaf);
        }
    }
    // The last resort: LMUL 1 with spills (not around calls, which save registers
    // themselves; no hoisted splats, which would only spill more).
    if !sleef {
        furthest = Progress::Setup;
        for shape in attempts.filter(|shape| shape.lmul_regs == 1) {
            let attempt = Attempt { spill: true, ..Attempt::first(shape, ext, rest, (stacked, None), uses) };
            if let Some(found) = emit_at(f, nest, plan, attempt, checked, &progress) {
                return Ok(found.leaf);
            }
            furthest = furthest.max(progress.get());
        }
    }
    Err(decline_reason(f, nest, furthest, sleef))
}

/// Whether every global memory access of `nest` is masked by `mask` (none runs where it is
/// false).
fn only_accesses_under(nest: &Nest, mask: Var) -> bool {
    nest.body.iter().all(|s| match s {
        Stmt::Assign { expr: Expr::Load { mask: m, .. } | Expr::AtomicRmw { mask: m, .. }, .. }
        | Stmt::Store { mask: m, .. } => *m == Some(mask),
        Stmt::Assign { expr: Expr::AtomicCas { .. }, .. } => false,
        _ => true,
    })
}
