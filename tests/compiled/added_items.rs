//! Items a loop's body only adds to or subtracts from at a place fixed in
//! the loop (`q[t][c] += x[t][r] * wq[r][c];` in a loop over `r`), whose
//! adjoint the reverse reads once before the loop (`let q_bar_item =
//! q_bar[t][c];`, see `autodiff-macros/src/emit/adjoint/sweep/rows.rs`):
//! three projections added to and subtracted from at once, the same item
//! added to twice in one trip, ranges with no trip where the item's row
//! does not exist (the read is made only where the range has a trip), an
//! item whose value the loop also reads (`acc[t] += acc[t] * ..`, not
//! read before the loop) and one added to under a branch (not either).
//! Also numbers a loop reads and never changes, which the forward pushes
//! once after the loop instead of at every trip that reads them (`sum` of
//! a softmax row read by every item, a number changed after the loop that
//! read it, loops with no trip), and rows a loop reads whole at every
//! trip of a loop around it, saved once after that loop (`e` of a softmax
//! row, of which the loop reads a prefix, and a loop around with no
//! trip). Each takes the compiled path, agrees
//! with the tape, and matches a dual-number twin written out by hand;
//! `f_hvp`, which runs the same
//! reverse on dual numbers, matches central differences of the tape's
//! gradient.

// Written as a student writes it: loops by index.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::compiled_agrees;
use crate::oracle::{assert_all_close_named, Dual};

/// `Q = X Wq`, `K = −X Wk` (subtracted) and `V = 2 X Wv` (added twice),
/// summed through `tanh`.
#[differentiable]
fn projections(x: &[Vec<f64>], wq: &[Vec<f64>], wk: &[Vec<f64>], wv: &[Vec<f64>]) -> f64 {
    let n = x.len();
    let d = wq[0].len();
    let mut q = vec![vec![0.0; d]; n];
    let mut k = vec![vec![0.0; d]; n];
    let mut v = vec![vec![0.0; d]; n];
    for t in 0..n {
        for c in 0..d {
            for r in 0..x[t].len() {
                q[t][c] += x[t][r] * wq[r][c];
                k[t][c] -= x[t][r] * wk[r][c];
                v[t][c] += x[t][r] * wv[r][c];
                v[t][c] += wv[r][c] * x[t][r];
            }
        }
    }
    let mut total = 0.0;
    for t in 0..n {
        for c in 0..d {
            total += (q[t][c] * k[t][c]).tanh() + v[t][c] * v[t][c];
        }
    }
    total
}

fn projections_dual(p: &[Dual], n: usize, d: usize) -> Dual {
    let (x, rest) = p.split_at(n * n);
    let (wq, rest) = rest.split_at(n * d);
    let (wk, wv) = rest.split_at(n * d);
    let mut total = Dual::constant(0.0);
    for t in 0..n {
        for c in 0..d {
            let (mut q, mut k, mut v) = (
                Dual::constant(0.0),
                Dual::constant(0.0),
                Dual::constant(0.0),
            );
            for r in 0..n {
                q = q + x[t * n + r] * wq[r * d + c];
                k = k - x[t * n + r] * wk[r * d + c];
                v = v + x[t * n + r] * wv[r * d + c];
                v = v + wv[r * d + c] * x[t * n + r];
            }
            total = total + (q * k).tanh() + v * v;
        }
    }
    total
}

/// Sums over ragged rows into `acc`, which has a row only for the rows of
/// `x` that are not empty (those come first): a loop with no trip may not
/// read `acc_bar[t]`. `acc[t]` is also added to with its own value (its
/// adjoint changes in the loop: read at every trip) and under a branch.
#[differentiable]
fn ragged_sums(x: &[Vec<f64>], w: &[f64], rows: usize) -> f64 {
    let mut acc = vec![0.0; rows];
    let mut own = vec![1.0; rows];
    let mut some = vec![0.0; rows];
    for t in 0..x.len() {
        for r in 0..x[t].len() {
            acc[t] += w[r] * x[t][r].sin();
            own[t] += own[t] * w[r] * x[t][r];
            if r % 2 == 0 {
                some[t] += x[t][r] * x[t][r];
            }
        }
    }
    let mut total = 0.0;
    for t in 0..rows {
        total += acc[t] * acc[t] + own[t] + some[t] * w[0];
    }
    total
}

