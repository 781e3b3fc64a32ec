//! Patterns: `match` with guards on an `Option` constant, array
//! destructuring (`let [a, b, c] = p`), tuples of tracked values (annotated,
//! held in `let mut`, accumulators `(0, x[0])`, `if` arms), `match` on
//! tuples, `Option`s of tracked values, `while let`. `first()`/`last()`
//! are `tests/compiled/options.rs`'s.

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn maybe_scaled(x: f64, #[constant] scale: Option<f64>) -> f64 {
    match scale {
        Some(s) => x * x * s,
        None => x * x,
    }
}

#[test]
fn match_on_an_option_parameter() -> TestResult {
    assert_eq!(maybe_scaled_grad(3.0, Some(2.0))?.gradient, 12.0);
    assert_eq!(maybe_scaled_grad(3.0, None)?.gradient, 6.0);
    assert_eq!(maybe_scaled(3.0, None), 9.0);
    Ok(())
}

#[differentiable]
fn triangle_area(p: [f64; 3]) -> f64 {
    let [a, b, c] = p;
    let s = (a + b + c) / 2.0;
    (s * (s - a) * (s - b) * (s - c)).sqrt()
}

#[test]
fn array_destructuring_in_heron_formula() -> TestResult {
    for p in [[3.0, 4.0, 5.0], [2.0, 2.5, 3.0]] {
        let got = triangle_area_grad(p)?;
        assert_eq!(got.value, triangle_area(p));
        assert!(triangle_area_check(p)?.passed());
        assert_numeric(&got.gradient, |q| triangle_area(arr(q)), &p);
    }
    Ok(())
}

#[differentiable]
fn clipped_ratio(ratio: f64, advantage: f64, #[constant] eps: Option<f64>) -> f64 {
    match eps {
        Some(e) if ratio > 1.0 + e => (1.0 + e) * advantage,
        Some(e) if ratio < 1.0 - e => (1.0 - e) * advantage,
        _ => ratio * advantage,
    }
}

#[test]
fn option_patterns_with_guards() -> TestResult {
    assert_eq!(
        clipped_ratio_grad(1.5, 2.0, Some(0.2))?.gradient,
        (0.0, 1.2)
    );
    assert_eq!(
        clipped_ratio_grad(0.5, 2.0, Some(0.2))?.gradient,
        (0.0, 0.8)
    );
    assert_eq!(
        clipped_ratio_grad(1.1, 2.0, Some(0.2))?.gradient,
        (2.0, 1.1)
    );
    assert_eq!(clipped_ratio_grad(1.5, 2.0, None)?.gradient, (2.0, 1.5));
    Ok(())
}

#[differentiable]
fn polar_energy(x: f64, y: f64) -> f64 {
    let (r, c) = ((x * x + y * y).sqrt(), x / (x * x + y * y).sqrt());
    r * r * c
}

