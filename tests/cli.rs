//! Bad uses of the `tilec` command line: each gives a clear message and a non-zero exit,
//! never a panic.

mod support;

use support::{cross_compile_shared_object, tilec, workspace_root, HostArray, Number, TempDir};

/// A kernel whose parameters cover every kind of argument; its body is not what runs in
/// these tests (they use hand-written C kernels through `--library`).
const PROBE_KERNEL: &str = r#"
import triton
import triton.language as tl

@triton.jit
def probe(out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, offsets, mask=offsets < n)
"#;

/// Writes through a null pointer: the runner must report the fault and its signal.
const FAULTING_C_KERNEL: &str = r#"
#include <stdint.h>
void probe_launch(const uint64_t *args, int32_t px, int32_t py, int32_t pz,
                  uint32_t gx, uint32_t gy, uint32_t gz) {
    volatile int32_t *nowhere = (volatile int32_t *)(uintptr_t)(args[1] & 0);
    nowhere[px] = 1;
}
"#;

fn probe_file(dir: &TempDir) -> String {
    dir.write("probe.py", PROBE_KERNEL)
}

fn run_probe(dir: &TempDir, extra: &[&str], envs: &[(&str, &str)]) -> support::Outcome {
    let file = probe_file(dir);
    let mut args = vec!["run", file.as_str(), "-k", "probe", "--grid", "2"];
    args.extend_from_slice(extra);
    tilec(&args, envs)
}

#[test]
fn missing_toolchain_names_the_setup_command() {
    if cfg!(target_arch = "riscv64") {
        // A riscv64 host runs riscv64gc kernels in the tilec process; nothing to check.
        return;
    }
    let dir = TempDir::new("no-toolchain");
    let empty_cache = dir.join("empty-cache");
    std::fs::create_dir_all(&empty_cache).unwrap();
    let cache = empty_cache.display().to_string();
    let outcome = run_probe(&dir, &["out_ptr=zeros:i32:64", "n=64", "BLOCK=32"], &[("TILEC_CACHE", &cache)]);
    outcome.assert_fails_with(&["E1006", "cargo xtask setup"]);
}

#[test]
fn missing_sysroot_names_the_setup_command() {
    if cfg!(target_arch = "riscv64") {
        // A riscv64 host runs kernels natively and needs no sysroot; nothing to check.
        return;
    }
    let dir = TempDir::new("no-sysroot");
    let outcome =
        run_probe(&dir, &["out_ptr=zeros:i32:64", "n=64", "BLOCK=32"], &[("TILEC_SYSROOT", "/nonexistent/sysroot")]);
    outcome.assert_fails_with(&["E1006", "sysroot", "/nonexistent/sysroot", "cargo xtask setup"]);
}

#[test]
fn unknown_kernel_is_reported() {
    let dir = TempDir::new("unknown-kernel");
    let file = probe_file(&dir);
    let outcome = tilec(&["run", &file, "-k", "no_such_kernel", "--grid", "1", "--target", "interp"], &[]);
    outcome.assert_fails_with(&["no_such_kernel"]);
}

#[test]
fn missing_argument_is_reported() {
    let dir = TempDir::new("missing-arg");
    let outcome = run_probe(&dir, &["--target", "interp", "out_ptr=zeros:i32:64", "BLOCK=32"], &[]);
    outcome.assert_fails_with(&["E1002", "missing argument `n`"]);
}

#[test]
fn missing_constexpr_is_reported() {
    let dir = TempDir::new("missing-constexpr");
    let outcome = run_probe(&dir, &["--target", "interp", "out_ptr=zeros:i32:64", "n=64"], &[]);
    outcome.assert_fails_with(&["E1002", "constexpr parameter `BLOCK`"]);
}

#[test]
fn extra_argument_is_reported() {
    let dir = TempDir::new("extra-arg");
    let outcome = run_probe(&dir, &["--target", "interp", "out_ptr=zeros:i32:64", "n=64", "BLOCK=32", "bogus=3"], &[]);
    outcome.assert_fails_with(&["E1003", "no parameter `bogus`", "out_ptr, n, BLOCK"]);
}

