//! Elementwise building blocks for the functions the front end composes from IR ops (the
//! bit-level float functions, the integer functions and the directed roundings of
//! `libdevice`): every op here is exact, so the compositions are exact wherever they say so.

use crate::lower::Lowerer;
use tilec_diagnostics::Span;
use tilec_ir::{BinaryOp, CastOp, CmpPred, Constant, Elem, MathFn, OpKind, ScalarType, Type, UnaryOp, Value};

/// Emits elementwise ops over values of one shape at one span.
pub(super) struct Ew<'l, 'a> {
    pub l: &'l mut Lowerer<'a>,
    pub shape: Vec<u32>,
    pub span: Span,
}

/// The float format facts the bit-level compositions need.
#[derive(Clone, Copy)]
pub(super) struct Format {
    /// The float type (fp32 or fp64).
    pub float: ScalarType,
    /// The unsigned integer type of the same width.
    pub bits: ScalarType,
    pub width: u32,
    /// Explicit significand bits (23, 52).
    pub mantissa: u32,
    /// Exponent bias (127, 1023).
    pub bias: i64,
}

impl Format {
    pub fn of(float: ScalarType) -> Format {
        if float == ScalarType::F64 {
            Format { float, bits: ScalarType::U64, width: 64, mantissa: 52, bias: 1023 }
        } else {
            Format { float: ScalarType::F32, bits: ScalarType::U32, width: 32, mantissa: 23, bias: 127 }
        }
    }

    /// The exponent field's mask once shifted down (0xff, 0x7ff).
    pub fn exponent_mask(self) -> i64 {
        (1 << (self.width - 1 - self.mantissa)) - 1
    }

    pub fn sign_bit(self) -> u64 {
        1u64 << (self.width - 1)
    }

    pub fn min_normal(self) -> f64 {
        if self.width == 64 {
            f64::MIN_POSITIVE
        } else {
            f32::MIN_POSITIVE as f64
        }
    }
}

/// The same-width unsigned integer type of an integer type.
pub(super) fn unsigned_of(s: ScalarType) -> ScalarType {
    match s.bits() {
        8 => ScalarType::U8,
        16 => ScalarType::U16,
        32 => ScalarType::U32,
        _ => ScalarType::U64,
    }
}

impl Ew<'_, '_> {
    pub fn ty(&self, s: ScalarType) -> Type {
        Type::tensor(Elem::Scalar(s), self.shape.clone())
    }

    fn emit(&mut self, kind: OpKind, s: ScalarType) -> Value {
        let ty = self.ty(s);
        self.l.emit(kind, ty, self.span)
    }

    pub fn scalar(&self, v: Value) -> ScalarType {
        self.l.ty(v).scalar_type().expect("compositions work on numbers")
    }

    pub fn float(&mut self, s: ScalarType, x: f64) -> Value {
        self.emit(OpKind::Constant(Constant::Float(x)), s)
    }

    /// An integer constant of type `s` from its low `s.bits()` bits.
    pub fn int(&mut self, s: ScalarType, bits: u64) -> Value {
        let shift = 64 - s.bits();
        let value = ((bits << shift) as i64) >> shift;
        self.emit(OpKind::Constant(Constant::Int(value)), s)
    }

    pub fn bool(&mut self, b: bool) -> Value {
        self.emit(OpKind::Constant(Constant::Bool(b)), ScalarType::I1)
    }

    pub fn bin(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        let s = self.scalar(a);
        self.emit(OpKind::Binary { op, lhs: a, rhs: b }, s)
    }

    /// `op` with an integer constant on the right.
    pub fn bin_k(&mut self, op: BinaryOp, a: Value, k: u64) -> Value {
        let s = self.scalar(a);
        let k = self.int(s, k);
        self.bin(op, a, k)
    }

    /// `op` with a float constant on the right.
    pub fn bin_f(&mut self, op: BinaryOp, a: Value, k: f64) -> Value {
        let s = self.scalar(a);
        let k = self.float(s, k);
        self.bin(op, a, k)
    }

    pub fn cmp(&mut self, pred: CmpPred, a: Value, b: Value) -> Value {
        self.emit(OpKind::Cmp { pred, lhs: a, rhs: b }, ScalarType::I1)
    }

    pub fn cmp_f(&mut self, pred: CmpPred, a: Value, k: f64) -> Value {
        let s = self.scalar(a);
        let k = self.float(s, k);
        self.cmp(pred, a, k)
    }

    pub fn cmp_k(&mut self, pred: CmpPred, a: Value, k: u64) -> Value {
        let s = self.scalar(a);
        let k = self.int(s, k);
        self.cmp(pred, a, k)
    }

    pub fn select(&mut self, cond: Value, on_true: Value, on_false: Value) -> Value {
        let s = self.scalar(on_true);
        self.emit(OpKind::Select { cond, on_true, on_false }, s)
    }

