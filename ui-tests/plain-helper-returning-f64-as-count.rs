use autodiff::prelude::*;

fn spread(x: &[f64]) -> f64 {
    x[1] - x[0]
}

// `spread`'s value is a range bound, so it is called on plain values; it
// returns an f64, which would have carried a derivative.
#[differentiable]
fn widths(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..spread(x) as usize {
        s += x[i];
    }
    s
}

fn main() {}
