//! fp8 arrays ([`Features::fp8_arrays`](crate::Features)): `rand` fp8 inputs (values in
//! [-1, 1) rounded to the type) loaded and widened, and exact values stored into fp8
//! outputs, compared as their 8-bit patterns (conversions round to nearest even and
//! saturate deterministically).
//!
//! fp8 conversions ([`Features::fp8_casts`](crate::Features)): exact values converted from
//! fp32, fp16 or bf16 to one of the five fp8 types and back to one of those three, which
//! hold every fp8 value, so the round trip is exact in every implementation that rounds
//! and saturates as Triton does (docs/semantics.md). One kind stays finite and becomes a
//! value the kernel computes with; the other is stored on its own, scaled to cross the
//! type's largest finite value or to fall among its subnormals, with NaN and infinities in
//! some lanes.

use crate::dtype::Dtype;
use crate::{Gen, Operand, Param, Shape, Val};

/// An fp8 type: its `tl.` name, its largest finite value, its smallest subnormal and the
/// relative step of its mantissa (rounding to nearest moves a value by at most half of it).
struct Fp8 {
    name: &'static str,
    /// The name of signatures and `tilec run` arrays.
    short: &'static str,
    max: f64,
    min_subnormal: f64,
    step: f64,
}

static FP8: [Fp8; 5] = [
    Fp8 { name: "tl.float8e4nv", short: "fp8e4nv", max: 448.0, min_subnormal: 1.0 / 512.0, step: 0.125 },
    Fp8 { name: "tl.float8e5", short: "fp8e5", max: 57344.0, min_subnormal: 1.0 / 65536.0, step: 0.25 },
    Fp8 { name: "tl.float8e4b15", short: "fp8e4b15", max: 1.75, min_subnormal: 1.0 / 131072.0, step: 0.125 },
    Fp8 { name: "tl.float8e4b8", short: "fp8e4b8", max: 240.0, min_subnormal: 1.0 / 1024.0, step: 0.125 },
    Fp8 { name: "tl.float8e5b16", short: "fp8e5b16", max: 57344.0, min_subnormal: 1.0 / 131072.0, step: 0.25 },
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

    fn pick_fp8(&mut self) -> &'static Fp8 {
        &FP8[self.rng.range(0, FP8.len() as u64 - 1) as usize]
    }

    /// `x = tl.load(p + index, mask=mask, other=0).to(WIDE)` of a fresh `rand` array of a
    /// random fp8 type, `len` lanes of `shape` under `mask`.
    pub(crate) fn fp8_load(&mut self, shape: Shape, len: u64, mask: &str) {
        let Some((_, index)) = self.layout_of(shape) else { return };
        let fp8 = self.pick_fp8();
        let name = self.fresh("f8in");
        let pointer = format!("{name}_ptr");
        self.params.push(Param::Fp8Array { name: pointer.clone(), fp8: fp8.short, init: "rand", len });
        let wide = *self.rng.pick(&WIDE);
        let value = self.fresh("x");
        // `other` is a float: Triton casts no integer to fp8
        self.line(format!("{value} = tl.load({pointer} + {index}, mask={mask}, other=0.0).to({})", wide.triton()));
        self.vals.push(Val { name: value, dtype: wide, shape, bound: 1.0, fuzzy: false });
    }

    /// Stores an exact float of `shape` (`len` lanes under `mask`) converted to a random fp8
    /// type into a fresh fp8 output array, compared bit for bit as `uint8` patterns.
    pub(crate) fn fp8_array_store(&mut self, shape: Shape, len: u64, mask: &str) {
        let Some((_, index)) = self.layout_of(shape) else { return };
        let exact: Vec<Operand> = self.operands(shape, true, true).into_iter().filter(|o| o.dtype.is_float()).collect();
        if exact.is_empty() {
            return;
        }
        let a = self.rng.pick(&exact).clone();
        let fp8 = self.pick_fp8();
        // fp64 converts to fp8 through fp32
        let source = if a.dtype == Dtype::F64 { format!("({}).to(tl.float32)", a.text) } else { a.text };
        let name = self.fresh("f8out");
        let pointer = format!("{name}_ptr");
        self.params.push(Param::Fp8Array { name: pointer.clone(), fp8: fp8.short, init: "zeros", len });
        self.line(format!("tl.store({pointer} + {index}, ({source}).to({}), mask={mask})", fp8.name));
        self.outputs.push((pointer, Dtype::U8, f64::INFINITY, false));
    }
}
