use autodiff::prelude::*;

#[differentiable]
fn parse_and_scale(x: f64) -> f64 {
    let factor: f64 = "2.0".parse().ok()?;
    x * factor
}

fn main() {}
