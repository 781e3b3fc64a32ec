//! A vector-valued helper's reverse adds into its caller's adjoints of
//! the arguments: a shared slice's adjoint is lent to the helper's sweep
//! (the caller's sum so far in it), any other parameter's (a `mut Vec` by
//! value, a number, a model) is the helper's own, added in after. These
//! check the cases where that could go wrong: a helper called again and
//! again on the same weights in a loop while the caller reads them too, a
//! helper calling a helper (a lent adjoint lent again), parameters that are
//! not lent, a method on a model, and a helper whose forward or derivative
//! is not finite (the tape's error, as before).
//!
//! Oracles: dual numbers (`oracle::dual_gradient`, one forward pass per
//! input, of the same formulas written on `Dual`), and the tape. Every
//! function is checked to take the compiled path, and its adjoint to run
//! there with nothing left on the stack.
//!
//! Bound: each component is a short sum of products of inputs of
//! magnitude ≤ 2 and of `tanh`s: the paths agree to a few ulps, far inside
//! `AGREE` (1e-12 of the largest component).

// Index loops on purpose: they are the constructs under test.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{agree, assert_agree, compiled};
use crate::oracle::{dual_gradient, Dual};

/// `W x + b`.
#[differentiable]
pub(super) fn affine(w: &[Vec<f64>], b: &[f64], x: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..b.len() {
        let mut s = b[i];
        for j in 0..x.len() {
            s += w[i][j] * x[j];
        }
        out.push(s);
    }
    out
}

pub(super) fn affine_dual(w: &[Vec<Dual>], b: &[Dual], x: &[Dual]) -> Vec<Dual> {
    (0..b.len())
        .map(|i| (0..x.len()).fold(b[i], |s, j| s + w[i][j] * x[j]))
        .collect()
}

/// The same weights through the helper once per sample, and read by the
/// caller as well: the caller's adjoint of `w` holds earlier sums when
/// each call's reverse is lent it.
#[differentiable]
fn reused(w: &[Vec<f64>], b: &[f64], #[constant] xs: &[Vec<f64>]) -> f64 {
    let mut loss = 0.0;
    for t in 0..xs.len() {
        let y = affine(w, b, &xs[t]);
        for i in 0..y.len() {
            loss += y[i].tanh() * w[i][0];
        }
    }
    loss
}

/// Flattens rows.
pub(super) fn flat(rows: &[Vec<f64>]) -> Vec<f64> {
    rows.iter().flatten().copied().collect()
}

/// `rows × cols` of `flat` from `at`.
pub(super) fn unflat(flat: &[Dual], at: usize, rows: usize, cols: usize) -> Vec<Vec<Dual>> {
    (0..rows)
        .map(|i| flat[at + i * cols..at + (i + 1) * cols].to_vec())
        .collect()
}

pub(super) fn weights() -> (Vec<Vec<f64>>, Vec<f64>) {
    (
        vec![vec![0.5, -1.0, 0.25], vec![1.5, 0.75, -0.5]],
        vec![0.1, -0.2],
    )
}

#[test]
fn a_helper_called_per_sample_adds_into_the_weights_the_caller_reads() {
    assert_eq!(reused_grad_path(), GradientPath::Compiled);
    let (w, b) = weights();
    let xs = vec![
        vec![1.0, 2.0, -1.0],
        vec![0.5, -0.5, 1.5],
        vec![-2.0, 0.0, 1.0],
    ];
    let reruns = autodiff::__adjoint::tape_reruns();
    let got = compiled(|stack| reused_adjoint(stack, &w, &b, &xs));
    let grad = agree(
        "reused",
        reused_grad(&w, &b, &xs),
        reused_grad_tape(&w, &b, &xs),
    );
    assert_eq!(autodiff::__adjoint::tape_reruns(), reruns);
    let point = [flat(&w), b.clone()].concat();
    let want = dual_gradient(&point, |p| {
        let (w, b) = (unflat(p, 0, 2, 3), &p[6..8]);
        let mut loss = Dual::constant(0.0);
        for x in &xs {
            let x: Vec<Dual> = x.iter().map(|&v| Dual::constant(v)).collect();
            let y = affine_dual(&w, b, &x);
            for i in 0..y.len() {
                loss = loss + y[i].tanh() * w[i][0];
            }
        }
        loss
    });
    for g in [&got, &grad] {
        assert_agree(
            "reused",
            &[flat(&g.gradient.0), g.gradient.1.clone()].concat(),
            &want,
        );
    }
}

