//! Physics formulas and statistics from homework sets, each with its
//! derivative worked out by hand (tolerance `CLOSED`) or, where that is long,
//! Ridders' differences of the plain twin (tolerance `NUMERIC`).

use super::oracle::*;
use autodiff::prelude::*;

const G: f64 = 9.81;

#[differentiable]
fn kinetic_energy(m: f64, v: f64) -> f64 {
    0.5 * m * v * v
}

#[test]
fn kinetic_energy_gradient() -> TestResult {
    for (m, v) in [(2.0, 3.0), (0.5, -4.0)] {
        let got = kinetic_energy_grad(m, v)?;
        assert_eq!(got.value, kinetic_energy(m, v));
        assert!(kinetic_energy_check(m, v)?.passed());
        assert_eq!(got.gradient, (0.5 * v * v, m * v));
    }
    Ok(())
}

#[differentiable]
fn projectile_range(speed: f64, angle: f64) -> f64 {
    speed * speed * (2.0 * angle).sin() / G
}

#[test]
fn projectile_range_gradient() -> TestResult {
    for (v, a) in [(10.0, 0.3), (25.0, 1.1)] {
        let got = projectile_range_grad(v, a)?;
        assert_eq!(got.value, projectile_range(v, a));
        assert_close(got.gradient.0, 2.0 * v * (2.0 * a).sin() / G, CLOSED);
        assert_close(got.gradient.1, 2.0 * v * v * (2.0 * a).cos() / G, CLOSED);
        assert!(projectile_range_check(v, a)?.passed());
    }
    Ok(())
}

#[differentiable]
fn pendulum_period(length: f64) -> f64 {
    2.0 * std::f64::consts::PI * (length / G).sqrt()
}

