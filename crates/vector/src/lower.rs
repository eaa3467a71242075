//! Lowering of a Tile IR [`ir::Function`] to the Vector IR.
//!
//! Ops are visited in region order. Every value gets a `Loc` saying where its elements are:
//! a scalar variable, a uniform tensor (splat), an affine index tensor (`make_range` and its
//! views), a scratch buffer seen through an affine map (views are free: `broadcast`,
//! `expand_dims`, `trans` and contiguous `reshape` only change the map), or a variable of the
//! nest being built. Elementwise ops of one shape join the *open nest*; the nest is closed
//! (and placed in the current block) when an op of another shape, an effect that must stay
//! ordered, or a read of a buffer the nest itself writes comes along. On closing, values
//! computed in the nest that are used outside it are stored to scratch.
//!
//! Pure scalar ops are placed in the current block as they come, ahead of the open nest
//! (they never depend on it); scalar effects close the nest first.
//!
//! Cheap integer, boolean and pointer tiles that depend only on the nest indices and uniform
//! scalars (ranges, offsets, masks, pointer tiles) are not computed in any nest: they are
//! `Loc::Remat` expression trees that every reading nest recomputes, so they never go
//! through scratch and never close the open nest. So are tensor loads from global memory of
//! such pointers (with such masks): every nest reading one loads it again, which is the
//! same as reading a copy when no store or atomic comes between the load and its last user
//! (`Lowerer::load_remat_safe`); a view of a loaded tile (`trans`) is then an access
//! pattern of the load itself (a strided load) rather than a copy.
//!
//! Loop-carried tiles live in one buffer slot per iter-arg. When the nest computing the
//! yielded value reads the slot only at its own position and nothing reads the old value
//! afterwards, the value is stored straight into the slot (an in-place update, see
//! `Lowerer::in_place_slot` and the Vector IR's invariant) and the yield copies nothing.
//! A tile an `if` branch computes and yields is stored into the `if`'s result slot the same
//! way.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::rc::Rc;

use cranelift_entity::PrimaryMap;
use tilec_diagnostics::{Diagnostic, Span};
use tilec_ir as ir;
use tilec_ir::{Elem, OpId, OpKind, ReduceKind, ScalarType, ScanKind, Value};

use crate::vir::*;

use tilec_diagnostics::codes::vector as codes;

/// Largest total scratch, in elements × bytes, a kernel may use (it lives on the stack of
/// the thread running the program).
pub const MAX_SCRATCH_BYTES: u64 = 4 << 20;

/// Lowers a verified Tile IR function.
pub fn lower(src: &ir::Function) -> Result<Function, Diagnostic> {
    let mut l = Lowerer {
        src,
        out: Function {
            name: src.name.clone(),
            params: Vec::new(),
            vars: PrimaryMap::new(),
            bufs: PrimaryMap::new(),
            body: Vec::new(),
        },
        locs: HashMap::default(),
        users: HashMap::default(),
        op_region: HashMap::default(),
        block: Vec::new(),
        open: None,
        direct: HashMap::default(),
        deferred: HashSet::default(),
        axis: ir::AxisAnalysis::new(src),
        in_place: HashMap::default(),
        done: HashSet::default(),
    };
    l.collect_users(src.body);
    l.plan_direct_dots(src.body);
    for (param, &value) in src.params.iter().zip(src.param_values()) {
        let var = l.out.new_var(param.ty.elem, Some(param.name.clone()));
        l.out.params.push(Param { name: param.name.clone(), var, divisibility: param.divisibility });
        l.locs.insert(value, Loc::Scalar(var));
    }
    let body = l.lower_region(src.body)?;
    l.out.body = body;
    let scratch: u64 = l.out.bufs.values().map(|b| b.len * b.elem.bytes().max(4) as u64).sum();
    if scratch > MAX_SCRATCH_BYTES {
        return Err(Diagnostic::error(
            codes::TOO_LARGE,
            format!("the kernel's tiles need {scratch} bytes of scratch, more than the {MAX_SCRATCH_BYTES} allowed"),
        )
        .with_span(src.span)
        .with_note("use smaller block sizes"));
    }
    // The analyses of the source are large and no longer needed (`locs` holds `Rc`s and
    // is freed here).
    let Lowerer { out, axis, users, op_region, deferred, done, .. } = l;
    ir::drop_in_background((axis, users, op_region, deferred, done));
    Ok(out)
}

/// Where the elements of a Tile IR value are.
#[derive(Clone, Debug)]
enum Loc {
    /// A scalar value.
    Scalar(Var),
    /// A tensor whose elements all equal this variable.
    Uniform(Var),
    /// A tensor of i32 whose element at index `i` is `affine(i)`.
    Iota(Affine),
    /// A tensor whose element at index `i` is `buf[affine(i)]`.
    Buffer(Buf, Affine),
    /// A tensor computed by the open nest: this variable at the nest's own index.
    InNest(Var),
    /// A tensor recomputed by every nest that reads it (see [`Remat`]).
    Remat(Rc<Remat>),
}

/// Largest expression tree (in nodes) kept as [`Loc::Remat`]; larger ones go through a nest.
const MAX_REMAT_NODES: usize = 12;

/// A cheap tensor that is never stored to scratch: a function of the nest indices and
/// uniform scalars only (index arithmetic, masks, pointer tiles), with no load, no float
/// arithmetic and no division. Each nest reading it recomputes it from its leaves, which
/// costs a few vector ops instead of a scratch store in one nest and a load in another, and
/// keeps the reading nest's strides visible (an index stays an `index`, a mask a `cmp` on
/// one).
#[derive(Debug)]
enum Remat {
    Uniform(Var),
    /// The affine position as a value of `Elem`.
    Index(Affine, Elem),
    Op {
        elem: Elem,
        op: RematOp,
        args: Vec<Rc<Remat>>,
    },
}

#[derive(Clone, Copy, Debug)]
enum RematOp {
    Binary(BinaryOp),
    Unary(UnaryOp),
    Cmp(CmpPred),
    Cast(CastOp),
    Select,
    AddPtr,
    /// A global load: args pointer, then the mask and the `other` value when present; the
    /// span is the load's own (a bounds-check report names it, not the reading op).
    Load {
        mask: bool,
        other: bool,
        span: Span,
    },
}

impl Remat {
    /// Whether recomputing the tree reads global memory.
    fn loads(&self) -> bool {
        match self {
            Remat::Uniform(_) | Remat::Index(..) => false,
            Remat::Op { op, args, .. } => matches!(op, RematOp::Load { .. }) || args.iter().any(|a| a.loads()),
        }
    }

    fn nodes(&self) -> usize {
        match self {
            Remat::Uniform(_) | Remat::Index(..) => 1,
            Remat::Op { args, .. } => 1 + args.iter().map(|a| a.nodes()).sum::<usize>(),
        }
    }

    /// The same tree with every index position mapped by `f` (a view of the tensor).
    fn remap(self: &Rc<Remat>, f: &dyn Fn(&Affine) -> Option<Affine>) -> Option<Rc<Remat>> {
        Some(match &**self {
            Remat::Uniform(_) => self.clone(),
            Remat::Index(a, elem) => Rc::new(Remat::Index(f(a)?, *elem)),
            Remat::Op { elem, op, args } => Rc::new(Remat::Op {
                elem: *elem,
                op: *op,
                args: args.iter().map(|a| a.remap(f)).collect::<Option<_>>()?,
            }),
        })
    }
}

/// Appends to `body` the statements computing `r` at the nest's index and returns the
/// variable holding it; `memo` shares subtrees already computed in this body.
fn emit_remat(
    out: &mut Function,
    r: &Rc<Remat>,
    body: &mut Block,
    memo: &mut Vec<(Rc<Remat>, Var)>,
    span: Span,
) -> Var {
    if let Remat::Uniform(v) = &**r {
        return *v;
    }
    let same = |m: &Rc<Remat>| match (&**m, &**r) {
        (Remat::Index(a, x), Remat::Index(b, y)) => a == b && x == y,
        _ => Rc::ptr_eq(m, r),
    };
    if let Some((_, v)) = memo.iter().find(|(m, _)| same(m)) {
        return *v;
    }
    // A load and the values only it reads carry the load's own span.
    let span = match &**r {
        Remat::Op { op: RematOp::Load { span, .. }, .. } => *span,
        _ => span,
    };
    let (elem, expr) = match &**r {
        Remat::Uniform(_) => unreachable!("returned above"),
        Remat::Index(a, elem) => (*elem, Expr::Index(a.clone())),
        Remat::Op { elem, op, args } => {
            let vs: Vec<Var> = args.iter().map(|a| emit_remat(out, a, body, memo, span)).collect();
            let expr = match *op {
                RematOp::Binary(b) => Expr::Binary(b, vs[0], vs[1]),
                RematOp::Unary(u) => Expr::Unary(u, vs[0]),
                RematOp::Cmp(p) => Expr::Cmp(p, vs[0], vs[1]),
                RematOp::Cast(c) => Expr::Cast(c, vs[0]),
                RematOp::Select => Expr::Select { cond: vs[0], on_true: vs[1], on_false: vs[2] },
                RematOp::AddPtr => Expr::AddPtr { ptr: vs[0], offset: vs[1] },
                RematOp::Load { mask, other, .. } => Expr::Load {
                    ptr: vs[0],
                    mask: mask.then(|| vs[1]),
                    other: other.then(|| vs[if mask { 2 } else { 1 }]),
                },
            };
            (*elem, expr)
        }
    };
    let var = out.new_var(elem, None);
    body.push(Stmt::Assign { dst: var, expr, span });
    memo.push((r.clone(), var));
    var
}

/// Whether values of `elem` are index-like (integers, booleans, pointers).
fn is_index_like(elem: Elem) -> bool {
    match elem {
        Elem::Ptr(_) => true,
        Elem::Scalar(s) => !s.is_float(),
    }
}

struct OpenNest {
    shape: Vec<u32>,
    indices: Vec<Var>,
    body: Block,
    /// Ops placed in this nest.
    ops: HashSet<OpId>,
    /// Values computed here, in order.
    defined: Vec<(Value, Var)>,
    /// Buffers written by this nest (reading them in it needs a new nest).
    writes: HashSet<Buf>,
    /// Buffers assigned to values of this nest that must be stored on closing.
    spills: HashMap<Value, Buf>,
    /// A global store or atomic is in the nest (a later load needs a new nest).
    has_store: bool,
    /// [`Remat`] trees already computed in the body, and their variables.
    remat: Vec<(Rc<Remat>, Var)>,
}

/// How an accumulation combines: a built-in op, or a user combine region `(acc, x) -> y`.
#[derive(Clone, Copy, Debug)]
enum Combine {
    Op(AccOp),
    Region(ir::RegionId),
}

/// Where a loop-carried / result value lives: a variable or a contiguous buffer.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Var(Var),
    Buf(Buf),
}

struct Lowerer<'a> {
    src: &'a ir::Function,
    out: Function,
    locs: HashMap<Value, Loc>,
    /// For each value, the ops using it (at any depth).
    users: HashMap<Value, Vec<OpId>>,
    /// The region directly holding each op.
    op_region: HashMap<OpId, ir::RegionId>,
    block: Block,
    open: Option<OpenNest>,
    /// Loads that a dot reads straight from global memory, by the load's result.
    direct: HashMap<Value, DirectLoad>,
    /// Ops not lowered where they stand: direct loads and the ops only they use (lowered
    /// at the dot instead, if the dot cannot read the load directly after all).
    deferred: HashSet<OpId>,
    /// Contiguity facts of the source's values (for pointer tiles read from scratch).
    axis: ir::AxisAnalysis,
    /// Tensor values a `for` body (or a branch of an `if`, computing them) yields into a
    /// buffer slot, with that slot: when the nest computing one may write it straight into
    /// the slot (see [`Lowerer::in_place_slot`]), the loop needs no copy nest at the yield.
    in_place: HashMap<Value, Buf>,
    /// Ops already lowered.
    done: HashSet<OpId>,
}

