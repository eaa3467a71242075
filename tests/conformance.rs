//! Conformance with the real Triton: every run line of every `fixtures/conformance/*.py`
//! runs on each target (the interpreter, riscv64gc, riscv64gcv at a VLEN cycling by line)
//! and its outputs (the arrays the line creates with `zeros:`) must equal what Triton 3.9.0
//! computed, as committed in `fixtures/conformance/expected/NAME.txt` by `cargo xtask oracle
//! --bless` — bit for bit, unless the fixture declares a tolerance with its reason (a
//! `# tilec-tolerance:` line, see `tilec_testkit::fixture`). Where Triton rejects the kernel,
//! tilec must reject it with a diagnostic too.
//!
//! Known differences are listed in `fixtures/conformance/expected-failures.txt`, each naming
//! the difference of docs/oracle.md it comes from; a listed failure that no longer happens
//! fails the test too, so the list shrinks as the differences are fixed.
//!
//! A missing toolchain fails with a message naming `cargo xtask setup`.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use support::{compare_arrays, run_line, workspace_root, Fixture, HostArray, RunLine};
use tilec_testkit::expected::{Expected, ExpectedArray, RunOutcome};

const FIXTURE_DIR: &str = "fixtures/conformance";
const EXPECTED_FAILURES: &str = "fixtures/conformance/expected-failures.txt";

/// The targets, as `tilec run` flags; `VLEN` is replaced by the line's VLEN.
const TARGETS: [(&str, &[&str]); 3] = [
    ("interp", &["--target", "interp"]),
    ("riscv64gc", &["--target", "riscv64gc"]),
    ("riscv64gcv", &["--target", "riscv64gcv", "--vlen", "VLEN"]),
];

/// One way a target disagrees with Triton.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Disagreement {
    fixture: String,
    /// 1-based run line.
    run: usize,
    /// An output array, `run` (tilec fails where Triton runs) or `accepts` (tilec runs
    /// where Triton rejects).
    what: String,
    target: String,
}

/// A line of the expected-failures list.
#[derive(Debug)]
struct ExpectedFailure {
    line: usize,
    fixture: String,
    /// Inclusive ranges of run lines (`None`: every line).
    runs: Option<Vec<(usize, usize)>>,
    what: Option<String>,
    targets: Option<Vec<String>>,
    text: String,
}

impl ExpectedFailure {
    fn covers(&self, d: &Disagreement) -> bool {
        self.fixture == d.fixture
            && self.runs.as_ref().is_none_or(|runs| runs.iter().any(|(lo, hi)| (*lo..=*hi).contains(&d.run)))
            && self.what.as_ref().is_none_or(|w| *w == d.what)
            && self.targets.as_ref().is_none_or(|t| t.contains(&d.target))
    }
}

fn expected_failures() -> Vec<ExpectedFailure> {
    let path = workspace_root().join(EXPECTED_FAILURES);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut list = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        assert!(words.len() > 4, "{EXPECTED_FAILURES}:{line_no}: expected `FIXTURE RUN OUTPUT TARGETS #N why`");
        let any = |w: &str| w == "*";
        let bad_run = || panic!("{EXPECTED_FAILURES}:{line_no}: bad run lines `{}`", words[1]);
        let runs = (!any(words[1])).then(|| {
            words[1]
                .split(',')
                .map(|part| {
                    let (lo, hi) = part.split_once('-').unwrap_or((part, part));
                    (lo.parse().unwrap_or_else(|_| bad_run()), hi.parse().unwrap_or_else(|_| bad_run()))
                })
                .collect()
        });
        let text = words[4..].join(" ");
        let names_difference = words[4].strip_prefix('#').and_then(|n| n.parse::<u32>().ok()).is_some();
        assert!(names_difference, "{EXPECTED_FAILURES}:{line_no}: the reason must start with the difference's `#N`");
        list.push(ExpectedFailure {
            line: line_no,
            fixture: words[0].to_string(),
            runs,
            what: (!any(words[2])).then(|| words[2].to_string()),
            targets: (!any(words[3])).then(|| words[3].split(',').map(str::to_string).collect()),
            text,
        });
    }
    list
}

