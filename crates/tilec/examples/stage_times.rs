//! Where the time of compiling a kernel to a `.so` goes: runs each stage of the pipeline
//! in process on the benchmark kernels, many times, and prints the median per stage in
//! milliseconds (wall time; build with `--release` for meaningful figures).
//!
//! ```sh
//! cargo run --release -p tilec --example stage_times -- [RUNS [KERNEL-NAME-PART]]
//! ```

use std::time::{Duration, Instant};

/// The benchmark kernels of `cargo xtask bench`: name, file, kernel, signature, constants.
const KERNELS: &[(&str, &str, &str, &str, &[&str])] = &[
    ("vector add", "fixtures/vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32", &["BLOCK_SIZE=1024"]),
    (
        "fused softmax",
        "bench/kernels/softmax.py",
        "softmax_kernel",
        "*fp32:16, *fp32:16, i32:16, i32:16, i32:16",
        &["BLOCK_SIZE=1024"],
    ),
    (
        "layer norm",
        "bench/kernels/layernorm.py",
        "_layer_norm_fwd_fused",
        "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32",
        &["BLOCK_SIZE=1024"],
    ),
    (
        "matmul fp32",
        "bench/kernels/matmul.py",
        "matmul_kernel",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1",
        &["BLOCK_SIZE_M=64", "BLOCK_SIZE_N=64", "BLOCK_SIZE_K=32", "GROUP_SIZE_M=8"],
    ),
    (
        "matmul fp16",
        "bench/kernels/matmul.py",
        "matmul_kernel",
        "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1",
        &["BLOCK_SIZE_M=64", "BLOCK_SIZE_N=64", "BLOCK_SIZE_K=32", "GROUP_SIZE_M=8"],
    ),
    ("exp", "bench/kernels/exp.py", "exp_kernel", "*fp32:16, *fp32:16, i32", &["BLOCK_SIZE=1024"]),
];

const STAGES: [&str; 7] = ["parse", "front", "opt", "axis", "lower", "codegen", "link"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize = std::env::args().nth(1).map(|a| a.parse()).transpose()?.unwrap_or(15);
    let only = std::env::args().nth(2).unwrap_or_default();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    let dirs = tilec::sleef_library_dirs();
    println!("| kernel | target | {} | total |", STAGES.join(" | "));
    println!("|---|---|{}---:|", "---:|".repeat(STAGES.len()));
    for &(name, file, kernel, signature, constants) in KERNELS.iter().filter(|k| k.0.contains(&only)) {
        let source = std::fs::read_to_string(format!("{root}{file}"))?;
        let signature = tilec_front::parse_signature(signature).map_err(|d| format!("{d:?}"))?;
        let constants: Vec<_> = constants
            .iter()
            .map(|c| {
                let (n, v) = c.split_once('=').unwrap();
                (n.to_string(), tilec_front::parse_const_value(v))
            })
            .collect();
        for target in [tilec_codegen::Target::Riscv64gc, tilec_codegen::Target::Riscv64gcv] {
            let mut samples: Vec<[Duration; STAGES.len()]> = Vec::new();
            for _ in 0..runs {
                let mut t = [Duration::ZERO; STAGES.len()];
                let mut clock = Instant::now();
                let mut lap = |i: usize| {
                    let now = Instant::now();
                    t[i] = now - clock;
                    clock = now;
                };
                let module = tilec_syntax::parse(&source).map_err(|d| format!("{d:?}"))?;
                lap(0);
                let function =
                    tilec_front::specialize(&module, kernel, &signature, &constants).map_err(|d| format!("{d:?}"))?;
                lap(1);
                let (optimized, _) = tilec_opt::optimize(&function, &tilec_opt::Options::default());
                lap(2);
                let axis = tilec_ir::print_axis_info(&optimized, &tilec_ir::AxisAnalysis::new(&optimized));
                std::hint::black_box(axis);
                lap(3);
                let lowered = tilec_vector::lower(&optimized).map_err(|d| format!("{d:?}"))?;
                lap(4);
                let compiled = tilec_codegen::compile(&lowered, target).map_err(|d| format!("{d:?}"))?;
                lap(5);
                let so = tilec_codegen::link_shared_with(&compiled.object, &dirs).map_err(|d| format!("{d:?}"))?;
                std::hint::black_box(so);
                lap(6);
                samples.push(t);
            }
            let median = |i: Option<usize>| {
                let mut v: Vec<Duration> = samples.iter().map(|s| i.map_or_else(|| s.iter().sum(), |i| s[i])).collect();
                v.sort();
                v[v.len() / 2].as_secs_f64() * 1000.0
            };
            let cells: Vec<String> = (0..STAGES.len()).map(|i| format!("{:.2}", median(Some(i)))).collect();
            println!("| {name} | {target:?} | {} | {:.2} |", cells.join(" | "), median(None));
        }
    }
    Ok(())
}
