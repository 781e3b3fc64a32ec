//! A corpus for `#[backward(f)]`: lesson 15's four models, each a
//! `#[differentiable]` function with every intermediate named, a backward
//! pass written by hand in the lesson's adjoint notation (`z_bar` is z̄, the
//! adjoint of `f`'s binding `z`), and planted variants with exactly one
//! mistake each, its statement marked with a trailing `planted` comment.
//!
//! | model                   | planted kinds                                   |
//! |-------------------------|-------------------------------------------------|
//! | `mlp_loss`              | derivative, assign, index, overwritten          |
//! | `softmax_cross_entropy` | missing_path, sign                              |
//! | `layer_norm_probe`      | derivative, missing_path, sign                  |
//! | `attention_head`        | assign, index, missing_path, overwritten        |
//!
//! Kinds: `derivative` a wrong local derivative; `assign` `=` where `+=` was
//! needed; `index` a wrong index; `missing_path` a contribution left out;
//! `sign` a flipped sign; `overwritten` a forward value read after a loop
//! overwrote it.
//!
//! The tests: every hand-written backward returns `f_grad`'s gradient to
//! 1e-12 and passes its `_check` (at the point and at a random one); every
//! planted one returns a gradient off by more than 1e-6, and its `_check`
//! names the planted line and the adjoint written there.
// Index loops on purpose: they read like the lesson's matrix formulas.
#![allow(clippy::needless_range_loop)]
// The backward functions spell out `f`'s gradient type, the attention
// head's a tuple of four matrices, as a student would.
#![allow(clippy::type_complexity)]

use autodiff::prelude::*;

use crate::oracle::Flat;

// ---------------------------------------------------------------------------
// (a) The two-layer tanh MLP with squared error.

/// Lesson 15's toy network `ŷ = tanh(x W₁) W₂`, `L = ½(ŷ − t)²`
/// (d_in = 4, d_h = 3), with the pre-activation `z` and the activation `h`
/// of column `j` named.
#[differentiable]
pub fn mlp_loss(w1: [[f64; 3]; 4], w2: [f64; 3], x: [f64; 4], #[constant] t: f64) -> f64 {
    let mut y_hat = 0.0;
    for j in 0..3 {
        let mut z = 0.0;
        for i in 0..4 {
            z += x[i] * w1[i][j];
        }
        let h = z.tanh();
        y_hat += h * w2[j];
    }
    let error = y_hat - t;
    0.5 * error * error
}

/// The backward pass right to left, as the lesson writes it.
#[backward(mlp_loss)]
pub fn mlp_loss_backward(
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    #[constant] t: f64,
) -> ([[f64; 3]; 4], [f64; 3], [f64; 4]) {
    // Forward, keeping h for the backward pass.
    let mut h = [0.0; 3];
    let mut y_hat = 0.0;
    for j in 0..3 {
        let mut z = 0.0;
        for i in 0..4 {
            z += x[i] * w1[i][j];
        }
        h[j] = z.tanh();
        y_hat += h[j] * w2[j];
    }
    let error = y_hat - t;
    // L = ½ error², error = ŷ − t.
    let error_bar = error;
    let y_hat_bar = error_bar;
    let mut w1_bar = [[0.0; 3]; 4];
    let mut w2_bar = [0.0; 3];
    let mut x_bar = [0.0; 4];
    for j in 0..3 {
        // ŷ = Σ_j h_j W2_j
        w2_bar[j] = y_hat_bar * h[j];
        let h_bar = y_hat_bar * w2[j];
        // h = tanh z, tanh' = 1 − tanh²
        let z_bar = h_bar * (1.0 - h[j] * h[j]);
        // z = Σ_i x_i W1_ij
        for i in 0..4 {
            w1_bar[i][j] = x[i] * z_bar;
            x_bar[i] += z_bar * w1[i][j];
        }
    }
    (w1_bar, w2_bar, x_bar)
}

/// tanh' written as 1 − tanh, the square forgotten.
#[backward(mlp_loss)]
pub fn mlp_loss_backward_derivative(
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    #[constant] t: f64,
) -> ([[f64; 3]; 4], [f64; 3], [f64; 4]) {
    let mut h = [0.0; 3];
    let mut y_hat = 0.0;
    for j in 0..3 {
        let mut z = 0.0;
        for i in 0..4 {
            z += x[i] * w1[i][j];
        }
        h[j] = z.tanh();
        y_hat += h[j] * w2[j];
    }
    let error = y_hat - t;
    let error_bar = error;
    let y_hat_bar = error_bar;
    let mut w1_bar = [[0.0; 3]; 4];
    let mut w2_bar = [0.0; 3];
    let mut x_bar = [0.0; 4];
    for j in 0..3 {
        w2_bar[j] = y_hat_bar * h[j];
        let h_bar = y_hat_bar * w2[j];
        let z_bar = h_bar * (1.0 - h[j]); // planted
        for i in 0..4 {
            w1_bar[i][j] = x[i] * z_bar;
            x_bar[i] += z_bar * w1[i][j];
        }
    }
    (w1_bar, w2_bar, x_bar)
}

/// x̄ assigned in the loop over columns instead of summed over them: only
/// the last column's share is left.
#[backward(mlp_loss)]
pub fn mlp_loss_backward_assign(
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    #[constant] t: f64,
) -> ([[f64; 3]; 4], [f64; 3], [f64; 4]) {
    let mut h = [0.0; 3];
    let mut y_hat = 0.0;
    for j in 0..3 {
        let mut z = 0.0;
        for i in 0..4 {
            z += x[i] * w1[i][j];
        }
        h[j] = z.tanh();
        y_hat += h[j] * w2[j];
    }
    let error = y_hat - t;
    let error_bar = error;
    let y_hat_bar = error_bar;
    let mut w1_bar = [[0.0; 3]; 4];
    let mut w2_bar = [0.0; 3];
    let mut x_bar = [0.0; 4];
    for j in 0..3 {
        w2_bar[j] = y_hat_bar * h[j];
        let h_bar = y_hat_bar * w2[j];
        let z_bar = h_bar * (1.0 - h[j] * h[j]);
        for i in 0..4 {
            w1_bar[i][j] = x[i] * z_bar;
            x_bar[i] = z_bar * w1[i][j]; // planted
        }
    }
    (w1_bar, w2_bar, x_bar)
}

/// W̄₁ = xᵀ z̄ with the outer product's indices crossed.
#[backward(mlp_loss)]
pub fn mlp_loss_backward_index(
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    #[constant] t: f64,
) -> ([[f64; 3]; 4], [f64; 3], [f64; 4]) {
    let mut h = [0.0; 3];
    let mut y_hat = 0.0;
    for j in 0..3 {
        let mut z = 0.0;
        for i in 0..4 {
            z += x[i] * w1[i][j];
        }
        h[j] = z.tanh();
        y_hat += h[j] * w2[j];
    }
    let error = y_hat - t;
    let error_bar = error;
    let y_hat_bar = error_bar;
    let mut w1_bar = [[0.0; 3]; 4];
    let mut w2_bar = [0.0; 3];
    let mut x_bar = [0.0; 4];
    for j in 0..3 {
        w2_bar[j] = y_hat_bar * h[j];
        let h_bar = y_hat_bar * w2[j];
        let z_bar = h_bar * (1.0 - h[j] * h[j]);
        for i in 0..4 {
            w1_bar[i][j] = x[j] * z_bar; // planted
            x_bar[i] += z_bar * w1[i][j];
        }
    }
    (w1_bar, w2_bar, x_bar)
}