/// Runs one line of `fixture` on every target and records the disagreements with `expected`.
fn check_run(
    fixture: &Fixture,
    line: &RunLine,
    index: usize,
    expected: &RunOutcome,
    found: &Mutex<Vec<(Disagreement, String)>>,
) {
    let vlen = ["128", "256", "512", "1024"][index % 4];
    for (target, flags) in TARGETS {
        let flags: Vec<&str> = flags.iter().map(|f| if *f == "VLEN" { vlen } else { f }).collect();
        let outcome = run_line(fixture, line, &flags);
        if let Err(e) = &outcome {
            assert!(!e.contains("panicked"), "{e}");
            assert!(!e.contains("cargo xtask setup"), "the riscv64 toolchain is missing: run `cargo xtask setup`\n{e}");
        }
        let disagree = |what: &str, detail: String| {
            let d = Disagreement {
                fixture: fixture.name.clone(),
                run: index + 1,
                what: what.into(),
                target: target.into(),
            };
            found.lock().unwrap().push((d, detail));
        };
        let arrays = match expected {
            RunOutcome::Rejected(error) => {
                if outcome.is_ok() {
                    disagree("accepts", format!("Triton rejects the kernel ({error}), tilec runs it"));
                }
                continue;
            }
            RunOutcome::Outputs(arrays) => arrays,
        };
        let out = match outcome {
            Ok(out) => out,
            Err(e) => {
                let first = e.lines().take(2).collect::<Vec<_>>().join(" ");
                disagree("run", format!("Triton runs the kernel, tilec fails: {first}"));
                continue;
            }
        };
        for want in arrays {
            let got = out.read_npy(&want.name);
            if let Err(e) = compare_arrays(&want.name, &got, &host_array(want), &fixture.tolerance(&want.name)) {
                disagree(&want.name, e);
            }
        }
    }
}

/// Triton's output as an array.
fn host_array(want: &ExpectedArray) -> HostArray {
    let dtype = tilec_ir::ScalarType::from_name(&want.dtype)
        .unwrap_or_else(|| panic!("`{}`: unknown dtype {}", want.name, want.dtype));
    let mut array = HostArray::zeros(dtype, &want.shape).unwrap_or_else(|e| panic!("`{}`: {e}", want.name));
    for (i, value) in want.values.iter().enumerate() {
        array.set(i as u64, *value);
    }
    array
}

#[test]
fn conformance_fixtures_match_triton() {
    let fixtures = Fixture::all_in(FIXTURE_DIR);
    assert!(!fixtures.is_empty(), "no fixtures in {FIXTURE_DIR}");
    let mut work = Vec::new();
    for fixture in &fixtures {
        let path = workspace_root().join(FIXTURE_DIR).join("expected").join(format!("{}.txt", fixture.name));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {} ({e}): run `cargo xtask oracle --bless`", path.display()));
        let expected = Expected::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            expected.runs.iter().map(|r| r.run.clone()).collect::<Vec<_>>(),
            fixture.runs.iter().map(|r| r.args.join(" ")).collect::<Vec<_>>(),
            "{} does not hold the run lines of {}: run `cargo xtask oracle --bless`",
            path.display(),
            fixture.path.display()
        );
        for (i, run) in expected.runs.into_iter().enumerate() {
            work.push((fixture, i, run.outcome));
        }
    }
    let found = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some((fixture, index, outcome)) = work.get(i) else { break };
                check_run(fixture, &fixture.runs[*index], *index, outcome, &found);
            });
        }
    });
    let details: BTreeMap<Disagreement, String> = found.into_inner().unwrap().into_iter().collect();
    let found: BTreeSet<Disagreement> = details.keys().cloned().collect();
    let list = expected_failures();
    let unexpected: Vec<&Disagreement> = found.iter().filter(|d| !list.iter().any(|e| e.covers(d))).collect();
    let passing: Vec<&ExpectedFailure> = list.iter().filter(|e| !found.iter().any(|d| e.covers(d))).collect();
    eprintln!(
        "{} run lines of {} fixtures on {} targets: {} disagreements with Triton, {} of them listed as expected",
        work.len(),
        fixtures.len(),
        TARGETS.len(),
        found.len(),
        found.len() - unexpected.len()
    );
    let mut message = String::new();
    for d in &unexpected {
        let detail = details.get(*d).map_or("", String::as_str);
        message.push_str(&format!("unexpected: {} run {} {} on {}: {detail}\n", d.fixture, d.run, d.what, d.target));
    }
    for e in &passing {
        message.push_str(&format!(
            "passes now: {EXPECTED_FAILURES}:{} ({} {}): delete the line\n",
            e.line, e.fixture, e.text
        ));
    }
    assert!(message.is_empty(), "{message}");
}
