//! Random well-typed Triton kernels for differential testing and fuzzing.
//!
//! [`generate`] turns a seed into a [`Kernel`]: Triton source with the fixture header lines
//! (`# tilec:` and `# tilec-run:`), the `tilec run` arguments, and how each output array is
//! compared. Kernels come from three templates — 1D blocks (contiguous, strided, gathered
//! loads, bijective scatters, a `for` or runtime `while` loop with a loop-carried tensor,
//! a reduction per program, atomics into a few slots), 2D tiles (row- and column-major
//! loads, broadcast row/column vectors, reductions along both axes, atomics, or a loop over
//! column blocks carrying a per-row accumulator) and a blocked `tl.dot` with a K loop —
//! filled with random elementwise statements over mixed dtypes, scans (`tl.cumsum`,
//! `tl.cumprod`, either direction) and Philox random numbers (`tl.rand`, `tl.randint`).
//!
//! Invariant: every generated kernel is free of undefined behaviour, so any difference
//! between two correct implementations is a bug: integer divisors are `(d & 7) + 1` or
//! `(d & 7) - 8` (the latter only when the dividend cannot be the type's minimum), float
//! divisors `|d| + 1`, shift amounts are constants below the width or tensors masked below
//! it, every memory access is in bounds under its mask (gathers index `[0, n)`, scatters are
//! bijections, atomics hit `index % SLOTS`), float→int casts clamp to the target's range
//! first (and NaN cannot arise: float values stay far below overflow; float `cumprod` only
//! multiplies values at most 1 in magnitude). Values whose rounding depends on evaluation
//! order (float reductions and scans, float dots, float `atomic_add`, transcendental math)
//! are *fuzzy*: they never feed comparisons, integer casts or arg-reductions, and outputs
//! derived from them are compared with a tolerance. Integer atomics and the old values they
//! return are exact: runs use one thread, so updates land in grid order, then lane order.

mod block_ptr;
mod descriptor;
mod dtype;
mod fp8;
mod movement;
pub mod mutate;
mod rng;
mod tuples;

pub use dtype::{promote, promote_div, Dtype, NUMERIC};
pub use rng::Rng;

use block_ptr::{BlockOrigin, Pad};
use dtype::{minmax_type, sum_type};

/// A generated kernel.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The kernel function's name.
    pub name: String,
    /// The whole file: header lines, imports, the `@triton.jit` function.
    pub source: String,
    /// The words of the `# tilec-run:` line (`--grid ...` and `name=VALUE` items).
    pub run_args: Vec<String>,
    /// The arrays the kernel writes, with how to compare them.
    pub outputs: Vec<OutputCheck>,
    /// The signature of the `# tilec:` line (`*fp32:16, i32`).
    pub signature: String,
    /// The constexpr values of the `# tilec:` line.
    pub constants: Vec<(String, u64)>,
}

/// How one output array is compared between two implementations.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputCheck {
    pub name: String,
    pub dtype: Dtype,
    /// Allowed `|got - want|`; 0 means bit for bit (NaN equals NaN; `-0.0` is not `+0.0`).
    /// `tilec_testkit::compare_generated` compares with it.
    pub abs_tol: f64,
    /// Allowed `|got - want|` between tilec and Triton: `abs_tol`, widened for a fuzzy float
    /// output of a kernel with an fp16/bf16 sum, scan or product, which Triton rounds to the
    /// element type at every step of an unspecified order while tilec accumulates in fp32
    /// and rounds once (docs/semantics.md). The widening is `bound * (n - 1) * epsilon` for
    /// the longest such accumulation of `n` elements: twice the bound on the rounding error
    /// of any order of `n - 1` additions or multiplications in that type.
    pub triton_abs_tol: f64,
    /// An upper bound of every element's magnitude, derived with the tolerance
    /// (`f64::INFINITY` when unknown). A reference result above it is a generator bug.
    pub bound: f64,
    /// Why Triton leaves this output undefined (an out-of-range float-to-int cast), when it
    /// does: the oracle does not compare it; tilec's targets must still agree with each other.
    pub undefined_in_triton: Option<&'static str>,
}

impl OutputCheck {
    /// Whether an element of magnitude `magnitude` is within the bound, allowing for the
    /// rounding of the element's type and the tolerance (a NaN is not, unless the bound is
    /// unknown). A reference output (tilec's interpreter or Triton) beyond it means the generator's bound, and so the
    /// tolerance derived from it, is wrong.
    pub fn within_bound(&self, magnitude: f64) -> bool {
        self.bound == f64::INFINITY || magnitude <= self.bound * 1.01 + self.abs_tol
    }
}

/// The value of `name` in a `# tilec-run:` word list, if present (`n=300` → `300`).
pub fn run_arg<'a>(run_args: &'a [String], name: &str) -> Option<&'a str> {
    run_args.iter().find_map(|w| w.strip_prefix(name).and_then(|r| r.strip_prefix('=')))
}

/// Constructs the generator may use beyond its core, one switch each. Each exercises a
/// place where tilec once differed from Triton (the numbers are those of docs/oracle.md).
/// A switch that is off draws no random numbers, so [`Features::none`] gives the same
/// kernels as the generator had before the switches existed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// `m1 + m2`, `m1 - m2` and `-m` on masks (`i1`, wrapping to one bit), used as
    /// `tl.where` conditions and stored (difference 6).
    pub i1_arithmetic: bool,
    /// Bitwise and shift operators with a Python int literal, typed as Triton types them:
    /// the literal takes the tensor's dtype (difference 2).
    pub literal_bitwise: bool,
    /// `tl.umulhi` of `int32`/`uint32` values (difference 7).
    pub umulhi: bool,
    /// `tl.max`/`tl.min(..., return_indices=True)`, whose value keeps the input's dtype,
    /// followed by arithmetic that wraps in that dtype (difference 8).
    pub return_indices: bool,
    /// `tl.sum` of a whole fp16/bf16 tile of small values, compared with a tolerance derived
    /// from a tree-ordered sum (difference 11).
    pub narrow_float_sums: bool,
    /// Float `atomic_max`/`atomic_min` of values some of which are NaN (difference 10).
    pub atomic_nan: bool,
    /// Float-to-int casts of out-of-range values and NaN, stored to an output that Triton
    /// leaves undefined (difference 13: tilec's targets must agree with each other).
    pub unguarded_casts: bool,
    /// `tl.split`, `tl.join`, `tl.interleave`, `tl.permute`, `tl.trans`, `tl.reshape` and
    /// `tl.flip` that move a value's lanes and give it its shape back, and whole-block
    /// reductions of a `tl.reshape(..., can_reorder=True)`, whose result is the same in any
    /// order (`movement.rs`).
    pub data_movement: bool,
    /// `tl.reduce` and `tl.associative_scan` of tuples with tuple-returning combine
    /// functions: first arg-max/arg-min pairs, Welford's mean and variance, sums with counts,
    /// an affine recurrence (not commutative) (`tuples.rs`).
    pub tuple_combines: bool,
    /// fp32/fp16/bf16 values converted to the five fp8 types and back: around saturation,
    /// in the subnormal range, NaN and infinities (`fp8.rs`). Triton's interpreter rounds fp8
    /// otherwise (docs/semantics.md), so the oracle leaves it out.
    pub fp8_casts: bool,
    /// Loads and stores through `tl.make_block_ptr` with `boundary_check` and
    /// `padding_option` "zero" or "nan" on blocks that cross the arrays' edges, advanced with
    /// `tl.advance` in loops (`block_ptr.rs`). Triton 3.9 has no block pointers, so the oracle
    /// leaves it out.
    pub block_pointers: bool,
    /// Loads through `tl.make_tensor_descriptor` of blocks that cross the array's end
    /// (`block_ptr.rs`).
    pub tensor_descriptors: bool,
    /// Arrays of fp8 in memory: fp8 inputs loaded and widened, exact values stored into fp8
    /// outputs (compared as their 8-bit patterns) (`fp8.rs`). Left out of the oracle for
    /// the reason of `fp8_casts`.
    pub fp8_arrays: bool,
    /// 2D tensor descriptors over the tile kernels' arrays: tile loads at blocks that cross
    /// the edges (some shifted before the first row) and tile stores (`descriptor.rs`).
    pub descriptor_tiles: bool,
    /// `desc.atomic_*` of every program's tile into one array smaller than a block
    /// (`descriptor.rs`). Triton 3.9's interpreter has no descriptor atomics, so the oracle
    /// leaves them out.
    pub descriptor_atomics: bool,
    /// Block pointers with `boundary_check` on the one dimension that crosses the array's
    /// edge, the other padded to a whole number of blocks (`block_ptr.rs`). Left out of the
    /// oracle with the block pointers.
    pub partial_boundary_check: bool,
}

impl Features {
    /// The core generator only.
    pub const fn none() -> Features {
        Features {
            i1_arithmetic: false,
            literal_bitwise: false,
            umulhi: false,
            return_indices: false,
            narrow_float_sums: false,
            atomic_nan: false,
            unguarded_casts: false,
            data_movement: false,
            tuple_combines: false,
            fp8_casts: false,
            block_pointers: false,
            tensor_descriptors: false,
            fp8_arrays: false,
            descriptor_tiles: false,
            descriptor_atomics: false,
            partial_boundary_check: false,
        }
    }

    /// Everything the generator can write.
    pub const fn all() -> Features {
        Features {
            i1_arithmetic: true,
            literal_bitwise: true,
            umulhi: true,
            return_indices: true,
            narrow_float_sums: true,
            atomic_nan: true,
            unguarded_casts: true,
            data_movement: true,
            tuple_combines: true,
            fp8_casts: true,
            block_pointers: true,
            tensor_descriptors: true,
            fp8_arrays: true,
            descriptor_tiles: true,
            descriptor_atomics: true,
            partial_boundary_check: true,
        }
    }

    /// What Triton 3.9 runs as tilec does: everything but block pointers (removed from
    /// Triton), fp8 conversions and arrays (which Triton's interpreter rounds otherwise) and
    /// descriptor atomics (which it lacks); what the oracle batch (`cargo xtask oracle
    /// batch`) runs.
    pub const fn triton() -> Features {
        Features {
            block_pointers: false,
            partial_boundary_check: false,
            fp8_casts: false,
            fp8_arrays: false,
            descriptor_atomics: false,
            ..Features::all()
        }
    }

