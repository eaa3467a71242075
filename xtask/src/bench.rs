//! `cargo xtask bench`: deterministic instruction counts of the benchmark kernels under qemu,
//! tilec next to clang-19's auto-vectorized C, written to `BENCHMARKS.md`; with the code
//! size (`.text` bytes) of every shared object and of the kernels of `bench/code_size.tsv`
//! ([`code_size`]).
//!
//! Steps: build (once, cached) a qemu-riscv64 that loads plugins ([`qemu_build`]) and the
//! `insn_count` plugin (`bench/plugin/insn_count.c`, [`ensure_counter`]); build the release
//! `tilec`; for every benchmark of [`suite::all`] compile the Triton kernel with tilec
//! (riscv64gcv, riscv64gc) and the C reference with clang-19 (rv64gcv, rv64gc; for the math
//! kernels also the C variant calling SLEEF, linked with set-up's `libsleef.a`), run each at
//! every VLEN under qemu with the plugin, and compare with the lower-bound model of
//! `bench/README.md` and the issue targets. A kernel that tilec cannot compile or run is
//! reported as such in the table.
//!
//! Options: `--only TEXT` (benchmarks whose name contains TEXT), `--vlen 128,256,512`,
//! `--repeat N` (run every measurement N times and fail unless the counts agree),
//! `--no-write` (print the report instead of writing `BENCHMARKS.md`), `--tilec PATH` (use
//! this tilec binary instead of building the release one), `--compile-runs N` (compile
//! every configuration N times for the compile-time table, default 15), `--compile-time-only`
//! (no qemu runs and no code sizes: only the compile-time table, which replaces that section
//! of `BENCHMARKS.md`).
//!
//! Concurrent invocations are serialized by a lock on `target/bench/lock`: they share the
//! working files under `target/bench/`.

mod code_size;
mod measure;
mod qemu_build;
mod report;
mod selfcheck;
mod suite;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{run as run_command, say, Result};
use measure::{BenchDir, Tools};
use tilec_toolchain::{Layout, Toolchain};

/// Options of `cargo xtask bench`.
#[derive(clap::Args)]
pub struct Options {
    /// Only the benchmarks whose name contains TEXT.
    #[arg(long, value_name = "TEXT")]
    only: Option<String>,
    /// Vector lengths to measure at (powers of two from 128 to 1024).
    #[arg(long = "vlen", value_name = "LIST", value_delimiter = ',', default_value = "128,256,512", value_parser = parse_vlen)]
    vlens: Vec<u32>,
    /// Run every measurement N times and fail unless the counts agree.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Print the report instead of writing BENCHMARKS.md.
    #[arg(long)]
    no_write: bool,
    /// Use this tilec binary instead of building the release one.
    #[arg(long, value_name = "PATH")]
    tilec: Option<PathBuf>,
    /// Compile every configuration N times for the compile-time table (the median is shown; a
    /// tilec compile takes a few milliseconds, so a few runs leave the median to the machine).
    #[arg(long, value_name = "N", default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..))]
    compile_runs: u32,
    /// Measure only the compile times: no qemu runs, no code sizes; the compile-time section
    /// of BENCHMARKS.md is replaced (printed with --no-write).
    #[arg(long)]
    compile_time_only: bool,
}

fn parse_vlen(text: &str) -> Result<u32> {
    match text.trim().parse::<u32>() {
        Ok(n) if n.is_power_of_two() && (128..=1024).contains(&n) => Ok(n),
        _ => Err(format!("`{text}` is not a power of two in 128..1024")),
    }
}

