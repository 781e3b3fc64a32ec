//! A local `Vec` assigned whole with a value of another length, and what
//! reads it: the layer loop every MLP forward is (`h = next;` after each
//! layer, `for i in 0..h.len()` inside), written over slices and as the
//! two-moons model's method, which tests a layer's `bool` field
//! (`examples/support/moons.rs`).
//!
//! The layer loop is also written with a vector-valued layer: `h =
//! dense(&ws[k], &h);`, and `let next = dense(w, &h); h = next;`.
//!
//! Each of these once failed in the compiled adjoint. A `Vec` that grew
//! by assignment (`h = vec![.., .., ..]` over two items) panicked with an
//! index out of bounds: its adjoint kept the first value's shape. A range
//! over `h.len()` whose `h` changes kept the tape. A method's condition
//! `if self.layers[k].relu` did not build (E0507: the layer was observed
//! by value). The two-moons model's `score` is such a method, and its
//! loss ran the tape. `h = dense(&ws[k], &h)` kept the tape, and `let next
//! = dense(w, &h); h = next;` did not build (the call's value was read as
//! a number). Now the forward saves each overwritten value's shape
//! and each range as it made them. Each function takes the compiled path,
//! agrees with the tape, and matches a dual-number twin.

// Written as a student writes it: loops by index.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::{GradientPath, Parameters};

use super::models::agree_model;
use super::support::{assert_agree, compiled_agrees};
use crate::oracle::{dual_value_and_gradient, Dual};

/// Grows from two items to three by assignment, then reads the third.
#[differentiable]
fn grown(x: &[f64]) -> f64 {
    let mut h = vec![x[0], x[1]];
    h = vec![h[0] * h[1], h[0].sin(), h[1]];
    h[0] + h[2] * h[1]
}

fn grown_dual(x: &[Dual]) -> Dual {
    let h = [x[0] * x[1], x[0].sin(), x[1]];
    h[0] + h[2] * h[1]
}

/// Shrinks by one item a trip: pairwise products, twice.
#[differentiable]
fn shrunk(x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    for _ in 0..2 {
        let mut next = Vec::new();
        for j in 0..h.len() - 1 {
            next.push(h[j] * h[j + 1]);
        }
        h = next;
    }
    h.iter().sum()
}

fn shrunk_dual(x: &[Dual]) -> Dual {
    let mut h = x.to_vec();
    for _ in 0..2 {
        h = (0..h.len() - 1).map(|j| h[j] * h[j + 1]).collect();
    }
    h.iter().fold(Dual::constant(0.0), |a, &b| a + b)
}

/// The layer loop over slices: widths 2 → 4 → 3 → 1, `tanh` between.
#[differentiable]
fn layers(ws: &[Vec<Vec<f64>>], #[constant] x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    for k in 0..ws.len() {
        let mut next = Vec::new();
        for j in 0..ws[k].len() {
            let mut s = 0.0;
            for i in 0..h.len() {
                s += ws[k][j][i] * h[i];
            }
            if k + 1 < ws.len() {
                s = s.tanh();
            }
            next.push(s);
        }
        h = next;
    }
    h[0]
}

fn layers_dual(p: &[Dual], widths: &[usize], x: &[f64]) -> Dual {
    let mut h: Vec<Dual> = x.iter().map(|&v| Dual::constant(v)).collect();
    let mut at = 0;
    for k in 0..widths.len() - 1 {
        let mut next = Vec::new();
        for _ in 0..widths[k + 1] {
            let mut s = Dual::constant(0.0);
            for &hi in &h {
                s = s + p[at] * hi;
                at += 1;
            }
            if k + 2 < widths.len() {
                s = s.tanh();
            }
            next.push(s);
        }
        h = next;
    }
    h[0]
}

/// A vector-valued layer the loops below call.
#[differentiable]
fn dense(w: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for j in 0..w.len() {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += w[j][i] * x[i];
        }
        out.push(s.tanh());
    }
    out
}

