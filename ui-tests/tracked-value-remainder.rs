use autodiff::prelude::*;

#[differentiable]
fn wrap(a: f64, b: f64) -> f64 {
    a % b
}

fn main() {}
