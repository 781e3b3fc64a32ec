//! Long bodies through `#[differentiable]`: past 1,500 source tokens the
//! recording twin calls `__private::outlined` (operands by reference, the
//! label a constant, a recorded first operand the receiver of
//! `Record::record_<op>`) and the gradient keeps the tape instead of the
//! compiled adjoint. One block of statements, written out 16 times,
//! uses each outlined form: a literal first operand, `abs`, `-`, `powi`,
//! `max`/`min`, compound assignments, a cast operand, `hypot`, `powf`, and
//! a loop over references. The oracle is the same block carried by hand
//! in dual numbers (forward mode), once per input.

use autodiff::prelude::*;

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

/// A value and its derivative along one input.
#[derive(Clone, Copy)]
struct Dual {
    v: f64,
    d: f64,
}

impl Dual {
    fn c(v: f64) -> Self {
        Dual { v, d: 0.0 }
    }
    fn add(self, o: Dual) -> Dual {
        Dual {
            v: self.v + o.v,
            d: self.d + o.d,
        }
    }
    fn sub(self, o: Dual) -> Dual {
        Dual {
            v: self.v - o.v,
            d: self.d - o.d,
        }
    }
    fn mul(self, o: Dual) -> Dual {
        Dual {
            v: self.v * o.v,
            d: self.d * o.v + self.v * o.d,
        }
    }
    fn div(self, o: Dual) -> Dual {
        Dual {
            v: self.v / o.v,
            d: (self.d * o.v - self.v * o.d) / (o.v * o.v),
        }
    }
    fn scale(self, k: f64) -> Dual {
        Dual {
            v: self.v * k,
            d: self.d * k,
        }
    }
    fn abs(self) -> Dual {
        let sign = if self.v < 0.0 { -1.0 } else { 1.0 };
        self.scale(sign)
    }
    fn max(self, o: Dual) -> Dual {
        if self.v >= o.v {
            self
        } else {
            o
        }
    }
    fn min(self, o: Dual) -> Dual {
        if self.v <= o.v {
            self
        } else {
            o
        }
    }
    fn hypot(self, o: Dual) -> Dual {
        let h = self.v.hypot(o.v);
        Dual {
            v: h,
            d: (self.v * self.d + o.v * o.d) / h,
        }
    }
    fn powf(self, p: f64) -> Dual {
        Dual {
            v: self.v.powf(p),
            d: p * self.v.powf(p - 1.0) * self.d,
        }
    }
}

/// The block, 16 times, on duals.
fn long_dual(x: Dual, y: Dual) -> Dual {
    let k = 3usize;
    let mut acc = Dual::c(0.0);
    for _ in 0..16 {
        let a = x.scale(0.5).add(y.mul(x));
        let b = a.sub(Dual::c(1.0)).abs();
        let c = b.scale(-1.0).add(a.mul(a).scale(1.0 / 3.0));
        let d = c.max(y).min(Dual::c(4.0));
        let e = d.add(x).sub(y.scale(0.25)).scale(0.9).div(Dual::c(1.1));
        let m = e.scale(k as f64);
        let s = m.hypot(y).sub(e.max(Dual::c(0.1)).powf(1.5));
        acc = acc.scale(0.5).add(s.scale(0.1));
        for v in [x, y] {
            acc = acc.add(v.scale(0.01));
        }
    }
    acc
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + b.abs())
}

#[test]
fn a_long_body_records_and_differentiates_exactly() {
    for (x, y) in [(0.3, 0.7), (1.9, -0.4), (-1.2, 2.5)] {
        let along_x = long_dual(Dual { v: x, d: 1.0 }, Dual::c(y));
        let along_y = long_dual(Dual::c(x), Dual { v: y, d: 1.0 });
        let got = long_grad(x, y).expect("finite");
        assert!(
            close(got.value, along_x.v),
            "value {} vs {}",
            got.value,
            along_x.v
        );
        assert!(close(got.value, long(x, y)), "value vs the plain twin");
        assert!(
            close(got.gradient.0, along_x.d),
            "d/dx {} vs {}",
            got.gradient.0,
            along_x.d
        );
        assert!(
            close(got.gradient.1, along_y.d),
            "d/dy {} vs {}",
            got.gradient.1,
            along_y.d
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
