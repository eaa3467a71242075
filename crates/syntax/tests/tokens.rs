//! Data-driven tests of the lexer and of the layout adapter's token stream.

use tilec_syntax::token::{lex, LexErrorKind, Tok};

/// Raw lexer output: tokens as text separated by spaces, `NEWLINE` for physical newlines,
/// errors as `ERROR(kind)`.
fn check_lex(input: &str, expected: &str) {
    let texts: Vec<String> = lex(input)
        .into_iter()
        .map(|(tok, _)| match tok {
            Ok(tok) => tok.to_string(),
            Err(LexErrorKind::InvalidCharacter) => "ERROR(invalid)".into(),
            Err(LexErrorKind::UnterminatedString) => "ERROR(unterminated)".into(),
            Err(LexErrorKind::InvalidNumber(_)) => "ERROR(number)".into(),
            Err(LexErrorKind::InvalidEscape(_)) => "ERROR(escape)".into(),
        })
        .collect();
    assert_eq!(texts.join(" "), expected, "lexing {input:?}");
}

/// The adapter's token stream for a whole file (kept items only).
fn check(input: &str, expected: &str) {
    match tilec_syntax::token_texts(input) {
        Ok(texts) => assert_eq!(texts.join(" "), expected, "token stream of {input:?}"),
        Err(diagnostics) => panic!("unexpected diagnostics for {input:?}: {diagnostics:?}"),
    }
}

/// The adapter rejects `input` with exactly these diagnostic codes.
fn check_error(input: &str, codes: &[&str]) {
    match tilec_syntax::token_texts(input) {
        Ok(texts) => panic!("expected {codes:?} for {input:?}, got tokens {texts:?}"),
        Err(diagnostics) => {
            let got: Vec<String> = diagnostics.iter().map(|d| d.code.to_string()).collect();
            assert_eq!(got, codes, "diagnostics for {input:?}: {diagnostics:?}");
        }
    }
}

#[test]
fn numbers() {
    check_lex("0 7 1_000 0x_Ff 0o17 0b1_01", "0 7 1000 255 15 5");
    check_lex("1.5 1. .5 1e-5 1E+3 1_0.2_5 2.5e3", "1.5 1.0 0.5 1e-5 1000.0 10.25 2500.0");
    check_lex("1j 2.5J .5j 1e3j", "<imaginary> <imaginary> <imaginary> <imaginary>");
    check_lex("012", "ERROR(number)");
    check_lex("00 0_0", "0 0");
    check_lex("999999999999999999999999999999999999999999", "ERROR(number)");
    // A number directly followed by a name lexes as two tokens; the grammar rejects it.
    check_lex("1if", "1 if");
}

