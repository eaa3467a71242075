//! The `tilec` command-line tool: `tilec compile` and `tilec run`.
//!
//! Every user error is reported as a diagnostic on stderr with a non-zero exit; nothing a user
//! types makes it panic.

mod cli_error;
mod run_args;
mod stdout;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use tilec::Produce;
use tilec_diagnostics::Diagnostic;

use cli_error::{codes, CliError};
use run_args::{RuntimeArg, RuntimeValue};
use stdout::Stdout;
use tilec::launch::{self, LaunchConfig, Machine};
use tilec::timing::{Progress, StageTimes};

#[derive(Parser)]
#[command(name = "tilec", version, about = "Compile Triton kernels to RISC-V 64 and run them")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum EmitStage {
    Ast,
    /// Tile IR from the front end.
    Tile,
    /// Tile IR after the optimizer.
    TileOpt,
    /// The lowered Tile IR annotated with its axis analysis (contiguity, divisibility,
    /// constancy of integer and pointer values).
    Axis,
    Vector,
    Asm,
    /// Each loop nest and dot, and whether it became an RVV leaf (riscv64gcv) or scalar
    /// code, with the reason.
    Nests,
}

/// `--target`: a target's name (riscv64gc, riscv64gcv, host, interp) or triple, as
/// `tilec::Target` parses it.
fn parse_target(text: &str) -> Result<tilec::Target, String> {
    text.parse().map_err(|e: tilec::Error| e.diagnostics.first().map(|d| d.message.clone()).unwrap_or_default())
}

/// The kernel to compile: file, name and specialization.
#[derive(clap::Args)]
struct KernelSource {
    /// The Triton source file.
    file: PathBuf,
    /// Name of the @triton.jit kernel; a kernel defined inside a function or class is named
    /// by its qualified name (`test_add.kernel`) or, when unique, its plain name.
    #[arg(short = 'k', long = "kernel")]
    kernel: String,
    /// A directory searched for the Python modules the file imports (`from helpers import
    /// f`), after the file's own directory (repeatable). Relative imports (`from .helpers
    /// import f`) are found beside the importing file.
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    include: Vec<PathBuf>,
    /// RVV extensions beyond RVV 1.0 for --target riscv64gcv, comma-separated: +zvfhmin
    /// (fp16 conversions with vfwcvt/vfncvt), +zvfh (fp16 arithmetic, with Zvfhmin). Runs
    /// get them in qemu's CPU too; the default is plain RVV 1.0.
    #[arg(long, value_name = "FEATURES", default_value = "", value_parser = parse_features)]
    features: tilec::VectorExtensions,
}

/// `--features`: `+zvfh`, `+zvfhmin`, comma-separated.
fn parse_features(text: &str) -> Result<tilec::VectorExtensions, String> {
    text.parse()
}

impl KernelSource {
    /// An error unless the `--features` fit `target` (they need riscv64gcv).
    fn check_features(&self, target: tilec::Target) -> Result<(), CliError> {
        if self.features == tilec::VectorExtensions::default() || target == tilec::Target::Riscv64gcv {
            return Ok(());
        }
        Err(CliError::new(
            codes::BAD_ARGUMENT,
            format!("--features {} needs --target riscv64gcv (got {})", self.features.text(), target.name()),
        ))
    }
}

/// How `tilec run` and `tilec tune` compile and launch.
#[derive(clap::Args)]
struct Execution {
    /// Optimization level: 0 turns the Tile IR optimizer off (`-O0`), 1 runs it.
    #[arg(short = 'O', value_name = "LEVEL", default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=1))]
    opt_level: u8,
    /// Vector register width in bits for riscv64gcv (power of two, 128 to 1024).
    #[arg(long, default_value_t = 256, value_parser = parse_vlen)]
    vlen: u32,
    /// Threads the grid is split over (launches whose instructions `tilec tune` counts run
    /// on one).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// Seconds a compiled run may take: qemu (riscv64 targets) is killed and the run
    /// fails; a host run, which cannot be stopped, ends the process with a report. The
    /// interpreter instead stops a program after a fixed step limit.
    #[arg(long, value_name = "SECONDS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout: u64,
}

