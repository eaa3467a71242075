//! `BENCHMARKS.md` and the machine-readable `counts.tsv` from the measurements.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use super::code_size::{self, Measured};
use super::measure::{
    compare_outputs, qemu_cpu, Build, Config, Run, CLANG_FLAGS, LIBM, LINKER, SLEEF_ARCHIVE, SLEEF_INCLUDE,
    SLEEF_LINK_FLAGS,
};
use super::qemu_build::QEMU_PLUGINS_DIR;
use super::suite::{group_digits, Benchmark, Elem, Target, Tolerance, BOUND_TARGET};
use super::PLUGIN_SOURCE;
use crate::sleef::VERSION as SLEEF_VERSION;
use tilec_toolchain::SLEEF_DIR;

/// Everything measured for one benchmark.
pub struct BenchResult {
    pub bench: Benchmark,
    pub builds: Vec<(Config, Build)>,
    pub runs: Vec<(Config, u32, Run)>,
    /// Wall times of compiling to a `.so`, per configuration ([`super::measure::compile_times`]).
    pub compile_times: Vec<(Config, Result<Vec<Duration>, String>)>,
}

impl BenchResult {
    fn build(&self, config: Config) -> Option<&Build> {
        self.builds.iter().find(|(c, _)| *c == config).map(|(_, b)| b)
    }

    fn run(&self, config: Config, vlen: u32) -> Option<&Run> {
        self.runs.iter().find(|(c, v, _)| *c == config && *v == vlen).map(|(_, _, r)| r)
    }

    /// The outputs every run is checked against: clang-19's scalar build at the same VLEN.
    fn reference(&self, vlen: u32) -> Option<&Run> {
        self.run(Config::ClangScalar, vlen).filter(|r| r.counts.is_ok())
    }

    /// How the outputs of `run` differ from the reference's at `vlen` (`None`: they match).
    fn output_difference(&self, run: &Run, vlen: u32) -> Option<String> {
        let Some(reference) = self.reference(vlen) else { return Some("no reference".to_string()) };
        let elems: Vec<Elem> = self.bench.outputs().into_iter().map(|(_, elem)| elem).collect();
        compare_outputs(&run.outputs, &reference.outputs, &elems, self.bench.tolerance)
    }

    /// Whether the outputs of `config` at `vlen` match the reference's.
    fn output_matches(&self, config: Config, vlen: u32) -> bool {
        self.run(config, vlen).is_some_and(|run| self.output_difference(run, vlen).is_none())
    }

    /// Why there is no count for `config` at `vlen`.
    fn failure(&self, config: Config, vlen: u32) -> String {
        match (self.build(config).map(|b| &b.library), self.run(config, vlen)) {
            (Some(Err(e)), _) => format!("not compiled: {e}"),
            (_, Some(Run { counts: Err(e), .. })) => format!("run failed: {e}"),
            _ => "not measured".to_string(),
        }
    }

    /// The measured value and PASS / FAIL for `target` (tilec riscv64gcv at the target's VLEN).
    fn target_verdict(&self, target: Target) -> (String, &'static str) {
        let vlen = target.vlen();
        match self.run(Config::TilecVector, vlen).map(|r| &r.counts) {
            Some(Ok(c)) => {
                let bound = self.bench.bound.at(vlen);
                let measured = match target {
                    Target::Ratio { .. } => format!("{}× bound", ratio(c.total, bound)),
                    Target::Count { .. } => group_digits(c.total),
                };
                (measured, if target.passes(c.total, bound) { "PASS" } else { "FAIL" })
            }
            _ => (cell(&self.failure(Config::TilecVector, vlen)), "FAIL"),
        }
    }
}

/// What the report says about how it was made.
pub struct Context {
    /// Runs per configuration in the compile-time table.
    pub compile_runs: u32,
    pub qemu_version: String,
    pub vlens: Vec<u32>,
    /// The command line that made the report.
    pub command: String,
    pub tilec_error: Option<String>,
    /// Which `tilec` the compile-time table timed ([`timed_tilec`]).
    pub timed_tilec: String,
}

