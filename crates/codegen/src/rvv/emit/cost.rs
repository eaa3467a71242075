//! The static cost of a leaf's strip, which the LMUL search compares shapes by.

use super::*;

/// One full strip of a leaf: its instructions, with the loop's bumps and control, and their
/// LMUL-weighted count (a vector instruction weighs the registers its vtype groups, a
/// whole-register one its register count, anything else 1; the weights `bench/README.md`
/// gives executed instructions, with mask logic weighed as its vtype's group).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct StripCost {
    pub(super) insts: u64,
    pub(super) weighted: u64,
    /// Registers of the group at the strip's widest element: the strip covers that many
    /// registers' worth of elements.
    pub(super) lmul_regs: u64,
}

impl StripCost {
    /// The cost of `code` entered with vtype `base`, plus `control` scalar instructions.
    pub(super) fn of(code: &[Inst], base: VType, control: u32, lmul_regs: u32) -> StripCost {
        let (mut insts, mut weighted) = (control as u64, control as u64);
        let mut group = base.lmul.registers() as u64;
        let mut sew = base.sew;
        for inst in code {
            insts += 1;
            weighted += match *inst {
                Inst::VSetVli { vtype, .. } | Inst::VSetIVli { vtype, .. } => {
                    group = vtype.lmul.registers() as u64;
                    sew = vtype.sew;
                    1
                }
                Inst::VLoadWhole { nregs, .. } | Inst::VStoreWhole { nregs, .. } | Inst::VMvWhole { nregs, .. } => {
                    nregs as u64
                }
                Inst::VLoad { eew, mode, .. } | Inst::VStore { eew, mode, .. } => match mode {
                    VMemMode::Indexed { .. } => group,
                    _ => (group * eew.bits() as u64 / sew.bits() as u64).max(1),
                },
                Inst::VLoadMask { .. } | Inst::VStoreMask { .. } => 1,
                Inst::VBinary { .. } | Inst::VUnary { .. } | Inst::VId { .. } | Inst::VMv { .. } => group,
                _ => 1,
            };
        }
        StripCost { insts, weighted, lmul_regs: lmul_regs as u64 }
    }

    /// Whether this strip costs less per element than `other`: the product of the two
    /// counts per register of elements, so that neither measure is traded for a larger
    /// loss in the other (a wider shape that spills wins when it saves more instructions,
    /// relatively, than it adds weighted work).
    pub(super) fn cheaper_than(&self, other: &StripCost) -> bool {
        let per = |c: &StripCost, other_regs: u64| c.insts * c.weighted * other_regs * other_regs;
        per(self, other.lmul_regs) < per(other, self.lmul_regs)
    }
}
