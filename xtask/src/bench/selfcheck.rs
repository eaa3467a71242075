//! Checks the plugin's classes and register-group weights on `bench/plugin/selfcheck.c`, a
//! launch whose counts are known (see that file), before any benchmark is trusted.

use std::path::Path;

use super::super::Result;
use super::measure::{self, BenchDir, Config, Tools};
use super::suite::{Arg, Benchmark, Bound, Cost, Elem, Tolerance};

/// The expected (vset, vector, vector memory, LMUL-weighted vector) counts.
const EXPECTED: (u64, u64, u64, u64) = (2, 10, 3, 31);

pub fn run(tools: &Tools, bench_root: &Path) -> Result<()> {
    let probe = Benchmark {
        name: "plugin self-check",
        kernel_file: "",
        kernel: "selfcheck",
        signature: "",
        constants: &[],
        c_file: "bench/plugin/selfcheck.c",
        sleef_c_file: None,
        grid: [1, 1, 1],
        args: vec![Arg::scratch(Elem::F32, 1024)],
        tolerance: Tolerance::DEFAULT,
        bound: Bound::strips(Cost::scalar(1), 1, 1),
        targets: &[],
    };
    let dir = BenchDir::create(bench_root, &probe)?;
    let library = measure::build(tools, &probe, &dir, Config::ClangVector).library?;
    let counts = measure::run(tools, &probe, &dir, Config::ClangVector, &library, 256).counts?;
    let found = (counts.vset, counts.vector, counts.vector_memory, counts.vector_lmul);
    if found != EXPECTED {
        return Err(format!(
            "the insn_count plugin miscounts bench/plugin/selfcheck.c: (vset, vector, vector memory, LMUL-weighted) = {found:?}, expected {EXPECTED:?}"
        ));
    }
    Ok(())
}
