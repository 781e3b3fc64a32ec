//! Every operation's local derivatives, written once.
//!
//! Each row of the table of operations (`autodiff-ops-table`) names its
//! rule here and says what it reads: the operand (`ln_partial(x)`), the
//! result (`exp_partial(y)`), both operands (`mul_partials(a, b)`), or, for
//! `powi`, the operand and the integer exponent. Three callers share them:
//! the tape's operations (`derivatives.rs`), the compiled adjoint's reverse
//! sweep (the macro writes `z_bar += value_bar *
//! ::autodiff::__adjoint::rules::tanh_partial(z);`) and the facade's
//! partials, so the two paths of `f_grad` cannot disagree on a derivative.
//!
//! The rules are generic over [`Real`], which `f64` implements and a dual
//! number can (forward over reverse, for Hessian-vector products): no
//! `f64`-only bit tricks, only arithmetic, comparisons and the elementary
//! functions of the trait. Each is `#[inline(always)]`: after inlining a
//! rule is the formula it holds, so the compiled adjoint pays nothing for
//! the call.
//!
//! ```
//! use autodiff_core::rules;
//!
//! // d/dx tanh x at 20: 1 − tanh² would be 0; the rule keeps its digits.
//! let slope = rules::tanh_partial(20.0_f64);
//! assert!((slope / 1.6993417021166355e-17 - 1.0).abs() < 1e-15);
//! assert_eq!(rules::mul_partials(3.0_f64, 4.0), (4.0, 3.0));
//! ```

use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

/// The number type the rules and the compiled sweeps compute with: `+ - *
/// /`, negation, comparisons of the primal value, and the elementary
/// functions the rules read. `f64` implements it; a dual number would, for
/// Hessian-vector products (forward over reverse).
///
/// ```
/// use autodiff_core::Real;
///
/// fn square_plus_one<R: Real>(x: R) -> R {
///     x * x + R::lit(1.0)
/// }
/// assert_eq!(square_plus_one(3.0_f64), 10.0);
/// ```
pub trait Real:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
{
    /// A constant (a literal of the body), as this number type.
    fn lit(value: f64) -> Self;
    /// The primal part, for branch conditions and finiteness checks.
    fn primal(self) -> f64;
    /// `|x|`.
    fn abs(self) -> Self;
    /// `eˣ`.
    fn exp(self) -> Self;
    /// `ln x`.
    fn ln(self) -> Self;
    /// `√x`.
    fn sqrt(self) -> Self;
    /// `sin x`.
    fn sin(self) -> Self;
    /// `cos x`.
    fn cos(self) -> Self;
    /// `tanh x`.
    fn tanh(self) -> Self;
    /// `sinh x`.
    fn sinh(self) -> Self;
    /// `cosh x`.
    fn cosh(self) -> Self;
    /// `xⁿ` for an integer `n`.
    fn powi(self, n: i32) -> Self;
    /// `xʸ` for a real `y`.
    fn powf(self, y: Self) -> Self;
    /// `√(x² + y²)` without overflow.
    fn hypot(self, y: Self) -> Self;
}

/// Forwards each trait method to `f64`'s inherent one.
macro_rules! real_f64 {
    ($($method:ident($($arg:ident: $t:ty),*)),*) => {
        impl Real for f64 {
            #[inline(always)]
            fn lit(value: f64) -> f64 {
                value
            }
            #[inline(always)]
            fn primal(self) -> f64 {
                self
            }
            $(
                #[inline(always)]
                fn $method(self $(, $arg: $t)*) -> f64 {
                    f64::$method(self $(, $arg)*)
                }
            )*
        }
    };
}

real_f64!(
    abs(),
    exp(),
    ln(),
    sqrt(),
    sin(),
    cos(),
    tanh(),
    sinh(),
    cosh(),
    powi(n: i32),
    powf(y: f64),
    hypot(y: f64)
);

/// 0 and 1, the constants most rules return.
#[inline(always)]
fn zero<R: Real>() -> R {
    R::lit(0.0)
}

#[inline(always)]
fn one<R: Real>() -> R {
    R::lit(1.0)
}

