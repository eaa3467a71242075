//! `cargo xtask oracle`: the real Triton as the reference for tilec (docs/oracle.md).
//!
//! Triton 3.9.0's own interpreter (`TRITON_INTERPRET=1`) runs kernels in a cached Python
//! environment (`venv.rs`) through a small script of ours (`oracle/run_triton.py`), with the
//! very `.npy` inputs tilec uses (`tilec run --save-inputs`). Subcommands:
//!
//! - `cargo xtask oracle setup`: installs the environment (also done by the others).
//! - `cargo xtask oracle fixtures [--bless] [NAME...]` (the default; `cargo xtask oracle
//!   --bless` is `fixtures --bless`): runs every `fixtures/conformance/*.py` run line in
//!   Triton and checks that `fixtures/conformance/expected/NAME.txt` holds exactly what Triton
//!   computed, or rewrites it with `--bless`. `tests/conformance.rs` compares tilec's targets
//!   with those files without Python.
//! - `cargo xtask oracle batch --count N [--seed S] [--jobs J] [--out DIR] [--minimize M]
//!   [--features triton|all|differential|none]`: generated kernels run in Triton, in tilec's
//!   interpreter, on riscv64gc and on riscv64gcv (VLEN cycling by seed); every output is
//!   compared with Triton's as the generator says (exactly, or within its tolerance), except
//!   outputs the generator marks undefined in Triton. Failures are grouped by kind in
//!   `DIR/report.md`; the first M of each kind are minimized (deleting body lines while the
//!   same failure persists).

mod batch;
mod fixtures;
mod venv;
mod worker;

use std::path::{Path, PathBuf};

pub use worker::{job_for, Answer, Worker};

type Result<T> = std::result::Result<T, String>;

/// The Python side, in the repository.
fn script() -> PathBuf {
    workspace().join("xtask/src/oracle/run_triton.py")
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Options of `cargo xtask oracle`: a subcommand, or the options of `fixtures` (the default).
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Options {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    fixtures: fixtures::Options,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Install the cached Python environment with Triton 3.9.0.
    Setup,
    /// Check the conformance fixtures' expectation files against Triton (the default).
    Fixtures(fixtures::Options),
    /// Run generated kernels in Triton and on tilec's targets and compare.
    Batch(batch::Options),
}

pub fn run(options: &Options) -> Result<()> {
    let layout = crate::toolchain::Layout::from_env()?;
    match &options.command {
        Some(Command::Setup) => venv::ensure(&layout).map(|_| ()),
        Some(Command::Batch(batch)) => {
            crate::setup()?;
            let python = venv::ensure(&layout)?;
            batch::run(&python, batch)
        }
        Some(Command::Fixtures(fixtures)) => fixtures::run(&venv::ensure(&layout)?, fixtures),
        None => fixtures::run(&venv::ensure(&layout)?, &options.fixtures),
    }
}

/// The dev-profile `tilec` binary, built first.
fn build_tilec() -> Result<PathBuf> {
    crate::difftest::build_tilec(&workspace())
}

/// The first line of Triton's error, without the paths of our work directories.
fn error_summary(error: &str, work: &Path) -> String {
    let line = error.lines().next().unwrap_or("").trim();
    line.replace(&work.display().to_string(), "WORK")
}
