//! Snapshots of the optimized Tile IR (`opt__<fixture>.snap`) of every kernel in
//! `fixtures/`, specialized as its `# tilec:` header says; the verifier runs on the
//! optimizer's output for each.

mod support;

use std::path::{Path, PathBuf};
use support::*;

fn fixture_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    files
}

#[test]
fn optimized_ir_of_every_fixture() {
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../snapshots");
    for file in fixture_files() {
        let stem = file.file_stem().and_then(|s| s.to_str()).expect("utf-8 file name").to_string();
        let source = std::fs::read_to_string(&file).expect("readable fixture");
        let headers = compile_headers(&source);
        assert!(!headers.is_empty(), "{} has no `# tilec:` header", file.display());
        for (i, header) in headers.iter().enumerate() {
            let f = specialize_source(&source, header);
            let mut rewritten = f.clone();
            tilec_opt::carried::rewrite(&mut rewritten);
            if let Err(errors) = tilec_ir::verify(&rewritten) {
                panic!("{}: the loop-carried rules break the IR: {errors:?}", file.display());
            }
            let (text, _) = optimize_checked(&f);
            let name = if i == 0 { format!("opt__{stem}") } else { format!("opt__{stem}_{}", i + 1) };
            insta::with_settings!({
                snapshot_path => &snapshots,
                prepend_module_to_snapshot => false,
                omit_expression => true,
                description => format!("tilec compile --emit tile-opt {}", file.file_name().unwrap().to_string_lossy()),
            }, {
                insta::assert_snapshot!(name, text);
            });
        }
    }
}

#[test]
fn header_words_respect_quotes() {
    let headers = compile_headers("# tilec: -k add_kernel -s \"*fp32:16, i32\" -c BLOCK_SIZE=1024 -c A=1,B=2\n");
    assert_eq!(
        headers,
        vec![CompileHeader {
            kernel: "add_kernel".into(),
            signature: "*fp32:16, i32".into(),
            constants: vec![("BLOCK_SIZE".into(), "1024".into()), ("A".into(), "1".into()), ("B".into(), "2".into())],
        }]
    );
}
