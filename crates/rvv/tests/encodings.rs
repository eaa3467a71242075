//! Every instruction of `tests/common/cases.rs` against the committed output of a real
//! assembler (`tests/data/expected.tsv`, made by `tests/data/gen.sh` from
//! `tests/data/cases.s`): the encoded word, the alias-free text and the default text.

mod common;

use common::cases::sections;
use tilec_rvv::Inst;

const CASES_S: &str = include_str!("data/cases.s");
const EXPECTED_TSV: &str = include_str!("data/expected.tsv");

/// One line of `expected.tsv`.
struct Expected<'a> {
    word: u32,
    canonical: &'a str,
    aliased: &'a str,
}

fn expected() -> Vec<Expected<'static>> {
    EXPECTED_TSV
        .lines()
        .enumerate()
        .map(|(n, line)| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "expected.tsv line {}: {line:?}", n + 1);
            let word =
                u32::from_str_radix(fields[0], 16).unwrap_or_else(|e| panic!("expected.tsv line {}: {e}", n + 1));
            Expected { word, canonical: fields[1], aliased: fields[2] }
        })
        .collect()
}

fn cases() -> Vec<Inst> {
    sections().into_iter().flat_map(|s| s.insts).collect()
}

/// `tests/data/cases.s` is the case list printed; with `TILEC_BLESS=1` this test rewrites it
/// (`tests/data/gen.sh` does, then records the assembler's encodings of it).
#[test]
fn committed_assembly_is_the_case_list() {
    let mut printed = String::new();
    for section in sections() {
        printed.push_str(&format!("# {}\n", section.title));
        for inst in &section.insts {
            printed.push_str(&format!("{}\n", inst.canonical()));
        }
    }
    if tilec_testkit::blessing() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cases.s");
        std::fs::write(&path, &printed).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    assert!(printed == CASES_S, "tests/data/cases.s is stale: run tests/data/gen.sh");
}

#[test]
fn encodings_match_the_assembler() {
    let cases = cases();
    let expected = expected();
    assert_eq!(cases.len(), expected.len(), "run tests/data/gen.sh");
    assert!(cases.len() > 2000, "the case list lost instructions: {}", cases.len());
    let mut failures = Vec::new();
    for (inst, want) in cases.iter().zip(&expected) {
        match inst.encode() {
            Ok(word) if word == want.word => {}
            Ok(word) => failures.push(format!("{}: encoded {word:08x}, assembler {:08x}", want.canonical, want.word)),
            Err(e) => failures.push(format!("{}: {e}", want.canonical)),
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// Asserts that `print` gives the assembler's text (`column` of expected.tsv) for every
/// case.
fn assert_text_matches(print: impl Fn(&Inst) -> String, column: impl Fn(&Expected<'static>) -> &'static str) {
    let failures: Vec<String> = cases()
        .iter()
        .zip(&expected())
        .map(|(inst, want)| (print(inst), column(want)))
        .filter(|(printed, want)| printed != want)
        .map(|(printed, want)| format!("printed {printed:?}, assembler {want:?}"))
        .collect();
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn canonical_text_matches_the_assembler() {
    assert_text_matches(|inst| inst.canonical().to_string(), |want| want.canonical);
}

#[test]
fn alias_text_matches_the_assembler() {
    assert_text_matches(|inst| inst.to_string(), |want| want.aliased);
}
