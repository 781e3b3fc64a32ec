use autodiff::prelude::*;

#[differentiable]
fn total(x: f64) -> f64 {
    let double = |v: f64| v * 2.0;
    double(x)
}

fn main() {}
