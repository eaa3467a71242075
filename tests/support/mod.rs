//! Helpers shared by the workspace-level tests: the `tilec` binary, compile requests of
//! fixtures, and runs of fixtures compared with the interpreter. Fixtures, host arrays and
//! comparisons themselves are `tilec-testkit`'s.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// The test kit's items, so that a test imports everything from here.
#[allow(unused_imports)]
pub use tilec_testkit::{
    blessing, compare_arrays, workspace_root, ArraySource, CompileHeader, Fixture, HostArray, Number, RunLine,
    StatedValues, TempDir, Tolerance,
};

/// The request compiling `header`'s kernel of fixture `f`; `Err` is the diagnostics of a
/// signature that does not parse.
pub fn request<'a>(
    f: &'a Fixture,
    header: &'a CompileHeader,
) -> Result<tilec::Request<'a>, Vec<tilec::diagnostics::Diagnostic>> {
    Ok(tilec::Request {
        file_name: &f.name,
        source: &f.source,
        kernel: &header.kernel,
        signature: header.signature_items()?,
        constants: header.constant_values(),
    })
}

/// The request compiling the budget table's kernel `case`, whose file holds `source`.
pub fn case_request<'a>(
    case: &'a tilec_testkit::code_size::Case,
    source: &'a str,
) -> Result<tilec::Request<'a>, Vec<tilec::diagnostics::Diagnostic>> {
    Ok(tilec::Request {
        file_name: &case.file,
        source,
        kernel: &case.header.kernel,
        signature: case.header.signature_items()?,
        constants: case.header.constant_values(),
    })
}

/// What one `tilec` invocation did.
#[derive(Debug)]
pub struct Outcome {
    pub success: bool,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub command: String,
}

impl Outcome {
    /// Panics unless the command failed with a message containing every one of `parts`.
    pub fn assert_fails_with(&self, parts: &[&str]) {
        assert!(!self.success, "expected `{}` to fail, it succeeded:\n{}", self.command, self.stdout);
        assert!(matches!(self.code, Some(c) if c != 0), "`{}` did not exit with a code: {:?}", self.command, self.code);
        assert!(!self.stderr.contains("panicked"), "`{}` panicked:\n{}", self.command, self.stderr);
        for part in parts {
            assert!(self.stderr.contains(part), "`{}`: stderr lacks {part:?}:\n{}", self.command, self.stderr);
        }
    }

    /// Panics (with the toolchain hint when it applies) unless the command succeeded.
    pub fn assert_success(&self) {
        assert!(self.success, "`{}` failed:\n{}{}", self.command, self.stderr, setup_hint(&self.stderr));
    }

    /// `Ok` when the command succeeded, else its command line and stderr.
    pub fn result(&self) -> Result<(), String> {
        if self.success {
            Ok(())
        } else {
            Err(format!("`{}` failed:\n{}{}", self.command, self.stderr, setup_hint(&self.stderr)))
        }
    }
}

fn setup_hint(stderr: &str) -> &'static str {
    if stderr.contains("cargo xtask setup") {
        "\n(the riscv64 toolchain is missing: run `cargo xtask setup`)"
    } else {
        ""
    }
}

/// Runs `tilec ARGS` from the workspace root with extra environment `envs`. The kernel cache
/// is off (`TILEC_ALWAYS_COMPILE=1`: every test compiles, and the suite leaves no entries
/// behind) unless `envs` sets `TILEC_ALWAYS_COMPILE` itself.
pub fn tilec(args: &[&str], envs: &[(&str, &str)]) -> Outcome {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tilec"));
    cmd.args(args).current_dir(workspace_root()).env("TILEC_ALWAYS_COMPILE", "1");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let output = cmd.output().expect("the tilec binary runs");
    Outcome {
        success: output.status.success(),
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        command: format!("tilec {}", args.join(" ")),
    }
}

/// `tilec run FILE -k KERNEL --out DIR FLAGS ARGS`; the `--out` directory.
pub fn run(file: &Path, kernel: &str, flags: &[&str], args: &[String]) -> Result<TempDir, String> {
    let out = TempDir::new("run");
    let (file, out_dir) = (file.display().to_string(), out.path.display().to_string());
    let mut all: Vec<&str> = vec!["run", &file, "-k", kernel, "--out", &out_dir];
    all.extend_from_slice(flags);
    all.extend(args.iter().map(String::as_str));
    tilec(&all, &[]).result().map(|()| out)
}

/// Runs `line` of fixture `f` with `flags` added.
pub fn run_line(f: &Fixture, line: &RunLine, flags: &[&str]) -> Result<TempDir, String> {
    run(&f.path, &line.kernel, flags, &line.args)
}

/// Compares outputs `names` of two runs of fixture `f`, each as the fixture's header lines
/// say (bit for bit unless a tolerance is declared for it).
pub fn compare_outputs(f: &Fixture, names: &[String], got: &TempDir, want: &TempDir) -> Result<(), String> {
    names.iter().try_for_each(|n| compare_arrays(n, &got.read_npy(n), &want.read_npy(n), &f.tolerance(n)))
}

/// Cross-compiles C source into a riscv64 shared object in `dir`; panics with the set-up
/// hint when the cross compiler is missing.
pub fn cross_compile_shared_object(dir: &TempDir, name: &str, c_source: &str) -> String {
    let source = dir.write(&format!("{name}.c"), c_source);
    let library = dir.join(&format!("{name}.so"));
    let compiler = tilec_toolchain::runner_compiler();
    let output = Command::new(compiler)
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&library)
        .arg(&source)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler} ({e}): run `cargo xtask setup`"));
    assert!(output.status.success(), "{compiler} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    library.display().to_string()
}
