//! `let` with a tuple or array pattern, `mul_add` and `clamp` through the
//! compiled adjoint: each function here has an `f_adjoint` that returns
//! `Some` (compiled, not the tape), and `f_grad` is checked against a
//! closed-form gradient, against central differences (`f_check`), and
//! against the tape (`f_grad_tape`).
//!
//! Agreement with the tape: components within 1e-12 of the largest. Both
//! are exact reverse mode over the same operations, summing the same few
//! terms in other orders, so they differ by a few ulps times the
//! condition of those sums. `mul_add`'s value is compared bit for bit with
//! the plain function's (it is the fused result, not `a * b + c`), and
//! `clamp`'s gradient at a tie exactly with the tape's rule (1/2 to each
//! side of a tied `max`/`min`, which `clamp` is made of).

use autodiff::__adjoint::Stack;
use autodiff::prelude::*;

use super::support::{agree, assert_agree};
use crate::oracle::{assert_near, Flat};

const CLOSED: f64 = 1e-13;

// ---------------------------------------------------------------------
// `let` with a pattern.
// ---------------------------------------------------------------------

#[differentiable]
fn split_pair(x: f64) -> f64 {
    let (a, b) = (x * 2.0, x * 3.0);
    a * b
}

#[differentiable]
fn annotated_pair(x: f64, y: f64) -> f64 {
    let (a, b): (f64, f64) = (x.sin(), y * y);
    a * b
}

#[differentiable]
fn mutable_accumulators(x: &[f64]) -> f64 {
    let (mut s, mut p) = (0.0, 1.0);
    for v in x.iter() {
        s += v;
        p *= v;
    }
    s * p
}

#[differentiable]
fn nested_tuple(x: f64, y: f64) -> f64 {
    let ((a, b), c) = ((x + y, x * y), y.exp());
    a * b + c
}

#[differentiable]
fn with_wildcard(x: f64, y: f64) -> f64 {
    let (a, _) = (x * x, y.ln());
    a
}

#[differentiable]
fn swapped(x: f64, y: f64) -> f64 {
    let (a, b) = (x, 2.0 * y);
    let (a, b) = (b, a);
    a * a * a + b
}

#[differentiable]
fn swapped_in_a_loop(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    for _ in 0..3 {
        let (c, d) = (b, a * 0.5);
        a = c;
        b = d;
    }
    a * 10.0 + b
}

#[differentiable]
fn array_pattern(p: [f64; 3]) -> f64 {
    let [a, b, c] = p;
    a * b + c.sin()
}

#[differentiable]
fn ordered(a: f64, b: f64) -> f64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    hi * hi - lo
}

#[differentiable]
fn matched(x: f64, #[constant] k: usize) -> f64 {
    let (a, b) = match k {
        0 => (x, 2.0 * x),
        1 => (x * x, 1.0),
        _ => (2.0 * x, x),
    };
    a * b * b
}

/// An arm's binding (`s`): the arm taken is pushed, and `s` with it,
/// since the reverse sweep does not match the scrutinee again.
#[differentiable]
fn matched_with_a_binding(x: f64, #[constant] scale: Option<f64>) -> f64 {
    let (a, b) = match scale {
        Some(s) => (x * s, x),
        None => (x, 1.0),
    };
    a * b
}

// ---------------------------------------------------------------------
// `mul_add` and `clamp`.
// ---------------------------------------------------------------------