// Two operands: `(∂y/∂a, ∂y/∂b)` from `a` and `b`.

/// `a + b`: `(1, 1)`.
#[inline(always)]
pub fn add_partials<R: Real>(_a: R, _b: R) -> (R, R) {
    (one(), one())
}

/// `a − b`: `(1, −1)`.
#[inline(always)]
pub fn sub_partials<R: Real>(_a: R, _b: R) -> (R, R) {
    (one(), -one::<R>())
}

/// `a · b`: `(b, a)`.
#[inline(always)]
pub fn mul_partials<R: Real>(a: R, b: R) -> (R, R) {
    (b, a)
}

/// `a / b`: `(1/b, −(a/b)/b)`. `b = 0` gives infinities, which the callers
/// reject.
#[inline(always)]
pub fn div_partials<R: Real>(a: R, b: R) -> (R, R) {
    (one::<R>() / b, -(a / b) / b)
}

/// `aᵇ`: `(b·aᵇ⁻¹, ln a · aᵇ)`, with the limits 0 at `a = b = 0` and 0 at
/// `a = 0 < b`. At `b = 0` with `a ≠ 0` the product is computed as
/// written (it is 0): on dual numbers its tangent, `db·a⁻¹`, is the mixed
/// second derivative, which a literal 0 would lose.
#[inline(always)]
pub fn powf_partials<R: Real>(a: R, b: R) -> (R, R) {
    let by_base = if b == zero() && a == zero() {
        zero()
    } else {
        b * a.powf(b - one())
    };
    let by_exponent = if a == zero() && b > zero() {
        zero()
    } else {
        a.ln() * a.powf(b)
    };
    (by_base, by_exponent)
}

/// `max(a, b)`: 1 for the larger operand, 0 for the other, 1/2 each at a
/// tie (and when a NaN makes them unordered), as PyTorch's `maximum` and
/// JAX split it.
#[inline(always)]
pub fn max_partials<R: Real>(a: R, b: R) -> (R, R) {
    if a > b {
        (one(), zero())
    } else if a < b {
        (zero(), one())
    } else {
        let half = R::lit(0.5);
        (half, half)
    }
}

/// `min(a, b)`: 1 for the smaller operand, 0 for the other, 1/2 each at a
/// tie. It is `max`'s rule called with the operands swapped and read in
/// the same order: `max_partials(b, a)` gives 1 first when `b > a`, that
/// is when `a` is the smaller.
#[inline(always)]
pub fn min_partials<R: Real>(a: R, b: R) -> (R, R) {
    max_partials(b, a)
}

/// `x.clamp(lo, hi)`, recorded as `max(min(x, hi), lo)`: the partials by
/// `x`, `lo` and `hi`, each the product of `min`'s and `max`'s rules
/// along the way (1 for `x` strictly inside, 1 for the bound it is
/// clamped to outside, a half at each tie).
#[inline(always)]
pub fn clamp_partials<R: Real>(x: R, lo: R, hi: R) -> (R, R, R) {
    let (below_x, below_hi) = min_partials(x, hi);
    let below = if hi < x { hi } else { x };
    let (kept, raised) = max_partials(below, lo);
    (kept * below_x, raised, kept * below_hi)
}

/// `√(a² + b²)`: `(a/h, b/h)`; at the origin, a kink, both 0 (as `abs`,
/// which `hypot` is when one operand is 0).
#[inline(always)]
pub fn hypot_partials<R: Real>(a: R, b: R) -> (R, R) {
    let h = a.hypot(b);
    if h == zero() {
        (zero(), zero())
    } else {
        (a / h, b / h)
    }
}

/// `atan2(a, b)`, the angle of the point `(b, a)`: `(b/r², −a/r²)` with
/// `r = hypot(a, b)`, divided by `r` twice so that neither a tiny nor a
/// huge point over- or underflows `r²`. At the origin, where the angle
/// has no derivative, both are NaN (`0/0`), which the tape reports.
#[inline(always)]
pub fn atan2_partials<R: Real>(a: R, b: R) -> (R, R) {
    let r = a.hypot(b);
    (b / r / r, -(a / r / r))
}

