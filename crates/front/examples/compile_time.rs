//! Benchmark (not a test): time to parse and specialize each fixture to Tile IR.
//!
//! `cargo run --release -p tilec-front --example compile_time [-- --print] [FIXTURE_DIR]`
//! prints, per fixture, the median of repeated runs; `--print` also prints the IR or the
//! diagnostics (useful while writing fixtures).

use std::path::PathBuf;
use std::time::{Duration, Instant};

struct Job {
    kernel: String,
    signature: Vec<tilec_front::SigItem>,
    constants: Vec<(String, tilec_front::ConstValue)>,
}

/// The specialization of the fixture's first `# tilec:` line.
fn job(path: &std::path::Path) -> Result<Job, String> {
    let fixture = tilec_testkit::Fixture::load(path)?;
    let header = fixture.compile.first().ok_or("no `# tilec:` header")?;
    let signature =
        header.signature_items().map_err(|ds| ds.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n"))?;
    Ok(Job { kernel: header.kernel.clone(), signature, constants: header.constant_values() })
}

fn compile(name: &str, source: &str, job: &Job) -> Result<tilec_ir::Function, String> {
    let module = tilec_syntax::parse(source).map_err(|ds| tilec_diagnostics::render(name, source, &ds))?;
    tilec_front::specialize(&module, &job.kernel, &job.signature, &job.constants)
        .map_err(|ds| tilec_diagnostics::render(name, source, &ds))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let print = args.iter().any(|a| a == "--print");
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures")));
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixture directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    paths.sort();
    let mut total = Duration::ZERO;
    let mut worst = Duration::ZERO;
    for path in &paths {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let source = std::fs::read_to_string(path).expect("fixture source");
        let job = match job(path) {
            Ok(j) => j,
            Err(e) => {
                println!("{name:<32} header error: {e}");
                continue;
            }
        };
        match compile(&name, &source, &job) {
            Ok(f) => {
                if print {
                    println!("{}", tilec_ir::print_function(&f));
                    if let Err(ds) = tilec_ir::verify(&f) {
                        println!("{}", tilec_diagnostics::render(&name, &source, &ds));
                    }
                }
            }
            Err(e) => {
                println!("{name:<32} error\n{e}");
                continue;
            }
        }
        let mut times = Vec::new();
        for _ in 0..25 {
            let start = Instant::now();
            let f = compile(&name, &source, &job);
            times.push(start.elapsed());
            std::hint::black_box(f.is_ok());
        }
        times.sort();
        let median = times[times.len() / 2];
        total += median;
        worst = worst.max(median);
        println!("{name:<32} {:>8.3} ms", median.as_secs_f64() * 1e3);
    }
    println!(
        "{} fixtures, total {:.3} ms, slowest {:.3} ms",
        paths.len(),
        total.as_secs_f64() * 1e3,
        worst.as_secs_f64() * 1e3
    );
}
