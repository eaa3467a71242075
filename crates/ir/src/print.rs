//! Stable text form of the Tile IR (what `--emit tile` and the snapshots show).
//!
//! The syntax follows Triton's TTIR as printed by MLIR, so a Triton user can read it:
//!
//! ```text
//! // constexprs: BLOCK_SIZE = 1024
//! tt.func @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %n: i32) {
//!   %0 = tt.get_program_id x : i32
//!   %1 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32>
//!   %2 = tt.splat %0 : i32 -> tensor<1024xi32>
//!   %3 = arith.addi %2, %1 : tensor<1024xi32>
//!   ...
//!   tt.return
//! }
//! ```
//!
//! Conventions (the text is stable: it depends only on the IR's structure, never on arena
//! ids or source spans):
//! - Values: kernel parameters and region parameters that carry a source name are printed as
//!   `%name` (a repeated name gets a `_1`, `_2`, ... suffix); every other value is `%N`,
//!   numbered from 0 in print order. Multi-result ops list each result: `%4, %5 = scf.for`.
//! - Types: `i1 i8 i16 i32 i64`, unsigned integers as `ui8 ui16 ui32 ui64`, floats as
//!   `f16 bf16 f32 f64`, pointers as `!tt.ptr<f32>`, tensors as `tensor<64x32xf32>` /
//!   `tensor<128x!tt.ptr<f16>>`.
//! - Ops whose result type equals their operand type print that one type (`: f32`); ops that
//!   change it print `: operand -> result`.
//! - Integer ops that depend on signedness use MLIR's names (`arith.divsi`/`arith.divui`,
//!   `arith.cmpi slt`/`ult`); float `!=` is the unordered `arith.cmpf une`, other float
//!   comparisons are ordered (`oeq`, `olt`, ...).
//! - Float constants are printed in Rust's shortest round-trip form (`1.0`, `0.1`, `1e-7`)
//!   and `inf`, `-inf`, `nan`.
//! - The function body ends with `tt.return` (the IR itself has no return op).
//! - Malformed IR (as handed to the verifier) still prints: values not defined anywhere are
//!   shown as `%<vN>`, missing types as `<?>`.

use crate::ir::*;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// Prints `f` in the MLIR-like text form used by `--emit tile`.
pub fn print_function(f: &Function) -> String {
    print_with(f, None)
}

/// Prints `f` like [`print_function`], with `annotate`'s text for each value it names:
/// after the header (function params), after an op's line (its results) and at the top of
/// each region (its params), as `// text` comment lines. Used for analysis listings.
pub fn print_function_annotated(f: &Function, annotate: &dyn Fn(Value) -> Option<String>) -> String {
    print_with(f, Some(annotate))
}

fn print_with(f: &Function, annotate: Option<&dyn Fn(Value) -> Option<String>>) -> String {
    let names = ValueNames::new(f);
    let printer = Printer { f, names: &names, annotate };
    let mut out = String::new();
    if !f.constexprs.is_empty() {
        let list: Vec<String> = f.constexprs.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        let _ = writeln!(out, "// constexprs: {}", list.join(", "));
    }
    let params: Vec<String> = f
        .param_values()
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let mut s = format!("{}: {}", printer.name(v), printer.value_type(v));
            if let Some(p) = f.params.get(i) {
                if p.divisibility > 1 {
                    let _ = write!(s, " {{tt.divisibility = {}}}", p.divisibility);
                }
            }
            s
        })
        .collect();
    let _ = writeln!(out, "tt.func @{}({}) {{", f.name, params.join(", "));
    printer.annotations(&mut out, f.param_values(), 1);
    printer.region_ops(&mut out, f.body, 1);
    out.push_str("  tt.return\n}\n");
    out
}

/// The printed names of a function's values, assigned once per function so that single
/// ops can be shown (in diagnostics) with the same names as in the full listing.
pub struct ValueNames {
    names: HashMap<Value, String>,
}

