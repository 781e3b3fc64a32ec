// A `Vec` passed where an annotated function takes an array, and a
// reference to one where it takes the `Vec` itself: rustc's mismatched
// types once each, as for the other shapes
// (`wrong-shape-to-annotated-call.rs`).
use autodiff::prelude::*;

#[differentiable]
fn first(a: [f64; 2]) -> f64 {
    a[0]
}

#[differentiable]
fn total(v: Vec<f64>) -> f64 {
    v.iter().sum()
}

#[differentiable]
fn vec_for_array(v: Vec<f64>) -> f64 {
    first(v) * 2.0
}

#[differentiable]
fn reference_for_vec(v: Vec<f64>) -> f64 {
    total(&v) * 2.0
}

fn main() {}
