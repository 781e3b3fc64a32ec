// A `type` alias of a tuple as the return type (the gradient keeps the
// tape for a tuple value): one error, on the return type.
use autodiff::prelude::*;

type Pair = (f64, f64);

#[differentiable]
fn both(x: f64) -> Pair {
    (x, 2.0 * x)
}

fn main() {}