/// How the compile-time table names the `tilec` it timed: the release build (the harness's
/// own, or `--tilec` naming a `release` directory's), else the path given, flagged as not
/// comparable (a debug build compiles several times slower).
pub fn timed_tilec(tilec: &Path) -> String {
    let release = tilec.parent().and_then(|d| d.file_name()).is_some_and(|d| d == "release");
    if release {
        "the release `tilec compile`".to_string()
    } else {
        format!("`{} compile` (not a release build: not comparable with release figures)", tilec.display())
    }
}

fn cell(text: &str) -> String {
    let one_line: String = text.replace('|', "\\|").replace('\n', " ");
    if one_line.chars().count() > 110 {
        format!("{}…", one_line.chars().take(110).collect::<String>())
    } else {
        one_line
    }
}

fn ratio(count: u64, bound: u64) -> String {
    format!("{:.2}", count as f64 / bound as f64)
}

/// A `.text` size in bytes, or why there is none.
fn text_cell(text: &Result<u64, String>) -> String {
    match text {
        Ok(bytes) => group_digits(*bytes),
        Err(e) => cell(e),
    }
}

/// The target of every benchmark ([`BOUND_TARGET`]): tilec riscv64gcv's instructions and
/// LMUL-weighted count over the two bounds at each of its VLENs.
fn bound_target_table(md: &mut String, results: &[BenchResult]) {
    let t = &BOUND_TARGET;
    let vlens = t.vlens.map(|v| v.to_string()).join(", ");
    let _ = writeln!(md, "## Targets\n");
    let _ = writeln!(
        md,
        "Every benchmark, tilec riscv64gcv at VLEN {vlens}: at most {}× the instruction bound and {}× \
         the LMUL-weighted bound of its model (issue 18). Cells: instructions over the instruction \
         bound, LMUL-weighted count over the weighted bound.\n",
        t.max_instructions, t.max_weighted
    );
    let mut header = vec!["benchmark".to_string()];
    for vlen in t.vlens {
        header.extend([format!("{vlen}: × bound"), format!("{vlen}: × weighted")]);
    }
    header.push("verdict".to_string());
    let _ = writeln!(md, "| {} |", header.join(" | "));
    let _ = writeln!(md, "|---|{}---|", "---:|".repeat(header.len() - 2));
    for r in results {
        let mut cells = vec![r.bench.name.to_string()];
        let mut pass = true;
        for vlen in t.vlens {
            match r.run(Config::TilecVector, vlen).map(|run| &run.counts) {
                Some(Ok(c)) => {
                    let (bound, weighted_bound) = (r.bench.bound.at(vlen), r.bench.bound.weighted_at(vlen));
                    let weighted = c.lmul_weighted_total();
                    pass &= c.total as f64 <= t.max_instructions * bound as f64
                        && weighted as f64 <= t.max_weighted * weighted_bound as f64
                        && r.output_matches(Config::TilecVector, vlen);
                    cells.extend([ratio(c.total, bound), ratio(weighted, weighted_bound)]);
                }
                _ => {
                    pass = false;
                    cells.extend([cell(&r.failure(Config::TilecVector, vlen)), String::new()]);
                }
            }
        }
        cells.push(if pass { "PASS" } else { "FAIL" }.to_string());
        let _ = writeln!(md, "| {} |", cells.join(" | "));
    }
}

/// The largest ratio of tilec riscv64gc's instructions to clang-19 -O3 rv64gc's the scalar
/// target allows on each benchmark.
const SCALAR_TARGET: f64 = 0.8;