impl ValueNames {
    /// Names every value reachable from the body of `f`, in print order.
    pub fn new(f: &Function) -> ValueNames {
        let mut namer = Namer { f, names: HashMap::new(), used: HashSet::new(), next: 0, visited: HashSet::new() };
        for &v in f.param_values() {
            namer.name_param(v);
        }
        namer.region(f.body);
        ValueNames { names: namer.names }
    }

    /// `%name` of `v` (`%<vN>` for a value the walk never reached).
    pub fn get(&self, v: Value) -> String {
        match self.names.get(&v) {
            Some(n) => format!("%{n}"),
            None => format!("%<{v}>"),
        }
    }
}

struct Namer<'f> {
    f: &'f Function,
    names: HashMap<Value, String>,
    used: HashSet<String>,
    next: u32,
    /// Regions already walked (guards against malformed IR that shares a region).
    visited: HashSet<RegionId>,
}

impl Namer<'_> {
    fn name_param(&mut self, v: Value) {
        let source = self.f.values.get(v).and_then(|d| d.name.clone());
        match source {
            Some(base) if is_identifier(&base) => {
                let mut candidate = base.clone();
                let mut suffix = 1;
                while self.used.contains(&candidate) {
                    candidate = format!("{base}_{suffix}");
                    suffix += 1;
                }
                self.used.insert(candidate.clone());
                self.names.entry(v).or_insert(candidate);
            }
            _ => self.name_numbered(v),
        }
    }

    fn name_numbered(&mut self, v: Value) {
        if !self.names.contains_key(&v) {
            self.names.insert(v, self.next.to_string());
            self.next += 1;
        }
    }

    fn region(&mut self, r: RegionId) {
        if !self.visited.insert(r) {
            return;
        }
        let Some(region) = self.f.regions.get(r) else { return };
        for &op_id in &region.ops {
            let Some(op) = self.f.ops.get(op_id) else { continue };
            for &v in &op.results {
                self.name_numbered(v);
            }
            for sub in op.kind.regions() {
                if let Some(sub_region) = self.f.regions.get(sub) {
                    for &p in &sub_region.params {
                        self.name_param(p);
                    }
                }
                self.region(sub);
            }
        }
    }
}

/// A Python identifier (so it cannot collide with the numbered names).
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// MLIR spelling of a scalar type (`ui32` for unsigned integers).
pub fn scalar_type_text(s: ScalarType) -> &'static str {
    match s {
        ScalarType::I1 => "i1",
        ScalarType::I8 => "i8",
        ScalarType::I16 => "i16",
        ScalarType::I32 => "i32",
        ScalarType::I64 => "i64",
        ScalarType::U8 => "ui8",
        ScalarType::U16 => "ui16",
        ScalarType::U32 => "ui32",
        ScalarType::U64 => "ui64",
        ScalarType::F16 => "f16",
        ScalarType::BF16 => "bf16",
        ScalarType::F32 => "f32",
        ScalarType::F64 => "f64",
        ScalarType::F8E4NV => "f8E4M3FN",
        ScalarType::F8E5 => "f8E5M2",
        ScalarType::F8E4B15 => "f8E4M3B15",
        ScalarType::F8E4B8 => "f8E4M3FNUZ",
        ScalarType::F8E5B16 => "f8E5M2FNUZ",
    }
}

/// MLIR spelling of a type: `f32`, `!tt.ptr<f32>`, `tensor<64x32xf32>`.
pub fn type_text(ty: &Type) -> String {
    let elem = match ty.elem {
        Elem::Scalar(s) => scalar_type_text(s).to_string(),
        Elem::Ptr(s) => format!("!tt.ptr<{}>", scalar_type_text(s)),
    };
    if ty.shape.is_empty() {
        elem
    } else {
        let dims: Vec<String> = ty.shape.iter().map(|d| d.to_string()).collect();
        format!("tensor<{}x{elem}>", dims.join("x"))
    }
}

pub(crate) fn float_text(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format!("{x:?}")
    }
}

/// Prints one op as a single line (regions elided as `{...}`), with the value names of the
/// whole function: the form diagnostics use to name an op.
pub fn op_text(f: &Function, names: &ValueNames, op: OpId) -> String {
    Printer { f, names, annotate: None }.op_line(op)
}

