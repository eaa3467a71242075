//! What the emitter needs to know about a nest before emitting it: which values are
//! uniform, linear in the indices (`Lin`) or pointers into a stream (`PtrLin`), which dims
//! are strip-mined, and whether a prefix mask shortens the range.

use std::collections::{HashMap, HashSet};

use tilec_vector::*;

/// `Σ coef·var + offset + Σ strides[k]·i_k`: an integer value linear in the nest indices
/// plus uniform scalar integer variables (exact arithmetic: no wrapping assumed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lin {
    pub terms: Vec<(Var, i64)>,
    pub offset: i64,
    /// One stride per nest dim.
    pub strides: Vec<i64>,
}

impl Lin {
    fn affine(a: &Affine, dims: usize) -> Lin {
        let mut strides = a.strides.clone();
        strides.resize(dims, 0);
        Lin { terms: Vec::new(), offset: a.offset, strides }
    }

    fn uniform(v: Var, dims: usize) -> Lin {
        Lin { terms: vec![(v, 1)], offset: 0, strides: vec![0; dims] }
    }

    fn scaled(&self, c: i64) -> Lin {
        Lin {
            terms: self.terms.iter().map(|&(v, k)| (v, k * c)).collect(),
            offset: self.offset * c,
            strides: self.strides.iter().map(|s| s * c).collect(),
        }
    }

    fn plus(&self, other: &Lin) -> Lin {
        let mut terms = self.terms.clone();
        for &(v, k) in &other.terms {
            match terms.iter_mut().find(|(w, _)| *w == v) {
                Some(t) => t.1 += k,
                None => terms.push((v, k)),
            }
        }
        terms.retain(|&(_, k)| k != 0);
        Lin {
            terms,
            offset: self.offset + other.offset,
            strides: self.strides.iter().zip(&other.strides).map(|(a, b)| a + b).collect(),
        }
    }
}

/// How a variable of the nest body is represented.
#[derive(Clone, Debug, PartialEq)]
pub enum Class {
    /// The same for every element: a live-in or an in-nest constant, in a scalar register.
    Uniform,
    Lin(Lin),
    /// `base + off` elements of `bytes` each, `base` uniform.
    PtrLin { base: Var, off: Lin, bytes: i64 },
    /// A mask known true on every element that runs (the prefix mask).
    AllTrue,
    /// A vector register (group), or a mask register for `i1`.
    Vector,
}

/// The prefix mask: lanes run while `lin < bound` (`<=` when `inclusive`).
#[derive(Clone, Debug)]
pub struct Prefix {
    pub lin: Lin,
    pub bound: Var,
    pub inclusive: bool,
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub classes: HashMap<Var, Class>,
    /// Nest dims looped by scalar code, outermost first.
    pub outer: Vec<usize>,
    /// Nest dims strip-mined as one flat range (may be empty: one element).
    pub inner: Vec<usize>,
    /// Number of elements of the flat range.
    pub flat_len: i64,
    pub prefix: Option<Prefix>,
    /// Live-in variables read by the body, in first-use order (leaf arguments).
    pub live_in: Vec<Var>,
    /// Live-in variables that are constants (materialized in the leaf, not passed).
    pub live_constants: HashMap<Var, Constant>,
    /// Scratch buffers the body touches, in first-use order.
    pub bufs: Vec<Buf>,
    /// Index of the last body statement reading each variable.
    pub last_use: HashMap<Var, usize>,
}

impl Plan {
    /// Coefficient of the flat index in `lin`.
    pub fn flat_stride(&self, lin_strides: &[i64]) -> i64 {
        self.inner.last().map_or(0, |&k| lin_strides[k])
    }
}