/// The layer loop as students factor it: `h = dense(&ws[k], &h);`.
#[differentiable]
fn dense_layers(ws: &[Vec<Vec<f64>>], #[constant] x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    for k in 0..ws.len() {
        h = dense(&ws[k], &h);
    }
    h.iter().sum()
}

/// The same with the call bound first, over the rows by reference (this
/// one did not build: the call's value was read as a number).
#[differentiable]
fn bound_layers(ws: &[Vec<Vec<f64>>], #[constant] x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    for w in ws {
        let next = dense(w, &h);
        h = next;
    }
    let mut total = 0.0;
    for v in &h {
        total += v * v;
    }
    total
}

fn dense_dual(p: &[Dual], at: &mut usize, rows: usize, h: &[Dual]) -> Vec<Dual> {
    (0..rows)
        .map(|_| {
            let mut s = Dual::constant(0.0);
            for &hi in h {
                s = s + p[*at] * hi;
                *at += 1;
            }
            s.tanh()
        })
        .collect()
}

fn dense_layers_dual(p: &[Dual], widths: &[usize], x: &[f64]) -> Vec<Dual> {
    let mut h: Vec<Dual> = x.iter().map(|&v| Dual::constant(v)).collect();
    let mut at = 0;
    for &rows in &widths[1..] {
        h = dense_dual(p, &mut at, rows, &h);
    }
    h
}

/// A vector-valued call of another length assigned to a `Vec` at the top
/// of the body, in place and bound first (both once failed to build: the
/// bound value's adjoint was shaped from a binding the assignment moved).
#[differentiable]
fn widen(a: f64, b: f64) -> Vec<f64> {
    vec![a * b, a.sin(), b]
}

#[differentiable]
fn widened_in_place(x: &[f64]) -> f64 {
    let mut h = vec![x[0], x[1]];
    h = widen(h[0], h[1]);
    h[0] + h[2] * h[1]
}

#[differentiable]
fn widened_bound(x: &[f64]) -> f64 {
    let mut h = vec![x[0], x[1]];
    let next = widen(h[0], h[1]);
    h = next;
    h[0] + h[2] * h[1]
}

fn widened_dual(x: &[Dual]) -> Dual {
    let h = [x[0] * x[1], x[0].sin(), x[1]];
    h[0] + h[2] * h[1]
}

// The two-moons model and loss of `examples/moons.rs`, as the course
// writes them: `Mlp::score`'s layer loop assigns `h = next` and reads a
// layer's `relu: bool` as its condition; `loss` calls it per point.
use crate::moons::{self, Mlp};

fn score_dual(p: &[Dual], net: &Mlp, x: [f64; 2]) -> Dual {
    let mut h = vec![Dual::constant(x[0]), Dual::constant(x[1])];
    let mut at = 0;
    for layer in &net.layers {
        // Parameters in the model's order: each layer's `w` by rows, then
        // its `b`.
        let (w_at, b_at) = (at, at + layer.w.len() * h.len());
        at = b_at + layer.b.len();
        let mut next = Vec::new();
        for j in 0..layer.b.len() {
            let mut s = p[b_at + j];
            for (i, &hi) in h.iter().enumerate() {
                s = s + p[w_at + j * h.len() + i] * hi;
            }
            next.push(if layer.relu { s.relu() } else { s });
        }
        h = next;
    }
    h[0]
}

/// `moons::loss` on duals: the mean hinge plus `ALPHA` times the squares
/// of every parameter (in the model's order, `p` itself).
fn loss_dual(p: &[Dual], net: &Mlp, data: &[moons::Sample]) -> Dual {
    let hinge = data.iter().fold(Dual::constant(0.0), |total, sample| {
        total
            + (Dual::constant(1.0) - Dual::constant(sample.y) * score_dual(p, net, sample.x)).relu()
    });
    let squares = p
        .iter()
        .fold(Dual::constant(0.0), |total, &w| total + w * w);
    hinge * Dual::constant(1.0 / data.len() as f64) + Dual::constant(moons::ALPHA) * squares
}

