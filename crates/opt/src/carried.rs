//! Structural rewrites of loop-carried tiles, run on the Tile IR before the e-graph is built
//! (the e-graph sees loops only as skeleton, so these rules work on `scf.for` directly).
//! Each rule, its precondition and why it is sound are stated in `rules/README.md`
//! ("Loop-carried rules").
//!
//! Both rules rewrite in place and keep value identities where they can: a value whose
//! definition moves (a reduction's result becoming a loop result, a carried tile becoming
//! a pure op at the top of the body) keeps its `Value`, so no use needs renaming.

use rustc_hash::FxHashMap;
use tilec_ir::{
    BinaryOp, CastOp, Constant, Elem, Function, OpId, OpKind, ReduceKind, RegionId, ScalarType, Type, Value, ValueDef,
};

/// Applications of each loop-carried rule, by name.
pub type Applied = Vec<(&'static str, usize)>;

/// Name of the rule turning a carried tile summed along its last axis at the end into a
/// carried sum of per-iteration partial sums along that axis.
pub const SUM_OF_CARRIED_SUM: &str = "carried-tile-sum-to-partial-sums";
/// Name of the rule turning a carried pointer tile advanced by a scalar into a carried offset.
pub const CARRIED_POINTER_OFFSET: &str = "carried-pointer-tile-to-offset";
/// Every loop-carried rule's name.
pub const RULE_NAMES: [&str; 2] = [SUM_OF_CARRIED_SUM, CARRIED_POINTER_OFFSET];

/// Runs every loop-carried rule over every `scf.for` of `f`.
pub fn rewrite(f: &mut Function) -> Applied {
    let mut sums = 0;
    let mut pointers = 0;
    let loops: Vec<OpId> = f.ops.keys().filter(|&op| matches!(f.ops[op].kind, OpKind::For { .. })).collect();
    // The uses of every value, found when a rule first needs them and dropped when a rule
    // changes `f`.
    let mut uses = None;
    for for_op in loops {
        let Some(region) = region_of(f, for_op) else { continue };
        let mut j = 0;
        while j < f.ops[for_op].results.len() {
            let applied = if sum_of_carried_sum(f, &mut uses, region, for_op, j) {
                sums += 1;
                true
            } else if carried_pointer_offset(f, region, for_op, j) {
                pointers += 1;
                true
            } else {
                false
            };
            if applied {
                uses = None;
            }
            j += 1;
        }
    }
    vec![(SUM_OF_CARRIED_SUM, sums), (CARRIED_POINTER_OFFSET, pointers)]
}

/// Every op using each value (at any depth; terminators included).
struct Uses(FxHashMap<Value, Vec<OpId>>);

impl Uses {
    fn of(f: &Function) -> Uses {
        let mut map: FxHashMap<Value, Vec<OpId>> =
            FxHashMap::with_capacity_and_hasher(f.values.len(), Default::default());
        let mut stack = vec![f.body];
        while let Some(region) = stack.pop() {
            for &op in &f.regions[region].ops {
                for v in f.ops[op].kind.operands() {
                    map.entry(v).or_default().push(op);
                }
                stack.extend(f.ops[op].kind.regions());
            }
        }
        Uses(map)
    }

    fn of_value(&self, v: Value) -> &[OpId] {
        self.0.get(&v).map_or(&[], |u| u.as_slice())
    }
}

/// The region whose op list holds `op`.
fn region_of(f: &Function, op: OpId) -> Option<RegionId> {
    f.regions.keys().find(|&r| f.regions[r].ops.contains(&op))
}

/// Inserts a single-result op into `region` just before `before`.
fn insert_before(f: &mut Function, region: RegionId, before: OpId, kind: OpKind, ty: Type) -> Value {
    let span = f.ops[before].span;
    let op = f.append_op(region, kind, vec![ty], span);
    let ops = &mut f.regions[region].ops;
    ops.pop();
    let at = ops.iter().position(|&o| o == before).expect("`before` is in the region");
    ops.insert(at, op);
    f.ops[op].results[0]
}

/// The constant a value is defined as, looking through a splat.
fn constant_of(f: &Function, v: Value) -> Option<Constant> {
    let ValueDef::Result(op, _) = f.values[v].def else { return None };
    match &f.ops[op].kind {
        OpKind::Constant(c) => Some(*c),
        OpKind::Splat(s) => constant_of(f, *s),
        _ => None,
    }
}

/// The defining op of `v` when it is a result sitting directly in `region`.
fn def_in(f: &Function, v: Value, region: RegionId) -> Option<OpId> {
    let ValueDef::Result(op, _) = f.values[v].def else { return None };
    f.regions[region].ops.contains(&op).then_some(op)
}

/// Pieces of an `scf.for` and its `j`-th iter-arg.
struct Carried {
    body: RegionId,
    param: Value,
    init: Value,
    result: Value,
    /// The body's `scf.yield` and the value it yields for this iter-arg.
    yield_op: OpId,
    yielded: Value,
}

fn carried(f: &Function, for_op: OpId, j: usize) -> Option<Carried> {
    let OpKind::For { init, body, .. } = &f.ops[for_op].kind else { return None };
    let body = *body;
    let yield_op = *f.regions[body].ops.last()?;
    let OpKind::Yield(values) = &f.ops[yield_op].kind else { return None };
    Some(Carried {
        body,
        param: f.regions[body].params[1 + j],
        init: init[j],
        result: f.ops[for_op].results[j],
        yield_op,
        yielded: values[j],
    })
}

/// `acc = zeros; for ...: acc = acc + x; s = tl.sum(acc, a)`, `a` the last axis, becomes
/// `s = zeros; for ...: s = s + tl.sum(x, a)`, `s` of the reduction's type (a scalar when `acc`
/// is 1-D, a tile of row sums else). See the README for the precondition.
fn sum_of_carried_sum(f: &mut Function, uses: &mut Option<Uses>, region: RegionId, for_op: OpId, j: usize) -> bool {
    let Some(c) = carried(f, for_op, j) else { return false };
    let ty = f.ty(c.param).clone();
    let Elem::Scalar(st) = ty.elem else { return false };
    let exact_enough = matches!(st, ScalarType::F32 | ScalarType::F64) || (st.is_int() && !st.is_bool());
    if ty.shape.is_empty() || !exact_enough {
        return false;
    }
    let zero = match constant_of(f, c.init) {
        Some(Constant::Int(0)) if st.is_int() => Constant::Int(0),
        Some(Constant::Float(x)) if st.is_float() && x == 0.0 && x.is_sign_positive() => Constant::Float(0.0),
        _ => return false,
    };
    // After the loop: the only use of the result is a sum along its last axis in the loop's
    // region.
    let uses = uses.get_or_insert_with(|| Uses::of(f));
    let &[reduce_op] = uses.of_value(c.result) else { return false };
    let OpKind::Reduce { kind: ReduceKind::Sum, axis, .. } = f.ops[reduce_op].kind else { return false };
    if axis as usize + 1 != ty.shape.len() || !f.regions[region].ops.contains(&reduce_op) {
        return false;
    }
    let total = f.ops[reduce_op].results[0];
    let reduced = f.ty(total).clone();
    // In the loop: the only use of the param is one `param + x` (either side), directly in
    // the body, whose only use is the yield at position j.
    let &[add_op] = uses.of_value(c.param) else { return false };
    let OpKind::Binary { op: BinaryOp::Add, lhs, rhs } = f.ops[add_op].kind else { return false };
    let increment = match (lhs == c.param, rhs == c.param) {
        (true, false) => rhs,
        (false, true) => lhs,
        _ => return false,
    };
    let sum = f.ops[add_op].results[0];
    let yields_once = match &f.ops[c.yield_op].kind {
        OpKind::Yield(values) => values.iter().filter(|&&v| v == sum).count() == 1,
        _ => false,
    };
    if def_in(f, sum, c.body) != Some(add_op) || uses.of_value(sum) != [c.yield_op] || !yields_once || c.yielded != sum
    {
        return false;
    }
    // Rewrite: a zero init and a param of the reduction's type, `param + tl.sum(x, axis)`, and
    // the loop result is the former reduction's value.
    let zero = insert_before(f, region, for_op, OpKind::Constant(zero), reduced.clone());
    if let OpKind::For { init, .. } = &mut f.ops[for_op].kind {
        init[j] = zero;
    }
    f.values[c.param].ty = reduced.clone();
    let partial = insert_before(
        f,
        c.body,
        add_op,
        OpKind::Reduce { kind: ReduceKind::Sum, value: increment, axis },
        reduced.clone(),
    );
    f.ops[add_op].kind = if lhs == c.param {
        OpKind::Binary { op: BinaryOp::Add, lhs: c.param, rhs: partial }
    } else {
        OpKind::Binary { op: BinaryOp::Add, lhs: partial, rhs: c.param }
    };
    f.values[sum].ty = reduced;
    f.ops[for_op].results[j] = total;
    f.values[total].def = ValueDef::Result(for_op, j as u32);
    f.regions[region].ops.retain(|&o| o != reduce_op);
    f.ops[reduce_op].results.clear();
    true
}

/// `p = ptrs; for ...: ...p...; p = p + splat(s)` (pointer tile advanced by a scalar) becomes
/// `o = 0; for ...: p = ptrs + splat(o); ...p...; o = o + s` with `o: i64`.
fn carried_pointer_offset(f: &mut Function, region: RegionId, for_op: OpId, j: usize) -> bool {
    let Some(c) = carried(f, for_op, j) else { return false };
    let ty = f.ty(c.param).clone();
    if !ty.is_tensor() || !matches!(ty.elem, Elem::Ptr(_)) {
        return false;
    }
    // The yielded value is `param + splat(step)` computed directly in the body.
    let Some(advance_op) = def_in(f, c.yielded, c.body) else { return false };
    let OpKind::AddPtr { ptr, offset } = f.ops[advance_op].kind else { return false };
    if ptr != c.param {
        return false;
    }
    let ValueDef::Result(splat_op, _) = f.values[offset].def else { return false };
    let OpKind::Splat(step) = f.ops[splat_op].kind else { return false };
    let Elem::Scalar(step_ty) = f.ty(step).elem else { return false };
    if !step_ty.is_int() || step_ty.is_bool() {
        return false;
    }
    // The step dominates the advance, which sits directly in the body, so it is in scope at
    // the yield. The yield must not also yield the param or the advanced tile elsewhere
    // (those positions would still need the tile itself).
    let OpKind::Yield(values) = &f.ops[c.yield_op].kind else { return false };
    if values.iter().filter(|&&v| v == c.yielded || v == c.param).count() != 1 {
        return false;
    }
    let i64t = Type::scalar(ScalarType::I64);
    // Before the loop: the offset starts at 0.
    let zero = insert_before(f, region, for_op, OpKind::Constant(Constant::Int(0)), i64t.clone());
    if let OpKind::For { init, .. } = &mut f.ops[for_op].kind {
        init[j] = zero;
    }
    // In the body: the old param becomes `init + splat(offset)`, the new param the offset.
    let offset_param = f.values.push(tilec_ir::ValueData {
        ty: i64t.clone(),
        def: ValueDef::Param(c.body, (1 + j) as u32),
        name: f.values[c.param].name.clone().map(|n| format!("{n}_offset")),
    });
    f.regions[c.body].params[1 + j] = offset_param;
    let first = f.regions[c.body].ops[0];
    let offsets =
        insert_before(f, c.body, first, OpKind::Splat(offset_param), ty.with_elem(Elem::Scalar(ScalarType::I64)));
    let rebuilt = f.append_op(c.body, OpKind::AddPtr { ptr: c.init, offset: offsets }, vec![], f.ops[first].span);
    place_with_result(f, c.body, rebuilt, Some(first), c.param);
    // At the end of the body: the offset advances by the step, widened by its signedness.
    let wide = if step_ty == ScalarType::I64 {
        step
    } else {
        let op = if step_ty.bits() == 64 { CastOp::IntRetype } else { CastOp::IntExt };
        insert_before(f, c.body, c.yield_op, OpKind::Cast { op, value: step }, i64t.clone())
    };
    let next = insert_before(
        f,
        c.body,
        c.yield_op,
        OpKind::Binary { op: BinaryOp::Add, lhs: offset_param, rhs: wide },
        i64t.clone(),
    );
    if let OpKind::Yield(values) = &mut f.ops[c.yield_op].kind {
        values[j] = next;
    }
    // After the loop: the final tile is `init + splat(final offset)`.
    let final_offset =
        f.values.push(tilec_ir::ValueData { ty: i64t.clone(), def: ValueDef::Result(for_op, j as u32), name: None });
    f.ops[for_op].results[j] = final_offset;
    let after = f.regions[region].ops.iter().position(|&o| o == for_op).expect("the loop is in its region") + 1;
    let next_op = f.regions[region].ops.get(after).copied();
    let final_offsets = f.append_op(region, OpKind::Splat(final_offset), vec![], f.ops[for_op].span);
    let splat_value = f.values.push(tilec_ir::ValueData {
        ty: ty.with_elem(Elem::Scalar(ScalarType::I64)),
        def: ValueDef::Result(final_offsets, 0),
        name: None,
    });
    f.ops[final_offsets].results.push(splat_value);
    place_with_result(f, region, final_offsets, next_op, splat_value);
    let final_tile =
        f.append_op(region, OpKind::AddPtr { ptr: c.init, offset: splat_value }, vec![], f.ops[for_op].span);
    let after_splat = f.regions[region].ops.iter().position(|&o| o == final_offsets).expect("just placed") + 1;
    let next_op = f.regions[region].ops.get(after_splat).copied();
    place_with_result(f, region, final_tile, next_op, c.result);
    true
}

/// Moves `op` (just appended to `region`, without results) before `before` (or to the end)
/// and makes the existing value `result` its only result.
fn place_with_result(f: &mut Function, region: RegionId, op: OpId, before: Option<OpId>, result: Value) {
    let ops = &mut f.regions[region].ops;
    ops.pop();
    match before.and_then(|b| ops.iter().position(|&o| o == b)) {
        Some(at) => ops.insert(at, op),
        None => ops.push(op),
    }
    f.ops[op].results = vec![result];
    f.values[result].def = ValueDef::Result(op, 0);
}
