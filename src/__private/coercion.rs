//! Values that must have one type: primal reads for comparisons
//! ([`Primal`]), lifting plain numbers to constant nodes ([`Lift`]), the
//! value returned ([`Returned`]), values assigned where the type is known
//! ([`LiftInto`]), indices ([`Position`]), values that must carry no
//! gradient ([`Untracked`], [`UntrackedFor`]) and recorded sums
//! ([`Summand`]). Call arguments to other differentiable functions are in
//! `arguments.rs`.

use autodiff_core::{Label, Scalar, Tape};

use super::{failed, sticky};

/// The value a comparison sees: a tracked value's primal, anything else as is.
#[diagnostic::on_unimplemented(
    message = "cannot compare `{Self}` in a #[differentiable] function",
    label = "comparisons read f64 values, integers and bools"
)]
pub trait Primal {
    /// The plain value.
    type Value;
    /// Reads it.
    fn primal(self) -> Self::Value;
}

impl Primal for Scalar<'_> {
    type Value = f64;
    #[inline]
    fn primal(self) -> f64 {
        self.value()
    }
}

impl Primal for &Scalar<'_> {
    type Value = f64;
    #[inline]
    fn primal(self) -> f64 {
        self.value()
    }
}

impl Primal for f64 {
    type Value = f64;
    #[inline]
    fn primal(self) -> f64 {
        self
    }
}

impl Primal for &f64 {
    type Value = f64;
    #[inline]
    fn primal(self) -> f64 {
        *self
    }
}

impl Primal for bool {
    type Value = bool;
    #[inline]
    fn primal(self) -> bool {
        self
    }
}

impl<T: Primal, const N: usize> Primal for [T; N] {
    type Value = [T::Value; N];
    #[inline]
    fn primal(self) -> Self::Value {
        self.map(T::primal)
    }
}

impl<'r, T> Primal for &'r [T]
where
    &'r T: Primal,
{
    type Value = Vec<<&'r T as Primal>::Value>;
    #[inline]
    fn primal(self) -> Self::Value {
        self.iter().map(Primal::primal).collect()
    }
}

impl<'r, T> Primal for &'r Vec<T>
where
    &'r T: Primal,
{
    type Value = Vec<<&'r T as Primal>::Value>;
    #[inline]
    fn primal(self) -> Self::Value {
        self.iter().map(Primal::primal).collect()
    }
}

impl<T: Primal + Copy, const N: usize> Primal for &[T; N] {
    type Value = [T::Value; N];
    #[inline]
    fn primal(self) -> Self::Value {
        self.map(T::primal)
    }
}

/// `&x` where `x` is already a reference (a slice parameter), as the
/// macros the body mentions read it.
impl<'s, T: ?Sized> Primal for &&'s T
where
    &'s T: Primal,
{
    type Value = <&'s T as Primal>::Value;
    #[inline]
    fn primal(self) -> Self::Value {
        (*self).primal()
    }
}

/// A tracked value's primal, so that `if x > 0.0` reads the number.
pub fn primal<T: Primal>(value: T) -> T::Value {
    value.primal()
}

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

/// The result of a `_tape` function: its value lifted to a `Scalar`, which
/// must be finite. An infinite intermediate is recorded where its local
/// derivatives are finite (`enter`), but an infinity that reaches the
/// output is `NonFiniteResult` of the operation that made it; a constant
/// that reaches the output (a NaN `#[constant]`, an untouched
/// `f64::NEG_INFINITY`) is `NonFiniteLeaf`; both labelled `at`, the
/// output's source text and line. A recording `nested` in another's (see
/// [`Entry::nested`](super::Entry::nested)) hands an infinite output on to
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
pub(super) fn non_finite_output(
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

/// An index that reads a tracked value (`v[k]` with `k: f64`): the plain
/// twin's "cannot be indexed by `f64`", so [`index`] never runs for one;
/// it stands for a `usize` so that the recording twin adds no error of
/// its own naming `Scalar`.
pub trait Position {
    /// `usize`.
    type At;
    /// The index itself.
    fn position(self) -> Self::At;
}

impl Position for usize {
    type At = usize;
    #[inline]
    fn position(self) -> usize {
        self
    }
}

macro_rules! indexed_by_mistake {
    ($([$($g:tt)*] $ty:ty;)*) => {$(
        #[diagnostic::do_not_recommend]
        impl<$($g)*> Position for $ty {
            type At = usize;
            fn position(self) -> usize {
                unreachable!("the plain twin does not compile")
            }
        }
    )*};
}

indexed_by_mistake! {
    [] Scalar<'_>;
    [] &Scalar<'_>;
    [] f64;
    [] &f64;
    [T, const N: usize] [T; N];
    [T] Vec<T>;
}

/// An index that reads a tracked value, for generated code.
#[inline]
pub fn index<P: Position>(position: P) -> P::At {
    position.position()
}

/// Values that may meet a plain function or a method without a derivative
/// rule: plain numbers only (casts have [`Cast`]). A tracked value reaching one is a compile error, not a
/// silently missing gradient.
#[diagnostic::on_unimplemented(
    message = "this value is tracked: this method or function would drop its gradient",
    label = "a tracked value (it depends on a differentiable parameter) cannot be passed here",
    note = "a plain function or an f64 method without a derivative rule would silently drop the gradient; compute such values from integers or `#[constant]` parameters, or pass `detach(x)`, the value without its gradient"
)]
pub trait Untracked {
    /// The same type: naming it through the trait means that when the trait
    /// is missing, rustc reports that, and not also the cast that follows.
    type Plain;
    /// The value itself.
    fn plain(self) -> Self::Plain;
}

