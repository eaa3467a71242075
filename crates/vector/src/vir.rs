//! The Vector IR: the whole IR in one file.
//!
//! A [`Function`] is a kernel after lowering: tiles are gone, replaced by *loop nests* over
//! their elements ([`Nest`]) and by *scratch buffers* ([`Buf`]) that hold tiles living across
//! nests. What remains of the Tile IR's structure is a scalar *skeleton*: scalar statements,
//! structured `for`/`if`/`while` with runtime bounds, and nests placed in it.
//!
//! Variables: a [`Var`] is a typed scalar local. Unlike Tile IR values, variables are
//! *mutable*: a variable may be assigned by several statements (loop-carried values are
//! variables assigned before the loop and at the end of its body). A statement may read a
//! variable only where it is assigned on every path from the kernel's entry: earlier in the
//! same block or an enclosing one, in both branches of an earlier `if`, or in the `before`
//! block of an earlier `while`; what only one branch or a loop body assigns (a loop may run
//! zero times) is not assigned after it. Parameters of the kernel are variables assigned on
//! entry.
//!
//! Types: every variable has an [`Elem`] (a Triton scalar type, or a pointer = a 64-bit
//! address). Integer signedness is part of the type and decides the semantics of division,
//! shifts, comparisons, extension and min/max, exactly as in the Tile IR (the op enums
//! [`BinaryOp`], [`CmpPred`], [`CastOp`], ... are the Tile IR's).
//!
//! Nests: `nest [d0, d1, ...]` runs its body once per element of the iteration space, in
//! row-major order (last index fastest), with index variables `i0, i1, ...` (type `i64`,
//! read-only). A nest body holds only *element statements*: [`Stmt::Assign`],
//! [`Stmt::Store`], [`Stmt::StoreScratch`], [`Stmt::Accumulate`], [`Stmt::AccumulateArg`]
//! [`Stmt::AccumulateWith`] and [`Stmt::Assert`] — no control flow. Variables assigned in a
//! body are per-element temporaries (registers), each assigned by one statement of that body
//! and nowhere else; values leave a nest only through memory (scratch or global). Variables
//! assigned outside the nest are read-only inside it (they are uniform over the iteration
//! space).
//!
//! Element positions are [`Affine`] functions of the nest indices: `offset + Σ strides[k]·ik`
//! (an element index, not bytes). Every scratch access and every `index` expression uses one,
//! so a later vector back end can read strides directly: stride 1 on the innermost index is
//! unit-stride, stride 0 is a broadcast, other constants are strided accesses. Global memory
//! is addressed through pointer variables computed per element ([`Expr::AddPtr`]).
//!
//! Parallelism: iterations of a nest are independent except through [`Stmt::Accumulate`] /
//! [`Stmt::AccumulateArg`] (reductions and scans: the accumulator element is the same for
//! every index along the reduced axis, i.e. its stride there is 0) and the scratch loads that
//! read an accumulator back after it was updated (scans). A nest without accumulation can be
//! strip-mined and vectorized along its innermost index. ([`Stmt::AccumulateWith`] is an
//! accumulation too.) Within one nest, memory statements
//! run element by element: the lowering never places a global load after a global store (or
//! atomic) in the same nest, and never reads a scratch buffer in the nest that writes it,
//! except for accumulators (read back at their own position, after the update) and
//! *in-place updates*. A scratch store's position is one-to-one over the iteration space (no
//! two iterations write one element), and every scratch position stays inside its buffer on
//! every iteration.
//!
//! In-place updates (a loop-carried tile updated without a copy): a nest may read and write
//! the same scratch buffer when every read of it and its one [`Stmt::StoreScratch`] use the
//! same position, the nest's row-major identity. Within a nest, a scratch element is then
//! read before it is written, at the same index, and no element is read after another
//! element's write could have changed it, so a back end may process elements in any order
//! or in strips (load a strip, compute, store the strip) as for a nest without the update.
//!
//! Outside nests, a block may hold [`Stmt::StoreScratch`] with a constant position (the
//! initialization of a one-element reduction accumulator) and [`Expr::LoadScratch`] with a
//! constant position (reading a reduction's result).
//!
//! Masks: `load`, `store` and atomics carry an optional `i1` mask variable; a masked-off load
//! yields `other` (zero when absent) without touching memory, masked-off stores and atomics
//! do nothing.
//!
//! Scratch buffers: a [`Buf`] is a stack array of `len` elements of `elem`, row-major, owned
//! by the kernel invocation. Its byte layout is the code generator's choice.

