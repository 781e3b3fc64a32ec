//! Node storage: what a tape holds for each node, in arrays by use.
//!
//! Every field is private to this module, and so is every write to the
//! arrays, because one invariant lets [`Nodes::push`] write a node with no
//! bounds check: **`room` never exceeds the capacity of `edges` or of
//! `values`, and those two arrays always have the same length.** Every
//! method here that changes a capacity or a length keeps it; nothing
//! outside can change either.

use crate::cold;
use crate::error::{Label, Operands, ScalarAutodiffError};
use crate::iteration::{Iterations, Loops, Probe};
use crate::operation::ScalarOperation;

/// Operand-entry marker: no operand in this slot.
pub(crate) const NO_PARENT: u32 = u32::MAX;
/// Operand-entry marker bit: the operand tracks no gradient, so the reverse
/// pass skips the edge without looking the parent up.
pub(crate) const UNTRACKED: u32 = 1 << 31;
/// Node flag (in [`NodeValue`]'s packed word, beside the operation): the
/// node's plain operand, kept in slot 1's unused derivative (see
/// [`Edges::plain`]), is the operation's *left* operand (`1.0 - x`,
/// `2.0 / x`), not its right one (`x * 2.0`).
pub(crate) const PLAIN_LEFT: u32 = 1 << 8;
/// The most nodes one tape can index (the high bit of an index is a flag).
pub const MAX_NODES: usize = (UNTRACKED - 1) as usize;

/// The bytes recording writes for one node: operand edges (24) and value,
/// operation, flag and label line (16).
///
/// Two more arrays are filled lazily: stored gradients (8 bytes a node, up
/// to the output of the first backward pass) and label texts (a
/// `&'static str`, 16 bytes a node, up to the last labeled node). A node
/// with both costs 64 bytes in all. A backward pass computes one adjoint
/// per node (8 bytes): on a tape with no stored gradient yet, that buffer
/// becomes the stored gradients; a later pass needs it beside them, and the
/// tape keeps it for the passes after, as [`Tape::clear`](crate::Tape::clear)
/// keeps everything.
pub const BYTES_PER_NODE: usize = std::mem::size_of::<Edges>() + std::mem::size_of::<NodeValue>();

/// What the reverse pass reads for every node: its operand edges.
///
/// A node has two operand *slots* (0 and 1); each holds an *entry*: the
/// operand's tape index, flagged [`UNTRACKED`], or [`NO_PARENT`]. Kept apart
/// from values, labels and stored gradients so that the backward loop
/// streams through 24 bytes per node.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edges {
    /// The entries of both slots: slot 0 in the low half, slot 1 in the
    /// high half, one word so that recording stores it at once.
    entries: u64,
    /// Local derivative of the node with respect to the operand in each
    /// slot, evaluated at record time from the operands' values. A slot
    /// with no operand holds what second-order passes need to rerun the
    /// node's rule: a plain operand (`2.0` of `x * 2.0`), `powi`'s
    /// exponent, or 0; no reverse pass reads it.
    pub(crate) derivatives: [f64; 2],
}

impl Edges {
    pub(crate) const LEAF: Self = Self::new([NO_PARENT, NO_PARENT], [0.0, 0.0]);

    /// Edges to the operands `entries` (as `Scalar::parent_slot` gives
    /// them) with local `derivatives`.
    #[inline(always)]
    pub(crate) const fn new(entries: [u32; 2], derivatives: [f64; 2]) -> Self {
        Self {
            entries: entries[0] as u64 | (entries[1] as u64) << 32,
            derivatives,
        }
    }

    /// The entry of operand `slot` (0 or 1).
    #[inline(always)]
    pub(crate) fn entry(&self, slot: usize) -> u32 {
        (self.entries >> (32 * slot)) as u32
    }

    /// What an operation with one recorded operand keeps in slot 1 (the
    /// plain operand or `powi`'s exponent), when slot 1 has no operand.
    #[inline]
    pub(crate) fn plain(&self) -> Option<f64> {
        (self.entry(1) == NO_PARENT).then_some(self.derivatives[1])
    }

    /// The operand in `slot`, as `(tape index, tracked)`.
    #[inline(always)]
    pub(crate) fn parent(&self, slot: usize) -> Option<(usize, bool)> {
        let entry = self.entry(slot);
        (entry != NO_PARENT).then_some(((entry & !UNTRACKED) as usize, entry & UNTRACKED == 0))
    }
}