#[differentiable]
fn fma(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

#[differentiable]
fn fma_of_functions(x: f64, y: f64) -> f64 {
    x.sin().mul_add(y.exp(), x * y)
}

#[differentiable]
fn fma_path_form(x: f64, y: f64) -> f64 {
    f64::mul_add(x, y, 1.0) * x
}

#[differentiable]
fn clamped(x: f64, lo: f64, hi: f64) -> f64 {
    x.clamp(lo, hi)
}

#[differentiable]
fn clamped_product(x: f64, y: f64) -> f64 {
    (x * y).clamp(-1.0, 1.0) * x.exp()
}

#[differentiable]
fn clamped_below_only(x: f64) -> f64 {
    x.clamp(f64::NEG_INFINITY, 1.0) * x
}

#[test]
fn each_function_is_compiled() {
    // A function that keeps the tape has no `_adjoint`, and one that
    // compiles but gives up at run time returns `None`.
    let mut stack = Stack::new();
    assert!(split_pair_adjoint(&mut stack, 1.5).is_some());
    assert!(annotated_pair_adjoint(&mut stack, 0.3, 2.0).is_some());
    assert!(mutable_accumulators_adjoint(&mut stack, &[1.0, 2.0]).is_some());
    assert!(nested_tuple_adjoint(&mut stack, 0.5, 0.25).is_some());
    assert!(with_wildcard_adjoint(&mut stack, 2.0, 3.0).is_some());
    assert!(swapped_adjoint(&mut stack, 1.0, 2.0).is_some());
    assert!(swapped_in_a_loop_adjoint(&mut stack, 1.0, 2.0).is_some());
    assert!(array_pattern_adjoint(&mut stack, [1.0, 2.0, 3.0]).is_some());
    assert!(ordered_adjoint(&mut stack, 1.0, 2.0).is_some());
    assert!(matched_adjoint(&mut stack, 1.0, 0).is_some());
    assert!(fma_adjoint(&mut stack, 1.0, 2.0, 3.0).is_some());
    assert!(fma_of_functions_adjoint(&mut stack, 1.0, 2.0).is_some());
    assert!(fma_path_form_adjoint(&mut stack, 1.0, 2.0).is_some());
    assert!(clamped_adjoint(&mut stack, 0.5, 0.0, 1.0).is_some());
    assert!(clamped_product_adjoint(&mut stack, 0.5, 0.5).is_some());
    assert!(clamped_below_only_adjoint(&mut stack, 0.5).is_some());
}

#[test]
fn tuple_lets_against_closed_forms_the_tape_and_differences(
) -> Result<(), Box<dyn std::error::Error>> {
    for x in [1.5, -0.7] {
        let got = agree("split_pair", split_pair_grad(x), split_pair_grad_tape(x));
        assert_eq!(got.value, split_pair(x));
        // 6x².
        assert_near("split_pair", &[got.gradient], &[12.0 * x], CLOSED);
        assert!(split_pair_check(x)?.passed());
    }
    for (x, y) in [(0.3, 2.0), (-1.2, 0.5)] {
        let got = agree(
            "annotated_pair",
            annotated_pair_grad(x, y),
            annotated_pair_grad_tape(x, y),
        );
        assert_eq!(got.value, annotated_pair(x, y));
        let want = [x.cos() * y * y, 2.0 * y * x.sin()];
        assert_near("annotated_pair", &got.gradient.components(), &want, CLOSED);
        assert!(annotated_pair_check(x, y)?.passed());

        let got = agree(
            "nested_tuple",
            nested_tuple_grad(x, y),
            nested_tuple_grad_tape(x, y),
        );
        assert_eq!(got.value, nested_tuple(x, y));
        // (x + y)·xy + eʸ.
        let want = [2.0 * x * y + y * y, x * x + 2.0 * x * y + y.exp()];
        assert_near("nested_tuple", &got.gradient.components(), &want, CLOSED);
        assert!(nested_tuple_check(x, y)?.passed());
    }
    let x = [1.0, 2.0, -0.5, 3.0];
    let got = agree(
        "mutable_accumulators",
        mutable_accumulators_grad(&x),
        mutable_accumulators_grad_tape(&x),
    );
    assert_eq!(got.value, mutable_accumulators(&x));
    // s·p: ∂ᵢ = p + s·p/xᵢ.
    let (s, p) = (x.iter().sum::<f64>(), x.iter().product::<f64>());
    let want: Vec<f64> = x.iter().map(|v| p + s * p / v).collect();
    assert_near("mutable_accumulators", &got.gradient, &want, CLOSED);
    assert!(mutable_accumulators_check(&x)?.passed());

    let p = [1.0, 2.0, 3.0];
    let got = agree(
        "array_pattern",
        array_pattern_grad(p),
        array_pattern_grad_tape(p),
    );
    assert_eq!(got.value, array_pattern(p));
    assert_near(
        "array_pattern",
        &got.gradient,
        &[2.0, 1.0, 3.0_f64.cos()],
        CLOSED,
    );
    assert!(array_pattern_check(p)?.passed());
    Ok(())
}

#[test]
fn a_wildcard_is_run_but_has_no_gradient() -> Result<(), Box<dyn std::error::Error>> {
    let got = agree(
        "with_wildcard",
        with_wildcard_grad(2.0, 3.0),
        with_wildcard_grad_tape(2.0, 3.0),
    );
    assert_eq!((got.value, got.gradient), (4.0, (4.0, 0.0)));
    assert!(with_wildcard_check(2.0, 3.0)?.passed());
    // The discarded `y.ln()` of a negative `y` is NaN: the tape rejects it
    // although nothing reads it, and the compiled path gives the same
    // error.
    let compiled = with_wildcard_grad(2.0, -1.0);
    let tape = with_wildcard_grad_tape(2.0, -1.0);
    // The error holds the NaN, which equals nothing: compared as printed.
    let (compiled, tape) = (compiled.unwrap_err(), tape.unwrap_err());
    assert!(matches!(tape, ScalarAutodiffError::NonFiniteResult { .. }));
    assert_eq!(format!("{compiled:?}"), format!("{tape:?}"));
    Ok(())
}

#[test]
fn a_swap_reads_every_value_before_it_binds() -> Result<(), Box<dyn std::error::Error>> {
    for (x, y) in [(1.0, 2.0), (-0.5, 0.75)] {
        // `(a, b) = (2y, x)`: 8y³ + x.
        let got = agree("swapped", swapped_grad(x, y), swapped_grad_tape(x, y));
        assert_eq!(got.value, 8.0 * y * y * y + x);
        assert_eq!(got.value, swapped(x, y));
        assert_near(
            "swapped",
            &got.gradient.components(),
            &[1.0, 24.0 * y * y],
            CLOSED,
        );
        assert!(swapped_check(x, y)?.passed());

        // (a, b) → (b, a/2) → (a/2, b/2) → (b/2, a/4): 10·b/2 + a/4.
        let got = agree(
            "swapped_in_a_loop",
            swapped_in_a_loop_grad(x, y),
            swapped_in_a_loop_grad_tape(x, y),
        );
        assert_eq!(got.value, swapped_in_a_loop(x, y));
        assert_eq!(got.gradient, (0.25, 5.0));
    }
    Ok(())
}

#[test]
fn tuple_valued_if_arms_take_the_branch_the_forward_took() -> Result<(), Box<dyn std::error::Error>>
{
    // hi² − lo.
    for (a, b, want) in [(1.0, 2.0, (-1.0, 4.0)), (3.0, -1.0, (6.0, -1.0))] {
        let got = agree("ordered", ordered_grad(a, b), ordered_grad_tape(a, b));
        assert_eq!(got.value, ordered(a, b));
        assert_eq!(got.gradient, want);
        assert!(ordered_check(a, b)?.passed());
    }
    Ok(())
}

#[test]
fn tuple_valued_match_arms_take_the_arm_the_forward_took() -> Result<(), Box<dyn std::error::Error>>
{
    let x = 1.5;
    // 4x³, x², 2x³.
    for (k, want) in [(0, 12.0 * x * x), (1, 2.0 * x), (2, 6.0 * x * x)] {
        let got = agree("matched", matched_grad(x, k), matched_grad_tape(x, k));
        assert_eq!(got.value, matched(x, k));
        assert_near("matched", &[got.gradient], &[want], CLOSED);
        assert!(matched_check(x, k)?.passed());
    }
    Ok(())
}

#[test]
fn a_match_whose_arms_bind_is_compiled() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(
        matched_with_a_binding_grad_path(),
        autodiff::GradientPath::Compiled
    );
    // s·x² (gradient 2sx) and x (gradient 1), against the tape too.
    for (x, scale) in [
        (1.5, Some(3.0)),
        (-0.7, Some(-2.5)),
        (1.5, None),
        (0.3, None),
    ] {
        let got = agree(
            "matched_with_a_binding",
            matched_with_a_binding_grad(x, scale),
            matched_with_a_binding_grad_tape(x, scale),
        );
        let want = match scale {
            Some(s) => (s * x * x, 2.0 * s * x),
            None => (x, 1.0),
        };
        assert_eq!(got.value, want.0);
        assert_near("matched_with_a_binding", &[got.gradient], &[want.1], CLOSED);
    }
    Ok(())
}

