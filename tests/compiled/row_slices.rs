//! Rows a range loop indexes by its own index, which the reverse borrows
//! once before the loop (`let w_bar_row = &mut w_bar[i][..n];`, see
//! `autodiff-macros/src/emit/adjoint/sweep/rows.rs`): ranges that start
//! at 0, at a literal and at a binding, ranges with no trip (`0..0` of
//! the first row, `i + 1..n` of the last), a row read with the loop's
//! own index in it (`m[i][i]`, a different row each trip, not borrowed),
//! a ragged row read only under a branch (not borrowed: its adjoint is
//! shorter than the range), a row borrowed through a row an outer loop
//! borrowed, and a vector-valued callee whose caller passes no adjoint
//! for a constant argument (borrowed empty, added into under its flag).
//! Each takes the compiled path, agrees with the tape, and matches a
//! dual-number twin written out by hand; `f_hvp`, which runs the same
//! reverse on dual numbers, matches central differences of the tape's
//! gradient.

// Written as a student writes it: loops by index.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::lent_calls::affine;
use super::support::{compiled_agrees, matrix};
use crate::oracle::{assert_all_close_named, Dual};

/// A lower triangle (`0..i`, no trip at the first row), an upper one
/// from a binding (`i + 1..n`, none at the last), and the diagonal.
#[differentiable]
fn triangles(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..m.len() {
        let mut s = 0.0;
        for j in 0..i {
            s += m[i][j] * x[j];
        }
        let mut u = 0.0;
        for j in i + 1..x.len() {
            u += m[i][j] * (x[j] * x[j]).sin();
        }
        total += s.tanh() * u + m[i][i] * x[i];
    }
    total
}

fn triangles_dual(p: &[Dual], n: usize) -> Dual {
    let (m, x) = p.split_at(n * n);
    let mut total = Dual::constant(0.0);
    for i in 0..n {
        let mut s = Dual::constant(0.0);
        for j in 0..i {
            s = s + m[i * n + j] * x[j];
        }
        let mut u = Dual::constant(0.0);
        for j in i + 1..n {
            u = u + m[i * n + j] * (x[j] * x[j]).sin();
        }
        total = total + s.tanh() * u + m[i * n + i] * x[i];
    }
    total
}

/// Rows of different lengths, read only where the row has the item; `x`
/// read at every trip.
#[differentiable]
fn ragged(r: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..r.len() {
        let mut s = 0.0;
        for j in 0..x.len() {
            s += x[j] * x[j] * 0.5;
            if j < r[i].len() {
                s += r[i][j] * x[j];
            }
        }
        total += s.sin();
    }
    total
}

fn ragged_dual(p: &[Dual], lengths: &[usize]) -> Dual {
    let items: usize = lengths.iter().sum();
    let (r, x) = p.split_at(items);
    let mut total = Dual::constant(0.0);
    let mut at = 0;
    for &len in lengths {
        let mut s = Dual::constant(0.0);
        for j in 0..x.len() {
            s = s + x[j] * x[j] * 0.5;
            if j < len {
                s = s + r[at + j] * x[j];
            }
        }
        at += len;
        total = total + s.sin();
    }
    total
}

/// A row an outer loop borrows (`w`, by `w[i][0]`), and its row `w[i]`
/// borrowed through it by the inner loop, from a literal start.
#[differentiable]
fn from_one(w: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..w.len() {
        let mut s = w[i][0];
        for j in 1..x.len() {
            s += w[i][j] * x[j];
        }
        total += s.sin() * w[i][0];
    }
    total
}

fn from_one_dual(p: &[Dual], rows: usize) -> Dual {
    let n = (p.len()) / (rows + 1);
    let (w, x) = p.split_at(rows * n);
    let mut total = Dual::constant(0.0);
    for row in w.chunks(n) {
        let mut s = row[0];
        for j in 1..n {
            s = s + row[j] * x[j];
        }
        total = total + s.sin() * row[0];
    }
    total
}

