//! Lesson 15's causal attention head (T = 4, d_model = 4, d_k = d_v = 3),
//! built the way a student factors it: annotated helpers that return
//! vectors (`matmul`, `softmax`), a `Linear` layer whose `forward` returns
//! the projected rows, and a `Head` of three of them. The mask is written
//! as the lesson writes it, `S = QKᵀ/√d_k + M` with `M = −∞` above the
//! diagonal. The head's gradient is checked against the lesson's four-step
//! backward pass by hand and against central differences, and softmax's
//! Jacobian is printed next to the lesson's closed form `diag(p) − p pᵀ`.
//!
//! `cargo run --example attention`

// Index loops on purpose: the bodies read the matrices as the formulas
// index them.
#![allow(clippy::needless_range_loop)]

#[path = "support/attention_layers.rs"]
mod attention_layers;
#[path = "support/lesson15.rs"]
mod lesson15;

use attention_layers::{rows, softmax, Head, Linear};
use autodiff::prelude::*;

/// `softmax(s + m)`: lesson 15's masked row, the mask a constant.
#[differentiable]
fn masked_softmax(s: &[f64], #[constant] mask: &[f64]) -> Vec<f64> {
    let mut z = Vec::new();
    for j in 0..s.len() {
        z.push(s[j] + mask[j]);
    }
    softmax(&z)
}

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let h = lesson15::random_head(8);
    let (x, o_bar) = (rows(&h.x), rows(&h.o_bar));
    let head = Head {
        wq: Linear { w: rows(&h.wq) },
        wk: Linear { w: rows(&h.wk) },
        wv: Linear { w: rows(&h.wv) },
    };
    // The causal mask: token i sees tokens j ≤ i.
    let mask: Vec<Vec<f64>> = (0..4)
        .map(|i| {
            (0..4)
                .map(|j| if j <= i { 0.0 } else { f64::NEG_INFINITY })
                .collect()
        })
        .collect();

    let result = head.probe_grad(&x, &mask, &o_bar)?;
    let (head_bar, x_bar) = result.gradient;
    let by_hand = lesson15::attention_backward(&h.x, &h.wq, &h.wk, &h.wv, &h.o_bar);
    println!(
        "L = Σ Ō ⊙ O = {:.12} (by hand {:.12})",
        result.value, by_hand.loss
    );
    let worst = |got: &[Vec<f64>], want: &[[f64; 3]]| -> f64 {
        got.iter()
            .zip(want)
            .flat_map(|(g, w)| g.iter().zip(w).map(|(a, b)| (a - b).abs()))
            .fold(0.0, f64::max)
    };
    println!(
        "largest difference from the backward pass by hand: W̄_Q {:.1e}, W̄_K {:.1e}, W̄_V {:.1e}",
        worst(&head_bar.wq.w, &by_hand.wq),
        worst(&head_bar.wk.w, &by_hand.wk),
        worst(&head_bar.wv.w, &by_hand.wv),
    );
    let x_diff = x_bar
        .iter()
        .zip(&by_hand.x)
        .flat_map(|(g, w)| g.iter().zip(w).map(|(a, b)| (a - b).abs()))
        .fold(0.0, f64::max);
    println!("X̄ = X̄_Q + X̄_K + X̄_V (fan-in at X): largest difference {x_diff:.1e}");

    let worst_weight = [
        worst(&head_bar.wq.w, &by_hand.wq),
        worst(&head_bar.wk.w, &by_hand.wk),
        worst(&head_bar.wv.w, &by_hand.wv),
        x_diff,
    ]
    .into_iter()
    .fold(0.0, f64::max);
    if worst_weight > 1e-12 || (result.value - by_hand.loss).abs() > 1e-12 {
        return Err("the head's gradient disagrees with the backward pass by hand".into());
    }
    let check = head.probe_check(&x, &mask, &o_bar)?;
    if !check.passed() {
        return Err(format!("the head fails its check:\n{check}").into());
    }
    println!(
        "central differences, all {} parameters and inputs: passed = {}, largest scaled error {:.1e}",
        check.components.len(),
        check.passed(),
        check.max_scaled_error()
    );
    let forward = head.forward_jacobian(&x, &mask)?;
    println!(
        "the head's own Jacobian: {} outputs × {} inputs, checked entry by entry: passed = {}",
        forward.rows(),
        forward.cols(),
        head.forward_check(&x, &mask)?.passed()
    );

    // One row of S whose last entry the mask hides (token 2 of 4).
    let (s, mask_row) = ([0.4, -0.7, 1.1, 0.3], [0.0, 0.0, 0.0, f64::NEG_INFINITY]);
    let p = masked_softmax(&s, &mask_row);
    let jacobian = masked_softmax_jacobian(&s, &mask_row)?;
    println!("\nsoftmax of s + m, s = {s:?}, m = {mask_row:?}: p = {p:.4?}");
    println!("∂p/∂s by autodiff, then lesson 15's diag(p) − p pᵀ:");
    for i in 0..4 {
        let autodiff: Vec<f64> = (0..4).map(|j| jacobian.get(i, j)).collect();
        let closed: Vec<f64> = (0..4)
            .map(|j| if i == j { p[i] } else { 0.0 } - p[i] * p[j])
            .collect();
        println!("  {autodiff:+.5?}   {closed:+.5?}");
    }
    let masked: Vec<f64> = (0..4).map(|i| jacobian.get(i, 3)).collect();
    for i in 0..4 {
        for j in 0..4 {
            let closed = if i == j { p[i] } else { 0.0 } - p[i] * p[j];
            if (jacobian.get(i, j) - closed).abs() > 1e-15 {
                return Err(format!("∂p{i}/∂s{j} is not diag(p) − p pᵀ").into());
            }
        }
    }
    if masked.iter().any(|&entry| entry != 0.0) {
        return Err("a masked entry has a gradient".into());
    }
    println!("the masked entry's column is exactly zero: {masked:?}");
    Ok(())
}
