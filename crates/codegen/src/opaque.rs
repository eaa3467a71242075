//! Constants that Cranelift keeps in registers across a loop.
//!
//! Cranelift's mid-end rematerializes every `iconst`/`f32const` (and every `iadd`, `band`,
//! ... with a constant operand) in each block that uses it, so a constant used in a loop
//! body is rebuilt on every iteration (`lui` + `addi`, `fmv.w.x`), once per block of the
//! body. The same constant behind a `bitcast` to its own type (no instruction on riscv64
//! for integers, the one `fmv.w.x` for floats) is an ordinary pure value: the mid-end
//! hoists it out of the loop with the other invariants and value-numbers equal ones, and
//! the register allocator holds it across the loop. Used for the constants of hot loop
//! bodies (the fp16 conversions, loop ends, the 0.0 of an fp32 select); a constant used
//! once outside loops gains nothing from it.

use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// The integer constant `k` (of integer type `ty`), kept in a register across loops.
pub fn iconst(b: &mut FunctionBuilder, ty: Type, k: i64) -> Value {
    let k = if ty.bits() < 64 { k & ((1i64 << ty.bits()) - 1) } else { k };
    let c = b.ins().iconst(ty, k);
    b.ins().bitcast(ty, MemFlagsData::new(), c)
}

/// The f32 constant `x`, kept in a register across loops.
pub fn f32const(b: &mut FunctionBuilder, x: f32) -> Value {
    let bits = b.ins().iconst(types::I32, i64::from(x.to_bits()));
    b.ins().bitcast(types::F32, MemFlagsData::new(), bits)
}

/// The f64 constant `x`, kept in a register across loops.
pub fn f64const(b: &mut FunctionBuilder, x: f64) -> Value {
    let bits = b.ins().iconst(types::I64, x.to_bits() as i64);
    b.ins().bitcast(types::F64, MemFlagsData::new(), bits)
}
