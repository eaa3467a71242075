//! The elements of its pointer arguments that a launch surely touches: for a launch over a
//! grid with known scalar arguments, each unmasked load or store in the kernel's top-level
//! region whose address is a pointer parameter plus an affine offset, with the first and
//! last element it reaches over all programs and lanes.
//!
//! Offsets are affine forms `c + Σ a·pid + Σ b·i` over the program ids (`0..grid`) and the
//! lane indices of each dimension of the access (`0..size`), built from constants, program
//! ids, the grid's size, ranges, the known scalar arguments, splats, broadcasts, added
//! dimensions, sums, differences, products by a constant and integer widenings.
//!
//! Invariant (soundness): every [`Touched`] range is reached. Every program runs, an op of
//! the top-level region runs in each (once the ops before it end), an unmasked access
//! touches every lane, and the variables of a form are independent, so the extremes of the
//! form over the box of its variables are attained; a form any of whose values might wrap
//! in its integer type is given up. An access whose offset is anything else is not
//! reported: this finds what is certain, not everything.

use crate::ir::{BinaryOp, CastOp, Constant, Elem, Function, OpKind, Value, ValueDef};
use tilec_diagnostics::Span;

/// A range of elements of a pointer parameter that a launch touches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Touched {
    /// The pointer parameter's index in [`Function::params`].
    pub param: usize,
    /// The first and last element offsets touched (the first may be negative).
    pub first: i64,
    pub last: i64,
    /// A program that touches `last`, as (x, y, z).
    pub program_of_last: [i64; 3],
    /// Whether the access is a store (else a load).
    pub write: bool,
    /// The load or store.
    pub span: Span,
}

/// An affine form over the program ids and the lane indices of the value's dimensions.
#[derive(Clone, Debug, PartialEq)]
struct Affine {
    constant: i128,
    pids: [i128; 3],
    lanes: Vec<i128>,
}

impl Affine {
    fn constant(c: i128, rank: usize) -> Affine {
        Affine { constant: c, pids: [0; 3], lanes: vec![0; rank] }
    }

    fn is_constant(&self) -> bool {
        self.pids == [0; 3] && self.lanes.iter().all(|&b| b == 0)
    }

    fn combine(&self, other: &Affine, sign: i128) -> Option<Affine> {
        if self.lanes.len() != other.lanes.len() {
            return None;
        }
        let add = |a: i128, b: i128| a.checked_add(b.checked_mul(sign)?);
        let [p0, p1, p2] = [0, 1, 2].map(|k| add(self.pids[k], other.pids[k]));
        Some(Affine {
            constant: add(self.constant, other.constant)?,
            pids: [p0?, p1?, p2?],
            lanes: self.lanes.iter().zip(&other.lanes).map(|(&a, &b)| add(a, b)).collect::<Option<_>>()?,
        })
    }

    fn scale(&self, factor: i128) -> Option<Affine> {
        let [p0, p1, p2] = self.pids.map(|a| a.checked_mul(factor));
        Some(Affine {
            constant: self.constant.checked_mul(factor)?,
            pids: [p0?, p1?, p2?],
            lanes: self.lanes.iter().map(|b| b.checked_mul(factor)).collect::<Option<_>>()?,
        })
    }

    /// The least and greatest value over pids in `0..grid` and lanes in `0..shape`, with
    /// the program ids where the greatest is reached.
    fn extremes(&self, grid: [u32; 3], shape: &[u32]) -> Option<(i128, i128, [i64; 3])> {
        let (mut low, mut high) = (self.constant, self.constant);
        let mut at = [0i64; 3];
        let terms = self.pids.iter().zip(grid).map(|(&a, g)| (a, i128::from(g) - 1));
        for (k, (a, top)) in terms.enumerate() {
            let v = a.checked_mul(top)?;
            if v > 0 {
                high = high.checked_add(v)?;
                at[k] = top as i64;
            } else {
                low = low.checked_add(v)?;
            }
        }
        for (&b, &size) in self.lanes.iter().zip(shape) {
            let v = b.checked_mul(i128::from(size) - 1)?;
            if v > 0 {
                high = high.checked_add(v)?;
            } else {
                low = low.checked_add(v)?;
            }
        }
        Some((low, high, at))
    }
}

/// The ranges the unmasked loads and stores of `f`'s top-level region touch over `grid`;
/// `scalar(i)` is the value of parameter `i` when it is an integer scalar argument.
pub fn surely_touched(f: &Function, grid: [u32; 3], scalar: &dyn Fn(usize) -> Option<i64>) -> Vec<Touched> {
    let params = f.param_values();
    let mut touched = Vec::new();
    for &op_id in &f.regions[f.body].ops {
        let op = &f.ops[op_id];
        let (ptr, write) = match &op.kind {
            OpKind::Load { ptr, mask: None, .. } => (*ptr, false),
            OpKind::Store { ptr, mask: None, .. } => (*ptr, true),
            _ => continue,
        };
        let analysis = Analysis { f, grid, params, scalar };
        let Some((param, offset)) = analysis.pointer(ptr) else { continue };
        let Some((first, last, program_of_last)) = offset.extremes(grid, &f.ty(ptr).shape) else { continue };
        let (Ok(first), Ok(last)) = (i64::try_from(first), i64::try_from(last)) else { continue };
        touched.push(Touched { param, first, last, program_of_last, write, span: op.span });
    }
    touched
}