/// The forward pass keeps one `z` for all columns; the backward pass
/// writes tanh' as sech² z and reads `z` after the loop overwrote it, so
/// every column gets the last column's slope.
#[backward(mlp_loss)]
pub fn mlp_loss_backward_overwritten(
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    #[constant] t: f64,
) -> ([[f64; 3]; 4], [f64; 3], [f64; 4]) {
    let mut h = [0.0; 3];
    let mut y_hat = 0.0;
    let mut z = 0.0;
    for j in 0..3 {
        z = 0.0;
        for i in 0..4 {
            z += x[i] * w1[i][j];
        }
        h[j] = z.tanh();
        y_hat += h[j] * w2[j];
    }
    let error = y_hat - t;
    let error_bar = error;
    let y_hat_bar = error_bar;
    let mut w1_bar = [[0.0; 3]; 4];
    let mut w2_bar = [0.0; 3];
    let mut x_bar = [0.0; 4];
    for j in 0..3 {
        w2_bar[j] = y_hat_bar * h[j];
        let h_bar = y_hat_bar * w2[j];
        let z_bar = h_bar / (z.cosh() * z.cosh()); // planted
        for i in 0..4 {
            w1_bar[i][j] = x[i] * z_bar;
            x_bar[i] += z_bar * w1[i][j];
        }
    }
    (w1_bar, w2_bar, x_bar)
}

// ---------------------------------------------------------------------------
// (b) Softmax + cross-entropy.

/// `L = −log p_y` with `p = softmax(z)`: the exponentials `e`, their sum `s`
/// and the probabilities `p` named (no shift: the logits here are small).
#[differentiable]
pub fn softmax_cross_entropy(z: [f64; 4], #[constant] target: usize) -> f64 {
    let mut e = [0.0; 4];
    let mut s = 0.0;
    for k in 0..4 {
        e[k] = z[k].exp();
        s += e[k];
    }
    let mut p = [0.0; 4];
    for k in 0..4 {
        p[k] = e[k] / s;
    }
    -p[target].ln()
}

/// Through `p`, `s` and `e` one step at a time; the result is the lesson's
/// `z̄ = p − 1_y`.
#[backward(softmax_cross_entropy)]
pub fn softmax_cross_entropy_backward(z: [f64; 4], #[constant] target: usize) -> [f64; 4] {
    // Forward.
    let mut e = [0.0; 4];
    let mut s = 0.0;
    for k in 0..4 {
        e[k] = z[k].exp();
        s += e[k];
    }
    let p: [f64; 4] = std::array::from_fn(|k| e[k] / s);
    // L = −ln p_y
    let mut p_bar = [0.0; 4];
    p_bar[target] = -1.0 / p[target];
    // p_k = e_k / s: s is read by every p_k
    let mut s_bar = 0.0;
    for k in 0..4 {
        s_bar -= p_bar[k] * e[k] / (s * s);
    }
    // e_k reaches L directly through p_k and through s; e_k = exp z_k
    let mut e_bar = [0.0; 4];
    let mut z_bar = [0.0; 4];
    for k in 0..4 {
        e_bar[k] = p_bar[k] / s + s_bar;
        z_bar[k] = e_bar[k] * e[k];
    }
    z_bar
}

/// ē forgets the path through the sum `s` (z̄ comes out −1_y).
// The left-out path leaves s̄ unread: rustc's hint at the mistake.
#[allow(unused_variables, unused_assignments)]
#[backward(softmax_cross_entropy)]
pub fn softmax_cross_entropy_backward_missing_path(
    z: [f64; 4],
    #[constant] target: usize,
) -> [f64; 4] {
    let mut e = [0.0; 4];
    let mut s = 0.0;
    for k in 0..4 {
        e[k] = z[k].exp();
        s += e[k];
    }
    let p: [f64; 4] = std::array::from_fn(|k| e[k] / s);
    let mut p_bar = [0.0; 4];
    p_bar[target] = -1.0 / p[target];
    let mut s_bar = 0.0;
    for k in 0..4 {
        s_bar -= p_bar[k] * e[k] / (s * s);
    }
    let mut e_bar = [0.0; 4];
    let mut z_bar = [0.0; 4];
    for k in 0..4 {
        e_bar[k] = p_bar[k] / s; // planted
        z_bar[k] = e_bar[k] * e[k];
    }
    z_bar
}

/// ∂(e/s)/∂s = −e/s² with its minus sign lost.
#[backward(softmax_cross_entropy)]
pub fn softmax_cross_entropy_backward_sign(z: [f64; 4], #[constant] target: usize) -> [f64; 4] {
    let mut e = [0.0; 4];
    let mut s = 0.0;
    for k in 0..4 {
        e[k] = z[k].exp();
        s += e[k];
    }
    let p: [f64; 4] = std::array::from_fn(|k| e[k] / s);
    let mut p_bar = [0.0; 4];
    p_bar[target] = -1.0 / p[target];
    let mut s_bar = 0.0;
    for k in 0..4 {
        s_bar += p_bar[k] * e[k] / (s * s); // planted
    }
    let mut e_bar = [0.0; 4];
    let mut z_bar = [0.0; 4];
    for k in 0..4 {
        e_bar[k] = p_bar[k] / s + s_bar;
        z_bar[k] = e_bar[k] * e[k];
    }
    z_bar
}

// ---------------------------------------------------------------------------
// (c) Layer norm of one row.

/// LayerNorm of one row, `y = γ ⊙ x̂ + β` with `x̂ = (x − mean)/√(var + ε)`,
/// seen through a fixed upstream weight: `L = Σ upstream ⊙ y`, so ȳ is the
/// weight. `mean`, `var`, `inv_std`, `xhat` and `y` named.
#[differentiable]
pub fn layer_norm_probe(
    x: [f64; 4],
    gamma: [f64; 4],
    beta: [f64; 4],
    #[constant] upstream: [f64; 4],
) -> f64 {
    let mut mean = 0.0;
    for i in 0..4 {
        mean += x[i] / 4.0;
    }
    let mut var = 0.0;
    for i in 0..4 {
        var += (x[i] - mean) * (x[i] - mean) / 4.0;
    }
    let inv_std = 1.0 / (var + 1e-5).sqrt();
    let mut loss = 0.0;
    for i in 0..4 {
        let xhat = (x[i] - mean) * inv_std;
        let y = gamma[i] * xhat + beta[i];
        loss += upstream[i] * y;
    }
    loss
}

