//! `Option`s through the compiled adjoint: a slice's element taken by
//! `if let Some(v) = x.first()`, `match x.last()` and `x.get(i)`, and an
//! `Option<usize>` of an index (`Some(i)`, `match` with a guard reading
//! the slice), and a tracked value passed twice to one call. Each function
//! has an `f_adjoint` and says `Compiled`; its gradient is checked against
//! the tape and a dual-number twin at random points, and at the empty
//! slice and an index past the end.

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{agree, assert_agree};
use crate::oracle::{dual_gradient, Dual};
use crate::xorshift;

#[differentiable]
fn ends_product(x: &[f64]) -> f64 {
    let head = if let Some(v) = x.first() { *v } else { 1.0 };
    let tail = match x.last() {
        Some(v) => *v,
        None => 1.0,
    };
    head * tail
}

/// `Some(&v)`, `None` first, `get` with a name and a literal, an
/// `if let` without `else` in a loop, and one as an operand.
#[allow(clippy::redundant_pattern_matching)]
#[differentiable]
fn picked(x: &[f64], #[constant] i: usize) -> f64 {
    let mut total = match x.get(i) {
        None => 0.5,
        Some(&v) => v.sin(),
    };
    for k in 0..3 {
        if let Some(v) = x.get(k) {
            total += v * v * (k as f64 + 1.0);
        }
    }
    total * 2.0 + if let Some(_) = x.get(2) { x[0] } else { 0.0 }
}

#[differentiable]
fn argmax_value(z: &[f64]) -> f64 {
    let mut best: Option<usize> = None;
    for i in 0..z.len() {
        match best {
            None => best = Some(i),
            Some(j) if z[i] > z[j] => best = Some(i),
            _ => {}
        }
    }
    match best {
        Some(i) => z[i] * 3.0,
        None => 0.0,
    }
}

#[differentiable]
fn weighted(a: f64, b: f64, c: f64) -> f64 {
    a * b + c.sin() * a
}

#[differentiable]
fn passed_twice(x: f64, y: f64) -> f64 {
    weighted(x, y, x) + weighted(y, y, y) * weighted(x, 2.0, x)
}

fn ends_product_dual(x: &[Dual]) -> Dual {
    let head = x.first().copied().unwrap_or(Dual::constant(1.0));
    let tail = x.last().copied().unwrap_or(Dual::constant(1.0));
    head * tail
}

fn picked_dual(x: &[Dual], i: usize) -> Dual {
    let mut total = match x.get(i) {
        None => Dual::constant(0.5),
        Some(&v) => v.sin(),
    };
    for k in 0..3 {
        if let Some(v) = x.get(k) {
            total = total + *v * *v * (k as f64 + 1.0);
        }
    }
    total * 2.0
        + if x.len() > 2 {
            x[0]
        } else {
            Dual::constant(0.0)
        }
}

fn argmax_value_dual(z: &[Dual]) -> Dual {
    let mut best: Option<usize> = None;
    for i in 0..z.len() {
        match best {
            None => best = Some(i),
            Some(j) if z[i].value > z[j].value => best = Some(i),
            _ => {}
        }
    }
    match best {
        Some(i) => z[i] * 3.0,
        None => Dual::constant(0.0),
    }
}

fn weighted_dual(a: Dual, b: Dual, c: Dual) -> Dual {
    a * b + c.sin() * a
}

fn passed_twice_dual(x: Dual, y: Dual) -> Dual {
    weighted_dual(x, y, x) + weighted_dual(y, y, y) * weighted_dual(x, Dual::constant(2.0), x)
}

#[test]
fn every_function_here_is_compiled() {
    let _compiled = (
        ends_product_adjoint,
        picked_adjoint,
        argmax_value_adjoint,
        passed_twice_adjoint,
    );
    for path in [
        ends_product_grad_path(),
        picked_grad_path(),
        argmax_value_grad_path(),
        passed_twice_grad_path(),
    ] {
        assert_eq!(path, GradientPath::Compiled);
    }
}

