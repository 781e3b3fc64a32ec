//! What `#[differentiable]` accepts, differentiated through the macro and
//! checked against closed forms, hand-written backward passes and central
//! differences of the plain twin.

use autodiff::prelude::*;
use autodiff::{scalar_gradient_check, GradientCheckError, ScalarOperation, DEFAULT_TOLERANCE};

use crate::oracle::close;

// ---------------------------------------------------------------------------
// Composition: one tape through several functions.
// ---------------------------------------------------------------------------

#[differentiable]
fn inner(a: f64, b: f64) -> f64 {
    a * b + a.sin()
}

#[differentiable]
fn outer(x: f64) -> f64 {
    let y = inner(x, 2.0);
    inner(y, x)
}

#[test]
fn composition_records_one_tape_with_the_chain_rule() {
    // y = 2x + sin x, f = y·x + sin y; df/dx = (x + cos y)·y' + y, y' = 2 + cos x.
    let x = 0.7_f64;
    let y = 2.0 * x + x.sin();
    let expected = (x + y.cos()) * (2.0 + x.cos()) + y;
    let result = outer_grad(x).unwrap();
    assert!(close(result.value, outer(x), 1e-12));
    assert!(
        close(result.gradient, expected, 1e-12),
        "{} vs {expected}",
        result.gradient
    );

    let tape = Tape::new();
    let v = tape.variable(x).unwrap();
    let out = outer_tape(&tape, v).unwrap();
    // x; inner(x, 2): the constant 2, a*b, sin, +; inner(y, x): a*b, sin, +.
    assert_eq!(tape.len(), 8);
    let labels: Vec<&str> = out
        .backward()
        .unwrap()
        .nodes()
        .iter()
        .filter_map(|node| node.label.map(|label| label.text))
        .collect();
    assert_eq!(
        labels,
        [
            "a * b",
            "a.sin()",
            "a * b + a.sin()",
            "a * b",
            "a.sin()",
            "a * b + a.sin()"
        ]
    );
}

#[test]
fn plain_arguments_call_the_plain_twin() {
    #[differentiable]
    fn scaled(x: f64) -> f64 {
        // `inner(2.0, 3.0)` reads no tracked value: a plain call, a constant.
        x * inner(2.0, 3.0)
    }
    let c = 6.0 + 2.0_f64.sin();
    assert_eq!(scaled(1.5), 1.5 * c);
    assert_eq!(scaled_grad(1.5).unwrap().gradient, c);
}

// ---------------------------------------------------------------------------
// Control flow: the branch taken is the one differentiated.
// ---------------------------------------------------------------------------

#[differentiable]
fn branchy(x: f64) -> f64 {
    if x > 0.0 {
        x * x
    } else if x > -2.0 {
        -3.0 * x
    } else {
        5.0
    }
}

#[test]
fn every_side_of_a_branch() {
    assert_eq!(branchy_grad(2.0).unwrap().gradient, 4.0);
    assert_eq!(branchy_grad(-1.0).unwrap().gradient, -3.0);
    let constant = branchy_grad(-3.0).unwrap();
    assert_eq!((constant.value, constant.gradient), (5.0, 0.0));
    for x in [2.0, -1.0, -3.0] {
        assert_eq!(branchy_grad(x).unwrap().value, branchy(x));
    }
}

#[differentiable]
fn pick(x: f64, k: usize, flip: bool) -> f64 {
    let base = match k {
        0 => x.exp(),
        1 | 2 => x.sin() * k as f64,
        _ => 1.0,
    };
    if flip {
        -base
    } else {
        base
    }
}

#[test]
fn match_on_integer_and_bool_parameters() {
    let x = 0.3_f64;
    assert!(close(
        pick_grad(x, 0, false).unwrap().gradient,
        x.exp(),
        1e-12
    ));
    assert!(close(
        pick_grad(x, 2, false).unwrap().gradient,
        2.0 * x.cos(),
        1e-12
    ));
    assert!(close(
        pick_grad(x, 2, true).unwrap().gradient,
        -2.0 * x.cos(),
        1e-12
    ));
    assert_eq!(pick_grad(x, 7, true).unwrap().gradient, 0.0);
    assert!(pick_check(x, 1, true).unwrap().passed());
}

