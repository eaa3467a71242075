//! Running a specialized kernel over a grid: compiled, through the target-side runner (under
//! qemu-riscv64 or natively), or in the Tile IR interpreter.
//!
//! Invariant: after a successful run every array argument holds the kernel's results; on
//! failure the arrays are left as they were.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tilec_diagnostics::Diagnostic;
use tilec_interp::Arg;
use tilec_ir::Function;

use crate::cli_error::{codes, CliError};
use crate::run_args::{RuntimeArg, RuntimeValue};
use crate::stdout::{to_stderr, Stdout};
use tilec_npy::Number;
use tilec_toolchain::Toolchain;

/// The machine a compiled kernel runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Machine {
    /// RV64GC without the vector extension.
    Scalar,
    /// RV64GCV with vector registers of `vlen` bits.
    Vector { vlen: u32 },
}

impl Machine {
    /// qemu's `-cpu` value for this machine; the one place qemu CPU features are chosen.
    /// Zba/Zbb/Zbs (on in qemu's `rv64` by default) are switched off: kernels, and the SLEEF
    /// build they link, are plain RV64GC(V) code, and qemu traps if that ever changes.
    pub fn qemu_cpu(self) -> String {
        const NO_BITMANIP: &str = "zba=false,zbb=false,zbs=false";
        match self {
            Machine::Scalar => format!("rv64,v=false,{NO_BITMANIP}"),
            Machine::Vector { vlen } => format!("rv64,v=true,vlen={vlen},vext_spec=v1.0,{NO_BITMANIP}"),
        }
    }
}

/// How to run the grid.
#[derive(Clone, Copy, Debug)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub threads: u32,
    pub machine: Machine,
    /// How long the runner (and qemu) may take before it is killed.
    pub timeout: Duration,
}

/// Runs `shared_object`'s `KERNEL_launch` on `args` through the runner; what the kernel
/// printed goes to `stdout`.
pub fn run_compiled(
    toolchain: &Toolchain,
    shared_object: &[u8],
    kernel: &str,
    args: &mut [RuntimeArg],
    config: &LaunchConfig,
    stdout: &mut Stdout,
) -> Result<(), CliError> {
    let job = JobDir::create()?;
    let io = |e: std::io::Error, what: &Path| CliError::new(codes::IO, format!("cannot write {}: {e}", what.display()));
    let library = job.path.join("kernel.so");
    fs::write(&library, shared_object).map_err(|e| io(e, &library))?;

    let [gx, gy, gz] = config.grid;
    let mut text = format!(
        "tilec-job 1\nlibrary kernel.so\nsymbol {kernel}_launch\ngrid {gx} {gy} {gz}\nthreads {}\n",
        config.threads
    );
    for (i, arg) in args.iter().enumerate() {
        match &arg.value {
            RuntimeValue::Array(array) => {
                let input = if array.data.iter().all(|&b| b == 0) {
                    "-".to_string()
                } else {
                    let name = format!("arg{i}.in");
                    let path = job.path.join(&name);
                    fs::write(&path, &array.data).map_err(|e| io(e, &path))?;
                    name
                };
                text.push_str(&format!("buffer {} {input}\noutput arg{i}.out\n", array.data.len()));
            }
            scalar => {
                let slot = scalar.scalar_slot().unwrap_or_default();
                text.push_str(&format!("scalar {slot:#018x}\n"));
            }
        }
    }
    let job_file = job.path.join("job.txt");
    fs::write(&job_file, text).map_err(|e| io(e, &job_file))?;

    let mut command = match &toolchain.qemu {
        Some(qemu) => {
            let mut c = Command::new(qemu);
            c.arg("-cpu").arg(config.machine.qemu_cpu()).arg("-L").arg(&toolchain.sysroot).arg(&toolchain.runner);
            c
        }
        None => Command::new(&toolchain.runner),
    };
    // A fixed environment: qemu hands the host's environment to the guest.
    command.arg(&job.path).current_dir(&job.path).env_clear();
    let output = run_with_timeout(&mut command, config.timeout, kernel)?;
    // What the kernel printed (`tl.print`, `tl.device_print`) is the user's.
    stdout.write(&output.stdout)?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(run_failure(kernel, output.status, &stderr));
    }
    to_stderr(&stderr);

    for (i, arg) in args.iter_mut().enumerate() {
        if let RuntimeValue::Array(array) = &mut arg.value {
            let path = job.path.join(format!("arg{i}.out"));
            let data = fs::read(&path).map_err(|e| {
                CliError::new(codes::RUN_FAILED, format!("the runner left no result for `{}`: {e}", arg.name))
            })?;
            if data.len() != array.data.len() {
                return Err(CliError::new(
                    codes::RUN_FAILED,
                    format!("the runner's result for `{}` has the wrong size", arg.name),
                ));
            }
            array.data = data;
        }
    }
    Ok(())
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

/// Describes why the runner exited unsuccessfully.
fn run_failure(kernel: &str, status: std::process::ExitStatus, stderr: &str) -> CliError {
    use std::os::unix::process::ExitStatusExt;
    let details: Vec<String> = stderr.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect();
    let mut error = match status.signal() {
        Some(signal) => CliError::new(
            codes::KERNEL_FAULT,
            format!("kernel `{kernel}` faulted: killed by signal {signal} ({})", signal_name(signal)),
        ),
        None => CliError::new(codes::RUN_FAILED, format!("running kernel `{kernel}` failed ({status})")),
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

/// Runs `function` in the Tile IR interpreter on `args` (which follow `function.params`).
/// An error is a diagnostic pointing into the kernel's source.
pub fn run_interpreted(function: &Function, args: &mut [RuntimeArg], grid: [u32; 3]) -> Result<(), Diagnostic> {
    let mut interp_args: Vec<Arg> = args
        .iter()
        .map(|arg| match &arg.value {
            RuntimeValue::Array(array) => Arg::Buffer { data: array.data.clone(), elem: array.dtype },
            RuntimeValue::Scalar { value: Number::Float(f), .. } => Arg::Float(*f),
            RuntimeValue::Scalar { value: Number::Int(i), .. } => Arg::Int(*i),
            RuntimeValue::Scalar { value: Number::UInt(u), .. } => Arg::Int(*u as i64),
        })
        .collect();
    tilec_interp::run(function, &mut interp_args, grid).map_err(|e| e.to_diagnostic())?;
    for (arg, result) in args.iter_mut().zip(interp_args) {
        if let (RuntimeValue::Array(array), Arg::Buffer { data, .. }) = (&mut arg.value, result) {
            array.data = data;
        }
    }
    Ok(())
}
