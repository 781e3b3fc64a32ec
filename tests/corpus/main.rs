//! The student corpus of issue 11: ordinary exercise code (layers, losses,
//! norms, physics formulas, statistics, the Rust a student reaches for)
//! through `#[differentiable]`. Every function's test checks the value
//! against its plain twin and the gradient against an independent oracle:
//! a closed form worked out by hand (relative tolerance `oracle::CLOSED`,
//! 1e-12, a few roundings), or Ridders-extrapolated central differences of
//! the plain twin (`oracle::NUMERIC`, 1e-7), at two or three points away
//! from kinks; smooth ones also pass `f_check`.
//!
//! Families compiled today (one module each):
//! - `iterators`: closures in iterator chains (`map`/`sum`, `fold`, `zip`,
//!   `product`, `max_by`, `collect`, ...), closures capturing tracked values,
//!   a closure bound to a name and called (`let act = |v: f64| ..; act(x)`).
//! - `layers`: lesson-15 layers and losses (dense, layer/RMS norm, residual,
//!   attention, softmax cross-entropy, BCE, Huber, hinge, KL, activations).
//! - `control_flow`: `for`/`while`/`loop`, `break 'label`, `continue`,
//!   early `return`, `match` on integers, compound assignment, unrolled
//!   Newton / Euler / gradient descent.
//! - `composition`: annotated helpers calling each other, local arrays and
//!   `Vec`s, `push`, `vec!`, `#[constant]`, integer and `bool` parameters.
//! - `networks`: later exercises (1-D convolution, max pooling, an unrolled
//!   RNN, a gated unit, an Adam step, triplet and negative-sampling losses,
//!   batch norm, causal attention over `Vec<Vec<f64>>`, regressions).
//! - `formulas`: physics and statistics (energy, range, lens, Coulomb,
//!   variance, covariance, Gaussian NLL, means).
//! - `integers`: lengths bound to names, integer halves and indices, counts,
//!   `Vec::with_capacity(m)`, `std::cmp::max(1, m)`.
//! - `patterns`: tuples, `Option`s, `match` on tuples, `while let`.
//! - `macros`: `assert!`, `debug_assert!`, `assert_eq!`, `panic!`,
//!   `unreachable!`, `todo!`, `println!`, `eprintln!`, `dbg!`.
//! - `signatures`: the part of that family that already works.
//! - `signature_edges`: `_: f64`, type aliases, a parameter named like its
//!   function, a lifetime `'tape`, `#[differentiable(crate = path)]`.
//! - `impls`: associated functions and methods in `impl` blocks: a
//!   `#[differentiable] impl` block (associated functions without `self`
//!   calling each other as `Self::f`), `&self` methods of a model.
//! - `imports`: annotated helpers through modules: `use m::f;` then
//!   `f(x)`, `use m::f as g;`, `m::f(x)`, `super::f(x)`.
//! - `slices`: a slice passed straight on, `&Vec<f64>`, `&[f64; N]`.
//! - `ranges`: adaptors on parenthesised ranges, also with a method-call end.
//! - `attributes`: `#[allow]` on statements and `let`s, raw identifiers.
//! - `elementary`: `tan atan sinh cosh asin acos ln_1p exp_m1 log10 log2
//!   log hypot mul_add cbrt signum floor ceil round clamp` in formulas.
//! - `infinities`: running max/min from `f64::NEG_INFINITY` / `INFINITY`;
//!   lesson 15's masks (`s + mask` with `mask = −∞`, then a softmax) and
//!   what stays an error (an infinite output, `∞ − ∞`, `0 · ∞`, `ln(0)`).
//! - `regressions`: once wrong values or panics (`#[cfg]` on statements,
//!   `powi(i32::MIN)`).

// Index loops on purpose: students write them, and they read like the
// lesson's matrix formulas.
#![allow(clippy::needless_range_loop)]

mod oracle;

// The crate under another name, for `#[differentiable(crate = ..)]`.
extern crate autodiff as autodiff_renamed;

mod attributes;
mod composition;
mod control_flow;
mod elementary;
mod formulas;
mod impls;
mod imports;
mod infinities;
mod integers;
mod iterators;
mod layers;
mod macros;
mod networks;
mod patterns;
mod ranges;
mod regressions;
mod signature_edges;
mod signatures;
mod slices;
