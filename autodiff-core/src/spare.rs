//! Memory reuse across tapes: the one place where a thread keeps a dropped
//! tape's buffers for the next.
//!
//! A dropped tape of at most [`SPARE_NODES`] nodes of capacity leaves its
//! arrays (nodes, stored gradients, labels and the adjoint buffer), emptied,
//! to its thread; the next [`Tape::new`](crate::Tape::new) on that thread
//! starts from them. Of two such tapes the roomier is kept; a larger tape's
//! memory goes back to the allocator. This is also how the facade's `f_grad`
//! reuses memory from call to call: it records on a `Tape::new()` and drops
//! it.
//!
//! Why: glibc hands the top of the heap back to the system when a large free
//! block ends up there, and serves large allocations with fresh mappings, so
//! a loop that records a new tape per step would pay for fresh pages, zeroed
//! by the kernel, on every step. Reusing the last tape's memory makes a new
//! tape cost what [`Tape::clear`](crate::Tape::clear) does.

use std::cell::Cell;

use crate::nodes::Nodes;

/// The most nodes a dropped tape may have room for and still leave its
/// buffers to the next [`Tape::new`](crate::Tape::new) on its thread:
/// 2²⁰ nodes, which bounds what a thread keeps to about 72 MiB (every array
/// full: 40 bytes of node, 8 of stored gradient, 8 of adjoint buffer and 16
/// of label a node).
pub const SPARE_NODES: usize = 1 << 20;

thread_local! {
    /// The buffers of the roomiest small tape dropped on this thread since
    /// the last `Tape::new` took them, emptied.
    static SPARE: Cell<Nodes> = Cell::new(Nodes::default());
}

/// The thread's spare buffers, empty; fresh (unallocated) ones if there are
/// none or the thread is being torn down.
pub(crate) fn take() -> Nodes {
    SPARE.try_with(Cell::take).unwrap_or_default()
}

/// Offers a dropped tape's buffers to its thread.
pub(crate) fn offer(nodes: &mut Nodes) {
    let room = nodes.room();
    if room == 0 || room > SPARE_NODES {
        return;
    }
    let mut spare = std::mem::take(nodes);
    spare.forget_nodes();
    // A tape made for a second-order pass does not make the next one so.
    spare.kept = None;
    // `try_with`: during thread exit the place may be gone already; the
    // buffers are then simply freed.
    let _ = SPARE.try_with(|kept| {
        let other = kept.take();
        kept.set(if other.room() > spare.room() {
            other
        } else {
            spare
        });
    });
}