/// Two layers as one helper, itself calling `affine` twice: the caller's
/// adjoints are lent to `two_layer`'s reverse, and its own to `affine`'s.
#[differentiable]
fn two_layer(w1: &[Vec<f64>], b1: &[f64], w2: &[Vec<f64>], b2: &[f64], x: &[f64]) -> Vec<f64> {
    let z = affine(w1, b1, x);
    let mut h = Vec::new();
    for i in 0..z.len() {
        h.push(z[i].tanh());
    }
    affine(w2, b2, &h)
}

#[differentiable]
fn nested(w1: &[Vec<f64>], b1: &[f64], w2: &[Vec<f64>], b2: &[f64], x: &[f64]) -> f64 {
    let y = two_layer(w1, b1, w2, b2, x);
    let mut total = 0.0;
    for i in 0..y.len() {
        total += y[i] * y[i] * x[i];
    }
    total
}

#[test]
fn a_helper_calling_a_helper_lends_what_it_was_lent() {
    assert_eq!(nested_grad_path(), GradientPath::Compiled);
    let (w1, b1) = weights();
    let w2 = vec![vec![1.0, -0.5], vec![0.25, 2.0]];
    let b2 = vec![0.3, 0.0];
    let x = vec![1.0, -2.0, 0.5];
    let got = compiled(|stack| nested_adjoint(stack, &w1, &b1, &w2, &b2, &x));
    let grad = nested_grad(&w1, &b1, &w2, &b2, &x).expect("compiled");
    let tape = nested_grad_tape(&w1, &b1, &w2, &b2, &x).expect("tape");
    let point = [flat(&w1), b1.clone(), flat(&w2), b2.clone(), x.clone()].concat();
    let want = dual_gradient(&point, |p| {
        let (w1, b1) = (unflat(p, 0, 2, 3), &p[6..8]);
        let (w2, b2, x) = (unflat(p, 8, 2, 2), &p[12..14], &p[14..17]);
        let h: Vec<Dual> = affine_dual(&w1, b1, x).iter().map(|z| z.tanh()).collect();
        let y = affine_dual(&w2, b2, &h);
        (0..2).fold(Dual::constant(0.0), |t, i| t + y[i] * y[i] * x[i])
    });
    for g in [&got, &grad, &tape] {
        let (w1, b1, w2, b2, x) = &g.gradient;
        let components = [flat(w1), b1.clone(), flat(w2), b2.clone(), x.clone()].concat();
        assert_agree("nested", &components, &want);
    }
}

/// A `Vec` by value and a number: their adjoints are the helper's own,
/// from zero, added into the caller's.
#[differentiable]
fn scale_all(v: Vec<f64>, k: f64) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..v.len() {
        out.push(v[i] * k + v[i]);
    }
    out
}

#[differentiable]
fn scaled(v: Vec<f64>, k: f64) -> f64 {
    let u = scale_all(v, k);
    let mut total = 0.0;
    for i in 0..u.len() {
        total += u[i] * u[i] * k;
    }
    total
}

