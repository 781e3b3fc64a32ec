//! Iterator chains with closures through the compiled adjoint: `f_grad` of
//! `map(..).sum()`, `fold`, `zip`, `enumerate`, `rev`, `step_by`, ranges,
//! `product` and `map(..).collect()` into a `Vec` against closed forms, against the tape (`f_grad_tape`) at
//! random points, and against central differences (`f_check`).
//!
//! That each is compiled is checked by the build: only a function the
//! compiled adjoint covers has an `f_adjoint`, which the first test names.
//! Agreement with the tape: the bound of `tests/compiled/paths.rs` (1e-12
//! of the largest component; both are exact reverse mode over the same
//! operations, summed in other orders, over at most a few dozen terms).

// Index loops in the oracles: they read like the formulas.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;

use super::support::{agree, assert_agree, AGREE};
use crate::oracle::close_to_scale;
use crate::xorshift;

const CLOSED: f64 = 1e-13;

#[differentiable]
fn sum_of_squares(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum()
}

#[differentiable]
fn mse(pred: &[f64], #[constant] target: &[f64]) -> f64 {
    pred.iter()
        .zip(target.iter())
        .map(|(p, t)| (p - t) * (p - t))
        .sum::<f64>()
        / pred.len() as f64
}

#[differentiable]
fn squashed_dot(w: &[f64], x: &[f64]) -> f64 {
    w.iter().zip(x).map(|(&a, &b)| a * b.tanh()).sum()
}

#[differentiable]
fn ranged(x: &[f64], w: f64) -> f64 {
    (0..x.len())
        .map(|i| (w * x[i]).sin() * i as f64)
        .sum::<f64>()
}

#[differentiable]
fn odd_from_the_end(x: &[f64]) -> f64 {
    x.iter().rev().step_by(2).map(|v| v.exp()).sum::<f64>()
}

#[differentiable]
fn numbered(x: &[f64]) -> f64 {
    x.iter()
        .copied()
        .enumerate()
        .map(|(i, v)| v.powi(2) * (i as f64 + 1.0))
        .sum::<f64>()
}

#[differentiable]
fn horner(c: &[f64], t: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * t + k)
}

#[differentiable]
fn logsumexp(z: &[f64]) -> f64 {
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = z.iter().map(|v| (v - m).exp()).sum();
    m + s.ln()
}

#[differentiable]
fn largest_from_first(z: &[f64]) -> f64 {
    z.iter().skip(1).fold(z[0], |best, &v| best.max(v))
}

#[differentiable]
fn in_a_loop(x: &[f64], #[constant] k: usize) -> f64 {
    let mut total = 0.0;
    for r in 0..k {
        total += x.iter().map(|v| (v * r as f64).sin()).sum::<f64>();
    }
    total
}

#[differentiable]
fn likelihood(p: &[f64]) -> f64 {
    p.iter().product()
}

#[differentiable]
fn captured(x: [f64; 3], s: f64) -> f64 {
    let shift = s * 0.5;
    x.iter().map(|v| (v * s + shift).tanh()).sum::<f64>().sqrt()
}

#[differentiable]
fn cross_entropy(z: &[f64], #[constant] k: usize) -> f64 {
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    -(e[k] / s).ln()
}

#[differentiable]
fn hidden_mean(x: &[f64], w: f64) -> f64 {
    let h = x.iter().map(|v| (w * v).tanh()).collect::<Vec<_>>();
    h.iter().map(|a| a * a).sum::<f64>() / h.len() as f64
}

#[differentiable]
fn nested_chains(w: &[[f64; 3]], x: &[f64]) -> f64 {
    (0..w.len())
        .map(|i| w[i].iter().map(|v| v * x[i]).sum::<f64>().tanh())
        .sum::<f64>()
}

#[differentiable]
fn in_a_while(x: &[f64], #[constant] k: usize) -> f64 {
    let mut total = 0.0;
    let mut j = 0;
    while j < k {
        total += x.iter().map(|v| (v * total).cos()).sum::<f64>();
        j += 1;
    }
    total
}

#[differentiable]
fn two_folds_one_name(x: &[f64]) -> f64 {
    let a = x.iter().fold(1.0, |acc, v| acc * v);
    let b = x.iter().fold(0.0, |acc, v| acc + v.exp());
    a + b
}

#[differentiable]
fn skipped_and_taken(x: &[f64]) -> f64 {
    x.iter().skip(1).take(2).map(|v| v * v).sum::<f64>()
        + x.iter().rev().skip(1).map(|v: &f64| v.sin()).sum::<f64>()
}

#[differentiable]
fn numbered_pairs(w: &[f64], x: &[f64]) -> f64 {
    w.iter()
        .zip(x.iter())
        .enumerate()
        .map(|(i, (a, b))| a * b * i as f64)
        .sum()
}

#[differentiable]
fn square(t: f64) -> f64 {
    t * t
}

/// The closure's item named like the slice it walks, and chains as a
/// call's argument and a method's operand.
#[differentiable]
fn item_named_like_its_slice(x: &[f64]) -> f64 {
    square(x.iter().map(|x| x.sin()).sum()) + x.iter().map(|x| x * x).sum::<f64>().max(0.5)
}

fn vector(rng: &mut xorshift::Rng, n: usize, scale: f64) -> Vec<f64> {
    (0..n).map(|_| rng.uniform(scale)).collect()
}