#[differentiable]
fn early_return(x: f64) -> f64 {
    if x < 0.0 {
        return 0.0;
    }
    let mut acc = x;
    for _ in 0..10 {
        if acc > 100.0 {
            return acc.sqrt();
        }
        acc = acc * acc + 1.0;
    }
    acc
}

#[test]
fn early_return_from_a_branch_and_a_loop() {
    assert_eq!(early_return_grad(-1.0).unwrap().gradient, 0.0);
    assert_eq!(early_return(-1.0), 0.0);
    // x = 2: acc = 5, 26, 677 > 100, return sqrt(677).
    // d/dx: acc1 = x²+1 (2x), acc2 = acc1²+1 (2·acc1·2x), acc3 = acc2²+1.
    let x = 2.0_f64;
    let a1 = x * x + 1.0;
    let a2 = a1 * a1 + 1.0;
    let a3 = a2 * a2 + 1.0;
    let da3 = 2.0 * a2 * 2.0 * a1 * 2.0 * x;
    let expected = da3 / (2.0 * a3.sqrt());
    let result = early_return_grad(x).unwrap();
    assert_eq!(result.value, a3.sqrt());
    assert!(close(result.gradient, expected, 1e-12));
}

#[differentiable]
fn loops(x: f64, n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        total += x.powi(i as i32 + 1);
    }
    let mut k = 0;
    while k < 3 {
        total *= 1.5;
        k += 1;
    }
    loop {
        if total > 10.0 {
            break total;
        }
        total = total * 2.0 + x;
    }
}

#[test]
fn for_while_and_loop_with_break() {
    // x = 0.5, n = 3: total = x + x² + x³, ×1.5³, then doubled plus x until > 10.
    let x = 0.5_f64;
    let mut t = x + x * x + x * x * x;
    let mut dt = 1.0 + 2.0 * x + 3.0 * x * x;
    t *= 3.375;
    dt *= 3.375;
    while t <= 10.0 {
        t = 2.0 * t + x;
        dt = 2.0 * dt + 1.0;
    }
    let result = loops_grad(x, 3).unwrap();
    assert_eq!(result.value, t);
    assert!(
        close(result.gradient, dt, 1e-12),
        "{} vs {dt}",
        result.gradient
    );
    assert_eq!(loops(x, 3), t);
    assert!(loops_check(x, 3).unwrap().passed());
}

// ---------------------------------------------------------------------------
// Assignment and reuse: every operand occurrence is an edge.
// ---------------------------------------------------------------------------

// The point is an assignment that reads its own target.
#[allow(clippy::misrefactored_assign_op)]
#[differentiable]
fn compound(x: f64) -> f64 {
    let mut c = x;
    c += c + 1.0; // reads the old c twice: 2x + 1
    c *= c; // (2x + 1)²
    c -= x;
    c /= 2.0;
    c
}

#[test]
fn compound_assignment_reads_its_own_target() {
    let x = 1.25_f64;
    let value = ((2.0 * x + 1.0).powi(2) - x) / 2.0;
    let gradient = (4.0 * (2.0 * x + 1.0) - 1.0) / 2.0;
    let result = compound_grad(x).unwrap();
    assert_eq!(result.value, compound(x));
    assert!(close(result.value, value, 1e-12));
    assert!(close(result.gradient, gradient, 1e-12));
}

#[differentiable]
fn cube(x: f64) -> f64 {
    x * x * x
}

#[test]
fn operand_reuse_sums_every_edge() {
    for x in [-2.0, 0.5, 3.0] {
        assert!(close(cube_grad(x).unwrap().gradient, 3.0 * x * x, 1e-12));
    }
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let y = cube_tape(&tape, x).unwrap();
    let edges_to_x = y
        .backward()
        .unwrap()
        .edges()
        .iter()
        .filter(|edge| edge.parent == x.index())
        .count();
    assert_eq!(edges_to_x, 3);
}

