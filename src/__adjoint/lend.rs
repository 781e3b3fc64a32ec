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

/// [`lend`] of a caller's adjoint of a slice of numbers, copied into one
/// of the stack's spare rows (no allocation per call), which
/// [`give_back_numbers`] copies back and returns to the stack.
///
/// ```
/// use autodiff::__adjoint::{give_back_numbers, lend_numbers, Stack};
///
/// let mut stack = Stack::default();
/// let mut caller = [1.0, 2.0];
/// let mut lent = lend_numbers(&mut stack, &mut caller);
/// lent[1] += 0.5;
/// give_back_numbers(&mut stack, &mut caller, lent);
/// assert_eq!(caller, [1.0, 2.5]);
/// ```
#[inline]
pub fn lend_numbers(stack: &mut super::Stack, bar: &mut [f64]) -> Vec<f64> {
    let mut lent = stack.zeros(0);
    lent.extend_from_slice(bar);
    lent
}

/// Copies what [`lend_numbers`] lent back into `bar`, and gives its row
/// back to the stack.
#[inline]
pub fn give_back_numbers(stack: &mut super::Stack, bar: &mut [f64], lent: Vec<f64>) {
    for (place, item) in bar.iter_mut().zip(&lent) {
        *place = *item;
    }
    stack.recycle(lent);
}

/// [`lend`] of a caller's adjoint of a slice of rows (`&mut [Vec<f64>]`),
/// the rows moved into a list the stack kept from an earlier call (no
/// allocation per call), which [`give_back_rows`] moves them back from and
/// returns to the stack.
///
/// ```
/// use autodiff::__adjoint::{give_back_rows, lend_rows, Stack};
///
/// let mut stack = Stack::default();
/// let mut caller = vec![vec![1.0, 2.0], vec![3.0]];
/// let mut lent = lend_rows(&mut stack, &mut caller[..]);
/// lent[1][0] += 0.5;
/// give_back_rows(&mut stack, &mut caller[..], lent);
/// assert_eq!(caller, [vec![1.0, 2.0], vec![3.5]]);
/// ```
#[inline]
pub fn lend_rows(stack: &mut super::Stack, bar: &mut [Vec<f64>]) -> Vec<Vec<f64>> {
    let mut lent = stack.row_list();
    lent.resize_with(bar.len(), Vec::new);
    lent.swap_with_slice(bar);
    lent
}

/// Puts what [`lend_rows`] took back into `bar`, and gives its list back
/// to the stack.
#[inline]
pub fn give_back_rows(stack: &mut super::Stack, bar: &mut [Vec<f64>], mut lent: Vec<Vec<f64>>) {
    if lent.len() == bar.len() {
        bar.swap_with_slice(&mut lent);
    } else {
        for (place, item) in bar.iter_mut().zip(lent.drain(..)) {
            *place = item;
        }
    }
    stack.keep_row_list(lent);
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
