//! RVV 1.0 leaf functions for Vector IR loop nests (`--target riscv64gcv`).
//!
//! [`compile_nest`] turns one [`Nest`] into a leaf function in machine
//! code (made with `tilec_rvv`), or says why not when the nest uses something the emitter
//! does not vectorize (the caller then keeps the scalar loop). The kernel calls the leaf
//! with the nest's live-in scalars and scratch buffer addresses as arguments
//! ([`Leaf::args`]: integers and pointers in `a0..a7`, floats in `fa0..fa7`, in argument
//! order per class, as the LP64D convention assigns them); the leaf touches only
//! caller-saved registers (`t*`, `a*`, `ft*`, `fa*`, all vector registers) and returns.
//!
//! Iteration space and strides come from the stride analysis of the Vector IR
//! ([`tilec_vector::stride`]): dims of size 1 are dropped, the longest collapsible suffix of
//! the remaining dims is strip-mined as one flat range, the dims before it become scalar
//! loops. A pointer `uniform base + Lin` is a *stream*: one scalar register walks it, and
//! loads/stores use unit-stride (`vle`/`vse`) when its step is the element size, else
//! strided (`vlse`/`vsse`, the stride in a register: a constant, stride 0 for broadcasts, or
//! a runtime stride computed by the prologue), always at the data's own element width; the
//! uniform part of a `Lin` may hold products of two uniform variables, computed once by the
//! prologue. Scratch accesses are streams over their affine position (the layout is
//! [`crate::scratch`]'s). Every other pointer is a vector of addresses
//! (`vluxei64`/`vsuxei64` from base `zero`). Integer arguments after the eighth arrive on
//! the stack and are loaded by the prologue.
//!
//! Masks: when every store of the nest is masked by the same `cmp lt/le x, bound` (signed
//! or unsigned, any integer width) with `x` = uniform + flat index (a prefix of the flat
//! range), the range is cut to the prefix length once (`min(N, bound - x₀)`, none when
//! `x₀` is past the bound, compared in the comparison's type) and the mask is all-true
//! inside it. Other masks are mask registers; masked loads merge `other` (policy `mu` over
//! a splat), masked stores use `v0.t`.
//!
//! Loop shape: `vsetvli` with AVL = `zero` gives VLMAX once; full strips run with `vl` =
//! VLMAX (stream bumps precomputed, the first stream's pointer as loop counter), then one
//! tail strip with `vsetvli` on the remainder — the same code at every VLEN. All values of
//! the nest share one SEW/LMUL ratio (the widest element at the base LMUL), so switching
//! SEW (`vsetvli zero, zero, ...`) keeps `vl`; the base LMUL is the largest of m8, m4, m2,
//! m1 at which the live values fit in registers, unless a wider LMUL that spills costs less
//! per element (nests without SLEEF calls, unchecked: the product of the strip's instruction
//! count and its LMUL-weighted count, per register of elements, `emit/cost.rs`; Philox's
//! state words take five register groups, so seeded dropout runs at m8 with a few spills
//! rather than at m4). When they do not fit even at m1, the strip
//! spills at m1 (nests without SLEEF calls). Spilling: when no register is free, the value whose next
//! use is farthest (and that the statement being emitted does not read) is stored with a
//! whole-register store (`vs1r.v`, `vs<n>r.v` for a group) to its stack slot, in an area of
//! `vlenb`-sized slots (a power of two of them) that the leaf reserves below its frame and releases before it returns,
//! and reloaded (`vl<n>re<sew>.v`) before its next use; a value spilled again keeps its slot
//! and is not stored twice, a slot whose value is dead takes the next one, and slots get
//! address registers set by the prologue while the scalar pool keeps a reserve
//! (`emit/regalloc.rs`). Only when that also fails is the answer `None`.
//!
//! Types: integers (e8..e64), fp32/fp64, `i1` as mask registers (bytes in scratch), pointers
//! as e64, fp16/bf16 as f32 registers converted at global loads and stores and rounded after
//! every operation without any half-precision vector extension (`emit/convert.rs`).
//! Atomics, asserts, accumulations into halves and user combines other than one operation
//! are left to the scalar path.
//!
//! Scalar registers: `s0`, `ra` and `s1..s11` join the pool (saved if used). When they run
//! out, integer live-ins that arrive on the stack stay there and are loaded where the strip
//! reads them, and moving streams live in stack slots (loaded where accessed, moved on in
//! memory after each strip). fp32 constants load from a pool of words in the code.
//!
//! Ranges: a prefix-form mask that does not cut the range splits it in two, the prefix
//! run with the mask known true and the rest with it known false (`Plan::split`); scratch
//! values that do not move along the flat range are read once per outer iteration, and a
//! range length the outer loops do not change is computed once before them.
//!
//! Accumulations: a row accumulation (the same element for the whole flat range) folds the
//! strips lane-wise into a register group, or, when no group is left, reduces every strip
//! into element 0 of one register, so the data keep the largest LMUL. Products, which have
//! no reduction instruction, fold the group by halves after the range. Arg-accumulations
//! (`argmax`/`argmin`) keep value and index groups with the interpreter's sequential rule,
//! NaN included (`RowArg` in `emit/accumulate.rs`); other accumulations read-modify-write
//! their lanes. A nest whose only accumulation is a row accumulation into a one-element
//! buffer that holds the identity when the nest starts, without outer loops, takes no
//! address for the buffer and returns the result in `fa0` (floats) or `a0` (integers)
//! instead of storing it ([`Leaf::returns`]); the kernel stores it.
//! Scans — accumulators read back in the nest, including `tl.associative_scan` with a
//! one-operation combine — are a lane-wise recurrence when the scan runs across the strip
//! and a log-step in-register prefix with a carried element when it runs along it
//! (`emit/scan.rs`).
//!
//! Bounds checks (`--check-bounds`): a checked leaf takes the bounds table as its last
//! argument, reserves one mask register and four scalar registers, and checks every global
//! access of the strip before it runs (`emit/check.rs`); the strip may then hold branches,
//! and each copy of it gets its own labels ([`tilec_rvv::Assembler::append`]).
//!
//! Math: fp32 `exp` and `exp2` are computed inline at the nest's LMUL (`poly`: three
//! register groups besides `v0`'s and half of that one), and so are fp32 `erf` (`erf`: three
//! groups, `v0`'s possibly one of them, and two more or their halves in the rare full
//! path) and fp32 `log` (`log`: five groups besides `v0`'s); other math functions call SLEEF's
//! `rvvm2` functions at LMUL 2 (`rvvm1` at LMUL 1 when the nest does not fit).

