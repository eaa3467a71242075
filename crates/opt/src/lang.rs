//! The e-graph language: one e-node per pure Tile IR op kind.
//!
//! Invariant: every node carries its result [`Type`], so values of different types never
//! share a class (hash-consing compares the type along with the op and the children).
//! Values the e-graph must not look into — region parameters and results of effects — are
//! [`NodeOp::Leaf`] nodes naming the original value.

use egg::{Id, Language};
use smallvec::SmallVec;
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use tilec_ir::{
    Axis, BinaryOp, CastOp, CmpPred, Constant, DotPrecision, Hint, MathFn, OpKind, ReduceKind, ScanKind, Type, UnaryOp,
    Value,
};

/// A constant as stored in the e-graph: floats by their bits so that `-0.0 != 0.0` and NaNs
/// compare equal to themselves. Integers are the value's bits sign-extended to 64 bits (as in
/// [`Constant::Int`]); `i1` values are always `Bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Const {
    Int(i64),
    Float(u64),
    Bool(bool),
}

impl Const {
    pub fn float(x: f64) -> Const {
        Const::Float(x.to_bits())
    }

    pub fn as_float(self) -> Option<f64> {
        match self {
            Const::Float(bits) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    pub fn from_ir(c: Constant) -> Const {
        match c {
            Constant::Int(i) => Const::Int(i),
            Constant::Float(x) => Const::float(x),
            Constant::Bool(b) => Const::Bool(b),
        }
    }

    pub fn to_ir(self) -> Constant {
        match self {
            Const::Int(i) => Constant::Int(i),
            Const::Float(bits) => Constant::Float(f64::from_bits(bits)),
            Const::Bool(b) => Constant::Bool(b),
        }
    }
}

/// The op of an e-node: the pure [`OpKind`]s without their operands, plus leaves.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NodeOp {
    /// An opaque value (region parameter or result of an effect) of the input function.
    Leaf(Value),
    Const(Const),
    ProgramId(Axis),
    NumPrograms(Axis),
    MakeRange {
        start: i32,
        end: i32,
    },
    Splat,
    Broadcast,
    ExpandDims(u32),
    Reshape,
    Trans(Vec<u32>),
    AddPtr,
    Binary(BinaryOp),
    Unary(UnaryOp),
    Math(MathFn),
    Fma,
    Cmp(CmpPred),
    Select,
    Cast(CastOp),
    /// A reduction's result; for argmax/argmin ([`ReduceKind::is_arg`]) the kept element.
    Reduce(ReduceKind, u32),
    /// The index result of an argmax/argmin reduction of the same child, kind and axis
    /// (one Tile IR op yields both: see [`NodeOp::sibling`]).
    ArgIndex(ReduceKind, u32),
    Scan {
        kind: ScanKind,
        axis: u32,
        reverse: bool,
    },
    Dot(DotPrecision),
    Hint(Hint),
    Gather(u32),
}

impl NodeOp {
    /// The e-node op of a pure op kind, or `None` for effects and ops with regions (those
    /// stay in the skeleton).
    pub fn of_pure_op(kind: &OpKind) -> Option<NodeOp> {
        if kind.has_effect() || !kind.regions().is_empty() {
            return None;
        }
        Some(match kind {
            OpKind::Constant(c) => NodeOp::Const(Const::from_ir(*c)),
            OpKind::ProgramId(a) => NodeOp::ProgramId(*a),
            OpKind::NumPrograms(a) => NodeOp::NumPrograms(*a),
            OpKind::MakeRange { start, end } => NodeOp::MakeRange { start: *start, end: *end },
            OpKind::Splat(_) => NodeOp::Splat,
            OpKind::Broadcast(_) => NodeOp::Broadcast,
            OpKind::ExpandDims { axis, .. } => NodeOp::ExpandDims(*axis),
            OpKind::Reshape(_) => NodeOp::Reshape,
            OpKind::Trans { order, .. } => NodeOp::Trans(order.clone()),
            OpKind::AddPtr { .. } => NodeOp::AddPtr,
            OpKind::Binary { op, .. } => NodeOp::Binary(*op),
            OpKind::Unary { op, .. } => NodeOp::Unary(*op),
            OpKind::Math { func, .. } => NodeOp::Math(*func),
            OpKind::Fma { .. } => NodeOp::Fma,
            OpKind::Cmp { pred, .. } => NodeOp::Cmp(*pred),
            OpKind::Select { .. } => NodeOp::Select,
            OpKind::Cast { op, .. } => NodeOp::Cast(*op),
            OpKind::Reduce { kind, axis, .. } => NodeOp::Reduce(*kind, *axis),
            OpKind::Scan { kind, axis, reverse, .. } => NodeOp::Scan { kind: *kind, axis: *axis, reverse: *reverse },
            OpKind::Dot { precision, .. } => NodeOp::Dot(*precision),
            OpKind::Hint { hint, .. } => NodeOp::Hint(hint.clone()),
            OpKind::Gather { axis, .. } => NodeOp::Gather(*axis),
            _ => return None,
        })
    }