impl Execution {
    fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.timeout)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Compile a kernel: print a stage (--emit) or write an object / shared object (-o).
    Compile {
        #[command(flatten)]
        source: KernelSource,
        /// Signature as in Triton's compile.py: "*fp32:16, *fp32:16, i32, 1024".
        #[arg(short = 's', long = "signature", default_value = "")]
        signature: String,
        /// Constexpr value: NAME=VALUE (repeatable).
        #[arg(short = 'c', long = "constant", value_name = "NAME=VALUE")]
        constants: Vec<String>,
        /// Stage to print (without -o the default is tile).
        #[arg(long, value_enum)]
        emit: Option<EmitStage>,
        /// Write machine code: a shared object (`.so`) or else a relocatable object.
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        /// riscv64gc, riscv64gcv, host (the machine tilec runs on; scalar code) or interp
        /// (no machine code), or a target triple.
        #[arg(long, default_value = "riscv64gc", value_parser = parse_target)]
        target: tilec::Target,
        /// Optimization level: 0 turns the Tile IR optimizer off (`-O0`), 1 runs it.
        #[arg(short = 'O', value_name = "LEVEL", default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=1))]
        opt_level: u8,
        /// Run the IR verifiers between stages (debug builds always do).
        #[arg(long)]
        verify: bool,
        /// Compile every load, store and atomic with a check against the arrays' extents
        /// (see `tilec run --check-bounds`); the kernel then takes the bounds table after the
        /// grid sizes.
        #[arg(long = "check-bounds")]
        check_bounds: bool,
        /// Print the wall time of each stage (parse, front, opt, vector, codegen, link) to
        /// standard error.
        #[arg(long)]
        time: bool,
    },
    /// Run a kernel over a grid with arrays from .npy files or generated ones.
    ///
    /// Arguments: name=@file.npy, name=zeros:DTYPE:SHAPE, name=rand:DTYPE:SHAPE[:SEED],
    /// name=arange:DTYPE:SHAPE, name=ptrs:ARRAY,ARRAY,... (a table of the arrays' addresses,
    /// saved as name.0.npy, name.1.npy, ...), name=INT, name=FLOAT, and NAME=VALUE for a
    /// tl.constexpr parameter. SHAPE is like 4000 or 64x32.
    Run {
        #[command(flatten)]
        source: KernelSource,
        /// Grid: X[,Y[,Z]] (or X[xY[xZ]]), or up to three integer expressions over the integer
        /// arguments and constexprs, e.g. "cdiv(n, BLOCK_SIZE)".
        #[arg(long, value_parser = parse_grid)]
        grid: GridSpec,
        /// riscv64gc or riscv64gcv (under qemu, natively on riscv64), host (the machine tilec
        /// runs on, in the tilec process), interp (the Tile IR interpreter), or a triple.
        #[arg(long, default_value = "riscv64gc", value_parser = parse_target)]
        target: tilec::Target,
        #[command(flatten)]
        execution: Execution,
        /// Directory to save every array argument to, as NAME.npy, after the run.
        #[arg(long = "out", value_name = "DIR")]
        out: Option<PathBuf>,
        /// Directory to save every array argument to, as NAME.npy, before the run: the
        /// inputs exactly as the kernel receives them (for running the same kernel elsewhere).
        #[arg(long = "save-inputs", value_name = "DIR")]
        save_inputs: Option<PathBuf>,
        /// Run this shared object instead of compiling the kernel (it must be compiled for
        /// the same specialization).
        #[arg(long, value_name = "FILE.so")]
        library: Option<PathBuf>,
        /// Compile every load, store and atomic with a check against the arrays' extents: a
        /// kernel that leaves its arrays stops with the span of the access, the array, the
        /// element and the program. The interpreter always checks.
        #[arg(long = "check-bounds")]
        check_bounds: bool,
        /// Print the wall time of each stage (compile stages, then run) to standard error,
        /// and a progress line while a run takes more than a second.
        #[arg(long)]
        time: bool,
        /// name=VALUE arguments.
        #[arg(value_name = "ARG")]
        args: Vec<String>,
    },
    /// Tune an `@triton.autotune` kernel: compile every config, run each on the arguments,
    /// print a table and remember the best per autotune key value.
    ///
    /// riscv64gc and riscv64gcv count the instructions of the launch under qemu (the
    /// benchmarks' plugin); host takes the median wall time of several launches. Arguments
    /// as for `tilec run`, without the constexprs the configs set.
    Tune {
        #[command(flatten)]
        source: KernelSource,
        /// The grid of a config: up to three integer expressions over the integer arguments
        /// and constexprs (the config's included), e.g. "cdiv(n, BLOCK_SIZE)", as Triton's
        /// `grid = lambda META: ...`.
        #[arg(long, value_parser = parse_grid)]
        grid: GridSpec,
        /// riscv64gc or riscv64gcv (instructions counted under qemu), host (wall time), or a
        /// triple.
        #[arg(long, default_value = "riscv64gc", value_parser = parse_target)]
        target: tilec::Target,
        /// A config to measure instead of the decorator's, for configs made by host code:
        /// "NAME=VALUE, NAME=VALUE" (repeatable).
        #[arg(long = "config", value_name = "NAME=VALUE,...")]
        configs: Vec<String>,
        #[command(flatten)]
        execution: Execution,
        /// Launches per config whose median wall time is taken (host).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
        repeats: u32,
        /// Directory to save every array argument to, as NAME.npy: the results of the chosen
        /// config's launch.
        #[arg(long = "out", value_name = "DIR")]
        out: Option<PathBuf>,
        /// name=VALUE arguments.
        #[arg(value_name = "ARG")]
        args: Vec<String>,
    },
    /// Compile a kernel ahead of time for a C program (Triton's compile.py): writes
    /// DIR/NAME.h, DIR/NAME.c and DIR/NAME.o.
    ///
    /// NAME.h declares `int NAME(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, int
    /// num_threads, <runtime parameters>)`, which runs the grid on pthreads and returns 0; with
    /// --grid also NAME_default_grid and NAME_default.
    Aot {
        #[command(flatten)]
        source: KernelSource,
        /// Signature as in Triton's compile.py: "*fp32:16, *fp32:16, i32:16, i32:1".
        #[arg(short = 's', long = "signature")]
        signature: String,
        /// Constexpr value: NAME=VALUE (repeatable).
        #[arg(short = 'c', long = "constant", value_name = "NAME=VALUE")]
        constants: Vec<String>,
        /// riscv64gc, riscv64gcv, host (an object for the machine tilec runs on, for its own
        /// C compiler) or a triple.
        #[arg(long, default_value = "riscv64gc", value_parser = parse_target)]
        target: tilec::Target,
        /// The default grid: up to three comma-separated integer expressions over the integer
        /// parameters and the -c constants, e.g. "cdiv(n_elements, BLOCK_SIZE), 1, 1".
        #[arg(long)]
        grid: Option<String>,
        /// The name of the C entry point and of the files.
        #[arg(short = 'n', long = "name")]
        name: String,
        /// The directory to write the files into (created if missing).
        #[arg(short = 'o', long = "out-dir", value_name = "DIR")]
        out_dir: PathBuf,
        /// Optimization level: 0 turns the Tile IR optimizer off (`-O0`), 1 runs it.
        #[arg(short = 'O', value_name = "LEVEL", default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=1))]
        opt_level: u8,
        /// Print the wall time of each compile stage to standard error.
        #[arg(long)]
        time: bool,
    },
    /// Make one C dispatcher over several `tilec aot` specializations of a kernel (Triton's
    /// link.py): writes DIR/NAME.h and DIR/NAME.c.
    ///
    /// NAME takes every runtime parameter and calls the first specialization (most
    /// conditions first) whose divisibility / equal-to-1 conditions the arguments meet; it
    /// returns -2 when none does.
    AotLink {
        /// The headers `tilec aot` wrote.
        #[arg(required = true, value_name = "HEADER.h")]
        headers: Vec<PathBuf>,
        /// The name of the dispatcher and of its files.
        #[arg(short = 'n', long = "name")]
        name: String,
        /// The directory to write the files into (created if missing).
        #[arg(short = 'o', long = "out-dir", value_name = "DIR")]
        out_dir: PathBuf,
    },
}

