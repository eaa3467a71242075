//! `cargo xtask difftest --count N [--seed S] [--out DIR] [--jobs J] [--features
//! differential|all|triton|none] [--check-bounds]`: the long differential batch (with
//! `--check-bounds`, compiled bounds-checked: a failed check is a failure). Kernels `S..S+N` from
//! `tilec-kernelgen` (with `Features::differential()` unless told otherwise) run through the `tilec` binary (dev profile) in
//! the interpreter, on riscv64gc and on riscv64gcv (VLEN cycling 128/256/512/1024 by seed);
//! outputs are compared as the generator says (bit-exact or within its tolerance). Every
//! failure — mismatch, compiler panic, compile error, faulting kernel, a compiled run that
//! does not end within its timeout, a kernel the interpreter rejects (a generator bug) — is
//! minimized by deleting body lines while the same failure persists, and written to
//! `DIR/report.md` with the minimized source (also `DIR/seed-S.py`). Kernels the vector
//! target cannot compile are counted, not failures.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use tilec_kernelgen::{generate_with, Features, Kernel, OutputCheck};

use tilec_testkit::{compare_generated, HostArray};

type Result<T> = std::result::Result<T, String>;

/// `tilec run --timeout` of compiled runs: generated kernels finish in well under a second.
const RUN_TIMEOUT_SECONDS: u32 = 60;

/// Options of `cargo xtask difftest`.
#[derive(clap::Args)]
pub struct Options {
    /// How many kernels.
    #[arg(long, default_value_t = 1000)]
    count: u64,
    /// The first seed.
    #[arg(long, default_value_t = 1_000_000)]
    seed: u64,
    /// Where the report and the minimized kernels go (relative to the workspace).
    #[arg(long, value_name = "DIR", default_value = "target/difftest")]
    out: PathBuf,
    /// Kernels checked at once.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    jobs: u64,
    /// Which generator features the kernels use.
    #[arg(long, value_enum, default_value_t = FeatureSet::Differential)]
    features: FeatureSet,
    /// Compile the kernels with bounds checks (`tilec run --check-bounds`): a generated
    /// kernel stays inside its arrays, so a failed check is a failure of the batch.
    #[arg(long = "check-bounds")]
    check_bounds: bool,
}

/// A set of generator features, as `--features` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FeatureSet {
    /// What the differential batches test (`Features::differential`).
    Differential,
    /// Everything the generator can write.
    All,
    /// What Triton 3.9 runs as tilec does (`Features::triton`: no block pointers, no fp8).
    Triton,
    /// The core generator only.
    None,
}

impl FeatureSet {
    pub(crate) fn features(self) -> Features {
        match self {
            FeatureSet::Differential => Features::differential(),
            FeatureSet::All => Features::all(),
            FeatureSet::Triton => Features::triton(),
            FeatureSet::None => Features::none(),
        }
    }
}

/// What went wrong with one kernel; equal signatures mean "the same failure" to the minimizer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Failure {
    /// The interpreter (or the front end) rejects the kernel: a generator bug.
    Rejected(String),
    /// `tilec` panicked while compiling for the target.
    Panic { target: String, location: String },
    /// Compilation for riscv64gc failed with a diagnostic.
    CompileError { target: String, code: String },
    /// The compiled kernel faulted or the runner failed.
    RunFailed { target: String },
    /// The compiled kernel ran past [`RUN_TIMEOUT_SECONDS`] (a generated kernel always ends).
    TimedOut { target: String },
    /// A bounds check of the compiled kernel failed (a generated kernel stays inside its
    /// arrays).
    OutOfBounds { target: String },
    /// Output `output` differs from the interpreter's.
    Mismatch { target: String, output: String },
    /// The interpreter's output `output` exceeds the generator's bound: a generator bug
    /// (the output's tolerance derives from that bound).
    BoundBroken { output: String },
}