fn ragged_sums_dual(p: &[Dual], lengths: &[usize], rows: usize) -> Dual {
    let count: usize = lengths.iter().sum();
    let (x, w) = p.split_at(count);
    let mut total = Dual::constant(0.0);
    let mut at = 0;
    for t in 0..rows {
        let (mut acc, mut own, mut some) = (
            Dual::constant(0.0),
            Dual::constant(1.0),
            Dual::constant(0.0),
        );
        for r in 0..lengths[t] {
            let xr = x[at + r];
            acc = acc + w[r] * xr.sin();
            own = own + own * w[r] * xr;
            if r % 2 == 0 {
                some = some + xr * xr;
            }
        }
        at += lengths[t];
        total = total + acc * acc + own + some * w[0];
    }
    total
}

fn matrix(rows: usize, cols: usize, seed: f64) -> Vec<Vec<f64>> {
    (0..rows)
        .map(|i| {
            (0..cols)
                .map(|j| ((i * cols + j) as f64 * 0.37 + seed).sin() * 0.6)
                .collect()
        })
        .collect()
}

#[test]
fn projections_added_to_and_subtracted_from() {
    for (n, d) in [(1, 1), (3, 2), (4, 5)] {
        let x = matrix(n, n, 0.3);
        let (wq, wk, wv) = (matrix(n, d, 1.1), matrix(n, d, 2.3), matrix(n, d, 0.7));
        assert_eq!(projections_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "projections",
            &[x.concat(), wq.concat(), wk.concat(), wv.concat()].concat(),
            |stack| projections_adjoint(stack, &x, &wq, &wk, &wv),
            || projections_grad(&x, &wq, &wk, &wv),
            || projections_grad_tape(&x, &wq, &wk, &wv),
            |p| projections_dual(p, n, d),
        );
    }
}

#[test]
fn an_item_is_read_only_where_the_loop_has_a_trip() {
    let x = vec![
        vec![0.3, -0.2, 0.6],
        vec![0.5],
        vec![0.1, 0.4, -0.7, 0.9],
        vec![],
        vec![],
    ];
    let rows = 3;
    let lengths: Vec<usize> = x.iter().map(Vec::len).collect();
    let w = vec![0.8, -0.4, 0.3, 0.2];
    assert_eq!(ragged_sums_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "ragged_sums",
        &[x.concat(), w.clone()].concat(),
        |stack| ragged_sums_adjoint(stack, &x, &w, rows),
        || ragged_sums_grad(&x, &w, rows),
        || ragged_sums_grad_tape(&x, &w, rows),
        |p| ragged_sums_dual(p, &lengths, rows),
    );
}

/// `f_hvp` runs the reverse with its items read once on dual numbers:
/// against `(∇f(x + h v) − ∇f(x − h v)) / 2h` of the tape's gradient.
#[test]
fn hessian_vector_products_through_items_read_once() {
    let (n, d) = (3, 2);
    let x = matrix(n, n, 0.3);
    let (wq, wk, wv) = (matrix(n, d, 1.1), matrix(n, d, 2.3), matrix(n, d, 0.7));
    let dirs = [
        matrix(n, n, 4.0),
        matrix(n, d, 5.0),
        matrix(n, d, 6.0),
        matrix(n, d, 7.0),
    ];
    let h = 1e-5;
    let moved = |t: f64| {
        let at = |m: &Vec<Vec<f64>>, v: &Vec<Vec<f64>>| -> Vec<Vec<f64>> {
            m.iter()
                .zip(v)
                .map(|(row, v)| row.iter().zip(v).map(|(a, b)| a + t * b).collect())
                .collect()
        };
        let (gx, gq, gk, gv) = projections_grad_tape(
            &at(&x, &dirs[0]),
            &at(&wq, &dirs[1]),
            &at(&wk, &dirs[2]),
            &at(&wv, &dirs[3]),
        )
        .unwrap()
        .gradient;
        [gx.concat(), gq.concat(), gk.concat(), gv.concat()].concat()
    };
    let want: Vec<f64> = moved(h)
        .iter()
        .zip(moved(-h))
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect();
    let (hx, hq, hk, hv) = projections_hvp(&x, &wq, &wk, &wv, dirs.clone().into())
        .unwrap()
        .hvp;
    let got = [hx.concat(), hq.concat(), hk.concat(), hv.concat()].concat();
    assert_all_close_named(&got, &want, 1e-6, "projections_hvp");
}

