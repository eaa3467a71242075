//! Address streams: scalar registers walking memory along the flat range (a stream per
//! distinct base, linear offset and scale), the access mode they give (unit-stride or
//! strided), and the scalar sums that set their starts in the prologue.

use super::*;

/// Where a stream starts: a live-in pointer, a scratch buffer, or nothing (a value stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Base {
    Var(Var),
    Buf(Buf),
    Value,
}

/// A scalar register walking `base + scale·lin` along the flat range.
#[derive(Clone, Debug)]
pub(super) struct Stream {
    pub(super) base: Base,
    pub(super) lin: Lin,
    pub(super) scale: i64,
    /// The register walking the stream (`zero` for a spilled stream).
    pub(super) reg: XReg,
    /// A spilled stream's slot (see [`StreamSlots`]).
    pub(super) slot: Option<i32>,
}

/// Streams kept in memory when the scalar registers run out: each a doubleword slot in an
/// area the leaf reserves below everything else on its stack (so `sp + slot` holds it
/// during the strip loop), read into one of two temporaries, in turn, where the strip
/// accesses it, and moved on in memory after each strip. Only streams that move (a
/// non-zero step) are spilled.
pub(super) struct StreamSlots {
    pub(super) temps: [XReg; 2],
    pub(super) next: usize,
    /// Slots handed out.
    pub(super) count: i32,
    /// Scalar registers a new stream leaves in the pool (else it is spilled).
    pub(super) reserve: usize,
}

/// `dst` = `src` as an integer of `bits` bits, sign- or zero-extended to 64.
pub(super) fn resize_to(out: &mut Assembler, dst: XReg, src: XReg, bits: u32, signed: bool) {
    match (bits, signed) {
        (64, _) => {
            if dst != src {
                out.mv(dst, src);
            }
        }
        (32, true) => out.alu_imm(AluImmOp::Addiw, dst, src, 0),
        (b, signed) => {
            let shift = 64 - b as i32;
            out.slli(dst, src, shift);
            out.alu_imm(if signed { AluImmOp::Srai } else { AluImmOp::Srli }, dst, dst, shift);
        }
    }
}

/// `dst = c · src` (`scratch` may be `dst`; `src` must differ from `dst` unless `c` is a
/// power of two).
pub(super) fn mul_const(out: &mut Assembler, dst: XReg, src: XReg, c: i64) {
    if c == 1 {
        out.mv(dst, src);
    } else if c > 0 && (c as u64).is_power_of_two() {
        out.slli(dst, src, c.trailing_zeros() as i32);
    } else if c == -1 {
        out.sub(dst, XReg::ZERO, src);
    } else {
        out.li(dst, c);
        out.mul(dst, src, dst);
    }
}

/// The registers of the uniform quantities a sum may read: live-in scalars, the outer loop
/// counters, products of two uniform variables (set by the prologue) and products of an
/// outer counter with a runtime stride variable (set at the top of the innermost outer loop);
/// and the scratch register the sums clobber.
pub(super) struct SumRegs<'a> {
    pub(super) scalars: &'a FxHashMap<Var, Opnd>,
    pub(super) outer: &'a [(usize, XReg)],
    pub(super) products: &'a [((Var, Var), XReg)],
    pub(super) outer_scaled: &'a [((usize, Var), XReg)],
    pub(super) tmp: XReg,
}

impl SumRegs<'_> {
    pub(super) fn x(&self, v: Var) -> Option<XReg> {
        match self.scalars.get(&v)? {
            Opnd::X(r) => Some(*r),
            _ => None,
        }
    }
}

/// The variable part of a sum, `scale · (Σ coef·var + Σ coef·a·b + Σ_outer stride·counter)`,
/// as (register, coefficient) pairs without zero terms.
pub(super) fn sum_parts(lin: &Lin, scale: i64, regs: &SumRegs) -> Option<Vec<(XReg, i64)>> {
    let mut parts = Vec::new();
    for &(v, c) in &lin.terms {
        parts.push((regs.x(v)?, c * scale));
    }
    for &(pair, c) in &lin.products {
        let (_, r) = regs.products.iter().find(|(p, _)| *p == pair)?;
        parts.push((*r, c * scale));
    }
    for &(dim, counter) in regs.outer {
        parts.push((counter, lin.strides[dim] * scale));
        for (v, cs) in &lin.scaled {
            if cs[dim] != 0 {
                let (_, r) = regs.outer_scaled.iter().find(|(k, _)| *k == (dim, *v))?;
                parts.push((*r, cs[dim] * scale));
            }
        }
    }
    parts.retain(|&(r, c)| c != 0 && r != XReg::ZERO);
    Some(parts)
}

