// An array, a slice and a `Vec` used as numbers: the plain twin's error
// once each, none naming the recording twin's types.
use autodiff::prelude::*;

#[differentiable]
fn doubled(x: [f64; 2]) -> f64 {
    x * 2.0
}

#[differentiable]
fn dot(w: [f64; 2], x: [f64; 2]) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        s += w[i] * x;
    }
    s
}

#[differentiable]
fn shifted(v: &[f64], u: Vec<f64>) -> f64 {
    v[0] + (u - 1.0)
}

fn main() {}
