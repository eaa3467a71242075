//! Compile once, launch many: [`Kernel`] names a kernel and its specialization,
//! [`Kernel::build`] compiles it for a [`Target`] into a [`CompiledKernel`], and
//! [`CompiledKernel::launch`] runs it over a grid on Rust slices and scalars ([`Arg`]).
//!
//! Invariant: a launch runs through [`crate::launch`], the same code as `tilec run`: under
//! qemu (or natively on a riscv64 host) through the runner, whose arrays sit between guard
//! pages, or in the interpreter. The slices are copied in before the run and the mutable
//! ones copied back after a successful run; after a failed run every slice is unchanged.

use std::path::Path;
use std::time::Duration;

use tilec_diagnostics::Diagnostic;
use tilec_front::{ConstValue, SigItem};
use tilec_ir::{Elem, ScalarType};
use tilec_npy::{HostArray, Number};

use crate::error::codes;
use std::sync::Arc;

use crate::launch::{self, LaunchConfig, Machine, NativeLibrary, RuntimeArg, RuntimeValue};
use crate::tune::{self, Autotune, Config, Report};
use crate::{Compiler, Error, KernelCache, Output, Request, Target};

/// A kernel of a Triton source file and its specialization, ready to be compiled.
///
/// ```
/// # fn main() -> Result<(), tilec::Error> {
/// let source = "
/// import triton
/// import triton.language as tl
///
/// @triton.jit
/// def scale(x_ptr, out_ptr, factor, n, BLOCK: tl.constexpr):
///     offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
///     mask = offs < n
///     tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)
/// ";
/// let kernel = tilec::Kernel::from_source("scale.py", source, "scale")
///     .signature("*fp32:16, *fp32:16, fp32, i32")?
///     .constant("BLOCK", 64)
///     .build(&tilec::Target::interp())?;
/// let x: Vec<f32> = (0..100).map(|i| i as f32).collect();
/// let mut out = vec![0f32; 100];
/// kernel.launch([2, 1, 1], &mut [(&x).into(), (&mut out).into(), 0.5f32.into(), 100.into()])?;
/// assert_eq!(out[99], 49.5);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Kernel {
    file_name: String,
    source: String,
    name: String,
    signature: Vec<SigItem>,
    constants: Vec<(String, ConstValue)>,
    optimize: bool,
    check_bounds: bool,
    cache: Option<KernelCache>,
    include_dirs: Vec<std::path::PathBuf>,
    /// Autotune configs that replace the decorator's ([`Kernel::autotune_configs`]).
    configs: Vec<Config>,
    /// RVV extensions for `riscv64gcv` ([`Kernel::extensions`]).
    extensions: crate::VectorExtensions,
}

impl Kernel {
    /// The kernel `name` of the Triton source file at `path` (read now; an unreadable file
    /// is an [`codes::IO`] error).
    pub fn from_file(path: impl AsRef<Path>, name: &str) -> Result<Kernel, Error> {
        let path = path.as_ref();
        let source = std::fs::read_to_string(path)
            .map_err(|e| Error::new(codes::IO, format!("cannot read {}: {e}", path.display())))?;
        Ok(Kernel::from_source(&path.display().to_string(), &source, name))
    }

    /// The kernel `name` of `source`; `file_name` is what diagnostics call the source.
    pub fn from_source(file_name: &str, source: &str, name: &str) -> Kernel {
        Kernel {
            file_name: file_name.to_string(),
            source: source.to_string(),
            name: name.to_string(),
            signature: Vec::new(),
            constants: Vec::new(),
            optimize: true,
            check_bounds: false,
            cache: KernelCache::from_env(),
            include_dirs: Vec::new(),
            configs: Vec::new(),
            extensions: crate::VectorExtensions::default(),
        }
    }

    /// The types of the kernel's non-constexpr parameters, in order, as Triton's
    /// `compile.py` writes them: `"*fp32:16, *fp32:16, i32, i32:16, 1"` (see
    /// [`parse_signature`]).
    pub fn signature(mut self, text: &str) -> Result<Kernel, Error> {
        self.signature = parse_signature(text)?;
        Ok(self)
    }

