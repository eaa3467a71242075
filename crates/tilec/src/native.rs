//! Running compiled kernels natively in this process: the kernel's shared object is loaded
//! with the dynamic loader and its `NAME_grid` entry runs the grid on scoped threads, split
//! statically in (z, y, x) order as the runner splits it.
//!
//! The arrays are copies: each lives in a mapping of its own between two inaccessible guard
//! pages, its end against the upper one (its start 16-byte aligned, the divisibility the
//! compiler assumes; the bytes of its pages around it hold a canary), as in the runner
//! (`runner/runner.c`). After the grid the canaries are checked and the arrays copied back.
//!
//! Invariant: a kernel that faults (an access that reaches a guard page, a failed bounds
//! check, a failed `tl.device_assert`) is reported on standard error with the kernel, the
//! program and the array it hit, and the process then dies of that signal: it never returns
//! into the caller with memory the kernel may have damaged. A write next to an array, where
//! the guard pages do not reach, fails the launch ([`codes::WROTE_OUTSIDE`]); faults outside
//! a kernel go to the signal handlers that were installed before.

use std::cell::{Cell, UnsafeCell};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;

use crate::error::{codes, Error};
use crate::launch::{LaunchConfig, RunFailure, RuntimeArg, RuntimeValue};

/// `void NAME_grid(const u64 *args, u64 first, u64 end, u32 grid_x, grid_y, grid_z,
/// i64 *program)` (see `tilec_codegen::launch`).
type GridFn = unsafe extern "C" fn(*const u64, u64, u64, u32, u32, u32, *mut i64);

/// A kernel's shared object loaded into this process, ready to run ([`run_native`]).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tilec::launch::{run_native, LaunchConfig, Machine, NativeLibrary, RuntimeArg, RuntimeValue};
/// let source = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr + tl.program_id(0), 2.5)\n";
/// let request = tilec::Request {
///     file_name: "k.py",
///     source,
///     kernel: "k",
///     signature: tilec::parse_signature("*fp32:16")?,
///     constants: Vec::new(),
/// };
/// let output = tilec::Compiler::new(tilec::Target::Host).compile(&request).map_err(tilec::Error::from)?;
/// let library = NativeLibrary::load(&output.shared_object, "k")?;
/// let x = tilec_npy::HostArray::zeros(tilec::ir::ScalarType::F32, &[4])?;
/// let mut args = [RuntimeArg { name: "x_ptr".into(), value: RuntimeValue::Array(x) }];
/// let config = LaunchConfig {
///     grid: [4, 1, 1],
///     threads: 2,
///     machine: Machine::Scalar,
///     timeout: std::time::Duration::from_secs(60),
///     check_bounds: false,
/// };
/// run_native(&library, &mut args, &config).map_err(|failure| failure.error)?;
/// let RuntimeValue::Array(x) = &args[0].value else { unreachable!() };
/// assert_eq!(x.data, [2.5f32; 4].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>());
/// # Ok(())
/// # }
/// ```
pub struct NativeLibrary {
    grid: GridFn,
    kernel: String,
    /// What a fault report says of each bounds-check site, by site number.
    sites: Vec<String>,
    /// Keeps the shared object loaded while `grid` may be called.
    _library: libloading::os::unix::Library,
}

impl std::fmt::Debug for NativeLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeLibrary").field("kernel", &self.kernel).finish_non_exhaustive()
    }
}

