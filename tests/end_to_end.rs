//! End-to-end: kernels compiled for riscv64 run under qemu (or natively on a riscv64 host)
//! through the runner, checked against the Tile IR interpreter and hand-written references.
//!
//! Every fixture with `# tilec-run:` lines runs on each of [`MACHINES`] (the host, natively in
//! the `tilec` process, and riscv64 under qemu); its outputs must equal
//! the interpreter's bit for bit (NaN payloads aside), unless the fixture declares a tolerance
//! with its reason (`# tilec-tolerance:`); on the host, riscv64gc and riscv64gcv it runs bounds-checked
//! too ([`BOUNDS_CHECKED`]). The runner itself is also checked with hand-written
//! C kernels (grid order, 1D/2D/3D grids, threads, the argument-slot ABI). A missing toolchain
//! fails with a message naming `cargo xtask setup`.

mod support;

use std::path::Path;

use support::{
    compare_arrays, cross_compile_shared_object, run_line, tilec, Fixture, HostArray, Number, RunLine, StatedValues,
    TempDir, Tolerance,
};

/// The compiled targets every runnable fixture is checked on: `tilec run` flags.
const MACHINES: &[&[&str]] = &[
    &["--target", "host"],
    &["--target", "riscv64gc"],
    &["--target", "riscv64gcv", "--vlen", "128"],
    &["--target", "riscv64gcv", "--vlen", "256"],
    &["--target", "riscv64gcv", "--vlen", "1024"],
];

/// The machines of [`MACHINES`] every runnable fixture also runs on with `--check-bounds`:
/// the checked run must succeed and give the unchecked run's outputs (bit for bit unless the
/// fixture declares a tolerance: a checked nest that needs the registers the checks take
/// may run at another LMUL, which reorders float sums).
const BOUNDS_CHECKED: &[&[&str]] = &[MACHINES[0], MACHINES[1], MACHINES[2]];

/// One `# tilec-run:` line of a fixture.
#[derive(Debug)]
struct RunCase {
    fixture: Fixture,
    line: RunLine,
}

impl RunCase {
    fn label(&self) -> String {
        format!("{} {}", self.fixture.path.display(), self.line.text())
    }

    /// Runs the case with `flags` added and `--out` a fresh directory.
    fn run(&self, flags: &[&str]) -> Result<TempDir, String> {
        run_line(&self.fixture, &self.line, flags)
    }

    /// Names of the array arguments (saved as NAME.npy).
    fn array_names(&self) -> Vec<String> {
        self.line.array_names()
    }
}

/// Every `# tilec-run:` line of every fixture in `fixtures/`.
fn runnable_fixtures() -> Vec<RunCase> {
    runnable_fixtures_in("fixtures")
}

/// The runnable fixtures of directory `dir`.
fn runnable_fixtures_in(dir: &str) -> Vec<RunCase> {
    Fixture::all_in(dir)
        .into_iter()
        .flat_map(|fixture| {
            fixture.runs.clone().into_iter().map(move |line| RunCase { fixture: fixture.clone(), line })
        })
        .collect()
}

impl RunCase {
    /// Compares every array of two runs of this case, as its fixture's header lines say: bit
    /// for bit unless a tolerance is declared.
    fn compare_outputs(&self, got: &TempDir, want: &TempDir) -> Result<(), String> {
        support::compare_outputs(&self.fixture, &self.array_names(), got, want)
    }
}

#[test]
fn fixtures_exist_and_are_runnable() {
    let cases = runnable_fixtures();
    assert!(!cases.is_empty(), "no fixture in fixtures/ has a `# tilec-run:` line");
}

