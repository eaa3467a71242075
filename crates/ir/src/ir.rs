//! The Tile IR: the whole IR in one file.
//!
//! A [`Function`] is one specialized kernel (or, before inlining, nothing else: helpers are
//! always inlined by the front end). Values are SSA: each [`Value`] is defined exactly once,
//! either as a result of an [`Op`] or as a parameter of a [`Region`] (function parameters are
//! the parameters of the body region).
//!
//! Structure: a region is a list of ops executed in order. Ops with regions (`scf.for`,
//! `scf.if`, `scf.while`) are structured control flow; there are no branches and no phis.
//! A region's last op is its terminator when the region yields values: `scf.yield` for the
//! bodies of `for`/`if` and the `after` region of `while`, `scf.condition` for the `before`
//! region of `while`. The function body needs no terminator.
//!
//! Scope (checked by the verifier): a value may be used by an op if it is defined earlier in
//! the same region or in an enclosing region, or is a parameter of one of those regions.
//!
//! Types: every value has a [`Type`] = element × static shape. An empty shape is a scalar.
//! Tensor shapes are non-empty lists of dimensions; every dimension of a tensor produced by
//! `tt.make_range` is a power of two, as Triton requires; other ops keep shapes consistent.
//! Integer signedness is part of the type (`i32` vs `u32`), and ops on integers take it from
//! their operand types (`/` on `u32` is unsigned division); `i1` is boolean.
//!
//! Side effects: `tt.load`, `tt.store`, atomics, `tt.assert`, `tt.assume`, `tt.print`,
//! `tt.debug_barrier` and the control-flow ops are effects and keep their order; every other
//! op is pure and may be moved or shared by the optimizer.

use cranelift_entity::{entity_impl, PrimaryMap};
use tilec_diagnostics::Span;

/// An SSA value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");

/// An operation in the op arena of a function.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(u32);
entity_impl!(OpId, "op");

/// A region (a list of ops with parameters) in the region arena of a function.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegionId(u32);
entity_impl!(RegionId, "region");

/// Scalar element types, as in `triton.language`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    I1,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    BF16,
    F32,
    F64,
    /// `tl.float8e4nv`: OCP E4M3FN (bias 7, no infinities, `0x7f`/`0xff` NaN).
    F8E4NV,
    /// `tl.float8e5`: E5M2 (bias 15, IEEE infinities and NaNs).
    F8E5,
    /// `tl.float8e4b15`: E4M3 with bias 15, every pattern finite.
    F8E4B15,
    /// `tl.float8e4b8`: E4M3FNUZ (bias 8, no infinities, no `-0.0`, `0x80` NaN).
    F8E4B8,
    /// `tl.float8e5b16`: E5M2FNUZ (bias 16, no infinities, no `-0.0`, `0x80` NaN).
    F8E5B16,
}

impl ScalarType {
    pub const ALL: [ScalarType; 18] = [
        ScalarType::I1,
        ScalarType::I8,
        ScalarType::I16,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::F16,
        ScalarType::BF16,
        ScalarType::F32,
        ScalarType::F64,
        ScalarType::F8E4NV,
        ScalarType::F8E5,
        ScalarType::F8E4B15,
        ScalarType::F8E4B8,
        ScalarType::F8E5B16,
    ];