/// The op's printed name alone (`arith.addi`, `tt.load`, `scf.for`, ...).
pub fn op_name(f: &Function, op: OpId) -> String {
    let names = ValueNames { names: HashMap::new() };
    let line = Printer { f, names: &names, annotate: None }.op_line(op);
    let after_eq = match line.find(" = ") {
        Some(i) if line[..i].starts_with('%') => &line[i + 3..],
        _ => &line[..],
    };
    after_eq.split([' ', '(']).next().unwrap_or("").to_string()
}

struct Printer<'f> {
    f: &'f Function,
    names: &'f ValueNames,
    /// Per-value comment text (annotated listings only).
    annotate: Option<&'f dyn Fn(Value) -> Option<String>>,
}

impl<'f> Printer<'f> {
    fn name(&self, v: Value) -> String {
        self.names.get(v)
    }

    fn names(&self, vs: &[Value]) -> String {
        vs.iter().map(|&v| self.name(v)).collect::<Vec<_>>().join(", ")
    }

    fn ty(&self, v: Value) -> Option<&'f Type> {
        self.f.values.get(v).map(|d| &d.ty)
    }

    fn value_type(&self, v: Value) -> String {
        self.ty(v).map_or_else(|| "<?>".to_string(), type_text)
    }

    fn types(&self, vs: &[Value]) -> String {
        vs.iter().map(|&v| self.value_type(v)).collect::<Vec<_>>().join(", ")
    }

    fn scalar(&self, v: Value) -> Option<ScalarType> {
        self.ty(v).and_then(|t| t.scalar_type())
    }

    fn is_float(&self, v: Value) -> bool {
        self.scalar(v).is_some_and(|s| s.is_float())
    }

    /// `: T` when the result type equals `operand`'s, else `: operand -> result`.
    fn conversion(&self, operand: Value, result: Option<Value>) -> String {
        let from = self.value_type(operand);
        match result {
            Some(r) if self.value_type(r) != from => format!(" : {from} -> {}", self.value_type(r)),
            _ => format!(" : {from}"),
        }
    }

    /// `%a: i32, %b: f32` for the params of `r`.
    fn typed_params(&self, r: RegionId) -> String {
        let params = self.f.regions.get(r).map(|reg| reg.params.as_slice()).unwrap_or_default();
        params.iter().map(|&p| format!("{}: {}", self.name(p), self.value_type(p))).collect::<Vec<_>>().join(", ")
    }

    fn region_ops(&self, out: &mut String, r: RegionId, depth: usize) {
        let Some(region) = self.f.regions.get(r) else {
            let _ = writeln!(out, "{}<missing {r}>", "  ".repeat(depth));
            return;
        };
        if r != self.f.body {
            self.annotations(out, &region.params, depth);
        }
        for &op in &region.ops {
            self.op(out, op, depth);
        }
    }

    /// `// text` lines for `values` in an annotated listing.
    fn annotations(&self, out: &mut String, values: &[Value], depth: usize) {
        let Some(annotate) = self.annotate else { return };
        for &v in values {
            if let Some(text) = annotate(v) {
                let _ = writeln!(out, "{}// {text}", "  ".repeat(depth));
            }
        }
    }

    fn op(&self, out: &mut String, op_id: OpId, depth: usize) {
        self.op_and_regions(out, op_id, depth);
        if let Some(op) = self.f.ops.get(op_id) {
            self.annotations(out, &op.results, depth);
        }
    }

    fn op_and_regions(&self, out: &mut String, op_id: OpId, depth: usize) {
        let indent = "  ".repeat(depth);
        let line = self.op_line(op_id);
        let Some(op) = self.f.ops.get(op_id) else {
            let _ = writeln!(out, "{indent}{line}");
            return;
        };
        match &op.kind {
            OpKind::For { body, .. } => {
                let _ = writeln!(out, "{indent}{line} {{");
                self.region_ops(out, *body, depth + 1);
                let _ = writeln!(out, "{indent}}}");
            }
            OpKind::If { then_region, else_region, .. } => {
                let _ = writeln!(out, "{indent}{line} {{");
                self.region_ops(out, *then_region, depth + 1);
                let else_empty = self.f.regions.get(*else_region).is_some_and(|r| {
                    r.ops
                        .iter()
                        .all(|&o| matches!(self.f.ops.get(o).map(|o| &o.kind), Some(OpKind::Yield(v)) if v.is_empty()))
                });
                if else_empty && op.results.is_empty() {
                    let _ = writeln!(out, "{indent}}}");
                } else {
                    let _ = writeln!(out, "{indent}}} else {{");
                    self.region_ops(out, *else_region, depth + 1);
                    let _ = writeln!(out, "{indent}}}");
                }
            }
            OpKind::While { before, after, .. } => {
                let _ = writeln!(out, "{indent}{line} {{");
                self.region_ops(out, *before, depth + 1);
                let _ = writeln!(out, "{indent}}} do {{");
                let _ = writeln!(out, "{indent}^bb0({}):", self.typed_params(*after));
                self.region_ops(out, *after, depth + 1);
                let _ = writeln!(out, "{indent}}}");
            }
            OpKind::ReduceCustom { combine, .. } | OpKind::ScanCustom { combine, .. } => {
                let _ = writeln!(out, "{indent}{line} combine({}) {{", self.typed_params(*combine));
                self.region_ops(out, *combine, depth + 1);
                let _ = writeln!(out, "{indent}}}");
            }
            _ => {
                let _ = writeln!(out, "{indent}{line}");
            }
        }
    }

    /// The op's line: results, name, operands, attributes and types, without regions.
    fn op_line(&self, op_id: OpId) -> String {
        let Some(op) = self.f.ops.get(op_id) else {
            return format!("<missing {op_id}>");
        };
        let lhs = if op.results.is_empty() { String::new() } else { format!("{} = ", self.names(&op.results)) };
        let result = op.results.first().copied();
        let result_type = || result.map_or_else(|| "<?>".to_string(), |r| self.value_type(r));
        let n = |v: Value| self.name(v);
        let body = match &op.kind {
            OpKind::Constant(c) => {
                let text = match c {
                    Constant::Int(i) => i.to_string(),
                    Constant::Float(x) => float_text(*x),
                    Constant::Bool(b) => b.to_string(),
                };
                let is_tensor = result.and_then(|r| self.ty(r)).is_some_and(|t| t.is_tensor());
                if is_tensor {
                    format!("arith.constant dense<{text}> : {}", result_type())
                } else {
                    format!("arith.constant {text} : {}", result_type())
                }
            }
            OpKind::ProgramId(axis) => format!("tt.get_program_id {} : i32", axis_text(*axis)),
            OpKind::NumPrograms(axis) => format!("tt.get_num_programs {} : i32", axis_text(*axis)),
            OpKind::MakeRange { start, end } => {
                format!("tt.make_range {{start = {start}, end = {end}}} : {}", result_type())
            }
            OpKind::Splat(v) => format!("tt.splat {}{}", n(*v), self.conversion(*v, result)),
            OpKind::Broadcast(v) => format!("tt.broadcast {}{}", n(*v), self.conversion(*v, result)),
            OpKind::ExpandDims { value, axis } => {
                format!("tt.expand_dims {} {{axis = {axis}}}{}", n(*value), self.conversion(*value, result))
            }
            OpKind::Reshape(v) => format!("tt.reshape {}{}", n(*v), self.conversion(*v, result)),
            OpKind::Trans { value, order } => {
                let order: Vec<String> = order.iter().map(|d| d.to_string()).collect();
                format!("tt.trans {} {{order = [{}]}}{}", n(*value), order.join(", "), self.conversion(*value, result))
            }
            OpKind::AddPtr { ptr, offset } => {
                format!(
                    "tt.addptr {}, {} : {}, {}",
                    n(*ptr),
                    n(*offset),
                    self.value_type(*ptr),
                    self.value_type(*offset)
                )
            }
            OpKind::Load { ptr, mask, other } => {
                let operands: Vec<Value> = [Some(*ptr), *mask, *other].into_iter().flatten().collect();
                format!("tt.load {} : {}", self.names(&operands), self.value_type(*ptr))
            }
            OpKind::Store { ptr, value, mask } => {
                let operands: Vec<Value> = [Some(*ptr), Some(*value), *mask].into_iter().flatten().collect();
                format!("tt.store {} : {}", self.names(&operands), self.value_type(*ptr))
            }
            OpKind::Binary { op, lhs, rhs } => {
                let name = binary_name(*op, self.scalar(*lhs));
                format!("{name} {}, {} : {}", n(*lhs), n(*rhs), self.value_type(*lhs))
            }
            OpKind::Unary { op, value } => {
                let name = unary_name(*op, self.is_float(*value));
                format!("{name} {} : {}", n(*value), self.value_type(*value))
            }
            OpKind::Math { func, value } => {
                format!("math.{} {} : {}", math_name(*func), n(*value), self.value_type(*value))
            }
            OpKind::Fma { a, b, c } => format!("math.fma {}, {}, {} : {}", n(*a), n(*b), n(*c), self.value_type(*a)),
            OpKind::Cmp { pred, lhs, rhs } => {
                let (name, pred) = cmp_spelling(*pred, self.ty(*lhs).map(|t| t.elem));
                format!("{name} {pred}, {}, {} : {}", n(*lhs), n(*rhs), self.value_type(*lhs))
            }
            OpKind::Select { cond, on_true, on_false } => {
                format!(
                    "arith.select {}, {}, {} : {}, {}",
                    n(*cond),
                    n(*on_true),
                    n(*on_false),
                    self.value_type(*cond),
                    self.value_type(*on_true)
                )
            }
            OpKind::Cast { op, value } => {
                let src = self.scalar(*value);
                let dst = result.and_then(|r| self.scalar(r));
                let name = cast_name(*op, src, dst);
                format!("{name} {}{}", n(*value), self.conversion(*value, result))
            }
            OpKind::Reduce { kind, value, axis } => {
                let types = if kind.is_arg() {
                    format!(" : {} -> ({})", self.value_type(*value), self.types(&op.results))
                } else {
                    self.conversion(*value, result)
                };
                format!("tt.reduce {} {} {{axis = {axis}}}{types}", reduce_name(*kind), n(*value))
            }
            OpKind::ReduceCustom { values, axis, .. } => match values.as_slice() {
                [value] => format!("tt.reduce {} {{axis = {axis}}}{}", n(*value), self.conversion(*value, result)),
                _ => format!(
                    "tt.reduce {} {{axis = {axis}}} : ({}) -> ({})",
                    self.names(values),
                    self.types(values),
                    self.types(&op.results)
                ),
            },
            OpKind::Scan { kind, value, axis, reverse } => {
                format!(
                    "tt.scan {} {} {{axis = {axis}{}}} : {}",
                    scan_name(*kind),
                    n(*value),
                    if *reverse { ", reverse = true" } else { "" },
                    self.value_type(*value)
                )
            }
            OpKind::ScanCustom { values, axis, reverse, .. } => {
                let types = match values.as_slice() {
                    [value] => self.value_type(*value),
                    _ => format!("({})", self.types(values)),
                };
                format!(
                    "tt.scan {} {{axis = {axis}{}}} : {types}",
                    self.names(values),
                    if *reverse { ", reverse = true" } else { "" },
                )
            }
            OpKind::Gather { src, index, axis } => format!(
                "tt.gather {}[{}] {{axis = {axis}}} : ({}, {}) -> {}",
                n(*src),
                n(*index),
                self.value_type(*src),
                self.value_type(*index),
                result_type()
            ),
            OpKind::Dot { a, b, acc, precision } => {
                let precision = match precision {
                    DotPrecision::Ieee => "",
                    DotPrecision::Tf32 => " {input_precision = tf32}",
                    DotPrecision::Tf32x3 => " {input_precision = tf32x3}",
                };
                format!(
                    "tt.dot {}, {}, {}{precision} : {} * {} -> {}",
                    n(*a),
                    n(*b),
                    n(*acc),
                    self.value_type(*a),
                    self.value_type(*b),
                    self.value_type(*acc)
                )
            }
            OpKind::AtomicRmw { op, ptr, value, mask, sem } => {
                let operands: Vec<Value> = [Some(*ptr), Some(*value), *mask].into_iter().flatten().collect();
                format!(
                    "tt.atomic_rmw {}, {}, {} : {}",
                    atomic_name(*op),
                    sem_name(*sem),
                    self.names(&operands),
                    self.value_type(*ptr)
                )
            }
            OpKind::AtomicCas { ptr, cmp, value, sem } => {
                format!(
                    "tt.atomic_cas {}, {}, {}, {} : {}",
                    sem_name(*sem),
                    n(*ptr),
                    n(*cmp),
                    n(*value),
                    self.value_type(*ptr)
                )
            }
            OpKind::Assert { cond, message } => {
                format!("tt.assert {}, {:?} : {}", n(*cond), message, self.value_type(*cond))
            }
            OpKind::Assume { cond } => format!("tt.assume {} : {}", n(*cond), self.value_type(*cond)),
            OpKind::Print { prefix, args, hex } => {
                let mut s = format!("tt.print {prefix:?}");
                if *hex {
                    s.push_str(" {hex = true}");
                }
                if !args.is_empty() {
                    let _ = write!(s, " {} : {}", self.names(args), self.types(args));
                }
                s
            }
            OpKind::DebugBarrier => "gpu.barrier".to_string(),
            OpKind::Hint { value, hint } => {
                let (name, values) = match hint {
                    Hint::MultipleOf(v) => ("tt.multiple_of", v),
                    Hint::MaxContiguous(v) => ("tt.max_contiguous", v),
                    Hint::MaxConstancy(v) => ("tt.max_constancy", v),
                };
                let values: Vec<String> = values.iter().map(|d| d.to_string()).collect();
                format!("{name} {} [{}] : {}", n(*value), values.join(", "), self.value_type(*value))
            }
            OpKind::For { lower, upper, step, init, body } => {
                let params = self.f.regions.get(*body).map(|r| r.params.clone()).unwrap_or_default();
                let iv = params.first().map_or_else(|| "%<missing iv>".to_string(), |&p| n(p));
                let mut s = format!("scf.for {iv} = {} to {} step {}", n(*lower), n(*upper), n(*step));
                if !init.is_empty() {
                    let pairs: Vec<String> = init
                        .iter()
                        .enumerate()
                        .map(|(i, &v)| {
                            let p = params.get(i + 1).map_or_else(|| "%<missing>".to_string(), |&p| n(p));
                            format!("{p} = {}", n(v))
                        })
                        .collect();
                    let _ = write!(s, " iter_args({}) -> ({})", pairs.join(", "), self.types(init));
                }
                let _ = write!(s, " : {}", self.value_type(*lower));
                s
            }
            OpKind::If { cond, .. } => {
                let mut s = format!("scf.if {}", n(*cond));
                if !op.results.is_empty() {
                    let _ = write!(s, " -> ({})", self.types(&op.results));
                }
                s
            }
            OpKind::While { init, before, .. } => {
                let params = self.f.regions.get(*before).map(|r| r.params.clone()).unwrap_or_default();
                let pairs: Vec<String> = init
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| {
                        let p = params.get(i).map_or_else(|| "%<missing>".to_string(), |&p| n(p));
                        format!("{p} = {}", n(v))
                    })
                    .collect();
                format!("scf.while ({}) : ({}) -> ({})", pairs.join(", "), self.types(init), self.types(&op.results))
            }
            OpKind::Yield(vs) => {
                if vs.is_empty() {
                    "scf.yield".to_string()
                } else {
                    format!("scf.yield {} : {}", self.names(vs), self.types(vs))
                }
            }
            OpKind::Condition { cond, args } => {
                let mut s = format!("scf.condition({})", n(*cond));
                if !args.is_empty() {
                    let _ = write!(s, " {} : {}", self.names(args), self.types(args));
                }
                s
            }
        };
        format!("{lhs}{body}")
    }
}