#[test]
fn every_chain_here_is_compiled() {
    // A function that keeps the tape has no `_adjoint`: this would not
    // build.
    let _compiled = (
        sum_of_squares_adjoint,
        mse_adjoint,
        squashed_dot_adjoint,
        ranged_adjoint,
        odd_from_the_end_adjoint,
        numbered_adjoint,
        horner_adjoint,
        logsumexp_adjoint,
        largest_from_first_adjoint,
        in_a_loop_adjoint,
        likelihood_adjoint,
        captured_adjoint,
        cross_entropy_adjoint,
        hidden_mean_adjoint,
        nested_chains_adjoint,
        in_a_while_adjoint,
        two_folds_one_name_adjoint,
        skipped_and_taken_adjoint,
        numbered_pairs_adjoint,
        item_named_like_its_slice_adjoint,
    );
}

#[test]
fn nested_looped_renamed_and_skipped_chains_agree_with_the_tape(
) -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = xorshift::Rng(0x5DEE_CE66);
    for n in [1, 2, 4, 7] {
        let x = vector(&mut rng, n, 1.2);
        let y = vector(&mut rng, n, 1.2);
        let w: Vec<[f64; 3]> = (0..n)
            .map(|_| [rng.uniform(1.0), rng.uniform(1.0), rng.uniform(1.0)])
            .collect();
        let (got, tape) = (
            nested_chains_grad(&w, &x)?,
            nested_chains_grad_tape(&w, &x)?,
        );
        assert_agree(
            "nested_chains dw",
            &got.gradient.0.concat(),
            &tape.gradient.0.concat(),
        );
        assert_agree("nested_chains dx", &got.gradient.1, &tape.gradient.1);
        for k in [0, 1, 3] {
            agree(
                "in_a_while",
                in_a_while_grad(&x, k),
                in_a_while_grad_tape(&x, k),
            );
        }
        agree(
            "two_folds_one_name",
            two_folds_one_name_grad(&x),
            two_folds_one_name_grad_tape(&x),
        );
        agree(
            "skipped_and_taken",
            skipped_and_taken_grad(&x),
            skipped_and_taken_grad_tape(&x),
        );
        let (got, tape) = (
            numbered_pairs_grad(&x, &y)?,
            numbered_pairs_grad_tape(&x, &y)?,
        );
        assert_agree("numbered_pairs dw", &got.gradient.0, &tape.gradient.0);
        assert_agree("numbered_pairs dx", &got.gradient.1, &tape.gradient.1);
        // Closed form: d/dwᵢ = i xᵢ.
        let want: Vec<f64> = (0..n).map(|i| i as f64 * y[i]).collect();
        assert_agree("numbered_pairs closed", &got.gradient.0, &want);
        assert!(two_folds_one_name_check(&x)?.passed());
        // 2 (Σ sin xᵢ) cos xᵢ + [Σ x² > 0.5] 2 xᵢ.
        let got = item_named_like_its_slice_grad(&x)?;
        let sines: f64 = x.iter().map(|v| v.sin()).sum();
        let squares: f64 = x.iter().map(|v| v * v).sum();
        let want: Vec<f64> = x
            .iter()
            .map(|v| 2.0 * sines * v.cos() + if squares > 0.5 { 2.0 * v } else { 0.0 })
            .collect();
        assert_agree("item_named_like_its_slice", &got.gradient, &want);
    }
    Ok(())
}

#[test]
fn collected_vecs_against_closed_forms() -> Result<(), Box<dyn std::error::Error>> {
    // d/dz −ln softmax(z)ₖ = softmax(z) − eₖ.
    let z = [0.5, -1.0, 2.0, 1.5];
    for k in 0..4 {
        let got = cross_entropy_grad(&z, k)?;
        assert_eq!(got.value, cross_entropy(&z, k));
        let total: f64 = z.iter().map(|v| v.exp()).sum();
        let want: Vec<f64> = (0..4)
            .map(|j| z[j].exp() / total - if j == k { 1.0 } else { 0.0 })
            .collect();
        assert_agree("cross_entropy", &got.gradient, &want);
        agree(
            "cross_entropy",
            cross_entropy_grad(&z, k),
            cross_entropy_grad_tape(&z, k),
        );
    }
    // mean of tanh(w x)²: d/dx = 2 t (1 − t²) w / n, d/dw = Σ 2 t (1 − t²) x / n.
    let (x, w) = ([0.5, -1.0, 2.0], 0.8_f64);
    let got = hidden_mean_grad(&x, w)?;
    assert_eq!(got.value, hidden_mean(&x, w));
    let mut dw = 0.0;
    for i in 0..3 {
        let t = (w * x[i]).tanh();
        let d = 2.0 * t * (1.0 - t * t) / 3.0;
        assert!(close_to_scale(got.gradient.0[i], d * w, CLOSED, 1.0));
        dw += d * x[i];
    }
    assert!(close_to_scale(got.gradient.1, dw, CLOSED, 1.0));
    assert!(hidden_mean_check(&x, w)?.passed());
    assert!(cross_entropy_check(&z, 2)?.passed());
    Ok(())
}

#[test]
fn map_sum_and_zip_against_closed_forms() -> Result<(), ScalarAutodiffError> {
    let x = [1.5, -2.0, 0.25, 3.0];
    let got = sum_of_squares_grad(&x)?;
    assert_eq!(got.value, sum_of_squares(&x));
    let want: Vec<f64> = x.iter().map(|v| 2.0 * v).collect();
    assert_agree("sum_of_squares", &got.gradient, &want);

    let (p, t) = ([1.0, 2.0, 3.0], [0.5, 2.5, 1.0]);
    let got = mse_grad(&p, &t)?;
    assert_eq!(got.value, mse(&p, &t));
    let want: Vec<f64> = (0..3).map(|i| 2.0 * (p[i] - t[i]) / 3.0).collect();
    for (a, b) in got.gradient.iter().zip(&want) {
        assert!(close_to_scale(*a, *b, CLOSED, 1.0), "mse: {a} vs {b}");
    }

    let (w, x) = ([0.5, -1.0, 2.0], [0.3, -0.7, 1.1, 9.0]);
    let got = squashed_dot_grad(&w, &x)?;
    assert_eq!(got.value, squashed_dot(&w, &x));
    let (dw, dx) = got.gradient;
    // zip stops at the shorter: x[3] gets nothing.
    assert_eq!(dx.len(), 4);
    assert_eq!(dx[3], 0.0);
    for i in 0..3 {
        assert!(close_to_scale(dw[i], x[i].tanh(), CLOSED, 1.0));
        let sech2 = 1.0 - x[i].tanh().powi(2);
        assert!(close_to_scale(dx[i], w[i] * sech2, CLOSED, 1.0));
    }
    Ok(())
}