    /// The value of the `tl.constexpr` parameter `name`: an integer, float or bool, or
    /// text as `tilec compile -c NAME=VALUE` takes it (`"tl.float16"`, `"(2, 4)"`).
    pub fn constant(mut self, name: &str, value: impl IntoConstant) -> Kernel {
        self.constants.retain(|(n, _)| n != name);
        self.constants.push((name.to_string(), value.into_constant()));
        self
    }

    /// Whether the Tile IR optimizer runs (default: yes), like `tilec -O0` when `false`.
    pub fn optimize(mut self, optimize: bool) -> Kernel {
        self.optimize = optimize;
        self
    }

    /// Compiles every load, store and atomic with a check against the extents of the
    /// arrays (default: no), like `tilec run --check-bounds`: a launch that leaves its
    /// arrays fails with the source span of the access. The interpreter always checks.
    pub fn check_bounds(mut self, check_bounds: bool) -> Kernel {
        self.check_bounds = check_bounds;
        self
    }

    /// The RVV extensions beyond RVV 1.0 that `riscv64gcv` code may use and the machine it
    /// runs on has (default: none), like `tilec run --features +zvfh`; the other targets
    /// ignore them.
    pub fn extensions(mut self, extensions: crate::VectorExtensions) -> Kernel {
        self.extensions = extensions;
        self
    }

    /// Adds a directory searched for the Python modules the file imports (`from helpers
    /// import f`), after the file's own directory; relative imports (`from .helpers import
    /// f`) are found beside the importing file.
    pub fn include_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Kernel {
        self.include_dirs.push(dir.into());
        self
    }

    /// Where [`Kernel::build`] keeps and finds compiled kernels (default:
    /// [`KernelCache::from_env`], `$TILEC_CACHE/kernels`); `None` compiles every time.
    pub fn cache(mut self, cache: Option<KernelCache>) -> Kernel {
        self.cache = cache;
        self
    }

    /// Compiles the kernel for `target`. Compiling needs no toolchain (SLEEF, which
    /// vector math on `riscv64gcv` links, is found in the set-up cache); launching on a
    /// RISC-V target does. A shared object in the [`Kernel::cache`] for the same source,
    /// specialization, target, options and compiler is reused: then only the front end
    /// runs, and [`CompiledKernel::output`] holds the AST, the Tile IR and the shared
    /// object. Kernels with bounds checks are not cached.
    pub fn build(&self, target: &Target) -> Result<CompiledKernel, Error> {
        let request = self.request();
        let compiler = self.compiler(target);
        let (output, from_cache) = compiler.compile_cached(&request, self.cache.as_ref()).map_err(|d| self.error(d))?;
        let params = output.function.as_ref().map(|f| f.params.clone()).unwrap_or_default();
        let native = if target.runs_in_process() {
            let sites = launch::site_descriptions(&self.file_name, &self.source, &output.bounds_sites);
            Some(Arc::new(NativeLibrary::load(&output.shared_object, &self.name)?.with_sites(sites)))
        } else {
            None
        };
        Ok(CompiledKernel {
            kernel: self.clone(),
            target: *target,
            params,
            from_cache,
            native,
            output,
            threads: 1,
            vlen: 256,
            timeout: Duration::from_secs(600),
        })
    }

    /// Autotune configs to measure instead of the decorator's, for a file whose
    /// `@triton.autotune(configs=...)` is made by host code (`get_autotune_config()`), which
    /// tilec does not run.
    pub fn autotune_configs(mut self, configs: Vec<Config>) -> Kernel {
        self.configs = configs;
        self
    }

