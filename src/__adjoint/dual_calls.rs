//! Calls between dual sweeps: `f_hvp` of a function that calls another
//! annotated one runs the callee's own dual sweep, as `f_grad` runs its
//! compiled adjoint. The convention is the `f64` pair's (`forwarded`,
//! `Spread`) on dual numbers: the callee's forward runs its whole dual
//! adjoint on the caller's [`DualStack`] and pushes the gradient (primal
//! parts ∇g, tangent parts H_g·v), the reverse pops it scaled by the
//! caller's dual `value_bar`, which is the product rule of forward over
//! reverse. A callee without a dual sweep has a forward that fails the
//! caller's sweep, and `f_hvp` reruns the tape.

use super::{Arg, DualStack, NotDifferentiable};
use crate::ValueAndGradient;
use autodiff_core::Dual;

/// The dual pair of a callee without a dual sweep (a vector-valued
/// function, a body the dual sweep does not take): a forward that fails
/// the caller's sweep, whose `f_hvp` then reruns the tape. Every type has
/// it, and a dual sweep that calls a pair imports it, so that `g::__forward_dual` names the
/// companion's own pair where `g` has a dual sweep (a path finds an
/// inherent function first) and this one otherwise: a function without a
/// dual sweep costs a crate no items for it. Its arguments are whatever
/// the caller passes, as a plain function's stand-in takes them.
pub trait NoDualSweep {
    /// Fails the caller's sweep.
    #[doc(hidden)]
    #[inline]
    fn __forward_dual(stack: &mut DualStack, args: Option<NotDifferentiable>) -> Dual {
        let _ = args;
        stack.failed()
    }

    /// Fails the caller's sweep.
    #[doc(hidden)]
    #[inline]
    fn __reverse_dual(stack: &mut DualStack, value_bar: Dual, bars: Option<NotDifferentiable>) {
        let _ = (value_bar, bars);
        stack.fail();
    }
}

impl<T: ?Sized> NoDualSweep for T {}

/// A plain number passed where a callee's dual sweep takes a tracked one
/// (`f_hvp` of `g(x) + g(2.0)`): a dual with tangent 0.
impl Arg<Dual> for f64 {
    #[inline(always)]
    fn arg(self) -> Dual {
        Dual::constant(self)
    }
}

/// A callee's differentiable parameter taken by reference (`&[f64]`,
/// `&[[f64; N]]`, `&Vec<f64>`), as the dual pair takes it: the caller's
/// duals (a tracked argument), or its plain numbers (constant data, `dot(w,
/// x)` of a `#[constant] x`), which [`Rows::duals`] lifts with tangent 0.
#[derive(Clone, Copy, Debug)]
pub enum Rows<'a, D: ?Sized, P: ?Sized> {
    /// A tracked argument's duals.
    Dual(&'a D),
    /// A plain argument's numbers.
    Plain(&'a P),
}

/// Plain rows lifted to duals with tangent 0, owned.
pub trait ConstantDuals {
    /// The owned duals (`Vec<Dual>` for `[f64]`).
    type Owned;
    /// `self` as constants.
    fn constant_duals(&self) -> Self::Owned;
}

impl ConstantDuals for [f64] {
    type Owned = Vec<Dual>;
    fn constant_duals(&self) -> Vec<Dual> {
        self.iter().map(|&v| Dual::constant(v)).collect()
    }
}

impl<const N: usize> ConstantDuals for [[f64; N]] {
    type Owned = Vec<[Dual; N]>;
    fn constant_duals(&self) -> Vec<[Dual; N]> {
        self.iter().map(|row| row.map(Dual::constant)).collect()
    }
}

impl ConstantDuals for Vec<f64> {
    type Owned = Vec<Dual>;
    fn constant_duals(&self) -> Vec<Dual> {
        self.as_slice().constant_duals()
    }
}

impl ConstantDuals for [Vec<f64>] {
    type Owned = Vec<Vec<Dual>>;
    fn constant_duals(&self) -> Vec<Vec<Dual>> {
        self.iter().map(|row| row.constant_duals()).collect()
    }
}

impl ConstantDuals for Vec<Vec<f64>> {
    type Owned = Vec<Vec<Dual>>;
    fn constant_duals(&self) -> Vec<Vec<Dual>> {
        self.as_slice().constant_duals()
    }
}

impl<'a, D: ?Sized, P: ConstantDuals + ?Sized> Rows<'a, D, P>
where
    P::Owned: std::borrow::Borrow<D>,
{
    /// The duals: the argument's own, or `storage`, filled with the plain
    /// numbers as constants.
    ///
    /// ```
    /// use autodiff::__adjoint::Rows;
    /// use autodiff::Dual;
    ///
    /// let plain = [1.0, 2.0];
    /// let rows: Rows<'_, [Dual], [f64]> = Rows::Plain(&plain);
    /// let mut storage = None;
    /// let duals = rows.duals(&mut storage);
    /// assert_eq!((duals[1].value, duals[1].tangent), (2.0, 0.0));
    /// ```
    #[inline]
    pub fn duals<'s>(self, storage: &'s mut Option<P::Owned>) -> &'s D
    where
        'a: 's,
    {
        match self {
            Rows::Dual(duals) => duals,
            Rows::Plain(plain) => {
                std::borrow::Borrow::borrow(storage.insert(plain.constant_duals()))
            }
        }
    }
}