impl Failure {
    fn title(&self) -> String {
        match self {
            Failure::Rejected(code) => format!("rejected by the interpreter ({code})"),
            Failure::Panic { target, location } => format!("compiler panic on {target} at {location}"),
            Failure::CompileError { target, code } => format!("compile error {code} on {target}"),
            Failure::RunFailed { target } => format!("run failed on {target}"),
            Failure::TimedOut { target } => format!("no end within {RUN_TIMEOUT_SECONDS} s on {target}"),
            Failure::OutOfBounds { target } => format!("a bounds check failed on {target}"),
            Failure::Mismatch { target, output } => format!("`{output}` differs on {target}"),
            Failure::BoundBroken { output } => format!("`{output}` exceeds the generator's bound in the interpreter"),
        }
    }
}

/// The outcome of one kernel: passed (with whether the vector target was compared) or failed.
enum Outcome {
    Passed { vector_compared: bool },
    Failed(Failure, String),
}

pub(crate) struct Tools {
    pub tilec: PathBuf,
    pub work: PathBuf,
    /// Flags added to every compiled run (`--check-bounds`).
    pub compiled_flags: Vec<&'static str>,
}

pub fn run(options: &Options) -> Result<()> {
    let features = options.features.features();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tilec = build_tilec(&workspace)?;
    let out = if options.out.is_absolute() { options.out.clone() } else { workspace.join(&options.out) };
    let work = out.join("work");
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let compiled_flags = if options.check_bounds { vec!["--check-bounds"] } else { Vec::new() };
    let tools = Tools { tilec, work, compiled_flags };

    let next = AtomicU64::new(options.seed);
    let end = options.seed + options.count;
    let results: Mutex<Vec<(u64, Failure, String, String)>> = Mutex::new(Vec::new());
    let (scalar_only, done) = (AtomicU64::new(0), AtomicU64::new(0));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..options.jobs {
            scope.spawn(|| loop {
                let seed = next.fetch_add(1, Ordering::Relaxed);
                if seed >= end {
                    break;
                }
                let kernel = generate_with(seed, &features);
                match check(&tools, &kernel, seed, &kernel.source) {
                    Outcome::Passed { vector_compared } => {
                        if !vector_compared {
                            scalar_only.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    Outcome::Failed(failure, detail) => {
                        eprintln!("xtask: seed {seed}: {}", failure.title());
                        let minimized = minimize(&tools, &kernel, seed, &failure);
                        results.lock().unwrap_or_else(|e| e.into_inner()).push((seed, failure, detail, minimized));
                    }
                }
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if n % 100 == 0 {
                    eprintln!(
                        "xtask: difftest: {n}/{} kernels, {:.1}/s",
                        options.count,
                        n as f64 / started.elapsed().as_secs_f64()
                    );
                }
            });
        }
    });
    let elapsed = started.elapsed().as_secs_f64();
    let mut failures = results.into_inner().unwrap_or_else(|e| e.into_inner());
    failures.sort_by_key(|f| f.0);
    let report = report(options, elapsed, scalar_only.load(Ordering::Relaxed), &failures);
    for (seed, _, _, minimized) in &failures {
        let path = out.join(format!("seed-{seed}.py"));
        fs::write(&path, minimized).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let report_path = out.join("report.md");
    fs::write(&report_path, report).map_err(|e| format!("cannot write {}: {e}", report_path.display()))?;
    let _ = fs::remove_dir_all(&tools.work);
    eprintln!(
        "xtask: difftest: {} kernels in {elapsed:.0} s ({:.2}/s), {} failures; report: {}",
        options.count,
        options.count as f64 / elapsed,
        failures.len(),
        report_path.display()
    );
    Ok(())
}

/// Builds the dev-profile `tilec` of `workspace` and returns its path.
pub(crate) fn build_tilec(workspace: &Path) -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "-q", "-p", "tilec"])
        .current_dir(workspace)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("building tilec failed".into());
    }
    let target_dir =
        std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| workspace.join("target"));
    Ok(target_dir.join("debug/tilec"))
}

