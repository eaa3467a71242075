//! 2D tensor descriptors ([`Features::descriptor_tiles`](crate::Features),
//! [`Features::descriptor_atomics`](crate::Features)) over the tile kernels' `M x N` arrays. Triton's descriptors need 16-byte aligned strides, so a kernel
//! that uses them draws `N` as `16k + 8` ([`Gen::aligned_columns`]), which makes `N`
//! elements of 2 bytes or more a multiple of 16 bytes (and keeps `N` a runtime `i32`);
//! elements of 1 byte never go through a descriptor. Out-of-bounds elements of a block read
//! zero and are never written, so loads may start a row before the array, stores cover the
//! edges, and the atomics of every program land on one small array smaller than a block.

use crate::dtype::Dtype;
use crate::{stored_form, BlockOrigin, Gen, Operand, Shape, Val};

impl Gen {
    /// A column count of `16k + 8` in `[lo, hi]` (at least 24).
    pub(crate) fn aligned_columns(&mut self, lo: u64, hi: u64) -> u64 {
        let k = self.rng.range(lo.max(24) / 16, hi.max(24) / 16);
        16 * k + 8
    }

    /// Whether an `M x N` array of `dtype` can be read or written through a descriptor.
    pub(crate) fn descriptor_fits(&self, dtype: Dtype) -> bool {
        self.columns_aligned && dtype.bits() >= 16
    }

    /// `x = desc.load([row, col])` of a `BM x BN` tile of the row-major `M x N` array at
    /// `pointer`, at the block `origin` names (the first row maybe shifted up, so the block
    /// also reads above the array).
    pub(crate) fn tile_descriptor_load(&mut self, dtype: Dtype, pointer: &str, origin: &BlockOrigin) {
        let desc = self.fresh("desc");
        self.line(format!(
            "{desc} = tl.make_tensor_descriptor({pointer}, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])"
        ));
        let (row, col) = match origin {
            BlockOrigin::Here(row, col) => (row.to_string(), col.to_string()),
            BlockOrigin::Loop { .. } => ("pid * BM".to_string(), "start".to_string()),
        };
        let shift = if self.rng.chance(30) { " - 1" } else { "" };
        let name = self.fresh("x");
        self.line(format!("{name} = {desc}.load([{row}{shift}, {col}])"));
        self.vals.push(Val { name, dtype, shape: Shape::Tile, bound: Gen::rand_bound(dtype), fuzzy: false });
    }

    /// Stores `value` (a `BM x BN` tile of the 2D grid's program) into a fresh row-major
    /// `M x N` output through a descriptor; `false` when its dtype cannot go through one.
    pub(crate) fn tile_descriptor_store(&mut self, stem: &str, value: &Operand, len: u64) -> bool {
        let (dtype, text) = stored_form(value);
        if !self.descriptor_fits(dtype) {
            return false;
        }
        let pointer = self.output_array(stem, dtype, len);
        let desc = self.fresh("desc");
        self.line(format!(
            "{desc} = tl.make_tensor_descriptor({pointer}, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])"
        ));
        self.line(format!("{desc}.store([pid_m * BM, pid_n * BN], {text})"));
        self.outputs.push((pointer, dtype, value.bound, value.fuzzy));
        true
    }

    /// `desc.atomic_OP([0, 0], value)` of every program's `BM x BN` tile into one zeroed
    /// `R x C` array, `R = BM - 3` rows and `C = BN - 8` columns (a multiple of 8, so 16-byte
    /// aligned for 4- and 8-byte elements): the block's lanes beyond it are dropped, the
    /// others combine the programs' values. Integer atomics are exact (wrapping sums, min,
    /// max, bitwise); a float `atomic_add` rounds in program order and is compared with a
    /// tolerance.
    pub(crate) fn tile_descriptor_atomic(&mut self, bm: u64, bn: u64, programs: u64) {
        let dtype = *self.rng.pick(&[Dtype::I32, Dtype::U32, Dtype::I64, Dtype::F32]);
        let op = match dtype {
            Dtype::F32 => "add",
            // Triton's descriptor atomic_add takes no int64
            Dtype::I64 => *self.rng.pick(&["min", "max", "and", "or", "xor"]),
            _ => *self.rng.pick(&["add", "min", "max", "and", "or", "xor"]),
        };
        let Some(value) = self.operand(Shape::Tile, !dtype.is_float()) else { return };
        if dtype.is_int() && !value.dtype.is_int() {
            return;
        }
        let (bound, fuzzy) =
            if dtype.is_float() { (value.bound * programs as f64, true) } else { (dtype.max_abs(), false) };
        if dtype.is_float() && bound > dtype.safe_float_bound() {
            return;
        }
        let (rows, cols) = (bm - 3, bn - 8);
        let pointer = self.output_array("datom", dtype, rows * cols);
        let desc = self.fresh("desc");
        self.line(format!(
            "{desc} = tl.make_tensor_descriptor({pointer}, shape=[{rows}, {cols}], strides=[{cols}, 1], \
             block_shape=[BM, BN])"
        ));
        // lanes outside the array's M x N tile hold what masked-off loads gave (0 and what
        // follows from it): they take part as every implementation computes them alike
        // the value must have the block's shape: row and column vectors are broadcast
        self.line(format!(
            "{desc}.atomic_{op}([0, 0], tl.broadcast_to(({}).to({}), (BM, BN)))",
            value.text,
            dtype.triton()
        ));
        self.outputs.push((pointer, dtype, bound, fuzzy));
    }
}
