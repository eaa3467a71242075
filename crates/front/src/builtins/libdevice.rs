//! `libdevice`: `tl.extra.libdevice`, `tl.extra.cpu.libdevice` and `tl.extra.cuda.libdevice`.
//!
//! [`FUNCTIONS`] lists every function of Triton 3.9's `libdevice` with the argument dtypes
//! it accepts and the dtype it returns (`triton/language/extra/cuda/libdevice.py`: Triton
//! looks the argument dtypes up as they are, without promotion, so `pow(fp16, fp16)` or
//! `fmod(fp64, fp32)` are errors). `tl.extra.cuda.libdevice` follows that table exactly.
//! `tl.extra.libdevice` (which Triton resolves to the backend's module) and
//! `tl.extra.cpu.libdevice` follow triton-cpu's `libdevice` where it defines a function:
//! its elementwise math takes any float dtype (fp16/bf16 computed in fp32 and rounded back,
//! as triton-cpu promotes library math), `isnan`/`isinf` return `int1` and `signbit` the
//! unsigned integer of the argument's width; every other name follows the CUDA table.
//!
//! Transcendental functions become IR math ops (SLEEF on riscv64gcv, libm on riscv64gc);
//! the rest is composed here from exact IR ops ([`super::compose`]), the special functions
//! with no IR op (`erfinv`, `jn`, ...) from those ops ([`super::special`]). Float → integer
//! conversions saturate and send NaN to 0, as tilec's casts do.

use super::compose::{unsigned_of, Ew, Format};
use crate::errors::{self, err, Result};
use crate::lower::{Args, Lowerer};
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_ir::{BinaryOp, CmpPred, MathFn, ScalarType, Value};
use ScalarType::{F32, F64, I32, I64, U32, U64};

/// One accepted call: argument dtypes → result dtype.
type Sig = (&'static [ScalarType], ScalarType);

const FLOAT1: &[Sig] = &[(&[F32], F32), (&[F64], F64)];
const FLOAT2: &[Sig] = &[(&[F32, F32], F32), (&[F64, F64], F64)];
const FLOAT3: &[Sig] = &[(&[F32, F32, F32], F32), (&[F64, F64, F64], F64)];
const FLOAT4: &[Sig] = &[(&[F32, F32, F32, F32], F32), (&[F64, F64, F64, F64], F64)];
const FP32_1: &[Sig] = &[(&[F32], F32)];
const FP32_2: &[Sig] = &[(&[F32, F32], F32)];
const FLOAT_TO_I32: &[Sig] = &[(&[F32], I32), (&[F64], I32)];
const FLOAT_TO_I64: &[Sig] = &[(&[F32], I64), (&[F64], I64)];
const INT_HALVES: &[Sig] = &[(&[I32, I32], I32), (&[U32, U32], U32)];
const FP32_TO_I32: &[Sig] = &[(&[F32], I32)];
const FP64_TO_I32: &[Sig] = &[(&[F64], I32)];
const FP32_TO_I64: &[Sig] = &[(&[F32], I64)];
const FP64_TO_I64: &[Sig] = &[(&[F64], I64)];
const LDEXP: &[Sig] = &[(&[F32, I32], F32), (&[F64, I32], F64)];
/// `jn`/`yn`: an `int32` order and the argument.
const BESSEL_N: &[Sig] = &[(&[I32, F32], F32), (&[I32, F64], F64)];

/// How a function is computed.
#[derive(Clone, Copy)]
enum Kind {
    /// An IR math function of the argument.
    Math(MathFn),
    /// A float IR binary op.
    Binary(BinaryOp),
    /// Composed by [`Lowerer::compose_libdevice`], by name.
    Composed,
    /// The argument rounded to an integral value by the function, then converted to the
    /// integer type (the declared result type may be the signed type of the same width).
    ToInt(MathFn, ScalarType),
    /// A conversion to a float type, rounded in a direction.
    ToFloat(Round),
    /// An arithmetic op rounded in a direction.
    Directed(Op, Round),
    /// A Triton function with no meaning on a CPU: the reason.
    NoCpuMeaning(&'static str),
}

/// A rounding direction of the `_rn`/`_rz`/`_rd`/`_ru` functions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Round {
    Nearest,
    Zero,
    Down,
    Up,
}

/// The arithmetic of the directed-rounding functions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rcp,
    Sqrt,
    Fma,
}

/// One `libdevice` function.
struct Function {
    name: &'static str,
    sigs: &'static [Sig],
    kind: Kind,
}

const fn f(name: &'static str, sigs: &'static [Sig], kind: Kind) -> Function {
    Function { name, sigs, kind }
}

use Kind::{Binary, Composed, Math};

