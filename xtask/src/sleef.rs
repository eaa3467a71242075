//! SLEEF for riscv64: the vectorized math library kernels call on `riscv64gcv`.
//!
//! Set-up builds the pinned release into `toolchain/<SLEEF_DIR>/` (`lib/libsleef.a`,
//! `include/sleef.h`) in three steps:
//! 1. the upstream release tarball, as Debian's sid source package carries it
//!    (`sleef_<VERSION>.orig.tar.gz`), is located in the sid `Sources` index of the private
//!    apt root and downloaded by `apt-helper`, which checks it against [`SOURCE_SHA256`] (the
//!    hash committed here, not the one the index states);
//! 2. a native first stage builds SLEEF's generator tools (`mkrename`, `mkalias`, `mkdisp`,
//!    `addSuffix`) with the host compiler;
//! 3. a cross stage builds the static library with clang-19 for `riscv64-linux-gnu`
//!    (position-independent: kernels are shared objects; a section per function, so links keep
//!    only what they use), tests, GNU ABI, DFT and quad off.
//!
//! SLEEF compiles its RVV code with `-march=rv64gcv_zba_zbb_zbs`; the build is patched to
//! plain `-march=rv64gcv` so that kernels linked with it stay RV64GCV code (see README).
//!
//! Invariant: `toolchain/<SLEEF_DIR>/` exists only complete (built in a sibling and renamed).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{recreate_dir, run, say, show, write, Result};
use tilec_toolchain::{Layout, SYSROOT};

/// The SLEEF release built.
pub const VERSION: &str = "3.9.0";

/// sha256 of `sleef_3.9.0.orig.tar.gz` (the upstream 3.9.0 release tarball).
pub const SOURCE_SHA256: &str = "b2a1acd3f1860299848b4e24238a4609fbb85761a1a85bac5573347b90d0440b";

/// The Debian source package and suite the tarball is fetched from.
const SOURCE_PACKAGE: &str = "sleef";
const SOURCE_SUITE: &str = "sid";

/// The flag SLEEF's `Configure.cmake` gives its RVV code, and what it is patched to.
const UPSTREAM_RVV_MARCH: &str = "-march=rv64gcv_zba_zbb_zbs";
const RVV_MARCH: &str = "-march=rv64gcv";

/// The generator tools the cross stage imports from the native stage.
const HOST_TOOLS: &[&str] = &["mkrename", "mkalias", "mkdisp", "addSuffix"];

/// CMake options both stages share: only the libm part, as a static library.
const COMMON_OPTIONS: &[&str] = &[
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DSLEEF_BUILD_TESTS=OFF",
    "-DSLEEF_BUILD_GNUABI_LIBS=OFF",
    "-DSLEEF_BUILD_DFT=OFF",
    "-DSLEEF_BUILD_QUAD=OFF",
    "-DSLEEF_ENABLE_TLFLOAT=OFF",
    "-DSLEEF_SHOW_CONFIG=OFF",
];

