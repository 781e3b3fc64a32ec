//! The stack a compiled gradient saves on: values, trip counts, indices
//! and the arms taken, pushed by the forward sweep and popped by the
//! reverse; the finiteness observations; spare adjoints for the `vec!`s of
//! loop bodies; one stack per thread, reused.

use super::*;
use autodiff_core::ScalarOperation;

mod observed;
pub use observed::Observed;

/// The saved values and control-flow records of one compiled gradient: a
/// forward sweep pushes, the reverse sweep pops in the opposite order.
///
/// One stack per thread is reused by every `f_grad` call ([`Scratch`]),
/// so a gradient in a training loop allocates nothing after its first
/// call; a nested annotated call stacks its records between its caller's.
///
/// ```
/// use autodiff::__adjoint::Stack;
///
/// let mut stack = Stack::new();
/// stack.push(2.5);
/// stack.push_arm(1);
/// assert_eq!(stack.pop_arm(), 1);
/// assert_eq!(stack.pop(), 2.5);
/// ```
#[derive(Debug)]
pub struct Stack {
    values: Vec<f64>,
    control: Vec<usize>,
    /// The reverse sweeps of vector-valued callees, saved by their forward
    /// sweeps (`reverses.rs`).
    pub(super) reverses: Vec<Box<dyn super::reverses::Slot>>,
    /// Empty boxes of reverse sweeps already run, kept for the next calls'
    /// (`reverses.rs`).
    pub(super) slots: Vec<Box<dyn super::reverses::Slot>>,
    /// Adjoints of `vec![0.0; n]` bound in a loop's body, given back at
    /// the end of each reversed iteration for the next to take
    /// ([`zeros`](Self::zeros), [`recycle`](Self::recycle)).
    spares: Vec<Vec<f64>>,
    /// Empty lists of rows, kept for [`super::lend_rows`].
    row_lists: Vec<Vec<Vec<f64>>>,
    /// Empty lists of lengths, kept for the sites of rows whose lengths
    /// the forward saves (`__adjoint::length_list`).
    length_lists: Vec<Vec<usize>>,
    /// The list of a sum's adjoints that a reverse with its loops swapped
    /// saves ([`sums`](Self::sums), [`keep_sums`](Self::keep_sums)).
    sums: Vec<f64>,
    /// No value the tape would reject has been observed since the last
    /// [`clear`](Self::clear).
    finite: bool,
    /// The arguments of the next vector-valued callee's reverse that have
    /// no adjoint in the caller (bit `k` for the `k`-th parameter): set by
    /// the caller just before the call ([`unused_args`](Self::unused_args)),
    /// taken by the callee's reverse first thing
    /// ([`take_unused`](Self::take_unused)).
    unused: u32,
    /// Slices of numbers the adjoints running now checked when they
    /// started (their parameters), which a callee's check of the same
    /// slice would repeat ([`checked_slice`](Self::checked_slice)).
    checked: Vec<Seen>,
    /// Adjoints the adjoints running now check when they end (their
    /// parameters'), which a callee's check of the same adjoint lent to it
    /// would repeat ([`checked_later`](Self::checked_later)).
    later: Vec<Seen>,
}

/// A slice as [`Stack::checked_slice`] knows it: its address, length and
/// item size; never an empty one.
type Seen = (usize, usize, usize);

/// `items` as a [`Seen`], or `None` if empty.
#[inline(always)]
fn seen<T>(items: &[T]) -> Option<Seen> {
    (!items.is_empty()).then_some((items.as_ptr() as usize, items.len(), size_of::<T>()))
}

impl Default for Stack {
    fn default() -> Self {
        Self::new()
    }
}

impl Stack {
    /// An empty stack; it grows on the first gradient and is reused after.
    pub const fn new() -> Self {
        Self {
            values: Vec::new(),
            control: Vec::new(),
            reverses: Vec::new(),
            slots: Vec::new(),
            spares: Vec::new(),
            row_lists: Vec::new(),
            length_lists: Vec::new(),
            sums: Vec::new(),
            finite: true,
            unused: 0,
            checked: Vec::new(),
            later: Vec::new(),
        }
    }

