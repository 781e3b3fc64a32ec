//! Lesson-15 style layers, activations and losses, written the way the
//! course writes them: index loops, `let mut` accumulators, `detach` on the
//! softmax shift. Closed forms where the derivative is one line (tolerance
//! `CLOSED`, a few roundings); Ridders' differences of the plain twin
//! otherwise (tolerance `NUMERIC`).

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn dense_relu_probe(w: [[f64; 3]; 2], b: [f64; 3], x: [f64; 2], #[constant] g: [f64; 3]) -> f64 {
    let mut loss = 0.0;
    for j in 0..3 {
        let mut z = b[j];
        for i in 0..2 {
            z += x[i] * w[i][j];
        }
        loss += g[j] * relu(z);
    }
    loss
}

#[test]
fn dense_relu_probe_matches_the_lesson_formulas() -> TestResult {
    let w = [[0.4, -0.3, 0.8], [0.2, 0.5, -0.6]];
    let b = [0.1, 0.2, -0.05];
    let g = [1.0, -0.5, 0.25];
    for x in [[1.0, 0.5], [-0.3, 1.2]] {
        let got = dense_relu_probe_grad(w, b, x, g)?;
        assert_eq!(got.value, dense_relu_probe(w, b, x, g));
        // ȳ = g ⊙ 1[z > 0]; W̄ = xᵀȳ, b̄ = ȳ, x̄ = ȳWᵀ.
        let mut ybar = [0.0; 3];
        for j in 0..3 {
            let z = b[j] + x[0] * w[0][j] + x[1] * w[1][j];
            assert!(z.abs() > 0.05, "point away from the kink");
            ybar[j] = if z > 0.0 { g[j] } else { 0.0 };
        }
        let (dw, db, dx) = got.gradient;
        for i in 0..2 {
            for j in 0..3 {
                assert_close(dw[i][j], x[i] * ybar[j], CLOSED);
            }
            let want: f64 = (0..3).map(|j| ybar[j] * w[i][j]).sum();
            assert_close(dx[i], want, CLOSED);
        }
        assert_all_close(&db, &ybar, CLOSED);
        assert!(dense_relu_probe_check(w, b, x, g)?.passed());
    }
    Ok(())
}

#[differentiable]
fn mse(pred: &[f64], #[constant] target: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..pred.len() {
        let e = pred[i] - target[i];
        total += e * e;
    }
    total / pred.len() as f64
}

#[test]
fn mean_squared_error_gradient_is_two_e_over_n() -> TestResult {
    let target = [0.5, -1.0, 2.0];
    for pred in [[0.0, 0.0, 0.0], [1.5, -0.25, 3.0]] {
        let got = mse_grad(&pred, &target)?;
        assert_eq!(got.value, mse(&pred, &target));
        let want: Vec<f64> = (0..3).map(|i| 2.0 * (pred[i] - target[i]) / 3.0).collect();
        assert_all_close(&got.gradient, &want, CLOSED);
        assert!(mse_check(&pred, &target)?.passed());
    }
    Ok(())
}

#[differentiable]
fn mae(pred: [f64; 4], #[constant] target: [f64; 4]) -> f64 {
    let mut total = 0.0;
    for i in 0..4 {
        total += (pred[i] - target[i]).abs();
    }
    total / 4.0
}

#[test]
fn mean_absolute_error_gradient_is_sign_over_n() -> TestResult {
    let target = [1.0, 2.0, 3.0, 4.0];
    for pred in [[0.5, 2.5, 2.0, 5.0], [1.5, 1.0, 3.5, 3.0]] {
        let got = mae_grad(pred, target)?;
        assert_eq!(got.value, mae(pred, target));
        let want: Vec<f64> = (0..4)
            .map(|i| (pred[i] - target[i]).signum() / 4.0)
            .collect();
        assert_all_close(&got.gradient, &want, CLOSED);
        assert!(mae_check(pred, target)?.passed());
    }
    Ok(())
}

#[differentiable]
fn huber(residual: f64, #[constant] delta: f64) -> f64 {
    if residual.abs() <= delta {
        0.5 * residual * residual
    } else {
        delta * (residual.abs() - 0.5 * delta)
    }
}

#[test]
fn huber_is_quadratic_inside_and_linear_outside() -> TestResult {
    for r in [0.3, -0.7, 2.5, -4.0] {
        let got = huber_grad(r, 1.0)?;
        assert_eq!(got.value, huber(r, 1.0));
        let want = if r.abs() <= 1.0 { r } else { r.signum() };
        assert_close(got.gradient, want, CLOSED);
        assert!(huber_check(r, 1.0)?.passed());
    }
    Ok(())
}

