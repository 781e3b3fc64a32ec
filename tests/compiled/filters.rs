//! A `filter` whose closure takes the item apart as a tuple, the way
//! `enumerate` and `zip` items are filtered: `x.iter().enumerate().filter(
//! |(i, _)| i % 2 == 0).map(|(_, v)| v * v).sum()`. The compiled adjoint
//! reads the filter's names from the loop's pattern, by position and
//! through as many references as each binds (a part the `map` ignores is
//! named for it). Each function is checked to take the compiled path, and
//! its gradient against dual numbers and the tape.

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{agree, assert_agree};
use crate::oracle::{dual_gradient, Dual};
use crate::xorshift;

/// Even positions, by a filter on `enumerate`'s pair through its
/// reference (`i: &usize`).
#[differentiable]
fn even_squares(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, v)| v * v)
        .sum()
}

/// The pair matched by value with the item copied out (`&(k, &v)`), the
/// loop's pattern naming both; a `zip` filtered on both sides; a filter
/// reading a name the loop's pattern ignores, where the body reads a
/// binding of the same name from outside.
#[differentiable]
fn hinge_pairs(x: &[f64], y: &[f64], k: f64) -> f64 {
    let positive: f64 = x
        .iter()
        .enumerate()
        .filter(|&(k, &v)| v > 0.0 && k != 1)
        .map(|(i, v)| v * (i as f64 + 1.0))
        .sum();
    let margins: f64 = x
        .iter()
        .zip(y)
        .filter(|(a, b)| a > b)
        .map(|(a, b)| (a - b) * k)
        .sum();
    let outer: f64 = x
        .iter()
        .enumerate()
        .filter(|(k, _)| *k >= 1)
        .map(|(_, v)| v.sin() * k)
        .sum();
    positive + margins + outer
}

fn even_squares_dual(x: &[Dual]) -> Dual {
    x.iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .fold(Dual::constant(-0.0), |s, (_, v)| s + *v * *v)
}

fn hinge_pairs_dual(x: &[Dual], y: &[Dual], k: Dual) -> Dual {
    let mut positive = Dual::constant(-0.0);
    for (i, v) in x.iter().enumerate() {
        if v.value > 0.0 && i != 1 {
            positive = positive + *v * (i as f64 + 1.0);
        }
    }
    let mut margins = Dual::constant(-0.0);
    for (a, b) in x.iter().zip(y) {
        if a.value > b.value {
            margins = margins + (*a - *b) * k;
        }
    }
    let mut outer = Dual::constant(-0.0);
    for v in x.iter().skip(1) {
        outer = outer + v.sin() * k;
    }
    positive + margins + outer
}

#[test]
fn filters_taking_tuples_apart_are_compiled() {
    // A function that keeps the tape has no `_adjoint`: this would not
    // build.
    let _compiled = (even_squares_adjoint, hinge_pairs_adjoint);
    assert_eq!(even_squares_grad_path(), GradientPath::Compiled);
    assert_eq!(hinge_pairs_grad_path(), GradientPath::Compiled);
}

#[test]
fn a_filter_taking_a_tuple_apart_keeps_the_items_it_should() {
    let mut rng = xorshift::Rng(33_029);
    for n in [0, 1, 2, 5, 8] {
        for _ in 0..6 {
            let x: Vec<f64> = (0..n).map(|_| rng.uniform(2.0)).collect();
            let y: Vec<f64> = (0..n).map(|_| rng.uniform(2.0)).collect();
            let got = agree(
                "even_squares",
                even_squares_grad(&x),
                even_squares_grad_tape(&x),
            );
            assert_eq!(got.value.to_bits(), even_squares(&x).to_bits());
            let want = dual_gradient(&x, even_squares_dual);
            assert_agree("even_squares", &got.gradient, &want);

            let k = 0.5 + rng.uniform(0.5);
            let got = agree(
                "hinge_pairs",
                hinge_pairs_grad(&x, &y, k),
                hinge_pairs_grad_tape(&x, &y, k),
            );
            assert_eq!(got.value.to_bits(), hinge_pairs(&x, &y, k).to_bits());
            let mut all = x.clone();
            all.extend(&y);
            all.push(k);
            let want = dual_gradient(&all, |d| hinge_pairs_dual(&d[..n], &d[n..2 * n], d[2 * n]));
            let (dx, dy, dk) = &got.gradient;
            assert_agree("hinge_pairs x", dx, &want[..n]);
            assert_agree("hinge_pairs y", dy, &want[n..2 * n]);
            assert_agree("hinge_pairs k", &[*dk], &want[2 * n..]);
        }
    }
}