#[test]
fn ranges_rev_step_by_and_enumerate_against_closed_forms() -> Result<(), ScalarAutodiffError> {
    let x = [0.1, 0.2, 0.3, 0.4, 0.5];
    let w = 0.7_f64;
    let got = ranged_grad(&x, w)?;
    assert_eq!(got.value, ranged(&x, w));
    let (dx, dw) = got.gradient;
    let mut want_dw = 0.0;
    for i in 0..5 {
        let c = (w * x[i]).cos() * i as f64;
        assert!(close_to_scale(dx[i], c * w, CLOSED, 1.0), "ranged dx[{i}]");
        want_dw += c * x[i];
    }
    assert!(close_to_scale(dw, want_dw, CLOSED, 1.0));

    // From the end, every other: indices 4, 2, 0.
    let got = odd_from_the_end_grad(&x)?;
    assert_eq!(got.value, odd_from_the_end(&x));
    let want = [0.1_f64.exp(), 0.0, 0.3_f64.exp(), 0.0, 0.5_f64.exp()];
    assert_agree("odd_from_the_end", &got.gradient, &want);

    let got = numbered_grad(&x)?;
    assert_eq!(got.value, numbered(&x));
    let want: Vec<f64> = (0..5).map(|i| 2.0 * x[i] * (i as f64 + 1.0)).collect();
    assert_agree("numbered", &got.gradient, &want);
    Ok(())
}

#[test]
fn folds_against_closed_forms() -> Result<(), ScalarAutodiffError> {
    let c = [1.0, -2.0, 0.5, 3.0];
    for t in [0.5, -1.5] {
        let got = horner_grad(&c, t)?;
        assert_eq!(got.value, horner(&c, t));
        // c iterated from the end: c[0] + t (c[1] + t (c[2] + t c[3])).
        let powers: Vec<f64> = (0..4).map(|k| t.powi(k)).collect();
        assert_agree("horner dc", &got.gradient.0, &powers);
        let want = c[1] + 2.0 * c[2] * t + 3.0 * c[3] * t * t;
        assert!(close_to_scale(got.gradient.1, want, CLOSED, 1.0));
    }

    // d logsumexp / dz = softmax(z): the max's own derivative cancels.
    let z = [0.5, -1.0, 2.0, 1.5];
    let got = logsumexp_grad(&z)?;
    assert_eq!(got.value, logsumexp(&z));
    let total: f64 = z.iter().map(|v| v.exp()).sum();
    let softmax: Vec<f64> = z.iter().map(|v| v.exp() / total).collect();
    assert_agree("logsumexp", &got.gradient, &softmax);

    let got = largest_from_first_grad(&z)?;
    assert_eq!(got.value, 2.0);
    assert_eq!(got.gradient, vec![0.0, 0.0, 1.0, 0.0]);
    Ok(())
}

#[test]
fn ties_and_products_follow_the_tape() -> Result<(), ScalarAutodiffError> {
    // A tie in `max`: the tape's convention (half to each side) holds.
    for z in [
        vec![1.0, 3.0, 3.0],
        vec![3.0, 3.0, -1.0],
        vec![2.0, 2.0, 2.0],
    ] {
        agree(
            "largest_from_first tie",
            largest_from_first_grad(&z),
            largest_from_first_grad_tape(&z),
        );
    }
    let p = [0.5, 0.8, 0.25];
    let got = likelihood_grad(&p)?;
    assert_eq!(got.value, likelihood(&p));
    assert_agree("likelihood", &got.gradient, &[0.2, 0.125, 0.4]);
    Ok(())
}

