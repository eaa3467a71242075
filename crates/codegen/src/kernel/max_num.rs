//! Float `maxnum`/`minnum` (Triton's default `tl.maximum`/`tl.minimum`, and float max/min
//! reductions and scans): a NaN operand loses, two NaNs give NaN, `-0.0 < +0.0`.
//!
//! RISC-V's `fmax.s`/`fmin.s` (`.d`) are exactly these operations, but Cranelift 0.135 has
//! no operation that lowers to them alone: its `fmax`/`fmin` propagate NaN (an ordered test,
//! a NaN-making `fadd` and a select around the instruction). On riscv64 the kernel calls a
//! two-instruction leaf function instead (`fmax.s fa0, fa0, fa1; ret`), an ordinary call
//! (Cranelift's `preserve_all` convention cannot return a value): the call, the return and
//! the moves into `fa0`/`fa1`, and the caller-saved registers it clobbers. Other ISAs (the
//! host target), and cold code where the clobbers would cost the hot path registers,
//! compose the operation from Cranelift's NaN-propagating one.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Value};
use cranelift_module::{FuncOrDataId, Linkage, Module};
use target_lexicon::Architecture;
use tilec_rvv::{Assembler, FBinOp, FFmt, FReg, Inst};

use super::Translator;

impl Translator<'_, '_> {
    /// `maxnum(x, y)` (`minnum` when `!max`) of two `f32` or two `f64` values.
    pub(super) fn max_num(&mut self, max: bool, x: Value, y: Value) -> Value {
        if matches!(self.module.isa().triple().architecture, Architecture::Riscv64(_)) {
            return self.call_max_num_leaf(max, x, y);
        }
        self.max_num_composed(max, x, y)
    }

    /// `maxnum(x, y)` from Cranelift's NaN-propagating `fmax`, each NaN operand replaced by
    /// the other first: no call (for cold code, where a call's clobbers would cost the hot
    /// path registers).
    pub(super) fn max_num_composed(&mut self, max: bool, x: Value, y: Value) -> Value {
        // `x == x` is one instruction where an unordered test is two.
        let x_number = self.b.ins().fcmp(FloatCC::Equal, x, x);
        let x = self.b.ins().select(x_number, x, y);
        let y_number = self.b.ins().fcmp(FloatCC::Equal, y, y);
        let y = self.b.ins().select(y_number, y, x);
        if max {
            self.b.ins().fmax(x, y)
        } else {
            self.b.ins().fmin(x, y)
        }
    }

    fn call_max_num_leaf(&mut self, max: bool, x: Value, y: Value) -> Value {
        let ty = self.b.func.dfg.value_type(x);
        let fmt = if ty == types::F64 { FFmt::D } else { FFmt::S };
        let op = if max { FBinOp::Max } else { FBinOp::Min };
        // A dot keeps the name apart from every kernel's (a Python identifier).
        let name = format!("tilec.{}.{}", if max { "fmax" } else { "fmin" }, if ty == types::F64 { "d" } else { "s" });
        let mut sig = self.module.make_signature();
        sig.params.extend([AbiParam::new(ty), AbiParam::new(ty)]);
        sig.returns.push(AbiParam::new(ty));
        let id = match self.module.get_name(&name) {
            Some(FuncOrDataId::Func(id)) => id,
            _ => {
                let id = self
                    .module
                    .declare_function(&name, Linkage::Local, &sig)
                    .expect("the maxnum leaves are declared once, with one signature each");
                let bytes = max_num_leaf(op, fmt);
                self.module
                    .define_function_bytes(id, 4, &bytes, &[])
                    .expect("a fresh local function without relocations");
                id
            }
        };
        let func = self.module.declare_func_in_func(id, self.b.func);
        let call = self.b.ins().call(func, &[x, y]);
        self.b.inst_results(call)[0]
    }
}

/// `op.fmt fa0, fa0, fa1; ret`: the whole leaf, which touches no register but `fa0`.
fn max_num_leaf(op: FBinOp, fmt: FFmt) -> Vec<u8> {
    let mut asm = Assembler::new();
    asm.push(Inst::FBin { op, fmt, rd: FReg::FA0, rs1: FReg::FA0, rs2: FReg::FA1 });
    asm.ret();
    asm.finish().expect("two instructions without labels").bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_is_fmax_then_ret() {
        // fmax.s fa0, fa0, fa1 = 0x28b51553; ret = jalr x0, 0(ra) = 0x00008067
        assert_eq!(max_num_leaf(FBinOp::Max, FFmt::S), [0x53, 0x15, 0xb5, 0x28, 0x67, 0x80, 0x00, 0x00]);
        // fmin.d fa0, fa0, fa1 = 0x2ab50553
        assert_eq!(max_num_leaf(FBinOp::Min, FFmt::D)[..4], [0x53, 0x05, 0xb5, 0x2a]);
    }
}
