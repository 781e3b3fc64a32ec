//! `gradient_check` on functions whose rounding error fills the tolerance,
//! and on small functions, each against a gradient written by hand.

use autodiff_core::{
    default_step, gradient_check, scaled_error, GradientCheck, GradientCheckError,
    DEFAULT_TOLERANCE,
};

/// Dimension, components and data points of the mixture below.
const D: usize = 2;
const K: usize = 8;
const N: usize = 1500;
/// Brings the objective to ≈ 2.6e4, the size of ADBench's GMM objective.
const OFFSET: f64 = 2.37e4;

/// A deterministic stream of uniforms in [0, 1) (64-bit LCG, top 53 bits).
struct Lcg(u64);

impl Lcg {
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A Gaussian mixture with identity covariances: `K` means in `D`
/// dimensions and `K` weight logits, flattened as `[μ_0, …, μ_{K−1}, α]`.
struct Mixture {
    data: Vec<[f64; D]>,
}

fn logsumexp(z: &[f64]) -> f64 {
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    m + z.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}

fn softmax(z: &[f64]) -> Vec<f64> {
    let l = logsumexp(z);
    z.iter().map(|v| (v - l).exp()).collect()
}

impl Mixture {
    fn new() -> Self {
        let mut rng = Lcg(19);
        let centres: Vec<[f64; D]> = (0..K)
            .map(|_| [6.0 * rng.uniform() - 3.0, 6.0 * rng.uniform() - 3.0])
            .collect();
        let data = (0..N)
            .map(|i| {
                let c = centres[i % K];
                [
                    c[0] + 1.2 * (rng.uniform() - 0.5),
                    c[1] + 1.2 * (rng.uniform() - 0.5),
                ]
            })
            .collect();
        Mixture { data }
    }

    fn means(theta: &[f64], k: usize) -> &[f64] {
        &theta[k * D..(k + 1) * D]
    }

    fn logits(theta: &[f64]) -> &[f64] {
        &theta[K * D..]
    }

    /// log-joint `α_k − ½‖x − μ_k‖²` of one point under every component.
    fn joint(theta: &[f64], x: &[f64; D]) -> [f64; K] {
        let mut z = [0.0; K];
        for (k, zk) in z.iter_mut().enumerate() {
            let mu = Self::means(theta, k);
            let d2: f64 = (0..D).map(|j| (x[j] - mu[j]).powi(2)).sum();
            *zk = Self::logits(theta)[k] - 0.5 * d2;
        }
        z
    }

    /// `OFFSET − Σ_i logsumexp_k(α_k − ½‖x_i − μ_k‖²) + N·logsumexp(α)`:
    /// the negative log-likelihood (up to constants), accumulated term by
    /// term onto the offset as a running total, the way an objective
    /// written as a loop accumulates it.
    fn objective(&self, theta: &[f64]) -> f64 {
        let mut total = OFFSET + N as f64 * logsumexp(Self::logits(theta));
        for x in &self.data {
            total -= logsumexp(&Self::joint(theta, x));
        }
        total
    }

    /// The exact gradient, by hand: with responsibilities
    /// `r_ik = softmax_k(α_k − ½‖x_i − μ_k‖²)` and `π = softmax(α)`,
    /// `∂/∂μ_k = −Σ_i r_ik (x_i − μ_k)` and `∂/∂α_k = N·π_k − Σ_i r_ik`.
    fn gradient(&self, theta: &[f64]) -> Vec<f64> {
        let mut g = vec![0.0; theta.len()];
        for (k, p) in softmax(Self::logits(theta)).into_iter().enumerate() {
            g[K * D + k] = N as f64 * p;
        }
        for x in &self.data {
            let r = softmax(&Self::joint(theta, x));
            for k in 0..K {
                let mu = Self::means(theta, k);
                for j in 0..D {
                    g[k * D + j] -= r[k] * (x[j] - mu[j]);
                }
                g[K * D + k] -= r[k];
            }
        }
        g
    }

