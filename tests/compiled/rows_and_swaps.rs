//! Shapes found by writing exercises as a student first writes them, each
//! of which kept the tape (or did not build) until the compiled adjoint
//! took it: a row bound by a `for` over a slice of rows (or by `let x =
//! &xs[i];`) walked by `zip` (`w.iter().zip(x)`, with no `.iter()` on the
//! row); a local `Vec` walked by value inside a `zip` (`w.iter().zip(v)`,
//! which did not build: the loop moved `v` and the reverse read it); a
//! destructuring assignment (`(a, b) = (b, a + b)`, `[p, q] = [q, p]`,
//! whose array form did not build on the tape); and a range over a `Vec`'s
//! length whose items a loop around rewrites (`for i in 0..w.len() {
//! w[i] -= .. }`, a few gradient-descent steps inside a loss). Each takes
//! the compiled path, agrees with the tape, and matches a dual-number twin
//! written out by hand.

// Written as a student writes it: loops by index, `(a, b) = (b, ..)`.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::compiled_agrees;
use crate::oracle::Dual;

/// Squared error of a linear model over rows of data: the rows are bound
/// by the `for` and walked by `zip` as they are.
#[differentiable]
fn row_regression(w: &[f64], b: f64, #[constant] xs: &[Vec<f64>], #[constant] ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for (x, &y) in xs.iter().zip(ys) {
        let z: f64 = w.iter().zip(x).map(|(a, b)| a * b).sum::<f64>() + b;
        loss += (z - y) * (z - y);
    }
    loss
}

fn row_regression_dual(p: &[Dual], xs: &[Vec<f64>], ys: &[f64]) -> Dual {
    let (w, b) = (&p[..p.len() - 1], p[p.len() - 1]);
    let mut loss = Dual::constant(0.0);
    for (x, &y) in xs.iter().zip(ys) {
        let mut z = b;
        for (a, &v) in w.iter().zip(x) {
            z = z + *a * v;
        }
        loss = loss + (z - y) * (z - y);
    }
    loss
}

/// The same row, bound by `let x = &xs[i];`, and a tracked row of a
/// matrix walked by `zip` from the other side (`x.iter().zip(row)`).
#[differentiable]
fn borrowed_rows(m: &[Vec<f64>], w: &[f64], #[constant] xs: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        let x = &xs[i];
        let d: f64 = w.iter().zip(x).map(|(a, b)| a * b).sum();
        s += d.tanh();
    }
    for row in m {
        let d: f64 = w.iter().zip(row).map(|(a, b)| a * b).sum();
        s += d * d;
    }
    s
}

fn borrowed_rows_dual(p: &[Dual], rows: usize, xs: &[Vec<f64>]) -> Dual {
    let n = (p.len()) / (rows + 1);
    let (m, w) = p.split_at(rows * n);
    let mut s = Dual::constant(0.0);
    for x in xs {
        let mut d = Dual::constant(0.0);
        for (a, &v) in w.iter().zip(x) {
            d = d + *a * v;
        }
        s = s + d.tanh();
    }
    for row in m.chunks(n) {
        let mut d = Dual::constant(0.0);
        for (a, r) in w.iter().zip(row) {
            d = d + *a * *r;
        }
        s = s + d * d;
    }
    s
}

/// A local `Vec` walked by value inside a `zip`, and by a `for` of its
/// own: the loops borrow it, so the reverse sweep reads the same items.
#[differentiable]
fn owned_walk(w: &[f64], x: &[f64]) -> f64 {
    let v = x.to_vec();
    let squares: Vec<f64> = x.iter().map(|t| t * t).collect();
    let mut s = 0.0;
    for (a, b) in w.iter().zip(v) {
        s += a * b;
    }
    for q in squares {
        s += q.sin();
    }
    s
}

fn owned_walk_dual(p: &[Dual]) -> Dual {
    let (w, x) = p.split_at(p.len() / 2);
    let mut s = Dual::constant(0.0);
    for (a, b) in w.iter().zip(x) {
        s = s + *a * *b;
    }
    for t in x {
        s = s + (*t * *t).sin();
    }
    s
}

/// Destructuring assignments: a tuple in a loop whose components read
/// the names assigned (held first, as Rust evaluates them), and an array.
#[differentiable]
fn swaps(x: f64, y: f64) -> f64 {
    let (mut a, mut b) = (x, y);
    let mut i = 0;
    while i < 4 {
        (a, b) = (b, a * b + 0.1);
        i += 1;
    }
    let [mut p, mut q] = [a, b];
    [p, q] = [q * 0.5, p];
    let (mut u, mut v) = (p, q);
    (u, v) = (x.sin() + u, y * 2.0 - v);
    (v, u) = (u + v, v);
    p / q + u * v
}

