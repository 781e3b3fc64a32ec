//! A sum over an inner loop whose reverse runs with the loops swapped
//! (`autodiff-macros/src/emit/adjoint/sweep/interchange.rs`): `matmul`'s
//! `s += a[i][k] * b[k][j]` reversed over `k` outside and `j` inside, the
//! sum's adjoints saved by `j` first. Each function takes the compiled
//! path, agrees with the tape and a dual-number twin, and its gradient is
//! bit for bit that of a twin whose inner loop carries a label (which
//! keeps the loops as written): the same additions into each item in the
//! same order. Ranges with no trip, one trip, from a binding (and past
//! their end), rows longer than the range, a sum carried across the
//! outer loop's trips and scaled between them, a helper whose caller
//! passes a constant, and the forms not swapped (one binding read by two
//! texts, `x[i][k] * x[k][j]`; a `break` or a `return` in the inner
//! loop), which stay as they were.

// Written as a student writes it: loops by index. The twins' labels are
// there to keep their loops as written.
#![allow(clippy::needless_range_loop, unused_labels)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::compiled_agrees;
use crate::attention_layers::matmul;
use crate::oracle::Dual;

/// `Σ_i Σ_{j ∈ lo..n} sin(½ (A B)_ij) (j + 1)`.
#[differentiable]
fn swapped(a: &[Vec<f64>], b: &[Vec<f64>], lo: usize, n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..a.len() {
        for j in lo..n {
            let mut s = 0.0;
            for k in 0..b.len() {
                s += a[i][k] * b[k][j];
            }
            total += (s * 0.5).sin() * (j as f64 + 1.0);
        }
    }
    total
}

/// `swapped` with its loops kept as written.
#[differentiable]
fn swapped_kept(a: &[Vec<f64>], b: &[Vec<f64>], lo: usize, n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..a.len() {
        for j in lo..n {
            let mut s = 0.0;
            'kept: for k in 0..b.len() {
                s += a[i][k] * b[k][j];
            }
            total += (s * 0.5).sin() * (j as f64 + 1.0);
        }
    }
    total
}

/// `a`'s and `b`'s items flattened by rows, `b`'s rows `width` long.
fn swapped_dual(p: &[Dual], rows: usize, inner: usize, width: usize, lo: usize, n: usize) -> Dual {
    let (a, b) = p.split_at(rows * inner);
    let mut total = Dual::constant(0.0);
    for i in 0..rows {
        for j in lo..n {
            let mut s = Dual::constant(0.0);
            for k in 0..inner {
                s = s + a[i * inner + k] * b[k * width + j];
            }
            total = total + (s * 0.5).sin() * (j as f64 + 1.0);
        }
    }
    total
}

fn matrix(rows: usize, cols: usize, seed: f64) -> Vec<Vec<f64>> {
    (0..rows)
        .map(|i| {
            (0..cols)
                .map(|j| ((i * cols + j) as f64 * 0.41 + seed).sin() * 0.9)
                .collect()
        })
        .collect()
}

fn bits<G: crate::oracle::Flat>(gradient: &G) -> Vec<u64> {
    gradient.components().iter().map(|x| x.to_bits()).collect()
}

