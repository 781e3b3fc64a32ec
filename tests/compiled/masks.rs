//! Lesson 15's mask, `−∞` where a token must not look: a vector-valued
//! helper (softmax) called on a masked row. The tape records the helper
//! on the caller's values as they are, an infinity too, and takes it
//! where the function turns it into a finite value with finite
//! derivatives (`(v − m).exp()` with `v = −∞` is 0, derivative 0); the
//! helper's compiled reverse takes it the same way, so the gradient runs
//! compiled all the way through: `compiled` asserts that the adjoint
//! answered itself, and `tape_reruns` that `f_grad` did not rerun the
//! tape. Where the tape rejects the infinity (it reaches a NaN, or meets
//! a tracked factor whose derivative it makes infinite), the compiled
//! sweep finds it too and `f_grad` reruns the tape for its error: never
//! a number the tape would not give.
//!
//! Oracle: softmax's closed form, `∂(−ln pₖ)/∂s = p − eₖ`, in which a
//! masked entry's `p` is exactly 0, so its gradient is exactly 0.

// Index loops on purpose: they are the constructs under test.
#![allow(clippy::needless_range_loop)]

use autodiff::__adjoint::tape_reruns;
use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{agree, assert_agree, compiled};
use crate::attention_layers::softmax;

/// `−ln softmax(s + m)ₖ`, the mask a constant.
#[differentiable]
fn masked_nll(s: &[f64], #[constant] mask: &[f64], #[constant] k: usize) -> f64 {
    let mut z = Vec::new();
    for j in 0..s.len() {
        z.push(s[j] + mask[j]);
    }
    let p = softmax(&z);
    -p[k].ln()
}

/// The plain softmax of `s + m`, the oracle's.
fn probabilities(s: &[f64], mask: &[f64]) -> Vec<f64> {
    let z: Vec<f64> = s.iter().zip(mask).map(|(s, m)| s + m).collect();
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let total: f64 = e.iter().sum();
    e.iter().map(|v| v / total).collect()
}

#[test]
fn a_masked_row_runs_compiled_and_its_masked_entries_get_zero() {
    assert_eq!(masked_nll_grad_path(), GradientPath::Compiled);
    let s = [0.4, -0.7, 1.1, 0.3];
    let inf = f64::NEG_INFINITY;
    for (mask, k) in [
        ([0.0, 0.0, 0.0, inf], 1),
        ([0.0, inf, inf, inf], 0),
        ([0.0, 0.0, inf, 0.0], 3),
    ] {
        let got = compiled(|stack| masked_nll_adjoint(stack, &s, &mask, k));
        let reruns = tape_reruns();
        let grad = agree(
            "masked_nll",
            masked_nll_grad(&s, &mask, k),
            masked_nll_grad_tape(&s, &mask, k),
        );
        assert_eq!(tape_reruns(), reruns, "f_grad reran the tape");
        assert_eq!(grad.gradient, got.gradient);
        let mut want = probabilities(&s, &mask);
        want[k] -= 1.0;
        assert_agree("masked_nll", &got.gradient, &want);
        for j in 0..4 {
            if mask[j] == inf {
                assert_eq!(got.gradient[j], 0.0, "masked entry {j}");
            }
        }
    }
}

/// Every entry masked: `m = −∞` and `v − m` is `−∞ − (−∞)`, NaN, which
/// the tape rejects; so does the compiled sweep, and `f_grad` gives the
/// tape's error.
#[test]
fn a_row_masked_whole_is_the_tapes_error() {
    let s = [0.4, -0.7];
    let mask = [f64::NEG_INFINITY; 2];
    let reruns = tape_reruns();
    let compiled = masked_nll_grad(&s, &mask, 0).expect_err("NaN in the row");
    assert_eq!(tape_reruns(), reruns + 1, "the compiled sweep fell back");
    let tape = masked_nll_grad_tape(&s, &mask, 0).expect_err("NaN in the row");
    assert_eq!(compiled.to_string(), tape.to_string());
}

/// `exp(w v)` with `v = −∞` and `w` tracked: the value is 0, but `∂(w v)/∂w
/// = v` is infinite, which the tape rejects; the compiled reverse's
/// contribution to `w̄` is `0 · (−∞)`, NaN, and it falls back too.
#[differentiable]
fn scaled_exp(z: &[f64], w: f64) -> Vec<f64> {
    let mut out = Vec::new();
    for j in 0..z.len() {
        out.push((w * z[j]).exp());
    }
    out
}

#[differentiable]
fn scaled_sum(s: &[f64], #[constant] mask: &[f64], w: f64) -> f64 {
    let mut z = Vec::new();
    for j in 0..s.len() {
        z.push(s[j] + mask[j]);
    }
    let e = scaled_exp(&z, w);
    e[0] + e[1]
}

#[test]
fn an_infinity_times_a_tracked_factor_is_the_tapes_error() {
    assert_eq!(scaled_sum_grad_path(), GradientPath::Compiled);
    let s = [0.5, -0.25];
    let mask = [0.0, f64::NEG_INFINITY];
    let reruns = tape_reruns();
    let compiled = scaled_sum_grad(&s, &mask, 1.5).expect_err("an infinite derivative");
    assert_eq!(tape_reruns(), reruns + 1, "the compiled sweep fell back");
    let tape = scaled_sum_grad_tape(&s, &mask, 1.5).expect_err("an infinite derivative");
    assert_eq!(compiled.to_string(), tape.to_string());
    // Unmasked, both paths answer alike: ∂/∂s₀ = w e^{w s₀}, ∂/∂w = Σ s e^{w s}.
    let mask = [0.0, 0.0];
    let got = compiled_sum(&s, &mask, 1.5);
    let e: Vec<f64> = s.iter().map(|v| (1.5 * v).exp()).collect();
    assert_agree(
        "scaled_sum",
        &[got.gradient.0[0], got.gradient.0[1], got.gradient.1],
        &[1.5 * e[0], 1.5 * e[1], s[0] * e[0] + s[1] * e[1]],
    );
}