// Plain assignment to a parameter is what is under test.
#[allow(clippy::assign_op_pattern)]
#[differentiable]
fn reassigned(mut x: f64) -> f64 {
    x = x * 2.0;
    let y: f64 = x.exp();
    let x = y + 1.0; // shadowing
    x
}

#[test]
fn mutable_parameters_annotations_and_shadowing() {
    let result = reassigned_grad(0.25).unwrap();
    assert_eq!(result.value, reassigned(0.25));
    assert!(close(result.gradient, 2.0 * 0.5_f64.exp(), 1e-12));
}

// ---------------------------------------------------------------------------
// Constants: literals, const items, #[constant] and integer parameters.
// ---------------------------------------------------------------------------

const SCALE: f64 = 2.5;

#[differentiable]
fn constants(x: f64, #[constant] c: f64, y: f64, n: i32) -> f64 {
    const OFFSET: f64 = 0.5;
    let mut count = 0.0; // never meets a tracked value: stays a plain f64
    for _ in 0..n {
        count += 1.0;
    }
    SCALE * x * c + y.powi(n) + OFFSET + count as usize as f64
}

#[test]
fn constants_and_pass_through_parameters() {
    let (x, c, y, n) = (1.5, 4.0, 0.5_f64, 3);
    let result = constants_grad(x, c, y, n).unwrap();
    assert_eq!(result.value, constants(x, c, y, n));
    // Gradient only for x and y, in parameter order.
    assert_eq!(result.gradient, (SCALE * c, 3.0 * y * y));
    let check = constants_check(x, c, y, n).unwrap();
    assert_eq!(check.components.len(), 2);
    assert!(check.passed());
}

#[differentiable]
fn ignores_input(x: f64) -> f64 {
    let _unused = x;
    SCALE * 2.0
}

#[test]
fn a_function_that_ignores_its_input_has_gradient_zero() {
    let result = ignores_input_grad(3.0).unwrap();
    assert_eq!((result.value, result.gradient), (5.0, 0.0));
    assert_eq!(ignores_input(3.0), 5.0);
}

// ---------------------------------------------------------------------------
// Elementary functions, method and path forms.
// ---------------------------------------------------------------------------

#[differentiable]
fn elementary(x: f64, y: f64) -> f64 {
    let a = f64::exp(x) + x.ln() + x.tanh() + f64::sin(y) + y.cos();
    let b = x.sqrt() * x.abs() + x.recip() + f64::powi(y, 3) + x.powf(y);
    let c = relu(x - 1.0) + sigmoid(y) + x.max(y) + f64::min(x, y);
    a + b + c
}

#[test]
fn elementary_functions_against_closed_forms() {
    let (x, y) = (1.7_f64, 0.4_f64);
    let s = 1.0 / (1.0 + (-y).exp());
    let dx = x.exp() + 1.0 / x + 1.0 - x.tanh().powi(2)
        + 0.5 / x.sqrt() * x
        + x.sqrt()
        - 1.0 / (x * x)
        + y * x.powf(y - 1.0)
        + 1.0 // relu, x > 1
        + 1.0; // max, x > y
    let dy = y.cos() - y.sin() + 3.0 * y * y + x.powf(y) * x.ln() + s * (1.0 - s) + 1.0; // min
    let result = elementary_grad(x, y).unwrap();
    assert_eq!(result.value, elementary(x, y));
    assert!(
        close(result.gradient.0, dx, 1e-12),
        "{} vs {dx}",
        result.gradient.0
    );
    assert!(
        close(result.gradient.1, dy, 1e-12),
        "{} vs {dy}",
        result.gradient.1
    );
    assert!(elementary_check(x, y).unwrap().passed());
}

// ---------------------------------------------------------------------------
// Checks.
// ---------------------------------------------------------------------------

#[differentiable]
fn smooth(a: f64, b: f64) -> f64 {
    (a * b).tanh() + (a - b).exp() / (1.0 + b * b)
}