#[test]
fn mul_add_is_fused_and_has_derivatives_b_a_1() -> Result<(), Box<dyn std::error::Error>> {
    // 0.1 · 10 rounds to 1, so `a * b + c` is 0; the fused value keeps
    // 0.1's representation error.
    let (a, b, c) = (0.1, 10.0, -1.0);
    assert_eq!(a * b + c, 0.0);
    let got = agree("fma", fma_grad(a, b, c), fma_grad_tape(a, b, c));
    assert_eq!(got.value.to_bits(), fma(a, b, c).to_bits());
    assert_ne!(got.value, 0.0);
    assert_eq!(got.gradient, (b, a, 1.0));

    // 2e154 · 1e154 overflows, the fused 2e308 − 1e308 does not: the
    // product the tape records is +∞ with finite local derivatives (b, a),
    // an infinite intermediate that reaches neither the output nor a NaN,
    // so both paths give the fused value and the derivatives (b, a, 1).
    let (a, b, c) = (2e154, 1e154, -1e308);
    assert!(fma(a, b, c).is_finite());
    let got = agree("fma overflow", fma_grad(a, b, c), fma_grad_tape(a, b, c));
    assert_eq!(got.value.to_bits(), fma(a, b, c).to_bits());
    assert_eq!(got.gradient, (b, a, 1.0));
    // A fused value that overflows reaches the output: the tape's error.
    let (a, b, c) = (f64::MAX, 4.0, -1e308);
    let tape = fma_grad_tape(a, b, c).unwrap_err();
    let compiled = fma_grad(a, b, c).unwrap_err();
    assert!(matches!(tape, ScalarAutodiffError::NonFiniteResult { .. }));
    assert_eq!(format!("{compiled:?}"), format!("{tape:?}"));

    for (x, y) in [(0.6, -0.4), (1.3, 0.2)] {
        let got = agree(
            "fma_of_functions",
            fma_of_functions_grad(x, y),
            fma_of_functions_grad_tape(x, y),
        );
        assert_eq!(got.value.to_bits(), fma_of_functions(x, y).to_bits());
        let want = [x.cos() * y.exp() + y, x.sin() * y.exp() + x];
        assert_near(
            "fma_of_functions",
            &got.gradient.components(),
            &want,
            CLOSED,
        );
        assert!(fma_of_functions_check(x, y)?.passed());

        let got = agree(
            "fma_path_form",
            fma_path_form_grad(x, y),
            fma_path_form_grad_tape(x, y),
        );
        assert_eq!(got.value.to_bits(), fma_path_form(x, y).to_bits());
        // (xy + 1)·x.
        let want = [2.0 * x * y + 1.0, x * x];
        assert_near("fma_path_form", &got.gradient.components(), &want, CLOSED);
        assert!(fma_path_form_check(x, y)?.passed());
    }
    Ok(())
}

