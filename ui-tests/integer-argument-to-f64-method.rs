// Integers passed to `max`, `powf` and `min` of a tracked value: the
// plain twin's mismatched types once each.
use autodiff::prelude::*;

#[differentiable]
fn clipped(x: f64, n: usize) -> f64 {
    x.max(n)
}

#[differentiable]
fn power(x: f64, k: i32) -> f64 {
    x.powf(k) + x.min(2)
}

fn main() {}
