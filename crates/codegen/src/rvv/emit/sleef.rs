//! Calls to SLEEF's RVV math (`Sleef_<name>{f,d}x_<accuracy>rvvm1` or `rvvm2`): which nests call, and the call
//! sequence that saves the live vector registers around it.

use super::*;

/// SLEEF's name of a math function it provides (`None`: computed inline or not at all).
pub(super) fn sleef_name(f: MathFn) -> Option<&'static str> {
    match f {
        MathFn::Sqrt | MathFn::Rsqrt | MathFn::Floor | MathFn::Ceil | MathFn::Trunc | MathFn::Round | MathFn::Rint => {
            None
        }
        // SLEEF has no Bessel functions: such nests stay scalar loops calling libm.
        MathFn::J0 | MathFn::J1 | MathFn::Y0 | MathFn::Y1 => None,
        _ => Some(f.c_name()),
    }
}

/// The accuracy suffix of SLEEF's most accurate variant of `name`: `u05` (0.5 ULP) for
/// `sinpi`, `cospi` and `hypot`, `u15` for `erfc` (its only one), else `u10` (1 ULP).
fn sleef_accuracy(name: &str) -> &'static str {
    match name {
        "sinpi" | "cospi" | "hypot" => "u05",
        "erfc" => "u15",
        _ => "u10",
    }
}

/// Whether `func` over `st` is computed by inline polynomials ([`super::poly`],
/// [`super::erf`], [`super::log`]) rather than a SLEEF call.
pub(super) fn computed_inline(func: MathFn, st: ScalarType) -> bool {
    matches!(func, MathFn::Exp | MathFn::Exp2 | MathFn::Erf | MathFn::Log) && st == ScalarType::F32
}

/// Whether the nest body calls SLEEF (then the leaf keeps its state in callee-saved
/// registers and runs at LMUL 1).
pub(super) fn calls_sleef(f: &Function, nest: &Nest) -> bool {
    nest.body.iter().any(|s| match s {
        Stmt::Assign { dst, expr: Expr::Math(func, _), .. } => {
            let st = f.ty(*dst).scalar();
            sleef_name(*func).is_some()
                && st.is_some_and(|s| s.is_float())
                && !st.is_some_and(|s| computed_inline(*func, s))
        }
        Stmt::Assign { dst, expr: Expr::Binary(BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot, _, _), .. } => {
            f.ty(*dst).scalar().is_some_and(|s| s.is_float())
        }
        _ => false,
    })
}

impl Emitter<'_> {
    /// `Sleef_<name>{f,d}x_u10rvvm<L>(args)` for the nest's LMUL L of 1 or 2: arguments in
    /// `v8` and `v8 + L`, result in `v8`, at VLMAX of e32/e64 m<L> (a strip that calls runs
    /// at LMUL 2 or 1, see [`emit`]). Every
    /// vector register in use is saved around the call in the stack area below `sp`
    /// (register r at `sp + r·vlenb`) with whole-register stores; `vl` is kept in a
    /// callee-saved register and `vtype` restored after the call.
    pub(super) fn call_sleef(&mut self, name: &str, args: &[Var], w: u32) -> Option<VReg> {
        let vl_reg = self.call_vl?;
        let g = self.group(w) as u8;
        if g > 2 || !(w == 4 || w == 8) {
            return None;
        }
        let symbol = format!("Sleef_{name}{}x_{}rvvm{g}", if w == 8 { "d" } else { "f" }, sleef_accuracy(name));
        let xs = args.iter().map(|&a| self.vector(a, w)).collect::<Option<Vec<VReg>>>()?;
        let d = self.alloc_v(w)?;
        // Saved: registers in use except the result, this statement's temps and values whose
        // last use is this statement (the arguments, usually).
        let mut dead: Vec<u8> = (0..g).map(|k| d.num() + k).collect();
        for (reg, w) in &self.temps {
            dead.extend((0..self.group(*w).max(1) as u8).map(|k| reg.num() + k));
        }
        for (v, reg) in &self.vals {
            if self.plan.last_use.get(v).is_none_or(|&l| l <= self.at) {
                let g = self.width_of(*v).map_or(1, |w| self.group(w).max(1)) as u8;
                dead.extend((0..g).map(|k| reg.num() + k));
            }
        }
        let spilled: Vec<u8> = (1..32u8).filter(|&r| self.vused[r as usize] && !dead.contains(&r)).collect();
        let (vlenb, addr) = (XReg::T0, XReg::T1);
        self.asm.csrr(vl_reg, Csr::VL);
        self.asm.csrr(vlenb, Csr::VLENB);
        for &r in &spilled {
            let base = slot_address(&mut self.asm, addr, vlenb, r as u32);
            self.asm.vstore_whole(1, VReg::new(r)?, base);
        }
        // LLVM's RVV convention: vector arguments in v8, v9 (LMUL 1) or v8, v10 (LMUL 2).
        let arg_regs = [VReg::new(8)?, VReg::new(8 + g)?];
        if xs.len() == 2 && xs[0] == arg_regs[1] && xs[1] == arg_regs[0] {
            return None;
        }
        // The second argument first when the first would overwrite it.
        let mut moves: Vec<(VReg, VReg)> = xs.iter().copied().zip(arg_regs).map(|(x, a)| (a, x)).collect();
        if moves.len() == 2 && moves[1].1 == arg_regs[0] {
            moves.swap(0, 1);
        }
        for (to, from) in moves {
            if to != from {
                self.asm.vmv_whole(g, to, from);
            }
        }
        self.calls.push((self.asm.insts().len(), symbol));
        self.asm.push(Inst::Auipc { rd: XReg::RA, imm20: 0 });
        self.asm.jalr(XReg::RA, XReg::RA, 0);
        if d != arg_regs[0] {
            self.asm.vmv_whole(g, d, arg_regs[0]);
        }
        self.asm.csrr(vlenb, Csr::VLENB);
        for &r in &spilled {
            let base = slot_address(&mut self.asm, addr, vlenb, r as u32);
            self.asm.vload_whole(1, Sew::E8, VReg::new(r)?, base);
        }
        self.asm.vsetvli(XReg::ZERO, vl_reg, self.vtype);
        // `v0` was not saved: the mask it held is reloaded from its own register.
        self.v0 = None;
        Some(d)
    }
}
