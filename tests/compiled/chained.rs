//! `chain`, one source's items after another's, compiled: a `for` over
//! `a.iter().chain(b.iter())` is read as a loop over each half in turn,
//! and so is a chain of closures over it (`map(..).sum()`, `fold`, a
//! `collect`), with `copied()` or `cloned()` after the `chain`, halves that
//! are ranges, slices, `Vec`s the body builds and reversed walks. The
//! bodies read a running value, so that items taken in another order
//! would give another value. Each module is checked as `vec_moves`
//! checks its own (`checked!`): compiled, the value bit for bit, the tape
//! and the dual twin (`tests/support/oracle.rs`) agreeing. `enumerate` of
//! the whole chain in a `for` counts across both loops. The forms the
//! compiled adjoint does not read (`rev` or `zip` of the whole chain, a
//! `break` in the body) keep the tape and are checked there.

// Index loops and `vec!` on purpose: the halves are index ranges and
// `Vec`s the body builds.
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use crate::oracle::{dual_value_and_gradient, Dual};
use crate::support::assert_agree;
use crate::vec_moves::checked;

fn c(v: f64) -> Dual {
    Dual::constant(v)
}

/// A `for` over a parameter's items, then a `Vec`'s the body built; the
/// running value `s` depends on the order.
mod for_over_a_chain {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let y: Vec<f64> = x.iter().map(|v| v.sin()).collect();
        let mut s = 0.25;
        for v in x.iter().chain(y.iter()) {
            let t = v * s;
            s = s * 0.5 + t * t + v;
        }
        s
    }

    fn twin(x: &[Dual]) -> Dual {
        let y: Vec<Dual> = x.iter().map(|v| v.sin()).collect();
        let mut s = c(0.25);
        for &v in x.iter().chain(y.iter()) {
            let t = v * s;
            s = s * 0.5 + t * t + v;
        }
        s
    }

    checked!();
}

/// An L2 penalty over two halves (`map(..).sum()`), a slice then a
/// reversed walk of a `Vec`, added to a fit.
mod penalty_over_two_halves {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let w = vec![x[0] * x[1], x[2] - x[3], x[3].cos()];
        let fit = (x[0] * w[0] + x[2]).tanh();
        fit + 0.125 * x.iter().chain(w.iter().rev()).map(|v| v * v).sum::<f64>()
    }

    fn twin(x: &[Dual]) -> Dual {
        let w = [x[0] * x[1], x[2] - x[3], x[3].cos()];
        let fit = (x[0] * w[0] + x[2]).tanh();
        let mut sum = c(-0.0);
        for &v in x.iter().chain(w.iter().rev()) {
            sum = sum + v * v;
        }
        fit + sum * 0.125
    }

    checked!();
}

/// The largest item of both halves, `cloned()` after the `chain`, times a
/// sum of both, `chain(&w)`; and a fold whose step reads its accumulator
/// (a Horner polynomial over both halves).
mod extreme_and_fold {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let w = vec![x[1] * 0.5, -x[0]];
        let m = x
            .iter()
            .chain(w.iter())
            .cloned()
            .fold(f64::NEG_INFINITY, f64::max);
        let h = w.iter().chain(x.iter()).fold(0.0, |acc, v| acc * 0.75 + v);
        m * x.iter().chain(&w).sum::<f64>() + h
    }

    fn twin(x: &[Dual]) -> Dual {
        let w = [x[1] * 0.5, -x[0]];
        let mut m = c(f64::NEG_INFINITY);
        for &v in x.iter().chain(w.iter()) {
            m = m.max(v);
        }
        let mut h = c(0.0);
        for &v in w.iter().chain(x.iter()) {
            h = h * 0.75 + v;
        }
        let mut s = c(-0.0);
        for &v in x.iter().chain(w.iter()) {
            s = s + v;
        }
        m * s + h
    }

    checked!();
}

