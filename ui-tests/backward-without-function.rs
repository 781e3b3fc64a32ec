use autodiff::prelude::*;

#[backward]
fn my_backward(x: f64) -> f64 {
    let y_bar = 1.0;
    y_bar * x
}

fn main() {}