struct Analysis<'a> {
    f: &'a Function,
    grid: [u32; 3],
    params: &'a [Value],
    scalar: &'a dyn Fn(usize) -> Option<i64>,
}

impl Analysis<'_> {
    /// `v` as a pointer parameter plus an affine element offset.
    fn pointer(&self, v: Value) -> Option<(usize, Affine)> {
        let rank = self.f.ty(v).shape.len();
        match self.f.values[v].def {
            ValueDef::Param(..) => {
                let index = self.params.iter().position(|&p| p == v)?;
                Some((index, Affine::constant(0, rank)))
            }
            ValueDef::Result(op, _) => match &self.f.ops[op].kind {
                OpKind::AddPtr { ptr, offset } => {
                    let (param, base) = self.pointer(*ptr)?;
                    Some((param, base.combine(&self.integer(*offset)?, 1)?))
                }
                OpKind::Splat(x) => {
                    let (param, base) = self.pointer(*x)?;
                    base.lanes.is_empty().then(|| (param, Affine { lanes: vec![0; rank], ..base }))
                }
                OpKind::Broadcast(x) => {
                    let (param, base) = self.pointer(*x)?;
                    Some((param, self.broadcast(*x, base)))
                }
                OpKind::ExpandDims { value, axis } => {
                    let (param, base) = self.pointer(*value)?;
                    Some((param, expand(base, *axis)?))
                }
                _ => None,
            },
        }
    }

    /// `v` as an affine form whose every value fits its integer type.
    fn integer(&self, v: Value) -> Option<Affine> {
        let ty = self.f.ty(v);
        let Elem::Scalar(st) = ty.elem else { return None };
        if !st.is_int() || st.is_bool() {
            return None;
        }
        let rank = ty.shape.len();
        let form = match self.f.values[v].def {
            ValueDef::Param(..) => {
                let index = self.params.iter().position(|&p| p == v)?;
                Affine::constant(i128::from((self.scalar)(index)?), rank)
            }
            ValueDef::Result(op, _) => match &self.f.ops[op].kind {
                OpKind::Constant(Constant::Int(c)) => Affine::constant(i128::from(*c), rank),
                OpKind::ProgramId(axis) => {
                    let mut form = Affine::constant(0, rank);
                    form.pids[*axis as usize] = 1;
                    form
                }
                OpKind::NumPrograms(axis) => Affine::constant(i128::from(self.grid[*axis as usize]), rank),
                OpKind::MakeRange { start, .. } => {
                    let mut form = Affine::constant(i128::from(*start), 1);
                    form.lanes[0] = 1;
                    form
                }
                OpKind::Splat(x) => {
                    let x = self.integer(*x)?;
                    if !x.lanes.is_empty() {
                        return None;
                    }
                    Affine { lanes: vec![0; rank], ..x }
                }
                OpKind::Broadcast(x) => {
                    let form = self.integer(*x)?;
                    self.broadcast(*x, form)
                }
                OpKind::ExpandDims { value, axis } => expand(self.integer(*value)?, *axis)?,
                OpKind::Binary { op: BinaryOp::Add, lhs, rhs } => {
                    self.integer(*lhs)?.combine(&self.integer(*rhs)?, 1)?
                }
                OpKind::Binary { op: BinaryOp::Sub, lhs, rhs } => {
                    self.integer(*lhs)?.combine(&self.integer(*rhs)?, -1)?
                }
                OpKind::Binary { op: BinaryOp::Mul, lhs, rhs } => {
                    let (l, r) = (self.integer(*lhs)?, self.integer(*rhs)?);
                    match (l.is_constant(), r.is_constant()) {
                        (_, true) => l.scale(r.constant)?,
                        (true, false) => r.scale(l.constant)?,
                        (false, false) => return None,
                    }
                }
                // A signed widening keeps the value (its operand's values fit their type).
                OpKind::Cast { op: CastOp::IntExt, value } => {
                    let Elem::Scalar(from) = self.f.ty(*value).elem else { return None };
                    if !from.is_signed_int() {
                        return None;
                    }
                    self.integer(*value)?
                }
                _ => return None,
            },
        };
        // Give up on a form some of whose values would wrap in the type.
        let (low, high, _) = form.extremes(self.grid, &ty.shape)?;
        let bits = st.bits();
        let (min, max) = if st.is_signed_int() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        (low >= min && high <= max).then_some(form)
    }

    /// `form` of `operand` broadcast to a larger shape: a stretched dimension's lanes no
    /// longer depend on its index (the operand's size there is 1).
    fn broadcast(&self, operand: Value, mut form: Affine) -> Affine {
        for (b, &size) in form.lanes.iter_mut().zip(&self.f.ty(operand).shape) {
            if size == 1 {
                *b = 0;
            }
        }
        form
    }
}