    /// Tunes the kernel's `@triton.autotune` configs for `target` on `args` (one per
    /// signature entry, as [`CompiledKernel::launch`] takes them; the constexprs the configs
    /// set are left out of the [`Kernel::constant`]s): compiles every config, launches each
    /// over `grid(config)` (Triton's `grid = lambda META: ...`) and measures it (see
    /// [`crate::tune`]: instructions under qemu for the RISC-V targets, the median wall time
    /// in this process on the host), then chooses the best and remembers it in the
    /// [`Kernel::cache`]. Every launch starts from the arguments as given, with the
    /// decorator's `reset_to_zero` arrays zeroed; the `&mut` slices get the results of the
    /// chosen config's launch. A config that fails is in the report, not an error, unless
    /// every config fails.
    ///
    /// ```
    /// # fn main() -> Result<(), tilec::Error> {
    /// let source = "
    /// import triton
    /// import triton.language as tl
    ///
    /// @triton.autotune(configs=[triton.Config({'BLOCK': 32}), triton.Config({'BLOCK': 128}, num_warps=4)],
    ///                  key=['n'], reset_to_zero=['total_ptr'])
    /// @triton.jit
    /// def total(x_ptr, total_ptr, n, BLOCK: tl.constexpr):
    ///     offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ///     tl.atomic_add(total_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0), axis=0))
    /// ";
    /// let x: Vec<i32> = (0..1000).collect();
    /// let mut total = vec![7i32];        // zeroed before every launch: reset_to_zero
    /// let tuned = tilec::Kernel::from_source("total.py", source, "total")
    ///     .signature("*i32:16, *i32:16, i32")?
    ///     .cache(None)
    ///     .tune(&tilec::Target::host(), |config| {
    ///         let block = config.constants[0].1.clone();
    ///         let tilec::ConstValue::Int(block) = block else { unreachable!() };
    ///         [1000u32.div_ceil(block as u32), 1, 1]
    ///     }, &mut [(&x).into(), (&mut total).into(), 1000.into()])?;
    /// assert_eq!(total, [499_500]);      // one launch of the chosen config
    /// assert_eq!(tuned.report().trials.len(), 2);
    /// println!("{}", tuned.report().table());
    /// // The chosen config, compiled: launch it again without tuning.
    /// let (block, kernel) = (tuned.config().label(), tuned.kernel());
    /// assert!(block == "BLOCK=32" || block == "BLOCK=128");
    /// # let _ = kernel;
    /// # Ok(())
    /// # }
    /// ```
    pub fn tune(
        &self,
        target: &Target,
        grid: impl Fn(&Config) -> [u32; 3],
        args: &mut [Arg<'_>],
    ) -> Result<TunedKernel, Error> {
        let request = self.request();
        let compiler = self.compiler(target);
        let program = compiler.load(&request).map_err(|(files, ds)| Error::in_files(ds, files))?;
        let def =
            program.modules.first().ok_or_else(|| Error::new(codes::IO, "the program has no file")).and_then(|m| {
                tilec_front::signature::find_kernel(&m.module, &self.name).map_err(|d| self.error(vec![d]))
            })?;
        let autotune = Autotune::of(def)
            .map_err(|d| self.error(vec![d]))?
            .ok_or_else(|| {
                Error::new(codes::AUTOTUNE, format!("kernel `{}` has no `@triton.autotune` decorator", self.name))
            })?
            .with_configs(self.configs.clone());
        autotune.check_configs().map_err(|d| self.error(vec![d]))?;
        if let Some((name, _)) = self.constants.iter().find(|(n, _)| autotune.tuned_names().contains(&n.as_str())) {
            return Err(Error::new(
                codes::AUTOTUNE,
                format!("`{name}` is set by the autotune configs: leave it out of the constants to tune it"),
            ));
        }
        let with_config = |config: &Config| {
            let mut kernel = self.clone();
            for (name, value) in &config.constants {
                kernel = kernel.constant(name, value.clone());
            }
            kernel
        };
        // The arguments are bound through the first config that compiles: the runtime
        // parameters do not depend on the constexpr values.
        let mut first_error = None;
        let binder = autotune.configs.iter().find_map(|c| match with_config(c).build(target) {
            Ok(kernel) => Some(kernel),
            Err(e) => {
                first_error.get_or_insert(e);
                None
            }
        });
        let Some(binder) = binder else {
            let error = first_error.unwrap_or_else(|| Error::new(codes::TUNE_FAILED, "no config"));
            return Err(Error::new(codes::TUNE_FAILED, "every autotune config failed to compile")
                .with_note(format!("the first config's error:\n{}", error.render().trim_end())));
        };
        let (runtime, slots) = binder.bind(args)?;
        let grid = |config: &Config| Ok(grid(config));
        let job = tune::Job {
            compiler: &compiler,
            cache: self.cache.as_ref(),
            request: &request,
            autotune: &autotune,
            runtime: &runtime,
            grid: &grid,
            runs: tune::Runs::default(),
        };
        let tuned = job.tune()?;
        copy_back(args, &slots, &tuned.outputs);
        let kernel = with_config(tuned.report.chosen()).build(target)?;
        Ok(TunedKernel { kernel, report: tuned.report })
    }

    /// The compile request of this kernel.
    fn request(&self) -> Request<'_> {
        Request {
            file_name: &self.file_name,
            source: &self.source,
            kernel: &self.name,
            signature: self.signature.clone(),
            constants: self.constants.clone(),
        }
    }