    /// Triton's spelling (`i32`, `fp32`, `bf16`, ...), as used in signatures.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::I1 => "i1",
            ScalarType::I8 => "i8",
            ScalarType::I16 => "i16",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::U8 => "u8",
            ScalarType::U16 => "u16",
            ScalarType::U32 => "u32",
            ScalarType::U64 => "u64",
            ScalarType::F16 => "fp16",
            ScalarType::BF16 => "bf16",
            ScalarType::F32 => "fp32",
            ScalarType::F64 => "fp64",
            ScalarType::F8E4NV => "fp8e4nv",
            ScalarType::F8E5 => "fp8e5",
            ScalarType::F8E4B15 => "fp8e4b15",
            ScalarType::F8E4B8 => "fp8e4b8",
            ScalarType::F8E5B16 => "fp8e5b16",
        }
    }

    /// Parses Triton's spellings, including the aliases `int32`, `float32`, `uint8`, ...
    pub fn from_name(name: &str) -> Option<ScalarType> {
        Some(match name {
            "i1" | "int1" | "bool" => ScalarType::I1,
            "i8" | "int8" => ScalarType::I8,
            "i16" | "int16" => ScalarType::I16,
            "i32" | "int32" => ScalarType::I32,
            "i64" | "int64" => ScalarType::I64,
            "u8" | "uint8" => ScalarType::U8,
            "u16" | "uint16" => ScalarType::U16,
            "u32" | "uint32" => ScalarType::U32,
            "u64" | "uint64" => ScalarType::U64,
            "fp16" | "f16" | "float16" => ScalarType::F16,
            "bf16" | "bfloat16" => ScalarType::BF16,
            "fp32" | "f32" | "float32" => ScalarType::F32,
            "fp64" | "f64" | "float64" => ScalarType::F64,
            "fp8e4nv" | "float8e4nv" => ScalarType::F8E4NV,
            "fp8e5" | "float8e5" => ScalarType::F8E5,
            "fp8e4b15" | "float8e4b15" => ScalarType::F8E4B15,
            "fp8e4b8" | "float8e4b8" => ScalarType::F8E4B8,
            "fp8e5b16" | "float8e5b16" => ScalarType::F8E5B16,
            _ => return None,
        })
    }

    /// Width in bits (`i1` is 1 bit wide but stored as one byte).
    pub fn bits(self) -> u32 {
        match self {
            ScalarType::I1 => 1,
            ScalarType::I8 | ScalarType::U8 => 8,
            ScalarType::F8E4NV | ScalarType::F8E5 | ScalarType::F8E4B15 | ScalarType::F8E4B8 | ScalarType::F8E5B16 => 8,
            ScalarType::I16 | ScalarType::U16 | ScalarType::F16 | ScalarType::BF16 => 16,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 32,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 64,
        }
    }

    /// Size in memory, in bytes.
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// The arithmetic floats (fp16, bf16, fp32, fp64); the fp8 formats are not among them.
    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F16 | ScalarType::BF16 | ScalarType::F32 | ScalarType::F64)
    }

    /// The integers, `i1` included.
    pub fn is_int(self) -> bool {
        !self.is_float() && !self.is_fp8()
    }

    /// The fp8 formats: storage types, no arithmetic (the front end converts them with integer
    /// operations; every later stage moves them as 8-bit patterns).
    pub fn is_fp8(self) -> bool {
        self.fp8_format().is_some()
    }

    /// The layout of an fp8 format.
    pub fn fp8_format(self) -> Option<crate::fp8::Fp8Format> {
        crate::fp8::Fp8Format::of(self)
    }

    /// fp16 or bf16: the 16-bit floats, which targets without half arithmetic hold in f32.
    pub fn is_half(self) -> bool {
        matches!(self, ScalarType::F16 | ScalarType::BF16)
    }

    pub fn is_bool(self) -> bool {
        self == ScalarType::I1
    }

    pub fn is_signed_int(self) -> bool {
        matches!(self, ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64)
    }

    pub fn is_unsigned_int(self) -> bool {
        matches!(self, ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64)
    }
}

/// `x` as an f32 rounded to odd (an inexact result has an odd significand). Rounding that
/// to nearest even at 11 or fewer significand bits (fp16, bf16) gives the rounding of `x`
/// itself, where rounding `x` to the nearest f32 first could land it on a half's tie.
pub fn f64_to_f32_round_to_odd(x: f64) -> f32 {
    let y = x as f32;
    if y as f64 == x || !y.is_finite() || y.to_bits() & 1 == 1 {
        return y;
    }
    // `y` is even and inexact: the other f32 bracketing `x` is odd (same sign as `y`).
    let away_from_zero = x.abs() > (y as f64).abs();
    let bits = if away_from_zero { y.to_bits() + 1 } else { y.to_bits() - 1 };
    f32::from_bits(bits)
}

