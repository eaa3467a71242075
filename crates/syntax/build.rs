//! Generates the parser from `grammar/triton.lalrpop` into `OUT_DIR/triton.rs`.

fn main() {
    // Read at run time (not with `env!`): a build script binary may be shared by checkouts
    // at different paths that use the same target directory.
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_string());
    let grammar_dir = std::path::Path::new(&manifest_dir).join("../../grammar");
    println!("cargo:rerun-if-changed={}", grammar_dir.join("triton.lalrpop").display());
    if let Err(error) = lalrpop::Configuration::new().set_in_dir(&grammar_dir).emit_rerun_directives(true).process() {
        eprintln!("lalrpop failed on {}: {error}", grammar_dir.display());
        std::process::exit(1);
    }
}