/// `log_b a = ln a / ln b`: `(1/(a ln b), −log_b a/(b ln b))`. Base 1
/// divides by 0.
#[inline(always)]
pub fn log_partials<R: Real>(a: R, b: R) -> (R, R) {
    let ln_b = b.ln();
    let log = a.ln() / ln_b;
    (one::<R>() / (a * ln_b), -log / (b * ln_b))
}

// One operand: `∂y/∂x` from the operand `x` or the result `y`, as the
// table says.

/// `−x`: −1.
#[inline(always)]
pub fn neg_partial<R: Real>(_x: R) -> R {
    -one::<R>()
}

/// `eˣ`, from the result `y = eˣ`: `y`.
#[inline(always)]
pub fn exp_partial<R: Real>(y: R) -> R {
    y
}

/// `ln x`: `1/x`.
#[inline(always)]
pub fn ln_partial<R: Real>(x: R) -> R {
    one::<R>() / x
}

/// `tanh x`: `1/cosh² x = 4e/(1 + e)²` with `e = e^(−2|x|)`. In exact
/// arithmetic it is `1 − tanh² x`, but that cancels as `tanh x → ±1` (it is
/// 0 from |x| ≈ 19 on, where the derivative is still ≈ 1e−16); `e` ∈ (0, 1]
/// neither overflows nor cancels, so this keeps its digits in both tails.
#[inline(always)]
pub fn tanh_partial<R: Real>(x: R) -> R {
    let e = (R::lit(-2.0) * x.abs()).exp();
    let e1 = one::<R>() + e;
    R::lit(4.0) * e / (e1 * e1)
}

/// `sin x`: `cos x`.
#[inline(always)]
pub fn sin_partial<R: Real>(x: R) -> R {
    x.cos()
}

/// `cos x`: `−sin x`.
#[inline(always)]
pub fn cos_partial<R: Real>(x: R) -> R {
    -x.sin()
}

/// `√x`, from the result `y = √x`: `1/(2y)` (infinite at 0).
#[inline(always)]
pub fn sqrt_partial<R: Real>(y: R) -> R {
    R::lit(0.5) / y
}

/// `xⁿ`: `n·xⁿ⁻¹`, and 0 for `n = 0` (even at `x = 0`).
#[inline(always)]
pub fn powi_partial<R: Real>(x: R, n: i32) -> R {
    if n == 0 {
        return zero();
    }
    // `i32::MIN − 1` overflows: that one exponent goes through `powf`,
    // exact for an integer-valued exponent.
    let lowered = n
        .checked_sub(1)
        .map_or_else(|| x.powf(R::lit(f64::from(n) - 1.0)), |m| x.powi(m));
    R::lit(f64::from(n)) * lowered
}

/// `|x|`: the sign of `x`, and 0 at 0 (the subgradient PyTorch picks).
#[inline(always)]
pub fn abs_partial<R: Real>(x: R) -> R {
    if x > zero() {
        one()
    } else if x < zero() {
        -one::<R>()
    } else {
        zero()
    }
}

/// `1/x`, from the result `y = 1/x`: `−y²`.
#[inline(always)]
pub fn recip_partial<R: Real>(y: R) -> R {
    -(y * y)
}

/// `max(x, 0)`: 1 above 0, else 0 (0 at the kink, as PyTorch).
#[inline(always)]
pub fn relu_partial<R: Real>(x: R) -> R {
    if x > zero() {
        one()
    } else {
        zero()
    }
}

/// `σ(x) = 1/(1 + e⁻ˣ)`: `σ(1 − σ) = e/(1 + e)²` with `e = e^(−|x|)` ∈ (0, 1],
/// so no overflow for any finite `x` and no cancellation in the tails,
/// where `σ(1 − σ)` would lose every digit (σ(40) rounds to 1, but
/// σ'(40) ≈ 4.2e−18).
#[inline(always)]
pub fn sigmoid_partial<R: Real>(x: R) -> R {
    let e = (-x.abs()).exp();
    let e1 = one::<R>() + e;
    e / (e1 * e1)
}

