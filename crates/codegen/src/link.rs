//! Linking an object into a shared object: in process ([`crate::shared_object`]) when the
//! object is a riscv64 one, with the members of `libsleef.a` it needs, else with the Rust
//! toolchain's `rust-lld` (`$(rustc --print sysroot)/lib/rustlib/<host>/bin/rust-lld -flavor
//! gnu -shared`): for objects of other machines (the host target) and for any object the
//! in-process linker does not handle. Both name `libm.so.6` as needed when the
//! object imports symbols, export the same symbols and load and run the same way.
//!
//! Symbols the object leaves undefined (libm's) stay undefined in the `.so`, which names
//! `libm.so.6` as a needed library: the dynamic loader loads libm with the kernel and binds
//! them at `dlopen`, whether or not the loading process links libm. No libm is needed at link
//! time: the needed entry comes from a stand-in shared object whose soname is `libm.so.6`
//! (linked from the kernel object itself; its contents are never used).
//!
//! SLEEF (the vector math the RVV code calls, `Sleef_*`) is linked statically: when the object
//! references a `Sleef_` symbol, `libsleef.a` is looked up in the caller's library
//! directories, and archive semantics pull in only the members that define what the kernel
//! uses, section garbage collection only their sections it reaches (in process, or
//! `rust-lld --gc-sections` with the archive after the object). The caller says where the
//! archive is; this crate knows no cache layout.

use std::path::{Path, PathBuf};
use std::process::Command;

use tilec_diagnostics::Diagnostic;

use tilec_diagnostics::codes::codegen as codes;

fn link_error(message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(codes::LINK, message.into())
}

/// The `rust-lld` of the toolchain of `rustc` (`$RUSTC`, else `rustc` on `PATH`), looked up
/// once per process (asking `rustc` for its sysroot takes tens of milliseconds).
pub fn find_rust_lld() -> Result<PathBuf, Diagnostic> {
    static FOUND: std::sync::OnceLock<Result<PathBuf, Diagnostic>> = std::sync::OnceLock::new();
    FOUND.get_or_init(locate_rust_lld).clone()
}

fn locate_rust_lld() -> Result<PathBuf, Diagnostic> {
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
    link_shared_with(object, &[])
}

/// The static library SLEEF's functions come from, looked up in the library directories.
pub const SLEEF_ARCHIVE: &str = "libsleef.a";

/// The prefix of every SLEEF function name.
const SLEEF_PREFIX: &[u8] = b"Sleef_";

/// [`link_shared`], searching `library_dirs` (in order) for the static libraries the object
/// needs: `libsleef.a` when it references `Sleef_*` symbols. With no such references the
/// directories are not looked at, and the result is what [`link_shared`] makes.
pub fn link_shared_with(object: &[u8], library_dirs: &[PathBuf]) -> Result<Vec<u8>, Diagnostic> {
    let in_process = if references_sleef(object) {
        crate::shared_object::link_with_archive(object, &find_archive(SLEEF_ARCHIVE, library_dirs)?)
    } else {
        crate::shared_object::link(object)
    };
    match in_process {
        Ok(shared) => Ok(shared),
        Err(_) => link_shared_with_lld(object, library_dirs),
    }
}

/// [`link_shared_with`] through `rust-lld`, whatever the object.
pub fn link_shared_with_lld(object: &[u8], library_dirs: &[PathBuf]) -> Result<Vec<u8>, Diagnostic> {
    let lld = find_rust_lld()?;
    let dir = TempDir::new()?;
    let obj = dir.path.join("kernel.o");
    let so = dir.path.join("kernel.so");
    let libm = dir.path.join("libm.so.6");
    std::fs::write(&obj, object).map_err(|e| link_error(format!("cannot write {}: {e}", obj.display())))?;
    let sleef = if references_sleef(object) { Some(find_archive(SLEEF_ARCHIVE, library_dirs)?) } else { None };
    run_lld(&lld, &[&obj], &libm, &["-soname", "libm.so.6"])?;
    let mut inputs = vec![obj.as_path()];
    inputs.extend(sleef.as_deref());
    inputs.push(&libm);
    // Archive members stay out of the dynamic symbol table (only the kernel's own symbols are
    // exported), and a SLEEF member (all functions of one ISA variant) keeps only the
    // sections the kernel reaches.
    let extra: &[&str] = if sleef.is_some() { &["--exclude-libs", "ALL", "--gc-sections"] } else { &[] };
    run_lld(&lld, &inputs, &so, extra)?;
    std::fs::read(&so).map_err(|e| link_error(format!("cannot read {}: {e}", so.display())))
}

/// True when the object names a `Sleef_` symbol. Names occur only in the object's string
/// tables (codegen emits no debug info), so a byte search finds exactly the references.
pub fn references_sleef(object: &[u8]) -> bool {
    object.windows(SLEEF_PREFIX.len()).any(|w| w == SLEEF_PREFIX)
}

/// The first `dirs/name` that is a file.
fn find_archive(name: &str, dirs: &[PathBuf]) -> Result<PathBuf, Diagnostic> {
    dirs.iter().map(|d| d.join(name)).find(|p| p.is_file()).ok_or_else(|| {
        let searched: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        let searched = if searched.is_empty() {
            "no library directory was given".to_string()
        } else {
            format!("searched: {}", searched.join(", "))
        };
        link_error(format!("the kernel calls SLEEF functions but {name} was not found ({searched})"))
            .with_note("`cargo xtask setup` builds SLEEF for riscv64 into the toolchain cache")
    })
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
