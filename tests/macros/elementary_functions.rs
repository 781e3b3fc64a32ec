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

#[differentiable]
fn exp2_twice(x: f64) -> f64 {
    x.exp2() + f64::exp2(x)
}

#[differentiable]
fn asinh_twice(x: f64) -> f64 {
    x.asinh() + f64::asinh(x)
}

#[differentiable]
fn acosh_twice(x: f64) -> f64 {
    x.acosh() + f64::acosh(x)
}

#[differentiable]
fn atanh_twice(x: f64) -> f64 {
    x.atanh() + f64::atanh(x)
}

type Grad = fn(f64) -> Result<ValueAndGradient<f64>, ScalarAutodiffError>;

/// (name, f_grad, f_grad_tape, the function, its closed-form derivative,
/// points inside the domain)
type Inverse = (
    &'static str,
    Grad,
    Grad,
    fn(f64) -> f64,
    fn(f64) -> f64,
    &'static [f64],
);

const LATEST: &[Inverse] = &[
    (
        "exp2",
        exp2_twice_grad,
        exp2_twice_grad_tape,
        f64::exp2,
        |x| std::f64::consts::LN_2 * x.exp2(),
        &[-3.0, -0.5, 0.0, 0.7, 10.0, 1000.0],
    ),
    (
        "asinh",
        asinh_twice_grad,
        asinh_twice_grad_tape,
        f64::asinh,
        |x| 1.0 / (x * x + 1.0).sqrt(),
        &[-30.0, -1.0, 0.0, 0.4, 2.5, 1e6],
    ),
    (
        "acosh",
        acosh_twice_grad,
        acosh_twice_grad_tape,
        f64::acosh,
        |x| 1.0 / (x * x - 1.0).sqrt(),
        &[1.001, 1.5, 2.0, 10.0, 1e6],
    ),
    (
        "atanh",
        atanh_twice_grad,
        atanh_twice_grad_tape,
        f64::atanh,
        |x| 1.0 / (1.0 - x * x),
        &[-0.9, -0.3, 0.0, 0.5, 0.99],
    ),
];

#[test]
fn exp2_and_the_inverse_hyperbolic_functions_have_closed_form_gradients() {
    for &(name, grad, tape, f, derivative, points) in LATEST {
        for &x in points {
            for result in [grad(x).unwrap(), tape(x).unwrap()] {
                assert_eq!(result.value, 2.0 * f(x), "{name}({x})");
                let want = 2.0 * derivative(x);
                assert!(
                    (result.gradient - want).abs() <= 1e-12 * want.abs(),
                    "{name}'({x}) = {} vs {want}",
                    result.gradient
                );
            }
        }
    }
    assert!(acosh_twice_check(3.0).unwrap().passed());
    assert!(atanh_twice_check(0.2).unwrap().passed());
    assert!(asinh_twice_check(-0.8).unwrap().passed());
    assert!(exp2_twice_check(1.3).unwrap().passed());
}

#[test]
fn outside_their_domain_both_paths_give_the_labelled_error() {
    for (name, grad, tape, x) in [
        (
            "acosh",
            acosh_twice_grad as Grad,
            acosh_twice_grad_tape as Grad,
            0.5,
        ),
        ("atanh", atanh_twice_grad, atanh_twice_grad_tape, 2.0),
    ] {
        let fast = grad(x).unwrap_err();
        let slow = tape(x).unwrap_err();
        assert_eq!(fast.to_string(), slow.to_string());
        let message = fast.to_string();
        assert!(
            message.contains(&format!(
                "{name} of {x:?} produced non-finite scalar value NaN"
            )) && message.contains(&format!("x.{name}()")),
            "{message}"
        );
    }
}

/// `atan2` in each form a body writes it: a method of a tracked value, by
/// path, with a plain first operand and with a plain second one.
#[differentiable]
fn angles(y: f64, x: f64) -> f64 {
    y.atan2(x) + f64::atan2(y, x) + 0.5_f64.atan2(x) + y.atan2(2.0)
}

#[test]
fn atan2_has_its_closed_form_gradient_in_every_quadrant() {
    for (y, x) in [
        (0.3_f64, 0.9_f64),
        (0.9, -0.3),
        (-0.7, -0.2),
        (-0.1, 1.5),
        (2.0, 0.0),
        (0.0, -1.0),
        (1e-200, 1e-200),
        (3e200, 4e200),
    ] {
        // d/dy, d/dx of atan2(y, x) = (x, −y)/(x² + y²), as the textbook
        // writes it, on the point scaled to its largest coordinate so
        // that x² + y² neither under- nor overflows.
        let (y, x): (f64, f64) = (y, x);
        let scale = y.abs().max(x.abs());
        let (ys, xs) = (y / scale, x / scale);
        let r2 = |a: f64, b: f64| a * a + b * b;
        let dy = 2.0 * xs / r2(ys, xs) / scale + 2.0 / (4.0 + y * y);
        let dx = -2.0 * ys / r2(ys, xs) / scale - 0.5 / (0.25 + x * x);
        let want = 2.0 * y.atan2(x) + 0.5_f64.atan2(x) + y.atan2(2.0);
        for result in [angles_grad(y, x).unwrap(), angles_grad_tape(y, x).unwrap()] {
            assert_eq!(result.value, want, "atan2({y}, {x})");
            for (got, want) in [(result.gradient.0, dy), (result.gradient.1, dx)] {
                assert!(
                    (got - want).abs() <= 1e-12 * want.abs().max(1e-300),
                    "atan2({y}, {x}): {got:e} vs {want:e}"
                );
            }
        }
    }
    assert_eq!(angles_grad_path(), autodiff::GradientPath::Compiled);
    assert!(angles_check(0.4, -0.8).unwrap().passed());
}

#[test]
fn atan2_at_the_origin_is_the_labelled_error_on_both_paths() {
    let fast = angles_grad(0.0, 0.0).unwrap_err();
    let slow = angles_grad_tape(0.0, 0.0).unwrap_err();
    assert_eq!(fast.to_string(), slow.to_string());
    let message = fast.to_string();
    assert!(message.contains("atan2"), "{message}");
    assert!(message.contains("y.atan2(x)"), "{message}");
}

#[test]
fn atan2_has_its_closed_form_hessian() {
    // atan2(y, x) is harmonic: with r² = x² + y², ∂²/∂y² = −2xy/r⁴ and
    // ∂²/∂x² = 2xy/r⁴, ∂²/∂y∂x = (y² − x²)/r⁴; the body's two other terms
    // add ∂²/∂x² of atan2(0.5, x) = x/(0.25 + x²)² and ∂²/∂y² of
    // atan2(y, 2) = −4y/(4 + y²)².
    for (y, x) in [(0.3_f64, 0.9_f64), (-0.7, -0.2), (1.5, -0.4)] {
        let r4 = (x * x + y * y).powi(2);
        let want = [
            [
                2.0 * (-2.0 * x * y / r4) - 4.0 * y / (4.0 + y * y).powi(2),
                2.0 * (y * y - x * x) / r4,
            ],
            [
                2.0 * (y * y - x * x) / r4,
                2.0 * (2.0 * x * y / r4) + x / (0.25 + x * x).powi(2),
            ],
        ];
        let hessian = angles_hessian(y, x).unwrap();
        for (i, row) in want.iter().enumerate() {
            for (j, want) in row.iter().enumerate() {
                let got = hessian.get(i, j);
                assert!(
                    (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                    "H[{i}][{j}] at ({y}, {x}): {got:e} vs {want:e}"
                );
            }
        }
    }
}