use cranelift_entity::{entity_impl, PrimaryMap};
use smallvec::smallvec;
use tilec_diagnostics::Span;

pub use tilec_ir::{AtomicOp, Axis, BinaryOp, CastOp, CmpPred, Constant, Elem, MathFn, MemSem, ScalarType, UnaryOp};

/// A scalar variable.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(u32);
entity_impl!(Var, "%");

/// A scratch buffer.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Buf(u32);
entity_impl!(Buf, "$");

#[derive(Clone, Debug, PartialEq)]
pub struct VarData {
    pub ty: Elem,
    /// Source-level name, for printing only.
    pub name: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BufData {
    pub elem: Elem,
    /// Number of elements.
    pub len: u64,
}

/// A runtime kernel parameter, bound to a variable on entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub var: Var,
    /// What the signature promises the argument is a multiple of (`:16`): in bytes for a
    /// pointer, in units for an integer; 1 when nothing.
    pub divisibility: u32,
}

/// A lowered kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    /// Runtime parameters in ABI order (the program ids and grid sizes follow them in the
    /// ABI and are read through [`Expr::ProgramId`] / [`Expr::NumPrograms`]).
    pub params: Vec<Param>,
    pub vars: PrimaryMap<Var, VarData>,
    pub bufs: PrimaryMap<Buf, BufData>,
    pub body: Block,
}

pub type Block = Vec<Stmt>;

/// `offset + Σ strides[k] · index_k` over the indices of the enclosing nest (an element
/// position). Outside a nest `strides` is empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Affine {
    pub offset: i64,
    pub strides: Vec<i64>,
}

impl Affine {
    pub fn constant(offset: i64) -> Affine {
        Affine { offset, strides: Vec::new() }
    }

    /// Row-major positions of `shape`: strides `[d1·d2·…, …, d_{n-1}, 1]`, offset 0.
    pub fn row_major(shape: &[u32]) -> Affine {
        Affine { offset: 0, strides: row_major_strides(shape) }
    }
}

/// Row-major element strides of `shape`.
pub fn row_major_strides(shape: &[u32]) -> Vec<i64> {
    let mut strides = vec![0i64; shape.len()];
    let mut acc = 1i64;
    for (k, &d) in shape.iter().enumerate().rev() {
        strides[k] = acc;
        acc *= d as i64;
    }
    strides
}

/// A scalar computation; the destination variable's type is the result type.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Const(Constant),
    /// i32 program id along an axis.
    ProgramId(Axis),
    /// i32 grid size along an axis.
    NumPrograms(Axis),
    Copy(Var),
    /// The affine function of the nest indices, as a value of the destination type.
    Index(Affine),
    Binary(BinaryOp, Var, Var),
    Unary(UnaryOp, Var),
    Math(MathFn, Var),
    /// a × b + c with one rounding.
    Fma(Var, Var, Var),
    /// `i1` result.
    Cmp(CmpPred, Var, Var),
    Select {
        cond: Var,
        on_true: Var,
        on_false: Var,
    },
    Cast(CastOp, Var),
    /// `ptr + offset × sizeof(pointee)`; the offset is extended by its own signedness.
    AddPtr {
        ptr: Var,
        offset: Var,
    },
    /// Element `index` of a scratch buffer.
    LoadScratch {
        buf: Buf,
        index: Affine,
    },
    /// Element `index + (at mod len) · stride` of a scratch buffer: a position along one
    /// dimension chosen at run time (`tl.gather`). `at` is an integer variable read as a
    /// two's complement pattern and `len` a power of two, so `at mod len` is `at & (len -
    /// 1)`: whatever `at` holds, the position is one of `len` positions that `index` and
    /// `stride` keep inside the buffer.
    LoadScratchAt {
        buf: Buf,
        index: Affine,
        at: Var,
        len: u32,
        stride: i64,
    },
    /// Global load through a pointer; masked-off: `other`, or zero.
    Load {
        ptr: Var,
        mask: Option<Var>,
        other: Option<Var>,
    },
    /// Atomic read-modify-write; the result is the old value (zero when masked off).
    AtomicRmw {
        op: AtomicOp,
        ptr: Var,
        value: Var,
        mask: Option<Var>,
        sem: MemSem,
    },
    /// Atomic compare-and-swap; the result is the old value.
    AtomicCas {
        ptr: Var,
        cmp: Var,
        value: Var,
        sem: MemSem,
    },
}

