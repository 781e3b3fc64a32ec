//! The recording twin's sticky errors: an operation that fails keeps its
//! labelled error on the tape and stands in the plain twin's value, so the
//! body runs on as the plain twin does; `f_tape` reports the FIRST error
//! once, as a typed `ScalarAutodiffError`, and leaves the caller's tape as it
//! was at entry (every node it recorded, and those of the annotated
//! functions it called, rolled back).

use autodiff::prelude::*;

#[differentiable]
fn inner_log(x: f64) -> f64 {
    let shifted = x - 1.0;
    shifted.ln()
}

#[differentiable]
fn outer(x: f64) -> f64 {
    let doubled = x * 2.0;
    let logged = inner_log(x);
    doubled + logged
}

#[test]
fn an_error_in_a_called_function_is_reported_by_the_caller_and_rolled_back() {
    let tape = Tape::new();
    let x = tape.variable(0.5).unwrap();
    let w = x.mul(3.0).unwrap();
    let before = tape.len();
    let error = outer_tape(&tape, x).unwrap_err();
    // `ln` of -0.5, labelled with the expression and its line in `inner_log`.
    assert_eq!(error.code(), "non-finite-result");
    let label = error.label().unwrap();
    assert_eq!(label.text, "shifted.ln()");
    assert!(label.line > 0);
    assert_eq!(tape.len(), before);
    // The caller's own nodes still work.
    w.backward().unwrap();
    assert_eq!(x.gradient(), Some(3.0));
    // And on valid input both record and differentiate: d/dx (2x + ln(x-1)).
    let got = outer_grad(3.0).unwrap();
    assert_eq!(got.value, outer(3.0));
    assert_eq!(got.gradient, 2.0 + 1.0 / 2.0);
}

#[differentiable]
fn two_failures(x: f64) -> f64 {
    let first = (x - 2.0).sqrt();
    let second = (x - 3.0).ln();
    first + second + x
}

#[test]
fn the_first_error_is_the_one_reported() {
    // Both `sqrt(-1)` and `ln(-2)` fail at x = 1; the sqrt came first.
    assert!(two_failures(1.0).is_nan());
    let error = two_failures_grad(1.0).unwrap_err();
    assert_eq!(error.label().unwrap().text, "first");
    let error = two_failures_grad(2.5).unwrap_err();
    assert_eq!(error.label().unwrap().text, "second");
    let got = two_failures_grad(6.0).unwrap();
    assert_eq!(got.value, two_failures(6.0));
    assert!((got.gradient - (0.5 / 2.0 + 1.0 / 3.0 + 1.0)).abs() < 1e-15);
}

#[differentiable]
fn halve_until_small(x: f64) -> f64 {
    // The plain twin stops because `y` becomes NaN (NaN >= 1 is false); the
    // recording twin, holding the plain value after the failed `ln`, stops
    // at the same step instead of looping on a stale value.
    let mut y = (x - 4.0).ln();
    let mut steps = 0;
    while y >= 1.0 && steps < 100 {
        y *= 0.5;
        steps += 1;
    }
    y + steps as f64
}

#[test]
fn control_flow_after_a_failure_follows_the_plain_twin() {
    assert!(halve_until_small(3.0).is_nan());
    let error = halve_until_small_grad(3.0).unwrap_err();
    assert_eq!(error.code(), "non-finite-result");
    assert_eq!(error.label().unwrap().text, "y");
    let got = halve_until_small_grad(4.0 + 20.0_f64.exp()).unwrap();
    assert_eq!(got.value, halve_until_small(4.0 + 20.0_f64.exp()));
}

#[test]
fn a_failed_call_leaves_a_fresh_tape_empty_and_reusable() {
    let tape = Tape::new();
    let x = tape.variable(1.0).unwrap();
    assert!(two_failures_tape(&tape, x).is_err());
    assert_eq!(tape.len(), 1);
    let y = two_failures_tape(&tape, tape.variable(7.0).unwrap()).unwrap();
    assert_eq!(y.value(), two_failures(7.0));
}

#[differentiable]
fn weighted(w: [f64; 2], x: f64) -> f64 {
    w[0] * x + w[1] * x * 2.0
}

#[test]
fn a_parameter_on_another_tape_is_mixed_tapes_and_records_on_neither() {
    let (tape_a, tape_b) = (Tape::new(), Tape::new());
    let w = [tape_a.variable(1.0).unwrap(), tape_a.variable(2.0).unwrap()];
    let x_on_b = tape_b.variable(3.0).unwrap();
    let (len_a, len_b) = (tape_a.len(), tape_b.len());
    let error = weighted_tape(&tape_a, w, x_on_b).unwrap_err();
    assert_eq!(error.code(), "mixed-tapes");
    let label = error.label().unwrap();
    assert_eq!(label.text, "x");
    assert!(label.line > 0);
    assert_eq!((tape_a.len(), tape_b.len()), (len_a, len_b));
    // With every parameter on the tape it records: d/dx = w0 + 2 w1.
    let x = tape_a.variable(3.0).unwrap();
    let y = weighted_tape(&tape_a, w, x).unwrap();
    y.backward().unwrap();
    assert_eq!(y.value(), weighted([1.0, 2.0], 3.0));
    assert_eq!(x.gradient(), Some(5.0));
}
