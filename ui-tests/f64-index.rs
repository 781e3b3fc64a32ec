// An `f64` parameter, and a tracked local, used as an index: the plain
// twin's error once each.
use autodiff::prelude::*;

#[differentiable]
fn pick(v: Vec<f64>, k: f64) -> f64 {
    v[k]
}

#[differentiable]
fn pick_scaled(w: [f64; 3], x: f64) -> f64 {
    let k = x * 2.0;
    w[k] + x
}

fn main() {}
