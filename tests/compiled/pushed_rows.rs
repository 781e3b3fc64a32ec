//! A row of numbers moved onto a list by `out.push(row)`, whose adjoint
//! the reverse takes whole from the list's (`__adjoint::take_pushed`)
//! instead of adding it into zeros: a helper's rows, as `matmul` pushes
//! them, and a list grown and read in one body. Each against the tape and
//! a dual-number twin, and bit for bit against a twin that pushes
//! `row.clone()` (which keeps `row` alive, so its adjoint is added into
//! as before), with cotangents of `-0.0`, rows of no items and lists of
//! no rows; and the name of the pushed row bound again after the pushes.
//! Where the row is pushed by a statement of its own block, the forward
//! saves its length alone and the reverse takes the popped row as its
//! adjoint (`__adjoint::take_pushed_row`): rows read between their growth
//! and their push, with a statement after the push.

// Written as a student writes it: loops by index.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{compiled_agrees, matrix};
use crate::oracle::Dual;

/// `n` rows of `m` items, `tanh(x[j] · w[i][j])`.
#[differentiable]
fn squashed(x: &[f64], w: &[Vec<f64>], n: usize) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    for i in 0..n {
        let mut row = Vec::new();
        for j in 0..x.len() {
            row.push((x[j] * w[i][j]).tanh());
        }
        out.push(row);
    }
    out
}

/// The same rows, each pushed as a copy.
#[differentiable]
fn squashed_copied(x: &[f64], w: &[Vec<f64>], n: usize) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    for i in 0..n {
        let mut row = Vec::new();
        for j in 0..x.len() {
            row.push((x[j] * w[i][j]).tanh());
        }
        out.push(row.clone());
    }
    out
}

/// `Σ c[i][j] · squashed(x, w, n)[i][j]`: a `c` of `-0.0` gives the
/// rows' adjoints negative zeros.
#[differentiable]
fn weighed(x: &[f64], w: &[Vec<f64>], #[constant] c: &[Vec<f64>], n: usize) -> f64 {
    let rows = squashed(x, w, n);
    let mut total = 0.0;
    for i in 0..rows.len() {
        for j in 0..rows[i].len() {
            total += c[i][j] * rows[i][j];
        }
    }
    total
}

#[differentiable]
fn weighed_copied(x: &[f64], w: &[Vec<f64>], #[constant] c: &[Vec<f64>], n: usize) -> f64 {
    let rows = squashed_copied(x, w, n);
    let mut total = 0.0;
    for i in 0..rows.len() {
        for j in 0..rows[i].len() {
            total += c[i][j] * rows[i][j];
        }
    }
    total
}

/// A list of rows grown and read in one body: row `i` is `x` scaled by
/// `w[i]` and shifted by the previous row's last item.
#[differentiable]
fn local_rows(x: &[f64], w: &[f64], #[constant] c: &[f64]) -> f64 {
    let mut m = Vec::new();
    let mut carry = 0.0;
    for i in 0..w.len() {
        let mut row = Vec::new();
        for j in 0..x.len() {
            row.push(x[j] * w[i] + carry);
        }
        if !row.is_empty() {
            carry = row[row.len() - 1].sin();
        }
        m.push(row);
    }
    let mut total = carry;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            total += c[j] * m[i][j];
        }
    }
    total
}

#[differentiable]
fn local_rows_copied(x: &[f64], w: &[f64], #[constant] c: &[f64]) -> f64 {
    let mut m = Vec::new();
    let mut carry = 0.0;
    for i in 0..w.len() {
        let mut row = Vec::new();
        for j in 0..x.len() {
            row.push(x[j] * w[i] + carry);
        }
        if !row.is_empty() {
            carry = row[row.len() - 1].sin();
        }
        m.push(row.clone());
    }
    let mut total = carry;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            total += c[j] * m[i][j];
        }
    }
    total
}

fn squashed_dual(x: &[Dual], w: &[Dual], n: usize) -> Vec<Vec<Dual>> {
    let len = x.len();
    (0..n)
        .map(|i| (0..len).map(|j| (x[j] * w[i * len + j]).tanh()).collect())
        .collect()
}

fn weighed_dual(p: &[Dual], len: usize, c: &[Vec<f64>], n: usize) -> Dual {
    let (x, w) = p.split_at(len);
    let rows = squashed_dual(x, w, n);
    let mut total = Dual::constant(0.0);
    for i in 0..n {
        for j in 0..len {
            total = total + rows[i][j] * c[i][j];
        }
    }
    total
}