#[test]
fn clamp_inside_outside_and_at_its_bounds() {
    let (lo, hi) = (-1.0, 2.0);
    for (x, want) in [
        // Inside, below, above.
        (0.5, (1.0, 0.0, 0.0)),
        (-3.0, (0.0, 1.0, 0.0)),
        (4.0, (0.0, 0.0, 1.0)),
        // At a bound: `max(min(x, hi), lo)` ties once, 1/2 to each side.
        (-1.0, (0.5, 0.5, 0.0)),
        (2.0, (0.5, 0.0, 0.5)),
    ] {
        let got = agree(
            "clamped",
            clamped_grad(x, lo, hi),
            clamped_grad_tape(x, lo, hi),
        );
        assert_eq!(got.value, clamped(x, lo, hi));
        assert_eq!(got.gradient, want, "at x = {x}");
    }
    // All three equal: both `min` and `max` tie.
    let got = agree(
        "clamped",
        clamped_grad(1.0, 1.0, 1.0),
        clamped_grad_tape(1.0, 1.0, 1.0),
    );
    assert_eq!(got.gradient, (0.25, 0.5, 0.25));
}

#[test]
fn clamp_of_an_expression_against_differences() -> Result<(), Box<dyn std::error::Error>> {
    // (xy) clamped to [−1, 1], times eˣ; away from the kinks.
    for (x, y) in [(0.5, 0.8), (1.5, 2.0), (-2.0, 3.0)] {
        let got = agree(
            "clamped_product",
            clamped_product_grad(x, y),
            clamped_product_grad_tape(x, y),
        );
        assert_eq!(got.value, clamped_product(x, y));
        let product = x * y;
        let want = if product.abs() < 1.0 {
            [(y + product) * x.exp(), x * x.exp()]
        } else {
            [product.signum() * x.exp(), 0.0]
        };
        assert_near("clamped_product", &got.gradient.components(), &want, CLOSED);
        assert!(clamped_product_check(x, y)?.passed());
    }
    Ok(())
}

