//! Generates the parser from `grammar/triton.lalrpop` into `OUT_DIR/triton.rs`.

fn main() {
    let grammar_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../grammar");
    println!("cargo:rerun-if-changed={}", grammar_dir.join("triton.lalrpop").display());
    if let Err(error) = lalrpop::Configuration::new().set_in_dir(&grammar_dir).emit_rerun_directives(true).process() {
        eprintln!("lalrpop failed: {error}");
        std::process::exit(1);
    }
}