/// Every function of Triton 3.9's `libdevice` (plus `fast_tanhf`, which only the stub
/// module and the HIP one declare, and `fabs`/`fmax`/`fmin` of older Tritons).
const FUNCTIONS: &[Function] = &[
    // Integers.
    f("clz", &[(&[I32], I32), (&[I64], I32)], Composed),
    f("popc", &[(&[I32], I32), (&[I64], I32)], Composed),
    f("ffs", &[(&[I32], I32), (&[I64], I32)], Composed),
    f("brev", &[(&[I32], I32), (&[I64], I64)], Composed),
    f("byte_perm", &[(&[I32, I32, I32], I32)], Composed),
    f(
        "mulhi",
        &[(&[I32, I32], I32), (&[U32, U32], U32), (&[I64, I64], I64), (&[U64, U64], U64)],
        Binary(BinaryOp::MulHi),
    ),
    f("mul24", INT_HALVES, Composed),
    f("sad", &[(&[I32, I32, U32], I32), (&[U32, U32, U32], U32)], Composed),
    f("hadd", INT_HALVES, Composed),
    f("rhadd", INT_HALVES, Composed),
    f("abs", &[(&[I32], I32), (&[I64], I64), (&[F32], F32), (&[F64], F64)], Composed),
    f("fabs", FLOAT1, Composed),
    // Rounding to integral values, and conversions.
    f("floor", FLOAT1, Math(MathFn::Floor)),
    f("ceil", FLOAT1, Math(MathFn::Ceil)),
    f("trunc", FLOAT1, Math(MathFn::Trunc)),
    f("round", FLOAT1, Math(MathFn::Round)),
    f("rint", FLOAT1, Math(MathFn::Rint)),
    f("nearbyint", FLOAT1, Math(MathFn::Rint)),
    f("llrint", FLOAT_TO_I64, Kind::ToInt(MathFn::Rint, I64)),
    f("llround", FLOAT_TO_I64, Kind::ToInt(MathFn::Round, I64)),
    f("int_as_float", &[(&[I32], F32)], Composed),
    f("float_as_int", FP32_TO_I32, Composed),
    f("uint_as_float", &[(&[U32], F32)], Composed),
    f("float_as_uint", FP32_TO_I32, Composed),
    f("longlong_as_double", &[(&[I64], F64)], Composed),
    f("double_as_longlong", FP64_TO_I64, Composed),
    f("hiloint2double", &[(&[I32, I32], F64)], Composed),
    f("double2loint", FP64_TO_I32, Composed),
    f("double2hiint", FP64_TO_I32, Composed),
    // Classification and bits of floats.
    f("isnan", FLOAT_TO_I32, Composed),
    f("isinf", FLOAT_TO_I32, Composed),
    f("finitef", FP32_TO_I32, Composed),
    f("isfinited", FP64_TO_I32, Composed),
    f("signbit", FLOAT_TO_I32, Composed),
    f("copysign", FLOAT2, Composed),
    f("nextafter", FLOAT2, Composed),
    f("ilogb", FLOAT_TO_I32, Composed),
    f("logb", FLOAT1, Composed),
    f("ldexp", LDEXP, Composed),
    f("scalbn", LDEXP, Composed),
    f("saturatef", FP32_1, Composed),
    f("fdim", FLOAT2, Composed),
    f("fmax", FLOAT2, Binary(BinaryOp::Max)),
    f("fmin", FLOAT2, Binary(BinaryOp::Min)),
    f("fmod", FLOAT2, Binary(BinaryOp::Rem)),
    f("remainder", FLOAT2, Composed),
    // Arithmetic rounded to nearest.
    f("fast_dividef", FP32_2, Binary(BinaryOp::Div)),
    f("sqrt", FLOAT1, Math(MathFn::Sqrt)),
    f("rsqrt", FLOAT1, Math(MathFn::Rsqrt)),
    f("fma", FLOAT3, Composed),
    // Exponentials, logarithms, powers.
    f("exp", FLOAT1, Math(MathFn::Exp)),
    f("exp2", FLOAT1, Math(MathFn::Exp2)),
    f("exp10", FLOAT1, Math(MathFn::Exp10)),
    f("expm1", FLOAT1, Math(MathFn::Expm1)),
    f("log", FLOAT1, Math(MathFn::Log)),
    f("log2", FLOAT1, Math(MathFn::Log2)),
    f("log10", FLOAT1, Math(MathFn::Log10)),
    f("log1p", FLOAT1, Math(MathFn::Log1p)),
    f("pow", &[(&[F32, I32], F32), (&[F64, I32], F64), (&[F32, F32], F32), (&[F64, F64], F64)], Composed),
    f("cbrt", FLOAT1, Math(MathFn::Cbrt)),
    f("rcbrt", FLOAT1, Composed),
    f("hypot", FLOAT2, Binary(BinaryOp::Hypot)),
    f("rhypot", FLOAT2, Composed),
    f("norm3d", FLOAT3, Composed),
    f("rnorm3d", FLOAT3, Composed),
    f("norm4d", FLOAT4, Composed),
    f("rnorm4d", FLOAT4, Composed),
    // Trigonometric and hyperbolic.
    f("sin", FLOAT1, Math(MathFn::Sin)),
    f("cos", FLOAT1, Math(MathFn::Cos)),
    f("tan", FLOAT1, Math(MathFn::Tan)),
    f("sinpi", FLOAT1, Math(MathFn::SinPi)),
    f("cospi", FLOAT1, Math(MathFn::CosPi)),
    f("asin", FLOAT1, Math(MathFn::Asin)),
    f("acos", FLOAT1, Math(MathFn::Acos)),
    f("atan", FLOAT1, Math(MathFn::Atan)),
    f("atan2", FLOAT2, Binary(BinaryOp::Atan2)),
    f("sinh", FLOAT1, Math(MathFn::Sinh)),
    f("cosh", FLOAT1, Math(MathFn::Cosh)),
    f("tanh", FLOAT1, Math(MathFn::Tanh)),
    f("asinh", FLOAT1, Math(MathFn::Asinh)),
    f("acosh", FLOAT1, Math(MathFn::Acosh)),
    f("atanh", FLOAT1, Math(MathFn::Atanh)),
    // Special functions.
    f("erf", FLOAT1, Math(MathFn::Erf)),
    f("erfc", FLOAT1, Math(MathFn::Erfc)),
    f("normcdf", FLOAT1, Composed),
    f("lgamma", FLOAT1, Math(MathFn::Lgamma)),
    f("tgamma", FLOAT1, Math(MathFn::Tgamma)),
    f("j0", FLOAT1, Math(MathFn::J0)),
    f("j1", FLOAT1, Math(MathFn::J1)),
    f("y0", FLOAT1, Math(MathFn::Y0)),
    f("y1", FLOAT1, Math(MathFn::Y1)),
    f("jn", BESSEL_N, Composed),
    f("yn", BESSEL_N, Composed),
    f("cyl_bessel_i0", FLOAT1, Composed),
    f("cyl_bessel_i1", FLOAT1, Composed),
    f("erfinv", FLOAT1, Composed),
    f("erfcinv", FLOAT1, Composed),
    f("erfcx", FLOAT1, Composed),
    f("normcdfinv", FLOAT1, Composed),
    // The `fast_` functions: the accurate function is a valid (better) approximation.
    f("fast_expf", FP32_1, Math(MathFn::Exp)),
    f("fast_exp10f", FP32_1, Math(MathFn::Exp10)),
    f("fast_logf", FP32_1, Math(MathFn::Log)),
    f("fast_log2f", FP32_1, Math(MathFn::Log2)),
    f("fast_log10f", FP32_1, Math(MathFn::Log10)),
    f("fast_sinf", FP32_1, Math(MathFn::Sin)),
    f("fast_cosf", FP32_1, Math(MathFn::Cos)),
    f("fast_tanf", FP32_1, Math(MathFn::Tan)),
    f("fast_tanhf", FP32_1, Math(MathFn::Tanh)),
    f("fast_powf", FP32_2, Binary(BinaryOp::Pow)),
    // Conversions with a rounding direction.
    f("float2int_rn", FP32_TO_I32, Kind::ToInt(MathFn::Rint, I32)),
    f("float2int_rz", FP32_TO_I32, Kind::ToInt(MathFn::Trunc, I32)),
    f("float2int_rd", FP32_TO_I32, Kind::ToInt(MathFn::Floor, I32)),
    f("float2int_ru", FP32_TO_I32, Kind::ToInt(MathFn::Ceil, I32)),
    f("float2uint_rn", FP32_TO_I32, Kind::ToInt(MathFn::Rint, U32)),
    f("float2uint_rz", FP32_TO_I32, Kind::ToInt(MathFn::Trunc, U32)),
    f("float2uint_rd", FP32_TO_I32, Kind::ToInt(MathFn::Floor, U32)),
    f("float2uint_ru", FP32_TO_I32, Kind::ToInt(MathFn::Ceil, U32)),
    f("double2int_rn", FP64_TO_I32, Kind::ToInt(MathFn::Rint, I32)),
    f("double2int_rz", FP64_TO_I32, Kind::ToInt(MathFn::Trunc, I32)),
    f("double2int_rd", FP64_TO_I32, Kind::ToInt(MathFn::Floor, I32)),
    f("double2int_ru", FP64_TO_I32, Kind::ToInt(MathFn::Ceil, I32)),
    f("double2uint_rn", FP64_TO_I32, Kind::ToInt(MathFn::Rint, U32)),
    f("double2uint_rz", FP64_TO_I32, Kind::ToInt(MathFn::Trunc, U32)),
    f("double2uint_rd", FP64_TO_I32, Kind::ToInt(MathFn::Floor, U32)),
    f("double2uint_ru", FP64_TO_I32, Kind::ToInt(MathFn::Ceil, U32)),
    f("float2ll_rn", FP32_TO_I64, Kind::ToInt(MathFn::Rint, I64)),
    f("float2ll_rz", FP32_TO_I64, Kind::ToInt(MathFn::Trunc, I64)),
    f("float2ll_rd", FP32_TO_I64, Kind::ToInt(MathFn::Floor, I64)),
    f("float2ll_ru", FP32_TO_I64, Kind::ToInt(MathFn::Ceil, I64)),
    f("float2ull_rn", FP32_TO_I64, Kind::ToInt(MathFn::Rint, U64)),
    f("float2ull_rz", FP32_TO_I64, Kind::ToInt(MathFn::Trunc, U64)),
    f("float2ull_rd", FP32_TO_I64, Kind::ToInt(MathFn::Floor, U64)),
    f("float2ull_ru", FP32_TO_I64, Kind::ToInt(MathFn::Ceil, U64)),
    f("double2ll_rn", FP64_TO_I64, Kind::ToInt(MathFn::Rint, I64)),
    f("double2ll_rz", FP64_TO_I64, Kind::ToInt(MathFn::Trunc, I64)),
    f("double2ll_rd", FP64_TO_I64, Kind::ToInt(MathFn::Floor, I64)),
    f("double2ll_ru", FP64_TO_I64, Kind::ToInt(MathFn::Ceil, I64)),
    f("double2ull_rn", FP64_TO_I64, Kind::ToInt(MathFn::Rint, U64)),
    f("double2ull_rz", FP64_TO_I64, Kind::ToInt(MathFn::Trunc, U64)),
    f("double2ull_rd", FP64_TO_I64, Kind::ToInt(MathFn::Floor, U64)),
    f("double2ull_ru", FP64_TO_I64, Kind::ToInt(MathFn::Ceil, U64)),
    f("int2float_rn", &[(&[I32], F32)], Kind::ToFloat(Round::Nearest)),
    f("int2float_rz", &[(&[I32], F32)], Kind::ToFloat(Round::Zero)),
    f("int2float_rd", &[(&[I32], F32)], Kind::ToFloat(Round::Down)),
    f("int2float_ru", &[(&[I32], F32)], Kind::ToFloat(Round::Up)),
    f("uint2float_rn", &[(&[U32], F32)], Kind::ToFloat(Round::Nearest)),
    f("uint2float_rz", &[(&[U32], F32)], Kind::ToFloat(Round::Zero)),
    f("uint2float_rd", &[(&[U32], F32)], Kind::ToFloat(Round::Down)),
    f("uint2float_ru", &[(&[U32], F32)], Kind::ToFloat(Round::Up)),
    f("ll2float_rn", &[(&[I64], F32)], Kind::ToFloat(Round::Nearest)),
    f("ll2float_rz", &[(&[I64], F32)], Kind::ToFloat(Round::Zero)),
    f("ll2float_rd", &[(&[I64], F32)], Kind::ToFloat(Round::Down)),
    f("ll2float_ru", &[(&[I64], F32)], Kind::ToFloat(Round::Up)),
    f("ull2float_rn", &[(&[U64], F32)], Kind::ToFloat(Round::Nearest)),
    f("ull2float_rz", &[(&[U64], F32)], Kind::ToFloat(Round::Zero)),
    f("ull2float_rd", &[(&[U64], F32)], Kind::ToFloat(Round::Down)),
    f("ull2float_ru", &[(&[U64], F32)], Kind::ToFloat(Round::Up)),
    f("ll2double_rn", &[(&[I64], F64)], Kind::ToFloat(Round::Nearest)),
    f("ll2double_rz", &[(&[I64], F64)], Kind::ToFloat(Round::Zero)),
    f("ll2double_rd", &[(&[I64], F64)], Kind::ToFloat(Round::Down)),
    f("ll2double_ru", &[(&[I64], F64)], Kind::ToFloat(Round::Up)),
    f("ull2double_rn", &[(&[U64], F64)], Kind::ToFloat(Round::Nearest)),
    f("ull2double_rz", &[(&[U64], F64)], Kind::ToFloat(Round::Zero)),
    f("ull2double_rd", &[(&[U64], F64)], Kind::ToFloat(Round::Down)),
    f("ull2double_ru", &[(&[U64], F64)], Kind::ToFloat(Round::Up)),
    f("double2float_rn", &[(&[F64], F32)], Kind::ToFloat(Round::Nearest)),
    f("double2float_rz", &[(&[F64], F32)], Kind::ToFloat(Round::Zero)),
    f("double2float_rd", &[(&[F64], F32)], Kind::ToFloat(Round::Down)),
    f("double2float_ru", &[(&[F64], F32)], Kind::ToFloat(Round::Up)),
    f("int2double_rn", &[(&[I32], F64)], Kind::ToFloat(Round::Nearest)),
    f("uint2double_rn", &[(&[U32], F64)], Kind::ToFloat(Round::Nearest)),
    // Arithmetic with a rounding direction.
    f("add_rn", FLOAT2, Kind::Directed(Op::Add, Round::Nearest)),
    f("add_rz", FLOAT2, Kind::Directed(Op::Add, Round::Zero)),
    f("add_rd", FLOAT2, Kind::Directed(Op::Add, Round::Down)),
    f("add_ru", FLOAT2, Kind::Directed(Op::Add, Round::Up)),
    f("sub_rn", FLOAT2, Kind::Directed(Op::Sub, Round::Nearest)),
    f("sub_rz", FLOAT2, Kind::Directed(Op::Sub, Round::Zero)),
    f("sub_rd", FLOAT2, Kind::Directed(Op::Sub, Round::Down)),
    f("sub_ru", FLOAT2, Kind::Directed(Op::Sub, Round::Up)),
    f("mul_rn", FLOAT2, Kind::Directed(Op::Mul, Round::Nearest)),
    f("mul_rz", FLOAT2, Kind::Directed(Op::Mul, Round::Zero)),
    f("mul_rd", FLOAT2, Kind::Directed(Op::Mul, Round::Down)),
    f("mul_ru", FLOAT2, Kind::Directed(Op::Mul, Round::Up)),
    f("div_rn", FLOAT2, Kind::Directed(Op::Div, Round::Nearest)),
    f("div_rz", FLOAT2, Kind::Directed(Op::Div, Round::Zero)),
    f("div_rd", FLOAT2, Kind::Directed(Op::Div, Round::Down)),
    f("div_ru", FLOAT2, Kind::Directed(Op::Div, Round::Up)),
    f("rcp_rn", FLOAT1, Kind::Directed(Op::Rcp, Round::Nearest)),
    f("rcp_rz", FLOAT1, Kind::Directed(Op::Rcp, Round::Zero)),
    f("rcp_rd", FLOAT1, Kind::Directed(Op::Rcp, Round::Down)),
    f("rcp_ru", FLOAT1, Kind::Directed(Op::Rcp, Round::Up)),
    f("sqrt_rn", FLOAT1, Kind::Directed(Op::Sqrt, Round::Nearest)),
    f("sqrt_rz", FLOAT1, Kind::Directed(Op::Sqrt, Round::Zero)),
    f("sqrt_rd", FLOAT1, Kind::Directed(Op::Sqrt, Round::Down)),
    f("sqrt_ru", FLOAT1, Kind::Directed(Op::Sqrt, Round::Up)),
    f("fma_rn", FLOAT3, Kind::Directed(Op::Fma, Round::Nearest)),
    f("fma_rz", FLOAT3, Kind::Directed(Op::Fma, Round::Zero)),
    f("fma_rd", FLOAT3, Kind::Directed(Op::Fma, Round::Down)),
    f("fma_ru", FLOAT3, Kind::Directed(Op::Fma, Round::Up)),
    f("rsqrt_rn", FP32_1, Composed),
    // GPU-specific.
    f(
        "rcp64h",
        &[(&[F64], F64)],
        Kind::NoCpuMeaning("it returns the high word of the GPU's approximate fp64 reciprocal (`MUFU.RCP64H`)"),
    ),
];

