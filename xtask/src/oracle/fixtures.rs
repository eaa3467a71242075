//! `cargo xtask oracle fixtures [--bless] [NAME...]`: Triton's outputs for the conformance
//! fixtures, checked against (or written to) `fixtures/conformance/expected/NAME.txt`.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tilec_testkit::expected::{Expected, ExpectedArray, RunExpectation, RunOutcome};
use tilec_testkit::{Fixture, HostArray};

use super::{error_summary, job_for, Answer, Result, Worker};

/// Where conformance fixtures live, relative to the workspace.
pub const FIXTURE_DIR: &str = "fixtures/conformance";

/// A Triton run of one fixture line may take this long.
const TIMEOUT: Duration = Duration::from_secs(300);

/// Options of `cargo xtask oracle fixtures` (also `cargo xtask oracle`'s own, so they form no
/// argument group of their own: clap's group ids must be unique).
#[derive(clap::Args)]
#[group(skip)]
pub struct Options {
    /// Write Triton's outputs to the expectation files instead of checking them.
    #[arg(long)]
    bless: bool,
    /// Only these fixtures (file stems); all when none is named.
    #[arg(value_name = "NAME")]
    names: Vec<String>,
}

pub fn run(python: &Path, options: &Options) -> Result<()> {
    let (bless, names) = (options.bless, &options.names);
    let workspace = super::workspace();
    let tilec = super::build_tilec()?;
    let dir = workspace.join(FIXTURE_DIR);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .filter(|p| names.is_empty() || names.iter().any(|n| p.file_stem().is_some_and(|s| s == n.as_str())))
        .collect();
    files.sort();
    let work = workspace.join("target/oracle-fixtures");
    crate::recreate_dir(&work)?;
    let mut worker = Worker::new(python, &super::script());
    let mut stale = Vec::new();
    for file in &files {
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        let expected = triton_outputs(&tilec, &mut worker, file, &work.join(&stem))?;
        let path = dir.join("expected").join(format!("{stem}.txt"));
        let text = expected.render();
        if bless {
            fs::create_dir_all(path.parent().unwrap_or(&dir)).map_err(|e| e.to_string())?;
            fs::write(&path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            crate::say(format!("oracle: blessed {}", path.display()));
        } else if fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(format!("{} (Triton computes something else: `cargo xtask oracle --bless`)", path.display()));
        } else {
            crate::say(format!("oracle: {} matches Triton", path.display()));
        }
    }
    let _ = fs::remove_dir_all(&work);
    if stale.is_empty() {
        crate::say(format!("oracle: {} conformance fixtures checked against Triton", files.len()));
        Ok(())
    } else {
        Err(format!("expectations that are not Triton's outputs:\n  {}", stale.join("\n  ")))
    }
}

/// What Triton computes for every run line of `file`.
fn triton_outputs(tilec: &Path, worker: &mut Worker, file: &Path, work: &Path) -> Result<Expected> {
    let fixture = Fixture::load(file)?;
    let mut expected = Expected::default();
    for (i, line) in fixture.runs.iter().enumerate() {
        let run_args = &line.args;
        let dir = work.join(format!("run{}", i + 1));
        let inputs = dir.join("inputs");
        // tilec binds the arguments and writes the inputs, whatever it makes of the kernel
        let _ = std::process::Command::new(tilec)
            .arg("run")
            .arg(file)
            .args(["-k", &line.kernel, "--target", "interp", "--save-inputs"])
            .arg(&inputs)
            .args(run_args)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", tilec.display()))?;
        let outputs = line.output_names();
        if let Some(missing) = outputs.iter().find(|n| !inputs.join(format!("{n}.npy")).is_file()) {
            return Err(format!(
                "{} run {}: `tilec run` wrote no input `{missing}` (run it by hand to see why)",
                file.display(),
                i + 1
            ));
        }
        let job = job_for(file, &line.kernel, run_args, &inputs, &dir.join("triton"))?;
        let outcome = match worker.run(&job, TIMEOUT)? {
            Answer::Ran => RunOutcome::Outputs(
                outputs
                    .iter()
                    .map(|name| {
                        HostArray::read_npy(&job.out.join(format!("{name}.npy"))).map(|a| ExpectedArray::of(name, &a))
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
            Answer::Rejected(error) => RunOutcome::Rejected(error_summary(&error, &dir)),
            Answer::TimedOut => return Err(format!("{} run {}: Triton took over {TIMEOUT:?}", file.display(), i + 1)),
            Answer::Crashed(stderr) => {
                return Err(format!("{} run {}: the Triton process died:\n{stderr}", file.display(), i + 1))
            }
        };
        expected.runs.push(RunExpectation { run: run_args.join(" "), outcome });
    }
    Ok(expected)
}
