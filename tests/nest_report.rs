//! The nest report (`tilec compile --emit nests`, [`tilec::nest_report`]) of the kernels of
//! the budget table (`bench/code_size.tsv`: the benchmark kernels, then the kernels of
//! Triton's tutorials that tilec compiles) on riscv64gcv: no benchmark or tutorial kernel
//! keeps a nest or dot in scalar code, and the tutorial kernels' reports are snapshots, so a
//! nest that stops (or starts) being an RVV leaf shows in review with the reason. The
//! fixtures that exercise what once fell back to scalar code have no scalar nest either.

mod support;

use tilec::Target;
use tilec::{NestOutcome, NestReport};
use tilec_testkit::code_size::{self, Case, BUDGETS};
use tilec_testkit::{workspace_root, Fixture};

/// The nests of `case` compiled for riscv64gcv, and its report text.
fn nests(case: &Case) -> (Vec<NestReport>, String) {
    nests_checked(case, false)
}

/// [`nests`], with bounds checks when `check_bounds`.
fn nests_checked(case: &Case, check_bounds: bool) -> (Vec<NestReport>, String) {
    let source =
        std::fs::read_to_string(workspace_root().join(&case.file)).unwrap_or_else(|e| panic!("{}: {e}", case.file));
    let request = support::case_request(case, &source).unwrap_or_else(|ds| panic!("{}: {ds:?}", case.name));
    let layout = tilec_toolchain::Layout::from_env().unwrap_or_else(|e| panic!("{e}"));
    let output = tilec::Compiler::new(Target::Riscv64gcv)
        .with_texts(false)
        .with_check_bounds(check_bounds)
        .with_library_dirs(vec![layout.sleef_lib_dir()])
        .compile(&request)
        .unwrap_or_else(|ds| panic!("{}: {:?}", case.name, ds.iter().map(|d| &d.message).collect::<Vec<_>>()));
    let files = tilec::source_files(&case.file, &source, &[]);
    let text = tilec::nest_report(Target::Riscv64gcv, &output.nests, &files);
    (output.nests, text)
}

/// A checked leaf shares its check registers with the scratch of its arg-accumulations:
/// FlagGems' argmax (a masked load, a NaN-aware argmax, bounds checks) still fits.
#[test]
fn checked_argmax_has_no_scalar_nests() {
    let cases = code_size::cases().unwrap_or_else(|e| panic!("{e}"));
    let case = cases.iter().find(|c| c.name == "argmax (FlagGems)").expect("argmax in the budget table");
    let (nests, text) = nests_checked(case, true);
    assert!(nests.iter().all(|n| !matches!(n.outcome, NestOutcome::Scalar(_))), "{text}");
}

#[test]
fn benchmark_kernels_have_no_scalar_nests_on_riscv64gcv() {
    let cases = code_size::cases().unwrap_or_else(|e| panic!("{e}"));
    let benchmarks: Vec<&Case> = cases.iter().filter(|c| !c.is_tutorial()).collect();
    assert!(benchmarks.len() >= 20, "{BUDGETS} lists {} benchmark kernels, expected 20 or more", benchmarks.len());
    let mut failures = Vec::new();
    for case in benchmarks {
        let (nests, text) = nests(case);
        if nests.is_empty() || nests.iter().any(|n| matches!(n.outcome, NestOutcome::Scalar(_))) {
            failures.push(format!("{}:\n{text}", case.name));
        }
    }
    assert!(failures.is_empty(), "benchmark kernels with scalar nests (or none at all):\n{}", failures.join("\n"));
}

/// Fixtures whose nests (every `# tilec:` line) are all RVV leaves or microkernels on
/// riscv64gcv, with what each once fell back to scalar code for.
const FORMER_FALLBACKS: &[(&str, &str)] = &[
    ("dropout", "Philox keys and constants: about 25 integer live-ins, more than the scalar registers"),
    ("custom_reduce", "a `tl.reduce` whose combine is a product, which has no reduction instruction"),
    ("scan_2d", "scans along both axes: 9 streams and the carried elements"),
    ("bitwise_literals", "13 streams (8 pointers, 5 linear values) and 10 constants"),
    ("nan_max_min_values", "a scan read back in the nest"),
    ("block_ptr", "block pointers: 16x16 nests with many streams"),
    ("dot_int8", "a 16x16 nest with many streams"),
    ("fp8_reductions", "an [8, 16] nest with many streams"),
    ("round_toward_zero", "a nest with many constants"),
    ("many_live", "40 live values: vector spills"),
    ("transpose", "`tl.trans` of a loaded tile (a strided load now, see below)"),
    ("matmul", "the dot and its operands' copies"),
    ("matmul_hints", "pointer tiles read from scratch row by row"),
];

/// The nests of every `# tilec:` line of fixture `name` on riscv64gcv.
fn fixture_nests(name: &str) -> Vec<(String, Vec<NestReport>)> {
    let f = Fixture::named("fixtures", name);
    f.compile
        .iter()
        .map(|header| {
            let request = tilec::Request {
                file_name: &f.name,
                source: &f.source,
                kernel: &header.kernel,
                signature: header.signature_items().unwrap_or_else(|ds| panic!("{name}: {ds:?}")),
                constants: header.constant_values(),
            };
            let output = tilec::Compiler::new(Target::Riscv64gcv)
                .with_texts(false)
                .compile(&request)
                .unwrap_or_else(|ds| panic!("{name}: {:?}", ds.iter().map(|d| &d.message).collect::<Vec<_>>()));
            let files = tilec::source_files(&f.name, &f.source, &[]);
            (tilec::nest_report(Target::Riscv64gcv, &output.nests, &files), output.nests)
        })
        .collect()
}

#[test]
fn former_scalar_fallbacks_are_rvv_leaves() {
    let mut failures = Vec::new();
    for (name, what) in FORMER_FALLBACKS {
        for (text, nests) in fixture_nests(name) {
            if nests.is_empty() || nests.iter().any(|n| matches!(n.outcome, NestOutcome::Scalar(_))) {
                failures.push(format!("{name} ({what}):\n{text}"));
            }
        }
    }
    assert!(failures.is_empty(), "fixtures with scalar nests on riscv64gcv:\n{}", failures.join("\n"));
}

/// `tl.trans` of a loaded tile is an access pattern of the load (a strided load in the
/// nest that stores the transpose), not a copy through scratch: one nest.
#[test]
fn a_transposed_load_is_one_nest() {
    let reports = fixture_nests("transpose");
    let (text, nests) = &reports[0];
    assert_eq!(nests.len(), 1, "transpose.py:\n{text}");
}

#[test]
fn tutorial_kernels_have_no_scalar_nests_on_riscv64gcv() {
    let cases = code_size::cases().unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    for case in cases.iter().filter(|c| c.is_tutorial()) {
        let (nests, text) = nests(case);
        if nests.iter().any(|n| matches!(n.outcome, NestOutcome::Scalar(_))) {
            failures.push(format!("{}:\n{text}", case.name));
        }
    }
    assert!(failures.is_empty(), "tutorial kernels with scalar nests:\n{}", failures.join("\n"));
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
