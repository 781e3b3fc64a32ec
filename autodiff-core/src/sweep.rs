//! The reverse pass that `backward` runs: [`replay`](crate::replay)'s loop
//! with the checks folded into one finiteness test per node and the leaves
//! a tape starts with taken out of it.
//!
//! It applies the same `adjoint[parent] += upstream × local derivative`, in
//! the same order, so its adjoints are the replay's bit for bit
//! (`tests/sweep_matches_replay.rs` checks this on random graphs).

use crate::nodes::{Edges, UNTRACKED};

/// The reverse sweep: each node, from the output down, sends
/// `adjoint × local derivative` to each tracked operand. Returns whether
/// every prospective stored sum `gradient + adjoint` is finite, tested as
/// each node's adjoint becomes final (when the sweep reaches it): the loop
/// waits on each stored adjoint anyway, so the test costs less here than in
/// a pass of its own.
///
/// One test stands for all of chapter 14's checks. Adjoints start finite,
/// and once a sum is infinite or NaN no later addition makes it finite
/// again; so a non-finite contribution or pass adjoint anywhere leaves a
/// non-finite adjoint at the end, and (stored gradients being finite) a
/// non-finite prospective sum.
///
/// Nodes the output does not reach need no reached-flag array: their
/// adjoint is 0, so their contributions are ±0, and adding ±0 to an adjoint
/// changes no bit (adjoints start at +0, and a sum is −0 only when both
/// terms are). Visiting them gives, bit for bit, the result of visiting
/// reached nodes only. Skipping adjoint-0 nodes would cost a branch on a
/// value just stored, and sending untracked edges to a sink place instead
/// of branching on the flag would chain every such addition on the sink:
/// both measured slower. Kept out of line: inlined into its one caller, the
/// loop compiled longer.
#[inline(never)]
pub(crate) fn sweep(
    edges: &[Edges],
    gradients: &[f64],
    leading_leaves: usize,
    adjoints: &mut [f64],
) -> bool {
    let len = edges.len();
    // Nodes past the end of the lazy gradient array have stored gradient 0.
    let stored = gradients.len().min(len);
    let leaves = leading_leaves.min(len);
    let adjoints = &mut adjoints[..len];
    let mut all_finite = true;
    // Plain index loops: the `enumerate().rev()` form divides a byte
    // offset by the 24-byte node size on every node.
    for child in (stored.max(leaves)..len).rev() {
        let upstream = adjoints[child];
        all_finite &= upstream.is_finite();
        propagate(&edges[child], upstream, adjoints);
    }
    for child in (leaves..stored).rev() {
        let upstream = adjoints[child];
        all_finite &= (gradients[child] + upstream).is_finite();
        propagate(&edges[child], upstream, adjoints);
    }
    // The leading leaves send nothing on; their sums are only tested, in
    // loops the compiler can vectorise.
    let (with_stored, without) = adjoints[..leaves].split_at(stored.min(leaves));
    all_finite &= without.iter().fold(true, |ok, a| ok & a.is_finite());
    all_finite &= with_stored
        .iter()
        .zip(gradients)
        .fold(true, |ok, (a, g)| ok & (g + a).is_finite());
    all_finite
}

/// One node's step of the sweep: `upstream × local derivative` to each
/// tracked operand. An entry with the [`UNTRACKED`] bit (which
/// `NO_PARENT` has too) sends nothing.
#[inline(always)]
fn propagate(node: &Edges, upstream: f64, adjoints: &mut [f64]) {
    for slot in 0..2 {
        let entry = node.entry(slot);
        if entry & UNTRACKED == 0 {
            adjoints[entry as usize] += upstream * node.derivatives[slot];
        }
    }
}
