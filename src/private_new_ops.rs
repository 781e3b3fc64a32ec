//! What generated code calls for the elementary functions added with the
//! table's second batch (`tan atan sinh cosh asin acos ln_1p exp_m1 log10
//! log2 cbrt signum floor ceil round`, and the two-operand `hypot` and
//! `log`): one function per operation, dispatched on the operand types as
//! the rest of `__private` is, a recorded node for a tracked operand and
//! plain `f64` arithmetic otherwise.
//!
//! Self-contained (it uses only `autodiff_core`'s public API), so that it
//! can join `__private` with one `mod` line and `pub use`, and so that
//! `tests/elementary_functions.rs` can compile it on its own.

use autodiff_core::{Label, Operand, Scalar, ScalarAutodiffError};

type Result<T> = core::result::Result<T, ScalarAutodiffError>;

/// Labels a recorded node, or names the source of a recording error.
#[inline(always)]
fn labeled<'t>(result: Result<Scalar<'t>>, at: Label) -> Result<Scalar<'t>> {
    match result {
        Ok(node) => Ok(node.labeled(at)),
        Err(error) => Err(error.at(at)),
    }
}

/// The one-operand functions of this file.
#[derive(Clone, Copy, Debug)]
pub enum Function {
    Tan,
    Atan,
    Sinh,
    Cosh,
    Asin,
    Acos,
    Ln1p,
    ExpM1,
    Log10,
    Log2,
    Cbrt,
    Signum,
    Floor,
    Ceil,
    Round,
}

/// The functions of this file, on tracked and plain `f64` values alike.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no elementary functions in a #[differentiable] function",
    label = "expected an f64 value (tracked or plain) here"
)]
pub trait Elementary: Sized {
    /// `Scalar` for a tracked value, `f64` for a plain one.
    type Output;
    /// Records (or computes) `function`.
    fn elementary(self, function: Function, at: Label) -> Result<Self::Output>;
}

impl<'t> Elementary for Scalar<'t> {
    type Output = Scalar<'t>;
    #[inline]
    fn elementary(self, function: Function, at: Label) -> Result<Scalar<'t>> {
        let node = match function {
            Function::Tan => self.tan(),
            Function::Atan => self.atan(),
            Function::Sinh => self.sinh(),
            Function::Cosh => self.cosh(),
            Function::Asin => self.asin(),
            Function::Acos => self.acos(),
            Function::Ln1p => self.ln_1p(),
            Function::ExpM1 => self.exp_m1(),
            Function::Log10 => self.log10(),
            Function::Log2 => self.log2(),
            Function::Cbrt => self.cbrt(),
            Function::Signum => self.signum(),
            Function::Floor => self.floor(),
            Function::Ceil => self.ceil(),
            Function::Round => self.round(),
        };
        labeled(node, at)
    }
}

impl Elementary for f64 {
    type Output = f64;
    #[inline]
    fn elementary(self, function: Function, _: Label) -> Result<f64> {
        Ok(match function {
            Function::Tan => self.tan(),
            Function::Atan => self.atan(),
            Function::Sinh => self.sinh(),
            Function::Cosh => self.cosh(),
            Function::Asin => self.asin(),
            Function::Acos => self.acos(),
            Function::Ln1p => self.ln_1p(),
            Function::ExpM1 => self.exp_m1(),
            Function::Log10 => self.log10(),
            Function::Log2 => self.log2(),
            Function::Cbrt => self.cbrt(),
            Function::Signum => self.signum(),
            Function::Floor => self.floor(),
            Function::Ceil => self.ceil(),
            Function::Round => self.round(),
        })
    }
}

// `for v in x.iter()` hands out references; read through them.
impl<'t> Elementary for &Scalar<'t> {
    type Output = Scalar<'t>;
    #[inline]
    fn elementary(self, function: Function, at: Label) -> Result<Scalar<'t>> {
        (*self).elementary(function, at)
    }
}

impl Elementary for &f64 {
    type Output = f64;
    #[inline]
    fn elementary(self, function: Function, at: Label) -> Result<f64> {
        (*self).elementary(function, at)
    }
}

macro_rules! functions {
    ($($name:ident => $function:ident;)*) => {$(
        #[doc = concat!("`x.", stringify!($name), "()`.")]
        pub fn $name<X: Elementary>(x: X, at: Label) -> Result<X::Output> {
            x.elementary(Function::$function, at)
        }
    )*};
}

functions! {
    tan => Tan;
    atan => Atan;
    sinh => Sinh;
    cosh => Cosh;
    asin => Asin;
    acos => Acos;
    ln_1p => Ln1p;
    exp_m1 => ExpM1;
    log10 => Log10;
    log2 => Log2;
    cbrt => Cbrt;
    signum => Signum;
    floor => Floor;
    ceil => Ceil;
    round => Round;
}

