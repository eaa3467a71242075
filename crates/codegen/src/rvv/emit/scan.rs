//! Scans (`tl.cumsum`, `tl.cumprod`, min/max scans) in RVV nests.
//!
//! The Vector IR writes a scan as an accumulation followed by a read-back of the
//! accumulator element (see `tilec_vector::Stmt::Accumulate`); the analysis marks such
//! accumulators ([`super::Plan::scans`]). Two cases, by the accumulator's stride along the
//! strip-mined range:
//! - nonzero (the scan runs along an outer dim, e.g. axis 0 of a row-major tile): every
//!   lane owns its accumulator element, so the scan is an elementwise recurrence across
//!   the outer loop — the lane-wise read-modify-write of [`Emitter::accumulate`] followed by
//!   an ordinary scratch load. Exact, in the interpreter's order.
//! - zero (the scan runs along the strip): an in-register inclusive prefix per strip with
//!   log-step `vslideup` + op, largest shift first (the identity filled once shifted in), combined with the carried element read
//!   from scratch into a scalar register (the `.vf`/`.vx` form of the op); the strip's last
//!   lane is written back as the next carry. Integer scans and float min/max are exact; float sums and products
//!   are reassociated (tree order within a strip), like reductions. Float min/max are
//!   `vfmin`/`vfmax`, i.e. `minnum`/`maxnum` as Triton's default combine: a NaN loses, so
//!   the identity shifted in is NaN and a lane is NaN only when its whole prefix is.

use super::*;

/// Largest `VLEN` (bits) RVV 1.0 allows: bounds the lanes of a strip, so the number of
/// log steps of the prefix.
const MAX_VLEN: i64 = 65536;