fn rows(rows: usize, cols: usize, seed: f64) -> Vec<Vec<f64>> {
    (0..rows)
        .map(|j| {
            (0..cols)
                .map(|i| ((j * cols + i) as f64 * 0.7 + seed).sin() * 0.8)
                .collect()
        })
        .collect()
}

#[test]
fn a_vec_assigned_a_longer_or_shorter_value_keeps_each_values_shape() {
    for x in [vec![0.5, 2.0], vec![-1.3, 0.25]] {
        assert_eq!(grown_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "grown",
            &x,
            |stack| grown_adjoint(stack, &x),
            || grown_grad(&x),
            || grown_grad_tape(&x),
            grown_dual,
        );
    }
    let x = vec![0.5, 2.0, 3.0, -0.7];
    assert_eq!(shrunk_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "shrunk",
        &x,
        |stack| shrunk_adjoint(stack, &x),
        || shrunk_grad(&x),
        || shrunk_grad_tape(&x),
        shrunk_dual,
    );
}

#[test]
fn a_layer_loop_over_ranges_of_a_reassigned_vec_is_compiled() {
    let widths = [2, 4, 3, 1];
    let ws: Vec<Vec<Vec<f64>>> = widths
        .windows(2)
        .enumerate()
        .map(|(k, pair)| rows(pair[1], pair[0], k as f64))
        .collect();
    let x = [0.6, -0.9];
    assert_eq!(layers_grad_path(), GradientPath::Compiled);
    let point: Vec<f64> = ws.iter().flatten().flatten().copied().collect();
    compiled_agrees(
        "layers",
        &point,
        |stack| layers_adjoint(stack, &ws, &x),
        || layers_grad(&ws, &x),
        || layers_grad_tape(&ws, &x),
        |p| layers_dual(p, &widths, &x),
    );
}

#[test]
fn the_two_moons_score_and_its_loss_are_compiled() {
    let net = Mlp::new(&[2, 5, 4, 1], 11);
    let data = moons::two_moons(12, 0.1, 5);
    assert_eq!(net.score_grad_path(), GradientPath::Compiled);
    assert_eq!(moons::loss_grad_path(), GradientPath::Compiled);
    let reruns = autodiff::__adjoint::tape_reruns();
    let grad = agree_model(
        "loss",
        moons::loss_grad(&net, &data),
        moons::loss_grad_tape(&net, &data),
    );
    assert_eq!(
        autodiff::__adjoint::tape_reruns(),
        reruns,
        "loss: f_grad reran the tape"
    );
    let (value, gradient) = dual_value_and_gradient(&net.scalars(), |p| loss_dual(p, &net, &data));
    assert_agree("loss", &[grad.value], &[value]);
    assert_agree("loss", &grad.gradient.scalars(), &gradient);
    // The method alone, at each point.
    for sample in &data {
        let one = agree_model(
            "score",
            net.score_grad(sample.x),
            net.score_grad_tape(sample.x),
        );
        let (value, gradient) =
            dual_value_and_gradient(&net.scalars(), |p| score_dual(p, &net, sample.x));
        assert_agree("score", &[one.value], &[value]);
        assert_agree("score", &one.gradient.scalars(), &gradient);
    }
}

#[test]
fn a_vector_call_assigned_to_a_reassigned_vec_is_compiled() {
    let widths = [3, 4, 2, 1];
    let ws: Vec<Vec<Vec<f64>>> = widths
        .windows(2)
        .enumerate()
        .map(|(k, pair)| rows(pair[1], pair[0], 0.5 + k as f64))
        .collect();
    let x = [0.3, -0.5, 0.9];
    let point: Vec<f64> = ws.iter().flatten().flatten().copied().collect();
    assert_eq!(dense_layers_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "dense_layers",
        &point,
        |stack| dense_layers_adjoint(stack, &ws, &x),
        || dense_layers_grad(&ws, &x),
        || dense_layers_grad_tape(&ws, &x),
        |p| {
            dense_layers_dual(p, &widths, &x)
                .into_iter()
                .fold(Dual::constant(0.0), |a, b| a + b)
        },
    );
    assert_eq!(bound_layers_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "bound_layers",
        &point,
        |stack| bound_layers_adjoint(stack, &ws, &x),
        || bound_layers_grad(&ws, &x),
        || bound_layers_grad_tape(&ws, &x),
        |p| {
            dense_layers_dual(p, &widths, &x)
                .into_iter()
                .fold(Dual::constant(0.0), |a, b| a + b * b)
        },
    );
}

