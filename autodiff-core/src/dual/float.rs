//! [`Dual`] as a [`num_traits::Float`], so that a student's generic float
//! code, `fn f<T: Float>(x: T) -> T`, runs on `Dual::variable(x)` and
//! gives the derivative along with the value.
//!
//! No derivative is written here. Each method is one of four kinds:
//!
//! - a function with a rule: the `Dual` method expanded from the table of
//!   operations or written beside it (`exp`, `floor`, `powf`, `hypot`,
//!   …), called by path (`Dual::exp(self)`): in method-call syntax the
//!   inherent method wins anyway, and a path cannot recurse into the
//!   trait's by mistake (`atan2` is one of them);
//! - composed of those: `trunc` (`floor` or `ceil`), `fract`,
//!   `abs_sub` (`relu` of the difference), `mul_add`, `to_degrees`,
//!   `to_radians`, `sin_cos`, and `%`. Where the composition rounds
//!   differently from the `f64` function (`mul_add` is fused, `%` exact),
//!   the value is the `f64` function's and only the tangent is the
//!   composition's ([`valued`]);
//! - a choice of one operand: `clamp`, the tape's `max(min(x, hi), lo)`
//!   (an operand's tangent, half of two at a tie), and `Float`'s own
//!   `copysign`, the number or its negation;
//! - constants (tangent 0) and predicates, which read the value.

use std::f64::consts::PI;
use std::num::FpCategory;
use std::ops::{Rem, RemAssign};

use num_traits::{Float, FromPrimitive, Num, NumCast, One, ToPrimitive, Zero};

use super::Dual;

/// The `f64` function's `value` with the tangent of `composed`, an
/// expression of `Dual` operations equal to the function in exact
/// arithmetic but rounded differently (`a·b + c` against a fused
/// `mul_add`): the value stays the plain function's, bit for bit.
#[inline]
fn valued(value: f64, composed: Dual) -> Dual {
    Dual::new(value, composed.tangent)
}

impl Rem for Dual {
    type Output = Dual;
    /// `a % b` as `f64` computes it (the remainder of truncated division,
    /// exact), with the tangent of `a − trunc(a/b)·b`: `ȧ − trunc(a/b)·ḃ`,
    /// the quotient a step.
    #[inline]
    fn rem(self, rhs: Dual) -> Dual {
        let quotient = Float::trunc(self / rhs);
        valued(self.value % rhs.value, self - quotient * rhs)
    }
}

dual_operator!(@forms Rem rem RemAssign rem_assign %);

impl Zero for Dual {
    fn zero() -> Self {
        Self::constant(0.0)
    }
    fn is_zero(&self) -> bool {
        self.value == 0.0
    }
}

impl One for Dual {
    fn one() -> Self {
        Self::constant(1.0)
    }
}

impl Num for Dual {
    type FromStrRadixErr = <f64 as Num>::FromStrRadixErr;
    /// Parses the value as `f64` does: a constant.
    fn from_str_radix(text: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        <f64 as Num>::from_str_radix(text, radix).map(Self::constant)
    }
}

/// Each conversion reads the value, as `f64`'s.
macro_rules! to_primitive {
    ($($method:ident -> $t:ty),*) => {
        impl ToPrimitive for Dual {
            $(
                #[inline]
                fn $method(&self) -> Option<$t> {
                    ToPrimitive::$method(&self.value)
                }
            )*
        }
    };
}

to_primitive!(
    to_isize -> isize, to_i8 -> i8, to_i16 -> i16, to_i32 -> i32, to_i64 -> i64, to_i128 -> i128,
    to_usize -> usize, to_u8 -> u8, to_u16 -> u16, to_u32 -> u32, to_u64 -> u64, to_u128 -> u128,
    to_f32 -> f32, to_f64 -> f64
);

/// Each conversion gives a constant, the value `f64`'s gives.
macro_rules! from_primitive {
    ($($method:ident($t:ty)),*) => {
        impl FromPrimitive for Dual {
            $(
                #[inline]
                fn $method(n: $t) -> Option<Self> {
                    <f64 as FromPrimitive>::$method(n).map(Self::constant)
                }
            )*
        }
    };
}

