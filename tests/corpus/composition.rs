//! Annotated functions calling annotated functions, arrays and `Vec`s built
//! in the body, `push`, `vec!`, `#[constant]` and integer parameters: the
//! everyday shapes of a course exercise that the README says work.

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn neuron(w: [f64; 3], b: f64, x: [f64; 3]) -> f64 {
    let z = w[0] * x[0] + w[1] * x[1] + w[2] * x[2] + b;
    z.tanh()
}

#[differentiable]
fn two_neurons(w: [f64; 3], v: [f64; 3], x: [f64; 3]) -> f64 {
    let a = neuron(w, 0.1, x);
    let b = neuron(v, -0.2, x);
    a * b
}

#[test]
fn a_layer_of_annotated_neurons() -> TestResult {
    let (w, v) = ([0.3, -0.2, 0.5], [0.1, 0.4, -0.6]);
    for x in [[1.0, 0.5, -0.5], [2.0, -1.0, 0.3]] {
        let got = two_neurons_grad(w, v, x)?;
        assert_eq!(got.value, two_neurons(w, v, x));
        let a = neuron(w, 0.1, x);
        let b = neuron(v, -0.2, x);
        let (dw, dv, dx) = got.gradient;
        for i in 0..3 {
            assert_close(dw[i], b * (1.0 - a * a) * x[i], CLOSED);
            assert_close(dv[i], a * (1.0 - b * b) * x[i], CLOSED);
            let want = b * (1.0 - a * a) * w[i] + a * (1.0 - b * b) * v[i];
            assert_close(dx[i], want, CLOSED);
        }
        assert!(two_neurons_check(w, v, x)?.passed());
    }
    Ok(())
}

