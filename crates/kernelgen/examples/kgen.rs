//! Prints the kernel of each seed given: `cargo run -p tilec-kernelgen --example kgen -- SEED...`.
fn main() {
    for seed in std::env::args().skip(1) {
        match seed.parse::<u64>() {
            Ok(seed) => print!("{}", tilec_kernelgen::generate(seed).source),
            Err(_) => eprintln!("not a seed: {seed}"),
        }
    }
}
