//! The stable softmax every course writes: a running maximum from
//! `f64::NEG_INFINITY` (or a running minimum from `f64::INFINITY`). The
//! infinite start is lifted as an untracked constant; it never reaches a
//! recorded result, so it is not an error.

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn softmax_prob(z: [f64; 4], k: usize) -> f64 {
    let mut m = f64::NEG_INFINITY;
    for i in 0..4 {
        m = m.max(z[i]);
    }
    let mut total = 0.0;
    for i in 0..4 {
        total += (z[i] - m).exp();
    }
    (z[k] - m).exp() / total
}

#[test]
fn stable_softmax_from_negative_infinity() -> TestResult {
    for (z, k) in [([1.0, 2.0, 0.5, -1.0], 1), ([0.3, -0.2, 0.8, 0.1], 3)] {
        let got = softmax_prob_grad(z, k)?;
        assert_eq!(got.value, softmax_prob(z, k));
        let total: f64 = z.iter().map(|v| v.exp()).sum();
        let p: Vec<f64> = z.iter().map(|v| v.exp() / total).collect();
        let want: Vec<f64> = (0..4)
            .map(|j| p[k] * (if j == k { 1.0 } else { 0.0 } - p[j]))
            .collect();
        assert_all_close(&got.gradient, &want, CLOSED);
        assert!(softmax_prob_check(z, k)?.passed());
    }
    Ok(())
}

#[differentiable]
fn logsumexp(z: &[f64]) -> f64 {
    let mut m = f64::NEG_INFINITY;
    for v in z {
        if *v > m {
            m = *v;
        }
    }
    let mut s = 0.0;
    for v in z {
        s += (v - m).exp();
    }
    m + s.ln()
}