/// The three paths from x to L (through x̂ directly, through var, through
/// mean) summed at the end.
#[backward(layer_norm_probe)]
pub fn layer_norm_probe_backward(
    x: [f64; 4],
    gamma: [f64; 4],
    beta: [f64; 4],
    #[constant] upstream: [f64; 4],
) -> ([f64; 4], [f64; 4], [f64; 4]) {
    // Forward.
    let mut mean = 0.0;
    for i in 0..4 {
        mean += x[i] / 4.0;
    }
    let xc: [f64; 4] = std::array::from_fn(|i| x[i] - mean);
    let mut var = 0.0;
    for i in 0..4 {
        var += xc[i] * xc[i] / 4.0;
    }
    let inv_std = 1.0 / (var + 1e-5).sqrt();
    let xhat: [f64; 4] = std::array::from_fn(|i| xc[i] * inv_std);
    let _ = beta; // β̄ = ȳ needs no value of β
                  // y_i = γ_i x̂_i + β_i, ȳ_i = upstream_i
    let mut gamma_bar = [0.0; 4];
    let mut beta_bar = [0.0; 4];
    let mut xhat_bar = [0.0; 4];
    for i in 0..4 {
        let y_bar = upstream[i];
        gamma_bar[i] = y_bar * xhat[i];
        beta_bar[i] = y_bar;
        xhat_bar[i] = y_bar * gamma[i];
    }
    // x̂_i = (x_i − mean) · inv_std
    let mut inv_std_bar = 0.0;
    for i in 0..4 {
        inv_std_bar += xhat_bar[i] * xc[i];
    }
    // inv_std = (var + ε)^(−1/2)
    let var_bar = -0.5 * inv_std_bar * inv_std * inv_std * inv_std;
    // mean is read by every x̂_i and every term of var
    let mut mean_bar = 0.0;
    for i in 0..4 {
        mean_bar -= xhat_bar[i] * inv_std + var_bar * 2.0 * xc[i] / 4.0;
    }
    // x_i is read by x̂_i, by var and by mean
    let mut x_bar = [0.0; 4];
    for i in 0..4 {
        x_bar[i] = xhat_bar[i] * inv_std + var_bar * 2.0 * xc[i] / 4.0 + mean_bar / 4.0;
    }
    (x_bar, gamma_bar, beta_bar)
}

/// d(var + ε)^(−1/2)/dvar written as −½(var + ε)^(−1/2): the power not
/// lowered.
#[backward(layer_norm_probe)]
pub fn layer_norm_probe_backward_derivative(
    x: [f64; 4],
    gamma: [f64; 4],
    beta: [f64; 4],
    #[constant] upstream: [f64; 4],
) -> ([f64; 4], [f64; 4], [f64; 4]) {
    let mut mean = 0.0;
    for i in 0..4 {
        mean += x[i] / 4.0;
    }
    let xc: [f64; 4] = std::array::from_fn(|i| x[i] - mean);
    let mut var = 0.0;
    for i in 0..4 {
        var += xc[i] * xc[i] / 4.0;
    }
    let inv_std = 1.0 / (var + 1e-5).sqrt();
    let xhat: [f64; 4] = std::array::from_fn(|i| xc[i] * inv_std);
    let _ = beta;
    let mut gamma_bar = [0.0; 4];
    let mut beta_bar = [0.0; 4];
    let mut xhat_bar = [0.0; 4];
    for i in 0..4 {
        let y_bar = upstream[i];
        gamma_bar[i] = y_bar * xhat[i];
        beta_bar[i] = y_bar;
        xhat_bar[i] = y_bar * gamma[i];
    }
    let mut inv_std_bar = 0.0;
    for i in 0..4 {
        inv_std_bar += xhat_bar[i] * xc[i];
    }
    let var_bar = -0.5 * inv_std_bar * inv_std; // planted
    let mut mean_bar = 0.0;
    for i in 0..4 {
        mean_bar -= xhat_bar[i] * inv_std + var_bar * 2.0 * xc[i] / 4.0;
    }
    let mut x_bar = [0.0; 4];
    for i in 0..4 {
        x_bar[i] = xhat_bar[i] * inv_std + var_bar * 2.0 * xc[i] / 4.0 + mean_bar / 4.0;
    }
    (x_bar, gamma_bar, beta_bar)
}

/// x̄ without the path through the mean.
// The left-out path leaves mean̄ unread: rustc's hint at the mistake.
#[allow(unused_variables, unused_assignments)]
#[backward(layer_norm_probe)]
pub fn layer_norm_probe_backward_missing_path(
    x: [f64; 4],
    gamma: [f64; 4],
    beta: [f64; 4],
    #[constant] upstream: [f64; 4],
) -> ([f64; 4], [f64; 4], [f64; 4]) {
    let mut mean = 0.0;
    for i in 0..4 {
        mean += x[i] / 4.0;
    }
    let xc: [f64; 4] = std::array::from_fn(|i| x[i] - mean);
    let mut var = 0.0;
    for i in 0..4 {
        var += xc[i] * xc[i] / 4.0;
    }
    let inv_std = 1.0 / (var + 1e-5).sqrt();
    let xhat: [f64; 4] = std::array::from_fn(|i| xc[i] * inv_std);
    let _ = beta;
    let mut gamma_bar = [0.0; 4];
    let mut beta_bar = [0.0; 4];
    let mut xhat_bar = [0.0; 4];
    for i in 0..4 {
        let y_bar = upstream[i];
        gamma_bar[i] = y_bar * xhat[i];
        beta_bar[i] = y_bar;
        xhat_bar[i] = y_bar * gamma[i];
    }
    let mut inv_std_bar = 0.0;
    for i in 0..4 {
        inv_std_bar += xhat_bar[i] * xc[i];
    }
    let var_bar = -0.5 * inv_std_bar * inv_std * inv_std * inv_std;
    let mut mean_bar = 0.0;
    for i in 0..4 {
        mean_bar -= xhat_bar[i] * inv_std + var_bar * 2.0 * xc[i] / 4.0;
    }
    let mut x_bar = [0.0; 4];
    for i in 0..4 {
        x_bar[i] = xhat_bar[i] * inv_std + var_bar * 2.0 * xc[i] / 4.0; // planted
    }
    (x_bar, gamma_bar, beta_bar)
}

/// mean̄ summed with the wrong sign: x̂_i = (x_i − mean) · inv_std reads
/// mean with a minus.
#[backward(layer_norm_probe)]
pub fn layer_norm_probe_backward_sign(
    x: [f64; 4],
    gamma: [f64; 4],
    beta: [f64; 4],
    #[constant] upstream: [f64; 4],
) -> ([f64; 4], [f64; 4], [f64; 4]) {
    let mut mean = 0.0;
    for i in 0..4 {
        mean += x[i] / 4.0;
    }
    let xc: [f64; 4] = std::array::from_fn(|i| x[i] - mean);
    let mut var = 0.0;
    for i in 0..4 {
        var += xc[i] * xc[i] / 4.0;
    }
    let inv_std = 1.0 / (var + 1e-5).sqrt();
    let xhat: [f64; 4] = std::array::from_fn(|i| xc[i] * inv_std);
    let _ = beta;
    let mut gamma_bar = [0.0; 4];
    let mut beta_bar = [0.0; 4];
    let mut xhat_bar = [0.0; 4];
    for i in 0..4 {
        let y_bar = upstream[i];
        gamma_bar[i] = y_bar * xhat[i];
        beta_bar[i] = y_bar;
        xhat_bar[i] = y_bar * gamma[i];
    }
    let mut inv_std_bar = 0.0;
    for i in 0..4 {
        inv_std_bar += xhat_bar[i] * xc[i];
    }
    let var_bar = -0.5 * inv_std_bar * inv_std * inv_std * inv_std;
    let mut mean_bar = 0.0;
    for i in 0..4 {
        mean_bar += xhat_bar[i] * inv_std + var_bar * 2.0 * xc[i] / 4.0; // planted
    }
    let mut x_bar = [0.0; 4];
    for i in 0..4 {
        x_bar[i] = xhat_bar[i] * inv_std + var_bar * 2.0 * xc[i] / 4.0 + mean_bar / 4.0;
    }
    (x_bar, gamma_bar, beta_bar)
}