fn swaps_dual(p: &[Dual]) -> Dual {
    let (x, y) = (p[0], p[1]);
    let (mut a, mut b) = (x, y);
    for _ in 0..4 {
        let next = (b, a * b + 0.1);
        a = next.0;
        b = next.1;
    }
    let (p, q) = (b * 0.5, a);
    let (u, v) = (x.sin() + p, y * 2.0 - q);
    let (v, u) = (u + v, v);
    p / q + u * v
}

/// A few gradient-descent steps inside a loss: the inner range is the
/// length of a `Vec` whose items the steps rewrite, the same length in
/// the reverse sweep.
#[differentiable]
fn descent_steps(x: &[f64], lr: f64) -> f64 {
    let mut w = x.to_vec();
    for _ in 0..3 {
        let g: Vec<f64> = w.iter().map(|v| 2.0 * v + v.sin()).collect();
        for i in 0..w.len() {
            w[i] -= lr * g[i];
        }
    }
    let mut s = 0.0;
    for i in (0..w.len()).rev() {
        s += w[i] * w[i] * (i as f64 + 1.0);
    }
    s
}

fn descent_steps_dual(p: &[Dual]) -> Dual {
    let (x, lr) = (&p[..p.len() - 1], p[p.len() - 1]);
    let mut w = x.to_vec();
    for _ in 0..3 {
        let g: Vec<Dual> = w.iter().map(|v| *v * 2.0 + v.sin()).collect();
        for i in 0..w.len() {
            w[i] = w[i] - lr * g[i];
        }
    }
    let mut s = Dual::constant(0.0);
    for (i, v) in w.iter().enumerate() {
        s = s + *v * *v * (i as f64 + 1.0);
    }
    s
}

#[test]
fn rows_bound_by_a_for_or_a_borrow_are_walked_by_zip() {
    let xs = vec![
        vec![0.1, 0.2, -0.3],
        vec![1.0, 0.9, 0.4],
        vec![-0.5, 0.3, 0.8],
    ];
    let ys = [1.0, 0.0, 0.5];
    let (w, b) = (vec![0.3, -0.2, 0.5], 0.1);
    assert_eq!(row_regression_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "row_regression",
        &[w.clone(), vec![b]].concat(),
        |stack| row_regression_adjoint(stack, &w, b, &xs, &ys),
        || row_regression_grad(&w, b, &xs, &ys),
        || row_regression_grad_tape(&w, b, &xs, &ys),
        |p| row_regression_dual(p, &xs, &ys),
    );
    let m = vec![vec![0.7, -0.1, 0.2], vec![0.4, 0.5, -0.6]];
    assert_eq!(borrowed_rows_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "borrowed_rows",
        &[m.concat(), w.clone()].concat(),
        |stack| borrowed_rows_adjoint(stack, &m, &w, &xs),
        || borrowed_rows_grad(&m, &w, &xs),
        || borrowed_rows_grad_tape(&m, &w, &xs),
        |p| borrowed_rows_dual(p, m.len(), &xs),
    );
}

#[test]
fn a_local_vec_walked_by_value_is_left_for_the_reverse() {
    let (w, x) = (vec![0.3, -0.2, 0.5, 0.9], vec![1.1, -0.4, 0.6, 0.2]);
    assert_eq!(owned_walk_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "owned_walk",
        &[w.clone(), x.clone()].concat(),
        |stack| owned_walk_adjoint(stack, &w, &x),
        || owned_walk_grad(&w, &x),
        || owned_walk_grad_tape(&w, &x),
        owned_walk_dual,
    );
}

/// A destructuring assignment that hands a tracked value to a binding
/// that held a constant (`acc`), next to one of two counters that stay
/// plain integers: each target is tracked as its own component is (this
/// did not build on the tape: `acc` stayed an `f64` there).
#[differentiable]
fn mixed_swaps(x: f64) -> f64 {
    let mut acc = 1.9375;
    let (mut i, mut j) = (0, 3);
    let mut y = x;
    while i < j {
        [y, acc] = [acc, (y * -0.25 + acc).tanh()];
        (i, j) = (i + 1, j);
    }
    let mut z = 0.5;
    (z, acc) = (acc * 2.0, z);
    y + z * acc
}

