//! Pending (issue 11; not in main.rs until it passes): a type alias as the
//! return type. It carries today's first error; the signature cases that
//! pass are in `signatures.rs`, `signature_edges.rs`, `slices.rs`,
//! `impls.rs` and `imports.rs`.

use super::oracle::*;
use autodiff::prelude::*;

// Today (an alias of `f64` as the return type): error: a #[differentiable] function must return `f64`
type Real = f64;

#[differentiable]
fn aliased_return(x: f64) -> Real {
    x * x
}

#[test]
fn a_return_type_alias() -> TestResult {
    let got = aliased_return_grad(3.0)?;
    assert_eq!(got.value, 9.0);
    assert_eq!(got.gradient, 6.0);
    Ok(())
}
