//! The one-operand functions (`exp`, `tanh`, `tan`, `floor`, `-x`, `abs`,
//! `powi`, ...): the [`Real`] family on tracked and plain `f64` alike,
//! expanded from the table of operations so that a new row needs no edit
//! here, and [`Signed`], which also covers signed integers.

use autodiff_core::{Label, Scalar};

use super::sticky;

/// The elementary functions, on tracked and plain `f64` values alike.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no elementary functions in a #[differentiable] function",
    label = "expected an f64 value (tracked or plain) here",
    note = "the elementary functions (exp, ln, tanh, tan, floor, relu, ...) apply to f64 values"
)]
pub trait Real: Sized {
    /// `Scalar` for a tracked value, `f64` for a plain one.
    type Output;
    /// Records (or computes) the function named by `operation`.
    fn apply(self, operation: Unary, at: Label) -> Self::Output;
}

/// The one-operand functions of the table (`autodiff-ops-table`): every
/// `method(name, 0)` and `function(name)` row with one operand becomes a
/// variant of [`Unary`], its arm in the `Scalar` and `f64` dispatch and, but
/// for `abs` (which [`Signed`] also defines on integers), a runtime function
/// `name(x, at)`. `-x`, `x.powi(n)` and `detach(x)` are written out: they
/// are an operator, take an integer, and record a leaf.
macro_rules! one_operand {
    // `detach` records a leaf (no operand): written out below.
    (@munch [$($m:tt)*] [$($f:tt)*] Detached function(detach) $operands:literal $computes:literal; $($rest:tt)*) => {
        one_operand!(@munch [$($m)*] [$($f)*] $($rest)*);
    };
    // A method with no argument but its receiver (not `powi(n)`).
    (@munch [$($m:tt)*] [$($f:tt)*] $variant:ident method($method:ident, 0) $operands:literal $computes:literal; $($rest:tt)*) => {
        one_operand!(@munch [$($m)* ($variant $method $computes)] [$($f)*] $($rest)*);
    };
    (@munch [$($m:tt)*] [$($f:tt)*] $variant:ident function($function:ident) $operands:literal $computes:literal; $($rest:tt)*) => {
        one_operand!(@munch [$($m)*] [$($f)* ($variant $function $computes)] $($rest)*);
    };
    (@munch [$($m:tt)*] [$($f:tt)*] $variant:ident $spelling:ident $(($($how:tt),*))? $operands:literal $computes:literal; $($rest:tt)*) => {
        one_operand!(@munch [$($m)*] [$($f)*] $($rest)*);
    };
    (@munch [$(($mv:ident $method:ident $mc:literal))*] [$(($fv:ident $function:ident $fc:literal))*]) => {
        /// The one-operand functions the macro rewrites.
        #[derive(Clone, Copy, Debug)]
        pub enum Unary {
            /// `-x`
            Neg,
            /// `x.powi(n)`
            Powi(i32),
            /// `detach(x)`
            Detach,
            $(#[doc = $mc] $mv,)*
            $(#[doc = $fc] $fv,)*
        }

        impl<'t> Real for Scalar<'t> {
            type Output = Scalar<'t>;
            #[inline]
            fn apply(self, operation: Unary, at: Label) -> Scalar<'t> {
                let node = match operation {
                    Unary::Neg => self.neg(),
                    Unary::Powi(n) => self.powi(n),
                    Unary::Detach => self.detach(),
                    $(Unary::$mv => self.$method(),)*
                    $(Unary::$fv => self.$function(),)*
                };
                sticky(node, self.tape(), at, move || self.value().apply(operation, at))
            }
        }

        impl Real for f64 {
            type Output = f64;
            #[inline]
            fn apply(self, operation: Unary, _: Label) -> f64 {
                match operation {
                    Unary::Neg => -self,
                    Unary::Powi(n) => self.powi(n),
                    Unary::Detach => self,
                    $(Unary::$mv => self.$method(),)*
                    $(Unary::$fv => autodiff_core::$function(self),)*
                }
            }
        }

        $(one_operand!(@function $mv $method);)*
        $(one_operand!(@function $fv $function);)*
    };
    // `abs` is `Signed`'s, which integers share.
    (@function Abs abs) => {};
    (@function $variant:ident $name:ident) => {
        #[doc = concat!("`", stringify!($name), "(x)`, recorded when `x` is tracked.")]
        #[inline]
        pub fn $name<X: Real>(x: X, at: Label) -> X::Output {
            x.apply(Unary::$variant, at)
        }
    };
    ($($variant:ident $name:literal $spelling:ident $(($($how:tt),*))? $operands:literal $rule:ident $(($function:ident))? $absorbs:ident $computes:literal $derivative:literal;)*) => {
        one_operand!(@munch [] [] $($variant $spelling $(($($how),*))? $operands $computes;)*);
    };
}

autodiff_ops_table::operations!(one_operand);

impl<'t> Real for &Scalar<'t> {
    type Output = Scalar<'t>;
    #[inline]
    fn apply(self, operation: Unary, at: Label) -> Scalar<'t> {
        (*self).apply(operation, at)
    }
}

