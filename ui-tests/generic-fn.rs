use autodiff::prelude::*;

#[differentiable]
fn scale<T>(x: f64, factor: T) -> f64 {
    x * 2.0
}

fn main() {}
