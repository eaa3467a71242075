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

/// The lower-bound model of a benchmark (see `bench/README.md`).
#[derive(Clone, Copy, Debug)]
pub enum Bound {
    /// `per_strip` instructions for each strip of VLEN·8/32 fp32 elements, over `rows` rows of
    /// `row_len` elements each (a row's last strip may be partial).
    Strips { per_strip: u64, rows: u64, row_len: u64 },
    /// `per_fma` instructions for each LMUL-8 `vfmacc.vf`: M·N·K / (VLEN·8/32) of them.
    Matmul { per_fma: u64, m: u64, n: u64, k: u64 },
}

impl Bound {
    /// The bound in instructions at `vlen`.
    pub fn at(self, vlen: u32) -> u64 {
        let lanes = u64::from(vlen) * 8 / 32;
        match self {
            Bound::Strips { per_strip, rows, row_len } => per_strip * rows * row_len.div_ceil(lanes),
            Bound::Matmul { per_fma, m, n, k } => per_fma * (m * n * k).div_ceil(lanes),
        }
    }

    pub fn describe(self) -> String {
        match self {
            Bound::Strips { per_strip, rows: 1, row_len } => {
                format!("{per_strip} per strip, {} elements", group_digits(row_len))
            }
            Bound::Strips { per_strip, rows, row_len } => {
                format!("{per_strip} per strip, {rows} rows × {row_len}")
            }
            Bound::Matmul { per_fma, m, n, k } => format!("{per_fma} per vfmacc.vf m8, {m}×{n}×{k}"),
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
    per_fma: u64,
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
            bound: Bound::Strips { per_strip: 8, rows: 1, row_len: N_ELEMENTS as u64 },
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
            bound: Bound::Strips { per_strip: 38, rows: ROWS as u64, row_len: COLS as u64 },
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
            bound: Bound::Strips { per_strip: 25, rows: ROWS as u64, row_len: COLS as u64 },
            targets: &[Target::Ratio { vlen: 256, max: 1.6 }],
        },
        matmul(
            "matmul fp32",
            Elem::F32,
            "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1",
            "bench/c/matmul_f32.c",
            4,
            &[Target::Count { vlen: 256, max: 1_500_000 }, Target::Count { vlen: 512, max: 800_000 }],
        ),
        matmul(
            "matmul fp16 inputs",
            Elem::F16,
            "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1",
            "bench/c/matmul_f16.c",
            5,
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
            bound: Bound::Strips { per_strip: 22, rows: 1, row_len: N_ELEMENTS as u64 },
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
