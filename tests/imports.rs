//! Kernels that use `@triton.jit` helpers and constexpr globals of other Python modules:
//! relative imports, packages, absolute imports beside the file and through `-I`, from the
//! command line and the library, with diagnostics that point into the imported files.
//!
//! The kernels are `fixtures/imports/*.py`; the modules they import sit beside them (and in
//! `fixtures/imports/include`, searched through `-I`).

mod support;

use support::{compare_outputs, run_line, tilec, Fixture, TempDir};

/// The targets each imports fixture runs on; the interpreter's outputs are the reference.
const MACHINES: &[&[&str]] = &[
    &["--target", "riscv64gc"],
    &["--target", "riscv64gcv", "--vlen", "128"],
    &["--target", "riscv64gcv", "--vlen", "256"],
];

fn f32s(a: &support::HostArray) -> Vec<f32> {
    a.data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

fn i32s(a: &support::HostArray) -> Vec<i32> {
    a.data.chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

/// `scaled_activation` of `fixtures/imports/activations.py`, written out in Rust in the same
/// operation order (so the comparison is exact).
fn scaled_activation_reference(x: &[f32], block: usize) -> (Vec<f32>, Vec<i32>) {
    let slope = 0.125f32;
    let y = x
        .iter()
        .map(|&v| {
            let leaky = if v > 0.0 { v } else { v * slope };
            let clamped = v.clamp(-1.0, 1.0);
            leaky + clamped * slope + v * (v * v)
        })
        .collect();
    let mut counts = Vec::new();
    for chunk in x.chunks(block) {
        let mut running = 0;
        for &v in chunk {
            running += i32::from(v > 0.0);
            counts.push(running);
        }
    }
    (y, counts)
}

#[test]
fn imported_helpers_run_on_every_target_like_the_interpreter() {
    let fixtures = Fixture::all_in("fixtures/imports");
    assert!(!fixtures.is_empty(), "no fixtures in fixtures/imports");
    let mut failures = Vec::new();
    let mut runs = 0;
    for f in &fixtures {
        for line in &f.runs {
            let names = line.array_names();
            let want = match run_line(f, line, &["--target", "interp"]) {
                Ok(out) => out,
                Err(e) => {
                    failures.push(format!("{} on interp: {e}", f.name));
                    continue;
                }
            };
            if f.name == "activations" {
                let x = f32s(&want.read_npy("x_ptr"));
                let (y, k) = scaled_activation_reference(&x, 64);
                let got_y = f32s(&want.read_npy("y_ptr"));
                let got_k = i32s(&want.read_npy("k_ptr"));
                if got_y.iter().map(|v| v.to_bits()).ne(y.iter().map(|v| v.to_bits())) || got_k != k {
                    failures.push("activations: the interpreter differs from the Rust reference".to_string());
                }
            }
            for flags in MACHINES {
                runs += 1;
                let result = run_line(f, line, flags).and_then(|got| compare_outputs(f, &names, &got, &want));
                if let Err(e) = result {
                    failures.push(format!("{} {}: {e}", f.name, flags.join(" ")));
                }
            }
        }
    }
    assert!(runs > 0, "the imports fixtures have no run lines");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_test_kit_specializes_a_fixture_with_imports() {
    let f = Fixture::named("fixtures/imports", "activations");
    let function = f.specialize(&f.compile[0]).unwrap_or_else(|e| panic!("{e}"));
    let text = tilec::ir::print_function(&function);
    assert!(text.contains("tt.scan"), "the imported cumsum helper is inlined:\n{text}");
}

#[test]
fn the_library_finds_imports_beside_the_file_and_in_include_dirs() {
    let root = support::workspace_root();
    let file = root.join("fixtures/imports/activations.py");
    let build = |include: bool| {
        let kernel = tilec::Kernel::from_file(&file, "scaled_activation")
            .and_then(|k| k.signature("*fp32:16, *fp32:16, *i32:16, i32"))
            .map(|k| k.constant("BLOCK", 64).cache(None));
        let kernel = kernel.unwrap_or_else(|e| panic!("{e}"));
        let kernel = if include { kernel.include_dir(root.join("fixtures/imports/include")) } else { kernel };
        kernel.build(&tilec::Target::interp())
    };
    let error = build(false).expect_err("`polynomials` is only found through the include directory");
    let text = error.to_string();
    assert!(text.contains("`cube` comes from module `polynomials`") && text.contains("-I DIR"), "{text}");

    let kernel = build(true).unwrap_or_else(|e| panic!("{e}"));
    let x: Vec<f32> = (0..200).map(|i| (i as f32 - 100.0) / 37.0).collect();
    let mut y = vec![0f32; 200];
    let mut k = vec![0i32; 200];
    kernel
        .launch([4, 1, 1], &mut [(&x).into(), (&mut y).into(), (&mut k).into(), 200.into()])
        .unwrap_or_else(|e| panic!("{e}"));
    let (want_y, want_k) = scaled_activation_reference(&x, 64);
    assert_eq!(
        y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        want_y.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    assert_eq!(k, want_k);
}

/// A kernel file `main.py` in a fresh directory with the given modules beside it.
fn program(tag: &str, main: &str, modules: &[(&str, &str)]) -> TempDir {
    let dir = TempDir::new(tag);
    for (name, text) in modules {
        if let Some(parent) = dir.join(name).parent() {
            std::fs::create_dir_all(parent).expect("the temporary directory is writable");
        }
        dir.write(name, text);
    }
    dir.write("main.py", main);
    dir
}

const HEADER: &str = "import triton\nimport triton.language as tl\n";

const MAIN_KERNEL: &str = "
@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, helper(x), mask=offs < n)
";

/// `tilec compile` of `main.py` in `dir`: must fail; its standard error.
fn compile_error(dir: &TempDir) -> String {
    let file = dir.join("main.py").display().to_string();
    let out = tilec(&["compile", &file, "-k", "kernel", "-s", "*fp32, i32", "-c", "BLOCK=16"], &[]);
    assert!(!out.success, "compiling {file} succeeded:\n{}", out.stdout);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    out.stderr
}

#[test]
fn an_error_in_an_imported_helper_points_into_its_file() {
    let helper = format!("{HEADER}\n\n@triton.jit\ndef helper(x):\n    return x + not_defined\n");
    let dir = program(
        "imports-error",
        &format!("{HEADER}from .helpers import helper\n{MAIN_KERNEL}"),
        &[("helpers.py", &helper)],
    );
    let stderr = compile_error(&dir);
    assert!(stderr.contains("error[E0201]: unknown name `not_defined`"), "{stderr}");
    assert!(stderr.contains("helpers.py:7:16"), "the span is in the helper's file:\n{stderr}");
}

#[test]
fn a_syntax_error_in_an_imported_module_names_that_module() {
    let broken = format!("{HEADER}\n@triton.jit\ndef helper(x):\n    return x +\n");
    let dir = program(
        "imports-syntax",
        &format!("{HEADER}from .broken import helper\n{MAIN_KERNEL}"),
        &[("broken.py", &broken)],
    );
    let stderr = compile_error(&dir);
    assert!(stderr.contains("error[E01"), "{stderr}");
    assert!(stderr.contains("broken.py:6:15"), "{stderr}");
}

#[test]
fn a_missing_member_or_module_is_a_diagnostic_at_the_use() {
    let other = format!("{HEADER}\n@triton.jit\ndef other(x):\n    return x\n");
    let dir = program(
        "imports-missing",
        &format!("{HEADER}from .other import helper\n{MAIN_KERNEL}"),
        &[("other.py", &other)],
    );
    let stderr = compile_error(&dir);
    assert!(stderr.contains("module `other` has no `@triton.jit` function or constexpr named `helper`"), "{stderr}");
    assert!(stderr.contains("main.py:9:28"), "{stderr}");

    let dir = program("imports-nowhere", &format!("{HEADER}from nowhere import helper\n{MAIN_KERNEL}"), &[]);
    let stderr = compile_error(&dir);
    assert!(stderr.contains("`helper` comes from module `nowhere`") && stderr.contains("-I DIR"), "{stderr}");
}

#[test]
fn an_import_cycle_is_a_diagnostic_not_a_hang() {
    let a = format!("{HEADER}from .b import helper\n");
    let b = format!("{HEADER}from .a import helper\n");
    let dir = program(
        "imports-cycle",
        &format!("{HEADER}from .a import helper\n{MAIN_KERNEL}"),
        &[("a.py", &a), ("b.py", &b)],
    );
    let stderr = compile_error(&dir);
    assert!(stderr.contains("`helper` is imported in a cycle"), "{stderr}");
}

#[test]
fn modules_that_import_each_other_compile() {
    // Python allows import cycles between modules as long as names are read after import.
    let a = format!("{HEADER}from . import b\n\n@triton.jit\ndef helper(x):\n    return b.twice(x) + 1.0\n");
    let b = format!(
        "{HEADER}from . import a\nFACTOR = tl.constexpr(2.0)\n\n@triton.jit\ndef twice(x):\n    return x * FACTOR\n"
    );
    let dir = program(
        "imports-mutual",
        &format!("{HEADER}from .a import helper\n{MAIN_KERNEL}"),
        &[("a.py", &a), ("b.py", &b)],
    );
    let file = dir.join("main.py").display().to_string();
    let out = tilec(&["compile", &file, "-k", "kernel", "-s", "*fp32, i32", "-c", "BLOCK=16"], &[]);
    assert!(out.success, "{}", out.stderr);
    assert!(out.stdout.contains("arith.mulf") && out.stdout.contains("arith.addf"), "{}", out.stdout);
}

#[test]
fn a_changed_imported_helper_invalidates_the_kernel_cache() {
    let helper = |factor: &str| format!("{HEADER}\n@triton.jit\ndef helper(x):\n    return x * {factor}\n");
    let dir = program(
        "imports-cache",
        &format!("{HEADER}from .helpers import helper\n{MAIN_KERNEL}"),
        &[("helpers.py", &helper("2.0"))],
    );
    let cache = tilec::KernelCache::in_dir(dir.join("cache"));
    let build = || {
        tilec::Kernel::from_file(dir.join("main.py"), "kernel")
            .and_then(|k| k.signature("*fp32, i32"))
            .and_then(|k| k.constant("BLOCK", 16).cache(Some(cache.clone())).build(&tilec::Target::riscv64gc()))
            .unwrap_or_else(|e| panic!("{e}"))
    };
    assert!(!build().from_cache(), "the first build compiles");
    assert!(build().from_cache(), "the second build is a cache hit");
    dir.write("helpers.py", &helper("3.0"));
    let rebuilt = build();
    assert!(!rebuilt.from_cache(), "a changed helper module recompiles");
    assert!(rebuilt.output().tile.contains("3.0"), "{}", rebuilt.output().tile);
}
