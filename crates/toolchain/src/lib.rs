//! Where the target toolchain lives: qemu-riscv64, the runner and the riscv64 sysroot.
//!
//! `cargo xtask setup` creates this layout; `tilec run` and the tests read it. It is one crate
//! so they cannot disagree, and it uses `std` only, so set-up builds in seconds.
//!
//! Layout under the cache root (`$TILEC_CACHE`, else `$HOME/.cache/tilec`):
//! ```text
//! toolchain/apt/                         private apt root used to download qemu-user
//! toolchain/<QEMU_DIR>/usr/bin/qemu-riscv64
//! toolchain/runner-<hash>/runner         hash of the runner source, compiler and flags
//! toolchain/<SLEEF_DIR>/lib/libsleef.a   SLEEF for riscv64 (RVV), static; include/sleef.h
//! ```
//! Invariant: a directory named after a version or hash is complete once it exists (set-up
//! builds into a temporary sibling and renames it), so changing the version or the runner
//! source makes set-up redo exactly that part.

use std::path::{Path, PathBuf};

/// Environment variable overriding the cache root.
pub const CACHE_ENV: &str = "TILEC_CACHE";

/// Directory of the extracted qemu-user package; bump the suffix to make set-up fetch again.
pub const QEMU_DIR: &str = "qemu-user-bookworm-backports-1";

/// The Debian package and suite qemu-user 10 comes from.
pub const QEMU_PACKAGE: &str = "qemu-user";
pub const QEMU_SUITE: &str = "bookworm-backports";

/// The major version of qemu that set-up accepts (7.2 mis-executes some RVV code).
pub const QEMU_MIN_MAJOR: u32 = 10;

/// Directory of the riscv64 SLEEF build (`xtask/src/sleef.rs`); bump the suffix to rebuild.
pub const SLEEF_DIR: &str = "sleef-3.9.0-rv64gcv-2";

/// Directory of the qemu-riscv64 built with TCG plugin support (`cargo xtask setup` builds
/// it from Debian's qemu source; `xtask/src/bench/qemu_build.rs`); bump the suffix to rebuild.
pub const QEMU_PLUGINS_DIR: &str = "qemu-plugins-1";

/// The source of the instruction-counting qemu plugin, which set-up builds for the host.
pub const INSN_COUNT_SOURCE: &str = include_str!("../../../bench/plugin/insn_count.c");

/// The riscv64 glibc sysroot of Debian's cross packages (`libc6-dev-riscv64-cross`).
pub const SYSROOT: &str = "/usr/riscv64-linux-gnu";

/// Environment variable overriding [`SYSROOT`] for running kernels.
pub const SYSROOT_ENV: &str = "TILEC_SYSROOT";

/// The runner's source, compiled by set-up for the target.
pub const RUNNER_SOURCE: &str = include_str!("../../../runner/runner.c");

/// Flags the runner is compiled and linked with; the libraries let kernel `.so` files
/// resolve libm symbols.
pub const RUNNER_CFLAGS: &[&str] = &["-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror"];
pub const RUNNER_LIBS: &[&str] = &["-lm", "-ldl", "-lpthread"];

/// Debian packages set-up installs with apt: the runner's cross compiler and sysroot, and
/// what the SLEEF build needs.
pub const APT_PACKAGES: &[&str] = &[
    "gcc-riscv64-linux-gnu",
    "libc6-dev-riscv64-cross",
    "clang-19",
    "lld-19",
    "cmake",
    "ninja-build",
    "libstdc++-12-dev-riscv64-cross",
];

/// True when this program runs on a riscv64 machine: kernels then run without qemu.
pub fn host_is_riscv64() -> bool {
    cfg!(target_arch = "riscv64")
}

/// The C compiler that builds the runner on this host.
pub fn runner_compiler() -> &'static str {
    if host_is_riscv64() {
        "cc"
    } else {
        "riscv64-linux-gnu-gcc"
    }
}

