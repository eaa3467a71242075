//! The instruction type [`Inst`]: one value per machine instruction (always a 32-bit
//! encoding), with typed operands. Operations of one encoding shape share a variant
//! and are told apart by an op enum from [`crate::ops`].
//!
//! An `Inst` may hold operands its encoding cannot express (an immediate out of range,
//! an operand form the operation lacks); [`Inst::encode`] reports those as
//! [`AsmError`](crate::AsmError) instead of panicking.

use crate::ops::*;
use crate::reg::{FReg, VReg, XReg};
use crate::vtype::{Sew, VType};

/// A position in the code of an [`Assembler`](crate::Assembler), bound once with
/// `bind`. Labels from one assembler mean nothing to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(pub(crate) u32);

impl Label {
    /// The label's number; it prints as `.L<number>`.
    pub fn index(self) -> u32 {
        self.0
    }
}

/// Where a branch or `jal` goes: a label (resolved by the assembler) or a byte offset
/// relative to the instruction itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    Label(Label),
    Offset(i32),
}

/// A control and status register number (12 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Csr(pub u16);

impl Csr {
    pub const FFLAGS: Csr = Csr(0x001);
    pub const FRM: Csr = Csr(0x002);
    pub const FCSR: Csr = Csr(0x003);
    pub const VSTART: Csr = Csr(0x008);
    pub const VXSAT: Csr = Csr(0x009);
    pub const VXRM: Csr = Csr(0x00a);
    pub const VCSR: Csr = Csr(0x00f);
    pub const CYCLE: Csr = Csr(0xc00);
    pub const TIME: Csr = Csr(0xc01);
    pub const INSTRET: Csr = Csr(0xc02);
    pub const VL: Csr = Csr(0xc20);
    pub const VTYPE: Csr = Csr(0xc21);
    /// Vector register length in bytes (read-only).
    pub const VLENB: Csr = Csr(0xc22);

    /// The assembler name of a well-known CSR.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            Csr::FFLAGS => "fflags",
            Csr::FRM => "frm",
            Csr::FCSR => "fcsr",
            Csr::VSTART => "vstart",
            Csr::VXSAT => "vxsat",
            Csr::VXRM => "vxrm",
            Csr::VCSR => "vcsr",
            Csr::CYCLE => "cycle",
            Csr::TIME => "time",
            Csr::INSTRET => "instret",
            Csr::VL => "vl",
            Csr::VTYPE => "vtype",
            Csr::VLENB => "vlenb",
            _ => return None,
        })
    }
}

/// The access kinds ordered by a `fence`: a set of `i`, `o`, `r`, `w`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FenceSet(pub(crate) u8);

impl FenceSet {
    pub const NONE: FenceSet = FenceSet(0);
    pub const I: FenceSet = FenceSet(0b1000);
    pub const O: FenceSet = FenceSet(0b0100);
    pub const R: FenceSet = FenceSet(0b0010);
    pub const W: FenceSet = FenceSet(0b0001);
    pub const RW: FenceSet = FenceSet(0b0011);
    pub const IORW: FenceSet = FenceSet(0b1111);

    /// The union of two sets.
    pub const fn with(self, other: FenceSet) -> FenceSet {
        FenceSet(self.0 | other.0)
    }

    pub(crate) const fn bits(self) -> u32 {
        self.0 as u32
    }
}

/// Whether a vector instruction executes under the mask in `v0` (`v0.t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mask {
    /// Every element is active (`vm = 1`).
    Unmasked,
    /// Only elements whose bit in `v0` is set are active (`vm = 0`, printed `v0.t`).
    V0,
}

impl Mask {
    /// The `vm` bit.
    pub(crate) const fn vm_bit(self) -> u32 {
        match self {
            Mask::Unmasked => 1,
            Mask::V0 => 0,
        }
    }
}

/// The `src1` operand of a vector operation: vector, integer or float scalar, or a
/// 5-bit immediate. `From` conversions let callers pass a register or an `i32` directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VSrc {
    V(VReg),
    X(XReg),
    F(FReg),
    Imm(i32),
}

impl From<VReg> for VSrc {
    fn from(v: VReg) -> VSrc {
        VSrc::V(v)
    }
}

