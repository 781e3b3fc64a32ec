//! Loops that write through `iter_mut` (`for o in out.iter_mut() { *o +=
//! a * v; }`, with `zip` or `enumerate`), which the compiled adjoint reads
//! as index loops (`adjoint/writes.rs`): each takes the compiled path and
//! agrees with dual numbers and the tape (which records the same index
//! loop).
//!
//! Bound: short sums of products, `tanh`s and `exp`s of inputs of
//! magnitude ≤ 2: the paths agree to a few ulps, far inside `AGREE`.

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::compiled_agrees;
use crate::oracle::Dual;

/// Each item scaled in place.
#[differentiable]
fn scaled(x: &[f64], c: f64) -> f64 {
    let mut out = x.to_vec();
    for o in out.iter_mut() {
        *o *= c;
        *o += o.tanh();
    }
    out[0] * out[1] + out[2]
}

/// Attention's weighted sum of value rows, the way Rust adds into a `Vec`:
/// `for (o, v) in out.iter_mut().zip(row)`, and `zip(&w)` taken apart by
/// `&wj`.
#[differentiable]
fn weighted(a: &[f64], values: &[Vec<f64>], w: &[f64]) -> f64 {
    let mut out = vec![0.0; values[0].len()];
    for i in 0..a.len() {
        for (o, v) in out.iter_mut().zip(&values[i]) {
            *o += a[i].exp() * v;
        }
    }
    for (o, &wj) in out.iter_mut().zip(w) {
        *o *= wj;
    }
    let mut total = 0.0;
    for o in out.iter() {
        total += o * o;
    }
    total
}

/// `enumerate` gives the index the body reads other rows by.
#[differentiable]
fn indexed(x: &[f64], y: &[f64]) -> f64 {
    let mut out = x.to_vec();
    for (j, o) in out.iter_mut().enumerate() {
        *o = *o * y[j] + y[(j + 1) % y.len()];
    }
    out.iter().sum::<f64>() * out[0]
}

#[test]
fn loops_writing_through_iter_mut_take_the_compiled_path() {
    for f in [
        scaled_grad_path(),
        weighted_grad_path(),
        indexed_grad_path(),
    ] {
        assert_eq!(f, GradientPath::Compiled);
    }
    let point = [0.4, -1.1, 0.8, 1.7];
    compiled_agrees(
        "scaled",
        &point,
        |stack| scaled_adjoint(stack, &point[..3], point[3]),
        || scaled_grad(&point[..3], point[3]),
        || scaled_grad_tape(&point[..3], point[3]),
        |p| {
            let o: Vec<Dual> = p[..3]
                .iter()
                .map(|x| {
                    let s = *x * p[3];
                    s.tanh() + s
                })
                .collect();
            o[0] * o[1] + o[2]
        },
    );
    // a (2), values (2 rows of 3), w (3).
    let point = [0.3, -0.6, 1.2, -0.4, 0.9, 0.5, 1.5, -1.3, 0.7, -0.2, 1.1];
    let rows = vec![point[2..5].to_vec(), point[5..8].to_vec()];
    let flat = |g: &(Vec<f64>, Vec<Vec<f64>>, Vec<f64>)| {
        let mut all = g.0.clone();
        all.extend(g.1.iter().flatten());
        all.extend(&g.2);
        all
    };
    let got = weighted_grad(&point[..2], &rows, &point[8..]).expect("compiled");
    let tape = weighted_grad_tape(&point[..2], &rows, &point[8..]).expect("tape");
    let (value, want) = crate::oracle::dual_value_and_gradient(&point, |p| {
        let mut out = [Dual::constant(0.0); 3];
        for i in 0..2 {
            for c in 0..3 {
                out[c] = out[c] + p[i].exp() * p[2 + 3 * i + c];
            }
        }
        for c in 0..3 {
            out[c] = out[c] * p[8 + c];
        }
        out[0] * out[0] + out[1] * out[1] + out[2] * out[2]
    });
    for g in [&got, &tape] {
        super::support::assert_agree("weighted", &[g.value], &[value]);
        super::support::assert_agree("weighted", &flat(&g.gradient), &want);
    }
    let point = [0.5, -0.7, 1.3, 0.2, 1.1, -0.9];
    compiled_agrees(
        "indexed",
        &point,
        |stack| indexed_adjoint(stack, &point[..3], &point[3..]),
        || indexed_grad(&point[..3], &point[3..]),
        || indexed_grad_tape(&point[..3], &point[3..]),
        |p| {
            let (x, y) = (&p[..3], &p[3..]);
            let o: Vec<Dual> = (0..3).map(|j| x[j] * y[j] + y[(j + 1) % 3]).collect();
            (o[0] + o[1] + o[2]) * o[0]
        },
    );
}

/// The same writes as closures: `iter_mut().for_each(|o| ..)`, zipped,
/// enumerated and alone, each read as the `for` it means (before
/// 2026-12-07 the tape's twin refused them: "this method would drop its
/// gradient").
#[differentiable]
fn written_by_closures(x: &[f64], b: &[f64]) -> f64 {
    let mut out = x.to_vec();
    out.iter_mut().zip(b).for_each(|(o, bi)| *o += bi);
    out.iter_mut().for_each(|o| *o = o.tanh());
    out.iter_mut().enumerate().for_each(|(i, o)| {
        *o *= (i + 1) as f64;
    });
    out.iter_mut()
        .zip(x.iter())
        .for_each(|(o, &xi)| *o = *o * xi + 1.0);
    out.iter().map(|v| v * v).sum()
}

#[test]
fn writes_by_for_each_take_the_compiled_path() {
    assert_eq!(written_by_closures_grad_path(), GradientPath::Compiled);
    let point = [0.3, -1.2, 0.8, 0.1, 0.2, -0.3];
    compiled_agrees(
        "written_by_closures",
        &point,
        |stack| written_by_closures_adjoint(stack, &point[..3], &point[3..]),
        || written_by_closures_grad(&point[..3], &point[3..]),
        || written_by_closures_grad_tape(&point[..3], &point[3..]),
        |p| {
            let (x, b) = (&p[..3], &p[3..]);
            let mut total = Dual::constant(0.0);
            for i in 0..3 {
                let o = (x[i] + b[i]).tanh() * (i + 1) as f64 * x[i] + 1.0;
                total = total + o * o;
            }
            total
        },
    );
}
