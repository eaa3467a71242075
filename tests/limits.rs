//! A kernel that never ends: the interpreter stops the program at its step limit with an
//! error naming the op and the program, and a compiled run is killed after `--timeout`
//! seconds; both exit non-zero with a clear message, never hang. The kernel is
//! `fixtures/limits/endless_while.py`: with `x = [n, 0]`, program 1 never ends.

mod support;

use std::time::{Duration, Instant};

use support::{tilec, workspace_root, HostArray, Number, TempDir};

fn run_endless(target: &[&str]) -> (support::Outcome, Duration) {
    let dir = TempDir::new("limits");
    let file = workspace_root().join("fixtures/limits/endless_while.py").display().to_string();
    let input = dir.join("x.npy");
    let mut array = HostArray::zeros(tilec_ir::ScalarType::I32, &[2]).expect("a small array");
    array.set(0, Number::Int(7));
    array.write_npy(&input).expect("write x.npy");
    let x_arg = format!("x_ptr=@{}", input.display());
    let mut args = vec!["run", file.as_str(), "-k", "spin", "--grid", "2", x_arg.as_str(), "n=7"];
    args.extend_from_slice(target);
    let started = Instant::now();
    let outcome = tilec(&args, &[]);
    (outcome, started.elapsed())
}

#[test]
fn the_interpreter_stops_a_program_at_its_step_limit() {
    let (outcome, _) = run_endless(&["--target", "interp"]);
    outcome.assert_fails_with(&["error[E0956]", "steps without finishing", "(program (1, 0, 0))", "never ends"]);
    // the op is named in the message and the source line is shown
    assert!(outcome.stderr.contains("`%"), "no op named:\n{}", outcome.stderr);
    assert!(outcome.stderr.contains("while i < n") || outcome.stderr.contains("i = (i + 1) % n"), "{}", outcome.stderr);
}

#[test]
fn a_compiled_run_is_killed_after_its_timeout() {
    for target in [&["--target", "riscv64gc"][..], &["--target", "riscv64gcv", "--vlen", "128"][..]] {
        let mut args = target.to_vec();
        args.extend_from_slice(&["--timeout", "2"]);
        let (outcome, elapsed) = run_endless(&args);
        outcome.assert_fails_with(&[
            "error[E1010]",
            "kernel `spin` did not finish within 2 s",
            "was killed",
            "--timeout",
        ]);
        // compiling takes a moment; the run itself stops after two seconds, not ten minutes
        assert!(elapsed < Duration::from_secs(60), "{} took {elapsed:?}", outcome.command);
    }
}

#[test]
fn the_timeout_must_be_a_positive_number_of_seconds() {
    let (outcome, _) = run_endless(&["--target", "riscv64gc", "--timeout", "0"]);
    outcome.assert_fails_with(&["--timeout"]);
}