/// The interned name of a `libdevice` function.
pub fn lookup(name: &str) -> Option<&'static str> {
    FUNCTIONS.iter().find(|f| f.name == name).map(|f| f.name)
}

/// Which `libdevice` module a call names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flavor {
    /// `tl.extra.libdevice` and `tl.extra.cpu.libdevice`: triton-cpu's definitions first.
    Cpu,
    /// `tl.extra.cuda.libdevice`: the CUDA table only.
    Cuda,
}

/// triton-cpu's `libdevice` functions that take any float dtype (built on MLIR's `math`
/// ops, which triton-cpu computes in fp32 for fp16/bf16).
const CPU_ANY_FLOAT: &[&str] = &[
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "cos", "cosh", "erf", "exp", "exp2", "expm1", "floor",
    "log", "log2", "log10", "log1p", "sin", "rsqrt", "sqrt", "sinh", "tan", "tanh", "trunc",
];

fn sig_text(types: &[ScalarType]) -> String {
    format!("({})", types.iter().map(|t| t.name()).collect::<Vec<_>>().join(", "))
}

impl Lowerer<'_> {
    pub(super) fn libdevice(&mut self, flavor: Flavor, name: &str, args: Args, span: Span) -> Result<Val> {
        let func = FUNCTIONS
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| err(errors::INTERNAL, span, format!("unknown libdevice function {name}")))?;
        let arity = func.sigs[0].0.len();
        let params = &["arg0", "arg1", "arg2", "arg3"][..arity];
        let b = args.bind(name, params, arity, span)?;
        if let Kind::NoCpuMeaning(why) = func.kind {
            return Err(err(errors::UNSUPPORTED, span, format!("`libdevice.{name}` has no meaning on a CPU: {why}")));
        }
        let mut xs = Vec::with_capacity(arity);
        let mut types = Vec::with_capacity(arity);
        for i in 0..arity {
            let x = self.tensor_arg(&b.val(i), b.span(i))?;
            let t = self.ty(x).scalar_type().ok_or_else(|| {
                err(errors::TYPE_ERROR, b.span(i), format!("`libdevice.{name}` is not defined on pointers"))
            })?;
            xs.push(x);
            types.push(t);
        }
        let mut shape = Vec::new();
        for &x in &xs {
            shape = Self::broadcast_shape(&shape, &self.ty(x).shape).ok_or_else(|| {
                err(errors::BROADCAST, span, format!("the arguments of `libdevice.{name}` do not broadcast together"))
            })?;
        }
        for x in &mut xs {
            *x = self.broadcast_to(*x, &shape, errors::BROADCAST, span)?;
        }
        let mut ew = Ew { l: self, shape, span };
        if flavor == Flavor::Cpu {
            if let Some(v) = ew.cpu_libdevice(name, &xs, &types, span)? {
                return Ok(Val::T(v));
            }
        }
        let Some(&(_, ret)) = func.sigs.iter().find(|(args, _)| *args == types.as_slice()) else {
            let accepted: Vec<String> = func.sigs.iter().map(|(args, _)| sig_text(args)).collect();
            return Err(err(
                errors::TYPE_ERROR,
                span,
                format!(
                    "`libdevice.{name}` has no variant for {}; Triton declares {}",
                    sig_text(&types),
                    accepted.join(", ")
                ),
            )
            .with_note("Triton's libdevice does not promote arguments: cast them, e.g. with `.to(tl.float32)`"));
        };
        let v = match func.kind {
            Kind::Math(m) => ew.function(m, xs[0]),
            Kind::Binary(op) => ew.bin(op, xs[0], xs[1]),
            Kind::ToInt(m, to) => {
                let r = if m == MathFn::Trunc { xs[0] } else { ew.math(m, xs[0]) };
                let i = ew.convert(r, to);
                ew.reinterpret(i, ret)
            }
            Kind::ToFloat(round) => ew.convert_rounded(xs[0], ret, round),
            Kind::Directed(op, round) => ew.directed(name, op, round, &xs, span)?,
            Kind::Composed => ew.compose_libdevice(name, &xs, &types, ret),
            Kind::NoCpuMeaning(_) => unreachable!("rejected above"),
        };
        Ok(Val::T(v))
    }
}

