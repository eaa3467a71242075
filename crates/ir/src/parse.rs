//! The reader of the Tile IR's text form: [`parse_function`] turns what
//! [`crate::print_function`] prints back into a [`Function`], so that print → parse → print
//! is the identity (tested on every fixture) and stage tests can start from Tile IR text
//! (Cranelift's `reader` plays this part for CLIF).
//!
//! What the text does not hold is rebuilt: spans point into the parsed text (an op's span
//! covers its line up to the region it opens, a parameter's its declaration); op results
//! carry no source name (the printer numbers them anyway); kernel and region parameters keep
//! the names they are printed with. The parser accepts exactly the printer's syntax (see
//! [`crate::print`]); newlines matter only in that an op's optional trailing operands
//! (`scf.yield`, `scf.condition`, `tt.print`) are on its line. `//` lines are comments, except
//! a first line `// constexprs: ...`.
//!
//! It checks what is needed to rebuild the function unambiguously, and no more (run
//! [`crate::verify()`] on its output): names are defined once in their region and its
//! enclosing ones and defined before use; every printed type is the type of the value it
//! annotates; op names spelled by operand type (`arith.divsi`/`divui`, `arith.cmpi slt`/
//! `ult`, `arith.negf`/`negi`, casts) agree with the operand types.
//!
//! Codes: `tilec_diagnostics::codes::ir::PARSE_SYNTAX` (E0341) text that does not parse (the
//! message says what was expected), `PARSE_NAME` (E0342) a value name used but not defined,
//! or defined twice, `PARSE_MISMATCH` (E0343) a printed type or a type-dependent op name that
//! disagrees with the types of the values.

use std::collections::HashMap;

use tilec_diagnostics::codes::ir as codes;
use tilec_diagnostics::{Diagnostic, Span};

use crate::ir::*;
use crate::print::{
    atomic_name, axis_text, binary_name, cast_name, cmp_spelling, float_pred, int_pred, math_name, reduce_name,
    scalar_type_text, scan_name, sem_name, type_text, unary_name,
};

type Result<T> = std::result::Result<T, Diagnostic>;

/// Parses one kernel in the printed Tile IR form.
pub fn parse_function(text: &str) -> Result<Function> {
    let mut r = Reader { text, pos: 0, f: Function::new("", Vec::new(), Span::DUMMY), scopes: vec![HashMap::new()] };
    r.function()?;
    Ok(r.f)
}

const BINARY_OPS: [BinaryOp; BinaryOp::ALL.len()] = BinaryOp::ALL;
const UNARY_OPS: [UnaryOp; 3] = [UnaryOp::Neg, UnaryOp::Not, UnaryOp::Abs];
const MATH_FNS: [MathFn; MathFn::ALL.len()] = MathFn::ALL;
/// `IntRetype` before `Bitcast`: both print as `arith.bitcast`, and an integer-to-integer
/// `arith.bitcast` reads as the retype.
const CAST_OPS: [CastOp; 11] = [
    CastOp::IntExt,
    CastOp::IntTrunc,
    CastOp::IntRetype,
    CastOp::FloatExt,
    CastOp::FloatTrunc,
    CastOp::IntToFloat,
    CastOp::FloatToInt,
    CastOp::Bitcast,
    CastOp::PtrToInt,
    CastOp::IntToPtr,
    CastOp::PtrCast,
];
const CMP_PREDS: [CmpPred; 6] = [CmpPred::Eq, CmpPred::Ne, CmpPred::Lt, CmpPred::Le, CmpPred::Gt, CmpPred::Ge];
const REDUCE_KINDS: [ReduceKind; 9] = [
    ReduceKind::Sum,
    ReduceKind::Prod,
    ReduceKind::Max,
    ReduceKind::Min,
    ReduceKind::Xor,
    ReduceKind::And,
    ReduceKind::Or,
    ReduceKind::ArgMax,
    ReduceKind::ArgMin,
];
const SCAN_KINDS: [ScanKind; 4] = [ScanKind::Sum, ScanKind::Prod, ScanKind::Max, ScanKind::Min];
const ATOMIC_OPS: [AtomicOp; 7] =
    [AtomicOp::Add, AtomicOp::Max, AtomicOp::Min, AtomicOp::Xchg, AtomicOp::And, AtomicOp::Or, AtomicOp::Xor];
const MEM_SEMS: [MemSem; 4] = [MemSem::Relaxed, MemSem::Acquire, MemSem::Release, MemSem::AcqRel];
const AXES: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

/// The element kinds whose spellings differ (for looking up a spelled name).
const SAMPLE_ELEMS: [Option<ScalarType>; 4] =
    [None, Some(ScalarType::I32), Some(ScalarType::U32), Some(ScalarType::F32)];

/// The entry of `items` whose spelling is `text`.
fn lookup<T: Copy>(items: &[T], text: &str, spell: impl Fn(T) -> &'static str) -> Option<T> {
    items.iter().copied().find(|&x| spell(x) == text)
}

/// A parsed op's result names, with their spans.
type ResultNames = Vec<(String, Span)>;

struct Reader<'t> {
    text: &'t str,
    pos: usize,
    f: Function,
    /// Value names by region, innermost last.
    scopes: Vec<HashMap<String, Value>>,
}

impl<'t> Reader<'t> {
    // ----- characters and tokens -------------------------------------------------------

