//! Closures the compiled adjoint reads as loops or inlines: `max_by` and
//! `min_by` with a comparing closure (over `iter()`, `copied()` and
//! `enumerate()`), `windows(n)` and `chunks(n)` in a `map`, and a closure
//! bound by `let` and called. Each function here has an `f_adjoint` (the
//! first test names them: a function that keeps the tape has none) and
//! `f_grad_path()` says `Compiled`; its gradient is checked against the
//! tape (`f_grad_tape`) and a dual-number twin (`crate::oracle::Dual`,
//! which selects by the same comparison) at random points and at ties.

// Index loops in the functions and their twins: they read like the
// formulas.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{agree, assert_agree, compiled_agrees};
use crate::oracle::{dual_gradient, Dual};
use crate::xorshift;

// ---------------------------------------------------------------------
// `max_by` and `min_by`.
// ---------------------------------------------------------------------

#[differentiable]
fn largest(x: &[f64]) -> f64 {
    *x.iter().max_by(|a, b| a.total_cmp(b)).unwrap()
}

#[differentiable]
fn smallest_squared(x: &[f64]) -> f64 {
    let m = x
        .iter()
        .copied()
        .min_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap();
    m * m
}

#[differentiable]
fn top_score(scores: [f64; 4]) -> f64 {
    let (_, best) = scores
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.partial_cmp(b.1).unwrap())
        .unwrap();
    best * 2.0
}

/// A reference bound by `let`, patterns `&a`, a reversed source, an
/// index read from the pair, and the selection in a loop.
#[differentiable]
fn selections(x: &[f64], w: f64) -> f64 {
    let low = x.iter().rev().min_by(|&a, &b| a.total_cmp(b)).unwrap();
    let mut total = 0.0;
    for k in 0..2 {
        let (at, v) = x
            .iter()
            .copied()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap();
        total += v * w * (at + k) as f64;
    }
    total + low.sin() * w
}

/// The argmax as students write it: the index through `.map(|(i, _)|
/// i)`, through `.unwrap().0`, the pair taken apart in the comparing
/// closure (`|(_, a), (_, b)|`, `|&(_, a), &(_, b)|`), the item through
/// `.unwrap().1` and `.copied().unwrap()`.
#[differentiable]
fn argmax_forms(x: &[f64]) -> f64 {
    let i = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.partial_cmp(b.1).unwrap())
        .map(|(i, _)| i)
        .unwrap();
    let j = x
        .iter()
        .enumerate()
        .min_by(|(_, a), (_, b)| a.total_cmp(b))
        .unwrap()
        .0;
    let low = *x
        .iter()
        .enumerate()
        .min_by(|&(_, a), &(_, b)| a.partial_cmp(b).unwrap())
        .unwrap()
        .1;
    let high = x.iter().max_by(|a, b| a.total_cmp(b)).copied().unwrap();
    let v = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(_, &v)| v)
        .unwrap();
    x[i] * 2.0 + x[j].sin() * high + low * low - v.exp() + (i + j) as f64
}

fn argmax_forms_dual(x: &[Dual]) -> Dual {
    let i = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.value.partial_cmp(&b.1.value).unwrap())
        .map(|(i, _)| i)
        .unwrap();
    let j = x
        .iter()
        .enumerate()
        .min_by(|(_, a), (_, b)| a.value.total_cmp(&b.value))
        .unwrap()
        .0;
    let low = *x
        .iter()
        .enumerate()
        .min_by(|&(_, a), &(_, b)| a.value.partial_cmp(&b.value).unwrap())
        .unwrap()
        .1;
    let high = x
        .iter()
        .max_by(|a, b| a.value.total_cmp(&b.value))
        .copied()
        .unwrap();
    let v = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.value.total_cmp(&b.1.value))
        .map(|(_, &v)| v)
        .unwrap();
    x[i] * 2.0 + x[j].sin() * high + low * low - v.exp() + (i + j) as f64
}

/// Selections over computed items: the item farthest from the mean,
/// and k-means' assignment, the nearest center by index.
#[differentiable]
fn computed_selections(x: &[f64], centers: &[Vec<f64>]) -> f64 {
    let m = x.iter().sum::<f64>() / x.len() as f64;
    let far = x
        .iter()
        .map(|v| (v - m).abs())
        .max_by(|a, b| a.total_cmp(b))
        .unwrap();
    let p = [x[0], x[1]];
    let (best, d) = centers
        .iter()
        .map(|c| c.iter().zip(&p).map(|(a, b)| (a - b).powi(2)).sum::<f64>())
        .enumerate()
        .min_by(|a, b| a.1.partial_cmp(&b.1).unwrap())
        .unwrap();
    // The comparing closure's parameter named as the `map`'s.
    let off = x[x
        .iter()
        .map(|p| (*p - 0.5) * (*p - 0.5))
        .enumerate()
        .max_by(|p, q| p.1.partial_cmp(&q.1).unwrap())
        .unwrap()
        .0];
    far * 2.0 + d + centers[best][1] * x[2] + off * x[3]
}

fn computed_selections_dual(x: &[Dual], centers: &[Vec<Dual>]) -> Dual {
    let m = x.iter().fold(Dual::constant(0.0), |s, v| s + *v) / x.len() as f64;
    let far = x
        .iter()
        .map(|v| (*v - m).abs())
        .max_by(|a, b| a.value.total_cmp(&b.value))
        .unwrap();
    let p = [x[0], x[1]];
    let (best, d) = centers
        .iter()
        .map(|c| {
            c.iter()
                .zip(&p)
                .fold(Dual::constant(0.0), |s, (a, b)| s + (*a - *b).powi(2))
        })
        .enumerate()
        .min_by(|a, b| a.1.value.partial_cmp(&b.1.value).unwrap())
        .unwrap();
    let off = x[x
        .iter()
        .map(|p| (*p - 0.5) * (*p - 0.5))
        .enumerate()
        .max_by(|p, q| p.1.value.partial_cmp(&q.1.value).unwrap())
        .unwrap()
        .0];
    far * 2.0 + d + centers[best][1] * x[2] + off * x[3]
}

fn largest_dual(x: &[Dual]) -> Dual {
    *x.iter().max_by(|a, b| a.value.total_cmp(&b.value)).unwrap()
}

