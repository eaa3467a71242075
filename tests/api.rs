//! The Rust API of crate `tilec` (`Kernel`, `CompiledKernel::launch`, `Arg`): the softmax
//! example, the same results on every target, the element types of slices, and its errors.
//! The RISC-V targets run under qemu and need `cargo xtask setup`; the host target runs in
//! this process (a launch that faults runs in a child process: it ends the process).

mod support;

use support::TempDir;
use tilec::diagnostics::codes::tilec as codes;
use tilec::{Kernel, Target};

/// `crates/tilec/examples/softmax.rs`, run here as it runs standalone.
#[allow(dead_code)]
#[path = "../crates/tilec/examples/softmax.rs"]
mod softmax_example;

const TARGETS: [Target; 4] = [Target::Riscv64gc, Target::Riscv64gcv, Target::Host, Target::Interp];

#[test]
fn the_softmax_example_matches_the_rust_loop_on_every_target() {
    for target in TARGETS {
        let worst = softmax_example::run(target).unwrap_or_else(|e| panic!("{}: {e}", target.name()));
        assert!(worst <= 1e-6, "{}: {worst}", target.name());
    }
}

const VECTOR_ADD: &str = "fixtures/vector_add.py";

fn vector_add() -> Kernel {
    Kernel::from_file(support::workspace_root().join(VECTOR_ADD), "add_kernel")
        .unwrap()
        .signature("*fp32:16, *fp32:16, *fp32:16, i32")
        .unwrap()
        .constant("BLOCK_SIZE", 1024)
}

/// One kernel compiled once per target and launched twice: identical outputs, bit for bit
/// (an fp32 add rounds the same everywhere), and equal to the Rust sum.
#[test]
fn compiled_once_launched_many_with_the_same_results_on_every_target() {
    let x: Vec<f32> = (0..3000).map(|i| (i as f32).sin()).collect();
    let y: Vec<f32> = (0..3000).map(|i| (i as f32 * 0.5).cos()).collect();
    let want: Vec<u32> = x.iter().zip(&y).map(|(a, b)| (a + b).to_bits()).collect();
    for target in TARGETS {
        let kernel = vector_add().build(&target).unwrap();
        for n in [3000, 2000] {
            let mut out = vec![-1f32; 3000];
            kernel.launch([3, 1, 1], &mut [(&x).into(), (&y).into(), (&mut out).into(), (n as i32).into()]).unwrap();
            let got: Vec<u32> = out.iter().map(|v| v.to_bits()).collect();
            assert_eq!(got[..n], want[..n], "{} n={n}", target.name());
            assert!(out[n..].iter().all(|&v| v == -1.0), "{} n={n}: wrote past n", target.name());
        }
    }
}