from_primitive!(
    from_isize(isize),
    from_i8(i8),
    from_i16(i16),
    from_i32(i32),
    from_i64(i64),
    from_i128(i128),
    from_usize(usize),
    from_u8(u8),
    from_u16(u16),
    from_u32(u32),
    from_u64(u64),
    from_u128(u128),
    from_f32(f32),
    from_f64(f64)
);

impl NumCast for Dual {
    /// A constant: `T::from(2.0).unwrap()` in generic code.
    fn from<T: ToPrimitive>(n: T) -> Option<Self> {
        <f64 as NumCast>::from(n).map(Self::constant)
    }
}

/// Generic float code runs on `Dual` and gives the derivative: the
/// function below, written once for any [`Float`], evaluated on
/// `Dual::variable(x0)`, gives `f(x0)` and `f'(x0)`.
///
/// ```
/// use autodiff_core::Dual;
/// use num_traits::Float;
///
/// fn f<T: Float>(x: T) -> T {
///     x.sin() * x.exp() + T::from(2.0).unwrap() * x
/// }
///
/// let x0 = 0.8;
/// let y = f(Dual::variable(x0));
/// assert_eq!(y.value, f(x0));
/// let closed_form = x0.cos() * x0.exp() + x0.sin() * x0.exp() + 2.0;
/// assert!((y.tangent - closed_form).abs() < 1e-15);
/// ```
///
/// Every tangent comes from a rule of [`rules`](crate::rules) or from a
/// composition of `Dual` operations that have one: `trunc` is `floor`
/// or `ceil` by the sign, `fract` is `x − trunc x`, `abs_sub` is `relu(a − b)`, `mul_add` is `a·b + c`,
/// `to_degrees` and `to_radians` multiply by a constant, and `%` is
/// `a − trunc(a/b)·b`. Steps (`floor`, `ceil`, `round`, `trunc`,
/// `signum`) have tangent 0, as on the tape. `clamp` is the tape's
/// `max(min(x, hi), lo)`: an operand's tangent (half of two at a tie);
/// `copysign` is `Float`'s default: the number or its negation, and its
/// tangent. Constants (`nan`, `epsilon`, `max_value`, …) have tangent 0;
/// predicates (`is_nan`, `classify`, `integer_decode`, …) read the value.
/// `atan2` at the origin, where it has no derivative, gives a NaN tangent
/// unless neither operand moves.
impl Float for Dual {
    fn nan() -> Self {
        Self::constant(f64::NAN)
    }
    fn infinity() -> Self {
        Self::constant(f64::INFINITY)
    }
    fn neg_infinity() -> Self {
        Self::constant(f64::NEG_INFINITY)
    }
    fn neg_zero() -> Self {
        Self::constant(-0.0)
    }
    fn min_value() -> Self {
        Self::constant(f64::MIN)
    }
    fn min_positive_value() -> Self {
        Self::constant(f64::MIN_POSITIVE)
    }
    fn epsilon() -> Self {
        Self::constant(f64::EPSILON)
    }
    fn max_value() -> Self {
        Self::constant(f64::MAX)
    }

    fn is_nan(self) -> bool {
        self.value.is_nan()
    }
    fn is_infinite(self) -> bool {
        self.value.is_infinite()
    }
    fn is_finite(self) -> bool {
        self.value.is_finite()
    }
    fn is_normal(self) -> bool {
        self.value.is_normal()
    }
    fn is_subnormal(self) -> bool {
        self.value.is_subnormal()
    }
    fn classify(self) -> FpCategory {
        self.value.classify()
    }
    fn is_sign_positive(self) -> bool {
        self.value.is_sign_positive()
    }
    fn is_sign_negative(self) -> bool {
        self.value.is_sign_negative()
    }
    fn integer_decode(self) -> (u64, i16, i8) {
        Float::integer_decode(self.value)
    }

    // Steps: the table's rows, tangent 0.
    fn floor(self) -> Self {
        Dual::floor(self)
    }
    fn ceil(self) -> Self {
        Dual::ceil(self)
    }
    fn round(self) -> Self {
        Dual::round(self)
    }
    fn signum(self) -> Self {
        Dual::signum(self)
    }
    /// `floor` above 0 and `ceil` below: both steps, so tangent 0. At −0
    /// `floor` gives −0, as `trunc` does.
    fn trunc(self) -> Self {
        if self.value >= 0.0 {
            Dual::floor(self)
        } else {
            Dual::ceil(self)
        }
    }
    /// `x − trunc x`, exactly how `f64` computes it: tangent that of `x`.
    fn fract(self) -> Self {
        self - Float::trunc(self)
    }

