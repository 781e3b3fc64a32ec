//! Lesson 15, backward passes by hand, checked statement by statement.
//!
//! A student writes the backward pass of a `#[differentiable]` function in
//! the lesson's adjoint notation — `z_bar` is z̄ = ∂L/∂z for the binding `z`
//! of the function — and puts `#[backward(f)]` on it. `NAME_check` runs
//! the student's function and the exact reverse pass of `f` side by side
//! and compares every adjoint the student wrote with the exact adjoint of
//! the binding of the same name; the report names the first statement whose
//! adjoint is wrong although every adjoint it reads is right: the line with
//! the mistake.
//!
//! Two of the lesson's models: the two-layer MLP, whose backward pass below
//! is right, and softmax + cross-entropy, whose backward pass has one
//! planted mistake (the statement ending in the `planted` comment).
//!
//! `cargo run --example lesson15_check_my_backward`
// Index loops on purpose: they read like the lesson's matrix formulas.
#![allow(clippy::needless_range_loop)]

#[path = "support/exercises.rs"]
mod exercises;
#[path = "support/lesson15.rs"]
mod lesson15;

use autodiff::prelude::*;

/// The toy network `ŷ = tanh(x W₁) W₂`, `L = ½(ŷ − t)²`, with the
/// pre-activation `z` and the activation `h` of column `j` named, so the
/// backward pass can write `z_bar` and `h_bar`.
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

/// The backward pass right to left: the same parameters as `mlp_loss`, and
/// its gradient (W̄₁, W̄₂, x̄) returned.
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

/// `L = −log p_y` with `p = softmax(z)`: the exponentials `e`, their sum `s`
/// and the probabilities `p` named.
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

/// Through `p`, `s` and `e` one step at a time — with one mistake: the
/// derivative of `e_k / s` with respect to `s` is `−e_k / s²`, and its
/// minus sign is lost.
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
        s_bar += p_bar[k] * e[k] / (s * s); // planted
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

/// The 1-based line of this file's statement ending in the `planted`
/// comment.
fn planted_line() -> u32 {
    let source = include_str!("lesson15_check_my_backward.rs");
    let index = source
        .lines()
        .position(|line| line.trim_end().ends_with("// planted"))
        .expect("a planted line");
    index as u32 + 1
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Lesson 15's network at seed 15, input and target as printed there.
    let (w1, w2, x, t) = exercises::mlp_setup();
    println!("Two-layer MLP, the backward pass by hand:");
    let report = mlp_loss_backward_check(w1, w2, x, t)?;
    print!("{report}");
    let random = mlp_loss_backward_check_random(15, w1, w2, x, t)?;
    println!(
        "every adjoint right: {} here, {} at a random point\n",
        report.passed(),
        random.passed()
    );

    // Lesson 15's logits; the target is the first class.
    let (z, target) = ([2.0, 1.0, 0.5, -0.5], 0);
    println!("Softmax + cross-entropy, the backward pass by hand (one mistake planted):");
    let report = softmax_cross_entropy_backward_check(z, target)?;
    print!("{report}");
    let planted = planted_line();
    match report.first_wrong() {
        Some(row) if row.line() == planted => println!(
            "the check names `{}` on line {}: the planted line",
            row.name(),
            row.line()
        ),
        Some(row) => println!(
            "the check names `{}` on line {}, but the mistake is planted on line {planted}",
            row.name(),
            row.line()
        ),
        None => {
            println!("the check finds nothing wrong, but a mistake is planted on line {planted}")
        }
    }
    Ok(())
}
