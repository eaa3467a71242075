//! fp16 and bf16 in RVV nests: as in the scalar path ([`crate::float16`]), a half value lives
//! in registers as the f32 equal to it (width 4), scratch buffers hold that f32, and only
//! global memory holds the 16-bit encoding.
//!
//! With Zvfhmin (or Zvfh, [`crate::VectorExtensions`]) the fp16 conversions are the
//! hardware's: `vfwcvt.f.f.v` widens, `vfncvt.f.f.w` narrows (round to nearest even), and a
//! narrowing followed by a widening rounds an f32 to fp16 precision. They give the bits of
//! the integer code below except for NaNs, which the hardware makes canonical (a positive
//! quiet NaN, `0x7e00` in fp16), as RISC-V float conversions do. bf16 always takes the
//! integer code. Without them, no vector instruction reads or writes a 16-bit float:
//!
//! - Loads read the 16-bit words (`vle16`/`vlse16`/`vluxei64`) and widen them with integer
//!   and exact float operations ([`Emitter::widen_half`]: fp16 in 3 instructions at 16
//!   bits, half the registers, a widening multiply among them, and 3 at 32; in 7 at 32 bits
//!   when the leaf lacks scalar registers for the constants); stores narrow
//!   with round to nearest even ([`Emitter::narrow_half`]: fp16 in 10 instructions at 32
//!   bits, one of them mask logic, a `vnclipu` that rounds the encoding's dropped bits as it
//!   narrows, under `vxrm` = rne, and the sign's masked `vor` at 16 bits; a leaf without
//!   calls sets `vxrm` once in its prologue). Both give the scalar path's bits exactly, NaN
//!   included (a NaN narrows to the quiet `0x7e00` with its sign; bf16 keeps its high half
//!   with the quiet bit set; widening keeps the payload).
//! - Every operation whose result is a half (arithmetic, math, fma, float and integer
//!   conversions to a half) is computed in f32 and rounded to the half's precision, as the
//!   scalar path and the interpreter do ([`Emitter::expr_rounded`]).
//! - Bitcasts between a half and a 16-bit integer are the widening/narrowing themselves.
//! - Accumulations into half buffers stay on the scalar path (they round per step).
//!
//! Every helper below leaves `v0` clobbered (it holds an inf/NaN or range mask) and says so
//! by forgetting which mask `v0` held.

use super::*;
use crate::float16;

/// Whether `st` is a 16-bit float.
pub(super) fn is_half(st: ScalarType) -> bool {
    matches!(st, ScalarType::F16 | ScalarType::BF16)
}

/// The element type a register or scratch buffer holds for `st` (halves: f32).
pub(super) fn register_scalar(st: ScalarType) -> ScalarType {
    if is_half(st) {
        ScalarType::F32
    } else {
        st
    }
}

/// The f32 bits of the half `st` nearest to `x` (round to nearest even).
pub(super) fn half_constant_bits(st: ScalarType, x: f64) -> u64 {
    float16::half_value(st, float16::nearest_half_bits(st, x)).to_bits() as u64
}

/// The 16-bit encoding of the half `st` nearest to `x`.
fn half_encoding(st: ScalarType, x: f64) -> i64 {
    i64::from(float16::nearest_half_bits(st, x))
}

/// `2^112`: scales an fp16 exponent field placed in an f32 (bias 15 read as bias 127).
const TWO_POW_112: u32 = 0x7780_0000;
/// `2^16`: the first f32 beyond the largest finite fp16 (65504) and its rounding range.
const TWO_POW_16: u32 = 0x4780_0000;
/// The bits of a widened fp16 encoding `sext(h) << 13` that are its f32's (see
/// [`Emitter::widen_half`]): bit 31 and bits 27..0, with bit 11 clear so that the low 16
/// bits are `0xf7ff`.
const FIELDS: i64 = 0x8fff_f7ff_u32 as i32 as i64;
/// `2^-14`: the smallest normal fp16; below it fp16 rounds on the subnormal grid 2^-24.
const TWO_POW_MINUS_14: u32 = 0x3880_0000;

/// Whether the scalar path rounds the result of `e` to the destination's precision.
fn rounds(e: &Expr) -> bool {
    match e {
        Expr::Binary(..) | Expr::Unary(..) | Expr::Math(..) | Expr::Fma(..) => true,
        Expr::Cast(op, _) => matches!(op, CastOp::FloatExt | CastOp::FloatTrunc | CastOp::IntToFloat),
        _ => false,
    }
}

