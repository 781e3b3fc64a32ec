// The plain twin's error, once: the recording twin never adds a second
// copy naming `Scalar`.
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64, flag: bool) -> f64 {
    x * 2
}

fn main() {}