    /// The compiler [`Kernel::build`] uses for `target`.
    fn compiler(&self, target: &Target) -> Compiler {
        let produce = if target.has_machine_code() { crate::Produce::SharedObject } else { crate::Produce::Tile };
        Compiler::new(*target)
            .with_include_dirs(self.include_dirs.clone())
            .with_library_dirs(crate::sleef_library_dirs())
            .with_produce(produce)
            .with_optimize(self.optimize)
            .with_check_bounds(self.check_bounds && target.has_machine_code())
            .with_extensions(self.extensions)
    }

    /// `diagnostics` with the files they point into (this kernel's and those it imports).
    fn error(&self, diagnostics: Vec<Diagnostic>) -> Error {
        Error::in_files(diagnostics, crate::source_files(&self.file_name, &self.source, &self.include_dirs))
    }
}

/// Parses a Triton signature (`"*fp32:16, i32, 1024"`: one entry per non-constexpr
/// parameter; `*T` a pointer, `:16` a divisibility, `1` an int specialized to one).
///
/// ```
/// let items = tilec::parse_signature("*fp16:16, i32, 1").unwrap();
/// assert_eq!(items.len(), 3);
/// assert!(tilec::parse_signature("*fp99").is_err());
/// ```
pub fn parse_signature(text: &str) -> Result<Vec<SigItem>, Error> {
    tilec_front::parse_signature(text).map_err(Error::from)
}

/// A value that [`Kernel::constant`] takes for a `tl.constexpr` parameter.
pub trait IntoConstant {
    /// The value as the front end represents it.
    fn into_constant(self) -> ConstValue;
}

macro_rules! int_constants {
    ($($t:ty),*) => {$(
        impl IntoConstant for $t {
            fn into_constant(self) -> ConstValue {
                ConstValue::Int(i128::from(self))
            }
        }
    )*};
}
int_constants!(i8, i16, i32, i64, u8, u16, u32, u64);

impl IntoConstant for usize {
    fn into_constant(self) -> ConstValue {
        ConstValue::Int(self as i128)
    }
}

impl IntoConstant for bool {
    fn into_constant(self) -> ConstValue {
        ConstValue::Bool(self)
    }
}

impl IntoConstant for f64 {
    fn into_constant(self) -> ConstValue {
        ConstValue::Float(self)
    }
}

impl IntoConstant for f32 {
    fn into_constant(self) -> ConstValue {
        ConstValue::Float(f64::from(self))
    }
}

/// Text, read as `tilec compile -c NAME=VALUE` reads it.
impl IntoConstant for &str {
    fn into_constant(self) -> ConstValue {
        tilec_front::parse_const_value(self)
    }
}

impl IntoConstant for ConstValue {
    fn into_constant(self) -> ConstValue {
        self
    }
}

/// A kernel compiled for one target, launched any number of times.
#[derive(Clone, Debug)]
pub struct CompiledKernel {
    kernel: Kernel,
    target: Target,
    /// The runtime parameters of the specialized kernel, in ABI order.
    params: Vec<tilec_ir::Param>,
    /// The shared object came from the kernel cache.
    from_cache: bool,
    /// The shared object loaded into this process, for a target that runs here.
    native: Option<Arc<NativeLibrary>>,
    output: Output,
    threads: u32,
    vlen: u32,
    timeout: Duration,
}

