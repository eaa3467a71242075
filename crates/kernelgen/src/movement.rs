//! Data movement ([`Features::data_movement`](crate::Features)): `tl.split`, `tl.join`,
//! `tl.interleave`, `tl.permute`, `tl.trans`, `tl.reshape` and `tl.flip` chains that permute
//! a value's lanes and give it its own shape back, so the result is one more value of that
//! shape, with the same dtype, bound and fuzziness; and whole-block reductions of a
//! `tl.reshape(..., can_reorder=True)`, used only where the order cannot change the result
//! (integer sums, max and min; float sums are fuzzy anyway).

use crate::dtype::{minmax_type, sum_type};
use crate::{Gen, Operand, Shape, Val};

impl Gen {
    /// A permutation of the lanes of `a` (a value of exactly `shape`); false when `shape`
    /// has no known layout.
    pub(crate) fn movement(&mut self, a: &Operand, shape: Shape) -> bool {
        let Some((lengths, _)) = self.layout_of(shape) else { return false };
        let x = a.text.clone();
        let text = match *lengths.as_slice() {
            [n] => match self.rng.range(0, 3) {
                0 => format!("tl.flip({x}, 0)"),
                1 => {
                    // neighbouring lanes swapped
                    let (lo, hi) = (self.fresh("lo"), self.fresh("hi"));
                    self.line(format!("{lo}, {hi} = tl.split(tl.reshape({x}, ({}, 2)))", n / 2));
                    if self.rng.chance(50) {
                        format!("tl.interleave({hi}, {lo})")
                    } else {
                        format!("tl.reshape(tl.join({hi}, {lo}), ({n},))")
                    }
                }
                2 => {
                    let p = *self.rng.pick(&[2u64, 4, 8]);
                    format!("tl.reshape(tl.trans(tl.reshape({x}, ({p}, {}))), ({n},))", n / p)
                }
                _ => format!("tl.reshape(tl.permute(tl.reshape({x}, (2, 2, {})), (2, 0, 1)), ({n},))", n / 4),
            },
            [m, n] => match self.rng.range(0, 4) {
                0 => format!("tl.flip({x}, {})", self.rng.range(0, 1)),
                1 if m == n => format!("tl.trans({x})"),
                1 => format!("tl.reshape(tl.permute({x}, (1, 0)), ({m}, {n}))"),
                2 => {
                    // neighbouring columns swapped
                    let (lo, hi) = (self.fresh("lo"), self.fresh("hi"));
                    self.line(format!("{lo}, {hi} = tl.split(tl.reshape({x}, ({m}, {}, 2)))", n / 2));
                    format!("tl.interleave({hi}, {lo})")
                }
                3 => {
                    // neighbouring rows swapped
                    let (lo, hi) = (self.fresh("lo"), self.fresh("hi"));
                    self.line(format!(
                        "{lo}, {hi} = tl.split(tl.permute(tl.reshape({x}, ({}, 2, {n})), (0, 2, 1)))",
                        m / 2
                    ));
                    format!("tl.reshape(tl.permute(tl.join({hi}, {lo}), (0, 2, 1)), ({m}, {n}))")
                }
                _ => format!("tl.reshape(tl.permute(tl.reshape({x}, ({m}, 2, {})), (0, 2, 1)), ({m}, {n}))", n / 2),
            },
            _ => return false,
        };
        self.define(text, a.dtype, shape, a.bound, a.fuzzy);
        true
    }

    /// `tl.sum`, `tl.max` or `tl.min` of all `count` lanes of `value` (1D) through a
    /// `tl.reshape(..., can_reorder=True)`: a scalar whatever order the reshape gives the
    /// lanes. `None` when a float sum would leave the safe range.
    pub(crate) fn reordered_reduction(&mut self, value: &Operand, count: u64) -> Option<Val> {
        let kind = *self.rng.pick(&["sum", "max", "min"]);
        let (dtype, bound) = match kind {
            "sum" => (sum_type(value.dtype), value.bound * count as f64),
            _ => (minmax_type(value.dtype), value.bound),
        };
        if dtype.is_float() && bound > dtype.safe_float_bound() {
            return None;
        }
        let fuzzy = value.fuzzy || (kind == "sum" && dtype.is_float());
        if kind == "sum" {
            self.note_narrow_accumulation(dtype, count as f64);
        }
        let text = format!("tl.{kind}(tl.reshape({}, ({}, 4), can_reorder=True))", value.text, count / 4);
        Some(self.define(text, dtype, Shape::Scalar, bound, fuzzy))
    }
}
