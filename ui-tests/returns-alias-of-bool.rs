// A `type` alias of `bool` as the return type, with a body that returns a
// `bool`: the macro cannot see through the alias, so the gradient asserts
// it is `f64`: one error, on the return type.
use autodiff::prelude::*;

type Flag = bool;

#[differentiable]
fn above(x: f64) -> Flag {
    x > 1.0
}

fn main() {}
