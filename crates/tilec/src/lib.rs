#![warn(missing_docs)]
//! tilec: Triton kernels compiled to RISC-V 64, as a library.
//!
//! Compile once, launch many: [`Kernel`] names a `@triton.jit` kernel and its
//! specialization (a Triton signature and the `tl.constexpr` values), [`Kernel::build`]
//! compiles it for a [`Target`], and [`CompiledKernel::launch`] runs it over a grid on Rust
//! slices and scalars ([`Arg`]):
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use tilec::{Arg, Kernel, Target};
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/softmax.py");
//! let kernel = Kernel::from_file(path, "softmax_kernel")?
//!     .signature("*fp32:16, *fp32:16, i32, i32, i32, i32")?
//!     .constant("BLOCK_SIZE", 1024)
//!     .constant("num_stages", 2)
//!     .build(&Target::riscv64gcv())?;
//! let (rows, cols) = (8, 781);
//! let input: Vec<f32> = (0..rows * cols).map(|i| (i % 17) as f32).collect();
//! let mut output = vec![0f32; rows * cols];
//! // Under qemu (natively on a riscv64 host): needs `cargo xtask setup`, and says so.
//! kernel.launch(
//!     [rows as u32, 1, 1],
//!     &mut [Arg::from(&mut output[..]), Arg::from(&input[..]), 781.into(), 781.into(), 8.into(), 781.into()],
//! )?;
//! let row_sum: f32 = output[..cols].iter().sum();
//! assert!((row_sum - 1.0).abs() < 1e-5);
//! # Ok(())
//! # }
//! ```
//!
//! Launches run through [`launch`], the code `tilec run` uses: on the RISC-V targets the
//! set-up cache's runner executes the grid under `qemu-riscv64` (natively on a riscv64
//! host), each array between guard pages so that an out-of-bounds access is reported with
//! the array and element instead of corrupting memory; [`Target::Interp`] runs the Tile IR
//! interpreter. Errors are [`Error`]s: diagnostics with codes, rendered with the source
//! lines they point into.
//!
//! Underneath, [`Compiler`] runs the pipeline `syntax → front → (opt) → vector → codegen →
//! link` and returns the text of every stage it ran plus the object / shared object bytes.
//! Between stages it runs the IR verifiers (the Tile IR's after the front end and after the
//! optimizer, the Vector IR's after lowering): always in debug builds, on request
//! ([`Compiler::with_verify`]) in release builds.
//!
//! Invariant: this crate only wires stages together and talks to the outside world (files,
//! tools, the runner); it holds no compiler logic of its own.

use tilec_diagnostics::Diagnostic;

pub mod aot;
mod cache;
pub mod error;
mod kernel;
pub mod launch;
mod native;
pub mod timing;
pub mod tune;

pub use cache::{KernelCache, ALWAYS_COMPILE_ENV};
pub use error::Error;
pub use half;
pub use kernel::{parse_signature, Arg, CompiledKernel, Element, IntoConstant, Kernel, TunedKernel};
pub use tilec_codegen::{NestOutcome, NestReport, VectorExtensions};
pub use tilec_diagnostics as diagnostics;
pub use tilec_front::{ConstValue, SigItem};
pub use tilec_ir as ir;
pub use tilec_syntax as syntax;

/// What a kernel is compiled for, and so where it runs.
///
/// The two RISC-V targets and [`Target::Host`] produce machine code (a shared object);
/// [`Target::Interp`] stops at the Tile IR, which [`CompiledKernel::launch`] runs in the
/// interpreter (as Triton's `TRITON_INTERPRET=1` does). Targets are also named by text: a
/// name, a target triple (the host's own, or a riscv64 Linux one), or the host's
/// architecture:
///
/// ```
/// use tilec::Target;
/// assert_eq!("riscv64gcv".parse::<Target>().unwrap(), Target::riscv64gcv());
/// assert_eq!("riscv64gc-unknown-linux-gnu".parse::<Target>().unwrap(), Target::Riscv64gc);
/// assert_eq!(Target::interp().name(), "interp");
/// assert_eq!("host".parse::<Target>().unwrap(), Target::host());
/// let triple = tilec::host_triple();
/// assert_eq!(triple.parse::<Target>().unwrap(), Target::Host);
/// assert!("mips64-unknown-linux-gnuabi64".parse::<Target>().is_err());
/// assert!("sparc".parse::<Target>().unwrap_err().to_string().contains("riscv64gc, riscv64gcv, host, interp"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// RV64GC, scalar code only.
    Riscv64gc,
    /// RV64GC + RVV 1.0, vector-length agnostic: loop nests the RVV emitter accepts become
    /// RVV leaf functions (their listings follow the kernel's in `--emit asm`).
    Riscv64gcv,
    /// The machine tilec runs on ([`host_triple`]: x86_64, aarch64, riscv64 Linux), scalar
    /// code only, launched natively in this process ([`launch::run_native`]). Math functions
    /// are the system libm's. On a riscv64 host it is [`Target::Riscv64gc`]'s code.
    Host,
    /// No machine code: the Tile IR interpreter on the host runs the kernel.
    Interp,
}