pub(crate) fn axis_text(axis: Axis) -> &'static str {
    match axis {
        Axis::X => "x",
        Axis::Y => "y",
        Axis::Z => "z",
    }
}

/// MLIR name of a binary op on operands of element type `elem` (`None` for pointers).
pub fn binary_name(op: BinaryOp, elem: Option<ScalarType>) -> &'static str {
    let float = elem.is_some_and(|s| s.is_float());
    let unsigned = elem.is_some_and(|s| s.is_unsigned_int() || s.is_bool());
    use BinaryOp::*;
    match (op, float, unsigned) {
        (Add, true, _) => "arith.addf",
        (Add, false, _) => "arith.addi",
        (Sub, true, _) => "arith.subf",
        (Sub, false, _) => "arith.subi",
        (Mul, true, _) => "arith.mulf",
        (Mul, false, _) => "arith.muli",
        (Div, true, _) => "arith.divf",
        (Div, false, false) => "arith.divsi",
        (Div, false, true) => "arith.divui",
        (Rem, true, _) => "arith.remf",
        (Rem, false, false) => "arith.remsi",
        (Rem, false, true) => "arith.remui",
        (And, _, _) => "arith.andi",
        (Or, _, _) => "arith.ori",
        (Xor, _, _) => "arith.xori",
        (Shl, _, _) => "arith.shli",
        (Shr, _, false) => "arith.shrsi",
        (Shr, _, true) => "arith.shrui",
        (Max, true, _) => "arith.maxnumf",
        (Max, false, false) => "arith.maxsi",
        (Max, false, true) => "arith.maxui",
        (Min, true, _) => "arith.minnumf",
        (Min, false, false) => "arith.minsi",
        (Min, false, true) => "arith.minui",
        (MulHi, _, false) => "tt.mulhisi",
        (MulHi, _, true) => "tt.mulhiui",
        (Pow, _, _) => "math.powf",
        (Atan2, _, _) => "math.atan2",
        (Hypot, _, _) => "math.hypot",
    }
}

