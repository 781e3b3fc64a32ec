//! Slices passed straight on and references to vectors and arrays as
//! parameters: `inner(x)` with `x: &[f64]`, `&Vec<f64>`, `&[f64; N]`.

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn energy(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for v in x {
        total += v * v;
    }
    total
}

#[differentiable]
fn doubled_energy(x: &[f64]) -> f64 {
    energy(x) * 2.0
}

#[test]
fn a_slice_parameter_passed_straight_on() -> TestResult {
    let got = doubled_energy_grad(&[1.0, -3.0])?;
    assert_eq!(got.value, 20.0);
    assert_eq!(got.gradient, vec![4.0, -12.0]);
    Ok(())
}

#[allow(clippy::ptr_arg)]
#[differentiable]
fn vec_ref_norm(v: &Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s.sqrt()
}

#[test]
fn a_reference_to_a_vec() -> TestResult {
    let v = vec![3.0, 4.0];
    let got = vec_ref_norm_grad(&v)?;
    assert_eq!(got.value, 5.0);
    assert_all_close(&got.gradient.flat(), &[0.6, 0.8], CLOSED);
    Ok(())
}

#[differentiable]
fn array_ref(v: &[f64; 3]) -> f64 {
    v[0] * v[1] * v[2]
}

#[test]
fn a_reference_to_an_array() -> TestResult {
    let got = array_ref_grad(&[2.0, 3.0, 4.0])?;
    assert_eq!(got.value, 24.0);
    assert_eq!(got.gradient.flat(), vec![12.0, 8.0, 6.0]);
    Ok(())
}
