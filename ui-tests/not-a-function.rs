use autodiff::prelude::*;

#[differentiable]
struct Weights {
    w: f64,
}

fn main() {}
