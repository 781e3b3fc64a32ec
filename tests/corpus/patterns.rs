//! Patterns that work today: `match` with guards on an `Option` constant,
//! array destructuring (`let [a, b, c] = p`), and an unannotated tuple of
//! two tracked expressions. Tuples held in `let mut`, `match` on tuples,
//! `while let` and `Option`s of tracked values are in
//! `pending_patterns.rs`.

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
