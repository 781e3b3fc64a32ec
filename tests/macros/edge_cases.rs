//! Less common shapes of code through `#[differentiable]`, each against a
//! closed form or central differences of the plain twin.

use autodiff::prelude::*;

use crate::oracle::close;

#[differentiable]
fn layer(w: [f64; 2], x: &[f64]) -> f64 {
    (w[0] * x[0] + w[1] * x[1]).tanh()
}

#[differentiable]
fn stacked(w: [f64; 2], v: Vec<f64>) -> f64 {
    let hidden = [layer(w, &v), layer([1.0, -1.0], &v)];
    let local = vec![hidden[0], hidden[1]];
    layer(w, &local) + layer(w, &[0.5, 0.25])
}

#[test]
fn composition_passes_arrays_slices_and_vecs() {
    let w = [0.3, -0.7];
    let v = vec![1.2, 0.4];
    let result = stacked_grad(w, v.clone()).unwrap();
    assert_eq!(result.value, stacked(w, v.clone()));
    let check = stacked_check(w, v).unwrap();
    assert!(check.passed(), "{check}");
}

#[differentiable]
fn neighbours(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for (i, v) in x.iter().enumerate() {
        if i + 1 < x.len() {
            total += v * x[i + 1];
        }
    }
    total
}

#[test]
fn enumerate_indices_do_integer_arithmetic() {
    let x = [1.0, 2.0, 3.0, 4.0];
    let result = neighbours_grad(&x).unwrap();
    assert_eq!(result.value, 1.0 * 2.0 + 2.0 * 3.0 + 3.0 * 4.0);
    assert_eq!(result.gradient, vec![2.0, 4.0, 6.0, 3.0]);
}

#[differentiable]
fn newton_sqrt(a: f64) -> f64 {
    // Newton's iteration for √a, stopped on a primal comparison.
    let mut guess = a;
    let mut rounds = 0;
    'outer: loop {
        let mut steps = 0;
        while steps < 4 {
            let next = 0.5 * (guess + a / guess);
            if (next - guess).abs() < 1e-15 * a {
                break 'outer;
            }
            guess = next;
            steps += 1;
        }
        rounds += 1;
        if rounds == 25 {
            break;
        }
    }
    guess
}

#[test]
fn labelled_loops_and_a_tracked_while_condition_differentiate_the_iteration() {
    // The unrolled iteration converges to √a, and so does its derivative.
    for a in [2.0_f64, 9.0, 0.3] {
        let result = newton_sqrt_grad(a).unwrap();
        assert!(close(result.value, a.sqrt(), 1e-12));
        assert!(
            (result.gradient - 0.5 / a.sqrt()).abs() < 1e-9,
            "{a}: {}",
            result.gradient
        );
    }
}

#[differentiable]
fn constants_and_literals(x: f64) -> f64 {
    let pi = std::f64::consts::PI;
    let shifted = -1.5 + x * -2.0;
    let halves = [0.5; 2];
    shifted * pi + halves[0] * x - f64::EPSILON
}

#[test]
fn paths_negative_literals_and_plain_arrays_are_constants() {
    let result = constants_and_literals_grad(0.25).unwrap();
    assert_eq!(result.value, constants_and_literals(0.25));
    assert!(close(
        result.gradient,
        -2.0 * std::f64::consts::PI + 0.5,
        1e-12
    ));
}

#[differentiable]
fn piecewise(x: f64, #[constant] mode: Option<usize>) -> f64 {
    let scale = if let Some(k) = mode { k as f64 } else { 1.0 };
    match x {
        v if v < 0.0 => scale * v * v,
        v => scale * v.sqrt(),
    }
}

#[test]
fn if_let_and_match_guards_on_a_tracked_value() {
    let result = piecewise_grad(-2.0, Some(3)).unwrap();
    assert_eq!((result.value, result.gradient), (12.0, -12.0));
    let result = piecewise_grad(4.0, None).unwrap();
    assert_eq!((result.value, result.gradient), (2.0, 0.25));
    assert_eq!(piecewise(4.0, None), 2.0);
}

#[differentiable]
fn block_values(x: f64, y: f64) -> f64 {
    let inner = {
        let t = x * y;
        t + 1.0
    };
    let chosen = if inner > 2.0 { x } else { 0.5 };
    inner * chosen
}

#[test]
fn blocks_and_branches_with_one_plain_arm() {
    // inner = xy + 1 = 7 > 2: chosen = x, f = (xy + 1)·x, ∇ = (2xy + 1, x²).
    let result = block_values_grad(2.0, 3.0).unwrap();
    assert_eq!(result.value, 14.0);
    assert_eq!(result.gradient, (13.0, 4.0));
    // inner = 1.25 ≤ 2: chosen = 0.5 (a constant), ∇ = (0.5y, 0.5x).
    let result = block_values_grad(0.5, 0.5).unwrap();
    assert_eq!(result.gradient, (0.25, 0.25));
    assert_eq!(block_values(0.5, 0.5), 0.625);
}

#[differentiable]
fn powers(x: f64, n: i32) -> f64 {
    x.powi(n) + 2.0_f64.powf(x) + x.powf(2.5) + f64::powf(x, x)
}

#[test]
fn powers_with_plain_and_tracked_exponents() {
    let x = 1.3_f64;
    let expected = 3.0 * x * x
        + 2.0_f64.powf(x) * 2.0_f64.ln()
        + 2.5 * x.powf(1.5)
        + x.powf(x) * (x.ln() + 1.0);
    let result = powers_grad(x, 3).unwrap();
    assert_eq!(result.value, powers(x, 3));
    assert!(close(result.gradient, expected, 1e-12));
}

