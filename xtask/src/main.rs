//! Project tasks.
//!
//! `cargo xtask setup`: installs (with apt) the packages the project needs, fetches the static
//! qemu-riscv64 of qemu-user 10 from bookworm-backports through a private apt root (the
//! system's apt state is not touched), cross-compiles the runner, builds SLEEF, and (not on
//! riscv64 hosts) builds the plugin-capable qemu and the instruction-counting plugin that
//! `tilec tune` and `cargo xtask bench` use; all into the cache layout of `tilec-toolchain`
//! (`crates/toolchain`). Idempotent: what is present is not redone.
//!
//! `cargo xtask test`: set-up, then `cargo test --workspace`.
//!
//! `cargo xtask paths`: prints where the toolchain lives.
//!
//! `cargo xtask bench`, `cargo xtask difftest`, `cargo xtask oracle`, `cargo xtask fit-log`:
//! see their modules.
//! Arguments are parsed with clap; `cargo xtask help` and `cargo xtask TASK --help` list them.

mod bench;
mod difftest;
mod fit_log;
mod oracle;
mod sleef;

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::{Parser, Subcommand};

use tilec_toolchain as toolchain;
use tilec_toolchain::{Layout, Toolchain};

/// Where the system's apt sources are read from (only the archive URI is taken from it).
const SYSTEM_SOURCES: &str = "/etc/apt/sources.list.d/debian.sources";
const DEBIAN_KEYRING: &str = "/usr/share/keyrings/debian-archive-keyring.gpg";

type Result<T> = std::result::Result<T, String>;

#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", about = "Project tasks of tilec")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Install what is missing of the toolchain (apt packages, qemu-user 10, the riscv64
    /// runner, SLEEF) into the cache; quick when everything is present.
    Setup,
    /// Set-up, then `cargo test --workspace` with the given cargo test arguments.
    Test {
        /// Passed on to `cargo test` (e.g. `--no-fail-fast`, `-p tilec --test cli`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "CARGO TEST ARGS")]
        cargo_args: Vec<String>,
    },
    /// Print where the toolchain lives.
    Paths,
    /// Count the instructions of the benchmark kernels under qemu and write BENCHMARKS.md.
    Bench(bench::Options),
    /// Run a long batch of generated kernels on every target against the interpreter.
    Difftest(difftest::Options),
    /// The real Triton as the reference (docs/oracle.md).
    Oracle(oracle::Options),
    /// Fit the inline fp32 `log`'s coefficients and measure its error over every fp32.
    FitLog(fit_log::Options),
}

fn main() -> ExitCode {
    let outcome = match Cli::parse().task {
        Task::Setup => setup().map(|_| ()),
        Task::Test { cargo_args } => setup().and_then(|_| run_tests(&cargo_args)),
        Task::Paths => print_paths(),
        Task::Bench(options) => setup().and_then(|_| bench::run(&options)),
        Task::Difftest(options) => setup().and_then(|_| difftest::run(&options)),
        Task::Oracle(options) => oracle::run(&options),
        Task::FitLog(options) => fit_log::run(&options),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn say(message: impl AsRef<str>) {
    eprintln!("xtask: {}", message.as_ref());
}

fn setup() -> Result<Toolchain> {
    let layout = Layout::from_env()?;
    install_apt_packages()?;
    if !toolchain::host_is_riscv64() {
        fetch_qemu(&layout)?;
    }
    build_runner(&layout)?;
    sleef::build(&layout)?;
    if !toolchain::host_is_riscv64() {
        // `tilec tune` counts instructions under qemu with the benchmarks' plugin.
        let counter = bench::ensure_counter(&layout)?;
        say(format!("counting:     {} with {}", counter.qemu.display(), counter.plugin.display()));
    }
    let found = Toolchain::locate(&layout)?;
    describe(&found);
    Ok(found)
}

fn print_paths() -> Result<()> {
    let layout = Layout::from_env()?;
    describe(&Toolchain::locate(&layout)?);
    Ok(())
}

fn describe(found: &Toolchain) {
    match &found.qemu {
        Some(qemu) => say(format!("qemu-riscv64: {}", qemu.display())),
        None => say("qemu-riscv64: not needed (riscv64 host, kernels run natively)"),
    }
    say(format!("runner:       {}", found.runner.display()));
    say(format!("sysroot:      {}", found.sysroot.display()));
}

fn run_tests(cargo_args: &[String]) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["test", "--workspace"]).args(cargo_args);
    say(format!("running {}", show(&cmd)));
    run(&mut cmd)
}

// ---- apt packages ----

fn is_installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .map(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        .unwrap_or(false)
}

fn has_candidate(package: &str) -> bool {
    Command::new("apt-cache")
        .args(["policy", package])
        .output()
        .map(|o| {
            let text = String::from_utf8_lossy(&o.stdout);
            text.lines().any(|l| l.trim().starts_with("Candidate:") && !l.contains("(none)"))
        })
        .unwrap_or(false)
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false)
}

