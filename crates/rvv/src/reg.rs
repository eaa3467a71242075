//! Typed register names: integer `XReg`, floating-point `FReg` and vector `VReg`.
//!
//! Invariant: every register value holds a number in `0..32`; the only way to build one
//! from a number is the checked [`XReg::new`] (and friends) or the named constants.

use std::fmt;

macro_rules! register_file {
    (
        $(#[$meta:meta])*
        $name:ident, names: [$($abi:literal),* $(,)?],
        consts: { $($konst:ident = $num:literal),* $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u8);

        impl $name {
            $(pub const $konst: $name = $name($num);)*

            const NAMES: [&'static str; 32] = [$($abi),*];

            /// The register numbered `num`, or `None` if `num >= 32`.
            pub const fn new(num: u8) -> Option<$name> {
                if num < 32 { Some($name(num)) } else { None }
            }

            /// The register's number, `0..32`, as it appears in an encoding.
            pub const fn num(self) -> u8 {
                self.0
            }

            /// The assembler name (ABI name for `x`/`f` registers).
            pub fn name(self) -> &'static str {
                Self::NAMES[self.0 as usize]
            }

            /// The register `delta` numbers further on, if it exists
            /// (`VReg::V8.offset(8) == Some(VReg::V16)`).
            pub fn offset(self, delta: u8) -> Option<$name> {
                $name::new(self.0.checked_add(delta)?)
            }

            /// All 32 registers in number order.
            pub fn all() -> impl Iterator<Item = $name> {
                (0..32).map($name)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

register_file! {
    /// An integer register `x0..x31`, printed by its ABI name (`zero`, `ra`, `a0`, ...).
    XReg,
    names: [
        "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3",
        "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
        "t3", "t4", "t5", "t6",
    ],
    consts: {
        ZERO = 0, RA = 1, SP = 2, GP = 3, TP = 4, T0 = 5, T1 = 6, T2 = 7, S0 = 8, S1 = 9,
        A0 = 10, A1 = 11, A2 = 12, A3 = 13, A4 = 14, A5 = 15, A6 = 16, A7 = 17,
        S2 = 18, S3 = 19, S4 = 20, S5 = 21, S6 = 22, S7 = 23, S8 = 24, S9 = 25, S10 = 26,
        S11 = 27, T3 = 28, T4 = 29, T5 = 30, T6 = 31,
    }
}

register_file! {
    /// A floating-point register `f0..f31`, printed by its ABI name (`ft0`, `fa0`, ...).
    FReg,
    names: [
        "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0", "fa1",
        "fa2", "fa3", "fa4", "fa5", "fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7",
        "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
    ],
    consts: {
        FT0 = 0, FT1 = 1, FT2 = 2, FT3 = 3, FT4 = 4, FT5 = 5, FT6 = 6, FT7 = 7,
        FS0 = 8, FS1 = 9, FA0 = 10, FA1 = 11, FA2 = 12, FA3 = 13, FA4 = 14, FA5 = 15,
        FA6 = 16, FA7 = 17, FS2 = 18, FS3 = 19, FS4 = 20, FS5 = 21, FS6 = 22, FS7 = 23,
        FS8 = 24, FS9 = 25, FS10 = 26, FS11 = 27, FT8 = 28, FT9 = 29, FT10 = 30, FT11 = 31,
    }
}

register_file! {
    /// A vector register `v0..v31`. Register groups (LMUL > 1) are named by their first
    /// register; `v0` doubles as the mask register of masked instructions.
    VReg,
    names: [
        "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12",
        "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24",
        "v25", "v26", "v27", "v28", "v29", "v30", "v31",
    ],
    consts: {
        V0 = 0, V1 = 1, V2 = 2, V3 = 3, V4 = 4, V5 = 5, V6 = 6, V7 = 7, V8 = 8, V9 = 9,
        V10 = 10, V11 = 11, V12 = 12, V13 = 13, V14 = 14, V15 = 15, V16 = 16, V17 = 17,
        V18 = 18, V19 = 19, V20 = 20, V21 = 21, V22 = 22, V23 = 23, V24 = 24, V25 = 25,
        V26 = 26, V27 = 27, V28 = 28, V29 = 29, V30 = 30, V31 = 31,
    }
}

impl VReg {
    /// Whether this register can start a group of `lmul` registers (its number is a
    /// multiple of the group size); every vector operand must, or the instruction is
    /// reserved. The encoder cannot check this, since LMUL is set at run time.
    pub fn starts_group(self, lmul: crate::vtype::Lmul) -> bool {
        self.0.is_multiple_of(lmul.registers())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_abi() {
        assert_eq!(XReg::new(10).unwrap().name(), "a0");
        assert_eq!(XReg::T6.num(), 31);
        assert_eq!(FReg::FA0.to_string(), "fa0");
        assert_eq!(FReg::new(31).unwrap().name(), "ft11");
        assert_eq!(VReg::V31.to_string(), "v31");
        assert_eq!(XReg::new(32), None);
        assert_eq!(VReg::V8.offset(8), Some(VReg::V16));
        assert_eq!(VReg::V24.offset(8), None);
        assert_eq!(XReg::all().count(), 32);
        assert!(VReg::V16.starts_group(crate::vtype::Lmul::M8));
        assert!(!VReg::V12.starts_group(crate::vtype::Lmul::M8));
        assert!(VReg::V3.starts_group(crate::vtype::Lmul::Mf2));
    }
}