impl NativeLibrary {
    /// Loads `shared_object`, compiled by tilec for this machine, and finds the grid entry of
    /// `kernel` (a nested kernel's qualified name `test_add.kernel` names `kernel`). A shared
    /// object for another machine is a [`codes::RUN_FAILED`] error that says which it is for.
    pub fn load(shared_object: &[u8], kernel: &str) -> Result<NativeLibrary, Error> {
        check_machine(shared_object)?;
        let symbol = kernel.rsplit('.').next().unwrap_or(kernel);
        let file = TempLibrary::write(shared_object)?;
        let flags = libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL;
        // SAFETY: the shared object is one tilec compiled: it has no initializers, and its
        // only dependency is the system libm.
        let library = unsafe { libloading::os::unix::Library::open(Some(&file.path), flags) }
            .map_err(|e| Error::new(codes::RUN_FAILED, format!("cannot load the kernel's shared object: {e}")))?;
        let name = format!("{symbol}_grid");
        // SAFETY: tilec's code generator defines `NAME_grid` with exactly this signature.
        let grid = unsafe { library.get::<GridFn>(name.as_bytes()) }
            .map(|f| *f)
            .map_err(|e| Error::new(codes::RUN_FAILED, format!("the shared object has no `{name}`: {e}")))?;
        Ok(NativeLibrary { grid, kernel: kernel.to_string(), sites: Vec::new(), _library: library })
    }

    /// Names the accesses of a kernel compiled with bounds checks in the report of a failed
    /// check: `sites` describe them by site number (see [`site_descriptions`]).
    pub fn with_sites(mut self, sites: Vec<String>) -> NativeLibrary {
        self.sites = sites;
        self
    }

    /// The kernel's name, as given to [`NativeLibrary::load`].
    pub fn kernel(&self) -> &str {
        &self.kernel
    }
}

/// How a fault report names each bounds-check site of a kernel compiled from `source`
/// (`file_name` in reports): `out-of-bounds read at k.py:12:9` (see
/// [`crate::Output::bounds_sites`]).
///
/// ```
/// use tilec::diagnostics::Span;
/// use tilec_codegen::bounds::{Access, Site};
/// let sites = [Site { span: Some(Span::new(4, 6)), access: Access::Write }];
/// assert_eq!(tilec::launch::site_descriptions("k.py", "a\nbcdefg", &sites), ["out-of-bounds write at k.py:2:3"]);
/// ```
pub fn site_descriptions(file_name: &str, source: &str, sites: &[tilec_codegen::bounds::Site]) -> Vec<String> {
    sites
        .iter()
        .map(|site| {
            let noun = site.access.noun();
            match site.span {
                Some(span) => {
                    let (line, col) = tilec_diagnostics::line_col(source, span.start);
                    format!("out-of-bounds {noun} at {file_name}:{line}:{col}")
                }
                None => format!("out-of-bounds {noun} of an operand of a `tl.dot`"),
            }
        })
        .collect()
}

/// The ELF machine number of the machine this process runs on.
const HOST_MACHINE: Option<(u16, &str)> = if cfg!(target_arch = "x86_64") {
    Some((62, "x86_64"))
} else if cfg!(target_arch = "aarch64") {
    Some((183, "aarch64"))
} else if cfg!(target_arch = "riscv64") {
    Some((243, "riscv64"))
} else {
    None
};

/// Fails unless `bytes` is a 64-bit little-endian ELF file for this machine.
fn check_machine(bytes: &[u8]) -> Result<(), Error> {
    let named = |machine: u16| match machine {
        62 => "x86_64",
        183 => "aarch64",
        243 => "riscv64",
        _ => "another machine",
    };
    if bytes.len() < 20 || &bytes[..4] != b"\x7fELF" {
        return Err(Error::new(codes::RUN_FAILED, "the kernel's shared object is not an ELF file"));
    }
    let machine = u16::from_le_bytes([bytes[18], bytes[19]]);
    match HOST_MACHINE {
        Some((host, _)) if host == machine && bytes[4] == 2 && bytes[5] == 1 => Ok(()),
        Some((_, host)) => Err(Error::new(
            codes::RUN_FAILED,
            format!("the shared object is machine code for {}, not for this {host} machine", named(machine)),
        )
        .with_note("compile it with `--target host` (`tilec::Target::Host`) to run it here")),
        None => Err(Error::new(codes::RUN_FAILED, "tilec cannot run machine code natively on this machine")),
    }
}