impl From<XReg> for VSrc {
    fn from(x: XReg) -> VSrc {
        VSrc::X(x)
    }
}

impl From<FReg> for VSrc {
    fn from(f: FReg) -> VSrc {
        VSrc::F(f)
    }
}

impl From<i32> for VSrc {
    fn from(imm: i32) -> VSrc {
        VSrc::Imm(imm)
    }
}

/// Addressing of a vector load or store beyond its base register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VMemMode {
    /// Consecutive elements (`vle<eew>.v`, `vse<eew>.v`).
    UnitStride,
    /// Unit-stride load that trims `vl` at the first faulting element after the first
    /// (`vle<eew>ff.v`; loads only).
    FaultOnlyFirst,
    /// Elements `stride` bytes apart (`vlse<eew>.v`, `vsse<eew>.v`).
    Strided(XReg),
    /// Elements at `base + index[i]`, with `eew` the width of the index elements (data
    /// elements have SEW). `ordered` selects `vloxei`/`vsoxei` over `vluxei`/`vsuxei`.
    Indexed { index: VReg, ordered: bool },
}

/// One RV64GC or RVV 1.0 instruction with a 32-bit encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inst {
    // ----- RV64I, M, A -------------------------------------------------------------
    /// `lui rd, imm20`: `rd = sext(imm20 << 12)`; `imm20` is the raw 20-bit field.
    Lui {
        rd: XReg,
        imm20: u32,
    },
    /// `auipc rd, imm20`: `rd = pc + sext(imm20 << 12)`.
    Auipc {
        rd: XReg,
        imm20: u32,
    },
    Alu {
        op: AluOp,
        rd: XReg,
        rs1: XReg,
        rs2: XReg,
    },
    AluImm {
        op: AluImmOp,
        rd: XReg,
        rs1: XReg,
        imm: i32,
    },
    Load {
        op: LoadOp,
        rd: XReg,
        base: XReg,
        offset: i32,
    },
    Store {
        op: StoreOp,
        src: XReg,
        base: XReg,
        offset: i32,
    },
    Branch {
        cond: BranchCond,
        rs1: XReg,
        rs2: XReg,
        target: Target,
    },
    Jal {
        rd: XReg,
        target: Target,
    },
    Jalr {
        rd: XReg,
        base: XReg,
        offset: i32,
    },
    Csr {
        op: CsrOp,
        rd: XReg,
        csr: Csr,
        rs1: XReg,
    },
    /// `csrr[wsc]i rd, csr, uimm` with `uimm < 32`.
    CsrImm {
        op: CsrOp,
        rd: XReg,
        csr: Csr,
        uimm: u8,
    },
    Fence {
        pred: FenceSet,
        succ: FenceSet,
    },
    /// `lr`, `sc` and the AMOs; `aq`/`rl` set acquire/release ordering. `src` must be
    /// `zero` for `lr`.
    Amo {
        op: AmoOp,
        width: AmoWidth,
        aq: bool,
        rl: bool,
        rd: XReg,
        src: XReg,
        addr: XReg,
    },

    // ----- F, D ---------------------------------------------------------------------
    FLoad {
        fmt: FFmt,
        rd: FReg,
        base: XReg,
        offset: i32,
    },
    FStore {
        fmt: FFmt,
        src: FReg,
        base: XReg,
        offset: i32,
    },
    FArith {
        op: FArithOp,
        fmt: FFmt,
        rd: FReg,
        rs1: FReg,
        rs2: FReg,
        rm: RoundingMode,
    },
    FSqrt {
        fmt: FFmt,
        rd: FReg,
        rs1: FReg,
        rm: RoundingMode,
    },
    FBin {
        op: FBinOp,
        fmt: FFmt,
        rd: FReg,
        rs1: FReg,
        rs2: FReg,
    },
    FFma {
        op: FFmaOp,
        fmt: FFmt,
        rd: FReg,
        rs1: FReg,
        rs2: FReg,
        rs3: FReg,
        rm: RoundingMode,
    },
    FCmp {
        op: FCmpOp,
        fmt: FFmt,
        rd: XReg,
        rs1: FReg,
        rs2: FReg,
    },
    /// `fcvt.<int>.<fmt> rd, rs1, rm`
    FCvtToInt {
        int: IntKind,
        fmt: FFmt,
        rd: XReg,
        rs1: FReg,
        rm: RoundingMode,
    },
    /// `fcvt.<fmt>.<int> rd, rs1, rm`
    FCvtFromInt {
        int: IntKind,
        fmt: FFmt,
        rd: FReg,
        rs1: XReg,
        rm: RoundingMode,
    },
    /// `fcvt.s.d` (`to: S`) or `fcvt.d.s` (`to: D`).
    FCvtFmt {
        to: FFmt,
        rd: FReg,
        rs1: FReg,
        rm: RoundingMode,
    },
    /// `fmv.x.w` / `fmv.x.d`: raw bits to an integer register.
    FMvToInt {
        fmt: FFmt,
        rd: XReg,
        rs1: FReg,
    },
    /// `fmv.w.x` / `fmv.d.x`: raw bits from an integer register.
    FMvFromInt {
        fmt: FFmt,
        rd: FReg,
        rs1: XReg,
    },

    // ----- V ------------------------------------------------------------------------
    /// `vsetvli rd, avl, vtype`
    VSetVli {
        rd: XReg,
        avl: XReg,
        vtype: VType,
    },
    /// `vsetivli rd, avl, vtype` with `avl < 32`.
    VSetIVli {
        rd: XReg,
        avl: u8,
        vtype: VType,
    },
    /// `vsetvl rd, avl, vtype_reg`
    VSetVl {
        rd: XReg,
        avl: XReg,
        vtype: XReg,
    },
    VLoad {
        eew: Sew,
        mode: VMemMode,
        vd: VReg,
        base: XReg,
        mask: Mask,
    },
    VStore {
        eew: Sew,
        mode: VMemMode,
        src: VReg,
        base: XReg,
        mask: Mask,
    },
    /// `vl<nregs>re<eew>.v vd, (base)`, `nregs` in 1, 2, 4, 8 and `vd` a multiple of it.
    VLoadWhole {
        nregs: u8,
        eew: Sew,
        vd: VReg,
        base: XReg,
    },
    /// `vs<nregs>r.v src, (base)`
    VStoreWhole {
        nregs: u8,
        src: VReg,
        base: XReg,
    },
    /// `vlm.v vd, (base)`: load `ceil(vl/8)` bytes of mask.
    VLoadMask {
        vd: VReg,
        base: XReg,
    },
    /// `vsm.v src, (base)`
    VStoreMask {
        src: VReg,
        base: XReg,
    },
    VBinary {
        op: VBinOp,
        vd: VReg,
        vs2: VReg,
        src1: VSrc,
        mask: Mask,
    },
    VUnary {
        op: VUnaryOp,
        vd: VReg,
        vs2: VReg,
        mask: Mask,
    },
    /// `vid.v vd`: element indices.
    VId {
        vd: VReg,
        mask: Mask,
    },
    /// `vmv.v.v`, `vmv.v.x`, `vmv.v.i` or `vfmv.v.f` by the kind of `src` (splat or copy).
    VMv {
        vd: VReg,
        src: VSrc,
    },
    /// `vmv<nregs>r.v vd, vs2`, `nregs` in 1, 2, 4, 8, both registers multiples of it.
    VMvWhole {
        nregs: u8,
        vd: VReg,
        vs2: VReg,
    },
    /// `vmv.x.s rd, vs2`: element 0 to an integer register.
    VMvXS {
        rd: XReg,
        vs2: VReg,
    },
    /// `vmv.s.x vd, rs1`: integer register to element 0.
    VMvSX {
        vd: VReg,
        rs1: XReg,
    },
    /// `vfmv.f.s rd, vs2`
    VFMvFS {
        rd: FReg,
        vs2: VReg,
    },
    /// `vfmv.s.f vd, rs1`
    VFMvSF {
        vd: VReg,
        rs1: FReg,
    },
    VMaskScalar {
        op: VMaskScalarOp,
        rd: XReg,
        vs2: VReg,
        mask: Mask,
    },

    // ----- data ---------------------------------------------------------------------
    /// `.word w`: 32 bits of data in the code (a constant the code loads; never executed).
    Word(u32),
}
