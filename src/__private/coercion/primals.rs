//! The value a comparison sees: a tracked value's primal, anything else as
//! is ([`Primal`]).

use autodiff_core::Scalar;

/// The value a comparison sees: a tracked value's primal, anything else as is.
#[diagnostic::on_unimplemented(
    message = "cannot compare `{Self}` in a #[differentiable] function",
    label = "comparisons read f64 values, integers and bools"
)]
pub trait Primal {
    /// The plain value.
    type Value;
    /// Reads it.
    fn primal(self) -> Self::Value;
}

impl Primal for Scalar<'_> {
    type Value = f64;
    #[inline]
    fn primal(self) -> f64 {
        self.value()
    }
}

impl Primal for &Scalar<'_> {
    type Value = f64;
    #[inline]
    fn primal(self) -> f64 {
        self.value()
    }
}

impl Primal for f64 {
    type Value = f64;
    #[inline]
    fn primal(self) -> f64 {
        self
    }
}

impl Primal for &f64 {
    type Value = f64;
    #[inline]
    fn primal(self) -> f64 {
        *self
    }
}

impl Primal for bool {
    type Value = bool;
    #[inline]
    fn primal(self) -> bool {
        self
    }
}

impl<T: Primal, const N: usize> Primal for [T; N] {
    type Value = [T::Value; N];
    #[inline]
    fn primal(self) -> Self::Value {
        self.map(T::primal)
    }
}

impl<'r, T> Primal for &'r [T]
where
    &'r T: Primal,
{
    type Value = Vec<<&'r T as Primal>::Value>;
    #[inline]
    fn primal(self) -> Self::Value {
        self.iter().map(Primal::primal).collect()
    }
}

impl<'r, T> Primal for &'r Vec<T>
where
    &'r T: Primal,
{
    type Value = Vec<<&'r T as Primal>::Value>;
    #[inline]
    fn primal(self) -> Self::Value {
        self.iter().map(Primal::primal).collect()
    }
}

impl<T: Primal + Copy, const N: usize> Primal for &[T; N] {
    type Value = [T::Value; N];
    #[inline]
    fn primal(self) -> Self::Value {
        self.map(T::primal)
    }
}

/// `&x` where `x` is already a reference (a slice parameter), as the
/// macros the body mentions read it.
impl<'s, T: ?Sized> Primal for &&'s T
where
    &'s T: Primal,
{
    type Value = <&'s T as Primal>::Value;
    #[inline]
    fn primal(self) -> Self::Value {
        (*self).primal()
    }
}

/// A tracked value's primal, so that `if x > 0.0` reads the number.
pub fn primal<T: Primal>(value: T) -> T::Value {
    value.primal()
}