/// The shared object written to a fresh file for the dynamic loader, removed when dropped
/// (the loaded mapping stays).
struct TempLibrary {
    path: PathBuf,
}

impl TempLibrary {
    fn write(bytes: &[u8]) -> Result<TempLibrary, Error> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir();
        for _ in 0..100 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let path = dir.join(format!("tilec-kernel-{}-{n}-{nanos:x}.so", std::process::id()));
            let created = std::fs::OpenOptions::new().write(true).create_new(true).open(&path);
            match created {
                Ok(mut file) => {
                    use std::io::Write;
                    let library = TempLibrary { path };
                    file.write_all(bytes).map_err(|e| write_error(&library.path, e))?;
                    return Ok(library);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(write_error(&path, e)),
            }
        }
        Err(Error::new(codes::IO, format!("cannot create a fresh file in {}", dir.display())))
    }
}

fn write_error(path: &Path, e: std::io::Error) -> Error {
    Error::new(codes::IO, format!("cannot write {}: {e}", path.display()))
}

impl Drop for TempLibrary {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The byte that fills an array's pages around it (the runner's `CANARY`).
const CANARY: u8 = 0xa5;

/// Alignment of an array's start.
const ALIGN: usize = 16;

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(page).ok().filter(|&p| p > 0).unwrap_or(4096)
}

/// An array of the launch in its guarded mapping.
struct Guarded {
    /// The mapping: a guard page, `body` accessible bytes, a guard page.
    map: *mut u8,
    body: usize,
    page: usize,
    /// The array's bytes, ending `padding` bytes before the upper guard page.
    data: *mut u8,
    bytes: usize,
    /// For reports: the array's name, dtype and element size.
    name: String,
    dtype: &'static str,
    elem: usize,
}