fn mixed_swaps_dual(p: &[Dual]) -> Dual {
    let (mut y, mut acc) = (p[0], Dual::constant(1.9375));
    for _ in 0..3 {
        let next = (y * -0.25 + acc).tanh();
        (y, acc) = (acc, next);
    }
    let z = acc * 2.0;
    y + z * 0.5
}

#[test]
fn destructuring_assignments_are_compiled() {
    assert_eq!(mixed_swaps_grad_path(), GradientPath::Compiled);
    for x in [0.4, -1.3, 2.2] {
        compiled_agrees(
            "mixed_swaps",
            &[x],
            |stack| mixed_swaps_adjoint(stack, x),
            || mixed_swaps_grad(x),
            || mixed_swaps_grad_tape(x),
            mixed_swaps_dual,
        );
    }
    assert_eq!(swaps_grad_path(), GradientPath::Compiled);
    for (x, y) in [(0.4, 0.9), (-0.7, 0.3), (1.3, -0.2)] {
        compiled_agrees(
            "swaps",
            &[x, y],
            |stack| swaps_adjoint(stack, x, y),
            || swaps_grad(x, y),
            || swaps_grad_tape(x, y),
            swaps_dual,
        );
    }
}

#[test]
fn a_range_over_a_length_the_body_keeps_is_evaluated_again() {
    let x = vec![0.3, -1.2, 0.8, 2.0];
    let lr = 0.1;
    assert_eq!(descent_steps_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "descent_steps",
        &[x.clone(), vec![lr]].concat(),
        |stack| descent_steps_adjoint(stack, &x, lr),
        || descent_steps_grad(&x, lr),
        || descent_steps_grad_tape(&x, lr),
        descent_steps_dual,
    );
}

/// A `Vec` whose length changes after the loop that reads it keeps the
/// loop's trip count off its length: pushed onto later, the reverse sweep
/// would see a longer `Vec`. This one stays correct either way.
#[differentiable]
fn grown_after(x: &[f64]) -> f64 {
    let mut w = x.to_vec();
    let mut s = 0.0;
    for k in 0..2 {
        for i in 0..w.len() {
            s += w[i] * w[i];
            w[i] *= 0.5;
        }
        w.push(x[k] * 3.0);
    }
    s
}

fn grown_after_dual(p: &[Dual]) -> Dual {
    let mut w = p.to_vec();
    let mut s = Dual::constant(0.0);
    for k in 0..2 {
        for i in 0..w.len() {
            s = s + w[i] * w[i];
            w[i] = w[i] * 0.5;
        }
        w.push(p[k] * 3.0);
    }
    s
}

#[test]
fn a_range_over_a_length_that_changes_agrees_on_either_path() {
    let x = vec![0.3, -1.2, 0.8];
    let got = grown_after_grad(&x).expect("a gradient");
    let tape = grown_after_grad_tape(&x).expect("a gradient");
    let (value, gradient) = crate::oracle::dual_value_and_gradient(&x, grown_after_dual);
    super::support::assert_agree("grown_after vs tape", &got.gradient, &tape.gradient);
    super::support::assert_agree("grown_after vs oracle", &got.gradient, &gradient);
    super::support::assert_agree("grown_after value", &[got.value], &[value]);
}

/// A row borrowed from a local `Vec` that the body grows after the
/// borrow's last use: fine in the body, but the reverse sweep cannot read
/// the borrow across the `push`. This did not build; the borrow is now as
/// stable as what it borrows, so the function keeps the tape (names bound
/// again through borrows of each other end there too).
#[differentiable]
fn borrow_then_push(w: &[f64], x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let r = &v;
    let s: f64 = w.iter().zip(r).map(|(a, b)| a * b).sum();
    let t: f64 = w.iter().zip(r.iter()).map(|(a, b)| a - b).sum();
    v.push(s * t);
    s + v[v.len() - 1]
}

#[differentiable]
fn borrowed_twice(a: f64, b: f64) -> f64 {
    let c = &b;
    let b = &c;
    a * **b
}

