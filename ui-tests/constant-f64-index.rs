// A `#[constant]` parameter declared `f64`, used as an index: the plain
// twin's error once, as for a tracked index (`f64-index.rs`).
use autodiff::prelude::*;

#[differentiable]
fn pick(v: [f64; 3], #[constant] k: f64) -> f64 {
    v[k] * 2.0
}

fn main() {}