impl Target {
    /// [`Target::Riscv64gc`].
    pub fn riscv64gc() -> Target {
        Target::Riscv64gc
    }

    /// [`Target::Riscv64gcv`].
    pub fn riscv64gcv() -> Target {
        Target::Riscv64gcv
    }

    /// [`Target::Host`]: compiled for the machine this program runs on and launched in it,
    /// with no toolchain.
    ///
    /// ```
    /// # fn main() -> Result<(), tilec::Error> {
    /// use tilec::{Kernel, Target};
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/vector_add.py");
    /// let kernel = Kernel::from_file(path, "add_kernel")?
    ///     .signature("*fp32:16, *fp32:16, *fp32:16, i32")?
    ///     .constant("BLOCK_SIZE", 1024)
    ///     .build(&Target::host())?
    ///     .threads(4);
    /// let (x, y) = (vec![1f32; 4000], vec![2f32; 4000]);
    /// let mut out = vec![0f32; 4000];
    /// kernel.launch([4, 1, 1], &mut [(&x).into(), (&y).into(), (&mut out).into(), 4000.into()])?;
    /// assert!(out.iter().all(|&v| v == 3.0));
    /// assert!(Target::host().runs_in_process());
    /// # Ok(())
    /// # }
    /// ```
    pub fn host() -> Target {
        Target::Host
    }

    /// [`Target::Interp`].
    pub fn interp() -> Target {
        Target::Interp
    }

    /// The name the command line uses (`--target NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Riscv64gc => "riscv64gc",
            Target::Riscv64gcv => "riscv64gcv",
            Target::Host => "host",
            Target::Interp => "interp",
        }
    }

    /// Whether the target produces machine code (a shared object).
    pub fn has_machine_code(self) -> bool {
        self != Target::Interp
    }

    /// Whether its machine code runs natively in this process ([`launch::run_native`]):
    /// [`Target::Host`] always; [`Target::Riscv64gc`] (and [`Target::Riscv64gcv`] when the
    /// CPU has the vector extension) when this process runs on riscv64. The other compiled
    /// targets run through the runner under qemu.
    ///
    /// ```
    /// use tilec::Target;
    /// assert!(Target::Host.runs_in_process());
    /// assert!(!Target::Interp.runs_in_process());
    /// assert_eq!(Target::Riscv64gc.runs_in_process(), cfg!(target_arch = "riscv64"));
    /// ```
    pub fn runs_in_process(self) -> bool {
        match self {
            Target::Host => true,
            Target::Riscv64gc => cfg!(target_arch = "riscv64"),
            Target::Riscv64gcv => cfg!(target_arch = "riscv64") && launch::host_has_rvv(),
            Target::Interp => false,
        }
    }
}

/// The target triple of the machine tilec runs on (`x86_64-unknown-linux-gnu`, ...), the
/// triple [`Target::Host`] compiles for.
///
/// ```
/// assert!(tilec::host_triple().contains("linux"));
/// ```
pub fn host_triple() -> String {
    target_lexicon::Triple::host().to_string()
}

/// Parses a target name (`riscv64gc`, `riscv64gcv`, `host`, `interp`), a riscv64 Linux triple
/// (`riscv64gc-unknown-linux-gnu` is [`Target::Riscv64gc`]; `+v` after the triple, as in
/// `riscv64gc-unknown-linux-gnu+v`, asks for the vector extension), or the triple or
/// architecture of the machine tilec runs on ([`Target::Host`]; on a riscv64 machine the
/// riscv64 names keep their meaning).
impl std::str::FromStr for Target {
    type Err = Error;

    fn from_str(text: &str) -> Result<Target, Error> {
        let (triple, features) = text.trim().split_once('+').unwrap_or((text.trim(), ""));
        let vector = match features {
            "" => false,
            "v" => true,
            _ => return Err(unknown_target(text)),
        };
        let base = match triple {
            "riscv64gc" | "riscv64gc-unknown-linux-gnu" | "riscv64-unknown-linux-gnu" | "riscv64" => Target::Riscv64gc,
            "riscv64gcv" if !vector => return Ok(Target::Riscv64gcv),
            "interp" if !vector => return Ok(Target::Interp),
            "host" if !vector => return Ok(Target::Host),
            _ if !vector && is_host_name(triple) => return Ok(Target::Host),
            _ => return Err(unknown_target(text)),
        };
        Ok(if vector { Target::Riscv64gcv } else { base })
    }
}