/// A register holding the variable part of the last sum that needed one, so that the
/// next sum with the same part (streams over the same offsets) reuses it.
pub(super) struct HeldPart {
    pub(super) reg: XReg,
    pub(super) parts: Option<Vec<(XReg, i64)>>,
}

/// `dst = base + scale · (Σ coef·var + offset + Σ_outer stride·counter)`; `regs.tmp` is
/// clobbered; a variable part of more than one plain register is computed into
/// `held.reg` (which must differ from `dst` and `regs.tmp`) or reused from there.
pub(super) fn emit_sum(
    out: &mut Assembler,
    dst: XReg,
    base: Option<XReg>,
    lin: &Lin,
    scale: i64,
    regs: &SumRegs,
    held: &mut HeldPart,
) -> Option<()> {
    let tmp = regs.tmp;
    let mut parts = sum_parts(lin, scale, regs)?;
    let plain = parts.len() <= 1 && parts.iter().all(|&(_, c)| c == 1 || c == -1);
    if !plain {
        if held.parts.as_ref() != Some(&parts) {
            sum_into(out, held.reg, &parts, 0, tmp);
            held.parts = Some(parts.clone());
        }
        parts = vec![(held.reg, 1)];
    }
    let mut all: Vec<(XReg, i64)> = base.map(|b| (b, 1)).into_iter().collect();
    all.extend(parts);
    sum_into(out, dst, &all, lin.offset * scale, tmp);
    Some(())
}

/// `dst = Σ coef·reg + konst` (no `reg` is `dst` or `tmp`); `tmp` is clobbered.
pub(super) fn sum_into(out: &mut Assembler, dst: XReg, parts: &[(XReg, i64)], konst: i64, tmp: XReg) {
    let mut acc: Option<XReg> = None;
    for &(r, c) in parts {
        if c == 0 || r == XReg::ZERO {
            continue;
        }
        acc = Some(match acc {
            Some(a) if c == -1 => {
                out.sub(dst, a, r);
                dst
            }
            None if c == 1 => r,
            None => {
                mul_const(out, dst, r, c);
                dst
            }
            Some(a) if c == 1 => {
                out.add(dst, a, r);
                dst
            }
            Some(a) => {
                mul_const(out, tmp, r, c);
                out.add(dst, a, tmp);
                dst
            }
        });
    }
    if konst != 0 {
        match acc {
            None => out.li(dst, konst),
            Some(a) if (-2048..2048).contains(&konst) => out.addi(dst, a, konst as i32),
            Some(a) => {
                out.li(tmp, konst);
                out.add(dst, a, tmp);
            }
        }
        acc = Some(dst);
    }
    if acc != Some(dst) {
        out.mv(dst, acc.unwrap_or(XReg::ZERO));
    }
}