/// The arguments a dual pair's `Rows` parameter takes: a tracked
/// argument's duals and a plain one's numbers, as a slice, a `Vec` or an
/// array by reference (as the plain call coerces them).
macro_rules! rows_args {
    ($([$($g:tt)*] $from:ty => $d:ty, $p:ty, $variant:ident |$v:ident| $value:expr;)*) => {$(
        impl<'a, $($g)*> Arg<Rows<'a, $d, $p>> for $from {
            #[inline(always)]
            fn arg(self) -> Rows<'a, $d, $p> {
                let $v = self;
                Rows::$variant($value)
            }
        }
    )*};
}

rows_args! {
    [] &'a [Dual] => [Dual], [f64], Dual |v| v;
    [] &'a Vec<Dual> => [Dual], [f64], Dual |v| v.as_slice();
    [const N: usize] &'a [Dual; N] => [Dual], [f64], Dual |v| v.as_slice();
    [] &'a [f64] => [Dual], [f64], Plain |v| v;
    [] &'a Vec<f64> => [Dual], [f64], Plain |v| v.as_slice();
    [const N: usize] &'a [f64; N] => [Dual], [f64], Plain |v| v.as_slice();
    [const N: usize] &'a [[Dual; N]] => [[Dual; N]], [[f64; N]], Dual |v| v;
    [const N: usize] &'a Vec<[Dual; N]> => [[Dual; N]], [[f64; N]], Dual |v| v.as_slice();
    [const N: usize] &'a [[f64; N]] => [[Dual; N]], [[f64; N]], Plain |v| v;
    [const N: usize] &'a Vec<[f64; N]> => [[Dual; N]], [[f64; N]], Plain |v| v.as_slice();
    [] &'a [Vec<Dual>] => [Vec<Dual>], [Vec<f64>], Dual |v| v;
    [] &'a Vec<Vec<Dual>> => [Vec<Dual>], [Vec<f64>], Dual |v| v.as_slice();
    [] &'a [Vec<f64>] => [Vec<Dual>], [Vec<f64>], Plain |v| v;
    [] &'a Vec<Vec<f64>> => [Vec<Dual>], [Vec<f64>], Plain |v| v.as_slice();
    [] &'a Vec<Dual> => Vec<Dual>, Vec<f64>, Dual |v| v;
    [] &'a Vec<f64> => Vec<Dual>, Vec<f64>, Plain |v| v;
    [] &'a Vec<Vec<Dual>> => Vec<Vec<Dual>>, Vec<Vec<f64>>, Dual |v| v;
    [] &'a Vec<Vec<f64>> => Vec<Vec<Dual>>, Vec<Vec<f64>>, Plain |v| v;
}

/// A plain array or `Vec` passed by value where the callee's dual sweep
/// takes duals: constants.
impl<const N: usize> Arg<[Dual; N]> for [f64; N] {
    #[inline(always)]
    fn arg(self) -> [Dual; N] {
        self.map(Dual::constant)
    }
}

impl Arg<Vec<Dual>> for Vec<f64> {
    #[inline(always)]
    fn arg(self) -> Vec<Dual> {
        self.into_iter().map(Dual::constant).collect()
    }
}

