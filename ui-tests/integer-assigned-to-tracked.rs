// A `usize` and an integer literal assigned to a binding that holds a
// tracked value: the plain twin's mismatched types once each.
use autodiff::prelude::*;

#[differentiable]
fn reset(x: f64, n: usize) -> f64 {
    let mut y = x * x;
    if x > 1.0 {
        y = n;
    } else {
        y = 0;
    }
    y
}

fn main() {}
