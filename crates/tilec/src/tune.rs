//! Autotuning, as Triton's `@triton.autotune`: every config of the decorator is compiled and
//! run on the same arguments, the best one is chosen and remembered in the kernel cache per
//! (kernel, autotune key values; on `riscv64gcv` also the VLEN the counts were taken at).
//!
//! What is measured: on a target that runs in this process ([`Target::runs_in_process`]: the
//! host, or RISC-V on a riscv64 machine) the median wall time of several launches; on a
//! RISC-V target under qemu the instructions the launch executes, counted by the
//! `insn_count` qemu plugin of the benchmarks (deterministic; `cargo xtask setup` builds it).
//!
//! The decorator's arguments:
//! - `configs`: `triton.Config({...})` literals. Their `num_warps`, `num_stages`, `num_ctas`,
//!   `maxnreg` (and the other warp-specialization options) schedule GPU warps and have no
//!   meaning on a CPU, where each program runs on one core: they are accepted and ignored.
//!   A config's `pre_hook` is host Python, which tilec does not run: an error. Configs made
//!   by host code (`configs=get_autotune_config()`) are not decoded; give them explicitly
//!   ([`Autotune::with_configs`], `tilec tune --config`).
//! - `key`: parameter names whose values select the remembered choice.
//! - `reset_to_zero`, `restore_value`: array parameters. Every measured launch starts from a
//!   copy of the arguments as given, with the `reset_to_zero` arrays zeroed, so launches
//!   never see each other's results and `restore_value` holds by construction; the outputs
//!   are those of one launch of the chosen config (after tuning, the launch Triton makes
//!   also starts with the `reset_to_zero` arrays zeroed).
//! - `prune_configs_by`: its `early_config_prune` and `perf_model` are host Python functions
//!   (and `top_k` ranks by the GPU performance model), which tilec does not run: every config
//!   is measured instead, with a warning. `warmup`, `rep`, `use_cuda_graph`, `do_bench` and
//!   `cache_results` set how Triton times GPU launches: ignored with a warning (counts are
//!   exact, wall times are medians, choices are always remembered). `pre_hook` and
//!   `post_hook` are host Python: an error.
//!
//! Invariant: a config that fails to compile or to run is reported in the table and
//! skipped; tuning fails only when every config does. The choice is a function of the
//! measurements: the fewest instructions (or the shortest median time), the first config
//! among equals.

use std::time::{Duration, Instant};

use tilec_diagnostics::{Diagnostic, Span};
use tilec_front::ConstValue;
use tilec_syntax::ast;

use crate::aot::const_text;
use crate::error::codes;
use crate::launch::{self, LaunchConfig, Machine, NativeLibrary, RuntimeArg, RuntimeValue};
use crate::{Compiler, Error, KernelCache, Produce, Request, Target};

/// One config: the constexpr values it sets.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// `(name, value)` in the config's order.
    pub constants: Vec<(String, ConstValue)>,
}