/// A `--grid`: sizes, or expressions evaluated once the arguments are known.
#[derive(Clone, Debug)]
enum GridSpec {
    Fixed([u32; 3]),
    Exprs(Box<[tilec::aot::grid::Expr; 3]>),
}

fn parse_grid(text: &str) -> Result<GridSpec, String> {
    let fixed = parse_fixed_grid(text);
    match fixed {
        Ok(grid) => Ok(GridSpec::Fixed(grid)),
        Err(_) if text.contains(|c: char| c.is_ascii_alphabetic() && c != 'x') => {
            tilec::aot::grid::parse(text).map(|exprs| GridSpec::Exprs(Box::new(exprs))).map_err(|d| d.message)
        }
        Err(e) => Err(e),
    }
}

impl GridSpec {
    /// The grid for these constexprs and the integer arguments given on the command line.
    fn resolve(
        &self,
        constants: &[(String, tilec::ConstValue)],
        named: &[run_args::NamedArg],
    ) -> Result<[u32; 3], String> {
        let exprs = match self {
            GridSpec::Fixed(grid) => return Ok(*grid),
            GridSpec::Exprs(exprs) => exprs,
        };
        let resolve = |name: &str| {
            let constant = constants.iter().rev().find(|(n, _)| n == name).and_then(|(_, v)| match v {
                tilec::ConstValue::Int(i) => i64::try_from(*i).ok(),
                _ => None,
            });
            constant.or_else(|| {
                named.iter().find(|a| a.name == name).and_then(|a| match a.value {
                    run_args::ArgValue::Int(i) => i64::try_from(i).ok(),
                    _ => None,
                })
            })
        };
        let mut grid = [1u32; 3];
        for (slot, expr) in grid.iter_mut().zip(exprs.iter()) {
            let value = expr.eval(&resolve)?;
            *slot = u32::try_from(value).ok().filter(|v| (1..=i32::MAX as u32).contains(v)).ok_or_else(|| {
                format!("the grid evaluates to {value}, not a grid size (an integer from 1 to 2^31-1)")
            })?;
        }
        Ok(grid)
    }
}

fn parse_fixed_grid(text: &str) -> Result<[u32; 3], String> {
    let dims: Vec<&str> = text.split([',', 'x']).collect();
    if dims.len() > 3 {
        return Err("a grid has at most three dimensions: X[,Y[,Z]]".into());
    }
    let mut grid = [1u32; 3];
    for (slot, d) in grid.iter_mut().zip(&dims) {
        *slot = match d.trim().parse::<u32>() {
            Ok(n) if (1..=i32::MAX as u32).contains(&n) => n,
            _ => return Err(format!("`{d}` is not a grid size (an integer from 1 to 2^31-1)")),
        };
    }
    Ok(grid)
}

fn parse_vlen(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if n.is_power_of_two() && (128..=1024).contains(&n) => Ok(n),
        _ => Err(format!("`{text}` is not a power of two from 128 to 1024")),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut stdout = Stdout::default();
    let result = match cli.command {
        Command::Compile {
            source,
            signature,
            constants,
            emit,
            output,
            target,
            opt_level,
            verify,
            check_bounds,
            time,
        } => {
            // One kernel, then the process ends: its intermediate structures are not freed.
            tilec_ir::free_at_exit();
            let options = CompileOptions { target, optimize: opt_level > 0, verify, check_bounds, time };
            source
                .check_features(target)
                .and_then(|()| compile(&source, &signature, &constants, emit, output.as_deref(), options, &mut stdout))
        }
        Command::Run { source, grid, target, execution, out, save_inputs, library, check_bounds, time, args } => {
            let options = RunOptions {
                grid,
                target,
                optimize: execution.opt_level > 0,
                vlen: execution.vlen,
                threads: execution.threads,
                timeout: execution.timeout(),
                out,
                save_inputs,
                library,
                check_bounds,
                time,
            };
            source.check_features(target).and_then(|()| run(&source, &args, &options, &mut stdout))
        }
        Command::Aot { source, signature, constants, target, grid, name, out_dir, opt_level, time } => {
            let options = AotOptions { target, grid, name, out_dir, optimize: opt_level > 0, time };
            source.check_features(target).and_then(|()| aot(&source, &signature, &constants, &options, &mut stdout))
        }
        Command::AotLink { headers, name, out_dir } => aot_link(&headers, &name, &out_dir, &mut stdout),
        Command::Tune { source, grid, target, configs, execution, repeats, out, args } => {
            let runs = tilec::tune::Runs {
                vlen: execution.vlen,
                threads: execution.threads,
                timeout: execution.timeout(),
                repeats,
            };
            let options = TuneOptions { grid, target, configs, optimize: execution.opt_level > 0, runs, out };
            source.check_features(target).and_then(|()| tune(&source, &args, &options, &mut stdout))
        }
    };
    match result {
        Ok(()) if stdout.closed() => ExitCode::from(stdout::CLOSED_EXIT_CODE),
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            stdout::to_stderr(&error.render());
            ExitCode::FAILURE
        }
    }
}

