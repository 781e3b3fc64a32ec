//! Adjoints of every shape: declared with [`zero`] (an integer's is a
//! [`NoAdjoint`]), checked with the parameters at the end ([`Checked`]),
//! and added, taken and copied whole where the emitter cannot see the
//! shape ([`Bar`]).

use super::*;

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
    /// What a caller passes a vector-valued callee for the adjoint of a
    /// constant argument it marked unused (`Stack::unused_args`), which
    /// the callee never reads: an empty `Vec` (no allocation) where the
    /// adjoint is one, else zeros.
    #[inline(always)]
    fn unused_bar(&self) -> Self::Bar {
        self.zero_bar()
    }
    /// The gradient of `self` from its adjoint `bar`: `bar` itself, but
    /// for a model, whose constants come from `self` ([`carried`]).
    #[inline(always)]
    fn carry(&self, bar: Self::Bar) -> Self::Bar {
        bar
    }
    /// Zeros shaped like `self` for the adjoint of a constant argument,
    /// which a callee's reverse adds its part of the gradient into and the
    /// caller then drops ([`spare`]): a `Vec` of numbers comes from the
    /// stack's spares ([`Stack::zeros`]).
    #[inline(always)]
    fn spare_bar(&self, stack: &mut Stack) -> Self::Bar {
        let _ = stack;
        self.zero_bar()
    }
    /// Gives back what [`spare_bar`](Self::spare_bar) took, once dropped
    /// ([`give_spare`]).
    #[inline(always)]
    fn give_spare_bar(bar: Self::Bar, stack: &mut Stack) {
        let _ = (bar, stack);
    }
    /// [`spare_bar`](Self::spare_bar) of a slice of these: numbers from
    /// the stack's spares.
    #[inline]
    fn spare_items(items: &[Self], stack: &mut Stack) -> Vec<Self::Bar>
    where
        Self: Sized,
    {
        if Self::UNIFORM {
            items.zero_bar()
        } else {
            items.iter().map(|item| item.spare_bar(stack)).collect()
        }
    }
    /// Whether `other` has `self`'s shape (every `Vec`'s length, at every
    /// depth): a row assigned whole (`m[1] = f(x);`) keeps the shape its
    /// adjoint was declared with only if so ([`same_shape`]).
    #[inline(always)]
    fn same_shape(&self, other: &Self) -> bool {
        let _ = other;
        true
    }
    /// [`give_spare_bar`](Self::give_spare_bar) of a slice of these.
    #[inline]
    fn give_spare_items(bar: Vec<Self::Bar>, stack: &mut Stack)
    where
        Self: Sized,
    {
        if !Self::UNIFORM {
            for item in bar {
                Self::give_spare_bar(item, stack);
            }
        }
    }
}

/// `&mut spare(stack, &x)` for a constant argument's adjoint in a call's
/// reverse, given back after it with [`give_spare`]: zeros shaped like `x`,
/// which a `Vec` of numbers takes from the stack's spares instead of
/// allocating on every call (a helper called once per hidden unit with
/// the same input data).
///
/// ```
/// use autodiff::__adjoint::{give_spare, spare, Stack};
///
/// let mut stack = Stack::new();
/// let x = vec![0.5, 2.0];
/// let mut x_bar = spare(&mut stack, &x);
/// x_bar[1] += 3.0; // the callee's part, dropped
/// give_spare(&mut stack, &x, x_bar);
/// assert_eq!(spare(&mut stack, &x), [0.0, 0.0]); // the same memory, zeroed
/// ```
#[inline(always)]
pub fn spare<T: Adjoint + ?Sized>(stack: &mut Stack, value: &T) -> T::Bar {
    value.spare_bar(stack)
}

/// Gives back an adjoint [`spare`] made for `value`.
#[inline(always)]
pub fn give_spare<T: Adjoint + ?Sized>(stack: &mut Stack, value: &T, bar: T::Bar) {
    let _ = value;
    T::give_spare_bar(bar, stack);
}

