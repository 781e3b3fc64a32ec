//! The two-operand operations (`+ - * /`, `powf`, `max`, `min`, `hypot`,
//! `log`, `atan2`, `%`): one trait each, implemented for every pairing of
//! tracked `Scalar`, plain `f64` (and references to either, as `iter()`
//! hands them out) and integers, so that rustc, not the macro, picks a
//! recording call or plain arithmetic from the operand types.

use autodiff_core::{Label, Operand, Scalar, ScalarAutodiffError};

use super::sticky;

macro_rules! binary {
    ($(#[$doc:meta])* $Trait:ident $method:ident, $verb:literal, $message:literal, $note:literal,
     scalar: |$a:ident, $b:ident| $scalar:expr,
     plain_lhs: |$pa:ident, $pb:ident| $plain_lhs:expr,
     plain: |$x:ident, $y:ident| $plain:expr) => {
        $(#[$doc])*
        #[diagnostic::on_unimplemented(
            message = $message,
            label = "this operand has type `{Self}`",
            note = $note
        )]
        pub trait $Trait<Rhs> {
            /// `Scalar` when either operand is tracked, the plain type otherwise.
            type Output;
            #[doc = concat!("Records (or computes) `", stringify!($method), "`. Not named `", stringify!($method), "`, so that rustc never suggests importing this trait for a number type's own method.")]
            fn apply(self, rhs: Rhs, at: Label) -> Self::Output;
        }

        #[doc = concat!("`", $verb, "`: records a node when either operand is a `Scalar`.")]
        #[inline(always)]
        pub fn $method<A: $Trait<B>, B>(a: A, b: B, at: Label) -> A::Output {
            a.apply(b, at)
        }

        impl<'t> $Trait<Scalar<'t>> for Scalar<'t> {
            type Output = Scalar<'t>;
            #[inline(always)]
            fn apply(self, rhs: Scalar<'t>, at: Label) -> Scalar<'t> {
                let ($a, $b) = (self, Operand::from(rhs));
                let plain = move || {
                    let ($x, $y) = (self.value(), rhs.value());
                    $plain
                };
                sticky($scalar, self.tape(), at, plain)
            }
        }
        impl<'t> $Trait<f64> for Scalar<'t> {
            type Output = Scalar<'t>;
            #[inline(always)]
            fn apply(self, rhs: f64, at: Label) -> Scalar<'t> {
                let ($a, $b) = (self, Operand::from(rhs));
                let plain = move || {
                    let ($x, $y) = (self.value(), rhs);
                    $plain
                };
                // A non-finite plain operand is an error only if the
                // recorded result is: retried (out of line) as a constant node.
                #[cold]
                #[inline(never)]
                fn retry<'u>(lhs: Scalar<'u>, rhs: f64) -> Result<Scalar<'u>, ScalarAutodiffError> {
                    let ($a, $b) = (lhs, Operand::from(lhs.tape().failed_constant(rhs)));
                    $scalar
                }
                let result = match $scalar {
                    Err(_) if !rhs.is_finite() => retry(self, rhs),
                    result => result,
                };
                sticky(result, self.tape(), at, plain)
            }
        }
        impl<'t> $Trait<Scalar<'t>> for f64 {
            type Output = Scalar<'t>;
            #[inline(always)]
            fn apply(self, rhs: Scalar<'t>, at: Label) -> Scalar<'t> {
                let ($pa, $pb) = (self, rhs);
                let plain = move || {
                    let ($x, $y) = (self, rhs.value());
                    $plain
                };
                #[cold]
                #[inline(never)]
                fn retry<'u>(lhs: f64, rhs: Scalar<'u>) -> Result<Scalar<'u>, ScalarAutodiffError> {
                    let ($a, $b) = (rhs.tape().failed_constant(lhs), Operand::from(rhs));
                    $scalar
                }
                let result = match $plain_lhs {
                    Err(_) if !self.is_finite() => retry(self, rhs),
                    result => result,
                };
                sticky(result, rhs.tape(), at, plain)
            }
        }
        impl $Trait<f64> for f64 {
            type Output = f64;
            #[inline(always)]
            fn apply(self, rhs: f64, _: Label) -> f64 {
                let ($x, $y) = (self, rhs);
                $plain
            }
        }
        binary!(@refs $Trait $method);
    };
    // `for v in x.iter()` hands out references; read through them.
    (@refs $Trait:ident $method:ident) => {
        binary!(@ref $Trait $method, Scalar<'t>, &Scalar<'t> => Scalar<'t>);
        binary!(@ref $Trait $method, Scalar<'t>, &f64 => Scalar<'t>);
        binary!(@ref $Trait $method, f64, &Scalar<'t> => Scalar<'t>);
        binary!(@ref $Trait $method, f64, &f64 => f64);
        binary!(@ref $Trait $method, &Scalar<'t>, Scalar<'t> => Scalar<'t>);
        binary!(@ref $Trait $method, &Scalar<'t>, &Scalar<'t> => Scalar<'t>);
        binary!(@ref $Trait $method, &Scalar<'t>, f64 => Scalar<'t>);
        binary!(@ref $Trait $method, &Scalar<'t>, &f64 => Scalar<'t>);
        binary!(@ref $Trait $method, &f64, Scalar<'t> => Scalar<'t>);
        binary!(@ref $Trait $method, &f64, &Scalar<'t> => Scalar<'t>);
        binary!(@ref $Trait $method, &f64, f64 => f64);
        binary!(@ref $Trait $method, &f64, &f64 => f64);
    };
    (@ref $Trait:ident $method:ident, $Lhs:ty, $Rhs:ty => $Output:ty) => {
        impl<'t> $Trait<$Rhs> for $Lhs {
            type Output = $Output;
            #[inline(always)]
            fn apply(self, rhs: $Rhs, at: Label) -> $Output {
                // The trait path: `Scalar`'s inherent methods take one argument.
                $Trait::apply(Val::val(self), Val::val(rhs), at)
            }
        }
    };
}

/// Reads through the references that `iter()` hands out.
trait Val {
    type Base;
    fn val(self) -> Self::Base;
}

impl<'t> Val for Scalar<'t> {
    type Base = Scalar<'t>;
    #[inline]
    fn val(self) -> Scalar<'t> {
        self
    }
}

