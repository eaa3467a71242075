//! `tilec_ir::free_at_exit` in a process of its own (it cannot be undone).

use std::sync::Arc;

/// After `free_at_exit`, a value handed to `drop_in_background` is never dropped: the clone of
/// an `Arc` it holds keeps the count at two, at once and later.
#[test]
fn values_handed_over_after_free_at_exit_are_never_dropped() {
    tilec_ir::free_at_exit();
    let shared = Arc::new(0u8);
    tilec_ir::drop_in_background(Arc::clone(&shared));
    assert_eq!(Arc::strong_count(&shared), 2);
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(Arc::strong_count(&shared), 2, "the value was dropped");
}
