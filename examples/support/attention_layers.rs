//! Lesson 15's causal attention head as a student factors it: annotated
//! helpers that return vectors (`matmul`, `softmax`), a `Linear` layer
//! whose `forward` returns the projected rows, and a `Head` of three of
//! them with the lesson's probe `Σ Ō ⊙ O`. Shared through `#[path]` by
//! `examples/attention.rs` and the compiled adjoint's tests
//! (`tests/compiled/vector_calls.rs`), which check these very layers.

// Index loops on purpose: the bodies read the matrices as the formulas
// index them.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;

/// `A B`, row by row.
#[differentiable]
pub fn matmul(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    for i in 0..a.len() {
        let mut row = Vec::new();
        for j in 0..b[0].len() {
            let mut s = 0.0;
            for k in 0..b.len() {
                s += a[i][k] * b[k][j];
            }
            row.push(s);
        }
        out.push(row);
    }
    out
}

/// `exp(z − max z) / Σ exp(z − max z)`: a masked entry (`−∞`) gets 0.
#[differentiable]
pub fn softmax(z: &[f64]) -> Vec<f64> {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}

/// A projection without bias: `X W`.
#[derive(Clone, Debug, Parameters)]
pub struct Linear {
    pub w: Vec<Vec<f64>>,
}

#[differentiable]
impl Linear {
    pub fn forward(&self, x: &[Vec<f64>]) -> Vec<Vec<f64>> {
        matmul(x, &self.w)
    }
}

#[derive(Clone, Debug, Parameters)]
pub struct Head {
    pub wq: Linear,
    pub wk: Linear,
    pub wv: Linear,
}

#[differentiable]
impl Head {
    /// `O = softmax_row(Q Kᵀ/√d_k + M) V`.
    pub fn forward(&self, x: &[Vec<f64>], #[constant] mask: &[Vec<f64>]) -> Vec<Vec<f64>> {
        let q = self.wq.forward(x);
        let k = self.wk.forward(x);
        let v = self.wv.forward(x);
        let scale = 1.0 / (q[0].len() as f64).sqrt();
        let mut a = Vec::new();
        for i in 0..q.len() {
            let mut s = Vec::new();
            for j in 0..k.len() {
                let mut dot = 0.0;
                for c in 0..q[i].len() {
                    dot += q[i][c] * k[j][c];
                }
                s.push(dot * scale + mask[i][j]);
            }
            a.push(softmax(&s));
        }
        matmul(&a, &v)
    }

    /// The lesson's probe of the head: `L = Σ Ō ⊙ O` for a fixed `Ō`.
    pub fn probe(
        &self,
        x: &[Vec<f64>],
        #[constant] mask: &[Vec<f64>],
        #[constant] o_bar: &[Vec<f64>],
    ) -> f64 {
        let o = self.forward(x, mask);
        let mut total = 0.0;
        for i in 0..o.len() {
            for c in 0..o[i].len() {
                total += o_bar[i][c] * o[i][c];
            }
        }
        total
    }
}

/// A matrix of fixed-width rows as `Vec` rows.
pub fn rows<const N: usize>(matrix: &[[f64; N]]) -> Vec<Vec<f64>> {
    matrix.iter().map(|row| row.to_vec()).collect()
}