/// Element type of a value: a scalar or a pointer to a scalar in global memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Elem {
    Scalar(ScalarType),
    Ptr(ScalarType),
}

impl Elem {
    pub fn scalar(self) -> Option<ScalarType> {
        match self {
            Elem::Scalar(s) => Some(s),
            Elem::Ptr(_) => None,
        }
    }

    pub fn pointee(self) -> Option<ScalarType> {
        match self {
            Elem::Ptr(s) => Some(s),
            Elem::Scalar(_) => None,
        }
    }

    /// Bytes one element takes in a scratch buffer (pointers are 8 bytes).
    pub fn bytes(self) -> u32 {
        match self {
            Elem::Scalar(s) => s.bytes(),
            Elem::Ptr(_) => 8,
        }
    }
}

/// A value's type: element × static shape; an empty shape is a scalar.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Type {
    pub elem: Elem,
    pub shape: Vec<u32>,
}

impl Type {
    pub fn scalar(s: ScalarType) -> Type {
        Type { elem: Elem::Scalar(s), shape: Vec::new() }
    }

    pub fn ptr(pointee: ScalarType) -> Type {
        Type { elem: Elem::Ptr(pointee), shape: Vec::new() }
    }

    pub fn tensor(elem: Elem, shape: Vec<u32>) -> Type {
        Type { elem, shape }
    }

    pub fn is_tensor(&self) -> bool {
        !self.shape.is_empty()
    }

    /// Number of elements (1 for a scalar).
    pub fn numel(&self) -> u64 {
        self.shape.iter().map(|&d| d as u64).product()
    }

    /// The same element with another shape.
    pub fn with_shape(&self, shape: Vec<u32>) -> Type {
        Type { elem: self.elem, shape }
    }

    /// The same shape with another element.
    pub fn with_elem(&self, elem: Elem) -> Type {
        Type { elem, shape: self.shape.clone() }
    }

    pub fn scalar_type(&self) -> Option<ScalarType> {
        self.elem.scalar()
    }
}

/// A compile-time constant. Its type is the type of the value it defines; a constant with a
/// tensor type is that scalar splatted over the shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Constant {
    /// Integer bits, sign-extended to 64 bits; the value type says the width and signedness.
    Int(i64),
    Float(f64),
    Bool(bool),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    pub fn index(self) -> u32 {
        self as u32
    }
}

/// Elementwise binary ops; integer semantics come from the operand type (wrap-around at the
/// type's width; `Div`/`Rem` truncate toward zero like C; `Shr` is arithmetic on signed
/// types and logical on unsigned ones). Both operands and the result share one type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    /// On floats `maxnum` (`arith.maxnumf`, Triton's default `tl.maximum`): a NaN operand
    /// loses, two NaNs give NaN. `PropagateNan.ALL` is built from it by the front end.
    Max,
    /// On floats `minnum` (`arith.minnumf`), as [`BinaryOp::Max`].
    Min,
    /// High half of the full product (`tl.umulhi`); integers only.
    MulHi,
    /// `x ** y` on floats.
    Pow,
    /// `atan2(y, x)` on floats.
    Atan2,
    /// `hypot(x, y)` = √(x² + y²) without undue overflow, on floats.
    Hypot,
}

impl BinaryOp {
    /// Every op, in declaration order.
    pub const ALL: [BinaryOp; 16] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
        BinaryOp::Shl,
        BinaryOp::Shr,
        BinaryOp::Max,
        BinaryOp::Min,
        BinaryOp::MulHi,
        BinaryOp::Pow,
        BinaryOp::Atan2,
        BinaryOp::Hypot,
    ];
}

/// Elementwise unary ops. `Not` is bitwise (logical on `i1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Not,
    Abs,
}