    /// The constructs on which tilec's interpreter and compiled code agree, and whose values
    /// stay within the generator's bounds (which follow Triton) under tilec's semantics: what
    /// the differential tests (`tests/differential.rs`, `cargo xtask difftest`) run. Every
    /// difference the switches exercise is fixed or documented, so all of them are on.
    pub const fn differential() -> Features {
        Features::all()
    }

    /// The switches that are on, by name (`none` when none is).
    pub fn describe(&self) -> String {
        let switches = [
            ("i1_arithmetic", self.i1_arithmetic),
            ("literal_bitwise", self.literal_bitwise),
            ("umulhi", self.umulhi),
            ("return_indices", self.return_indices),
            ("narrow_float_sums", self.narrow_float_sums),
            ("atomic_nan", self.atomic_nan),
            ("unguarded_casts", self.unguarded_casts),
            ("data_movement", self.data_movement),
            ("tuple_combines", self.tuple_combines),
            ("fp8_casts", self.fp8_casts),
            ("block_pointers", self.block_pointers),
            ("tensor_descriptors", self.tensor_descriptors),
            ("fp8_arrays", self.fp8_arrays),
            ("descriptor_tiles", self.descriptor_tiles),
            ("descriptor_atomics", self.descriptor_atomics),
            ("partial_boundary_check", self.partial_boundary_check),
        ];
        let on: Vec<&str> = switches.iter().filter(|(_, on)| *on).map(|(name, _)| *name).collect();
        if on.is_empty() {
            "none".to_string()
        } else {
            on.join(", ")
        }
    }
}

/// The kernel for `seed` from the core generator ([`Features::none`]).
pub fn generate(seed: u64) -> Kernel {
    generate_with(seed, &Features::none())
}

/// The kernel for `seed` with the constructs `features` switches on.
pub fn generate_with(seed: u64, features: &Features) -> Kernel {
    let mut rng = Rng::new(seed);
    let name = format!("kgen_{seed}");
    let mut gen = Gen::new(rng.clone(), *features);
    match rng.range(0, 9) {
        0..=3 => gen.block_kernel(),
        4..=5 => gen.tile_kernel(),
        6..=7 => gen.row_loop_kernel(),
        _ => gen.dot_kernel(),
    }
    gen.finish(&name)
}

/// Where a value lives: its shape, relative to the kernel's block sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Scalar,
    /// `[BLOCK]` of a 1D kernel.
    Block,
    /// `[BM]`: one value per row of a 2D tile.
    Rows,
    /// `[BN]`: one value per column of a 2D tile.
    Cols,
    /// `[BM, BN]`.
    Tile,
}

/// A named value the kernel body has computed.
#[derive(Clone, Debug)]
struct Val {
    name: String,
    dtype: Dtype,
    shape: Shape,
    /// An upper bound of `|value|` (integers may also wrap; then it is the type's range).
    bound: f64,
    /// Derived from a computation whose rounding depends on evaluation order.
    fuzzy: bool,
}

/// An operand expression of a target shape.
#[derive(Clone, Debug)]
struct Operand {
    text: String,
    dtype: Dtype,
    bound: f64,
    fuzzy: bool,
}

/// A kernel parameter.
#[derive(Clone)]
enum Param {
    /// A pointer to an array initialised by `init` (`rand`, `zeros`, `arange`).
    Array {
        name: String,
        dtype: Dtype,
        init: &'static str,
        len: u64,
    },
    /// A pointer to an array of fp8 type `fp8` (its short name, `fp8e4nv`).
    Fp8Array {
        name: String,
        fp8: &'static str,
        init: &'static str,
        len: u64,
    },
    Int {
        name: String,
        value: i64,
    },
    Constexpr {
        name: String,
        value: u64,
    },
}

#[derive(Clone)]
struct Gen {
    rng: Rng,
    params: Vec<Param>,
    body: Vec<String>,
    indent: usize,
    vals: Vec<Val>,
    next_temp: usize,
    grid: [u64; 3],
    /// Largest tolerance-relevant magnitude of each output, and whether it is fuzzy.
    outputs: Vec<(String, Dtype, f64, bool)>,
    /// Per shape: the length of each axis (in order) and an `i32` expression giving each lane
    /// a distinct non-negative index (the offsets of `tl.rand` and atomics).
    layouts: Vec<(Shape, Vec<u64>, String)>,
    /// Whether the body draws random numbers from the runtime `seed` parameter.
    uses_seed: bool,
    features: Features,
    /// Outputs Triton leaves undefined, with the reason.
    undefined: Vec<(String, &'static str)>,
    /// Outputs whose tolerance is not the one [`tolerance`] derives from the bound.
    tolerances: Vec<(String, f64)>,
    /// Outputs whose bound is infinite because some lanes are NaN, with the bound of the
    /// other lanes, from which their tolerance is derived.
    finite_bounds: Vec<(String, f64)>,
    /// The largest `(n - 1) * epsilon` of an fp16/bf16 sum, scan or product of `n` elements
    /// in the kernel (0 when none): the relative error Triton's per-step rounding may add.
    narrow_accumulation: f64,
    /// `@triton.jit` functions written before the kernel (combine functions), once each.
    helpers: Vec<&'static str>,
    /// Whether the tile kernel's `N` makes its arrays' rows 16-byte aligned for elements of
    /// 2 bytes or more, so they can go through tensor descriptors (`descriptor.rs`).
    columns_aligned: bool,
}

impl Gen {
    fn new(rng: Rng, features: Features) -> Gen {
        Gen {
            features,
            undefined: Vec::new(),
            tolerances: Vec::new(),
            finite_bounds: Vec::new(),
            narrow_accumulation: 0.0,
            helpers: Vec::new(),
            columns_aligned: false,
            rng,
            params: Vec::new(),
            body: Vec::new(),
            indent: 1,
            vals: Vec::new(),
            next_temp: 0,
            grid: [1, 1, 1],
            outputs: Vec::new(),
            layouts: Vec::new(),
            uses_seed: false,
        }
    }

    /// Records that values of `shape` have axes of `lengths` and lane indices `index`.
    fn layout(&mut self, shape: Shape, lengths: &[u64], index: &str) {
        self.layouts.retain(|(s, _, _)| *s != shape);
        self.layouts.push((shape, lengths.to_vec(), index.to_string()));
    }

    fn layout_of(&self, shape: Shape) -> Option<(Vec<u64>, String)> {
        self.layouts.iter().find(|(s, _, _)| *s == shape).map(|(_, l, i)| (l.clone(), i.clone()))
    }

    fn line(&mut self, text: impl Into<String>) {
        self.body.push(format!("{}{}", "    ".repeat(self.indent), text.into()));
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next_temp += 1;
        format!("{prefix}{}", self.next_temp)
    }

    fn input_dtype(&mut self) -> Dtype {
        *self.rng.pick(NUMERIC)
    }

    /// Adds a `rand` input array and returns its pointer parameter's name.
    fn input_array(&mut self, stem: &str, dtype: Dtype, len: u64) -> String {
        let name = format!("{stem}_ptr");
        self.params.push(Param::Array { name: name.clone(), dtype, init: "rand", len });
        name
    }

    fn output_array(&mut self, stem: &str, dtype: Dtype, len: u64) -> String {
        let name = format!("{stem}_ptr");
        self.params.push(Param::Array { name: name.clone(), dtype, init: "zeros", len });
        name
    }

    fn int_param(&mut self, name: &str, value: i64) {
        self.params.push(Param::Int { name: name.to_string(), value });
    }

    fn constexpr(&mut self, name: &str, value: u64) {
        self.params.push(Param::Constexpr { name: name.to_string(), value });
    }

    /// A size that is neither a multiple of 16 nor 1 (so it stays a runtime `i32`).
    fn odd_size(&mut self, lo: u64, hi: u64) -> u64 {
        loop {
            let n = self.rng.range(lo, hi);
            if !n.is_multiple_of(16) && n > 1 {
                return n;
            }
        }
    }

    /// The bound of a freshly loaded `rand` value of `dtype`.
    fn rand_bound(dtype: Dtype) -> f64 {
        if dtype.is_float() {
            1.0
        } else if dtype.is_unsigned() {
            200.0
        } else {
            100.0
        }
    }

    /// `v = tl.load(...)` of a `rand` array: records the value.
    fn load(&mut self, stem: &str, dtype: Dtype, shape: Shape, pointer: &str, mask: &str) -> Val {
        let name = self.fresh(stem);
        self.line(format!("{name} = tl.load({pointer}, mask={mask}, other=0)"));
        let val = Val { name, dtype, shape, bound: Gen::rand_bound(dtype), fuzzy: false };
        self.vals.push(val.clone());
        val
    }

    fn define(&mut self, expr: String, dtype: Dtype, shape: Shape, bound: f64, fuzzy: bool) -> Val {
        let name = self.fresh("t");
        self.line(format!("{name} = {expr}"));
        // an unsigned result wraps whenever an operand was negative or a difference is
        let bound = if dtype.is_unsigned() { dtype.max_abs() } else { clamp_bound(dtype, bound) };
        let val = Val { name, dtype, shape, bound, fuzzy };
        self.vals.push(val.clone());
        val
    }

    // ---- operands ----

    /// The values usable as operands of shape `shape`, as expressions.
    fn operands(&self, shape: Shape, exact_only: bool, numeric: bool) -> Vec<Operand> {
        self.vals
            .iter()
            .filter(|v| !(exact_only && v.fuzzy))
            .filter(|v| (v.dtype == Dtype::I1) != numeric)
            .filter_map(|v| {
                let text = match (shape, v.shape) {
                    (a, b) if a == b => v.name.clone(),
                    (_, Shape::Scalar) => v.name.clone(),
                    (Shape::Tile, Shape::Rows) => format!("{}[:, None]", v.name),
                    (Shape::Tile, Shape::Cols) => format!("{}[None, :]", v.name),
                    _ => return None,
                };
                Some(Operand { text, dtype: v.dtype, bound: v.bound, fuzzy: v.fuzzy })
            })
            .collect()
    }