/// Entry point of `cargo xtask bench [OPTIONS]`.
pub fn run(options: &Options) -> Result<()> {
    let workspace = workspace_root();
    let layout = Layout::from_env()?;
    let toolchain = Toolchain::locate(&layout)?;
    let bench_root = target_dir(&workspace).join("bench");
    fs::create_dir_all(&bench_root).map_err(|e| format!("cannot create {}: {e}", bench_root.display()))?;
    let lock_path = bench_root.join("lock");
    let lock = fs::File::create(&lock_path).map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
    lock.lock().map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    if options.compile_time_only {
        return compile_time_only(options, &workspace, &toolchain, &layout, &bench_root);
    }
    let plugin_qemu = qemu_build::ensure(&layout)?;
    let counter = ensure_counter(&layout)?;
    let tools = Tools {
        tilec: match &options.tilec {
            Some(path) if path.is_file() => Ok(path.clone()),
            Some(path) => Err(format!("--tilec: {} is not a file", path.display())),
            None => build_tilec(&workspace),
        },
        workspace: workspace.clone(),
        qemu: counter.qemu,
        plugin: counter.plugin,
        runner: toolchain.runner.clone(),
        sysroot: toolchain.sysroot.clone(),
        sleef: layout.sleef_dir(),
    };
    selfcheck::run(&tools, &bench_root)?;
    say("plugin self-check: ok");

    let selected = |name: &str| options.only.as_deref().is_none_or(|only| name.contains(only));
    let benchmarks: Vec<_> = suite::all().into_iter().filter(|b| selected(b.name)).collect();
    let size_cases: Vec<_> = code_size::cases()?.into_iter().filter(|c| selected(&c.name)).collect();
    if benchmarks.is_empty() && size_cases.is_empty() {
        return Err("no benchmark matches --only".to_string());
    }
    let mut results = Vec::new();
    let mut dirs = Vec::new();
    for bench in &benchmarks {
        say(format!("benchmark: {}", bench.name));
        let dir = BenchDir::create(&bench_root, bench)?;
        let mut result = report::BenchResult {
            bench: bench.clone(),
            builds: Vec::new(),
            runs: Vec::new(),
            compile_times: Vec::new(),
        };
        for config in bench.configs() {
            let build = measure::build(&tools, bench, &dir, config);
            if let Err(e) = &build.library {
                say(format!("  {}: not built: {e}", config.label()));
            }
            for (i, &vlen) in options.vlens.iter().enumerate() {
                let Ok(library) = &build.library else { continue };
                if i > 0 && !config.is_vector() {
                    // Scalar code counts the same at every VLEN: measured once.
                    let first = result.runs.iter().find(|(c, _, _)| *c == config).map(|(_, _, run)| run.clone());
                    if let Some(run) = first {
                        result.runs.push((config, vlen, run));
                    }
                    continue;
                }
                let run = measure::run(&tools, bench, &dir, config, library, vlen);
                for attempt in 1..options.repeat {
                    let again = measure::run(&tools, bench, &dir, config, library, vlen);
                    if again.counts != run.counts {
                        return Err(format!(
                            "{} / {} / VLEN {vlen}: counts differ between runs 1 and {}:\n  {:?}\n  {:?}",
                            bench.name,
                            config.label(),
                            attempt + 1,
                            run.counts,
                            again.counts
                        ));
                    }
                }
                match &run.counts {
                    Ok(c) => say(format!("  {} VLEN {vlen}: {c}", config.label())),
                    Err(e) => say(format!("  {} VLEN {vlen}: {e}", config.label())),
                }
                result.runs.push((config, vlen, run));
            }
            result.builds.push((config, build));
        }
        results.push(result);
        dirs.push(dir);
    }
    say("compile times");
    let timed: Vec<_> =
        results.iter().zip(&dirs).map(|(result, dir)| (&result.bench, dir, timed_configs(&result.builds))).collect();
    let times = measure::compile_times(&tools, &timed, options.compile_runs);
    for (result, times) in results.iter_mut().zip(times) {
        result.compile_times = times;
    }

    let mut code_sizes = Vec::new();
    if let Ok(tilec) = &tools.tilec {
        let dir = bench_root.join("code-size");
        fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        for (i, case) in size_cases.iter().enumerate() {
            let measured = code_size::measure(tilec, &workspace, &dir, case, i);
            say(format!("code size: {}: {:?}", case.name, measured.text));
            code_sizes.push(measured);
        }
    }

    let context = report::Context {
        compile_runs: options.compile_runs,
        qemu_version: plugin_qemu.version.clone(),
        vlens: options.vlens.clone(),
        command: std::iter::once("cargo xtask".to_string())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" "),
        tilec_error: tools.tilec.as_ref().err().cloned(),
        timed_tilec: tools.tilec.as_deref().map(report::timed_tilec).unwrap_or_default(),
    };
    let text = report::markdown(&context, &results, &code_sizes);
    let counts = report::counts_tsv(&results, &code_sizes);
    let counts_path = bench_root.join("counts.tsv");
    fs::write(&counts_path, counts).map_err(|e| format!("cannot write {}: {e}", counts_path.display()))?;
    say(format!("counts: {}", counts_path.display()));
    if !options.no_write {
        let path = workspace.join("BENCHMARKS.md");
        fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        say(format!("wrote {}", path.display()));
    } else {
        print!("{text}");
    }
    Ok(())
}

/// The configurations of `builds` that built and have a column in the compile-time table.
fn timed_configs(builds: &[(measure::Config, measure::Build)]) -> Vec<measure::Config> {
    builds
        .iter()
        .filter(|(c, b)| b.library.is_ok() && report::COMPILE_TIME_COLUMNS.contains(c))
        .map(|(c, _)| *c)
        .collect()
}