/// The adjoint a caller passes for a constant argument it marked unused
/// (see [`Adjoint::unused_bar`]).
///
/// ```
/// use autodiff::__adjoint::unused;
///
/// let x = vec![1.0, 2.0];
/// assert!(unused(&x).is_empty()); // a `Vec`'s: nothing allocated
/// assert_eq!(unused(&[1.0, 2.0]), [0.0, 0.0]); // an array's: zeros
/// ```
#[inline(always)]
pub fn unused<T: Adjoint + ?Sized>(value: &T) -> T::Bar {
    value.unused_bar()
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
    #[inline]
    fn spare_items(items: &[f64], stack: &mut Stack) -> Vec<f64> {
        stack.zeros(items.len())
    }
    #[inline]
    fn give_spare_items(bar: Vec<f64>, stack: &mut Stack) {
        stack.recycle(bar);
    }
}

impl<T: Adjoint, const N: usize> Adjoint for [T; N] {
    type Bar = [T::Bar; N];
    const UNIFORM: bool = T::UNIFORM;
    #[inline]
    fn same_shape(&self, other: &Self) -> bool {
        T::UNIFORM || self.iter().zip(other).all(|(a, b)| a.same_shape(b))
    }
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
    fn same_shape(&self, other: &Self) -> bool {
        self.len() == other.len()
            && (T::UNIFORM || self.iter().zip(other).all(|(a, b)| a.same_shape(b)))
    }
    #[inline]
    fn zero_bar(&self) -> Self::Bar {
        match self.first() {
            Some(first) if T::UNIFORM => zeros_of(first.zero_bar(), self.len()),
            _ => self.iter().map(Adjoint::zero_bar).collect(),
        }
    }
    #[inline(always)]
    fn unused_bar(&self) -> Self::Bar {
        Vec::new()
    }
    #[inline]
    fn carry(&self, bar: Self::Bar) -> Self::Bar {
        self.iter()
            .zip(bar)
            .map(|(item, bar)| item.carry(bar))
            .collect()
    }
    #[inline(always)]
    fn spare_bar(&self, stack: &mut Stack) -> Self::Bar {
        T::spare_items(self, stack)
    }
    #[inline(always)]
    fn give_spare_bar(bar: Self::Bar, stack: &mut Stack) {
        T::give_spare_items(bar, stack);
    }
}

/// `vec![zero; n]`, filled in place where it is small: `vec!` of a zero
/// asks the allocator for zeroed memory (`calloc`), which glibc serves
/// without its per-thread cache, at about four times the cost of a plain
/// allocation and a fill for a row of a few dozen numbers (a gradient's
/// rows, allocated anew by every gradient); a large one keeps `calloc`,
/// whose fresh pages come zeroed.
#[inline]
fn zeros_of<B: Clone>(zero: B, n: usize) -> Vec<B> {
    if n.saturating_mul(size_of::<B>()) <= SMALL_ZEROS {
        let mut zeros = Vec::with_capacity(n);
        zeros.resize(n, zero);
        zeros
    } else {
        vec![zero; n]
    }
}

/// The largest adjoint, in bytes, that [`zeros_of`] fills in place.
const SMALL_ZEROS: usize = 4096;

impl<T: Adjoint> Adjoint for Vec<T> {
    type Bar = Vec<T::Bar>;
    const UNIFORM: bool = false;
    #[inline]
    fn same_shape(&self, other: &Self) -> bool {
        self.as_slice().same_shape(other.as_slice())
    }
    #[inline]
    fn zero_bar(&self) -> Self::Bar {
        self.as_slice().zero_bar()
    }
    #[inline(always)]
    fn unused_bar(&self) -> Self::Bar {
        Vec::new()
    }
    #[inline]
    fn carry(&self, bar: Self::Bar) -> Self::Bar {
        self.as_slice().carry(bar)
    }
    #[inline(always)]
    fn spare_bar(&self, stack: &mut Stack) -> Self::Bar {
        self.as_slice().spare_bar(stack)
    }
    #[inline(always)]
    fn give_spare_bar(bar: Self::Bar, stack: &mut Stack) {
        T::give_spare_items(bar, stack);
    }
}

