// A loop counter (`usize`) multiplied into a tracked value inside a loop,
// and a `usize` length dividing one: the plain twin's error once each.
use autodiff::prelude::*;

#[differentiable]
fn loss(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let t = x[i] * i;
        s += t * t;
    }
    s / x.len()
}

fn main() {}
