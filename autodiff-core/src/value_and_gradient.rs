//! The result of a `#[differentiable]` function's `_grad` twin.

/// A function's value and its gradient at one point.
///
/// `G` has the shape of the differentiable parameters: `f64` for one `f64`
/// parameter, `[f64; N]` for an array, `Vec<f64>` for a slice, a tuple of
/// these in parameter order for several.
///
/// `V` is the value's type: `f64` for a scalar function; for a
/// vector-valued function's `f_vjp`, its output (`Vec<f64>`, an array or a
/// tuple), with `gradient` the cotangent pulled back to the parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueAndGradient<G, V = f64> {
    /// The function's value.
    pub value: V,
    /// ∂value/∂parameters, shaped like the parameters.
    pub gradient: G,
}