/// Whether `text` is the host's triple or its architecture's name (as target-lexicon spells
/// them: `x86_64-unknown-linux-gnu`, `x86_64`, `aarch64`).
fn is_host_name(text: &str) -> bool {
    let host = target_lexicon::Triple::host();
    text == host.to_string() || text == host.architecture.to_string()
}

fn unknown_target(text: &str) -> Error {
    Error::new(
        tilec_diagnostics::codes::tilec::BAD_ARGUMENT,
        format!(
            "`{text}` is not a target: the targets are riscv64gc, riscv64gcv, host, interp (host is {})",
            host_triple()
        ),
    )
}

/// The pipeline stages whose text can be printed (`--emit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// The AST, as parsed.
    Ast,
    /// The Tile IR (the front end's, or the optimizer's).
    Tile,
    /// The Vector IR.
    Vector,
    /// The assembly of the machine code.
    Asm,
}

impl Stage {
    /// The last artifact needed to print this stage.
    pub fn needs(self) -> Produce {
        match self {
            Stage::Ast | Stage::Tile => Produce::Tile,
            Stage::Vector => Produce::Vector,
            Stage::Asm => Produce::Object,
        }
    }
}

/// How far [`Compiler::compile`] goes; each step also produces everything before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Produce {
    /// AST and Tile IR text (and the optimized Tile IR when optimizing).
    Tile,
    /// ... and the Vector IR text.
    Vector,
    /// ... and the relocatable object with its assembly text.
    Object,
    /// ... and the linked shared object.
    SharedObject,
}

/// One kernel to compile.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// File name used in diagnostics.
    pub file_name: &'a str,
    /// The Triton source text.
    pub source: &'a str,
    /// The name of the `@triton.jit` kernel.
    pub kernel: &'a str,
    /// One entry per non-constexpr parameter ([`parse_signature`]).
    pub signature: Vec<SigItem>,
    /// The values of the `tl.constexpr` parameters.
    pub constants: Vec<(String, ConstValue)>,
}

/// The text of each stage that ran, and the artifacts (empty when not produced).
#[derive(Clone, Debug, Default)]
pub struct Output {
    /// The AST's text (`--emit ast`).
    pub ast: String,
    /// Tile IR from the front end.
    pub tile: String,
    /// Tile IR after the optimizer (empty when [`Compiler::optimize`] is off).
    pub tile_opt: String,
    /// The front end's Tile IR function.
    pub function: Option<ir::Function>,
    /// The optimized Tile IR function (`None` when [`Compiler::optimize`] is off); the
    /// interpreter runs this one when present, else [`Output::function`].
    pub function_opt: Option<ir::Function>,
    /// What the optimizer did (`None` when [`Compiler::optimize`] is off): among others,
    /// the rules applied, such as the loop-carried rule that regroups float sums.
    pub opt_report: Option<tilec_opt::Report>,
    /// The axis analysis of the Tile IR that is lowered (`--emit axis`): the optimized
    /// function when optimizing, else the front end's.
    pub axis: String,
    /// Vector IR text (`--emit vector`).
    pub vector: String,
    /// Assembly text of the kernel and its launcher (`--emit asm`): Cranelift's
    /// disassembly of its register-allocated machine code.
    pub asm: String,
    /// ELF relocatable object (riscv64) with `NAME` and `NAME_launch`.
    pub object: Vec<u8>,
    /// The object linked into a shared object.
    pub shared_object: Vec<u8>,
    /// With [`Compiler::check_bounds`]: the checked accesses, by the site number a failed
    /// check reports.
    pub bounds_sites: Vec<tilec_codegen::bounds::Site>,
    /// What became of each loop nest and dot on `riscv64gcv` (RVV leaf or scalar code, and
    /// why), in body order; empty for other targets and before code generation. Rendered by
    /// [`nest_report`] (`--emit nests`).
    pub nests: Vec<NestReport>,
    /// Wall time of each stage that ran (`--time`); not part of any artifact.
    pub timings: timing::StageTimes,
}

