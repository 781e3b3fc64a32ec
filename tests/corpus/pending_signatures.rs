//! Pending (issue 11; not in main.rs until it passes): `use module::f`
//! then `f(x)`, and a type alias as the return type. Each carries today's first error; the signature cases that
//! pass are in `signatures.rs`, `signature_edges.rs`, `slices.rs` and
//! `impls.rs`.

use super::oracle::*;
use autodiff::prelude::*;

// Today (`use activations::mish;` then `mish(w * x)`): error[E0425]: cannot find function `mish_tape` in this scope: not found in this scope
mod activations {
    use autodiff::prelude::*;

    #[differentiable]
    pub fn mish(x: f64) -> f64 {
        x * (1.0 + x.exp()).ln().tanh()
    }
}

use activations::mish;

#[differentiable]
fn mish_layer(x: f64, w: f64) -> f64 {
    mish(w * x)
}

#[test]
fn a_helper_imported_with_use() -> TestResult {
    for (x, w) in [(0.5, 1.5), (-1.0, 0.3)] {
        let got = mish_layer_grad(x, w)?;
        assert_eq!(got.value, mish_layer(x, w));
        let d = derivative(mish, w * x);
        assert_close(got.gradient.0, d * w, NUMERIC);
        assert_close(got.gradient.1, d * x, NUMERIC);
    }
    Ok(())
}

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
