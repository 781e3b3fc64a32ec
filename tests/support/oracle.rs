//! What the integration tests check gradients with: forward-mode dual
//! numbers, an oracle independent of the crate, the tolerances the
//! comparisons are stated in, and [`Flat`], a gradient of any shape read
//! as its components. Shared through `#[path]` by every test binary
//! that needs them (in `tests/` and in `autodiff-core/tests/`), so not every
//! item is used by every includer. Nothing here touches the crate under test
//! (not `autodiff::Dual`, not its derivative rules): `autodiff-core`'s tests
//! include this file too, and the random-function generator of
//! `tests/random_functions.rs` includes it in the programs it writes.
//!
//! # Dual numbers
//!
//! One `Dual` carries a primal value, its derivative along one input
//! direction, and `magnitude`: the same derivative computed with every
//! partial replaced by its absolute value. `|tangent| <= magnitude`, and
//! `magnitude` is what floating-point rounding in a chain-rule sum scales
//! with, so `|reverse - tangent| <= tol * magnitude` is a relative test
//! that stays meaningful when paths cancel (`x - x`) and the derivative is 0.
//!
//! Derivative rules are written from the textbook here, not copied from the
//! engine, and some take a different form on purpose (`tanh' = 1/cosh²`,
//! `σ' = e^-|x| / (1 + e^-|x|)²`, `∂(a^b)/∂a = b·a^b/a`), so a wrong rule in
//! one place does not hide behind the same wrong rule in the other. Primal
//! values use the plain `f64` operations, which IEEE 754 fixes bit for bit,
//! so both sides differentiate at exactly the same points.
//!
//! Kinks follow the engine's documented choices: `abs' (0) = 0`,
//! `relu'(0) = 0`, and a tie in `max`/`min` gives each operand 1/2; a
//! `Dual` that went through one says so (`kink`).
//!
//! `+ - * /` take a `Dual` or an `f64` on the right (an `f64` is a
//! constant), so an oracle twin reads like the function it checks:
//! `(d + x - y * 0.25) * 0.9`. One forward pass gives the derivative along
//! the one input made with `Dual::input(v, true)`.

// ---------------------------------------------------------------------
// Dual numbers.
// ---------------------------------------------------------------------

/// A value, its derivative along one input, and that derivative's
/// magnitude (see the module's documentation).
#[derive(Clone, Copy, Debug)]
pub struct Dual {
    pub value: f64,
    pub tangent: f64,
    pub magnitude: f64,
    /// Whether a chain-rule product fell below the normal range on the way
    /// (`1e-200 · 1e-200`): the tangent may then have lost all its digits,
    /// while the reverse pass, multiplying in the other order, need not.
    pub underflow: bool,
    /// Whether a derivative on the way was a kink's choice (`abs'(0) = 0`,
    /// `relu'(0) = 0`, a tie in `max`/`min`) for a value that carries one:
    /// the first derivative is the documented one, but a second derivative
    /// through it is the choice's (`|s|·|s|` at `s = 0` has `0` for `2`),
    /// not the function's.
    pub kink: bool,
    /// Whether the value is made of the seeded input at all, whatever its
    /// derivative here (`sin(x)²` at 0 has none, and a second one).
    pub depends: bool,
}

/// `derivative · tangent`, and whether it underflowed.
fn chain(derivative: f64, tangent: f64) -> (f64, bool) {
    // No dependence stays none: an infinite local derivative (`sqrt` at
    // 0) of a value that does not depend on the seeded input is not NaN.
    if tangent == 0.0 {
        return (0.0, false);
    }
    let product = derivative * tangent;
    let lost = derivative != 0.0 && tangent != 0.0 && product.abs() < f64::MIN_POSITIVE;
    (product, lost)
}

impl Dual {
    /// An input: tangent 1 along its own direction, 0 along the others.
    pub fn input(value: f64, seeded: bool) -> Self {
        let t = if seeded { 1.0 } else { 0.0 };
        Self {
            value,
            tangent: t,
            magnitude: t,
            underflow: false,
            kink: false,
            depends: seeded,
        }
    }

