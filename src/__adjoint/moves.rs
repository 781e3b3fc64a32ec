//! What the sweeps call where the body moves a `Vec`'s items
//! (`sort_by`, `insert`, `remove`, `extend_from_slice`, `resize`, `fill`,
//! `concat`): each item carries
//! its adjoint, so the reverse sweep moves the adjoints back the way the
//! items came. What the reverse needs of the move (the permutation a sort
//! applied) is saved on the [`Stack`] by the forward.

use std::cmp::Ordering;
use std::ops::AddAssign;

use super::Stack;

/// `bar[k] += items[k]` for every item: the adjoints of a run of moved
/// items (a slice appended by `extend_from_slice`, a part of a `concat`)
/// added back into the adjoint of the slice they came from, which may be
/// a `Vec`'s, an array's or a sub-slice's (`&x[1..3]`), of numbers or (in
/// the dual sweep) of dual numbers. Runs of unequal length (impossible
/// for the sweeps' own) are added up to the shorter.
///
/// ```
/// let mut bar = [1.0, 2.0, 3.0];
/// autodiff::__adjoint::add_items(&mut bar[1..], &[0.5, 0.25]);
/// assert_eq!(bar, [1.0, 2.5, 3.25]);
/// ```
#[inline]
pub fn add_items<T: Copy + AddAssign, B: AsMut<[T]> + ?Sized>(bar: &mut B, items: &[T]) {
    for (a, b) in bar.as_mut().iter_mut().zip(items) {
        *a += *b;
    }
}

/// [`add_items`] for a view of rows (`let v = &m[..];` of `m: &[Vec<f64>]`):
/// each row's adjoint added into the row's it came from.
///
/// ```
/// let mut bar = vec![vec![1.0], vec![2.0, 3.0]];
/// autodiff::__adjoint::add_rows(&mut bar[..], &[vec![0.5], vec![0.25, 1.0]]);
/// assert_eq!(bar, vec![vec![1.5], vec![2.25, 4.0]]);
/// ```
#[inline]
pub fn add_rows<T: super::adjoints::Bar, B: AsMut<[T]> + ?Sized>(bar: &mut B, rows: &[T]) {
    for (a, b) in bar.as_mut().iter_mut().zip(rows) {
        a.add_from(b);
    }
}

/// `items.push(item)` as the forward sweep writes it (and as the stacks
/// save values): the same push, with the growth out of line in a cold
/// function that takes the item with it.
/// A number live across `Vec::push`'s growth call (the sum a loop just
/// built, `out.push(s)`) is otherwise kept in memory for the whole loop
/// that builds it, since every vector register is clobbered by a call;
/// here it is only an argument of the call.
///
/// ```
/// let mut out = Vec::new();
/// for k in 0..5 {
///     autodiff::__adjoint::push(&mut out, f64::from(k) * 0.5);
/// }
/// assert_eq!(out, [0.0, 0.5, 1.0, 1.5, 2.0]);
/// ```
#[inline(always)]
pub fn push<T>(items: &mut Vec<T>, item: T) {
    if items.len() < items.capacity() {
        items.push(item);
    } else {
        push_grown(items, item);
    }
}

/// [`push`] where `items` is full.
#[cold]
#[inline(never)]
fn push_grown<T>(items: &mut Vec<T>, item: T) {
    items.push(item);
}

/// `items.sort_by(compare)` (stable, as `slice::sort_by` is), saving where
/// each sorted item came from: the reverse sweep's [`unsort`] moves each
/// adjoint back there. The order is found by sorting the positions with
/// the same comparison of the items, which a stable sort leaves exactly
/// as `items.sort_by(compare)` leaves the items.
///
/// ```
/// use autodiff::__adjoint::{sort_by, unsort, Stack};
///
/// let mut stack = Stack::new();
/// let mut v = vec![3.0, 1.0, 2.0];
/// sort_by(&mut stack, &mut v, |a, b| a.partial_cmp(b).unwrap());
/// assert_eq!(v, [1.0, 2.0, 3.0]);
/// // The adjoints of the sorted items, moved back to the places they
/// // had before the sort.
/// let mut bar = vec![10.0, 20.0, 30.0];
/// unsort(&mut stack, &mut bar);
/// assert_eq!(bar, [30.0, 10.0, 20.0]);
/// assert!(stack.is_empty());
/// ```
pub fn sort_by<T: Clone, F: FnMut(&T, &T) -> Ordering>(
    stack: &mut Stack,
    items: &mut [T],
    mut compare: F,
) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&i, &j| compare(&items[i], &items[j]));
    let sorted: Vec<T> = order.iter().map(|&i| items[i].clone()).collect();
    items.clone_from_slice(&sorted);
    for &from in &order {
        stack.push_index(from);
    }
    stack.push_index(order.len());
}

