//! The arena tape, the `Scalar` handle, and the reverse pass.
//!
//! Nodes live in creation order, and creation order is already a topological
//! order (an operand exists before the node that consumes it), so the reverse
//! pass is one backward loop over indices: no recursion, no hash map, no
//! stack to overflow, and dropping the tape frees everything at once.

use crate::cell::NodeCell;
use std::fmt;

use crate::error::{Label, ScalarAutodiffError};
use crate::ledger::BackwardPass;
use crate::operation::ScalarOperation;

/// The slow paths of recording, out of line, behind a calling convention
/// that keeps the caller's registers.
///
/// A call on a path that rejoins the hot path, however rarely taken, makes
/// LLVM keep every value live across it in a register the callee preserves
/// or else on the stack, and it spills them on the hot path, not around the
/// call (llvm/llvm-project#129750). The System V ABI preserves no
/// floating-point register and six general ones, so a training loop's
/// running sums and pointers went to the stack and back on every
/// operation. The Windows x64 convention preserves ten `xmm` and eight
/// general registers; declaring these functions with it (stable Rust, any
/// x86-64 target) moves the saving into the rarely run callee: recording
/// 3.1 → 2.3 ns per operation on the MLP bench. Elsewhere they are plain
/// functions.
///
/// The functions cannot unwind (a panic in them aborts), and none can
/// panic: `MAX_NODES` keeps every size far from overflow, and allocation
/// failure aborts in any case.
mod cold {
    use super::Nodes;

    /// Each function twice: `extern "win64"` on x86-64, plain elsewhere.
    macro_rules! cold_paths {
        ($($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? $body:block)*) => {$(
            $(#[$doc])*
            #[cfg(target_arch = "x86_64")]
            #[cold]
            #[inline(never)]
            pub(super) extern "win64" fn $name($($arg: $ty),*) $(-> $ret)? $body

            $(#[$doc])*
            #[cfg(not(target_arch = "x86_64"))]
            #[cold]
            #[inline(never)]
            pub(super) fn $name($($arg: $ty),*) $(-> $ret)? $body
        )*};
    }

    cold_paths! {
        /// [`Nodes::make_room`]; `false` if the tape is full.
        fn make_room(nodes: &mut Nodes) -> bool {
            nodes.make_room().is_ok()
        }

        /// [`Nodes::make_room_for_label`].
        fn make_room_for_label(nodes: &mut Nodes, index: usize) {
            nodes.make_room_for_label(index);
        }
    }
}

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
    /// Tape indices of the operands, `UNTRACKED`-flagged or `NO_PARENT`:
    /// slot 0 in the low half, slot 1 in the high half. One word rather
    /// than a `[u32; 2]`, so that recording stores it at once (two 4-byte
    /// stores were 4% of the MLP bench).
    parents: u64,
    /// Local derivative of the node with respect to each operand slot,
    /// evaluated at record time from the stored primal values.
    pub(crate) derivatives: [f64; 2],
}

impl Edges {
    const LEAF: Self = Self::new([NO_PARENT, NO_PARENT], [0.0, 0.0]);

    /// Edges to the operands `parents` (raw slot entries, as
    /// [`Scalar::parent_slot`] gives them) with local `derivatives`.
    #[inline(always)]
    pub(crate) const fn new(parents: [u32; 2], derivatives: [f64; 2]) -> Self {
        Self {
            parents: parents[0] as u64 | (parents[1] as u64) << 32,
            derivatives,
        }
    }

    /// The raw entry of operand `slot` (0 or 1).
    #[inline(always)]
    pub(crate) fn raw(&self, slot: usize) -> u32 {
        (self.parents >> (32 * slot)) as u32
    }

    /// The raw entries of both operand slots.
    #[inline(always)]
    pub(crate) fn raws(&self) -> [u32; 2] {
        [self.raw(0), self.raw(1)]
    }

