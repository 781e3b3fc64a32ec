// A method f64 does not have, called on a tracked value: the plain twin's
// error, once (a probe of the same call on the plain twin's types tells the
// recording twin that the method is missing, not one that drops a gradient).
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64) -> f64 {
    x.squared()
}

fn main() {}
