//! Later course exercises built from the same pieces: a 1-D convolution,
//! max pooling, an unrolled RNN, a gated unit, an Adam step, triplet and
//! negative-sampling losses, batch normalisation over a minibatch, and a
//! causal attention head over `Vec<Vec<f64>>`. Ridders' differences of the
//! plain twin (tolerance `NUMERIC`) unless the derivative is one line.

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn conv1d_energy(signal: [f64; 6], kernel: [f64; 3]) -> f64 {
    let mut out = [0.0; 4];
    for t in 0..4 {
        for k in 0..3 {
            out[t] += signal[t + k] * kernel[k];
        }
    }
    let mut energy = 0.0;
    for t in 0..4 {
        energy += out[t] * out[t];
    }
    energy
}

#[test]
fn valid_convolution_against_ridders() -> TestResult {
    let kernel = [0.25, -0.5, 1.0];
    for signal in [
        [1.0, 2.0, -1.0, 0.5, 3.0, -2.0],
        [0.1, 0.0, 0.3, -0.7, 0.2, 0.9],
    ] {
        let got = conv1d_energy_grad(signal, kernel)?;
        assert_eq!(got.value, conv1d_energy(signal, kernel));
        let at = [signal.to_vec(), kernel.to_vec()].concat();
        assert_numeric(&got.gradient, |p| conv1d_energy(arr(p), arr(&p[6..])), &at);
        assert!(conv1d_energy_check(signal, kernel)?.passed());
    }
    Ok(())
}

#[differentiable]
fn max_pool_sum(x: [f64; 6]) -> f64 {
    let mut total = 0.0;
    for w in 0..3 {
        let a = x[2 * w];
        let b = x[2 * w + 1];
        total += if a > b { a } else { b };
    }
    total
}

#[test]
fn max_pooling_routes_the_gradient_to_the_winner() -> TestResult {
    let got = max_pool_sum_grad([1.0, 3.0, -2.0, -5.0, 0.5, 0.7])?;
    assert_eq!(got.value, 3.0 - 2.0 + 0.7);
    assert_eq!(got.gradient, [0.0, 1.0, 1.0, 0.0, 0.0, 1.0]);
    Ok(())
}

#[differentiable]
fn rnn_final_state(w_h: f64, w_x: f64, b: f64, #[constant] xs: &[f64]) -> f64 {
    let mut h = 0.0;
    for t in 0..xs.len() {
        h = (w_h * h + w_x * xs[t] + b).tanh();
    }
    h
}

#[test]
fn backpropagation_through_time_against_ridders() -> TestResult {
    let xs = [0.5, -1.0, 0.25, 2.0];
    for at in [[0.8, 0.5, 0.1], [-0.3, 1.2, -0.2]] {
        let got = rnn_final_state_grad(at[0], at[1], at[2], &xs)?;
        assert_eq!(got.value, rnn_final_state(at[0], at[1], at[2], &xs));
        assert_numeric(
            &got.gradient,
            |p| rnn_final_state(p[0], p[1], p[2], &xs),
            &at,
        );
        assert!(rnn_final_state_check(at[0], at[1], at[2], &xs)?.passed());
    }
    Ok(())
}

#[differentiable]
fn gated_unit(x: f64, h: f64, w: [f64; 4]) -> f64 {
    let z = sigmoid(w[0] * x + w[1] * h);
    let candidate = (w[2] * x + w[3] * h).tanh();
    (1.0 - z) * h + z * candidate
}

#[test]
fn a_gru_style_gate_against_ridders() -> TestResult {
    let w = [0.5, -0.4, 1.1, 0.3];
    for (x, h) in [(1.0, 0.2), (-0.5, -0.8)] {
        let got = gated_unit_grad(x, h, w)?;
        assert_eq!(got.value, gated_unit(x, h, w));
        let at = [vec![x, h], w.to_vec()].concat();
        assert_numeric(&got.gradient, |p| gated_unit(p[0], p[1], arr(&p[2..])), &at);
        assert!(gated_unit_check(x, h, w)?.passed());
    }
    Ok(())
}

#[differentiable]
fn adam_step(w: f64, g: f64, m: f64, v: f64, #[constant] t: i32) -> f64 {
    let (beta1, beta2, lr, eps) = (0.9, 0.999, 0.01, 1e-8);
    let m_new = beta1 * m + (1.0 - beta1) * g;
    let v_new = beta2 * v + (1.0 - beta2) * g * g;
    let m_hat = m_new / (1.0 - f64::powi(beta1, t));
    let v_hat = v_new / (1.0 - f64::powi(beta2, t));
    w - lr * m_hat / (v_hat.sqrt() + eps)
}

