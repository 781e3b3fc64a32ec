// A tracked `f64` exponent passed to `powi`, which takes an `i32`: the
// plain twin's mismatched types once (`powf` is the float power).
use autodiff::prelude::*;

#[differentiable]
fn power(x: f64, y: f64) -> f64 {
    x.powi(y)
}

fn main() {}