/// Elementwise math functions on floats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    Exp,
    Exp2,
    Log,
    Log2,
    Log1p,
    Expm1,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Tan,
    Tanh,
    Sinh,
    Cosh,
    Asin,
    Acos,
    Atan,
    Erf,
    Cbrt,
    Floor,
    Ceil,
    Trunc,
    /// Halfway cases away from zero (C's `round`).
    Round,
    /// Halfway cases to even (C's `rint`/`nearbyint` in the default rounding mode).
    Rint,
    Acosh,
    Asinh,
    Atanh,
    Erfc,
    Exp10,
    Log10,
    /// log |Γ(x)|.
    Lgamma,
    Tgamma,
    /// sin(πx), with the product πx taken exactly.
    SinPi,
    /// cos(πx), with the product πx taken exactly.
    CosPi,
    /// Bessel functions of the first (J) and second (Y) kind, of orders 0 and 1.
    J0,
    J1,
    Y0,
    Y1,
}

impl MathFn {
    /// Every function, in declaration order.
    pub const ALL: [MathFn; 38] = [
        MathFn::Exp,
        MathFn::Exp2,
        MathFn::Log,
        MathFn::Log2,
        MathFn::Log1p,
        MathFn::Expm1,
        MathFn::Sqrt,
        MathFn::Rsqrt,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Tanh,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Atan,
        MathFn::Erf,
        MathFn::Cbrt,
        MathFn::Floor,
        MathFn::Ceil,
        MathFn::Trunc,
        MathFn::Round,
        MathFn::Rint,
        MathFn::Acosh,
        MathFn::Asinh,
        MathFn::Atanh,
        MathFn::Erfc,
        MathFn::Exp10,
        MathFn::Log10,
        MathFn::Lgamma,
        MathFn::Tgamma,
        MathFn::SinPi,
        MathFn::CosPi,
        MathFn::J0,
        MathFn::J1,
        MathFn::Y0,
        MathFn::Y1,
    ];

    /// The C math library's name of the function for `double` (`exp`, `log1p`, ...); the
    /// `float` variant appends `f`. SLEEF uses the same base names.
    pub fn c_name(self) -> &'static str {
        match self {
            MathFn::Exp => "exp",
            MathFn::Exp2 => "exp2",
            MathFn::Log => "log",
            MathFn::Log2 => "log2",
            MathFn::Log1p => "log1p",
            MathFn::Expm1 => "expm1",
            MathFn::Sqrt => "sqrt",
            MathFn::Rsqrt => "rsqrt",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tan => "tan",
            MathFn::Tanh => "tanh",
            MathFn::Sinh => "sinh",
            MathFn::Cosh => "cosh",
            MathFn::Asin => "asin",
            MathFn::Acos => "acos",
            MathFn::Atan => "atan",
            MathFn::Erf => "erf",
            MathFn::Cbrt => "cbrt",
            MathFn::Floor => "floor",
            MathFn::Ceil => "ceil",
            MathFn::Trunc => "trunc",
            MathFn::Round => "round",
            MathFn::Rint => "rint",
            MathFn::Acosh => "acosh",
            MathFn::Asinh => "asinh",
            MathFn::Atanh => "atanh",
            MathFn::Erfc => "erfc",
            MathFn::Exp10 => "exp10",
            MathFn::Log10 => "log10",
            MathFn::Lgamma => "lgamma",
            MathFn::Tgamma => "tgamma",
            MathFn::SinPi => "sinpi",
            MathFn::CosPi => "cospi",
            MathFn::J0 => "j0",
            MathFn::J1 => "j1",
            MathFn::Y0 => "y0",
            MathFn::Y1 => "y1",
        }
    }
}

/// Comparisons; signedness from the operand type. Float comparisons are ordered except
/// `Ne`, which is unordered (true when either side is NaN), as in Triton.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpPred {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpPred {
    /// Whether `x pred y` holds. On floats `Ne` is true when either side is NaN and every
    /// other predicate is false then, as the predicates are documented.
    pub fn holds<T: PartialOrd>(self, x: T, y: T) -> bool {
        match self {
            CmpPred::Eq => x == y,
            CmpPred::Ne => x != y,
            CmpPred::Lt => x < y,
            CmpPred::Le => x <= y,
            CmpPred::Gt => x > y,
            CmpPred::Ge => x >= y,
        }
    }
}

