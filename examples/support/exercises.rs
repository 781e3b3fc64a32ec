//! Lesson 15's examples as the functions a student annotates. Each is plain
//! Rust; `#[differentiable]` adds its exact gradient (`_grad`) and a
//! central-difference check (`_check`).
//!
//! Shared by `examples/lesson15_*.rs` and `tests/lesson15.rs` through
//! `#[path]`, so not every item is used by every includer.
#![allow(dead_code)]
// Index loops on purpose: they read like the lesson's matrix formulas.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;

/// The toy network `ŷ = tanh(x W₁) W₂` with squared error `½(ŷ − t)²`
/// (d_in = 4, d_h = 3), row convention as in the lesson.
#[differentiable]
pub fn mlp_loss(w1: [[f64; 3]; 4], w2: [f64; 3], x: [f64; 4], #[constant] t: f64) -> f64 {
    let mut y_hat = 0.0;
    for j in 0..3 {
        let mut z = 0.0;
        for i in 0..4 {
            z += x[i] * w1[i][j];
        }
        y_hat += z.tanh() * w2[j];
    }
    let error = y_hat - t;
    0.5 * error * error
}

/// A linear layer `y = x W + b` seen through a fixed upstream gradient:
/// `L = ⟨y, ȳ⟩`, so `∂L/∂y = ȳ` exactly and the gradients are the lesson's
/// `W̄ = xᵀȳ`, `b̄ = ȳ`, `x̄ = ȳWᵀ`.
#[differentiable]
pub fn linear_probe(
    w: [[f64; 3]; 5],
    b: [f64; 3],
    x: [f64; 5],
    #[constant] y_bar: [f64; 3],
) -> f64 {
    let mut loss = 0.0;
    for j in 0..3 {
        let mut y = b[j];
        for i in 0..5 {
            y += x[i] * w[i][j];
        }
        loss += y_bar[j] * y;
    }
    loss
}

/// The same layer over a minibatch of four rows: `L = Σ_r ⟨X_r W + b, Ȳ_r⟩`,
/// a sum (no 1/B), so `W̄ = XᵀȲ` and `b̄ = 1ᵀȲ`.
#[differentiable]
pub fn batch_probe(
    w: [[f64; 3]; 5],
    b: [f64; 3],
    x: [[f64; 5]; 4],
    #[constant] y_bar: [[f64; 3]; 4],
) -> f64 {
    let mut loss = 0.0;
    for r in 0..4 {
        for j in 0..3 {
            let mut y = b[j];
            for i in 0..5 {
                y += x[r][i] * w[i][j];
            }
            loss += y_bar[r][j] * y;
        }
    }
    loss
}

/// Softmax cross-entropy `−log softmax(z)_y`, through the log-sum-exp with
/// the maximum subtracted (detached: softmax does not change under a shift).
#[differentiable]
pub fn cross_entropy(z: [f64; 4], target: usize) -> f64 {
    let mut top = z[0];
    for k in 1..4 {
        top = top.max(z[k]);
    }
    let shift = detach(top);
    let mut total = 0.0;
    for k in 0..4 {
        total += (z[k] - shift).exp();
    }
    total.ln() + shift - z[target]
}

/// One causal attention head on `T = 4` tokens, `d_model = 4`,
/// `d_k = d_v = 3`, seen through a fixed upstream gradient `Ō`:
/// `L = Σ Ō ⊙ O` with `Q = X W_Q`, `K = X W_K`, `V = X W_V`.
#[differentiable]
pub fn attention_probe(
    x: [[f64; 4]; 4],
    wq: [[f64; 3]; 4],
    wk: [[f64; 3]; 4],
    wv: [[f64; 3]; 4],
    #[constant] o_bar: [[f64; 3]; 4],
) -> f64 {
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
    attention_from_qkv(q, k, v, o_bar)
}