/// What recording writes about a node besides its edges, in 16 bytes: its
/// value and how it was made.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeValue {
    value: f64,
    /// The operation (bits 0–7), [`PLAIN_LEFT`] (bit 8), the untracked flag (bit 31, where
    /// [`UNTRACKED`] sits in an operand entry, so an operation's flag goes
    /// in unshifted) and the label's source line (bits 32–63) in one word,
    /// so that recording writes a node value in two stores, not four. The
    /// line sits in what would otherwise be padding, so a labeled node costs
    /// only the text beside it.
    packed: u64,
}

impl NodeValue {
    /// `flags` is [`UNTRACKED`], [`PLAIN_LEFT`], both or 0.
    #[inline(always)]
    fn new(value: f64, operation: ScalarOperation, flags: u32) -> Self {
        Self {
            value,
            packed: operation as u64 | u64::from(flags),
        }
    }

    fn plain_left(self) -> bool {
        self.packed & u64::from(PLAIN_LEFT) != 0
    }

    fn operation(self) -> ScalarOperation {
        ScalarOperation::from_index((self.packed & 0xff) as u8)
    }

    fn tracked(self) -> bool {
        self.packed & u64::from(UNTRACKED) == 0
    }

    fn line(self) -> u32 {
        (self.packed >> 32) as u32
    }

    fn set_line(&mut self, line: u32) {
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
        (!self.label.is_empty()).then_some(Label::at_line(self.label, self.line))
    }
}

/// The nodes, in arrays by use, so that each pass touches only what it
/// reads: recording appends edges and value (40 bytes); the reverse sweep
/// streams edges (24 bytes); validating and committing stream stored
/// gradients beside the pass adjoints (8 + 8).
///
/// `gradients` and `label_texts` are filled lazily: the first backward pass
/// grows `gradients` to its output, labelling grows `label_texts` to its
/// node, and an index past their end reads as a stored gradient of 0 and no
/// label. Recording never touches them.
#[derive(Default)]
pub(crate) struct Nodes {
    edges: Vec<Edges>,
    values: Vec<NodeValue>,
    gradients: Vec<f64>,
    label_texts: Vec<&'static str>,
    /// A buffer for the next pass's adjoints: the last pass's, or the
    /// stored gradients' old buffer after a first pass took its place, or a
    /// ledger's replay (it is scratch: never read, only refilled).
    spare_adjoints: Vec<f64>,
    /// The smaller of the capacities of `edges` and `values`, kept here so
    /// that `push` tests one number it loads. Set only by `measure_room`,
    /// after a capacity changes (they never shrink), so it never exceeds
    /// either: the invariant `push` relies on.
    room: usize,
    /// How many nodes at the start of the tape are leaves (the parameters
    /// a model records first): the reverse sweep has nothing to propagate
    /// from them and only tests their sums, in a loop of its own.
    leading_leaves: usize,
    /// The first error of the recording in progress on generated code's
    /// sticky path (`Tape::fail`).
    failure: Option<ScalarAutodiffError>,
    /// Generated code is recording (`Tape::allow_infinite_results`): an
    /// infinite result whose local derivatives are finite is recorded.
    infinite_results: bool,
    /// The loop iterations generated code is recording in, and where each
    /// began and ended among the nodes (`Tape::enter_loop`).
    loops: Loops,
    /// The probes of the recording, when probing (`Tape::set_probing`).
    probes: Option<Vec<Probe>>,
    /// What a recording for a second-order pass keeps, when the tape is
    /// made for one (`Tape::keep_output`).
    pub(crate) kept: Option<Kept>,
}

/// What the tape path keeps of a recording made for `f_jvp`, `f_hvp` or
/// `f_hessian` instead of running its reverse pass: how many variables the
/// parameters recorded, and the output (its node entry and value).
#[derive(Clone, Copy, Default)]
pub(crate) struct Kept {
    pub(crate) variables: usize,
    pub(crate) output: Option<(u32, f64)>,
}

impl Nodes {
    /// Empty arrays with room for `nodes` nodes.
    pub(crate) fn with_capacity(nodes: usize) -> Self {
        let mut this = Self {
            edges: Vec::with_capacity(nodes),
            values: Vec::with_capacity(nodes),
            ..Self::default()
        };
        this.measure_room();
        this
    }

    /// The number of recorded nodes.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }

    /// How many nodes fit before the arrays reallocate.
    #[inline]
    pub(crate) fn room(&self) -> usize {
        self.room
    }

