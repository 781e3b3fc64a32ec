//! A vector-valued helper's forward sweep runs once: at the call, it
//! returns the value with a closure of its reverse sweep, which owns what
//! the forward left (the values it saved, its bindings), and the caller's
//! reverse runs that closure with the cotangent (`src/__adjoint/
//! reverses.rs`). These check the cases where the saved reverses could be
//! run against the wrong call: calls in a loop whose vectors change length
//! per trip, in the arms of a branch, before and after an early `return`, a helper
//! calling helpers, one helper called twice on the same and on aliased
//! arguments, a returned `Vec` the caller grows, a scalar helper beside a
//! vector-valued one, a method called per row, and a helper whose binding
//! borrows a parameter (not split: its reverse reruns its forward).
//!
//! Oracles: dual numbers (`oracle::dual_gradient`, the same formulas on
//! `Dual`) and the tape. Every function takes the compiled path, runs
//! there without a rerun on the tape, and leaves the stack empty (every
//! saved reverse was run).
//!
//! Bound: each component is a short sum of products of inputs of
//! magnitude ≤ 2, `exp`s and `tanh`s of them: the paths agree to a few
//! ulps, far inside `AGREE` (1e-12 of the largest component).

// Index loops on purpose: they are the constructs under test.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{agree, assert_agree, compiled, compiled_agrees};
use crate::oracle::{dual_gradient, Dual};

/// `exp(z − max z) / Σ exp(z − max z)`: a reverse that reads what its
/// forward computed (the exponentials, the sum).
#[differentiable]
fn soft(z: &[f64]) -> Vec<f64> {
    let mut m = z[0];
    for i in 1..z.len() {
        m = m.max(z[i]);
    }
    let mut e = Vec::new();
    let mut s = 0.0;
    for i in 0..z.len() {
        let v = (z[i] - m).exp();
        e.push(v);
        s += v;
    }
    let mut out = Vec::new();
    for i in 0..e.len() {
        out.push(e[i] / s);
    }
    out
}

fn soft_dual(z: &[Dual]) -> Vec<Dual> {
    let m = z.iter().fold(z[0], |m, &v| m.max(v));
    let e: Vec<Dual> = z.iter().map(|&v| (v - m).exp()).collect();
    let s = e.iter().fold(Dual::constant(0.0), |s, &v| s + v);
    e.iter().map(|&v| v / s).collect()
}

/// `tanh(a ⊙ b)`.
#[differentiable]
fn gate(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..a.len() {
        out.push((a[i] * b[i]).tanh());
    }
    out
}

fn gate_dual(a: &[Dual], b: &[Dual]) -> Vec<Dual> {
    (0..a.len()).map(|i| (a[i] * b[i]).tanh()).collect()
}

/// `Σ v²`: a scalar helper.
#[differentiable]
fn energy(v: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..v.len() {
        total += v[i] * v[i];
    }
    total
}

fn energy_dual(v: &[Dual]) -> Dual {
    v.iter().fold(Dual::constant(0.0), |t, &x| t + x * x)
}

fn duals(p: &[Dual], at: usize, n: usize) -> Vec<Dual> {
    p[at..at + n].to_vec()
}

/// A prefix of growing length per trip, softened and gated: each trip's
/// saved reverse has its own lengths, run in the opposite order.
#[differentiable]
fn prefixes(x: &[f64], w: &[f64]) -> f64 {
    let mut total = 0.0;
    for t in 1..x.len() + 1 {
        let mut z = Vec::new();
        for i in 0..t {
            z.push(x[i] * w[i]);
        }
        let p = soft(&z);
        let g = gate(&p, &z);
        for i in 0..t {
            total += g[i] * w[i] + p[i] * x[i];
        }
    }
    total
}

fn prefixes_dual(x: &[Dual], w: &[Dual]) -> Dual {
    let mut total = Dual::constant(0.0);
    for t in 1..x.len() + 1 {
        let z: Vec<Dual> = (0..t).map(|i| x[i] * w[i]).collect();
        let p = soft_dual(&z);
        let g = gate_dual(&p, &z);
        for i in 0..t {
            total = total + g[i] * w[i] + p[i] * x[i];
        }
    }
    total
}

