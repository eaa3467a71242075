//! Memory safety of compiled launches: every array lives between guard pages (runner/runner.c),
//! so an access outside it faults at once, and the report names the signal, the access, the
//! array with the element offset and the program; `--out` still saves what the failed run
//! left, as `NAME.failed.npy`. Each case runs on riscv64gc and riscv64gcv.

mod support;

use support::{tilec, HostArray, Number, Outcome, TempDir};

/// `tilec run` target flags of the compiled targets.
const TARGETS: [&[&str]; 3] =
    [&["--target", "riscv64gc"], &["--target", "riscv64gcv", "--vlen", "128"], &["--target", "riscv64gcv"]];

const KERNELS: &str = r#"
import triton
import triton.language as tl

@triton.jit
def partial(done_ptr, x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(done_ptr + offs, offs + 1)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x)

@triton.jit
def underrun_write(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK) - 1
    tl.store(out_ptr + offs, offs)

@triton.jit
def underrun_read(x_ptr, out_ptr, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs - SHIFT))

@triton.jit
def padding_write(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs.to(tl.int8))

@triton.jit
def atomic_past(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr + offs, 1)

@triton.jit
def gather(x_ptr, idx_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    i = tl.load(idx_ptr + offs)
    tl.store(out_ptr + offs, tl.load(x_ptr + i))
"#;

fn run(dir: &TempDir, kernel: &str, target: &[&str], args: &[&str]) -> Outcome {
    let file = dir.write("kernels.py", KERNELS);
    let mut all = vec!["run", file.as_str(), "-k", kernel];
    all.extend_from_slice(target);
    all.extend_from_slice(args);
    tilec(&all, &[])
}

fn ints(array: &HostArray) -> Vec<i64> {
    (0..array.len())
        .map(|i| match array.get(i) {
            Number::Int(v) => v,
            Number::UInt(v) => v as i64,
            Number::Float(f) => panic!("expected integers, found {f}"),
        })
        .collect()
}

#[test]
fn arrays_shorter_than_n_elements_fault_with_the_array_and_element() {
    // The everyday mistake: arrays of 100 elements, n_elements 4000.
    for target in TARGETS {
        let mut args = vec!["run", "fixtures/vector_add.py", "-k", "add_kernel", "--grid", "4"];
        args.extend_from_slice(target);
        args.extend([
            "x_ptr=rand:fp32:100",
            "y_ptr=rand:fp32:100",
            "output_ptr=zeros:fp32:100",
            "n_elements=4000",
            "BLOCK_SIZE=1024",
        ]);
        tilec(&args, &[]).assert_fails_with(&[
            "E1007",
            "signal 11 (SIGSEGV)",
            "in program (0, 0, 0)",
            "the read at 0x",
            "is element 100 of `x_ptr` (100 elements of fp32), past its end",
        ]);
    }
}

#[test]
fn a_fault_names_its_program_and_the_other_arrays_are_saved_as_failed() {
    for target in TARGETS {
        for threads in ["1", "2"] {
            let dir = TempDir::new("fault-partial");
            let out = dir.join("out").display().to_string();
            let mut args = vec!["--grid", "4", "--threads", threads, "--out", &out];
            args.extend_from_slice(target);
            args.extend(["done_ptr=zeros:i32:64", "x_ptr=arange:i32:40", "out_ptr=zeros:i32:64", "BLOCK=16"]);
            let outcome = run(&dir, "partial", &[], &args);
            outcome.assert_fails_with(&[
                "E1007",
                "in program (2, 0, 0)",
                "the read at 0x",
                "is element 40 of `x_ptr` (40 elements of i32), past its end",
                "done_ptr.failed.npy (from the failed run)",
            ]);
            assert!(!dir.join("out/done_ptr.npy").exists(), "a failed run must not write done_ptr.npy");
            if threads == "1" {
                // Programs 0 and 1 finished; program 2 faulted on `x` at element 40 after
                // storing some of its elements (how many depends on the code's order);
                // program 3 never ran.
                let done = ints(&HostArray::read_npy(&dir.join("out/done_ptr.failed.npy")).unwrap());
                let copied = ints(&HostArray::read_npy(&dir.join("out/out_ptr.failed.npy")).unwrap());
                for i in 0..64 {
                    let (d, c) = (done[i as usize], copied[i as usize]);
                    match i {
                        0..32 => assert!(d == i + 1 && c == i, "{target:?}: element {i}: {d}, {c}"),
                        32..48 => assert!((d == i + 1 || d == 0) && (c == i || c == 0), "{target:?}: {i}: {d}, {c}"),
                        _ => assert!(d == 0 && c == 0, "{target:?}: element {i} of program 3: {d}, {c}"),
                    }
                    assert!(i < 40 || c == 0, "{target:?}: element {i} of `out` copied from past `x`");
                }
            }
        }
    }
}

#[test]
fn an_underrun_read_faults_before_the_start() {
    for target in TARGETS {
        let dir = TempDir::new("underrun-read");
        let args = ["--grid", "1", "x_ptr=rand:fp32:16", "out_ptr=zeros:fp32:16", "SHIFT=1024", "BLOCK=16"];
        run(&dir, "underrun_read", target, &args).assert_fails_with(&[
            "E1007",
            "the read at 0x",
            "is element -1024 of `x_ptr` (16 elements of fp32), before its start",
        ]);
    }
}

#[test]
fn writes_next_to_an_array_are_caught_by_the_canary() {
    for target in TARGETS {
        let dir = TempDir::new("underrun-write");
        run(&dir, "underrun_write", target, &["--grid", "1", "out_ptr=zeros:i32:16", "BLOCK=16"]).assert_fails_with(&[
            "E1011",
            "wrote outside `out_ptr` (16 elements of i32): elements -1 to -1 were changed",
        ]);
        // 13 bytes end 3 bytes before the guard page: the padding that keeps the start
        // 16-byte aligned.
        run(&dir, "padding_write", target, &["--grid", "1", "out_ptr=zeros:i8:13", "BLOCK=16"]).assert_fails_with(&[
            "E1011",
            "wrote outside `out_ptr` (13 elements of i8): elements 13 to 15 were changed",
        ]);
    }
}

#[test]
fn an_atomic_past_the_end_faults() {
    for target in TARGETS {
        let dir = TempDir::new("atomic-past");
        run(&dir, "atomic_past", target, &["--grid", "1", "out_ptr=zeros:i32:12", "BLOCK=16"]).assert_fails_with(&[
            "E1007",
            "in program (0, 0, 0)",
            "is element 12 of `out_ptr` (12 elements of i32), past its end",
        ]);
    }
}

#[test]
fn a_gather_with_a_bad_index_faults() {
    for target in TARGETS {
        let dir = TempDir::new("bad-gather");
        let mut idx = HostArray::arange(tilec_ir::ScalarType::I32, &[16]).unwrap();
        idx.set(5, Number::Int(500));
        let idx_path = dir.join("idx.npy");
        idx.write_npy(&idx_path).unwrap();
        let idx_arg = format!("idx_ptr=@{}", idx_path.display());
        let args = ["--grid", "1", "x_ptr=rand:fp32:16", &idx_arg, "out_ptr=zeros:fp32:16", "BLOCK=16"];
        run(&dir, "gather", target, &args).assert_fails_with(&[
            "E1007",
            "the read at 0x",
            "is element 500 of `x_ptr` (16 elements of fp32), past its end",
        ]);
    }
}

// ---- --check-bounds ----

#[test]
fn checked_kernels_report_the_access_span_array_element_and_program() {
    for target in TARGETS {
        let mut args = vec!["run", "fixtures/vector_add.py", "-k", "add_kernel", "--grid", "4", "--check-bounds"];
        args.extend_from_slice(target);
        args.extend([
            "x_ptr=rand:fp32:100",
            "y_ptr=rand:fp32:100",
            "output_ptr=zeros:fp32:100",
            "n_elements=4000",
            "BLOCK_SIZE=1024",
        ]);
        tilec(&args, &[]).assert_fails_with(&[
            "E1012",
            "out-of-bounds read in kernel `add_kernel`",
            "is element 100 of `x_ptr` (100 elements of fp32), past its end (program (0, 0, 0))",
            "vector_add.py:15",
            "x = tl.load(x_ptr + offsets, mask=mask)",
        ]);
    }
}

#[test]
fn checked_kernels_catch_what_the_guard_pages_miss() {
    for target in TARGETS {
        let dir = TempDir::new("checked");
        let checked: Vec<&str> = target.iter().copied().chain(["--check-bounds"]).collect();
        run(&dir, "underrun_write", &checked, &["--grid", "1", "out_ptr=zeros:i32:16", "BLOCK=16"]).assert_fails_with(
            &["E1012", "out-of-bounds write", "is element -1 of `out_ptr` (16 elements of i32), before its start"],
        );
        let args = ["--grid", "1", "x_ptr=rand:fp32:16", "out_ptr=zeros:fp32:16", "SHIFT=1", "BLOCK=16"];
        run(&dir, "underrun_read", &checked, &args).assert_fails_with(&[
            "E1012",
            "out-of-bounds read",
            "is element -1 of `x_ptr` (16 elements of fp32), before its start",
            "tl.load(x_ptr + offs - SHIFT)",
        ]);
        run(&dir, "padding_write", &checked, &["--grid", "1", "out_ptr=zeros:i8:13", "BLOCK=16"]).assert_fails_with(&[
            "E1012",
            "out-of-bounds write",
            "is element 13 of `out_ptr` (13 elements of i8)",
        ]);
        run(&dir, "atomic_past", &checked, &["--grid", "1", "out_ptr=zeros:i32:12", "BLOCK=16"]).assert_fails_with(&[
            "E1012",
            "out-of-bounds atomic access",
            "is element 12 of `out_ptr` (12 elements of i32), past its end (program (0, 0, 0))",
        ]);
        let out = dir.join("out").display().to_string();
        let mut args = vec!["--grid", "4", "--threads", "2", "--out", &out];
        args.extend(["done_ptr=zeros:i32:64", "x_ptr=arange:i32:40", "out_ptr=zeros:i32:64", "BLOCK=16"]);
        run(&dir, "partial", &checked, &args).assert_fails_with(&[
            "E1012",
            "is element 40 of `x_ptr` (40 elements of i32), past its end (program (2, 0, 0))",
            "done_ptr.failed.npy (from the failed run)",
        ]);
    }
}

/// Correct kernels give the same results, bit for bit, with and without checks. A checked
/// kernel is scalar code on riscv64gcv too, so both checked runs equal the plain riscv64gc run.
#[test]
fn checks_do_not_change_the_results_of_correct_kernels() {
    let names = ["vector_add", "matmul", "dot_small", "softmax", "atomic_cas", "gather", "layer_norm", "dropout"];
    for name in names {
        let f = support::Fixture::named("fixtures", name);
        for line in &f.runs {
            let run = |flags: &[&str]| support::run_line(&f, line, flags).unwrap_or_else(|e| panic!("{name}: {e}"));
            let plain = run(&["--target", "riscv64gc"]);
            for target in ["riscv64gc", "riscv64gcv"] {
                let checked = run(&["--target", target, "--check-bounds"]);
                for output in tilec_testkit::fixture::output_names(&line.args) {
                    let (a, b) = (plain.read_npy(&output), checked.read_npy(&output));
                    assert!(a.data == b.data, "{name} {} `{output}`: checked {target} differs", line.kernel);
                }
            }
        }
    }
}
