//! Rewrite rules, one file per topic; see `README.md` in this folder for the discipline.
//!
//! A rule is a plain function that looks at one e-node (and, through the e-graph, at its
//! children's classes) and returns the replacement as an [`Rhs`] term, or `None`. The
//! [`FnRule`] adapter turns it into an egg [`Rewrite`]: the searcher reports the classes
//! where the function fires, the applier calls it again with write access, adds the term
//! and unions it with the matched class.

mod arith;
mod broadcast;
mod cast;
mod mask;
mod pointer;
mod select;

use crate::analysis::{ClassData, Graph, TileAnalysis};
use crate::lang::{Const, NodeOp, TileNode};
use egg::{Applier, Id, PatternAst, Rewrite, SearchMatches, Searcher, Subst, Symbol, Var};
use tilec_ir::Type;

/// The replacement of a rule: an existing class, or a new node over replacement terms.
pub enum Rhs {
    Class(Id),
    Node(NodeOp, Type, Vec<Rhs>),
}

impl Rhs {
    pub fn constant(c: Const, ty: Type) -> Rhs {
        Rhs::Node(NodeOp::Const(c), ty, Vec::new())
    }
}

/// A rule function: given the graph and one node, the term it equals, if the rule applies.
pub type RuleFn = fn(&Graph, &TileNode) -> Option<Rhs>;

/// The rule tables of the topic files, in application order.
const TABLES: [&[(&str, RuleFn)]; 6] =
    [arith::RULES, broadcast::RULES, pointer::RULES, mask::RULES, select::RULES, cast::RULES];

/// Every rule, by topic file.
pub fn all() -> Vec<Rewrite<TileNode, TileAnalysis>> {
    TABLES
        .into_iter()
        .flatten()
        .map(|&(name, func)| Rewrite::new(name, FnRule(func), FnRule(func)).expect("rule names are unique"))
        .collect()
}

/// The names of the rules of [`all`], in the same order.
pub fn names() -> Vec<&'static str> {
    TABLES.into_iter().flatten().map(|&(name, _)| name).collect()
}

/// Adapter from a [`RuleFn`] to egg's searcher and applier.
pub struct FnRule(RuleFn);

impl Searcher<TileNode, TileAnalysis> for FnRule {
    fn search_eclass_with_limit(
        &self,
        egraph: &Graph,
        eclass: Id,
        limit: usize,
    ) -> Option<SearchMatches<'_, TileNode>> {
        if limit == 0 {
            return None;
        }
        let fires = egraph[eclass].nodes.iter().any(|node| (self.0)(egraph, node).is_some());
        fires.then(|| SearchMatches { eclass, substs: vec![Subst::default()], ast: None })
    }

    /// Walks the classes directly (egg's default looks every class up again by id).
    fn search_with_limit(&self, egraph: &Graph, limit: usize) -> Vec<SearchMatches<'_, TileNode>> {
        egraph
            .classes()
            .filter(|class| class.nodes.iter().any(|node| (self.0)(egraph, node).is_some()))
            .take(limit)
            .map(|class| SearchMatches { eclass: class.id, substs: vec![Subst::default()], ast: None })
            .collect()
    }

    fn vars(&self) -> Vec<Var> {
        Vec::new()
    }
}

impl Applier<TileNode, TileAnalysis> for FnRule {
    fn apply_one(
        &self,
        egraph: &mut Graph,
        eclass: Id,
        _subst: &Subst,
        _searcher_ast: Option<&PatternAst<TileNode>>,
        _rule_name: Symbol,
    ) -> Vec<Id> {
        let nodes = egraph[eclass].nodes.clone();
        let mut changed = Vec::new();
        for node in &nodes {
            if let Some(rhs) = (self.0)(egraph, node) {
                let id = add_rhs(egraph, rhs);
                if egraph.union(eclass, id) {
                    changed.push(eclass);
                }
            }
        }
        changed
    }
}

fn add_rhs(egraph: &mut Graph, rhs: Rhs) -> Id {
    match rhs {
        Rhs::Class(id) => id,
        Rhs::Node(op, ty, args) => {
            let children = args.into_iter().map(|a| add_rhs(egraph, a)).collect();
            egraph.add(TileNode::new(op, ty, children))
        }
    }
}

// Helpers shared by the rule files.

pub(crate) fn data(g: &Graph, id: Id) -> &ClassData {
    &g[id].data
}

pub(crate) fn constant(g: &Graph, id: Id) -> Option<Const> {
    g[id].data.constant
}

/// The integer value of a class when it is a known integer constant (splat included).
pub(crate) fn int_constant(g: &Graph, id: Id) -> Option<i128> {
    let s = data(g, id).ty.scalar_type().filter(|s| s.is_int())?;
    crate::fold::const_int_value(constant(g, id)?, s)
}

/// Whether a class is the float constant with exactly these bits (so `-0.0 != 0.0`).
pub(crate) fn is_float_constant(g: &Graph, id: Id, value: f64) -> bool {
    constant(g, id) == Some(Const::float(value))
}

pub(crate) fn same_class(g: &Graph, a: Id, b: Id) -> bool {
    g.find(a) == g.find(b)
}

/// The operand of a node with op `op` in class `id`, if the class has one.
pub(crate) fn operand_of(g: &Graph, id: Id, op: &NodeOp) -> Option<Id> {
    g[id].nodes.iter().find(|n| &n.op == op && n.children.len() == 1).map(|n| n.children[0])
}

/// Whether a class is the all-ones constant of its integer type (`-1` in storage form).
pub(crate) fn is_all_ones(g: &Graph, id: Id) -> bool {
    data(g, id).ty.scalar_type().is_some_and(|s| s.is_int() && !s.is_bool()) && constant(g, id) == Some(Const::Int(-1))
}