/// Conversions; the source type is the operand's, the destination the result's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    /// Integer widening, sign- or zero-extended by the *source* signedness (`i1` zero-extends).
    IntExt,
    /// Integer narrowing (keeps low bits). `to i1` is `!= 0`, see `Cmp`.
    IntTrunc,
    /// Integer to integer of the same width, other signedness.
    IntRetype,
    FloatExt,
    /// Round to nearest even.
    FloatTrunc,
    /// Integer (signed or unsigned by source type) to float, round to nearest even.
    IntToFloat,
    /// Float to integer, truncating toward zero (saturating: NaN → 0).
    FloatToInt,
    /// Reinterpret bits; same width.
    Bitcast,
    PtrToInt,
    IntToPtr,
    /// Pointer to pointer of another pointee type.
    PtrCast,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceKind {
    Sum,
    Prod,
    /// Float max/min combine with `maxnum`/`minnum` ([`BinaryOp::Max`]): NaN only when
    /// every element is NaN.
    Max,
    Min,
    Xor,
    And,
    Or,
    /// Triton's `(value, index)` combine `v1 > v2 or (v1 == v2 and i1 < i2)`, applied left
    /// to right: two results, the element it keeps (the operand's element type) and that
    /// element's index (`i32`). Ties resolve to the smallest index, so the value is `x[index]`
    /// bit for bit (`-0.0` stays).
    ArgMax,
    /// As [`ReduceKind::ArgMax`] with `<`.
    ArgMin,
}

impl ReduceKind {
    /// Whether the reduction yields the kept element and its index (two results).
    pub fn is_arg(self) -> bool {
        matches!(self, ReduceKind::ArgMax | ReduceKind::ArgMin)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanKind {
    Sum,
    Prod,
    Max,
    Min,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    Max,
    Min,
    Xchg,
    And,
    Or,
    Xor,
}

/// Memory ordering of an atomic (`sem=`); accepted and recorded, all are honoured as
/// `acq_rel` or stronger by the back ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemSem {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

/// `tl.dot` operand precision (`input_precision` / `allow_tf32`); tf32 is computed as fp32.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DotPrecision {
    Ieee,
    Tf32,
    Tf32x3,
}

/// Facts the user states about a value (`tl.multiple_of`, `tl.max_contiguous`,
/// `tl.max_constancy`), one number per dimension (one for a scalar).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Hint {
    MultipleOf(Vec<u32>),
    MaxContiguous(Vec<u32>),
    MaxConstancy(Vec<u32>),
}