/// Variables assigned exactly once in `f`, by a constant.
fn single_constants(f: &Function) -> HashMap<Var, Constant> {
    fn walk(block: &Block, count: &mut HashMap<Var, u32>, value: &mut HashMap<Var, Constant>) {
        for s in block {
            match s {
                Stmt::Assign { dst, expr, .. } => {
                    *count.entry(*dst).or_default() += 1;
                    if let Expr::Const(c) = expr {
                        value.insert(*dst, *c);
                    }
                }
                Stmt::Nest(n) => walk(&n.body, count, value),
                Stmt::For { iv, body, .. } => {
                    *count.entry(*iv).or_default() += 2;
                    walk(body, count, value)
                }
                Stmt::If { then_block, else_block, .. } => {
                    walk(then_block, count, value);
                    walk(else_block, count, value);
                }
                Stmt::While { before, after, .. } => {
                    walk(before, count, value);
                    walk(after, count, value);
                }
                _ => {}
            }
        }
    }
    let (mut count, mut value) = (HashMap::new(), HashMap::new());
    walk(&f.body, &mut count, &mut value);
    for p in &f.params {
        *count.entry(p.var).or_default() += 1;
    }
    value.retain(|v, _| count.get(v) == Some(&1));
    value
}

/// Variables read by an expression.
pub fn expr_reads(e: &Expr) -> Vec<Var> {
    match e {
        Expr::Const(_) | Expr::ProgramId(_) | Expr::NumPrograms(_) | Expr::Index(_) | Expr::LoadScratch { .. } => {
            vec![]
        }
        Expr::Copy(a) | Expr::Unary(_, a) | Expr::Math(_, a) | Expr::Cast(_, a) => vec![*a],
        Expr::Binary(_, a, b) | Expr::Cmp(_, a, b) => vec![*a, *b],
        Expr::Fma(a, b, c) => vec![*a, *b, *c],
        Expr::Select { cond, on_true, on_false } => vec![*cond, *on_true, *on_false],
        Expr::AddPtr { ptr, offset } => vec![*ptr, *offset],
        Expr::Load { ptr, mask, other } => [Some(*ptr), *mask, *other].into_iter().flatten().collect(),
        Expr::AtomicRmw { ptr, value, mask, .. } => [Some(*ptr), Some(*value), *mask].into_iter().flatten().collect(),
        Expr::AtomicCas { ptr, cmp, value, .. } => vec![*ptr, *cmp, *value],
    }
}

/// Variables read by a body statement (`None` for statements the emitter rejects).
pub fn stmt_reads(s: &Stmt) -> Option<Vec<Var>> {
    Some(match s {
        Stmt::Assign { expr, .. } => expr_reads(expr),
        Stmt::Store { ptr, value, mask, .. } => [Some(*ptr), Some(*value), *mask].into_iter().flatten().collect(),
        Stmt::StoreScratch { value, .. } => vec![*value],
        Stmt::Accumulate { value, .. } => vec![*value],
        Stmt::AccumulateArg { value, position, .. } => vec![*value, *position],
        _ => return None,
    })
}

/// Whether a nest dim sequence is collapsible for `strides`.
fn collapsible(dims: &[usize], shape: &[u32], strides: &[i64]) -> bool {
    dims.windows(2).all(|w| strides[w[0]] == strides[w[1]] * shape[w[1]] as i64)
}

