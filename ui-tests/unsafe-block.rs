use autodiff::prelude::*;

#[differentiable]
fn square(x: f64) -> f64 {
    let y = unsafe { x * x };
    y
}

fn main() {}