/// tilec riscv64gc against clang-19 rv64gc, instructions per launch (scalar code runs the same
/// at every VLEN: the first measured one is shown).
fn scalar_table(md: &mut String, context: &Context, results: &[BenchResult]) {
    let Some(&vlen) = context.vlens.first() else { return };
    let _ = writeln!(md, "\n## Scalar code against clang\n");
    let _ = writeln!(
        md,
        "Instructions of the launch on a core without RVV: tilec riscv64gc against clang-19 -O3 \
         -march=rv64gc on the benchmark's C reference (target: at most {SCALAR_TARGET}× clang's, outputs \
         matching).\n"
    );
    let _ = writeln!(md, "| benchmark | tilec riscv64gc | clang-19 rv64gc | tilec / clang | verdict |");
    let _ = writeln!(md, "|---|---:|---:|---:|---|");
    for r in results {
        let count = |config| match r.run(config, vlen).map(|run| &run.counts) {
            Some(Ok(c)) => Ok(c.total),
            _ => Err(r.failure(config, vlen)),
        };
        let matches = r.output_matches(Config::TilecScalar, vlen);
        let row = match (count(Config::TilecScalar), count(Config::ClangScalar)) {
            (Ok(t), Ok(c)) => {
                let q = t as f64 / c as f64;
                let verdict = if q <= SCALAR_TARGET && matches { "PASS" } else { "FAIL" };
                format!("{} | {} | {:.2} | {verdict}", group_digits(t), group_digits(c), q)
            }
            (t, c) => {
                let text = |x: Result<u64, String>| x.map_or_else(|e| cell(&e), group_digits);
                format!("{} | {} | | FAIL", text(t), text(c))
            }
        };
        let _ = writeln!(md, "| {} | {row} |", r.bench.name);
    }
}

