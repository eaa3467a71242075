//! Wall time per pipeline stage (`tilec compile --time`, `tilec run --time`), reported like
//! MLIR's `MLIR_ENABLE_TIMING`, and the progress line of a long run.
//!
//! Timings are measured, never part of an artifact: the compiler's outputs stay a function
//! of its inputs.

use std::io::Write;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The stages in the order the pipeline runs them; [`StageTimes`] reports them in this order.
pub const STAGES: [&str; 7] = ["parse", "front", "opt", "vector", "codegen", "link", "run"];

/// Wall time spent in each stage that ran.
///
/// ```
/// let mut times = tilec::timing::StageTimes::default();
/// times.add("parse", std::time::Duration::from_millis(2));
/// times.add("front", std::time::Duration::from_millis(6));
/// let report = times.render();
/// assert!(report.contains("Execution time report"));
/// assert!(report.contains("( 25.0%)  parse"));
/// assert!(report.contains("0.0080 (100.0%)  Total"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageTimes {
    /// `(stage, time)`, one entry per stage (times of a stage that ran twice are summed).
    pub stages: Vec<(&'static str, Duration)>,
}

impl StageTimes {
    /// Adds `time` to `stage`.
    pub fn add(&mut self, stage: &'static str, time: Duration) {
        match self.stages.iter_mut().find(|(s, _)| *s == stage) {
            Some((_, total)) => *total += time,
            None => self.stages.push((stage, time)),
        }
    }

    /// Runs `work`, adding its wall time to `stage`.
    pub fn time<T>(&mut self, stage: &'static str, work: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let result = work();
        self.add(stage, start.elapsed());
        result
    }

    /// Adds every stage of `other`.
    pub fn extend(&mut self, other: &StageTimes) {
        for &(stage, time) in &other.stages {
            self.add(stage, time);
        }
    }

    /// The sum of all stages.
    pub fn total(&self) -> Duration {
        self.stages.iter().map(|(_, t)| *t).sum()
    }

    /// The report: a header, the total, then one line per stage (pipeline order, see
    /// [`STAGES`]) with seconds and share of the total, as `MLIR_ENABLE_TIMING` prints it.
    pub fn render(&self) -> String {
        let rule = "===-------------------------------------------------------------------------===";
        let total = self.total().as_secs_f64();
        let mut out = format!("{rule}\n{:>50}\n{rule}\n", "... Execution time report ...");
        out.push_str(&format!("  Total Execution Time: {total:.4} seconds\n\n  ----Wall Time----  ----Name----\n"));
        let share = |t: f64| if total > 0.0 { 100.0 * t / total } else { 0.0 };
        let mut stages = self.stages.clone();
        stages.sort_by_key(|(s, _)| STAGES.iter().position(|k| k == s).unwrap_or(STAGES.len()));
        for (stage, time) in stages {
            let t = time.as_secs_f64();
            out.push_str(&format!("  {t:>8.4} ({:>5.1}%)  {stage}\n", share(t)));
        }
        out.push_str(&format!("  {total:>8.4} ({:>5.1}%)  Total\n", 100.0));
        out
    }
}

/// While alive, writes a line to `out` when the work it watches has taken more than `first`,
/// then again each time the elapsed time doubles: `tilec: LABEL: still running after 2 s`.
/// Dropping it ends the watch (and the thread) at once.
pub struct Progress {
    _watch: Watch,
}

impl Progress {
    /// Watches on standard error, first after one second.
    pub fn on_stderr(label: String) -> Progress {
        Progress::start(label, Duration::from_secs(1), std::io::stderr())
    }

    /// Watches, writing to `out`, first after `first`.
    pub fn start(label: String, first: Duration, mut out: impl Write + Send + 'static) -> Progress {
        let watch = Watch::spawn(move |stopped| {
            let start = Instant::now();
            let mut next = first;
            loop {
                let wait = next.saturating_sub(start.elapsed());
                match stopped.recv_timeout(wait) {
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        let elapsed = start.elapsed().as_secs_f64();
                        // Progress is a courtesy: a closed stderr is not an error of the run.
                        let _ = writeln!(out, "tilec: {label}: still running after {elapsed:.1} s");
                        let _ = out.flush();
                        next *= 2;
                    }
                    _ => return,
                }
            }
        });
        Progress { _watch: watch }
    }
}

/// A thread watching the work that runs while the `Watch` is alive: `watch` gets a receiver
/// whose `recv_timeout` returns (disconnected) as soon as the `Watch` is dropped, and the drop
/// waits for the thread to end.
pub(crate) struct Watch {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watch {
    pub(crate) fn spawn(watch: impl FnOnce(mpsc::Receiver<()>) + Send + 'static) -> Watch {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || watch(stopped));
        Watch { stop: Some(stop), thread: Some(thread) }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A writer whose bytes the test can read.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_long_run_gets_progress_lines_and_a_short_one_none() {
        let long = Shared::default();
        let watch = Progress::start("run of k".into(), Duration::from_millis(10), long.clone());
        // Wait for two lines (the watcher may be scheduled late on a busy machine).
        let lines = || String::from_utf8(long.0.lock().unwrap().clone()).unwrap();
        for _ in 0..6000 {
            if lines().lines().count() >= 2 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        drop(watch);
        let text = lines();
        assert!(text.starts_with("tilec: run of k: still running after "), "{text}");
        assert!(text.lines().count() >= 2, "the elapsed time doubled at least once: {text}");

        let short = Shared::default();
        drop(Progress::start("run of k".into(), Duration::from_secs(3600), short.clone()));
        assert!(short.0.lock().unwrap().is_empty());
    }

    #[test]
    fn stages_are_reported_in_pipeline_order_and_summed() {
        let mut times = StageTimes::default();
        times.add("run", Duration::from_millis(5));
        times.add("parse", Duration::from_millis(1));
        times.add("parse", Duration::from_millis(4));
        let report = times.render();
        let parse = report.find("  parse").unwrap();
        let run = report.find("  run").unwrap();
        assert!(parse < run, "{report}");
        assert!(report.contains("0.0050 ( 50.0%)  parse"), "{report}");
        assert!(report.contains("Total Execution Time: 0.0100 seconds"), "{report}");
    }
}