pub fn math_name(func: MathFn) -> &'static str {
    use MathFn::*;
    match func {
        Exp => "exp",
        Exp2 => "exp2",
        Log => "log",
        Log2 => "log2",
        Log1p => "log1p",
        Expm1 => "expm1",
        Sqrt => "sqrt",
        Rsqrt => "rsqrt",
        Sin => "sin",
        Cos => "cos",
        Tan => "tan",
        Tanh => "tanh",
        Sinh => "sinh",
        Cosh => "cosh",
        Asin => "asin",
        Acos => "acos",
        Atan => "atan",
        Erf => "erf",
        Cbrt => "cbrt",
        Floor => "floor",
        Ceil => "ceil",
        Trunc => "trunc",
        Round => "round",
        Rint => "roundeven",
        Acosh => "acosh",
        Asinh => "asinh",
        Atanh => "atanh",
        Erfc => "erfc",
        Exp10 => "exp10",
        Log10 => "log10",
        Lgamma => "lgamma",
        Tgamma => "tgamma",
        SinPi => "sinpi",
        CosPi => "cospi",
        J0 => "j0",
        J1 => "j1",
        Y0 => "y0",
        Y1 => "y1",
    }
}

/// MLIR name of a unary op on a float (`float`) or integer operand.
pub(crate) fn unary_name(op: UnaryOp, float: bool) -> &'static str {
    match (op, float) {
        (UnaryOp::Neg, true) => "arith.negf",
        (UnaryOp::Neg, false) => "arith.negi",
        (UnaryOp::Not, _) => "arith.noti",
        (UnaryOp::Abs, true) => "math.absf",
        (UnaryOp::Abs, false) => "math.absi",
    }
}