impl<'t> Val for &Scalar<'t> {
    type Base = Scalar<'t>;
    #[inline]
    fn val(self) -> Scalar<'t> {
        *self
    }
}

impl Val for f64 {
    type Base = f64;
    #[inline]
    fn val(self) -> f64 {
        self
    }
}

impl Val for &f64 {
    type Base = f64;
    #[inline]
    fn val(self) -> f64 {
        *self
    }
}

binary!(
    /// `a + b`.
    Add add, "a + b", "cannot add `{Rhs}` to `{Self}` in a #[differentiable] function",
    "`+` takes two f64 values (tracked or plain), or two integers of the same type",
    scalar: |a, b| a.add(b),
    plain_lhs: |a, b| b.add(a),
    plain: |a, b| a + b
);
binary!(
    /// `a - b`.
    Sub sub, "a - b", "cannot subtract `{Rhs}` from `{Self}` in a #[differentiable] function",
    "`-` takes two f64 values (tracked or plain), or two integers of the same type",
    scalar: |a, b| a.sub(b),
    plain_lhs: |a, b| b.rsub(a),
    plain: |a, b| a - b
);
binary!(
    /// `a * b`.
    Mul mul, "a * b", "cannot multiply `{Self}` by `{Rhs}` in a #[differentiable] function",
    "`*` takes two f64 values (tracked or plain), or two integers of the same type",
    scalar: |a, b| a.mul(b),
    plain_lhs: |a, b| b.mul(a),
    plain: |a, b| a * b
);
binary!(
    /// `a / b`.
    Div div, "a / b", "cannot divide `{Self}` by `{Rhs}` in a #[differentiable] function",
    "`/` takes two f64 values (tracked or plain), or two integers of the same type",
    scalar: |a, b| a.div(b),
    plain_lhs: |a, b| b.rdiv(a),
    plain: |a, b| a / b
);
binary!(
    /// `a.powf(b)`.
    Powf powf, "a.powf(b)", "cannot take `{Self}.powf({Rhs})` in a #[differentiable] function",
    "`powf` takes two f64 values (tracked or plain)",
    scalar: |a, b| a.powf(b),
    plain_lhs: |a, b| b.rpowf(a),
    plain: |a, b| a.powf(b)
);
binary!(
    /// `a.max(b)`.
    Max max, "a.max(b)", "cannot take `{Self}.max({Rhs})` in a #[differentiable] function",
    "`max` takes two f64 values (tracked or plain), or two integers of the same type",
    scalar: |a, b| a.max(b),
    plain_lhs: |a, b| b.max(a),
    plain: |a, b| a.max(b)
);
binary!(
    /// `a.min(b)`.
    Min min, "a.min(b)", "cannot take `{Self}.min({Rhs})` in a #[differentiable] function",
    "`min` takes two f64 values (tracked or plain), or two integers of the same type",
    scalar: |a, b| a.min(b),
    plain_lhs: |a, b| b.min(a),
    plain: |a, b| a.min(b)
);