#[differentiable]
fn square(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn norm(v: [f64; 3]) -> f64 {
    (square(v[0]) + square(v[1]) + square(v[2])).sqrt()
}

#[test]
fn a_helper_on_array_elements() -> TestResult {
    for v in [[3.0, 4.0, 12.0], [0.5, -0.5, 1.0]] {
        let got = norm_grad(v)?;
        assert_eq!(got.value, norm(v));
        assert!(norm_check(v)?.passed());
        let n = got.value;
        assert_all_close(&got.gradient, &[v[0] / n, v[1] / n, v[2] / n], CLOSED);
    }
    Ok(())
}

#[differentiable]
fn poly(x: f64, #[constant] c: [f64; 3]) -> f64 {
    c[0] + c[1] * x + c[2] * x * x
}

#[differentiable]
fn poly_fit_loss(x: f64, #[constant] target: f64) -> f64 {
    let y = poly(x, [1.0, -3.0, 2.0]);
    (y - target).powi(2)
}

#[test]
fn a_constant_argument_to_a_helper() -> TestResult {
    for x in [0.0, 1.5, -0.7] {
        let got = poly_fit_loss_grad(x, 0.5)?;
        assert_eq!(got.value, poly_fit_loss(x, 0.5));
        assert!(poly_fit_loss_check(x, 0.5)?.passed());
        let y = 1.0 - 3.0 * x + 2.0 * x * x;
        assert_close(got.gradient, 2.0 * (y - 0.5) * (-3.0 + 4.0 * x), CLOSED);
    }
    Ok(())
}

// Pushing one feature at a time is the exercise.
#[allow(clippy::vec_init_then_push)]
#[differentiable]
fn polynomial_features(x: f64, #[constant] w: [f64; 3]) -> f64 {
    let mut features = Vec::new();
    features.push(x);
    features.push(x * x);
    features.push(x * x * x);
    let mut y = 0.0;
    for i in 0..3 {
        y += w[i] * features[i];
    }
    y
}

#[test]
fn features_pushed_onto_a_vec() -> TestResult {
    let w = [0.5, -1.0, 0.25];
    for x in [1.0, -2.0, 0.3] {
        let got = polynomial_features_grad(x, w)?;
        assert_eq!(got.value, polynomial_features(x, w));
        assert!(polynomial_features_check(x, w)?.passed());
        assert_close(got.gradient, 0.5 - 2.0 * x + 0.75 * x * x, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn hidden_layer(x: Vec<f64>, #[constant] w: &[Vec<f64>]) -> f64 {
    let mut h = vec![0.0; w.len()];
    for j in 0..w.len() {
        for i in 0..x.len() {
            h[j] += w[j][i] * x[i];
        }
        h[j] = h[j].tanh();
    }
    let mut out = 0.0;
    for j in 0..h.len() {
        out += h[j];
    }
    out
}

#[test]
fn vec_macro_buffers_sized_by_a_constant() -> TestResult {
    let w = vec![vec![0.5, -0.2], vec![0.3, 0.8], vec![-0.4, 0.1]];
    for x in [vec![1.0, 0.5], vec![-0.3, 2.0]] {
        let got = hidden_layer_grad(x.clone(), &w)?;
        assert_eq!(got.value, hidden_layer(x.clone(), &w));
        let want: Vec<f64> = (0..2)
            .map(|i| {
                (0..3)
                    .map(|j| {
                        let z: f64 = (0..2).map(|k| w[j][k] * x[k]).sum();
                        (1.0 - z.tanh().powi(2)) * w[j][i]
                    })
                    .sum()
            })
            .collect();
        assert_all_close(&got.gradient, &want, CLOSED);
        assert!(hidden_layer_check(x, &w)?.passed());
    }
    Ok(())
}

#[differentiable]
fn power(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power(x, n - 1)
    }
}

#[test]
fn recursion_on_an_integer_parameter() -> TestResult {
    for (x, n) in [(1.5, 4), (-0.5, 3), (2.0, 0)] {
        let got = power_grad(x, n)?;
        assert_eq!(got.value, power(x, n));
        assert!(power_check(x, n)?.passed());
        let want = if n == 0 {
            0.0
        } else {
            n as f64 * x.powi(n as i32 - 1)
        };
        assert_close(got.gradient, want, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn weighted_sum(w: Vec<f64>, #[constant] x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..w.len() {
        total += w[i] * x[i];
    }
    total
}

#[test]
fn the_gradient_of_a_weighted_sum_is_the_data() -> TestResult {
    let x = [0.5, -1.0, 4.0];
    let got = weighted_sum_grad(vec![1.0, 2.0, 3.0], &x)?;
    assert_eq!(got.value, 10.5);
    assert_eq!(got.gradient, x.to_vec());
    Ok(())
}

#[differentiable]
fn quadratic_form(m: [[f64; 3]; 3], v: [f64; 3]) -> f64 {
    let mut mv = [0.0; 3];
    for i in 0..3 {
        for j in 0..3 {
            mv[i] += m[i][j] * v[j];
        }
    }
    let mut q = 0.0;
    for i in 0..3 {
        q += v[i] * mv[i];
    }
    q
}

#[test]
fn quadratic_form_gradient_is_m_plus_mt_v() -> TestResult {
    let m = [[2.0, 0.5, -1.0], [0.0, 1.0, 0.3], [0.7, -0.2, 3.0]];
    for v in [[1.0, -1.0, 0.5], [0.2, 0.4, -0.6]] {
        let got = quadratic_form_grad(m, v)?;
        assert_eq!(got.value, quadratic_form(m, v));
        assert!(quadratic_form_check(m, v)?.passed());
        let (dm, dv) = got.gradient;
        for i in 0..3 {
            let want: f64 = (0..3).map(|j| (m[i][j] + m[j][i]) * v[j]).sum();
            assert_close(dv[i], want, CLOSED);
            for j in 0..3 {
                assert_close(dm[i][j], v[i] * v[j], CLOSED);
            }
        }
    }
    Ok(())
}

#[differentiable]
fn repeat_sin(x: f64, times: i32) -> f64 {
    let mut y = x;
    for _ in 0..times {
        y = y.sin();
    }
    y
}

#[differentiable]
fn damped(x: f64) -> f64 {
    repeat_sin(x, 3) * 2.0
}

#[test]
fn an_integer_argument_passes_through_a_call() -> TestResult {
    for x in [0.4, 1.2] {
        let got = damped_grad(x)?;
        assert_eq!(got.value, damped(x));
        assert!(damped_check(x)?.passed());
        let (s1, s2) = (x.sin(), x.sin().sin());
        assert_close(got.gradient, 2.0 * s2.cos() * s1.cos() * x.cos(), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn inner_exp(x: f64) -> f64 {
    (0.5 * x).exp()
}

#[differentiable]
fn middle_log(x: f64) -> f64 {
    (1.0 + inner_exp(x)).ln()
}

#[differentiable]
fn outer_square(x: f64) -> f64 {
    let y = middle_log(x);
    y * y
}

#[test]
fn a_chain_of_three_helpers() -> TestResult {
    for x in [-1.0, 0.5, 3.0] {
        let got = outer_square_grad(x)?;
        assert_eq!(got.value, outer_square(x));
        assert!(outer_square_check(x)?.passed());
        let e = (0.5 * x).exp();
        let y = (1.0 + e).ln();
        assert_close(got.gradient, 2.0 * y * 0.5 * e / (1.0 + e), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn row_dot(w: [f64; 2], x: [f64; 2]) -> f64 {
    w[0] * x[0] + w[1] * x[1]
}

#[differentiable]
fn ensemble(w: [[f64; 2]; 3], x: [f64; 2]) -> f64 {
    let mut total = 0.0;
    for k in 0..3 {
        total += sigmoid(row_dot(w[k], x));
    }
    total / 3.0
}

#[test]
fn rows_of_a_nested_array_into_a_helper() -> TestResult {
    let w = [[0.5, -0.5], [1.0, 0.2], [-0.3, 0.8]];
    for x in [[1.0, 2.0], [-0.5, 0.25]] {
        let got = ensemble_grad(w, x)?;
        assert_eq!(got.value, ensemble(w, x));
        assert!(ensemble_check(w, x)?.passed());
        let (dw, dx) = got.gradient;
        let mut want_dx = [0.0; 2];
        for k in 0..3 {
            let s = 1.0 / (1.0 + (-(w[k][0] * x[0] + w[k][1] * x[1])).exp());
            for i in 0..2 {
                assert_close(dw[k][i], s * (1.0 - s) * x[i] / 3.0, CLOSED);
                want_dx[i] += s * (1.0 - s) * w[k][i] / 3.0;
            }
        }
        assert_all_close(&dx, &want_dx, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn lookup_scaled(x: f64, #[constant] table: [f64; 4], idx: usize) -> f64 {
    table[idx] * x * x + table[(idx + 1) % 4]
}

#[test]
fn a_constant_table_indexed_by_an_integer() -> TestResult {
    let table = [1.0, 2.0, 3.0, 4.0];
    for (x, idx) in [(1.5, 0), (-2.0, 3)] {
        let got = lookup_scaled_grad(x, table, idx)?;
        assert_eq!(got.value, lookup_scaled(x, table, idx));
        assert!(lookup_scaled_check(x, table, idx)?.passed());
        assert_eq!(got.gradient, 2.0 * table[idx] * x);
    }
    Ok(())
}

#[differentiable]
fn batch_norm_scale(x: f64, gamma: f64, training: bool) -> f64 {
    let running = 0.8;
    let scale = if training { x.abs() + 1.0 } else { running };
    gamma * x / scale
}

#[test]
fn a_bool_parameter_switches_the_formula() -> TestResult {
    for x in [0.5, 2.0] {
        let got = batch_norm_scale_grad(x, 1.5, false)?;
        assert_eq!(got.value, batch_norm_scale(x, 1.5, false));
        assert!(batch_norm_scale_check(x, 1.5, false)?.passed());
        assert_eq!(got.gradient, (1.5 / 0.8, x / 0.8));
        let got = batch_norm_scale_grad(x, 1.5, true)?;
        assert_close(got.gradient.0, 1.5 / (x + 1.0).powi(2), CLOSED);
        assert_close(got.gradient.1, x / (x + 1.0), CLOSED);
    }
    Ok(())
}

#[differentiable]
fn outer_product_trace(a: [f64; 2], b: [f64; 3]) -> f64 {
    let mut m = [[0.0; 3]; 2];
    for i in 0..2 {
        for j in 0..3 {
            m[i][j] = a[i] * b[j];
        }
    }
    let mut total = 0.0;
    for i in 0..2 {
        for j in 0..3 {
            total += m[i][j] * m[i][j];
        }
    }
    total
}

#[test]
fn a_local_matrix_filled_with_tracked_products() -> TestResult {
    let (a, b) = ([1.0, -2.0], [0.5, 1.5, -1.0]);
    let got = outer_product_trace_grad(a, b)?;
    assert_eq!(got.value, outer_product_trace(a, b));
    assert!(outer_product_trace_check(a, b)?.passed());
    // Σ a_i² b_j² = |a|²|b|²: ∂/∂a = 2a|b|², ∂/∂b = 2b|a|².
    let (na, nb) = (5.0, 3.5);
    assert_all_close(&got.gradient.0, &[2.0 * nb, -4.0 * nb], CLOSED);
    assert_all_close(&got.gradient.1, &[na, 3.0 * na, -2.0 * na], CLOSED);
    Ok(())
}

#[differentiable]
fn sub_slice_mean(x: &[f64]) -> f64 {
    let head = &x[..2];
    (head[0] + head[1]) / 2.0 + x[2]
}

#[test]
fn a_sub_slice_of_a_tracked_slice() -> TestResult {
    let got = sub_slice_mean_grad(&[1.0, 3.0, 5.0])?;
    assert_eq!(got.value, 7.0);
    assert_eq!(got.gradient, vec![0.5, 0.5, 1.0]);
    Ok(())
}

#[differentiable]
fn per_row(rows: Vec<[f64; 2]>) -> f64 {
    let mut loss = 0.0;
    for r in 0..rows.len() {
        loss += row_dot(rows[r], [1.0, -1.0]).powi(2);
    }
    loss
}

#[test]
fn a_vec_of_arrays_row_by_row_through_a_helper() -> TestResult {
    let rows = vec![[1.0, 0.5], [2.0, 3.0]];
    let got = per_row_grad(rows.clone())?;
    assert_eq!(got.value, per_row(rows));
    assert_eq!(got.gradient, vec![[1.0, -1.0], [-2.0, 2.0]]);
    Ok(())
}

#[differentiable]
fn sum_of_squares(v: Vec<f64>) -> f64 {
    let mut total = 0.0;
    for i in 0..v.len() {
        total += v[i] * v[i];
    }
    total
}

/// `Vec` parameters handed on by value: the compiled adjoint's forward and
/// reverse calls each take a clone.
#[differentiable]
fn handed_on(v: Vec<f64>, w: Vec<f64>, x: f64) -> f64 {
    sum_of_squares(v) * x + sum_of_squares(w)
}

#[test]
fn vecs_handed_on_by_value() -> TestResult {
    let (v, w, x) = (vec![0.5, -1.5, 2.0], vec![3.0, -0.25], 0.75);
    let args = || (v.clone(), w.clone(), x);
    for got in [
        handed_on_grad(v.clone(), w.clone(), x)?,
        handed_on_grad_tape(v.clone(), w.clone(), x)?,
    ] {
        let (a, b, c) = args();
        assert_eq!(got.value, handed_on(a, b, c));
        let (dv, dw, dx) = got.gradient;
        for i in 0..3 {
            assert_close(dv[i], 2.0 * v[i] * x, CLOSED);
        }
        for i in 0..2 {
            assert_close(dw[i], 2.0 * w[i], CLOSED);
        }
        assert_close(dx, v.iter().map(|vi| vi * vi).sum(), CLOSED);
    }
    let (a, b, c) = args();
    assert!(handed_on_check(a, b, c)?.passed());
    Ok(())
}
