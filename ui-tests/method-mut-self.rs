use autodiff::prelude::*;

#[derive(Clone, Parameters)]
struct Neuron {
    w: f64,
}

impl Neuron {
    #[differentiable]
    fn step(&mut self, x: f64) -> f64 {
        self.w = self.w * x;
        self.w
    }
}

fn main() {
    let mut neuron = Neuron { w: 2.0 };
    // The method as written still exists: no second error here.
    let _ = neuron.step(3.0);
}
