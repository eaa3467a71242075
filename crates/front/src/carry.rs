//! Values that cross control flow: the *leaves* of a value (its runtime values and numbers)
//! and the structure around them.
//!
//! A loop carries, and an `scf.if` yields, leaves only: a number or a runtime value is one
//! leaf; a tuple, a block pointer or a tensor descriptor is a structure (compile-time parts
//! such as block shapes, strings or dtypes) around its leaves (a block pointer's base, shape,
//! strides and offsets). Both sides of a join must have the same structure; their leaves are
//! merged one by one.
//!
//! Loops carry every leaf of a plain variable. For a structured variable a first lowering of
//! the body tells which leaves the body leaves unchanged (a block pointer's base, shape and
//! strides under `tl.advance`); the body is then lowered again with those leaves kept as they
//! are, so a stride that is the constant 1 stays a constant inside the loop (and the access
//! stays unit-stride for the analyses).

use crate::builtins::{BlockPtr, TensorDesc};
use crate::value::Val;
use tilec_ir::Value;

/// Whether `v` is a leaf: a runtime value or a number.
pub(crate) fn is_leaf(v: &Val) -> bool {
    matches!(v, Val::T(_) | Val::Int(_) | Val::Float(_) | Val::Bool(_))
}

/// Whether `v` is a structure with leaves inside (tuples, block pointers, descriptors).
pub(crate) fn is_structure(v: &Val) -> bool {
    matches!(v, Val::Tuple(_) | Val::BlockPtr(_) | Val::TensorDesc(_))
}

/// Whether `v` can cross control flow (a leaf or a structure).
pub(crate) fn carriable(v: &Val) -> bool {
    is_leaf(v) || is_structure(v)
}

/// The leaves of `v`, in a fixed order.
pub(crate) fn leaves(v: &Val) -> Vec<Val> {
    let mut out = Vec::new();
    collect(v, &mut out);
    out
}

fn collect(v: &Val, out: &mut Vec<Val>) {
    match v {
        v if is_leaf(v) => out.push(v.clone()),
        Val::Tuple(items) => items.iter().for_each(|x| collect(x, out)),
        Val::BlockPtr(p) => {
            out.push(Val::T(p.tensor.base));
            out.extend(p.tensor.shape.iter().chain(&p.tensor.strides).chain(&p.offsets).cloned());
        }
        Val::TensorDesc(d) => {
            out.push(Val::T(d.tensor.base));
            out.extend(d.tensor.shape.iter().chain(&d.tensor.strides).cloned());
        }
        _ => {}
    }
}

/// `v` with its leaves replaced, in order, by those of `new` (which holds at least as many).
/// A base pointer leaf must be a runtime value (it always is: bases are pointers).
pub(crate) fn with_leaves(v: &Val, new: &mut impl Iterator<Item = Val>) -> Val {
    let mut take = |old: &Val| new.next().unwrap_or_else(|| old.clone());
    match v {
        v if is_leaf(v) => take(v),
        Val::Tuple(items) => Val::Tuple(items.iter().map(|x| with_leaves(x, new)).collect()),
        Val::BlockPtr(p) => {
            let mut q: BlockPtr = (**p).clone();
            q.tensor.base = base_of(take(&Val::T(p.tensor.base)), p.tensor.base);
            for x in q.tensor.shape.iter_mut().chain(q.tensor.strides.iter_mut()).chain(q.offsets.iter_mut()) {
                *x = new.next().unwrap_or_else(|| x.clone());
            }
            Val::BlockPtr(Box::new(q))
        }
        Val::TensorDesc(d) => {
            let mut q: TensorDesc = (**d).clone();
            q.tensor.base = base_of(take(&Val::T(d.tensor.base)), d.tensor.base);
            for x in q.tensor.shape.iter_mut().chain(q.tensor.strides.iter_mut()) {
                *x = new.next().unwrap_or_else(|| x.clone());
            }
            Val::TensorDesc(Box::new(q))
        }
        other => other.clone(),
    }
}

fn base_of(v: Val, old: Value) -> Value {
    match v {
        Val::T(x) => x,
        _ => old,
    }
}

/// Whether `a` and `b` have the same structure: everything but their leaves is equal.
pub(crate) fn same_structure(a: &Val, b: &Val) -> bool {
    structure_key(a) == structure_key(b)
}

