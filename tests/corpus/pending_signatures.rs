//! Pending (issue 11; not in main.rs until it passes): signatures and items
//! around the annotated function: `_: f64`, type aliases, a parameter named
//! like its function, a user lifetime `'tape`,
//! `#[differentiable(crate = ..)]`. Each carries today's first error; the
//! ones that pass are in `signatures.rs`, `slices.rs`, `impls.rs` and
//! `imports.rs`.

use super::oracle::*;
use autodiff::prelude::*;

// Today (`_: f64` parameter): error: parameters of a #[differentiable] function must be plain names, like `x: f64`
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

// Today (type aliases `Vector3 = [f64; 3]`, `Real = f64` in the signature): error: a #[differentiable] function must return `f64`
type Vector3 = [f64; 3];
type Real = f64;

#[differentiable]
fn aliased_dot(a: Vector3, b: Vector3, scale: Real) -> Real {
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

// Today (a parameter named like its function, `fn scale(scale: f64, ..)`): error[E0618]: expected function, found `f64`
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

// Today (a user lifetime named `'tape`): error[E0403]: the name `'tape` is already used for a generic parameter in this item's generic parameters: already used
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

// Today (`#[differentiable(crate = ::autodiff)]`): error: #[differentiable] takes no arguments: write `#[differentiable]`
#[differentiable(crate = ::autodiff)]
fn with_crate_path(x: f64) -> f64 {
    x.sin() * x
}

#[test]
fn an_explicit_crate_path() -> TestResult {
    let x = 0.8_f64;
    let got = with_crate_path_grad(x)?;
    assert_eq!(got.value, with_crate_path(x));
    assert_close(got.gradient, x.cos() * x + x.sin(), CLOSED);
    Ok(())
}

    Ok(())
}
