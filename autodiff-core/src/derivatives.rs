//! The operations and their derivatives: each computes its primal value
//! and the local derivative for every operand occurrence side by side, and
//! records one edge per occurrence (`x.mul(x)` records two edges to `x`).
//!
//! A result or local derivative that is not finite is rejected before
//! anything is recorded, so no NaN or infinity enters a tape; the one
//! exception is generated code's recording (`Tape::allow_infinite_results`),
//! where an infinite result with finite local derivatives is kept.

use crate::error::{Operands, ScalarAutodiffError};
use crate::operation::ScalarOperation;
use crate::rules;
use crate::tape::{Edges, Scalar, NO_PARENT, PLAIN_LEFT, UNTRACKED};

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
///
/// ```
/// assert_eq!(autodiff_core::relu(-2.0), 0.0);
/// assert_eq!(autodiff_core::relu(3.0), 3.0);
/// ```
pub fn relu(x: f64) -> f64 {
    if x > 0.0 {
        x
    } else {
        0.0
    }
}

/// `1 / (1 + e^-x)`, the plain-`f64` twin of [`Scalar::sigmoid`]: from
/// `e = e^−|x|` ∈ (0, 1], σ(|x|) = 1/(1 + e) and σ(−|x|) = e/(1 + e), so
/// no overflow for any finite `x`.
///
/// ```
/// assert_eq!(autodiff_core::sigmoid(0.0), 0.5);
/// assert!(autodiff_core::sigmoid(-800.0) >= 0.0);
/// ```
pub fn sigmoid(x: f64) -> f64 {
    let e = (-x.abs()).exp();
    if x >= 0.0 {
        1.0 / (1.0 + e)
    } else {
        e / (1.0 + e)
    }
}

/// The identity on plain numbers: the twin of [`Scalar::detach`], so that a
/// `#[differentiable]` body can say `detach(x)`.
pub fn detach(x: f64) -> f64 {
    x
}

/// Whether all three are finite: `x * 0` is ±0 for a finite `x` and NaN for
/// an infinite or NaN one, and NaN survives the sum; one comparison in all,
/// where three `is_finite` tests cost a mask and a compare each.
#[inline(always)]
fn finite3(a: f64, b: f64, c: f64) -> bool {
    a * 0.0 + b * 0.0 + c * 0.0 == 0.0
}

/// Whether a record that failed `finite3` is recorded all the same: the
/// tape allows infinite results (generated code is recording), the result
/// is ±∞ and not NaN, and the plain operand and every local derivative are
/// finite, so every contribution the reverse pass takes through this node
/// is finite. An infinity that reaches a function's output is reported
/// there (`__private::output`); one that meets an operation whose result
/// is NaN (`∞ − ∞`, `0 · ∞`) or whose derivative is not finite (`∞ · x`
/// w.r.t. `x`) fails that operation.
#[cold]
#[inline(never)]
fn infinite_allowed(tape: &crate::Tape, plain: f64, value: f64, da: f64, db: f64) -> bool {
    value.is_infinite()
        && plain.is_finite()
        && da.is_finite()
        && db.is_finite()
        && tape.allows_infinite_results()
}