    /// The operand in `slot`, as `(tape index, tracked)`.
    pub(crate) fn parent(&self, slot: usize) -> Option<(usize, bool)> {
        let raw = self.raw(slot);
        (raw != NO_PARENT).then_some(((raw & !UNTRACKED) as usize, raw & UNTRACKED == 0))
    }
}

/// What recording writes about a node besides its edges: 16 bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Primal {
    pub(crate) value: f64,
    /// The operation (bits 0–7), the untracked flag (bit 31, where
    /// [`UNTRACKED`] sits in a parent entry, so an operation's flag goes in
    /// unshifted) and the label's source line (bits 32–63) in one word, so
    /// that recording writes a primal in two stores, not four: a tenth of
    /// recording on the MLP bench. (The line sits in what would otherwise be padding, so a
    /// labeled node costs only the text beside it: see `Nodes`.)
    packed: u64,
}

impl Primal {
    /// `untracked` is [`UNTRACKED`] or 0.
    #[inline(always)]
    pub(crate) fn new(value: f64, operation: ScalarOperation, untracked: u32) -> Self {
        Self {
            value,
            packed: operation as u64 | u64::from(untracked),
        }
    }

    pub(crate) fn operation(self) -> ScalarOperation {
        ScalarOperation::from_index((self.packed & 0xff) as u8)
    }

    pub(crate) fn tracked(self) -> bool {
        self.packed & u64::from(UNTRACKED) == 0
    }

    pub(crate) fn line(self) -> u32 {
        (self.packed >> 32) as u32
    }

    pub(crate) fn set_line(&mut self, line: u32) {
        self.packed = (self.packed & 0xffff_ffff) | u64::from(line) << 32;
    }
}

/// Everything about one node, assembled by value for the cold paths (the
/// ledger, errors, `Debug`).
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

/// The nodes, in arrays by use, so that each pass touches only what it
/// reads: recording appends edges and primal (40 bytes); the reverse sweep
/// streams edges (24 bytes); validating and committing stream stored
/// gradients beside the pass adjoints (8 + 8).
///
/// `gradients` and `label_texts` are filled lazily: the first backward pass
/// grows `gradients` to its output, `labeled` grows `label_texts` to its
/// node, and an index past their end reads as a stored gradient of 0 and no
/// label. Recording never touches them. A node with both costs 64 bytes.
///
/// (Value and flags used to have arrays of their own; one 16-byte push
/// instead of two saved about 0.5 ns of the 9 per operation in the MLP
/// bench.)
#[derive(Default)]
pub(crate) struct Nodes {
    pub(crate) edges: Vec<Edges>,
    pub(crate) primals: Vec<Primal>,
    pub(crate) gradients: Vec<f64>,
    pub(crate) label_texts: Vec<&'static str>,
    /// A buffer for the next pass's adjoints: the last pass's, or the
    /// stored gradients' old buffer after a first pass took its place, or a
    /// ledger's replay (it is scratch: never read, only refilled).
    pub(crate) spare_adjoints: Vec<f64>,
    /// The smaller of the capacities of `edges` and `primals`, kept here so
    /// that `push` tests one number it loads. Set only from the two
    /// capacities after they change (they never shrink), so it never
    /// exceeds either.
    room: usize,
    /// How many nodes at the start of the tape are leaves (the parameters
    /// a model records first): the reverse sweep has nothing to propagate
    /// from them and only tests their sums, in a loop of its own.
    leading_leaves: usize,
}

impl Nodes {
    /// The number of recorded nodes.
    pub(crate) fn len(&self) -> usize {
        self.primals.len()
    }

    /// Appends one node and returns its index. Callers have validated value
    /// and derivatives.
    ///
    /// `edges` and `primals` always have the same length (every method
    /// that changes one changes the other alike), so one length and one
    /// room check serve both: two `Vec::push`es would load, test and store
    /// a length each, and on the MLP bench that was a tenth of recording.
    #[inline]
    pub(crate) fn push(
        &mut self,
        edges: Edges,
        value: f64,
        operation: ScalarOperation,
        untracked: u32,
    ) -> Result<u32, ScalarAutodiffError> {
        let index = self.primals.len();
        debug_assert_eq!(index, self.edges.len());
        if index >= self.room && !cold::make_room(self) {
            return Err(ScalarAutodiffError::TapeFull {
                capacity: MAX_NODES,
            });
        }
        // SAFETY: both vectors have length `index` and capacity above it
        // (`room` never exceeds either capacity, and `index < room` was
        // just checked or made by `make_room`), so slot `index` of each is
        // allocated and unused; writing it and then counting it initialises
        // what the new length covers.
        unsafe {
            self.edges.as_mut_ptr().add(index).write(edges);
            self.edges.set_len(index + 1);
            self.primals
                .as_mut_ptr()
                .add(index)
                .write(Primal::new(value, operation, untracked));
            self.primals.set_len(index + 1);
        }
        Ok(index as u32)
    }

