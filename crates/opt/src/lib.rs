//! E-graph optimizer for the Tile IR: combine, CSE, DCE and loop-invariant code motion in
//! one mechanism (Cranelift's aegraph design, over structured regions, with `egg`).
//!
//! Pipeline of [`optimize`]:
//! 0. [`carried`]: structural rewrites of loop-carried tiles on the Tile IR itself (the
//!    e-graph sees loops only as skeleton); their applications are counted in the report.
//! 1. [`build`]: pure ops become e-nodes (typed, so values of different types never merge);
//!    effects and ops with regions form the skeleton, and their results and all region
//!    parameters are opaque leaves. Hash-consing already shares equal pure values.
//! 2. Equality saturation ([`saturate`]) with the one-directional rules of [`rules`] (see its README),
//!    under the explicit limits of [`Options`]; the analysis folds constants exactly.
//! 3. [`elaborate`]: extraction with a loop-depth-aware cost ([`cost`]) and re-emission of
//!    the chosen pure values into the outermost legal region, memoized per scope; loads
//!    with invariant operands leave loops that hold no store, atomic or assert (guarded when
//!    the loop may run zero times; see [`elaborate`]).
//!
//! Invariant: for a function that passes `tilec_ir::verify`, the output passes it too and
//! computes the same results; when the optimizer cannot elaborate (an internal limitation,
//! recorded in [`Report::fallback`]) it returns the input unchanged.

pub mod analysis;
pub mod build;
pub mod carried;
pub mod cost;
pub mod elaborate;
pub mod fold;
pub mod lang;
pub mod rules;
pub mod saturate;

use std::borrow::Cow;
use std::fmt;
use std::time::{Duration, Instant};
use tilec_ir::{Function, OpKind};

/// Limits of the rewrite runner, in work, never in time: the same input always stops at the
/// same point, so it always compiles to the same code (a wall-clock limit would make the
/// output depend on the machine's load). Rules are non-expanding, so saturation is the
/// usual stop; the limits bound pathological inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Rewrite iterations (each applies every rule once to the whole e-graph).
    pub iter_limit: usize,
    /// E-nodes (egg's total size of the e-graph), checked between rules and iterations.
    pub node_limit: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options { iter_limit: 16, node_limit: 20_000 }
    }
}

/// The names of every rule [`optimize`] may apply (the e-graph rules, then the loop-carried
/// rules), as [`Report::rule_applications`] names them.
pub fn rule_names() -> Vec<&'static str> {
    let mut names = rules::names();
    names.extend(carried::RULE_NAMES);
    names
}

/// What the optimizer did. Everything but [`Report::timings`] is a function of the input
/// and the options ([`Report::summary`] prints it); `Display` adds the timings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Why the rewrite runner stopped (`Saturated`, or the limit that was hit).
    pub stop_reason: String,
    pub iterations: usize,
    pub egraph_nodes: usize,
    pub egraph_classes: usize,
    /// Times each rule was applied, summed over iterations, in rule order of first use.
    pub rule_applications: Vec<(String, usize)>,
    pub pure_ops_before: usize,
    pub elab: elaborate::ElabStats,
    /// Set when the output is the unchanged input, with the reason.
    pub fallback: Option<String>,
    /// Where the time went (machine-dependent, unlike the rest of the report).
    pub timings: Timings,
}

/// Wall-clock times of the optimizer's phases, for profiling only: nothing the optimizer
/// decides depends on them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timings {
    /// Time spent building the e-graph, rewriting, and extracting plus elaborating.
    pub phases: [Duration; 3],
    /// Rewrite time split into e-matching, applying and rebuilding.
    pub search_apply_rebuild: [Duration; 3],
    pub elapsed: Duration,
}

impl Report {
    /// The report without its timings: the same text for the same input on any machine.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        self.write_summary(&mut out).expect("writing to a String cannot fail");
        out
    }

    fn write_summary(&self, f: &mut impl fmt::Write) -> fmt::Result {
        writeln!(f, "stop reason: {}", self.stop_reason)?;
        writeln!(f, "iterations: {}", self.iterations)?;
        writeln!(f, "e-graph: {} nodes in {} classes", self.egraph_nodes, self.egraph_classes)?;
        writeln!(f, "pure ops: {} before, {} after", self.pure_ops_before, self.elab.pure_ops)?;
        writeln!(f, "hoisted: {}", self.elab.hoisted)?;
        writeln!(f, "masks dropped: {}", self.elab.masks_dropped)?;
        writeln!(f, "stores dropped: {}", self.elab.stores_dropped)?;
        writeln!(f, "loads hoisted: {} ({} guarded)", self.elab.loads_hoisted, self.elab.loads_guarded)?;
        for (rule, count) in &self.rule_applications {
            writeln!(f, "rule {rule}: {count}")?;
        }
        if let Some(reason) = &self.fallback {
            writeln!(f, "fallback (input returned unchanged): {reason}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_summary(f)?;
        let t = &self.timings;
        let [build, rewrite, elaborate] = t.phases;
        let [search, apply, rebuild] = t.search_apply_rebuild;
        writeln!(f, "rewrite: search {search:?}, apply {apply:?}, rebuild {rebuild:?}")?;
        writeln!(f, "time: {:?} (build {build:?}, rewrite {rewrite:?}, elaborate {elaborate:?})", t.elapsed)
    }
}

/// Optimizes `f`; see the crate documentation for what is done and what is guaranteed.
pub fn optimize(f: &Function, options: &Options) -> (Function, Report) {
    let start = Instant::now();
    let mut report = Report::default();
    // The loop-carried rules rewrite `scf.for` ops only: a function without one is used as is.
    let mut rewritten = Cow::Borrowed(f);
    if f.ops.values().any(|op| matches!(op.kind, OpKind::For { .. })) {
        for (rule, count) in carried::rewrite(rewritten.to_mut()) {
            if count > 0 {
                report.rule_applications.push((rule.to_string(), count));
            }
        }
    }
    let f = &*rewritten;
    let built = match build::build(f) {
        Ok(built) => built,
        Err(reason) => {
            report.fallback = Some(reason);
            report.timings.elapsed = start.elapsed();
            return (f.clone(), report);
        }
    };
    report.pure_ops_before = built.pure_ops;
    let built_at = Instant::now();
    report.timings.phases[0] = built_at - start;
    let mut egraph = built.egraph;
    let run = saturate::saturate(&mut egraph, &rules::all(), options, &mut report.rule_applications);
    report.stop_reason = format!("{:?}", run.stop_reason);
    report.iterations = run.iterations;
    report.timings.search_apply_rebuild = run.search_apply_rebuild;
    let rewritten_at = Instant::now();
    report.timings.phases[1] = rewritten_at - built_at;
    report.egraph_nodes = egraph.total_number_of_nodes();
    report.egraph_classes = egraph.number_of_classes();
    let result = elaborate::Elaborator::new(f, &egraph, &built.class_of).run();
    let out = match result {
        Ok((out, stats)) => {
            report.elab = stats;
            out
        }
        Err(reason) => {
            report.fallback = Some(reason);
            f.clone()
        }
    };
    // The e-graph and the rewritten input are large and no longer needed.
    let rewritten = match rewritten {
        Cow::Owned(rewritten) => Some(rewritten),
        Cow::Borrowed(_) => None,
    };
    tilec_ir::drop_in_background((egraph, built.class_of, rewritten));
    report.timings.phases[2] = rewritten_at.elapsed();
    report.timings.elapsed = start.elapsed();
    (out, report)
}
