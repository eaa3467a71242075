//! Tuple reductions and scans ([`Features::tuple_combines`](crate::Features)): `tl.reduce`
//! and `tl.associative_scan` of tuples of tensors with `@triton.jit` combine functions that
//! return tuples. Exact where the combine is exact in every order (first arg-max/arg-min
//! pairs of exact values, integer sums with counts, an integer affine recurrence, which is
//! associative but not commutative); Welford's mean and variance and float sums are fuzzy.

use crate::dtype::Dtype;
use crate::{Gen, Operand, Shape, Val};

/// The pair keeping the larger value, the first (smaller index) of equal ones.
const FIRST_MAX: &str = "def _first_max(v1, i1, v2, i2):
    keep = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(keep, v1, v2), tl.where(keep, i1, i2)
";

/// The pair keeping the smaller value, the first of equal ones.
const FIRST_MIN: &str = "def _first_min(v1, i1, v2, i2):
    keep = (v1 < v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(keep, v1, v2), tl.where(keep, i1, i2)
";

/// Welford's merge of two (mean, m2, weight) summaries; weights are never zero here.
const WELFORD: &str = "def _welford(mean_a, m2_a, w_a, mean_b, m2_b, w_b):
    w = w_a + w_b
    delta = mean_b - mean_a
    frac = w_b / w
    return mean_a + delta * frac, m2_a + m2_b + delta * delta * w_a * frac, w
";

const SUM_COUNT: &str = "def _sum_count(s1, c1, s2, c2):
    return s1 + s2, c1 + c2
";

/// The composition of `x -> x * a1 + b1` then `x -> x * a2 + b2`.
const AFFINE: &str = "def _affine(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2
";

impl Gen {
    /// The position of each lane along `axis` of `shape`, as an `int32` tensor of that shape.
    fn lane_position(&self, shape: Shape, axis: u32) -> Option<String> {
        let (lengths, _) = self.layout_of(shape)?;
        match (lengths.as_slice(), axis) {
            ([n], 0) => Some(format!("tl.arange(0, {n})")),
            ([m, n], 0) => Some(format!("tl.broadcast_to(tl.arange(0, {m})[:, None], ({m}, {n}))")),
            ([m, n], 1) => Some(format!("tl.broadcast_to(tl.arange(0, {n})[None, :], ({m}, {n}))")),
            _ => None,
        }
    }

    /// Adds the combine function `source` (once) to the file's helpers; returns its name.
    fn helper(&mut self, source: &'static str) -> &'static str {
        if !self.helpers.contains(&source) {
            self.helpers.push(source);
        }
        let name = source.trim_start_matches("def ");
        &name[..name.find('(').unwrap_or(name.len())]
    }

    /// `_first_max` or `_first_min`, added to the helpers.
    fn first_pair(&mut self) -> &'static str {
        let source = if self.rng.chance(50) { FIRST_MAX } else { FIRST_MIN };
        self.helper(source)
    }

    /// `names = call` where the call returns one tensor per name; each becomes a value of
    /// `shape` with its (dtype, bound, fuzzy).
    fn define_tuple(&mut self, stems: &[&str], call: String, shape: Shape, kinds: &[(Dtype, f64, bool)]) -> Vec<Val> {
        let names: Vec<String> = stems.iter().map(|s| self.fresh(s)).collect();
        self.line(format!("{} = {call}", names.join(", ")));
        names
            .into_iter()
            .zip(kinds)
            .map(|(name, &(dtype, bound, fuzzy))| {
                let bound = if dtype.is_unsigned() { dtype.max_abs() } else { bound.min(dtype.max_abs()) };
                let val = Val { name, dtype, shape, bound, fuzzy };
                self.vals.push(val.clone());
                val
            })
            .collect()
    }

    /// A tuple `tl.reduce` of `value` (of `shape`) along `axis` (`count` lanes) to
    /// `result_shape`: every result is a value. Empty when the drawn kind does not fit.
    pub(crate) fn tuple_reduction(
        &mut self,
        value: &Operand,
        shape: Shape,
        axis: u32,
        count: u64,
        result_shape: Shape,
    ) -> Vec<Val> {
        let Some(position) = self.lane_position(shape, axis) else { return Vec::new() };
        let v = &value.text;
        let counted = count as f64;
        match self.rng.range(0, 3) {
            0 | 1 if !value.fuzzy => {
                let combine = self.first_pair();
                let call = format!("tl.reduce(({v}, {position}), {axis}, {combine})");
                let kinds = [(value.dtype, value.bound, false), (Dtype::I32, counted, false)];
                self.define_tuple(&["rv", "ri"], call, result_shape, &kinds)
            }
            2 if value.bound <= 1000.0 => {
                let combine = self.helper(WELFORD);
                let xf = format!("({v}).to(tl.float32)");
                let call = format!(
                    "tl.reduce(({xf}, tl.zeros_like({xf}), tl.zeros_like({xf}) + 1.0), axis={axis}, combine_fn={combine})"
                );
                let m2 = 4.0 * counted * value.bound * value.bound;
                let kinds = [(Dtype::F32, value.bound, true), (Dtype::F32, m2, true), (Dtype::F32, counted, false)];
                self.define_tuple(&["mean", "m2", "w"], call, result_shape, &kinds)
            }
            _ => {
                // an integer sum wraps in the value's own dtype: a tuple reduction does not widen
                let (dtype, bound) = if value.dtype.is_int() {
                    (value.dtype, value.dtype.max_abs())
                } else if value.bound * counted <= Dtype::F32.safe_float_bound() {
                    (Dtype::F32, value.bound * counted)
                } else {
                    return Vec::new();
                };
                let x = if value.dtype.is_int() { v.clone() } else { format!("({v}).to(tl.float32)") };
                // a fuzzy value's sign is not known exactly: then every lane counts
                let counted_lanes = if value.fuzzy { format!("{position} >= 0") } else { format!("{v} > 0") };
                let combine = self.helper(SUM_COUNT);
                let call = format!("tl.reduce(({x}, ({counted_lanes}).to(tl.int32)), {axis}, {combine})");
                let kinds = [(dtype, bound, value.fuzzy || dtype.is_float()), (Dtype::I32, counted, false)];
                self.define_tuple(&["rs", "rc"], call, result_shape, &kinds)
            }
        }
    }

    /// A tuple `tl.associative_scan` of `a` (a value of exactly `shape`) along a random
    /// axis, maybe reversed: a running first maximum or minimum with its position, an
    /// integer affine recurrence, or a running integer sum with a count.
    pub(crate) fn tuple_scan(&mut self, a: &Operand, shape: Shape) -> bool {
        let Some((lengths, _)) = self.layout_of(shape) else { return false };
        let axis = self.rng.range(0, lengths.len() as u64 - 1) as u32;
        let Some(position) = self.lane_position(shape, axis) else { return false };
        let len = lengths[axis as usize] as f64;
        let reverse = if self.rng.chance(30) { ", reverse=True" } else { "" };
        let x = &a.text;
        match self.rng.range(0, 2) {
            0 if !a.fuzzy => {
                let combine = self.first_pair();
                let call = format!("tl.associative_scan(({x}, {position}), {axis}, {combine}{reverse})");
                let kinds = [(a.dtype, a.bound, false), (Dtype::I32, len, false)];
                self.define_tuple(&["sv", "si"], call, shape, &kinds);
            }
            1 if a.dtype.is_int() => {
                let combine = self.helper(AFFINE);
                let call = format!(
                    "tl.associative_scan(((({x}) & 3).to(tl.int32) - 1, ({x}).to(tl.int32)), {axis}, {combine}{reverse})"
                );
                let full = Dtype::I32.max_abs();
                self.define_tuple(&["sa", "sb"], call, shape, &[(Dtype::I32, full, false), (Dtype::I32, full, false)]);
            }
            2 if a.dtype.is_int() => {
                let combine = self.helper(SUM_COUNT);
                let call = format!("tl.associative_scan(({x}, ({x} > 0).to(tl.int32)), {axis}, {combine}{reverse})");
                let kinds = [(a.dtype, a.dtype.max_abs(), false), (Dtype::I32, len, false)];
                self.define_tuple(&["ss", "sc"], call, shape, &kinds);
            }
            _ => return false,
        }
        true
    }
}