/// Op name and predicate of a comparison of operands of element type `elem`: floats use
/// `arith.cmpf` (ordered, `une` for `!=`); integers `arith.cmpi`, unsigned predicates for
/// unsigned integers, `i1` and pointers (compared as unsigned addresses, like MLIR's `ult`
/// on bools).
pub(crate) fn cmp_spelling(pred: CmpPred, elem: Option<Elem>) -> (&'static str, &'static str) {
    match elem {
        Some(Elem::Scalar(s)) if s.is_float() => ("arith.cmpf", float_pred(pred)),
        Some(Elem::Scalar(s)) => ("arith.cmpi", int_pred(pred, s.is_unsigned_int() || s == ScalarType::I1)),
        Some(Elem::Ptr(_)) => ("arith.cmpi", int_pred(pred, true)),
        None => ("arith.cmpi", int_pred(pred, false)),
    }
}

pub(crate) fn int_pred(pred: CmpPred, unsigned: bool) -> &'static str {
    match (pred, unsigned) {
        (CmpPred::Eq, _) => "eq",
        (CmpPred::Ne, _) => "ne",
        (CmpPred::Lt, false) => "slt",
        (CmpPred::Le, false) => "sle",
        (CmpPred::Gt, false) => "sgt",
        (CmpPred::Ge, false) => "sge",
        (CmpPred::Lt, true) => "ult",
        (CmpPred::Le, true) => "ule",
        (CmpPred::Gt, true) => "ugt",
        (CmpPred::Ge, true) => "uge",
    }
}

