//! Generated code compiles cleanly under strict lints: a user who denies
//! warnings, missing docs or clippy's pedantic group is not punished for
//! using `#[differentiable]` (thiserror's `test_lints.rs` does the same).
#![deny(
    warnings,
    missing_docs,
    rust_2018_idioms,
    unused_qualifications,
    unreachable_pub,
    clippy::all,
    clippy::pedantic
)]

use autodiff::prelude::*;

/// A public function with every kind of parameter.
// `Vec<f64>` by value is the parameter kind under test.
#[allow(clippy::needless_pass_by_value)]
#[differentiable]
#[must_use]
pub fn everything(
    weights: [[f64; 2]; 2],
    bias: &[f64],
    values: Vec<f64>,
    input: f64,
    #[constant] scale: f64,
    choice: usize,
    flip: bool,
) -> f64 {
    let mut total = 0.0;
    for (row, weight_row) in weights.iter().enumerate() {
        for (column, weight) in weight_row.iter().enumerate() {
            total += weight * bias[row] * values[column];
        }
    }
    let mut picked = input;
    if flip {
        picked = -picked;
    }
    let sum = values.iter().sum::<f64>();
    match choice {
        0 => total * scale + picked,
        _ => (total + sum).tanh(),
    }
}

/// A caller on the same tape.
#[differentiable]
#[must_use]
pub fn caller(input: f64) -> f64 {
    let inner = everything(
        [[input, 1.0], [2.0, input]],
        &[input, input],
        vec![1.0, input],
        input,
        2.0,
        0,
        true,
    );
    inner * inner
}

#[test]
fn strict_lints_accept_the_expansion() {
    let result = caller_grad(0.5).expect("finite");
    assert!(result.gradient.is_finite());
    assert!(caller_check(0.5).expect("finite").passed());
}
