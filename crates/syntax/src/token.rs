//! The logos lexer: every token of Python source, so that host code around kernels lexes.
//!
//! Invariants: the lexer never panics; whitespace (and byte-order marks), comments and backslash line
//! continuations are skipped; a physical newline is a [`Tok::Newline`] token (the layout
//! adapter decides which newlines are logical); [`Tok::Indent`] and [`Tok::Dedent`] are
//! never produced here, only by the adapter. String literals (all prefixes, triple quotes,
//! f-strings with nested quotes) are scanned by hand after logos matches their opening.

use std::fmt;

use logos::Logos;

/// What went wrong while lexing one token. The span is the lexer's current token span.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LexErrorKind {
    /// A character that starts no Python token (`$`, `?`, a stray `\`, ...).
    #[default]
    InvalidCharacter,
    /// A string literal that reaches the end of its line (or of the file) unclosed.
    UnterminatedString,
    /// A malformed numeric literal (`012`, an integer too large for 128 bits).
    InvalidNumber(String),
    /// An escape sequence this lexer cannot decode (`\N{...}`).
    InvalidEscape(String),
}

/// The flavour of a string literal, from its prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrKind {
    /// A text string (`'..'`, `r'..'`, `u'..'`), escapes resolved unless raw.
    Text,
    /// A bytes literal (`b'..'`, `rb'..'`).
    Bytes,
    /// A formatted string literal (`f'..'`, `rf'..'`); its value is the raw source text.
    Format,
}

/// A lexed string literal.
#[derive(Clone, Debug, PartialEq)]
pub struct StrLit {
    pub kind: StrKind,
    /// Decoded value (text strings), or the body as written (bytes, f-strings).
    pub value: String,
}

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error = LexErrorKind)]
#[logos(skip r"[ \t\x0C\u{FEFF}]+")]
#[logos(skip(r"#[^\r\n]*", allow_greedy = true))]
#[logos(skip r"\\(\r\n|\r|\n)")]
pub enum Tok {
    #[regex(r"\r\n|\r|\n")]
    Newline,
    /// Produced by the layout adapter only.
    Indent,
    /// Produced by the layout adapter only.
    Dedent,

    #[regex(r"[\p{XID_Start}_][\p{XID_Continue}]*", |lex| lex.slice().to_string())]
    Name(String),
    #[regex(r"[0-9](_?[0-9])*", |lex| decimal_int(lex.slice()))]
    #[regex(r"0[xX](_?[0-9a-fA-F])+", |lex| radix_int(lex.slice(), 16))]
    #[regex(r"0[oO](_?[0-7])+", |lex| radix_int(lex.slice(), 8))]
    #[regex(r"0[bB](_?[01])+", |lex| radix_int(lex.slice(), 2))]
    Int(i128),
    #[regex(r"[0-9](_?[0-9])*\.([0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?", |lex| float(lex.slice()))]
    #[regex(r"\.[0-9](_?[0-9])*([eE][+-]?[0-9](_?[0-9])*)?", |lex| float(lex.slice()))]
    #[regex(r"[0-9](_?[0-9])*[eE][+-]?[0-9](_?[0-9])*", |lex| float(lex.slice()))]
    Float(f64),
    /// An imaginary literal (`1j`, `2.5e3J`); kept only to be rejected.
    #[regex(r"([0-9](_?[0-9])*|[0-9](_?[0-9])*\.([0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?|\.[0-9](_?[0-9])*([eE][+-]?[0-9](_?[0-9])*)?|[0-9](_?[0-9])*[eE][+-]?[0-9](_?[0-9])*)[jJ]")]
    Imaginary,
    #[regex(r#"([rRuUbBfF]|[rR][bBfF]|[bBfF][rR])?("|'|"""|''')"#, string)]
    Str(StrLit),

    // Keywords.
    #[token("False")]
    False,
    #[token("None")]
    None,
    #[token("True")]
    True,
    #[token("and")]
    And,
    #[token("as")]
    As,
    #[token("assert")]
    Assert,
    #[token("async")]
    Async,
    #[token("await")]
    Await,
    #[token("break")]
    Break,
    #[token("class")]
    Class,
    #[token("continue")]
    Continue,
    #[token("def")]
    Def,
    #[token("del")]
    Del,
    #[token("elif")]
    Elif,
    #[token("else")]
    Else,
    #[token("except")]
    Except,
    #[token("finally")]
    Finally,
    #[token("for")]
    For,
    #[token("from")]
    From,
    #[token("global")]
    Global,
    #[token("if")]
    If,
    #[token("import")]
    Import,
    #[token("in")]
    In,
    #[token("is")]
    Is,
    #[token("lambda")]
    Lambda,
    #[token("nonlocal")]
    Nonlocal,
    #[token("not")]
    Not,
    #[token("or")]
    Or,
    #[token("pass")]
    Pass,
    #[token("raise")]
    Raise,
    #[token("return")]
    Return,
    #[token("try")]
    Try,
    #[token("while")]
    While,
    #[token("with")]
    With,
    #[token("yield")]
    Yield,