pub(crate) fn float_pred(pred: CmpPred) -> &'static str {
    match pred {
        CmpPred::Eq => "oeq",
        CmpPred::Ne => "une",
        CmpPred::Lt => "olt",
        CmpPred::Le => "ole",
        CmpPred::Gt => "ogt",
        CmpPred::Ge => "oge",
    }
}

pub(crate) fn cast_name(op: CastOp, src: Option<ScalarType>, dst: Option<ScalarType>) -> &'static str {
    let src_unsigned = src.is_some_and(|s| s.is_unsigned_int() || s.is_bool());
    let dst_unsigned = dst.is_some_and(|s| s.is_unsigned_int() || s.is_bool());
    match op {
        CastOp::IntExt if src_unsigned => "arith.extui",
        CastOp::IntExt => "arith.extsi",
        CastOp::IntTrunc => "arith.trunci",
        CastOp::IntRetype => "arith.bitcast",
        CastOp::FloatExt => "arith.extf",
        CastOp::FloatTrunc => "arith.truncf",
        CastOp::IntToFloat if src_unsigned => "arith.uitofp",
        CastOp::IntToFloat => "arith.sitofp",
        CastOp::FloatToInt if dst_unsigned => "arith.fptoui",
        CastOp::FloatToInt => "arith.fptosi",
        CastOp::Bitcast => "arith.bitcast",
        CastOp::PtrToInt => "tt.ptr_to_int",
        CastOp::IntToPtr => "tt.int_to_ptr",
        CastOp::PtrCast => "tt.bitcast",
    }
}