#[test]
fn constexpr_given_an_array_is_reported() {
    let dir = TempDir::new("constexpr-array");
    let outcome = run_probe(&dir, &["--target", "interp", "out_ptr=zeros:i32:64", "n=64", "BLOCK=zeros:i32:4"], &[]);
    outcome.assert_fails_with(&["E1004", "`BLOCK` is a tl.constexpr parameter"]);
}

#[test]
fn malformed_argument_is_reported() {
    let dir = TempDir::new("bad-arg");
    for (arg, expected) in [
        ("out_ptr", "expected NAME=VALUE"),
        ("out_ptr=zeros:f99:4", "unknown dtype `f99`"),
        ("out_ptr=zeros:i32:0", "shape `0`"),
        ("out_ptr=hello", "neither an array nor a number"),
    ] {
        let outcome = run_probe(&dir, &["--target", "interp", arg, "n=64", "BLOCK=32"], &[]);
        outcome.assert_fails_with(&["E1001", expected]);
    }
}

/// A `.npy` v1.0 file with header dictionary `header` followed by `data`.
fn npy_bytes(header: &str, data: &[u8]) -> Vec<u8> {
    let mut text = header.to_string();
    while !(10 + text.len() + 1).is_multiple_of(64) {
        text.push(' ');
    }
    text.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(text.len() as u16).to_le_bytes());
    bytes.extend_from_slice(text.as_bytes());
    bytes.extend_from_slice(data);
    bytes
}

#[test]
fn bad_npy_files_are_reported() {
    let dir = TempDir::new("bad-npy");
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("garbage.npy", b"this is not numpy".to_vec(), "not a usable .npy file"),
        (
            "complex.npy",
            npy_bytes("{'descr': '<c8', 'fortran_order': False, 'shape': (4,), }", &[0; 32]),
            "dtype `<c8` is not supported",
        ),
        (
            "short.npy",
            npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (100,), }", &[0; 12]),
            "fewer than the 400 data bytes",
        ),
        (
            "fortran.npy",
            npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", &[0; 16]),
            "Fortran order",
        ),
    ];
    for (name, bytes, expected) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let arg = format!("out_ptr=@{}", path.display());
        let outcome = run_probe(&dir, &["--target", "interp", &arg, "n=64", "BLOCK=32"], &[]);
        outcome.assert_fails_with(&["E1005", name, expected]);
    }
    let missing = format!("out_ptr=@{}", dir.join("absent.npy").display());
    run_probe(&dir, &["--target", "interp", &missing, "n=64", "BLOCK=32"], &[])
        .assert_fails_with(&["E1005", "absent.npy"]);
}

#[test]
fn kernel_fault_is_reported_with_its_signal() {
    let dir = TempDir::new("fault");
    let library = cross_compile_shared_object(&dir, "faulting", FAULTING_C_KERNEL);
    let outcome = run_probe(&dir, &["--library", &library, "out_ptr=zeros:i32:64", "n=64", "BLOCK=32"], &[]);
    outcome.assert_fails_with(&["E1007", "kernel `probe` faulted", "signal 11 (SIGSEGV)", "in program (0, 0, 0)"]);
}

#[test]
fn library_without_the_launch_symbol_is_reported() {
    let dir = TempDir::new("no-symbol");
    let library = cross_compile_shared_object(&dir, "empty", "int unrelated(void) { return 0; }\n");
    let outcome = run_probe(&dir, &["--library", &library, "out_ptr=zeros:i32:64", "n=64", "BLOCK=32"], &[]);
    outcome.assert_fails_with(&["E1008", "has no symbol probe_launch"]);
}

