//! Equality saturation under the limits of [`Options`]: every rule is searched on the whole
//! e-graph (one walk over the classes, each node tried with the rules rooted at its
//! operator), then every rule's matches are applied, then the e-graph is rebuilt; that is one
//! iteration. The run stops when an iteration changes nothing (saturated), when the node
//! limit is passed (checked after each rule's application) or after the iteration limit.
//!
//! Invariant: the stop is a function of the e-graph and the limits alone. No clock is read
//! to decide anything (egg's own runner always checks a wall-clock limit); the durations
//! are measured for the report only. egg's `EGraph::rebuild` reads `quanta`'s clock for a
//! log line, and `quanta`'s first reading in a process calibrates the TSC for milliseconds
//! (a third of a short `tilec compile`); the run reads a mock clock instead.

use std::time::{Duration, Instant};

use egg::StopReason;

use crate::analysis::Graph;
use crate::rules::{self, Rule, RuleIndex};
use crate::Options;

/// What a saturation run did.
pub struct Saturation {
    pub stop_reason: StopReason,
    pub iterations: usize,
    /// Time spent searching, applying and rebuilding, summed over iterations.
    pub search_apply_rebuild: [Duration; 3],
}

/// Rewrites `egraph` with `rules` until it saturates or a limit of `options` is reached,
/// adding each rule's applications to its entry in `applied` (appended on first use).
pub fn saturate(
    egraph: &mut Graph,
    rules: &[Rule],
    options: &Options,
    applied: &mut Vec<(String, usize)>,
) -> Saturation {
    let (clock, _) = quanta::Clock::mock();
    quanta::with_clock(&clock, || saturate_with_mock_clock(egraph, rules, options, applied))
}

fn saturate_with_mock_clock(
    egraph: &mut Graph,
    rules: &[Rule],
    options: &Options,
    applied: &mut Vec<(String, usize)>,
) -> Saturation {
    let index = RuleIndex::new(rules);
    let limit = |iteration: usize, egraph: &Graph| {
        let size = egraph.total_size();
        if size > options.node_limit {
            Some(StopReason::NodeLimit(size))
        } else if iteration >= options.iter_limit {
            Some(StopReason::IterationLimit(iteration))
        } else {
            None
        }
    };
    let mut run =
        Saturation { stop_reason: StopReason::Saturated, iterations: 0, search_apply_rebuild: [Duration::ZERO; 3] };
    loop {
        let iteration = run.iterations;
        let mut stop = limit(iteration, egraph);
        let (nodes, classes) = (egraph.total_size(), egraph.number_of_classes());
        let mut applied_any = false;
        if stop.is_none() {
            let searched_at = Instant::now();
            let matches = rules::search(egraph, rules, &index);
            let applying_at = Instant::now();
            for (position, (rule, classes)) in rules.iter().zip(matches).enumerate() {
                let count = rules::apply(egraph, rule, position, &index, &classes);
                if count > 0 {
                    applied_any = true;
                    match applied.iter_mut().find(|(name, _)| name == rule.name) {
                        Some((_, total)) => *total += count,
                        None => applied.push((rule.name.to_string(), count)),
                    }
                }
                stop = limit(iteration, egraph);
                if stop.is_some() {
                    break;
                }
            }
            run.search_apply_rebuild[0] += applying_at - searched_at;
            run.search_apply_rebuild[1] += applying_at.elapsed();
        }
        let rebuilding_at = Instant::now();
        egraph.rebuild();
        run.search_apply_rebuild[2] += rebuilding_at.elapsed();
        run.iterations += 1;
        let unchanged = !applied_any && nodes == egraph.total_size() && classes == egraph.number_of_classes();
        if let Some(reason) = stop.or(unchanged.then_some(StopReason::Saturated)) {
            run.stop_reason = reason;
            return run;
        }
    }
}
