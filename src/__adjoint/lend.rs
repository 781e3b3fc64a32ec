//! A caller's adjoint of a slice argument, lent to a vector-valued
//! callee's reverse sweep as the `Vec` its sweep adds into, and given back
//! (see `emit/adjoint/lend.rs` in the macro crate): the rows are moved, not
//! copied, and nothing is allocated per row. A model's adjoint (a model,
//! `#[derive(Parameters)]` implements [`Lent`] for it) is lent whole, each
//! field moved out and back.

/// An adjoint's item that can be moved out of its place and back: the
/// adjoint of a model, or of a number, array or `Vec` of them (their
/// `Parameter::lend_bar`).
pub trait Lent: Sized {
    /// The item, its place left empty (or as it was, for a number).
    fn lend(place: &mut Self) -> Self;
}

impl<T: crate::__private::Parameter<Gradient = T>> Lent for T {
    #[inline(always)]
    fn lend(place: &mut T) -> T {
        T::lend_bar(place)
    }
}

/// The caller's adjoint `bar` as a `Vec` of its items, which
/// [`give_back`] returns to it.
///
/// ```
/// use autodiff::__adjoint::{give_back, lend};
///
/// let mut caller = vec![vec![1.0, 2.0], vec![3.0]];
/// let mut lent = lend(&mut caller[..]);
/// lent[1][0] += 0.5;
/// give_back(&mut caller[..], lent);
/// assert_eq!(caller, [vec![1.0, 2.0], vec![3.5]]);
/// ```
#[inline]
pub fn lend<T: Lent>(bar: &mut [T]) -> Vec<T> {
    bar.iter_mut().map(T::lend).collect()
}

/// Puts what [`lend`] took back into `bar`, item by item.
#[inline]
pub fn give_back<T>(bar: &mut [T], lent: Vec<T>) {
    for (place, item) in bar.iter_mut().zip(lent) {
        *place = item;
    }
}

/// Puts a model's adjoint lent whole (`Parameter::lend_bar`) back into
/// `bar`.
#[inline]
pub fn give_back_model<T>(bar: &mut T, lent: T) {
    *bar = lent;
}
