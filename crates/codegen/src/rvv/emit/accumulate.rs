//! Accumulators: reductions and arg-reductions over the strip — row accumulators held in
//! registers across strips (finished once after the range), lane-wise read-modify-write
//! otherwise. Scans are in [`super::scan`].

use super::*;

/// A row accumulation (`buf[index]` the same for the whole flat range): a register group
/// folds the strips lane by lane from `identity`; once the range is done the group is
/// reduced and combined with the element (see [`finish_row_acc`]).
pub(super) struct RowAcc {
    pub(super) buf: Buf,
    /// The stream register holding the element's address (step 0).
    pub(super) addr: XReg,
    pub(super) w: u32,
    pub(super) reg: VReg,
    pub(super) lanes: AccLanes,
    pub(super) identity: Opnd,
    /// A sum in [`tilec_vector::stride::Plan::prefix_zero_sums`]: it starts at +0.0 when
    /// the prefix is shorter than the range.
    pub(super) zero_when_short: bool,
    /// The element holds the identity when the nest starts ([`tilec_vector::stride::Plan::fresh`]):
    /// the result overwrites it.
    pub(super) fresh: bool,
    /// For float max/min `vfredmax`/`vfredmin`: IEEE 754-2019 maximumNumber/minimumNumber
    /// over `vs1[0]` and the active elements, i.e. Triton's `maxnum`/`minnum` (a NaN loses;
    /// only NaNs give NaN), like the lane-wise `vfmax`/`vfmin`. `Err(lanewise)` for
    /// products, which have no reduction instruction: a group accumulator is folded by
    /// halves with the lane-wise operation (see [`finish_row_acc`]).
    pub(super) reduction: Result<VBinOp, VBinOp>,
    /// The result goes to `fa0` (floats) or `a0` (integers, sign-extended) instead of the
    /// scratch element ([`crate::rvv::Leaf::returns`]); then the accumulator is fresh and
    /// `addr` is `zero`, never accessed.
    pub(super) returned: bool,
}

impl RowAcc {
    /// Whether the accumulator is one register's element 0 that starts from the scratch
    /// element itself (loaded through a scalar register before the range, unless it holds
    /// the identity, and stored back the same way after it: no `vl` = 1 around vector
    /// accesses): a single-register accumulator at the base vtype's element width that
    /// need not start from +0.0.
    pub(super) fn seeded(&self, base: VType) -> bool {
        self.lanes == AccLanes::Single && !self.zero_when_short && base.sew == sew(self.w)
    }

    fn is_float(&self) -> bool {
        matches!(self.identity, Opnd::F(_))
    }

    /// Element 0 of `v` (at the vtype of the accumulator's width) into the return register.
    fn return_element(&self, out: &mut Assembler, v: VReg) {
        match self.is_float() {
            true => out.push(Inst::VFMvFS { rd: FReg::FA0, vs2: v }),
            false => out.push(Inst::VMvXS { rd: XReg::A0, vs2: v }),
        }
    }

    /// The identity into element 0 of `v` by a scalar move (one register whatever the
    /// LMUL), if it is in a register or zero; false, with nothing emitted, otherwise. The
    /// vtype's element width must be the accumulator's.
    pub(super) fn move_identity_to_element0(&self, out: &mut Assembler, v: VReg) -> bool {
        match self.identity {
            Opnd::F(rs1) => out.push(Inst::VFMvSF { vd: v, rs1 }),
            Opnd::X(rs1) => out.push(Inst::VMvSX { vd: v, rs1 }),
            Opnd::Imm(0) => out.push(Inst::VMvSX { vd: v, rs1: XReg::ZERO }),
            _ => return false,
        }
        true
    }

    /// The identity into element 0 of `v` (a reduction reads only that element of its
    /// `vs1`): a scalar move where [`Self::move_identity_to_element0`] can, a splat otherwise.
    fn identity_into_element0(&self, out: &mut Assembler, v: VReg) {
        if !self.move_identity_to_element0(out, v) {
            out.vmv(v, self.identity.src());
        }
    }

    /// The scratch element into element 0 of `v` at `vl` = 1 (the identity for the returned
    /// accumulator, which is fresh and has no address).
    fn load_at_vl1(&self, out: &mut Assembler, v: VReg) {
        match self.returned {
            true => self.identity_into_element0(out, v),
            false => out.vle(sew(self.w), v, self.addr, Mask::Unmasked),
        }
    }

