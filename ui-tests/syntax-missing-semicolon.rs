// A missing `;`: rustc's parse error only.
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64) -> f64 {
    let y = x * 2.0
    y + 1.0
}

fn main() {}
