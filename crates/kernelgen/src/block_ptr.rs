//! Block pointers ([`Features::block_pointers`](crate::Features)) and tensor descriptors
//! ([`Features::tensor_descriptors`](crate::Features)). Array sizes are never multiples of
//! the block sizes, so the last blocks cross the arrays' ends and `boundary_check` decides
//! what is read and written: on every dimension, or on the one that crosses its edge when
//! the array holds a whole number of blocks along the other ([`Pad`]).
//! Some blocks are shifted to start before the first row or element too.
//! `padding_option="nan"` pads float blocks with NaN, which the kernel turns into 2.0 (no
//! loaded value is that large), so a wrong padding shows in the outputs.

use crate::dtype::Dtype;
use crate::{stored_form, Gen, Operand, Shape, Val};

/// The dimension of a 2D grid's array that holds a whole number of blocks, so that a block
/// pointer needs no `boundary_check` along it ([`Features::partial_boundary_check`](crate::Features)):
/// its extent is the grid's programs along it times the block size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pad {
    Rows,
    Cols,
}

impl Pad {
    /// The padded extent.
    pub(crate) fn extent(self) -> &'static str {
        match self {
            Pad::Rows => "tl.num_programs(0) * BM",
            Pad::Cols => "tl.num_programs(1) * BN",
        }
    }
}

/// Where the block pointers of [`Gen::tile_block_load`] start.
pub(crate) enum BlockOrigin {
    /// Made where the load is, at these offsets (a row and a column), maybe shifted up and
    /// right so that the block also crosses the array's first row.
    Here(&'static str, &'static str),
    /// Made before the loop whose header is body line `header` (at the loop's indent
    /// minus one), at `offsets`, and advanced by `step` at the end of each trip.
    Loop { header: usize, offsets: &'static str, step: &'static str },
}

impl Gen {
    /// `x = tl.load(block, boundary_check=..., padding_option=...)` of a `rand` array of
    /// `dtype`: NaN padding (floats only) is replaced by 2.0.
    fn load_block(&mut self, dtype: Dtype, shape: Shape, block: &str, check: &str) -> Val {
        let name = self.fresh("x");
        let nan = dtype.is_float() && self.rng.chance(40);
        let padding = if nan { "nan" } else { "zero" };
        self.line(format!("{name} = tl.load({block}, boundary_check={check}, padding_option=\"{padding}\")"));
        let mut bound = Gen::rand_bound(dtype);
        if nan {
            self.line(format!("{name} = tl.where({name} != {name}, 2.0, {name})"));
            bound = 2.0;
        }
        let val = Val { name, dtype, shape, bound, fuzzy: false };
        self.vals.push(val.clone());
        val
    }

    /// Loads the `M x N` array at `pointer` (row-major or column-major) as a `BM x BN` tile
    /// through a block pointer made at `origin`; returns the line that advances it when the
    /// origin is a loop (to end the loop's body with). With `pad`, the array has a whole
    /// number of blocks along that dimension (see [`Pad`]) and only the other is checked.
    pub(crate) fn tile_block_load(
        &mut self,
        dtype: Dtype,
        pointer: &str,
        row_major: bool,
        origin: &mut BlockOrigin,
        pad: Option<Pad>,
    ) -> Option<String> {
        let block = self.fresh("bp");
        let (rows, cols) = match pad {
            Some(Pad::Rows) => (Pad::Rows.extent(), "N"),
            Some(Pad::Cols) => ("M", Pad::Cols.extent()),
            None => ("M", "N"),
        };
        let (strides, order) =
            if row_major { (format!("({cols}, 1)"), "(1, 0)") } else { (format!("(1, {rows})"), "(0, 1)") };
        let check = match pad {
            Some(Pad::Rows) => "(1,)",
            Some(Pad::Cols) => "(0,)",
            None => *self.rng.pick(&["(0, 1)", "(1, 0)"]),
        };
        let make = |offsets: &str| {
            format!(
                "{block} = tl.make_block_ptr({pointer}, shape=({rows}, {cols}), strides={strides}, offsets={offsets}, \
                 block_shape=(BM, BN), order={order})"
            )
        };
        let advance = match origin {
            BlockOrigin::Here(row, col) => {
                // shifted up (and right), the block crosses the first row; only a checked
                // dimension is shifted
                let offsets = if self.rng.chance(30) {
                    match pad {
                        None => format!("({row} - 1, {col} + 3)"),
                        Some(Pad::Rows) => format!("({row}, {col} + 3)"),
                        Some(Pad::Cols) => format!("({row} - 1, {col})"),
                    }
                } else {
                    format!("({row}, {col})")
                };
                self.line(make(&offsets));
                None
            }
            BlockOrigin::Loop { header, offsets, step } => {
                let indent = "    ".repeat(self.indent - 1);
                self.body.insert(*header, format!("{indent}{}", make(offsets)));
                *header += 1;
                Some(format!("{block} = tl.advance({block}, {step})"))
            }
        };
        self.load_block(dtype, Shape::Tile, &block, check);
        advance
    }

