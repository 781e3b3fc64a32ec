use autodiff::prelude::*;

#[differentiable]
fn bucket(x: f64) -> f64 {
    let index = x as i64;
    x * index as f64
}

fn main() {}
