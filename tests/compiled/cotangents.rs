//! A vector-valued helper's reverse starts its output's adjoint as the
//! caller's cotangent, taken by value (`Sweep::seed_output`): no zeros,
//! no sum `⟨cotangent, output⟩` run forward and back, and the output moved
//! to the caller rather than copied. The caller passes its adjoint of the
//! call's binding by value where it reads it no more (a `let`'s, per trip
//! in a loop too, and an assignment's), else by reference (the callee
//! copies it).
//!
//! Checked for every shape the output can take (a `Vec` grown by `push`,
//! one written in place, a chain bound as `__output`, another call, an
//! array, rows) and for outputs that cannot be seeded and keep the sum
//! (assigned whole after their `let`, a parameter, a `mut` parameter's
//! helper, which is not split), each called from a top-level `let`, a
//! `let` in a loop and an assignment in a loop.
//!
//! Oracles: dual numbers of the same formulas, and the tape. Bound: a few
//! dozen products, `tanh`s and quotients of inputs of magnitude ≤ 2: the
//! paths agree to a few ulps, far inside `AGREE`.

// Index loops on purpose: the helpers read their slices as formulas do.
// A binding returned as it is, on purpose: the output binding is what the
// reverse seeds.
#![allow(clippy::needless_range_loop, clippy::let_and_return)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::compiled_agrees;
use crate::oracle::Dual;

/// Grown by `push`, the binding the tail.
#[differentiable]
fn grown(x: &[f64], k: f64) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..x.len() {
        out.push(k * x[i] * x[i]);
    }
    out
}

fn grown_dual(x: &[Dual], k: Dual) -> Vec<Dual> {
    x.iter().map(|&v| k * v * v).collect()
}

/// Made at its length and written in place.
#[differentiable]
fn in_place(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut out = vec![0.0; n];
    for i in 0..n {
        out[i] = x[i].tanh() + 0.5 * x[(i + 1) % n];
    }
    out
}

fn in_place_dual(x: &[Dual]) -> Vec<Dual> {
    let n = x.len();
    (0..n).map(|i| x[i].tanh() + x[(i + 1) % n] * 0.5).collect()
}

/// A chain as the tail, bound as the output.
#[differentiable]
fn chained(x: &[f64]) -> Vec<f64> {
    let s: f64 = x.iter().map(|v| v * v).sum();
    x.iter().map(|v| v / (1.0 + s)).collect()
}

fn chained_dual(x: &[Dual]) -> Vec<Dual> {
    let s = x.iter().fold(Dual::constant(0.0), |s, &v| s + v * v);
    x.iter().map(|&v| v / (s + 1.0)).collect()
}

/// Another helper's call as the tail.
#[differentiable]
fn composed(x: &[f64]) -> Vec<f64> {
    let h = in_place(x);
    grown(&h, 1.5)
}

fn composed_dual(x: &[Dual]) -> Vec<Dual> {
    grown_dual(&in_place_dual(x), Dual::constant(1.5))
}

/// An array.
#[differentiable]
fn pair(x: f64, y: f64) -> [f64; 2] {
    let r = [x * y, x.sin() - y];
    r
}

fn pair_dual(x: Dual, y: Dual) -> [Dual; 2] {
    [x * y, x.sin() - y]
}

/// Rows, each grown by `push`.
#[differentiable]
fn outer(a: &[f64], b: &[f64]) -> Vec<Vec<f64>> {
    let mut rows = Vec::new();
    for i in 0..a.len() {
        let mut row = Vec::new();
        for j in 0..b.len() {
            row.push(a[i] * b[j]);
        }
        rows.push(row);
    }
    rows
}

fn outer_dual(a: &[Dual], b: &[Dual]) -> Vec<Vec<Dual>> {
    a.iter()
        .map(|&u| b.iter().map(|&v| u * v).collect())
        .collect()
}

/// Bound twice (the second binding renamed): the last one is the output.
#[differentiable]
fn twice(x: &[f64]) -> Vec<f64> {
    let out = grown(x, 2.0);
    let out = in_place(&out);
    out
}

fn twice_dual(x: &[Dual]) -> Vec<Dual> {
    in_place_dual(&grown_dual(x, Dual::constant(2.0)))
}

/// Assigned whole after its `let`: not seeded, the sum kept.
#[differentiable]
fn replaced(x: &[f64]) -> Vec<f64> {
    let mut out = grown(x, 0.5);
    if x[0] > 0.0 {
        out = in_place(&out);
    }
    out
}

fn replaced_dual(x: &[Dual]) -> Vec<Dual> {
    let out = grown_dual(x, Dual::constant(0.5));
    if x[0].value > 0.0 {
        in_place_dual(&out)
    } else {
        out
    }
}

/// A parameter as the output: not seeded.
#[differentiable]
fn echoed(v: Vec<f64>) -> Vec<f64> {
    v
}

/// A `mut` parameter: not split, so not seeded.
#[differentiable]
fn shifted(mut v: Vec<f64>, c: f64) -> Vec<f64> {
    for i in 0..v.len() {
        v[i] += c * v[i];
    }
    v
}

fn shifted_dual(v: &[Dual], c: Dual) -> Vec<Dual> {
    v.iter().map(|&u| u + c * u).collect()
}

/// Every helper called from a top-level `let`, a `let` in a loop, an
/// assignment in a loop and an indexed call.
#[differentiable]
fn loss(x: &[f64], y: f64) -> f64 {
    let a = grown(x, y);
    let b = in_place(&a);
    let mut total = 0.0;
    for i in 0..x.len() {
        let c = chained(&b);
        total += c[i] * a[i];
    }
    let mut h = composed(x);
    for _ in 0..2 {
        h = in_place(&h);
    }
    let p = pair(x[0], y);
    let r = outer(&h, &b);
    let e = echoed(b.clone());
    let s = shifted(a.clone(), y);
    total + h[0] * b[1] + p[0] * p[1] + r[1][0] + twice(x)[2] + replaced(x)[1] + e[2] * s[0]
}

