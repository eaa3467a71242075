//! Code size: the `.text` bytes of the kernels of the budget table
//! ([`tilec_testkit::code_size`]: the benchmark kernels and the kernels of Triton's tutorials
//! that tilec compiles), for tilec's two targets, beside the budgets that
//! `tests/code_size.rs` enforces; and the `.text` of every shared object a benchmark builds.

use std::fs;
use std::path::Path;
use std::process::Command;

pub use tilec_testkit::code_size::{cases, Case, BUDGETS, TARGETS, TUTORIAL_LIMIT};

/// The `.text` bytes of the ELF file at `object`.
pub fn text_bytes(object: &Path) -> Result<u64, String> {
    let elf = fs::read(object).map_err(|e| format!("cannot read {}: {e}", object.display()))?;
    tilec_testkit::code_size::text_bytes(&elf)
        .ok_or_else(|| format!("{} is no ELF64 file with a .text section", object.display()))
}

/// A case compiled for each of [`TARGETS`]: the `.text` bytes, or why there are none.
pub struct Measured {
    pub case: Case,
    pub text: [Result<u64, String>; 2],
}

impl Measured {
    /// Both targets compiled, within their budgets.
    pub fn fits(&self) -> bool {
        match &self.text {
            [Ok(gcv), Ok(gc)] => self.case.fits([*gcv, *gc]),
            _ => false,
        }
    }
}

/// Compiles `case` with `tilec` for each target into `dir` and measures the `.text`.
pub fn measure(tilec: &Path, workspace: &Path, dir: &Path, case: &Case, index: usize) -> Measured {
    let text = TARGETS.map(|target| {
        let library = dir.join(format!("{index}-{target}.so"));
        let header = &case.header;
        let mut cmd = Command::new(tilec);
        cmd.arg("compile").arg(workspace.join(&case.file)).args(["-k", &header.kernel, "-s", &header.signature]);
        for (name, value) in &header.constants {
            cmd.arg("-c").arg(format!("{name}={value}"));
        }
        cmd.args(["--target", target, "-o"]).arg(&library);
        let out = cmd.output().map_err(|e| format!("cannot run {}: {e}", tilec.display()))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            return Err(format!("not compiled: {}", stderr.lines().next().unwrap_or("")));
        }
        text_bytes(&library)
    });
    Measured { case: case.clone(), text }
}

#[cfg(test)]
mod tests {
    use super::super::suite;
    use super::*;

    #[test]
    fn every_benchmark_kernel_has_a_budget_for_what_the_benchmark_compiles() {
        let cases = cases().expect("the budget table parses");
        for bench in suite::all() {
            let case = cases
                .iter()
                .find(|c| c.name == bench.name)
                .unwrap_or_else(|| panic!("{BUDGETS} has no row named `{}` (the benchmark's name)", bench.name));
            let constants: Vec<String> = case.header.constants.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let wanted: Vec<String> = bench.constants.iter().map(|c| c.to_string()).collect();
            assert_eq!(
                (case.file.as_str(), case.header.kernel.as_str(), case.header.signature.as_str(), constants),
                (bench.kernel_file, bench.kernel, bench.signature, wanted),
                "{BUDGETS}: the row of `{}` compiles something else than the benchmark",
                bench.name
            );
        }
    }

    #[test]
    fn text_bytes_reads_the_runner() {
        // The runner that the set-up step cross-compiles is an ELF file at hand.
        let layout = tilec_toolchain::Layout::from_env().expect("toolchain layout");
        let Ok(toolchain) = tilec_toolchain::Toolchain::locate(&layout) else {
            panic!("the toolchain is not set up: run `cargo xtask setup`")
        };
        let bytes = text_bytes(&toolchain.runner).expect("the runner has a .text");
        let file = fs::metadata(&toolchain.runner).expect("runner").len();
        assert!(bytes > 0 && bytes < file, ".text {bytes} of a {file}-byte file");
    }
}