#[test]
fn a_borrow_of_a_vec_that_grows_later_builds_and_agrees() {
    let (w, x) = ([0.3, -0.2, 0.5], [1.0, 2.0, 3.0]);
    let got = borrow_then_push_grad(&w, &x).expect("a gradient");
    let tape = borrow_then_push_grad_tape(&w, &x).expect("a gradient");
    let (value, gradient) = crate::oracle::dual_value_and_gradient(&[w, x].concat(), |p| {
        let (w, x) = p.split_at(3);
        let s = w
            .iter()
            .zip(x)
            .fold(Dual::constant(0.0), |s, (a, b)| s + *a * *b);
        let t = w
            .iter()
            .zip(x)
            .fold(Dual::constant(0.0), |s, (a, b)| s + (*a - *b));
        s + s * t
    });
    let flat = [got.gradient.0.clone(), got.gradient.1.clone()].concat();
    super::support::assert_agree(
        "borrow_then_push vs tape",
        &flat,
        &[tape.gradient.0, tape.gradient.1].concat(),
    );
    super::support::assert_agree("borrow_then_push vs oracle", &flat, &gradient);
    super::support::assert_agree("borrow_then_push value", &[got.value], &[value]);
    let got = borrowed_twice_grad(1.5, -2.0).expect("a gradient");
    assert_eq!((got.value, got.gradient), (-3.0, (-2.0, 1.5)));
}

// ---------------------------------------------------------------------
// Found by probe 16: a determinant of a `[[f64; 3]; 3]` by elimination
// with partial pivoting, its rows swapped through a temporary (`let tmp =
// m[p]; m[p] = m[k]; m[k] = tmp;`), kept the tape ("an index that changes
// before the reverse sweep", 37× the plain function): `tmp`'s adjoint is
// declared where the reverse of the trip starts, where the pivot `p` is
// gone. The rows of an array (of a slice of arrays, of a local written as
// one) all have the shape the type fixes, so any row's adjoint shapes it.
// ---------------------------------------------------------------------

#[differentiable]
#[allow(clippy::manual_swap, clippy::assign_op_pattern)]
fn pivoted_det(a: [[f64; 3]; 3]) -> f64 {
    let mut m = a;
    let mut sign = 1.0;
    for k in 0..3 {
        let mut p = k;
        for i in (k + 1)..3 {
            if m[i][k].abs() > m[p][k].abs() {
                p = i;
            }
        }
        if p != k {
            let tmp = m[p];
            m[p] = m[k];
            m[k] = tmp;
            sign = -sign;
        }
        for i in (k + 1)..3 {
            let f = m[i][k] / m[k][k];
            for j in k..3 {
                m[i][j] = m[i][j] - f * m[k][j];
            }
        }
    }
    sign * m[0][0] * m[1][1] * m[2][2]
}

/// The point farthest from the first, picked by a search, copied out of a
/// slice of arrays, and a local matrix written as an array whose rows are
/// swapped through a temporary by a data-dependent index.
#[differentiable]
#[allow(clippy::manual_swap)]
fn farthest_pair(pts: &[[f64; 2]], w: f64) -> f64 {
    let mut best = 0;
    let mut far = 0.0;
    for i in 1..pts.len() {
        let d = (pts[i][0] - pts[0][0]).powi(2) + (pts[i][1] - pts[0][1]).powi(2);
        if d > far {
            far = d;
            best = i;
        }
    }
    let q = pts[best];
    let mut rows = [[w, 2.0 * w], [q[0], q[1] * w]];
    for r in 0..2 {
        let mut top = r;
        if rows[1 - r][0] > rows[r][0] {
            top = 1 - r;
        }
        let tmp = rows[top];
        rows[top] = rows[r];
        rows[r] = tmp;
    }
    rows[0][0] * rows[1][1] - rows[0][1] * rows[1][0] + far.sqrt()
}

/// Rows of a slice of arrays copied by `to_vec()`, sorted by their first
/// entry through a temporary (probe 21: kept the tape; `a.clone()` and a
/// `Vec<[f64; 2]>` by value were compiled).
#[differentiable]
#[allow(clippy::manual_swap)]
fn sorted_copies(a: &[[f64; 2]]) -> f64 {
    let mut m = a.to_vec();
    for k in 0..m.len() {
        let mut p = k;
        for i in k..m.len() {
            if m[i][0] > m[p][0] {
                p = i;
            }
        }
        let tmp = m[p];
        m[p] = m[k];
        m[k] = tmp;
    }
    m[0][1] * 2.0 + m[1][0] * m[2][1]
}

#[differentiable]
fn halves(x: f64) -> [f64; 2] {
    [x.sin(), x * 0.5]
}

