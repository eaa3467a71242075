//! Every kernel in `fixtures/`, specialized as its `# tilec:` headers say and optimized,
//! lowers to Vector IR (snapshotted as `snapshots/vector__<fixture>.snap`), compiles to a
//! riscv64 object with the kernel and launcher symbols, and links into a shared object.

use tilec_testkit::{workspace_root, CompileHeader, Fixture};

fn specialize(f: &Fixture, h: &CompileHeader) -> tilec_ir::Function {
    let function = f.specialize(h).unwrap_or_else(|e| panic!("{e}"));
    tilec_opt::optimize(&function, &tilec_opt::Options::default()).0
}

#[test]
fn every_fixture_lowers_compiles_and_links() {
    let snapshots = workspace_root().join("snapshots");
    for f in Fixture::all_in("fixtures") {
        for (i, header) in f.compile.iter().enumerate() {
            let function = specialize(&f, header);
            let lowered = tilec_vector::lower(&function)
                .unwrap_or_else(|d| panic!("{}: {}", f.name, tilec_diagnostics::render(&f.name, &f.source, &[d])));
            let text = tilec_vector::print_function(&lowered);
            let name = if i == 0 { format!("vector__{}", f.name) } else { format!("vector__{}_{}", f.name, i + 1) };
            insta::with_settings!({
                snapshot_path => &snapshots,
                prepend_module_to_snapshot => false,
                omit_expression => true,
                description => format!("tilec compile --emit vector fixtures/{}.py (header {})", f.name, i + 1),
            }, {
                insta::assert_snapshot!(name, text);
            });
            let compiled = tilec_codegen::compile(&lowered, tilec_codegen::Target::Riscv64gc)
                .unwrap_or_else(|d| panic!("{}: {d}", f.name));
            // A nested kernel (`test_add.kernel`) is compiled under its plain name.
            let launch = format!("{}_launch", header.kernel.rsplit('.').next().unwrap_or(&header.kernel));
            assert!(compiled.asm.contains(&format!("\n{launch}:")), "{}: no launcher in\n{}", f.name, compiled.asm);
            let so = tilec_codegen::link_shared(&compiled.object).unwrap_or_else(|d| panic!("{}: {d}", f.name));
            assert_eq!(&so[..4], b"\x7fELF", "{}", f.name);
            assert!(so.windows(launch.len() + 1).any(|w| w == format!("{launch}\0").as_bytes()), "{}", f.name);
        }
    }
}
