// Too few arguments to an annotated function, inside a loop: the plain
// twin's error once.
use autodiff::prelude::*;

#[differentiable]
fn scaled(x: f64, n: usize) -> f64 {
    x * n as f64
}

#[differentiable]
fn caller(x: f64) -> f64 {
    let mut s = 0.0;
    for _ in 0..3 {
        s += scaled(x);
    }
    s
}

fn main() {}