/// A kernel's source file read into memory, with where its imports are searched and the
/// RVV extensions it is compiled with.
struct LoadedSource {
    file_name: String,
    text: String,
    include_dirs: Vec<PathBuf>,
    extensions: tilec::VectorExtensions,
}

impl LoadedSource {
    fn read(kernel: &KernelSource) -> Result<LoadedSource, CliError> {
        let path = &kernel.file;
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::new(codes::IO, format!("cannot read {}: {e}", path.display())))?;
        Ok(LoadedSource {
            file_name: path.display().to_string(),
            text,
            include_dirs: kernel.include.clone(),
            extensions: kernel.features,
        })
    }

    /// A request for `kernel` of this file without a specialization (what loading the
    /// program needs).
    fn request<'a>(&'a self, kernel: &'a str) -> tilec::Request<'a> {
        tilec::Request {
            file_name: &self.file_name,
            source: &self.text,
            kernel,
            signature: Vec::new(),
            constants: Vec::new(),
        }
    }

    /// A compiler for `target` that finds the file's imports, with `--features`.
    fn compiler(&self, target: tilec::Target) -> tilec::Compiler {
        tilec::Compiler::new(target).with_include_dirs(self.include_dirs.clone()).with_extensions(self.extensions)
    }

    /// `diagnostics` with the lines of the file, or of the module it imports, they point into.
    fn error(&self, diagnostics: Vec<Diagnostic>) -> CliError {
        CliError::in_files(diagnostics, tilec::source_files(&self.file_name, &self.text, &self.include_dirs))
    }
}

fn compile(
    kernel: &KernelSource,
    signature: &str,
    constants: &[String],
    emit: Option<EmitStage>,
    output: Option<&Path>,
    options: CompileOptions,
    stdout: &mut Stdout,
) -> Result<(), CliError> {
    let source = LoadedSource::read(kernel)?;
    let signature = tilec_front::parse_signature(signature).map_err(CliError::from)?;
    let constants = parse_constants(constants)?;
    let request = tilec::Request {
        file_name: &source.file_name,
        source: &source.text,
        kernel: &kernel.kernel,
        signature,
        constants,
    };
    let stage = emit.unwrap_or(EmitStage::Tile);
    let mut produce = match stage {
        EmitStage::Ast | EmitStage::Tile | EmitStage::TileOpt | EmitStage::Axis => Produce::Tile,
        EmitStage::Vector => Produce::Vector,
        EmitStage::Asm | EmitStage::Nests => Produce::Object,
    };
    let shared = output.is_some_and(|path| path.extension().is_some_and(|e| e == "so"));
    if output.is_some() {
        produce = produce.max(if shared { Produce::SharedObject } else { Produce::Object });
    }
    // A cached shared object comes with the front end's texts only.
    let cache = matches!(stage, EmitStage::Ast | EmitStage::Tile).then(tilec::KernelCache::from_env).flatten();
    let (compiled, _) = source
        .compiler(options.target)
        .with_library_dirs(tilec::sleef_library_dirs())
        .with_produce(produce)
        .with_optimize(options.optimize)
        .with_verify(options.verify)
        .with_check_bounds(options.check_bounds)
        .with_texts(emit.is_some() || output.is_none())
        .compile_cached(&request, cache.as_ref())
        .map_err(|d| source.error(d))?;
    if options.time {
        stdout::to_stderr(&compiled.timings.render());
    }
    if let Some(path) = output {
        let bytes = if shared { &compiled.shared_object } else { &compiled.object };
        std::fs::write(path, bytes)
            .map_err(|e| CliError::new(codes::IO, format!("cannot write {}: {e}", path.display())))?;
    }
    if emit.is_some() || output.is_none() {
        let text = match stage {
            EmitStage::Ast => &compiled.ast,
            EmitStage::Tile => &compiled.tile,
            EmitStage::TileOpt => &compiled.tile_opt,
            EmitStage::Axis => &compiled.axis,
            EmitStage::Vector => &compiled.vector,
            EmitStage::Asm => &compiled.asm,
            EmitStage::Nests => &tilec::nest_report(
                options.target,
                &compiled.nests,
                &tilec::source_files(&source.file_name, &source.text, &source.include_dirs),
            ),
        };
        stdout.write(text.as_bytes())?;
    }
    // The process ends right after this command: its output's many allocations are left
    // to the exit instead of being freed one by one.
    std::mem::forget(compiled);
    Ok(())
}

/// The `-c NAME=VALUE` constants.
fn parse_constants(constants: &[String]) -> Result<Vec<(String, tilec::ConstValue)>, CliError> {
    constants
        .iter()
        .map(|c| match c.split_once('=') {
            Some((name, value)) => Ok((name.trim().to_string(), tilec_front::parse_const_value(value.trim()))),
            None => Err(CliError::new(codes::BAD_ARGUMENT, format!("constant `{c}` is not NAME=VALUE"))),
        })
        .collect()
}

/// What `tilec aot` writes and how.
struct AotOptions {
    target: tilec::Target,
    grid: Option<String>,
    name: String,
    out_dir: PathBuf,
    optimize: bool,
    time: bool,
}

