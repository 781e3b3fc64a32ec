// A tracked value where an annotated function takes a `usize`, and a
// `bool`: the plain twin's mismatched types, once each.
use autodiff::prelude::*;

#[differentiable]
fn scaled(x: f64, n: usize, flip: bool) -> f64 {
    if flip {
        -x * n as f64
    } else {
        x * n as f64
    }
}

#[differentiable]
fn caller(x: f64) -> f64 {
    let y = x * 2.0;
    scaled(x, y, x)
}

fn main() {}
