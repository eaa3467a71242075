//! The evaluation of ops over runtime tiles.

use crate::memory::{Fault, Memory, Placed, BUFFER_STRIDE};
use crate::scalar::*;
use crate::{codes, Arg, InterpError};
use std::rc::Rc;
use tilec_ir::print::{op_text, ValueNames};
use tilec_ir::*;

/// A runtime value: element type, shape and one 64-bit pattern per lane, row-major
/// (see [`crate::scalar`] for the encoding).
#[derive(Clone, Debug)]
pub struct Tile {
    pub elem: Elem,
    pub shape: Vec<u32>,
    pub lanes: Vec<u64>,
}

impl Tile {
    fn new(ty: &Type, lanes: Vec<u64>) -> Tile {
        Tile { elem: ty.elem, shape: ty.shape.clone(), lanes }
    }

    fn scalar_type(&self) -> ScalarType {
        match self.elem {
            Elem::Scalar(s) => s,
            // Pointers behave as unsigned 64-bit integers where they take part in arithmetic.
            Elem::Ptr(_) => ScalarType::U64,
        }
    }

    /// The one lane of a scalar.
    fn first(&self) -> u64 {
        self.lanes.first().copied().unwrap_or(0)
    }
}

/// Why an op failed, before the op and program are attached.
struct Failure {
    code: tilec_diagnostics::Code,
    message: String,
}

fn failure(code: tilec_diagnostics::Code, message: impl Into<String>) -> Failure {
    Failure { code, message: message.into() }
}

impl From<Fault> for Failure {
    fn from(f: Fault) -> Failure {
        failure(codes::OUT_OF_BOUNDS, f.0)
    }
}

type Res<T> = Result<T, Failure>;

pub struct Interpreter<'a> {
    f: &'a Function,
    args: &'a mut [Arg],
    memory: Memory,
    /// The runtime value of each SSA value, indexed by value number.
    env: Vec<Option<Rc<Tile>>>,
    pid: [u32; 3],
    grid: [u32; 3],
    /// Steps the current program has executed, and how many it may.
    steps: u64,
    step_limit: u64,
}