    /// A random numeric operand broadcastable to `shape`, preferring values of exactly that
    /// shape.
    fn operand(&mut self, shape: Shape, exact_only: bool) -> Option<Operand> {
        let all = self.operands(shape, exact_only, true);
        if all.is_empty() {
            return None;
        }
        let own = self.own_shape(&all, shape);
        if !own.is_empty() && self.rng.chance(60) {
            return Some(self.rng.pick(&own).clone());
        }
        Some(self.rng.pick(&all).clone())
    }

    /// A random numeric operand of exactly `shape` (so an expression on it has that shape).
    fn main_operand(&mut self, shape: Shape, exact_only: bool) -> Option<Operand> {
        let all = self.operands(shape, exact_only, true);
        let own = self.own_shape(&all, shape);
        if own.is_empty() {
            None
        } else {
            Some(self.rng.pick(&own).clone())
        }
    }

    /// The operands among `all` that are values of exactly `shape`.
    fn own_shape(&self, all: &[Operand], shape: Shape) -> Vec<Operand> {
        all.iter().filter(|o| self.vals.iter().any(|v| v.name == o.text && v.shape == shape)).cloned().collect()
    }

    fn mask_operand(&mut self, shape: Shape) -> Option<Operand> {
        let masks = self.operands(shape, true, false);
        if masks.is_empty() {
            None
        } else {
            Some(self.rng.pick(&masks).clone())
        }
    }

    // ---- elementwise statements ----

    /// Appends `count` random elementwise statements producing values of `shape`.
    fn statements(&mut self, shape: Shape, count: usize) {
        for _ in 0..count {
            for _attempt in 0..8 {
                if self.statement(shape) {
                    break;
                }
            }
        }
    }

    /// One random statement; false when the drawn kind has no suitable operands.
    fn statement(&mut self, shape: Shape) -> bool {
        let Some(a) = self.main_operand(shape, false) else { return false };
        if self.features.umulhi && a.dtype.is_int() && self.rng.chance(8) {
            return self.umulhi(&a, shape);
        }
        if self.features.data_movement && self.rng.chance(8) {
            return self.movement(&a, shape);
        }
        if self.features.tuple_combines && self.rng.chance(6) {
            return self.tuple_scan(&a, shape);
        }
        if self.features.fp8_casts && a.dtype.is_float() && self.rng.chance(12) {
            return self.fp8_round_trip(&a, shape);
        }
        match self.rng.range(0, 16) {
            0..=2 => {
                let Some(b) = self.operand(shape, false) else { return false };
                let dtype = promote(a.dtype, b.dtype);
                let op = *self.rng.pick(&["+", "-", "*"]);
                let bound = if op == "*" { a.bound * b.bound } else { a.bound + b.bound };
                if dtype.is_float() && bound > dtype.safe_float_bound() {
                    return false;
                }
                self.define(format!("{} {op} {}", a.text, b.text), dtype, shape, bound, a.fuzzy || b.fuzzy);
            }
            3 => {
                // with a literal of the operand's kind: keeps the operand's type
                let (lit, scale) = if a.dtype.is_float() {
                    (*self.rng.pick(&["0.5", "1.5", "-2.0", "3.0"]), 3.0)
                } else {
                    (*self.rng.pick(&["3", "1", "7", "2"]), 7.0)
                };
                let op = *self.rng.pick(&["+", "-", "*"]);
                let bound = if op == "*" { a.bound * scale } else { a.bound + scale };
                if a.dtype.is_float() && bound > a.dtype.safe_float_bound() {
                    return false;
                }
                self.define(format!("{} {op} {lit}", a.text), a.dtype, shape, bound, a.fuzzy);
            }
            4 | 16 => {
                // integer bit operations, shifts by a constant below the width, guarded // and %
                if !a.dtype.is_int() {
                    return false;
                }
                let Some(b) = self.operand(shape, false) else { return false };
                if !b.dtype.is_int() {
                    return false;
                }
                let dtype = promote(a.dtype, b.dtype);
                // a Python number in a bit or shift operation takes the tensor's type (as in
                // arithmetic), so `(b & 7) + 1` is of `b`'s type
                let divisor = b.dtype;
                let quotient = promote(a.dtype, divisor);
                let full = dtype.max_abs();
                match self.rng.range(0, 5) {
                    0 => {
                        let op = *self.rng.pick(&["&", "|", "^"]);
                        if self.features.literal_bitwise && self.rng.chance(40) {
                            // the literal takes the tensor's dtype (it fits in every one)
                            let literal = *self.rng.pick(&["1", "3", "5", "0x3F", "0x55"]);
                            let text = format!("{} {op} {literal}", a.text);
                            self.define(text, a.dtype, shape, a.dtype.max_abs(), false);
                            return true;
                        }
                        self.define(format!("{} {op} {}", a.text, b.text), dtype, shape, full, false);
                    }
                    1 => {
                        let amount = self.rng.range(0, u64::from(a.dtype.bits()) - 1);
                        let op = *self.rng.pick(&["<<", ">>"]);
                        // a shift by a literal keeps the tensor's dtype
                        let bound = if op == ">>" { a.bound } else { a.dtype.max_abs() };
                        self.define(format!("{} {op} {amount}", a.text), a.dtype, shape, bound, false);
                    }
                    2 => {
                        // a shift by a tensor amount, masked below the result's width; `>>` is
                        // arithmetic when `a` is signed, even on an unsigned promoted type
                        let op = *self.rng.pick(&["<<", ">>"]);
                        let keeps_sign = a.dtype.is_unsigned() || !quotient.is_unsigned();
                        let bound = if op == ">>" && keeps_sign { a.bound } else { quotient.max_abs() };
                        let text = format!("{} {op} ({} & {})", a.text, b.text, quotient.bits() - 1);
                        self.define(text, quotient, shape, bound, false);
                    }
                    _ if a.dtype.is_unsigned() != divisor.is_unsigned() => return false,
                    kind => {
                        // a divisor in [1, 8], or in [-8, -1] when the dividend cannot be the
                        // quotient type's minimum (whose division by -1 overflows)
                        let negative = !divisor.is_unsigned() && a.bound < quotient.max_abs() && self.rng.chance(50);
                        let d = if negative {
                            format!("(({} & 7) - 8)", b.text)
                        } else {
                            format!("(({} & 7) + 1)", b.text)
                        };
                        if kind == 3 {
                            self.define(format!("{} // {d}", a.text), quotient, shape, a.bound, false);
                        } else {
                            self.define(format!("{} % {d}", a.text), quotient, shape, 8.0, false);
                        }
                    }
                }
            }
            5 => {
                // float division by a divisor at least 1 in magnitude
                let Some(b) = self.operand(shape, false) else { return false };
                if !b.dtype.is_float() {
                    return false;
                }
                let dtype = promote_div(a.dtype, b.dtype);
                if a.bound.max(b.bound) >= dtype.max_abs() {
                    // an integer promoted to a narrow float would overflow to inf
                    return false;
                }
                self.define(
                    format!("{} / (tl.abs({}) + 1.0)", a.text, b.text),
                    dtype,
                    shape,
                    a.bound,
                    a.fuzzy || b.fuzzy,
                );
            }
            6 => {
                // comparison → mask
                let Some(a) = self.main_operand(shape, true) else { return false };
                let Some(b) = self.operand(shape, true) else { return false };
                let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                self.define(format!("{} {op} {}", a.text, b.text), Dtype::I1, shape, 1.0, false);
            }
            7 => {
                // combine masks
                let Some(m) = self.mask_operand(shape) else { return false };
                if self.features.i1_arithmetic && self.rng.chance(40) {
                    // i1 arithmetic wraps to one bit: `+` and `-` are `^`
                    let Some(k) = self.mask_operand(shape) else { return false };
                    let op = *self.rng.pick(&["+", "-"]);
                    self.define(format!("{} {op} {}", m.text, k.text), Dtype::I1, shape, 1.0, false);
                    return true;
                }
                let Some(k) = self.mask_operand(shape) else { return false };
                let op = *self.rng.pick(&["&", "|", "^"]);
                self.define(format!("{} {op} {}", m.text, k.text), Dtype::I1, shape, 1.0, false);
            }
            8..=9 => {
                let Some(m) = self.mask_operand(shape) else { return false };
                let Some(b) = self.operand(shape, false) else { return false };
                let (dtype, bound) = (promote(a.dtype, b.dtype), a.bound.max(b.bound));
                if dtype.is_float() && bound >= dtype.max_abs() {
                    // an integer promoted to a narrow float would overflow to inf
                    return false;
                }
                self.define(
                    format!("tl.where({}, {}, {})", m.text, a.text, b.text),
                    dtype,
                    shape,
                    bound,
                    a.fuzzy || b.fuzzy,
                );
            }
            10 => self.cast(a, shape),
            14 => return self.scan(a, shape),
            15 => return self.random(shape),
            11 => {
                let Some(b) = self.operand(shape, false) else { return false };
                let (dtype, bound) = (promote(a.dtype, b.dtype), a.bound.max(b.bound));
                if dtype.is_float() && bound >= dtype.max_abs() {
                    return false;
                }
                let f = *self.rng.pick(&["tl.maximum", "tl.minimum"]);
                self.define(format!("{f}({}, {})", a.text, b.text), dtype, shape, bound, a.fuzzy || b.fuzzy);
            }
            _ => {
                // unary
                if a.dtype.is_float() {
                    // `tl.sqrt` and `tl.exp` take fp32 and fp64 only
                    let widest = if matches!(a.dtype, Dtype::F32 | Dtype::F64) { 3 } else { 1 };
                    match self.rng.range(0, widest) {
                        0 => self.define(format!("-{}", a.text), a.dtype, shape, a.bound, a.fuzzy),
                        1 => self.define(format!("tl.abs({})", a.text), a.dtype, shape, a.bound, a.fuzzy),
                        2 => self.define(
                            format!("tl.sqrt(tl.abs({}))", a.text),
                            a.dtype,
                            shape,
                            a.bound.sqrt() + 1.0,
                            a.fuzzy,
                        ),
                        _ => self.define(format!("tl.exp(tl.minimum({}, 2.0))", a.text), a.dtype, shape, 8.0, true),
                    };
                } else {
                    let bound = a.dtype.max_abs();
                    match self.rng.range(0, 1) {
                        0 => self.define(format!("-{}", a.text), a.dtype, shape, bound, false),
                        _ => self.define(format!("tl.abs({})", a.text), a.dtype, shape, bound, false),
                    };
                }
            }
        }
        true
    }

