//! `#[differentiable]` bodies that use the second batch of elementary
//! functions: value and gradient against closed forms, and the gradient
//! check against central differences of the plain twin.

use autodiff::prelude::*;

#[differentiable]
fn smooth(x: f64, y: f64) -> f64 {
    let a = x.tan() + x.atan() + f64::sinh(x) + x.cosh();
    let b = (x * 0.5).asin() + (x * 0.5).acos() + x.ln_1p() + x.exp_m1();
    let c = y.log10() + y.log2() + y.cbrt() + x.hypot(y) + y.log(x + 2.0);
    a + b + c
}

#[differentiable]
fn steps(x: f64) -> f64 {
    x * x.floor() + x.ceil() + x.round() * x.signum()
}

#[test]
fn smooth_functions_have_exact_gradients() {
    let (x, y): (f64, f64) = (0.6, 3.0);
    let result = smooth_grad(x, y).unwrap();
    assert_eq!(result.value, smooth(x, y));
    let h = x.hypot(y);
    let lb = (x + 2.0).ln();
    let dx = 1.0 / x.cos().powi(2)
        + 1.0 / (1.0 + x * x)
        + x.cosh()
        + x.sinh()
        + 0.5 / (1.0 - 0.25 * x * x).sqrt()
        - 0.5 / (1.0 - 0.25 * x * x).sqrt()
        + 1.0 / (1.0 + x)
        + x.exp()
        + x / h
        - y.ln() / ((x + 2.0) * lb * lb);
    let dy = 1.0 / (y * 10f64.ln())
        + 1.0 / (y * 2f64.ln())
        + 1.0 / (3.0 * y.cbrt().powi(2))
        + y / h
        + 1.0 / (y * lb);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-13 * a.abs().max(1.0);
    assert!(
        close(result.gradient.0, dx),
        "{} vs {dx}",
        result.gradient.0
    );
    assert!(
        close(result.gradient.1, dy),
        "{} vs {dy}",
        result.gradient.1
    );
    assert!(smooth_check(x, y).unwrap().passed());
}

#[test]
fn step_functions_pass_no_gradient() {
    let x = 2.3;
    let result = steps_grad(x).unwrap();
    assert_eq!(result.value, steps(x));
    // Only the `x *` factor carries a gradient: d/dx = floor(x).
    assert_eq!(result.gradient, 2.0);
}