#[diagnostic::do_not_recommend]
impl Untracked for f64 {
    type Plain = f64;
    #[inline]
    fn plain(self) -> f64 {
        self
    }
}

#[diagnostic::do_not_recommend]
impl Untracked for bool {
    type Plain = bool;
    #[inline]
    fn plain(self) -> bool {
        self
    }
}

#[diagnostic::do_not_recommend]
impl<'r, T: Untracked + ?Sized> Untracked for &'r T {
    type Plain = &'r T;
    #[inline]
    fn plain(self) -> &'r T {
        self
    }
}

/// An `Option` of plain values (`x.iter().position(|&v| v > 0.0)`,
/// then `.unwrap_or(0)`).
#[diagnostic::do_not_recommend]
impl<T: Untracked> Untracked for Option<T> {
    type Plain = Option<T>;
    #[inline]
    fn plain(self) -> Option<T> {
        self
    }
}

/// Passes `value` through when it carries no gradient.
pub fn untracked<T: Untracked>(value: T) -> T::Plain {
    value.plain()
}

/// What `as` may cast in a `#[differentiable]` body: plain numbers and
/// `bool`s. A tracked value is a compile error here, not a gradient
/// silently dropped; `detach(x) as i64` casts its value on purpose.
#[diagnostic::on_unimplemented(
    message = "`as` would drop the gradient of this tracked value",
    label = "this value depends on a differentiable parameter",
    note = "to cast its value without its gradient, write `detach(x) as i64` (no gradient flows through it); `x.floor()` is tracked too: write `detach(x).floor() as i64`"
)]
pub trait Cast {
    /// The same type: named through the trait so that when the trait is
    /// missing, rustc reports that, and not also the cast that follows.
    type Plain;
    /// The value itself.
    fn cast_operand(self) -> Self::Plain;
}

macro_rules! cast_operands {
    ($($plain:ty)*) => {$(
        #[diagnostic::do_not_recommend]
        impl Cast for $plain {
            type Plain = $plain;
            #[inline]
            fn cast_operand(self) -> $plain {
                self
            }
        }
    )*};
}

cast_operands!(f64 f32 bool char i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

#[diagnostic::do_not_recommend]
impl<'r, T: Cast + ?Sized> Cast for &'r T {
    type Plain = &'r T;
    #[inline]
    fn cast_operand(self) -> &'r T {
        self
    }
}

/// The operand of `as`, for generated code: passes it through when it
/// carries no gradient.
#[inline]
pub fn cast<T: Cast>(value: T) -> T::Plain {
    value.cast_operand()
}

/// Sums an iterator of tracked or plain values, one `add` node per item
/// after the first, so the gradient of `x.iter().sum()` is exact.
#[diagnostic::on_unimplemented(
    message = "cannot sum items of type `{Self}` in a #[differentiable] function",
    label = "expected an iterator over f64 values"
)]
pub trait Summand<'t>: Sized {
    /// `Scalar` for tracked items, `f64` for plain ones.
    type Sum;
    /// The sum; an empty iterator sums to a constant −0.0, as `f64`'s.
    fn sum(items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> Self::Sum;
    /// The product, one `mul` node per item after the first; an empty
    /// iterator multiplies to a constant 1.
    fn product(items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> Self::Sum;
}

impl<'t> Summand<'t> for Scalar<'t> {
    type Sum = Scalar<'t>;
    #[inline]
    fn sum(mut items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> Scalar<'t> {
        // No items sum to −0.0, as the standard library's `Sum for f64`
        // (and the compiled adjoint) says.
        let Some(first) = items.next() else {
            return sticky(tape.constant(-0.0), tape, at, || -0.0);
        };
        items.fold(first, |total, item| {
            sticky(total.add(item), tape, at, move || {
                total.value() + item.value()
            })
        })
    }
    #[inline]
    fn product(mut items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> Scalar<'t> {
        let Some(first) = items.next() else {
            return sticky(tape.constant(1.0), tape, at, || 1.0);
        };
        items.fold(first, |total, item| {
            sticky(total.mul(item), tape, at, move || {
                total.value() * item.value()
            })
        })
    }
}

impl<'t> Summand<'t> for &Scalar<'t> {
    type Sum = Scalar<'t>;
    #[inline]
    fn sum(items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> Scalar<'t> {
        Summand::sum(items.copied(), tape, at)
    }
    #[inline]
    fn product(items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> Scalar<'t> {
        Summand::product(items.copied(), tape, at)
    }
}