    /// `tl.umulhi` of `a` and another integer operand, both converted to `int32` or
    /// `uint32` (the high 32 bits of the unsigned 64-bit product, in either type). The
    /// conversion is `tl.cast`, not `.to`: an operand may be a loop index, a Python int in
    /// Triton's interpreter.
    fn umulhi(&mut self, a: &Operand, shape: Shape) -> bool {
        let Some(b) = self.operand(shape, false) else { return false };
        if !b.dtype.is_int() {
            return false;
        }
        let dtype = *self.rng.pick(&[Dtype::I32, Dtype::U32]);
        let ty = dtype.triton();
        self.define(
            format!("tl.umulhi(tl.cast({}, {ty}), tl.cast({}, {ty}))", a.text, b.text),
            dtype,
            shape,
            dtype.max_abs(),
            false,
        );
        true
    }

    /// Stores a float value of `shape` scaled out of range (and NaN where it exceeds 0.5)
    /// and converted to an integer type into its own output, which Triton leaves undefined.
    fn unguarded_cast(&mut self, shape: Shape, len: u64, mask: &str) {
        let Some((_, index)) = self.layout_of(shape) else { return };
        let floats: Vec<Operand> =
            self.operands(shape, true, true).into_iter().filter(|o| o.dtype.is_float()).collect();
        if floats.is_empty() {
            return;
        }
        let a = self.rng.pick(&floats).clone();
        let target = *self.rng.pick(&[Dtype::I8, Dtype::U8, Dtype::I16, Dtype::I32, Dtype::U32, Dtype::I64]);
        let scale = *self.rng.pick(&["1000.0", "1.0e12"]);
        let text = format!("tl.where({a} > 0.5, float(\"nan\"), {a} * {scale}).to({})", target.triton(), a = a.text);
        let value = Operand { text, dtype: target, bound: target.max_abs(), fuzzy: false };
        self.store("ucast", &value, len, |p| format!("{p} + {index}"), mask);
        let name = self.outputs.last().map(|o| o.0.clone()).unwrap_or_default();
        self.undefined.push((name, "a float-to-int cast of an out-of-range value or NaN"));
    }

    /// `tl.sum` of a whole `bm x bn` tile of fp16 or bf16 values in [0, 3] (masks or masked
    /// integers), one per program at `pid_m * programs_n + pid_n`. Its tolerance derives
    /// from a tree-ordered sum (about log2 of the count roundings on each path), far
    /// below the error of adding in sequence in the narrow type.
    fn narrow_sum(&mut self, count: u64, programs: [u64; 2]) {
        let dtype = *self.rng.pick(&[Dtype::F16, Dtype::BF16]);
        let ints: Vec<Operand> =
            self.operands(Shape::Tile, true, true).into_iter().filter(|o| o.dtype.is_int()).collect();
        let masks = self.operands(Shape::Tile, true, false);
        let (source, top) = if !ints.is_empty() && self.rng.chance(60) {
            (format!("({} & 3)", self.rng.pick(&ints).text), 3.0)
        } else if !masks.is_empty() {
            (self.rng.pick(&masks).text.clone(), 1.0)
        } else {
            ("(rows[:, None] + cols[None, :]) % 2".to_string(), 1.0)
        };
        let name = self.fresh("nsum");
        let ty = dtype.triton();
        self.line(format!("{name} = tl.sum(tl.where(mask, ({source}).to({ty}), 0.0))"));
        let bound = top * count as f64;
        let value = Operand { text: name, dtype, bound, fuzzy: true };
        self.store(
            "nsum",
            &value,
            programs[0] * programs[1],
            |p| format!("{p} + pid_m * {} + pid_n", programs[1]),
            "pid_m >= 0",
        );
        let output = self.outputs.last().map(|o| o.0.clone()).unwrap_or_default();
        let levels = (count as f64).log2().ceil() + 1.0;
        self.tolerances.push((output, bound * dtype.epsilon() * levels));
    }

    /// Records an accumulation (sum, scan or product) of `len` elements of `dtype` for
    /// [`OutputCheck::triton_abs_tol`].
    fn note_narrow_accumulation(&mut self, dtype: Dtype, len: f64) {
        if matches!(dtype, Dtype::F16 | Dtype::BF16) {
            self.narrow_accumulation = self.narrow_accumulation.max((len - 1.0).max(1.0) * dtype.epsilon());
        }
    }

    /// `tl.cumsum` or `tl.cumprod` of `a` along a random axis of `shape`, maybe reversed.
    fn scan(&mut self, a: Operand, shape: Shape) -> bool {
        let Some((lengths, _)) = self.layout_of(shape) else { return false };
        if shape == Shape::Scalar {
            return false;
        }
        let axis = self.rng.range(0, lengths.len() as u64 - 1);
        let len = lengths[axis as usize] as f64;
        let reverse = if self.rng.chance(30) { ", reverse=True" } else { "" };
        if self.rng.chance(60) {
            let dtype = sum_type(a.dtype);
            let bound = a.bound * len;
            if dtype.is_float() && bound > dtype.safe_float_bound() {
                return false;
            }
            let fuzzy = a.fuzzy || dtype.is_float();
            self.note_narrow_accumulation(dtype, len);
            self.define(format!("tl.cumsum({}, axis={axis}{reverse})", a.text), dtype, shape, bound, fuzzy);
        } else {
            // float products stay below 1 in magnitude; integer products wrap, narrow ones
            // in (u)int32 (Triton 3.9 widens them as for cumsum)
            if a.dtype.is_float() && a.bound > 1.0 {
                return false;
            }
            let dtype = sum_type(a.dtype);
            let bound = if a.dtype.is_float() { a.bound } else { dtype.max_abs() };
            let fuzzy = a.fuzzy || a.dtype.is_float();
            self.note_narrow_accumulation(dtype, len);
            self.define(format!("tl.cumprod({}, axis={axis}{reverse})", a.text), dtype, shape, bound, fuzzy);
        }
        true
    }

    /// Philox random numbers (`tl.rand`, `tl.randint`) at the lane indices of `shape`: exact,
    /// since the generator is integer arithmetic and one int-to-float conversion and product.
    fn random(&mut self, shape: Shape) -> bool {
        let Some((_, index)) = self.layout_of(shape) else { return false };
        self.uses_seed = true;
        match self.rng.range(0, 2) {
            0 => self.define(format!("tl.rand(seed, {index})"), Dtype::F32, shape, 1.0, false),
            1 => self.define(format!("tl.randint(seed, {index})"), Dtype::U32, shape, Dtype::U32.max_abs(), false),
            _ => {
                let text = format!("tl.randint(seed, {index}).to(tl.int32, bitcast=True)");
                self.define(text, Dtype::I32, shape, Dtype::I32.max_abs(), false)
            }
        };
        true
    }

    /// `a.to(T)` with the guards that keep it defined.
    fn cast(&mut self, a: Operand, shape: Shape) {
        let target = self.input_dtype();
        if a.dtype.is_float() && target.is_int() {
            if a.fuzzy {
                return;
            }
            let (lo, hi) = if target.is_unsigned() { ("0.0", "100.0") } else { ("-100.0", "100.0") };
            self.define(
                format!("tl.minimum(tl.maximum({}, {lo}), {hi}).to({})", a.text, target.triton()),
                target,
                shape,
                100.0,
                false,
            );
        } else if target.is_float() && a.bound > target.safe_float_bound() {
            // keep float values far from overflow
        } else {
            let bound = if target.is_int() && a.bound >= target.max_abs() { target.max_abs() } else { a.bound };
            self.define(format!("{}.to({})", a.text, target.triton()), target, shape, bound, a.fuzzy);
        }
    }

    /// A numeric value of `shape` (a loaded or computed one; creates one from a literal if none).
    fn result(&mut self, shape: Shape) -> Operand {
        let all = self.operands(shape, false, true);
        let own = self.own_shape(&all, shape);
        let recent: Vec<Operand> = own.iter().rev().take(3).cloned().collect();
        if recent.is_empty() {
            return Operand { text: "0".into(), dtype: Dtype::I32, bound: 0.0, fuzzy: false };
        }
        self.rng.pick(&recent).clone()
    }

    /// `tl.store(pointer, value)` into a fresh output array whose dtype is the value's (or a
    /// cast of it), recording the output for comparison.
    fn store(&mut self, stem: &str, value: &Operand, len: u64, pointer_of: impl Fn(&str) -> String, mask: &str) {
        let (dtype, text) = stored_form(value);
        let pointer = self.output_array(stem, dtype, len);
        self.line(format!("tl.store({}, {text}, mask={mask})", pointer_of(&pointer)));
        self.outputs.push((pointer, dtype, value.bound, value.fuzzy));
    }