/// FNV-1a, 64 bit: a hash that is stable across Rust versions and platforms.
fn fnv1a(bytes: &[u8], mut hash: u64) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// Hash of everything that determines the runner binary.
pub fn runner_hash() -> String {
    let mut hash = 0xcbf2_9ce4_8422_2325;
    hash = fnv1a(RUNNER_SOURCE.as_bytes(), hash);
    for part in
        std::iter::once(runner_compiler()).chain(RUNNER_CFLAGS.iter().copied()).chain(RUNNER_LIBS.iter().copied())
    {
        hash = fnv1a(part.as_bytes(), hash);
        hash = fnv1a(&[0], hash);
    }
    format!("{hash:016x}")
}

/// Paths of the cache layout; nothing here touches the file system.
#[derive(Clone, Debug)]
pub struct Layout {
    pub root: PathBuf,
}

impl Layout {
    /// The layout under `$TILEC_CACHE`, else `$HOME/.cache/tilec`.
    pub fn from_env() -> Result<Layout, String> {
        if let Some(dir) = std::env::var_os(CACHE_ENV).filter(|d| !d.is_empty()) {
            return Ok(Layout { root: PathBuf::from(dir) });
        }
        match std::env::var_os("HOME").filter(|d| !d.is_empty()) {
            Some(home) => Ok(Layout { root: Path::new(&home).join(".cache").join("tilec") }),
            None => Err(format!("neither ${CACHE_ENV} nor $HOME is set: cannot locate the toolchain cache")),
        }
    }

    pub fn toolchain_dir(&self) -> PathBuf {
        self.root.join("toolchain")
    }

    pub fn apt_root(&self) -> PathBuf {
        self.toolchain_dir().join("apt")
    }

    pub fn qemu_dir(&self) -> PathBuf {
        self.toolchain_dir().join(QEMU_DIR)
    }

    pub fn qemu_riscv64(&self) -> PathBuf {
        self.qemu_dir().join("usr").join("bin").join("qemu-riscv64")
    }

    pub fn runner_dir(&self) -> PathBuf {
        self.toolchain_dir().join(format!("runner-{}", runner_hash()))
    }

    pub fn runner(&self) -> PathBuf {
        self.runner_dir().join("runner")
    }

    pub fn sleef_dir(&self) -> PathBuf {
        self.toolchain_dir().join(SLEEF_DIR)
    }

    /// The directory holding `libsleef.a` (what the link step searches).
    pub fn sleef_lib_dir(&self) -> PathBuf {
        self.sleef_dir().join("lib")
    }

    /// The plugin-capable qemu's directory (`bin/qemu-riscv64`, `include/qemu-plugin.h`).
    pub fn plugin_qemu_dir(&self) -> PathBuf {
        self.toolchain_dir().join(QEMU_PLUGINS_DIR)
    }

    /// The directory of the instruction-counting plugin built from [`INSN_COUNT_SOURCE`]
    /// against [`QEMU_PLUGINS_DIR`]'s header (named after a hash of both).
    pub fn insn_count_dir(&self) -> PathBuf {
        let mut hash = fnv1a(INSN_COUNT_SOURCE.as_bytes(), 0xcbf2_9ce4_8422_2325);
        hash = fnv1a(QEMU_PLUGINS_DIR.as_bytes(), hash);
        self.toolchain_dir().join(format!("insn-count-{hash:016x}"))
    }
}

/// What counts the instructions a kernel executes: the plugin-capable qemu and the
/// `insn_count` plugin (`bench/plugin/insn_count.c`), which counts inside the runner's
/// marked launch region.
#[derive(Clone, Debug)]
pub struct Counter {
    pub qemu: PathBuf,
    pub plugin: PathBuf,
}

