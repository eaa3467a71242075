//! Parsing never panics: random bytes, random token soup and mutations of a real file.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// xorshift64*: a tiny deterministic generator, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Parses `source` (and prints the AST when it parses); fails the test on a panic.
fn parse_without_panic(source: &str) {
    let outcome = catch_unwind(AssertUnwindSafe(|| match tilec_syntax::parse(source) {
        Ok(module) => {
            let _ = tilec_syntax::print_module(&module);
        }
        Err(diagnostics) => {
            assert!(!diagnostics.is_empty());
            let _ = tilec_diagnostics::render("fuzz.py", source, &diagnostics);
        }
    }));
    assert!(outcome.is_ok(), "parse panicked on {source:?}");
}

const KERNEL_PREFIX: &str = "@triton.jit\ndef k(x, N: tl.constexpr):\n    ";

#[test]
fn random_bytes() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..2000 {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let text = String::from_utf8_lossy(&bytes);
        parse_without_panic(&text);
        parse_without_panic(&format!("{KERNEL_PREFIX}{text}"));
    }
}

#[test]
fn random_token_soup() {
    const PIECES: &[&str] = &[
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ":",
        ",",
        "=",
        "+",
        "**",
        "x",
        "tl",
        ".",
        "load",
        "1",
        "2.5",
        "'s'",
        "\"\"\"",
        "f'{",
        "}'",
        "\n",
        "\n    ",
        "\n\t",
        "\\\n",
        "if ",
        "else",
        "for ",
        " in ",
        "lambda ",
        "@",
        "def ",
        "triton.jit",
        "not ",
        "and ",
        "is ",
        "None",
        "return ",
        "#c",
        "$",
        ";",
        "*",
        "->",
        ":=",
        "yield ",
        "async ",
    ];
    let mut rng = Rng(42);
    for _ in 0..3000 {
        let n = rng.below(40);
        let soup: String = (0..n).map(|_| PIECES[rng.below(PIECES.len())]).collect();
        parse_without_panic(&soup);
        parse_without_panic(&format!("{KERNEL_PREFIX}{soup}"));
    }
}

#[test]
fn mutated_tutorial() {
    let original = include_str!("data/tutorial.py").as_bytes();
    let mut rng = Rng(7);
    for _ in 0..300 {
        let mut bytes = original.to_vec();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(bytes.len());
            match rng.below(4) {
                0 => {
                    bytes.remove(at);
                }
                1 => bytes.insert(at, b"()[]{}:'\"\n\t #\\@"[rng.below(15)]),
                2 => bytes[at] = rng.next() as u8,
                _ => {
                    let end = (at + rng.below(40)).min(bytes.len());
                    bytes.drain(at..end);
                }
            }
        }
        parse_without_panic(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for (open, close) in [("(", ")"), ("[", "]"), ("{", "}")] {
        let source = format!("{KERNEL_PREFIX}y = {}1{}\n", open.repeat(5000), close.repeat(5000));
        assert!(tilec_syntax::parse(&source).is_err());
    }
    // Below (at most 481 operators) and far above the operator limit, for every shape of deep tree.
    for count in [240, 20_000] {
        for source in [
            format!("{KERNEL_PREFIX}y = {}x\n", "-".repeat(count)),
            format!("{KERNEL_PREFIX}y = x{}\n", " + x".repeat(count)),
            format!("{KERNEL_PREFIX}y = {}x\n", "not ".repeat(count)),
            format!("{KERNEL_PREFIX}y = x{}\n", " ** x".repeat(count)),
            format!("{KERNEL_PREFIX}y = x{}\n", ".a".repeat(count)),
            format!("{KERNEL_PREFIX}y = f{}\n", "()".repeat(count)),
            format!("{KERNEL_PREFIX}y = {}x\n", "lambda: ".repeat(count)),
            format!("{KERNEL_PREFIX}y = x{}\n", " if x else x".repeat(count)),
        ] {
            parse_without_panic(&source);
            assert_eq!(tilec_syntax::parse(&source).is_ok(), count == 240, "operator limit");
        }
    }
}