fn report(options: &Options, elapsed: f64, scalar_only: u64, failures: &[(u64, Failure, String, String)]) -> String {
    let mut by_kind: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for (seed, failure, _, _) in failures {
        by_kind.entry(failure.title()).or_default().push(*seed);
    }
    let mut text = format!(
        "# Differential batch\n\nSeeds {}..{} ({} kernels, generator features: {}{}), {elapsed:.0} s ({:.2} kernels/s), {} jobs.\n\n\
         - failures: {}\n- compared on riscv64gc only (riscv64gcv cannot compile them): {scalar_only}\n\n",
        options.seed,
        options.seed + options.count,
        options.count,
        options.features.features().describe(),
        if options.check_bounds { ", compiled with --check-bounds" } else { "" },
        options.count as f64 / elapsed,
        options.jobs,
        failures.len()
    );
    if !by_kind.is_empty() {
        text.push_str("## Failures by kind\n\n");
        for (title, seeds) in &by_kind {
            let shown: Vec<String> = seeds.iter().take(12).map(u64::to_string).collect();
            text.push_str(&format!("- {title}: {} (seeds {})\n", seeds.len(), shown.join(", ")));
        }
        text.push('\n');
    }
    for (seed, failure, detail, minimized) in failures {
        let detail: String = detail.lines().take(12).collect::<Vec<_>>().join("\n");
        text.push_str(&format!(
            "## seed {seed}: {}\n\n```text\n{detail}\n```\n\nMinimized:\n\n```python\n{minimized}```\n\n",
            failure.title()
        ));
    }
    text
}

/// Runs `source` (the kernel's file, maybe minimized) everywhere and compares.
fn check(tools: &Tools, kernel: &Kernel, seed: u64, source: &str) -> Outcome {
    let dir = tools.work.join(format!("seed-{seed}"));
    let _ = fs::remove_dir_all(&dir);
    if let Err(e) = fs::create_dir_all(&dir) {
        return Outcome::Failed(Failure::RunFailed { target: "host".into() }, e.to_string());
    }
    let file = dir.join("kernel.py");
    if let Err(e) = fs::write(&file, source) {
        return Outcome::Failed(Failure::RunFailed { target: "host".into() }, e.to_string());
    }
    let outcome = check_in(tools, kernel, seed, &dir, &file);
    let _ = fs::remove_dir_all(&dir);
    outcome
}

fn check_in(tools: &Tools, kernel: &Kernel, seed: u64, dir: &Path, file: &Path) -> Outcome {
    let reference = dir.join("interp");
    if let Err(stderr) = run_tilec(tools, kernel, file, &reference, &["--target", "interp"]) {
        let code = error_code(&stderr);
        return Outcome::Failed(Failure::Rejected(code), stderr);
    }
    for check in &kernel.outputs {
        if let Err(detail) = compare(check, &reference, &reference) {
            return Outcome::Failed(Failure::BoundBroken { output: check.name.clone() }, detail);
        }
    }
    let vlen = ["128", "256", "512", "1024"][(seed % 4) as usize];
    let mut vector_compared = true;
    let timeout = RUN_TIMEOUT_SECONDS.to_string();
    for (target, flags) in
        [("riscv64gc", vec!["--target", "riscv64gc"]), ("riscv64gcv", vec!["--target", "riscv64gcv", "--vlen", vlen])]
    {
        let got = dir.join(target);
        let flags = [flags.as_slice(), &["--timeout", &timeout], &tools.compiled_flags].concat();
        if let Err(stderr) = run_tilec(tools, kernel, file, &got, &flags) {
            let target = target.to_string();
            if let Some(location) = panic_location(&stderr) {
                return Outcome::Failed(Failure::Panic { target, location }, stderr);
            }
            if error_code(&stderr) == tilec_diagnostics::codes::tilec::TIMED_OUT.to_string() {
                return Outcome::Failed(Failure::TimedOut { target }, stderr);
            }
            if error_code(&stderr) == tilec_diagnostics::codes::tilec::BOUNDS_CHECK.to_string() {
                return Outcome::Failed(Failure::OutOfBounds { target }, stderr);
            }
            if stderr.contains("faulted") || stderr.contains("runner") {
                return Outcome::Failed(Failure::RunFailed { target }, stderr);
            }
            if target == "riscv64gcv" {
                // the vector target cannot compile this kernel yet: compared on riscv64gc only
                vector_compared = false;
                continue;
            }
            let code = error_code(&stderr);
            return Outcome::Failed(Failure::CompileError { target, code }, stderr);
        }
        for check in &kernel.outputs {
            if let Err(detail) = compare(check, &got, &reference) {
                let target =
                    if target == "riscv64gcv" { format!("riscv64gcv --vlen {vlen}") } else { target.to_string() };
                return Outcome::Failed(Failure::Mismatch { target, output: check.name.clone() }, detail);
            }
        }
    }
    Outcome::Passed { vector_compared }
}

