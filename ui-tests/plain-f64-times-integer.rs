// A plain `f64` times an integer inside an expression that also reads a
// tracked value: rustc's own error on the `*`, once.
use autodiff::prelude::*;

#[differentiable]
fn scaled(v: &[f64], x: f64) -> f64 {
    let n: usize = 3;
    v.len() as f64 * n * x
}

fn main() {}