    /// Saves a value the reverse sweep reads: room made out of line, the
    /// value taken along ([`super::push`]), so that it is not kept in
    /// memory across a call on every push of a hot loop. `Vec`'s own
    /// doubling, so a fresh stack's capacity after one gradient is the
    /// pushes rounded up to a power of two.
    #[inline(always)]
    pub fn push(&mut self, value: f64) {
        super::push(&mut self.values, value);
    }

    /// Saves `values` in order, as that many [`push`](Self::push)es would.
    #[inline]
    pub fn push_slice(&mut self, values: &[f64]) {
        self.values.extend_from_slice(values);
    }

    /// The last saved value. An empty stack (a bug in the generated code,
    /// never the user's input) gives NaN, which the finiteness check turns
    /// into a rerun on the tape instead of a panic.
    #[inline(always)]
    pub fn pop(&mut self) -> f64 {
        self.values.pop().unwrap_or(f64::NAN)
    }

    /// The last `count` saved values, in the order they were pushed: what
    /// a model's adjoint adds back scalar by scalar. Fewer saved than
    /// asked (a bug in the generated code) fails the sweep.
    #[inline]
    pub fn pop_run(&mut self, count: usize) -> std::vec::Drain<'_, f64> {
        let start = match self.values.len().checked_sub(count) {
            Some(start) => start,
            None => {
                self.finite = false;
                0
            }
        };
        self.values.drain(start..)
    }

    /// Saves the first `count` items of `row` (at most its length) and
    /// how many: a row a loop reads whole at every trip of the loop
    /// around it, saved once after that loop instead of item by item at
    /// every trip; [`held_row`](Self::held_row) gives it back.
    ///
    /// ```
    /// use autodiff::__adjoint::Stack;
    ///
    /// let mut stack = Stack::new();
    /// stack.hold_row(&[1.0, 2.0, 3.0], 2);
    /// stack.hold_row(&[4.0], 5);
    /// assert_eq!(stack.held_row(), vec![4.0]);
    /// assert_eq!(stack.held_row(), vec![1.0, 2.0]);
    /// ```
    #[inline]
    pub fn hold_row(&mut self, row: &[f64], count: usize) {
        let count = count.min(row.len());
        self.push_slice(&row[..count]);
        self.push_index(count);
    }

    /// The row the last [`hold_row`](Self::hold_row) saved, in the memory
    /// of a spare row where there is one (given back by
    /// [`recycle`](Self::recycle) once its loop is reversed).
    #[inline]
    pub fn held_row(&mut self) -> Vec<f64> {
        let count = self.pop_index();
        let mut row = self.zeros(0);
        row.extend(self.pop_run(count));
        row
    }

    /// Saves a loop's trip count.
    #[inline(always)]
    pub fn push_trips(&mut self, trips: usize) {
        self.control.push(trips);
    }

    /// The last saved trip count (0 on an empty stack: the loop is skipped).
    #[inline(always)]
    pub fn pop_trips(&mut self) -> usize {
        self.control.pop().unwrap_or(0)
    }

    /// Saves an index the reverse sweep reads after the body has changed
    /// it: `l[idx]` of a counted `idx` (`idx += 1`).
    #[inline(always)]
    pub fn push_index(&mut self, index: usize) {
        self.control.push(index);
    }

    /// The last saved index. An empty stack (a bug in the generated code)
    /// fails the sweep, and gives 0.
    #[inline(always)]
    pub fn pop_index(&mut self) -> usize {
        match self.control.pop() {
            Some(index) => index,
            None => {
                self.finite = false;
                0
            }
        }
    }

    /// Saves which arm of an `if`/`match`, which `break` or which `return`
    /// ran, numbered in source order.
    #[inline(always)]
    pub fn push_arm(&mut self, arm: u32) {
        self.control.push(arm as usize);
    }

    /// The last saved arm. An empty stack gives `u32::MAX`, which no
    /// generated `match` names, so its catch-all arm calls
    /// [`fail`](Self::fail).
    #[inline(always)]
    pub fn pop_arm(&mut self) -> u32 {
        self.control.pop().map_or(u32::MAX, |arm| arm as u32)
    }

    /// `n` zeros: the adjoint of a `vec![0.0; n]` bound in a loop's body,
    /// in the memory of one given back by [`recycle`](Self::recycle) when
    /// there is one, so that a reversed iteration allocates nothing.
    ///
    /// ```
    /// use autodiff::__adjoint::Stack;
    ///
    /// let mut stack = Stack::new();
    /// let mut bar = stack.zeros(3);
    /// bar[1] = 2.0;
    /// stack.recycle(bar);
    /// assert_eq!(stack.zeros(2), vec![0.0, 0.0]);
    /// ```
    #[inline]
    pub fn zeros(&mut self, n: usize) -> Vec<f64> {
        match self.spares.pop() {
            Some(mut spare) => {
                spare.clear();
                spare.resize(n, 0.0);
                spare
            }
            None => adjoints::zeros_of(0.0, n),
        }
    }

    /// Keeps `spare` (an adjoint made by [`zeros`](Self::zeros) whose
    /// iteration is reversed) for the next `zeros`; a few are kept, of at
    /// most 8,192 items.
    #[inline]
    pub fn recycle(&mut self, spare: Vec<f64>) {
        if self.spares.len() < SPARES && spare.capacity() <= SPARE_LEN {
            self.spares.push(spare);
        }
    }

    /// A list of at least `n` numbers, taken from the stack: the one
    /// [`keep_sums`](Self::keep_sums) gave back where it is long enough,
    /// its items as they were (the reverse of a sum over a loop with its
    /// loops swapped writes each item it reads first), else one of zeros.
    ///
    /// ```
    /// use autodiff::__adjoint::Stack;
    ///
    /// let mut stack = Stack::new();
    /// let mut sums = stack.sums(3);
    /// sums[2] = 1.5;
    /// stack.keep_sums(sums);
    /// assert!(stack.sums(2).len() >= 2);
    /// ```
    #[inline]
    pub fn sums(&mut self, n: usize) -> Vec<f64> {
        let mut sums = std::mem::take(&mut self.sums);
        if sums.len() < n {
            sums.resize(n, 0.0);
        }
        sums
    }

    /// Keeps `sums` (from [`sums`](Self::sums)) for the next, where it
    /// holds at most 8,192 items.
    #[inline]
    pub fn keep_sums(&mut self, sums: Vec<f64>) {
        if sums.capacity() <= SPARE_LEN {
            self.sums = sums;
        }
    }

    /// An empty row with room for `n` numbers: a forward sweep's `Vec`
    /// grown by `push` ([`with_room`](super::with_room)), in the memory of
    /// a spare row where there is one (given back by `recycle` when the
    /// reverse is done with the value).
    #[inline]
    pub(super) fn spare_row(&mut self, n: usize) -> Vec<f64> {
        match self.spares.pop() {
            Some(mut spare) => {
                spare.clear();
                spare.reserve(n);
                spare
            }
            None => Vec::with_capacity(n),
        }
    }

    /// An empty list of rows, one [`keep_row_list`](Self::keep_row_list)
    /// kept where there is one.
    #[inline]
    pub(super) fn row_list(&mut self) -> Vec<Vec<f64>> {
        self.row_lists.pop().unwrap_or_default()
    }

    /// Keeps `list` (emptied) for the next [`row_list`](Self::row_list);
    /// a few are kept, of at most 8,192 rows. Every list a sweep gives
    /// back is empty by then (its rows popped or drained): that case is
    /// inlined where the list is given back, the rest (rows to drop, a
    /// list not kept) is a call.
    #[inline(always)]
    pub(super) fn keep_row_list(&mut self, list: Vec<Vec<f64>>) {
        if list.is_empty() && self.row_lists.len() < SPARES && list.capacity() <= SPARE_LEN {
            self.row_lists.push(list);
        } else {
            self.keep_full_row_list(list);
        }
    }

    /// An empty list of lengths, one
    /// [`keep_length_list`](Self::keep_length_list) kept where there is one.
    #[inline]
    pub(super) fn length_list(&mut self) -> Vec<usize> {
        self.length_lists.pop().unwrap_or_default()
    }

    /// Keeps `list` (emptied) for the next
    /// [`length_list`](Self::length_list); a few are kept, of at most 8,192
    /// lengths.
    #[inline]
    pub(super) fn keep_length_list(&mut self, mut list: Vec<usize>) {
        if self.length_lists.len() < SPARES && list.capacity() <= SPARE_LEN {
            list.clear();
            self.length_lists.push(list);
        }
    }

    /// [`keep_row_list`](Self::keep_row_list) of a list that still holds
    /// rows, or that is not kept.
    #[cold]
    #[inline(never)]
    fn keep_full_row_list(&mut self, mut list: Vec<Vec<f64>>) {
        if self.row_lists.len() < SPARES && list.capacity() <= SPARE_LEN {
            list.clear();
            self.row_lists.push(list);
        }
    }

    /// Forgets everything, keeping the memory. A gradient starts with it, so
    /// that records left by a panic in the user's body (an index out of
    /// bounds) cannot leak into the next call.
    #[inline]
    pub fn clear(&mut self) {
        self.values.clear();
        self.control.clear();
        while let Some(slot) = self.reverses.pop() {
            self.keep_slot(slot);
        }
        self.finite = true;
        self.unused = 0;
        self.checked.clear();
        self.later.clear();
    }

    /// How many slices [`checked_slice`](Self::checked_slice) and
    /// [`checked_later`](Self::checked_later) know: what an adjoint's
    /// [`forget_checked`](Self::forget_checked) goes back to when it ends.
    #[inline(always)]
    pub fn checked_mark(&self) -> (usize, usize) {
        (self.checked.len(), self.later.len())
    }

    /// Notes that the adjoint running now checked `items` (a parameter,
    /// with [`observe`](Self::observe), strict) before its forward sweep
    /// and that they stay as they are until it ends (a shared slice): a
    /// callee's [`observe_arg`](Self::observe_arg) of the very same slice
    /// (address, length and item size) skips its scan, which would find
    /// nothing more.
    ///
    /// ```
    /// use autodiff::__adjoint::Stack;
    ///
    /// let mut stack = Stack::new();
    /// let w = vec![vec![1.0, f64::NAN]];
    /// let mark = stack.checked_mark();
    /// stack.observe_arg(&w[..]); // not known: scanned
    /// assert!(!stack.finite());
    /// stack.clear();
    /// stack.checked_slice(&w[..]); // (the caller's own check failed)
    /// stack.observe_arg(&w[..]); // known: not scanned again
    /// assert!(stack.finite());
    /// stack.forget_checked(mark);
    /// stack.observe_arg(&w[..]);
    /// assert!(!stack.finite());
    /// ```
    #[inline]
    pub fn checked_slice<T>(&mut self, items: &[T]) {
        if let Some(seen) = seen(items) {
            self.checked.push(seen);
        }
    }

    /// Notes that the adjoint running now checks the adjoint `bar` (a
    /// parameter's, only ever added to) once its reverse sweep is done:
    /// a callee's [`observe_lent`](Self::observe_lent) of it, lent to its
    /// reverse, skips its scan, which the end would repeat.
    #[inline]
    pub fn checked_later<T>(&mut self, bar: &[T]) {
        if let Some(seen) = seen(bar) {
            self.later.push(seen);
        }
    }

    /// Forgets what the adjoint ending now noted
    /// ([`checked_slice`](Self::checked_slice),
    /// [`checked_later`](Self::checked_later)).
    #[inline]
    pub fn forget_checked(&mut self, mark: (usize, usize)) {
        self.checked.truncate(mark.0);
        self.later.truncate(mark.1);
    }

    /// [`observe_infinite`](Self::observe_infinite) of a callee's slice
    /// parameter as it starts, unless it is a slice a caller running now
    /// checked already ([`checked_slice`](Self::checked_slice)).
    #[inline]
    pub fn observe_arg<T>(&mut self, items: &[T])
    where
        [T]: Observed,
    {
        if !seen(items).is_some_and(|seen| self.checked.contains(&seen)) {
            self.observe_infinite(items);
        }
    }

    /// [`observe`](Self::observe) of a callee's adjoint `bar`, lent from
    /// the caller's `caller`, as its reverse ends, unless the caller checks
    /// `caller` itself when it ends ([`checked_later`](Self::checked_later)):
    /// what the callee added stays in it (an adjoint lent is only added
    /// to), and a value that is not finite stays so under addition.
    #[inline]
    pub fn observe_lent<T, B: Observed + ?Sized>(&mut self, caller: &[T], bar: &B) {
        if !seen(caller).is_some_and(|seen| self.later.contains(&seen)) {
            self.observe(bar);
        }
    }

    /// Says that the arguments of the vector-valued call about to be
    /// reversed at the positions `mask` has bits for are constants of the
    /// caller: it passes [`unused`](super::unused) in place of their
    /// adjoints, and the callee's reverse adds nothing into them (a
    /// layer's `forward(x)` of data `x` computes no `x_bar`).
    ///
    /// ```
    /// use autodiff::__adjoint::Stack;
    ///
    /// let mut stack = Stack::new();
    /// stack.unused_args(0b100);
    /// assert_eq!(stack.take_unused(), 0b100);
    /// assert_eq!(stack.take_unused(), 0);
    /// ```
    #[inline(always)]
    pub fn unused_args(&mut self, mask: u32) {
        self.unused = mask;
    }

    /// The mask [`unused_args`](Self::unused_args) left, reset to none: a
    /// vector-valued callee's reverse takes it before anything else, so
    /// that no other call's reverse sees it.
    #[inline(always)]
    pub fn take_unused(&mut self) -> u32 {
        std::mem::take(&mut self.unused)
    }

    /// Notes an operand that an absorbing operation (`tanh`, `max`, a
    /// branch condition, ...) is about to read: where a non-finite value
    /// could vanish before reaching the value or the gradient. One compare,
    /// no branch.
    ///
    /// ```
    /// use autodiff::__adjoint::Stack;
    ///
    /// let mut stack = Stack::new();
    /// let z = f64::MAX * 2.0; // overflows; tanh would hide it
    /// stack.observe(z);
    /// assert_eq!(z.tanh(), 1.0);
    /// assert!(!stack.finite());
    /// ```
    #[inline(always)]
    pub fn observe<V: Observed>(&mut self, value: V) {
        self.finite &= value.all_finite();
    }

    /// Notes an operand of `max`, `min` or `exp`, which the tape takes
    /// infinite (`max(−∞, s)` selects `s` with derivative 0 for `−∞`;
    /// `exp(−∞) = 0` with derivative 0): only a NaN, which `max` and `min`
    /// would drop, fails. An infinity that came from an operation with an
    /// infinite local derivative (`ln(0)`, `1/0`) still fails the sweep: the
    /// reverse multiplies that derivative into an adjoint, and the gradient
    /// is then not finite.
    ///
    /// ```
    /// use autodiff::__adjoint::Stack;
    ///
    /// let mut stack = Stack::new();
    /// stack.observe_infinite(f64::NEG_INFINITY);
    /// assert!(stack.finite());
    /// stack.observe_infinite(f64::NAN);
    /// assert!(!stack.finite());
    /// ```
    #[inline(always)]
    pub fn observe_infinite<V: Observed>(&mut self, value: V) {
        self.finite &= value.no_nan();
    }

    /// Notes the operand of the one-operand function `operation` as the
    /// tape records it: an infinite operand is taken where the function's
    /// value is no NaN and its local derivative is finite there
    /// (`tanh(∞)` is 1 with derivative 0, `(∞).recip()` is 0 with
    /// derivative 0), and fails the sweep elsewhere (`ln(−∞)` is NaN).
    /// The table's rule runs only for a non-finite operand.
    ///
    /// ```
    /// use autodiff::__adjoint::Stack;
    /// use autodiff::ScalarOperation;
    ///
    /// let mut stack = Stack::new();
    /// stack.observe_operand_of(f64::INFINITY, ScalarOperation::Tanh);
    /// assert!(stack.finite());
    /// stack.observe_operand_of(f64::NEG_INFINITY, ScalarOperation::Ln);
    /// assert!(!stack.finite());
    /// ```
    #[inline(always)]
    pub fn observe_operand_of(&mut self, operand: impl Borrow<f64>, operation: ScalarOperation) {
        let x = *operand.borrow();
        if !x.is_finite() {
            self.finite &= recorded_at_infinity(operation, x);
        }
    }

    /// Notes the base of `x.powi(n)` as the tape records it: an infinite
    /// base is taken where the derivative `n·x^(n−1)` is finite
    /// (`(∞).powi(-2)` is 0 with derivative 0; not `(∞).powi(2)`); the
    /// power of an infinity is never NaN.
    ///
    /// ```
    /// use autodiff::__adjoint::Stack;
    ///
    /// let mut stack = Stack::new();
    /// stack.observe_power_base(f64::INFINITY, -2);
    /// assert!(stack.finite());
    /// stack.observe_power_base(f64::INFINITY, 2);
    /// assert!(!stack.finite());
    /// ```
    #[inline(always)]
    pub fn observe_power_base(
        &mut self,
        base: impl Borrow<f64>,
        n: impl crate::__private::PowiExponent,
    ) {
        let x = *base.borrow();
        if !x.is_finite() {
            self.finite &= !x.is_nan() && rules::powi_partial(x, n).is_finite();
        }
    }

    /// Notes a differentiable parameter and its gradient in one pass: the
    /// tape rejects a non-finite parameter even where nothing reads it, and
    /// a non-finite adjoint contribution; one pass over both reads memory
    /// once where two passes would read it twice.
    ///
    /// ```
    /// use autodiff::__adjoint::Stack;
    ///
    /// let mut stack = Stack::new();
    /// let x: &[f64] = &[1.0, f64::NAN];
    /// stack.observe_param(&x, &vec![0.5, 0.0]);
    /// assert!(!stack.finite());
    /// ```
    #[inline(always)]
    pub fn observe_param<P: Checked<B> + ?Sized, B>(&mut self, param: &P, bar: &B) {
        self.finite &= param.finite_with(bar);
    }

    /// A model's gradient with the verdict of its check (see
    /// `Parameter::carry_gradient`): the gradient, the verdict noted.
    #[inline(always)]
    pub fn checked<G>(&mut self, (gradient, finite): (G, bool)) -> G {
        self.finite &= finite;
        gradient
    }

    /// Marks the sweep as failed: an impossible control record.
    #[inline(always)]
    pub fn fail(&mut self) {
        self.finite = false;
    }

    /// [`fail`](Self::fail), as the NaN a failed forward sweep returns.
    #[inline(always)]
    pub fn failed(&mut self) -> f64 {
        self.fail();
        f64::NAN
    }

    /// Whether every observed value was finite: `f_adjoint` returns its
    /// result only then, and `f_grad` reruns the tape otherwise.
    #[inline(always)]
    pub fn finite(&self) -> bool {
        self.finite
    }

    /// Whether nothing is saved: true after every complete gradient.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
            && self.control.is_empty()
            && self.reverses.is_empty()
            && self.checked.is_empty()
            && self.later.is_empty()
    }

    /// Heap bytes held (capacity, both stacks).
    pub fn capacity_bytes(&self) -> usize {
        let spares: usize = self.spares.iter().map(Vec::capacity).sum();
        let lists: usize = self.row_lists.iter().map(Vec::capacity).sum();
        let lengths: usize = self.length_lists.iter().map(Vec::capacity).sum();
        (self.values.capacity() + spares + self.sums.capacity()) * size_of::<f64>()
            + lists * size_of::<Vec<f64>>()
            + (self.control.capacity() + lengths) * size_of::<usize>()
    }

    /// Whether [`capacity_bytes`](Self::capacity_bytes) is at most the
    /// 64 MiB a thread keeps between gradients. A bound that reads no row
    /// comes first: each spare holds at most 8,192 numbers and each kept
    /// list at most 8,192 rows ([`recycle`](Self::recycle),
    /// [`keep_row_list`](Self::keep_row_list)), so a stack of a few hundred
    /// of them meets it, and their capacities are summed (one load per row)
    /// only where it does not.
    #[inline]
    pub fn within_kept_bytes(&self) -> bool {
        let bound = (self.values.capacity() + self.sums.capacity() + self.spares.len() * SPARE_LEN)
            * size_of::<f64>()
            + self.row_lists.len() * SPARE_LEN * size_of::<Vec<f64>>()
            + (self.control.capacity() + self.length_lists.len() * SPARE_LEN) * size_of::<usize>();
        bound <= KEPT_BYTES || self.capacity_bytes() <= KEPT_BYTES
    }

    /// The most bytes pushed since the last [`clear`](Self::clear) are at
    /// most this; used by the memory report together with a counter.
    pub fn len_bytes(&self) -> usize {
        self.values.len() * size_of::<f64>() + self.control.len() * size_of::<usize>()
    }
}

