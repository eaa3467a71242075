//! The benchmarks: which kernel, how it is specialized and launched, its C reference, the
//! lower-bound model (documented in `bench/README.md`) and the targets the issues set.

use super::measure::Config;

/// One argument slot of the launch, in the kernel's runtime-argument order.
#[derive(Clone, Debug)]
pub enum Arg {
    /// An array, passed by its address.
    Array(Array),
    /// A table of the arrays' addresses (int64), as Triton's grouped GEMM tutorial passes its
    /// matrices.
    Table(Vec<Array>),
    I32(i32),
    F32(f32),
}

impl Arg {
    pub fn rand(elem: Elem, len: usize) -> Arg {
        Arg::Array(Array::Rand(elem, len))
    }

    pub fn output(elem: Elem, len: usize) -> Arg {
        Arg::Array(Array::Output(elem, len))
    }

    pub fn scratch(elem: Elem, len: usize) -> Arg {
        Arg::Array(Array::Scratch(elem, len))
    }
}

/// An array of the launch.
#[derive(Clone, Debug)]
pub enum Array {
    /// `len` pseudo-random values in [-1, 1) (floats only).
    Rand(Elem, usize),
    /// `len` pseudo-random fp32 values in [`low`, `low` + 2): those of `Rand` shifted.
    Range(usize, f32),
    /// `len` pseudo-random integers in [0, `below`).
    Indices(Elem, usize, u64),
    /// These integers.
    Ints(Elem, Vec<i64>),
    /// A zero-filled array of `len` elements; the kernel's result, compared across configurations.
    Output(Elem, usize),
    /// A zero-filled array the kernel also writes, not compared.
    Scratch(Elem, usize),
}

impl Array {
    pub fn elem(&self) -> Elem {
        match self {
            Array::Range(..) => Elem::F32,
            Array::Rand(e, _)
            | Array::Indices(e, ..)
            | Array::Ints(e, _)
            | Array::Output(e, _)
            | Array::Scratch(e, _) => *e,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Array::Rand(_, n)
            | Array::Range(n, _)
            | Array::Indices(_, n, _)
            | Array::Output(_, n)
            | Array::Scratch(_, n) => *n,
            Array::Ints(_, values) => values.len(),
        }
    }

    pub fn bytes(&self) -> usize {
        self.elem().bytes() * self.len()
    }

    /// Whether the array starts with given contents (else zero-filled).
    pub fn is_input(&self) -> bool {
        !matches!(self, Array::Output(..) | Array::Scratch(..))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    F32,
    F16,
    I32,
    I64,
}

impl Elem {
    pub fn bytes(self) -> usize {
        match self {
            Elem::F32 | Elem::I32 => 4,
            Elem::F16 => 2,
            Elem::I64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Elem::F32 | Elem::F16)
    }
}

/// How closely a configuration's outputs must match the reference's: floats within
/// `atol + rtol·|reference|`, integers exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub rtol: f32,
    pub atol: f32,
    /// Why it is not the default; empty for [`Tolerance::DEFAULT`].
    pub reason: &'static str,
}

impl Tolerance {
    pub const DEFAULT: Tolerance = Tolerance { rtol: 1e-3, atol: 1e-5, reason: "" };
}

/// A performance target from an issue, checked on the tilec riscv64gcv configuration.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// Instructions at most `max` times the bound at this VLEN.
    Ratio { vlen: u32, max: f64 },
    /// At most `max` instructions at this VLEN.
    Count { vlen: u32, max: u64 },
}

impl Target {
    pub fn vlen(self) -> u32 {
        match self {
            Target::Ratio { vlen, .. } | Target::Count { vlen, .. } => vlen,
        }
    }

    pub fn describe(self) -> String {
        match self {
            Target::Ratio { max, .. } => format!("≤ {max}× bound"),
            Target::Count { max, .. } => format!("≤ {}", group_digits(max)),
        }
    }

    pub fn passes(self, instructions: u64, bound: u64) -> bool {
        match self {
            Target::Ratio { max, .. } => instructions as f64 <= max * bound as f64,
            Target::Count { max, .. } => instructions <= max,
        }
    }
}

/// The target every benchmark has (issue 18): tilec riscv64gcv at each of these VLENs within
/// `max_instructions` times the instruction bound and `max_weighted` times the LMUL-weighted
/// bound.
pub struct BoundTarget {
    pub vlens: [u32; 3],
    pub max_instructions: f64,
    pub max_weighted: f64,
}

pub const BOUND_TARGET: BoundTarget = BoundTarget { vlens: [128, 256, 512], max_instructions: 1.5, max_weighted: 1.3 };

/// Instructions of a lower-bound model and their LMUL-weighted sum: a vector instruction at
/// LMUL 8 weighs 8 (the registers of its group), `vsetvli` and scalar instructions 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    pub instructions: u64,
    pub weighted: u64,
}

/// The instructions the model charges for a vector `exp` (a polynomial after range reduction).
pub const EXP_INSTRUCTIONS: u64 = 16;

impl Cost {
    /// `n` scalar instructions (loop control, scalar loads) or `vsetvli`s.
    pub const fn scalar(n: u64) -> Cost {
        Cost { instructions: n, weighted: n }
    }

    /// `n` vector instructions (loads, stores, arithmetic) on LMUL-8 register groups.
    pub const fn vector(n: u64) -> Cost {
        Cost { instructions: n, weighted: 8 * n }
    }

    /// `n` vector instructions on the fp16 half of an LMUL-8 fp32 strip: loads and stores of
    /// fp16 data and the widening and narrowing conversions, at LMUL 4 (weight 4).
    pub const fn half(n: u64) -> Cost {
        Cost { instructions: n, weighted: 4 * n }
    }

    /// `n` vector `exp`s at LMUL 8, [`EXP_INSTRUCTIONS`] vector instructions each.
    pub const fn exp(n: u64) -> Cost {
        Cost::vector(n * EXP_INSTRUCTIONS)
    }

    pub const fn plus(self, other: Cost) -> Cost {
        Cost { instructions: self.instructions + other.instructions, weighted: self.weighted + other.weighted }
    }
}

