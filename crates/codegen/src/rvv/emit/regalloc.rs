//! Register allocation: vector register groups at the nest's SEW/LMUL ratio (the vtype of a
//! width), temporaries, spills to a stack area of whole registers, the scalar register pools
//! and the constants the prologue loads.

use super::*;

/// Values spilled by the strip: when no register group is free, the value held in
/// registers whose next use is farthest (and that the statement being emitted does not
/// read) is stored with a whole-register store to its stack slot, and reloaded with a
/// whole-register load before its next use. Slot `k` is at `sp + k·vlenb`, in an area
/// of `size` registers below the leaf's frame, rounded up to a power of two (vlenb is a
/// multiple of 16: `sp` stays aligned; the prologue and epilogue size it with one shift). A
/// value is assigned once, so a value spilled again keeps its slot and needs no second
/// store; the slot of a value past its last use takes the next spilled value of its size.
pub(super) struct Spill {
    /// `vlenb` and a scratch register for the slot addresses the strip computes (taken on
    /// first need; the prologue sets `vlenb`, constant afterwards).
    pub(super) computed: Option<(XReg, XReg)>,
    pub(super) slots: FxHashMap<Var, u32>,
    /// Registers' worth of slots in use.
    pub(super) size: u32,
    /// Slots whose address the prologue puts in a register of its own (while the scalar
    /// pool keeps `reserve` registers), so the strip computes none.
    pub(super) bases: Vec<(u32, XReg)>,
    pub(super) reserve: usize,
}

impl Spill {
    /// `log2` of the area's registers.
    pub(super) fn area_shift(&self) -> u32 {
        self.size.next_power_of_two().trailing_zeros()
    }
}

/// Scalar registers the spill slots' address registers leave in the pool for the rest of
/// the leaf (its loop registers, stream bumps and temporaries).
pub(super) const SLOT_BASE_RESERVE: usize = 8;

/// `sp + slot·vlenb` in `addr` (slot 0: `sp` itself, no instruction); the base register.
pub(super) fn slot_address(out: &mut Assembler, addr: XReg, vlenb: XReg, slot: u32) -> XReg {
    match slot {
        0 => return XReg::SP,
        1 => out.mv(addr, vlenb),
        k if k.is_power_of_two() => out.slli(addr, vlenb, k.trailing_zeros() as i32),
        k => {
            out.li(addr, k as i64);
            out.mul(addr, addr, vlenb);
        }
    }
    out.add(addr, addr, XReg::SP);
    addr
}

/// A loop-invariant splat: `reg` (a group at width `w`) holds `src` in every lane from
/// the prologue on; nothing in the strip writes it.
pub(super) struct Hoisted {
    pub(super) var: Var,
    pub(super) w: u32,
    pub(super) reg: VReg,
    pub(super) src: Opnd,
}

