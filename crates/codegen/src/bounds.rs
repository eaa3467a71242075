//! Bounds checks of global accesses (`--check-bounds`).
//!
//! A checked kernel takes one more argument after pid x/y/z and grid x/y/z (and `NAME_launch`
//! / `NAME_grid` read it from the argument slot after the kernel's own): the address of a
//! table of `u64`
//!
//! ```text
//! [record, start_0, end_0, start_1, end_1, ...]
//! ```
//!
//! with one byte range `[start, end)` per pointer parameter, in parameter order, and `record`
//! the address of two `u64` the kernel fills before it stops. Every global load, store and
//! atomic that runs (masked-off lanes never access memory, so they are never checked) checks
//! that its bytes lie inside one of the ranges; otherwise it writes `site + 1` and the address
//! to the record and traps (an illegal instruction: SIGILL). Sites are numbered in translation
//! order, which is the same for the kernel and the grid entry's copy of the body; [`Site`]
//! says where each one is in the source. RVV leaf functions are not checked: a checked
//! kernel is all scalar code.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, TrapCode, Value};
use cranelift_frontend::FunctionBuilder;
use tilec_diagnostics::Span;
use tilec_vector::{Elem, Function};

/// What a checked access does to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    Atomic,
}

impl Access {
    /// How a report names the access ("an out-of-bounds read").
    pub fn noun(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::Atomic => "atomic access",
        }
    }
}

/// One checked access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Site {
    /// The span of the load, store or atomic (none for a `tl.dot` operand).
    pub span: Option<Span>,
    pub access: Access,
}

/// The bounds table's values, read once where a body starts.
pub struct Extents {
    record: Value,
    ranges: Vec<(Value, Value)>,
}

impl Extents {
    /// Reads the table at `table` for the pointer parameters of `f`.
    pub fn load(f: &Function, b: &mut FunctionBuilder, table: Value) -> Extents {
        let flags = MemFlagsData::trusted();
        let record = b.ins().load(types::I64, flags, table, 0);
        let pointers = f.params.iter().filter(|p| matches!(f.ty(p.var), Elem::Ptr(_))).count();
        let ranges = (0..pointers)
            .map(|i| {
                let at = 8 + 16 * i as i32;
                (b.ins().load(types::I64, flags, table, at), b.ins().load(types::I64, flags, table, at + 8))
            })
            .collect();
        Extents { record, ranges }
    }

    /// Stops the program as site `site` unless `[addr, addr + bytes)` lies inside a range.
    pub fn check(&self, b: &mut FunctionBuilder, addr: Value, bytes: u32, site: usize) {
        let end = b.ins().iadd_imm_s(addr, i64::from(bytes));
        let mut inside = b.ins().iconst(types::I8, 0);
        for &(start, stop) in &self.ranges {
            let above = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, addr, start);
            let below = b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, stop);
            let both = b.ins().band(above, below);
            inside = b.ins().bor(inside, both);
        }
        let fail = b.create_block();
        let ok = b.create_block();
        b.ins().brif(inside, ok, &[], fail, &[]);
        b.set_cold_block(fail);
        b.switch_to_block(fail);
        let id = b.ins().iconst(types::I64, site as i64 + 1);
        b.ins().store(MemFlagsData::trusted(), id, self.record, 0);
        b.ins().store(MemFlagsData::trusted(), addr, self.record, 8);
        b.ins().trap(TrapCode::unwrap_user(2));
        b.switch_to_block(ok);
    }
}