impl<'t> Summand<'t> for f64 {
    type Sum = f64;
    #[inline]
    fn sum(items: impl Iterator<Item = Self>, _: &'t Tape, _: Label) -> f64 {
        items.sum()
    }
    #[inline]
    fn product(items: impl Iterator<Item = Self>, _: &'t Tape, _: Label) -> f64 {
        items.product()
    }
}

impl<'t> Summand<'t> for &f64 {
    type Sum = f64;
    #[inline]
    fn sum(items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> f64 {
        Summand::sum(items.copied(), tape, at)
    }
    #[inline]
    fn product(items: impl Iterator<Item = Self>, tape: &'t Tape, at: Label) -> f64 {
        Summand::product(items.copied(), tape, at)
    }
}

/// `items.product()`, recorded when the items are tracked.
pub fn product<'t, I>(tape: &'t Tape, items: I, at: Label) -> <I::Item as Summand<'t>>::Sum
where
    I: IntoIterator,
    I::Item: Summand<'t>,
{
    Summand::product(items.into_iter(), tape, at)
}

/// `items.sum()`, recorded when the items are tracked.
pub fn sum<'t, I>(tape: &'t Tape, items: I, at: Label) -> <I::Item as Summand<'t>>::Sum
where
    I: IntoIterator,
    I::Item: Summand<'t>,
{
    Summand::sum(items.into_iter(), tape, at)
}

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

/// A value seen through the plain twin's types, for a probe: the same
/// method call on a plain value, in a branch that never runs, tells whether
/// the method exists. `(&&Probe(&v)).shadow()` is an `f64` for a tracked
/// `v` ([`ShadowTracked`], found first by method resolution) and `v`'s own
/// type otherwise ([`ShadowSame`]).
pub struct Probe<'a, T: ?Sized>(pub &'a T);

/// A tracked value's plain twin type.
pub trait ShadowTracked {
    /// `f64`.
    type Plain;
    /// Never called: probes sit in branches that never run.
    fn shadow(&self) -> Self::Plain;
}

impl ShadowTracked for &Probe<'_, Scalar<'_>> {
    type Plain = f64;
    fn shadow(&self) -> f64 {
        unreachable!("a probe never runs")
    }
}

impl ShadowTracked for &Probe<'_, &Scalar<'_>> {
    type Plain = f64;
    fn shadow(&self) -> f64 {
        unreachable!("a probe never runs")
    }
}

/// Any other value's type, unchanged.
pub trait ShadowSame {
    /// The value's own type.
    type Plain;
    /// Never called: probes sit in branches that never run.
    fn shadow(&self) -> Self::Plain;
}

impl<T> ShadowSame for Probe<'_, T> {
    type Plain = T;
    fn shadow(&self) -> T {
        unreachable!("a probe never runs")
    }
}

/// Values a method without a derivative rule may be called on, given the
/// probe's result `R`: plain values always; a tracked value never when the
/// method exists. When it does not, `R` is rustc's error type and this
/// bound is not reported again: the plain twin's "no method" is the error.
#[diagnostic::on_unimplemented(
    message = "this value is tracked: this method would drop its gradient",
    label = "a tracked value (it depends on a differentiable parameter) cannot be passed here",
    note = "an f64 method without a derivative rule would silently drop the gradient; compute such values from integers or `#[constant]` parameters, or call it on `detach(x)`, the value without its gradient"
)]
pub trait UntrackedFor<R> {}

impl<R, T: Untracked> UntrackedFor<R> for T {}

/// Two result types no method returns, so that rustc cannot pick `R` from
/// the impls of a tracked value.
#[doc(hidden)]
pub enum NoResult {}
#[doc(hidden)]
pub enum NoResult2 {}

/// The plain twin's type of a receiver, named apart from [`UntrackedFor`]
/// so that a rejected call is reported once, by that bound, and not again
/// by the method called on its result.
pub trait PlainOf {
    /// `f64` for a tracked value, the type itself otherwise.
    type Plain;
    /// The value itself.
    fn plain_of(self) -> Self::Plain;
}

impl<T: Untracked> PlainOf for T {
    type Plain = T::Plain;
    #[inline]
    fn plain_of(self) -> T::Plain {
        self.plain()
    }
}

macro_rules! probe_only {
    ($($tracked:ty)*) => {$(
        #[diagnostic::do_not_recommend]
        impl UntrackedFor<NoResult> for $tracked {}
        #[diagnostic::do_not_recommend]
        impl UntrackedFor<NoResult2> for $tracked {}
        impl PlainOf for $tracked {
            type Plain = f64;
            fn plain_of(self) -> f64 {
                unreachable!("a tracked receiver of a method without a rule does not compile")
            }
        }
    )*};
}

probe_only!(Scalar<'_> &Scalar<'_>);

/// Passes `value` through when it carries no gradient; `probe` is the
/// method's result on the plain twin's types, never computed.
#[inline]
pub fn untracked_for<T: UntrackedFor<R> + PlainOf, R>(value: T, _probe: Option<R>) -> T::Plain {
    value.plain_of()
}