    /// Element 0 of `v` to the scratch element at `vl` = 1 (or into the return register).
    fn store_at_vl1(&self, out: &mut Assembler, v: VReg) {
        match self.returned {
            true => self.return_element(out, v),
            false => out.vse(sew(self.w), v, self.addr, Mask::Unmasked),
        }
    }

    /// Moves the scratch element into (`store` false) or out of element 0 of `v`, through
    /// `tmp` or `ftmp`.
    pub(super) fn move_element(&self, out: &mut Assembler, v: VReg, store: bool, tmp: XReg, ftmp: FReg) {
        if store && self.returned {
            self.return_element(out, v);
            return;
        }
        let fmt = if self.w == 8 { FFmt::D } else { FFmt::S };
        let (load_op, store_op) = match self.w {
            1 => (LoadOp::Lb, StoreOp::Sb),
            2 => (LoadOp::Lh, StoreOp::Sh),
            4 => (LoadOp::Lw, StoreOp::Sw),
            _ => (LoadOp::Ld, StoreOp::Sd),
        };
        match (self.is_float(), store) {
            (true, false) => {
                out.fload(fmt, ftmp, self.addr, 0);
                out.push(Inst::VFMvSF { vd: v, rs1: ftmp });
            }
            (false, false) => {
                out.load(load_op, tmp, self.addr, 0);
                out.push(Inst::VMvSX { vd: v, rs1: tmp });
            }
            (true, true) => {
                out.push(Inst::VFMvFS { rd: ftmp, vs2: v });
                out.fstore(fmt, ftmp, self.addr, 0);
            }
            (false, true) => {
                out.push(Inst::VMvXS { rd: tmp, vs2: v });
                out.store(store_op, tmp, self.addr, 0);
            }
        }
    }
}

/// A row arg-accumulation (`vals[index]`, `idxs[index]` the same for the whole flat
/// range): each lane folds its elements into (`best`, `best_index`) groups with the
/// interpreter's rule (the new element replaces unless the best so far is `>=` it, `<=`
/// for argmin: so ties keep the earlier position and a NaN on either side replaces).
/// A strip holding a NaN at position J resets every lane to (NaN, J) first and folds only
/// its later lanes, as the sequential fold forgets everything before its last NaN. After
/// the range: the extreme of the non-NaN lanes with the smallest index among lanes equal
/// to it, or (NaN, J) when every lane is NaN (see [`finish_row_arg`]); the value stored is
/// that lane's element, so it is `x[index]` bit for bit.
///
/// Positions grow by `step` per lane, so lane `i` of `best_index` holds its position less
/// `step·i` (the strip's first position where the lane's element replaced): the fold merges
/// that scalar, with no vector of positions (one register group fewer, so the strip keeps
/// a larger LMUL); the prologue and [`finish_row_arg`] convert from and to positions.
pub(super) struct RowArg {
    pub(super) vals_addr: XReg,
    pub(super) idxs_addr: XReg,
    /// Value width (bytes) and type.
    pub(super) w: u32,
    pub(super) st: ScalarType,
    pub(super) kind: ArgKind,
    pub(super) best: VReg,
    pub(super) best_index: VReg,
    /// The positions' step from lane to lane (positive).
    pub(super) step: i64,
}

/// The registers reserved for a row arg-accumulation.
#[derive(Clone, Copy)]
pub(super) struct ArgRegs {
    pub(super) best: VReg,
    pub(super) best_index: VReg,
}

/// The width (bytes) of arg-accumulation positions (`i32`).
pub(super) const POSITION_BYTES: u32 = 4;

/// How a row accumulator holds its partial result across strips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AccLanes {
    /// A register group at the accumulator's width: strips fold in lane by lane, one
    /// reduction after the range.
    Group,
    /// Element 0 of one register: every strip is reduced into it (`vfredusum.vs acc, x,
    /// acc`), as cheap per strip as the lane-wise fold. Used when a group does not fit,
    /// so the data keep the largest LMUL.
    Single,
}

