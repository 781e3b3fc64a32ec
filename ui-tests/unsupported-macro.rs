use autodiff::prelude::*;

#[differentiable]
fn square(x: f64) -> f64 {
    println!("x = {x}");
    x * x
}

fn main() {}
