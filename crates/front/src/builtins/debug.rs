//! Hints, assertions, printing and barriers.

use crate::errors::{self, err, Result};
use crate::lower::{Args, Lowerer};
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_ir::{Hint, OpKind};

impl Lowerer<'_> {
    pub(super) fn debug_op(&mut self, name: &str, args: Args, span: Span) -> Result<Val> {
        match name {
            "multiple_of" | "max_contiguous" | "max_constancy" => {
                let b = args.bind(name, &["input", "values"], 2, span)?;
                let x = self.tensor_arg(&b.val(0), b.span(0))?;
                let rank = self.ty(x).shape.len().max(1);
                let values: Vec<u32> = match b.val(1) {
                    Val::Tuple(items) => items
                        .iter()
                        .map(|v| self.const_int(v, b.span(1), "a hint value").map(|i| i.max(1) as u32))
                        .collect::<Result<_>>()?,
                    v => vec![self.const_int(&v, b.span(1), "a hint value")?.max(1) as u32; rank],
                };
                if values.len() != rank {
                    return Err(err(
                        errors::SHAPE,
                        b.span(1),
                        format!("`{name}` needs {rank} values, one per dimension, got {}", values.len()),
                    ));
                }
                let hint = match name {
                    "multiple_of" => Hint::MultipleOf(values),
                    "max_contiguous" => Hint::MaxContiguous(values),
                    _ => Hint::MaxConstancy(values),
                };
                let ty = self.ty(x).clone();
                Ok(Val::T(self.emit(OpKind::Hint { value: x, hint }, ty, span)))
            }
            "device_assert" => {
                let b = args.bind(name, &["cond", "msg", "mask"], 1, span)?;
                let msg = match b.get(1) {
                    Some(Val::Str(s)) => s.clone(),
                    Some(other) => {
                        return Err(err(
                            errors::TYPE_ERROR,
                            b.span(1),
                            format!("the message must be a string, got {}", other.describe()),
                        ))
                    }
                    None => String::new(),
                };
                self.assert(b.val(0), msg, b.span(0))?;
                Ok(Val::None)
            }
            "static_assert" => {
                let b = args.bind(name, &["cond", "msg"], 1, span)?;
                let Some(ok) = self.const_truth(&b.val(0)) else {
                    return Err(err(
                        errors::NOT_CONSTEXPR,
                        b.span(0),
                        "`tl.static_assert` needs a compile-time condition",
                    ));
                };
                if !ok {
                    let msg = match b.get(1) {
                        Some(Val::Str(s)) => format!("static assertion failed: {s}"),
                        _ => "static assertion failed".to_string(),
                    };
                    return Err(err(errors::STATIC_ASSERT, span, msg));
                }
                Ok(Val::None)
            }
            "static_print" => {
                args.bind(name, &["*values", "sep", "end", "file", "flush"], 0, span)?;
                Ok(Val::None)
            }
            "device_print" => {
                let b = args.bind(name, &["prefix", "*args", "hex"], 1, span)?;
                self.device_print(b.val(0), b.val(1), &b.val(2), span)
            }
            "debug_barrier" => {
                args.bind(name, &[], 0, span)?;
                self.f.append_op(self.region, OpKind::DebugBarrier, vec![], span);
                Ok(Val::None)
            }
            _ => Err(err(errors::INTERNAL, span, format!("unknown debug builtin {name}"))),
        }
    }

    pub(super) fn device_print(&mut self, prefix: Val, values: Val, hex: &Val, span: Span) -> Result<Val> {
        let Val::Str(prefix) = prefix else {
            return Err(err(errors::TYPE_ERROR, span, "the prefix of `tl.device_print` must be a string"));
        };
        let hex = self.const_bool(hex, span, "`hex`")?;
        let Val::Tuple(items) = values else { return Err(err(errors::INTERNAL, span, "print args")) };
        let mut vals = Vec::new();
        for v in &items {
            vals.push(self.tensor_arg(v, span)?);
        }
        self.f.append_op(self.region, OpKind::Print { prefix, args: vals, hex }, vec![], span);
        Ok(Val::None)
    }
}