impl<T: Adjoint + ?Sized> Adjoint for &T {
    type Bar = T::Bar;
    const UNIFORM: bool = T::UNIFORM;
    #[inline(always)]
    fn same_shape(&self, other: &Self) -> bool {
        (**self).same_shape(*other)
    }
    #[inline(always)]
    fn zero_bar(&self) -> Self::Bar {
        (**self).zero_bar()
    }
    #[inline(always)]
    fn unused_bar(&self) -> Self::Bar {
        (**self).unused_bar()
    }
    #[inline(always)]
    fn carry(&self, bar: Self::Bar) -> Self::Bar {
        (**self).carry(bar)
    }
    #[inline(always)]
    fn spare_bar(&self, stack: &mut Stack) -> Self::Bar {
        (**self).spare_bar(stack)
    }
    #[inline(always)]
    fn give_spare_bar(bar: Self::Bar, stack: &mut Stack) {
        T::give_spare_bar(bar, stack);
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

/// A tuple, the value of a call of a function returning one (`let (h, s)
/// = step(&x);`, read as `step_out.0`, `step_out.1`): component by
/// component.
///
/// ```
/// use autodiff::__adjoint::zero;
///
/// let value = (vec![1.0, 2.0], 3.0, 4_usize);
/// let mut bar = zero(&value);
/// bar.0[1] += 0.5;
/// assert_eq!((bar.0, bar.1), (vec![0.0, 0.5], 0.0));
/// ```
macro_rules! adjoint_tuple {
    ($(($($t:ident $k:tt),+))*) => {$(
        impl<$($t: Adjoint),+> Adjoint for ($($t,)+) {
            type Bar = ($($t::Bar,)+);
            const UNIFORM: bool = true $(&& $t::UNIFORM)+;
            #[inline]
            fn zero_bar(&self) -> Self::Bar {
                ($(self.$k.zero_bar(),)+)
            }
            #[inline]
            fn carry(&self, bar: Self::Bar) -> Self::Bar {
                ($(self.$k.carry(bar.$k),)+)
            }
        }
    )*};
}
adjoint_tuple!((A 0) (A 0, B 1) (A 0, B 1, C 2) (A 0, B 1, C 2, D 3) (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5));

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

/// Whether every item of `items` and `bars` is finite: [`finite_items`]
/// of each. Runs of unequal length (impossible for `zero`'s shapes) are
/// checked up to the shorter.
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
    finite_items(&items[..length]) & finite_items(&bars[..length])
}

/// Whether every item is finite: [`finite_parts`] of the items.
///
/// ```
/// use autodiff::__adjoint::finite_items;
///
/// assert!(finite_items(&[1.0, -2.0, 3.0, 0.5, 1e308, -0.0, 7.0, 8.0, 9.0]));
/// assert!(!finite_items(&[1.0, -2.0, 3.0, 0.5, 1e308, -0.0, 7.0, 8.0, f64::NAN]));
/// assert!(!finite_items(&[f64::NEG_INFINITY]));
/// assert!(finite_items(&[]));
/// ```
#[inline]
pub fn finite_items(items: &[f64]) -> bool {
    finite_parts(items, |&item| [item])
}

/// Whether every part of every item is finite (`parts` gives an item's
/// `f64`s: one for a number, two for a `Dual`), in one pass: `v · 0` is ±0
/// for a finite `v` and NaN otherwise, summed in independent lanes so that
/// the loop vectorises on baseline x86-64, which a fold of `is_finite`
/// does not (a gradient's entry and exit scans of a 10⁶-item slice took
/// 1.2× the time of this one).
///
/// ```
/// use autodiff::__adjoint::finite_parts;
///
/// let pairs = [(1.0, 2.0); 9];
/// assert!(finite_parts(&pairs, |&(a, b)| [a, b]));
/// let mut bad = pairs;
/// bad[8].1 = f64::INFINITY;
/// assert!(!finite_parts(&bad, |&(a, b)| [a, b]));
/// ```
#[inline]
pub fn finite_parts<T, const P: usize>(items: &[T], parts: impl Fn(&T) -> [f64; P]) -> bool {
    let mut lanes = [[0.0_f64; P]; 8];
    let chunks = items.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (lane, item) in lanes.iter_mut().zip(chunk) {
            for (sum, part) in lane.iter_mut().zip(parts(item)) {
                *sum += part * 0.0;
            }
        }
    }
    let mut total: f64 = lanes.iter().flatten().sum();
    for item in rest {
        total += parts(item).iter().map(|part| part * 0.0).sum::<f64>();
    }
    total == 0.0
}