/// One term of a lower-bound model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// `per_strip` for each strip of VLEN·8/32 fp32 elements, over `rows` rows of `row_len`
    /// elements each (a row's last strip may be partial).
    Strips { per_strip: Cost, rows: u64, row_len: u64 },
    /// `per_fma` for each LMUL-8 `vfmacc.vf`: `fmas` / (VLEN·8/32) of them.
    Fmas { per_fma: Cost, fmas: u64 },
    /// As `Strips`, plus `per_step` for each of the log2(VLEN·8/32) steps of a prefix scan
    /// inside the strip's registers.
    ScanStrips { per_strip: Cost, per_step: Cost, rows: u64, row_len: u64 },
    /// As `Strips`: what plain RVV 1.0's integer fp16 conversions cost beyond the
    /// one-instruction ones the other terms charge ([`Cost::half`], which Zvfhmin's
    /// `vfwcvt`/`vfncvt` reach); not part of the bound of a configuration with Zvfhmin.
    Fp16Integer { per_strip: Cost, rows: u64, row_len: u64 },
}

impl Term {
    /// How many times the term's unit (a strip, an LMUL-8 `vfmacc.vf`) occurs at `vlen`.
    fn units(self, vlen: u32) -> u64 {
        let lanes = u64::from(vlen) * 8 / 32;
        match self {
            Term::Strips { rows, row_len, .. }
            | Term::ScanStrips { rows, row_len, .. }
            | Term::Fp16Integer { rows, row_len, .. } => rows * row_len.div_ceil(lanes),
            Term::Fmas { fmas, .. } => fmas.div_ceil(lanes),
        }
    }

    /// The cost of one unit at `vlen`.
    fn unit_cost(self, vlen: u32) -> Cost {
        match self {
            Term::Strips { per_strip: cost, .. }
            | Term::Fmas { per_fma: cost, .. }
            | Term::Fp16Integer { per_strip: cost, .. } => cost,
            Term::ScanStrips { per_strip, per_step, .. } => {
                let steps = u64::from((vlen * 8 / 32).ilog2());
                per_strip
                    .plus(Cost { instructions: per_step.instructions * steps, weighted: per_step.weighted * steps })
            }
        }
    }

    fn describe(self) -> String {
        let Cost { instructions: i, weighted: w } = self.unit_cost(128);
        match self {
            Term::ScanStrips { per_strip, per_step, rows, row_len } => {
                let (pi, pw) = (per_strip.instructions, per_strip.weighted);
                let (si, sw) = (per_step.instructions, per_step.weighted);
                format!(
                    "{pi} instructions ({pw} weighted) per strip and {si} ({sw}) per step of its log2(VLEN/4)-step scan, {rows} rows × {row_len}"
                )
            }
            Term::Strips { rows: 1, row_len, .. } => {
                format!("{i} instructions ({w} weighted) per strip, {} elements", group_digits(row_len))
            }
            Term::Strips { rows, row_len, .. } => {
                format!("{i} instructions ({w} weighted) per strip, {rows} rows × {row_len}")
            }
            Term::Fmas { fmas, .. } => {
                format!("{i} instructions ({w} weighted) per vfmacc.vf m8, {} FMAs", group_digits(fmas))
            }
            Term::Fp16Integer { rows, row_len, .. } => {
                format!("{i} instructions ({w} weighted) per strip of fp16 conversions without Zvfhmin, {rows} rows × {row_len}")
            }
        }
    }
}

/// The lower-bound model of a benchmark (see `bench/README.md`): the sum of its terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    pub terms: Vec<Term>,
}

impl Bound {
    pub fn strips(per_strip: Cost, rows: u64, row_len: u64) -> Bound {
        Bound { terms: vec![Term::Strips { per_strip, rows, row_len }] }
    }

    /// `m·n·k` FMAs of a matrix product.
    pub fn matmul(per_fma: Cost, m: u64, n: u64, k: u64) -> Bound {
        Bound { terms: vec![Term::Fmas { per_fma, fmas: m * n * k }] }
    }

    /// `fmas` FMAs of fp16 data in dots.
    pub fn fp16_dots(fmas: u64) -> Bound {
        Bound { terms: vec![Term::Fmas { per_fma: MATMUL_F16_FMA, fmas }] }
    }

    pub fn plus(mut self, term: Term) -> Bound {
        self.terms.push(term);
        self
    }

    /// The bound in instructions at `vlen`.
    pub fn at(&self, vlen: u32) -> u64 {
        self.terms.iter().map(|t| t.unit_cost(vlen).instructions * t.units(vlen)).sum()
    }

    /// The LMUL-weighted bound at `vlen`.
    pub fn weighted_at(&self, vlen: u32) -> u64 {
        self.terms.iter().map(|t| t.unit_cost(vlen).weighted * t.units(vlen)).sum()
    }

    pub fn describe(&self) -> String {
        self.terms.iter().map(|t| t.describe()).collect::<Vec<_>>().join(" + ")
    }

    /// The bound on a core with Zvfhmin: without the [`Term::Fp16Integer`] terms.
    pub fn with_zvfhmin(&self) -> Bound {
        Bound { terms: self.terms.iter().copied().filter(|t| !matches!(t, Term::Fp16Integer { .. })).collect() }
    }

    /// Plus plain RVV's fp16 conversion cost `per_strip` over `rows` rows of `row_len`.
    pub fn plus_fp16_integer(self, per_strip: Cost, rows: u64, row_len: u64) -> Bound {
        self.plus(Term::Fp16Integer { per_strip, rows, row_len })
    }
}

/// One benchmark.
#[derive(Clone, Debug)]
pub struct Benchmark {
    pub name: &'static str,
    /// The Triton kernel, relative to the workspace root.
    pub kernel_file: &'static str,
    pub kernel: &'static str,
    pub signature: &'static str,
    pub constants: &'static [&'static str],
    /// The C reference, relative to the workspace root; defines `KERNEL` and `KERNEL_launch`.
    pub c_file: &'static str,
    /// The C reference calling SLEEF's math functions (RVV intrinsics with `vsetvl` strips under
    /// `__riscv_v`, scalar calls otherwise), for kernels where a C programmer would call vector
    /// math; same symbols as `c_file`.
    pub sleef_c_file: Option<&'static str>,
    pub grid: [u32; 3],
    pub args: Vec<Arg>,
    pub tolerance: Tolerance,
    pub bound: Bound,
    pub targets: &'static [Target],
}

impl Benchmark {
    /// The configurations this benchmark is measured in: every one of [`Config::ALL`], the
    /// SLEEF ones only when there is a SLEEF variant, Zvfh only for fp16 data.
    pub fn configs(&self) -> Vec<Config> {
        Config::ALL
            .into_iter()
            .filter(|c| !c.calls_sleef() || self.sleef_c_file.is_some())
            .filter(|c| *c != Config::TilecVectorZvfh || self.has_fp16())
            .collect()
    }

    /// The lower bound of `config`: with Zvfh, without plain RVV's integer fp16 conversions
    /// ([`Term::Fp16Integer`]).
    pub fn bound_for(&self, config: Config) -> Bound {
        if config == Config::TilecVectorZvfh {
            self.bound.with_zvfhmin()
        } else {
            self.bound.clone()
        }
    }