impl Emitter<'_> {
    pub(super) fn stream(&mut self, base: Base, lin: &Lin, scale: i64) -> Option<usize> {
        if let Some(i) = self.streams.iter().position(|s| s.base == base && s.lin == *lin && s.scale == scale) {
            return Some(i);
        }
        // With spilled streams allowed, registers the function around the strip needs (its
        // scratch, length, count, bumps) stay in the pool.
        let reserve = self.stream_slots.as_ref().map_or(0, |s| s.reserve);
        let (reg, slot) = match self.base_to_walk(base, lin) {
            Some(r) => (r, None),
            None => match self.xpool.len().checked_sub(reserve).filter(|&n| n > 0).and_then(|_| self.xreg()) {
                Some(r) => (r, None),
                None => {
                    let moves = self.plan.flat_coef(lin).scaled(scale).constant() != Some(0);
                    let slots = self.stream_slots.as_mut().filter(|_| moves)?;
                    slots.count += 1;
                    (XReg::ZERO, Some((slots.count - 1) * 8))
                }
            },
        };
        self.streams.push(Stream { base, lin: lin.clone(), scale, reg, slot });
        Some(self.streams.len() - 1)
    }

    /// The register holding stream `i`'s address in the strip: its own, or for a spilled
    /// stream a temporary it is loaded into here.
    pub(super) fn stream_reg(&mut self, i: usize) -> Option<XReg> {
        let Some(slot) = self.streams[i].slot else { return Some(self.streams[i].reg) };
        let slots = self.stream_slots.as_mut()?;
        let t = slots.temps[slots.next];
        slots.next ^= 1;
        self.asm.ld(t, XReg::SP, slot);
        Some(t)
    }

    /// The argument register of `base` when the stream may walk it in place: no outer loop
    /// restarts the stream, no call moves the arguments, no other stream walks it, and
    /// nothing else reads it (a scratch address, or a pointer read only to form streams).
    /// A scratch stream must start exactly at `base`; a pointer's stream may start anywhere
    /// from it, the prologue then moving the register to the start after every other
    /// stream's start has read it.
    fn base_to_walk(&self, base: Base, lin: &Lin) -> Option<XReg> {
        let starts_at_base = lin.uniform_part_is_constant() && lin.offset == 0;
        if !self.plan.outer.is_empty() || self.call_vl.is_some() {
            return None;
        }
        let reg = match base {
            Base::Buf(b) if starts_at_base => *self.bufs.get(&b)?,
            Base::Var(v) if self.only_stream_base(v) => match self.scalars.get(&v)? {
                Opnd::X(r) if self.plan.live_in.contains(&v) => *r,
                _ => return None,
            },
            _ => return None,
        };
        (!self.streams.iter().any(|s| s.reg == reg)).then_some(reg)
    }

    /// Whether every read of `v` in the body is as the pointer of an `addptr` that makes
    /// a stream.
    fn only_stream_base(&self, v: Var) -> bool {
        self.nest_body.iter().all(|s| match s {
            Stmt::Assign { dst, expr: Expr::AddPtr { ptr, offset }, .. } if *ptr == v && *offset != v => {
                matches!(self.plan.classes.get(dst), Some(Class::PtrLin { .. }))
            }
            s => stmt_reads(s).is_some_and(|reads| !reads.contains(&v)),
        })
    }

    pub(super) fn step(&self, s: &Stream) -> Coef {
        self.plan.flat_coef(&s.lin).scaled(s.scale)
    }

    /// A register holding `step` (a constant, or a runtime step computed by the prologue).
    pub(super) fn step_reg(&mut self, step: &Coef) -> Option<XReg> {
        if let Some(c) = step.constant() {
            return self.xconst(c);
        }
        if let Some((_, r)) = self.step_regs.iter().find(|(c, _)| c == step) {
            return Some(*r);
        }
        let r = self.xreg()?;
        self.step_regs.push((step.clone(), r));
        Some(r)
    }

    /// Element `lane` of a value stream as a vector: `cur + step·vid`.
    pub(super) fn materialize_stream(&mut self, base: Base, lin: &Lin, scale: i64, w: u32) -> Option<VReg> {
        let i = self.stream(base, lin, scale)?;
        let step = self.step(&self.streams[i].clone());
        let reg = self.stream_reg(i)?;
        let t = self.temp(w)?;
        self.set_width(w);
        let Some(step) = step.constant() else {
            let k = self.step_reg(&step)?;
            self.set_width(w);
            self.asm.vid(t, Mask::Unmasked);
            self.asm.vop(VBinOp::Mul, t, t, k, Mask::Unmasked);
            self.asm.vop(VBinOp::Add, t, t, reg, Mask::Unmasked);
            return Some(t);
        };
        if step == 0 {
            self.asm.vmv(t, reg);
            return Some(t);
        }
        self.asm.vid(t, Mask::Unmasked);
        if step != 1 {
            if step > 0 && (step as u64).is_power_of_two() {
                self.asm.vop(VBinOp::Sll, t, t, step.trailing_zeros() as i32, Mask::Unmasked);
            } else {
                let k = self.xconst(step)?;
                self.asm.vop(VBinOp::Mul, t, t, k, Mask::Unmasked);
            }
        }
        self.asm.vop(VBinOp::Add, t, t, reg, Mask::Unmasked);
        Some(t)
    }

    /// Address mode and base register of the access through pointer variable `ptr`.
    pub(super) fn global_access(&mut self, ptr: Var) -> Option<(VMemMode, XReg)> {
        match self.plan.classes.get(&ptr)?.clone() {
            Class::PtrLin { base, off, bytes } => {
                let i = self.stream(Base::Var(base), &off, bytes)?;
                self.stream_access(i, bytes)
            }
            Class::Vector | Class::Uniform => {
                let index = self.vector(ptr, 8)?;
                Some((VMemMode::Indexed { index, ordered: false }, XReg::ZERO))
            }
            _ => None,
        }
    }

    fn stream_access(&mut self, i: usize, bytes: i64) -> Option<(VMemMode, XReg)> {
        let s = self.streams[i].clone();
        let step = self.step(&s);
        if step.constant() == Some(bytes) {
            Some((VMemMode::UnitStride, self.stream_reg(i)?))
        } else {
            let stride = self.step_reg(&step)?;
            Some((VMemMode::Strided(stride), self.stream_reg(i)?))
        }
    }

    pub(super) fn scratch_access(&mut self, buf: Buf, index: &Affine) -> Option<(VMemMode, XReg, ScalarType)> {
        let elem = self.f.bufs[buf].elem;
        let st = scratch::stored_scalar(elem);
        let bytes = scratch::elem_bytes(elem) as i64;
        let lin = Lin::affine(index, self.dims);
        let i = self.stream(Base::Buf(buf), &lin, bytes)?;
        let (mode, reg) = self.stream_access(i, bytes)?;
        Some((mode, reg, st))
    }
}