impl Ew<'_, '_> {
    /// The math function `m` of `x`. `sinpi`/`cospi` first reduce `x` exactly to [−1, 1]
    /// (SLEEF's, the implementation called on every target, return arbitrary values beyond
    /// |x| > 1e7 for fp32 and 1e9 for fp64); `asinh`/`acosh` of |x| ≥ 2^63 (fp32) or 2^511
    /// (fp64) are ±(log|x| + log 2), which the exact value rounds to within 1.5 ULP (SLEEF's
    /// vector ones return infinity beyond 1.8e19 and 1.3e154).
    fn function(&mut self, m: MathFn, x: Value) -> Value {
        match m {
            MathFn::SinPi | MathFn::CosPi => {
                let r = self.half_turn_reduction(x);
                let y = self.math(m, r);
                if m == MathFn::CosPi {
                    return y;
                }
                // sinpi(±n) = ±0 for integers n.
                let zero = self.cmp_f(CmpPred::Eq, y, 0.0);
                let signed_zero = self.copysign(y, x);
                self.select(zero, signed_zero, y)
            }
            MathFn::Asinh | MathFn::Acosh => {
                let s = self.scalar(x);
                let limit = if s == F64 { 2f64.powi(511) } else { 2f64.powi(63) };
                let a = self.abs(x);
                let huge = self.cmp_f(CmpPred::Ge, a, limit);
                let l = self.math(MathFn::Log, a);
                let l = self.bin_f(BinaryOp::Add, l, std::f64::consts::LN_2);
                let l = if m == MathFn::Asinh { self.copysign(l, x) } else { l };
                let y = self.math(m, x);
                // acosh of a huge negative number stays NaN.
                let valid = if m == MathFn::Acosh { self.cmp_f(CmpPred::Gt, x, 0.0) } else { self.bool(true) };
                let take = self.and(huge, valid);
                self.select(take, l, y)
            }
            _ => self.math(m, x),
        }
    }

