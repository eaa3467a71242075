//! Compiles one kernel of a Triton file into a riscv64 `.so` (for running fixtures through
//! `tilec run --library` while developing the back end).
//!
//! `cargo run -p tilec-codegen --example fixture_so -- FILE KERNEL SIGNATURE OUT.so [NAME=VALUE...] [--no-opt] [--emit vector|asm]`

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: fixture_so FILE KERNEL SIGNATURE OUT.so [NAME=VALUE...] [--no-opt] [--emit vector|asm]");
        return ExitCode::FAILURE;
    }
    let source = std::fs::read_to_string(&args[0]).expect("readable source");
    let fail = |d: Vec<tilec_diagnostics::Diagnostic>| {
        eprint!("{}", tilec_diagnostics::render(&args[0], &source, &d));
        ExitCode::FAILURE
    };
    let mut optimize = true;
    let mut emit = None;
    let mut constants = Vec::new();
    let mut rest = args[4..].iter();
    while let Some(a) = rest.next() {
        if a == "--no-opt" {
            optimize = false;
        } else if a == "--emit" {
            emit = rest.next().cloned();
        } else if let Some((n, v)) = a.split_once('=') {
            constants.push((n.to_string(), tilec_front::parse_const_value(v)));
        }
    }
    let module = match tilec_syntax::parse(&source) {
        Ok(m) => m,
        Err(d) => return fail(d),
    };
    let signature = match tilec_front::parse_signature(&args[2]) {
        Ok(s) => s,
        Err(ds) => return fail(ds),
    };
    let mut function = match tilec_front::specialize(&module, &args[1], &signature, &constants) {
        Ok(f) => f,
        Err(d) => return fail(d),
    };
    if optimize {
        function = tilec_opt::optimize(&function, &tilec_opt::Options::default()).0;
    }
    let lowered = match tilec_vector::lower(&function) {
        Ok(l) => l,
        Err(d) => return fail(vec![d]),
    };
    if emit.as_deref() == Some("vector") {
        print!("{}", tilec_vector::print_function(&lowered));
    }
    let compiled = match tilec_codegen::compile(&lowered, tilec_codegen::Target::Riscv64gc) {
        Ok(c) => c,
        Err(d) => return fail(vec![d]),
    };
    if emit.as_deref() == Some("asm") {
        print!("{}", compiled.asm);
    }
    match tilec_codegen::link_shared(&compiled.object) {
        Ok(so) => {
            std::fs::write(&args[3], so).expect("writable output");
            ExitCode::SUCCESS
        }
        Err(d) => fail(vec![d]),
    }
}