/// `tan x`, from the result `y = tan x`: `1 + y²`.
#[inline(always)]
pub fn tan_partial<R: Real>(y: R) -> R {
    one::<R>() + y * y
}

/// `atan x`: `1/(1 + x²)`.
#[inline(always)]
pub fn atan_partial<R: Real>(x: R) -> R {
    one::<R>() / (one::<R>() + x * x)
}

/// `sinh x`: `cosh x`.
#[inline(always)]
pub fn sinh_partial<R: Real>(x: R) -> R {
    x.cosh()
}

/// `cosh x`: `sinh x`.
#[inline(always)]
pub fn cosh_partial<R: Real>(x: R) -> R {
    x.sinh()
}

/// `asin x`: `1/√((1 − x)(1 + x))`, the factored form exact near ±1;
/// infinite at ±1, NaN outside.
#[inline(always)]
pub fn asin_partial<R: Real>(x: R) -> R {
    one::<R>() / ((one::<R>() - x) * (one::<R>() + x)).sqrt()
}

/// `acos x`: `−1/√((1 − x)(1 + x))`.
#[inline(always)]
pub fn acos_partial<R: Real>(x: R) -> R {
    -asin_partial(x)
}

/// `ln(1 + x)`: `1/(1 + x)`.
#[inline(always)]
pub fn ln_1p_partial<R: Real>(x: R) -> R {
    one::<R>() / (one::<R>() + x)
}

/// `eˣ − 1`: `eˣ`, from the operand (the result `y` would give `y + 1`,
/// which rounds away `eˣ` where it is tiny).
#[inline(always)]
pub fn exp_m1_partial<R: Real>(x: R) -> R {
    x.exp()
}

/// `log₁₀ x`: `1/(x ln 10)`.
#[inline(always)]
pub fn log10_partial<R: Real>(x: R) -> R {
    one::<R>() / (x * R::lit(std::f64::consts::LN_10))
}

/// `log₂ x`: `1/(x ln 2)`.
#[inline(always)]
pub fn log2_partial<R: Real>(x: R) -> R {
    one::<R>() / (x * R::lit(std::f64::consts::LN_2))
}

/// `∛x`, from the result `y = ∛x`: `1/(3y²)` (infinite at 0).
#[inline(always)]
pub fn cbrt_partial<R: Real>(y: R) -> R {
    one::<R>() / (R::lit(3.0) * y * y)
}

/// `2ˣ`, from the result `y = 2ˣ`: `y ln 2`.
#[inline(always)]
pub fn exp2_partial<R: Real>(y: R) -> R {
    y * R::lit(std::f64::consts::LN_2)
}

/// `asinh x`: `1/√(x² + 1)`, as `1/hypot(x, 1)` so that `x²` cannot
/// overflow (beyond |x| ≈ 1e154 it is `1/|x|`, not 0).
#[inline(always)]
pub fn asinh_partial<R: Real>(x: R) -> R {
    one::<R>() / x.hypot(one())
}

/// `acosh x`: `1/√(x² − 1)` for `x > 1`, as `1/(√(x − 1)·√(x + 1))`: no
/// cancellation near 1 and no overflow; infinite at 1, NaN below (where
/// `acosh` is NaN too).
#[inline(always)]
pub fn acosh_partial<R: Real>(x: R) -> R {
    one::<R>() / ((x - one()).sqrt() * (x + one()).sqrt())
}

