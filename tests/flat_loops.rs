//! The scalar path's flat loops (riscv64gc): a range split at a prefix mask `offs < n` runs
//! a main loop of `U` copies of the body, then a remainder loop of one copy for the last
//! `p mod U` elements.
//! - `U` is smaller for a costlier body: a cheap one (Triton's vector add) gets more copies
//!   than one holding an inline fp32 `exp`, which gets 2, and one holding two gets 1.
//! - The remainder loop is left out where the split is known to be a multiple of `U`: with
//!   `n: i32:16` (the signature's promise) and a block start that is a multiple of the block,
//!   it is.

mod support;

/// The lines of `KERNEL_grid` starting with `marker` (an instruction each copy of the body
/// has once), `kernel` of `file` compiled for riscv64gc with the constant `block` and the
/// signature of its parameters: `pointers` fp32 pointers, then `n` of type `n_type`.
fn body_copies(file: &str, kernel: &str, pointers: usize, n_type: &str, block: &str, marker: &str) -> usize {
    let signature = format!("{}{n_type}", "*fp32:16, ".repeat(pointers));
    let args = ["compile", file, "-k", kernel, "-s", &signature, "-c", block];
    let outcome = support::tilec(&[&args[..], &["--target", "riscv64gc", "--emit", "asm"]].concat(), &[]);
    outcome.assert_success();
    let grid_label = format!("{kernel}_grid:");
    let grid = outcome.stdout.lines().skip_while(|l| *l != grid_label);
    grid.filter(|l| l.trim_start().starts_with(marker)).count()
}

/// The copies of Triton's vector add (one `fadd.s` each).
fn vector_add_copies(n_type: &str) -> usize {
    body_copies("fixtures/vector_add.py", "add_kernel", 3, n_type, "BLOCK_SIZE=1024", "fadd.s")
}

#[test]
fn a_split_the_signature_makes_a_multiple_of_the_unroll_has_no_remainder_loop() {
    let unknown = vector_add_copies("i32");
    let multiple_of_16 = vector_add_copies("i32:16");
    // The main loop's copies, a power of two of at least 2, and one more without the promise.
    assert!(multiple_of_16 >= 2 && multiple_of_16.is_power_of_two(), "{multiple_of_16} copies with `i32:16`");
    assert_eq!(unknown, multiple_of_16 + 1, "copies with `i32` against `i32:16`");
    // A multiple of 2 is not one of the unroll factor: the remainder loop stays.
    assert_eq!(vector_add_copies("i32:2"), unknown, "copies with `i32:2` against `i32`");
}

#[test]
fn a_body_holding_an_exp_gets_two_copies_a_cheap_one_more() {
    // One `fabs.s` per copy: the inline exp's range test (its out-of-range path has none).
    let exp = body_copies("bench/kernels/exp.py", "exp_kernel", 2, "i32:16", "BLOCK_SIZE=1024", "fabs.s");
    assert_eq!(exp, 2, "copies of `y = tl.exp(x)`");
    let cheap = vector_add_copies("i32:16");
    assert!(cheap > exp, "{cheap} copies of the vector add against {exp} of the exp");
}

#[test]
fn a_body_holding_two_exps_gets_one_copy() {
    // A running maximum and rescaled sum (cross-entropy's update): a loop for the lanes the
    // mask keeps, one copy of its two exps, and one for the lanes it drops, whose two exps
    // are of `-inf - m`. Two copies of the first would make 6.
    let fabs = body_copies("fixtures/online_exp_sum.py", "online_exp_sum", 3, "i32:16", "BLOCK_SIZE=256", "fabs.s");
    assert_eq!(fabs, 4, "`fabs.s` of the exps' range tests");
}