pub(crate) fn run_tilec(
    tools: &Tools,
    kernel: &Kernel,
    file: &Path,
    out: &Path,
    flags: &[&str],
) -> std::result::Result<(), String> {
    let output = Command::new(&tools.tilec)
        .arg("run")
        .arg(file)
        .args(["-k", &kernel.name, "--out"])
        .arg(out)
        .args(flags)
        .args(&kernel.run_args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tools.tilec.display()))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

pub(crate) fn panic_location(stderr: &str) -> Option<String> {
    let line = stderr.lines().find(|l| l.contains("panicked at"))?;
    Some(line.split("panicked at ").nth(1).unwrap_or(line).trim_end_matches(':').to_string())
}

pub(crate) fn error_code(stderr: &str) -> String {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("error[").and_then(|r| r.split(']').next()))
        .unwrap_or("no code")
        .to_string()
}

/// Deletes body lines (last first, repeatedly) while the kernel still fails the same way.
fn minimize(tools: &Tools, kernel: &Kernel, seed: u64, failure: &Failure) -> String {
    minimize_lines(
        &kernel.source,
        |source| matches!(check(tools, kernel, seed, source), Outcome::Failed(f, _) if &f == failure),
    )
}

/// Deletes lines after the last `def` line of `source` (the kernel's; combine functions
/// come before it) (last first, repeatedly) while `still_fails` holds for the shorter source.
pub(crate) fn minimize_lines(source: &str, mut still_fails: impl FnMut(&str) -> bool) -> String {
    let mut lines: Vec<String> = source.lines().map(str::to_string).collect();
    let body_start = lines.iter().rposition(|l| l.starts_with("def ")).map_or(lines.len(), |i| i + 1);
    let mut changed = true;
    while changed {
        changed = false;
        let mut i = lines.len();
        while i > body_start {
            i -= 1;
            let mut candidate = lines.clone();
            candidate.remove(i);
            if still_fails(&(candidate.join("\n") + "\n")) {
                lines = candidate;
                changed = true;
            }
        }
    }
    lines.join("\n") + "\n"
}

// ---- comparing .npy outputs ----

/// Compares `DIR/NAME.npy` of a run with the reference run's.
pub(crate) fn compare(check: &OutputCheck, got: &Path, want: &Path) -> std::result::Result<(), String> {
    let read = |dir: &Path| HostArray::read_npy(&dir.join(format!("{}.npy", check.name)));
    compare_generated(check, &read(got)?, &read(want)?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn minimizing_deletes_only_the_kernels_body_lines() {
        let source = "import triton\n\n@triton.jit\ndef _pair(a, b):\n    return a + b\n\n\n@triton.jit\ndef k(x):\n    y = 1\n    z = 2\n";
        let minimized = super::minimize_lines(source, |s| s.contains("z = 2"));
        let want =
            "import triton\n\n@triton.jit\ndef _pair(a, b):\n    return a + b\n\n\n@triton.jit\ndef k(x):\n    z = 2\n";
        assert_eq!(minimized, want);
    }
}