/// Slices of half, bfloat16, integer and double elements, a boolean scalar, a u64 scalar
/// and an entry specialized to 1.
#[test]
fn slices_of_every_element_kind_and_scalars_of_every_kind() {
    let source = "
import triton
import triton.language as tl

@triton.jit
def mix(h_ptr, b_ptr, i_ptr, d_ptr, out_ptr, flag, big, step, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK) * step
    mask = offs < n
    h = tl.load(h_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    i = tl.load(i_ptr + offs, mask=mask)
    d = tl.load(d_ptr + offs, mask=mask)
    extra = tl.where(flag, big, 0)
    tl.store(out_ptr + offs, (h + b).to(tl.float64) + i.to(tl.float64) + d + extra.to(tl.float64), mask=mask)
    tl.store(h_ptr + offs, (h * 2).to(tl.float16), mask=mask)
    tl.store(b_ptr + offs, (b * 4).to(tl.bfloat16), mask=mask)
";
    let n = 64usize;
    let h0: Vec<half::f16> = (0..n).map(|k| half::f16::from_f32(k as f32 * 0.5)).collect();
    let b0: Vec<half::bf16> = (0..n).map(|k| half::bf16::from_f32(k as f32 * 0.25)).collect();
    let ints: Vec<i16> = (0..n as i16).map(|k| k - 30).collect();
    let doubles: Vec<f64> = (0..n).map(|k| k as f64 / 3.0).collect();
    let want: Vec<f64> = (0..n)
        .map(|k| f64::from(h0[k].to_f32() + b0[k].to_f32()) + f64::from(ints[k]) + doubles[k] + 5_000_000_000f64)
        .collect();
    let kernel = Kernel::from_source("mix.py", source, "mix")
        .signature("*fp16:16, *bf16:16, *i16:16, *fp64:16, *fp64:16, i1, i64, 1, i32")
        .unwrap()
        .constant("BLOCK", 64);
    for target in TARGETS {
        let compiled = kernel.build(&target).unwrap();
        let (mut h, mut b, mut out) = (h0.clone(), b0.clone(), vec![0f64; n]);
        compiled
            .launch(
                [1, 1, 1],
                &mut [
                    (&mut h).into(),
                    (&mut b).into(),
                    (&ints).into(),
                    (&doubles).into(),
                    (&mut out).into(),
                    true.into(),
                    5_000_000_000i64.into(),
                    1.into(),
                    (n as i32).into(),
                ],
            )
            .unwrap_or_else(|e| panic!("{}: {e}", target.name()));
        assert_eq!(out, want, "{}", target.name());
        assert!(h.iter().zip(&h0).all(|(g, w)| g.to_f32() == w.to_f32() * 2.0), "{}", target.name());
        assert!(b.iter().zip(&b0).all(|(g, w)| g.to_f32() == w.to_f32() * 4.0), "{}", target.name());
    }
}

#[test]
fn wrong_arguments_are_errors_naming_the_argument() {
    let kernel = vector_add().build(&Target::Interp).unwrap();
    let x = vec![0f32; 16];
    let mut out = vec![0f32; 16];
    let ints = vec![0i32; 16];
    let error = |args: &mut [tilec::Arg]| kernel.launch([1, 1, 1], args).unwrap_err();

    let e = error(&mut [(&x).into(), (&x).into(), (&mut out).into()]);
    assert_eq!(e.code(), Some(codes::MISSING_ARGUMENT), "{e}");
    assert!(e.to_string().contains("missing argument 4 of kernel `add_kernel`"), "{e}");

    let e = error(&mut [(&x).into(), (&x).into(), (&mut out).into(), 16.into(), 1.into()]);
    assert_eq!(e.code(), Some(codes::EXTRA_ARGUMENT), "{e}");

    let e = error(&mut [(&x).into(), (&ints).into(), (&mut out).into(), 16.into()]);
    assert_eq!(e.code(), Some(codes::LAUNCH_ARGUMENT), "{e}");
    assert!(e.to_string().contains("argument 1 of `add_kernel`: `y_ptr` points to fp32; got a slice of 16 i32"), "{e}");

    let e = error(&mut [(&x).into(), (&x).into(), (&mut out).into(), 16.5f32.into()]);
    assert!(e.to_string().contains("argument 3 of `add_kernel`: `n_elements` is a i32 scalar; got fp32 16.5"), "{e}");

    let e = error(&mut [(&x).into(), 3.into(), (&mut out).into(), 16.into()]);
    assert!(e.to_string().contains("`y_ptr` is a pointer to fp32; got i32 3"), "{e}");

    let e = error(&mut [(&x).into(), (&x).into(), (&mut out).into(), 5_000_000_000i64.into()]);
    assert!(e.to_string().contains("5000000000 does not fit in i32"), "{e}");

    let e = kernel.launch([0, 1, 1], &mut [(&x).into(), (&x).into(), (&mut out).into(), 16.into()]).unwrap_err();
    assert_eq!(e.code(), Some(codes::LAUNCH_ARGUMENT), "{e}");

    // A compile error renders with the source line it points to.
    let e = Kernel::from_source("bad.py", "import triton\n@triton.jit\ndef k(x):\n    y = z\n", "k")
        .signature("i32")
        .unwrap()
        .build(&Target::Riscv64gc)
        .unwrap_err();
    assert!(e.to_string().contains("bad.py:4:"), "{e}");
    assert!(Kernel::from_file("no/such/file.py", "k").unwrap_err().code() == Some(codes::IO));
    assert!(vector_add().signature("*fp99").is_err());
}

/// A slice shorter than the kernel reads is caught by the guard pages and reported with the
/// array and the element (issue 19's report, through the library); with bounds checks the
/// report points at the access in the source; the slices are left as they were.
#[test]
fn a_slice_too_short_is_reported_with_the_array_and_element() {
    let x = vec![1f32; 100];
    let y = vec![2f32; 4000];
    for target in [Target::Riscv64gc, Target::Riscv64gcv] {
        let mut out = vec![0f32; 4000];
        let kernel = vector_add().build(&target).unwrap();
        let e = kernel.launch([4, 1, 1], &mut [(&x).into(), (&y).into(), (&mut out).into(), 4000.into()]).unwrap_err();
        assert_eq!(e.code(), Some(codes::KERNEL_FAULT), "{e}");
        assert!(e.to_string().contains("is element 100 of `x_ptr` (100 elements of fp32), past its end"), "{e}");
        assert!(out.iter().all(|&v| v == 0.0));

        let checked = vector_add().check_bounds(true).build(&target).unwrap();
        let e = checked.launch([4, 1, 1], &mut [(&x).into(), (&y).into(), (&mut out).into(), 4000.into()]).unwrap_err();
        assert_eq!(e.code(), Some(codes::BOUNDS_CHECK), "{e}");
        let text = e.to_string();
        assert!(text.contains("out-of-bounds read in kernel `add_kernel`"), "{text}");
        assert!(text.contains("vector_add.py:"), "{text}");
    }
    let e = vector_add()
        .build(&Target::Interp)
        .unwrap()
        .launch([4, 1, 1], &mut [(&x).into(), (&y).into(), (&mut vec![0f32; 4000]).into(), 4000.into()])
        .unwrap_err();
    assert!(e.to_string().contains("x_ptr") || e.to_string().contains("out of bounds"), "{e}");
}

/// On the host a kernel that reads past a slice hits the guard page after its copy: the
/// process ends with a report naming the array, the element and the program (run in a child
/// process); a bounds-checked build reports the failed check the same way.
#[test]
fn a_slice_too_short_on_the_host_ends_the_process_with_a_report() {
    const CHILD: &str = "TILEC_API_TEST_HOST_FAULT";
    if let Some(mode) = std::env::var_os(CHILD) {
        let x = vec![1f32; 100];
        let y = vec![2f32; 4000];
        let mut out = vec![0f32; 4000];
        let kernel = vector_add().check_bounds(mode == "checked").build(&Target::Host).unwrap();
        let e = kernel.launch([4, 1, 1], &mut [(&x).into(), (&y).into(), (&mut out).into(), 4000.into()]);
        panic!("the launch returned: {e:?}");
    }
    for (mode, signal, report) in
        [("unchecked", 11, "tilec: the access at 0x"), ("checked", 4, "failed: out-of-bounds read at ")]
    {
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "a_slice_too_short_on_the_host_ends_the_process_with_a_report", "--nocapture"])
            .env(CHILD, mode)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(output.status.signal(), Some(signal), "{mode}: {stderr}");
        assert!(stderr.contains("tilec: kernel `add_kernel` faulted with signal"), "{mode}: {stderr}");
        assert!(stderr.contains("in program (0, 0, 0)"), "{mode}: {stderr}");
        assert!(stderr.contains(report), "{mode}: {stderr}");
        assert!(stderr.contains("is element 100 of `x_ptr` (100 elements of fp32), past its end"), "{mode}: {stderr}");
        assert!(!stderr.contains("the launch returned"), "{mode}: {stderr}");
    }
}

