//! Cranelift-style filetests of the stages after the front end, and the round trip of the
//! printed Tile IR.
//!
//! Each `tests/filetests/*.tile` file is
//!
//! ```text
//! test KIND [ARGS]
//! ; comment lines, and directives such as `; fires: RULE, RULE`
//! tt.func @kernel(...) {        <- the input: Tile IR as `--emit tile` prints it
//!   ...
//!   tt.return
//! }
//!
//! ; the expected output, every line prefixed with `; `
//! ```
//!
//! Kinds: `test verify` (the parser's and the Tile IR verifier's diagnostics, or `ok`),
//! `test opt` (the rules that fired and the optimized Tile IR; `; fires:` names rules that
//! must fire), `test lower` (the Vector IR, without the optimizer), `test compile riscv64gc`
//! / `test compile riscv64gcv` (the assembly). Every stage's output is verified. With
//! `TILEC_BLESS=1` (or `INSTA_UPDATE=always`) the expected output of each file is rewritten
//! to the actual one; review the diff.

mod support;

use std::path::{Path, PathBuf};

use support::{blessing, request, workspace_root, Fixture};
use tilec::{Compiler, Produce, Target};

/// The parts of a filetest file.
struct FileTest {
    path: PathBuf,
    /// The words of the `test` line after `test`.
    command: Vec<String>,
    /// Rules named by `; fires:` directives.
    fires: Vec<String>,
    /// The lines before the expected output (header, comments and input), as written.
    head: String,
    /// The input function's text.
    input: String,
    /// The whole file, and where the input starts in it (diagnostics point into the file).
    text: String,
    input_start: usize,
    /// The expected output, without the `; ` prefixes.
    expected: String,
}

fn filetest_dir() -> PathBuf {
    workspace_root().join("tests/filetests")
}

fn all_filetests() -> Vec<FileTest> {
    let dir = filetest_dir();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "tile"))
        .collect();
    paths.sort();
    paths.iter().map(|p| read_filetest(p)).collect()
}

fn read_filetest(path: &Path) -> FileTest {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let name = path.display();
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let command: Vec<String> = match first.strip_prefix("test ") {
        Some(rest) => rest.split_whitespace().map(str::to_string).collect(),
        None => panic!("{name}: the first line must be `test KIND`, found `{first}`"),
    };
    let mut head = format!("{first}\n");
    let mut fires = Vec::new();
    let mut input = String::new();
    let mut in_input = false;
    let mut expected_lines = Vec::new();
    let mut done = false;
    for line in lines {
        if done {
            match line.strip_prefix(';') {
                Some(rest) => expected_lines.push(rest.strip_prefix(' ').unwrap_or(rest)),
                None if line.trim().is_empty() => {}
                None => panic!("{name}: after the input only `; ` lines (the expected output) may follow: `{line}`"),
            }
            continue;
        }
        head.push_str(line);
        head.push('\n');
        if !in_input {
            if let Some(directive) = line.strip_prefix(';') {
                if let Some(rules) = directive.trim().strip_prefix("fires:") {
                    fires.extend(rules.split(',').map(|r| r.trim().to_string()).filter(|r| !r.is_empty()));
                }
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            in_input = true;
        }
        input.push_str(line);
        input.push('\n');
        if line == "}" {
            done = true;
        }
    }
    assert!(done, "{name}: no input function ending in a `}}` line");
    let expected = expected_lines.iter().map(|l| format!("{l}\n")).collect();
    let input_start = text.find(input.as_str()).expect("the input is part of the file");
    FileTest { path: path.to_path_buf(), command, fires, head, input, text, input_start, expected }
}

/// Renders `diagnostics` (with spans into the input) against the whole file.
fn render(t: &FileTest, diagnostics: &[tilec::diagnostics::Diagnostic]) -> String {
    let name = t.path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let shift = |s: tilec::diagnostics::Span| {
        tilec::diagnostics::Span::new(s.start as usize + t.input_start, s.end as usize + t.input_start)
    };
    let shifted: Vec<_> = diagnostics
        .iter()
        .map(|d| {
            let mut d = d.clone();
            d.span = d.span.map(shift);
            d.secondary = d.secondary.into_iter().map(|(s, label)| (shift(s), label)).collect();
            d
        })
        .collect();
    tilec::diagnostics::render(&name, &t.text, &shifted)
}

/// The input parsed and verified (an `Err` with rendered diagnostics otherwise).
fn parsed(t: &FileTest) -> Result<tilec::ir::Function, String> {
    let f = tilec::ir::parse_function(&t.input).map_err(|d| render(t, &[d]))?;
    tilec::ir::verify(&f).map_err(|ds| render(t, &ds))?;
    Ok(f)
}

/// Runs the file's stage on its input; `Err` is a failure of the test itself.
fn run(t: &FileTest) -> Result<String, String> {
    let words: Vec<&str> = t.command.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["verify"] => Ok(match parsed(t) {
            Ok(_) => "ok\n".to_string(),
            Err(rendered) => rendered,
        }),
        ["opt"] => {
            let f = parsed(t)?;
            let (optimized, report) = tilec_opt::optimize(&f, &tilec_opt::Options::default());
            tilec::ir::verify(&optimized)
                .map_err(|ds| format!("the optimizer's output does not verify:\n{}", render(t, &ds)))?;
            for rule in &t.fires {
                if !report.rule_applications.iter().any(|(name, count)| name == rule && *count > 0) {
                    return Err(format!("rule `{rule}` did not fire:\n{}", report.summary()));
                }
            }
            let mut out = String::new();
            for (rule, count) in &report.rule_applications {
                out.push_str(&format!("rule {rule}: {count}\n"));
            }
            out.push('\n');
            out.push_str(&tilec::ir::print_function(&optimized));
            Ok(out)
        }
        ["lower"] => Ok(tilec_vector::print_function(&lowered(t)?)),
        ["compile", target] => {
            let target = match *target {
                "riscv64gc" => tilec_codegen::Target::Riscv64gc,
                "riscv64gcv" => tilec_codegen::Target::Riscv64gcv,
                other => return Err(format!("unknown target `{other}`")),
            };
            let compiled = tilec_codegen::compile(&lowered(t)?, target).map_err(|d| render(t, &[d]))?;
            Ok(compiled.asm)
        }
        _ => Err(format!("unknown test kind `{}`", t.command.join(" "))),
    }
}