/// Builds SLEEF into the cache unless it is there.
pub fn build(layout: &Layout) -> Result<()> {
    let final_dir = layout.sleef_dir();
    let library = layout.sleef_lib_dir().join("libsleef.a");
    if library.is_file() {
        say(format!("sleef: present ({})", library.display()));
        return Ok(());
    }
    let staging = final_dir.with_file_name(format!("{}.partial", tilec_toolchain::SLEEF_DIR));
    recreate_dir(&staging)?;
    let tarball = fetch_source(layout, &staging)?;
    let source = unpack(&tarball, &staging.join("src"))?;
    patch_rvv_march(&source)?;

    let native = staging.join("build-native");
    say("sleef: native stage (generator tools)");
    run(cmake_configure(&source, &native).args(COMMON_OPTIONS))?;
    run(Command::new("ninja").arg("-C").arg(&native).args(HOST_TOOLS))?;

    let cross = staging.join("build-riscv64");
    say("sleef: cross stage (clang-19, riscv64-linux-gnu)");
    run(cmake_configure(&source, &cross)
        .args(COMMON_OPTIONS)
        .args(cross_options())
        .arg(format!("-DNATIVE_BUILD_DIR={}", native.display()))
        .arg(format!("-DCMAKE_INSTALL_PREFIX={}", staging.join("install").display())))?;
    run(Command::new("ninja").arg("-C").arg(&cross).arg("install"))?;

    let installed = staging.join("install");
    for (from, to) in [("lib/libsleef.a", "lib/libsleef.a"), ("include/sleef.h", "include/sleef.h")] {
        let (from, to) = (installed.join(from), staging.join(to));
        fs::create_dir_all(to.parent().unwrap_or(&staging))
            .map_err(|e| format!("cannot create {}: {e}", to.display()))?;
        fs::rename(&from, &to).map_err(|e| format!("cannot move {} to {}: {e}", from.display(), to.display()))?;
    }
    for scratch in ["src", "build-native", "build-riscv64", "install", "download"] {
        let _ = fs::remove_dir_all(staging.join(scratch));
    }
    fs::rename(&staging, &final_dir).map_err(|e| format!("cannot move {} into place: {e}", staging.display()))?;
    say(format!("sleef: built ({})", library.display()));
    Ok(())
}

/// `cmake -S SOURCE -B BUILD -G Ninja`
fn cmake_configure(source: &Path, build: &Path) -> Command {
    let mut cmd = Command::new("cmake");
    cmd.arg("-S").arg(source).arg("-B").arg(build).args(["-G", "Ninja"]);
    cmd
}

