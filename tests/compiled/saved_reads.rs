//! What the reverse sweep reads back without saving it again: the adjoint
//! of a `vec![0.0; n]` bound in a loop's body, which each reversed
//! iteration takes from the stack's spares and gives back (it must start
//! from zeros every time, whatever length the iteration before had), and
//! an element of a slice the body never writes, read at an index that
//! changes (`c[k]` of a counted `k`), which saves its index, shared with
//! the adjoint place the statement saves (`w_bar[k + 1]`).
//!
//! Each function takes the compiled path (`f_adjoint` returns `Some` on a
//! fresh stack and leaves it empty; `f_grad` does not rerun the tape) and
//! agrees with the tape and with dual numbers to 1e-12 of the largest
//! component.

#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{agree, assert_agree, compiled};
use crate::oracle::{dual_value_and_gradient, Dual};

/// Per item a scratch `Vec` as long as the iteration's number (its
/// length changes from one iteration to the next), and inside it a second
/// loop with a scratch of its own: each adjoint starts from zeros.
#[differentiable]
fn scratch_per_iteration(x: &[f64]) -> f64 {
    let n = x.len();
    let mut total = 0.0;
    for i in 0..n {
        let mut partial = vec![0.0; i + 1];
        for j in 0..=i {
            partial[j] = x[j] * x[i] + 0.5;
        }
        for j in 0..=i {
            let mut pair = vec![0.0; 2];
            pair[0] = partial[j].sin();
            pair[1] = partial[j] * x[n - 1 - j];
            total += pair[0] * pair[1];
        }
        total += partial[i] * partial[0];
    }
    total
}

fn scratch_per_iteration_dual(x: &[Dual]) -> Dual {
    let n = x.len();
    let mut total = Dual::constant(0.0);
    for i in 0..n {
        let partial: Vec<Dual> = (0..=i).map(|j| x[j] * x[i] + 0.5).collect();
        for j in 0..=i {
            total = total + partial[j].sin() * (partial[j] * x[n - 1 - j]);
        }
        total = total + partial[i] * partial[0];
    }
    total
}

/// Reads of `c` (constant) and `w` at counted indices: `c[k]` and `w[k]`
/// save `k`, and `w[k + 1]`, also the adjoint place, saves `k + 1` once.
#[differentiable]
fn strided(w: &[f64], x: &[f64], #[constant] c: &[f64]) -> f64 {
    let mut k = 0;
    let mut s = 0.0;
    for j in 0..x.len() {
        s += c[k] * x[j] * w[k + 1] + w[k] * w[k] * c[k + 1];
        k += 2;
    }
    s * s
}

fn strided_dual(v: &[Dual], c: &[f64]) -> Dual {
    let (w, x) = v.split_at(c.len());
    let mut s = Dual::constant(0.0);
    for j in 0..x.len() {
        let k = 2 * j;
        s = s + x[j] * w[k + 1] * c[k] + w[k] * w[k] * c[k + 1];
    }
    s * s
}

#[test]
fn a_scratch_vec_in_a_loop_starts_from_zeros() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(scratch_per_iteration_grad_path(), GradientPath::Compiled);
    let reruns = autodiff::__adjoint::tape_reruns();
    for x in [
        vec![0.3],
        vec![0.3, -1.2, 0.8],
        vec![1.1, -0.4, 0.25, 2.0, -0.7],
    ] {
        let adjoint = compiled(|stack| scratch_per_iteration_adjoint(stack, &x));
        // Twice: the second call takes the spares the first gave back.
        for _ in 0..2 {
            let grad = agree(
                "scratch_per_iteration",
                scratch_per_iteration_grad(&x),
                scratch_per_iteration_grad_tape(&x),
            );
            assert_eq!(grad.gradient, adjoint.gradient);
        }
        let (value, oracle) = dual_value_and_gradient(&x, scratch_per_iteration_dual);
        assert_agree("scratch_per_iteration vs dual", &adjoint.gradient, &oracle);
        assert!((adjoint.value - value).abs() <= 1e-12 * value.abs().max(1.0));
    }
    assert_eq!(autodiff::__adjoint::tape_reruns(), reruns, "reran the tape");
    Ok(())
}

#[test]
fn an_element_at_a_counted_index_saves_the_index() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(strided_grad_path(), GradientPath::Compiled);
    let reruns = autodiff::__adjoint::tape_reruns();
    let w = [0.4, -1.3, 0.9, 0.2, -0.6, 1.7];
    let x = [1.5, -0.25, 0.75];
    let c = [0.5, 2.0, -1.5, 0.25, 3.0, -0.75];
    let adjoint = compiled(|stack| strided_adjoint(stack, &w, &x, &c));
    let grad = agree(
        "strided",
        strided_grad(&w, &x, &c),
        strided_grad_tape(&w, &x, &c),
    );
    assert_eq!(grad.gradient, adjoint.gradient);
    let flat: Vec<f64> = w.iter().chain(&x).copied().collect();
    let (value, oracle) = dual_value_and_gradient(&flat, |v| strided_dual(v, &c));
    let got: Vec<f64> = adjoint
        .gradient
        .0
        .iter()
        .chain(&adjoint.gradient.1)
        .copied()
        .collect();
    assert_agree("strided vs dual", &got, &oracle);
    assert!((adjoint.value - value).abs() <= 1e-12 * value.abs());
    assert_eq!(autodiff::__adjoint::tape_reruns(), reruns, "reran the tape");
    Ok(())
}