#[test]
fn strings_with_every_prefix() {
    check_lex(r#"'a' "b" r'\n' R"\d" u'x' U"y""#, r#""a" "b" "\\n" "\\d" "x" "y""#);
    check_lex(r#"b'a' B"b" rb'\x' bR'c' Rb"d" BR"e""#, r#"b"a" b"b" b"\\x" b"c" b"d" b"e""#);
    check_lex(r#"f'a' F"b" rf'c' fR"d" Rf'e'"#, r#"f"a" f"b" f"c" f"d" f"e""#);
    check_lex(r#"'it\'s' "say \"hi\"" 'tab\tnl\n\x41\101\u00e9'"#, r#""it's" "say \"hi\"" "tab\tnl\nAAé""#);
    check_lex(
        r"'a\
b'", r#""ab""#,
    );
    check_lex(r#"'' "" '''''' """""""#, r#""" "" "" """#);
}

#[test]
fn triple_quoted_strings() {
    check_lex("'''one\ntwo ' '' \\''' x'''", "\"one\\ntwo ' '' ''' x\"");
    check_lex("\"\"\"a \"quoted\" word\n\"\"\"", "\"a \\\"quoted\\\" word\\n\"");
    check_lex("'''unterminated\n\nx = 1", "ERROR(unterminated)");
}

#[test]
fn f_strings_with_nested_quotes_and_braces() {
    check_lex(r#"f"{x['a']!r:>10} and {y}""#, r#"f"{x['a']!r:>10} and {y}""#);
    check_lex(r#"f"{x["a"]}" 1"#, r#"f"{x[\"a\"]}" 1"#);
    check_lex(r#"f"{{literal}} {f'{1}'}" 2"#, r#"f"{{literal}} {f'{1}'}" 2"#);
    check_lex(r#"f"{ {'a': 1}['a'] } {x:{width}.{prec}}" 3"#, r#"f"{ {'a': 1}['a'] } {x:{width}.{prec}}" 3"#);
    check_lex("f'''{\nx\n}''' 4", "f\"{\\nx\\n}\" 4");
    check_lex(r#"f"{x" 5"#, "ERROR(unterminated)");
}

#[test]
fn unterminated_strings_resume_on_next_line() {
    check_lex("'abc\nx", "ERROR(unterminated) NEWLINE x");
    check_lex("\"abc", "ERROR(unterminated)");
}

#[test]
fn every_operator() {
    check_lex(
        "+ - * ** / // % @ << >> & | ^ ~ < > <= >= == != -> := = . ... , : ;",
        "+ - * ** / // % @ << >> & | ^ ~ < > <= >= == != -> := = . ... , : ;",
    );
    check_lex("+= -= *= /= //= %= @= &= |= ^= <<= >>= **=", "+= -= *= /= //= %= @= &= |= ^= <<= >>= **=");
    check_lex("( ) [ ] { }", "( ) [ ] { }");
    check_lex("a**=b//=c", "a **= b //= c");
    check_lex("x[...]", "x [ ... ]");
}

#[test]
fn names_keywords_and_non_ascii_identifiers() {
    check_lex("def lambda_ _x x1 None True False", "def lambda_ _x x1 None True False");
    check_lex("größe = αβ + 名前", "größe = αβ + 名前");
    check_lex("match case type", "match case type");
}

#[test]
fn comments_continuations_and_invalid_characters() {
    check_lex("x # comment\ny", "x NEWLINE y");
    check_lex("x = 1 + \\\n    2", "x = 1 + 2");
    check_lex("a $ b ? c ! d", "a ERROR(invalid) b ERROR(invalid) c ERROR(invalid) d");
    check_lex("a \\ b", "a ERROR(invalid) b");
    check_lex("x\r\ny\rz", "x NEWLINE y NEWLINE z");
}

#[test]
fn indentation() {
    check(
        "@triton.jit\ndef f(x):\n    a = 1\n    if a:\n        b = 2\n    c = 3\n",
        "@ triton . jit NEWLINE def f ( x ) : NEWLINE INDENT a = 1 NEWLINE if a : NEWLINE INDENT b = 2 NEWLINE \
         DEDENT c = 3 NEWLINE DEDENT",
    );
    // EOF without a final newline closes the line and every level.
    check(
        "@jit\ndef f():\n  if x:\n    return 1",
        "@ jit NEWLINE def f ( ) : NEWLINE INDENT if x : NEWLINE INDENT return 1 NEWLINE DEDENT DEDENT",
    );
}

#[test]
fn blank_lines_comments_and_brackets_make_no_layout_tokens() {
    check(
        "@jit\ndef f(a,\n      b):\n\n    # comment\n      # deeper comment\n    x = (1 +\n  2)\n\n    y = [\n1]\n",
        "@ jit NEWLINE def f ( a , b ) : NEWLINE INDENT x = ( 1 + 2 ) NEWLINE y = [ 1 ] NEWLINE DEDENT",
    );
    check(
        "@jit\ndef f():\n    x = 1 + \\\n2\n    return x\n",
        "@ jit NEWLINE def f ( ) : NEWLINE INDENT x = 1 + 2 NEWLINE return x NEWLINE DEDENT",
    );
}

#[test]
fn layout_spans_are_zero_width_for_indent_and_dedent() {
    let source = "@jit\ndef f():\n    x = 1\n";
    let raw = lex(source);
    let mut diagnostics = Vec::new();
    let items = tilec_syntax::layout::top_level_items(source, &raw);
    assert_eq!(items.len(), 1);
    let tokens = tilec_syntax::layout::layout(source, &raw[items[0].tokens.clone()], &mut diagnostics);
    assert!(diagnostics.is_empty());
    let indent = tokens.iter().find(|(_, t, _)| *t == Tok::Indent).expect("an INDENT");
    assert_eq!((indent.0, indent.2), (18, 18), "INDENT sits where `x` starts");
    let dedent = tokens.iter().find(|(_, t, _)| *t == Tok::Dedent).expect("a DEDENT");
    assert_eq!(dedent.0, dedent.2);
    assert_eq!(dedent.0, source.len());
}

#[test]
fn indentation_errors() {
    check_error("@jit\ndef f():\n    x = 1\n  y = 2\n", &["E0103"]);
    check_error("@jit\ndef f():\n\tx = 1\n        y = 2\n", &["E0104"]);
    check_error("@jit\ndef f():\n        x = 1\n\ty = 2\n", &["E0104"]);
    check_error("@jit\ndef f():\n    x = (1\n", &["E0107"]);
    check_error("@jit\ndef f():\n    x = 1)\n", &["E0107"]);
    check_error("@jit\ndef f():\n    x = (1]\n", &["E0107"]);
    check_error("@jit\ndef f():\n    x = 1 $ 2\n", &["E0106"]);
    check_error("@jit\ndef f():\n    x = 'abc\n", &["E0102"]);
    check_error("@jit\ndef f():\n    x = 012\n", &["E0108"]);
    check_error("@jit\ndef f():\n    x = '\\N{DASH}'\n", &["E0112"]);
}

#[test]
fn host_code_is_skipped() {
    let source = r#"import torch
import triton.language as tl
from triton import cdiv
from . import sibling

DEVICE = torch.device("cuda")
x = f"{DEVICE!r}" $ ? 'unterminated

class Model(torch.nn.Module):
    @triton.jit
    def method(self):
        pass

def host(n):
    return n

@torch.no_grad()
def bench():
    pass

@triton.autotune(configs=[], key=[])
@triton.jit
def k(a):
    return a

@jit()
def helper(b): return b

@triton.jit(do_not_specialize=["n"])
def g(): pass

if __name__ == "__main__":
    bench()
"#;
    check(
        source,
        "import torch NEWLINE import triton . language as tl NEWLINE from triton import cdiv NEWLINE from . import sibling NEWLINE \
         @ triton . jit NEWLINE def method ( self ) : NEWLINE INDENT pass NEWLINE DEDENT \
         @ triton . autotune ( configs = [ ] , key = [ ] ) NEWLINE @ triton . jit NEWLINE def k ( a ) : NEWLINE \
         INDENT return a NEWLINE DEDENT \
         @ jit ( ) NEWLINE def helper ( b ) : return b NEWLINE \
         @ triton . jit ( do_not_specialize = [ \"n\" ] ) NEWLINE def g ( ) : pass NEWLINE",
    );
}

#[test]
fn byte_order_mark_and_form_feed_take_no_width() {
    check(
        "\u{FEFF}import triton\n\x0C@jit\ndef f(): pass\n",
        "import triton NEWLINE @ jit NEWLINE def f ( ) : pass NEWLINE",
    );
}

#[test]
fn kernel_ends_at_next_column_zero_statement() {
    check(
        "@jit\ndef f():\n    return 1\n# trailing comment\nhost = 1\n",
        "@ jit NEWLINE def f ( ) : NEWLINE INDENT return 1 NEWLINE DEDENT",
    );
}
