//! fp16 / bf16 ⇄ f32 conversions in Cranelift IR (RV64GC has no Zfh).
//!
//! Narrowing rounds to nearest even, as Triton's `to(tl.float16)`; NaN stays a (quiet) NaN;
//! values beyond the largest finite fp16 become ±∞. Halves are held in f32 registers; a
//! wider source reaches them through [`f64_to_f32_round_to_odd`], so the two roundings
//! (f64 → f32 → half) give the single correctly rounded result.
//!
//! The general conversions are branch-free. The fp16 ones of hot code ([`load_f16`],
//! [`store_f16`], [`round_f16`]) handle the usual values in a few integer and float
//! instructions and branch to a cold block for the rest (infinities and NaNs; for
//! narrowing also subnormal results and overflow), which runs the general conversion:
//! the same bits either way.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, Block, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;
use tilec_ir::ScalarType;

use crate::opaque::Held;

/// `|x|` of an f32's bits below which (`2^-14`) a half is subnormal.
const HALF_MIN_NORMAL_F32_BITS: i64 = 0x3880_0000;
/// `|x|` of an f32's bits from which (`65520`) rounding to a half overflows to infinity.
const HALF_OVERFLOW_F32_BITS: i64 = 0x477f_f000;

/// Loads the fp16 at `addr` as the f32 equal to it.
///
/// The half's bits shifted left by 13 (sign-extended, so that the sign lands in bit 31 once
/// bits 28–30 are cleared) are an f32 whose exponent is the half's minus 112 — a subnormal
/// f32 for a subnormal half — so multiplying it by 2^112 gives the half's value exactly,
/// zeros and subnormals included. An exponent of 31 (infinity, NaN) branches to a cold block
/// that sets the f32 exponent to all ones, keeping the mantissa (NaN payloads stay).
pub fn load_f16(b: &mut FunctionBuilder, held: &mut Held, flags: MemFlagsData, addr: Value) -> Value {
    let h = b.ins().sload16(types::I64, flags, addr, 0);
    let shifted = b.ins().ishl_imm_u(h, 13);
    let keep = held.get(b, types::I64, 0x8fff_ffff);
    let placed = b.ins().band(shifted, keep);
    let placed = b.ins().ireduce(types::I32, placed);
    let small = b.ins().bitcast(types::F32, MemFlagsData::new(), placed);
    let scale = held.get(b, types::F32, 0x7780_0000); // 2^112
    let value = b.ins().fmul(small, scale);
    // Exponent and mantissa at the top (the sign shifted out): the exponent is 31 from
    // 0x7c00 << 49 up.
    let magnitude = b.ins().ishl_imm_u(h, 49);
    let inf_nan = held.get(b, types::I64, (0x7c00u64 << 49) as i64);
    let special = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, magnitude, inf_nan);
    let (cold, merge) = cold_branch(b, special, value, types::F32);
    b.switch_to_block(cold);
    let bits = b.ins().bor_imm_u(placed, 0x7f80_0000);
    let special_value = b.ins().bitcast(types::F32, MemFlagsData::new(), bits);
    b.ins().jump(merge, &[special_value.into()]);
    b.switch_to_block(merge);
    b.block_params(merge)[0]
}

/// Branches to a new cold block when `special`, else to a new merge block with `usual`
/// (of type `ty`) as its parameter; the builder is left in no block. Returns (cold, merge):
/// the cold block must jump to the merge block with its value.
fn cold_branch(b: &mut FunctionBuilder, special: Value, usual: Value, ty: Type) -> (Block, Block) {
    let cold = b.create_block();
    b.set_cold_block(cold);
    let merge = b.create_block();
    b.append_block_param(merge, ty);
    b.ins().brif(special, cold, &[], merge, &[usual.into()]);
    (cold, merge)
}

