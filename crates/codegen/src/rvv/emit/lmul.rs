//! The LMUL search: the register shapes a nest is tried at, widest groups first, then the
//! hoisting of loop-invariant splats, then spilling at LMUL 1 as the last resort.

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

/// The nest as a leaf at the first register shape that fits, widest groups first.
pub(in crate::rvv) fn emit(f: &Function, nest: &Nest, plan: &Plan, first_site: Option<usize>) -> Option<Leaf> {
    // The widest vector value; values kept as streams (`Lin`, `PtrLin`) only count when
    // they must be materialized (then the narrow attempt fails and the wide one runs).
    let mut wide = 1;
    for (v, class) in &plan.classes {
        let w = width(f.ty(*v))?;
        if *class == Class::Vector {
            wide = wide.max(w);
        }
    }
    for b in &plan.bufs {
        wide = wide.max(scratch::elem_bytes(f.bufs[*b].elem));
    }
    // Values materialized from streams may be wider than `wide`: then wider attempts run.
    let widths: Vec<u32> = [1, 2, 4, 8].into_iter().filter(|&w| w >= wide).collect();
    let lmuls: &[u32] = if calls_sleef(f, nest) { &[1] } else { &[8, 4, 2, 1] };
    let attempts = widths.into_iter().flat_map(|wide| {
        lmuls.iter().flat_map(move |&lmul_regs| {
            [AccLanes::Group, AccLanes::Single].map(move |acc_lanes| RegShape { wide, lmul_regs, acc_lanes })
        })
    });
    for shape in attempts.clone() {
        let Some((leaf, splatted)) = try_emit(f, nest, plan, shape, &[], false, first_site) else { continue };
        // Loop-invariant splats move to the prologue when registers allow: as many as fit,
        // in first-use order (not across calls, which would save and restore them).
        if !calls_sleef(f, nest) {
            for k in (1..=splatted.len()).rev() {
                if let Some((hoisted, _)) = try_emit(f, nest, plan, shape, &splatted[..k], false, first_site) {
                    return Some(hoisted);
                }
            }
        }
        return Some(leaf);
    }
    // The last resort: LMUL 1 with spills (not around calls, which save registers
    // themselves; no hoisted splats, which would only spill more).
    if calls_sleef(f, nest) {
        return None;
    }
    attempts
        .filter(|shape| shape.lmul_regs == 1)
        .find_map(|shape| try_emit(f, nest, plan, shape, &[], true, first_site))
        .map(|(leaf, _)| leaf)
}
