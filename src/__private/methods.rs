//! Methods called on a model on the tape: `model.f(x)` in a recording twin
//! becomes `model(&twin).f_tape(tape, &twin, x)`. The recording twin of a
//! `#[differentiable]` method is a method of the model type, found by method
//! call syntax on the plain model; the twin (`MlpOnTape`) keeps a reference
//! to the model it was recorded from, and [`OnTape`] hands it back.

/// A model's twin on a tape (what `#[derive(Parameters)]` generates).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a model on the tape: only `#[differentiable]` methods of a `#[derive(Parameters)]` struct can be called on it here",
    label = "this holds tracked values"
)]
pub trait OnTape<'t> {
    /// The plain model.
    type Model: ?Sized;
    /// The model the twin was recorded from.
    fn model(&self) -> &'t Self::Model;
}

impl<'t, T: OnTape<'t> + ?Sized> OnTape<'t> for &T {
    type Model = T::Model;
    #[inline]
    fn model(&self) -> &'t T::Model {
        T::model(self)
    }
}

/// The plain model behind a twin, for method call syntax.
#[inline]
pub fn model<'t, T: OnTape<'t> + ?Sized>(twin: &T) -> &'t T::Model {
    twin.model()
}

/// The twin a method taking its model by value records on, from what a
/// caller's recording passes: the twin itself, or (`model.at(x)` on a model
/// the caller took, `model(&twin)`) a reference to it, copied.
pub trait OwnedTwin<T> {
    /// The twin, owned.
    fn owned(self) -> T;
}

impl<T> OwnedTwin<T> for T {
    #[inline]
    fn owned(self) -> T {
        self
    }
}

impl<T: Clone> OwnedTwin<T> for &T {
    #[inline]
    fn owned(self) -> T {
        self.clone()
    }
}

impl<T: Clone> OwnedTwin<T> for &&T {
    #[inline]
    fn owned(self) -> T {
        (*self).clone()
    }
}

/// A value that carries no derivative: what a plain helper returns where
/// the body uses it as a count, an index, a bound or a truth value
/// (`for i in 0..self.dim()`, `x[argmax(&x)]`, `if self.causal()`). The
/// macro calls such a helper on plain values, so it must not return an
/// `f64` that would have carried one: that is this trait's error.
#[diagnostic::on_unimplemented(
    message = "this call is used as a count, an index or a condition, so it runs on plain values, but it returns `{Self}`, which could carry a derivative",
    label = "called on plain values because of how its value is used",
    note = "a helper that returns an f64 is #[differentiable] (or in a #[differentiable] impl block); to use such a value as a count or an index without its gradient, write `detach(f(x))`"
)]
pub trait NoDerivative {}

macro_rules! no_derivative {
    ($($t:ty),*) => { $(impl NoDerivative for $t {})* };
}
no_derivative!(
    usize,
    u8,
    u16,
    u32,
    u64,
    u128,
    isize,
    i8,
    i16,
    i32,
    i64,
    i128,
    bool,
    char,
    (),
    String,
    std::cmp::Ordering
);
impl NoDerivative for str {}
impl<T: NoDerivative> NoDerivative for [T] {}
impl<T: NoDerivative> NoDerivative for Option<T> {}
impl<T: NoDerivative> NoDerivative for Vec<T> {}
impl<T: NoDerivative, const N: usize> NoDerivative for [T; N] {}
impl<T: NoDerivative + ?Sized> NoDerivative for &T {}
impl<A: NoDerivative, B: NoDerivative> NoDerivative for (A, B) {}
impl<A: NoDerivative, B: NoDerivative, C: NoDerivative> NoDerivative for (A, B, C) {}
impl<T: NoDerivative> NoDerivative for std::ops::Range<T> {}

/// The value of a plain helper used as a count, an index or a condition,
/// checked to be one that carries no derivative ([`NoDerivative`]).
#[inline]
pub fn no_derivative<T: NoDerivative>(value: T) -> T {
    value
}