/// With no toolchain in the cache, a launch on a RISC-V target fails with an error that
/// names the set-up command (in a child process, so the environment of the other tests is
/// left alone).
#[test]
fn a_missing_toolchain_names_the_set_up_command() {
    const CHILD: &str = "TILEC_API_TEST_EMPTY_CACHE";
    if std::env::var_os(CHILD).is_some() {
        let kernel = vector_add().build(&Target::Riscv64gc).expect("compiling needs no toolchain");
        assert!(!kernel.shared_object().is_empty());
        let x = vec![0f32; 16];
        let mut out = vec![0f32; 16];
        let e = kernel.launch([1, 1, 1], &mut [(&x).into(), (&x).into(), (&mut out).into(), 16.into()]).unwrap_err();
        assert_eq!(e.code(), Some(codes::TOOLCHAIN_MISSING), "{e}");
        assert!(e.to_string().contains("cargo xtask setup"), "{e}");
        return;
    }
    let empty = TempDir::new("api-empty-cache");
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "a_missing_toolchain_names_the_set_up_command", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("TILEC_CACHE", &empty.path)
        .output()
        .unwrap();
    let report = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{report}");
    assert!(report.contains("1 passed"), "{report}");
}

/// The second build of the same kernel comes from the cache (the code generator does not
/// run: the output has no Vector IR) and gives the same shared object; a change to a helper
/// function, to the specialization or to the target compiles again; a corrupt entry is
/// compiled again, not trusted.
#[test]
fn the_kernel_cache_is_reused_and_invalidated() {
    let dir = TempDir::new("api-kernel-cache");
    let cache = tilec::KernelCache::in_dir(dir.path.join("kernels"));
    let source = |factor: &str| {
        format!(
            "import triton\nimport triton.language as tl\n\n@triton.jit\ndef scale(x):\n    return x * {factor}\n\n\
             @triton.jit\ndef k(x_ptr, BLOCK: tl.constexpr):\n    offs = tl.arange(0, BLOCK)\n    \
             tl.store(x_ptr + offs, scale(tl.load(x_ptr + offs)))\n"
        )
    };
    let kernel = |factor: &str| {
        Kernel::from_source("k.py", &source(factor), "k")
            .signature("*fp32:16")
            .unwrap()
            .constant("BLOCK", 16)
            .cache(Some(cache.clone()))
    };
    let first = kernel("2").build(&Target::Riscv64gc).unwrap();
    assert!(!first.from_cache());
    assert!(!first.output().vector.is_empty());
    let second = kernel("2").build(&Target::Riscv64gc).unwrap();
    assert!(second.from_cache());
    assert!(second.output().vector.is_empty(), "a cache hit does not lower or generate code");
    assert_eq!(first.shared_object(), second.shared_object());
    let mut x = vec![1.5f32; 16];
    second.launch([1, 1, 1], &mut [(&mut x).into()]).unwrap();
    assert_eq!(x, vec![3.0; 16]);

    assert!(!kernel("3").build(&Target::Riscv64gc).unwrap().from_cache(), "the helper changed");
    assert!(!kernel("2").constant("BLOCK", 32).build(&Target::Riscv64gc).unwrap().from_cache());
    assert!(!kernel("2").build(&Target::Riscv64gcv).unwrap().from_cache());
    assert!(!kernel("2").build(&Target::Host).unwrap().from_cache());
    let host = kernel("2").build(&Target::Host).unwrap();
    assert!(host.from_cache());
    let mut x = vec![1.5f32; 16];
    host.launch([1, 1, 1], &mut [(&mut x).into()]).unwrap();
    assert_eq!(x, vec![3.0; 16], "a cached host kernel runs");
    assert!(!kernel("2").optimize(false).build(&Target::Riscv64gc).unwrap().from_cache());
    assert!(!kernel("2").cache(None).build(&Target::Riscv64gc).unwrap().from_cache());

    let entries: Vec<_> = std::fs::read_dir(cache.dir()).unwrap().map(|e| e.unwrap().path().join("entry")).collect();
    assert_eq!(entries.len(), 6, "{entries:?}");
    for entry in &entries {
        let mut bytes = std::fs::read(entry).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(entry, bytes).unwrap();
    }
    let rebuilt = kernel("2").build(&Target::Riscv64gc).unwrap();
    assert!(!rebuilt.from_cache(), "a corrupt entry is compiled again");
    assert_eq!(rebuilt.shared_object(), first.shared_object());
    assert!(kernel("2").build(&Target::Riscv64gc).unwrap().from_cache(), "and stored again");
}

