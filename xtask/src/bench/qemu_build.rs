//! A qemu-riscv64 (linux-user) that can load TCG plugins, built from Debian's qemu source.
//!
//! The qemu-user package that set-up extracts is linked statically (`static-pie`) and built
//! without plugin support (`qemu: unknown option 'plugin'`), and no Debian package ships a
//! dynamically linked linux-user qemu. So the benchmark harness builds one: the upstream
//! source as carried by Debian (`qemu_*.orig.tar.xz` of the suite [`SOURCE_SUITE`], fetched
//! through a private apt root as `deb-src`), configured for `riscv64-linux-user` only with
//! `--enable-plugins`. Debian's `+ds` tarball drops the bundled meson wheel, so meson and
//! pycotap come from bookworm-backports as packages (extracted, put on `PYTHONPATH`). About
//! 90 s of compiling on 2 cores.
//!
//! Result, under the toolchain directory of the cache layout:
//! ```text
//! qemu-plugins-<N>/bin/qemu-riscv64
//! qemu-plugins-<N>/include/qemu-plugin.h      the plugin API header of that same qemu
//! qemu-plugins-<N>/VERSION                    the Debian source version
//! ```
//! Invariant: the directory is complete once it exists (built in a sibling, then renamed).

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::super::{
    install_packages, recreate_dir, run, say, system_archive_uri, write, write_private_apt_root, Result,
};
use tilec_toolchain::Layout;

pub use tilec_toolchain::QEMU_PLUGINS_DIR;

/// The Debian suite whose qemu source is built (qemu 10.0.x, the line set-up's qemu-user is from).
pub const SOURCE_SUITE: &str = "trixie";

/// Debian packages needed to build qemu (beyond what set-up installs).
const BUILD_PACKAGES: &[&str] =
    &["gcc", "libglib2.0-dev", "pkg-config", "python3", "python3-venv", "ninja-build", "xz-utils"];

/// Python build tools taken from bookworm-backports (bookworm's meson is too old for qemu 10).
const PYTHON_PACKAGES: &[&str] = &["meson/bookworm-backports", "python3-pycotap/bookworm-backports"];

/// What the build provides (besides `bin/qemu-riscv64`, which `tilec_toolchain::Counter`
/// locates).
pub struct PluginQemu {
    pub include_dir: PathBuf,
    pub version: String,
}

fn locate(dir: &Path) -> Option<PluginQemu> {
    let qemu = dir.join("bin/qemu-riscv64");
    let include_dir = dir.join("include");
    let version = fs::read_to_string(dir.join("VERSION")).ok()?.trim().to_string();
    (qemu.is_file() && include_dir.join("qemu-plugin.h").is_file()).then_some(PluginQemu { include_dir, version })
}

