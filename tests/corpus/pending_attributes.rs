//! Pending (issue 11; not in main.rs until it passes): raw-identifier
//! parameters (`r#type`, `r#in`), which panic the macro today, and
//! `#[allow]` on a body `let`, which the recording twin drops. Each function
//! carries today's failure above it; the ones that pass are in
//! `attributes.rs`.

use super::oracle::*;
use autodiff::prelude::*;

// Today (raw-identifier parameters `r#type: f64, r#in: usize` (the macro panics: "r#type_var" is not a valid identifier)): error: custom attribute panicked
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

// Today: compiles and differentiates, but the recording twin drops `#[allow(unused_variables)]`:
// warning: unused variable: `scratch` (fails `clippy -D warnings`)
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
