//! A caller's constant handed to a vector-valued helper (a layer's input
//! data, `linear(w, b, x)` with `#[constant] x`): the caller marks it
//! unused (`Stack::unused_args`) and passes no adjoint for it, and the
//! helper's reverse computes no part of the gradient for it. These check
//! every way a helper can hold that adjoint: a shared slice lent to its
//! sweep (added into only under a flag), one the sweep passes on to
//! another helper (zeros of its own instead), a `Vec` by value (an adjoint
//! of its own, not added in), a helper that is not split (`mut`
//! parameters), one that keeps the tape (its gradient popped into zeros),
//! and a constant array or local `Vec` rather than a parameter.
//!
//! Oracles: dual numbers of the same formulas (`oracle::dual_gradient`),
//! and the tape. Every caller is checked to take the compiled path and to
//! leave its stack empty (a constant's part popped or never pushed).
//!
//! Bound: sums of a few products and `tanh`s of inputs of magnitude ≤ 2:
//! the paths agree to a few ulps, far inside `AGREE`.

// Index loops on purpose: the helpers read their slices as formulas do.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::lent_calls::{affine, affine_dual, flat, unflat, weights};
use super::support::{agree, assert_agree, compiled};
use crate::oracle::{dual_gradient, Dual};

fn constants(x: &[f64]) -> Vec<Dual> {
    x.iter().map(|&v| Dual::constant(v)).collect()
}

/// The data three ways: a `#[constant]` slice, a local array, a local
/// `Vec` built from it; each layer's value read by the loss.
#[differentiable]
fn of_data(w: &[Vec<f64>], b: &[f64], #[constant] x: &[f64]) -> f64 {
    let y = affine(w, b, x);
    let fixed = [1.0, -0.5, 2.0];
    let z = affine(w, b, &fixed);
    let mut doubled = Vec::new();
    for j in 0..x.len() {
        doubled.push(2.0 * x[j]);
    }
    let u = affine(w, b, &doubled);
    let mut total = 0.0;
    for i in 0..y.len() {
        total += y[i].tanh() * z[i] + u[i] * y[i];
    }
    total
}

#[test]
fn a_layers_input_data_gets_no_adjoint_and_the_weights_their_whole_gradient() {
    assert_eq!(of_data_grad_path(), GradientPath::Compiled);
    let (w, b) = weights();
    let x = vec![1.0, 2.0, -1.0];
    let got = compiled(|stack| of_data_adjoint(stack, &w, &b, &x));
    let grad = agree(
        "of_data",
        of_data_grad(&w, &b, &x),
        of_data_grad_tape(&w, &b, &x),
    );
    let want = dual_gradient(&[flat(&w), b.clone()].concat(), |p| {
        let (w, b) = (unflat(p, 0, 2, 3), &p[6..8]);
        let y = affine_dual(&w, b, &constants(&x));
        let z = affine_dual(&w, b, &constants(&[1.0, -0.5, 2.0]));
        let doubled: Vec<f64> = x.iter().map(|v| 2.0 * v).collect();
        let u = affine_dual(&w, b, &constants(&doubled));
        (0..2).fold(Dual::constant(0.0), |t, i| {
            t + y[i].tanh() * z[i] + u[i] * y[i]
        })
    });
    for g in [&got, &grad] {
        assert_agree(
            "of_data",
            &[flat(&g.gradient.0), g.gradient.1.clone()].concat(),
            &want,
        );
    }
}

/// A helper that passes its input on to another: its adjoint of `x` is
/// mentioned outside an addition, so an unused one is zeros of its own
/// (not the caller's empty one), given to `layer` as a live adjoint.
#[differentiable]
fn two_layers(w1: &[Vec<f64>], b1: &[f64], w2: &[Vec<f64>], b2: &[f64], x: &[f64]) -> Vec<f64> {
    let z = affine(w1, b1, x);
    let mut h = Vec::new();
    for i in 0..z.len() {
        h.push(z[i].tanh() + x[i]);
    }
    affine(w2, b2, &h)
}