#[test]
fn chains_agree_with_the_tape_and_central_differences() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = xorshift::Rng(0x9E37_79B9_7F4A_7C15);
    for n in [1, 2, 5, 13] {
        for _ in 0..4 {
            let x = vector(&mut rng, n, 1.5);
            let y = vector(&mut rng, n, 1.5);
            agree(
                "sum_of_squares",
                sum_of_squares_grad(&x),
                sum_of_squares_grad_tape(&x),
            );
            agree("mse", mse_grad(&x, &y), mse_grad_tape(&x, &y));
            agree(
                "odd_from_the_end",
                odd_from_the_end_grad(&x),
                odd_from_the_end_grad_tape(&x),
            );
            agree("numbered", numbered_grad(&x), numbered_grad_tape(&x));
            agree("logsumexp", logsumexp_grad(&x), logsumexp_grad_tape(&x));
            agree("likelihood", likelihood_grad(&x), likelihood_grad_tape(&x));
            for k in [0, 1, 3] {
                agree(
                    "in_a_loop",
                    in_a_loop_grad(&x, k),
                    in_a_loop_grad_tape(&x, k),
                );
            }
            let (w, t) = (rng.uniform(1.0), rng.uniform(1.0));
            let (got, tape) = (ranged_grad(&x, w)?, ranged_grad_tape(&x, w)?);
            assert_agree("ranged dx", &got.gradient.0, &tape.gradient.0);
            assert!(close_to_scale(
                got.gradient.1,
                tape.gradient.1,
                AGREE,
                tape.gradient.1.abs()
            ));
            let (got, tape) = (horner_grad(&x, t)?, horner_grad_tape(&x, t)?);
            assert_agree("horner dc", &got.gradient.0, &tape.gradient.0);
            assert!(close_to_scale(
                got.gradient.1,
                tape.gradient.1,
                AGREE,
                tape.gradient.1.abs()
            ));
            let (got, tape) = (squashed_dot_grad(&x, &y)?, squashed_dot_grad_tape(&x, &y)?);
            assert_agree("squashed_dot dw", &got.gradient.0, &tape.gradient.0);
            assert_agree("squashed_dot dx", &got.gradient.1, &tape.gradient.1);

            // `f_check` compares `f_grad` with central differences.
            assert!(sum_of_squares_check(&x)?.passed());
            assert!(mse_check(&x, &y)?.passed());
            assert!(logsumexp_check(&x)?.passed());
            assert!(numbered_check(&x)?.passed());
            assert!(horner_check(&x, t)?.passed());
            assert!(squashed_dot_check(&x, &y)?.passed());
        }
    }
    let mut rng = xorshift::Rng(7);
    for _ in 0..6 {
        let x = [rng.uniform(1.0), rng.uniform(1.0), rng.uniform(1.0)];
        let s = 1.0 + rng.uniform(0.5);
        let (got, tape) = (captured_grad(x, s)?, captured_grad_tape(x, s)?);
        assert_agree("captured dx", &got.gradient.0, &tape.gradient.0);
        assert!(close_to_scale(
            got.gradient.1,
            tape.gradient.1,
            AGREE,
            tape.gradient.1.abs()
        ));
        assert!(captured_check(x, s)?.passed());
    }
    Ok(())
}

#[test]
fn an_empty_sum_is_the_plain_functions_negative_zero() -> Result<(), ScalarAutodiffError> {
    let got = sum_of_squares_grad(&[])?;
    assert_eq!(got.value.to_bits(), sum_of_squares(&[]).to_bits());
    assert!(got.gradient.is_empty());
    Ok(())
}

#[test]
fn a_non_finite_item_gives_the_tapes_error() {
    let x = [1.0, f64::NAN, 2.0];
    let compiled = sum_of_squares_grad(&x).unwrap_err();
    let tape = sum_of_squares_grad_tape(&x).unwrap_err();
    // NaN inside: compared as printed.
    assert_eq!(format!("{compiled:?}"), format!("{tape:?}"));
    assert!(matches!(
        compiled,
        ScalarAutodiffError::NonFiniteLeaf { .. }
    ));
}

#[test]
fn a_fold_from_negative_infinity_stays_compiled() {
    // The `-∞` start is a constant the tape takes too: the compiled adjoint
    // gives the gradient itself (`Some`) instead of handing over to the
    // tape, and an empty slice, whose value is `-∞`, still gets the tape's
    // error.
    let z = [0.5, 2.0, -1.0, 1.5];
    let compiled = autodiff::__adjoint::with_stack(|stack| logsumexp_adjoint(stack, &z));
    let compiled = compiled.expect("computed by the compiled adjoint");
    let tape = logsumexp_grad_tape(&z).expect("finite");
    assert_agree("logsumexp", &compiled.gradient, &tape.gradient);
    let empty: [f64; 0] = [];
    let compiled = largest_from_first_grad(&[f64::NEG_INFINITY]).unwrap_err();
    let tape = largest_from_first_grad_tape(&[f64::NEG_INFINITY]).unwrap_err();
    assert_eq!(format!("{compiled:?}"), format!("{tape:?}"));
    let compiled = logsumexp_grad(&empty).unwrap_err();
    let tape = logsumexp_grad_tape(&empty).unwrap_err();
    assert_eq!(format!("{compiled:?}"), format!("{tape:?}"));
}

// `for` loops over windows and chunks: read as a walk over where each
// starts, `w[j]` as `x[w_at + j]`.

#[differentiable]
fn neighbours(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for w in x.windows(3) {
        total += (w[2] - w[0]).powi(2) * w[1].tanh();
    }
    for pair in x.chunks(2) {
        total += pair[0] * pair[1];
    }
    total
}

fn neighbours_dual(x: &[crate::oracle::Dual]) -> crate::oracle::Dual {
    let mut total = crate::oracle::Dual::constant(0.0);
    for w in x.windows(3) {
        total = total + (w[2] - w[0]).powi(2) * w[1].tanh();
    }
    for pair in x.chunks(2) {
        total = total + pair[0] * pair[1];
    }
    total
}

#[test]
fn a_for_over_windows_and_chunks_is_compiled() {
    assert_eq!(neighbours_grad_path(), autodiff::GradientPath::Compiled);
    for x in [
        vec![0.3, -1.2, 0.8, 2.0, -0.4, 0.9],
        vec![1.5, -0.5],
        vec![],
    ] {
        let compiled = autodiff::__adjoint::with_stack(|stack| neighbours_adjoint(stack, &x))
            .expect("the compiled path answers");
        let grad = agree("neighbours", neighbours_grad(&x), neighbours_grad_tape(&x));
        assert_eq!(compiled, grad);
        let want = crate::oracle::dual_gradient(&x, neighbours_dual);
        assert_agree("neighbours", &grad.gradient, &want);
    }
}