/// The Markdown report.
pub fn markdown(context: &Context, results: &[BenchResult], code_sizes: &[Measured]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Benchmarks\n");
    let _ = writeln!(
        md,
        "Dynamic instruction counts of the kernel launch (the runner's grid loop, between its two \
         marker hints), counted by the qemu plugin `{PLUGIN_SOURCE}`; the lower-bound models are \
         in [`bench/README.md`](bench/README.md). Counts are deterministic: the same command gives \
         the same counts (checked with `--repeat 2`). Generated by `cargo xtask bench`; do not edit.\n"
    );
    if let Some(e) = &context.tilec_error {
        let _ = writeln!(md, "**tilec was not built**: {}\n", cell(e));
    }

    bound_target_table(&mut md, results);

    let _ = writeln!(md, "\n### Targets of earlier issues\n");
    let _ = writeln!(md, "| benchmark | target (tilec riscv64gcv, instructions) | measured | verdict |");
    let _ = writeln!(md, "|---|---|---:|---|");
    for r in results {
        for &t in r.bench.targets {
            let (measured, verdict) = r.target_verdict(t);
            let _ =
                writeln!(md, "| {} | {} at VLEN {} | {measured} | {verdict} |", r.bench.name, t.describe(), t.vlen());
        }
    }

    scalar_table(&mut md, context, results);

    if !code_sizes.is_empty() {
        let _ = writeln!(md, "\n## Code size\n");
        let _ = writeln!(
            md,
            "`.text` bytes of each kernel's shared object (the kernel, its entry points, its RVV leaf \
             functions and the SLEEF functions it links), beside the budgets of [`{}`]({}) that \
             `tests/code_size.rs` enforces. The benchmark kernels come first; the tutorial rows are \
             the kernels of Triton's tutorials that tilec compiles, as the tutorials launch them, \
             each within {} KiB on riscv64gcv (about a core's first-level instruction cache).\n",
            code_size::BUDGETS,
            code_size::BUDGETS,
            code_size::TUTORIAL_LIMIT / 1024
        );
        let _ = writeln!(md, "| kernel | tilec riscv64gcv | budget | tilec riscv64gc | budget | verdict |");
        let _ = writeln!(md, "|---|---:|---:|---:|---:|---|");
        for m in code_sizes {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                m.case.name,
                text_cell(&m.text[0]),
                group_digits(m.case.budgets[0]),
                text_cell(&m.text[1]),
                group_digits(m.case.budgets[1]),
                if m.fits() { "PASS" } else { "FAIL" }
            );
        }
    }

    let _ = writeln!(md, "\n## Dynamic instructions\n");
    let _ = writeln!(
        md,
        "Columns: *.text*: bytes of code in the configuration's shared object; *instructions* \
         executed in the launch and their ratio to the instruction bound; \
         *LMUL-weighted*: scalar and vset instructions count 1, vector instructions the number of \
         vector registers they operate on (the work on a core whose datapath is one register \
         wide), and its ratio to the LMUL-weighted bound; *vector*, *vset*, *vmem*: vector instructions other than vset*, vset* \
         instructions, vector loads and stores; *output*: the output arrays compared with the \
         clang-19 rv64gc build's (floats within rtol {}, atol {} unless the benchmark says \
         otherwise, integers exactly).\n",
        Tolerance::DEFAULT.rtol,
        Tolerance::DEFAULT.atol
    );
    for r in results {
        let bench = &r.bench;
        let _ = writeln!(md, "### {}\n", bench.name);
        let sleef_variant = bench.sleef_c_file.map(|f| format!(", SLEEF-calling C variant `{f}`")).unwrap_or_default();
        let tolerance = match bench.tolerance {
            t if t == Tolerance::DEFAULT => String::new(),
            t => format!("; outputs compared with rtol {}, atol {} ({})", t.rtol, t.atol, t.reason),
        };
        let _ = writeln!(
            md,
            "Kernel `{}` in `{}` (`{}`), C reference `{}`{sleef_variant}; grid {}; bound: {}{tolerance}.\n",
            bench.kernel,
            bench.kernel_file,
            bench.signature,
            bench.c_file,
            bench.grid_text(),
            bench.bound.describe()
        );
        let _ = writeln!(md, "| VLEN | configuration | .text | instructions | × bound | LMUL-weighted | × bound | vector | vset | vmem | output |");
        let _ = writeln!(md, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        for &vlen in &context.vlens {
            let bound = bench.bound.at(vlen);
            let weighted_bound = bench.bound.weighted_at(vlen);
            for config in bench.configs() {
                let config_bound = bench.bound_for(config);
                let (bound, weighted_bound) = (config_bound.at(vlen), config_bound.weighted_at(vlen));
                let run = r.run(config, vlen);
                let text = r.build(config).map_or_else(String::new, |b| text_cell(&b.text_bytes));
                match run.map(|x| &x.counts) {
                    Some(Ok(c)) => {
                        let output = match run {
                            _ if config == Config::ClangScalar => "reference".to_string(),
                            Some(run) => r.output_difference(run, vlen).map_or_else(|| "ok".to_string(), |d| cell(&d)),
                            None => String::new(),
                        };
                        let weighted = c.lmul_weighted_total();
                        let _ = writeln!(
                            md,
                            "| {vlen} | {} | {text} | {} | {} | {} | {} | {} | {} | {} | {output} |",
                            config.label(),
                            group_digits(c.total),
                            ratio(c.total, bound),
                            group_digits(weighted),
                            ratio(weighted, weighted_bound),
                            group_digits(c.vector),
                            group_digits(c.vset),
                            group_digits(c.vector_memory),
                        );
                    }
                    _ => {
                        let _ = writeln!(
                            md,
                            "| {vlen} | {} | {text} | {} | | | | | | | |",
                            config.label(),
                            cell(&r.failure(config, vlen))
                        );
                    }
                }
            }
            let _ = writeln!(
                md,
                "| {vlen} | *bound* | | {} | 1.00 | {} | 1.00 | | | | |",
                group_digits(bound),
                group_digits(weighted_bound)
            );
            if bench.has_fp16() {
                let zvfhmin = bench.bound.with_zvfhmin();
                let _ = writeln!(
                    md,
                    "| {vlen} | *bound with Zvfhmin* | | {} | | {} | | | | | |",
                    group_digits(zvfhmin.at(vlen)),
                    group_digits(zvfhmin.weighted_at(vlen))
                );
            }
        }
        let _ = writeln!(md);
    }

    let _ = writeln!(md, "## Bounds-check overhead\n");
    let _ = writeln!(
        md,
        "Instructions of each tilec kernel compiled with `--check-bounds` (every load, store and \
         atomic checked against the arrays' extents; on riscv64gcv the RVV leaves check per strip, \
         the `tl.dot` microkernel gives way to checked scalar code), beside the same kernel \
         without checks, and the ratio.\n"
    );
    let _ = writeln!(md, "| benchmark | VLEN | riscv64gcv | checked | × | riscv64gc | checked | × |");
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in results {
        for &vlen in &context.vlens {
            let mut cells = Vec::new();
            for checked in [Config::TilecVectorChecked, Config::TilecScalarChecked] {
                let count = |c: Config| r.run(c, vlen).and_then(|run| run.counts.as_ref().ok()).map(|c| c.total);
                match (count(checked.unchecked()), count(checked)) {
                    (Some(plain), Some(with)) => {
                        cells.extend([group_digits(plain), group_digits(with), ratio(with, plain)]);
                    }
                    _ => cells.extend([
                        cell(&r.failure(checked.unchecked(), vlen)),
                        cell(&r.failure(checked, vlen)),
                        String::new(),
                    ]),
                }
            }
            let _ = writeln!(md, "| {} | {vlen} | {} |", r.bench.name, cells.join(" | "));
        }
    }

    zvfh_table(&mut md, context, results);

    md.push('\n');
    md.push_str(&compile_time_section(results, context.compile_runs, &context.timed_tilec));

    let _ = writeln!(md, "## How the numbers were made\n");
    let _ = writeln!(md, "```sh\n{}\n```\n", context.command);
    let _ = writeln!(
        md,
        "qemu: {} (Debian source `qemu_{}`, `riscv64-linux-user` built with `--enable-plugins` \
         into `$TILEC_CACHE/toolchain/{QEMU_PLUGINS_DIR}` by the command; Debian's qemu-user is \
         static and cannot load plugins). Each kernel is compiled and run as follows \
         (`$CACHE` = `$TILEC_CACHE`, default `~/.cache/tilec`; `JOB` is a runner job directory \
         holding `job.txt`, threads 1, inputs pseudo-random in [-1, 1)):\n",
        context.qemu_version.split('+').next().unwrap_or(""),
        context.qemu_version
    );
    let _ = writeln!(md, "```sh");
    let _ = writeln!(md, "target/release/tilec compile KERNEL.py -k NAME -s SIGNATURE -c CONST=VALUE... --target riscv64gcv|riscv64gc [--check-bounds] -o k.so");
    let _ = writeln!(
        md,
        "# --check-bounds: JOB's job.txt ends with a `bounds` line (the runner passes the arrays' extents)"
    );
    let _ = writeln!(
        md,
        "clang-19 {} -march=rv64gcv|rv64gc --sysroot=/usr/riscv64-linux-gnu C_FILE -o k.o",
        CLANG_FLAGS.join(" ")
    );
    let _ = writeln!(md, "{LINKER} -shared -o k.so k.o /usr/riscv64-linux-gnu/{LIBM}");
    let _ = writeln!(
        md,
        "# the SLEEF variants (SLEEF {SLEEF_VERSION} built by `cargo xtask setup` into $CACHE/toolchain/{SLEEF_DIR}):"
    );
    let _ = writeln!(
        md,
        "clang-19 {} -march=rv64gcv|rv64gc --sysroot=/usr/riscv64-linux-gnu -I $CACHE/toolchain/{SLEEF_DIR}/{SLEEF_INCLUDE} SLEEF_C_FILE -o k.o",
        CLANG_FLAGS.join(" ")
    );
    let _ = writeln!(
        md,
        "{LINKER} -shared {} -o k.so k.o $CACHE/toolchain/{SLEEF_DIR}/{SLEEF_ARCHIVE} /usr/riscv64-linux-gnu/{LIBM}",
        SLEEF_LINK_FLAGS.join(" ")
    );
    let _ = writeln!(md, "gcc -O2 -shared -fPIC $(pkg-config --cflags glib-2.0) -I $CACHE/toolchain/{QEMU_PLUGINS_DIR}/include -o insn_count.so {PLUGIN_SOURCE}");
    let _ = writeln!(
        md,
        "env -i setarch -R $CACHE/toolchain/{QEMU_PLUGINS_DIR}/bin/qemu-riscv64 -0 runner -cpu {} \\\n    -L /usr/riscv64-linux-gnu -plugin insn_count.so,out=counts.txt $CACHE/toolchain/runner-HASH/runner JOB </dev/null >/dev/null 2>&1",
        qemu_cpu(256, false).replace("256", "VLEN")
    );
    let _ = writeln!(md, "```\n");
    let _ = writeln!(md, "| benchmark | tilec arguments |");
    let _ = writeln!(md, "|---|---|");
    for r in results {
        let b = &r.bench;
        let constants: String = b.constants.iter().map(|c| format!(" -c {c}")).collect();
        let _ = writeln!(md, "| {} | `{} -k {} -s \"{}\"{constants}` |", b.name, b.kernel_file, b.kernel, b.signature);
    }
    md
}

