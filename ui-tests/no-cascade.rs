// The rejected function is still emitted, so its callers compile and the
// only error is the one that matters.
use autodiff::prelude::*;

#[differentiable]
fn wave(x: f64) -> f64 {
    x.trunc()
}

fn main() {
    let value: f64 = wave(0.5);
    println!("{value}");
}