/// Neighbours through a `zip` whose one side skips its first items
/// (`x.iter().skip(1).zip(x.iter())`, either side, both, with an
/// `enumerate` after), and a sum numbered from the end (`rev()` then
/// `enumerate()`, whose position counts trips, not indices). They kept the
/// tape; each side's elements are now read at the loop's index plus its
/// skip, and the reverse numbers the trips as the forward did.
#[differentiable]
fn skipped_neighbours(x: &[f64], y: &[f64]) -> f64 {
    let mut t = 0.0;
    for (a, b) in x.iter().skip(1).zip(x.iter()) {
        t += (a - b).powi(2);
    }
    for (a, b) in y.iter().zip(x.iter().skip(2)) {
        t += a * b.sin();
    }
    for (i, (a, b)) in x.iter().skip(1).zip(y.iter().skip(1)).enumerate() {
        t += a * b * (i as f64 + 1.0);
    }
    for (j, v) in y.iter().rev().enumerate() {
        t += v.tanh() * (j as f64 + 0.5);
    }
    for (j, v) in x.iter().step_by(2).rev().enumerate() {
        t += v * v * (j as f64 + 2.0);
    }
    t + x
        .iter()
        .zip(x.iter().skip(1))
        .map(|(a, b)| a * b)
        .sum::<f64>()
}

/// The same sums written out by index.
fn skipped_neighbours_dual(
    x: &[crate::oracle::Dual],
    y: &[crate::oracle::Dual],
) -> crate::oracle::Dual {
    use crate::oracle::Dual;
    let mut t = Dual::constant(0.0);
    for i in 1..x.len() {
        let d = x[i] - x[i - 1];
        t = t + d * d;
    }
    for i in 0..y.len().min(x.len().saturating_sub(2)) {
        t = t + y[i] * x[i + 2].sin();
    }
    for i in 0..(x.len() - 1).min(y.len() - 1) {
        t = t + x[i + 1] * y[i + 1] * (i as f64 + 1.0);
    }
    for (j, i) in (0..y.len()).rev().enumerate() {
        t = t + y[i].tanh() * (j as f64 + 0.5);
    }
    let even: Vec<usize> = (0..x.len()).step_by(2).collect();
    for (j, &i) in even.iter().rev().enumerate() {
        t = t + x[i] * x[i] * (j as f64 + 2.0);
    }
    for i in 0..x.len() - 1 {
        t = t + x[i] * x[i + 1];
    }
    t
}

#[test]
fn a_zip_side_that_skips_and_an_enumerate_after_rev_are_compiled() {
    assert_eq!(
        skipped_neighbours_grad_path(),
        autodiff::GradientPath::Compiled
    );
    let mut rng = xorshift::Rng(0x5eed_0043);
    for (n, m) in [(4, 5), (5, 3), (6, 6)] {
        let x: Vec<f64> = (0..n).map(|_| rng.uniform(1.5)).collect();
        let y: Vec<f64> = (0..m).map(|_| rng.uniform(1.5)).collect();
        let grad = agree(
            "skipped_neighbours",
            skipped_neighbours_grad(&x, &y),
            skipped_neighbours_grad_tape(&x, &y),
        );
        let point = [x.clone(), y.clone()].concat();
        let want =
            crate::oracle::dual_gradient(&point, |p| skipped_neighbours_dual(&p[..n], &p[n..]));
        assert_agree(
            "skipped_neighbours",
            &[grad.gradient.0, grad.gradient.1].concat(),
            &want,
        );
    }
}

/// `map` then `fold` whose closures name their items alike (`.map(|v|
/// v.sin()).fold(0.0, |t, v| t + v * v)`): read as one loop with the
/// fold's item bound to the map's value, which hid the map's own `v` from
/// the reverse of `v.sin()`, and `f_grad` returned a wrong gradient with
/// no error (on main before). The fold's names are now renamed where the
/// map's value reads them. And folds into a tuple of numbers (`|(a, b),
/// v| (a + v, b * v)`), which kept the tape: carried as one accumulator,
/// its names read as its fields.
#[differentiable]
fn folds_alike(x: &[f64]) -> f64 {
    let squares = x.iter().map(|v| v.sin()).fold(0.0, |t, v| t + v * v);
    let (lo, hi, t) = x
        .iter()
        .map(|v| v.sin())
        .fold((f64::INFINITY, f64::NEG_INFINITY, 1.0), |(lo, hi, t), v| {
            (lo.min(v), hi.max(v), t * (1.0 + v * v))
        });
    let (s, ss) = x.iter().fold((0.0, 0.0), |(a, b), v| (a + v, b + v * v));
    let n = x.len() as f64;
    let spread = ss / n - (s / n).powi(2);
    let weighted = x
        .iter()
        .fold((0.0, 1.0), |(a, w), v| (a + w * v, w * 0.5))
        .0;
    squares + hi - lo + t.ln() + spread + weighted
}

fn folds_alike_dual(x: &[crate::oracle::Dual]) -> crate::oracle::Dual {
    use crate::oracle::Dual;
    let mut squares = Dual::constant(0.0);
    let (mut lo, mut hi, mut t) = (
        Dual::constant(f64::INFINITY),
        Dual::constant(f64::NEG_INFINITY),
        Dual::constant(1.0),
    );
    let (mut s, mut ss) = (Dual::constant(0.0), Dual::constant(0.0));
    let (mut weighted, mut w) = (Dual::constant(0.0), Dual::constant(1.0));
    for &v in x {
        let sin = v.sin();
        squares = squares + sin * sin;
        lo = lo.min(sin);
        hi = hi.max(sin);
        t = t * (sin * sin + 1.0);
        s = s + v;
        ss = ss + v * v;
        weighted = weighted + w * v;
        w = w * 0.5;
    }
    let n = x.len() as f64;
    let mean = s / n;
    squares + hi - lo + t.ln() + (ss / n - mean * mean) + weighted
}

#[test]
fn a_fold_after_a_map_naming_its_item_alike_and_tuple_folds_are_right() {
    assert_eq!(folds_alike_grad_path(), autodiff::GradientPath::Compiled);
    for x in [vec![0.3, -1.2, 0.8, 2.0], vec![0.5, 0.25, -0.5]] {
        let grad = agree(
            "folds_alike",
            folds_alike_grad(&x),
            folds_alike_grad_tape(&x),
        );
        let want = crate::oracle::dual_gradient(&x, folds_alike_dual);
        assert_agree("folds_alike", &grad.gradient, &want);
    }
}