/// Which check a non-finite record failed, in the order chapter 14 checks:
/// the result, then each operand's local derivative. Kept out of line so
/// that the hot path of every operation is one combined test.
#[cold]
#[inline(never)]
fn record_error(
    operation: ScalarOperation,
    value: f64,
    inputs: Operands,
    operands: [(f64, f64); 2],
    slots: usize,
) -> ScalarAutodiffError {
    if !value.is_finite() {
        return ScalarAutodiffError::NonFiniteResult {
            operation,
            value,
            operands: inputs,
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
        operands: inputs,
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
        // No plain operand: its test folds away.
        self.unary_with(operation, None, f)
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
        self.unary_with(operation, Some(plain), f)
    }

    /// [`unary`](Self::unary) (`plain` is `None`) and
    /// [`unary_beside`](Self::unary_beside) in one.
    #[inline(always)]
    fn unary_with(
        self,
        operation: ScalarOperation,
        plain: Option<(usize, f64)>,
        f: impl FnOnce(f64) -> (f64, f64),
    ) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let x = self.value;
        let (value, derivative) = f(x);
        // Without a plain operand, slot 0 and 0.0 as before: the flag a unary
        // node has always carried.
        let (slot, constant) = plain.unwrap_or((0, 0.0));
        if !finite3(constant, value, derivative)
            && !infinite_allowed(self.tape, constant, value, derivative, 0.0)
        {
            // The operands as written: the plain one in its slot.
            let inputs = match plain {
                None => Operands::one(x),
                Some((0, c)) => Operands::two(c, x),
                Some((_, c)) => Operands::two(x, c),
            };
            return Err(match check_constant(operation, slot, constant, inputs) {
                Err(error) => error,
                Ok(()) => record_error(operation, value, inputs, [(x, derivative), (0.0, 0.0)], 1),
            });
        }
        // Slot 1 has no operand; its derivative place keeps the plain
        // operand, for second-order passes that rerun the rule.
        let edges = Edges::new([self.parent_slot(), NO_PARENT], [derivative, constant]);
        // The result tracks a gradient exactly when its operand does.
        let untracked = self.parent_slot() & UNTRACKED;
        let plain_left = if slot == 0 { PLAIN_LEFT } else { 0 };
        self.tape
            .push(edges, value, operation, untracked, plain_left)
    }

    /// Records `f(self, rhs)` where `partials(a, b)` (the operation's rule)
    /// gives the local derivatives with respect to each operand. A plain
    /// `f64` right operand records no edge.
    #[inline(always)]
    fn binary(
        self,
        operation: ScalarOperation,
        rhs: Operand<'t>,
        f: impl FnOnce(f64, f64) -> f64,
        partials: impl FnOnce(f64, f64) -> (f64, f64),
    ) -> Result<Scalar<'t>, ScalarAutodiffError> {
        let other = match rhs {
            Operand::Scalar(other) => other,
            Operand::Constant(b) => {
                return self.unary_beside(operation, (1, b), |a| {
                    let value = f(a, b);
                    (value, partials(a, b).0)
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
        let (da, db) = partials(a, b);
        if !finite3(value, da, db) && !infinite_allowed(self.tape, 0.0, value, da, db) {
            return Err(record_error(
                operation,
                value,
                Operands::two(a, b),
                [(a, da), (b, db)],
                2,
            ));
        }
        let edges = Edges::new([self.parent_slot(), other.parent_slot()], [da, db]);
        // The result tracks a gradient when either operand does: it is
        // untracked when both carry the flag.
        let untracked = self.parent_slot() & other.parent_slot() & UNTRACKED;
        self.tape.push(edges, value, operation, untracked, 0)
    }

    /// `self + rhs`. ∂/∂self = 1, ∂/∂rhs = 1.
    pub fn add(self, rhs: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.binary(
            ScalarOperation::Add,
            rhs.into(),
            |a, b| a + b,
            rules::add_partials,
        )
    }

    /// `self - rhs`. ∂/∂self = 1, ∂/∂rhs = −1.
    pub fn sub(self, rhs: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.binary(
            ScalarOperation::Subtract,
            rhs.into(),
            |a, b| a - b,
            rules::sub_partials,
        )
    }

    /// `lhs - self` for a plain `lhs`. ∂/∂self = −1.
    #[inline]
    pub fn rsub(self, lhs: f64) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary_beside(ScalarOperation::Subtract, (0, lhs), |x| {
            (lhs - x, rules::sub_partials(lhs, x).1)
        })
    }

    /// `self * rhs`. ∂/∂self = rhs, ∂/∂rhs = self.
    pub fn mul(self, rhs: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.binary(
            ScalarOperation::Multiply,
            rhs.into(),
            |a, b| a * b,
            rules::mul_partials,
        )
    }

    /// `self / rhs`. ∂/∂self = 1/rhs, ∂/∂rhs = −self/rhs². Division by zero
    /// is `NonFiniteResult`.
    pub fn div(self, rhs: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.binary(
            ScalarOperation::Divide,
            rhs.into(),
            |a, b| a / b,
            rules::div_partials,
        )
    }

    /// `lhs / self` for a plain `lhs`. ∂/∂self = −lhs/self².
    #[inline]
    pub fn rdiv(self, lhs: f64) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary_beside(ScalarOperation::Divide, (0, lhs), |x| {
            (lhs / x, rules::div_partials(lhs, x).1)
        })
    }

    /// `-self`. d/dself = −1.
    #[inline]
    pub fn neg(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary(ScalarOperation::Negate, |x| (-x, rules::neg_partial(x)))
    }

    /// `self^n`. d/dself = n·self^(n−1) (0 when `n = 0`).
    #[inline]
    pub fn powi(self, n: i32) -> Result<Scalar<'t>, ScalarAutodiffError> {
        // The exponent is kept beside the operand, as a plain operand is.
        self.unary_beside(ScalarOperation::Powi, (1, f64::from(n)), |x| {
            (x.powi(n), rules::powi_partial(x, n))
        })
    }

    /// `base^self` for a plain `base`. d/dself = ln(base)·base^self.
    #[inline]
    pub fn rpowf(self, base: f64) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.plain_first::<two_operand::Powf>(base)
    }

    /// `log_self value` for a plain `value`: `self` is the base.
    /// d/dself = −log_self(value)/(self · ln self).
    #[inline]
    pub fn rlog(self, value: f64) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.plain_first::<two_operand::Log>(value)
    }

    /// `f(first, self)` for a plain `first`, where `f` is the two-operand
    /// method `R` of the table (`2.0.powf(x)`, `1.0.atan2(x)`): one edge,
    /// to `self`, with the rule's second partial.
    #[doc(hidden)]
    #[inline]
    pub fn plain_first<R: two_operand::Rule>(
        self,
        first: f64,
    ) -> Result<Scalar<'t>, ScalarAutodiffError> {
        self.unary_beside(R::OPERATION, (0, first), |x| {
            (R::value(first, x), R::partials(first, x).1)
        })
    }
}

