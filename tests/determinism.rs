//! The compiler is deterministic: every fixture, compiled for each target twice at the same
//! time on two threads, gives the same text at every stage, the same object and the same
//! shared object, byte for byte (and the same optimizer report, timings aside).

mod support;

use support::{request, Fixture};
use tilec::{Compiler, Output, Target};

/// One compilation: a fixture's header for a target.
struct Job {
    fixture: Fixture,
    header: usize,
    target: Target,
}

impl Job {
    fn name(&self) -> String {
        format!("{} (header {}, {})", self.fixture.name, self.header + 1, self.target.name())
    }
}

/// Everything a compilation produces, by stage name.
fn artifacts(out: &Output) -> Vec<(&'static str, Vec<u8>)> {
    let text = |s: &String| s.as_bytes().to_vec();
    vec![
        ("ast", text(&out.ast)),
        ("tile", text(&out.tile)),
        ("tile-opt", text(&out.tile_opt)),
        ("opt report", out.opt_report.as_ref().map(|r| r.summary()).unwrap_or_default().into_bytes()),
        ("axis", text(&out.axis)),
        ("vector", text(&out.vector)),
        ("asm", text(&out.asm)),
        ("object", out.object.clone()),
        ("shared object", out.shared_object.clone()),
    ]
}

fn compile_all(jobs: &[Job], library_dirs: &[std::path::PathBuf]) -> Vec<Result<Output, String>> {
    jobs.iter()
        .map(|job| {
            let f = &job.fixture;
            let request = request(f, &f.compile[job.header]).map_err(|ds| format!("{ds:?}"))?;
            Compiler::new(job.target)
                .with_library_dirs(library_dirs.to_vec())
                .compile(&request)
                .map_err(|ds| tilec::diagnostics::render(&f.name, &f.source, &ds))
        })
        .collect()
}

#[test]
fn every_fixture_compiles_to_the_same_bytes_twice_in_parallel() {
    let layout = tilec_toolchain::Layout::from_env().unwrap_or_else(|e| panic!("{e}"));
    let library_dirs = vec![layout.sleef_lib_dir()];
    let mut jobs = Vec::new();
    for dir in ["fixtures", "fixtures/math", "fixtures/regressions", "fixtures/limits"] {
        for f in Fixture::all_in(dir) {
            for header in 0..f.compile.len() {
                for target in [Target::Riscv64gc, Target::Riscv64gcv] {
                    jobs.push(Job { fixture: f.clone(), header, target });
                }
            }
        }
    }
    assert!(jobs.len() >= 150, "only {} compilations", jobs.len());
    let (first, second) = std::thread::scope(|s| {
        let a = s.spawn(|| compile_all(&jobs, &library_dirs));
        let b = s.spawn(|| compile_all(&jobs, &library_dirs));
        (a.join().expect("first thread"), b.join().expect("second thread"))
    });
    let mut failures = Vec::new();
    for ((job, a), b) in jobs.iter().zip(first).zip(second) {
        match (a, b) {
            (Ok(a), Ok(b)) => {
                for ((stage, x), (_, y)) in artifacts(&a).into_iter().zip(artifacts(&b)) {
                    if x != y {
                        failures.push(format!("{}: the {stage} differs between the two compilations", job.name()));
                    }
                }
                if a.shared_object.is_empty() {
                    failures.push(format!("{}: no shared object", job.name()));
                }
            }
            (a, b) => failures.push(format!("{}: a compilation failed: {:?} / {:?}", job.name(), a.err(), b.err())),
        }
    }
    assert!(failures.is_empty(), "{} of {} compilations:\n{}", failures.len(), jobs.len(), failures.join("\n"));
}