/// A matrix written out of a vector call's elements inside a branch,
/// its rows pivoted through a temporary (random programs, seed 20548
/// f11_6: kept the tape, the rows' shapes were read before the call's
/// elements had theirs).
#[differentiable]
#[allow(clippy::manual_swap)]
fn pivoted_from_a_call(x: f64) -> f64 {
    let p = halves(x);
    let mut y = x;
    if x > -5.0 {
        let mut m = [[p[0], x], [p[1] * 3.0, 2.0 * x]];
        for k in 0..1 {
            let mut q = k;
            for i in (k + 1)..2 {
                if m[i][0] > m[q][0] {
                    q = i;
                }
            }
            let t = m[q];
            m[q] = m[k];
            m[k] = t;
        }
        y = m[0][1] * m[1][0] + m[0][0];
    }
    y
}

fn pivoted_from_a_call_dual(p: &[Dual]) -> Dual {
    let x = p[0];
    let mut m = [[x.sin(), x], [x * 0.5 * 3.0, x * 2.0]];
    if m[1][0].value > m[0][0].value {
        m.swap(0, 1);
    }
    m[0][1] * m[1][0] + m[0][0]
}

fn sorted_copies_dual(p: &[Dual]) -> Dual {
    let mut m: Vec<[Dual; 2]> = p.chunks(2).map(|r| [r[0], r[1]]).collect();
    m.sort_by(|a, b| b[0].value.total_cmp(&a[0].value));
    m[0][1] * 2.0 + m[1][0] * m[2][1]
}

#[allow(clippy::assign_op_pattern)]
fn pivoted_det_dual(p: &[Dual]) -> Dual {
    let mut m = [[Dual::constant(0.0); 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = p[3 * i + j];
        }
    }
    let mut sign = 1.0;
    for k in 0..3 {
        let mut piv = k;
        for i in (k + 1)..3 {
            if m[i][k].value.abs() > m[piv][k].value.abs() {
                piv = i;
            }
        }
        m.swap(piv, k);
        if piv != k {
            sign = -sign;
        }
        for i in (k + 1)..3 {
            let f = m[i][k] / m[k][k];
            for j in k..3 {
                m[i][j] = m[i][j] - f * m[k][j];
            }
        }
    }
    m[0][0] * m[1][1] * m[2][2] * sign
}

fn farthest_pair_dual(p: &[Dual]) -> Dual {
    let n = (p.len() - 1) / 2;
    let (pt, w) = (|i: usize| [p[2 * i], p[2 * i + 1]], p[p.len() - 1]);
    let (mut best, mut far) = (0, Dual::constant(0.0));
    for i in 1..n {
        let d = (pt(i)[0] - pt(0)[0]).powi(2) + (pt(i)[1] - pt(0)[1]).powi(2);
        if d.value > far.value {
            far = d;
            best = i;
        }
    }
    let q = pt(best);
    let mut rows = [[w, w * 2.0], [q[0], q[1] * w]];
    for r in 0..2 {
        let top = if rows[1 - r][0].value > rows[r][0].value {
            1 - r
        } else {
            r
        };
        rows.swap(top, r);
    }
    rows[0][0] * rows[1][1] - rows[0][1] * rows[1][0] + far.sqrt()
}

