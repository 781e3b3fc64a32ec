// `sin_cos` reads its receiver twice (as `sin` and as `cos`): a value that
// is more than names and arithmetic is bound to a name first.
use autodiff::prelude::*;

#[differentiable]
fn angle(x: f64) -> f64 {
    x * 2.0
}

#[differentiable]
fn wave(x: f64) -> f64 {
    let (s, c) = angle(x).sin_cos();
    s + c
}

fn main() {}