#[test]
fn one_adam_update_against_ridders() -> TestResult {
    for at in [[1.0, 0.5, 0.1, 0.01], [-0.3, -2.0, 0.0, 0.5]] {
        let got = adam_step_grad(at[0], at[1], at[2], at[3], 3)?;
        assert_eq!(got.value, adam_step(at[0], at[1], at[2], at[3], 3));
        assert_numeric(&got.gradient, |p| adam_step(p[0], p[1], p[2], p[3], 3), &at);
        assert_eq!(got.gradient.0, 1.0, "the step is w minus a term free of w");
    }
    Ok(())
}

#[differentiable]
fn triplet_loss(anchor: [f64; 2], positive: [f64; 2], negative: [f64; 2]) -> f64 {
    let mut dp = 0.0;
    let mut dn = 0.0;
    for i in 0..2 {
        dp += (anchor[i] - positive[i]).powi(2);
        dn += (anchor[i] - negative[i]).powi(2);
    }
    relu(dp - dn + 0.5)
}

#[test]
fn triplet_loss_inside_and_outside_the_margin() -> TestResult {
    let (a, p) = ([0.0, 0.0], [1.0, 0.0]);
    // Active: dp − dn + 0.5 = 1 − 0.25 + 0.5 > 0.
    let got = triplet_loss_grad(a, p, [0.5, 0.0])?;
    assert_eq!(got.value, triplet_loss(a, p, [0.5, 0.0]));
    assert_eq!(got.gradient, ([-1.0, 0.0], [2.0, -0.0], [-1.0, 0.0]));
    // Inactive: the negative is far away.
    let got = triplet_loss_grad(a, p, [3.0, 0.0])?;
    assert_eq!(got.value, 0.0);
    assert_eq!(got.gradient.flat(), vec![0.0; 6]);
    Ok(())
}

#[differentiable]
fn negative_sampling(center: [f64; 3], context: [f64; 3], noise: [[f64; 3]; 2]) -> f64 {
    let mut pos = 0.0;
    for i in 0..3 {
        pos += center[i] * context[i];
    }
    let mut loss = -sigmoid(pos).ln();
    for k in 0..2 {
        let mut neg = 0.0;
        for i in 0..3 {
            neg += center[i] * noise[k][i];
        }
        loss -= sigmoid(-neg).ln();
    }
    loss
}

#[test]
fn word2vec_negative_sampling_closed_form() -> TestResult {
    let (c, o) = ([0.2, -0.1, 0.4], [0.5, 0.3, -0.2]);
    let noise = [[0.1, 0.6, -0.3], [-0.4, 0.2, 0.5]];
    let got = negative_sampling_grad(c, o, noise)?;
    assert_eq!(got.value, negative_sampling(c, o, noise));
    // ∂/∂c = (σ(c·o) − 1) o + Σ_k σ(c·n_k) n_k.
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let s = |z: f64| 1.0 / (1.0 + (-z).exp());
    let (dc, d_o, dn) = got.gradient;
    for i in 0..3 {
        let want = (s(dot(c, o)) - 1.0) * o[i]
            + s(dot(c, noise[0])) * noise[0][i]
            + s(dot(c, noise[1])) * noise[1][i];
        assert_close(dc[i], want, CLOSED);
        assert_close(d_o[i], (s(dot(c, o)) - 1.0) * c[i], CLOSED);
        for k in 0..2 {
            assert_close(dn[k][i], s(dot(c, noise[k])) * c[i], CLOSED);
        }
    }
    Ok(())
}

#[differentiable]
fn batch_norm_probe(x: [f64; 4], gamma: f64, beta: f64, #[constant] g: [f64; 4]) -> f64 {
    let mut mean = 0.0;
    for b in 0..4 {
        mean += x[b];
    }
    mean /= 4.0;
    let mut var = 0.0;
    for b in 0..4 {
        var += (x[b] - mean).powi(2);
    }
    var /= 4.0;
    let mut out = 0.0;
    for b in 0..4 {
        out += g[b] * (gamma * (x[b] - mean) / (var + 1e-5).sqrt() + beta);
    }
    out
}

#[test]
fn batch_norm_over_a_minibatch_against_ridders() -> TestResult {
    let g = [1.0, -1.0, 0.5, 2.0];
    for x in [[0.5, 1.5, -0.5, 2.0], [3.0, 2.9, 3.2, 2.5]] {
        let got = batch_norm_probe_grad(x, 1.2, 0.1, g)?;
        assert_eq!(got.value, batch_norm_probe(x, 1.2, 0.1, g));
        let at = [x.to_vec(), vec![1.2, 0.1]].concat();
        assert_numeric(
            &got.gradient,
            |p| batch_norm_probe(arr(p), p[4], p[5], g),
            &at,
        );
        // β̄ = Σ g exactly.
        assert_close(got.gradient.2, 2.5, CLOSED);
        assert!(batch_norm_probe_check(x, 1.2, 0.1, g)?.passed());
    }
    Ok(())
}

