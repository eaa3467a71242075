//! The scalar path's flat loops (riscv64gc): a range split at a prefix mask `offs < n` runs
//! an unrolled main loop, then a remainder loop of one copy of the body for the last
//! `p mod U` elements, unless the split is known to be a multiple of the unroll factor `U`:
//! with `n: i32:16` (the signature's promise) and a block start that is a multiple of the
//! block, it is, and the remainder loop is left out.

mod support;

/// The `fadd.s` of `add_kernel_grid` (Triton's vector add, one per copy of the body)
/// compiled for riscv64gc with `n` of type `n_type`.
fn body_copies(n_type: &str) -> usize {
    let signature = format!("*fp32:16, *fp32:16, *fp32:16, {n_type}");
    let args = ["compile", "fixtures/vector_add.py", "-k", "add_kernel", "-s", &signature, "-c", "BLOCK_SIZE=1024"];
    let outcome = support::tilec(&[&args[..], &["--target", "riscv64gc", "--emit", "asm"]].concat(), &[]);
    outcome.assert_success();
    let grid = outcome.stdout.lines().skip_while(|l| *l != "add_kernel_grid:");
    grid.filter(|l| l.trim_start().starts_with("fadd.s")).count()
}

#[test]
fn a_split_the_signature_makes_a_multiple_of_the_unroll_has_no_remainder_loop() {
    let unknown = body_copies("i32");
    let multiple_of_16 = body_copies("i32:16");
    // The main loop's copies, a power of two of at least 2, and one more without the promise.
    assert!(multiple_of_16 >= 2 && multiple_of_16.is_power_of_two(), "{multiple_of_16} copies with `i32:16`");
    assert_eq!(unknown, multiple_of_16 + 1, "copies with `i32` against `i32:16`");
    // A multiple of 2 is not one of the unroll factor: the remainder loop stays.
    assert_eq!(body_copies("i32:2"), unknown, "copies with `i32:2` against `i32`");
}