/// How an accumulator element combines with a new value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccOp {
    Sum,
    Prod,
    Max,
    Min,
    Xor,
    And,
    Or,
}

/// Which extreme an arg-accumulation tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgKind {
    Max,
    Min,
}

/// `c[b, m, n] += Σ_k a[b, m, k] · b[b, k, n]` with C a contiguous row-major scratch buffer
/// that neither operand reads (`batch` = 1 without a batch dim). Products and sums are done in `c`'s element type,
/// after converting `a` and `b` elements to it, one fused multiply-add per k, in k order.
///
/// With `k_limit` (an integer variable, read once): only the k steps `0 .. clamp(k_limit,
/// 0, k)` run. The lowering sets it only when both operands are [`DotOperand::Global`] and
/// both loads were masked by `k < k_limit` with `other` zero, so the skipped steps would add
/// `0 · 0` (they are skipped, not added: a `-0.0` accumulator stays `-0.0`).
#[derive(Clone, Debug, PartialEq)]
pub struct Dot {
    pub a: DotOperand,
    pub b: DotOperand,
    pub c: Buf,
    pub batch: u32,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub k_limit: Option<Var>,
}

/// Where the elements of a dot operand are.
#[derive(Clone, Debug, PartialEq)]
pub enum DotOperand {
    /// A contiguous row-major scratch buffer.
    Scratch(Buf),
    /// Read straight from global memory (only without a batch dim).
    Global(GlobalTile),
}

/// A 2-D dot operand in global memory: element `(i, j)` is the global load through
/// `ptrs[index(i, j)]` advanced by `offset` elements (extended by its own signedness); its
/// type is the pointee of `ptrs`' element type.
///
/// Invariant (the lowering proves it): the pointer tile is *separable*,
/// `p(i, j) = p(i, 0) + (p(0, j) - p(0, 0))` for all `(i, j)`, so row `i` starts at `p(i, 0)` and every row has
/// the column offsets of row 0. Whether those offsets are unit-stride is for the code
/// generator to find out (they may be only at run time).
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalTile {
    pub ptrs: Buf,
    pub index: Affine,
    pub offset: Option<Var>,
    /// The span of the `tl.load` the operand comes from.
    pub span: Span,
}

impl DotOperand {
    /// The scratch buffer of a [`DotOperand::Scratch`] operand.
    pub fn scratch(&self) -> Option<Buf> {
        match self {
            DotOperand::Scratch(b) => Some(*b),
            DotOperand::Global(_) => None,
        }
    }

    /// The element type of the operand's values.
    pub fn elem(&self, f: &Function) -> Elem {
        match self {
            DotOperand::Scratch(b) => f.bufs[*b].elem,
            DotOperand::Global(g) => match f.bufs[g.ptrs].elem {
                Elem::Ptr(st) => Elem::Scalar(st),
                other => other,
            },
        }
    }
}

/// A loop nest over a static iteration space (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Nest {
    pub shape: Vec<u32>,
    /// One `i64` index variable per dim.
    pub indices: Vec<Var>,
    pub body: Block,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Assign {
        dst: Var,
        expr: Expr,
        span: Span,
    },
    /// Global store through a pointer.
    Store {
        ptr: Var,
        value: Var,
        mask: Option<Var>,
        span: Span,
    },
    StoreScratch {
        buf: Buf,
        index: Affine,
        value: Var,
    },
    /// `buf[index] = op(buf[index], value)`.
    Accumulate {
        buf: Buf,
        index: Affine,
        op: AccOp,
        value: Var,
    },
    /// Unless `vals[index]` beats or equals `value` (`>=` for max, `<=` for min; so ties keep
    /// the earliest position, and a NaN on either side replaces, as the interpreter's
    /// left-to-right combine does): `vals[index] = value; idxs[index] = position`.
    AccumulateArg {
        vals: Buf,
        idxs: Buf,
        index: Affine,
        kind: ArgKind,
        value: Var,
        position: Var,
    },
    /// A user combine (`tl.reduce` / `tl.associative_scan` with a function) of `n` ≥ 1
    /// accumulators, one per buffer of `bufs` (each with the types of its `values`,
    /// `accs` and `results` entry): when `position` (an `i32`) is 0, `bufs[k][index] =
    /// values[k]` for every `k`; otherwise `accs[k] = bufs[k][index]`, then `body`
    /// (assignments of expressions reading `accs` and `values`, with no memory access: a
    /// back end may run it at position 0 too and discard the results) computes `results`,
    /// and `bufs[k][index] = results[k]`.
    AccumulateWith {
        bufs: Vec<Buf>,
        index: Affine,
        values: Vec<Var>,
        position: Var,
        accs: Vec<Var>,
        body: Block,
        results: Vec<Var>,
    },
    /// Stops the kernel (a trap) when `cond` is false.
    Assert {
        cond: Var,
        message: String,
        span: Span,
    },
    Nest(Nest),
    Dot(Dot),
    /// `for iv = lower; iv < upper (iv > upper when step < 0); iv += step`, all of `iv`'s
    /// integer type; the bounds and step are read once, before the first iteration.
    For {
        iv: Var,
        lower: Var,
        upper: Var,
        step: Var,
        body: Block,
    },
    If {
        cond: Var,
        then_block: Block,
        else_block: Block,
    },
    /// `loop { before; if !cond { break } after }`.
    While {
        before: Block,
        cond: Var,
        after: Block,
    },
}

