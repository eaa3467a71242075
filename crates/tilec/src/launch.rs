//! Running a specialized kernel over a grid: compiled, through the target-side runner (under
//! qemu-riscv64 or natively), or in the Tile IR interpreter. The command line's `tilec run`
//! and [`crate::CompiledKernel::launch`] both run kernels through this module.
//!
//! Invariant: after a successful run every array argument holds the kernel's results; after
//! a failed one they hold what the failed run left in them when [`RunFailure::arrays_left`]
//! says so, and are left as they were otherwise.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tilec_diagnostics::Diagnostic;
use tilec_interp::Arg;
use tilec_ir::Function;

use crate::error::{codes, Error as CliError};
pub use crate::native::{run_native, site_descriptions, NativeLibrary};
use tilec_ir::ScalarType;
use tilec_npy::{HostArray, Number};
use tilec_toolchain::{Counter, Counts, Toolchain};

/// A runtime argument of a specialized kernel: what one argument slot of `NAME_launch` is
/// made from.
#[derive(Clone, Debug, PartialEq)]
pub enum RuntimeValue {
    /// An array, passed as its address.
    Array(HostArray),
    /// A scalar of the parameter's type.
    Scalar {
        /// The parameter's type.
        ty: ScalarType,
        /// The value, encoded into the slot by [`RuntimeValue::scalar_slot`].
        value: Number,
    },
    /// A table of the addresses of these arrays, passed as a pointer to `i64`; the kernel
    /// may read and write the arrays through the addresses it loads from the table.
    Pointers(Vec<HostArray>),
}

impl RuntimeValue {
    /// The 8-byte argument slot of a scalar (kernel ABI: ints sign- or zero-extended by
    /// their type, fp32 bits in the low half); `None` for arrays, whose slot is an address.
    pub fn scalar_slot(&self) -> Option<u64> {
        let RuntimeValue::Scalar { ty, value } = self else { return None };
        let bits = value.encode(*ty);
        let width = ty.bits();
        Some(if ty.is_signed_int() && width < 64 {
            let shift = 64 - width;
            (((bits << shift) as i64) >> shift) as u64
        } else {
            bits
        })
    }
}

/// A named runtime argument; the name is the one fault reports and summaries use.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeArg {
    /// The parameter's name (`NAME.K` names the arrays of a pointer table).
    pub name: String,
    /// Its value.
    pub value: RuntimeValue,
}

impl RuntimeArg {
    /// The arrays of the argument with the names they are shown and saved under: the
    /// argument's own name, `NAME.K` for the arrays of a pointer table, none for a scalar.
    pub fn arrays(&self) -> Vec<(String, &HostArray)> {
        match &self.value {
            RuntimeValue::Array(array) => vec![(self.name.clone(), array)],
            RuntimeValue::Pointers(arrays) => {
                arrays.iter().enumerate().map(|(k, array)| (format!("{}.{k}", self.name), array)).collect()
            }
            RuntimeValue::Scalar { .. } => Vec::new(),
        }
    }
}

/// The machine a compiled kernel runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Machine {
    /// RV64GC without the vector extension.
    Scalar,
    /// RV64GCV with vector registers of `vlen` bits.
    Vector {
        /// The vector register width in bits (a power of two from 128 to 1024).
        vlen: u32,
        /// The extensions beyond RVV 1.0 the CPU has (the kernel's: qemu traps on the
        /// others).
        extensions: tilec_codegen::VectorExtensions,
    },
}

impl Machine {
    /// qemu's `-cpu` value for this machine; the one place qemu CPU features are chosen.
    /// Zba/Zbb/Zbs (on in qemu's `rv64` by default) are switched off: kernels, and the SLEEF
    /// build they link, are plain RV64GC(V) code, and qemu traps if that ever changes.
    pub fn qemu_cpu(self) -> String {
        const NO_BITMANIP: &str = "zba=false,zbb=false,zbs=false";
        match self {
            Machine::Scalar => format!("rv64,v=false,{NO_BITMANIP}"),
            Machine::Vector { vlen, extensions } => {
                let zvfhmin = extensions.fp16_conversions();
                format!(
                    "rv64,v=true,vlen={vlen},vext_spec=v1.0,zvfh={},zvfhmin={zvfhmin},{NO_BITMANIP}",
                    extensions.zvfh
                )
            }
        }
    }
}

