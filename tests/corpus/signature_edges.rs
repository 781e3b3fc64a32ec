//! Signatures once rejected or miscompiled (issue 11): an `_: f64`
//! parameter, type aliases of supported types as parameters and as the
//! return type, a parameter named like its
//! function, a user lifetime named `'tape`, and
//! `#[differentiable(crate = path)]` naming the crate through an alias
//! (`extern crate autodiff as autodiff_renamed` in `main.rs`).

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn ignores_second(x: f64, _: f64) -> f64 {
    x.exp()
}

#[test]
fn an_underscore_parameter() -> TestResult {
    let got = ignores_second_grad(1.0, 5.0)?;
    assert_eq!(got.value, 1.0_f64.exp());
    assert_eq!(got.gradient, (1.0_f64.exp(), 0.0));
    Ok(())
}

type Vector3 = [f64; 3];
type Real = f64;

#[differentiable]
fn aliased_dot(a: Vector3, b: Vector3, scale: Real) -> f64 {
    scale * (a[0] * b[0] + a[1] * b[1] + a[2] * b[2])
}

#[test]
fn type_aliases_of_supported_types() -> TestResult {
    let (a, b) = ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]);
    let got = aliased_dot_grad(a, b, 0.5)?;
    assert_eq!(got.value, 16.0);
    assert_eq!(got.gradient, ([2.0, 2.5, 3.0], [0.5, 1.0, 1.5], 32.0));
    Ok(())
}

#[differentiable]
fn aliased_return(x: f64) -> Real {
    x * x
}

// An early `return` through the alias, and an alias through a path.
#[differentiable]
fn aliased_early_return(x: f64, #[constant] cap: f64) -> self::Real {
    if x > cap {
        return cap * x;
    }
    x.sin() * x
}

// A closure keeps the tape: the alias is checked there too.
#[differentiable]
fn aliased_on_the_tape(x: &[f64]) -> Real {
    x.iter().map(|v| v * v).sum()
}

#[test]
fn a_return_type_alias() -> TestResult {
    // x², derivative 2x.
    let got = aliased_return_grad(3.0)?;
    assert_eq!(got.value, 9.0);
    assert_eq!(got.gradient, 6.0);
    assert!(aliased_return_check(3.0)?.passed());
    // Above the cap: cap·x, derivative cap; below: x·sin x, derivative
    // sin x + x·cos x.
    let got = aliased_early_return_grad(2.0, 1.5)?;
    assert_eq!(got.value, 3.0);
    assert_eq!(got.gradient, 1.5);
    let x = 0.5_f64;
    let got = aliased_early_return_grad(x, 1.5)?;
    assert_close(got.value, x.sin() * x, CLOSED);
    assert_close(got.gradient, x.sin() + x * x.cos(), CLOSED);
    assert!(aliased_early_return_check(x, 1.5)?.passed());
    // Σ x², gradient 2x.
    let got = aliased_on_the_tape_grad(&[1.0, -2.0])?;
    assert_eq!(got.value, 5.0);
    assert_eq!(got.gradient, vec![2.0, -4.0]);
    Ok(())
}

#[differentiable]
fn scale(scale: f64, x: f64) -> f64 {
    scale * x * x
}

#[test]
fn a_parameter_named_like_its_function() -> TestResult {
    let got = scale_grad(3.0, 2.0)?;
    assert_eq!(got.value, 12.0);
    assert_eq!(got.gradient, (4.0, 12.0));
    Ok(())
}

// An explicit lifetime named like the generated one is what is under test.
#[allow(clippy::needless_lifetimes)]
#[differentiable]
fn first_two<'tape>(x: &'tape [f64]) -> f64 {
    x[0] * x[1]
}

#[test]
fn a_user_lifetime_named_tape() -> TestResult {
    let got = first_two_grad(&[2.0, 5.0])?;
    assert_eq!(got.value, 10.0);
    assert_eq!(got.gradient, vec![5.0, 2.0]);
    Ok(())
}

#[differentiable(crate = crate::autodiff_renamed)]
fn with_crate_path(x: f64) -> f64 {
    x.sin() * x
}

#[test]
fn a_renamed_crate_path() -> TestResult {
    let x = 0.8_f64;
    let got = with_crate_path_grad(x)?;
    assert_eq!(got.value, with_crate_path(x));
    assert_close(got.gradient, x.cos() * x + x.sin(), CLOSED);
    Ok(())
}