/// Whether the f32 with bits `x` (an i32) rounds to a normal finite half: the usual case
/// of [`store_f16`] and [`round_f16`]. Returns the i32 `|x| − 2^-14 bits` and the test (an
/// i8, set when the value is not such a one).
fn outside_half_normal_range(b: &mut FunctionBuilder, held: &mut Held, x: Value) -> (Value, Value) {
    let abs_mask = held.get(b, types::I32, 0x7fff_ffff);
    let ax = b.ins().band(x, abs_mask);
    let minus_min = held.get(b, types::I32, -HALF_MIN_NORMAL_F32_BITS);
    // i32 arithmetic, so the sign extension to i64 below is free.
    let above_min = b.ins().iadd(ax, minus_min);
    let above_min_64 = b.ins().sextend(types::I64, above_min);
    let range = held.get(b, types::I64, HALF_OVERFLOW_F32_BITS - HALF_MIN_NORMAL_F32_BITS);
    // Below the minimum the difference is negative, a huge unsigned number.
    let outside = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, above_min_64, range);
    (above_min, outside)
}

/// Stores the f32 `f` at `addr` as the fp16 nearest to it (the bits of
/// [`f32_to_f16_bits`]). Values rounding to a normal half take the usual path: the rebiased
/// magnitude rounded to nearest even by adding `0xfff` plus the lowest kept bit, shifted
/// down, with the sign put back; the others branch to a cold block running the general
/// conversion.
pub fn store_f16(b: &mut FunctionBuilder, held: &mut Held, flags: MemFlagsData, f: Value, addr: Value) {
    let x = b.ins().bitcast(types::I32, MemFlagsData::new(), f);
    let (above_min, outside) = outside_half_normal_range(b, held, x);
    let usual = b.create_block();
    let cold = b.create_block();
    b.set_cold_block(cold);
    let merge = b.create_block();
    b.append_block_param(merge, types::I16);
    b.ins().brif(outside, cold, &[], usual, &[]);
    b.switch_to_block(usual);
    let lsb_field = b.ins().ushr_imm_u(x, 13);
    let lsb = b.ins().band_imm_u(lsb_field, 1);
    // |x| − (112 << 23) + 0xfff: rebias 127 → 15 and add just under half a unit.
    let rebias = held.get(b, types::I32, HALF_MIN_NORMAL_F32_BITS - (112 << 23) + 0xfff);
    let biased = b.ins().iadd(above_min, rebias);
    let rounded = b.ins().iadd(biased, lsb);
    let magnitude = b.ins().ushr_imm_u(rounded, 13);
    let sign_bit = b.ins().ushr_imm_u(x, 31);
    let sign = b.ins().ishl_imm_u(sign_bit, 15);
    let bits = b.ins().bor(magnitude, sign);
    let bits = b.ins().ireduce(types::I16, bits);
    b.ins().jump(merge, &[bits.into()]);
    b.switch_to_block(cold);
    let general = f32_to_f16_bits(b, f);
    b.ins().jump(merge, &[general.into()]);
    b.switch_to_block(merge);
    let bits = b.block_params(merge)[0];
    b.ins().store(flags, bits, addr, 0);
}

/// The f32 `f` rounded to the nearest fp16 (the value of [`f32_to_f16_bits`]), kept as f32.
/// Values rounding to a normal half are rounded on the f32 bits (add `0xfff` plus the
/// lowest kept bit, clear the 13 dropped bits; the sign is untouched), the others branch to
/// a cold block running the general conversion there and back.
pub fn round_f16(b: &mut FunctionBuilder, held: &mut Held, f: Value) -> Value {
    let x = b.ins().bitcast(types::I32, MemFlagsData::new(), f);
    let (_, outside) = outside_half_normal_range(b, held, x);
    let usual = b.create_block();
    let cold = b.create_block();
    b.set_cold_block(cold);
    let merge = b.create_block();
    b.append_block_param(merge, types::F32);
    b.ins().brif(outside, cold, &[], usual, &[]);
    b.switch_to_block(usual);
    let lsb_field = b.ins().ushr_imm_u(x, 13);
    let lsb = b.ins().band_imm_u(lsb_field, 1);
    let half_unit = held.get(b, types::I32, 0xfff);
    let biased = b.ins().iadd(x, half_unit);
    let rounded = b.ins().iadd(biased, lsb);
    let kept = held.get(b, types::I32, !0x1fff);
    let bits = b.ins().band(rounded, kept);
    let value = b.ins().bitcast(types::F32, MemFlagsData::new(), bits);
    b.ins().jump(merge, &[value.into()]);
    b.switch_to_block(cold);
    let general = f32_to_f16_bits(b, f);
    let general = f16_bits_to_f32(b, general);
    b.ins().jump(merge, &[general.into()]);
    b.switch_to_block(merge);
    b.block_params(merge)[0]
}