    /// A constant: no derivative in any direction.
    pub fn constant(value: f64) -> Self {
        Self {
            value,
            tangent: 0.0,
            magnitude: 0.0,
            underflow: false,
            kink: false,
            depends: false,
        }
    }

    fn unary(self, value: f64, derivative: f64) -> Self {
        let (tangent, lost_t) = chain(derivative, self.tangent);
        let (magnitude, lost_m) = chain(derivative.abs(), self.magnitude);
        Self {
            value,
            tangent,
            magnitude,
            underflow: self.underflow || lost_t || lost_m,
            kink: self.kink,
            depends: self.depends,
        }
    }

    fn binary(self, other: Self, value: f64, da: f64, db: f64) -> Self {
        let (a, lost_a) = chain(da, self.tangent);
        let (b, lost_b) = chain(db, other.tangent);
        let (ma, lost_ma) = chain(da.abs(), self.magnitude);
        let (mb, lost_mb) = chain(db.abs(), other.magnitude);
        Self {
            value,
            tangent: a + b,
            magnitude: ma + mb,
            underflow: self.underflow || other.underflow || lost_a || lost_b || lost_ma || lost_mb,
            kink: self.kink || other.kink,
            depends: self.depends || other.depends,
        }
    }

    /// `self` with `kink` set where `at_kink` and an operand is made of
    /// the seeded input: even with no first derivative there (`|sin(x)²|`
    /// at 0), the second derivative through the kink is its choice's.
    fn kinked(mut self, at_kink: bool, operands: &[Self]) -> Self {
        self.kink |= at_kink && operands.iter().any(|o| o.depends);
        self
    }

    pub fn max(self, o: Self) -> Self {
        let (da, db) = tie_split(self.value, o.value);
        self.binary(o, self.value.max(o.value), da, db)
            .kinked(self.value == o.value, &[self, o])
    }

    pub fn min(self, o: Self) -> Self {
        let (db, da) = tie_split(self.value, o.value);
        self.binary(o, self.value.min(o.value), da, db)
            .kinked(self.value == o.value, &[self, o])
    }

    /// a^b = e^(b ln a): ∂/∂a = b·a^b / a, ∂/∂b = a^b ln a. The exponent
    /// partial only matters when the exponent carries a tangent, which the
    /// tests allow only for a positive base.
    pub fn powf(self, o: Self) -> Self {
        let value = self.value.powf(o.value);
        let da = if o.value == 0.0 {
            0.0
        } else {
            // b·a^b/a, unless a^b underflowed and took its digits along.
            if value.is_normal() {
                o.value * value / self.value
            } else {
                o.value * self.value.powf(o.value - 1.0)
            }
        };
        let db = if o.tangent == 0.0 && o.magnitude == 0.0 {
            0.0
        } else {
            value * self.value.ln()
        };
        self.binary(o, value, da, db)
    }

    pub fn powi(self, n: i32) -> Self {
        let value = self.value.powi(n);
        let derivative = match (n, self.value == 0.0) {
            (0, _) => 0.0,
            (1, true) => 1.0,
            (_, true) => 0.0, // n >= 2: x^(n-1) vanishes at 0
            (_, false) if value.is_normal() => f64::from(n) * value / self.value,
            (_, false) => f64::from(n) * self.value.powi(n - 1), // x^n underflowed
        };
        self.unary(value, derivative)
    }

    pub fn exp(self) -> Self {
        let e = self.value.exp();
        self.unary(e, e)
    }

    pub fn ln(self) -> Self {
        self.unary(self.value.ln(), self.value.recip())
    }

    pub fn tanh(self) -> Self {
        let c = self.value.cosh();
        self.unary(self.value.tanh(), 1.0 / (c * c))
    }

    pub fn sin(self) -> Self {
        self.unary(self.value.sin(), self.value.cos())
    }

    pub fn cos(self) -> Self {
        self.unary(self.value.cos(), -self.value.sin())
    }

    pub fn sqrt(self) -> Self {
        let r = self.value.sqrt();
        self.unary(r, 1.0 / (r + r))
    }

