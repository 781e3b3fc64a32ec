//! Rows concatenated the way multi-head attention joins its heads: a `Vec`
//! bound empty inside a loop and grown by `extend_from_slice` of rows (a
//! parameter's, and a vector-valued helper's rows of rows), then read;
//! and one popped after its pushes. The adjoint of such a `Vec` starts
//! shaped like it after the last statement that changes its length (it
//! was shaped after its last `push`: empty, and the reverse indexed past
//! its end; or longer than it, and the gradient was wrong), and a helper's
//! value is seen to be rows of rows where a row of it is used whole
//! (`extend_from_slice(&o[t])`). Each function is checked to
//! take the compiled path, and its gradient against dual numbers and the
//! tape.

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{agree, assert_agree};
use crate::oracle::{dual_gradient, Dual};

/// Each row of `m` with `w` after it and the first row again.
#[differentiable]
fn joined_rows(m: &[Vec<f64>], w: f64) -> f64 {
    let mut total = 0.0;
    for t in 0..m.len() {
        let mut cat: Vec<f64> = Vec::new();
        cat.extend_from_slice(&m[t]);
        cat.push(w);
        cat.extend_from_slice(&m[0]);
        total += cat.iter().map(|v| v * v * w).sum::<f64>();
    }
    total
}

/// A head: each row of `m` scaled and squashed.
#[differentiable]
fn head(m: &[Vec<f64>], s: f64) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    for row in m {
        out.push(row.iter().map(|v| (v * s).tanh()).collect::<Vec<f64>>());
    }
    out
}

/// Two heads' rows for each position joined, weighted by place.
#[differentiable]
fn two_heads(m: &[Vec<f64>], s: f64) -> f64 {
    let mut total = 0.0;
    for t in 0..m.len() {
        let mut cat: Vec<f64> = Vec::new();
        for k in 0..2 {
            let o = head(m, s + k as f64);
            cat.extend_from_slice(&o[t]);
        }
        total += cat
            .iter()
            .enumerate()
            .map(|(i, v)| v * v * (i as f64 + 1.0))
            .sum::<f64>();
    }
    total
}

/// A `Vec` bound in a loop, pushed three times and popped once: its
/// adjoint must start shaped like it after the pop (shaped after the last
/// push, the gradient came out wrong on 8797383: 1.76 for each item of
/// `x` where 6.98, -0.90 and 1.41 are right).
#[differentiable]
fn popped_in_a_loop(x: &[f64], w: f64) -> f64 {
    let mut total = 0.0;
    for t in 0..x.len() {
        let mut v: Vec<f64> = Vec::new();
        v.push(x[t] * w);
        v.push(x[0] + w);
        v.push(w * w);
        let last = v.pop().unwrap();
        total += v.iter().map(|a| a * a).sum::<f64>() + last;
    }
    total
}

fn popped_in_a_loop_dual(x: &[Dual], w: Dual) -> Dual {
    let mut total = Dual::constant(0.0);
    for t in 0..x.len() {
        let v = [x[t] * w, x[0] + w];
        total = total + v.iter().fold(Dual::constant(-0.0), |s, a| s + *a * *a) + w * w;
    }
    total
}

#[test]
fn a_vec_popped_in_a_loop_takes_its_adjoints() {
    let _compiled = popped_in_a_loop_adjoint;
    assert_eq!(popped_in_a_loop_grad_path(), GradientPath::Compiled);
    for (x, w) in [
        (vec![0.3, -0.7, 1.1], 0.8),
        (vec![1.5], -0.4),
        (vec![-0.2, 0.9], 1.3),
    ] {
        let got = agree(
            "popped_in_a_loop",
            popped_in_a_loop_grad(&x, w),
            popped_in_a_loop_grad_tape(&x, w),
        );
        assert_eq!(got.value.to_bits(), popped_in_a_loop(&x, w).to_bits());
        let n = x.len();
        let mut all = x.clone();
        all.push(w);
        let want = dual_gradient(&all, |d| popped_in_a_loop_dual(&d[..n], d[n]));
        assert_agree("popped_in_a_loop x", &got.gradient.0, &want[..n]);
        assert_agree("popped_in_a_loop w", &[got.gradient.1], &want[n..]);
    }
}

fn joined_rows_dual(m: &[Vec<Dual>], w: Dual) -> Dual {
    let mut total = Dual::constant(0.0);
    for row in m {
        let mut cat = row.clone();
        cat.push(w);
        cat.extend_from_slice(&m[0]);
        total = total
            + cat
                .iter()
                .fold(Dual::constant(-0.0), |s, v| s + *v * *v * w);
    }
    total
}

fn two_heads_dual(m: &[Vec<Dual>], s: Dual) -> Dual {
    let mut total = Dual::constant(0.0);
    for row in m {
        let mut cat = Vec::new();
        for k in 0..2 {
            cat.extend(row.iter().map(|v| (*v * (s + k as f64)).tanh()));
        }
        total = total
            + cat
                .iter()
                .enumerate()
                .fold(Dual::constant(-0.0), |acc, (i, v)| {
                    acc + *v * *v * (i as f64 + 1.0)
                });
    }
    total
}

/// `m` (rows of two) and a scalar as one flat list, and back.
fn rows_of(flat: &[Dual], n: usize) -> Vec<Vec<Dual>> {
    (0..n).map(|t| flat[2 * t..2 * t + 2].to_vec()).collect()
}

#[test]
fn rows_joined_in_a_loop_are_compiled() {
    // A function that keeps the tape has no `_adjoint`: this would not
    // build.
    let _compiled = (joined_rows_adjoint, two_heads_adjoint);
    assert_eq!(joined_rows_grad_path(), GradientPath::Compiled);
    assert_eq!(two_heads_grad_path(), GradientPath::Compiled);
}

#[test]
fn rows_joined_in_a_loop_take_their_adjoints() {
    let m = [vec![0.3, -0.5], vec![0.9, 0.1], vec![-0.2, 0.4]];
    for (n, w) in [(1, 0.7), (2, -1.3), (3, 0.45)] {
        let m = &m[..n];
        let flat: Vec<f64> = m.iter().flatten().copied().chain([w]).collect();
        let got = agree(
            "joined_rows",
            joined_rows_grad(m, w),
            joined_rows_grad_tape(m, w),
        );
        assert_eq!(got.value.to_bits(), joined_rows(m, w).to_bits());
        let want = dual_gradient(&flat, |d| joined_rows_dual(&rows_of(d, n), d[2 * n]));
        let dm: Vec<f64> = got.gradient.0.iter().flatten().copied().collect();
        assert_agree("joined_rows m", &dm, &want[..2 * n]);
        assert_agree("joined_rows w", &[got.gradient.1], &want[2 * n..]);

        let got = agree("two_heads", two_heads_grad(m, w), two_heads_grad_tape(m, w));
        assert_eq!(got.value.to_bits(), two_heads(m, w).to_bits());
        let want = dual_gradient(&flat, |d| two_heads_dual(&rows_of(d, n), d[2 * n]));
        let dm: Vec<f64> = got.gradient.0.iter().flatten().copied().collect();
        assert_agree("two_heads m", &dm, &want[..2 * n]);
        assert_agree("two_heads s", &[got.gradient.1], &want[2 * n..]);
    }
}
