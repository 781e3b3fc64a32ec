//! The arena tape, the `Scalar` handle, and the reverse pass.
//!
//! Nodes live in creation order, and creation order is already a topological
//! order (an operand exists before the node that consumes it), so the reverse
//! pass is one backward loop over indices: no recursion, no hash map, no
//! stack to overflow, and dropping the tape frees everything at once.

use std::cell::RefCell;
use std::fmt;

use crate::error::{Label, ScalarAutodiffError};
use crate::ledger::BackwardPass;
use crate::operation::ScalarOperation;

/// Parent slot marker: no operand in this slot.
pub(crate) const NO_PARENT: u32 = u32::MAX;
/// Parent slot marker bit: the operand tracks no gradient, so the reverse
/// pass skips the edge without looking the parent up.
pub(crate) const UNTRACKED: u32 = 1 << 31;
/// The most nodes one tape can index (the high bit of an index is a flag).
pub const MAX_NODES: usize = (UNTRACKED - 1) as usize;

/// What the reverse pass reads for every node: its operand edges.
///
/// Kept apart from values, labels and stored gradients so that the backward
/// loop streams through 24 bytes per node.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edges {
    /// Tape indices of the operands, `UNTRACKED`-flagged or `NO_PARENT`.
    pub(crate) parents: [u32; 2],
    /// Local derivative of the node with respect to each operand slot,
    /// evaluated at record time from the stored primal values.
    pub(crate) derivatives: [f64; 2],
}

impl Edges {
    const LEAF: Self = Self {
        parents: [NO_PARENT, NO_PARENT],
        derivatives: [0.0, 0.0],
    };

    /// The operand in `slot`, as `(tape index, tracked)`.
    pub(crate) fn parent(&self, slot: usize) -> Option<(usize, bool)> {
        let raw = self.parents[slot];
        (raw != NO_PARENT).then_some(((raw & !UNTRACKED) as usize, raw & UNTRACKED == 0))
    }
}

/// Everything else about a node.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Info {
    pub(crate) value: f64,
    /// The stored gradient; meaningful only when `tracked`.
    pub(crate) gradient: f64,
    /// `""` when the node has no label.
    pub(crate) label: &'static str,
    pub(crate) line: u32,
    pub(crate) operation: ScalarOperation,
    pub(crate) tracked: bool,
}

impl Info {
    pub(crate) fn label(&self) -> Option<Label> {
        (!self.label.is_empty()).then_some(Label {
            text: self.label,
            line: self.line,
        })
    }
}

#[derive(Default)]
pub(crate) struct Nodes {
    pub(crate) edges: Vec<Edges>,
    pub(crate) info: Vec<Info>,
}

impl Nodes {
    /// An operand's value and whether it tracks a gradient: all that
    /// recording reads, fetched inside the caller's one borrow of the tape.
    #[inline]
    pub(crate) fn operand(&self, index: u32) -> (f64, bool) {
        let info = &self.info[index as usize];
        (info.value, info.tracked)
    }

    /// Appends one node and returns its index. Callers have validated value
    /// and derivatives.
    #[inline]
    pub(crate) fn push(
        &mut self,
        edges: Edges,
        value: f64,
        operation: ScalarOperation,
        tracked: bool,
    ) -> Result<u32, ScalarAutodiffError> {
        let index = self.info.len();
        if index >= MAX_NODES {
            return Err(ScalarAutodiffError::TapeFull {
                capacity: MAX_NODES,
            });
        }
        self.edges.push(edges);
        self.info.push(Info {
            value,
            gradient: 0.0,
            label: "",
            line: 0,
            operation,
            tracked,
        });
        Ok(index as u32)
    }
}

/// An arena of scalar nodes in creation order.
///
/// Every [`Scalar`] borrows the tape it was recorded on; the tape frees all
/// nodes at once when it is dropped or [`clear`](Tape::clear)ed. A `Tape` is
/// `Send` but not `Sync`: give each thread its own.
///
/// ```
/// use autodiff_core::Tape;
///
/// let tape = Tape::new();
/// let x = tape.variable(2.0)?;
/// let square = x.mul(x)?;
/// let loss = square.add(square)?;
/// loss.backward()?;
/// assert_eq!(loss.value(), 8.0);
/// assert_eq!(x.gradient(), Some(8.0));
/// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
/// ```
#[derive(Default)]
pub struct Tape {
    pub(crate) nodes: RefCell<Nodes>,
}

/// The bytes one recorded node occupies on a tape (edges plus info).
pub const BYTES_PER_NODE: usize = std::mem::size_of::<Edges>() + std::mem::size_of::<Info>();

impl Tape {
    /// An empty tape.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty tape with room for `nodes` nodes before it reallocates.
    pub fn with_capacity(nodes: usize) -> Self {
        Self {
            nodes: RefCell::new(Nodes {
                edges: Vec::with_capacity(nodes),
                info: Vec::with_capacity(nodes),
            }),
        }
    }

    /// The number of recorded nodes.
    pub fn len(&self) -> usize {
        self.nodes.borrow().info.len()
    }