// ---------------------------------------------------------------------------
// (d) One causal attention head.

/// One causal attention head on T = 4 tokens, d_model = 4, d_k = d_v = 3,
/// in one function: `Q = X W_Q`, `K = X W_K`, `V = X W_V`,
/// `S = QKᵀ/√d_k` on and below the diagonal (token `i` sees `j ≤ i`),
/// `A = softmax_row(S)` (zero above the diagonal), `O = A V`, and
/// `L = Σ upstream ⊙ O`, so Ō is the upstream weight.
#[differentiable]
pub fn attention_head(
    x: [[f64; 4]; 4],
    wq: [[f64; 3]; 4],
    wk: [[f64; 3]; 4],
    wv: [[f64; 3]; 4],
    #[constant] upstream: [[f64; 3]; 4],
) -> f64 {
    let scale = 1.0 / 3.0_f64.sqrt();
    let mut q = [[0.0; 3]; 4];
    let mut k = [[0.0; 3]; 4];
    let mut v = [[0.0; 3]; 4];
    for t in 0..4 {
        for c in 0..3 {
            for r in 0..4 {
                q[t][c] += x[t][r] * wq[r][c];
                k[t][c] += x[t][r] * wk[r][c];
                v[t][c] += x[t][r] * wv[r][c];
            }
        }
    }
    let mut s = [[0.0; 4]; 4];
    let mut a = [[0.0; 4]; 4];
    for i in 0..4 {
        let mut total = 0.0;
        for j in 0..i + 1 {
            for c in 0..3 {
                s[i][j] += q[i][c] * k[j][c] * scale;
            }
            total += s[i][j].exp();
        }
        for j in 0..i + 1 {
            a[i][j] = s[i][j].exp() / total;
        }
    }
    let mut o = [[0.0; 3]; 4];
    let mut loss = 0.0;
    for i in 0..4 {
        for c in 0..3 {
            for j in 0..4 {
                o[i][c] += a[i][j] * v[j][c];
            }
            loss += upstream[i][c] * o[i][c];
        }
    }
    loss
}

/// The lesson's four steps: through `O = A V`, the row-wise softmax,
/// `S = QKᵀ/√d_k`, and the three projections, X̄ summing their branches.
#[backward(attention_head)]
pub fn attention_head_backward(
    x: [[f64; 4]; 4],
    wq: [[f64; 3]; 4],
    wk: [[f64; 3]; 4],
    wv: [[f64; 3]; 4],
    #[constant] upstream: [[f64; 3]; 4],
) -> ([[f64; 4]; 4], [[f64; 3]; 4], [[f64; 3]; 4], [[f64; 3]; 4]) {
    let scale = 1.0 / 3.0_f64.sqrt();
    // Forward: the projections, then A row by row.
    let mut q = [[0.0; 3]; 4];
    let mut k = [[0.0; 3]; 4];
    let mut v = [[0.0; 3]; 4];
    for t in 0..4 {
        for c in 0..3 {
            for r in 0..4 {
                q[t][c] += x[t][r] * wq[r][c];
                k[t][c] += x[t][r] * wk[r][c];
                v[t][c] += x[t][r] * wv[r][c];
            }
        }
    }
    let mut a = [[0.0; 4]; 4];
    for i in 0..4 {
        let mut e = [0.0; 4];
        let mut total = 0.0;
        for j in 0..i + 1 {
            let mut score = 0.0;
            for c in 0..3 {
                score += q[i][c] * k[j][c] * scale;
            }
            e[j] = score.exp();
            total += e[j];
        }
        for j in 0..i + 1 {
            a[i][j] = e[j] / total;
        }
    }
    // Step 1: O = A V, and Ō is the upstream weight.
    let o_bar = upstream;
    let mut a_bar = [[0.0; 4]; 4];
    let mut v_bar = [[0.0; 3]; 4];
    for i in 0..4 {
        for j in 0..4 {
            for c in 0..3 {
                a_bar[i][j] += o_bar[i][c] * v[j][c];
                v_bar[j][c] += a[i][j] * o_bar[i][c];
            }
        }
    }
    // Step 2: the row-wise softmax, s̄ = a ⊙ (ā − (ā·a) 1).
    let mut s_bar = [[0.0; 4]; 4];
    for i in 0..4 {
        let mut weighted = 0.0;
        for j in 0..i + 1 {
            weighted += a_bar[i][j] * a[i][j];
        }
        for j in 0..i + 1 {
            s_bar[i][j] = a[i][j] * (a_bar[i][j] - weighted);
        }
    }
    // Step 3: S = QKᵀ/√d_k.
    let mut q_bar = [[0.0; 3]; 4];
    let mut k_bar = [[0.0; 3]; 4];
    for i in 0..4 {
        for j in 0..i + 1 {
            for c in 0..3 {
                q_bar[i][c] += s_bar[i][j] * k[j][c] * scale;
                k_bar[j][c] += s_bar[i][j] * q[i][c] * scale;
            }
        }
    }
    // Step 4: the projections; X̄ sums the three branches (fan-in at X).
    let mut x_bar = [[0.0; 4]; 4];
    let mut wq_bar = [[0.0; 3]; 4];
    let mut wk_bar = [[0.0; 3]; 4];
    let mut wv_bar = [[0.0; 3]; 4];
    for t in 0..4 {
        for c in 0..3 {
            for r in 0..4 {
                wq_bar[r][c] += x[t][r] * q_bar[t][c];
                wk_bar[r][c] += x[t][r] * k_bar[t][c];
                wv_bar[r][c] += x[t][r] * v_bar[t][c];
                x_bar[t][r] +=
                    q_bar[t][c] * wq[r][c] + k_bar[t][c] * wk[r][c] + v_bar[t][c] * wv[r][c];
            }
        }
    }
    (x_bar, wq_bar, wk_bar, wv_bar)
}

