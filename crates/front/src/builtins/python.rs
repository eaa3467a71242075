//! Python built-ins usable in kernels (on compile-time values), `triton.*` helpers and dtype
//! methods.

use crate::errors::{self, err, Result};
use crate::lower::{Args, Lowerer};
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_syntax::ast::CmpOp;

impl Lowerer<'_> {
    pub(super) fn python_builtin(&mut self, name: &str, args: Args, span: Span) -> Result<Val> {
        match name {
            "min" | "max" => {
                let b = args.bind(name, &["*values"], 0, span)?;
                let Val::Tuple(mut items) = b.val(0) else { return Err(err(errors::INTERNAL, span, "varargs")) };
                if items.len() == 1 {
                    if let Val::Tuple(inner) = items[0].clone() {
                        items = inner;
                    }
                }
                if items.iter().any(|v| matches!(v, Val::T(_))) {
                    // Triton maps the builtins `min`/`max` to `tl.minimum`/`tl.maximum`.
                    let [a, b] = items.as_slice() else {
                        return Err(err(
                            errors::ARITY,
                            span,
                            format!("`{name}` on tensors takes exactly two arguments"),
                        ));
                    };
                    let op = if name == "min" { tilec_ir::BinaryOp::Min } else { tilec_ir::BinaryOp::Max };
                    return Ok(Val::T(self.arith(op, a, b, false, name, span)?.0));
                }
                let mut best: Option<Val> = None;
                for v in items {
                    if !v.is_number() {
                        return Err(err(errors::TYPE_ERROR, span, format!("`{name}` of {}", v.describe())));
                    }
                    best = Some(match best {
                        None => v,
                        Some(b) => {
                            let op = if name == "min" { CmpOp::Lt } else { CmpOp::Gt };
                            let better = matches!(crate::constexpr::compare(op, &v, &b), Some(Ok(true)));
                            if better {
                                v
                            } else {
                                b
                            }
                        }
                    });
                }
                best.ok_or_else(|| err(errors::ARITY, span, format!("`{name}` needs at least one argument")))
            }
            "abs" => {
                let b = args.bind(name, &["x"], 1, span)?;
                match b.val(0) {
                    Val::Int(i) => Ok(Val::Int(i.abs())),
                    Val::Float(x) => Ok(Val::Float(x.abs())),
                    Val::Bool(x) => Ok(Val::Int(x as i128)),
                    v => self.tl_math("abs", Args { pos: vec![(v, b.span(0))], kw: vec![] }, span),
                }
            }
            "float" => {
                let b = args.bind(name, &["x"], 1, span)?;
                match b.val(0) {
                    Val::Int(i) => Ok(Val::Float(i as f64)),
                    Val::Bool(x) => Ok(Val::Float(x as i32 as f64)),
                    Val::Float(x) => Ok(Val::Float(x)),
                    Val::Str(s) => match s.trim().to_ascii_lowercase().as_str() {
                        "inf" | "+inf" | "infinity" => Ok(Val::Float(f64::INFINITY)),
                        "-inf" | "-infinity" => Ok(Val::Float(f64::NEG_INFINITY)),
                        "nan" => Ok(Val::Float(f64::NAN)),
                        t => t
                            .parse::<f64>()
                            .map(Val::Float)
                            .map_err(|_| err(errors::VALUE, b.span(0), format!("could not convert {s:?} to float"))),
                    },
                    v => Err(err(
                        errors::NOT_CONSTEXPR,
                        b.span(0),
                        format!("`float()` needs a compile-time value, got {}; use `.to(tl.float32)`", v.describe()),
                    )),
                }
            }
            "int" => {
                let b = args.bind(name, &["x"], 1, span)?;
                match b.val(0) {
                    Val::Int(i) => Ok(Val::Int(i)),
                    Val::Bool(x) => Ok(Val::Int(x as i128)),
                    Val::Float(x) if x.is_finite() => Ok(Val::Int(x.trunc() as i128)),
                    v => Err(err(
                        errors::NOT_CONSTEXPR,
                        b.span(0),
                        format!("`int()` needs a finite compile-time number, got {}", v.describe()),
                    )),
                }
            }
            "bool" => {
                let b = args.bind(name, &["x"], 1, span)?;
                self.const_truth(&b.val(0))
                    .map(Val::Bool)
                    .ok_or_else(|| err(errors::NOT_CONSTEXPR, b.span(0), "`bool()` needs a compile-time value"))
            }
            "len" => {
                let b = args.bind(name, &["x"], 1, span)?;
                match b.val(0) {
                    Val::Tuple(items) => Ok(Val::Int(items.len() as i128)),
                    Val::Str(s) => Ok(Val::Int(s.chars().count() as i128)),
                    Val::T(v) => match self.ty(v).shape.first() {
                        Some(d) => Ok(Val::Int(*d as i128)),
                        None => Err(err(errors::TYPE_ERROR, b.span(0), "`len()` of a scalar")),
                    },
                    v => Err(err(errors::TYPE_ERROR, b.span(0), format!("`len()` of {}", v.describe()))),
                }
            }
            "isinstance" => self.isinstance(args, span),
            "getattr" | "hasattr" => {
                let b = args.bind(name, &["object", "name", "default"], 2, span)?;
                let Val::Str(attr) = b.val(1) else {
                    return Err(err(
                        errors::NOT_CONSTEXPR,
                        b.span(1),
                        format!("the attribute name of `{name}` must be a compile-time string"),
                    ));
                };
                let found = self.attribute(b.val(0), &attr, b.span(1));
                match (name, found, b.vals[2].clone()) {
                    ("hasattr", found, _) => Ok(Val::Bool(found.is_ok())),
                    (_, Ok(v), _) => Ok(v),
                    (_, Err(_), Some((default, _))) => Ok(default),
                    (_, Err(e), None) => Err(e),
                }
            }
            "print" => {
                let b = args.bind(name, &["*values", "sep", "end", "hex"], 0, span)?;
                let Val::Tuple(items) = b.val(0) else { return Err(err(errors::INTERNAL, span, "varargs")) };
                let (prefix, rest) = match items.split_first() {
                    Some((Val::Str(p), rest)) => (Val::Str(p.clone()), rest.to_vec()),
                    _ => (Val::Str(String::new()), items.clone()),
                };
                self.device_print(prefix, Val::Tuple(rest), &b.val(3), span)
            }
            _ => Err(err(
                errors::UNSUPPORTED,
                span,
                format!("`{name}` is only supported as the iterable of a `for` loop"),
            )),
        }
    }

    pub(super) fn triton_builtin(&mut self, name: &str, args: Args, span: Span) -> Result<Val> {
        match name {
            "next_power_of_2" => {
                let b = args.bind(name, &["n"], 1, span)?;
                let n = self.const_int(&b.val(0), b.span(0), "the argument of `triton.next_power_of_2`")?;
                let mut p: i128 = 1;
                while p < n {
                    p <<= 1;
                }
                Ok(Val::Int(p))
            }
            _ => Err(err(errors::INTERNAL, span, format!("unknown triton builtin {name}"))),
        }
    }

    pub(super) fn dtype_method(&mut self, recv: Val, name: &str, args: Args, span: Span) -> Result<Val> {
        args.bind(name, &[], 0, span)?;
        let t = match recv {
            Val::DType(t) => t,
            Val::BlockType(..) => return Ok(Val::Bool(name == "is_block")),
            _ => return Ok(Val::Bool(name == "is_ptr")),
        };
        use tilec_ir::ScalarType as S;
        let r = match name {
            "is_floating" => t.is_float() || t.is_fp8(),
            "is_int" => t.is_int(),
            "is_int_signed" => t.is_signed_int(),
            "is_int_unsigned" => crate::promote::is_unsigned(t),
            "is_fp16" => t == S::F16,
            "is_bf16" => t == S::BF16,
            "is_fp32" => t == S::F32,
            "is_fp64" => t == S::F64,
            "is_bool" => t == S::I1,
            "is_ptr" | "is_block" | "is_void" | "is_const" => false,
            "is_fp8" => t.is_fp8(),
            "is_fp8e4nv" => t == S::F8E4NV,
            "is_fp8e5" => t == S::F8E5,
            "is_fp8e4b15" => t == S::F8E4B15,
            "is_fp8e4b8" => t == S::F8E4B8,
            "is_fp8e5b16" => t == S::F8E5B16,
            "is_standard_floating" => t.is_float(),
            "is_int1" => t == S::I1,
            "is_int8" => t == S::I8,
            "is_int16" => t == S::I16,
            "is_int32" => t == S::I32,
            "is_int64" => t == S::I64,
            "is_uint8" => t == S::U8,
            "is_uint16" => t == S::U16,
            "is_uint32" => t == S::U32,
            "is_uint64" => t == S::U64,
            _ => return Err(err(errors::UNKNOWN_ATTRIBUTE, span, format!("dtypes have no method `{name}`"))),
        };
        Ok(Val::Bool(r))
    }
}
