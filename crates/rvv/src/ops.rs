//! Operation tables: every enum here names a family of instructions that share one
//! encoding shape, and `info()` gives the fields that tell the family's members apart.
//! Encoder and printer both read these tables, so a mnemonic and its encoding are
//! written down exactly once.

/// Defines a `Copy` enum with `ALL` (every variant in declaration order) and a
/// crate-private `info()` returning the table row of each variant.
macro_rules! op_table {
    (
        $(#[$meta:meta])*
        pub enum $name:ident -> $info:ty {
            $($(#[$vmeta:meta])* $variant:ident => $row:expr,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// Every operation of this family, in table order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            pub(crate) const fn info(self) -> $info {
                match self {
                    $($name::$variant => $row,)*
                }
            }
        }
    };
}

// ---------------------------------------------------------------------------------------
// Scalar RV64IMAFD
// ---------------------------------------------------------------------------------------

pub(crate) const OPC_LOAD: u32 = 0x03;
pub(crate) const OPC_LOAD_FP: u32 = 0x07;
pub(crate) const OPC_MISC_MEM: u32 = 0x0f;
pub(crate) const OPC_OP_IMM: u32 = 0x13;
pub(crate) const OPC_AUIPC: u32 = 0x17;
pub(crate) const OPC_OP_IMM_32: u32 = 0x1b;
pub(crate) const OPC_STORE: u32 = 0x23;
pub(crate) const OPC_STORE_FP: u32 = 0x27;
pub(crate) const OPC_AMO: u32 = 0x2f;
pub(crate) const OPC_OP: u32 = 0x33;
pub(crate) const OPC_LUI: u32 = 0x37;
pub(crate) const OPC_OP_32: u32 = 0x3b;
pub(crate) const OPC_OP_FP: u32 = 0x53;
pub(crate) const OPC_BRANCH: u32 = 0x63;
pub(crate) const OPC_JALR: u32 = 0x67;
pub(crate) const OPC_JAL: u32 = 0x6f;
pub(crate) const OPC_SYSTEM: u32 = 0x73;
pub(crate) const OPC_OP_V: u32 = 0x57;

/// Row of an R-type integer operation.
#[derive(Clone, Copy)]
pub(crate) struct AluInfo {
    pub name: &'static str,
    pub opcode: u32,
    pub funct3: u32,
    pub funct7: u32,
}

const fn alu(name: &'static str, opcode: u32, funct3: u32, funct7: u32) -> AluInfo {
    AluInfo { name, opcode, funct3, funct7 }
}

op_table! {
    /// Register-register integer operations (RV64I, RV64M), `op rd, rs1, rs2`.
    pub enum AluOp -> AluInfo {
        Add => alu("add", OPC_OP, 0, 0x00),
        Sub => alu("sub", OPC_OP, 0, 0x20),
        Sll => alu("sll", OPC_OP, 1, 0x00),
        Slt => alu("slt", OPC_OP, 2, 0x00),
        Sltu => alu("sltu", OPC_OP, 3, 0x00),
        Xor => alu("xor", OPC_OP, 4, 0x00),
        Srl => alu("srl", OPC_OP, 5, 0x00),
        Sra => alu("sra", OPC_OP, 5, 0x20),
        Or => alu("or", OPC_OP, 6, 0x00),
        And => alu("and", OPC_OP, 7, 0x00),
        Mul => alu("mul", OPC_OP, 0, 0x01),
        Mulh => alu("mulh", OPC_OP, 1, 0x01),
        Mulhsu => alu("mulhsu", OPC_OP, 2, 0x01),
        Mulhu => alu("mulhu", OPC_OP, 3, 0x01),
        Div => alu("div", OPC_OP, 4, 0x01),
        Divu => alu("divu", OPC_OP, 5, 0x01),
        Rem => alu("rem", OPC_OP, 6, 0x01),
        Remu => alu("remu", OPC_OP, 7, 0x01),
        Addw => alu("addw", OPC_OP_32, 0, 0x00),
        Subw => alu("subw", OPC_OP_32, 0, 0x20),
        Sllw => alu("sllw", OPC_OP_32, 1, 0x00),
        Srlw => alu("srlw", OPC_OP_32, 5, 0x00),
        Sraw => alu("sraw", OPC_OP_32, 5, 0x20),
        Mulw => alu("mulw", OPC_OP_32, 0, 0x01),
        Divw => alu("divw", OPC_OP_32, 4, 0x01),
        Divuw => alu("divuw", OPC_OP_32, 5, 0x01),
        Remw => alu("remw", OPC_OP_32, 6, 0x01),
        Remuw => alu("remuw", OPC_OP_32, 7, 0x01),
    }
}

/// How the 12-bit immediate field of an I-type ALU operation is used.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ImmField {
    /// A signed 12-bit immediate, `-2048..=2047`.
    Signed12,
    /// A shift amount `0..64` below the given high 6 bits.
    Shamt6 { funct6: u32 },
    /// A shift amount `0..32` below the given high 7 bits (the `*w` shifts).
    Shamt5 { funct7: u32 },
}

#[derive(Clone, Copy)]
pub(crate) struct AluImmInfo {
    pub name: &'static str,
    pub opcode: u32,
    pub funct3: u32,
    pub imm: ImmField,
}

const fn alu_imm(name: &'static str, opcode: u32, funct3: u32, imm: ImmField) -> AluImmInfo {
    AluImmInfo { name, opcode, funct3, imm }
}

op_table! {
    /// Register-immediate integer operations, `op rd, rs1, imm`.
    pub enum AluImmOp -> AluImmInfo {
        Addi => alu_imm("addi", OPC_OP_IMM, 0, ImmField::Signed12),
        Slti => alu_imm("slti", OPC_OP_IMM, 2, ImmField::Signed12),
        Sltiu => alu_imm("sltiu", OPC_OP_IMM, 3, ImmField::Signed12),
        Xori => alu_imm("xori", OPC_OP_IMM, 4, ImmField::Signed12),
        Ori => alu_imm("ori", OPC_OP_IMM, 6, ImmField::Signed12),
        Andi => alu_imm("andi", OPC_OP_IMM, 7, ImmField::Signed12),
        Slli => alu_imm("slli", OPC_OP_IMM, 1, ImmField::Shamt6 { funct6: 0x00 }),
        Srli => alu_imm("srli", OPC_OP_IMM, 5, ImmField::Shamt6 { funct6: 0x00 }),
        Srai => alu_imm("srai", OPC_OP_IMM, 5, ImmField::Shamt6 { funct6: 0x10 }),
        Addiw => alu_imm("addiw", OPC_OP_IMM_32, 0, ImmField::Signed12),
        Slliw => alu_imm("slliw", OPC_OP_IMM_32, 1, ImmField::Shamt5 { funct7: 0x00 }),
        Srliw => alu_imm("srliw", OPC_OP_IMM_32, 5, ImmField::Shamt5 { funct7: 0x00 }),
        Sraiw => alu_imm("sraiw", OPC_OP_IMM_32, 5, ImmField::Shamt5 { funct7: 0x20 }),
    }
}

/// Row of a family told apart by one number: the mnemonic (or its stem) and the
/// field value (`funct3`, `funct5`, opcode, ...; each table says which).
#[derive(Clone, Copy)]
pub(crate) struct Coded {
    pub name: &'static str,
    pub code: u32,
}

const fn coded(name: &'static str, code: u32) -> Coded {
    Coded { name, code }
}

op_table! {
    /// Integer loads, `op rd, offset(base)`. Row: mnemonic, `funct3`.
    pub enum LoadOp -> Coded {
        Lb => coded("lb", 0),
        Lh => coded("lh", 1),
        Lw => coded("lw", 2),
        Ld => coded("ld", 3),
        Lbu => coded("lbu", 4),
        Lhu => coded("lhu", 5),
        Lwu => coded("lwu", 6),
    }
}

op_table! {
    /// Integer stores, `op src, offset(base)`. Row: mnemonic, `funct3`.
    pub enum StoreOp -> Coded {
        Sb => coded("sb", 0),
        Sh => coded("sh", 1),
        Sw => coded("sw", 2),
        Sd => coded("sd", 3),
    }
}

op_table! {
    /// Conditional branch conditions, `b<cond> rs1, rs2, target`. Row: mnemonic, `funct3`.
    pub enum BranchCond -> Coded {
        Eq => coded("beq", 0),
        Ne => coded("bne", 1),
        Lt => coded("blt", 4),
        Ge => coded("bge", 5),
        Ltu => coded("bltu", 6),
        Geu => coded("bgeu", 7),
    }
}

op_table! {
    /// CSR read-modify-write operations; `funct3` of the register form (the immediate
    /// form adds 4 and appends `i` to the mnemonic).
    pub enum CsrOp -> Coded {
        /// Read and write (`csrrw`).
        ReadWrite => coded("csrrw", 1),
        /// Read and set bits (`csrrs`).
        ReadSet => coded("csrrs", 2),
        /// Read and clear bits (`csrrc`).
        ReadClear => coded("csrrc", 3),
    }
}

op_table! {
    /// Atomic memory operations (RV64A), `op.{w,d}[.aq][.rl] rd, src, (addr)`;
    /// `lr` takes no `src`. Row: mnemonic stem and `funct5`.
    pub enum AmoOp -> Coded {
        LoadReserved => coded("lr", 0x02),
        StoreConditional => coded("sc", 0x03),
        Swap => coded("amoswap", 0x01),
        Add => coded("amoadd", 0x00),
        Xor => coded("amoxor", 0x04),
        And => coded("amoand", 0x0c),
        Or => coded("amoor", 0x08),
        Min => coded("amomin", 0x10),
        Max => coded("amomax", 0x14),
        Minu => coded("amominu", 0x18),
        Maxu => coded("amomaxu", 0x1c),
    }
}

/// Width of an atomic memory operation: word (`.w`) or doubleword (`.d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AmoWidth {
    W,
    D,
}

