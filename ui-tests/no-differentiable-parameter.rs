use autodiff::prelude::*;

#[differentiable]
fn count(n: usize, #[constant] scale: f64) -> f64 {
    scale * n as f64
}

fn main() {}
