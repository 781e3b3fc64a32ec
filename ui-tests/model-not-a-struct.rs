use autodiff::prelude::*;

#[derive(Clone, Parameters)]
enum Activation {
    Relu,
    Tanh,
}

#[derive(Clone, Parameters)]
struct Pair(f64, f64);

#[derive(Clone, Parameters)]
struct Generic<T> {
    w: T,
}

#[derive(Clone, Parameters)]
struct Sizes {
    #[constant]
    width: usize,
}

fn main() {}
