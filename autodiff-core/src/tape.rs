//! The [`Tape`] and its [`Scalar`] handles: what a user records and reads.
//!
//! Nodes live in creation order (see [`nodes`](crate::nodes) for how they
//! are stored), so a reverse pass is one backward loop over indices:
//! [`replay`](crate::replay) is that loop as the textbook writes it, and
//! [`sweep`](crate::sweep) the same loop as `backward` runs it. Dropping the
//! tape frees every node at once, or leaves the memory to the next tape on
//! its thread ([`spare`](crate::spare)).
//!
//! Every access to the nodes goes through the tape's [`NodeCell`], whose
//! accessors are `unsafe`: each `// SAFETY:` comment below says why no
//! other guard can be alive, which is always the same argument: the guard
//! lives inside one method here that calls no user code and no other
//! method that borrows.

use std::fmt;
use std::ops::ControlFlow;

use crate::cell::NodeCell;
use crate::error::{Label, Operands, ScalarAutodiffError};
use crate::iteration::{InLoop, Iterations, Probe};
use crate::ledger::BackwardPass;
pub(crate) use crate::nodes::{Edges, NO_PARENT, PLAIN_LEFT, UNTRACKED};
use crate::nodes::{Info, Nodes};
use crate::operation::ScalarOperation;
use crate::replay::replay;
use crate::spare;
use crate::sweep::sweep;

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
    nodes: NodeCell<Nodes>,
}

impl Default for Tape {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Tape {
    /// Leaves a small tape's buffers to the next `Tape::new` on this thread
    /// (see [`SPARE_NODES`](crate::SPARE_NODES)); a larger one's go back to
    /// the allocator.
    fn drop(&mut self) {
        spare::offer(self.nodes.get_mut());
    }
}

impl Tape {
    /// An empty tape. On a thread that dropped a tape of at most
    /// [`SPARE_NODES`](crate::SPARE_NODES) nodes before, it starts with that
    /// tape's memory, so a new tape per training step allocates nothing
    /// after the first.
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
        Self {
            nodes: NodeCell::new(spare::take()),
        }
    }

    /// An empty tape with room for `nodes` nodes before it reallocates.
    pub fn with_capacity(nodes: usize) -> Self {
        Self {
            nodes: NodeCell::new(Nodes::with_capacity(nodes)),
        }
    }

