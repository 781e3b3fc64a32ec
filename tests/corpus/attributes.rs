//! Attributes and raw identifiers: `#[allow]` on a `for` statement and on a
//! `let` (carried to every twin), a raw-identifier local (`r#loop`) and
//! raw-identifier parameters (`r#type`, `r#in`). `#[cfg]` on statements is
//! in `regressions.rs`.

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn allowed_loop(x: [f64; 3]) -> f64 {
    let mut total = 0.0;
    #[allow(clippy::needless_range_loop)]
    for i in 0..3 {
        total += x[i] * (i as f64);
    }
    total
}

#[test]
fn allow_on_a_for_statement() -> TestResult {
    let got = allowed_loop_grad([1.0, 2.0, 3.0])?;
    assert_eq!((got.value, got.gradient), (8.0, [0.0, 1.0, 2.0]));
    Ok(())
}

#[differentiable]
fn raw_local(x: f64) -> f64 {
    let r#loop = x.sin();
    r#loop * r#loop
}

#[test]
fn a_raw_identifier_local() -> TestResult {
    let x = 0.7_f64;
    let got = raw_local_grad(x)?;
    assert_eq!(got.value, raw_local(x));
    assert_close(got.gradient, 2.0 * x.sin() * x.cos(), CLOSED);
    Ok(())
}

#[differentiable]
fn keyword_names(r#type: f64, r#in: usize) -> f64 {
    r#type * r#type * r#in as f64
}

#[test]
fn raw_identifier_parameters() -> TestResult {
    let got = keyword_names_grad(1.5, 4)?;
    assert_eq!((got.value, got.gradient), (9.0, 12.0));
    Ok(())
}

#[differentiable]
fn allowed_unused(x: f64) -> f64 {
    #[allow(unused_variables)]
    let scratch = x * 2.0;
    x.exp()
}

#[test]
fn allow_on_a_let() -> TestResult {
    let got = allowed_unused_grad(0.5)?;
    assert_eq!(got.gradient, 0.5_f64.exp());
    Ok(())
}
