//! Prints the kernel (with its header lines) of each seed given:
//! `cargo run -p tilec-kernelgen --example kgen -- [--all] SEED...` (`--all`: every
//! generator feature, as `cargo xtask oracle batch` uses them; else the core generator).
fn main() {
    let mut features = tilec_kernelgen::Features::none();
    for arg in std::env::args().skip(1) {
        if arg == "--all" {
            features = tilec_kernelgen::Features::all();
            continue;
        }
        match arg.parse::<u64>() {
            Ok(seed) => print!("{}", tilec_kernelgen::generate_with(seed, &features).source),
            Err(_) => eprintln!("not a seed: {arg}"),
        }
    }
}