impl Config {
    /// The config from `NAME=VALUE` pairs separated by commas (`"BLOCK_M=64, BLOCK_N=32"`),
    /// each value read as `tilec compile -c` reads it.
    pub fn parse(text: &str) -> Result<Config, Error> {
        let constants = text
            .split(',')
            .filter(|part| !part.trim().is_empty())
            .map(|part| match part.split_once('=') {
                Some((name, value)) if !name.trim().is_empty() => {
                    Ok((name.trim().to_string(), tilec_front::parse_const_value(value.trim())))
                }
                _ => Err(Error::new(codes::BAD_ARGUMENT, format!("config entry `{}` is not NAME=VALUE", part.trim()))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if constants.is_empty() {
            return Err(Error::new(codes::BAD_ARGUMENT, format!("config `{text}` sets nothing")));
        }
        Ok(Config { constants })
    }

    /// `BLOCK_M=64, BLOCK_N=32`: what the table and the remembered choice call the config.
    pub fn label(&self) -> String {
        self.constants.iter().map(|(n, v)| format!("{n}={}", const_text(v))).collect::<Vec<_>>().join(", ")
    }
}

/// A kernel's `@triton.autotune` decorator, as tilec honours it.
#[derive(Clone, Debug, PartialEq)]
pub struct Autotune {
    /// The configs, in order.
    pub configs: Vec<Config>,
    /// The parameters whose values select a remembered choice.
    pub key: Vec<String>,
    /// Arrays zeroed before every measured launch.
    pub reset_to_zero: Vec<String>,
    /// Arrays restored after every measured launch (every launch starts from a copy of the
    /// arguments, so these hold by construction).
    pub restore_value: Vec<String>,
    /// What is accepted but has no effect, and why (printed as warnings).
    pub warnings: Vec<String>,
    /// Where `configs=` is host code that tilec did not decode.
    configs_from_host: Option<Span>,
    span: Span,
}

/// Config options that schedule GPU warps: no meaning on a CPU.
const GPU_OPTIONS: &[&str] = &[
    "num_warps",
    "num_stages",
    "num_ctas",
    "maxnreg",
    "num_buffers_warp_spec",
    "num_consumer_groups",
    "reg_dec_producer",
    "reg_inc_consumer",
    "ir_override",
];

/// Decorator options that set how Triton times GPU launches.
const TIMING_OPTIONS: &[&str] = &["warmup", "rep", "use_cuda_graph", "do_bench", "cache_results"];

fn autotune_error(message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(codes::AUTOTUNE, message)
}

impl Autotune {
    /// The autotune decorator of `def`, checked against its parameters; `None` when it has
    /// none. Errors carry the decorator's spans.
    pub fn of(def: &ast::FunctionDef) -> Result<Option<Autotune>, Diagnostic> {
        let Some(decorator) = &def.autotune else { return Ok(None) };
        let kernel = &def.name.name;
        let params: Vec<&str> = def.params.iter().map(|p| p.name.name.as_str()).collect();
        let mut warnings = Vec::new();
        let mut configs = Vec::new();
        let mut configs_from_host = decorator.configs_from_host;
        'configs: for (index, config) in decorator.configs.iter().enumerate() {
            let mut constants = Vec::new();
            for (name, value) in &config.kwargs {
                if !params.contains(&name.as_str()) {
                    return Err(autotune_error(format!(
                        "an autotune config sets `{name}`, which is not a parameter of `{kernel}`"
                    ))
                    .with_label(config.span, "this config")
                    .with_note(format!("its parameters are: {}", params.join(", "))));
                }
                // A value computed by host code (`'NUM_SM': num_sms()`) leaves its config out.
                let Some(literal) = tilec_front::signature::literal_value(value) else {
                    warnings.push(format!(
                        "autotune config {} is left out: it sets `{name}` with host code, which tilec does not \
                         run (give such a config with `--config`)",
                        index + 1
                    ));
                    configs_from_host.get_or_insert(value.span);
                    continue 'configs;
                };
                constants.push((name.clone(), literal));
            }
            for option in &config.options {
                let name = option.name.as_ref().map_or("**", |n| n.name.as_str());
                if name == "pre_hook" {
                    return Err(autotune_error("a config's `pre_hook` is host Python, which tilec does not run")
                        .with_label(option.span, "here")
                        .with_note("arrays a kernel accumulates into can be named in `reset_to_zero=[...]`"));
                }
                if !GPU_OPTIONS.contains(&name) {
                    return Err(autotune_error(format!("`triton.Config` has no option `{name}`"))
                        .with_label(option.span, "here"));
                }
            }
            configs.push(Config { constants });
        }
        if decorator.configs.iter().any(|c| !c.options.is_empty()) {
            warnings.push(
                "the configs' GPU options (num_warps, num_stages, ...) are ignored: each program runs on one CPU core"
                    .to_string(),
            );
        }
        for (what, names) in [
            ("key", &decorator.key),
            ("reset_to_zero", &decorator.reset_to_zero),
            ("restore_value", &decorator.restore_value),
        ] {
            if let Some(missing) = names.iter().find(|n| !params.contains(&n.as_str())) {
                let span = if what == "key" { decorator.key_span } else { decorator.span };
                return Err(autotune_error(format!(
                    "autotune `{what}` names `{missing}`, which is not a parameter of `{kernel}`"
                ))
                .with_label(span, "here")
                .with_note(format!("its parameters are: {}", params.join(", "))));
            }
        }
        for option in &decorator.options {
            let name = option.name.as_ref().map_or("**", |n| n.name.as_str());
            match name {
                "prune_configs_by" => warnings.push(
                    "`prune_configs_by` is not applied: `early_config_prune` and `perf_model` are host Python \
                     functions (and `top_k` ranks by the GPU performance model), which tilec does not run; every \
                     config is measured"
                        .to_string(),
                ),
                _ if TIMING_OPTIONS.contains(&name) => warnings.push(format!(
                    "`{name}` is ignored: it sets how Triton times GPU launches (tilec counts instructions under \
                     qemu, or takes the median wall time, and always remembers the choice)"
                )),
                "pre_hook" | "post_hook" => {
                    return Err(autotune_error(format!("autotune `{name}` is host Python, which tilec does not run"))
                        .with_label(option.span, "here")
                        .with_note("arrays a kernel accumulates into can be named in `reset_to_zero=[...]`"))
                }
                _ => {
                    return Err(autotune_error(format!("`triton.autotune` has no option `{name}`"))
                        .with_label(option.span, "here"))
                }
            }
        }
        Ok(Some(Autotune {
            configs,
            key: decorator.key.clone(),
            reset_to_zero: decorator.reset_to_zero.clone(),
            restore_value: decorator.restore_value.clone(),
            warnings,
            configs_from_host,
            span: decorator.span,
        }))
    }

    /// The same decorator with `configs` instead of its own (for configs that the file
    /// builds in host code).
    pub fn with_configs(mut self, configs: Vec<Config>) -> Autotune {
        if !configs.is_empty() {
            self.configs = configs;
            self.configs_from_host = None;
        }
        self
    }

    /// Every name a config sets, once, in first-seen order.
    pub fn tuned_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for (name, _) in self.configs.iter().flat_map(|c| &c.constants) {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names
    }

    /// An error unless there is a config to measure.
    pub fn check_configs(&self) -> Result<(), Diagnostic> {
        if !self.configs.is_empty() {
            return Ok(());
        }
        Err(match self.configs_from_host {
            Some(span) => autotune_error("the autotune configs are made by host code, which tilec does not run")
                .with_label(span, "not a list of `triton.Config(...)` literals")
                .with_note("give the configs instead: `tilec tune --config 'NAME=VALUE, ...'` (repeated), or `Kernel::autotune_configs`"),
            None => autotune_error("the autotune decorator has no configs").with_label(self.span, "here"),
        })
    }
}

/// What a tuning run measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Instructions the launch executed under qemu (the `insn_count` plugin).
    Instructions,
    /// Median wall time of several launches in this process, in nanoseconds.
    WallTime,
}

/// One config's measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// The config.
    pub config: Config,
    /// Instructions or nanoseconds ([`Report::metric`]); why the config failed otherwise.
    pub outcome: Result<u64, String>,
}