/// The benchmarks with fp16 data compiled for plain RVV 1.0 and with `--features +zvfh`
/// (run on a CPU with Zvfh): instructions and LMUL-weighted counts side by side.
fn zvfh_table(md: &mut String, context: &Context, results: &[BenchResult]) {
    let fp16: Vec<&BenchResult> =
        results.iter().filter(|r| r.bench.configs().contains(&Config::TilecVectorZvfh)).collect();
    if fp16.is_empty() {
        return;
    }
    let _ = writeln!(md, "\n## fp16 with Zvfh\n");
    let _ = writeln!(
        md,
        "The benchmarks with fp16 data, tilec riscv64gcv for plain RVV 1.0 and with `--features +zvfh` \
         (fp16 conversions by `vfwcvt`/`vfncvt`; qemu with `zvfh=true,zvfhmin=true`): instructions, \
         LMUL-weighted counts, their ratios (Zvfh over plain), and the Zvfh build's outputs against \
         the reference.\n"
    );
    let _ = writeln!(md, "| benchmark | VLEN | riscv64gcv | +zvfh | × | weighted | +zvfh weighted | × | output |");
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for r in fp16 {
        for &vlen in &context.vlens {
            let counts = |c: Config| r.run(c, vlen).and_then(|run| run.counts.as_ref().ok());
            let row = match (counts(Config::TilecVector), counts(Config::TilecVectorZvfh)) {
                (Some(plain), Some(zvfh)) => {
                    let (pw, zw) = (plain.lmul_weighted_total(), zvfh.lmul_weighted_total());
                    let output = r
                        .run(Config::TilecVectorZvfh, vlen)
                        .and_then(|run| r.output_difference(run, vlen))
                        .map_or_else(|| "ok".to_string(), |d| cell(&d));
                    format!(
                        "{} | {} | {} | {} | {} | {} | {output}",
                        group_digits(plain.total),
                        group_digits(zvfh.total),
                        ratio(zvfh.total, plain.total),
                        group_digits(pw),
                        group_digits(zw),
                        ratio(zw, pw)
                    )
                }
                _ => format!(
                    "{} | {} | | | | |",
                    cell(&r.failure(Config::TilecVector, vlen)),
                    cell(&r.failure(Config::TilecVectorZvfh, vlen))
                ),
            };
            let _ = writeln!(md, "| {} | {vlen} | {row} |", r.bench.name);
        }
    }
}