fn local_rows_dual(p: &[Dual], len: usize, c: &[f64]) -> Dual {
    let (x, w) = p.split_at(len);
    let mut m = Vec::new();
    let mut carry = Dual::constant(0.0);
    for &wi in w {
        let row: Vec<Dual> = x.iter().map(|&xj| xj * wi + carry).collect();
        if let Some(&last) = row.last() {
            carry = last.sin();
        }
        m.push(row);
    }
    let mut total = carry;
    for row in &m {
        for (j, &item) in row.iter().enumerate() {
            total = total + item * c[j];
        }
    }
    total
}

fn bits(gradient: &[f64]) -> Vec<u64> {
    gradient.iter().map(|x| x.to_bits()).collect()
}

/// `c` of `rows × cols`, every other item `-0.0` where `zeros`.
fn weights(rows: usize, cols: usize, zeros: bool) -> Vec<Vec<f64>> {
    let mut c = matrix(rows, cols, 1.3);
    if zeros {
        for (k, item) in c.iter_mut().flatten().enumerate() {
            if k % 2 == 0 {
                *item = -0.0;
            }
        }
    }
    c
}

#[test]
fn a_helpers_rows_taken_whole_by_the_reverse() {
    assert_eq!(weighed_grad_path(), GradientPath::Compiled);
    assert_eq!(weighed_copied_grad_path(), GradientPath::Compiled);
    // (items of x, rows n): no row, rows of no item, one of one, several.
    for (len, n) in [(3, 2), (0, 3), (1, 1), (4, 0), (5, 6), (3, 2)] {
        for zeros in [false, true] {
            let x: Vec<f64> = (0..len).map(|k| 0.4 - 0.3 * k as f64).collect();
            let w = matrix(n, len, 0.5);
            let c = weights(n, len, zeros);
            compiled_agrees(
                "weighed",
                &[x.clone(), w.concat()].concat(),
                |stack| weighed_adjoint(stack, &x, &w, &c, n),
                || weighed_grad(&x, &w, &c, n),
                || weighed_grad_tape(&x, &w, &c, n),
                |p| weighed_dual(p, len, &c, n),
            );
            let taken = weighed_grad(&x, &w, &c, n).unwrap();
            let added = weighed_copied_grad(&x, &w, &c, n).unwrap();
            assert_eq!(taken.value.to_bits(), added.value.to_bits());
            assert_eq!(bits(&taken.gradient.0), bits(&added.gradient.0));
            assert_eq!(
                bits(&taken.gradient.1.concat()),
                bits(&added.gradient.1.concat()),
                "{len} {n} {zeros}"
            );
            // An item whose every product was weighed by `-0.0` is `+0.0`,
            // a sum started from zero, not the cotangent's sign.
            if zeros && len == 1 {
                for row in &taken.gradient.1 {
                    assert!(row.iter().all(|g| g.to_bits() != (-0.0f64).to_bits()));
                }
            }
        }
    }
}

#[test]
fn a_list_of_rows_grown_and_read_in_one_body() {
    assert_eq!(local_rows_grad_path(), GradientPath::Compiled);
    assert_eq!(local_rows_copied_grad_path(), GradientPath::Compiled);
    for (len, n) in [(3, 2), (0, 3), (1, 1), (4, 0), (5, 6)] {
        for zeros in [false, true] {
            let x: Vec<f64> = (0..len).map(|k| 0.4 - 0.3 * k as f64).collect();
            let w: Vec<f64> = (0..n).map(|i| 0.7 - 0.25 * i as f64).collect();
            let c = weights(1, len, zeros).concat();
            compiled_agrees(
                "local_rows",
                &[x.clone(), w.clone()].concat(),
                |stack| local_rows_adjoint(stack, &x, &w, &c),
                || local_rows_grad(&x, &w, &c),
                || local_rows_grad_tape(&x, &w, &c),
                |p| local_rows_dual(p, len, &c),
            );
            let taken = local_rows_grad(&x, &w, &c).unwrap();
            let added = local_rows_copied_grad(&x, &w, &c).unwrap();
            assert_eq!(taken.value.to_bits(), added.value.to_bits());
            assert_eq!(bits(&taken.gradient.0), bits(&added.gradient.0));
            assert_eq!(bits(&taken.gradient.1), bits(&added.gradient.1));
        }
    }
}

