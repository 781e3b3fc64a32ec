use autodiff::prelude::*;

#[differentiable]
fn rounded(x: f64) -> i32 {
    x as i32
}

fn main() {}