binary!(
    /// `a.hypot(b)`.
    Hypot hypot, "a.hypot(b)", "cannot take `{Self}.hypot({Rhs})` in a #[differentiable] function",
    "`hypot` takes two f64 values (tracked or plain)",
    scalar: |a, b| a.hypot(b),
    // Symmetric in its operands.
    plain_lhs: |a, b| b.hypot(a),
    plain: |a, b| a.hypot(b)
);
binary!(
    /// `a.atan2(b)`: the angle of the point `(b, a)`.
    Atan2 atan2, "a.atan2(b)", "cannot take `{Self}.atan2({Rhs})` in a #[differentiable] function",
    "`atan2` takes two f64 values (tracked or plain)",
    scalar: |a, b| a.atan2(b),
    plain_lhs: |a, b| b.plain_first::<autodiff_core::two_operand::Atan2>(a),
    plain: |a, b| a.atan2(b)
);
binary!(
    /// `a.log(b)`: the logarithm of `a` in base `b`.
    Log log, "a.log(b)", "cannot take `{Self}.log({Rhs})` in a #[differentiable] function",
    "`log` takes two f64 values (tracked or plain)",
    scalar: |a, b| a.log(b),
    plain_lhs: |a, b| b.rlog(a),
    plain: |a, b| a.log(b)
);

/// Integer arithmetic stays integer arithmetic, with Rust's own semantics.
macro_rules! integer_binary {
    ($($int:ty)*) => {$(
        impl Add<$int> for $int {
            type Output = $int;
            #[inline]
            fn apply(self, rhs: $int, _: Label) -> $int { self + rhs }
        }
        impl Sub<$int> for $int {
            type Output = $int;
            #[inline]
            fn apply(self, rhs: $int, _: Label) -> $int { self - rhs }
        }
        impl Mul<$int> for $int {
            type Output = $int;
            #[inline]
            fn apply(self, rhs: $int, _: Label) -> $int { self * rhs }
        }
        impl Div<$int> for $int {
            type Output = $int;
            #[inline]
            fn apply(self, rhs: $int, _: Label) -> $int { self / rhs }
        }
        #[diagnostic::do_not_recommend]
        impl Remainder<$int> for $int {
            type Output = $int;
            #[inline]
            fn rem(self, rhs: $int, _: Label) -> $int { self % rhs }
        }
        // `i % 2` of a closure's `&usize` (`filter(|(i, _)| i % 2 == 0)`
        // over `enumerate()`), as Rust's own `%` takes it.
        #[diagnostic::do_not_recommend]
        impl Remainder<$int> for &$int {
            type Output = $int;
            #[inline]
            fn rem(self, rhs: $int, _: Label) -> $int { *self % rhs }
        }
        #[diagnostic::do_not_recommend]
        impl Remainder<&$int> for $int {
            type Output = $int;
            #[inline]
            fn rem(self, rhs: &$int, _: Label) -> $int { self % *rhs }
        }
        #[diagnostic::do_not_recommend]
        impl Remainder<&$int> for &$int {
            type Output = $int;
            #[inline]
            fn rem(self, rhs: &$int, _: Label) -> $int { *self % *rhs }
        }
        impl Max<$int> for $int {
            type Output = $int;
            #[inline]
            fn apply(self, rhs: $int, _: Label) -> $int { Ord::max(self, rhs) }
        }
        impl Min<$int> for $int {
            type Output = $int;
            #[inline]
            fn apply(self, rhs: $int, _: Label) -> $int { Ord::min(self, rhs) }
        }
    )*};
}

