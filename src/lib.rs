//! Exact reverse-mode gradients of ordinary scalar Rust functions.
pub use autodiff_core::*;

/// Differentiates an ordinary `f64` function: next to `fn f` it generates
/// `f_tape` (the body recorded on a [`Tape`], one labelled node per
/// operation), `f_grad` (value and exact gradient, shaped like the
/// differentiable parameters), `f_grad_on` (the same on a `&mut Tape` the
/// caller keeps and this clears, so repeated calls reuse its memory),
/// `f_check` and `f_check_with` (the gradient against central differences
/// of `f`, every component).
///
/// Parameters of type `f64`, `[f64; N]` (nested too), `&[f64]` and
/// `Vec<f64>` are differentiable; integers, `bool` and parameters marked
/// `#[constant]` pass through. Anything the macro cannot differentiate
/// exactly is a compile error on the offending token.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn loss(w: [f64; 2], x: f64, #[constant] target: f64) -> f64 {
///     let y = w[0] * x + w[1];
///     let e = y - target;
///     e * e
/// }
///
/// let result = loss_grad([2.0, 1.0], 3.0, 5.0)?;
/// // y = 7, e = 2: ∂/∂w = 2e·[x, 1], ∂/∂x = 2e·w₀.
/// assert_eq!(result.value, 4.0);
/// assert_eq!(result.gradient, ([12.0, 4.0], 8.0));
/// assert!(loss_check([2.0, 1.0], 3.0, 5.0)?.passed());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub use autodiff_macros::differentiable;

/// What `#[differentiable]`-generated code calls; not a public API.
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

// What the compiled adjoint (`f_grad` as generated Rust) calls; not a
// public API. Its docs are all inner (`//!`), so that their links resolve in
// the module rather than here.
#[doc(hidden)]
#[path = "adjoint.rs"]
pub mod __adjoint;

/// Everything an exercise needs: `use autodiff::prelude::*;`.
pub mod prelude {
    pub use autodiff_core::GradientCheckError;
    pub use autodiff_core::{
        detach, relu, sigmoid, GradientCheck, Label, Scalar, ScalarAutodiffError, Tape,
        ValueAndGradient,
    };
    pub use autodiff_macros::differentiable;
}

/// The README's Rust snippets, compiled and run as doctests so they never rot.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
