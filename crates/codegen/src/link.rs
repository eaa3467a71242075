//! Linking an object into a shared object with the Rust toolchain's `rust-lld`
//! (`$(rustc --print sysroot)/lib/rustlib/<host>/bin/rust-lld -flavor gnu -shared`).
//!
//! Symbols the object leaves undefined (libm's) stay undefined in the `.so`; the dynamic
//! loader binds them at `dlopen` from the libraries already loaded in the process.

use std::path::{Path, PathBuf};
use std::process::Command;

use tilec_diagnostics::Diagnostic;

use crate::E_LINK;

fn link_error(message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(E_LINK, message.into())
}

/// The `rust-lld` of the toolchain of `rustc` (`$RUSTC`, else `rustc` on `PATH`).
pub fn find_rust_lld() -> Result<PathBuf, Diagnostic> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(&rustc).args(["--print", "sysroot"]).output().map_err(|e| {
        link_error(format!("cannot run `{}` to find the linker: {e}", Path::new(&rustc).display()))
            .with_note("rust-lld comes with the Rust toolchain; install it with rustup or set RUSTC")
    })?;
    if !out.status.success() {
        return Err(link_error(format!("`{} --print sysroot` failed", Path::new(&rustc).display())));
    }
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let bin = Path::new(&sysroot).join("lib/rustlib").join(host_triple()).join("bin/rust-lld");
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(link_error(format!("the Rust toolchain has no linker at {}", bin.display()))
            .with_note("install a toolchain that ships rust-lld (rustup's stable toolchains do)"))
    }
}

/// The target triple of the machine tilec was built for.
fn host_triple() -> String {
    target_lexicon::Triple::host().to_string()
}

/// Links an ELF relocatable object into a shared object and returns its bytes.
pub fn link_shared(object: &[u8]) -> Result<Vec<u8>, Diagnostic> {
    let lld = find_rust_lld()?;
    let dir = TempDir::new()?;
    let obj = dir.path.join("kernel.o");
    let so = dir.path.join("kernel.so");
    std::fs::write(&obj, object).map_err(|e| link_error(format!("cannot write {}: {e}", obj.display())))?;
    let out = Command::new(&lld)
        .args(["-flavor", "gnu", "-shared", "--hash-style=both", "-o"])
        .arg(&so)
        .arg(&obj)
        .output()
        .map_err(|e| link_error(format!("cannot run {}: {e}", lld.display())))?;
    if !out.status.success() {
        return Err(link_error(format!(
            "rust-lld failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    std::fs::read(&so).map_err(|e| link_error(format!("cannot read {}: {e}", so.display())))
}

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir {
    path: PathBuf,
}

impl TempDir {
    fn new() -> Result<TempDir, Diagnostic> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("tilec-link-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).map_err(|e| link_error(format!("cannot create {}: {e}", path.display())))?;
        Ok(TempDir { path })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