/// A `tl.load` whose only user is a `tl.dot`, read by the dot from global memory: the
/// pointers are `ptr_tile` (separable, see [`GlobalTile`]) advanced by the scalar `offset`;
/// masked by `k_index < bound` along the dot's k axis (with `other` zero).
#[derive(Clone, Debug)]
struct DirectLoad {
    ptr_tile: Value,
    offset: Option<Value>,
    bound: Option<Value>,
    k_index: Option<Value>,
    /// The deferred ops, in program order (the load last).
    ops: Vec<OpId>,
    /// The load's span.
    span: Span,
}

fn unsupported(what: &str, span: Span) -> Diagnostic {
    Diagnostic::error(codes::UNSUPPORTED, format!("{what} is not supported by the compiled back end yet"))
        .with_label(span, "not supported in compiled code")
}

impl<'a> Lowerer<'a> {
    fn collect_users(&mut self, region: ir::RegionId) {
        for &op in &self.src.regions[region].ops {
            self.op_region.insert(op, region);
            let kind = &self.src.ops[op].kind;
            for v in kind.operands() {
                self.users.entry(v).or_default().push(op);
            }
            for r in kind.regions() {
                self.collect_users(r);
            }
        }
    }

    fn ty(&self, v: Value) -> &ir::Type {
        self.src.ty(v)
    }

    fn loc(&self, v: Value, span: Span) -> Result<Loc, Diagnostic> {
        self.locs.get(&v).cloned().ok_or_else(|| {
            Diagnostic::error(codes::UNSUPPORTED, format!("internal: value {v} has no location in the lowering"))
                .with_span(span)
        })
    }

    fn new_var(&mut self, ty: Elem) -> Var {
        self.out.new_var(ty, None)
    }

    /// A variable holding `v`, named after the value's source name.
    fn new_var_for(&mut self, v: Value) -> Var {
        let data = &self.src.values[v];
        self.out.new_var(data.ty.elem, data.name.clone())
    }

    fn assign(&mut self, dst: Var, expr: Expr, span: Span) {
        self.block.push(Stmt::Assign { dst, expr, span });
    }

    fn scalar_const(&mut self, ty: Elem, c: Constant, span: Span) -> Var {
        let v = self.new_var(ty);
        self.assign(v, Expr::Const(c), span);
        v
    }

    // ----- regions -------------------------------------------------------------------

    /// Lowers the ops of `region` except its terminator into a fresh block (the open nest is
    /// closed at the end). The caller binds the region params first.
    fn lower_region(&mut self, region: ir::RegionId) -> Result<Block, Diagnostic> {
        self.lower_region_into(region, None)
    }

    /// [`Self::lower_region`]; with `slots`, the values the region's `scf.yield` yields are
    /// copied into them at its end, while its last nest is open ([`Self::parallel_copy`]).
    fn lower_region_into(&mut self, region: ir::RegionId, slots: Option<&[Slot]>) -> Result<Block, Diagnostic> {
        let saved_block = std::mem::take(&mut self.block);
        let saved_open = self.open.take();
        let result = (|| {
            for &op in &self.src.regions[region].ops {
                if self.src.ops[op].kind.is_terminator() {
                    break;
                }
                self.lower_op(op)?;
                // A deferred op is done when the dot that reads it is (its pointer tile is
                // read until then).
                if !self.deferred.contains(&op) {
                    self.done.insert(op);
                }
            }
            if let (Some(slots), Some(term)) = (slots, self.terminator(region)) {
                if let OpKind::Yield(values) = &term.kind {
                    self.parallel_copy(values, slots, term.span)?;
                }
            }
            self.close_nest();
            Ok(())
        })();
        let block = std::mem::replace(&mut self.block, saved_block);
        self.open = saved_open;
        result.map(|()| block)
    }

