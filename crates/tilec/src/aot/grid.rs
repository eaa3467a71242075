//! `--grid` expressions of `tilec aot`: one to three comma-separated integer expressions over
//! the kernel's integer parameters and `-c` constants, as Triton's `compile.py --grid
//! M/16,N/16,1` takes them.
//!
//! Grammar: `expr := term (('+' | '-') term)*`, `term := unary (('*' | '/' | '%') unary)*`,
//! `unary := '-' unary | atom`, `atom := INT | NAME | 'cdiv' '(' expr ',' expr ')' | '(' expr ')'`
//! (`triton.cdiv` is `cdiv`). Arithmetic is C's on `int64_t` (`/` and `%` truncate toward
//! zero), wrapping on overflow; a division by zero makes the grid an error at run time.

use tilec_diagnostics::{Diagnostic, Span};

use crate::error::codes;

/// A grid expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// An integer literal.
    Int(i64),
    /// A parameter or constant name, with its span in the grid text.
    Name(String, Span),
    /// `-e`.
    Neg(Box<Expr>),
    /// `a OP b`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `cdiv(a, b)`: `(a + b - 1) / b`.
    Cdiv(Box<Expr>, Box<Expr>),
}

/// The binary operators (C's, on `int64_t`).
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// What a name in a grid expression stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// An integer runtime parameter, by its C name.
    Param(String),
    /// A known value (a `-c` constant, or a parameter specialized to 1).
    Value(i64),
}

fn grid_error(span: Span, message: String) -> Diagnostic {
    Diagnostic::error(codes::AOT_GRID, message).with_span(span)
}

/// Parses `text` into three expressions (missing trailing ones are `1`).
pub fn parse(text: &str) -> Result<[Expr; 3], Diagnostic> {
    let mut p = Parser { text, pos: 0 };
    let mut dims = Vec::new();
    loop {
        dims.push(p.expr()?);
        p.skip_space();
        match p.peek() {
            None => break,
            Some(',') if dims.len() < 3 => p.pos += 1,
            Some(',') => {
                return Err(grid_error(p.span_here(), "a grid has at most three dimensions: X[,Y[,Z]]".into()))
            }
            Some(c) => return Err(grid_error(p.span_here(), format!("unexpected `{c}` in the grid expression"))),
        }
    }
    while dims.len() < 3 {
        dims.push(Expr::Int(1));
    }
    Ok(dims.try_into().unwrap_or_else(|_| unreachable!("three dimensions")))
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn span_here(&self) -> Span {
        let len = self.peek().map_or(0, char::len_utf8);
        Span::new(self.pos, self.pos + len)
    }

    fn expect(&mut self, c: char) -> Result<(), Diagnostic> {
        self.skip_space();
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            let found = self.peek().map_or("the end".to_string(), |f| format!("`{f}`"));
            Err(grid_error(self.span_here(), format!("expected `{c}` in the grid expression, found {found}")))
        }
    }

    fn expr(&mut self) -> Result<Expr, Diagnostic> {
        let mut left = self.term()?;
        loop {
            self.skip_space();
            let op = match self.peek() {
                Some('+') => BinOp::Add,
                Some('-') => BinOp::Sub,
                _ => return Ok(left),
            };
            self.pos += 1;
            left = Expr::Binary(op, Box::new(left), Box::new(self.term()?));
        }
    }

    fn term(&mut self) -> Result<Expr, Diagnostic> {
        let mut left = self.unary()?;
        loop {
            self.skip_space();
            let op = match self.peek() {
                Some('*') => BinOp::Mul,
                Some('/') => BinOp::Div,
                Some('%') => BinOp::Rem,
                _ => return Ok(left),
            };
            self.pos += 1;
            // Python's floor division is spelled `//`; on the grid's non-negative sizes it is `/`.
            if op == BinOp::Div && self.peek() == Some('/') {
                self.pos += 1;
            }
            left = Expr::Binary(op, Box::new(left), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<Expr, Diagnostic> {
        self.skip_space();
        if self.peek() == Some('-') {
            self.pos += 1;
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, Diagnostic> {
        self.skip_space();
        let start = self.pos;
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let e = self.expr()?;
                self.expect(')')?;
                Ok(e)
            }
            Some(c) if c.is_ascii_digit() => {
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    self.pos += 1;
                }
                let digits = self.text[start..self.pos].replace('_', "");
                let span = Span::new(start, self.pos);
                digits
                    .parse::<i64>()
                    .map(Expr::Int)
                    .map_err(|_| grid_error(span, format!("`{}` is not an integer", &self.text[start..self.pos])))
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
                    self.pos += 1;
                }
                let name = &self.text[start..self.pos];
                let span = Span::new(start, self.pos);
                if matches!(name, "cdiv" | "triton.cdiv") {
                    self.expect('(')?;
                    let a = self.expr()?;
                    self.expect(',')?;
                    let b = self.expr()?;
                    self.expect(')')?;
                    return Ok(Expr::Cdiv(Box::new(a), Box::new(b)));
                }
                if name.contains('.') {
                    return Err(grid_error(span, format!("`{name}` is not a parameter name")));
                }
                Ok(Expr::Name(name.to_string(), span))
            }
            Some(c) => Err(grid_error(self.span_here(), format!("unexpected `{c}` in the grid expression"))),
            None => Err(grid_error(self.span_here(), "the grid expression ends too early".into())),
        }
    }
}