#[differentiable]
fn deep_of_data(
    w1: &[Vec<f64>],
    b1: &[f64],
    w2: &[Vec<f64>],
    b2: &[f64],
    #[constant] x: &[f64],
) -> f64 {
    let y = two_layers(w1, b1, w2, b2, x);
    y[0] * y[1]
}

#[test]
fn a_helper_passing_the_constant_on_gives_its_own_zeros() {
    assert_eq!(deep_of_data_grad_path(), GradientPath::Compiled);
    let (w1, b1) = weights();
    let w2 = vec![vec![1.0, -0.5], vec![0.25, 2.0]];
    let b2 = vec![0.3, 0.0];
    let x = vec![1.0, -2.0, 0.5];
    let got = compiled(|stack| deep_of_data_adjoint(stack, &w1, &b1, &w2, &b2, &x));
    let grad = agree(
        "deep_of_data",
        deep_of_data_grad(&w1, &b1, &w2, &b2, &x),
        deep_of_data_grad_tape(&w1, &b1, &w2, &b2, &x),
    );
    let point = [flat(&w1), b1.clone(), flat(&w2), b2.clone()].concat();
    let want = dual_gradient(&point, |p| {
        let (w1, b1) = (unflat(p, 0, 2, 3), &p[6..8]);
        let (w2, b2) = (unflat(p, 8, 2, 2), &p[12..14]);
        let x = constants(&x);
        let z = affine_dual(&w1, b1, &x);
        let h: Vec<Dual> = (0..2).map(|i| z[i].tanh() + x[i]).collect();
        let y = affine_dual(&w2, b2, &h);
        y[0] * y[1]
    });
    for g in [&got, &grad] {
        let (w1, b1, w2, b2) = &g.gradient;
        let components = [flat(w1), b1.clone(), flat(w2), b2.clone()].concat();
        assert_agree("deep_of_data", &components, &want);
    }
}

/// A `Vec` by value, whose adjoint is the helper's own: not added into
/// the caller's empty one. And a helper with a `mut` parameter, which is
/// not split: its reverse is told the same through its arguments.
#[differentiable]
fn scaled_by(v: Vec<f64>, k: f64) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..v.len() {
        out.push(v[i] * k + v[i] * v[i]);
    }
    out
}

#[differentiable]
fn shifted(mut v: Vec<f64>, w: &[f64]) -> Vec<f64> {
    for i in 0..v.len() {
        v[i] += w[i] * v[i];
    }
    v
}

#[differentiable]
fn owned_constants(k: f64, p: &[f64], #[constant] data: Vec<f64>) -> f64 {
    let u = scaled_by(data.clone(), k);
    let s = shifted(p.to_vec(), &data);
    let mut total = 0.0;
    for i in 0..u.len() {
        total += u[i] * s[i];
    }
    total
}

#[test]
fn a_constant_the_helper_owns_or_a_helper_not_split_adds_nothing() {
    assert_eq!(owned_constants_grad_path(), GradientPath::Compiled);
    let (k, p) = (0.75, vec![1.5, -0.5, 2.0]);
    let data = vec![0.5, 1.0, -1.5];
    let got = compiled(|stack| owned_constants_adjoint(stack, k, &p, data.clone()));
    let grad = agree(
        "owned_constants",
        owned_constants_grad(k, &p, data.clone()),
        owned_constants_grad_tape(k, &p, data.clone()),
    );
    let want = dual_gradient(&[vec![k], p.clone()].concat(), |q| {
        let (k, p) = (q[0], &q[1..4]);
        let d = constants(&data);
        (0..3).fold(Dual::constant(0.0), |t, i| {
            let u = d[i] * k + d[i] * d[i];
            t + u * (p[i] + d[i] * p[i])
        })
    });
    for g in [&got, &grad] {
        assert_agree(
            "owned_constants",
            &[vec![g.gradient.0], g.gradient.1.clone()].concat(),
            &want,
        );
    }
}

