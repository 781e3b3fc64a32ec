//! [`Dual`]: a number that carries its own derivative along one direction,
//! `value + tangent·ε` with `ε² = 0` (forward mode).
//!
//! Every derivative a `Dual` computes is a rule of [`rules`](crate::rules):
//! `x.tanh()` is `Dual::new(tanh v, tanh_partial(v) · t)`, and an operator's
//! tangent is the sum of its rule's partials times the operands' tangents.
//! The one-operand functions are expanded from the table of operations,
//! so a `Dual` knows every function the tape knows, with the same
//! derivative. Second-order passes run the rules themselves on `Dual`s
//! (they are generic over [`Real`]): the tangent of a local derivative is
//! the second derivative along the direction.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::derivatives::{relu, sigmoid};
use crate::rules::{self, Real};

/// A dual number: a value and its derivative (`tangent`) along one
/// direction. Arithmetic and the elementary functions carry the tangent by
/// the chain rule, so a generic function run on `Dual::variable(x)` gives
/// its value and derivative at `x`:
///
/// ```
/// use autodiff_core::{Dual, Real};
///
/// fn f<R: Real>(x: R) -> R {
///     x * x.sin() + R::lit(1.0)
/// }
/// let y = f(Dual::variable(0.5));
/// assert_eq!(y.value, f(0.5));
/// assert!((y.tangent - (0.5_f64.sin() + 0.5 * 0.5_f64.cos())).abs() < 1e-15);
/// ```
///
/// `Dual` is a [`num_traits::Float`], so code written for any float type
/// runs on it as it is (see the [`Float` impl](#impl-Float-for-Dual)):
///
/// ```
/// use autodiff_core::Dual;
/// use num_traits::Float;
///
/// fn f<T: Float>(x: T) -> T {
///     x.sin() * x.exp() + T::from(2.0).unwrap() * x
/// }
/// let y = f(Dual::variable(0.5));
/// let e = 0.5_f64.exp();
/// assert!((y.tangent - ((0.5_f64.cos() + 0.5_f64.sin()) * e + 2.0)).abs() < 1e-15);
/// ```
///
/// Comparisons (`<`, `==`, `max`'s choice) read the value only: a branch
/// of the program is chosen by values, as the plain function chooses it.
/// At a kink (`abs` at 0, `relu`, `max` at a tie) the tangent is the one
/// the rules pick: `abs` has derivative 0 at 0, `max` splits a tie.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dual {
    /// The number itself.
    pub value: f64,
    /// Its derivative along the direction.
    pub tangent: f64,
}

impl Dual {
    /// `value + tangent·ε`.
    pub const fn new(value: f64, tangent: f64) -> Self {
        Self { value, tangent }
    }

    /// A number that does not move: tangent 0.
    pub const fn constant(value: f64) -> Self {
        Self::new(value, 0.0)
    }

    /// The variable being differentiated by: tangent 1.
    pub const fn variable(value: f64) -> Self {
        Self::new(value, 1.0)
    }

    /// Applies a one-operand function: `f` gives the value, `partial`
    /// (a rule, from the value `v` and the result `y`) the derivative.
    #[inline]
    fn unary(self, f: impl Fn(f64) -> f64, partial: impl Fn(f64, f64) -> f64) -> Self {
        let y = f(self.value);
        Self::new(y, chain(partial(self.value, y), self.tangent))
    }

    /// Applies a two-operand function whose rule gives both partials.
    #[inline]
    fn binary(
        self,
        other: Self,
        f: impl Fn(f64, f64) -> f64,
        partials: impl Fn(f64, f64) -> (f64, f64),
    ) -> Self {
        self.binary_by(other, f, partials, chain)
    }

    /// [`binary`](Self::binary) for a rule whose partials are never
    /// infinite (`+`, `−`: ±1), so that `chain`'s test of the tangent,
    /// which only keeps an infinite partial from meeting a zero tangent,
    /// is left out: `1·t` and `−1·t` are `t` and `−t` exactly. On a
    /// running sum (`z += w[i] * x[i]`) that test sat on the chain of
    /// dependent additions; without it an MLP's dual sweep ran in 0.8 of
    /// the time.
    #[inline]
    fn binary_finite(
        self,
        other: Self,
        f: impl Fn(f64, f64) -> f64,
        partials: impl Fn(f64, f64) -> (f64, f64),
    ) -> Self {
        self.binary_by(other, f, partials, |derivative, tangent| {
            derivative * tangent
        })
    }