#[differentiable]
fn causal_head(x: Vec<Vec<f64>>, #[constant] o_bar: &[f64]) -> f64 {
    let t_len = x.len();
    let mut loss = 0.0;
    for i in 0..t_len {
        let mut scores = vec![0.0; i + 1];
        for j in 0..i + 1 {
            for c in 0..x[i].len() {
                scores[j] += x[i][c] * x[j][c];
            }
        }
        let mut top = scores[0];
        for j in 1..i + 1 {
            top = top.max(scores[j]);
        }
        let shift = detach(top);
        let mut total = 0.0;
        for j in 0..i + 1 {
            total += (scores[j] - shift).exp();
        }
        let mut out = 0.0;
        for j in 0..i + 1 {
            out += (scores[j] - shift).exp() / total * x[j][0];
        }
        loss += o_bar[i] * out;
    }
    loss
}

#[test]
fn causal_self_attention_over_nested_vecs_against_ridders() -> TestResult {
    let o_bar = [1.0, -0.5, 0.25];
    for x in [
        vec![vec![0.5, -0.2], vec![0.1, 0.4], vec![-0.3, 0.8]],
        vec![vec![1.0, 0.0], vec![0.2, -0.6], vec![0.7, 0.3]],
    ] {
        let got = causal_head_grad(x.clone(), &o_bar)?;
        assert_eq!(got.value, causal_head(x.clone(), &o_bar));
        let unflat = |p: &[f64]| -> Vec<Vec<f64>> { p.chunks(2).map(|r| r.to_vec()).collect() };
        assert_numeric(&got.gradient, |p| causal_head(unflat(p), &o_bar), &x.flat());
        assert!(causal_head_check(x, &o_bar)?.passed());
    }
    Ok(())
}

#[differentiable]
fn perceptron_margin(w: [f64; 3], #[constant] xs: [[f64; 3]; 3], #[constant] ys: [f64; 3]) -> f64 {
    let mut loss = 0.0;
    for n in 0..3 {
        let mut score = 0.0;
        for i in 0..3 {
            score += w[i] * xs[n][i];
        }
        if ys[n] * score < 0.0 {
            loss -= ys[n] * score;
        }
    }
    loss
}

#[test]
fn perceptron_loss_counts_only_the_mistakes() -> TestResult {
    let xs = [[1.0, 2.0, 1.0], [-1.0, 0.5, 1.0], [0.5, -1.0, 1.0]];
    let ys = [1.0, -1.0, 1.0];
    let w = [0.5, -0.5, 0.1];
    let got = perceptron_margin_grad(w, xs, ys)?;
    assert_eq!(got.value, perceptron_margin(w, xs, ys));
    // Scores: −0.4 (mistake, y = 1), −0.65 (right), 0.85 (right).
    assert_all_close(&got.gradient, &[-1.0, -2.0, -1.0], CLOSED);
    Ok(())
}

#[differentiable]
fn poly_regression(coeffs: Vec<f64>, #[constant] xs: &[f64], #[constant] ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for n in 0..xs.len() {
        let mut pred = 0.0;
        let mut power = 1.0;
        for k in 0..coeffs.len() {
            pred += coeffs[k] * power;
            power *= xs[n];
        }
        loss += (pred - ys[n]).powi(2);
    }
    loss / xs.len() as f64
}

#[test]
fn polynomial_regression_gradient_is_the_vandermonde_residual() -> TestResult {
    let (xs, ys) = ([0.0, 0.5, 1.0, 1.5], [1.0, 0.2, -0.5, 0.3]);
    let coeffs = vec![0.5, -1.0, 0.25];
    let got = poly_regression_grad(coeffs.clone(), &xs, &ys)?;
    assert_eq!(got.value, poly_regression(coeffs.clone(), &xs, &ys));
    let mut want = [0.0; 3];
    for n in 0..4 {
        let pred: f64 = (0..3).map(|k| coeffs[k] * xs[n].powi(k as i32)).sum();
        for k in 0..3 {
            want[k] += 2.0 * (pred - ys[n]) * xs[n].powi(k as i32) / 4.0;
        }
    }
    assert_all_close(&got.gradient, &want, CLOSED);
    assert!(poly_regression_check(coeffs, &xs, &ys)?.passed());
    Ok(())
}
