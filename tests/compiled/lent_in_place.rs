//! A caller's adjoint of a slice lent to a helper's reverse that adds
//! into it also outside the flag saying whether the caller has one (the
//! reverse of a `max` fold, as in `softmax`), and only ever indexes it:
//! borrowed as a slice, the caller's where it has one, else zeros of the
//! reverse's own (`autodiff-macros/src/emit/adjoint/lend.rs`). Called
//! with a tracked row, a constant one (no adjoint: the reverse's own
//! zeros), the same row for two parameters, and rows of one item and of
//! none, each against the tape and a dual-number twin.

// Written as a student writes it: loops by index.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::compiled_agrees;
use crate::attention_layers::softmax;
use crate::oracle::Dual;

/// `exp(a − max a) · b`, item by item.
#[differentiable]
fn mix(a: &[f64], b: &[f64]) -> Vec<f64> {
    let m = a.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mut out = Vec::new();
    for j in 0..a.len() {
        out.push((a[j] - m).exp() * b[j]);
    }
    out
}

/// `softmax` of a tracked row and of a constant one, and `mix` of the
/// tracked row with itself and with the constant.
#[differentiable]
fn lent_rows(x: &[f64], #[constant] c: &[f64]) -> f64 {
    let mut s = Vec::new();
    for j in 0..x.len() {
        s.push(x[j] * 1.5 - 0.25);
    }
    let p = softmax(&s);
    let q = softmax(c);
    let both = mix(&s, &s);
    let half = mix(c, &s);
    let mut total = 0.0;
    for j in 0..p.len() {
        total += p[j] * (j as f64 + 1.0) + q[j] * p[j] + both[j].sin() + half[j];
    }
    total
}

fn softmax_dual(z: &[Dual]) -> Vec<Dual> {
    let m = z
        .iter()
        .fold(Dual::constant(f64::NEG_INFINITY), |a, &b| a.max(b));
    let e: Vec<Dual> = z.iter().map(|&v| (v - m).exp()).collect();
    let sum = e.iter().fold(Dual::constant(0.0), |a, &b| a + b);
    e.iter().map(|&v| v / sum).collect()
}

fn mix_dual(a: &[Dual], b: &[Dual]) -> Vec<Dual> {
    let m = a
        .iter()
        .fold(Dual::constant(f64::NEG_INFINITY), |a, &b| a.max(b));
    a.iter().zip(b).map(|(&a, &b)| (a - m).exp() * b).collect()
}

fn lent_rows_dual(x: &[Dual], c: &[f64]) -> Dual {
    let s: Vec<Dual> = x.iter().map(|&x| x * 1.5 - 0.25).collect();
    let c: Vec<Dual> = c.iter().map(|&c| Dual::constant(c)).collect();
    let (p, q) = (softmax_dual(&s), softmax_dual(&c));
    let (both, half) = (mix_dual(&s, &s), mix_dual(&c, &s));
    let mut total = Dual::constant(0.0);
    for j in 0..p.len() {
        total = total + p[j] * (j as f64 + 1.0) + q[j] * p[j] + both[j].sin() + half[j];
    }
    total
}

#[test]
fn a_lent_adjoint_only_indexed_is_borrowed_in_place() {
    assert_eq!(lent_rows_grad_path(), GradientPath::Compiled);
    for len in [3, 1, 0, 5, 3] {
        let x: Vec<f64> = (0..len).map(|k| 0.4 - 0.3 * k as f64).collect();
        let c: Vec<f64> = (0..len).map(|k| (k as f64 * 0.7).cos()).collect();
        compiled_agrees(
            "lent_rows",
            &x,
            |stack| lent_rows_adjoint(stack, &x, &c),
            || lent_rows_grad(&x, &c),
            || lent_rows_grad_tape(&x, &c),
            |p| lent_rows_dual(p, &c),
        );
    }
}