/// How many adjoints [`Stack::recycle`] keeps: one per `vec!` bound in
/// the loop bodies being reversed at once.
const SPARES: usize = 256;

/// The longest adjoint [`Stack::recycle`] keeps, in items (64 KiB).
const SPARE_LEN: usize = 8 << 10;

/// The most bytes of stack a thread keeps between gradients (64 MiB, the
/// scratch tape's limit too); a larger gradient frees its stack after.
const KEPT_BYTES: usize = 64 << 20;

thread_local! {
    /// Boxed, so that taking it for a gradient and giving it back move a
    /// pointer, not the stack's dozen `Vec`s.
    static STACK: Cell<Option<Box<Stack>>> = const { Cell::new(None) };
    static RERUNS: Cell<u64> = const { Cell::new(0) };
}

/// Notes that a compiled `f_grad` found a value its sweep does not take
/// and reruns the tape, or that a vector-valued callee whose reverse is
/// not compiled ran `f_vjp` on the tape: what [`tape_reruns`] counts.
#[inline(never)]
pub fn rerun_on_tape() {
    RERUNS.with(|count| count.set(count.get() + 1));
}

/// How many times, on this thread, a compiled `f_grad` (or
/// `f_grad_on`) reran the tape at run time, its compiled adjoint having
/// met a value its sweep does not take, and how many times a compiled
/// caller's reverse ran a vector-valued callee's `f_vjp` on the tape (its
/// reverse not compiled: a tuple holding a `Vec` built by a chain, a
/// construct the sweeps refuse). `f_grad_path()` says which path a
/// function takes; this says whether a call really stayed on it, so a
/// test can check that a gradient ran compiled all the way through.
///
/// ```
/// use autodiff::__adjoint::{rerun_on_tape, tape_reruns};
///
/// let before = tape_reruns();
/// rerun_on_tape();
/// assert_eq!(tape_reruns(), before + 1);
/// ```
pub fn tape_reruns() -> u64 {
    RERUNS.with(Cell::get)
}