impl Real for &f64 {
    type Output = f64;
    #[inline]
    fn apply(self, operation: Unary, at: Label) -> f64 {
        (*self).apply(operation, at)
    }
}

/// `detach(x)`: same value, no edge.
pub fn detach<X: Real>(x: X, at: Label) -> X::Output {
    x.apply(Unary::Detach, at)
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
    fn negate(self, at: Label) -> Self::Output;
    /// `|self|`.
    fn absolute(self, at: Label) -> Self::Output;
}

impl<X: Real> Signed for X {
    type Output = X::Output;
    #[inline]
    fn negate(self, at: Label) -> X::Output {
        self.apply(Unary::Neg, at)
    }
    #[inline]
    fn absolute(self, at: Label) -> X::Output {
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
            fn negate(self, _: Label) -> $int {
                -self
            }
            #[inline]
            fn absolute(self, _: Label) -> $int {
                self.abs()
            }
        }
    )*};
}

signed_integers!(i8 i16 i32 i64 i128 isize);

/// `-x`.
pub fn neg<X: Signed>(x: X, at: Label) -> X::Output {
    x.negate(at)
}

/// `x.abs()`.
pub fn abs<X: Signed>(x: X, at: Label) -> X::Output {
    x.absolute(at)
}

/// `x.powi(n)`.
pub fn powi<X: Real, N: PowiExponent>(x: X, n: N, at: Label) -> X::Output {
    x.apply(Unary::Powi(n.exponent()), at)
}

/// `powi`'s exponent, in the recording twin and in the compiled adjoint's
/// derivative (`__adjoint::rules::powi_partial`): an `i32`, as `f64::powi`
/// takes. Any other number is the plain twin's mismatched types, so the
/// impls for them never run; they leave that error the only one. An
/// integer literal is an `i32` (the one integer impl that runs, and
/// rustc's fallback).
pub trait PowiExponent {
    /// The exponent.
    fn exponent(self) -> i32;
}

impl PowiExponent for i32 {
    #[inline(always)]
    fn exponent(self) -> i32 {
        self
    }
}

impl PowiExponent for &i32 {
    #[inline(always)]
    fn exponent(self) -> i32 {
        *self
    }
}

macro_rules! exponent_by_mistake {
    ($($ty:ty)*) => {$(
        #[diagnostic::do_not_recommend]
        impl PowiExponent for $ty {
            fn exponent(self) -> i32 {
                unreachable!("the plain twin does not compile")
            }
        }
    )*};
}

exponent_by_mistake!(i8 i16 i64 i128 isize u8 u16 u32 u64 u128 usize bool f32 f64 &f64 Scalar<'_> &Scalar<'_>);