/// Two `affine` layers (`W x + b`, from `lent_calls`): the first's input is a constant, for which the
/// caller passes the callee no adjoint.
#[differentiable]
fn two_layers(
    w1: &[Vec<f64>],
    b1: &[f64],
    w2: &[Vec<f64>],
    b2: &[f64],
    #[constant] x: &[f64],
) -> f64 {
    let z = affine(w1, b1, x);
    let mut h = Vec::new();
    for i in 0..z.len() {
        h.push(z[i].tanh());
    }
    let y = affine(w2, b2, &h);
    let mut total = 0.0;
    for i in 0..y.len() {
        total += y[i] * y[i];
    }
    total
}

fn two_layers_dual(p: &[Dual], x: &[f64], hidden: usize, outputs: usize) -> Dual {
    let n = x.len();
    let (w1, rest) = p.split_at(hidden * n);
    let (b1, rest) = rest.split_at(hidden);
    let (w2, b2) = rest.split_at(outputs * hidden);
    let h: Vec<Dual> = (0..hidden)
        .map(|i| {
            let mut s = b1[i];
            for j in 0..n {
                s = s + w1[i * n + j] * x[j];
            }
            s.tanh()
        })
        .collect();
    let mut total = Dual::constant(0.0);
    for i in 0..outputs {
        let mut y = b2[i];
        for j in 0..hidden {
            y = y + w2[i * hidden + j] * h[j];
        }
        total = total + y * y;
    }
    total
}

/// Rows an inner loop borrows that stay the same at every trip of the
/// loop around (`a[i]` and its adjoint's row, `w`'s adjoint), borrowed
/// once before that loop's reverse (`Sweep::lifted_rows`), where both
/// ranges have a trip: with no column (`cols` empty) the forward never
/// reads `a[i]`, which may be shorter than `w`; with no row of `w`, no
/// product.
#[differentiable]
fn lifted(a: &[Vec<f64>], w: &[Vec<f64>], cols: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..a.len() {
        for j in 0..cols.len() {
            let mut s = cols[j];
            for k in 0..w.len() {
                s += a[i][k] * w[k][j];
            }
            total += s.sin();
        }
    }
    total
}

fn lifted_dual(p: &[Dual], a_lengths: &[usize], w_rows: usize, w_cols: usize) -> Dual {
    let (a, rest) = p.split_at(a_lengths.iter().sum());
    let (w, cols) = rest.split_at(w_rows * w_cols);
    let mut total = Dual::constant(0.0);
    let mut at = 0;
    for &length in a_lengths {
        let row = &a[at..at + length];
        at += length;
        for j in 0..cols.len() {
            let mut s = cols[j];
            for k in 0..w_rows {
                s = s + row[k] * w[k * w_cols + j];
            }
            total = total + s.sin();
        }
    }
    total
}

#[test]
fn triangles_and_the_diagonal_agree() {
    for n in [1, 2, 4, 7] {
        let m = matrix(n, n, 0.3);
        let x: Vec<f64> = (0..n).map(|j| 0.4 - 0.15 * j as f64).collect();
        assert_eq!(triangles_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "triangles",
            &[m.concat(), x.clone()].concat(),
            |stack| triangles_adjoint(stack, &m, &x),
            || triangles_grad(&m, &x),
            || triangles_grad_tape(&m, &x),
            |p| triangles_dual(p, n),
        );
    }
}

#[test]
fn rows_borrowed_once_for_the_loop_around() {
    let cases = [
        (matrix(3, 4, 0.4), matrix(4, 2, 1.3), vec![0.2, -0.3]),
        // No column: `a`'s rows are shorter than `w`, and never read.
        (vec![vec![], vec![0.5]], matrix(2, 2, 0.9), vec![]),
        // No row of `w`: the inner loop has no trip.
        (vec![vec![], vec![0.5]], vec![], vec![0.2, 0.4]),
    ];
    for (a, w, cols) in cases {
        let a_lengths: Vec<usize> = a.iter().map(Vec::len).collect();
        let w_cols = w.first().map_or(0, Vec::len);
        assert_eq!(lifted_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "lifted",
            &[a.concat(), w.concat(), cols.clone()].concat(),
            |stack| lifted_adjoint(stack, &a, &w, &cols),
            || lifted_grad(&a, &w, &cols),
            || lifted_grad_tape(&a, &w, &cols),
            |p| lifted_dual(p, &a_lengths, w.len(), w_cols),
        );
    }
}

