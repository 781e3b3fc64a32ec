// An early `return` of a `bool` and a body that ends in an integer
// parameter: the plain twin's mismatched types once each.
use autodiff::prelude::*;

#[differentiable]
fn early(x: f64) -> f64 {
    if x > 1.0 {
        return x > 2.0;
    }
    x * x
}

#[differentiable]
fn count(x: f64, n: usize) -> f64 {
    let _ = x * x;
    n
}

fn main() {}
