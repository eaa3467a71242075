//! `tilec aot` and `tilec aot-link`: C programs built against their output with the riscv64
//! cross gcc and run under qemu (natively on a riscv64 host), on riscv64gc and riscv64gcv;
//! and their bad uses.

mod support;

use std::path::Path;
use std::process::Command;

use support::{tilec, HostArray, TempDir};
use tilec::launch::Machine;
use tilec_toolchain::{Layout, Toolchain};

/// A kernel over a 3-d grid (rows along y and z) with a strided input and a float scalar;
/// its results are small integers, exact in fp32 whatever the order of operations.
const AXPY_KERNEL: &str = r#"
import triton
import triton.language as tl


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, n, stride, alpha, BLOCK: tl.constexpr):
    row = tl.program_id(1) + tl.program_id(2) * tl.num_programs(1)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + (row * n + offs) * stride, mask=mask)
    y = tl.load(y_ptr + row * n + offs, mask=mask)
    tl.store(out_ptr + row * n + offs, x * alpha + y, mask=mask)
"#;

/// Calls `axpy_default` three times and checks every output element against a C loop, then
/// `axpy` twice on an explicit grid; `--wrap` counts the calls of each specialization, so the
/// test also checks that the aligned, `n % 16 == 0`, `stride == 1` calls took `axpy_d16` and
/// the two others `axpy_any`.
const AXPY_PROGRAM: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include "axpy.h"

static int calls_d16, calls_any;
int __real_axpy_d16(uint32_t, uint32_t, uint32_t, int, float *, float *, float *, int32_t, float);
int __wrap_axpy_d16(uint32_t gx, uint32_t gy, uint32_t gz, int t, float *x, float *y, float *o, int32_t n, float a) {
    calls_d16++;
    return __real_axpy_d16(gx, gy, gz, t, x, y, o, n, a);
}
int __real_axpy_any(uint32_t, uint32_t, uint32_t, int, float *, float *, float *, int32_t, int32_t, float);
int __wrap_axpy_any(uint32_t gx, uint32_t gy, uint32_t gz, int t, float *x, float *y, float *o, int32_t n,
                    int32_t s, float a) {
    calls_any++;
    return __real_axpy_any(gx, gy, gz, t, x, y, o, n, s, a);
}

/* Runs axpy over 6 rows of n (grid cdiv(n, 32) x 2 x 3) on `threads` threads, x shifted by
 * `offset` elements from a 16-byte boundary. */
static int check(int n, int stride, int offset, int threads) {
    int rows = 6;
    float *xb = aligned_alloc(16, sizeof(float) * (rows * n * stride + 16));
    float *y = aligned_alloc(16, sizeof(float) * (rows * n + 16));
    float *out = aligned_alloc(16, sizeof(float) * (rows * n + 16));
    float *x = xb + offset;
    for (int i = 0; i < rows * n * stride; i++) x[i] = (float)(i % 97) - 40.0f;
    for (int i = 0; i < rows * n; i++) {
        y[i] = (float)(i % 13);
        out[i] = -1.0f;
    }
    int r = axpy_default(threads, x, y, out, n, stride, 3.0f);
    if (r != 0) {
        printf("axpy_default returned %d\n", r);
        return 1;
    }
    for (int i = 0; i < rows * n; i++) {
        float want = x[i * stride] * 3.0f + y[i];
        if (out[i] != want) {
            printf("n=%d stride=%d offset=%d: out[%d] = %g, want %g\n", n, stride, offset, i, out[i], want);
            return 1;
        }
    }
    free(xb);
    free(y);
    free(out);
    return 0;
}

