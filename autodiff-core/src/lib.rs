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
//!
//! # Where things are
//!
//! - `tape.rs`: the [`Tape`] and its [`Scalar`] handles, what a user
//!   records and reads; `backward` lives here.
//! - `derivatives.rs`: every operation's value and local derivative, side by
//!   side, the derivative from [`rules`], where each is written once for the
//!   tape and the compiled adjoint alike; `operation.rs`: the
//!   [`ScalarOperation`] names.
//! - `replay.rs`: the reverse pass as the textbook writes it,
//!   `adjoint[parent] += adjoint[node] × local derivative`; the ledger and
//!   error reports replay it. `sweep.rs`: the same pass as `backward` runs
//!   it, checks folded into one test per node.
//! - `second_order.rs`: forward mode ([`Scalar::jvp`]) and forward over
//!   reverse ([`Scalar::hvp`]) on a recorded tape, rerunning each node's
//!   rule on [`Dual`] numbers (`dual.rs`; `dual/float.rs` makes `Dual` a
//!   `num_traits::Float`, so generic float code runs on it); `curvature.rs`: what
//!   `f_jvp`, `f_hvp` and `f_hessian` return ([`Jvp`], [`Hvp`], [`Hessian`]).
//! - `ledger.rs`: the [`BackwardPass`] ledger; `error.rs`, `gradcheck.rs`,
//!   `render.rs`: errors, central-difference checks, tables and pictures.
//! - Storage: `nodes.rs` (node arrays and the invariant behind their
//!   `unsafe` push), `cell.rs` (the tape's cell and its borrow contract),
//!   `spare.rs` (memory reuse across tapes), `cold.rs` (the growth paths and
//!   their calling convention).
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

mod cell;
mod cold;
mod curvature;
mod derivatives;
mod dual;
mod error;
mod gradcheck;
mod iteration;
mod jacobian;
mod ledger;
mod nodes;
mod operation;
mod render;
mod replay;
pub mod rules;
mod second_order;
mod spare;
mod sweep;
mod tape;
mod value_and_gradient;

pub use curvature::{Hessian, Hvp, Jvp};
#[doc(hidden)]
pub use derivatives::two_operand;
pub use derivatives::{detach, one_operand_local, relu, sigmoid, Operand};
pub use dual::{forget_hidden_derivatives, hidden_derivative, Dual};
pub use error::{Label, Operands, ScalarAutodiffError};
pub use gradcheck::{
    default_step, gradient_check, relative_error, scalar_gradient_check, scaled_error,
    ComponentCheck, GradientCheck, GradientCheckError, ScalarGradientCheck, DEFAULT_TOLERANCE,
};
pub use iteration::{InLoop, Iteration, Iterations, Probe};
pub use jacobian::{jacobian_check, Jacobian, JacobianCheck};
pub use ledger::{BackwardEdge, BackwardNode, BackwardPass, PassSummary};
pub use nodes::{BYTES_PER_NODE, MAX_NODES};
pub use operation::ScalarOperation;
pub use render::{Numbers, RenderLimits, TapeView, Timeline, TimelineStep};
pub use rules::Real;
pub use second_order::SecondOrderPass;
pub use spare::SPARE_NODES;
pub use tape::{Scalar, Tape};
pub use value_and_gradient::ValueAndGradient;