    /// Appends one node and returns its index. Callers have validated value
    /// and derivatives. `flags` is [`UNTRACKED`] or 0, with [`PLAIN_LEFT`]
    /// for an operation whose plain operand is its left one.
    ///
    /// `edges` and `values` always have the same length, so one length and
    /// one room check serve both, where two `Vec::push`es would load, test
    /// and store a length each.
    #[inline]
    pub(crate) fn push(
        &mut self,
        edges: Edges,
        value: f64,
        operation: ScalarOperation,
        flags: u32,
    ) -> Result<u32, ScalarAutodiffError> {
        let index = self.values.len();
        debug_assert_eq!(index, self.edges.len());
        debug_assert!(self.room <= self.edges.capacity().min(self.values.capacity()));
        if index >= self.room && !cold::make_room(self) {
            return Err(ScalarAutodiffError::TapeFull {
                capacity: MAX_NODES,
            });
        }
        // SAFETY: both vectors have length `index` and capacity above it
        // (`room` never exceeds either capacity, see the module doc, and
        // `index < room` was just checked or made by `make_room`), so place
        // `index` of each is allocated and unused; writing it and then
        // counting it initialises what the new length covers.
        unsafe {
            self.edges.as_mut_ptr().add(index).write(edges);
            self.edges.set_len(index + 1);
            self.values
                .as_mut_ptr()
                .add(index)
                .write(NodeValue::new(value, operation, flags));
            self.values.set_len(index + 1);
        }
        Ok(index as u32)
    }

    /// Appends one untracked-or-tracked leaf and notes it for the sweep.
    #[inline]
    pub(crate) fn push_leaf(
        &mut self,
        value: f64,
        operation: ScalarOperation,
        untracked: u32,
    ) -> Result<u32, ScalarAutodiffError> {
        let index = self.push(Edges::LEAF, value, operation, untracked)?;
        self.extend_leading_leaves(index as usize, 1);
        Ok(index)
    }

    /// Appends one tracked leaf per value and returns `handle(index,
    /// value)` for each, or, if a value is not finite, appends nothing and
    /// names it.
    ///
    /// One pass writes the nodes and their handles into the room past the
    /// arrays' ends and tests every value; only if all are finite do the
    /// lengths move to take them in.
    pub(crate) fn push_variables<T>(
        &mut self,
        values: &[f64],
        handle: impl Fn(u32, f64) -> T,
    ) -> Result<Vec<T>, ScalarAutodiffError> {
        let count = values.len();
        let first = self.len();
        if count > MAX_NODES - first {
            return Err(ScalarAutodiffError::TapeFull {
                capacity: MAX_NODES,
            });
        }
        self.edges.reserve(count);
        self.values.reserve(count);
        self.measure_room();
        let mut handles = Vec::with_capacity(count);
        let mut all_finite = true;
        let places = self.edges.spare_capacity_mut()[..count]
            .iter_mut()
            .zip(&mut self.values.spare_capacity_mut()[..count])
            .zip(&mut handles.spare_capacity_mut()[..count]);
        for (offset, (((edges, node), handle_place), &value)) in places.zip(values).enumerate() {
            all_finite &= value.is_finite();
            edges.write(Edges::LEAF);
            node.write(NodeValue::new(value, ScalarOperation::Variable, 0));
            handle_place.write(handle((first + offset) as u32, value));
        }
        if !all_finite {
            let value = values.iter().copied().find(|v| !v.is_finite());
            return Err(ScalarAutodiffError::NonFiniteLeaf {
                operation: ScalarOperation::Variable,
                value: value.unwrap_or(f64::NAN),
                label: None,
            });
        }
        // SAFETY: the loop initialised the first `count` places past each
        // array's length (`zip` stops at the shortest, and all four
        // sequences have `count` items); the two node arrays' lengths move
        // alike.
        unsafe {
            self.edges.set_len(first + count);
            self.values.set_len(first + count);
            handles.set_len(count);
        }
        self.extend_leading_leaves(first, count);
        Ok(handles)
    }

    /// Grows both node arrays (amortised doubling), or refuses a node past
    /// [`MAX_NODES`]. Called through [`cold::make_room`].
    pub(crate) fn make_room(&mut self) -> Result<(), ScalarAutodiffError> {
        if self.values.len() >= MAX_NODES {
            return Err(ScalarAutodiffError::TapeFull {
                capacity: MAX_NODES,
            });
        }
        self.edges.reserve(1);
        self.values.reserve(1);
        self.measure_room();
        Ok(())
    }