/// A tuning run: every config's measurement and the choice.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// What was measured.
    pub metric: Metric,
    /// The autotune key's values (`n=1000`), as remembered.
    pub key_values: String,
    /// Every config, in the decorator's order.
    pub trials: Vec<Trial>,
    /// The index of the chosen config in `trials`.
    pub chosen: usize,
}

impl Report {
    /// The chosen config.
    pub fn chosen(&self) -> &Config {
        &self.trials[self.chosen].config
    }

    /// The table: one line per config with its measurement (or why it failed) and a mark on
    /// the chosen one.
    pub fn table(&self) -> String {
        let labels: Vec<String> = self.trials.iter().map(|t| t.config.label()).collect();
        let width = labels.iter().map(String::len).max().unwrap_or(0).max("config".len());
        let heading = match self.metric {
            Metric::Instructions => "instructions",
            Metric::WallTime => "median time",
        };
        let mut out = format!("  {:width$}  {heading:>14}\n", "config");
        for (i, (trial, label)) in self.trials.iter().zip(&labels).enumerate() {
            let measure = match (&trial.outcome, self.metric) {
                (Ok(n), Metric::Instructions) => format!("{n:>14}"),
                (Ok(ns), Metric::WallTime) => format!("{:>14}", format!("{:.1} us", *ns as f64 / 1000.0)),
                (Err(why), _) => format!("{:>14}  failed: {why}", "-"),
            };
            let mark = if i == self.chosen { "  chosen" } else { "" };
            out.push_str(&format!("  {label:width$}  {measure}{mark}\n"));
        }
        out
    }
}

/// How the measured launches run.
#[derive(Clone, Copy, Debug)]
pub struct Runs {
    /// Vector register width under qemu for [`Target::Riscv64gcv`].
    pub vlen: u32,
    /// Threads of an in-process launch (counted launches run on one thread).
    pub threads: u32,
    /// How long one launch may take.
    pub timeout: Duration,
    /// Launches per config whose median wall time is taken (in-process targets).
    pub repeats: u32,
}

impl Default for Runs {
    fn default() -> Runs {
        Runs { vlen: 256, threads: 1, timeout: Duration::from_secs(600), repeats: 5 }
    }
}