/// The cross stage's CMake options. The sysroot is only CMake's find root: clang finds
/// Debian's cross layout (`/usr/riscv64-linux-gnu` and the riscv64 gcc) by itself, which
/// `--sysroot` would hide from it.
fn cross_options() -> Vec<String> {
    [
        "-DCMAKE_SYSTEM_NAME=Linux",
        "-DCMAKE_SYSTEM_PROCESSOR=riscv64",
        "-DCMAKE_C_COMPILER=clang-19",
        "-DCMAKE_CXX_COMPILER=clang++-19",
        "-DCMAKE_C_COMPILER_TARGET=riscv64-linux-gnu",
        "-DCMAKE_CXX_COMPILER_TARGET=riscv64-linux-gnu",
        "-DCMAKE_FIND_ROOT_PATH_MODE_PROGRAM=NEVER",
        "-DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=BOTH",
        "-DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY",
        "-DCMAKE_POSITION_INDEPENDENT_CODE=ON",
        // One object holds every function of an ISA variant: sections per function let the
        // link step (`--gc-sections`) keep only the functions a kernel calls.
        "-DCMAKE_C_FLAGS=-ffunction-sections -fdata-sections",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain(std::iter::once(format!("-DCMAKE_FIND_ROOT_PATH={SYSROOT}")))
    .collect()
}

/// Downloads the orig tarball through the private apt root into `staging/download/`,
/// checked against [`SOURCE_SHA256`].
fn fetch_source(layout: &Layout, staging: &Path) -> Result<PathBuf> {
    let apt_config = super::write_private_apt_root(&layout.apt_root())?;
    let uri = super::system_archive_uri()?;
    let sources = format!(
        "Types: deb deb-src\nURIs: {uri}\nSuites: {SOURCE_SUITE}\nComponents: main\nSigned-By: {}\n",
        super::DEBIAN_KEYRING
    );
    write(&layout.apt_root().join("sources.list.d/sid.sources"), &sources)?;
    let apt = |program: &str| {
        let mut cmd = Command::new(program);
        cmd.env("APT_CONFIG", &apt_config);
        cmd
    };
    say(format!("sleef: locating {SOURCE_PACKAGE} {VERSION} in the {SOURCE_SUITE} Sources index"));
    run(apt("apt-get").args(["update", "-q"]))?;
    let showsrc = apt("apt-cache").args(["showsrc", SOURCE_PACKAGE]).output();
    let showsrc = showsrc.map_err(|e| format!("cannot run apt-cache showsrc: {e}"))?;
    let record = String::from_utf8_lossy(&showsrc.stdout).into_owned();
    let file_name = format!("{SOURCE_PACKAGE}_{VERSION}.orig.tar.gz");
    let directory = orig_tarball_directory(&record, &file_name).ok_or_else(|| {
        format!("the {SOURCE_SUITE} Sources index lists no {file_name} (apt-cache showsrc {SOURCE_PACKAGE})")
    })?;

    let download = staging.join("download");
    fs::create_dir_all(&download).map_err(|e| format!("cannot create {}: {e}", download.display()))?;
    let tarball = download.join(&file_name);
    let url = format!("{}/{directory}/{file_name}", uri.trim_end_matches('/'));
    let mut fetch = apt("/usr/lib/apt/apt-helper");
    fetch.arg("download-file").arg(&url).arg(&tarball).arg(format!("SHA256:{SOURCE_SHA256}"));
    say(format!("sleef: {}", show(&fetch)));
    run(&mut fetch)?;
    Ok(tarball)
}

/// The `Directory:` of the source record (of `apt-cache showsrc`) that lists `file_name`.
fn orig_tarball_directory(showsrc: &str, file_name: &str) -> Option<String> {
    showsrc.split("\n\n").find_map(|record| {
        let lists_file = record.lines().any(|l| l.starts_with(' ') && l.split_whitespace().last() == Some(file_name));
        let directory = record.lines().find_map(|l| l.strip_prefix("Directory:")).map(|d| d.trim().to_string());
        directory.filter(|_| lists_file)
    })
}

/// Unpacks the tarball into `dir` and returns the source tree (its single top directory).
fn unpack(tarball: &Path, dir: &Path) -> Result<PathBuf> {
    recreate_dir(dir)?;
    run(Command::new("tar").arg("-xzf").arg(tarball).arg("-C").arg(dir))?;
    let mut entries = fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir());
    match (entries.next(), entries.next()) {
        (Some(top), None) if top.join("CMakeLists.txt").is_file() => Ok(top),
        _ => Err(format!("{} does not unpack to one source directory", tarball.display())),
    }
}

/// Replaces SLEEF's RVV `-march` by plain rv64gcv; fails when the upstream flag is not
/// there (a new release then needs this step looked at).
fn patch_rvv_march(source: &Path) -> Result<()> {
    let configure = source.join("Configure.cmake");
    let text = fs::read_to_string(&configure).map_err(|e| format!("cannot read {}: {e}", configure.display()))?;
    if !text.contains(UPSTREAM_RVV_MARCH) {
        return Err(format!("{} no longer sets {UPSTREAM_RVV_MARCH}: check the RVV flags", configure.display()));
    }
    write(&configure, &text.replace(UPSTREAM_RVV_MARCH, RVV_MARCH))
}

#[cfg(test)]
mod tests {
    use super::orig_tarball_directory;

    #[test]
    fn finds_the_directory_of_the_record_listing_the_tarball() {
        let showsrc = "Package: sleef\nVersion: 3.8-1\nFiles:\n abc 1 sleef_3.8.orig.tar.gz\nDirectory: pool/old\n\n\
                       Package: sleef\nVersion: 3.9.0-1\nChecksums-Sha256:\n def 2 sleef_3.9.0.orig.tar.gz\nDirectory: pool/main/s/sleef\n";
        assert_eq!(orig_tarball_directory(showsrc, "sleef_3.9.0.orig.tar.gz").as_deref(), Some("pool/main/s/sleef"));
        assert_eq!(orig_tarball_directory(showsrc, "sleef_4.0.orig.tar.gz"), None);
    }
}
