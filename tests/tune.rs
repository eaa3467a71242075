//! Autotuning: `tilec tune`, `tilec run` of an autotuned kernel, and `Kernel::tune`.
//! Instruction counts need the counting qemu and plugin of `cargo xtask setup`; a missing
//! tool fails the test with that command.

mod support;

use std::path::Path;

use support::{tilec, workspace_root, HostArray, Number, TempDir};

const SCALE: &str = "fixtures/tune/scale.py";
const ACCUMULATE: &str = "fixtures/tune/accumulate.py";

/// A kernel cache of its own in `dir` (so no choice from an earlier run is found) that
/// reaches the set-up toolchain through a symbolic link: the environment for `tilec`.
fn own_cache(dir: &TempDir) -> String {
    let root = dir.join("cache");
    std::fs::create_dir_all(&root).unwrap();
    let layout = tilec_toolchain::Layout::from_env().expect("a cache root");
    std::os::unix::fs::symlink(layout.toolchain_dir(), root.join("toolchain")).unwrap();
    root.display().to_string()
}

/// A row of the table `tilec tune` prints: the config's label, its measure or why it failed.
type Row = (String, Result<String, String>);

/// The rows of the table `tilec tune` printed, and the chosen label.
fn table(stdout: &str) -> (Vec<Row>, String) {
    let mut rows = Vec::new();
    let mut chosen = None;
    for line in stdout.lines().filter(|l| l.starts_with("  BLOCK=")) {
        let line = line.trim();
        let (label, rest) = line.split_once(' ').unwrap();
        let rest = rest.trim();
        let outcome = match rest.strip_prefix("-  failed: ") {
            Some(why) => Err(why.to_string()),
            None => Ok(rest.trim_end_matches("chosen").trim().to_string()),
        };
        if rest.ends_with("chosen") {
            chosen = Some(label.to_string());
        }
        rows.push((label.to_string(), outcome));
    }
    (rows, chosen.expect("a chosen row"))
}

fn scale_args(n: u32) -> Vec<String> {
    vec![format!("x_ptr=arange:fp32:{n}"), format!("y_ptr=zeros:fp32:{n}"), format!("n={n}"), "alpha=0.5".into()]
}

/// `DIR/NAME.npy`.
fn read_npy(dir: &Path, name: &str) -> HostArray {
    HostArray::read_npy(&dir.join(format!("{name}.npy"))).unwrap_or_else(|e| panic!("{e}"))
}

fn assert_scaled(dir: &Path, n: u64) {
    let y = read_npy(dir, "y_ptr");
    assert_eq!(y.len(), n);
    for i in 0..n {
        assert_eq!(y.get(i), Number::Float(i as f64 * 0.5), "y[{i}]");
    }
}

/// With n = 256 every config does the same per-element work and a larger block runs fewer
/// programs: BLOCK=256 executes the fewest instructions, then 64, then 16. BLOCK=48 does
/// not compile and is reported, not fatal.
#[test]
fn tune_chooses_the_config_with_the_fewest_instructions() {
    let dir = TempDir::new("tune-fewest");
    let out = dir.join("out").display().to_string();
    let mut args = vec!["tune", SCALE, "-k", "scale", "--grid", "cdiv(n, BLOCK)", "--out", &out];
    let scale = scale_args(256);
    args.extend(scale.iter().map(String::as_str));
    let outcome = tilec(&args, &[]);
    outcome.assert_success();
    let (rows, chosen) = table(&outcome.stdout);
    let labels: Vec<&str> = rows.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels, ["BLOCK=16", "BLOCK=48", "BLOCK=256", "BLOCK=64"], "{}", outcome.stdout);
    let count = |label: &str| {
        let measure = rows.iter().find(|(l, _)| l == label).unwrap().1.clone().unwrap();
        measure.parse::<u64>().unwrap_or_else(|_| panic!("{label}: `{measure}` is not a count"))
    };
    assert!(count("BLOCK=256") < count("BLOCK=64") && count("BLOCK=64") < count("BLOCK=16"), "{}", outcome.stdout);
    assert!(rows[1].1.as_ref().unwrap_err().contains("must be a power of two"), "{}", outcome.stdout);
    assert_eq!(chosen, "BLOCK=256");
    assert!(outcome.stdout.contains("instructions of the launch under qemu"), "{}", outcome.stdout);
    assert!(outcome.stderr.contains("num_warps, num_stages, ...) are ignored"), "{}", outcome.stderr);
    assert_scaled(&dir.join("out"), 256);

    // Counts are deterministic: the same tuning gives the same table.
    let again = tilec(&args, &[]);
    again.assert_success();
    assert_eq!(table(&again.stdout).0, rows);
}