impl Emitter<'_> {
    /// `vxrm` = rne for the next fixed-point rounding. Its value on entry is unspecified and
    /// calls may change it: a leaf without calls sets it once in its prologue, else here.
    fn vxrm_round_to_nearest_even(&mut self) {
        match self.call_vl {
            None => self.vxrm_rne = true,
            Some(_) => {
                self.asm.push(Inst::CsrImm { op: CsrOp::ReadWrite, rd: XReg::ZERO, csr: Csr::VXRM, uimm: VXRM_RNE })
            }
        }
    }

    /// [`Emitter::expr`], then rounded to the precision of a half destination as the scalar
    /// path does; bitcasts between halves and 16-bit integers are handled here.
    pub(super) fn expr_rounded(&mut self, dst: Var, e: &Expr) -> Option<VReg> {
        if let Some(r) = self.take_scan_result(e) {
            return Some(r);
        }
        let dst_st = scalar_of(self.f.ty(dst));
        if let Expr::Cast(CastOp::Bitcast, a) = e {
            let src_st = scalar_of(self.f.ty(*a));
            match (is_half(src_st), is_half(dst_st)) {
                (false, false) => {}
                (true, false) if dst_st.bytes() == 2 && !dst_st.is_float() => {
                    let x = self.vector(*a, 4)?;
                    let d = self.alloc_v(2)?;
                    self.narrow_half(src_st, d, x)?;
                    return Some(d);
                }
                (false, true) if src_st.bytes() == 2 && !src_st.is_float() => {
                    let h = self.vector(*a, 2)?;
                    let d = self.alloc_v(4)?;
                    self.widen_half(dst_st, d, h, true)?;
                    return Some(d);
                }
                _ => return None,
            }
        }
        if let Expr::Cast(CastOp::FloatTrunc, a) = e {
            if is_half(dst_st) && scalar_of(self.f.ty(*a)) == ScalarType::F64 {
                // Rounded to odd first, so that the second rounding is exact.
                let x = self.vector(*a, 8)?;
                let d = self.alloc_v(4)?;
                self.set_width(4);
                self.asm.vunary(VUnaryOp::FncvtRodFF, d, x, Mask::Unmasked);
                self.round_half(dst_st, d)?;
                return Some(d);
            }
        }
        let d = self.expr(dst, e)?;
        // A value only stored to memory as a half is rounded by the narrowing itself (to
        // the same bits: rounding twice to the same precision is rounding once).
        if is_half(dst_st) && rounds(e) && !self.only_stored_as(dst, dst_st) {
            self.round_half(dst_st, d)?;
        }
        Some(d)
    }

    /// Whether every read of `v` in the body is the value of a global store through a
    /// pointer to `st`.
    fn only_stored_as(&self, v: Var, st: ScalarType) -> bool {
        self.nest_body.iter().all(|s| match s {
            Stmt::Store { ptr, value, mask, .. } if *value == v => {
                *ptr != v && *mask != Some(v) && self.f.ty(*ptr).pointee() == Some(st)
            }
            s => stmt_reads(s).is_some_and(|reads| !reads.contains(&v)),
        })
    }

    /// `d` (an f32 group) = the f32 equal to the half `st` whose 16-bit encodings are in
    /// the e16 group `h` (exact; NaN payloads kept). `h` is left as it was when `keep_h`,
    /// else it may be overwritten.
    pub(super) fn widen_half(&mut self, st: ScalarType, d: VReg, h: VReg, keep_h: bool) -> Option<()> {
        let u = Mask::Unmasked;
        if st == ScalarType::F16 && self.fp16_conversions {
            self.set_width(2);
            self.asm.vunary(VUnaryOp::FwcvtFF, d, h, u);
            return Some(());
        }
        if st == ScalarType::BF16 {
            self.set_width(4);
            self.asm.vunary(VUnaryOp::ZextVf2, d, h, u);
            self.asm.vop(VBinOp::Sll, d, d, 16, u);
            return Some(());
        }
        if !self.widen_at_16 {
            return self.widen_half_at_32(d, h);
        }
        // Constants live in registers for the whole leaf. `FIELDS` keeps the sign, the
        // exponent and the mantissa of a 16-bit encoding shifted left by 13 (its bits 12..0
        // are zero there), and its low 16 bits are the largest encoding shifted left by 1
        // whose exponent is not all ones, which the inf/NaN test compares with.
        let shift = self.xconst(1 << 13)?;
        let fields = self.xconst(FIELDS)?;
        let inf_bits = self.xconst(0x7f80_0000)?;
        let scale = self.fconst(TWO_POW_112 as u64, false)?;
        // At 16 bits (half the registers): the encoding, sign-extended and shifted left by
        // 13 as it widens (the sign in bits 31..28, exponent and mantissa in their f32
        // places), and the lanes whose exponent is all ones (inf, NaN): the encoding shifted
        // left by 1 (the sign shifted out) above `0xf7ff`.
        self.set_width(2);
        self.asm.vop(VBinOp::Wmul, d, h, shift, u);
        let t = if keep_h { self.temp(2)? } else { h };
        self.asm.vop(VBinOp::Sll, t, h, 1, u);
        self.asm.vop(VBinOp::Msgtu, VReg::V0, t, fields, u);
        self.v0 = None;
        // The sign alone in bit 31: an f32 2^112 times too small (subnormals included),
        // exact after the multiplication; inf and NaN get the all-ones f32 exponent, the
        // mantissa kept.
        self.set_width(4);
        self.asm.vop(VBinOp::And, d, d, fields, u);
        self.asm.vop(VBinOp::Fmul, d, d, scale, u);
        self.asm.vop(VBinOp::Or, d, d, inf_bits, Mask::V0);
        Some(())
    }

    /// [`Emitter::widen_half`] of fp16 at 32 bits: one integer constant where the form at
    /// 16 bits takes three (for leaves short of scalar registers), one more instruction,
    /// every one at the f32 group's weight.
    fn widen_half_at_32(&mut self, d: VReg, h: VReg) -> Option<()> {
        let u = Mask::Unmasked;
        let inf_bits = self.xconst(0x7f80_0000)?;
        let (scale, two_pow_16) = (self.fconst(TWO_POW_112 as u64, false)?, self.fconst(TWO_POW_16 as u64, false)?);
        self.set_width(4);
        // Sign-extended: bit 31 is the sign.
        let t = self.temp(4)?;
        self.asm.vunary(VUnaryOp::SextVf2, t, h, u);
        // Exponent and mantissa moved to their f32 places (the sign shifted out), scaled as
        // above; exponent 31 (inf, NaN) gives the only products from 2^16 on.
        self.asm.vop(VBinOp::Sll, d, t, 17, u);
        self.asm.vop(VBinOp::Srl, d, d, 4, u);
        self.asm.vop(VBinOp::Fmul, d, d, scale, u);
        self.asm.vop(VBinOp::Mfge, VReg::V0, d, two_pow_16, u);
        self.v0 = None;
        self.asm.vop(VBinOp::Or, d, d, inf_bits, Mask::V0);
        self.asm.vop(VBinOp::Fsgnj, d, d, t, u);
        Some(())
    }

    /// `d` (an e16 group) = the encodings of the half `st` nearest to the f32 group `x`
    /// (round to nearest even; overflow to ±inf; NaN as the scalar path).
    pub(super) fn narrow_half(&mut self, st: ScalarType, d: VReg, x: VReg) -> Option<()> {
        let u = Mask::Unmasked;
        if st == ScalarType::F16 && self.fp16_conversions {
            self.set_width(2);
            self.asm.vunary(VUnaryOp::FncvtFF, d, x, u);
            return Some(());
        }
        self.set_width(4);
        let n = self.temp(4)?;
        if st == ScalarType::BF16 {
            let (bias, quiet) = (self.xconst(0x7fff)?, self.xconst(0x40)?);
            let high = self.temp(4)?;
            self.asm.vop(VBinOp::Srl, high, x, 16, u);
            self.asm.vop(VBinOp::And, n, high, 1, u);
            self.asm.vop(VBinOp::Add, n, n, x, u);
            self.asm.vop(VBinOp::Add, n, n, bias, u);
            self.asm.vop(VBinOp::Srl, n, n, 16, u);
            self.asm.vop(VBinOp::Mfne, VReg::V0, x, x, u);
            self.v0 = None;
            self.asm.vop(VBinOp::Or, n, high, quiet, Mask::V0);
        } else {
            let largest = self.xconst(0x477f_f000)?;
            let rebias = self.xconst(-(112 << 23))?;
            let nan = self.xconst(0x7e00 << 13)?;
            let sign = self.xconst(0x8000)?;
            let half = self.fconst(0.5f32.to_bits() as u64, false)?;
            let smallest_normal = self.fconst(TWO_POW_MINUS_14 as u64, false)?;
            // `n` is the encoding shifted left by 13 with the bits it drops below: the
            // narrowing `vnclipu` shifts it back rounding to nearest even. It starts as
            // |x|; each range is then computed in place under a mask, so only `x` and `n`
            // are live (two register groups).
            self.asm.vop(VBinOp::Fsgnjx, n, x, x, u);
            // Subnormal range: adding 0.5 rounds on the fp16 subnormal grid (ulp 2^-24); the
            // sum's low 11 bits are then the encoding (up to 0x400, the smallest normal),
            // moved to bit 13 by a shift that moves 0.5's bits (24..29) out of the word.
            self.asm.vop(VBinOp::Mflt, VReg::V0, n, smallest_normal, u);
            self.v0 = None;
            self.asm.vop(VBinOp::Fadd, n, n, half, Mask::V0);
            self.asm.vop(VBinOp::Sll, n, n, 13, Mask::V0);
            // Normal range: rebias 127 → 15. Magnitudes from the first that rounds to 2^16
            // on are clamped to it: +inf.
            self.asm.vop(VBinOp::Mnand, VReg::V0, VReg::V0, VReg::V0, u);
            self.asm.vop(VBinOp::Minu, n, n, largest, Mask::V0);
            self.asm.vop(VBinOp::Add, n, n, rebias, Mask::V0);
            self.asm.vop(VBinOp::Mfne, VReg::V0, x, x, u);
            self.asm.vop(VBinOp::Merge, n, n, nan, Mask::V0);
            // The negative lanes, whose sign bit is set in the 16-bit result (at half the
            // register groups of the 32-bit value).
            self.asm.vop(VBinOp::Mslt, VReg::V0, x, XReg::ZERO, u);
            self.vxrm_round_to_nearest_even();
            self.set_width(2);
            self.asm.vop(VBinOp::Nclipu, d, n, 13, u);
            self.asm.vop(VBinOp::Or, d, d, sign, Mask::V0);
            return Some(());
        }
        self.set_width(2);
        self.asm.vop(VBinOp::Nsrl, d, n, 0, u);
        Some(())
    }

    /// Rounds the f32 group `x` in place to the precision of the half `st`: the f32 of
    /// [`Emitter::narrow_half`] then [`Emitter::widen_half`], computed in f32 (the same
    /// rounding steps, without leaving the f32 encoding).
    pub(super) fn round_half(&mut self, st: ScalarType, x: VReg) -> Option<()> {
        let u = Mask::Unmasked;
        if st == ScalarType::F16 && self.fp16_conversions {
            let h = self.temp(2)?;
            self.narrow_half(st, h, x)?;
            return self.widen_half(st, x, h, false);
        }
        self.set_width(4);
        let n = self.temp(4)?;
        if st == ScalarType::BF16 {
            let (bias, quiet) = (self.xconst(0x7fff)?, self.xconst(0x0040_0000)?);
            self.asm.vop(VBinOp::Srl, n, x, 16, u);
            self.asm.vop(VBinOp::And, n, n, 1, u);
            self.asm.vop(VBinOp::Add, n, n, x, u);
            self.asm.vop(VBinOp::Add, n, n, bias, u);
            self.asm.vop(VBinOp::Mfne, VReg::V0, x, x, u);
            self.v0 = None;
            self.asm.vop(VBinOp::Or, n, x, quiet, Mask::V0);
            self.asm.vop(VBinOp::Srl, n, n, 16, u);
            self.asm.vop(VBinOp::Sll, x, n, 16, u);
            return Some(());
        }
        let (inf, nan) = (self.xconst(0x7f80_0000)?, self.xconst(0x7fc0_0000)?);
        let half = self.fconst(0.5f32.to_bits() as u64, false)?;
        let smallest_normal = self.fconst(TWO_POW_MINUS_14 as u64, false)?;
        let two_pow_16 = self.fconst(TWO_POW_16 as u64, false)?;
        // `n` starts as |x| and is rounded in place, range by range: only `x` and `n` are
        // live (two register groups).
        self.asm.vop(VBinOp::Fsgnjx, n, x, x, u);
        // Subnormal range: onto the 2^-24 grid by adding and removing 0.5. The result has
        // at most 11 significant bits, so the normal rounding below leaves it unchanged.
        self.asm.vop(VBinOp::Mflt, VReg::V0, n, smallest_normal, u);
        self.v0 = None;
        self.asm.vop(VBinOp::Fadd, n, n, half, Mask::V0);
        self.asm.vop(VBinOp::Fsub, n, n, half, Mask::V0);
        // Normal range: 13 mantissa bits cleared rounding to nearest even (`vssrl` under
        // vxrm = rne); from 2^16 on: inf.
        self.vxrm_round_to_nearest_even();
        self.asm.vop(VBinOp::Ssrl, n, n, 13, u);
        self.asm.vop(VBinOp::Sll, n, n, 13, u);
        self.asm.vop(VBinOp::Mfge, VReg::V0, n, two_pow_16, u);
        self.asm.vop(VBinOp::Merge, n, n, inf, Mask::V0);
        self.asm.vop(VBinOp::Mfne, VReg::V0, x, x, u);
        self.asm.vop(VBinOp::Merge, n, n, nan, Mask::V0);
        self.asm.vop(VBinOp::Fsgnj, x, n, x, u);
        Some(())
    }

    /// The value of `other` (a constant) a masked-off lane of a half load gets, zero
    /// without one.
    fn other_value(&self, other: Option<Var>) -> Option<f64> {
        Some(match other {
            None => 0.0,
            Some(o) => match self.plan.live_constants.get(&o)? {
                Constant::Float(x) => *x,
                Constant::Int(i) => *i as f64,
                Constant::Bool(b) => *b as i64 as f64,
            },
        })
    }

    /// `h` (16-bit lanes) = the encoding of `other` as `st` in every lane (zero without
    /// one); `other` must be a constant.
    pub(super) fn fill_other_half(&mut self, h: VReg, st: ScalarType, other: Option<Var>) -> Option<()> {
        let bits = half_encoding(st, self.other_value(other)?);
        let src = if (-16..16).contains(&bits) { Opnd::Imm(bits as i32) } else { Opnd::X(self.xconst(bits)?) };
        self.set_width(2);
        self.asm.vmv(h, src.src());
        Some(())
    }

    /// A fresh f32 group holding, in every lane, the f32 equal to `other` as the half `st`
    /// (what a load whose every lane is masked off gives; zero without one).
    pub(super) fn splat_other_half(&mut self, st: ScalarType, other: Option<Var>) -> Option<VReg> {
        let bits = half_constant_bits(st, self.other_value(other)?) as i64;
        let src = if bits == 0 { Opnd::Imm(0) } else { Opnd::X(self.xconst(bits)?) };
        let d = self.alloc_v(4)?;
        self.set_width(4);
        self.asm.vmv(d, src.src());
        Some(d)
    }

    /// Loads halves `st` from global memory into a fresh f32 group; masked-off lanes get
    /// `other` (a constant) or zero.
    pub(super) fn load_half(
        &mut self,
        mode: VMemMode,
        base: XReg,
        st: ScalarType,
        mask: Mask,
        other: Option<Var>,
    ) -> Option<VReg> {
        let h = self.temp(2)?;
        if mask == Mask::V0 {
            self.fill_other_half(h, st, other)?;
        }
        // A unit-stride or strided access names its element width: it runs at the vtype
        // the widening starts at (e16, or the f32 vtype: EMUL is half its LMUL); an indexed
        // one at e16.
        let indexed = matches!(mode, VMemMode::Indexed { .. });
        let at_16 = st == ScalarType::F16 && (self.widen_at_16 || self.fp16_conversions);
        self.set_width(if indexed || at_16 { 2 } else { 4 });
        let eew = if indexed { Sew::E64 } else { Sew::E16 };
        self.asm.vload(eew, mode, h, base, mask);
        let d = self.alloc_v(4)?;
        self.widen_half(st, d, h, false)?;
        Some(d)
    }

    /// Stores the f32 group of `value` as halves `st` through `ptr` under `mask`.
    pub(super) fn store_half(&mut self, ptr: Var, st: ScalarType, value: Var, mask: Option<Var>) -> Option<()> {
        let x = self.vector(value, 4)?;
        let h = self.temp(2)?;
        self.narrow_half(st, h, x)?;
        let (mode, base) = self.global_access(ptr)?;
        let mask = self.access_mask(mask)?;
        self.check_access(ptr, mode, base, 2, mask, crate::bounds::Access::Write)?;
        self.set_width(2);
        let eew = if matches!(mode, VMemMode::Indexed { .. }) { Sew::E64 } else { Sew::E16 };
        self.asm.vstore(eew, mode, h, base, mask);
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_constants_round_to_nearest_even() {
        // 1 + 2^-11 is halfway between 1 and the next fp16: ties go to the even 1.0.
        assert_eq!(half_constant_bits(ScalarType::F16, 1.0 + 2f64.powi(-11)), 1f32.to_bits() as u64);
        assert_eq!(half_constant_bits(ScalarType::BF16, 1.0 + 2f64.powi(-8)), 1f32.to_bits() as u64);
        assert_eq!(half_encoding(ScalarType::F16, 65520.0), 0x7c00);
        assert_eq!(half_encoding(ScalarType::BF16, -1.0), 0xbf80);
    }
}
