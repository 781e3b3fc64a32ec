// A body that returns a `bool` from `-> f64`: the plain twin's error, once.
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64) -> f64 {
    x > 1.0
}

fn main() {}
