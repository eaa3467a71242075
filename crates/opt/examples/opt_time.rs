//! Optimizer time per fixture: `cargo run --release -p tilec-opt --example opt_time`.
//!
//! Specializes every kernel of `fixtures/` as its `# tilec:` header says, then runs the
//! optimizer repeatedly and prints the median and best time per fixture with the size of
//! the IR before and after.

use std::time::{Duration, Instant};

use tilec_testkit::Fixture;

const RUNS: usize = 200;

fn main() {
    println!("{:<24} {:>8} {:>8} {:>8} {:>11} {:>11}", "fixture", "ops", "pure in", "e-nodes", "median", "best");
    for fixture in Fixture::all_in("fixtures") {
        let name = &fixture.name;
        let Some(header) = fixture.compile.first() else {
            println!("{name:<24} no `# tilec:` header");
            continue;
        };
        let function = fixture.specialize(header).unwrap_or_else(|e| panic!("{e}"));
        let options = tilec_opt::Options::default();
        let mut times: Vec<Duration> = Vec::with_capacity(RUNS);
        let mut last = None;
        for _ in 0..RUNS {
            let start = Instant::now();
            let result = tilec_opt::optimize(&function, &options);
            times.push(start.elapsed());
            last = Some(result);
        }
        times.sort();
        if std::env::var_os("OPT_TIME_REPORT").is_some() {
            println!("{}", last.as_ref().expect("at least one run").1);
        }
        let (_, report) = last.expect("at least one run");
        println!(
            "{name:<24} {:>8} {:>8} {:>8} {:>11.3?} {:>11.3?}",
            function.ops.len(),
            report.pure_ops_before,
            report.egraph_nodes,
            times[RUNS / 2],
            times[0]
        );
    }
}