impl Guarded {
    fn new(initial: &[u8], name: String, dtype: &'static str, elem: usize) -> Result<Guarded, Error> {
        let page = page_size();
        let bytes = initial.len();
        let padded = bytes.div_ceil(ALIGN) * ALIGN;
        let body = padded.div_ceil(page) * page;
        let message = format!("cannot map {bytes} bytes for `{name}`");
        let too_big = || Error::new(codes::RUN_FAILED, message.clone());
        let length = body.checked_add(2 * page).ok_or_else(too_big)?;
        // SAFETY: an anonymous private mapping of fresh memory; nothing else refers to it.
        let map = unsafe {
            libc::mmap(std::ptr::null_mut(), length, libc::PROT_NONE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
        };
        if map == libc::MAP_FAILED {
            return Err(too_big());
        }
        let map = map.cast::<u8>();
        let mut guarded =
            Guarded { map, body, page, data: std::ptr::null_mut(), bytes, name, dtype, elem: elem.max(1) };
        if body > 0 {
            // SAFETY: `map + page .. + body` lies inside the mapping just made.
            let ok = unsafe { libc::mprotect(map.add(page).cast(), body, libc::PROT_READ | libc::PROT_WRITE) } == 0;
            if !ok {
                return Err(too_big());
            }
        }
        // SAFETY: the accessible part is `body` bytes from `map + page`; `data` and its
        // `bytes` lie inside it, at its end less the padding.
        unsafe {
            std::ptr::write_bytes(map.add(page), CANARY, body);
            guarded.data = map.add(page + body - padded);
            std::ptr::copy_nonoverlapping(initial.as_ptr(), guarded.data, bytes);
        }
        Ok(guarded)
    }

    /// The array's bytes as the kernel left them.
    fn contents(&self) -> Vec<u8> {
        // SAFETY: `data .. data + bytes` is accessible memory of this mapping.
        unsafe { std::slice::from_raw_parts(self.data, self.bytes) }.to_vec()
    }

    /// The first and last canary byte the kernel changed, as element offsets from the start.
    fn damaged_canaries(&self) -> Option<(i64, i64)> {
        // SAFETY: the accessible part of the mapping; no kernel runs any more.
        let accessible = unsafe { std::slice::from_raw_parts(self.map.add(self.page), self.body) };
        let start = self.data as usize - self.map as usize - self.page;
        let end = start + self.bytes;
        let changed = |i: &usize| (*i < start || *i >= end) && accessible[*i] != CANARY;
        let first = (0..self.body).find(changed)?;
        let last = (0..self.body).rev().find(changed)?;
        let element = |i: usize| (i as i64 - start as i64).div_euclid(self.elem as i64);
        Some((element(first), element(last)))
    }

    fn span(&self) -> (usize, usize) {
        (self.map as usize, self.map as usize + self.body + 2 * self.page)
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `Guarded::new`, no longer used.
        unsafe { libc::munmap(self.map.cast(), self.body + 2 * self.page) };
    }
}

/// What the fault handler knows of a running launch.
struct Launch {
    kernel: String,
    sites: *const [String],
    arrays: Vec<Guarded>,
    /// Where a bounds-checked kernel leaves the failing check's site + 1 and address.
    record: Box<UnsafeCell<[u64; 2]>>,
}

// SAFETY: the worker threads only read a `Launch` (its mappings and record are written by
// the kernel's code alone, through the addresses in the argument slots).
unsafe impl Sync for Launch {}

/// What the fault handler knows of the programs a thread runs.
struct Worker {
    launch: *const Launch,
    /// The running program's coordinates, kept by `NAME_grid`.
    program: UnsafeCell<[i64; 3]>,
}

thread_local! {
    /// The worker this thread runs for, while it runs kernel code.
    static RUNNING: Cell<*const Worker> = const { Cell::new(std::ptr::null()) };
}

/// Runs `library`'s kernel over `config.grid` on `args` (which follow the kernel's runtime
/// parameters, as for [`crate::launch::run_compiled`]) in this process, on `config.threads`
/// threads. `config.machine` is not used: the kernel runs on this machine. A launch that
/// outlives `config.timeout` cannot be stopped safely in this process: the process ends
/// with a [`codes::TIMED_OUT`] report on standard error and exit status 1. On success every array holds the kernel's results; a write next to
/// an array fails the run with the arrays as it left them ([`RunFailure::arrays_left`]).
/// A fault ends the process after a report (see the module's invariant).
pub fn run_native(library: &NativeLibrary, args: &mut [RuntimeArg], config: &LaunchConfig) -> Result<(), RunFailure> {
    install_fault_handlers();
    let mut arrays = Vec::new();
    let guard = |name: String, array: &tilec_npy::HostArray| {
        Guarded::new(&array.data, name, array.dtype.name(), array.dtype.bytes() as usize)
    };
    // Argument slots, with the array slots' indices into `arrays` filled in below.
    let mut slots = Vec::new();
    let mut tables = Vec::new();
    for arg in args.iter() {
        match &arg.value {
            RuntimeValue::Array(array) => {
                slots.push(Slot::Array(arrays.len()));
                arrays.push(guard(arg.name.clone(), array)?);
            }
            RuntimeValue::Pointers(targets) => {
                let first = arrays.len();
                for (k, array) in targets.iter().enumerate() {
                    arrays.push(guard(format!("{}.{k}", arg.name), array)?);
                }
                tables.push((slots.len(), first..arrays.len(), arg.name.clone()));
                slots.push(Slot::Value(0));
            }
            scalar => slots.push(Slot::Value(scalar.scalar_slot().unwrap_or_default())),
        }
    }
    // The pointer tables follow the arrays, as in the runner's bounds table.
    for (slot, targets, name) in tables {
        let addresses: Vec<u8> = targets.flat_map(|i| (arrays[i].data as u64).to_le_bytes()).collect();
        slots[slot] = Slot::Array(arrays.len());
        arrays.push(Guarded::new(&addresses, format!("{name} (the pointer table)"), "i64", 8)?);
    }
    let launch = Launch {
        kernel: library.kernel.clone(),
        sites: library.sites.as_slice(),
        arrays,
        record: Box::new(UnsafeCell::new([0; 2])),
    };
    let mut values: Vec<u64> = slots
        .iter()
        .map(|slot| match slot {
            Slot::Array(i) => launch.arrays[*i].data as u64,
            Slot::Value(v) => *v,
        })
        .collect();
    // The bounds table: [record, count, start_0, end_0, ...] (`tilec_codegen::bounds`).
    let mut bounds = vec![launch.record.get() as u64, launch.arrays.len() as u64];
    bounds.extend(launch.arrays.iter().flat_map(|a| [a.data as u64, a.data as u64 + a.bytes as u64]));
    if config.check_bounds {
        values.push(bounds.as_ptr() as u64);
    }

    let [gx, gy, gz] = config.grid;
    let programs = u64::from(gx) * u64::from(gy) * u64::from(gz);
    let threads = u64::from(config.threads.max(1)).min(programs.max(1));
    let run = |t: u64| {
        let worker = Worker { launch: &launch, program: UnsafeCell::new([-1; 3]) };
        let _stack = SignalStack::ensure();
        RUNNING.with(|r| r.set(&worker));
        let (first, end) = (programs * t / threads, programs * (t + 1) / threads);
        // SAFETY: `values` holds one slot per runtime parameter of the kernel (and the
        // bounds table when it was compiled with checks), each array's address pointing to
        // a live mapping of its size; `end` is at most the grid's size; `program` is valid.
        unsafe { (library.grid)(values.as_ptr(), first, end, gx, gy, gz, worker.program.get().cast()) };
        RUNNING.with(|r| r.set(std::ptr::null()));
    };
    let watchdog = watchdog(&library.kernel, config.timeout);
    if threads == 1 {
        run(0);
    } else {
        std::thread::scope(|scope| {
            for t in 0..threads {
                let run = &run;
                scope.spawn(move || run(t));
            }
        });
    }

    drop(watchdog);
    let damaged: Vec<String> = launch
        .arrays
        .iter()
        .filter_map(|a| {
            let (first, last) = a.damaged_canaries()?;
            Some(format!(
                "kernel {} wrote outside `{}` ({} elements of {}): elements {first} to {last} were changed (bytes \
                 between the array and its guard pages; the program is not known)",
                launch.kernel,
                a.name,
                a.bytes / a.elem,
                a.dtype
            ))
        })
        .collect();
    let mut results = launch.arrays.iter().map(Guarded::contents);
    for arg in args.iter_mut() {
        match &mut arg.value {
            RuntimeValue::Array(array) => array.data = results.next().unwrap_or_default(),
            RuntimeValue::Pointers(targets) => {
                targets.iter_mut().for_each(|a| a.data = results.next().unwrap_or_default())
            }
            RuntimeValue::Scalar { .. } => {}
        }
    }
    if damaged.is_empty() {
        return Ok(());
    }
    let mut error = Error::new(
        codes::WROTE_OUTSIDE,
        format!(
            "kernel `{}` wrote outside its arrays (next to them, where the guard pages do not reach)",
            library.kernel
        ),
    );
    for note in damaged {
        error = error.with_note(note);
    }
    Err(RunFailure { error, arrays_left: true, bounds_check: None })
}

/// A watch that ends the process with a report when it is not dropped within `timeout`: a
/// kernel running in this process cannot be stopped (its threads hold the launch's memory).
fn watchdog(kernel: &str, timeout: std::time::Duration) -> crate::timing::Watch {
    let kernel = kernel.to_string();
    crate::timing::Watch::spawn(move |finished| {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(timeout) {
            let error = Error::new(
                codes::TIMED_OUT,
                format!(
                    "kernel `{kernel}` did not finish within {} s; a kernel running in this process cannot \
                     be stopped, so the process ends (raise the limit with --timeout SECONDS)",
                    timeout.as_secs()
                ),
            );
            let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), error.render().as_bytes());
            std::process::exit(1);
        }
    })
}