/// `row` bound again after the pushes (a borrow of a pushed row), which
/// the macro renames: the pushed rows are still taken whole.
#[differentiable]
fn rebound_row(x: &[f64], n: usize) -> f64 {
    let mut out = Vec::new();
    for i in 0..n {
        let mut row = Vec::new();
        for j in 0..x.len() {
            row.push(x[j] * (i as f64 + 1.0));
        }
        out.push(row);
    }
    let mut total = 0.0;
    for i in 0..out.len() {
        let row = &out[i];
        for j in 0..row.len() {
            total += row[j].sin();
        }
    }
    total
}

fn rebound_row_dual(x: &[Dual], n: usize) -> Dual {
    let mut total = Dual::constant(0.0);
    for i in 0..n {
        for &xj in x {
            total = total + (xj * (i as f64 + 1.0)).sin();
        }
    }
    total
}

#[test]
fn a_name_bound_again_after_the_pushes() {
    assert_eq!(rebound_row_grad_path(), GradientPath::Compiled);
    for (len, n) in [(3, 2), (1, 1), (0, 2), (2, 0)] {
        let x: Vec<f64> = (0..len).map(|k| 0.4 - 0.3 * k as f64).collect();
        compiled_agrees(
            "rebound_row",
            &x,
            |stack| rebound_row_adjoint(stack, &x, n),
            || rebound_row_grad(&x, n),
            || rebound_row_grad_tape(&x, n),
            |p| rebound_row_dual(p, n),
        );
    }
}

/// Rows whose forward saves their lengths alone (the reverse takes each
/// popped row as its adjoint, `__adjoint::take_pushed_row`): read between
/// their growth and their push (`row[k - 1]`, `row[0]`, `row.len()`), with
/// a statement after the push in the same trip.
#[differentiable]
fn read_then_pushed(x: &[f64], w: &[Vec<f64>], n: usize) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    let mut carry = 0.25;
    for i in 0..n {
        let mut row = Vec::new();
        for j in 0..x.len() {
            row.push((x[j] * w[i][j] + carry).tanh());
        }
        let k = row.len();
        if k > 0 {
            carry += row[k - 1] * row[0];
        }
        out.push(row);
        carry = carry.sin();
    }
    out
}

/// The same rows, each pushed as a copy (its adjoint added into zeros).
#[differentiable]
fn read_then_pushed_copied(x: &[f64], w: &[Vec<f64>], n: usize) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    let mut carry = 0.25;
    for i in 0..n {
        let mut row = Vec::new();
        for j in 0..x.len() {
            row.push((x[j] * w[i][j] + carry).tanh());
        }
        let k = row.len();
        if k > 0 {
            carry += row[k - 1] * row[0];
        }
        out.push(row.clone());
        carry = carry.sin();
    }
    out
}

/// `Σ c[i][j] · read_then_pushed(x, w, n)[i][j]`, and a second call whose
/// value nothing reads (its cotangent is zeros shaped like the value, each
/// row taken whole as any other).
#[differentiable]
fn read_weighed(x: &[f64], w: &[Vec<f64>], #[constant] c: &[Vec<f64>], n: usize) -> f64 {
    let rows = read_then_pushed(x, w, n);
    let _unread = read_then_pushed(x, w, n);
    let mut total = 0.0;
    for i in 0..rows.len() {
        for j in 0..rows[i].len() {
            total += c[i][j] * rows[i][j];
        }
    }
    total
}

#[differentiable]
fn read_weighed_copied(x: &[f64], w: &[Vec<f64>], #[constant] c: &[Vec<f64>], n: usize) -> f64 {
    let rows = read_then_pushed_copied(x, w, n);
    let _unread = read_then_pushed_copied(x, w, n);
    let mut total = 0.0;
    for i in 0..rows.len() {
        for j in 0..rows[i].len() {
            total += c[i][j] * rows[i][j];
        }
    }
    total
}

/// A list grown and read in one body, its rows taken whole: each row
/// read between its growth and its push.
#[differentiable]
fn local_read_rows(x: &[f64], w: &[f64], #[constant] c: &[f64]) -> f64 {
    let mut m = Vec::new();
    let mut carry = 0.0;
    for i in 0..w.len() {
        let mut row = Vec::new();
        for j in 0..x.len() {
            row.push(x[j] * w[i] + carry);
        }
        for j in 0..row.len() {
            carry += row[j].sin();
        }
        m.push(row);
        carry *= 0.5;
    }
    let mut total = carry;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            total += c[j] * m[i][j];
        }
    }
    total
}