#[test]
fn elements_of_options_against_the_tape_and_dual_numbers() {
    let mut rng = xorshift::Rng(17104);
    for round in 0..30 {
        // Every length from empty to past each `get`.
        let n = round % 6;
        let x: Vec<f64> = (0..n).map(|_| rng.uniform(2.0)).collect();
        let got = agree(
            "ends_product",
            ends_product_grad(&x),
            ends_product_grad_tape(&x),
        );
        assert_eq!(got.value, ends_product(&x));
        assert_agree(
            "ends_product",
            &got.gradient,
            &dual_gradient(&x, ends_product_dual),
        );

        for i in [0, 1, 4, 7] {
            let got = agree("picked", picked_grad(&x, i), picked_grad_tape(&x, i));
            assert_eq!(got.value, picked(&x, i));
            let want = dual_gradient(&x, |d| picked_dual(d, i));
            assert_agree("picked", &got.gradient, &want);
        }

        let got = agree(
            "argmax_value",
            argmax_value_grad(&x),
            argmax_value_grad_tape(&x),
        );
        assert_eq!(got.value, argmax_value(&x));
        let want = dual_gradient(&x, argmax_value_dual);
        assert_agree("argmax_value", &got.gradient, &want);

        let (a, b) = (rng.uniform(2.0), rng.uniform(2.0));
        let got = agree(
            "passed_twice",
            passed_twice_grad(a, b),
            passed_twice_grad_tape(a, b),
        );
        assert_eq!(got.value, passed_twice(a, b));
        let want = dual_gradient(&[a, b], |d| passed_twice_dual(d[0], d[1]));
        assert_agree("passed_twice", &[got.gradient.0, got.gradient.1], &want);
    }
}

#[test]
fn the_first_of_equal_largest_is_the_argmax() -> Result<(), ScalarAutodiffError> {
    let got = argmax_value_grad(&[0.2, 1.5, 0.7])?;
    assert_eq!(got.value, 4.5);
    assert_eq!(got.gradient, vec![0.0, 3.0, 0.0]);
    assert_eq!(argmax_value_grad(&[])?.value, 0.0);
    assert_eq!(
        argmax_value_grad(&[1.0, 4.0, 4.0])?.gradient,
        [0.0, 3.0, 0.0]
    );
    assert_eq!(argmax_value_grad(&[])?.gradient, Vec::<f64>::new());
    Ok(())
}

/// An element's `Option` taken apart inside `vec![..]`, `dbg!(..)` and
/// `[e; n]` (seeds 17405's f3_0 and 17407's f3_7 kept the tape: the
/// macros' tokens and a repeated item were not read).
#[differentiable]
#[allow(clippy::useless_vec)]
fn options_in_macros(x: &[f64]) -> f64 {
    let v = vec![
        match x.last() {
            Some(v) => *v * 2.0,
            None => 0.5,
        },
        x[0],
    ];
    let d = dbg!(match x.get(1) {
        Some(&w) => w.sin(),
        None => 0.0,
    });
    // And in an array's repeated item (seed 17407's f3_7).
    let r = [match x.first() {
        Some(v) => *v * 3.0,
        None => 0.0,
    }; 2];
    v[0] * v[1] + d + r[1]
}

#[test]
fn an_element_option_inside_vec_and_dbg_is_compiled() {
    assert_eq!(options_in_macros_grad_path(), GradientPath::Compiled);
    let x = [0.4, -0.7, 1.3];
    let got = agree(
        "options in macros",
        options_in_macros_grad(&x),
        options_in_macros_grad_tape(&x),
    );
    // 2·x₂·x₀ + sin x₁ + 3·x₀
    let want = [2.0 * x[2] + 3.0, x[1].cos(), 2.0 * x[0]];
    assert_agree("options in macros", &got.gradient, &want);
    assert_eq!(got.value, options_in_macros(&x));
}

#[test]
fn first_and_last_through_options() -> Result<(), ScalarAutodiffError> {
    let got = ends_product_grad(&[2.0, 7.0, 5.0])?;
    assert_eq!(got.value, 10.0);
    assert_eq!(got.gradient, vec![5.0, 0.0, 2.0]);
    Ok(())
}

