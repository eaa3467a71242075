//! Generated kernels are well typed: the front end specializes every kernel of a few hundred
//! seeds, of the core generator and with every feature, without a diagnostic (no toolchain
//! needed; the differential tests then run them).

use tilec_kernelgen::{generate_with, Features};

#[test]
fn generated_kernels_pass_the_front_end() {
    let mut failures = Vec::new();
    let seeds = (0..400).map(|seed| (seed, Features::none())).chain((0..400).map(|seed| (seed, Features::all())));
    for (seed, features) in seeds {
        let kernel = generate_with(seed, &features);
        let module = match tilec_syntax::parse(&kernel.source) {
            Ok(module) => module,
            Err(d) => {
                failures.push(format!("seed {seed}: does not parse: {}\n{}", d[0], kernel.source));
                continue;
            }
        };
        let signature = tilec_front::parse_signature(&kernel.signature).expect("the generator writes valid signatures");
        let constants: Vec<_> = kernel
            .constants
            .iter()
            .map(|(name, value)| (name.clone(), tilec_front::parse_const_value(&value.to_string())))
            .collect();
        if let Err(d) = tilec_front::specialize(&module, &kernel.name, &signature, &constants) {
            failures.push(format!("seed {seed}: {}\n{}", d[0], kernel.source));
        }
    }
    assert!(failures.is_empty(), "{} of 800 kernels are rejected:\n\n{}", failures.len(), failures.join("\n\n"));
}