/// How to run the grid.
#[derive(Clone, Copy, Debug)]
pub struct LaunchConfig {
    /// Programs along x, y and z.
    pub grid: [u32; 3],
    /// Threads the grid is split over (statically, in (z, y, x) order).
    pub threads: u32,
    /// The machine qemu emulates (ignored on a riscv64 host).
    pub machine: Machine,
    /// How long the runner (and qemu) may take before it is killed.
    pub timeout: Duration,
    /// The kernel was compiled with bounds checks: the runner passes the arrays' extents.
    pub check_bounds: bool,
}

/// Why a compiled run failed.
#[derive(Debug)]
pub struct RunFailure {
    /// The report.
    pub error: CliError,
    /// The array arguments hold what the kernel left in them when it faulted or when the
    /// runner found it had written next to an array.
    pub arrays_left: bool,
    /// The failed bounds check of a kernel compiled with them.
    pub bounds_check: Option<Box<FailedCheck>>,
}

/// A bounds check that stopped a kernel, as the runner reported it.
#[derive(Debug)]
pub struct FailedCheck {
    /// The check's site number (`tilec_codegen::bounds`).
    pub site: usize,
    /// "the access at 0x... is element N of `x` (...), past its end".
    pub detail: String,
    /// "(x, y, z)".
    pub program: String,
}

impl From<CliError> for RunFailure {
    fn from(error: CliError) -> RunFailure {
        RunFailure { error, arrays_left: false, bounds_check: None }
    }
}

/// The failed check the runner's report describes, if any.
fn failed_check(stderr: &str) -> Option<Box<FailedCheck>> {
    let (site, detail) = stderr.lines().find_map(|l| {
        let rest = l.strip_prefix("runner: bounds check ")?;
        let (site, detail) = rest.split_once(" failed: ")?;
        Some((site.parse().ok()?, detail.to_string()))
    })?;
    let program = stderr.lines().find_map(|l| l.split_once(" in program ").map(|(_, p)| p.to_string()))?;
    Some(Box::new(FailedCheck { site, detail, program }))
}

/// Runs `shared_object`'s `KERNEL_launch` on `args` through the runner; what the kernel
/// printed is handed to `print`, what the runner reported besides a failure goes to the
/// process's standard error. Each array lives between guard pages (runner/runner.c), so an
/// access past either end faults and is reported with the array it hit, the element offset
/// and the program.
pub fn run_compiled(
    toolchain: &Toolchain,
    shared_object: &[u8],
    kernel: &str,
    args: &mut [RuntimeArg],
    config: &LaunchConfig,
    print: &mut dyn FnMut(&[u8]) -> Result<(), CliError>,
) -> Result<(), RunFailure> {
    run_job(toolchain, None, shared_object, kernel, args, config, print).map(|_| ())
}

/// [`run_compiled`] on one thread under `counter`'s qemu with the instruction-counting
/// plugin: the counts of the instructions the launch executed (the runner's marked region:
/// every program of the grid, not the runner's set-up). The counts are deterministic.
pub fn run_counted(
    toolchain: &Toolchain,
    counter: &Counter,
    shared_object: &[u8],
    kernel: &str,
    args: &mut [RuntimeArg],
    config: &LaunchConfig,
    print: &mut dyn FnMut(&[u8]) -> Result<(), CliError>,
) -> Result<Counts, RunFailure> {
    let config = LaunchConfig { threads: 1, ..*config };
    let counts = run_job(toolchain, Some(counter), shared_object, kernel, args, &config, print)?;
    counts.ok_or_else(|| RunFailure::from(CliError::new(codes::RUN_FAILED, "the counting plugin wrote no counts")))
}

