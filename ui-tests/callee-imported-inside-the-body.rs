// A `use` inside the body imports a plain `helper` while the module has an
// annotated one: the call would take the module's derivative beside the
// imported function's value, so it is refused. Imports from the standard
// library (`std::cmp::max`, `std::f64::consts::*`) are fine.
use autodiff::prelude::*;

#[differentiable]
fn helper(x: f64) -> f64 {
    x * x
}

mod other {
    pub fn helper(x: f64) -> f64 {
        x * x * x
    }
    pub fn twice(x: f64) -> f64 {
        2.0 * x
    }
}

#[differentiable]
fn named(x: f64) -> f64 {
    use other::helper;
    helper(x) * 2.0
}

#[differentiable]
fn globbed(x: f64, n: usize) -> f64 {
    use other::*;
    use std::cmp::max;
    use std::f64::consts::PI;
    twice(x) * max(n, 2) as f64 * PI
}

fn main() {}