pub fn plan(f: &Function, nest: &Nest) -> Option<Plan> {
    let dims = nest.shape.len();
    let constants = single_constants(f);
    let consts: HashMap<Var, i64> =
        constants.iter().filter_map(|(v, c)| if let Constant::Int(i) = c { Some((*v, *i)) } else { None }).collect();
    let mut live_constants = HashMap::new();
    let assigned: HashSet<Var> =
        nest.body.iter().filter_map(|s| if let Stmt::Assign { dst, .. } = s { Some(*dst) } else { None }).collect();
    let mut classes: HashMap<Var, Class> = HashMap::new();
    let mut live_in = Vec::new();
    let mut bufs = Vec::new();
    let mut last_use = HashMap::new();
    let mut affines: Vec<Vec<i64>> = Vec::new();
    let use_buf = |b: Buf, bufs: &mut Vec<Buf>| {
        if !bufs.contains(&b) {
            bufs.push(b);
        }
    };
    for (at, s) in nest.body.iter().enumerate() {
        for v in stmt_reads(s)? {
            last_use.insert(v, at);
            if !assigned.contains(&v) && !classes.contains_key(&v) {
                if nest.indices.contains(&v) {
                    return None;
                }
                match constants.get(&v) {
                    Some(c) => {
                        live_constants.insert(v, *c);
                    }
                    None => live_in.push(v),
                }
                classes.insert(v, Class::Uniform);
            }
        }
        match s {
            Stmt::StoreScratch { buf, index, .. } | Stmt::Accumulate { buf, index, .. } => {
                use_buf(*buf, &mut bufs);
                affines.push(Lin::affine(index, dims).strides);
            }
            Stmt::AccumulateArg { vals, idxs, index, .. } => {
                use_buf(*vals, &mut bufs);
                use_buf(*idxs, &mut bufs);
                affines.push(Lin::affine(index, dims).strides);
            }
            Stmt::Assign { dst, expr, .. } => {
                if let Expr::LoadScratch { buf, index } = expr {
                    use_buf(*buf, &mut bufs);
                    affines.push(Lin::affine(index, dims).strides);
                }
                if let Expr::Index(a) = expr {
                    affines.push(Lin::affine(a, dims).strides);
                }
                let class = classify(f, expr, *dst, &classes, &consts, dims)?;
                if classes.contains_key(dst) {
                    // Reassigned in the body: keep it simple, leave it to the scalar path.
                    return None;
                }
                classes.insert(*dst, class);
            }
            _ => {}
        }
    }
    if !accumulators_are_private(nest) {
        return None;
    }
    // Sums of collapsible affine functions are collapsible: checking the leaves suffices.
    let non_unit: Vec<usize> = (0..dims).filter(|&k| nest.shape[k] > 1).collect();
    let mut split = non_unit.len();
    while split > 0 && affines.iter().all(|s| collapsible(&non_unit[split - 1..], &nest.shape, s)) {
        split -= 1;
    }
    let (outer, inner) = (non_unit[..split].to_vec(), non_unit[split..].to_vec());
    let flat_len = inner.iter().map(|&k| nest.shape[k] as i64).product();
    let mut plan = Plan { classes, outer, inner, flat_len, prefix: None, live_in, live_constants, bufs, last_use };
    plan.prefix = find_prefix(f, nest, &plan);
    if let Some(p) = &plan.prefix {
        let mask = store_mask(nest).flatten().expect("a prefix comes from the stores' mask");
        let _ = p;
        plan.classes.insert(mask, Class::AllTrue);
    }
    Some(plan)
}

/// Whether each accumulator buffer of the body is updated by one statement and otherwise
/// untouched by the nest (no scans: those read the accumulator back).
fn accumulators_are_private(nest: &Nest) -> bool {
    let acc: Vec<Buf> = nest
        .body
        .iter()
        .flat_map(|s| match s {
            Stmt::Accumulate { buf, .. } => vec![*buf],
            Stmt::AccumulateArg { vals, idxs, .. } => vec![*vals, *idxs],
            _ => vec![],
        })
        .collect();
    let mut seen = HashSet::new();
    if !acc.iter().all(|b| seen.insert(*b)) {
        return false;
    }
    nest.body.iter().all(|s| match s {
        Stmt::StoreScratch { buf, .. } | Stmt::Assign { expr: Expr::LoadScratch { buf, .. }, .. } => !acc.contains(buf),
        _ => true,
    })
}

/// The mask shared by every store of the body (`Some(None)`: some store is unmasked). An
/// accumulation counts as an unmasked store: every lane of the range contributes to it.
fn store_mask(nest: &Nest) -> Option<Option<Var>> {
    let mut mask = None;
    for s in &nest.body {
        let m = match s {
            Stmt::Store { mask, .. } => *mask,
            Stmt::StoreScratch { .. } | Stmt::Accumulate { .. } | Stmt::AccumulateArg { .. } => None,
            _ => continue,
        };
        match mask {
            None => mask = Some(m),
            Some(prev) if prev != m => return Some(None),
            Some(_) => {}
        }
    }
    mask
}