integer_binary!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

/// `a % b`: defined for plain numbers only, because the remainder of tracked
/// values has a derivative the engine does not record.
#[diagnostic::on_unimplemented(
    message = "`%` has no derivative rule: its operands may not be tracked values",
    label = "`%` of a value that depends on a differentiable parameter",
    note = "`%` works on integers and on f64 values that carry no gradient (`#[constant]` parameters, `detach(a) % b`); for `a % b` with `a / b` ≥ 0, `a - b * detach(a / b).floor()` has the exact derivative"
)]
pub trait Remainder<Rhs> {
    /// The operands' type.
    type Output;
    /// Computes `self % rhs`.
    fn rem(self, rhs: Rhs, at: Label) -> Self::Output;
}

#[diagnostic::do_not_recommend]
impl Remainder<f64> for f64 {
    type Output = f64;
    #[inline]
    fn rem(self, rhs: f64, _: Label) -> f64 {
        self % rhs
    }
}

/// `a % b` on plain numbers.
pub fn rem<A: Remainder<B>, B>(a: A, b: B, at: Label) -> A::Output {
    a.rem(b, at)
}

/// The value of a composed operation (`mul_add`, `clamp`) made exact: a plain
/// result is the plain twin's own, a recorded one takes it as its value.
pub trait Exact {
    /// `self` with the value `plain`.
    fn exact(self, plain: f64) -> Self;
}

impl Exact for f64 {
    #[inline]
    fn exact(self, plain: f64) -> f64 {
        plain
    }
}

impl Exact for Scalar<'_> {
    #[inline]
    fn exact(self, plain: f64) -> Self {
        // A failed operation's result may stand in for a node it is not.
        if self.tape().failed() {
            self
        } else {
            self.fused(plain)
        }
    }
}

/// `a.mul_add(b, c)`: recorded as `a * b` then `+ c` (derivatives `b`, `a`
/// and 1), the sum holding the fused value `a.mul_add(b, c)` computes, so
/// the value is the plain twin's bit for bit.
pub fn mul_add<A, B, C>(a: A, b: B, c: C, at: Label) -> <A::Output as Add<C>>::Output
where
    A: Mul<B> + super::Primal<Value = f64> + Copy,
    B: super::Primal<Value = f64> + Copy,
    C: super::Primal<Value = f64> + Copy,
    A::Output: Add<C>,
    <A::Output as Add<C>>::Output: Exact,
{
    let fused = a.primal().mul_add(b.primal(), c.primal());
    let product = Mul::apply(a, b, at);
    Add::apply(product, c, at).exact(fused)
}

/// `x.clamp(lo, hi)`: `f64::clamp` on the primal values first (it panics
/// where the plain twin panics: `lo > hi` or a NaN bound), then recorded as
/// `max(min(x, hi), lo)`: derivative 1 for `x` strictly inside, 1 for the
/// bound it is clamped to outside, and `max`/`min`'s 1/2 each at a tie.
pub fn clamp<X, L, H>(x: X, lo: L, hi: H, at: Label) -> <X::Output as Max<L>>::Output
where
    X: Min<H> + super::Primal<Value = f64> + Copy,
    L: super::Primal<Value = f64> + Copy,
    H: super::Primal<Value = f64> + Copy,
    X::Output: Max<L>,
    <X::Output as Max<L>>::Output: Exact,
{
    let clamped = x.primal().clamp(lo.primal(), hi.primal());
    let below = Min::apply(x, hi, at);
    Max::apply(below, lo, at).exact(clamped)
}

