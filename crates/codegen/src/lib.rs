//! Machine code from the Vector IR through Cranelift, and `.so` linking.
//!
//! [`compile`] builds one ELF object holding three exported functions (the kernel ABI):
//! - `NAME(runtime args..., i32 pid_x, pid_y, pid_z, u32 grid_x, grid_y, grid_z)`, the
//!   kernel: one program, run by `NAME_grid` ([`launch`]); pids must lie in the grid;
//! - `NAME_launch(const u64 *args, pid..., grid...)` ([`launch`]), which reads runtime arg `i`
//!   from the 8-byte slot `args[i]` and calls `NAME`;
//! - `NAME_grid(const u64 *args, u64 first, u64 end, grid...)` ([`launch`]), which runs the
//!   programs `first..end` of the grid (linear (z, y, x) order) with the kernel's body
//!   ([`kernel`]: scalar code, nests as counted loops, scratch on the stack) inline: the only
//!   copy of the body, so Cranelift compiles it once. On the scalar targets its top-level
//!   loops that hold dots are local functions it calls ([`kernel::outline`]).
//!
//! Math functions are calls to libm (`expf`, `log`, ...) left undefined in the object and the
//! `.so`; the dynamic loader resolves them when the kernel is loaded into a process that has
//! libm (the runner links it). [`link_shared`] turns the object into a `.so`: in process
//! ([`shared_object`]) for riscv64 objects that call no SLEEF function, else with the Rust
//! toolchain's `rust-lld`.
//!
//! Extension point for a vector back end: machine code made elsewhere is placed in the same
//! module with `Module::define_function_bytes` (see [`ObjectBuilder::module`]) and called
//! from the Cranelift-built kernel like any imported function.
//!
//! `tl.dot`: products and sums in the accumulator's type, one fused multiply-add per k in
//! k order, on every target (so scalar and RVV results agree bit for bit); fp16/bf16
//! inputs are widened to fp32 exactly; `input_precision="tf32"` / `allow_tf32` is computed
//! as full fp32 (no mantissa truncation). On riscv64gcv the dot is the register-blocked
//! microkernel of `rvv::dot`.
//!
//! Invariant: every failure (a construct without code generation, a Cranelift error, a
//! missing linker) is a [`Diagnostic`]; nothing here panics on a lowered function.

pub mod bounds;
pub mod float16;
pub mod kernel;
pub mod launch;
pub mod link;
mod opaque;
pub mod rvv;
pub mod scratch;
pub mod shared_object;

use std::fmt::Write;

use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{Function, UserFuncName};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module, ModuleReloc};
use cranelift_object::ObjectModule;
use target_lexicon::Triple;
use tilec_diagnostics::codes::codegen as codes;
use tilec_diagnostics::Diagnostic;
use tilec_vector as vir;

use kernel::outline::Outlined;

pub use link::{link_shared, link_shared_with, link_shared_with_lld, SLEEF_ARCHIVE};

/// The machine code is generated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `riscv64gc-unknown-linux-gnu` (RV64IMAFDC, LP64D).
    Riscv64gc,
    /// `riscv64gc` plus RVV 1.0: nests that [`rvv::compile_nest`] accepts become RVV leaf
    /// functions called from the kernel.
    Riscv64gcv,
    /// The machine tilec runs on (`Triple::host()`), scalar code only, with the instruction
    /// set extensions [`host_features`] finds on this machine.
    Host,
}

/// What became of one loop nest or `tl.dot` of the kernel on `riscv64gcv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NestReport {
    /// Its iteration space: `nest [64, 32]` or `dot 64x64x32` (M×N×K).
    pub what: String,
    /// The source span of its first statement that has one (none for a dot).
    pub span: Option<tilec_diagnostics::Span>,
    pub outcome: NestOutcome,
}

/// The code a nest or dot became.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NestOutcome {
    /// An RVV leaf function, by symbol (identical leaves share one).
    Leaf(String),
    /// The register-blocked dot microkernel (`rvv::dot`); `may_decline`: it hands shapes it
    /// does not handle back to scalar loops at run time.
    Microkernel { leaf: String, may_decline: bool },
    /// Scalar code, and why the vector code declined it.
    Scalar(String),
}

