//! The nest report (`tilec compile --emit nests`, [`tilec::nest_report`]) of the kernels of
//! the budget table (`bench/code_size.tsv`: the benchmark kernels, then the kernels of
//! Triton's tutorials that tilec compiles) on riscv64gcv: no benchmark kernel keeps a nest or
//! dot in scalar code, and the tutorial kernels' reports are snapshots, so a nest that stops
//! (or starts) being an RVV leaf shows in review with the reason.

use tilec::Target;
use tilec::{NestOutcome, NestReport};
use tilec_testkit::code_size::{self, Case, BUDGETS};
use tilec_testkit::workspace_root;

/// The nests of `case` compiled for riscv64gcv, and its report text.
fn nests(case: &Case) -> (Vec<NestReport>, String) {
    let source =
        std::fs::read_to_string(workspace_root().join(&case.file)).unwrap_or_else(|e| panic!("{}: {e}", case.file));
    let request = tilec::Request {
        file_name: &case.file,
        source: &source,
        kernel: &case.header.kernel,
        signature: case.header.signature_items().unwrap_or_else(|ds| panic!("{}: {ds:?}", case.name)),
        constants: case.header.constant_values(),
    };
    let output = tilec::Compiler::new(Target::Riscv64gcv)
        .with_texts(false)
        .compile(&request)
        .unwrap_or_else(|ds| panic!("{}: {:?}", case.name, ds.iter().map(|d| &d.message).collect::<Vec<_>>()));
    let files = tilec::source_files(&case.file, &source, &[]);
    let text = tilec::nest_report(Target::Riscv64gcv, &output.nests, &files);
    (output.nests, text)
}

#[test]
fn benchmark_kernels_have_no_scalar_nests_on_riscv64gcv() {
    let cases = code_size::cases().unwrap_or_else(|e| panic!("{e}"));
    let benchmarks: Vec<&Case> = cases.iter().filter(|c| !c.is_tutorial()).collect();
    assert!(benchmarks.len() >= 6, "{BUDGETS} lists {} benchmark kernels, expected 6 or more", benchmarks.len());
    let mut failures = Vec::new();
    for case in benchmarks {
        let (nests, text) = nests(case);
        if nests.is_empty() || nests.iter().any(|n| matches!(n.outcome, NestOutcome::Scalar(_))) {
            failures.push(format!("{}:\n{text}", case.name));
        }
    }
    assert!(failures.is_empty(), "benchmark kernels with scalar nests (or none at all):\n{}", failures.join("\n"));
}

#[test]
fn tutorial_nest_reports() {
    let cases = code_size::cases().unwrap_or_else(|e| panic!("{e}"));
    let mut all = String::new();
    for case in cases.iter().filter(|c| c.is_tutorial()) {
        all.push_str(&format!("## {}\n{}\n", case.name, nests(case).1));
    }
    insta::with_settings!({ snapshot_path => workspace_root().join("snapshots"), prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("tutorial_nest_reports", all);
    });
}