    /// The value `f` gives and the tangent `Σ partial × tangent`, each
    /// product taken by `times`.
    #[inline(always)]
    fn binary_by(
        self,
        other: Self,
        f: impl Fn(f64, f64) -> f64,
        partials: impl Fn(f64, f64) -> (f64, f64),
        times: impl Fn(f64, f64) -> f64,
    ) -> Self {
        let (da, db) = partials(self.value, other.value);
        Self::new(
            f(self.value, other.value),
            times(da, self.tangent) + times(db, other.tangent),
        )
    }

    /// `selfⁿ` for an integer `n`.
    pub fn powi(self, n: i32) -> Self {
        self.unary(|v| v.powi(n), |v, _| rules::powi_partial(v, n))
    }
}

/// `derivative × tangent`, and 0 when the tangent is 0: an operand that
/// does not move contributes nothing, even where the derivative is
/// infinite (`x / 0.0` has ∂/∂b infinite, but a constant `b` has no
/// tangent to multiply), as the tape records no edge to a constant.
///
/// A tangent of 0 may also belong to a value that moves with a derivative
/// of 0 (`x³` at 0), whose product with an infinite derivative (`∛` of it)
/// has no value at all: such a meeting is noted on the thread
/// ([`hidden_derivative`]), so that a forward sweep that cannot tell the
/// two apart hands the point to the tape, which can.
#[inline(always)]
fn chain(derivative: f64, tangent: f64) -> f64 {
    if tangent == 0.0 {
        if !derivative.is_finite() {
            note_hidden_derivative();
        }
        0.0
    } else {
        derivative * tangent
    }
}