    /// `x − 2·rint(x/2)`, in [−1, 1] and exact, with `rint` by adding and subtracting
    /// 2^mantissa (exact below it; larger floats are even integers already).
    fn half_turn_reduction(&mut self, x: Value) -> Value {
        let f = Format::of(self.scalar(x));
        let big = 2f64.powi(f.mantissa as i32);
        let half = self.bin_f(BinaryOp::Mul, x, 0.5);
        let magic = self.float(f.float, big);
        let magic = self.copysign(magic, half);
        let shifted = self.bin(BinaryOp::Add, half, magic);
        let n = self.bin(BinaryOp::Sub, shifted, magic);
        let a = self.abs(half);
        let small = self.cmp_f(CmpPred::Lt, a, big);
        let n = self.select(small, n, half);
        let twice = self.bin(BinaryOp::Add, n, n);
        // For x = ±inf this is inf − inf = NaN, as sinpi(inf) is.
        self.bin(BinaryOp::Sub, x, twice)
    }

    /// triton-cpu's definition of `name`, where it differs from the CUDA table.
    fn cpu_libdevice(&mut self, name: &str, xs: &[Value], types: &[ScalarType], span: Span) -> Result<Option<Value>> {
        let float_arg = || {
            if types[0].is_float() {
                Ok(())
            } else {
                Err(err(
                    errors::TYPE_ERROR,
                    span,
                    format!("`libdevice.{name}` expects a floating-point argument, got {}", types[0].name()),
                ))
            }
        };
        let x = xs[0];
        Ok(Some(match name {
            "isnan" | "isinf" | "signbit" => {
                float_arg()?;
                let x = if types[0].is_half() { self.convert(x, F32) } else { x };
                match name {
                    "isnan" => self.is_nan(x),
                    "isinf" => self.is_inf(x),
                    _ => {
                        // The unsigned integer of the argument's own width.
                        let bit = self.sign_bit(x);
                        let width = if types[0].is_half() { ScalarType::U16 } else { self.scalar(bit) };
                        self.convert(bit, width)
                    }
                }
            }
            _ if CPU_ANY_FLOAT.contains(&name) && types[0].is_half() => {
                let func = FUNCTIONS.iter().find(|f| f.name == name).expect("listed");
                let Kind::Math(m) = func.kind else { unreachable!("triton-cpu's float functions are math ops") };
                let wide = self.convert(x, F32);
                let y = self.function(m, wide);
                self.convert(y, types[0])
            }
            _ if CPU_ANY_FLOAT.contains(&name) => {
                float_arg()?;
                return Ok(None);
            }
            _ => return Ok(None),
        }))
    }