#[test]
fn a_row_read_under_a_branch_may_be_shorter_than_the_range() {
    let r = vec![vec![0.3, -0.2], vec![], vec![0.5, 0.1, -0.7, 0.9]];
    let lengths: Vec<usize> = r.iter().map(Vec::len).collect();
    let x = vec![0.2, -0.5, 0.8, 0.1];
    assert_eq!(ragged_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "ragged",
        &[r.concat(), x.clone()].concat(),
        |stack| ragged_adjoint(stack, &r, &x),
        || ragged_grad(&r, &x),
        || ragged_grad_tape(&r, &x),
        |p| ragged_dual(p, &lengths),
    );
}

#[test]
fn a_row_borrowed_through_an_outer_loops_row() {
    for (rows, n) in [(3, 4), (2, 1), (0, 3)] {
        let w = matrix(rows, n, 1.1);
        let x: Vec<f64> = (0..n).map(|j| 0.3 + 0.2 * j as f64).collect();
        assert_eq!(from_one_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "from_one",
            &[w.concat(), x.clone()].concat(),
            |stack| from_one_adjoint(stack, &w, &x),
            || from_one_grad(&w, &x),
            || from_one_grad_tape(&w, &x),
            |p| from_one_dual(p, rows),
        );
    }
}

#[test]
fn a_callee_adds_into_a_borrowed_row_only_where_its_caller_has_one() {
    let (n, hidden, outputs) = (5, 4, 2);
    let w1 = matrix(hidden, n, 0.2);
    let b1: Vec<f64> = (0..hidden).map(|i| 0.1 * i as f64 - 0.2).collect();
    let w2 = matrix(outputs, hidden, 2.0);
    let b2 = vec![0.05, -0.1];
    let x: Vec<f64> = (0..n).map(|j| 0.5 - 0.2 * j as f64).collect();
    assert_eq!(two_layers_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "two_layers",
        &[w1.concat(), b1.clone(), w2.concat(), b2.clone()].concat(),
        |stack| two_layers_adjoint(stack, &w1, &b1, &w2, &b2, &x),
        || two_layers_grad(&w1, &b1, &w2, &b2, &x),
        || two_layers_grad_tape(&w1, &b1, &w2, &b2, &x),
        |p| two_layers_dual(p, &x, hidden, outputs),
    );
}

/// `f_hvp` runs the reverse with its borrowed rows on dual numbers:
/// against `(∇f(x + h v) − ∇f(x − h v)) / 2h` of the tape's gradient.
#[test]
fn hessian_vector_products_through_borrowed_rows() {
    let n = 4;
    let m = matrix(n, n, 0.7);
    let x: Vec<f64> = (0..n).map(|j| 0.3 - 0.1 * j as f64).collect();
    let vm = matrix(n, n, 2.5);
    let vx: Vec<f64> = (0..n).map(|j| 0.2 + 0.1 * j as f64).collect();
    let h = 1e-5;
    let moved = |t: f64| {
        let m: Vec<Vec<f64>> = m
            .iter()
            .zip(&vm)
            .map(|(row, v)| row.iter().zip(v).map(|(a, b)| a + t * b).collect())
            .collect();
        let x: Vec<f64> = x.iter().zip(&vx).map(|(a, b)| a + t * b).collect();
        let (gm, gx) = triangles_grad_tape(&m, &x).unwrap().gradient;
        [gm.concat(), gx].concat()
    };
    let want: Vec<f64> = moved(h)
        .iter()
        .zip(moved(-h))
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect();
    let (hm, hx) = triangles_hvp(&m, &x, (vm.clone(), vx.clone())).unwrap().hvp;
    assert_all_close_named(&[hm.concat(), hx].concat(), &want, 1e-6, "triangles_hvp");
}