    /// Whether an array of the launch holds fp16 data.
    pub fn has_fp16(&self) -> bool {
        self.arrays().iter().any(|(_, a)| a.elem() == Elem::F16)
    }

    /// Every array of the launch with its name (`argI` for argument I, `argI.J` for entry J of
    /// the table argument I), in argument order.
    pub fn arrays(&self) -> Vec<(String, &Array)> {
        let mut out = Vec::new();
        for (i, arg) in self.args.iter().enumerate() {
            match arg {
                Arg::Array(a) => out.push((format!("arg{i}"), a)),
                Arg::Table(arrays) => out.extend(arrays.iter().enumerate().map(|(j, a)| (format!("arg{i}.{j}"), a))),
                Arg::I32(_) | Arg::F32(_) => {}
            }
        }
        out
    }

    /// The output arrays, in the order of [`Benchmark::arrays`].
    pub fn outputs(&self) -> Vec<(String, Elem)> {
        self.arrays()
            .into_iter()
            .filter_map(|(name, a)| match a {
                Array::Output(elem, _) => Some((name, *elem)),
                _ => None,
            })
            .collect()
    }

    /// The grid as the report shows it: `X`, `X×Y` or `X×Y×Z`.
    pub fn grid_text(&self) -> String {
        match self.grid {
            [x, 1, 1] => x.to_string(),
            [x, y, 1] => format!("{x}×{y}"),
            [x, y, z] => format!("{x}×{y}×{z}"),
        }
    }
}

/// `vsetvli` and loop control (pointer or offset update, count update, branch) of one strip.
const STRIP_CONTROL: Cost = Cost::scalar(1 + 3);

/// One strip of a pass over the data: [`STRIP_CONTROL`], `vector` LMUL-8 loads, stores and
/// arithmetic, and `exps` vector `exp`s.
const fn pass(vector: u64, exps: u64) -> Cost {
    STRIP_CONTROL.plus(Cost::vector(vector)).plus(Cost::exp(exps))
}

/// Vector add: 2 loads, `vfadd`, store.
const ADD_STRIP: Cost = pass(4, 0);
/// exp: load, exp, store.
const EXP_STRIP: Cost = pass(2, 1);
/// Fused softmax, three passes: max (load, `vfmax`); exp and sum (load, `vfsub`, exp, `vfadd`,
/// store); scale (load, `vfmul`, store); and 1 for the second pointer of the second pass.
const SOFTMAX_STRIP: Cost = pass(2, 0).plus(pass(4, 1)).plus(pass(3, 0)).plus(Cost::scalar(1));
/// Layer norm forward, three passes: mean (load, `vfadd`); variance (load, `vfsub`, `vfmacc`);
/// output (loads of x, w, b, `vfsub`, `vfmul`, `vfmadd`, store); and 1 for the extra pointers of
/// the output pass.
const LAYER_NORM_STRIP: Cost = pass(2, 0).plus(pass(3, 0)).plus(pass(7, 0)).plus(Cost::scalar(1));
/// Matmul with fp32 inputs, per LMUL-8 `vfmacc.vf`: the `vfmacc.vf`, the scalar load of its A
/// element, and 2 for the B row loads and loop control amortized over the accumulator rows and
/// the K loop (charged as scalar instructions).
const MATMUL_F32_FMA: Cost = Cost::vector(1).plus(Cost::scalar(1 + 2));
/// Matmul with fp16 inputs: as fp32, plus 1 for widening the A scalar and the B rows to fp32.
const MATMUL_F16_FMA: Cost = MATMUL_F32_FMA.plus(Cost::scalar(1));

/// Plain RVV 1.0's exact integer widening of fp16 to fp32 (no Zvfhmin): 3 instructions on
/// the fp16 half of the strip (e16 m4, weight 4; a widening multiply among them) and 3 at the
/// fp32 strip's e32 m8 (bench/README.md has the sequence).
const INTEGER_WIDENING: Cost = Cost::half(3).plus(Cost::vector(3));
/// What plain RVV 1.0 adds per fp16 widening to the one instruction (`vfwcvt` at e16 m4,
/// weight 4) the models charge.
pub const PLAIN_WIDENING: Cost =
    Cost { instructions: INTEGER_WIDENING.instructions - 1, weighted: INTEGER_WIDENING.weighted - 4 };
/// Per fp16 narrowing to memory: 10 instructions at e32 m8 before the narrowing shift, one of
/// them mask logic (weight 1), the others weight 8 (`vnclipu` at e16 m4 where Zvfhmin has
/// `vfncvt`), and the sign's masked `vor` at e16 m4 (weight 4). The `csrwi` of `vxrm` is
/// per-leaf set-up, not charged.
pub const PLAIN_NARROWING: Cost = Cost { instructions: 10 + 1, weighted: 9 * 8 + 1 + 4 };
/// Per rounding of an fp32 value to fp16 precision in registers (charged as a narrowing and
/// a widening back, weight 4 each): 11 instructions at e32 m8 (the `csrwi` of `vxrm` is
/// per-leaf set-up).
pub const PLAIN_ROUNDING: Cost = Cost { instructions: 11 - 2, weighted: 11 * 8 - 8 };

/// Plain RVV's extra for an fp16 array the model loads and widens in each of `passes ≥ 2`
/// passes (2 instructions, weight 8, each): cheaper without Zvfhmin is to widen it once and
/// keep the fp32 values in scratch (the fp16 load, the widening, a store and `passes − 1`
/// fp32 loads).
const fn plain_rewidened(passes: u64) -> Cost {
    let once = Cost::half(1).plus(INTEGER_WIDENING).plus(Cost::vector(1 + (passes - 1)));
    Cost { instructions: once.instructions - 2 * passes, weighted: once.weighted - 8 * passes }
}

/// `n` times `cost`.
const fn times(n: u64, cost: Cost) -> Cost {
    Cost { instructions: n * cost.instructions, weighted: n * cost.weighted }
}

/// One strip of a pass over fp16 data computed in fp32: as [`pass`], plus `half` fp16 loads,
/// stores, widenings and narrowings (LMUL 4).
const fn half_pass(vector: u64, half: u64, exps: u64) -> Cost {
    pass(vector, exps).plus(Cost::half(half))
}

/// Layer norm forward on fp16 data (tutorial 05), three passes: mean (load and widen x,
/// `vfadd`); variance (load and widen x, `vfsub`, `vfmacc`); output (loads and widenings of x,
/// w, b, `vfsub`, `vfmul`, `vfmadd`, narrowing and store of y); and 1 for the extra pointers.
const LAYER_NORM_F16_STRIP: Cost =
    half_pass(1, 2, 0).plus(half_pass(2, 2, 0)).plus(half_pass(3, 8, 0)).plus(Cost::scalar(1));