/// The reverse of [`sort_by`]: `bar` holds the adjoints of the sorted
/// items, and each goes back to the place its item had before the sort.
/// A saved order that does not fit `bar` (a bug in the generated code,
/// never the user's input) fails the sweep.
pub fn unsort<B: Clone>(stack: &mut Stack, bar: &mut [B]) {
    let len = stack.pop_index();
    let sorted = bar.to_vec();
    let fits = len == sorted.len();
    for k in (0..len).rev() {
        let from = stack.pop_index();
        match (fits && from < sorted.len(), sorted.get(k)) {
            (true, Some(item)) => bar[from] = item.clone(),
            _ => stack.fail(),
        }
    }
}

/// The reverse of `v.insert(index, item)`: the inserted item's adjoint,
/// taken out of `bar`. An index past the end (a bug in the generated code)
/// fails the sweep and gives 0.
#[inline]
pub fn take_item(stack: &mut Stack, bar: &mut Vec<f64>, index: usize) -> f64 {
    if index < bar.len() {
        bar.remove(index)
    } else {
        stack.fail();
        0.0
    }
}

/// The reverse of `v.remove(index)`: the removed item's adjoint `item`
/// put back where the item was. An index past the end (a bug in the
/// generated code) fails the sweep.
///
/// ```
/// let mut stack = autodiff::__adjoint::Stack::new();
/// let mut bar = vec![1.0, 3.0];
/// autodiff::__adjoint::put_item(&mut stack, &mut bar, 1, 2.0);
/// assert_eq!(bar, [1.0, 2.0, 3.0]);
/// ```
#[inline]
pub fn put_item(stack: &mut Stack, bar: &mut Vec<f64>, index: usize, item: f64) {
    if index <= bar.len() {
        bar.insert(index, item);
    } else {
        stack.fail();
    }
}

/// The reverse of `v.resize(n, value)` on a `Vec` of `len` items: `bar`
/// back to `len` items, and the sum of the adjoints of the items the
/// resize appended (each a copy of `value`), which is `value`'s. Items
/// the resize dropped get adjoint 0.
///
/// ```
/// let mut bar = vec![1.0, 2.0, 0.5, 0.25];
/// assert_eq!(autodiff::__adjoint::resized(&mut bar, 2), 0.75);
/// assert_eq!(bar, [1.0, 2.0]);
/// let mut bar = vec![1.0];
/// assert_eq!(autodiff::__adjoint::resized(&mut bar, 3), 0.0);
/// assert_eq!(bar, [1.0, 0.0, 0.0]);
/// ```
#[inline]
pub fn resized(bar: &mut Vec<f64>, len: usize) -> f64 {
    let appended = bar.get(len..).map_or(0.0, |tail| tail.iter().sum());
    bar.resize(len, 0.0);
    appended
}

/// The reverse of `v.fill(value)`: the sum of the items' adjoints, which
/// is `value`'s, and `bar` zeroed, since the items before the fill reach
/// nothing after it.
///
/// ```
/// let mut bar = [1.0, 2.0, 0.5];
/// assert_eq!(autodiff::__adjoint::filled(&mut bar), 3.5);
/// assert_eq!(bar, [0.0; 3]);
/// ```
#[inline]
pub fn filled<B: AsMut<[f64]> + ?Sized>(bar: &mut B) -> f64 {
    let bar = bar.as_mut();
    let sum = bar.iter().sum();
    bar.fill(0.0);
    sum
}

/// The reverse of `v.extend_from_slice(items)` on a `Vec` of `len` items:
/// the appended items' adjoints, split off the end of `bar`. A length past
/// the end (a bug in the generated code) fails the sweep.
#[inline]
pub fn split_items(stack: &mut Stack, bar: &mut Vec<f64>, len: usize) -> Vec<f64> {
    if len <= bar.len() {
        bar.split_off(len)
    } else {
        stack.fail();
        Vec::new()
    }
}

/// The adjoints of the part of a `concat` that starts at `start` and holds
/// `len` items: a run of `bar`. A run past the end (a bug in the generated
/// code) fails the sweep and gives what there is.
#[inline]
pub fn part<'b>(stack: &mut Stack, bar: &'b [f64], start: usize, len: usize) -> &'b [f64] {
    match bar.get(start..start.saturating_add(len)) {
        Some(run) => run,
        None => {
            stack.fail();
            bar.get(start.min(bar.len())..).unwrap_or(&[])
        }
    }
}