thread_local! {
    /// See [`hidden_derivative`].
    static HIDDEN_DERIVATIVE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[cold]
#[inline(never)]
fn note_hidden_derivative() {
    HIDDEN_DERIVATIVE.with(|hidden| hidden.set(true));
}

/// Whether, on this thread since [`forget_hidden_derivatives`], an
/// operation on duals met a derivative that is not finite with a tangent
/// of 0, and took the product as 0 (see `chain`): right for an operand
/// that does not move, but for one that moves with a derivative of 0 the
/// directional derivative is not known. A forward sweep (`f_jvp`) that
/// saw this answers from the tape instead.
///
/// ```
/// use autodiff_core::{forget_hidden_derivatives, hidden_derivative, Dual};
///
/// forget_hidden_derivatives();
/// let x = Dual::variable(0.0);
/// let cube = x * x * x; // 0 + 0ε: it moves, at rate 0
/// assert!(!hidden_derivative());
/// let _ = cube.cbrt(); // ∛'(0) = ∞ times 0
/// assert!(hidden_derivative());
/// forget_hidden_derivatives();
/// assert!(!hidden_derivative());
/// ```
pub fn hidden_derivative() -> bool {
    HIDDEN_DERIVATIVE.with(std::cell::Cell::get)
}

/// Starts [`hidden_derivative`] afresh on this thread.
pub fn forget_hidden_derivatives() {
    HIDDEN_DERIVATIVE.with(|hidden| hidden.set(false));
}

/// Each one-operand function of the table (`exp`, `tanh`, `relu`, …) as a
/// `Dual` method: the `f64` function's value, the row's rule for the
/// tangent, called with the operand or the result as the row says. Each
/// two-operand method (`powf`, `max`, `hypot`, `atan2`, …) the same way,
/// its second operand a `Dual` or an `f64` (a constant, tangent 0).
macro_rules! dual_functions {
    ($($variant:ident $name:literal $spelling:ident $(($($how:tt),*))? $operands:literal $rule:ident $(($function:ident))? $absorbs:ident $computes:literal $derivative:literal;)*) => {
        impl Dual {
            $(dual_functions!(@row $spelling $(($($how),*))? $rule $(($function))? $computes $derivative);)*
        }
    };
    // Written below, from the same rule, with a product that does not
    // underflow (`Dual::recip`).
    (@row method(recip, 0) $($rest:tt)*) => {};
    (@row method($method:ident, 0) $($rest:tt)*) => {
        dual_functions!(@emit $method f64::$method, $($rest)*);
    };
    (@row method($method:ident, 1) operands($f:ident) $computes:literal $derivative:literal) => {
        #[doc = concat!($computes, " with `a` = `self` and `b` = `other`, a `Dual` or an `f64` (tangent 0); tangents by the rule ", $derivative, ".")]
        #[inline]
        pub fn $method(self, other: impl Into<Self>) -> Self {
            self.binary(other.into(), f64::$method, rules::$f)
        }
    };
    (@row function(detach) $($rest:tt)*) => {};
    (@row function($function:ident) $($rest:tt)*) => {
        dual_functions!(@emit $function $function, $($rest)*);
    };
    (@row $($other:tt)*) => {};
    (@emit $method:ident $primal:path, $rule:ident $(($f:ident))? $computes:literal $derivative:literal) => {
        #[doc = concat!($computes, " with `a` = `self`; tangent by the rule ", $derivative, ".")]
        #[inline]
        pub fn $method(self) -> Self {
            self.unary($primal, dual_functions!(@partial $rule $(($f))?))
        }
    };
    (@partial operand($f:ident)) => {
        |v, _| rules::$f(v)
    };
    (@partial result($f:ident)) => {
        |_, y| rules::$f(y)
    };
    (@partial zero) => {
        |_, _| 0.0
    };
}

autodiff_ops_table::operations!(dual_functions);

impl Real for Dual {
    #[inline]
    fn lit(value: f64) -> Self {
        Self::constant(value)
    }
    #[inline]
    fn primal(self) -> f64 {
        self.value
    }
    #[inline]
    fn abs(self) -> Self {
        Dual::abs(self)
    }
    #[inline]
    fn exp(self) -> Self {
        Dual::exp(self)
    }
    #[inline]
    fn ln(self) -> Self {
        Dual::ln(self)
    }
    #[inline]
    fn sqrt(self) -> Self {
        Dual::sqrt(self)
    }
    #[inline]
    fn sin(self) -> Self {
        Dual::sin(self)
    }
    #[inline]
    fn cos(self) -> Self {
        Dual::cos(self)
    }
    #[inline]
    fn tanh(self) -> Self {
        Dual::tanh(self)
    }
    #[inline]
    fn sinh(self) -> Self {
        Dual::sinh(self)
    }
    #[inline]
    fn cosh(self) -> Self {
        Dual::cosh(self)
    }
    #[inline]
    fn powi(self, n: i32) -> Self {
        Dual::powi(self, n)
    }
    #[inline]
    fn powf(self, y: Self) -> Self {
        Dual::powf(self, y)
    }
    #[inline]
    fn hypot(self, y: Self) -> Self {
        Dual::hypot(self, y)
    }
}

/// The table's three-operand methods, each as the engine records it.
impl Dual {
    /// `self · a + b` with `f64`'s fused value (one rounding) and the
    /// tangent of the product and the sum, `a`, `b` each a `Dual` or an
    /// `f64` (a constant), as the tape and the compiled adjoint compose it.
    ///
    /// ```
    /// use autodiff_core::Dual;
    ///
    /// let y = Dual::variable(2.0).mul_add(3.0, 1.0);
    /// assert_eq!((y.value, y.tangent), (7.0, 3.0));
    /// ```
    #[inline]
    pub fn mul_add(self, a: impl Into<Self>, b: impl Into<Self>) -> Self {
        let (a, b) = (a.into(), b.into());
        let composed = self * a + b;
        Self::new(self.value.mul_add(a.value, b.value), composed.tangent)
    }

    /// `f64::clamp`'s value (it panics where `f64::clamp` does: `lo > hi`
    /// or a NaN bound), with the tangent of `max(min(self, hi), lo)`, as
    /// the tape records it: `self`'s strictly inside, the bound's it is
    /// clamped to outside, half of each at a tie (`max` and `min`'s rule).
    ///
    /// ```
    /// use autodiff_core::Dual;
    ///
    /// assert_eq!(Dual::variable(0.5).clamp(0.0, 1.0).tangent, 1.0);
    /// assert_eq!(Dual::variable(2.0).clamp(0.0, 1.0).tangent, 0.0);
    /// assert_eq!(Dual::variable(2.0).clamp(0.0, 1.0).value, 1.0);
    /// ```
    #[inline]
    pub fn clamp(self, lo: impl Into<Self>, hi: impl Into<Self>) -> Self {
        let (lo, hi) = (lo.into(), hi.into());
        let value = self.value.clamp(lo.value, hi.value);
        let (x_part, lo_part, hi_part) = rules::clamp_partials(self.value, lo.value, hi.value);
        let tangent =
            chain(x_part, self.tangent) + chain(lo_part, lo.tangent) + chain(hi_part, hi.tangent);
        Self::new(value, tangent)
    }
}

impl From<f64> for Dual {
    /// A constant.
    fn from(value: f64) -> Self {
        Self::constant(value)
    }
}

impl PartialEq for Dual {
    /// Equal values (the tangents are not compared, as a branch reads only
    /// the value).
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl PartialOrd for Dual {
    /// Ordered by value.
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

impl PartialEq<f64> for Dual {
    fn eq(&self, other: &f64) -> bool {
        self.value == *other
    }
}

impl PartialOrd<f64> for Dual {
    fn partial_cmp(&self, other: &f64) -> Option<Ordering> {
        self.value.partial_cmp(other)
    }
}

/// `0.0 < x` as `x > 0.0`: the compiled adjoint on dual numbers runs the
/// student's comparisons with a constant on either side.
impl PartialEq<Dual> for f64 {
    fn eq(&self, other: &Dual) -> bool {
        *self == other.value
    }
}

impl PartialOrd<Dual> for f64 {
    fn partial_cmp(&self, other: &Dual) -> Option<Ordering> {
        self.partial_cmp(&other.value)
    }
}

impl fmt::Display for Dual {
    /// `value + tangentε`, each as `f64` displays it (with the precision
    /// given, if any).
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.value, formatter)?;
        formatter.write_str(if self.tangent.is_sign_negative() {
            " - "
        } else {
            " + "
        })?;
        fmt::Display::fmt(&self.tangent.abs(), formatter)?;
        formatter.write_str("ε")
    }
}

impl Neg for Dual {
    type Output = Self;
    fn neg(self) -> Self {
        self.unary(|v| -v, |v, _| rules::neg_partial(v))
    }
}

impl Neg for &Dual {
    type Output = Dual;
    #[inline]
    fn neg(self) -> Dual {
        -*self
    }
}

/// `Dual ∘ Dual`, `Dual ∘ f64` and `f64 ∘ Dual` for an operator, with its
/// rule, and the assigning form. `@forms` writes all but `Dual ∘ Dual`
/// from it (`%`, whose `Dual ∘ Dual` is composed, in `float.rs`).
macro_rules! dual_operator {
    ($Trait:ident $method:ident $Assign:ident $assign:ident $op:tt $binary:ident $rule:path) => {
        impl $Trait for Dual {
            type Output = Dual;
            #[inline]
            fn $method(self, rhs: Dual) -> Dual {
                self.$binary(rhs, |a, b| a $op b, $rule)
            }
        }
        dual_operator!(@forms $Trait $method $Assign $assign $op);
    };
    (@forms $Trait:ident $method:ident $Assign:ident $assign:ident $op:tt) => {
        impl $Trait<f64> for Dual {
            type Output = Dual;
            #[inline]
            fn $method(self, rhs: f64) -> Dual {
                self $op Dual::constant(rhs)
            }
        }
        impl $Trait<Dual> for f64 {
            type Output = Dual;
            #[inline]
            fn $method(self, rhs: Dual) -> Dual {
                Dual::constant(self) $op rhs
            }
        }
        dual_operator!(@assigns $Trait $method $Assign $assign $op);
    };
    // The assigning forms and those by reference, from the forms by value.
    (@assigns $Trait:ident $method:ident $Assign:ident $assign:ident $op:tt) => {
        impl $Assign for Dual {
            #[inline]
            fn $assign(&mut self, rhs: Dual) {
                *self = *self $op rhs;
            }
        }
        impl $Assign<f64> for Dual {
            #[inline]
            fn $assign(&mut self, rhs: f64) {
                *self = *self $op rhs;
            }
        }
        dual_operator!(@refs $Trait $method $Assign $assign $op (Dual, Dual) (Dual, f64) (f64, Dual));
    };
    // The forms by reference that `f64` has (`&a * b`, `a += &b`), so that
    // code written over `&f64` items (`x.iter().map(|v| v * v)`) runs on
    // `&Dual` items too.
    (@refs $Trait:ident $method:ident $Assign:ident $assign:ident $op:tt $(($A:ty, $B:ty))*) => {$(
        impl $Trait<&$B> for $A {
            type Output = Dual;
            #[inline]
            fn $method(self, rhs: &$B) -> Dual {
                self $op *rhs
            }
        }
        impl $Trait<$B> for &$A {
            type Output = Dual;
            #[inline]
            fn $method(self, rhs: $B) -> Dual {
                *self $op rhs
            }
        }
        impl $Trait<&$B> for &$A {
            type Output = Dual;
            #[inline]
            fn $method(self, rhs: &$B) -> Dual {
                *self $op *rhs
            }
        }
    )*
        impl $Assign<&Dual> for Dual {
            #[inline]
            fn $assign(&mut self, rhs: &Dual) {
                *self = *self $op *rhs;
            }
        }
        impl $Assign<&f64> for Dual {
            #[inline]
            fn $assign(&mut self, rhs: &f64) {
                *self = *self $op *rhs;
            }
        }
    };
}

// Partials ±1, never infinite: no test of the tangents.
dual_operator!(Add add AddAssign add_assign + binary_finite rules::add_partials);
dual_operator!(Sub sub SubAssign sub_assign - binary_finite rules::sub_partials);
impl Mul for Dual {
    type Output = Dual;
    #[inline]
    fn mul(self, rhs: Dual) -> Dual {
        self.binary(rhs, |a, b| a * b, rules::mul_partials)
    }
}

/// `Dual × f64`: what the binary rule (`binary`) gives for a constant
/// factor `c` (tangent 0), without its tests: the tangent is `c·t + 0`
/// (`chain(c, t) + chain(v, 0)`, bit for bit, `−0` made `+0` as there),
/// and the partials `chain` would test for an infinity (`c`, `v`) are
/// infinite only where the product's value is not finite, which the
/// sweeps check anyway. On a running sum (`z += w[i] * x[i]`) the tests
/// kept `z` in memory around the cold call; without them an MLP's dual
/// sweep runs in about half the time.
impl Mul<f64> for Dual {
    type Output = Dual;
    #[inline]
    fn mul(self, rhs: f64) -> Dual {
        Dual::new(self.value * rhs, rhs * self.tangent + 0.0)
    }
}

/// `f64 × Dual`, as `Dual × f64` is: the tangent `0 + c·t`.
impl Mul<Dual> for f64 {
    type Output = Dual;
    #[inline]
    fn mul(self, rhs: Dual) -> Dual {
        Dual::new(self * rhs.value, 0.0 + self * rhs.tangent)
    }
}
dual_operator!(@assigns Mul mul MulAssign mul_assign *);
/// `a / b`, its tangent from the rule `div_partials`, `ȧ·(1/b) +
/// ḃ·(−(a/b)/b)`: except where a product underflows while the tangent it
/// stands for does not (see `rescued`), which is then `ȧ/b` and
/// `−(a/b)·(ḃ/b)`. `1/eˣ` at `x = 400`, on the way to the Hessian of
/// `ln Σ eᶻ` with large logits: `−(1/b)/b` is below the smallest `f64`
/// and its product with `ḃ = b·v` was 0, where the tangent is `−v/b`.
impl Div for Dual {
    type Output = Dual;
    #[inline]
    fn div(self, rhs: Dual) -> Dual {
        let (a, b) = (self.value, rhs.value);
        let (da, db) = rules::div_partials(a, b);
        let q = a / b;
        let ta = rescued(da, self.tangent, || self.tangent / b);
        let tb = rescued(db, rhs.tangent, || -(q * (rhs.tangent / b)));
        Dual::new(q, ta + tb)
    }
}
dual_operator!(@forms Div div DivAssign div_assign /);

impl Dual {
    /// `1 / self`, its tangent `ṫ · recip_partial(y) = −y²·ṫ` by the rule,
    /// or `−y·(y·ṫ)` where `y²` underflows and the tangent does not
    /// (see `rescued`).
    #[inline]
    pub fn recip(self) -> Self {
        let y = self.value.recip();
        let tangent = rescued(rules::recip_partial(y), self.tangent, || {
            -(y * (y * self.tangent))
        });
        Self::new(y, tangent)
    }
}

/// The tangent `partial × ṫ` as the rule gives it (`chain`), unless the
/// partial or the product is out of `f64`'s normal range where `ṫ` is not
/// 0 (a partial that underflowed to 0 or to a subnormal, which keeps a few
/// of its digits): then the same product associated otherwise (`other`),
/// where that one is finite and not 0. A tangent whose partial and product
/// are in range is the rule's, bit for bit.
#[inline(always)]
fn rescued(partial: f64, tangent: f64, other: impl FnOnce() -> f64) -> f64 {
    let by_rule = chain(partial, tangent);
    if tangent == 0.0 || (partial.is_normal() && by_rule.is_normal()) {
        return by_rule;
    }
    let other = other();
    if other.is_finite() && (other != 0.0 || !by_rule.is_finite()) {
        other
    } else {
        by_rule
    }
}

// After `dual_operator!`, which it uses for `%`.
mod float;

impl std::iter::Sum for Dual {
    /// From −0.0, as `f64`'s: no items sum to −0.0, and −0.0 + x is x.
    fn sum<I: Iterator<Item = Dual>>(iter: I) -> Dual {
        iter.fold(Dual::constant(-0.0), |a, b| a + b)
    }
}

impl<'a> std::iter::Sum<&'a Dual> for Dual {
    /// As the sum of the items by value (`x.iter().sum()`).
    fn sum<I: Iterator<Item = &'a Dual>>(iter: I) -> Dual {
        iter.copied().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tangents_match_closed_forms() {
        let x = Dual::variable(0.7);
        let y = x.tanh();
        let c = 0.7_f64.cosh();
        assert!((y.tangent - 1.0 / (c * c)).abs() < 1e-15);
        let y = x.exp().ln();
        assert!((y.tangent - 1.0).abs() < 1e-15);
        let y = (x * x).sqrt();
        assert!((y.tangent - 1.0).abs() < 1e-15);
        let y = x.powf(Dual::constant(3.0));
        assert!((y.tangent - 3.0 * 0.49).abs() < 1e-15);
        let y = 2.0 / x;
        assert!((y.tangent + 2.0 / 0.49).abs() < 1e-14);
        assert_eq!(x.relu().tangent, 1.0);
        assert_eq!((-x).relu().tangent, 0.0);
        assert_eq!(Dual::variable(0.0).abs().tangent, 0.0);
        let s = sigmoid(0.7);
        assert!((x.sigmoid().tangent - s * (1.0 - s)).abs() < 1e-16);
        assert_eq!(relu(-1.0), 0.0);
    }

    #[test]
    fn a_quotients_tangent_survives_a_partial_below_the_range() {
        // b = e⁴⁰⁰ moving as b·v: ∂(1/b)/∂b = −1/b² is below the smallest
        // f64 (0 at 400, subnormal at 360), the tangent −v/b is not.
        for x in [360.0_f64, 400.0, 700.0] {
            let b = Dual::new(x.exp(), x.exp() * 0.5);
            let want = -0.5 / x.exp();
            for got in [Dual::constant(1.0) / b, b.recip(), 1.0 / b] {
                assert!((got.tangent / want - 1.0).abs() < 1e-14, "{x}: {got:?}");
            }
            let y = Dual::new(3.0, -1.0) / b;
            let want = -1.0 / x.exp() - 3.0 * 0.5 / x.exp();
            assert!((y.tangent / want - 1.0).abs() < 1e-14, "{x}: {y:?}");
        }
        // In range, the rule's product bit for bit.
        let (a, b) = (Dual::new(1.5, 0.25), Dual::new(-2.0, 0.75));
        let (da, db) = rules::div_partials(1.5, -2.0);
        assert_eq!((a / b).tangent.to_bits(), (da * 0.25 + db * 0.75).to_bits());
        assert_eq!(b.recip().tangent.to_bits(), (-(0.25_f64) * 0.75).to_bits());
    }

    #[test]
    fn a_constant_operand_contributes_nothing_even_at_a_pole() {
        // ∂(a/b)/∂b is infinite at b = 0, but b does not move.
        let y = Dual::variable(1.0) / 0.0;
        assert!(y.value.is_infinite());
        assert!(y.tangent.is_infinite());
        let y = Dual::constant(1.0) / Dual::variable(2.0);
        assert_eq!(y.tangent, -0.25);
        let y = Dual::variable(3.0) * Dual::constant(f64::INFINITY);
        assert!(y.tangent.is_infinite());
        let y = Dual::constant(0.0) * Dual::new(2.0, 0.0);
        assert_eq!(y.tangent, 0.0);
    }

    #[test]
    fn a_product_with_a_number_is_the_product_with_its_constant() {
        // `Dual × f64` and `f64 × Dual` skip `binary`'s tests: bit for bit
        // the same value and tangent as the product with the number made a
        // constant dual, for every finite operand (zeros of both signs,
        // tiny and huge ones, a zero tangent); with a number that is not
        // finite, or a value that is not, the value is not finite either.
        let parts = [0.0, -0.0, 1.5, -2.25, 1e-310, -1e308, 7.0e300];
        for &v in &parts {
            for &t in &parts {
                for &c in &parts {
                    let d = Dual::new(v, t);
                    for (got, want) in [
                        (d * c, d * Dual::constant(c)),
                        (c * d, Dual::constant(c) * d),
                    ] {
                        assert_eq!(got.value.to_bits(), want.value.to_bits(), "{v} {t} {c}");
                        assert_eq!(got.tangent.to_bits(), want.tangent.to_bits(), "{v} {t} {c}");
                    }
                }
            }
        }
        for c in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
            assert!(!(Dual::new(0.0, 1.0) * c).value.is_finite());
            assert!(!(c * Dual::new(2.0, 0.0)).value.is_finite());
            assert!(!(Dual::new(c, 0.0) * 3.0).value.is_finite());
        }
    }

    #[test]
    fn sums_and_differences_add_the_tangents_as_they_are() {
        // The partials are ±1, so no tangent is tested against zero: the
        // tangent is the tangents' sum or difference, bit for bit, for
        // every kind of operand (a NaN tangent stays a NaN).
        let parts = [0.0, -0.0, 1.5, -2.25, 1e308, f64::INFINITY, f64::NAN];
        for &ta in &parts {
            for &tb in &parts {
                let (a, b) = (Dual::new(0.5, ta), Dual::new(-3.0, tb));
                for (got, want) in [((a + b).tangent, ta + tb), ((a - b).tangent, ta - tb)] {
                    assert!(
                        got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                        "{ta} ± {tb}: {got} against {want}"
                    );
                }
            }
        }
        assert_eq!((Dual::variable(2.0) - 5.0).tangent, 1.0);
        assert_eq!((5.0 - Dual::variable(2.0)).tangent, -1.0);
    }

    #[test]
    fn displays_value_and_tangent() {
        assert_eq!(Dual::new(1.5, -2.0).to_string(), "1.5 - 2ε");
        assert_eq!(format!("{:.2}", Dual::new(1.0, 0.25)), "1.00 + 0.25ε");
    }
}