#[test]
fn a_parameter_the_helper_rewrites_keeps_an_adjoint_of_its_own() {
    assert_eq!(scaled_grad_path(), GradientPath::Compiled);
    let v = vec![1.5, -0.5, 2.0];
    let k = 0.75;
    let got = compiled(|stack| scaled_adjoint(stack, v.clone(), k));
    let grad = agree(
        "scaled",
        scaled_grad(v.clone(), k),
        scaled_grad_tape(v.clone(), k),
    );
    let point = [v.clone(), vec![k]].concat();
    let want = dual_gradient(&point, |p| {
        let (v, k) = (&p[..3], p[3]);
        let mut total = Dual::constant(0.0);
        for i in 0..3 {
            let u = v[i] * k + v[i];
            total = total + u * u * k;
        }
        total
    });
    for g in [&got, &grad] {
        assert_agree(
            "scaled",
            &[g.gradient.0.clone(), vec![g.gradient.1]].concat(),
            &want,
        );
    }
}

/// A dense layer: its `forward` is a method whose model adjoint is its
/// own, and whose input's is lent. (`shadows` stacks it too.)
#[derive(Clone, Debug, PartialEq, Parameters)]
pub(super) struct Dense {
    pub(super) w: Vec<Vec<f64>>,
    pub(super) b: Vec<f64>,
}

#[differentiable]
impl Dense {
    /// A number from the first row: its pair is split, as a
    /// vector-valued method's is, and lends the caller's adjoint.
    fn lead(&self, a: f64) -> f64 {
        (self.w[0][0] * a + self.w[0][1] + self.b[0]).tanh()
    }

    pub(super) fn forward(&self, x: &[f64]) -> Vec<f64> {
        let mut out = Vec::new();
        for i in 0..self.b.len() {
            let mut s = self.b[i];
            for j in 0..x.len() {
                s += self.w[i][j] * x[j];
            }
            out.push(s.tanh());
        }
        out
    }
}

/// The layer applied twice, its output fed back in.
#[differentiable]
fn twice(layer: &Dense, x: &[f64]) -> f64 {
    let h = layer.forward(x);
    let y = layer.forward(&h);
    y[0] * y[1] + h[0]
}

#[test]
fn a_method_called_twice_adds_into_the_model_and_the_input() {
    assert_eq!(twice_grad_path(), GradientPath::Compiled);
    let layer = Dense {
        w: vec![vec![0.5, -1.0], vec![1.5, 0.75]],
        b: vec![0.1, -0.2],
    };
    let x = vec![0.8, -0.4];
    let got = compiled(|stack| twice_adjoint(stack, &layer, &x));
    let grad = twice_grad(&layer, &x).expect("compiled");
    let tape = twice_grad_tape(&layer, &x).expect("tape");
    let point = [flat(&layer.w), layer.b.clone(), x.clone()].concat();
    let want = dual_gradient(&point, |p| {
        let (w, b, x) = (unflat(p, 0, 2, 2), &p[4..6], &p[6..8]);
        let layer =
            |x: &[Dual]| -> Vec<Dual> { affine_dual(&w, b, x).iter().map(|s| s.tanh()).collect() };
        let h = layer(x);
        let y = layer(&h);
        y[0] * y[1] + h[0]
    });
    for g in [&got, &grad, &tape] {
        let (model, x) = &g.gradient;
        let components = [flat(&model.w), model.b.clone(), x.clone()].concat();
        assert_agree("twice", &components, &want);
    }
    assert_eq!(got.value, tape.value);
}

/// Layers as a model's field, applied the way a model's forward is
/// written: a method called on each item of a `for` over them, on one
/// bound by `let` (in a branch, where the reverse borrows it again), and
/// on one indexed.
#[derive(Clone, Debug, PartialEq, Parameters)]
struct Layers {
    layers: Vec<Dense>,
}

/// Two 2×2 layers, the second's first weight `w`.
fn two_layers(w: f64) -> Layers {
    Layers {
        layers: vec![
            Dense {
                w: vec![vec![0.5, -1.0], vec![1.5, 0.75]],
                b: vec![0.1, -0.2],
            },
            Dense {
                w: vec![vec![w, 0.8], vec![0.6, 1.1]],
                b: vec![0.3, 0.05],
            },
        ],
    }
}