/// The lane-wise operation and the reduction of an accumulation over `st` (`None` for
/// products: there is no product reduction).
pub(super) fn acc_ops(op: AccOp, st: ScalarType) -> Option<(VBinOp, Option<VBinOp>)> {
    let signed = st.is_signed_int();
    Some(if st.is_float() {
        match op {
            AccOp::Sum => (VBinOp::Fadd, Some(VBinOp::Fredusum)),
            AccOp::Prod => (VBinOp::Fmul, None),
            AccOp::Max => (VBinOp::Fmax, Some(VBinOp::Fredmax)),
            AccOp::Min => (VBinOp::Fmin, Some(VBinOp::Fredmin)),
            AccOp::Xor | AccOp::And | AccOp::Or => return None,
        }
    } else {
        match op {
            AccOp::Sum => (VBinOp::Add, Some(VBinOp::Redsum)),
            AccOp::Prod => (VBinOp::Mul, None),
            AccOp::Max if signed => (VBinOp::Max, Some(VBinOp::Redmax)),
            AccOp::Max => (VBinOp::Maxu, Some(VBinOp::Redmaxu)),
            AccOp::Min if signed => (VBinOp::Min, Some(VBinOp::Redmin)),
            AccOp::Min => (VBinOp::Minu, Some(VBinOp::Redminu)),
            AccOp::Xor => (VBinOp::Xor, Some(VBinOp::Redxor)),
            AccOp::And => (VBinOp::And, Some(VBinOp::Redand)),
            AccOp::Or => (VBinOp::Or, Some(VBinOp::Redor)),
        }
    })
}

/// After the range, for an operation without a reduction instruction (products): the
/// group's VLMAX lanes (a power of two) are folded by halves, `acc[i] = op(acc[i],
/// acc[i + h])` for h = VLMAX/2, VLMAX/4, ..., 1 (`vslidedown` into `fin`, `h` counted
/// in `half`), then element 0 is combined with the scratch element at `vl` = 1.
fn fold_by_halves(out: &mut Assembler, acc: &RowAcc, vt: VType, vlmax: XReg, fin: VReg, lanewise: VBinOp, half: XReg) {
    let u = Mask::Unmasked;
    out.mv(half, vlmax);
    let top = out.new_label();
    let done = out.new_label();
    out.bind(top);
    out.srli(half, half, 1);
    out.beq(half, XReg::ZERO, done);
    out.vsetvli(XReg::ZERO, half, vt);
    out.vop(VBinOp::Slidedown, fin, acc.reg, half, u);
    out.vop(lanewise, acc.reg, acc.reg, fin, u);
    out.j(top);
    out.bind(done);
    out.vsetivli(XReg::ZERO, 1, vt);
    acc.load_at_vl1(out, fin);
    out.vop(lanewise, fin, fin, acc.reg, u);
    acc.store_at_vl1(out, fin);
}

/// After the range: `buf[index] = op(buf[index], reduce(acc))`. `vt` is the accumulator's
/// width at the nest's LMUL, `vlmax` its VLMAX; `fin` (a group of the accumulator's width)
/// is a free vector register, `tmp` a free scalar one. With `at_vlmax` (`vl` is VLMAX and
/// the vtype `vt`), a group
/// accumulator moves the element in and out through the scalar registers `tmp`/`ftmp`
/// instead of setting `vl` to 1 around vector accesses. Leaves `vtype` and `vl` changed.
pub(super) fn finish_row_acc(
    out: &mut Assembler,
    acc: &RowAcc,
    vt: VType,
    vlmax: XReg,
    fin: VReg,
    at_vlmax: Option<(XReg, FReg)>,
    tmp: XReg,
) {
    let u = Mask::Unmasked;
    let eew = sew(acc.w);
    let reduction = match acc.reduction {
        Ok(r) => r,
        Err(lanewise) => {
            fold_by_halves(out, acc, vt, vlmax, fin, lanewise, tmp);
            return;
        }
    };
    if let (AccLanes::Group, Some((tmp, ftmp))) = (acc.lanes, at_vlmax) {
        if acc.fresh {
            acc.identity_into_element0(out, fin);
        } else {
            acc.move_element(out, fin, false, tmp, ftmp);
        }
        out.vop(reduction, fin, acc.reg, fin, u);
        acc.move_element(out, fin, true, tmp, ftmp);
        return;
    }
    // A single-register accumulator is read at LMUL 1 (it need not start a group).
    let one_vt = match acc.lanes {
        AccLanes::Group => vt,
        AccLanes::Single => VType::new(eew, Lmul::M1),
    };
    out.vsetivli(XReg::ZERO, 1, one_vt);
    acc.load_at_vl1(out, fin);
    match acc.lanes {
        AccLanes::Group => {
            out.vsetvli(XReg::ZERO, vlmax, vt);
            out.vop(reduction, fin, acc.reg, fin, u);
            out.vsetivli(XReg::ZERO, 1, vt);
        }
        AccLanes::Single => out.vop(reduction, fin, acc.reg, fin, u),
    }
    acc.store_at_vl1(out, fin);
}