#[differentiable]
fn logistic_loss(w: [f64; 3], x: [f64; 3], #[constant] label: f64) -> f64 {
    let mut z = 0.0;
    for i in 0..3 {
        z += w[i] * x[i];
    }
    let p = sigmoid(z);
    -(label * p.ln() + (1.0 - label) * (1.0 - p).ln())
}

#[test]
fn logistic_regression_gradient_is_p_minus_y_times_x() -> TestResult {
    let x = [0.5, -1.0, 2.0];
    for (w, label) in [([0.1, 0.2, 0.3], 1.0), ([-0.4, 0.3, 0.05], 0.0)] {
        let got = logistic_loss_grad(w, x, label)?;
        assert_eq!(got.value, logistic_loss(w, x, label));
        let z: f64 = (0..3).map(|i| w[i] * x[i]).sum();
        let p = 1.0 / (1.0 + (-z).exp());
        let (dw, dx) = got.gradient;
        for i in 0..3 {
            assert_close(dw[i], (p - label) * x[i], 1e-10);
            assert_close(dx[i], (p - label) * w[i], 1e-10);
        }
        assert!(logistic_loss_check(w, x, label)?.passed());
    }
    Ok(())
}

#[differentiable]
fn binary_cross_entropy(p: f64, #[constant] y: f64) -> f64 {
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

#[test]
fn binary_cross_entropy_in_probability_space() -> TestResult {
    for (p, y) in [(0.3, 1.0), (0.8, 0.0), (0.55, 0.25)] {
        let got = binary_cross_entropy_grad(p, y)?;
        assert_eq!(got.value, binary_cross_entropy(p, y));
        assert_close(got.gradient, (p - y) / (p * (1.0 - p)), CLOSED);
        assert!(binary_cross_entropy_check(p, y)?.passed());
    }
    Ok(())
}

#[differentiable]
fn softmax_cross_entropy(z: Vec<f64>, target: usize) -> f64 {
    let mut top = z[0];
    for k in 1..z.len() {
        top = top.max(z[k]);
    }
    let shift = detach(top);
    let mut total = 0.0;
    for k in 0..z.len() {
        total += (z[k] - shift).exp();
    }
    total.ln() + shift - z[target]
}

#[test]
fn softmax_cross_entropy_gradient_is_p_minus_one_hot() -> TestResult {
    for (z, target) in [(vec![2.0, 1.0, 0.5, -0.5], 0), (vec![-1.0, 3.0, 0.25], 2)] {
        let got = softmax_cross_entropy_grad(z.clone(), target)?;
        assert_eq!(got.value, softmax_cross_entropy(z.clone(), target));
        let total: f64 = z.iter().map(|v| v.exp()).sum();
        let mut want: Vec<f64> = z.iter().map(|v| v.exp() / total).collect();
        want[target] -= 1.0;
        assert_all_close(&got.gradient, &want, CLOSED);
        assert!(softmax_cross_entropy_check(z, target)?.passed());
    }
    Ok(())
}

#[differentiable]
fn layer_norm_probe(x: [f64; 4], gamma: [f64; 4], beta: [f64; 4], #[constant] g: [f64; 4]) -> f64 {
    let mut mean = 0.0;
    for i in 0..4 {
        mean += x[i];
    }
    mean /= 4.0;
    let mut var = 0.0;
    for i in 0..4 {
        var += (x[i] - mean) * (x[i] - mean);
    }
    var /= 4.0;
    let inv = 1.0 / (var + 1e-5).sqrt();
    let mut out = 0.0;
    for i in 0..4 {
        let y = gamma[i] * (x[i] - mean) * inv + beta[i];
        out += g[i] * y;
    }
    out
}

#[test]
fn layer_norm_against_ridders() -> TestResult {
    let g = [1.0, -2.0, 0.5, 0.25];
    let gamma = [1.0, 0.9, 1.1, 1.2];
    let beta = [0.0, 0.1, -0.1, 0.2];
    for x in [[0.3, -1.2, 2.0, 0.7], [1.0, 1.5, -0.5, 0.0]] {
        let got = layer_norm_probe_grad(x, gamma, beta, g)?;
        assert_eq!(got.value, layer_norm_probe(x, gamma, beta, g));
        let at = [x, gamma, beta].concat();
        assert_numeric(
            &got.gradient,
            |p| layer_norm_probe(arr(p), arr(&p[4..]), arr(&p[8..]), g),
            &at,
        );
        // β enters linearly: β̄ = g exactly.
        assert_all_close(&got.gradient.2, &g, CLOSED);
        assert!(layer_norm_probe_check(x, gamma, beta, g)?.passed());
    }
    Ok(())
}

#[differentiable]
fn rms_norm_energy(x: Vec<f64>, #[constant] eps: f64) -> f64 {
    let mut ms = 0.0;
    for v in x.iter() {
        ms += v * v;
    }
    ms /= x.len() as f64;
    let scale = 1.0 / (ms + eps).sqrt();
    let mut out = 0.0;
    for (i, v) in x.iter().enumerate() {
        out += (i as f64 + 1.0) * v * scale;
    }
    out
}

#[test]
fn rms_norm_against_ridders() -> TestResult {
    for x in [vec![0.5, -1.0, 2.0], vec![3.0, 0.1, -0.2]] {
        let got = rms_norm_energy_grad(x.clone(), 1e-6)?;
        assert_eq!(got.value, rms_norm_energy(x.clone(), 1e-6));
        assert_numeric(&got.gradient, |p| rms_norm_energy(p.to_vec(), 1e-6), &x);
        assert!(rms_norm_energy_check(x, 1e-6)?.passed());
    }
    Ok(())
}

#[differentiable]
fn residual_block(x: [f64; 3], w: [[f64; 3]; 3]) -> f64 {
    let mut h = [0.0; 3];
    for j in 0..3 {
        let mut z = 0.0;
        for i in 0..3 {
            z += x[i] * w[i][j];
        }
        h[j] = x[j] + z.tanh();
    }
    let mut loss = 0.0;
    for j in 0..3 {
        loss += h[j] * h[j];
    }
    0.5 * loss
}

#[test]
fn residual_block_against_the_hand_written_backward_pass() -> TestResult {
    let w = [[0.2, -0.4, 0.1], [0.5, 0.3, -0.2], [-0.1, 0.6, 0.4]];
    for x in [[1.0, -0.5, 0.25], [0.3, 0.9, -1.1]] {
        let got = residual_block_grad(x, w)?;
        assert_eq!(got.value, residual_block(x, w));
        // h = x + tanh(xW); h̄ = h; z̄ = h̄ ⊙ (1 − a²); x̄ = h̄ + z̄Wᵀ; W̄ = xᵀz̄.
        let mut a = [0.0; 3];
        let mut h = [0.0; 3];
        for j in 0..3 {
            a[j] = (0..3).map(|i| x[i] * w[i][j]).sum::<f64>().tanh();
            h[j] = x[j] + a[j];
        }
        let zbar: Vec<f64> = (0..3).map(|j| h[j] * (1.0 - a[j] * a[j])).collect();
        let (dx, dw) = got.gradient;
        for i in 0..3 {
            let want = h[i] + (0..3).map(|j| zbar[j] * w[i][j]).sum::<f64>();
            assert_close(dx[i], want, CLOSED);
            for j in 0..3 {
                assert_close(dw[i][j], x[i] * zbar[j], CLOSED);
            }
        }
        assert!(residual_block_check(x, w)?.passed());
    }
    Ok(())
}

#[differentiable]
fn gelu(x: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
}

#[test]
fn gelu_tanh_approximation_against_ridders() -> TestResult {
    for x in [-1.5, 0.2, 2.3] {
        let got = gelu_grad(x)?;
        assert_eq!(got.value, gelu(x));
        assert_close(got.gradient, derivative(gelu, x), NUMERIC);
        assert!(gelu_check(x)?.passed());
    }
    Ok(())
}

#[differentiable]
fn swish(x: f64) -> f64 {
    x * sigmoid(x)
}

#[test]
fn swish_gradient_closed_form() -> TestResult {
    for x in [-2.0, 0.5, 3.0] {
        let got = swish_grad(x)?;
        assert_eq!(got.value, swish(x));
        let s = 1.0 / (1.0 + (-x).exp());
        assert_close(got.gradient, s + x * s * (1.0 - s), CLOSED);
        assert!(swish_check(x)?.passed());
    }
    Ok(())
}

#[differentiable]
fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

#[test]
fn softplus_gradient_is_the_sigmoid() -> TestResult {
    for x in [-3.0, 0.0, 1.7] {
        let got = softplus_grad(x)?;
        assert_eq!(got.value, softplus(x));
        assert_close(got.gradient, 1.0 / (1.0 + (-x).exp()), CLOSED);
        assert!(softplus_check(x)?.passed());
    }
    Ok(())
}

#[differentiable]
fn leaky_relu(x: f64) -> f64 {
    if x > 0.0 {
        x
    } else {
        0.01 * x
    }
}

#[test]
fn leaky_relu_slopes() -> TestResult {
    for (x, slope) in [(2.0, 1.0), (-3.0, 0.01), (0.4, 1.0)] {
        let got = leaky_relu_grad(x)?;
        assert_eq!(got.value, leaky_relu(x));
        assert_close(got.gradient, slope, CLOSED);
        assert!(leaky_relu_check(x)?.passed());
    }
    Ok(())
}

#[differentiable]
fn l2_penalty(w: &[f64], #[constant] lambda: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..w.len() {
        total += w[i] * w[i];
    }
    0.5 * lambda * total
}

