// Arguments of another shape than the annotated callee takes (an array
// for a number, a number for a Vec, an array or a slice, an array for a
// Vec or a slice): the plain twin's mismatched types once each.
use autodiff::prelude::*;

#[differentiable]
fn square(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn first(x: Vec<f64>) -> f64 {
    x[0]
}

#[differentiable]
fn pair(x: [f64; 2]) -> f64 {
    x[0] * x[1]
}

#[differentiable]
fn total(x: &[f64]) -> f64 {
    x.iter().sum()
}

#[differentiable]
fn caller(y: f64, w: [f64; 2]) -> f64 {
    square(w) + first(y) + pair(y) + total(y) + first(w) + total(w)
}

fn main() {}
