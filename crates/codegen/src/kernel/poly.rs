//! Inline fp32 `exp` and `exp2` on the scalar path: the polynomial of the RVV layer
//! ([`crate::rvv::poly`], same constants and the same rounding steps, so the same bits).
//!
//! For `|x| < 87` (`exp`) or `|x| < 125` (`exp2`), `n = round(x·log₂e)` stays in
//! `[−125, 125]`, so `p(r)·2ⁿ` is a normal number and `2ⁿ` is one multiplication that
//! rounds once (the vector code's two-step scaling gives the same bits there): `n` is
//! rounded by adding 1.5·2²³ (its low bits then hold `n`), `r = x − n·ln2_hi − n·ln2_lo`
//! and `p(r) = 1 + r·(c + r·q(r))` by fused steps, as in the vector code. Other inputs
//! (overflow, underflow and subnormal results, infinities, NaN) take the vector code's
//! path: clamped, scaled in two steps, NaN restored; no call, so nothing a loop keeps in
//! registers is clobbered. The constants are integer bit patterns moved to float registers
//! once, outside loops (Cranelift rematerializes float constants at each use, an integer
//! load and a move each time).

use crate::rvv::poly::{EXP2_F32_BITS, EXP_F32_BITS};

use super::*;

/// 1.5·2²³: adding it to `|t| < 2²²` rounds `t` to an integer held in the low bits.
const ROUNDER_BITS: u32 = 0x4b40_0000;

impl Translator<'_, '_> {
    /// An fp32 constant from its bits, outside loops (built once per function).
    fn f32_bits(&mut self, bits: u32) -> Value {
        self.held.get(&mut self.b, types::F32, i64::from(bits))
    }

    /// `k` (the rounded `x·factor` plus 1.5·2²³) and `p(r)`, from the constants `c` (the
    /// values of [`EXP_F32_BITS`] or [`EXP2_F32_BITS`]).
    fn exp_reduced(&mut self, x: Value, c: &[Value; 13], rounder: Value) -> (Value, Value) {
        let [_, _, factor, ln2_hi, ln2_lo, q0, q1, q2, q3, q4, linear, one, _] = *c;
        let t = self.b.ins().fmul(x, factor);
        let k = self.b.ins().fadd(t, rounder);
        let n = self.b.ins().fsub(k, rounder);
        let minus_n = self.b.ins().fneg(n);
        let r = self.b.ins().fma(minus_n, ln2_hi, x);
        let r = self.b.ins().fma(minus_n, ln2_lo, r);
        let mut p = self.b.ins().fma(r, q4, q3);
        for q in [q2, q1, q0, linear, one] {
            p = self.b.ins().fma(r, p, q);
        }
        (k, p)
    }

    /// `exp(x)` (`exp2(x)` when `two`) of an fp32 `x`.
    pub(super) fn exp_f32(&mut self, two: bool, x: Value) -> Value {
        let bits = if two { EXP2_F32_BITS } else { EXP_F32_BITS };
        let c = bits.map(|b| self.f32_bits(b));
        let limit = self.f32_bits(if two { 125f32 } else { 87f32 }.to_bits());
        let rounder = self.f32_bits(ROUNDER_BITS);
        let magnitude = self.b.ins().fabs(x);
        let inline = self.b.ins().fcmp(FloatCC::LessThan, magnitude, limit);
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        self.b.set_cold_block(slow);
        let merge = self.b.create_block();
        self.b.append_block_param(merge, types::F32);
        self.b.ins().brif(inline, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        let (k, p) = self.exp_reduced(x, &c, rounder);
        // The low 9 bits of k's bits are n mod 512 (1.5·2²³'s are zero): shifted into the
        // exponent field they give the bits of 2ⁿ, n + 127 ∈ [2, 252].
        let k_bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), k);
        let biased = self.b.ins().iadd_imm_s(k_bits, 127);
        let scale_bits = self.b.ins().ishl_imm_s(biased, 23);
        let scale = self.b.ins().bitcast(types::F32, MemFlagsData::new(), scale_bits);
        let y = self.b.ins().fmul(p, scale);
        self.b.ins().jump(merge, &[y.into()]);
        // The rest as the vector code does it: x clamped (a NaN stays), 2ⁿ applied in two
        // steps (the first exact), NaN restored.
        self.b.switch_to_block(slow);
        let (lo, hi) = (c[0], c[1]);
        let below = self.b.ins().fcmp(FloatCC::LessThan, x, lo);
        let xc = self.b.ins().select(below, lo, x);
        let above = self.b.ins().fcmp(FloatCC::GreaterThan, xc, hi);
        let xc = self.b.ins().select(above, hi, xc);
        let (k, p) = self.exp_reduced(xc, &c, rounder);
        let k_bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), k);
        let n = self.b.ins().iadd_imm_s(k_bits, -(ROUNDER_BITS as i64));
        let half = self.b.ins().sshr_imm_s(n, 1);
        let half = self.b.ins().ishl_imm_s(half, 23);
        let p_bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), p);
        let p_bits = self.b.ins().iadd(p_bits, half);
        let p = self.b.ins().bitcast(types::F32, MemFlagsData::new(), p_bits);
        let rest = self.b.ins().iadd_imm_s(n, 255);
        let rest = self.b.ins().sshr_imm_s(rest, 1);
        let rest = self.b.ins().ishl_imm_s(rest, 23);
        let scale = self.b.ins().bitcast(types::F32, MemFlagsData::new(), rest);
        let y = self.b.ins().fmul(p, scale);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
        let y = self.b.ins().select(nan, x, y);
        self.b.ins().jump(merge, &[y.into()]);
        self.b.switch_to_block(merge);
        self.b.block_params(merge)[0]
    }
}
