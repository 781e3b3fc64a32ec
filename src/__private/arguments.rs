//! Calls of other `#[differentiable]` functions from a recording: each
//! argument converted to the parameter type the callee's `_tape` twin
//! declares ([`Arg`]), slice parameters on the tape ([`Slice`]), and the
//! call itself ([`Twin`]), matched to the twin's parameter count.
//!
//! Most impls here are mistakes: an argument of the wrong type, shape or
//! count, which the plain twin already rejects. They never run; they exist
//! so that the plain twin's error is the only one.

use std::borrow::Cow;

use autodiff_core::{Scalar, Tape};

use super::Lift;

/// An argument passed to another `#[differentiable]` function's `_tape`
/// twin, converted to the parameter type rustc expects there: plain `f64`
/// becomes a constant node where a `Scalar` is expected, anything else is
/// passed as is.
#[diagnostic::on_unimplemented(
    message = "cannot pass `{Self}` where the `_tape` function expects `{Target}`",
    label = "this argument has type `{Self}`",
    note = "a #[differentiable] function takes tracked f64 values, arrays or Vecs of them, and its own pass-through parameters"
)]
pub trait Arg<'t, Target> {
    /// Converts the argument.
    fn arg(self, tape: &'t Tape) -> Target;
}

impl<'t, T> Arg<'t, T> for T {
    #[inline]
    fn arg(self, _: &'t Tape) -> T {
        self
    }
}

impl<'t> Arg<'t, Scalar<'t>> for f64 {
    #[inline]
    fn arg(self, tape: &'t Tape) -> Scalar<'t> {
        self.lift(tape, None)
    }
}

impl<'t> Arg<'t, Scalar<'t>> for &Scalar<'t> {
    #[inline]
    fn arg(self, _: &'t Tape) -> Scalar<'t> {
        *self
    }
}

impl<'t, const N: usize> Arg<'t, [Scalar<'t>; N]> for [f64; N] {
    #[inline]
    fn arg(self, tape: &'t Tape) -> [Scalar<'t>; N] {
        self.lift(tape, None)
    }
}

impl<'t, const M: usize, const N: usize> Arg<'t, [[Scalar<'t>; M]; N]> for [[f64; M]; N] {
    #[inline]
    fn arg(self, tape: &'t Tape) -> [[Scalar<'t>; M]; N] {
        self.lift(tape, None)
    }
}

impl<'t> Arg<'t, Vec<Scalar<'t>>> for Vec<f64> {
    #[inline]
    fn arg(self, tape: &'t Tape) -> Vec<Scalar<'t>> {
        self.lift(tape, None)
    }
}

/// A tracked value passed where the callee takes an integer or a `bool`:
/// the plain twin passes an `f64` there, which does not compile, so these
/// never run; they leave the plain twin's mismatched types the only error.
macro_rules! passed_by_mistake {
    ($($plain:ty)*) => {$(
        #[diagnostic::do_not_recommend]
        impl<'t> Arg<'t, $plain> for Scalar<'t> {
            fn arg(self, _: &'t Tape) -> $plain {
                unreachable!("the plain twin does not compile")
            }
        }
        #[diagnostic::do_not_recommend]
        impl<'t> Arg<'t, $plain> for &Scalar<'t> {
            fn arg(self, _: &'t Tape) -> $plain {
                unreachable!("the plain twin does not compile")
            }
        }
    )*};
}

