// An `f64` parameter as the end of a loop's range: the plain twin's
// mismatched types once.
use autodiff::prelude::*;

#[differentiable]
fn power(x: f64, n: f64) -> f64 {
    let mut s = x;
    for _ in 1..n {
        s = s * x;
    }
    s
}

fn main() {}
