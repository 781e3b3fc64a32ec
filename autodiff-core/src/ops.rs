//! The operations. Each computes its primal value and the local derivative
//! for every operand occurrence side by side, and records one edge per
//! occurrence (`x.mul(x)` records two edges to `x`).
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
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
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

impl<'t> Scalar<'t> {
    /// Records a node with one operand edge (`self`, slot 0).
    fn unary(
        self,
        operation: ScalarOperation,
        value: f64,
        derivative: f64,
    ) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let input = self.value();
        self.record(operation, value, [Some((self, input, derivative)), None])
    }

    /// Checks and records a node; `operands` holds `(operand, its value, local derivative)`.
    fn record(
        self,
        operation: ScalarOperation,
        value: f64,
        operands: [Option<(Scalar<'t>, f64, f64)>; 2],
    ) -> Result<Scalar<'t>, ScalarAutodiffError> {
        if !value.is_finite() {
            return Err(ScalarAutodiffError::NonFiniteResult {
                operation,
                value,
                label: None,
            });
        }
        let mut edges = Edges {
            parents: [NO_PARENT; 2],
            derivatives: [0.0; 2],
        };
        let mut tracked = false;
        for (slot, operand) in operands.into_iter().enumerate() {
            let Some((scalar, input, local_derivative)) = operand else {
                continue;
            };
            if !local_derivative.is_finite() {
                return Err(ScalarAutodiffError::NonFiniteLocalDerivative {
                    operation,
                    operand: slot,
                    input,
                    local_derivative,
                    label: None,
                });
            }
            let operand_tracked = scalar.tracks_gradient();
            tracked |= operand_tracked;
            edges.parents[slot] = scalar.index | if operand_tracked { 0 } else { UNTRACKED };
            edges.derivatives[slot] = local_derivative;
        }
        self.tape.push(edges, value, operation, tracked)
    }

    /// Records `f(self, rhs)` where `partials(a, b, f)` gives the local
    /// derivatives with respect to each operand.
    fn binary(
        self,
        operation: ScalarOperation,
        rhs: Operand<'t>,
        f: impl FnOnce(f64, f64) -> f64,
        partials: impl FnOnce(f64, f64, f64) -> (f64, f64),
    ) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let a = self.value();
        match rhs {
            Operand::Scalar(other) => {
                if !std::ptr::eq(self.tape, other.tape) {
                    return Err(ScalarAutodiffError::MixedTapes {
                        operation,
                        label: None,
                    });
                }
                let b = other.value();
                let value = f(a, b);
                let (da, db) = if value.is_finite() {
                    partials(a, b, value)
                } else {
                    (0.0, 0.0) // rejected as NonFiniteResult before these are read
                };
                self.record(
                    operation,
                    value,
                    [Some((self, a, da)), Some((other, b, db))],
                )
            }
            Operand::Constant(b) => {
                if !b.is_finite() {
                    return Err(ScalarAutodiffError::NonFiniteLeaf {
                        operation: ScalarOperation::Constant,
                        value: b,
                        label: None,
                    });
                }
                let value = f(a, b);
                let (da, _) = if value.is_finite() {
                    partials(a, b, value)
                } else {
                    (0.0, 0.0)
                };
                self.record(operation, value, [Some((self, a, da)), None])
            }
        }
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
    pub fn rsub(self, lhs: f64) -> Result<Scalar<'t>, ScalarAutodiffError> {
        check_constant(lhs)?;
        self.unary(ScalarOperation::Subtract, lhs - self.value(), -1.0)
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
    pub fn rdiv(self, lhs: f64) -> Result<Scalar<'t>, ScalarAutodiffError> {
        check_constant(lhs)?;
        let x = self.value();
        let value = lhs / x;
        self.unary(ScalarOperation::Divide, value, -value / x)
    }

    /// `-self`. d/dself = −1.
    pub fn neg(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Negate, -self.value(), -1.0)
    }

    /// `e^self`. d/dself = e^self. Overflow (`exp(1000)`) is `NonFiniteResult`.
    pub fn exp(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let value = self.value().exp();
        self.unary(ScalarOperation::Exp, value, value)
    }

    /// `ln self`. d/dself = 1/self. `ln 0` and `ln` of a negative number are
    /// `NonFiniteResult`.
    pub fn ln(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let x = self.value();
        self.unary(ScalarOperation::Ln, x.ln(), 1.0 / x)
    }

    /// `tanh self`. d/dself = 1 − tanh².
    pub fn tanh(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let value = self.value().tanh();
        self.unary(ScalarOperation::Tanh, value, 1.0 - value * value)
    }

    /// `sin self`. d/dself = cos self.
    pub fn sin(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let x = self.value();
        self.unary(ScalarOperation::Sin, x.sin(), x.cos())
    }

    /// `cos self`. d/dself = −sin self.
    pub fn cos(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let x = self.value();
        self.unary(ScalarOperation::Cos, x.cos(), -x.sin())
    }

    /// `√self`. d/dself = 1/(2√self). A negative input is `NonFiniteResult`;
    /// at 0 the derivative is infinite, so `sqrt(0)` is `NonFiniteLocalDerivative`.
    pub fn sqrt(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let value = self.value().sqrt();
        self.unary(ScalarOperation::Sqrt, value, 0.5 / value)
    }

    /// `self^n`. d/dself = n·self^(n−1) (0 when `n = 0`).
    pub fn powi(self, n: i32) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let x = self.value();
        let derivative = if n == 0 {
            0.0
        } else {
            f64::from(n) * x.powi(n - 1)
        };
        self.unary(ScalarOperation::Powi, x.powi(n), derivative)
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
    pub fn rpowf(self, base: f64) -> Result<Scalar<'t>, ScalarAutodiffError> {
        check_constant(base)?;
        let x = self.value();
        let value = base.powf(x);
        self.unary(
            ScalarOperation::Powf,
            value,
            pow_exponent_derivative(base, x, value),
        )
    }

    /// `|self|`. d/dself = sign(self), and 0 at 0 (the subgradient PyTorch picks).
    pub fn abs(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let x = self.value();
        let derivative = if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            0.0
        };
        self.unary(ScalarOperation::Abs, x.abs(), derivative)
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
    pub fn recip(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let value = self.value().recip();
        self.unary(ScalarOperation::Recip, value, -value * value)
    }

    /// `max(self, 0)`. d/dself = 1 for self > 0, else 0 (0 at the kink, as PyTorch).
    pub fn relu(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let x = self.value();
        self.unary(
            ScalarOperation::Relu,
            relu(x),
            if x > 0.0 { 1.0 } else { 0.0 },
        )
    }

    /// `1 / (1 + e^-self)`. d/dself = σ(1 − σ).
    pub fn sigmoid(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let value = sigmoid(self.value());
        self.unary(ScalarOperation::Sigmoid, value, value * (1.0 - value))
    }
}

fn check_constant(value: f64) -> Result<(), ScalarAutodiffError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(ScalarAutodiffError::NonFiniteLeaf {
            operation: ScalarOperation::Constant,
            value,
            label: None,
        })
    }
}
