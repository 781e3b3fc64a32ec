// A `#[constant]` parameter carries no gradient: passing it a tracked value
// would drop that value's gradient.
use autodiff::prelude::*;

#[differentiable]
fn scaled(w: f64, #[constant] scale: f64) -> f64 {
    w * scale
}

#[differentiable]
fn loss(w: f64, x: f64) -> f64 {
    scaled(w, x) + x
}

fn main() {}
