//! Annotated helpers reached through modules: `use module::f;` then
//! `f(x)`, `use module::f as g;`, a path call `module::f(x)`, and
//! `super::f(x)` from a nested module. The call names the helper's
//! companion (`f::__tape`), which `use` imports along with the function;
//! a helper with more parameters than `call_twin` takes (13) is called
//! directly.

use super::oracle::*;
use autodiff::prelude::*;

mod activations {
    use autodiff::prelude::*;

    #[differentiable]
    pub fn mish(x: f64) -> f64 {
        x * (1.0 + x.exp()).ln().tanh()
    }

    #[differentiable]
    pub fn softplus(x: f64) -> f64 {
        (1.0 + x.exp()).ln()
    }
}

use activations::mish;
use activations::softplus as smooth_relu;

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

#[differentiable]
fn renamed_and_by_path(x: f64) -> f64 {
    smooth_relu(x) + activations::softplus(2.0 * x)
}

#[test]
fn a_renamed_import_and_a_path_call() -> TestResult {
    let sigmoid = |v: f64| 1.0 / (1.0 + (-v).exp());
    for x in [-0.7, 0.4, 1.3] {
        let got = renamed_and_by_path_grad(x)?;
        assert_eq!(got.value, renamed_and_by_path(x));
        // softplus' = sigmoid.
        assert_close(got.gradient, sigmoid(x) + 2.0 * sigmoid(2.0 * x), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn cube(x: f64) -> f64 {
    x * x * x
}

mod nested {
    use autodiff::prelude::*;

    #[differentiable]
    pub fn cube_plus_one(x: f64) -> f64 {
        super::cube(x) + 1.0
    }
}

#[test]
fn a_helper_of_the_parent_module() -> TestResult {
    for x in [-1.5, 0.5, 2.0] {
        let got = nested::cube_plus_one_grad(x)?;
        assert_eq!(got.value, nested::cube_plus_one(x));
        assert_close(got.gradient, 3.0 * x * x, CLOSED);
    }
    Ok(())
}

#[differentiable]
#[allow(clippy::too_many_arguments)]
fn thirteen(
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    e: f64,
    f: f64,
    g: f64,
    h: f64,
    i: f64,
    j: f64,
    k: f64,
    l: f64,
    m: f64,
) -> f64 {
    a * b + c * d + e * f + g * h + i * j + k * l + m
}

#[differentiable]
fn calls_thirteen(x: f64) -> f64 {
    thirteen(x, 2.0, x, 3.0, x, 4.0, x, 5.0, x, 6.0, x, 7.0, x)
}

#[test]
fn a_helper_with_thirteen_parameters() -> TestResult {
    for x in [-0.5, 1.5] {
        let got = calls_thirteen_grad(x)?;
        assert_eq!(got.value, calls_thirteen(x));
        assert_close(
            got.gradient,
            2.0 + 3.0 + 4.0 + 5.0 + 6.0 + 7.0 + 1.0,
            CLOSED,
        );
    }
    Ok(())
}

#[differentiable]
fn imports_from_std_inside(x: f64, n: usize) -> f64 {
    use std::cmp::max;
    use std::f64::consts::*;
    x * x * max(n, 2) as f64 * PI + cube(x)
}

#[test]
fn a_body_may_import_from_the_standard_library() -> TestResult {
    // The body's own `use` of `std` names: `max` is std's, `cube` the
    // module's annotated helper (a `use` of a non-std `cube` inside the
    // body is refused: ui-tests/callee-imported-inside-the-body.rs).
    for (x, n) in [(-1.5, 1), (0.5, 3)] {
        let got = imports_from_std_inside_grad(x, n)?;
        assert_eq!(got.value, imports_from_std_inside(x, n));
        let k = n.max(2) as f64 * std::f64::consts::PI;
        assert_close(got.gradient, 2.0 * x * k + 3.0 * x * x, CLOSED);
    }
    Ok(())
}
