//! A vector-valued callee's reverse sweep, saved by its forward sweep: the
//! callee's compiled adjoint (`shaped::compiled_dot` in the macro crate)
//! runs its forward sweep at the call and returns its value with a
//! closure of its reverse sweep, which owns what the forward computed and
//! the reverse reads. The caller's forward pushes the closure
//! ([`Stack::push_reverse`]) and its reverse pops and runs it
//! ([`Stack::pop_reverse`]) with the cotangent, in the opposite order of
//! the calls, as every other record on the stack: the reverse reruns
//! nothing.

use std::any::Any;
use std::ops::{Index, Mul};

use super::Stack;

/// The cotangent a callee's forward sweep reads before there is one: its
/// forward computes `⟨cotangent, value⟩` only for the reverse of that sum
/// to read the real cotangent (passed to the saved reverse), so the
/// forward's sum is 0 at every index and any depth.
///
/// ```
/// use autodiff::__adjoint::NoCotangent;
///
/// let cotangent = NoCotangent;
/// assert_eq!(cotangent[2][1] * 3.5, 0.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct NoCotangent;

impl Index<usize> for NoCotangent {
    type Output = NoCotangent;
    #[inline(always)]
    fn index(&self, _: usize) -> &NoCotangent {
        &NoCotangent
    }
}

impl Mul<f64> for NoCotangent {
    type Output = f64;
    #[inline(always)]
    fn mul(self, _: f64) -> f64 {
        0.0
    }
}

impl Mul<&f64> for NoCotangent {
    type Output = f64;
    #[inline(always)]
    fn mul(self, _: &f64) -> f64 {
        0.0
    }
}

/// A tuple-valued callee's items (`cotangent.0`, through `Deref`), each
/// [`NoCotangent`] again.
///
/// ```
/// use autodiff::__adjoint::NoCotangent;
///
/// let cotangent = NoCotangent;
/// assert_eq!(cotangent.1[2] * 3.5 + cotangent.0 * 1.0, 0.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct NoCotangents(
    pub NoCotangent,
    pub NoCotangent,
    pub NoCotangent,
    pub NoCotangent,
    pub NoCotangent,
    pub NoCotangent,
    pub NoCotangent,
    pub NoCotangent,
);

impl std::ops::Deref for NoCotangent {
    type Target = NoCotangents;
    #[inline(always)]
    fn deref(&self) -> &NoCotangents {
        &NoCotangents(
            NoCotangent,
            NoCotangent,
            NoCotangent,
            NoCotangent,
            NoCotangent,
            NoCotangent,
            NoCotangent,
            NoCotangent,
        )
    }
}

/// A box on the stack that holds one saved reverse sweep or none: a
/// popped reverse leaves its box empty, and the stack keeps the box for
/// the next call whose reverse has the same type ([`Stack::push_reverse`]),
/// so that a gradient calling a helper allocates no box per call after
/// its first.
pub(super) trait Slot: Any {
    /// The slot as `Any`, to be downcast to `Option<R>`.
    fn any_mut(&mut self) -> &mut dyn Any;
    /// Drops what the slot holds, keeping the slot.
    fn empty(&mut self);
}

impl<R: Any> Slot for Option<R> {
    #[inline(always)]
    fn any_mut(&mut self) -> &mut dyn Any {
        self
    }
    #[inline]
    fn empty(&mut self) {
        *self = None;
    }
}

impl std::fmt::Debug for dyn Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Slot")
    }
}

/// How many empty slots a stack keeps (one per helper call whose reverse
/// is pending at once, per closure type).
const SLOTS: usize = 64;

/// No saved reverse: the marker a failed forward sweep pushes, which no
/// callee's [`Stack::pop_reverse`] takes for its own.
struct Failed;