/// Two `map`s in a row, the second naming its item as the first did
/// (`x.iter().map(|v| v * 2.0).map(|v| v.sin()).sum()`), before a `sum`
/// and a `fold`: one closure, the second bound to the first's value (and
/// renamed where it hides it). It kept the tape.
#[differentiable]
fn two_maps(x: &[f64]) -> f64 {
    let s = x.iter().map(|v| v * 2.0).map(|v| v.sin()).sum::<f64>();
    s + x
        .iter()
        .map(|v| v.cos())
        .map(|w| w * w)
        .fold(0.5, |acc, v| acc * 0.9 + v)
}

fn two_maps_dual(x: &[crate::oracle::Dual]) -> crate::oracle::Dual {
    use crate::oracle::Dual;
    let mut s = Dual::constant(0.0);
    let mut acc = Dual::constant(0.5);
    for &v in x {
        s = s + (v * 2.0).sin();
        let c = v.cos();
        acc = acc * 0.9 + c * c;
    }
    s + acc
}

#[test]
fn two_maps_in_a_row_are_one_loop() {
    assert_eq!(two_maps_grad_path(), autodiff::GradientPath::Compiled);
    for x in [vec![0.3, -1.2, 0.8, 2.0], vec![0.5, 0.25, -0.5]] {
        let grad = agree("two_maps", two_maps_grad(&x), two_maps_grad_tape(&x));
        let want = crate::oracle::dual_gradient(&x, two_maps_dual);
        assert_agree("two_maps", &grad.gradient, &want);
    }
}

/// A `map` closure whose body is a block, collected into a `let` (GMM's
/// per-component log-likelihoods as students write them; found by
/// probing, it kept the tape): its statements run in the loop and its
/// value is pushed. Also as `extend`.
#[differentiable]
fn block_bodies_collected(a: &[f64], #[constant] k: &[f64]) -> f64 {
    let comps: Vec<f64> = (0..k.len())
        .map(|c| {
            let mut lp = a[c] * k[c];
            for j in 0..a.len() {
                lp -= 0.5 * a[j] * a[j];
            }
            lp
        })
        .collect();
    let mut more = Vec::new();
    more.extend(a.iter().map(|v| {
        let w = v * 2.0;
        w.sin()
    }));
    comps.iter().sum::<f64>() + more[1] * comps[0]
}

#[test]
fn block_bodied_map_closures_collected_are_compiled() {
    assert_eq!(
        block_bodies_collected_grad_path(),
        autodiff::GradientPath::Compiled
    );
    let (a, k) = (vec![0.4, -0.3, 0.8], vec![1.5, -0.5]);
    let got = agree(
        "block_bodies_collected",
        block_bodies_collected_grad(&a, &k),
        block_bodies_collected_grad_tape(&a, &k),
    );
    let want = crate::oracle::dual_gradient(&a, |x| {
        let comp = |c: usize| {
            let mut lp = x[c] * k[c];
            for j in 0..3 {
                lp = lp - x[j] * x[j] * 0.5;
            }
            lp
        };
        let (c0, c1) = (comp(0), comp(1));
        c0 + c1 + (x[1] * 2.0).sin() * c0
    });
    assert_agree("block_bodies_collected", &got.gradient, &want);
}

/// `sum` of the first or the last items (GMM's sum of a log-diagonal,
/// `icf[c].iter().take(d).sum()`; found by probing, it kept the tape):
/// each adjoint goes to the items the sum took.
#[differentiable]
fn partial_sums(icf: &[Vec<f64>], x: &[f64], #[constant] d: usize) -> f64 {
    let mut s = 0.0;
    for c in 0..icf.len() {
        s += icf[c].iter().take(d).sum::<f64>() * (c as f64 + 1.0);
    }
    let tail: f64 = x.iter().skip(1).take(2).copied().sum();
    s * tail + x.iter().copied().skip(d).sum::<f64>()
}

#[test]
fn sums_of_take_and_skip_are_compiled() {
    assert_eq!(partial_sums_grad_path(), autodiff::GradientPath::Compiled);
    let icf = vec![vec![0.5, -0.25, 0.75], vec![1.5, 0.5, -1.0]];
    let x = vec![0.3, -0.6, 0.9, 1.2];
    for d in [0, 2, 3, 7] {
        let got = agree(
            "partial_sums",
            partial_sums_grad(&icf, &x, d),
            partial_sums_grad_tape(&icf, &x, d),
        );
        let point: Vec<f64> = icf
            .iter()
            .flatten()
            .copied()
            .chain(x.iter().copied())
            .collect();
        let want = crate::oracle::dual_gradient(&point, |p| {
            let (rows, x) = (&p[..6], &p[6..]);
            let mut s = p[0] * 0.0;
            for c in 0..2 {
                for j in 0..d.min(3) {
                    s = s + rows[3 * c + j] * (c as f64 + 1.0);
                }
            }
            let tail = x[1] + x[2];
            let mut rest = p[0] * 0.0;
            for v in x.iter().skip(d) {
                rest = rest + *v;
            }
            s * tail + rest
        });
        let mut flat: Vec<f64> = got.gradient.0.iter().flatten().copied().collect();
        flat.extend(&got.gradient.1);
        assert_agree("partial_sums", &flat, &want);
    }
}