/// Plain RVV's extra for [`LAYER_NORM_F16_STRIP`]: x widened once for its three passes, w
/// and b widened, y narrowed.
const LAYER_NORM_F16_PLAIN: Cost = plain_rewidened(3).plus(times(2, PLAIN_WIDENING)).plus(PLAIN_NARROWING);
/// Layer norm backward dx (tutorial 05), two passes over the row: the sums (loads and widenings
/// of x, dy, w; `vfsub`, `vfmul` for xhat, `vfmul` for w·dy, `vfmacc` and `vfadd` into the two
/// sums); the outputs (the same loads and widenings, xhat and w·dy again, `vfmadd`, `vfsub`,
/// `vfmul` for dx, `vfmul` for dy·xhat; narrowings and stores of dx, dw, db) and 1 for the
/// extra pointers.
const LAYER_NORM_DX_STRIP: Cost = half_pass(5, 6, 0).plus(half_pass(7, 12, 0)).plus(Cost::scalar(1));
/// Plain RVV's extra for [`LAYER_NORM_DX_STRIP`]: x, dy and w widened once for both passes,
/// dx, dw and db narrowed; the rows that add into the partial sums widen dw and db.
const LAYER_NORM_DX_PLAIN: Cost = times(3, plain_rewidened(2)).plus(times(3, PLAIN_NARROWING));
/// Layer norm backward dx, rows that add into the group's partial sums (all but the first
/// row of each group): loads and widenings of dw, db, 2 `vfadd`.
const LAYER_NORM_DX_ADD_STRIP: Cost = Cost::half(4).plus(Cost::vector(2));
/// Layer norm backward dw/db, per strip of a row of the partial sums: for dw and for db a load,
/// a widening and a `vfadd` into a column accumulator.
const LAYER_NORM_DWDB_STRIP: Cost = half_pass(2, 4, 0);
/// Seeded dropout (tutorial 04): load; the offsets (`vadd`); Philox, 10 rounds of 2 `vmulhu`,
/// 2 `vmul`, 4 `vxor` (rounds 1 and 2 fold the zero counter words and the uniform first word:
/// 3 and 4); the uniform float (`vsra`, `vxor`, `vfcvt`, `vfmul`); `vmfgt`, `vfdiv`, `vmerge`;
/// store.
const DROPOUT_STRIP: Cost = pass(2 + 1 + (3 + 4 + 8 * 8) + 4 + 3, 0);
/// Attention's softmax, per strip of the score matrix the kernel computes: the row maximum
/// (`vfmax`), scale and subtract (`vfmsub`), exp2, the row sum (`vfadd`), 2 `vfmul` rescaling
/// the accumulator (HEAD_DIM = 2 × BLOCK_N elements of it per block of scores), narrowing p
/// to fp16.
const ATTENTION_SOFTMAX_STRIP: Cost = half_pass(5, 1, 1);
/// Attention backward, per strip of (query, key) pairs of the dk/dv loop: `vfsub` of M, exp2,
/// narrowing of p, `vfsub` of D and `vfmul` for ds, narrowing of ds; and of the dq loop: the
/// same with p not narrowed.
const ATTENTION_BWD_DKDV_STRIP: Cost = half_pass(3, 2, 1);
const ATTENTION_BWD_DQ_STRIP: Cost = half_pass(3, 1, 1);
/// GELU (exact): load, `vfmul` by 1/√2, erf (charged as an exp), `vfadd` 1, `vfmul` by 0.5,
/// `vfmul`, store.
const GELU_STRIP: Cost = pass(6, 1);
/// RMS norm on fp16 data, two passes: the mean square (load and widen x, `vfmacc`); the output
/// (load and widen x, `vfmul` by rrms, narrowing to fp16 and widening back, load and widening
/// of w, `vfmul`, narrowing, store: Zvfh not assumed); and 1 for the extra pointers.
const RMS_NORM_STRIP: Cost = half_pass(1, 2, 0).plus(half_pass(2, 8, 0)).plus(Cost::scalar(1));
/// Plain RVV's extra for [`RMS_NORM_STRIP`]: x widened once for both passes, w widened, x·rrms
/// rounded in registers, the output narrowed.
const RMS_NORM_PLAIN: Cost = plain_rewidened(2).plus(PLAIN_WIDENING).plus(PLAIN_ROUNDING).plus(PLAIN_NARROWING);
/// Cumulative sum, per strip: load, `vfadd` of the carry, store, `vslidedown` and `vfmv.f.s` of
/// the new carry; per scan step a `vslideup` and a masked `vfadd`.
const CUMSUM_STRIP: Cost = pass(5, 0);
const CUMSUM_STEP: Cost = Cost::vector(2);
/// Argmax, per strip: load, `vmflt` against the running maximum, `vfmax`, `vmerge` of the
/// index, `vadd` of the index vector.
const ARGMAX_STRIP: Cost = pass(5, 0);
/// Embedding, per strip of a row: load, store.
const EMBEDDING_STRIP: Cost = pass(2, 0);
/// Cross-entropy, per strip: load, `vfmax`, 2 `vfsub`, 2 exps, `vfmacc` for the rescaled sum.
const CROSS_ENTROPY_STRIP: Cost = pass(5, 2);

const N_ELEMENTS: usize = 1 << 20;
const ROWS: usize = 1024;
const COLS: usize = 1024;
const MATMUL: usize = 256;
const MATMUL_CONSTANTS: &[&str] = &["BLOCK_SIZE_M=64", "BLOCK_SIZE_N=64", "BLOCK_SIZE_K=32", "GROUP_SIZE_M=8"];

fn matmul(
    name: &'static str,
    elem: Elem,
    signature: &'static str,
    c_file: &'static str,
    per_fma: Cost,
    targets: &'static [Target],
) -> Benchmark {
    let size = MATMUL as i32;
    let blocks = (MATMUL / 64) as u32;
    Benchmark {
        name,
        kernel_file: "bench/kernels/matmul.py",
        kernel: "matmul_kernel",
        signature,
        constants: MATMUL_CONSTANTS,
        c_file,
        sleef_c_file: None,
        grid: [blocks * blocks, 1, 1],
        args: vec![
            Arg::rand(elem, MATMUL * MATMUL),
            Arg::rand(elem, MATMUL * MATMUL),
            Arg::output(Elem::F32, MATMUL * MATMUL),
            Arg::I32(size),
            Arg::I32(size),
            Arg::I32(size),
            Arg::I32(size),
            Arg::I32(size),
            Arg::I32(size),
        ],
        tolerance: Tolerance::DEFAULT,
        bound: Bound::matmul(per_fma, MATMUL as u64, MATMUL as u64, MATMUL as u64),
        targets,
    }
}