#[test]
fn weight_decay_gradient_is_lambda_w() -> TestResult {
    for w in [vec![0.5, -1.5, 2.0], vec![0.0, 3.0]] {
        let got = l2_penalty_grad(&w, 0.1)?;
        assert_eq!(got.value, l2_penalty(&w, 0.1));
        let want: Vec<f64> = w.iter().map(|v| 0.1 * v).collect();
        assert_all_close(&got.gradient, &want, CLOSED);
        assert!(l2_penalty_check(&w, 0.1)?.passed());
    }
    Ok(())
}

#[differentiable]
fn cosine_similarity(a: [f64; 3], b: [f64; 3]) -> f64 {
    let mut dot = 0.0;
    let mut na = 0.0;
    let mut nb = 0.0;
    for i in 0..3 {
        dot += a[i] * b[i];
        na += a[i] * a[i];
        nb += b[i] * b[i];
    }
    dot / (na.sqrt() * nb.sqrt())
}

#[test]
fn cosine_similarity_gradient_is_orthogonal_to_a() -> TestResult {
    for (a, b) in [
        ([1.0, 2.0, -0.5], [0.3, -1.0, 2.0]),
        ([0.2, 0.1, 0.9], [1.0, 1.0, 1.0]),
    ] {
        let got = cosine_similarity_grad(a, b)?;
        assert_eq!(got.value, cosine_similarity(a, b));
        // ∂c/∂a = b/(|a||b|) − c·a/|a|².
        let na = a.iter().map(|v| v * v).sum::<f64>().sqrt();
        let nb = b.iter().map(|v| v * v).sum::<f64>().sqrt();
        let c = got.value;
        for i in 0..3 {
            assert_close(
                got.gradient.0[i],
                b[i] / (na * nb) - c * a[i] / (na * na),
                CLOSED,
            );
            assert_close(
                got.gradient.1[i],
                a[i] / (na * nb) - c * b[i] / (nb * nb),
                CLOSED,
            );
        }
        assert!(cosine_similarity_check(a, b)?.passed());
    }
    Ok(())
}