/// V̄ = AᵀŌ assigned in the loop over query rows instead of summed: only
/// the last row's share is left.
#[backward(attention_head)]
pub fn attention_head_backward_assign(
    x: [[f64; 4]; 4],
    wq: [[f64; 3]; 4],
    wk: [[f64; 3]; 4],
    wv: [[f64; 3]; 4],
    #[constant] upstream: [[f64; 3]; 4],
) -> ([[f64; 4]; 4], [[f64; 3]; 4], [[f64; 3]; 4], [[f64; 3]; 4]) {
    let scale = 1.0 / 3.0_f64.sqrt();
    let mut q = [[0.0; 3]; 4];
    let mut k = [[0.0; 3]; 4];
    let mut v = [[0.0; 3]; 4];
    for t in 0..4 {
        for c in 0..3 {
            for r in 0..4 {
                q[t][c] += x[t][r] * wq[r][c];
                k[t][c] += x[t][r] * wk[r][c];
                v[t][c] += x[t][r] * wv[r][c];
            }
        }
    }
    let mut a = [[0.0; 4]; 4];
    for i in 0..4 {
        let mut e = [0.0; 4];
        let mut total = 0.0;
        for j in 0..i + 1 {
            let mut score = 0.0;
            for c in 0..3 {
                score += q[i][c] * k[j][c] * scale;
            }
            e[j] = score.exp();
            total += e[j];
        }
        for j in 0..i + 1 {
            a[i][j] = e[j] / total;
        }
    }
    let o_bar = upstream;
    let mut a_bar = [[0.0; 4]; 4];
    let mut v_bar = [[0.0; 3]; 4];
    for i in 0..4 {
        for j in 0..4 {
            for c in 0..3 {
                a_bar[i][j] += o_bar[i][c] * v[j][c];
                v_bar[j][c] = a[i][j] * o_bar[i][c]; // planted
            }
        }
    }
    let mut s_bar = [[0.0; 4]; 4];
    for i in 0..4 {
        let mut weighted = 0.0;
        for j in 0..i + 1 {
            weighted += a_bar[i][j] * a[i][j];
        }
        for j in 0..i + 1 {
            s_bar[i][j] = a[i][j] * (a_bar[i][j] - weighted);
        }
    }
    let mut q_bar = [[0.0; 3]; 4];
    let mut k_bar = [[0.0; 3]; 4];
    for i in 0..4 {
        for j in 0..i + 1 {
            for c in 0..3 {
                q_bar[i][c] += s_bar[i][j] * k[j][c] * scale;
                k_bar[j][c] += s_bar[i][j] * q[i][c] * scale;
            }
        }
    }
    let mut x_bar = [[0.0; 4]; 4];
    let mut wq_bar = [[0.0; 3]; 4];
    let mut wk_bar = [[0.0; 3]; 4];
    let mut wv_bar = [[0.0; 3]; 4];
    for t in 0..4 {
        for c in 0..3 {
            for r in 0..4 {
                wq_bar[r][c] += x[t][r] * q_bar[t][c];
                wk_bar[r][c] += x[t][r] * k_bar[t][c];
                wv_bar[r][c] += x[t][r] * v_bar[t][c];
                x_bar[t][r] +=
                    q_bar[t][c] * wq[r][c] + k_bar[t][c] * wk[r][c] + v_bar[t][c] * wv[r][c];
            }
        }
    }
    (x_bar, wq_bar, wk_bar, wv_bar)
}

/// K̄ = S̄ᵀQ/√d_k reading the query of the key's row, `q[j]`, not `q[i]`.
#[backward(attention_head)]
pub fn attention_head_backward_index(
    x: [[f64; 4]; 4],
    wq: [[f64; 3]; 4],
    wk: [[f64; 3]; 4],
    wv: [[f64; 3]; 4],
    #[constant] upstream: [[f64; 3]; 4],
) -> ([[f64; 4]; 4], [[f64; 3]; 4], [[f64; 3]; 4], [[f64; 3]; 4]) {
    let scale = 1.0 / 3.0_f64.sqrt();
    let mut q = [[0.0; 3]; 4];
    let mut k = [[0.0; 3]; 4];
    let mut v = [[0.0; 3]; 4];
    for t in 0..4 {
        for c in 0..3 {
            for r in 0..4 {
                q[t][c] += x[t][r] * wq[r][c];
                k[t][c] += x[t][r] * wk[r][c];
                v[t][c] += x[t][r] * wv[r][c];
            }
        }
    }
    let mut a = [[0.0; 4]; 4];
    for i in 0..4 {
        let mut e = [0.0; 4];
        let mut total = 0.0;
        for j in 0..i + 1 {
            let mut score = 0.0;
            for c in 0..3 {
                score += q[i][c] * k[j][c] * scale;
            }
            e[j] = score.exp();
            total += e[j];
        }
        for j in 0..i + 1 {
            a[i][j] = e[j] / total;
        }
    }
    let o_bar = upstream;
    let mut a_bar = [[0.0; 4]; 4];
    let mut v_bar = [[0.0; 3]; 4];
    for i in 0..4 {
        for j in 0..4 {
            for c in 0..3 {
                a_bar[i][j] += o_bar[i][c] * v[j][c];
                v_bar[j][c] += a[i][j] * o_bar[i][c];
            }
        }
    }
    let mut s_bar = [[0.0; 4]; 4];
    for i in 0..4 {
        let mut weighted = 0.0;
        for j in 0..i + 1 {
            weighted += a_bar[i][j] * a[i][j];
        }
        for j in 0..i + 1 {
            s_bar[i][j] = a[i][j] * (a_bar[i][j] - weighted);
        }
    }
    let mut q_bar = [[0.0; 3]; 4];
    let mut k_bar = [[0.0; 3]; 4];
    for i in 0..4 {
        for j in 0..i + 1 {
            for c in 0..3 {
                q_bar[i][c] += s_bar[i][j] * k[j][c] * scale;
                k_bar[j][c] += s_bar[i][j] * q[j][c] * scale; // planted
            }
        }
    }
    let mut x_bar = [[0.0; 4]; 4];
    let mut wq_bar = [[0.0; 3]; 4];
    let mut wk_bar = [[0.0; 3]; 4];
    let mut wv_bar = [[0.0; 3]; 4];
    for t in 0..4 {
        for c in 0..3 {
            for r in 0..4 {
                wq_bar[r][c] += x[t][r] * q_bar[t][c];
                wk_bar[r][c] += x[t][r] * k_bar[t][c];
                wv_bar[r][c] += x[t][r] * v_bar[t][c];
                x_bar[t][r] +=
                    q_bar[t][c] * wq[r][c] + k_bar[t][c] * wk[r][c] + v_bar[t][c] * wv[r][c];
            }
        }
    }
    (x_bar, wq_bar, wk_bar, wv_bar)
}

