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

@triton.jit
def masked_gather(x_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    i = tl.load(idx_ptr + offs)
    tl.store(out_ptr + offs, tl.load(x_ptr + i, mask=i < n, other=-1.0))

@triton.jit
def copy_rows(x_ptr, out_ptr, M, N: tl.constexpr, BM: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    p = rows[:, None] * N + cols[None, :]
    tl.store(out_ptr + p, tl.load(x_ptr + p, mask=mask) + 1.0, mask=mask)

@triton.jit
def cross_read(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    # A stream from `x_ptr` that reads `y_ptr`'s array: any array of the launch is valid.
    d = (y_ptr.to(tl.int64) - x_ptr.to(tl.int64)) // 4
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + d + offs))

@triton.jit
def either_read(x_ptr, y_ptr, out_ptr, use_x, BLOCK: tl.constexpr):
    # A stream from either parameter.
    p = tl.where(use_x != 0, x_ptr, y_ptr)
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(p + offs))

@triton.jit
def dot_past(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))
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

/// Correct kernels give the same results, bit for bit, with and without checks, on each
/// target (tests/end_to_end.rs runs every fixture so, within its declared tolerances).
#[test]
fn checks_do_not_change_the_results_of_correct_kernels() {
    let names = ["vector_add", "matmul", "dot_small", "softmax", "atomic_cas", "gather", "layer_norm", "dropout"];
    for name in names {
        let f = support::Fixture::named("fixtures", name);
        for line in &f.runs {
            let run = |flags: &[&str]| support::run_line(&f, line, flags).unwrap_or_else(|e| panic!("{name}: {e}"));
            for target in ["riscv64gc", "riscv64gcv"] {
                let plain = run(&["--target", target]);
                let checked = run(&["--target", target, "--check-bounds"]);
                for output in tilec_testkit::fixture::output_names(&line.args) {
                    let (a, b) = (plain.read_npy(&output), checked.read_npy(&output));
                    assert!(a.data == b.data, "{name} {} `{output}`: checked {target} differs", line.kernel);
                }
            }
        }
    }
}

/// A gather index array: `0..16` with the given `(lane, index)` changes, written to `dir`;
/// returns the `idx_ptr=@FILE` argument.
fn index_argument(dir: &TempDir, changes: &[(u64, i64)]) -> String {
    let mut idx = HostArray::arange(tilec_ir::ScalarType::I32, &[16]).unwrap();
    for &(lane, index) in changes {
        idx.set(lane, Number::Int(index));
    }
    let path = dir.join("idx.npy");
    idx.write_npy(&path).unwrap();
    format!("idx_ptr=@{}", path.display())
}

/// Runs `kernel` with `args` on the interpreter and, bounds-checked, on every compiled
/// target; each must stop at the same access: the interpreter names the first offending
/// lane (and its byte in the array when it is in one), the checked kernels that lane's
/// element of `array`, with the access's source line.
fn assert_same_report(
    kernel: &str,
    args: &[&str],
    lane: usize,
    (array, element, elem_bytes): (&str, i64, i64),
    source: &str,
) {
    let dir = TempDir::new("same-report");
    let interp = run(&dir, kernel, &["--target", "interp"], args);
    interp.assert_fails_with(&["E0952", &format!("out-of-bounds access at lane {lane}:"), source]);
    if element >= 0 {
        interp.assert_fails_with(&[&format!("is byte {} of buffer `{array}`", element * elem_bytes)]);
    }
    let side = if element < 0 { "before its start" } else { "past its end" };
    for target in TARGETS {
        let checked: Vec<&str> = target.iter().copied().chain(["--check-bounds"]).collect();
        run(&dir, kernel, &checked, args).assert_fails_with(&[
            "E1012",
            &format!("is element {element} of `{array}`"),
            side,
            "(program (0, 0, 0))",
            source,
        ]);
    }
}