#[test]
fn logsumexp_from_negative_infinity() -> TestResult {
    for z in [vec![1.0, 2.0, 3.0], vec![-5.0, 0.0, 0.5, 0.25]] {
        let got = logsumexp_grad(&z)?;
        assert_eq!(got.value, logsumexp(&z));
        let total: f64 = z.iter().map(|v| v.exp()).sum();
        let want: Vec<f64> = z.iter().map(|v| v.exp() / total).collect();
        assert_all_close(&got.gradient, &want, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn nearest_distance(d: [f64; 4]) -> f64 {
    let mut lo = f64::INFINITY;
    for i in 0..4 {
        lo = lo.min(d[i]);
    }
    lo * lo
}

#[test]
fn running_min_from_infinity() -> TestResult {
    let got = nearest_distance_grad([3.0, 0.5, 2.0, 1.0])?;
    assert_eq!(got.value, 0.25);
    assert_eq!(got.gradient, [0.0, 1.0, 0.0, 0.0]);
    Ok(())
}

#[differentiable]
fn top_two_margin(z: [f64; 5]) -> f64 {
    let mut best = f64::NEG_INFINITY;
    let mut second = f64::NEG_INFINITY;
    for i in 0..5 {
        if z[i] > best {
            second = best;
            best = z[i];
        } else if z[i] > second {
            second = z[i];
        }
    }
    best - second
}

#[test]
fn margin_between_the_top_two() -> TestResult {
    let got = top_two_margin_grad([0.1, 2.0, 0.5, 1.5, -1.0])?;
    assert_eq!(got.value, 0.5);
    assert_eq!(got.gradient, [0.0, 1.0, 0.0, -1.0, 0.0]);
    Ok(())
}

#[differentiable]
fn cross_entropy_neg_inf(z: Vec<f64>, target: usize) -> f64 {
    let mut m = f64::NEG_INFINITY;
    for k in 0..z.len() {
        m = m.max(z[k]);
    }
    let m = detach(m);
    let mut total = 0.0;
    for k in 0..z.len() {
        total += (z[k] - m).exp();
    }
    total.ln() + m - z[target]
}

#[test]
fn cross_entropy_with_a_detached_max_from_negative_infinity() -> TestResult {
    let z = vec![2.0, 1.0, 0.5, -0.5];
    let got = cross_entropy_neg_inf_grad(z.clone(), 0)?;
    assert_eq!(got.value, cross_entropy_neg_inf(z.clone(), 0));
    let total: f64 = z.iter().map(|v| v.exp()).sum();
    let mut want: Vec<f64> = z.iter().map(|v| v.exp() / total).collect();
    want[0] -= 1.0;
    assert_all_close(&got.gradient, &want, CLOSED);
    Ok(())
}

#[differentiable]
fn min_max_scale(x: [f64; 4], k: usize) -> f64 {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for v in x {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (x[k] - lo) / (hi - lo)
}

#[test]
fn min_max_normalisation() -> TestResult {
    let x = [1.0, 5.0, 3.0, 2.0];
    let got = min_max_scale_grad(x, 2)?;
    assert_eq!(got.value, 0.5);
    // (x2 − x0)/(x1 − x0) at 2/4: ∂x0 = (x2 − x1)/16 = −1/8, ∂x1 = −2/16, ∂x2 = 1/4.
    assert_all_close(&got.gradient, &[-0.125, -0.125, 0.25, 0.0], CLOSED);
    Ok(())
}

/// Lesson 15's masked attention scores, written as the lesson writes them:
/// `s + m` with `m = −∞` for a masked key, a row maximum, `exp(v − max)`
/// and a weighted sum of the probabilities. A masked entry is −∞ on the
/// way (an infinite intermediate whose local derivatives are finite) and
/// `exp(−∞) = 0` with derivative 0, so its gradient is exactly 0.
#[differentiable]
fn masked_scores(s: &[f64], #[constant] mask: &[f64], #[constant] w: &[f64]) -> f64 {
    let n = s.len();
    let mut v = vec![0.0; n];
    for j in 0..n {
        v[j] = s[j] + mask[j];
    }
    let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut e = vec![0.0; n];
    let mut total = 0.0;
    for j in 0..n {
        e[j] = (v[j] - m).exp();
        total += e[j];
    }
    let mut out = 0.0;
    for j in 0..n {
        out += w[j] * e[j] / total;
    }
    out
}

/// The closed form: `p` the softmax over the unmasked entries, the loss
/// `Σ w p`, and `∂/∂sᵢ = pᵢ (wᵢ − Σ w p)` there, exactly 0 where masked.
fn masked_closed_form(s: &[f64], mask: &[f64], w: &[f64]) -> (f64, Vec<f64>) {
    let open: Vec<bool> = mask.iter().map(|m| m.is_finite()).collect();
    let total: f64 = (0..s.len()).filter(|&j| open[j]).map(|j| s[j].exp()).sum();
    let p: Vec<f64> = (0..s.len())
        .map(|j| if open[j] { s[j].exp() / total } else { 0.0 })
        .collect();
    let loss: f64 = (0..s.len()).map(|j| w[j] * p[j]).sum();
    (loss, (0..s.len()).map(|j| p[j] * (w[j] - loss)).collect())
}

#[test]
fn masked_attention_scores_on_both_paths() -> TestResult {
    let inf = f64::NEG_INFINITY;
    let s = [0.3, -1.2, 0.8, 2.0, 0.1];
    let w = [1.0, -0.5, 2.0, 0.25, 3.0];
    for mask in [
        [0.0, inf, 0.0, inf, inf],
        [0.0, 0.0, 0.0, 0.0, inf],
        [inf, inf, inf, 0.0, inf],
    ] {
        let (want_value, want) = masked_closed_form(&s, &mask, &w);
        for got in [
            masked_scores_grad(&s, &mask, &w)?,
            masked_scores_grad_tape(&s, &mask, &w)?,
        ] {
            assert_close(got.value, want_value, CLOSED);
            assert_eq!(got.value, masked_scores(&s, &mask, &w));
            assert_all_close(&got.gradient, &want, CLOSED);
            for j in 0..s.len() {
                if mask[j] == inf {
                    assert_eq!(got.gradient[j].to_bits(), 0.0_f64.to_bits(), "{mask:?} {j}");
                }
            }
        }
    }
    assert_eq!(masked_scores_grad_path(), autodiff::GradientPath::Compiled);
    // The compiled adjoint answers itself (`Some`), not by rerunning the tape.
    let mask = [0.0, inf, 0.0, inf, inf];
    let compiled =
        autodiff::__adjoint::with_stack(|stack| masked_scores_adjoint(stack, &s, &mask, &w))
            .expect("computed by the compiled adjoint");
    assert_all_close(
        &compiled.gradient,
        &masked_closed_form(&s, &mask, &w).1,
        CLOSED,
    );
    Ok(())
}

/// A causal mask built in the body from `f64::NEG_INFINITY` (key `j` after
/// query `i`), each row's softmax, and a weighted sum over the whole
/// matrix: every entry above the diagonal has gradient 0.
#[differentiable]
fn causal_scores(s: [[f64; 3]; 3], #[constant] w: [[f64; 3]; 3]) -> f64 {
    let mut out = 0.0;
    for i in 0..3 {
        let mut row = [0.0; 3];
        for j in 0..3 {
            let mask = if j > i { f64::NEG_INFINITY } else { 0.0 };
            row[j] = s[i][j] + mask;
        }
        let mut m = f64::NEG_INFINITY;
        for j in 0..3 {
            m = m.max(row[j]);
        }
        let mut total = 0.0;
        for j in 0..3 {
            total += (row[j] - m).exp();
        }
        for j in 0..3 {
            out += w[i][j] * (row[j] - m).exp() / total;
        }
    }
    out
}

#[test]
fn causal_mask_built_from_negative_infinity() -> TestResult {
    let s = [[0.5, 1.5, -2.0], [0.25, -0.75, 3.0], [1.0, 0.0, -1.0]];
    let w = [[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0], [0.25, 2.0, -3.0]];
    let inf = f64::NEG_INFINITY;
    let mut want_value = 0.0;
    let mut want = [[0.0; 3]; 3];
    for i in 0..3 {
        let mask: Vec<f64> = (0..3).map(|j| if j > i { inf } else { 0.0 }).collect();
        let (value, row) = masked_closed_form(&s[i], &mask, &w[i]);
        want_value += value;
        want[i].copy_from_slice(&row);
    }
    for got in [causal_scores_grad(s, w)?, causal_scores_grad_tape(s, w)?] {
        assert_close(got.value, want_value, CLOSED);
        assert_all_close(got.gradient.as_flattened(), want.as_flattened(), CLOSED);
        for i in 0..3 {
            for j in i + 1..3 {
                assert_eq!(got.gradient[i][j].to_bits(), 0.0_f64.to_bits());
            }
        }
    }
    assert_eq!(causal_scores_grad_path(), autodiff::GradientPath::Compiled);
    let compiled = autodiff::__adjoint::with_stack(|stack| causal_scores_adjoint(stack, s, w));
    assert!(compiled.is_some(), "computed by the compiled adjoint");
    Ok(())
}

// What the rule still calls an error, each the same labelled error on
// both paths (the compiled adjoint reruns the tape for it).

/// Both paths' errors, which must agree; the tape's is returned.
fn both_fail<G: std::fmt::Debug>(
    compiled: Result<ValueAndGradient<G>, ScalarAutodiffError>,
    tape: Result<ValueAndGradient<G>, ScalarAutodiffError>,
) -> ScalarAutodiffError {
    let tape = tape.unwrap_err();
    let compiled = compiled.unwrap_err();
    assert_eq!(format!("{compiled:?}"), format!("{tape:?}"));
    tape
}

#[differentiable]
fn masked_output(s: f64, #[constant] mask: f64) -> f64 {
    s * 2.0 + mask
}

#[test]
fn an_infinity_that_reaches_the_output_is_an_error() {
    let inf = f64::NEG_INFINITY;
    let error = both_fail(
        masked_output_grad(1.5, inf),
        masked_output_grad_tape(1.5, inf),
    );
    assert_eq!(error.code(), "non-finite-result");
    assert!(
        error.to_string().starts_with(
            "add of 3.0 and -inf produced non-finite scalar value -inf at `s * 2.0 + mask`"
        ),
        "{error}"
    );
}

#[test]
fn a_fully_masked_row_is_infinity_minus_infinity() {
    let inf = f64::NEG_INFINITY;
    let (s, mask, w) = ([0.5, 1.0], [inf, inf], [1.0, 2.0]);
    let error = both_fail(
        masked_scores_grad(&s, &mask, &w),
        masked_scores_grad_tape(&s, &mask, &w),
    );
    assert_eq!(error.code(), "non-finite-result");
    assert!(
        error
            .to_string()
            .starts_with("sub of -inf and -inf produced non-finite scalar value NaN at `v[j] - m`"),
        "{error}"
    );
}

#[differentiable]
fn masked_times_zero(s: f64, #[constant] mask: f64) -> f64 {
    let v = s + mask;
    (v * 0.0).exp() + s
}

#[test]
fn zero_times_infinity_is_an_error() {
    let inf = f64::NEG_INFINITY;
    let error = both_fail(
        masked_times_zero_grad(0.5, inf),
        masked_times_zero_grad_tape(0.5, inf),
    );
    assert_eq!(error.code(), "non-finite-result");
    assert!(
        error
            .to_string()
            .starts_with("mul of -inf and 0.0 produced non-finite scalar value NaN at `v * 0.0`"),
        "{error}"
    );
}

#[differentiable]
fn masked_times_tracked(s: f64, #[constant] mask: f64) -> f64 {
    let v = s + mask;
    (v * s).exp() + s
}

#[test]
fn an_infinity_whose_local_derivative_is_infinite_is_an_error() {
    // `v · s` is −∞ and its derivative in `s` is `v` = −∞: the reverse
    // would multiply an adjoint by it.
    let inf = f64::NEG_INFINITY;
    let error = both_fail(
        masked_times_tracked_grad(2.0, inf),
        masked_times_tracked_grad_tape(2.0, inf),
    );
    assert_eq!(error.code(), "non-finite-result");
    assert!(
        error
            .to_string()
            .starts_with("mul of -inf and 2.0 produced non-finite scalar value -inf at `v * s`"),
        "{error}"
    );
    // Where the mask is open, the same function is fine.
    let got = masked_times_tracked_grad(0.5, 0.0).unwrap();
    assert_close(got.gradient, 2.0 * 0.5 * (0.25_f64).exp() + 1.0, CLOSED);
}

#[differentiable]
fn log_of_zero_then_exp(x: f64) -> f64 {
    (x - 1.0).ln().exp() + x
}

#[test]
fn a_log_of_zero_is_an_error_even_when_exp_takes_it_back() {
    // ln(0) = −∞ has the local derivative 1/0 = ∞: infinite, so it is
    // rejected where it is made, whatever reads it later.
    let error = both_fail(
        log_of_zero_then_exp_grad(1.0),
        log_of_zero_then_exp_grad_tape(1.0),
    );
    assert_eq!(error.code(), "non-finite-result");
    assert!(
        error
            .to_string()
            .starts_with("ln of 0.0 produced non-finite scalar value -inf at `(x - 1.0).ln()`"),
        "{error}"
    );
    let got = log_of_zero_then_exp_grad(3.0).unwrap();
    assert_close(got.value, 5.0, CLOSED);
    assert_close(got.gradient, 2.0, CLOSED);
}

/// `p₀` of a softmax over three scores with the middle one masked.
#[differentiable]
fn masked_first_probability(s: [f64; 3], #[constant] mask: [f64; 3]) -> f64 {
    let mut m = f64::NEG_INFINITY;
    for j in 0..3 {
        m = m.max(s[j] + mask[j]);
    }
    let mut total = 0.0;
    for j in 0..3 {
        total += (s[j] + mask[j] - m).exp();
    }
    (s[0] + mask[0] - m).exp() / total
}

#[test]
fn second_order_through_a_mask() -> Result<(), ScalarAutodiffError> {
    // Unmasked, p₀ = σ(s₀ − s₂): ∂²p₀/∂s₀² = p(1 − p)(1 − 2p), the
    // masked row and column 0; along (1, 1, 1), a shift, no change.
    let (s, mask): ([f64; 3], [f64; 3]) = ([0.5, 1.0, -0.3], [0.0, f64::NEG_INFINITY, 0.0]);
    let p = 1.0 / (1.0 + (s[2] - s[0]).exp());
    let d2 = p * (1.0 - p) * (1.0 - 2.0 * p);
    let want = [[d2, 0.0, -d2], [0.0, 0.0, 0.0], [-d2, 0.0, d2]];
    let h = masked_first_probability_hessian(s, mask)?;
    for i in 0..3 {
        for j in 0..3 {
            assert!(
                close(h.get(i, j), want[i][j], 1e-12),
                "H[{i}][{j}] = {}, want {}",
                h.get(i, j),
                want[i][j]
            );
        }
    }
    let jvp = masked_first_probability_jvp(s, mask, [1.0, 1.0, 1.0])?;
    assert_close(jvp.value, p, CLOSED);
    assert!(jvp.tangent.abs() < 1e-15, "{}", jvp.tangent);
    Ok(())
}
