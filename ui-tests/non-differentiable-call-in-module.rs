// A plain helper reached by path, or imported with `use`: the same error,
// on the helper's name.
use autodiff::prelude::*;

mod helpers {
    pub fn halve(v: f64) -> f64 {
        v / 2.0
    }
    pub fn double(v: f64) -> f64 {
        v * 2.0
    }
}

use helpers::double;

#[differentiable]
fn loss(x: f64) -> f64 {
    helpers::halve(x) + double(x)
}

fn main() {}