impl AmoWidth {
    pub(crate) const fn funct3(self) -> u32 {
        match self {
            AmoWidth::W => 2,
            AmoWidth::D => 3,
        }
    }

    pub(crate) const fn suffix(self) -> &'static str {
        match self {
            AmoWidth::W => "w",
            AmoWidth::D => "d",
        }
    }
}

/// Scalar floating-point format: single (`.s`) or double (`.d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FFmt {
    S,
    D,
}

impl FFmt {
    /// The 2-bit `fmt` field of OP-FP and the R4 formats.
    pub(crate) const fn field(self) -> u32 {
        match self {
            FFmt::S => 0,
            FFmt::D => 1,
        }
    }

    /// The `funct3` of `flw`/`fld` and `fsw`/`fsd`.
    pub(crate) const fn mem_funct3(self) -> u32 {
        match self {
            FFmt::S => 2,
            FFmt::D => 3,
        }
    }

    pub(crate) const fn suffix(self) -> &'static str {
        match self {
            FFmt::S => "s",
            FFmt::D => "d",
        }
    }

    /// The letter naming the integer register view of this format in `fmv.x.w`/`fmv.x.d`.
    pub(crate) const fn mv_letter(self) -> &'static str {
        match self {
            FFmt::S => "w",
            FFmt::D => "d",
        }
    }
}