#[test]
fn a_vector_call_of_another_length_assigned_at_the_top_is_compiled() {
    let x = vec![0.7, -1.2];
    assert_eq!(widened_in_place_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "widened_in_place",
        &x,
        |stack| widened_in_place_adjoint(stack, &x),
        || widened_in_place_grad(&x),
        || widened_in_place_grad_tape(&x),
        widened_dual,
    );
    assert_eq!(widened_bound_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "widened_bound",
        &x,
        |stack| widened_bound_adjoint(stack, &x),
        || widened_bound_grad(&x),
        || widened_bound_grad_tape(&x),
        widened_dual,
    );
}

/// The `Vec` bound inside a loop, whose block saves the shape each trip
/// leaves; and one in a body that may `return`, where the forward's record
/// of the shape would not be there for the reverse: it keeps the tape,
/// which `f_grad` then runs: right, and no panic.
#[differentiable]
fn rebound_per_trip(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for r in 0..2 {
        let mut h = x.to_vec();
        h = vec![h[0] * (r as f64 + 1.0), h[1], h[0] + h[2]];
        total += h[2] * h[0];
    }
    total
}

#[differentiable]
fn shrunk_or_returned(x: &[f64], #[constant] stop: f64) -> f64 {
    let mut h = x.to_vec();
    for _ in 0..3 {
        let mut next = Vec::new();
        for j in 0..h.len() - 1 {
            next.push((h[j] * h[j + 1]).tanh());
        }
        if next.len() == 1 && stop > 0.0 {
            return next[0];
        }
        h = next;
    }
    h[0]
}

#[test]
fn a_reassigned_vec_whose_shape_the_reverse_cannot_see_keeps_the_tape() {
    let x = [0.7, -1.2, 0.4, 0.9];
    match shrunk_or_returned_grad_path() {
        GradientPath::Tape { construct, .. } => {
            assert!(construct.contains("assigned whole"), "{construct}");
        }
        other => panic!("expected the tape, got {other:?}"),
    }
    let compiled = shrunk_or_returned_grad(&x, 1.0).unwrap();
    let tape = shrunk_or_returned_grad_tape(&x, 1.0).unwrap();
    assert_eq!(compiled.value, tape.value);
    assert_eq!(compiled.gradient, tape.gradient);
}

/// Bound again each trip, its block saves the shape the trip leaves: it
/// kept the tape before.
#[test]
fn a_vec_reassigned_per_trip_is_compiled() {
    let x = vec![0.7, -1.2, 0.4, 0.9];
    assert_eq!(rebound_per_trip_grad_path(), GradientPath::Compiled);
    // Against dual numbers: Σ over r of (x₀ + x₂)·x₀·(r + 1).
    compiled_agrees(
        "rebound_per_trip",
        &x,
        |stack| rebound_per_trip_adjoint(stack, &x),
        || rebound_per_trip_grad(&x),
        || rebound_per_trip_grad_tape(&x),
        |p| {
            (0..2).fold(Dual::constant(0.0), |total, r| {
                let h0 = p[0] * Dual::constant(r as f64 + 1.0);
                total + (p[0] + p[2]) * h0
            })
        },
    );
}

/// A layer that adds one item: `[tanh(0.9 v)..] ++ [Σv]`.
#[differentiable]
fn grow_layer(h: &[f64]) -> Vec<f64> {
    let mut out: Vec<f64> = h.iter().map(|v| (v * 0.9).tanh()).collect();
    out.push(h.iter().sum());
    out
}