impl<'a> Interpreter<'a> {
    /// Checks `args` against the parameters and places the buffers (and pointer tables).
    pub fn new(f: &'a Function, args: &'a mut [Arg], step_limit: u64) -> Result<Interpreter<'a>, InterpError> {
        let bad = |msg: String| Err(InterpError::new(codes::BAD_ARGUMENT, msg));
        if args.len() < f.params.len() {
            return bad(format!("the kernel takes {} runtime arguments, {} given", f.params.len(), args.len()));
        }
        for (i, (p, a)) in f.params.iter().zip(args.iter()).enumerate() {
            let ok = match (&p.ty.elem, a) {
                (Elem::Ptr(_), Arg::Buffer { data, .. }) => (data.len() as u64) < BUFFER_STRIDE,
                (Elem::Ptr(s), Arg::Pointers { .. }) => s.bytes() == 8,
                (Elem::Scalar(s), Arg::Int(_)) => s.is_int(),
                (Elem::Scalar(s), Arg::Float(_)) => s.is_float(),
                _ => false,
            };
            if !ok || p.ty.is_tensor() {
                return bad(format!("argument {i} ({}) does not fit parameter `{}`", arg_kind(a), p.name));
            }
        }
        for (i, a) in args.iter().enumerate().skip(f.params.len()) {
            if !matches!(a, Arg::Buffer { data, .. } if (data.len() as u64) < BUFFER_STRIDE) {
                return bad(format!("argument {i} ({}) is past the parameters, so it must be a buffer", arg_kind(a)));
            }
        }
        let mut buffers = Vec::new();
        for (i, a) in args.iter().enumerate() {
            if a.bytes().is_some() {
                let name = f.params.get(i).map_or_else(|| format!("argument {i}"), |p| p.name.clone());
                buffers.push(Placed { base: Memory::base_for(buffers.len()), arg: i, name });
            }
        }
        let base_of = |arg: usize| buffers.iter().find(|b| b.arg == arg).map(|b| b.base);
        for i in 0..args.len() {
            let Arg::Pointers { targets, .. } = &args[i] else { continue };
            let mut table = Vec::with_capacity(targets.len() * 8);
            for &t in targets {
                match (args.get(t), base_of(t)) {
                    (Some(Arg::Buffer { .. }), Some(base)) => table.extend_from_slice(&base.to_le_bytes()),
                    _ => return bad(format!("entry of the pointer table {i} names argument {t}, which is no buffer")),
                }
            }
            if let Arg::Pointers { table: slot, .. } = &mut args[i] {
                *slot = table;
            }
        }
        Ok(Interpreter {
            f,
            args,
            memory: Memory { buffers },
            env: vec![None; f.values.len()],
            pid: [0; 3],
            grid: [0; 3],
            steps: 0,
            step_limit,
        })
    }

    pub fn run_grid(mut self, grid: [u32; 3]) -> Result<(), InterpError> {
        self.grid = grid;
        let params = self.param_tiles();
        for z in 0..grid[2] {
            for y in 0..grid[1] {
                for x in 0..grid[0] {
                    self.pid = [x, y, z];
                    self.steps = 0;
                    self.exec_region(self.f.body, params.clone())?;
                }
            }
        }
        Ok(())
    }

    fn param_tiles(&self) -> Vec<Rc<Tile>> {
        let mut buffer_slot = 0;
        self.f
            .params
            .iter()
            .zip(self.args.iter())
            .map(|(p, a)| {
                let bits = match a {
                    Arg::Buffer { .. } | Arg::Pointers { .. } => {
                        buffer_slot += 1;
                        Memory::base_for(buffer_slot - 1)
                    }
                    Arg::Int(i) => encode_int(*i as i128, p.ty.elem),
                    Arg::Float(x) => encode_float(*x, p.ty.elem),
                };
                Rc::new(Tile::new(&p.ty, vec![bits]))
            })
            .collect()
    }

    fn get(&self, v: Value) -> Rc<Tile> {
        // The verifier guarantees every use is dominated by its definition.
        self.env[v.as_u32() as usize].clone().expect("verified IR defines values before use")
    }

    fn set(&mut self, v: Value, t: Tile) {
        self.env[v.as_u32() as usize] = Some(Rc::new(t));
    }

    fn error(&self, op: OpId, e: Failure) -> InterpError {
        let names = ValueNames::new(self.f);
        InterpError {
            code: e.code,
            message: e.message,
            op: Some(op_text(self.f, &names, op)),
            program_id: Some(self.pid),
            span: Some(self.f.ops[op].span),
        }
    }

    /// Runs region `r` with `params`; returns the operands of its terminator (for
    /// `scf.condition`: the condition followed by the arguments).
    fn exec_region(&mut self, r: RegionId, params: Vec<Rc<Tile>>) -> Result<Vec<Rc<Tile>>, InterpError> {
        let region = &self.f.regions[r];
        for (&p, t) in region.params.iter().zip(params) {
            self.env[p.as_u32() as usize] = Some(t);
        }
        for &op in &region.ops {
            let kind = &self.f.ops[op].kind;
            if kind.is_terminator() {
                return Ok(kind.operands().into_iter().map(|v| self.get(v)).collect());
            }
            self.step(op)?;
            self.exec_op(op)?;
        }
        Ok(Vec::new())
    }

    /// Counts one step of `op`; fails once the program exceeds its step limit.
    fn step(&mut self, op: OpId) -> Result<(), InterpError> {
        self.steps += 1;
        if self.steps <= self.step_limit {
            return Ok(());
        }
        let message = format!(
            "the program executed more than {} steps without finishing; the kernel probably never ends (a loop whose condition stays true)",
            self.step_limit
        );
        Err(self.error(op, failure(codes::STEP_LIMIT, message)))
    }

    fn exec_op(&mut self, id: OpId) -> Result<(), InterpError> {
        let f = self.f;
        let op = &f.ops[id];
        match &op.kind {
            OpKind::For { lower, upper, step, init, body } => {
                let results = self.exec_for(id, *lower, *upper, *step, init, *body)?;
                self.set_results(id, results);
            }
            OpKind::If { cond, then_region, else_region } => {
                let branch = if truthy(self.get(*cond).first()) { *then_region } else { *else_region };
                let results = self.exec_region(branch, Vec::new())?;
                self.set_results(id, results);
            }
            OpKind::While { init, before, after } => {
                let mut carried: Vec<Rc<Tile>> = init.iter().map(|&v| self.get(v)).collect();
                loop {
                    self.step(id)?;
                    let mut tested = self.exec_region(*before, carried)?;
                    let cond = tested.remove(0);
                    if !truthy(cond.first()) {
                        self.set_results(id, tested);
                        break;
                    }
                    carried = self.exec_region(*after, tested)?;
                }
            }
            OpKind::Reduce { kind, value, axis } => {
                let a = self.get(*value);
                for (&r, lanes) in op.results.iter().zip(reduce(*kind, &a, *axis as usize)) {
                    self.set(r, Tile::new(f.ty(r), lanes));
                }
            }
            OpKind::ReduceCustom { values, axis, combine } => {
                let tiles: Vec<Rc<Tile>> = values.iter().map(|&v| self.get(v)).collect();
                let results = self.reduce_custom(&tiles, *axis as usize, *combine).map_err(|e| self.error(id, e))?;
                for (&r, lanes) in op.results.iter().zip(results) {
                    self.set(r, Tile::new(f.ty(r), lanes));
                }
            }
            OpKind::ScanCustom { values, axis, reverse, combine } => {
                let tiles: Vec<Rc<Tile>> = values.iter().map(|&v| self.get(v)).collect();
                let results =
                    self.scan_custom(&tiles, *axis as usize, *reverse, *combine).map_err(|e| self.error(id, e))?;
                for (&r, lanes) in op.results.iter().zip(results) {
                    self.set(r, Tile::new(f.ty(r), lanes));
                }
            }
            _ => {
                let result = self.eval(op).map_err(|e| self.error(id, e))?;
                if let (Some(t), Some(&r)) = (result, op.results.first()) {
                    self.set(r, t);
                }
            }
        }
        Ok(())
    }

    fn set_results(&mut self, id: OpId, values: Vec<Rc<Tile>>) {
        for (&r, t) in self.f.ops[id].results.iter().zip(values) {
            self.env[r.as_u32() as usize] = Some(t);
        }
    }

    fn exec_for(
        &mut self,
        id: OpId,
        lower: Value,
        upper: Value,
        step: Value,
        init: &[Value],
        body: RegionId,
    ) -> Result<Vec<Rc<Tile>>, InterpError> {
        let ty = self.f.ty(lower).clone();
        let s = ty.scalar_type().unwrap_or(ScalarType::I32);
        let [lo, hi, st] = [lower, upper, step].map(|v| int_value(self.get(v).first(), s));
        if st == 0 {
            return Err(self.error(id, failure(codes::ZERO_STEP, "the loop step is zero")));
        }
        let mut carried: Vec<Rc<Tile>> = init.iter().map(|&v| self.get(v)).collect();
        let mut iv = lo;
        while (st > 0 && iv < hi) || (st < 0 && iv > hi) {
            self.step(id)?;
            let mut params = vec![Rc::new(Tile::new(&ty, vec![normalize(iv as u64, s)]))];
            params.extend(carried);
            carried = self.exec_region(body, params)?;
            iv += st;
        }
        Ok(carried)
    }

    /// Evaluates a single-result (or no-result) op without regions of control flow.
    fn eval(&mut self, op: &Op) -> Res<Option<Tile>> {
        let f = self.f;
        let result_ty = op.results.first().map(|&r| f.ty(r));
        let out = |lanes: Vec<u64>| -> Res<Option<Tile>> {
            Ok(Some(Tile::new(result_ty.expect("verified op has a result"), lanes)))
        };
        let numel = result_ty.map_or(1, |t| t.numel() as usize);
        match &op.kind {
            OpKind::Constant(c) => {
                let elem = result_ty.expect("constant result").elem;
                let bits = match c {
                    Constant::Int(i) => encode_int(*i as i128, elem),
                    Constant::Float(x) => encode_float(*x, elem),
                    Constant::Bool(b) => *b as u64,
                };
                out(vec![bits; numel])
            }
            OpKind::ProgramId(axis) => out(vec![self.pid[axis.index() as usize] as u64]),
            OpKind::NumPrograms(axis) => out(vec![self.grid[axis.index() as usize] as u64]),
            OpKind::MakeRange { start, end } => out((*start..*end).map(|i| i as i64 as u64).collect()),
            OpKind::Splat(v) => out(vec![self.get(*v).first(); numel]),
            OpKind::Broadcast(v) => {
                let src = self.get(*v);
                let dst_shape = &result_ty.expect("result").shape;
                out(gather(&src, dst_shape, |idx, strides| {
                    idx.iter().zip(&src.shape).zip(strides).map(|((&x, &d), &s)| if d == 1 { 0 } else { x * s }).sum()
                }))
            }
            OpKind::ExpandDims { value, .. } | OpKind::Reshape(value) | OpKind::Hint { value, .. } => {
                out(self.get(*value).lanes.clone())
            }
            OpKind::Trans { value, order } => {
                let src = self.get(*value);
                let dst_shape = &result_ty.expect("result").shape;
                out(gather(&src, dst_shape, |idx, strides| {
                    order.iter().enumerate().map(|(d, &o)| idx[d] * strides[o as usize]).sum()
                }))
            }
            OpKind::AddPtr { ptr, offset } => {
                let (p, o) = (self.get(*ptr), self.get(*offset));
                let size = p.elem.pointee().map_or(1, |s| s.bytes()) as i128;
                let os = o.scalar_type();
                let lanes = p
                    .lanes
                    .iter()
                    .zip(&o.lanes)
                    .map(|(&a, &off)| (a as i128).wrapping_add(int_value(off, os) * size) as u64)
                    .collect();
                out(lanes)
            }
            OpKind::Load { ptr, mask, other } => {
                let p = self.get(*ptr);
                let s = p.elem.pointee().expect("verified pointer");
                let mask = mask.map(|m| self.get(m));
                let other = other.map(|o| self.get(o));
                let mut lanes = Vec::with_capacity(p.lanes.len());
                for (i, &addr) in p.lanes.iter().enumerate() {
                    if mask.as_ref().is_none_or(|m| truthy(m.lanes[i])) {
                        lanes.push(self.memory.read(self.args, addr, s).map_err(|e| lane_fault(e, i, &p))?);
                    } else {
                        lanes.push(other.as_ref().map_or(0, |o| o.lanes[i]));
                    }
                }
                out(lanes)
            }
            OpKind::Store { ptr, value, mask } => {
                let (p, v) = (self.get(*ptr), self.get(*value));
                let s = p.elem.pointee().expect("verified pointer");
                let mask = mask.map(|m| self.get(m));
                for (i, (&addr, &bits)) in p.lanes.iter().zip(&v.lanes).enumerate() {
                    if mask.as_ref().is_none_or(|m| truthy(m.lanes[i])) {
                        self.memory.write(self.args, addr, s, bits).map_err(|e| lane_fault(e, i, &p))?;
                    }
                }
                Ok(None)
            }
            OpKind::Binary { op: bop, lhs, rhs } => {
                let (a, b) = (self.get(*lhs), self.get(*rhs));
                let s = a.scalar_type();
                let lanes =
                    a.lanes.iter().zip(&b.lanes).map(|(&x, &y)| binary(*bop, x, y, s)).collect::<Res<Vec<u64>>>()?;
                out(lanes)
            }
            OpKind::Unary { op: uop, value } => {
                let a = self.get(*value);
                let s = a.scalar_type();
                out(a.lanes.iter().map(|&x| unary(*uop, x, s)).collect())
            }
            OpKind::Math { func, value } => {
                let a = self.get(*value);
                let s = a.scalar_type();
                out(a.lanes.iter().map(|&x| crate::math::math(*func, x, s)).collect())
            }
            OpKind::Fma { a, b, c } => {
                let (a, b, c) = (self.get(*a), self.get(*b), self.get(*c));
                let s = a.scalar_type();
                let lanes = (0..a.lanes.len())
                    .map(|i| {
                        if s == ScalarType::F64 {
                            let [x, y, z] = [a.lanes[i], b.lanes[i], c.lanes[i]].map(f64::from_bits);
                            canonical64(x.mul_add(y, z)).to_bits()
                        } else {
                            let [x, y, z] = [a.lanes[i], b.lanes[i], c.lanes[i]].map(|l| to_f32(l, s));
                            from_f32(canonical32(x.mul_add(y, z)), s)
                        }
                    })
                    .collect();
                out(lanes)
            }
            OpKind::Cmp { pred, lhs, rhs } => {
                let (a, b) = (self.get(*lhs), self.get(*rhs));
                let s = a.scalar_type();
                out(a.lanes.iter().zip(&b.lanes).map(|(&x, &y)| compare(*pred, x, y, s) as u64).collect())
            }
            OpKind::Select { cond, on_true, on_false } => {
                let (c, t, e) = (self.get(*cond), self.get(*on_true), self.get(*on_false));
                let lanes = if c.shape.is_empty() {
                    if truthy(c.first()) {
                        t.lanes.clone()
                    } else {
                        e.lanes.clone()
                    }
                } else {
                    (0..t.lanes.len()).map(|i| if truthy(c.lanes[i]) { t.lanes[i] } else { e.lanes[i] }).collect()
                };
                out(lanes)
            }
            OpKind::Cast { op: cop, value } => {
                let a = self.get(*value);
                let dst = result_ty.expect("result").elem;
                out(a.lanes.iter().map(|&x| cast(*cop, x, a.elem, dst)).collect())
            }
            OpKind::Scan { kind, value, axis, reverse } => {
                let a = self.get(*value);
                let s = a.scalar_type();
                let combine = |x: u64, y: u64| -> Res<u64> {
                    Ok(match kind {
                        ScanKind::Sum => binary(BinaryOp::Add, x, y, s)?,
                        ScanKind::Prod => binary(BinaryOp::Mul, x, y, s)?,
                        ScanKind::Max => binary(BinaryOp::Max, x, y, s)?,
                        ScanKind::Min => binary(BinaryOp::Min, x, y, s)?,
                    })
                };
                out(scan(&a, *axis as usize, *reverse, combine)?)
            }
            OpKind::Gather { src, index, axis } => {
                let (s, ix) = (self.get(*src), self.get(*index));
                let axis = *axis as usize;
                let n = i128::from(s.shape[axis]);
                let (src_strides, is) = (strides(&s.shape), ix.scalar_type());
                let mut lanes = Vec::with_capacity(ix.lanes.len());
                for (i, &bits) in ix.lanes.iter().enumerate() {
                    let k = int_value(bits, is);
                    if k < -n || k >= n {
                        let message = format!("gather index {k} at lane {i} is outside [-{n}, {n})");
                        return Err(failure(codes::GATHER_INDEX, message));
                    }
                    let k = if k < 0 { k + n } else { k } as usize;
                    let idx = unravel(i, &ix.shape);
                    let pos: usize = (0..idx.len()).map(|d| if d == axis { k } else { idx[d] } * src_strides[d]).sum();
                    lanes.push(s.lanes[pos]);
                }
                out(lanes)
            }
            OpKind::Dot { a, b, acc, .. } => {
                let (a, b, c) = (self.get(*a), self.get(*b), self.get(*acc));
                out(dot(&a, &b, &c))
            }
            OpKind::AtomicRmw { op: aop, ptr, value, mask, .. } => {
                let (p, v) = (self.get(*ptr), self.get(*value));
                let s = p.elem.pointee().expect("verified pointer");
                let mask = mask.map(|m| self.get(m));
                let mut old = Vec::with_capacity(p.lanes.len());
                for (i, (&addr, &x)) in p.lanes.iter().zip(&v.lanes).enumerate() {
                    if mask.as_ref().is_some_and(|m| !truthy(m.lanes[i])) {
                        old.push(0);
                        continue;
                    }
                    let prev = self.memory.read(self.args, addr, s).map_err(|e| lane_fault(e, i, &p))?;
                    let new = match aop {
                        AtomicOp::Add => binary(BinaryOp::Add, prev, x, s)?,
                        AtomicOp::Max | AtomicOp::Min if s.is_float() => {
                            float_atomic_extreme(*aop == AtomicOp::Max, prev, x, s)
                        }
                        AtomicOp::Max => binary(BinaryOp::Max, prev, x, s)?,
                        AtomicOp::Min => binary(BinaryOp::Min, prev, x, s)?,
                        AtomicOp::And => binary(BinaryOp::And, prev, x, s)?,
                        AtomicOp::Or => binary(BinaryOp::Or, prev, x, s)?,
                        AtomicOp::Xor => binary(BinaryOp::Xor, prev, x, s)?,
                        AtomicOp::Xchg => x,
                    };
                    self.memory.write(self.args, addr, s, new).map_err(|e| lane_fault(e, i, &p))?;
                    old.push(prev);
                }
                out(old)
            }
            OpKind::AtomicCas { ptr, cmp, value, .. } => {
                let (p, c, v) = (self.get(*ptr), self.get(*cmp), self.get(*value));
                let s = p.elem.pointee().expect("verified pointer");
                let mut old = Vec::with_capacity(p.lanes.len());
                for (i, &addr) in p.lanes.iter().enumerate() {
                    let prev = self.memory.read(self.args, addr, s).map_err(|e| lane_fault(e, i, &p))?;
                    if prev == c.lanes[i] {
                        self.memory.write(self.args, addr, s, v.lanes[i]).map_err(|e| lane_fault(e, i, &p))?;
                    }
                    old.push(prev);
                }
                out(old)
            }
            OpKind::Assert { cond, message } => {
                let c = self.get(*cond);
                match c.lanes.iter().position(|&l| !truthy(l)) {
                    None => Ok(None),
                    Some(lane) => {
                        Err(failure(codes::ASSERT_FAILED, format!("assertion failed at lane {lane}: {message}")))
                    }
                }
            }
            OpKind::Print { prefix, args, hex } => {
                let [x, y, z] = self.pid;
                let parts: Vec<String> = args.iter().map(|&a| format_tile(&self.get(a), *hex)).collect();
                // A closed standard output (`tilec run ... | head`) drops the line; it is
                // not the kernel's failure.
                let line = format!("pid ({x}, {y}, {z}) {prefix}{}\n", parts.join(" "));
                let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), line.as_bytes());
                Ok(None)
            }
            OpKind::Assume { cond } => {
                let c = self.get(*cond);
                match c.lanes.iter().position(|&l| !truthy(l)) {
                    None => Ok(None),
                    Some(lane) => Err(failure(
                        codes::ASSUME_FAILED,
                        format!("the assumption is false at lane {lane} (`tl.assume` promises it holds)"),
                    )),
                }
            }
            OpKind::DebugBarrier => Ok(None),
            OpKind::For { .. }
            | OpKind::If { .. }
            | OpKind::While { .. }
            | OpKind::Yield(_)
            | OpKind::Condition { .. }
            | OpKind::Reduce { .. }
            | OpKind::ReduceCustom { .. }
            | OpKind::ScanCustom { .. } => {
                unreachable!("control flow and ops with several results are executed by exec_op")
            }
        }
    }

    /// `tt.reduce` of `tiles` (one shape) along `axis` with a combine region: per output
    /// element, the first element along `axis` seeds the accumulators and the others
    /// combine in order. One lane vector per operand.
    fn reduce_custom(&mut self, tiles: &[Rc<Tile>], axis: usize, combine: RegionId) -> Res<Vec<Vec<u64>>> {
        let types = lane_types(tiles);
        let (outer, len, inner) = split_at_axis(&tiles[0].shape, axis);
        let mut out = vec![Vec::with_capacity(outer * inner); tiles.len()];
        for o in 0..outer {
            for i in 0..inner {
                let at = |k: usize| -> Vec<u64> { tiles.iter().map(|t| t.lanes[(o * len + k) * inner + i]).collect() };
                let mut acc = at(0);
                for k in 1..len {
                    acc = self.combine(combine, &types, &acc, &at(k))?;
                }
                for (lanes, bits) in out.iter_mut().zip(acc) {
                    lanes.push(bits);
                }
            }
        }
        Ok(out)
    }

    /// `tt.scan` of `tiles` along `axis` with a combine region (inclusive; from the end when
    /// `reverse`).
    fn scan_custom(&mut self, tiles: &[Rc<Tile>], axis: usize, reverse: bool, combine: RegionId) -> Res<Vec<Vec<u64>>> {
        let types = lane_types(tiles);
        let (outer, len, inner) = split_at_axis(&tiles[0].shape, axis);
        let mut out: Vec<Vec<u64>> = tiles.iter().map(|t| t.lanes.clone()).collect();
        for o in 0..outer {
            for i in 0..inner {
                let at = |k: usize| (o * len + k) * inner + i;
                let order: Vec<usize> = if reverse { (0..len).rev().collect() } else { (0..len).collect() };
                let mut acc: Vec<u64> = out.iter().map(|lanes| lanes[at(order[0])]).collect();
                for &k in &order[1..] {
                    let x: Vec<u64> = out.iter().map(|lanes| lanes[at(k)]).collect();
                    acc = self.combine(combine, &types, &acc, &x)?;
                    for (lanes, &bits) in out.iter_mut().zip(&acc) {
                        lanes[at(k)] = bits;
                    }
                }
            }
        }
        Ok(out)
    }

    /// Runs a combine region on the accumulators `acc` and the new elements `x` (scalars of
    /// `types`, one per operand); returns the combined values.
    fn combine(&mut self, region: RegionId, types: &[Type], acc: &[u64], x: &[u64]) -> Res<Vec<u64>> {
        let params =
            acc.iter().chain(x).zip(types.iter().cycle()).map(|(&bits, ty)| Rc::new(Tile::new(ty, vec![bits])));
        match self.exec_region(region, params.collect()) {
            Ok(values) => Ok(values.iter().map(|t| t.first()).collect()),
            Err(e) => Err(failure(e.code, format!("in the combine region: {e}"))),
        }
    }
}

