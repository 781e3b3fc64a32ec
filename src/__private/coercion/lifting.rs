//! Plain numbers lifted to constant nodes where they meet tracked values
//! ([`Lift`]), and values assigned where the type is known ([`LiftInto`]).

use autodiff_core::{Label, Scalar, Tape};

use super::super::{failed, sticky};

/// Makes a value that will meet tracked values a `Scalar`: plain `f64`
/// becomes a constant node, a `Scalar` stays itself, integers stay integers.
///
/// The macro lifts where Rust needs one type: a `let mut` that later receives
/// a tracked value, both arms of a branch, assignments and the return value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a tracked value in a #[differentiable] function",
    label = "expected f64, an array or Vec of f64, or an integer",
    note = "tracked values are f64; f32 and other number types are not supported"
)]
pub trait Lift<'t> {
    /// The lifted type.
    type Lifted;
    /// Lifts `self` onto `tape`.
    fn lift(self, tape: &'t Tape, at: Option<Label>) -> Self::Lifted;
}

impl<'t> Lift<'t> for f64 {
    type Lifted = Scalar<'t>;
    #[inline]
    fn lift(self, tape: &'t Tape, at: Option<Label>) -> Scalar<'t> {
        // A non-finite constant (`f64::NEG_INFINITY` starting a running
        // maximum) is lifted as it is: only a recorded result, or the
        // function's output, that is not finite is an error.
        match at {
            Some(at) => sticky(tape.lifted_constant(self), tape, at, move || self),
            None => match tape.lifted_constant(self) {
                Ok(constant) => constant,
                Err(error) => failed(tape, error, self),
            },
        }
    }
}

impl<'t> Lift<'t> for &f64 {
    type Lifted = Scalar<'t>;
    #[inline]
    fn lift(self, tape: &'t Tape, at: Option<Label>) -> Scalar<'t> {
        (*self).lift(tape, at)
    }
}

/// A reference to a reference: `&w` of a slice parameter `w: &[f64]`
/// (`v.extend_from_slice(&w)`), lifted as what it refers to.
impl<'t, 'b, X: ?Sized> Lift<'t> for &&'b X
where
    &'b X: Lift<'t>,
{
    type Lifted = <&'b X as Lift<'t>>::Lifted;
    #[inline]
    fn lift(self, tape: &'t Tape, at: Option<Label>) -> Self::Lifted {
        (*self).lift(tape, at)
    }
}

impl<'t> Lift<'t> for Scalar<'t> {
    type Lifted = Scalar<'t>;
    #[inline]
    fn lift(self, _: &'t Tape, _: Option<Label>) -> Scalar<'t> {
        self
    }
}

impl<'t> Lift<'t> for &Scalar<'t> {
    type Lifted = Scalar<'t>;
    #[inline]
    fn lift(self, _: &'t Tape, _: Option<Label>) -> Scalar<'t> {
        *self
    }
}

impl<'t> Lift<'t> for bool {
    type Lifted = bool;
    #[inline]
    fn lift(self, _: &'t Tape, _: Option<Label>) -> bool {
        self
    }
}

impl<'t, T: Lift<'t>, const N: usize> Lift<'t> for [T; N] {
    type Lifted = [T::Lifted; N];
    #[inline]
    fn lift(self, tape: &'t Tape, at: Option<Label>) -> Self::Lifted {
        self.map(|value| value.lift(tape, at))
    }
}

/// A slice appended to a tracked `Vec` (`v.extend_from_slice(y)`), or
/// passed to a closure that may take tracked values (`proj(&m, x)` of
/// constant rows `m`): its items, lifted (rows copied first), in a `Vec`
/// the call borrows.
impl<'t, T: Lift<'t> + Clone> Lift<'t> for &[T] {
    type Lifted = Vec<T::Lifted>;
    #[inline]
    fn lift(self, tape: &'t Tape, at: Option<Label>) -> Self::Lifted {
        self.iter()
            .map(|value| value.clone().lift(tape, at))
            .collect()
    }
}