    /// √(a² + b²): ∂/∂a = a/h, ∂/∂b = b/h.
    pub fn hypot(self, o: Self) -> Self {
        let h = self.value.hypot(o.value);
        self.binary(o, h, self.value / h, o.value / h)
    }

    /// The angle of the point `(o, self)`: ∂/∂self = o/(self² + o²),
    /// ∂/∂o = −self/(self² + o²), on the point scaled to its largest
    /// coordinate so that the sum of squares neither under- nor overflows.
    pub fn atan2(self, o: Self) -> Self {
        let (y, x) = (self.value, o.value);
        let s = y.abs().max(x.abs());
        let (ys, xs) = (y / s, x / s);
        let r2 = ys * ys + xs * xs;
        self.binary(o, y.atan2(x), xs / r2 / s, -ys / r2 / s)
    }

    pub fn abs(self) -> Self {
        let d = if self.value == 0.0 {
            0.0
        } else {
            self.value.signum()
        };
        self.unary(self.value.abs(), d)
            .kinked(self.value == 0.0, &[self])
    }

    pub fn recip(self) -> Self {
        self.unary(self.value.recip(), -1.0 / (self.value * self.value))
    }

    pub fn relu(self) -> Self {
        if self.value > 0.0 {
            self.unary(self.value, 1.0)
        } else {
            self.unary(0.0, 0.0).kinked(self.value == 0.0, &[self])
        }
    }

    pub fn sigmoid(self) -> Self {
        let e = (-self.value.abs()).exp();
        let d = e / ((1.0 + e) * (1.0 + e));
        self.unary(sigmoid(self.value), d)
    }
}

/// The arithmetic operators, with an `f64` operand taken as a constant.
macro_rules! operators {
    ($($trait:ident $method:ident ($a:ident, $b:ident) => $value:expr, $da:expr, $db:expr;)*) => {$(
        impl std::ops::$trait for Dual {
            type Output = Dual;
            fn $method(self, o: Dual) -> Dual {
                let ($a, $b) = (self.value, o.value);
                self.binary(o, $value, $da, $db)
            }
        }

        impl std::ops::$trait<f64> for Dual {
            type Output = Dual;
            fn $method(self, o: f64) -> Dual {
                std::ops::$trait::$method(self, Dual::constant(o))
            }
        }
    )*};
}

operators! {
    Add add(a, b) => a + b, 1.0, 1.0;
    Sub sub(a, b) => a - b, 1.0, -1.0;
    Mul mul(a, b) => a * b, b, a;
    // (a/b)' = (a'b − ab') / b².
    Div div(a, b) => a / b, b / (b * b), -a / (b * b);
}

impl std::ops::Neg for Dual {
    type Output = Dual;
    fn neg(self) -> Dual {
        self.unary(-self.value, -1.0)
    }
}

/// `∂max(a, b)/∂a, ∂max(a, b)/∂b`, halves at a tie.
fn tie_split(a: f64, b: f64) -> (f64, f64) {
    if a > b {
        (1.0, 0.0)
    } else if a < b {
        (0.0, 1.0)
    } else {
        (0.5, 0.5)
    }
}

/// The logistic function in its overflow-free form: `1/(1+e^-x)` for
/// `x >= 0`, `e^x/(1+e^x)` below. Written out here so that the oracle's
/// primal values match the engine's to the bit without calling it.
pub fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// The value and gradient of `f` at `x` by one forward pass per input,
/// each seeding its own input (`Dual::input(v, true)`) and no other. Every
/// pass computes the same value; an empty `x` runs no pass and gives 0.
pub fn dual_value_and_gradient(x: &[f64], f: impl Fn(&[Dual]) -> Dual) -> (f64, Vec<f64>) {
    let mut value = 0.0;
    let gradient = (0..x.len())
        .map(|k| {
            let seeded: Vec<Dual> = x
                .iter()
                .enumerate()
                .map(|(j, &v)| Dual::input(v, j == k))
                .collect();
            let out = f(&seeded);
            value = out.value;
            out.tangent
        })
        .collect();
    (value, gradient)
}