/// Every benchmark, in report order.
pub fn all() -> Vec<Benchmark> {
    let n = N_ELEMENTS as i32;
    let mut benchmarks = vec![
        Benchmark {
            name: "vector add",
            kernel_file: "fixtures/vector_add.py",
            kernel: "add_kernel",
            signature: "*fp32:16, *fp32:16, *fp32:16, i32",
            constants: &["BLOCK_SIZE=1024"],
            c_file: "bench/c/add.c",
            sleef_c_file: None,
            grid: [(N_ELEMENTS / 1024) as u32, 1, 1],
            args: vec![
                Arg::rand(Elem::F32, N_ELEMENTS),
                Arg::rand(Elem::F32, N_ELEMENTS),
                Arg::output(Elem::F32, N_ELEMENTS),
                Arg::I32(n),
            ],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::strips(ADD_STRIP, 1, N_ELEMENTS as u64),
            targets: &[Target::Ratio { vlen: 256, max: 1.3 }],
        },
        Benchmark {
            name: "fused softmax",
            kernel_file: "bench/kernels/softmax.py",
            kernel: "softmax_kernel",
            signature: "*fp32:16, *fp32:16, i32:16, i32:16, i32:16",
            constants: &["BLOCK_SIZE=1024"],
            c_file: "bench/c/softmax.c",
            sleef_c_file: Some("bench/c/softmax_sleef.c"),
            grid: [ROWS as u32, 1, 1],
            args: vec![
                Arg::output(Elem::F32, ROWS * COLS),
                Arg::rand(Elem::F32, ROWS * COLS),
                Arg::I32(COLS as i32),
                Arg::I32(COLS as i32),
                Arg::I32(COLS as i32),
            ],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::strips(SOFTMAX_STRIP, ROWS as u64, COLS as u64),
            targets: &[Target::Ratio { vlen: 256, max: 2.5 }],
        },
        Benchmark {
            name: "layer norm forward",
            kernel_file: "bench/kernels/layernorm.py",
            kernel: "_layer_norm_fwd_fused",
            signature: "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32",
            constants: &["BLOCK_SIZE=1024"],
            c_file: "bench/c/layernorm.c",
            sleef_c_file: None,
            grid: [ROWS as u32, 1, 1],
            args: vec![
                Arg::rand(Elem::F32, ROWS * COLS),
                Arg::output(Elem::F32, ROWS * COLS),
                Arg::rand(Elem::F32, COLS),
                Arg::rand(Elem::F32, COLS),
                Arg::scratch(Elem::F32, ROWS),
                Arg::scratch(Elem::F32, ROWS),
                Arg::I32(COLS as i32),
                Arg::I32(COLS as i32),
                Arg::F32(1e-5),
            ],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::strips(LAYER_NORM_STRIP, ROWS as u64, COLS as u64),
            targets: &[Target::Ratio { vlen: 256, max: 1.6 }],
        },
        matmul(
            "matmul fp32",
            Elem::F32,
            "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1",
            "bench/c/matmul_f32.c",
            MATMUL_F32_FMA,
            &[Target::Count { vlen: 256, max: 1_500_000 }, Target::Count { vlen: 512, max: 800_000 }],
        ),
        matmul(
            "matmul fp16 inputs",
            Elem::F16,
            "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1",
            "bench/c/matmul_f16.c",
            MATMUL_F16_FMA,
            &[],
        ),
        Benchmark {
            name: "exp",
            kernel_file: "bench/kernels/exp.py",
            kernel: "exp_kernel",
            signature: "*fp32:16, *fp32:16, i32",
            constants: &["BLOCK_SIZE=1024"],
            c_file: "bench/c/exp.c",
            sleef_c_file: Some("bench/c/exp_sleef.c"),
            grid: [(N_ELEMENTS / 1024) as u32, 1, 1],
            args: vec![Arg::rand(Elem::F32, N_ELEMENTS), Arg::output(Elem::F32, N_ELEMENTS), Arg::I32(n)],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::strips(EXP_STRIP, 1, N_ELEMENTS as u64),
            targets: &[Target::Ratio { vlen: 256, max: 3.0 }],
        },
    ];
    benchmarks.extend(workloads());
    benchmarks
}

/// Tutorial 03's fp16 matmul: M = N = K.
const TUTORIAL_MATMUL: usize = 512;
/// Tutorial 05's layer norm: rows × columns (one block per row), and the backward pass's
/// groups of partial sums for that width.
const LN_ROWS: usize = 256;
const LN_COLS: usize = 4096;
const LN_GROUPS: usize = 128;
/// Tutorial 06's attention: heads (batch 1) × context × head dimension.
const HEADS: usize = 2;
const N_CTX: usize = 256;
const HEAD_DIM: usize = 64;
/// FlagGems' row-wise operators: rows × columns.
const OP_ROWS: usize = 256;
const OP_COLS: usize = 4096;