#[test]
fn rows_swapped_through_a_temporary_by_a_searched_index() {
    assert_eq!(pivoted_det_grad_path(), GradientPath::Compiled);
    assert_eq!(farthest_pair_grad_path(), GradientPath::Compiled);
    // Each pivot order: none, one swap, two.
    for a in [
        [[4.0, 2.0, 0.5], [-1.5, 3.0, 2.0], [0.7, -0.4, 2.1]],
        [[1.0, 2.0, 0.5], [-1.5, 0.3, 2.0], [0.7, -0.4, 1.1]],
        [[0.1, 2.0, 0.5], [0.3, 0.3, 2.0], [1.7, -0.4, 1.1]],
    ] {
        compiled_agrees(
            "pivoted_det",
            a.as_flattened(),
            |stack| pivoted_det_adjoint(stack, a),
            || pivoted_det_grad(a),
            || pivoted_det_grad_tape(a),
            pivoted_det_dual,
        );
        // The determinant's gradient is its cofactor matrix.
        let g = pivoted_det_grad(a).unwrap().gradient;
        let cof = |i: usize, j: usize| {
            let (r0, r1) = ((i + 1) % 3, (i + 2) % 3);
            let (c0, c1) = ((j + 1) % 3, (j + 2) % 3);
            a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0]
        };
        for i in 0..3 {
            let want: Vec<f64> = (0..3).map(|j| cof(i, j)).collect();
            super::support::assert_agree("cofactors", &g[i], &want);
        }
    }
    for (pts, w) in [
        (vec![[0.1, 0.2], [1.5, -0.3], [0.4, 0.9]], 0.7),
        (vec![[0.1, 0.2], [0.5, 1.3], [2.4, 0.9]], -1.2),
    ] {
        let point = [pts.concat(), vec![w]].concat();
        compiled_agrees(
            "farthest_pair",
            &point,
            |stack| farthest_pair_adjoint(stack, &pts, w),
            || farthest_pair_grad(&pts, w),
            || farthest_pair_grad_tape(&pts, w),
            farthest_pair_dual,
        );
    }
    assert_eq!(pivoted_from_a_call_grad_path(), GradientPath::Compiled);
    for x in [0.3, 2.0] {
        compiled_agrees(
            "pivoted_from_a_call",
            &[x],
            |stack| pivoted_from_a_call_adjoint(stack, x),
            || pivoted_from_a_call_grad(x),
            || pivoted_from_a_call_grad_tape(x),
            pivoted_from_a_call_dual,
        );
    }
    assert_eq!(sorted_copies_grad_path(), GradientPath::Compiled);
    let rows = [[0.1, 0.2], [1.5, -0.3], [0.4, 0.9], [-0.6, 0.35]];
    compiled_agrees(
        "sorted_copies",
        rows.as_flattened(),
        |stack| sorted_copies_adjoint(stack, &rows),
        || sorted_copies_grad(&rows),
        || sorted_copies_grad_tape(&rows),
        sorted_copies_dual,
    );
    // H·v through the dual sweep, against differences of the gradient.
    let a = [[1.0, 2.0, 0.5], [-1.5, 0.3, 2.0], [0.7, -0.4, 1.1]];
    let v = [[0.5, -1.0, 0.25], [1.0, 0.0, -0.5], [0.3, 0.2, 1.0]];
    let hvp = pivoted_det_hvp(a, v).unwrap().hvp;
    let h = 1e-6;
    let at = |s: f64| {
        let mut p = a;
        for i in 0..3 {
            for j in 0..3 {
                p[i][j] += s * v[i][j];
            }
        }
        pivoted_det_grad(p).unwrap().gradient
    };
    let (up, down) = (at(h), at(-h));
    for i in 0..3 {
        for j in 0..3 {
            let fd = (up[i][j] - down[i][j]) / (2.0 * h);
            assert!(
                (hvp[i][j] - fd).abs() < 1e-6 * (1.0 + fd.abs()),
                "{i},{j}: {} vs {fd}",
                hvp[i][j]
            );
        }
    }
}

// ---------------------------------------------------------------------
// A row a `for` walks (`for c in centers` of `&[Vec<f64>]`) takes its
// adjoint as the walked slice's row itself, borrowed for the trip, as a
// model's part does (probe 20: a row of zeros allocated per trip and
// added in after was 1,000 of the 1,011 allocations of a k-means
// gradient, which now runs in 0.6 of the time). Also with a `continue`
// and a `break` in the body, and an outer loop over constant rows.
// ---------------------------------------------------------------------

#[differentiable]
fn nearest_centres(centers: &[Vec<f64>], #[constant] pts: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for p in pts {
        let mut best = f64::INFINITY;
        for c in centers {
            if c[0] > 5.0 {
                continue;
            }
            let mut d = 0.0;
            for j in 0..p.len() {
                let diff = c[j] - p[j];
                d += diff * diff;
            }
            if d < best {
                best = d;
            }
            if d < 1e-3 {
                break;
            }
        }
        total += best;
    }
    total
}

fn nearest_centres_dual(p: &[Dual], dim: usize, pts: &[Vec<f64>]) -> Dual {
    let centers: Vec<&[Dual]> = p.chunks(dim).collect();
    let mut total = Dual::constant(0.0);
    for q in pts {
        let mut best: Option<Dual> = None;
        for c in &centers {
            if c[0].value > 5.0 {
                continue;
            }
            let mut d = Dual::constant(0.0);
            for j in 0..q.len() {
                let diff = c[j] - q[j];
                d = d + diff * diff;
            }
            if best.is_none_or(|b| d.value < b.value) {
                best = Some(d);
            }
            if d.value < 1e-3 {
                break;
            }
        }
        total = total + best.unwrap();
    }
    total
}