    /// An atomic read-modify-write of every valid lane of `shape` (`len` lanes in all, under
    /// `mask`) into a small zero-initialised array at `index % SLOTS`; the old values it
    /// returns are stored too. Integer atomics are exact: their final memory does not depend
    /// on the order of the updates, and the old values, `atomic_xchg` and `atomic_cas` depend
    /// on it only through the grid and lane order, which a one-thread compiled run shares with the
    /// interpreter. A float `atomic_add` rounds in update order and is compared with a
    /// tolerance.
    fn atomic(&mut self, shape: Shape, len: u64, mask: &str) {
        let Some((lengths, index)) = self.layout_of(shape) else { return };
        let dtype = *self.rng.pick(&[Dtype::I32, Dtype::U32, Dtype::I64, Dtype::F32]);
        let op = if dtype.is_float() {
            *self.rng.pick(&["add", "max", "min"])
        } else {
            *self.rng.pick(&["add", "max", "min", "and", "or", "xor", "xchg", "cas"])
        };
        let Some(value) = self.operand(shape, !dtype.is_float()) else { return };
        if dtype.is_int() && !value.dtype.is_int() {
            return;
        }
        let (bound, fuzzy) = match op {
            "add" if dtype.is_float() => (value.bound * len as f64, true),
            _ if dtype.is_int() => (dtype.max_abs(), false),
            _ => (value.bound, value.fuzzy),
        };
        if dtype.is_float() && bound > dtype.safe_float_bound() {
            return;
        }
        let nan = dtype.is_float() && op != "add" && self.features.atomic_nan && self.rng.chance(50);
        let finite_bound = bound;
        let (bound, value) = if nan {
            // NaN where the value exceeds 0.5: the slots and old values may hold NaN
            let text = format!("tl.where({v} > 0.5, float(\"nan\"), ({v}).to({}))", dtype.triton(), v = value.text);
            (f64::INFINITY, Operand { text, ..value })
        } else {
            (bound, value)
        };
        let slots = self.rng.range(1, 8);
        let slots_ptr = self.output_array("atom", dtype, slots);
        let old = self.fresh("old");
        let slot = format!("{slots_ptr} + ({index}) % {slots}");
        let (value, ty) = (&value.text, dtype.triton());
        if op == "cas" {
            // `atomic_cas` has no mask: every lane swaps in its value where the slot holds
            // its compare value, so some lanes succeed and later ones see their writes.
            // Triton does not broadcast its operands: they get the pointers' shape here.
            let full = |text: String| match lengths.as_slice() {
                [] => text,
                [n] => format!("tl.broadcast_to({text}, ({n},))"),
                dims => {
                    let dims: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
                    format!("tl.broadcast_to({text}, ({}))", dims.join(", "))
                }
            };
            let (cmp, new) = (full(format!("(({value}) & 3).to({ty})")), full(format!("({value}).to({ty})")));
            self.line(format!("{old} = tl.atomic_cas({slot}, {cmp}, {new})"));
        } else {
            self.line(format!("{old} = tl.atomic_{op}({slot}, ({value}).to({ty}), mask={mask})"));
        }
        self.outputs.push((slots_ptr.clone(), dtype, bound, fuzzy));
        let old = Operand { text: old, dtype, bound, fuzzy };
        self.store("old", &old, len, |p| format!("{p} + {index}"), mask);
        if nan {
            let old_ptr = self.outputs.last().map(|o| o.0.clone()).unwrap_or_default();
            self.finite_bounds.extend([(slots_ptr, finite_bound), (old_ptr, finite_bound)]);
        }
    }

    /// The reductions of `value` (of `shape`) along `axis` (`count` lanes) to `result_shape`:
    /// one [`Gen::reduction`], or ([`Features::tuple_combines`]) the results of a tuple one.
    fn reductions(&mut self, value: &Operand, shape: Shape, axis: u32, count: u64, result_shape: Shape) -> Vec<Val> {
        if self.features.tuple_combines && self.rng.chance(35) {
            return self.tuple_reduction(value, shape, axis, count, result_shape);
        }
        self.reduction(value, axis, count, result_shape).into_iter().collect()
    }

    /// A reduction of `value` (of `shape`) along `axis`, result of `result_shape`; `None` when
    /// the drawn kind needs an exact operand and the value is fuzzy.
    fn reduction(&mut self, value: &Operand, axis: u32, count: u64, result_shape: Shape) -> Option<Val> {
        let kind = *self.rng.pick(&["sum", "max", "min", "argmax", "argmin"]);
        let fuzzy_input = value.fuzzy || (kind == "sum" && value.dtype.is_float());
        if kind.starts_with("arg") && value.fuzzy {
            return None;
        }
        if self.features.return_indices && matches!(kind, "max" | "min") && !value.fuzzy && self.rng.chance(50) {
            return Some(self.reduction_with_indices(value, kind, axis, result_shape));
        }
        let (dtype, bound) = match kind {
            "sum" => (sum_type(value.dtype), value.bound * count as f64),
            "max" | "min" => (minmax_type(value.dtype), value.bound),
            _ => (Dtype::I32, count as f64),
        };
        if dtype.is_float() && bound > dtype.safe_float_bound() {
            return None;
        }
        if kind == "sum" {
            self.note_narrow_accumulation(dtype, count as f64);
        }
        Some(self.define(format!("tl.{kind}({}, axis={axis})", value.text), dtype, result_shape, bound, fuzzy_input))
    }

    /// `v, i = tl.max(value, axis, return_indices=True)` (or `min`): `v` keeps the input's
    /// dtype, so arithmetic after it wraps there (a narrow integer) or rounds there (fp16,
    /// bf16); the index is folded into the result through a comparison.
    fn reduction_with_indices(&mut self, value: &Operand, kind: &str, axis: u32, result_shape: Shape) -> Val {
        let (v, i) = (self.fresh("rv"), self.fresh("ri"));
        self.line(format!("{v}, {i} = tl.{kind}({}, axis={axis}, return_indices=True)", value.text));
        let dtype = value.dtype;
        let (text, bound) = if dtype.is_float() {
            (format!("{v} * 1.001 + 0.5 + ({i} > 7)"), value.bound * 1.001 + 1.5)
        } else {
            let literal = match dtype {
                Dtype::I16 => "32700",
                Dtype::I8 | Dtype::U8 => "100",
                _ => "7",
            };
            (format!("(({v} + {literal}) >> 1) + ({i} > 7)"), dtype.max_abs())
        };
        self.define(text, dtype, result_shape, bound, false)
    }

    // ---- templates ----

    /// 1D blocks over `n` elements.
    fn block_kernel(&mut self) {
        let block = *self.rng.pick(&[16u64, 32, 64, 128]);
        let n = self.odd_size(block / 2, block * 5);
        let programs = n.div_ceil(block);
        self.grid = [programs, 1, 1];
        self.line("pid = tl.program_id(0)");
        self.line("offs = pid * BLOCK + tl.arange(0, BLOCK)");
        self.line("mask = offs < n");
        self.layout(Shape::Block, &[block], "offs");
        let inputs = self.rng.range(1, 3);
        let mut stride_used = false;
        for i in 0..inputs {
            let dtype = self.input_dtype();
            match self.rng.range(0, 5) {
                0..=2 => {
                    let p = self.input_array(&format!("in{i}"), dtype, n);
                    if self.features.block_pointers && self.rng.chance(40) {
                        self.block_block_load(dtype, &p);
                    } else {
                        self.load("x", dtype, Shape::Block, &format!("{p} + offs"), "mask");
                    }
                }
                3 => {
                    let stride = self.rng.range(2, 5);
                    let p = self.input_array(&format!("in{i}"), dtype, n * stride);
                    if !stride_used {
                        self.int_param("stride", stride as i64);
                        stride_used = true;
                        self.load("x", dtype, Shape::Block, &format!("{p} + offs * stride"), "mask");
                    } else {
                        self.load("x", dtype, Shape::Block, &format!("{p} + offs * {stride}"), "mask");
                    }
                }
                _ => {
                    let p = self.input_array(&format!("in{i}"), dtype, n);
                    let g = self.fresh("g");
                    if self.rng.chance(50) {
                        let idx = self.input_array(&format!("idx{i}"), Dtype::I32, n);
                        self.line(format!("{g} = tl.load({idx} + offs, mask=mask, other=0)"));
                        self.line(format!("{g} = (({g} % n) + n) % n"));
                    } else {
                        let k = self.rng.range(2, 9);
                        self.line(format!("{g} = (offs * {k} + 1) % n"));
                    }
                    self.load("x", dtype, Shape::Block, &format!("{p} + {g}"), "mask");
                }
            }
        }
        if self.features.fp8_arrays && self.rng.chance(40) {
            self.fp8_load(Shape::Block, n, "mask");
        }
        if self.rng.chance(30) {
            self.vals.push(Val {
                name: "offs".into(),
                dtype: Dtype::I32,
                shape: Shape::Block,
                bound: n as f64 + block as f64,
                fuzzy: false,
            });
        }
        let count = self.rng.range(2, 8) as usize;
        self.statements(Shape::Block, count);
        if self.rng.chance(45) {
            self.block_loop();
        }
        let value = self.result(Shape::Block);
        if self.rng.chance(25) {
            // a bijective scatter: offs -> (offs * k) % n with gcd(k, n) = 1
            let k = *self.rng.pick(&[3u64, 5, 7]);
            let k = if n.is_multiple_of(k) { 1 } else { k };
            self.store("out", &value, n, |p| format!("{p} + (offs * {k}) % n"), "mask");
        } else {
            self.store("out", &value, n, |p| format!("{p} + offs"), "mask");
        }
        if self.rng.chance(40) {
            self.atomic(Shape::Block, n, "mask");
        }
        if self.features.unguarded_casts && self.rng.chance(35) {
            self.unguarded_cast(Shape::Block, n, "mask");
        }
        if self.features.fp8_casts && self.rng.chance(35) {
            self.fp8_store(Shape::Block, n, "mask");
        }
        if self.features.fp8_arrays && self.rng.chance(40) {
            self.fp8_array_store(Shape::Block, n, "mask");
        }
        if self.rng.chance(50) {
            let value = self.result(Shape::Block);
            let reds = if self.features.data_movement && self.rng.chance(25) {
                self.reordered_reduction(&value, block).into_iter().collect()
            } else {
                self.reductions(&value, Shape::Block, 0, block, Shape::Scalar)
            };
            for (i, red) in reds.into_iter().enumerate() {
                let red = Operand { text: red.name, dtype: red.dtype, bound: red.bound, fuzzy: red.fuzzy };
                self.store(&format!("red{}", suffix(i)), &red, programs, |p| format!("{p} + pid"), "pid < n");
            }
        }
        self.int_param("n", n as i64);
        self.constexpr("BLOCK", block);
    }

