//! The further elementary functions, each inside a formula a student meets:
//! `tan atan sinh cosh asin acos ln_1p exp_m1 log10 log2 log(b) hypot mul_add
//! cbrt`, and `signum floor ceil round clamp` with their a.e. derivatives
//! (zero for the step functions, one inside the clamp range). Closed forms
//! throughout (tolerance `CLOSED`), points away from kinks.

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn slope_height(angle: f64, run: f64) -> f64 {
    angle.tan() * run
}

#[test]
fn tan_of_an_incline() -> TestResult {
    for (a, r) in [(0.3, 2.0), (1.2, 0.5)] {
        let got = slope_height_grad(a, r)?;
        assert_eq!(got.value, slope_height(a, r));
        let c = a.cos();
        assert_close(got.gradient.0, r / (c * c), CLOSED);
        assert_close(got.gradient.1, a.tan(), CLOSED);
        assert!(slope_height_check(a, r)?.passed());
    }
    Ok(())
}

#[differentiable]
fn bearing(dy: f64, dx: f64) -> f64 {
    (dy / dx).atan()
}

#[test]
fn atan_of_a_ratio() -> TestResult {
    for (dy, dx) in [(1.0, 2.0), (-3.0, 0.5)] {
        let got = bearing_grad(dy, dx)?;
        assert_eq!(got.value, bearing(dy, dx));
        let d = dx * dx + dy * dy;
        assert_close(got.gradient.0, dx / d, CLOSED);
        assert_close(got.gradient.1, -dy / d, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn catenary(x: f64, a: f64) -> f64 {
    a * (x / a).cosh()
}

#[test]
fn cosh_in_a_hanging_cable() -> TestResult {
    for (x, a) in [(0.5, 1.0), (2.0, 3.0)] {
        let got = catenary_grad(x, a)?;
        assert_eq!(got.value, catenary(x, a));
        let u = x / a;
        assert_close(got.gradient.0, u.sinh(), CLOSED);
        assert_close(got.gradient.1, u.cosh() - u * u.sinh(), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn rapidity_velocity(phi: f64) -> f64 {
    phi.sinh() / phi.cosh()
}

#[test]
fn sinh_over_cosh_is_tanh() -> TestResult {
    for phi in [-0.7, 0.4, 1.5] {
        let got = rapidity_velocity_grad(phi)?;
        assert_close(got.value, phi.tanh(), CLOSED);
        assert_close(got.gradient, 1.0 - phi.tanh().powi(2), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn launch_angle(ratio: f64) -> f64 {
    0.5 * ratio.asin()
}

#[test]
fn asin_of_a_range_ratio() -> TestResult {
    for r in [0.2, -0.5, 0.9] {
        let got = launch_angle_grad(r)?;
        assert_eq!(got.value, launch_angle(r));
        assert_close(got.gradient, 0.5 / (1.0 - r * r).sqrt(), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn angle_between(a: [f64; 2], b: [f64; 2]) -> f64 {
    let dot = a[0] * b[0] + a[1] * b[1];
    let na = (a[0] * a[0] + a[1] * a[1]).sqrt();
    let nb = (b[0] * b[0] + b[1] * b[1]).sqrt();
    (dot / (na * nb)).acos()
}

#[test]
fn acos_of_a_cosine_similarity() -> TestResult {
    let (a, b) = ([1.0, 0.5], [0.2, 1.0]);
    let got = angle_between_grad(a, b)?;
    assert_eq!(got.value, angle_between(a, b));
    let at = [a, b].concat();
    assert_numeric(&got.gradient, |p| angle_between(arr(p), arr(&p[2..])), &at);
    Ok(())
}

#[differentiable]
fn stable_softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

#[test]
fn ln_1p_in_a_stable_softplus() -> TestResult {
    for x in [-30.0, -0.5, 2.0, 40.0] {
        let got = stable_softplus_grad(x)?;
        assert_eq!(got.value, stable_softplus(x));
        assert_close(got.gradient, 1.0 / (1.0 + (-x).exp()), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn compound_return(rate: f64, years: f64) -> f64 {
    (rate * years).exp_m1()
}

#[test]
fn exp_m1_for_small_rates() -> TestResult {
    for (r, t) in [(1e-9, 3.0), (0.05, 10.0)] {
        let got = compound_return_grad(r, t)?;
        assert_eq!(got.value, compound_return(r, t));
        let e = (r * t).exp();
        assert_close(got.gradient.0, t * e, CLOSED);
        assert_close(got.gradient.1, r * e, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn decibels(power: f64, #[constant] reference: f64) -> f64 {
    10.0 * (power / reference).log10()
}

#[test]
fn log10_for_decibels() -> TestResult {
    for p in [0.5, 20.0, 1e4] {
        let got = decibels_grad(p, 1e-3)?;
        assert_eq!(got.value, decibels(p, 1e-3));
        assert_close(got.gradient, 10.0 / (p * std::f64::consts::LN_10), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn binary_entropy(p: f64) -> f64 {
    -p * p.log2() - (1.0 - p) * (1.0 - p).log2()
}

#[test]
fn log2_for_entropy_in_bits() -> TestResult {
    for p in [0.1, 0.5, 0.75] {
        let got = binary_entropy_grad(p)?;
        assert_eq!(got.value, binary_entropy(p));
        assert_close(got.gradient, ((1.0 - p) / p).log2(), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn log_base(x: f64, base: f64) -> f64 {
    x.log(base)
}

#[test]
fn log_with_a_tracked_base() -> TestResult {
    for (x, b) in [(8.0, 2.0), (0.5, 10.0)] {
        let got = log_base_grad(x, b)?;
        assert_eq!(got.value, log_base(x, b));
        let (lx, lb) = (x.ln(), b.ln());
        assert_close(got.gradient.0, 1.0 / (x * lb), CLOSED);
        assert_close(got.gradient.1, -lx / (b * lb * lb), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

#[test]
fn hypot_for_a_distance() -> TestResult {
    let got = distance_grad([4.0, 1.0], [1.0, 5.0])?;
    assert_eq!(got.value, 5.0);
    assert_all_close(&got.gradient.0, &[0.6, -0.8], CLOSED);
    assert_all_close(&got.gradient.1, &[-0.6, 0.8], CLOSED);
    Ok(())
}

#[differentiable]
fn fused_affine(x: f64, w: f64, b: f64) -> f64 {
    x.mul_add(w, b).tanh()
}

#[test]
fn mul_add_as_an_affine_map() -> TestResult {
    for (x, w, b) in [(0.5, 2.0, -0.3), (-1.0, 0.7, 0.1)] {
        let got = fused_affine_grad(x, w, b)?;
        assert_eq!(got.value, fused_affine(x, w, b));
        let d = 1.0 - got.value * got.value;
        assert_close(got.gradient.0, d * w, CLOSED);
        assert_close(got.gradient.1, d * x, CLOSED);
        assert_close(got.gradient.2, d, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn cube_side(volume: f64) -> f64 {
    volume.cbrt()
}

#[test]
fn cbrt_of_a_volume() -> TestResult {
    for v in [8.0, 0.125, 30.0] {
        let got = cube_side_grad(v)?;
        assert_eq!(got.value, cube_side(v));
        assert_close(got.gradient, 1.0 / (3.0 * v.cbrt() * v.cbrt()), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn signed_square(x: f64) -> f64 {
    x.signum() * x * x
}

#[test]
fn signum_has_derivative_zero_away_from_zero() -> TestResult {
    for x in [-2.0, 0.5, 3.0] {
        let got = signed_square_grad(x)?;
        assert_eq!(got.value, signed_square(x));
        assert_eq!(got.gradient, 2.0 * x.abs());
    }
    Ok(())
}

#[differentiable]
fn staircase(x: f64) -> f64 {
    x.floor() + 0.5 * x.ceil() + x
}

#[test]
fn floor_and_ceil_are_flat_between_integers() -> TestResult {
    for x in [0.3, 2.7, -1.4] {
        let got = staircase_grad(x)?;
        assert_eq!(got.value, staircase(x));
        assert_eq!(got.gradient, 1.0);
    }
    Ok(())
}

#[differentiable]
fn straight_through(x: f64) -> f64 {
    // Quantise, then add back the residual so the gradient is one.
    let q = (4.0 * x).round() / 4.0;
    q + (x - detach(x))
}

#[test]
fn round_has_derivative_zero_between_half_steps() -> TestResult {
    for x in [0.3, -0.6, 1.1] {
        let got = straight_through_grad(x)?;
        assert_eq!(got.value, straight_through(x));
        assert_eq!(got.gradient, 1.0);
    }
    Ok(())
}

#[differentiable]
fn clamped_ratio(ratio: f64, advantage: f64) -> f64 {
    ratio.clamp(0.8, 1.2) * advantage
}

#[test]
fn clamp_passes_the_gradient_inside_the_range() -> TestResult {
    for (r, inside) in [(1.0, 1.0), (1.5, 0.0), (0.5, 0.0)] {
        let got = clamped_ratio_grad(r, 2.0)?;
        assert_eq!(got.value, clamped_ratio(r, 2.0));
        assert_eq!(got.gradient, (2.0 * inside, r.clamp(0.8, 1.2)));
    }
    Ok(())
}

#[differentiable]
fn log_odds(p: f64) -> f64 {
    p.ln() - (-p).ln_1p()
}

#[test]
fn logit_with_ln_1p() -> TestResult {
    for p in [0.1, 0.5, 0.95] {
        let got = log_odds_grad(p)?;
        assert_close(got.value, (p / (1.0 - p)).ln(), CLOSED);
        assert_close(got.gradient, 1.0 / (p * (1.0 - p)), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn mixed_trig(x: f64, y: f64) -> f64 {
    f64::atan(x) + f64::sinh(y) + f64::hypot(x, y) + f64::mul_add(x, y, 1.0)
}

#[test]
fn path_forms_of_the_new_functions() -> TestResult {
    let (x, y) = (0.6_f64, -0.4_f64);
    let got = mixed_trig_grad(x, y)?;
    assert_eq!(got.value, mixed_trig(x, y));
    let h = x.hypot(y);
    assert_close(got.gradient.0, 1.0 / (1.0 + x * x) + x / h + y, CLOSED);
    assert_close(got.gradient.1, y.cosh() + y / h + x, CLOSED);
    Ok(())
}
