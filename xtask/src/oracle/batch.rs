//! `cargo xtask oracle batch`: generated kernels in Triton and in every tilec target.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tilec_kernelgen::{generate_with, Kernel, OutputCheck};

use super::{error_summary, job_for, Answer, Result, Worker};
use crate::difftest::{compare, error_code, minimize_lines, panic_location, run_tilec, FeatureSet, Tools};

/// A Triton run of one generated kernel may take this long.
const TRITON_TIMEOUT: Duration = Duration::from_secs(120);

/// `tilec run --timeout` of compiled runs.
const RUN_TIMEOUT_SECONDS: u32 = 60;

/// Options of `cargo xtask oracle batch`.
#[derive(clap::Args)]
pub struct Options {
    /// How many kernels.
    #[arg(long, default_value_t = 100)]
    count: u64,
    /// The first seed.
    #[arg(long, default_value_t = 1_000_000)]
    seed: u64,
    /// Where the report goes (relative to the workspace).
    #[arg(long, value_name = "DIR", default_value = "target/oracle")]
    out: PathBuf,
    /// Kernels checked at once.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    jobs: u64,
    /// How many failures of each kind are minimized.
    #[arg(long, default_value_t = 2)]
    minimize: usize,
    /// Which generator features the kernels use.
    #[arg(long, value_enum, default_value_t = FeatureSet::Triton)]
    features: FeatureSet,
}

/// What went wrong with one kernel; equal values mean "the same failure" to the minimizer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Failure {
    /// Triton rejects a kernel tilec runs (the first line of Triton's error).
    TritonRejected(String),
    /// Both reject the kernel: a generator bug.
    BothRejected(String),
    /// tilec rejects (or cannot run) a kernel Triton runs.
    TilecRejected { target: String, code: String },
    /// Triton did not answer within [`TRITON_TIMEOUT`] or its process died.
    TritonFailed(String),
    /// tilec panicked compiling for `target`.
    Panic { target: String, location: String },
    /// A compiled run did not end within its timeout.
    TimedOut { target: String },
    /// Output `output` of `target` differs from Triton's.
    Mismatch { target: String, output: String },
    /// Triton's output exceeds the generator's magnitude bound (the generator's model of
    /// Triton is wrong, or Triton computes in another type than the generator thinks).
    BoundBroken { output: String },
}

impl Failure {
    fn title(&self) -> String {
        match self {
            Failure::TritonRejected(error) => format!("Triton rejects the kernel: {error}"),
            Failure::BothRejected(code) => format!("Triton and tilec ({code}) reject the kernel"),
            Failure::TilecRejected { target, code } => format!("tilec rejects the kernel on {target} ({code})"),
            Failure::TritonFailed(why) => format!("Triton failed: {why}"),
            Failure::Panic { target, location } => format!("compiler panic on {target} at {location}"),
            Failure::TimedOut { target } => format!("no end within {RUN_TIMEOUT_SECONDS} s on {target}"),
            Failure::Mismatch { target, output } => format!("`{output}` differs from Triton's on {target}"),
            Failure::BoundBroken { output } => format!("Triton's `{output}` exceeds the generator's bound"),
        }
    }

    /// The failure's kind without the output name (the report groups by it).
    fn kind(&self) -> String {
        match self {
            Failure::Mismatch { target, .. } => format!("an output differs from Triton's on {target}"),
            Failure::BoundBroken { .. } => "Triton's output exceeds the generator's bound".to_string(),
            other => other.title(),
        }
    }
}

enum Outcome {
    Passed { skipped: usize },
    Failed(Failure, String),
}

struct Batch<'a> {
    tools: Tools,
    python: &'a Path,
}