    /// A loop with a tensor carried across iterations: `for i in range(0, TRIPS)` or a
    /// runtime `while i < trips` (with `i` carried too).
    ///
    /// When the body reads the carried value its growth compounds (`acc + tl.cumsum(acc)`
    /// grows geometrically), so the body is generated once per trip from the same state, for
    /// the bound and fuzziness the carried value has on entering that trip. Bounds are
    /// monotone in their operands' bounds, so the last generation's bounds hold on every
    /// trip. The body is kept only if every generation wrote the same text; otherwise, or
    /// when a carried float would grow past its safe bound, the carried value is left
    /// unchanged by the loop and the body is generated for its seed.
    fn block_loop(&mut self) {
        let Some(seed) = self.operand(Shape::Block, false) else { return };
        let acc_dtype = if seed.dtype == Dtype::I1 { Dtype::I32 } else { seed.dtype };
        let trips = self.rng.range(2, 4);
        let acc = self.fresh("acc");
        self.line(format!("{acc} = {}", seed.text));
        let start = self.clone();
        let entry =
            Operand { text: acc, dtype: acc_dtype, bound: clamp_bound(acc_dtype, seed.bound), fuzzy: seed.fuzzy };
        let mut carried = entry.clone();
        let mut first_text: Option<Vec<String>> = None;
        let mut last = None;
        for _ in 0..trips {
            *self = start.clone();
            let (step, is_while) = self.block_loop_body(&carried, trips);
            let text = self.body[start.body.len()..].to_vec();
            let bound = if acc_dtype.is_unsigned() {
                // a negative step wraps
                acc_dtype.max_abs()
            } else if acc_dtype.is_int() && step.dtype.is_float() {
                carried.bound * 3.0 + trips as f64
            } else {
                carried.bound + step.bound.min(acc_dtype.max_abs())
            };
            let same_text = first_text.get_or_insert_with(|| text.clone()) == &text;
            if !same_text || (acc_dtype.is_float() && bound > acc_dtype.safe_float_bound()) {
                let start_scope = start.vals.len();
                *self = start;
                let (_, is_while) = self.block_loop_body(&entry, trips);
                self.line(format!("{} = tl.abs({})", entry.text, entry.text));
                return self.block_loop_close(is_while, entry, start_scope);
            }
            let fuzzy = carried.fuzzy || step.fuzzy;
            carried = Operand { bound: clamp_bound(acc_dtype, bound), fuzzy, ..carried };
            last = Some((step, is_while));
        }
        let Some((step, is_while)) = last else { unreachable!("a loop makes at least two trips") };
        let acc = &carried.text;
        if acc_dtype.is_int() && step.dtype.is_float() {
            // a float step would need a guarded cast; step the integer by the trip count
            self.line(format!("{acc} = ({acc} * 3 + i).to({})", acc_dtype.triton()));
        } else {
            self.line(format!("{acc} = {acc} + ({}).to({})", step.text, acc_dtype.triton()));
        }
        self.block_loop_close(is_while, carried, start.vals.len());
    }

    /// The header and statements of `block_loop`'s loop, for a carried value described by
    /// `carried`: returns the step (the body's result) and whether the loop is a `while`.
    fn block_loop_body(&mut self, carried: &Operand, trips: u64) -> (Operand, bool) {
        let is_while = self.rng.chance(50);
        if is_while {
            self.int_param("trips", trips as i64);
            self.line("i = 0");
            self.line("while i < trips:");
        } else {
            self.line(format!("for i in range(0, {trips}):"));
        }
        self.indent += 1;
        self.vals.push(Val {
            name: "i".into(),
            dtype: Dtype::I32,
            shape: Shape::Scalar,
            bound: trips as f64,
            fuzzy: false,
        });
        let Operand { text, dtype, bound, fuzzy } = carried.clone();
        self.vals.push(Val { name: text, dtype, shape: Shape::Block, bound, fuzzy });
        let count = self.rng.range(1, 3) as usize;
        self.statements(Shape::Block, count);
        (self.result(Shape::Block), is_while)
    }

    /// Ends `block_loop`'s loop: the values from `scope` on (the body's) go out of scope and
    /// the carried value is `carried`.
    fn block_loop_close(&mut self, is_while: bool, carried: Operand, scope: usize) {
        if is_while {
            self.line("i += 1");
        }
        self.indent -= 1;
        self.vals.truncate(scope);
        let Operand { text, dtype, bound, fuzzy } = carried;
        self.vals.push(Val { name: text, dtype, shape: Shape::Block, bound: clamp_bound(dtype, bound), fuzzy });
    }

    /// Loads of a 2D tile at `rows`/`cols` with `mask`, row-major `M x N` or column-major,
    /// or ([`Features::block_pointers`]) through block pointers made at `origin`; returns the
    /// lines that advance those (when `origin` is a loop).
    ///
    /// With [`Features::descriptor_tiles`] and aligned columns, a row-major tile may be read
    /// through a 2D tensor descriptor; with [`Features::partial_boundary_check`] a block
    /// pointer's array may hold a whole number of blocks along one dimension (`bm x bn`
    /// blocks on a grid of `grid` programs), leaving only the other checked.
    fn tile_loads(
        &mut self,
        [m, n]: [u64; 2],
        [bm, bn]: [u64; 2],
        grid: [u64; 2],
        inputs: u64,
        mut origin: BlockOrigin,
    ) -> Vec<String> {
        let mut advances = Vec::new();
        for i in 0..inputs {
            let dtype = self.input_dtype();
            let row_major = self.rng.chance(65);
            if self.features.block_pointers && self.rng.chance(45) {
                let pad = if self.features.partial_boundary_check && self.rng.chance(40) {
                    // a loop's blocks move along the columns, whose count no program count gives
                    let cols = matches!(origin, BlockOrigin::Here(..)) && self.rng.chance(50);
                    Some(if cols { Pad::Cols } else { Pad::Rows })
                } else {
                    None
                };
                let len = match pad {
                    Some(Pad::Rows) => grid[0] * bm * n,
                    Some(Pad::Cols) => m * grid[1] * bn,
                    None => m * n,
                };
                let p = self.input_array(&format!("in{i}"), dtype, len);
                advances.extend(self.tile_block_load(dtype, &p, row_major, &mut origin, pad));
                continue;
            }
            let p = self.input_array(&format!("in{i}"), dtype, m * n);
            if self.features.descriptor_tiles && row_major && self.descriptor_fits(dtype) && self.rng.chance(65) {
                self.tile_descriptor_load(dtype, &p, &origin);
            } else if row_major {
                self.load("x", dtype, Shape::Tile, &format!("{p} + rows[:, None] * N + cols[None, :]"), "mask");
            } else {
                self.load("x", dtype, Shape::Tile, &format!("{p} + rows[:, None] + cols[None, :] * M"), "mask");
            }
        }
        advances
    }

    /// 2D tiles over an `M x N` array on a 2D grid, with row/column reductions.
    fn tile_kernel(&mut self) {
        let (bm, bn) = (*self.rng.pick(&[16u64, 32]), *self.rng.pick(&[16u64, 32, 64]));
        let m = self.odd_size(3, bm * 3);
        self.columns_aligned = self.features.descriptor_tiles && self.rng.chance(60);
        let n = if self.columns_aligned { self.aligned_columns(3, bn * 3) } else { self.odd_size(3, bn * 3) };
        let (gm, gn) = (m.div_ceil(bm), n.div_ceil(bn));
        self.grid = [gm, gn, 1];
        self.line("pid_m = tl.program_id(0)");
        self.line("pid_n = tl.program_id(1)");
        self.line("rows = pid_m * BM + tl.arange(0, BM)");
        self.line("cols = pid_n * BN + tl.arange(0, BN)");
        self.line("rmask = rows < M");
        self.line("cmask = cols < N");
        self.line("mask = rmask[:, None] & cmask[None, :]");
        self.layout(Shape::Tile, &[bm, bn], "rows[:, None] * N + cols[None, :]");
        self.layout(Shape::Rows, &[bm], "rows");
        self.layout(Shape::Cols, &[bn], "cols");
        let inputs = self.rng.range(1, 2);
        self.tile_loads([m, n], [bm, bn], [gm, gn], inputs, BlockOrigin::Here("pid_m * BM", "pid_n * BN"));
        if self.features.fp8_arrays && self.rng.chance(40) {
            self.fp8_load(Shape::Tile, m * n, "mask");
        }
        if self.rng.chance(50) {
            let dtype = self.input_dtype();
            let p = self.input_array("rowv", dtype, m);
            if self.features.tensor_descriptors && self.rng.chance(50) {
                self.descriptor_load(dtype, Shape::Rows, &p);
            } else {
                self.load("r", dtype, Shape::Rows, &format!("{p} + rows"), "rmask");
            }
        }
        if self.rng.chance(50) {
            let dtype = self.input_dtype();
            let p = self.input_array("colv", dtype, n);
            if self.features.tensor_descriptors && self.rng.chance(50) {
                self.descriptor_load(dtype, Shape::Cols, &p);
            } else {
                self.load("c", dtype, Shape::Cols, &format!("{p} + cols"), "cmask");
            }
        }
        let count = self.rng.range(2, 7) as usize;
        self.statements(Shape::Tile, count);
        let value = self.result(Shape::Tile);
        let is_tile = self.vals.iter().any(|v| v.name == value.text && v.shape == Shape::Tile);
        let through_descriptor = self.features.descriptor_tiles && is_tile && self.rng.chance(50);
        if self.features.block_pointers && is_tile && self.rng.chance(40) {
            self.tile_block_store("out", &value, m * n);
        } else if !(through_descriptor && self.tile_descriptor_store("out", &value, m * n)) {
            self.store("out", &value, m * n, |p| format!("{p} + rows[:, None] * N + cols[None, :]"), "mask");
        }
        if self.rng.chance(35) {
            self.atomic(Shape::Tile, m * n, "mask");
        }
        if self.features.unguarded_casts && self.rng.chance(35) {
            self.unguarded_cast(Shape::Tile, m * n, "mask");
        }
        if self.features.fp8_casts && self.rng.chance(35) {
            self.fp8_store(Shape::Tile, m * n, "mask");
        }
        if self.features.fp8_arrays && self.rng.chance(40) {
            self.fp8_array_store(Shape::Tile, m * n, "mask");
        }
        if self.features.descriptor_atomics && self.rng.chance(30) {
            self.tile_descriptor_atomic(bm, bn, gm * gn);
        }
        if self.features.narrow_float_sums && self.rng.chance(40) {
            self.narrow_sum(bm * bn, [gm, gn]);
        }
        if self.rng.chance(60) {
            let value = self.result(Shape::Tile);
            let reds = self.reductions(&value, Shape::Tile, 1, bn, Shape::Rows);
            if !reds.is_empty() {
                self.statements(Shape::Rows, 1);
            }
            for (i, red) in reds.into_iter().enumerate() {
                let red = Operand { text: red.name, dtype: red.dtype, bound: red.bound, fuzzy: red.fuzzy };
                let stem = format!("rowred{}", suffix(i));
                self.store(&stem, &red, gn * m, |p| format!("{p} + pid_n * M + rows"), "rmask");
            }
        }
        if self.rng.chance(40) {
            let value = self.result(Shape::Tile);
            for (i, red) in self.reductions(&value, Shape::Tile, 0, bm, Shape::Cols).into_iter().enumerate() {
                let red = Operand { text: red.name, dtype: red.dtype, bound: red.bound, fuzzy: red.fuzzy };
                let stem = format!("colred{}", suffix(i));
                self.store(&stem, &red, gm * n, |p| format!("{p} + pid_m * N + cols"), "cmask");
            }
        }
        self.int_param("M", m as i64);
        self.int_param("N", n as i64);
        self.constexpr("BM", bm);
        self.constexpr("BN", bn);
    }