/// Rows whose items the loop assigns (`e[j] = ..`, `e[j] /= sum`), which
/// the reverse does not borrow, beside rows read at every trip (`w[j]`
/// from 1) and read also at another index (`z[0]`, `e[j - 1]`).
#[differentiable]
fn assigned_items(z: &[f64], w: &[f64]) -> f64 {
    let mut e = vec![0.0; z.len()];
    let mut sum = 0.0;
    for j in 0..z.len() {
        e[j] = (z[j] - z[0]).exp();
        sum += e[j];
    }
    for j in 0..z.len() {
        e[j] /= sum;
    }
    let mut total = 0.0;
    for j in 1..z.len() {
        e[j] *= w[j];
        total += e[j] * e[j - 1];
    }
    total
}

fn assigned_items_dual(p: &[Dual]) -> Dual {
    let (z, w) = p.split_at(p.len() / 2);
    let mut e: Vec<Dual> = z.iter().map(|v| (*v - z[0]).exp()).collect();
    let mut sum = Dual::constant(0.0);
    for v in &e {
        sum = sum + *v;
    }
    for v in e.iter_mut() {
        *v = *v / sum;
    }
    let mut total = Dual::constant(0.0);
    for j in 1..z.len() {
        e[j] = e[j] * w[j];
        total = total + e[j] * e[j - 1];
    }
    total
}

#[test]
fn rows_whose_items_the_loop_assigns() {
    for n in [1, 2, 5] {
        let z: Vec<f64> = (0..n).map(|j| 0.3 * j as f64 - 0.4).collect();
        let w: Vec<f64> = (0..n).map(|j| 1.0 - 0.25 * j as f64).collect();
        assert_eq!(assigned_items_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "assigned_items",
            &[z.clone(), w.clone()].concat(),
            |stack| assigned_items_adjoint(stack, &z, &w),
            || assigned_items_grad(&z, &w),
            || assigned_items_grad_tape(&z, &w),
            assigned_items_dual,
        );
    }
}

/// A row read whole by an inner loop of a loop over an inclusive range
/// with one trip (`for r in 0..=0`), which the body changes afterwards: saved for the
/// reverse only when the outer loop has a trip, which `0..=0` has. It was
/// tested as `0 < 0` and not saved, and the reverse indexed an empty row
/// (a panic, "range end index 2 out of range for slice of length 0";
/// seed 20756, pre-existing on d4b4411).
#[differentiable]
fn inclusive_rows(a: f64, b: f64) -> f64 {
    let mut xs = [0.0; 2];
    xs[0] = a;
    xs[1] = b;
    let w = [b, a.sin(), a * b, 0.5];
    let mut out = [0.0; 2];
    for r in 0..=0 {
        for c in 0..2 {
            out[r] += w[r * 2 + c] * xs[c];
        }
    }
    for r in 1..=1 {
        for c in 0..2 {
            out[r] += w[r * 2 + c] * xs[c];
        }
    }
    xs[0] -= a.abs();
    out[0] * out[1] + xs[0] * xs[1]
}

#[test]
fn rows_read_in_a_loop_over_an_inclusive_range_are_saved() {
    let mut rng = crate::xorshift::Rng(41);
    for _ in 0..8 {
        let (a, b) = (rng.uniform(1.5), rng.uniform(1.5));
        let point = [a, b];
        super::support::compiled_agrees(
            "inclusive_rows",
            &point,
            |stack| inclusive_rows_adjoint(stack, a, b),
            || inclusive_rows_grad(a, b),
            || inclusive_rows_grad_tape(a, b),
            |p| {
                let (a, b) = (p[0], p[1]);
                let w = [b, a.sin(), a * b, crate::oracle::Dual::constant(0.5)];
                let out0 = w[0] * a + w[1] * b;
                let out1 = w[2] * a + w[3] * b;
                out0 * out1 + (a - a.abs()) * b
            },
        );
    }
}
