//! The result of a `#[differentiable]` function's `_grad` twin.

/// A function's value and its gradient at one point.
///
/// `G` has the shape of the differentiable parameters: `f64` for one `f64`
/// parameter, `[f64; N]` for an array, `Vec<f64>` for a slice, a tuple of
/// these in parameter order for several.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueAndGradient<G> {
    /// The function's value.
    pub value: f64,
    /// ∂value/∂parameters, shaped like the parameters.
    pub gradient: G,
}