#[test]
fn a_dot_operand_tile_past_the_end_gives_the_precise_report_on_every_target() {
    // A has 15 rows of 16: the 16th row of the A tile (K along it) runs past its end.
    let args =
        ["--grid", "1", "a_ptr=rand:fp32:240", "b_ptr=rand:fp32:256", "c_ptr=zeros:fp32:256", "M=16", "N=16", "K=16"];
    let source = "a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])";
    assert_same_report("dot_past", &args, 240, ("a_ptr", 240, 4), source);
    // Unchecked, the guard page after A stops the same read.
    for target in TARGETS {
        let dir = TempDir::new("dot-past");
        run(&dir, "dot_past", target, &args)
            .assert_fails_with(&["E1007", "is element 240 of `a_ptr` (240 elements of fp32), past its end"]);
    }
}

#[test]
fn checked_gathers_report_the_first_active_lane_outside_its_array() {
    let dir = TempDir::new("checked-gather");
    // Lane 5 (index 500) is masked off and never checked; lane 9 (index -3) is the first
    // active lane outside `x_ptr`, lane 12 (index 99) the second.
    let idx = index_argument(&dir, &[(5, 500), (9, -3), (12, 99)]);
    let args = ["--grid", "1", "x_ptr=rand:fp32:16", &idx, "out_ptr=zeros:fp32:16", "n=16", "BLOCK=16"];
    assert_same_report("masked_gather", &args, 9, ("x_ptr", -3, 4), "tl.load(x_ptr + i, mask=i < n, other=-1.0)");
    let idx = index_argument(&dir, &[(5, 500), (7, 16)]);
    let args = ["--grid", "1", "x_ptr=rand:fp32:16", &idx, "out_ptr=zeros:fp32:16", "BLOCK=16"];
    assert_same_report("gather", &args, 5, ("x_ptr", 500, 4), "tl.store(out_ptr + offs, tl.load(x_ptr + i))");
}

#[test]
fn checked_masked_lanes_outside_the_arrays_are_never_checked() {
    let dir = TempDir::new("checked-masked");
    // Masked-off gather lanes point anywhere.
    let idx = index_argument(&dir, &[(3, 1 << 20), (11, 1 << 30)]);
    let gather = ["--grid", "1", "x_ptr=arange:fp32:16", &idx, "n=16", "BLOCK=16"];
    // The last program's tile runs two rows past the 10 rows of 8, masked off.
    let rows = ["--grid", "3", "x_ptr=arange:fp32:80", "M=10", "N=8", "BM=4"];
    for (kernel, args) in [("masked_gather", &gather[..]), ("copy_rows", &rows[..])] {
        let reference = TempDir::new("reference");
        let out = reference.path.display().to_string();
        let mut all = vec!["--out", &out];
        all.extend_from_slice(args);
        let outputs = if kernel == "copy_rows" { "out_ptr=zeros:fp32:80" } else { "out_ptr=zeros:fp32:16" };
        all.push(outputs);
        run(&dir, kernel, &["--target", "interp"], &all).assert_success();
        let want = reference.read_npy("out_ptr");
        for target in TARGETS {
            let got_dir = TempDir::new("checked");
            let out = got_dir.path.display().to_string();
            let mut all = vec!["--out", &out, "--check-bounds"];
            all.extend_from_slice(target);
            all.extend_from_slice(args);
            all.push(outputs);
            run(&dir, kernel, &[], &all).assert_success();
            assert!(got_dir.read_npy("out_ptr").data == want.data, "{kernel} on {target:?}: checked output differs");
        }
    }
}

/// `tl.constexpr` values by name.
type Constants = &'static [(&'static str, i128)];

