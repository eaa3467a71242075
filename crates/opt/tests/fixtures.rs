//! Snapshots of the optimized Tile IR (`opt__<fixture>.snap`) of every kernel in
//! `fixtures/`, specialized as its `# tilec:` header says; the verifier runs on the
//! optimizer's output for each; each rule fires only at the operators it is indexed by.

mod support;

use std::path::Path;
use support::*;
use tilec_opt::analysis::Graph;
use tilec_opt::rules::{self, RuleIndex};
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
            let built = tilec_opt::build::build(&rewritten).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let mut egraph = built.egraph;
            assert_rules_fire_at_their_roots(&egraph, file);
            tilec_opt::saturate::saturate(&mut egraph, &rules::all(), &Default::default(), &mut Vec::new());
            assert_rules_fire_at_their_roots(&egraph, file);
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

/// Every rule that fires on a node of `egraph` is indexed at the node's operator: the
/// rewrite runner tries a rule on those nodes only.
fn assert_rules_fire_at_their_roots(egraph: &Graph, file: &Path) {
    let rules = rules::all();
    let index = RuleIndex::new(&rules);
    for class in egraph.classes() {
        for node in &class.nodes {
            for (position, rule) in rules.iter().enumerate() {
                let fires = (rule.func)(egraph, node).is_some();
                assert!(
                    !fires || index.rules_at(&node.op).contains(&position),
                    "{}: {} fires on {:?}, an operator it is not indexed by",
                    file.display(),
                    rule.name,
                    node.op
                );
            }
        }
    }
}