// A value of another kind or shape than the callee's parameter, on dual
// numbers: the plain twin's mismatched types, or a tracked value given to
// a `#[constant]` parameter (the recording twin's error).
super::calls::mistaken_shapes! {
    [] Dual => f64 = |v| v.value;
    [] Dual => f32 = |v| v.value as f32;
    [] Dual => i32 = |v| { let _ = v; 0 };
    [] Dual => i64 = |v| { let _ = v; 0 };
    [] Dual => usize = |v| { let _ = v; 0 };
    [] Dual => u32 = |v| { let _ = v; 0 };
    [] Dual => bool = |v| { let _ = v; false };
    [] i32 => Dual = |v| Dual::constant(f64::from(v));
    [] i64 => Dual = |v| { let _ = v; Dual::constant(f64::NAN) };
    [] usize => Dual = |v| { let _ = v; Dual::constant(f64::NAN) };
    [] u32 => Dual = |v| Dual::constant(f64::from(v));
    [] bool => Dual = |v| { let _ = v; Dual::constant(f64::NAN) };
    [] f32 => Dual = |v| Dual::constant(f64::from(v));
    ['a] &'a [Dual] => &'a [f64] = |v| { let _ = v; &[] };
    [] Vec<Dual> => Vec<f64> = |v| { drop(v); Vec::new() };
    [const N: usize] [Dual; N] => [f64; N] = |v| { let _ = v; [f64::NAN; N] };
    ['a] Dual => &'a [Dual] = |v| { let _ = v; &[] };
    ['a] f64 => &'a [Dual] = |v| { let _ = v; &[] };
    [const N: usize] Dual => [Dual; N] = |v| [v; N];
    [const N: usize] f64 => [Dual; N] = |v| [Dual::constant(v); N];
    [] Dual => Vec<Dual> = |v| vec![v];
    [] f64 => Vec<Dual> = |v| vec![Dual::constant(v)];
    [const N: usize] [Dual; N] => Dual = |v| { let _ = v; Dual::constant(f64::NAN) };
    [] Vec<Dual> => Dual = |v| { drop(v); Dual::constant(f64::NAN) };
    ['a] &'a [Dual] => Dual = |v| { let _ = v; Dual::constant(f64::NAN) };
    [const N: usize] Vec<Dual> => [Dual; N] = |v| { drop(v); [Dual::constant(f64::NAN); N] };
    [const N: usize] [Dual; N] => Vec<Dual> = |v| v.to_vec();
    ['a, const N: usize] &'a mut Dual => &'a mut [Dual; N] = |v| { let _ = v; Box::leak(Box::new([Dual::constant(0.0); N])) };
    ['a] &'a mut Dual => &'a mut Vec<Dual> = |v| { let _ = v; Box::leak(Box::default()) };
    ['a] &'a mut Dual => &'a mut [Dual] = |v| std::slice::from_mut(v);
    ['a, const N: usize] &'a mut [Dual; N] => &'a mut Dual = |v| { let _ = v; Box::leak(Box::new(Dual::constant(0.0))) };
    ['a] &'a mut Vec<Dual> => &'a mut Dual = |v| { let _ = v; Box::leak(Box::new(Dual::constant(0.0))) };
    ['a, const N: usize] &'a mut Vec<Dual> => &'a mut [Dual; N] = |v| { let _ = v; Box::leak(Box::new([Dual::constant(0.0); N])) };
    ['a, const N: usize] &'a mut [Dual; N] => &'a mut Vec<Dual> = |v| { let _ = v; Box::leak(Box::default()) };
    ['a] Dual => Rows<'a, [Dual], [f64]> = |v| { let _ = v; Rows::Plain(&[]) };
    ['a] f64 => Rows<'a, [Dual], [f64]> = |v| { let _ = v; Rows::Plain(&[]) };
    ['a] Vec<Dual> => Rows<'a, [Dual], [f64]> = |v| { drop(v); Rows::Plain(&[]) };
    ['a] Vec<f64> => Rows<'a, [Dual], [f64]> = |v| { drop(v); Rows::Plain(&[]) };
    ['a, const N: usize] [Dual; N] => Rows<'a, [Dual], [f64]> = |v| { let _ = v; Rows::Plain(&[]) };
    ['a, const N: usize] [f64; N] => Rows<'a, [Dual], [f64]> = |v| { let _ = v; Rows::Plain(&[]) };
}

/// A gradient on dual numbers, pushed by a callee's forward and added,
/// scaled, into the caller's adjoints by its reverse: [`super::Spread`]
/// on duals.
pub trait DualSpread {
    /// Pushes every component, in order.
    fn push_all(&self, stack: &mut DualStack);
    /// Pops every component (last first) and adds `scale ×` it to `self`.
    fn pop_scaled(&mut self, stack: &mut DualStack, scale: Dual);
    /// [`push_all`](Self::push_all) of each item in turn; duals all at
    /// once.
    #[inline]
    fn push_items(items: &[Self], stack: &mut DualStack)
    where
        Self: Sized,
    {
        items.iter().for_each(|item| item.push_all(stack));
    }
    /// [`pop_scaled`](Self::pop_scaled) of each item, the last first;
    /// duals all at once, each added to exactly as one by one.
    #[inline]
    fn pop_scaled_items(items: &mut [Self], stack: &mut DualStack, scale: Dual)
    where
        Self: Sized,
    {
        items
            .iter_mut()
            .rev()
            .for_each(|item| item.pop_scaled(stack, scale));
    }
}

impl DualSpread for Dual {
    #[inline]
    fn push_all(&self, stack: &mut DualStack) {
        stack.push(*self);
    }
    #[inline]
    fn pop_scaled(&mut self, stack: &mut DualStack, scale: Dual) {
        *self += scale * stack.pop();
    }
    #[inline]
    fn push_items(items: &[Dual], stack: &mut DualStack) {
        stack.push_slice(items);
    }
    #[inline]
    fn pop_scaled_items(items: &mut [Dual], stack: &mut DualStack, scale: Dual) {
        super::add_scaled_run(items, stack.pop_run(items.len()), scale);
    }
}

/// A constant's items saved for the reverse beside dual ones (the items
/// of a constant vector call's value a `zip` walks, in a body with
/// `return`): pushed as constants, which is what they are. A constant has
/// no adjoint to add into: a sweep that asks fails (and reruns the tape).
impl DualSpread for f64 {
    #[inline]
    fn push_all(&self, stack: &mut DualStack) {
        stack.push(Dual::constant(*self));
    }
    #[inline]
    fn pop_scaled(&mut self, stack: &mut DualStack, scale: Dual) {
        let _ = (stack.pop(), scale);
        stack.fail();
    }
}

impl<T: DualSpread> DualSpread for [T] {
    fn push_all(&self, stack: &mut DualStack) {
        T::push_items(self, stack);
    }
    fn pop_scaled(&mut self, stack: &mut DualStack, scale: Dual) {
        T::pop_scaled_items(self, stack, scale);
    }
}

impl<T: DualSpread, const N: usize> DualSpread for [T; N] {
    fn push_all(&self, stack: &mut DualStack) {
        self.as_slice().push_all(stack);
    }
    fn pop_scaled(&mut self, stack: &mut DualStack, scale: Dual) {
        self.as_mut_slice().pop_scaled(stack, scale);
    }
}

impl<T: DualSpread> DualSpread for Vec<T> {
    fn push_all(&self, stack: &mut DualStack) {
        self.as_slice().push_all(stack);
    }
    fn pop_scaled(&mut self, stack: &mut DualStack, scale: Dual) {
        self.as_mut_slice().pop_scaled(stack, scale);
    }
}

/// A whole gradient: one component per differentiable parameter, pushed in
/// order and popped last first.
macro_rules! dual_spread_tuple {
    ($($t:ident $i:tt),*) => {
        impl<$($t: DualSpread),*> DualSpread for ($($t,)*) {
            #[inline]
            fn push_all(&self, _stack: &mut DualStack) {
                $(self.$i.push_all(_stack);)*
            }
            #[inline]
            fn pop_scaled(&mut self, _stack: &mut DualStack, _scale: Dual) {
                dual_spread_tuple!(@pop self _stack _scale [] $($i)*);
            }
        }
    };
    (@pop $self:ident $stack:ident $scale:ident [$($done:tt)*]) => {
        $($self.$done.pop_scaled($stack, $scale);)*
    };
    (@pop $self:ident $stack:ident $scale:ident [$($done:tt)*] $first:tt $($rest:tt)*) => {
        dual_spread_tuple!(@pop $self $stack $scale [$first $($done)*] $($rest)*)
    };
}

dual_spread_tuple!(A 0);
dual_spread_tuple!(A 0, B 1);
dual_spread_tuple!(A 0, B 1, C 2);
dual_spread_tuple!(A 0, B 1, C 2, D 3);
dual_spread_tuple!(A 0, B 1, C 2, D 3, E 4);
dual_spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);

/// What a callee's dual forward returns to the caller's dual sweep: the
/// value, with the gradient pushed for the reverse; `None` (the callee's
/// sweep met a value that is not finite) fails the caller's sweep.
///
/// ```
/// use autodiff::__adjoint::{forwarded_dual, DualSpread, DualStack};
/// use autodiff::{Dual, ValueAndGradient};
///
/// let mut stack = DualStack::new();
/// let gradient = (Dual::new(3.0, 0.5), [Dual::new(4.0, 0.0)]);
/// let value = forwarded_dual(Some(ValueAndGradient { value: Dual::new(2.0, 1.0), gradient }), &mut stack);
/// assert_eq!(value.value, 2.0);
/// let mut bars = (Dual::constant(0.0), [Dual::constant(0.0)]);
/// bars.pop_scaled(&mut stack, Dual::new(10.0, 1.0));
/// // (10 + ε)(3 + 0.5ε) = 30 + 8ε
/// assert_eq!((bars.0.value, bars.0.tangent), (30.0, 8.0));
/// assert_eq!((bars.1[0].value, bars.1[0].tangent), (40.0, 4.0));
/// ```
#[inline(always)]
pub fn forwarded_dual<G: DualSpread>(
    result: Option<ValueAndGradient<G, Dual>>,
    stack: &mut DualStack,
) -> Dual {
    match result {
        Some(result) => {
            result.gradient.push_all(stack);
            result.value
        }
        None => stack.failed(),
    }
}

/// An adjoint for a plain argument of a call on dual numbers, which takes
/// its part of the callee's gradient and drops it: a number's is a dual
/// zero, a vector's a `Vec` of them, an integer's (a `#[constant]`
/// parameter's, which the callee skips) itself.
pub trait DualZero {
    /// The adjoint's type.
    type Zero: 'static;
    /// Zeros shaped like `self`.
    fn dual_zero(&self) -> Self::Zero;
}

impl DualZero for f64 {
    type Zero = Dual;
    #[inline]
    fn dual_zero(&self) -> Dual {
        Dual::constant(0.0)
    }
}

impl DualZero for Dual {
    type Zero = Dual;
    #[inline]
    fn dual_zero(&self) -> Dual {
        Dual::constant(0.0)
    }
}

impl<T: DualZero> DualZero for [T] {
    type Zero = Vec<T::Zero>;
    fn dual_zero(&self) -> Vec<T::Zero> {
        self.iter().map(DualZero::dual_zero).collect()
    }
}

impl<T: DualZero> DualZero for Vec<T> {
    type Zero = Vec<T::Zero>;
    fn dual_zero(&self) -> Vec<T::Zero> {
        self.as_slice().dual_zero()
    }
}

impl<T: DualZero, const N: usize> DualZero for [T; N] {
    type Zero = [T::Zero; N];
    fn dual_zero(&self) -> [T::Zero; N] {
        std::array::from_fn(|i| self[i].dual_zero())
    }
}

impl<T: DualZero + ?Sized> DualZero for &T {
    type Zero = T::Zero;
    #[inline]
    fn dual_zero(&self) -> T::Zero {
        (**self).dual_zero()
    }
}

macro_rules! dual_zero_itself {
    ($($t:ty)*) => {$(
        impl DualZero for $t {
            type Zero = $t;
            #[inline]
            fn dual_zero(&self) -> $t {
                *self
            }
        }
    )*};
}

dual_zero_itself!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool char);

/// Text passed on to a callee (`named(x, "train")`) has no derivative.
impl DualZero for str {
    type Zero = crate::__adjoint::NoAdjoint;
    #[inline]
    fn dual_zero(&self) -> crate::__adjoint::NoAdjoint {
        crate::__adjoint::NoAdjoint
    }
}

impl DualZero for String {
    type Zero = crate::__adjoint::NoAdjoint;
    #[inline]
    fn dual_zero(&self) -> crate::__adjoint::NoAdjoint {
        crate::__adjoint::NoAdjoint
    }
}

/// [`DualZero::dual_zero`] as a function, for generated code.
#[inline(always)]
pub fn dual_zero<T: DualZero + ?Sized>(value: &T) -> T::Zero {
    value.dual_zero()
}

/// The reverse of a dual pair (`__reverse_dual`) whose parameters are all
/// differentiable and none a model: each adjoint in `bars` gets its part
/// of the callee's gradient, popped last first and scaled by `value_bar`,
/// as [`DualSpread::pop_scaled`] of each in turn; no adjoints (a caller
/// that could not pass them) fails the sweep.
///
/// ```
/// use autodiff::__adjoint::{pop_all_scaled, DualStack};
/// use autodiff::Dual;
///
/// let mut stack = DualStack::new();
/// stack.push(Dual::new(1.0, 0.5));
/// stack.push(Dual::new(3.0, 0.0));
/// let (mut a, mut b) = (Dual::constant(0.0), Dual::constant(0.0));
/// pop_all_scaled(&mut stack, Dual::constant(2.0), Some((&mut a, &mut b)));
/// assert_eq!((a.value, a.tangent, b.value), (2.0, 1.0, 6.0));
/// ```
#[inline]
pub fn pop_all_scaled<B: DualSpreads>(stack: &mut DualStack, value_bar: Dual, bars: Option<B>) {
    match bars {
        Some(bars) => bars.pop_all_scaled(stack, value_bar),
        None => stack.fail(),
    }
}

/// The adjoints of a dual pair's parameters, each a [`DualSpread`]
/// borrowed mutably (see [`pop_all_scaled`]).
pub trait DualSpreads {
    /// Pops each adjoint's part, the last adjoint first, scaled by
    /// `value_bar`.
    fn pop_all_scaled(self, stack: &mut DualStack, value_bar: Dual);
}

macro_rules! dual_spreads {
    ($(($($t:ident $v:ident),+)),+) => {$(
        impl<$($t: DualSpread + ?Sized),+> DualSpreads for ($(&mut $t,)+) {
            #[inline]
            fn pop_all_scaled(self, stack: &mut DualStack, value_bar: Dual) {
                let ($($v,)+) = self;
                dual_spreads!(@pop stack value_bar; $($v)+);
            }
        }
    )+};
    (@pop $stack:ident $scale:ident; $first:ident $($rest:ident)*) => {
        dual_spreads!(@pop $stack $scale; $($rest)*);
        $first.pop_scaled($stack, $scale);
    };
    (@pop $stack:ident $scale:ident;) => {};
}

dual_spreads!(
    (A a),
    (A a, B b),
    (A a, B b, C c),
    (A a, B b, C c, D d),
    (A a, B b, C c, D d, E e),
    (A a, B b, C c, D d, E e, F f)
);

/// The forward of a dual pair (`__forward_dual`) that lifts none of its
/// arguments: `sweep` (the callee's dual sweep) run on `args`, its
/// gradient pushed for the reverse and its value returned, as
/// [`forwarded_dual`]; no arguments (a caller that could not pass them)
/// fails the sweep.
///
/// ```
/// use autodiff::__adjoint::{forward_with, DualStack};
/// use autodiff::{Dual, ValueAndGradient};
///
/// fn square(_: &mut DualStack, x: Dual) -> Option<ValueAndGradient<Dual, Dual>> {
///     Some(ValueAndGradient { value: x * x, gradient: x * 2.0 })
/// }
///
/// let mut stack = DualStack::new();
/// let value = forward_with(&mut stack, Some((Dual::new(3.0, 1.0),)), square);
/// assert_eq!((value.value, value.tangent), (9.0, 6.0));
/// assert_eq!(stack.pop().value, 6.0);
/// assert!(forward_with(&mut stack, None::<(Dual,)>, square).value.is_nan());
/// ```
#[inline]
pub fn forward_with<A, G: DualSpread, S: DualSweep<A, G>>(
    stack: &mut DualStack,
    args: Option<A>,
    sweep: S,
) -> Dual {
    match args {
        Some(args) => forwarded_dual(sweep.sweep(stack, args), stack),
        None => stack.failed(),
    }
}

/// A dual sweep taking its arguments as one tuple (see [`forward_with`]).
pub trait DualSweep<A, G> {
    /// The sweep on `args`.
    fn sweep(self, stack: &mut DualStack, args: A) -> Option<ValueAndGradient<G, Dual>>;
}

macro_rules! dual_sweeps {
    ($(($($t:ident $v:ident),+)),+) => {$(
        impl<S, G, $($t),+> DualSweep<($($t,)+), G> for S
        where
            S: FnOnce(&mut DualStack, $($t),+) -> Option<ValueAndGradient<G, Dual>>,
        {
            #[inline(always)]
            fn sweep(
                self,
                stack: &mut DualStack,
                ($($v,)+): ($($t,)+),
            ) -> Option<ValueAndGradient<G, Dual>> {
                self(stack, $($v),+)
            }
        }
    )+};
}

dual_sweeps!(
    (A a),
    (A a, B b),
    (A a, B b, C c),
    (A a, B b, C c, D d),
    (A a, B b, C c, D d, E e),
    (A a, B b, C c, D d, E e, F f)
);