    /// The `libdevice` functions composed from IR ops, by name; the arguments match one of
    /// the function's signatures, whose result type is `ret`.
    fn compose_libdevice(&mut self, name: &str, xs: &[Value], types: &[ScalarType], ret: ScalarType) -> Value {
        let x = xs[0];
        match name {
            "abs" | "fabs" => self.abs(x),
            "fma" => self.fma(x, xs[1], xs[2]),
            "clz" => {
                let n = self.leading_zeros(x);
                self.convert(n, I32)
            }
            "popc" => {
                let n = self.popcount(x);
                self.convert(n, I32)
            }
            "ffs" => {
                // popc(x ^ (x - 1)) counts the bits up to the lowest set one, inclusive.
                let u = self.reinterpret(x, unsigned_of(types[0]));
                let below = self.bin_k(BinaryOp::Sub, u, 1);
                let mask = self.bin(BinaryOp::Xor, u, below);
                let n = self.popcount(mask);
                let zero = self.cmp_k(CmpPred::Eq, u, 0);
                let none = self.int(self.scalar(n), 0);
                let n = self.select(zero, none, n);
                self.convert(n, I32)
            }
            "brev" => self.bit_reverse(x),
            "byte_perm" => self.byte_perm(x, xs[1], xs[2]),
            "mul24" => {
                let [a, b] = [x, xs[1]].map(|v| {
                    if types[0].is_signed_int() {
                        let up = self.bin_k(BinaryOp::Shl, v, 8);
                        self.bin_k(BinaryOp::Shr, up, 8)
                    } else {
                        self.bin_k(BinaryOp::And, v, 0xff_ffff)
                    }
                });
                self.bin(BinaryOp::Mul, a, b)
            }
            "sad" => {
                // |x - y| is exact in the unsigned type: the wrapped difference of the
                // larger minus the smaller.
                let (a, b) = (x, xs[1]);
                let greater = self.cmp(CmpPred::Gt, a, b);
                let (ab, ba) = (self.bin(BinaryOp::Sub, a, b), self.bin(BinaryOp::Sub, b, a));
                let d = self.select(greater, ab, ba);
                let d = self.reinterpret(d, U32);
                let s = self.bin(BinaryOp::Add, d, xs[2]);
                self.reinterpret(s, ret)
            }
            "hadd" | "rhadd" => {
                // (x + y) >> 1 and (x + y + 1) >> 1 without overflow (`>>` is arithmetic on
                // signed types).
                let (a, b) = (x, xs[1]);
                let xor = self.bin(BinaryOp::Xor, a, b);
                let half = self.bin_k(BinaryOp::Shr, xor, 1);
                if name == "hadd" {
                    let and = self.and(a, b);
                    self.bin(BinaryOp::Add, and, half)
                } else {
                    let or = self.or(a, b);
                    self.bin(BinaryOp::Sub, or, half)
                }
            }
            "int_as_float" | "float_as_int" | "uint_as_float" | "float_as_uint" | "longlong_as_double"
            | "double_as_longlong" => self.reinterpret(x, ret),
            "hiloint2double" => {
                let [hi, lo] = [x, xs[1]].map(|v| {
                    let u = self.reinterpret(v, U32);
                    self.convert(u, U64)
                });
                let hi = self.bin_k(BinaryOp::Shl, hi, 32);
                let b = self.or(hi, lo);
                self.reinterpret(b, F64)
            }
            "double2loint" | "double2hiint" => {
                let b = self.bits_of(x);
                let b = if name == "double2hiint" { self.bin_k(BinaryOp::Shr, b, 32) } else { b };
                let w = self.convert(b, U32);
                self.reinterpret(w, I32)
            }
            "isnan" | "isinf" | "finitef" | "isfinited" => {
                let c = match name {
                    "isnan" => self.is_nan(x),
                    "isinf" => self.is_inf(x),
                    _ => self.is_finite(x),
                };
                self.flag(c, I32)
            }
            "signbit" => {
                let bit = self.sign_bit(x);
                self.convert(bit, I32)
            }
            "copysign" => self.copysign(x, xs[1]),
            "nextafter" => self.nextafter(x, xs[1]),
            "ilogb" => {
                // CUDA's values: ilogb(±0) = ilogb(NaN) = INT_MIN, ilogb(±inf) = INT_MAX.
                let e = self.exponent(x);
                let min = self.int(I32, i32::MIN as u64);
                let max = self.int(I32, i32::MAX as u64);
                let inf = self.is_inf(x);
                let e = self.select(inf, max, e);
                let zero = self.cmp_f(CmpPred::Eq, x, 0.0);
                let nan = self.is_nan(x);
                let special = self.or(zero, nan);
                self.select(special, min, e)
            }
            "logb" => {
                let e = self.exponent(x);
                let e = self.convert(e, ret);
                let zero = self.cmp_f(CmpPred::Eq, x, 0.0);
                let minus_inf = self.float(ret, f64::NEG_INFINITY);
                let e = self.select(zero, minus_inf, e);
                let inf = self.is_inf(x);
                let plus_inf = self.float(ret, f64::INFINITY);
                let e = self.select(inf, plus_inf, e);
                let nan = self.is_nan(x);
                self.select(nan, x, e)
            }
            "ldexp" | "scalbn" => self.ldexp(x, xs[1]),
            "saturatef" => {
                // [+0, 1], NaN → +0.
                let one = self.float(F32, 1.0);
                let below_one = self.cmp_f(CmpPred::Lt, x, 1.0);
                let upper = self.select(below_one, x, one);
                let positive = self.cmp_f(CmpPred::Gt, x, 0.0);
                let zero = self.float(F32, 0.0);
                self.select(positive, upper, zero)
            }
            "fdim" => {
                let y = xs[1];
                let greater = self.cmp(CmpPred::Gt, x, y);
                let diff = self.bin(BinaryOp::Sub, x, y);
                let (nx, ny) = (self.is_nan(x), self.is_nan(y));
                let nan = self.or(nx, ny);
                let sum = self.bin(BinaryOp::Add, x, y);
                let zero = self.float(ret, 0.0);
                let other = self.select(nan, sum, zero);
                self.select(greater, diff, other)
            }
            "remainder" => self.remainder(x, xs[1]),
            "pow" if types[1] == I32 => {
                // x^n for an integer n: fp64 `pow` of the exact fp64 `n` (fp32 results are
                // rounded once more from fp64).
                let n = self.convert(xs[1], F64);
                let wide = self.convert(x, F64);
                let p = self.bin(BinaryOp::Pow, wide, n);
                self.convert(p, ret)
            }
            "pow" => self.bin(BinaryOp::Pow, x, xs[1]),
            "rcbrt" => self.through_f64(&[x], ret, |ew, v| {
                let c = ew.math(MathFn::Cbrt, v[0]);
                ew.reciprocal(c)
            }),
            "rhypot" => self.through_f64(&[x, xs[1]], ret, |ew, v| {
                let h = ew.bin(BinaryOp::Hypot, v[0], v[1]);
                ew.reciprocal(h)
            }),
            "norm3d" | "norm4d" => self.norm(xs, ret),
            "rnorm3d" | "rnorm4d" => self.through_f64(xs, ret, |ew, v| {
                let n = ew.norm(v, ew.scalar(v[0]));
                ew.reciprocal(n)
            }),
            "normcdf" => self.normcdf(x),
            "erfinv" => self.in_f64(x, Self::erfinv),
            "erfcinv" => self.in_f64(x, Self::erfcinv),
            "normcdfinv" => self.in_f64(x, Self::normcdfinv),
            "erfcx" => self.in_f64(x, Self::erfcx),
            "cyl_bessel_i0" => self.in_f64(x, |ew, v| ew.bessel_i(v, 0)),
            "cyl_bessel_i1" => self.in_f64(x, |ew, v| ew.bessel_i(v, 1)),
            "jn" => self.in_f64(xs[1], |ew, v| ew.bessel_jn(x, v)),
            "yn" => self.in_f64(xs[1], |ew, v| ew.bessel_yn(x, v)),
            "rsqrt_rn" => self.rsqrt_rn(x),
            other => unreachable!("`{other}` is listed as composed but has no composition"),
        }
    }