    /// `x = tl.load(...)` of `[BLOCK]` elements of the `n`-element array at `pointer`
    /// through a 1D block pointer.
    pub(crate) fn block_block_load(&mut self, dtype: Dtype, pointer: &str) {
        let make = format!(
            "tl.make_block_ptr({pointer}, shape=(n,), strides=(1,), offsets=(pid * BLOCK,), block_shape=(BLOCK,), order=(0,))"
        );
        self.load_block(dtype, Shape::Block, &make, "(0,)");
    }

    /// Stores `value` (a `BM x BN` tile of the 2D grid's program) into a fresh row-major
    /// `M x N` output through a block pointer with both dimensions checked.
    pub(crate) fn tile_block_store(&mut self, stem: &str, value: &Operand, len: u64) {
        let (dtype, text) = stored_form(value);
        let pointer = self.output_array(stem, dtype, len);
        let block = self.fresh("bp");
        self.line(format!(
            "{block} = tl.make_block_ptr({pointer}, shape=(M, N), strides=(N, 1), offsets=(pid_m * BM, pid_n * BN), \
             block_shape=(BM, BN), order=(1, 0))"
        ));
        let check = *self.rng.pick(&["(0, 1)", "(1, 0)"]);
        self.line(format!("tl.store({block}, {text}, boundary_check={check})"));
        self.outputs.push((pointer, dtype, value.bound, value.fuzzy));
    }

    /// The `A`/`B` loads of the blocked `tl.dot` through block pointers made before the K
    /// loop (whose header is body line `header`) and advanced along K.
    pub(crate) fn dot_block_loads(&mut self, a: &str, b: &str, header: usize) {
        let indent = "    ".repeat(self.indent - 1);
        self.body.insert(
            header,
            format!(
                "{indent}a_bp = tl.make_block_ptr({a}, shape=(M, K), strides=(K, 1), offsets=(pid_m * BM, 0), \
                 block_shape=(BM, BK), order=(1, 0))"
            ),
        );
        self.body.insert(
            header + 1,
            format!(
                "{indent}b_bp = tl.make_block_ptr({b}, shape=(K, N), strides=(N, 1), offsets=(0, pid_n * BN), \
                 block_shape=(BK, BN), order=(1, 0))"
            ),
        );
        self.line("a = tl.load(a_bp, boundary_check=(0, 1), padding_option=\"zero\")");
        self.line("b = tl.load(b_bp, boundary_check=(1, 0), padding_option=\"zero\")");
    }

    /// `tl.make_tensor_descriptor` of the row (`Shape::Rows`, `M` elements) or column
    /// (`Shape::Cols`, `N` elements) vector at `pointer` of the 2D grid, in blocks of `BM` or
    /// `BN`, loaded at the program's block, maybe shifted back by 16 bytes: lanes outside the
    /// vector read zero.
    pub(crate) fn descriptor_load(&mut self, dtype: Dtype, shape: Shape, pointer: &str) {
        let (stem, extent, block, program) = match shape {
            Shape::Rows => ("r", "M", "BM", "pid_m"),
            _ => ("c", "N", "BN", "pid_n"),
        };
        let desc = self.fresh("desc");
        self.line(format!(
            "{desc} = tl.make_tensor_descriptor({pointer}, shape=[{extent}], strides=[1], block_shape=[{block}])"
        ));
        let name = self.fresh(stem);
        // shifted back by 16 bytes (Triton requires offsets of 16-byte multiples), the first
        // program's block starts before the vector
        let shift = if self.rng.chance(30) { format!(" - {}", (128 / dtype.bits()).max(1)) } else { String::new() };
        self.line(format!("{name} = {desc}.load([{program} * {block}{shift}])"));
        self.vals.push(Val { name, dtype, shape, bound: Gen::rand_bound(dtype), fuzzy: false });
    }
}
