//! Recorded sums and products of tracked or plain values ([`Summand`]).

use autodiff_core::{Label, Scalar, Tape};

use super::super::sticky;

/// Sums an iterator of tracked or plain values, one `add` node per item
/// after the first, so the gradient of `x.iter().sum()` is exact.
#[diagnostic::on_unimplemented(
    message = "cannot sum items of type `{Self}` in a #[differentiable] function",
    label = "expected an iterator over f64 values"
)]
pub trait Summand<'t>: Sized {
    /// `Scalar` for tracked items, `f64` for plain ones.
    type Sum;
    /// The sum; an empty iterator sums to a constant −0.0, as `f64`'s.
    fn sum(items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> Self::Sum;
    /// The product, one `mul` node per item after the first; an empty
    /// iterator multiplies to a constant 1.
    fn product(items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> Self::Sum;
}

impl<'t> Summand<'t> for Scalar<'t> {
    type Sum = Scalar<'t>;
    #[inline]
    fn sum(mut items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> Scalar<'t> {
        // No items sum to −0.0, as the standard library's `Sum for f64`
        // (and the compiled adjoint) says.
        let Some(first) = items.next() else {
            return sticky(tape.constant(-0.0), tape, at, || -0.0);
        };
        items.fold(first, |total, item| {
            sticky(total.add(item), tape, at, move || {
                total.value() + item.value()
            })
        })
    }
    #[inline]
    fn product(mut items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> Scalar<'t> {
        let Some(first) = items.next() else {
            return sticky(tape.constant(1.0), tape, at, || 1.0);
        };
        items.fold(first, |total, item| {
            sticky(total.mul(item), tape, at, move || {
                total.value() * item.value()
            })
        })
    }
}

impl<'t> Summand<'t> for &Scalar<'t> {
    type Sum = Scalar<'t>;
    #[inline]
    fn sum(items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> Scalar<'t> {
        Summand::sum(items.copied(), tape, at)
    }
    #[inline]
    fn product(items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> Scalar<'t> {
        Summand::product(items.copied(), tape, at)
    }
}

impl<'t> Summand<'t> for f64 {
    type Sum = f64;
    #[inline]
    fn sum(items: impl Iterator<Item = Self>, _: &'t Tape, _: Label) -> f64 {
        items.sum()
    }
    #[inline]
    fn product(items: impl Iterator<Item = Self>, _: &'t Tape, _: Label) -> f64 {
        items.product()
    }
}

impl<'t> Summand<'t> for &f64 {
    type Sum = f64;
    #[inline]
    fn sum(items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> f64 {
        Summand::sum(items.copied(), tape, at)
    }
    #[inline]
    fn product(items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> f64 {
        Summand::product(items.copied(), tape, at)
    }
}

/// `items.product()`, recorded when the items are tracked.
pub fn product<'t, I>(tape: &'t Tape, items: I, at: Label) -> <I::Item as Summand<'t>>::Sum
where
    I: IntoIterator,
    I::Item: Summand<'t>,
{
    Summand::product(items.into_iter(), tape, at)
}

/// `items.sum()`, recorded when the items are tracked.
pub fn sum<'t, I>(tape: &'t Tape, items: I, at: Label) -> <I::Item as Summand<'t>>::Sum
where
    I: IntoIterator,
    I::Item: Summand<'t>,
{
    Summand::sum(items.into_iter(), tape, at)
}
