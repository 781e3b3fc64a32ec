// A mistaken operand inside one arm of a branch, and a `bool` divisor
// after `tanh`: the plain twin's error once each.
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64, n: i64, flag: bool) -> f64 {
    let y = if x > 0.0 { x * n } else { x };
    y + x.tanh() / flag
}

fn main() {}