#[differentiable]
fn two_layer_sigmoid(
    w1: [[f64; 2]; 2],
    b1: [f64; 2],
    w2: [f64; 2],
    x: [f64; 2],
    #[constant] t: f64,
) -> f64 {
    let mut y = 0.0;
    for j in 0..2 {
        let mut z = b1[j];
        for i in 0..2 {
            z += x[i] * w1[i][j];
        }
        y += sigmoid(z) * w2[j];
    }
    let e = y - t;
    0.5 * e * e
}

#[test]
fn two_layer_sigmoid_network_against_ridders() -> TestResult {
    let w1 = [[0.5, -0.3], [0.8, 0.1]];
    let b1 = [0.05, -0.2];
    let w2 = [1.2, -0.7];
    for x in [[1.0, 0.5], [-0.6, 2.0]] {
        let got = two_layer_sigmoid_grad(w1, b1, w2, x, 0.3)?;
        assert_eq!(got.value, two_layer_sigmoid(w1, b1, w2, x, 0.3));
        let at = [w1.flat(), b1.to_vec(), w2.to_vec(), x.to_vec()].concat();
        let f = |p: &[f64]| {
            let w1 = [arr(p), arr(&p[2..])];
            two_layer_sigmoid(w1, arr(&p[4..]), arr(&p[6..]), arr(&p[8..]), 0.3)
        };
        assert_numeric(&got.gradient, f, &at);
        assert!(two_layer_sigmoid_check(w1, b1, w2, x, 0.3)?.passed());
    }
    Ok(())
}