/// The front end's output with what the kernel cache had for it.
enum FrontCached<'c> {
    /// The cache held the shared object.
    Hit(Output),
    /// The stages after the front end must run; their shared object is stored under the key.
    Miss { front: Output, store: Option<(&'c KernelCache, String)> },
}

/// The pipeline, configured: [`Compiler::compile`] runs it on a [`Request`].
///
/// ```
/// let source = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, 1.0)\n";
/// let request = tilec::Request {
///     file_name: "k.py",
///     source,
///     kernel: "k",
///     signature: tilec::parse_signature("*fp32:16")?,
///     constants: Vec::new(),
/// };
/// let output = tilec::Compiler::new(tilec::Target::Riscv64gc).compile(&request)?;
/// assert!(output.tile.contains("tt.store"));
/// assert_eq!(&output.shared_object[..4], b"\x7fELF");
/// # Ok::<(), tilec::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Compiler {
    /// What code is generated for ([`Target::Interp`]: none, so asking it for an object
    /// is an `E1014` error).
    pub target: Target,
    /// How far [`Compiler::compile`] goes (default: the shared object).
    pub produce: Produce,
    /// Run the Tile IR optimizer before lowering (default: on).
    pub optimize: bool,
    /// Directories the link step searches for static libraries the kernel needs
    /// (`libsleef.a`); default: none, which is enough for kernels that call no SLEEF function.
    pub library_dirs: Vec<std::path::PathBuf>,
    /// Run the IR verifiers between stages. Debug builds always do; the default is off in
    /// release builds.
    pub verify: bool,
    /// Compile every global load, store and atomic with a bounds check against the extents
    /// of the pointer arguments, which the launcher then passes (`tilec_codegen::bounds`);
    /// default: off.
    pub check_bounds: bool,
    /// The name the machine code's symbols are made from (`NAME`, `NAME_launch`,
    /// `NAME_grid`); default (`None`): the kernel's name. `tilec aot` gives each
    /// specialization its own, so several link into one program.
    pub symbol: Option<String>,
    /// Where absolute imports of other Python modules (`from helpers import f`) are searched
    /// after the kernel file's directory (`-I DIR`); default: none.
    pub include_dirs: Vec<std::path::PathBuf>,
    /// The RVV extensions beyond RVV 1.0 the `riscv64gcv` code may use (`--features
    /// +zvfh,+zvfhmin`); default: none. The other targets ignore them.
    pub extensions: VectorExtensions,
    /// Fill the [`Output`]'s stage texts (`ast`, `tile`, `tile_opt`, `axis`, `vector`,
    /// `asm`); default: on. Off, they stay empty and the pipeline skips printing them (a
    /// quarter of a small kernel's compile time): for callers that want only the code.
    pub texts: bool,
}

impl Compiler {
    /// The whole pipeline for `target`, optimizing, without bounds checks.
    pub fn new(target: Target) -> Compiler {
        Compiler {
            target,
            produce: Produce::SharedObject,
            optimize: true,
            library_dirs: Vec::new(),
            verify: cfg!(debug_assertions),
            check_bounds: false,
            symbol: None,
            include_dirs: Vec::new(),
            extensions: VectorExtensions::default(),
            texts: true,
        }
    }

    /// Sets [`Compiler::texts`]. The code does not depend on it:
    ///
    /// ```
    /// let source = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, 1.0)\n";
    /// let request = tilec::Request {
    ///     file_name: "k.py",
    ///     source,
    ///     kernel: "k",
    ///     signature: tilec::parse_signature("*fp32:16")?,
    ///     constants: Vec::new(),
    /// };
    /// let compiler = tilec::Compiler::new(tilec::Target::Riscv64gcv);
    /// let with = compiler.clone().compile(&request)?;
    /// let without = compiler.with_texts(false).compile(&request)?;
    /// assert!(!with.asm.is_empty() && !with.vector.is_empty());
    /// assert!(without.ast.is_empty() && without.tile.is_empty() && without.asm.is_empty());
    /// assert_eq!(with.shared_object, without.shared_object);
    /// # Ok::<(), tilec::Error>(())
    /// ```
    pub fn with_texts(mut self, texts: bool) -> Compiler {
        self.texts = texts;
        self
    }

    /// Sets [`Compiler::symbol`].
    pub fn with_symbol(mut self, symbol: impl Into<String>) -> Compiler {
        self.symbol = Some(symbol.into());
        self
    }

    /// Sets [`Compiler::include_dirs`].
    pub fn with_include_dirs(mut self, include_dirs: Vec<std::path::PathBuf>) -> Compiler {
        self.include_dirs = include_dirs;
        self
    }

    /// Parses the request's file and the Python modules its imports name, found beside the
    /// file (`req.file_name` read as a path) or in [`Compiler::include_dirs`]. On error, the
    /// files read so far come with the diagnostics, to render them.
    pub fn load(&self, req: &Request<'_>) -> Result<syntax::Program, (diagnostics::SourceMap, Vec<Diagnostic>)> {
        let path = std::path::Path::new(req.file_name);
        syntax::load(req.file_name, path, req.source, &self.include_dirs)
    }

    /// Sets [`Compiler::check_bounds`].
    pub fn with_check_bounds(mut self, check_bounds: bool) -> Compiler {
        self.check_bounds = check_bounds;
        self
    }

