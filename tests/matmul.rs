//! `tl.dot` end to end: the tutorial-03 matmul fixture against a Rust reference, and the
//! dot fixtures (batched, two dots with a softmax, int8, small and odd shapes, fp64)
//! against the Tile IR interpreter, on riscv64gc and on riscv64gcv at several VLENs.
//!
//! Matmul matrix (`fixtures/matmul.py`, `ACTIVATION=leaky_relu`, fp16 output): the shapes
//! (M, N, K) ∈ {(256,256,256), (100,70,50), (1,1,1), (33,65,17), (128,64,512)} with fp32
//! and with fp16 inputs, on every one of [`MACHINES`] (riscv64gc, VLEN 128/256/512/1024):
//! 50 runs, about 40 s on two cores. Blocks are 32×32×32 with GROUP_SIZE_M=4, and
//! 64×64×32 with GROUP_SIZE_M=8 (the benchmark configuration) for 256³.
//!
//! The RVV runs only test the microkernel if the dot is compiled to it rather than to the
//! scalar fallback: [`matmul_dots_use_the_rvv_microkernel`] checks the assembly.
//!
//! The reference computes each output as the kernel does: an fp32 fused multiply-add per
//! k in k order (masked-off k add an exact zero), leaky_relu in fp32, then fp16 rounding
//! to nearest even — so the comparison is bit for bit.

mod support;

use std::path::Path;

use support::{compare_arrays, run, run_line, tilec, Fixture, HostArray, Number};

/// `tilec run` flags of each compiled target.
const MACHINES: &[&[&str]] = &[
    &["--target", "riscv64gc"],
    &["--target", "riscv64gcv", "--vlen", "128"],
    &["--target", "riscv64gcv", "--vlen", "256"],
    &["--target", "riscv64gcv", "--vlen", "512"],
    &["--target", "riscv64gcv", "--vlen", "1024"],
];

const SHAPES: [(u64, u64, u64); 5] = [(256, 256, 256), (100, 70, 50), (1, 1, 1), (33, 65, 17), (128, 64, 512)];

fn floats(a: &HostArray) -> Vec<f32> {
    (0..a.len())
        .map(|i| match a.get(i) {
            Number::Float(x) => x as f32,
            other => panic!("expected a float array, found {other}"),
        })
        .collect()
}

/// fp16 bits of `leaky_relu(a · b)` for row-major `a` (m×k) and `b` (k×n).
fn reference(a: &[f32], b: &[f32], (m, n, k): (u64, u64, u64)) -> Vec<u16> {
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let mut out = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0f32;
            for p in 0..k {
                acc = a[i * k + p].mul_add(b[p * n + j], acc);
            }
            let activated = if acc >= 0.0 { acc } else { 0.01f32 * acc };
            out.push(half::f16::from_f32(activated).to_bits());
        }
    }
    out
}

/// The matmul fixture for one shape and input dtype on `flags`, against [`reference`].
fn check_matmul(shape: (u64, u64, u64), dtype: &str, flags: &[&str]) -> Result<(), String> {
    let (m, n, k) = shape;
    let (block_m, block_n, block_k, group) = if m >= 256 && n >= 256 { (64, 64, 32, 8) } else { (32, 32, 32, 4) };
    let grid = m.div_ceil(block_m) * n.div_ceil(block_n);
    let args: Vec<String> = [
        format!("--grid={grid}"),
        format!("a_ptr=rand:{dtype}:{m}x{k}:1"),
        format!("b_ptr=rand:{dtype}:{k}x{n}:2"),
        format!("c_ptr=zeros:fp16:{m}x{n}"),
        format!("M={m}"),
        format!("N={n}"),
        format!("K={k}"),
        format!("stride_am={k}"),
        "stride_ak=1".into(),
        format!("stride_bk={n}"),
        "stride_bn=1".into(),
        format!("stride_cm={n}"),
        "stride_cn=1".into(),
        format!("BLOCK_SIZE_M={block_m}"),
        format!("BLOCK_SIZE_N={block_n}"),
        format!("BLOCK_SIZE_K={block_k}"),
        format!("GROUP_SIZE_M={group}"),
        "ACTIVATION=leaky_relu".into(),
    ]
    .into();
    let label = format!("matmul {m}x{n}x{k} {dtype} {}", flags.join(" "));
    let out = run(Path::new("fixtures/matmul.py"), "matmul_kernel", flags, &args)?;
    let (a, b, c) = (out.read_npy("a_ptr"), out.read_npy("b_ptr"), out.read_npy("c_ptr"));
    let want = reference(&floats(&a), &floats(&b), shape);
    let got: Vec<u16> = c.data.chunks_exact(2).map(|p| u16::from_le_bytes([p[0], p[1]])).collect();
    if got.len() != want.len() {
        return Err(format!("{label}: {} outputs, expected {}", got.len(), want.len()));
    }
    let wrong: Vec<usize> = (0..want.len()).filter(|&i| got[i] != want[i]).collect();
    match wrong.first() {
        None => Ok(()),
        Some(&i) => Err(format!(
            "{label}: {} of {} outputs differ; first at ({}, {}): got {} want {}",
            wrong.len(),
            want.len(),
            i as u64 / n,
            i as u64 % n,
            half::f16::from_bits(got[i]),
            half::f16::from_bits(want[i])
        )),
    }
}