    /// Grows both node arrays (amortised doubling), or refuses a node past
    /// [`MAX_NODES`]. Called through [`cold::make_room`].
    fn make_room(&mut self) -> Result<(), ScalarAutodiffError> {
        if self.primals.len() >= MAX_NODES {
            return Err(ScalarAutodiffError::TapeFull {
                capacity: MAX_NODES,
            });
        }
        self.edges.reserve(1);
        self.primals.reserve(1);
        self.measure_room();
        Ok(())
    }

    /// Empties every array but keeps its memory (and the adjoint buffer).
    fn forget_nodes(&mut self) {
        self.leading_leaves = 0;
        self.edges.clear();
        self.primals.clear();
        self.gradients.clear();
        self.label_texts.clear();
    }

    /// A pass's starting adjoints, in the spare buffer: 0 up to the
    /// output, the seed at it.
    fn seeded_adjoints(&mut self, output: usize, seed: f64) -> Vec<f64> {
        let mut adjoints = std::mem::take(&mut self.spare_adjoints);
        adjoints.clear();
        adjoints.resize(output + 1, 0.0);
        adjoints[output] = seed;
        adjoints
    }

    /// Notes that `count` leaves were recorded from index `first` on.
    fn extend_leading_leaves(&mut self, first: usize, count: usize) {
        if first == self.leading_leaves {
            self.leading_leaves += count;
        }
    }

    /// Sets `room` from the two capacities; called after either changes.
    fn measure_room(&mut self) {
        self.room = self.edges.capacity().min(self.primals.capacity());
    }

    /// Grows the lazy label array to hold `index`, reserving room for as
    /// many labels as the tape has room for nodes rather than doubling on
    /// its own: labelling node after node (what the macro does) then costs
    /// 16 bytes a node, not up to 32.
    fn make_room_for_label(&mut self, index: usize) {
        if self.label_texts.len() <= index {
            let room = self.primals.capacity().max(index + 1);
            let additional = room - self.label_texts.len();
            self.label_texts.reserve_exact(additional);
            self.label_texts.resize(index + 1, "");
        }
    }

    /// The stored gradient at `index` (0 past the end of the lazy array).
    #[inline]
    pub(crate) fn gradient(&self, index: usize) -> f64 {
        self.gradients.get(index).copied().unwrap_or(0.0)
    }

    /// The label at `index`, if one was attached.
    pub(crate) fn label(&self, index: usize) -> Option<Label> {
        match self.label_texts.get(index) {
            Some(&text) if !text.is_empty() => Some(Label {
                text,
                line: self.primals[index].line(),
            }),
            _ => None,
        }
    }