#[differentiable]
fn attention_readout(q: [f64; 3], k: [[f64; 3]; 3], v: [f64; 3]) -> f64 {
    let scale = 1.0 / 3.0_f64.sqrt();
    let mut s = [0.0; 3];
    for j in 0..3 {
        for c in 0..3 {
            s[j] += q[c] * k[j][c];
        }
        s[j] *= scale;
    }
    let mut top = s[0];
    for j in 1..3 {
        top = top.max(s[j]);
    }
    let shift = detach(top);
    let mut e = [0.0; 3];
    let mut total = 0.0;
    for j in 0..3 {
        e[j] = (s[j] - shift).exp();
        total += e[j];
    }
    let mut out = 0.0;
    for j in 0..3 {
        out += e[j] / total * v[j];
    }
    out
}

#[test]
fn one_query_attention_against_ridders() -> TestResult {
    let k = [[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [-0.6, 0.2, 0.9]];
    let v = [1.0, -2.0, 0.5];
    for q in [[0.4, 0.1, -0.3], [1.5, -0.7, 0.2]] {
        let got = attention_readout_grad(q, k, v)?;
        assert_eq!(got.value, attention_readout(q, k, v));
        let at = [q.to_vec(), k.flat(), v.to_vec()].concat();
        let f = |p: &[f64]| {
            attention_readout(
                arr(p),
                [arr(&p[3..]), arr(&p[6..]), arr(&p[9..])],
                arr(&p[12..]),
            )
        };
        assert_numeric(&got.gradient, f, &at);
        assert!(attention_readout_check(q, k, v)?.passed());
    }
    Ok(())
}

#[differentiable]
fn embedding_probe(table: [[f64; 2]; 4], token: usize, #[constant] g: [f64; 2]) -> f64 {
    let row = table[token];
    g[0] * row[0] + g[1] * row[1]
}

#[test]
fn embedding_gradient_lands_on_one_row() -> TestResult {
    let table = [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8]];
    let g = [1.5, -2.0];
    for token in [0, 2, 3] {
        let got = embedding_probe_grad(table, token, g)?;
        assert_eq!(got.value, embedding_probe(table, token, g));
        let mut want = [[0.0; 2]; 4];
        want[token] = g;
        assert_eq!(got.gradient, want);
    }
    Ok(())
}

#[differentiable]
fn batch_mse(w: [f64; 2], b: f64, #[constant] xs: [[f64; 2]; 4], #[constant] ys: [f64; 4]) -> f64 {
    let mut loss = 0.0;
    for r in 0..4 {
        let pred = w[0] * xs[r][0] + w[1] * xs[r][1] + b;
        loss += (pred - ys[r]).powi(2);
    }
    loss / 4.0
}

#[test]
fn batch_regression_gradient_is_the_normal_equations_residual() -> TestResult {
    let xs = [[1.0, 2.0], [0.5, -1.0], [-1.5, 0.3], [2.0, 0.0]];
    let ys = [1.0, 0.0, -2.0, 3.0];
    for (w, b) in [([0.5, 0.5], 0.0), ([-1.0, 2.0], 0.7)] {
        let got = batch_mse_grad(w, b, xs, ys)?;
        assert_eq!(got.value, batch_mse(w, b, xs, ys));
        let (mut dw, mut db) = ([0.0; 2], 0.0);
        for r in 0..4 {
            let e = w[0] * xs[r][0] + w[1] * xs[r][1] + b - ys[r];
            dw[0] += e * xs[r][0] / 2.0;
            dw[1] += e * xs[r][1] / 2.0;
            db += e / 2.0;
        }
        assert_all_close(&got.gradient.0, &dw, CLOSED);
        assert_close(got.gradient.1, db, CLOSED);
        assert!(batch_mse_check(w, b, xs, ys)?.passed());
    }
    Ok(())
}

#[differentiable]
fn log_sum_exp(z: [f64; 4]) -> f64 {
    let mut m = z[0];
    for i in 1..4 {
        if z[i] > m {
            m = z[i];
        }
    }
    let m = detach(m);
    let mut s = 0.0;
    for i in 0..4 {
        s += (z[i] - m).exp();
    }
    m + s.ln()
}

#[test]
fn log_sum_exp_gradient_is_the_softmax() -> TestResult {
    for z in [[1.0, 2.0, 3.0, 4.0], [-0.5, 10.0, 9.5, 0.0]] {
        let got = log_sum_exp_grad(z)?;
        assert_eq!(got.value, log_sum_exp(z));
        let total: f64 = z.iter().map(|v| v.exp()).sum();
        let want: Vec<f64> = z.iter().map(|v| v.exp() / total).collect();
        assert_all_close(&got.gradient, &want, CLOSED);
        assert!(log_sum_exp_check(z)?.passed());
    }
    Ok(())
}

