//! Constants that Cranelift keeps in registers across a loop.
//!
//! Cranelift's mid-end rematerializes every `iconst`/`f32const` (and every `iadd`, `band`,
//! ... with a constant operand) in each block that uses it, so a constant used in a loop
//! body is rebuilt on every iteration (`lui` + `addi`, `fmv.w.x`), once per block of the
//! body. The same constant behind a `bitcast` to its own type (no instruction on riscv64
//! for integers, the one `fmv.w.x` for floats) is an ordinary pure value: the mid-end
//! hoists it out of the loop with the other invariants and value-numbers equal ones, and
//! the register allocator holds it across the loop. Used for the constants of hot loop
//! bodies (the fp16 conversions, loop ends, the 0.0 of an fp32 select, the inline `exp`
//! and `erf` polynomials); a constant used once outside loops gains nothing from it.

use cranelift_codegen::cursor::Cursor;
use cranelift_codegen::ir::{types, Block, Inst, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;
use rustc_hash::FxHashMap;

/// The opaque constants of one function, each built once. They are defined at the top of
/// `block` (the block translation started in, which dominates every block built after it),
/// in the order first asked for, and every later request reuses the value. Cranelift's
/// mid-end value-numbers equal constants and places each where its uses need it, so the
/// machine code is that of one constant per use; the duplicates only cost it e-graph work.
pub struct Held {
    block: Block,
    /// The last instruction defining a held constant (the next goes after it).
    last: Option<Inst>,
    values: FxHashMap<(Type, i64), Value>,
}

impl Held {
    /// No constants yet; they will be defined at the top of `block`.
    pub fn at(block: Block) -> Held {
        Held { block, last: None, values: FxHashMap::default() }
    }

    /// The constant of type `ty` (integer, `F32` or `F64`) whose bits are `bits`.
    pub fn get(&mut self, b: &mut FunctionBuilder, ty: Type, bits: i64) -> Value {
        let int_ty = match ty {
            types::F32 => types::I32,
            types::F64 => types::I64,
            _ => ty,
        };
        let bits = if int_ty.bits() < 64 { bits & ((1i64 << int_ty.bits()) - 1) } else { bits };
        if let Some(&value) = self.values.get(&(ty, bits)) {
            return value;
        }
        let mut pos = b.cursor();
        match self.last {
            Some(inst) => pos.goto_after_inst(inst),
            None => pos.goto_first_insertion_point(self.block),
        }
        let raw = pos.ins().iconst(int_ty, bits);
        let value = pos.ins().bitcast(ty, MemFlagsData::new(), raw);
        self.last = pos.func.dfg.value_def(value).inst();
        self.values.insert((ty, bits), value);
        value
    }
}
