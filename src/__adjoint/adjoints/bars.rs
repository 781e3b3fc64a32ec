//! Whole adjoints where the emitter cannot see the shape ([`Bar`]): added,
//! taken, copied and recycled.

use super::*;

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
    /// An empty list of these for [`bar_list`]: of rows of numbers, one
    /// the stack kept ([`new_vec_list`](Self::new_vec_list)).
    #[inline(always)]
    fn new_list(stack: &mut Stack) -> Vec<Self>
    where
        Self: Sized,
    {
        let _ = stack;
        Vec::new()
    }
    /// An empty list of `Vec`s of these: of numbers, one the stack kept.
    #[inline(always)]
    fn new_vec_list(stack: &mut Stack) -> Vec<Vec<Self>>
    where
        Self: Sized,
    {
        let _ = stack;
        Vec::new()
    }
    /// Gives back a list [`new_list`](Self::new_list) made
    /// ([`give_bar_list`]): of rows of numbers, kept by the stack.
    #[inline(always)]
    fn give_list(list: Vec<Self>, stack: &mut Stack)
    where
        Self: Sized,
    {
        let _ = (list, stack);
    }
    /// Keeps an emptied list of `Vec`s of these for the next adjoint of
    /// rows ([`Adjoint::spare_list`]): of numbers, the stack's
    /// (`Stack::keep_row_list`); anything else is dropped.
    #[inline(always)]
    fn keep_list(list: Vec<Vec<Self>>, stack: &mut Stack)
    where
        Self: Sized,
    {
        let _ = (list, stack);
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

/// `let mut row_shape = bar_list(stack);`: the site a loop's forward
/// saves the adjoints of its rows on (`__adjoint::spare`), for its
/// reverse to pop: of rows of numbers, a list the stack kept, which
/// [`give_bar_list`] gives back when the reverse ends.
///
/// ```
/// use autodiff::__adjoint::{bar_list, give_bar_list, spare, Stack};
///
/// let mut stack = Stack::new();
/// let mut site = bar_list(&mut stack);
/// site.push(spare(&mut stack, &vec![1.0, 2.0]));
/// assert_eq!(site.pop(), Some(vec![0.0, 0.0]));
/// give_bar_list(&mut stack, site);
/// ```
#[inline(always)]
pub fn bar_list<B: Bar>(stack: &mut Stack) -> Vec<B> {
    B::new_list(stack)
}

/// Gives back a site [`bar_list`] made.
#[inline(always)]
pub fn give_bar_list<B: Bar>(stack: &mut Stack, list: Vec<B>) {
    B::give_list(list, stack);
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
    #[inline]
    fn keep_list(list: Vec<Vec<f64>>, stack: &mut Stack) {
        stack.keep_row_list(list);
    }
    #[inline]
    fn new_vec_list(stack: &mut Stack) -> Vec<Vec<f64>> {
        stack.row_list()
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
    #[inline(always)]
    fn new_list(stack: &mut Stack) -> Vec<Self> {
        T::new_vec_list(stack)
    }
    #[inline(always)]
    fn give_list(list: Vec<Self>, stack: &mut Stack) {
        T::keep_list(list, stack);
    }
    /// Rows: each given back, then the list, emptied.
    #[inline]
    fn give_spare_vec(mut items: Vec<Vec<T>>, stack: &mut Stack) {
        for item in items.drain(..) {
            T::give_spare_vec(item, stack);
        }
        T::keep_list(items, stack);
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

/// `take_pushed(stack, &mut row_bar, pushed_bar)`: the reverse of
/// `out.push(row)` that moved a `Vec` of numbers, where the emitter knows
/// `row_bar` is still the zeros its shape was saved as (nothing after the
/// push reads `row`, which no assignment revives). Zeros plus the row
/// popped off `out_bar` are that row, so where the two are as long, the
/// popped row becomes `row_bar` and the zeros go to the stack's spares;
/// else it is added in, as [`accumulate`] adds, and given back. The one
/// difference from adding is a zero's sign, which no adjoint keeps: each
/// is a sum started from `+0.0`, and `+0.0 + -0.0` is `+0.0`.
///
/// ```
/// use autodiff::__adjoint::{take_pushed, Stack};
///
/// let mut stack = Stack::new();
/// let mut row_bar = vec![0.0; 2];
/// take_pushed(&mut stack, &mut row_bar, vec![1.5, -2.0]);
/// assert_eq!(row_bar, vec![1.5, -2.0]);
/// let mut row_bar = vec![0.0; 3];
/// take_pushed(&mut stack, &mut row_bar, vec![1.5]);
/// assert_eq!(row_bar, vec![1.5, 0.0, 0.0]);
/// ```
#[inline]
pub fn take_pushed(stack: &mut Stack, bar: &mut Vec<f64>, pushed: Vec<f64>) {
    debug_assert!(
        bar.iter().all(|item| *item == 0.0),
        "take_pushed: the row's adjoint was added into before its push's reverse"
    );
    if bar.len() == pushed.len() {
        let zeros = std::mem::replace(bar, pushed);
        stack.recycle(zeros);
    } else {
        bar.add_from(&pushed);
        stack.recycle(pushed);
    }
}

/// `take_pushed_row(stack, &mut row_bar, row_length, pushed_bar)`: the
/// reverse of `out.push(row)` where the forward saved `row`'s length
/// alone, `row` being a `Vec` of numbers grown by `push` in its block and
/// moved there for good, with nothing between the block's reverse
/// declaring `row_bar` (empty) and this reverse that reads or adds into
/// it. Its adjoint would be zeros of that length plus the row popped off
/// `out_bar`, which is the popped row where the two are as long; else
/// zeros of the length with the popped row added in, as [`accumulate`]
/// adds, and the popped row given back to the stack's spares. The one
/// difference from adding is a zero's sign, as for [`take_pushed`].
///
/// ```
/// use autodiff::__adjoint::{take_pushed_row, Stack};
///
/// let mut stack = Stack::new();
/// let mut row_bar = Vec::new();
/// take_pushed_row(&mut stack, &mut row_bar, 2, vec![1.5, -2.0]);
/// assert_eq!(row_bar, vec![1.5, -2.0]);
/// let mut row_bar = Vec::new();
/// take_pushed_row(&mut stack, &mut row_bar, 3, vec![1.5]);
/// assert_eq!(row_bar, vec![1.5, 0.0, 0.0]);
/// let mut row_bar = Vec::new();
/// take_pushed_row(&mut stack, &mut row_bar, 1, Vec::new());
/// assert_eq!(row_bar, vec![0.0]);
/// ```
#[inline]
pub fn take_pushed_row(stack: &mut Stack, bar: &mut Vec<f64>, length: usize, pushed: Vec<f64>) {
    debug_assert!(
        bar.is_empty() && bar.capacity() == 0,
        "take_pushed_row: the row's adjoint was made before its push's reverse"
    );
    if pushed.len() == length {
        *bar = pushed;
    } else {
        let mut zeros = stack.zeros(length);
        zeros.add_from(&pushed);
        stack.recycle(pushed);
        *bar = zeros;
    }
}

/// `let mut row_shape = length_list(stack);`: the site a loop's forward
/// saves the lengths of its rows on where their adjoints are the rows
/// their pushes' reverses pop ([`take_pushed_row`]), for its reverse to
/// pop: a list the stack kept, which [`give_length_list`] gives back when
/// the reverse ends.
///
/// ```
/// use autodiff::__adjoint::{give_length_list, length_list, Stack};
///
/// let mut stack = Stack::new();
/// let mut site = length_list(&mut stack);
/// site.push(3);
/// assert_eq!(site.pop(), Some(3));
/// give_length_list(&mut stack, site);
/// assert!(length_list(&mut stack).is_empty());
/// ```
#[inline(always)]
pub fn length_list(stack: &mut Stack) -> Vec<usize> {
    stack.length_list()
}

/// Gives back a site [`length_list`] made.
#[inline(always)]
pub fn give_length_list(stack: &mut Stack, list: Vec<usize>) {
    stack.keep_length_list(list);
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

/// A caller's adjoint of a slice that a callee's reverse adds into in
/// place (`x.to_vec()` of a parameter `x: &[f64]` whose caller's adjoint
/// it borrows): as into the `Vec` it would have been lent as, item by
/// item.
impl<B: Bar> AddFrom<Vec<B>> for &mut [B] {
    #[inline]
    fn add_from_other(&mut self, other: &Vec<B>) {
        for (bar, other) in self.iter_mut().zip(other) {
            bar.add_from(other);
        }
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
