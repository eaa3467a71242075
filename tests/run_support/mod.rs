//! Helpers shared by the tests that drive the `tilec` binary (`cli.rs`, `end_to_end.rs`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../crates/tilec/src/host_array.rs"]
pub mod host_array;

#[allow(unused_imports)]
pub use host_array::{HostArray, Number};

/// The repository root.
pub fn repo_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
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
}

fn setup_hint(stderr: &str) -> &'static str {
    if stderr.contains("cargo xtask setup") {
        "\n(the riscv64 toolchain is missing: run `cargo xtask setup`)"
    } else {
        ""
    }
}

/// Runs `tilec ARGS` from the repository root with extra environment `envs`.
pub fn tilec(args: &[&str], envs: &[(&str, &str)]) -> Outcome {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tilec"));
    cmd.args(args).current_dir(repo_root());
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

/// A fresh directory, removed when dropped.
pub struct TempDir {
    pub path: PathBuf,
}

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicU32, Ordering};
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("tilec-test-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("temporary directory");
        TempDir { path }
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Writes `contents` to `name` in this directory and returns its path as text.
    pub fn write(&self, name: &str, contents: &str) -> String {
        let path = self.join(name);
        std::fs::write(&path, contents).expect("write test file");
        path.display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Cross-compiles C source into a riscv64 shared object in `dir`; panics with the set-up
/// hint when the cross compiler is missing.
pub fn cross_compile_shared_object(dir: &TempDir, name: &str, c_source: &str) -> String {
    let source = dir.write(&format!("{name}.c"), c_source);
    let library = dir.join(&format!("{name}.so"));
    let compiler = if cfg!(target_arch = "riscv64") { "cc" } else { "riscv64-linux-gnu-gcc" };
    let output = Command::new(compiler)
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&library)
        .arg(&source)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler} ({e}): run `cargo xtask setup`"));
    assert!(output.status.success(), "{compiler} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    library.display().to_string()
}

/// Reads `DIR/NAME.npy` as written by `tilec run --out DIR`.
pub fn read_output(dir: &TempDir, name: &str) -> HostArray {
    let path = dir.join(&format!("{name}.npy"));
    HostArray::read_npy(&path).unwrap_or_else(|e| panic!("{e}"))
}