#[test]
fn a_sum_reversed_with_its_loops_swapped() {
    // (rows of a, inner length, width of b's rows, lo, n)
    let cases = [
        (3, 4, 5, 0, 5),
        // Rows of `b` longer than the range, which starts at a binding.
        (2, 3, 6, 1, 4),
        // One trip of each loop.
        (1, 1, 1, 0, 1),
        // No trip of the outer range (and one past its end).
        (2, 3, 3, 3, 3),
        (2, 3, 3, 3, 1),
        // No trip of the inner loop, no row of `a`.
        (2, 0, 0, 0, 0),
        (0, 2, 2, 0, 2),
    ];
    for (rows, inner, width, lo, n) in cases {
        let a = matrix(rows, inner, 0.3);
        let b = matrix(inner, width, 1.7);
        assert_eq!(swapped_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "swapped",
            &[a.concat(), b.concat()].concat(),
            |stack| swapped_adjoint(stack, &a, &b, lo, n),
            || swapped_grad(&a, &b, lo, n),
            || swapped_grad_tape(&a, &b, lo, n),
            |p| swapped_dual(p, rows, inner, width, lo, n),
        );
        let got = swapped_grad(&a, &b, lo, n).unwrap();
        let kept = swapped_kept_grad(&a, &b, lo, n).unwrap();
        assert_eq!(got.value.to_bits(), kept.value.to_bits());
        assert_eq!(
            bits(&got.gradient),
            bits(&kept.gradient),
            "{rows} {inner} {lo}..{n}"
        );
    }
}

/// A sum carried across the outer loop's trips, scaled and added to
/// before each inner loop (its adjoint changes between the trips), and
/// read by one text of a binding twice (`b[k][j] * b[k][j]`).
#[differentiable]
fn carried(a: &[f64], b: &[Vec<f64>], c: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..c.len() {
        s = s * 0.5 + c[j];
        for k in 0..a.len() {
            s += a[k] * b[k][j] * b[k][j];
        }
    }
    s.tanh()
}

#[differentiable]
fn carried_kept(a: &[f64], b: &[Vec<f64>], c: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..c.len() {
        s = s * 0.5 + c[j];
        'kept: for k in 0..a.len() {
            s += a[k] * b[k][j] * b[k][j];
        }
    }
    s.tanh()
}

fn carried_dual(p: &[Dual], inner: usize, width: usize) -> Dual {
    let (a, rest) = p.split_at(inner);
    let (b, c) = rest.split_at(inner * width);
    let mut s = Dual::constant(0.0);
    for j in 0..width {
        s = s * 0.5 + c[j];
        for k in 0..inner {
            s = s + a[k] * b[k * width + j] * b[k * width + j];
        }
    }
    s.tanh()
}

#[test]
fn a_sum_carried_across_the_outer_trips() {
    for (inner, width) in [(4, 3), (1, 1), (0, 2), (3, 0)] {
        let a: Vec<f64> = (0..inner).map(|k| 0.4 - 0.3 * k as f64).collect();
        let b = matrix(inner, width, 0.9);
        let c: Vec<f64> = (0..width).map(|j| 0.1 * j as f64 - 0.2).collect();
        assert_eq!(carried_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "carried",
            &[a.clone(), b.concat(), c.clone()].concat(),
            |stack| carried_adjoint(stack, &a, &b, &c),
            || carried_grad(&a, &b, &c),
            || carried_grad_tape(&a, &b, &c),
            |p| carried_dual(p, inner, width),
        );
        let got = carried_grad(&a, &b, &c).unwrap();
        let kept = carried_kept_grad(&a, &b, &c).unwrap();
        assert_eq!(bits(&got.gradient), bits(&kept.gradient));
    }
}

/// One binding read by two texts (`x[i][k]`, `x[k][j]`): an item of its
/// adjoint gets additions both along a row and down a column, whose
/// order a swap would change. Not swapped.
#[differentiable]
fn squared(x: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        for j in 0..x.len() {
            let mut s = 0.0;
            for k in 0..x.len() {
                s += x[i][k] * x[k][j];
            }
            total += s * s;
        }
    }
    total
}

#[differentiable]
fn squared_kept(x: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        for j in 0..x.len() {
            let mut s = 0.0;
            'kept: for k in 0..x.len() {
                s += x[i][k] * x[k][j];
            }
            total += s * s;
        }
    }
    total
}

fn squared_dual(p: &[Dual], n: usize) -> Dual {
    let mut total = Dual::constant(0.0);
    for i in 0..n {
        for j in 0..n {
            let mut s = Dual::constant(0.0);
            for k in 0..n {
                s = s + p[i * n + k] * p[k * n + j];
            }
            total = total + s * s;
        }
    }
    total
}