#[differentiable]
fn unused_parameter(x: f64, y: f64) -> f64 {
    let _ = y;
    x * 3.0
}

#[test]
fn a_parameter_the_output_never_reaches_has_gradient_zero() {
    assert_eq!(
        unused_parameter_grad(1.0, 2.0).unwrap().gradient,
        (3.0, 0.0)
    );
    assert_eq!(unused_parameter(1.0, 2.0), 3.0);
}

#[differentiable]
fn model(w: [f64; 2], #[constant] data: &[f64]) -> f64 {
    // Plain data into a differentiable slice parameter: lifted to constants.
    layer(w, data) * layer(w, &vec![2.0, 1.0])
}

#[test]
fn constant_slices_flow_into_differentiable_slice_parameters() {
    let w = [0.4, -0.2];
    let data = [1.0, 3.0];
    let result = model_grad(w, &data).unwrap();
    assert_eq!(result.value, model(w, &data));
    assert!(model_check(w, &data).unwrap().passed());
}

#[differentiable]
fn norm_squared<const N: usize>(x: [f64; N]) -> f64 {
    let mut total = 0.0;
    for v in x {
        total += v * v;
    }
    total
}

#[differentiable]
fn repeated_square(x: f64, n: usize) -> f64 {
    if n == 0 {
        x
    } else {
        repeated_square(x * x, n - 1)
    }
}

// An explicit lifetime parameter is what is under test.
#[allow(clippy::needless_lifetimes)]
#[differentiable]
fn first<'a>(x: &'a [f64], #[constant] mut scale: f64) -> f64 {
    scale += x[0]; // a pass-through parameter that becomes tracked
    scale * x[1]
}

#[test]
fn const_generics_recursion_lifetimes_and_a_mutable_constant() {
    let result = norm_squared_grad([1.0, -2.0, 3.0, 0.5]).unwrap();
    assert_eq!(result.value, 14.25);
    assert_eq!(result.gradient, [2.0, -4.0, 6.0, 1.0]);
    assert_eq!(norm_squared([3.0]), 9.0);

    // x^(2^3) = x^8: derivative 8x^7.
    let result = repeated_square_grad(1.1, 3).unwrap();
    assert_eq!(result.value, repeated_square(1.1, 3));
    assert!(close(result.gradient, 8.0 * 1.1_f64.powi(7), 1e-12));

    // (scale + x0)·x1: ∇ = (x1, scale + x0).
    let result = first_grad(&[2.0, 5.0], 1.0).unwrap();
    assert_eq!(result.gradient, vec![5.0, 3.0]);
    assert_eq!(first(&[2.0, 5.0], 1.0), 15.0);
}

// The stray `;` is what is under test.
#[allow(redundant_semicolons)]
#[differentiable]
fn stray_semicolon_and_use(x: f64) -> f64 {
    use std::f64::consts::PI;
    let y = x * x;
    y * PI
}

#[test]
fn empty_statements_and_use_items() {
    let result = stray_semicolon_and_use_grad(2.0).unwrap();
    assert_eq!(result.value, stray_semicolon_and_use(2.0));
    assert!(close(result.gradient, 4.0 * std::f64::consts::PI, 1e-12));
}

#[differentiable]
fn signed_indices(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for (i, v) in x.iter().enumerate() {
        // `i` is an index, an integer: negation and abs stay integer ops.
        let distance = (i as i64 - 1).abs();
        let sign = -(distance as f64);
        total += v * sign;
    }
    total
}

#[test]
fn integer_neg_and_abs_next_to_tracked_values() {
    let result = signed_indices_grad(&[1.0, 2.0, 3.0, 4.0]).unwrap();
    assert_eq!(result.gradient, vec![-1.0, 0.0, -1.0, -2.0]);
    assert_eq!(result.value, signed_indices(&[1.0, 2.0, 3.0, 4.0]));
}

#[differentiable]
fn clashing_names(
    tape: f64,
    output: f64,
    step: f64,
    #[constant] tolerance: f64,
    rest: usize,
) -> f64 {
    // Every generated local and parameter is hygienic: these names are the user's.
    let point = tape * output + step * tolerance;
    point * rest as f64
}

#[test]
fn user_names_never_clash_with_generated_ones() {
    let result = clashing_names_grad(2.0, 3.0, 4.0, 0.5, 2).unwrap();
    assert_eq!(result.value, clashing_names(2.0, 3.0, 4.0, 0.5, 2));
    assert_eq!(result.gradient, (6.0, 4.0, 1.0));
    let check = clashing_names_check_with(Some(1e-3), 1e-8, 2.0, 3.0, 4.0, 0.5, 2).unwrap();
    assert!(check.passed(), "{check}");
    assert!(check.components.iter().all(|c| c.step == 1e-3));
}

#[differentiable]
fn guarded_ln(x: f64) -> f64 {
    let y = x.ln();
    if y.is_sign_negative() || !y.is_finite() {
        -y
    } else {
        y
    }
}

#[test]
fn f64_predicates_read_the_primal_value() {
    assert_eq!(guarded_ln_grad(0.5).unwrap().gradient, -2.0);
    assert_eq!(guarded_ln_grad(4.0).unwrap().gradient, 0.25);
    assert_eq!(guarded_ln(0.5), -(0.5_f64.ln()));
}