/// `map(f64::exp)`: a method of the table named as a function value
/// (found by probing: it did not build, E0631 on the recording twin,
/// which passed a tracked value to `f64::exp`). It records as `|v|
/// v.exp()` does, on the tape.
#[differentiable]
fn mapped_by_path(x: &[f64]) -> f64 {
    x.iter().copied().map(f64::exp).sum::<f64>().ln()
        + x.iter().copied().map(f64::tanh).map(|t| t * t).sum::<f64>()
}

#[test]
fn a_table_method_named_as_a_function_value_builds() {
    let x = [0.3, -0.7, 1.2];
    let got = mapped_by_path_grad(&x).unwrap();
    // softmax(x) + 2 tanh(x)(1 − tanh²(x)).
    let total: f64 = x.iter().map(|v| v.exp()).sum();
    let want: Vec<f64> = x
        .iter()
        .map(|v| v.exp() / total + 2.0 * v.tanh() * (1.0 - v.tanh() * v.tanh()))
        .collect();
    assert_agree("mapped_by_path", &got.gradient, &want);
}

/// A `sum` straight after adaptors (`skip(1).step_by(2)`), which the
/// sweep's own `sum` does not walk, and a `map` given a function by its
/// path (`.map(f64::tanh)`): each lowered as the loop over its items.
#[differentiable]
fn strided_and_mapped_by_path(x: &[f64]) -> f64 {
    let odd: f64 = x.iter().skip(1).step_by(2).sum();
    let taken: f64 = x.iter().rev().take(2).sum();
    let squashed: f64 = x.iter().copied().map(f64::tanh).sum();
    let grown: Vec<f64> = x.iter().copied().map(f64::exp).collect();
    odd * squashed + taken * grown[0]
}

fn strided_and_mapped_by_path_dual(x: &[crate::oracle::Dual]) -> crate::oracle::Dual {
    use crate::oracle::Dual;
    let zero = Dual::constant(0.0);
    let odd = x.iter().skip(1).step_by(2).fold(zero, |s, v| s + *v);
    let taken = x.iter().rev().take(2).fold(zero, |s, v| s + *v);
    let squashed = x.iter().fold(zero, |s, v| s + v.tanh());
    odd * squashed + taken * x[0].exp()
}

#[test]
fn a_sum_after_adaptors_and_a_map_by_path_are_compiled() {
    assert_eq!(
        strided_and_mapped_by_path_grad_path(),
        autodiff::GradientPath::Compiled
    );
    for x in [
        vec![0.3, -1.2, 0.8, 2.0, -0.4],
        vec![0.5, 0.25],
        vec![1.5, -0.5, 0.75],
    ] {
        super::support::compiled_agrees(
            "strided_and_mapped_by_path",
            &x,
            |stack| strided_and_mapped_by_path_adjoint(stack, &x),
            || strided_and_mapped_by_path_grad(&x),
            || strided_and_mapped_by_path_grad_tape(&x),
            strided_and_mapped_by_path_dual,
        );
    }
}

// ---------------------------------------------------------------------
// `flatten` of a matrix's rows: one loop over the rows around one over
// each row's items (`chains::flattened`).
// ---------------------------------------------------------------------

/// An L2 penalty and its neighbours over a matrix's items, three ways:
/// a chain, a `for`, and `flat_map(|r| r.iter())`.
#[differentiable]
fn flattened(w: &[Vec<f64>], s: f64) -> f64 {
    let a: f64 = w.iter().flatten().map(|v| v * v).sum();
    let mut b = 0.0;
    for v in w.iter().flatten() {
        b += v.sin() * s;
    }
    let c: f64 = w.iter().flat_map(|r| r.iter()).map(|v| (v * s).abs()).sum();
    a + b + c
}

fn flattened_dual(w: &[Vec<crate::oracle::Dual>], s: crate::oracle::Dual) -> crate::oracle::Dual {
    let mut total = crate::oracle::Dual::constant(0.0);
    for v in w.iter().flatten() {
        total = total + *v * *v;
    }
    for v in w.iter().flatten() {
        total = total + v.sin() * s;
    }
    for v in w.iter().flatten() {
        total = total + (*v * s).abs();
    }
    total
}

/// A layer's weights, for a penalty over a model's layers.
#[derive(Clone, Debug, Parameters)]
struct Dense {
    w: Vec<Vec<f64>>,
}

#[derive(Clone, Debug, Parameters)]
struct Stack2 {
    layers: Vec<Dense>,
}

#[differentiable]
impl Stack2 {
    fn penalty(&self) -> f64 {
        self.layers
            .iter()
            .map(|l| l.w.iter().flatten().map(|w| w * w).sum::<f64>())
            .sum::<f64>()
    }
}

/// A body that can leave (`break`) is not read as two loops, whose
/// `break` would leave the inner one only: it keeps the tape.
#[differentiable]
fn flattened_until_large(w: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for v in w.iter().flatten() {
        if *v > 1.0 {
            break;
        }
        s += v * v;
    }
    s
}

#[test]
fn a_matrix_flattened_is_compiled_and_agrees_with_dual_numbers() {
    let _compiled = flattened_adjoint;
    assert_eq!(flattened_grad_path(), autodiff::GradientPath::Compiled);
    assert_eq!(
        Stack2::__ad_penalty_grad_path(),
        autodiff::GradientPath::Compiled
    );
    let mut rng = xorshift::Rng(20_771);
    // Ragged rows and empty ones too: the items in order, row by row.
    for shape in [vec![2, 3], vec![0, 2, 1], vec![1], vec![0], vec![]] {
        let w: Vec<Vec<f64>> = shape
            .iter()
            .map(|&n| (0..n).map(|_| rng.uniform(2.0)).collect())
            .collect();
        let s = rng.uniform(1.5);
        let mut point: Vec<f64> = w.iter().flatten().copied().collect();
        point.push(s);
        let rebuild = |d: &[crate::oracle::Dual]| {
            let mut at = 0;
            let rows = shape
                .iter()
                .map(|&n| {
                    at += n;
                    d[at - n..at].to_vec()
                })
                .collect::<Vec<_>>();
            flattened_dual(&rows, d[d.len() - 1])
        };
        super::support::compiled_agrees(
            "flattened",
            &point,
            |stack| flattened_adjoint(stack, &w, s),
            || flattened_grad(&w, s),
            || flattened_grad_tape(&w, s),
            rebuild,
        );
        let model = Stack2 {
            layers: vec![Dense { w: w.clone() }, Dense { w: w.clone() }],
        };
        let got = model.penalty_grad().expect("finite");
        let want: Vec<f64> = w.iter().flatten().map(|v| 2.0 * v).collect();
        for layer in &got.gradient.layers {
            let flat: Vec<f64> = layer.w.iter().flatten().copied().collect();
            assert_agree("penalty", &flat, &want);
        }
    }
}

