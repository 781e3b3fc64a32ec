//! The `Vec` methods that edit items in place or change the length,
//! compiled: `remove` (as a statement and as a value), `resize` (growing
//! with a tracked value, shrinking), `fill` (with a tracked value and a
//! constant), `clear` of a buffer reused in a loop, and `std::mem::swap`
//! of two `Vec`s (double buffers) and of two numbers. The reverse sweep
//! undoes each on the adjoints: a removed item's adjoint goes back where
//! the item was, a resize gives its value the appended items' adjoints, a
//! fill gives its value all of them, a swap swaps them back.
//!
//! Each function is a module, written twice as in `vec_moves`: `f` under
//! `#[differentiable]` and `twin` over the oracle's dual numbers; each is
//! checked by `vec_moves::check` (the compiled path taken, the value bit
//! for bit, the tape and the dual tangents agreeing).

#![allow(clippy::needless_range_loop, clippy::useless_vec)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use crate::oracle::Dual;

use crate::vec_moves::checked;

fn c(v: f64) -> Dual {
    Dual::constant(v)
}

/// Removed at an index that changes (read again from a counter and the
/// length, so saved), the item read as a value; then one removed as a
/// statement, whose adjoint is zero.
mod remove_as_a_value_and_as_a_statement {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        v.push(x[0] * x[1]);
        let mut k = 0;
        let mut s = 0.0;
        while v.len() > 2 {
            let t = v.remove(k % v.len());
            s += t * t + v[0];
            k += 1;
        }
        v.remove(0);
        s * v[0]
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut v = x.to_vec();
        v.push(x[0] * x[1]);
        let mut k = 0;
        let mut s = c(0.0);
        while v.len() > 2 {
            let t = v.remove(k % v.len());
            s = s + t * t + v[0];
            k += 1;
        }
        v.remove(0);
        s * v[0]
    }

    checked!();
}

/// Grown with a tracked value (whose adjoint is the sum of its copies'),
/// shrunk, grown again with a constant, pushed onto in between.
mod resize_grows_with_a_tracked_value_and_shrinks {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut v = vec![x[0]];
        v.resize(4, x[1] * x[2]);
        let a = v[3] * v[0] + v[2];
        v.resize(2, 0.5);
        v.push(a);
        v.resize(5, 1.5);
        v[1] * v[2] + v[4] * x[3] + v.len() as f64
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut v = vec![x[0]];
        v.resize(4, x[1] * x[2]);
        let a = v[3] * v[0] + v[2];
        v.resize(2, c(0.5));
        v.push(a);
        v.resize(5, c(1.5));
        v[1] * v[2] + v[4] * x[3] + v.len() as f64
    }

    checked!();
}

/// Filled after its items were read (they are saved), with a tracked
/// value and with a constant, and in a loop before an element write.
mod fill_with_tracked_and_constant_values {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        let s = v[0] * v[1] + v[3];
        v.fill(s.sin());
        let t = v[2] * v[1];
        v.fill(2.0);
        v[0] = t * x[2];
        let mut w = vec![0.0; 3];
        let mut acc = 0.0;
        for k in 0..3 {
            w.fill(x[k] * 0.5);
            w[k] = x[k + 1] * t;
            acc += w[0] * w[1] * w[2];
        }
        v[0] + v[1] * s + t + acc
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut v = x.to_vec();
        let s = v[0] * v[1] + v[3];
        v.fill(s.sin());
        let t = v[2] * v[1];
        v.fill(c(2.0));
        v[0] = t * x[2];
        let mut w = vec![c(0.0); 3];
        let mut acc = c(0.0);
        for k in 0..3 {
            w.fill(x[k] * 0.5);
            w[k] = x[k + 1] * t;
            acc = acc + w[0] * w[1] * w[2];
        }
        v[0] + v[1] * s + t + acc
    }

    checked!();
}

/// A buffer cleared and refilled on every trip, its items depending on
/// the total so far.
mod clear_reuses_a_buffer {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut buf = Vec::new();
        let mut total = 0.0;
        for k in 0..3 {
            buf.clear();
            for i in 0..x.len() {
                buf.push(x[i] * (k as f64 + 1.0) + total * 0.1);
            }
            total += buf[0] * buf[buf.len() - 1] + buf[1];
        }
        buf.clear();
        buf.push(total);
        buf[0] * x[2]
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut buf = Vec::new();
        let mut total = c(0.0);
        for k in 0..3 {
            buf.clear();
            for i in 0..x.len() {
                buf.push(x[i] * (k as f64 + 1.0) + total * 0.1);
            }
            total = total + buf[0] * buf[buf.len() - 1] + buf[1];
        }
        buf.clear();
        buf.push(total);
        buf[0] * x[2]
    }

    checked!();
}

