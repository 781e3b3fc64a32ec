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
