//! Typed operations with Triton's semantics (`semantic.py`): conversion of Python numbers,
//! casts, broadcasting, arithmetic, comparisons and logic.

use crate::errors::{self, err, err_label, Result};
use crate::lower::Lowerer;
use crate::promote;
use crate::value::Val;
use tilec_diagnostics::Span;
use tilec_ir::{BinaryOp, CastOp, CmpPred, Constant, Elem, OpKind, ScalarType, Type, UnaryOp, Value};
use tilec_syntax::ast::{BinOp, BoolOp, CmpOp};

/// `fp32`, `tensor<128x64xfp16>`, `ptr<fp32>` for messages.
pub fn type_name(t: &Type) -> String {
    let elem = match t.elem {
        Elem::Scalar(s) => s.name().to_string(),
        Elem::Ptr(s) => format!("ptr<{}>", s.name()),
    };
    if t.shape.is_empty() {
        elem
    } else {
        let dims: Vec<String> = t.shape.iter().map(|d| d.to_string()).collect();
        format!("tensor<{}x{elem}>", dims.join("x"))
    }
}

/// One operand of a typed op: a runtime value, or a Python number with its literal type.
struct Operand {
    value: Option<Value>,
    literal: Option<Val>,
    elem: Elem,
}

impl Operand {
    fn scalar(&self) -> Option<ScalarType> {
        self.elem.scalar()
    }
}