fn install_apt_packages() -> Result<()> {
    if !install_packages(toolchain::APT_PACKAGES, "tilec needs")? {
        say("apt packages: all present");
    }
    Ok(())
}

/// Installs those of `packages` that are missing (`false`: none was); `purpose` starts the
/// error when not root. Package lists are refreshed first when they do not know a missing
/// package, and once more when the install fails on them: lists older than the installed
/// libraries offer `-dev` packages that depend on versions no longer installable.
fn install_packages(packages: &[&str], purpose: &str) -> Result<bool> {
    let missing: Vec<&str> = packages.iter().copied().filter(|p| !is_installed(p)).collect();
    if missing.is_empty() {
        return Ok(false);
    }
    let list = missing.join(" ");
    if !is_root() {
        return Err(format!("{purpose} these Debian packages: {list}\n  install them as root: apt-get install {list}"));
    }
    let update = || run(Command::new("apt-get").args(["update", "-q"]));
    let mut updated = false;
    if missing.iter().any(|p| !has_candidate(p)) {
        say("apt-get update (package lists do not know all of the missing packages)");
        update()?;
        updated = true;
    }
    let install = || {
        say(format!("apt-get install {list}"));
        run(Command::new("apt-get")
            .args(["install", "-y", "-q", "--no-install-recommends"])
            .args(&missing)
            .env("DEBIAN_FRONTEND", "noninteractive"))
    };
    match install() {
        Err(e) if updated => Err(e),
        Err(_) => {
            say("apt-get update (the install failed on the current package lists), then once more");
            update()?;
            install()
        }
        Ok(()) => Ok(()),
    }?;
    Ok(true)
}

// ---- qemu-user from bookworm-backports ----