/// Floating-point rounding mode (`rm` field). `Dyn` uses the `frm` CSR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoundingMode {
    Rne,
    Rtz,
    Rdn,
    Rup,
    Rmm,
    Dyn,
}

impl RoundingMode {
    pub const ALL: [RoundingMode; 6] = [
        RoundingMode::Rne,
        RoundingMode::Rtz,
        RoundingMode::Rdn,
        RoundingMode::Rup,
        RoundingMode::Rmm,
        RoundingMode::Dyn,
    ];

    pub(crate) const fn field(self) -> u32 {
        match self {
            RoundingMode::Rne => 0,
            RoundingMode::Rtz => 1,
            RoundingMode::Rdn => 2,
            RoundingMode::Rup => 3,
            RoundingMode::Rmm => 4,
            RoundingMode::Dyn => 7,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            RoundingMode::Rne => "rne",
            RoundingMode::Rtz => "rtz",
            RoundingMode::Rdn => "rdn",
            RoundingMode::Rup => "rup",
            RoundingMode::Rmm => "rmm",
            RoundingMode::Dyn => "dyn",
        }
    }
}

op_table! {
    /// Rounded floating-point arithmetic `op.fmt rd, rs1, rs2, rm`. Row: stem and `funct5`.
    pub enum FArithOp -> Coded {
        Add => coded("fadd", 0x00),
        Sub => coded("fsub", 0x01),
        Mul => coded("fmul", 0x02),
        Div => coded("fdiv", 0x03),
    }
}

/// Row of a floating-point operation without rounding: stem, `funct5`, `funct3`.
#[derive(Clone, Copy)]
pub(crate) struct FBinInfo {
    pub name: &'static str,
    pub funct5: u32,
    pub funct3: u32,
}

const fn fbin(name: &'static str, funct5: u32, funct3: u32) -> FBinInfo {
    FBinInfo { name, funct5, funct3 }
}

op_table! {
    /// Sign injection and min/max, `op.fmt rd, rs1, rs2`.
    pub enum FBinOp -> FBinInfo {
        Sgnj => fbin("fsgnj", 0x04, 0),
        Sgnjn => fbin("fsgnjn", 0x04, 1),
        Sgnjx => fbin("fsgnjx", 0x04, 2),
        Min => fbin("fmin", 0x05, 0),
        Max => fbin("fmax", 0x05, 1),
    }
}