/// `tilec aot`: writes DIR/NAME.h, DIR/NAME.c and DIR/NAME.o and names them on stdout.
fn aot(
    kernel: &KernelSource,
    signature: &str,
    constants: &[String],
    options: &AotOptions,
    stdout: &mut Stdout,
) -> Result<(), CliError> {
    let source = LoadedSource::read(kernel)?;
    let signature = tilec_front::parse_signature(signature).map_err(CliError::from)?;
    let request = tilec::aot::AotRequest {
        request: tilec::Request {
            file_name: &source.file_name,
            source: &source.text,
            kernel: &kernel.kernel,
            signature,
            constants: parse_constants(constants)?,
        },
        target: options.target,
        name: options.name.clone(),
        grid: options.grid.clone(),
        optimize: options.optimize,
        library_dirs: tilec::sleef_library_dirs(),
        include_dirs: source.include_dirs.clone(),
    };
    let output = tilec::aot::compile(&request)?;
    if options.time {
        stdout::to_stderr(&output.timings.render());
    }
    create_dir(&options.out_dir)?;
    let name = &options.name;
    let files = [
        (format!("{name}.h"), output.header.into_bytes()),
        (format!("{name}.c"), output.source.into_bytes()),
        (format!("{name}.o"), output.object),
    ];
    write_files(&options.out_dir, &files, stdout)?;
    if output.needs_sleef {
        let dirs = tilec::sleef_library_dirs();
        let dir = dirs.first().map_or("the toolchain cache's SLEEF".to_string(), |d| d.display().to_string());
        stdout.line(&format!("note: {name}.o calls SLEEF: link libsleef.a from {dir} too"))?;
    }
    Ok(())
}

/// Writes each `(file name, bytes)` into `dir` and prints its path.
fn write_files(dir: &Path, files: &[(String, Vec<u8>)], stdout: &mut Stdout) -> Result<(), CliError> {
    for (file, bytes) in files {
        let path = dir.join(file);
        std::fs::write(&path, bytes)
            .map_err(|e| CliError::new(codes::IO, format!("cannot write {}: {e}", path.display())))?;
        stdout.line(&format!("wrote {}", path.display()))?;
    }
    Ok(())
}

