//! The calling convention of annotated calls in a compiled adjoint. A
//! caller's forward sweep runs `forward(g_forward, stack, (a, b))` where
//! the body calls `g(a, b)`, and its reverse sweep `reverse(g_reverse,
//! stack, (a, b), y_bar, (&mut a_bar, &mut b_bar))`: the pair `g_forward`
//! / `g_reverse` (see the module docs) called with the student's arguments
//! as a tuple.
//!
//! Why a tuple and a trait rather than `g_forward(stack, a, b)`: the plain
//! twin already checks the call. A wrong number of arguments, or an `f64`
//! where `g` takes a `usize`, is its error on the student's call; a direct
//! call of the pair would add a second copy that counts the stack and the
//! adjoints among the arguments. Here a call with the count `g` takes
//! converts each argument with [`Arg`] (the identity, or the coercions a
//! direct call would make), a mistaken argument converts as `as` would,
//! and a call with another count fails the sweep: none of these compile in
//! a crate, since the plain twin does not, and none panics.

use std::any::Any;

use super::Stack;

/// An argument passed to a parameter of type `P`: the identity, or the
/// coercion of a slice parameter (`&Vec<T>` and `&[T; N]` to `&[T]`, and
/// the same of the `&mut` adjoints); number types to each other only in a
/// call the plain twin rejects.
#[diagnostic::on_unimplemented(
    message = "cannot pass `{Self}` where the function takes `{P}`",
    label = "this argument has type `{Self}`",
    note = "a #[differentiable] function takes f64 values, arrays, slices or Vecs of them, and its own pass-through parameters"
)]
pub trait Arg<P> {
    /// The argument as the parameter's type.
    fn arg(self) -> P;
}

impl<T> Arg<T> for T {
    #[inline(always)]
    fn arg(self) -> T {
        self
    }
}

impl<'a, T> Arg<&'a [T]> for &'a Vec<T> {
    #[inline(always)]
    fn arg(self) -> &'a [T] {
        self
    }
}

impl<'a, T, const N: usize> Arg<&'a [T]> for &'a [T; N] {
    #[inline(always)]
    fn arg(self) -> &'a [T] {
        self
    }
}

impl<'a, T> Arg<&'a mut [T]> for &'a mut Vec<T> {
    #[inline(always)]
    fn arg(self) -> &'a mut [T] {
        self
    }
}

impl<'a, T, const N: usize> Arg<&'a mut [T]> for &'a mut [T; N] {
    #[inline(always)]
    fn arg(self) -> &'a mut [T] {
        self
    }
}

/// The adjoint of an argument whose parameter has none (an integer, a
/// `bool`, a `#[constant]`): the callee's reverse takes it as `&mut dyn
/// Any` and leaves it alone, so that its signature names no type the call
/// would have to infer.
impl<'a, T: Any> Arg<&'a mut dyn Any> for &'a mut T {
    #[inline(always)]
    fn arg(self) -> &'a mut dyn Any {
        self
    }
}

/// A reference passed where the value is taken (`square(&x)`): the plain
/// twin's mismatched types, so this never runs in a crate that compiles.
#[diagnostic::do_not_recommend]
impl<T: Copy> Arg<T> for &T {
    #[inline(always)]
    fn arg(self) -> T {
        *self
    }
}

/// A value of another shape than the parameter's (`total(v)` for `total(x:
/// &[f64])` with `v: Vec<f64>`, a number for an array): the plain twin's
/// mismatched types, so these never run in a crate that compiles.
macro_rules! mistaken_shapes {
    ($([$($g:tt)*] $from:ty => $to:ty = |$v:ident| $value:expr;)*) => {$(
        #[diagnostic::do_not_recommend]
        impl<$($g)*> Arg<$to> for $from {
            #[inline(always)]
            fn arg(self) -> $to {
                let $v = self;
                $value
            }
        }
    )*};
}