/// The head from `Q`, `K`, `V` on: `S = QKᵀ/√d_k` with the causal mask
/// (token `i` sees tokens `j ≤ i`; masked entries are simply left out of the
/// softmax), `A = softmax_row(S)`, `O = A V`, `L = Σ Ō ⊙ O`.
#[differentiable]
pub fn attention_from_qkv(
    q: [[f64; 3]; 4],
    k: [[f64; 3]; 4],
    v: [[f64; 3]; 4],
    #[constant] o_bar: [[f64; 3]; 4],
) -> f64 {
    let scale = 1.0 / 3.0_f64.sqrt();
    let mut loss = 0.0;
    for i in 0..4 {
        let mut s = [0.0; 4];
        for j in 0..i + 1 {
            for c in 0..3 {
                s[j] += q[i][c] * k[j][c];
            }
            s[j] *= scale;
        }
        let mut top = s[0];
        for j in 1..i + 1 {
            top = top.max(s[j]);
        }
        let shift = detach(top);
        let mut e = [0.0; 4];
        let mut total = 0.0;
        for j in 0..i + 1 {
            e[j] = (s[j] - shift).exp();
            total += e[j];
        }
        for c in 0..3 {
            let mut o = 0.0;
            for j in 0..i + 1 {
                o += e[j] / total * v[j][c];
            }
            loss += o_bar[i][c] * o;
        }
    }
    loss
}

/// Width of the gradient-flow stacks.
pub const WIDTH: usize = 32;

/// A stack of linear layers `h ← h J` (or `h ← h + h J` with residuals),
/// read out as `⟨h_N, g⟩`: its gradient with respect to the input `h` is the
/// costate at that depth, `g J_Nᵀ ⋯ J_1ᵀ`. Passing the tail of the stack
/// gives the costate at any layer.
#[differentiable]
pub fn stack_readout(
    h: Vec<f64>,
    #[constant] layers: &[Vec<Vec<f64>>],
    #[constant] residual: bool,
    #[constant] g: &[f64],
) -> f64 {
    let mut state = h.clone();
    for layer in 0..layers.len() {
        let mut next = vec![0.0; WIDTH];
        for j in 0..WIDTH {
            for i in 0..WIDTH {
                next[j] += state[i] * layers[layer][i][j];
            }
            if residual {
                next[j] += state[j];
            }
        }
        state = next;
    }
    let mut out = 0.0;
    for j in 0..WIDTH {
        out += state[j] * g[j];
    }
    out
}

/// The costate at the input of every layer, each from one reverse pass of
/// `stack_readout` over the tail of the stack that starts there.
pub fn layer_costates(
    layers: &[Vec<Vec<f64>>],
    residual: bool,
    g: &[f64],
    h: &[f64],
) -> Result<Vec<Vec<f64>>, ScalarAutodiffError> {
    (0..layers.len())
        .map(|k| Ok(stack_readout_grad(h.to_vec(), &layers[k..], residual, g)?.gradient))
        .collect()
}

/// Lesson 15's two-layer network at seed 15, input and target as printed there.
pub fn mlp_setup() -> ([[f64; 3]; 4], [f64; 3], [f64; 4], f64) {
    let mut rng = crate::lesson15::Rng::new(15);
    (rng.matrix(0.5), rng.vector(0.5), [0.5, -0.2, 0.1, 0.3], 1.0)
}

/// The relative error of the central difference at W₁(2,1) (one-based) for
/// each step, against the exact reverse-mode gradient.
pub fn step_sweep(steps: &[f64]) -> Result<Vec<f64>, ScalarAutodiffError> {
    let (w1, w2, x, t) = mlp_setup();
    let (dw1, _, _) = mlp_loss_grad(w1, w2, x, t)?.gradient;
    Ok(steps
        .iter()
        .map(|&eps| {
            let at = |delta: f64| {
                let mut w = w1;
                w[1][0] += delta;
                mlp_loss(w, w2, x, t)
            };
            crate::lesson15::rel_err((at(eps) - at(-eps)) / (2.0 * eps), dw1[1][0])
        })
        .collect())
}
