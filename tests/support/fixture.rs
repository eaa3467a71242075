//! Fixture files and their header lines (`# tilec:` and `# tilec-run:`), shared by the
//! workspace-level tests. Include with `#[path = "support/fixture.rs"] mod fixture;`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The arguments of a `# tilec:` line: kernel, signature text and constants.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompileHeader {
    pub kernel: String,
    pub signature: String,
    pub constants: Vec<(String, String)>,
}

/// A fixture file: its name (stem), path, source and header lines.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub name: String,
    pub path: PathBuf,
    pub source: String,
    pub compile: Vec<CompileHeader>,
    /// The words of each `# tilec-run:` line, shell-split.
    pub runs: Vec<Vec<String>>,
}

/// The workspace root (two levels above the `tilec` crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

/// Every `*.py` file directly in `dir` (relative to the workspace root), sorted by name.
pub fn fixtures_in(dir: &str) -> Vec<Fixture> {
    let dir = workspace_root().join(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    paths.sort();
    paths.into_iter().map(|p| load(&p)).collect()
}

pub fn load(path: &Path) -> Fixture {
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut compile = Vec::new();
    let mut runs = Vec::new();
    for line in source.lines().take_while(|l| l.starts_with('#')) {
        if let Some(rest) = line.strip_prefix("# tilec:") {
            compile.push(parse_compile(&split_words(rest)));
        } else if let Some(rest) = line.strip_prefix("# tilec-run:") {
            runs.push(split_words(rest));
        }
    }
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
    Fixture { name, path: path.to_path_buf(), source, compile, runs }
}

/// Splits like a shell: whitespace-separated words, double or single quotes group.
pub fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            None => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

fn parse_compile(words: &[String]) -> CompileHeader {
    let mut h = CompileHeader::default();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        match w.as_str() {
            "-k" => h.kernel = it.next().cloned().unwrap_or_default(),
            "-s" => h.signature = it.next().cloned().unwrap_or_default(),
            "-c" => {
                let kv = it.next().cloned().unwrap_or_default();
                let (k, v) = kv.split_once('=').unwrap_or((kv.as_str(), ""));
                h.constants.push((k.to_string(), v.to_string()));
            }
            _ => {}
        }
    }
    h
}

#[test]
fn split_words_handles_quotes() {
    assert_eq!(
        split_words(r#" -k add -s "*fp32:16, i32" -c A=1"#),
        vec!["-k", "add", "-s", "*fp32:16, i32", "-c", "A=1"]
    );
}
