//! `tl.assume(cond)`: a promise about runtime values that the analyses may use.
//!
//! A compile-time true condition is nothing; a compile-time false one is an error (the
//! kernel would be undefined on every run). A runtime condition becomes `tt.assume`, whose
//! facts (`x % 16 == 0`, `x > 0`, ...) the axis analysis and the optimizer's integer ranges
//! read (`tilec_ir::assume`); the interpreter checks it, compiled code does not.

use crate::errors::{self, err, err_label, Result};
use crate::lower::{Args, Lowerer};
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_ir::{OpKind, ScalarType};

impl Lowerer<'_> {
    pub(super) fn assume(&mut self, args: Args, span: Span) -> Result<Val> {
        let b = args.bind("assume", &["cond"], 1, span)?;
        let cond = b.val(0);
        if let Some(holds) = self.const_truth(&cond) {
            if !holds {
                return Err(err_label(
                    errors::FALSE_ASSUMPTION,
                    b.span(0),
                    "`tl.assume` of a condition that is false at compile time",
                    "this is always false",
                )
                .with_note("an assumption must hold on every run; the kernel would be undefined"));
            }
            return Ok(Val::None);
        }
        let c = self.tensor_arg(&cond, b.span(0))?;
        let ty = self.ty(c).clone();
        if ty.scalar_type() != Some(ScalarType::I1) {
            return Err(err(
                errors::TYPE_ERROR,
                b.span(0),
                format!("`tl.assume` needs a boolean condition, got {}", crate::ops::type_name(&ty)),
            ));
        }
        self.f.append_op(self.region, OpKind::Assume { cond: c }, vec![], span);
        Ok(Val::None)
    }
}