/// The two-operand methods of the table (`a.powf(b)`, `a.atan2(b)`): each
/// row `method(name, 1)` with two operands becomes `Scalar::name`, whose
/// second operand is a `Scalar` or a plain `f64`, and a type of
/// [`two_operand`] that [`Scalar::plain_first`] takes when the first
/// operand is the plain one. The value is the `f64` method's and the
/// partials are the rule the row names.
macro_rules! two_operand_operations {
    ($($variant:ident $name:literal $spelling:ident $(($($how:tt),*))? $operands:literal $rule:ident $(($function:ident))? $absorbs:ident $computes:literal $derivative:literal;)*) => {
        /// The two-operand methods of the table as types, so that code
        /// generic over one (the facade's dispatch with a plain first
        /// operand) names its operation, value and rule together.
        #[doc(hidden)]
        pub mod two_operand {
            use crate::{rules, ScalarOperation};

            /// A two-operand method of the table.
            pub trait Rule {
                /// The operation it records.
                const OPERATION: ScalarOperation;
                /// Its value, the `f64` method's.
                fn value(a: f64, b: f64) -> f64;
                /// Its local derivatives `(∂/∂a, ∂/∂b)`, the row's rule.
                fn partials(a: f64, b: f64) -> (f64, f64);
            }
            $(two_operand_operations!(@marker $variant $spelling $(($($how),*))? $rule $(($function))?);)*
        }
        $(two_operand_operations!(@method $variant $spelling $(($($how),*))? $rule $(($function))? $computes $derivative);)*
    };
    (@marker $variant:ident method($method:ident, 1) operands($f:ident)) => {
        #[doc = concat!("`", stringify!($method), "`.")]
        pub struct $variant;
        impl Rule for $variant {
            const OPERATION: ScalarOperation = ScalarOperation::$variant;
            #[inline(always)]
            fn value(a: f64, b: f64) -> f64 {
                f64::$method(a, b)
            }
            #[inline(always)]
            fn partials(a: f64, b: f64) -> (f64, f64) {
                rules::$f(a, b)
            }
        }
    };
    (@marker $($other:tt)*) => {};
    (@method $variant:ident method($method:ident, 1) operands($f:ident) $computes:literal $derivative:literal) => {
        impl<'t> Scalar<'t> {
            #[doc = concat!("Records ", $computes, " with `a` = `self` and `b` = `rhs`, a `Scalar` or a plain `f64`. Derivatives: ", $derivative, ".")]
            #[doc = ""]
            #[doc = "A result or derivative that is not finite (outside the function's domain, at a"]
            #[doc = "pole, or after overflow) records nothing and is the matching error."]
            #[inline]
            pub fn $method(self, rhs: impl Into<Operand<'t>>) -> Result<Scalar<'t>, ScalarAutodiffError> {
                self.binary(ScalarOperation::$variant, rhs.into(), f64::$method, rules::$f)
            }
        }
    };
    (@method $($other:tt)*) => {};
}

autodiff_ops_table::operations!(two_operand_operations);

/// The one-operand functions of the table (`x.exp()`, `relu(x)`): each row
/// `method(name, 0)` or `function(name)` with one operand becomes
/// `Scalar::name`, its value the `f64` function's and its derivative the
/// rule the row names, called with the operand or the result as the row
/// says. `-x`, `x.powi(n)` and `detach` are written out above and in
/// `tape.rs`: an operator, an integer argument, a leaf.
macro_rules! one_operand_operations {
    ($($variant:ident $name:literal $spelling:ident $(($($how:tt),*))? $operands:literal $rule:ident $(($function:ident))? $absorbs:ident $computes:literal $derivative:literal;)*) => {
        $(one_operand_operations!(@row $variant $spelling $(($($how),*))? $operands $rule $(($function))? $computes $derivative);)*
    };
    // The operand count arrives as an opaque literal, which no pattern can
    // match against `1`: the spelling tells the rows apart instead.
    (@row $variant:ident method($method:ident, 0) $operands:literal $($rest:tt)*) => {
        one_operand_operations!(@emit $variant $method f64::$method, $($rest)*);
    };
    (@row Detached $($leaf:tt)*) => {};
    (@row $variant:ident function($function:ident) $operands:literal $($rest:tt)*) => {
        one_operand_operations!(@emit $variant $function $function, $($rest)*);
    };
    (@row $($other:tt)*) => {};
    (@emit $variant:ident $method:ident $primal:path, $rule:ident $(($f:ident))? $computes:literal $derivative:literal) => {
        impl<'t> Scalar<'t> {
            #[doc = concat!("Records ", $computes, " with `a` = `self`. Derivative: ", $derivative, ".")]
            #[doc = ""]
            #[doc = "A result or derivative that is not finite (outside the function's domain, at a"]
            #[doc = "pole, or after overflow) records nothing and is the matching error."]
            #[inline]
            pub fn $method(self) -> Result<Scalar<'t>, ScalarAutodiffError> {
                self.unary(
                    ScalarOperation::$variant,
                    one_operand_operations!(@local $primal, $rule $(($f))?),
                )
            }
        }
    };
    (@local $primal:path, operand($f:ident)) => {
        |x| ($primal(x), rules::$f(x))
    };
    (@local $primal:path, result($f:ident)) => {
        |x| {
            let y = $primal(x);
            (y, rules::$f(y))
        }
    };
    (@local $primal:path, zero) => {
        |x| ($primal(x), 0.0)
    };
}