/// Each layer's weights then biases, then `rest`: the flat point of the
/// dual-number oracles below.
fn layer_components(layers: &[Dense], rest: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for layer in layers {
        out.extend(flat(&layer.w));
        out.extend(&layer.b);
    }
    out.extend(rest);
    out
}

#[differentiable]
impl Layers {
    /// `for layer in &self.layers { h = layer.forward(&h); }`.
    fn by_ref(&self, x: &[f64]) -> f64 {
        let mut h = x.to_vec();
        for layer in &self.layers {
            h = layer.forward(&h);
        }
        h[0] * h[1]
    }

    /// `.iter()`, then a branch that calls the first layer through a `let`.
    fn by_iter(&self, x: &[f64]) -> f64 {
        let mut h = x.to_vec();
        for layer in self.layers.iter() {
            h = layer.forward(&h);
        }
        let mut y = h[0] * h[1];
        if y > 0.0 {
            let first = &self.layers[0];
            let g = first.forward(&h);
            y += g[1];
        }
        y + self.layers[1].forward(x)[0]
    }
}

#[differentiable]
impl Layers {
    /// A number through each layer's `lead`, its argument rebound every
    /// trip: the reverse reads each call's own, saved.
    fn folded(&self, x: f64) -> f64 {
        let mut acc = x;
        for layer in &self.layers {
            acc = layer.lead(acc);
        }
        acc * acc - self.layers[1].lead(x)
    }
}

#[test]
fn a_scalar_method_on_each_layer_with_a_rebound_argument() {
    let model = two_layers(-0.25);
    assert_eq!(model.folded_grad_path(), GradientPath::Compiled);
    let point = layer_components(&model.layers, &[0.7]);
    let want = dual_gradient(&point, |p| {
        let first = |k: usize, a: Dual| (p[6 * k] * a + p[6 * k + 1] + p[6 * k + 4]).tanh();
        let x = p[12];
        let acc = first(1, first(0, x));
        acc * acc - first(1, x)
    });
    let got = compiled(|stack| model.folded_adjoint(stack, 0.7));
    let grad = model.folded_grad(0.7).expect("compiled");
    let tape = model.folded_grad_tape(0.7).expect("tape");
    for g in [&got, &grad, &tape] {
        let (m, x) = &g.gradient;
        assert_agree("folded", &layer_components(&m.layers, &[*x]), &want);
    }
}

/// `a² + sin a`: a helper whose value is passed to a layer's method.
#[differentiable]
fn bent(a: f64) -> f64 {
    a * a + a.sin()
}

#[differentiable]
impl Layers {
    /// A layer's method given a helper's value of the number it rebinds
    /// (`layer.lead(bent(acc))`, in a loop and once more after it, inside
    /// a sum): the split pair's reverse reads the argument again, so its
    /// value is saved where the forward computes it, the helper run once.
    fn helped(&self, x: f64) -> f64 {
        let mut acc = x;
        for layer in &self.layers {
            acc = layer.lead(bent(acc) - 0.5 * acc);
        }
        for k in 0..self.layers.len() {
            acc += self.layers[k].lead(relu(bent(acc)) * 0.25);
        }
        acc * self.layers[0].lead(bent(0.5 * x).sin())
    }
}

#[differentiable]
impl Layers {
    /// A layer borrowed by a `let` after a vector-valued call, in a body
    /// with `return`: the reverse shapes what follows the call only where
    /// the call ran, and the layer's adjoint is a model's (no stand-in of
    /// one compiled: seed 19799's `g4_19`).
    fn early(&self, x: f64) -> f64 {
        let p = pair_product(&[x, 0.5 * x]);
        if p[0] > 5.0 {
            return x;
        }
        let layer = &self.layers[0];
        let y = layer.lead(bent(p[1]));
        y * p[0] + self.layers[1].lead(x)
    }
}