/// X̄ without the branch through K (the fan-in at X is missing a term).
#[backward(attention_head)]
pub fn attention_head_backward_missing_path(
    x: [[f64; 4]; 4],
    wq: [[f64; 3]; 4],
    wk: [[f64; 3]; 4],
    wv: [[f64; 3]; 4],
    #[constant] upstream: [[f64; 3]; 4],
) -> ([[f64; 4]; 4], [[f64; 3]; 4], [[f64; 3]; 4], [[f64; 3]; 4]) {
    let scale = 1.0 / 3.0_f64.sqrt();
    let mut q = [[0.0; 3]; 4];
    let mut k = [[0.0; 3]; 4];
    let mut v = [[0.0; 3]; 4];
    for t in 0..4 {
        for c in 0..3 {
            for r in 0..4 {
                q[t][c] += x[t][r] * wq[r][c];
                k[t][c] += x[t][r] * wk[r][c];
                v[t][c] += x[t][r] * wv[r][c];
            }
        }
    }
    let mut a = [[0.0; 4]; 4];
    for i in 0..4 {
        let mut e = [0.0; 4];
        let mut total = 0.0;
        for j in 0..i + 1 {
            let mut score = 0.0;
            for c in 0..3 {
                score += q[i][c] * k[j][c] * scale;
            }
            e[j] = score.exp();
            total += e[j];
        }
        for j in 0..i + 1 {
            a[i][j] = e[j] / total;
        }
    }
    let o_bar = upstream;
    let mut a_bar = [[0.0; 4]; 4];
    let mut v_bar = [[0.0; 3]; 4];
    for i in 0..4 {
        for j in 0..4 {
            for c in 0..3 {
                a_bar[i][j] += o_bar[i][c] * v[j][c];
                v_bar[j][c] += a[i][j] * o_bar[i][c];
            }
        }
    }
    let mut s_bar = [[0.0; 4]; 4];
    for i in 0..4 {
        let mut weighted = 0.0;
        for j in 0..i + 1 {
            weighted += a_bar[i][j] * a[i][j];
        }
        for j in 0..i + 1 {
            s_bar[i][j] = a[i][j] * (a_bar[i][j] - weighted);
        }
    }
    let mut q_bar = [[0.0; 3]; 4];
    let mut k_bar = [[0.0; 3]; 4];
    for i in 0..4 {
        for j in 0..i + 1 {
            for c in 0..3 {
                q_bar[i][c] += s_bar[i][j] * k[j][c] * scale;
                k_bar[j][c] += s_bar[i][j] * q[i][c] * scale;
            }
        }
    }
    let mut x_bar = [[0.0; 4]; 4];
    let mut wq_bar = [[0.0; 3]; 4];
    let mut wk_bar = [[0.0; 3]; 4];
    let mut wv_bar = [[0.0; 3]; 4];
    for t in 0..4 {
        for c in 0..3 {
            for r in 0..4 {
                wq_bar[r][c] += x[t][r] * q_bar[t][c];
                wk_bar[r][c] += x[t][r] * k_bar[t][c];
                wv_bar[r][c] += x[t][r] * v_bar[t][c];
                x_bar[t][r] += q_bar[t][c] * wq[r][c] + v_bar[t][c] * wv[r][c]; // planted
            }
        }
    }
    (x_bar, wq_bar, wk_bar, wv_bar)
}

/// The forward pass keeps one row of softmax numerators `e` and one `total`
/// for all rows; step 2 writes `a_ij` as `e_j / total` and so reads the last
/// row's values for every row.
#[backward(attention_head)]
pub fn attention_head_backward_overwritten(
    x: [[f64; 4]; 4],
    wq: [[f64; 3]; 4],
    wk: [[f64; 3]; 4],
    wv: [[f64; 3]; 4],
    #[constant] upstream: [[f64; 3]; 4],
) -> ([[f64; 4]; 4], [[f64; 3]; 4], [[f64; 3]; 4], [[f64; 3]; 4]) {
    let scale = 1.0 / 3.0_f64.sqrt();
    let mut q = [[0.0; 3]; 4];
    let mut k = [[0.0; 3]; 4];
    let mut v = [[0.0; 3]; 4];
    for t in 0..4 {
        for c in 0..3 {
            for r in 0..4 {
                q[t][c] += x[t][r] * wq[r][c];
                k[t][c] += x[t][r] * wk[r][c];
                v[t][c] += x[t][r] * wv[r][c];
            }
        }
    }
    let mut a = [[0.0; 4]; 4];
    let mut e = [0.0; 4];
    let mut total = 0.0;
    for i in 0..4 {
        total = 0.0;
        for j in 0..i + 1 {
            let mut score = 0.0;
            for c in 0..3 {
                score += q[i][c] * k[j][c] * scale;
            }
            e[j] = score.exp();
            total += e[j];
        }
        for j in 0..i + 1 {
            a[i][j] = e[j] / total;
        }
    }
    let o_bar = upstream;
    let mut a_bar = [[0.0; 4]; 4];
    let mut v_bar = [[0.0; 3]; 4];
    for i in 0..4 {
        for j in 0..4 {
            for c in 0..3 {
                a_bar[i][j] += o_bar[i][c] * v[j][c];
                v_bar[j][c] += a[i][j] * o_bar[i][c];
            }
        }
    }
    let mut s_bar = [[0.0; 4]; 4];
    for i in 0..4 {
        let mut weighted = 0.0;
        for j in 0..i + 1 {
            weighted += a_bar[i][j] * a[i][j];
        }
        for j in 0..i + 1 {
            s_bar[i][j] = e[j] / total * (a_bar[i][j] - weighted); // planted
        }
    }
    let mut q_bar = [[0.0; 3]; 4];
    let mut k_bar = [[0.0; 3]; 4];
    for i in 0..4 {
        for j in 0..i + 1 {
            for c in 0..3 {
                q_bar[i][c] += s_bar[i][j] * k[j][c] * scale;
                k_bar[j][c] += s_bar[i][j] * q[i][c] * scale;
            }
        }
    }
    let mut x_bar = [[0.0; 4]; 4];
    let mut wq_bar = [[0.0; 3]; 4];
    let mut wk_bar = [[0.0; 3]; 4];
    let mut wv_bar = [[0.0; 3]; 4];
    for t in 0..4 {
        for c in 0..3 {
            for r in 0..4 {
                wq_bar[r][c] += x[t][r] * q_bar[t][c];
                wk_bar[r][c] += x[t][r] * k_bar[t][c];
                wv_bar[r][c] += x[t][r] * v_bar[t][c];
                x_bar[t][r] +=
                    q_bar[t][c] * wq[r][c] + k_bar[t][c] * wk[r][c] + v_bar[t][c] * wv[r][c];
            }
        }
    }
    (x_bar, wq_bar, wk_bar, wv_bar)
}

// ---------------------------------------------------------------------------
// Points, the planted lines, and comparisons.

/// A generic matrix: `scale · sin(phase + 1.7 n + 0.31 n²)` for the `n`-th
/// entry in reading order. No entry is zero, no two are equal, and nothing
/// is symmetric.
fn grid<const R: usize, const C: usize>(phase: f64, scale: f64) -> [[f64; C]; R] {
    std::array::from_fn(|r| {
        std::array::from_fn(|c| {
            let n = (r * C + c) as f64;
            scale * (phase + 1.7 * n + 0.31 * n * n).sin()
        })
    })
}

fn row<const N: usize>(phase: f64, scale: f64) -> [f64; N] {
    grid::<1, N>(phase, scale)[0]
}

/// Lesson 15's input and target, generic weights.
fn mlp_point() -> ([[f64; 3]; 4], [f64; 3], [f64; 4], f64) {
    (grid(0.3, 0.5), row(1.1, 0.5), [0.5, -0.2, 0.1, 0.3], 1.0)
}

/// Lesson 15's logits; the target is neither the largest nor the smallest.
fn softmax_point() -> ([f64; 4], usize) {
    ([2.0, 1.0, 0.5, -0.5], 2)
}

fn layer_norm_point() -> ([f64; 4], [f64; 4], [f64; 4], [f64; 4]) {
    (row(0.7, 1.5), row(2.1, 1.0), row(3.4, 0.5), row(4.9, 1.0))
}

type M43 = [[f64; 3]; 4];
type M44 = [[f64; 4]; 4];

fn attention_point() -> (M44, M43, M43, M43, M43) {
    (
        grid(0.2, 1.0),
        grid(1.0, 0.5),
        grid(2.0, 0.5),
        grid(3.0, 0.5),
        grid(4.0, 1.0),
    )
}