/// Every matmul case of `machine` (see the module doc), failures collected.
fn matmul_on(machine: &[&str]) {
    let mut failures = Vec::new();
    for shape in SHAPES {
        for dtype in ["fp32", "fp16"] {
            if let Err(e) = check_matmul(shape, dtype, machine) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn matmul_riscv64gc() {
    matmul_on(MACHINES[0]);
}

#[test]
fn matmul_vlen_128() {
    matmul_on(MACHINES[1]);
}

#[test]
fn matmul_vlen_256() {
    matmul_on(MACHINES[2]);
}

#[test]
fn matmul_vlen_512() {
    matmul_on(MACHINES[3]);
}

#[test]
fn matmul_vlen_1024() {
    matmul_on(MACHINES[4]);
}

#[test]
fn matmul_dots_use_the_rvv_microkernel() {
    for (dtype, blocks) in [("fp32", ["64", "64", "32"]), ("fp16", ["32", "32", "32"]), ("fp32", ["16", "128", "8"])] {
        let signature =
            format!("*{dtype}:16, *{dtype}:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1");
        let constants = [
            format!("BLOCK_SIZE_M={}", blocks[0]),
            format!("BLOCK_SIZE_N={}", blocks[1]),
            format!("BLOCK_SIZE_K={}", blocks[2]),
        ];
        let mut args = vec![
            "compile",
            "fixtures/matmul.py",
            "-k",
            "matmul_kernel",
            "-s",
            &signature,
            "--target",
            "riscv64gcv",
            "--emit",
            "asm",
        ];
        for c in &constants {
            args.extend(["-c", c]);
        }
        args.extend(["-c", "GROUP_SIZE_M=4", "-c", "ACTIVATION=leaky_relu"]);
        let outcome = tilec(&args, &[]);
        outcome.assert_success();
        // Four LMUL variants, each with K_UNROLL (8) k steps per row block.
        let fmaccs = outcome.stdout.matches("vfmacc.vf").count();
        assert!(fmaccs >= 4 * 8, "{dtype} {blocks:?}: {fmaccs} vfmacc.vf in:\n{}", outcome.stdout);
    }
}

#[test]
fn the_reference_rounds_like_the_kernel() {
    // 1·1 + 2·3 = 7; a negative sum is scaled by 0.01 before fp16 rounding.
    let got = reference(&[1.0, 2.0, -1.0, -2.0], &[1.0, 3.0], (2, 1, 2));
    assert_eq!(got, vec![half::f16::from_f32(7.0).to_bits(), half::f16::from_f32(-0.07).to_bits()]);
}

/// A dot fixture's `# tilec-run:` lines on every machine against the interpreter: bit for
/// bit, unless the fixture declares a tolerance.
fn check_fixture(file: &str) {
    check_fixture_in("fixtures", file);
}

/// [`check_fixture`] of a kernel file in `dir`.
fn check_fixture_in(dir: &str, file: &str) {
    let f = Fixture::named(dir, file.trim_end_matches(".py"));
    assert!(!f.runs.is_empty(), "{file} has no run line");
    let mut failures = Vec::new();
    for line in &f.runs {
        let want = match run_line(&f, line, &["--target", "interp"]) {
            Ok(dir) => dir,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        for machine in MACHINES {
            let got = match run_line(&f, line, machine) {
                Ok(dir) => dir,
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            };
            for name in line.array_names() {
                let tolerance = f.tolerance(&name);
                if let Err(e) = compare_arrays(&name, &got.read_npy(&name), &want.read_npy(&name), &tolerance) {
                    failures.push(format!("{file} {} on {}: {e}", line.text(), machine.join(" ")));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn batched_dot_matches_the_interpreter() {
    check_fixture("dot_batched.py");
}

#[test]
fn attention_block_matches_the_interpreter() {
    check_fixture("attention.py");
}

/// Asserts that `f`'s first compile has `parts[0]` outlined functions (`KERNEL__partN`) on
/// riscv64gc and `parts[1]` on riscv64gcv.
fn assert_outlined_parts(f: &Fixture, kernel: &str, parts: [usize; 2]) {
    let request = support::request(f, &f.compile[0]).expect("the kernel's signature parses");
    for (target, parts) in [tilec::Target::Riscv64gc, tilec::Target::Riscv64gcv].into_iter().zip(parts) {
        let compiler = tilec::Compiler::new(target).with_produce(tilec::Produce::Object);
        let out = compiler.compile(&request).unwrap_or_else(|e| panic!("{target:?}: {e:?}"));
        let part =
            |l: &&str| l.strip_prefix(kernel).and_then(|l| l.strip_prefix("__part")).is_some_and(|l| l.ends_with(':'));
        assert_eq!(out.asm.lines().filter(part).count(), parts, "{target:?}: outlined functions of {kernel}");
    }
}

/// Two loops holding dots, whose carried values are read after them: on riscv64gc each loop
/// is a function of its own (`__part0`, `__part1`; its runs of nests are too small to be),
/// on riscv64gcv neither is; the outputs match the interpreter's either way.
#[test]
fn outlined_attention_loops_match_the_interpreter() {
    assert_outlined_parts(&Fixture::named("fixtures", "attention_loop"), "attention_loop_kernel", [2, 0]);
    check_fixture("attention_loop.py");
}

/// A body big enough that every loop of it is outlined (tutorial 06's attention backward:
/// four loops holding dots) has its big runs of nests between them outlined too on
/// riscv64gc, so the compiling threads share out functions of more even sizes: six
/// functions (the four loops, two runs of nests), none on riscv64gcv; the outputs match
/// the interpreter.
#[test]
fn nest_runs_of_big_bodies_are_outlined() {
    assert_outlined_parts(&Fixture::named("bench/tutorials", "attention_bwd"), "_attn_bwd", [6, 0]);
    check_fixture_in("bench/tutorials", "attention_bwd.py");
}

#[test]
fn int8_dots_match_the_interpreter() {
    check_fixture("dot_int8.py");
    check_fixture("int8_dot.py");
}

#[test]
fn small_and_fp64_dots_match_the_interpreter() {
    check_fixture("dot_small.py");
}
