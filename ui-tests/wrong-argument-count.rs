// Too many arguments to an annotated function: the plain twin's error, once
// (the recording twin's call of the same count never runs).
use autodiff::prelude::*;

#[differentiable]
fn square(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn caller(x: f64) -> f64 {
    square(x, 2.0)
}

fn main() {}