    /// Everything about the node at `index`, by value.
    pub(crate) fn info(&self, index: usize) -> Info {
        let primal = self.primals[index];
        let label = self.label(index);
        Info {
            value: primal.value,
            gradient: self.gradient(index),
            label: label.map_or("", |l| l.text),
            line: label.map_or(0, |l| l.line),
            operation: primal.operation(),
            tracked: primal.tracked(),
        }
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
pub struct Tape {
    pub(crate) nodes: NodeCell<Nodes>,
}

/// The most nodes a dropped tape may have room for and still leave its
/// buffers to the next [`Tape::new`] on its thread: 32,768 nodes, at most
/// about 2.6 MB with every array full.
pub const SPARE_NODES: usize = 1 << 15;

thread_local! {
    /// The buffers of the last small tape dropped on this thread, cleared,
    /// for the next `Tape::new` to start from.
    ///
    /// Why: glibc hands the top of the heap back to the system when a large
    /// free block ends up there, so a loop that records ~10⁴ nodes on a new
    /// tape per step paid for fresh pages, zeroed by the kernel, on every
    /// step: 35 ns per operation on the MLP bench instead of 7. Reusing the
    /// last tape's memory makes a new tape cost what [`Tape::clear`] does.
    static SPARE: std::cell::Cell<Nodes> = std::cell::Cell::new(Nodes::default());
}

impl Default for Tape {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Tape {
    /// Leaves a small tape's buffers to the next `Tape::new` on this thread
    /// (see [`SPARE_NODES`]); a larger one's go back to the allocator.
    fn drop(&mut self) {
        let nodes = self.nodes.get_mut();
        if nodes.room == 0 || nodes.room > SPARE_NODES {
            return;
        }
        let mut spare = std::mem::take(nodes);
        spare.forget_nodes();
        // `try_with`: during thread exit the slot may be gone already; the
        // buffers are then simply freed.
        let _ = SPARE.try_with(|slot| {
            let kept = slot.take();
            slot.set(if kept.room > spare.room { kept } else { spare });
        });
    }
}

/// The bytes recording writes for one node: operand edges (24) and value,
/// operation, flag and label line (16).
///
/// Two more arrays are filled lazily: stored gradients (8 bytes a node, up
/// to the output of the first backward pass) and label texts (a
/// `&'static str`, 16 bytes a node, up to the last labeled node). A node
/// with both costs 64 bytes in all. A backward pass computes one adjoint
/// per node (8 bytes): on a tape with no stored gradient yet, that buffer
/// becomes the stored gradients; a later pass needs it beside them, and the
/// tape keeps it for the passes after, as [`Tape::clear`] keeps everything.
pub const BYTES_PER_NODE: usize = std::mem::size_of::<Edges>() + std::mem::size_of::<Primal>();

impl Tape {
    /// An empty tape. On a thread that dropped a tape of at most
    /// [`SPARE_NODES`] nodes before, it starts with that tape's memory, so
    /// a new tape per training step allocates nothing after the first.
    ///
    /// ```
    /// use autodiff_core::Tape;
    ///
    /// let first = Tape::new();
    /// first.variable(1.0)?;
    /// let room = first.capacity();
    /// drop(first);
    /// let second = Tape::new();
    /// assert!(second.is_empty());
    /// assert_eq!(second.capacity(), room, "the first tape's buffers");
    /// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
    /// ```
    pub fn new() -> Self {
        let nodes = SPARE.try_with(|slot| slot.take()).unwrap_or_default();
        Self {
            nodes: NodeCell::new(nodes),
        }
    }

    /// An empty tape with room for `nodes` nodes before it reallocates.
    pub fn with_capacity(nodes: usize) -> Self {
        let mut nodes = Nodes {
            edges: Vec::with_capacity(nodes),
            primals: Vec::with_capacity(nodes),
            ..Nodes::default()
        };
        nodes.measure_room();
        Self {
            nodes: NodeCell::new(nodes),
        }
    }

    /// The number of recorded nodes.
    pub fn len(&self) -> usize {
        self.nodes.borrow().len()
    }

    /// Whether nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many nodes fit before the tape reallocates.
    pub fn capacity(&self) -> usize {
        self.nodes.borrow().room
    }

    /// Forgets every node but keeps the memory, so that a training loop can
    /// record each iteration on the same tape without allocating.
    ///
    /// Taking `&mut self` means no [`Scalar`] of the old graph can outlive this.
    pub fn clear(&mut self) {
        self.nodes.get_mut().forget_nodes();
    }

    /// Records a tracked leaf. `value` must be finite.
    #[inline]
    pub fn variable(&self, value: f64) -> Result<Scalar<'_>, ScalarAutodiffError> {
        self.leaf(value, ScalarOperation::Variable, true)
    }

    /// Records one tracked leaf per value, in order, under one borrow of the
    /// tape: the parameters of a model in one call. Every value must be
    /// finite; if one is not, nothing is recorded and the error names it.
    ///
    /// ```
    /// use autodiff_core::Tape;
    ///
    /// let tape = Tape::new();
    /// let w = tape.variables(&[0.5, -1.0, 2.0])?;
    /// let y = w[0].mul(w[1])?.add(w[2])?;
    /// y.backward()?;
    /// assert_eq!(w[0].gradient(), Some(-1.0));
    /// assert!(tape.variables(&[1.0, f64::NAN]).is_err());
    /// assert_eq!(tape.len(), 5, "the rejected call recorded nothing");
    /// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
    /// ```
    pub fn variables(&self, values: &[f64]) -> Result<Vec<Scalar<'_>>, ScalarAutodiffError> {
        let count = values.len();
        let mut nodes = self.nodes.borrow_mut();
        let first = nodes.len();
        if count > MAX_NODES - first {
            return Err(ScalarAutodiffError::TapeFull {
                capacity: MAX_NODES,
            });
        }
        nodes.edges.reserve(count);
        nodes.primals.reserve(count);
        nodes.measure_room();
        let mut scalars = Vec::with_capacity(count);
        // One pass writes the nodes into the room past the arrays' ends
        // and tests every value; only if all are finite do the lengths move
        // to take them in, so a rejected call records nothing.
        let mut all_finite = true;
        let Nodes { edges, primals, .. } = &mut *nodes;
        let slots = edges.spare_capacity_mut()[..count]
            .iter_mut()
            .zip(&mut primals.spare_capacity_mut()[..count])
            .zip(&mut scalars.spare_capacity_mut()[..count]);
        for (offset, (((edges, primal), scalar), &value)) in slots.zip(values).enumerate() {
            all_finite &= value.is_finite();
            edges.write(Edges::LEAF);
            primal.write(Primal::new(value, ScalarOperation::Variable, 0));
            scalar.write(Scalar::new(self, (first + offset) as u32, value));
        }
        if !all_finite {
            let value = values.iter().copied().find(|v| !v.is_finite());
            return Err(ScalarAutodiffError::NonFiniteLeaf {
                operation: ScalarOperation::Variable,
                value: value.unwrap_or(f64::NAN),
                label: None,
            });
        }
        // SAFETY: the loop initialised the first `count` slots past each
        // array's length (`zip` stops at the shortest, and all four
        // sequences have `count` items).
        unsafe {
            edges.set_len(first + count);
            primals.set_len(first + count);
            scalars.set_len(count);
        }
        nodes.extend_leading_leaves(first, count);
        Ok(scalars)
    }

    /// [`variables`](Self::variables), every leaf labelled `label`: a
    /// parameter recorded under its name. An error carries the label too.
    ///
    /// ```
    /// use autodiff_core::{Label, Tape};
    ///
    /// let tape = Tape::new();
    /// let w = tape.labeled_variables(&[0.5, -1.0], Label::at_line("w", 3))?;
    /// assert_eq!(w[1].label(), Some(Label::at_line("w", 3)));
    /// let error = tape.labeled_variables(&[f64::NAN], Label::named("b")).unwrap_err();
    /// assert_eq!(error.label(), Some(Label::named("b")));
    /// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
    /// ```
    pub fn labeled_variables(
        &self,
        values: &[f64],
        label: Label,
    ) -> Result<Vec<Scalar<'_>>, ScalarAutodiffError> {
        let leaves = self.variables(values).map_err(|error| error.at(label))?;
        if let Some(first) = leaves.first() {
            let first = first.node() as usize;
            let mut nodes = self.nodes.borrow_mut();
            // The leaves were just appended, so no label array reaches them.
            nodes.make_room_for_label(first + leaves.len() - 1);
            nodes.label_texts[first..].fill(label.text);
            for primal in &mut nodes.primals[first..] {
                primal.set_line(label.line);
            }
        }
        Ok(leaves)
    }