/// A text equal for values of the same structure: the value with every leaf replaced by a
/// placeholder.
fn structure_key(v: &Val) -> String {
    match v {
        v if is_leaf(v) => "leaf".into(),
        Val::Tuple(items) => format!("({})", items.iter().map(structure_key).collect::<Vec<_>>().join(",")),
        Val::BlockPtr(p) => format!(
            "block_ptr<{}{:?}, order {:?}, rank {} {} {}>",
            p.tensor.elem.name(),
            p.tensor.block,
            p.order,
            p.tensor.shape.len(),
            p.tensor.strides.len(),
            p.offsets.len()
        ),
        Val::TensorDesc(d) => format!(
            "desc<{}{:?}, {:?}, rank {} {}>",
            d.tensor.elem.name(),
            d.tensor.block,
            d.padding,
            d.tensor.shape.len(),
            d.tensor.strides.len()
        ),
        other => format!("{other:?}"),
    }
}

/// How the variables a loop assigns cross its iterations.
pub(crate) struct Carry {
    pub names: Vec<String>,
    /// Each name's value before the loop.
    pub before: Vec<Val>,
    /// Per name and leaf: whether the leaf keeps its value before the loop in every
    /// iteration (so it is not carried).
    pub fixed: Vec<Vec<bool>>,
}

impl Carry {
    /// Every leaf of every name carried.
    pub fn all(names: Vec<String>, before: Vec<Val>) -> Carry {
        let fixed = before.iter().map(|v| vec![false; leaves(v).len()]).collect();
        Carry { names, before, fixed }
    }

    /// Whether a structured variable is carried (then a second lowering may pay).
    pub fn has_structure(&self) -> bool {
        self.before.iter().any(is_structure)
    }

    /// The carried leaves' values before the loop, in order.
    pub fn carried_leaves(&self) -> Vec<Val> {
        let mut out = Vec::new();
        for (v, fixed) in self.before.iter().zip(&self.fixed) {
            out.extend(leaves(v).into_iter().zip(fixed).filter(|(_, f)| !**f).map(|(l, _)| l));
        }
        out
    }

    /// The names' values at the start of an iteration whose carried leaves are `params`.
    pub fn entry_values(&self, params: &[Value]) -> Vec<Val> {
        let mut params = params.iter();
        self.before
            .iter()
            .zip(&self.fixed)
            .map(|(v, fixed)| {
                let leaves: Vec<Val> = leaves(v)
                    .into_iter()
                    .zip(fixed)
                    .map(|(l, f)| if *f { l } else { params.next().map_or(l, |&p| Val::T(p)) })
                    .collect();
                with_leaves(v, &mut leaves.into_iter())
            })
            .collect()
    }

    /// The carried leaves of the names' values `ends` at the end of an iteration, in order.
    pub fn carried_ends(&self, ends: &[Val]) -> Vec<Val> {
        let mut out = Vec::new();
        for (v, fixed) in ends.iter().zip(&self.fixed) {
            out.extend(leaves(v).into_iter().zip(fixed).filter(|(_, f)| !**f).map(|(l, _)| l));
        }
        out
    }

    /// After a lowering where every leaf was carried: the plan keeping fixed the leaves of
    /// structured names that an iteration leaves as they were at its start (`None` when
    /// there are none, so the lowering stands).
    pub fn refined(&self, entry: &[Val], ends: &[Val]) -> Option<Carry> {
        let mut fixed = self.fixed.clone();
        let mut any = false;
        for (i, v) in self.before.iter().enumerate() {
            if !is_structure(v) {
                continue;
            }
            for (k, (a, b)) in leaves(&entry[i]).iter().zip(leaves(&ends[i])).enumerate() {
                if !fixed[i][k] && *a == b {
                    fixed[i][k] = true;
                    any = true;
                }
            }
        }
        any.then(|| Carry { names: self.names.clone(), before: self.before.clone(), fixed })
    }

    /// Whether every fixed leaf ends an iteration with the value it had before the loop.
    pub fn fixed_hold(&self, ends: &[Val]) -> bool {
        self.before
            .iter()
            .zip(ends)
            .zip(&self.fixed)
            .all(|((b, e), fixed)| leaves(b).iter().zip(leaves(e)).zip(fixed).all(|((x, y), f)| !*f || *x == y))
    }
}
