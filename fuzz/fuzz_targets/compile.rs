//! The whole compile (front end, optimizer, lowering, Cranelift code generation — no
//! linking) of generated kernels, for both targets: the input's first 8 bytes are the seed;
//! further bytes, if any, mutate the kernel (mutants that fail the front end are skipped).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tilec::{Compiler, ConstValue, Produce, Request, Target};

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let (seed, edits) = data.split_at(8);
    let kernel = tilec_kernelgen::generate(u64::from_le_bytes(seed.try_into().unwrap_or_default()));
    let source = tilec_kernelgen::mutate::mutate(&kernel.source, edits);
    let Ok(signature) = tilec_front::parse_signature(&kernel.signature) else { return };
    let constants: Vec<(String, ConstValue)> =
        kernel.constants.iter().map(|(name, value)| (name.clone(), ConstValue::Int(i128::from(*value)))).collect();
    let request = Request { file_name: "kernel.py", source: &source, kernel: &kernel.name, signature, constants };
    for target in [Target::Riscv64gc, Target::Riscv64gcv] {
        let _ = Compiler::new(target).with_produce(Produce::Object).compile(&request);
    }
});
