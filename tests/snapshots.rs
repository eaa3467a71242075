//! Every fixture under `fixtures/` compiled to Tile IR through the facade, verified and
//! snapshotted (`snapshots/tile__<fixture>.snap`).

mod support;

use support::{request, workspace_root, CompileHeader, Fixture};
use tilec::{Compiler, Target};

fn compile_fixture(f: &Fixture, header: &CompileHeader) -> Result<String, String> {
    let request = request(f, header).map_err(|ds| tilec::diagnostics::render(&f.name, &f.source, &ds))?;
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
    let fixtures = Fixture::all_in("fixtures");
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
            snapshot_path => workspace_root().join("snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(format!("tile__{}", f.name), text);
        });
    }
    assert!(failures.is_empty(), "fixtures that failed to compile:\n{}", failures.join("\n"));
}

/// Compiles fixture `name` (its first header) up to the Tile IR, optimized as by default.
fn compile_fixture_named(name: &str) -> (Fixture, tilec::Output) {
    let f = Fixture::named("fixtures", name);
    let header = f.compile.first().unwrap_or_else(|| panic!("{name} has no `# tilec:` header")).clone();
    let request = request(&f, &header).expect("fixture signature parses");
    let out = Compiler::new(Target::Riscv64gc)
        .with_produce(tilec::Produce::Tile)
        .compile(&request)
        .unwrap_or_else(|ds| panic!("{}", tilec::diagnostics::render(&f.name, &f.source, &ds)));
    (f, out)
}

/// `tilec compile --emit axis` of fixtures covering `:16` pointers, `% M` offsets with and
/// without hints, a strided 2-D access and gathered loads (`snapshots/axis__<fixture>.snap`).
#[test]
fn axis_info_of_selected_fixtures() {
    for name in ["vector_add", "matmul", "matmul_hints", "copy_2d", "gather", "assume"] {
        let (_, out) = compile_fixture_named(name);
        insta::with_settings!({
            snapshot_path => workspace_root().join("snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => format!("tilec compile --emit axis fixtures/{name}.py"),
        }, {
            insta::assert_snapshot!(format!("axis__{name}"), out.axis);
        });
    }
}

/// In the hinted matmul, the pointer tiles read in the K loop live in scratch, yet both
/// loads in the loop address memory as "first element + index" along the row (dim 1): the
/// base pointer is read with stride 0 along dim 1 and advanced by the dim-1 index (and by
/// uniform offsets, such as the loop's advance along K).
#[test]
fn hinted_matmul_loads_are_unit_stride_along_rows() {
    use tilec_vector::{Expr, Nest, Stmt, Var};
    let (_, out) = compile_fixture_named("matmul_hints");
    let function = out.function_opt.as_ref().expect("optimized function");
    let lowered = tilec_vector::lower(function).expect("lowers");
    let listing = tilec_vector::print_function(&lowered);
    let body = lowered
        .body
        .iter()
        .find_map(|s| if let Stmt::For { body, .. } = s { Some(body) } else { None })
        .expect("the K loop");
    fn def(nest: &Nest, v: Var) -> Option<&Expr> {
        nest.body.iter().find_map(|s| match s {
            Stmt::Assign { dst, expr, .. } if *dst == v => Some(expr),
            _ => None,
        })
    }
    fn first_plus_row_index(nest: &Nest, ptr: Var) -> bool {
        let Some(Expr::AddPtr { ptr: base, offset }) = def(nest, ptr) else { return false };
        match (def(nest, *base), def(nest, *offset)) {
            (Some(Expr::LoadScratch { index, .. }), Some(Expr::Index(step))) => {
                step.strides == [0, 1] && index.strides[1] == 0
            }
            (_, None) => first_plus_row_index(nest, *base),
            _ => false,
        }
    }
    let mut unit_stride_loads = 0;
    for stmt in body {
        let Stmt::Nest(nest) = stmt else { continue };
        for s in &nest.body {
            let Stmt::Assign { expr: Expr::Load { ptr, .. }, .. } = s else { continue };
            assert!(first_plus_row_index(nest, *ptr), "load through {ptr} is not first element + index:\n{listing}");
            unit_stride_loads += 1;
        }
    }
    assert_eq!(unit_stride_loads, 2, "{listing}");
}