#[test]
fn one_binding_read_by_two_texts_keeps_its_order() {
    for n in [4, 1, 0] {
        let x = matrix(n, n, 2.3);
        assert_eq!(squared_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "squared",
            &x.concat(),
            |stack| squared_adjoint(stack, &x),
            || squared_grad(&x),
            || squared_grad_tape(&x),
            |p| squared_dual(p, n),
        );
        let got = squared_grad(&x).unwrap();
        let kept = squared_kept_grad(&x).unwrap();
        assert_eq!(bits(&got.gradient), bits(&kept.gradient));
    }
}

/// The inner loop left early by a `break` (its trips counted) and by a
/// `return` out of the function: not swapped.
#[differentiable]
fn stopped(a: &[Vec<f64>], b: &[Vec<f64>], n: usize, #[constant] limit: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..a.len() {
        for j in 0..n {
            let mut s = 0.0;
            for k in 0..b.len() {
                if s > limit {
                    break;
                }
                if s < -10.0 * limit {
                    return total;
                }
                s += a[i][k] * b[k][j];
            }
            total += s.sin();
        }
    }
    total
}

fn stopped_dual(p: &[Dual], rows: usize, inner: usize, n: usize, limit: f64) -> Dual {
    let (a, b) = p.split_at(rows * inner);
    let mut total = Dual::constant(0.0);
    for i in 0..rows {
        for j in 0..n {
            let mut s = Dual::constant(0.0);
            for k in 0..inner {
                if s.value > limit {
                    break;
                }
                if s.value < -10.0 * limit {
                    return total;
                }
                s = s + a[i * inner + k] * b[k * n + j];
            }
            total = total + s.sin();
        }
    }
    total
}

#[test]
fn an_inner_loop_left_early_is_not_swapped() {
    for limit in [0.3, 0.01, 5.0] {
        let a = matrix(3, 4, 0.6);
        let b = matrix(4, 3, 1.1);
        assert_eq!(stopped_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "stopped",
            &[a.concat(), b.concat()].concat(),
            |stack| stopped_adjoint(stack, &a, &b, 3, limit),
            || stopped_grad(&a, &b, 3, limit),
            || stopped_grad_tape(&a, &b, 3, limit),
            |p| stopped_dual(p, 3, 4, 3, limit),
        );
    }
}

/// `matmul` (swapped in its reverse) called with a constant operand on
/// either side: its reverse adds into the adjoint its caller has, under
/// the flag of the one it has not.
#[differentiable]
fn products(w: &[Vec<f64>], #[constant] x: &[Vec<f64>]) -> f64 {
    let y = matmul(x, w);
    let z = matmul(w, x);
    let mut total = 0.0;
    for i in 0..y.len() {
        for j in 0..y[i].len() {
            total += y[i][j] * z[i][j].sin();
        }
    }
    total
}

fn products_dual(w: &[Dual], x: &[Vec<f64>]) -> Dual {
    let n = x.len();
    let mut total = Dual::constant(0.0);
    for i in 0..n {
        for j in 0..n {
            let mut y = Dual::constant(0.0);
            let mut z = Dual::constant(0.0);
            for k in 0..n {
                y = y + w[k * n + j] * x[i][k];
                z = z + w[i * n + k] * x[k][j];
            }
            total = total + y * z.sin();
        }
    }
    total
}

#[test]
fn a_helper_swapped_where_its_caller_passes_a_constant() {
    for n in [3, 1] {
        let w = matrix(n, n, 0.2);
        let x = matrix(n, n, 1.4);
        assert_eq!(products_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "products",
            &w.concat(),
            |stack| products_adjoint(stack, &w, &x),
            || products_grad(&w, &x),
            || products_grad_tape(&w, &x),
            |p| products_dual(p, &x),
        );
    }
}