#[test]
fn bad_grid_vlen_and_threads_are_rejected() {
    let dir = TempDir::new("bad-grid");
    let file = probe_file(&dir);
    for (flag, value, expected) in [
        ("--grid", "0", "not a grid size"),
        ("--grid", "1,2,3,4", "at most three dimensions"),
        ("--vlen", "100", "not a power of two from 128 to 1024"),
        ("--threads", "0", "--threads"),
    ] {
        let mut args = vec!["run", file.as_str(), "-k", "probe", flag, value];
        if flag != "--grid" {
            args.extend(["--grid", "1"]);
        }
        tilec(&args, &[]).assert_fails_with(&[expected]);
    }
}

#[test]
fn library_cannot_run_in_the_interpreter() {
    let dir = TempDir::new("interp-library");
    let outcome =
        run_probe(&dir, &["--target", "interp", "--library", "x.so", "out_ptr=zeros:i32:64", "n=64", "BLOCK=32"], &[]);
    outcome.assert_fails_with(&["E1001", "--library"]);
}

#[test]
fn unreadable_source_file_is_reported() {
    let outcome = tilec(&["run", "/nonexistent/kernel.py", "-k", "k", "--grid", "1", "--target", "interp"], &[]);
    outcome.assert_fails_with(&["E1009", "cannot read /nonexistent/kernel.py"]);
}

const VECTOR_ADD_COMPILE: [&str; 9] = [
    "compile",
    "fixtures/vector_add.py",
    "-k",
    "add_kernel",
    "-s",
    "*fp32:16, *fp32:16, *fp32:16, i32",
    "-c",
    "BLOCK_SIZE=1024",
    "--target",
];

/// `e_type` of an ELF file for RISC-V (`e_machine` 243), or a description of what is wrong.
fn riscv_elf_type(bytes: &[u8]) -> Result<u16, String> {
    if bytes.len() < 20 || &bytes[..4] != b"\x7fELF" {
        return Err("not an ELF file".into());
    }
    let machine = u16::from_le_bytes([bytes[18], bytes[19]]);
    if machine != 243 {
        return Err(format!("e_machine {machine} is not RISC-V"));
    }
    Ok(u16::from_le_bytes([bytes[16], bytes[17]]))
}

#[test]
fn compile_writes_shared_objects_and_objects() {
    let dir = TempDir::new("compile-out");
    for target in ["riscv64gc", "riscv64gcv"] {
        for (name, elf_type) in [("kernel.so", 3u16), ("kernel.o", 1)] {
            let path = dir.join(name).display().to_string();
            let mut args = VECTOR_ADD_COMPILE.to_vec();
            args.extend([target, "-o", &path]);
            let outcome = tilec(&args, &[]);
            outcome.assert_success();
            assert!(outcome.stdout.is_empty(), "-o without --emit prints nothing: {}", outcome.stdout);
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(riscv_elf_type(&bytes), Ok(elf_type), "{target} {name}");
        }
    }
}

#[test]
fn compile_prints_each_stage() {
    for (stage, expected) in [
        ("ast", "function add_kernel"),
        ("tile", "tt.func @add_kernel"),
        ("tile-opt", "tt.func @add_kernel"),
        ("vector", "kernel add_kernel"),
        ("asm", "add_kernel_launch"),
        ("nests", "target riscv64gc: scalar code only"),
    ] {
        let mut args = VECTOR_ADD_COMPILE.to_vec();
        args.extend(["riscv64gc", "--emit", stage]);
        let outcome = tilec(&args, &[]);
        outcome.assert_success();
        assert!(outcome.stdout.contains(expected), "--emit {stage} lacks {expected:?}:\n{}", outcome.stdout);
    }
}

#[test]
fn compile_reports_each_nest_on_riscv64gcv() {
    let mut args = VECTOR_ADD_COMPILE.to_vec();
    args.extend(["riscv64gcv", "--emit", "nests"]);
    let outcome = tilec(&args, &[]);
    outcome.assert_success();
    let expected = "# 1 nests and dots: 1 RVV, 0 scalar\nnest [1024] at fixtures/vector_add.py:";
    assert!(outcome.stdout.starts_with(expected), "--emit nests:\n{}", outcome.stdout);
    assert!(outcome.stdout.contains(": rvv leaf add_kernel__rvv0\n"), "--emit nests:\n{}", outcome.stdout);
}

