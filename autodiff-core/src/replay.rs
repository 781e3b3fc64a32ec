//! The reverse pass as the textbook writes it: every node from the output
//! down, every operand edge in slot order,
//! `adjoint[parent] += adjoint[node] × local derivative`.
//!
//! Creation order is already a topological order (an operand exists before
//! the node that consumes it), so one backward loop over indices finishes
//! each node's adjoint before the node sends it on: no recursion, no sort.
//!
//! This is the loop that defines what a pass computes. The ledger
//! ([`BackwardPass`](crate::BackwardPass)) replays it to show each step, and
//! a pass that failed replays it to name the first step that failed. The
//! pass that runs on every `backward` is [`sweep`](crate::sweep), which
//! computes the same adjoints, bit for bit, with the same operations in the
//! same order and fewer branches; `tests/sweep_matches_replay.rs` checks that on random
//! graphs.

use std::ops::ControlFlow;

use crate::nodes::Edges;

/// One operand edge as the replay applies it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    /// The consuming node.
    pub(crate) child: usize,
    /// The operand slot in the consumer (0 or 1).
    pub(crate) operand: usize,
    /// The operand node.
    pub(crate) parent: usize,
    /// Whether the operand tracks a gradient; if not, nothing was added.
    pub(crate) parent_tracked: bool,
    /// The consumer's adjoint, final when the replay reaches it.
    pub(crate) upstream: f64,
    /// ∂child/∂parent for this operand occurrence, recorded with the node.
    pub(crate) local_derivative: f64,
    /// `upstream × local_derivative`.
    pub(crate) contribution: f64,
    /// The operand's adjoint before this edge.
    pub(crate) before: f64,
    /// The operand's adjoint after it.
    pub(crate) after: f64,
}

/// Replays the reverse pass over `edges` (the nodes up to the output) into
/// `adjoints`, which hold 0 everywhere but the seed at the output. `visit`
/// sees each edge right after it is applied and may stop the replay.
#[inline]
pub(crate) fn replay<B>(
    edges: &[Edges],
    adjoints: &mut [f64],
    mut visit: impl FnMut(&Step) -> ControlFlow<B>,
) -> ControlFlow<B> {
    for child in (0..edges.len()).rev() {
        let upstream = adjoints[child];
        let node = &edges[child];
        for operand in 0..2 {
            let Some((parent, parent_tracked)) = node.parent(operand) else {
                continue;
            };
            let local_derivative = node.derivatives[operand];
            let contribution = upstream * local_derivative;
            let before = adjoints[parent];
            if parent_tracked {
                // The chain rule.
                adjoints[parent] += contribution;
            }
            visit(&Step {
                child,
                operand,
                parent,
                parent_tracked,
                upstream,
                local_derivative,
                contribution,
                before,
                after: adjoints[parent],
            })?;
        }
    }
    ControlFlow::Continue(())
}