/// Extensions of RVV 1.0 the vector code of [`Target::Riscv64gcv`] may use (the default, none:
/// plain RVV 1.0). Written `+zvfhmin`, `+zvfh` (comma-separated), as LLVM's target features.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct VectorExtensions {
    /// Zvfhmin: conversions between fp16 and fp32 vectors (`vfwcvt.f.f.v`, `vfncvt.f.f.w`
    /// at SEW 16), which widen fp16 loads, narrow fp16 stores and round fp16 results.
    pub zvfhmin: bool,
    /// Zvfh: fp16 vector arithmetic; it includes Zvfhmin. Triton computes an fp16 operation
    /// as its fp32 result rounded once to fp16, which the f32 computation and the Zvfhmin
    /// rounding give bit for bit, so the code it enables is Zvfhmin's.
    pub zvfh: bool,
}

impl VectorExtensions {
    /// Whether fp16 ⇄ fp32 vector conversions are available (Zvfhmin, or Zvfh).
    pub fn fp16_conversions(self) -> bool {
        self.zvfhmin || self.zvfh
    }

    /// The features as written on the command line (`+zvfh,+zvfhmin`; empty for none).
    pub fn text(self) -> String {
        let names = [(self.zvfh, "+zvfh"), (self.zvfhmin, "+zvfhmin")];
        names.iter().filter(|(on, _)| *on).map(|(_, name)| *name).collect::<Vec<_>>().join(",")
    }
}

impl std::str::FromStr for VectorExtensions {
    type Err = String;

    /// `+zvfh`, `+zvfhmin`, comma-separated (`-name` leaves one off; empty: none).
    ///
    /// ```
    /// use tilec_codegen::VectorExtensions;
    /// let both: VectorExtensions = "+zvfh,+zvfhmin".parse().unwrap();
    /// assert!(both.zvfh && both.zvfhmin && both.fp16_conversions());
    /// assert_eq!(both.text(), "+zvfh,+zvfhmin");
    /// assert_eq!("".parse::<VectorExtensions>().unwrap(), VectorExtensions::default());
    /// assert!("+zvfbfmin".parse::<VectorExtensions>().unwrap_err().contains("+zvfh, +zvfhmin"));
    /// ```
    fn from_str(text: &str) -> Result<VectorExtensions, String> {
        let mut ext = VectorExtensions::default();
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (on, name) = match item.split_at(1) {
                ("+", name) => (true, name),
                ("-", name) => (false, name),
                _ => (true, item),
            };
            match name.to_ascii_lowercase().as_str() {
                "zvfh" => ext.zvfh = on,
                "zvfhmin" => ext.zvfhmin = on,
                _ => return Err(format!("unknown target feature `{item}` (known: +zvfh, +zvfhmin)")),
            }
        }
        Ok(ext)
    }
}

/// What [`compile_with`] does besides generating code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Bounds-check every global access (see [`bounds`]).
    pub check_bounds: bool,
    /// The RVV extensions the vector code may use ([`Target::Riscv64gcv`] only).
    pub extensions: VectorExtensions,
    /// Fill [`Compiled::asm`] (Cranelift's disassembly costs about a twentieth of the
    /// code generation time); off, it is empty.
    pub listing: bool,
}

/// The generated object and its assembly text.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// ELF relocatable object with `NAME`, `NAME_launch` and `NAME_grid`.
    pub object: Vec<u8>,
    /// Cranelift's disassembly of each function (its VCode after register allocation,
    /// printed by Cranelift: real instructions with their operands), one section per symbol;
    /// empty unless [`Options::listing`].
    pub asm: String,
    /// The checked accesses by site number (empty without bounds checks).
    pub sites: Vec<bounds::Site>,
    /// What became of each nest and dot, in the order of the kernel body (empty unless
    /// [`Target::Riscv64gcv`]).
    pub nests: Vec<NestReport>,
}

fn codegen_error(what: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error(codes::CODEGEN, format!("code generation failed: {what}"))
}