    /// Records an untracked leaf: backward passes through it receive nothing.
    /// `value` must be finite.
    #[inline]
    pub fn constant(&self, value: f64) -> Result<Scalar<'_>, ScalarAutodiffError> {
        self.leaf(value, ScalarOperation::Constant, false)
    }

    #[inline]
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
        let untracked = if tracked { 0 } else { UNTRACKED };
        let leaf = self.push(Edges::LEAF, value, operation, untracked)?;
        self.nodes
            .borrow_mut()
            .extend_leading_leaves(leaf.node() as usize, 1);
        Ok(leaf)
    }

    /// Appends one node; `untracked` is [`UNTRACKED`] or 0. Callers have
    /// validated value and derivatives.
    #[inline(always)]
    pub(crate) fn push(
        &self,
        edges: Edges,
        value: f64,
        operation: ScalarOperation,
        untracked: u32,
    ) -> Result<Scalar<'_>, ScalarAutodiffError> {
        let index = self
            .nodes
            .borrow_mut()
            .push(edges, value, operation, untracked)?;
        Ok(Scalar::new(self, index | untracked, value))
    }

    /// Keeps the larger of `adjoints` and the buffer already kept, for the
    /// next backward pass.
    pub(crate) fn recycle_adjoints(&self, adjoints: Vec<f64>) {
        let mut nodes = self.nodes.borrow_mut();
        if adjoints.capacity() > nodes.spare_adjoints.capacity() {
            nodes.spare_adjoints = adjoints;
        }
    }

    /// Sets every stored gradient on the tape to zero.
    pub fn zero_grads(&self) {
        self.nodes.borrow_mut().gradients.fill(0.0);
    }

    pub(crate) fn info(&self, index: u32) -> Info {
        self.nodes.borrow().info(index as usize)
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
    /// A copy of the node's value, which never changes once recorded (and
    /// no handle outlives a `clear`): operations read it here instead of
    /// borrowing the tape.
    pub(crate) value: f64,
    /// The node's index, `UNTRACKED`-flagged when it tracks no gradient:
    /// exactly the parent-slot entry an operation on it records, with no
    /// lookup or branch. A whole word, so that the handle is three words
    /// with no padding for the compiler to split its copies around.
    pub(crate) slot: u64,
}