pub fn run(python: &Path, options: &Options) -> Result<()> {
    let workspace = super::workspace();
    let tilec = super::build_tilec()?;
    let out = if options.out.is_absolute() { options.out.clone() } else { workspace.join(&options.out) };
    let work = out.join("work");
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let batch = Batch { tools: Tools { tilec, work, compiled_flags: Vec::new() }, python };

    let next = AtomicU64::new(options.seed);
    let end = options.seed + options.count;
    let failures: Mutex<Vec<(u64, Failure, String, Kernel)>> = Mutex::new(Vec::new());
    let (skipped, done) = (AtomicU64::new(0), AtomicU64::new(0));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..options.jobs {
            scope.spawn(|| {
                let mut worker = Worker::new(batch.python, &super::script());
                loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed >= end {
                        break;
                    }
                    let kernel = generate_with(seed, &options.features.features());
                    match batch.check(&mut worker, &kernel, seed, &kernel.source) {
                        Outcome::Passed { skipped: n } => {
                            skipped.fetch_add(n as u64, Ordering::Relaxed);
                        }
                        Outcome::Failed(failure, detail) => {
                            eprintln!("xtask: oracle: seed {seed}: {}", failure.title());
                            failures.lock().unwrap_or_else(|e| e.into_inner()).push((seed, failure, detail, kernel));
                        }
                    }
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if n % 100 == 0 {
                        let rate = n as f64 / started.elapsed().as_secs_f64();
                        eprintln!("xtask: oracle: {n}/{} kernels, {rate:.2}/s", options.count);
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
    failures.sort_by_key(|f| f.0);

    // minimize the first few failures of each kind, in parallel
    let mut per_kind: BTreeMap<String, usize> = BTreeMap::new();
    let chosen: Vec<usize> = (0..failures.len())
        .filter(|&i| {
            let n = per_kind.entry(failures[i].1.kind()).or_default();
            *n += 1;
            *n <= options.minimize
        })
        .collect();
    let minimized: Mutex<BTreeMap<usize, String>> = Mutex::new(BTreeMap::new());
    let next_pick = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..options.jobs {
            scope.spawn(|| {
                let mut worker = Worker::new(batch.python, &super::script());
                loop {
                    let pick = next_pick.fetch_add(1, Ordering::Relaxed) as usize;
                    let Some(&i) = chosen.get(pick) else { break };
                    let (seed, failure, _, kernel) = &failures[i];
                    let text = minimize_lines(&kernel.source, |source| {
                        matches!(batch.check(&mut worker, kernel, *seed, source), Outcome::Failed(f, _) if &f == failure)
                    });
                    minimized.lock().unwrap_or_else(|e| e.into_inner()).insert(i, text);
                }
            });
        }
    });
    let minimized = minimized.into_inner().unwrap_or_else(|e| e.into_inner());

    let elapsed = started.elapsed().as_secs_f64();
    let report = report(options, elapsed, skipped.load(Ordering::Relaxed), &failures, &minimized);
    for (i, (seed, _, _, kernel)) in failures.iter().enumerate() {
        let text = minimized.get(&i).unwrap_or(&kernel.source);
        let path = out.join(format!("seed-{seed}.py"));
        fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let report_path = out.join("report.md");
    fs::write(&report_path, report).map_err(|e| format!("cannot write {}: {e}", report_path.display()))?;
    let _ = fs::remove_dir_all(&batch.tools.work);
    eprintln!(
        "xtask: oracle: {} kernels in {elapsed:.0} s, {} failures; report: {}",
        options.count,
        failures.len(),
        report_path.display()
    );
    Ok(())
}

impl Batch<'_> {
    /// Runs `source` (the kernel's file, maybe minimized) in Triton and on every target.
    fn check(&self, worker: &mut Worker, kernel: &Kernel, seed: u64, source: &str) -> Outcome {
        let dir = self.tools.work.join(format!("seed-{seed}"));
        let _ = fs::remove_dir_all(&dir);
        let file = dir.join("kernel.py");
        if let Err(e) = fs::create_dir_all(&dir).and_then(|_| fs::write(&file, source)) {
            return Outcome::Failed(Failure::TritonFailed("cannot write the kernel".into()), e.to_string());
        }
        let outcome = self.check_in(worker, kernel, seed, &dir, &file);
        let _ = fs::remove_dir_all(&dir);
        outcome
    }

    fn check_in(&self, worker: &mut Worker, kernel: &Kernel, seed: u64, dir: &Path, file: &Path) -> Outcome {
        let inputs = dir.join("inputs");
        let interp = dir.join("interp");
        let save = inputs.display().to_string();
        let interp_run = run_tilec(&self.tools, kernel, file, &interp, &["--target", "interp", "--save-inputs", &save]);
        let triton = dir.join("triton");
        let job = match job_for(file, &kernel.name, &kernel.run_args, &inputs, &triton) {
            Ok(job) => job,
            Err(e) => return Outcome::Failed(Failure::TritonFailed("bad run arguments".into()), e),
        };
        if let Err(stderr) = &interp_run {
            if !kernel.outputs.iter().all(|o| inputs.join(format!("{}.npy", o.name)).is_file()) {
                let code = error_code(stderr);
                return Outcome::Failed(Failure::TilecRejected { target: "interp".into(), code }, stderr.clone());
            }
        }
        match worker.run(&job, TRITON_TIMEOUT) {
            Ok(Answer::Ran) => {}
            Ok(Answer::Rejected(error)) => {
                let failure = match &interp_run {
                    Err(stderr) => Failure::BothRejected(error_code(stderr)),
                    Ok(()) => Failure::TritonRejected(error_summary(&error, dir)),
                };
                return Outcome::Failed(failure, error);
            }
            Ok(Answer::TimedOut) => return Outcome::Failed(Failure::TritonFailed("timed out".into()), String::new()),
            Ok(Answer::Crashed(stderr)) => return Outcome::Failed(Failure::TritonFailed("crashed".into()), stderr),
            Err(e) => return Outcome::Failed(Failure::TritonFailed("cannot start".into()), e),
        }
        if let Err(stderr) = interp_run {
            let code = error_code(&stderr);
            return Outcome::Failed(Failure::TilecRejected { target: "interp".into(), code }, stderr);
        }
        // against Triton, the tolerance that allows for its per-step rounding of fp16/bf16 sums
        let compared: Vec<OutputCheck> = kernel
            .outputs
            .iter()
            .filter(|o| o.undefined_in_triton.is_none())
            .map(|o| OutputCheck { abs_tol: o.triton_abs_tol, ..o.clone() })
            .collect();
        let skipped = kernel.outputs.len() - compared.len();
        for check in &compared {
            if let Err(detail) = compare(check, &triton, &triton) {
                return Outcome::Failed(Failure::BoundBroken { output: check.name.clone() }, detail);
            }
        }
        let vlen = ["128", "256", "512", "1024"][(seed % 4) as usize];
        let timeout = RUN_TIMEOUT_SECONDS.to_string();
        let targets: [(&str, Vec<&str>); 3] = [
            ("interp", vec![]),
            ("riscv64gc", vec!["--target", "riscv64gc", "--timeout", &timeout]),
            ("riscv64gcv", vec!["--target", "riscv64gcv", "--vlen", vlen, "--timeout", &timeout]),
        ];
        for (target, flags) in targets {
            let got = dir.join(target);
            if target != "interp" {
                if let Err(stderr) = run_tilec(&self.tools, kernel, file, &got, &flags) {
                    let target = target.to_string();
                    if let Some(location) = panic_location(&stderr) {
                        return Outcome::Failed(Failure::Panic { target, location }, stderr);
                    }
                    if error_code(&stderr) == tilec_diagnostics::codes::tilec::TIMED_OUT.to_string() {
                        return Outcome::Failed(Failure::TimedOut { target }, stderr);
                    }
                    let code = error_code(&stderr);
                    return Outcome::Failed(Failure::TilecRejected { target, code }, stderr);
                }
            }
            for check in &compared {
                if let Err(detail) = compare(check, &got, &triton) {
                    let target =
                        if target == "riscv64gcv" { format!("riscv64gcv --vlen {vlen}") } else { target.into() };
                    return Outcome::Failed(Failure::Mismatch { target, output: check.name.clone() }, detail);
                }
            }
        }
        Outcome::Passed { skipped }
    }
}

fn report(
    options: &Options,
    elapsed: f64,
    skipped: u64,
    failures: &[(u64, Failure, String, Kernel)],
    minimized: &BTreeMap<usize, String>,
) -> String {
    let mut by_kind: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for (seed, failure, _, _) in failures {
        by_kind.entry(failure.title()).or_default().push(*seed);
    }
    let mut text = format!(
        "# Oracle batch: generated kernels against Triton 3.9.0\n\nSeeds {}..{} ({} kernels, generator features: {}), \
         {elapsed:.0} s, {} jobs.\n\n- failures: {}\n- outputs not compared (undefined in Triton): {skipped}\n\n",
        options.seed,
        options.seed + options.count,
        options.count,
        options.features.features().describe(),
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
    for (i, (seed, failure, detail, kernel)) in failures.iter().enumerate() {
        let detail: String = detail.lines().take(12).collect::<Vec<_>>().join("\n");
        let (label, source) = match minimized.get(&i) {
            Some(text) => ("Minimized", text.as_str()),
            None => ("Kernel (not minimized)", kernel.source.as_str()),
        };
        text.push_str(&format!(
            "## seed {seed}: {}\n\n```text\n{detail}\n```\n\n{label}:\n\n```python\n{source}```\n\n",
            failure.title()
        ));
    }
    text
}