impl CompiledKernel {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.kernel.name
    }

    /// The target it was compiled for.
    pub fn target(&self) -> Target {
        self.target
    }

    /// Whether [`Kernel::build`] found the shared object in the kernel cache (and so ran
    /// only the front end).
    pub fn from_cache(&self) -> bool {
        self.from_cache
    }

    /// The shared object (empty for [`Target::Interp`]).
    pub fn shared_object(&self) -> &[u8] {
        &self.output.shared_object
    }

    /// Every stage's text and the artifacts, as [`Compiler::compile`] returned them.
    pub fn output(&self) -> &Output {
        &self.output
    }

    /// Splits the grid over `threads` threads (default 1), statically in (z, y, x) order.
    /// Results do not depend on it unless the kernel's do on the order its programs run in
    /// (atomics' old values).
    pub fn threads(mut self, threads: u32) -> CompiledKernel {
        self.threads = threads.clamp(1, 256);
        self
    }

    /// The vector register width qemu emulates for [`Target::Riscv64gcv`] (default 256; a
    /// power of two from 128 to 1024). Kernels are vector-length agnostic: results do not
    /// depend on it beyond the order of float sums.
    pub fn vlen(mut self, vlen: u32) -> CompiledKernel {
        self.vlen = vlen;
        self
    }

    /// How long a run may take (default 600 s): the runner is then killed and the launch
    /// fails; a launch in this process, which cannot be stopped, ends the process with a
    /// report instead.
    pub fn timeout(mut self, timeout: Duration) -> CompiledKernel {
        self.timeout = timeout;
        self
    }

    /// Runs the kernel over `grid` (programs along x, y, z; each at least 1) with one
    /// argument per entry of the signature, in order: slices for pointers (`&mut` ones get
    /// the results; what a kernel writes into a `&` slice is dropped) and scalars for
    /// scalars. An entry specialized to `1` takes `1`.
    ///
    /// On [`Target::Riscv64gc`] and [`Target::Riscv64gcv`] the kernel runs through the
    /// runner of the set-up cache, under qemu (natively on a riscv64 host); a missing
    /// toolchain is a [`codes::TOOLCHAIN_MISSING`] error that names `cargo xtask setup`.
    /// Each array lies between guard pages, so an access past its end fails the launch with
    /// a report naming the array, the element and the program. What the kernel prints goes
    /// to standard output.
    ///
    /// ```
    /// # fn main() -> Result<(), tilec::Error> {
    /// let source = "
    /// import triton
    /// import triton.language as tl
    ///
    /// @triton.jit
    /// def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    ///     offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ///     mask = offs < n
    ///     x = tl.load(x_ptr + offs, mask=mask)
    ///     tl.store(out_ptr + offs, x + tl.load(y_ptr + offs, mask=mask), mask=mask)
    /// ";
    /// let kernel = tilec::Kernel::from_source("add.py", source, "add")
    ///     .signature("*i64:16, *i64:16, *i64:16, i32")?
    ///     .constant("BLOCK", 256)
    ///     .build(&tilec::Target::riscv64gcv())?;
    /// let x: Vec<i64> = (0..1000).collect();
    /// let y = vec![7i64; 1000];
    /// let mut out = vec![0i64; 1000];
    /// // Runs under qemu: this needs `cargo xtask setup`, and says so when it is missing.
    /// kernel.launch([4, 1, 1], &mut [(&x).into(), (&y).into(), (&mut out).into(), 1000.into()])?;
    /// assert!(out.iter().enumerate().all(|(i, &v)| v == i as i64 + 7));
    ///
    /// // A wrong argument is an error, not a crash.
    /// let error = kernel.launch([4, 1, 1], &mut [(&x).into(), (&y).into(), 1000.into()]).unwrap_err();
    /// assert!(error.to_string().contains("missing argument"), "{error}");
    /// # Ok(())
    /// # }
    /// ```
    pub fn launch(&self, grid: [u32; 3], args: &mut [Arg<'_>]) -> Result<(), Error> {
        if let Some(d) = grid.iter().find(|&&d| d == 0 || d > i32::MAX as u32) {
            return Err(Error::new(
                codes::LAUNCH_ARGUMENT,
                format!("grid {grid:?}: {d} is not a grid size (an integer from 1 to 2^31-1)"),
            ));
        }
        let (mut runtime, slots) = self.bind(args)?;
        if let Some(function) = &self.output.function {
            launch::check_extents(function, grid, &runtime).map_err(|d| self.kernel.error(vec![d]))?;
        }
        match self.target {
            _ if self.native.is_some() => {
                let library = self.native.as_deref().expect("checked by the guard");
                let config = LaunchConfig {
                    grid,
                    threads: self.threads,
                    machine: Machine::Scalar,
                    timeout: self.timeout,
                    check_bounds: self.kernel.check_bounds,
                };
                launch::run_native(library, &mut runtime, &config).map_err(|failure| failure.error)?;
            }
            Target::Interp => {
                let function = self
                    .output
                    .function_opt
                    .as_ref()
                    .or(self.output.function.as_ref())
                    .ok_or_else(|| Error::new(codes::RUN_FAILED, "the front end produced no Tile IR function"))?;
                launch::run_interpreted(function, &mut runtime, grid).map_err(|d| self.kernel.error(vec![d]))?;
            }
            Target::Riscv64gc | Target::Riscv64gcv | Target::Host => {
                let toolchain = tilec_toolchain::Layout::from_env()
                    .and_then(|layout| tilec_toolchain::Toolchain::locate(&layout))
                    .map_err(|e| Error::new(codes::TOOLCHAIN_MISSING, e))?;
                if self.target == Target::Riscv64gcv
                    && !(self.vlen.is_power_of_two() && (128..=1024).contains(&self.vlen))
                {
                    return Err(Error::new(
                        codes::LAUNCH_ARGUMENT,
                        format!("VLEN {} is not a power of two from 128 to 1024", self.vlen),
                    ));
                }
                let machine = if self.target == Target::Riscv64gc {
                    Machine::Scalar
                } else {
                    Machine::Vector { vlen: self.vlen, extensions: self.kernel.extensions }
                };
                let config = LaunchConfig {
                    grid,
                    threads: self.threads,
                    machine,
                    timeout: self.timeout,
                    check_bounds: self.kernel.check_bounds,
                };
                let mut print = |bytes: &[u8]| {
                    use std::io::Write;
                    let mut out = std::io::stdout().lock();
                    out.write_all(bytes)
                        .and_then(|()| out.flush())
                        .map_err(|e| Error::new(codes::IO, format!("cannot write to the standard output: {e}")))
                };
                let shared_object = &self.output.shared_object;
                if let Err(failure) =
                    launch::run_compiled(&toolchain, shared_object, self.name(), &mut runtime, &config, &mut print)
                {
                    let sites = &self.output.bounds_sites;
                    let check =
                        failure.bounds_check.as_ref().and_then(|c| launch::bounds_diagnostic(self.name(), c, sites));
                    return Err(match check {
                        Some(d) => self.kernel.error(vec![d]),
                        None => failure.error,
                    });
                }
            }
        }
        copy_back(args, &slots, &runtime);
        Ok(())
    }

    /// The runtime arguments for `args`, checked against the signature and the parameters,
    /// and for each argument the index of its runtime argument (none for an entry the
    /// signature specializes).
    fn bind(&self, args: &[Arg<'_>]) -> Result<(Vec<RuntimeArg>, Vec<Option<usize>>), Error> {
        let signature = &self.kernel.signature;
        let name = self.name();
        if args.len() < signature.len() {
            return Err(Error::new(
                codes::MISSING_ARGUMENT,
                format!(
                    "missing argument {} of kernel `{name}`: the signature has {} entries, the launch gives {}",
                    args.len() + 1,
                    signature.len(),
                    args.len()
                ),
            ));
        }
        if args.len() > signature.len() {
            return Err(Error::new(
                codes::EXTRA_ARGUMENT,
                format!(
                    "kernel `{name}` takes {} arguments (one per signature entry), the launch gives {}",
                    signature.len(),
                    args.len()
                ),
            ));
        }
        let mut params = self.params.iter();
        let mut runtime = Vec::new();
        let mut slots = Vec::new();
        for (i, (item, arg)) in signature.iter().zip(args).enumerate() {
            slots.push(None);
            let bad =
                |message: String| Error::new(codes::LAUNCH_ARGUMENT, format!("argument {i} of `{name}`: {message}"));
            match item {
                SigItem::Scalar { equal_to_one: true, .. } => {
                    if !matches!(arg.0, ArgValue::Scalar { value: Number::Int(1) | Number::UInt(1), .. }) {
                        return Err(bad(format!("the signature specializes it to 1; got {}", arg.describe())));
                    }
                    continue;
                }
                SigItem::Constexpr(_) => continue,
                SigItem::TensorDesc { .. } => {
                    return Err(bad("tensor descriptors cannot be launched from Rust yet; use `tilec run`".into()))
                }
                SigItem::Ptr { .. } | SigItem::Scalar { .. } => {}
            }
            let param = params.next().ok_or_else(|| {
                Error::new(codes::RUN_FAILED, "internal error: the kernel has fewer parameters than its signature")
            })?;
            let value = match (&param.ty.elem, &arg.0) {
                (Elem::Ptr(pointee), ArgValue::Slice { dtype, data }) => {
                    if pointee != dtype {
                        return Err(bad(format!(
                            "`{}` points to {}; got {}",
                            param.name,
                            pointee.name(),
                            arg.describe()
                        )));
                    }
                    let bytes = data.bytes().to_vec();
                    let len = (bytes.len() / dtype.bytes() as usize) as u64;
                    RuntimeValue::Array(HostArray { dtype: *dtype, shape: vec![len], data: bytes })
                }
                (Elem::Scalar(ty), ArgValue::Scalar { value, .. }) => {
                    let value = scalar_for(*ty, *value).map_err(|why| {
                        bad(why.unwrap_or_else(|| {
                            format!("`{}` is a {} scalar; got {}", param.name, ty.name(), arg.describe())
                        }))
                    })?;
                    RuntimeValue::Scalar { ty: *ty, value }
                }
                (Elem::Ptr(pointee), _) => {
                    return Err(bad(format!(
                        "`{}` is a pointer to {}; got {}",
                        param.name,
                        pointee.name(),
                        arg.describe()
                    )))
                }
                (Elem::Scalar(ty), _) => {
                    return Err(bad(format!("`{}` is a {} scalar; got {}", param.name, ty.name(), arg.describe())))
                }
            };
            slots[i] = Some(runtime.len());
            runtime.push(RuntimeArg { name: param.name.clone(), value });
        }
        Ok((runtime, slots))
    }
}

/// Copies the arrays of `runtime` back into the `&mut` slices of `args` (`slots`: each
/// argument's index into `runtime`, from [`CompiledKernel::bind`]).
fn copy_back(args: &mut [Arg<'_>], slots: &[Option<usize>], runtime: &[RuntimeArg]) {
    for (arg, index) in args.iter_mut().zip(slots) {
        if let (ArgValue::Slice { data: SliceData::Mutable(bytes), .. }, Some(index)) = (&mut arg.0, index) {
            if let Some(RuntimeValue::Array(array)) = runtime.get(*index).map(|a| &a.value) {
                bytes.copy_from_slice(&array.data);
            }
        }
    }
}

/// A kernel tuned by [`Kernel::tune`]: the chosen config compiled, and the measurements.
#[derive(Clone, Debug)]
pub struct TunedKernel {
    kernel: CompiledKernel,
    report: Report,
}

impl TunedKernel {
    /// The chosen config.
    pub fn config(&self) -> &Config {
        self.report.chosen()
    }

    /// Every config's measurement ([`Report::table`] prints them).
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The kernel compiled with the chosen config, to launch again without tuning.
    pub fn kernel(&self) -> &CompiledKernel {
        &self.kernel
    }

    /// [`TunedKernel::kernel`], owned.
    pub fn into_kernel(self) -> CompiledKernel {
        self.kernel
    }
}

/// `value` as a scalar of type `ty`, if it is of the same kind (float, integer or bool)
/// and fits; `Err(None)` when the kind differs.
fn scalar_for(ty: ScalarType, value: Number) -> Result<Number, Option<String>> {
    let as_int = match value {
        Number::Int(i) => Some(i128::from(i)),
        Number::UInt(u) => Some(i128::from(u)),
        Number::Float(_) => None,
    };
    if ty.is_float() {
        return match value {
            Number::Float(_) => Ok(value),
            _ => Err(None),
        };
    }
    let Some(i) = as_int else { return Err(None) };
    let bits = ty.bits();
    let (min, max) = if ty.is_bool() {
        (0, 1)
    } else if ty.is_signed_int() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    if i < min || i > max {
        return Err(Some(format!("{i} does not fit in {}", ty.name())));
    }
    Ok(if ty == ScalarType::U64 { Number::UInt(i as u64) } else { Number::Int(i as i64) })
}

/// One argument of [`CompiledKernel::launch`]: a slice (for a pointer parameter) or a
/// scalar, made with `From`/`into()`:
///
/// ```
/// use tilec::Arg;
/// let input = vec![1.0f32; 8];
/// let mut output = vec![half::f16::ZERO; 8];
/// let args: [Arg; 4] = [Arg::from(&input[..]), Arg::from(&mut output[..]), 781.into(), 0.5f64.into()];
/// assert_eq!(args[0].to_string(), "a slice of 8 fp32");
/// assert_eq!(args[2].to_string(), "i32 781");
/// ```
pub struct Arg<'a>(ArgValue<'a>);

impl<'a> Arg<'a> {
    fn describe(&self) -> String {
        match &self.0 {
            ArgValue::Slice { dtype, data } => {
                format!("a slice of {} {}", data.bytes().len() / dtype.bytes() as usize, dtype.name())
            }
            ArgValue::Scalar { ty, value } => match value {
                Number::Int(i) => format!("{} {i}", ty.name()),
                Number::UInt(u) => format!("{} {u}", ty.name()),
                Number::Float(f) => format!("{} {f}", ty.name()),
            },
        }
    }
}

impl std::fmt::Display for Arg<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

enum ArgValue<'a> {
    Slice { dtype: ScalarType, data: SliceData<'a> },
    Scalar { ty: ScalarType, value: Number },
}

enum SliceData<'a> {
    Shared(&'a [u8]),
    Mutable(&'a mut [u8]),
}

impl SliceData<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            SliceData::Shared(b) => b,
            SliceData::Mutable(b) => b,
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// The element types of slices [`Arg`] takes: plain numbers whose every bit pattern is a
/// value (so a kernel's results can be copied into them as bytes).
pub trait Element: sealed::Sealed + Copy + 'static {
    /// The Triton type of the element (`fp32` for `f32`, ...).
    const DTYPE: ScalarType;
}

macro_rules! elements {
    ($($t:ty => $dtype:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: ScalarType = ScalarType::$dtype;
        }
    )*};
}
elements!(
    f32 => F32, f64 => F64, half::f16 => F16, half::bf16 => BF16,
    i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16, u32 => U32, u64 => U64
);

