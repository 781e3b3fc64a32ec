// An attribute on one function sees that function alone: it cannot know it
// sits in an `impl`, so its generated functions name each other as free
// functions. The attribute belongs on the block.
use autodiff::prelude::*;

struct Model;

impl Model {
    #[differentiable]
    fn loss(w: f64, #[constant] x: f64) -> f64 {
        (w * x - 1.0).powi(2)
    }
}

fn main() {}