fn smallest_squared_dual(x: &[Dual]) -> Dual {
    let m = x
        .iter()
        .copied()
        .min_by(|a, b| a.value.partial_cmp(&b.value).unwrap())
        .unwrap();
    m * m
}

fn top_score_dual(scores: [Dual; 4]) -> Dual {
    let (_, best) = scores
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.value.partial_cmp(&b.1.value).unwrap())
        .unwrap();
    *best * 2.0
}

fn selections_dual(x: &[Dual], w: Dual) -> Dual {
    let low = x
        .iter()
        .rev()
        .min_by(|&a, &b| a.value.total_cmp(&b.value))
        .unwrap();
    let mut total = Dual::constant(0.0);
    for k in 0..2 {
        let (at, v) = x
            .iter()
            .copied()
            .enumerate()
            .max_by(|a, b| a.1.value.total_cmp(&b.1.value))
            .unwrap();
        total = total + v * w * (at + k) as f64;
    }
    total + low.sin() * w
}

fn points(seed: u64, n: usize) -> Vec<Vec<f64>> {
    let mut rng = xorshift::Rng(seed);
    let mut out: Vec<Vec<f64>> = (0..20)
        .map(|_| (0..n).map(|_| rng.uniform(2.0)).collect())
        .collect();
    // Ties: `max_by` keeps the later of equal items, `min_by` the earlier.
    let mut tied = vec![0.5; n];
    tied[0] = -1.0;
    out.push(tied);
    out.push(vec![1.25; n]);
    out
}

#[test]
fn every_function_here_is_compiled() {
    // A function that keeps the tape has no `_adjoint`: this would not
    // build.
    let _compiled = (
        largest_adjoint,
        smallest_squared_adjoint,
        top_score_adjoint,
        selections_adjoint,
        argmax_forms_adjoint,
        computed_selections_adjoint,
    );
    for path in [
        largest_grad_path(),
        smallest_squared_grad_path(),
        top_score_grad_path(),
        selections_grad_path(),
        argmax_forms_grad_path(),
        computed_selections_grad_path(),
    ] {
        assert_eq!(path, GradientPath::Compiled);
    }
}

#[test]
fn max_by_and_min_by_select_the_item_the_tape_selects() {
    for x in points(17101, 5) {
        let got = agree("largest", largest_grad(&x), largest_grad_tape(&x));
        assert_eq!(got.value, largest(&x));
        assert_agree("largest", &got.gradient, &dual_gradient(&x, largest_dual));

        let got = agree(
            "smallest_squared",
            smallest_squared_grad(&x),
            smallest_squared_grad_tape(&x),
        );
        assert_eq!(got.value, smallest_squared(&x));
        assert_agree(
            "smallest_squared",
            &got.gradient,
            &dual_gradient(&x, smallest_squared_dual),
        );

        let s = [x[0], x[1], x[2], x[3]];
        let got = agree("top_score", top_score_grad(s), top_score_grad_tape(s));
        assert_eq!(got.value, top_score(s));
        let want = dual_gradient(&s, |d| top_score_dual([d[0], d[1], d[2], d[3]]));
        assert_agree("top_score", &got.gradient, &want);

        let w = x[4] * 0.5 + 0.1;
        let got = agree(
            "selections",
            selections_grad(&x[..4], w),
            selections_grad_tape(&x[..4], w),
        );
        assert_eq!(got.value, selections(&x[..4], w));
        let mut all = x[..4].to_vec();
        all.push(w);
        let want = dual_gradient(&all, |d| selections_dual(&d[..4], d[4]));
        assert_agree("selections", &got.gradient.0, &want[..4]);
        assert_agree("selections", &[got.gradient.1], &want[4..]);

        compiled_agrees(
            "argmax_forms",
            &x,
            |stack| argmax_forms_adjoint(stack, &x),
            || argmax_forms_grad(&x),
            || argmax_forms_grad_tape(&x),
            argmax_forms_dual,
        );
    }
}

#[test]
fn selections_over_computed_items_agree_with_dual_numbers() {
    for x in points(20_774, 4) {
        let centers = vec![
            vec![x[3], 0.5],
            vec![-0.25, x[2]],
            vec![1.0, -1.0],
            vec![x[3], 0.5],
        ];
        let mut point = x.clone();
        point.extend(centers.iter().flatten());
        compiled_agrees(
            "computed_selections",
            &point,
            |stack| computed_selections_adjoint(stack, &x, &centers),
            || computed_selections_grad(&x, &centers),
            || computed_selections_grad_tape(&x, &centers),
            |d| {
                let rows: Vec<Vec<Dual>> = d[4..].chunks(2).map(|row| row.to_vec()).collect();
                computed_selections_dual(&d[..4], &rows)
            },
        );
    }
}

#[test]
fn an_argmax_reads_the_index_of_the_item_it_selects() -> Result<(), ScalarAutodiffError> {
    // Ties: `max_by` keeps the last of equal items, `min_by` the first.
    let x = [0.5, 2.0, -1.0, 2.0, -1.0];
    let got = argmax_forms_grad(&x)?;
    assert_eq!(got.value, argmax_forms(&x));
    // i = 3, j = 2, low = x[2], high = x[3], v = x[3].
    let (high, low) = (2.0_f64, -1.0_f64);
    let want = [
        0.0,
        0.0,
        low.cos() * high + 2.0 * low,
        2.0 + (-1.0_f64).sin() - high.exp(),
        0.0,
    ];
    assert_agree("argmax_forms", &got.gradient, &want);
    Ok(())
}

#[test]
fn the_largest_and_smallest_item_take_the_gradient() -> Result<(), ScalarAutodiffError> {
    let got = largest_grad(&[1.0, 5.0, 3.0])?;
    assert_eq!(got.value, 5.0);
    assert_eq!(got.gradient, vec![0.0, 1.0, 0.0]);
    let got = smallest_squared_grad(&[1.0, -5.0, 3.0])?;
    assert_eq!(got.value, 25.0);
    assert_eq!(got.gradient, vec![0.0, -10.0, 0.0]);
    let got = top_score_grad([0.1, 0.9, 0.3, 0.2])?;
    assert_eq!(got.value, 1.8);
    assert_eq!(got.gradient, [0.0, 2.0, 0.0, 0.0]);
    Ok(())
}

