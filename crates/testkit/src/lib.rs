//! The test kit of tilec, shared by the workspace tests, the per-crate tests, the examples
//! and `cargo xtask`:
//! - [`fixture`]: fixture files and their header lines (`# tilec:`, `# tilec-run:`,
//!   `# tilec-tolerance:`, `# tilec-program-order:`), with one parser and one quoting rule;
//! - [`code_size`]: the code-size budget table of the benchmark and tutorial kernels, and
//!   the `.text` size of an ELF file;
//! - [`compare`]: output arrays compared bit for bit, or within a tolerance a fixture
//!   declares with its reason, or within the differential generator's derived bound;
//! - [`expected`]: the outputs of the real Triton committed for the conformance fixtures;
//! - [`ir_builder`]: Tile IR functions built by hand;
//! - the host arrays of `tilec run` (`.npy` files, re-exported from `tilec-npy`),
//!   [`TempDir`] and [`blessing`].

pub mod code_size;
pub mod compare;
pub mod expected;
pub mod fixture;
pub mod ir_builder;

use std::path::{Path, PathBuf};

pub use compare::{compare_arrays, compare_generated, Tolerance};
pub use fixture::{CompileHeader, Fixture, RunLine, StatedValues};
pub use tilec_npy::{ArraySource, HostArray, Number};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// Whether expected outputs committed with the tests are to be rewritten rather than
/// checked: `TILEC_BLESS=1` or insta's `INSTA_UPDATE=always`. Review the diff afterwards.
pub fn blessing() -> bool {
    std::env::var("TILEC_BLESS").is_ok_and(|v| v == "1") || std::env::var("INSTA_UPDATE").is_ok_and(|v| v == "always")
}

/// A fresh directory under the system's temporary directory, removed when dropped.
pub struct TempDir {
    pub path: PathBuf,
}

impl TempDir {
    /// A new empty directory whose name holds `tag`, the process id and a counter.
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicU32, Ordering};
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("tilec-test-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
        TempDir { path }
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Writes `contents` to `name` in this directory and returns its path as text.
    pub fn write(&self, name: &str, contents: &str) -> String {
        let path = self.join(name);
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path.display().to_string()
    }

    /// Reads `NAME.npy` from this directory, as `tilec run --out DIR` writes it.
    pub fn read_npy(&self, name: &str) -> HostArray {
        let path = self.join(&format!("{name}.npy"));
        HostArray::read_npy(&path).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
