//! The Tile IR of tilec: typed, block-level SSA with structured regions (see [`ir`]).
//!
//! Invariant: a [`Function`] that passed [`verify()`] is well typed, every value is defined
//! before its uses and in scope, and every region that must yield ends in its terminator.
//! The text printer ([`mod@print`]) is stable: it is what snapshots and `--emit tile` show; the
//! reader ([`parse`]) parses that text back, and print → parse → print is the identity.

pub mod assume;
pub mod axis;
pub mod extent;
pub mod fp8;
pub mod ir;
pub mod parse;
pub mod print;
pub mod verify;

pub use axis::{print_axis_info, AxisAnalysis, AxisInfo};
pub use ir::*;
pub use parse::parse_function;
pub use print::print_function;
pub use verify::verify;

/// Whether [`drop_in_background`] leaves its values to the process's exit ([`free_at_exit`]).
static FREED_AT_EXIT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// From now on [`drop_in_background`] never drops its values: their memory goes back with
/// the process's. For a process that compiles one kernel and ends (`tilec compile`), freeing
/// large structures piece by piece is work that gains nothing. Cannot be undone.
pub fn free_at_exit() {
    FREED_AT_EXIT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Drops `value` on the process's dropping thread, so that freeing a large structure (an
/// e-graph, a parsed program) does not hold up the caller. The thread is started by the first
/// call and then serves every later one (a compile hands over several structures, and a
/// library caller compiles many kernels); `value` is dropped in place when no thread can be
/// started, and not at all after [`free_at_exit`]. Nothing observable depends on when the
/// drop happens.
pub fn drop_in_background<T: Send + 'static>(value: T) {
    type Dropped = Box<dyn Send>;
    static DROPPER: std::sync::OnceLock<Option<std::sync::mpsc::Sender<Dropped>>> = std::sync::OnceLock::new();
    if FREED_AT_EXIT.load(std::sync::atomic::Ordering::Relaxed) {
        std::mem::forget(value);
        return;
    }
    let dropper = DROPPER.get_or_init(|| {
        let (sender, receiver) = std::sync::mpsc::channel::<Dropped>();
        let started =
            std::thread::Builder::new().name("tilec-drop".into()).spawn(move || receiver.into_iter().for_each(drop));
        started.ok().map(|_| sender)
    });
    // A failed send hands the value back inside the error, which drops it here.
    if let Some(sender) = dropper {
        let _ = sender.send(Box::new(value));
    }
}

#[cfg(test)]
mod tests {
    /// The value handed over is dropped (on another thread), exactly once.
    #[test]
    fn values_dropped_in_background_are_dropped_once_on_one_other_thread() {
        struct Reports(std::sync::mpsc::Sender<std::thread::ThreadId>);
        impl Drop for Reports {
            fn drop(&mut self) {
                let _ = self.0.send(std::thread::current().id());
            }
        }
        let (sender, receiver) = std::sync::mpsc::channel();
        super::drop_in_background(Reports(sender));
        let dropped_on = receiver.recv_timeout(std::time::Duration::from_secs(60)).expect("dropped");
        assert_ne!(dropped_on, std::thread::current().id());
        assert!(receiver.recv().is_err(), "dropped twice");
        // Later values go to the same thread.
        let (sender, receiver) = std::sync::mpsc::channel();
        super::drop_in_background(Reports(sender));
        let again_on = receiver.recv_timeout(std::time::Duration::from_secs(60)).expect("dropped");
        assert_eq!(again_on, dropped_on);
    }
}