/// The scalar types of the elements of `tiles`.
fn lane_types(tiles: &[Rc<Tile>]) -> Vec<Type> {
    tiles.iter().map(|t| Type { elem: t.elem, shape: Vec::new() }).collect()
}

fn arg_kind(a: &Arg) -> &'static str {
    match a {
        Arg::Buffer { .. } => "a buffer",
        Arg::Pointers { .. } => "a pointer table",
        Arg::Int(_) => "an integer",
        Arg::Float(_) => "a float",
    }
}

/// Adds the lane to an access fault.
fn lane_fault(e: Fault, lane: usize, ptr: &Tile) -> Failure {
    let place = if ptr.shape.is_empty() { String::new() } else { format!(" at lane {lane}") };
    failure(codes::OUT_OF_BOUNDS, format!("out-of-bounds access{place}: {}", e.0))
}

fn strides(shape: &[u32]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1] as usize;
    }
    s
}

/// A tile of shape `dst_shape` whose lane at multi-index `idx` is the lane of `src` at
/// `source(idx, strides of src)`.
fn gather(src: &Tile, dst_shape: &[u32], source: impl Fn(&[usize], &[usize]) -> usize) -> Vec<u64> {
    let src_strides = strides(&src.shape);
    let numel: usize = dst_shape.iter().map(|&d| d as usize).product();
    (0..numel).map(|i| src.lanes[source(&unravel(i, dst_shape), &src_strides)]).collect()
}

