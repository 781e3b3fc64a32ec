//! The tape a generated `f_grad` records on.
//!
//! No pool of its own: `f_grad` records on a `Tape::new()` and drops it, and
//! the engine's one memory-reuse mechanism (`autodiff-core/src/spare.rs`,
//! bounded by [`SPARE_NODES`](autodiff_core::SPARE_NODES)) hands the dropped
//! tape's buffers to the next call on the thread. So `f_grad` in a loop
//! reuses memory as `f_grad_on` with a kept tape does.

use autodiff_core::Tape;

/// Runs `f` (an `f_grad_on`) on a new tape, which starts from the memory of
/// the last small tape dropped on this thread.
///
/// A nested `f_grad` (one called while `f` runs) finds that memory taken
/// and starts from fresh buffers; `f` returns plain numbers, so nothing of
/// the tape outlives the call.
pub fn on_scratch_tape<R>(f: impl FnOnce(&mut Tape) -> R) -> R {
    f(&mut Tape::new())
}