    /// `1 / x`.
    fn reciprocal(&mut self, x: Value) -> Value {
        let one = self.float(self.scalar(x), 1.0);
        self.bin(BinaryOp::Div, one, x)
    }

    /// `body` evaluated in fp64 when `ret` is fp32 (one rounding at the end), as is for fp64.
    fn through_f64(&mut self, xs: &[Value], ret: ScalarType, body: impl FnOnce(&mut Self, &[Value]) -> Value) -> Value {
        if ret == F64 {
            return body(self, xs);
        }
        let wide: Vec<Value> = xs.iter().map(|&x| self.convert(x, F64)).collect();
        let v = body(self, &wide);
        self.convert(v, ret)
    }

    /// `__byte_perm(x, y, s)`: byte k of the result is byte `(s >> 4k) & 7` of the eight
    /// bytes of `y:x` (`x` the low four).
    fn byte_perm(&mut self, x: Value, y: Value, s: Value) -> Value {
        let [x, y, s] = [x, y, s].map(|v| {
            let u = self.reinterpret(v, U32);
            self.convert(u, U64)
        });
        let high = self.bin_k(BinaryOp::Shl, y, 32);
        let both = self.or(high, x);
        let mut out = self.int(U64, 0);
        for k in 0..4u64 {
            let sel = self.bin_k(BinaryOp::Shr, s, 4 * k);
            let sel = self.bin_k(BinaryOp::And, sel, 7);
            let shift = self.bin_k(BinaryOp::Mul, sel, 8);
            let byte = self.bin(BinaryOp::Shr, both, shift);
            let byte = self.bin_k(BinaryOp::And, byte, 0xff);
            let byte = self.bin_k(BinaryOp::Shl, byte, 8 * k);
            out = self.or(out, byte);
        }
        let low = self.convert(out, U32);
        self.reinterpret(low, I32)
    }

    /// C's `nextafter(x, y)`: the next float after `x` toward `y` (bit exact).
    fn nextafter(&mut self, x: Value, y: Value) -> Value {
        let f = Format::of(self.scalar(x));
        let (nx, ny) = (self.is_nan(x), self.is_nan(y));
        let nan = self.or(nx, ny);
        let sum = self.bin(BinaryOp::Add, x, y);
        let equal = self.cmp(CmpPred::Eq, x, y);
        let zero = self.cmp_f(CmpPred::Eq, x, 0.0);
        // From zero: the smallest subnormal with the sign of `y`.
        let by = self.bits_of(y);
        let sign = self.bin_k(BinaryOp::And, by, f.sign_bit());
        let tiny = self.bin_k(BinaryOp::Or, sign, 1);
        let tiny = self.reinterpret(tiny, f.float);
        // Away from zero (bits + 1) when `y` lies beyond `x` on `x`'s side of zero.
        let positive = self.cmp_f(CmpPred::Gt, x, 0.0);
        let (up, down) = (self.cmp(CmpPred::Gt, y, x), self.cmp(CmpPred::Lt, y, x));
        let away = self.select(positive, up, down);
        let (outward, inward) = (self.step(x, 1), self.step(x, -1));
        let next = self.select(away, outward, inward);
        let next = self.select(zero, tiny, next);
        let next = self.select(equal, y, next);
        self.select(nan, sum, next)
    }

    /// IEEE `remainder(x, y)`: x − n·y with n the integer nearest x/y (ties to even), exact
    /// (glibc's generic algorithm: `fmod` by 2|y|, then at most two exact subtractions).
    fn remainder(&mut self, x: Value, y: Value) -> Value {
        let f = Format::of(self.scalar(x));
        let p = self.abs(y);
        let twice = self.bin(BinaryOp::Add, p, p);
        // fmod(x, inf) = x covers the |y| whose double overflows.
        let r = self.bin(BinaryOp::Rem, x, twice);
        let a = self.abs(r);
        // Compare `a` with p/2 (as a+a with p when p/2 would lose bits).
        let tiny = self.cmp_f(CmpPred::Lt, p, 2.0 * f.min_normal());
        let half = self.bin_f(BinaryOp::Mul, p, 0.5);
        let twice_a = self.bin(BinaryOp::Add, a, a);
        let (lhs, rhs) = (self.select(tiny, twice_a, a), self.select(tiny, p, half));
        let over = self.cmp(CmpPred::Gt, lhs, rhs);
        let a1 = self.bin(BinaryOp::Sub, a, p);
        let a = self.select(over, a1, a);
        let twice_a = self.bin(BinaryOp::Add, a, a);
        let lhs = self.select(tiny, twice_a, a);
        let still = self.cmp(CmpPred::Ge, lhs, rhs);
        let still = self.and(over, still);
        let a2 = self.bin(BinaryOp::Sub, a, p);
        let a = self.select(still, a2, a);
        // The sign of `x` applied to the reduced value (flipping it when negative).
        let bx = self.bits_of(x);
        let sign = self.bin_k(BinaryOp::And, bx, f.sign_bit());
        let ba = self.bits_of(a);
        let b = self.bin(BinaryOp::Xor, ba, sign);
        self.reinterpret(b, f.float)
    }

