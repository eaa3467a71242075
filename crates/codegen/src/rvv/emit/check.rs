//! Bounds checks of the global accesses of a checked leaf (the table, the record and the
//! report are [`crate::bounds`]'s, shared with the scalar checks).
//!
//! Each access checks the strip's lanes before it touches memory, in lane order, and only
//! the active ones (masked-off lanes are never checked):
//! - a stream (unit-stride or strided) first checks the bytes from its lowest to its highest
//!   lane against the ranges of the pointer parameters' arrays: the range of the parameter
//!   its pointer comes from first ([`crate::bounds::own_ranges`]), then the others, each at
//!   a cost that does not depend on whether the array lies above or below the strip, so
//!   this test costs the same wherever the arrays are placed (unless the strip lies below
//!   its own array, see `check_stream`); only when they lie in none of those does it check
//!   its active lanes one by one against every range of the table (`vfirst` over a mask of
//!   the lanes still to check), so a strip at the edge of an array under a mask passes when
//!   every active lane is inside (that walk's cost per range tried still depends on whether
//!   the array lies above or below the lane);
//! - a gather or scatter compares its address vector with every range of the table (`vsub`,
//!   `vmsleu`) and takes the first active lane outside all of them (`vfirst`).
//!
//! A lane outside every array stops the program as the scalar check does: the site number
//! plus one and the lane's address go to the record, then an illegal instruction (SIGILL).

use super::*;
use crate::bounds::{Access, Site};

/// The checking state of a checked leaf.
pub(super) struct Checks<'a> {
    /// The register holding the bounds table's address.
    pub(super) table: XReg,
    /// How many ranges the fast checks read (one per pointer parameter; the table holds at
    /// least that many).
    pub(super) ranges: usize,
    /// The range of the pointer parameter each pointer variable comes from, where one does
    /// ([`crate::bounds::own_ranges`]): a stream tests it first.
    pub(super) own_ranges: &'a FxHashMap<Var, usize>,
    /// The number of this leaf's first site.
    pub(super) first_site: usize,
    /// The sites checked so far, in order.
    pub(super) sites: Vec<Site>,
    /// A mask register reserved for the whole leaf: the lanes still to check.
    pub(super) lanes: VReg,
    /// Scalar scratch registers, taken at the first check.
    pub(super) x: Option<[XReg; 5]>,
}

/// Table offset of the start of range `r` (its end follows it).
fn range_at(r: usize) -> i32 {
    crate::bounds::range_offset(r)
}

/// `first` = the address of the table's first range, `end` = the address past its last.
fn walk_ranges(asm: &mut Assembler, table: XReg, [first, end]: [XReg; 2]) {
    asm.ld(end, table, 8);
    asm.slli(end, end, 4);
    asm.add(end, end, table);
    asm.addi(end, end, range_at(0));
    asm.addi(first, table, range_at(0));
}