impl<'t> Scalar<'t> {
    /// The handle of node `slot & !UNTRACKED`, untracked if `slot` has the
    /// [`UNTRACKED`] bit.
    #[inline(always)]
    pub(crate) fn new(tape: &'t Tape, slot: u32, value: f64) -> Self {
        Self {
            tape,
            value,
            slot: u64::from(slot),
        }
    }

    /// The node's tape index.
    #[inline]
    pub(crate) fn node(self) -> u32 {
        self.slot as u32 & !UNTRACKED
    }

    /// The parent-slot entry an edge to this node records.
    #[inline]
    pub(crate) fn parent_slot(self) -> u32 {
        self.slot as u32
    }

    /// The tape this scalar lives on.
    pub fn tape(self) -> &'t Tape {
        self.tape
    }

    /// The node's position in creation order.
    pub fn index(self) -> usize {
        self.node() as usize
    }

    /// The primal value.
    #[inline]
    pub fn value(self) -> f64 {
        self.value
    }

    /// The operation that produced the node.
    pub fn operation(self) -> ScalarOperation {
        self.tape.nodes.borrow().primals[self.node() as usize].operation()
    }

    /// Whether backward passes accumulate a gradient here.
    #[inline]
    pub fn tracks_gradient(self) -> bool {
        self.slot as u32 & UNTRACKED == 0
    }

    /// The stored gradient, accumulated over completed backward passes;
    /// `None` for constants, detached values and operations on them only.
    #[inline]
    pub fn gradient(self) -> Option<f64> {
        let gradient = self.tape.nodes.borrow().gradient(self.node() as usize);
        self.tracks_gradient().then_some(gradient)
    }

    /// The node's label, if one was attached.
    pub fn label(self) -> Option<Label> {
        self.tape.nodes.borrow().label(self.node() as usize)
    }

    /// Attaches `label` to this node (replacing any earlier one) and returns
    /// the same handle. Labels show in errors and in the ledger.
    #[inline]
    pub fn labeled(self, label: Label) -> Self {
        let mut nodes = self.tape.nodes.borrow_mut();
        let index = self.node() as usize;
        let texts = &nodes.label_texts;
        if texts.len() == index && index < texts.capacity() {
            // The usual case under `#[differentiable]`: the node just
            // recorded, every earlier one labelled, and room reserved.
            nodes.label_texts.push(label.text);
        } else {
            // The label is not passed along: its address taken, it would
            // live in memory on the hot path too, and reading its text
            // back as one 16-byte load from two 8-byte stores stalled
            // store forwarding (a quarter of an annotated MLP).
            cold::make_room_for_label(&mut nodes, index);
            nodes.label_texts[index] = label.text;
        }
        nodes.primals[index].set_line(label.line);
        self
    }

    /// Whether two handles refer to the same node of the same tape.
    pub fn is_same_node(self, other: Scalar<'_>) -> bool {
        std::ptr::eq(self.tape, other.tape) && self.node() == other.node()
    }

    /// A new untracked leaf with the same value and no edge to `self`:
    /// gradients stop here.
    #[inline]
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
        let output = self.node() as usize;
        let mut nodes = self.tape.nodes.borrow_mut();
        let out = nodes.primals[output];
        if !out.tracked() {
            return Err(ScalarAutodiffError::UntrackedOutput {
                operation: out.operation(),
                label: nodes.label(output),
            });
        }
        if !seed.is_finite() {
            return Err(ScalarAutodiffError::NonFiniteSeed { seed });
        }

        let mut adjoints = nodes.seeded_adjoints(output, seed);

        // One test stands for all of chapter 14's checks. Adjoints start
        // finite, and once a sum is infinite or NaN no later addition makes
        // it finite again; so a non-finite contribution or pass adjoint
        // anywhere leaves a non-finite adjoint at the end, and (stored
        // gradients being finite) a non-finite prospective sum. Only then is
        // the pass replayed with every check, to name the first failure.
        let all_finite = sweep(
            &nodes.edges[..=output],
            &nodes.gradients,
            nodes.leading_leaves,
            &mut adjoints,
        );
        if !all_finite {
            let error = first_sweep_failure(&nodes, output, seed).unwrap_or_else(|| {
                // The checked sweep computes the same adjoints, and it found
                // nothing: the failure is a prospective stored sum.
                let node = (0..=output)
                    .find(|&node| !(nodes.gradient(node) + adjoints[node]).is_finite())
                    .unwrap_or(output);
                ScalarAutodiffError::NonFiniteAccumulatedGradient {
                    node,
                    stored: nodes.gradient(node),
                    pass_adjoint: adjoints[node],
                    label: nodes.label(node),
                }
            });
            nodes.spare_adjoints = adjoints;
            return Err(error);
        }

        if nodes.gradients.is_empty() {
            // No stored gradient yet (a new or cleared tape): every stored
            // gradient is the +0 it would be added to, so the pass adjoints
            // are the new stored gradients as they stand: `0 + a == a` bit
            // for bit, as no adjoint is −0 (see `sweep`) but the output's,
            // which is the seed and gets its `0 +` here. The buffers trade
            // places instead of one being copied into the other.
            adjoints[output] = 0.0 + seed;
            let spare = std::mem::replace(&mut nodes.gradients, adjoints);
            nodes.spare_adjoints = spare;
            drop(nodes);
            return Ok(BackwardPass::new(self.tape, output, seed));
        }

        // Adding everywhere is exact: nodes the output does not reach, and
        // untracked ones, have adjoint 0, and `g + 0 == g` bit for bit for
        // every stored `g` but −0, which a stored gradient never is (it
        // starts at +0, only ever has adjoints added or is reset to +0, and
        // a sum is −0 only when both terms are). So they keep their stored
        // gradient bit for bit, and the loop needs no branch. Slots past
        // the end of the lazy array held 0: they are appended as `0 + a`
        // rather than zero-filled first, one pass over fresh memory less.
        let stored = nodes.gradients.len().min(output + 1);
        for (gradient, &adjoint) in nodes.gradients[..stored].iter_mut().zip(&adjoints) {
            *gradient += adjoint;
        }
        nodes
            .gradients
            .extend(adjoints[stored..].iter().map(|&adjoint| 0.0 + adjoint));
        nodes.spare_adjoints = adjoints;
        drop(nodes);
        Ok(BackwardPass::new(self.tape, output, seed))
    }

    /// Sets the stored gradient of every tracked node this output reaches to
    /// zero. Values, graph and other nodes are unchanged.
    pub fn zero_grad(self) {
        let output = self.node() as usize;
        let mut nodes = self.tape.nodes.borrow_mut();
        if !nodes.primals[output].tracked() {
            return;
        }
        let mut reached = vec![false; output + 1];
        reached[output] = true;
        for node in (0..=output).rev() {
            if !reached[node] {
                continue;
            }
            // A slot past the end already reads as 0.
            if let Some(gradient) = nodes.gradients.get_mut(node) {
                *gradient = 0.0;
            }
            for raw in nodes.edges[node].raws() {
                if raw & UNTRACKED == 0 {
                    reached[raw as usize] = true;
                }
            }
        }
    }
}

