//! `x.relu()` and `x.sigmoid()` on plain `f64`, so that a
//! `#[differentiable]` body may write the activations in method form: its
//! plain twin calls these, its recording twin and compiled adjoint the
//! same rows of the table as `relu(x)` and `sigmoid(x)`.

/// The activations as `f64` methods, in the prelude: `x.relu()` is
/// [`relu(x)`](crate::relu) and `x.sigmoid()` is
/// [`sigmoid(x)`](crate::sigmoid), on plain numbers and, in a
/// `#[differentiable]` body, on tracked ones.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn unit(w: f64, x: f64) -> f64 {
///     (w * x).relu() + (w - x).sigmoid()
/// }
///
/// assert_eq!((-2.0_f64).relu(), 0.0);
/// assert_eq!(0.0_f64.sigmoid(), 0.5);
/// let result = unit_grad(2.0, 1.5)?;
/// // w·x = 3 > 0: ∂/∂w = x + σ'(w − x), ∂/∂x = w − σ'(w − x).
/// let s = sigmoid(0.5);
/// assert!((result.gradient.0 - (1.5 + s * (1.0 - s))).abs() < 1e-12);
/// assert!((result.gradient.1 - (2.0 - s * (1.0 - s))).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Activations {
    /// `max(self, 0)`; its derivative at 0 is 0.
    fn relu(self) -> Self;
    /// `1 / (1 + e^−self)`, without overflow for any finite value.
    fn sigmoid(self) -> Self;
}

impl Activations for f64 {
    #[inline]
    fn relu(self) -> f64 {
        autodiff_core::relu(self)
    }
    #[inline]
    fn sigmoid(self) -> f64 {
        autodiff_core::sigmoid(self)
    }
}