/// An argument slot: an array's address (an index into the launch's arrays) or a value.
enum Slot {
    Array(usize),
    Value(u64),
}

/// An alternate signal stack for the calling thread while it runs kernel code, so that a
/// kernel that overflows its stack is reported too; none is made when the thread has one.
struct SignalStack {
    made: Option<(*mut libc::c_void, usize)>,
}

impl SignalStack {
    const SIZE: usize = 64 * 1024;

    fn ensure() -> SignalStack {
        // SAFETY: sigaltstack reads and writes only the structures given.
        unsafe {
            let mut current: libc::stack_t = std::mem::zeroed();
            if libc::sigaltstack(std::ptr::null(), &mut current) != 0 || current.ss_flags & libc::SS_DISABLE == 0 {
                return SignalStack { made: None };
            }
            let stack = libc::mmap(
                std::ptr::null_mut(),
                Self::SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if stack == libc::MAP_FAILED {
                return SignalStack { made: None };
            }
            let new = libc::stack_t { ss_sp: stack, ss_flags: 0, ss_size: Self::SIZE };
            if libc::sigaltstack(&new, std::ptr::null_mut()) != 0 {
                libc::munmap(stack, Self::SIZE);
                return SignalStack { made: None };
            }
            SignalStack { made: Some((stack, Self::SIZE)) }
        }
    }
}

impl Drop for SignalStack {
    fn drop(&mut self) {
        if let Some((stack, size)) = self.made {
            // SAFETY: the stack this thread installed, no longer in use (no handler runs).
            unsafe {
                let off = libc::stack_t { ss_sp: std::ptr::null_mut(), ss_flags: libc::SS_DISABLE, ss_size: 0 };
                libc::sigaltstack(&off, std::ptr::null_mut());
                libc::munmap(stack, size);
            }
        }
    }
}

/// The signals a kernel's faults raise.
const FAULT_SIGNALS: [libc::c_int; 4] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE];