passed_by_mistake!(bool i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

/// A value of another shape than the callee's parameter (a `Vec` where it
/// takes an `f64`, a number where it takes an array, an array where it
/// takes a `Vec` or a slice): the plain twin passes the same shapes of
/// `f64`, which does not compile, so these never run; they leave the plain
/// twin's mismatched types the only error.
macro_rules! mistaken_shapes {
    ($([$($g:tt)*] $from:ty => $to:ty;)*) => {$(
        #[diagnostic::do_not_recommend]
        impl<'t, $($g)*> Arg<'t, $to> for $from {
            fn arg(self, _: &'t Tape) -> $to {
                unreachable!("the plain twin does not compile")
            }
        }
    )*};
}

mistaken_shapes! {
    [T, const N: usize] [T; N] => Scalar<'t>;
    [T, const N: usize] &[T; N] => Scalar<'t>;
    [T] Vec<T> => Scalar<'t>;
    [T] &Vec<T> => Scalar<'t>;
    [T] &[T] => Scalar<'t>;
    [T: Clone] Cow<'_, [T]> => Scalar<'t>;
    [const N: usize] Scalar<'t> => [Scalar<'t>; N];
    [const N: usize] &Scalar<'t> => [Scalar<'t>; N];
    [const N: usize] f64 => [Scalar<'t>; N];
    [T, const N: usize] Vec<T> => [Scalar<'t>; N];
    [T, const N: usize] &Vec<T> => [Scalar<'t>; N];
    [T, const N: usize] &[T] => [Scalar<'t>; N];
    [T: Clone, const N: usize] Cow<'_, [T]> => [Scalar<'t>; N];
    [] Scalar<'t> => Vec<Scalar<'t>>;
    [] &Scalar<'t> => Vec<Scalar<'t>>;
    [] f64 => Vec<Scalar<'t>>;
    [T, const N: usize] [T; N] => Vec<Scalar<'t>>;
    [T, const N: usize] &[T; N] => Vec<Scalar<'t>>;
    [T] &Vec<T> => Vec<Scalar<'t>>;
    [T] &[T] => Vec<Scalar<'t>>;
    [T: Clone] Cow<'_, [T]> => Vec<Scalar<'t>>;
    ['a] Scalar<'t> => Slice<'a, Scalar<'t>>;
    ['a] &Scalar<'t> => Slice<'a, Scalar<'t>>;
    ['a] f64 => Slice<'a, Scalar<'t>>;
    ['a, T, const N: usize] [T; N] => Slice<'a, Scalar<'t>>;
    ['a, T] Vec<T> => Slice<'a, Scalar<'t>>;
}

/// A `Vec` or an array passed to a pass-through slice parameter (a
/// `#[constant] x: &[f64]` given a row `&Vec<f64>` of a `#[constant]` table):
/// the deref coercion a direct call makes, which a call through [`Twin`]'s
/// generic parameters does not.
impl<'t, 'r, T> Arg<'t, &'r [T]> for &'r Vec<T> {
    #[inline]
    fn arg(self, _: &'t Tape) -> &'r [T] {
        self.as_slice()
    }
}

impl<'t, 'r, T, const N: usize> Arg<'t, &'r [T]> for &'r [T; N] {
    #[inline]
    fn arg(self, _: &'t Tape) -> &'r [T] {
        self.as_slice()
    }
}

/// A slice parameter on the tape: borrowed when the caller already holds
/// tracked values, owned when plain numbers had to be lifted first (a
/// `#[constant]` slice or a literal passed on to a differentiable one).
pub type Slice<'a, T> = Cow<'a, [T]>;

/// Borrows tracked values as a slice parameter.
pub fn slice<T: Clone>(items: &[T]) -> Slice<'_, T> {
    Cow::Borrowed(items)
}

impl<'t, 'r, T: Clone> Arg<'t, Slice<'r, T>> for &'r [T] {
    #[inline]
    fn arg(self, _: &'t Tape) -> Slice<'r, T> {
        Cow::Borrowed(self)
    }
}

impl<'t, 'r, T: Clone> Arg<'t, Slice<'r, T>> for &'r Vec<T> {
    #[inline]
    fn arg(self, _: &'t Tape) -> Slice<'r, T> {
        Cow::Borrowed(self.as_slice())
    }
}

impl<'t, 'r, T: Clone, const N: usize> Arg<'t, Slice<'r, T>> for &'r [T; N] {
    #[inline]
    fn arg(self, _: &'t Tape) -> Slice<'r, T> {
        Cow::Borrowed(self.as_slice())
    }
}

/// Plain numbers passed to a differentiable slice parameter become
/// constant nodes, owned by the argument.
macro_rules! plain_slice_args {
    ($($plain:ty => $tracked:ty),* $(,)?) => {$(
        impl<'t, 'a> Arg<'t, Slice<'a, $tracked>> for &[$plain] {
            #[inline]
            fn arg(self, tape: &'t Tape) -> Slice<'a, $tracked> {
                Cow::Owned(self.iter().map(|item| item.lift(tape, None)).collect())
            }
        }
        impl<'t, 'a> Arg<'t, Slice<'a, $tracked>> for &Vec<$plain> {
            #[inline]
            fn arg(self, tape: &'t Tape) -> Slice<'a, $tracked> {
                self.as_slice().arg(tape)
            }
        }
        impl<'t, 'a, const N: usize> Arg<'t, Slice<'a, $tracked>> for &[$plain; N] {
            #[inline]
            fn arg(self, tape: &'t Tape) -> Slice<'a, $tracked> {
                self.as_slice().arg(tape)
            }
        }
    )*};
}

// Rows of plain numbers too (a `#[constant] xs: &[Vec<f64>]` of inputs
// passed to a differentiable parameter of rows).
plain_slice_args!(f64 => Scalar<'t>, Vec<f64> => Vec<Scalar<'t>>);

impl<'t, 'a, const M: usize> Arg<'t, Slice<'a, [Scalar<'t>; M]>> for &[[f64; M]] {
    #[inline]
    fn arg(self, tape: &'t Tape) -> Slice<'a, [Scalar<'t>; M]> {
        Cow::Owned(self.iter().map(|item| (*item).lift(tape, None)).collect())
    }
}

/// `arg` as a function, for generated code.
pub fn arg<'t, T: Arg<'t, Target>, Target>(tape: &'t Tape, value: T) -> Target {
    value.arg(tape)
}

/// A call of another annotated function's recording twin, `twin(tape,
/// args..)`, with its arguments converted by [`Arg`] to the parameter types
/// the twin declares (`P`, read off the twin's signature).
///
/// A call with another number of arguments than the twin takes is the
/// plain twin's error (`this function takes 1 argument but 2 were
/// supplied`): the impls for those counts never run, so that error is the
/// only one.
pub trait Twin<'t, A, P, R> {
    /// Calls the twin.
    fn call_twin(self, tape: &'t Tape, args: A) -> R;
}

/// `twin(tape, args..)` for generated code. `R` is what the twin returns:
/// a `Result` of a `Scalar`, or of a vector-valued function's output
/// (see [`Called`](super::Called)).
#[inline(always)]
pub fn call_twin<'t, F: Twin<'t, A, P, R>, A, P, R>(tape: &'t Tape, twin: F, args: A) -> R {
    twin.call_twin(tape, args)
}

/// A call whose count matches the twin's: each argument converted.
macro_rules! twin_call {
    ($($a:ident $A:ident $P:ident),+) => {
        impl<'t, F, R, $($A, $P),+> Twin<'t, ($($A,)+), ($($P,)+), R> for F
        where
            F: FnOnce(&'t Tape, $($P),+) -> R,
            $($A: Arg<'t, $P>,)+
        {
            #[inline(always)]
            fn call_twin(self, tape: &'t Tape, ($($a,)+): ($($A,)+)) -> R {
                self(tape, $($a.arg(tape)),+)
            }
        }
    };
}

/// A call with another count than the twin takes: never runs.
macro_rules! twin_mistake {
    (($($A:ident)+) ($($P:ident)+)) => {
        #[diagnostic::do_not_recommend]
        impl<'t, F, R, $($A,)+ $($P),+> Twin<'t, ($($A,)+), ($($P,)+), R> for F
        where
            F: FnOnce(&'t Tape, $($P),+) -> R,
        {
            fn call_twin(self, _: &'t Tape, _: ($($A,)+)) -> R {
                unreachable!("the plain twin does not compile")
            }
        }
    };
}

/// Every count from the list against every other: each row is one count's
/// arguments and parameters, and its arguments meet the parameters of every
/// row before it and after it, never its own.
macro_rules! twin_mistakes {
    ([$(($before_a:tt $before_p:tt))*]) => {};
    ([$(($before_a:tt $before_p:tt))*] ($a:tt $p:tt) $(($after_a:tt $after_p:tt))*) => {
        $(twin_mistake!($a $before_p);)*
        $(twin_mistake!($a $after_p);)*
        twin_mistakes!([$(($before_a $before_p))* ($a $p)] $(($after_a $after_p))*);
    };
}

// Up to 12 arguments; a wrong count is one error up to 8.
for_each_arity!(twin_call);

twin_mistakes! {
    []
    ((A0) (P0))
    ((A0 A1) (P0 P1))
    ((A0 A1 A2) (P0 P1 P2))
    ((A0 A1 A2 A3) (P0 P1 P2 P3))
    ((A0 A1 A2 A3 A4) (P0 P1 P2 P3 P4))
    ((A0 A1 A2 A3 A4 A5) (P0 P1 P2 P3 P4 P5))
    ((A0 A1 A2 A3 A4 A5 A6) (P0 P1 P2 P3 P4 P5 P6))
    ((A0 A1 A2 A3 A4 A5 A6 A7) (P0 P1 P2 P3 P4 P5 P6 P7))
}

/// What a `#[constant]` parameter of type `f64` may be passed in a
/// recording (`Target` is `f64`): a plain `f64`. A tracked value there
/// would lose its gradient, so it is one error on the argument; the check
/// returns `Target` whatever the argument, so the call (`Twin`) is not
/// reported again.
#[diagnostic::on_unimplemented(
    message = "this argument is tracked, but the parameter it is passed to is `#[constant]`",
    label = "this value depends on a differentiable parameter: passed as a constant, its gradient would be lost",
    note = "pass a value that does not depend on a differentiable parameter (`detach(x)` is the value without its gradient), or remove `#[constant]` from the callee's parameter"
)]
pub trait ConstantArgument<Target> {
    /// The value itself.
    fn constant_argument(self) -> Target;
}

#[diagnostic::do_not_recommend]
impl ConstantArgument<f64> for f64 {
    #[inline(always)]
    fn constant_argument(self) -> f64 {
        self
    }
}

/// Values of another type than `f64` (an integer literal, a reference):
/// the plain twin's mismatched types, so these never run; they leave that
/// the only error.
macro_rules! constant_arguments_by_mistake {
    ($([$($g:tt)*] $ty:ty;)*) => {$(
        #[diagnostic::do_not_recommend]
        impl<$($g)*> ConstantArgument<f64> for $ty {
            fn constant_argument(self) -> f64 {
                unreachable!("the plain twin does not compile")
            }
        }
    )*};
    ($($plain:ty)*) => {
        constant_arguments_by_mistake! { $([] $plain;)* }
    };
}

constant_arguments_by_mistake!(f32 bool i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

constant_arguments_by_mistake! {
    ['r] &'r f64;
}

/// The argument checks of a call's positions that have none of their own:
/// the identity. A companion (`emit/companion.rs`) defines `argument_I`
/// itself, bounded by [`ConstantArgument`], for a `#[constant]` `f64`
/// parameter at (1-based) position `I`; an inherent method is found
/// before this trait's.
#[doc(hidden)]
pub trait ArgumentChecks {
    /// Position 1.
    #[inline(always)]
    fn argument_1<A>(&self, value: A) -> A {
        value
    }
    /// Position 2.
    #[inline(always)]
    fn argument_2<A>(&self, value: A) -> A {
        value
    }
    /// Position 3.
    #[inline(always)]
    fn argument_3<A>(&self, value: A) -> A {
        value
    }
    /// Position 4.
    #[inline(always)]
    fn argument_4<A>(&self, value: A) -> A {
        value
    }
    /// Position 5.
    #[inline(always)]
    fn argument_5<A>(&self, value: A) -> A {
        value
    }
    /// Position 6.
    #[inline(always)]
    fn argument_6<A>(&self, value: A) -> A {
        value
    }
    /// Position 7.
    #[inline(always)]
    fn argument_7<A>(&self, value: A) -> A {
        value
    }
    /// Position 8.
    #[inline(always)]
    fn argument_8<A>(&self, value: A) -> A {
        value
    }
    /// Position 9.
    #[inline(always)]
    fn argument_9<A>(&self, value: A) -> A {
        value
    }
    /// Position 10.
    #[inline(always)]
    fn argument_10<A>(&self, value: A) -> A {
        value
    }
    /// Position 11.
    #[inline(always)]
    fn argument_11<A>(&self, value: A) -> A {
        value
    }
    /// Position 12.
    #[inline(always)]
    fn argument_12<A>(&self, value: A) -> A {
        value
    }
}

impl<T: ?Sized> ArgumentChecks for T {}

/// A `#[constant]` `f64` argument, checked: for generated code (a
/// companion's `argument_I`).
#[inline(always)]
pub fn constant_argument<T: ConstantArgument<f64>>(value: T) -> f64 {
    value.constant_argument()
}