#[differentiable]
fn dropout_probe(x: [f64; 4], #[constant] keep: [bool; 4], #[constant] p: f64) -> f64 {
    let mut out = 0.0;
    for i in 0..4 {
        if keep[i] {
            out += x[i] * x[i] / (1.0 - p);
        }
    }
    out
}

#[test]
fn dropout_passes_gradient_only_through_kept_units() -> TestResult {
    let keep = [true, false, true, true];
    for x in [[1.0, 2.0, 3.0, 4.0], [-0.5, 0.5, 0.25, -2.0]] {
        let got = dropout_probe_grad(x, keep, 0.25)?;
        assert_eq!(got.value, dropout_probe(x, keep, 0.25));
        let want: Vec<f64> = (0..4)
            .map(|i| if keep[i] { 2.0 * x[i] / 0.75 } else { 0.0 })
            .collect();
        assert_all_close(&got.gradient, &want, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn kl_divergence(p: [f64; 3], q: [f64; 3]) -> f64 {
    let mut kl = 0.0;
    for i in 0..3 {
        kl += p[i] * (p[i] / q[i]).ln();
    }
    kl
}

#[test]
fn kl_divergence_closed_form() -> TestResult {
    for (p, q) in [
        ([0.2, 0.5, 0.3], [0.3, 0.3, 0.4]),
        ([0.6, 0.1, 0.3], [0.1, 0.8, 0.1]),
    ] {
        let got = kl_divergence_grad(p, q)?;
        assert_eq!(got.value, kl_divergence(p, q));
        for i in 0..3 {
            assert_close(got.gradient.0[i], (p[i] / q[i]).ln() + 1.0, CLOSED);
            assert_close(got.gradient.1[i], -p[i] / q[i], CLOSED);
        }
        assert!(kl_divergence_check(p, q)?.passed());
    }
    Ok(())
}

#[differentiable]
fn hinge(w: [f64; 2], x: [f64; 2], #[constant] y: f64) -> f64 {
    let margin = y * (w[0] * x[0] + w[1] * x[1]);
    (1.0 - margin).max(0.0)
}

#[test]
fn hinge_loss_is_active_only_inside_the_margin() -> TestResult {
    let x = [1.0, -2.0];
    for (w, y) in [([0.3, 0.1], 1.0), ([1.0, -1.0], 1.0), ([0.2, 0.4], -1.0)] {
        let got = hinge_grad(w, x, y)?;
        assert_eq!(got.value, hinge(w, x, y));
        let margin = y * (w[0] * x[0] + w[1] * x[1]);
        assert!((margin - 1.0).abs() > 0.05, "point away from the kink");
        let active = if margin < 1.0 { 1.0 } else { 0.0 };
        let (dw, dx) = got.gradient;
        for i in 0..2 {
            assert_close(dw[i], -active * y * x[i], CLOSED);
            assert_close(dx[i], -active * y * w[i], CLOSED);
        }
    }
    Ok(())
}

#[differentiable]
fn smoothed_cross_entropy(z: [f64; 3], target: usize, #[constant] eps: f64) -> f64 {
    let top = detach(z[0].max(z[1]).max(z[2]));
    let mut total = 0.0;
    for k in 0..3 {
        total += (z[k] - top).exp();
    }
    let log_total = total.ln() + top;
    let mut loss = 0.0;
    for k in 0..3 {
        let q = if k == target { 1.0 - eps } else { eps / 2.0 };
        loss -= q * (z[k] - log_total);
    }
    loss
}

#[test]
fn label_smoothing_gradient_is_p_minus_q() -> TestResult {
    for (z, target) in [([1.0, -0.5, 0.3], 0), ([0.2, 2.5, -1.0], 2)] {
        let got = smoothed_cross_entropy_grad(z, target, 0.1)?;
        assert_eq!(got.value, smoothed_cross_entropy(z, target, 0.1));
        let total: f64 = z.iter().map(|v| v.exp()).sum();
        let want: Vec<f64> = (0..3)
            .map(|k| z[k].exp() / total - if k == target { 0.9 } else { 0.05 })
            .collect();
        assert_all_close(&got.gradient, &want, CLOSED);
        assert!(smoothed_cross_entropy_check(z, target, 0.1)?.passed());
    }
    Ok(())
}