/// The Cranelift ISA for `target`: position-independent (for shared objects), optimized.
/// Cranelift's IR verifier runs in debug builds (every test) and not in release builds,
/// where it took a fifth of the code generation time.
pub fn isa(target: Target) -> Result<OwnedTargetIsa, Diagnostic> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| f.set(k, v).map_err(codegen_error);
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "is_pic", "true")?;
    set(&mut flags, "enable_verifier", if cfg!(debug_assertions) { "true" } else { "false" })?;
    if target == Target::Host {
        // A NaN that arithmetic makes is the canonical (positive, quiet) NaN, as on RISC-V:
        // x86's default NaN has the sign bit set.
        set(&mut flags, "enable_nan_canonicalization", "true")?;
    }
    let triple = match target {
        Target::Riscv64gc | Target::Riscv64gcv => {
            "riscv64gc-unknown-linux-gnu".parse::<Triple>().map_err(codegen_error)?
        }
        Target::Host => Triple::host(),
    };
    let mut isa = cranelift_codegen::isa::lookup(triple).map_err(codegen_error)?;
    let extensions = match target {
        Target::Riscv64gc | Target::Riscv64gcv => RV64GC.to_vec(),
        Target::Host => host_features(),
    };
    for ext in extensions {
        isa.enable(ext).map_err(codegen_error)?;
    }
    isa.finish(settings::Flags::new(flags)).map_err(codegen_error)
}

/// The Cranelift settings of RV64GC.
const RV64GC: [&str; 7] = ["has_m", "has_a", "has_f", "has_d", "has_c", "has_zicsr", "has_zifencei"];

/// The Cranelift ISA settings [`Target::Host`] enables: the extensions of the machine tilec
/// runs on that Cranelift uses (on x86_64 SSE3 to SSE4.2, POPCNT, AVX, AVX2, FMA, BMI1/2,
/// LZCNT when the CPU has them; without SSE4.1 or FMA, rounding and fused multiply-adds are
/// libm calls with the same results). Part of what a host kernel's machine code depends on,
/// so part of the kernel cache's key.
///
/// ```
/// let features = tilec_codegen::host_features();
/// assert!(features.iter().all(|f| f.starts_with("has_")));
/// // Every one is a setting the host ISA accepts.
/// assert!(tilec_codegen::isa(tilec_codegen::Target::Host).is_ok());
/// ```
pub fn host_features() -> Vec<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        let detected = [
            ("has_sse3", std::is_x86_feature_detected!("sse3")),
            ("has_ssse3", std::is_x86_feature_detected!("ssse3")),
            ("has_sse41", std::is_x86_feature_detected!("sse4.1")),
            ("has_sse42", std::is_x86_feature_detected!("sse4.2")),
            ("has_popcnt", std::is_x86_feature_detected!("popcnt")),
            ("has_avx", std::is_x86_feature_detected!("avx")),
            ("has_avx2", std::is_x86_feature_detected!("avx2")),
            ("has_fma", std::is_x86_feature_detected!("fma")),
            ("has_bmi1", std::is_x86_feature_detected!("bmi1")),
            ("has_bmi2", std::is_x86_feature_detected!("bmi2")),
            ("has_lzcnt", std::is_x86_feature_detected!("lzcnt")),
        ];
        detected.iter().filter(|(_, on)| *on).map(|(name, _)| *name).collect()
    }
    #[cfg(target_arch = "riscv64")]
    {
        RV64GC.to_vec()
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "riscv64")))]
    {
        Vec::new()
    }
}

/// An object module under construction, with the kernel's functions declared.
pub struct ObjectBuilder {
    pub module: ObjectModule,
    pub kernel: FuncId,
    pub launch: FuncId,
    pub grid: FuncId,
}

