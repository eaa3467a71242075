//! The kernel cache, like Triton's `~/.triton/cache`: shared objects compiled before, under
//! `$TILEC_CACHE/kernels/<key>/entry` (else `~/.cache/tilec/kernels`), reused by
//! [`crate::Kernel::build`] instead of running the optimizer, the lowering, the code
//! generator and the linker again.
//!
//! The key is a 128-bit FNV-1a hash of everything the shared object depends on: the whole
//! source file (so a change to any helper function invalidates it), the kernel's name, the
//! signature, the constants, the target, the options, the directories SLEEF is linked from,
//! and the compiler itself (this crate's version and the size and modification time of the
//! running executable, which holds the compiler). `TILEC_ALWAYS_COMPILE=1` turns the cache
//! off.
//!
//! Invariant: an entry is read only whole and intact. It is written to a temporary file in
//! its directory and renamed into place, so two processes compiling the same kernel at once
//! both succeed and a reader never sees half an entry; its first line holds the hash of the
//! bytes after it, and an entry whose hash does not match (or that is not an ELF file) is
//! ignored and compiled again. An autotuning choice (`crate::tune`) is kept the same way, in
//! `<key>/choice`, under a key of the kernel, the fixed specialization, the configs and the
//! autotune key's values.

use std::path::{Path, PathBuf};

/// Environment variable that turns the kernel cache off when set to `1`.
pub const ALWAYS_COMPILE_ENV: &str = "TILEC_ALWAYS_COMPILE";

/// The first word of an entry.
const ENTRY_MAGIC: &str = "tilec-kernel-cache-1";

/// The first word of an autotuning choice (`<key>/choice`: the label of the chosen config).
const CHOICE_MAGIC: &str = "tilec-autotune-choice-1";

/// A directory of compiled kernels.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("tilec-doc-cache-{}", std::process::id()));
/// let cache = tilec::KernelCache::in_dir(&dir);
/// assert!(cache.load("0123").is_none());
/// cache.store("0123", b"\x7fELF...").unwrap();
/// assert_eq!(cache.load("0123").unwrap(), b"\x7fELF...");
/// std::fs::write(dir.join("0123").join("entry"), b"garbage").unwrap();
/// assert!(cache.load("0123").is_none(), "a corrupt entry is not trusted");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelCache {
    dir: PathBuf,
}

impl KernelCache {
    /// `kernels/` of the set-up cache (`$TILEC_CACHE`, else `~/.cache/tilec`); `None` when
    /// `TILEC_ALWAYS_COMPILE=1` or when neither variable locates it.
    pub fn from_env() -> Option<KernelCache> {
        if std::env::var_os(ALWAYS_COMPILE_ENV).is_some_and(|v| v == "1") {
            return None;
        }
        let layout = tilec_toolchain::Layout::from_env().ok()?;
        Some(KernelCache { dir: layout.root.join("kernels") })
    }

    /// A cache in `dir` (created when the first entry is stored).
    pub fn in_dir(dir: impl AsRef<Path>) -> KernelCache {
        KernelCache { dir: dir.as_ref().to_path_buf() }
    }

    /// The directory the entries are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The bytes stored under `key`, if its entry is intact.
    pub fn load(&self, key: &str) -> Option<Vec<u8>> {
        self.read_entry(key, "entry", ENTRY_MAGIC).filter(|payload| payload.starts_with(b"\x7fELF"))
    }

    /// Stores `bytes` under `key`, replacing what was there.
    pub fn store(&self, key: &str, bytes: &[u8]) -> Result<(), String> {
        self.write_entry(key, "entry", ENTRY_MAGIC, bytes)
    }

    /// The autotuning choice stored under `key` (a config's label), if its entry is intact.
    pub(crate) fn load_choice(&self, key: &str) -> Option<String> {
        String::from_utf8(self.read_entry(key, "choice", CHOICE_MAGIC)?).ok()
    }

    /// Stores an autotuning choice under `key`.
    pub(crate) fn store_choice(&self, key: &str, choice: &str) -> Result<(), String> {
        self.write_entry(key, "choice", CHOICE_MAGIC, choice.as_bytes())
    }

    /// The payload of `key/file` when its header is `magic` and the payload's hash.
    fn read_entry(&self, key: &str, file: &str, magic: &str) -> Option<Vec<u8>> {
        let entry = std::fs::read(self.dir.join(key).join(file)).ok()?;
        let newline = entry.iter().position(|&b| b == b'\n')?;
        let header = std::str::from_utf8(&entry[..newline]).ok()?;
        let payload = &entry[newline + 1..];
        let (found, hash) = header.split_once(' ')?;
        (found == magic && hash == hex(fnv1a_128(payload))).then(|| payload.to_vec())
    }

    /// Writes `key/file` (a header line, then `bytes`) through a temporary file renamed into
    /// place.
    fn write_entry(&self, key: &str, file: &str, magic: &str, bytes: &[u8]) -> Result<(), String> {
        let dir = self.dir.join(key);
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let temporary = dir.join(format!(".{file}-{}-{nanos:x}", std::process::id()));
        let mut entry = format!("{magic} {}\n", hex(fnv1a_128(bytes))).into_bytes();
        entry.extend_from_slice(bytes);
        std::fs::write(&temporary, entry).map_err(|e| format!("cannot write {}: {e}", temporary.display()))?;
        std::fs::rename(&temporary, dir.join(file)).map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            format!("cannot rename {} into place: {e}", temporary.display())
        })
    }
}

/// The key of a compilation: a hash of each of `parts` (length-prefixed, so no two lists of
/// parts run together into the same bytes) and of the compiler that runs.
pub(crate) fn key(parts: &[&[u8]]) -> String {
    let mut bytes = Vec::new();
    let compiler = compiler_identity();
    for part in std::iter::once(compiler.as_bytes()).chain(parts.iter().copied()) {
        bytes.extend_from_slice(&(part.len() as u64).to_le_bytes());
        bytes.extend_from_slice(part);
    }
    hex(fnv1a_128(&bytes))
}

/// This crate's version and the running executable's path, size and modification time:
/// a rebuilt compiler is another compiler.
fn compiler_identity() -> String {
    static IDENTITY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    IDENTITY
        .get_or_init(|| {
            let exe = std::env::current_exe().ok();
            let meta = exe.as_ref().and_then(|p| std::fs::metadata(p).ok());
            let modified = meta
                .as_ref()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos());
            format!("tilec {} {:?} {:?} {:?}", env!("CARGO_PKG_VERSION"), exe, meta.map(|m| m.len()), modified)
        })
        .clone()
}

/// FNV-1a, 128 bit.
fn fnv1a_128(bytes: &[u8]) -> u128 {
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    let mut hash: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for &b in bytes {
        hash ^= u128::from(b);
        hash = hash.wrapping_mul(PRIME);
    }
    hash
}

fn hex(hash: u128) -> String {
    format!("{hash:032x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_in_every_part_and_do_not_run_together() {
        let base = key(&[b"source", b"kernel", b"sig"]);
        assert_eq!(base, key(&[b"source", b"kernel", b"sig"]));
        assert_eq!(base.len(), 32);
        for other in [key(&[b"sourc", b"ekernel", b"sig"]), key(&[b"source", b"kernel", b"sig2"]), key(&[b"source"])] {
            assert_ne!(base, other);
        }
    }

    /// The published test vector of FNV-1a 128 for "a".
    #[test]
    fn fnv1a_128_matches_its_reference() {
        assert_eq!(hex(fnv1a_128(b"a")), "d228cb696f1a8caf78912b704e4a8964");
    }
}