    /// Rows on a 1D grid; a loop over column blocks carries a per-row accumulator.
    fn row_loop_kernel(&mut self) {
        let (bm, bn) = (*self.rng.pick(&[16u64, 32]), *self.rng.pick(&[16u64, 32]));
        let m = self.odd_size(3, bm * 3);
        self.columns_aligned = self.features.descriptor_tiles && self.rng.chance(60);
        let n = if self.columns_aligned { self.aligned_columns(3, bn * 4) } else { self.odd_size(3, bn * 4) };
        self.grid = [m.div_ceil(bm), 1, 1];
        self.line("pid = tl.program_id(0)");
        self.line("rows = pid * BM + tl.arange(0, BM)");
        self.line("rmask = rows < M");
        let combine = *self.rng.pick(&["sum", "max", "min"]);
        // the accumulator's type is chosen once the loop body's value is known
        let acc_line = self.body.len();
        self.line("");
        let header = self.body.len();
        self.line("for start in range(0, N, BN):");
        self.indent += 1;
        self.line("cols = start + tl.arange(0, BN)");
        self.line("mask = rmask[:, None] & (cols[None, :] < N)");
        self.layout(Shape::Tile, &[bm, bn], "rows[:, None] * N + cols[None, :]");
        let inputs = self.rng.range(1, 2);
        let origin = BlockOrigin::Loop { header, offsets: "(pid * BM, 0)", step: "(0, BN)" };
        let advances = self.tile_loads([m, n], [bm, bn], [m.div_ceil(bm), 1], inputs, origin);
        let count = self.rng.range(1, 5) as usize;
        self.statements(Shape::Tile, count);
        let value = self.result(Shape::Tile);
        let acc_dtype = if value.dtype.is_float() {
            *self.rng.pick(&[Dtype::F32, Dtype::F64])
        } else {
            *self.rng.pick(&[Dtype::F32, Dtype::F64, Dtype::I32, Dtype::I64])
        };
        self.body[acc_line] = format!("    acc = tl.zeros((BM,), dtype={})", acc_dtype.triton());
        let bound = value.bound.min(acc_dtype.max_abs());
        let (fuzzy, acc_bound) = match combine {
            "sum" => (value.fuzzy || acc_dtype.is_float(), bound * n as f64),
            _ => (value.fuzzy, bound),
        };
        let masked = format!("tl.where(mask, {}, 0)", value.text);
        if acc_dtype.is_float() && acc_bound > acc_dtype.safe_float_bound() {
            self.line(format!("acc = tl.maximum(acc, tl.max({masked}, axis=1).to({}))", acc_dtype.triton()));
        } else if combine == "sum" {
            self.note_narrow_accumulation(value.dtype, bn as f64);
            self.line(format!("acc += tl.sum({masked}, axis=1).to({})", acc_dtype.triton()));
        } else {
            self.line(format!(
                "acc = tl.{combine}imum(acc, tl.{combine}({masked}, axis=1).to({}))",
                acc_dtype.triton()
            ));
        }
        for advance in advances {
            self.line(advance);
        }
        self.indent -= 1;
        self.vals.retain(|v| v.shape != Shape::Tile);
        let acc = Operand { text: "acc".into(), dtype: acc_dtype, bound: clamp_bound(acc_dtype, acc_bound), fuzzy };
        self.store("out", &acc, m, |p| format!("{p} + rows"), "rmask");
        self.int_param("M", m as i64);
        self.int_param("N", n as i64);
        self.constexpr("BM", bm);
        self.constexpr("BN", bn);
    }

    /// `C = A @ B` blocked over a 2D grid with a K loop.
    fn dot_kernel(&mut self) {
        let (bm, bn, bk) = (*self.rng.pick(&[16u64, 32]), *self.rng.pick(&[16u64, 32]), *self.rng.pick(&[16u64, 32]));
        let (m, n, k) = (self.odd_size(3, bm * 2), self.odd_size(3, bn * 2), self.odd_size(3, bk * 3));
        self.grid = [m.div_ceil(bm), n.div_ceil(bn), 1];
        let (in_dtype, acc_dtype) = *self.rng.pick(&[
            (Dtype::F16, Dtype::F32),
            (Dtype::BF16, Dtype::F32),
            (Dtype::F32, Dtype::F32),
            (Dtype::I8, Dtype::I32),
        ]);
        let a = self.input_array("a", in_dtype, m * k);
        let b = self.input_array("b", in_dtype, k * n);
        self.line("pid_m = tl.program_id(0)");
        self.line("pid_n = tl.program_id(1)");
        self.line("rm = pid_m * BM + tl.arange(0, BM)");
        self.line("rn = pid_n * BN + tl.arange(0, BN)");
        self.line(format!("acc = tl.zeros((BM, BN), dtype={})", acc_dtype.triton()));
        let header = self.body.len();
        self.line("for start in range(0, K, BK):");
        self.indent += 1;
        self.line("rk = start + tl.arange(0, BK)");
        let block_pointers = self.features.block_pointers && self.rng.chance(50);
        if block_pointers {
            self.dot_block_loads(&a, &b, header);
        } else {
            self.line(format!(
                "a = tl.load({a} + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0)"
            ));
            self.line(format!(
                "b = tl.load({b} + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0)"
            ));
        }
        if self.rng.chance(40) {
            let op = if in_dtype.is_float() {
                *self.rng.pick(&["a * 2.0", "tl.abs(a)", "-a"])
            } else {
                *self.rng.pick(&["a // 2", "a - a // 4", "-a"])
            };
            self.line(format!("a = {op}"));
        }
        self.line("acc += tl.dot(a, b)");
        if block_pointers {
            self.line("a_bp = tl.advance(a_bp, (0, BK))");
            self.line("b_bp = tl.advance(b_bp, (BK, 0))");
        }
        self.indent -= 1;
        let bound = if in_dtype.is_float() { 2.0 * k as f64 } else { 256.0 * 128.0 * k as f64 };
        self.vals.push(Val {
            name: "acc".into(),
            dtype: acc_dtype,
            shape: Shape::Tile,
            bound,
            fuzzy: acc_dtype.is_float(),
        });
        self.line("mask = (rm[:, None] < M) & (rn[None, :] < N)");
        self.layout(Shape::Tile, &[bm, bn], "rm[:, None] * N + rn[None, :]");
        let count = self.rng.range(0, 3) as usize;
        self.statements(Shape::Tile, count);
        let value = self.result(Shape::Tile);
        self.store("c", &value, m * n, |p| format!("{p} + rm[:, None] * N + rn[None, :]"), "mask");
        self.int_param("M", m as i64);
        self.int_param("N", n as i64);
        self.int_param("K", k as i64);
        self.constexpr("BM", bm);
        self.constexpr("BN", bn);
        self.constexpr("BK", bk);
    }

    // ---- output ----