    /// Sets [`Compiler::extensions`]: with Zvfhmin (or Zvfh) the fp16 conversions of RVV
    /// leaves are `vfwcvt`/`vfncvt`.
    ///
    /// ```
    /// let source = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, y_ptr):\n    offs = tl.arange(0, 64)\n    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2)\n";
    /// let request = tilec::Request {
    ///     file_name: "k.py",
    ///     source,
    ///     kernel: "k",
    ///     signature: tilec::parse_signature("*fp16:16, *fp16:16")?,
    ///     constants: Vec::new(),
    /// };
    /// let compiler = tilec::Compiler::new(tilec::Target::Riscv64gcv);
    /// let plain = compiler.clone().compile(&request)?;
    /// let zvfh = compiler.with_extensions("+zvfh".parse().unwrap()).compile(&request)?;
    /// assert!(!plain.asm.contains("vfwcvt.f.f.v") && zvfh.asm.contains("vfwcvt.f.f.v"));
    /// assert!(zvfh.asm.contains("vfncvt.f.f.w"));
    /// # Ok::<(), tilec::Error>(())
    /// ```
    pub fn with_extensions(mut self, extensions: VectorExtensions) -> Compiler {
        self.extensions = extensions;
        self
    }

    /// Sets [`Compiler::verify`].
    pub fn with_verify(mut self, verify: bool) -> Compiler {
        self.verify = verify;
        self
    }

    /// Sets [`Compiler::library_dirs`] (usually to [`sleef_library_dirs`]).
    pub fn with_library_dirs(mut self, library_dirs: Vec<std::path::PathBuf>) -> Compiler {
        self.library_dirs = library_dirs;
        self
    }

    /// Sets [`Compiler::produce`].
    pub fn with_produce(mut self, produce: Produce) -> Compiler {
        self.produce = produce;
        self
    }

    /// Sets [`Compiler::optimize`].
    pub fn with_optimize(mut self, optimize: bool) -> Compiler {
        self.optimize = optimize;
        self
    }

    /// Runs the pipeline as far as [`Compiler::produce`] says.
    pub fn compile(&self, req: &Request<'_>) -> Result<Output, Vec<Diagnostic>> {
        let out = self.compile_tile(req)?;
        self.compile_after_front(out)
    }

    /// [`Compiler::compile`] of `program`, which [`Compiler::load`] loaded for `req` (the
    /// output's timings have no parse stage).
    pub fn compile_loaded(&self, program: &syntax::Program, req: &Request<'_>) -> Result<Output, Vec<Diagnostic>> {
        let front = self.front_end(program, req, timing::StageTimes::default())?;
        self.compile_after_front(front)
    }

    /// The stages after the front end, on its output.
    fn compile_after_front(&self, mut out: Output) -> Result<Output, Vec<Diagnostic>> {
        let Some(front) = &out.function else { return Ok(out) };
        let function = if self.optimize {
            let start = std::time::Instant::now();
            let (optimized, report) = tilec_opt::optimize(front, &tilec_opt::Options::default());
            self.check("the optimizer", "Tile IR", || tilec_ir::verify(&optimized))?;
            if self.texts {
                out.tile_opt = tilec_ir::print_function(&optimized);
            }
            out.opt_report = Some(report);
            out.timings.add("opt", start.elapsed());
            out.function_opt.insert(optimized)
        } else {
            front
        };
        if self.texts {
            out.axis = tilec_ir::print_axis_info(function, &tilec_ir::AxisAnalysis::new(function));
        }
        if self.produce < Produce::Vector {
            return Ok(out);
        }
        let renamed;
        let function = match &self.symbol {
            Some(symbol) => {
                renamed = ir::Function { name: symbol.clone(), ..function.clone() };
                &renamed
            }
            None => function,
        };
        let start = std::time::Instant::now();
        let lowered = tilec_vector::lower(function).map_err(|d| vec![d])?;
        self.check("the lowering", "Vector IR", || tilec_vector::verify(&lowered))?;
        if self.texts {
            out.vector = tilec_vector::print_function(&lowered);
        }
        out.timings.add("vector", start.elapsed());
        if self.produce < Produce::Object {
            return Ok(out);
        }
        let Some(target) = codegen_target(self.target) else {
            return Err(vec![Diagnostic::error(
                tilec_diagnostics::codes::tilec::NO_MACHINE_CODE,
                "the interpreter target has no machine code: compile for riscv64gc, riscv64gcv or host",
            )]);
        };
        let start = std::time::Instant::now();
        let options = tilec_codegen::Options {
            check_bounds: self.check_bounds,
            listing: self.texts,
            extensions: self.extensions,
        };
        let compiled = tilec_codegen::compile_with(&lowered, target, &options).map_err(|d| vec![d])?;
        tilec_ir::drop_in_background(lowered);
        out.asm = compiled.asm;
        out.object = compiled.object;
        out.bounds_sites = compiled.sites;
        out.nests = compiled.nests;
        out.timings.add("codegen", start.elapsed());
        if self.produce < Produce::SharedObject {
            return Ok(out);
        }
        let start = std::time::Instant::now();
        out.shared_object = tilec_codegen::link_shared_with(&out.object, &self.library_dirs).map_err(|d| vec![d])?;
        out.timings.add("link", start.elapsed());
        Ok(out)
    }