    /// The op kind of this e-node applied to `args` (one value per child, in order).
    /// `None` for leaves, which are not ops.
    pub fn to_op_kind(&self, args: &[Value]) -> Option<OpKind> {
        let arg = |i: usize| args[i];
        Some(match self {
            NodeOp::Leaf(_) => return None,
            NodeOp::Const(c) => OpKind::Constant(c.to_ir()),
            NodeOp::ProgramId(a) => OpKind::ProgramId(*a),
            NodeOp::NumPrograms(a) => OpKind::NumPrograms(*a),
            NodeOp::MakeRange { start, end } => OpKind::MakeRange { start: *start, end: *end },
            NodeOp::Splat => OpKind::Splat(arg(0)),
            NodeOp::Broadcast => OpKind::Broadcast(arg(0)),
            NodeOp::ExpandDims(axis) => OpKind::ExpandDims { value: arg(0), axis: *axis },
            NodeOp::Reshape => OpKind::Reshape(arg(0)),
            NodeOp::Trans(order) => OpKind::Trans { value: arg(0), order: order.clone() },
            NodeOp::AddPtr => OpKind::AddPtr { ptr: arg(0), offset: arg(1) },
            NodeOp::Binary(op) => OpKind::Binary { op: *op, lhs: arg(0), rhs: arg(1) },
            NodeOp::Unary(op) => OpKind::Unary { op: *op, value: arg(0) },
            NodeOp::Math(func) => OpKind::Math { func: *func, value: arg(0) },
            NodeOp::Fma => OpKind::Fma { a: arg(0), b: arg(1), c: arg(2) },
            NodeOp::Cmp(pred) => OpKind::Cmp { pred: *pred, lhs: arg(0), rhs: arg(1) },
            NodeOp::Select => OpKind::Select { cond: arg(0), on_true: arg(1), on_false: arg(2) },
            NodeOp::Cast(op) => OpKind::Cast { op: *op, value: arg(0) },
            NodeOp::Reduce(kind, axis) | NodeOp::ArgIndex(kind, axis) => {
                OpKind::Reduce { kind: *kind, value: arg(0), axis: *axis }
            }
            NodeOp::Scan { kind, axis, reverse } => {
                OpKind::Scan { kind: *kind, value: arg(0), axis: *axis, reverse: *reverse }
            }
            NodeOp::Dot(precision) => OpKind::Dot { a: arg(0), b: arg(1), acc: arg(2), precision: *precision },
            NodeOp::Hint(hint) => OpKind::Hint { value: arg(0), hint: hint.clone() },
            NodeOp::Gather(axis) => OpKind::Gather { src: arg(0), index: arg(1), axis: *axis },
        })
    }

    /// For a node that is one result of a two-result op (argmax/argmin), the node of the
    /// other result and which result this node is (0: the kept element, 1: the index).
    pub fn sibling(&self) -> Option<(NodeOp, usize)> {
        match *self {
            NodeOp::Reduce(kind, axis) if kind.is_arg() => Some((NodeOp::ArgIndex(kind, axis), 0)),
            NodeOp::ArgIndex(kind, axis) => Some((NodeOp::Reduce(kind, axis), 1)),
            _ => None,
        }
    }

