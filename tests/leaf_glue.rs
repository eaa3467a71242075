//! The scalar code around RVV leaf calls on riscv64gcv: in a kernel whose `for` loops each
//! call one leaf (Triton's layer norm forward: a sum, a sum of squares, the normalization,
//! each a `for off in range(0, N, BLOCK_SIZE)` loop), a loop tests its bound once per
//! iteration, after the call (a rotated loop, its guard outside), with no extension of the
//! counter or the bound, and a sum the leaf returns stays in registers (no scratch store
//! before or after the call).

mod support;

use tilec::Target;
use tilec_testkit::code_size;
use tilec_testkit::workspace_root;

/// The listing of `NAME_grid` of the budget table's kernel `name`, compiled for riscv64gcv,
/// split into its blocks (each the lines after a `blockN:` label).
fn grid_blocks(name: &str) -> Vec<Vec<String>> {
    let cases = code_size::cases().unwrap_or_else(|e| panic!("{e}"));
    let case = cases.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{name} in the budget table"));
    let source =
        std::fs::read_to_string(workspace_root().join(&case.file)).unwrap_or_else(|e| panic!("{}: {e}", case.file));
    let request = support::case_request(case, &source).unwrap_or_else(|ds| panic!("{}: {ds:?}", case.name));
    let output = tilec::Compiler::new(Target::Riscv64gcv)
        .compile(&request)
        .unwrap_or_else(|ds| panic!("{name}: {:?}", ds.iter().map(|d| &d.message).collect::<Vec<_>>()));
    let grid = format!("{}_grid:", case.header.kernel);
    let listing: Vec<&str> = output
        .asm
        .lines()
        .skip_while(|l| *l != grid)
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.trim_start().starts_with("unwind"))
        .collect();
    assert!(!listing.is_empty(), "no {grid} in the listing:\n{}", output.asm);
    let mut blocks: Vec<Vec<String>> = Vec::new();
    for line in listing {
        if line.starts_with("block") && line.ends_with(':') {
            blocks.push(Vec::new());
        } else if let Some(block) = blocks.last_mut() {
            block.push(line.trim().to_string());
        }
    }
    blocks
}

#[test]
fn layer_norm_loops_test_their_bound_once_after_each_leaf_call() {
    let blocks = grid_blocks("layer norm forward");
    let calls: Vec<&Vec<String>> = blocks.iter().filter(|b| b.iter().any(|l| l.starts_with("call "))).collect();
    assert_eq!(calls.len(), 3, "one block per leaf call: {blocks:#?}");
    for block in calls {
        let last = block.last().expect("a block ends in a branch");
        assert!(last.starts_with("blt "), "the bound test ends the iteration, no jump back to a header: {block:#?}");
        let bound_tests = block.iter().filter(|l| l.starts_with('b') && l.contains("taken(")).count();
        assert_eq!(bound_tests, 1, "{block:#?}");
        assert!(!block.iter().any(|l| l.starts_with("sext.w")), "nothing extended again per iteration: {block:#?}");
        assert!(
            !block.iter().any(|l| (l.starts_with("fsw") || l.starts_with("sw")) && l.contains("(slot)")),
            "no scratch store around the call: {block:#?}"
        );
    }
}
