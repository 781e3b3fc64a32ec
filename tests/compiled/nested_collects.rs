//! Rows built by nested chains, and a vector call's rows walked by a
//! `for`, compiled. `q.iter().map(|qi| k.iter().map(|kj| dot(qi,
//! kj)).collect()).collect()` pushes each row as the `let` of a `collect`
//! of its own, which is lowered as a loop in turn (its type the outer
//! `Vec`'s items, the inner turbofish, or `Vec<_>`); `let p =
//! softmax_rows(&s); for r in &p { .. r[0] .. }` shows `p`'s rows by the
//! items the walk indexes. Each module is checked as `vec_moves` checks
//! its own (`checked!`): compiled, the value bit for bit, the tape and the
//! dual twin (`tests/support/oracle.rs`) agreeing.

// `vec!` on purpose: the matrices are `Vec`s of rows, as students build
// them.
#![allow(clippy::useless_vec)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use crate::oracle::Dual;
use crate::vec_moves::checked;

fn c(v: f64) -> Dual {
    Dual::constant(v)
}

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn dual_dot(a: &[Dual], b: &[Dual]) -> Dual {
    let mut s = c(-0.0);
    for (&x, &y) in a.iter().zip(b) {
        s = s + x * y;
    }
    s
}

/// Rows of the inputs: `[x0, x1]`, `[x2, x3]`, `[x0 * x3, x1 - x2]`, a
/// helper's matrix the nested chains walk.
#[differentiable]
fn rows(x: &[f64]) -> Vec<Vec<f64>> {
    vec![
        vec![x[0], x[1]],
        vec![x[2], x[3]],
        vec![x[0] * x[3], x[1] - x[2]],
    ]
}

/// `rows` on dual numbers.
fn dual_rows(x: &[Dual]) -> Vec<Vec<Dual>> {
    vec![
        vec![x[0], x[1]],
        vec![x[2], x[3]],
        vec![x[0] * x[3], x[1] - x[2]],
    ]
}

/// The scores of attention, `q kᵀ / √d`, by nested `map`s: typed on the
/// `let`, by the outer turbofish, by the inner one.
mod scores_three_ways {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let q = rows(x);
        let k = vec![vec![x[1], x[2]], vec![x[3] * 0.5, x[0]]];
        let scale = (k[0].len() as f64).sqrt();
        let s: Vec<Vec<f64>> = q
            .iter()
            .map(|qi| k.iter().map(|kj| dot(qi, kj) / scale).collect())
            .collect();
        let t = q
            .iter()
            .map(|qi| k.iter().map(|kj| dot(qi, kj).tanh()).collect())
            .collect::<Vec<Vec<f64>>>();
        let u = k
            .iter()
            .map(|kj| q.iter().map(|qi| qi[0] * kj[1]).collect::<Vec<f64>>())
            .collect::<Vec<_>>();
        s[0][1] * t[2][0] + s[2][1] + t[1][1] * u[1][2] + u[0][0]
    }

    fn twin(x: &[Dual]) -> Dual {
        let q = dual_rows(x);
        let k = [vec![x[1], x[2]], vec![x[3] * 0.5, x[0]]];
        let scale = 2f64.sqrt();
        let s: Vec<Vec<Dual>> = q
            .iter()
            .map(|qi| k.iter().map(|kj| dual_dot(qi, kj) / scale).collect())
            .collect();
        let t: Vec<Vec<Dual>> = q
            .iter()
            .map(|qi| k.iter().map(|kj| dual_dot(qi, kj).tanh()).collect())
            .collect();
        let u: Vec<Vec<Dual>> = k
            .iter()
            .map(|kj| q.iter().map(|qi| qi[0] * kj[1]).collect())
            .collect();
        s[0][1] * t[2][0] + s[2][1] + t[1][1] * u[1][2] + u[0][0]
    }

    checked!();
}

/// A row softmax whose closure is a block ending in the inner `collect`,
/// three levels of nesting, and `extend` with a nested `collect`.
mod blocks_levels_and_extend {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let q = rows(x);
        let p: Vec<Vec<f64>> = q
            .iter()
            .map(|row| {
                let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                row.iter().map(|v| (v - m).exp()).collect()
            })
            .collect();
        let cube: Vec<Vec<Vec<f64>>> = (0..2)
            .map(|i| {
                (0..2)
                    .map(|j| x.iter().map(|v| v * (i + j) as f64).collect())
                    .collect()
            })
            .collect();
        let mut out: Vec<Vec<f64>> = Vec::new();
        out.extend(
            q.iter()
                .map(|qi| qi.iter().map(|v| v * 2.0).collect::<Vec<f64>>()),
        );
        p[0][0] + p[2][1] * cube[1][1][2] + cube[1][0][0] * cube[0][1][3] + out[1][0] * out[2][1]
    }

    fn twin(x: &[Dual]) -> Dual {
        let q = dual_rows(x);
        let p: Vec<Vec<Dual>> = q
            .iter()
            .map(|row| {
                let mut m = c(f64::NEG_INFINITY);
                for &v in row {
                    m = m.max(v);
                }
                row.iter().map(|&v| (v - m).exp()).collect()
            })
            .collect();
        let cube = |i: usize, j: usize, k: usize| x[k] * (i + j) as f64;
        let out = |i: usize, j: usize| q[i][j] * 2.0;
        p[0][0] + p[2][1] * cube(1, 1, 2) + cube(1, 0, 0) * cube(0, 1, 3) + out(1, 0) * out(2, 1)
    }

    checked!();
}