fn compiled_sum(s: &[f64], mask: &[f64], w: f64) -> ValueAndGradient<(Vec<f64>, f64)> {
    let got = compiled(|stack| scaled_sum_adjoint(stack, s, mask, w));
    agree(
        "scaled_sum",
        scaled_sum_grad(s, mask, w),
        scaled_sum_grad_tape(s, mask, w),
    );
    got
}

/// An overflow the plain function absorbs: a constant accumulator grows
/// to 1e243, `t = x · acc` squared is `+∞`, and `powi(-2)`, `tanh` and
/// `recip` of it are 0, 1 and 0, each with derivative 0. The tape records
/// an infinite operand where the value is no NaN and the local derivative
/// finite, so it answers; the compiled sweep took the operand of `powi`
/// and of every such function finite only, and `f_grad` reran the tape at
/// every call (random programs, seed 17601's f0_19). Oracle: the value is
/// `1 + sin x` and the gradient `cos x`, exactly.
#[differentiable]
fn absorbed_overflow(x: f64) -> f64 {
    let mut acc = 10.0;
    for _ in 0..5 {
        acc = acc * acc * acc;
    }
    let t = x * acc;
    (t * t + 0.5).powi(-2) + (t * t).tanh() + (t * t).recip() + x.sin()
}

/// The same overflow into `powi(2)`, whose derivative at `+∞` is `+∞`:
/// the tape's error, on both paths.
#[differentiable]
fn unabsorbed_overflow(x: f64) -> f64 {
    let mut acc = 10.0;
    for _ in 0..5 {
        acc = acc * acc * acc;
    }
    let t = x * acc;
    (t * t).powi(2).recip() + x.sin()
}

#[test]
fn an_overflow_the_function_absorbs_runs_compiled() {
    assert_eq!(absorbed_overflow_grad_path(), GradientPath::Compiled);
    for x in [0.5, -1.25, 2.0] {
        let got = compiled(|stack| absorbed_overflow_adjoint(stack, x));
        let reruns = tape_reruns();
        let grad = agree(
            "absorbed_overflow",
            absorbed_overflow_grad(x),
            absorbed_overflow_grad_tape(x),
        );
        assert_eq!(tape_reruns(), reruns, "f_grad reran the tape");
        assert_eq!(grad.gradient, got.gradient);
        assert_eq!(got.value, 1.0 + x.sin());
        assert_eq!(got.gradient, x.cos());
    }
    assert_eq!(unabsorbed_overflow_grad_path(), GradientPath::Compiled);
    let reruns = tape_reruns();
    let compiled = unabsorbed_overflow_grad(0.5).expect_err("an infinite derivative");
    assert_eq!(tape_reruns(), reruns + 1, "the compiled sweep fell back");
    let tape = unabsorbed_overflow_grad_tape(0.5).expect_err("an infinite derivative");
    assert_eq!(compiled.to_string(), tape.to_string());
}

/// The masked row built by a helper of its own, as attention factors it
/// (`causal_scores(..)`, probe 14): `−∞` beyond position `t`, where no
/// score was written.
#[differentiable]
fn causal_scores(s: &[f64], #[constant] t: usize) -> Vec<f64> {
    let mut row = vec![f64::NEG_INFINITY; s.len()];
    for j in 0..=t {
        row[j] = s[j] * 2.0;
    }
    row
}

/// `−ln softmax(causal_scores(s, t))ₖ`.
#[differentiable]
fn causal_nll(s: &[f64], #[constant] t: usize, #[constant] k: usize) -> f64 {
    let row = causal_scores(s, t);
    let p = softmax(&row);
    -p[k].ln()
}

/// The helper's `−∞` is an intermediate value of the caller's, as a mask
/// written in the caller is (it was the tape's error, `NonFiniteLeaf`, on
/// both paths): the value and exact gradient, 0 for every masked entry.
/// The helper's own transforms, whose output it is, keep the error.
#[test]
fn a_masked_row_returned_by_a_helper() {
    let s = [0.4, -0.7, 1.1, 0.3];
    let inf = f64::NEG_INFINITY;
    for (t, k) in [(1, 0), (2, 2), (0, 0)] {
        let grad = agree(
            "causal_nll",
            causal_nll_grad(&s, t, k),
            causal_nll_grad_tape(&s, t, k),
        );
        let mask: Vec<f64> = (0..4).map(|j| if j <= t { 0.0 } else { inf }).collect();
        let doubled: Vec<f64> = s.iter().map(|v| 2.0 * v).collect();
        let mut want = probabilities(&doubled, &mask);
        want[k] -= 1.0;
        let want: Vec<f64> = want.iter().map(|g| 2.0 * g).collect();
        assert_agree("causal_nll", &grad.gradient, &want);
        for j in t + 1..4 {
            assert_eq!(grad.gradient[j], 0.0, "masked entry {j}");
        }
        assert!((grad.value + probabilities(&doubled, &mask)[k].ln()).abs() < 1e-12);
    }
    for result in [
        causal_scores_vjp(&s, 1, vec![1.0; 4]).map(|_| ()),
        causal_scores_jacobian(&s, 1).map(|_| ()),
    ] {
        assert!(
            matches!(result, Err(ScalarAutodiffError::NonFiniteLeaf { value, .. }) if value == inf),
            "{result:?}"
        );
    }
}
