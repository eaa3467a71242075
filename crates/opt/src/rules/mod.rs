//! Rewrite rules, one file per topic; see `README.md` in this folder for the discipline.
//!
//! A rule is a plain function that looks at one e-node (and, through the e-graph, at its
//! children's classes) and returns the replacement as an [`Rhs`] term, or `None`, with the
//! operators its root node may have ([`Rule::roots`]). The runner (`crate::saturate`) finds
//! the classes where the function fires, then calls it again with write access, adds the
//! term and unions it with the matched class ([`apply`]).

mod arith;
mod broadcast;
mod cast;
mod mask;
mod pointer;
mod select;

use crate::analysis::{ClassData, Graph};
use crate::lang::{Children, Const, NodeOp, SharedType, TileNode};
use egg::Id;
use tilec_ir::BinaryOp;

/// The replacement of a rule: an existing class, or a new node over replacement terms.
pub enum Rhs {
    Class(Id),
    Node(NodeOp, SharedType, Vec<Rhs>),
}

impl Rhs {
    pub fn constant(c: Const, ty: impl Into<SharedType>) -> Rhs {
        Rhs::Node(NodeOp::Const(c), ty.into(), Vec::new())
    }
}

/// A rule function: given the graph and one node, the term it equals, if the rule applies.
pub type RuleFn = fn(&Graph, &TileNode) -> Option<Rhs>;

/// An operator a rule's root node may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    Binary(BinaryOp),
    /// Every [`Root::Binary`] operator.
    AnyBinary,
    Unary,
    Math,
    Fma,
    Cmp,
    Select,
    Cast,
    AddPtr,
    Broadcast,
    ExpandDims,
    Reshape,
    Trans,
}

/// Number of [`Root::slot`]s: one per binary operator, then one per other root.
const ROOT_SLOTS: usize = BinaryOp::ALL.len() + 11;

impl Root {
    /// The root an e-node operator is (`None` for operators no rule is rooted at).
    fn of(op: &NodeOp) -> Option<Root> {
        Some(match op {
            NodeOp::Binary(op) => Root::Binary(*op),
            NodeOp::Unary(_) => Root::Unary,
            NodeOp::Math(_) => Root::Math,
            NodeOp::Fma => Root::Fma,
            NodeOp::Cmp(_) => Root::Cmp,
            NodeOp::Select => Root::Select,
            NodeOp::Cast(_) => Root::Cast,
            NodeOp::AddPtr => Root::AddPtr,
            NodeOp::Broadcast => Root::Broadcast,
            NodeOp::ExpandDims(_) => Root::ExpandDims,
            NodeOp::Reshape => Root::Reshape,
            NodeOp::Trans(_) => Root::Trans,
            _ => return None,
        })
    }

    /// The slot of an e-node operator, `None` for operators no rule is rooted at.
    fn slot(op: &NodeOp) -> Option<usize> {
        Root::of(op).map(|root| root.slots().start)
    }

    /// The slots of the operators this root stands for.
    fn slots(self) -> std::ops::Range<usize> {
        let at = |i: usize| BinaryOp::ALL.len() + i..BinaryOp::ALL.len() + i + 1;
        match self {
            Root::Binary(op) => op as usize..op as usize + 1,
            Root::AnyBinary => 0..BinaryOp::ALL.len(),
            Root::Unary => at(0),
            Root::Math => at(1),
            Root::Fma => at(2),
            Root::Cmp => at(3),
            Root::Select => at(4),
            Root::Cast => at(5),
            Root::AddPtr => at(6),
            Root::Broadcast => at(7),
            Root::ExpandDims => at(8),
            Root::Reshape => at(9),
            Root::Trans => at(10),
        }
    }
}

/// A rewrite rule. Invariant: `func` returns `None` on every node whose operator is not
/// one of `roots`.
#[derive(Clone, Copy)]
pub struct Rule {
    pub name: &'static str,
    pub func: RuleFn,
    pub roots: &'static [Root],
}

impl Rule {
    pub const fn new(name: &'static str, func: RuleFn, roots: &'static [Root]) -> Rule {
        Rule { name, func, roots }
    }
}

/// The rule tables of the topic files, in application order.
const TABLES: [&[Rule]; 6] = [arith::RULES, broadcast::RULES, pointer::RULES, mask::RULES, select::RULES, cast::RULES];

/// Every rule, by topic file.
pub fn all() -> Vec<Rule> {
    TABLES.into_iter().flatten().copied().collect()
}

/// The names of the rules of [`all`], in the same order.
pub fn names() -> Vec<&'static str> {
    TABLES.into_iter().flatten().map(|rule| rule.name).collect()
}

/// The rules of a list indexed by the operator of the nodes they may fire on.
pub struct RuleIndex {
    /// Per [`Root::slot`], the positions in the list of the rules rooted there, ascending.
    by_slot: Vec<Vec<usize>>,
}

impl RuleIndex {
    pub fn new(rules: &[Rule]) -> RuleIndex {
        let mut by_slot = vec![Vec::new(); ROOT_SLOTS];
        for (position, rule) in rules.iter().enumerate() {
            for slot in rule.roots.iter().flat_map(|root| root.slots()) {
                if by_slot[slot].last() != Some(&position) {
                    by_slot[slot].push(position);
                }
            }
        }
        RuleIndex { by_slot }
    }

    /// The positions of the rules that may fire on a node with operator `op`, ascending.
    pub fn rules_at(&self, op: &NodeOp) -> &[usize] {
        Root::slot(op).map_or(&[], |slot| &self.by_slot[slot])
    }
}

/// For each rule of `rules`, the classes where it fires on some node, in the order of
/// `egraph.classes()`.
pub fn search(egraph: &Graph, rules: &[Rule], index: &RuleIndex) -> Vec<Vec<Id>> {
    let mut matches = vec![Vec::new(); rules.len()];
    for class in egraph.classes() {
        for node in &class.nodes {
            for &position in index.rules_at(&node.op) {
                let found: &mut Vec<Id> = &mut matches[position];
                if found.last() != Some(&class.id) && (rules[position].func)(egraph, node).is_some() {
                    found.push(class.id);
                }
            }
        }
    }
    matches
}

/// Applies the rule at `position` of the indexed list to each of `classes`: for each node
/// of the class (as it is when the class's turn comes) the rule fires on, adds its term and
/// unions it with the class. Returns the number of unions that merged two classes.
pub fn apply(egraph: &mut Graph, rule: &Rule, position: usize, index: &RuleIndex, classes: &[Id]) -> usize {
    let mut merged = 0;
    for &class in classes {
        let nodes: Vec<TileNode> =
            egraph[class].nodes.iter().filter(|node| index.rules_at(&node.op).contains(&position)).cloned().collect();
        for node in &nodes {
            if let Some(rhs) = (rule.func)(egraph, node) {
                let id = add_rhs(egraph, rhs);
                if egraph.union(class, id) {
                    merged += 1;
                }
            }
        }
    }
    merged
}

fn add_rhs(egraph: &mut Graph, rhs: Rhs) -> Id {
    match rhs {
        Rhs::Class(id) => id,
        Rhs::Node(op, ty, args) => {
            let children: Children = args.into_iter().map(|a| add_rhs(egraph, a)).collect();
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
