//! Signatures that work today: recursion on the tail of a slice
//! (`&x[1..]`), a sub-slice passed to a helper (`&x[..2]`), `to_vec` of a
//! slice parameter. The rest of the family (a slice passed straight on,
//! `&Vec<f64>`, `_: f64`, aliases, `'tape`, `impl` items, `use`, a crate
//! path) is in `pending_signatures.rs`.

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