/// A vector helper's inner product of its two slices.
#[differentiable]
fn inner(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i].tanh();
    }
    s
}

#[differentiable]
fn weighted_pair(p: f64, q: f64) -> f64 {
    p * q.sin()
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Bias {
    w: Vec<f64>,
    b: f64,
}

/// One array, slice or model field passed twice to one call: the second
/// takes its part in an adjoint of its own, shaped like the value, added
/// into the place's after the call (kept the tape before: "a call that
/// passes one tracked value twice", seed 19253 f2_30 for `h(m.b, m.b)`).
#[differentiable]
fn vectors_passed_twice(x: &[f64], m: &Bias) -> f64 {
    let local = [x[0] * x[1], x[1] + 0.5, x[2]];
    inner(&local, &local) + inner(x, x) * inner(&m.w, &m.w) + weighted_pair(m.b, m.b)
}

fn vectors_passed_twice_dual(x: &[Dual], w: &[Dual], b: Dual) -> Dual {
    let inner = |a: &[Dual], c: &[Dual]| {
        let mut s = Dual::constant(0.0);
        for i in 0..a.len() {
            s = s + a[i] * c[i].tanh();
        }
        s
    };
    let local = [x[0] * x[1], x[1] + 0.5, x[2]];
    inner(&local, &local) + inner(x, x) * inner(w, w) + b * b.sin()
}

#[test]
fn vectors_and_fields_passed_twice_run_compiled() {
    assert_eq!(vectors_passed_twice_grad_path(), GradientPath::Compiled);
    for (x, w, b) in [
        ([0.3, -0.7, 1.1], [0.5, -0.2, 0.9], 0.4),
        ([-1.3, 0.2, 0.6], [1.5, 0.1, -0.6], -0.8),
    ] {
        let m = Bias { w: w.to_vec(), b };
        let reruns = autodiff::__adjoint::tape_reruns();
        let got = vectors_passed_twice_grad(&x, &m).unwrap();
        assert_eq!(
            autodiff::__adjoint::tape_reruns(),
            reruns,
            "f_grad reran the tape"
        );
        let tape = vectors_passed_twice_grad_tape(&x, &m).unwrap();
        assert_eq!(got.value, tape.value);
        let flat = |g: &(Vec<f64>, Bias)| [g.0.clone(), g.1.scalars()].concat();
        assert_agree(
            "vectors_passed_twice vs tape",
            &flat(&got.gradient),
            &flat(&tape.gradient),
        );
        let at = [x.to_vec(), w.to_vec(), vec![b]].concat();
        let want = dual_gradient(&at, |a| vectors_passed_twice_dual(&a[..3], &a[3..6], a[6]));
        assert_agree("vectors_passed_twice vs dual", &flat(&got.gradient), &want);
    }
}

/// `unwrap_or` of an element's `Option`, as students read a neighbour that
/// may be past the end: the element where it is there, else the default;
/// the index an expression of names (`k + 1`).
#[differentiable]
fn neighbours(xs: &[f64], k: usize, m: &[f64]) -> f64 {
    let next = xs.get(k + 1).copied().unwrap_or(1.5);
    let far = *xs.get(k + 10).unwrap_or(&0.25);
    let last = m.last().copied().unwrap_or(-1.0);
    xs[k] * next + far * xs[0] + last * last
}

#[test]
fn unwrap_or_of_an_element_is_the_element_or_the_default() {
    assert_eq!(neighbours_grad_path(), GradientPath::Compiled);
    let xs = vec![0.5, -1.25, 2.0];
    for (k, m) in [(0, vec![0.3, 0.7]), (2, vec![]), (1, vec![-2.0])] {
        let got = agree(
            "neighbours",
            neighbours_grad(&xs, k, &m),
            neighbours_grad_tape(&xs, k, &m),
        );
        let next = if k + 1 < xs.len() { xs[k + 1] } else { 1.5 };
        let last = m.last().copied().unwrap_or(-1.0);
        assert_eq!(got.value, neighbours(&xs, k, &m));
        // ∂/∂xs: xs[k] · next + 0.25 · xs[0].
        let mut want_xs = vec![0.0; 3];
        want_xs[k] += next;
        if k + 1 < xs.len() {
            want_xs[k + 1] += xs[k];
        }
        want_xs[0] += 0.25;
        let mut want_m = vec![0.0; m.len()];
        if let Some(end) = want_m.last_mut() {
            *end = 2.0 * last;
        }
        assert_agree("neighbours", &got.gradient.0, &want_xs);
        assert_agree("neighbours", &got.gradient.1, &want_m);
    }
}

/// The largest (or smallest) item by `max_by`/`min_by` taken apart where
/// it is made: `if let Some(&m) = x.iter().max_by(..)`, a `match` on a
/// `min_by` of copies with `None` first or second, and one per row in a
/// loop, some rows empty. The test is `!x.is_empty()`, then the selection
/// `select` writes; at a tie the comparator's choice, on both paths.
mod selected_option {
    use super::*;
    use crate::oracle::dual_value_and_gradient;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let hi = if let Some(&m) = x.iter().max_by(|a, b| a.total_cmp(b)) {
            m * m + x[0]
        } else {
            0.0
        };
        let lo = match x.iter().copied().min_by(|a, b| a.partial_cmp(b).unwrap()) {
            None => 1.0,
            Some(m) => m.exp(),
        };
        hi * lo + rows(&[x.to_vec(), vec![x[1] * x[2], x[3]]])
    }

    #[differentiable]
    fn rows(w: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for row in w {
            if let Some(&m) = row.iter().min_by(|a, b| a.total_cmp(b)) {
                s += m * row[0];
            }
        }
        s
    }

    fn twin(x: &[Dual]) -> Dual {
        let extreme = |items: &[Dual], larger: bool| {
            let mut best = items[0];
            for &v in &items[1..] {
                // `max_by` keeps the last of equal items, `min_by` the first.
                if (larger && v.value >= best.value) || (!larger && v.value < best.value) {
                    best = v;
                }
            }
            best
        };
        let m = extreme(x, true);
        let hi = m * m + x[0];
        let lo = extreme(x, false).exp();
        let s = extreme(x, false) * x[0] + {
            let row = [x[1] * x[2], x[3]];
            extreme(&row, false) * row[0]
        };
        hi * lo + s
    }

    #[test]
    fn compiled_against_the_tape_and_dual_numbers() {
        assert_eq!(f_grad_path(), GradientPath::Compiled);
        let mut rng = xorshift::Rng(0x5e1e_c7ed);
        for _ in 0..20 {
            let x: Vec<f64> = (0..4).map(|_| rng.uniform(2.0)).collect();
            let got = agree("selected_option", f_grad(&x), f_grad_tape(&x));
            assert_eq!(got.value.to_bits(), f(&x).to_bits());
            let (value, tangents) = dual_value_and_gradient(&x, twin);
            assert!((value - got.value).abs() <= 1e-12 * value.abs().max(1.0));
            assert_agree("selected_option", &got.gradient, &tangents);
        }
        // Rows with no item add nothing.
        assert_eq!(rows_grad_path(), GradientPath::Compiled);
        let w = vec![vec![0.5, -1.25], Vec::new(), vec![2.0, 0.75, -0.5]];
        let got = agree("rows", rows_grad(&w), rows_grad_tape(&w));
        assert_eq!(
            got.gradient,
            vec![vec![-1.25, 0.5], vec![], vec![-0.5, 0.0, 2.0]]
        );
        // Ties: the comparator's choice on both paths.
        let tied = [1.5, 1.5, -1.0, 1.5];
        let got = agree(
            "selected_option at a tie",
            f_grad(&tied),
            f_grad_tape(&tied),
        );
        let (_, tangents) = dual_value_and_gradient(&tied, twin);
        assert_agree("selected_option at a tie", &got.gradient, &tangents);
    }
}