    // Brackets.
    #[token("(")]
    LPar,
    #[token(")")]
    RPar,
    #[token("[")]
    LSqb,
    #[token("]")]
    RSqb,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,

    // Operators and delimiters.
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token(";")]
    Semi,
    #[token(".")]
    Dot,
    #[token("...")]
    Ellipsis,
    #[token("->")]
    Arrow,
    #[token(":=")]
    ColonEqual,
    #[token("=")]
    Equal,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("**")]
    DoubleStar,
    #[token("/")]
    Slash,
    #[token("//")]
    DoubleSlash,
    #[token("%")]
    Percent,
    #[token("@")]
    At,
    #[token("<<")]
    LShift,
    #[token(">>")]
    RShift,
    #[token("&")]
    Amper,
    #[token("|")]
    VBar,
    #[token("^")]
    Circumflex,
    #[token("~")]
    Tilde,
    #[token("<")]
    Less,
    #[token(">")]
    Greater,
    #[token("<=")]
    LessEqual,
    #[token(">=")]
    GreaterEqual,
    #[token("==")]
    EqEqual,
    #[token("!=")]
    NotEqual,
    #[token("+=")]
    PlusEqual,
    #[token("-=")]
    MinusEqual,
    #[token("*=")]
    StarEqual,
    #[token("/=")]
    SlashEqual,
    #[token("//=")]
    DoubleSlashEqual,
    #[token("%=")]
    PercentEqual,
    #[token("@=")]
    AtEqual,
    #[token("&=")]
    AmperEqual,
    #[token("|=")]
    VBarEqual,
    #[token("^=")]
    CircumflexEqual,
    #[token("<<=")]
    LShiftEqual,
    #[token(">>=")]
    RShiftEqual,
    #[token("**=")]
    DoubleStarEqual,
}

impl Tok {
    /// Opening bracket → `Some(true)`, closing → `Some(false)`, otherwise `None`.
    pub fn bracket(&self) -> Option<bool> {
        match self {
            Tok::LPar | Tok::LSqb | Tok::LBrace => Some(true),
            Tok::RPar | Tok::RSqb | Tok::RBrace => Some(false),
            _ => None,
        }
    }

    /// The closing bracket matching an opening one.
    pub fn closing(&self) -> Option<Tok> {
        match self {
            Tok::LPar => Some(Tok::RPar),
            Tok::LSqb => Some(Tok::RSqb),
            Tok::LBrace => Some(Tok::RBrace),
            _ => None,
        }
    }

    /// How a diagnostic names this token: `` `(` ``, ``name `x` ``, `newline`, ...
    pub fn describe(&self) -> String {
        match self {
            Tok::Newline => "end of line".into(),
            Tok::Indent => "indent".into(),
            Tok::Dedent => "dedent".into(),
            Tok::Name(n) => format!("name `{n}`"),
            Tok::Int(_) | Tok::Float(_) | Tok::Imaginary => format!("number `{self}`"),
            Tok::Str(_) => "string literal".into(),
            _ => format!("`{self}`"),
        }
    }