impl Expr {
    /// Every name the expression uses, with its span, in order.
    pub fn names(&self) -> Vec<(&str, Span)> {
        let mut out = Vec::new();
        self.collect_names(&mut out);
        out
    }

    fn collect_names<'a>(&'a self, out: &mut Vec<(&'a str, Span)>) {
        match self {
            Expr::Int(_) => {}
            Expr::Name(n, span) => out.push((n, *span)),
            Expr::Neg(e) => e.collect_names(out),
            Expr::Binary(_, a, b) | Expr::Cdiv(a, b) => {
                a.collect_names(out);
                b.collect_names(out);
            }
        }
    }

    /// The value of the expression, names replaced by `resolve`'s values: the same
    /// arithmetic as [`Expr::to_c`]'s C (wrapping; `/` and `%` truncate toward zero); a
    /// zero divisor, or a name `resolve` does not know, is an error.
    pub fn eval(&self, resolve: &dyn Fn(&str) -> Option<i64>) -> Result<i64, String> {
        let divide = |a: i64, b: i64, rem: bool| match (a.checked_div(b), a.checked_rem(b)) {
            (Some(q), Some(r)) => Ok(if rem { r } else { q }),
            _ => Err(format!("the grid divides {a} by {b}")),
        };
        Ok(match self {
            Expr::Int(v) => *v,
            Expr::Name(n, _) => resolve(n).ok_or_else(|| format!("`{n}` is not an integer argument or constant"))?,
            Expr::Neg(e) => e.eval(resolve)?.wrapping_neg(),
            Expr::Binary(op, a, b) => {
                let (a, b) = (a.eval(resolve)?, b.eval(resolve)?);
                match op {
                    BinOp::Add => a.wrapping_add(b),
                    BinOp::Sub => a.wrapping_sub(b),
                    BinOp::Mul => a.wrapping_mul(b),
                    BinOp::Div => divide(a, b, false)?,
                    BinOp::Rem => divide(a, b, true)?,
                }
            }
            Expr::Cdiv(a, b) => {
                let (a, b) = (a.eval(resolve)?, b.eval(resolve)?);
                divide(a.wrapping_add(b).wrapping_sub(1), b, false)?
            }
        })
    }

    /// The C expression (an `int64_t`), names replaced by `resolve`'s operands; divisions call
    /// `tilec_aot_div(a, b, &err)` / `tilec_aot_rem` / `tilec_aot_cdiv`, which the generated
    /// source defines and which set `err` on a zero divisor.
    pub fn to_c(&self, resolve: &dyn Fn(&str) -> Operand) -> String {
        match self {
            Expr::Int(v) => format!("INT64_C({v})"),
            Expr::Name(n, _) => match resolve(n) {
                Operand::Param(c) => format!("(int64_t){c}"),
                Operand::Value(v) => format!("INT64_C({v})"),
            },
            Expr::Neg(e) => format!("(int64_t)(0 - (uint64_t){})", e.to_c(resolve)),
            Expr::Binary(op, a, b) => {
                let (a, b) = (a.to_c(resolve), b.to_c(resolve));
                match op {
                    BinOp::Add => format!("(int64_t)((uint64_t){a} + (uint64_t){b})"),
                    BinOp::Sub => format!("(int64_t)((uint64_t){a} - (uint64_t){b})"),
                    BinOp::Mul => format!("(int64_t)((uint64_t){a} * (uint64_t){b})"),
                    BinOp::Div => format!("tilec_aot_div({a}, {b}, &err)"),
                    BinOp::Rem => format!("tilec_aot_rem({a}, {b}, &err)"),
                }
            }
            Expr::Cdiv(a, b) => format!("tilec_aot_cdiv({}, {}, &err)", a.to_c(resolve), b.to_c(resolve)),
        }
    }
}