    /// Whether nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many nodes fit before the tape reallocates.
    pub fn capacity(&self) -> usize {
        let nodes = self.nodes.borrow();
        nodes.edges.capacity().min(nodes.info.capacity())
    }

    /// Forgets every node but keeps the memory, so that a training loop can
    /// record each iteration on the same tape without allocating.
    ///
    /// Taking `&mut self` means no [`Scalar`] of the old graph can outlive this.
    pub fn clear(&mut self) {
        let nodes = self.nodes.get_mut();
        nodes.edges.clear();
        nodes.info.clear();
    }

    /// Records a tracked leaf. `value` must be finite.
    pub fn variable(&self, value: f64) -> Result<Scalar<'_>, ScalarAutodiffError> {
        self.leaf(value, ScalarOperation::Variable, true)
    }

    /// Records an untracked leaf: backward passes through it receive nothing.
    /// `value` must be finite.
    pub fn constant(&self, value: f64) -> Result<Scalar<'_>, ScalarAutodiffError> {
        self.leaf(value, ScalarOperation::Constant, false)
    }

    pub(crate) fn leaf(
        &self,
        value: f64,
        operation: ScalarOperation,
        tracked: bool,
    ) -> Result<Scalar<'_>, ScalarAutodiffError> {
        if !value.is_finite() {
            return Err(ScalarAutodiffError::NonFiniteLeaf {
                operation,
                value,
                label: None,
            });
        }
        self.push(Edges::LEAF, value, operation, tracked)
    }

    /// Appends one node. Callers have validated value and derivatives.
    #[inline]
    pub(crate) fn push(
        &self,
        edges: Edges,
        value: f64,
        operation: ScalarOperation,
        tracked: bool,
    ) -> Result<Scalar<'_>, ScalarAutodiffError> {
        let index = self
            .nodes
            .borrow_mut()
            .push(edges, value, operation, tracked)?;
        Ok(Scalar { tape: self, index })
    }

    /// Sets every stored gradient on the tape to zero.
    pub fn zero_grads(&self) {
        for info in &mut self.nodes.borrow_mut().info {
            info.gradient = 0.0;
        }
    }

    pub(crate) fn info(&self, index: u32) -> Info {
        self.nodes.borrow().info[index as usize]
    }
}

impl fmt::Debug for Tape {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Tape")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

/// A `Copy` handle to one node of a [`Tape`].
///
/// Two handles are the same node only if [`is_same_node`](Scalar::is_same_node)
/// says so; equal values do not make equal nodes.
#[derive(Clone, Copy)]
pub struct Scalar<'t> {
    pub(crate) tape: &'t Tape,
    pub(crate) index: u32,
}