impl Tape {
    /// The pass adjoints of a pass from `output` seeded with `seed`, on a
    /// buffer of its own: what [`BackwardPass`] replays for its ledger. The
    /// caller ran this pass successfully already, so every adjoint is finite.
    pub(crate) fn pass_adjoints(&self, output: usize, seed: f64) -> Vec<f64> {
        let mut adjoints = self.nodes.borrow_mut().seeded_adjoints(output, seed);
        let nodes = self.nodes.borrow();
        sweep(
            &nodes.edges[..=output],
            &[],
            nodes.leading_leaves,
            &mut adjoints,
        );
        adjoints
    }
}

/// The reverse sweep: each node, from the output down, sends
/// `adjoint × local derivative` to each tracked operand. Returns whether
/// every prospective stored sum `gradient + adjoint` is finite, tested as
/// each node's adjoint becomes final (when the sweep reaches it): the loop
/// waits on each stored adjoint anyway, so the test costs less here than in
/// a pass of its own.
///
/// Nodes the output does not reach need no reached-flag array: their
/// adjoint is 0, so their contributions are ±0, and adding ±0 to an adjoint
/// changes no bit (adjoints start at +0, and a sum is −0 only when both
/// terms are). Visiting them gives, bit for bit, the result of visiting
/// reached nodes only.
///
/// Measured on the MLP bench: skipping adjoint-0 nodes made the pass 15%
/// slower (a branch on a value just stored), and sending untracked edges to
/// a sink slot instead of branching on the flag, 50% slower (the sink's
/// chain of dependent additions).
#[inline]
fn sweep(edges: &[Edges], gradients: &[f64], leading_leaves: usize, adjoints: &mut [f64]) -> bool {
    let len = edges.len();
    // Nodes past the end of the lazy gradient array have stored gradient 0.
    let stored = gradients.len().min(len);
    let leaves = leading_leaves.min(len);
    let adjoints = &mut adjoints[..len];
    let mut all_finite = true;
    // Plain index loops: the `enumerate().rev()` form divided a byte
    // offset by 24 for every node, an eighth of the pass.
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
    // loops the compiler can vectorise (a third of the MLP bench's nodes).
    let (with_stored, without) = adjoints[..leaves].split_at(stored.min(leaves));
    all_finite &= without.iter().fold(true, |ok, a| ok & a.is_finite());
    all_finite &= with_stored
        .iter()
        .zip(gradients)
        .fold(true, |ok, (a, g)| ok & (g + a).is_finite());
    all_finite
}