    fn rest(&self) -> &'t str {
        &self.text[self.pos..]
    }

    /// Skips whitespace (newlines included) and `//` comments.
    fn skip_ws(&mut self) {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start();
            self.pos += rest.len() - trimmed.len();
            if !trimmed.starts_with("//") {
                return;
            }
            self.pos += trimmed.find('\n').unwrap_or(trimmed.len());
        }
    }

    /// Whether the current line has nothing more but spaces or a comment.
    fn at_line_end(&self) -> bool {
        let rest = self.rest().trim_start_matches([' ', '\t']);
        rest.is_empty() || rest.starts_with('\n') || rest.starts_with("\r\n") || rest.starts_with("//")
    }

    /// The next character after whitespace and comments (not consumed).
    fn peek(&mut self) -> Option<char> {
        let save = self.pos;
        self.skip_ws();
        let next = self.rest().chars().next();
        self.pos = save;
        next
    }

    /// Where the next token starts (whitespace and comments skipped).
    fn token_start(&mut self) -> usize {
        self.skip_ws();
        self.pos
    }

    /// Consumes `token` after whitespace and comments, if it comes next (else nothing, so
    /// that an op's span ends at its last token).
    fn eat(&mut self, token: &str) -> bool {
        let save = self.pos;
        self.skip_ws();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            self.pos = save;
            false
        }
    }

    fn expect(&mut self, token: &str) -> Result<()> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{token}`")))
        }
    }

    /// A syntax error at the next token: `message, found TOKEN`.
    fn error(&mut self, message: impl AsRef<str>) -> Diagnostic {
        self.skip_ws();
        let rest = self.rest();
        let len = rest.find(char::is_whitespace).unwrap_or(rest.len()).min(24);
        let len = (0..=len).rev().find(|&l| rest.is_char_boundary(l)).unwrap_or(0);
        let found = if rest.is_empty() { "the end of the text".to_string() } else { format!("`{}`", &rest[..len]) };
        Diagnostic::error(codes::PARSE_SYNTAX, format!("{}, found {found}", message.as_ref()))
            .with_span(Span::new(self.pos, self.pos + len.max(1).min(rest.len())))
    }

    /// The longest run of `[A-Za-z0-9_.]` (op names, keywords, type names), possibly empty.
    fn word(&mut self) -> (&'t str, Span) {
        let save = self.pos;
        self.skip_ws();
        let rest = self.rest();
        let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')).unwrap_or(rest.len());
        let start = self.token_start();
        self.pos = if len == 0 { save } else { start + len };
        (&rest[..len], Span::new(start, start + len))
    }

    fn expect_word(&mut self, word: &str) -> Result<()> {
        let save = self.pos;
        if self.word().0 == word {
            return Ok(());
        }
        self.pos = save;
        Err(self.error(format!("expected `{word}`")))
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let save = self.pos;
        if self.word().0 == word {
            return true;
        }
        self.pos = save;
        false
    }

    fn integer<T: std::str::FromStr>(&mut self) -> Result<T> {
        self.skip_ws();
        let rest = self.rest();
        let sign = usize::from(rest.starts_with('-'));
        let digits = rest[sign..].find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len() - sign);
        match rest[..sign + digits].parse() {
            Ok(v) if digits > 0 => {
                self.pos += sign + digits;
                Ok(v)
            }
            _ => Err(self.error("expected an integer in range")),
        }
    }

    /// `{key = INTEGER}`.
    fn int_attribute<T: std::str::FromStr>(&mut self, key: &str) -> Result<T> {
        self.expect("{")?;
        self.expect_word(key)?;
        self.expect("=")?;
        let value = self.integer()?;
        self.expect("}")?;
        Ok(value)
    }

    /// A string in Rust's `{:?}` form.
    fn string(&mut self) -> Result<String> {
        self.expect("\"")?;
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => {
                    let escaped = match chars.next().map(|(_, e)| e) {
                        Some('n') => '\n',
                        Some('t') => '\t',
                        Some('r') => '\r',
                        Some('0') => '\0',
                        Some(e @ ('\\' | '"' | '\'')) => e,
                        Some('u') => {
                            let rest = chars.as_str();
                            let code = rest
                                .strip_prefix('{')
                                .and_then(|r| r.split_once('}'))
                                .and_then(|(hex, _)| u32::from_str_radix(hex, 16).ok())
                                .and_then(char::from_u32);
                            let Some(ch) = code else { break };
                            let skip = rest.find('}').map_or(0, |k| k + 1);
                            for _ in 0..skip {
                                chars.next();
                            }
                            ch
                        }
                        _ => break,
                    };
                    out.push(escaped);
                }
                c => out.push(c),
            }
        }
        Err(self.error("expected a string with Rust escapes ending in `\"`"))
    }

    // ----- types -----------------------------------------------------------------------

    fn scalar(&mut self) -> Result<ScalarType> {
        let save = self.pos;
        let (word, _) = self.word();
        match lookup(&ScalarType::ALL, word, scalar_type_text) {
            Some(s) => Ok(s),
            None => {
                self.pos = save;
                Err(self.error("expected a scalar type (`i32`, `ui8`, `f32`, ...)"))
            }
        }
    }

    fn elem(&mut self) -> Result<Elem> {
        if self.eat("!tt.ptr<") {
            let s = self.scalar()?;
            self.expect(">")?;
            Ok(Elem::Ptr(s))
        } else {
            Ok(Elem::Scalar(self.scalar()?))
        }
    }

    /// `f32`, `!tt.ptr<f32>`, `tensor<64x32xf32>`.
    fn ty(&mut self) -> Result<Type> {
        if !self.eat("tensor<") {
            return Ok(Type { elem: self.elem()?, shape: Vec::new() });
        }
        let mut shape = Vec::new();
        while self.rest().starts_with(|c: char| c.is_ascii_digit()) {
            shape.push(self.integer()?);
            if !self.rest().starts_with('x') {
                return Err(self.error("expected `x` after a dimension"));
            }
            self.pos += 1;
        }
        let elem = self.elem()?;
        self.expect(">")?;
        Ok(Type { elem, shape })
    }

    /// `T, T, ...` (at least one).
    fn types(&mut self) -> Result<Vec<Type>> {
        let mut types = vec![self.ty()?];
        while self.eat(",") {
            types.push(self.ty()?);
        }
        Ok(types)
    }

    /// `(T, ...)`, possibly empty.
    fn type_list(&mut self) -> Result<Vec<Type>> {
        self.expect("(")?;
        if self.eat(")") {
            return Ok(Vec::new());
        }
        let types = self.types()?;
        self.expect(")")?;
        Ok(types)
    }

    // ----- values ----------------------------------------------------------------------

    /// `%name`.
    fn value_name(&mut self) -> Result<(String, Span)> {
        self.skip_ws();
        let start = self.token_start();
        if !self.rest().starts_with('%') {
            return Err(self.error("expected a value (`%name`)"));
        }
        self.pos += 1;
        let rest = self.rest();
        let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        if len == 0 {
            return Err(self.error("expected a value name after `%`"));
        }
        self.pos += len;
        Ok((rest[..len].to_string(), Span::new(start, self.pos)))
    }

    /// A use of a defined value.
    fn operand(&mut self) -> Result<Value> {
        let (name, span) = self.value_name()?;
        self.scopes.iter().rev().find_map(|s| s.get(&name).copied()).ok_or_else(|| {
            Diagnostic::error(codes::PARSE_NAME, format!("`%{name}` is not defined here"))
                .with_label(span, "not defined")
        })
    }

    /// `%a, %b, ...` (at least one).
    fn operands(&mut self) -> Result<Vec<Value>> {
        let mut values = vec![self.operand()?];
        while self.eat(",") {
            values.push(self.operand()?);
        }
        Ok(values)
    }

    fn define(&mut self, name: &str, span: Span, v: Value) -> Result<()> {
        if self.scopes.iter().any(|s| s.contains_key(name)) {
            let d = Diagnostic::error(codes::PARSE_NAME, format!("`%{name}` is already defined"))
                .with_label(span, "defined again");
            return Err(d);
        }
        self.scopes.last_mut().expect("a scope is open").insert(name.to_string(), v);
        Ok(())
    }

    /// Adds a parameter of type `ty` named `name` to `region` (a source name unless the
    /// printer numbered it).
    fn region_param(&mut self, region: RegionId, name: &str, span: Span, ty: Type) -> Result<Value> {
        let source_name = is_source_name(name).then(|| name.to_string());
        let v = self.f.add_region_param(region, ty, source_name);
        self.define(name, span, v)?;
        Ok(v)
    }

    fn ty_of(&self, v: Value) -> &Type {
        &self.f.values[v].ty
    }

    /// The printed type `printed` (at `span`) is the type of `v`.
    fn check_type(&self, v: Value, printed: &Type, span: Span) -> Result<()> {
        if self.ty_of(v) == printed {
            return Ok(());
        }
        let message =
            format!("the text says {} but the value has type {}", type_text(printed), type_text(self.ty_of(v)));
        Err(Diagnostic::error(codes::PARSE_MISMATCH, message).with_span(span))
    }

    /// `: T` after `values`, all of type `T`, or `: T1, T2, ...` one per value (`each`).
    fn check_types(&mut self, values: &[Value], each: bool) -> Result<()> {
        self.expect(":")?;
        let start = self.token_start();
        let types = self.types()?;
        let span = Span::new(start, self.pos);
        if each && types.len() != values.len() {
            let message = format!("{} types for {} values", types.len(), values.len());
            return Err(Diagnostic::error(codes::PARSE_SYNTAX, message).with_span(span));
        }
        for (i, &v) in values.iter().enumerate() {
            self.check_type(v, &types[if each { i } else { 0 }], span)?;
        }
        Ok(())
    }

    // ----- the function ----------------------------------------------------------------

    fn function(&mut self) -> Result<()> {
        let constexprs = self.constexprs();
        self.expect_word("tt.func")?;
        self.expect("@")?;
        let (name, _) = self.word();
        if name.is_empty() {
            return Err(self.error("expected the kernel name"));
        }
        self.expect("(")?;
        let mut params = Vec::new();
        let mut names = Vec::new();
        if !self.eat(")") {
            loop {
                let (pname, nspan) = self.value_name()?;
                self.expect(":")?;
                let ty = self.ty()?;
                let divisibility = if self.peek() == Some('{') { self.int_attribute("tt.divisibility")? } else { 1 };
                params.push(Param {
                    name: pname.clone(),
                    ty,
                    divisibility,
                    span: Span::new(nspan.start as usize, self.pos),
                });
                names.push((pname, nspan));
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(")")?;
        }
        self.f = Function::new(name, params, Span::new(0, self.text.len()));
        self.f.constexprs = constexprs;
        for ((pname, span), v) in names.into_iter().zip(self.f.param_values().to_vec()) {
            self.define(&pname, span, v)?;
        }
        self.expect("{")?;
        let body = self.f.body;
        while !self.eat_word("tt.return") {
            if self.peek().is_none() {
                return Err(self.error("expected `tt.return` ending the kernel"));
            }
            self.op(body)?;
        }
        self.expect("}")?;
        self.skip_ws();
        if !self.rest().is_empty() {
            return Err(self.error("expected the end of the text after the kernel"));
        }
        Ok(())
    }

    /// `// constexprs: A = 1, B = 'x'` as the first line, if present.
    fn constexprs(&mut self) -> Vec<(String, String)> {
        let rest = self.rest();
        let trimmed = rest.trim_start();
        let Some(line) = trimmed.strip_prefix("// constexprs: ") else { return Vec::new() };
        let line = &line[..line.find('\n').unwrap_or(line.len())];
        self.pos += rest.len() - trimmed.len() + "// constexprs: ".len() + line.len();
        let mut list: Vec<(String, String)> = Vec::new();
        for piece in line.split(", ") {
            match (piece.split_once(" = "), list.last_mut()) {
                (Some((name, value)), _) if is_source_name(name) => list.push((name.into(), value.into())),
                (_, Some((_, value))) => {
                    value.push_str(", ");
                    value.push_str(piece);
                }
                (_, None) => list.push((piece.into(), String::new())),
            }
        }
        list
    }

    /// Parses ops into `region` until its closing `}` (not consumed).
    fn region_ops(&mut self, region: RegionId) -> Result<()> {
        while self.peek() != Some('}') {
            if self.peek().is_none() {
                return Err(self.error("expected `}` closing a region"));
            }
            self.op(region)?;
        }
        Ok(())
    }

    /// `{ ops }` into `region`, in a new scope.
    fn region_block(&mut self, region: RegionId) -> Result<()> {
        self.region_ops(region)?;
        self.expect("}")?;
        self.scopes.pop();
        Ok(())
    }

    /// Appends `kind` with results of `types` to `region` and binds the result names.
    fn finish(
        &mut self,
        region: RegionId,
        kind: OpKind,
        types: Vec<Type>,
        results: ResultNames,
        span: Span,
    ) -> Result<OpId> {
        if types.len() != results.len() {
            let message = format!("the op has {} results but {} names are given", types.len(), results.len());
            return Err(Diagnostic::error(codes::PARSE_SYNTAX, message).with_span(span));
        }
        let id = self.f.append_op(region, kind, types, span);
        for ((name, nspan), v) in results.into_iter().zip(self.f.ops[id].results.clone()) {
            self.define(&name, nspan, v)?;
        }
        Ok(id)
    }

    /// `name` (the spelling in the text, at `span`) is how the printer spells the op.
    fn check_spelling(&self, name: &str, printed: &str, span: Span) -> Result<()> {
        if name == printed {
            return Ok(());
        }
        let message = format!("`{name}` does not match the operand types: the op is spelled `{printed}`");
        Err(Diagnostic::error(codes::PARSE_MISMATCH, message).with_span(span))
    }

    /// `: A`, checked to be `operand`'s type.
    fn operand_type(&mut self, operand: Value) -> Result<Type> {
        self.expect(":")?;
        let start = self.token_start();
        let from = self.ty()?;
        self.check_type(operand, &from, Span::new(start, self.pos))?;
        Ok(from)
    }

    /// `: A` (the result type is `A`) or `: A -> B`; checks `A` is `operand`'s type.
    fn conversion(&mut self, operand: Value) -> Result<Type> {
        let from = self.operand_type(operand)?;
        if self.eat("->") {
            self.ty()
        } else {
            Ok(from)
        }
    }

    /// `(%p: T, ...)`, region params of `region` (`empty_ok`: `()` allowed).
    fn typed_params(&mut self, region: RegionId) -> Result<()> {
        self.expect("(")?;
        if self.eat(")") {
            return Ok(());
        }
        loop {
            let (name, span) = self.value_name()?;
            self.expect(":")?;
            let ty = self.ty()?;
            self.region_param(region, &name, span, ty)?;
            if !self.eat(",") {
                break;
            }
        }
        self.expect(")")
    }

    /// A new region whose params are declared by `declare` in a new scope (closed by
    /// [`Reader::region_block`]).
    fn open_region(&mut self) -> RegionId {
        self.scopes.push(HashMap::new());
        self.f.new_region()
    }

    fn op(&mut self, region: RegionId) -> Result<()> {
        self.skip_ws();
        let start = self.token_start();
        let mut results = Vec::new();
        if self.rest().starts_with('%') {
            loop {
                results.push(self.value_name()?);
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("=")?;
        }
        let (name, name_span) = self.word();
        if name.is_empty() {
            return Err(self.error("expected an op name"));
        }
        let span = |r: &Self| Span::new(start, r.pos);
        let i32t = Type::scalar(ScalarType::I32);
        match name {
            "arith.constant" => {
                let dense = self.eat("dense<");
                self.skip_ws();
                let text_start = self.pos;
                let rest = self.rest();
                let len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+')))
                    .unwrap_or(rest.len());
                self.pos += len;
                let text = &rest[..len];
                let constant = parse_constant(text).ok_or_else(|| {
                    Diagnostic::error(codes::PARSE_SYNTAX, format!("`{text}` is not a constant"))
                        .with_span(Span::new(text_start, text_start + len))
                })?;
                if dense {
                    self.expect(">")?;
                }
                self.expect(":")?;
                let ty = self.ty()?;
                if dense != ty.is_tensor() {
                    return Err(Diagnostic::error(
                        codes::PARSE_MISMATCH,
                        "a tensor constant is written `dense<...>`, a scalar one is not",
                    )
                    .with_span(span(self)));
                }
                self.finish(region, OpKind::Constant(constant), vec![ty], results, span(self))?;
            }
            "tt.get_program_id" | "tt.get_num_programs" => {
                let (word, _) = self.word();
                let axis =
                    lookup(&AXES, word, axis_text).ok_or_else(|| self.error("expected an axis (`x`, `y`, `z`)"))?;
                self.expect(":")?;
                self.expect_word("i32")?;
                let kind =
                    if name == "tt.get_program_id" { OpKind::ProgramId(axis) } else { OpKind::NumPrograms(axis) };
                self.finish(region, kind, vec![i32t], results, span(self))?;
            }
            "tt.make_range" => {
                self.expect("{")?;
                self.expect_word("start")?;
                self.expect("=")?;
                let start_value = self.integer()?;
                self.expect(",")?;
                self.expect_word("end")?;
                self.expect("=")?;
                let end = self.integer()?;
                self.expect("}")?;
                self.expect(":")?;
                let ty = self.ty()?;
                self.finish(region, OpKind::MakeRange { start: start_value, end }, vec![ty], results, span(self))?;
            }
            "tt.splat" | "tt.broadcast" | "tt.reshape" | "tt.expand_dims" | "tt.trans" => {
                let value = self.operand()?;
                let kind = match name {
                    "tt.splat" => OpKind::Splat(value),
                    "tt.broadcast" => OpKind::Broadcast(value),
                    "tt.reshape" => OpKind::Reshape(value),
                    "tt.expand_dims" => OpKind::ExpandDims { value, axis: self.int_attribute("axis")? },
                    _ => {
                        self.expect("{")?;
                        self.expect_word("order")?;
                        self.expect("=")?;
                        self.expect("[")?;
                        let mut order = vec![self.integer()?];
                        while self.eat(",") {
                            order.push(self.integer()?);
                        }
                        self.expect("]")?;
                        self.expect("}")?;
                        OpKind::Trans { value, order }
                    }
                };
                let ty = self.conversion(value)?;
                self.finish(region, kind, vec![ty], results, span(self))?;
            }
            "tt.addptr" => {
                let ptr = self.operand()?;
                self.expect(",")?;
                let offset = self.operand()?;
                self.check_types(&[ptr, offset], true)?;
                let ty = self.ty_of(ptr).clone();
                self.finish(region, OpKind::AddPtr { ptr, offset }, vec![ty], results, span(self))?;
            }
            "tt.load" | "tt.store" | "tt.atomic_rmw" | "tt.atomic_cas" => {
                let prefix = match name {
                    "tt.atomic_rmw" => {
                        let (word, _) = self.word();
                        let op = lookup(&ATOMIC_OPS, word, atomic_name)
                            .ok_or_else(|| self.error("expected an atomic op (`add`, `max`, ...)"))?;
                        self.expect(",")?;
                        Some((Some(op), self.sem()?))
                    }
                    "tt.atomic_cas" => Some((None, self.sem()?)),
                    _ => None,
                };
                if prefix.is_some() {
                    self.expect(",")?;
                }
                let operands_start = self.token_start();
                let operands = self.operands()?;
                self.check_types(&operands[..1], false)?;
                let ptr = operands[0];
                let pointee = self.ty_of(ptr).elem.pointee();
                let loaded = pointee.map(|s| self.ty_of(ptr).with_elem(Elem::Scalar(s)));
                let (counts, kind) = match (name, prefix) {
                    ("tt.load", _) => {
                        (1..=3, OpKind::Load { ptr, mask: operands.get(1).copied(), other: operands.get(2).copied() })
                    }
                    ("tt.store", _) if operands.len() >= 2 => {
                        (2..=3, OpKind::Store { ptr, value: operands[1], mask: operands.get(2).copied() })
                    }
                    ("tt.atomic_rmw", Some((Some(op), sem))) if operands.len() >= 2 => {
                        (2..=3, OpKind::AtomicRmw { op, ptr, value: operands[1], mask: operands.get(2).copied(), sem })
                    }
                    ("tt.atomic_cas", Some((_, sem))) if operands.len() == 3 => {
                        (3..=3, OpKind::AtomicCas { ptr, cmp: operands[1], value: operands[2], sem })
                    }
                    _ => (0..=0, OpKind::DebugBarrier),
                };
                if !counts.contains(&operands.len()) {
                    let message = format!("`{name}` does not take {} operands", operands.len());
                    return Err(
                        Diagnostic::error(codes::PARSE_SYNTAX, message).with_span(Span::new(operands_start, self.pos))
                    );
                }
                let types = match (name, loaded) {
                    ("tt.store", _) => vec![],
                    (_, Some(t)) => vec![t],
                    (_, None) => {
                        let message = format!("`{name}` needs a pointer, not {}", type_text(self.ty_of(ptr)));
                        return Err(Diagnostic::error(codes::PARSE_MISMATCH, message).with_span(span(self)));
                    }
                };
                self.finish(region, kind, types, results, span(self))?;
            }
            "arith.cmpi" | "arith.cmpf" => {
                let (word, pred_span) = self.word();
                let pred = lookup(&CMP_PREDS, word, float_pred)
                    .or_else(|| lookup(&CMP_PREDS, word, |p| int_pred(p, false)))
                    .or_else(|| lookup(&CMP_PREDS, word, |p| int_pred(p, true)))
                    .ok_or_else(|| self.error("expected a comparison predicate"))?;
                self.expect(",")?;
                let lhs = self.operand()?;
                self.expect(",")?;
                let rhs = self.operand()?;
                self.check_types(&[lhs, rhs], false)?;
                let (cmp_name, pred_name) = cmp_spelling(pred, Some(self.ty_of(lhs).elem));
                self.check_spelling(
                    &format!("{name} {word}"),
                    &format!("{cmp_name} {pred_name}"),
                    name_span.to(pred_span),
                )?;
                let ty = self.ty_of(lhs).with_elem(Elem::Scalar(ScalarType::I1));
                self.finish(region, OpKind::Cmp { pred, lhs, rhs }, vec![ty], results, span(self))?;
            }
            "arith.select" => {
                let cond = self.operand()?;
                self.expect(",")?;
                let on_true = self.operand()?;
                self.expect(",")?;
                let on_false = self.operand()?;
                self.check_types(&[cond, on_true], true)?;
                let ty = self.ty_of(on_true).clone();
                self.finish(region, OpKind::Select { cond, on_true, on_false }, vec![ty], results, span(self))?;
            }
            "tt.reduce" | "tt.scan" => self.reduce_or_scan(region, name, results, start)?,
            "tt.gather" => {
                let src = self.operand()?;
                self.expect("[")?;
                let index = self.operand()?;
                self.expect("]")?;
                let axis = self.int_attribute("axis")?;
                self.expect(":")?;
                let types_start = self.token_start();
                let types = self.type_list()?;
                let types_span = Span::new(types_start, self.pos);
                let [src_ty, index_ty] = types.as_slice() else {
                    return Err(Diagnostic::error(codes::PARSE_SYNTAX, "`tt.gather` takes 2 operand types")
                        .with_span(types_span));
                };
                self.check_type(src, src_ty, types_span)?;
                self.check_type(index, index_ty, types_span)?;
                self.expect("->")?;
                let ty = self.ty()?;
                self.finish(region, OpKind::Gather { src, index, axis }, vec![ty], results, span(self))?;
            }
            "tt.dot" => {
                let operands = self.operands()?;
                let &[a, b, acc] = operands.as_slice() else {
                    return Err(
                        Diagnostic::error(codes::PARSE_SYNTAX, "`tt.dot` takes 3 operands").with_span(span(self))
                    );
                };
                let precision = if self.peek() == Some('{') {
                    self.expect("{")?;
                    self.expect_word("input_precision")?;
                    self.expect("=")?;
                    let precision = match self.word().0 {
                        "tf32" => DotPrecision::Tf32,
                        "tf32x3" => DotPrecision::Tf32x3,
                        _ => return Err(self.error("expected `tf32` or `tf32x3`")),
                    };
                    self.expect("}")?;
                    precision
                } else {
                    DotPrecision::Ieee
                };
                self.expect(":")?;
                let types_start = self.token_start();
                let ta = self.ty()?;
                self.expect("*")?;
                let tb = self.ty()?;
                self.expect("->")?;
                let tc = self.ty()?;
                let types_span = Span::new(types_start, self.pos);
                for (v, t) in [(a, &ta), (b, &tb), (acc, &tc)] {
                    self.check_type(v, t, types_span)?;
                }
                self.finish(region, OpKind::Dot { a, b, acc, precision }, vec![tc], results, span(self))?;
            }
            "tt.assert" => {
                let cond = self.operand()?;
                self.expect(",")?;
                let message = self.string()?;
                self.check_types(&[cond], false)?;
                self.finish(region, OpKind::Assert { cond, message }, vec![], results, span(self))?;
            }
            "tt.assume" => {
                let cond = self.operand()?;
                self.check_types(&[cond], false)?;
                self.finish(region, OpKind::Assume { cond }, vec![], results, span(self))?;
            }
            "tt.print" => {
                let prefix = self.string()?;
                let hex = !self.at_line_end() && self.peek() == Some('{') && {
                    self.expect("{")?;
                    self.expect_word("hex")?;
                    self.expect("=")?;
                    self.expect_word("true")?;
                    self.expect("}")?;
                    true
                };
                let args = if self.at_line_end() { Vec::new() } else { self.operands()? };
                if !args.is_empty() {
                    self.check_types(&args, true)?;
                }
                self.finish(region, OpKind::Print { prefix, args, hex }, vec![], results, span(self))?;
            }
            "gpu.barrier" => {
                self.finish(region, OpKind::DebugBarrier, vec![], results, span(self))?;
            }
            "tt.multiple_of" | "tt.max_contiguous" | "tt.max_constancy" => {
                let value = self.operand()?;
                self.expect("[")?;
                let mut values = vec![self.integer()?];
                while self.eat(",") {
                    values.push(self.integer()?);
                }
                self.expect("]")?;
                self.check_types(&[value], false)?;
                let hint = match name {
                    "tt.multiple_of" => Hint::MultipleOf(values),
                    "tt.max_contiguous" => Hint::MaxContiguous(values),
                    _ => Hint::MaxConstancy(values),
                };
                let ty = self.ty_of(value).clone();
                self.finish(region, OpKind::Hint { value, hint }, vec![ty], results, span(self))?;
            }
            "scf.for" => self.scf_for(region, results, start)?,
            "scf.if" => self.scf_if(region, results, start)?,
            "scf.while" => self.scf_while(region, results, start)?,
            "scf.yield" => {
                let values = if self.at_line_end() { Vec::new() } else { self.operands()? };
                if !values.is_empty() {
                    self.check_types(&values, true)?;
                }
                self.finish(region, OpKind::Yield(values), vec![], results, span(self))?;
            }
            "scf.condition" => {
                self.expect("(")?;
                let cond = self.operand()?;
                self.expect(")")?;
                let args = if self.at_line_end() { Vec::new() } else { self.operands()? };
                if !args.is_empty() {
                    self.check_types(&args, true)?;
                }
                self.finish(region, OpKind::Condition { cond, args }, vec![], results, span(self))?;
            }
            _ => self.elementwise(region, name, name_span, results, start)?,
        }
        Ok(())
    }

    fn sem(&mut self) -> Result<MemSem> {
        let (word, _) = self.word();
        lookup(&MEM_SEMS, word, sem_name).ok_or_else(|| self.error("expected a memory order (`acq_rel`, ...)"))
    }

    /// Binary, unary, math and cast ops: their names depend on the operand types.
    fn elementwise(
        &mut self,
        region: RegionId,
        name: &str,
        name_span: Span,
        results: ResultNames,
        start: usize,
    ) -> Result<()> {
        let binary = BINARY_OPS.iter().copied().find(|&op| SAMPLE_ELEMS.iter().any(|&e| binary_name(op, e) == name));
        let unary = UNARY_OPS.iter().copied().find(|&op| [false, true].iter().any(|&fl| unary_name(op, fl) == name));
        let math = name.strip_prefix("math.").and_then(|m| lookup(&MATH_FNS, m, math_name));
        let casts: Vec<CastOp> = CAST_OPS
            .iter()
            .copied()
            .filter(|&op| SAMPLE_ELEMS.iter().any(|&a| SAMPLE_ELEMS.iter().any(|&b| cast_name(op, a, b) == name)))
            .collect();
        let scalar = |r: &Self, v: Value| r.ty_of(v).scalar_type();
        if let Some(op) = binary {
            let lhs = self.operand()?;
            self.expect(",")?;
            let rhs = self.operand()?;
            self.check_types(&[lhs, rhs], false)?;
            self.check_spelling(name, binary_name(op, scalar(self, lhs)), name_span)?;
            let ty = self.ty_of(lhs).clone();
            self.finish(region, OpKind::Binary { op, lhs, rhs }, vec![ty], results, Span::new(start, self.pos))?;
        } else if let Some(op) = unary {
            let value = self.operand()?;
            self.check_types(&[value], false)?;
            let float = scalar(self, value).is_some_and(|s| s.is_float());
            self.check_spelling(name, unary_name(op, float), name_span)?;
            let ty = self.ty_of(value).clone();
            self.finish(region, OpKind::Unary { op, value }, vec![ty], results, Span::new(start, self.pos))?;
        } else if let Some(func) = math {
            let value = self.operand()?;
            self.check_types(&[value], false)?;
            let ty = self.ty_of(value).clone();
            self.finish(region, OpKind::Math { func, value }, vec![ty], results, Span::new(start, self.pos))?;
        } else if name == "math.fma" {
            let operands = self.operands()?;
            let &[a, b, c] = operands.as_slice() else {
                return Err(Diagnostic::error(codes::PARSE_SYNTAX, "`math.fma` takes 3 operands").with_span(name_span));
            };
            self.check_types(&operands, false)?;
            let ty = self.ty_of(a).clone();
            self.finish(region, OpKind::Fma { a, b, c }, vec![ty], results, Span::new(start, self.pos))?;
        } else if !casts.is_empty() {
            let value = self.operand()?;
            let to = self.conversion(value)?;
            let (src, dst) = (self.ty_of(value).elem, to.elem);
            let legal = |op: &CastOp| crate::verify::cast_is_legal(*op, src, dst);
            let op = casts.iter().copied().find(legal).unwrap_or(casts[0]);
            self.check_spelling(name, cast_name(op, src.scalar(), dst.scalar()), name_span)?;
            self.finish(region, OpKind::Cast { op, value }, vec![to], results, Span::new(start, self.pos))?;
        } else {
            self.pos = name_span.start as usize;
            return Err(self.error("expected an op name"));
        }
        Ok(())
    }

    /// `tt.reduce KIND %v {axis = N} : A -> R` (`: A -> (R, I)` for `argmax`/`argmin`), `tt.scan KIND %v {axis = N[, reverse = true]}
    /// : T`, and their forms with a `combine(...) { ... }` region instead of a kind.
    ///
    /// Over several operands (a combine region only): `tt.reduce %a, %b {axis = N} : (A, B)
    /// -> (R, S)` and `tt.scan %a, %b {axis = N} : (A, B)`.
    fn reduce_or_scan(&mut self, region: RegionId, name: &str, results: ResultNames, start: usize) -> Result<()> {
        let scan = name == "tt.scan";
        let kind_word = if self.peek() == Some('%') { None } else { Some(self.word().0) };
        let values = if kind_word.is_some() { vec![self.operand()?] } else { self.operands()? };
        let value = values[0];
        self.expect("{")?;
        self.expect_word("axis")?;
        self.expect("=")?;
        let axis = self.integer()?;
        let reverse = scan && self.eat(",") && {
            self.expect_word("reverse")?;
            self.expect("=")?;
            self.expect_word("true")?;
            true
        };
        self.expect("}")?;
        if values.len() > 1 {
            return self.reduce_or_scan_several(region, scan, values, axis, reverse, results, start);
        }
        let reduce_kind = kind_word.filter(|_| !scan).and_then(|word| lookup(&REDUCE_KINDS, word, reduce_name));
        if let Some(kind) = reduce_kind.filter(|k| k.is_arg()) {
            // `: A -> (R, S)`: the kept element and its index.
            self.operand_type(value)?;
            self.expect("->")?;
            let types = self.type_list()?;
            self.finish(region, OpKind::Reduce { kind, value, axis }, types, results, Span::new(start, self.pos))?;
            return Ok(());
        }
        let ty = self.conversion(value)?;
        let kind = match (kind_word, scan) {
            (Some(word), false) => {
                OpKind::Reduce { kind: reduce_kind.ok_or_else(|| self.kind_error(word))?, value, axis }
            }
            (Some(word), true) => {
                let kind = lookup(&SCAN_KINDS, word, scan_name);
                OpKind::Scan { kind: kind.ok_or_else(|| self.kind_error(word))?, value, axis, reverse }
            }
            (None, _) => {
                self.expect_word("combine")?;
                let combine = self.open_region();
                self.typed_params(combine)?;
                let header_end = self.pos;
                self.expect("{")?;
                self.region_block(combine)?;
                let kind = if scan {
                    OpKind::ScanCustom { values, axis, reverse, combine }
                } else {
                    OpKind::ReduceCustom { values, axis, combine }
                };
                self.finish(region, kind, vec![ty], results, Span::new(start, header_end))?;
                return Ok(());
            }
        };
        self.finish(region, kind, vec![ty], results, Span::new(start, self.pos))?;
        Ok(())
    }

    /// The rest of a reduction or scan over several operands, after `{axis = N}`.
    #[allow(clippy::too_many_arguments)]
    fn reduce_or_scan_several(
        &mut self,
        region: RegionId,
        scan: bool,
        values: Vec<Value>,
        axis: u32,
        reverse: bool,
        results: ResultNames,
        start: usize,
    ) -> Result<()> {
        self.expect(":")?;
        let types_start = self.token_start();
        let operand_types = self.type_list()?;
        let types_span = Span::new(types_start, self.pos);
        if operand_types.len() != values.len() {
            let message = format!("{} types for {} operands", operand_types.len(), values.len());
            return Err(Diagnostic::error(codes::PARSE_SYNTAX, message).with_span(types_span));
        }
        for (&v, t) in values.iter().zip(&operand_types) {
            self.check_type(v, t, types_span)?;
        }
        let result_types = if scan {
            operand_types
        } else {
            self.expect("->")?;
            self.type_list()?
        };
        self.expect_word("combine")?;
        let combine = self.open_region();
        self.typed_params(combine)?;
        let header_end = self.pos;
        self.expect("{")?;
        self.region_block(combine)?;
        let kind = if scan {
            OpKind::ScanCustom { values, axis, reverse, combine }
        } else {
            OpKind::ReduceCustom { values, axis, combine }
        };
        self.finish(region, kind, result_types, results, Span::new(start, header_end))?;
        Ok(())
    }

    fn kind_error(&self, word: &str) -> Diagnostic {
        Diagnostic::error(codes::PARSE_SYNTAX, format!("`{word}` is not a reduction or scan kind"))
            .with_span(Span::new(self.pos - word.len(), self.pos))
    }

    /// `(%a = %x, ...)`, possibly empty: the names of loop-carried values and their initial
    /// values.
    fn carried(&mut self) -> Result<(ResultNames, Vec<Value>)> {
        self.expect("(")?;
        let (mut names, mut init) = (Vec::new(), Vec::new());
        if self.eat(")") {
            return Ok((names, init));
        }
        loop {
            names.push(self.value_name()?);
            self.expect("=")?;
            init.push(self.operand()?);
            if !self.eat(",") {
                break;
            }
        }
        self.expect(")")?;
        Ok((names, init))
    }

    /// `(T, ...)`, the types of the loop-carried values `init`.
    fn carried_types(&mut self, init: &[Value]) -> Result<Vec<Type>> {
        let start = self.token_start();
        let types = self.type_list()?;
        let span = Span::new(start, self.pos);
        if types.len() != init.len() {
            let message = format!("{} types for {} loop-carried values", types.len(), init.len());
            return Err(Diagnostic::error(codes::PARSE_SYNTAX, message).with_span(span));
        }
        for (&v, t) in init.iter().zip(&types) {
            self.check_type(v, t, span)?;
        }
        Ok(types)
    }

    /// `scf.for %iv = %lb to %ub step %s [iter_args(%a = %x, ...) -> (T, ...)] : IV { ... }`.
    fn scf_for(&mut self, region: RegionId, results: ResultNames, start: usize) -> Result<()> {
        let (iv_name, iv_span) = self.value_name()?;
        self.expect("=")?;
        let lower = self.operand()?;
        self.expect_word("to")?;
        let upper = self.operand()?;
        self.expect_word("step")?;
        let step = self.operand()?;
        let (mut carried, mut init, mut init_types) = (Vec::new(), Vec::new(), Vec::new());
        if self.eat_word("iter_args") {
            (carried, init) = self.carried()?;
            self.expect("->")?;
            init_types = self.carried_types(&init)?;
        }
        self.expect(":")?;
        let iv_start = self.token_start();
        let iv_ty = self.ty()?;
        self.check_type(lower, &iv_ty, Span::new(iv_start, self.pos))?;
        let header = Span::new(start, self.pos);
        self.expect("{")?;
        let body = self.open_region();
        self.region_param(body, &iv_name, iv_span, iv_ty)?;
        for ((name, span), ty) in carried.into_iter().zip(init_types.clone()) {
            self.region_param(body, &name, span, ty)?;
        }
        self.region_block(body)?;
        let kind = OpKind::For { lower, upper, step, init, body };
        self.finish(region, kind, init_types, results, header)?;
        Ok(())
    }

    /// `scf.if %c [-> (T, ...)] { ... } [else { ... }]`; without `else`, the else region
    /// holds an empty `scf.yield`.
    fn scf_if(&mut self, region: RegionId, results: ResultNames, start: usize) -> Result<()> {
        let cond = self.operand()?;
        let types = if self.eat("->") { self.type_list()? } else { Vec::new() };
        let header = Span::new(start, self.pos);
        self.expect("{")?;
        let then_region = self.open_region();
        self.region_block(then_region)?;
        let else_region = self.open_region();
        if self.eat_word("else") {
            self.expect("{")?;
            self.region_block(else_region)?;
        } else {
            self.scopes.pop();
            self.f.append_op(else_region, OpKind::Yield(Vec::new()), Vec::new(), header);
        }
        self.finish(region, OpKind::If { cond, then_region, else_region }, types, results, header)?;
        Ok(())
    }

    /// `scf.while (%a = %x, ...) : (T, ...) -> (R, ...) { ... } do { ^bb0(%p: R, ...): ... }`.
    fn scf_while(&mut self, region: RegionId, results: ResultNames, start: usize) -> Result<()> {
        let (carried, init) = self.carried()?;
        self.expect(":")?;
        let init_types = self.carried_types(&init)?;
        self.expect("->")?;
        let result_types = self.type_list()?;
        let header = Span::new(start, self.pos);
        self.expect("{")?;
        let before = self.open_region();
        for ((name, span), ty) in carried.into_iter().zip(init_types) {
            self.region_param(before, &name, span, ty)?;
        }
        self.region_block(before)?;
        self.expect_word("do")?;
        self.expect("{")?;
        self.expect("^bb0")?;
        let after = self.open_region();
        self.typed_params(after)?;
        self.expect(":")?;
        self.region_block(after)?;
        self.finish(region, OpKind::While { init, before, after }, result_types, results, header)?;
        Ok(())
    }
}

/// Whether a printed value name came from the source (the printer numbers the others).
fn is_source_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A constant as printed: `true`/`false`, an integer, or a float (`1.0`, `1e-7`, `inf`,
/// `-inf`, `nan`).
fn parse_constant(text: &str) -> Option<Constant> {
    match text {
        "true" => return Some(Constant::Bool(true)),
        "false" => return Some(Constant::Bool(false)),
        "nan" => return Some(Constant::Float(f64::NAN)),
        "inf" => return Some(Constant::Float(f64::INFINITY)),
        "-inf" => return Some(Constant::Float(f64::NEG_INFINITY)),
        _ => {}
    }
    if let Ok(i) = text.parse::<i64>() {
        return Some(Constant::Int(i));
    }
    let is_float_text = text.starts_with(|c: char| c.is_ascii_digit() || c == '-') && !text.contains("inf");
    is_float_text.then(|| text.parse::<f64>().ok().map(Constant::Float)).flatten()
}