#[test]
fn a_layer_borrowed_after_a_vector_call_in_a_body_with_return() {
    let model = two_layers(-0.25);
    assert_eq!(model.early_grad_path(), GradientPath::Compiled);
    for x in [0.7, -1.3, 4.0] {
        let point = layer_components(&model.layers, &[x]);
        let want = dual_gradient(&point, |p| {
            let lead = |k: usize, a: Dual| (p[6 * k] * a + p[6 * k + 1] + p[6 * k + 4]).tanh();
            let bent = |a: Dual| a * a + a.sin();
            let x = p[12];
            let (x0, x1) = (x, x * 0.5);
            let q = [x0 * x1, x1.sin() + x0];
            if q[0].value > 5.0 {
                return x;
            }
            lead(0, bent(q[1])) * q[0] + lead(1, x)
        });
        let got = compiled(|stack| model.early_adjoint(stack, x));
        let tape = model.early_grad_tape(x).expect("tape");
        for g in [&got, &tape] {
            let (m, x) = &g.gradient;
            assert_agree("early", &layer_components(&m.layers, &[*x]), &want);
        }
    }
}

#[test]
fn a_layers_method_given_a_helpers_value() {
    let model = two_layers(-0.25);
    assert_eq!(model.helped_grad_path(), GradientPath::Compiled);
    for x in [0.7, -1.3] {
        let point = layer_components(&model.layers, &[x]);
        let want = dual_gradient(&point, |p| {
            let lead = |k: usize, a: Dual| (p[6 * k] * a + p[6 * k + 1] + p[6 * k + 4]).tanh();
            let bent = |a: Dual| a * a + a.sin();
            let relu = |a: Dual| if a.value > 0.0 { a } else { a * 0.0 };
            let x = p[12];
            let mut acc = x;
            for k in 0..2 {
                acc = lead(k, bent(acc) - acc * 0.5);
            }
            for k in 0..2 {
                acc = acc + lead(k, relu(bent(acc)) * 0.25);
            }
            acc * lead(0, bent(x * 0.5).sin())
        });
        let got = compiled(|stack| model.helped_adjoint(stack, x));
        let grad = model.helped_grad(x).expect("compiled");
        let tape = model.helped_grad_tape(x).expect("tape");
        for g in [&got, &grad, &tape] {
            let (m, x) = &g.gradient;
            assert_agree("helped", &layer_components(&m.layers, &[*x]), &want);
        }
    }
}

/// The two layers' formulas on dual numbers, and `by_ref` and `by_iter`
/// of them, from the flat point `[w₀, b₀, w₁, b₁, x]`.
fn layers_dual(p: &[Dual], branch: bool) -> Dual {
    let layer = |k: usize, x: &[Dual]| -> Vec<Dual> {
        let at = 6 * k;
        let (w, b) = (unflat(p, at, 2, 2), &p[at + 4..at + 6]);
        affine_dual(&w, b, x).iter().map(|s| s.tanh()).collect()
    };
    let x = &p[12..14];
    let h = layer(1, &layer(0, x));
    let y = h[0] * h[1];
    if !branch {
        return y;
    }
    let g = layer(0, &h);
    let y = if y.value > 0.0 { y + g[1] } else { y };
    y + layer(1, x)[0]
}

#[test]
fn a_method_called_on_each_layer_of_a_model() {
    let model = two_layers(-0.25);
    assert_eq!(model.by_ref_grad_path(), GradientPath::Compiled);
    assert_eq!(model.by_iter_grad_path(), GradientPath::Compiled);
    let components = |m: &Layers, x: &[f64]| layer_components(&m.layers, x);
    // The first point takes the branch, the second does not.
    for x in [vec![0.8, -0.4], vec![-0.9, 0.7]] {
        let point = components(&model, &x);
        for (name, branch) in [("by_ref", false), ("by_iter", true)] {
            let (got, grad, tape) = if branch {
                (
                    compiled(|stack| model.by_iter_adjoint(stack, &x)),
                    model.by_iter_grad(&x).expect("compiled"),
                    model.by_iter_grad_tape(&x).expect("tape"),
                )
            } else {
                (
                    compiled(|stack| model.by_ref_adjoint(stack, &x)),
                    model.by_ref_grad(&x).expect("compiled"),
                    model.by_ref_grad_tape(&x).expect("tape"),
                )
            };
            let want = dual_gradient(&point, |p| layers_dual(p, branch));
            for g in [&got, &grad, &tape] {
                let (m, x) = &g.gradient;
                assert_agree(name, &components(m, x), &want);
            }
            assert_eq!(got.value, tape.value, "{name}");
        }
    }
}

