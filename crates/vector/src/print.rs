//! The stable text form of the Vector IR (`tilec compile --emit vector`).
//!
//! ```text
//! kernel add_kernel(%0 x_ptr: ptr<fp32> {divisibility = 16}, %1 n_elements: i32)
//!   scratch $0: fp32[1024]
//!   %2: i32 = program_id x
//!   nest [1024] (%4) {
//!     %5: i32 = index 1024*%4
//!     ...
//!   }
//! ```
//! A parameter's divisibility (the signature's `:16`) shows when there is one. Affine
//! positions print as `s0*%i0 + s1*%i1 + offset` over the enclosing nest's index
//! variables (terms with stride 0 are left out). Malformed IR (as handed to the verifier)
//! still prints: the type of a variable that is not in the function shows as `<?>`.

use std::fmt::Write;

use crate::vir::*;

/// Prints `f` in the text form above.
pub fn print_function(f: &Function) -> String {
    let mut p = Printer { f, out: String::new(), indices: Vec::new() };
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| {
            let divisibility =
                if p.divisibility > 1 { format!(" {{divisibility = {}}}", p.divisibility) } else { String::new() };
            format!("{} {}: {}{divisibility}", p.var, p.name, var_type_name(f, p.var))
        })
        .collect();
    let _ = writeln!(p.out, "kernel {}({})", f.name, params.join(", "));
    for (buf, data) in f.bufs.iter() {
        let _ = writeln!(p.out, "  scratch {buf}: {}[{}]", elem_name(data.elem), data.len);
    }
    p.block(&f.body, 1);
    p.out
}

/// The first line of `stmt` as [`print_function`] shows it (`nest [128] (%4) {` for a nest),
/// with positions over `indices`, the index variables of the enclosing nest: the form
/// diagnostics use to name a statement.
pub fn statement_text(f: &Function, stmt: &Stmt, indices: &[Var]) -> String {
    let mut p = Printer { f, out: String::new(), indices: indices.to_vec() };
    p.stmt(stmt, 0);
    p.out.lines().next().unwrap_or_default().to_string()
}

/// The type name of variable `v`, `<?>` when `f` has no such variable.
fn var_type_name(f: &Function, v: Var) -> String {
    f.vars.get(v).map_or_else(|| "<?>".to_string(), |d| elem_name(d.ty))
}

/// `fp32`, `i1`, `ptr<fp16>`.
pub fn elem_name(elem: Elem) -> String {
    match elem {
        Elem::Scalar(s) => s.name().to_string(),
        Elem::Ptr(s) => format!("ptr<{}>", s.name()),
    }
}

/// Lower-case name of a unit enum variant (`MulHi` → `mulhi`).
fn variant_name(v: impl std::fmt::Debug) -> String {
    format!("{v:?}").to_lowercase()
}

struct Printer<'a> {
    f: &'a Function,
    out: String,
    /// Index variables of the enclosing nest.
    indices: Vec<Var>,
}