/// `tilec run` without the tuned constexpr uses the choice `tilec tune` remembered for the
/// same key value, and tunes (then remembers) for a new one.
#[test]
fn run_reuses_the_remembered_choice_and_tunes_a_new_key() {
    let dir = TempDir::new("tune-remember");
    let cache = own_cache(&dir);
    let env = [("TILEC_CACHE", cache.as_str()), ("TILEC_ALWAYS_COMPILE", "0")];
    let tune_args = |n: u32| {
        let mut args: Vec<String> =
            ["tune", SCALE, "-k", "scale", "--grid", "cdiv(n, BLOCK)"].iter().map(|s| s.to_string()).collect();
        args.extend(scale_args(n));
        args
    };
    let run_args = |n: u32, out: &str| {
        let mut args: Vec<String> = ["run", SCALE, "-k", "scale", "--grid", "cdiv(n, BLOCK)", "--out", out]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(scale_args(n));
        args
    };
    let call = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let outcome = tilec(&args, &env);
        outcome.assert_success();
        outcome
    };
    let tuned = call(tune_args(256));
    assert!(tuned.stdout.contains("chosen: BLOCK=256 (remembered in the kernel cache)"), "{}", tuned.stdout);

    let out = dir.join("run256").display().to_string();
    let reused = call(run_args(256, &out));
    assert!(
        reused.stderr.contains("`scale` uses the remembered config BLOCK=256 for key (n=256)"),
        "{}",
        reused.stderr
    );
    assert!(!reused.stderr.contains("instructions") && !reused.stderr.contains("tuning"), "{}", reused.stderr);
    assert!(reused.stdout.contains("grid (1, 1, 1)"), "the grid follows the chosen BLOCK: {}", reused.stdout);
    assert_scaled(&dir.join("run256"), 256);

    let out = dir.join("run100").display().to_string();
    let retuned = call(run_args(100, &out));
    assert!(
        retuned.stderr.contains("`scale` has no remembered config for key (n=100): tuning 4 configs"),
        "{}",
        retuned.stderr
    );
    assert!(retuned.stderr.contains("autotune: chose BLOCK="), "{}", retuned.stderr);
    assert_scaled(&dir.join("run100"), 100);

    let out = dir.join("run100b").display().to_string();
    let reused = call(run_args(100, &out));
    assert!(reused.stderr.contains("uses the remembered config BLOCK="), "{}", reused.stderr);
}

/// The sums `accumulate` leaves in `out_ptr` after one launch over `x = 0, 1, ..., n-1`.
fn accumulated(n: i64) -> Vec<Number> {
    (0..4).map(|j| Number::Int((0..n).filter(|i| i % 4 == j).sum())).collect()
}

/// `reset_to_zero=['out_ptr']`: out_ptr is given as 0, 1, 2, 3 but every launch starts from
/// it zeroed, and the results are one launch's (not the sum of every measured launch).
#[test]
fn reset_to_zero_leaves_one_launch_of_the_chosen_config() {
    for target in ["riscv64gc", "host"] {
        let dir = TempDir::new("tune-reset");
        let out = dir.join("out").display().to_string();
        let args = [
            "tune",
            ACCUMULATE,
            "-k",
            "accumulate",
            "--grid",
            "cdiv(n, BLOCK)",
            "--target",
            target,
            "--out",
            &out,
            "x_ptr=arange:i32:200",
            "out_ptr=arange:i32:4",
            "n=200",
        ];
        let outcome = tilec(&args, &[]);
        outcome.assert_success();
        let (rows, _) = table(&outcome.stdout);
        assert!(rows.iter().all(|(_, r)| r.is_ok()), "{}", outcome.stdout);
        let sums = read_npy(&dir.join("out"), "out_ptr");
        assert_eq!((0..4).map(|j| sums.get(j)).collect::<Vec<_>>(), accumulated(200), "{target}");

        // `tilec run` that tunes zeroes out_ptr before its launch, as Triton does after tuning.
        let run_out = dir.join("run").display().to_string();
        let mut run = args.to_vec();
        run[0] = "run";
        run[9] = &run_out;
        tilec(&run, &[]).assert_success();
        let sums = read_npy(&dir.join("run"), "out_ptr");
        assert_eq!((0..4).map(|j| sums.get(j)).collect::<Vec<_>>(), accumulated(200), "run on {target}");
    }
}

/// `Kernel::tune` on riscv64gc measures like `tilec tune` and returns the chosen kernel.
#[test]
fn library_tune_chooses_and_launches() {
    let source = std::fs::read_to_string(workspace_root().join(SCALE)).unwrap();
    let x: Vec<f32> = (0..256).map(|i| i as f32).collect();
    let mut y = vec![0f32; 256];
    let tuned = tilec::Kernel::from_source("scale.py", &source, "scale")
        .signature("*fp32:16, *fp32:16, i32, fp32")
        .unwrap()
        .cache(None)
        .tune(
            &tilec::Target::riscv64gc(),
            |config| {
                let tilec::ConstValue::Int(block) = config.constants[0].1 else { panic!("an int") };
                [256u32.div_ceil(block as u32), 1, 1]
            },
            &mut [(&x).into(), (&mut y).into(), 256.into(), 0.5f32.into()],
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tuned.config().label(), "BLOCK=256", "{}", tuned.report().table());
    assert_eq!(tuned.report().metric, tilec::tune::Metric::Instructions);
    assert!(y.iter().enumerate().all(|(i, &v)| v == i as f32 * 0.5));
    let mut again = vec![0f32; 256];
    tuned.kernel().launch([1, 1, 1], &mut [(&x).into(), (&mut again).into(), 256.into(), 0.5f32.into()]).unwrap();
    assert_eq!(again, y);
}