/// This thread's stack, taken for one gradient and given back when dropped:
/// what a generated `f_grad` runs its `f_adjoint` on.
///
/// A nested `f_grad` (the user calls a gradient from inside a gradient's
/// closure, or a thread is being torn down) finds the thread's slot empty
/// or gone and starts from a fresh stack: never a panic. The stack comes
/// cleared; a stack that grew past 64 MiB is freed instead of kept.
///
/// ```
/// use autodiff::__adjoint::Scratch;
///
/// let mut outer = Scratch::take();
/// outer.push(1.0);
/// let inner_empty = Scratch::take().is_empty();
/// assert_eq!((outer.pop(), inner_empty), (1.0, true));
/// ```
#[derive(Debug)]
pub struct Scratch(Option<Box<Stack>>);

impl Scratch {
    /// Takes this thread's stack, cleared (a fresh one if it is taken).
    #[inline]
    pub fn take() -> Scratch {
        let mut stack = STACK
            .try_with(Cell::take)
            .ok()
            .flatten()
            .unwrap_or_default();
        stack.clear();
        Scratch(Some(stack))
    }

    /// The stack, there until the scratch is dropped.
    #[inline(always)]
    fn stack(&self) -> &Stack {
        match &self.0 {
            Some(stack) => stack,
            None => unreachable!("a scratch holds its stack until dropped"),
        }
    }
}