/// Runs a job through the runner; with `counter`, under its qemu with the plugin, returning
/// the counts.
fn run_job(
    toolchain: &Toolchain,
    counter: Option<&Counter>,
    shared_object: &[u8],
    kernel: &str,
    args: &mut [RuntimeArg],
    config: &LaunchConfig,
    print: &mut dyn FnMut(&[u8]) -> Result<(), CliError>,
) -> Result<Option<Counts>, RunFailure> {
    let job = JobDir::create()?;
    let io = |e: std::io::Error, what: &Path| CliError::new(codes::IO, format!("cannot write {}: {e}", what.display()));
    let library = job.path.join("kernel.so");
    fs::write(&library, shared_object).map_err(|e| io(e, &library))?;

    let [gx, gy, gz] = config.grid;
    // A nested kernel (`test_add.kernel`) is compiled under its own name.
    let symbol = kernel.rsplit('.').next().unwrap_or(kernel);
    let mut text = format!(
        "tilec-job 1\nlibrary kernel.so\nsymbol {symbol}_launch\ngrid {gx} {gy} {gz}\nthreads {}\n",
        config.threads
    );
    // Buffers are numbered by their `buffer` and `array` lines; a pointer table names the
    // arrays it points to by those numbers.
    let mut buffers = 0usize;
    for (i, arg) in args.iter().enumerate() {
        match &arg.value {
            RuntimeValue::Array(array) => {
                let input = write_input(&job.path, &format!("arg{i}"), &array.data)?;
                text.push_str(&format!(
                    "buffer {} {input}\n{}output arg{i}.out\n",
                    array.data.len(),
                    name_line(&arg.name, array)
                ));
                buffers += 1;
            }
            RuntimeValue::Pointers(arrays) => {
                let mut numbers = Vec::new();
                for (k, array) in arrays.iter().enumerate() {
                    let input = write_input(&job.path, &format!("arg{i}.{k}"), &array.data)?;
                    let name = name_line(&format!("{}.{k}", arg.name), array);
                    text.push_str(&format!("array {} {input}\n{name}output arg{i}.{k}.out\n", array.data.len()));
                    numbers.push(buffers.to_string());
                    buffers += 1;
                }
                text.push_str(&format!("pointers {}\n", numbers.join(" ")));
            }
            scalar => {
                let slot = scalar.scalar_slot().unwrap_or_default();
                text.push_str(&format!("scalar {slot:#018x}\n"));
            }
        }
    }
    if config.check_bounds {
        text.push_str("bounds\n");
    }
    let job_file = job.path.join("job.txt");
    fs::write(&job_file, text).map_err(|e| io(e, &job_file))?;

    let counts_file = job.path.join("counts.txt");
    let mut command = match (counter, &toolchain.qemu) {
        (Some(Counter { qemu, .. }), _) | (None, Some(qemu)) => {
            let mut c = Command::new(qemu);
            c.arg("-cpu").arg(config.machine.qemu_cpu()).arg("-L").arg(&toolchain.sysroot);
            if let Some(counter) = counter {
                c.arg("-plugin").arg(format!("{},out={}", counter.plugin.display(), counts_file.display()));
            }
            c.arg(&toolchain.runner);
            c
        }
        (None, None) => Command::new(&toolchain.runner),
    };
    // A fixed environment: qemu hands the host's environment to the guest.
    command.arg(&job.path).current_dir(&job.path).env_clear();
    let output = run_with_timeout(&mut command, config.timeout, kernel)?;
    // What the kernel printed (`tl.print`, `tl.device_print`) is the user's.
    print(&output.stdout)?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        let error = run_failure(kernel, output.status, &stderr);
        let arrays_left = stderr.lines().any(|l| l == ARRAYS_LEFT) && read_results(&job, args).is_ok();
        return Err(RunFailure { error, arrays_left, bounds_check: failed_check(&stderr) });
    }
    // `eprint!` panics when standard error is gone; there is nowhere left to report that.
    let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), stderr.as_bytes());
    read_results(&job, args)?;
    match counter {
        Some(_) => {
            let text = fs::read_to_string(&counts_file)
                .map_err(|e| CliError::new(codes::RUN_FAILED, format!("the counting plugin wrote no counts: {e}")))?;
            Ok(Some(Counts::parse(&text).map_err(|e| CliError::new(codes::RUN_FAILED, e))?))
        }
        None => Ok(None),
    }
}

/// The runner's line saying that the output files hold what a failed run left.
const ARRAYS_LEFT: &str = "runner: the output files hold the arrays as the failed run left them";

/// The runner's exit status when the kernel wrote next to an array.
const WROTE_OUTSIDE_STATUS: i32 = 3;

