//! The nest report (`tilec compile --emit nests`, [`tilec::nest_report`]) of the kernels of
//! the budget table (`bench/code_size.tsv`: the benchmark kernels, then the kernels of
//! Triton's tutorials that tilec compiles) on riscv64gcv: no benchmark kernel keeps a nest or
//! dot in scalar code (but those of an explicit list, each with its reason), and the tutorial
//! kernels' reports are snapshots, so a nest that stops (or starts) being an RVV leaf shows in
//! review with the reason.

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
    let layout = tilec_toolchain::Layout::from_env().unwrap_or_else(|e| panic!("{e}"));
    let output = tilec::Compiler::new(Target::Riscv64gcv)
        .with_texts(false)
        .with_library_dirs(vec![layout.sleef_lib_dir()])
        .compile(&request)
        .unwrap_or_else(|ds| panic!("{}: {:?}", case.name, ds.iter().map(|d| &d.message).collect::<Vec<_>>()));
    let files = tilec::source_files(&case.file, &source, &[]);
    let text = tilec::nest_report(Target::Riscv64gcv, &output.nests, &files);
    (output.nests, text)
}

/// Benchmark kernels that still keep a nest in scalar code on riscv64gcv, with the reason. A
/// kernel leaves this list when its last scalar nest becomes an RVV leaf (the test fails
/// while it is listed without one).
const SCALAR_NESTS_LEFT: &[(&str, &str)] = &[
    (
        "seeded dropout (tutorial 04)",
        "about 30 live-in integer uniforms (the Philox keys and round constants) exhaust the RVV \
         leaf's scalar registers before its load stream gets one",
    ),
    (
        "cross-entropy (FlagGems)",
        "two one-element nests of the per-row epilogue: the i1 to fp32 conversion of the weight has \
         no vector form, and the load of the target's logit does not fit the leaf's prologue",
    ),
];

#[test]
fn benchmark_kernels_have_no_scalar_nests_on_riscv64gcv() {
    let cases = code_size::cases().unwrap_or_else(|e| panic!("{e}"));
    let benchmarks: Vec<&Case> = cases.iter().filter(|c| !c.is_tutorial()).collect();
    assert!(benchmarks.len() >= 20, "{BUDGETS} lists {} benchmark kernels, expected 20 or more", benchmarks.len());
    for (name, _) in SCALAR_NESTS_LEFT {
        assert!(
            benchmarks.iter().any(|c| c.name == *name),
            "SCALAR_NESTS_LEFT names `{name}`, no benchmark of {BUDGETS}"
        );
    }
    let mut failures = Vec::new();
    for case in benchmarks {
        let (nests, text) = nests(case);
        let scalar = nests.iter().any(|n| matches!(n.outcome, NestOutcome::Scalar(_)));
        let listed = SCALAR_NESTS_LEFT.iter().any(|(name, _)| *name == case.name);
        if nests.is_empty() || scalar != listed {
            let why = if listed { "listed in SCALAR_NESTS_LEFT but has no scalar nest: remove it" } else { "" };
            failures.push(format!("{}: {why}\n{text}", case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "benchmark kernels with scalar nests (or none at all), or listed without one:\n{}",
        failures.join("\n")
    );
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