int main(void) {
    if (check(64, 1, 0, 3) || check(50, 2, 0, 4) || check(64, 1, 1, 1)) return 1;
    /* An explicit grid on the specialization itself: rows 0..1 only (grid z = 1). */
    static float x[64] __attribute__((aligned(16))), y[64] __attribute__((aligned(16))),
        out[64] __attribute__((aligned(16)));
    for (int i = 0; i < 64; i++) { x[i] = (float)i; y[i] = 1.0f; out[i] = 0.0f; }
    if (axpy(2, 1, 1, 2, x, y, out, 32, 1, 2.0f) != 0) return 1;
    for (int i = 0; i < 32; i++) if (out[i] != 2.0f * i + 1.0f) { printf("explicit grid: out[%d] = %g\n", i, out[i]); return 1; }
    if (axpy(1, 1, 1, 0, x, y, out, 32, 1, 2.0f) != -1) { printf("num_threads 0 was accepted\n"); return 1; }
    printf("ok d16=%d any=%d\n", calls_d16, calls_any);
    return 0;
}
"#;

/// The set-up's toolchain, or a failure naming the command that provides it.
fn toolchain() -> Toolchain {
    Layout::from_env()
        .and_then(|layout| Toolchain::locate(&layout))
        .unwrap_or_else(|e| panic!("{e} (the AOT tests need the toolchain: run `cargo xtask setup`)"))
}

/// Builds `out` from `args` with the C compiler for `target`: the set-up's riscv64 cross gcc,
/// or the machine's own `cc` for `host`.
fn build_c(target: &str, dir: &Path, args: &[&str], out: &Path) {
    let compiler = if target == "host" { "cc" } else { tilec_toolchain::runner_compiler() };
    let output = Command::new(compiler)
        .current_dir(dir)
        .args(["-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-I."])
        .args(args)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler} ({e}): run `cargo xtask setup`"));
    assert!(output.status.success(), "{compiler} {args:?} failed:\n{}", String::from_utf8_lossy(&output.stderr));
}

