//! The front end on generated kernels mutated at the token level: the first 8 bytes pick the
//! kernel, the rest drive `tilec_kernelgen::mutate`. Whatever parses is specialized with the
//! kernel's signature and constants; it must succeed or yield diagnostics, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tilec_front::ConstValue;

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let (seed, edits) = data.split_at(8);
    let kernel = tilec_kernelgen::generate(u64::from_le_bytes(seed.try_into().unwrap_or_default()) % 1_000_000);
    let source = tilec_kernelgen::mutate::mutate(&kernel.source, edits);
    let Ok(module) = tilec_syntax::parse(&source) else { return };
    let Ok(signature) = tilec_front::parse_signature_for(&module, &kernel.name, &kernel.signature) else { return };
    let constants: Vec<(String, ConstValue)> =
        kernel.constants.iter().map(|(name, value)| (name.clone(), ConstValue::Int(i128::from(*value)))).collect();
    if let Ok(function) = tilec_front::specialize(&module, &kernel.name, &signature, &constants) {
        let _ = tilec_ir::print_function(&function);
    }
});
