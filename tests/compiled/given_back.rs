//! The forward's `Vec`s made in memory the thread's stack kept and given
//! back to it when the reverse is done with them
//! (`autodiff-macros/src/emit/adjoint/sweep/allocation.rs`, `sites.rs`;
//! `__adjoint::with_room`, `recycle`): a `Vec` grown by `push` (a
//! helper's rows, its caller's), a vector call's value bound at the top,
//! and, in a loop, a call's value and the copy of the row it borrowed,
//! popped from the call's site. Only the memory changes hands: each
//! gradient, taken again and again on one thread at sizes that grow and
//! shrink (the spares' rows longer or shorter than the next `Vec`), with
//! no trip, one trip and many, agrees with the tape and a dual-number
//! twin and is bit for bit the first one at that point.

// Written as a student writes it: loops by index.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{compiled_agrees, matrix};
use crate::attention_layers::{matmul, softmax};
use crate::oracle::Dual;

/// `n` rows, the `i`th `x` scaled by `i + 1`.
#[differentiable]
fn scaled_rows(x: &[f64], n: usize) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    for i in 0..n {
        let mut row = Vec::new();
        for j in 0..x.len() {
            row.push(x[j] * (i as f64 + 1.0));
        }
        out.push(row);
    }
    out
}

/// Rows of `x` through `w`, a softmax per row weighed by position, the
/// running totals kept in `h` and summed through `sin`.
#[differentiable]
fn given(x: &[f64], w: &[Vec<f64>], n: usize) -> f64 {
    let r = scaled_rows(x, n);
    let q = matmul(&r, w);
    let mut total = 0.0;
    let mut h = Vec::new();
    for i in 0..q.len() {
        let mut s = Vec::new();
        for j in 0..q[i].len() {
            s.push(q[i][j] * 0.5);
        }
        let p = softmax(&s);
        for j in 0..p.len() {
            total += p[j] * (j as f64 + 1.0);
        }
        h.push(total);
    }
    for i in 0..h.len() {
        total += h[i].sin();
    }
    total
}

/// `given` at `x` (`len` items) and `w` (`len` rows of `m`), flattened.
fn given_dual(p: &[Dual], len: usize, n: usize, m: usize) -> Dual {
    let (x, w) = p.split_at(len);
    let mut total = Dual::constant(0.0);
    let mut h = Vec::new();
    for i in 0..n {
        let s: Vec<Dual> = (0..m)
            .map(|c| {
                let mut q = Dual::constant(0.0);
                for k in 0..len {
                    q = q + x[k] * (i as f64 + 1.0) * w[k * m + c];
                }
                q * 0.5
            })
            .collect();
        let top = s
            .iter()
            .fold(Dual::constant(f64::NEG_INFINITY), |a, &b| a.max(b));
        let e: Vec<Dual> = s.iter().map(|&v| (v - top).exp()).collect();
        let sum = e.iter().fold(Dual::constant(0.0), |a, &b| a + b);
        for j in 0..m {
            total = total + e[j] / sum * (j as f64 + 1.0);
        }
        h.push(total);
    }
    for v in h {
        total = total + v.sin();
    }
    total
}

fn bits<G: crate::oracle::Flat>(gradient: &G) -> Vec<u64> {
    gradient.components().iter().map(|x| x.to_bits()).collect()
}

#[test]
fn the_forward_vecs_given_back_and_taken_again() {
    assert_eq!(given_grad_path(), GradientPath::Compiled);
    // (items of x, rows n, width m of w's rows): growing, shrinking and
    // growing again, so that the spare rows a call takes are longer or
    // shorter than what it pushes; no row, one row of one item.
    let cases = [
        (3, 2, 4),
        (1, 1, 1),
        (5, 6, 7),
        (2, 0, 3),
        (4, 3, 2),
        (5, 6, 7),
        (1, 1, 1),
    ];
    let mut first = std::collections::HashMap::new();
    for _ in 0..2 {
        for (len, n, m) in cases {
            let x: Vec<f64> = (0..len).map(|k| 0.3 - 0.2 * k as f64).collect();
            let w = matrix(len, m, 0.5);
            compiled_agrees(
                "given",
                &[x.clone(), w.concat()].concat(),
                |stack| given_adjoint(stack, &x, &w, n),
                || given_grad(&x, &w, n),
                || given_grad_tape(&x, &w, n),
                |p| given_dual(p, len, n, m),
            );
            let got = given_grad(&x, &w, n).unwrap();
            let now = (got.value.to_bits(), bits(&got.gradient));
            let was = first.entry((len, n, m)).or_insert_with(|| now.clone());
            assert_eq!(
                *was, now,
                "{len} {n} {m}: another gradient at the same point"
            );
        }
    }
}