/// The columns of the compile-time table: tilec and clang-19 side by side per target, then
/// the other configurations (the only ones timed).
pub(super) const COMPILE_TIME_COLUMNS: [Config; 8] = [
    Config::TilecScalar,
    Config::ClangScalar,
    Config::TilecVector,
    Config::ClangVector,
    Config::TilecScalarChecked,
    Config::TilecVectorChecked,
    Config::ClangScalarSleef,
    Config::ClangVectorSleef,
];

/// The `## Compile time` section: median wall times per benchmark and configuration, and
/// how many times faster tilec is than clang-19 on each target.
pub fn compile_time_section(results: &[BenchResult], runs: u32, timed_tilec: &str) -> String {
    let mut md = String::from("## Compile time\n\n");
    let _ = writeln!(
        md,
        "Wall time in milliseconds of compiling one kernel to a `.so`, the median of {runs} runs, \
         process start included: {timed_tilec} (whole pipeline and link) and \
         `clang-19 -O3` + `{LINKER}` on the C reference (the SLEEF columns: on the \
         SLEEF-calling variant, linked with `libsleef.a`; — where a benchmark has none). The \
         runs go in rounds over the whole table (every configuration of every benchmark once \
         per round), so that the machine's load weighs on every column alike and a slow \
         spell on a round or two of each, not on one benchmark; ×: clang-19's median over tilec's on the same target. \
         Machine-dependent, unlike the counts: measured on the 2-core machine the tests run on. \
         `cargo xtask bench --compile-time-only` measures only this table.\n"
    );
    let median_ms = |r: &BenchResult, config: Config| -> Option<f64> {
        match r.compile_times.iter().find(|(c, _)| *c == config) {
            Some((_, Ok(times))) => super::measure::median(times).map(|t| t.as_secs_f64() * 1000.0),
            _ => None,
        }
    };
    let mut header = vec!["benchmark".to_string()];
    for (i, config) in COMPILE_TIME_COLUMNS.iter().enumerate() {
        header.push(config.label().to_string());
        if i == 1 || i == 3 {
            header.push("×".to_string());
        }
    }
    let _ = writeln!(md, "| {} |", header.join(" | "));
    let _ = writeln!(md, "|---|{}", "---:|".repeat(header.len() - 1));
    for r in results {
        let mut cells = vec![r.bench.name.to_string()];
        for (i, &config) in COMPILE_TIME_COLUMNS.iter().enumerate() {
            cells.push(match (median_ms(r, config), r.build(config)) {
                (Some(ms), _) => format!("{ms:.1}"),
                (None, Some(_)) => "not built".to_string(),
                (None, None) => "—".to_string(),
            });
            if i == 1 || i == 3 {
                let tilec = median_ms(r, COMPILE_TIME_COLUMNS[i - 1]);
                cells.push(match (tilec, median_ms(r, config)) {
                    (Some(t), Some(c)) if t > 0.0 => format!("{:.1}", c / t),
                    _ => "—".to_string(),
                });
            }
        }
        let _ = writeln!(md, "| {} |", cells.join(" | "));
    }
    md.push('\n');
    md
}

