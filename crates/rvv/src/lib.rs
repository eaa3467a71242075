//! Hand-written RV64GC + RVV 1.0 encoder and assembly printer.
//!
//! - [`Inst`] is one instruction (always a 32-bit encoding; no compressed forms) with
//!   typed operands: [`XReg`], [`FReg`], [`VReg`], [`VType`] ([`Sew`], [`Lmul`], tail and
//!   mask policy), [`Mask`] (`v0.t`), [`VSrc`] (vector, scalar or immediate source).
//!   [`Inst::encode`] gives its bits; `Display` gives `llvm-mc` text with aliases,
//!   [`Inst::canonical`] the alias-free text.
//! - [`Assembler`] collects instructions and [`Label`]s, fixes up branches (forward and
//!   backward) and expands the `li` pseudo-instruction; [`Assembler::finish`] returns
//!   [`Code`] (words, bytes, listing) or an [`AsmError`] — never a panic.
//!
//! Every encoding is checked against `llvm-mc` output committed under `tests/data`.

mod asm;
mod encode;
mod error;
mod inst;
mod ops;
mod print;
mod reg;
mod vtype;

pub use asm::{li_sequence, Assembler, Code};
pub use error::AsmError;
pub use inst::{Csr, FenceSet, Inst, Label, Mask, Target, VMemMode, VSrc};
pub use ops::{
    AluImmOp, AluOp, AmoOp, AmoWidth, BranchCond, CsrOp, FArithOp, FBinOp, FCmpOp, FFmaOp, FFmt,
    IntKind, LoadOp, RoundingMode, StoreOp, VBinOp, VMaskScalarOp, VUnaryOp,
};
pub use print::Canonical;
pub use reg::{FReg, VReg, XReg};
pub use vtype::{Lmul, Sew, VType};
