//! Macros in the body: `assert!`, `debug_assert!`, `assert_eq!`, `panic!`,
//! `unreachable!`, `todo!` check the same condition in every twin (on
//! primal values); `println!`, `eprintln!` and `dbg!` print the values the
//! plain twin prints, and `dbg!` returns its argument.

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn normal_pdf(x: f64, sigma: f64) -> f64 {
    assert!(sigma > 0.0, "sigma must be positive");
    let z = x / sigma;
    (-0.5 * z * z).exp() / (sigma * (2.0 * std::f64::consts::PI).sqrt())
}

#[test]
fn assert_on_a_tracked_parameter() -> TestResult {
    for (x, s) in [(0.5, 1.0), (-1.0, 2.0)] {
        let got = normal_pdf_grad(x, s)?;
        assert_eq!(got.value, normal_pdf(x, s));
        let p = got.value;
        assert_close(got.gradient.0, -x / (s * s) * p, CLOSED);
        assert_close(got.gradient.1, p * (x * x / (s * s * s) - 1.0 / s), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn checked_mean(x: &[f64]) -> f64 {
    debug_assert!(!x.is_empty());
    let mut total = 0.0;
    for v in x {
        total += v;
    }
    total / x.len() as f64
}

#[test]
fn debug_assert_on_a_length() -> TestResult {
    let got = checked_mean_grad(&[1.0, 3.0])?;
    assert_eq!((got.value, got.gradient), (2.0, vec![0.5, 0.5]));
    Ok(())
}

#[differentiable]
fn paired_loss(pred: &[f64], #[constant] target: &[f64]) -> f64 {
    assert_eq!(pred.len(), target.len());
    let mut loss = 0.0;
    for i in 0..pred.len() {
        loss += (pred[i] - target[i]).abs();
    }
    loss
}

#[test]
fn assert_eq_on_lengths() -> TestResult {
    let got = paired_loss_grad(&[1.0, 0.0], &[0.5, 2.0])?;
    assert_eq!(got.value, 2.5);
    assert_eq!(got.gradient, vec![1.0, -1.0]);
    Ok(())
}

#[differentiable]
fn inverse_square(r: f64) -> f64 {
    if r == 0.0 {
        panic!("r must be nonzero");
    }
    1.0 / (r * r)
}

#[test]
fn panic_in_a_branch_never_taken() -> TestResult {
    let got = inverse_square_grad(2.0)?;
    assert_eq!((got.value, got.gradient), (0.25, -0.25));
    Ok(())
}

#[differentiable]
fn activation_by_code(x: f64, code: u8) -> f64 {
    match code % 2 {
        0 => x.tanh(),
        1 => sigmoid(x),
        _ => unreachable!("code % 2 is 0 or 1"),
    }
}

#[test]
fn unreachable_in_a_match_arm() -> TestResult {
    let x = 0.4_f64;
    let got = activation_by_code_grad(x, 4)?;
    assert_close(got.gradient, 1.0 - x.tanh().powi(2), CLOSED);
    let s = 1.0 / (1.0 + (-x).exp());
    assert_close(
        activation_by_code_grad(x, 3)?.gradient,
        s * (1.0 - s),
        CLOSED,
    );
    Ok(())
}

#[differentiable]
fn norm_by_kind(x: [f64; 2], kind: usize) -> f64 {
    match kind {
        1 => x[0].abs() + x[1].abs(),
        2 => (x[0] * x[0] + x[1] * x[1]).sqrt(),
        _ => todo!("other norms"),
    }
}

#[test]
fn todo_in_an_arm_never_taken() -> TestResult {
    assert_eq!(norm_by_kind_grad([3.0, -4.0], 1)?.gradient, [1.0, -1.0]);
    let got = norm_by_kind_grad([3.0, -4.0], 2)?;
    assert_eq!(got.value, 5.0);
    assert_all_close(&got.gradient, &[0.6, -0.8], CLOSED);
    Ok(())
}

#[differentiable]
fn logged_step(w: f64, #[constant] lr: f64) -> f64 {
    let loss = (w - 2.0) * (w - 2.0);
    println!("loss = {loss}");
    let next = w - lr * 2.0 * (w - 2.0);
    println!("w: {} -> {}", w, next);
    next * next
}

#[test]
fn println_of_tracked_values() -> TestResult {
    let got = logged_step_grad(1.0, 0.25)?;
    assert_eq!(got.value, logged_step(1.0, 0.25));
    // next = w − 0.5(w − 2) = 0.5w + 1 = 1.5: d(next²)/dw = 2·1.5·0.5.
    assert_eq!(got.gradient, 1.5);
    Ok(())
}

#[differentiable]
fn debugged(x: f64) -> f64 {
    let y = dbg!(x * 3.0);
    y.sin()
}

#[test]
fn dbg_returns_its_argument() -> TestResult {
    let x = 0.2_f64;
    let got = debugged_grad(x)?;
    assert_eq!(got.value, (3.0 * x).sin());
    assert_close(got.gradient, 3.0 * (3.0 * x).cos(), CLOSED);
    Ok(())
}

#[differentiable]
fn traced_norm(v: [f64; 2]) -> f64 {
    let n = (v[0] * v[0] + v[1] * v[1]).sqrt();
    eprintln!("norm {n:.3} of {:?}", v);
    n
}

#[test]
fn eprintln_of_a_tracked_array() -> TestResult {
    let got = traced_norm_grad([6.0, 8.0])?;
    assert_eq!(got.value, 10.0);
    assert_all_close(&got.gradient, &[0.6, 0.8], CLOSED);
    Ok(())
}

#[differentiable]
fn bounded_ratio(a: f64, b: f64) -> f64 {
    debug_assert!(b.abs() > 1e-12, "division by ~0: b = {b}");
    let r = a / b;
    assert!(r.is_finite());
    r * r
}

#[test]
fn asserts_that_format_a_tracked_value() -> TestResult {
    let got = bounded_ratio_grad(1.0, 2.0)?;
    assert_eq!(got.value, 0.25);
    // r = a/b: ∂(r²)/∂a = 2r/b, ∂(r²)/∂b = −2r·a/b².
    assert_eq!(got.gradient, (0.5, -0.25));
    Ok(())
}

#[test]
#[should_panic(expected = "sigma must be positive")]
fn a_failed_assert_panics_in_the_recording_twin_too() {
    // The plain twin panics here; so must `_grad`, with the same message.
    let _ = normal_pdf_grad(0.5, -1.0);
}

#[test]
#[should_panic(expected = "r must be nonzero")]
fn a_panic_in_a_taken_branch_panics_in_the_recording_twin_too() {
    let _ = inverse_square_grad(0.0);
}