mistaken_shapes! {
    ['a, T] Vec<T> => &'a [T] = |v| { drop(v); &[] };
    ['a, T, const N: usize] [T; N] => &'a [T] = |v| { drop(v); &[] };
    ['a] f64 => &'a [f64] = |v| { let _ = v; &[] };
    [const N: usize] f64 => [f64; N] = |v| [v; N];
    [] f64 => Vec<f64> = |v| vec![v];
    [const N: usize] [f64; N] => f64 = |v| { let _ = v; f64::NAN };
    [] Vec<f64> => f64 = |v| { drop(v); f64::NAN };
    ['a] &'a [f64] => f64 = |v| { let _ = v; f64::NAN };
    [const N: usize] Vec<f64> => [f64; N] = |v| { drop(v); [f64::NAN; N] };
    [const N: usize] [f64; N] => Vec<f64> = |v| v.to_vec();
    ['a, const N: usize] &'a mut f64 => &'a mut [f64; N] = |v| { let _ = v; Box::leak(Box::new([0.0; N])) };
    ['a] &'a mut f64 => &'a mut Vec<f64> = |v| { let _ = v; Box::leak(Box::default()) };
    ['a] &'a mut f64 => &'a mut [f64] = |v| std::slice::from_mut(v);
    ['a, const N: usize] &'a mut [f64; N] => &'a mut f64 = |v| { let _ = v; Box::leak(Box::new(0.0)) };
    ['a] &'a mut Vec<f64> => &'a mut f64 = |v| { let _ = v; Box::leak(Box::new(0.0)) };
    ['a, const N: usize] &'a mut Vec<f64> => &'a mut [f64; N] = |v| { let _ = v; Box::leak(Box::new([0.0; N])) };
    ['a, const N: usize] &'a mut [f64; N] => &'a mut Vec<f64> = |v| { let _ = v; Box::leak(Box::default()) };
}

/// A number passed where another number type is taken: the plain twin's
/// mismatched types, so these never run in a crate that compiles.
macro_rules! mistaken_numbers {
    ($($from:ty => $($to:ty)*;)*) => {$($(
        #[diagnostic::do_not_recommend]
        impl Arg<$to> for $from {
            #[inline(always)]
            fn arg(self) -> $to {
                <$to>::default()
            }
        }
    )*)*};
}

mistaken_numbers! {
    f64 => f32 i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool;
    f32 => f64 i32 i64 usize u32 bool;
    i32 => f64 f32 i64 usize u32 bool;
    i64 => f64 f32 i32 usize u32 bool;
    usize => f64 f32 i32 i64 u32 bool;
    u32 => f64 f32 i32 i64 usize bool;
    bool => f64 f32 i32 i64 usize u32;
}

/// `callee`'s forward with the arguments `A`; `P` are the parameters the
/// callee takes (read off its signature).
pub trait Forward<A, P> {
    /// Runs the forward: the callee's value, its gradient pushed.
    fn forward(self, stack: &mut Stack, args: A) -> f64;
}

/// `callee`'s reverse with the arguments `A` and the adjoints `C` they
/// add to; `P` are the parameters and adjoints the callee takes.
pub trait Reverse<A, C, P> {
    /// Runs the reverse: adds `value_bar ×` the callee's gradient.
    fn reverse(self, stack: &mut Stack, args: A, value_bar: f64, bars: C);
}

/// `callee(stack, args..)`, for generated code.
#[inline(always)]
pub fn forward<F: Forward<A, P>, A, P>(callee: F, stack: &mut Stack, args: A) -> f64 {
    callee.forward(stack, args)
}

/// `callee(stack, args.., value_bar, bars..)`, for generated code.
#[inline(always)]
pub fn reverse<F: Reverse<A, C, P>, A, C, P>(
    callee: F,
    stack: &mut Stack,
    args: A,
    value_bar: f64,
    bars: C,
) {
    callee.reverse(stack, args, value_bar, bars);
}

/// What a call of a function without `#[differentiable]` resolves to in an
/// adjoint: the recording twin has already made that call the error the
/// student reads ("annotate the helper"), so this one type-checks with any
/// arguments and, were it ever run, fails the sweep.
#[derive(Clone, Copy, Debug)]
pub struct NotDifferentiable;

impl<A> Forward<A, ()> for NotDifferentiable {
    #[inline]
    fn forward(self, stack: &mut Stack, _: A) -> f64 {
        stack.fail();
        f64::NAN
    }
}

impl<A, C> Reverse<A, C, ()> for NotDifferentiable {
    #[inline]
    fn reverse(self, stack: &mut Stack, _: A, _: f64, _: C) {
        stack.fail();
    }
}

/// A call whose count matches the callee's: each argument converted.
macro_rules! pair_call {
    ($($a:ident $A:ident $P:ident $c:ident $C:ident $B:ident),+) => {
        impl<F, $($A, $P),+> Forward<($($A,)+), ($($P,)+)> for F
        where
            F: FnOnce(&mut Stack, $($P),+) -> f64,
            $($A: Arg<$P>,)+
        {
            #[inline(always)]
            fn forward(self, stack: &mut Stack, ($($a,)+): ($($A,)+)) -> f64 {
                self(stack, $($a.arg()),+)
            }
        }

        impl<F, $($A, $P, $C, $B),+> Reverse<($($A,)+), ($($C,)+), ($($P,)+ $($B,)+)> for F
        where
            F: FnOnce(&mut Stack, $($P,)+ f64, $($B),+),
            $($A: Arg<$P>, $C: Arg<$B>,)+
        {
            #[inline(always)]
            fn reverse(
                self,
                stack: &mut Stack,
                ($($a,)+): ($($A,)+),
                value_bar: f64,
                ($($c,)+): ($($C,)+),
            ) {
                self(stack, $($a.arg(),)+ value_bar, $($c.arg()),+)
            }
        }
    };
}

/// A call with another count than the callee takes: the plain twin's
/// error; were it run, it fails the sweep.
macro_rules! pair_mistake {
    (($($A:ident $C:ident)+) ($($P:ident $B:ident)+)) => {
        #[diagnostic::do_not_recommend]
        impl<F, $($A,)+ $($P),+> Forward<($($A,)+), ($($P,)+)> for F
        where
            F: FnOnce(&mut Stack, $($P),+) -> f64,
        {
            fn forward(self, stack: &mut Stack, _: ($($A,)+)) -> f64 {
                stack.fail();
                f64::NAN
            }
        }

        #[diagnostic::do_not_recommend]
        impl<F, $($A, $C,)+ $($P, $B),+> Reverse<($($A,)+), ($($C,)+), ($($P,)+ $($B,)+)> for F
        where
            F: FnOnce(&mut Stack, $($P,)+ f64, $($B),+),
        {
            fn reverse(self, stack: &mut Stack, _: ($($A,)+), _: f64, _: ($($C,)+)) {
                stack.fail();
            }
        }
    };
}

// Up to 12 arguments, as the recording twin's calls.
pair_call!(a0 A0 P0 c0 C0 B0);
pair_call!(a0 A0 P0 c0 C0 B0, a1 A1 P1 c1 C1 B1);
pair_call!(a0 A0 P0 c0 C0 B0, a1 A1 P1 c1 C1 B1, a2 A2 P2 c2 C2 B2);
pair_call!(a0 A0 P0 c0 C0 B0, a1 A1 P1 c1 C1 B1, a2 A2 P2 c2 C2 B2, a3 A3 P3 c3 C3 B3);
pair_call!(a0 A0 P0 c0 C0 B0, a1 A1 P1 c1 C1 B1, a2 A2 P2 c2 C2 B2, a3 A3 P3 c3 C3 B3, a4 A4 P4 c4 C4 B4);
pair_call!(a0 A0 P0 c0 C0 B0, a1 A1 P1 c1 C1 B1, a2 A2 P2 c2 C2 B2, a3 A3 P3 c3 C3 B3, a4 A4 P4 c4 C4 B4, a5 A5 P5 c5 C5 B5);
pair_call!(a0 A0 P0 c0 C0 B0, a1 A1 P1 c1 C1 B1, a2 A2 P2 c2 C2 B2, a3 A3 P3 c3 C3 B3, a4 A4 P4 c4 C4 B4, a5 A5 P5 c5 C5 B5, a6 A6 P6 c6 C6 B6);
pair_call!(a0 A0 P0 c0 C0 B0, a1 A1 P1 c1 C1 B1, a2 A2 P2 c2 C2 B2, a3 A3 P3 c3 C3 B3, a4 A4 P4 c4 C4 B4, a5 A5 P5 c5 C5 B5, a6 A6 P6 c6 C6 B6, a7 A7 P7 c7 C7 B7);
pair_call!(a0 A0 P0 c0 C0 B0, a1 A1 P1 c1 C1 B1, a2 A2 P2 c2 C2 B2, a3 A3 P3 c3 C3 B3, a4 A4 P4 c4 C4 B4, a5 A5 P5 c5 C5 B5, a6 A6 P6 c6 C6 B6, a7 A7 P7 c7 C7 B7, a8 A8 P8 c8 C8 B8);
pair_call!(a0 A0 P0 c0 C0 B0, a1 A1 P1 c1 C1 B1, a2 A2 P2 c2 C2 B2, a3 A3 P3 c3 C3 B3, a4 A4 P4 c4 C4 B4, a5 A5 P5 c5 C5 B5, a6 A6 P6 c6 C6 B6, a7 A7 P7 c7 C7 B7, a8 A8 P8 c8 C8 B8, a9 A9 P9 c9 C9 B9);
pair_call!(a0 A0 P0 c0 C0 B0, a1 A1 P1 c1 C1 B1, a2 A2 P2 c2 C2 B2, a3 A3 P3 c3 C3 B3, a4 A4 P4 c4 C4 B4, a5 A5 P5 c5 C5 B5, a6 A6 P6 c6 C6 B6, a7 A7 P7 c7 C7 B7, a8 A8 P8 c8 C8 B8, a9 A9 P9 c9 C9 B9, a10 A10 P10 c10 C10 B10);
pair_call!(a0 A0 P0 c0 C0 B0, a1 A1 P1 c1 C1 B1, a2 A2 P2 c2 C2 B2, a3 A3 P3 c3 C3 B3, a4 A4 P4 c4 C4 B4, a5 A5 P5 c5 C5 B5, a6 A6 P6 c6 C6 B6, a7 A7 P7 c7 C7 B7, a8 A8 P8 c8 C8 B8, a9 A9 P9 c9 C9 B9, a10 A10 P10 c10 C10 B10, a11 A11 P11 c11 C11 B11);

// A wrong count is the plain twin's one error up to 6 arguments either way.
pair_mistake!((A0 C0) (P0 B0 P1 B1));
pair_mistake!((A0 C0) (P0 B0 P1 B1 P2 B2));
pair_mistake!((A0 C0) (P0 B0 P1 B1 P2 B2 P3 B3));
pair_mistake!((A0 C0) (P0 B0 P1 B1 P2 B2 P3 B3 P4 B4));
pair_mistake!((A0 C0) (P0 B0 P1 B1 P2 B2 P3 B3 P4 B4 P5 B5));
pair_mistake!((A0 C0 A1 C1) (P0 B0));
pair_mistake!((A0 C0 A1 C1) (P0 B0 P1 B1 P2 B2));
pair_mistake!((A0 C0 A1 C1) (P0 B0 P1 B1 P2 B2 P3 B3));
pair_mistake!((A0 C0 A1 C1) (P0 B0 P1 B1 P2 B2 P3 B3 P4 B4));
pair_mistake!((A0 C0 A1 C1) (P0 B0 P1 B1 P2 B2 P3 B3 P4 B4 P5 B5));
pair_mistake!((A0 C0 A1 C1 A2 C2) (P0 B0));
pair_mistake!((A0 C0 A1 C1 A2 C2) (P0 B0 P1 B1));
pair_mistake!((A0 C0 A1 C1 A2 C2) (P0 B0 P1 B1 P2 B2 P3 B3));
pair_mistake!((A0 C0 A1 C1 A2 C2) (P0 B0 P1 B1 P2 B2 P3 B3 P4 B4));
pair_mistake!((A0 C0 A1 C1 A2 C2) (P0 B0 P1 B1 P2 B2 P3 B3 P4 B4 P5 B5));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3) (P0 B0));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3) (P0 B0 P1 B1));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3) (P0 B0 P1 B1 P2 B2));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3) (P0 B0 P1 B1 P2 B2 P3 B3 P4 B4));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3) (P0 B0 P1 B1 P2 B2 P3 B3 P4 B4 P5 B5));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3 A4 C4) (P0 B0));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3 A4 C4) (P0 B0 P1 B1));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3 A4 C4) (P0 B0 P1 B1 P2 B2));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3 A4 C4) (P0 B0 P1 B1 P2 B2 P3 B3));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3 A4 C4) (P0 B0 P1 B1 P2 B2 P3 B3 P4 B4 P5 B5));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3 A4 C4 A5 C5) (P0 B0));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3 A4 C4 A5 C5) (P0 B0 P1 B1));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3 A4 C4 A5 C5) (P0 B0 P1 B1 P2 B2));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3 A4 C4 A5 C5) (P0 B0 P1 B1 P2 B2 P3 B3));
pair_mistake!((A0 C0 A1 C1 A2 C2 A3 C3 A4 C4 A5 C5) (P0 B0 P1 B1 P2 B2 P3 B3 P4 B4));