/// Returns the plugin-capable qemu, building it first when it is not in the cache.
pub fn ensure(layout: &Layout) -> Result<PluginQemu> {
    let final_dir = layout.plugin_qemu_dir();
    if let Some(found) = locate(&final_dir) {
        return Ok(found);
    }
    install_build_packages()?;
    let staging = final_dir.with_extension("partial");
    recreate_dir(&staging)?;
    let downloads = staging.join("downloads");
    fs::create_dir_all(&downloads).map_err(|e| format!("cannot create {}: {e}", downloads.display()))?;

    let apt_config = write_source_apt_root(&layout.toolchain_dir().join("apt-qemu-source"))?;
    let apt = |args: &[&str]| {
        let mut cmd = Command::new("apt-get");
        cmd.args(args).env("APT_CONFIG", &apt_config).current_dir(&downloads);
        cmd
    };
    run(&mut apt(&["update", "-q"]))?;
    say(format!("downloading the qemu source of {SOURCE_SUITE} and the python build tools"));
    run(&mut apt(&["source", "-q", "--download-only", &format!("qemu/{SOURCE_SUITE}")]))?;
    let mut download = apt(&["download", "-q"]);
    download.args(PYTHON_PACKAGES);
    run(&mut download)?;

    let tarball = find_file(&downloads, |name| name.starts_with("qemu_") && name.ends_with(".orig.tar.xz"))?;
    let version = tarball
        .file_name()
        .and_then(OsStr::to_str)
        .and_then(|n| n.strip_prefix("qemu_"))
        .and_then(|n| n.strip_suffix(".orig.tar.xz"))
        .unwrap_or("unknown")
        .to_string();
    let src_root = staging.join("src");
    fs::create_dir_all(&src_root).map_err(|e| format!("cannot create {}: {e}", src_root.display()))?;
    say(format!("unpacking {}", tarball.display()));
    run(Command::new("tar").arg("-xf").arg(&tarball).arg("-C").arg(&src_root))?;
    let source = find_file(&src_root, |name| name.starts_with("qemu"))?;

    let pyroot = staging.join("pyroot");
    for deb in fs::read_dir(&downloads).map_err(|e| format!("cannot list {}: {e}", downloads.display()))? {
        let deb = deb.map_err(|e| format!("cannot list {}: {e}", downloads.display()))?.path();
        if deb.extension() == Some(OsStr::new("deb")) {
            run(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&pyroot))?;
        }
    }
    let python_path = pyroot.join("usr/lib/python3/dist-packages");

    let build = source.join("build");
    fs::create_dir_all(&build).map_err(|e| format!("cannot create {}: {e}", build.display()))?;
    say("configuring qemu (riscv64-linux-user, plugins enabled)");
    run(Command::new(source.join("configure"))
        .args([
            "--python=/usr/bin/python3",
            "--target-list=riscv64-linux-user",
            "--enable-plugins",
            "--without-default-features",
            "--disable-docs",
            "--disable-tools",
            "--disable-system",
            "--disable-rust",
            "--disable-werror",
            "--disable-install-blobs",
        ])
        .current_dir(&build)
        .env("PYTHONPATH", &python_path)
        .stdout(std::process::Stdio::null()))?;
    say("building qemu-riscv64 (about 90 s on 2 cores)");
    let jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).to_string();
    run(Command::new("ninja")
        .args(["-j", &jobs, "qemu-riscv64"])
        .current_dir(&build)
        .env("PYTHONPATH", &python_path)
        .stdout(std::process::Stdio::null()))?;

    let bin = staging.join("bin");
    let include = staging.join("include");
    for dir in [&bin, &include] {
        fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    copy(&build.join("qemu-riscv64"), &bin.join("qemu-riscv64"))?;
    copy(&source.join("include/qemu/qemu-plugin.h"), &include.join("qemu-plugin.h"))?;
    write(&staging.join("VERSION"), &format!("{version}\n"))?;
    for dir in [&src_root, &pyroot, &downloads] {
        fs::remove_dir_all(dir).map_err(|e| format!("cannot remove {}: {e}", dir.display()))?;
    }
    fs::rename(&staging, &final_dir).map_err(|e| format!("cannot move {} into place: {e}", staging.display()))?;
    say(format!("qemu-riscv64 with plugins: built ({})", final_dir.display()));
    locate(&final_dir).ok_or_else(|| format!("{} is incomplete after the build", final_dir.display()))
}

/// The set-up's private apt root plus a `deb-src` entry for [`SOURCE_SUITE`].
fn write_source_apt_root(root: &Path) -> Result<PathBuf> {
    let apt_config = write_private_apt_root(root)?;
    let uri = system_archive_uri()?;
    write(
        &root.join("sources.list.d/qemu-source.sources"),
        &format!(
            "Types: deb-src\nURIs: {uri}\nSuites: {SOURCE_SUITE}\nComponents: main\nSigned-By: {}\n",
            super::super::DEBIAN_KEYRING
        ),
    )?;
    Ok(apt_config)
}

fn install_build_packages() -> Result<()> {
    install_packages(BUILD_PACKAGES, "building qemu needs").map(|_| ())
}

fn find_file(dir: &Path, matches: impl Fn(&str) -> bool) -> Result<PathBuf> {
    fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .find(|p| p.file_name().and_then(OsStr::to_str).is_some_and(&matches))
        .ok_or_else(|| format!("nothing expected was found in {}", dir.display()))
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    fs::copy(from, to).map(|_| ()).map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))
}