#[test]
fn a_tuple_of_two_tracked_expressions() -> TestResult {
    for (x, y) in [(3.0, 4.0), (1.0, -0.5)] {
        let got = polar_energy_grad(x, y)?;
        assert_eq!(got.value, polar_energy(x, y));
        assert!(polar_energy_check(x, y)?.passed());
        // r²·(x/r) = x·r: ∂x = r + x²/r, ∂y = xy/r.
        let r = f64::hypot(x, y);
        assert_close(got.gradient.0, r + x * x / r, CLOSED);
        assert_close(got.gradient.1, x * y / r, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn quadrant_energy(x: f64, y: f64) -> f64 {
    match (x > 0.0, y > 0.0) {
        (true, true) => x * y,
        (true, false) => x - y,
        (false, true) => y * y,
        (false, false) => 0.0,
    }
}

#[test]
fn match_on_a_tuple_of_comparisons() -> TestResult {
    for (x, y, want) in [
        (2.0, 3.0, (3.0, 2.0)),
        (2.0, -3.0, (1.0, -1.0)),
        (-2.0, 3.0, (0.0, 6.0)),
        (-2.0, -3.0, (0.0, 0.0)),
    ] {
        let got = quadrant_energy_grad(x, y)?;
        assert_eq!(got.value, quadrant_energy(x, y));
        assert_eq!(got.gradient, want);
    }
    Ok(())
}

#[differentiable]
fn guarded_log(x: f64) -> f64 {
    let positive = if x > 0.0 { Some(x) } else { None };
    match positive {
        Some(v) => v.ln(),
        None => 0.0,
    }
}

#[test]
fn an_option_holding_a_tracked_value() -> TestResult {
    let got = guarded_log_grad(2.0)?;
    assert_eq!((got.value, got.gradient), (2.0_f64.ln(), 0.5));
    assert_eq!(guarded_log_grad(-1.0)?.gradient, 0.0);
    Ok(())
}

// `while let` on purpose: the pattern under test.
#[allow(clippy::while_let_on_iterator)]
#[differentiable]
fn drain_sum(x: &[f64]) -> f64 {
    let mut it = x.iter();
    let mut total = 0.0;
    while let Some(v) = it.next() {
        total += v * v * v;
    }
    total
}

#[test]
fn while_let_over_an_iterator() -> TestResult {
    let got = drain_sum_grad(&[1.0, -2.0])?;
    assert_eq!(got.value, -7.0);
    assert_eq!(got.gradient, vec![3.0, 12.0]);
    Ok(())
}

#[differentiable]
fn area_ratio(x: f64) -> f64 {
    let (a, b): (f64, f64) = (x * 2.0, x * 3.0);
    a * b
}

#[test]
fn an_annotated_tuple_local() -> TestResult {
    let got = area_ratio_grad(1.5)?;
    assert_eq!(got.value, 13.5);
    assert_eq!(got.gradient, 18.0);
    Ok(())
}

#[differentiable]
fn best_with_index(x: &[f64]) -> f64 {
    let mut best = (0, x[0]);
    for i in 1..x.len() {
        if x[i] > best.1 {
            best = (i, x[i]);
        }
    }
    best.1 * (best.0 as f64 + 1.0)
}

#[test]
fn a_tuple_accumulator_of_index_and_value() -> TestResult {
    let got = best_with_index_grad(&[0.5, 3.0, 1.0])?;
    assert_eq!(got.value, 6.0);
    assert_eq!(got.gradient, vec![0.0, 2.0, 0.0]);
    Ok(())
}

#[differentiable]
fn ordered_blend(a: f64, b: f64) -> f64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    hi - 0.5 * lo
}

#[test]
fn tuple_valued_if_arms() -> TestResult {
    assert_eq!(ordered_blend_grad(1.0, 2.0)?.gradient, (-0.5, 1.0));
    assert_eq!(ordered_blend_grad(2.0, 1.0)?.gradient, (1.0, -0.5));
    assert_eq!(ordered_blend(2.0, 1.0), 1.5);
    Ok(())
}

#[differentiable]
fn welford_variance(x: &[f64]) -> f64 {
    let (mut mean, mut m2) = (0.0, 0.0);
    for (i, v) in x.iter().enumerate() {
        let delta = v - mean;
        mean += delta / (i as f64 + 1.0);
        m2 += delta * (v - mean);
    }
    m2 / x.len() as f64
}

#[test]
fn a_tuple_of_mutable_accumulators() -> TestResult {
    let x = [1.0, 2.0, 4.0, 7.0];
    let got = welford_variance_grad(&x)?;
    assert_close(got.value, welford_variance(&x), CLOSED);
    let mu = 3.5;
    let want: Vec<f64> = x.iter().map(|v| 2.0 * (v - mu) / 4.0).collect();
    assert_all_close(&got.gradient, &want, CLOSED);
    Ok(())
}

#[differentiable]
fn swap_pairs(x: [f64; 2]) -> f64 {
    let mut pair = (x[0], x[1]);
    for _ in 0..3 {
        pair = (pair.1, pair.0 * 0.5);
    }
    pair.0 + 10.0 * pair.1
}

#[test]
fn a_tuple_reassigned_in_a_loop() -> TestResult {
    // (a, b) → (b, a/2) → (a/2, b/2) → (b/2, a/4): value b/2 + 10·a/4.
    let got = swap_pairs_grad([1.0, 2.0])?;
    assert_eq!(got.value, 1.0 + 2.5);
    assert_eq!(got.gradient, [2.5, 0.5]);
    Ok(())
}
