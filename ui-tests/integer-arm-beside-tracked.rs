// An integer literal, and an integer parameter, as the other arm of a
// branch whose first arm is tracked: the plain twin's incompatible arms
// once each, none naming the recording twin's types.
use autodiff::prelude::*;

#[differentiable]
fn literal(x: f64, c: bool) -> f64 {
    let y = if c { x } else { 0 };
    y * 2.0
}

#[differentiable]
fn count(x: f64, n: usize) -> f64 {
    if x > 1.0 {
        x * x
    } else {
        n
    }
}

fn main() {}
