//! Values that must carry no gradient: indices ([`Position`]), the
//! operands of `as` ([`Cast`]), plain values ([`Untracked`]), and the
//! receivers of a method without a derivative rule ([`UntrackedFor`]),
//! told apart by a probe ([`Probe`]).

use autodiff_core::Scalar;

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