#[differentiable]
fn local_read_rows_copied(x: &[f64], w: &[f64], #[constant] c: &[f64]) -> f64 {
    let mut m = Vec::new();
    let mut carry = 0.0;
    for i in 0..w.len() {
        let mut row = Vec::new();
        for j in 0..x.len() {
            row.push(x[j] * w[i] + carry);
        }
        for j in 0..row.len() {
            carry += row[j].sin();
        }
        m.push(row.clone());
        carry *= 0.5;
    }
    let mut total = carry;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            total += c[j] * m[i][j];
        }
    }
    total
}

fn read_then_pushed_dual(x: &[Dual], w: &[Dual], n: usize) -> Vec<Vec<Dual>> {
    let len = x.len();
    let mut carry = Dual::constant(0.25);
    let mut out = Vec::new();
    for i in 0..n {
        let row: Vec<Dual> = (0..len)
            .map(|j| (x[j] * w[i * len + j] + carry).tanh())
            .collect();
        if len > 0 {
            carry = row[len - 1] * row[0] + carry;
        }
        out.push(row);
        carry = carry.sin();
    }
    out
}

fn read_weighed_dual(p: &[Dual], len: usize, c: &[Vec<f64>], n: usize) -> Dual {
    let (x, w) = p.split_at(len);
    let rows = read_then_pushed_dual(x, w, n);
    let mut total = Dual::constant(0.0);
    for i in 0..n {
        for j in 0..len {
            total = total + rows[i][j] * c[i][j];
        }
    }
    total
}

fn local_read_rows_dual(p: &[Dual], len: usize, c: &[f64]) -> Dual {
    let (x, w) = p.split_at(len);
    let mut m = Vec::new();
    let mut carry = Dual::constant(0.0);
    for &wi in w {
        let row: Vec<Dual> = x.iter().map(|&xj| xj * wi + carry).collect();
        for &item in &row {
            carry = carry + item.sin();
        }
        m.push(row);
        carry = carry * 0.5;
    }
    let mut total = carry;
    for row in &m {
        for (j, &item) in row.iter().enumerate() {
            total = total + item * c[j];
        }
    }
    total
}

#[test]
fn rows_whose_lengths_alone_are_saved() {
    for path in [
        read_weighed_grad_path(),
        read_weighed_copied_grad_path(),
        local_read_rows_grad_path(),
        local_read_rows_copied_grad_path(),
    ] {
        assert_eq!(path, GradientPath::Compiled);
    }
    for (len, n) in [(3, 2), (0, 3), (1, 1), (4, 0), (5, 6)] {
        for zeros in [false, true] {
            let x: Vec<f64> = (0..len).map(|k| 0.4 - 0.3 * k as f64).collect();
            let w = matrix(n, len, 0.5);
            let c = weights(n, len, zeros);
            compiled_agrees(
                "read_weighed",
                &[x.clone(), w.concat()].concat(),
                |stack| read_weighed_adjoint(stack, &x, &w, &c, n),
                || read_weighed_grad(&x, &w, &c, n),
                || read_weighed_grad_tape(&x, &w, &c, n),
                |p| read_weighed_dual(p, len, &c, n),
            );
            let taken = read_weighed_grad(&x, &w, &c, n).unwrap();
            let added = read_weighed_copied_grad(&x, &w, &c, n).unwrap();
            assert_eq!(taken.value.to_bits(), added.value.to_bits());
            assert_eq!(bits(&taken.gradient.0), bits(&added.gradient.0));
            assert_eq!(
                bits(&taken.gradient.1.concat()),
                bits(&added.gradient.1.concat()),
                "{len} {n} {zeros}"
            );
            let wl: Vec<f64> = (0..n).map(|i| 0.7 - 0.25 * i as f64).collect();
            let cl = weights(1, len, zeros).concat();
            compiled_agrees(
                "local_read_rows",
                &[x.clone(), wl.clone()].concat(),
                |stack| local_read_rows_adjoint(stack, &x, &wl, &cl),
                || local_read_rows_grad(&x, &wl, &cl),
                || local_read_rows_grad_tape(&x, &wl, &cl),
                |p| local_read_rows_dual(p, len, &cl),
            );
            let taken = local_read_rows_grad(&x, &wl, &cl).unwrap();
            let added = local_read_rows_copied_grad(&x, &wl, &cl).unwrap();
            assert_eq!(taken.value.to_bits(), added.value.to_bits());
            assert_eq!(bits(&taken.gradient.0), bits(&added.gradient.0));
            assert_eq!(bits(&taken.gradient.1), bits(&added.gradient.1));
        }
    }
}
