//! A forward sweep's `Vec`s of numbers and of rows made in memory the
//! stack kept ([`with_room`]), which `recycle` gives back once the reverse
//! is done with the value: a helper's rows, called again, allocate none.

use super::*;

/// `v = __adjoint::with_room(stack, n);` for `let mut v = Vec::new();`
/// followed by a loop that pushes `n` items onto it (the forward sweep's
/// `Vec::with_capacity(n)`, see the emitter's `capacity_hint`): an empty
/// `Vec` with room for `n` items, a row of numbers from the stack's spare
/// rows and a list of rows from its lists where it has one. Only the
/// memory differs; the items are the pushes'.
///
/// ```
/// use autodiff::__adjoint::{recycle, with_room, Stack};
///
/// let mut stack = Stack::new();
/// let mut row: Vec<f64> = with_room(&mut stack, 3);
/// row.push(1.5);
/// assert_eq!(row, [1.5]);
/// assert!(row.capacity() >= 3);
/// recycle(&mut stack, row);
/// let again: Vec<f64> = with_room(&mut stack, 2);
/// assert!(again.is_empty());
/// ```
#[inline(always)]
pub fn with_room<T: Room>(stack: &mut Stack, n: usize) -> Vec<T> {
    T::vec_with_room(stack, n)
}

/// What a forward sweep's `Vec` made by [`with_room`] holds: numbers, rows
/// of numbers, or arrays (allocated as `Vec::with_capacity` allocates).
pub trait Room: Sized {
    /// An empty `Vec` of these with room for `n`.
    #[inline(always)]
    fn vec_with_room(stack: &mut Stack, n: usize) -> Vec<Self> {
        let _ = stack;
        Vec::with_capacity(n)
    }
}

impl Room for f64 {
    #[inline(always)]
    fn vec_with_room(stack: &mut Stack, n: usize) -> Vec<f64> {
        stack.spare_row(n)
    }
}

impl Room for Vec<f64> {
    #[inline]
    fn vec_with_room(stack: &mut Stack, n: usize) -> Vec<Vec<f64>> {
        let mut list = stack.row_list();
        list.reserve(n);
        list
    }
}

impl<T, const N: usize> Room for [T; N] {}