op_table! {
    /// Floating-point comparisons writing 0/1 to an integer register, `op.fmt rd, rs1, rs2`.
    pub enum FCmpOp -> FBinInfo {
        Eq => fbin("feq", 0x14, 2),
        Lt => fbin("flt", 0x14, 1),
        Le => fbin("fle", 0x14, 0),
    }
}

op_table! {
    /// Fused multiply-add (R4 format), `op.fmt rd, rs1, rs2, rs3, rm`. Row: stem, opcode.
    pub enum FFmaOp -> Coded {
        /// `rs1*rs2 + rs3`
        Madd => coded("fmadd", 0x43),
        /// `rs1*rs2 - rs3`
        Msub => coded("fmsub", 0x47),
        /// `-(rs1*rs2) + rs3`
        Nmsub => coded("fnmsub", 0x4b),
        /// `-(rs1*rs2) - rs3`
        Nmadd => coded("fnmadd", 0x4f),
    }
}

op_table! {
    /// The integer side of `fcvt`: 32/64-bit, signed/unsigned. Row: name and `rs2` field.
    pub enum IntKind -> Coded {
        W => coded("w", 0),
        Wu => coded("wu", 1),
        L => coded("l", 2),
        Lu => coded("lu", 3),
    }
}

// ---------------------------------------------------------------------------------------
// RVV 1.0
// ---------------------------------------------------------------------------------------

/// The three arithmetic encoding spaces of OP-V, which fix `funct3` per operand form.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum VUnit {
    /// OPIVV / OPIVX / OPIVI.
    Int,
    /// OPMVV / OPMVX.
    Mul,
    /// OPFVV / OPFVF.
    Float,
}

pub(crate) const OPIVV: u32 = 0b000;
pub(crate) const OPFVV: u32 = 0b001;
pub(crate) const OPMVV: u32 = 0b010;
pub(crate) const OPIVI: u32 = 0b011;
pub(crate) const OPIVX: u32 = 0b100;
pub(crate) const OPFVF: u32 = 0b101;
pub(crate) const OPMVX: u32 = 0b110;
pub(crate) const OPCFG: u32 = 0b111;

/// Operand forms an operation accepts (bit set).
pub(crate) const VV: u8 = 1;
/// Vector-scalar: `.vx` in the Int/Mul units, `.vf` in the Float unit.
pub(crate) const VS: u8 = 2;
pub(crate) const VI: u8 = 4;

/// How operands and suffix of a binary vector operation are written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum VShape {
    /// `op.v{v,x,i,f} vd, vs2, src1`
    Plain,
    /// `op.w{v,x,i,f} vd, vs2, src1` (`vs2` is the wide operand: `vwadd.w*`, `vnsrl`).
    Wide,
    /// `op.v{v,x,f} vd, src1, vs2` (multiply-add: `vd` is also an addend/multiplicand).
    MulAdd,
    /// `op.vs vd, vs2, vs1` (reductions).
    Reduction,
    /// `op.v{v,x,i,f}m vd, vs2, src1, v0` (always masked by `v0`).
    Merge,
    /// `op.mm vd, vs2, vs1` (mask logic, never masked).
    MaskLogic,
    /// `op.vm vd, vs2, vs1` (`vcompress`, never masked; `vs1` is the selecting mask).
    Compress,
}

/// Row of a binary vector operation.
#[derive(Clone, Copy)]
pub(crate) struct VBinInfo {
    pub name: &'static str,
    pub funct6: u32,
    pub unit: VUnit,
    pub forms: u8,
    /// Whether the `.vi` immediate is unsigned `0..=31` (shift amounts, slide offsets,
    /// gather indices) rather than signed `-16..=15`.
    pub unsigned_imm: bool,
    pub shape: VShape,
}

const fn vbin(name: &'static str, funct6: u32, unit: VUnit, forms: u8, shape: VShape) -> VBinInfo {
    VBinInfo { name, funct6, unit, forms, unsigned_imm: false, shape }
}

/// Like [`vbin`] with an unsigned `.vi` immediate.
const fn vbin_u(name: &'static str, funct6: u32, unit: VUnit, forms: u8, shape: VShape) -> VBinInfo {
    VBinInfo { name, funct6, unit, forms, unsigned_imm: true, shape }
}

use VShape::{Compress, MaskLogic, Merge, MulAdd, Plain, Reduction, Wide};
use VUnit::{Float, Int, Mul};