#[cfg(test)]
mod tests {
    use super::*;

    fn scaled_forward(stack: &mut Stack, x: f64, n: usize) -> f64 {
        stack.push(n as f64);
        x * n as f64
    }

    fn sum_reverse(stack: &mut Stack, x: &[f64], value_bar: f64, x_bar: &mut [f64]) {
        let _ = stack;
        for (item_bar, _) in x_bar.iter_mut().zip(x) {
            *item_bar += value_bar;
        }
    }

    #[test]
    fn a_call_with_the_callees_count_runs_it() {
        let mut stack = Stack::new();
        assert_eq!(forward(scaled_forward, &mut stack, (1.5, 2_usize)), 3.0);
        assert_eq!(stack.pop(), 2.0);
        // A `Vec` and its adjoint coerce to the slices the reverse takes.
        let x = vec![1.0, 2.0];
        let mut x_bar = vec![0.0; 2];
        reverse(sum_reverse, &mut stack, (&x,), 0.5, (&mut x_bar,));
        assert_eq!(x_bar, [0.5, 0.5]);
        let a = [1.0; 3];
        let mut a_bar = [0.0; 3];
        reverse(sum_reverse, &mut stack, (&a,), 2.0, (&mut a_bar,));
        assert_eq!(a_bar, [2.0; 3]);
        assert!(stack.finite());
    }

