use autodiff::prelude::*;

#[differentiable(fast)]
fn square(x: f64) -> f64 {
    x * x
}

fn main() {}