fn grow_layer_dual(h: &[Dual]) -> Vec<Dual> {
    let mut out: Vec<Dual> = h
        .iter()
        .map(|v| (*v * Dual::constant(0.9)).tanh())
        .collect();
    let mut s = Dual::constant(0.0);
    for v in h {
        s = s + *v;
    }
    out.push(s);
    out
}

/// The residual stream built by `push` and then assigned whole by each
/// layer (probe 14's GPT trunk): it kept the tape ("a `Vec` assigned
/// whole .., also resized").
#[differentiable]
fn pushed_stream(x: &[f64]) -> f64 {
    let mut h = Vec::new();
    for i in 0..x.len() {
        h.push(x[i] * 2.0);
    }
    for _ in 0..2 {
        h = grow_layer(&h);
    }
    h[0] * h[h.len() - 1] + h[1]
}

fn pushed_stream_dual(x: &[Dual]) -> Dual {
    let mut h: Vec<Dual> = x.iter().map(|v| *v * Dual::constant(2.0)).collect();
    for _ in 0..2 {
        h = grow_layer_dual(&h);
    }
    h[0] * h[h.len() - 1] + h[1]
}

/// Grown and assigned whole in turn, at the top and in one loop: each
/// push between assignments changes the length the next assignment
/// saves. (A move, `pop` or `insert`, on a `Vec` assigned whole keeps the
/// tape.)
#[differentiable]
fn resized_between_layers(x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    h = grow_layer(&h);
    h.push(x[2].sin());
    for i in 0..2 {
        h.push(h[i] * x[i]);
        h = grow_layer(&h);
    }
    h.push(x[1]);
    let mut s = 0.0;
    for j in 0..h.len() {
        s += h[j] * (j as f64 + 1.0);
    }
    s
}

fn resized_between_layers_dual(x: &[Dual]) -> Dual {
    let mut h = x.to_vec();
    h = grow_layer_dual(&h);
    h.push(x[2].sin());
    for i in 0..2 {
        let pushed = h[i] * x[i];
        h.push(pushed);
        h = grow_layer_dual(&h);
    }
    h.push(x[1]);
    let mut s = Dual::constant(0.0);
    for j in 0..h.len() {
        s = s + h[j] * Dual::constant(j as f64 + 1.0);
    }
    s
}

#[test]
fn a_vec_resized_and_assigned_whole_is_compiled() {
    for x in [vec![0.5, -1.25, 2.0], vec![-0.3, 0.7, 0.1]] {
        assert_eq!(pushed_stream_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "pushed_stream",
            &x,
            |stack| pushed_stream_adjoint(stack, &x),
            || pushed_stream_grad(&x),
            || pushed_stream_grad_tape(&x),
            pushed_stream_dual,
        );
        assert_eq!(resized_between_layers_grad_path(), GradientPath::Compiled);
        compiled_agrees(
            "resized_between_layers",
            &x,
            |stack| resized_between_layers_adjoint(stack, &x),
            || resized_between_layers_grad(&x),
            || resized_between_layers_grad_tape(&x),
            resized_between_layers_dual,
        );
    }
}

/// A token's residual stream, bound inside the loop over tokens and
/// assigned whole by each layer (probe 14's GPT loss): it kept the tape
/// ("a `Vec` assigned whole .., bound inside a loop or a branch"). The
/// loop's block saves the shape each trip leaves.
#[differentiable]
fn per_token(x: &[f64], #[constant] tokens: usize) -> f64 {
    let mut loss = 0.0;
    for k in 0..tokens {
        let mut h = vec![x[k], x[k + 1] * 2.0];
        for _ in 0..2 {
            h = grow_layer(&h);
        }
        h.push(x[0]);
        loss += h[0] * h[h.len() - 1] + h[1];
    }
    loss
}