/// A tuning job on runtime arguments (what `tilec tune` and [`crate::Kernel::tune`] run):
/// the kernel with its fixed specialization, its decorator and its arguments.
pub struct Job<'a> {
    /// Compiles each config (its target decides what is measured).
    pub compiler: &'a Compiler,
    /// Where compiled configs and the choice are kept; `None`: nothing is remembered.
    pub cache: Option<&'a KernelCache>,
    /// The signature and the constants given besides the configs'.
    pub request: &'a Request<'a>,
    /// The configs and the key.
    pub autotune: &'a Autotune,
    /// The arguments every launch starts from.
    pub runtime: &'a [RuntimeArg],
    /// The grid of a config (an error makes that config fail).
    pub grid: &'a dyn Fn(&Config) -> Result<[u32; 3], String>,
    /// How the launches run.
    pub runs: Runs,
}

/// What a tuning job found.
#[derive(Clone, Debug)]
pub struct Tuned {
    /// The measurements and the choice.
    pub report: Report,
    /// The arguments after the chosen config's launch.
    pub outputs: Vec<RuntimeArg>,
}

impl Job<'_> {
    /// The autotune key's values (`n=1000, x_ptr=fp32[1000]`): a name's constant or runtime
    /// value; `-` for one the signature specializes (the signature is part of the key).
    pub fn key_values(&self) -> String {
        self.autotune
            .key
            .iter()
            .map(|name| {
                let constant = self.request.constants.iter().find(|(n, _)| n == name).map(|(_, v)| const_text(v));
                let runtime = self.runtime.iter().find(|a| &a.name == name).map(|a| match &a.value {
                    RuntimeValue::Scalar { value, .. } => value.to_string(),
                    RuntimeValue::Array(array) => format!("{}{:?}", array.dtype.name(), array.shape),
                    RuntimeValue::Pointers(arrays) => format!("table of {}", arrays.len()),
                });
                format!("{name}={}", constant.or(runtime).unwrap_or_else(|| "-".to_string()))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The kernel cache's key of the choice for these arguments (and, on
    /// [`Target::Riscv64gcv`], the VLEN the counts were taken at).
    fn choice_key(&self) -> Result<String, Vec<Diagnostic>> {
        let program = self.compiler.load(self.request).map_err(|(_, ds)| ds)?;
        let configs: Vec<String> = self.autotune.configs.iter().map(Config::label).collect();
        let configs = configs.join("\n");
        let key_values = self.key_values();
        let machine = match self.compiler.target {
            Target::Riscv64gcv => format!("vlen={}", self.runs.vlen),
            _ => String::new(),
        };
        let extra: [&[u8]; 4] = [b"autotune", configs.as_bytes(), key_values.as_bytes(), machine.as_bytes()];
        Ok(self.compiler.cache_key(&program, self.request, &extra))
    }

    /// The remembered choice for these arguments, if there is one and it is still a config.
    pub fn remembered(&self) -> Option<&Config> {
        let label = self.cache?.load_choice(&self.choice_key().ok()?)?;
        self.autotune.configs.iter().find(|c| c.label() == label)
    }

    /// Measures every config and remembers the choice.
    pub fn tune(&self) -> Result<Tuned, Error> {
        self.autotune.check_configs()?;
        for name in &self.autotune.reset_to_zero {
            let is_array = self.runtime.iter().any(|a| &a.name == name && matches!(a.value, RuntimeValue::Array(_)));
            if !is_array {
                return Err(Error::new(
                    codes::AUTOTUNE,
                    format!("autotune `reset_to_zero` names `{name}`, which is not an array argument"),
                ));
            }
        }
        let target = self.compiler.target;
        let metric = if target.runs_in_process() { Metric::WallTime } else { Metric::Instructions };
        let tools = match metric {
            Metric::Instructions => {
                let missing = |e: String| Error::new(codes::TOOLCHAIN_MISSING, e);
                let layout = tilec_toolchain::Layout::from_env().map_err(missing)?;
                Some((
                    tilec_toolchain::Toolchain::locate(&layout).map_err(missing)?,
                    tilec_toolchain::Counter::locate(&layout).map_err(missing)?,
                ))
            }
            Metric::WallTime => None,
        };
        let compiler = self.compiler.clone().with_produce(Produce::SharedObject).with_texts(false);
        let mut trials = Vec::new();
        let mut best: Option<(usize, u64, Vec<RuntimeArg>)> = None;
        for config in &self.autotune.configs {
            let measured = self.measure(&compiler, config, tools.as_ref());
            let outcome = match measured {
                Ok((value, outputs)) => {
                    if best.as_ref().is_none_or(|(_, b, _)| value < *b) {
                        best = Some((trials.len(), value, outputs));
                    }
                    Ok(value)
                }
                Err(why) => Err(why),
            };
            trials.push(Trial { config: config.clone(), outcome });
        }
        let report_without_choice =
            |trials: Vec<Trial>| Report { metric, key_values: self.key_values(), trials, chosen: 0 };
        let Some((chosen, _, outputs)) = best else {
            let report = report_without_choice(trials);
            return Err(Error::new(codes::TUNE_FAILED, "every autotune config failed to compile or run")
                .with_note(format!("the configs:\n{}", report.table().trim_end())));
        };
        let report = Report { chosen, ..report_without_choice(trials) };
        if let (Some(cache), Ok(key)) = (self.cache, self.choice_key()) {
            // A cache that cannot be written costs a tuning run next time, nothing more.
            let _ = cache.store_choice(&key, &report.chosen().label());
        }
        Ok(Tuned { report, outputs })
    }

    /// One config's measurement and the arguments after its (first) launch; why it failed
    /// otherwise.
    fn measure(
        &self,
        compiler: &Compiler,
        config: &Config,
        tools: Option<&(tilec_toolchain::Toolchain, tilec_toolchain::Counter)>,
    ) -> Result<(u64, Vec<RuntimeArg>), String> {
        let mut constants = self.request.constants.clone();
        constants.extend(config.constants.iter().cloned());
        let request = Request { constants, signature: self.request.signature.clone(), ..*self.request };
        let first_line = |ds: Vec<Diagnostic>| {
            format!("does not compile: {}", ds.first().map_or_else(String::new, |d| d.message.clone()))
        };
        let (output, _) = compiler.compile_cached(&request, self.cache).map_err(first_line)?;
        let grid = (self.grid)(config)?;
        if let Some(d) = grid.iter().find(|&&d| d == 0 || d > i32::MAX as u32) {
            return Err(format!("grid {grid:?}: {d} is not a grid size"));
        }
        let launch = LaunchConfig {
            grid,
            threads: self.runs.threads,
            machine: match self.compiler.target {
                Target::Riscv64gcv => Machine::Vector { vlen: self.runs.vlen, extensions: self.compiler.extensions },
                _ => Machine::Scalar,
            },
            timeout: self.runs.timeout,
            check_bounds: false,
        };
        let failed = |failure: launch::RunFailure| {
            let d = failure.error.diagnostics.first();
            format!("run failed: {}", d.map_or_else(String::new, |d| d.message.clone()))
        };
        let kernel = request.kernel;
        match tools {
            Some((toolchain, counter)) => {
                let mut args = self.fresh_arguments();
                let mut print = |bytes: &[u8]| {
                    let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), bytes);
                    Ok(())
                };
                let counts = launch::run_counted(
                    toolchain,
                    counter,
                    &output.shared_object,
                    kernel,
                    &mut args,
                    &launch,
                    &mut print,
                )
                .map_err(failed)?;
                Ok((counts.total, args))
            }
            None => {
                let library = NativeLibrary::load(&output.shared_object, kernel).map_err(|e| {
                    format!("cannot load: {}", e.diagnostics.first().map_or_else(String::new, |d| d.message.clone()))
                })?;
                let mut times = Vec::new();
                let mut first = None;
                for _ in 0..self.runs.repeats.max(1) {
                    let mut args = self.fresh_arguments();
                    let start = Instant::now();
                    launch::run_native(&library, &mut args, &launch).map_err(failed)?;
                    times.push(start.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64);
                    first.get_or_insert(args);
                }
                times.sort_unstable();
                Ok((times[times.len() / 2], first.unwrap_or_default()))
            }
        }
    }

    /// The arguments as given, with the `reset_to_zero` arrays zeroed.
    fn fresh_arguments(&self) -> Vec<RuntimeArg> {
        let mut args = self.runtime.to_vec();
        zero_arrays(&mut args, &self.autotune.reset_to_zero);
        args
    }
}

/// Zeroes the arrays named in `names` (what Triton's `reset_to_zero` does before a launch).
pub fn zero_arrays(args: &mut [RuntimeArg], names: &[String]) {
    for arg in args.iter_mut().filter(|a| names.contains(&a.name)) {
        if let RuntimeValue::Array(array) = &mut arg.value {
            array.data.fill(0);
        }
    }
}
