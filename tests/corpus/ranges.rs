//! Ranges with adaptors in parentheses whose end is a literal or a variable:
//! `(0..n).step_by(2)`, `(0..4).rev()`, `(1..=n).rev()`,
//! `(1..6).rev().step_by(2)`. The parentheses decide what `.rev()` applies
//! to, also with a method-call end: `(0..x.len()).rev()`,
//! `(0..x.len()).step_by(3)`.

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn even_terms(x: f64, n: usize) -> f64 {
    let mut total = 0.0;
    for k in (0..n).step_by(2) {
        total += x.powi(k as i32) / (k as f64 + 1.0);
    }
    total
}

#[test]
fn step_by_two_over_an_index_range() -> TestResult {
    let x = 0.7_f64;
    let got = even_terms_grad(x, 7)?;
    assert_eq!(got.value, even_terms(x, 7));
    // Σ_{k=0,2,4,6} x^k/(k+1): derivative Σ k x^(k−1)/(k+1).
    let want = 2.0 * x / 3.0 + 4.0 * x.powi(3) / 5.0 + 6.0 * x.powi(5) / 7.0;
    assert_close(got.gradient, want, CLOSED);
    Ok(())
}

#[differentiable]
fn backward_cumulative(r: [f64; 4], #[constant] gamma: f64) -> f64 {
    let mut g = 0.0;
    let mut total = 0.0;
    for t in (0..4).rev() {
        g = r[t] + gamma * g;
        total += g;
    }
    total
}

#[test]
fn returns_to_go_from_the_last_step() -> TestResult {
    let gamma = 0.5;
    let got = backward_cumulative_grad([1.0, 2.0, 3.0, 4.0], gamma)?;
    assert_eq!(got.value, backward_cumulative([1.0, 2.0, 3.0, 4.0], gamma));
    // Σ_t G_t with G_t = Σ_{s≥t} γ^(s−t) r_s: ∂/∂r_s = Σ_{t≤s} γ^(s−t).
    assert_all_close(&got.gradient, &[1.0, 1.5, 1.75, 1.875], CLOSED);
    Ok(())
}

#[differentiable]
fn falling_factorial_poly(x: f64, n: usize) -> f64 {
    let mut p = 1.0;
    for k in (1..=n).rev() {
        p *= x - k as f64;
    }
    p
}

#[test]
fn inclusive_range_reversed() -> TestResult {
    let x = 0.5_f64;
    let got = falling_factorial_poly_grad(x, 3)?;
    assert_eq!(got.value, falling_factorial_poly(x, 3));
    // (x−1)(x−2)(x−3): derivative Σ of pairwise products.
    let (a, b, c) = (x - 1.0, x - 2.0, x - 3.0);
    assert_close(got.gradient, a * b + a * c + b * c, CLOSED);
    Ok(())
}

#[differentiable]
fn odd_from_the_top(x: [f64; 6]) -> f64 {
    let mut total = 0.0;
    for i in (1..6).rev().step_by(2) {
        total += x[i].sin();
    }
    total
}

#[test]
fn rev_then_step_by() -> TestResult {
    let x = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
    let got = odd_from_the_top_grad(x)?;
    assert_eq!(got.value, odd_from_the_top(x));
    // i = 5, 3, 1.
    let want = [0.0, 0.2_f64.cos(), 0.0, 0.4_f64.cos(), 0.0, 0.6_f64.cos()];
    assert_all_close(&got.gradient, &want, CLOSED);
    Ok(())
}

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