    /// The Python spelling of a keyword, operator or delimiter.
    fn spelling(&self) -> &'static str {
        match self {
            Tok::Newline => "NEWLINE",
            Tok::Indent => "INDENT",
            Tok::Dedent => "DEDENT",
            Tok::Name(_) | Tok::Int(_) | Tok::Float(_) | Tok::Str(_) => "",
            Tok::Imaginary => "<imaginary>",
            Tok::False => "False",
            Tok::None => "None",
            Tok::True => "True",
            Tok::And => "and",
            Tok::As => "as",
            Tok::Assert => "assert",
            Tok::Async => "async",
            Tok::Await => "await",
            Tok::Break => "break",
            Tok::Class => "class",
            Tok::Continue => "continue",
            Tok::Def => "def",
            Tok::Del => "del",
            Tok::Elif => "elif",
            Tok::Else => "else",
            Tok::Except => "except",
            Tok::Finally => "finally",
            Tok::For => "for",
            Tok::From => "from",
            Tok::Global => "global",
            Tok::If => "if",
            Tok::Import => "import",
            Tok::In => "in",
            Tok::Is => "is",
            Tok::Lambda => "lambda",
            Tok::Nonlocal => "nonlocal",
            Tok::Not => "not",
            Tok::Or => "or",
            Tok::Pass => "pass",
            Tok::Raise => "raise",
            Tok::Return => "return",
            Tok::Try => "try",
            Tok::While => "while",
            Tok::With => "with",
            Tok::Yield => "yield",
            Tok::LPar => "(",
            Tok::RPar => ")",
            Tok::LSqb => "[",
            Tok::RSqb => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::Semi => ";",
            Tok::Dot => ".",
            Tok::Ellipsis => "...",
            Tok::Arrow => "->",
            Tok::ColonEqual => ":=",
            Tok::Equal => "=",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::DoubleStar => "**",
            Tok::Slash => "/",
            Tok::DoubleSlash => "//",
            Tok::Percent => "%",
            Tok::At => "@",
            Tok::LShift => "<<",
            Tok::RShift => ">>",
            Tok::Amper => "&",
            Tok::VBar => "|",
            Tok::Circumflex => "^",
            Tok::Tilde => "~",
            Tok::Less => "<",
            Tok::Greater => ">",
            Tok::LessEqual => "<=",
            Tok::GreaterEqual => ">=",
            Tok::EqEqual => "==",
            Tok::NotEqual => "!=",
            Tok::PlusEqual => "+=",
            Tok::MinusEqual => "-=",
            Tok::StarEqual => "*=",
            Tok::SlashEqual => "/=",
            Tok::DoubleSlashEqual => "//=",
            Tok::PercentEqual => "%=",
            Tok::AtEqual => "@=",
            Tok::AmperEqual => "&=",
            Tok::VBarEqual => "|=",
            Tok::CircumflexEqual => "^=",
            Tok::LShiftEqual => "<<=",
            Tok::RShiftEqual => ">>=",
            Tok::DoubleStarEqual => "**=",
        }
    }
}

impl fmt::Display for Tok {
    /// The token's text as used by token-stream tests: names and numbers as written
    /// (floats in Rust's shortest form), strings as `kind"value"`, layout tokens in capitals.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Name(n) => f.write_str(n),
            Tok::Int(v) => write!(f, "{v}"),
            Tok::Float(v) => write!(f, "{v:?}"),
            Tok::Str(s) => {
                let prefix = match s.kind {
                    StrKind::Text => "",
                    StrKind::Bytes => "b",
                    StrKind::Format => "f",
                };
                write!(f, "{prefix}{:?}", s.value)
            }
            _ => f.write_str(self.spelling()),
        }
    }
}

fn decimal_int(text: &str) -> Result<i128, LexErrorKind> {
    let digits: String = text.chars().filter(|&c| c != '_').collect();
    if digits.len() > 1 && digits.starts_with('0') && digits.bytes().any(|b| b != b'0') {
        return Err(LexErrorKind::InvalidNumber("leading zeros in decimal integer literals are not permitted".into()));
    }
    digits.parse::<i128>().map_err(|_| too_large())
}

fn radix_int(text: &str, radix: u32) -> Result<i128, LexErrorKind> {
    let digits: String = text[2..].chars().filter(|&c| c != '_').collect();
    i128::from_str_radix(&digits, radix).map_err(|_| too_large())
}

fn too_large() -> LexErrorKind {
    LexErrorKind::InvalidNumber("integer literal is too large".into())
}

fn float(text: &str) -> Result<f64, LexErrorKind> {
    let digits: String = text.chars().filter(|&c| c != '_').collect();
    digits.parse::<f64>().map_err(|_| LexErrorKind::InvalidNumber("invalid float literal".into()))
}

/// Nesting limit for f-string replacement fields inside f-strings (keeps recursion bounded).
const MAX_FSTRING_NESTING: u32 = 32;

