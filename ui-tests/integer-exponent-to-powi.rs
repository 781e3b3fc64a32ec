// A `usize` exponent passed to `powi`, which takes an `i32`: the plain
// twin's mismatched types once.
use autodiff::prelude::*;

#[differentiable]
fn power(x: f64, n: usize) -> f64 {
    x.powi(n)
}

fn main() {}