/// The benchmarks from real workloads: Triton's tutorials and FlagGems' operators, as their
/// kernels are written and launched (`bench/README.md`).
fn workloads() -> Vec<Benchmark> {
    let i32_of = |n: usize| Arg::I32(n as i32);
    let f16_rand = |n| Arg::rand(Elem::F16, n);
    let f16_out = |n| Arg::output(Elem::F16, n);
    let mm = TUTORIAL_MATMUL as u64;
    let ln_elems = LN_ROWS * LN_COLS;
    let head_elems = HEADS * N_CTX * HEAD_DIM;
    let head_stride = N_CTX * HEAD_DIM;
    // Causal attention forward: query blocks of 64 take the key blocks up to their diagonal.
    let query_blocks = (N_CTX / 64) as u64;
    let fwd_scores = (HEADS as u64) * 64 * 64 * query_blocks * (query_blocks + 1) / 2;
    // Causal attention backward: key blocks of 128 against the queries from them on (dk, dv),
    // query blocks of 128 against the keys up to them (dq): the same number of pairs.
    let key_blocks = (N_CTX / 128) as u64;
    let bwd_pairs = (HEADS as u64) * 128 * 128 * key_blocks * (key_blocks + 1) / 2;
    let gemms: [usize; 4] = [256, 256, 128, 128];
    vec![
        Benchmark {
            name: "matmul fp16 512³ (tutorial 03)",
            kernel_file: "fixtures/matmul.py",
            kernel: "matmul_kernel",
            signature: "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1",
            constants: &["BLOCK_SIZE_M=128", "BLOCK_SIZE_N=256", "BLOCK_SIZE_K=64", "GROUP_SIZE_M=8", "ACTIVATION=none"],
            c_file: "bench/c/matmul_fp16_tutorial.c",
            sleef_c_file: None,
            grid: [((TUTORIAL_MATMUL / 128) * (TUTORIAL_MATMUL / 256)) as u32, 1, 1],
            args: vec![
                f16_rand(TUTORIAL_MATMUL * TUTORIAL_MATMUL),
                f16_rand(TUTORIAL_MATMUL * TUTORIAL_MATMUL),
                f16_out(TUTORIAL_MATMUL * TUTORIAL_MATMUL),
                i32_of(TUTORIAL_MATMUL),
                i32_of(TUTORIAL_MATMUL),
                i32_of(TUTORIAL_MATMUL),
                i32_of(TUTORIAL_MATMUL),
                i32_of(TUTORIAL_MATMUL),
                i32_of(TUTORIAL_MATMUL),
            ],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::fp16_dots(mm * mm * mm),
            targets: &[],
        },
        Benchmark {
            name: "layer norm forward fp16 (tutorial 05)",
            kernel_file: "fixtures/layer_norm.py",
            kernel: "_layer_norm_fwd_fused",
            signature: "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32",
            constants: &["BLOCK_SIZE=4096"],
            c_file: "bench/c/layer_norm_fp16.c",
            sleef_c_file: None,
            grid: [LN_ROWS as u32, 1, 1],
            args: vec![
                f16_rand(ln_elems),
                f16_out(ln_elems),
                f16_rand(LN_COLS),
                f16_rand(LN_COLS),
                Arg::output(Elem::F32, LN_ROWS),
                Arg::output(Elem::F32, LN_ROWS),
                i32_of(LN_COLS),
                i32_of(LN_COLS),
                Arg::F32(1e-5),
            ],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::strips(LAYER_NORM_F16_STRIP, LN_ROWS as u64, LN_COLS as u64).plus_fp16_integer(
                LAYER_NORM_F16_PLAIN,
                LN_ROWS as u64,
                LN_COLS as u64,
            ),
            targets: &[],
        },
        Benchmark {
            name: "layer norm backward dx (tutorial 05)",
            kernel_file: "bench/tutorials/layer_norm_bwd.py",
            kernel: "_layer_norm_bwd_dx_fused",
            signature: "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, *i32:16, i32:16, i32:16",
            constants: &["GROUP_SIZE_M=128", "BLOCK_SIZE_N=4096"],
            c_file: "bench/c/layer_norm_bwd.c",
            sleef_c_file: None,
            grid: [LN_ROWS as u32, 1, 1],
            args: vec![
                f16_out(ln_elems),
                f16_rand(ln_elems),
                f16_out(LN_GROUPS * LN_COLS),
                f16_out(LN_GROUPS * LN_COLS),
                f16_rand(ln_elems),
                f16_rand(LN_COLS),
                Arg::rand(Elem::F32, LN_ROWS),
                Arg::rand(Elem::F32, LN_ROWS),
                Arg::scratch(Elem::I32, 2 * LN_GROUPS),
                i32_of(LN_COLS),
                i32_of(LN_COLS),
            ],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::strips(LAYER_NORM_DX_STRIP, LN_ROWS as u64, LN_COLS as u64)
                .plus(Term::Strips {
                    per_strip: LAYER_NORM_DX_ADD_STRIP,
                    rows: (LN_ROWS - LN_GROUPS) as u64,
                    row_len: LN_COLS as u64,
                })
                .plus_fp16_integer(LAYER_NORM_DX_PLAIN, LN_ROWS as u64, LN_COLS as u64)
                .plus_fp16_integer(times(2, PLAIN_WIDENING), (LN_ROWS - LN_GROUPS) as u64, LN_COLS as u64),
            targets: &[],
        },
        Benchmark {
            name: "layer norm backward dw/db (tutorial 05)",
            kernel_file: "bench/tutorials/layer_norm_bwd.py",
            kernel: "_layer_norm_bwd_dwdb",
            signature: "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16",
            constants: &["BLOCK_SIZE_M=32", "BLOCK_SIZE_N=128"],
            c_file: "bench/c/layer_norm_bwd.c",
            sleef_c_file: None,
            grid: [(LN_COLS / 128) as u32, 1, 1],
            args: vec![
                f16_rand(LN_GROUPS * LN_COLS),
                f16_rand(LN_GROUPS * LN_COLS),
                f16_out(LN_COLS),
                f16_out(LN_COLS),
                i32_of(LN_GROUPS),
                i32_of(LN_COLS),
            ],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::strips(LAYER_NORM_DWDB_STRIP, LN_GROUPS as u64, LN_COLS as u64).plus_fp16_integer(
                times(2, PLAIN_WIDENING),
                LN_GROUPS as u64,
                LN_COLS as u64,
            ),
            targets: &[],
        },
        Benchmark {
            name: "seeded dropout (tutorial 04)",
            kernel_file: "fixtures/dropout.py",
            kernel: "_seeded_dropout",
            signature: "*fp32:16, *fp32:16, i32:16, fp32, i32",
            constants: &["BLOCK_SIZE=1024"],
            c_file: "bench/c/dropout.c",
            sleef_c_file: None,
            grid: [(N_ELEMENTS / 1024) as u32, 1, 1],
            args: vec![
                Arg::rand(Elem::F32, N_ELEMENTS),
                Arg::output(Elem::F32, N_ELEMENTS),
                i32_of(N_ELEMENTS),
                Arg::F32(0.5),
                Arg::I32(123),
            ],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::strips(DROPOUT_STRIP, 1, N_ELEMENTS as u64),
            targets: &[],
        },
        Benchmark {
            name: "attention forward (tutorial 06)",
            kernel_file: "bench/tutorials/attention_fwd.py",
            kernel: "_attn_fwd",
            signature: "fp32, *fp32:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, 1, i32, i32:16",
            constants: &["HEAD_DIM=64", "BLOCK_M=64", "BLOCK_N=32", "STAGE=3"],
            c_file: "bench/c/attention_fwd.c",
            sleef_c_file: None,
            grid: [(N_CTX / 64) as u32, HEADS as u32, 1],
            args: vec![
                Arg::F32(0.125),
                Arg::output(Elem::F32, HEADS * N_CTX),
                f16_rand(head_elems),
                f16_rand(head_elems),
                f16_rand(head_elems),
                f16_out(head_elems),
                i32_of(HEADS * head_stride),
                i32_of(head_stride),
                i32_of(HEAD_DIM),
                i32_of(HEADS),
                i32_of(N_CTX),
            ],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::fp16_dots(2 * HEAD_DIM as u64 * fwd_scores).plus(Term::Strips {
                per_strip: ATTENTION_SOFTMAX_STRIP,
                rows: 1,
                row_len: fwd_scores,
            }),
            targets: &[],
        },
        Benchmark {
            name: "attention backward (tutorial 06)",
            kernel_file: "bench/tutorials/attention_bwd.py",
            kernel: "_attn_bwd",
            signature: "*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, 1, i32, i32:16",
            constants: &[
                "BLOCK_M1=32",
                "BLOCK_N1=128",
                "BLOCK_M2=128",
                "BLOCK_N2=32",
                "BLK_SLICE_FACTOR=2",
                "HEAD_DIM=64",
                "CAUSAL=True",
            ],
            c_file: "bench/c/attention_bwd.c",
            sleef_c_file: None,
            grid: [(N_CTX / 128) as u32, 1, HEADS as u32],
            args: vec![
                f16_rand(head_elems),
                f16_rand(head_elems),
                f16_rand(head_elems),
                Arg::F32(0.5),
                f16_rand(head_elems),
                f16_out(head_elems),
                f16_out(head_elems),
                f16_out(head_elems),
                // M, the base-2 row statistics of the forward pass: at least the largest
                // score (about 11 for these inputs), so that p = exp2(q·k - M) stays in (0, 1]
                // as in the tutorial.
                Arg::Array(Array::Range(HEADS * N_CTX, 11.0)),
                Arg::rand(Elem::F32, HEADS * N_CTX),
                i32_of(HEADS * head_stride),
                i32_of(head_stride),
                i32_of(HEAD_DIM),
                i32_of(HEADS),
                i32_of(N_CTX),
            ],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::fp16_dots(7 * HEAD_DIM as u64 * bwd_pairs)
                .plus(Term::Strips { per_strip: ATTENTION_BWD_DKDV_STRIP, rows: 1, row_len: bwd_pairs })
                .plus(Term::Strips { per_strip: ATTENTION_BWD_DQ_STRIP, rows: 1, row_len: bwd_pairs }),
            targets: &[],
        },
        Benchmark {
            name: "grouped GEMM (tutorial 08)",
            kernel_file: "bench/tutorials/grouped_gemm.py",
            kernel: "grouped_matmul_kernel",
            signature: "*i64:16, *i64:16, *i64:16, *i32:16, *i32:16, i32",
            constants: &["NUM_SM=8", "BLOCK_SIZE_M=64", "BLOCK_SIZE_N=64", "BLOCK_SIZE_K=32"],
            c_file: "bench/c/grouped_gemm.c",
            sleef_c_file: None,
            grid: [8, 1, 1],
            args: vec![
                Arg::Table(gemms.iter().map(|&n| Array::Rand(Elem::F16, n * n)).collect()),
                Arg::Table(gemms.iter().map(|&n| Array::Rand(Elem::F16, n * n)).collect()),
                Arg::Table(gemms.iter().map(|&n| Array::Output(Elem::F16, n * n)).collect()),
                Arg::Array(Array::Ints(Elem::I32, gemms.iter().flat_map(|&n| [n as i64; 3]).collect())),
                Arg::Array(Array::Ints(Elem::I32, gemms.iter().flat_map(|&n| [n as i64; 3]).collect())),
                i32_of(gemms.len()),
            ],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::fp16_dots(gemms.iter().map(|&n| (n as u64).pow(3)).sum()),
            targets: &[],
        },
        Benchmark {
            name: "gelu (FlagGems)",
            kernel_file: "bench/kernels/gelu.py",
            kernel: "gelu_none_kernel",
            signature: "*fp32:16, *fp32:16, i32:16",
            constants: &["BLOCK_SIZE=1024"],
            c_file: "bench/c/gelu.c",
            sleef_c_file: Some("bench/c/gelu_sleef.c"),
            grid: [(N_ELEMENTS / 1024) as u32, 1, 1],
            args: vec![Arg::rand(Elem::F32, N_ELEMENTS), Arg::output(Elem::F32, N_ELEMENTS), i32_of(N_ELEMENTS)],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::strips(GELU_STRIP, 1, N_ELEMENTS as u64),
            targets: &[],
        },
        Benchmark {
            name: "rms_norm (FlagGems)",
            kernel_file: "bench/kernels/rms_norm.py",
            kernel: "rms_norm_kernel",
            signature: "*fp16:16, *fp16:16, *fp16:16, i32:16, 1, i32:16, 1, i32:16, fp32",
            constants: &["BLOCK_SIZE=4096"],
            c_file: "bench/c/rms_norm.c",
            sleef_c_file: None,
            grid: [OP_ROWS as u32, 1, 1],
            args: vec![
                f16_out(OP_ROWS * OP_COLS),
                f16_rand(OP_ROWS * OP_COLS),
                f16_rand(OP_COLS),
                i32_of(OP_COLS),
                i32_of(OP_COLS),
                i32_of(OP_COLS),
                Arg::F32(1e-5),
            ],
            tolerance: Tolerance {
                rtol: 2e-3,
                atol: 1e-5,
                reason: "the vector code sums the squares in strips of lanes (another order, docs/semantics.md), so rrms can \
                         differ in its last bit: fp16(x·rrms) then flips one ulp at a rounding boundary and its product \
                         with w rounds again, up to two fp16 ulps (2^-9 relative at the bottom of a binade)",
            },
            bound: Bound::strips(RMS_NORM_STRIP, OP_ROWS as u64, OP_COLS as u64).plus_fp16_integer(
                RMS_NORM_PLAIN,
                OP_ROWS as u64,
                OP_COLS as u64,
            ),
            targets: &[],
        },
        Benchmark {
            name: "cumsum (FlagGems)",
            kernel_file: "bench/kernels/cumsum.py",
            kernel: "cumsum_kernel",
            signature: "*fp32:16, *fp32:16, i32:16, i32:16, 1",
            constants: &["BLOCK_M=8", "BLOCK_N=1024"],
            c_file: "bench/c/cumsum.c",
            sleef_c_file: None,
            grid: [(ROWS / 8) as u32, 1, 1],
            args: vec![
                Arg::rand(Elem::F32, ROWS * COLS),
                Arg::output(Elem::F32, ROWS * COLS),
                i32_of(ROWS),
                i32_of(COLS),
            ],
            tolerance: Tolerance {
                rtol: 1e-3,
                atol: 1e-4,
                reason: "prefix sums of up to 1024 values in [-1, 1) added in another order, strips then carries: \
                         near zero the difference is absolute",
            },
            bound: Bound {
                terms: vec![Term::ScanStrips {
                    per_strip: CUMSUM_STRIP,
                    per_step: CUMSUM_STEP,
                    rows: ROWS as u64,
                    row_len: COLS as u64,
                }],
            },
            targets: &[],
        },
        Benchmark {
            name: "argmax (FlagGems)",
            kernel_file: "bench/kernels/argmax.py",
            kernel: "argmax_kernel",
            signature: "*fp32:16, *i64:16, i32:16, i32:16, 1",
            constants: &["BLOCK_M=4", "BLOCK_N=1024"],
            c_file: "bench/c/argmax.c",
            sleef_c_file: None,
            grid: [(ROWS / 4) as u32, 1, 1],
            args: vec![Arg::rand(Elem::F32, ROWS * COLS), Arg::output(Elem::I64, ROWS), i32_of(ROWS), i32_of(COLS)],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::strips(ARGMAX_STRIP, ROWS as u64, COLS as u64),
            targets: &[],
        },
        Benchmark {
            name: "embedding (FlagGems)",
            kernel_file: "bench/kernels/embedding.py",
            kernel: "embedding_kernel",
            signature: "*fp32:16, *i64:16, *fp32:16",
            constants: &["N=1024", "BLOCK_SIZE=1024"],
            c_file: "bench/c/embedding.c",
            sleef_c_file: None,
            grid: [ROWS as u32, 1, 1],
            args: vec![
                Arg::output(Elem::F32, ROWS * COLS),
                Arg::Array(Array::Indices(Elem::I64, ROWS, 4 * ROWS as u64)),
                Arg::rand(Elem::F32, 4 * ROWS * COLS),
            ],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::strips(EMBEDDING_STRIP, ROWS as u64, COLS as u64),
            targets: &[],
        },
        Benchmark {
            name: "cross-entropy (FlagGems)",
            kernel_file: "bench/kernels/cross_entropy.py",
            kernel: "celoss_indices_kernel",
            signature: "*fp32:16, *i64:16, *fp32:16, *fp32:16, i32, i32:16, 1",
            constants: &["BLOCK_C=512", "BLOCK_D=1"],
            c_file: "bench/c/cross_entropy.c",
            sleef_c_file: Some("bench/c/cross_entropy_sleef.c"),
            grid: [1, OP_ROWS as u32, 1],
            args: vec![
                Arg::rand(Elem::F32, OP_ROWS * OP_COLS),
                Arg::Array(Array::Indices(Elem::I64, OP_ROWS, OP_COLS as u64)),
                Arg::output(Elem::F32, OP_ROWS),
                Arg::output(Elem::F32, OP_ROWS),
                Arg::I32(-100),
                i32_of(OP_COLS),
            ],
            tolerance: Tolerance::DEFAULT,
            bound: Bound::strips(CROSS_ENTROPY_STRIP, OP_ROWS as u64, OP_COLS as u64),
            targets: &[],
        },
    ]
}