fn unravel(mut i: usize, shape: &[u32]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        let n = shape[d] as usize;
        idx[d] = i % n;
        i /= n;
    }
    idx
}

/// (product of dims before `axis`, dim `axis`, product of dims after).
fn split_at_axis(shape: &[u32], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().map(|&d| d as usize).product();
    let inner = shape[axis + 1..].iter().map(|&d| d as usize).product();
    (outer, shape[axis] as usize, inner)
}

/// One lane of a binary op on element type `s`.
fn binary(op: BinaryOp, a: u64, b: u64, s: ScalarType) -> Res<u64> {
    if s.is_float() {
        return Ok(match op {
            BinaryOp::Add => float_binary(a, b, s, |x, y| x + y, |x, y| x + y),
            BinaryOp::Sub => float_binary(a, b, s, |x, y| x - y, |x, y| x - y),
            BinaryOp::Mul => float_binary(a, b, s, |x, y| x * y, |x, y| x * y),
            BinaryOp::Div => float_binary(a, b, s, |x, y| x / y, |x, y| x / y),
            BinaryOp::Rem => float_binary(a, b, s, |x, y| x % y, |x, y| x % y),
            BinaryOp::Max => float_binary(a, b, s, |x, y| max_num(true, x, y), |x, y| max_num(true, x, y)),
            BinaryOp::Min => float_binary(a, b, s, |x, y| max_num(false, x, y), |x, y| max_num(false, x, y)),
            BinaryOp::Pow => float_binary(a, b, s, f32::powf, f64::powf),
            BinaryOp::Atan2 => float_binary(a, b, s, f32::atan2, f64::atan2),
            BinaryOp::Hypot => crate::math::hypot(a, b, s),
            // Bitwise ops on floats act on the bits (the verifier rejects them).
            BinaryOp::And => a & b,
            BinaryOp::Or => a | b,
            BinaryOp::Xor => a ^ b,
            BinaryOp::Shl | BinaryOp::Shr | BinaryOp::MulHi => a,
        });
    }
    let (x, y) = (int_value(a, s), int_value(b, s));
    let width = s.bits();
    let shift = (b % width as u64) as u32;
    let v: i128 = match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x.wrapping_mul(y),
        BinaryOp::Div | BinaryOp::Rem if y == 0 => {
            return Err(failure(codes::DIVISION_BY_ZERO, "integer division by zero"));
        }
        BinaryOp::Div => x / y,
        BinaryOp::Rem => x % y,
        BinaryOp::And => (a & b) as i128,
        BinaryOp::Or => (a | b) as i128,
        BinaryOp::Xor => (a ^ b) as i128,
        BinaryOp::Shl => (a << shift) as i128,
        BinaryOp::Shr => x >> shift,
        BinaryOp::Max => x.max(y),
        BinaryOp::Min => x.min(y),
        BinaryOp::MulHi if s.is_signed_int() => (x * y) >> width,
        BinaryOp::MulHi => ((a as u128 * b as u128) >> width) as i128,
        BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot => x,
    };
    Ok(normalize(v as u64, s))
}