#[test]
fn pendulum_period_gradient() -> TestResult {
    for l in [0.5, 2.0, 10.0] {
        let got = pendulum_period_grad(l)?;
        assert_eq!(got.value, pendulum_period(l));
        assert!(pendulum_period_check(l)?.passed());
        assert_close(got.gradient, std::f64::consts::PI / (l * G).sqrt(), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn gravitational_potential(m1: f64, m2: f64, r: f64) -> f64 {
    let big_g = 6.674e-11;
    -big_g * m1 * m2 / r
}

#[test]
fn gravitational_potential_gradient() -> TestResult {
    let (m1, m2, r) = (5.97e24, 7.35e22, 3.84e8);
    let got = gravitational_potential_grad(m1, m2, r)?;
    assert_eq!(got.value, gravitational_potential(m1, m2, r));
    assert!(gravitational_potential_check(m1, m2, r)?.passed());
    let u = got.value;
    assert_close(got.gradient.0, u / m1, CLOSED);
    assert_close(got.gradient.1, u / m2, CLOSED);
    assert_close(got.gradient.2, -u / r, CLOSED);
    Ok(())
}

#[differentiable]
fn ideal_gas_pressure(moles: f64, temperature: f64, volume: f64) -> f64 {
    let r = 8.314;
    moles * r * temperature / volume
}

#[test]
fn ideal_gas_gradient() -> TestResult {
    let (n, t, v) = (2.0, 300.0, 0.05);
    let got = ideal_gas_pressure_grad(n, t, v)?;
    assert_eq!(got.value, ideal_gas_pressure(n, t, v));
    assert!(ideal_gas_pressure_check(n, t, v)?.passed());
    let p = got.value;
    assert_close(got.gradient.0, p / n, CLOSED);
    assert_close(got.gradient.1, p / t, CLOSED);
    assert_close(got.gradient.2, -p / v, CLOSED);
    Ok(())
}

#[differentiable]
fn damped_oscillator(t: f64, gamma: f64, omega: f64) -> f64 {
    (-gamma * t).exp() * (omega * t).cos()
}

#[test]
fn damped_oscillator_gradient() -> TestResult {
    for (t, g, w) in [(0.5, 0.2, 3.0), (2.0, 1.0, 0.7)] {
        let got = damped_oscillator_grad(t, g, w)?;
        assert_eq!(got.value, damped_oscillator(t, g, w));
        let (e, c, s) = ((-g * t).exp(), (w * t).cos(), (w * t).sin());
        assert_close(got.gradient.0, -g * e * c - w * e * s, CLOSED);
        assert_close(got.gradient.1, -t * e * c, CLOSED);
        assert_close(got.gradient.2, -t * e * s, CLOSED);
        assert!(damped_oscillator_check(t, g, w)?.passed());
    }
    Ok(())
}

#[differentiable]
fn mean(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for v in x {
        total += v;
    }
    total / x.len() as f64
}

#[test]
fn mean_gradient_is_one_over_n() -> TestResult {
    let got = mean_grad(&[1.0, 2.0, 6.0, 3.0])?;
    assert_eq!(got.value, 3.0);
    assert_eq!(got.gradient, vec![0.25; 4]);
    Ok(())
}

#[differentiable]
fn variance(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mut mu = 0.0;
    for v in x.iter() {
        mu += v;
    }
    mu /= n;
    let mut ss = 0.0;
    for v in x.iter() {
        ss += (v - mu) * (v - mu);
    }
    ss / n
}

#[test]
fn variance_gradient_is_two_deviations_over_n() -> TestResult {
    for x in [vec![1.0, 2.0, 4.0], vec![-0.5, 0.5, 3.0, 1.0]] {
        let got = variance_grad(&x)?;
        assert_eq!(got.value, variance(&x));
        let n = x.len() as f64;
        let mu = x.iter().sum::<f64>() / n;
        let want: Vec<f64> = x.iter().map(|v| 2.0 * (v - mu) / n).collect();
        assert_all_close(&got.gradient, &want, CLOSED);
        assert!(variance_check(&x)?.passed());
    }
    Ok(())
}

#[differentiable]
fn std_dev(x: [f64; 4]) -> f64 {
    let mut mu = 0.0;
    for i in 0..4 {
        mu += x[i] / 4.0;
    }
    let mut ss = 0.0;
    for i in 0..4 {
        ss += (x[i] - mu).powi(2);
    }
    (ss / 3.0).sqrt()
}

#[test]
fn sample_standard_deviation_against_ridders() -> TestResult {
    for x in [[1.0, 2.0, 4.0, 7.0], [0.3, -0.2, 0.9, 0.1]] {
        let got = std_dev_grad(x)?;
        assert_eq!(got.value, std_dev(x));
        assert_numeric(&got.gradient, |p| std_dev(arr(p)), &x);
        assert!(std_dev_check(x)?.passed());
    }
    Ok(())
}

#[differentiable]
fn covariance(x: [f64; 3], y: [f64; 3]) -> f64 {
    let mx = (x[0] + x[1] + x[2]) / 3.0;
    let my = (y[0] + y[1] + y[2]) / 3.0;
    let mut c = 0.0;
    for i in 0..3 {
        c += (x[i] - mx) * (y[i] - my);
    }
    c / 3.0
}

#[test]
fn covariance_gradient_is_the_other_centred_vector() -> TestResult {
    let (x, y) = ([1.0, 2.0, 6.0], [0.5, -1.0, 2.0]);
    let got = covariance_grad(x, y)?;
    assert_eq!(got.value, covariance(x, y));
    assert!(covariance_check(x, y)?.passed());
    let (mx, my) = (3.0, 0.5);
    for i in 0..3 {
        assert_close(got.gradient.0[i], (y[i] - my) / 3.0, CLOSED);
        assert_close(got.gradient.1[i], (x[i] - mx) / 3.0, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn gaussian_nll(x: f64, mu: f64, log_sigma: f64) -> f64 {
    let sigma = log_sigma.exp();
    let z = (x - mu) / sigma;
    0.5 * z * z + log_sigma + 0.5 * (2.0 * std::f64::consts::PI).ln()
}

#[test]
fn gaussian_negative_log_likelihood_gradient() -> TestResult {
    for (x, mu, ls) in [(1.0, 0.0, 0.0), (2.5, 1.0, -0.5), (-1.0, 0.3, 0.7)] {
        let got = gaussian_nll_grad(x, mu, ls)?;
        assert_eq!(got.value, gaussian_nll(x, mu, ls));
        let s = f64::exp(ls);
        let z = (x - mu) / s;
        assert_close(got.gradient.0, z / s, CLOSED);
        assert_close(got.gradient.1, -z / s, CLOSED);
        assert_close(got.gradient.2, 1.0 - z * z, CLOSED);
        assert!(gaussian_nll_check(x, mu, ls)?.passed());
    }
    Ok(())
}

#[differentiable]
fn weighted_mean(x: [f64; 3], w: [f64; 3]) -> f64 {
    let mut num = 0.0;
    let mut den = 0.0;
    for i in 0..3 {
        num += w[i] * x[i];
        den += w[i];
    }
    num / den
}

#[test]
fn weighted_mean_gradient() -> TestResult {
    let (x, w) = ([1.0, 4.0, -2.0], [0.5, 1.0, 2.0]);
    let got = weighted_mean_grad(x, w)?;
    assert_eq!(got.value, weighted_mean(x, w));
    assert!(weighted_mean_check(x, w)?.passed());
    let m = got.value;
    for i in 0..3 {
        assert_close(got.gradient.0[i], w[i] / 3.5, CLOSED);
        assert_close(got.gradient.1[i], (x[i] - m) / 3.5, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn geometric_mean(x: [f64; 3]) -> f64 {
    let mut log_sum = 0.0;
    for i in 0..3 {
        log_sum += x[i].ln();
    }
    (log_sum / 3.0).exp()
}

#[test]
fn geometric_mean_gradient() -> TestResult {
    for x in [[1.0, 2.0, 4.0], [0.3, 5.0, 1.5]] {
        let got = geometric_mean_grad(x)?;
        assert_eq!(got.value, geometric_mean(x));
        assert!(geometric_mean_check(x)?.passed());
        let g = got.value;
        let want: Vec<f64> = x.iter().map(|v| g / (3.0 * v)).collect();
        assert_all_close(&got.gradient, &want, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn lorentz_factor(v: f64, #[constant] c: f64) -> f64 {
    1.0 / (1.0 - (v / c).powi(2)).sqrt()
}

#[test]
fn lorentz_factor_gradient() -> TestResult {
    let c = 3.0e8;
    for v in [1.0e7, 1.5e8, 2.9e8] {
        let got = lorentz_factor_grad(v, c)?;
        assert_eq!(got.value, lorentz_factor(v, c));
        assert!(lorentz_factor_check(v, c)?.passed());
        let g = got.value;
        assert_close(got.gradient, g * g * g * v / (c * c), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn thin_lens_image(focal: f64, object: f64) -> f64 {
    1.0 / (1.0 / focal - 1.0 / object)
}

#[test]
fn thin_lens_gradient() -> TestResult {
    for (f, d) in [(0.1, 0.5), (2.0, 3.0)] {
        let got = thin_lens_image_grad(f, d)?;
        assert_eq!(got.value, thin_lens_image(f, d));
        assert!(thin_lens_image_check(f, d)?.passed());
        let i = got.value;
        assert_close(got.gradient.0, i * i / (f * f), CLOSED);
        assert_close(got.gradient.1, -i * i / (d * d), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn coulomb_force(q1: f64, q2: f64, r: f64) -> f64 {
    let k = 8.9875e9;
    k * q1 * q2 / (r * r)
}

#[test]
fn coulomb_force_gradient() -> TestResult {
    let (q1, q2, r) = (1e-6, -2e-6, 0.05);
    let got = coulomb_force_grad(q1, q2, r)?;
    assert_eq!(got.value, coulomb_force(q1, q2, r));
    assert!(coulomb_force_check(q1, q2, r)?.passed());
    let f = got.value;
    assert_close(got.gradient.0, f / q1, CLOSED);
    assert_close(got.gradient.1, f / q2, CLOSED);
    assert_close(got.gradient.2, -2.0 * f / r, CLOSED);
    Ok(())
}

#[differentiable]
fn logistic_growth(rate: f64, t: f64, capacity: f64, p0: f64) -> f64 {
    capacity / (1.0 + (capacity - p0) / p0 * (-rate * t).exp())
}

#[test]
fn logistic_growth_against_ridders() -> TestResult {
    for at in [[0.5, 3.0, 100.0, 10.0], [1.2, 0.7, 50.0, 45.0]] {
        let got = logistic_growth_grad(at[0], at[1], at[2], at[3])?;
        assert_eq!(got.value, logistic_growth(at[0], at[1], at[2], at[3]));
        assert_numeric(
            &got.gradient,
            |p| logistic_growth(p[0], p[1], p[2], p[3]),
            &at,
        );
        assert!(logistic_growth_check(at[0], at[1], at[2], at[3])?.passed());
    }
    Ok(())
}

#[differentiable]
fn harmonic_mean(x: [f64; 3]) -> f64 {
    let mut inv = 0.0;
    for i in 0..3 {
        inv += 1.0 / x[i];
    }
    3.0 / inv
}

#[test]
fn harmonic_mean_gradient() -> TestResult {
    let x = [1.0, 2.0, 4.0];
    let got = harmonic_mean_grad(x)?;
    assert_eq!(got.value, harmonic_mean(x));
    assert!(harmonic_mean_check(x)?.passed());
    let h = got.value;
    let want: Vec<f64> = x.iter().map(|v| h * h / (3.0 * v * v)).collect();
    assert_all_close(&got.gradient, &want, CLOSED);
    Ok(())
}

#[differentiable]
fn terminal_velocity(mass: f64, drag: f64) -> f64 {
    (mass * G / drag).sqrt()
}

#[test]
fn terminal_velocity_gradient() -> TestResult {
    for (m, c) in [(80.0, 0.25), (0.01, 1e-4)] {
        let got = terminal_velocity_grad(m, c)?;
        assert_eq!(got.value, terminal_velocity(m, c));
        // The check's step is absolute below 1: at c = 1e-4 it is 6% of c.
        if c > 0.1 {
            assert!(terminal_velocity_check(m, c)?.passed());
        }
        let v = got.value;
        assert_close(got.gradient.0, v / (2.0 * m), CLOSED);
        assert_close(got.gradient.1, -v / (2.0 * c), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn spring_chain_energy(x: [f64; 3], #[constant] k: f64) -> f64 {
    let mut energy = 0.5 * k * x[0] * x[0];
    for i in 1..3 {
        let stretch = x[i] - x[i - 1];
        energy += 0.5 * k * stretch * stretch;
    }
    energy
}

#[test]
fn spring_chain_forces() -> TestResult {
    let x = [0.1, 0.4, 0.2];
    let got = spring_chain_energy_grad(x, 10.0)?;
    assert_eq!(got.value, spring_chain_energy(x, 10.0));
    assert!(spring_chain_energy_check(x, 10.0)?.passed());
    // ∂E/∂x0 = k(x0 − (x1 − x0)), ∂E/∂x1 = k((x1 − x0) − (x2 − x1)), ∂E/∂x2 = k(x2 − x1).
    let want = [10.0 * (0.1 - 0.3), 10.0 * (0.3 + 0.2), 10.0 * (-0.2)];
    assert_all_close(&got.gradient, &want, CLOSED);
    Ok(())
}

#[differentiable]
fn black_body_ratio(t: f64) -> f64 {
    // Wien's approximation at a fixed wavelength, in units where hc/(λk) = 1.
    (-1.0 / t).exp()
}

#[test]
fn wien_ratio_gradient() -> TestResult {
    for t in [0.2, 1.0, 5.0] {
        let got = black_body_ratio_grad(t)?;
        assert_eq!(got.value, black_body_ratio(t));
        assert!(black_body_ratio_check(t)?.passed());
        assert_close(got.gradient, got.value / (t * t), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn pearson(x: [f64; 4], y: [f64; 4]) -> f64 {
    let mut mx = 0.0;
    let mut my = 0.0;
    for i in 0..4 {
        mx += x[i];
        my += y[i];
    }
    mx /= 4.0;
    my /= 4.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for i in 0..4 {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    sxy / (sxx * syy).sqrt()
}

#[test]
fn pearson_correlation_against_ridders() -> TestResult {
    for (x, y) in [
        ([1.0, 2.0, 3.0, 5.0], [2.0, 1.0, 4.0, 3.0]),
        ([0.1, -0.4, 0.8, 0.3], [1.0, 0.2, 0.5, -0.7]),
    ] {
        let got = pearson_grad(x, y)?;
        assert_eq!(got.value, pearson(x, y));
        let at = [x, y].concat();
        assert_numeric(&got.gradient, |p| pearson(arr(p), arr(&p[4..])), &at);
        assert!(pearson_check(x, y)?.passed());
    }
    Ok(())
}