/// The C helpers [`Expr::to_c`] calls.
pub const C_HELPERS: &str = "\
static inline int64_t tilec_aot_div(int64_t a, int64_t b, int *err) {
    if (b == 0 || (a == INT64_MIN && b == -1)) { *err = 1; return 0; }
    return a / b;
}
static inline int64_t tilec_aot_rem(int64_t a, int64_t b, int *err) {
    if (b == 0 || (a == INT64_MIN && b == -1)) { *err = 1; return 0; }
    return a % b;
}
static inline int64_t tilec_aot_cdiv(int64_t a, int64_t b, int *err) {
    return tilec_aot_div((int64_t)((uint64_t)a + (uint64_t)b - 1u), b, err);
}
";

#[cfg(test)]
mod tests {
    use super::*;

    fn c(text: &str) -> [String; 3] {
        let resolve = |n: &str| if n == "M" { Operand::Param("M".into()) } else { Operand::Value(64) };
        parse(text).unwrap().map(|e| e.to_c(&resolve))
    }

    #[test]
    fn grids_parse_into_c() {
        assert_eq!(
            c("M/16, cdiv(N, BLOCK)"),
            [
                "tilec_aot_div((int64_t)M, INT64_C(16), &err)".to_string(),
                "tilec_aot_cdiv(INT64_C(64), INT64_C(64), &err)".into(),
                "INT64_C(1)".into()
            ]
        );
        assert_eq!(c("-(M + 1) * 2 // 3")[0], "tilec_aot_div((int64_t)((uint64_t)(int64_t)(0 - (uint64_t)(int64_t)((uint64_t)(int64_t)M + (uint64_t)INT64_C(1))) * (uint64_t)INT64_C(2)), INT64_C(3), &err)");
        let grid = parse("triton.cdiv(M, B), N % 2, 4").unwrap();
        let names: Vec<&str> = grid.iter().flat_map(|e| e.names()).map(|(n, _)| n).collect();
        assert_eq!(names, ["M", "B", "N"]);
    }

    #[test]
    fn grids_evaluate_like_their_c() {
        let resolve = |n: &str| (n == "n").then_some(1000);
        let eval = |text: &str| parse(text).unwrap().map(|e| e.eval(&resolve));
        assert_eq!(eval("cdiv(n, 256), n / 3 % 7, -n // 7"), [Ok(4), Ok(4), Ok(-142)]);
        assert!(eval("n / 0")[0].as_ref().unwrap_err().contains("divides 1000 by 0"));
        assert!(eval("m")[0].as_ref().unwrap_err().contains("`m`"));
    }

    #[test]
    fn bad_grids_are_diagnostics_with_spans() {
        for (text, message, at) in [
            ("M/16,,1", "unexpected `,`", 5),
            ("1,2,3,4", "at most three", 5),
            ("cdiv(M 16)", "expected `,`", 7),
            ("M +", "ends too early", 3),
            ("(M", "expected `)`", 2),
            ("M $ 2", "unexpected `$`", 2),
            ("99999999999999999999", "is not an integer", 0),
            ("tl.cdiv(M, 2)", "is not a parameter name", 0),
        ] {
            let d = parse(text).unwrap_err();
            assert_eq!(d.code, codes::AOT_GRID);
            assert!(d.message.contains(message), "{text}: {}", d.message);
            assert_eq!(d.span.map(|s| s.start), Some(at), "{text}: {}", d.message);
        }
    }
}
