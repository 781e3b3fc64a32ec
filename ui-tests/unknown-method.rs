// A method f64 does not have, called on a tracked value: rustc's error on
// the plain twin, and (still) a second one from the recording twin, which
// cannot tell a missing method from one that would drop the gradient.
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64) -> f64 {
    x.squared()
}

fn main() {}