/// One node's step of the sweep: `upstream × local derivative` to each
/// tracked operand.
#[inline(always)]
fn propagate(node: &Edges, upstream: f64, adjoints: &mut [f64]) {
    for slot in 0..2 {
        let raw = node.raw(slot);
        if raw & UNTRACKED == 0 {
            adjoints[raw as usize] += upstream * node.derivatives[slot];
        }
    }
}

/// The cold path of a pass whose result was not finite: the same sweep
/// with chapter 14's checks in chapter 14's order (each contribution, then
/// the pass adjoint it makes), returning the first that fails.
#[cold]
fn first_sweep_failure(nodes: &Nodes, output: usize, seed: f64) -> Option<ScalarAutodiffError> {
    let mut adjoints = vec![0.0_f64; output + 1];
    adjoints[output] = seed;
    for child in (0..=output).rev() {
        let upstream = adjoints[child];
        if upstream == 0.0 {
            continue;
        }
        let node = &nodes.edges[child];
        for operand in 0..2 {
            let raw = node.raw(operand);
            if raw & UNTRACKED != 0 {
                continue; // no operand, or an untracked one
            }
            let parent = raw as usize;
            let local_derivative = node.derivatives[operand];
            let contribution = upstream * local_derivative;
            if !contribution.is_finite() {
                return Some(ScalarAutodiffError::NonFiniteContribution {
                    child,
                    parent,
                    operand,
                    upstream,
                    local_derivative,
                    label: nodes.label(child),
                });
            }
            let previous = adjoints[parent];
            let next = previous + contribution;
            if !next.is_finite() {
                return Some(ScalarAutodiffError::NonFinitePassAdjoint {
                    node: parent,
                    previous,
                    contribution,
                    label: nodes.label(parent),
                });
            }
            adjoints[parent] = next;
        }
    }
    None
}

impl fmt::Debug for Scalar<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.tape.info(self.node());
        let mut debug = formatter.debug_struct("Scalar");
        debug
            .field("index", &self.node())
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
