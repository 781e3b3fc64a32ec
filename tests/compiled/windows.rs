//! A window or a chunk used as the slice it is, not only by literal
//! indices (`c.iter().fold(f64::MIN, f64::max)` to max-pool, `w.len()`,
//! `mean(c)` of an annotated helper): the compiled adjoint binds it as the
//! part of its slice the iterator hands out (`&x[c_at..(c_at +
//! n).min(x.len())]`), the short last chunk too. Each function is checked
//! to take the compiled path, and its gradient against dual numbers and
//! the tape, at lengths below, at and above the window.

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{agree, assert_agree};
use crate::oracle::{dual_gradient, Dual};
use crate::xorshift;

/// Max-pooling over chunks of two, the way a convolution layer's output
/// is pooled: the chunk read by a chain of its own.
#[differentiable]
fn pooled(x: &[f64]) -> f64 {
    let pooled: Vec<f64> = x
        .chunks(2)
        .map(|c| c.iter().cloned().fold(f64::MIN, f64::max))
        .collect();
    pooled.iter().map(|v| v.tanh()).sum()
}

#[differentiable]
fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// A `for` over windows of three taking each one's norm and length, and
/// over chunks of three (a short last one) with their count, passing each
/// to an annotated helper; the slice is a local a loop wrote.
#[differentiable]
fn smoothed(x: &[f64], s: f64) -> f64 {
    let mut y = vec![0.0; x.len()];
    for i in 0..x.len() {
        y[i] = x[i] * s + 0.5;
    }
    let mut total = 0.0;
    for w in y.windows(3) {
        total += w.iter().map(|v| v * v).sum::<f64>().sqrt() * w.len() as f64;
    }
    for (k, c) in x.chunks(3).enumerate() {
        total += (k as f64 + 1.0) * mean(c) * c[0];
    }
    total
}

fn pooled_dual(x: &[Dual]) -> Dual {
    x.chunks(2)
        .map(|c| c.iter().fold(Dual::constant(f64::MIN), |m, v| m.max(*v)))
        .fold(Dual::constant(-0.0), |s, p| s + p.tanh())
}

fn smoothed_dual(x: &[Dual], s: Dual) -> Dual {
    let y: Vec<Dual> = x.iter().map(|v| *v * s + 0.5).collect();
    let mut total = Dual::constant(0.0);
    for w in y.windows(3) {
        let squares = w.iter().fold(Dual::constant(-0.0), |t, v| t + *v * *v);
        total = total + squares.sqrt() * w.len() as f64;
    }
    for (k, c) in x.chunks(3).enumerate() {
        let sum = c.iter().fold(Dual::constant(-0.0), |t, v| t + *v);
        total = total + sum / c.len() as f64 * (k as f64 + 1.0) * c[0];
    }
    total
}

#[test]
fn windows_used_whole_are_compiled() {
    // A function that keeps the tape has no `_adjoint`: this would not
    // build.
    let _compiled = (pooled_adjoint, smoothed_adjoint);
    assert_eq!(pooled_grad_path(), GradientPath::Compiled);
    assert_eq!(smoothed_grad_path(), GradientPath::Compiled);
}

#[test]
fn a_window_used_whole_is_the_part_of_its_slice() {
    let mut rng = xorshift::Rng(33_017);
    for n in [0, 1, 2, 3, 4, 5, 7, 8] {
        for _ in 0..6 {
            let x: Vec<f64> = (0..n).map(|_| rng.uniform(2.0)).collect();
            let got = agree("pooled", pooled_grad(&x), pooled_grad_tape(&x));
            assert_eq!(got.value.to_bits(), pooled(&x).to_bits());
            assert_agree("pooled", &got.gradient, &dual_gradient(&x, pooled_dual));

            let s = 0.75 + rng.uniform(0.5);
            let got = agree("smoothed", smoothed_grad(&x, s), smoothed_grad_tape(&x, s));
            assert_eq!(got.value.to_bits(), smoothed(&x, s).to_bits());
            let mut all = x.clone();
            all.push(s);
            let want = dual_gradient(&all, |d| smoothed_dual(&d[..n], d[n]));
            assert_agree("smoothed x", &got.gradient.0, &want[..n]);
            assert_agree("smoothed s", &[got.gradient.1], &want[n..]);
        }
    }
}

/// A convolution the way it is written first: windows as long as the
/// kernel (`x.windows(k.len())`), each one's dot with it, through `tanh`.
#[differentiable]
fn convolved(x: &[f64], k: &[f64]) -> f64 {
    let y: Vec<f64> = x
        .windows(k.len())
        .map(|w| w.iter().zip(k.iter()).map(|(a, b)| a * b).sum::<f64>())
        .collect();
    y.iter().map(|v| v.tanh()).sum()
}