    /// [`Compiler::compile`] through a kernel cache, as [`Kernel::build`] and `tilec
    /// compile/run` do: a shared object stored under the key of the request and this
    /// configuration (see [`KernelCache`]) is reused, and then only the front end runs (the
    /// [`Output`] holds the AST, the Tile IR and the shared object, and the `bool` is
    /// `true`); otherwise the pipeline runs and its shared object is stored. Only a
    /// whole-pipeline compile without bounds checks uses the cache (`cache` `None`, another
    /// [`Compiler::produce`] or [`Compiler::check_bounds`] run [`Compiler::compile`]).
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("tilec-doc-compile-cached-{}", std::process::id()));
    /// let cache = tilec::KernelCache::in_dir(&dir);
    /// let source = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, 1.0)\n";
    /// let request = tilec::Request {
    ///     file_name: "k.py",
    ///     source,
    ///     kernel: "k",
    ///     signature: tilec::parse_signature("*fp32:16")?,
    ///     constants: Vec::new(),
    /// };
    /// let compiler = tilec::Compiler::new(tilec::Target::Riscv64gc);
    /// let (first, hit) = compiler.compile_cached(&request, Some(&cache))?;
    /// assert!(!hit && !first.asm.is_empty());
    /// let (second, hit) = compiler.compile_cached(&request, Some(&cache))?;
    /// assert!(hit && second.asm.is_empty(), "the code generator did not run");
    /// assert_eq!(first.shared_object, second.shared_object);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok::<(), tilec::Error>(())
    /// ```
    pub fn compile_cached(
        &self,
        req: &Request<'_>,
        cache: Option<&KernelCache>,
    ) -> Result<(Output, bool), Vec<Diagnostic>> {
        let (program, timings) = self.load_timed(req)?;
        let front = self.front_cached(&program, req, cache);
        // The program is not needed after the front end.
        tilec_ir::drop_in_background(program);
        let (mut output, hit) = self.after_front_cached(front?)?;
        output.timings.extend(&timings);
        Ok((output, hit))
    }

    /// [`Compiler::compile_cached`] of `program`, which [`Compiler::load`] loaded for `req`:
    /// a caller that reads the program itself parses its files once (the output's timings
    /// then have no parse stage).
    pub fn compile_cached_loaded(
        &self,
        program: &syntax::Program,
        req: &Request<'_>,
        cache: Option<&KernelCache>,
    ) -> Result<(Output, bool), Vec<Diagnostic>> {
        self.after_front_cached(self.front_cached(program, req, cache)?)
    }

    /// The part of [`Compiler::compile_cached_loaded`] that reads `program`: the front end,
    /// and the cached shared object if there is one.
    fn front_cached<'c>(
        &self,
        program: &syntax::Program,
        req: &Request<'_>,
        cache: Option<&'c KernelCache>,
    ) -> Result<FrontCached<'c>, Vec<Diagnostic>> {
        let cache = cache
            .filter(|_| self.produce == Produce::SharedObject && !self.check_bounds && self.target.has_machine_code());
        let front = self.front_end(program, req, timing::StageTimes::default())?;
        let Some(cache) = cache else { return Ok(FrontCached::Miss { front, store: None }) };
        let key = self.cache_key(program, req, &[]);
        Ok(match cache.load(&key) {
            Some(shared_object) => FrontCached::Hit(Output { shared_object, ..front }),
            None => FrontCached::Miss { front, store: Some((cache, key)) },
        })
    }

    /// The rest of [`Compiler::compile_cached_loaded`]: the stages after the front end on a
    /// cache miss, whose shared object is then stored.
    fn after_front_cached(&self, front: FrontCached<'_>) -> Result<(Output, bool), Vec<Diagnostic>> {
        match front {
            FrontCached::Hit(output) => Ok((output, true)),
            FrontCached::Miss { front, store } => {
                let output = self.compile_after_front(front)?;
                if let Some((cache, key)) = store {
                    // A cache that cannot be written costs a compile next time, nothing more.
                    let _ = cache.store(&key, &output.shared_object);
                }
                Ok((output, false))
            }
        }
    }

    /// The kernel cache's key for `req` compiled by this compiler from `program` (every file
    /// the kernel may use: its own and the modules it imports), and the `extra` parts.
    pub(crate) fn cache_key(&self, program: &syntax::Program, req: &Request<'_>, extra: &[&[u8]]) -> String {
        let signature = format!("{:?}", req.signature);
        let constants = format!("{:?}", req.constants);
        let features =
            if self.target == Target::Host { tilec_codegen::host_features().join(",") } else { String::new() };
        let options = format!(
            "optimize={} library_dirs={:?} features={features} extensions={} symbol={:?}",
            self.optimize,
            self.library_dirs,
            self.extensions.text(),
            self.symbol
        );
        let sources: Vec<u8> = program
            .files
            .files()
            .iter()
            .flat_map(|f| [f.name.as_bytes(), b"\0", f.text.as_bytes(), b"\0"].concat())
            .collect();
        let mut parts: Vec<&[u8]> = vec![
            sources.as_slice(),
            req.kernel.as_bytes(),
            signature.as_bytes(),
            constants.as_bytes(),
            self.target.name().as_bytes(),
            options.as_bytes(),
        ];
        parts.extend_from_slice(extra);
        cache::key(&parts)
    }

    /// The kernel's runtime parameters after specialization (constexprs and ints equal to 1
    /// removed), in ABI order: what `NAME_launch`'s argument slots hold.
    pub fn runtime_params(&self, req: &Request<'_>) -> Result<Vec<ir::Param>, Vec<Diagnostic>> {
        let out = self.compile_tile(req)?;
        Ok(out.function.map(|f| f.params).unwrap_or_default())
    }

    /// Runs the front end up to the Tile IR (`--emit ast|tile`).
    pub fn compile_tile(&self, req: &Request<'_>) -> Result<Output, Vec<Diagnostic>> {
        let (program, timings) = self.load_timed(req)?;
        let out = self.front_end(&program, req, timings);
        tilec_ir::drop_in_background(program);
        out
    }

    /// [`Compiler::load`], timed as the parse stage.
    fn load_timed(&self, req: &Request<'_>) -> Result<(syntax::Program, timing::StageTimes), Vec<Diagnostic>> {
        let mut timings = timing::StageTimes::default();
        let start = std::time::Instant::now();
        let program = self.load(req).map_err(|(_, ds)| ds)?;
        timings.add("parse", start.elapsed());
        Ok((program, timings))
    }

    /// The front end on a loaded program: the AST's text and the Tile IR.
    fn front_end(
        &self,
        program: &syntax::Program,
        req: &Request<'_>,
        mut timings: timing::StageTimes,
    ) -> Result<Output, Vec<Diagnostic>> {
        let start = std::time::Instant::now();
        let ast = if self.texts { tilec_syntax::print_module(&program.modules[0].module) } else { String::new() };
        let function = tilec_front::specialize_program(program, req.kernel, &req.signature, &req.constants)?;
        self.check("the front end", "Tile IR", || tilec_ir::verify(&function))?;
        let tile = if self.texts { tilec_ir::print_function(&function) } else { String::new() };
        timings.add("front", start.elapsed());
        Ok(Output { ast, tile, function: Some(function), timings, ..Output::default() })
    }

    /// Runs `verify` on the IR `stage` produced when verifying is on; each violation becomes
    /// an internal-error diagnostic ([`tilec_diagnostics::codes::tilec::INVALID_IR`]) naming the stage.
    fn check(
        &self,
        stage: &str,
        ir: &str,
        verify: impl FnOnce() -> Result<(), Vec<Diagnostic>>,
    ) -> Result<(), Vec<Diagnostic>> {
        if !(self.verify || cfg!(debug_assertions)) {
            return Ok(());
        }
        verify().map_err(|errors| {
            errors
                .into_iter()
                .map(|e| {
                    let mut d = Diagnostic::error(
                        tilec_diagnostics::codes::tilec::INVALID_IR,
                        format!("internal error: {stage} produced {ir} that does not verify: {}", e.message),
                    )
                    .with_note(format!("verifier code {}; this is a bug in tilec, not in the kernel", e.code));
                    d.span = e.span;
                    d
                })
                .collect()
        })
    }
}