fn expand(mut form: Affine, axis: u32) -> Option<Affine> {
    let axis = axis as usize;
    if axis > form.lanes.len() {
        return None;
    }
    form.lanes.insert(axis, 0);
    Some(form)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touched(text: &str, grid: [u32; 3], scalars: &[i64]) -> Vec<(usize, i64, i64, [i64; 3], bool)> {
        let f = crate::parse_function(text).unwrap_or_else(|e| panic!("{e:?}"));
        let scalar = |i: usize| scalars.get(i).copied();
        surely_touched(&f, grid, &scalar)
            .into_iter()
            .map(|t| (t.param, t.first, t.last, t.program_of_last, t.write))
            .collect()
    }

    /// A 2D tile at `pid_y·stride + pid_x·16 + row·stride + column`, read and written
    /// unmasked: the stride comes from the scalar argument, the extremes from the last
    /// program and lane.
    #[test]
    fn affine_offsets_of_programs_lanes_and_scalars() {
        let text = "tt.func @k(%x: !tt.ptr<f32>, %stride: i32) {
  %0 = tt.get_program_id x : i32
  %1 = tt.get_program_id y : i32
  %2 = arith.constant 16 : i32
  %3 = arith.muli %0, %2 : i32
  %4 = arith.muli %1, %stride : i32
  %5 = arith.addi %3, %4 : i32
  %6 = tt.make_range {start = 0, end = 8} : tensor<8xi32>
  %7 = tt.expand_dims %6 {axis = 1} : tensor<8xi32> -> tensor<8x1xi32>
  %8 = tt.splat %stride : i32 -> tensor<8x1xi32>
  %9 = arith.muli %7, %8 : tensor<8x1xi32>
  %10 = tt.make_range {start = 0, end = 16} : tensor<16xi32>
  %11 = tt.expand_dims %10 {axis = 0} : tensor<16xi32> -> tensor<1x16xi32>
  %12 = tt.broadcast %9 : tensor<8x1xi32> -> tensor<8x16xi32>
  %13 = tt.broadcast %11 : tensor<1x16xi32> -> tensor<8x16xi32>
  %14 = arith.addi %12, %13 : tensor<8x16xi32>
  %15 = tt.splat %5 : i32 -> tensor<8x16xi32>
  %16 = arith.addi %14, %15 : tensor<8x16xi32>
  %17 = tt.splat %x : !tt.ptr<f32> -> tensor<8x16x!tt.ptr<f32>>
  %18 = tt.addptr %17, %16 : tensor<8x16x!tt.ptr<f32>>, tensor<8x16xi32>
  %19 = tt.load %18 : tensor<8x16x!tt.ptr<f32>>
  tt.store %18, %19 : tensor<8x16x!tt.ptr<f32>>
  tt.return
}";
        // Last: pid (3, 2): 3·16 + 2·100 + 7·100 + 15 = 963.
        let want = (0, 0, 963, [3, 2, 0], false);
        assert_eq!(touched(text, [4, 3, 1], &[0, 100]), [want, (0, 0, 963, [3, 2, 0], true)]);
        assert!(touched(text, [4, 3, 1], &[0]).is_empty(), "an unknown stride: nothing is certain");
        // The offset wraps in i32 for some program: given up.
        assert!(touched(text, [4, 3, 1], &[0, 1 << 30]).is_empty());
    }

    /// Masked accesses, accesses inside regions and offsets that are not affine are not
    /// reported.
    #[test]
    fn uncertain_accesses_are_not_reported() {
        let text = "tt.func @k(%x: !tt.ptr<f32>, %n: i32) {
  %0 = tt.get_program_id x : i32
  %1 = tt.make_range {start = 0, end = 8} : tensor<8xi32>
  %2 = tt.splat %n : i32 -> tensor<8xi32>
  %3 = arith.remsi %1, %2 : tensor<8xi32>
  %4 = tt.splat %x : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %5 = tt.addptr %4, %3 : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  %6 = tt.load %5 : tensor<8x!tt.ptr<f32>>
  %7 = tt.addptr %4, %1 : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  %8 = arith.cmpi slt, %1, %2 : tensor<8xi32>
  tt.store %7, %6, %8 : tensor<8x!tt.ptr<f32>>
  %9 = arith.constant 0 : i32
  %10 = arith.cmpi sgt, %0, %9 : i32
  scf.if %10 {
    tt.store %7, %6 : tensor<8x!tt.ptr<f32>>
    scf.yield
  } else {
    scf.yield
  }
  tt.return
}";
        assert!(touched(text, [4, 1, 1], &[0, 8]).is_empty());
    }
}