#[test]
fn calls_in_a_loop_run_their_saved_reverses_in_the_opposite_order() {
    assert_eq!(prefixes_grad_path(), GradientPath::Compiled);
    let x = vec![0.5, -1.0, 1.5, 0.25];
    let w = vec![1.0, 0.75, -0.5, 2.0];
    let reruns = autodiff::__adjoint::tape_reruns();
    let got = compiled(|stack| prefixes_adjoint(stack, &x, &w));
    let grad = agree(
        "prefixes",
        prefixes_grad(&x, &w),
        prefixes_grad_tape(&x, &w),
    );
    assert_eq!(autodiff::__adjoint::tape_reruns(), reruns);
    let point = [x.clone(), w.clone()].concat();
    let want = dual_gradient(&point, |p| prefixes_dual(&duals(p, 0, 4), &duals(p, 4, 4)));
    for g in [&got, &grad] {
        assert_agree(
            "prefixes",
            &[g.gradient.0.clone(), g.gradient.1.clone()].concat(),
            &want,
        );
    }
}

/// A helper in each arm, on vectors of other lengths: only the calls
/// that ran have reverses saved.
#[differentiable]
fn arms(x: &[f64], #[constant] wide: bool) -> f64 {
    let first = soft(x);
    let mut total = first[0] * x[1];
    if wide {
        let g = gate(x, &first);
        total += g[0] + g[1] * g[2];
    } else {
        let z = vec![x[0], x[1]];
        let p = soft(&z);
        total += p[1] * x[2];
    }
    let again = soft(&first);
    total + again[2] * x[0]
}

fn arms_dual(x: &[Dual], wide: bool) -> Dual {
    let first = soft_dual(x);
    let mut total = first[0] * x[1];
    if wide {
        let g = gate_dual(x, &first);
        total = total + g[0] + g[1] * g[2];
    } else {
        let p = soft_dual(&[x[0], x[1]]);
        total = total + p[1] * x[2];
    }
    let again = soft_dual(&first);
    total + again[2] * x[0]
}

#[test]
fn calls_in_branches() {
    assert_eq!(arms_grad_path(), GradientPath::Compiled);
    for (x, wide) in [(vec![0.5, -1.0, 1.5], true), (vec![0.5, -1.0, 1.5], false)] {
        let reruns = autodiff::__adjoint::tape_reruns();
        let got = compiled(|stack| arms_adjoint(stack, &x, wide));
        let grad = agree("arms", arms_grad(&x, wide), arms_grad_tape(&x, wide));
        assert_eq!(autodiff::__adjoint::tape_reruns(), reruns);
        let want = dual_gradient(&x, |p| arms_dual(p, wide));
        for g in [&got, &grad] {
            assert_agree("arms", &g.gradient, &want);
        }
    }
}

/// A scalar helper whose body calls vector-valued ones: its forward runs
/// its whole adjoint, their saved reverses run inside it.
#[differentiable]
fn score(x: &[f64], k: &[f64]) -> f64 {
    let p = soft(x);
    let g = gate(&p, k);
    energy(&g) * x[0]
}

fn score_dual(x: &[Dual], k: &[Dual]) -> Dual {
    energy_dual(&gate_dual(&soft_dual(x), k)) * x[0]
}

/// `score` before an early `return` and after it.
#[differentiable]
fn early(x: &[f64], k: &[f64]) -> f64 {
    let total = score(x, k);
    if total > 0.5 {
        return total * k[0];
    }
    total + score(k, x)
}

fn early_dual(x: &[Dual], k: &[Dual]) -> Dual {
    let total = score_dual(x, k);
    if total.value > 0.5 {
        return total * k[0];
    }
    total + score_dual(k, x)
}

/// Vector-valued calls in a body with `return`, their values passed on
/// to a scalar helper by value, before the `return` and inside its branch:
/// each value is saved where it is made, as a nested one is, and its
/// reverse pops it only where it was made, so `f_grad` stays compiled.
#[differentiable]
fn early_passed_on(x: &[f64], k: &[f64]) -> f64 {
    let total = sum_of(soft(x)) * x[0];
    if total > 0.5 {
        return total + sum_of(gate(x, k));
    }
    total + sum_of(gate(k, x)) * sum_of(soft(k))
}

