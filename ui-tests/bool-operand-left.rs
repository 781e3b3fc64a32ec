// A `bool` operand on the left of a product and on the right of a
// difference: the plain twin's error once each, none from the adjoint.
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64, flag: bool) -> f64 {
    let y = flag * x;
    y - flag
}

fn main() {}