    /// √(Σ xᵢ²) over 3 or 4 arguments: in fp64 for fp32 (one rounding); for fp64 with the
    /// arguments scaled by a power of two so the squares neither overflow nor vanish. An
    /// infinite argument gives +inf even beside a NaN, as `hypot` does.
    fn norm(&mut self, xs: &[Value], ret: ScalarType) -> Value {
        let mut inf = self.bool(false);
        for &x in xs {
            let i = self.is_inf(x);
            inf = self.or(inf, i);
        }
        let v = if ret == F64 {
            let mut m = self.float(F64, 0.0);
            for &x in xs {
                let a = self.abs(x);
                m = self.bin(BinaryOp::Max, m, a);
            }
            let big = self.cmp_f(CmpPred::Gt, m, 2f64.powi(500));
            let small = self.cmp_f(CmpPred::Lt, m, 2f64.powi(-500));
            let [down, up, one] = [2f64.powi(-600), 2f64.powi(600), 1.0].map(|k| self.float(F64, k));
            let scale = self.select(small, up, one);
            let scale = self.select(big, down, scale);
            let unscale = self.select(small, down, one);
            let unscale = self.select(big, up, unscale);
            let mut sum = self.float(F64, 0.0);
            for &x in xs {
                let s = self.bin(BinaryOp::Mul, x, scale);
                sum = self.fma(s, s, sum);
            }
            let r = self.math(MathFn::Sqrt, sum);
            self.bin(BinaryOp::Mul, r, unscale)
        } else {
            let mut sum = self.float(F64, 0.0);
            for &x in xs {
                let w = self.convert(x, F64);
                let sq = self.bin(BinaryOp::Mul, w, w);
                sum = self.bin(BinaryOp::Add, sum, sq);
            }
            let r = self.math(MathFn::Sqrt, sum);
            self.convert(r, ret)
        };
        let plus_inf = self.float(ret, f64::INFINITY);
        self.select(inf, plus_inf, v)
    }

    /// Φ(x) = erfc(−x/√2)/2: in fp64 for fp32; for fp64 with −x/√2 carried in two doubles
    /// and the low part applied through erfc' (the plain product's rounding, amplified by
    /// erfc's slope, would cost up to hundreds of ULP in the tail).
    fn normcdf(&mut self, x: Value) -> Value {
        const SQRT1_2_HI: f64 = std::f64::consts::FRAC_1_SQRT_2;
        const SQRT1_2_LO: f64 = -4.833_646_656_726_457e-17; // 1/√2 − SQRT1_2_HI, rounded
        let s = self.scalar(x);
        if s != F64 {
            let w = self.convert(x, F64);
            let z = self.bin_f(BinaryOp::Mul, w, -SQRT1_2_HI);
            let e = self.math(MathFn::Erfc, z);
            let h = self.bin_f(BinaryOp::Mul, e, 0.5);
            return self.convert(h, s);
        }
        let nx = self.neg(x);
        let hi = self.bin_f(BinaryOp::Mul, nx, SQRT1_2_HI);
        let k = self.float(F64, SQRT1_2_HI);
        let nhi = self.neg(hi);
        let lo = self.fma(nx, k, nhi);
        let lo2 = self.bin_f(BinaryOp::Mul, nx, SQRT1_2_LO);
        let lo = self.bin(BinaryOp::Add, lo, lo2);
        // (At x = ±inf the low part is inf − inf: none there.)
        let finite = self.is_finite(hi);
        let zero = self.float(F64, 0.0);
        let lo = self.select(finite, lo, zero);
        // erfc(hi + lo) ≈ erfc(hi) − lo·(2/√π)·exp(−hi²)
        let e = self.math(MathFn::Erfc, hi);
        let sq = self.bin(BinaryOp::Mul, hi, hi);
        let nsq = self.neg(sq);
        let g = self.math(MathFn::Exp, nsq);
        let g = self.bin_f(BinaryOp::Mul, g, -std::f64::consts::FRAC_2_SQRT_PI);
        let corrected = self.fma(lo, g, e);
        // Beyond erfc's range the correction's exp underflows to 0 and changes nothing.
        self.bin_f(BinaryOp::Mul, corrected, 0.5)
    }

    /// fp32 1/√x correctly rounded: 1/√x in fp64 rounded to fp32, then moved to the other
    /// neighbour when the exact value lies beyond the midpoint (decided exactly: 1/√x > m
    /// ⟺ x·m² < 1, and fma(x, m², −1) is exact in sign).
    fn rsqrt_rn(&mut self, x: Value) -> Value {
        let w = self.convert(x, F64);
        let root = self.math(MathFn::Sqrt, w);
        let r64 = self.reciprocal(root);
        let r = self.convert(r64, F32);
        let finite = self.is_finite(r);
        let positive = self.cmp_f(CmpPred::Gt, r, 0.0);
        let ordinary = self.and(finite, positive);
        let (up, down) = (self.step(r, 1), self.step(r, -1));
        let rw = self.convert(r, F64);
        let mut result = r;
        for (neighbour, beyond_pred) in [(up, CmpPred::Lt), (down, CmpPred::Gt)] {
            // The midpoint between r and its neighbour is exact in fp64 (25 bits).
            let nw = self.convert(neighbour, F64);
            let sum = self.bin(BinaryOp::Add, rw, nw);
            let m = self.bin_f(BinaryOp::Mul, sum, 0.5);
            let m2 = self.bin(BinaryOp::Mul, m, m);
            let minus_one = self.float(F64, -1.0);
            let d = self.fma(w, m2, minus_one);
            // Up: 1/√x > m ⟺ x·m² < 1; down: 1/√x < m ⟺ x·m² > 1.
            let beyond = self.cmp_f(beyond_pred, d, 0.0);
            let take = self.and(beyond, ordinary);
            result = self.select(take, neighbour, result);
        }
        result
    }
}
