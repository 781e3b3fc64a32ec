// An integer receiver of `powf` with a tracked exponent: rustc's own error
// on the method call once, with no second copy from the recording twin.
use autodiff::prelude::*;

#[differentiable]
fn inferred(x: f64) -> f64 {
    let n = 2;
    n.powf(x)
}

#[differentiable]
fn declared(x: f64) -> f64 {
    let n: i64 = 2;
    n.powf(x) + x
}

fn main() {}