/// Float `atomic_max` (`max`) / `atomic_min` as Triton builds them from integer atomics
/// (`semantic.atomic_max`): when `x`'s sign bit is clear, a signed max (min) of the bit
/// patterns, else an unsigned min (max). That is the maximum (minimum) in the order of the
/// sign-magnitude bits: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
pub fn float_atomic_extreme(max: bool, old: u64, x: u64, s: ScalarType) -> u64 {
    let w = s.bits();
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let (old, x) = (old & mask, x & mask);
    let signed = |v: u64| ((v << (64 - w)) as i64) >> (64 - w);
    if x >> (w - 1) == 0 {
        if (signed(x) > signed(old)) == max {
            x
        } else {
            old
        }
    } else if (x < old) == max {
        x
    } else {
        old
    }
}

fn unary(op: UnaryOp, a: u64, s: ScalarType) -> u64 {
    if s.is_float() {
        return match op {
            UnaryOp::Neg => float_unary(a, s, |x| -x, |x| -x),
            UnaryOp::Abs => float_unary(a, s, f32::abs, f64::abs),
            UnaryOp::Not => a,
        };
    }
    let x = int_value(a, s);
    let v = match op {
        UnaryOp::Neg => -x,
        UnaryOp::Not => !x,
        UnaryOp::Abs => x.abs(),
    };
    normalize(v as u64, s)
}

