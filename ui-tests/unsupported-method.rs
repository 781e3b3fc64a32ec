use autodiff::prelude::*;

#[differentiable]
fn wave(x: f64) -> f64 {
    let (s, c) = x.sin_cos();
    s + c
}

fn main() {}
