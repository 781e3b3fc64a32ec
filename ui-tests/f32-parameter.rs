use autodiff::prelude::*;

#[differentiable]
fn square(x: f32) -> f64 {
    let y = x * x;
    y as f64
}

fn main() {}