/// Two buffers swapped on every trip (one starting as plain zeros), and
/// two `Vec`s of different lengths swapped, one pushed onto after.
mod swap_double_buffers {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut prev = vec![0.0; x.len()];
        let mut cur = x.to_vec();
        for _ in 0..3 {
            for i in 0..x.len() {
                prev[i] = cur[i].sin() + 0.5 * cur[(i + 1) % x.len()];
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        let mut short = vec![x[0] * cur[0]];
        let mut long = prev.clone();
        std::mem::swap(&mut short, &mut long);
        long.push(short[3] * 2.0);
        cur[0] * prev[1] + cur[3] + long[0] * long[1] + short[2]
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut prev = vec![c(0.0); x.len()];
        let mut cur = x.to_vec();
        for _ in 0..3 {
            for i in 0..x.len() {
                prev[i] = cur[i].sin() + cur[(i + 1) % x.len()] * 0.5;
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        let mut short = vec![x[0] * cur[0]];
        let mut long = prev.clone();
        std::mem::swap(&mut short, &mut long);
        long.push(short[3] * 2.0);
        cur[0] * prev[1] + cur[3] + long[0] * long[1] + short[2]
    }

    checked!();
}

/// Two numbers swapped in a loop through `mem::swap` imported as a
/// module (one plain before the first swap), then written.
mod swap_numbers {
    use super::*;
    use std::mem;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut a = x[0] * x[1];
        let mut b = 1.5;
        let mut s = 0.0;
        for k in 0..3 {
            mem::swap(&mut a, &mut b);
            s += a * (k as f64 + 1.0) + b * x[2];
            a = a * 0.5 + x[3];
        }
        s + a * b
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut a = x[0] * x[1];
        let mut b = c(1.5);
        let mut s = c(0.0);
        for k in 0..3 {
            mem::swap(&mut a, &mut b);
            s = s + a * (k as f64 + 1.0) + b * x[2];
            a = a * 0.5 + x[3];
        }
        s + a * b
    }

    checked!();
}

/// A layer whose fields fill, grow and are inserted into a `Vec` of
/// numbers: the body shows nothing of `m.b` but that it goes into one.
#[derive(Clone, Debug, Parameters)]
struct Fills {
    w: [f64; 2],
    b: f64,
}

#[differentiable]
fn grown_by_a_models_fields(x: f64, m: &Fills) -> f64 {
    let mut v = vec![x * 0.5; 3];
    v.push(x.sin());
    v.resize(6, m.b);
    v.insert(1, m.w[1]);
    v[5] * v[1] + v[4] * x + v[0]
}

#[differentiable]
fn filled_by_a_models_field(x: f64, m: &Fills) -> f64 {
    let mut v = vec![x; 3];
    v[0] *= 2.0;
    let s = v[0] + v[1];
    v.fill(m.b);
    s * v[2] + v[0] * m.w[0]
}

#[test]
fn resize_insert_and_fill_with_a_models_field_are_compiled() {
    assert_eq!(grown_by_a_models_fields_grad_path(), GradientPath::Compiled);
    assert_eq!(filled_by_a_models_field_grad_path(), GradientPath::Compiled);
    let flat = |g: &(f64, Fills)| vec![g.0, g.1.w[0], g.1.w[1], g.1.b];
    for point in [[0.4, 0.3, -0.7, 1.3], [-1.2, -0.8, 0.6, -0.4]] {
        let m = Fills {
            w: [point[1], point[2]],
            b: point[3],
        };
        type Oracle = fn(&[Dual]) -> Dual;
        let oracles: [(&str, Oracle); 2] = [
            ("grown", |p| {
                let mut v = vec![p[0] * c(0.5); 3];
                v.push(p[0].sin());
                v.resize(6, p[3]);
                v.insert(1, p[2]);
                v[5] * v[1] + v[4] * p[0] + v[0]
            }),
            ("filled", |p| {
                let mut v = vec![p[0]; 3];
                v[0] = v[0] * c(2.0);
                let s = v[0] + v[1];
                v.fill(p[3]);
                s * v[2] + v[0] * p[1]
            }),
        ];
        let runs = [
            (
                grown_by_a_models_fields_grad(point[0], &m),
                grown_by_a_models_fields_grad_tape(point[0], &m),
            ),
            (
                filled_by_a_models_field_grad(point[0], &m),
                filled_by_a_models_field_grad_tape(point[0], &m),
            ),
        ];
        for ((name, oracle), (got, tape)) in oracles.into_iter().zip(runs) {
            let got = got.expect("compiled");
            let tape = tape.expect("tape");
            let (value, want) = crate::oracle::dual_value_and_gradient(&point, oracle);
            for g in [&got, &tape] {
                crate::support::assert_agree(name, &[g.value], &[value]);
                crate::support::assert_agree(name, &flat(&g.gradient), &want);
            }
        }
    }
}
