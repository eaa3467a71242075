//! Real fixtures through parse → specialize → interpret, checked against references
//! written here in plain Rust (they check the interpreter itself, independently of any
//! compiled code).

use tilec_interp::{run, Arg};
use tilec_ir::{Function, ScalarType};
use tilec_testkit::Fixture;

/// Compiles `fixtures/NAME.py` to Tile IR as its first header says.
fn compile_fixture(name: &str) -> Function {
    let fixture = Fixture::named("fixtures", name);
    let f = fixture.specialize(&fixture.compile[0]).unwrap_or_else(|e| panic!("{name}: {e}"));
    tilec_ir::verify(&f).unwrap_or_else(|e| panic!("{name}: {}", e[0]));
    f
}

/// Deterministic pseudo-random values in [-1, 1) (a 64-bit LCG).
fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn f32_buffer(values: &[f32]) -> Arg {
    Arg::Buffer { data: values.iter().flat_map(|v| v.to_le_bytes()).collect(), elem: ScalarType::F32 }
}

fn f16_buffer(values: &[half::f16]) -> Arg {
    Arg::Buffer { data: values.iter().flat_map(|v| v.to_le_bytes()).collect(), elem: ScalarType::F16 }
}

fn f32s(arg: &Arg) -> Vec<f32> {
    let Arg::Buffer { data, .. } = arg else { panic!("not a buffer") };
    data.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn f16s(arg: &Arg) -> Vec<half::f16> {
    let Arg::Buffer { data, .. } = arg else { panic!("not a buffer") };
    data.chunks(2).map(|c| half::f16::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn vector_add_fixture() {
    let f = compile_fixture("vector_add");
    let n = 4000;
    let (x, y) = (random(n, 1), random(n, 2));
    let mut args = [f32_buffer(&x), f32_buffer(&y), f32_buffer(&vec![0.0; n]), Arg::Int(n as i64)];
    run(&f, &mut args, [4, 1, 1]).unwrap_or_else(|e| panic!("{e}"));
    let expected: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    assert_eq!(f32s(&args[2]), expected);
}

#[test]
fn softmax_fixture() {
    let f = compile_fixture("softmax");
    let (rows, cols) = (10, 100);
    let input = random(rows * cols, 3);
    let mut args = [
        f32_buffer(&vec![0.0; rows * cols]),
        f32_buffer(&input),
        Arg::Int(cols as i64),
        Arg::Int(cols as i64),
        Arg::Int(rows as i64),
        Arg::Int(cols as i64),
    ];
    // Three programs stride over the ten rows.
    run(&f, &mut args, [3, 1, 1]).unwrap_or_else(|e| panic!("{e}"));
    let mut expected = Vec::new();
    for row in input.chunks(cols) {
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let numerators: Vec<f32> = row.iter().map(|x| (x - max).exp()).collect();
        let denominator: f32 = numerators.iter().sum();
        expected.extend(numerators.iter().map(|n| n / denominator));
    }
    let got = f32s(&args[0]);
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert!((g - e).abs() <= 1e-6 * e.abs().max(1e-3), "element {i}: {g} != {e}");
    }
}

#[test]
fn matmul_fixture() {
    let f = compile_fixture("matmul");
    let (m, n, k) = (100, 90, 70);
    let a: Vec<half::f16> = random(m * k, 4).into_iter().map(half::f16::from_f32).collect();
    let b: Vec<half::f16> = random(k * n, 5).into_iter().map(half::f16::from_f32).collect();
    let ints = [m, n, k, k, n, n].map(|v| Arg::Int(v as i64));
    let mut args = vec![f16_buffer(&a), f16_buffer(&b), f16_buffer(&vec![half::f16::ZERO; m * n])];
    args.extend(ints);
    // 4 x 3 blocks of 32 x 32.
    run(&f, &mut args, [12, 1, 1]).unwrap_or_else(|e| panic!("{e}"));
    let got = f16s(&args[2]);
    for i in 0..m {
        for j in 0..n {
            let acc = (0..k).fold(0.0f32, |acc, kk| a[i * k + kk].to_f32().mul_add(b[kk * n + j].to_f32(), acc));
            let activated = if acc >= 0.0 { acc } else { 0.01f32 * acc };
            let expected = half::f16::from_f32(activated);
            let g = got[i * n + j];
            let close = (g.to_f32() - expected.to_f32()).abs() <= 1e-3 * expected.to_f32().abs().max(1e-2);
            assert!(close, "c[{i}][{j}] = {g} != {expected}");
        }
    }
}

/// `fixtures/limits/endless_while.py`, a `while` whose condition never becomes false:
/// program 1 runs past its step limit, and the error names an op of the loop and the
/// program.
#[test]
fn a_kernel_that_never_ends_hits_the_step_limit() {
    let f = compile_fixture("limits/endless_while");
    // program 0 starts at n and ends at once; program 1 starts at 0 and never ends
    let mut args = [
        Arg::Buffer { data: [7i32, 0].iter().flat_map(|v| v.to_le_bytes()).collect(), elem: ScalarType::I32 },
        Arg::Int(7),
    ];
    let err = tilec_interp::run_with_step_limit(&f, &mut args, [2, 1, 1], 1000).unwrap_err();
    assert_eq!(err.code, tilec_interp::codes::STEP_LIMIT);
    assert_eq!(err.program_id, Some([1, 0, 0]));
    let text = err.to_string();
    assert!(text.contains("executed more than 1000 steps"), "{text}");
    assert!(text.contains("(program (1, 0, 0))"), "{text}");
    let op = err.op.as_deref().unwrap_or_default();
    assert!(
        ["arith.", "scf.while", "scf.condition"].iter().any(|p| op.contains(p)),
        "the error names no loop op: {text}"
    );
}
