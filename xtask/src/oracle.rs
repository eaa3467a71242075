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
//!   [--features all|differential|none]`: generated kernels run in Triton, in tilec's
//!   interpreter, on riscv64gc and on riscv64gcv (VLEN cycling by seed); every output is
//!   compared with Triton's as the generator says (exactly, or within its tolerance), except
//!   outputs the generator marks undefined in Triton. Failures are grouped by kind in
//!   `DIR/report.md`; the first M of each kind are minimized (deleting body lines while the
//!   same failure persists).

mod batch;
/// The reading half is `tests/conformance.rs`'s.
#[allow(dead_code)]
mod expected;
mod fixtures;
mod venv;
mod worker;

use std::path::{Path, PathBuf};

pub(crate) use crate::difftest::host_array;
pub use worker::{job_for, output_names, Answer, Worker};

type Result<T> = std::result::Result<T, String>;

/// The Python side, in the repository.
fn script() -> PathBuf {
    workspace().join("xtask/src/oracle/run_triton.py")
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn run(args: &[String]) -> Result<()> {
    let layout = crate::toolchain::Layout::from_env()?;
    match args.first().map(String::as_str) {
        Some("setup") if args.len() == 1 => venv::ensure(&layout).map(|_| ()),
        Some("batch") => {
            crate::setup()?;
            let python = venv::ensure(&layout)?;
            batch::run(&python, &args[1..])
        }
        Some("fixtures") => fixtures::run(&venv::ensure(&layout)?, &args[1..]),
        None | Some("--bless") => fixtures::run(&venv::ensure(&layout)?, args),
        _ => Err("usage: cargo xtask oracle [setup | fixtures [--bless] [NAME...] | batch [--count N] [--seed S] \
                  [--jobs J] [--out DIR] [--minimize M] [--features all|differential|none]]"
            .to_string()),
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