impl Emitter<'_> {
    /// The checks' scalar scratch registers (taken at the first use; checks on). Nothing
    /// lives in them between accesses, so other scratch sequences of the strip may use them.
    pub(super) fn check_xregs(&mut self) -> Option<[XReg; 5]> {
        if let Some(x) = self.checks.as_ref()?.x {
            return Some(x);
        }
        let x = [self.xreg()?, self.xreg()?, self.xreg()?, self.xreg()?, self.xreg()?];
        self.checks.as_mut()?.x = Some(x);
        Some(x)
    }

    /// With checks on: stops the program unless every active lane of the access through
    /// pointer `ptr` (`mode` from `base`, `bytes`-byte elements, under `mask`: `v0` holds it
    /// when `Mask::V0`) lies inside one of the arrays. Leaves `v0` as it was.
    pub(super) fn check_access(
        &mut self,
        ptr: Var,
        mode: VMemMode,
        base: XReg,
        bytes: u32,
        mask: Mask,
        access: Access,
    ) -> Option<()> {
        let Some(checks) = &self.checks else { return Some(()) };
        let (table, ranges, lanes) = (checks.table, checks.ranges, checks.lanes);
        let own = checks.own_ranges.get(&ptr).copied();
        let x = self.check_xregs()?;
        let checks = self.checks.as_mut()?;
        let site = checks.first_site + checks.sites.len();
        checks.sites.push(Site { span: self.span, access });
        let restore = self.asm.new_label();
        let done = self.asm.new_label();
        match mode {
            VMemMode::UnitStride | VMemMode::Strided(_) => {
                self.check_stream(mode, base, bytes, mask, site, x, (table, ranges, lanes), own, (restore, done))
            }
            VMemMode::Indexed { index, .. } => {
                let tmp = self.temp(8)?;
                set_active(&mut self.asm, lanes, mask);
                self.set_width(8);
                let [lo, hi, t, _, w] = x;
                let asm = &mut self.asm;
                // Every range: lanes with `address - start <= end - start - bytes` are inside.
                walk_ranges(asm, table, [w, t]);
                let (top, skip, checked) = (asm.label_here(), asm.new_label(), asm.new_label());
                asm.bgeu(w, t, checked);
                asm.ld(lo, w, 0);
                asm.ld(hi, w, 8);
                asm.sub(hi, hi, lo);
                asm.addi(hi, hi, -(bytes as i32));
                asm.blt(hi, XReg::ZERO, skip);
                asm.vop(VBinOp::Sub, tmp, index, lo, Mask::Unmasked);
                asm.vop(VBinOp::Msleu, VReg::V0, tmp, hi, Mask::Unmasked);
                asm.vop(VBinOp::Mandn, lanes, lanes, VReg::V0, Mask::Unmasked);
                asm.bind(skip);
                asm.addi(w, w, 16);
                asm.j(top);
                asm.bind(checked);
                asm.push(Inst::VMaskScalar { op: VMaskScalarOp::First, rd: lo, vs2: lanes, mask: Mask::Unmasked });
                asm.blt(lo, XReg::ZERO, restore);
                // The lane's address goes to the record through a store of that lane only.
                asm.vunary(VUnaryOp::Msof, VReg::V0, lanes, Mask::Unmasked);
                asm.ld(hi, table, 0);
                asm.slli(t, lo, 3);
                asm.sub(hi, hi, t);
                asm.addi(hi, hi, 8);
                asm.vstore(Sew::E64, VMemMode::UnitStride, index, hi, Mask::V0);
                stop(asm, table, site, None, [hi, t]);
            }
            _ => return None,
        }
        self.asm.bind(restore);
        if let Some(m) = self.v0 {
            self.asm.vop(VBinOp::Mand, VReg::V0, m, m, Mask::Unmasked);
        }
        self.asm.bind(done);
        Some(())
    }

    /// The check of a stream access (see the module doc); jumps to `done` when the strip's
    /// whole span is inside one array, falls through to `restore` when every active lane
    /// is inside one.
    #[allow(clippy::too_many_arguments)]
    fn check_stream(
        &mut self,
        mode: VMemMode,
        base: XReg,
        bytes: u32,
        mask: Mask,
        site: usize,
        [lo, hi, t, u, w]: [XReg; 5],
        (table, ranges, lanes): (XReg, usize, VReg),
        own: Option<usize>,
        (restore, done): (Label, Label),
    ) {
        let asm = &mut self.asm;
        // `dst` = lane `src`'s byte offset from the stream's register.
        let scale = |asm: &mut Assembler, dst: XReg, src: XReg| match mode {
            VMemMode::Strided(stride) => asm.mul(dst, src, stride),
            _ => asm.slli(dst, src, bytes.trailing_zeros() as i32),
        };
        asm.csrr(hi, Csr::VL);
        asm.addi(hi, hi, -1);
        scale(asm, hi, hi);
        asm.add(hi, hi, base);
        asm.mv(lo, base);
        if let VMemMode::Strided(_) = mode {
            // A runtime stride may be negative: the last lane is then the lowest.
            let ordered = asm.new_label();
            asm.bgeu(hi, lo, ordered);
            asm.mv(t, lo);
            asm.mv(lo, hi);
            asm.mv(hi, t);
            asm.bind(ordered);
        }
        asm.addi(hi, hi, bytes as i32);
        // The stream's own range first: 4 instructions when it holds the strip, and when it
        // does not but the strip starts at or above the array (a non-negative offset from
        // the parameter); only a strip below its own array costs 2.
        if let Some(r) = own {
            let next = asm.new_label();
            asm.ld(t, table, range_at(r));
            asm.bltu(lo, t, next);
            asm.ld(t, table, range_at(r) + 8);
            asm.bgeu(t, hi, done);
            asm.bind(next);
        }
        // The others in table order, 6 instructions each whether the array lies above or
        // below the strip, so the cost of this path is the number of ranges tried, which the
        // table order fixes, not the arrays' addresses.
        for r in (0..ranges).filter(|&r| Some(r) != own) {
            asm.ld(t, table, range_at(r));
            asm.ld(u, table, range_at(r) + 8);
            asm.alu(AluOp::Sltu, t, lo, t);
            asm.alu(AluOp::Sltu, u, u, hi);
            asm.alu(AluOp::Or, t, t, u);
            asm.beq(t, XReg::ZERO, done);
        }
        // Lane by lane, the active ones in order.
        set_active(asm, lanes, mask);
        let top = asm.label_here();
        asm.push(Inst::VMaskScalar { op: VMaskScalarOp::First, rd: lo, vs2: lanes, mask: Mask::Unmasked });
        asm.blt(lo, XReg::ZERO, restore);
        scale(asm, hi, lo);
        asm.add(hi, hi, base);
        asm.addi(u, hi, bytes as i32);
        // Every range, until one holds the lane.
        walk_ranges(asm, table, [lo, t]);
        let (inside, range, next, outside) = (asm.new_label(), asm.label_here(), asm.new_label(), asm.new_label());
        asm.bgeu(lo, t, outside);
        asm.ld(w, lo, 0);
        asm.bltu(hi, w, next);
        asm.ld(w, lo, 8);
        asm.bgeu(w, u, inside);
        asm.bind(next);
        asm.addi(lo, lo, 16);
        asm.j(range);
        asm.bind(outside);
        stop(asm, table, site, Some(hi), [u, t]);
        asm.bind(inside);
        asm.vunary(VUnaryOp::Msif, VReg::V0, lanes, Mask::Unmasked);
        asm.vop(VBinOp::Mandn, lanes, lanes, VReg::V0, Mask::Unmasked);
        asm.j(top);
    }
}

/// `lanes` = the lanes the access runs: `v0`'s when masked, else all.
fn set_active(asm: &mut Assembler, lanes: VReg, mask: Mask) {
    match mask {
        Mask::V0 => asm.vop(VBinOp::Mand, lanes, VReg::V0, VReg::V0, Mask::Unmasked),
        _ => asm.vop(VBinOp::Mxnor, lanes, lanes, lanes, Mask::Unmasked),
    }
}

/// Writes `site + 1` (and `address`, unless the record holds it already) to the record and
/// executes an illegal instruction (`csrrw zero, cycle, zero`, the canonical `unimp`);
/// `scratch` are clobbered.
fn stop(asm: &mut Assembler, table: XReg, site: usize, address: Option<XReg>, [record, id]: [XReg; 2]) {
    asm.ld(record, table, 0);
    asm.li(id, site as i64 + 1);
    asm.sd(id, record, 0);
    if let Some(a) = address {
        asm.sd(a, record, 8);
    }
    asm.push(Inst::Csr { op: CsrOp::ReadWrite, rd: XReg::ZERO, csr: Csr::CYCLE, rs1: XReg::ZERO });
}