/// `A B` as a vector-valued helper whose body is one nested chain, and a
/// row softmax helper whose value the caller walks row by row: by a
/// `for` over `&p`, by `p.iter().map(..)`, with and without an index of
/// `p` itself.
mod helpers_and_walked_rows {
    use super::*;

    #[differentiable]
    fn matmul(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
        a.iter()
            .map(|row| {
                (0..b[0].len())
                    .map(|j| row.iter().zip(b).map(|(x, bk)| x * bk[j]).sum())
                    .collect()
            })
            .collect()
    }

    #[differentiable]
    fn softmax_rows(s: &[Vec<f64>]) -> Vec<Vec<f64>> {
        s.iter()
            .map(|row| {
                let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = row.iter().map(|v| (v - m).exp()).collect();
                let z: f64 = e.iter().sum();
                e.iter().map(|v| v / z).collect()
            })
            .collect()
    }

    #[differentiable]
    fn walked(a: &[Vec<f64>]) -> f64 {
        let p = softmax_rows(a);
        let mut s = 0.0;
        for r in &p {
            s += r[0] * r[1];
        }
        s
    }

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let a = rows(x);
        let b = vec![vec![x[1], x[2]], vec![x[3] * 0.5, x[0]]];
        let ab = matmul(&a, &b);
        let p = softmax_rows(&ab);
        let mapped: f64 = p.iter().map(|r| r[0] * r[1]).sum();
        walked(&ab) * mapped + ab.iter().flatten().map(|v| v * v).sum::<f64>()
    }

    fn twin(x: &[Dual]) -> Dual {
        let a = dual_rows(x);
        let b = [vec![x[1], x[2]], vec![x[3] * 0.5, x[0]]];
        let ab: Vec<Vec<Dual>> = a
            .iter()
            .map(|row| {
                (0..2)
                    .map(|j| {
                        let mut s = c(-0.0);
                        for (&v, bk) in row.iter().zip(&b) {
                            s = s + v * bk[j];
                        }
                        s
                    })
                    .collect()
            })
            .collect();
        let p: Vec<Vec<Dual>> = ab
            .iter()
            .map(|row| {
                let m = row[0].max(row[1]);
                let e: Vec<Dual> = row.iter().map(|&v| (v - m).exp()).collect();
                let z = c(-0.0) + e[0] + e[1];
                e.iter().map(|&v| v / z).collect()
            })
            .collect();
        let mut mapped = c(-0.0);
        for r in &p {
            mapped = mapped + r[0] * r[1];
        }
        let mut walked = c(0.0);
        for r in &p {
            walked = walked + r[0] * r[1];
        }
        let mut squares = c(-0.0);
        for &v in ab.iter().flatten() {
            squares = squares + v * v;
        }
        walked * mapped + squares
    }

    checked!();

    #[test]
    fn the_walking_helper_is_compiled() {
        assert_eq!(walked_grad_path(), GradientPath::Compiled);
    }
}

/// A `fold` bound by a `let` of the name its closure folds into (`let h =
/// layers.iter().fold(x0, |h, w| dense(w, &h));`, a network written
/// functionally), and folds into numbers bound the same way, one of them
/// changed after: each loop folds into the `let`'s binding itself.
mod folds_into_their_let {
    use super::*;

    #[differentiable]
    fn dense(w: &[Vec<f64>], h: &[f64]) -> Vec<f64> {
        w.iter()
            .map(|row| row.iter().zip(h).map(|(a, b)| a * b).sum::<f64>().tanh())
            .collect()
    }

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let layers = vec![
            vec![vec![x[0], x[1]], vec![x[2], x[3]]],
            vec![vec![x[1] * 0.5, x[3]], vec![x[0], -x[2]]],
        ];
        let h = layers.iter().fold(vec![x[0], x[1]], |h, w| dense(w, &h));
        let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let mut g = x.iter().fold(1.0, |acc, v| acc * 0.5 + v * acc);
        g += m * h[1];
        h[0] * h[1] + m * g
    }

    fn dual_dense(w: &[Vec<Dual>], h: &[Dual]) -> Vec<Dual> {
        w.iter()
            .map(|row| {
                let mut s = c(-0.0);
                for (&a, &b) in row.iter().zip(h) {
                    s = s + a * b;
                }
                s.tanh()
            })
            .collect()
    }

    fn twin(x: &[Dual]) -> Dual {
        let layers = [
            vec![vec![x[0], x[1]], vec![x[2], x[3]]],
            vec![vec![x[1] * 0.5, x[3]], vec![x[0], -x[2]]],
        ];
        let mut h = vec![x[0], x[1]];
        for w in &layers {
            h = dual_dense(w, &h);
        }
        let mut m = c(f64::NEG_INFINITY);
        for &v in x {
            m = m.max(v);
        }
        let mut g = c(1.0);
        for &v in x {
            g = g * 0.5 + v * g;
        }
        g = g + m * h[1];
        h[0] * h[1] + m * g
    }

    checked!();
}
