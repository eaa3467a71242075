//! Instruction selection: the RVV instructions of one body statement — operands (scalar,
//! immediate, splat, stream-materialized), loads and stores, arithmetic, casts, compares.

use super::*;

impl Emitter<'_> {
    /// The operand for reading `v` (materialized into a temp when needed).
    pub(super) fn operand(&mut self, v: Var) -> Option<Opnd> {
        match self.plan.classes.get(&v)? {
            Class::OuterUniform => self.scalars.get(&v).copied(),
            Class::Uniform => match self.scalars.get(&v) {
                Some(_) => self.scalar(v),
                None if self.memory.as_ref().is_some_and(|m| m.vars.contains_key(&v)) => {
                    let m = self.memory.as_mut()?;
                    let t = m.temps[m.next];
                    m.next ^= 1;
                    self.asm.ld(t, m.args, m.vars[&v]);
                    Some(Opnd::X(t))
                }
                None => {
                    let c = *self.plan.live_constants.get(&v)?;
                    let op = self.constant(self.f.ty(v), c)?;
                    self.scalars.insert(v, op);
                    Some(op)
                }
            },
            Class::Vector => match self.vals.get(&v) {
                Some(&r) => Some(Opnd::V(r)),
                None => self.reload(v).map(Opnd::V),
            },
            Class::Lin(lin) => {
                let lin = lin.clone();
                let w = self.width_of(v)?;
                self.materialize_stream(Base::Value, &lin, 1, w).map(Opnd::V)
            }
            Class::PtrLin { base, off, bytes } => {
                let (base, off, bytes) = (*base, off.clone(), *bytes);
                self.materialize_stream(Base::Var(base), &off, bytes, 8).map(Opnd::V)
            }
            Class::AllTrue => {
                let t = self.temp(0)?;
                self.asm.vop(VBinOp::Mxnor, t, t, t, Mask::Unmasked);
                Some(Opnd::V(t))
            }
            Class::AllFalse => {
                let t = self.temp(0)?;
                self.asm.vop(VBinOp::Mxor, t, t, t, Mask::Unmasked);
                Some(Opnd::V(t))
            }
        }
    }

    /// Whether `mask` is known false on every lane the strip runs.
    fn masked_off(&self, mask: Option<Var>) -> bool {
        mask.is_some_and(|m| self.plan.classes.get(&m) == Some(&Class::AllFalse))
    }

    /// `d` (width `mb`, the current vtype) = `other` in every lane, or zero without one.
    fn fill_other(&mut self, d: VReg, mb: u32, other: Option<Var>) -> Option<()> {
        let src = match other {
            Some(o) => self.operand_imm(o, |i| (-16..16).contains(&i))?,
            None => Opnd::Imm(0),
        };
        self.set_width(mb);
        self.asm.vmv(d, src.src());
        Some(())
    }

    /// What a load of elements of `st` whose every lane is masked off gives: `other`, or
    /// zero without one.
    fn load_masked_off(&mut self, st: ScalarType, other: Option<Var>) -> Option<VReg> {
        if is_half(st) {
            return self.splat_other_half(st, other);
        }
        if st.is_bool() {
            let bytes = self.temp(1)?;
            self.fill_other(bytes, 1, other)?;
            let d = self.alloc_v(0)?;
            self.asm.vop(VBinOp::Msne, d, bytes, 0, Mask::Unmasked);
            return Some(d);
        }
        let mb = mem_bytes(st)?;
        let d = self.alloc_v(mb)?;
        self.fill_other(d, mb, other)?;
        Some(d)
    }

    /// The scalar operand of uniform `v` before the strip runs: a live-in, a live-in
    /// constant or a constant assigned in the body (`None` for other uniforms).
    pub(super) fn uniform_source(&mut self, v: Var) -> Option<Opnd> {
        if self.scalars.contains_key(&v) {
            return self.scalar(v);
        }
        let c = match self.plan.live_constants.get(&v) {
            Some(c) => *c,
            None => self.nest_body.iter().find_map(|s| match s {
                Stmt::Assign { dst, expr: Expr::Const(c), .. } if *dst == v => Some(*c),
                _ => None,
            })?,
        };
        self.constant(self.f.ty(v), c)
    }

    /// The register of scalar `v` (a live-in or a value assigned before), for the strip to
    /// read. A live-in of a leaf with calls still in its argument register moves to a
    /// callee-saved one here (the prologue makes the move), as the strip's reads may come
    /// after a call.
    pub(super) fn scalar(&mut self, v: Var) -> Option<Opnd> {
        let op = *self.scalars.get(&v)?;
        if !self.args_in_place.remove(&v) {
            return Some(op);
        }
        let to = match op {
            Opnd::X(_) => Opnd::X(self.xreg()?),
            Opnd::F(_) => Opnd::F(self.fpool.pop()?),
            _ => return None,
        };
        self.arg_moves.push((to, op));
        self.scalars.insert(v, to);
        Some(to)
    }

    /// The integer constant value of uniform `v`, if it is one.
    pub(super) fn int_constant(&self, v: Var) -> Option<i64> {
        match self.plan.live_constants.get(&v)? {
            Constant::Int(i) if !self.f.ty(v).scalar()?.is_float() => Some(*i),
            Constant::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }

    /// `v` as an operand, as a 5-bit immediate when it is a constant that `fits`.
    fn operand_imm(&mut self, v: Var, fits: impl Fn(i64) -> bool) -> Option<Opnd> {
        match self.int_constant(v) {
            Some(i) if fits(i) => Some(Opnd::Imm(i as i32)),
            _ => self.operand(v),
        }
    }

    /// `v` as a vector register (scalars splat at width `w`).
    pub(super) fn vector(&mut self, v: Var, w: u32) -> Option<VReg> {
        if let Some(h) = self.hoisted.iter().find(|h| h.var == v && h.w == w) {
            return Some(h.reg);
        }
        match self.operand(v)? {
            Opnd::V(r) => Some(r),
            s => {
                if self.plan.classes.get(&v) == Some(&Class::Uniform) && !self.splatted.contains(&(v, w)) {
                    self.splatted.push((v, w));
                }
                let t = self.temp(w)?;
                self.set_width(w);
                self.asm.vmv(t, s.src());
                Some(t)
            }
        }
    }

    /// A mask register for the `i1` variable `v` (`None` operand: unmasked).
    fn mask_reg(&mut self, v: Var) -> Option<VReg> {
        match self.operand(v)? {
            Opnd::V(r) => Some(r),
            _ => None,
        }
    }

    /// Puts mask `m` into `v0`.
    pub(super) fn put_in_v0(&mut self, m: VReg) {
        if self.v0 != Some(m) {
            self.asm.vop(VBinOp::Mand, VReg::V0, m, m, Mask::Unmasked);
            self.v0 = Some(m);
        }
    }

    /// The mask under which a memory access runs: `Unmasked` or `v0` holding it.
    pub(super) fn access_mask(&mut self, mask: Option<Var>) -> Option<Mask> {
        let Some(m) = mask else { return Some(Mask::Unmasked) };
        if self.plan.classes.get(&m) == Some(&Class::AllTrue) {
            return Some(Mask::Unmasked);
        }
        let r = self.mask_reg(m)?;
        self.put_in_v0(r);
        Some(Mask::V0)
    }

    /// Loads elements of `st` into a fresh value register (masks for `i1`).
    pub(super) fn load(
        &mut self,
        mode: VMemMode,
        base: XReg,
        st: ScalarType,
        mask: Mask,
        other: Option<Var>,
    ) -> Option<VReg> {
        if is_half(st) {
            return self.load_half(mode, base, st, mask, other);
        }
        let mb = mem_bytes(st)?;
        let eew_of = |mode: VMemMode| match mode {
            VMemMode::Indexed { .. } => Sew::E64,
            _ => sew(mb),
        };
        if st.is_bool() {
            let bytes = self.temp(1)?;
            if mask == Mask::V0 {
                self.fill_other(bytes, 1, other)?;
            }
            self.set_width(1);
            self.asm.vload(eew_of(mode), mode, bytes, base, mask);
            let d = self.alloc_v(0)?;
            self.asm.vop(VBinOp::Msne, d, bytes, 0, Mask::Unmasked);
            return Some(d);
        }
        let d = self.alloc_v(mb)?;
        if mask == Mask::V0 {
            self.fill_other(d, mb, other)?;
        }
        self.set_width(mb);
        self.asm.vload(eew_of(mode), mode, d, base, mask);
        Some(d)
    }

    pub(super) fn store(&mut self, mode: VMemMode, base: XReg, st: ScalarType, value: Var, mask: Mask) -> Option<()> {
        let mb = mem_bytes(st)?;
        let eew = match mode {
            VMemMode::Indexed { .. } => Sew::E64,
            _ => sew(mb),
        };
        if st.is_bool() {
            let m = self.mask_reg(value)?;
            let saved = self.v0;
            let bytes = self.temp(1)?;
            self.set_width(1);
            self.asm.vmv(bytes, 0);
            // The value mask goes to v0 for the merge; the access mask (if any) after it.
            let access = if mask == Mask::V0 { saved } else { None };
            self.put_in_v0(m);
            self.asm.vop(VBinOp::Merge, bytes, bytes, 1, Mask::V0);
            if let Some(a) = access {
                self.put_in_v0(a);
            }
            self.asm.vstore(eew, mode, bytes, base, mask);
            return Some(());
        }
        let v = self.vector(value, mb)?;
        self.set_width(mb);
        self.asm.vstore(eew, mode, v, base, mask);
        Some(())
    }

    pub(super) fn stmt(&mut self, s: &Stmt) -> Option<()> {
        self.span = match s {
            Stmt::Assign { span, .. } | Stmt::Store { span, .. } => Some(*span),
            _ => None,
        };
        match s {
            Stmt::Assign { dst, expr, .. } => {
                if self.plan.classes.get(dst) == Some(&Class::Vector) {
                    let r = self.expr_rounded(*dst, expr)?;
                    self.vals.insert(*dst, r);
                    if let Some(spill) = &mut self.spill {
                        spill.slots.remove(dst);
                    }
                } else if let (Class::Uniform, Expr::Const(c)) = (&self.plan.classes[dst], expr) {
                    let op = self.constant(self.f.ty(*dst), *c)?;
                    self.scalars.insert(*dst, op);
                } else if let Expr::Copy(src) = expr {
                    if let Some(&op) = self.scalars.get(src) {
                        self.scalars.insert(*dst, op);
                        if self.args_in_place.contains(src) {
                            self.args_in_place.insert(*dst);
                        }
                    }
                }
            }
            Stmt::Store { mask, .. } if self.masked_off(*mask) => {}
            Stmt::Store { ptr, value, mask, .. } => {
                let st = self.f.ty(*ptr).pointee()?;
                if is_half(st) {
                    return self.store_half(*ptr, st, *value, *mask);
                }
                let (mode, base) = self.global_access(*ptr)?;
                let mask = self.access_mask(*mask)?;
                self.check_access(*ptr, mode, base, mem_bytes(st)?, mask, crate::bounds::Access::Write)?;
                self.store(mode, base, st, *value, mask)?;
            }
            Stmt::StoreScratch { buf, index, value } => {
                let (mode, base, st) = self.scratch_access(*buf, index)?;
                self.store(mode, base, st, *value, Mask::Unmasked)?;
            }
            Stmt::Accumulate { buf, index, op, value } => self.accumulate(*buf, index, *op, *value)?,
            Stmt::AccumulateWith { .. } => self.accumulate_with(s)?,
            Stmt::AccumulateArg { vals, idxs, index, kind, value, position } => {
                self.accumulate_arg(*vals, *idxs, index, *kind, *value, *position)?
            }
            _ => return None,
        }
        Some(())
    }

    pub(super) fn constant(&mut self, elem: Elem, c: Constant) -> Option<Opnd> {
        let st = scalar_of(elem);
        let as_f64 = match c {
            Constant::Int(i) => i as f64,
            Constant::Float(x) => x,
            Constant::Bool(b) => b as i64 as f64,
        };
        Some(match st {
            ScalarType::F32 => Opnd::F(self.fconst((as_f64 as f32).to_bits() as u64, false)?),
            ScalarType::F64 => Opnd::F(self.fconst(as_f64.to_bits(), true)?),
            ScalarType::F16 | ScalarType::BF16 => Opnd::F(self.fconst(convert::half_constant_bits(st, as_f64), false)?),
            _ => {
                let bits = match c {
                    Constant::Int(i) => i,
                    Constant::Float(x) => x as i64,
                    Constant::Bool(b) => b as i64,
                };
                let bits = if st.is_bool() { bits & 1 } else { bits };
                Opnd::X(self.xconst(bits)?)
            }
        })
    }

    /// `x` (width `w`) in a register the caller may overwrite: itself when it is a temp or
    /// its value dies at this statement, else a copy in a temp.
    fn overwritable(&mut self, x: VReg, w: u32) -> Option<VReg> {
        let dies = self.temps.iter().any(|&(t, _)| t == x)
            || self.vals.iter().any(|(v, &r)| r == x && self.plan.last_use.get(v).is_none_or(|&l| l <= self.at));
        if dies {
            return Some(x);
        }
        let copy = self.temp(w)?;
        self.asm.vmv(copy, x);
        Some(copy)
    }

    /// Whether `v0`'s group at width `w` (LMUL ≥ 2) holds nothing besides `v0`, so a
    /// statement may use it whole while it needs no mask.
    fn v0_group_free(&self, w: u32) -> bool {
        let g = self.group(w) as usize;
        g >= 2 && self.vused[1..g].iter().all(|u| !u)
    }

    /// Inline fp32 `d = erf(x)` ([`poly`]'s sibling [`erf`]): `t` is `v0`'s group when that
    /// is free, the full path's two more groups are free ones or the halves of the three.
    fn erf_inline(&mut self, d: VReg, x: VReg, w: u32) -> Option<()> {
        let x = self.overwritable(x, w)?;
        let g = self.group(w) as usize;
        let wide = self.v0_group_free(w);
        let t = if wide {
            self.vused[1..g].iter_mut().for_each(|u| *u = true);
            VReg::V0
        } else {
            self.temp(w)?
        };
        let free_groups = (g..32).step_by(g).filter(|&s| self.vused[s..s + g].iter().all(|u| !u)).count();
        let parts = if free_groups >= 2 {
            erf::ErfParts::Whole { s2: self.temp(w)?, s3: self.temp(w)? }
        } else if g >= 2 {
            let half = match self.vtype_for(w).lmul {
                Lmul::M8 => Lmul::M4,
                Lmul::M4 => Lmul::M2,
                Lmul::M2 => Lmul::M1,
                _ => return None,
            };
            let half = VType::new(sew(w), half);
            erf::ErfParts::Halves { half, vl: self.erf_vl_xreg()? }
        } else {
            return None;
        };
        let mut small = [FReg::new(0)?; 7];
        for (reg, bits) in small.iter_mut().zip(erf::ERF_SMALL_BITS) {
            *reg = self.fconst(bits as u64, false)?;
        }
        let consts = erf::ErfConsts {
            small,
            center: self.fconst(erf::ERF_CENTER.to_bits() as u64, false)?,
            one: self.fconst(1f32.to_bits() as u64, false)?,
            scratch: self.exp_full_fregs()?[0],
            vtype: self.vtype_for(w),
        };
        let first = self.strip_xreg()?;
        erf::erf_f32(&mut self.asm, &erf::ErfRegs { d, x, t, first, parts }, &consts);
        if wide {
            self.vused[1..g].iter_mut().for_each(|u| *u = false);
        }
        // `v0` now holds a merge mask (or part of `t`).
        self.v0 = None;
        Some(())
    }

    /// Inline fp32 `d = log(x)` ([`log`]): three temporaries besides `x` and `d`.
    fn log_inline(&mut self, d: VReg, x: VReg, w: u32) -> Option<()> {
        let x = self.overwritable(x, w)?;
        let (t, k, p) = (self.temp(w)?, self.temp(w)?, self.temp(w)?);
        let mut f = |bits: u32| self.fconst(bits as u64, false);
        let r = log::LOG_R_BITS;
        let (r, ln2_hi, ln2_lo) =
            ([f(r[0])?, f(r[1])?, f(r[2])?, f(r[3])?], f(log::LOG_LN2_HI_BITS)?, f(log::LOG_LN2_LO_BITS)?);
        let (scale, one, half, neg_inf) =
            (f(log::LOG_SCALE_BITS)?, f(log::LOG_ONE_BITS)?, f(log::LOG_HALF_BITS)?, f(log::LOG_NEG_INF_BITS)?);
        let consts = log::LogConsts {
            r,
            ln2_hi,
            ln2_lo,
            scale,
            one,
            half,
            neg_inf,
            offset: self.xconst(log::LOG_OFFSET)?,
            fraction: self.xconst(log::LOG_FRACTION)?,
            max_finite: self.xconst(log::LOG_MAX_FINITE)?,
            scale_exponent: self.xconst(log::LOG_SCALE_EXPONENT)?,
        };
        log::log_f32(&mut self.asm, &log::LogRegs { d, x, t, k, p }, &consts);
        // `v0` now holds the NaN and infinity lanes.
        self.v0 = None;
        Some(())
    }

    pub(super) fn expr(&mut self, dst: Var, e: &Expr) -> Option<VReg> {
        let dst_elem = self.f.ty(dst);
        let dw = width(dst_elem)?;
        let st = scalar_of(dst_elem);
        match e {
            Expr::Copy(a) | Expr::Cast(CastOp::PtrCast | CastOp::IntRetype, a) if width(self.f.ty(*a)) == Some(dw) => {
                let src = self.operand(*a)?;
                let d = self.alloc_v(dw)?;
                if dw == 0 {
                    let Opnd::V(m) = src else { return None };
                    self.asm.vop(VBinOp::Mand, d, m, m, Mask::Unmasked);
                } else {
                    self.set_width(dw);
                    self.asm.vmv(d, src.src());
                }
                Some(d)
            }
            Expr::Binary(op @ (BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot), a, b) if st.is_float() => {
                let name = match op {
                    BinaryOp::Pow => "pow",
                    BinaryOp::Atan2 => "atan2",
                    _ => "hypot",
                };
                self.call_sleef(name, &[*a, *b], dw)
            }
            Expr::Binary(op, a, b) => self.binary(*op, dst, *a, *b),
            Expr::Unary(op, a) => {
                let w = dw;
                let x = self.vector(*a, w)?;
                // Signed integer abs reads `x` after writing the result.
                let in_place = !(*op == UnaryOp::Abs && st.is_signed_int());
                let srcs = if in_place { vec![x] } else { vec![] };
                let d = self.alloc_result(w, &srcs)?;
                if w == 0 {
                    if *op != UnaryOp::Not {
                        return None;
                    }
                    self.asm.vop(VBinOp::Mnand, d, x, x, Mask::Unmasked);
                    return Some(d);
                }
                self.set_width(w);
                let u = Mask::Unmasked;
                match (op, st.is_float()) {
                    (UnaryOp::Neg, true) => self.asm.vop(VBinOp::Fsgnjn, d, x, x, u),
                    (UnaryOp::Neg, false) => self.asm.vop(VBinOp::Rsub, d, x, XReg::ZERO, u),
                    (UnaryOp::Not, false) => self.asm.vop(VBinOp::Xor, d, x, -1, u),
                    (UnaryOp::Abs, true) => self.asm.vop(VBinOp::Fsgnjx, d, x, x, u),
                    (UnaryOp::Abs, false) if st.is_signed_int() => {
                        self.asm.vop(VBinOp::Rsub, d, x, XReg::ZERO, u);
                        self.asm.vop(VBinOp::Max, d, d, x, u);
                    }
                    (UnaryOp::Abs, false) => self.asm.vmv(d, x),
                    (UnaryOp::Not, true) => return None,
                }
                Some(d)
            }
            Expr::Math(func, a) if st.is_float() => {
                let x = self.vector(*a, dw)?;
                let in_place = matches!(func, MathFn::Sqrt | MathFn::Rsqrt);
                let srcs = if in_place { vec![x] } else { vec![] };
                let d = self.alloc_result(dw, &srcs)?;
                self.set_width(dw);
                match func {
                    MathFn::Sqrt => self.asm.vunary(VUnaryOp::Fsqrt, d, x, Mask::Unmasked),
                    MathFn::Rsqrt => {
                        let one = if dw == 8 {
                            self.fconst(1f64.to_bits(), true)?
                        } else {
                            self.fconst(1f32.to_bits() as u64, false)?
                        };
                        self.asm.vunary(VUnaryOp::Fsqrt, d, x, Mask::Unmasked);
                        self.asm.vop(VBinOp::Frdiv, d, d, one, Mask::Unmasked);
                    }
                    MathFn::Exp | MathFn::Exp2 if computed_inline(*func, st) => {
                        let x = self.overwritable(x, dw)?;
                        let t = self.temp(dw)?;
                        // `v0`'s group holds `n` at full width when nothing else lives there.
                        let g = self.group(dw) as usize;
                        let wide_n = self.v0_group_free(dw);
                        let n = if wide_n {
                            self.vused[1..g].iter_mut().for_each(|u| *u = true);
                            VReg::new((g / 2) as u8)?
                        } else {
                            self.temp(dw / 2)?
                        };
                        let two = *func == MathFn::Exp2;
                        let bits = if two { poly::EXP2_F32_BITS } else { poly::EXP_F32_BITS };
                        let mut f = [FReg::new(0)?; 13];
                        for (reg, bits) in f.iter_mut().zip(bits).skip(2).take(10) {
                            *reg = self.fconst(bits as u64, false)?;
                        }
                        [f[0], f[1], f[12]] = self.exp_full_fregs()?;
                        let consts = poly::ExpConsts {
                            f,
                            offset: self.xconst(poly::FAST_N_OFFSET)?,
                            span: self.xconst(poly::FAST_N_SPAN)?,
                            exponent_one: self.xconst(1 << 23)?,
                            vtype_f32: self.vtype_for(dw),
                            vtype_i16: self.vtype_for(dw / 2),
                            two,
                        };
                        let first = self.strip_xreg()?;
                        poly::exp_f32(&mut self.asm, &poly::ExpRegs { d, x, t, n, wide_n, first }, &consts);
                        if wide_n {
                            self.vused[1..g].iter_mut().for_each(|u| *u = false);
                        }
                        // `v0` now holds the NaN lanes.
                        self.v0 = None;
                    }
                    MathFn::Erf if computed_inline(*func, st) => self.erf_inline(d, x, dw)?,
                    MathFn::Log if computed_inline(*func, st) => self.log_inline(d, x, dw)?,
                    f => {
                        self.free_v(d, dw);
                        return self.call_sleef(sleef_name(*f)?, &[*a], dw);
                    }
                }
                Some(d)
            }
            Expr::Fma(a, b, c) => {
                let (x, y, z) = (self.vector(*a, dw)?, self.vector(*b, dw)?, self.vector(*c, dw)?);
                let d = self.alloc_result(dw, &[x, z])?;
                self.set_width(dw);
                let float = st.is_float();
                if d == z && d != x {
                    // d = x·y + d
                    let op = if float { VBinOp::Fmacc } else { VBinOp::Macc };
                    self.asm.vop(op, d, x, y, Mask::Unmasked);
                } else {
                    // d = d·y + z with d = x
                    if d != x {
                        self.asm.vmv(d, x);
                    }
                    let op = if float { VBinOp::Fmadd } else { VBinOp::Madd };
                    self.asm.vop(op, d, z, y, Mask::Unmasked);
                }
                Some(d)
            }
            Expr::Cmp(pred, a, b) => self.compare(*pred, *a, *b),
            Expr::Select { cond, on_true, on_false } => {
                if dw == 0 {
                    return None;
                }
                let known = match self.plan.classes.get(cond) {
                    Some(Class::AllTrue) => Some(*on_true),
                    Some(Class::AllFalse) => Some(*on_false),
                    _ => None,
                };
                if let Some(taken) = known {
                    // Every lane that runs takes the same side.
                    let t = self.vector(taken, dw)?;
                    let d = self.alloc_result(dw, &[t])?;
                    if d != t {
                        self.set_width(dw);
                        self.asm.vmv(d, t);
                    }
                    return Some(d);
                }
                if let Some(x) = self.sign_fold(dst) {
                    // x ^ (x >> (bits - 1)): x itself, or its complement where negative.
                    let x = self.vector(x, dw)?;
                    let sign = match dw * 8 - 1 {
                        bits @ 0..32 => Opnd::Imm(bits as i32),
                        bits => Opnd::X(self.xconst(bits as i64)?),
                    };
                    let d = self.alloc_v(dw)?;
                    self.set_width(dw);
                    self.asm.vop(VBinOp::Sra, d, x, sign.src(), Mask::Unmasked);
                    self.asm.vop(VBinOp::Xor, d, d, x, Mask::Unmasked);
                    return Some(d);
                }
                let c = self.mask_reg(*cond)?;
                let f = self.vector(*on_false, dw)?;
                let t = self.operand(*on_true)?;
                let t_reg = if let Opnd::V(r) = t { vec![r] } else { vec![] };
                let d = self.alloc_result(dw, &[&[f][..], &t_reg].concat())?;
                self.put_in_v0(c);
                self.set_width(dw);
                let op = if matches!(t, Opnd::F(_)) { VBinOp::Fmerge } else { VBinOp::Merge };
                self.asm.vop(op, d, f, t.src(), Mask::V0);
                Some(d)
            }
            Expr::Cast(op, a) => self.cast(*op, dst, *a),
            Expr::AddPtr { ptr, offset } => {
                let bytes = self.f.ty(*ptr).pointee().map_or(1, |s| s.bytes()) as i64;
                let oe = self.f.ty(*offset);
                let ow = width(oe)?;
                let p = self.vector(*ptr, 8)?;
                let o = self.vector(*offset, ow)?;
                let d = self.alloc_v(8)?;
                self.set_width(8);
                self.extend(d, o, ow, 8, scalar_of(oe).is_signed_int())?;
                if bytes > 1 {
                    self.asm.vop(VBinOp::Sll, d, d, bytes.trailing_zeros() as i32, Mask::Unmasked);
                }
                self.asm.vop(VBinOp::Add, d, d, p, Mask::Unmasked);
                Some(d)
            }
            Expr::LoadScratch { buf, index } => {
                let (mode, base, st) = self.scratch_access(*buf, index)?;
                self.load(mode, base, st, Mask::Unmasked, None)
            }
            Expr::Load { ptr, mask, other } if self.masked_off(*mask) => {
                self.load_masked_off(self.f.ty(*ptr).pointee()?, *other)
            }
            Expr::Load { ptr, mask, other } => {
                let st = self.f.ty(*ptr).pointee()?;
                let (mode, base) = self.global_access(*ptr)?;
                let m = self.access_mask(*mask)?;
                self.check_access(*ptr, mode, base, mem_bytes(st)?, m, crate::bounds::Access::Read)?;
                self.load(mode, base, st, m, *other)
            }
            _ => None,
        }
    }

    /// `d` (width `to`, current vtype at `to`) = integer `x` of width `from` resized.
    pub(super) fn extend(&mut self, d: VReg, x: VReg, from: u32, to: u32, signed: bool) -> Option<()> {
        use VUnaryOp::*;
        self.set_width(to);
        let op = match (to / from.max(1), signed) {
            (1, _) => {
                self.asm.vmv(d, x);
                return Some(());
            }
            (2, true) => SextVf2,
            (2, false) => ZextVf2,
            (4, true) => SextVf4,
            (4, false) => ZextVf4,
            (8, true) => SextVf8,
            (8, false) => ZextVf8,
            _ => return None,
        };
        self.asm.vunary(op, d, x, Mask::Unmasked);
        Some(())
    }

    /// `d` (width `to`) = low bits of integer `x` (width `from` > `to`), one halving at a time.
    fn truncate(&mut self, d: VReg, x: VReg, from: u32, to: u32) -> Option<()> {
        let mut src = x;
        let mut w = from;
        while w > to {
            w /= 2;
            let dst = if w == to { d } else { self.temp(w)? };
            self.set_width(w);
            self.asm.vop(VBinOp::Nsrl, dst, src, 0, Mask::Unmasked);
            src = dst;
        }
        Some(())
    }

    fn cast(&mut self, op: CastOp, dst: Var, a: Var) -> Option<VReg> {
        let (from, to) = (self.f.ty(a), self.f.ty(dst));
        let (fw, tw) = (width(from)?, width(to)?);
        let (fs, ts) = (scalar_of(from), scalar_of(to));
        let u = Mask::Unmasked;
        // i1 sources: 0/1 (0.0/1.0) in the destination's width.
        if fw == 0 {
            if tw == 0 {
                return None;
            }
            let one = match (ts.is_float(), tw) {
                (false, _) => None,
                (true, 8) => Some(self.fconst(1f64.to_bits(), true)?),
                (true, _) => Some(self.fconst(1f32.to_bits() as u64, false)?),
            };
            let m = self.mask_reg(a)?;
            let d = self.alloc_v(tw)?;
            self.put_in_v0(m);
            self.set_width(tw);
            self.asm.vmv(d, 0);
            match one {
                Some(one) => self.asm.vop(VBinOp::Fmerge, d, d, one, Mask::V0),
                None => self.asm.vop(VBinOp::Merge, d, d, 1, Mask::V0),
            }
            return Some(d);
        }
        let x = self.vector(a, fw)?;
        if tw == 0 {
            if fs.is_float() {
                return None;
            }
            let d = self.alloc_v(0)?;
            self.set_width(fw);
            let t = self.temp(fw)?;
            self.asm.vop(VBinOp::And, t, x, 1, u);
            self.asm.vop(VBinOp::Msne, d, t, 0, u);
            return Some(d);
        }
        // Same-width register forms (a half widened to f32, a retype, a bitcast) reuse a
        // dying source's register instead of copying it.
        let same_form = fw == tw
            && match op {
                CastOp::FloatExt | CastOp::FloatTrunc => true,
                CastOp::Bitcast | CastOp::PtrCast => true,
                CastOp::IntExt | CastOp::IntTrunc | CastOp::IntRetype | CastOp::PtrToInt | CastOp::IntToPtr => {
                    !fs.is_float() && !ts.is_float()
                }
                _ => false,
            };
        let d = if same_form { self.alloc_result(tw, &[x])? } else { self.alloc_v(tw)? };
        if same_form && d == x {
            return Some(d);
        }
        match op {
            CastOp::IntExt | CastOp::IntTrunc | CastOp::IntRetype | CastOp::PtrToInt | CastOp::IntToPtr => {
                if fs.is_float() || ts.is_float() {
                    return None;
                }
                if tw >= fw {
                    self.extend(d, x, fw, tw, fs.is_signed_int())?;
                } else {
                    self.truncate(d, x, fw, tw)?;
                }
            }
            CastOp::Bitcast | CastOp::PtrCast if fw == tw => {
                self.set_width(tw);
                self.asm.vmv(d, x);
            }
            CastOp::FloatExt | CastOp::FloatTrunc => match (fw, tw) {
                (4, 8) => {
                    self.set_width(4);
                    self.asm.vunary(VUnaryOp::FwcvtFF, d, x, u);
                }
                (8, 4) => {
                    self.set_width(4);
                    self.asm.vunary(VUnaryOp::FncvtFF, d, x, u);
                }
                (a, b) if a == b => {
                    self.set_width(tw);
                    self.asm.vmv(d, x);
                }
                _ => return None,
            },
            CastOp::IntToFloat => {
                let signed = fs.is_signed_int();
                let src = if fw < tw {
                    let t = self.temp(tw)?;
                    self.extend(t, x, fw, tw, signed)?;
                    t
                } else {
                    x
                };
                match (fw.max(tw), tw) {
                    (a, b) if a == b => {
                        self.set_width(tw);
                        let op = if signed { VUnaryOp::FcvtFX } else { VUnaryOp::FcvtFXu };
                        self.asm.vunary(op, d, src, u);
                    }
                    (8, 4) => {
                        self.set_width(4);
                        let op = if signed { VUnaryOp::FncvtFX } else { VUnaryOp::FncvtFXu };
                        self.asm.vunary(op, d, src, u);
                    }
                    _ => return None,
                }
            }
            CastOp::FloatToInt => {
                let signed = ts.is_signed_int();
                // Convert to the float's width (or narrow f64 to 32 bits), then truncate.
                let mid = if tw >= fw { fw } else { fw.min(4).max(tw.max(4).min(fw)) };
                if tw > fw {
                    return None;
                }
                let t = if mid == tw { d } else { self.temp(mid)? };
                if mid == fw {
                    self.set_width(fw);
                    let op = if signed { VUnaryOp::FcvtRtzXF } else { VUnaryOp::FcvtRtzXuF };
                    self.asm.vunary(op, t, x, u);
                } else {
                    self.set_width(mid);
                    let op = if signed { VUnaryOp::FncvtRtzXF } else { VUnaryOp::FncvtRtzXuF };
                    self.asm.vunary(op, t, x, u);
                }
                // NaN converts to 0 (saturating semantics).
                let nan = self.temp(0)?;
                self.set_width(fw);
                self.asm.vop(VBinOp::Mfne, nan, x, x, u);
                self.put_in_v0(nan);
                self.set_width(mid);
                self.asm.vop(VBinOp::Merge, t, t, 0, Mask::V0);
                if mid != tw {
                    // saturate at the destination's range (the conversion saturated at
                    // `mid`'s), as the scalar path and the interpreter do, then narrow
                    let bits = 8 * tw;
                    if signed {
                        let (lo, hi) = (self.xconst(-(1i64 << (bits - 1)))?, self.xconst((1i64 << (bits - 1)) - 1)?);
                        self.asm.vop(VBinOp::Max, t, t, lo, u);
                        self.asm.vop(VBinOp::Min, t, t, hi, u);
                    } else {
                        let hi = self.xconst((1i64 << bits) - 1)?;
                        self.asm.vop(VBinOp::Minu, t, t, hi, u);
                    }
                    self.truncate(d, t, mid, tw)?;
                }
            }
            _ => return None,
        }
        Some(d)
    }

    fn binary(&mut self, op: BinaryOp, dst: Var, a: Var, b: Var) -> Option<VReg> {
        let elem = self.f.ty(a);
        let st = scalar_of(elem);
        let w = width(elem)?;
        let u = Mask::Unmasked;
        if w == 0 {
            let vop = match op {
                BinaryOp::And => VBinOp::Mand,
                BinaryOp::Or => VBinOp::Mor,
                BinaryOp::Xor => VBinOp::Mxor,
                _ => return None,
            };
            let all = |c: Option<&Class>| c == Some(&Class::AllTrue);
            if op == BinaryOp::And && (all(self.plan.classes.get(&a)) || all(self.plan.classes.get(&b))) {
                let other = if all(self.plan.classes.get(&a)) { b } else { a };
                let m = self.mask_reg(other)?;
                let d = self.alloc_v(0)?;
                self.asm.vop(VBinOp::Mand, d, m, m, u);
                return Some(d);
            }
            let (x, y) = (self.mask_reg(a)?, self.mask_reg(b)?);
            let d = self.alloc_v(0)?;
            self.asm.vop(vop, d, x, y, u);
            return Some(d);
        }
        let _ = dst;
        let signed = st.is_signed_int();
        let (vop, swapped, commutes) = if st.is_float() {
            match op {
                BinaryOp::Add => (VBinOp::Fadd, None, true),
                BinaryOp::Sub => (VBinOp::Fsub, Some(VBinOp::Frsub), false),
                BinaryOp::Mul => (VBinOp::Fmul, None, true),
                BinaryOp::Div => (VBinOp::Fdiv, Some(VBinOp::Frdiv), false),
                BinaryOp::Max => (VBinOp::Fmax, None, true),
                BinaryOp::Min => (VBinOp::Fmin, None, true),
                _ => return None,
            }
        } else {
            match op {
                BinaryOp::Add => (VBinOp::Add, None, true),
                BinaryOp::Sub => (VBinOp::Sub, Some(VBinOp::Rsub), false),
                BinaryOp::Mul => (VBinOp::Mul, None, true),
                BinaryOp::Div => (if signed { VBinOp::Div } else { VBinOp::Divu }, None, false),
                BinaryOp::Rem => (if signed { VBinOp::Rem } else { VBinOp::Remu }, None, false),
                BinaryOp::And => (VBinOp::And, None, true),
                BinaryOp::Or => (VBinOp::Or, None, true),
                BinaryOp::Xor => (VBinOp::Xor, None, true),
                BinaryOp::Shl => (VBinOp::Sll, None, false),
                BinaryOp::Shr => (if signed { VBinOp::Sra } else { VBinOp::Srl }, None, false),
                BinaryOp::Max => (if signed { VBinOp::Max } else { VBinOp::Maxu }, None, true),
                BinaryOp::Min => (if signed { VBinOp::Min } else { VBinOp::Minu }, None, true),
                BinaryOp::MulHi => (if signed { VBinOp::Mulh } else { VBinOp::Mulhu }, None, true),
                _ => return None,
            }
        };
        let imm_ok = |op: VBinOp| match op {
            VBinOp::Add | VBinOp::And | VBinOp::Or | VBinOp::Xor => Some(false),
            VBinOp::Sll | VBinOp::Srl | VBinOp::Sra => Some(true),
            _ => None,
        };
        let y = match imm_ok(vop) {
            Some(unsigned) => {
                self.operand_imm(b, |i| if unsigned { (0..32).contains(&i) } else { (-16..16).contains(&i) })?
            }
            None => self.operand(b)?,
        };
        let x = self.operand(a)?;
        let (vs2, src1, vop) = match (x, y) {
            (Opnd::V(x), y) => (x, y.src(), vop),
            (x, Opnd::V(y)) if commutes => (y, x.src(), vop),
            (x, Opnd::V(y)) if swapped.is_some() => (y, x.src(), swapped?),
            (x, y) => {
                let t = self.temp(w)?;
                self.set_width(w);
                self.asm.vmv(t, x.src());
                (t, y.src(), vop)
            }
        };
        let src1_reg = if let VSrc::V(r) = src1 { vec![r] } else { vec![] };
        let d = self.alloc_result(w, &[&[vs2][..], &src1_reg].concat())?;
        self.set_width(w);
        self.asm.vop(vop, d, vs2, src1, u);
        Some(d)
    }

    pub(super) fn compare(&mut self, pred: CmpPred, a: Var, b: Var) -> Option<VReg> {
        let elem = self.f.ty(a);
        let st = scalar_of(elem);
        let w = width(elem)?;
        if w == 0 {
            return None;
        }
        let signed = st.is_signed_int();
        let float = st.is_float();
        let pick = |s: VBinOp, uns: VBinOp| if signed || float { s } else { uns };
        // (op for `a pred b` with a vector `a`, op for `b pred' a` (swapped) with vector b).
        let (lt, le, gt, ge) = if float {
            (VBinOp::Mflt, VBinOp::Mfle, VBinOp::Mfgt, VBinOp::Mfge)
        } else {
            (
                pick(VBinOp::Mslt, VBinOp::Msltu),
                pick(VBinOp::Msle, VBinOp::Msleu),
                pick(VBinOp::Msgt, VBinOp::Msgtu),
                VBinOp::Mseq,
            )
        };
        let eq = if float { VBinOp::Mfeq } else { VBinOp::Mseq };
        let ne = if float { VBinOp::Mfne } else { VBinOp::Msne };
        let (x, y) = (self.operand(a)?, self.operand(b)?);
        let d = self.alloc_v(0)?;
        let u = Mask::Unmasked;
        // Normalise to a vector first operand: `b pred a` flips the predicate.
        let (x, y, pred) = match (x, y) {
            (Opnd::V(_), _) => (x, y, pred),
            (_, Opnd::V(_)) => (
                y,
                x,
                match pred {
                    CmpPred::Lt => CmpPred::Gt,
                    CmpPred::Le => CmpPred::Ge,
                    CmpPred::Gt => CmpPred::Lt,
                    CmpPred::Ge => CmpPred::Le,
                    p => p,
                },
            ),
            _ => {
                let t = self.temp(w)?;
                self.set_width(w);
                self.asm.vmv(t, x.src());
                (Opnd::V(t), y, pred)
            }
        };
        let Opnd::V(xv) = x else { return None };
        self.set_width(w);
        match (pred, y) {
            (CmpPred::Eq, y) => self.asm.vop(eq, d, xv, y.src(), u),
            (CmpPred::Ne, y) => self.asm.vop(ne, d, xv, y.src(), u),
            (CmpPred::Lt, y) => self.asm.vop(lt, d, xv, y.src(), u),
            (CmpPred::Le, y) => self.asm.vop(le, d, xv, y.src(), u),
            // Vector-vector greater-than: swap the operands of less-than.
            (CmpPred::Gt, Opnd::V(yv)) => self.asm.vop(lt, d, yv, xv, u),
            (CmpPred::Ge, Opnd::V(yv)) => self.asm.vop(le, d, yv, xv, u),
            (CmpPred::Gt, y) => self.asm.vop(gt, d, xv, y.src(), u),
            (CmpPred::Ge, y) if float => self.asm.vop(VBinOp::Mfge, d, xv, y.src(), u),
            (CmpPred::Ge, y) => {
                let _ = ge;
                let t = self.temp(w)?;
                self.asm.vmv(t, y.src());
                self.asm.vop(le, d, t, xv, u);
            }
        }
        Some(d)
    }
}
