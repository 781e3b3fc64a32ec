use autodiff::prelude::*;

#[differentiable]
fn loss(w: [f64; 2], b: f64) -> f64 {
    let z = w[0] * w[1] + b;
    z * z
}

// `loss`'s gradient is `([f64; 2], f64)`: one per differentiable parameter.
#[backward(loss)]
fn loss_backward(w: [f64; 2], b: f64) -> [f64; 2] {
    let z = w[0] * w[1] + b;
    let z_bar = 2.0 * z;
    [z_bar * w[1], z_bar * w[0]]
}

fn main() {}