    /// Shared access to the nodes, for one step that calls no user code.
    ///
    /// # Safety
    ///
    /// As [`NodeCell::borrow`]: no [`write`](Self::write) guard of this tape
    /// is alive, and none is made while the returned guard lives.
    #[inline(always)]
    pub(crate) unsafe fn read(&self) -> crate::cell::Shared<'_, Nodes> {
        // SAFETY: the caller's contract is this one's.
        unsafe { self.nodes.borrow() }
    }

    /// Exclusive access to the nodes, for one step that calls no user code.
    ///
    /// # Safety
    ///
    /// As [`NodeCell::borrow_mut`]: no other guard of this tape is alive, and
    /// none is made while the returned guard lives.
    #[inline(always)]
    pub(crate) unsafe fn write(&self) -> crate::cell::Exclusive<'_, Nodes> {
        // SAFETY: the caller's contract is this one's.
        unsafe { self.nodes.borrow_mut() }
    }

    /// The number of recorded nodes.
    pub fn len(&self) -> usize {
        // SAFETY: the guard lives for this expression, which calls only
        // `Nodes::len`.
        unsafe { self.read() }.len()
    }

    /// Whether nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many nodes fit before the tape reallocates.
    pub fn capacity(&self) -> usize {
        // SAFETY: the guard lives for this expression, which calls only
        // `Nodes::room`.
        unsafe { self.read() }.room()
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
        // SAFETY: the guard lives for this statement, which runs
        // `Nodes::push_variables` and `Scalar::new`, neither of which
        // borrows the tape.
        unsafe { self.write() }
            .push_variables(values, |index, value| Scalar::new(self, index, value))
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
            // SAFETY: the guard lives for this statement, which calls only
            // `Nodes::set_label_from`.
            unsafe { self.write() }.set_label_from(first.index(), label);
        }
        Ok(leaves)
    }

    /// Records an untracked leaf: backward passes through it receive nothing.
    /// `value` must be finite.
    #[inline]
    pub fn constant(&self, value: f64) -> Result<Scalar<'_>, ScalarAutodiffError> {
        self.leaf(value, ScalarOperation::Constant, false)
    }

    // The sticky path of `#[differentiable]`'s generated code, not part of
    // the public API (hence `#[doc(hidden)]`). The recording twin's
    // operations return a value, never a `Result`, so that they compose
    // inside closures: the first error is kept here with `fail`, the failed
    // operation's result is `failed_constant` (an untracked constant holding
    // the plain twin's value, so control flow stays the plain twin's), and
    // `f_tape` checks `take_failure` once when it returns, `truncate`s what
    // it recorded and returns the error. `lifted_constant` lifts a plain
    // value that may be non-finite; `Scalar::fused` gives `mul_add` its
    // fused value.

    /// Begins a loop named `name` (its variable, or `while`): call
    /// [`InLoop::iteration`] at the top of each iteration; the loop ends
    /// when the guard is dropped. Nodes recorded meanwhile are in that
    /// iteration, and an error's label names it (`i = 3`) with the
    /// iterations of the loops around it. `#[differentiable]` does this for
    /// every loop of its recording: one 16-byte mark an iteration.
    ///
    /// ```
    /// use autodiff_core::Tape;
    ///
    /// let tape = Tape::new();
    /// let x = tape.variable(0.0)?;
    /// let mut y = x;
    /// let mut lap = tape.enter_loop("i");
    /// for i in 0..3 {
    ///     lap.iteration(Some(i));
    ///     y = y.add(1.0)?;
    ///     assert_eq!(tape.iterations().to_string(), format!("i = {i}"));
    /// }
    /// drop(lap);
    /// assert!(tape.iterations().is_empty());
    /// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
    /// ```
    #[inline]
    pub fn enter_loop(&self, name: &'static str) -> InLoop<'_> {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::enter_loop`.
        let index = unsafe { self.write() }.enter_loop(name);
        InLoop::new(self, index)
    }

    /// Loop `index` begins an iteration ([`InLoop::iteration`]).
    #[inline]
    pub(crate) fn iterate(&self, index: u32, value: Option<i64>, count: i64) {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::iterate`.
        unsafe { self.write() }.iterate(index, value, count);
    }

    /// Loop `index` ends ([`InLoop`]'s drop).
    #[inline]
    pub(crate) fn exit_loop(&self, index: u32) {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::exit_loop`.
        unsafe { self.write() }.exit_loop(index);
    }

    /// The loop iterations entered now, outermost first.
    pub fn iterations(&self) -> Iterations {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::iterations`.
        unsafe { self.read() }.iterations()
    }

    /// Turns probing on or off: while on, generated code logs which node
    /// each binding of the user's function holds ([`Probe`]), for
    /// `#[backward(f)]`'s exact adjoints. [`clear`](Self::clear) empties
    /// the log and keeps the setting.
    #[doc(hidden)]
    pub fn set_probing(&self, on: bool) {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::set_probing`.
        unsafe { self.write() }.set_probing(on);
    }

    /// Whether probing is on.
    #[doc(hidden)]
    #[inline]
    pub fn probing(&self) -> bool {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::probing`.
        unsafe { self.read() }.probing()
    }

    /// Logs that binding `name`'s element `path` holds `value`'s node;
    /// `reassigned` when a plain `=` to the binding put it there.
    #[doc(hidden)]
    #[cold]
    pub fn probe(&self, name: &'static str, path: &[usize], value: Scalar<'_>, reassigned: bool) {
        if std::ptr::eq(value.tape, self) {
            // SAFETY: the guard lives for this statement, which calls only
            // `Nodes::probe`.
            unsafe { self.write() }.probe(name, path, value.index(), reassigned);
        }
    }

    /// Takes the probe log, leaving it empty.
    #[doc(hidden)]
    pub fn take_probes(&self) -> Vec<Probe> {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::take_probes`.
        unsafe { self.write() }.take_probes()
    }

    /// The stored gradient of node `index`, `None` for an untracked node
    /// or an index past the end.
    #[doc(hidden)]
    pub fn gradient_at(&self, index: usize) -> Option<f64> {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes` reads.
        let nodes = unsafe { self.read() };
        (index < nodes.len() && nodes.tracked(index)).then(|| nodes.gradient(index))
    }

    /// Keeps `error` as the recording's failure, unless one is kept already
    /// (the first error is the one to report).
    #[doc(hidden)]
    #[cold]
    #[inline(never)]
    pub fn fail(&self, error: ScalarAutodiffError) {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::fail`.
        unsafe { self.write() }.fail(error);
    }

    /// Whether a failure is kept.
    #[doc(hidden)]
    #[inline]
    pub fn failed(&self) -> bool {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::failed`.
        unsafe { self.read() }.failed()
    }

    /// Takes the kept failure, leaving none.
    #[doc(hidden)]
    #[inline]
    pub fn take_failure(&self) -> Option<ScalarAutodiffError> {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::take_failure`.
        unsafe { self.write() }.take_failure()
    }

    /// Lets this tape record an infinite result whose local derivatives
    /// are all finite (`s + f64::NEG_INFINITY`, then `exp` of it, which is
    /// 0 with derivative 0); returns the previous setting. A NaN result or
    /// plain operand, and an infinite result with an infinite or NaN local
    /// derivative (`ln(0)`, `1/0`, `exp(1000)`), stay errors. Generated
    /// code turns it on for the length of one `f_tape`, which reports an
    /// infinite output as an error; the public operations on a tape that
    /// never turned it on keep chapter 14's rule (every recorded value
    /// finite).
    #[doc(hidden)]
    #[inline]
    pub fn allow_infinite_results(&self, allow: bool) -> bool {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::set_infinite_results`.
        unsafe { self.write() }.set_infinite_results(allow)
    }

    /// Whether [`allow_infinite_results`](Self::allow_infinite_results) is on.
    #[cold]
    #[inline(never)]
    pub(crate) fn allows_infinite_results(&self) -> bool {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::infinite_results`.
        unsafe { self.read() }.infinite_results()
    }

    /// Puts back a failure taken by an enclosing recording.
    #[doc(hidden)]
    #[inline]
    pub fn restore_failure(&self, failure: Option<ScalarAutodiffError>) {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::set_failure`.
        unsafe { self.write() }.set_failure(failure);
    }

    /// The result of a failed operation: an untracked constant holding
    /// `value`. Infallible: on a full tape it is a handle to node 0 with
    /// that value (the recording has failed and will be rolled back, so no
    /// pass reads it).
    #[doc(hidden)]
    #[cold]
    #[inline(never)]
    pub fn failed_constant(&self, value: f64) -> Scalar<'_> {
        match self.lifted_constant(value) {
            Ok(constant) => constant,
            Err(_) => Scalar::new(self, UNTRACKED, value),
        }
    }

    /// Drops every node from index `len` on (those a failed recording
    /// made), with their labels and stored gradients.
    #[doc(hidden)]
    pub fn truncate(&self, len: usize) {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::truncate`.
        unsafe { self.write() }.truncate(len);
    }

    /// An untracked constant that may be NaN or infinite, for the code
    /// `#[differentiable]` generates: a plain twin's running maximum that
    /// starts at `f64::NEG_INFINITY` is lifted as it is, and only a recorded
    /// result (or the function's output) that is not finite is an error.
    /// Not part of the public API: [`constant`](Self::constant) rejects
    /// what this accepts.
    #[doc(hidden)]
    #[inline]
    pub fn lifted_constant(&self, value: f64) -> Result<Scalar<'_>, ScalarAutodiffError> {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::push_leaf`.
        let index =
            unsafe { self.write() }.push_leaf(value, ScalarOperation::Constant, UNTRACKED)?;
        Ok(Scalar::new(self, index | UNTRACKED, value))
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
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::push_leaf`.
        let index = unsafe { self.write() }.push_leaf(value, operation, untracked)?;
        Ok(Scalar::new(self, index | untracked, value))
    }

    /// Appends one node; `untracked` is [`UNTRACKED`] or 0, `plain_left`
    /// is `PLAIN_LEFT` or 0 (see `Nodes::push`). Callers have validated
    /// value and derivatives.
    #[inline(always)]
    pub(crate) fn push(
        &self,
        edges: Edges,
        value: f64,
        operation: ScalarOperation,
        untracked: u32,
        plain_left: u32,
    ) -> Result<Scalar<'_>, ScalarAutodiffError> {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::push`.
        let index =
            unsafe { self.write() }.push(edges, value, operation, untracked | plain_left)?;
        Ok(Scalar::new(self, index | untracked, value))
    }

    /// Keeps the larger of `adjoints` and the buffer already kept, for the
    /// next backward pass.
    pub(crate) fn recycle_adjoints(&self, adjoints: Vec<f64>) {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::keep_adjoints`.
        unsafe { self.write() }.keep_adjoints(adjoints);
    }

    /// Sets every stored gradient on the tape to zero.
    pub fn zero_grads(&self) {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::zero_gradients`.
        unsafe { self.write() }.zero_gradients();
    }

    pub(crate) fn info(&self, index: u32) -> Info {
        // SAFETY: the guard lives for this expression, which calls only
        // `Nodes::info`.
        unsafe { self.read() }.info(index as usize)
    }

    /// The pass adjoints of a pass from `output` seeded with `seed`,
    /// replayed by the textbook loop on a buffer of its own: what
    /// [`BackwardPass`] shows in its ledger. The caller ran this pass
    /// successfully already, so every adjoint is finite.
    pub(crate) fn pass_adjoints(&self, output: usize, seed: f64) -> Vec<f64> {
        // SAFETY: the guard lives for this function, which calls only
        // `Nodes` methods and `replay` with a visitor that does nothing.
        let mut nodes = unsafe { self.write() };
        let mut adjoints = nodes.seeded_adjoints(output, seed);
        let _: ControlFlow<()> = replay(&nodes.edges()[..=output], &mut adjoints, |_| {
            ControlFlow::Continue(())
        });
        adjoints
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
    /// The operand entry an edge to this node records: the node's index,
    /// [`UNTRACKED`]-flagged when it tracks no gradient, so that an
    /// operation on it needs no lookup or branch. A whole word, so that the
    /// handle is three words with no padding for the compiler to split its
    /// copies around.
    entry: u64,
}