/// The operation kinds. Operand lists and result counts are fixed per kind, except for the
/// control-flow ops and `Print`, as documented on each variant.
#[derive(Clone, Debug, PartialEq)]
pub enum OpKind {
    /// `arith.constant`: one result; tensor-typed results are splats.
    Constant(Constant),
    /// `tt.get_program_id`: i32.
    ProgramId(Axis),
    /// `tt.get_num_programs`: i32.
    NumPrograms(Axis),
    /// `tt.make_range {start, end}`: tensor<end-start × i32> holding start..end.
    MakeRange {
        start: i32,
        end: i32,
    },
    /// `tt.splat x`: scalar → tensor of the result shape.
    Splat(Value),
    /// `tt.broadcast x`: size-1 dims of the operand stretched to the result shape (same rank).
    Broadcast(Value),
    /// `tt.expand_dims x {axis}`: inserts a size-1 dim at `axis`.
    ExpandDims {
        value: Value,
        axis: u32,
    },
    /// `tt.reshape x`: same element count, row-major order kept.
    Reshape(Value),
    /// `tt.trans x {order}`: result dim i is operand dim `order[i]`.
    Trans {
        value: Value,
        order: Vec<u32>,
    },
    /// `tt.addptr ptr, offset`: pointer + offset × sizeof(pointee); shapes equal (scalar or tensor).
    AddPtr {
        ptr: Value,
        offset: Value,
    },
    /// `tt.load ptr, mask, other`: masked-off lanes read `other` (or zero when absent).
    Load {
        ptr: Value,
        mask: Option<Value>,
        other: Option<Value>,
    },
    /// `tt.store ptr, value, mask`: no result.
    Store {
        ptr: Value,
        value: Value,
        mask: Option<Value>,
    },
    Binary {
        op: BinaryOp,
        lhs: Value,
        rhs: Value,
    },
    Unary {
        op: UnaryOp,
        value: Value,
    },
    Math {
        func: MathFn,
        value: Value,
    },
    /// `math.fma a, b, c` = a × b + c with one rounding.
    Fma {
        a: Value,
        b: Value,
        c: Value,
    },
    /// Result is `i1` with the operand shape.
    Cmp {
        pred: CmpPred,
        lhs: Value,
        rhs: Value,
    },
    /// `arith.select cond, a, b`: shapes equal (a scalar `cond` selects whole tensors).
    Select {
        cond: Value,
        on_true: Value,
        on_false: Value,
    },
    Cast {
        op: CastOp,
        value: Value,
    },
    /// `tt.reduce` along `axis`; each result drops that dim (a scalar for rank 1). One
    /// result, two for [`ReduceKind::is_arg`] kinds.
    Reduce {
        kind: ReduceKind,
        value: Value,
        axis: u32,
    },
    /// `tt.reduce` of one or more tensors of one shape with a combine region: for `n`
    /// operands, params `(acc_0, ..., acc_{n-1}, x_0, ..., x_{n-1})` (scalars of the operands'
    /// element types), yielding the `n` combined values; `n` results, each its operand
    /// without `axis`. No initial value: the first element along `axis` seeds the
    /// accumulators, then elements combine left to right.
    ReduceCustom {
        values: Vec<Value>,
        axis: u32,
        combine: RegionId,
    },
    /// `tt.scan` along `axis` (inclusive), result shaped like the operand.
    Scan {
        kind: ScanKind,
        value: Value,
        axis: u32,
        reverse: bool,
    },
    /// `tt.scan` with a combine region, as `ReduceCustom`: `n` results shaped like the
    /// operands.
    ScanCustom {
        values: Vec<Value>,
        axis: u32,
        reverse: bool,
        combine: RegionId,
    },
    /// `tt.gather src[index] {axis}`: `result[i] = src[i with dim axis replaced by
    /// index[i]]`. `src` and `index` (an integer tensor) have one rank and equal dims except
    /// along `axis`; the result has `src`'s element and `index`'s shape. An index outside
    /// `[-n, n)` (`n` = `src`'s size along `axis`) is undefined; a negative one counts from
    /// the end, as in Triton's interpreter.
    Gather {
        src: Value,
        index: Value,
        axis: u32,
    },
    /// `tt.dot a[M,K], b[K,N], acc[M,N]` (batched: a leading dim on all three).
    Dot {
        a: Value,
        b: Value,
        acc: Value,
        precision: DotPrecision,
    },
    /// `tt.atomic_rmw`: result is the old value(s); masked-off lanes are not touched.
    AtomicRmw {
        op: AtomicOp,
        ptr: Value,
        value: Value,
        mask: Option<Value>,
        sem: MemSem,
    },
    /// `tt.atomic_cas ptr, cmp, value`: result is the old value(s).
    AtomicCas {
        ptr: Value,
        cmp: Value,
        value: Value,
        sem: MemSem,
    },
    /// `tt.assert cond, "msg"`: fails the kernel when any lane of `cond` is false.
    Assert {
        cond: Value,
        message: String,
    },
    /// `tt.assume cond` (`tl.assume`): the program promises that every lane of `cond` holds
    /// here; no result. Analyses may use what it states about its operands (see
    /// [`crate::assume`]); back ends emit nothing for it, the interpreter checks it.
    Assume {
        cond: Value,
    },
    /// `tt.print "prefix", args...`: no result.
    Print {
        prefix: String,
        args: Vec<Value>,
        hex: bool,
    },
    /// `gpu.barrier` equivalent; a no-op on CPU, kept for ordering.
    DebugBarrier,
    /// Identity carrying a user hint about its operand.
    Hint {
        value: Value,
        hint: Hint,
    },
    /// `scf.for %iv = lb to ub step step iter_args(init...)`: lb, ub, step are scalars of one
    /// integer type; `body` has params `[iv, iter_args...]` and ends in `Yield` of the
    /// iter-arg types; results are the final iter-args. Negative steps count down.
    For {
        lower: Value,
        upper: Value,
        step: Value,
        init: Vec<Value>,
        body: RegionId,
    },
    /// `scf.if cond`: `cond` is a scalar `i1`; both regions take no params and end in `Yield`
    /// of the result types (an empty `Yield` when there are no results).
    If {
        cond: Value,
        then_region: RegionId,
        else_region: RegionId,
    },
    /// `scf.while (init...)`: `before` takes the loop-carried values and ends in `Condition`;
    /// `after` takes the `Condition` args and ends in `Yield` of the loop-carried values;
    /// results are the `Condition` args of the last (false) test.
    While {
        init: Vec<Value>,
        before: RegionId,
        after: RegionId,
    },
    /// `scf.yield`: terminator of `For`/`If` bodies, the `after` region of `While`, and
    /// combine regions.
    Yield(Vec<Value>),
    /// `scf.condition(cond) args...`: terminator of a `While` `before` region.
    Condition {
        cond: Value,
        args: Vec<Value>,
    },
}

