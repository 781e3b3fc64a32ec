use autodiff::prelude::*;

#[differentiable]
fn scaled(x: f64, n: usize) -> f64 {
    x * n as f64
}

#[differentiable]
fn caller(x: f64) -> f64 {
    scaled(x, x)
}

fn main() {}