impl Printer<'_> {
    fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn affine(&self, a: &Affine) -> String {
        let mut terms: Vec<String> = a
            .strides
            .iter()
            .zip(&self.indices)
            .filter(|(&s, _)| s != 0)
            .map(|(&s, i)| if s == 1 { format!("{i}") } else { format!("{s}*{i}") })
            .collect();
        if a.offset != 0 || terms.is_empty() {
            terms.push(a.offset.to_string());
        }
        terms.join(" + ")
    }

    fn mask(mask: Option<Var>) -> String {
        mask.map(|m| format!(" mask {m}")).unwrap_or_default()
    }

    fn expr(&self, e: &Expr) -> String {
        match e {
            Expr::Const(Constant::Int(i)) => format!("const {i}"),
            Expr::Const(Constant::Float(x)) => format!("const {x:?}"),
            Expr::Const(Constant::Bool(b)) => format!("const {b}"),
            Expr::ProgramId(a) => format!("program_id {}", variant_name(a)),
            Expr::NumPrograms(a) => format!("num_programs {}", variant_name(a)),
            Expr::Copy(v) => format!("copy {v}"),
            Expr::Index(a) => format!("index {}", self.affine(a)),
            Expr::Binary(op, a, b) => format!("{} {a}, {b}", variant_name(op)),
            Expr::Unary(op, a) => format!("{} {a}", variant_name(op)),
            Expr::Math(func, a) => format!("{} {a}", variant_name(func)),
            Expr::Fma(a, b, c) => format!("fma {a}, {b}, {c}"),
            Expr::Cmp(pred, a, b) => format!("cmp {} {a}, {b}", variant_name(pred)),
            Expr::Select { cond, on_true, on_false } => format!("select {cond}, {on_true}, {on_false}"),
            Expr::Cast(op, a) => format!("{} {a}", cast_name(*op)),
            Expr::AddPtr { ptr, offset } => format!("addptr {ptr}, {offset}"),
            Expr::LoadScratch { buf, index } => format!("load {buf}[{}]", self.affine(index)),
            Expr::LoadScratchAt { buf, index, at, len, stride } => {
                format!("load {buf}[{} + ({at} mod {len}) * {stride}]", self.affine(index))
            }
            Expr::Load { ptr, mask, other } => format!(
                "load.global {ptr}{}{}",
                Self::mask(*mask),
                other.map(|o| format!(" other {o}")).unwrap_or_default()
            ),
            Expr::AtomicRmw { op, ptr, value, mask, sem } => {
                format!("atomic_{} {ptr}, {value}{} {}", variant_name(op), Self::mask(*mask), variant_name(sem))
            }
            Expr::AtomicCas { ptr, cmp, value, sem } => {
                format!("atomic_cas {ptr}, {cmp}, {value} {}", variant_name(sem))
            }
        }
    }

    fn block(&mut self, block: &Block, depth: usize) {
        for stmt in block {
            self.stmt(stmt, depth);
        }
    }

    fn stmt(&mut self, stmt: &Stmt, depth: usize) {
        match stmt {
            Stmt::Assign { dst, expr, .. } => {
                let text = format!("{dst}: {} = {}", var_type_name(self.f, *dst), self.expr(expr));
                self.line(depth, &text);
            }
            Stmt::Store { ptr, value, mask, .. } => {
                self.line(depth, &format!("store.global {ptr}, {value}{}", Self::mask(*mask)));
            }
            Stmt::StoreScratch { buf, index, value } => {
                let text = format!("store {buf}[{}], {value}", self.affine(index));
                self.line(depth, &text);
            }
            Stmt::Accumulate { buf, index, op, value } => {
                let text = format!("accumulate.{} {buf}[{}], {value}", variant_name(op), self.affine(index));
                self.line(depth, &text);
            }
            Stmt::AccumulateArg { vals, idxs, index, kind, value, position } => {
                let index = self.affine(index);
                let text = format!(
                    "accumulate.arg{} {vals}[{index}], {idxs}[{index}], {value}, {position}",
                    variant_name(kind)
                );
                self.line(depth, &text);
            }
            Stmt::AccumulateWith { bufs, index, values, position, accs, body, results } => {
                let index = self.affine(index);
                let places: Vec<String> = bufs.iter().map(|b| format!("{b}[{index}]")).collect();
                let text = format!(
                    "accumulate.with {}, {} at {position} ({}) {{",
                    places.join(", "),
                    list(values),
                    list(accs)
                );
                self.line(depth, &text);
                self.block(body, depth + 1);
                self.line(depth, &format!("}} -> {}", list(results)));
            }
            Stmt::Assert { cond, message, .. } => self.line(depth, &format!("assert {cond}, {message:?}")),
            Stmt::Nest(nest) => {
                let shape: Vec<String> = nest.shape.iter().map(|d| d.to_string()).collect();
                let indices: Vec<String> = nest.indices.iter().map(|i| i.to_string()).collect();
                self.line(depth, &format!("nest [{}] ({}) {{", shape.join(", "), indices.join(", ")));
                let saved = std::mem::replace(&mut self.indices, nest.indices.clone());
                self.block(&nest.body, depth + 1);
                self.indices = saved;
                self.line(depth, "}");
            }
            Stmt::Dot(d) => {
                let limit = d.k_limit.map(|l| format!(", k < {l}")).unwrap_or_default();
                let text = format!(
                    "dot {} += {} x {} [batch {}, m {}, n {}, k {}{limit}]",
                    d.c,
                    dot_operand(&d.a),
                    dot_operand(&d.b),
                    d.batch,
                    d.m,
                    d.n,
                    d.k
                );
                self.line(depth, &text)
            }
            Stmt::For { iv, lower, upper, step, body } => {
                let text = format!("for {iv}: {} = {lower} to {upper} step {step} {{", var_type_name(self.f, *iv));
                self.line(depth, &text);
                self.block(body, depth + 1);
                self.line(depth, "}");
            }
            Stmt::If { cond, then_block, else_block } => {
                self.line(depth, &format!("if {cond} {{"));
                self.block(then_block, depth + 1);
                if !else_block.is_empty() {
                    self.line(depth, "} else {");
                    self.block(else_block, depth + 1);
                }
                self.line(depth, "}");
            }
            Stmt::While { before, cond, after } => {
                self.line(depth, "while {");
                self.block(before, depth + 1);
                self.line(depth, &format!("}} test {cond} do {{"));
                self.block(after, depth + 1);
                self.line(depth, "}");
            }
        }
    }
}

/// `$3`, or `global $2[32*i + j + 5] + %9` for an operand read from global memory (`i`, `j`:
/// the operand's row and column).
fn dot_operand(operand: &DotOperand) -> String {
    match operand {
        DotOperand::Scratch(buf) => buf.to_string(),
        DotOperand::Global(g) => {
            let mut terms: Vec<String> = g
                .index
                .strides
                .iter()
                .zip(["i", "j"])
                .filter(|(&s, _)| s != 0)
                .map(|(&s, name)| if s == 1 { name.to_string() } else { format!("{s}*{name}") })
                .collect();
            if g.index.offset != 0 || terms.is_empty() {
                terms.push(g.index.offset.to_string());
            }
            let offset = g.offset.map(|v| format!(" + {v}")).unwrap_or_default();
            format!("global {}[{}]{offset}", g.ptrs, terms.join(" + "))
        }
    }
}

fn cast_name(op: CastOp) -> &'static str {
    match op {
        CastOp::IntExt => "ext",
        CastOp::IntTrunc => "trunc",
        CastOp::IntRetype => "retype",
        CastOp::FloatExt => "fpext",
        CastOp::FloatTrunc => "fptrunc",
        CastOp::IntToFloat => "itofp",
        CastOp::FloatToInt => "fptoi",
        CastOp::Bitcast => "bitcast",
        CastOp::PtrToInt => "ptrtoint",
        CastOp::IntToPtr => "inttoptr",
        CastOp::PtrCast => "ptrcast",
    }
}

/// `%1, %2, ...`.
fn list(vars: &[Var]) -> String {
    vars.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
}