#[test]
fn a_lent_layer_that_is_not_finite_gives_the_tapes_error() {
    let layers = two_layers;
    let x = [0.8, -0.4];
    // A weight that is not finite: the tape's labelled error, from the
    // check of the caller's parameter at entry.
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let model = layers(bad);
        let compiled = model.by_ref_grad(&x).unwrap_err();
        let tape = model.by_ref_grad_tape(&x).unwrap_err();
        assert_eq!(compiled.to_string(), tape.to_string());
    }
    // The model as it was: what is lent is the caller's adjoint, never
    // the model.
    let model = layers(f64::NAN);
    let _ = model.by_ref_grad(&x);
    assert_eq!(format!("{model:?}"), format!("{:?}", layers(f64::NAN)));
}

/// A slice of layers: a branch binds one by `let` and calls it.
#[differentiable]
fn first_in_branch(layers: &[Dense], x: f64) -> f64 {
    let mut y = x;
    if x > 0.0 {
        let layer = &layers[0];
        let h = layer.forward(&[x, y]);
        y = h[1];
    }
    let last = &layers[1];
    let out = last.forward(&[y, x]);
    out[0] * y
}

#[test]
fn a_layer_bound_in_a_branch_is_borrowed_again_by_the_reverse() {
    assert_eq!(first_in_branch_grad_path(), GradientPath::Compiled);
    let layers = two_layers(-0.25).layers;
    let point = layer_components(&layers, &[]);
    for x in [0.3, -0.6] {
        let grad = first_in_branch_grad(&layers, x).expect("compiled");
        let got = compiled(|stack| first_in_branch_adjoint(stack, &layers, x));
        let tape = first_in_branch_grad_tape(&layers, x).expect("tape");
        let mut at = point.clone();
        at.push(x);
        let want = dual_gradient(&at, |p| {
            let layer = |k: usize, x: &[Dual]| -> Vec<Dual> {
                let (w, b) = (unflat(p, 6 * k, 2, 2), &p[6 * k + 4..6 * k + 6]);
                affine_dual(&w, b, x).iter().map(|s| s.tanh()).collect()
            };
            let x = p[12];
            let y = if x.value > 0.0 {
                layer(0, &[x, x])[1]
            } else {
                x
            };
            layer(1, &[y, x])[0] * y
        });
        for g in [&got, &grad, &tape] {
            let (layers, x) = &g.gradient;
            assert_agree("first_in_branch", &layer_components(layers, &[*x]), &want);
        }
    }
}

/// Logarithms of each input: `ln` of a negative input is the tape's error.
#[differentiable]
fn logs(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..x.len() {
        out.push(x[i].ln());
    }
    out
}

/// Square roots: `√0` is finite, its derivative is not.
#[differentiable]
fn roots(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..x.len() {
        out.push(x[i].sqrt());
    }
    out
}

#[differentiable]
fn through_logs(x: &[f64]) -> f64 {
    let l = logs(x);
    l[0] + 2.0 * l[1]
}

#[differentiable]
fn through_roots(x: &[f64]) -> f64 {
    let r = roots(x);
    r[0] * x[1] + r[1]
}

