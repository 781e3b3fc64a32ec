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
