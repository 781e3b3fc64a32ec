use autodiff::prelude::*;

#[differentiable]
fn messy(x: f64, y: f32) -> f64 {
    let t = x.trunc();
    let f = |v: f64| v + 1.0;
    let g = format!("{x}");
    f(t) + y as f64
}

fn main() {}