/// Both halves collected into one `Vec`, read by index: the items must
/// land in the chain's order.
mod collected_in_order {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let y = vec![x[0] * x[3], x[1].exp()];
        let v: Vec<f64> = y.iter().chain(x.iter()).map(|a| a.sin() * 2.0).collect();
        let mut s = 0.0;
        for k in 0..v.len() {
            s += v[k] * (k as f64 + 1.0);
        }
        s * v[1]
    }

    fn twin(x: &[Dual]) -> Dual {
        let y = [x[0] * x[3], x[1].exp()];
        let v: Vec<Dual> = y.iter().chain(x.iter()).map(|a| a.sin() * 2.0).collect();
        let mut s = c(0.0);
        for k in 0..v.len() {
            s = s + v[k] * (k as f64 + 1.0);
        }
        s * v[1]
    }

    checked!();
}

/// Index ranges chained, one of them empty at the points' length, in a
/// loop over the items; and a chain in a loop, a fresh sum per trip.
mod ranges_and_nested {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in (0..1).chain(2..x.len()) {
            s = s * x[1] + x[i] * x[i];
        }
        for i in (x.len()..x.len()).chain(1..2) {
            s += x[i].sin();
        }
        let mut t = 0.0;
        for k in 0..2 {
            let row = vec![x[k], x[k + 1] * 0.5];
            t += row
                .iter()
                .chain(x.iter().skip(2))
                .map(|v| (v * 0.5).exp())
                .sum::<f64>()
                .ln();
        }
        s + t
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut s = c(0.0);
        for i in (0..1).chain(2..x.len()) {
            s = s * x[1] + x[i] * x[i];
        }
        s = s + x[1].sin();
        let mut t = c(0.0);
        for k in 0..2 {
            let row = [x[k], x[k + 1] * 0.5];
            let mut sum = c(-0.0);
            for &v in row.iter().chain(x.iter().skip(2)) {
                sum = sum + (v * 0.5).exp();
            }
            t = t + sum.ln();
        }
        s + t
    }

    checked!();
}

/// `chain(b)` of a slice parameter with `copied()` after it, in a helper
/// the checked function calls.
mod slice_halves_copied {
    use super::*;

    #[differentiable]
    fn both(a: &[f64], b: &[f64]) -> f64 {
        let mut s = 1.0;
        for v in a.iter().chain(b).copied() {
            s = s * 0.5 + v.sin() * s;
        }
        s
    }

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let y = vec![x[0] + x[1], x[2] * x[3]];
        both(x, &y)
    }

    fn twin(x: &[Dual]) -> Dual {
        let y = [x[0] + x[1], x[2] * x[3]];
        let mut s = c(1.0);
        for &v in x.iter().chain(y.iter()) {
            s = s * 0.5 + v.sin() * s;
        }
        s
    }

    checked!();

    #[test]
    fn the_helper_is_compiled() {
        assert_eq!(both_grad_path(), GradientPath::Compiled);
    }
}

/// A `for` numbering the items of both halves (`enumerate` of the whole
/// chain): the count runs on across the second loop. (An index dropped
/// on purpose in the second: the form is the test.)
#[allow(clippy::unused_enumerate_index)]
mod numbered_across_both_halves {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut s = 0.25;
        for (i, v) in x.iter().chain(x.iter().rev().step_by(2)).enumerate() {
            s = s * 0.5 + v * v * (i as f64) + v.sin();
        }
        for (_, v) in x.iter().skip(1).chain(x.iter()).enumerate() {
            s *= v;
        }
        s
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut s = c(0.25);
        for (i, &v) in x.iter().chain(x.iter().rev().step_by(2)).enumerate() {
            s = s * 0.5 + v * v * (i as f64) + v.sin();
        }
        for (_, &v) in x.iter().skip(1).chain(x.iter()).enumerate() {
            s = s * v;
        }
        s
    }

    checked!();
}

/// What keeps the tape: the whole chain reversed (`rev`), a `zip` of the
/// chain with another source, a `break` in the body (which would leave
/// only the first loop). Right there, against the dual twin.
mod kept_on_the_tape {
    use super::*;