/// The handlers that were installed before ours, by the index of the signal in
/// [`FAULT_SIGNALS`].
static PREVIOUS: OnceLock<Vec<libc::sigaction>> = OnceLock::new();

/// The first fault of a kernel is the one reported.
static FAULT_TAKEN: AtomicBool = AtomicBool::new(false);

fn install_fault_handlers() {
    PREVIOUS.get_or_init(|| {
        FAULT_SIGNALS
            .iter()
            .map(|&sig| {
                // SAFETY: a zeroed sigaction with a valid handler and an empty mask is a valid
                // argument; the previous action is written into `old`.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_fault as *const () as usize;
                    action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                    libc::sigemptyset(&mut action.sa_mask);
                    let mut old: libc::sigaction = std::mem::zeroed();
                    libc::sigaction(sig, &action, &mut old);
                    old
                }
            })
            .collect()
    });
}

/// A fixed buffer that text is formatted into without allocating (in a signal handler).
struct FaultText {
    buf: [u8; 2048],
    len: usize,
}

impl std::fmt::Write for FaultText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let worker = RUNNING.with(|r| r.get());
    if worker.is_null() {
        forward(sig, info, context);
        return;
    }
    if FAULT_TAKEN.swap(true, Ordering::SeqCst) {
        // Another thread reports; the process dies with its report.
        loop {
            // SAFETY: pause has no preconditions.
            unsafe { libc::pause() };
        }
    }
    // SAFETY: `worker` and its launch live until the thread stops running kernel code, which
    // it has not: it is in the kernel, interrupted by this signal.
    let (worker, launch) = unsafe { (&*worker, &*(*worker).launch) };
    let program = unsafe { std::ptr::read_volatile(worker.program.get()) };
    let record = unsafe { std::ptr::read_volatile(launch.record.get()) };
    let mut text = FaultText { buf: [0; 2048], len: 0 };
    let name = match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        _ => "SIGFPE",
    };
    let _ = writeln!(
        text,
        "tilec: kernel `{}` faulted with signal {sig} ({name}) in program ({}, {}, {})",
        launch.kernel, program[0], program[1], program[2]
    );
    if sig == libc::SIGILL && record[0] != 0 {
        let site = (record[0] - 1) as usize;
        // SAFETY: the library, which holds the sites, outlives the launch.
        let sites: &[String] = unsafe { &*launch.sites };
        let _ = match sites.get(site) {
            Some(description) => write!(text, "tilec: bounds check {site} failed: {description}: "),
            None => write!(text, "tilec: bounds check {site} failed: "),
        };
        describe_address(&mut text, launch, record[1] as usize);
    } else if sig == libc::SIGILL {
        let _ = text.write_str("tilec: a `tl.device_assert` failed, or the kernel ran an illegal instruction");
    } else if sig == libc::SIGSEGV || sig == libc::SIGBUS {
        let _ = text.write_str("tilec: ");
        // SAFETY: the kernel signals give a valid siginfo with the faulting address.
        describe_address(&mut text, launch, unsafe { (*info).si_addr() } as usize);
    }
    let _ = text.write_str("\ntilec: the process ends here: the kernel may have damaged its memory\n");
    // SAFETY: write(2) with a valid buffer; restoring the default action and returning
    // makes the faulting instruction fault again, which ends the process with this signal.
    unsafe {
        libc::write(2, text.buf.as_ptr().cast(), text.len);
        libc::signal(sig, libc::SIG_DFL);
    }
    if sig == libc::SIGFPE {
        // An integer division fault re-executes too; raise in case it does not.
        unsafe { libc::raise(sig) };
    }
}