/// One operation: its kind, result values and source span.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    pub kind: OpKind,
    pub results: Vec<Value>,
    pub span: Span,
}

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// Result `index` of an op.
    Result(OpId, u32),
    /// Parameter `index` of a region.
    Param(RegionId, u32),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
    /// Source-level name, when the value was bound to one (for printing and diagnostics).
    pub name: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Region {
    pub params: Vec<Value>,
    pub ops: Vec<OpId>,
}

/// How a kernel parameter was specialized.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: Type,
    /// Known divisibility in bytes for pointers or in units for integers (`:16`); 1 = none.
    pub divisibility: u32,
    pub span: Span,
}

/// A specialized kernel. Parameters are the runtime parameters only (constexpr parameters
/// and ints specialized to 1 have been substituted); they are the params of `body`, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    /// Constexpr values the kernel was specialized with, as `name = value` text, in
    /// parameter order (shown by the printer).
    pub constexprs: Vec<(String, String)>,
    pub body: RegionId,
    pub ops: PrimaryMap<OpId, Op>,
    pub values: PrimaryMap<Value, ValueData>,
    pub regions: PrimaryMap<RegionId, Region>,
    pub span: Span,
}

impl Function {
    /// An empty kernel whose body region has one param per entry of `params`.
    pub fn new(name: impl Into<String>, params: Vec<Param>, span: Span) -> Function {
        let mut f = Function {
            name: name.into(),
            params: Vec::new(),
            constexprs: Vec::new(),
            body: RegionId::from_u32(0),
            ops: PrimaryMap::new(),
            values: PrimaryMap::new(),
            regions: PrimaryMap::new(),
            span,
        };
        let body = f.new_region();
        f.body = body;
        for p in &params {
            f.add_region_param(body, p.ty.clone(), Some(p.name.clone()));
        }
        f.params = params;
        f
    }

    pub fn new_region(&mut self) -> RegionId {
        self.regions.push(Region::default())
    }

    pub fn add_region_param(&mut self, region: RegionId, ty: Type, name: Option<String>) -> Value {
        let index = self.regions[region].params.len() as u32;
        let v = self.values.push(ValueData { ty, def: ValueDef::Param(region, index), name });
        self.regions[region].params.push(v);
        v
    }

    /// Appends an op to `region`, creating one result value per entry of `result_types`.
    pub fn append_op(&mut self, region: RegionId, kind: OpKind, result_types: Vec<Type>, span: Span) -> OpId {
        let id = self.ops.next_key();
        let results = result_types
            .into_iter()
            .enumerate()
            .map(|(i, ty)| self.values.push(ValueData { ty, def: ValueDef::Result(id, i as u32), name: None }))
            .collect();
        let pushed = self.ops.push(Op { kind, results, span });
        debug_assert_eq!(pushed, id);
        self.regions[region].ops.push(id);
        id
    }

