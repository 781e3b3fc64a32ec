// A typo in a name: rustc's error, once.
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64) -> f64 {
    let total = x * 2.0;
    totl + 1.0
}

fn main() {}
