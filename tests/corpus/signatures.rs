//! Signatures and items around the annotated function: slices passed
//! straight on, recursion on a sub-slice, `&Vec<f64>`, `_: f64`, type
//! aliases, a parameter named like its function, a user lifetime `'tape`,
//! an associated function in an `impl` block, `use module::f`, a renamed
//! crate path.

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn tail_sum_of_cubes(x: &[f64]) -> f64 {
    if x.is_empty() {
        0.0
    } else {
        x[0] * x[0] * x[0] + tail_sum_of_cubes(&x[1..])
    }
}

#[test]
fn recursion_on_the_tail_of_a_slice() -> TestResult {
    let got = tail_sum_of_cubes_grad(&[1.0, 2.0, -1.0])?;
    assert_eq!(got.value, 8.0);
    assert_eq!(got.gradient, vec![3.0, 12.0, 3.0]);
    Ok(())
}

#[differentiable]
fn energy(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for v in x {
        total += v * v;
    }
    total
}

#[differentiable]
fn mean_of_front(x: &[f64]) -> f64 {
    energy(&x[..2]) / 2.0
}

#[test]
fn a_sub_slice_passed_to_a_helper() -> TestResult {
    let got = mean_of_front_grad(&[1.0, 2.0, 9.0])?;
    assert_eq!(got.value, 2.5);
    assert_eq!(got.gradient, vec![1.0, 2.0, 0.0]);
    Ok(())
}

#[differentiable]
fn mutable_slice_copy(x: &[f64]) -> f64 {
    let mut y = x.to_vec();
    y[0] *= 3.0;
    y[0] + y[1]
}

#[test]
fn to_vec_then_mutate() -> TestResult {
    let got = mutable_slice_copy_grad(&[1.0, 2.0])?;
    assert_eq!(got.value, 5.0);
    assert_eq!(got.gradient, vec![3.0, 1.0]);
    Ok(())
}