fn compare(pred: CmpPred, a: u64, b: u64, s: ScalarType) -> bool {
    if s.is_float() {
        let (x, y) = (to_f64(a, s), to_f64(b, s));
        return pred.holds(x, y);
    }
    let (x, y) = (int_value(a, s), int_value(b, s));
    pred.holds(x, y)
}

fn cast(op: CastOp, bits: u64, src: Elem, dst: Elem) -> u64 {
    let (Elem::Scalar(from), Elem::Scalar(to)) = (src, dst) else {
        // Pointer ↔ integer and pointer ↔ pointer keep the address.
        return bits;
    };
    match op {
        CastOp::IntExt | CastOp::IntTrunc | CastOp::IntRetype => normalize(bits, to),
        CastOp::FloatExt | CastOp::FloatTrunc => convert_float(bits, from, to),
        CastOp::IntToFloat => int_to_float(bits, from, to),
        CastOp::FloatToInt => float_to_int(to_f64(bits, from), to),
        CastOp::Bitcast => {
            let raw = if from.bits() >= 64 { bits } else { bits & ((1u64 << from.bits()) - 1) };
            normalize(raw, to)
        }
        CastOp::PtrToInt | CastOp::IntToPtr | CastOp::PtrCast => bits,
    }
}

/// `tt.reduce` of `a` along `axis`: one lane vector per result (the kept elements, then
/// their indices, for argmax/argmin).
fn reduce(kind: ReduceKind, a: &Tile, axis: usize) -> Vec<Vec<u64>> {
    let s = a.scalar_type();
    let (outer, len, inner) = split_at_axis(&a.shape, axis);
    let mut lanes = Vec::with_capacity(outer * inner);
    let mut indices = Vec::new();
    let op = match kind {
        ReduceKind::Sum => BinaryOp::Add,
        ReduceKind::Prod => BinaryOp::Mul,
        ReduceKind::Max => BinaryOp::Max,
        ReduceKind::Min => BinaryOp::Min,
        ReduceKind::Xor => BinaryOp::Xor,
        ReduceKind::And => BinaryOp::And,
        ReduceKind::Or => BinaryOp::Or,
        ReduceKind::ArgMax | ReduceKind::ArgMin => BinaryOp::Max,
    };
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| a.lanes[(o * len + k) * inner + i];
            let lane = match kind {
                ReduceKind::ArgMax | ReduceKind::ArgMin => {
                    let better = |x: u64, y: u64| {
                        let pred = if kind == ReduceKind::ArgMax { CmpPred::Gt } else { CmpPred::Lt };
                        compare(pred, x, y, s)
                    };
                    let (mut best, mut best_index) = (at(0), 0usize);
                    for k in 1..len {
                        let x = at(k);
                        // Triton's combine with (best, best_index) first: keep it when it is
                        // better or equal (its index is the smaller one).
                        let keep = better(best, x) || compare(CmpPred::Eq, best, x, s);
                        if !keep {
                            best = x;
                            best_index = k;
                        }
                    }
                    indices.push(best_index as u64);
                    best
                }
                // Integer ops cannot fail here: only division checks its operands.
                _ => (1..len).fold(at(0), |acc, k| binary(op, acc, at(k), s).unwrap_or(acc)),
            };
            lanes.push(lane);
        }
    }
    if kind.is_arg() {
        vec![lanes, indices]
    } else {
        vec![lanes]
    }
}

