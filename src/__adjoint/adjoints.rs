//! Adjoints of every shape: declared with [`zero`] (an integer's is a
//! [`NoAdjoint`]), checked with the parameters at the end ([`Checked`]),
//! and added, taken and copied whole where the emitter cannot see the
//! shape ([`Bar`]).
//!
//! This file declares adjoints ([`Adjoint`], [`zero`]) for every shape;
//! `no_adjoint` holds the zero-sized adjoint of an integer or a `bool`,
//! `checks` the finiteness checks of a parameter and its gradient,
//! `bars` the whole-adjoint operations (add, take, copy, recycle), and
//! `room` the forward sweep's `Vec`s made in memory the stack kept.

mod bars;
mod checks;
mod no_adjoint;
mod room;

use super::*;

pub use bars::{
    accumulate, bar_list, give_bar_list, give_length_list, length_list, recycle, same_shape, take,
    take_pushed, take_pushed_row, zero_like, AddFrom, Bar,
};
pub use checks::{
    finite_items, finite_pairs, finite_parts, finite_row_pairs, finite_rows, Checked,
};
pub use no_adjoint::NoAdjoint;
pub use room::{with_room, Room};

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
    /// An empty list for the adjoint of a slice of `Vec`s of these
    /// ([`spare_items`](Self::spare_items) of rows): of numbers, one the
    /// stack kept ([`Bar::keep_list`]), so that a caller's adjoint of a
    /// vector call's rows allocates nothing after the first call.
    #[inline(always)]
    fn spare_list(stack: &mut Stack) -> Vec<Vec<Self::Bar>>
    where
        Self: Sized,
    {
        let _ = stack;
        Vec::new()
    }
    /// Keeps a list [`spare_list`](Self::spare_list) gave, its rows given
    /// back: of numbers, for the stack's next; else dropped.
    #[inline(always)]
    fn keep_spare_list(list: Vec<Vec<Self::Bar>>, stack: &mut Stack)
    where
        Self: Sized,
    {
        let _ = (list, stack);
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
    fn spare_list(stack: &mut Stack) -> Vec<Vec<f64>> {
        stack.row_list()
    }
    #[inline]
    fn keep_spare_list(list: Vec<Vec<f64>>, stack: &mut Stack) {
        stack.keep_row_list(list);
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
pub(super) fn zeros_of<B: Clone>(zero: B, n: usize) -> Vec<B> {
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
    /// Rows: the list one the stack kept, where they are of numbers.
    #[inline]
    fn spare_items(items: &[Vec<T>], stack: &mut Stack) -> Vec<Vec<T::Bar>> {
        let mut list = T::spare_list(stack);
        list.reserve(items.len());
        for item in items {
            list.push(item.spare_bar(stack));
        }
        list
    }
    /// Rows: each given back, then the list, emptied.
    #[inline]
    fn give_spare_items(mut bar: Vec<Vec<T::Bar>>, stack: &mut Stack) {
        for item in bar.drain(..) {
            T::give_spare_items(item, stack);
        }
        T::keep_spare_list(bar, stack);
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
no_adjoint!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool, char, str, String
);

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