/// A slice shorter than what every launch surely touches (an unmasked access at an offset
/// known from the grid and the scalar arguments) is rejected before the kernel runs, on every
/// target, naming the argument, the element, the program and the access; a long enough one
/// runs, and the slices of a rejected launch are unchanged.
#[test]
fn a_slice_shorter_than_an_unmasked_access_is_rejected_before_the_launch() {
    let source = "
import triton
import triton.language as tl

@triton.jit
def rows(x_ptr, out_ptr, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    tl.store(out_ptr + row * stride + cols, tl.load(x_ptr + row * stride + cols) * 2)
";
    let kernel = Kernel::from_source("rows.py", source, "rows")
        .signature("*fp32:16, *fp32:16, i32")
        .unwrap()
        .constant("BLOCK", 32);
    for target in TARGETS {
        let compiled = kernel.build(&target).unwrap();
        let x = vec![1f32; 4 * 40];
        let mut out = vec![0f32; 4 * 40];
        compiled.launch([4, 1, 1], &mut [(&x).into(), (&mut out).into(), 40.into()]).unwrap();
        assert_eq!(out.iter().filter(|&&v| v == 2.0).count(), 4 * 32, "{}", target.name());

        let mut short = vec![5f32; 150];
        let e = compiled.launch([4, 1, 1], &mut [(&x).into(), (&mut short).into(), 40.into()]).unwrap_err();
        assert_eq!(e.code(), Some(codes::LAUNCH_ARGUMENT), "{}: {e}", target.name());
        let text = e.to_string();
        assert!(
            text.contains(
                "`out_ptr` has 150 elements of fp32, but kernel `rows` writes its element 151 in program (3, 0, 0)"
            ),
            "{}: {text}",
            target.name()
        );
        assert!(text.contains("rows.py:9:"), "{}: {text}", target.name());
        assert!(short.iter().all(|&v| v == 5.0), "{}: the slice is unchanged", target.name());
        let e = compiled.launch([4, 1, 1], &mut [(&x[..100]).into(), (&mut out).into(), 40.into()]).unwrap_err();
        assert!(
            e.to_string().contains("`x_ptr` has 100 elements of fp32, but kernel `rows` reads its element 151"),
            "{e}"
        );
    }
}
