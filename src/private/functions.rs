//! The one-operand functions (`exp`, `tanh`, `-x`, `abs`, `powi`, ...):
//! the [`Real`] family on tracked and plain `f64` alike, and [`Signed`],
//! which also covers signed integers.

use autodiff_core::{Label, Scalar};

use super::{record, Result};

/// The elementary functions, on tracked and plain `f64` values alike.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no elementary functions in a #[differentiable] function",
    label = "expected an f64 value (tracked or plain) here",
    note = "exp, ln, tanh, sin, cos, sqrt, abs, recip, relu, sigmoid, powi and neg apply to f64 values"
)]
pub trait Real: Sized {
    /// `Scalar` for a tracked value, `f64` for a plain one.
    type Output;
    /// Records (or computes) the function named by `operation`.
    fn apply(self, operation: Unary, at: Label) -> Result<Self::Output>;
}

/// The one-operand functions the macro rewrites.
#[derive(Clone, Copy, Debug)]
pub enum Unary {
    /// `-x`
    Neg,
    /// `x.exp()`
    Exp,
    /// `x.ln()`
    Ln,
    /// `x.tanh()`
    Tanh,
    /// `x.sin()`
    Sin,
    /// `x.cos()`
    Cos,
    /// `x.sqrt()`
    Sqrt,
    /// `x.abs()`
    Abs,
    /// `x.recip()`
    Recip,
    /// `relu(x)`
    Relu,
    /// `sigmoid(x)`
    Sigmoid,
    /// `x.powi(n)`
    Powi(i32),
    /// `detach(x)`
    Detach,
}

impl<'t> Real for Scalar<'t> {
    type Output = Scalar<'t>;
    #[inline]
    fn apply(self, operation: Unary, at: Label) -> Result<Scalar<'t>> {
        let node = match operation {
            Unary::Neg => self.neg(),
            Unary::Exp => self.exp(),
            Unary::Ln => self.ln(),
            Unary::Tanh => self.tanh(),
            Unary::Sin => self.sin(),
            Unary::Cos => self.cos(),
            Unary::Sqrt => self.sqrt(),
            Unary::Abs => self.abs(),
            Unary::Recip => self.recip(),
            Unary::Relu => self.relu(),
            Unary::Sigmoid => self.sigmoid(),
            Unary::Powi(n) => self.powi(n),
            Unary::Detach => self.detach(),
        };
        record(node, at)
    }
}

impl Real for f64 {
    type Output = f64;
    #[inline]
    fn apply(self, operation: Unary, _: Label) -> Result<f64> {
        Ok(match operation {
            Unary::Neg => -self,
            Unary::Exp => self.exp(),
            Unary::Ln => self.ln(),
            Unary::Tanh => self.tanh(),
            Unary::Sin => self.sin(),
            Unary::Cos => self.cos(),
            Unary::Sqrt => self.sqrt(),
            Unary::Abs => self.abs(),
            Unary::Recip => self.recip(),
            Unary::Relu => autodiff_core::relu(self),
            Unary::Sigmoid => autodiff_core::sigmoid(self),
            Unary::Powi(n) => self.powi(n),
            Unary::Detach => self,
        })
    }
}

impl<'t> Real for &Scalar<'t> {
    type Output = Scalar<'t>;
    #[inline]
    fn apply(self, operation: Unary, at: Label) -> Result<Scalar<'t>> {
        (*self).apply(operation, at)
    }
}

impl Real for &f64 {
    type Output = f64;
    #[inline]
    fn apply(self, operation: Unary, at: Label) -> Result<f64> {
        (*self).apply(operation, at)
    }
}

macro_rules! unary {
    ($($(#[$doc:meta])* $name:ident => $operation:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name<X: Real>(x: X, at: Label) -> Result<X::Output> {
            x.apply(Unary::$operation, at)
        }
    )*};
}

unary! {
    /// `x.exp()`.
    exp => Exp;
    /// `x.ln()`.
    ln => Ln;
    /// `x.tanh()`.
    tanh => Tanh;
    /// `x.sin()`.
    sin => Sin;
    /// `x.cos()`.
    cos => Cos;
    /// `x.sqrt()`.
    sqrt => Sqrt;
    /// `x.recip()`.
    recip => Recip;
    /// `relu(x)`.
    relu => Relu;
    /// `sigmoid(x)`.
    sigmoid => Sigmoid;
    /// `detach(x)`: same value, no edge.
    detach => Detach;
}

/// `-x` and `x.abs()`: elementary on f64 values, and also defined on signed
/// integers, which a loop index may be.
#[diagnostic::on_unimplemented(
    message = "cannot negate or take the absolute value of `{Self}` in a #[differentiable] function",
    label = "expected an f64 value (tracked or plain) or a signed integer here"
)]
pub trait Signed: Sized {
    /// `Scalar` for a tracked value, the plain type otherwise.
    type Output;
    /// `-self`.
    fn negate(self, at: Label) -> Result<Self::Output>;
    /// `|self|`.
    fn absolute(self, at: Label) -> Result<Self::Output>;
}

impl<X: Real> Signed for X {
    type Output = X::Output;
    #[inline]
    fn negate(self, at: Label) -> Result<X::Output> {
        self.apply(Unary::Neg, at)
    }
    #[inline]
    fn absolute(self, at: Label) -> Result<X::Output> {
        self.apply(Unary::Abs, at)
    }
}

/// Signed integers have no `exp`, so they implement `Signed` directly:
/// negation and `abs` as Rust defines them.
macro_rules! signed_integers {
    ($($int:ty)*) => {$(
        impl Signed for $int {
            type Output = $int;
            #[inline]
            fn negate(self, _: Label) -> Result<$int> {
                Ok(-self)
            }
            #[inline]
            fn absolute(self, _: Label) -> Result<$int> {
                Ok(self.abs())
            }
        }
    )*};
}

signed_integers!(i8 i16 i32 i64 i128 isize);

/// `-x`.
pub fn neg<X: Signed>(x: X, at: Label) -> Result<X::Output> {
    x.negate(at)
}

/// `x.abs()`.
pub fn abs<X: Signed>(x: X, at: Label) -> Result<X::Output> {
    x.absolute(at)
}

/// `x.powi(n)`.
pub fn powi<X: Real>(x: X, n: i32, at: Label) -> Result<X::Output> {
    x.apply(Unary::Powi(n), at)
}