#[test]
fn clamp_with_an_infinite_constant_bound_stays_compiled() {
    // The tape takes a constant bound as it is, infinite or not; so does
    // the compiled path, without rerunning on the tape.
    let mut stack = Stack::new();
    // x² below 1, x above it.
    for (x, want) in [(0.5, (0.25, 1.0)), (3.0, (3.0, 1.0))] {
        let compiled = clamped_below_only_adjoint(&mut stack, x).expect("compiled");
        let tape = clamped_below_only_grad_tape(x).expect("finite");
        assert_eq!((compiled.value, compiled.gradient), want);
        assert_eq!((tape.value, tape.gradient), want);
    }
}

#[test]
#[should_panic]
fn clamp_with_crossed_bounds_panics_as_the_plain_function_does() {
    let _ = clamped_grad(0.5, 2.0, 1.0);
}

/// A `for` pattern taking apart `#[constant]` items: (input, label) pairs,
/// bundle adjustment's (camera, point) index pairs, by reference and with
/// `enumerate`, and index arrays (found by probing: each kept the tape).
/// Their names carry no derivative, so nothing of theirs is spread.
#[differentiable]
fn pairs_of_data(x: &[f64], #[constant] data: &[(Vec<f64>, f64)]) -> f64 {
    let mut t = 0.0;
    for (xi, yi) in data {
        t += (x[0] * xi[0] + x[1] * xi[1] - yi).powi(2);
    }
    t
}

#[differentiable]
fn index_pairs(
    w: &[f64],
    #[constant] obs: &[(usize, usize)],
    #[constant] edges: &[[usize; 2]],
) -> f64 {
    let mut t = 0.0;
    for &(c, p) in obs.iter() {
        t += w[c] * w[p];
    }
    for (i, &(c, p)) in obs.iter().enumerate() {
        t += (w[c] - w[p]).sin() * (i as f64 + 1.0);
    }
    for &[a, b] in edges {
        t += (w[a] - w[b]).powi(2);
    }
    t
}