#[test]
fn check_passes_on_smooth_functions_and_reports_every_component() {
    for (a, b) in [(0.3, -0.2), (1.5, 2.0), (-4.0, 0.7)] {
        let check = smooth_check(a, b).unwrap();
        assert!(check.passed(), "{check}");
        assert_eq!(check.tolerance, DEFAULT_TOLERANCE);
        assert_eq!(check.components.len(), 2);
        let gradient = smooth_grad(a, b).unwrap().gradient;
        assert_eq!(check.components[0].analytic, gradient.0);
        assert_eq!(check.components[1].analytic, gradient.1);
        assert_eq!(check.components[0].input, a);
    }
    let custom = smooth_check_with(Some(1e-4), 1e-5, 0.3, -0.2).unwrap();
    assert!(custom.passed());
    assert!(custom.components.iter().all(|c| c.step == 1e-4));
}

#[test]
fn scalar_gradient_check_fails_on_a_wrong_analytic_value() {
    let right = cube_grad(1.5).unwrap().gradient;
    let step = autodiff::default_step(1.5);
    let pass = scalar_gradient_check(1.5, right, step, DEFAULT_TOLERANCE, cube).unwrap();
    assert!(pass.passed());
    let wrong = scalar_gradient_check(1.5, right * 1.01, step, DEFAULT_TOLERANCE, cube).unwrap();
    assert!(!wrong.passed());
    assert!(wrong.scaled_error > 1e-3);
}

#[test]
fn check_with_rejects_bad_settings() {
    assert_eq!(
        smooth_check_with(Some(0.0), 1e-6, 0.3, 0.2).unwrap_err(),
        GradientCheckError::InvalidStep { step: 0.0 }
    );
    assert_eq!(
        smooth_check_with(None, f64::NAN, 0.3, 0.2)
            .unwrap_err()
            .to_string(),
        "gradient-check tolerance NaN must be non-negative and finite"
    );
}

// ---------------------------------------------------------------------------
// Typed errors name the source.
// ---------------------------------------------------------------------------

#[differentiable]
fn log_of(x: f64) -> f64 {
    let y = x - 1.0;
    2.0 * y.ln()
}
const LN_LINE: u32 = line!() - 2;

#[test]
fn domain_error_names_the_expression_and_its_line() {
    assert!(
        log_of(0.5).is_nan(),
        "the plain twin computes what the tape refuses"
    );
    let error = log_of_grad(0.5).unwrap_err();
    assert_eq!(error.code(), "non-finite-result");
    let label = error.label().unwrap();
    assert_eq!((label.text, label.line), ("y.ln()", LN_LINE));
    assert_eq!(
        error.to_string(),
        format!("ln of -0.5 produced non-finite scalar value NaN at `y.ln()` (line {LN_LINE})")
    );
    assert!(matches!(
        error,
        autodiff::ScalarAutodiffError::NonFiniteResult {
            operation: ScalarOperation::Ln,
            ..
        }
    ));
}

#[test]
fn failed_recording_adds_no_node_and_moves_no_gradient() {
    let tape = Tape::new();
    let x = tape.variable(0.5).unwrap();
    let before = tape.len();
    assert!(log_of_tape(&tape, x).is_err());
    // `y = x - 1` was recorded, then `ln` failed: the call rolls back
    // everything it recorded, so the caller's tape is as it was.
    assert_eq!(tape.len(), before);
    assert_eq!(x.gradient(), Some(0.0));
    // And the tape records on as before.
    let y = x.mul(2.0).unwrap();
    y.backward().unwrap();
    assert_eq!(x.gradient(), Some(2.0));
}

#[test]
fn non_finite_inputs_are_rejected_with_the_parameter_name() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let error = smooth_grad(1.0, bad).unwrap_err();
        assert_eq!(error.code(), "non-finite-leaf");
        assert_eq!(error.label().unwrap().text, "b");
        assert!(matches!(
            smooth_check(bad, 1.0).unwrap_err(),
            GradientCheckError::Autodiff(_) | GradientCheckError::NonFiniteInput { .. }
        ));
    }
}

#[differentiable]
fn overflow(x: f64, #[constant] big: f64) -> f64 {
    let mut total = x;
    total *= big;
    total.exp()
}