/// Hands a fault outside any kernel to the handler that was installed before ours.
fn forward(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let previous = PREVIOUS.get().and_then(|p| FAULT_SIGNALS.iter().position(|&s| s == sig).map(|i| p[i]));
    let handler = previous.map_or(libc::SIG_DFL, |p| p.sa_sigaction);
    let siginfo = previous.is_some_and(|p| p.sa_flags & libc::SA_SIGINFO != 0);
    // SAFETY: the previous handler was installed for this signal by its owner and is
    // called as its flags say.
    unsafe {
        if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
            libc::signal(sig, libc::SIG_DFL);
        } else if siginfo {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(handler);
            f(sig, info, context);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
            f(sig);
        }
    }
}

/// Names the array `addr` belongs to (its data or its guard pages) or is nearest to, as the
/// runner does.
fn describe_address(text: &mut FaultText, launch: &Launch, addr: usize) {
    let _ = write!(text, "the access at {addr:#018x}");
    let mut best: Option<(&Guarded, u64, bool)> = None;
    for array in &launch.arrays {
        let (start, end) = (array.data as usize, array.data as usize + array.bytes);
        let (map_start, map_end) = array.span();
        let distance = if addr < start {
            start - addr
        } else if addr >= end {
            addr - end + 1
        } else {
            0
        } as u64;
        let mine = (map_start..map_end).contains(&addr);
        let closer = best.is_none_or(|(_, d, inside)| !inside && distance < d);
        if mine || closer {
            best = Some((array, distance, mine));
            if mine {
                break;
            }
        }
    }
    let Some((array, distance, inside)) = best else {
        let _ = text.write_str(" is in no array (the kernel has none)");
        return;
    };
    let element = (addr as i64 - array.data as i64).div_euclid(array.elem as i64);
    let length = (array.bytes / array.elem) as i64;
    let (name, dtype) = (&array.name, array.dtype);
    let _ = if inside {
        let place = if element < 0 {
            "before its start"
        } else if element >= length {
            "past its end"
        } else {
            "inside it"
        };
        write!(text, " is element {element} of `{name}` ({length} elements of {dtype}), {place}")
    } else if distance < 1 << 30 {
        write!(
            text,
            " is in no array; it would be element {element} of the nearest, `{name}` ({length} elements of {dtype})"
        )
    } else {
        write!(text, " is in no array (none is within 1 GiB of it)")
    };
}