fn find_prefix(f: &Function, nest: &Nest, plan: &Plan) -> Option<Prefix> {
    let mask = store_mask(nest)??;
    let (pred, a, b) = nest.body.iter().find_map(|s| match s {
        Stmt::Assign { dst, expr: Expr::Cmp(pred, a, b), .. } if *dst == mask => Some((*pred, *a, *b)),
        _ => None,
    })?;
    let signed = matches!(f.ty(a), Elem::Scalar(s) if s.is_signed_int());
    let (lin_var, bound, inclusive) = match pred {
        CmpPred::Lt => (a, b, false),
        CmpPred::Le => (a, b, true),
        CmpPred::Gt => (b, a, false),
        CmpPred::Ge => (b, a, true),
        _ => return None,
    };
    let Some(Class::Lin(lin)) = plan.classes.get(&lin_var) else { return None };
    if !signed || plan.classes.get(&bound) != Some(&Class::Uniform) || plan.inner.is_empty() {
        return None;
    }
    (plan.flat_stride(&lin.strides) == 1).then(|| Prefix { lin: lin.clone(), bound, inclusive })
}

fn is_int(f: &Function, v: Var) -> bool {
    matches!(f.ty(v), Elem::Scalar(s) if s.is_int() && !s.is_bool())
}

fn classify(
    f: &Function,
    expr: &Expr,
    dst: Var,
    classes: &HashMap<Var, Class>,
    consts: &HashMap<Var, i64>,
    dims: usize,
) -> Option<Class> {
    let lin_of = |v: Var| -> Option<Lin> {
        match classes.get(&v)? {
            Class::Lin(l) => Some(l.clone()),
            Class::Uniform if consts.contains_key(&v) => Some(Lin { terms: vec![], offset: consts[&v], strides: vec![0; dims] }),
            Class::Uniform if is_int(f, v) => Some(Lin::uniform(v, dims)),
            _ => None,
        }
    };
    let is_lin = |v: Var| matches!(classes.get(&v), Some(Class::Lin(_)));
    Some(match expr {
        Expr::Const(_) => Class::Uniform,
        Expr::ProgramId(_) | Expr::NumPrograms(_) | Expr::AtomicRmw { .. } | Expr::AtomicCas { .. } => return None,
        Expr::Copy(v) => classes.get(v)?.clone(),
        Expr::Index(a) if is_int(f, dst) => Class::Lin(Lin::affine(a, dims)),
        Expr::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) if is_int(f, dst) && (is_lin(*a) || is_lin(*b)) => {
            match (lin_of(*a), lin_of(*b)) {
                (Some(x), Some(y)) => Class::Lin(x.plus(&y.scaled(if *op == BinaryOp::Sub { -1 } else { 1 }))),
                _ => Class::Vector,
            }
        }
        Expr::Binary(BinaryOp::Mul, a, b) if is_int(f, dst) => match (classes.get(a), classes.get(b)) {
            (Some(Class::Lin(x)), _) if consts.contains_key(b) => Class::Lin(x.scaled(consts[b])),
            (_, Some(Class::Lin(y))) if consts.contains_key(a) => Class::Lin(y.scaled(consts[a])),
            _ => Class::Vector,
        },
        Expr::Cast(CastOp::IntExt | CastOp::IntRetype, a) if is_lin(*a) && is_int(f, dst) => classes[a].clone(),
        Expr::AddPtr { ptr, offset } => {
            let bytes = f.ty(*ptr).pointee().map_or(1, |s| s.bytes()) as i64;
            match (classes.get(ptr), lin_of(*offset)) {
                (Some(Class::Uniform), Some(off)) if is_lin(*offset) => Class::PtrLin { base: *ptr, off, bytes },
                (Some(Class::PtrLin { base, off, bytes: b0 }), Some(more)) if *b0 == bytes => {
                    Class::PtrLin { base: *base, off: off.plus(&more), bytes }
                }
                _ => Class::Vector,
            }
        }
        _ => Class::Vector,
    })
}
