//! Long bodies through `#[differentiable]`: past 1,500 source tokens the
//! recording twin calls `__private::outlined` (operands by reference, the
//! label a constant, a recorded first operand the receiver of
//! `Record::record_<op>`) and the gradient keeps the tape instead of the
//! compiled adjoint. One block of statements, written out 16 times,
//! uses each outlined form: a literal first operand, `abs`, `-`, `powi`,
//! `max`/`min`, compound assignments, a cast operand, `hypot`, `powf`, and
//! a loop over references; another, the table's two-operand methods and
//! `abs` named as function values (`reduce(f64::max)`, `map(f64::abs)`).
//! The oracle is the same block carried by hand in dual numbers (forward
//! mode), once per input.

use autodiff::prelude::*;

use crate::oracle::{close, Dual};

#[differentiable]
fn long(x: f64, y: f64) -> f64 {
    let k = 3usize;
    let mut acc = 0.0;
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    acc
}

/// [`long`] with a division by zero after the blocks: the outlined
/// division's error names its source text and line.
#[differentiable]
fn long_failing(x: f64, y: f64) -> f64 {
    let k = 3usize;
    let mut acc = 0.0;
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    let a = 0.5 * x + y * x;
    let b = (a - 1.0).abs();
    let c = -b + a.powi(2) / 3.0;
    let d = c.max(y).min(4.0);
    let mut e = d;
    e += x;
    e -= 0.25 * y;
    e *= 0.9;
    e /= 1.1;
    let m = (k as f64) * e;
    let s = m.hypot(y) - e.max(0.1).powf(1.5);
    acc = acc * 0.5 + s * 0.1;
    for v in [x, y].iter() {
        acc += v * 0.01;
    }
    acc / (x - 0.3)
}

/// The block, 16 times, on the shared oracle's dual numbers.
fn long_dual(x: Dual, y: Dual) -> Dual {
    let k = 3usize;
    let mut acc = Dual::constant(0.0);
    for _ in 0..16 {
        let a = x * 0.5 + y * x;
        let b = (a - 1.0).abs();
        let c = -b + a * a * (1.0 / 3.0);
        let d = c.max(y).min(Dual::constant(4.0));
        let e = (d + x - y * 0.25) * 0.9 / 1.1;
        let m = e * (k as f64);
        let s = m.hypot(y) - e.max(Dual::constant(0.1)).powf(Dual::constant(1.5));
        acc = acc * 0.5 + s * 0.1;
        for v in [x, y] {
            acc = acc + v * 0.01;
        }
    }
    acc
}

#[test]
fn a_long_body_records_and_differentiates_exactly() {
    for (x, y) in [(0.3, 0.7), (1.9, -0.4), (-1.2, 2.5)] {
        let along_x = long_dual(Dual::input(x, true), Dual::constant(y));
        let along_y = long_dual(Dual::constant(x), Dual::input(y, true));
        let got = long_grad(x, y).expect("finite");
        assert!(
            close(got.value, along_x.value, 1e-12),
            "value {} vs {}",
            got.value,
            along_x.value
        );
        assert!(
            close(got.value, long(x, y), 1e-12),
            "value vs the plain twin"
        );
        assert!(
            close(got.gradient.0, along_x.tangent, 1e-12),
            "d/dx {} vs {}",
            got.gradient.0,
            along_x.tangent
        );
        assert!(
            close(got.gradient.1, along_y.tangent, 1e-12),
            "d/dy {} vs {}",
            got.gradient.1,
            along_y.tangent
        );
    }
}

#[test]
fn an_error_in_a_long_body_names_its_operation_and_line() {
    let error = long_failing_grad(0.3, 0.7).unwrap_err();
    assert_eq!(error.code(), "non-finite-result");
    let label = error.label().expect("a label");
    assert_eq!(label.text, "acc / (x - 0.3)");
    let source = include_str!("long_bodies.rs");
    let line = source
        .lines()
        .position(|line| line.trim() == "acc / (x - 0.3)")
        .expect("the failing line")
        + 1;
    assert_eq!(label.line as usize, line);
}

/// A closure in a long body: its parameter, given tracked values, is typed
/// `_` on the tape, so an operation on it must be a free-function call
/// rustc can infer through, not the method chain of other outlined
/// operations (`t * t + ..` as `(t * t).record_add(..)` did not build:
/// E0282, seed 19233 of the random programs). 120 statements make it long.
#[differentiable]
fn long_closure(x: f64) -> f64 {
    let act = |t: f64| t * t + (-1.5 * t).sin() * 0.5;
    let mut acc = x;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc -= act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + 0.1).sin() + act(acc) * 0.03125;
    acc
}

/// [`long_closure`] in dual numbers.
fn long_closure_dual(x: Dual) -> Dual {
    let act = |t: Dual| t * t + (t * -1.5).sin() * 0.5;
    let mut acc = x;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc = acc * 0.5 + act(acc * 0.25 + x) * 0.125;
    acc = acc - act(x - acc * 0.5) * 0.0625;
    acc = (acc * 0.75 + Dual::constant(0.1)).sin() + act(acc) * 0.03125;
    acc
}

#[test]
fn a_closure_in_a_long_body_builds_and_differentiates_exactly() {
    for x in [0.3, -0.8, 1.7] {
        let along = long_closure_dual(Dual::input(x, true));
        let got = long_closure_grad(x).expect("finite");
        assert!(
            close(got.value, along.value, 1e-12),
            "value {} vs {}",
            got.value,
            along.value
        );
        assert!(
            close(got.gradient, along.tangent, 1e-12),
            "d/dx {} vs {}",
            got.gradient,
            along.tangent
        );
    }
}

/// `f64::max`, `f64::min` and `f64::abs` named as function values
/// (`reduce(f64::max)`, `fold(f64::INFINITY, f64::min)`, `map(f64::abs)`)
/// in a long body, where `__ad::max` is the outlined one that borrows its
/// operands (seed 20769 g8_4: the recording twin did not build).
#[differentiable]
fn long_paths(x: &[f64]) -> f64 {
    let mut acc = 0.0;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(f64::max).unwrap() * 0.25;
    acc += x.iter().cloned().fold(f64::INFINITY, f64::min) * 0.125;
    acc -= x.iter().copied().map(f64::abs).sum::<f64>() * 0.0625;
    acc
}

fn long_paths_dual(x: &[Dual]) -> Dual {
    let mut acc = Dual::constant(0.0);
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc = acc * 0.5 + x.iter().copied().reduce(|a, b| a.max(b)).unwrap() * 0.25;
    acc = acc
        + x.iter()
            .fold(Dual::constant(f64::INFINITY), |a, b| a.min(*b))
            * 0.125;
    acc = acc - x.iter().fold(Dual::constant(0.0), |a, b| a + b.abs()) * 0.0625;
    acc
}

#[test]
fn function_values_of_the_table_in_a_long_body_build_and_differentiate_exactly() {
    for x in [vec![0.3, -0.8, 1.7], vec![-2.0, 0.5, 0.25, 1.0]] {
        let got = long_paths_grad(&x).expect("finite");
        for k in 0..x.len() {
            let seeded: Vec<Dual> = x
                .iter()
                .enumerate()
                .map(|(j, &v)| Dual::input(v, j == k))
                .collect();
            let along = long_paths_dual(&seeded);
            assert!(
                close(got.value, along.value, 1e-12),
                "value {} vs {}",
                got.value,
                along.value
            );
            assert!(
                close(got.gradient[k], along.tangent, 1e-12),
                "d/dx{k} {} vs {}",
                got.gradient[k],
                along.tangent
            );
        }
    }
}
