//! Exact reverse-mode gradients of ordinary scalar Rust functions.
pub use autodiff_core::*;

/// Everything an exercise needs: `use autodiff::prelude::*;`.
pub mod prelude {
    pub use autodiff_core::{
        detach, relu, sigmoid, GradientCheck, Label, Scalar, ScalarAutodiffError, Tape,
        ValueAndGradient,
    };
}

/// The README's Rust snippets, compiled and run as doctests so they never rot.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