    fn terminator(&self, region: ir::RegionId) -> Option<&'a ir::Op> {
        let src = self.src;
        src.regions[region].ops.last().map(|&op| &src.ops[op]).filter(|op| op.kind.is_terminator())
    }

    // ----- nests ---------------------------------------------------------------------

    fn open_nest(&mut self, shape: &[u32]) {
        if let Some(open) = &self.open {
            if open.shape == shape {
                return;
            }
        }
        self.close_nest();
        let indices = (0..shape.len()).map(|_| self.new_var(Elem::Scalar(ScalarType::I64))).collect();
        self.open = Some(OpenNest {
            shape: shape.to_vec(),
            indices,
            body: Vec::new(),
            ops: HashSet::default(),
            defined: Vec::new(),
            writes: HashSet::default(),
            spills: HashMap::default(),
            has_store: false,
            remat: Vec::new(),
        });
    }

    fn close_nest(&mut self) {
        let Some(mut open) = self.open.take() else { return };
        let identity = Affine::row_major(&open.shape);
        let len = open.shape.iter().map(|&d| d as u64).product::<u64>();
        for &(value, var) in &open.defined {
            let used_outside = self.users.get(&value).is_some_and(|users| users.iter().any(|u| !open.ops.contains(u)));
            if !used_outside && !open.spills.contains_key(&value) {
                self.locs.remove(&value);
                continue;
            }
            let buf = match open.spills.get(&value) {
                Some(&b) => b,
                None => match self.in_place_slot(&open, value) {
                    Some(slot) => slot,
                    None => self.out.new_buf(self.src.ty(value).elem, len),
                },
            };
            open.body.push(Stmt::StoreScratch { buf, index: identity.clone(), value: var });
            self.locs.insert(value, Loc::Buffer(buf, identity.clone()));
        }
        if !open.body.is_empty() {
            self.block.push(Stmt::Nest(Nest { shape: open.shape, indices: open.indices, body: open.body }));
        }
    }

    /// The loop slot `value` (computed by `open`, being closed) may be stored into directly:
    /// an in-place update of a loop-carried tile. Holds when
    /// - `value` is yielded into the buffer slot by its `for` body or `if` branch (see
    ///   [`Self::in_place`]);
    /// - the nest reads the slot only at its own position (`slot[i]` for element `i`, which
    ///   the body reads before the store that closes it) and writes it nowhere else;
    /// - no value located in the slot (the iter-arg and its views) has a user left that is
    ///   neither lowered already nor in this nest: after the store, nothing reads the old
    ///   contents.
    ///
    /// So each element of the slot is read before it is written, at the same index, within
    /// the nest: the invariant the Vector IR states for in-place updates.
    fn in_place_slot(&self, open: &OpenNest, value: Value) -> Option<Buf> {
        let &slot = self.in_place.get(&value)?;
        let identity = Affine::row_major(&open.shape);
        let own_position_only = open.body.iter().all(|s| match s {
            Stmt::Assign { expr: Expr::LoadScratch { buf, index }, .. } => *buf != slot || *index == identity,
            Stmt::Assign { expr: Expr::LoadScratchAt { buf, .. }, .. } => *buf != slot,
            Stmt::StoreScratch { buf, .. } | Stmt::Accumulate { buf, .. } => *buf != slot,
            Stmt::AccumulateWith { bufs, .. } => !bufs.contains(&slot),
            Stmt::AccumulateArg { vals, idxs, .. } => *vals != slot && *idxs != slot,
            _ => true,
        });
        let read_later = self.locs.iter().any(|(v, loc)| {
            matches!(loc, Loc::Buffer(b, _) if *b == slot)
                && self
                    .users
                    .get(v)
                    .is_some_and(|users| users.iter().any(|u| !self.done.contains(u) && !open.ops.contains(u)))
        });
        (own_position_only && !read_later).then_some(slot)
    }

    /// Opens (or keeps) a nest of `shape` in which all of `operands` can be read.
    fn nest_for(&mut self, shape: &[u32], operands: &[Value], needs_load: bool) {
        // Reading a rematerialized load loads.
        let needs_load =
            needs_load || operands.iter().any(|v| matches!(self.locs.get(v), Some(Loc::Remat(r)) if r.loads()));
        if let Some(open) = &self.open {
            let same_shape = open.shape == shape;
            let conflict = operands.iter().any(|v| match self.locs.get(v) {
                Some(Loc::Buffer(b, _)) => open.writes.contains(b),
                _ => false,
            });
            if !same_shape || conflict || (needs_load && open.has_store) {
                self.close_nest();
            }
        }
        self.open_nest(shape);
    }

    fn nest(&mut self) -> &mut OpenNest {
        self.open.as_mut().expect("a nest is open")
    }

    fn emit_in_nest(&mut self, stmt: Stmt) {
        self.nest().body.push(stmt);
    }

    /// The variable holding `v`'s element at the open nest's index (scalars: the scalar).
    fn read(&mut self, v: Value, span: Span) -> Result<Var, Diagnostic> {
        let elem = self.ty(v).elem;
        Ok(match self.loc(v, span)? {
            Loc::Scalar(var) | Loc::Uniform(var) | Loc::InNest(var) => var,
            Loc::Buffer(buf, index) => match self.read_first_plus_index(v, buf, &index, span) {
                Some(var) => var,
                None => {
                    let var = self.new_var(elem);
                    self.emit_in_nest(Stmt::Assign { dst: var, expr: Expr::LoadScratch { buf, index }, span });
                    var
                }
            },
            Loc::Iota(index) => self.read_remat(&Rc::new(Remat::Index(index, elem)), span),
            Loc::Remat(r) => self.read_remat(&r, span),
        })
    }

    /// A tile element read from scratch as *first element + index*: when the axis analysis
    /// shows dims of the integer or pointer tile `v` to be one contiguous run over their whole
    /// length, the element at index 0 of those dims (one scratch read per run) plus the nest
    /// index along them. An access through such a pointer tile is then unit-stride along
    /// those dims instead of a gather of stored addresses (a loop-carried pointer tile, or
    /// offsets that went through scratch, as hinted `% M` offsets do).
    fn read_first_plus_index(&mut self, v: Value, buf: Buf, index: &Affine, span: Span) -> Option<Var> {
        let ty = self.ty(v);
        let elem = ty.elem;
        let offset_elem = match elem {
            Elem::Ptr(_) => Elem::Scalar(ScalarType::I32),
            Elem::Scalar(s) if s.is_int() && !s.is_bool() => elem,
            Elem::Scalar(_) => return None,
        };
        let info = self.axis.get(v)?;
        let shape = &ty.shape;
        let runs: Vec<usize> =
            (0..shape.len()).filter(|&d| shape[d] > 1 && info.is_contiguous_dim(d, i64::from(shape[d]))).collect();
        if runs.is_empty() || index.strides.len() != shape.len() {
            return None;
        }
        let mut first = index.clone();
        let mut step = Affine { offset: 0, strides: vec![0; shape.len()] };
        for &d in &runs {
            first.strides[d] = 0;
            step.strides[d] = 1;
        }
        let (base, offset, var) = (self.new_var(elem), self.new_var(offset_elem), self.new_var(elem));
        self.emit_in_nest(Stmt::Assign { dst: base, expr: Expr::LoadScratch { buf, index: first }, span });
        self.emit_in_nest(Stmt::Assign { dst: offset, expr: Expr::Index(step), span });
        let sum = match elem {
            Elem::Ptr(_) => Expr::AddPtr { ptr: base, offset },
            Elem::Scalar(_) => Expr::Binary(BinaryOp::Add, base, offset),
        };
        self.emit_in_nest(Stmt::Assign { dst: var, expr: sum, span });
        Some(var)
    }

    /// The variable holding `r` at the open nest's index (computed once per nest).
    fn read_remat(&mut self, r: &Rc<Remat>, span: Span) -> Var {
        let open = self.open.as_mut().expect("a nest is open");
        emit_remat(&mut self.out, r, &mut open.body, &mut open.remat, span)
    }

    /// Records `var` as the value `result` computed by `op` in the open nest.
    fn define_in_nest(&mut self, op: OpId, result: Value, var: Var) {
        let open = self.nest();
        open.ops.insert(op);
        open.defined.push((result, var));
        self.locs.insert(result, Loc::InNest(var));
    }

    /// The buffer + map through which `v` can be read after the open nest closes.
    fn as_buffer(&mut self, v: Value, span: Span) -> Result<Loc, Diagnostic> {
        let loc = self.loc(v, span)?;
        if let Loc::InNest(_) = loc {
            let shape = self.ty(v).shape.clone();
            let len = shape.iter().map(|&d| d as u64).product();
            let elem = self.ty(v).elem;
            let open = self.open.as_mut().expect("an in-nest value has an open nest");
            let buf = match open.spills.get(&v) {
                Some(&b) => b,
                None => {
                    let b = self.out.bufs.push(BufData { elem, len });
                    open.spills.insert(v, b);
                    open.writes.insert(b);
                    b
                }
            };
            return Ok(Loc::Buffer(buf, Affine::row_major(&shape)));
        }
        Ok(loc)
    }

    /// A contiguous row-major buffer holding `v` (copied when `v` is not one already).
    fn materialize(&mut self, v: Value, span: Span) -> Result<Buf, Diagnostic> {
        let loc = self.as_buffer(v, span)?;
        let shape = self.ty(v).shape.clone();
        self.close_nest();
        if let Loc::Buffer(buf, index) = &loc {
            if *index == Affine::row_major(&shape) {
                return Ok(*buf);
            }
        }
        let len = shape.iter().map(|&d| d as u64).product();
        let buf = self.out.new_buf(self.ty(v).elem, len);
        self.copy_loc_into(&loc, self.ty(v).elem, &shape, buf, span);
        Ok(buf)
    }

    /// Places a nest (in the current block, no nest open) copying a tensor at `loc` into the
    /// contiguous buffer `dst`.
    fn copy_loc_into(&mut self, loc: &Loc, elem: Elem, shape: &[u32], dst: Buf, span: Span) {
        let indices: Vec<Var> = shape.iter().map(|_| self.new_var(Elem::Scalar(ScalarType::I64))).collect();
        let mut body = Vec::new();
        let value = match loc {
            Loc::Scalar(v) | Loc::Uniform(v) | Loc::InNest(v) => *v,
            Loc::Iota(index) => {
                let v = self.new_var(elem);
                body.push(Stmt::Assign { dst: v, expr: Expr::Index(index.clone()), span });
                v
            }
            Loc::Buffer(buf, index) => {
                let v = self.new_var(elem);
                body.push(Stmt::Assign { dst: v, expr: Expr::LoadScratch { buf: *buf, index: index.clone() }, span });
                v
            }
            Loc::Remat(r) => emit_remat(&mut self.out, r, &mut body, &mut Vec::new(), span),
        };
        body.push(Stmt::StoreScratch { buf: dst, index: Affine::row_major(shape), value });
        self.block.push(Stmt::Nest(Nest { shape: shape.to_vec(), indices, body }));
    }

    /// Copies the scalar `v` into the variable `dst`.
    fn copy_scalar(&mut self, v: Value, dst: Var, span: Span) -> Result<(), Diagnostic> {
        let Loc::Scalar(src) = self.loc(v, span)? else {
            return Err(unsupported("a tensor where a scalar is expected", span));
        };
        self.assign(dst, Expr::Copy(src), span);
        Ok(())
    }

    /// A fresh slot for a value of type `ty`.
    fn new_slot(&mut self, ty: &ir::Type, name: Option<String>) -> Slot {
        if ty.is_tensor() {
            Slot::Buf(self.out.new_buf(ty.elem, ty.numel()))
        } else {
            Slot::Var(self.out.new_var(ty.elem, name))
        }
    }

    fn slot_loc(&self, slot: Slot, ty: &ir::Type) -> Loc {
        match slot {
            Slot::Var(v) => Loc::Scalar(v),
            Slot::Buf(b) => Loc::Buffer(b, Affine::row_major(&ty.shape)),
        }
    }

    /// Copies `values` into `slots` as a parallel assignment: values that read a slot being
    /// assigned are first copied into temporaries.
    fn parallel_copy(&mut self, values: &[Value], slots: &[Slot], span: Span) -> Result<(), Diagnostic> {
        let slot_bufs: HashSet<Buf> =
            slots.iter().filter_map(|s| if let Slot::Buf(b) = s { Some(*b) } else { None }).collect();
        let fused = self.fuse_copies(values, slots, &slot_bufs, span)?;
        self.close_nest();
        // Values reading a buffer slot are snapshotted first; tensors are copied before scalar
        // slots are assigned (a uniform tensor may read a scalar slot).
        let mut scalar_temps = Vec::new();
        let mut tensor_copies = Vec::new();
        for ((&v, &slot), fused) in values.iter().zip(slots).zip(fused) {
            match slot {
                Slot::Buf(_) if fused => {}
                Slot::Buf(dst) => {
                    let loc = self.loc(v, span)?;
                    let ty = self.ty(v).clone();
                    let in_place =
                        matches!(&loc, Loc::Buffer(b, index) if *b == dst && *index == Affine::row_major(&ty.shape));
                    let reads_slot = matches!(&loc, Loc::Buffer(b, _) if slot_bufs.contains(b));
                    if in_place {
                        continue;
                    }
                    if reads_slot {
                        let tmp = self.out.new_buf(ty.elem, ty.numel());
                        self.copy_loc_into(&loc, ty.elem, &ty.shape, tmp, span);
                        tensor_copies.push((Loc::Buffer(tmp, Affine::row_major(&ty.shape)), ty, dst));
                    } else {
                        tensor_copies.push((loc, ty, dst));
                    }
                }
                Slot::Var(dst) => {
                    let tmp = self.new_var(self.ty(v).elem);
                    self.copy_scalar(v, tmp, span)?;
                    scalar_temps.push((dst, tmp));
                }
            }
        }
        for (loc, ty, dst) in tensor_copies {
            self.copy_loc_into(&loc, ty.elem, &ty.shape, dst, span);
        }
        for (dst, tmp) in scalar_temps {
            self.assign(dst, Expr::Copy(tmp), span);
        }
        Ok(())
    }

    /// The tensor copies of [`Self::parallel_copy`] done by the open nest (one pass instead
    /// of a nest per copy): a value of the nest's shape held in a buffer the nest does not
    /// write and that is no slot, copied into a slot the nest neither reads nor writes. So
    /// every source is read before any slot is written. Which copies it did, per value.
    fn fuse_copies(
        &mut self,
        values: &[Value],
        slots: &[Slot],
        slot_bufs: &HashSet<Buf>,
        span: Span,
    ) -> Result<Vec<bool>, Diagnostic> {
        let mut fused = vec![false; values.len()];
        let locs = values.iter().map(|&v| self.loc(v, span)).collect::<Result<Vec<_>, _>>()?;
        // A value read from a slot is snapshotted after the nest: then nothing is fused.
        if locs.iter().any(|loc| matches!(loc, Loc::Buffer(b, _) if slot_bufs.contains(b))) {
            return Ok(fused);
        }
        for (k, ((&v, &slot), loc)) in values.iter().zip(slots).zip(&locs).enumerate() {
            let (Slot::Buf(dst), Loc::Buffer(src, _), Some(open)) = (slot, loc, &self.open) else { continue };
            let reads_dst = open.body.iter().any(|s| {
                matches!(s, Stmt::Assign { expr: Expr::LoadScratch { buf, .. } | Expr::LoadScratchAt { buf, .. }, .. } if *buf == dst)
            });
            let fits = open.shape == self.ty(v).shape
                && !open.writes.contains(src)
                && !open.writes.contains(&dst)
                && !reads_dst;
            if !fits {
                continue;
            }
            let index = Affine::row_major(&open.shape);
            let value = self.read(v, span)?;
            self.emit_in_nest(Stmt::StoreScratch { buf: dst, index, value });
            self.nest().writes.insert(dst);
            fused[k] = true;
        }
        Ok(fused)
    }

    // ----- ops -----------------------------------------------------------------------

    fn lower_op(&mut self, op_id: OpId) -> Result<(), Diagnostic> {
        if self.deferred.contains(&op_id) {
            return Ok(());
        }
        let op = &self.src.ops[op_id];
        let span = op.span;
        let result = op.results.first().copied();
        let result_ty = result.map(|r| self.ty(r).clone());
        match &op.kind {
            OpKind::Constant(c) => {
                let ty = result_ty.expect("constant has a result");
                let var = self.scalar_const(ty.elem, *c, span);
                let loc = if ty.is_tensor() { Loc::Uniform(var) } else { Loc::Scalar(var) };
                self.locs.insert(result.unwrap(), loc);
            }
            OpKind::ProgramId(axis) => self.scalar_expr(op_id, Expr::ProgramId(*axis)),
            OpKind::NumPrograms(axis) => self.scalar_expr(op_id, Expr::NumPrograms(*axis)),
            OpKind::MakeRange { start, .. } => {
                self.locs.insert(result.unwrap(), Loc::Iota(Affine { offset: *start as i64, strides: vec![1] }));
            }
            OpKind::Splat(v) => {
                let Loc::Scalar(var) = self.loc(*v, span)? else {
                    return Err(unsupported("splat of a tensor", span));
                };
                self.locs.insert(result.unwrap(), Loc::Uniform(var));
            }
            OpKind::Hint { value, .. } => {
                let loc = self.loc(*value, span)?;
                if let (Loc::InNest(var), Some(open)) = (&loc, &mut self.open) {
                    // The same variable: the hint is part of the nest, not a use outside it.
                    open.ops.insert(op_id);
                    open.defined.push((result.unwrap(), *var));
                }
                self.locs.insert(result.unwrap(), loc);
            }
            OpKind::Broadcast(v)
            | OpKind::ExpandDims { value: v, .. }
            | OpKind::Trans { value: v, .. }
            | OpKind::Reshape(v) => {
                self.lower_view(op_id, *v)?;
            }
            OpKind::Binary { op: bop, lhs, rhs } => {
                self.elementwise(op_id, &[*lhs, *rhs], false, |vs| Expr::Binary(*bop, vs[0], vs[1]))?
            }
            OpKind::Unary { op: uop, value } => {
                self.elementwise(op_id, &[*value], false, |vs| Expr::Unary(*uop, vs[0]))?
            }
            OpKind::Math { func, value } => self.elementwise(op_id, &[*value], false, |vs| Expr::Math(*func, vs[0]))?,
            OpKind::Fma { a, b, c } => {
                self.elementwise(op_id, &[*a, *b, *c], false, |vs| Expr::Fma(vs[0], vs[1], vs[2]))?
            }
            OpKind::Cmp { pred, lhs, rhs } => {
                self.elementwise(op_id, &[*lhs, *rhs], false, |vs| Expr::Cmp(*pred, vs[0], vs[1]))?
            }
            OpKind::Select { cond, on_true, on_false } => {
                self.elementwise(op_id, &[*cond, *on_true, *on_false], false, |vs| Expr::Select {
                    cond: vs[0],
                    on_true: vs[1],
                    on_false: vs[2],
                })?
            }
            OpKind::Cast { op: cop, value } => {
                self.elementwise(op_id, &[*value], false, |vs| Expr::Cast(*cop, vs[0]))?
            }
            OpKind::AddPtr { ptr, offset } => {
                self.elementwise(op_id, &[*ptr, *offset], false, |vs| Expr::AddPtr { ptr: vs[0], offset: vs[1] })?
            }
            OpKind::Load { ptr, mask, other } => {
                let operands: Vec<Value> = [Some(*ptr), *mask, *other].into_iter().flatten().collect();
                let (has_mask, has_other) = (mask.is_some(), other.is_some());
                if let Some(r) = self.remat_load(op_id, &operands, has_mask, has_other) {
                    self.locs.insert(result.expect("a load has a result"), Loc::Remat(r));
                    return Ok(());
                }
                self.elementwise(op_id, &operands, true, |vs| Expr::Load {
                    ptr: vs[0],
                    mask: has_mask.then(|| vs[1]),
                    other: has_other.then(|| vs[if has_mask { 2 } else { 1 }]),
                })?
            }
            OpKind::AtomicRmw { op: aop, ptr, value, mask, sem } => {
                let operands: Vec<Value> = [Some(*ptr), Some(*value), *mask].into_iter().flatten().collect();
                let has_mask = mask.is_some();
                self.elementwise(op_id, &operands, true, |vs| Expr::AtomicRmw {
                    op: *aop,
                    ptr: vs[0],
                    value: vs[1],
                    mask: has_mask.then(|| vs[2]),
                    sem: *sem,
                })?;
                self.mark_store();
            }
            OpKind::AtomicCas { ptr, cmp, value, sem } => {
                self.elementwise(op_id, &[*ptr, *cmp, *value], true, |vs| Expr::AtomicCas {
                    ptr: vs[0],
                    cmp: vs[1],
                    value: vs[2],
                    sem: *sem,
                })?;
                self.mark_store();
            }
            OpKind::Store { ptr, value, mask } => {
                let operands: Vec<Value> = [Some(*ptr), Some(*value), *mask].into_iter().flatten().collect();
                let shape = self.ty(*ptr).shape.clone();
                if shape.is_empty() {
                    self.close_nest();
                    let vars = self.read_scalars(&operands, span)?;
                    self.block.push(Stmt::Store { ptr: vars[0], value: vars[1], mask: vars.get(2).copied(), span });
                } else {
                    self.nest_for(&shape, &operands, false);
                    let vars = operands.iter().map(|&v| self.read(v, span)).collect::<Result<Vec<_>, _>>()?;
                    self.emit_in_nest(Stmt::Store { ptr: vars[0], value: vars[1], mask: vars.get(2).copied(), span });
                    self.nest().ops.insert(op_id);
                    self.nest().has_store = true;
                }
            }
            OpKind::Assert { cond, message } => {
                let shape = self.ty(*cond).shape.clone();
                let stmt = |var| Stmt::Assert { cond: var, message: message.clone(), span };
                if shape.is_empty() {
                    self.close_nest();
                    let var = self.read_scalars(&[*cond], span)?[0];
                    self.block.push(stmt(var));
                } else {
                    self.nest_for(&shape, &[*cond], false);
                    let var = self.read(*cond, span)?;
                    self.emit_in_nest(stmt(var));
                    self.nest().ops.insert(op_id);
                }
            }
            // What an assumption states was used by the analyses; nothing runs for it.
            OpKind::DebugBarrier | OpKind::Assume { .. } => {}
            OpKind::Print { .. } => return Err(unsupported("`tl.device_print`", span)),
            OpKind::Reduce { kind, value, axis } => self.lower_reduce(op_id, *kind, *value, *axis)?,
            OpKind::ReduceCustom { values, axis, combine } => {
                self.lower_reduce_custom(op_id, values, *axis, *combine)?
            }
            OpKind::Scan { kind, value, axis, reverse } => {
                let op = match kind {
                    ScanKind::Sum => AccOp::Sum,
                    ScanKind::Prod => AccOp::Prod,
                    ScanKind::Max => AccOp::Max,
                    ScanKind::Min => AccOp::Min,
                };
                self.lower_scan(op_id, Combine::Op(op), &[*value], *axis, *reverse)?
            }
            OpKind::ScanCustom { values, axis, reverse, combine } => {
                self.lower_scan(op_id, Combine::Region(*combine), values, *axis, *reverse)?
            }
            OpKind::Gather { src, index, axis } => self.lower_gather(op_id, *src, *index, *axis)?,
            OpKind::Dot { a, b, acc, .. } => self.lower_dot(op_id, *a, *b, *acc)?,
            OpKind::For { lower, upper, step, init, body } => {
                self.lower_for(op_id, *lower, *upper, *step, init, *body)?
            }
            OpKind::If { cond, then_region, else_region } => self.lower_if(op_id, *cond, *then_region, *else_region)?,
            OpKind::While { init, before, after } => self.lower_while(op_id, init, *before, *after)?,
            OpKind::Yield(_) | OpKind::Condition { .. } => {
                return Err(unsupported("a terminator in the middle of a region", span));
            }
        }
        Ok(())
    }

    fn mark_store(&mut self) {
        if let Some(open) = &mut self.open {
            open.has_store = true;
        }
    }

    /// Scalar variables of scalar operands (no nest involved).
    fn read_scalars(&mut self, operands: &[Value], span: Span) -> Result<Vec<Var>, Diagnostic> {
        operands
            .iter()
            .map(|&v| match self.loc(v, span)? {
                Loc::Scalar(var) => Ok(var),
                _ => Err(unsupported("a tensor operand of a scalar op", span)),
            })
            .collect()
    }

    fn scalar_expr(&mut self, op_id: OpId, expr: Expr) {
        let op = &self.src.ops[op_id];
        let result = op.results[0];
        let var = self.new_var_for(result);
        self.assign(var, expr, op.span);
        self.locs.insert(result, Loc::Scalar(var));
    }

    /// An elementwise op: scalar when its result is, else joins (or opens) the nest of its
    /// result shape. `effect`: a load/atomic that must follow earlier effects in order.
    fn elementwise(
        &mut self,
        op_id: OpId,
        operands: &[Value],
        effect: bool,
        make: impl FnOnce(&[Var]) -> Expr,
    ) -> Result<(), Diagnostic> {
        let op = &self.src.ops[op_id];
        let span = op.span;
        let result = op.results[0];
        let shape = self.ty(result).shape.clone();
        if shape.is_empty() {
            // A scalar load goes ahead of an open nest that stores nothing, as pure scalar
            // ops do (loads commute); other effects close the nest first.
            let load_ahead = matches!(op.kind, OpKind::Load { .. }) && self.open.as_ref().is_none_or(|o| !o.has_store);
            if effect && !load_ahead {
                self.close_nest();
            }
            let vars = self.read_scalars(operands, span)?;
            let expr = make(&vars);
            self.scalar_expr(op_id, expr);
            return Ok(());
        }
        if let Some(r) = self.remat_of(op_id, operands) {
            self.locs.insert(result, Loc::Remat(r));
            return Ok(());
        }
        self.nest_for(&shape, operands, effect);
        let vars = operands.iter().map(|&v| self.read(v, span)).collect::<Result<Vec<_>, _>>()?;
        let var = self.new_var_for(result);
        self.emit_in_nest(Stmt::Assign { dst: var, expr: make(&vars), span });
        self.define_in_nest(op_id, result, var);
        Ok(())
    }

    /// The [`Remat`] tree of the tensor op `op_id` when it is cheap enough to recompute in
    /// every reading nest: an integer, boolean or pointer op (no division, no load) of
    /// uniform, index and remat operands, at least one of them varying, within
    /// [`MAX_REMAT_NODES`].
    fn remat_of(&self, op_id: OpId, operands: &[Value]) -> Option<Rc<Remat>> {
        let op = &self.src.ops[op_id];
        let elem = self.ty(op.results[0]).elem;
        if !is_index_like(elem) {
            return None;
        }
        let rop = match &op.kind {
            OpKind::Binary { op: b, .. } => match b {
                BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::Mul
                | BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Xor
                | BinaryOp::Shl
                | BinaryOp::Shr
                | BinaryOp::Max
                | BinaryOp::Min => RematOp::Binary(*b),
                _ => return None,
            },
            OpKind::Unary { op: u @ (UnaryOp::Neg | UnaryOp::Not), .. } => RematOp::Unary(*u),
            OpKind::Cmp { pred, .. } => RematOp::Cmp(*pred),
            OpKind::Cast { op: c, .. } => RematOp::Cast(*c),
            OpKind::Select { .. } => RematOp::Select,
            OpKind::AddPtr { .. } => RematOp::AddPtr,
            _ => return None,
        };
        let mut varying = false;
        let mut args = Vec::with_capacity(operands.len());
        for &v in operands {
            args.push(match self.locs.get(&v)? {
                Loc::Scalar(x) | Loc::Uniform(x) => Rc::new(Remat::Uniform(*x)),
                Loc::Iota(a) => {
                    varying = true;
                    Rc::new(Remat::Index(a.clone(), self.ty(v).elem))
                }
                Loc::Remat(r) => {
                    varying = true;
                    r.clone()
                }
                Loc::Buffer(..) | Loc::InNest(_) => return None,
            });
        }
        let tree = Rc::new(Remat::Op { elem, op: rop, args });
        (varying && tree.nodes() <= MAX_REMAT_NODES).then_some(tree)
    }

    /// The [`Remat`] tree of the tensor load `op_id` (operands pointer, mask, other) when
    /// every reading nest may load it again: its pointer varies, its operands are uniform,
    /// index or remat values and no store comes between it and its last user
    /// ([`Self::load_remat_safe`]).
    fn remat_load(&self, op_id: OpId, operands: &[Value], mask: bool, other: bool) -> Option<Rc<Remat>> {
        let result = self.src.ops[op_id].results[0];
        if self.ty(result).shape.is_empty() {
            return None;
        }
        let mut args = Vec::with_capacity(operands.len());
        for (k, &v) in operands.iter().enumerate() {
            args.push(match self.locs.get(&v)? {
                Loc::Scalar(x) | Loc::Uniform(x) if k > 0 => Rc::new(Remat::Uniform(*x)),
                Loc::Iota(a) => Rc::new(Remat::Index(a.clone(), self.ty(v).elem)),
                Loc::Remat(r) if !r.loads() => r.clone(),
                _ => return None,
            });
        }
        // A dot reads its operands from scratch anyway: the loading nest makes that copy.
        let dot_operand =
            self.users.get(&result).into_iter().flatten().any(|&u| matches!(self.src.ops[u].kind, OpKind::Dot { .. }));
        if dot_operand || !self.load_remat_safe(op_id) {
            return None;
        }
        let span = self.src.ops[op_id].span;
        Some(Rc::new(Remat::Op { elem: self.ty(result).elem, op: RematOp::Load { mask, other, span }, args }))
    }

    /// Whether loading `load`'s elements again wherever its value is read gives what was
    /// loaded: every op that uses the value, directly or through other values, is in the
    /// load's own region, and no op between the load and the last of them writes global
    /// memory (stores, atomics, and every op holding regions, which may).
    fn load_remat_safe(&self, load: OpId) -> bool {
        let region = self.op_region[&load];
        let ops = &self.src.regions[region].ops;
        let position = |op: OpId| ops.iter().position(|&o| o == op);
        let Some(start) = position(load) else { return false };
        let mut last = start;
        let mut seen: HashSet<OpId> = HashSet::default();
        let mut values: Vec<Value> = self.src.ops[load].results.clone();
        while let Some(v) = values.pop() {
            for &user in self.users.get(&v).into_iter().flatten() {
                if !seen.insert(user) {
                    continue;
                }
                match position(user) {
                    Some(p) => last = last.max(p),
                    None => return false,
                }
                values.extend(self.src.ops[user].results.iter().copied());
            }
        }
        ops[start + 1..last.max(start + 1)].iter().all(|&o| {
            let kind = &self.src.ops[o].kind;
            kind.regions().is_empty()
                && !matches!(kind, OpKind::Store { .. } | OpKind::AtomicRmw { .. } | OpKind::AtomicCas { .. })
        })
    }

    // ----- views ---------------------------------------------------------------------

    fn lower_view(&mut self, op_id: OpId, operand: Value) -> Result<(), Diagnostic> {
        let op = &self.src.ops[op_id];
        let span = op.span;
        let result = op.results[0];
        let from = self.ty(operand).shape.clone();
        let to = self.ty(result).shape.clone();
        let loc = match self.loc(operand, span)? {
            Loc::Scalar(v) | Loc::Uniform(v) => Loc::Uniform(v),
            Loc::InNest(_) => self.as_buffer(operand, span)?,
            other => other,
        };
        let remap = |index: &Affine| -> Option<Affine> {
            match &op.kind {
                OpKind::Broadcast(_) => Some(Affine {
                    offset: index.offset,
                    strides: from
                        .iter()
                        .zip(&to)
                        .zip(&index.strides)
                        .map(|((&f, &t), &s)| if f == 1 && t != 1 { 0 } else { s })
                        .collect(),
                }),
                OpKind::ExpandDims { axis, .. } => {
                    let mut strides = index.strides.clone();
                    strides.insert((*axis as usize).min(strides.len()), 0);
                    Some(Affine { offset: index.offset, strides })
                }
                OpKind::Trans { order, .. } => Some(Affine {
                    offset: index.offset,
                    strides: order.iter().map(|&d| index.strides.get(d as usize).copied().unwrap_or(0)).collect(),
                }),
                OpKind::Reshape(_) => {
                    // Contiguous (a multiple of row-major strides, size-1 dims ignored): reshape freely.
                    let row = row_major_strides(&from);
                    let scale = from.iter().rposition(|&d| d != 1).map_or(0, |k| index.strides[k]);
                    let contiguous =
                        index.strides.iter().zip(&row).zip(&from).all(|((&s, &r), &d)| d == 1 || s == r * scale);
                    contiguous.then(|| Affine {
                        offset: index.offset,
                        strides: row_major_strides(&to).iter().map(|r| r * scale).collect(),
                    })
                }
                _ => None,
            }
        };
        let new_loc = match &loc {
            Loc::Uniform(v) => Some(Loc::Uniform(*v)),
            Loc::Iota(index) => remap(index).map(Loc::Iota),
            Loc::Buffer(buf, index) => remap(index).map(|i| Loc::Buffer(*buf, i)),
            Loc::Remat(r) => r.remap(&remap).map(Loc::Remat),
            Loc::Scalar(_) | Loc::InNest(_) => None,
        };
        let new_loc = match new_loc {
            Some(l) => l,
            None => {
                // A reshape of a non-contiguous view: copy into a contiguous buffer first.
                let buf = self.materialize(operand, span)?;
                let index = Affine::row_major(&from);
                Loc::Buffer(buf, remap(&index).ok_or_else(|| unsupported("this view", span))?)
            }
        };
        self.locs.insert(result, new_loc);
        Ok(())
    }

    // ----- reductions, scans, dot ----------------------------------------------------

    /// The accumulator map for a reduction along `axis` of `shape`: row-major over the
    /// remaining dims, stride 0 along `axis`.
    fn reduced_index(shape: &[u32], axis: usize) -> (Vec<u32>, Affine) {
        let mut reduced = shape.to_vec();
        reduced.remove(axis);
        let mut strides = row_major_strides(&reduced);
        strides.insert(axis, 0);
        (reduced, Affine { offset: 0, strides })
    }

    /// Fills `buf` (of `shape`'s elements) with the constant `c`: one block-level store when
    /// it has a single element (a reduction to a scalar), else a nest.
    fn fill(&mut self, buf: Buf, elem: Elem, shape: &[u32], c: Constant, span: Span) {
        let var = self.scalar_const(elem, c, span);
        if shape.iter().all(|&d| d == 1) {
            self.block.push(Stmt::StoreScratch { buf, index: Affine::constant(0), value: var });
        } else {
            self.copy_loc_into(&Loc::Uniform(var), elem, shape, buf, span);
        }
    }

    fn lower_reduce(&mut self, op_id: OpId, kind: ReduceKind, value: Value, axis: u32) -> Result<(), Diagnostic> {
        let op = &self.src.ops[op_id];
        let span = op.span;
        let shape = self.ty(value).shape.clone();
        let elem = self.ty(value).elem;
        let axis = axis as usize;
        if axis >= shape.len() {
            return Err(unsupported("a reduction along a missing axis", span));
        }
        let Elem::Scalar(st) = elem else {
            return Err(unsupported("a reduction of pointers", span));
        };
        let (reduced, acc_index) = Self::reduced_index(&shape, axis);
        let len = reduced.iter().map(|&d| d as u64).product::<u64>();
        let acc_shape = if reduced.is_empty() { vec![1] } else { reduced.clone() };
        // Accumulator initialization goes into the block, ahead of the open nest.
        let (acc, index_buf, stmt_for) = match kind {
            ReduceKind::ArgMax | ReduceKind::ArgMin => {
                let arg = if kind == ReduceKind::ArgMax { ArgKind::Max } else { ArgKind::Min };
                let vals = self.out.new_buf(elem, len);
                let idxs = self.out.new_buf(Elem::Scalar(ScalarType::I32), len);
                let start = if arg == ArgKind::Max { lowest(st) } else { highest(st) };
                self.fill(vals, elem, &acc_shape, start, span);
                self.fill(idxs, Elem::Scalar(ScalarType::I32), &acc_shape, Constant::Int(0), span);
                (vals, idxs, Some(arg))
            }
            _ => {
                let acc_op = match kind {
                    ReduceKind::Sum => AccOp::Sum,
                    ReduceKind::Prod => AccOp::Prod,
                    ReduceKind::Max => AccOp::Max,
                    ReduceKind::Min => AccOp::Min,
                    ReduceKind::Xor => AccOp::Xor,
                    ReduceKind::And => AccOp::And,
                    ReduceKind::Or => AccOp::Or,
                    ReduceKind::ArgMax | ReduceKind::ArgMin => unreachable!(),
                };
                let acc = self.out.new_buf(elem, len);
                self.fill(acc, elem, &acc_shape, identity(acc_op, st), span);
                (acc, acc, None)
            }
        };
        // `fill` placed nests in the block; the open nest (if any) stays after them.
        self.nest_for(&shape, &[value], false);
        let x = self.read(value, span)?;
        match stmt_for {
            Some(arg) => {
                let mut pos_strides = vec![0; shape.len()];
                pos_strides[axis] = 1;
                let position = self.new_var(Elem::Scalar(ScalarType::I32));
                self.emit_in_nest(Stmt::Assign {
                    dst: position,
                    expr: Expr::Index(Affine { offset: 0, strides: pos_strides }),
                    span,
                });
                self.emit_in_nest(Stmt::AccumulateArg {
                    vals: acc,
                    idxs: index_buf,
                    index: acc_index,
                    kind: arg,
                    value: x,
                    position,
                });
            }
            None => {
                let acc_op = acc_op_of(kind);
                self.emit_in_nest(Stmt::Accumulate { buf: acc, index: acc_index, op: acc_op, value: x });
            }
        }
        self.nest().writes.insert(acc);
        let result_bufs: &[Buf] = if kind.is_arg() { &[acc, index_buf] } else { &[acc] };
        self.finish_reduction(op_id, result_bufs, &reduced, span);
        Ok(())
    }

    /// Records reduction `op_id` in the open nest; its results are `result_bufs` (one per
    /// result, row-major over `reduced`), read into scalars after the nest when `reduced`
    /// is empty.
    fn finish_reduction(&mut self, op_id: OpId, result_bufs: &[Buf], reduced: &[u32], span: Span) {
        let results = self.src.ops[op_id].results.clone();
        let open = self.nest();
        open.ops.insert(op_id);
        open.writes.extend(result_bufs.iter().copied());
        if reduced.is_empty() {
            self.close_nest();
        }
        for (&result, &buf) in results.iter().zip(result_bufs) {
            if reduced.is_empty() {
                let var = self.new_var_for(result);
                self.assign(var, Expr::LoadScratch { buf, index: Affine::constant(0) }, span);
                self.locs.insert(result, Loc::Scalar(var));
            } else {
                self.locs.insert(result, Loc::Buffer(buf, Affine::row_major(reduced)));
            }
        }
    }

    fn lower_scan(
        &mut self,
        op_id: OpId,
        combine: Combine,
        values: &[Value],
        axis: u32,
        reverse: bool,
    ) -> Result<(), Diagnostic> {
        let op = &self.src.ops[op_id];
        let span = op.span;
        let results = op.results.clone();
        let shape = self.ty(values[0]).shape.clone();
        let axis = axis as usize;
        if axis >= shape.len() {
            return Err(unsupported("a scan along a missing axis", span));
        }
        let (reduced, acc_index) = Self::reduced_index(&shape, axis);
        let len = reduced.iter().map(|&d| d as u64).product::<u64>();
        let acc_shape = if reduced.is_empty() { vec![1] } else { reduced };
        let mut accs = Vec::with_capacity(values.len());
        for &value in values {
            let elem = self.ty(value).elem;
            let Elem::Scalar(st) = elem else {
                return Err(unsupported("a scan of pointers", span));
            };
            let acc = self.out.new_buf(elem, len);
            if let Combine::Op(acc_op) = combine {
                self.fill(acc, elem, &acc_shape, identity(acc_op, st), span);
            }
            accs.push(acc);
        }
        if !reverse {
            self.nest_for(&shape, values, false);
            let xs = values.iter().map(|&v| self.read(v, span)).collect::<Result<Vec<_>, _>>()?;
            self.accumulate(combine, &accs, &acc_index, &xs, &shape, axis, span)?;
            for (&result, &acc) in results.iter().zip(&accs) {
                let var = self.new_var_for(result);
                let expr = Expr::LoadScratch { buf: acc, index: acc_index.clone() };
                self.emit_in_nest(Stmt::Assign { dst: var, expr, span });
                self.nest().writes.insert(acc);
                self.define_in_nest(op_id, result, var);
            }
            return Ok(());
        }
        // Reverse: a nest whose index k along `axis` stands for position n-1-k.
        let n = shape[axis] as i64;
        let flip = |index: &Affine| {
            let mut index = index.clone();
            index.offset += (n - 1) * index.strides[axis];
            index.strides[axis] = -index.strides[axis];
            index
        };
        let mut flipped = Vec::with_capacity(values.len());
        for &value in values {
            let loc = self.as_buffer(value, span)?;
            flipped.push(match &loc {
                Loc::Iota(index) => Loc::Iota(flip(index)),
                Loc::Buffer(buf, index) => Loc::Buffer(*buf, flip(index)),
                Loc::Remat(r) => Loc::Remat(r.remap(&|index| Some(flip(index))).expect("a flip always applies")),
                other => other.clone(),
            });
        }
        self.close_nest();
        let numel = shape.iter().map(|&d| d as u64).product();
        let outs: Vec<Buf> = values.iter().map(|&v| self.out.new_buf(self.ty(v).elem, numel)).collect();
        self.open_nest(&shape);
        let mut xs = Vec::with_capacity(values.len());
        for (&value, loc) in values.iter().zip(flipped) {
            let x = self.new_var(self.ty(value).elem);
            let read = match loc {
                Loc::Iota(index) => Expr::Index(index),
                Loc::Buffer(buf, index) => Expr::LoadScratch { buf, index },
                Loc::Scalar(v) | Loc::Uniform(v) | Loc::InNest(v) => Expr::Copy(v),
                Loc::Remat(r) => Expr::Copy(self.read_remat(&r, span)),
            };
            self.emit_in_nest(Stmt::Assign { dst: x, expr: read, span });
            xs.push(x);
        }
        self.accumulate(combine, &accs, &acc_index, &xs, &shape, axis, span)?;
        for ((&value, &acc), &out) in values.iter().zip(&accs).zip(&outs) {
            let y = self.new_var(self.ty(value).elem);
            self.emit_in_nest(Stmt::Assign {
                dst: y,
                expr: Expr::LoadScratch { buf: acc, index: acc_index.clone() },
                span,
            });
            self.emit_in_nest(Stmt::StoreScratch { buf: out, index: flip(&Affine::row_major(&shape)), value: y });
        }
        self.nest().ops.insert(op_id);
        self.close_nest();
        for (&result, &out) in results.iter().zip(&outs) {
            self.locs.insert(result, Loc::Buffer(out, Affine::row_major(&shape)));
        }
        Ok(())
    }

    /// Emits into the open nest the accumulation of `xs` into `accs[k][index]` (the nest's
    /// index along `axis` runs in combine order); a built-in op takes one value.
    #[allow(clippy::too_many_arguments)]
    fn accumulate(
        &mut self,
        combine: Combine,
        accs: &[Buf],
        index: &Affine,
        xs: &[Var],
        shape: &[u32],
        axis: usize,
        span: Span,
    ) -> Result<(), Diagnostic> {
        match combine {
            Combine::Op(op) => {
                self.emit_in_nest(Stmt::Accumulate { buf: accs[0], index: index.clone(), op, value: xs[0] })
            }
            Combine::Region(region) => {
                let mut strides = vec![0; shape.len()];
                strides[axis] = 1;
                let position = self.new_var(Elem::Scalar(ScalarType::I32));
                self.emit_in_nest(Stmt::Assign {
                    dst: position,
                    expr: Expr::Index(Affine { offset: 0, strides }),
                    span,
                });
                let params = self.src.regions[region].params.clone();
                let n = accs.len();
                if params.len() != 2 * n || xs.len() != n {
                    return Err(unsupported("a combine function whose parameters do not match its operands", span));
                }
                let mut acc_vars = Vec::with_capacity(n);
                for k in 0..n {
                    let acc_var = self.new_var_for(params[k]);
                    self.locs.insert(params[k], Loc::Scalar(acc_var));
                    self.locs.insert(params[n + k], Loc::Scalar(xs[k]));
                    acc_vars.push(acc_var);
                }
                let body = self.lower_region(region)?;
                if body.iter().any(|s| !matches!(s, Stmt::Assign { .. })) {
                    return Err(unsupported("a combine function with effects or control flow", span));
                }
                let results = match self.terminator(region).map(|t| &t.kind) {
                    Some(OpKind::Yield(values)) if values.len() == n => self.read_scalars(values, span)?,
                    _ => return Err(unsupported("a combine function not yielding one value per operand", span)),
                };
                self.emit_in_nest(Stmt::AccumulateWith {
                    bufs: accs.to_vec(),
                    index: index.clone(),
                    values: xs.to_vec(),
                    position,
                    accs: acc_vars,
                    body,
                    results,
                });
            }
        }
        Ok(())
    }

    fn lower_reduce_custom(
        &mut self,
        op_id: OpId,
        values: &[Value],
        axis: u32,
        combine: ir::RegionId,
    ) -> Result<(), Diagnostic> {
        let op = &self.src.ops[op_id];
        let span = op.span;
        let shape = self.ty(values[0]).shape.clone();
        let axis = axis as usize;
        if axis >= shape.len() {
            return Err(unsupported("a reduction along a missing axis", span));
        }
        let (reduced, acc_index) = Self::reduced_index(&shape, axis);
        let len = reduced.iter().map(|&d| d as u64).product();
        let accs: Vec<Buf> = values.iter().map(|&v| self.out.new_buf(self.ty(v).elem, len)).collect();
        self.nest_for(&shape, values, false);
        let xs = values.iter().map(|&v| self.read(v, span)).collect::<Result<Vec<_>, _>>()?;
        self.accumulate(Combine::Region(combine), &accs, &acc_index, &xs, &shape, axis, span)?;
        self.finish_reduction(op_id, &accs, &reduced, span);
        Ok(())
    }

    /// `tt.gather`. When the index tensor is an affine function of its element index known
    /// at compile time and in range (split, flip, the partner exchange of a sort), the result
    /// is a view of the source, as `trans` is. Otherwise each element reads the source's
    /// scratch buffer at the position its index chooses at run time.
    fn lower_gather(&mut self, op_id: OpId, src: Value, index: Value, axis: u32) -> Result<(), Diagnostic> {
        let op = &self.src.ops[op_id];
        let span = op.span;
        let result = op.results[0];
        let axis = axis as usize;
        let src_shape = self.ty(src).shape.clone();
        let out_shape = self.ty(result).shape.clone();
        let n = src_shape[axis];
        if !n.is_power_of_two() {
            return Err(unsupported("a gather along a dimension whose size is not a power of two", span));
        }
        let loc = match self.loc(src, span)? {
            Loc::InNest(_) => self.as_buffer(src, span)?,
            other => other,
        };
        if let Loc::Uniform(v) | Loc::Scalar(v) = loc {
            self.locs.insert(result, Loc::Uniform(v));
            return Ok(());
        }
        if let Some(chosen) = self.static_affine(index) {
            let (lowest, highest) = affine_range(&chosen, &out_shape);
            if lowest >= 0 && highest < i128::from(n) {
                let remap = |pos: &Affine| -> Option<Affine> {
                    let along = pos.strides[axis];
                    let mut strides = pos.strides.clone();
                    strides[axis] = 0;
                    for (s, c) in strides.iter_mut().zip(&chosen.strides) {
                        *s += along * c;
                    }
                    Some(Affine { offset: pos.offset + along * chosen.offset, strides })
                };
                let view = match &loc {
                    Loc::Iota(pos) => remap(pos).map(Loc::Iota),
                    Loc::Buffer(buf, pos) => remap(pos).map(|p| Loc::Buffer(*buf, p)),
                    Loc::Remat(r) => r.remap(&remap).map(Loc::Remat),
                    _ => None,
                };
                if let Some(view) = view {
                    self.locs.insert(result, view);
                    return Ok(());
                }
            }
        }
        let (buf, pos) = match loc {
            Loc::Buffer(buf, pos) => (buf, pos),
            _ => (self.materialize(src, span)?, Affine::row_major(&src_shape)),
        };
        if self.open.as_ref().is_some_and(|open| open.writes.contains(&buf)) {
            self.close_nest();
        }
        self.nest_for(&out_shape, &[index], false);
        let at = self.read(index, span)?;
        let mut base = pos;
        let stride = base.strides[axis];
        base.strides[axis] = 0;
        let var = self.new_var_for(result);
        let expr = Expr::LoadScratchAt { buf, index: base, at, len: n, stride };
        self.emit_in_nest(Stmt::Assign { dst: var, expr, span });
        self.define_in_nest(op_id, result, var);
        Ok(())
    }

    /// The integer tensor (or scalar) `v` as an affine function of its element index, when
    /// the source computes it from ranges and integer constants with views, `+`, `-`,
    /// multiplication by a constant, negation and integer casts, and no step leaves its
    /// type's range (so every step is exact).
    fn static_affine(&self, v: Value) -> Option<Affine> {
        let ty = self.ty(v);
        let st = ty.scalar_type().filter(|s| s.is_int() && !s.is_bool())?;
        let rank = ty.shape.len();
        let (_, kind) = self.def_op(v)?;
        let constant = |a: &Affine| a.strides.iter().all(|&s| s == 0);
        let affine = match kind {
            OpKind::Constant(Constant::Int(c)) => Affine { offset: *c, strides: vec![0; rank] },
            OpKind::MakeRange { start, .. } => Affine { offset: i64::from(*start), strides: vec![1] },
            OpKind::Splat(x) => Affine { offset: self.static_affine(*x)?.offset, strides: vec![0; rank] },
            OpKind::Broadcast(x) => {
                let a = self.static_affine(*x)?;
                let from = &self.ty(*x).shape;
                let strides = a.strides.iter().zip(from).map(|(&s, &d)| if d == 1 { 0 } else { s }).collect();
                Affine { offset: a.offset, strides }
            }
            OpKind::ExpandDims { value, axis } => {
                let mut a = self.static_affine(*value)?;
                a.strides.insert((*axis as usize).min(a.strides.len()), 0);
                a
            }
            OpKind::Trans { value, order } => {
                let a = self.static_affine(*value)?;
                Affine { offset: a.offset, strides: order.iter().map(|&d| a.strides[d as usize]).collect() }
            }
            OpKind::Hint { value, .. }
            | OpKind::Cast { op: CastOp::IntExt | CastOp::IntTrunc | CastOp::IntRetype, value } => {
                self.static_affine(*value)?
            }
            OpKind::Unary { op: UnaryOp::Neg, value } => {
                let a = self.static_affine(*value)?;
                Affine { offset: a.offset.checked_neg()?, strides: a.strides.iter().map(|s| -s).collect() }
            }
            OpKind::Binary { op: op @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul), lhs, rhs } => {
                let (a, b) = (self.static_affine(*lhs)?, self.static_affine(*rhs)?);
                match op {
                    BinaryOp::Add | BinaryOp::Sub => {
                        let sign = if *op == BinaryOp::Sub { -1 } else { 1 };
                        let strides = a
                            .strides
                            .iter()
                            .zip(&b.strides)
                            .map(|(&x, &y)| x.checked_add(y.checked_mul(sign)?))
                            .collect::<Option<_>>()?;
                        Affine { offset: a.offset.checked_add(b.offset.checked_mul(sign)?)?, strides }
                    }
                    _ if constant(&b) || constant(&a) => {
                        let (x, c) = if constant(&b) { (a, b.offset) } else { (b, a.offset) };
                        Affine {
                            offset: x.offset.checked_mul(c)?,
                            strides: x.strides.iter().map(|s| s.checked_mul(c)).collect::<Option<_>>()?,
                        }
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        let (lowest, highest) = affine_range(&affine, &ty.shape);
        let bits = st.bits();
        let (min, max) = if st.is_signed_int() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        (affine.strides.len() == rank && lowest >= min && highest <= max).then_some(affine)
    }

    fn lower_dot(&mut self, op_id: OpId, a: Value, b: Value, acc: Value) -> Result<(), Diagnostic> {
        let op = &self.src.ops[op_id];
        let span = op.span;
        let result = op.results[0];
        let (sa, sb) = (self.ty(a).shape.clone(), self.ty(b).shape.clone());
        let (batch, m, k, n) = match (sa.as_slice(), sb.as_slice()) {
            ([m, k], [_, n]) => (1, *m, *k, *n),
            ([bt, m, k], [_, _, n]) => (*bt, *m, *k, *n),
            _ => return Err(unsupported("`tl.dot` of these shapes", span)),
        };
        let (a_op, b_op, k_limit) = match self.direct_operands(a, b, span)? {
            Some(direct) => direct,
            None => {
                self.undefer(a)?;
                self.undefer(b)?;
                let a_buf = self.materialize(a, span)?;
                let b_buf = self.materialize(b, span)?;
                (DotOperand::Scratch(a_buf), DotOperand::Scratch(b_buf), None)
            }
        };
        self.close_nest();
        let ty = self.ty(result).clone();
        let acc_loc = self.loc(acc, span)?;
        let scratch_operands: Vec<Buf> = [&a_op, &b_op].iter().filter_map(|o| o.scratch()).collect();
        let c = match self.reusable_acc(op_id, acc, &acc_loc, &scratch_operands) {
            Some(buf) => buf,
            None => {
                let c = self.out.new_buf(ty.elem, ty.numel());
                self.copy_loc_into(&acc_loc, ty.elem, &ty.shape, c, span);
                c
            }
        };
        self.block.push(Stmt::Dot(Dot { a: a_op, b: b_op, c, batch, m, n, k, k_limit }));
        for operand in [a, b] {
            if let Some(d) = self.direct.get(&operand) {
                self.done.extend(d.ops.iter().copied());
            }
        }
        self.locs.insert(result, Loc::Buffer(c, Affine::row_major(&ty.shape)));
        Ok(())
    }

    /// Both operands as [`DotOperand::Global`] and the k limit, when both are direct loads
    /// whose locations allow it (`None`: read them through scratch).
    fn direct_operands(
        &mut self,
        a: Value,
        b: Value,
        span: Span,
    ) -> Result<Option<(DotOperand, DotOperand, Option<Var>)>, Diagnostic> {
        let (Some(da), Some(db)) = (self.direct.get(&a).cloned(), self.direct.get(&b).cloned()) else {
            return Ok(None);
        };
        let (Some(bound_a), Some(bound_b)) = (self.k_bound(&da, 1), self.k_bound(&db, 0)) else {
            return Ok(None);
        };
        if bound_a != bound_b {
            return Ok(None);
        }
        let mut tiles = Vec::new();
        for d in [&da, &db] {
            let offset = match d.offset {
                Some(v) => match self.loc(v, span)? {
                    Loc::Scalar(var) => Some(var),
                    _ => return Ok(None),
                },
                None => None,
            };
            let (ptrs, index) = match self.as_buffer(d.ptr_tile, span)? {
                Loc::Buffer(buf, index) => (buf, index),
                _ => (self.materialize(d.ptr_tile, span)?, Affine::row_major(&self.ty(d.ptr_tile).shape)),
            };
            tiles.push(DotOperand::Global(GlobalTile { ptrs, index, offset, span: d.span }));
        }
        let b_tile = tiles.pop().expect("two tiles");
        let a_tile = tiles.pop().expect("two tiles");
        Ok(Some((a_tile, b_tile, bound_a)))
    }

    /// The k-limit variable of a direct load (`Some(None)` when it is not masked), or `None`
    /// when its mask is not `k < bound` along `k_axis` of the operand.
    fn k_bound(&self, d: &DirectLoad, k_axis: usize) -> Option<Option<Var>> {
        let (Some(bound), Some(k_index)) = (d.bound, d.k_index) else {
            return Some(None);
        };
        let Some(Loc::Iota(index)) = self.locs.get(&k_index) else { return None };
        let shape = &self.ty(k_index).shape;
        let is_k = index.offset == 0
            && index.strides.len() == 2
            && index.strides[k_axis] == 1
            && (index.strides[1 - k_axis] == 0 || shape[1 - k_axis] == 1);
        match self.locs.get(&bound) {
            Some(Loc::Scalar(var)) if is_k => Some(Some(*var)),
            _ => None,
        }
    }

    /// Lowers, in order, the deferred ops of the direct load `v` (a dot reads it through
    /// scratch after all).
    fn undefer(&mut self, v: Value) -> Result<(), Diagnostic> {
        let Some(d) = self.direct.remove(&v) else { return Ok(()) };
        for &op in &d.ops {
            self.deferred.remove(&op);
        }
        for &op in &d.ops {
            self.lower_op(op)?;
            self.done.insert(op);
        }
        Ok(())
    }

    // ----- direct dot operands (planned before lowering) ------------------------------

    /// Finds the dots of `region` (at any depth) whose two operands can be read straight from
    /// global memory and records them in `direct` / `deferred`.
    fn plan_direct_dots(&mut self, region: ir::RegionId) {
        let src = self.src;
        for &op_id in &src.regions[region].ops {
            let op = &src.ops[op_id];
            for r in op.kind.regions() {
                self.plan_direct_dots(r);
            }
            let OpKind::Dot { a, b, acc, .. } = &op.kind else { continue };
            let float = |v: Value| matches!(src.ty(v).elem, Elem::Scalar(ScalarType::F32 | ScalarType::F64));
            let same = src.ty(*a).elem == src.ty(*acc).elem && src.ty(*b).elem == src.ty(*acc).elem;
            if !(float(*acc) && same && src.ty(*a).shape.len() == 2) {
                continue;
            }
            let (Some(da), Some(db)) = (self.direct_load(op_id, *a), self.direct_load(op_id, *b)) else {
                continue;
            };
            if da.bound != db.bound {
                continue;
            }
            for d in [&da, &db] {
                self.deferred.extend(d.ops.iter().copied());
            }
            self.direct.insert(*a, da);
            self.direct.insert(*b, db);
        }
    }

    fn def_op(&self, v: Value) -> Option<(OpId, &'a OpKind)> {
        match self.src.values[v].def {
            ir::ValueDef::Result(op, 0) => Some((op, &self.src.ops[op].kind)),
            _ => None,
        }
    }

    /// Whether `v`'s only user is `op`.
    fn only_user(&self, v: Value, op: OpId) -> bool {
        self.users.get(&v).is_some_and(|users| users.as_slice() == [op])
    }

    /// `v` as a load the dot `dot` can read directly.
    fn direct_load(&self, dot: OpId, v: Value) -> Option<DirectLoad> {
        let (load, OpKind::Load { ptr, mask, other }) = self.def_op(v)? else { return None };
        let region = self.op_region.get(&load)?;
        if !self.only_user(v, dot) || self.op_region.get(&dot) != Some(region) {
            return None;
        }
        // Nothing between the load and the dot may write memory.
        let ops = &self.src.regions[*region].ops;
        let (from, to) = (ops.iter().position(|&o| o == load)?, ops.iter().position(|&o| o == dot)?);
        let writes = ops[from..to].iter().any(|&o| {
            matches!(
                self.src.ops[o].kind,
                OpKind::Store { .. }
                    | OpKind::AtomicRmw { .. }
                    | OpKind::AtomicCas { .. }
                    | OpKind::For { .. }
                    | OpKind::If { .. }
                    | OpKind::While { .. }
            )
        });
        if writes || !other.is_none_or(|o| self.is_zero(o)) {
            return None;
        }
        let mut deferred = Vec::new();
        let (ptr_tile, offset) = match self.def_op(*ptr) {
            Some((add, OpKind::AddPtr { ptr: tile, offset })) if self.only_user(*ptr, load) => {
                match self.def_op(*offset) {
                    Some((splat, OpKind::Splat(s))) if self.separable(*tile) => {
                        deferred.push(add);
                        if self.only_user(*offset, add) {
                            deferred.push(splat);
                        }
                        (*tile, Some(*s))
                    }
                    _ if self.separable(*ptr) => (*ptr, None),
                    _ => return None,
                }
            }
            _ if self.separable(*ptr) => (*ptr, None),
            _ => return None,
        };
        let (bound, k_index) = match mask {
            None => (None, None),
            Some(mask) => {
                let (bound, k_index, mask_ops) = self.k_mask(*mask, load)?;
                deferred.extend(mask_ops);
                (Some(bound), Some(k_index))
            }
        };
        deferred.sort_by_key(|&o| ops.iter().position(|&x| x == o));
        deferred.push(load);
        let span = self.src.ops[load].span;
        Some(DirectLoad { ptr_tile, offset, bound, k_index, ops: deferred, span })
    }

    /// A mask `broadcast(k_index < splat(bound))`: the bound and k index values, and the
    /// mask's ops used by nothing but the load (to defer).
    fn k_mask(&self, mask: Value, load: OpId) -> Option<(Value, Value, Vec<OpId>)> {
        let mut ops = Vec::new();
        let mut v = mask;
        let mut user = load;
        loop {
            let (op, kind) = self.def_op(v)?;
            let sole = self.only_user(v, user);
            match kind {
                OpKind::Broadcast(x) => {
                    if sole {
                        ops.push(op);
                    }
                    (v, user) = (*x, op);
                }
                OpKind::Cmp { pred: CmpPred::Lt, lhs, rhs } => {
                    let (splat, OpKind::Splat(bound)) = self.def_op(*rhs)? else { return None };
                    if sole {
                        ops.push(op);
                        if self.only_user(*rhs, op) {
                            ops.push(splat);
                        }
                    }
                    return Some((*bound, *lhs, ops));
                }
                _ => return None,
            }
        }
    }

    /// Whether `v` is a zero constant (scalar, splat or dense).
    fn is_zero(&self, v: Value) -> bool {
        match self.def_op(v) {
            Some((_, OpKind::Constant(c))) => {
                matches!(c, Constant::Int(0) | Constant::Bool(false))
                    || matches!(c, Constant::Float(x) if *x == 0.0 && x.is_sign_positive())
            }
            Some((_, OpKind::Splat(s))) => self.is_zero(*s),
            _ => false,
        }
    }

    /// The axes (bits) of `v`'s shape along which its elements may vary.
    fn varying_axes(&self, v: Value) -> u32 {
        let shape = &self.ty(v).shape;
        let all = (1u32 << shape.len()) - 1;
        let sized = shape.iter().enumerate().filter(|(_, &d)| d > 1).fold(0, |m, (i, _)| m | 1 << i);
        let Some((_, kind)) = self.def_op(v) else { return all & sized };
        let axes = match kind {
            OpKind::Constant(_) | OpKind::Splat(_) => 0,
            OpKind::MakeRange { .. } => 1,
            OpKind::ExpandDims { value, axis } => {
                let inner = self.varying_axes(*value);
                let low = inner & ((1 << axis) - 1);
                low | (inner & !((1 << axis) - 1)) << 1
            }
            OpKind::Broadcast(x) | OpKind::Hint { value: x, .. } => self.varying_axes(*x),
            OpKind::Trans { value, order } => {
                let inner = self.varying_axes(*value);
                order.iter().enumerate().fold(0, |m, (d, &from)| if inner >> from & 1 == 1 { m | 1 << d } else { m })
            }
            OpKind::Binary { .. }
            | OpKind::Unary { .. }
            | OpKind::Cmp { .. }
            | OpKind::Select { .. }
            | OpKind::Cast { .. }
            | OpKind::AddPtr { .. } => kind.operands().into_iter().fold(0, |m, x| m | self.varying_axes(x)),
            _ => all,
        };
        axes & sized
    }

    /// Whether the 2-D `v` is `f(i) + g(j)` (pointer or integer arithmetic, assumed not to
    /// wrap, as Triton's pointer analysis assumes).
    fn separable(&self, v: Value) -> bool {
        self.separable_assuming(v, &mut Vec::new())
    }

    /// [`Self::separable`], with the loop-carried values in `assumed` taken as separable (a
    /// loop-carried tile is separable when its initial value is and its update keeps it so).
    fn separable_assuming(&self, v: Value, assumed: &mut Vec<Value>) -> bool {
        if self.ty(v).shape.len() != 2 {
            return false;
        }
        if assumed.contains(&v) || self.varying_axes(v).count_ones() <= 1 {
            return true;
        }
        if let ir::ValueDef::Param(region, index) = self.src.values[v].def {
            let Some((init, next)) = self.carried(region, index) else { return false };
            assumed.push(v);
            let ok = self.separable_assuming(init, assumed) && self.separable_assuming(next, assumed);
            assumed.pop();
            return ok;
        }
        match self.def_op(v).map(|(_, k)| k) {
            Some(OpKind::AddPtr { ptr, offset }) => {
                self.separable_assuming(*ptr, assumed) && self.separable_assuming(*offset, assumed)
            }
            Some(OpKind::Binary { op: BinaryOp::Add | BinaryOp::Sub, lhs, rhs }) => {
                self.separable_assuming(*lhs, assumed) && self.separable_assuming(*rhs, assumed)
            }
            Some(OpKind::Binary { op: BinaryOp::Mul, lhs, rhs }) => {
                (self.varying_axes(*lhs) == 0 && self.separable_assuming(*rhs, assumed))
                    || (self.varying_axes(*rhs) == 0 && self.separable_assuming(*lhs, assumed))
            }
            Some(OpKind::Broadcast(x) | OpKind::Hint { value: x, .. }) => self.separable_assuming(*x, assumed),
            Some(OpKind::Cast { op: ir::CastOp::IntExt, value }) => self.separable_assuming(*value, assumed),
            _ => false,
        }
    }

    /// For the loop-carried param `index` of a `for` body `region`: its initial value and the
    /// value yielded for the next iteration.
    fn carried(&self, region: ir::RegionId, index: u32) -> Option<(Value, Value)> {
        let index = (index as usize).checked_sub(1)?;
        let (_, op) =
            self.src.ops.iter().find(|(_, op)| matches!(&op.kind, OpKind::For { body, .. } if *body == region))?;
        let OpKind::For { init, .. } = &op.kind else { return None };
        let Some(OpKind::Yield(values)) = self.terminator(region).map(|t| &t.kind) else { return None };
        Some((*init.get(index)?, *values.get(index)?))
    }

    /// The buffer of `acc` when the dot `op_id` may accumulate into it in place: `acc` is a
    /// contiguous row-major buffer of the result's type that is neither operand's buffer,
    /// the dot is its only user, and the dot runs at most once per definition of `acc`
    /// (both are in the same region). Typical case: the loop-carried accumulator of
    /// `acc = tl.dot(a, b, acc)`, which then stays in its loop slot with no copies.
    fn reusable_acc(&self, op_id: OpId, acc: Value, acc_loc: &Loc, operands: &[Buf]) -> Option<Buf> {
        let result = self.src.ops[op_id].results[0];
        let Loc::Buffer(buf, index) = acc_loc else { return None };
        let only_user = self.users.get(&acc).is_some_and(|users| users.as_slice() == [op_id]);
        let def_region = match self.src.values[acc].def {
            ir::ValueDef::Result(def_op, _) => self.op_region.get(&def_op).copied(),
            ir::ValueDef::Param(region, _) => Some(region),
        };
        let same_region = def_region.is_some() && def_region == self.op_region.get(&op_id).copied();
        let fits = *index == Affine::row_major(&self.ty(result).shape) && self.ty(acc) == self.ty(result);
        (fits && only_user && same_region && !operands.contains(buf)).then_some(*buf)
    }

    // ----- control flow --------------------------------------------------------------

    fn lower_for(
        &mut self,
        op_id: OpId,
        lower: Value,
        upper: Value,
        step: Value,
        init: &[Value],
        body: ir::RegionId,
    ) -> Result<(), Diagnostic> {
        let src = self.src;
        let op = &src.ops[op_id];
        let span = op.span;
        self.close_nest();
        let bounds = self.read_scalars(&[lower, upper, step], span)?;
        let params = &src.regions[body].params;
        let iv = self.new_var_for(params[0]);
        self.locs.insert(params[0], Loc::Scalar(iv));
        let slots = self.carried_slots(&params[1..]);
        self.parallel_copy(init, &slots, span)?;
        if let Some(OpKind::Yield(values)) = self.terminator(body).map(|t| &t.kind) {
            for (&v, slot) in values.iter().zip(&slots) {
                if let Slot::Buf(b) = slot {
                    self.in_place.entry(v).or_insert(*b);
                }
            }
        }
        let mut block = self.lower_region(body)?;
        if let Some(term) = self.terminator(body) {
            let OpKind::Yield(values) = &term.kind else {
                return Err(unsupported("a `for` body not ending in a yield", term.span));
            };
            let saved = std::mem::replace(&mut self.block, block);
            self.parallel_copy(values, &slots, term.span)?;
            block = std::mem::replace(&mut self.block, saved);
        }
        self.block.push(Stmt::For { iv, lower: bounds[0], upper: bounds[1], step: bounds[2], body: block });
        for (&r, &slot) in op.results.iter().zip(&slots) {
            let loc = self.slot_loc(slot, self.ty(r));
            self.locs.insert(r, loc);
        }
        Ok(())
    }

    /// Fresh slots for region params, bound as their locations.
    fn carried_slots(&mut self, params: &[Value]) -> Vec<Slot> {
        params
            .iter()
            .map(|&p| {
                let ty = self.ty(p).clone();
                let slot = self.new_slot(&ty, self.src.values[p].name.clone());
                let loc = self.slot_loc(slot, &ty);
                self.locs.insert(p, loc);
                slot
            })
            .collect()
    }

    fn lower_if(
        &mut self,
        op_id: OpId,
        cond: Value,
        then_region: ir::RegionId,
        else_region: ir::RegionId,
    ) -> Result<(), Diagnostic> {
        let src = self.src;
        let op = &src.ops[op_id];
        let span = op.span;
        self.close_nest();
        let cond = self.read_scalars(&[cond], span)?[0];
        let slots: Vec<Slot> = op
            .results
            .iter()
            .map(|&r| {
                let ty = self.ty(r).clone();
                self.new_slot(&ty, None)
            })
            .collect();
        let mut blocks = Vec::new();
        for region in [then_region, else_region] {
            // A tile the branch computes and yields is stored straight into its result slot
            // by the nest computing it (nothing else reads the slot before the `if` ends).
            if let Some(OpKind::Yield(values)) = self.terminator(region).map(|t| &t.kind) {
                for (&v, slot) in values.iter().zip(&slots) {
                    let computed_here = match src.values[v].def {
                        ir::ValueDef::Result(def, _) => self.op_region.get(&def) == Some(&region),
                        ir::ValueDef::Param(..) => false,
                    };
                    if let (Slot::Buf(b), true) = (slot, computed_here) {
                        self.in_place.entry(v).or_insert(*b);
                    }
                }
            }
            let block = self.lower_region_into(region, Some(&slots))?;
            if let Some(&term_id) = src.regions[region].ops.last() {
                if matches!(src.ops[term_id].kind, OpKind::Yield(_)) {
                    // The other branch never reads what this one yields.
                    self.done.insert(term_id);
                }
            }
            blocks.push(block);
        }
        let else_block = blocks.pop().unwrap_or_default();
        let then_block = blocks.pop().unwrap_or_default();
        self.block.push(Stmt::If { cond, then_block, else_block });
        for (&r, &slot) in op.results.iter().zip(&slots) {
            let loc = self.slot_loc(slot, self.ty(r));
            self.locs.insert(r, loc);
        }
        Ok(())
    }

    fn lower_while(
        &mut self,
        op_id: OpId,
        init: &[Value],
        before: ir::RegionId,
        after: ir::RegionId,
    ) -> Result<(), Diagnostic> {
        let src = self.src;
        let op = &src.ops[op_id];
        let span = op.span;
        self.close_nest();
        let carried = self.carried_slots(&src.regions[before].params);
        self.parallel_copy(init, &carried, span)?;
        // The condition's args go to slots that are both the `after` params and the results.
        let passed = self.carried_slots(&src.regions[after].params);
        let mut before_block = self.lower_region(before)?;
        let Some(term) = self.terminator(before) else {
            return Err(unsupported("a `while` condition region without `scf.condition`", span));
        };
        let OpKind::Condition { cond, args } = &term.kind else {
            return Err(unsupported("a `while` condition region without `scf.condition`", term.span));
        };
        let saved = std::mem::replace(&mut self.block, before_block);
        let cond_var = self.read_scalars(&[*cond], term.span)?[0];
        let cond_copy = self.new_var(Elem::Scalar(ScalarType::I1));
        self.assign(cond_copy, Expr::Copy(cond_var), term.span);
        self.parallel_copy(args, &passed, term.span)?;
        before_block = std::mem::replace(&mut self.block, saved);
        let mut after_block = self.lower_region(after)?;
        if let Some(term) = self.terminator(after) {
            if let OpKind::Yield(values) = &term.kind {
                let saved = std::mem::replace(&mut self.block, after_block);
                self.parallel_copy(values, &carried, term.span)?;
                after_block = std::mem::replace(&mut self.block, saved);
            }
        }
        self.block.push(Stmt::While { before: before_block, cond: cond_copy, after: after_block });
        for (&r, &slot) in op.results.iter().zip(&passed) {
            let loc = self.slot_loc(slot, self.ty(r));
            self.locs.insert(r, loc);
        }
        Ok(())
    }
}

/// The smallest and largest value of `a` over the indices of `shape`.
fn affine_range(a: &Affine, shape: &[u32]) -> (i128, i128) {
    let mut range = (i128::from(a.offset), i128::from(a.offset));
    for (&s, &d) in a.strides.iter().zip(shape) {
        let reach = i128::from(s) * (i128::from(d) - 1).max(0);
        if reach < 0 {
            range.0 += reach;
        } else {
            range.1 += reach;
        }
    }
    range
}

fn acc_op_of(kind: ReduceKind) -> AccOp {
    match kind {
        ReduceKind::Sum => AccOp::Sum,
        ReduceKind::Prod => AccOp::Prod,
        ReduceKind::Max | ReduceKind::ArgMax => AccOp::Max,
        ReduceKind::Min | ReduceKind::ArgMin => AccOp::Min,
        ReduceKind::Xor => AccOp::Xor,
        ReduceKind::And => AccOp::And,
        ReduceKind::Or => AccOp::Or,
    }
}

/// The neutral element of `op` on `st`. For float max/min (`maxnum`/`minnum`, where a NaN
/// operand loses) it is NaN, so a row of NaNs reduces to NaN as the fold from its first
/// element does (−∞ would turn it into −∞). For a float sum it is −0.0 (`x + −0.0` is `x`
/// for every `x`; +0.0 would turn a sum of −0.0s into +0.0).
pub(crate) fn identity(op: AccOp, st: ScalarType) -> Constant {
    match op {
        AccOp::Max | AccOp::Min if st.is_float() => Constant::Float(f64::NAN),
        AccOp::Sum if st.is_float() => Constant::Float(-0.0),
        AccOp::Sum | AccOp::Xor | AccOp::Or => zero(st),
        AccOp::Prod => {
            if st.is_float() {
                Constant::Float(1.0)
            } else if st.is_bool() {
                Constant::Bool(true)
            } else {
                Constant::Int(1)
            }
        }
        AccOp::And => {
            if st.is_bool() {
                Constant::Bool(true)
            } else {
                Constant::Int(-1)
            }
        }
        AccOp::Max => lowest(st),
        AccOp::Min => highest(st),
    }
}

fn zero(st: ScalarType) -> Constant {
    if st.is_float() {
        Constant::Float(0.0)
    } else if st.is_bool() {
        Constant::Bool(false)
    } else {
        Constant::Int(0)
    }
}

/// The smallest value of `st` (−∞ for floats).
fn lowest(st: ScalarType) -> Constant {
    if st.is_float() {
        Constant::Float(f64::NEG_INFINITY)
    } else if st.is_bool() || st.is_unsigned_int() {
        zero(st)
    } else {
        Constant::Int(i64::MIN >> (64 - st.bits()))
    }
}

/// The largest value of `st` (+∞ for floats).
fn highest(st: ScalarType) -> Constant {
    if st.is_float() {
        Constant::Float(f64::INFINITY)
    } else if st.is_bool() {
        Constant::Bool(true)
    } else if st.is_unsigned_int() {
        // All ones; the code generator keeps the low `bits` bits.
        Constant::Int(-1)
    } else {
        Constant::Int(i64::MAX >> (64 - st.bits()))
    }
}
