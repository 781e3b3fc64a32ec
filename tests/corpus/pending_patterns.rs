//! Pending (issue 11; not in main.rs until it passes): tuples of tracked
//! values (locals, accumulators, `if` arms), `match` on a tuple, an `Option`
//! holding a tracked value, `while let`, `first()`/`last()`. Each carries
//! today's first error; the patterns that pass are in `patterns.rs`.

use super::oracle::*;
use autodiff::prelude::*;

// Today (`match (x > 0.0, y > 0.0)` on a tuple of bools): error[E0277]: cannot compare `(bool, bool)` in a #[differentiable] function: comparisons read f64 values, integers and bools
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

// Today (`Some(x)`/`None` holding a tracked value, then `match`): error[E0425]: cannot find function, tuple struct or tuple variant `Some_tape` in this scope: not found in this scope
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

// Today (`while let Some(v) = it.next()` over `x.iter()`): error[E0277]: `std::slice::Iter<'_, autodiff::Scalar<'_>>` cannot hold a tracked value in a #[differentiable] function: expected f64, an array or Vec of f64, or an integer
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

// Today (annotated tuple local `let (a, b): (f64, f64) = (x * 2.0, x * 3.0)`): error[E0308]: `?` operator has incompatible types: expected `f64`, found `Scalar<'_>`
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

// Today (tuple accumulator `let mut best = (0, x[0])`): error[E0277]: `({integer}, autodiff::Scalar<'_>)` cannot hold a tracked value in a #[differentiable] function: expected f64, an array or Vec of f64, or an integer
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

// Today (tuple-valued `if` arms `let (lo, hi) = if a < b { (a, b) } else { (b, a) }`): error[E0277]: `(autodiff::Scalar<'_>, autodiff::Scalar<'_>)` cannot hold a tracked value in a #[differentiable] function: expected f64, an array or Vec of f64, or an integer
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

// Today (`x.first()` / `x.last()` returning `Option<&f64>` of a tracked slice): error[E0277]: `[autodiff::Scalar<'_>]` carries a gradient that this operation would drop: a tracked value cannot be cast or passed here
#[differentiable]
fn ends_product(x: &[f64]) -> f64 {
    let head = if let Some(v) = x.first() { *v } else { 1.0 };
    let tail = match x.last() {
        Some(v) => *v,
        None => 1.0,
    };
    head * tail
}

#[test]
fn first_and_last_through_options() -> TestResult {
    let got = ends_product_grad(&[2.0, 7.0, 5.0])?;
    assert_eq!(got.value, 10.0);
    assert_eq!(got.gradient, vec![5.0, 0.0, 2.0]);
    Ok(())
}

// Today (tuple of `let mut` accumulators `let (mut mean, mut m2) = (0.0, 0.0)`): error[E0308]: `?` operator has incompatible types: expected `f64`, found `Scalar<'_>`
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

// Today (tuple local reassigned in a loop `pair = (pair.1, pair.0 * 0.5)`): error[E0277]: `(autodiff::Scalar<'_>, autodiff::Scalar<'_>)` cannot hold a tracked value in a #[differentiable] function: expected f64, an array or Vec of f64, or an integer
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