impl<'t> Scalar<'t> {
    /// The handle of node `entry & !UNTRACKED`, untracked if `entry` has
    /// the [`UNTRACKED`] bit.
    #[inline(always)]
    pub(crate) fn new(tape: &'t Tape, entry: u32, value: f64) -> Self {
        Self {
            tape,
            value,
            entry: u64::from(entry),
        }
    }

    /// The node's tape index.
    #[inline]
    pub(crate) fn node(self) -> u32 {
        self.entry as u32 & !UNTRACKED
    }

    /// The entry an operand slot records for an edge to this node.
    #[inline]
    pub(crate) fn parent_slot(self) -> u32 {
        self.entry as u32
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
        // SAFETY: the guard lives for this expression, which calls only
        // `Nodes::operation`.
        unsafe { self.tape.read() }.operation(self.index())
    }

    /// The values of the operands the node was made from, a plain one in
    /// its slot ([`Operands::NONE`] for a leaf): `x.rsub(1.0)` at `x = 2`
    /// has operands 1.0 and 2.0.
    ///
    /// ```
    /// let tape = autodiff_core::Tape::new();
    /// let x = tape.variable(2.0)?;
    /// assert_eq!(x.rsub(1.0)?.operands().values(), &[1.0, 2.0]);
    /// assert_eq!(x.exp()?.operands().values(), &[2.0]);
    /// assert_eq!(x.operands().values(), &[] as &[f64]);
    /// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
    /// ```
    pub fn operands(self) -> Operands {
        // SAFETY: the guard lives for this expression, which calls only
        // `Nodes::operands`.
        unsafe { self.tape.read() }.operands(self.index())
    }

