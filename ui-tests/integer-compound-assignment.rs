// A `usize` added to and multiplied into a tracked accumulator: the plain
// twin's error once each (the reverse of `s *= n` reads `n`).
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64, n: usize) -> f64 {
    let mut s = x;
    s += n;
    s *= n;
    s
}

fn main() {}
