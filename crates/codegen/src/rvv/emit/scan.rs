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
//!   log-step `vslideup` + op (identity shifted in), combined with the carried element read
//!   from scratch (a stride-0 load broadcasts it into the steps' register); the strip's last
//!   lane is written back as the next carry. Integer scans and float min/max are exact; float sums and products
//!   are reassociated (tree order within a strip), like reductions. Float min/max are
//!   `vfmin`/`vfmax`, i.e. `minnum`/`maxnum` as Triton's default combine: a NaN loses, so
//!   the identity shifted in is NaN and a lane is NaN only when its whole prefix is.

use super::*;

/// Largest `VLEN` (bits) RVV 1.0 allows: bounds the lanes of a strip, so the number of
/// log steps of the prefix.
const MAX_VLEN: i64 = 65536;

/// Smallest `VLEN` (bits) the leaves run at (the `V` extension's minimum).
const MIN_VLEN: i64 = 128;

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
    /// time beyond VLEN 128) are skipped by a branch (those whose shift needs a register);
    /// the carry is broadcast into the steps' register, so the strip holds two register
    /// groups besides the element's.
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
        let v = self.alloc_v(w)?;
        self.set_width(w);
        self.asm.vmv(v, x);
        let identity = self.identity(op, st)?;
        let shifted = self.temp(w)?;
        let group = self.group(w) as i64;
        let lanes_at = |vlen: i64| vlen * group / (8 * w as i64);
        let lanes = lanes_at(MAX_VLEN).min(self.plan.flat_len);
        let steps: Vec<i64> = std::iter::successors(Some(1i64), |k| Some(k * 2)).take_while(|&k| k < lanes).collect();
        let vlmax = self.vlmax;
        self.set_width(w);
        for (j, &k) in steps.iter().enumerate() {
            let by = if k < 32 { Opnd::Imm(k as i32) } else { Opnd::X(self.xconst(k)?) };
            if let (Opnd::X(kreg), true) = (by, k >= lanes_at(MIN_VLEN)) {
                // From `k` ≥ VLMAX on, every step shifts all lanes out: skip to the end
                // (this step's 3 instructions, and 4 for each later one with its branch).
                let left = (steps.len() - j) as i32;
                let after = 3 * left + (left - 1);
                let target = Target::Offset((after + 1) * 4);
                self.asm.push(Inst::Branch { cond: BranchCond::Geu, rs1: kreg, rs2: vlmax, target });
            }
            self.asm.vmv(shifted, identity.src());
            self.asm.vop(VBinOp::Slideup, shifted, v, by.src(), u);
            self.asm.vop(lanewise, v, v, shifted, u);
        }
        // The carry in: the accumulator element broadcast into the steps' register (free
        // again) and combined with every lane; the carry out: the last lane.
        self.asm.vload(sew(w), mode, shifted, base, u);
        self.asm.vop(lanewise, v, v, shifted, u);
        let last = self.xreg()?;
        self.asm.csrr(last, Csr::VL);
        self.asm.addi(last, last, -1);
        self.asm.vop(VBinOp::Slidedown, shifted, v, last, u);
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
