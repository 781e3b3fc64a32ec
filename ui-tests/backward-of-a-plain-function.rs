use autodiff::prelude::*;

fn loss(x: f64) -> f64 {
    x * x
}

#[backward(loss)]
fn loss_backward(x: f64) -> f64 {
    2.0 * x
}

fn main() {}