/// The files diagnostics about the file `file_name` (text `source`) may point into: it and
/// the modules its imports name, found beside it or in `include_dirs` (those read before an
/// error, if loading fails), to render them ([`Error::in_files`]).
pub fn source_files(file_name: &str, source: &str, include_dirs: &[std::path::PathBuf]) -> diagnostics::SourceMap {
    syntax::load(file_name, std::path::Path::new(file_name), source, include_dirs)
        .map_or_else(|(files, _)| files, |program| program.files)
}

/// Where the link step finds `libsleef.a`: the set-up cache's SLEEF build
/// (`tilec_toolchain::Layout::sleef_lib_dir`); none when the cache cannot be located, and the
/// link step then reports a kernel that needs SLEEF.
pub fn sleef_library_dirs() -> Vec<std::path::PathBuf> {
    tilec_toolchain::Layout::from_env().map(|layout| vec![layout.sleef_lib_dir()]).unwrap_or_default()
}

/// The nest report of `target` (`--emit nests`): one line per loop nest and `tl.dot` of the
/// kernel body, with the source location of its first statement (looked up in `files`, the
/// program's sources) and what it became. On `riscv64gcv` a nest is an RVV leaf function or
/// scalar code with the reason; on other targets all code is scalar.
///
/// ```
/// let source = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr):\n    x = tl.load(x_ptr + tl.arange(0, 64))\n    tl.store(x_ptr + tl.arange(0, 64), x + 1.0)\n";
/// let request = tilec::Request {
///     file_name: "k.py",
///     source,
///     kernel: "k",
///     signature: tilec::parse_signature("*fp32:16")?,
///     constants: Vec::new(),
/// };
/// let output = tilec::Compiler::new(tilec::Target::Riscv64gcv).compile(&request)?;
/// let files = tilec::source_files("k.py", source, &[]);
/// let report = tilec::nest_report(tilec::Target::Riscv64gcv, &output.nests, &files);
/// assert!(report.contains("nest [64] at k.py:5:") && report.contains("rvv leaf k__rvv0"), "{report}");
/// # Ok::<(), tilec::Error>(())
/// ```
pub fn nest_report(target: Target, nests: &[NestReport], files: &diagnostics::SourceMap) -> String {
    use std::fmt::Write;
    if target != Target::Riscv64gcv {
        return format!("# target {}: scalar code only, no RVV leaves\n", target.name());
    }
    let scalar = nests.iter().filter(|n| matches!(n.outcome, NestOutcome::Scalar(_))).count();
    let mut text = format!("# {} nests and dots: {} RVV, {scalar} scalar\n", nests.len(), nests.len() - scalar);
    for n in nests {
        let at = n.span.and_then(|s| files.location(s.start)).map(|l| format!(" at {l}")).unwrap_or_default();
        let outcome = match &n.outcome {
            NestOutcome::Leaf(name) => format!("rvv leaf {name}"),
            NestOutcome::Microkernel { leaf, may_decline: false } => format!("rvv microkernel {leaf}"),
            NestOutcome::Microkernel { leaf, may_decline: true } => {
                format!("rvv microkernel {leaf} (shapes it does not handle run as scalar loops)")
            }
            NestOutcome::Scalar(reason) => format!("scalar: {reason}"),
        };
        let _ = writeln!(text, "{}{at}: {outcome}", n.what);
    }
    text
}