op_table! {
    /// Binary vector operations: `vd = op(vs2, src1)` under an optional `v0.t` mask,
    /// where `src1` is a vector, an `x`/`f` scalar or a 5-bit immediate as the operation
    /// allows. Variant names drop the leading `v` of the mnemonic; a trailing `W` marks
    /// the `.w*` forms with a wide `vs2` (`WaddW` is `vwadd.wv`/`vwadd.wx`).
    pub enum VBinOp -> VBinInfo {
        // Integer arithmetic.
        Add => vbin("vadd", 0b000000, Int, VV | VS | VI, Plain),
        Sub => vbin("vsub", 0b000010, Int, VV | VS, Plain),
        Rsub => vbin("vrsub", 0b000011, Int, VS | VI, Plain),
        Minu => vbin("vminu", 0b000100, Int, VV | VS, Plain),
        Min => vbin("vmin", 0b000101, Int, VV | VS, Plain),
        Maxu => vbin("vmaxu", 0b000110, Int, VV | VS, Plain),
        Max => vbin("vmax", 0b000111, Int, VV | VS, Plain),
        And => vbin("vand", 0b001001, Int, VV | VS | VI, Plain),
        Or => vbin("vor", 0b001010, Int, VV | VS | VI, Plain),
        Xor => vbin("vxor", 0b001011, Int, VV | VS | VI, Plain),
        Sll => vbin_u("vsll", 0b100101, Int, VV | VS | VI, Plain),
        Srl => vbin_u("vsrl", 0b101000, Int, VV | VS | VI, Plain),
        Sra => vbin_u("vsra", 0b101001, Int, VV | VS | VI, Plain),
        // Scaling shift right logical: a right shift rounded as `vxrm` says.
        Ssrl => vbin_u("vssrl", 0b101010, Int, VV | VS | VI, Plain),
        Nsrl => vbin_u("vnsrl", 0b101100, Int, VV | VS | VI, Wide),
        Nsra => vbin_u("vnsra", 0b101101, Int, VV | VS | VI, Wide),
        // Narrowing unsigned clip: a right shift rounded as `vxrm` says, saturated.
        Nclipu => vbin_u("vnclipu", 0b101110, Int, VV | VS | VI, Wide),
        Divu => vbin("vdivu", 0b100000, Mul, VV | VS, Plain),
        Div => vbin("vdiv", 0b100001, Mul, VV | VS, Plain),
        Remu => vbin("vremu", 0b100010, Mul, VV | VS, Plain),
        Rem => vbin("vrem", 0b100011, Mul, VV | VS, Plain),
        Mulhu => vbin("vmulhu", 0b100100, Mul, VV | VS, Plain),
        Mul => vbin("vmul", 0b100101, Mul, VV | VS, Plain),
        Mulhsu => vbin("vmulhsu", 0b100110, Mul, VV | VS, Plain),
        Mulh => vbin("vmulh", 0b100111, Mul, VV | VS, Plain),
        Madd => vbin("vmadd", 0b101001, Mul, VV | VS, MulAdd),
        Nmsub => vbin("vnmsub", 0b101011, Mul, VV | VS, MulAdd),
        Macc => vbin("vmacc", 0b101101, Mul, VV | VS, MulAdd),
        Nmsac => vbin("vnmsac", 0b101111, Mul, VV | VS, MulAdd),
        // Widening integer arithmetic.
        Waddu => vbin("vwaddu", 0b110000, Mul, VV | VS, Plain),
        Wadd => vbin("vwadd", 0b110001, Mul, VV | VS, Plain),
        Wsubu => vbin("vwsubu", 0b110010, Mul, VV | VS, Plain),
        Wsub => vbin("vwsub", 0b110011, Mul, VV | VS, Plain),
        WadduW => vbin("vwaddu", 0b110100, Mul, VV | VS, Wide),
        WaddW => vbin("vwadd", 0b110101, Mul, VV | VS, Wide),
        WsubuW => vbin("vwsubu", 0b110110, Mul, VV | VS, Wide),
        WsubW => vbin("vwsub", 0b110111, Mul, VV | VS, Wide),
        Wmulu => vbin("vwmulu", 0b111000, Mul, VV | VS, Plain),
        Wmulsu => vbin("vwmulsu", 0b111010, Mul, VV | VS, Plain),
        Wmul => vbin("vwmul", 0b111011, Mul, VV | VS, Plain),
        Wmaccu => vbin("vwmaccu", 0b111100, Mul, VV | VS, MulAdd),
        Wmacc => vbin("vwmacc", 0b111101, Mul, VV | VS, MulAdd),
        Wmaccus => vbin("vwmaccus", 0b111110, Mul, VS, MulAdd),
        Wmaccsu => vbin("vwmaccsu", 0b111111, Mul, VV | VS, MulAdd),
        // Integer compares into a mask.
        Mseq => vbin("vmseq", 0b011000, Int, VV | VS | VI, Plain),
        Msne => vbin("vmsne", 0b011001, Int, VV | VS | VI, Plain),
        Msltu => vbin("vmsltu", 0b011010, Int, VV | VS, Plain),
        Mslt => vbin("vmslt", 0b011011, Int, VV | VS, Plain),
        Msleu => vbin("vmsleu", 0b011100, Int, VV | VS | VI, Plain),
        Msle => vbin("vmsle", 0b011101, Int, VV | VS | VI, Plain),
        Msgtu => vbin("vmsgtu", 0b011110, Int, VS | VI, Plain),
        Msgt => vbin("vmsgt", 0b011111, Int, VS | VI, Plain),
        // Merge (`vmerge.v*m`, `vfmerge.vfm`).
        Merge => vbin("vmerge", 0b010111, Int, VV | VS | VI, Merge),
        Fmerge => vbin("vfmerge", 0b010111, Float, VS, Merge),
        // Mask logic.
        Mandn => vbin("vmandn", 0b011000, Mul, VV, MaskLogic),
        Mand => vbin("vmand", 0b011001, Mul, VV, MaskLogic),
        Mor => vbin("vmor", 0b011010, Mul, VV, MaskLogic),
        Mxor => vbin("vmxor", 0b011011, Mul, VV, MaskLogic),
        Morn => vbin("vmorn", 0b011100, Mul, VV, MaskLogic),
        Mnand => vbin("vmnand", 0b011101, Mul, VV, MaskLogic),
        Mnor => vbin("vmnor", 0b011110, Mul, VV, MaskLogic),
        Mxnor => vbin("vmxnor", 0b011111, Mul, VV, MaskLogic),
        // Integer reductions (`vd[0] = op(vs1[0], vs2[*])`).
        Redsum => vbin("vredsum", 0b000000, Mul, VV, Reduction),
        Redand => vbin("vredand", 0b000001, Mul, VV, Reduction),
        Redor => vbin("vredor", 0b000010, Mul, VV, Reduction),
        Redxor => vbin("vredxor", 0b000011, Mul, VV, Reduction),
        Redminu => vbin("vredminu", 0b000100, Mul, VV, Reduction),
        Redmin => vbin("vredmin", 0b000101, Mul, VV, Reduction),
        Redmaxu => vbin("vredmaxu", 0b000110, Mul, VV, Reduction),
        Redmax => vbin("vredmax", 0b000111, Mul, VV, Reduction),
        Wredsumu => vbin("vwredsumu", 0b110000, Int, VV, Reduction),
        Wredsum => vbin("vwredsum", 0b110001, Int, VV, Reduction),
        // Permutations.
        Slideup => vbin_u("vslideup", 0b001110, Int, VS | VI, Plain),
        Slidedown => vbin_u("vslidedown", 0b001111, Int, VS | VI, Plain),
        Slide1up => vbin("vslide1up", 0b001110, Mul, VS, Plain),
        Slide1down => vbin("vslide1down", 0b001111, Mul, VS, Plain),
        Fslide1up => vbin("vfslide1up", 0b001110, Float, VS, Plain),
        Fslide1down => vbin("vfslide1down", 0b001111, Float, VS, Plain),
        Rgather => vbin_u("vrgather", 0b001100, Int, VV | VS | VI, Plain),
        Rgatherei16 => vbin("vrgatherei16", 0b001110, Int, VV, Plain),
        Compress => vbin("vcompress", 0b010111, Mul, VV, Compress),
        // Floating-point arithmetic.
        Fadd => vbin("vfadd", 0b000000, Float, VV | VS, Plain),
        Fsub => vbin("vfsub", 0b000010, Float, VV | VS, Plain),
        Frsub => vbin("vfrsub", 0b100111, Float, VS, Plain),
        Fmul => vbin("vfmul", 0b100100, Float, VV | VS, Plain),
        Fdiv => vbin("vfdiv", 0b100000, Float, VV | VS, Plain),
        Frdiv => vbin("vfrdiv", 0b100001, Float, VS, Plain),
        Fmin => vbin("vfmin", 0b000100, Float, VV | VS, Plain),
        Fmax => vbin("vfmax", 0b000110, Float, VV | VS, Plain),
        Fsgnj => vbin("vfsgnj", 0b001000, Float, VV | VS, Plain),
        Fsgnjn => vbin("vfsgnjn", 0b001001, Float, VV | VS, Plain),
        Fsgnjx => vbin("vfsgnjx", 0b001010, Float, VV | VS, Plain),
        Fmacc => vbin("vfmacc", 0b101100, Float, VV | VS, MulAdd),
        Fnmacc => vbin("vfnmacc", 0b101101, Float, VV | VS, MulAdd),
        Fmsac => vbin("vfmsac", 0b101110, Float, VV | VS, MulAdd),
        Fnmsac => vbin("vfnmsac", 0b101111, Float, VV | VS, MulAdd),
        Fmadd => vbin("vfmadd", 0b101000, Float, VV | VS, MulAdd),
        Fnmadd => vbin("vfnmadd", 0b101001, Float, VV | VS, MulAdd),
        Fmsub => vbin("vfmsub", 0b101010, Float, VV | VS, MulAdd),
        Fnmsub => vbin("vfnmsub", 0b101011, Float, VV | VS, MulAdd),
        // Widening floating-point arithmetic.
        Fwadd => vbin("vfwadd", 0b110000, Float, VV | VS, Plain),
        Fwsub => vbin("vfwsub", 0b110010, Float, VV | VS, Plain),
        FwaddW => vbin("vfwadd", 0b110100, Float, VV | VS, Wide),
        FwsubW => vbin("vfwsub", 0b110110, Float, VV | VS, Wide),
        Fwmul => vbin("vfwmul", 0b111000, Float, VV | VS, Plain),
        Fwmacc => vbin("vfwmacc", 0b111100, Float, VV | VS, MulAdd),
        Fwnmacc => vbin("vfwnmacc", 0b111101, Float, VV | VS, MulAdd),
        Fwmsac => vbin("vfwmsac", 0b111110, Float, VV | VS, MulAdd),
        Fwnmsac => vbin("vfwnmsac", 0b111111, Float, VV | VS, MulAdd),
        // Floating-point compares into a mask.
        Mfeq => vbin("vmfeq", 0b011000, Float, VV | VS, Plain),
        Mfne => vbin("vmfne", 0b011100, Float, VV | VS, Plain),
        Mflt => vbin("vmflt", 0b011011, Float, VV | VS, Plain),
        Mfle => vbin("vmfle", 0b011001, Float, VV | VS, Plain),
        Mfgt => vbin("vmfgt", 0b011101, Float, VS, Plain),
        Mfge => vbin("vmfge", 0b011111, Float, VS, Plain),
        // Floating-point reductions.
        Fredusum => vbin("vfredusum", 0b000001, Float, VV, Reduction),
        Fredosum => vbin("vfredosum", 0b000011, Float, VV, Reduction),
        Fredmin => vbin("vfredmin", 0b000101, Float, VV, Reduction),
        Fredmax => vbin("vfredmax", 0b000111, Float, VV, Reduction),
        Fwredusum => vbin("vfwredusum", 0b110001, Float, VV, Reduction),
        Fwredosum => vbin("vfwredosum", 0b110011, Float, VV, Reduction),
    }
}