/// A `for` over numbered windows of a kernel's length, and chunks of a
/// `#[constant]` size `n` max-pooled and averaged.
#[differentiable]
fn sized_by_names(x: &[f64], k: &[f64], #[constant] n: usize) -> f64 {
    let mut s = 0.0;
    for (i, w) in x.windows(k.len()).enumerate() {
        let mut t = 0.0;
        for j in 0..w.len() {
            t += w[j] * k[j];
        }
        s += (t * (i as f64 + 1.0)).sin();
    }
    for c in x.chunks(n) {
        let m = c.iter().cloned().fold(f64::MIN, f64::max);
        s += m * m;
    }
    s + x
        .chunks(n)
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .map(|m| m * m)
        .sum::<f64>()
}

fn convolved_dual(x: &[Dual], k: &[Dual]) -> Dual {
    x.windows(k.len())
        .map(|w| {
            w.iter()
                .zip(k)
                .fold(Dual::constant(-0.0), |t, (a, b)| t + *a * *b)
        })
        .fold(Dual::constant(-0.0), |s, v| s + v.tanh())
}

fn sized_by_names_dual(x: &[Dual], k: &[Dual], n: usize) -> Dual {
    let mut s = Dual::constant(0.0);
    for (i, w) in x.windows(k.len()).enumerate() {
        let mut t = Dual::constant(0.0);
        for j in 0..w.len() {
            t = t + w[j] * k[j];
        }
        s = s + (t * (i as f64 + 1.0)).sin();
    }
    for c in x.chunks(n) {
        let m = c.iter().fold(Dual::constant(f64::MIN), |m, v| m.max(*v));
        s = s + m * m;
    }
    let mut means = Dual::constant(-0.0);
    for c in x.chunks(n) {
        let mean = c.iter().fold(Dual::constant(-0.0), |t, v| t + *v) / c.len() as f64;
        means = means + mean * mean;
    }
    s + means
}

#[test]
fn windows_and_chunks_sized_by_a_name_or_a_length() {
    assert_eq!(convolved_grad_path(), GradientPath::Compiled);
    assert_eq!(sized_by_names_grad_path(), GradientPath::Compiled);
    let mut rng = xorshift::Rng(33_029);
    for len in [0, 1, 2, 3, 5, 8] {
        for kernel in [1, 2, 3, 4] {
            for n in [1, 2, 3, 9] {
                let x: Vec<f64> = (0..len).map(|_| rng.uniform(2.0)).collect();
                let k: Vec<f64> = (0..kernel).map(|_| rng.uniform(1.5)).collect();
                let mut all = x.clone();
                all.extend(&k);

                let got = agree(
                    "convolved",
                    convolved_grad(&x, &k),
                    convolved_grad_tape(&x, &k),
                );
                assert_eq!(got.value.to_bits(), convolved(&x, &k).to_bits());
                let want = dual_gradient(&all, |d| convolved_dual(&d[..len], &d[len..]));
                assert_agree("convolved x", &got.gradient.0, &want[..len]);
                assert_agree("convolved k", &got.gradient.1, &want[len..]);

                let got = agree(
                    "sized_by_names",
                    sized_by_names_grad(&x, &k, n),
                    sized_by_names_grad_tape(&x, &k, n),
                );
                assert_eq!(got.value.to_bits(), sized_by_names(&x, &k, n).to_bits());
                let want = dual_gradient(&all, |d| sized_by_names_dual(&d[..len], &d[len..], n));
                assert_agree("sized_by_names x", &got.gradient.0, &want[..len]);
                assert_agree("sized_by_names k", &got.gradient.1, &want[len..]);
            }
        }
    }
}

/// `windows(0)` and `chunks(0)` panic in the function as written: so they
/// do in its gradient, on both paths, rather than return a number.
#[test]
fn a_size_of_zero_panics_as_the_function_does() {
    let x = [1.0, 2.0, 3.0];
    for run in [
        || drop(convolved_grad(&[1.0, 2.0, 3.0], &[])),
        || drop(convolved_grad_tape(&[1.0, 2.0, 3.0], &[])),
        || drop(sized_by_names_grad(&[1.0, 2.0, 3.0], &[1.0], 0)),
        || drop(sized_by_names_grad_tape(&[1.0, 2.0, 3.0], &[1.0], 0)),
    ] {
        assert!(std::panic::catch_unwind(run).is_err());
    }
    assert!(std::panic::catch_unwind(|| convolved(&x, &[])).is_err());
}