/// The gradient of `f` at `x` by one forward pass per input.
pub fn dual_gradient(x: &[f64], f: impl Fn(&[Dual]) -> Dual) -> Vec<f64> {
    dual_value_and_gradient(x, f).1
}

// ---------------------------------------------------------------------
// Tolerances.
// ---------------------------------------------------------------------

/// `|a − b| ≤ tol · max(|a|, |b|, 1)`: relative for values above 1,
/// absolute below (near zero a relative error means nothing).
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

/// `|a − b| ≤ tol · scale`: relative to a scale the caller chooses (the
/// largest component of a gradient, so that a component that cancels to
/// ~0 is judged against the terms that cancelled; `1.0` for an absolute
/// bound). A zero scale counts as 1e-300, so that equal values pass.
pub fn close_to_scale(a: f64, b: f64, tol: f64, scale: f64) -> bool {
    (a - b).abs() <= tol * scale.max(1e-300)
}

/// Panics with both values when they are not [`close`].
#[track_caller]
pub fn assert_close(got: f64, want: f64, tol: f64) {
    assert!(close(got, want, tol), "got {got}, want {want} (tol {tol})");
}

/// Panics with both slices when any component is not [`close`].
#[track_caller]
pub fn assert_all_close(got: &[f64], want: &[f64], tol: f64) {
    assert_all_close_named(got, want, tol, "");
}

/// [`assert_all_close`], naming what is compared in the message.
#[track_caller]
pub fn assert_all_close_named(got: &[f64], want: &[f64], tol: f64, what: &str) {
    let what = if what.is_empty() {
        String::new()
    } else {
        format!("{what}: ")
    };
    assert_eq!(
        got.len(),
        want.len(),
        "{what}lengths of {got:?} and {want:?}"
    );
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            close(*g, *w, tol),
            "{what}component {i}: got {g}, want {w} (tol {tol})\n got  {got:?}\n want {want:?}"
        );
    }
}

/// Every component of `got` within `tol` of `want`'s, relative to the
/// largest `|want|` ([`close_to_scale`]): two computations of one gradient
/// add the same terms in other orders, so they differ by a few ulps of the
/// largest term, not of each component.
#[track_caller]
pub fn assert_near(name: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{name}: lengths");
    let scale = want.iter().fold(0.0_f64, |m, g| m.max(g.abs()));
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            close_to_scale(*a, *b, tol, scale),
            "{name}: component {k}: got {a}, want {b}"
        );
    }
}

// ---------------------------------------------------------------------
// Gradients as components.
// ---------------------------------------------------------------------

/// A gradient of any shape (`f64`, arrays, `Vec`s, tuples of them) as one
/// run of numbers, to compare component by component.
pub trait Flat {
    fn flat(&self, out: &mut Vec<f64>);

    /// The components in order.
    fn components(&self) -> Vec<f64> {
        let mut out = Vec::new();
        self.flat(&mut out);
        out
    }
}

impl Flat for f64 {
    fn flat(&self, out: &mut Vec<f64>) {
        out.push(*self);
    }
}

impl<T: Flat, const N: usize> Flat for [T; N] {
    fn flat(&self, out: &mut Vec<f64>) {
        self.iter().for_each(|item| item.flat(out));
    }
}

impl<T: Flat> Flat for Vec<T> {
    fn flat(&self, out: &mut Vec<f64>) {
        self.iter().for_each(|item| item.flat(out));
    }
}

impl<A: Flat, B: Flat> Flat for (A, B) {
    fn flat(&self, out: &mut Vec<f64>) {
        self.0.flat(out);
        self.1.flat(out);
    }
}

impl<A: Flat, B: Flat, C: Flat> Flat for (A, B, C) {
    fn flat(&self, out: &mut Vec<f64>) {
        self.0.flat(out);
        self.1.flat(out);
        self.2.flat(out);
    }
}

impl<A: Flat, B: Flat, C: Flat, D: Flat> Flat for (A, B, C, D) {
    fn flat(&self, out: &mut Vec<f64>) {
        self.0.flat(out);
        self.1.flat(out);
        self.2.flat(out);
        self.3.flat(out);
    }
}