/// The variables an [`Expr`] (at most three) or a body statement reads: up to three held
/// inline, without an allocation.
pub type Operands = smallvec::SmallVec<[Var; 3]>;

impl Expr {
    /// The variables the expression reads, in a fixed order (at most three, held inline).
    pub fn operands(&self) -> Operands {
        match self {
            Expr::Const(_) | Expr::ProgramId(_) | Expr::NumPrograms(_) | Expr::Index(_) | Expr::LoadScratch { .. } => {
                smallvec![]
            }
            Expr::LoadScratchAt { at, .. } => smallvec![*at],
            Expr::Copy(a) | Expr::Unary(_, a) | Expr::Math(_, a) | Expr::Cast(_, a) => smallvec![*a],
            Expr::Binary(_, a, b) | Expr::Cmp(_, a, b) => smallvec![*a, *b],
            Expr::Fma(a, b, c) => smallvec![*a, *b, *c],
            Expr::Select { cond, on_true, on_false } => smallvec![*cond, *on_true, *on_false],
            Expr::AddPtr { ptr, offset } => smallvec![*ptr, *offset],
            Expr::Load { ptr, mask, other } => [Some(*ptr), *mask, *other].into_iter().flatten().collect(),
            Expr::AtomicRmw { ptr, value, mask, .. } => {
                [Some(*ptr), Some(*value), *mask].into_iter().flatten().collect()
            }
            Expr::AtomicCas { ptr, cmp, value, .. } => smallvec![*ptr, *cmp, *value],
        }
    }
}

impl Expr {
    /// The variables the expression reads, to rewrite in place (in the order of
    /// [`Expr::operands`]).
    pub fn operands_mut(&mut self) -> Vec<&mut Var> {
        match self {
            Expr::Const(_) | Expr::ProgramId(_) | Expr::NumPrograms(_) | Expr::Index(_) | Expr::LoadScratch { .. } => {
                vec![]
            }
            Expr::LoadScratchAt { at, .. } => vec![at],
            Expr::Copy(a) | Expr::Unary(_, a) | Expr::Math(_, a) | Expr::Cast(_, a) => vec![a],
            Expr::Binary(_, a, b) | Expr::Cmp(_, a, b) => vec![a, b],
            Expr::Fma(a, b, c) => vec![a, b, c],
            Expr::Select { cond, on_true, on_false } => vec![cond, on_true, on_false],
            Expr::AddPtr { ptr, offset } => vec![ptr, offset],
            Expr::Load { ptr, mask, other } => {
                [Some(ptr), mask.as_mut(), other.as_mut()].into_iter().flatten().collect()
            }
            Expr::AtomicRmw { ptr, value, mask, .. } => {
                [Some(ptr), Some(value), mask.as_mut()].into_iter().flatten().collect()
            }
            Expr::AtomicCas { ptr, cmp, value, .. } => vec![ptr, cmp, value],
        }
    }
}

impl Function {
    pub fn new_var(&mut self, ty: Elem, name: Option<String>) -> Var {
        self.vars.push(VarData { ty, name })
    }

    pub fn new_buf(&mut self, elem: Elem, len: u64) -> Buf {
        self.bufs.push(BufData { elem, len })
    }

    pub fn ty(&self, v: Var) -> Elem {
        self.vars[v].ty
    }
}
