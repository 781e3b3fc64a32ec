//! Loops, branches, early returns and compound assignment as exercises use
//! them: iterations a student unrolls by hand (Newton, Euler, gradient
//! descent), piecewise functions, searches that stop early. The branch taken
//! is the one differentiated, so points sit away from every switch.

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn horner(x: f64, #[constant] coeffs: [f64; 4]) -> f64 {
    let mut acc = 0.0;
    for k in 0..4 {
        acc = acc * x + coeffs[3 - k];
    }
    acc
}

#[test]
fn horner_evaluates_the_polynomial_and_its_derivative() -> TestResult {
    let c = [1.0, -2.0, 0.5, 3.0]; // 1 − 2x + ½x² + 3x³
    for x in [-1.5, 0.3, 2.0] {
        let got = horner_grad(x, c)?;
        assert_eq!(got.value, horner(x, c));
        assert_close(got.gradient, -2.0 + x + 9.0 * x * x, CLOSED);
        assert!(horner_check(x, c)?.passed());
    }
    Ok(())
}

#[differentiable]
fn newton_cube_root(a: f64) -> f64 {
    let mut r = if a > 1.0 { a / 3.0 } else { 1.0 };
    for _ in 0..40 {
        r = r - (r * r * r - a) / (3.0 * r * r);
    }
    r
}

#[test]
fn newton_iteration_differentiates_to_the_inverse_function_rule() -> TestResult {
    // The iteration converges quadratically, and so does its derivative; 40
    // steps leave the derivative within rounding of 1/(3a^(2/3)).
    for a in [0.5, 8.0, 27.0] {
        let got = newton_cube_root_grad(a)?;
        assert_eq!(got.value, newton_cube_root(a));
        assert!(newton_cube_root_check(a)?.passed());
        assert_close(got.value, a.powf(1.0 / 3.0), CLOSED);
        assert_close(got.gradient, 1.0 / (3.0 * a.powf(2.0 / 3.0)), 1e-10);
    }
    Ok(())
}

#[differentiable]
fn tax(income: f64) -> f64 {
    if income < 10_000.0 {
        0.0
    } else if income < 40_000.0 {
        0.2 * (income - 10_000.0)
    } else {
        6_000.0 + 0.4 * (income - 40_000.0)
    }
}

#[test]
fn piecewise_linear_brackets() -> TestResult {
    for (income, rate) in [(5_000.0, 0.0), (25_000.0, 0.2), (90_000.0, 0.4)] {
        let got = tax_grad(income)?;
        assert_eq!(got.value, tax(income));
        assert_eq!(got.gradient, rate);
    }
    Ok(())
}

#[differentiable]
fn clipped_step(g: [f64; 3], #[constant] max_norm: f64) -> f64 {
    let mut norm = 0.0;
    for i in 0..3 {
        norm += g[i] * g[i];
    }
    norm = norm.sqrt();
    let mut scaled = g;
    if norm > max_norm {
        for i in 0..3 {
            scaled[i] = scaled[i] * max_norm / norm;
        }
    }
    scaled[0] + 2.0 * scaled[1] - scaled[2]
}

#[test]
fn gradient_clipping_on_both_sides_of_the_threshold() -> TestResult {
    for g in [[0.1, 0.2, -0.1], [3.0, -4.0, 1.0]] {
        let got = clipped_step_grad(g, 1.0)?;
        assert_eq!(got.value, clipped_step(g, 1.0));
        assert_numeric(&got.gradient, |p| clipped_step(arr(p), 1.0), &g);
        assert!(clipped_step_check(g, 1.0)?.passed());
    }
    Ok(())
}

#[differentiable]
fn compound_interest(rate: f64, years: usize) -> f64 {
    let mut balance = 1000.0;
    for _ in 0..years {
        balance *= 1.0 + rate;
    }
    balance
}