/// Runs a program built for `target` in `dir` (a riscv64 one under qemu unless the host is
/// riscv64); returns its standard output after checking that it succeeded.
fn run_program(toolchain: &Toolchain, target: &str, dir: &Path, program: &Path) -> String {
    let mut command = match &toolchain.qemu {
        Some(qemu) if target != "host" => {
            let machine = if target == "riscv64gcv" {
                Machine::Vector { vlen: 256, extensions: tilec::VectorExtensions::default() }
            } else {
                Machine::Scalar
            };
            let mut c = Command::new(qemu);
            c.args(["-cpu", &machine.qemu_cpu(), "-L"]).arg(&toolchain.sysroot).arg(program);
            c
        }
        _ => Command::new(program),
    };
    let output = command.current_dir(dir).output().expect("the program runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{} failed ({}):\n{stdout}{}",
        program.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Two specializations of one kernel (`:16` pointers and `n`, `stride` equal to 1; and none)
/// behind an `aot-link` dispatcher: the C program's results match a C loop exactly and both
/// specializations are taken, on both RISC-V targets and on the host (its own C compiler).
#[test]
fn dispatcher_picks_the_specialization_the_arguments_meet() {
    let toolchain = toolchain();
    for target in ["riscv64gc", "riscv64gcv", "host"] {
        let dir = TempDir::new(&format!("aot-axpy-{target}"));
        let kernel = dir.write("axpy.py", AXPY_KERNEL);
        let out = dir.join("out");
        let out_text = out.display().to_string();
        for (name, signature) in [
            ("axpy_d16", "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:1, fp32"),
            ("axpy_any", "*fp32, *fp32, *fp32, i32, i32, fp32"),
        ] {
            let args = [
                "aot",
                &kernel,
                "-k",
                "axpy_kernel",
                "-s",
                signature,
                "-c",
                "BLOCK=32",
                "--target",
                target,
                "--grid",
                "cdiv(n, BLOCK), 2, 3",
                "-n",
                name,
                "-o",
                &out_text,
            ];
            tilec(&args, &[]).assert_success();
        }
        let header = std::fs::read_to_string(out.join("axpy_d16.h")).unwrap();
        assert!(
            header.contains("int axpy_d16(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, int num_threads, float *x_ptr, float *y_ptr, float *out_ptr, int32_t n, float alpha);"),
            "{header}"
        );
        let d16 = out.join("axpy_d16.h").display().to_string();
        let any = out.join("axpy_any.h").display().to_string();
        tilec(&["aot-link", &any, &d16, "-n", "axpy", "-o", &out_text], &[]).assert_success();
        std::fs::write(out.join("main.c"), AXPY_PROGRAM).unwrap();
        let program = out.join("main");
        build_c(
            target,
            &out,
            &[
                "main.c",
                "axpy.c",
                "axpy_d16.c",
                "axpy_d16.o",
                "axpy_any.c",
                "axpy_any.o",
                "-Wl,--wrap=axpy_d16,--wrap=axpy_any",
                "-lpthread",
                "-lm",
            ],
            &program,
        );
        let stdout = run_program(&toolchain, target, &out, &program);
        assert_eq!(stdout.trim(), "ok d16=3 any=2", "{target}");
    }
}

/// A C program writes the inputs it gives a SLEEF-calling kernel (libdevice's tanh, whose
/// riscv64gcv code calls SLEEF) and its outputs; `tilec run` of the same specialization on
/// the same inputs must give the same bits, on both targets.
#[test]
fn aot_kernel_matches_tilec_run_bit_for_bit() {
    const PROGRAM: &str = r#"
#include <stdio.h>
#include "tanh_kernel.h"
int main(void) {
    static float x[1500], y[1500];
    for (int i = 0; i < 1500; i++) x[i] = (float)(i % 400 - 200) / 64.0f;
    int r = tanh_kernel_default(3, x, y, 1500);
    if (r != 0) { printf("tanh_kernel_default returned %d\n", r); return 1; }
    FILE *f = fopen("x.bin", "wb");
    if (!f || fwrite(x, sizeof x, 1, f) != 1 || fclose(f) != 0) return 1;
    f = fopen("y.bin", "wb");
    if (!f || fwrite(y, sizeof y, 1, f) != 1 || fclose(f) != 0) return 1;
    printf("ok\n");
    return 0;
}
"#;
    let toolchain = toolchain();
    for target in ["riscv64gc", "riscv64gcv"] {
        let dir = TempDir::new(&format!("aot-tanh-{target}"));
        let out = dir.join("out");
        let out_text = out.display().to_string();
        let aot = tilec(
            &[
                "aot",
                "fixtures/math/tanh.py",
                "-k",
                "math_kernel",
                "-s",
                "*fp32:16, *fp32:16, i32",
                "-c",
                "BLOCK=512",
                "--target",
                target,
                "--grid",
                "cdiv(n, BLOCK)",
                "-n",
                "tanh_kernel",
                "-o",
                &out_text,
            ],
            &[],
        );
        aot.assert_success();
        let mut link = vec!["main.c", "tanh_kernel.c", "tanh_kernel.o"];
        let sleef_dir = Layout::from_env().unwrap().sleef_lib_dir();
        let sleef_flag = format!("-L{}", sleef_dir.display());
        if target == "riscv64gcv" {
            assert!(aot.stdout.contains("calls SLEEF"), "{}", aot.stdout);
            let header = std::fs::read_to_string(out.join("tanh_kernel.h")).unwrap();
            assert!(header.contains("-lsleef") && header.contains("tilec-aot: sleef yes"), "{header}");
            link.extend([sleef_flag.as_str(), "-lsleef"]);
        }
        link.extend(["-lpthread", "-lm"]);
        std::fs::write(out.join("main.c"), PROGRAM).unwrap();
        let program = out.join("main");
        build_c(target, &out, &link, &program);
        assert_eq!(run_program(&toolchain, target, &out, &program).trim(), "ok");

        let bytes = |name: &str| std::fs::read(out.join(name)).unwrap();
        let x = HostArray { dtype: tilec::ir::ScalarType::F32, shape: vec![1500], data: bytes("x.bin") };
        x.write_npy(&out.join("x.npy")).unwrap();
        let x_arg = format!("x_ptr=@{}", out.join("x.npy").display());
        let reference = dir.join("reference");
        let reference_text = reference.display().to_string();
        tilec(
            &[
                "run",
                "fixtures/math/tanh.py",
                "-k",
                "math_kernel",
                "--grid",
                "3",
                "--target",
                target,
                &x_arg,
                "y_ptr=zeros:fp32:1500",
                "n=1500",
                "BLOCK=512",
                "--out",
                &reference_text,
            ],
            &[],
        )
        .assert_success();
        let want = HostArray::read_npy(&reference.join("y_ptr.npy")).unwrap();
        assert!(want.data == bytes("y.bin"), "{target}: the AOT program's tanh differs from `tilec run`'s");
    }
}

/// Bad uses: a diagnostic, a non-zero exit, no panic.
#[test]
fn bad_aot_uses_are_reported() {
    let dir = TempDir::new("aot-errors");
    let kernel = dir.write("axpy.py", AXPY_KERNEL);
    let out = dir.join("out").display().to_string();
    let aot = |signature: Option<&str>, grid: &str, name: &str| {
        let mut args = vec!["aot", kernel.as_str(), "-k", "axpy_kernel", "-c", "BLOCK=32", "-n", name, "-o", &out];
        if let Some(s) = signature {
            args.extend(["-s", s]);
        }
        args.extend(["--grid", grid]);
        tilec(&args, &[])
    };
    let signature = Some("*fp32, *fp32, *fp32, i32, i32, fp32");
    aot(signature, "cdiv(n BLOCK)", "a").assert_fails_with(&["E1030", "expected `,`", "--grid"]);
    aot(signature, "M / 16, 1", "a").assert_fails_with(&["E1030", "unknown parameter `M`", "n, stride"]);
    aot(signature, "x_ptr, 1", "a").assert_fails_with(&["E1030", "`x_ptr` is a pointer"]);
    aot(signature, "alpha, 1", "a").assert_fails_with(&["E1030", "`alpha` is not an integer"]);
    aot(signature, "1,2,3,4", "a").assert_fails_with(&["E1030", "at most three"]);
    aot(signature, "n", "1bad").assert_fails_with(&["E1001", "not a C identifier"]);
    aot(None, "n", "a").assert_fails_with(&["--signature"]);
    aot(Some("*fp32, *fp32"), "n", "a").assert_fails_with(&["still needs a value"]);
    assert!(!Path::new(&out).join("a.h").exists(), "a failed aot wrote files");

    aot(signature, "n", "a").assert_success();
    let gelu = dir.join("gelu").display().to_string();
    tilec(
        &[
            "aot",
            "fixtures/gelu.py",
            "-k",
            "gelu_kernel",
            "-s",
            "*fp32, *fp32, i32",
            "-c",
            "BLOCK=512",
            "-c",
            "APPROXIMATE=none",
            "-n",
            "g",
            "-o",
            &gelu,
        ],
        &[],
    )
    .assert_success();
    let a = format!("{out}/a.h");
    let g = format!("{gelu}/g.h");
    tilec(&["aot-link", &a, &g, "-n", "both", "-o", &out], &[])
        .assert_fails_with(&["E1031", "kernel `gelu_kernel`, not `axpy_kernel`"]);
    tilec(&["aot-link", &a, &a, "-n", "twice", "-o", &out], &[]).assert_fails_with(&["E1031", "both define `a`"]);
    tilec(&["aot-link", &a, "-n", "a", "-o", &out], &[]).assert_fails_with(&["E1031", "named `a` already"]);
    let not_aot = dir.write("plain.h", "int f(void);\n");
    tilec(&["aot-link", &not_aot, "-n", "d", "-o", &out], &[]).assert_fails_with(&["E1031", "not a header written by"]);
    tilec(&["aot-link", "-n", "d", "-o", &out], &[]).assert_fails_with(&["HEADER.h"]);
}