    /// Parameters near a maximum of the likelihood (EM from the data's
    /// first points), so that most gradient components are small: there
    /// the scaled error is an absolute error and rounding shows.
    fn fitted(&self) -> Vec<f64> {
        let mut theta = vec![0.0; K * D + K];
        for k in 0..K {
            theta[k * D..(k + 1) * D].copy_from_slice(&self.data[k]);
        }
        for _ in 0..12 {
            let mut weight = [0.0; K];
            let mut sum = [[0.0; D]; K];
            for x in &self.data {
                let r = softmax(&Self::joint(&theta, x));
                for k in 0..K {
                    weight[k] += r[k];
                    for j in 0..D {
                        sum[k][j] += r[k] * x[j];
                    }
                }
            }
            for k in 0..K {
                for j in 0..D {
                    theta[k * D + j] = sum[k][j] / weight[k];
                }
                theta[K * D + k] = (weight[k] / N as f64).ln();
            }
        }
        theta
    }
}

fn mixture_check(perturb: impl FnOnce(&mut Vec<f64>)) -> (GradientCheck, Vec<f64>) {
    let mixture = Mixture::new();
    let theta = mixture.fitted();
    let mut analytic = mixture.gradient(&theta);
    perturb(&mut analytic);
    let check = gradient_check(&theta, &analytic, None, DEFAULT_TOLERANCE, |t| {
        mixture.objective(t)
    })
    .unwrap();
    (check, analytic)
}

fn failing(check: &GradientCheck) -> Vec<usize> {
    check.failures().map(|c| c.component).collect()
}

#[test]
fn a_right_mixture_gradient_passes_though_rounding_fills_the_tolerance() {
    let mixture = Mixture::new();
    let theta = mixture.fitted();
    let exact = mixture.gradient(&theta);
    let value = mixture.objective(&theta);
    assert!((2.5e4..2.7e4).contains(&value), "{value}");
    // The plain central difference at the default step, computed here: the
    // old verdict, which failed (worst scaled error 9.2e-6 on this point).
    let old_worst = (0..theta.len())
        .map(|i| {
            let h = default_step(theta[i]);
            let mut at = theta.clone();
            at[i] = theta[i] + h;
            let plus = mixture.objective(&at);
            at[i] = theta[i] - h;
            let minus = mixture.objective(&at);
            scaled_error(exact[i], (plus - minus) / (2.0 * h))
        })
        .fold(0.0, f64::max);
    assert!(old_worst > 4.0 * DEFAULT_TOLERANCE, "{old_worst:e}");

    let (check, _) = mixture_check(|_| {});
    assert!(check.passed(), "{check}");
    assert_eq!(check.tolerance, DEFAULT_TOLERANCE);
    assert!(check.components.iter().any(|c| c.extrapolated));
    for c in &check.components {
        assert_eq!(c.analytic, exact[c.component]);
        // Every verdict was held to the requested tolerance: the central
        // differences within it, the extrapolations' rounding is below it.
        assert_eq!(c.tolerance, DEFAULT_TOLERANCE, "{c:?}");
        assert!(c.scaled_error <= DEFAULT_TOLERANCE, "{c:?}");
        if c.extrapolated {
            assert!(c.step > 100.0 * default_step(c.input), "{c:?}");
            assert!(c.scaled_error < 1e-7, "{c:?}");
        } else {
            // Not extrapolated because within the tolerance; the rounding
            // estimate at this value is far above it.
            assert!(c.rounding > 10.0 * DEFAULT_TOLERANCE, "{c:?}");
        }
    }
    let shown = check.to_string();
    assert!(shown.contains("rounding") && shown.contains("(extrapolated)"));
    assert!(!shown.contains("MISMATCH"));
}

#[test]
fn a_mixture_gradient_off_by_a_relative_1e_minus_4_fails_at_that_component() {
    let mixture = Mixture::new();
    let exact = mixture.gradient(&mixture.fitted());
    // The largest component (≈ 1): off by ≈ 1e−4, beyond any rounding
    // bound, decided by the central difference.
    let largest = (0..exact.len())
        .max_by(|&i, &j| exact[i].abs().total_cmp(&exact[j].abs()))
        .unwrap();
    let (check, _) = mixture_check(|g| g[largest] *= 1.0 + 1e-4);
    assert!(!check.passed());
    assert_eq!(failing(&check), [largest], "{check}");
    // A component of ≈ 0.14 at |x| ≈ 1 (index 5, the step ≈ 6e−6): off by
    // 1.4e−5, within the central difference's rounding bound (≈ 3e−5 at
    // this step and value), so decided by the extrapolation.
    let theta = mixture.fitted();
    assert!((0.1..0.2).contains(&exact[5]) && theta[5].abs() < 1.1);
    let (check, _) = mixture_check(|g| g[5] *= 1.0 + 1e-4);
    assert_eq!(failing(&check), [5], "{check}");
    let reported = check.components[5];
    assert!(reported.extrapolated, "{reported:?}");
    assert!((reported.numerical - exact[5]).abs() < 1e-7, "{reported:?}");
}

#[test]
fn a_mixture_gradient_with_a_small_absolute_mistake_fails_at_that_component() {
    let mixture = Mixture::new();
    let exact = mixture.gradient(&mixture.fitted());
    // A missing factor 2 on the smallest component (≈ 2e−3).
    let smallest = (0..exact.len())
        .min_by(|&i, &j| exact[i].abs().total_cmp(&exact[j].abs()))
        .unwrap();
    let (check, _) = mixture_check(|g| g[smallest] /= 2.0);
    assert_eq!(failing(&check), [smallest], "{check}");
    // An absolute 5e−6, five times the tolerance and inside the central
    // difference's rounding bound, on every component in turn.
    for i in 0..exact.len() {
        let (check, _) = mixture_check(|g| g[i] += 5e-6);
        assert_eq!(failing(&check), [i], "{check}");
    }
}

/// `check(inputs, gradient)` with the default step and tolerance.
fn check(inputs: &[f64], gradient: &[f64], f: impl Fn(&[f64]) -> f64) -> GradientCheck {
    gradient_check(inputs, gradient, None, DEFAULT_TOLERANCE, f).unwrap()
}

/// The right gradient passes with nothing extrapolated and the requested
/// tolerance; each wrong one fails exactly at the component it changes.
fn right_and_wrong(
    inputs: &[f64],
    right: &[f64],
    wrong: &[(usize, f64)],
    f: impl Fn(&[f64]) -> f64 + Copy,
) {
    let passing = check(inputs, right, f);
    assert!(passing.passed(), "{passing}");
    for c in &passing.components {
        assert!(!c.extrapolated && c.tolerance == DEFAULT_TOLERANCE, "{c:?}");
        assert!(c.rounding < 1e-8, "{c:?}");
    }
    for &(i, value) in wrong {
        let mut gradient = right.to_vec();
        gradient[i] = value;
        let failed = check(inputs, &gradient, f);
        assert_eq!(failing(&failed), [i], "{failed}");
    }
}

#[test]
fn small_smooth_functions_pass_right_and_fail_wrong_gradients() {
    // p(x, y) = 3x³ − 2xy + y², ∇p = (9x² − 2y, 2y − 2x).
    let (x, y) = (1.3, -0.7);
    let p = |v: &[f64]| 3.0 * v[0].powi(3) - 2.0 * v[0] * v[1] + v[1] * v[1];
    let dx = 9.0 * x * x - 2.0 * y;
    let dy = 2.0 * y - 2.0 * x;
    // Sign, factor 2, missing term.
    right_and_wrong(
        &[x, y],
        &[dx, dy],
        &[(0, -dx), (1, 2.0 * dy), (0, 9.0 * x * x)],
        p,
    );

    // e(x, y) = y·exp(2x), ∇e = (2y·exp(2x), exp(2x)).
    let (x, y): (f64, f64) = (0.4, 1.5);
    let e = |v: &[f64]| v[1] * (2.0 * v[0]).exp();
    let (dx, dy) = (2.0 * y * (2.0 * x).exp(), (2.0 * x).exp());
    right_and_wrong(&[x, y], &[dx, dy], &[(1, -dy), (0, dx / 2.0)], e);

    // l(x, y) = x·ln x + ln y near 1, ∇l = (ln x + 1, 1/y).
    let (x, y): (f64, f64) = (1.05, 0.98);
    let l = |v: &[f64]| v[0] * v[0].ln() + v[1].ln();
    let (dx, dy) = (x.ln() + 1.0, 1.0 / y);
    right_and_wrong(&[x, y], &[dx, dy], &[(0, 1.0), (1, -dy), (0, 2.0 * dx)], l);
}

#[test]
fn a_zero_value_and_a_zero_component() {
    // f(x, y) = x·y at (0, 2): f = 0, ∇f = (2, 0).
    let f = |v: &[f64]| v[0] * v[1];
    right_and_wrong(&[0.0, 2.0], &[2.0, 0.0], &[(1, 1e-4), (0, 2.0 + 1e-4)], f);
    let passing = check(&[0.0, 2.0], &[2.0, 0.0], f);
    assert_eq!(passing.components[1].numerical, 0.0);

    // g(x) = x² at 0: value, gradient and the difference all 0.
    let g = |v: &[f64]| v[0] * v[0];
    let passing = check(&[0.0], &[0.0], g);
    assert!(passing.passed());
    let c = passing.components[0];
    assert_eq!((c.numerical, c.scaled_error), (0.0, 0.0));
    assert!(c.rounding < 1e-18, "{c:?}");
    assert!(!check(&[0.0], &[1e-5], g).passed());
}

/// `1e5 + Σ_{k ≤ 1000} x·k/500500` (derivative exactly 1), not finite
/// below `wall`.
fn long_sum(v: &[f64], wall: f64) -> f64 {
    if v[0] < wall {
        return f64::NAN;
    }
    let mut total = 1e5;
    for k in 1..=1000 {
        total += v[0] * f64::from(k) / 500_500.0;
    }
    total
}

#[test]
fn a_long_sum_is_extrapolated_and_near_a_wall_judged_on_its_rounding_bound() {
    let x = 0.7;
    let open = check(&[x], &[1.0], |v| long_sum(v, f64::NEG_INFINITY));
    assert!(open.passed(), "{open}");
    // The central difference was off by 3.2e−6, within its rounding bound.
    assert!(open.components[0].extrapolated, "{open}");
    // Only a wrong gradient makes these fail.
    assert!(!check(&[x], &[1.0 + 5e-6], |v| long_sum(v, f64::NEG_INFINITY)).passed());

    // f is NaN 1e−3 below x: x − 2H (H ≈ 7.4e−4) is out, x ± h is in.
    let wall = x - 1e-3;
    let walled = check(&[x], &[1.0], |v| long_sum(v, wall));
    assert!(walled.passed(), "{walled}");
    let c = walled.components[0];
    assert!(!c.extrapolated);
    assert_eq!(c.step, default_step(x));
    // Passed on the rounding bound (3.2e−6 off), which the tolerance shows.
    assert!(c.scaled_error > DEFAULT_TOLERANCE, "{c:?}");
    assert_eq!(c.tolerance, c.rounding);
    // A mistake beyond the rounding bound still fails.
    let wrong = check(&[x], &[1.0 + 2.0 * c.rounding], |v| long_sum(v, wall));
    assert!(!wrong.passed(), "{wrong}");
    // Inside the wall the central difference itself is refused.
    assert!(matches!(
        gradient_check(&[wall], &[1.0], None, DEFAULT_TOLERANCE, |v| long_sum(
            v, wall
        )),
        Err(GradientCheckError::NonFiniteEvaluation { .. })
    ));
}
