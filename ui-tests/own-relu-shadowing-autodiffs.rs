// A student's own `relu` (leaky) and `sigmoid` under autodiff's names: the
// macro reads the calls as autodiff's, so the body would get autodiff's
// derivative beside the student's value. It is one error per call instead.
use autodiff::prelude::*;

fn relu(x: f64) -> f64 {
    if x > 0.0 {
        x
    } else {
        0.1 * x
    }
}

fn sigmoid(x: f64) -> f64 {
    x.tanh()
}

#[differentiable]
fn unit(x: f64) -> f64 {
    relu(x) * 3.0 + sigmoid(x)
}

fn main() {}
