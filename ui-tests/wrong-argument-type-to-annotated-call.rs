// A tracked `f64` passed where an annotated function takes a `usize`, and
// a reference where it takes an `f64`: the plain twin's mismatched types
// once each, none from the adjoint's calls of the callee's forward and
// reverse.
use autodiff::prelude::*;

#[differentiable]
fn scaled(x: f64, n: usize) -> f64 {
    x * n as f64
}

#[differentiable]
fn caller(x: f64) -> f64 {
    let y = x * 2.0;
    scaled(x, y)
}

#[differentiable]
fn by_reference(x: f64) -> f64 {
    scaled(&x, 2)
}

fn main() {}