/// `Σ v³`, of a `Vec` by value.
#[differentiable]
fn sum_of(v: Vec<f64>) -> f64 {
    let mut total = 0.0;
    for i in 0..v.len() {
        total += v[i] * v[i] * v[i];
    }
    total
}

fn sum_of_dual(v: Vec<Dual>) -> Dual {
    v.iter().fold(Dual::constant(0.0), |t, &x| t + x * x * x)
}

fn early_passed_on_dual(x: &[Dual], k: &[Dual]) -> Dual {
    let total = sum_of_dual(soft_dual(x)) * x[0];
    if total.value > 0.5 {
        return total + sum_of_dual(gate_dual(x, k));
    }
    total + sum_of_dual(gate_dual(k, x)) * sum_of_dual(soft_dual(k))
}

#[test]
fn calls_before_and_after_an_early_return() {
    assert_eq!(early_grad_path(), GradientPath::Compiled);
    assert_eq!(early_passed_on_grad_path(), GradientPath::Compiled);
    let k = vec![1.0, 0.75, -0.5];
    for x in [vec![2.0, -1.0, 1.5], vec![0.25, -1.0, 1.5]] {
        let point = [x.clone(), k.clone()].concat();
        let reruns = autodiff::__adjoint::tape_reruns();
        let got = compiled(|stack| early_adjoint(stack, &x, &k));
        let grad = agree("early", early_grad(&x, &k), early_grad_tape(&x, &k));
        assert_eq!(autodiff::__adjoint::tape_reruns(), reruns);
        let want = dual_gradient(&point, |p| early_dual(&duals(p, 0, 3), &duals(p, 3, 3)));
        for g in [&got, &grad] {
            assert_agree(
                "early",
                &[g.gradient.0.clone(), g.gradient.1.clone()].concat(),
                &want,
            );
        }
        let reruns = autodiff::__adjoint::tape_reruns();
        let grad = agree(
            "early_passed_on",
            early_passed_on_grad(&x, &k),
            early_passed_on_grad_tape(&x, &k),
        );
        assert_eq!(autodiff::__adjoint::tape_reruns(), reruns);
        let want = dual_gradient(&point, |p| {
            early_passed_on_dual(&duals(p, 0, 3), &duals(p, 3, 3))
        });
        assert_agree(
            "early_passed_on",
            &[grad.gradient.0.clone(), grad.gradient.1.clone()].concat(),
            &want,
        );
    }
}

/// Vector-valued calls bound by `let` in a body with `return`s, indexed
/// and passed on: at the top after one exit, in a branch after an exit
/// inside the branch (`q`, made only when the first did not leave), and
/// in a loop with no jump. Each is saved where it is made; a reverse that
/// starts from an exit before a `let` pops nothing for it.
#[differentiable]
fn early_vectors(x: &[f64], k: &[f64]) -> f64 {
    if x[0] > 3.0 {
        return x[0] * 2.0;
    }
    let p = soft(x);
    let mut s = x[2] + p[1] * k[0];
    if p[0] > 0.3 {
        s += p[2].ln();
        if s > 1.0 {
            return s * p[0];
        }
        let q = soft(k);
        s *= q[2] + sum_of(q);
    }
    if s < -0.5 {
        return s.exp();
    }
    for i in 0..2 {
        let r = gate(&[x[i], s], k);
        s += r[0] * p[i];
    }
    s * x[1]
}

fn early_vectors_dual(x: &[Dual], k: &[Dual]) -> Dual {
    if x[0].value > 3.0 {
        return x[0] * 2.0;
    }
    let p = soft_dual(x);
    let mut s = x[2] + p[1] * k[0];
    if p[0].value > 0.3 {
        s = s + p[2].ln();
        if s.value > 1.0 {
            return s * p[0];
        }
        let q = soft_dual(k);
        s = s * (q[2] + sum_of_dual(q));
    }
    if s.value < -0.5 {
        return s.exp();
    }
    for i in 0..2 {
        let r = gate_dual(&[x[i], s], k);
        s = s + r[0] * p[i];
    }
    s * x[1]
}