    #[differentiable]
    fn reversed(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for v in x.iter().chain(x.iter().skip(1)).rev() {
            s = s * 0.5 + v * v;
        }
        s
    }

    #[differentiable]
    fn zipped(x: &[f64]) -> f64 {
        let w = vec![0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 1.0, 0.5];
        x.iter()
            .chain(x.iter())
            .zip(w.iter())
            .map(|(a, b)| (a * b).sin())
            .sum()
    }

    #[differentiable]
    fn stopped(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for v in x.iter().chain(x.iter()) {
            if s > 6.0 {
                break;
            }
            s += v * v;
        }
        s
    }

    type Twin = fn(&[Dual]) -> Dual;

    fn twins() -> [(&'static str, Twin); 3] {
        [
            ("reversed", |x| {
                let mut s = c(0.0);
                for &v in x.iter().chain(x.iter().skip(1)).rev() {
                    s = s * 0.5 + v * v;
                }
                s
            }),
            ("zipped", |x| {
                let w = [0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 1.0, 0.5];
                let mut s = c(-0.0);
                for (&a, &b) in x.iter().chain(x.iter()).zip(w.iter()) {
                    s = s + (a * b).sin();
                }
                s
            }),
            ("stopped", |x| {
                let mut s = c(0.0);
                for &v in x.iter().chain(x.iter()) {
                    if s.value > 6.0 {
                        break;
                    }
                    s = s + v * v;
                }
                s
            }),
        ]
    }

    #[test]
    fn on_the_tape_and_right() {
        type Grad = fn(&[f64]) -> Result<ValueAndGradient<Vec<f64>>, ScalarAutodiffError>;
        let grads: [(Grad, GradientPath); 3] = [
            (|x| reversed_grad(x), reversed_grad_path()),
            (|x| zipped_grad(x), zipped_grad_path()),
            (|x| stopped_grad(x), stopped_grad_path()),
        ];
        for ((grad, path), (name, twin)) in grads.into_iter().zip(twins()) {
            assert!(
                matches!(path, GradientPath::Tape { .. }),
                "{name}: {path:?}"
            );
            for at in [[2.0, 3.0, -0.5, 1.25], [-1.25, 0.5, 1.5, -2.0]] {
                let got = grad(&at).unwrap();
                let (value, tangents) = dual_value_and_gradient(&at, twin);
                assert_eq!(value.to_bits(), got.value.to_bits(), "{name} at {at:?}");
                assert_agree(name, &got.gradient, &tangents);
            }
        }
    }
}

/// A half whose items carry a derivative chained with one whose items do
/// not (`c` a `#[constant]` slice, a list the body makes, a single item):
/// the tape lifts the plain half's items, so both paths build; compiled
/// where the chain is walked alone or numbered, the tape's where it is
/// zipped. Against the dual twin, at each point.
mod a_tracked_half_and_a_plain_half {
    use super::*;

    const C: [f64; 2] = [1.5, -0.5];

    #[differentiable]
    fn penalty(w: &[f64], #[constant] c: &[f64]) -> f64 {
        w.iter().chain(c.iter()).map(|v| v * v * 0.5).sum::<f64>() * w[0]
    }

    #[differentiable]
    fn plain_first(w: &[f64], #[constant] c: &[f64]) -> f64 {
        let mut s = 0.25;
        for v in c.iter().chain(w.iter()) {
            s = s * v + v.sin();
        }
        s
    }

    #[differentiable]
    fn copied_and_numbered(w: &[f64], #[constant] c: &[f64]) -> f64 {
        let mut s = 1.0;
        for (i, v) in w.iter().copied().chain(c.iter().copied()).enumerate() {
            s = s * v + i as f64;
        }
        s
    }

    #[differentiable]
    fn with_a_bias(w: &[f64]) -> f64 {
        let x = vec![0.5, -1.25, 2.0];
        let mut s = 0.0;
        for (wi, xi) in w.iter().zip(x.iter().chain(std::iter::once(&1.0))) {
            s += wi * xi;
        }
        s.tanh()
    }