    fn finish(mut self, name: &str) -> Kernel {
        if self.uses_seed {
            let seed = self.rng.range(0, 1 << 30) as i64;
            self.int_param("seed", seed);
        }
        let mut signature = Vec::new();
        let mut constants = Vec::new();
        let mut constant_values = Vec::new();
        let mut run_args =
            vec!["--grid".to_string(), self.grid.iter().map(u64::to_string).collect::<Vec<_>>().join(",")];
        let mut declared = Vec::new();
        for (i, p) in self.params.iter().enumerate() {
            match p {
                Param::Array { name, dtype, init, len, .. } => {
                    signature.push(format!("*{}:16", dtype.short()));
                    let seed = if *init == "rand" { format!(":{}", i + 1) } else { String::new() };
                    run_args.push(format!("{name}={init}:{}:{len}{seed}", dtype.short()));
                    declared.push(name.clone());
                }
                Param::Fp8Array { name, fp8, init, len } => {
                    signature.push(format!("*{fp8}:16"));
                    let seed = if *init == "rand" { format!(":{}", i + 1) } else { String::new() };
                    run_args.push(format!("{name}={init}:{fp8}:{len}{seed}"));
                    declared.push(name.clone());
                }
                Param::Int { name, value } => {
                    signature.push("i32".to_string());
                    run_args.push(format!("{name}={value}"));
                    declared.push(name.clone());
                }
                Param::Constexpr { name, value } => {
                    constants.push(format!("-c {name}={value}"));
                    constant_values.push((name.clone(), *value));
                    run_args.push(format!("{name}={value}"));
                    declared.push(format!("{name}: tl.constexpr"));
                }
            }
        }
        let outputs = self
            .outputs
            .iter()
            .map(|(name, dtype, bound, fuzzy)| {
                let (abs_tol, triton_abs_tol) = match self.tolerances.iter().find(|(n, _)| n == name) {
                    Some((_, tol)) => (*tol, *tol),
                    None if *fuzzy => {
                        let bound = self.finite_bounds.iter().find(|(n, _)| n == name).map_or(*bound, |(_, b)| *b);
                        let tol = tolerance(*dtype, bound);
                        let narrow = if dtype.is_float() && self.narrow_accumulation > 0.0 {
                            bound.max(1.0) * self.narrow_accumulation
                        } else {
                            0.0
                        };
                        (tol, tol + narrow)
                    }
                    None => (0.0, 0.0),
                };
                OutputCheck {
                    name: name.clone(),
                    dtype: *dtype,
                    abs_tol,
                    triton_abs_tol,
                    bound: *bound,
                    undefined_in_triton: self.undefined.iter().find(|(n, _)| n == name).map(|(_, why)| *why),
                }
            })
            .collect();
        let mut source = format!("# tilec: -k {name} -s \"{}\" {}\n", signature.join(", "), constants.join(" "));
        source.push_str(&format!("# tilec-run: {}\n", run_args.join(" ")));
        source.push_str("import triton\nimport triton.language as tl\n\n\n");
        for helper in &self.helpers {
            source.push_str(&format!("@triton.jit\n{helper}\n\n"));
        }
        source.push_str("@triton.jit\n");
        source.push_str(&format!("def {name}({}):\n", declared.join(", ")));
        for line in &self.body {
            source.push_str(line);
            source.push('\n');
        }
        Kernel {
            name: name.to_string(),
            source,
            run_args,
            outputs,
            signature: signature.join(", "),
            constants: constant_values,
        }
    }
}

/// The dtype and expression `value` is stored as: masks as `int8`.
fn stored_form(value: &Operand) -> (Dtype, String) {
    if value.dtype == Dtype::I1 {
        (Dtype::I8, format!("{}.to(tl.int8)", value.text))
    } else {
        (value.dtype, value.text.clone())
    }
}

/// The suffix that tells apart the `i`-th output of one kind: none for the first.
fn suffix(i: usize) -> String {
    if i == 0 {
        String::new()
    } else {
        i.to_string()
    }
}

/// A bound no larger than the type can hold.
fn clamp_bound(dtype: Dtype, bound: f64) -> f64 {
    bound.min(dtype.max_abs())
}

/// The absolute tolerance of a fuzzy output of `dtype` whose magnitudes stay below `bound`.
fn tolerance(dtype: Dtype, bound: f64) -> f64 {
    let eps = dtype.epsilon().max(Dtype::F32.epsilon());
    if dtype.is_float() {
        (bound.max(1.0) * eps * 64.0).max(1e-6)
    } else {
        // a fuzzy integer is a float-derived value clamped and cast: one unit either way
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The switches of docs/oracle.md's numbered differences, without the later ones.
    const FIRST_SWITCHES: Features = Features {
        data_movement: false,
        tuple_combines: false,
        fp8_casts: false,
        block_pointers: false,
        tensor_descriptors: false,
        fp8_arrays: false,
        descriptor_tiles: false,
        descriptor_atomics: false,
        partial_boundary_check: false,
        ..Features::all()
    };

    #[test]
    fn switches_that_are_off_draw_no_random_numbers() {
        for seed in 0..200 {
            assert_eq!(generate(seed).source, generate_with(seed, &Features::none()).source);
        }
        // turning the later switches off gives the kernels of the first ones, and each
        // later switch changes some kernel
        let later: [fn(&mut Features); 9] = [
            |f| f.data_movement = true,
            |f| f.tuple_combines = true,
            |f| f.fp8_casts = true,
            |f| f.block_pointers = true,
            |f| f.tensor_descriptors = true,
            |f| f.fp8_arrays = true,
            |f| f.descriptor_tiles = true,
            |f| f.descriptor_atomics = true,
            |f| {
                f.block_pointers = true;
                f.partial_boundary_check = true;
            },
        ];
        for (i, switch_on) in later.iter().enumerate() {
            let mut features = FIRST_SWITCHES;
            switch_on(&mut features);
            // partial boundary checks need block pointers: compared with block pointers alone
            let mut base = FIRST_SWITCHES;
            if i == later.len() - 1 {
                base.block_pointers = true;
            }
            let changed = (0..100)
                .filter(|&seed| generate_with(seed, &features).source != generate_with(seed, &base).source)
                .count();
            assert!(changed > 0, "{} changes no kernel", features.describe());
        }
    }

    #[test]
    fn every_new_construct_appears_with_its_switch_only() {
        type Switch = fn(&Features) -> bool;
        let constructs: [(&str, Switch, &[&str]); 9] = [
            (
                "data_movement",
                |f| f.data_movement,
                &[
                    "tl.split(",
                    "tl.join(",
                    "tl.interleave(",
                    "tl.permute(",
                    "tl.trans(",
                    "tl.flip(",
                    "can_reorder=True",
                ],
            ),
            (
                "tuple_combines",
                |f| f.tuple_combines,
                &[
                    "tl.reduce((",
                    "tl.associative_scan((",
                    "def _first_max(",
                    "def _first_min(",
                    "def _welford(",
                    "def _sum_count(",
                    "def _affine(",
                ],
            ),
            (
                "fp8_casts",
                |f| f.fp8_casts,
                &[
                    "tl.float8e4nv",
                    "tl.float8e5)",
                    "tl.float8e4b15",
                    "tl.float8e4b8",
                    "tl.float8e5b16",
                    "float(\"inf\")",
                ],
            ),
            (
                "block_pointers",
                |f| f.block_pointers,
                &[
                    "tl.make_block_ptr(",
                    "tl.advance(",
                    "padding_option=\"nan\"",
                    "padding_option=\"zero\"",
                    "boundary_check=(1, 0)",
                    "tl.store(bp",
                ],
            ),
            ("tensor_descriptors", |f| f.tensor_descriptors, &[".load([pid_m * BM", ".load([pid_n * BN"]),
            ("fp8_arrays", |f| f.fp8_arrays, &["f8in", "f8out", "*fp8e4nv:16", "*fp8e5b16:16"]),
            (
                "descriptor_tiles",
                |f| f.descriptor_tiles,
                &["shape=[M, N], strides=[N, 1]", ".store([pid_m * BM, pid_n * BN]", ", start])"],
            ),
            (
                "descriptor_atomics",
                |f| f.descriptor_atomics,
                &[".atomic_add([0, 0]", ".atomic_xor([0, 0]", "datom_ptr"],
            ),
            (
                "partial_boundary_check",
                |f| f.partial_boundary_check,
                &["boundary_check=(1,)", "boundary_check=(0,)", "tl.num_programs(0) * BM", "tl.num_programs(1) * BN"],
            ),
        ];
        let with_all: Vec<String> = (0..400).map(|seed| generate_with(seed, &Features::all()).source).collect();
        let without: Vec<String> = (0..400).map(|seed| generate_with(seed, &FIRST_SWITCHES).source).collect();
        for (name, switch, needles) in constructs {
            assert!(switch(&Features::all()) && !switch(&FIRST_SWITCHES), "{name}");
            for needle in needles {
                assert!(with_all.iter().any(|s| s.contains(needle)), "`{needle}` ({name}) is never generated");
                assert!(!without.iter().any(|s| s.contains(needle)), "`{needle}` appears with {name} off");
            }
        }
        // what Triton 3.9 has no block pointers for and rounds fp8 otherwise stays out of the oracle's set
        let triton = Features::triton();
        assert!(!triton.block_pointers && !triton.fp8_casts && triton.data_movement && triton.tuple_combines);
        assert!(!triton.fp8_arrays && !triton.partial_boundary_check && triton.descriptor_tiles);
        assert!(!triton.descriptor_atomics);
    }

    #[test]
    fn the_same_seed_gives_the_same_kernel() {
        assert_eq!(generate(7).source, generate(7).source);
        assert_ne!(generate(7).source, generate(8).source);
    }

    #[test]
    fn kernels_carry_the_fixture_headers_and_outputs() {
        for seed in 0..200 {
            let k = generate(seed);
            assert!(k.source.starts_with("# tilec: -k "), "{}", k.source);
            assert!(k.source.lines().nth(1).unwrap().starts_with("# tilec-run: --grid "), "{}", k.source);
            assert!(!k.outputs.is_empty(), "seed {seed} has no output:\n{}", k.source);
            for out in &k.outputs {
                assert!(k.run_args.iter().any(|a| a.starts_with(&format!("{}=zeros:", out.name))), "{}", k.source);
            }
        }
    }

    #[test]
    fn random_numbers_and_while_loops_declare_their_runtime_parameters() {
        for seed in 0..300 {
            let k = generate(seed);
            let uses_rand = k.source.contains("tl.rand(") || k.source.contains("tl.randint(");
            assert_eq!(uses_rand, run_arg(&k.run_args, "seed").is_some(), "{}", k.source);
            let uses_while = k.source.contains("while i < trips:");
            assert_eq!(uses_while, run_arg(&k.run_args, "trips").is_some(), "{}", k.source);
            if uses_while {
                assert!(k.source.contains("        i += 1\n"), "the while loop never steps:\n{}", k.source);
            }
        }
    }

    #[test]
    fn tolerances_are_numbers_and_nan_lanes_keep_the_finite_bound() {
        for seed in (0..300).chain([1_000_629]) {
            let k = generate_with(seed, &Features::all());
            for o in &k.outputs {
                assert!(!o.abs_tol.is_nan() && !o.triton_abs_tol.is_nan(), "{}: {}", o.name, k.source);
            }
        }
        // an fp32 atomic_min of a cumsum whose lanes above 0.5 are NaN: the slots' bound is
        // unknown, their tolerance comes from the bound of the other lanes (the kernel of the
        // switches that existed when it was found)
        let k = generate_with(1_000_629, &FIRST_SWITCHES);
        let slots = k.outputs.iter().find(|o| o.name == "atom_ptr").expect("the slot array is an output");
        assert!(k.source.contains("float(\"nan\")"), "{}", k.source);
        assert!(slots.bound.is_infinite(), "{}", k.source);
        assert!(slots.triton_abs_tol.is_finite() && slots.triton_abs_tol > 0.0, "{}", k.source);
    }

    #[test]
    fn atomics_write_a_compared_slot_array_and_their_old_values() {
        let (mut seen, mut compare_and_swaps) = (0, 0);
        for seed in 0..300 {
            let k = generate(seed);
            if !k.source.contains("tl.atomic_") {
                continue;
            }
            seen += 1;
            compare_and_swaps += usize::from(k.source.contains("tl.atomic_cas("));
            let slots = k.outputs.iter().find(|o| o.name == "atom_ptr").expect("the slot array is an output");
            let old = k.outputs.iter().find(|o| o.name == "old_ptr").expect("the old values are an output");
            // integer atomics are exact; a float atomic_add has a tolerance
            if slots.dtype.is_int() {
                assert_eq!((slots.abs_tol, old.abs_tol), (0.0, 0.0), "{}", k.source);
            }
            if k.source.contains("tl.atomic_add(") && slots.dtype == Dtype::F32 {
                assert!(slots.abs_tol > 0.0, "{}", k.source);
            }
        }
        assert!(seen > 20, "only {seen} of 300 kernels use atomics");
        assert!(compare_and_swaps > 0, "none of {seen} kernels with atomics uses atomic_cas");
    }
}