#[test]
fn a_walked_row_lends_its_adjoint() {
    assert_eq!(nearest_centres_grad_path(), GradientPath::Compiled);
    let centers = vec![
        vec![0.1, 0.2, -0.3],
        vec![1.5, -0.4, 0.8],
        vec![6.0, 0.0, 0.0],
        vec![-0.7, 0.9, 0.05],
    ];
    let pts = vec![
        vec![0.0, 0.1, -0.2],
        vec![1.2, -0.5, 0.6],
        vec![-0.5, 1.0, 0.0],
        vec![0.1, 0.2, -0.3],
        vec![0.3, 0.3, 0.3],
    ];
    compiled_agrees(
        "nearest_centres",
        &centers.concat(),
        |stack| nearest_centres_adjoint(stack, &centers, &pts),
        || nearest_centres_grad(&centers, &pts),
        || nearest_centres_grad_tape(&centers, &pts),
        |p| nearest_centres_dual(p, 3, &pts),
    );
}

// ---------------------------------------------------------------------
// `let cam = &cams[ci];`, as bundle adjustment reads an observation's
// camera, of a parameter the body names nowhere else: the binding's
// adjoint is the row's own, borrowed, not a row of zeros per observation
// added in after (probe 20: 40 of the one-function gradient's 68
// allocations; 4.5 -> 3.8 us, 5.4x -> 4.4x its plain twin). Also bound at
// the top, and bound where the reverse of a `continue`d trip skips it.
// ---------------------------------------------------------------------

#[differentiable]
fn observed_cameras(
    cams: &[Vec<f64>],
    pts: &[Vec<f64>],
    #[constant] obs: &[(usize, usize)],
) -> f64 {
    let mut total = 0.0;
    for o in 0..obs.len() {
        let (ci, pi) = obs[o];
        let cam = &cams[ci];
        if cam[2] < -5.0 {
            continue;
        }
        let mut d = 0.0;
        for j in 0..3 {
            let r = pts[pi][j] * cam[2] - cam[j];
            d += r * r;
        }
        total += d.sqrt() * cam[0];
    }
    let first = &pts[0];
    total + first[0] * first[1]
}

fn observed_cameras_dual(p: &[Dual], nc: usize, obs: &[(usize, usize)]) -> Dual {
    let (cams, pts) = p.split_at(3 * nc);
    let mut total = Dual::constant(0.0);
    for &(ci, pi) in obs {
        let cam = &cams[3 * ci..3 * ci + 3];
        if cam[2].value < -5.0 {
            continue;
        }
        let mut d = Dual::constant(0.0);
        for j in 0..3 {
            let r = pts[3 * pi + j] * cam[2] - cam[j];
            d = d + r * r;
        }
        total = total + d.sqrt() * cam[0];
    }
    total + pts[0] * pts[1]
}

#[test]
fn a_borrowed_row_of_a_parameter_lends_its_adjoint() {
    assert_eq!(observed_cameras_grad_path(), GradientPath::Compiled);
    let cams = vec![
        vec![0.5, -0.2, 1.5],
        vec![1.1, 0.4, -6.0],
        vec![-0.3, 0.8, 0.7],
    ];
    let pts = vec![vec![0.2, 0.3, -0.4], vec![1.0, -1.2, 0.5]];
    let obs = [(0, 0), (1, 0), (2, 1), (0, 1), (2, 0)];
    compiled_agrees(
        "observed_cameras",
        &[cams.concat(), pts.concat()].concat(),
        |stack| observed_cameras_adjoint(stack, &cams, &pts, &obs),
        || observed_cameras_grad(&cams, &pts, &obs),
        || observed_cameras_grad_tape(&cams, &pts, &obs),
        |p| observed_cameras_dual(p, 3, &obs),
    );
}

// ---------------------------------------------------------------------
// Found by probe 21. A row whose adjoint is borrowed (a walked row, `let
// cam = &cams[ci];`) passed twice to one call (`dot(c, c)`, `g(c, c[0])`)
// did not build (E0499: the borrowed adjoint passed as two `&mut`): the
// test for an adjoint passed twice did not see through the borrow, which
// now takes the second part in an adjoint of its own as before. And a
// jagged `Vec<Vec<f64>>` whose rows `swap` reorders (`let mut m =
// a.to_vec(); .. m.swap(p, k);`) panicked in `f_grad` (index out of
// bounds, since before this session): its adjoint kept the rows' first
// order and lengths where the reverse reads them in their last. Such a
// binding's adjoint is now shaped at the end of the forward, as a grown
// `Vec`'s.
// ---------------------------------------------------------------------

#[differentiable]
fn dot_rows(a: &[f64], b: &[f64]) -> f64 {
    a[0] * b[1] + a[1] * b[2] * b[0]
}