    fn scaled_reverse(
        stack: &mut Stack,
        x: f64,
        n: usize,
        value_bar: f64,
        x_bar: &mut f64,
        n_bar: &mut dyn Any,
    ) {
        let _ = (stack, x, n_bar);
        *x_bar += value_bar * n as f64;
    }

    #[test]
    fn an_argument_without_an_adjoint_passes_whatever_the_caller_has() {
        let mut stack = Stack::new();
        let (mut x_bar, mut n_bar) = (0.0, super::super::zero(&3_usize));
        reverse(
            scaled_reverse,
            &mut stack,
            (1.0, 3_usize),
            2.0,
            (&mut x_bar, &mut n_bar),
        );
        assert_eq!(x_bar, 6.0);
        // A `#[constant] f64` argument's adjoint is an `f64`: left alone.
        let mut c_bar = 0.5;
        reverse(
            scaled_reverse,
            &mut stack,
            (1.0, 3_usize),
            2.0,
            (&mut x_bar, &mut c_bar),
        );
        assert_eq!((x_bar, c_bar), (12.0, 0.5));
    }

    #[test]
    fn arguments_no_crate_compiles_convert_without_a_panic() {
        let x = 2.5;
        let reference: &f64 = &x;
        assert_eq!(Arg::<f64>::arg(reference), 2.5);
        assert_eq!(Arg::<[f64; 2]>::arg(x), [2.5, 2.5]);
        assert_eq!(Arg::<Vec<f64>>::arg(x), vec![2.5]);
        assert!(Arg::<&[f64]>::arg(vec![1.0]).is_empty());
        assert!(Arg::<f64>::arg([1.0; 3]).is_nan());
        assert_eq!(Arg::<usize>::arg(x), 0);
        assert_eq!(Arg::<f64>::arg(true), 0.0);
        assert!(Arg::<[f64; 2]>::arg(vec![1.0]).iter().all(|v| v.is_nan()));
        assert_eq!(Arg::<Vec<f64>>::arg([1.0, 2.0]), [1.0, 2.0]);
        let mut bar = 1.0;
        assert_eq!(Arg::<&mut [f64; 2]>::arg(&mut bar), &[0.0; 2]);
        assert_eq!(Arg::<&mut [f64]>::arg(&mut bar), &[1.0]);
    }

    #[test]
    fn a_call_no_crate_compiles_fails_the_sweep_without_a_panic() {
        let mut stack = Stack::new();
        assert!(forward(scaled_forward, &mut stack, (1.5,)).is_nan());
        assert!(!stack.finite());
        let mut stack = Stack::new();
        let mut bar = 0.0;
        reverse(NotDifferentiable, &mut stack, (1.0,), 1.0, (&mut bar,));
        assert!(!stack.finite());
        assert_eq!(bar, 0.0);
    }
}