    pub fn and(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinaryOp::And, a, b)
    }

    pub fn or(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinaryOp::Or, a, b)
    }

    pub fn not(&mut self, a: Value) -> Value {
        let s = self.scalar(a);
        self.emit(OpKind::Unary { op: UnaryOp::Not, value: a }, s)
    }

    pub fn neg(&mut self, a: Value) -> Value {
        let s = self.scalar(a);
        self.emit(OpKind::Unary { op: UnaryOp::Neg, value: a }, s)
    }

    pub fn abs(&mut self, a: Value) -> Value {
        let s = self.scalar(a);
        self.emit(OpKind::Unary { op: UnaryOp::Abs, value: a }, s)
    }

    pub fn math(&mut self, func: MathFn, a: Value) -> Value {
        let s = self.scalar(a);
        self.emit(OpKind::Math { func, value: a }, s)
    }

    pub fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        let s = self.scalar(a);
        self.emit(OpKind::Fma { a, b, c }, s)
    }

    /// A value conversion (Triton's `cast`: float → int truncates and saturates, int → float
    /// rounds to nearest even, integers wrap or extend by the source's signedness).
    pub fn convert(&mut self, v: Value, to: ScalarType) -> Value {
        let from = self.scalar(v);
        if from == to {
            return v;
        }
        let op = match (from.is_float(), to.is_float()) {
            (true, true) if to.bits() > from.bits() => CastOp::FloatExt,
            (true, true) => CastOp::FloatTrunc,
            (false, true) => CastOp::IntToFloat,
            (true, false) => CastOp::FloatToInt,
            (false, false) if to.bits() > from.bits() => CastOp::IntExt,
            (false, false) if to.bits() < from.bits() => CastOp::IntTrunc,
            (false, false) => CastOp::IntRetype,
        };
        self.emit(OpKind::Cast { op, value: v }, to)
    }

    /// The same bits as type `to` (of the same width).
    pub fn reinterpret(&mut self, v: Value, to: ScalarType) -> Value {
        let from = self.scalar(v);
        if from == to {
            return v;
        }
        let op = if from.is_int() && to.is_int() { CastOp::IntRetype } else { CastOp::Bitcast };
        self.emit(OpKind::Cast { op, value: v }, to)
    }

    /// An `i1` as 0 or 1 of integer type `to`.
    pub fn flag(&mut self, b: Value, to: ScalarType) -> Value {
        let (one, zero) = (self.int(to, 1), self.int(to, 0));
        self.select(b, one, zero)
    }

    // ----- floats by their bits -----

    pub fn bits_of(&mut self, x: Value) -> Value {
        let f = Format::of(self.scalar(x));
        self.reinterpret(x, f.bits)
    }

    pub fn is_nan(&mut self, x: Value) -> Value {
        self.cmp(CmpPred::Ne, x, x)
    }

    /// |x| == inf.
    pub fn is_inf(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        self.cmp_f(CmpPred::Eq, a, f64::INFINITY)
    }

    /// |x| < inf (false for NaN).
    pub fn is_finite(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        self.cmp_f(CmpPred::Lt, a, f64::INFINITY)
    }

    /// The sign bit of `x` as 0 or 1 of the same-width unsigned type.
    pub fn sign_bit(&mut self, x: Value) -> Value {
        let f = Format::of(self.scalar(x));
        let b = self.bits_of(x);
        self.bin_k(BinaryOp::Shr, b, (f.width - 1) as u64)
    }

    /// |x| with the sign of `y` (bit exact; NaN payloads kept).
    pub fn copysign(&mut self, x: Value, y: Value) -> Value {
        let f = Format::of(self.scalar(x));
        let (bx, by) = (self.bits_of(x), self.bits_of(y));
        let magnitude = self.bin_k(BinaryOp::And, bx, !f.sign_bit());
        let sign = self.bin_k(BinaryOp::And, by, f.sign_bit());
        let b = self.or(magnitude, sign);
        self.reinterpret(b, f.float)
    }

    /// The float whose bits are `b` plus `delta` (wrapping): one step away from zero for
    /// `delta = 1`, toward zero for `delta = -1` (from a nonzero, non-NaN `x`).
    pub fn step(&mut self, x: Value, delta: i64) -> Value {
        let f = Format::of(self.scalar(x));
        let b = self.bits_of(x);
        let b = self.bin_k(BinaryOp::Add, b, delta as u64);
        self.reinterpret(b, f.float)
    }

    /// `x` multiplied by 2^n for an `i32` `n` (C's `ldexp`/`scalbn`): exact, correctly
    /// rounded in the subnormal range (musl's algorithm, by selects).
    pub fn ldexp(&mut self, x: Value, n: Value) -> Value {
        let f = Format::of(self.scalar(x));
        let (high, low) = (f.bias, 1 - f.bias);
        // A down-scaling step that keeps the final step's exponent below -mantissa-1, so
        // only the last multiplication can round.
        let down = low + f.mantissa as i64 + 1;
        let mut y = x;
        let mut n = n;
        for (cond_pred, limit, factor, adjust) in [
            (CmpPred::Gt, high, 2f64.powi(high as i32), -high),
            (CmpPred::Gt, high, 2f64.powi(high as i32), -high),
            (CmpPred::Lt, low, 2f64.powi(down as i32), -down),
            (CmpPred::Lt, low, 2f64.powi(down as i32), -down),
        ] {
            let c = self.cmp_k(cond_pred, n, limit as u64);
            let scaled = self.bin_f(BinaryOp::Mul, y, factor);
            y = self.select(c, scaled, y);
            let moved = self.bin_k(BinaryOp::Add, n, adjust as u64);
            n = self.select(c, moved, n);
        }
        let hi = self.int(ScalarType::I32, high as u64);
        let lo = self.int(ScalarType::I32, low as u64);
        let n = self.bin(BinaryOp::Min, n, hi);
        let n = self.bin(BinaryOp::Max, n, lo);
        let e = self.bin_k(BinaryOp::Add, n, f.bias as u64);
        let e = self.convert(e, f.bits);
        let e = self.bin_k(BinaryOp::Shl, e, f.mantissa as u64);
        let scale = self.reinterpret(e, f.float);
        self.bin(BinaryOp::Mul, y, scale)
    }

    /// The unbiased exponent of a finite nonzero `x` as an `i32` (subnormals included).
    pub fn exponent(&mut self, x: Value) -> Value {
        let f = Format::of(self.scalar(x));
        let a = self.abs(x);
        let sub = self.cmp_f(CmpPred::Lt, a, f.min_normal());
        let shift = (f.mantissa + 2) as i32;
        let scaled = self.bin_f(BinaryOp::Mul, x, 2f64.powi(shift));
        let y = self.select(sub, scaled, x);
        let b = self.bits_of(y);
        let e = self.bin_k(BinaryOp::Shr, b, f.mantissa as u64);
        let e = self.bin_k(BinaryOp::And, e, f.exponent_mask() as u64);
        let e = self.convert(e, ScalarType::I32);
        let e = self.bin_k(BinaryOp::Sub, e, f.bias as u64);
        let adjust = self.int(ScalarType::I32, shift as u64);
        let zero = self.int(ScalarType::I32, 0);
        let adjust = self.select(sub, adjust, zero);
        self.bin(BinaryOp::Sub, e, adjust)
    }

    // ----- integers by their bits -----

    /// The number of set bits of an integer, as the same-width unsigned type.
    pub fn popcount(&mut self, v: Value) -> Value {
        let u = unsigned_of(self.scalar(v));
        let width = u.bits();
        let repeat = |byte: u64| (0..width / 8).fold(0u64, |acc, _| (acc << 8) | byte);
        let x = self.reinterpret(v, u);
        let halves = self.bin_k(BinaryOp::Shr, x, 1);
        let halves = self.bin_k(BinaryOp::And, halves, repeat(0x55));
        let x = self.bin(BinaryOp::Sub, x, halves);
        let low = self.bin_k(BinaryOp::And, x, repeat(0x33));
        let high = self.bin_k(BinaryOp::Shr, x, 2);
        let high = self.bin_k(BinaryOp::And, high, repeat(0x33));
        let x = self.bin(BinaryOp::Add, low, high);
        let shifted = self.bin_k(BinaryOp::Shr, x, 4);
        let x = self.bin(BinaryOp::Add, x, shifted);
        let x = self.bin_k(BinaryOp::And, x, repeat(0x0f));
        let x = self.bin_k(BinaryOp::Mul, x, repeat(0x01));
        self.bin_k(BinaryOp::Shr, x, (width - 8) as u64)
    }

    /// The number of leading zero bits of an integer (its width for 0), as the same-width
    /// unsigned type.
    pub fn leading_zeros(&mut self, v: Value) -> Value {
        let u = unsigned_of(self.scalar(v));
        let mut x = self.reinterpret(v, u);
        let mut k = 1;
        while k < u.bits() {
            let s = self.bin_k(BinaryOp::Shr, x, k as u64);
            x = self.or(x, s);
            k *= 2;
        }
        let ones = self.popcount(x);
        let width = self.int(u, u.bits() as u64);
        self.bin(BinaryOp::Sub, width, ones)
    }

    /// The bits of an integer in reverse order.
    pub fn bit_reverse(&mut self, v: Value) -> Value {
        let s = self.scalar(v);
        let u = unsigned_of(s);
        let width = u.bits();
        let mut x = self.reinterpret(v, u);
        let mut k = 1;
        while k < width {
            // Swap adjacent k-bit groups: mask selects the low group of each pair.
            let pattern = (0..width).filter(|b| (b / k) % 2 == 0).fold(0u64, |m, b| m | (1 << b));
            let low = self.bin_k(BinaryOp::And, x, pattern);
            let low = self.bin_k(BinaryOp::Shl, low, k as u64);
            let high = self.bin_k(BinaryOp::Shr, x, k as u64);
            let high = self.bin_k(BinaryOp::And, high, pattern);
            x = self.or(low, high);
            k *= 2;
        }
        self.reinterpret(x, s)
    }
}
