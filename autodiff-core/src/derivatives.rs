//! The operations and their derivatives: each computes its primal value
//! and the local derivative for every operand occurrence side by side, and
//! records one edge per occurrence (`x.mul(x)` records two edges to `x`).
//!
//! A result or local derivative that is not finite is rejected before
//! anything is recorded, so no NaN or infinity ever enters a tape.

use crate::error::ScalarAutodiffError;
use crate::operation::ScalarOperation;
use crate::tape::{Edges, Scalar, NO_PARENT, UNTRACKED};

/// The right-hand side of a binary operation: another scalar on the same
/// tape, or a plain `f64`, which is a constant and records no edge.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'t> {
    /// A node; an edge to it is recorded.
    Scalar(Scalar<'t>),
    /// A plain number; no edge, no node.
    Constant(f64),
}

impl<'t> From<Scalar<'t>> for Operand<'t> {
    fn from(scalar: Scalar<'t>) -> Self {
        Self::Scalar(scalar)
    }
}

impl<'t> From<&Scalar<'t>> for Operand<'t> {
    fn from(scalar: &Scalar<'t>) -> Self {
        Self::Scalar(*scalar)
    }
}

impl From<f64> for Operand<'_> {
    fn from(value: f64) -> Self {
        Self::Constant(value)
    }
}

/// `max(x, 0)`, the plain-`f64` twin of [`Scalar::relu`].
pub fn relu(x: f64) -> f64 {
    if x > 0.0 {
        x
    } else {
        0.0
    }
}

/// `1 / (1 + e^-x)`, computed without overflow for any finite `x`; the
/// plain-`f64` twin of [`Scalar::sigmoid`].
pub fn sigmoid(x: f64) -> f64 {
    sigmoid_and_derivative(x).0
}

/// σ(x) and σ'(x) from `e = e^−|x|` ∈ (0, 1]: σ(|x|) = 1/(1 + e),
/// σ(−|x|) = e/(1 + e), σ' = e/(1 + e)². No overflow for any finite `x`, and
/// no cancellation in the tails, where σ(1 − σ) would lose every digit
/// (σ(40) rounds to 1, but σ'(40) ≈ 4.2e−18).
fn sigmoid_and_derivative(x: f64) -> (f64, f64) {
    let e = (-x.abs()).exp();
    let value = if x >= 0.0 {
        1.0 / (1.0 + e)
    } else {
        e / (1.0 + e)
    };
    (value, e / ((1.0 + e) * (1.0 + e)))
}

/// The identity on plain numbers: the twin of [`Scalar::detach`], so that a
/// `#[differentiable]` body can say `detach(x)`.
pub fn detach(x: f64) -> f64 {
    x
}

/// Derivatives of `max(a, b)` with respect to `a` and `b`; a tie splits the
/// gradient evenly, as PyTorch's `maximum` and JAX do.
fn max_partials(a: f64, b: f64) -> (f64, f64) {
    match a.partial_cmp(&b) {
        Some(std::cmp::Ordering::Greater) => (1.0, 0.0),
        Some(std::cmp::Ordering::Less) => (0.0, 1.0),
        _ => (0.5, 0.5),
    }
}

/// `d(a^b)/da`, with `b = 0` giving 0 even at `a = 0`.
fn pow_base_derivative(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        0.0
    } else {
        b * a.powf(b - 1.0)
    }
}

/// `d(a^b)/db = ln(a) a^b`, with the limit 0 at `a = 0`, `b > 0`.
fn pow_exponent_derivative(a: f64, b: f64, value: f64) -> f64 {
    if a == 0.0 && b > 0.0 {
        0.0
    } else {
        a.ln() * value
    }
}

/// Whether all three are finite: `x * 0` is ±0 for a finite `x` and NaN for
/// an infinite or NaN one, and NaN survives the sum; one comparison in all,
/// where three `is_finite` tests cost a mask and a compare each.
#[inline(always)]
fn finite3(a: f64, b: f64, c: f64) -> bool {
    a * 0.0 + b * 0.0 + c * 0.0 == 0.0
}

