//! Bounds checks of global accesses (`--check-bounds`).
//!
//! A checked kernel takes one more argument after pid x/y/z and grid x/y/z (and `NAME_launch`
//! / `NAME_grid` read it from the argument slot after the kernel's own): the address of a
//! table of `u64`
//!
//! ```text
//! [record, count, start_0, end_0, start_1, end_1, ...]
//! ```
//!
//! with `count` byte ranges `[start, end)`: every array of the launch (as many as the kernel
//! has pointer parameters, or more: the arrays reached through pointer tables and the tables
//! themselves), and `record` the address of two `u64` the kernel fills before it stops. The
//! first ranges, one per pointer parameter, are read once and checked inline; the others
//! only by a loop on the cold path, before a check fails. Every global load, store and
//! atomic that runs (masked-off lanes never access memory, so they are never checked) checks
//! that its bytes lie inside one of the ranges; otherwise it writes `site + 1` and the address
//! to the record and traps (an illegal instruction: SIGILL). Sites are numbered in translation
//! order, which is the same for the kernel and the grid entry's copy of the body; [`Site`]
//! says where each one is in the source. RVV leaf functions check their accesses per strip
//! the same way (`rvv/emit/check.rs`) and number their sites in the same sequence; the dot
//! microkernel is not checked, so a checked `tl.dot` is scalar code.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, TrapCode, Value};
use cranelift_frontend::FunctionBuilder;
use rustc_hash::FxHashMap;

use tilec_diagnostics::Span;
use tilec_vector::{Block, Buf, Elem, Expr, Function, Stmt, Var};

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
    /// The span of the load, store or atomic (for a `tl.dot` operand read from global
    /// memory, its `tl.load`'s).
    pub span: Option<Span>,
    pub access: Access,
}

/// The bounds table's values, read once where a body starts.
pub struct Extents {
    table: Value,
    record: Value,
    /// The first ranges, one per pointer parameter (`count` is at least that many).
    ranges: Vec<(Value, Value)>,
}

/// Byte offset in the table of range `i`'s start (its end follows).
pub const fn range_offset(i: usize) -> i32 {
    16 + 16 * i as i32
}

/// The pointer parameter a pointer value is derived from: range `r` of the table (the
/// `r`-th pointer parameter), or `Mixed` (several parameters, or a pointer made otherwise:
/// loaded from global memory, converted from an integer).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    Range(usize),
    Mixed,
}

/// The origins found so far: a variable or buffer not in the map has no assignment seen yet.
#[derive(Default)]
struct Origins {
    vars: FxHashMap<Var, Origin>,
    bufs: FxHashMap<Buf, Origin>,
    changed: bool,
}

/// `a` joined with `b`, where `None` is "nothing seen yet".
fn join(a: Option<Origin>, b: Option<Origin>) -> Option<Origin> {
    match (a, b) {
        (None, o) | (o, None) => o,
        (Some(a), Some(b)) if a == b => Some(a),
        _ => Some(Origin::Mixed),
    }
}

impl Origins {
    fn set_var(&mut self, v: Var, o: Option<Origin>) {
        let old = self.vars.get(&v).copied();
        if let Some(new) = join(old, o).filter(|&new| Some(new) != old) {
            self.vars.insert(v, new);
            self.changed = true;
        }
    }

    fn set_buf(&mut self, b: Buf, o: Option<Origin>) {
        let old = self.bufs.get(&b).copied();
        if let Some(new) = join(old, o).filter(|&new| Some(new) != old) {
            self.bufs.insert(b, new);
            self.changed = true;
        }
    }

    /// Joins the origin of every pointer assignment of `block` into its destination.
    fn block(&mut self, f: &Function, block: &Block) {
        let is_ptr = |e: Elem| matches!(e, Elem::Ptr(_));
        for s in block {
            match s {
                Stmt::Assign { dst, expr, .. } if is_ptr(f.ty(*dst)) => {
                    let o = match expr {
                        Expr::AddPtr { ptr: v, .. } | Expr::Copy(v) => self.vars.get(v).copied(),
                        Expr::Select { on_true, on_false, .. } => {
                            join(self.vars.get(on_true).copied(), self.vars.get(on_false).copied())
                        }
                        Expr::LoadScratch { buf, .. } | Expr::LoadScratchAt { buf, .. } => self.bufs.get(buf).copied(),
                        _ => Some(Origin::Mixed),
                    };
                    self.set_var(*dst, o);
                }
                Stmt::StoreScratch { buf, value, .. } if is_ptr(f.bufs[*buf].elem) => {
                    self.set_buf(*buf, self.vars.get(value).copied());
                }
                Stmt::Accumulate { buf, .. } if is_ptr(f.bufs[*buf].elem) => self.set_buf(*buf, Some(Origin::Mixed)),
                Stmt::AccumulateArg { vals, .. } if is_ptr(f.bufs[*vals].elem) => {
                    self.set_buf(*vals, Some(Origin::Mixed))
                }
                Stmt::AccumulateWith { bufs, accs, body, .. } => {
                    for &b in bufs.iter().filter(|&&b| is_ptr(f.bufs[b].elem)) {
                        self.set_buf(b, Some(Origin::Mixed));
                    }
                    for &a in accs.iter().filter(|&&a| is_ptr(f.ty(a))) {
                        self.set_var(a, Some(Origin::Mixed));
                    }
                    self.block(f, body);
                }
                Stmt::Nest(n) => self.block(f, &n.body),
                Stmt::For { body, .. } => self.block(f, body),
                Stmt::If { then_block, else_block, .. } => {
                    self.block(f, then_block);
                    self.block(f, else_block);
                }
                Stmt::While { before, after, .. } => {
                    self.block(f, before);
                    self.block(f, after);
                }
                _ => {}
            }
        }
    }
}