/// Row of a unary vector operation whose `vs1` field selects the operation.
#[derive(Clone, Copy)]
pub(crate) struct VUnaryInfo {
    pub name: &'static str,
    pub funct6: u32,
    pub funct3: u32,
    pub vs1: u32,
}

const fn vun(name: &'static str, funct6: u32, funct3: u32, vs1: u32) -> VUnaryInfo {
    VUnaryInfo { name, funct6, funct3, vs1 }
}

const VXUNARY0: u32 = 0b010010;
const VFUNARY0: u32 = 0b010010;
const VFUNARY1: u32 = 0b010011;
const VMUNARY0: u32 = 0b010100;

op_table! {
    /// Unary vector operations `op vd, vs2[, v0.t]`: extensions, conversions, square root,
    /// mask prefix operations and `viota.m`.
    pub enum VUnaryOp -> VUnaryInfo {
        ZextVf2 => vun("vzext.vf2", VXUNARY0, OPMVV, 0b00110),
        SextVf2 => vun("vsext.vf2", VXUNARY0, OPMVV, 0b00111),
        ZextVf4 => vun("vzext.vf4", VXUNARY0, OPMVV, 0b00100),
        SextVf4 => vun("vsext.vf4", VXUNARY0, OPMVV, 0b00101),
        ZextVf8 => vun("vzext.vf8", VXUNARY0, OPMVV, 0b00010),
        SextVf8 => vun("vsext.vf8", VXUNARY0, OPMVV, 0b00011),
        FcvtXuF => vun("vfcvt.xu.f.v", VFUNARY0, OPFVV, 0b00000),
        FcvtXF => vun("vfcvt.x.f.v", VFUNARY0, OPFVV, 0b00001),
        FcvtFXu => vun("vfcvt.f.xu.v", VFUNARY0, OPFVV, 0b00010),
        FcvtFX => vun("vfcvt.f.x.v", VFUNARY0, OPFVV, 0b00011),
        FcvtRtzXuF => vun("vfcvt.rtz.xu.f.v", VFUNARY0, OPFVV, 0b00110),
        FcvtRtzXF => vun("vfcvt.rtz.x.f.v", VFUNARY0, OPFVV, 0b00111),
        FwcvtXuF => vun("vfwcvt.xu.f.v", VFUNARY0, OPFVV, 0b01000),
        FwcvtXF => vun("vfwcvt.x.f.v", VFUNARY0, OPFVV, 0b01001),
        FwcvtFXu => vun("vfwcvt.f.xu.v", VFUNARY0, OPFVV, 0b01010),
        FwcvtFX => vun("vfwcvt.f.x.v", VFUNARY0, OPFVV, 0b01011),
        FwcvtFF => vun("vfwcvt.f.f.v", VFUNARY0, OPFVV, 0b01100),
        FwcvtRtzXuF => vun("vfwcvt.rtz.xu.f.v", VFUNARY0, OPFVV, 0b01110),
        FwcvtRtzXF => vun("vfwcvt.rtz.x.f.v", VFUNARY0, OPFVV, 0b01111),
        FncvtXuF => vun("vfncvt.xu.f.w", VFUNARY0, OPFVV, 0b10000),
        FncvtXF => vun("vfncvt.x.f.w", VFUNARY0, OPFVV, 0b10001),
        FncvtFXu => vun("vfncvt.f.xu.w", VFUNARY0, OPFVV, 0b10010),
        FncvtFX => vun("vfncvt.f.x.w", VFUNARY0, OPFVV, 0b10011),
        FncvtFF => vun("vfncvt.f.f.w", VFUNARY0, OPFVV, 0b10100),
        FncvtRodFF => vun("vfncvt.rod.f.f.w", VFUNARY0, OPFVV, 0b10101),
        FncvtRtzXuF => vun("vfncvt.rtz.xu.f.w", VFUNARY0, OPFVV, 0b10110),
        FncvtRtzXF => vun("vfncvt.rtz.x.f.w", VFUNARY0, OPFVV, 0b10111),
        Fsqrt => vun("vfsqrt.v", VFUNARY1, OPFVV, 0b00000),
        Frsqrt7 => vun("vfrsqrt7.v", VFUNARY1, OPFVV, 0b00100),
        Frec7 => vun("vfrec7.v", VFUNARY1, OPFVV, 0b00101),
        Fclass => vun("vfclass.v", VFUNARY1, OPFVV, 0b10000),
        Msbf => vun("vmsbf.m", VMUNARY0, OPMVV, 0b00001),
        Msof => vun("vmsof.m", VMUNARY0, OPMVV, 0b00010),
        Msif => vun("vmsif.m", VMUNARY0, OPMVV, 0b00011),
        Iota => vun("viota.m", VMUNARY0, OPMVV, 0b10000),
    }
}

/// `vid.v`: VMUNARY0 with `vs1 = 10001`.
pub(crate) const VID: VUnaryInfo = vun("vid.v", VMUNARY0, OPMVV, 0b10001);
/// VWXUNARY0 / VRXUNARY0 / VWFUNARY0 / VRFUNARY0: scalar moves, `vcpop.m`, `vfirst.m`.
pub(crate) const VWXUNARY0: u32 = 0b010000;
/// `vmv.v.*`, `vfmv.v.f` and the merges share this `funct6`.
pub(crate) const VMV_MERGE: u32 = 0b010111;
/// `vmv<n>r.v`.
pub(crate) const VMV_WHOLE: u32 = 0b100111;

op_table! {
    /// Mask operations with an integer result, `op rd, vs2[, v0.t]`. Row: name, `vs1`.
    pub enum VMaskScalarOp -> Coded {
        /// Number of set mask bits among the first `vl`.
        Cpop => coded("vcpop.m", 0b10000),
        /// Index of the first set mask bit, or -1.
        First => coded("vfirst.m", 0b10001),
    }
}
