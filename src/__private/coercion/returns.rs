//! The value a `_tape` function returns ([`Returned`]), lifted to a
//! `Scalar` that must be finite ([`output`]).

use autodiff_core::{Label, Scalar, Tape};

use super::Lift;

/// The result of a `_tape` function: its value lifted to a `Scalar`, which
/// must be finite. An infinite intermediate is recorded where its local
/// derivatives are finite (`enter`), but an infinity that reaches the
/// output is `NonFiniteResult` of the operation that made it; a constant
/// that reaches the output (a NaN `#[constant]`, an untouched
/// `f64::NEG_INFINITY`) is `NonFiniteLeaf`; both labelled `at`, the
/// output's source text and line. A recording `nested` in another's (see
/// [`Entry::nested`](super::super::Entry::nested)) hands an infinite output on to
/// its caller as the intermediate value it is there.
pub fn output<'t, T: Returned<'t>>(
    tape: &'t Tape,
    nested: bool,
    value: T,
    at: Label,
) -> Scalar<'t> {
    let output = value.returned(tape);
    if !nested && !output.value().is_finite() {
        tape.fail(non_finite_output(output, at));
    }
    output
}

/// What a `_tape` function may return: its value as a `Scalar`. The
/// output type is known from the value's type alone, with no bound to
/// unify, so that a body returning a `bool` or an integer from `-> f64`
/// is the plain twin's mismatched types, once.
#[diagnostic::on_unimplemented(
    message = "a #[differentiable] function returns an f64, not `{Self}`",
    label = "this is a `{Self}`"
)]
pub trait Returned<'t> {
    /// The value on `tape`.
    fn returned(self, tape: &'t Tape) -> Scalar<'t>;
}

impl<'t> Returned<'t> for f64 {
    #[inline]
    fn returned(self, tape: &'t Tape) -> Scalar<'t> {
        self.lift(tape, None)
    }
}

impl<'t> Returned<'t> for Scalar<'t> {
    #[inline]
    fn returned(self, _: &'t Tape) -> Scalar<'t> {
        self
    }
}

impl<'t> Returned<'t> for &Scalar<'t> {
    #[inline]
    fn returned(self, _: &'t Tape) -> Scalar<'t> {
        *self
    }
}

/// A `bool` or an integer returned from `-> f64`: the plain twin does not
/// compile (std has no such coercion), so these never run; they let the
/// plain twin's error be the only one.
macro_rules! returned_by_mistake {
    ($($plain:ty)*) => {$(
        #[diagnostic::do_not_recommend]
        impl<'t> Returned<'t> for $plain {
            fn returned(self, _: &'t Tape) -> Scalar<'t> {
                unreachable!("the plain twin does not compile")
            }
        }
    )*};
}

returned_by_mistake!(bool i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32);

/// What a `type` alias of another type than `f64` returns (`type Pair =
/// (f64, f64); fn f(x: f64) -> Pair`): a proc macro cannot see through the
/// alias, so the gradient asserts it is `f64` (`__adjoint::ReturnsF64`),
/// and these, which never run in a crate that compiles, leave that the one
/// error.
macro_rules! returned_through_an_alias {
    ($($ty:ty => [$($g:tt)*]),* $(,)?) => {$(
        #[diagnostic::do_not_recommend]
        impl<'t, $($g)*> Returned<'t> for $ty {
            fn returned(self, _: &'t Tape) -> Scalar<'t> {
                unreachable!("the return type's assertion does not compile")
            }
        }
    )*};
}

for_each_non_f64_return!(returned_through_an_alias);

#[cold]
#[inline(never)]
pub(crate) fn non_finite_output(
    output: Scalar<'_>,
    at: Label,
) -> autodiff_core::ScalarAutodiffError {
    use autodiff_core::ScalarOperation::{Constant, Detached, Variable};
    let value = output.value();
    match output.operation() {
        Constant | Variable | Detached => autodiff_core::ScalarAutodiffError::NonFiniteLeaf {
            operation: autodiff_core::ScalarOperation::Constant,
            value,
            label: Some(at),
        },
        operation => autodiff_core::ScalarAutodiffError::NonFiniteResult {
            operation,
            value,
            operands: output.operands(),
            label: Some(at),
        },
    }
}