    /// Appends a single-result op and returns its value.
    pub fn append_value(&mut self, region: RegionId, kind: OpKind, ty: Type, span: Span) -> Value {
        let op = self.append_op(region, kind, vec![ty], span);
        self.ops[op].results[0]
    }

    pub fn ty(&self, v: Value) -> &Type {
        &self.values[v].ty
    }

    /// The values of the body region's params: the runtime kernel arguments, in order.
    pub fn param_values(&self) -> &[Value] {
        &self.regions[self.body].params
    }
}

impl OpKind {
    /// The value operands, in a fixed order (regions excluded).
    pub fn operands(&self) -> Vec<Value> {
        use OpKind::*;
        match self {
            Constant(_) | ProgramId(_) | NumPrograms(_) | MakeRange { .. } | DebugBarrier => vec![],
            Splat(v) | Broadcast(v) | Reshape(v) => vec![*v],
            ExpandDims { value, .. } | Trans { value, .. } | Unary { value, .. } | Math { value, .. } => {
                vec![*value]
            }
            Cast { value, .. } | Reduce { value, .. } => vec![*value],
            Scan { value, .. } | Hint { value, .. } => vec![*value],
            ReduceCustom { values, .. } | ScanCustom { values, .. } => values.clone(),
            Gather { src, index, .. } => vec![*src, *index],
            AddPtr { ptr, offset } => vec![*ptr, *offset],
            Load { ptr, mask, other } => [Some(*ptr), *mask, *other].into_iter().flatten().collect(),
            Store { ptr, value, mask } => [Some(*ptr), Some(*value), *mask].into_iter().flatten().collect(),
            Binary { lhs, rhs, .. } | Cmp { lhs, rhs, .. } => vec![*lhs, *rhs],
            Fma { a, b, c } => vec![*a, *b, *c],
            Select { cond, on_true, on_false } => vec![*cond, *on_true, *on_false],
            Dot { a, b, acc, .. } => vec![*a, *b, *acc],
            AtomicRmw { ptr, value, mask, .. } => [Some(*ptr), Some(*value), *mask].into_iter().flatten().collect(),
            AtomicCas { ptr, cmp, value, .. } => vec![*ptr, *cmp, *value],
            Assert { cond, .. } | Assume { cond } => vec![*cond],
            Print { args, .. } => args.clone(),
            For { lower, upper, step, init, .. } => {
                let mut v = vec![*lower, *upper, *step];
                v.extend(init);
                v
            }
            If { cond, .. } => vec![*cond],
            While { init, .. } => init.clone(),
            Yield(vs) => vs.clone(),
            Condition { cond, args } => {
                let mut v = vec![*cond];
                v.extend(args);
                v
            }
        }
    }

    /// The nested regions, in a fixed order.
    pub fn regions(&self) -> Vec<RegionId> {
        match self {
            OpKind::For { body, .. } => vec![*body],
            OpKind::If { then_region, else_region, .. } => vec![*then_region, *else_region],
            OpKind::While { before, after, .. } => vec![*before, *after],
            OpKind::ReduceCustom { combine, .. } | OpKind::ScanCustom { combine, .. } => vec![*combine],
            _ => vec![],
        }
    }

    /// Whether the op has an effect (memory, ordering, control flow, failure) and must stay
    /// in place; pure ops may be moved, shared or removed when unused.
    pub fn has_effect(&self) -> bool {
        matches!(
            self,
            OpKind::Load { .. }
                | OpKind::Store { .. }
                | OpKind::AtomicRmw { .. }
                | OpKind::AtomicCas { .. }
                | OpKind::Assert { .. }
                | OpKind::Assume { .. }
                | OpKind::Print { .. }
                | OpKind::DebugBarrier
                | OpKind::For { .. }
                | OpKind::If { .. }
                | OpKind::While { .. }
                | OpKind::Yield(_)
                | OpKind::Condition { .. }
        )
    }

    pub fn is_terminator(&self) -> bool {
        matches!(self, OpKind::Yield(_) | OpKind::Condition { .. })
    }
}