/// `lanes` (a group at the positions' width, under the current vtype) = `step·i` in lane `i`;
/// `step_reg` holds `step` when it is no power of two.
pub(super) fn lane_offsets(out: &mut Assembler, lanes: VReg, step: i64, step_reg: Option<XReg>) {
    let u = Mask::Unmasked;
    out.vid(lanes, u);
    match step_reg {
        Some(r) => out.vop(VBinOp::Mul, lanes, lanes, r, u),
        None if step > 1 => out.vop(VBinOp::Sll, lanes, lanes, step.trailing_zeros() as i32, u),
        None => {}
    }
}

/// After the range: the row's (value, index) from the lanes of `a` (see [`RowArg`]) to
/// its scratch elements, at `vl` = VLMAX. `vts`: vtypes at the value's and the index's
/// width; `r` two free vector registers and a free group at the index's width; `ftmp` and
/// `tmp` free scalar registers. Clobbers `v0`; leaves `vtype` and `vl` changed.
pub(super) fn finish_row_arg(
    out: &mut Assembler,
    a: &RowArg,
    vts: (VType, VType),
    vlmax: XReg,
    r: (VReg, VReg, VReg),
    ftmp: FReg,
    tmp: [XReg; 2],
) {
    let u = Mask::Unmasked;
    let (extreme, value, lanes) = r;
    // Each lane's position back from its strip's (see [`RowArg`]).
    out.vsetvli(XReg::ZERO, vlmax, vts.1);
    let step_reg = (!(a.step as u64).is_power_of_two()).then(|| {
        out.li(tmp[0], a.step);
        tmp[0]
    });
    lane_offsets(out, lanes, a.step, step_reg);
    out.vop(VBinOp::Add, a.best_index, a.best_index, lanes, u);
    let reduction = match (a.st.is_float(), a.st.is_signed_int(), a.kind) {
        (true, _, ArgKind::Max) => VBinOp::Fredmax,
        (true, _, ArgKind::Min) => VBinOp::Fredmin,
        (false, true, ArgKind::Max) => VBinOp::Redmax,
        (false, true, ArgKind::Min) => VBinOp::Redmin,
        (false, false, ArgKind::Max) => VBinOp::Redmaxu,
        (false, false, ArgKind::Min) => VBinOp::Redminu,
    };
    if vts.0 != vts.1 {
        out.vsetvli(XReg::ZERO, vlmax, vts.0);
    }
    // The extreme of the lanes (NaN lanes ignored; NaN when all are) and the lanes equal
    // to it, or every lane when all are NaN (they all hold the last NaN's position).
    out.vop(reduction, extreme, a.best, a.best, u);
    if a.st.is_float() {
        out.push(Inst::VFMvFS { rd: ftmp, vs2: extreme });
        out.vop(VBinOp::Mfeq, VReg::V0, a.best, ftmp, u);
        out.push(Inst::VMaskScalar { op: VMaskScalarOp::Cpop, rd: tmp[0], vs2: VReg::V0, mask: u });
        let some = out.new_label();
        out.bne(tmp[0], XReg::ZERO, some);
        out.vop(VBinOp::Mxnor, VReg::V0, VReg::V0, VReg::V0, u);
        out.bind(some);
    } else {
        out.push(Inst::VMvXS { rd: tmp[0], vs2: extreme });
        out.vop(VBinOp::Mseq, VReg::V0, a.best, tmp[0], u);
    }
    if vts.0 != vts.1 {
        out.vsetvli(XReg::ZERO, XReg::ZERO, vts.1);
    }
    out.li(tmp[1], -1);
    out.push(Inst::VMvSX { vd: value, rs1: tmp[1] });
    out.vop(VBinOp::Redminu, value, a.best_index, value, Mask::V0);
    if a.st.is_float() {
        // The value is the chosen lane's element, bit for bit: the extreme compares equal
        // to it but may be the other zero, or another NaN. Its bits are the unsigned
        // maximum over that lane (or the lanes holding the same NaN) alone.
        out.push(Inst::VMvXS { rd: tmp[1], vs2: value });
        out.vop(VBinOp::Mseq, lanes, a.best_index, tmp[1], u);
        out.vop(VBinOp::Mand, VReg::V0, VReg::V0, lanes, u);
        if vts.0 != vts.1 {
            out.vsetvli(XReg::ZERO, XReg::ZERO, vts.0);
        }
        out.push(Inst::VMvSX { vd: extreme, rs1: XReg::ZERO });
        out.vop(VBinOp::Redmaxu, extreme, a.best, extreme, Mask::V0);
    }
    out.vsetivli(XReg::ZERO, 1, VType::new(Sew::E32, Lmul::M1));
    out.vse(Sew::E32, value, a.idxs_addr, u);
    if sew(a.w) != Sew::E32 {
        out.vsetivli(XReg::ZERO, 1, VType::new(sew(a.w), Lmul::M1));
    }
    out.vse(sew(a.w), extreme, a.vals_addr, u);
}

