//! Linking an object into a shared object with the Rust toolchain's `rust-lld`
//! (`$(rustc --print sysroot)/lib/rustlib/<host>/bin/rust-lld -flavor gnu -shared`).
//!
//! Symbols the object leaves undefined (libm's) stay undefined in the `.so`, which names
//! `libm.so.6` as a needed library: the dynamic loader loads libm with the kernel and binds
//! them at `dlopen`, whether or not the loading process links libm. No libm is needed at link
//! time: the needed entry comes from a stand-in shared object whose soname is `libm.so.6`
//! (linked from the kernel object itself; its contents are never used).

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
    let libm = dir.path.join("libm.so.6");
    std::fs::write(&obj, object).map_err(|e| link_error(format!("cannot write {}: {e}", obj.display())))?;
    run_lld(&lld, &[&obj], &libm, &["-soname", "libm.so.6"])?;
    run_lld(&lld, &[&obj, &libm], &so, &[])?;
    std::fs::read(&so).map_err(|e| link_error(format!("cannot read {}: {e}", so.display())))
}

/// `rust-lld -flavor gnu -shared EXTRA... -o OUTPUT INPUTS...`
fn run_lld(lld: &Path, inputs: &[&Path], output: &Path, extra: &[&str]) -> Result<(), Diagnostic> {
    let out = Command::new(lld)
        .args(["-flavor", "gnu", "-shared", "--hash-style=both"])
        .args(extra)
        .arg("-o")
        .arg(output)
        .args(inputs)
        .output()
        .map_err(|e| link_error(format!("cannot run {}: {e}", lld.display())))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(link_error(format!("rust-lld failed: {}", String::from_utf8_lossy(&out.stderr).trim())))
    }
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