impl Counter {
    /// Finds the counting tools set-up made; the error names what is missing and the
    /// command that provides it.
    pub fn locate(layout: &Layout) -> Result<Counter, String> {
        let fix = "run `cargo xtask setup`";
        let qemu = layout.plugin_qemu_dir().join("bin").join("qemu-riscv64");
        if !qemu.is_file() {
            return Err(format!("the plugin-capable qemu-riscv64 is missing (expected {}): {fix}", qemu.display()));
        }
        let plugin = layout.insn_count_dir().join("insn_count.so");
        if !plugin.is_file() {
            return Err(format!(
                "the instruction-counting qemu plugin is missing (expected {}): {fix}",
                plugin.display()
            ));
        }
        Ok(Counter { qemu, plugin })
    }
}

/// The `insn_count` plugin's counts for one run (see its source for the classes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub total: u64,
    pub scalar: u64,
    pub vset: u64,
    pub vector: u64,
    pub vector_memory: u64,
    pub vector_lmul: u64,
}

impl Counts {
    /// Scalar and vset instructions count 1, vector instructions their register-group size.
    pub fn lmul_weighted_total(&self) -> u64 {
        self.scalar + self.vset + self.vector_lmul
    }

    /// Reads the plugin's output file; an error unless it saw exactly one marked region and
    /// one vCPU (the counters are global, so the guest must run one thread).
    pub fn parse(text: &str) -> Result<Counts, String> {
        let mut counts = Counts::default();
        let (mut regions, mut vcpus) = (0, 0);
        for line in text.lines() {
            let Some((key, value)) = line.split_once(' ') else { continue };
            let value: u64 = value.trim().parse().map_err(|_| format!("malformed count line `{line}`"))?;
            match key {
                "total" => counts.total = value,
                "scalar" => counts.scalar = value,
                "vset" => counts.vset = value,
                "vector" => counts.vector = value,
                "vector_memory" => counts.vector_memory = value,
                "vector_lmul" => counts.vector_lmul = value,
                "regions" => regions = value,
                "vcpus" => vcpus = value,
                _ => {}
            }
        }
        if regions != 1 {
            return Err(format!("the plugin saw {regions} marked regions, expected 1"));
        }
        if vcpus != 1 {
            return Err(format!("the plugin saw {vcpus} vCPUs, expected 1"));
        }
        Ok(counts)
    }
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "total={} scalar={} vset={} vector={} vector_memory={} vector_lmul={}",
            self.total, self.scalar, self.vset, self.vector, self.vector_memory, self.vector_lmul
        )
    }
}

/// How kernels are executed on this host.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// `None` when kernels run natively (riscv64 host).
    pub qemu: Option<PathBuf>,
    pub runner: PathBuf,
    /// The sysroot passed to qemu with `-L`.
    pub sysroot: PathBuf,
}

impl Toolchain {
    /// Finds the toolchain set-up made; every error names what is missing and the command
    /// that provides it.
    pub fn locate(layout: &Layout) -> Result<Toolchain, String> {
        let fix = "run `cargo xtask setup`";
        let runner = layout.runner();
        if !runner.is_file() {
            return Err(format!("the tilec runner is missing (expected {}): {fix}", runner.display()));
        }
        if host_is_riscv64() {
            return Ok(Toolchain { qemu: None, runner, sysroot: PathBuf::from("/") });
        }
        let qemu = layout.qemu_riscv64();
        if !qemu.is_file() {
            return Err(format!("qemu-riscv64 is missing (expected {}): {fix}", qemu.display()));
        }
        let sysroot = std::env::var_os(SYSROOT_ENV)
            .filter(|d| !d.is_empty())
            .map_or_else(|| PathBuf::from(SYSROOT), PathBuf::from);
        if !sysroot.join("lib").join("ld-linux-riscv64-lp64d.so.1").exists() {
            return Err(format!(
                "the riscv64 sysroot {} is missing (no lib/ld-linux-riscv64-lp64d.so.1): {fix}",
                sysroot.display()
            ));
        }
        Ok(Toolchain { qemu: Some(qemu), runner, sysroot })
    }
}