/// Mistakes the plain twin reports: `x * n` with `n: usize`, `x * 2`,
/// `x + flag`, `x.max(n)`, `x.powf(2)`, `n.powf(x)`. The plain twin has
/// `f64 OP T` (or `f64::max(T)`) at the same spot, which std does not
/// implement and the orphan rule forbids any crate to, so a crate that
/// reaches one of these impls cannot compile and they never run. They
/// exist so that the recording twin type-checks there and the student sees
/// the plain twin's error once, in the student's terms, instead of also a
/// second copy naming `Scalar`.
macro_rules! reported_by_the_plain_twin {
    // Both ways round: `x * n` and `n * x`.
    ($Trait:ident $method:ident: $($other:ty)*) => {$(
        reported_by_the_plain_twin!(@pair $Trait $method, Scalar<'t>, $other => Scalar<'t>);
        reported_by_the_plain_twin!(@pair $Trait $method, &Scalar<'t>, $other => Scalar<'t>);
        reported_by_the_plain_twin!(@pair $Trait $method, $other, Scalar<'t> => Scalar<'t>);
        reported_by_the_plain_twin!(@pair $Trait $method, $other, &Scalar<'t> => Scalar<'t>);
    )*};
    // The method's receiver a number, tracked or plain: `x.powf(n)`.
    (@receiver $Trait:ident $method:ident: $($other:ty)*) => {$(
        reported_by_the_plain_twin!(@pair $Trait $method, Scalar<'t>, $other => Scalar<'t>);
        reported_by_the_plain_twin!(@pair $Trait $method, &Scalar<'t>, $other => Scalar<'t>);
        reported_by_the_plain_twin!(@pair $Trait $method, f64, $other => f64);
        reported_by_the_plain_twin!(@pair $Trait $method, &f64, $other => f64);
    )*};
    // A number that is not `f64` as the receiver of a tracked argument:
    // `n.powf(x)` with `let n = 2;`, whose plain twin rustc rejects for the
    // method call itself.
    (@base $Trait:ident $method:ident: $($other:ty)*) => {$(
        reported_by_the_plain_twin!(@pair $Trait $method, $other, Scalar<'t> => Scalar<'t>);
        reported_by_the_plain_twin!(@pair $Trait $method, $other, &Scalar<'t> => Scalar<'t>);
    )*};
    // Plain `f64` both ways round: `x.max(n)` and `n.max(x)`.
    (@plain $Trait:ident $method:ident: $($other:ty)*) => {$(
        reported_by_the_plain_twin!(@pair $Trait $method, f64, $other => f64);
        reported_by_the_plain_twin!(@pair $Trait $method, &f64, $other => f64);
        reported_by_the_plain_twin!(@pair $Trait $method, $other, f64 => f64);
        reported_by_the_plain_twin!(@pair $Trait $method, $other, &f64 => f64);
    )*};
    (@pair $Trait:ident $method:ident, $Lhs:ty, $Rhs:ty => $Output:ty) => {
        #[diagnostic::do_not_recommend]
        impl<'t> $Trait<$Rhs> for $Lhs {
            type Output = $Output;
            fn apply(self, _: $Rhs, _: Label) -> $Output {
                unreachable!("the plain twin does not compile")
            }
        }
    };
}