fn scan(a: &Tile, axis: usize, reverse: bool, mut combine: impl FnMut(u64, u64) -> Res<u64>) -> Res<Vec<u64>> {
    let (outer, len, inner) = split_at_axis(&a.shape, axis);
    let mut lanes = a.lanes.clone();
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * len + k) * inner + i;
            let order: Vec<usize> = if reverse { (0..len).rev().collect() } else { (0..len).collect() };
            let mut acc = lanes[at(order[0])];
            for &k in &order[1..] {
                acc = combine(acc, lanes[at(k)])?;
                lanes[at(k)] = acc;
            }
        }
    }
    Ok(lanes)
}

/// `a[.., M, K] x b[.., K, N] + c[.., M, N]`, see the crate doc for precision and order.
fn dot(a: &Tile, b: &Tile, c: &Tile) -> Vec<u64> {
    let rank = a.shape.len();
    let (m, k, n) = (a.shape[rank - 2] as usize, a.shape[rank - 1] as usize, b.shape[rank - 1] as usize);
    let batches: usize = a.shape[..rank - 2].iter().map(|&d| d as usize).product();
    let (sa, sc) = (a.scalar_type(), c.scalar_type());
    let mut lanes = Vec::with_capacity(c.lanes.len());
    for batch in 0..batches {
        let (ao, bo, co) = (batch * m * k, batch * k * n, batch * m * n);
        for i in 0..m {
            for j in 0..n {
                let acc_bits = c.lanes[co + i * n + j];
                let pair = |kk: usize| (a.lanes[ao + i * k + kk], b.lanes[bo + kk * n + j]);
                let lane = if sa.is_int() {
                    let mut acc = int_value(acc_bits, sc) as i64;
                    for kk in 0..k {
                        let (x, y) = pair(kk);
                        acc = acc.wrapping_add((int_value(x, sa) as i64).wrapping_mul(int_value(y, sa) as i64));
                    }
                    encode_int(acc as i128, c.elem)
                } else if sa == ScalarType::F64 || sc == ScalarType::F64 {
                    let mut acc = to_f64(acc_bits, sc);
                    for kk in 0..k {
                        let (x, y) = pair(kk);
                        acc = to_f64(x, sa).mul_add(to_f64(y, sa), acc);
                    }
                    from_f64(acc, sc)
                } else {
                    let mut acc = to_f32(acc_bits, sc);
                    for kk in 0..k {
                        let (x, y) = pair(kk);
                        acc = to_f32(x, sa).mul_add(to_f32(y, sa), acc);
                    }
                    from_f32(acc, sc)
                };
                lanes.push(lane);
            }
        }
    }
    lanes
}

fn format_tile(t: &Tile, hex: bool) -> String {
    let s = t.scalar_type();
    let lane = |bits: u64| -> String {
        if hex || matches!(t.elem, Elem::Ptr(_)) {
            format!("{bits:#x}")
        } else if s.is_float() {
            format!("{}", to_f64(bits, s))
        } else {
            format!("{}", int_value(bits, s))
        }
    };
    if t.shape.is_empty() {
        lane(t.first())
    } else {
        format!("[{}]", t.lanes.iter().map(|&b| lane(b)).collect::<Vec<_>>().join(", "))
    }
}
