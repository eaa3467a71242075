//! The benchmarks: which kernel, how it is specialized and launched, its C reference, the
//! lower-bound model (documented in `bench/README.md`) and the targets the issues set.

use super::measure::Config;

/// One argument slot of the launch, in the kernel's runtime-argument order.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    /// An array of `len` elements filled with pseudo-random values in [-1, 1).
    Rand(Elem, usize),
    /// A zero-filled array of `len` elements; the kernel's result, compared across configurations.
    Output(Elem, usize),
    /// A zero-filled array the kernel also writes, not compared.
    Scratch(Elem, usize),
    I32(i32),
    F32(f32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    F32,
    F16,
}

impl Elem {
    pub fn bytes(self) -> usize {
        match self {
            Elem::F32 => 4,
            Elem::F16 => 2,
        }
    }
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

    /// `n` vector `exp`s at LMUL 8, [`EXP_INSTRUCTIONS`] vector instructions each.
    pub const fn exp(n: u64) -> Cost {
        Cost::vector(n * EXP_INSTRUCTIONS)
    }

    pub const fn plus(self, other: Cost) -> Cost {
        Cost { instructions: self.instructions + other.instructions, weighted: self.weighted + other.weighted }
    }
}

/// The lower-bound model of a benchmark (see `bench/README.md`).
#[derive(Clone, Copy, Debug)]
pub enum Bound {
    /// `per_strip` for each strip of VLEN·8/32 fp32 elements, over `rows` rows of `row_len`
    /// elements each (a row's last strip may be partial).
    Strips { per_strip: Cost, rows: u64, row_len: u64 },
    /// `per_fma` for each LMUL-8 `vfmacc.vf`: M·N·K / (VLEN·8/32) of them.
    Matmul { per_fma: Cost, m: u64, n: u64, k: u64 },
}

impl Bound {
    /// How many times the model's unit (a strip, an LMUL-8 `vfmacc.vf`) occurs at `vlen`.
    fn units(self, vlen: u32) -> u64 {
        let lanes = u64::from(vlen) * 8 / 32;
        match self {
            Bound::Strips { rows, row_len, .. } => rows * row_len.div_ceil(lanes),
            Bound::Matmul { m, n, k, .. } => (m * n * k).div_ceil(lanes),
        }
    }

    fn unit_cost(self) -> Cost {
        match self {
            Bound::Strips { per_strip: cost, .. } | Bound::Matmul { per_fma: cost, .. } => cost,
        }
    }

    /// The bound in instructions at `vlen`.
    pub fn at(self, vlen: u32) -> u64 {
        self.unit_cost().instructions * self.units(vlen)
    }

    /// The LMUL-weighted bound at `vlen`.
    pub fn weighted_at(self, vlen: u32) -> u64 {
        self.unit_cost().weighted * self.units(vlen)
    }

    pub fn describe(self) -> String {
        let cost = self.unit_cost();
        let (i, w) = (cost.instructions, cost.weighted);
        match self {
            Bound::Strips { rows: 1, row_len, .. } => {
                format!("{i} instructions ({w} weighted) per strip, {} elements", group_digits(row_len))
            }
            Bound::Strips { rows, row_len, .. } => {
                format!("{i} instructions ({w} weighted) per strip, {rows} rows × {row_len}")
            }
            Bound::Matmul { m, n, k, .. } => {
                format!("{i} instructions ({w} weighted) per vfmacc.vf m8, {m}×{n}×{k}")
            }
        }
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
    pub bound: Bound,
    pub targets: &'static [Target],
}

impl Benchmark {
    /// The configurations this benchmark is measured in: every one of [`Config::ALL`], the
    /// SLEEF ones only when there is a SLEEF variant.
    pub fn configs(&self) -> Vec<Config> {
        Config::ALL.into_iter().filter(|c| !c.calls_sleef() || self.sleef_c_file.is_some()).collect()
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
            Arg::Rand(elem, MATMUL * MATMUL),
            Arg::Rand(elem, MATMUL * MATMUL),
            Arg::Output(Elem::F32, MATMUL * MATMUL),
            Arg::I32(size),
            Arg::I32(size),
            Arg::I32(size),
            Arg::I32(size),
            Arg::I32(size),
            Arg::I32(size),
        ],
        bound: Bound::Matmul { per_fma, m: MATMUL as u64, n: MATMUL as u64, k: MATMUL as u64 },
        targets,
    }
}

/// Every benchmark, in report order.
pub fn all() -> Vec<Benchmark> {
    let n = N_ELEMENTS as i32;
    vec![
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
                Arg::Rand(Elem::F32, N_ELEMENTS),
                Arg::Rand(Elem::F32, N_ELEMENTS),
                Arg::Output(Elem::F32, N_ELEMENTS),
                Arg::I32(n),
            ],
            bound: Bound::Strips { per_strip: ADD_STRIP, rows: 1, row_len: N_ELEMENTS as u64 },
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
                Arg::Output(Elem::F32, ROWS * COLS),
                Arg::Rand(Elem::F32, ROWS * COLS),
                Arg::I32(COLS as i32),
                Arg::I32(COLS as i32),
                Arg::I32(COLS as i32),
            ],
            bound: Bound::Strips { per_strip: SOFTMAX_STRIP, rows: ROWS as u64, row_len: COLS as u64 },
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
                Arg::Rand(Elem::F32, ROWS * COLS),
                Arg::Output(Elem::F32, ROWS * COLS),
                Arg::Rand(Elem::F32, COLS),
                Arg::Rand(Elem::F32, COLS),
                Arg::Scratch(Elem::F32, ROWS),
                Arg::Scratch(Elem::F32, ROWS),
                Arg::I32(COLS as i32),
                Arg::I32(COLS as i32),
                Arg::F32(1e-5),
            ],
            bound: Bound::Strips { per_strip: LAYER_NORM_STRIP, rows: ROWS as u64, row_len: COLS as u64 },
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
            args: vec![Arg::Rand(Elem::F32, N_ELEMENTS), Arg::Output(Elem::F32, N_ELEMENTS), Arg::I32(n)],
            bound: Bound::Strips { per_strip: EXP_STRIP, rows: 1, row_len: N_ELEMENTS as u64 },
            targets: &[Target::Ratio { vlen: 256, max: 3.0 }],
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
    fn only_the_math_kernels_have_sleef_configurations() {
        for bench in all() {
            let sleef: Vec<_> = bench.configs().into_iter().filter(|c| c.calls_sleef()).collect();
            let expected = if matches!(bench.name, "exp" | "fused softmax") { 2 } else { 0 };
            assert_eq!(sleef.len(), expected, "{}", bench.name);
            assert_eq!(bench.configs().len(), 6 + expected, "{}", bench.name);
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
