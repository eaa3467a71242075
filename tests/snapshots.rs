//! Every fixture under `fixtures/` compiled to Tile IR through the facade, verified and
//! snapshotted (`snapshots/tile__<fixture>.snap`).

#[path = "support/fixture.rs"]
mod fixture;

use tilec::{Compiler, Request, Target};

fn compile_fixture(f: &fixture::Fixture, header: &fixture::CompileHeader) -> Result<String, String> {
    let signature = tilec_front::parse_signature(&header.signature)
        .map_err(|d| tilec::diagnostics::render(&f.name, &f.source, &[d]))?;
    let constants = header.constants.iter().map(|(k, v)| (k.clone(), tilec_front::parse_const_value(v))).collect();
    let request = Request { file_name: &f.name, source: &f.source, kernel: &header.kernel, signature, constants };
    let out = Compiler::new(Target::Riscv64gc)
        .compile_tile(&request)
        .map_err(|ds| tilec::diagnostics::render(&f.name, &f.source, &ds))?;
    let function = out.function.as_ref().ok_or("no function")?;
    tilec::ir::verify(function).map_err(|ds| {
        format!("verifier rejected {}:\n{}\n{}", f.name, tilec::diagnostics::render(&f.name, &f.source, &ds), out.tile)
    })?;
    Ok(out.tile)
}

#[test]
fn tile_ir_of_every_fixture() {
    let fixtures = fixture::fixtures_in("fixtures");
    assert!(fixtures.len() >= 25, "expected at least 25 fixtures, found {}", fixtures.len());
    let mut failures = Vec::new();
    for f in &fixtures {
        assert!(!f.compile.is_empty(), "{} has no `# tilec:` header", f.name);
        let mut text = String::new();
        for h in &f.compile {
            match compile_fixture(f, h) {
                Ok(tile) => text.push_str(&tile),
                Err(e) => failures.push(format!("{}:\n{e}", f.name)),
            }
        }
        if text.is_empty() {
            continue;
        }
        insta::with_settings!({
            snapshot_path => fixture::workspace_root().join("snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(format!("tile__{}", f.name), text);
        });
    }
    assert!(failures.is_empty(), "fixtures that failed to compile:\n{}", failures.join("\n"));
}
