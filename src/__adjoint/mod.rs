//! What the compiled adjoint calls: `f_grad` as generated Rust (a forward
//! sweep, then a reverse sweep over the student's bindings) instead of a
//! recorded tape. Not a public API: names and signatures here change with
//! the macro. The design the emitter follows is `docs/compiled-adjoint.md`.

mod calls;
mod models;
mod operands;

pub use calls::{args, Arg, Args, NotDifferentiable};
pub use models::{carried, model_all_finite, model_finite_with, pop_model, push_model, zero_model};
pub use operands::{f64_of, Operand, ReturnsF64};

use std::borrow::Borrow;
use std::cell::Cell;
use std::ops::{AddAssign, Index, IndexMut, Mul, Neg, SubAssign};

pub use autodiff_core::ValueAndGradient;

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
    /// No value the tape would reject has been observed since the last
    /// [`clear`](Self::clear).
    finite: bool,
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
            finite: true,
        }
    }

    /// Saves a value the reverse sweep reads.
    #[inline(always)]
    pub fn push(&mut self, value: f64) {
        if self.values.len() == self.values.capacity() {
            self.grow_values();
        }
        self.values.push(value);
    }

    /// Makes room out of line, so that the value being pushed need not be
    /// kept in memory across a call on every push of a hot loop.
    #[cold]
    #[inline(never)]
    fn grow_values(&mut self) {
        // `Vec`'s own doubling, so a fresh stack's capacity after one
        // gradient is the pushes rounded up to a power of two.
        self.values.reserve(1);
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

    /// Forgets everything, keeping the memory. A gradient starts with it, so
    /// that records left by a panic in the user's body (an index out of
    /// bounds) cannot leak into the next call.
    #[inline]
    pub fn clear(&mut self) {
        self.values.clear();
        self.control.clear();
        self.finite = true;
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
        self.values.is_empty() && self.control.is_empty()
    }

    /// Heap bytes held (capacity, both stacks).
    pub fn capacity_bytes(&self) -> usize {
        self.values.capacity() * size_of::<f64>() + self.control.capacity() * size_of::<usize>()
    }

    /// The most bytes pushed since the last [`clear`](Self::clear) are at
    /// most this; used by the memory report together with a counter.
    pub fn len_bytes(&self) -> usize {
        self.values.len() * size_of::<f64>() + self.control.len() * size_of::<usize>()
    }
}

/// What a branch condition or an absorbing operation reads, observed by
/// [`Stack::observe`]: a number, a reference to one (a `for` over a
/// slice's items), or a whole array or slice (`if x.is_empty()`), which is
/// checked in every component.
pub trait Observed {
    /// Whether every `f64` in it is finite.
    fn all_finite(&self) -> bool;
}

impl Observed for f64 {
    #[inline(always)]
    fn all_finite(&self) -> bool {
        self.is_finite()
    }
}

macro_rules! always_finite {
    ($($t:ty),*) => {$(
        impl Observed for $t {
            #[inline(always)]
            fn all_finite(&self) -> bool {
                true
            }
        }
    )*};
}
always_finite!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool);

/// A tuple (`best = (i, x[i])`): every component.
macro_rules! observed_tuple {
    ($(($($t:ident $k:tt),+))*) => {$(
        impl<$($t: Observed),+> Observed for ($($t,)+) {
            #[inline]
            fn all_finite(&self) -> bool {
                true $(& self.$k.all_finite())+
            }
        }
    )*};
}
observed_tuple!((A 0) (A 0, B 1) (A 0, B 1, C 2) (A 0, B 1, C 2, D 3));

/// An `f32` is read only where the plain twin rejects it (`x / y` with `y:
/// f32`); observed as it is, so that the adjoint adds no second error.
impl Observed for f32 {
    #[inline(always)]
    fn all_finite(&self) -> bool {
        self.is_finite()
    }
}

impl<T: Observed + ?Sized> Observed for &T {
    #[inline(always)]
    fn all_finite(&self) -> bool {
        (**self).all_finite()
    }
}

impl<T: Observed> Observed for [T] {
    #[inline]
    fn all_finite(&self) -> bool {
        self.iter().fold(true, |ok, item| ok & item.all_finite())
    }
}