autodiff_ops_table::operations!(one_operand_operations);

/// A plain operand must be finite: it enters the result, and `max`/`min`
/// would otherwise drop a NaN silently.
fn check_constant(
    operation: ScalarOperation,
    operand: usize,
    value: f64,
    operands: Operands,
) -> Result<(), ScalarAutodiffError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(ScalarAutodiffError::NonFiniteOperand {
            operation,
            operand,
            value,
            operands,
            label: None,
        })
    }
}

/// Expands the table into [`one_operand_local`]: the same value and rule
/// per row as `one_operand_operations`, by the operation's variant.
macro_rules! one_operand_locals {
    ($($variant:ident $name:literal $spelling:ident $(($($how:tt),*))? $operands:literal $rule:ident $(($function:ident))? $absorbs:ident $computes:literal $derivative:literal;)*) => {
        /// The value and the local derivative that the tape records for the
        /// one-operand operation `operation` at `x` (`Tanh` at `+∞`: 1 and
        /// 0), or `None` for an operation of another kind (`add`, `powi`).
        ///
        /// ```
        /// use autodiff_core::{one_operand_local, ScalarOperation};
        ///
        /// assert_eq!(one_operand_local(ScalarOperation::Tanh, f64::INFINITY), Some((1.0, 0.0)));
        /// assert_eq!(one_operand_local(ScalarOperation::Add, 1.0), None);
        /// ```
        pub fn one_operand_local(operation: ScalarOperation, x: f64) -> Option<(f64, f64)> {
            match operation {
                $(ScalarOperation::$variant => one_operand_locals!(@arm x, $variant $spelling $(($($how),*))? $rule $(($function))?),)*
            }
        }
    };
    (@arm $x:ident, Detached $($rest:tt)*) => { None };
    (@arm $x:ident, $variant:ident method($method:ident, 0) $rule:ident $(($f:ident))?) => {
        Some((one_operand_operations!(@local f64::$method, $rule $(($f))?))($x))
    };
    (@arm $x:ident, $variant:ident function($function:ident) $rule:ident $(($f:ident))?) => {
        Some((one_operand_operations!(@local $function, $rule $(($f))?))($x))
    };
    (@arm $x:ident, $($other:tt)*) => { None };
}

autodiff_ops_table::operations!(one_operand_locals);
