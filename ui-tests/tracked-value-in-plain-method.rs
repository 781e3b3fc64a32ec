use autodiff::prelude::*;

#[differentiable]
fn bits(x: f64) -> f64 {
    let raw = x.to_bits();
    x * raw as f64
}

fn main() {}