#[test]
fn a_flattened_loop_that_breaks_keeps_the_tape() -> Result<(), ScalarAutodiffError> {
    assert!(matches!(
        flattened_until_large_grad_path(),
        autodiff::GradientPath::Tape { .. }
    ));
    let w = vec![vec![0.5, -0.25], vec![], vec![2.0, 0.75]];
    let got = flattened_until_large_grad(&w)?;
    assert_eq!(got.value, 0.5 * 0.5 + 0.25 * 0.25);
    assert_eq!(got.gradient, vec![vec![1.0, -0.5], vec![], vec![0.0, 0.0]]);
    Ok(())
}

// ---------------------------------------------------------------------
// An array literal iterated where it is written: the compiled adjoint
// binds it by a `let` first (`let array_out = [x, y, z];`), a local array
// its sweeps walk. It kept the tape (`a closure`, `a for over [x, y, x *
// y]`), and a helper whose tail iterated one had its reverse run on the
// tape at each call.
// ---------------------------------------------------------------------

#[differentiable]
fn literal_norm(x: f64, y: f64, z: f64) -> f64 {
    [x, y, z].iter().map(|v| v * v).sum::<f64>().sqrt()
}

#[differentiable]
fn literal_loop(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    for v in [x, y, x * y] {
        s += v.sin();
    }
    // Bound again at each trip, from the value the trip before gave.
    let mut r = y;
    for _ in 0..3 {
        r = [r, x, r * x].iter().map(|v| v * v).sum::<f64>().sqrt() * 0.5;
    }
    s + r
}

#[differentiable]
fn literal_tail(x: f64, y: f64) -> (f64, Vec<f64>) {
    let a = x - 1.2;
    (a * y, [a.tanh(), x * a].iter().map(|t| t * 2.0).collect())
}

#[differentiable]
fn literal_tail_caller(x: f64, y: f64) -> f64 {
    let (value, w) = literal_tail(1.3 * y, x.tanh());
    value * x + w[1] * w[0]
}

#[differentiable]
fn literal_indices(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in [0, 2] {
        s += x[i] * x[i];
    }
    s
}

fn literal_loop_dual(x: crate::oracle::Dual, y: crate::oracle::Dual) -> crate::oracle::Dual {
    let s = x.sin() + y.sin() + (x * y).sin();
    let mut r = y;
    for _ in 0..3 {
        r = (r * r + x * x + r * x * (r * x)).sqrt() * 0.5;
    }
    s + r
}

fn literal_tail_caller_dual(x: crate::oracle::Dual, y: crate::oracle::Dual) -> crate::oracle::Dual {
    let (p, q) = (y * 1.3, x.tanh());
    let a = p - 1.2;
    let (value, w) = (a * q, [a.tanh() * 2.0, p * a * 2.0]);
    value * x + w[1] * w[0]
}

#[test]
fn an_array_literal_iterated_in_place_is_compiled() {
    assert_eq!(literal_norm_grad_path(), autodiff::GradientPath::Compiled);
    assert_eq!(literal_loop_grad_path(), autodiff::GradientPath::Compiled);
    assert_eq!(
        literal_tail_caller_grad_path(),
        autodiff::GradientPath::Compiled
    );
    for (x, y, z) in [(0.3, -0.7, 1.1), (1.5, 0.8, -0.4)] {
        super::support::compiled_agrees(
            "literal_norm",
            &[x, y, z],
            |stack| literal_norm_adjoint(stack, x, y, z),
            || literal_norm_grad(x, y, z),
            || literal_norm_grad_tape(x, y, z),
            |p: &[crate::oracle::Dual]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt(),
        );
        super::support::compiled_agrees(
            "literal_loop",
            &[x, y],
            |stack| literal_loop_adjoint(stack, x, y),
            || literal_loop_grad(x, y),
            || literal_loop_grad_tape(x, y),
            |p: &[crate::oracle::Dual]| literal_loop_dual(p[0], p[1]),
        );
        // `compiled_agrees` also checks that no call ran on the tape:
        // `literal_tail`'s reverse is compiled too.
        super::support::compiled_agrees(
            "literal_tail_caller",
            &[x, y],
            |stack| literal_tail_caller_adjoint(stack, x, y),
            || literal_tail_caller_grad(x, y),
            || literal_tail_caller_grad_tape(x, y),
            |p: &[crate::oracle::Dual]| literal_tail_caller_dual(p[0], p[1]),
        );
    }
    // Literals only: not bound, and its refusal names it as written.
    let autodiff::GradientPath::Tape { construct, .. } = literal_indices_grad_path() else {
        panic!("compiled")
    };
    assert_eq!(construct, "a for over [0, 2]");
    let x = [0.5, -1.0, 2.0];
    let got = literal_indices_grad(&x).unwrap();
    assert_agree("x0² + x2²", &got.gradient, &[1.0, 0.0, 4.0]);
}