/// `tilec aot-link`: writes DIR/NAME.h and DIR/NAME.c.
fn aot_link(headers: &[PathBuf], name: &str, out_dir: &Path, stdout: &mut Stdout) -> Result<(), CliError> {
    let texts = headers
        .iter()
        .map(|path| {
            std::fs::read_to_string(path)
                .map(|text| (path.display().to_string(), text))
                .map_err(|e| CliError::new(codes::IO, format!("cannot read {}: {e}", path.display())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let output = tilec::aot::link(&texts, name)?;
    create_dir(out_dir)?;
    let files = [(format!("{name}.h"), output.header.into_bytes()), (format!("{name}.c"), output.source.into_bytes())];
    write_files(out_dir, &files, stdout)
}

/// How `tilec compile` compiles.
#[derive(Clone, Copy)]
struct CompileOptions {
    target: tilec::Target,
    optimize: bool,
    /// Run the IR verifiers between stages even in a release build.
    verify: bool,
    check_bounds: bool,
    /// Report the stages' wall time (`--time`).
    time: bool,
}

/// The shared object of `request` for `target` from the loaded `program` (through the
/// kernel cache), when `check_bounds` its checked sites, and the stages' wall time.
fn compile_shared_object(
    source: &LoadedSource,
    program: &tilec_syntax::Program,
    target: tilec::Target,
    optimize: bool,
    check_bounds: bool,
    request: &tilec::Request<'_>,
) -> Result<(Vec<u8>, Vec<tilec_codegen::bounds::Site>, StageTimes), Vec<Diagnostic>> {
    let (compiled, _) = source
        .compiler(target)
        .with_library_dirs(tilec::sleef_library_dirs())
        .with_produce(Produce::SharedObject)
        .with_optimize(optimize)
        .with_check_bounds(check_bounds)
        .with_texts(false)
        .compile_cached_loaded(program, request, tilec::KernelCache::from_env().as_ref())?;
    Ok((compiled.shared_object, compiled.bounds_sites, compiled.timings))
}

struct RunOptions {
    grid: GridSpec,
    target: tilec::Target,
    /// Run the Tile IR optimizer (machine code and interpreter alike).
    optimize: bool,
    vlen: u32,
    threads: u32,
    /// How long a compiled run may take.
    timeout: std::time::Duration,
    out: Option<PathBuf>,
    save_inputs: Option<PathBuf>,
    library: Option<PathBuf>,
    /// Compile with bounds checks (compiled targets).
    check_bounds: bool,
    /// Report the stages' wall time and the progress of a long run (`--time`).
    time: bool,
}

/// Runs the kernel, writes the `--out` files, then prints the summary.
fn run(kernel: &KernelSource, arg_texts: &[String], options: &RunOptions, stdout: &mut Stdout) -> Result<(), CliError> {
    let target = options.target;
    let machine = match target {
        tilec::Target::Riscv64gc | tilec::Target::Host => Some(Machine::Scalar),
        tilec::Target::Riscv64gcv => Some(Machine::Vector { vlen: options.vlen, extensions: kernel.features }),
        tilec::Target::Interp => None,
    };
    if machine.is_none() && options.library.is_some() {
        return Err(CliError::new(
            codes::BAD_ARGUMENT,
            "--library runs machine code; it cannot be used with --target interp",
        ));
    }
    if options.check_bounds && options.library.is_some() {
        return Err(CliError::new(
            codes::BAD_ARGUMENT,
            "--check-bounds compiles the kernel with checks; it cannot be used with --library",
        ));
    }
    // Check the toolchain first: its absence is the likeliest failure on a fresh machine.
    let toolchain = match machine {
        Some(_) if !target.runs_in_process() => Some(
            tilec_toolchain::Layout::from_env()
                .and_then(|layout| tilec_toolchain::Toolchain::locate(&layout))
                .map_err(|e| CliError::new(codes::TOOLCHAIN_MISSING, e))?,
        ),
        _ => None,
    };

    let mut timings = StageTimes::default();
    let source = LoadedSource::read(kernel)?;
    // The program is parsed once: its first file's parameters bind the arguments, and the
    // compiler specializes it.
    let program = timings
        .time("parse", || source.compiler(target).load(&source.request(&kernel.kernel)))
        .map_err(|(files, ds)| CliError::in_files(ds, files))?;
    let module = &program.modules[0].module;
    let named =
        arg_texts.iter().map(|a| run_args::parse_arg(a)).collect::<Result<Vec<_>, _>>().map_err(CliError::from)?;
    // An autotuned kernel whose tuned constexprs are not given takes a remembered or tuned
    // config (a given `--library` is one specialization already).
    let autotune = match &options.library {
        Some(_) => None,
        None => autotune_of(&source, module, &kernel.kernel, &[])?
            .filter(|a| !a.configs.is_empty() && !a.tuned_names().iter().any(|n| named.iter().any(|g| g.name == *n))),
    };
    let params = kernel_params_to_bind(&source, module, &kernel.kernel, autotune.as_ref())?;
    let mut binding = run_args::bind(&kernel.kernel, &params, &named).map_err(CliError::from)?;
    if let Some(autotune) = &autotune {
        let chosen = match machine {
            None => {
                let first = &autotune.configs[0];
                stdout::to_stderr(&format!(
                    "autotune: `{}`: --target interp measures nothing; running the first config ({})\n",
                    kernel.kernel,
                    first.label()
                ));
                (first.clone(), false)
            }
            Some(_) => {
                let tuning = TuneOptions {
                    grid: options.grid.clone(),
                    target,
                    configs: Vec::new(),
                    optimize: options.optimize,
                    runs: tilec::tune::Runs {
                        vlen: options.vlen,
                        threads: options.threads,
                        timeout: options.timeout,
                        ..tilec::tune::Runs::default()
                    },
                    out: None,
                };
                choose_config(&source, &kernel.kernel, autotune, &binding, &named, &tuning)?
            }
        };
        let (chosen, tuned) = chosen;
        if tuned {
            tilec::tune::zero_arrays(&mut binding.runtime, &autotune.reset_to_zero);
        }
        binding.constants.extend(chosen.constants);
    }
    let grid = options
        .grid
        .resolve(&binding.constants, &named)
        .map_err(|e| CliError::new(codes::BAD_ARGUMENT, format!("--grid: {e}")))?;
    if let Some(dir) = &options.save_inputs {
        create_dir(dir)?;
        for (name, array) in binding.runtime.iter().flat_map(|arg| arg.arrays()) {
            save_array(dir, &name, array)?;
        }
    }
    let request = tilec::Request {
        file_name: &source.file_name,
        source: &source.text,
        kernel: &kernel.kernel,
        signature: binding.signature.clone(),
        constants: binding.constants.clone(),
    };

    let where_ran = match machine {
        Some(machine) => {
            let (library, sites) = match &options.library {
                Some(path) => (
                    std::fs::read(path)
                        .map_err(|e| CliError::new(codes::IO, format!("cannot read {}: {e}", path.display())))?,
                    Vec::new(),
                ),
                None => {
                    let (library, sites, compile_times) = compile_shared_object(
                        &source,
                        &program,
                        target,
                        options.optimize,
                        options.check_bounds,
                        &request,
                    )
                    .map_err(|d| source.error(d))?;
                    timings.extend(&compile_times);
                    (library, sites)
                }
            };
            let config = LaunchConfig {
                grid,
                threads: options.threads,
                machine,
                timeout: options.timeout,
                check_bounds: options.check_bounds,
            };
            let progress = options.time.then(|| Progress::on_stderr(format!("run of `{}`", kernel.kernel)));
            let start = std::time::Instant::now();
            let ran = match &toolchain {
                Some(toolchain) => launch::run_compiled(
                    toolchain,
                    &library,
                    &kernel.kernel,
                    &mut binding.runtime,
                    &config,
                    &mut |bytes| stdout.write(bytes),
                ),
                None => {
                    let descriptions = launch::site_descriptions(&source.file_name, &source.text, &sites);
                    let library = launch::NativeLibrary::load(&library, &kernel.kernel)?.with_sites(descriptions);
                    launch::run_native(&library, &mut binding.runtime, &config)
                }
            };
            timings.add("run", start.elapsed());
            drop(progress);
            if let Err(failure) = ran {
                let check =
                    failure.bounds_check.as_ref().and_then(|c| launch::bounds_diagnostic(&kernel.kernel, c, &sites));
                let error = save_failed_run(failure, options.out.as_deref(), &binding.runtime);
                return Err(match check {
                    Some(mut d) => {
                        // The runner's notes repeat the check; the saved files are kept.
                        let saved = error.diagnostics.first().map(|e| e.notes.clone()).unwrap_or_default();
                        d.notes.extend(saved.into_iter().filter(|n| n.starts_with("saved ")));
                        source.error(vec![d])
                    }
                    None => error,
                });
            }
            let host = if toolchain.is_some_and(|t| t.qemu.is_some()) { "qemu" } else { "native" };
            let vlen =
                if let Machine::Vector { vlen, .. } = machine { format!(", VLEN {vlen}") } else { String::new() };
            let threads =
                if options.threads == 1 { "1 thread".to_string() } else { format!("{} threads", options.threads) };
            format!("{} ({host}{vlen}, {threads})", target.name())
        }
        None => {
            let output = source
                .compiler(tilec::Target::Riscv64gc)
                .with_produce(Produce::Tile)
                .with_optimize(options.optimize)
                .compile_loaded(&program, &request)
                .map_err(|d| source.error(d))?;
            timings.extend(&output.timings);
            let function = output
                .function_opt
                .or(output.function)
                .ok_or_else(|| CliError::new(codes::RUN_FAILED, "the front end produced no Tile IR function"))?;
            let progress = options.time.then(|| Progress::on_stderr(format!("run of `{}`", kernel.kernel)));
            let result = timings.time("run", || launch::run_interpreted(&function, &mut binding.runtime, grid));
            drop(progress);
            result.map_err(|d| source.error(vec![d]))?;
            "the Tile IR interpreter".to_string()
        }
    };

    if options.time {
        stdout::to_stderr(&timings.render());
    }
    // The `--out` files first, then the summary: a closed standard output loses the
    // summary, never the files.
    let mut saved = Vec::new();
    if let Some(dir) = &options.out {
        create_dir(dir)?;
        for arg in &binding.runtime {
            for (name, array) in arg.arrays() {
                saved.push(save_array(dir, &name, array)?);
            }
        }
    }
    let [gx, gy, gz] = grid;
    stdout.line(&format!("{}({}) grid ({gx}, {gy}, {gz}) on {where_ran}", kernel.kernel, binding.signature_text()))?;
    let mut saved = saved.iter();
    for arg in &binding.runtime {
        for (name, array) in arg.arrays() {
            stdout.line(&format!("  {name} = {}", array.summary(8)))?;
            if let Some(path) = saved.next() {
                stdout.line(&format!("    saved {}", path.display()))?;
            }
        }
    }
    Ok(())
}

/// The `@triton.autotune` decorator of `kernel`, its configs replaced by `configs` when
/// there are any.
fn autotune_of(
    source: &LoadedSource,
    module: &tilec_syntax::ast::Module,
    kernel: &str,
    configs: &[String],
) -> Result<Option<tilec::tune::Autotune>, CliError> {
    let def = tilec_front::signature::find_kernel(module, kernel).map_err(|d| source.error(vec![d]))?;
    let configs = configs.iter().map(|c| tilec::tune::Config::parse(c)).collect::<Result<Vec<_>, _>>()?;
    Ok(tilec::tune::Autotune::of(def).map_err(|d| source.error(vec![d]))?.map(|a| a.with_configs(configs)))
}

/// The parameters the command line binds: every one but those the autotune configs set.
fn kernel_params_to_bind(
    source: &LoadedSource,
    module: &tilec_syntax::ast::Module,
    kernel: &str,
    autotune: Option<&tilec::tune::Autotune>,
) -> Result<Vec<tilec_front::KernelParam>, CliError> {
    let mut params = tilec_front::kernel_params(module, kernel).map_err(|d| source.error(vec![d]))?;
    if let Some(autotune) = autotune {
        let tuned = autotune.tuned_names();
        params.retain(|p| !tuned.contains(&p.name.as_str()));
    }
    Ok(params)
}

/// How `tilec tune` (and `tilec run` of an autotuned kernel) measures.
struct TuneOptions {
    grid: GridSpec,
    target: tilec::Target,
    /// `--config` texts replacing the decorator's configs.
    configs: Vec<String>,
    optimize: bool,
    runs: tilec::tune::Runs,
    out: Option<PathBuf>,
}

/// Runs `work` on the tuning job of `autotune` for `kernel` on `binding`'s arguments, the
/// grid from `options.grid` with each config's constexprs and the command line's integers.
fn with_tuning_job<R>(
    source: &LoadedSource,
    kernel: &str,
    autotune: &tilec::tune::Autotune,
    (binding, named): (&run_args::Binding, &[run_args::NamedArg]),
    options: &TuneOptions,
    work: impl FnOnce(&tilec::tune::Job<'_>) -> R,
) -> R {
    let compiler =
        source.compiler(options.target).with_library_dirs(tilec::sleef_library_dirs()).with_optimize(options.optimize);
    let cache = tilec::KernelCache::from_env();
    let request = tilec::Request {
        file_name: &source.file_name,
        source: &source.text,
        kernel,
        signature: binding.signature.clone(),
        constants: binding.constants.clone(),
    };
    let grid = |config: &tilec::tune::Config| {
        options.grid.resolve(&[binding.constants.as_slice(), config.constants.as_slice()].concat(), named)
    };
    work(&tilec::tune::Job {
        compiler: &compiler,
        cache: cache.as_ref(),
        request: &request,
        autotune,
        runtime: &binding.runtime,
        grid: &grid,
        runs: options.runs,
    })
}

/// The config `tilec run` uses for an autotuned kernel: the remembered choice for these
/// arguments, else a tuning run's (whose table goes to standard error). Says which on
/// standard error; `true` when it tuned (the caller then zeroes the `reset_to_zero` arrays,
/// as Triton does before the launch that follows tuning).
fn choose_config(
    source: &LoadedSource,
    kernel: &str,
    autotune: &tilec::tune::Autotune,
    binding: &run_args::Binding,
    named: &[run_args::NamedArg],
    options: &TuneOptions,
) -> Result<(tilec::tune::Config, bool), CliError> {
    with_tuning_job(source, kernel, autotune, (binding, named), options, |job| remembered_or_tuned(source, kernel, job))
}

/// [`choose_config`] for `job`.
fn remembered_or_tuned(
    source: &LoadedSource,
    kernel: &str,
    job: &tilec::tune::Job<'_>,
) -> Result<(tilec::tune::Config, bool), CliError> {
    let key = job.key_values();
    if let Some(config) = job.remembered() {
        stdout::to_stderr(&format!(
            "autotune: `{kernel}` uses the remembered config {} for key ({key}); `tilec tune` measures again\n",
            config.label()
        ));
        return Ok((config.clone(), false));
    }
    stdout::to_stderr(&format!(
        "autotune: `{kernel}` has no remembered config for key ({key}): tuning {} configs\n",
        job.autotune.configs.len()
    ));
    let tuned = run_tuning(source, job)?;
    stdout::to_stderr(&format!("{}autotune: chose {}\n", tuned.report.table(), tuned.report.chosen().label()));
    Ok((tuned.report.chosen().clone(), true))
}

/// Runs a tuning job after printing the decorator's warnings.
fn run_tuning(source: &LoadedSource, job: &tilec::tune::Job<'_>) -> Result<tilec::tune::Tuned, CliError> {
    job.autotune.check_configs().map_err(|d| source.error(vec![d]))?;
    for warning in &job.autotune.warnings {
        stdout::to_stderr(&format!("warning: {warning}\n"));
    }
    job.tune()
}

/// `tilec tune`: measures every config, prints the table, remembers and reports the choice.
fn tune(
    kernel: &KernelSource,
    arg_texts: &[String],
    options: &TuneOptions,
    stdout: &mut Stdout,
) -> Result<(), CliError> {
    let target = options.target;
    if !target.has_machine_code() {
        return Err(CliError::new(
            codes::AUTOTUNE,
            "tilec tune measures machine code: use --target riscv64gc, riscv64gcv or host",
        ));
    }
    let source = LoadedSource::read(kernel)?;
    let module = tilec_syntax::parse(&source.text).map_err(|d| source.error(d))?;
    let autotune = autotune_of(&source, &module, &kernel.kernel, &options.configs)?.ok_or_else(|| {
        CliError::new(codes::AUTOTUNE, format!("kernel `{}` has no `@triton.autotune` decorator", kernel.kernel))
            .with_note("give configs to measure with --config 'NAME=VALUE, ...' on a kernel decorated with `@triton.autotune(configs=..., key=[...])`")
    })?;
    autotune.check_configs().map_err(|d| source.error(vec![d]))?;
    let named =
        arg_texts.iter().map(|a| run_args::parse_arg(a)).collect::<Result<Vec<_>, _>>().map_err(CliError::from)?;
    if let Some(given) = named.iter().find(|a| autotune.tuned_names().contains(&a.name.as_str())) {
        return Err(CliError::new(
            codes::AUTOTUNE,
            format!("`{}` is set by the autotune configs: leave it out to tune it", given.name),
        ));
    }
    let params = kernel_params_to_bind(&source, &module, &kernel.kernel, Some(&autotune))?;
    let binding = run_args::bind(&kernel.kernel, &params, &named).map_err(CliError::from)?;
    let progress = Progress::on_stderr(format!("tuning `{}`", kernel.kernel));
    let (tuned, cache_on) = with_tuning_job(&source, &kernel.kernel, &autotune, (&binding, &named), options, |job| {
        (run_tuning(&source, job), job.cache.is_some())
    });
    drop(progress);
    let tuned = tuned?;
    let how = match tuned.report.metric {
        tilec::tune::Metric::Instructions => {
            let vlen = if target == tilec::Target::Riscv64gcv {
                format!(", VLEN {}", options.runs.vlen)
            } else {
                String::new()
            };
            format!("instructions of the launch under qemu{vlen}")
        }
        tilec::tune::Metric::WallTime => {
            format!("median wall time of {} launches", options.runs.repeats)
        }
    };
    stdout.line(&format!(
        "autotune `{}` ({}) on {}, key ({}): {how}",
        kernel.kernel,
        binding.signature_text(),
        target.name(),
        tuned.report.key_values
    ))?;
    stdout.write(tuned.report.table().as_bytes())?;
    let remembered =
        if cache_on { "remembered in the kernel cache" } else { "not remembered: the kernel cache is off" };
    stdout.line(&format!("chosen: {} ({remembered})", tuned.report.chosen().label()))?;
    if let Some(dir) = &options.out {
        create_dir(dir)?;
        for arg in &tuned.outputs {
            for (name, array) in arg.arrays() {
                let path = save_array(dir, &name, array)?;
                stdout.line(&format!("  {name} = {}", array.summary(8)))?;
                stdout.line(&format!("    saved {}", path.display()))?;
            }
        }
    }
    Ok(())
}

/// The error of a failed compiled run; with `--out`, the arrays it left are saved as
/// `NAME.failed.npy` (never as `NAME.npy`, which stays a successful run's result) and named
/// in notes.
fn save_failed_run(failure: launch::RunFailure, out: Option<&Path>, args: &[RuntimeArg]) -> CliError {
    let mut error = failure.error;
    let (Some(dir), true) = (out, failure.arrays_left) else { return error };
    let mut notes = Vec::new();
    let saved = create_dir(dir).and_then(|()| {
        for arg in args {
            if let RuntimeValue::Array(array) = &arg.value {
                let path = dir.join(format!("{}.failed.npy", arg.name));
                array.write_npy(&path).map_err(|e| CliError::new(codes::IO, e))?;
                notes.push(format!("saved {} (from the failed run)", path.display()));
            }
        }
        Ok(())
    });
    if let Err(e) = saved {
        error.diagnostics.extend(e.diagnostics);
    }
    if let Some(d) = error.diagnostics.first_mut() {
        d.notes.extend(notes);
    }
    error
}

fn create_dir(dir: &Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::new(codes::IO, format!("cannot create {}: {e}", dir.display())))
}

/// Writes `array` to `dir/NAME.npy` and returns that path.
fn save_array(dir: &Path, name: &str, array: &tilec_npy::HostArray) -> Result<PathBuf, CliError> {
    let path = dir.join(format!("{name}.npy"));
    array.write_npy(&path).map_err(|e| CliError::new(codes::IO, e))?;
    Ok(path)
}