#[test]
fn ties_go_where_the_standard_library_puts_them() -> Result<(), ScalarAutodiffError> {
    // `max_by` keeps the last of equal items, `min_by` the first.
    assert_eq!(
        largest_grad(&[1.0, 3.0, 3.0, 2.0])?.gradient,
        [0.0, 0.0, 1.0, 0.0]
    );
    assert_eq!(
        smallest_squared_grad(&[2.0, -1.0, 3.0, -1.0])?.gradient,
        [0.0, -2.0, 0.0, 0.0]
    );
    assert_eq!(
        top_score_grad([0.1, 0.9, 0.3, 0.9])?.gradient,
        [0.0, 0.0, 0.0, 2.0]
    );
    Ok(())
}

#[test]
#[should_panic(expected = "called `Option::unwrap()` on a `None` value")]
fn an_empty_source_panics_at_the_unwrap_as_written() {
    let _ = largest_grad(&[]);
}

// ---------------------------------------------------------------------
// `windows(n)` and `chunks(n)`.
// ---------------------------------------------------------------------

#[differentiable]
fn roughness(x: &[f64]) -> f64 {
    x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum()
}

#[differentiable]
fn pair_products(x: &[f64]) -> f64 {
    x.chunks(2).map(|c| c[0] * c[1]).sum()
}

/// Windows of three in a `fold`, chunks of three in a `for_each`, and a
/// window of a row of a matrix.
#[differentiable]
fn curvature(x: &[f64], m: [[f64; 4]; 2], s: f64) -> f64 {
    let bend = x
        .windows(3)
        .fold(0.0, |acc, w| acc + (w[0] - 2.0 * w[1] + w[2]).powi(2) * s);
    let mut spread = 0.0;
    x.chunks(3)
        .for_each(|c| spread += (c[0] * c[2]).tanh() + c[1]);
    bend + spread + m[1].windows(2).map(|w| w[0] * w[1]).sum::<f64>()
}

fn roughness_dual(x: &[Dual]) -> Dual {
    x.windows(2)
        .fold(Dual::constant(-0.0), |s, w| s + (w[1] - w[0]).powi(2))
}

fn pair_products_dual(x: &[Dual]) -> Dual {
    x.chunks(2)
        .fold(Dual::constant(-0.0), |s, c| s + c[0] * c[1])
}

fn curvature_dual(x: &[Dual], m: &[Dual], s: Dual) -> Dual {
    let bend = x.windows(3).fold(Dual::constant(0.0), |acc, w| {
        acc + (w[0] - w[1] * 2.0 + w[2]).powi(2) * s
    });
    let mut spread = Dual::constant(0.0);
    x.chunks(3)
        .for_each(|c| spread = spread + (c[0] * c[2]).tanh() + c[1]);
    let row = &m[4..8];
    bend + spread
        + row
            .windows(2)
            .fold(Dual::constant(-0.0), |t, w| t + w[0] * w[1])
}

#[test]
fn windows_and_chunks_are_compiled() {
    let _compiled = (roughness_adjoint, pair_products_adjoint, curvature_adjoint);
    for path in [
        roughness_grad_path(),
        pair_products_grad_path(),
        curvature_grad_path(),
    ] {
        assert_eq!(path, GradientPath::Compiled);
    }
}