    /// Whether backward passes accumulate a gradient here.
    #[inline]
    pub fn tracks_gradient(self) -> bool {
        self.entry as u32 & UNTRACKED == 0
    }

    /// The stored gradient, accumulated over completed backward passes;
    /// `None` for constants, detached values and operations on them only.
    #[inline]
    pub fn gradient(self) -> Option<f64> {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::gradient`.
        let gradient = unsafe { self.tape.read() }.gradient(self.index());
        self.tracks_gradient().then_some(gradient)
    }

    /// The node's label, if one was attached.
    pub fn label(self) -> Option<Label> {
        // SAFETY: the guard lives for this expression, which calls only
        // `Nodes::label`.
        unsafe { self.tape.read() }.label(self.index())
    }

    /// Attaches `label` to this node (replacing any earlier one) and returns
    /// the same handle. Labels show in errors and in the ledger.
    #[inline(always)]
    pub fn labeled(self, label: Label) -> Self {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::set_label`.
        unsafe { self.tape.write() }.set_label(self.index(), label);
        self
    }

    /// For the code `#[differentiable]` generates for `a.mul_add(b, c)`:
    /// the `add` node just recorded for `(a * b) + c` takes the fused value
    /// `value`, so the recording twin's value is the plain twin's bit for
    /// bit. Only for a node whose local derivatives do not depend on its own
    /// value (an `add`: 1 and 1). Not part of the public API.
    #[doc(hidden)]
    #[inline]
    pub fn fused(self, value: f64) -> Self {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::set_value`.
        unsafe { self.tape.write() }.set_value(self.index(), value);
        Self { value, ..self }
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
        let output = self.index();
        // SAFETY: the guard lives for this function and is dropped before
        // the ledger is made; meanwhile only `Nodes` methods, `sweep` and
        // `first_failure` run, none of which borrows the tape.
        let mut nodes = unsafe { self.tape.write() };
        if !nodes.tracked(output) {
            return Err(ScalarAutodiffError::UntrackedOutput {
                operation: nodes.operation(output),
                label: nodes.label(output),
            });
        }
        if !seed.is_finite() {
            return Err(ScalarAutodiffError::NonFiniteSeed { seed });
        }

        let mut adjoints = nodes.seeded_adjoints(output, seed);
        let all_finite = sweep(
            &nodes.edges()[..=output],
            nodes.gradients(),
            nodes.leading_leaves(),
            &mut adjoints,
        );
        if !all_finite {
            // Only a failed pass is replayed with every check, to name the
            // first failure in chapter 14's order.
            let error = first_failure(&nodes, output, seed).unwrap_or_else(|| {
                // The replay computes the same adjoints, and it found
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
            nodes.keep_adjoints(adjoints);
            return Err(error);
        }
        nodes.commit(adjoints, output, seed);
        drop(nodes);
        Ok(BackwardPass::new(self.tape, output, seed))
    }

    /// Sets the stored gradient of every tracked node this output reaches to
    /// zero. Values, graph and other nodes are unchanged.
    pub fn zero_grad(self) {
        // SAFETY: the guard lives for this statement, which calls only
        // `Nodes::zero_reached`.
        unsafe { self.tape.write() }.zero_reached(self.index());
    }
}

/// The cold path of a pass whose result was not finite: the
/// [`replay`](crate::replay) with chapter 14's checks in chapter 14's order
/// (each contribution, then the pass adjoint it makes), returning the first
/// that fails.
#[cold]
fn first_failure(nodes: &Nodes, output: usize, seed: f64) -> Option<ScalarAutodiffError> {
    let mut adjoints = vec![0.0_f64; output + 1];
    adjoints[output] = seed;
    let checked = replay(&nodes.edges()[..=output], &mut adjoints, |step| {
        if !step.parent_tracked {
            return ControlFlow::Continue(());
        }
        if !step.contribution.is_finite() {
            return ControlFlow::Break(ScalarAutodiffError::NonFiniteContribution {
                child: step.child,
                parent: step.parent,
                operand: step.operand,
                upstream: step.upstream,
                local_derivative: step.local_derivative,
                label: nodes.label(step.child),
            });
        }
        if !step.after.is_finite() {
            return ControlFlow::Break(ScalarAutodiffError::NonFinitePassAdjoint {
                node: step.parent,
                previous: step.before,
                contribution: step.contribution,
                local_derivative: step.local_derivative,
                consumer_label: nodes.label(step.child),
                label: nodes.label(step.parent),
            });
        }
        ControlFlow::Continue(())
    });
    match checked {
        ControlFlow::Break(error) => Some(error),
        ControlFlow::Continue(()) => None,
    }
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