    /// Sets `room` from the two capacities; called after either changes.
    fn measure_room(&mut self) {
        self.room = self.edges.capacity().min(self.values.capacity());
    }

    /// Empties every array but keeps its memory (and the adjoint buffer).
    pub(crate) fn forget_nodes(&mut self) {
        self.leading_leaves = 0;
        self.failure = None;
        self.edges.clear();
        self.values.clear();
        self.gradients.clear();
        self.label_texts.clear();
        self.loops.clear();
        if let Some(probes) = &mut self.probes {
            probes.clear();
        }
        if let Some(kept) = &mut self.kept {
            *kept = Kept::default();
        }
    }

    /// Keeps `error` unless an earlier one is kept, naming the loop
    /// iterations the recording is in when its label names none.
    pub(crate) fn fail(&mut self, error: ScalarAutodiffError) {
        if self.failure.is_none() {
            self.failure = Some(error.in_iterations(self.loops.now()));
        }
    }

    pub(crate) fn failed(&self) -> bool {
        self.failure.is_some()
    }

    pub(crate) fn take_failure(&mut self) -> Option<ScalarAutodiffError> {
        self.failure.take()
    }

    pub(crate) fn set_failure(&mut self, failure: Option<ScalarAutodiffError>) {
        self.failure = failure;
    }

    /// Sets whether an infinite result with finite local derivatives is
    /// recorded; returns the previous setting.
    pub(crate) fn set_infinite_results(&mut self, allow: bool) -> bool {
        std::mem::replace(&mut self.infinite_results, allow)
    }

    pub(crate) fn infinite_results(&self) -> bool {
        self.infinite_results
    }