#[test]
fn vector_calls_bound_between_early_returns() {
    assert_eq!(early_vectors_grad_path(), GradientPath::Compiled);
    let k = vec![1.0, 0.75, -0.5];
    // Leaves at the first `return`, at the end through the branch, at
    // the `return` after the branch, at the one inside it, and at the end
    // past the branch.
    let points = [
        vec![4.0, 1.0, 0.0],
        vec![2.0, -1.0, 1.5],
        vec![2.0, -1.0, -1.5],
        vec![2.0, -1.0, 2.0],
        vec![-1.0, 0.5, 0.2],
    ];
    for x in points {
        compiled_agrees(
            "early_vectors",
            &[x.clone(), k.clone()].concat(),
            |stack| early_vectors_adjoint(stack, &x, &k),
            || early_vectors_grad(&x, &k),
            || early_vectors_grad_tape(&x, &k),
            |p| early_vectors_dual(&p[..3], &p[3..]),
        );
    }
}

/// Vector-valued calls bound by `let` as statements of the body of a loop
/// that `break`s and `continue`s: an iteration's reverse pops a call's
/// saved value where the iteration's exit came after its `let` (or it ran
/// to the end), and nothing where it left before.
#[differentiable]
fn jumping_vectors(x: &[f64], k: &[f64]) -> f64 {
    let mut s = x[2];
    let mut n = 0;
    loop {
        n += 1;
        if n > 4 {
            break;
        }
        if s > 2.0 {
            continue;
        }
        let p = soft(&[x[0] * s, k[1]]);
        s += p[0] * k[0];
        if p[1] > 0.6 {
            break;
        }
        let q = soft(&[s, x[1]]);
        s *= 1.0 + q[1];
    }
    for i in 0..3 {
        let r = soft(&[x[i], s]);
        if r[0] > 0.5 {
            s += r[1];
            continue;
        }
        s *= r[0] + 0.5;
    }
    s
}

fn jumping_vectors_dual(x: &[Dual], k: &[Dual]) -> Dual {
    let mut s = x[2];
    let mut n = 0;
    loop {
        n += 1;
        if n > 4 {
            break;
        }
        if s.value > 2.0 {
            continue;
        }
        let p = soft_dual(&[x[0] * s, k[1]]);
        s = s + p[0] * k[0];
        if p[1].value > 0.6 {
            break;
        }
        let q = soft_dual(&[s, x[1]]);
        s = s * (q[1] + 1.0);
    }
    for i in 0..3 {
        let r = soft_dual(&[x[i], s]);
        if r[0].value > 0.5 {
            s = s + r[1];
            continue;
        }
        s = s * (r[0] + 0.5);
    }
    s
}

#[test]
fn vector_calls_bound_in_loops_that_jump() {
    assert_eq!(jumping_vectors_grad_path(), GradientPath::Compiled);
    let points = [
        (vec![2.0, -1.0, 1.5], vec![1.0, 0.75, -0.5]),
        (vec![0.25, -1.0, 0.5], vec![1.0, 0.75, -0.5]),
        (vec![4.0, 1.0, 0.0], vec![1.0, 0.75, -0.5]),
        (vec![0.5, 0.5, -2.0], vec![1.0, -1.5, 0.5]),
        (vec![0.5, 0.5, 2.5], vec![1.0, 0.75, -0.5]),
    ];
    for (x, k) in points {
        compiled_agrees(
            "jumping_vectors",
            &[x.clone(), k.clone()].concat(),
            |stack| jumping_vectors_adjoint(stack, &x, &k),
            || jumping_vectors_grad(&x, &k),
            || jumping_vectors_grad_tape(&x, &k),
            |p| jumping_vectors_dual(&p[..3], &p[3..]),
        );
    }
}

/// A helper calling helpers: its forward saves their reverses before its
/// own, its reverse runs theirs.
#[differentiable]
fn attend(q: &[f64], k: &[f64]) -> Vec<f64> {
    let p = soft(q);
    let g = gate(&p, k);
    soft(&g)
}