/// A helper that keeps the tape (`#[cfg]` on a `let`): its reverse pops
/// the constant's part of its gradient into zeros of its own, so that the
/// pops stay in step with what it pushed. (A vector-valued function has
/// no `_grad_path` to ask: `cargo expand` shows its reverse calling
/// `taped_layer_vjp`, and this test fails when those pops go into the
/// caller's empty adjoint instead.)
#[differentiable]
fn taped_layer(w: &[f64], x: &[f64]) -> Vec<f64> {
    #[cfg(not(any()))]
    let k = 2.0;
    let mut out = Vec::new();
    for i in 0..w.len() {
        out.push(w[i] * x[i] * k);
    }
    out
}

#[differentiable]
fn through_taped(w: &[f64], #[constant] x: &[f64]) -> f64 {
    let y = taped_layer(w, x);
    let z = taped_layer(x, w);
    let mut total = 0.0;
    for i in 0..y.len() {
        total += y[i] * w[i] + z[i];
    }
    total
}

#[test]
fn a_helper_on_the_tape_pops_the_constants_part_into_zeros() {
    assert_eq!(through_taped_grad_path(), GradientPath::Compiled);
    let (w, x) = (vec![1.5, -0.5, 2.0], vec![0.5, 1.0, -1.5]);
    let got = compiled(|stack| through_taped_adjoint(stack, &w, &x));
    let grad = agree(
        "through_taped",
        through_taped_grad(&w, &x),
        through_taped_grad_tape(&w, &x),
    );
    let want = dual_gradient(&w, |w| {
        let x = constants(&x);
        (0..3).fold(Dual::constant(0.0), |t, i| {
            t + w[i] * x[i] * 2.0 * w[i] + x[i] * w[i] * 2.0
        })
    });
    for g in [&got, &grad] {
        assert_agree("through_taped", &g.gradient, &want);
    }
}

/// Rows of data (`#[constant] xs: &[Vec<f64>]`) passed to a helper whose
/// rows are differentiable: the recording twin had no way to make them
/// constant nodes, and the crate did not build (an error naming `Cow` and
/// `_tape`).
#[differentiable]
fn scores(w: &[f64], xs: &[Vec<f64>]) -> Vec<f64> {
    xs.iter()
        .map(|x| x.iter().zip(w).map(|(a, b)| a * b).sum())
        .collect()
}

#[differentiable]
fn of_rows(w: &[f64], #[constant] xs: &[Vec<f64>]) -> f64 {
    let y = scores(w, xs);
    y.iter().map(|v| v.tanh()).sum()
}

#[test]
fn rows_of_data_reach_a_helper_taking_rows() {
    assert_eq!(of_rows_grad_path(), GradientPath::Compiled);
    let w = vec![0.5, -0.25];
    let xs = vec![vec![1.0, 2.0], vec![-0.5, 0.75], vec![0.25, -1.5]];
    let got = compiled(|stack| of_rows_adjoint(stack, &w, &xs));
    let grad = agree("of_rows", of_rows_grad(&w, &xs), of_rows_grad_tape(&w, &xs));
    let want = dual_gradient(&w, |w| {
        xs.iter().fold(Dual::constant(0.0), |t, x| {
            t + (w[0] * x[0] + w[1] * x[1]).tanh()
        })
    });
    for g in [&got.gradient, &grad.gradient] {
        assert_agree("of_rows", g, &want);
    }
}