/// The 1-based line of the first line ending in the `planted` comment after
/// `fn <fn_name>(` in this file: where the planted statement starts.
fn planted_line(fn_name: &str) -> u32 {
    let source = include_str!("backward_corpus.rs");
    let header = format!("fn {fn_name}(");
    let mut lines = source.lines().enumerate();
    lines
        .find(|(_, line)| {
            line.trim_start().starts_with(&header) || line.contains(&format!(" {header}"))
        })
        .unwrap_or_else(|| panic!("no `{header}` in backward_corpus.rs"));
    let (index, _) = lines
        .find(|(_, line)| line.trim_end().ends_with("// planted"))
        .unwrap_or_else(|| panic!("no planted line after `{header}`"));
    index as u32 + 1
}

/// The hand-written gradient equals `f_grad`'s, component by component, to
/// 1e-12 relative.
fn assert_matches(name: &str, yours: &impl Flat, exact: &impl Flat) {
    let (yours, exact) = (yours.components(), exact.components());
    assert_eq!(yours.len(), exact.len(), "{name}");
    for (n, (a, b)) in yours.iter().zip(&exact).enumerate() {
        let relative = (a - b).abs() / a.abs().max(b.abs()).max(1e-300);
        assert!(
            relative <= 1e-12,
            "{name}: component {n} is {a}, f_grad says {b} (relative {relative:.1e})"
        );
    }
}

/// The planted gradient is off from `f_grad`'s by more than 1e-6 somewhere.
fn assert_wrong(name: &str, yours: &impl Flat, exact: &impl Flat) {
    let (yours, exact) = (yours.components(), exact.components());
    assert_eq!(yours.len(), exact.len(), "{name}");
    let off = yours
        .iter()
        .zip(&exact)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(
        off > 1e-6,
        "{name}: the planted mistake changes the gradient by only {off:.1e}"
    );
}

// ---------------------------------------------------------------------------
// Live now: the hand-written gradients against f_grad.

type MlpGradient = ([[f64; 3]; 4], [f64; 3], [f64; 4]);
type MlpBackward = fn([[f64; 3]; 4], [f64; 3], [f64; 4], f64) -> MlpGradient;

#[test]
fn mlp_loss_hand_written_backward_matches_f_grad() -> Result<(), ScalarAutodiffError> {
    let (w1, w2, x, t) = mlp_point();
    let exact = mlp_loss_grad(w1, w2, x, t)?.gradient;
    assert_matches(
        "mlp_loss_backward",
        &mlp_loss_backward(w1, w2, x, t),
        &exact,
    );
    Ok(())
}

#[test]
fn mlp_loss_planted_backwards_are_wrong() -> Result<(), ScalarAutodiffError> {
    let (w1, w2, x, t) = mlp_point();
    let exact = mlp_loss_grad(w1, w2, x, t)?.gradient;
    let planted: [(&str, MlpBackward); 4] = [
        ("mlp_loss_backward_derivative", mlp_loss_backward_derivative),
        ("mlp_loss_backward_assign", mlp_loss_backward_assign),
        ("mlp_loss_backward_index", mlp_loss_backward_index),
        (
            "mlp_loss_backward_overwritten",
            mlp_loss_backward_overwritten,
        ),
    ];
    for (name, backward) in planted {
        assert_wrong(name, &backward(w1, w2, x, t), &exact);
    }
    Ok(())
}

type SoftmaxBackward = fn([f64; 4], usize) -> [f64; 4];

#[test]
fn softmax_cross_entropy_hand_written_backward_matches_f_grad() -> Result<(), ScalarAutodiffError> {
    let (z, target) = softmax_point();
    let exact = softmax_cross_entropy_grad(z, target)?.gradient;
    let yours = softmax_cross_entropy_backward(z, target);
    assert_matches("softmax_cross_entropy_backward", &yours, &exact);
    // And it is the lesson's closed form p − 1_y.
    let total: f64 = z.iter().map(|v| v.exp()).sum();
    let closed: [f64; 4] =
        std::array::from_fn(|k| z[k].exp() / total - if k == target { 1.0 } else { 0.0 });
    assert_matches("p − 1_y", &yours, &closed);
    Ok(())
}

#[test]
fn softmax_cross_entropy_planted_backwards_are_wrong() -> Result<(), ScalarAutodiffError> {
    let (z, target) = softmax_point();
    let exact = softmax_cross_entropy_grad(z, target)?.gradient;
    let planted: [(&str, SoftmaxBackward); 2] = [
        (
            "softmax_cross_entropy_backward_missing_path",
            softmax_cross_entropy_backward_missing_path,
        ),
        (
            "softmax_cross_entropy_backward_sign",
            softmax_cross_entropy_backward_sign,
        ),
    ];
    for (name, backward) in planted {
        assert_wrong(name, &backward(z, target), &exact);
    }
    Ok(())
}

type LayerNormGradient = ([f64; 4], [f64; 4], [f64; 4]);
type LayerNormBackward = fn([f64; 4], [f64; 4], [f64; 4], [f64; 4]) -> LayerNormGradient;

#[test]
fn layer_norm_probe_hand_written_backward_matches_f_grad() -> Result<(), ScalarAutodiffError> {
    let (x, gamma, beta, upstream) = layer_norm_point();
    let exact = layer_norm_probe_grad(x, gamma, beta, upstream)?.gradient;
    let yours = layer_norm_probe_backward(x, gamma, beta, upstream);
    assert_matches("layer_norm_probe_backward", &yours, &exact);
    Ok(())
}

#[test]
fn layer_norm_probe_planted_backwards_are_wrong() -> Result<(), ScalarAutodiffError> {
    let (x, gamma, beta, upstream) = layer_norm_point();
    let exact = layer_norm_probe_grad(x, gamma, beta, upstream)?.gradient;
    let planted: [(&str, LayerNormBackward); 3] = [
        (
            "layer_norm_probe_backward_derivative",
            layer_norm_probe_backward_derivative,
        ),
        (
            "layer_norm_probe_backward_missing_path",
            layer_norm_probe_backward_missing_path,
        ),
        (
            "layer_norm_probe_backward_sign",
            layer_norm_probe_backward_sign,
        ),
    ];
    for (name, backward) in planted {
        assert_wrong(name, &backward(x, gamma, beta, upstream), &exact);
    }
    Ok(())
}

type AttentionGradient = (M44, M43, M43, M43);
type AttentionBackward = fn(M44, M43, M43, M43, M43) -> AttentionGradient;

#[test]
fn attention_head_hand_written_backward_matches_f_grad() -> Result<(), ScalarAutodiffError> {
    let (x, wq, wk, wv, upstream) = attention_point();
    let exact = attention_head_grad(x, wq, wk, wv, upstream)?.gradient;
    let yours = attention_head_backward(x, wq, wk, wv, upstream);
    assert_matches("attention_head_backward", &yours, &exact);
    Ok(())
}

#[test]
fn attention_head_planted_backwards_are_wrong() -> Result<(), ScalarAutodiffError> {
    let (x, wq, wk, wv, upstream) = attention_point();
    let exact = attention_head_grad(x, wq, wk, wv, upstream)?.gradient;
    let planted: [(&str, AttentionBackward); 4] = [
        (
            "attention_head_backward_assign",
            attention_head_backward_assign,
        ),
        (
            "attention_head_backward_index",
            attention_head_backward_index,
        ),
        (
            "attention_head_backward_missing_path",
            attention_head_backward_missing_path,
        ),
        (
            "attention_head_backward_overwritten",
            attention_head_backward_overwritten,
        ),
    ];
    for (name, backward) in planted {
        assert_wrong(name, &backward(x, wq, wk, wv, upstream), &exact);
    }
    Ok(())
}