fn attend_dual(q: &[Dual], k: &[Dual]) -> Vec<Dual> {
    soft_dual(&gate_dual(&soft_dual(q), k))
}

/// `attend` twice on the same arguments and once on a slice and its
/// alias, its output grown by the caller, beside a scalar helper.
#[differentiable]
fn composed(q: &[f64], k: &[f64]) -> f64 {
    let a = attend(q, k);
    let r = q;
    let b = attend(q, r);
    let c = gate(k, &a);
    let d = attend(q, k);
    let mut grown = attend(&a, &c);
    grown.push(q[0] * k[1]);
    let mut total = energy(&grown) + energy(&b);
    for i in 0..a.len() {
        total += a[i] * b[i] * grown[i];
    }
    total + grown[3] * d[1]
}

fn composed_dual(q: &[Dual], k: &[Dual]) -> Dual {
    let a = attend_dual(q, k);
    let b = attend_dual(q, q);
    let c = gate_dual(k, &a);
    let d = attend_dual(q, k);
    let mut grown = attend_dual(&a, &c);
    grown.push(q[0] * k[1]);
    let mut total = energy_dual(&grown) + energy_dual(&b);
    for i in 0..a.len() {
        total = total + a[i] * b[i] * grown[i];
    }
    total + grown[3] * d[1]
}

#[test]
fn helpers_calling_helpers_on_the_same_and_on_aliased_arguments() {
    assert_eq!(composed_grad_path(), GradientPath::Compiled);
    let q = vec![0.5, -1.0, 1.5];
    let k = vec![1.0, 0.75, -0.5];
    let reruns = autodiff::__adjoint::tape_reruns();
    let got = compiled(|stack| composed_adjoint(stack, &q, &k));
    let grad = agree(
        "composed",
        composed_grad(&q, &k),
        composed_grad_tape(&q, &k),
    );
    assert_eq!(autodiff::__adjoint::tape_reruns(), reruns);
    let point = [q.clone(), k.clone()].concat();
    let want = dual_gradient(&point, |p| composed_dual(&duals(p, 0, 3), &duals(p, 3, 3)));
    for g in [&got, &grad] {
        assert_agree(
            "composed",
            &[g.gradient.0.clone(), g.gradient.1.clone()].concat(),
            &want,
        );
    }
}

/// A row-wise layer as a model.
#[derive(Clone, Debug, PartialEq, Parameters)]
struct Rows {
    w: Vec<f64>,
    b: Vec<f64>,
}

#[differentiable]
impl Rows {
    /// `soft(w ⊙ x + b)`.
    fn forward(&self, x: &[f64]) -> Vec<f64> {
        let mut z = Vec::new();
        for i in 0..x.len() {
            z.push(self.w[i] * x[i] + self.b[i]);
        }
        soft(&z)
    }
}

/// The method once per row of `xs`, the rows of other lengths.
#[differentiable]
fn per_row(layer: &Rows, #[constant] xs: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for r in 0..xs.len() {
        let y = layer.forward(&xs[r]);
        total += y[0] * layer.w[r] + y[y.len() - 1];
    }
    total
}

#[test]
fn a_method_called_per_row() {
    assert_eq!(per_row_grad_path(), GradientPath::Compiled);
    let layer = Rows {
        w: vec![1.0, -0.5, 0.75],
        b: vec![0.1, 0.2, -0.3],
    };
    let xs = vec![vec![0.5, -1.0, 1.5], vec![2.0, 0.25], vec![-1.0, 1.0, 0.5]];
    let reruns = autodiff::__adjoint::tape_reruns();
    let got = compiled(|stack| per_row_adjoint(stack, &layer, &xs));
    let grad = per_row_grad(&layer, &xs).expect("compiled");
    let tape = per_row_grad_tape(&layer, &xs).expect("tape");
    assert_eq!(autodiff::__adjoint::tape_reruns(), reruns);
    let point = [layer.w.clone(), layer.b.clone()].concat();
    let want = dual_gradient(&point, |p| {
        let (w, b) = (&p[0..3], &p[3..6]);
        let mut total = Dual::constant(0.0);
        for (r, x) in xs.iter().enumerate() {
            let z: Vec<Dual> = (0..x.len()).map(|i| w[i] * x[i] + b[i]).collect();
            let y = soft_dual(&z);
            total = total + y[0] * w[r] + y[y.len() - 1];
        }
        total
    });
    for g in [&got, &grad, &tape] {
        assert_agree(
            "per_row",
            &[g.gradient.w.clone(), g.gradient.b.clone()].concat(),
            &want,
        );
    }
}