/// scalar: `let a = b;` of two arrays, `state = next;`.
pub trait Bar: Clone {
    /// `self += other`, component by component.
    fn add_from(&mut self, other: &Self);
    /// Zeros shaped like `self`.
    fn zeroed(&self) -> Self;
    /// Gives the `Vec`s of numbers in `self` to the stack's spares once
    /// the reverse sweep is done with it ([`recycle`]); anything else is
    /// dropped.
    #[inline(always)]
    fn give_spares(self, stack: &mut Stack)
    where
        Self: Sized,
    {
        let _ = (self, stack);
    }
    /// [`give_spares`](Self::give_spares) of a `Vec` of these.
    #[inline]
    fn give_spare_vec(items: Vec<Self>, stack: &mut Stack)
    where
        Self: Sized,
    {
        for item in items {
            item.give_spares(stack);
        }
    }
}

/// `recycle(stack, row_bar)`: the adjoint of a `Vec` bound in a loop's
/// body, whose reversed iteration is over, given to the stack's spares for
/// the next adjoint of its shape ([`spare`], [`Stack::zeros`]).
///
/// ```
/// use autodiff::__adjoint::{recycle, spare, Stack};
///
/// let mut stack = Stack::new();
/// let row = vec![vec![1.0, 2.0], vec![3.0]];
/// let mut row_bar = spare(&mut stack, &row);
/// row_bar[1][0] += 0.5;
/// recycle(&mut stack, row_bar);
/// assert_eq!(spare(&mut stack, &row), vec![vec![0.0, 0.0], vec![0.0]]);
/// ```
#[inline(always)]
pub fn recycle<B: Bar>(stack: &mut Stack, bar: B) {
    bar.give_spares(stack);
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
    #[inline]
    fn give_spare_vec(items: Vec<f64>, stack: &mut Stack) {
        stack.recycle(items);
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
    #[inline(always)]
    fn give_spares(self, stack: &mut Stack) {
        T::give_spare_vec(self, stack);
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
bar_tuple!((A 0) (A 0, B 1) (A 0, B 1, C 2) (A 0, B 1, C 2, D 3) (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5));

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

/// The adjoint of `a.to_vec()` of an array `a`, a `Vec`, goes back into
/// the array's: item by item, the lengths being the same.
///
/// ```
/// let mut a = [1.0, 2.0];
/// autodiff::__adjoint::accumulate(&mut a, &vec![0.5, 0.25]);
/// assert_eq!(a, [1.5, 2.25]);
/// ```
impl<B: Bar, const N: usize> AddFrom<Vec<B>> for [B; N] {
    #[inline]
    fn add_from_other(&mut self, other: &Vec<B>) {
        assert_eq!(other.len(), N, "an array's adjoint takes one of its length");
        for (bar, other) in self.iter_mut().zip(other) {
            bar.add_from(other);
        }
    }
}

/// A number's adjoint added into a model's integer field (`let k =
/// net.width + 1;`, read as an index): an integer has no adjoint, so it
/// takes nothing, on `f64`s and on duals alike.
///
/// ```
/// let mut width = 3_usize;
/// autodiff::__adjoint::accumulate(&mut width, &0.5);
/// assert_eq!(width, 3);
/// autodiff::__adjoint::accumulate(&mut width, &7_usize);
/// assert_eq!(width, 3);
/// ```
macro_rules! integer_adds_no_adjoint {
    ($($t:ty),*) => {$(
        impl AddFrom<NoAdjoint> for $t {
            #[inline(always)]
            fn add_from_other(&mut self, _: &NoAdjoint) {}
        }
        impl AddFrom<f64> for $t {
            #[inline(always)]
            fn add_from_other(&mut self, _: &f64) {}
        }
        impl AddFrom<autodiff_core::Dual> for $t {
            #[inline(always)]
            fn add_from_other(&mut self, _: &autodiff_core::Dual) {}
        }
        // The dual sweep's zero of an integer is the integer itself
        // (`DualZero`): a `#[constant]` field passed on as a callee's
        // integer argument (`act(x, self.times)`) adds nothing back.
        impl AddFrom<$t> for $t {
            #[inline(always)]
            fn add_from_other(&mut self, _: &$t) {}
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

/// Whether a row assigned whole (`m[1] = grow(&m[0]);`) keeps the shape
/// it had: where it does not, the forward sweep fails, and the gradient
/// is the tape's, whose rows have any length.
#[inline(always)]
pub fn same_shape<T: Adjoint + ?Sized>(old: &T, new: &T) -> bool {
    old.same_shape(new)
}

/// Zeros shaped like another adjoint: the adjoint of a loop-local copy
/// (`let row = w[j];`).
#[inline(always)]
pub fn zero_like<B: Bar>(bar: &B) -> B {
    bar.zeroed()
}
