use autodiff::prelude::*;

#[derive(Clone, Parameters)]
struct Layer {
    w: [[f64; 2]; 3],
    size: usize,
    scale: f32,
    #[constant]
    name: String,
}

fn main() {}