/// Which check a non-finite record failed, in the order chapter 14 checks:
/// the result, then each operand's local derivative. Kept out of line so
/// that the hot path of every operation is one combined test.
#[cold]
#[inline(never)]
fn record_error(
    operation: ScalarOperation,
    value: f64,
    operands: [(f64, f64); 2],
    slots: usize,
) -> ScalarAutodiffError {
    if !value.is_finite() {
        return ScalarAutodiffError::NonFiniteResult {
            operation,
            value,
            label: None,
        };
    }
    let (operand, (input, local_derivative)) = operands[..slots]
        .iter()
        .copied()
        .enumerate()
        .find(|(_, (_, derivative))| !derivative.is_finite())
        .unwrap_or((0, operands[0]));
    ScalarAutodiffError::NonFiniteLocalDerivative {
        operation,
        operand,
        input,
        local_derivative,
        label: None,
    }
}

// `add`, `mul`, ... are chapter 14's names; they return `Result` (a
// non-finite result is an error), so they cannot be the `std::ops` traits.
#[allow(clippy::should_implement_trait)]
impl<'t> Scalar<'t> {
    /// Records `f(self)` with one operand edge (`self`, slot 0); `f` maps the
    /// operand's value to the result and the local derivative.
    #[inline(always)]
    fn unary(
        self,
        operation: ScalarOperation,
        f: impl FnOnce(f64) -> (f64, f64),
    ) -> Result<Scalar<'t>, ScalarAutodiffError> {
        // A plain 0 is finite, and the test of it folds away.
        self.unary_beside(operation, (0, 0.0), f)
    }

    /// Records `f(self)` as [`unary`](Self::unary) does, for an operation
    /// that also has the plain operand `plain = (operand slot, value)`
    /// (`x.mul(2.0)`, `x.rsub(1.0)`): no edge to it, but a non-finite one is
    /// `NonFiniteOperand`.
    ///
    /// The operand's value and flag come from its handle; the plain
    /// operand, result and derivative are tested for finiteness together,
    /// and the node is appended under one borrow of the tape: recording is
    /// the hot path of every gradient.
    #[inline(always)]
    fn unary_beside(
        self,
        operation: ScalarOperation,
        plain: (usize, f64),
        f: impl FnOnce(f64) -> (f64, f64),
    ) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let x = self.value;
        let (value, derivative) = f(x);
        if !finite3(plain.1, value, derivative) {
            return Err(match check_constant(operation, plain.0, plain.1) {
                Err(error) => error,
                Ok(()) => record_error(operation, value, [(x, derivative), (0.0, 0.0)], 1),
            });
        }
        let edges = Edges::new([self.parent_slot(), NO_PARENT], [derivative, 0.0]);
        // The result tracks a gradient exactly when its operand does.
        let untracked = self.parent_slot() & UNTRACKED;
        self.tape.push(edges, value, operation, untracked)
    }

    /// Records `f(self, rhs)` where `partials(a, b, f)` gives the local
    /// derivatives with respect to each operand. A plain `f64` right operand
    /// records no edge.
    #[inline(always)]
    fn binary(
        self,
        operation: ScalarOperation,
        rhs: Operand<'t>,
        f: impl FnOnce(f64, f64) -> f64,
        partials: impl FnOnce(f64, f64, f64) -> (f64, f64),
    ) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let other = match rhs {
            Operand::Scalar(other) => other,
            Operand::Constant(b) => {
                return self.unary_beside(operation, (1, b), |a| {
                    let value = f(a, b);
                    (value, partials(a, b, value).0)
                });
            }
        };
        if !std::ptr::eq(self.tape, other.tape) {
            return Err(ScalarAutodiffError::MixedTapes {
                operation,
                label: None,
            });
        }
        let (a, b) = (self.value, other.value);
        let value = f(a, b);
        // Partials of a non-finite result are never recorded; computing
        // them anyway keeps the hot path to one branch.
        let (da, db) = partials(a, b, value);
        if !finite3(value, da, db) {
            return Err(record_error(operation, value, [(a, da), (b, db)], 2));
        }
        let edges = Edges::new([self.parent_slot(), other.parent_slot()], [da, db]);
        // The result tracks a gradient when either operand does: it is
        // untracked when both carry the flag.
        let untracked = self.parent_slot() & other.parent_slot() & UNTRACKED;
        self.tape.push(edges, value, operation, untracked)
    }

    /// `self + rhs`. ∂/∂self = 1, ∂/∂rhs = 1.
    pub fn add(self, rhs: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.binary(
            ScalarOperation::Add,
            rhs.into(),
            |a, b| a + b,
            |_, _, _| (1.0, 1.0),
        )
    }

    /// `self - rhs`. ∂/∂self = 1, ∂/∂rhs = −1.
    pub fn sub(self, rhs: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.binary(
            ScalarOperation::Subtract,
            rhs.into(),
            |a, b| a - b,
            |_, _, _| (1.0, -1.0),
        )
    }

    /// `lhs - self` for a plain `lhs`. ∂/∂self = −1.
    #[inline]
    pub fn rsub(self, lhs: f64) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary_beside(ScalarOperation::Subtract, (0, lhs), |x| (lhs - x, -1.0))
    }

    /// `self * rhs`. ∂/∂self = rhs, ∂/∂rhs = self.
    pub fn mul(self, rhs: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.binary(
            ScalarOperation::Multiply,
            rhs.into(),
            |a, b| a * b,
            |a, b, _| (b, a),
        )
    }

    /// `self / rhs`. ∂/∂self = 1/rhs, ∂/∂rhs = −self/rhs². Division by zero
    /// is `NonFiniteResult`.
    pub fn div(self, rhs: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.binary(
            ScalarOperation::Divide,
            rhs.into(),
            |a, b| a / b,
            |_, b, value| (1.0 / b, -value / b),
        )
    }

    /// `lhs / self` for a plain `lhs`. ∂/∂self = −lhs/self².
    #[inline]
    pub fn rdiv(self, lhs: f64) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary_beside(ScalarOperation::Divide, (0, lhs), |x| {
            let value = lhs / x;
            (value, -value / x)
        })
    }

    /// `-self`. d/dself = −1.
    #[inline]
    pub fn neg(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Negate, |x| (-x, -1.0))
    }

    /// `e^self`. d/dself = e^self. Overflow (`exp(1000)`) is `NonFiniteResult`.
    #[inline]
    pub fn exp(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Exp, |x| {
            let value = x.exp();
            (value, value)
        })
    }

    /// `ln self`. d/dself = 1/self. `ln 0` and `ln` of a negative number are
    /// `NonFiniteResult`.
    #[inline]
    pub fn ln(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Ln, |x| (x.ln(), 1.0 / x))
    }

    /// `tanh self`. d/dself = 1 − tanh² = 1/cosh².
    #[inline]
    pub fn tanh(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Tanh, |x| {
            // 1/cosh² rather than 1 − tanh²: equal in exact arithmetic, but
            // 1 − tanh² cancels as tanh → ±1 (it is 0 from |x| ≈ 19 on,
            // where the true derivative is still ≈ 1e−16). cosh overflows
            // only where 1/cosh² underflows to 0 anyway.
            let cosh = x.cosh();
            (x.tanh(), 1.0 / (cosh * cosh))
        })
    }

    /// `sin self`. d/dself = cos self.
    #[inline]
    pub fn sin(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Sin, |x| (x.sin(), x.cos()))
    }

    /// `cos self`. d/dself = −sin self.
    #[inline]
    pub fn cos(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Cos, |x| (x.cos(), -x.sin()))
    }

    /// `√self`. d/dself = 1/(2√self). A negative input is `NonFiniteResult`;
    /// at 0 the derivative is infinite, so `sqrt(0)` is `NonFiniteLocalDerivative`.
    #[inline]
    pub fn sqrt(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Sqrt, |x| {
            let value = x.sqrt();
            (value, 0.5 / value)
        })
    }

    /// `self^n`. d/dself = n·self^(n−1) (0 when `n = 0`).
    #[inline]
    pub fn powi(self, n: i32) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Powi, |x| {
            (x.powi(n), powi_derivative(x, n))
        })
    }

    /// `self^rhs` with a real exponent that may itself be a tracked scalar.
    /// ∂/∂self = rhs·self^(rhs−1) (0 when rhs = 0), ∂/∂rhs = ln(self)·self^rhs
    /// (0 at self = 0 < rhs). A negative base with a non-integer exponent is
    /// `NonFiniteResult`; a negative base with a scalar exponent has no real
    /// derivative in the exponent and is `NonFiniteLocalDerivative` (use
    /// [`powi`](Self::powi) or a plain `f64` exponent).
    pub fn powf(self, rhs: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.binary(
            ScalarOperation::Powf,
            rhs.into(),
            f64::powf,
            |a, b, value| {
                (
                    pow_base_derivative(a, b),
                    pow_exponent_derivative(a, b, value),
                )
            },
        )
    }

    /// `base^self` for a plain `base`. d/dself = ln(base)·base^self.
    #[inline]
    pub fn rpowf(self, base: f64) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary_beside(ScalarOperation::Powf, (0, base), |x| {
            let value = base.powf(x);
            (value, pow_exponent_derivative(base, x, value))
        })
    }

    /// `|self|`. d/dself = sign(self), and 0 at 0 (the subgradient PyTorch picks).
    #[inline]
    pub fn abs(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Abs, |x| {
            let derivative = if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                0.0
            };
            (x.abs(), derivative)
        })
    }

    /// `max(self, rhs)`. The larger operand gets derivative 1, the other 0; at
    /// a tie each gets 1/2.
    pub fn max(self, rhs: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.binary(ScalarOperation::Max, rhs.into(), f64::max, |a, b, _| {
            max_partials(a, b)
        })
    }

    /// `min(self, rhs)`. The smaller operand gets derivative 1, the other 0; at
    /// a tie each gets 1/2.
    pub fn min(self, rhs: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.binary(ScalarOperation::Min, rhs.into(), f64::min, |a, b, _| {
            max_partials(b, a)
        })
    }

    /// `1 / self`. d/dself = −1/self². `recip(0)` is `NonFiniteResult`.
    #[inline]
    pub fn recip(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Recip, |x| {
            let value = x.recip();
            (value, -value * value)
        })
    }

    /// `max(self, 0)`. d/dself = 1 for self > 0, else 0 (0 at the kink, as PyTorch).
    #[inline]
    pub fn relu(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Relu, |x| {
            (relu(x), if x > 0.0 { 1.0 } else { 0.0 })
        })
    }

    /// `1 / (1 + e^-self)`. d/dself = σ(1 − σ), computed as e^−|x|/(1 + e^−|x|)²
    /// so that it keeps its digits far from 0.
    #[inline]
    pub fn sigmoid(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Sigmoid, sigmoid_and_derivative)
    }

    /// `tan self`. d/dself = 1 + tan² self = 1/cos² self. At an odd multiple
    /// of π/2 the result overflows or is huge: a non-finite one is
    /// `NonFiniteResult`.
    #[inline]
    pub fn tan(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Tan, |x| {
            let value = x.tan();
            (value, 1.0 + value * value)
        })
    }

    /// `atan self`. d/dself = 1/(1 + self²).
    #[inline]
    pub fn atan(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Atan, |x| (x.atan(), 1.0 / (1.0 + x * x)))
    }

    /// `sinh self`. d/dself = cosh self.
    #[inline]
    pub fn sinh(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Sinh, |x| (x.sinh(), x.cosh()))
    }

    /// `cosh self`. d/dself = sinh self.
    #[inline]
    pub fn cosh(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Cosh, |x| (x.cosh(), x.sinh()))
    }

    /// `asin self`. d/dself = 1/√(1 − self²). Outside [−1, 1] the result is
    /// NaN (`NonFiniteResult`); at ±1 the derivative is infinite
    /// (`NonFiniteLocalDerivative`).
    #[inline]
    pub fn asin(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Asin, |x| {
            (x.asin(), 1.0 / ((1.0 - x) * (1.0 + x)).sqrt())
        })
    }

    /// `acos self`. d/dself = −1/√(1 − self²); the domain is `asin`'s.
    #[inline]
    pub fn acos(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Acos, |x| {
            (x.acos(), -1.0 / ((1.0 - x) * (1.0 + x)).sqrt())
        })
    }

    /// `ln(1 + self)`, exact near 0. d/dself = 1/(1 + self).
    #[inline]
    pub fn ln_1p(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Ln1p, |x| (x.ln_1p(), 1.0 / (1.0 + x)))
    }

    /// `e^self − 1`, exact near 0. d/dself = e^self.
    #[inline]
    pub fn exp_m1(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::ExpM1, |x| (x.exp_m1(), x.exp()))
    }

    /// `log₁₀ self`. d/dself = 1/(self · ln 10).
    #[inline]
    pub fn log10(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Log10, |x| {
            (x.log10(), 1.0 / (x * std::f64::consts::LN_10))
        })
    }

    /// `log₂ self`. d/dself = 1/(self · ln 2).
    #[inline]
    pub fn log2(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Log2, |x| {
            (x.log2(), 1.0 / (x * std::f64::consts::LN_2))
        })
    }

    /// `∛self`, defined for negative numbers too. d/dself = 1/(3∛self²);
    /// at 0 it is infinite (`NonFiniteLocalDerivative`).
    #[inline]
    pub fn cbrt(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Cbrt, |x| {
            let value = x.cbrt();
            (value, 1.0 / (3.0 * value * value))
        })
    }

    /// `signum self` (±1, NaN for NaN). d/dself = 0: the function is a step,
    /// flat everywhere except at 0, where it jumps; 0 there too, as PyTorch's
    /// `sign`.
    #[inline]
    pub fn signum(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Signum, |x| (x.signum(), 0.0))
    }

    /// `⌊self⌋`. d/dself = 0 (a step: flat between integers, 0 taken at the
    /// jumps, as PyTorch's `floor`).
    #[inline]
    pub fn floor(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Floor, |x| (x.floor(), 0.0))
    }

    /// `⌈self⌉`. d/dself = 0, as for [`floor`](Self::floor).
    #[inline]
    pub fn ceil(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Ceil, |x| (x.ceil(), 0.0))
    }

    /// `self` rounded half away from zero. d/dself = 0, as for
    /// [`floor`](Self::floor).
    #[inline]
    pub fn round(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Round, |x| (x.round(), 0.0))
    }

    /// `√(self² + rhs²)` without overflow. ∂/∂self = self/h, ∂/∂rhs = rhs/h;
    /// at (0, 0), a kink, both are 0 (as `abs`, which it is when one operand
    /// is 0).
    pub fn hypot(self, rhs: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.binary(ScalarOperation::Hypot, rhs.into(), f64::hypot, |a, b, h| {
            if h == 0.0 {
                (0.0, 0.0)
            } else {
                (a / h, b / h)
            }
        })
    }

    /// `log_base self = ln self / ln base`. ∂/∂self = 1/(self · ln base),
    /// ∂/∂base = −log_base(self)/(base · ln base). Base 1 divides by 0
    /// (`NonFiniteResult` or `NonFiniteLocalDerivative`).
    pub fn log(self, base: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.binary(
            ScalarOperation::Log,
            base.into(),
            f64::log,
            |a, b, value| {
                let ln_b = b.ln();
                (1.0 / (a * ln_b), -value / (b * ln_b))
            },
        )
    }

    /// `log_self value` for a plain `value`: `self` is the base.
    /// d/dself = −log_self(value)/(self · ln self).
    #[inline]
    pub fn rlog(self, value: f64) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary_beside(ScalarOperation::Log, (0, value), |base| {
            let log = value.log(base);
            (log, -log / (base * base.ln()))
        })
    }
}

/// A plain operand must be finite: it enters the result, and `max`/`min`
/// would otherwise drop a NaN silently.
fn check_constant(
    operation: ScalarOperation,
    operand: usize,
    value: f64,
) -> Result<(), ScalarAutodiffError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(ScalarAutodiffError::NonFiniteOperand {
            operation,
            operand,
            value,
            label: None,
        })
    }
}

/// d(xⁿ)/dx = n·xⁿ⁻¹, 0 for `n = 0`: the rule both the tape and the
/// compiled adjoint use.
#[doc(hidden)]
#[inline]
pub fn powi_derivative(x: f64, n: i32) -> f64 {
    if n == 0 {
        return 0.0;
    }
    // `i32::MIN - 1` overflows: that one exponent goes through `powf`,
    // exact for an integer-valued exponent.
    let lowered = n
        .checked_sub(1)
        .map_or_else(|| x.powf(f64::from(n) - 1.0), |m| x.powi(m));
    f64::from(n) * lowered
}
