use autodiff::prelude::*;

#[differentiable]
fn square(x: f64) {
    let _ = x * x;
}

fn main() {}
