//! Values that must have one type: primal reads for comparisons
//! ([`Primal`]), lifting plain numbers to constant nodes ([`Lift`]), the
//! value returned ([`Returned`]), values assigned where the type is known
//! ([`LiftInto`]), indices ([`Position`]), values that must carry no
//! gradient ([`Untracked`], [`UntrackedFor`]) and recorded sums
//! ([`Summand`]). Call arguments to other differentiable functions are in
//! `arguments.rs`.
//!
//! Each kind of value has a file: `primals` (comparisons' primal reads),
//! `lifting` (plain numbers lifted to constants, and values assigned where
//! the type is known), `returns` (the value a `_tape` function returns,
//! which must be finite), `plain` (indices, casts, and values that must
//! carry no gradient, with the probe that tells a method without a rule),
//! and `sums` (recorded sums and products). This file makes integers and
//! tuples values of every kind at once.

mod lifting;
mod plain;
mod primals;
mod returns;
mod sums;

use autodiff_core::{Label, Tape};

pub use lifting::{
    chain_lifted, lift, lift_each, lift_into, lift_items, lifted_chain, Chained, Lift, LiftInto,
};
pub use plain::{
    cast, index, untracked, untracked_for, Cast, NoResult, NoResult2, PlainOf, Position, Probe,
    ShadowSame, ShadowTracked, Untracked, UntrackedFor,
};
pub use primals::{primal, Primal};
pub(super) use returns::non_finite_output;
pub use returns::{output, Returned};
pub use sums::{product, sum, Summand};

/// Integers are their own primal, stay integers when lifted and carry no
/// gradient.
macro_rules! integer_values {
    ($($int:ty)*) => {$(
        impl Primal for $int {
            type Value = $int;
            #[inline]
            fn primal(self) -> $int { self }
        }
        impl Primal for &$int {
            type Value = $int;
            #[inline]
            fn primal(self) -> $int { *self }
        }
        impl<'t> Lift<'t> for $int {
            type Lifted = $int;
            #[inline]
            fn lift(self, _: &'t Tape, _: Option<Label>) -> $int { self }
        }
        #[diagnostic::do_not_recommend]
        impl Untracked for $int {
            type Plain = $int;
            #[inline]
            fn plain(self) -> $int { self }
        }
    )*};
}

integer_values!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

/// Tuples (`match (x > 0.0, y > 0.0)`, `let mut best = (0, x[0])`) are
/// read and lifted element by element.
macro_rules! tuple_values {
    ($(($($T:ident $v:ident),+))*) => {$(
        impl<$($T: Primal),+> Primal for ($($T,)+) {
            type Value = ($($T::Value,)+);
            #[inline]
            fn primal(self) -> Self::Value {
                let ($($v,)+) = self;
                ($($v.primal(),)+)
            }
        }
        impl<'t, $($T: Lift<'t>),+> Lift<'t> for ($($T,)+) {
            type Lifted = ($($T::Lifted,)+);
            #[inline]
            fn lift(self, tape: &'t Tape, at: Option<Label>) -> Self::Lifted {
                let ($($v,)+) = self;
                ($($v.lift(tape, at),)+)
            }
        }
    )*};
}

tuple_values!((A a, B b) (A a, B b, C c) (A a, B b, C c, D d) (A a, B b, C c, D d, E e)
    (A a, B b, C c, D d, E e, F f));
