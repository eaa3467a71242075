//! The oracle's Python: a virtual environment with Triton, numpy and ml_dtypes from PyPI,
//! cached under the toolchain directory (`toolchain/<VENV_DIR>/`). It is built in a
//! temporary sibling and renamed into place, so it is complete once it exists (a changed
//! package list gets a new directory name).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::toolchain::Layout;

/// The packages, pinned. Triton's interpreter needs no torch (see `run_triton.py`);
/// ml_dtypes gives numpy a real bfloat16.
pub const PACKAGES: &[&str] = &["triton==3.9.0", "numpy==2.4.6", "ml_dtypes==0.6.0"];

/// The directory under `toolchain/`; bump the suffix when [`PACKAGES`] change.
pub const VENV_DIR: &str = "oracle-triton-3.9.0-1";

/// The Python that creates the environment (Triton 3.9.0 has wheels for CPython 3.10-3.14).
const SYSTEM_PYTHON: &str = "python3";

/// The environment's interpreter, installing the environment first when it is missing.
pub fn ensure(layout: &Layout) -> Result<PathBuf, String> {
    let dir = layout.toolchain_dir().join(VENV_DIR);
    let python = dir.join("bin/python");
    if python.is_file() {
        crate::say(format!("oracle: Triton environment present ({})", dir.display()));
        return Ok(python);
    }
    let staging = dir.with_extension("partial");
    crate::recreate_dir(&staging)?;
    crate::say(format!("oracle: creating a Python environment with {}", PACKAGES.join(" ")));
    let venv = Command::new(SYSTEM_PYTHON).args(["-m", "venv"]).arg(&staging).status();
    match venv {
        Ok(status) if status.success() => {}
        _ => {
            return Err(format!(
                "`{SYSTEM_PYTHON} -m venv` failed: Python 3.10 or newer with the venv module is needed \
                 (Debian: apt-get install python3-venv)"
            ))
        }
    }
    crate::run(
        Command::new(staging.join("bin/python"))
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input"])
            .args(PACKAGES),
    )?;
    std::fs::rename(&staging, &dir).map_err(|e| format!("cannot move {} into place: {e}", staging.display()))?;
    check(&python)?;
    crate::say(format!("oracle: Triton environment installed ({})", dir.display()));
    Ok(python)
}

/// Fails unless `python` imports the oracle's packages.
fn check(python: &Path) -> Result<(), String> {
    crate::run(Command::new(python).args(["-c", "import triton, numpy, ml_dtypes"]))
}