#[test]
fn compiled_fixtures_match_the_interpreter() {
    let mut failures = Vec::new();
    for case in runnable_fixtures() {
        let reference = match case.run(&["--target", "interp"]) {
            Ok(dir) => dir,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        for machine in MACHINES {
            let checked = case.run(machine).and_then(|got| {
                case.compare_outputs(&got, &reference)?;
                if !BOUNDS_CHECKED.contains(machine) {
                    return Ok(());
                }
                let flags: Vec<&str> = machine.iter().copied().chain(["--check-bounds"]).collect();
                let bounds_checked = case.run(&flags)?;
                case.compare_outputs(&bounds_checked, &got).map_err(|e| format!("with --check-bounds: {e}"))
            });
            if let Err(e) = checked {
                failures.push(format!("{} on {}: {e}", case.label(), machine.join(" ")));
            }
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n\n"));
}

/// The machines the fixtures with fp16 arrays also run on: riscv64gcv with the RVV fp16
/// extensions (`--features`), at two VLENs.
const FP16_EXTENSION_MACHINES: &[&[&str]] = &[
    &["--target", "riscv64gcv", "--vlen", "128", "--features", "+zvfh"],
    &["--target", "riscv64gcv", "--vlen", "512", "--features", "+zvfhmin"],
];

#[test]
fn fp16_fixtures_match_the_interpreter_with_zvfh() {
    let cases: Vec<RunCase> =
        runnable_fixtures().into_iter().filter(|c| c.line.args.iter().any(|a| a.contains(":fp16:"))).collect();
    assert!(cases.len() >= 10, "only {} fixture runs with fp16 arrays", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let checked = case.run(&["--target", "interp"]).and_then(|reference| {
            FP16_EXTENSION_MACHINES.iter().try_for_each(|machine| {
                let got = case.run(machine).map_err(|e| format!("on {}: {e}", machine.join(" ")))?;
                case.compare_outputs(&got, &reference).map_err(|e| format!("on {}: {e}", machine.join(" ")))
            })
        });
        if let Err(e) = checked {
            failures.push(format!("{}: {e}", case.label()));
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn thread_count_does_not_change_results() {
    let mut failures = Vec::new();
    let cases = runnable_fixtures();
    assert!(
        cases.iter().any(|case| case.fixture.program_order.is_none()),
        "every fixture declares `# tilec-program-order:`: nothing is left to run on several threads"
    );
    for case in cases.into_iter().filter(|case| case.fixture.program_order.is_none()) {
        let one = case.run(&["--threads", "1"]);
        let four = case.run(&["--threads", "4"]);
        let checked = one.and_then(|one| four.and_then(|four| case.compare_outputs(&four, &one)));
        if let Err(e) = checked {
            failures.push(format!("{}: {e}", case.label()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The shared object the in-process linker writes runs as the one `rust-lld` links from the
/// same object, bit for bit: kernels with libm imports (GOT entries) on riscv64gc, RVV leaves
/// on riscv64gcv, launchers calling their kernel, and on riscv64gcv kernels calling SLEEF
/// (linked with the members of `libsleef.a` they need: `sin` reads its reduction table
/// through the GOT, `log1p` calls `logf`'s SLEEF function, `cbrt`, `tanh` and `expm1` their
/// constant tables).
#[test]
fn in_process_shared_objects_run_as_rust_lld_ones() {
    let mut compared = 0;
    let mut with_sleef = 0;
    let mut failures = Vec::new();
    let library_dirs = tilec::sleef_library_dirs();
    let archive = library_dirs.first().map(|d| d.join(tilec_codegen::SLEEF_ARCHIVE));
    for (dir, file, kernel) in [
        ("fixtures", "vector_add.py", "add_kernel"),
        ("fixtures", "softmax.py", "softmax_kernel"),
        ("fixtures", "layer_norm.py", "_layer_norm_fwd_fused"),
        ("fixtures", "matmul.py", "matmul_kernel"),
        ("fixtures", "libdevice_math.py", "libdevice_kernel"),
        ("fixtures/math", "sin.py", "math_kernel"),
        ("fixtures/math", "log1p.py", "math_kernel"),
        ("fixtures/math", "cbrt.py", "math_kernel"),
        ("fixtures/math", "tanh.py", "math_kernel"),
        ("fixtures/math", "expm1.py", "math_kernel"),
    ] {
        let case = fixture_case_in(dir, file, kernel);
        // The compile header whose constants the run line sets.
        let header = case
            .fixture
            .compile
            .iter()
            .find(|h| h.constants.iter().all(|(k, v)| case.line.args.contains(&format!("{k}={v}"))))
            .unwrap_or_else(|| panic!("{file}: no `# tilec:` header matches the run line"));
        let request = support::request(&case.fixture, header).unwrap_or_else(|d| panic!("{file}: {d:?}"));
        let machines: [(tilec::Target, &[&str]); 2] = [
            (tilec::Target::Riscv64gc, &["--target", "riscv64gc"]),
            (tilec::Target::Riscv64gcv, &["--target", "riscv64gcv", "--vlen", "256"]),
        ];
        for (target, flags) in machines {
            let label = format!("{file} on {}", flags.join(" "));
            let out = tilec::Compiler::new(target)
                .with_produce(tilec::Produce::Object)
                .compile(&request)
                .unwrap_or_else(|d| panic!("{label}: {d:?}"));
            let dir = TempDir::new("link");
            let ours = if tilec_codegen::link::references_sleef(&out.object) {
                with_sleef += 1;
                let archive =
                    archive.as_deref().unwrap_or_else(|| panic!("{label}: no SLEEF (run `cargo xtask setup`)"));
                tilec_codegen::shared_object::link_with_archive(&out.object, archive)
            } else {
                tilec_codegen::shared_object::link(&out.object)
            };
            let ours = ours.unwrap_or_else(|e| panic!("{label}: {e}"));
            let theirs = tilec_codegen::link_shared_with_lld(&out.object, &library_dirs)
                .unwrap_or_else(|d| panic!("{label}: {d}"));
            assert_ne!(ours, theirs, "{label}: the two linkers wrote the same bytes: nothing is compared");
            let runs: Vec<Result<TempDir, String>> = [("in-process.so", &ours), ("rust-lld.so", &theirs)]
                .into_iter()
                .map(|(name, bytes)| {
                    let path = dir.join(name);
                    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    let library = path.display().to_string();
                    let extra: Vec<&str> = flags.iter().copied().chain(["--library", &library]).collect();
                    case.run(&extra)
                })
                .collect();
            match (&runs[0], &runs[1]) {
                (Ok(got), Ok(want)) => {
                    let checked = case
                        .array_names()
                        .iter()
                        .try_for_each(|n| compare_exact(n, &got.read_npy(n), &want.read_npy(n)));
                    if let Err(e) = checked {
                        failures.push(format!("{label}: {e}"));
                    }
                    compared += 1;
                }
                (a, b) => failures.push(format!(
                    "{label}: in process {:?}, rust-lld {:?}",
                    a.as_ref().err(),
                    b.as_ref().err()
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(compared >= 18, "only {compared} kernels compared");
    assert!(with_sleef >= 5, "only {with_sleef} kernels calling SLEEF compared");
}

/// Exactly equal arrays: same dtype, shape and element bits (any NaN equal to any NaN).
fn compare_exact(name: &str, got: &HostArray, want: &HostArray) -> Result<(), String> {
    compare_arrays(name, got, want, &Tolerance::exact())
}

/// The optimizer keeps results bit for bit, except where the fixture declares a tolerance:
/// the loop-carried rule `carried-tile-sum-to-partial-sums` (see `crates/opt/src/rules/README.md`)
/// turns a tile summed after its loop into per-iteration partial sums, which changes float
/// rounding as any reduction order does.
#[test]
fn optimizer_does_not_change_results() {
    let mut failures = Vec::new();
    for case in runnable_fixtures() {
        for target in ["interp", "riscv64gc"] {
            let optimized = case.run(&["--target", target]);
            let unoptimized = case.run(&["--target", target, "-O0"]);
            let checked = optimized.and_then(|opt| unoptimized.and_then(|o0| case.compare_outputs(&opt, &o0)));
            if let Err(e) = checked {
                failures.push(format!("{} on {target}, default vs -O0: {e}", case.label()));
            }
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n\n"));
}

/// The fixture case running `kernel` of `file`; panics naming what is missing.
fn fixture_case(file: &str, kernel: &str) -> RunCase {
    fixture_case_in("fixtures", file, kernel)
}

/// The run case of `file` in directory `dir` for `kernel`.
fn fixture_case_in(dir: &str, file: &str, kernel: &str) -> RunCase {
    runnable_fixtures_in(dir)
        .into_iter()
        .find(|c| c.fixture.path.ends_with(file) && c.line.kernel == kernel)
        .unwrap_or_else(|| panic!("{dir}/{file} has no `# tilec-run:` line for kernel {kernel}"))
}

/// Runs `case` on every machine and compares array `output` with `reference`, which computes
/// the expected array from the saved arguments (read with the given lookup).
fn check_reference(case: &RunCase, output: &str, reference: impl Fn(&dyn Fn(&str) -> HostArray) -> HostArray) {
    let tolerance = case.fixture.tolerance(output);
    check_reference_with(case, output, &|name, got, want| compare_arrays(name, got, want, &tolerance), reference)
}

/// [`check_reference`] comparing with `same` (such as [`compare_exact`]).
fn check_reference_with(
    case: &RunCase,
    output: &str,
    same: &dyn Fn(&str, &HostArray, &HostArray) -> Result<(), String>,
    reference: impl Fn(&dyn Fn(&str) -> HostArray) -> HostArray,
) {
    for machine in MACHINES {
        let dir = case.run(machine).unwrap_or_else(|e| panic!("{e}"));
        let want = reference(&|name| dir.read_npy(name));
        same(output, &dir.read_npy(output), &want)
            .unwrap_or_else(|e| panic!("{} on {}: {e}", case.label(), machine.join(" ")));
    }
}

fn floats(array: &HostArray) -> Vec<f64> {
    (0..array.len())
        .map(|i| match array.get(i) {
            Number::Float(x) => x,
            other => panic!("expected a float, got {other}"),
        })
        .collect()
}

/// An fp32 array of `shape` holding `values`.
fn fp32_array(shape: &[u64], values: impl IntoIterator<Item = f64>) -> HostArray {
    let mut array = HostArray::zeros(tilec_ir::ScalarType::F32, shape).unwrap();
    for (i, v) in values.into_iter().enumerate() {
        array.set(i as u64, Number::Float(v));
    }
    array
}

#[test]
fn vector_add_matches_rust() {
    let case = fixture_case("vector_add.py", "add_kernel");
    check_reference(&case, "output_ptr", |arg| {
        let (x, y) = (floats(&arg("x_ptr")), floats(&arg("y_ptr")));
        fp32_array(&[x.len() as u64], x.iter().zip(&y).map(|(a, b)| f64::from(*a as f32 + *b as f32)))
    });
}

#[test]
fn transpose_matches_rust() {
    let case = fixture_case("transpose.py", "transpose_kernel");
    check_reference(&case, "y_ptr", |arg| {
        let x = arg("x_ptr");
        let (m, n) = (x.shape[0], x.shape[1]);
        let x = floats(&x);
        fp32_array(&[n, m], (0..n * m).map(|i| x[((i % m) * n + i / m) as usize]))
    });
}

#[test]
fn row_sum_matches_rust() {
    let case = fixture_case("row_sum.py", "row_sum_kernel");
    check_reference(&case, "out_ptr", |arg| {
        let x = arg("x_ptr");
        let (m, n) = (x.shape[0] as usize, x.shape[1] as usize);
        let x = floats(&x);
        fp32_array(&[m as u64], (0..m).map(|r| x[r * n..(r + 1) * n].iter().sum::<f64>()))
    });
}

/// Triton's float max/min on NaNs (see `fixtures/nan_max_min_values.py`): by default
/// (`maxnum`/`minnum`) a NaN operand loses and only NaNs give NaN, also in reductions and
/// scans; `PropagateNan.ALL` returns NaN for any NaN operand; `clamp` is
/// `minnum(maxnum(x, min), max)`, so a NaN `x` gives `min` (NaN with `ALL`). Checked on the
/// interpreter (the reference of every other comparison) and on every machine.
#[test]
fn nan_max_min_values_match_triton() {
    let nan = f64::NAN;
    #[rustfmt::skip]
    let expected = [
        // maximum(a, b), minimum(a, b)
        2.0, -2.0, nan, 0.5, 1.0, -0.5, 3.0, 4.0,
        2.0, -2.0, nan, 0.0, 0.0, -0.5, 3.0, -1.5,
        // ... with PropagateNan.ALL
        nan, nan, nan, 0.5, 1.0, nan, nan, 4.0,
        nan, nan, nan, 0.0, 0.0, nan, nan, -1.5,
        // clamp(a, -1, 1), then with PropagateNan.ALL
        -1.0, -1.0, -1.0, 0.0, 1.0, -1.0, 1.0, 1.0,
        nan, -1.0, nan, 0.0, 1.0, nan, 1.0, 1.0,
        // cummax(a), reversed cummin(a)
        nan, -2.0, -2.0, 0.0, 1.0, 1.0, 3.0, 4.0,
        -2.0, -2.0, 0.0, 0.0, 1.0, 3.0, 3.0, 4.0,
        // max(a), min(a), max(b), min(b), max and min of all NaNs, unwritten
        4.0, -2.0, 2.0, -1.5, nan, nan, 0.0, 0.0,
    ];
    let want = fp32_array(&[expected.len() as u64], expected);
    let case = fixture_case("nan_max_min_values.py", "nan_values_kernel");
    for machine in std::iter::once(&["--target", "interp"][..]).chain(MACHINES.iter().copied()) {
        let dir = case.run(machine).unwrap_or_else(|e| panic!("{e}"));
        compare_exact("out_ptr", &dir.read_npy("out_ptr"), &want)
            .unwrap_or_else(|e| panic!("{} on {}: {e}", case.label(), machine.join(" ")));
    }
}

/// `half_from_wide.py`: fp64 and int32 values next to and on fp16/bf16 ties round once,
/// to nearest even (section by section, as the kernel's comments describe).
#[test]
fn wide_values_round_once_to_halves() {
    let case = fixture_case("half_from_wide.py", "half_from_wide_kernel");
    let n = 1024u64;
    // the magnitude the kernel's lane `k` of `section` must produce
    let expected = |bf16: bool, section: u64, k: u64| -> f64 {
        let steps = if bf16 { 128 } else { 1024 };
        let m = (k % steps) as f64;
        let unit = 1.0 / steps as f64;
        let even = if (k % steps).is_multiple_of(2) { m } else { m + 1.0 };
        match (bf16, section) {
            (_, 0) => 1.0 + (m + 1.0) * unit,
            (_, 1) => 1.0 + m * unit,
            (_, 2) => 1.0 + even * unit,
            (false, 3) => (m + 1.0) * 2f64.powi(-24),
            (false, _) => m * 2f64.powi(-24),
            (true, 3) => 2f64.powi(25) + ((k % 128) as f64 + 1.0) * 2f64.powi(18),
            (true, _) => 2f64.powi(25) + (k % 128) as f64 * 2f64.powi(18),
        }
    };
    for (output, bf16) in [("h_ptr", false), ("b_ptr", true)] {
        check_reference_with(&case, output, &compare_exact, |arg| {
            let mut want = arg(output);
            for i in 0..5 * n {
                let (section, k) = (i / n, i % n);
                let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                want.set(i, Number::Float(sign * expected(bf16, section, k)));
            }
            want
        });
    }
}

/// `block_ptr.py`: block pointer loads read what lies outside the tensor as the padding
/// (NaN for `block_copy`'s first run line, zero by default in `block_branches`) and stores
/// skip the checked dimensions' outside elements; computed here element by element.
#[test]
fn block_pointers_match_rust() {
    check_reference_with(&fixture_case("block_ptr.py", "block_copy"), "y_ptr", &compare_exact, |arg| {
        let x = arg("x_ptr");
        let (m, n) = (x.shape[0], x.shape[1]);
        let x = floats(&x);
        // every element of the 12 x 16 output is written: x inside it, NaN outside
        fp32_array(
            &[12, 16],
            (0..12 * 16).map(|i| {
                let (r, c) = (i / 16, i % 16);
                if r < m && c < n {
                    x[(r * n + c) as usize]
                } else {
                    f64::NAN
                }
            }),
        )
    });
    check_reference_with(&fixture_case("block_ptr.py", "block_branches"), "out_ptr", &compare_exact, |arg| {
        let x = arg("x_ptr");
        let (m, n) = (x.shape[0] as i64, x.shape[1] as i64);
        let mut out = arg("out_ptr");
        for i in 0..out.len() {
            out.set(i, Number::Int(0));
        }
        // program p covers rows 4p..4p+4; odd programs read one column further right
        for p in 0..3i64 {
            for r in 4 * p..4 * p + 4 {
                // two loop iterations of 4 columns; the store checks columns against N + 1
                for col in 0..(n + 1).min(8) {
                    let src = col + p % 2;
                    let v = if r < m && src < n {
                        match x.get((r * n + src) as u64) {
                            Number::Int(v) => v,
                            other => panic!("expected an int, got {other}"),
                        }
                    } else {
                        0
                    };
                    out.set((r * 8 + col) as u64, Number::Int(v * 10 + p));
                }
            }
        }
        out
    });
}

/// `tensor_desc.py`: overlapping descriptor blocks added atomically, read as zero outside
/// `x` and never written outside `acc` and `hits` (the last row of programs lies below both).
#[test]
fn tensor_descriptors_match_rust() {
    let case = fixture_case("tensor_desc.py", "desc_accumulate");
    // program row pm covers output rows 2pm..2pm+4, reading x rows 4pm-2..4pm+2
    let sources = |r: u64| (0..4u64).filter(move |pm| (2 * pm..2 * pm + 4).contains(&r));
    check_reference_with(&case, "acc_desc", &compare_exact, |arg| {
        let x = arg("x_desc");
        let (m, n) = (x.shape[0] as i64, x.shape[1] as i64);
        let x = floats(&x);
        fp32_array(
            &[6, 16],
            (0..6 * 16u64).map(|i| {
                let (r, c) = (i / 16, (i % 16) as i64);
                sources(r)
                    .map(|pm| r as i64 - 2 * pm as i64 + 4 * pm as i64 - 2)
                    .filter(|&xr| (0..m).contains(&xr) && c < n)
                    .fold(0.0, |sum, xr| sum + x[(xr * n + c) as usize])
            }),
        )
    });
    check_reference_with(&case, "hits_ptr", &compare_exact, |arg| {
        let mut hits = arg("hits_ptr");
        for i in 0..hits.len() {
            hits.set(i, Number::Int(sources(i / 16).count() as i64));
        }
        hits
    });
}

/// `pointer_table.py`: each program converts an address loaded from a table to a pointer
/// and scales its array into the fp16 array of the other table.
#[test]
fn pointer_tables_match_rust() {
    let case = fixture_case("pointer_table.py", "scale_each");
    for g in 0..3u64 {
        let output = format!("out_tables.{g}");
        check_reference_with(&case, &output, &compare_exact, |arg| {
            let x = floats(&arg(&format!("tables.{g}")));
            let mut want = arg(&output);
            let n = ((g + 1) * 20).min(64);
            for i in 0..n {
                // x * 2 + g in fp32, then rounded to fp16 (`want` is an fp16 array)
                want.set(i, Number::Float(f64::from((x[i as usize] as f32) * 2.0 + g as f32)));
            }
            want
        });
    }
}

/// Compares array `got` with stated values, bit for bit (`-0.0` is not `0.0`), any NaN
/// matching `nan` or `-nan` (NaN signs are compared through bitcasts in the fixtures that
/// define them).
fn compare_stated(name: &str, got: &HostArray, want: &[String]) -> Result<(), String> {
    if got.len() as usize != want.len() {
        return Err(format!("`{name}` has {} elements, {} are stated", got.len(), want.len()));
    }
    let mut differing = Vec::new();
    for (i, w) in want.iter().enumerate() {
        let g = got.get(i as u64);
        let same = match g {
            Number::Float(x) => {
                let e: f64 = match w.as_str() {
                    "nan" | "-nan" => f64::NAN,
                    "inf" => f64::INFINITY,
                    "-inf" => f64::NEG_INFINITY,
                    v => v.parse().unwrap_or_else(|_| panic!("`{name}`: `{v}` is not a float")),
                };
                (x.is_nan() && e.is_nan()) || x.to_bits() == e.to_bits()
            }
            Number::Int(x) => w.parse::<i128>().ok() == Some(x as i128),
            Number::UInt(x) => w.parse::<i128>().ok() == Some(x as i128),
        };
        if !same {
            differing.push(format!("[{i}] {g} != {w}"));
        }
    }
    if differing.is_empty() {
        Ok(())
    } else {
        let shown: Vec<&str> = differing.iter().take(8).map(String::as_str).collect();
        Err(format!("`{name}`: {} of {} elements differ: {}", differing.len(), want.len(), shown.join(", ")))
    }
}

/// Fixtures that state their expected outputs (from Triton, or tilec's documented choice)
/// give exactly those on the interpreter and every compiled target.
#[test]
fn fixtures_give_their_stated_values() {
    let mut checked = 0;
    let mut seen = std::collections::BTreeSet::new();
    for case in runnable_fixtures() {
        if !seen.insert(case.fixture.path.clone()) {
            continue; // the first run line of a fixture is the one its values are for
        }
        let stated = &case.fixture.expectations;
        if stated.is_empty() {
            continue;
        }
        for machine in std::iter::once(&["--target", "interp"][..]).chain(MACHINES.iter().copied()) {
            let dir = case.run(machine).unwrap_or_else(|e| panic!("{e}"));
            for StatedValues { output, values } in stated {
                compare_stated(output, &dir.read_npy(output), values)
                    .unwrap_or_else(|e| panic!("{} on {}: {e}", case.label(), machine.join(" ")));
            }
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} fixtures state expected values");
}

// ---- the runner, with hand-written C kernels ----

/// Declares the parameters of the C kernels below (its body never runs: `--library`).
const PROBE_KERNELS: &str = r#"
import triton
import triton.language as tl

@triton.jit
def grid_probe(out_ptr, dims_ptr, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.program_id(0), 1)

@triton.jit
def slot_probe(out_ptr, a, one, b, c, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.program_id(0), a)

@triton.jit
def print_probe(out_ptr, BLOCK: tl.constexpr):
    tl.device_print("pid", tl.program_id(0))
"#;

/// `grid_probe` adds a code of its program id to its own element (so a program that ran
/// twice or not at all shows) and program (0,0,0) records the grid. `slot_probe` stores its
/// raw argument slots.
const PROBE_C_KERNELS: &str = r#"
#include <stdint.h>
#include <stdio.h>
void print_probe_launch(const uint64_t *args, int32_t px, int32_t py, int32_t pz,
                        uint32_t gx, uint32_t gy, uint32_t gz) {
    printf("pid (%d, %d, %d) of (%u, %u, %u)\n", px, py, pz, gx, gy, gz);
}
void grid_probe_launch(const uint64_t *args, int32_t px, int32_t py, int32_t pz,
                       uint32_t gx, uint32_t gy, uint32_t gz) {
    int32_t *out = (int32_t *)(uintptr_t)args[0];
    int32_t *dims = (int32_t *)(uintptr_t)args[1];
    out[((int64_t)pz * gy + py) * gx + px] += px + 100 * py + 10000 * pz + 1;
    if (px == 0 && py == 0 && pz == 0) { dims[0] = gx; dims[1] = gy; dims[2] = gz; }
}
void slot_probe_launch(const uint64_t *args, int32_t px, int32_t py, int32_t pz,
                       uint32_t gx, uint32_t gy, uint32_t gz) {
    int64_t *out = (int64_t *)(uintptr_t)args[0];
    out[0] = (int64_t)args[1];
    out[1] = (int64_t)args[2];
    out[2] = (int64_t)args[3];
    out[3] = ((uintptr_t)out) % 16 * 10000 + ((uintptr_t)(out + 4)) % 4096;
}
"#;

struct Probes {
    dir: TempDir,
    source: String,
    library: String,
}

fn probes() -> Probes {
    let dir = TempDir::new("probes");
    let source = dir.write("probes.py", PROBE_KERNELS);
    let library = cross_compile_shared_object(&dir, "probes", PROBE_C_KERNELS);
    Probes { dir, source, library }
}

impl Probes {
    fn run(&self, kernel: &str, extra: &[&str]) -> TempDir {
        self.run_with_stdout(kernel, extra).0
    }

    fn run_with_stdout(&self, kernel: &str, extra: &[&str]) -> (TempDir, String) {
        let out = TempDir::new("probe-out");
        let out_dir = out.path.display().to_string();
        let mut args =
            vec!["run", self.source.as_str(), "-k", kernel, "--library", self.library.as_str(), "--out", &out_dir];
        args.extend_from_slice(extra);
        let outcome = tilec(&args, &[]);
        outcome.assert_success();
        (out, outcome.stdout)
    }
}

fn ints(array: &HostArray) -> Vec<i64> {
    (0..array.len())
        .map(|i| match array.get(i) {
            Number::Int(x) => x,
            other => panic!("expected an integer, got {other}"),
        })
        .collect()
}

#[test]
fn runner_covers_1d_2d_and_3d_grids_once_per_program_on_any_thread_count() {
    let p = probes();
    for (grid, [gx, gy, gz]) in [("7", [7, 1, 1]), ("5,3", [5, 3, 1]), ("4,3,2", [4, 3, 2])] {
        for threads in ["1", "3", "4"] {
            let n = (gx * gy * gz).to_string();
            let out_arg = format!("out_ptr=zeros:i32:{n}");
            let out = p.run(
                "grid_probe",
                &["--grid", grid, "--threads", threads, &out_arg, "dims_ptr=zeros:i32:3", "BLOCK=1"],
            );
            let mut want = Vec::new();
            for z in 0..gz {
                for y in 0..gy {
                    for x in 0..gx {
                        want.push(x + 100 * y + 10000 * z + 1);
                    }
                }
            }
            assert_eq!(ints(&out.read_npy("out_ptr")), want, "grid {grid}, {threads} threads");
            assert_eq!(ints(&out.read_npy("dims_ptr")), [gx, gy, gz], "grid {grid}");
        }
    }
    drop(p.dir);
}

#[test]
fn runner_passes_argument_slots_as_the_abi_says() {
    let p = probes();
    let out = p.run(
        "slot_probe",
        &["--grid", "1", "out_ptr=zeros:i64:4", "a=-5", "one=1", "b=0.5", "c=5000000001", "BLOCK=4"],
    );
    let slots = ints(&out.read_npy("out_ptr"));
    // i32 sign-extended; `one` specialized away; fp32 bits in the low half; i64 as is;
    // buffers 16-byte aligned and ending at a page boundary (the guard page).
    assert_eq!(slots, [-5, i64::from(0.5f32.to_bits()), 5_000_000_001, 0]);
}

#[test]
fn run_saves_inputs_and_outputs_as_npy() {
    let p = probes();
    let input = p.dir.join("input.npy");
    HostArray::arange(tilec_ir::ScalarType::I32, &[2, 3]).unwrap().write_npy(&input).unwrap();
    let out_arg = format!("out_ptr=@{}", input.display());
    let out = p.run("grid_probe", &["--grid", "3,2", &out_arg, "dims_ptr=zeros:i32:3", "BLOCK=1"]);
    let got = out.read_npy("out_ptr");
    assert_eq!(got.shape, [2, 3]);
    assert_eq!(ints(&got), [1, 3, 5, 104, 106, 108]);
    assert!(Path::new(&input).exists());
}

#[test]
fn kernel_output_reaches_stdout() {
    let p = probes();
    let (_, stdout) = p.run_with_stdout("print_probe", &["--grid", "2,1,1", "out_ptr=zeros:i32:1", "BLOCK=1"]);
    assert!(stdout.contains("pid (0, 0, 0) of (2, 1, 1)\n"), "{stdout}");
    assert!(stdout.contains("pid (1, 0, 0) of (2, 1, 1)\n"), "{stdout}");
}

/// Sums of `-0.0` are `-0.0` on every target and the interpreter (a float sum starts from
/// `-0.0`, the identity of IEEE addition), along either axis, of a whole tile and in fp64; a
/// sum that also holds a `+0.0` is `+0.0`. Compared bit for bit, so `+0.0` for `-0.0` fails.
#[test]
fn sums_of_negative_zeros_are_negative_zero() {
    let case = fixture_case("negative_zero_sum.py", "negative_zero_sum_kernel");
    let mut narrow = vec![-0.0; 16];
    narrow.extend([-0.0, -0.0, 0.0, -0.0]);
    let narrow = fp32_array(&[20], narrow);
    let mut wide = HostArray::zeros(tilec_ir::ScalarType::F64, &[2]).unwrap();
    wide.set(0, Number::Float(-0.0));
    let interp: &[&str] = &["--target", "interp"];
    let mut failures = Vec::new();
    for machine in MACHINES.iter().copied().chain([interp]) {
        let checked = case.run(machine).and_then(|got| {
            compare_exact("out_ptr", &got.read_npy("out_ptr"), &narrow)
                .and_then(|()| compare_exact("wide_ptr", &got.read_npy("wide_ptr"), &wide))
        });
        if let Err(e) = checked {
            failures.push(format!("{}: {e}", machine.join(" ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