#[test]
fn for_patterns_over_constant_items_are_compiled() {
    use autodiff::GradientPath;
    assert_eq!(pairs_of_data_grad_path(), GradientPath::Compiled);
    assert_eq!(index_pairs_grad_path(), GradientPath::Compiled);
    let data = vec![(vec![0.5, -1.0], 0.25), (vec![1.5, 0.5], -0.75)];
    let x = vec![0.3, -0.6];
    let got = agree(
        "pairs_of_data",
        pairs_of_data_grad(&x, &data),
        pairs_of_data_grad_tape(&x, &data),
    );
    // Σ 2 rᵢ xᵢ, rᵢ the residual.
    let mut want = [0.0; 2];
    for (xi, yi) in &data {
        let r = x[0] * xi[0] + x[1] * xi[1] - yi;
        want[0] += 2.0 * r * xi[0];
        want[1] += 2.0 * r * xi[1];
    }
    assert_agree("pairs_of_data", &got.gradient, &want);
    let (obs, edges) = (vec![(0, 2), (1, 0)], vec![[2, 1], [0, 1]]);
    let w = vec![0.4, -0.7, 1.1];
    let got = agree(
        "index_pairs",
        index_pairs_grad(&w, &obs, &edges),
        index_pairs_grad_tape(&w, &obs, &edges),
    );
    let want = crate::oracle::dual_gradient(&w, |v| {
        let mut t = v[0] * v[2] + v[1] * v[0];
        t = t + (v[0] - v[2]).sin() + (v[1] - v[0]).sin() * 2.0;
        t + (v[2] - v[1]) * (v[2] - v[1]) + (v[0] - v[1]) * (v[0] - v[1])
    });
    assert_agree("index_pairs", &got.gradient, &want);
}

/// An LSTM-like cell returning its new state as a pair of `Vec`s.
#[differentiable]
fn cell(w: &[f64], h: &[f64], c: &[f64], x: f64) -> (Vec<f64>, Vec<f64>) {
    let mut hn = Vec::new();
    let mut cn = Vec::new();
    for i in 0..h.len() {
        let f = sigmoid(w[0] * x + w[1] * h[i]);
        let g = (w[2] * x + w[3] * h[i]).tanh();
        let ci = f * c[i] + (1.0 - f) * g;
        cn.push(ci);
        hn.push(ci.tanh());
    }
    (hn, cn)
}

/// `cell` on dual numbers, written out: the state updated in place.
fn cell_dual(
    w: &[crate::oracle::Dual],
    h: &mut [crate::oracle::Dual],
    c: &mut [crate::oracle::Dual],
    x: f64,
) {
    for i in 0..h.len() {
        let f = (w[0] * x + w[1] * h[i]).sigmoid();
        let g = (w[2] * x + w[3] * h[i]).tanh();
        c[i] = f * c[i] + (-f + 1.0) * g;
        h[i] = c[i].tanh();
    }
}

/// The state carried through time by a destructuring assignment, `(h,
/// c) = cell(..)` (found by probing: it kept the tape, its reason cut
/// mid-call): read as `let (h_next, c_next) = cell(..); h = h_next; c =
/// c_next;`.
#[differentiable]
fn carried_state(w: &[f64], #[constant] xs: &[f64]) -> f64 {
    let mut h = vec![0.0, 0.1];
    let mut c = vec![0.2, 0.0];
    for &x in xs {
        (h, c) = cell(w, &h, &c, x);
    }
    h[0] + h[1] * c[1]
}