fn per_token_dual(x: &[Dual]) -> Dual {
    let mut loss = Dual::constant(0.0);
    for k in 0..3 {
        let mut h = vec![x[k], x[k + 1] * Dual::constant(2.0)];
        for _ in 0..2 {
            h = grow_layer_dual(&h);
        }
        h.push(x[0]);
        loss = loss + h[0] * h[h.len() - 1] + h[1];
    }
    loss
}

/// The same in a branch.
#[differentiable]
fn in_a_branch(x: &[f64]) -> f64 {
    let mut t = x[3];
    if x[0] > 0.0 {
        let mut h = x.to_vec();
        h = grow_layer(&h);
        h.push(x[1] * x[2]);
        t += h[4] * h[5];
    }
    t
}

fn in_a_branch_dual(x: &[Dual]) -> Dual {
    let mut t = x[3];
    if x[0].value > 0.0 {
        let mut h = grow_layer_dual(x);
        h.push(x[1] * x[2]);
        t = t + h[4] * h[5];
    }
    t
}

#[test]
fn a_vec_assigned_whole_in_a_loop_or_a_branch_is_compiled() {
    assert_eq!(per_token_grad_path(), GradientPath::Compiled);
    assert_eq!(in_a_branch_grad_path(), GradientPath::Compiled);
    for x in [vec![0.5, -1.25, 2.0, 0.4], vec![-0.3, 0.7, 0.1, -0.9]] {
        compiled_agrees(
            "per_token",
            &x,
            |stack| per_token_adjoint(stack, &x, 3),
            || per_token_grad(&x, 3),
            || per_token_grad_tape(&x, 3),
            per_token_dual,
        );
        compiled_agrees(
            "in_a_branch",
            &x,
            |stack| in_a_branch_adjoint(stack, &x),
            || in_a_branch_grad(&x),
            || in_a_branch_grad_tape(&x),
            in_a_branch_dual,
        );
    }
    // H·v against differences of the gradient (on the tape: the dual
    // sweep does not take a vector-valued call's binding yet).
    let x = [0.5, -1.25, 2.0, 0.4];
    let v = [1.0, -0.5, 0.25, 2.0];
    let hvp = per_token_hvp(&x, 3, v.to_vec()).unwrap();
    let h = 1e-6;
    let at = |s: f64| {
        let p: Vec<f64> = x.iter().zip(&v).map(|(a, d)| a + s * d).collect();
        per_token_grad(&p, 3).unwrap().gradient
    };
    let (up, down) = (at(h), at(-h));
    for i in 0..4 {
        let fd = (up[i] - down[i]) / (2.0 * h);
        assert!(
            (hvp.hvp[i] - fd).abs() < 1e-6 * (1.0 + fd.abs()),
            "{i}: {} vs {fd}",
            hvp.hvp[i]
        );
    }
}

/// Bound empty at the top, pushed onto, then assigned whole and pushed
/// onto in a loop (random seed 20529: the assignment kept a shape its
/// `let`, shaped at the reverse from the binding, never declared, and did
/// not build).
#[differentiable]
#[allow(clippy::vec_init_then_push)]
fn empty_then_layers(x: &[f64]) -> f64 {
    let mut h = Vec::new();
    h.push(x[0] * x[1]);
    h.push(x[1].sin());
    for k in 0..2 {
        let mut next = Vec::new();
        for _ in 0..k + 1 {
            let mut s = x[2];
            for i in 0..h.len() {
                s += h[i] * 0.5;
            }
            next.push((s * 0.5).tanh());
        }
        h = next;
        h.push(h[0] * 0.5);
    }
    h[0] + h[1] * h[2]
}

fn empty_then_layers_dual(x: &[Dual]) -> Dual {
    let mut h = vec![x[0] * x[1], x[1].sin()];
    for k in 0..2 {
        let mut next = Vec::new();
        for _ in 0..k + 1 {
            let mut s = x[2];
            for v in &h {
                s = s + *v * Dual::constant(0.5);
            }
            next.push((s * Dual::constant(0.5)).tanh());
        }
        h = next;
        let half = h[0] * Dual::constant(0.5);
        h.push(half);
    }
    h[0] + h[1] * h[2]
}