/// Callback for a string opening (prefix + quote): scans the body and closing quote.
fn string(lex: &mut logos::Lexer<Tok>) -> Result<StrLit, LexErrorKind> {
    let opening = lex.slice();
    let quote_start = opening.find(['"', '\'']).unwrap_or(0);
    let prefix = opening[..quote_start].to_ascii_lowercase();
    let quote = opening.as_bytes()[quote_start..].first().copied().unwrap_or(b'"');
    let triple = opening.len() - quote_start == 3;
    let raw = prefix.contains('r');
    let kind = if prefix.contains('b') {
        StrKind::Bytes
    } else if prefix.contains('f') {
        StrKind::Format
    } else {
        StrKind::Text
    };
    let rest = lex.remainder();
    let body_and_close = scan_string_body(rest.as_bytes(), 0, quote, triple, kind == StrKind::Format, 0);
    match body_and_close {
        Ok(end) => {
            lex.bump(end);
            let body = &rest[..end - if triple { 3 } else { 1 }];
            let value = if raw || kind != StrKind::Text { body.to_string() } else { unescape(body)? };
            Ok(StrLit { kind, value })
        }
        Err(e) => {
            // An unclosed one-line string ends at its line, so lexing resumes on the next
            // line; an unclosed triple-quoted string runs to the end of the file.
            let end = if triple { rest.len() } else { rest.find(['\n', '\r']).unwrap_or(rest.len()) };
            lex.bump(end);
            Err(e)
        }
    }
}

/// Scans a string body starting at `bytes[i]`; returns the index just past the closing quote.
fn scan_string_body(
    bytes: &[u8],
    mut i: usize,
    quote: u8,
    triple: bool,
    format: bool,
    nesting: u32,
) -> Result<usize, LexErrorKind> {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                i += if bytes[i + 1..].starts_with(b"\r\n") { 3 } else { 2 };
            }
            b if b == quote => {
                if !triple {
                    return Ok(i + 1);
                }
                if bytes[i..].starts_with(&[quote; 3]) {
                    return Ok(i + 3);
                }
                i += 1;
            }
            b'\n' | b'\r' if !triple => return Err(LexErrorKind::UnterminatedString),
            b'{' if format => {
                if bytes.get(i + 1) == Some(&b'{') {
                    i += 2;
                } else {
                    i = scan_replacement_field(bytes, i + 1, nesting + 1)?;
                }
            }
            _ => i += 1,
        }
    }
    Err(LexErrorKind::UnterminatedString)
}

/// Scans an f-string replacement field from just after its `{`; returns the index just past
/// its `}`. Quotes inside the expression open nested strings (Python 3.12 rules).
fn scan_replacement_field(bytes: &[u8], mut i: usize, nesting: u32) -> Result<usize, LexErrorKind> {
    if nesting > MAX_FSTRING_NESTING {
        return Err(LexErrorKind::UnterminatedString);
    }
    let mut depth = 0u32;
    let mut in_format_spec = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_format_spec {
            match b {
                b'{' => i = scan_replacement_field(bytes, i + 1, nesting + 1)?,
                b'}' => return Ok(i + 1),
                b'\\' => i += 2,
                _ => i += 1,
            }
            continue;
        }
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'}' => {
                if depth == 0 {
                    return Ok(i + 1);
                }
                depth -= 1;
                i += 1;
            }
            b':' if depth == 0 => {
                in_format_spec = true;
                i += 1;
            }
            b'\'' | b'"' => {
                let prefix_len = bytes[..i].iter().rev().take_while(|c| c.is_ascii_alphabetic()).count();
                let nested_format = bytes[i - prefix_len..i].iter().any(|c| c.eq_ignore_ascii_case(&b'f'));
                let triple = bytes[i..].starts_with(&[b; 3]);
                let open = if triple { 3 } else { 1 };
                i = scan_string_body(bytes, i + open, b, triple, nested_format, nesting + 1)?;
            }
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    Err(LexErrorKind::UnterminatedString)
}

/// Resolves the escape sequences of a non-raw text string body.
fn unescape(body: &str) -> Result<String, LexErrorKind> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            '\n' => {}
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
            }
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0C'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0B'),
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value).unwrap_or('\u{FFFD}'));
            }
            'x' | 'u' | 'U' => {
                let width = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let digits: String = (0..width).filter_map(|_| chars.next_if(|d| d.is_ascii_hexdigit())).collect();
                let decoded = (digits.len() == width)
                    .then(|| u32::from_str_radix(&digits, 16).ok().and_then(char::from_u32))
                    .flatten();
                match decoded {
                    Some(ch) => out.push(ch),
                    None => {
                        return Err(LexErrorKind::InvalidEscape(format!("invalid `\\{e}` escape")));
                    }
                }
            }
            'N' => return Err(LexErrorKind::InvalidEscape("`\\N{...}` escapes are not supported".into())),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Ok(out)
}

/// Lexes a whole source into tokens with byte ranges; errors are kept in place.
pub fn lex(source: &str) -> Vec<(Result<Tok, LexErrorKind>, std::ops::Range<usize>)> {
    Tok::lexer(source).spanned().collect()
}
