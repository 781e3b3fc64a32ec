//! Pending (issue 11; not in main.rs until it passes): a range whose end is a
//! method call, with an adaptor in parentheses: `(0..x.len()).rev()`,
//! `(0..x.len()).step_by(3)`. The macro drops the parentheses today; the
//! ranges with literal or variable ends pass in `ranges.rs`.

use super::oracle::*;
use autodiff::prelude::*;

// Today (`for i in (0..coeffs.len()).rev()`: the parentheses are lost, the body reads `0..coeffs.len().rev()`): error[E0599]: `usize` is not an iterator: `usize` is not an iterator
#[differentiable]
fn horner_rev(coeffs: &[f64], x: f64) -> f64 {
    let mut acc = 0.0;
    for i in (0..coeffs.len()).rev() {
        acc = acc * x + coeffs[i];
    }
    acc
}

#[test]
fn horner_over_a_reversed_index_range() -> TestResult {
    let c = [2.0, 0.5, -1.0];
    for x in [1.5, -0.5] {
        let got = horner_rev_grad(&c, x)?;
        assert_eq!(got.value, horner_rev(&c, x));
        assert_all_close(&got.gradient.0, &[1.0, x, x * x], CLOSED);
        assert_close(got.gradient.1, 0.5 - 2.0 * x, CLOSED);
    }
    Ok(())
}

// Today (`for i in (0..x.len()).step_by(3)`: the parentheses are lost, the body reads `0..x.len().step_by(3)`): error[E0599]: `usize` is not an iterator: `usize` is not an iterator
#[differentiable]
fn strided_sum(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in (0..x.len()).step_by(3) {
        total += x[i] * x[i];
    }
    total
}

#[test]
fn step_by_over_the_length_of_a_slice() -> TestResult {
    let x = [1.0, 2.0, 3.0, 4.0, 5.0];
    let got = strided_sum_grad(&x)?;
    assert_eq!(got.value, 17.0);
    assert_eq!(got.gradient, vec![2.0, 0.0, 0.0, 8.0, 0.0]);
    Ok(())
}
