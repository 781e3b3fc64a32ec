use autodiff::prelude::*;

#[differentiable]
async fn square(x: f64) -> f64 {
    x * x
}

fn main() {}
