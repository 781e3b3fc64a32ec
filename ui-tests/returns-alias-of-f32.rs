// A `type` alias of `f32` as the return type over an `f64` body: the plain
// function's own mismatched types, once (the assertion on the alias reads
// the body's `f64` value and adds nothing).
use autodiff::prelude::*;

type Single = f32;

#[differentiable]
fn square(x: f64) -> Single {
    x * x
}

fn main() {}