#[test]
fn windows_and_chunks_read_the_elements_of_the_slice() {
    // Lengths below, at and above the window, and a short last chunk of
    // three.
    for x in points(17102, 9) {
        for n in [0, 1, 2, 3, 4, 6, 9] {
            let x = &x[..n];
            let got = agree("roughness", roughness_grad(x), roughness_grad_tape(x));
            assert_eq!(got.value, roughness(x));
            assert_agree(
                "roughness",
                &got.gradient,
                &dual_gradient(x, roughness_dual),
            );
            if n % 2 == 0 {
                let got = agree(
                    "pair_products",
                    pair_products_grad(x),
                    pair_products_grad_tape(x),
                );
                assert_eq!(got.value, pair_products(x));
                let want = dual_gradient(x, pair_products_dual);
                assert_agree("pair_products", &got.gradient, &want);
            }
            if n % 3 == 0 {
                let m = [
                    [x.first().copied().unwrap_or(0.5), 0.25, -1.0, 2.0],
                    [0.5, -0.75, 1.5, 0.125],
                ];
                let s = 0.75;
                let got = agree(
                    "curvature",
                    curvature_grad(x, m, s),
                    curvature_grad_tape(x, m, s),
                );
                assert_eq!(got.value, curvature(x, m, s));
                let mut all = x.to_vec();
                all.extend(m.iter().flatten());
                all.push(s);
                let want = dual_gradient(&all, |d| curvature_dual(&d[..n], &d[n..n + 8], d[n + 8]));
                let (dx, dm, ds) = &got.gradient;
                assert_agree("curvature x", dx, &want[..n]);
                let dm: Vec<f64> = dm.iter().flatten().copied().collect();
                assert_agree("curvature m", &dm, &want[n..n + 8]);
                assert_agree("curvature s", &[*ds], &want[n + 8..]);
            }
        }
    }
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn a_short_last_chunk_read_past_its_end_panics_as_written() {
    let _ = pair_products_grad(&[1.0, 2.0, 3.0]);
}

// ---------------------------------------------------------------------
// A closure bound by `let` and called.
// ---------------------------------------------------------------------

#[differentiable]
fn smoothed(x: f64) -> f64 {
    let act = |v: f64| v.tanh() * 0.5;
    act(x) + act(2.0 * x)
}

/// Two parameters and a captured tracked value, a closure calling
/// another, calls in a loop, in a chain's closure and as another call's
/// argument, and a closure holding a chain.
#[differentiable]
fn layered(x: &[f64], w: f64, b: f64) -> f64 {
    let unit = |v: f64, bias: f64| (w * v + bias).tanh();
    let twice = |v: f64| unit(v, b) * unit(v * 0.5, -b);
    let norm = |k: f64| x.iter().map(|t| (t * k).powi(2)).sum::<f64>();
    let mut total = 0.0;
    for i in 0..x.len() {
        total += twice(x[i]) * (i as f64 + 1.0);
    }
    let mapped: f64 = x.iter().map(|v| unit(*v, b * 0.25)).sum();
    let square = |v: f64| v * v;
    total + square(mapped) + square(norm(w))
}

fn smoothed_dual(x: Dual) -> Dual {
    let act = |v: Dual| v.tanh() * 0.5;
    act(x) + act(x * 2.0)
}

fn layered_dual(x: &[Dual], w: Dual, b: Dual) -> Dual {
    let unit = |v: Dual, bias: Dual| (w * v + bias).tanh();
    let twice = |v: Dual| unit(v, b) * unit(v * 0.5, Dual::constant(0.0) - b);
    let norm = |k: Dual| {
        x.iter()
            .fold(Dual::constant(-0.0), |s, t| s + (*t * k).powi(2))
    };
    let mut total = Dual::constant(0.0);
    for i in 0..x.len() {
        total = total + twice(x[i]) * (i as f64 + 1.0);
    }
    let mapped = x
        .iter()
        .fold(Dual::constant(-0.0), |s, v| s + unit(*v, b * 0.25));
    let n = norm(w);
    total = total + mapped * mapped;
    total + n * n
}

#[test]
fn closures_bound_by_let_are_compiled() {
    let _compiled = (smoothed_adjoint, layered_adjoint);
    assert_eq!(smoothed_grad_path(), GradientPath::Compiled);
    assert_eq!(layered_grad_path(), GradientPath::Compiled);
}

#[test]
fn a_closure_call_is_its_body_at_the_call() {
    for x in points(17103, 5) {
        let got = agree("smoothed", smoothed_grad(x[0]), smoothed_grad_tape(x[0]));
        assert_eq!(got.value, smoothed(x[0]));
        let want = smoothed_dual(Dual::input(x[0], true)).tangent;
        assert_agree("smoothed", &[got.gradient], &[want]);

        let (w, b) = (x[3], x[4] * 0.5);
        let v = &x[..3];
        let got = agree("layered", layered_grad(v, w, b), layered_grad_tape(v, w, b));
        assert_eq!(got.value, layered(v, w, b));
        let mut all = v.to_vec();
        all.extend([w, b]);
        let want = dual_gradient(&all, |d| layered_dual(&d[..3], d[3], d[4]));
        assert_agree("layered x", &got.gradient.0, &want[..3]);
        assert_agree(
            "layered w, b",
            &[got.gradient.1, got.gradient.2],
            &want[3..],
        );
    }
}

/// Closures with their return type written (`|a: f64| -> f64 { .. }`):
/// on a tracked parameter, on a constant with a tracked capture, of an
/// integer, with statements in its block. Their calls are read as their
/// bodies, the value bound with the type.
#[differentiable]
fn typed_returns(x: &[f64], w: f64, #[constant] k: f64) -> f64 {
    let sq = |a: f64| -> f64 { a * a };
    let scaled = |a: f64| -> f64 {
        let t = a * w;
        t.sin()
    };
    let half = |n: usize| -> f64 { n as f64 * 0.5 };
    sq(x[0] * w) + scaled(k) * half(3) + x[1] * w * sq(w)
}

/// A closure of two typed slices whose body names `f64` (`sum::<f64>()`):
/// the types of its parameters counted `f64` as a name bound twice, and
/// the closure kept the tape.
#[differentiable]
fn dot_by_closure(w: &[f64], x: &[f64]) -> f64 {
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
    dot(w, x) * dot(x, x)
}

fn dot_by_closure_dual(w: &[Dual], x: &[Dual]) -> Dual {
    let dot = |a: &[Dual], b: &[Dual]| {
        a.iter()
            .zip(b)
            .fold(Dual::constant(0.0), |s, (p, q)| s + *p * *q)
    };
    dot(w, x) * dot(x, x)
}

/// A `Vec` collected in a closure with its return type (the type
/// `collect` needs): a closure's `Vec` value keeps the tape, and the
/// tape twin takes the type (it wrote `-> Vec<f64>` for lifted items).
#[differentiable]
fn typed_vec_return(x: &[f64], w: f64) -> f64 {
    let times = |v: &[f64], by: f64| -> Vec<f64> { v.iter().map(|t| t * by).collect() };
    let y = times(x, w);
    y[0] * y[0] + y[1] * w
}

fn typed_returns_dual(x: &[Dual], w: Dual, k: f64) -> Dual {
    let y = x[0] * w;
    y * y + (w * k).sin() * 1.5 + x[1] * w * w * w
}

fn typed_vec_return_dual(x: &[Dual], w: Dual) -> Dual {
    let y: Vec<Dual> = x.iter().map(|t| *t * w).collect();
    y[0] * y[0] + y[1] * w
}

#[test]
fn closures_with_their_return_type_are_read_at_their_calls() {
    let _compiled = (typed_returns_adjoint, dot_by_closure_adjoint);
    assert_eq!(typed_returns_grad_path(), GradientPath::Compiled);
    assert_eq!(dot_by_closure_grad_path(), GradientPath::Compiled);
    for x in points(20313, 5) {
        let (v, w, k) = (&x[..2], x[2], x[3]);
        let got = agree(
            "typed_returns",
            typed_returns_grad(v, w, k),
            typed_returns_grad_tape(v, w, k),
        );
        assert_eq!(got.value, typed_returns(v, w, k));
        let mut all = v.to_vec();
        all.push(w);
        let want = dual_gradient(&all, |d| typed_returns_dual(&d[..2], d[2], k));
        assert_agree("typed_returns x", &got.gradient.0, &want[..2]);
        assert_agree("typed_returns w", &[got.gradient.1], &want[2..]);

        let got = agree(
            "typed_vec_return",
            typed_vec_return_grad(v, w),
            typed_vec_return_grad_tape(v, w),
        );
        let want = dual_gradient(&all, |d| typed_vec_return_dual(&d[..2], d[2]));
        assert_agree("typed_vec_return x", &got.gradient.0, &want[..2]);
        assert_agree("typed_vec_return w", &[got.gradient.1], &want[2..]);

        let (w, x) = (&x[..2], &x[2..4]);
        let got = agree(
            "dot_by_closure",
            dot_by_closure_grad(w, x),
            dot_by_closure_grad_tape(w, x),
        );
        let all = [w, x].concat();
        let want = dual_gradient(&all, |d| dot_by_closure_dual(&d[..2], &d[2..]));
        assert_agree("dot_by_closure w", &got.gradient.0, &want[..2]);
        assert_agree("dot_by_closure x", &got.gradient.1, &want[2..]);
    }
}

/// `k` is bound again between the closure and its call: the closure
/// reads the first `k`. The compiled adjoint reads the second under a
/// name of its own (`k_2`, `adjoint/shadows.rs`), so the closure's body,
/// read at the call, still sees the first.
#[differentiable]
fn shadowed_capture(x: f64) -> f64 {
    let k = 2.0;
    let scale = |v: f64| v * k;
    let k = 5.0;
    scale(x) + k * x
}

#[test]
fn a_closure_whose_capture_is_hidden_at_the_call_reads_the_first_binding(
) -> Result<(), ScalarAutodiffError> {
    assert_eq!(shadowed_capture_grad_path(), GradientPath::Compiled);
    let got = shadowed_capture_grad(1.5)?;
    assert_eq!((got.value, got.gradient), (1.5 * 2.0 + 5.0 * 1.5, 7.0));
    let tape = shadowed_capture_grad_tape(1.5)?;
    assert_eq!((tape.value, tape.gradient), (got.value, got.gradient));
    Ok(())
}

/// A reference `max_by` selects, bound by a `let` in a loop: each pass's
/// would have to be kept for the reverse sweep, which keeps numbers, not
/// references; the function keeps the tape (pinned in the fallback list).
#[differentiable]
fn largest_in_a_loop(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for k in 0..2 {
        let m = x.iter().max_by(|a, b| a.total_cmp(b)).unwrap();
        total += m * m * (k as f64 + 1.0);
    }
    total
}

#[test]
fn a_selected_reference_bound_in_a_loop_keeps_the_tape() -> Result<(), ScalarAutodiffError> {
    assert!(matches!(
        largest_in_a_loop_grad_path(),
        GradientPath::Tape { .. }
    ));
    let got = largest_in_a_loop_grad(&[1.0, 3.0, 2.0])?;
    assert_eq!((got.value, got.gradient), (27.0, vec![0.0, 18.0, 0.0]));
    Ok(())
}

/// A chain the compiled adjoint reads as a loop, before a construct it
/// does not take (a `while` whose condition pops a tracked `Vec`): the
/// reason given is that construct, not the chain, which the body as
/// written stopped at first.
#[differentiable]
fn drained_after_a_fold(v: &[f64]) -> f64 {
    let m = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mut acc = 0.0;
    let mut rest: Vec<f64> = v.to_vec();
    while let Some(x) = rest.pop() {
        acc += (x - m).exp();
    }
    m + acc.ln()
}

#[test]
fn the_reason_a_body_keeps_the_tape_is_not_a_chain_it_reads() {
    let GradientPath::Tape { construct, line } = drained_after_a_fold_grad_path() else {
        panic!("compiled")
    };
    // The `while let` of the function above.
    let while_line = line!() - 12;
    assert_eq!(
        (construct, line),
        ("a while condition with a derivative", while_line)
    );
    let v = [0.5, -1.0, 2.0];
    let got = drained_after_a_fold_grad(&v).expect("the tape");
    let total: f64 = v.iter().map(|x| x.exp()).sum();
    let want: Vec<f64> = v.iter().map(|x| x.exp() / total).collect();
    assert_agree("drained_after_a_fold", &got.gradient, &want);
}

/// Windows and chunks of a local array that the loop around them writes:
/// its items are pushed for the reverse sweep as for any `iter()` chain.
#[differentiable]
fn changing_windows(x: f64, y: f64) -> f64 {
    let mut a = [x, x * y, 3.0, y];
    let mut s = 0.0;
    for k in 0..3 {
        s += a.windows(3).map(|w| w[0] * w[2] - w[1]).sum::<f64>()
            + a.chunks(2).map(|c| (c[0] * c[1]).sin()).sum::<f64>();
        a[k] *= x + s * 0.1;
    }
    s
}

fn changing_windows_dual(x: Dual, y: Dual) -> Dual {
    let mut a = [x, x * y, Dual::constant(3.0), y];
    let mut s = Dual::constant(0.0);
    for k in 0..3 {
        let windows = a
            .windows(3)
            .fold(Dual::constant(-0.0), |t, w| t + (w[0] * w[2] - w[1]));
        let chunks = a
            .chunks(2)
            .fold(Dual::constant(-0.0), |t, c| t + (c[0] * c[1]).sin());
        s = s + (windows + chunks);
        a[k] = a[k] * (x + s * 0.1);
    }
    s
}

#[test]
fn windows_of_a_local_that_changes() {
    assert_eq!(changing_windows_grad_path(), GradientPath::Compiled);
    for p in points(17105, 2) {
        let (x, y) = (p[0], p[1]);
        let got = agree(
            "changing_windows",
            changing_windows_grad(x, y),
            changing_windows_grad_tape(x, y),
        );
        assert_eq!(got.value, changing_windows(x, y));
        let want = dual_gradient(&[x, y], |d| changing_windows_dual(d[0], d[1]));
        assert_agree("changing_windows", &[got.gradient.0, got.gradient.1], &want);
    }
}

/// A closure called inside `vec![..]` and `dbg!(..)` is inlined there as
/// anywhere else (seed 17403's f3_16 kept the tape: a macro's tokens
/// were not read for its calls).
#[differentiable]
fn called_in_vec_and_dbg(x: f64) -> f64 {
    let act = |t: f64| (t * 0.5).tanh();
    let v = vec![act(x), x * act(x + 1.0)];
    let w = [v.clone(), vec![act(2.0 * x)]].concat();
    v[0] + v[1] + dbg!(act(x)) + w[2]
}

fn called_in_vec_and_dbg_dual(x: Dual) -> Dual {
    let act = |t: Dual| (t * 0.5).tanh();
    act(x) + x * act(x + 1.0) + act(x) + act(x * 2.0)
}

#[test]
fn a_closure_called_in_vec_and_dbg_is_compiled() {
    assert_eq!(called_in_vec_and_dbg_grad_path(), GradientPath::Compiled);
    for x in [0.3, -1.1] {
        let got = agree(
            "in vec!",
            called_in_vec_and_dbg_grad(x),
            called_in_vec_and_dbg_grad_tape(x),
        );
        let dual = called_in_vec_and_dbg_dual(Dual::input(x, true));
        assert_agree("in vec! vs dual", &[got.gradient], &[dual.tangent]);
        assert_eq!(got.value, called_in_vec_and_dbg(x));
    }
}

// ---------------------------------------------------------------------
// Closures over plain values: no derivative, run as written.
// ---------------------------------------------------------------------

/// A vector helper whose value, from constant arguments, is plain.
#[differentiable]
fn pair_of(a: &[f64]) -> [f64; 2] {
    [a[0] * a[1], a[0].sin()]
}

/// Closures that reach no tracked value: a `fold` with a start that is
/// not 0, a `map` and `sum` inside a helper's argument, over a helper's
/// plain value and a local array that a loop then overwrites (the value
/// each trip reads is saved, not recomputed from the overwritten array).
/// They kept the tape ("a closure", seed 19243 f0_16).
#[differentiable]
fn plain_closures(x: f64, w: &[f64]) -> f64 {
    let s = [0.4, 0.5];
    let p = pair_of(&s);
    let mut weights = [0.25, 0.75, 1.5];
    let mut acc = x * p.iter().fold(0.5, |acc, t| acc * 0.5 + t);
    for k in 0..3 {
        let m = weights.iter().map(|t| t * t).sum::<f64>();
        acc = acc * m.sqrt().recip() + w[k] * weights[k];
        weights[k] += 1.0;
        acc += w[k].tanh() * (weights.iter().fold(0.0, |a, t| a + t) - 4.0);
    }
    acc
}

fn plain_closures_dual(x: Dual, w: &[Dual]) -> Dual {
    let p = [0.4 * 0.5, 0.4_f64.sin()];
    let mut weights = [0.25, 0.75, 1.5];
    let mut acc = x * p.iter().fold(0.5, |acc, t| acc * 0.5 + t);
    for k in 0..3 {
        let m = weights.iter().map(|t| t * t).sum::<f64>();
        acc = acc * m.sqrt().recip() + w[k] * weights[k];
        weights[k] += 1.0;
        acc = acc + w[k].tanh() * (weights.iter().fold(0.0, |a, t| a + t) - 4.0);
    }
    acc
}

#[test]
fn closures_over_plain_values_run_compiled() {
    assert_eq!(plain_closures_grad_path(), GradientPath::Compiled);
    for (x, w) in [(0.3, [0.2, -0.7, 1.1]), (-1.4, [2.0, 0.5, -0.3])] {
        let reruns = autodiff::__adjoint::tape_reruns();
        let got = agree(
            "plain_closures",
            plain_closures_grad(x, &w),
            plain_closures_grad_tape(x, &w),
        );
        assert_eq!(autodiff::__adjoint::tape_reruns(), reruns, "reran the tape");
        assert_eq!(got.value, plain_closures(x, &w));
        let mut at = vec![x];
        at.extend(w);
        let want = dual_gradient(&at, |a| plain_closures_dual(a[0], &a[1..]));
        let mut flat = vec![got.gradient.0];
        flat.extend(&got.gradient.1);
        assert_agree("plain_closures vs dual", &flat, &want);
    }
}

/// A closure that captures a tracked value is not plain, whatever its
/// items: it is a chain read as a loop (or keeps the tape), never run as
/// written with its derivative dropped.
#[differentiable]
fn captured_by_a_closure(x: f64) -> f64 {
    let weights = [0.25, 0.75, 1.5];
    weights.iter().fold(0.5, |acc, t| acc * x + t)
}

#[test]
fn a_closure_capturing_a_tracked_value_keeps_its_derivative() {
    for x in [0.3, -1.2] {
        let got = agree(
            "captured_by_a_closure",
            captured_by_a_closure_grad(x),
            captured_by_a_closure_grad_tape(x),
        );
        // ((0.5x + 0.25)x + 0.75)x + 1.5 = 0.5x³ + 0.25x² + 0.75x + 1.5
        let want = 1.5 * x * x + 0.5 * x + 0.75;
        assert_agree("captured_by_a_closure", &[got.gradient], &[want]);
    }
}

/// A `fold` over plain items whose closure names its item `t`, in a
/// function where another closure's parameter `t` holds tracked values:
/// the recording twin took this `t` for tracked too and lifted the start,
/// but not the accumulator (`Scalar * f64`: valid code that did not
/// build, seed 19249 f1_19). Its accumulator is now lifted with it.
#[differentiable]
fn fold_beside_a_closure(x: f64, #[constant] z: &[f64]) -> f64 {
    let act = |t: f64| (t * t + 0.5).ln();
    let a = act(x + 1.0);
    ((if z[1] < -0.5 {
        a * a
    } else {
        z.iter().fold(-0.25, |acc, t| acc * 0.5 + t)
    }) + z[0])
        * x
        + a
}

#[test]
fn a_fold_beside_a_closure_of_the_same_parameter_name_builds() {
    for (x, z) in [(0.3, [0.25, 1.5]), (-0.7, [1.0, -1.0])] {
        let got = agree(
            "fold_beside_a_closure",
            fold_beside_a_closure_grad(x, &z),
            fold_beside_a_closure_grad_tape(x, &z),
        );
        let dual = |x: Dual| {
            let a = ((x + 1.0) * (x + 1.0) + 0.5).ln();
            let b = if z[1] < -0.5 {
                a * a
            } else {
                Dual::constant(z.iter().fold(-0.25, |acc, t| acc * 0.5 + t))
            };
            (b + z[0]) * x + a
        };
        let want = dual(Dual::input(x, true));
        assert_agree(
            "fold_beside_a_closure",
            &[got.value, got.gradient],
            &[want.value, want.tangent],
        );
    }
}

/// A plain `fold` as one component of a tuple: shaped like its start, a
/// number (kept the tape: "a binding whose shape the reverse sweep cannot
/// see", seed 19257 f3_6).
#[differentiable]
fn folded_in_a_tuple(x: f64, #[constant] w: &[f64]) -> f64 {
    let p = (x * x, w.iter().fold(0.25, |acc, t| acc * 0.5 + t));
    p.0 * p.1 + x
}

#[test]
fn a_plain_fold_in_a_tuple_runs_compiled() {
    assert_eq!(folded_in_a_tuple_grad_path(), GradientPath::Compiled);
    let w = [0.5, -1.5, 2.0];
    let folded = w.iter().fold(0.25, |acc, t| acc * 0.5 + t);
    for x in [0.3, -1.7] {
        let got = agree(
            "folded_in_a_tuple",
            folded_in_a_tuple_grad(x, &w),
            folded_in_a_tuple_grad_tape(x, &w),
        );
        assert_agree(
            "folded_in_a_tuple",
            &[got.gradient],
            &[2.0 * x * folded + 1.0],
        );
    }
}

// ---------------------------------------------------------------------
// A closure that reads a tracked capture, called with plain arguments.
// ---------------------------------------------------------------------

/// `f(0) * f(1)` where `f = |k| x[k] * 2.0` takes an index: its calls give
/// tracked values though no argument is one. The recording twin took them
/// for plain numbers and did not build (`cannot multiply Scalar by
/// Scalar`); an index closure beside it (`idx`) gives integers.
#[differentiable]
fn indexed_closure(x: &[f64]) -> f64 {
    let idx = |k: usize| (k + 1) % 3;
    let f = |k: usize| x[idx(k)] * x[k];
    let n = idx(0) + 1;
    let a = f(0);
    a * f(n) + f(1) / (1.0 + f(2) * f(2)) + x[idx(1)]
}

fn indexed_closure_dual(x: &[Dual]) -> Dual {
    let idx = |k: usize| (k + 1) % 3;
    let f = |k: usize| x[idx(k)] * x[k];
    let n = idx(0) + 1;
    f(0) * f(n) + f(1) / (f(2) * f(2) + 1.0) + x[idx(1)]
}

#[test]
fn a_closure_reading_a_tracked_capture_gives_tracked_values() {
    assert_eq!(indexed_closure_grad_path(), GradientPath::Compiled);
    for x in [[0.7, -1.2, 0.4], [-0.3, 1.5, 2.0]] {
        let grad = agree(
            "indexed_closure",
            indexed_closure_grad(&x),
            indexed_closure_grad_tape(&x),
        );
        assert_agree(
            "indexed_closure",
            &grad.gradient,
            &dual_gradient(&x, indexed_closure_dual),
        );
    }
}

/// A closure called with a tracked value and with a plain one (`g(x[i])`
/// and `g(0.5)`, `sq(1.5, 2)`): its parameter takes a `Scalar` on the
/// tape, where a plain argument is lifted and the call's value, plain in
/// the plain twin, is its primal. It did not build (`expected Scalar,
/// found floating-point number`).
#[differentiable]
fn closure_on_both(x: &[f64]) -> f64 {
    let g = |u: f64| u * 3.0 + u.sin();
    let sq = |a: f64, k: usize| a * a * k as f64;
    let mut s = sq(1.5, 2);
    for i in 0..x.len() {
        s += sq(x[i], i) + g(0.5) * g(x[i]);
    }
    let c: f64 = g(2.0);
    s * c
}

fn closure_on_both_dual(x: &[Dual]) -> Dual {
    let g = |u: Dual| u * 3.0 + u.sin();
    let sq = |a: Dual, k: usize| a * a * k as f64;
    let mut s = sq(Dual::constant(1.5), 2);
    for i in 0..x.len() {
        s = s + sq(x[i], i) + g(Dual::constant(0.5)) * g(x[i]);
    }
    s * g(Dual::constant(2.0))
}

#[test]
fn a_closure_called_with_tracked_and_plain_values_builds_and_agrees() {
    for x in [[0.7, -1.2, 0.4], [-0.3, 1.5, 2.0]] {
        let grad = agree(
            "closure_on_both",
            closure_on_both_grad(&x),
            closure_on_both_grad_tape(&x),
        );
        assert_eq!(grad.value, closure_on_both(&x));
        assert_agree(
            "closure_on_both",
            &grad.gradient,
            &dual_gradient(&x, closure_on_both_dual),
        );
    }
}

// ---------------------------------------------------------------------
// A closure called in a `match` arm written as an expression.
// ---------------------------------------------------------------------

/// Arms of a `match` on a `bool` and on a count that call a closure bound
/// by `let`, one inside a parenthesised operand.
#[differentiable]
fn arm_calls(x: f64, w: f64) -> f64 {
    let act = |t: f64| (t * w).tanh() * 0.25;
    let first = act(x);
    let chosen = match x >= -0.4 {
        true => act(x + first.sin()),
        false => 0.5 * x,
    };
    let mut total = (match chosen > 0.0 {
        true => act(chosen),
        false => chosen * chosen,
    }) - 1.0;
    for k in 0..3 {
        total += match k {
            0 => act(x * w),
            1 => w,
            _ => act(total) * 2.0,
        };
    }
    total
}

fn arm_calls_dual(x: Dual, w: Dual) -> Dual {
    let act = |t: Dual| (t * w).tanh() * 0.25;
    let first = act(x);
    let chosen = if x.value >= -0.4 {
        act(x + first.sin())
    } else {
        x * 0.5
    };
    let mut total = if chosen.value > 0.0 {
        act(chosen)
    } else {
        chosen * chosen
    } - 1.0;
    for k in 0..3 {
        total = total
            + match k {
                0 => act(x * w),
                1 => w,
                _ => act(total) * 2.0,
            };
    }
    total
}

#[test]
fn a_closure_called_in_a_match_arm_is_compiled() {
    let _compiled = arm_calls_adjoint;
    assert_eq!(arm_calls_grad_path(), GradientPath::Compiled);
    for x in [-1.5, -0.7, -0.2, 0.3, 1.1] {
        for w in [-0.8, 0.6, 1.3] {
            let got = agree("arm_calls", arm_calls_grad(x, w), arm_calls_grad_tape(x, w));
            assert_eq!(got.value.to_bits(), arm_calls(x, w).to_bits());
            let want = dual_gradient(&[x, w], |d| arm_calls_dual(d[0], d[1]));
            assert_agree("arm_calls", &[got.gradient.0, got.gradient.1], &want);
        }
    }
}

// ---------------------------------------------------------------------
// `reduce(f).unwrap()`.
// ---------------------------------------------------------------------

/// The largest item by `f64::max`, a `map` reduced by a closure, and a
/// reduction by `f64::min` over `enumerate`'s pairs mapped to numbers,
/// inside a loop.
#[differentiable]
fn reductions(z: &[f64], w: f64) -> f64 {
    let top = z.iter().copied().reduce(f64::max).unwrap();
    let squares = z.iter().map(|v| v * v).reduce(|a, b| a + b).unwrap();
    let mut s = 0.0;
    for k in 0..2 {
        s += z
            .iter()
            .enumerate()
            .map(|(i, v)| v * w + i as f64)
            .reduce(|a, b| a * 0.5 + b.sin())
            .unwrap()
            * (k as f64 + 0.5);
    }
    top * squares + s + z.iter().cloned().reduce(f64::min).unwrap() * w
}

fn reductions_dual(z: &[Dual], w: Dual) -> Dual {
    let top = z[1..].iter().fold(z[0], |m, v| m.max(*v));
    let squares = z[1..].iter().fold(z[0] * z[0], |s, v| s + *v * *v);
    let mut s = Dual::constant(0.0);
    for k in 0..2 {
        let mut acc = z[0] * w;
        for (i, v) in z.iter().enumerate().skip(1) {
            acc = acc * 0.5 + (*v * w + i as f64).sin();
        }
        s = s + acc * (k as f64 + 0.5);
    }
    let low = z[1..].iter().fold(z[0], |m, v| m.min(*v));
    top * squares + s + low * w
}

#[test]
fn reduce_then_unwrap_is_compiled() {
    let _compiled = reductions_adjoint;
    assert_eq!(reductions_grad_path(), GradientPath::Compiled);
    for z in points(33_041, 5) {
        for n in [1, 2, 5] {
            let z = &z[..n];
            let w = 0.75;
            let got = agree(
                "reductions",
                reductions_grad(z, w),
                reductions_grad_tape(z, w),
            );
            assert_eq!(got.value.to_bits(), reductions(z, w).to_bits());
            let mut all = z.to_vec();
            all.push(w);
            let want = dual_gradient(&all, |d| reductions_dual(&d[..n], d[n]));
            assert_agree("reductions z", &got.gradient.0, &want[..n]);
            assert_agree("reductions w", &[got.gradient.1], &want[n..]);
        }
    }
}

#[test]
#[should_panic(expected = "called `Option::unwrap()` on a `None` value")]
fn reduce_of_nothing_panics_at_the_unwrap_as_written() {
    let _ = reductions_grad(&[], 0.5);
}

// ---------------------------------------------------------------------
// An iterator method given a function by its path, in a `match` arm.
// ---------------------------------------------------------------------

/// Arms written as expressions whose chains take `f64::tanh` and
/// `f64::max` by path, with no closure's `|` in them.
#[differentiable]
fn arm_paths(w: &[f64], b: f64, pick: usize) -> f64 {
    let v = match pick {
        0 => w.iter().copied().map(f64::tanh).sum::<f64>(),
        1 => w.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        _ => b,
    };
    v * b + w[0]
}

fn arm_paths_dual(w: &[Dual], b: Dual, pick: usize) -> Dual {
    let v = match pick {
        0 => w.iter().fold(Dual::constant(0.0), |s, &t| s + t.tanh()),
        1 => w[1..].iter().fold(w[0], |m, &t| m.max(t)),
        _ => b,
    };
    v * b + w[0]
}

#[test]
fn a_chain_mapped_by_a_path_in_a_match_arm_is_compiled() {
    let _compiled = arm_paths_adjoint;
    assert_eq!(arm_paths_grad_path(), GradientPath::Compiled);
    let mut rng = xorshift::Rng(29);
    for pick in 0..3 {
        for _ in 0..6 {
            let w: Vec<f64> = (0..4).map(|_| rng.uniform(1.5)).collect();
            let b = rng.uniform(1.0);
            let got = agree(
                "arm_paths",
                arm_paths_grad(&w, b, pick),
                arm_paths_grad_tape(&w, b, pick),
            );
            assert_eq!(got.value.to_bits(), arm_paths(&w, b, pick).to_bits());
            let mut all = w.clone();
            all.push(b);
            let want = dual_gradient(&all, |d| arm_paths_dual(&d[..4], d[4], pick));
            assert_agree("arm_paths w", &got.gradient.0, &want[..4]);
            assert_agree("arm_paths b", &[got.gradient.1], &want[4..]);
        }
    }
}

// ---------------------------------------------------------------------
// A `fold` into an index and the best value so far.
// ---------------------------------------------------------------------

/// The argmax as students write it without `max_by`: the accumulator
/// starts as `(0, f64::NEG_INFINITY)`, whose integer has no adjoint (its
/// adjoint was once made a number, and the generated adjoint did not
/// build), and whose start the tape takes too: read as a running extreme
/// (`if v > acc.1 { acc = (i, v); }`), it is no reason to rerun the tape.
/// The minimum by a fold from `f64::INFINITY` the same way.
#[differentiable]
fn argmax_fold(x: &[f64], w: f64) -> f64 {
    let (best, top) = x
        .iter()
        .enumerate()
        .fold((0, f64::NEG_INFINITY), |(bi, bv), (i, &v)| {
            if v > bv {
                (i, v)
            } else {
                (bi, bv)
            }
        });
    let low = x
        .iter()
        .fold(f64::INFINITY, |m, &v| if v < m { v } else { m });
    top * w * x[best] + x[(best + 1) % x.len()] * low
}

fn argmax_fold_dual(x: &[Dual], w: Dual) -> Dual {
    let (mut best, mut low) = (0, 0);
    for i in 1..x.len() {
        if x[i].value > x[best].value {
            best = i;
        }
        if x[i].value < x[low].value {
            low = i;
        }
    }
    x[best] * w * x[best] + x[(best + 1) % x.len()] * x[low]
}

#[test]
fn a_fold_into_an_index_and_a_value_is_compiled() {
    assert_eq!(argmax_fold_grad_path(), GradientPath::Compiled);
    let mut rng = xorshift::Rng(31);
    for _ in 0..12 {
        let x: Vec<f64> = (0..5).map(|_| rng.uniform(2.0)).collect();
        let w = rng.uniform(1.5);
        // The adjoint itself answers: the starts at ±∞ made it hand
        // over to the tape.
        let fast = crate::support::compiled(|stack| argmax_fold_adjoint(stack, &x, w));
        let got = agree(
            "argmax_fold",
            argmax_fold_grad(&x, w),
            argmax_fold_grad_tape(&x, w),
        );
        assert_eq!(got.value.to_bits(), argmax_fold(&x, w).to_bits());
        let mut all = x.clone();
        all.push(w);
        let want = dual_gradient(&all, |d| argmax_fold_dual(&d[..5], d[5]));
        for g in [&fast, &got] {
            assert_agree("argmax_fold x", &g.gradient.0, &want[..5]);
            assert_agree("argmax_fold w", &[g.gradient.1], &want[5..]);
        }
    }
}