#[test]
fn compile_reports_an_unknown_kernel_in_the_source() {
    let outcome = tilec(&["compile", "fixtures/vector_add.py", "-k", "no_such_kernel", "-s", "i32"], &[]);
    outcome.assert_fails_with(&["no_such_kernel", "fixtures/vector_add.py"]);
}

/// Runs `tilec ARGS` with its standard output a pipe whose reader is closed before `tilec`
/// writes (as `tilec ... | head -c 0` would); the exit code and stderr.
fn tilec_into_a_closed_pipe(args: &[&str]) -> (Option<i32>, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tilec"))
        .args(args)
        .current_dir(workspace_root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the tilec binary starts");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("tilec ends");
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

/// A closed pipe ends `tilec` quietly: exit 141 (128 + SIGPIPE, what a shell shows for a tool
/// that SIGPIPE killed) or 0 if it had written everything first, nothing on stderr.
fn assert_ends_quietly(args: &[&str], (code, stderr): (Option<i32>, String)) {
    assert!(
        matches!(code, Some(0 | 141)),
        "`tilec {}` into a closed pipe exited with {code:?}:\n{stderr}",
        args.join(" ")
    );
    assert!(stderr.is_empty(), "`tilec {}` into a closed pipe wrote to stderr:\n{stderr}", args.join(" "));
}

#[test]
fn compile_into_a_closed_pipe_ends_quietly() {
    for stage in ["tile", "asm"] {
        let mut args = VECTOR_ADD_COMPILE.to_vec();
        args.extend(["riscv64gcv", "--emit", stage]);
        assert_ends_quietly(&args, tilec_into_a_closed_pipe(&args));
    }
}

/// Two kernels writing `3 * i`; `printing` also prints from the kernel (`tl.device_print`,
/// which only the interpreter runs so far).
const TRIPLING_KERNELS: &str = r#"
import triton
import triton.language as tl

@triton.jit
def tripling(out_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, offsets * 3)

@triton.jit
def printing(out_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.device_print("offsets", offsets)
    tl.store(out_ptr + offsets, offsets * 3)
"#;

#[test]
fn run_into_a_closed_pipe_writes_its_out_files_and_ends_quietly() {
    let dir = TempDir::new("closed-pipe");
    let file = dir.write("tripling.py", TRIPLING_KERNELS);
    let cases = [("interp", "printing"), ("interp", "tripling"), ("riscv64gc", "tripling"), ("riscv64gcv", "tripling")];
    for (target, kernel) in cases {
        let out = dir.join(&format!("{target}-{kernel}")).display().to_string();
        let args = ["run", &file, "-k", kernel, "--grid", "2", "--target", target, "--out", &out];
        let args = [&args[..], &["out_ptr=zeros:i32:16", "BLOCK=16"]].concat();
        assert_ends_quietly(&args, tilec_into_a_closed_pipe(&args));
        let saved = HostArray::read_npy(&dir.join(&format!("{target}-{kernel}")).join("out_ptr.npy"))
            .unwrap_or_else(|e| panic!("{target} {kernel}: the --out file is missing: {e}"));
        let values: Vec<Number> = (0..saved.len()).map(|i| saved.get(i)).collect();
        let want: Vec<Number> = (0..16).map(|i| Number::Int(3 * i)).collect();
        assert_eq!(values, want, "{target} {kernel}");
    }
}

/// `--time` reports every stage that ran by name on standard error (durations are not
/// checked: they are measurements), and leaves standard output as it was. The kernel cache is
/// off, so that the code generator and the linker run every time.
#[test]
fn time_reports_every_stage() {
    const ALWAYS_COMPILE: &str = tilec::ALWAYS_COMPILE_ENV;
    let dir = TempDir::new("time");
    let so = dir.join("add.so").display().to_string();
    let args: Vec<&str> = VECTOR_ADD_COMPILE.iter().copied().chain(["riscv64gc", "-o", &so, "--time"]).collect();
    let compile = tilec(&args, &[(ALWAYS_COMPILE, "1")]);
    compile.assert_success();
    assert!(compile.stdout.is_empty(), "{}", compile.stdout);
    for stage in ["Execution time report", "parse", "front", "opt", "vector", "codegen", "link", "Total"] {
        assert!(compile.stderr.contains(stage), "no `{stage}` in:\n{}", compile.stderr);
    }
    let args = [
        "run",
        "fixtures/vector_add.py",
        "-k",
        "add_kernel",
        "--grid",
        "2",
        "x_ptr=arange:fp32:2000",
        "y_ptr=arange:fp32:2000",
        "output_ptr=zeros:fp32:2000",
        "n_elements=2000",
        "BLOCK_SIZE=1024",
        "--time",
    ];
    for target in ["interp", "riscv64gc"] {
        let mut with_target = args.to_vec();
        with_target.extend(["--target", target]);
        let run = tilec(&with_target, &[(ALWAYS_COMPILE, "1")]);
        run.assert_success();
        assert!(run.stdout.contains("output_ptr = "), "{}", run.stdout);
        let stages: &[&str] =
            if target == "interp" { &["parse", "front", "opt", "run"] } else { &["parse", "codegen", "link", "run"] };
        for stage in stages {
            assert!(run.stderr.contains(&format!("  {stage}\n")), "{target}: no `{stage}` in:\n{}", run.stderr);
        }
    }
}

/// `--target host` runs the kernel in the tilec process and needs no toolchain; a kernel that
/// runs past an array ends the process with a report naming the array, the element and the
/// program; a shared object for another machine is an error that says so.
#[test]
fn host_runs_need_no_toolchain_and_report_faults() {
    let dir = TempDir::new("host-run");
    let empty_cache = dir.join("empty-cache");
    std::fs::create_dir_all(&empty_cache).unwrap();
    let cache = empty_cache.display().to_string();
    let outcome =
        run_probe(&dir, &["--target", "host", "out_ptr=zeros:i32:64", "n=64", "BLOCK=32"], &[("TILEC_CACHE", &cache)]);
    outcome.assert_success();
    assert!(outcome.stdout.contains("grid (2, 1, 1) on host (native, 1 thread)"), "{}", outcome.stdout);
    assert!(outcome.stdout.contains("out_ptr = i32[64] [0, 1, 2, 3, 4, 5, 6, 7, ...]"), "{}", outcome.stdout);

    let outcome =
        run_probe(&dir, &["--target", "host", "--threads", "2", "out_ptr=zeros:i32:40", "n=64", "BLOCK=32"], &[]);
    assert!(!outcome.success && outcome.code.is_none(), "ends by a signal: {}", outcome.stderr);
    for needle in [
        "tilec: kernel `probe` faulted with signal 11 (SIGSEGV) in program (1, 0, 0)",
        "is element 40 of `out_ptr` (40 elements of i32), past its end",
    ] {
        assert!(outcome.stderr.contains(needle), "{needle}: {}", outcome.stderr);
    }

    let riscv = dir.join("probe.so").display().to_string();
    let file = probe_file(&dir);
    tilec(&["compile", &file, "-k", "probe", "-s", "*i32:16, i32", "-c", "BLOCK=32", "-o", &riscv], &[])
        .assert_success();
    let outcome =
        run_probe(&dir, &["--target", "host", "--library", &riscv, "out_ptr=zeros:i32:64", "n=64", "BLOCK=32"], &[]);
    outcome.assert_fails_with(&["machine code for riscv64", "--target host"]);
}

/// A host run that outlives `--timeout` cannot be stopped inside the process: the process
/// ends with a report (E1010) instead of hanging.
#[test]
fn host_run_past_its_timeout_ends_with_a_report() {
    let dir = TempDir::new("host-timeout");
    let file = dir.write(
        "spin.py",
        "import triton\nimport triton.language as tl\n\n@triton.jit\ndef spin(out_ptr, n):\n    i = 0\n    \
         while i < n:\n        i = i % n\n    tl.store(out_ptr, i)\n",
    );
    let started = std::time::Instant::now();
    let args =
        ["run", &file, "-k", "spin", "--grid", "1", "--target", "host", "--timeout", "1", "out_ptr=zeros:i32:4", "n=5"];
    tilec(&args, &[]).assert_fails_with(&["E1010", "kernel `spin` did not finish within 1 s", "--timeout"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "the watchdog ended it");
}

/// `tilec compile -o` and `tilec run` keep shared objects in the kernel cache of
/// `$TILEC_CACHE`: one entry per kernel and target, reused (not rewritten) by the next
/// compile, shared by compile and run; a corrupt entry is compiled again and replaced;
/// `TILEC_ALWAYS_COMPILE=1` leaves the cache alone.
#[test]
fn compile_and_run_share_the_kernel_cache() {
    let dir = TempDir::new("cli-kernel-cache");
    let file = probe_file(&dir);
    let cache = dir.join("cache").display().to_string();
    let kernels = dir.join("cache").join("kernels");
    let entries = || -> Vec<std::path::PathBuf> {
        let mut found: Vec<_> = std::fs::read_dir(&kernels)
            .map(|d| d.map(|e| e.unwrap().path().join("entry")).collect())
            .unwrap_or_default();
        found.sort();
        found
    };
    let on = [("TILEC_CACHE", cache.as_str()), ("TILEC_ALWAYS_COMPILE", "0")];
    let so = dir.join("probe.so").display().to_string();
    let compile = |envs: &[(&str, &str)]| {
        tilec(
            &[
                "compile",
                &file,
                "-k",
                "probe",
                "-s",
                "*i32:16, i32:16",
                "-c",
                "BLOCK=32",
                "--target",
                "host",
                "-o",
                &so,
            ],
            envs,
        )
        .assert_success();
        std::fs::read(&so).unwrap()
    };
    let first = compile(&on);
    assert_eq!(entries().len(), 1);
    let entry = entries().remove(0);
    let written = std::fs::metadata(&entry).unwrap().modified().unwrap();
    assert_eq!(compile(&on), first, "a cache hit gives the same shared object");
    assert_eq!(std::fs::metadata(&entry).unwrap().modified().unwrap(), written, "and does not store it again");

    // `tilec run` infers the same specialization (`*i32:16, i32:16`), so it finds the entry.
    let run = run_probe(&dir, &["--target", "host", "out_ptr=zeros:i32:64", "n=64", "BLOCK=32"], &on);
    run.assert_success();
    assert_eq!(entries().len(), 1, "{}", run.stdout);

    let mut bytes = std::fs::read(&entry).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&entry, &bytes).unwrap();
    assert_eq!(compile(&on), first, "a corrupt entry is compiled again");
    assert_ne!(std::fs::read(&entry).unwrap(), bytes, "and replaced");

    std::fs::remove_dir_all(&kernels).unwrap();
    compile(&[("TILEC_CACHE", cache.as_str())]);
    assert!(entries().is_empty(), "TILEC_ALWAYS_COMPILE=1 (the harness's default) leaves the cache alone");
}

#[test]
fn rvv_features_need_riscv64gcv_and_known_names() {
    let args = ["-s", "*fp32:16, *fp32:16, *fp32:16, i32", "-c", "BLOCK_SIZE=64", "--emit", "asm"];
    let compile = |target: &str, features: &str| {
        let mut all = vec!["compile", "fixtures/vector_add.py", "-k", "add_kernel", "--target", target];
        all.extend(["--features", features]);
        all.extend(args);
        tilec(&all, &[])
    };
    compile("riscv64gc", "+zvfh").assert_fails_with(&["E1001", "--features +zvfh needs --target riscv64gcv"]);
    compile("riscv64gcv", "+zvfbfmin").assert_fails_with(&["unknown target feature `+zvfbfmin`", "+zvfh, +zvfhmin"]);
    compile("riscv64gcv", "+zvfhmin").assert_success();
}