/// The f32 equal to the fp16 with bits `h` (an i16).
pub fn f16_bits_to_f32(b: &mut FunctionBuilder, h: Value) -> Value {
    let h32 = b.ins().uextend(types::I32, h);
    let sign_bit = b.ins().band_imm_u(h32, 0x8000);
    let sign = b.ins().ishl_imm_u(sign_bit, 16);
    let exp_field = b.ins().ushr_imm_u(h32, 10);
    let exp = b.ins().band_imm_u(exp_field, 0x1f);
    let mant = b.ins().band_imm_u(h32, 0x3ff);
    let mant_shifted = b.ins().ishl_imm_u(mant, 13);
    // Normal: rebias the exponent 15 → 127.
    let rebiased = b.ins().iadd_imm_s(exp, 112);
    let exp_bits = b.ins().ishl_imm_u(rebiased, 23);
    let normal = b.ins().bor(exp_bits, mant_shifted);
    // Inf / NaN: all-ones exponent.
    let inf_exp = b.ins().iconst(types::I32, 0x7f80_0000);
    let inf_nan = b.ins().bor(inf_exp, mant_shifted);
    // Zero / subnormal: mant × 2^-24, exact in f32.
    let mant_f = b.ins().fcvt_from_uint(types::F32, mant);
    let scale = b.ins().f32const(f32::from_bits(0x3380_0000)); // 2^-24
    let sub_f = b.ins().fmul(mant_f, scale);
    let sub = b.ins().bitcast(types::I32, MemFlagsData::new(), sub_f);
    let is_inf_nan = b.ins().icmp_imm_s(IntCC::Equal, exp, 0x1f);
    let is_sub = b.ins().icmp_imm_s(IntCC::Equal, exp, 0);
    let magnitude = b.ins().select(is_inf_nan, inf_nan, normal);
    let magnitude = b.ins().select(is_sub, sub, magnitude);
    let bits = b.ins().bor(magnitude, sign);
    b.ins().bitcast(types::F32, MemFlagsData::new(), bits)
}

/// The encoding of the half `st` (fp16 or bf16) nearest to `x` (round to nearest even,
/// rounded once): for constants.
pub fn nearest_half_bits(st: ScalarType, x: f64) -> u16 {
    let odd = tilec_ir::f64_to_f32_round_to_odd(x);
    if st == ScalarType::BF16 {
        half::bf16::from_f32(odd).to_bits()
    } else {
        half::f16::from_f32(odd).to_bits()
    }
}

/// The f32 equal to the half `st` with encoding `bits`.
pub fn half_value(st: ScalarType, bits: u16) -> f32 {
    if st == ScalarType::BF16 {
        half::bf16::from_bits(bits).to_f32()
    } else {
        half::f16::from_bits(bits).to_f32()
    }
}

/// The f32 nearest to the f64 `x` rounded to odd: truncated towards zero, with the lowest
/// mantissa bit set when inexact. f32 has more than two bits beyond a half's precision, so
/// rounding this to nearest even at fp16 or bf16 precision equals rounding `x` directly
/// (a plain f32 rounding could land `x` on a half's tie and round it the wrong way).
/// NaN stays NaN; a finite `x` beyond the f32 range becomes the largest finite f32 (odd),
/// which every half rounds on to ±∞.
pub fn f64_to_f32_round_to_odd(b: &mut FunctionBuilder, x: Value) -> Value {
    let nearest = b.ins().fdemote(types::F32, x);
    let back = b.ins().fpromote(types::F64, nearest);
    let inexact = b.ins().fcmp(FloatCC::NotEqual, back, x);
    let (back_magnitude, x_magnitude) = (b.ins().fabs(back), b.ins().fabs(x));
    let rounded_away = b.ins().fcmp(FloatCC::GreaterThan, back_magnitude, x_magnitude);
    let bits = b.ins().bitcast(types::I32, MemFlagsData::new(), nearest);
    let rounded_away = b.ins().uextend(types::I32, rounded_away);
    let truncated = b.ins().isub(bits, rounded_away);
    let inexact = b.ins().uextend(types::I32, inexact);
    let odd = b.ins().bor(truncated, inexact);
    b.ins().bitcast(types::F32, MemFlagsData::new(), odd)
}

