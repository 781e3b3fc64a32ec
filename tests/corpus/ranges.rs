//! Ranges with adaptors in parentheses whose end is a literal or a variable:
//! `(0..n).step_by(2)`, `(0..4).rev()`, `(1..=n).rev()`,
//! `(1..6).rev().step_by(2)`. The parentheses decide what `.rev()` applies
//! to; the ones with a method-call end are in `pending_ranges.rs`.

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
