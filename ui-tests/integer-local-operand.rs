// An `i32` binding divides and multiplies a tracked value, also through
// `abs` (an `i32` method): the plain twin's error once each, none from the
// adjoint's reverse sweep (`value_bar / k`, `value_bar * k_abs`).
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64) -> f64 {
    let k: i32 = 2;
    x / k + k * x
}

#[differentiable]
fn magnitude(x: f64, n: i32) -> f64 {
    x * n.abs()
}

fn main() {}