/// The job line naming the buffer before it, for the runner's fault reports.
fn name_line(name: &str, array: &HostArray) -> String {
    format!("name {name} {} {}\n", array.dtype.name(), array.dtype.bytes())
}

/// Reads every array argument back from the runner's output files (all of them or none).
fn read_results(job: &JobDir, args: &mut [RuntimeArg]) -> Result<(), CliError> {
    let mut results = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        match &arg.value {
            RuntimeValue::Array(array) => {
                results.push((i, None, read_result(&job.path, &format!("arg{i}"), &arg.name, array)?));
            }
            RuntimeValue::Pointers(arrays) => {
                for (k, array) in arrays.iter().enumerate() {
                    let name = format!("{}.{k}", arg.name);
                    results.push((i, Some(k), read_result(&job.path, &format!("arg{i}.{k}"), &name, array)?));
                }
            }
            RuntimeValue::Scalar { .. } => {}
        }
    }
    for (i, k, data) in results {
        match (&mut args[i].value, k) {
            (RuntimeValue::Array(array), None) => array.data = data,
            (RuntimeValue::Pointers(arrays), Some(k)) => arrays[k].data = data,
            _ => unreachable!("results are collected from these same arguments"),
        }
    }
    Ok(())
}

/// Writes the initial bytes of an array as `STEM.in` in the job directory; `-` (a zero-filled
/// buffer, nothing written) when they are all zero.
fn write_input(dir: &Path, stem: &str, data: &[u8]) -> Result<String, CliError> {
    if data.iter().all(|&b| b == 0) {
        return Ok("-".to_string());
    }
    let name = format!("{stem}.in");
    let path = dir.join(&name);
    fs::write(&path, data).map_err(|e| CliError::new(codes::IO, format!("cannot write {}: {e}", path.display())))?;
    Ok(name)
}

/// Reads `STEM.out`, which the runner wrote for the array argument `name` (of `array`'s size).
fn read_result(dir: &Path, stem: &str, name: &str, array: &HostArray) -> Result<Vec<u8>, CliError> {
    let data = fs::read(dir.join(format!("{stem}.out")))
        .map_err(|e| CliError::new(codes::RUN_FAILED, format!("the runner left no result for `{name}`: {e}")))?;
    if data.len() != array.data.len() {
        return Err(CliError::new(codes::RUN_FAILED, format!("the runner's result for `{name}` has the wrong size")));
    }
    Ok(data)
}