impl Emitter<'_> {
    pub(super) fn base_vtype(&self) -> VType {
        self.vtype_for(self.shape.wide)
    }

    pub(super) fn vtype_for(&self, w: u32) -> VType {
        let w = w.max(1);
        let num = self.shape.lmul_regs * w;
        let lmul = if num >= self.shape.wide {
            match num / self.shape.wide {
                1 => Lmul::M1,
                2 => Lmul::M2,
                4 => Lmul::M4,
                _ => Lmul::M8,
            }
        } else {
            match self.shape.wide / num {
                2 => Lmul::Mf2,
                4 => Lmul::Mf4,
                _ => Lmul::Mf8,
            }
        };
        let vt = VType::new(sew(w), lmul).mask_undisturbed();
        if self.tail_undisturbed {
            vt.tail_undisturbed()
        } else {
            vt
        }
    }

    pub(super) fn group(&self, w: u32) -> u32 {
        (self.shape.lmul_regs * w / self.shape.wide).max(1)
    }

    pub(super) fn set_width(&mut self, w: u32) {
        let vt = self.vtype_for(w);
        if vt != self.vtype {
            self.asm.vsetvli(XReg::ZERO, XReg::ZERO, vt);
            self.vtype = vt;
        }
    }

    pub(super) fn alloc_v(&mut self, w: u32) -> Option<VReg> {
        if w > self.shape.wide {
            return None;
        }
        let g = if w == 0 { 1 } else { self.group(w) } as usize;
        loop {
            if let Some(start) = (g..32).step_by(g).find(|&s| self.vused[s..s + g].iter().all(|u| !u)) {
                self.vused[start..start + g].iter_mut().for_each(|u| *u = true);
                return VReg::new(start as u8);
            }
            self.spill_one()?;
        }
    }

    /// Frees the registers of one value (see [`Spill`]); `None` when this attempt does not
    /// spill or no value may be spilled.
    fn spill_one(&mut self) -> Option<()> {
        self.spill.as_ref()?;
        let reads = stmt_reads(&self.nest_body[self.at])?;
        let next_use = |v: Var| {
            (self.at + 1..self.nest_body.len())
                .find(|&i| stmt_reads(&self.nest_body[i]).is_none_or(|r| r.contains(&v)))
                .unwrap_or(usize::MAX)
        };
        let (&victim, &reg) =
            self.vals.iter().filter(|(v, _)| !reads.contains(v)).max_by_key(|&(v, r)| (next_use(*v), r.num()))?;
        let w = self.width_of(victim)?;
        let g = if w == 0 { 1 } else { self.group(w) };
        if !self.spill.as_ref()?.slots.contains_key(&victim) {
            let slot = self.free_slot(g)?;
            self.spill.as_mut()?.slots.insert(victim, slot);
            let base = self.slot_base(slot)?;
            self.asm.vstore_whole(g as u8, reg, base);
        }
        self.vals.remove(&victim);
        self.free_v(reg, w);
        Some(())
    }

    /// A slot of `g` registers for a value being spilled: one whose value is past its last
    /// use (and in no register), else a new one at the end of the area.
    fn free_slot(&mut self, g: u32) -> Option<u32> {
        let spill = self.spill.as_ref()?;
        let dead = |v: &Var| !self.vals.contains_key(v) && self.plan.last_use.get(v).is_some_and(|&l| l < self.at);
        let group = |v: &Var| self.width_of(*v).map(|w| if w == 0 { 1 } else { self.group(w) });
        let reused = spill.slots.iter().filter(|(v, _)| dead(v) && group(v) == Some(g)).map(|(v, &s)| (s, *v)).min();
        let spill = self.spill.as_mut()?;
        match reused {
            Some((slot, owner)) => {
                spill.slots.remove(&owner);
                Some(slot)
            }
            None => {
                let slot = spill.size;
                spill.size += g;
                Some(slot)
            }
        }
    }

    /// The register holding slot `slot`'s address: `sp`, its own base register (taken on
    /// first use while the pool allows), else `addr` computed here.
    fn slot_base(&mut self, slot: u32) -> Option<XReg> {
        if slot == 0 {
            return Some(XReg::SP);
        }
        if let Some(&(_, r)) = self.spill.as_ref()?.bases.iter().find(|(s, _)| *s == slot) {
            return Some(r);
        }
        if self.xpool.len() > self.spill.as_ref()?.reserve {
            let r = self.xreg()?;
            self.spill.as_mut()?.bases.push((slot, r));
            return Some(r);
        }
        let (vlenb, addr) = match self.spill.as_ref()?.computed {
            Some(regs) => regs,
            None => {
                let regs = (self.xreg()?, self.xreg()?);
                self.spill.as_mut()?.computed = Some(regs);
                regs
            }
        };
        Some(slot_address(&mut self.asm, addr, vlenb, slot))
    }

    /// Spilled value `v` back in registers (a whole-register load from its slot).
    pub(super) fn reload(&mut self, v: Var) -> Option<VReg> {
        let slot = *self.spill.as_ref()?.slots.get(&v)?;
        let w = self.width_of(v)?;
        let r = self.alloc_v(w)?;
        let g = if w == 0 { 1 } else { self.group(w) };
        let base = self.slot_base(slot)?;
        self.asm.vload_whole(g as u8, sew(w.max(1)), r, base);
        self.vals.insert(v, r);
        Some(r)
    }

    pub(super) fn free_v(&mut self, v: VReg, w: u32) {
        let g = if w == 0 { 1 } else { self.group(w) } as usize;
        let s = v.num() as usize;
        self.vused[s..s + g].iter_mut().for_each(|u| *u = false);
        if self.v0 == Some(v) {
            self.v0 = None;
        }
    }

    /// The register for the result (width `w > 0`) of the statement being emitted: the
    /// register of the first of `srcs` that holds a value of width `w` whose last use is
    /// this statement (it then belongs to the result), else a fresh one. The caller's
    /// instructions must read such a source no later than the instruction that first
    /// writes the result.
    pub(super) fn alloc_result(&mut self, w: u32, srcs: &[VReg]) -> Option<VReg> {
        if w > 0 {
            for &r in srcs {
                let dying = self.vals.iter().find(|&(v, &reg)| {
                    reg == r && self.width_of(*v) == Some(w) && self.plan.last_use.get(v).is_none_or(|&l| l <= self.at)
                });
                if let Some((&v, _)) = dying {
                    self.vals.remove(&v);
                    return Some(r);
                }
            }
        }
        self.alloc_v(w)
    }

    pub(super) fn temp(&mut self, w: u32) -> Option<VReg> {
        let v = self.alloc_v(w)?;
        self.temps.push((v, w));
        Some(v)
    }

    pub(super) fn free_temps(&mut self) {
        for (v, w) in std::mem::take(&mut self.temps) {
            self.free_v(v, w);
        }
    }

    pub(super) fn xreg(&mut self) -> Option<XReg> {
        self.xpool.pop()
    }

    /// The strip's scalar scratch register (see [`Emitter::strip_x`]).
    pub(super) fn strip_xreg(&mut self) -> Option<XReg> {
        if self.strip_x.is_none() {
            self.strip_x = Some(self.xreg()?);
        }
        self.strip_x
    }

    /// The float registers of [`Emitter::exp_full_f`] (taken from the pool on first use).
    pub(super) fn exp_full_fregs(&mut self) -> Option<[FReg; 3]> {
        if self.exp_full_f.is_none() {
            self.exp_full_f = Some([self.fpool.pop()?, self.fpool.pop()?, self.fpool.pop()?]);
        }
        self.exp_full_f
    }

    /// The register inline `erf` keeps the strip's `vl` in while it runs in halves (taken
    /// from the pool on first use).
    pub(super) fn erf_vl_xreg(&mut self) -> Option<XReg> {
        if self.erf_vl.is_none() {
            self.erf_vl = Some(self.xreg()?);
        }
        self.erf_vl
    }

    /// The register holding `vl - 1` (see [`Emitter::last_lane`]).
    pub(super) fn last_lane_xreg(&mut self) -> Option<XReg> {
        if self.last_lane.is_none() {
            self.last_lane = Some(self.xreg()?);
        }
        self.last_lane
    }

    pub(super) fn xconst(&mut self, value: i64) -> Option<XReg> {
        if value == 0 {
            return Some(XReg::ZERO);
        }
        if let Some(&(r, _)) = self.xconsts.iter().find(|(_, v)| *v == value) {
            return Some(r);
        }
        let r = self.xreg()?;
        self.xconsts.push((r, value));
        Some(r)
    }

    pub(super) fn fconst(&mut self, bits: u64, double: bool) -> Option<FReg> {
        if let Some(&(r, _, _)) = self.fconsts.iter().find(|(_, b, d)| *b == bits && *d == double) {
            return Some(r);
        }
        let r = self.fpool.pop()?;
        self.fconsts.push((r, bits, double));
        Some(r)
    }
}