#[differentiable]
fn rows_passed_twice(cs: &[Vec<f64>], cams: &[Vec<f64>], #[constant] obs: &[usize]) -> f64 {
    let mut t = 0.0;
    for c in cs {
        t += dot_rows(c, c) + dot_rows(c, &[c[0], 1.0, 2.0]);
    }
    for &o in obs {
        let cam = &cams[o];
        t += dot_rows(cam, cam);
    }
    t
}

fn rows_passed_twice_dual(p: &[Dual], rows: usize, obs: &[usize]) -> Dual {
    let dot = |a: &[Dual], b: &[Dual]| a[0] * b[1] + a[1] * b[2] * b[0];
    let (cs, cams) = p.split_at(3 * rows);
    let mut t = Dual::constant(0.0);
    for c in cs.chunks(3) {
        t = t + dot(c, c) + dot(c, &[c[0], Dual::constant(1.0), Dual::constant(2.0)]);
    }
    for &o in obs {
        let cam = &cams[3 * o..3 * o + 3];
        t = t + dot(cam, cam);
    }
    t
}

#[differentiable]
fn jagged_pivots(a: &[Vec<f64>]) -> f64 {
    let mut m = a.to_vec();
    for k in 0..m.len() {
        let mut p = k;
        for i in k..m.len() {
            if m[i][0] > m[p][0] {
                p = i;
            }
        }
        m.swap(p, k);
    }
    let mut s = 0.0;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s += m[i][j] * (i as f64 + 1.0) * (j as f64 + 2.0);
        }
    }
    s
}

#[test]
fn borrowed_rows_passed_twice_and_jagged_rows_swapped() {
    assert_eq!(rows_passed_twice_grad_path(), GradientPath::Compiled);
    let cs = vec![vec![0.3, -0.7, 1.1], vec![0.2, 0.4, -0.6]];
    let cams = vec![vec![0.5, 0.25, -1.5], vec![1.2, -0.3, 0.8]];
    let obs = [1, 0, 1];
    compiled_agrees(
        "rows_passed_twice",
        &[cs.concat(), cams.concat()].concat(),
        |stack| rows_passed_twice_adjoint(stack, &cs, &cams, &obs),
        || rows_passed_twice_grad(&cs, &cams, &obs),
        || rows_passed_twice_grad_tape(&cs, &cams, &obs),
        |p| rows_passed_twice_dual(p, 2, &obs),
    );
    assert_eq!(jagged_pivots_grad_path(), GradientPath::Compiled);
    let a = vec![
        vec![0.3, -0.7, 1.1],
        vec![0.9, 0.4],
        vec![-0.2, 0.8, 0.25, 0.6],
        vec![0.5],
    ];
    let got = super::support::agree(
        "jagged_pivots",
        jagged_pivots_grad(&a),
        jagged_pivots_grad_tape(&a),
    );
    // Sorted by first entry, largest first: row r lands at position
    // i(r), and ∂s/∂a[r][j] = (i(r) + 1)(j + 2).
    let want = [
        [6.0, 9.0, 12.0, 0.0],
        [2.0, 3.0, 0.0, 0.0],
        [8.0, 12.0, 16.0, 20.0],
        [4.0, 0.0, 0.0, 0.0],
    ];
    for (r, row) in got.gradient.iter().enumerate() {
        super::support::assert_agree("jagged_pivots", row, &want[r][..row.len()]);
    }
}

/// A view of all the rows of a matrix parameter, `let rows = &m[..];`:
/// its adjoint went back through `add_items`, which adds numbers, and the
/// adjoint did not build (E0277, `Vec<f64>: Copy`); now row by row.
#[differentiable]
#[allow(clippy::redundant_slicing)]
fn all_rows_viewed(w: &[f64], m: &[Vec<f64>]) -> f64 {
    let rows = &m[..];
    w[0] * rows[1][0] + rows[0][1] * rows[0][1]
}

#[test]
fn a_view_of_all_the_rows_builds_and_adds_back_row_by_row() {
    assert_eq!(all_rows_viewed_grad_path(), GradientPath::Compiled);
    let (w, m) = ([1.5], vec![vec![0.5, -2.0], vec![3.0, 0.25]]);
    for got in [
        all_rows_viewed_grad(&w, &m).expect("compiled"),
        all_rows_viewed_grad_tape(&w, &m).expect("tape"),
    ] {
        assert_eq!(got.value, 1.5 * 3.0 + 4.0);
        assert_eq!(got.gradient.0, vec![3.0]);
        assert_eq!(got.gradient.1, vec![vec![0.0, -4.0], vec![1.5, 0.0]]);
    }
}
