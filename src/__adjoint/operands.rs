//! The student's values that the reverse sweep reads where the macro
//! cannot see their type, and the function's value: each passes through
//! [`f64_of`], which accepts what the plain twin rejects, so that a type
//! mistake in the body is the plain twin's error alone.
//!
//! A proc macro sees no types. The reverse sweep of `x * n` reads `n`
//! (`x_bar += value_bar * n`); with `n: usize` the plain twin already
//! reports `cannot multiply f64 by usize` on the student's `*`, and a
//! second copy from generated code would land on the `#[differentiable]`
//! line. Where the body does not show an operand is an `f64` (a parameter
//! or binding of another or unknown type, a `const`), the emitter writes
//! `value_bar * f64_of(n)` instead: `usize` converts, so the adjoint
//! type-checks, and the crate still does not compile, because the plain
//! twin does not. A valid body never reaches the conversions of integers
//! and `bool` except through an integer binding the flow analysis calls
//! tracked, whose adjoint is a [`NoAdjoint`](super::NoAdjoint) that
//! ignores them.

/// A value the reverse sweep reads as an `f64`: an `f64` or a reference to
/// one; an integer, `bool` or `f32` only in a body the plain twin rejects.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number",
    label = "the plain function's arithmetic needs an `f64` here",
    note = "a #[differentiable] function computes on f64 values"
)]
pub trait Operand {
    /// The value as an `f64`.
    fn f64_of(self) -> f64;
}

impl Operand for f64 {
    #[inline(always)]
    fn f64_of(self) -> f64 {
        self
    }
}

impl<T: Operand + Copy> Operand for &T {
    #[inline(always)]
    fn f64_of(self) -> f64 {
        (*self).f64_of()
    }
}

impl<T: Operand + Copy> Operand for &mut T {
    #[inline(always)]
    fn f64_of(self) -> f64 {
        (*self).f64_of()
    }
}

/// Types the plain twin's `f64` arithmetic rejects (`x * n`, `x + flag`,
/// `-> f64 { n }`): converted as `as` would, so that the adjoint
/// type-checks while the plain twin reports the mistake.
macro_rules! rejected_by_the_plain_twin {
    ($($t:ty)*) => {$(
        #[diagnostic::do_not_recommend]
        impl Operand for $t {
            #[inline(always)]
            fn f64_of(self) -> f64 {
                self as f64
            }
        }
    )*};
}

rejected_by_the_plain_twin!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32);

/// What a `type` alias of another type than `f64` returns (`-> Pair` with
/// `type Pair = (f64, f64)`): the gradient asserts the alias is `f64`
/// ([`ReturnsF64`]), so these never run in a crate that compiles; a NaN
/// would fail the sweep.
macro_rules! returned_through_an_alias {
    ($($ty:ty => [$($g:tt)*]),* $(,)?) => {$(
        #[diagnostic::do_not_recommend]
        impl<$($g)*> Operand for $ty {
            fn f64_of(self) -> f64 {
                f64::NAN
            }
        }
    )*};
}

for_each_non_f64_return!(returned_through_an_alias);

#[diagnostic::do_not_recommend]
impl Operand for bool {
    #[inline(always)]
    fn f64_of(self) -> f64 {
        f64::from(u8::from(self))
    }
}

/// `value` as an `f64`: what the reverse sweep reads of an operand whose
/// type the body does not show.
///
/// ```
/// use autodiff::__adjoint::f64_of;
///
/// let w = 0.5;
/// let v = &w;
/// assert_eq!(f64_of(w) * f64_of(v), 0.25);
/// ```
#[inline(always)]
pub fn f64_of<V: Operand>(value: V) -> f64 {
    value.f64_of()
}

/// The type a `#[differentiable]` function returns: `f64`, also through a
/// `type` alias, which the macro cannot see through. `Self` is the declared
/// return type and `V` the type of the value the body computes: when they
/// differ, the plain twin's mismatched types is the one error, so any
/// declared type passes with an `f64` value; an `f64` value is what
/// passes. The generated adjoint names `<Real as ReturnsF64<_>>::value` on
/// the body's value; where the adjoint keeps the tape, the gradient names
/// `<f64 as ReturnsF64<Real>>::asserted`, which passes for `f64` alone.
///
/// ```
/// use autodiff::__adjoint::ReturnsF64;
///
/// type Real = f64;
/// let _: fn() = <f64 as ReturnsF64<Real>>::asserted;
/// assert_eq!(<Real as ReturnsF64<_>>::value(2.5), 2.5);
/// ```
#[diagnostic::on_unimplemented(
    message = "a #[differentiable] function must return `f64`, not `{V}`",
    label = "this is `{V}`, not `f64`",
    note = "gradients are exact in f64: return `f64` (or an alias of it)"
)]
pub trait ReturnsF64<V> {
    /// The body's value.
    fn value(value: V) -> f64;
    /// Does nothing: naming it is the assertion.
    fn asserted() {}
}

impl<R> ReturnsF64<f64> for R {
    #[inline(always)]
    fn value(value: f64) -> f64 {
        value
    }
}

/// A second impl, so that rustc reads `V` off the body's value instead of
/// taking the one impl's `f64` and reporting mismatched types.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum NotReturned {}

impl<R> ReturnsF64<NotReturned> for R {
    fn value(value: NotReturned) -> f64 {
        match value {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_references_read_as_their_value() {
        let x = 2.5_f64;
        assert_eq!(f64_of(x), 2.5);
        // `for v in x.iter()` hands out references, `for v in &refs` two.
        let (one, two): (&f64, &&f64) = (&x, &&x);
        assert_eq!(f64_of(one), 2.5);
        assert_eq!(f64_of(two), 2.5);
        // A literal infers `f64` among the candidates.
        assert_eq!(f64_of(1.5), 1.5);
        // What only a rejected body reaches still converts without a panic.
        assert_eq!(f64_of(3_usize), 3.0);
        assert_eq!(f64_of(true), 1.0);
        assert_eq!(f64_of(-2_i32), -2.0);
    }
}
