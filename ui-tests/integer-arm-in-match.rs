// An integer arm of a `match` beside a tracked arm: the plain twin's
// "`match` arms have incompatible types" once.
use autodiff::prelude::*;

#[differentiable]
fn pick(x: f64, k: usize) -> f64 {
    match k {
        0 => x,
        _ => 0,
    }
}

fn main() {}
