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

/// No saved reverse: the marker a failed forward sweep pushes, which no
/// callee's [`Stack::pop_reverse`] takes for its own.
struct Failed;

impl Stack {
    /// Saves a callee's reverse sweep (`None`: its forward sweep failed,
    /// and [`pop_reverse`](Self::pop_reverse) then finds none).
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
    /// ```
    #[inline]
    pub fn push_reverse<R: Any>(&mut self, reverse: Option<R>) {
        match reverse {
            Some(reverse) => self.reverses.push(Box::new(reverse)),
            None => self.reverses.push(Box::new(Failed)),
        }
    }

    /// The reverse sweep last saved, if `split` (the callee's forward,
    /// named only for its closure's type) saved it; `None` marks the
    /// sweep failed.
    #[inline]
    pub fn pop_reverse<A, O, R: Any>(
        &mut self,
        split: fn(&mut Stack, A) -> Option<(O, R)>,
    ) -> Option<R> {
        let _ = split;
        match self.reverses.pop().map(|reverse| reverse.downcast::<R>()) {
            Some(Ok(reverse)) => Some(*reverse),
            _ => {
                self.fail();
                None
            }
        }
    }
}