#[test]
fn a_helper_that_is_not_finite_gives_the_tapes_error() {
    assert_eq!(through_logs_grad_path(), GradientPath::Compiled);
    assert_eq!(through_roots_grad_path(), GradientPath::Compiled);
    // Finite: compiled, and ∂/∂x = (1/x₀, 2/x₁).
    let x = [0.5, 4.0];
    let got = compiled(|stack| through_logs_adjoint(stack, &x));
    assert_agree("logs", &got.gradient, &[2.0, 0.5]);
    let got = compiled(|stack| through_roots_adjoint(stack, &x));
    // ∂/∂x₀ = x₁ / (2√x₀), ∂/∂x₁ = √x₀ + 1/(2√x₁).
    let want = [4.0 / (2.0 * 0.5_f64.sqrt()), 0.5_f64.sqrt() + 0.25];
    assert_agree("roots", &got.gradient, &want);
    // Not finite: both paths give the same error.
    for (name, f_grad, f_tape) in [
        (
            "logs",
            through_logs_grad as fn(&[f64]) -> _,
            through_logs_grad_tape as fn(&[f64]) -> _,
        ),
        ("roots", through_roots_grad, through_roots_grad_tape),
    ] {
        let x = [0.0, -1.0];
        let compiled = f_grad(&x).map(|g| g.value).map_err(|e| e.to_string());
        let tape = f_tape(&x).map(|g| g.value).map_err(|e| e.to_string());
        assert!(tape.is_err(), "{name}: the tape fails at {x:?}");
        assert_eq!(compiled, tape, "{name}");
    }
    let x = [0.0, 4.0];
    let compiled = through_roots_grad(&x).map_err(|e| e.to_string());
    let tape = through_roots_grad_tape(&x).map_err(|e| e.to_string());
    assert!(tape.is_err(), "√0's derivative fails on the tape");
    assert_eq!(compiled.map(|g| g.value), tape.map(|g| g.value));
}

/// Two numbers as a slice.
#[differentiable]
fn pair_product(x: &[f64]) -> Vec<f64> {
    let x0 = x[0];
    let x1 = x[1];
    vec![x0 * x1, x1.sin() + x0]
}

#[differentiable]
fn via_literal(a: f64, b: f64) -> f64 {
    let mut total = 0.0;
    for k in 0..2 {
        let s = [a, b * k as f64];
        let p = pair_product(&s);
        total += p[0] * p[1];
    }
    total
}

#[test]
fn an_array_bound_in_a_loop_lends_its_adjoint() {
    assert_eq!(via_literal_grad_path(), GradientPath::Compiled);
    let (a, b) = (0.7, -1.3);
    let got = compiled(|stack| via_literal_adjoint(stack, a, b));
    let grad = agree(
        "via_literal",
        via_literal_grad(a, b),
        via_literal_grad_tape(a, b),
    );
    let want = dual_gradient(&[a, b], |p| {
        let mut total = Dual::constant(0.0);
        for k in 0..2 {
            let (x0, x1) = (p[0], p[1] * k as f64);
            total = total + x0 * x1 * (x1.sin() + x0);
        }
        total
    });
    for g in [&got, &grad] {
        assert_agree("via_literal", &[g.gradient.0, g.gradient.1], &want);
    }
}

/// A slice parameter bound again under another name and read through
/// both: its adjoint still only grows.
#[differentiable]
fn aliased(x: &[f64], c: f64) -> Vec<f64> {
    let y = x;
    let mut out = Vec::new();
    for i in 0..x.len() {
        out.push(y[i] * x[i] * c);
    }
    out
}

#[differentiable]
fn through_alias(x: &[f64], c: f64) -> f64 {
    let mut total = x[0] * x[1];
    let q = aliased(x, c);
    for i in 0..q.len() {
        total += q[i] * x[i];
    }
    total
}