impl ObjectBuilder {
    pub fn new(f: &vir::Function, target: Target, checked: bool) -> Result<ObjectBuilder, Diagnostic> {
        let isa = isa(target)?;
        let builder = cranelift_object::ObjectBuilder::new(isa, f.name.as_bytes().to_vec(), default_libcall_names())
            .map_err(codegen_error)?;
        let mut module = ObjectModule::new(builder);
        let sig = kernel::kernel_signature(f, &module, checked);
        let kernel = module.declare_function(&f.name, Linkage::Export, &sig).map_err(codegen_error)?;
        let launch_sig = launch::launch_signature(&module);
        let launch = module
            .declare_function(&format!("{}_launch", f.name), Linkage::Export, &launch_sig)
            .map_err(codegen_error)?;
        let grid = module
            .declare_function(&format!("{}_grid", f.name), Linkage::Export, &launch::grid_signature(&module))
            .map_err(codegen_error)?;
        Ok(ObjectBuilder { module, kernel, launch, grid })
    }
}

/// Compiles a lowered kernel into an object for `target`, with its assembly listing.
pub fn compile(f: &vir::Function, target: Target) -> Result<Compiled, Diagnostic> {
    compile_with(f, target, &Options { listing: true, ..Options::default() })
}

/// [`compile`] with `options`.
pub fn compile_with(f: &vir::Function, target: Target, options: &Options) -> Result<Compiled, Diagnostic> {
    let Options { check_bounds, listing, extensions } = *options;
    let ObjectBuilder { mut module, kernel, launch, grid } = ObjectBuilder::new(f, target, check_bounds)?;
    let vector = (target == Target::Riscv64gcv).then_some(extensions);

    // Each function is compiled alone, so its code does not depend on the thread compiling
    // it; they are defined in a fixed order. With outlined statements, a second thread
    // (with its own copy of the ISA) compiles them, the largest waiting first, as they are
    // translated, while the rest of the body is translated; the calling thread joins in
    // once every function is built. Otherwise the calling thread compiles them all.
    // Asked last: on Linux the answer reads the cgroup's CPU quota from files.
    let more_threads = || std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
    let helper_isa = match vector.is_none() && kernel::outline::outlines_any(f) && more_threads() {
        true => Some(isa(target)?),
        false => None,
    };
    let queue = std::sync::Arc::new(kernel::outline::Queue::default());
    let compiled = std::sync::Mutex::new(Vec::new());
    let drain = |isa: &dyn cranelift_codegen::isa::TargetIsa| {
        let mut ctx = Context::new();
        while let Some(outlined) = queue.pop() {
            let job = Job::compile(outlined, isa, listing, &mut ctx);
            compiled.lock().expect("the compiled functions' lock").push(job);
        }
    };
    let translated = std::thread::scope(|scope| {
        if let Some(isa) = &helper_isa {
            scope.spawn(|| drain(&**isa));
        }
        let built = build_functions(f, &mut module, [grid, kernel, launch], vector, check_bounds, &queue);
        queue.close();
        if built.is_ok() {
            drain(module.isa());
        }
        built
    })?;

    // Defined in this order: the grid entry, the outlined statements, the kernel, the launcher.
    let rank = |id: FuncId| match id {
        _ if id == grid => 0,
        _ if id == kernel => 2,
        _ if id == launch => 3,
        _ => 1,
    };
    let mut jobs = compiled.into_inner().expect("the compiled functions' lock");
    // Outlined functions are declared in the order of their numbers.
    jobs.sort_by_key(|job| (rank(job.id), job.id));
    let outlined = jobs.len() - 3;
    let listings = define_all(&mut module, jobs)?;

    // The listing: the kernel, the leaves, the launcher, the grid entry, the outlined statements.
    let mut asm = String::new();
    asm.push_str(&listings[outlined + 1]);
    for (name, leaf_code) in translated.leaves.iter().filter(|_| listing) {
        let _ = writeln!(asm, "{name}:");
        asm.push_str(&leaf_code.listing());
        asm.push('\n');
    }
    asm.push_str(&listings[outlined + 2]);
    for text in &listings[..=outlined] {
        asm.push_str(text);
    }

    let object = module.finish().emit().map_err(codegen_error)?;
    Ok(Compiled { object, asm, sites: translated.sites, nests: translated.nests })
}