/// On riscv64gcv a checked kernel keeps its RVV leaves: the streams check each strip's span
/// (`csrr vl`), the gathers each lane (`vmsleu.vx`, `vfirst.m`).
#[test]
fn checked_riscv64gcv_kernels_keep_their_rvv_leaves() {
    let cases: [(&str, &str, Constants); 2] = [
        ("copy_rows", "*fp32:16, *fp32:16, i32", &[("N", 8), ("BM", 4)]),
        ("gather", "*fp32, *i32, *fp32", &[("BLOCK", 16)]),
    ];
    for (kernel, signature, constants) in cases {
        let request = tilec::Request {
            file_name: "kernels.py",
            source: KERNELS,
            kernel,
            signature: tilec::parse_signature(signature).unwrap(),
            constants: constants.iter().map(|&(n, v)| (n.to_string(), tilec::ConstValue::Int(v))).collect(),
        };
        let compile = |checked: bool| {
            let compiler = tilec::Compiler::new(tilec::Target::Riscv64gcv).with_check_bounds(checked);
            compiler.compile(&request).unwrap_or_else(|e| panic!("{kernel}: {e:?}"))
        };
        let (plain, checked) = (compile(false), compile(true));
        for out in [&plain, &checked] {
            assert!(out.asm.contains("__rvv0:"), "{kernel}: no RVV leaf:\n{}", out.asm);
        }
        assert!(checked.asm.contains("vfirst.m"), "{kernel}: the checked leaf has no lane check:\n{}", checked.asm);
        assert!(!plain.asm.contains("vfirst.m"), "{kernel}: the plain leaf checks");
        let sites = checked.bounds_sites.len();
        assert!(sites >= 2, "{kernel}: {sites} checked sites");
    }
}

/// A checked stream passes when its strip lies in another array than its parameter's, or
/// when its pointer may come from either of two parameters.
#[test]
fn checked_streams_pass_inside_any_array() {
    let cases: [(&str, &[&str]); 3] =
        [("cross_read", &[]), ("either_read", &["use_x=0"]), ("either_read", &["use_x=1"])];
    let dir = TempDir::new("checked-any-array");
    for (kernel, extra) in cases {
        for target in TARGETS {
            let got_dir = TempDir::new("checked");
            let out = got_dir.path.display().to_string();
            let mut args = vec!["--out", &out, "--check-bounds", "--grid", "1"];
            args.extend_from_slice(target);
            args.extend(["x_ptr=zeros:i32:16", "y_ptr=arange:i32:16", "out_ptr=zeros:i32:16", "BLOCK=16"]);
            args.extend_from_slice(extra);
            run(&dir, kernel, &[], &args).assert_success();
            let want: Vec<i64> = if extra == ["use_x=1"] { vec![0; 16] } else { (0..16).collect() };
            assert_eq!(ints(&got_dir.read_npy("out_ptr")), want, "{kernel} {extra:?} on {target:?}");
        }
    }
}

/// A checked stream tests the range of the pointer parameter it comes from first, so that a
/// strip inside its own array costs the same wherever the arrays lie; a stream that may
/// come from either of two parameters has no such range. The range tests that branch on the
/// strip's start (`ld` of a range start, then `bltu`) read, in access order, the ranges of
/// `done_ptr`, `x_ptr` and `out_ptr` (table offsets 16, 32, 48), and of `either_read`'s
/// `out_ptr` only.
#[test]
fn checked_streams_test_their_own_range_first() {
    let cases: [(&str, &str, &[i32]); 2] =
        [("partial", "*i32:16, *i32:16, *i32:16", &[16, 32, 48]), ("either_read", "*i32, *i32, *i32, i32", &[48])];
    for (kernel, signature, want) in cases {
        let request = tilec::Request {
            file_name: "kernels.py",
            source: KERNELS,
            kernel,
            signature: tilec::parse_signature(signature).unwrap(),
            constants: vec![("BLOCK".to_string(), tilec::ConstValue::Int(16))],
        };
        let compiler = tilec::Compiler::new(tilec::Target::Riscv64gcv).with_check_bounds(true);
        let asm = compiler.compile(&request).unwrap_or_else(|e| panic!("{kernel}: {e:?}")).asm;
        let lines: Vec<&str> = asm.lines().map(str::trim).collect();
        let first_tests: Vec<i32> = lines
            .windows(2)
            .filter(|w| w[0].starts_with("ld ") && w[1].starts_with("bltu "))
            .filter_map(|w| w[0].split(", ").nth(1)?.split('(').next()?.parse().ok())
            .filter(|&offset| offset >= 16)
            .collect();
        assert!(asm.contains("__rvv0:"), "{kernel}: no RVV leaf:\n{asm}");
        assert_eq!(first_tests, want, "{kernel}:\n{asm}");
    }
}
