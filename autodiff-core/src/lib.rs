//! The engine behind `autodiff`: an arena [`Tape`] of scalar nodes, `Copy`
//! [`Scalar`] handles, exact reverse passes with chapter 14's semantics, the
//! [`BackwardPass`] ledger, and central-difference [gradient checks](gradient_check).
//!
//! Most users reach this through the `autodiff` facade and its
//! `#[differentiable]` attribute; the engine is usable on its own:
//!
//! ```
//! use autodiff_core::Tape;
//!
//! let tape = Tape::new();
//! let x = tape.variable(0.5)?;
//! let y = x.tanh()?.exp()?;
//! y.backward()?;
//! let t = 0.5_f64.tanh();
//! assert!((x.gradient().unwrap() - t.exp() * (1.0 - t * t)).abs() < 1e-15);
//! # Ok::<(), autodiff_core::ScalarAutodiffError>(())
//! ```
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

mod cell;
mod error;
mod gradcheck;
mod ledger;
mod operation;
mod ops;
mod render;
mod tape;
mod value_and_gradient;

pub use error::{Label, ScalarAutodiffError};
pub use gradcheck::{
    default_step, gradient_check, relative_error, scalar_gradient_check, scaled_error,
    ComponentCheck, GradientCheck, GradientCheckError, ScalarGradientCheck, DEFAULT_TOLERANCE,
};
pub use ledger::{BackwardEdge, BackwardNode, BackwardPass, PassSummary};
pub use operation::ScalarOperation;
pub use ops::{detach, relu, sigmoid, Operand};
pub use render::{Numbers, RenderLimits, TapeView, Timeline, TimelineStep};
pub use tape::{Scalar, Tape, BYTES_PER_NODE, MAX_NODES, SPARE_NODES};
pub use value_and_gradient::ValueAndGradient;