    #[differentiable]
    fn rows(a: &[Vec<f64>], #[constant] b: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for r in a.iter().chain(b.iter()) {
            s = s * 0.5 + r[0] * r[1];
        }
        s
    }

    type Twin = fn(&[Dual]) -> Dual;

    fn twins() -> [(&'static str, Twin); 4] {
        [
            ("penalty", |w| {
                let mut s = c(0.0);
                for &v in w.iter().chain(C.map(c).iter()) {
                    s = s + v * v * 0.5;
                }
                s * w[0]
            }),
            ("plain_first", |w| {
                let mut s = c(0.25);
                for &v in C.map(c).iter().chain(w.iter()) {
                    s = s * v + v.sin();
                }
                s
            }),
            ("copied_and_numbered", |w| {
                let mut s = c(1.0);
                for (i, v) in w.iter().copied().chain(C.map(c)).enumerate() {
                    s = s * v + i as f64;
                }
                s
            }),
            ("with_a_bias", |w| {
                let x = [0.5, -1.25, 2.0, 1.0];
                let mut s = c(0.0);
                for (&wi, &xi) in w.iter().zip(x.iter()) {
                    s = s + wi * xi;
                }
                s.tanh()
            }),
        ]
    }

    #[test]
    fn both_paths_build_and_agree() {
        type Grad = fn(&[f64]) -> Result<ValueAndGradient<Vec<f64>>, ScalarAutodiffError>;
        let grads: [(Grad, Grad, GradientPath); 4] = [
            (
                |w| penalty_grad(w, &C),
                |w| penalty_grad_tape(w, &C),
                penalty_grad_path(),
            ),
            (
                |w| plain_first_grad(w, &C),
                |w| plain_first_grad_tape(w, &C),
                plain_first_grad_path(),
            ),
            (
                |w| copied_and_numbered_grad(w, &C),
                |w| copied_and_numbered_grad_tape(w, &C),
                copied_and_numbered_grad_path(),
            ),
            (
                with_a_bias_grad,
                with_a_bias_grad_tape,
                with_a_bias_grad_path(),
            ),
        ];
        for (_, _, path) in &grads[..3] {
            assert_eq!(*path, GradientPath::Compiled);
        }
        for ((grad, tape, _), (name, twin)) in grads.into_iter().zip(twins()) {
            for at in [[2.0, 3.0, -0.5, 1.25], [-1.25, 0.5, 1.5, -2.0]] {
                let got = grad(&at).unwrap();
                let on_tape = tape(&at).unwrap();
                let (value, tangents) = dual_value_and_gradient(&at, twin);
                assert_eq!(value.to_bits(), got.value.to_bits(), "{name} at {at:?}");
                assert_eq!(value.to_bits(), on_tape.value.to_bits(), "{name} at {at:?}");
                assert_agree(name, &got.gradient, &tangents);
                assert_agree(name, &on_tape.gradient, &tangents);
            }
        }
    }

    #[test]
    fn rows_of_both_kinds() {
        let a = vec![vec![2.0, -1.5], vec![0.5, 3.0]];
        let b = vec![vec![1.25, -2.0]];
        let got = rows_grad(&a, &b).unwrap();
        let on_tape = rows_grad_tape(&a, &b).unwrap();
        assert_eq!(rows_grad_path(), GradientPath::Compiled);
        // s = ((a00·a01)·0.5 + a10·a11)·0.5 + b00·b01
        let want = vec![
            vec![0.25 * a[0][1], 0.25 * a[0][0]],
            vec![0.5 * a[1][1], 0.5 * a[1][0]],
        ];
        let value = (a[0][0] * a[0][1] * 0.5 + a[1][0] * a[1][1]) * 0.5 + b[0][0] * b[0][1];
        assert_eq!(got.value.to_bits(), value.to_bits());
        assert_eq!(on_tape.value.to_bits(), value.to_bits());
        for (k, row) in want.iter().enumerate() {
            assert_agree("rows", &got.gradient[k], row);
            assert_agree("rows", &on_tape.gradient[k], row);
        }
    }
}