/// `text` (a `BENCHMARKS.md`) with its `## Compile time` section replaced by `section`;
/// `None` when it has none.
pub fn replace_compile_time_section(text: &str, section: &str) -> Option<String> {
    let start = text.find("## Compile time\n")?;
    let end = text[start + 3..].find("\n## ").map_or(text.len(), |i| start + 3 + i + 1);
    Some(format!("{}{section}{}", &text[..start], &text[end..]))
}

/// One line per measurement: benchmark, configuration, VLEN and the counts (or the failure),
/// then the `.text` bytes of each code-size kernel and target; two runs of the command give
/// identical files.
pub fn counts_tsv(results: &[BenchResult], code_sizes: &[Measured]) -> String {
    let mut out = String::from("benchmark\tconfiguration\tvlen\tcounts\n");
    for r in results {
        for (config, vlen, run) in &r.runs {
            let counts = match &run.counts {
                Ok(c) => c.to_string(),
                Err(e) => format!("error: {e}"),
            };
            let _ = writeln!(out, "{}\t{}\t{vlen}\t{counts}", r.bench.name, config.label());
        }
        for (config, build) in &r.builds {
            if let Err(e) = &build.library {
                let _ = writeln!(out, "{}\t{}\t-\tnot compiled: {e}", r.bench.name, config.label());
            }
        }
    }
    for m in code_sizes {
        for (target, text) in code_size::TARGETS.iter().zip(&m.text) {
            let text = match text {
                Ok(bytes) => format!("text={bytes}"),
                Err(e) => format!("error: {e}"),
            };
            let _ = writeln!(out, "{}\ttilec {target}\t-\t{text}", m.case.name);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compile_time_table_names_the_tilec_it_timed() {
        assert_eq!(timed_tilec(Path::new("/w/target/release/tilec")), "the release `tilec compile`");
        let debug = timed_tilec(Path::new("target/debug/tilec"));
        assert!(debug.starts_with("`target/debug/tilec compile` (not a release build"), "{debug}");
    }

    #[test]
    fn the_compile_time_section_is_replaced_in_place() {
        let text = "# B\n\n## Counts\n\nx\n\n## Compile time\n\nold\n\n## How the numbers were made\n\ny\n";
        let new = replace_compile_time_section(text, "## Compile time\n\nnew\n\n").unwrap();
        assert_eq!(new, "# B\n\n## Counts\n\nx\n\n## Compile time\n\nnew\n\n## How the numbers were made\n\ny\n");
        let last = replace_compile_time_section("a\n## Compile time\nold\n", "## Compile time\nnew\n").unwrap();
        assert_eq!(last, "a\n## Compile time\nnew\n");
        assert_eq!(replace_compile_time_section("no section\n", "x"), None);
    }
}