/// The two-operand functions of this file.
#[derive(Clone, Copy, Debug)]
pub enum Function2 {
    /// `a.hypot(b)`
    Hypot,
    /// `a.log(b)`: the logarithm of `a` in base `b`.
    Log,
}

/// `hypot` and `log` on any mix of tracked and plain `f64` operands.
#[diagnostic::on_unimplemented(
    message = "cannot take `{Self}` with `{Rhs}` in a #[differentiable] function",
    label = "this operand has type `{Self}`",
    note = "`hypot` and `log` take two f64 values (tracked or plain)"
)]
pub trait Elementary2<Rhs> {
    /// `Scalar` when either operand is tracked, `f64` otherwise.
    type Output;
    /// Records (or computes) `function` of `self` and `rhs`.
    fn elementary2(self, function: Function2, rhs: Rhs, at: Label) -> Result<Self::Output>;
}

/// `a.hypot(b)` / `a.log(b)` with a tracked `a` and any `b`.
fn scalar_lhs<'t>(a: Scalar<'t>, function: Function2, b: Operand<'t>) -> Result<Scalar<'t>> {
    match function {
        Function2::Hypot => a.hypot(b),
        Function2::Log => a.log(b),
    }
}

impl<'t> Elementary2<Scalar<'t>> for Scalar<'t> {
    type Output = Scalar<'t>;
    #[inline]
    fn elementary2(self, function: Function2, rhs: Scalar<'t>, at: Label) -> Result<Scalar<'t>> {
        labeled(scalar_lhs(self, function, rhs.into()), at)
    }
}

impl<'t> Elementary2<f64> for Scalar<'t> {
    type Output = Scalar<'t>;
    #[inline]
    fn elementary2(self, function: Function2, rhs: f64, at: Label) -> Result<Scalar<'t>> {
        labeled(scalar_lhs(self, function, rhs.into()), at)
    }
}

impl<'t> Elementary2<Scalar<'t>> for f64 {
    type Output = Scalar<'t>;
    #[inline]
    fn elementary2(self, function: Function2, rhs: Scalar<'t>, at: Label) -> Result<Scalar<'t>> {
        let node = match function {
            // Symmetric in its operands.
            Function2::Hypot => rhs.hypot(self),
            Function2::Log => rhs.rlog(self),
        };
        labeled(node, at)
    }
}

impl Elementary2<f64> for f64 {
    type Output = f64;
    #[inline]
    fn elementary2(self, function: Function2, rhs: f64, _: Label) -> Result<f64> {
        Ok(match function {
            Function2::Hypot => self.hypot(rhs),
            Function2::Log => self.log(rhs),
        })
    }
}

/// Reads through the references that `iter()` hands out, on either side.
macro_rules! through_references {
    ($($Lhs:ty, $Rhs:ty => $Output:ty;)*) => {$(
        impl<'t> Elementary2<$Rhs> for $Lhs {
            type Output = $Output;
            #[inline]
            fn elementary2(self, function: Function2, rhs: $Rhs, at: Label) -> Result<$Output> {
                Elementary2::elementary2(*self, function, rhs, at)
            }
        }
    )*};
}

through_references! {
    &Scalar<'t>, Scalar<'t> => Scalar<'t>;
    &Scalar<'t>, f64 => Scalar<'t>;
    &f64, Scalar<'t> => Scalar<'t>;
    &f64, f64 => f64;
}

macro_rules! through_rhs_references {
    ($($Lhs:ty, $Rhs:ty => $Output:ty;)*) => {$(
        impl<'t> Elementary2<$Rhs> for $Lhs {
            type Output = $Output;
            #[inline]
            fn elementary2(self, function: Function2, rhs: $Rhs, at: Label) -> Result<$Output> {
                Elementary2::elementary2(self, function, *rhs, at)
            }
        }
    )*};
}

through_rhs_references! {
    Scalar<'t>, &Scalar<'t> => Scalar<'t>;
    Scalar<'t>, &f64 => Scalar<'t>;
    f64, &Scalar<'t> => Scalar<'t>;
    f64, &f64 => f64;
    &Scalar<'t>, &Scalar<'t> => Scalar<'t>;
    &Scalar<'t>, &f64 => Scalar<'t>;
    &f64, &Scalar<'t> => Scalar<'t>;
    &f64, &f64 => f64;
}

/// `a.hypot(b)`: records a node when either operand is a `Scalar`.
pub fn hypot<A: Elementary2<B>, B>(a: A, b: B, at: Label) -> Result<A::Output> {
    a.elementary2(Function2::Hypot, b, at)
}

/// `a.log(b)`: records a node when either operand is a `Scalar`.
pub fn log<A: Elementary2<B>, B>(a: A, b: B, at: Label) -> Result<A::Output> {
    a.elementary2(Function2::Log, b, at)
}
