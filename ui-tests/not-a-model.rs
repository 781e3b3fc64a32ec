use autodiff::prelude::*;

#[derive(Clone)]
struct Sample {
    x: [f64; 2],
    y: f64,
}

#[differentiable]
fn loss(sample: &Sample, w: f64) -> f64 {
    w * sample.x[0] - sample.y
}

fn main() {}
