use autodiff::prelude::*;

fn plain_square(v: f64) -> f64 {
    v * v
}

#[differentiable]
fn loss(x: f64) -> f64 {
    plain_square(x) + 1.0
}

fn main() {}
