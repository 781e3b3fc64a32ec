use autodiff::prelude::*;

#[differentiable]
unsafe fn square(x: f64) -> f64 {
    x * x
}

fn main() {}