/// The rows of a `#[constant]` table (`&Vec<f64>` each) passed where a
/// slice is taken, as a direct call coerces them: to a helper's and a
/// method's `#[constant] x: &[f64]`, and to a closure's parameter typed
/// `&[f64]` or `&Vec<f64>` that also takes tracked rows.
#[differentiable]
fn score_of(w: &[f64], #[constant] x: &[f64]) -> f64 {
    w[0] * x[0] + w[1] * x[1]
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Line {
    w: Vec<f64>,
    b: f64,
}

#[differentiable]
impl Line {
    fn score(&self, #[constant] x: &[f64]) -> f64 {
        self.w[0] * x[0] + self.w[1] * x[1] + self.b
    }

    fn loss(&self, #[constant] xs: &[Vec<f64>], #[constant] ys: &[f64]) -> f64 {
        let mut s = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            s += (self.score(x) - y).powi(2);
        }
        s
    }
}

#[differentiable]
fn rows_coerced(w: &[f64], ws: &[Vec<f64>], #[constant] xs: &[Vec<f64>]) -> f64 {
    let predict = |x: &[f64]| w[0] * x[0] + w[1] * x[1];
    let dot = |a: &Vec<f64>, b: &[f64]| a[0] * b[0] + a[1] * b[1];
    let mut s = 0.0;
    for x in xs {
        s += score_of(w, x).powi(2) + predict(x) * dot(&ws[0], x);
    }
    s + dot(&ws[0], &ws[1])
}

fn rows_coerced_dual(w: &[Dual], ws: &[Vec<Dual>], xs: &[Vec<f64>]) -> Dual {
    let mut s = Dual::constant(0.0);
    for x in xs {
        let score = w[0] * x[0] + w[1] * x[1];
        let dot = ws[0][0] * x[0] + ws[0][1] * x[1];
        s = s + score * score + score * dot;
    }
    s + ws[0][0] * ws[1][0] + ws[0][1] * ws[1][1]
}

#[test]
fn rows_of_a_constant_table_coerce_to_slices() {
    let xs = vec![vec![1.0, 2.0], vec![0.5, -1.0]];
    let (w, ws) = (vec![0.2, -0.4], vec![vec![0.3, 0.1], vec![-0.2, 0.6]]);
    let got = agree(
        "coerced rows",
        rows_coerced_grad(&w, &ws, &xs),
        rows_coerced_grad_tape(&w, &ws, &xs),
    );
    assert_eq!(got.value, rows_coerced(&w, &ws, &xs));
    let flat_in: Vec<f64> = w.iter().chain(ws.iter().flatten()).copied().collect();
    let want = dual_gradient(&flat_in, |d| {
        rows_coerced_dual(&d[..2], &[d[2..4].to_vec(), d[4..6].to_vec()], &xs)
    });
    let got_flat: Vec<f64> = got
        .gradient
        .0
        .iter()
        .chain(got.gradient.1.iter().flatten())
        .copied()
        .collect();
    assert_agree("coerced rows", &got_flat, &want);
    assert_eq!(rows_coerced_grad_path(), GradientPath::Compiled);
    compiled(|stack| rows_coerced_adjoint(stack, &w, &ws, &xs));

    // The line's loss, 2·Σ (w·x + b − y) (x, 1) in closed form.
    let line = Line {
        w: vec![0.2, -0.4],
        b: 0.1,
    };
    let ys = [0.3, 0.7];
    let got = line.loss_grad(&xs, &ys).unwrap();
    let mut want = Line {
        w: vec![0.0, 0.0],
        b: 0.0,
    };
    for (x, y) in xs.iter().zip(ys) {
        let r = line.w[0] * x[0] + line.w[1] * x[1] + line.b - y;
        want.w[0] += 2.0 * r * x[0];
        want.w[1] += 2.0 * r * x[1];
        want.b += 2.0 * r;
    }
    assert_agree(
        "line",
        &[got.gradient.w.clone(), vec![got.gradient.b]].concat(),
        &[want.w.clone(), vec![want.b]].concat(),
    );
    let tape = line.loss_grad_tape(&xs, &ys).unwrap();
    assert_agree(
        "line: tape",
        &[tape.gradient.w, vec![tape.gradient.b]].concat(),
        &[want.w, vec![want.b]].concat(),
    );
}
