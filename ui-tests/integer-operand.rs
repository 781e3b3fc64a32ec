use autodiff::prelude::*;

#[differentiable]
fn double(x: f64, n: usize) -> f64 {
    x * n
}

fn main() {}
