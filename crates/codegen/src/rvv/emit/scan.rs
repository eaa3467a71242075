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
//!   from scratch (a stride-0 load broadcasts it); the strip's last lane is written back as
//!   the next carry. Integer scans and float min/max are exact; float sums and products
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
    /// in `buf[index]`.
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
        let lanes = (MAX_VLEN * self.group(w) as i64 / (8 * w as i64)).min(self.plan.flat_len);
        let mut k = 1i64;
        while k < lanes {
            let by = if k < 32 { Opnd::Imm(k as i32) } else { Opnd::X(self.xconst(k)?) };
            self.set_width(w);
            self.asm.vmv(shifted, identity.src());
            self.asm.vop(VBinOp::Slideup, shifted, v, by.src(), u);
            self.asm.vop(lanewise, v, v, shifted, u);
            k *= 2;
        }
        let carry = self.temp(w)?;
        self.asm.vload(sew(w), mode, carry, base, u);
        self.asm.vop(lanewise, v, v, carry, u);
        let last = self.xreg()?;
        self.asm.csrr(last, Csr::VL);
        self.asm.addi(last, last, -1);
        self.asm.vop(VBinOp::Slidedown, carry, v, last, u);
        self.asm.push(Inst::VMvXS { rd: last, vs2: carry });
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