#[test]
fn errors_from_plain_operands_and_compound_targets_carry_labels() {
    assert_eq!(overflow(1.0, 2.0), 2.0_f64.exp());
    // A NaN plain operand is lifted as it is; the recorded product is NaN.
    let error = overflow_grad(1.0, f64::NAN).unwrap_err();
    assert_eq!(error.code(), "non-finite-result");
    assert_eq!(error.label().unwrap().text, "total");
    let error = overflow_grad(1.0, 1e3).unwrap_err();
    assert_eq!(error.code(), "non-finite-result");
    assert_eq!(error.label().unwrap().text, "total.exp()");
}

#[differentiable]
fn running_max(x: [f64; 3]) -> f64 {
    let mut m = f64::NEG_INFINITY;
    for v in x {
        m = m.max(v);
    }
    m
}

#[test]
fn a_running_max_from_negative_infinity_differentiates() -> Result<(), ScalarAutodiffError> {
    // The infinite start never reaches a recorded result: not an error.
    assert_eq!(running_max([1.0, 3.0, 2.0]), 3.0);
    let got = running_max_grad([1.0, 3.0, 2.0])?;
    assert_eq!(got.value, 3.0);
    assert_eq!(got.gradient, [0.0, 1.0, 0.0]);
    Ok(())
}

#[differentiable]
fn running_max_of_first(x: f64, n: usize) -> f64 {
    let mut m = f64::NEG_INFINITY;
    for _ in 0..n {
        m = m.max(x);
    }
    m
}

#[test]
fn a_non_finite_constant_reaching_the_output_is_rejected_at_the_output() {
    // With no iteration the plain twin returns -inf; the recording twin
    // says the output is not finite, naming the tail `m` and its line.
    assert_eq!(running_max_of_first(2.0, 0), f64::NEG_INFINITY);
    let error = running_max_of_first_grad(2.0, 0).unwrap_err();
    assert_eq!(error.code(), "non-finite-leaf");
    let label = error.label().unwrap();
    assert_eq!(label.text, "m");
    assert_eq!(
        error.to_string(),
        format!(
            "constant scalar value -inf must be finite at `m` (line {})",
            label.line
        )
    );
    assert!(label.line > 0);
    let got = running_max_of_first_grad(2.0, 3).unwrap();
    assert_eq!((got.value, got.gradient), (2.0, 1.0));
}

#[differentiable]
fn nan_constant_output(x: f64, #[constant] c: f64) -> f64 {
    if x > 0.0 {
        c
    } else {
        x
    }
}

#[test]
fn a_nan_constant_returned_from_a_branch_names_the_branch_line() {
    let error = nan_constant_output_grad(1.0, f64::NAN).unwrap_err();
    assert_eq!(error.code(), "non-finite-leaf");
    let label = error.label().unwrap();
    assert_eq!(label.text, "if");
    assert!(label.line > 0);
    let got = nan_constant_output_grad(-1.0, f64::NAN).unwrap();
    assert_eq!((got.value, got.gradient), (-1.0, 1.0));
}

#[test]
fn lifted_constants_carry_their_binding_name() {
    let tape = Tape::new();
    let x = tape.variable(0.5).unwrap();
    let total = loops_tape(&tape, x, 2).unwrap();
    let names: Vec<&str> = total
        .backward()
        .unwrap()
        .nodes()
        .iter()
        .filter_map(|node| node.label.map(|label| label.text))
        .collect();
    assert_eq!(
        names[0], "total",
        "`let mut total = 0.0` is a constant named total"
    );
}

#[differentiable]
fn kinked(x: f64) -> f64 {
    relu(x) + 2.0 * x
}

#[test]
fn check_fails_where_the_function_is_not_differentiable() {
    // At the kink the rule gives relu'(0) = 0, the central difference ½.
    let check = kinked_check(0.0).unwrap();
    assert!(!check.passed());
    let component = check.components[0];
    assert_eq!(component.analytic, 2.0);
    assert!((component.numerical - 2.5).abs() < 1e-9);
    assert_eq!(check.failures().count(), 1);
    assert!(check.to_string().contains("MISMATCH"));
    // Away from it the check passes.
    assert!(kinked_check(0.5).unwrap().passed());
    assert_eq!(kinked(-1.0), -2.0);
}