impl Emitter<'_> {
    /// An `AccumulateWith` whose combine is an [`AccOp`] (see
    /// [`super::accumulation`]): the element is reset to the op's identity where the
    /// position is 0 (a masked store), then accumulated like an `Accumulate` — `op(identity,
    /// x)` is `x`, what the first combine stores.
    pub(super) fn accumulate_with(&mut self, s: &Stmt) -> Option<()> {
        let (buf, index, op, value, position) = accumulation(self.f, s)?;
        let st = scalar_of(self.f.bufs[buf].elem);
        if st.is_bool() || convert::is_half(st) {
            return None;
        }
        if let Some(p) = position {
            let (pw, w) = (self.width_of(p)?, mem_bytes(st)?);
            let pos = self.vector(p, pw)?;
            let identity = self.identity(op, st)?;
            let (mode, base, _) = self.scratch_access(buf, index)?;
            let fill = self.temp(w)?;
            self.set_width(pw);
            self.asm.vop(VBinOp::Mseq, VReg::V0, pos, 0, Mask::Unmasked);
            self.v0 = None;
            self.set_width(w);
            self.asm.vmv(fill, identity.src());
            self.asm.vstore(sew(w), mode, fill, base, Mask::V0);
        }
        self.accumulate(buf, index, op, value)
    }

    /// The prefix-scan result waiting to be read back from the accumulator of `e`, if `e`
    /// is that read-back.
    pub(super) fn take_scan_result(&mut self, e: &Expr) -> Option<VReg> {
        match e {
            Expr::LoadScratch { buf, .. } => self.scan_vals.remove(buf),
            _ => None,
        }
    }

    /// `buf[index] ⊕= value` lane by lane in order, along the strip (`index` has stride 0
    /// on it): leaves the inclusive scan of the strip in `scan_vals[buf]` and the last lane
    /// in `buf[index]`. The log steps past the strips' `VLMAX` lanes (known only at run
    /// time beyond VLEN 128) are skipped by a branch;
    /// the prefix builds in the element's register when the scan is its last use, so the
    /// strip holds one register group for the steps besides the prefix's.
    pub(super) fn scan_along_strip(&mut self, buf: Buf, index: &Affine, op: AccOp, value: Var) -> Option<()> {
        let st = scalar_of(self.f.bufs[buf].elem);
        let w = mem_bytes(st)?;
        let (lanewise, _) = acc_ops(op, st)?;
        let u = Mask::Unmasked;
        let (mode, base, _) = self.scratch_access(buf, index)?;
        if !matches!(mode, VMemMode::Strided(XReg::ZERO)) {
            return None;
        }
        let x = self.vector(value, w)?;
        // The prefix builds in place when this is the value's last use.
        let v = self.alloc_result(w, &[x])?;
        self.set_width(w);
        if v != x {
            self.asm.vmv(v, x);
        }
        let identity = self.identity(op, st)?;
        let shifted = self.temp(w)?;
        let group = self.group(w) as i64;
        let lanes_at = |vlen: i64| vlen * group / (8 * w as i64);
        let lanes = lanes_at(MAX_VLEN).min(self.plan.flat_len);
        let steps: Vec<i64> = std::iter::successors(Some(1i64), |k| Some(k * 2)).take_while(|&k| k < lanes).collect();
        let vlmax = self.vlmax;
        self.set_width(w);
        // The steps run from the largest shift down, so the identity filled once stays in
        // the lanes below every later shift (a slide up leaves them alone). The shifts of
        // `VLMAX` or more move every lane out: those steps are skipped, by one taken branch
        // of a ladder that tests the shifts known only at run time, smallest first, and
        // jumps past the steps whose shift is at least `VLMAX`.
        self.asm.vmv(shifted, identity.src());
        let shifts: Vec<Opnd> = steps
            .iter()
            .map(|&k| Some(if k < 32 { Opnd::Imm(k as i32) } else { Opnd::X(self.xconst(k)?) }))
            .collect::<Option<_>>()?;
        let tested: Vec<(i64, XReg)> = steps
            .iter()
            .zip(&shifts)
            .filter_map(|(&k, by)| match by {
                Opnd::X(r) if k >= lanes_at(MIN_VLEN) => Some((k, *r)),
                _ => None,
            })
            .collect();
        let m = tested.len() as i32;
        for (i, &(_, kreg)) in tested.iter().enumerate() {
            // Past the steps from the largest shift down to this one: 2 instructions each.
            let past = m + 2 * (m - i as i32);
            let target = Target::Offset((past - i as i32) * 4);
            self.asm.push(Inst::Branch { cond: BranchCond::Geu, rs1: kreg, rs2: vlmax, target });
        }
        for by in shifts.iter().rev() {
            self.asm.vop(VBinOp::Slideup, shifted, v, by.src(), u);
            self.asm.vop(lanewise, v, v, shifted, u);
        }
        // The carry in: the accumulator element in a scalar register (else broadcast into
        // the steps' register by a stride-0 load), combined with every lane; the carry out:
        // the last lane, at `vl - 1` (held in a register when the attempt allows it).
        let fcarry = if st.is_float() && matches!(w, 4 | 8) { self.fpool.pop() } else { None };
        let carry = match (st.is_float(), fcarry) {
            (true, Some(r)) => {
                self.asm.fload(if w == 8 { FFmt::D } else { FFmt::S }, r, base, 0);
                Opnd::F(r)
            }
            (true, None) => {
                self.asm.vload(sew(w), mode, shifted, base, u);
                Opnd::V(shifted)
            }
            (false, _) => {
                let r = self.strip_xreg()?;
                let load = [LoadOp::Lb, LoadOp::Lh, LoadOp::Lw, LoadOp::Ld][w.trailing_zeros() as usize];
                self.asm.load(load, r, base, 0);
                Opnd::X(r)
            }
        };
        self.asm.vop(lanewise, v, v, carry.src(), u);
        let last = self.strip_xreg()?;
        let lane = match self.last_lane_allowed {
            true => self.last_lane_xreg()?,
            false => {
                self.asm.csrr(last, Csr::VL);
                self.asm.addi(last, last, -1);
                last
            }
        };
        self.asm.vop(VBinOp::Slidedown, shifted, v, lane, u);
        self.asm.push(Inst::VMvXS { rd: last, vs2: shifted });
        let store = match w {
            1 => StoreOp::Sb,
            2 => StoreOp::Sh,
            4 => StoreOp::Sw,
            _ => StoreOp::Sd,
        };
        self.asm.store(store, last, base, 0);
        self.scan_vals.insert(buf, v);
        Some(())
    }
}