#[test]
fn state_assigned_from_a_tuple_valued_call_is_compiled() {
    assert_eq!(carried_state_grad_path(), autodiff::GradientPath::Compiled);
    let (w, xs) = (vec![0.5, -0.3, 0.8, 0.2], vec![0.4, -1.1, 0.7]);
    let got = agree(
        "carried_state",
        carried_state_grad(&w, &xs),
        carried_state_grad_tape(&w, &xs),
    );
    let want = crate::oracle::dual_gradient(&w, |w| {
        let zero = w[0] * 0.0;
        let (mut h, mut c) = ([zero, zero + 0.1], [zero + 0.2, zero]);
        for &x in &xs {
            cell_dual(w, &mut h, &mut c, x);
        }
        h[0] + h[1] * c[1]
    });
    assert_agree("carried_state", &got.gradient, &want);
}

/// The same state kept as one pair, `state = cell(.., &state.0, &state.1,
/// ..)`, read by its fields (`state.0[i]`), as an LSTM written from
/// ADBench's definition keeps `(h, c)`: it kept the tape (a call's value
/// assigned whole to a binding the body did not show to be a vector);
/// read as `let cell_out = cell(..); state = cell_out;`.
#[differentiable]
fn state_pair(w: &[f64], #[constant] xs: &[f64]) -> f64 {
    let mut state = (vec![0.0, 0.1], vec![0.2, 0.0]);
    let mut total = 0.0;
    for &x in xs {
        state = cell(w, &state.0, &state.1, x);
        total += state.0[0] * x;
    }
    total + state.0[1] * state.1[1]
}

#[test]
fn a_state_pair_assigned_from_a_tuple_valued_call_is_compiled() {
    assert_eq!(state_pair_grad_path(), autodiff::GradientPath::Compiled);
    let (w, xs) = (vec![0.5, -0.3, 0.8, 0.2], vec![0.4, -1.1, 0.7]);
    let reruns = autodiff::__adjoint::tape_reruns();
    let got = agree(
        "state_pair",
        state_pair_grad(&w, &xs),
        state_pair_grad_tape(&w, &xs),
    );
    assert_eq!(
        autodiff::__adjoint::tape_reruns(),
        reruns,
        "compiled all the way"
    );
    let want = crate::oracle::dual_gradient(&w, |w| {
        let zero = w[0] * 0.0;
        let (mut h, mut c) = ([zero, zero + 0.1], [zero + 0.2, zero]);
        let mut total = zero;
        for &x in &xs {
            cell_dual(w, &mut h, &mut c, x);
            total = total + h[0] * x;
        }
        total + h[1] * c[1]
    });
    assert_agree("state_pair", &got.gradient, &want);
}

/// An array pattern over a matrix parameter: rows (`let [r0, r1] = m;`),
/// and the matrix taken apart to its numbers (`let [[a, b], [c, d]] =
/// m;`), each a copy as an index would be. The determinant twice.
#[differentiable]
fn determinants(m: [[f64; 2]; 2]) -> f64 {
    let [r0, r1] = m;
    let [[a, b], [c, d]] = m;
    (r0[0] * r1[1] - r0[1] * r1[0]) * (a * d - b * c)
}

#[test]
fn an_array_pattern_takes_a_matrix_apart_by_rows_and_numbers() {
    let _compiled = determinants_adjoint;
    assert_eq!(determinants_grad_path(), autodiff::GradientPath::Compiled);
    let m = [[1.5, -0.5], [0.25, 2.0]];
    let got = agree(
        "determinants",
        determinants_grad(m),
        determinants_grad_tape(m),
    );
    // f = det², ∂f/∂m = 2 det · cofactors.
    let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    let want = [
        2.0 * det * m[1][1],
        -2.0 * det * m[1][0],
        -2.0 * det * m[0][1],
        2.0 * det * m[0][0],
    ];
    assert_near("determinants", &got.gradient.components(), &want, CLOSED);
    assert!(determinants_check(m).unwrap().passed());
}
