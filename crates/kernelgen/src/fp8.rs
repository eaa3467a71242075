//! fp8 conversions ([`Features::fp8_casts`](crate::Features)): exact values converted from
//! fp32, fp16 or bf16 to one of the five fp8 types and back to one of those three, which
//! hold every fp8 value, so the round trip is exact in every implementation that rounds
//! and saturates as Triton does (docs/semantics.md). One kind stays finite and becomes a
//! value the kernel computes with; the other is stored on its own, scaled to cross the
//! type's largest finite value or to fall among its subnormals, with NaN and infinities in
//! some lanes.

use crate::dtype::Dtype;
use crate::{Gen, Operand, Shape};

/// An fp8 type: its `tl.` name, its largest finite value, its smallest subnormal and the
/// relative step of its mantissa (rounding to nearest moves a value by at most half of it).
struct Fp8 {
    name: &'static str,
    max: f64,
    min_subnormal: f64,
    step: f64,
}

const FP8: [Fp8; 5] = [
    Fp8 { name: "tl.float8e4nv", max: 448.0, min_subnormal: 1.0 / 512.0, step: 0.125 },
    Fp8 { name: "tl.float8e5", max: 57344.0, min_subnormal: 1.0 / 65536.0, step: 0.25 },
    Fp8 { name: "tl.float8e4b15", max: 1.75, min_subnormal: 1.0 / 131072.0, step: 0.125 },
    Fp8 { name: "tl.float8e4b8", max: 240.0, min_subnormal: 1.0 / 1024.0, step: 0.125 },
    Fp8 { name: "tl.float8e5b16", max: 57344.0, min_subnormal: 1.0 / 131072.0, step: 0.25 },
];

/// The types fp8 converts from and to.
const WIDE: [Dtype; 3] = [Dtype::F32, Dtype::F16, Dtype::BF16];

impl Gen {
    /// `a` (an exact float) through a random fp8 type and back to fp32, fp16 or bf16.
    pub(crate) fn fp8_round_trip(&mut self, a: &Operand, shape: Shape) -> bool {
        if a.fuzzy || !a.dtype.is_float() {
            return false;
        }
        let fp8 = &FP8[self.rng.range(0, FP8.len() as u64 - 1) as usize];
        let back = *self.rng.pick(&WIDE);
        let source = if a.dtype == Dtype::F64 { format!("{}.to(tl.float32)", a.text) } else { a.text.clone() };
        let bound = (a.bound * (1.0 + fp8.step)).min(fp8.max);
        self.define(format!("{source}.to({}).to({})", fp8.name, back.triton()), back, shape, bound, false);
        true
    }

    /// Stores an exact value of `shape` (`len` lanes under `mask`), scaled around the
    /// saturation or the subnormals of a random fp8 type, with NaN, inf and -inf in some
    /// lanes, converted from fp32, fp16 or bf16 to that type and back.
    pub(crate) fn fp8_store(&mut self, shape: Shape, len: u64, mask: &str) {
        let Some((_, index)) = self.layout_of(shape) else { return };
        let exact = self.operands(shape, true, true);
        if exact.is_empty() {
            return;
        }
        let a = self.rng.pick(&exact).clone();
        let fp8 = &FP8[self.rng.range(0, FP8.len() as u64 - 1) as usize];
        let magnitude = a.bound.max(1.0);
        let scale = match self.rng.range(0, 2) {
            0 => fp8.max * 1.3 / magnitude,
            1 => fp8.min_subnormal * 8.0 / magnitude,
            _ => 1.0,
        };
        let (via, back) = (*self.rng.pick(&WIDE), *self.rng.pick(&WIDE));
        let scaled = self.fresh("s8");
        self.line(format!("{scaled} = ({}).to(tl.float32) * {scale:e}", a.text));
        self.line(format!(
            "{scaled} = tl.where(({index}) % 11 == 3, float(\"nan\"), tl.where(({index}) % 11 == 5, float(\"inf\"), \
             tl.where(({index}) % 11 == 7, -float(\"inf\"), {scaled})))"
        ));
        let text = format!("{scaled}.to({}).to({}).to({})", via.triton(), fp8.name, back.triton());
        // NaN lanes: the bound is unknown, the output exact
        let value = Operand { text, dtype: back, bound: f64::INFINITY, fuzzy: false };
        self.store("f8", &value, len, |p| format!("{p} + {index}"), mask);
    }
}