impl<'t> Scalar<'t> {
    /// The tape this scalar lives on.
    pub fn tape(self) -> &'t Tape {
        self.tape
    }

    /// The node's position in creation order.
    pub fn index(self) -> usize {
        self.index as usize
    }

    /// The primal value.
    #[inline]
    pub fn value(self) -> f64 {
        self.tape.nodes.borrow().info[self.index as usize].value
    }

    /// The operation that produced the node.
    pub fn operation(self) -> ScalarOperation {
        self.tape.info(self.index).operation
    }

    /// Whether backward passes accumulate a gradient here.
    pub fn tracks_gradient(self) -> bool {
        self.tape.info(self.index).tracked
    }

    /// The stored gradient, accumulated over completed backward passes;
    /// `None` for constants, detached values and operations on them only.
    pub fn gradient(self) -> Option<f64> {
        let info = self.tape.info(self.index);
        info.tracked.then_some(info.gradient)
    }

    /// The node's label, if one was attached.
    pub fn label(self) -> Option<Label> {
        self.tape.info(self.index).label()
    }

    /// Attaches `label` to this node (replacing any earlier one) and returns
    /// the same handle. Labels show in errors and in the ledger.
    pub fn labeled(self, label: Label) -> Self {
        let mut nodes = self.tape.nodes.borrow_mut();
        let info = &mut nodes.info[self.index as usize];
        info.label = label.text;
        info.line = label.line;
        self
    }

    /// Whether two handles refer to the same node of the same tape.
    pub fn is_same_node(self, other: Scalar<'_>) -> bool {
        std::ptr::eq(self.tape, other.tape) && self.index == other.index
    }

    /// A new untracked leaf with the same value and no edge to `self`:
    /// gradients stop here.
    pub fn detach(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.tape
            .leaf(self.value(), ScalarOperation::Detached, false)
    }

    /// One fresh reverse pass seeded with 1; see [`backward_with_seed`](Self::backward_with_seed).
    pub fn backward(self) -> Result<BackwardPass<'t>, ScalarAutodiffError> {
        self.backward_with_seed(1.0)
    }

    /// One fresh reverse pass from this node, seeded with `seed`, then
    /// `gradient += pass adjoint` on every tracked node it reaches.
    ///
    /// The pass keeps its own adjoints (it never reads stored gradients), adds
    /// one contribution per operand edge (`x * x` sends two to `x`), and skips
    /// constants and detached values. Every contribution, pass adjoint and
    /// prospective stored sum is checked first: on error no stored gradient
    /// has changed, bit for bit. Nodes the output does not reach are never
    /// touched.
    ///
    /// ```
    /// use autodiff_core::Tape;
    ///
    /// let tape = Tape::new();
    /// let x = tape.variable(2.0)?;
    /// let y = x.mul(x)?.mul(3.0)?; // 3x², dy/dx = 6x
    /// y.backward_with_seed(0.5)?;
    /// assert_eq!(x.gradient(), Some(6.0));
    /// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
    /// ```
    pub fn backward_with_seed(self, seed: f64) -> Result<BackwardPass<'t>, ScalarAutodiffError> {
        let output = self.index as usize;
        let nodes = self.tape.nodes.borrow();
        let out = &nodes.info[output];
        if !out.tracked {
            return Err(ScalarAutodiffError::UntrackedOutput {
                operation: out.operation,
                label: out.label(),
            });
        }
        if !seed.is_finite() {
            return Err(ScalarAutodiffError::NonFiniteSeed { seed });
        }

        let edges = &nodes.edges[..=output];
        let mut adjoints = vec![0.0_f64; output + 1];
        adjoints[output] = seed;

        for child in (0..=output).rev() {
            let upstream = adjoints[child];
            // A node the output does not reach has adjoint 0, and so may a
            // reached one; either way its contributions are all ±0, and
            // adding ±0 to an adjoint changes no bit (adjoints start at +0,
            // and a sum is −0 only if both terms are). So skipping adjoint-0
            // nodes is exact, and it is what stands in for a reached-flag array.
            if upstream == 0.0 {
                continue;
            }
            let node = &edges[child];
            for operand in 0..2 {
                let raw = node.parents[operand];
                if raw & UNTRACKED != 0 {
                    continue; // no operand, or an untracked one
                }
                let parent = raw as usize;
                let local_derivative = node.derivatives[operand];
                let contribution = upstream * local_derivative;
                let previous = adjoints[parent];
                let next = previous + contribution;
                // `previous` is finite, so a non-finite contribution makes
                // `next` non-finite too: one test on the fast path, and the
                // cold path sorts out which error it is.
                if !next.is_finite() {
                    return Err(if contribution.is_finite() {
                        ScalarAutodiffError::NonFinitePassAdjoint {
                            node: parent,
                            previous,
                            contribution,
                            label: nodes.info[parent].label(),
                        }
                    } else {
                        ScalarAutodiffError::NonFiniteContribution {
                            child,
                            parent,
                            operand,
                            upstream,
                            local_derivative,
                            label: nodes.info[child].label(),
                        }
                    });
                }
                adjoints[parent] = next;
            }
        }

        // Validate every prospective stored sum before committing any. An
        // adjoint-0 node cannot fail: stored gradients are always finite.
        let infos = &nodes.info[..=output];
        if let Some(node) = infos
            .iter()
            .zip(&adjoints)
            .position(|(info, &adjoint)| !(info.gradient + adjoint).is_finite())
        {
            let info = &infos[node];
            return Err(ScalarAutodiffError::NonFiniteAccumulatedGradient {
                node,
                stored: info.gradient,
                pass_adjoint: adjoints[node],
                label: info.label(),
            });
        }
        drop(nodes);

        // Only nodes with a non-zero pass adjoint are written, so nodes the
        // output does not reach (and untracked ones, which never receive a
        // contribution) keep their stored gradient bit for bit.
        let mut nodes = self.tape.nodes.borrow_mut();
        for (info, &adjoint) in nodes.info[..=output].iter_mut().zip(&adjoints) {
            if adjoint != 0.0 {
                info.gradient += adjoint;
            }
        }
        Ok(BackwardPass::new(self.tape, output, seed, adjoints))
    }

    /// Sets the stored gradient of every tracked node this output reaches to
    /// zero. Values, graph and other nodes are unchanged.
    pub fn zero_grad(self) {
        let output = self.index as usize;
        let mut nodes = self.tape.nodes.borrow_mut();
        if !nodes.info[output].tracked {
            return;
        }
        let mut reached = vec![false; output + 1];
        reached[output] = true;
        for node in (0..=output).rev() {
            if !reached[node] {
                continue;
            }
            nodes.info[node].gradient = 0.0;
            for raw in nodes.edges[node].parents {
                if raw & UNTRACKED == 0 {
                    reached[raw as usize] = true;
                }
            }
        }
    }
}

impl fmt::Debug for Scalar<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.tape.info(self.index);
        let mut debug = formatter.debug_struct("Scalar");
        debug
            .field("index", &self.index)
            .field("operation", &info.operation)
            .field("value", &info.value);
        if info.tracked {
            debug.field("gradient", &info.gradient);
        }
        if let Some(label) = info.label() {
            debug.field("label", &label.text);
        }
        debug.finish()
    }
}