/// `1234567` → `1,234,567`.
pub fn group_digits(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_match_the_issue_figures() {
        // Vector add at VLEN 256: 1,048,576 / 64 strips × 8.
        assert_eq!(all()[0].bound.at(256), 131_072);
        // Matmul 256³ fp32 at VLEN 256: about 1.05M.
        assert_eq!(all()[3].bound.at(256), 1_048_576);
        assert_eq!(all()[3].bound.at(512), 524_288);
    }

    #[test]
    fn weighted_bounds_match_the_issue_figures() {
        let by_name = |name: &str| all().into_iter().find(|b| b.name == name).unwrap().bound;
        // Fused softmax at VLEN 256: 213 per strip, 16 strips × 1024 rows.
        assert_eq!(SOFTMAX_STRIP, Cost { instructions: 38, weighted: 213 });
        assert_eq!(by_name("fused softmax").weighted_at(256), 3_489_792);
        assert_eq!(EXP_STRIP, Cost { instructions: 22, weighted: 148 });
        assert_eq!(ADD_STRIP, Cost { instructions: 8, weighted: 36 });
        assert_eq!(LAYER_NORM_STRIP, Cost { instructions: 25, weighted: 109 });
        assert_eq!(by_name("matmul fp32").weighted_at(256), 11 * 262_144);
    }

    #[test]
    fn plain_rvv_bounds_pay_for_integer_fp16_conversions() {
        // Per strip: layer norm forward fp16, 31 (109 weighted) with Zvfhmin; plain RVV widens
        // x once (10 instructions, 64 weighted, for its 3 passes instead of 6 and 24), w and b
        // (6 and 36 each, instead of 1 and 4) and narrows y (12 and 81 instead of 1 and 4).
        assert_eq!(LAYER_NORM_F16_STRIP, Cost { instructions: 31, weighted: 109 });
        assert_eq!(LAYER_NORM_F16_PLAIN, Cost { instructions: 4 + 10 + 11, weighted: 40 + 64 + 77 });
        assert_eq!(RMS_NORM_PLAIN, Cost { instructions: 5 + 5 + 9 + 11, weighted: 40 + 32 + 80 + 77 });
        assert_eq!(LAYER_NORM_DX_PLAIN, Cost { instructions: 3 * 5 + 3 * 11, weighted: 3 * 40 + 3 * 77 });
        for bench in all() {
            let (plain, zvfh) = (bench.bound_for(Config::TilecVector), bench.bound_for(Config::TilecVectorZvfh));
            let dots = ["matmul", "grouped", "attention"].iter().any(|d| bench.name.starts_with(d));
            if bench.has_fp16() && !dots {
                assert!(plain.weighted_at(256) > zvfh.weighted_at(256), "{}", bench.name);
            } else {
                assert_eq!(plain, zvfh, "{}", bench.name);
            }
        }
    }

    #[test]
    fn only_the_math_kernels_have_sleef_configurations() {
        for bench in all() {
            let sleef: Vec<_> = bench.configs().into_iter().filter(|c| c.calls_sleef()).collect();
            let math = ["exp", "fused softmax", "gelu (FlagGems)", "cross-entropy (FlagGems)"];
            let expected = if math.contains(&bench.name) { 2 } else { 0 };
            assert_eq!(sleef.len(), expected, "{}", bench.name);
            let zvfh = usize::from(bench.has_fp16());
            assert_eq!(bench.configs().len(), 6 + expected + zvfh, "{}", bench.name);
        }
    }

    #[test]
    fn digits_are_grouped_by_thousands() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1000), "1,000");
        assert_eq!(group_digits(1_234_567), "1,234,567");
    }
}