    /// A total order key: variant index and the fieldless payloads packed into integers;
    /// ties are broken by [`NodeOp::vec_payload`].
    fn order_key(&self) -> (u8, i64, i64) {
        match self {
            NodeOp::Leaf(v) => (0, v.as_u32() as i64, 0),
            NodeOp::Const(c) => match c {
                Const::Int(i) => (1, 0, *i),
                Const::Float(bits) => (1, 1, *bits as i64),
                Const::Bool(b) => (1, 2, *b as i64),
            },
            NodeOp::ProgramId(a) => (2, *a as i64, 0),
            NodeOp::NumPrograms(a) => (3, *a as i64, 0),
            NodeOp::MakeRange { start, end } => (4, *start as i64, *end as i64),
            NodeOp::Splat => (5, 0, 0),
            NodeOp::Broadcast => (6, 0, 0),
            NodeOp::ExpandDims(axis) => (7, *axis as i64, 0),
            NodeOp::Reshape => (8, 0, 0),
            NodeOp::Trans(_) => (9, 0, 0),
            NodeOp::AddPtr => (10, 0, 0),
            NodeOp::Binary(op) => (11, *op as i64, 0),
            NodeOp::Unary(op) => (12, *op as i64, 0),
            NodeOp::Math(func) => (13, *func as i64, 0),
            NodeOp::Fma => (14, 0, 0),
            NodeOp::Cmp(pred) => (15, *pred as i64, 0),
            NodeOp::Select => (16, 0, 0),
            NodeOp::Cast(op) => (17, *op as i64, 0),
            NodeOp::Reduce(kind, axis) => (18, *kind as i64, *axis as i64),
            NodeOp::Scan { kind, axis, reverse } => (19, *kind as i64, ((*axis as i64) << 1) | *reverse as i64),
            NodeOp::Dot(p) => (20, *p as i64, 0),
            NodeOp::Hint(h) => (
                21,
                match h {
                    Hint::MultipleOf(_) => 0,
                    Hint::MaxContiguous(_) => 1,
                    Hint::MaxConstancy(_) => 2,
                },
                0,
            ),
            NodeOp::Gather(axis) => (22, *axis as i64, 0),
            NodeOp::ArgIndex(kind, axis) => (23, *kind as i64, *axis as i64),
        }
    }

    fn vec_payload(&self) -> &[u32] {
        match self {
            NodeOp::Trans(order) => order,
            NodeOp::Hint(Hint::MultipleOf(v) | Hint::MaxContiguous(v) | Hint::MaxConstancy(v)) => v,
            _ => &[],
        }
    }
}

impl PartialOrd for NodeOp {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for NodeOp {
    fn cmp(&self, other: &Self) -> Ordering {
        self.order_key().cmp(&other.order_key()).then_with(|| self.vec_payload().cmp(other.vec_payload()))
    }
}

/// The operand classes of an e-node: up to four without an allocation of their own, since
/// egg clones a node several times when it adds one.
pub type Children = SmallVec<[Id; 4]>;

/// A type shared by the e-nodes and classes that have it: cloning one (egg clones a node
/// several times when it adds one) does not copy its shape.
pub type SharedType = Arc<Type>;

/// An e-node: op, result type and operand classes (in [`OpKind::operands`] order).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TileNode {
    pub op: NodeOp,
    pub ty: SharedType,
    pub children: Children,
}

impl Hash for TileNode {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.op.hash(state);
        self.ty.hash(state);
        self.children.hash(state);
    }
}

impl TileNode {
    pub fn new(op: NodeOp, ty: impl Into<SharedType>, children: impl Into<Children>) -> TileNode {
        TileNode { op, ty: ty.into(), children: children.into() }
    }

    pub fn constant(c: Const, ty: impl Into<SharedType>) -> TileNode {
        TileNode::new(NodeOp::Const(c), ty, Children::new())
    }
}

impl Language for TileNode {
    type Discriminant = (NodeOp, SharedType);

    fn discriminant(&self) -> Self::Discriminant {
        (self.op.clone(), self.ty.clone())
    }

    fn matches(&self, other: &Self) -> bool {
        self.op == other.op && self.ty == other.ty && self.children.len() == other.children.len()
    }

    fn children(&self) -> &[Id] {
        &self.children
    }

    fn children_mut(&mut self) -> &mut [Id] {
        &mut self.children
    }
}