fn loss_dual(x: &[Dual], y: Dual) -> Dual {
    let a = grown_dual(x, y);
    let b = in_place_dual(&a);
    let mut total = Dual::constant(0.0);
    for i in 0..x.len() {
        let c = chained_dual(&b);
        total = total + c[i] * a[i];
    }
    let mut h = composed_dual(x);
    for _ in 0..2 {
        h = in_place_dual(&h);
    }
    let p = pair_dual(x[0], y);
    let r = outer_dual(&h, &b);
    let s = shifted_dual(&a, y);
    total
        + h[0] * b[1]
        + p[0] * p[1]
        + r[1][0]
        + twice_dual(x)[2]
        + replaced_dual(x)[1]
        + b[2] * s[0]
}

#[test]
fn a_helpers_output_adjoint_starts_as_the_callers_cotangent() {
    assert_eq!(loss_grad_path(), GradientPath::Compiled);
    for (x, y) in [
        (vec![0.7, -1.2, 0.4], 0.9),
        (vec![-0.3, 1.5, -2.0], -0.6),
        (vec![1.1, 0.2, 0.8, -0.5], 1.7),
    ] {
        let point = [x.clone(), vec![y]].concat();
        let n = x.len();
        compiled_agrees(
            "loss",
            &point,
            |stack| loss_adjoint(stack, &x, y),
            || loss_grad(&x, y),
            || loss_grad_tape(&x, y),
            |p| loss_dual(&p[..n], p[n]),
        );
    }
}

/// The cotangent by reference: a binding a later statement reads again
/// after the call's reverse would have taken it (here none does, but a
/// call passed the same binding twice, and a binding read after it was
/// passed on, keep the caller's adjoint where it is).
#[differentiable]
fn reread(x: &[f64]) -> f64 {
    let a = chained(x);
    let b = grown(&a, 2.0);
    let c = grown(&a, -1.0);
    let d = outer(&a, &a);
    a[0] * b[1] + c[2] + d[0][1] + a[1]
}

fn reread_dual(x: &[Dual]) -> Dual {
    let a = chained_dual(x);
    let b = grown_dual(&a, Dual::constant(2.0));
    let c = grown_dual(&a, Dual::constant(-1.0));
    let d = outer_dual(&a, &a);
    a[0] * b[1] + c[2] + d[0][1] + a[1]
}

#[test]
fn a_binding_passed_on_to_several_helpers_keeps_its_adjoint() {
    assert_eq!(reread_grad_path(), GradientPath::Compiled);
    for x in [vec![0.7, -1.2, 0.4], vec![-0.3, 1.5, -2.0]] {
        compiled_agrees(
            "reread",
            &x,
            |stack| reread_adjoint(stack, &x),
            || reread_grad(&x),
            || reread_grad_tape(&x),
            reread_dual,
        );
    }
}

/// A helper's output bound by a `let` with no type, the return type
/// typing its `collect()` (`let out = x.iter().map(..).collect(); out`),
/// and a tuple of such a binding and a number: the reverse the caller
/// runs has no return type of its own to type the chain (the tail is no
/// longer its value), so it is given the one the signature names.
/// Without, that reverse was refused and the caller's compiled adjoint
/// ran the helper's `f_vjp` on the tape at each call (`tape_reruns`).
#[differentiable]
fn unit(x: &[f64]) -> Vec<f64> {
    let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let out = x.iter().map(|v| v / norm).collect();
    out
}

fn unit_dual(x: &[Dual]) -> Vec<Dual> {
    let norm = x.iter().fold(Dual::constant(0.0), |s, &v| s + v * v).sqrt();
    x.iter().map(|&v| v / norm).collect()
}

#[differentiable]
fn centred(x: &[f64]) -> (f64, Vec<f64>) {
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    let deviations = x.iter().map(|v| v - mean).collect();
    (mean, deviations)
}

fn centred_dual(x: &[Dual]) -> (Dual, Vec<Dual>) {
    let mean = x.iter().fold(Dual::constant(0.0), |s, &v| s + v) / x.len() as f64;
    (mean, x.iter().map(|&v| v - mean).collect())
}

#[differentiable]
fn untyped_outputs(x: &[f64]) -> f64 {
    let u = unit(x);
    let (m, d) = centred(x);
    let spread = d.iter().map(|v| v * v).sum::<f64>();
    u[0] * 2.0 - u[1] + m * spread
}

fn untyped_outputs_dual(x: &[Dual]) -> Dual {
    let u = unit_dual(x);
    let (m, d) = centred_dual(x);
    let spread = d.iter().fold(Dual::constant(0.0), |s, &v| s + v * v);
    u[0] * 2.0 - u[1] + m * spread
}

#[test]
fn an_untyped_let_returned_by_a_helper_runs_its_reverse_compiled() {
    assert_eq!(untyped_outputs_grad_path(), GradientPath::Compiled);
    for x in [vec![0.7, -1.2, 0.4], vec![-0.3, 1.5, -2.0, 0.9]] {
        compiled_agrees(
            "untyped_outputs",
            &x,
            |stack| untyped_outputs_adjoint(stack, &x),
            || untyped_outputs_grad(&x),
            || untyped_outputs_grad_tape(&x),
            untyped_outputs_dual,
        );
    }
}
