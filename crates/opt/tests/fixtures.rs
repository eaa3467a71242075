//! Snapshots of the optimized Tile IR (`opt__<fixture>.snap`) of every kernel in
//! `fixtures/`, specialized as its `# tilec:` header says; the verifier runs on the
//! optimizer's output for each.

mod support;

use std::path::Path;
use support::*;
use tilec_testkit::Fixture;

#[test]
fn optimized_ir_of_every_fixture() {
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../snapshots");
    for fixture in Fixture::all_in("fixtures") {
        let (stem, file) = (&fixture.name, &fixture.path);
        assert!(!fixture.compile.is_empty(), "{} has no `# tilec:` header", file.display());
        for (i, header) in fixture.compile.iter().enumerate() {
            let f = fixture.specialize(header).unwrap_or_else(|e| panic!("{e}"));
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