impl Stack {
    /// Saves a callee's reverse sweep (`None`: its forward sweep failed,
    /// and [`pop_reverse`](Self::pop_reverse) then finds none), in an
    /// empty box of its type kept from an earlier call where there is one.
    ///
    /// ```
    /// use autodiff::__adjoint::Stack;
    ///
    /// fn split(_: &mut Stack, x: f64) -> Option<(f64, impl FnOnce(f64) -> f64 + use<>)> {
    ///     Some((2.0 * x, |bar: f64| 2.0 * bar))
    /// }
    /// let mut stack = Stack::new();
    /// let (value, reverse) = split(&mut stack, 1.5).unwrap();
    /// stack.push_reverse(Some(reverse));
    /// let reverse = stack.pop_reverse(split).unwrap();
    /// assert_eq!((value, reverse(1.0)), (3.0, 2.0));
    /// assert!(stack.is_empty());
    /// // The box is kept, and the next call's reverse goes into it.
    /// let (_, reverse) = split(&mut stack, 2.0).unwrap();
    /// stack.push_reverse(Some(reverse));
    /// assert_eq!(stack.pop_reverse(split).unwrap()(0.5), 1.0);
    /// ```
    #[inline]
    pub fn push_reverse<R: Any>(&mut self, reverse: Option<R>) {
        let Some(reverse) = reverse else {
            self.reverses.push(Box::new(None::<Failed>));
            return;
        };
        let kept = self
            .slots
            .iter_mut()
            .rposition(|slot| slot.any_mut().is::<Option<R>>());
        match kept {
            Some(at) => {
                let mut slot = self.slots.swap_remove(at);
                if let Some(place) = slot.any_mut().downcast_mut::<Option<R>>() {
                    *place = Some(reverse);
                }
                self.reverses.push(slot);
            }
            None => self.reverses.push(Box::new(Some(reverse))),
        }
    }

    /// The reverse sweep last saved, if `split` (the callee's forward,
    /// named only for its closure's type) saved it; `None` marks the
    /// sweep failed. Its box is kept, empty, for the next call.
    #[inline]
    pub fn pop_reverse<A, O, R: Any>(
        &mut self,
        split: fn(&mut Stack, A) -> Option<(O, R)>,
    ) -> Option<R> {
        let _ = split;
        let Some(mut slot) = self.reverses.pop() else {
            self.fail();
            return None;
        };
        let Some(place) = slot.any_mut().downcast_mut::<Option<R>>() else {
            // Another callee's reverse, or a failed forward's marker.
            self.keep_slot(slot);
            self.fail();
            return None;
        };
        let reverse = place.take();
        // Taken, the slot holds nothing to drop: kept as it is.
        if self.slots.len() < SLOTS {
            self.slots.push(slot);
        }
        if reverse.is_none() {
            self.fail();
        }
        reverse
    }

    /// Keeps `slot`, emptied, for a later [`push_reverse`](Self::push_reverse).
    #[inline]
    pub(super) fn keep_slot(&mut self, mut slot: Box<dyn Slot>) {
        if self.slots.len() < SLOTS {
            slot.empty();
            self.slots.push(slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn double(_: &mut Stack, x: f64) -> Option<(f64, impl FnOnce(f64) -> f64 + use<>)> {
        Some((2.0 * x, |bar: f64| 2.0 * bar))
    }

    fn triple(_: &mut Stack, x: f64) -> Option<(f64, impl FnOnce(f64) -> f64 + use<>)> {
        Some((3.0 * x, |bar: f64| 3.0 * bar))
    }

    #[test]
    fn a_popped_slot_is_kept_empty_and_taken_again() {
        let mut stack = Stack::new();
        let (_, reverse) = double(&mut stack, 1.0).unwrap();
        stack.push_reverse(Some(reverse));
        assert_eq!(stack.pop_reverse(double).unwrap()(1.0), 2.0);
        assert_eq!(stack.slots.len(), 1);
        // The next push of its type takes the kept box.
        let (_, reverse) = double(&mut stack, 1.0).unwrap();
        stack.push_reverse(Some(reverse));
        assert!(stack.slots.is_empty());
        assert_eq!(stack.pop_reverse(double).unwrap()(0.5), 1.0);
        assert!(stack.finite());
    }

    #[test]
    fn a_slot_of_another_reverse_fails_and_is_kept_emptied() {
        // A failed forward's marker.
        let mut stack = Stack::new();
        stack.push_reverse(None::<()>);
        assert!(stack.pop_reverse(double).is_none());
        assert!(!stack.finite());
        // Another callee's reverse, dropped: the box is kept, emptied.
        let mut stack = Stack::new();
        let (_, reverse) = triple(&mut stack, 1.0).unwrap();
        stack.push_reverse(Some(reverse));
        assert!(stack.pop_reverse(double).is_none());
        assert!(!stack.finite());
        assert_eq!(stack.slots.len(), 1);
        let (_, reverse) = triple(&mut stack, 1.0).unwrap();
        stack.push_reverse(Some(reverse));
        assert!(stack.slots.is_empty());
        assert_eq!(stack.pop_reverse(triple).unwrap()(1.0), 3.0);
    }
}