mod dot;
mod emit;
mod erf;
mod log;
pub(crate) mod poly;

pub use dot::{compile_dot, DotLeaf};

use rustc_hash::FxHashMap;

use tilec_rvv::Code;
use tilec_vector::{Buf, Function, Nest, Var};

/// One argument of a leaf function, in call order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafArg {
    /// A live-in scalar variable (its register form: integer or float register).
    Var(Var),
    /// The address of a scratch buffer (integer register).
    Buf(Buf),
    /// The address of the bounds table (checked leaves, see [`crate::bounds`]).
    Bounds,
}

/// A nest compiled to a leaf function.
#[derive(Clone, Debug)]
pub struct Leaf {
    pub args: Vec<LeafArg>,
    pub code: Code,
    /// External calls in the code (SLEEF), relocated by the caller of `define_function_bytes`.
    pub calls: Vec<LeafCall>,
    /// The checked accesses of a checked leaf, numbered from the first site it was given.
    pub sites: Vec<crate::bounds::Site>,
    /// The one-element scratch buffer whose value after the nest the leaf returns, in `fa0`
    /// (floats) or `a0` (integers, sign-extended from their width), instead of storing it:
    /// the caller stores it.
    pub returns: Option<Buf>,
}

/// A call from a leaf to an external function (SLEEF): an `auipc ra, 0; jalr ra, 0(ra)`
/// pair at byte `offset` of the code, to be relocated as `R_RISCV_CALL_PLT` to `symbol`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeafCall {
    pub offset: u32,
    pub symbol: String,
}

/// How a leaf checks its accesses against the arrays' extents (see [`crate::bounds`]).
#[derive(Clone, Copy)]
pub struct Checked<'a> {
    /// The number of its first site.
    pub first_site: usize,
    /// The function's [`crate::bounds::own_ranges`], computed once for all its nests.
    pub own_ranges: &'a FxHashMap<Var, usize>,
}

/// The nest as a leaf function, or why not (a sentence for the nest report, naming the
/// statement the vector code has no form for when there is one): then it needs the scalar
/// path. With `checked`, every global access is bounds-checked (see [`crate::bounds`]) as
/// sites numbered from its first site, and the leaf takes the bounds table as its last
/// argument. `ext`: the RVV extensions the leaf may use. `constants`: the function's
/// ([`Constants::of`]), computed once for all its nests.
///
/// [`Constants::of`]: tilec_vector::stride::Constants::of
pub fn compile_nest(
    f: &Function,
    constants: &tilec_vector::stride::Constants,
    nest: &Nest,
    checked: Option<Checked<'_>>,
    ext: crate::VectorExtensions,
) -> Result<Leaf, String> {
    // A scratch element read twice loaded once, then the stores into scratch moved up to
    // their values (fewer live values); each where the nest still fits that way.
    with_rewrite(nest, emit::with_single_reads, |rewritten| {
        with_rewrite(rewritten, emit::with_early_stores, |rewritten| {
            compile_nest_as_is(f, constants, rewritten, nest, checked, ext)
        })
    })
}

/// `compile` of the nest `rewrite` makes of `nest` when there is one and it compiles, else
/// of `nest`.
fn with_rewrite(
    nest: &Nest,
    rewrite: impl Fn(&Nest) -> Option<Nest>,
    compile: impl Fn(&Nest) -> Result<Leaf, String>,
) -> Result<Leaf, String> {
    if let Some(rewritten) = rewrite(nest) {
        if let Ok(leaf) = compile(&rewritten) {
            return Ok(leaf);
        }
    }
    compile(nest)
}

/// [`compile_nest`] of the body in its order (`nest`, a rewrite of `site`, the nest as it
/// stands in `f`).
fn compile_nest_as_is(
    f: &Function,
    constants: &tilec_vector::stride::Constants,
    nest: &Nest,
    site: &Nest,
    checked: Option<Checked<'_>>,
    ext: crate::VectorExtensions,
) -> Result<Leaf, String> {
    let plan = |guards| {
        tilec_vector::stride::plan_for_leaf(f, constants, nest, site, guards)
            .ok_or("the stride analysis finds no strip-mined form of its index space and accesses")
    };
    // The guarded form needs more of the leaf's registers (the guard's values, a split
    // range's second strip): where it does not fit, the nest is planned again without it.
    let guarded = plan(true)?;
    match emit::emit(f, nest, &guarded, checked, ext) {
        Err(_) if guarded.is_guarded() => emit::emit(f, nest, &plan(false)?, checked, ext),
        emitted => emitted,
    }
}