#[test]
fn a_slice_parameter_bound_again_keeps_adding() {
    assert_eq!(through_alias_grad_path(), GradientPath::Compiled);
    let (x, c) = (vec![1.5, -0.5, 2.0], 0.75);
    let got = compiled(|stack| through_alias_adjoint(stack, &x, c));
    let grad = agree(
        "through_alias",
        through_alias_grad(&x, c),
        through_alias_grad_tape(&x, c),
    );
    let point = [x.clone(), vec![c]].concat();
    let want = dual_gradient(&point, |p| {
        let (x, c) = (&p[..3], p[3]);
        (0..3).fold(x[0] * x[1], |t, i| t + x[i] * x[i] * c * x[i])
    });
    for g in [&got, &grad] {
        assert_agree(
            "through_alias",
            &[g.gradient.0.clone(), vec![g.gradient.1]].concat(),
            &want,
        );
    }
}

/// The helpers of a caller that checked its parameters at entry and
/// checks their adjoints at its end: `roots(x)` and `affine(w, b, x)` of
/// the caller's own slices skip their checks of the same slices
/// (`Stack::checked_slice`, `Stack::checked_later`), `roots(&h)` of a
/// value the caller made runs them.
#[differentiable]
fn checked_once(w: &[Vec<f64>], b: &[f64], x: &[f64]) -> f64 {
    let h = affine(w, b, x);
    let y = roots(&h);
    let z = roots(x);
    y[0] * z[1] + y[1] * z[0]
}

#[test]
fn a_helper_given_the_callers_own_slices_gives_the_tapes_gradient_and_errors() {
    assert_eq!(checked_once_grad_path(), GradientPath::Compiled);
    let w = vec![vec![0.5, 0.25], vec![-0.5, 1.0]];
    let b = [1.0, 2.0];
    let x = [0.75, 1.5];
    let got = compiled(|stack| checked_once_adjoint(stack, &w, &b, &x));
    let grad = agree(
        "checked_once",
        checked_once_grad(&w, &b, &x),
        checked_once_grad_tape(&w, &b, &x),
    );
    let point = [w.concat(), b.to_vec(), x.to_vec()].concat();
    let want = dual_gradient(&point, |p| {
        let (w, b, x) = (unflat(p, 0, 2, 2), &p[4..6], &p[6..8]);
        let h = affine_dual(&w, b, x);
        let (y, z) = ([h[0].sqrt(), h[1].sqrt()], [x[0].sqrt(), x[1].sqrt()]);
        y[0] * z[1] + y[1] * z[0]
    });
    for g in [&got, &grad] {
        let (gw, gb, gx) = &g.gradient;
        assert_agree(
            "checked_once",
            &[gw.concat(), gb.clone(), gx.clone()].concat(),
            &want,
        );
    }
    // Not finite where the skipped checks would have looked: a weight
    // (the caller's check at entry), `√0`'s derivative added into the
    // caller's adjoint of `x` (its check at the end), and into the
    // caller's adjoint of `h` (the helper's own check).
    let zero_h = vec![vec![0.5, 0.25], vec![-0.5, 1.0]];
    let cases = [
        (
            vec![vec![f64::NAN, 0.25], vec![-0.5, 1.0]],
            [1.0, 2.0],
            [0.75, 1.5],
        ),
        (
            vec![vec![0.5, 0.25], vec![-0.5, f64::INFINITY]],
            [1.0, 2.0],
            [0.75, 1.5],
        ),
        (w.clone(), [1.0, 2.0], [0.0, 1.5]),
        (zero_h, [-0.75, 2.0], [1.0, 1.0]),
    ];
    for (w, b, x) in &cases {
        let compiled = checked_once_grad(w, b, x)
            .map(|g| g.value)
            .map_err(|e| e.to_string());
        let tape = checked_once_grad_tape(w, b, x)
            .map(|g| g.value)
            .map_err(|e| e.to_string());
        assert!(tape.is_err(), "the tape fails at {w:?} {b:?} {x:?}");
        assert_eq!(compiled, tape, "at {w:?} {b:?} {x:?}");
    }
}
