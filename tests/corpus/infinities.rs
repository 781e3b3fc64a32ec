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