/// A binding that borrows a parameter (`let y = x;`), which the closure
/// of a reverse could not own: this helper's reverse reruns its forward,
/// beside split ones.
#[differentiable]
fn borrowing(x: &[f64], c: f64) -> Vec<f64> {
    let y = x;
    let mut out = Vec::new();
    for i in 0..x.len() {
        out.push((y[i] * c).exp());
    }
    out
}

#[differentiable]
fn mixed(x: &[f64], c: f64) -> f64 {
    let b = borrowing(x, c);
    let p = soft(&b);
    let again = borrowing(&p, c);
    again[0] * p[1] + energy(&b)
}

#[test]
fn a_helper_whose_binding_borrows_beside_split_ones() {
    assert_eq!(mixed_grad_path(), GradientPath::Compiled);
    let x = vec![0.5, -1.0, 0.25];
    let c = 0.75;
    let reruns = autodiff::__adjoint::tape_reruns();
    let got = compiled(|stack| mixed_adjoint(stack, &x, c));
    let grad = agree("mixed", mixed_grad(&x, c), mixed_grad_tape(&x, c));
    assert_eq!(autodiff::__adjoint::tape_reruns(), reruns);
    let point = [x.clone(), vec![c]].concat();
    let want = dual_gradient(&point, |p| {
        let (x, c) = (&p[0..3], p[3]);
        let borrowing = |x: &[Dual]| -> Vec<Dual> { x.iter().map(|&v| (v * c).exp()).collect() };
        let b = borrowing(x);
        let p = soft_dual(&b);
        let again = borrowing(&p);
        again[0] * p[1] + energy_dual(&b)
    });
    for g in [&got, &grad] {
        assert_agree(
            "mixed",
            &[g.gradient.0.clone(), vec![g.gradient.1]].concat(),
            &want,
        );
    }
}

/// A call's value in a loop that the rest of the trip only indexes and
/// measures, after the call's argument changed: the value moves to the
/// call's site at the end of the trip (no copy), and the argument is
/// saved as the call read it.
#[differentiable]
fn changed_after(x: &[f64], w: &[f64]) -> f64 {
    let mut total = 0.0;
    for t in 1..x.len() + 1 {
        let mut z = Vec::new();
        for i in 0..t {
            z.push(x[i] * w[i]);
        }
        let p = soft(&z);
        z[0] = z[0] * p[0] + w[0];
        for i in 0..t {
            total += p[i] * z[i] + p.len() as f64 * x[i];
        }
    }
    total
}

fn changed_after_dual(x: &[Dual], w: &[Dual]) -> Dual {
    let mut total = Dual::constant(0.0);
    for t in 1..x.len() + 1 {
        let mut z: Vec<Dual> = (0..t).map(|i| x[i] * w[i]).collect();
        let p = soft_dual(&z);
        z[0] = z[0] * p[0] + w[0];
        for i in 0..t {
            total = total + p[i] * z[i] + Dual::constant(p.len() as f64) * x[i];
        }
    }
    total
}

#[test]
fn a_calls_value_moves_to_its_site_after_its_argument_changes() {
    assert_eq!(changed_after_grad_path(), GradientPath::Compiled);
    let x = vec![0.5, -1.0, 1.5, 0.25];
    let w = vec![1.0, 0.75, -0.5, 2.0];
    compiled_agrees(
        "changed_after",
        &[x.clone(), w.clone()].concat(),
        |stack| changed_after_adjoint(stack, &x, &w),
        || changed_after_grad(&x, &w),
        || changed_after_grad_tape(&x, &w),
        |p| changed_after_dual(&duals(p, 0, 4), &duals(p, 4, 4)),
    );
}
