// An attribute on one associated function without `self` would generate
// free functions that name each other, which cannot sit in an `impl`: one
// error, on the attribute, says it belongs on the block.
use autodiff::prelude::*;

struct Model;

impl Model {
    #[differentiable]
    fn loss(w: f64, #[constant] x: f64) -> f64 {
        (w * x - 1.0).powi(2)
    }
}

fn main() {}