fn fetch_qemu(layout: &Layout) -> Result<()> {
    let qemu = layout.qemu_riscv64();
    if qemu.is_file() {
        say(format!("qemu-riscv64: present ({})", qemu.display()));
        return check_qemu_version(&qemu);
    }
    say(format!("fetching {}/{} through a private apt root", toolchain::QEMU_PACKAGE, toolchain::QEMU_SUITE));
    let apt_config = write_private_apt_root(&layout.apt_root())?;
    let apt = |args: &[&str]| {
        let mut cmd = Command::new("apt-get");
        cmd.args(args).env("APT_CONFIG", &apt_config);
        cmd
    };
    run(&mut apt(&["update", "-q"]))?;

    let downloads = layout.apt_root().join("downloads");
    recreate_dir(&downloads)?;
    let package = format!("{}/{}", toolchain::QEMU_PACKAGE, toolchain::QEMU_SUITE);
    run(apt(&["download", "-q", &package]).current_dir(&downloads))?;
    let deb = fs::read_dir(&downloads)
        .map_err(|e| format!("cannot list {}: {e}", downloads.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .find(|p| p.extension() == Some(OsStr::new("deb")))
        .ok_or_else(|| format!("apt-get download left no .deb in {}", downloads.display()))?;

    let final_dir = layout.qemu_dir();
    let staging = final_dir.with_extension("partial");
    recreate_dir(&staging)?;
    say(format!("extracting {}", deb.display()));
    run(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&staging))?;
    let extracted = staging.join("usr/bin/qemu-riscv64");
    if !extracted.is_file() {
        return Err(format!("{} holds no usr/bin/qemu-riscv64", deb.display()));
    }
    check_qemu_version(&extracted)?;
    fs::rename(&staging, &final_dir).map_err(|e| format!("cannot move {} into place: {e}", staging.display()))?;
    let _ = fs::remove_dir_all(&downloads);
    say(format!("qemu-riscv64: installed ({})", qemu.display()));
    Ok(())
}

fn check_qemu_version(qemu: &Path) -> Result<()> {
    let out =
        Command::new(qemu).arg("--version").output().map_err(|e| format!("cannot run {}: {e}", qemu.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let major =
        text.split("version ").nth(1).and_then(|v| v.split('.').next()).and_then(|m| m.trim().parse::<u32>().ok());
    match major {
        Some(m) if m >= toolchain::QEMU_MIN_MAJOR => Ok(()),
        _ => Err(format!(
            "{} reports `{}`; qemu {} or newer is needed",
            qemu.display(),
            text.lines().next().unwrap_or("").trim(),
            toolchain::QEMU_MIN_MAJOR
        )),
    }
}

/// Writes the private apt root and returns the path of its `apt.conf`.
fn write_private_apt_root(root: &Path) -> Result<PathBuf> {
    let uri = system_archive_uri()?;
    for dir in ["state/lists/partial", "cache/archives/partial", "sources.list.d", "preferences.d"] {
        fs::create_dir_all(root.join(dir)).map_err(|e| format!("cannot create {}: {e}", root.join(dir).display()))?;
    }
    let arch = command_stdout(Command::new("dpkg").arg("--print-architecture"))?;
    let p = |rel: &str| root.join(rel).display().to_string();
    let mut conf = format!(
        "Dir::State \"{}\";\nDir::State::status \"{}\";\nDir::Cache \"{}\";\n\
         Dir::Etc::SourceList \"{}\";\nDir::Etc::SourceParts \"{}\";\n\
         Dir::Etc::Preferences \"{}\";\nDir::Etc::PreferencesParts \"{}\";\n\
         APT::Architecture \"{}\";\nAPT::Architectures {{ \"{}\"; }};\n",
        p("state"),
        p("state/status"),
        p("cache"),
        p("sources.list"),
        p("sources.list.d"),
        p("preferences"),
        p("preferences.d"),
        arch.trim(),
        arch.trim(),
    );
    if is_root() {
        // apt drops to the `_apt` user for downloads, which cannot write into our folders.
        conf.push_str("APT::Sandbox::User \"root\";\n");
    }
    let sources = format!(
        "Types: deb\nURIs: {uri}\nSuites: {}\nComponents: main\nSigned-By: {DEBIAN_KEYRING}\n",
        toolchain::QEMU_SUITE
    );
    write(&root.join("state/status"), "")?;
    write(&root.join("sources.list"), "")?;
    write(&root.join("preferences"), "")?;
    write(&root.join("sources.list.d/backports.sources"), &sources)?;
    let conf_path = root.join("apt.conf");
    write(&conf_path, &conf)?;
    Ok(conf_path)
}

/// The main archive's URI from the system's deb822 sources: the `URIs:` of the stanza whose
/// suites include `bookworm` itself.
fn system_archive_uri() -> Result<String> {
    let text = fs::read_to_string(SYSTEM_SOURCES)
        .map_err(|e| format!("cannot read {SYSTEM_SOURCES} (needed for the archive address): {e}"))?;
    for stanza in text.split("\n\n") {
        let field = |name: &str| stanza.lines().find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()));
        let suites = field("Suites:").unwrap_or_default();
        if let Some(uris) = field("URIs:") {
            if suites.split_whitespace().any(|s| s == "bookworm") {
                if let Some(first) = uris.split_whitespace().next() {
                    return Ok(first.to_string());
                }
            }
        }
    }
    Err(format!("{SYSTEM_SOURCES} has no stanza for the suite `bookworm` with a `URIs:` line"))
}

// ---- the runner ----

fn build_runner(layout: &Layout) -> Result<()> {
    let runner = layout.runner();
    if runner.is_file() {
        say(format!("runner: present ({})", runner.display()));
        return Ok(());
    }
    let final_dir = layout.runner_dir();
    let staging = final_dir.with_extension("partial");
    recreate_dir(&staging)?;
    let source = staging.join("runner.c");
    write(&source, toolchain::RUNNER_SOURCE)?;
    let mut cc = Command::new(toolchain::runner_compiler());
    cc.args(toolchain::RUNNER_CFLAGS).arg("-o").arg(staging.join("runner")).arg(&source).args(toolchain::RUNNER_LIBS);
    say(format!("building the runner: {}", show(&cc)));
    run(&mut cc)?;
    fs::rename(&staging, &final_dir).map_err(|e| format!("cannot move {} into place: {e}", staging.display()))?;
    say(format!("runner: built ({})", runner.display()));
    Ok(())
}

// ---- helpers ----

fn show(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

fn run(cmd: &mut Command) -> Result<()> {
    let status = cmd.status().map_err(|e| format!("cannot start `{}`: {e}", show(cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed ({status})", show(cmd)))
    }
}

fn command_stdout(cmd: &mut Command) -> Result<String> {
    let out = cmd.output().map_err(|e| format!("cannot start `{}`: {e}", show(cmd)))?;
    if !out.status.success() {
        return Err(format!("`{}` failed ({})", show(cmd), out.status));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn recreate_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        fs::remove_dir_all(dir).map_err(|e| format!("cannot remove {}: {e}", dir.display()))?;
    }
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

fn write(path: &Path, contents: &str) -> Result<()> {
    fs::write(path, contents).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap's own consistency checks of every task and option (unique names and groups,
    /// valid defaults), which otherwise fail only when that task's arguments are parsed.
    #[test]
    fn every_task_has_consistent_arguments() {
        super::Cli::command().debug_assert();
    }

    /// `--help` of every task and sub-task renders.
    #[test]
    fn every_task_has_help() {
        let mut cli = super::Cli::command();
        let mut paths = vec![Vec::new()];
        for task in cli.get_subcommands() {
            let name = task.get_name().to_string();
            paths.push(vec![name.clone()]);
            paths.extend(task.get_subcommands().map(|sub| vec![name.clone(), sub.get_name().to_string()]));
        }
        for path in paths {
            let mut command = cli.clone();
            let mut args = vec!["cargo xtask".to_string()];
            args.extend(path.iter().cloned());
            args.push("--help".to_string());
            let error = command.try_get_matches_from_mut(&args).err().unwrap_or_else(|| panic!("{args:?} parsed"));
            assert_eq!(error.kind(), clap::error::ErrorKind::DisplayHelp, "{args:?}: {error}");
            assert!(error.to_string().contains("Usage: cargo xtask"), "{args:?}: {error}");
        }
        cli.build();
    }
}
