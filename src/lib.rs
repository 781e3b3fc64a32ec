//! Exact reverse-mode gradients of ordinary scalar Rust functions.
pub use autodiff_core::*;
pub use autodiff_macros::differentiable;

/// What `#[differentiable]`-generated code calls; not a public API.
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

/// Everything an exercise needs: `use autodiff::prelude::*;`.
pub mod prelude {
    pub use autodiff_core::{
        detach, relu, sigmoid, GradientCheck, Label, Scalar, ScalarAutodiffError, Tape,
        ValueAndGradient,
    };
    pub use autodiff_core::GradientCheckError;
    pub use autodiff_macros::differentiable;
}

/// The README's Rust snippets, compiled and run as doctests so they never rot.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
