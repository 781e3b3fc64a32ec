// A #[differentiable] method of a struct without #[derive(Parameters)]:
// `self` is not a model, said on the receiver.
use autodiff::prelude::*;

struct Neuron {
    weight: f64,
}

impl Neuron {
    #[differentiable]
    fn forward(&self, x: f64) -> f64 {
        self.weight * x
    }
}

fn main() {}