#[test]
fn compound_interest_derivative() -> TestResult {
    for (rate, years) in [(0.05, 10), (0.12, 3), (0.01, 30)] {
        let got = compound_interest_grad(rate, years)?;
        assert_eq!(got.value, compound_interest(rate, years));
        assert!(compound_interest_check(rate, years)?.passed());
        let n = years as i32;
        assert_close(
            got.gradient,
            1000.0 * n as f64 * (1.0 + rate).powi(n - 1),
            CLOSED,
        );
    }
    Ok(())
}

#[differentiable]
fn halve_until_small(x: f64) -> f64 {
    let mut v = x;
    let mut count = 0;
    while v > 1.0 {
        v /= 2.0;
        count += 1;
    }
    v + count as f64
}

#[test]
fn a_while_loop_on_a_tracked_condition() -> TestResult {
    for (x, halvings) in [(0.5, 0), (3.0, 2), (100.0, 7)] {
        let got = halve_until_small_grad(x)?;
        assert_eq!(got.value, halve_until_small(x));
        assert_eq!(got.gradient, 0.5_f64.powi(halvings));
    }
    Ok(())
}

#[differentiable]
fn first_passage(v0: f64, #[constant] drag: f64) -> f64 {
    let mut v = v0;
    let mut x = 0.0;
    let dt = 0.1;
    loop {
        x += v * dt;
        v -= drag * v * dt;
        if x > 1.0 {
            break x + v;
        }
    }
}

#[test]
fn loop_break_with_a_value() -> TestResult {
    for v0 in [2.0, 5.5, 11.0] {
        let got = first_passage_grad(v0, 0.3)?;
        assert_eq!(got.value, first_passage(v0, 0.3));
        assert!(first_passage_check(v0, 0.3)?.passed());
        assert_close(
            got.gradient,
            derivative(|v| first_passage(v, 0.3), v0),
            NUMERIC,
        );
    }
    Ok(())
}

#[differentiable]
fn first_above(x: [f64; 5], #[constant] threshold: f64) -> f64 {
    for i in 0..5 {
        if x[i] > threshold {
            return 2.0 * x[i] + i as f64;
        }
    }
    x[4] * x[4]
}

#[test]
fn early_return_from_a_search() -> TestResult {
    let got = first_above_grad([0.1, 0.5, 1.5, 3.0, 0.2], 1.0)?;
    assert_eq!(got.value, 5.0);
    assert_eq!(got.gradient, [0.0, 0.0, 2.0, 0.0, 0.0]);
    let got = first_above_grad([0.1, 0.5, 0.2, 0.3, 0.7], 1.0)?;
    assert_eq!(got.value, first_above([0.1, 0.5, 0.2, 0.3, 0.7], 1.0));
    assert_eq!(got.gradient, [0.0, 0.0, 0.0, 0.0, 1.4]);
    Ok(())
}

#[differentiable]
fn activation(x: f64, kind: u8) -> f64 {
    match kind {
        0 => x.tanh(),
        1 => sigmoid(x),
        2 => relu(x),
        _ => x,
    }
}