    fn abs(self) -> Self {
        Dual::abs(self)
    }
    fn recip(self) -> Self {
        Dual::recip(self)
    }
    fn powi(self, n: i32) -> Self {
        Dual::powi(self, n)
    }
    fn powf(self, n: Self) -> Self {
        Dual::powf(self, n)
    }
    fn sqrt(self) -> Self {
        Dual::sqrt(self)
    }
    fn cbrt(self) -> Self {
        Dual::cbrt(self)
    }
    fn exp(self) -> Self {
        Dual::exp(self)
    }
    fn exp2(self) -> Self {
        Dual::exp2(self)
    }
    fn exp_m1(self) -> Self {
        Dual::exp_m1(self)
    }
    fn ln(self) -> Self {
        Dual::ln(self)
    }
    fn ln_1p(self) -> Self {
        Dual::ln_1p(self)
    }
    fn log(self, base: Self) -> Self {
        Dual::log(self, base)
    }
    fn log2(self) -> Self {
        Dual::log2(self)
    }
    fn log10(self) -> Self {
        Dual::log10(self)
    }
    fn max(self, other: Self) -> Self {
        Dual::max(self, other)
    }
    fn min(self, other: Self) -> Self {
        Dual::min(self, other)
    }
    fn hypot(self, other: Self) -> Self {
        Dual::hypot(self, other)
    }
    fn sin(self) -> Self {
        Dual::sin(self)
    }
    fn cos(self) -> Self {
        Dual::cos(self)
    }
    fn tan(self) -> Self {
        Dual::tan(self)
    }
    fn asin(self) -> Self {
        Dual::asin(self)
    }
    fn acos(self) -> Self {
        Dual::acos(self)
    }
    fn atan(self) -> Self {
        Dual::atan(self)
    }
    fn sinh(self) -> Self {
        Dual::sinh(self)
    }
    fn cosh(self) -> Self {
        Dual::cosh(self)
    }
    fn tanh(self) -> Self {
        Dual::tanh(self)
    }
    fn asinh(self) -> Self {
        Dual::asinh(self)
    }
    fn acosh(self) -> Self {
        Dual::acosh(self)
    }
    fn atanh(self) -> Self {
        Dual::atanh(self)
    }

    // Composed.
    fn sin_cos(self) -> (Self, Self) {
        (Dual::sin(self), Dual::cos(self))
    }
    /// `f64`'s fused value; the tangent of `self · a + b` (`Dual::mul_add`).
    fn mul_add(self, a: Self, b: Self) -> Self {
        Dual::mul_add(self, a, b)
    }
    /// `f64`'s value; the tangent of `max(min(self, max), min)`, as the
    /// tape records it (`Dual::clamp`).
    fn clamp(self, min: Self, max: Self) -> Self {
        Dual::clamp(self, min, max)
    }
    /// `relu(self − other)`: `self − other` above 0, else 0 (`f64`'s
    /// value, which is NaN for a NaN operand where `relu` gives 0).
    fn abs_sub(self, other: Self) -> Self {
        valued(
            Float::abs_sub(self.value, other.value),
            (self - other).relu(),
        )
    }
    /// `atan2(y, x)` with `self` = `y`: `f64`'s angle, with the tangent
    /// `(x·ẏ − y·ẋ)/(x² + y²)` of the table's rule (`atan2_partials`).
    fn atan2(self, other: Self) -> Self {
        Dual::atan2(self, other)
    }
    /// `f64`'s value; the tangent of `self · (180/π)`.
    fn to_degrees(self) -> Self {
        valued(self.value.to_degrees(), self * (180.0 / PI))
    }
    /// `f64`'s value; the tangent of `self · (π/180)`.
    fn to_radians(self) -> Self {
        valued(self.value.to_radians(), self * (PI / 180.0))
    }
}

#[cfg(test)]
mod tests;