/// Softmax rows read by a nested loop (`sum` and `scale`, bindings of the
/// outer body, read at every inner trip), a number changed after the loop
/// that read it (`a`), and rows with no trip (`0..i` of the first row).
#[differentiable]
fn held_numbers(z: &[Vec<f64>], v: &[f64]) -> f64 {
    let mut total = 0.0;
    let mut a = v[0] * 0.5;
    for i in 0..z.len() {
        let mut sum = 0.0;
        for j in 0..z[i].len() {
            sum += z[i][j].exp();
        }
        let scale = (sum + 1.0).ln();
        for c in 0..v.len() {
            let mut o = 0.0;
            for j in 0..z[i].len() {
                o += z[i][j].exp() / sum * v[c] * 0.5 + scale * a;
            }
            for _j in 0..i {
                o += a * v[c] / (sum + 1.0);
            }
            total += o * o;
        }
        a = a * 0.75 + total.sin();
    }
    total * a
}

fn held_numbers_dual(p: &[Dual], lengths: &[usize]) -> Dual {
    let count: usize = lengths.iter().sum();
    let (z, v) = p.split_at(count);
    let mut total = Dual::constant(0.0);
    let mut a = v[0] * 0.5;
    let mut at = 0;
    for (i, &len) in lengths.iter().enumerate() {
        let row = &z[at..at + len];
        at += len;
        let mut sum = Dual::constant(0.0);
        for zj in row {
            sum = sum + zj.exp();
        }
        let scale = (sum + 1.0).ln();
        for vc in v {
            let mut o = Dual::constant(0.0);
            for zj in row {
                o = o + (zj.exp() / sum * *vc * 0.5 + scale * a);
            }
            for _ in 0..i {
                o = o + a * *vc / (sum + 1.0);
            }
            total = total + o * o;
        }
        a = a * 0.75 + total.sin();
    }
    total * a
}

#[test]
fn numbers_a_loop_never_changes_are_pushed_once() {
    for z in [
        vec![vec![0.3, -0.2, 0.6], vec![0.5], vec![0.1, 0.4, -0.7, 0.9]],
        vec![vec![], vec![0.2, -0.1]],
        vec![vec![0.7]],
    ] {
        let lengths: Vec<usize> = z.iter().map(Vec::len).collect();
        let v = vec![0.8, -0.4, 0.3];
        assert_eq!(held_numbers_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "held_numbers",
            &[z.concat(), v.clone()].concat(),
            |stack| held_numbers_adjoint(stack, &z, &v),
            || held_numbers_grad(&z, &v),
            || held_numbers_grad_tape(&z, &v),
            |p| held_numbers_dual(p, &lengths),
        );
    }
}

/// A row `e` that the loop over `j` reads whole (its first `n` of `n + 2`
/// items) at every trip of the loop over `c`, which may have no trip
/// (`width` 0).
#[differentiable]
fn held_rows(z: &[Vec<f64>], v: &[f64], width: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..z.len() {
        let n = z[i].len();
        let mut e = vec![0.0; n + 2];
        for j in 0..n {
            e[j] = z[i][j].exp();
        }
        for c in 0..width {
            let mut o = 0.0;
            for j in 0..n {
                o += e[j] * v[c % v.len()] + e[j] * e[j];
            }
            total += o * o;
        }
        total += e[0] * 0.5;
    }
    total
}

fn held_rows_dual(p: &[Dual], lengths: &[usize], width: usize) -> Dual {
    let count: usize = lengths.iter().sum();
    let (z, v) = p.split_at(count);
    let mut total = Dual::constant(0.0);
    let mut at = 0;
    for &len in lengths {
        let e: Vec<Dual> = z[at..at + len].iter().map(|zj| zj.exp()).collect();
        at += len;
        for c in 0..width {
            let mut o = Dual::constant(0.0);
            for ej in &e {
                o = o + (*ej * v[c % v.len()] + *ej * *ej);
            }
            total = total + o * o;
        }
        let first = e.first().copied().unwrap_or(Dual::constant(0.0));
        total = total + first * 0.5;
    }
    total
}

#[test]
fn rows_a_loop_reads_whole_are_pushed_once() {
    for width in [0, 1, 3] {
        for z in [
            vec![vec![0.3, -0.2, 0.6], vec![0.5], vec![0.1, 0.4, -0.7, 0.9]],
            vec![vec![], vec![0.2, -0.1]],
        ] {
            let lengths: Vec<usize> = z.iter().map(Vec::len).collect();
            let v = vec![0.8, -0.4];
            assert_eq!(held_rows_grad_path(), GradientPath::Compiled);
            compiled_agrees(
                "held_rows",
                &[z.concat(), v.clone()].concat(),
                |stack| held_rows_adjoint(stack, &z, &v, width),
                || held_rows_grad(&z, &v, width),
                || held_rows_grad_tape(&z, &v, width),
                |p| held_rows_dual(p, &lengths, width),
            );
        }
    }
}