/// The fp16 bits (an i16) nearest to the f32 `f`.
pub fn f32_to_f16_bits(b: &mut FunctionBuilder, f: Value) -> Value {
    let x = b.ins().bitcast(types::I32, MemFlagsData::new(), f);
    let high = b.ins().ushr_imm_u(x, 16);
    let sign = b.ins().band_imm_u(high, 0x8000);
    let ax = b.ins().band_imm_u(x, 0x7fff_ffff);
    // Normal range: drop 13 mantissa bits with round-to-nearest-even, rebias 127 → 15.
    let lsb_field = b.ins().ushr_imm_u(ax, 13);
    let lsb = b.ins().band_imm_u(lsb_field, 1);
    let biased = b.ins().iadd_imm_s(ax, -(112 << 23) + 0xfff);
    let rounded = b.ins().iadd(biased, lsb);
    let normal = b.ins().ushr_imm_u(rounded, 13);
    // Subnormal range (|f| < 2^-14): adding 0.5 (ulp 2^-24) rounds in the FPU to the fp16
    // subnormal grid; the low bits are then the fp16 encoding.
    let ax_f = b.ins().bitcast(types::F32, MemFlagsData::new(), ax);
    let half = b.ins().f32const(0.5);
    let sum = b.ins().fadd(ax_f, half);
    let sum_bits = b.ins().bitcast(types::I32, MemFlagsData::new(), sum);
    let sub = b.ins().iadd_imm_s(sum_bits, -0x3f00_0000);
    let is_sub = b.ins().icmp_imm_s(IntCC::UnsignedLessThan, ax, 0x3880_0000);
    let is_overflow = b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, ax, 0x477f_f000);
    let is_nan = b.ins().icmp_imm_s(IntCC::UnsignedGreaterThan, ax, 0x7f80_0000);
    let inf = b.ins().iconst(types::I32, 0x7c00);
    let nan = b.ins().iconst(types::I32, 0x7e00);
    let magnitude = b.ins().select(is_sub, sub, normal);
    let magnitude = b.ins().select(is_overflow, inf, magnitude);
    let magnitude = b.ins().select(is_nan, nan, magnitude);
    let bits = b.ins().bor(magnitude, sign);
    b.ins().ireduce(types::I16, bits)
}

/// The f32 equal to the bf16 with bits `h` (an i16).
pub fn bf16_bits_to_f32(b: &mut FunctionBuilder, h: Value) -> Value {
    let h32 = b.ins().uextend(types::I32, h);
    let bits = b.ins().ishl_imm_u(h32, 16);
    b.ins().bitcast(types::F32, MemFlagsData::new(), bits)
}

/// The bf16 bits (an i16) nearest to the f32 `f`.
pub fn f32_to_bf16_bits(b: &mut FunctionBuilder, f: Value) -> Value {
    let x = b.ins().bitcast(types::I32, MemFlagsData::new(), f);
    let high = b.ins().ushr_imm_u(x, 16);
    let lsb = b.ins().band_imm_u(high, 1);
    let biased = b.ins().iadd_imm_s(x, 0x7fff);
    let rounded = b.ins().iadd(biased, lsb);
    let normal = b.ins().ushr_imm_u(rounded, 16);
    let quiet = b.ins().bor_imm_u(high, 0x40);
    let ax = b.ins().band_imm_u(x, 0x7fff_ffff);
    let is_nan = b.ins().icmp_imm_s(IntCC::UnsignedGreaterThan, ax, 0x7f80_0000);
    let bits = b.ins().select(is_nan, quiet, normal);
    b.ins().ireduce(types::I16, bits)
}