/// The input lowered to verified Vector IR.
fn lowered(t: &FileTest) -> Result<tilec_vector::Function, String> {
    let f = parsed(t)?;
    let lowered = tilec_vector::lower(&f).map_err(|d| render(t, &[d]))?;
    tilec_vector::verify(&lowered)
        .map_err(|ds| format!("the lowering's output does not verify:\n{}", render(t, &ds)))?;
    Ok(lowered)
}

/// `text` as expected-output comment lines.
fn commented(text: &str) -> String {
    text.lines().map(|l| if l.is_empty() { ";\n".to_string() } else { format!("; {l}\n") }).collect()
}

/// The first differing line of `expected` and `actual`, for the failure message.
fn first_difference(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let at = e.iter().zip(&a).position(|(x, y)| x != y).unwrap_or(e.len().min(a.len()));
    format!(
        "first difference at output line {}:\n  expected: {}\n  actual:   {}",
        at + 1,
        e.get(at).unwrap_or(&"<end of output>"),
        a.get(at).unwrap_or(&"<end of output>")
    )
}

#[test]
fn every_filetest_gives_its_expected_output() {
    let tests = all_filetests();
    assert!(!tests.is_empty(), "no filetests in {}", filetest_dir().display());
    let bless = blessing();
    let mut failures = Vec::new();
    for t in &tests {
        let name = t.path.display();
        let actual = match run(t) {
            Ok(actual) => actual,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        if actual == t.expected {
            continue;
        }
        if bless {
            let text = format!("{}\n{}", t.head, commented(&actual));
            std::fs::write(&t.path, text).unwrap_or_else(|e| panic!("writing {name}: {e}"));
        } else {
            failures.push(format!(
                "{name}: the output differs from the expected one (re-bless with TILEC_BLESS=1 and review the diff); \
                 {}\nactual output:\n{actual}",
                first_difference(&t.expected, &actual)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} filetests failed:\n\n{}",
        failures.len(),
        tests.len(),
        failures.join("\n\n")
    );
}

/// Every optimizer rule is shown firing by at least one `test opt` file.
#[test]
fn every_optimizer_rule_has_a_filetest() {
    let tests = all_filetests();
    let shown: Vec<&String> = tests.iter().filter(|t| t.command == ["opt"]).flat_map(|t| &t.fires).collect();
    let missing: Vec<&str> =
        tilec_opt::rule_names().into_iter().filter(|rule| !shown.iter().any(|s| s.as_str() == *rule)).collect();
    assert!(missing.is_empty(), "rules without a `test opt` file whose `; fires:` names them: {missing:?}");
    for rule in shown {
        assert!(tilec_opt::rule_names().contains(&rule.as_str()), "`; fires: {rule}` names no rule");
    }
}

/// Print → parse → print is the identity on every fixture's Tile IR, before and after the
/// optimizer, and the parsed functions verify; the annotated axis listing parses to the
/// optimized function.
#[test]
fn printed_tile_ir_round_trips() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for dir in ["fixtures", "fixtures/math", "fixtures/regressions", "fixtures/limits"] {
        for f in Fixture::all_in(dir) {
            for h in &f.compile {
                let request = request(&f, h).expect("the fixture's signature parses");
                let out = Compiler::new(Target::Riscv64gc)
                    .with_produce(Produce::Tile)
                    .compile(&request)
                    .unwrap_or_else(|ds| panic!("{}", tilec::diagnostics::render(&f.name, &f.source, &ds)));
                // The axis listing is the optimized Tile IR with `//` comments, which the
                // reader skips.
                let texts = [
                    ("tile", &out.tile, &out.tile),
                    ("tile-opt", &out.tile_opt, &out.tile_opt),
                    ("axis", &out.axis, &out.tile_opt),
                ];
                for (stage, text, printed) in texts {
                    checked += 1;
                    let reprinted = tilec::ir::parse_function(text)
                        .map_err(|d| tilec::diagnostics::render(stage, text, &[d]))
                        .and_then(|parsed| {
                            tilec::ir::verify(&parsed).map_err(|ds| tilec::diagnostics::render(stage, text, &ds))?;
                            Ok(tilec::ir::print_function(&parsed))
                        });
                    match reprinted {
                        Ok(again) if &again == printed => {}
                        Ok(again) => failures.push(format!(
                            "{} ({stage}): reprinted text differs; {}",
                            f.name,
                            first_difference(printed, &again)
                        )),
                        Err(e) => failures.push(format!("{} ({stage}):\n{e}", f.name)),
                    }
                }
            }
        }
    }
    assert!(checked >= 240, "only {checked} texts checked");
    assert!(failures.is_empty(), "{} of {checked} texts do not round-trip:\n{}", failures.len(), failures.join("\n"));
}