/// Builds the grid entry, kernel and launcher `[grid, kernel, launch]` of `f` and adds them
/// to `queue`, after the outlined statements' functions, added as each is translated.
fn build_functions(
    f: &vir::Function,
    module: &mut ObjectModule,
    [grid, kernel, launch]: [FuncId; 3],
    vector: Option<VectorExtensions>,
    check_bounds: bool,
    queue: &std::sync::Arc<kernel::outline::Queue>,
) -> Result<kernel::Translated, Diagnostic> {
    let mut fctx = FunctionBuilderContext::new();
    // The body is translated once, into the grid entry (RVV leaves are defined there); the
    // kernel runs it for one program and the launcher calls the kernel.
    let mut grid_func =
        Function::with_name_signature(UserFuncName::user(0, grid.as_u32()), launch::grid_signature(module));
    let sink = kernel::outline::Sink::queueing(queue.clone());
    let translated =
        launch::build_grid(f, FunctionBuilder::new(&mut grid_func, &mut fctx), module, vector, check_bounds, sink)?;

    let mut kernel_func = Function::with_name_signature(
        UserFuncName::user(0, kernel.as_u32()),
        kernel::kernel_signature(f, module, check_bounds),
    );
    launch::build_kernel(f, grid, FunctionBuilder::new(&mut kernel_func, &mut fctx), module, check_bounds);

    let mut launch_func =
        Function::with_name_signature(UserFuncName::user(0, launch.as_u32()), launch::launch_signature(module));
    launch::build(f, kernel, FunctionBuilder::new(&mut launch_func, &mut fctx), module, check_bounds);

    for (id, func) in [(grid, grid_func), (kernel, kernel_func), (launch, launch_func)] {
        let name = match id {
            _ if id == grid => format!("{}_grid", f.name),
            _ if id == launch => format!("{}_launch", f.name),
            _ => f.name.clone(),
        };
        queue.push(Outlined { id, name, func });
    }
    Ok(translated)
}

/// A function of the object, compiled.
struct Job {
    id: FuncId,
    name: String,
    /// Its code, alignment and relocations, or the error.
    compiled: Result<(Vec<u8>, u64, Vec<ModuleReloc>), String>,
    /// Its disassembly under its name (empty unless asked for).
    listing: String,
}

impl Job {
    /// Compiles `func` for `isa` (with its disassembly when `listing`) in `ctx`, which each
    /// compiling thread reuses from function to function (Cranelift keeps its allocations).
    fn compile(
        Outlined { id, name, func }: Outlined,
        isa: &dyn cranelift_codegen::isa::TargetIsa,
        listing: bool,
        ctx: &mut Context,
    ) -> Job {
        ctx.clear();
        ctx.func = func;
        ctx.set_disasm(listing);
        let compiled = match ctx.compile(isa, &mut ControlPlane::default()) {
            Err(e) => Err(cranelift_codegen::print_errors::pretty_error(e.func, e.inner)),
            Ok(_) => {
                let code = ctx.compiled_code().expect("compiled code");
                let relocs = code.buffer.relocs().iter();
                let relocs = relocs.map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, id)).collect();
                Ok((code.code_buffer().to_vec(), u64::from(code.buffer.alignment), relocs))
            }
        };
        let mut text = String::new();
        if listing {
            let _ = writeln!(text, "{name}:");
            match ctx.compiled_code().and_then(|c| c.vcode.as_deref()) {
                Some(vcode) => text.push_str(vcode),
                None => {
                    let _ = write!(text, "{}", ctx.func.display());
                }
            }
            text.push('\n');
        }
        Job { id, name, compiled, listing: text }
    }
}

/// Defines the compiled `jobs` in `module` in their order; returns the disassembly of each
/// (empty unless asked for).
fn define_all(module: &mut ObjectModule, jobs: Vec<Job>) -> Result<Vec<String>, Diagnostic> {
    let mut listings = Vec::new();
    for job in jobs {
        let (bytes, alignment, relocs) =
            job.compiled.map_err(|detail| codegen_error(format!("in `{}`: {detail}", job.name)))?;
        module
            .define_function_bytes(job.id, alignment, &bytes, &relocs)
            .map_err(|e| codegen_error(format!("in `{}`: {e}", job.name)))?;
        listings.push(job.listing);
    }
    Ok(listings)
}