#[test]
fn match_picks_the_activation() -> TestResult {
    let x = 0.7_f64;
    let s = 1.0 / (1.0 + (-x).exp());
    for (kind, want) in [
        (0, 1.0 - x.tanh().powi(2)),
        (1, s * (1.0 - s)),
        (2, 1.0),
        (9, 1.0),
    ] {
        let got = activation_grad(x, kind)?;
        assert_eq!(got.value, activation(x, kind));
        assert_close(got.gradient, want, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn euler_decay(y0: f64, k: f64, steps: usize) -> f64 {
    let dt = 0.01;
    let mut y = y0;
    for _ in 0..steps {
        y += dt * (-k * y);
    }
    y
}

#[test]
fn explicit_euler_has_a_closed_form() -> TestResult {
    for (y0, k, n) in [(1.0, 0.5, 100), (2.5, 3.0, 20)] {
        let got = euler_decay_grad(y0, k, n)?;
        assert_eq!(got.value, euler_decay(y0, k, n));
        assert!(euler_decay_check(y0, k, n)?.passed());
        // y_n = y0 (1 − k dt)^n.
        let base: f64 = 1.0 - k * 0.01;
        let ni = n as i32;
        assert_close(got.gradient.0, base.powi(ni), 1e-11);
        assert_close(
            got.gradient.1,
            -y0 * ni as f64 * 0.01 * base.powi(ni - 1),
            1e-11,
        );
    }
    Ok(())
}

// The swap through a temporary is what the exercise writes.
#[allow(clippy::manual_swap)]
#[differentiable]
fn sorted_spread(x: [f64; 4]) -> f64 {
    let mut a = x;
    for i in 0..4 {
        for j in 0..3 - i {
            if a[j] > a[j + 1] {
                let t = a[j];
                a[j] = a[j + 1];
                a[j + 1] = t;
            }
        }
    }
    a[3] - a[0] + 0.5 * a[1]
}

#[test]
fn bubble_sort_moves_gradients_with_the_values() -> TestResult {
    let x = [0.3, -1.0, 2.5, 0.9];
    let got = sorted_spread_grad(x)?;
    assert_eq!(got.value, sorted_spread(x));
    // Sorted: −1.0 (x1), 0.3 (x0), 0.9 (x3), 2.5 (x2).
    assert_eq!(got.gradient, [0.5, -1.0, 1.0, 0.0]);
    Ok(())
}

#[differentiable]
fn descend(w0: f64, #[constant] lr: f64, steps: usize) -> f64 {
    let mut w = w0;
    for _ in 0..steps {
        let grad = 2.0 * (w - 3.0);
        w -= lr * grad;
    }
    (w - 3.0) * (w - 3.0)
}

#[test]
fn unrolled_gradient_descent() -> TestResult {
    for (w0, n) in [(0.0, 5), (10.0, 12)] {
        let got = descend_grad(w0, 0.1, n)?;
        assert_eq!(got.value, descend(w0, 0.1, n));
        assert!(descend_check(w0, 0.1, n)?.passed());
        // w_n − 3 = 0.8^n (w0 − 3); loss = 0.64^n (w0 − 3)².
        let r = 0.64_f64.powi(n as i32);
        assert_close(got.gradient, 2.0 * r * (w0 - 3.0), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn positive_energy(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        if x[i] < 0.0 {
            continue;
        }
        total += x[i] * x[i];
    }
    total
}

#[test]
fn continue_skips_the_negative_entries() -> TestResult {
    let x = [1.0, -2.0, 3.0, -0.5];
    let got = positive_energy_grad(&x)?;
    assert_eq!(got.value, 10.0);
    assert_eq!(got.gradient, vec![2.0, 0.0, 6.0, 0.0]);
    Ok(())
}

#[differentiable]
fn first_large_product(m: [[f64; 3]; 3]) -> f64 {
    let mut found = 0.0;
    'rows: for i in 0..3 {
        for j in 0..3 {
            if m[i][j] > 1.0 {
                found = m[i][j] * m[j][i];
                break 'rows;
            }
        }
    }
    found
}

#[test]
fn a_labelled_break_out_of_nested_loops() -> TestResult {
    let m = [[0.1, 0.2, 0.3], [0.4, 0.5, 2.0], [3.0, 0.7, 0.8]];
    let got = first_large_product_grad(m)?;
    assert_eq!(got.value, 2.0 * 0.7);
    let mut want = [[0.0; 3]; 3];
    want[1][2] = 0.7;
    want[2][1] = 2.0;
    assert_eq!(got.gradient, want);
    Ok(())
}

#[differentiable]
fn running_mean(x: [f64; 5]) -> f64 {
    let mut m = 0.0;
    for k in 0..5 {
        m += (x[k] - m) / (k as f64 + 1.0);
    }
    m
}

#[test]
fn online_mean_has_gradient_one_over_n() -> TestResult {
    let x = [1.0, 4.0, -2.0, 0.5, 3.0];
    let got = running_mean_grad(x)?;
    assert_eq!(got.value, running_mean(x));
    assert!(running_mean_check(x)?.passed());
    assert_close(got.value, 6.5 / 5.0, CLOSED);
    assert_all_close(&got.gradient, &[0.2; 5], CLOSED);
    Ok(())
}

#[differentiable]
fn recurrence(a: f64, b: f64, n: usize) -> f64 {
    let mut prev = a;
    let mut cur = b;
    for _ in 0..n {
        let next = prev + cur;
        prev = cur;
        cur = next;
    }
    cur
}

#[test]
fn a_linear_recurrence_has_fibonacci_gradients() -> TestResult {
    // After n steps cur = F(n)·a + F(n+1)·b.
    let fib = [0.0, 1.0, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0];
    for n in [0, 3, 7] {
        let got = recurrence_grad(0.5, 1.5, n)?;
        assert_eq!(got.value, recurrence(0.5, 1.5, n));
        assert!(recurrence_check(0.5, 1.5, n)?.passed());
        assert_eq!(got.gradient, (fib[n], fib[n + 1]));
    }
    Ok(())
}

// Shadowing a parameter is the point of the exercise.
#[allow(clippy::let_and_return)]
#[differentiable]
fn shadowed(x: f64) -> f64 {
    let x = x * 2.0;
    let x = x.sin();
    let x = x * x + 1.0;
    x
}

#[test]
fn shadowing_keeps_the_chain() -> TestResult {
    for x in [0.2, 1.1, -0.6] {
        let got = shadowed_grad(x)?;
        assert_eq!(got.value, shadowed(x));
        assert!(shadowed_check(x)?.passed());
        // sin²(2x) + 1: d/dx = 4 sin(2x) cos(2x).
        assert_close(
            got.gradient,
            4.0 * (2.0 * x).sin() * (2.0 * x).cos(),
            CLOSED,
        );
    }
    Ok(())
}

#[differentiable]
fn squared_gap(x: f64, y: f64) -> f64 {
    let gap = if x > y { x - y } else { y - x };
    gap * gap
}

#[test]
fn if_expression_values() -> TestResult {
    for (x, y) in [(3.0, 1.0), (-1.0, 2.0)] {
        let got = squared_gap_grad(x, y)?;
        assert_eq!(got.value, squared_gap(x, y));
        assert_eq!(got.gradient, (2.0 * (x - y), -2.0 * (x - y)));
    }
    Ok(())
}

#[differentiable]
fn exp_series(x: f64, terms: usize) -> f64 {
    let mut term = 1.0;
    let mut total = 1.0;
    for k in 1..terms {
        term *= x / k as f64;
        total += term;
    }
    total
}

#[test]
fn truncated_exponential_series() -> TestResult {
    for x in [0.5, -1.0, 2.0] {
        let got = exp_series_grad(x, 12)?;
        assert_eq!(got.value, exp_series(x, 12));
        assert!(exp_series_check(x, 12)?.passed());
        // d/dx Σ_{k<12} x^k/k! = Σ_{k<11} x^k/k!.
        assert_close(got.gradient, exp_series(x, 11), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn momentum_update(w: [f64; 2], g: [f64; 2], #[constant] beta: f64) -> f64 {
    let mut v = [0.0; 2];
    let mut p = w;
    for _ in 0..3 {
        for i in 0..2 {
            v[i] *= beta;
            v[i] += g[i];
            p[i] -= 0.1 * v[i];
        }
    }
    p[0] * p[1]
}

#[test]
fn compound_assignment_on_array_elements() -> TestResult {
    for (w, g) in [([1.0, 2.0], [0.5, -0.5]), ([0.3, -0.8], [1.0, 2.0])] {
        let got = momentum_update_grad(w, g, 0.9)?;
        assert_eq!(got.value, momentum_update(w, g, 0.9));
        assert!(momentum_update_check(w, g, 0.9)?.passed());
        // p = w − 0.1·(1 + 1.9 + 2.71)·g = w − 0.561 g.
        let p = [w[0] - 0.561 * g[0], w[1] - 0.561 * g[1]];
        let (dw, dg) = got.gradient;
        assert_all_close(&dw, &[p[1], p[0]], CLOSED);
        assert_all_close(&dg, &[-0.561 * p[1], -0.561 * p[0]], CLOSED);
    }
    Ok(())
}