/// `v.extend_from_slice(&[a, b])` or `&y` with `y: [f64; N]`: as a slice.
impl<'t, T: Lift<'t> + Clone, const N: usize> Lift<'t> for &[T; N] {
    type Lifted = Vec<T::Lifted>;
    #[inline]
    fn lift(self, tape: &'t Tape, at: Option<Label>) -> Self::Lifted {
        self.as_slice().lift(tape, at)
    }
}

/// `v.extend_from_slice(&y)` with `y: Vec<f64>`: as a slice.
impl<'t, T: Lift<'t> + Clone> Lift<'t> for &Vec<T> {
    type Lifted = Vec<T::Lifted>;
    #[inline]
    fn lift(self, tape: &'t Tape, at: Option<Label>) -> Self::Lifted {
        self.as_slice().lift(tape, at)
    }
}

impl<'t, T: Lift<'t>> Lift<'t> for Vec<T> {
    type Lifted = Vec<T::Lifted>;
    #[inline]
    fn lift(self, tape: &'t Tape, at: Option<Label>) -> Self::Lifted {
        self.into_iter().map(|value| value.lift(tape, at)).collect()
    }
}

/// `opt.unwrap_or(d)` of a tracked `opt` or `d`: what it holds, lifted.
impl<'t, T: Lift<'t>> Lift<'t> for Option<T> {
    type Lifted = Option<T::Lifted>;
    #[inline]
    fn lift(self, tape: &'t Tape, at: Option<Label>) -> Self::Lifted {
        self.map(|value| value.lift(tape, at))
    }
}

/// `lift` as a function, for generated code: a plain `f64` becomes a constant node labelled `at`, so that a rejected
/// constant (`f64::NEG_INFINITY`) names the binding it was meant for.
pub fn lift<'t, T: Lift<'t>>(tape: &'t Tape, value: T, at: Label) -> T::Lifted {
    value.lift(tape, Some(at))
}

/// `lift` of each item, for what `v.extend(..)` appends to a tracked `Vec`
/// (`v.extend(a.iter().map(|t| t * 0.5))` of plain `a`).
pub fn lift_each<'t, I>(
    tape: &'t Tape,
    items: I,
    at: Label,
) -> impl Iterator<Item = <I::Item as Lift<'t>>::Lifted> + use<'t, I>
where
    I: IntoIterator,
    I::Item: Lift<'t>,
{
    items.into_iter().map(move |item| item.lift(tape, Some(at)))
}

/// The items of a list that carries no derivative, lifted, where it is
/// chained with one that does (`w.iter().chain(c.iter())`, `c` a
/// `#[constant]` slice): on the tape the two halves must have one item
/// type. [`chain_lifted`] and [`lifted_chain`] borrow the list for the
/// statement, as the plain code borrows `c`.
pub fn lift_items<'t, I>(tape: &'t Tape, items: I, at: Label) -> Vec<<I::Item as Lift<'t>>::Lifted>
where
    I: IntoIterator,
    I::Item: Lift<'t>,
{
    lift_each(tape, items, at).collect()
}

/// The item type of a tracked iterator, which a list of lifted items
/// yields too: a reference into the list (`w.iter()`, `rows.iter()`), or
/// a copy (`w.iter().copied()`).
pub trait Chained<'a, T: 'a>: Sized {
    /// The list's items as `Self`.
    type Items: Iterator<Item = Self>;
    /// Walks `lifted` yielding `Self`.
    fn items(lifted: &'a [T]) -> Self::Items;
}

impl<'a, T: 'a> Chained<'a, T> for &'a T {
    type Items = std::slice::Iter<'a, T>;
    fn items(lifted: &'a [T]) -> Self::Items {
        lifted.iter()
    }
}

impl<'a, 't: 'a> Chained<'a, Scalar<'t>> for Scalar<'t> {
    type Items = std::iter::Copied<std::slice::Iter<'a, Scalar<'t>>>;
    fn items(lifted: &'a [Scalar<'t>]) -> Self::Items {
        lifted.iter().copied()
    }
}

