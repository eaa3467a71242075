//! Optimizer time per fixture: `cargo run --release -p tilec-opt --example opt_time`.
//!
//! Specializes every kernel of `fixtures/` as its `# tilec:` header says, then runs the
//! optimizer repeatedly and prints the median and best time per fixture with the size of
//! the IR before and after.

use std::path::Path;
use std::time::{Duration, Instant};

const RUNS: usize = 200;

fn header_args(line: &str) -> Option<(String, String, Vec<(String, String)>)> {
    let rest = line.trim().strip_prefix("# tilec:")?;
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for ch in rest.chars() {
        match ch {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    let (mut kernel, mut signature, mut constants) = (String::new(), String::new(), Vec::new());
    for pair in words.chunks(2) {
        let value = pair.get(1).cloned().unwrap_or_default();
        match pair[0].as_str() {
            "-k" => kernel = value,
            "-s" => signature = value,
            "-c" => {
                for item in value.split(',') {
                    let (n, v) = item.split_once('=')?;
                    constants.push((n.to_string(), v.to_string()));
                }
            }
            _ => return None,
        }
    }
    Some((kernel, signature, constants))
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    println!("{:<24} {:>8} {:>8} {:>8} {:>11} {:>11}", "fixture", "ops", "pure in", "e-nodes", "median", "best");
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        let source = std::fs::read_to_string(&file).expect("fixture");
        let Some((kernel, signature, constants)) = source.lines().find_map(header_args) else {
            println!("{name:<24} no `# tilec:` header");
            continue;
        };
        let function = tilec_syntax::parse(&source).ok().and_then(|module| {
            let sig = tilec_front::parse_signature(&signature).ok()?;
            let consts: Vec<_> =
                constants.iter().map(|(n, v)| (n.clone(), tilec_front::parse_const_value(v))).collect();
            tilec_front::specialize(&module, &kernel, &sig, &consts).ok()
        });
        let Some(function) = function else {
            println!("{name:<24} does not specialize");
            continue;
        };
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
        let (_, report) = last.expect("at least one run");
        println!(
            "{name:<24} {:>8} {:>8} {:>8} {:>11.3?} {:>11.3?}",
            function.ops.len(),
            report.pure_ops_before,
            report.egraph_nodes,
            times[RUNS / 2],
            times[0]
        );
        let _ = report.elab.pure_ops;
    }
}
