//! Vector type settings: element width (`Sew`), register grouping (`Lmul`) and the
//! tail/mask policies, together a `VType` as written by `vsetvli`.

use std::fmt;

/// Selected element width: `e8`, `e16`, `e32` or `e64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sew {
    E8,
    E16,
    E32,
    E64,
}

impl Sew {
    pub const ALL: [Sew; 4] = [Sew::E8, Sew::E16, Sew::E32, Sew::E64];

    /// Element width in bits.
    pub const fn bits(self) -> u32 {
        8 << (self as u32)
    }

    /// Element width in bytes.
    pub const fn bytes(self) -> u32 {
        1 << (self as u32)
    }

    /// The width of `bits`-bit elements, if it is one of 8, 16, 32, 64.
    pub const fn from_bits(bits: u32) -> Option<Sew> {
        match bits {
            8 => Some(Sew::E8),
            16 => Some(Sew::E16),
            32 => Some(Sew::E32),
            64 => Some(Sew::E64),
            _ => None,
        }
    }

    /// The `vsew` field of `vtype`.
    pub(crate) const fn vsew_field(self) -> u32 {
        self as u32
    }

    /// The `width` field of vector loads and stores for this element width.
    pub(crate) const fn mem_width_field(self) -> u32 {
        match self {
            Sew::E8 => 0b000,
            Sew::E16 => 0b101,
            Sew::E32 => 0b110,
            Sew::E64 => 0b111,
        }
    }
}

impl fmt::Display for Sew {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}", self.bits())
    }
}

/// Register group multiplier: fractional `mf8`, `mf4`, `mf2` or `m1`, `m2`, `m4`, `m8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lmul {
    Mf8,
    Mf4,
    Mf2,
    M1,
    M2,
    M4,
    M8,
}

impl Lmul {
    pub const ALL: [Lmul; 7] = [Lmul::Mf8, Lmul::Mf4, Lmul::Mf2, Lmul::M1, Lmul::M2, Lmul::M4, Lmul::M8];

    /// How many vector registers one operand occupies (1 for fractional LMUL).
    pub const fn registers(self) -> u8 {
        match self {
            Lmul::Mf8 | Lmul::Mf4 | Lmul::Mf2 | Lmul::M1 => 1,
            Lmul::M2 => 2,
            Lmul::M4 => 4,
            Lmul::M8 => 8,
        }
    }

    /// LMUL as the fraction `numerator / denominator` (`mf4` is 1/4, `m2` is 2/1).
    pub const fn ratio(self) -> (u32, u32) {
        match self {
            Lmul::Mf8 => (1, 8),
            Lmul::Mf4 => (1, 4),
            Lmul::Mf2 => (1, 2),
            Lmul::M1 => (1, 1),
            Lmul::M2 => (2, 1),
            Lmul::M4 => (4, 1),
            Lmul::M8 => (8, 1),
        }
    }

    /// The `vlmul` field of `vtype`.
    pub(crate) const fn vlmul_field(self) -> u32 {
        match self {
            Lmul::M1 => 0,
            Lmul::M2 => 1,
            Lmul::M4 => 2,
            Lmul::M8 => 3,
            Lmul::Mf8 => 5,
            Lmul::Mf4 => 6,
            Lmul::Mf2 => 7,
        }
    }
}

impl fmt::Display for Lmul {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ratio() {
            (1, d) if d > 1 => write!(f, "mf{d}"),
            (n, _) => write!(f, "m{n}"),
        }
    }
}

/// A `vtype` setting. Agnostic policies (`ta`, `ma`) let the hardware leave tail and
/// masked-off elements with any value; undisturbed (`tu`, `mu`) preserves them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VType {
    pub sew: Sew,
    pub lmul: Lmul,
    pub tail_agnostic: bool,
    pub mask_agnostic: bool,
}

impl VType {
    /// `sew, lmul, ta, ma` — the usual choice for strip-mined loops.
    pub const fn new(sew: Sew, lmul: Lmul) -> VType {
        VType { sew, lmul, tail_agnostic: true, mask_agnostic: true }
    }

    /// The same setting with tail undisturbed (`tu`).
    pub const fn tail_undisturbed(self) -> VType {
        VType { tail_agnostic: false, ..self }
    }

    /// The same setting with mask undisturbed (`mu`).
    pub const fn mask_undisturbed(self) -> VType {
        VType { mask_agnostic: false, ..self }
    }

    /// VLMAX, the most elements one instruction processes, for a vector register
    /// length of `vlen` bits: `vlen / sew * lmul` (0 if `lmul` is too fractional).
    pub const fn vlmax(self, vlen: u32) -> u32 {
        let (num, den) = self.lmul.ratio();
        vlen / self.sew.bits() * num / den
    }

    /// The 8 low bits of `vtype` (`vma`, `vta`, `vsew`, `vlmul`) as `vsetvli` encodes them.
    pub const fn bits(self) -> u32 {
        ((self.mask_agnostic as u32) << 7)
            | ((self.tail_agnostic as u32) << 6)
            | (self.sew.vsew_field() << 3)
            | self.lmul.vlmul_field()
    }
}

impl fmt::Display for VType {
    /// Assembler syntax: `e32, m8, ta, ma`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tail = if self.tail_agnostic { "ta" } else { "tu" };
        let mask = if self.mask_agnostic { "ma" } else { "mu" };
        write!(f, "{}, {}, {tail}, {mask}", self.sew, self.lmul)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vtype_bits_and_text() {
        let vt = VType::new(Sew::E32, Lmul::M8);
        assert_eq!(vt.bits(), 0b1101_0011);
        assert_eq!(vt.to_string(), "e32, m8, ta, ma");
        let vt = VType::new(Sew::E8, Lmul::Mf2).tail_undisturbed().mask_undisturbed();
        assert_eq!(vt.bits(), 0b0000_0111);
        assert_eq!(vt.to_string(), "e8, mf2, tu, mu");
        assert_eq!(Lmul::M4.registers(), 4);
        assert_eq!(VType::new(Sew::E32, Lmul::M8).vlmax(256), 64);
        assert_eq!(VType::new(Sew::E64, Lmul::Mf2).vlmax(128), 1);
        assert_eq!(VType::new(Sew::E64, Lmul::Mf8).vlmax(128), 0);
        assert_eq!(Lmul::Mf8.registers(), 1);
        assert_eq!(Sew::from_bits(16), Some(Sew::E16));
        assert_eq!(Sew::E64.bytes(), 8);
    }
}
