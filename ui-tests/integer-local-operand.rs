// An `i32` binding divides and multiplies a tracked value: the plain twin's
// error once each, none from the adjoint's reverse sweep (`value_bar / k`).
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64) -> f64 {
    let k: i32 = 2;
    x / k + k * x
}

fn main() {}