/// The code generator's target for a compiler target (none for the interpreter).
fn codegen_target(target: Target) -> Option<tilec_codegen::Target> {
    match target {
        Target::Riscv64gc => Some(tilec_codegen::Target::Riscv64gc),
        Target::Riscv64gcv => Some(tilec_codegen::Target::Riscv64gcv),
        Target::Host => Some(tilec_codegen::Target::Host),
        Target::Interp => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tilec_diagnostics::Span;

    /// A verifier failure becomes one internal error per violation, naming the stage and
    /// keeping the violation's span, code (in a note) and message.
    #[test]
    fn a_verifier_failure_is_an_internal_error_naming_the_stage() {
        let violation = Diagnostic::error(
            tilec_diagnostics::codes::ir::WRONG_TYPE,
            "`%3 = arith.addi %1, %2 : i32`: the operands have different types",
        )
        .with_span(Span::new(4, 9));
        let compiler = Compiler::new(Target::Riscv64gc).with_verify(true);
        let errors = compiler.check("the optimizer", "Tile IR", || Err(vec![violation])).expect_err("rejected");
        assert_eq!(errors.len(), 1);
        let d = &errors[0];
        assert_eq!(d.code, tilec_diagnostics::codes::tilec::INVALID_IR);
        assert_eq!(
            d.message,
            "internal error: the optimizer produced Tile IR that does not verify: `%3 = arith.addi %1, %2 : i32`: \
             the operands have different types"
        );
        assert_eq!(d.span, Some(Span::new(4, 9)));
        assert_eq!(d.notes, vec!["verifier code E0303; this is a bug in tilec, not in the kernel".to_string()]);
        assert!(compiler.check("the lowering", "Vector IR", || Ok(())).is_ok());
    }
}