/// A kernel with an autotune decorator of `decorator`, written into `dir`.
fn decorated(dir: &TempDir, decorator: &str) -> String {
    let source = format!(
        "import triton\nimport triton.language as tl\n\n\
         def get_configs():\n    return [triton.Config({{'BLOCK': 32}})]\n\n\
         {decorator}\n@triton.jit\n\
         def fill(out_ptr, n, BLOCK: tl.constexpr):\n\
         \x20   offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n\
         \x20   tl.store(out_ptr + offs, offs, mask=offs < n)\n"
    );
    dir.write("fill.py", &source)
}

fn tune_fill(file: &str, extra: &[&str]) -> support::Outcome {
    let mut args = vec!["tune", file, "-k", "fill", "--grid", "cdiv(n, BLOCK)", "--target", "host"];
    args.extend_from_slice(extra);
    args.extend(["out_ptr=zeros:i32:100", "n=100"]);
    tilec(&args, &[])
}

#[test]
fn bad_autotune_use_is_reported() {
    let dir = TempDir::new("tune-errors");
    for (decorator, extra, expected) in [
        ("@triton.autotune(configs=[], key=['n'])", &[][..], &["E1040", "has no configs"][..]),
        (
            "@triton.autotune(configs=get_configs(), key=['n'])",
            &[],
            &["E1040", "made by host code", "get_configs()", "--config"],
        ),
        (
            "@triton.autotune(configs=[triton.Config({'BLOCK': 32})], key=['m'])",
            &[],
            &["E1040", "`key` names `m`, which is not a parameter of `fill`", "out_ptr, n, BLOCK"],
        ),
        (
            "@triton.autotune(configs=[triton.Config({'BLOCK': 3}), triton.Config({'BLOCK': 5})], key=['n'])",
            &[],
            &["E1041", "every autotune config failed", "BLOCK=3", "BLOCK=5", "power of two"],
        ),
        (
            "@triton.autotune(configs=[triton.Config({'BLOCK': 32}, pre_hook=init)], key=['n'])",
            &[],
            &["E1040", "`pre_hook` is host Python"],
        ),
        (
            "@triton.autotune(configs=[triton.Config({'BLOCK': 32})], key=['n'], reset_to_zero=['nope'])",
            &[],
            &["E1040", "`reset_to_zero` names `nope`"],
        ),
        (
            "@triton.autotune(configs=[triton.Config({'BLOCK': 32})], key=['n'], reset_to_zero=['n'])",
            &[],
            &["E1040", "not an array argument"],
        ),
        (
            "@triton.autotune(configs=[triton.Config({'BLOCK': 32})], key=['n'])",
            &["BLOCK=32"],
            &["E1040", "set by the autotune configs"],
        ),
        ("", &[], &["E1040", "has no `@triton.autotune` decorator"]),
    ] {
        let file = decorated(&dir, decorator);
        tune_fill(&file, extra).assert_fails_with(expected);
    }
    let file = decorated(&dir, "@triton.autotune(configs=[triton.Config({'BLOCK': 32})], key=['n'])");
    let interp = tilec(
        &["tune", &file, "-k", "fill", "--grid", "1", "--target", "interp", "out_ptr=zeros:i32:100", "n=100"],
        &[],
    );
    interp.assert_fails_with(&["E1040", "measures machine code"]);
}

/// Configs made by host code are given with `--config`; `prune_configs_by` and Triton's
/// timing options are accepted with a warning saying why they do nothing.
#[test]
fn host_made_configs_and_pruning_are_handled() {
    let dir = TempDir::new("tune-host-configs");
    let file = decorated(
        &dir,
        "@triton.autotune(configs=get_configs(), key=['n'], prune_configs_by={'early_config_prune': prune, 'top_k': 2}, warmup=5)",
    );
    let outcome = tune_fill(&file, &["--config", "BLOCK=16", "--config", "BLOCK=64"]);
    outcome.assert_success();
    let (rows, _) = table(&outcome.stdout);
    assert_eq!(rows.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(), ["BLOCK=16", "BLOCK=64"]);
    assert!(outcome.stdout.contains("median wall time of 5 launches"), "{}", outcome.stdout);
    assert!(outcome.stderr.contains("`prune_configs_by` is not applied"), "{}", outcome.stderr);
    assert!(outcome.stderr.contains("`warmup` is ignored"), "{}", outcome.stderr);

    // a config whose value host code computes (`'BLOCK': pick()`) is left out, the others tuned
    let file = decorated(
        &dir,
        "@triton.autotune(configs=[triton.Config({'BLOCK': 32}), triton.Config({'BLOCK': pick()})], key=['n'])",
    );
    let outcome = tune_fill(&file, &[]);
    outcome.assert_success();
    let (rows, chosen) = table(&outcome.stdout);
    assert_eq!((rows.len(), chosen.as_str()), (1, "BLOCK=32"), "{}", outcome.stdout);
    assert!(outcome.stderr.contains("autotune config 2 is left out"), "{}", outcome.stderr);
}