    /// Forgets the nodes from `len` on; capacities (and so `room`) stay.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.edges.truncate(len);
        self.values.truncate(len);
        self.gradients.truncate(len);
        self.label_texts.truncate(len);
        self.loops.truncate(len);
        self.leading_leaves = self.leading_leaves.min(len);
    }

    /// Notes that `count` leaves were recorded from index `first` on.
    fn extend_leading_leaves(&mut self, first: usize, count: usize) {
        if first == self.leading_leaves {
            self.leading_leaves += count;
        }
    }

    /// Attaches `label` to node `index`.
    ///
    /// Always inlined: as a call, the label would be passed by address, so
    /// it would live in memory on every operation's hot path.
    #[inline(always)]
    pub(crate) fn set_label(&mut self, index: usize, label: Label) {
        let texts = &self.label_texts;
        if texts.len() == index && index < texts.capacity() {
            // The usual case under `#[differentiable]`: the node just
            // recorded, every earlier one labelled, and room reserved.
            self.label_texts.push(label.text);
        } else {
            // The label is not passed along: its address taken, it would
            // live in memory on the hot path too, and reading its text
            // back as one 16-byte load from two 8-byte stores stalls store
            // forwarding.
            cold::make_room_for_label(self, index);
            self.label_texts[index] = label.text;
        }
        self.values[index].set_line(label.line);
        if label.iterations.marks_binding() {
            self.probe_binding(index, label.text);
        }
    }

    /// A node labelled with [`Label::binding`]: on a probing tape, the
    /// binding's probe (of a `let`, so not reassigned).
    #[cold]
    #[inline(never)]
    fn probe_binding(&mut self, index: usize, name: &'static str) {
        if self.probing() {
            self.probe(name, &[], index, false);
        }
    }

    /// Replaces the stored value of node `index` (see `Scalar::fused`).
    pub(crate) fn set_value(&mut self, index: usize, value: f64) {
        self.values[index].value = value;
    }

    /// Attaches `label` to every node from `first` on, which were just
    /// appended, so no label array reaches them yet.
    pub(crate) fn set_label_from(&mut self, first: usize, label: Label) {
        let len = self.len();
        if first >= len {
            return;
        }
        self.make_room_for_label(len - 1);
        self.label_texts[first..].fill(label.text);
        for node in &mut self.values[first..] {
            node.set_line(label.line);
        }
    }

    /// Grows the lazy label array to hold `index`, reserving room for as
    /// many labels as the tape has room for nodes rather than doubling on
    /// its own: labelling node after node (what the macro does) then costs
    /// 16 bytes a node, not up to 32. Called through
    /// [`cold::make_room_for_label`] from `set_label`.
    pub(crate) fn make_room_for_label(&mut self, index: usize) {
        if self.label_texts.len() <= index {
            let room = self.values.capacity().max(index + 1);
            let additional = room - self.label_texts.len();
            self.label_texts.reserve_exact(additional);
            self.label_texts.resize(index + 1, "");
        }
    }

    /// The operand edges of every node, in creation order.
    #[inline]
    pub(crate) fn edges(&self) -> &[Edges] {
        &self.edges
    }

    /// Which nodes up to `output` the output depends on: itself, and every
    /// operand of a node it depends on (with `tracked_only`, only operands
    /// whose edge carries a derivative). By tape index, `output + 1` long.
    pub(crate) fn reached_from(&self, output: usize, tracked_only: bool) -> Vec<bool> {
        let mut reached = vec![false; output + 1];
        reached[output] = true;
        for node in (0..=output).rev() {
            if reached[node] {
                for slot in 0..2 {
                    if let Some((parent, tracked)) = self.edges[node].parent(slot) {
                        reached[parent] |= tracked || !tracked_only;
                    }
                }
            }
        }
        reached
    }

    /// The stored gradients, as far as the lazy array reaches.
    #[inline]
    pub(crate) fn gradients(&self) -> &[f64] {
        &self.gradients
    }

    /// How many nodes at the start of the tape are leaves.
    #[inline]
    pub(crate) fn leading_leaves(&self) -> usize {
        self.leading_leaves
    }

    /// The stored gradient at `index` (0 past the end of the lazy array).
    #[inline]
    pub(crate) fn gradient(&self, index: usize) -> f64 {
        self.gradients.get(index).copied().unwrap_or(0.0)
    }

    /// The operation that made node `index`.
    pub(crate) fn operation(&self, index: usize) -> ScalarOperation {
        self.values[index].operation()
    }

    /// The value of node `index`.
    #[inline]
    pub(crate) fn value(&self, index: usize) -> f64 {
        self.values[index].value
    }

    /// Whether node `index`'s plain operand is the operation's left one.
    #[inline]
    pub(crate) fn plain_left(&self, index: usize) -> bool {
        self.values[index].plain_left()
    }

    /// The values of node `index`'s operands as written, a plain one (or
    /// `powi`'s exponent) in its slot: what a recording error names.
    pub(crate) fn operands(&self, index: usize) -> Operands {
        let edges = &self.edges[index];
        let operation = self.operation(index);
        let Some((first, _)) = edges.parent(0) else {
            return Operands::NONE;
        };
        let a = self.value(first);
        let arity = autodiff_ops_table::OPERATIONS[operation as usize].operands;
        match (edges.parent(1), edges.plain()) {
            (Some((second, _)), _) => Operands::two(a, self.value(second)),
            (None, Some(plain)) if arity == 2 && self.plain_left(index) => Operands::two(plain, a),
            (None, Some(plain)) if arity == 2 || operation == ScalarOperation::Powi => {
                Operands::two(a, plain)
            }
            _ => Operands::one(a),
        }
    }

    /// Whether node `index` tracks a gradient.
    pub(crate) fn tracked(&self, index: usize) -> bool {
        self.values[index].tracked()
    }

    /// The label at `index`, if one was attached, with the loop
    /// iterations the node was recorded in (a replay of the loop log: for
    /// errors and single reads, not for walks over every node).
    pub(crate) fn label(&self, index: usize) -> Option<Label> {
        self.label_without_loops(index).map(|label| Label {
            iterations: self.loops.at(index),
            ..label
        })
    }

    /// The label at `index` without its loop iterations.
    fn label_without_loops(&self, index: usize) -> Option<Label> {
        match self.label_texts.get(index) {
            Some(&text) if !text.is_empty() => {
                Some(Label::at_line(text, self.values[index].line()))
            }
            _ => None,
        }
    }

    /// A loop begins; returns its index for its marks.
    #[inline]
    pub(crate) fn enter_loop(&mut self, name: &'static str) -> u32 {
        self.loops.enter_loop(name)
    }

    /// Loop `index` begins an iteration at the current end of the tape.
    #[inline]
    pub(crate) fn iterate(&mut self, index: u32, value: Option<i64>, count: i64) {
        let at = self.len();
        self.loops.iterate(at, index, value, count);
    }

    /// Loop `index` ends.
    #[inline]
    pub(crate) fn exit_loop(&mut self, index: u32) {
        let at = self.len();
        self.loops.exit_loop(at, index);
    }

    /// Turns probing on (an empty log) or off.
    pub(crate) fn set_probing(&mut self, on: bool) {
        self.probes = on.then(Vec::new);
    }

    pub(crate) fn probing(&self) -> bool {
        self.probes.is_some()
    }

    /// Logs that binding `name`'s element `path` holds node `node`.
    pub(crate) fn probe(
        &mut self,
        name: &'static str,
        path: &[usize],
        node: usize,
        reassigned: bool,
    ) {
        let iterations = self.loops.replay(usize::MAX);
        if let Some(probes) = &mut self.probes {
            probes.push(Probe {
                name,
                path: path.to_vec(),
                node,
                iterations,
                reassigned,
            });
        }
    }

    pub(crate) fn take_probes(&mut self) -> Vec<Probe> {
        self.probes.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// The loop iterations the recording is in now.
    pub(crate) fn iterations(&self) -> Iterations {
        self.loops.now()
    }

    /// Everything about the node at `index`, by value.
    pub(crate) fn info(&self, index: usize) -> Info {
        let node = self.values[index];
        let label = self.label_without_loops(index);
        Info {
            value: node.value,
            gradient: self.gradient(index),
            label: label.map_or("", |l| l.text),
            line: label.map_or(0, |l| l.line),
            operation: node.operation(),
            tracked: node.tracked(),
        }
    }

    /// A pass's starting adjoints, in the spare buffer: 0 up to the
    /// output, the seed at it.
    pub(crate) fn seeded_adjoints(&mut self, output: usize, seed: f64) -> Vec<f64> {
        let mut adjoints = std::mem::take(&mut self.spare_adjoints);
        adjoints.clear();
        adjoints.resize(output + 1, 0.0);
        adjoints[output] = seed;
        adjoints
    }

    /// Keeps the larger of `adjoints` and the buffer already kept, for the
    /// next pass.
    pub(crate) fn keep_adjoints(&mut self, adjoints: Vec<f64>) {
        if adjoints.capacity() > self.spare_adjoints.capacity() {
            self.spare_adjoints = adjoints;
        }
    }

    /// Adds a validated pass's `adjoints` (up to `output`, seeded with
    /// `seed`) to the stored gradients, and keeps the buffer.
    pub(crate) fn commit(&mut self, mut adjoints: Vec<f64>, output: usize, seed: f64) {
        if self.gradients.is_empty() {
            // No stored gradient yet (a new or cleared tape): every stored
            // gradient is the +0 it would be added to, so the pass adjoints
            // are the new stored gradients as they stand: `0 + a == a` bit
            // for bit, as no adjoint is −0 (see `sweep`) but the output's,
            // which is the seed and gets its `0 +` here. The buffers trade
            // places instead of one being copied into the other.
            adjoints[output] = 0.0 + seed;
            self.spare_adjoints = std::mem::replace(&mut self.gradients, adjoints);
            return;
        }
        // Adding everywhere is exact: nodes the output does not reach, and
        // untracked ones, have adjoint 0, and `g + 0 == g` bit for bit for
        // every stored `g` but −0, which a stored gradient never is (it
        // starts at +0, only ever has adjoints added or is reset to +0, and
        // a sum is −0 only when both terms are). So they keep their stored
        // gradient bit for bit, and the loop needs no branch. Places past
        // the end of the lazy array held 0: they are appended as `0 + a`
        // rather than zero-filled first, one pass over fresh memory less.
        let stored = self.gradients.len().min(output + 1);
        for (gradient, &adjoint) in self.gradients[..stored].iter_mut().zip(&adjoints) {
            *gradient += adjoint;
        }
        self.gradients
            .extend(adjoints[stored..].iter().map(|&adjoint| 0.0 + adjoint));
        self.spare_adjoints = adjoints;
    }

    /// Sets the stored gradient of every tracked node `output` reaches to 0.
    pub(crate) fn zero_reached(&mut self, output: usize) {
        if !self.tracked(output) {
            return;
        }
        let mut reached = vec![false; output + 1];
        reached[output] = true;
        for node in (0..=output).rev() {
            if !reached[node] {
                continue;
            }
            // A place past the end already reads as 0.
            if let Some(gradient) = self.gradients.get_mut(node) {
                *gradient = 0.0;
            }
            for slot in 0..2 {
                if let Some((parent, true)) = self.edges[node].parent(slot) {
                    reached[parent] = true;
                }
            }
        }
    }

    /// Sets every stored gradient to 0.
    pub(crate) fn zero_gradients(&mut self) {
        self.gradients.fill(0.0);
    }
}
