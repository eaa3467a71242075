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

/// Drops `value` on a thread of its own, so that freeing a large structure (an e-graph, a
/// parsed program) does not hold up the caller; dropped in place when no thread can be
/// started. Nothing observable depends on when the drop happens.
pub fn drop_in_background<T: Send + 'static>(value: T) {
    // On failure `spawn` drops the closure, and with it `value`, here.
    let _ = std::thread::Builder::new().spawn(move || drop(value));
}

#[cfg(test)]
mod tests {
    /// The value handed over is dropped (on another thread), exactly once.
    #[test]
    fn a_value_dropped_in_background_is_dropped_once_on_another_thread() {
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
    }
}