pub(crate) fn reduce_name(kind: ReduceKind) -> &'static str {
    match kind {
        ReduceKind::Sum => "sum",
        ReduceKind::Prod => "prod",
        ReduceKind::Max => "max",
        ReduceKind::Min => "min",
        ReduceKind::Xor => "xor",
        ReduceKind::And => "and",
        ReduceKind::Or => "or",
        ReduceKind::ArgMax => "argmax",
        ReduceKind::ArgMin => "argmin",
    }
}

pub(crate) fn scan_name(kind: ScanKind) -> &'static str {
    match kind {
        ScanKind::Sum => "sum",
        ScanKind::Prod => "prod",
        ScanKind::Max => "max",
        ScanKind::Min => "min",
    }
}

pub(crate) fn atomic_name(op: AtomicOp) -> &'static str {
    match op {
        AtomicOp::Add => "add",
        AtomicOp::Max => "max",
        AtomicOp::Min => "min",
        AtomicOp::Xchg => "xchg",
        AtomicOp::And => "and",
        AtomicOp::Or => "or",
        AtomicOp::Xor => "xor",
    }
}

pub(crate) fn sem_name(sem: MemSem) -> &'static str {
    match sem {
        MemSem::Relaxed => "relaxed",
        MemSem::Acquire => "acquire",
        MemSem::Release => "release",
        MemSem::AcqRel => "acq_rel",
    }
}