/// `cargo xtask bench --compile-time-only`: every configuration of the selected benchmarks
/// built once (it must build), then timed; the compile-time section of `BENCHMARKS.md` is
/// replaced by the new table.
fn compile_time_only(
    options: &Options,
    workspace: &Path,
    toolchain: &Toolchain,
    layout: &Layout,
    bench_root: &Path,
) -> Result<()> {
    let tools = Tools {
        tilec: match &options.tilec {
            Some(path) if path.is_file() => Ok(path.clone()),
            Some(path) => Err(format!("--tilec: {} is not a file", path.display())),
            None => build_tilec(workspace),
        },
        workspace: workspace.to_path_buf(),
        qemu: PathBuf::new(),
        plugin: PathBuf::new(),
        runner: toolchain.runner.clone(),
        sysroot: toolchain.sysroot.clone(),
        sleef: layout.sleef_dir(),
    };
    let selected = |name: &str| options.only.as_deref().is_none_or(|only| name.contains(only));
    let benchmarks: Vec<_> = suite::all().into_iter().filter(|b| selected(b.name)).collect();
    if benchmarks.is_empty() {
        return Err("no benchmark matches --only".to_string());
    }
    let mut results = Vec::new();
    let mut dirs = Vec::new();
    for bench in &benchmarks {
        say(format!("benchmark: {}", bench.name));
        let dir = BenchDir::create(bench_root, bench)?;
        let builds: Vec<_> = bench.configs().into_iter().map(|c| (c, measure::build(&tools, bench, &dir, c))).collect();
        for (config, build) in &builds {
            if let Err(e) = &build.library {
                say(format!("  {}: not built: {e}", config.label()));
            }
        }
        results.push(report::BenchResult { bench: bench.clone(), builds, runs: Vec::new(), compile_times: Vec::new() });
        dirs.push(dir);
    }
    let timed: Vec<_> =
        results.iter().zip(&dirs).map(|(result, dir)| (&result.bench, dir, timed_configs(&result.builds))).collect();
    let times = measure::compile_times(&tools, &timed, options.compile_runs);
    for (result, times) in results.iter_mut().zip(times) {
        say(format!("compile times: {}", result.bench.name));
        for (config, times) in &times {
            if let Ok(times) = times {
                let ms: Vec<String> = times.iter().map(|t| format!("{:.1}", t.as_secs_f64() * 1000.0)).collect();
                say(format!("  {}: {} ms", config.label(), ms.join(" ")));
            }
        }
        result.compile_times = times;
    }
    let timed_tilec = tools.tilec.as_deref().map(report::timed_tilec).unwrap_or_default();
    let section = report::compile_time_section(&results, options.compile_runs, &timed_tilec);
    if options.no_write {
        print!("{section}");
        return Ok(());
    }
    let path = workspace.join("BENCHMARKS.md");
    let text = fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let updated = report::replace_compile_time_section(&text, &section)
        .ok_or_else(|| format!("{} has no `## Compile time` section to replace", path.display()))?;
    fs::write(&path, updated).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    say(format!("wrote the compile-time section of {}", path.display()));
    Ok(())
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."))
}

fn target_dir(workspace: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| workspace.join("target"))
}

/// The plugin source, relative to the workspace root.
pub const PLUGIN_SOURCE: &str = "bench/plugin/insn_count.c";

/// The counting tools in the cache (`tilec_toolchain::Counter`): the plugin-capable qemu
/// (built once, [`qemu_build`]) and the `insn_count` plugin built with the host gcc against
/// that qemu's plugin header, into a directory named after the plugin source's hash (built
/// in a sibling, then renamed). Quick when both are present.
pub fn ensure_counter(layout: &Layout) -> Result<tilec_toolchain::Counter> {
    let plugin_qemu = qemu_build::ensure(layout)?;
    let dir = layout.insn_count_dir();
    if !dir.join("insn_count.so").is_file() {
        let staging = dir.with_extension("partial");
        super::recreate_dir(&staging)?;
        build_plugin(&plugin_qemu.include_dir, &staging.join("insn_count.so"))?;
        fs::rename(&staging, &dir).map_err(|e| format!("cannot rename {} into place: {e}", staging.display()))?;
    }
    tilec_toolchain::Counter::locate(layout)
}

/// Builds the plugin into `output` with the host gcc against the plugin header of the qemu
/// that loads it.
fn build_plugin(include_dir: &Path, output: &Path) -> Result<()> {
    let glib = Command::new("pkg-config")
        .args(["--cflags", "glib-2.0"])
        .output()
        .map_err(|e| format!("cannot run pkg-config: {e}"))?;
    if !glib.status.success() {
        return Err("pkg-config knows no glib-2.0 (the Debian package libglib2.0-dev is needed)".to_string());
    }
    let glib_flags = String::from_utf8_lossy(&glib.stdout).split_whitespace().map(str::to_string).collect::<Vec<_>>();
    let source = output.with_file_name("insn_count.c");
    fs::write(&source, tilec_toolchain::INSN_COUNT_SOURCE)
        .map_err(|e| format!("cannot write {}: {e}", source.display()))?;
    run_command(
        Command::new("gcc")
            .args(["-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror"])
            .args(&glib_flags)
            .arg("-I")
            .arg(include_dir)
            .arg("-o")
            .arg(output)
            .arg(&source),
    )
}

/// Builds the release `tilec`; an error message instead when it does not build.
fn build_tilec(workspace: &Path) -> std::result::Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    say("building the release tilec");
    let status = Command::new(cargo)
        .args(["build", "--release", "-q", "-p", "tilec", "--bin", "tilec"])
        .current_dir(workspace)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("the release tilec did not build ({status})"));
    }
    Ok(target_dir(workspace).join("release").join("tilec"))
}