impl<T: Observed, const N: usize> Observed for [T; N] {
    #[inline]
    fn all_finite(&self) -> bool {
        self.as_slice().all_finite()
    }
}

impl<T: Observed> Observed for Vec<T> {
    #[inline]
    fn all_finite(&self) -> bool {
        self.as_slice().all_finite()
    }
}

/// The most bytes of stack a thread keeps between gradients (64 MiB, the
/// scratch tape's limit too); a larger gradient frees its stack after.
const KEPT_BYTES: usize = 64 << 20;

thread_local! {
    static STACK: Cell<Stack> = const { Cell::new(Stack::new()) };
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
pub struct Scratch(Stack);

impl Scratch {
    /// Takes this thread's stack, cleared (a fresh one if it is taken).
    #[inline]
    pub fn take() -> Scratch {
        let mut stack = STACK.try_with(Cell::take).unwrap_or_default();
        stack.clear();
        Scratch(stack)
    }
}

impl Drop for Scratch {
    #[inline]
    fn drop(&mut self) {
        if self.0.capacity_bytes() <= KEPT_BYTES {
            let stack = std::mem::take(&mut self.0);
            // Gone only while the thread is torn down: the stack is freed.
            let _ = STACK.try_with(|slot| slot.set(stack));
        }
    }
}

impl std::ops::Deref for Scratch {
    type Target = Stack;
    #[inline(always)]
    fn deref(&self) -> &Stack {
        &self.0
    }
}

impl std::ops::DerefMut for Scratch {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Stack {
        &mut self.0
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

/// The adjoint of a value: same shape, every `f64` component a zero, every
/// integer or `bool` a [`NoAdjoint`]. The emitter declares every adjoint
/// with [`zero`] and never names a type (a proc macro sees none).
pub trait Adjoint {
    /// `f64` for `f64`; `[A; N]` for `[T; N]`; `Vec<A>` for `Vec<T>` and
    /// `[T]` (a slice parameter's gradient is owned); [`NoAdjoint`] for
    /// integers and `bool`.
    type Bar: Clone;
    /// Every value of the type has the same shape (no `Vec` inside), so one
    /// zero serves a whole slice of them: `vec![zero; n]`, which allocates
    /// zeroed memory instead of building each row and copying it in.
    const UNIFORM: bool;
    /// Zeros shaped like `self`.
    fn zero_bar(&self) -> Self::Bar;
    /// The gradient of `self` from its adjoint `bar`: `bar` itself, but
    /// for a model, whose constants come from `self` ([`carried`]).
    #[inline(always)]
    fn carry(&self, bar: Self::Bar) -> Self::Bar {
        bar
    }
}

/// `carry(&model, model_bar)`: the gradient of a parameter holding models,
/// from its adjoint (see [`Adjoint::carry`]).
#[inline(always)]
pub fn carry<T: Adjoint + ?Sized>(value: &T, bar: T::Bar) -> T::Bar {
    value.carry(bar)
}

/// `let mut x_bar = zero(&x);`: the zero adjoint shaped like `x`.
///
/// ```
/// use autodiff::__adjoint::{zero, NoAdjoint};
///
/// let w1: &[[f64; 2]] = &[[1.0, 2.0], [3.0, 4.0]];
/// let mut w1_bar = zero(&w1);
/// w1_bar[1][0] += 0.5;
/// assert_eq!(w1_bar, vec![[0.0, 0.0], [0.5, 0.0]]);
///
/// let n = 3_usize;
/// let mut n_bar = zero(&n); // an integer has no adjoint
/// n_bar += 1.0;
/// assert_eq!(n_bar, NoAdjoint);
/// ```
#[inline(always)]
pub fn zero<T: Adjoint + ?Sized>(value: &T) -> T::Bar {
    value.zero_bar()
}

impl Adjoint for f64 {
    type Bar = f64;
    const UNIFORM: bool = true;
    #[inline(always)]
    fn zero_bar(&self) -> f64 {
        0.0
    }
}

impl<T: Adjoint, const N: usize> Adjoint for [T; N] {
    type Bar = [T::Bar; N];
    const UNIFORM: bool = T::UNIFORM;
    #[inline(always)]
    fn zero_bar(&self) -> Self::Bar {
        std::array::from_fn(|i| self[i].zero_bar())
    }
    #[inline]
    fn carry(&self, bar: Self::Bar) -> Self::Bar {
        let mut items = self.iter();
        bar.map(|bar| match items.next() {
            Some(item) => item.carry(bar),
            None => bar,
        })
    }
}

impl<T: Adjoint> Adjoint for [T] {
    type Bar = Vec<T::Bar>;
    const UNIFORM: bool = false;
    #[inline]
    fn zero_bar(&self) -> Self::Bar {
        match self.first() {
            Some(first) if T::UNIFORM => vec![first.zero_bar(); self.len()],
            _ => self.iter().map(Adjoint::zero_bar).collect(),
        }
    }
    #[inline]
    fn carry(&self, bar: Self::Bar) -> Self::Bar {
        self.iter()
            .zip(bar)
            .map(|(item, bar)| item.carry(bar))
            .collect()
    }
}

impl<T: Adjoint> Adjoint for Vec<T> {
    type Bar = Vec<T::Bar>;
    const UNIFORM: bool = false;
    #[inline]
    fn zero_bar(&self) -> Self::Bar {
        self.as_slice().zero_bar()
    }
    #[inline]
    fn carry(&self, bar: Self::Bar) -> Self::Bar {
        self.as_slice().carry(bar)
    }
}

impl<T: Adjoint + ?Sized> Adjoint for &T {
    type Bar = T::Bar;
    const UNIFORM: bool = T::UNIFORM;
    #[inline(always)]
    fn zero_bar(&self) -> Self::Bar {
        (**self).zero_bar()
    }
    #[inline(always)]
    fn carry(&self, bar: Self::Bar) -> Self::Bar {
        (**self).carry(bar)
    }
}

macro_rules! no_adjoint {
    ($($t:ty),*) => {$(
        impl Adjoint for $t {
            type Bar = NoAdjoint;
            const UNIFORM: bool = true;
            #[inline(always)]
            fn zero_bar(&self) -> NoAdjoint {
                NoAdjoint
            }
        }
    )*};
}
no_adjoint!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool);

/// The adjoint of something with none (an integer, a `bool`, a
/// `#[constant]`): zero-sized; `+=`, `-=`, indexing and arithmetic accept
/// anything and do nothing, so one emitted line serves every type and the
/// optimiser deletes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoAdjoint;

impl<T> AddAssign<T> for NoAdjoint {
    #[inline(always)]
    fn add_assign(&mut self, _: T) {}
}

impl<T> SubAssign<T> for NoAdjoint {
    #[inline(always)]
    fn sub_assign(&mut self, _: T) {}
}

impl<T> Mul<T> for NoAdjoint {
    type Output = NoAdjoint;
    #[inline(always)]
    fn mul(self, _: T) -> NoAdjoint {
        NoAdjoint
    }
}

impl Neg for NoAdjoint {
    type Output = NoAdjoint;
    #[inline(always)]
    fn neg(self) -> NoAdjoint {
        NoAdjoint
    }
}

impl<I> Index<I> for NoAdjoint {
    type Output = NoAdjoint;
    #[inline(always)]
    fn index(&self, _: I) -> &NoAdjoint {
        self
    }
}

impl<I> IndexMut<I> for NoAdjoint {
    #[inline(always)]
    fn index_mut(&mut self, _: I) -> &mut NoAdjoint {
        self
    }
}

/// `x_bar += y_bar` where `y` turned out to be an integer: nothing flows.
///
/// Not recommended: a student's `s += n` with `n: usize` lists the impls
/// of `f64 += _`, and this one would name the adjoint's internals there.
#[diagnostic::do_not_recommend]
impl AddAssign<NoAdjoint> for f64 {
    #[inline(always)]
    fn add_assign(&mut self, _: NoAdjoint) {}
}

/// `n_bar += m_bar` of two integers: a model's integer field, whose
/// adjoint is the field itself (the model's adjoint is a model), receives
/// the adjoint of a binding it initialised (`let width = net.width;`).
macro_rules! integer_takes_no_adjoint {
    ($($t:ty),*) => {$(
        #[diagnostic::do_not_recommend]
        impl AddAssign<NoAdjoint> for $t {
            #[inline(always)]
            fn add_assign(&mut self, _: NoAdjoint) {}
        }
        #[diagnostic::do_not_recommend]
        impl SubAssign<NoAdjoint> for $t {
            #[inline(always)]
            fn sub_assign(&mut self, _: NoAdjoint) {}
        }
    )*};
}
integer_takes_no_adjoint!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// `x_bar -= y_bar` where `y` turned out to be an integer.
///
/// Not recommended: a student's `s += n` with `n: usize` lists the impls
/// of `f64 += _`, and this one would name the adjoint's internals there.
#[diagnostic::do_not_recommend]
impl SubAssign<NoAdjoint> for f64 {
    #[inline(always)]
    fn sub_assign(&mut self, _: NoAdjoint) {}
}

/// A differentiable parameter and its gradient (the shape [`zero`] gave),
/// checked for finiteness together.
///
/// Nested arrays are flattened (`[[f64; 64]]` is one run of `f64`), so a
/// whole parameter is one pass of [`finite_pairs`]; only a `Vec` of `Vec`s
/// goes row by row.
pub trait Checked<B> {
    /// Whether every `f64` component of both is finite.
    fn finite_with(&self, bar: &B) -> bool;

    /// The same over two runs of equal length.
    #[inline]
    fn finite_slice(items: &[Self], bars: &[B]) -> bool
    where
        Self: Sized,
    {
        items
            .iter()
            .zip(bars)
            .fold(true, |ok, (item, bar)| ok & item.finite_with(bar))
    }
}

impl Checked<f64> for f64 {
    #[inline(always)]
    fn finite_with(&self, bar: &f64) -> bool {
        self.is_finite() & bar.is_finite()
    }

    #[inline]
    fn finite_slice(items: &[f64], bars: &[f64]) -> bool {
        finite_pairs(items, bars)
    }
}

impl<T: Checked<B>, B, const N: usize> Checked<[B; N]> for [T; N] {
    #[inline]
    fn finite_with(&self, bar: &[B; N]) -> bool {
        T::finite_slice(self, bar)
    }

    #[inline]
    fn finite_slice(items: &[[T; N]], bars: &[[B; N]]) -> bool {
        T::finite_slice(items.as_flattened(), bars.as_flattened())
    }
}

impl<T: Checked<B>, B> Checked<Vec<B>> for [T] {
    #[inline]
    fn finite_with(&self, bar: &Vec<B>) -> bool {
        T::finite_slice(self, bar)
    }
}

impl<T: Checked<B>, B> Checked<Vec<B>> for Vec<T> {
    #[inline]
    fn finite_with(&self, bar: &Vec<B>) -> bool {
        T::finite_slice(self, bar)
    }
}

impl<T: Checked<B> + ?Sized, B> Checked<B> for &T {
    #[inline(always)]
    fn finite_with(&self, bar: &B) -> bool {
        (**self).finite_with(bar)
    }
}

/// Whether every item of `items` and `bars` is finite, in one pass:
/// `v · 0` is ±0 for a finite `v` and NaN otherwise, summed in eight
/// independent lanes so that the loop vectorises on baseline x86-64, which
/// a fold of `is_finite` does not.
/// Runs of unequal length (impossible for `zero`'s shapes) are checked up
/// to the shorter.
///
/// ```
/// use autodiff::__adjoint::finite_pairs;
///
/// assert!(finite_pairs(&[1.0, -2.0, 3.0], &[0.5, 1e308, -0.0]));
/// assert!(!finite_pairs(&[1.0, -2.0, 3.0], &[0.5, f64::NAN, 0.0]));
/// assert!(!finite_pairs(&[f64::NEG_INFINITY], &[0.0]));
/// ```
#[inline]
pub fn finite_pairs(items: &[f64], bars: &[f64]) -> bool {
    let length = items.len().min(bars.len());
    let (items, bars) = (&items[..length], &bars[..length]);
    let mut lanes = [0.0_f64; 8];
    let (item_chunks, bar_chunks) = (items.chunks_exact(4), bars.chunks_exact(4));
    let (item_rest, bar_rest) = (item_chunks.remainder(), bar_chunks.remainder());
    for (item, bar) in item_chunks.zip(bar_chunks) {
        for k in 0..4 {
            lanes[k] += item[k] * 0.0;
            lanes[4 + k] += bar[k] * 0.0;
        }
    }
    let mut total: f64 = lanes.iter().sum();
    for (item, bar) in item_rest.iter().zip(bar_rest) {
        total += item * 0.0 + bar * 0.0;
    }
    total == 0.0
}

/// The number type the sweeps' arithmetic needs: the engine's, which the
/// derivative rules are written over.
pub use autodiff_core::Real;

/// A stack of `f64` values the generic sweep saves: the primal parts are
/// enough for `f64`; a dual-number sweep needs its own stack of duals, which
/// this keeps room for without paying for it now.
pub trait Saves<R> {
    /// Saves `value`.
    fn save(&mut self, value: R);
    /// The last saved value.
    fn restore(&mut self) -> R;
}

impl Saves<f64> for Stack {
    #[inline(always)]
    fn save(&mut self, value: f64) {
        self.push(value);
    }
    #[inline(always)]
    fn restore(&mut self) -> f64 {
        self.pop()
    }
}

/// What the reverse sweep does with a whole adjoint (an array's, a
/// `Vec`'s, a scalar's) where the emitter cannot see whether it is a
/// scalar: `let a = b;` of two arrays, `state = next;`.
pub trait Bar: Clone {
    /// `self += other`, component by component.
    fn add_from(&mut self, other: &Self);
    /// Zeros shaped like `self`.
    fn zeroed(&self) -> Self;
}

impl Bar for f64 {
    #[inline(always)]
    fn add_from(&mut self, other: &f64) {
        *self += *other;
    }
    #[inline(always)]
    fn zeroed(&self) -> f64 {
        0.0
    }
}

impl Bar for NoAdjoint {
    #[inline(always)]
    fn add_from(&mut self, _: &NoAdjoint) {}
    #[inline(always)]
    fn zeroed(&self) -> NoAdjoint {
        NoAdjoint
    }
}

impl<T: Bar, const N: usize> Bar for [T; N] {
    #[inline]
    fn add_from(&mut self, other: &Self) {
        for (a, b) in self.iter_mut().zip(other) {
            a.add_from(b);
        }
    }
    #[inline]
    fn zeroed(&self) -> Self {
        std::array::from_fn(|i| self[i].zeroed())
    }
}

impl<T: Bar> Bar for Vec<T> {
    #[inline]
    fn add_from(&mut self, other: &Self) {
        for (a, b) in self.iter_mut().zip(other) {
            a.add_from(b);
        }
    }
    #[inline]
    fn zeroed(&self) -> Self {
        self.iter().map(Bar::zeroed).collect()
    }
}

/// A tuple's adjoint is the tuple of its components' (`let best = (i,
/// x[i]);` has `best_bar: (f64, f64)`, whose integer slot no one reads).
macro_rules! bar_tuple {
    ($(($($t:ident $k:tt),+))*) => {$(
        impl<$($t: Bar),+> Bar for ($($t,)+) {
            #[inline]
            fn add_from(&mut self, other: &Self) {
                $(self.$k.add_from(&other.$k);)+
            }
            #[inline]
            fn zeroed(&self) -> Self {
                ($(self.$k.zeroed(),)+)
            }
        }
    )*};
}
bar_tuple!((A 0) (A 0, B 1) (A 0, B 1, C 2) (A 0, B 1, C 2, D 3));

/// `a_bar += b_bar` for adjoints of any shape.
///
/// ```
/// let mut a = vec![[1.0, 2.0]];
/// autodiff::__adjoint::accumulate(&mut a, &vec![[0.5, 0.5]]);
/// assert_eq!(a, vec![[1.5, 2.5]]);
/// ```
#[inline(always)]
pub fn accumulate<B: AddFrom<O>, O>(bar: &mut B, other: &O) {
    bar.add_from_other(other);
}

/// What [`accumulate`] adds: an adjoint of the same shape ([`Bar`]), or
/// nothing into a model's integer field, whose adjoint is the field
/// itself (`let width = net.width;` gives `width` a [`NoAdjoint`]).
pub trait AddFrom<O> {
    /// `self += other`, component by component.
    fn add_from_other(&mut self, other: &O);
}

impl<B: Bar> AddFrom<B> for B {
    #[inline(always)]
    fn add_from_other(&mut self, other: &B) {
        self.add_from(other);
    }
}

macro_rules! integer_adds_no_adjoint {
    ($($t:ty),*) => {$(
        impl AddFrom<NoAdjoint> for $t {
            #[inline(always)]
            fn add_from_other(&mut self, _: &NoAdjoint) {}
        }
    )*};
}
integer_adds_no_adjoint!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool);

/// The adjoint `bar` holds, leaving zeros of its shape: the reverse of an
/// assignment that overwrites a whole array.
///
/// ```
/// let mut a = [1.0, 2.0];
/// assert_eq!(autodiff::__adjoint::take(&mut a), [1.0, 2.0]);
/// assert_eq!(a, [0.0, 0.0]);
/// ```
#[inline(always)]
pub fn take<B: Bar>(bar: &mut B) -> B {
    let zero = bar.zeroed();
    std::mem::replace(bar, zero)
}

/// Zeros shaped like another adjoint: the adjoint of a loop-local copy
/// (`let row = w[j];`).
#[inline(always)]
pub fn zero_like<B: Bar>(bar: &B) -> B {
    bar.zeroed()
}

/// `∂clamp(x, lo, hi)` by `x`, `lo` and `hi`, as the tape takes them: it
/// records `max(min(x, hi), lo)`, so each is a product of `min`'s and
/// `max`'s rules (1 inside or at the bound clamped to, 1/2 at a tie).
///
/// ```
/// use autodiff::__adjoint::clamp_partials;
///
/// assert_eq!(clamp_partials(0.5, 0.0, 1.0), (1.0, 0.0, 0.0));
/// assert_eq!(clamp_partials(2.0, 0.0, 1.0), (0.0, 0.0, 1.0));
/// ```
#[inline(always)]
pub fn clamp_partials(
    x: impl Borrow<f64>,
    lo: impl Borrow<f64>,
    hi: impl Borrow<f64>,
) -> (f64, f64, f64) {
    let (x, lo, hi) = (*x.borrow(), *lo.borrow(), *hi.borrow());
    let (below_x, below_hi) = autodiff_core::rules::min_partials(x, hi);
    let (kept, raised) = autodiff_core::rules::max_partials(x.min(hi), lo);
    (kept * below_x, raised, kept * below_hi)
}

pub mod rules {
    //! The derivative rules as the reverse sweep calls them: one function
    //! per rule the table of operations names, forwarding to the engine's
    //! (`autodiff_core::rules`), so the compiled adjoint and the tape take
    //! the same derivative. Each takes its operands as `impl Borrow<f64>`,
    //! since the sweep may read a value through a reference (`for x in
    //! xs.iter()`).
    //!
    //! ```
    //! use autodiff::__adjoint::rules;
    //!
    //! let z = 0.5_f64;
    //! assert_eq!(rules::tanh_partial(&z), autodiff::rules::tanh_partial(z));
    //! assert_eq!(rules::powi_partial(2.0, 3), 12.0);
    //! assert_eq!(rules::max_partials(1.0, 1.0), (0.5, 0.5));
    //! ```

    use std::borrow::Borrow;

    /// Expands the table into one forwarding function per rule.
    macro_rules! forward_rules {
        ($($variant:ident $name:literal $spelling:ident $(($($how:tt),*))? $operands:literal $rule:ident $(($function:ident))? $absorbs:ident $computes:literal $derivative:literal;)*) => {
            $(forward_rules!(@rule $name $rule $(($function))?);)*
        };
        (@rule $name:literal none) => {};
        (@rule $name:literal zero) => {};
        (@rule $name:literal operand($function:ident)) => {
            #[doc = concat!("The derivative of `", $name, "` from its operand.")]
            #[inline(always)]
            pub fn $function(x: impl Borrow<f64>) -> f64 {
                autodiff_core::rules::$function(*x.borrow())
            }
        };
        (@rule $name:literal result($function:ident)) => {
            #[doc = concat!("The derivative of `", $name, "` from its result.")]
            #[inline(always)]
            pub fn $function(y: impl Borrow<f64>) -> f64 {
                autodiff_core::rules::$function(*y.borrow())
            }
        };
        (@rule $name:literal operands($function:ident)) => {
            #[doc = concat!("The partials of `", $name, "` by each operand.")]
            #[inline(always)]
            pub fn $function(a: impl Borrow<f64>, b: impl Borrow<f64>) -> (f64, f64) {
                autodiff_core::rules::$function(*a.borrow(), *b.borrow())
            }
        };
        // The exponent is the recording twin's `PowiExponent`: an `i32`,
        // any other number only in a body whose `x.powi(n)` the plain twin
        // rejects (then the adjoint adds no second error).
        (@rule $name:literal power($function:ident)) => {
            #[doc = concat!("The derivative of `", $name, "` by its base.")]
            #[inline(always)]
            pub fn $function(x: impl Borrow<f64>, n: impl crate::__private::PowiExponent) -> f64 {
                autodiff_core::rules::$function(*x.borrow(), n.exponent())
            }
        };
    }

    autodiff_ops_table::operations!(forward_rules);
}

/// A gradient of any parameter shape, written to and read back from the
/// [`Stack`]: the forward/reverse pair of a function that keeps the tape
/// pushes its tape gradient, and its reverse adds `value_bar ×` it.
pub trait Spread {
    /// Pushes every component, in order.
    fn push_all(&self, stack: &mut Stack);
    /// Pops every component (last first) and adds `scale ×` it to `self`.
    fn pop_scaled(&mut self, stack: &mut Stack, scale: f64);
}

impl Spread for f64 {
    #[inline]
    fn push_all(&self, stack: &mut Stack) {
        stack.push(*self);
    }
    #[inline]
    fn pop_scaled(&mut self, stack: &mut Stack, scale: f64) {
        *self += scale * stack.pop();
    }
}

impl<T: Spread> Spread for [T] {
    fn push_all(&self, stack: &mut Stack) {
        self.iter().for_each(|item| item.push_all(stack));
    }
    fn pop_scaled(&mut self, stack: &mut Stack, scale: f64) {
        self.iter_mut()
            .rev()
            .for_each(|item| item.pop_scaled(stack, scale));
    }
}

impl<T: Spread, const N: usize> Spread for [T; N] {
    fn push_all(&self, stack: &mut Stack) {
        self.as_slice().push_all(stack);
    }
    fn pop_scaled(&mut self, stack: &mut Stack, scale: f64) {
        self.as_mut_slice().pop_scaled(stack, scale);
    }
}

impl<T: Spread> Spread for Vec<T> {
    fn push_all(&self, stack: &mut Stack) {
        self.as_slice().push_all(stack);
    }
    fn pop_scaled(&mut self, stack: &mut Stack, scale: f64) {
        self.as_mut_slice().pop_scaled(stack, scale);
    }
}

/// A function's whole gradient: one component per differentiable
/// parameter, pushed in order and popped last first.
macro_rules! spread_tuple {
    ($($t:ident $i:tt),*) => {
        impl<$($t: Spread),*> Spread for ($($t,)*) {
            #[inline]
            fn push_all(&self, _stack: &mut Stack) {
                $(self.$i.push_all(_stack);)*
            }
            #[inline]
            fn pop_scaled(&mut self, _stack: &mut Stack, _scale: f64) {
                spread_tuple!(@pop self _stack _scale [] $($i)*);
            }
        }
    };
    (@pop $self:ident $stack:ident $scale:ident [$($done:tt)*]) => {
        $($self.$done.pop_scaled($stack, $scale);)*
    };
    (@pop $self:ident $stack:ident $scale:ident [$($done:tt)*] $first:tt $($rest:tt)*) => {
        spread_tuple!(@pop $self $stack $scale [$first $($done)*] $($rest)*)
    };
}

spread_tuple!();
spread_tuple!(A 0, B 1);
spread_tuple!(A 0, B 1, C 2);
spread_tuple!(A 0, B 1, C 2, D 3);
spread_tuple!(A 0, B 1, C 2, D 3, E 4);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// What an `f_forward` returns to the caller's forward sweep: the value of
/// `f`, with its gradient pushed for `f_reverse`; `result` is `None` when
/// `f`'s adjoint (or tape) failed, and then the caller's sweep fails too.
///
/// ```
/// use autodiff::__adjoint::{forwarded, Spread, Stack};
/// use autodiff::ValueAndGradient;
///
/// let mut stack = Stack::new();
/// let result = ValueAndGradient { value: 2.0, gradient: (3.0, [4.0, 5.0]) };
/// assert_eq!(forwarded(Some(result), &mut stack), 2.0);
/// let mut bars = (0.0, [0.0; 2]);
/// bars.pop_scaled(&mut stack, 10.0);
/// assert_eq!(bars, (30.0, [40.0, 50.0]));
/// assert!(forwarded::<f64>(None, &mut stack).is_nan() && !stack.finite());
/// ```
#[inline(always)]
pub fn forwarded<G: Spread>(result: Option<ValueAndGradient<G>>, stack: &mut Stack) -> f64 {
    match result {
        Some(result) => {
            result.gradient.push_all(stack);
            result.value
        }
        None => stack.failed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_last_in_first_out() {
        let mut stack = Stack::new();
        stack.push(1.0);
        stack.push_trips(7);
        stack.push(2.0);
        stack.push_arm(3);
        assert_eq!(stack.pop_arm(), 3);
        assert_eq!(stack.pop(), 2.0);
        assert_eq!(stack.pop_trips(), 7);
        assert_eq!(stack.pop(), 1.0);
        assert!(stack.is_empty());
    }

    #[test]
    fn an_empty_stack_gives_values_the_checks_reject() {
        let mut stack = Stack::new();
        assert!(stack.pop().is_nan());
        assert_eq!(stack.pop_trips(), 0);
        assert_eq!(stack.pop_arm(), u32::MAX);
    }

    #[test]
    fn the_thread_stack_is_reused_and_cleared() {
        with_stack(|stack| {
            for k in 0..1000 {
                stack.push(f64::from(k));
            }
        });
        let (empty, capacity) = with_stack(|stack| (stack.is_empty(), stack.capacity_bytes()));
        assert!(empty);
        assert!(capacity >= 1000 * size_of::<f64>());
    }

    #[test]
    fn adjoints_take_the_shape_of_their_values() {
        let v: Vec<[f64; 3]> = vec![[1.0; 3]; 2];
        assert_eq!(zero(&v), vec![[0.0; 3]; 2]);
        let s: &[f64] = &[1.0, 2.0];
        assert_eq!(zero(&s), vec![0.0, 0.0]);
        assert_eq!(zero(&[[2.0_f64; 2]; 3]), [[0.0; 2]; 3]);
        assert_eq!(zero(&[1_usize, 2]), [NoAdjoint, NoAdjoint]);
        let ragged: &[Vec<f64>] = &[vec![1.0], vec![2.0, 3.0]];
        assert_eq!(zero(&ragged), vec![vec![0.0], vec![0.0, 0.0]]);
        let rows: &[[Vec<f64>; 2]] = &[[vec![1.0], vec![]], [vec![], vec![2.0, 3.0]]];
        assert_eq!(
            zero(&rows),
            vec![[vec![0.0], vec![]], [vec![], vec![0.0, 0.0]]]
        );
        assert_eq!(size_of::<[NoAdjoint; 64]>(), 0);
        let mut total = 1.5;
        total += NoAdjoint * 3;
        assert_eq!(total, 1.5);
    }

    #[test]
    fn finiteness_is_seen_in_every_component() {
        let ok = |param: &[[f64; 3]], bar: &Vec<[f64; 3]>| param.finite_with(bar);
        let mut param = vec![[1.0, 2.0, 3.0]; 5];
        let mut bar = vec![[0.5; 3]; 5];
        assert!(ok(&param, &bar));
        for (row, column) in [(0, 0), (2, 1), (4, 2)] {
            param[row][column] = f64::INFINITY;
            assert!(!ok(&param, &bar));
            param[row][column] = 1.0;
            bar[row][column] = f64::NAN;
            assert!(!ok(&param, &bar));
            bar[row][column] = 0.5;
        }
        let rows = vec![vec![1.0, 2.0], vec![3.0]];
        assert!(rows.finite_with(&vec![vec![0.0, 0.0], vec![0.0]]));
        assert!(!rows.finite_with(&vec![vec![0.0, 0.0], vec![f64::NAN]]));
        assert!(!2.0.finite_with(&f64::NEG_INFINITY));
        let mut stack = Stack::new();
        stack.observe(1.0);
        stack.observe_param(&[[1.0, 2.0]], &[[0.0, 0.0]]);
        assert!(stack.finite());
        stack.observe(f64::NEG_INFINITY);
        stack.observe(1.0);
        assert!(!stack.finite());
        stack.clear();
        assert!(stack.finite());
    }
}
