//! Code size: every kernel of the budget table (`bench/code_size.tsv`: the benchmark
//! kernels, and the kernels of Triton's tutorials that tilec compiles) compiled through the
//! library for riscv64gcv and riscv64gc; the `.text` of each shared object is at most its
//! budget there, and no tutorial kernel's exceeds 64 KiB on riscv64gcv (about the size of a
//! core's first-level instruction cache). `cargo xtask bench` reports the same sizes in
//! `BENCHMARKS.md`.

mod support;

use tilec::Target;
use tilec_testkit::code_size::{self, Case, BUDGETS, TUTORIAL_LIMIT};
use tilec_testkit::workspace_root;

/// The `.text` bytes of `case` compiled for `target`.
fn text_bytes(case: &Case, target: Target) -> Result<u64, String> {
    let path = workspace_root().join(&case.file);
    let source = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", case.file))?;
    let request = support::case_request(case, &source).map_err(|ds| format!("{ds:?}"))?;
    let layout = tilec_toolchain::Layout::from_env()?;
    let output = tilec::Compiler::new(target)
        .with_library_dirs(vec![layout.sleef_lib_dir()])
        .compile(&request)
        .map_err(|ds| ds.iter().map(|d| d.message.clone()).collect::<Vec<_>>().join("; "))?;
    code_size::text_bytes(&output.shared_object).ok_or_else(|| "the shared object has no .text".to_string())
}

#[test]
fn every_kernel_fits_its_code_size_budget() {
    let cases = code_size::cases().unwrap_or_else(|e| panic!("{e}"));
    assert!(cases.len() >= 10, "{BUDGETS} lists {} kernels, expected the benchmarks and tutorials", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        match [Target::Riscv64gcv, Target::Riscv64gc].map(|target| text_bytes(case, target)) {
            [Ok(gcv), Ok(gc)] if case.fits([gcv, gc]) => {}
            [Ok(gcv), Ok(gc)] => failures.push(format!(
                "{}: .text {gcv} bytes on riscv64gcv, {gc} on riscv64gc; budgets {} and {}",
                case.name, case.budgets[0], case.budgets[1]
            )),
            [gcv, gc] => failures.push(format!("{}: {:?} {:?}", case.name, gcv.err(), gc.err())),
        }
    }
    assert!(failures.is_empty(), "kernels over their code-size budget ({BUDGETS}):\n{}", failures.join("\n"));
}

#[test]
fn tutorial_budgets_stay_within_the_instruction_cache() {
    let cases = code_size::cases().unwrap_or_else(|e| panic!("{e}"));
    let tutorials: Vec<&Case> = cases.iter().filter(|c| c.is_tutorial()).collect();
    let attention = tutorials.iter().any(|c| c.header.kernel == "_attn_bwd");
    assert!(attention, "{BUDGETS} lacks tutorial 06's attention backward");
    for case in tutorials {
        let budget = case.budgets[0];
        assert!(budget <= TUTORIAL_LIMIT, "{}: riscv64gcv budget {budget} > {TUTORIAL_LIMIT}", case.name);
    }
}