/// The table range of the one pointer parameter each pointer variable of `f` is derived
/// from (through `AddPtr`, copies, selects and scratch buffers) by every assignment to it;
/// variables derived from several parameters, or from pointers made otherwise, are absent.
/// The pointer may still lead into another array (any array of the launch is valid), so
/// this says which range holds its accesses most likely, not which one must.
pub fn own_ranges(f: &Function) -> FxHashMap<Var, usize> {
    let mut origins = Origins::default();
    let pointers = f.params.iter().filter(|p| matches!(f.ty(p.var), Elem::Ptr(_)));
    for (r, p) in pointers.enumerate() {
        origins.vars.insert(p.var, Origin::Range(r));
    }
    // Origins only move up from "nothing seen" to one range to `Mixed`: this ends.
    loop {
        origins.changed = false;
        origins.block(f, &f.body);
        if !origins.changed {
            break;
        }
    }
    origins
        .vars
        .into_iter()
        .filter_map(|(v, o)| match o {
            Origin::Range(r) => Some((v, r)),
            Origin::Mixed => None,
        })
        .collect()
}

impl Extents {
    /// Reads the table at `table` for the pointer parameters of `f`.
    pub fn load(f: &Function, b: &mut FunctionBuilder, table: Value) -> Extents {
        let flags = MemFlagsData::trusted();
        let record = b.ins().load(types::I64, flags, table, 0);
        let pointers = f.params.iter().filter(|p| matches!(f.ty(p.var), Elem::Ptr(_))).count();
        let ranges = (0..pointers)
            .map(|i| {
                let at = range_offset(i);
                (b.ins().load(types::I64, flags, table, at), b.ins().load(types::I64, flags, table, at + 8))
            })
            .collect();
        Extents { table, record, ranges }
    }

    /// The table's address (RVV leaves take it as an argument and read it themselves).
    pub fn table(&self) -> Value {
        self.table
    }

    /// Stops the program as site `site` unless `[addr, addr + bytes)` lies inside a range.
    pub fn check(&self, b: &mut FunctionBuilder, addr: Value, bytes: u32, site: usize) {
        let end = b.ins().iadd_imm_s(addr, i64::from(bytes));
        let within = |b: &mut FunctionBuilder, start: Value, stop: Value| {
            let above = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, addr, start);
            let below = b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, stop);
            b.ins().band(above, below)
        };
        let mut inside = b.ins().iconst(types::I8, 0);
        for &(start, stop) in &self.ranges {
            let both = within(b, start, stop);
            inside = b.ins().bor(inside, both);
        }
        let rest = b.create_block();
        let next = b.create_block();
        let range = b.create_block();
        let fail = b.create_block();
        let ok = b.create_block();
        b.ins().brif(inside, ok, &[], rest, &[]);
        // The ranges after the first ones, one by one.
        b.set_cold_block(rest);
        b.switch_to_block(rest);
        let flags = MemFlagsData::trusted();
        let count = b.ins().load(types::I64, flags, self.table, 8);
        let first = b.ins().iconst(types::I64, self.ranges.len() as i64);
        b.ins().jump(next, &[first.into()]);
        b.set_cold_block(next);
        b.switch_to_block(next);
        let i = b.append_block_param(next, types::I64);
        let more = b.ins().icmp(IntCC::UnsignedLessThan, i, count);
        b.ins().brif(more, range, &[], fail, &[]);
        b.set_cold_block(range);
        b.switch_to_block(range);
        let at = b.ins().ishl_imm_u(i, 4);
        let at = b.ins().iadd(self.table, at);
        let start = b.ins().load(types::I64, flags, at, range_offset(0));
        let stop = b.ins().load(types::I64, flags, at, range_offset(0) + 8);
        let both = within(b, start, stop);
        let i = b.ins().iadd_imm_s(i, 1);
        b.ins().brif(both, ok, &[], next, &[i.into()]);
        b.set_cold_block(fail);
        b.switch_to_block(fail);
        let id = b.ins().iconst(types::I64, site as i64 + 1);
        b.ins().store(MemFlagsData::trusted(), id, self.record, 0);
        b.ins().store(MemFlagsData::trusted(), addr, self.record, 8);
        b.ins().trap(TrapCode::unwrap_user(2));
        b.switch_to_block(ok);
    }
}