/// Every function named `*_backward_<kind>` has exactly one planted line,
/// inside its own body; the hand-written ones have none; and every
/// attribute sits directly above a `pub fn` of this file.
#[test]
fn the_markers_are_where_planted_line_expects_them() {
    let source = include_str!("backward_corpus.rs");
    let lines: Vec<&str> = source.lines().collect();
    let mut attributes = 0;
    for (n, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("#[backward(") {
            attributes += 1;
            let f = rest.trim_end().strip_suffix(")]").expect("#[backward(f)]");
            assert!(
                lines[n + 1].starts_with("pub fn ")
                    && lines[n + 1].contains(&format!("{f}_backward")),
                "line {}: the attribute is not directly above a backward of `{f}`",
                n + 1
            );
        }
    }
    assert_eq!(attributes, 17);
    let functions: Vec<(usize, &str)> = lines
        .iter()
        .enumerate()
        .filter_map(|(n, line)| {
            let name = line.strip_prefix("pub fn ")?.split('(').next()?;
            name.contains("_backward").then_some((n, name))
        })
        .collect();
    for (index, &(start, name)) in functions.iter().enumerate() {
        let end = functions
            .get(index + 1)
            .map_or(lines.len(), |&(next, _)| next);
        let planted: Vec<usize> = (start..end)
            .filter(|&n| lines[n].trim_end().ends_with("// planted"))
            .collect();
        if name.ends_with("_backward") {
            assert!(
                planted.is_empty(),
                "{name} is meant to be right: {planted:?}"
            );
        } else {
            assert_eq!(planted.len(), 1, "{name}: {planted:?}");
            assert_eq!(planted_line(name), planted[0] as u32 + 1, "{name}");
        }
    }
}

// ---------------------------------------------------------------------------
// The checks.

mod checks {
    use super::*;
    use autodiff::BackwardReport;

    /// The report names the planted line, and the adjoint written there.
    fn assert_caught(name: &str, adjoint: &str, report: &BackwardReport) {
        assert!(!report.passed(), "{name} passed:\n{report}");
        let row = report.first_wrong().unwrap();
        assert_eq!(row.line(), planted_line(name), "{name}:\n{report}");
        assert_eq!(row.name(), adjoint, "{name}:\n{report}");
    }

    #[test]
    fn mlp_loss_backward_passes() -> Result<(), ScalarAutodiffError> {
        let (w1, w2, x, t) = mlp_point();
        let report = mlp_loss_backward_check(w1, w2, x, t)?;
        assert!(report.passed(), "{report}");
        let report = mlp_loss_backward_check_random(15, w1, w2, x, t)?;
        assert!(report.passed(), "{report}");
        Ok(())
    }

    #[test]
    fn mlp_loss_planted_mistakes_are_found_on_their_lines() -> Result<(), ScalarAutodiffError> {
        let (w1, w2, x, t) = mlp_point();
        assert_caught(
            "mlp_loss_backward_derivative",
            "z_bar",
            &mlp_loss_backward_derivative_check(w1, w2, x, t)?,
        );
        assert_caught(
            "mlp_loss_backward_assign",
            "x_bar",
            &mlp_loss_backward_assign_check(w1, w2, x, t)?,
        );
        assert_caught(
            "mlp_loss_backward_index",
            "w1_bar",
            &mlp_loss_backward_index_check(w1, w2, x, t)?,
        );
        assert_caught(
            "mlp_loss_backward_overwritten",
            "z_bar",
            &mlp_loss_backward_overwritten_check(w1, w2, x, t)?,
        );
        Ok(())
    }

    #[test]
    fn softmax_cross_entropy_backward_passes() -> Result<(), ScalarAutodiffError> {
        let (z, target) = softmax_point();
        let report = softmax_cross_entropy_backward_check(z, target)?;
        assert!(report.passed(), "{report}");
        let report = softmax_cross_entropy_backward_check_random(15, z, target)?;
        assert!(report.passed(), "{report}");
        Ok(())
    }

    #[test]
    fn softmax_cross_entropy_planted_mistakes_are_found_on_their_lines(
    ) -> Result<(), ScalarAutodiffError> {
        let (z, target) = softmax_point();
        assert_caught(
            "softmax_cross_entropy_backward_missing_path",
            "e_bar",
            &softmax_cross_entropy_backward_missing_path_check(z, target)?,
        );
        assert_caught(
            "softmax_cross_entropy_backward_sign",
            "s_bar",
            &softmax_cross_entropy_backward_sign_check(z, target)?,
        );
        Ok(())
    }

    #[test]
    fn layer_norm_probe_backward_passes() -> Result<(), ScalarAutodiffError> {
        let (x, gamma, beta, upstream) = layer_norm_point();
        let report = layer_norm_probe_backward_check(x, gamma, beta, upstream)?;
        assert!(report.passed(), "{report}");
        let report = layer_norm_probe_backward_check_random(15, x, gamma, beta, upstream)?;
        assert!(report.passed(), "{report}");
        Ok(())
    }

    #[test]
    fn layer_norm_probe_planted_mistakes_are_found_on_their_lines(
    ) -> Result<(), ScalarAutodiffError> {
        let (x, gamma, beta, upstream) = layer_norm_point();
        assert_caught(
            "layer_norm_probe_backward_derivative",
            "var_bar",
            &layer_norm_probe_backward_derivative_check(x, gamma, beta, upstream)?,
        );
        assert_caught(
            "layer_norm_probe_backward_missing_path",
            "x_bar",
            &layer_norm_probe_backward_missing_path_check(x, gamma, beta, upstream)?,
        );
        assert_caught(
            "layer_norm_probe_backward_sign",
            "mean_bar",
            &layer_norm_probe_backward_sign_check(x, gamma, beta, upstream)?,
        );
        Ok(())
    }

    #[test]
    fn attention_head_backward_passes() -> Result<(), ScalarAutodiffError> {
        let (x, wq, wk, wv, upstream) = attention_point();
        let report = attention_head_backward_check(x, wq, wk, wv, upstream)?;
        assert!(report.passed(), "{report}");
        let report = attention_head_backward_check_random(15, x, wq, wk, wv, upstream)?;
        assert!(report.passed(), "{report}");
        Ok(())
    }

    #[test]
    fn attention_head_planted_mistakes_are_found_on_their_lines() -> Result<(), ScalarAutodiffError>
    {
        let (x, wq, wk, wv, upstream) = attention_point();
        assert_caught(
            "attention_head_backward_assign",
            "v_bar",
            &attention_head_backward_assign_check(x, wq, wk, wv, upstream)?,
        );
        assert_caught(
            "attention_head_backward_index",
            "k_bar",
            &attention_head_backward_index_check(x, wq, wk, wv, upstream)?,
        );
        assert_caught(
            "attention_head_backward_missing_path",
            "x_bar",
            &attention_head_backward_missing_path_check(x, wq, wk, wv, upstream)?,
        );
        assert_caught(
            "attention_head_backward_overwritten",
            "s_bar",
            &attention_head_backward_overwritten_check(x, wq, wk, wv, upstream)?,
        );
        Ok(())
    }
}