/// What a finished runner left: its exit status and everything it printed.
struct RunnerOutput {
    status: std::process::ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Runs `command` to completion, or kills it after `timeout` (a [`codes::TIMED_OUT`] error).
/// Its output is read on two threads so a chatty kernel cannot block on a full pipe.
fn run_with_timeout(command: &mut Command, timeout: Duration, kernel: &str) -> Result<RunnerOutput, CliError> {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|e| {
        CliError::new(
            codes::TOOLCHAIN_MISSING,
            format!("cannot start {}: {e}; run `cargo xtask setup`", command.get_program().to_string_lossy()),
        )
    })?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let started = Instant::now();
    let status = loop {
        let polled = child
            .try_wait()
            .map_err(|e| CliError::new(codes::RUN_FAILED, format!("cannot wait for the runner: {e}")))?;
        if let Some(status) = polled {
            break status;
        }
        if started.elapsed() >= timeout {
            let program = command.get_program().to_string_lossy().into_owned();
            let _ = child.kill();
            let _ = child.wait();
            let message = format!(
                "kernel `{kernel}` did not finish within {} s: {program} was killed; the kernel may never end (raise the limit with --timeout SECONDS)",
                timeout.as_secs()
            );
            return Err(CliError::new(codes::TIMED_OUT, message));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let joined = |h: std::thread::JoinHandle<Vec<u8>>| h.join().unwrap_or_default();
    Ok(RunnerOutput { status, stdout: joined(stdout), stderr: joined(stderr) })
}

/// Describes why the runner exited unsuccessfully: the runner's report lines become notes.
fn run_failure(kernel: &str, status: std::process::ExitStatus, stderr: &str) -> CliError {
    use std::os::unix::process::ExitStatusExt;
    let details: Vec<String> = stderr
        .lines()
        .filter(|l| !l.trim().is_empty() && *l != ARRAYS_LEFT)
        .map(|l| l.strip_prefix("runner: ").unwrap_or(l).to_string())
        .collect();
    let mut error = match (status.signal(), status.code()) {
        (Some(signal), _) => CliError::new(
            codes::KERNEL_FAULT,
            format!("kernel `{kernel}` faulted: killed by signal {signal} ({})", signal_name(signal)),
        ),
        (None, Some(WROTE_OUTSIDE_STATUS)) => CliError::new(
            codes::WROTE_OUTSIDE,
            format!("kernel `{kernel}` wrote outside its arrays (next to them, where the guard pages do not reach)"),
        ),
        _ => CliError::new(codes::RUN_FAILED, format!("running kernel `{kernel}` failed ({status})")),
    };
    if let Some(d) = error.diagnostics.first_mut() {
        d.notes.extend(details);
    }
    error
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        _ => "a signal",
    }
}

/// A fresh temporary directory, removed when dropped.
struct JobDir {
    path: PathBuf,
}

impl JobDir {
    fn create() -> Result<JobDir, CliError> {
        let base = std::env::temp_dir();
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        for attempt in 0..100u32 {
            let path = base.join(format!("tilec-run-{}-{nanos:x}-{attempt}", std::process::id()));
            match fs::create_dir(&path) {
                Ok(()) => return Ok(JobDir { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(CliError::new(
                        codes::IO,
                        format!("cannot create a directory in {}: {e}", base.display()),
                    ))
                }
            }
        }
        Err(CliError::new(codes::IO, format!("cannot create a fresh directory in {}", base.display())))
    }
}

impl Drop for JobDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// The report of a failed bounds check, pointing at the access in the source (like the
/// interpreter's report of the same access); `sites` are the compiled kernel's
/// ([`crate::Output::bounds_sites`]).
pub fn bounds_diagnostic(
    kernel: &str,
    check: &FailedCheck,
    sites: &[tilec_codegen::bounds::Site],
) -> Option<Diagnostic> {
    let site = sites.get(check.site)?;
    let noun = site.access.noun();
    let detail = match check.detail.strip_prefix("the access") {
        Some(rest) => format!("the {noun}{rest}"),
        None => check.detail.clone(),
    };
    let message = format!("out-of-bounds {noun} in kernel `{kernel}`: {detail} (program {})", check.program);
    let d = Diagnostic::error(codes::BOUNDS_CHECK, message);
    Some(match site.span {
        Some(span) => d.with_span(span),
        None => d.with_note("the access reads an operand of a `tl.dot`"),
    })
}

/// Runs `function` in the Tile IR interpreter on `args` (which follow `function.params`).
/// The arrays of pointer tables follow the parameters as extra buffers. An error is a
/// diagnostic pointing into the kernel's source.
pub fn run_interpreted(function: &Function, args: &mut [RuntimeArg], grid: [u32; 3]) -> Result<(), Diagnostic> {
    let buffer = |array: &HostArray| Arg::Buffer { data: array.data.clone(), elem: array.dtype };
    let mut interp_args = Vec::new();
    let mut extra = Vec::new();
    for arg in args.iter() {
        interp_args.push(match &arg.value {
            RuntimeValue::Array(array) => buffer(array),
            RuntimeValue::Scalar { value: Number::Float(f), .. } => Arg::Float(*f),
            RuntimeValue::Scalar { value: Number::Int(i), .. } => Arg::Int(*i),
            RuntimeValue::Scalar { value: Number::UInt(u), .. } => Arg::Int(*u as i64),
            RuntimeValue::Pointers(arrays) => {
                let first = args.len() + extra.len();
                extra.extend(arrays.iter().map(buffer));
                Arg::Pointers { targets: (first..first + arrays.len()).collect(), table: Vec::new() }
            }
        });
    }
    interp_args.extend(extra);
    tilec_interp::run(function, &mut interp_args, grid).map_err(|e| e.to_diagnostic())?;
    let (own, extra) = interp_args.split_at(args.len());
    let mut extra = extra.iter();
    let copy_back = |array: &mut HostArray, result: Option<&Arg>| {
        if let Some(Arg::Buffer { data, .. }) = result {
            array.data.clone_from(data);
        }
    };
    for (arg, result) in args.iter_mut().zip(own) {
        match &mut arg.value {
            RuntimeValue::Array(array) => copy_back(array, Some(result)),
            RuntimeValue::Pointers(arrays) => arrays.iter_mut().for_each(|a| copy_back(a, extra.next())),
            RuntimeValue::Scalar { .. } => {}
        }
    }
    Ok(())
}

/// Whether this machine's CPU has the RISC-V vector extension (the `V` bit of the
/// auxiliary vector's `AT_HWCAP`); always false off riscv64.
///
/// ```
/// if !cfg!(target_arch = "riscv64") {
///     assert!(!tilec::launch::host_has_rvv());
/// }
/// ```
pub fn host_has_rvv() -> bool {
    #[cfg(target_arch = "riscv64")]
    {
        // SAFETY: getauxval has no preconditions.
        let hwcap = unsafe { libc::getauxval(libc::AT_HWCAP) };
        hwcap & (1 << (b'V' - b'A')) != 0
    }
    #[cfg(not(target_arch = "riscv64"))]
    {
        false
    }
}

/// Rejects an array argument shorter than what the launch over `grid` surely touches
/// ([`tilec_ir::extent`]: unmasked loads and stores of the top-level region at affine
/// offsets), naming the argument, the element, the program and the access; `args` follow
/// `function`'s parameters. What is not certain is left to the guard pages.
///
/// ```
/// use tilec::launch::{check_extents, RuntimeArg, RuntimeValue};
/// let source = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, B: tl.constexpr):\n    tl.store(x_ptr + tl.program_id(0) * B + tl.arange(0, B), 1.0)\n";
/// let request = tilec::Request {
///     file_name: "k.py",
///     source,
///     kernel: "k",
///     signature: tilec::parse_signature("*fp32:16")?,
///     constants: vec![("B".into(), tilec::ConstValue::Int(64))],
/// };
/// let tile = tilec::Compiler::new(tilec::Target::Interp).compile_tile(&request).map_err(tilec::Error::from)?;
/// let function = tile.function.unwrap();
/// let x = |n| vec![RuntimeArg { name: "x_ptr".into(), value: RuntimeValue::Array(tilec_npy::HostArray::zeros(tilec::ir::ScalarType::F32, &[n]).unwrap()) }];
/// assert!(check_extents(&function, [4, 1, 1], &x(256)).is_ok());
/// let error = check_extents(&function, [4, 1, 1], &x(200)).unwrap_err();
/// assert!(error.message.contains("writes its element 255 in program (3, 0, 0)"), "{}", error.message);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_extents(function: &Function, grid: [u32; 3], args: &[RuntimeArg]) -> Result<(), Diagnostic> {
    let scalar = |i: usize| match args.get(i).map(|a| &a.value) {
        Some(RuntimeValue::Scalar { ty, value: Number::Int(v) }) if ty.is_int() => Some(*v),
        Some(RuntimeValue::Scalar { ty, value: Number::UInt(v) }) if ty.is_int() => i64::try_from(*v).ok(),
        _ => None,
    };
    for touched in tilec_ir::extent::surely_touched(function, grid, &scalar) {
        let Some(arg) = args.get(touched.param) else { continue };
        let (length, dtype) = match &arg.value {
            RuntimeValue::Array(array) => {
                ((array.data.len() / array.dtype.bytes() as usize) as i64, array.dtype.name())
            }
            RuntimeValue::Pointers(arrays) => (arrays.len() as i64, "i64"),
            RuntimeValue::Scalar { .. } => continue,
        };
        let verb = if touched.write { "writes" } else { "reads" };
        let name = &arg.name;
        let [x, y, z] = touched.program_of_last;
        let message = if touched.last >= length {
            format!(
                "`{name}` has {length} elements of {dtype}, but kernel `{}` {verb} its element {} in program ({x}, {y}, {z})",
                function.name, touched.last
            )
        } else if touched.first < 0 {
            format!("kernel `{}` {verb} element {} of `{name}`, before its start", function.name, touched.first)
        } else {
            continue;
        };
        let d = Diagnostic::error(codes::LAUNCH_ARGUMENT, message)
            .with_note("the access is unmasked: every program runs it on every lane; the launch did not run");
        return Err(if touched.span.is_dummy() { d } else { d.with_span(touched.span) });
    }
    Ok(())
}
