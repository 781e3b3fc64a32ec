use autodiff::prelude::*;

#[differentiable]
fn wave(x: f64) -> f64 {
    let whole = x.trunc();
    x - whole
}

fn main() {}