impl Emitter<'_> {
    /// The vtype a row accumulator is initialised at: its group's, or LMUL 1 for a
    /// single register (set at `vl` = 1).
    pub(super) fn row_acc_vtype(&self, acc: &RowAcc) -> VType {
        match acc.lanes {
            AccLanes::Group => self.vtype_for(acc.w),
            AccLanes::Single => VType::new(sew(acc.w), Lmul::M1),
        }
    }

    /// `buf[index] = op(buf[index], value)` over the strip: a row accumulation when the
    /// element is the same for the whole flat range, else (distinct elements per lane) a
    /// lane-wise read-modify-write in the scalar path's order.
    pub(super) fn accumulate(&mut self, buf: Buf, index: &Affine, op: AccOp, value: Var) -> Option<()> {
        let st = scalar_of(self.f.bufs[buf].elem);
        if st.is_bool() || is_half(st) || self.width_of(value)? != mem_bytes(st)? {
            return None;
        }
        let w = mem_bytes(st)?;
        let (lanewise, reduction) = acc_ops(op, st)?;
        let row = self.row_regs.get(&buf).copied();
        if row.is_none() && self.plan.scans.contains(&buf) {
            let mut strides = index.strides.clone();
            strides.resize(self.dims, 0);
            if self.plan.flat_stride(&strides) == 0 {
                return self.scan_along_strip(buf, index, op, value);
            }
        }
        let lanes = self.shape.acc_lanes;
        let (mode, base, _) = self.scratch_access(buf, index)?;
        let x = self.vector(value, w)?;
        let u = Mask::Unmasked;
        if let Some(reg) = row {
            let identity = self.identity(op, st)?;
            // A product folds its lanes by halves: only a group accumulator has lanes.
            let reduction = match (reduction, lanes) {
                (Some(r), _) => Ok(r),
                (None, AccLanes::Group) => Err(lanewise),
                (None, AccLanes::Single) => return None,
            };
            let zero_when_short = self.plan.prefix_zero_sums.contains(&buf);
            let fresh = self.plan.fresh.contains(&buf);
            // A split range's second strip updates the same accumulator.
            if !self.row_accs.iter().any(|a| a.reg == reg) {
                self.row_accs.push(RowAcc {
                    buf,
                    addr: base,
                    w,
                    reg,
                    lanes,
                    identity,
                    reduction,
                    zero_when_short,
                    fresh,
                    returned: false,
                });
            }
            self.set_width(w);
            match lanes {
                AccLanes::Group => self.asm.vop(lanewise, reg, reg, x, u),
                AccLanes::Single => self.asm.vop(reduction.ok()?, reg, x, reg, u),
            }
            return Some(());
        }
        let old = self.load(mode, base, st, u, None)?;
        self.set_width(w);
        self.asm.vop(lanewise, old, old, x, u);
        self.asm.vstore(sew(w), mode, old, base, u);
        self.free_v(old, w);
        Some(())
    }

    /// The mask (written to `v0`) of the lanes that keep their best so far against `x`:
    /// `best >= x` (`<=` for argmin), false when either is NaN.
    fn keep_mask(&mut self, kind: ArgKind, st: ScalarType, best: VReg, x: VReg) {
        let op = match (st.is_float(), st.is_signed_int()) {
            (true, _) => VBinOp::Mfle,
            (false, true) => VBinOp::Msle,
            (false, false) => VBinOp::Msleu,
        };
        let (lo, hi) = if kind == ArgKind::Max { (x, best) } else { (best, x) };
        self.asm.vop(op, VReg::V0, lo, hi, Mask::Unmasked);
        self.v0 = None;
    }

    /// Emits the instructions `block` adds to the strip into a separate list (the vtype
    /// the block leaves is restored to the one it started with).
    fn side_block(&mut self, block: impl FnOnce(&mut Self) -> Option<()>) -> Option<Vec<Inst>> {
        let vt = self.vtype;
        let outer = std::mem::replace(&mut self.asm, Assembler::new());
        let done = block(self);
        if self.vtype != vt {
            self.asm.vsetvli(XReg::ZERO, XReg::ZERO, vt);
            self.vtype = vt;
        }
        let side = std::mem::replace(&mut self.asm, outer);
        done?;
        Some(side.insts().to_vec())
    }

    /// `AccumulateArg` over the strip: row (vector accumulators, see [`RowArg`]) or, when
    /// each lane has its own element, a lane-wise read-compare-merge-write.
    pub(super) fn accumulate_arg(
        &mut self,
        vals: Buf,
        idxs: Buf,
        index: &Affine,
        kind: ArgKind,
        value: Var,
        position: Var,
    ) -> Option<()> {
        let st = scalar_of(self.f.bufs[vals].elem);
        let w = mem_bytes(st)?;
        if st.is_bool() || self.width_of(value)? != w || self.f.bufs[idxs].elem != Elem::Scalar(ScalarType::I32) {
            return None;
        }
        if self.width_of(position)? != POSITION_BYTES {
            return None;
        }
        let (mode, vals_addr, _) = self.scratch_access(vals, index)?;
        let (imode, idxs_addr, _) = self.scratch_access(idxs, index)?;
        let x = self.vector(value, w)?;
        let u = Mask::Unmasked;
        let Some(regs) = self.arg_regs.get(&vals).copied() else {
            // Lane-wise: this lane's element, read, merged and written back.
            let p = self.vector(position, POSITION_BYTES)?;
            let best = self.load(mode, vals_addr, st, u, None)?;
            let best_index = self.load(imode, idxs_addr, ScalarType::I32, u, None)?;
            self.set_width(w);
            self.keep_mask(kind, st, best, x);
            self.asm.vop(VBinOp::Merge, best, x, best, Mask::V0);
            self.set_width(POSITION_BYTES);
            self.asm.vop(VBinOp::Merge, best_index, p, best_index, Mask::V0);
            self.asm.vstore(Sew::E32, imode, best_index, idxs_addr, u);
            self.set_width(w);
            self.asm.vstore(sew(w), mode, best, vals_addr, u);
            self.free_v(best, w);
            self.free_v(best_index, POSITION_BYTES);
            return Some(());
        };
        // Positions must grow with the lane (the reset keeps the lanes after the last NaN).
        let Some(Class::Lin(pos)) = self.plan.classes.get(&position).cloned() else { return None };
        let step = self.plan.flat_coef(&pos).constant().filter(|&c| c > 0)?;
        if self.call_vl.is_some() {
            return None;
        }
        // The strip's first position (see [`RowArg`]).
        let stream = self.stream(Base::Value, &pos, 1)?;
        let first = self.stream_reg(stream)?;
        let step_reg = match (step as u64).is_power_of_two() {
            true => None,
            false => Some(self.xconst(step)?),
        };
        let ArgRegs { best, best_index } = regs;
        // A split range's second strip updates the same accumulator.
        if !self.row_args.iter().any(|a| a.best == best) {
            self.row_args.push(RowArg { vals_addr, idxs_addr, w, st, kind, best, best_index, step });
        }
        self.set_width(w);
        let merge = |e: &mut Self| {
            // The lanes whose element replaces (`vmnot` of the keep mask).
            e.keep_mask(kind, st, best, x);
            e.asm.vop(VBinOp::Mnand, VReg::V0, VReg::V0, VReg::V0, u);
            e.asm.vop(VBinOp::Merge, best, best, x, Mask::V0);
            e.set_width(POSITION_BYTES);
            e.asm.vop(VBinOp::Merge, best_index, best_index, first, Mask::V0);
            Some(())
        };
        if !st.is_float() {
            return merge(self);
        }
        let nan = self.temp(0)?;
        let red = self.temp(0)?;
        // The NaN count, then J; the strip's `vl` (shared by every row arg-accumulation).
        let (last, vl) = match self.arg_scratch {
            Some(regs) => regs,
            // A checked leaf's check registers are free here.
            None if self.checks.is_some() => {
                let x = self.check_xregs()?;
                (x[0], x[1])
            }
            None => (self.xreg()?, self.xreg()?),
        };
        self.arg_scratch = Some((last, vl));
        let (count, vlmax) = (last, self.vlmax);
        self.asm.vop(VBinOp::Mfne, nan, x, x, u);
        self.asm.push(Inst::VMaskScalar { op: VMaskScalarOp::Cpop, rd: count, vs2: nan, mask: u });
        let vt_w = self.vtype_for(w);
        let vt_p = self.vtype_for(POSITION_BYTES);
        let reset = self.side_block(|e| {
            // L = the last NaN's lane (lane numbers in `best_index`, rewritten next), J its
            // position; every lane (to VLMAX) becomes (x[L], J), that NaN with its bits;
            // the strip's lanes after L take their element.
            e.put_in_v0(nan);
            e.set_width(POSITION_BYTES);
            e.asm.vid(best_index, u);
            e.asm.push(Inst::VMvSX { vd: red, rs1: XReg::ZERO });
            e.asm.vop(VBinOp::Redmaxu, red, best_index, red, Mask::V0);
            e.asm.push(Inst::VMvXS { rd: last, vs2: red });
            e.asm.csrr(vl, Csr::VL);
            e.asm.vsetvli(XReg::ZERO, vlmax, vt_w);
            e.asm.vop(VBinOp::Rgather, best, x, last, u);
            e.asm.vsetvli(XReg::ZERO, vl, vt_p);
            e.asm.vop(VBinOp::Msgtu, nan, best_index, last, u);
            e.v0 = None;
            // J = first + step·L; lane i of every lane to VLMAX: J - step·i.
            match step_reg {
                Some(r) => e.asm.mul(last, last, r),
                None if step > 1 => e.asm.slli(last, last, step.trailing_zeros() as i32),
                None => {}
            }
            e.asm.add(last, last, first);
            e.asm.vsetvli(XReg::ZERO, vlmax, vt_p);
            lane_offsets(&mut e.asm, best_index, step, step_reg);
            e.asm.vop(VBinOp::Rsub, best_index, best_index, last, u);
            e.asm.vsetvli(XReg::ZERO, vl, vt_p);
            e.vtype = vt_p;
            e.put_in_v0(nan);
            e.asm.vop(VBinOp::Merge, best_index, best_index, first, Mask::V0);
            e.set_width(w);
            e.asm.vop(VBinOp::Merge, best, best, x, Mask::V0);
            Some(())
        })?;
        let fold = self.side_block(merge)?;
        // beqz count, fold; reset; j end; fold; end:
        let bytes = |n: usize| (n as i32 + 1) * 4;
        let to_fold = Target::Offset(bytes(reset.len() + 1));
        self.asm.push(Inst::Branch { cond: BranchCond::Eq, rs1: count, rs2: XReg::ZERO, target: to_fold });
        reset.into_iter().for_each(|i| self.asm.push(i));
        self.asm.push(Inst::Jal { rd: XReg::ZERO, target: Target::Offset(bytes(fold.len())) });
        fold.into_iter().for_each(|i| self.asm.push(i));
        self.v0 = None;
        Some(())
    }

    /// The identity element of `op` over `st` as a splat source.
    pub(super) fn identity(&mut self, op: AccOp, st: ScalarType) -> Option<Opnd> {
        if st.is_float() {
            let x = match op {
                AccOp::Sum => -0.0,
                AccOp::Prod => 1.0,
                // `vfmax`/`vfmin` are `maxnum`/`minnum`, whose neutral element is NaN (see
                // `tilec_vector`'s accumulator identities).
                AccOp::Max | AccOp::Min => f64::NAN,
                _ => return None,
            };
            return self.constant(Elem::Scalar(st), Constant::Float(x));
        }
        let bits = st.bytes() * 8;
        let (smin, smax) = (i64::MIN >> (64 - bits), i64::MAX >> (64 - bits));
        let value = match op {
            AccOp::Sum | AccOp::Xor | AccOp::Or => 0,
            AccOp::Prod => 1,
            AccOp::And => -1,
            AccOp::Max if st.is_signed_int() => smin,
            AccOp::Max => 0,
            AccOp::Min if st.is_signed_int() => smax,
            AccOp::Min => -1,
        };
        Some(if (-16..16).contains(&value) { Opnd::Imm(value as i32) } else { Opnd::X(self.xconst(value)?) })
    }
}