impl Drop for Scratch {
    #[inline]
    fn drop(&mut self) {
        if let Some(stack) = self.0.take() {
            if stack.within_kept_bytes() {
                // Gone only while the thread is torn down: the stack is freed.
                let _ = STACK.try_with(|slot| slot.set(Some(stack)));
            }
        }
    }
}

impl std::ops::Deref for Scratch {
    type Target = Stack;
    #[inline(always)]
    fn deref(&self) -> &Stack {
        self.stack()
    }
}

impl std::ops::DerefMut for Scratch {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Stack {
        match &mut self.0 {
            Some(stack) => stack,
            None => unreachable!("a scratch holds its stack until dropped"),
        }
    }
}

/// Runs `f` (an `f_adjoint`) on this thread's stack, cleared first: a
/// [`Scratch`] for the length of a closure.
///
/// ```
/// use autodiff::__adjoint::with_stack;
///
/// let top = with_stack(|stack| {
///     stack.push(1.0);
///     let inner = with_stack(|inner| inner.is_empty());
///     (stack.pop(), inner)
/// });
/// assert_eq!(top, (1.0, true));
/// ```
pub fn with_stack<R>(f: impl FnOnce(&mut Stack) -> R) -> R {
    f(&mut Scratch::take())
}

/// Whether the tape records `operation` at the non-finite operand `x`:
/// the value no NaN, the local derivative finite.
#[cold]
#[inline(never)]
fn recorded_at_infinity(operation: ScalarOperation, x: f64) -> bool {
    !x.is_nan()
        && autodiff_core::one_operand_local(operation, x)
            .is_some_and(|(value, derivative)| !value.is_nan() && derivative.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stack with `values` numbers of room and `spares` spare rows of
    /// `spare_len` numbers of room (memory asked for, never written).
    fn holding(values: usize, spares: usize, spare_len: usize, lists: usize) -> Stack {
        let mut stack = Stack::new();
        stack.values = Vec::with_capacity(values);
        for _ in 0..spares {
            stack.recycle(Vec::with_capacity(spare_len));
        }
        for _ in 0..lists {
            stack.keep_row_list(Vec::with_capacity(spare_len));
        }
        stack
    }

    #[test]
    fn the_bound_on_kept_bytes_decides_as_the_count_does() {
        let mib = 1 << 20;
        let cases = [
            // Nothing held; a gradient's few spares (the bound decides).
            (0, 0, 0, 0),
            (1000, 60, 4, 10),
            // The bound over 64 MiB, the count under (the count decides).
            (60 * mib / 8, 100, 8, 2),
            // 64 MiB of values and spares of the longest kept: over.
            (63 * mib / 8, 20, SPARE_LEN, 0),
            (64 * mib / 8 + 1, 0, 0, 0),
            // Kept lists of the most rows kept: under, then over.
            (40 * mib / 8, 0, 0, SPARES),
            (50 * mib / 8, 0, SPARE_LEN, SPARES),
        ];
        for (values, spares, spare_len, lists) in cases {
            let stack = holding(values, spares, spare_len, lists);
            assert_eq!(
                stack.within_kept_bytes(),
                stack.capacity_bytes() <= KEPT_BYTES,
                "{values} values, {spares} spares of {spare_len}, {lists} lists"
            );
        }
        assert!(holding(60 * mib / 8, 100, 8, 2).within_kept_bytes());
        assert!(!holding(63 * mib / 8, 20, SPARE_LEN, 0).within_kept_bytes());
    }

    #[test]
    fn a_list_given_back_with_rows_is_kept_emptied() {
        let mut stack = Stack::new();
        stack.keep_row_list(vec![vec![1.0, 2.0], vec![3.0]]);
        stack.keep_row_list(Vec::with_capacity(3));
        let first = stack.row_list();
        assert!(first.is_empty() && first.capacity() >= 3);
        let second = stack.row_list();
        assert!(second.is_empty() && second.capacity() >= 2);
        // A list longer than the longest kept is dropped, with its rows.
        stack.keep_row_list(vec![Vec::new(); SPARE_LEN + 1]);
        stack.keep_row_list(Vec::with_capacity(SPARE_LEN + 1));
        assert!(stack.row_lists.is_empty());
    }
}