impl<'a, T: Element> From<&'a [T]> for Arg<'a> {
    fn from(slice: &'a [T]) -> Arg<'a> {
        // SAFETY: `Element` types are plain numbers without padding, so their bytes are
        // initialized; the view borrows the slice for as long as it lives.
        let bytes = unsafe { std::slice::from_raw_parts(slice.as_ptr().cast::<u8>(), std::mem::size_of_val(slice)) };
        Arg(ArgValue::Slice { dtype: T::DTYPE, data: SliceData::Shared(bytes) })
    }
}

impl<'a, T: Element> From<&'a mut [T]> for Arg<'a> {
    fn from(slice: &'a mut [T]) -> Arg<'a> {
        let len = std::mem::size_of_val(slice);
        // SAFETY: as above; and every bit pattern is a value of an `Element` type, so any
        // bytes written through the view leave valid elements.
        let bytes = unsafe { std::slice::from_raw_parts_mut(slice.as_mut_ptr().cast::<u8>(), len) };
        Arg(ArgValue::Slice { dtype: T::DTYPE, data: SliceData::Mutable(bytes) })
    }
}

impl<'a, T: Element> From<&'a Vec<T>> for Arg<'a> {
    fn from(v: &'a Vec<T>) -> Arg<'a> {
        Arg::from(&v[..])
    }
}

impl<'a, T: Element> From<&'a mut Vec<T>> for Arg<'a> {
    fn from(v: &'a mut Vec<T>) -> Arg<'a> {
        Arg::from(&mut v[..])
    }
}

macro_rules! scalar_args {
    ($($t:ty => $dtype:ident, $number:ident, $wide:ty);*) => {$(
        impl From<$t> for Arg<'_> {
            fn from(value: $t) -> Self {
                Arg(ArgValue::Scalar { ty: ScalarType::$dtype, value: Number::$number(<$wide>::from(value)) })
            }
        }
    )*};
}
scalar_args!(
    i8 => I8, Int, i64; i16 => I16, Int, i64; i32 => I32, Int, i64; i64 => I64, Int, i64;
    u8 => U8, UInt, u64; u16 => U16, UInt, u64; u32 => U32, UInt, u64; u64 => U64, UInt, u64;
    f32 => F32, Float, f64; f64 => F64, Float, f64; bool => I1, Int, i64
);
