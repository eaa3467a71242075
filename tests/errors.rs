//! Every invalid kernel under `fixtures/errors/` is rejected with a diagnostic that has a
//! code and names `file:line:column`; the rendered text is snapshotted
//! (`snapshots/errors__<fixture>.snap`) and nothing panics.

mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};

use support::{workspace_root, CompileHeader, Fixture};
use tilec::{Compiler, Request, Target};

/// Runs a fixture through the same steps as `tilec compile`; `Ok` is the IR text (which an
/// error fixture must not produce), `Err` the rendered diagnostics.
fn compile(f: &Fixture, h: &CompileHeader) -> Result<String, String> {
    let render = |ds: &[tilec::diagnostics::Diagnostic]| tilec::diagnostics::render(&f.name, &f.source, ds);
    let module = tilec_syntax::parse(&f.source).map_err(|ds| render(&ds))?;
    let signature = tilec_front::parse_signature_for(&module, &h.kernel, &h.signature).map_err(|ds| render(&ds))?;
    let constants = h.constant_values();
    let request = Request { file_name: &f.name, source: &f.source, kernel: &h.kernel, signature, constants };
    let out = Compiler::new(Target::Riscv64gc).compile_tile(&request).map_err(|ds| render(&ds))?;
    Ok(out.tile)
}

/// Whether `text` holds `name:LINE:COL` with numbers.
fn names_line_and_column(text: &str, name: &str) -> bool {
    text.match_indices(&format!("{name}:")).any(|(i, m)| {
        let rest = &text[i + m.len()..];
        let mut parts = rest.splitn(3, ':');
        let line = parts.next().unwrap_or("");
        let col: String = parts.next().unwrap_or("").chars().take_while(|c| c.is_ascii_digit()).collect();
        !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()) && !col.is_empty()
    })
}

#[test]
fn every_error_fixture_is_a_located_diagnostic() {
    let fixtures = Fixture::all_in("fixtures/errors");
    assert!(fixtures.len() >= 25, "expected at least 25 error fixtures, found {}", fixtures.len());
    let mut problems = Vec::new();
    for f in &fixtures {
        let Some(h) = f.compile.first() else {
            problems.push(format!("{}: no `# tilec:` header", f.name));
            continue;
        };
        let result = catch_unwind(AssertUnwindSafe(|| compile(f, h)));
        let rendered = match result {
            Err(_) => {
                problems.push(format!("{}: the compiler panicked", f.name));
                continue;
            }
            Ok(Ok(_)) => {
                problems.push(format!("{}: compiled without an error", f.name));
                continue;
            }
            Ok(Err(text)) => text,
        };
        if !rendered.contains("error[E") {
            problems.push(format!("{}: no error code in\n{rendered}", f.name));
        }
        if !names_line_and_column(&rendered, &f.name) {
            problems.push(format!("{}: no line:column in\n{rendered}", f.name));
        }
        insta::with_settings!({
            snapshot_path => workspace_root().join("snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(format!("errors__{}", f.name), rendered);
        });
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The lines of `rendered` diagnostics' primary locations in file `name`, one per error.
fn error_lines(rendered: &str, name: &str) -> Vec<usize> {
    let location = format!("┌─ {name}:");
    rendered
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix(&location))
        .filter_map(|rest| rest.split(':').next()?.parse().ok())
        .collect()
}

/// Error recovery: in a fixture that marks lines with `# error here`, every marked line gets
/// exactly one error and no other line gets one, so independent mistakes are all reported
/// and none is reported again through a value that depends on it.
#[test]
fn every_marked_line_has_exactly_one_error() {
    let fixtures: Vec<Fixture> =
        Fixture::all_in("fixtures/errors").into_iter().filter(|f| f.source.contains("# error here")).collect();
    assert!(fixtures.len() >= 4, "expected at least 4 fixtures with `# error here` lines, found {}", fixtures.len());
    let mut problems = Vec::new();
    for f in &fixtures {
        let marked: Vec<usize> = f
            .source
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim_end().ends_with("# error here"))
            .map(|(i, _)| i + 1)
            .collect();
        let rendered = match compile(f, &f.compile[0]) {
            Ok(_) => {
                problems.push(format!("{}: compiled without an error", f.name));
                continue;
            }
            Err(text) => text,
        };
        let mut found = error_lines(&rendered, &f.name);
        found.sort_unstable();
        if found != marked {
            problems.push(format!("{}: errors on lines {found:?}, marked lines {marked:?}\n{rendered}", f.name));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
