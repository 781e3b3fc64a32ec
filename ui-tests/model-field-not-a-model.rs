use autodiff::prelude::*;

#[derive(Clone)]
struct Sample {
    x: [f64; 2],
}

#[derive(Clone, Parameters)]
struct Layer {
    w: [[f64; 2]; 3],
    data: Sample,
}

fn main() {}
