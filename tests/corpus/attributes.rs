//! Attributes and raw identifiers that work today: `#[allow]` on a `for`
//! statement and a raw-identifier local (`r#loop`). `#[cfg]` on statements
//! gives wrong values (`pending_wrong.rs`); raw-identifier parameters and
//! `#[allow]` on a `let` are in `pending_attributes.rs`.

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