/// Every operand that is not a number, next to one that is. Where a
/// plain type is the left operand of an operator (`f64 * n`) an impl would
/// not do: rustc would then tell the student that `f64` "implements
/// similarly named trait `__private::Mul`". So the operators pair
/// integers, `bool` and arrays with tracked values only; `max` and `min`,
/// which integers have, both ways round; `powf`, `hypot` and `log` take
/// them as the argument, and as the receiver of a tracked argument
/// (`n.powf(x)`), which no method lookup finds: the traits' method is
/// `apply`, so rustc suggests none of them for a number's own `powf`.
macro_rules! mistaken_operands {
    (@operators $($Trait:ident $method:ident),*) => {$(
        reported_by_the_plain_twin!($Trait $method: i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool);
        not_a_number!($Trait $method: Scalar<'t> => Scalar<'t>, &Scalar<'t> => Scalar<'t>);
    )*};
    (@methods $($Trait:ident $method:ident),*) => {$(
        reported_by_the_plain_twin!($Trait $method: i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool);
        reported_by_the_plain_twin!(@plain $Trait $method: i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool);
        not_a_number!($Trait $method: Scalar<'t> => Scalar<'t>, &Scalar<'t> => Scalar<'t>, f64 => f64, &f64 => f64);
    )*};
    (@receiver $($Trait:ident $method:ident),*) => {$(
        reported_by_the_plain_twin!(@receiver $Trait $method: i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool);
        reported_by_the_plain_twin!(@base $Trait $method: i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool);
        not_a_number!($Trait $method: Scalar<'t> => Scalar<'t>, &Scalar<'t> => Scalar<'t>, f64 => f64, &f64 => f64);
    )*};
}

/// The number type an array, a slice or a `Vec` holds (`Scalar` or `f64`),
/// the result type of an operation that mistakes it for a number.
pub trait Element {
    /// `Scalar` for tracked items, `f64` for plain ones.
    type Number;
}

impl<'t> Element for Scalar<'t> {
    type Number = Scalar<'t>;
}

impl<'t> Element for &Scalar<'t> {
    type Number = Scalar<'t>;
}

impl Element for f64 {
    type Number = f64;
}

impl Element for &f64 {
    type Number = f64;
}

impl<T: Element, const N: usize> Element for [T; N] {
    type Number = T::Number;
}

impl<T: Element> Element for Vec<T> {
    type Number = T::Number;
}

/// An array, a slice or a `Vec` used as a number (`x * 2.0` with `x: [f64;
/// 2]`, `w[i] * x`): std implements no arithmetic on them and the orphan
/// rule leaves them to std, so the plain twin's error is the one the
/// student sees, and these never run.
macro_rules! not_a_number {
    ($Trait:ident $method:ident: $($number:ty => $Output:ty),*) => {
        not_a_number!(@container $Trait $method, [T; N], [const N: usize]: $($number => $Output),*);
        not_a_number!(@container $Trait $method, &[T; N], [const N: usize]: $($number => $Output),*);
        not_a_number!(@container $Trait $method, Vec<T>, []: $($number => $Output),*);
        not_a_number!(@container $Trait $method, &Vec<T>, []: $($number => $Output),*);
        not_a_number!(@container $Trait $method, &[T], []: $($number => $Output),*);
        not_a_number!(@container $Trait $method, std::borrow::Cow<'_, [T]>, []: $($number => $Output),*);
        not_a_number!(@container $Trait $method, &std::borrow::Cow<'_, [T]>, []: $($number => $Output),*);
    };
    (@container $Trait:ident $method:ident, $Container:ty, $g:tt: $($number:ty => $Output:ty),*) => {
        not_a_number!(@lhs $Trait $method, $Container $g);
        $(not_a_number!(@rhs $Trait $method, $Container $g $number => $Output);)*
    };
    (@lhs $Trait:ident $method:ident, $Container:ty [$($g:tt)*]) => {
        #[diagnostic::do_not_recommend]
        impl<T: Element + Clone, Rhs, $($g)*> $Trait<Rhs> for $Container {
            type Output = T::Number;
            fn apply(self, _: Rhs, _: Label) -> T::Number {
                unreachable!("the plain twin does not compile")
            }
        }
    };
    (@rhs $Trait:ident $method:ident, $Container:ty [$($g:tt)*] $number:ty => $Output:ty) => {
        #[diagnostic::do_not_recommend]
        impl<'t, T: Element + Clone, $($g)*> $Trait<$Container> for $number {
            type Output = $Output;
            fn apply(self, _: $Container, _: Label) -> $Output {
                unreachable!("the plain twin does not compile")
            }
        }
    };
}

mistaken_operands!(@operators Add add, Sub sub, Mul mul, Div div);
mistaken_operands!(@methods Max max, Min min);
mistaken_operands!(@receiver Powf powf, Hypot hypot, Log log, Atan2 atan2);