impl<'a, 't: 'a> Chained<'a, Vec<Scalar<'t>>> for Vec<Scalar<'t>> {
    type Items = std::iter::Cloned<std::slice::Iter<'a, Vec<Scalar<'t>>>>;
    fn items(lifted: &'a [Vec<Scalar<'t>>]) -> Self::Items {
        lifted.iter().cloned()
    }
}

/// `tracked.chain(c)` where `c`'s items are plain: `c`'s items lifted
/// ([`lift_items`]) and yielded as `tracked`'s are.
pub fn chain_lifted<'a, I, T: 'a>(
    tracked: I,
    lifted: &'a [T],
) -> std::iter::Chain<I, <I::Item as Chained<'a, T>>::Items>
where
    I: Iterator,
    I::Item: Chained<'a, T>,
{
    tracked.chain(<I::Item as Chained<'a, T>>::items(lifted))
}

/// `c.chain(tracked)` where `c`'s items are plain: [`chain_lifted`] the
/// other way round.
pub fn lifted_chain<'a, I, T: 'a>(
    lifted: &'a [T],
    tracked: I,
) -> std::iter::Chain<<I::Item as Chained<'a, T>>::Items, I::IntoIter>
where
    I: IntoIterator,
    I::Item: Chained<'a, T>,
{
    <I::Item as Chained<'a, T>>::items(lifted).chain(tracked)
}

/// A value lifted where the type it must have is known from elsewhere: an
/// assignment to a binding that certainly holds a `Scalar` (`y = n`), an
/// arm beside a tracked arm (`if c { x } else { 0 }`). Converts as
/// [`Lift`] does; the impls below take the values the plain twin rejects
/// there (an integer or a `bool` where an `f64` is, a number where an
/// array is), so that its mismatched types are the only error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a tracked value in a #[differentiable] function",
    label = "expected f64, an array or Vec of f64, or an integer",
    note = "tracked values are f64; f32 and other number types are not supported"
)]
pub trait LiftInto<'t, Target> {
    /// Lifts `self` onto `tape`.
    fn lift_into(self, tape: &'t Tape, at: Label) -> Target;
}

impl<'t, T: Lift<'t>> LiftInto<'t, T::Lifted> for T {
    #[inline]
    fn lift_into(self, tape: &'t Tape, at: Label) -> T::Lifted {
        self.lift(tape, Some(at))
    }
}

/// Values of another type than the place they are assigned to: the plain
/// twin's mismatched types, so these never run.
macro_rules! lifted_into_by_mistake {
    ($([$($g:tt)*] $from:ty => $to:ty;)*) => {$(
        #[diagnostic::do_not_recommend]
        impl<'t, $($g)*> LiftInto<'t, $to> for $from {
            fn lift_into(self, _: &'t Tape, _: Label) -> $to {
                unreachable!("the plain twin does not compile")
            }
        }
    )*};
    ($($plain:ty)*) => {$(
        lifted_into_by_mistake! {
            [] $plain => Scalar<'t>;
            [U, const N: usize] $plain => [U; N];
            [U] $plain => Vec<U>;
        }
    )*};
}

lifted_into_by_mistake!(bool i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

lifted_into_by_mistake! {
    [T, const N: usize] [T; N] => Scalar<'t>;
    [T] Vec<T> => Scalar<'t>;
    [U, const N: usize] Scalar<'t> => [U; N];
    [U, const N: usize] f64 => [U; N];
    [U] Scalar<'t> => Vec<U>;
    [U] f64 => Vec<U>;
}

/// `lift_into` as a function, for generated code: the target type comes
/// from where the value goes.
#[inline]
pub fn lift_into<'t, T: LiftInto<'t, Target>, Target>(
    tape: &'t Tape,
    value: T,
    at: Label,
) -> Target {
    value.lift_into(tape, at)
}
