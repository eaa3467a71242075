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
//!
//! What the encoder checks: immediate and offset ranges, the operand forms each
//! operation has (`vsub.vi` does not exist), `v0` as destination of a masked
//! instruction that does not write a mask, whole-register counts and alignment. What
//! it cannot check, because LMUL and SEW are only known at run time: register-group
//! alignment ([`VReg::starts_group`]) and the overlap rules of widening, narrowing,
//! gather, slide-up and compress operands.
//!
//! ```
//! use tilec_rvv::*;
//!
//! // for (; n > 0; n -= vl) { z[..vl] = x[..vl] + y[..vl]; ... }
//! let mut asm = Assembler::new();
//! let (n, x, y, z, vl) = (XReg::A0, XReg::A1, XReg::A2, XReg::A3, XReg::T0);
//! let top = asm.label_here();
//! asm.vsetvli(vl, n, VType::new(Sew::E32, Lmul::M8));
//! asm.vle(Sew::E32, VReg::V8, x, Mask::Unmasked);
//! asm.vle(Sew::E32, VReg::V16, y, Mask::Unmasked);
//! asm.vop(VBinOp::Fadd, VReg::V8, VReg::V8, VReg::V16, Mask::Unmasked);
//! asm.vse(Sew::E32, VReg::V8, z, Mask::Unmasked);
//! asm.slli(XReg::T1, vl, 2);
//! for p in [x, y, z] {
//!     asm.add(p, p, XReg::T1);
//! }
//! asm.sub(n, n, vl);
//! asm.bne(n, XReg::ZERO, top);
//! asm.ret();
//! let code = asm.finish()?;
//! assert_eq!(code.words.len(), 12);
//! assert!(code.listing().contains("vfadd.vv v8, v8, v16"));
//! # Ok::<(), AsmError>(())
//! ```

mod asm;
mod encode;
mod error;
mod inst;
mod ops;
mod print;
mod reg;
mod vtype;

pub use asm::{li_sequence, Assembler, Code};
pub use encode::imm_fields;
pub use error::AsmError;
pub use inst::{Csr, FenceSet, Inst, Label, Mask, Target, VMemMode, VSrc};
pub use ops::{
    AluImmOp, AluOp, AmoOp, AmoWidth, BranchCond, CsrOp, FArithOp, FBinOp, FCmpOp, FFmaOp, FFmt, IntKind, LoadOp,
    RoundingMode, StoreOp, VBinOp, VMaskScalarOp, VUnaryOp,
};
pub use print::Canonical;
pub use reg::{FReg, VReg, XReg};
pub use vtype::{Lmul, Sew, VType};