#[test]
fn a_vec_bound_empty_then_assigned_whole_is_compiled() {
    let x = vec![0.3, -0.5, 0.8];
    assert_eq!(empty_then_layers_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "empty_then_layers",
        &x,
        |stack| empty_then_layers_adjoint(stack, &x),
        || empty_then_layers_grad(&x),
        || empty_then_layers_grad_tape(&x),
        empty_then_layers_dual,
    );
}

/// A layer that widens by one: `h ++ [h₀h₁]`.
#[differentiable]
fn widen_by_one(h: &[f64]) -> Vec<f64> {
    let mut out = h.to_vec();
    out.push(h[0] * h[1]);
    out
}

/// A layer that narrows by one: products of neighbours.
#[differentiable]
fn neighbours(h: &[f64]) -> Vec<f64> {
    vec![h[0] * h[1], h[1] * h[2]]
}

/// A `Vec` bound from a part of a slice (`x[1..].to_vec()`), then pushed
/// onto and assigned whole by a layer of another length (probe 17): the
/// analysis took `x[1..]` for an element, so `h` for a number that keeps
/// its shape, and the reverse took the pushed item's adjoint from the
/// layer's longer output: `f_grad` returned `Ok` with 0 for `x₀` (the
/// tape gives 1), or, with a narrower layer, panicked; without the push
/// it did not build. A slice's part is as deep as the slice now, and a
/// `Vec` assigned whole whose length changes where the analysis took it
/// to keep it fails the forward, so the tape answers.
#[differentiable]
fn sliced_then_widened(x: &[f64]) -> f64 {
    let mut h = x[1..].to_vec();
    h.push(x[0]);
    h = widen_by_one(&h);
    h[2] + h[3] * 0.5
}

#[differentiable]
fn sliced_then_narrowed(x: &[f64]) -> f64 {
    let mut h = x[1..].to_vec();
    h.push(x[0]);
    h = neighbours(&h);
    h[0] + h[1]
}

#[differentiable]
fn sliced_only(x: &[f64]) -> f64 {
    let mut h = x[1..].to_vec();
    h = widen_by_one(&h);
    h[0] + 2.0 * h[1] + 3.0 * h[2]
}

#[test]
fn a_vec_bound_from_a_slices_part_keeps_each_values_shape() {
    let x = vec![0.5, 0.2, 0.3];
    for (name, path) in [
        ("sliced_then_widened", sliced_then_widened_grad_path()),
        ("sliced_then_narrowed", sliced_then_narrowed_grad_path()),
        ("sliced_only", sliced_only_grad_path()),
    ] {
        assert_eq!(path, GradientPath::Compiled, "{name}");
    }
    // h = [x₁, x₂, x₀, x₁x₂]: x₀ + 0.5x₁x₂.
    compiled_agrees(
        "sliced_then_widened",
        &x,
        |stack| sliced_then_widened_adjoint(stack, &x),
        || sliced_then_widened_grad(&x),
        || sliced_then_widened_grad_tape(&x),
        |p| p[0] + p[1] * p[2] * Dual::constant(0.5),
    );
    // h = [x₁x₂, x₂x₀].
    compiled_agrees(
        "sliced_then_narrowed",
        &x,
        |stack| sliced_then_narrowed_adjoint(stack, &x),
        || sliced_then_narrowed_grad(&x),
        || sliced_then_narrowed_grad_tape(&x),
        |p| p[1] * p[2] + p[2] * p[0],
    );
    // h = [x₁, x₂, x₁x₂].
    compiled_agrees(
        "sliced_only",
        &x,
        |stack| sliced_only_adjoint(stack, &x),
        || sliced_only_grad(&x),
        || sliced_only_grad_tape(&x),
        |p| p[1] + p[2] * Dual::constant(2.0) + p[1] * p[2] * Dual::constant(3.0),
    );
}