impl Lowerer<'_> {
    /// A constant of type `ty` (a splat when `ty` is a tensor type).
    pub fn constant(&mut self, ty: Type, v: &Val, span: Span) -> Result<Value> {
        let Elem::Scalar(s) = ty.elem else {
            return Err(err(errors::TYPE_ERROR, span, "pointer constants are not supported"));
        };
        if let Some(format) = s.fp8_format() {
            // An fp8 constant is its pattern, made as a `u8` constant and reinterpreted.
            let x = match v {
                Val::Int(i) => *i as f64,
                Val::Bool(b) => f64::from(u8::from(*b)),
                Val::Float(x) => *x,
                other => {
                    return Err(err(errors::TYPE_ERROR, span, format!("expected a number, got {}", other.describe())))
                }
            };
            let bits = Constant::Int(i64::from(format.encode(x)));
            let pattern = self.emit(OpKind::Constant(bits), ty.with_elem(Elem::Scalar(ScalarType::U8)), span);
            return Ok(self.emit(OpKind::Cast { op: CastOp::Bitcast, value: pattern }, ty, span));
        }
        let c = match (v, s) {
            (_, ScalarType::I1) => Constant::Bool(self.const_truth(v).unwrap_or(false)),
            (Val::Int(i), s) if s.is_float() => Constant::Float(*i as f64),
            (Val::Bool(b), s) if s.is_float() => Constant::Float(*b as i32 as f64),
            (Val::Float(x), s) if s.is_float() => Constant::Float(*x),
            (Val::Int(i), _) => Constant::Int(*i as i64),
            (Val::Bool(b), _) => Constant::Int(*b as i64),
            (Val::Float(x), _) => Constant::Int(*x as i64),
            (other, _) => {
                return Err(err(errors::TYPE_ERROR, span, format!("expected a number, got {}", other.describe())))
            }
        };
        Ok(self.emit(OpKind::Constant(c), ty, span))
    }

    /// The type a Python number would take as a tensor.
    fn literal_type(&self, v: &Val, span: Span) -> Result<ScalarType> {
        match v {
            Val::Int(i) => promote::literal_int_type(*i)
                .ok_or_else(|| err(errors::VALUE, span, format!("integer {i} does not fit in 64 bits"))),
            Val::Float(x) => Ok(promote::literal_float_type(*x)),
            Val::Bool(_) => Ok(ScalarType::I1),
            other => {
                Err(err(errors::TYPE_ERROR, span, format!("expected a tensor or a number, got {}", other.describe())))
            }
        }
    }

    /// `tl.to_tensor`: numbers become scalar constants; runtime values are returned as is.
    pub fn tensor_value(&mut self, v: &Val, span: Span) -> Result<Value> {
        match v {
            Val::T(x) => Ok(*x),
            v if v.is_number() => {
                let t = self.literal_type(v, span)?;
                self.constant(Type::scalar(t), v, span)
            }
            other => Err(err_label(
                errors::TYPE_ERROR,
                span,
                format!("expected a tensor or a number, got {}", other.describe()),
                "not a value",
            )),
        }
    }

    fn operand(&mut self, v: &Val, span: Span) -> Result<Operand> {
        match v {
            Val::T(x) => Ok(Operand { value: Some(*x), literal: None, elem: self.ty(*x).elem }),
            v if v.is_number() => {
                let t = self.literal_type(v, span)?;
                Ok(Operand { value: None, literal: Some(v.clone()), elem: Elem::Scalar(t) })
            }
            other => {
                Err(err(errors::TYPE_ERROR, span, format!("expected a tensor or a number, got {}", other.describe())))
            }
        }
    }

    /// Materializes an operand as type `s` (literals become constants of `s`, values are cast).
    fn operand_as(&mut self, o: &Operand, s: ScalarType, span: Span) -> Result<Value> {
        match (&o.value, &o.literal) {
            (Some(v), _) => self.cast(*v, s, span),
            (None, Some(lit)) => self.constant(Type::scalar(s), lit, span),
            _ => Err(err(errors::INTERNAL, span, "empty operand")),
        }
    }

    fn operand_value(&mut self, o: &Operand, span: Span) -> Result<Value> {
        match (&o.value, &o.literal) {
            (Some(v), _) => Ok(*v),
            (None, Some(lit)) => self.tensor_value(lit, span),
            _ => Err(err(errors::INTERNAL, span, "empty operand")),
        }
    }

    /// Checks that a literal fits the type it is converted to (`semantic.py` range checks).
    fn check_literal(&self, o: &Operand, ret: ScalarType, span: Span) -> Result<()> {
        if let Some(Val::Int(i)) = &o.literal {
            if ret.is_int() && !ret.is_bool() {
                let (lo, hi) = promote::int_range(ret);
                if *i < 0 && ret.is_unsigned_int() {
                    return Err(err(
                        errors::TYPE_ERROR,
                        span,
                        format!(
                            "cannot combine an unsigned {} tensor with the negative number {i}; cast the tensor first",
                            ret.name()
                        ),
                    ));
                }
                if *i < lo || *i > hi {
                    return Err(err(errors::VALUE, span, format!("the number {i} is out of range for {}", ret.name())));
                }
            }
        }
        Ok(())
    }

    /// Element conversion with Triton's `cast` rules; the shape is kept.
    pub fn cast(&mut self, v: Value, to: ScalarType, span: Span) -> Result<Value> {
        self.cast_elem(v, Elem::Scalar(to), span)
    }

    pub fn cast_elem(&mut self, v: Value, to: Elem, span: Span) -> Result<Value> {
        let ty = self.ty(v).clone();
        if ty.elem == to {
            return Ok(v);
        }
        let out = ty.with_elem(to);
        let op = match (ty.elem, to) {
            (Elem::Ptr(_), Elem::Ptr(_)) => CastOp::PtrCast,
            (Elem::Ptr(_), Elem::Scalar(ScalarType::I64)) => CastOp::PtrToInt,
            (Elem::Ptr(_), Elem::Scalar(ScalarType::I1)) => {
                let i = self.cast(v, ScalarType::I64, span)?;
                return self.cast(i, ScalarType::I1, span);
            }
            (Elem::Ptr(_), Elem::Scalar(s)) => {
                return Err(err(
                    errors::TYPE_ERROR,
                    span,
                    format!("a pointer can only be cast to int64, not {}", s.name()),
                ))
            }
            (Elem::Scalar(s), Elem::Ptr(_)) => {
                if !s.is_int() {
                    return Err(err(errors::TYPE_ERROR, span, format!("cannot cast {} to a pointer", s.name())));
                }
                let i = self.cast(v, ScalarType::I64, span)?;
                return Ok(self.emit(OpKind::Cast { op: CastOp::IntToPtr, value: i }, out, span));
            }
            (Elem::Scalar(from), Elem::Scalar(to_s)) if from.is_fp8() || to_s.is_fp8() => {
                return self.convert_fp8(v, from, to_s, span);
            }
            (Elem::Scalar(from), Elem::Scalar(to_s)) => {
                if to_s == ScalarType::I1 {
                    let zero = self.constant(ty.clone(), &Val::Int(0), span)?;
                    return Ok(self.emit(OpKind::Cmp { pred: CmpPred::Ne, lhs: v, rhs: zero }, out, span));
                }
                match (from.is_float(), to_s.is_float()) {
                    (true, true) => {
                        if from.bits() == to_s.bits() {
                            // fp16 <-> bf16 goes through fp32.
                            let wide = self.cast(v, ScalarType::F32, span)?;
                            return self.cast(wide, to_s, span);
                        }
                        if to_s.bits() > from.bits() {
                            CastOp::FloatExt
                        } else {
                            CastOp::FloatTrunc
                        }
                    }
                    (false, true) => CastOp::IntToFloat,
                    (true, false) => CastOp::FloatToInt,
                    (false, false) => {
                        if to_s.bits() > from.bits() {
                            CastOp::IntExt
                        } else if to_s.bits() < from.bits() {
                            CastOp::IntTrunc
                        } else {
                            CastOp::IntRetype
                        }
                    }
                }
            }
        };
        Ok(self.emit(OpKind::Cast { op, value: v }, out, span))
    }

    /// `x.to(dtype, bitcast=True)`: same bit width required.
    pub fn bitcast(&mut self, v: Value, to: Elem, span: Span) -> Result<Value> {
        let ty = self.ty(v).clone();
        if ty.elem == to {
            return Ok(v);
        }
        let bits = |e: Elem| match e {
            Elem::Scalar(s) => s.bits(),
            Elem::Ptr(_) => 64,
        };
        if bits(ty.elem) != bits(to) {
            return Err(err(
                errors::TYPE_ERROR,
                span,
                format!("cannot bitcast {} to a type of another width", type_name(&ty)),
            ));
        }
        let op = match (ty.elem, to) {
            (Elem::Ptr(_), Elem::Ptr(_)) => CastOp::PtrCast,
            (Elem::Ptr(_), _) => CastOp::PtrToInt,
            (_, Elem::Ptr(_)) => CastOp::IntToPtr,
            (Elem::Scalar(a), Elem::Scalar(b)) if a.is_int() && b.is_int() => CastOp::IntRetype,
            _ => CastOp::Bitcast,
        };
        Ok(self.emit(OpKind::Cast { op, value: v }, ty.with_elem(to), span))
    }

    pub fn expand_dims(&mut self, v: Value, axis: u32, span: Span) -> Result<Value> {
        let ty = self.ty(v).clone();
        if ty.shape.is_empty() {
            return Ok(self.emit(OpKind::Splat(v), ty.with_shape(vec![1]), span));
        }
        if axis as usize > ty.shape.len() {
            return Err(err(
                errors::SHAPE,
                span,
                format!("axis {axis} is out of range for a tensor of rank {}", ty.shape.len()),
            ));
        }
        let mut shape = ty.shape.clone();
        shape.insert(axis as usize, 1);
        Ok(self.emit(OpKind::ExpandDims { value: v, axis }, ty.with_shape(shape), span))
    }

    /// Broadcasts `v` to `shape` (a scalar is splatted; missing leading dims are added).
    /// `code` is the diagnostic code to report when the shapes are incompatible.
    pub fn broadcast_to(
        &mut self,
        v: Value,
        shape: &[u32],
        code: tilec_diagnostics::Code,
        span: Span,
    ) -> Result<Value> {
        let ty = self.ty(v).clone();
        if ty.shape == shape {
            return Ok(v);
        }
        if ty.shape.is_empty() {
            return Ok(self.emit(OpKind::Splat(v), ty.with_shape(shape.to_vec()), span));
        }
        let incompatible = || {
            err_label(
                code,
                span,
                format!("cannot broadcast shape {:?} to shape {:?}", ty.shape, shape),
                format!("this has shape {:?}", ty.shape),
            )
        };
        if ty.shape.len() > shape.len() {
            return Err(incompatible());
        }
        let mut cur = v;
        while self.ty(cur).shape.len() < shape.len() {
            cur = self.expand_dims(cur, 0, span)?;
        }
        let cur_shape = self.ty(cur).shape.clone();
        for (a, b) in cur_shape.iter().zip(shape) {
            if a != b && *a != 1 {
                return Err(incompatible());
            }
        }
        if cur_shape == shape {
            return Ok(cur);
        }
        Ok(self.emit(OpKind::Broadcast(cur), ty.with_shape(shape.to_vec()), span))
    }

    /// The broadcast shape of two shapes (numpy rules), or `None`.
    pub fn broadcast_shape(a: &[u32], b: &[u32]) -> Option<Vec<u32>> {
        let n = a.len().max(b.len());
        let mut out = vec![0; n];
        for i in 0..n {
            let x = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
            let y = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
            out[i] = if x == y || y == 1 {
                x
            } else if x == 1 {
                y
            } else {
                return None;
            };
        }
        Some(out)
    }

    pub fn broadcast_pair(&mut self, a: Value, b: Value, span: Span) -> Result<(Value, Value)> {
        let (sa, sb) = (self.ty(a).shape.clone(), self.ty(b).shape.clone());
        if sa == sb {
            return Ok((a, b));
        }
        let Some(shape) = Self::broadcast_shape(&sa, &sb) else {
            return Err(err_label(
                errors::BROADCAST,
                span,
                format!("incompatible shapes {sa:?} and {sb:?}"),
                format!("cannot broadcast {sa:?} with {sb:?}"),
            ));
        };
        let a = self.broadcast_to(a, &shape, errors::BROADCAST, span)?;
        let b = self.broadcast_to(b, &shape, errors::BROADCAST, span)?;
        Ok((a, b))
    }

    /// `binary_op_type_checking_impl` with arithmetic checking: both operands converted to
    /// the computation type and broadcast. Pointers are rejected here.
    pub(crate) fn arith_operands(
        &mut self,
        a: &Val,
        b: &Val,
        div_or_mod: bool,
        what: &str,
        span: Span,
    ) -> Result<(Value, Value, ScalarType)> {
        let oa = self.operand(a, span)?;
        let ob = self.operand(b, span)?;
        let (Some(sa), Some(sb)) = (oa.scalar(), ob.scalar()) else {
            return Err(err(errors::TYPE_ERROR, span, format!("`{what}` is not defined on pointers")));
        };
        let ret = promote::computation_type(sa, oa.literal.is_some(), sb, ob.literal.is_some(), div_or_mod)
            .map_err(|m| err(errors::TYPE_ERROR, span, m))?;
        self.check_literal(&oa, ret, span)?;
        self.check_literal(&ob, ret, span)?;
        let va = self.operand_as(&oa, ret, span)?;
        let vb = self.operand_as(&ob, ret, span)?;
        let (va, vb) = self.broadcast_pair(va, vb, span)?;
        Ok((va, vb, ret))
    }

    pub(crate) fn emit_binary(&mut self, op: BinaryOp, a: Value, b: Value, span: Span) -> Value {
        let ty = self.ty(a).clone();
        self.emit(OpKind::Binary { op, lhs: a, rhs: b }, ty, span)
    }

    /// `lhs op rhs` with Python semantics on constexprs and Triton's on tensors.
    pub fn binary(&mut self, op: BinOp, lhs: &Val, rhs: &Val, span: Span) -> Result<Val> {
        if let Some(r) = crate::constexpr::binary(op, lhs, rhs) {
            return r.map_err(|m| err(errors::VALUE, span, m));
        }
        if !matches!(lhs, Val::T(_)) && !matches!(rhs, Val::T(_)) {
            return Err(err(
                errors::TYPE_ERROR,
                span,
                format!("unsupported operand types for `{}`: {} and {}", op.symbol(), lhs.describe(), rhs.describe()),
            ));
        }
        if op == BinOp::MatMul {
            let (a, b) = (self.tensor_value(lhs, span)?, self.tensor_value(rhs, span)?);
            return Ok(Val::T(self.dot(a, b, None, None, None, span)?));
        }
        // Pointer arithmetic.
        let la = self.operand(lhs, span)?;
        let lb = self.operand(rhs, span)?;
        let a_ptr = matches!(la.elem, Elem::Ptr(_));
        let b_ptr = matches!(lb.elem, Elem::Ptr(_));
        if a_ptr || b_ptr {
            let (ptr_o, off_o, negate) = match (op, a_ptr, b_ptr) {
                (BinOp::Add, true, false) => (la, lb, false),
                (BinOp::Add, false, true) => (lb, la, false),
                (BinOp::Sub, true, false) => (la, lb, true),
                _ => {
                    return Err(err(errors::TYPE_ERROR, span, format!("`{}` is not defined on pointers", op.symbol())));
                }
            };
            if !off_o.scalar().is_some_and(|s| s.is_int()) {
                return Err(err(errors::TYPE_ERROR, span, "a pointer can only be offset by an integer"));
            }
            let ptr = self.operand_value(&ptr_o, span)?;
            let mut off = self.operand_value(&off_o, span)?;
            if negate {
                let ty = self.ty(off).clone();
                off = self.emit(OpKind::Unary { op: UnaryOp::Neg, value: off }, ty, span);
            }
            return Ok(Val::T(self.addptr(ptr, off, span)?));
        }
        let v = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => {
                let (a, b, _) = self.arith_operands(lhs, rhs, false, op.symbol(), span)?;
                let bop = match op {
                    BinOp::Add => BinaryOp::Add,
                    BinOp::Sub => BinaryOp::Sub,
                    _ => BinaryOp::Mul,
                };
                self.emit_binary(bop, a, b, span)
            }
            BinOp::Div => {
                let (mut a, mut b, ret) = self.arith_operands(lhs, rhs, true, "/", span)?;
                if ret.is_int() {
                    a = self.cast(a, ScalarType::F32, span)?;
                    b = self.cast(b, ScalarType::F32, span)?;
                }
                self.emit_binary(BinaryOp::Div, a, b, span)
            }
            BinOp::FloorDiv => {
                let (a, b, ret) = self.arith_operands(lhs, rhs, true, "//", span)?;
                if !ret.is_int() {
                    return Err(err(
                        errors::TYPE_ERROR,
                        span,
                        format!("`//` is only defined on integers in Triton, not {}", ret.name()),
                    ));
                }
                self.emit_binary(BinaryOp::Div, a, b, span)
            }
            BinOp::Mod => {
                // Floats: `frem`, C's `fmod` (the result has the dividend's sign), not Python's
                // floored modulo; integers: `srem`/`urem`, truncating like C.
                let (a, b, _) = self.arith_operands(lhs, rhs, true, "%", span)?;
                self.emit_binary(BinaryOp::Rem, a, b, span)
            }
            BinOp::Pow => {
                let (a, b, ret) = self.arith_operands(lhs, rhs, false, "**", span)?;
                if !ret.is_float() {
                    return Err(err(
                        errors::TYPE_ERROR,
                        span,
                        "`**` on integer tensors is not supported; use floats or `libdevice.pow`",
                    ));
                }
                self.emit_binary(BinaryOp::Pow, a, b, span)
            }
            BinOp::RShift => {
                // Arithmetic or logical by the signedness of the tensor operand whose
                // `__rshift__` (or, for `number >> tensor`, `__rrshift__`) runs, before
                // promotion: `x_i32 >> y_u32` shifts arithmetically on u32 bits.
                let receiver = if matches!(lhs, Val::T(_)) { lhs } else { rhs };
                let arithmetic = match receiver {
                    Val::T(v) => self.ty(*v).scalar_type().is_some_and(|s| s.is_signed_int()),
                    _ => false,
                };
                let (a, b) = self.bitwise_operands(lhs, rhs, op.symbol(), span)?;
                let s = self.ty(a).scalar_type().unwrap_or(ScalarType::I32);
                match promote::other_signedness(s) {
                    Some(t) if s.is_signed_int() != arithmetic => {
                        let (a, b) = (self.cast(a, t, span)?, self.cast(b, t, span)?);
                        let r = self.emit_binary(BinaryOp::Shr, a, b, span);
                        self.cast(r, s, span)?
                    }
                    _ => self.emit_binary(BinaryOp::Shr, a, b, span),
                }
            }
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::LShift => {
                let (a, b) = self.bitwise_operands(lhs, rhs, op.symbol(), span)?;
                let bop = match op {
                    BinOp::BitAnd => BinaryOp::And,
                    BinOp::BitOr => BinaryOp::Or,
                    BinOp::BitXor => BinaryOp::Xor,
                    _ => BinaryOp::Shl,
                };
                self.emit_binary(bop, a, b, span)
            }
            BinOp::MatMul => return Err(err(errors::INTERNAL, span, "matmul handled above")),
        };
        Ok(Val::T(v))
    }

    /// `bitwise_op_type_checking_impl`: integers only, with the arithmetic promotion of
    /// `binary_op_type_checking_impl`, so a Python number does not widen the tensor's type
    /// (`x_u8 << 5` stays `u8`) and must fit it (`x_u8 & 0x1FF` is an error).
    fn bitwise_operands(&mut self, a: &Val, b: &Val, what: &str, span: Span) -> Result<(Value, Value)> {
        let (oa, ob) = (self.operand(a, span)?, self.operand(b, span)?);
        let (Some(sa), Some(sb)) = (oa.scalar(), ob.scalar()) else {
            return Err(err(errors::TYPE_ERROR, span, format!("`{what}` is not defined on pointers")));
        };
        if !sa.is_int() || !sb.is_int() {
            return Err(err(
                errors::TYPE_ERROR,
                span,
                format!("`{what}` needs integer operands, got {} and {}", sa.name(), sb.name()),
            ));
        }
        let (va, vb, _) = self.arith_operands(a, b, false, what, span)?;
        Ok((va, vb))
    }

    pub fn addptr(&mut self, ptr: Value, off: Value, span: Span) -> Result<Value> {
        let (ptr, off) = self.broadcast_pair(ptr, off, span)?;
        let ty = self.ty(ptr).clone();
        Ok(self.emit(OpKind::AddPtr { ptr, offset: off }, ty, span))
    }

    pub fn unary(&mut self, op: tilec_syntax::ast::UnaryOp, v: &Val, span: Span) -> Result<Val> {
        use tilec_syntax::ast::UnaryOp as U;
        match (op, v) {
            (U::Not, v) if self.const_truth(v).is_some() && !matches!(v, Val::T(_)) => {
                return Ok(Val::Bool(!self.const_truth(v).unwrap_or(false)));
            }
            (U::Neg, Val::Int(i)) => return Ok(Val::Int(-i)),
            (U::Neg, Val::Float(x)) => return Ok(Val::Float(-x)),
            (U::Neg, Val::Bool(b)) => return Ok(Val::Int(-(*b as i128))),
            (U::Pos, v) if v.is_number() => return Ok(v.clone()),
            (U::Invert, Val::Int(i)) => return Ok(Val::Int(!i)),
            (U::Invert, Val::Bool(b)) => return Ok(Val::Int(!(*b as i128))),
            (_, Val::T(_)) => {}
            (_, other) => {
                return Err(err(
                    errors::TYPE_ERROR,
                    span,
                    format!("bad operand for a unary operator: {}", other.describe()),
                ))
            }
        }
        let Val::T(x) = v else { return Err(err(errors::INTERNAL, span, "unary operand")) };
        let x = *x;
        let ty = self.ty(x).clone();
        let Elem::Scalar(s) = ty.elem else {
            return Err(err(errors::TYPE_ERROR, span, "unary operators are not defined on pointers"));
        };
        if s.is_fp8() && op != U::Pos {
            return Err(err(
                errors::TYPE_ERROR,
                span,
                format!("{} has no arithmetic; convert it with `.to(tl.float32)` (or fp16, bf16) first", s.name()),
            ));
        }
        Ok(Val::T(match op {
            U::Pos => x,
            U::Neg => self.emit(OpKind::Unary { op: UnaryOp::Neg, value: x }, ty, span),
            U::Invert => {
                if !s.is_int() {
                    return Err(err(
                        errors::TYPE_ERROR,
                        span,
                        format!("`~` needs an integer operand, got {}", s.name()),
                    ));
                }
                self.emit(OpKind::Unary { op: UnaryOp::Not, value: x }, ty, span)
            }
            U::Not => {
                let b = self.cast(x, ScalarType::I1, span)?;
                let bty = self.ty(b).clone();
                self.emit(OpKind::Unary { op: UnaryOp::Not, value: b }, bty, span)
            }
        }))
    }

    pub fn compare(&mut self, op: CmpOp, lhs: &Val, rhs: &Val, span: Span) -> Result<Val> {
        if let Some(r) = crate::constexpr::compare(op, lhs, rhs) {
            return r.map(Val::Bool).map_err(|m| err(errors::TYPE_ERROR, span, m));
        }
        let pred = match op {
            CmpOp::Eq => CmpPred::Eq,
            CmpOp::NotEq => CmpPred::Ne,
            CmpOp::Lt => CmpPred::Lt,
            CmpOp::LtE => CmpPred::Le,
            CmpOp::Gt => CmpPred::Gt,
            CmpOp::GtE => CmpPred::Ge,
            CmpOp::Is | CmpOp::IsNot => {
                // A runtime value is never `None`.
                let none = matches!(lhs, Val::None) || matches!(rhs, Val::None);
                if none {
                    return Ok(Val::Bool(op == CmpOp::IsNot));
                }
                return Err(err(errors::UNSUPPORTED, span, "`is` is only supported with `None`"));
            }
            CmpOp::In | CmpOp::NotIn => {
                return Err(err(errors::UNSUPPORTED, span, "`in` is only supported on compile-time values"))
            }
        };
        if !(lhs.is_number() || matches!(lhs, Val::T(_))) || !(rhs.is_number() || matches!(rhs, Val::T(_))) {
            return Err(err(
                errors::TYPE_ERROR,
                span,
                format!("cannot compare {} and {}", lhs.describe(), rhs.describe()),
            ));
        }
        let la = self.operand(lhs, span)?;
        let lb = self.operand(rhs, span)?;
        let (a, b) = if matches!(la.elem, Elem::Ptr(_)) && la.elem == lb.elem {
            let (a, b) = (self.operand_value(&la, span)?, self.operand_value(&lb, span)?);
            self.broadcast_pair(a, b, span)?
        } else {
            let (a, b, _) = self.arith_operands(lhs, rhs, false, op.symbol(), span)?;
            (a, b)
        };
        let ty = self.ty(a).with_elem(Elem::Scalar(ScalarType::I1));
        Ok(Val::T(self.emit(OpKind::Cmp { pred, lhs: a, rhs: b }, ty, span)))
    }

    /// `a and b` / `a or b` on runtime values: both converted to `i1`.
    pub fn logical(&mut self, op: BoolOp, a: &Val, b: &Val, span: Span) -> Result<Val> {
        let va = self.tensor_value(a, span)?;
        let vb = self.tensor_value(b, span)?;
        let va = self.cast(va, ScalarType::I1, span)?;
        let vb = self.cast(vb, ScalarType::I1, span)?;
        let (va, vb) = self.broadcast_pair(va, vb, span)?;
        let bop = if op == BoolOp::And { BinaryOp::And } else { BinaryOp::Or };
        Ok(Val::T(self.emit_binary(bop, va, vb, span)))
    }

    /// Typed binary for builtins (`tl.maximum`, `tl.umulhi`, `tl.fdiv`, ...): arithmetic
    /// promotion, then `op`.
    pub fn arith(
        &mut self,
        op: BinaryOp,
        a: &Val,
        b: &Val,
        div: bool,
        what: &str,
        span: Span,
    ) -> Result<(Value, ScalarType)> {
        let (x, y, ret) = self.arith_operands(a, b, div, what, span)?;
        Ok((self.emit_binary(op, x, y, span), ret))
    }

    /// `tl.where(cond, x, y)`.
    pub fn select(&mut self, cond: &Val, x: &Val, y: &Val, span: Span) -> Result<Value> {
        let c = self.tensor_value(cond, span)?;
        let c = self.cast(c, ScalarType::I1, span)?;
        let ox = self.operand(x, span)?;
        let oy = self.operand(y, span)?;
        let (vx, vy) = match (ox.scalar(), oy.scalar()) {
            (Some(_), Some(_)) => {
                let (a, b, _) = self.arith_operands(x, y, false, "where", span)?;
                (a, b)
            }
            _ if ox.elem == oy.elem => {
                let (a, b) = (self.operand_value(&ox, span)?, self.operand_value(&oy, span)?);
                self.broadcast_pair(a, b, span)?
            }
            _ => return Err(err(errors::TYPE_ERROR, span, "`tl.where` needs two values of compatible types")),
        };
        let shape = Self::broadcast_shape(&self.ty(c).shape, &self.ty(vx).shape).ok_or_else(|| {
            err(
                errors::BROADCAST,
                span,
                format!(
                    "the condition of shape {:?} does not broadcast with values of shape {:?}",
                    self.ty(c).shape,
                    self.ty(vx).shape
                ),
            )
        })?;
        let c = self.broadcast_to(c, &shape, errors::BROADCAST, span)?;
        let vx = self.broadcast_to(vx, &shape, errors::BROADCAST, span)?;
        let vy = self.broadcast_to(vy, &shape, errors::BROADCAST, span)?;
        let ty = self.ty(vx).clone();
        Ok(self.emit(OpKind::Select { cond: c, on_true: vx, on_false: vy }, ty, span))
    }

    pub fn trans(&mut self, v: Value, order: Option<Vec<u32>>, span: Span) -> Result<Value> {
        let ty = self.ty(v).clone();
        let rank = ty.shape.len() as u32;
        let order = match order {
            Some(o) => o,
            None if rank <= 1 => return Ok(v),
            None => {
                let mut o: Vec<u32> = (0..rank).collect();
                o.swap(rank as usize - 2, rank as usize - 1);
                o
            }
        };
        let mut seen = order.clone();
        seen.sort_unstable();
        if seen != (0..rank).collect::<Vec<u32>>() {
            return Err(err(errors::SHAPE, span, format!("{order:?} is not a permutation of the {rank} dimensions")));
        }
        let shape = order.iter().map(|&i| ty.shape[i as usize]).collect();
        Ok(self.emit(OpKind::Trans { value: v, order }, ty.with_shape(shape), span))
    }
}