/// `atanh x`: `1/(1 − x²)` for |x| < 1, as `1/((1 − x)(1 + x))`, exact
/// near ±1.
#[inline(always)]
pub fn atanh_partial<R: Real>(x: R) -> R {
    one::<R>() / ((one::<R>() - x) * (one::<R>() + x))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tanh'(x) = 4e/(1 + e)², e = e^(−2|x|), evaluated independently in
    /// double-double arithmetic (error-free products and sums): the
    /// reference the rule is held to in the tails.
    fn tanh_slope_reference(x: f64) -> f64 {
        // e = exp(−2|x|) correctly rounded to f64 is within 1/2 ulp; its
        // error propagates with factor ≈ 1 into 4e/(1+e)², so the
        // reference computes (1 + e)² exactly as a double-double.
        let e = (-2.0 * x.abs()).exp();
        let (s, s_err) = two_sum(1.0, e);
        // (s + s_err)² ≈ s² + 2·s·s_err.
        let (sq, sq_err) = two_prod(s, s);
        let denominator = sq + (sq_err + 2.0 * s * s_err);
        4.0 * e / denominator
    }

    fn two_sum(a: f64, b: f64) -> (f64, f64) {
        let s = a + b;
        let bb = s - a;
        (s, (a - (s - bb)) + (b - bb))
    }

    fn two_prod(a: f64, b: f64) -> (f64, f64) {
        let p = a * b;
        (p, a.mul_add(b, -p))
    }

    #[test]
    fn tanh_slope_keeps_its_digits_in_the_tails() {
        // 4e/(1 + e)², e = e^(−2x), in Python's `decimal` at 50 digits,
        // rounded to f64.
        let known = [
            (19.0, 1.2556531168192118e-16),
            (20.0, 1.6993417021166355e-17),
            (40.0, 7.219405551381661e-35),
        ];
        for (x, want) in known {
            for x in [x, -x] {
                let got = tanh_partial(x);
                assert!(
                    (got / want - 1.0).abs() < 4e-16,
                    "tanh'({x}) = {got}, want {want}"
                );
                let reference = tanh_slope_reference(x);
                assert!(
                    (got / reference - 1.0).abs() < 4e-16,
                    "{got} vs {reference}"
                );
            }
        }
        assert_eq!(tanh_partial(0.0), 1.0);
        // Far out, the true derivative underflows to 0, not NaN.
        assert_eq!(tanh_partial(1e300), 0.0);
        assert_eq!(tanh_partial(f64::INFINITY), 0.0);
        for k in -60..=60 {
            let x = f64::from(k) * 0.37;
            let cosh = x.cosh();
            let want = 1.0 / (cosh * cosh);
            assert!((tanh_partial(x) / want - 1.0).abs() < 1e-14, "{x}");
        }
    }

    #[test]
    fn two_operand_rules_have_their_limits() {
        assert_eq!(powf_partials(0.0, 0.0), (0.0, 0.0_f64.ln() * 1.0));
        assert_eq!(powf_partials(0.0, 2.0), (0.0, 0.0));
        assert_eq!(powf_partials(2.0, 3.0), (12.0, 2.0_f64.ln() * 8.0));
        assert_eq!(max_partials(1.0, 1.0), (0.5, 0.5));
        assert_eq!(max_partials(2.0, 1.0), (1.0, 0.0));
        assert_eq!(min_partials(2.0, 1.0), (0.0, 1.0));
        assert_eq!(hypot_partials(0.0, 0.0), (0.0, 0.0));
        assert_eq!(hypot_partials(3.0, 4.0), (0.6, 0.8));
        let (da, db) = atan2_partials(3.0, 4.0);
        assert!((da - 4.0 / 25.0).abs() < 1e-16 && (db + 3.0 / 25.0).abs() < 1e-16);
        // A point whose squared radius would underflow, and one whose
        // squared radius would overflow.
        let (da, db) = atan2_partials(1e-200, 1e-200);
        assert!((da / 5e199 - 1.0).abs() < 1e-12 && (db / -5e199 - 1.0).abs() < 1e-12);
        let (da, db) = atan2_partials(3e200, 4e200);
        assert!((da / 1.6e-201 - 1.0).abs() < 1e-12 && (db / -1.2e-201 - 1.0).abs() < 1e-12);
        let (da, db) = atan2_partials(0.0, 0.0);
        assert!(da.is_nan() && db.is_nan());
        assert_eq!(div_partials(1.0, 2.0), (0.5, -0.25));
        assert_eq!(powi_partial(0.0, 0), 0.0);
        assert_eq!(powi_partial(2.0, 3), 12.0);
        assert_eq!(powi_partial(1.0, i32::MIN), f64::from(i32::MIN));
    }
}
