// A comparison bound to an `f64`: the plain twin's mismatched types, once.
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64) -> f64 {
    let y: f64 = x > 1.0;
    y * x
}

fn main() {}
