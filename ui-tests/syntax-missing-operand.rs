// A syntax typo in the body: rustc's parse error only.
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64) -> f64 {
    x * ;
}

fn main() {}
