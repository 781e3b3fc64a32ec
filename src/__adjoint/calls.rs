//! The calling convention of annotated calls in a compiled adjoint. A
//! caller's forward sweep runs `g::__forward(stack, args((a, b)))` where
//! the body calls `g(a, b)`, and its reverse sweep `g::__reverse(stack,
//! args((a, b)), y_bar, args((&mut a_bar, &mut b_bar)))`: the pair (see the
//! module docs) takes the student's arguments as one `Option` of its
//! parameter tuple, which [`args`] makes from the tuple written.
//!
//! Why a tuple rather than `g::__forward(stack, a, b)`: the plain twin
//! already checks the call. A wrong number of arguments, or an `f64` where
//! `g` takes a `usize`, is its error on the student's call; a direct call
//! of the pair would add a second copy that counts the stack and the
//! adjoints among the arguments. Here the parameter tuple is the callee's
//! own, so rustc picks the one conversion that fits by the two tuples'
//! lengths: a call with the count `g` takes converts each argument with
//! [`Arg`] (the identity, or the coercions a direct call would make), a
//! mistaken argument converts as `as` would, and a call with another count
//! gives `None`, on which the pair fails the sweep: none of these compile
//! in a crate, since the plain twin does not, and none panics.

use std::any::Any;

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

/// A reference passed where the value is taken: the receiver of a method
/// that takes a model by value (`model.sum_out()`), which the adjoint reads
/// again for the reverse, so it passes a copy; or (`square(&x)`, `total(&v)`
/// for `total(v: Vec<f64>)`) the plain twin's mismatched types, which never
/// runs in a crate that compiles.
#[diagnostic::do_not_recommend]
impl<T: Clone> Arg<T> for &T {
    #[inline(always)]
    fn arg(self) -> T {
        self.clone()
    }
}

/// The same through a reference to a reference: the receiver of a method
/// taking its model by value, called on a model the caller borrows
/// (`line.at(x)` with `line: &Line` of a `Copy` model).
#[diagnostic::do_not_recommend]
impl<T: Clone> Arg<T> for &&T {
    #[inline(always)]
    fn arg(self) -> T {
        (*self).clone()
    }
}

/// A value of another shape than the parameter's (`total(v)` for `total(x:
/// &[f64])` with `v: Vec<f64>`, a number for an array): the plain twin's
/// mismatched types, so these never run in a crate that compiles. They
/// keep a generated call from adding an error of its own to the
/// student's one.
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

/// Also the dual pair's (`dual_calls`).
pub(super) use mistaken_shapes;

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

/// A number passed where a number of another kind is taken (an `f64`
/// for a `usize`, an integer for an `f64`, a `bool` for either): the plain
/// twin's mismatched types, so these never run in a crate that compiles.
///
/// None converts an integer to another integer type, nor an `f64` to an
/// `f32`: a literal (`scaled(x, 2)` for `n: usize`) or a binding the
/// adjoint leaves untyped (`let t = 1;`) is typed by the one impl that
/// takes an integer (a float) where the callee takes `usize` (`f32`), its
/// own type's. With a second one, Rust would fall back to `i32` (`f64`)
/// and convert, and the callee would run on another number than the plain
/// function does.
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
    f64 => i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool;
    f32 => f64 i32 i64 usize u32 bool;
    i32 => f64 f32 bool;
    i64 => f64 f32 bool;
    usize => f64 f32 bool;
    u32 => f64 f32 bool;
    bool => f64 f32 i32 i64 usize u32;
}

/// The arguments written, `Self` (a tuple), as the callee's parameter
/// tuple `P`: converted when the counts agree, `None` when they do not.
#[diagnostic::on_unimplemented(
    message = "cannot pass `{Self}` where the function takes `{P}`",
    label = "these arguments",
    note = "a #[differentiable] function takes f64 values, arrays, slices or Vecs of them, and its own pass-through parameters"
)]
pub trait Args<P> {
    /// The arguments as the parameters, or `None` for another count.
    fn args(self) -> Option<P>;
}

/// `args` as the parameter tuple the callee names in its signature.
#[inline(always)]
pub fn args<A: Args<P>, P>(args: A) -> Option<P> {
    args.args()
}

/// The parameters of a call of a function without `#[differentiable]`:
/// the recording twin has already made that call the error the student
/// reads ("annotate the helper"), so its stand-in takes these, which any
/// arguments convert to, and never runs.
#[derive(Clone, Copy, Debug)]
pub enum NotDifferentiable {}

/// A call whose count matches the callee's: each argument converted.
macro_rules! args_call {
    ($($a:ident $A:ident $P:ident),*) => {
        impl<$($A, $P),*> Args<($($P,)*)> for ($($A,)*)
        where
            $($A: Arg<$P>,)*
        {
            #[inline(always)]
            fn args(self) -> Option<($($P,)*)> {
                let ($($a,)*) = self;
                Some(($($a.arg(),)*))
            }
        }

        #[diagnostic::do_not_recommend]
        impl<$($A),*> Args<NotDifferentiable> for ($($A,)*) {
            #[inline(always)]
            fn args(self) -> Option<NotDifferentiable> {
                None
            }
        }
    };
}

/// A call with another count than the callee takes: the plain twin's
/// error; were it run, the pair fails the sweep.
macro_rules! args_mistake {
    (($($A:ident)*) ($($P:ident)*)) => {
        #[diagnostic::do_not_recommend]
        impl<$($A,)* $($P),*> Args<($($P,)*)> for ($($A,)*) {
            #[inline(always)]
            fn args(self) -> Option<($($P,)*)> {
                None
            }
        }
    };
}

// Up to 12 arguments, as the recording twin's calls.
args_call!();
for_each_arity!(args_call);

// A wrong count is the plain twin's one error, up to 12 either way.
args_mistake!(()(P0));
args_mistake!(() (P0 P1));
args_mistake!(() (P0 P1 P2));
args_mistake!(() (P0 P1 P2 P3));
args_mistake!(() (P0 P1 P2 P3 P4));
args_mistake!(() (P0 P1 P2 P3 P4 P5));
args_mistake!(() (P0 P1 P2 P3 P4 P5 P6));
args_mistake!(() (P0 P1 P2 P3 P4 P5 P6 P7));
args_mistake!(() (P0 P1 P2 P3 P4 P5 P6 P7 P8));
args_mistake!(() (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9));
args_mistake!(() (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10));
args_mistake!(() (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11));
args_mistake!((A0)());
args_mistake!((A0) (P0 P1));
args_mistake!((A0) (P0 P1 P2));
args_mistake!((A0) (P0 P1 P2 P3));
args_mistake!((A0) (P0 P1 P2 P3 P4));
args_mistake!((A0) (P0 P1 P2 P3 P4 P5));
args_mistake!((A0) (P0 P1 P2 P3 P4 P5 P6));
args_mistake!((A0) (P0 P1 P2 P3 P4 P5 P6 P7));
args_mistake!((A0) (P0 P1 P2 P3 P4 P5 P6 P7 P8));
args_mistake!((A0) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9));
args_mistake!((A0) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10));
args_mistake!((A0) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11));
args_mistake!((A0 A1) ());
args_mistake!((A0 A1) (P0));
args_mistake!((A0 A1) (P0 P1 P2));
args_mistake!((A0 A1) (P0 P1 P2 P3));
args_mistake!((A0 A1) (P0 P1 P2 P3 P4));
args_mistake!((A0 A1) (P0 P1 P2 P3 P4 P5));
args_mistake!((A0 A1) (P0 P1 P2 P3 P4 P5 P6));
args_mistake!((A0 A1) (P0 P1 P2 P3 P4 P5 P6 P7));
args_mistake!((A0 A1) (P0 P1 P2 P3 P4 P5 P6 P7 P8));
args_mistake!((A0 A1) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9));
args_mistake!((A0 A1) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10));
args_mistake!((A0 A1) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11));
args_mistake!((A0 A1 A2) ());
args_mistake!((A0 A1 A2) (P0));
args_mistake!((A0 A1 A2) (P0 P1));
args_mistake!((A0 A1 A2) (P0 P1 P2 P3));
args_mistake!((A0 A1 A2) (P0 P1 P2 P3 P4));
args_mistake!((A0 A1 A2) (P0 P1 P2 P3 P4 P5));
args_mistake!((A0 A1 A2) (P0 P1 P2 P3 P4 P5 P6));
args_mistake!((A0 A1 A2) (P0 P1 P2 P3 P4 P5 P6 P7));
args_mistake!((A0 A1 A2) (P0 P1 P2 P3 P4 P5 P6 P7 P8));
args_mistake!((A0 A1 A2) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9));
args_mistake!((A0 A1 A2) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10));
args_mistake!((A0 A1 A2) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11));
args_mistake!((A0 A1 A2 A3) ());
args_mistake!((A0 A1 A2 A3) (P0));
args_mistake!((A0 A1 A2 A3) (P0 P1));
args_mistake!((A0 A1 A2 A3) (P0 P1 P2));
args_mistake!((A0 A1 A2 A3) (P0 P1 P2 P3 P4));
args_mistake!((A0 A1 A2 A3) (P0 P1 P2 P3 P4 P5));
args_mistake!((A0 A1 A2 A3) (P0 P1 P2 P3 P4 P5 P6));
args_mistake!((A0 A1 A2 A3) (P0 P1 P2 P3 P4 P5 P6 P7));
args_mistake!((A0 A1 A2 A3) (P0 P1 P2 P3 P4 P5 P6 P7 P8));
args_mistake!((A0 A1 A2 A3) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9));
args_mistake!((A0 A1 A2 A3) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10));
args_mistake!((A0 A1 A2 A3) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11));
args_mistake!((A0 A1 A2 A3 A4) ());
args_mistake!((A0 A1 A2 A3 A4) (P0));
args_mistake!((A0 A1 A2 A3 A4) (P0 P1));
args_mistake!((A0 A1 A2 A3 A4) (P0 P1 P2));
args_mistake!((A0 A1 A2 A3 A4) (P0 P1 P2 P3));
args_mistake!((A0 A1 A2 A3 A4) (P0 P1 P2 P3 P4 P5));
args_mistake!((A0 A1 A2 A3 A4) (P0 P1 P2 P3 P4 P5 P6));
args_mistake!((A0 A1 A2 A3 A4) (P0 P1 P2 P3 P4 P5 P6 P7));
args_mistake!((A0 A1 A2 A3 A4) (P0 P1 P2 P3 P4 P5 P6 P7 P8));
args_mistake!((A0 A1 A2 A3 A4) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9));
args_mistake!((A0 A1 A2 A3 A4) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10));
args_mistake!((A0 A1 A2 A3 A4) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11));
args_mistake!((A0 A1 A2 A3 A4 A5) ());
args_mistake!((A0 A1 A2 A3 A4 A5) (P0));
args_mistake!((A0 A1 A2 A3 A4 A5) (P0 P1));
args_mistake!((A0 A1 A2 A3 A4 A5) (P0 P1 P2));
args_mistake!((A0 A1 A2 A3 A4 A5) (P0 P1 P2 P3));
args_mistake!((A0 A1 A2 A3 A4 A5) (P0 P1 P2 P3 P4));
args_mistake!((A0 A1 A2 A3 A4 A5) (P0 P1 P2 P3 P4 P5 P6));
args_mistake!((A0 A1 A2 A3 A4 A5) (P0 P1 P2 P3 P4 P5 P6 P7));
args_mistake!((A0 A1 A2 A3 A4 A5) (P0 P1 P2 P3 P4 P5 P6 P7 P8));
args_mistake!((A0 A1 A2 A3 A4 A5) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9));
args_mistake!((A0 A1 A2 A3 A4 A5) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10));
args_mistake!((A0 A1 A2 A3 A4 A5) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11));
args_mistake!((A0 A1 A2 A3 A4 A5 A6) ());
args_mistake!((A0 A1 A2 A3 A4 A5 A6) (P0));
args_mistake!((A0 A1 A2 A3 A4 A5 A6) (P0 P1));
args_mistake!((A0 A1 A2 A3 A4 A5 A6) (P0 P1 P2));
args_mistake!((A0 A1 A2 A3 A4 A5 A6) (P0 P1 P2 P3));
args_mistake!((A0 A1 A2 A3 A4 A5 A6) (P0 P1 P2 P3 P4));
args_mistake!((A0 A1 A2 A3 A4 A5 A6) (P0 P1 P2 P3 P4 P5));
args_mistake!((A0 A1 A2 A3 A4 A5 A6) (P0 P1 P2 P3 P4 P5 P6 P7));
args_mistake!((A0 A1 A2 A3 A4 A5 A6) (P0 P1 P2 P3 P4 P5 P6 P7 P8));
args_mistake!((A0 A1 A2 A3 A4 A5 A6) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9));
args_mistake!((A0 A1 A2 A3 A4 A5 A6) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10));
args_mistake!((A0 A1 A2 A3 A4 A5 A6) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7) ());
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7) (P0));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7) (P0 P1));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7) (P0 P1 P2));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7) (P0 P1 P2 P3));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7) (P0 P1 P2 P3 P4));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7) (P0 P1 P2 P3 P4 P5));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7) (P0 P1 P2 P3 P4 P5 P6));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7) (P0 P1 P2 P3 P4 P5 P6 P7 P8));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8) ());
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8) (P0));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8) (P0 P1));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8) (P0 P1 P2));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8) (P0 P1 P2 P3));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8) (P0 P1 P2 P3 P4));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8) (P0 P1 P2 P3 P4 P5));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8) (P0 P1 P2 P3 P4 P5 P6));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8) (P0 P1 P2 P3 P4 P5 P6 P7));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9) ());
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9) (P0));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9) (P0 P1));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9) (P0 P1 P2));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9) (P0 P1 P2 P3));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9) (P0 P1 P2 P3 P4));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9) (P0 P1 P2 P3 P4 P5));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9) (P0 P1 P2 P3 P4 P5 P6));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9) (P0 P1 P2 P3 P4 P5 P6 P7));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9) (P0 P1 P2 P3 P4 P5 P6 P7 P8));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10) ());
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10) (P0));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10) (P0 P1));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10) (P0 P1 P2));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10) (P0 P1 P2 P3));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10) (P0 P1 P2 P3 P4));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10) (P0 P1 P2 P3 P4 P5));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10) (P0 P1 P2 P3 P4 P5 P6));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10) (P0 P1 P2 P3 P4 P5 P6 P7));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10) (P0 P1 P2 P3 P4 P5 P6 P7 P8));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11) ());
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11) (P0));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11) (P0 P1));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11) (P0 P1 P2));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11) (P0 P1 P2 P3));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11) (P0 P1 P2 P3 P4));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11) (P0 P1 P2 P3 P4 P5));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11) (P0 P1 P2 P3 P4 P5 P6));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11) (P0 P1 P2 P3 P4 P5 P6 P7));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11) (P0 P1 P2 P3 P4 P5 P6 P7 P8));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9));
args_mistake!((A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11) (P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10));

#[cfg(test)]
mod tests {
    use super::super::Stack;
    use super::*;

    // As `#[differentiable]` writes a pair: the parameters as one tuple.
    fn scaled_forward(stack: &mut Stack, args: Option<(f64, usize)>) -> f64 {
        let Some((x, n)) = args else {
            stack.fail();
            return f64::NAN;
        };
        stack.push(n as f64);
        x * n as f64
    }

    fn sum_reverse(
        stack: &mut Stack,
        args: Option<(&[f64],)>,
        value_bar: f64,
        bars: Option<(&mut [f64],)>,
    ) {
        let (Some((x,)), Some((x_bar,))) = (args, bars) else {
            stack.fail();
            return;
        };
        for (item_bar, _) in x_bar.iter_mut().zip(x) {
            *item_bar += value_bar;
        }
    }

    #[test]
    fn a_call_with_the_callees_count_runs_it() {
        let mut stack = Stack::new();
        assert_eq!(scaled_forward(&mut stack, args((1.5, 2_usize))), 3.0);
        assert_eq!(stack.pop(), 2.0);
        // A `Vec` and its adjoint coerce to the slices the reverse takes.
        let x = vec![1.0, 2.0];
        let mut x_bar = vec![0.0; 2];
        sum_reverse(&mut stack, args((&x,)), 0.5, args((&mut x_bar,)));
        assert_eq!(x_bar, [0.5, 0.5]);
        let a = [1.0; 3];
        let mut a_bar = [0.0; 3];
        sum_reverse(&mut stack, args((&a,)), 2.0, args((&mut a_bar,)));
        assert_eq!(a_bar, [2.0; 3]);
        assert!(stack.finite());
    }

    fn scaled_reverse(
        stack: &mut Stack,
        args: Option<(f64, usize)>,
        value_bar: f64,
        bars: Option<(&mut f64, &mut dyn Any)>,
    ) {
        let (Some((_, n)), Some((x_bar, _))) = (args, bars) else {
            stack.fail();
            return;
        };
        *x_bar += value_bar * n as f64;
    }

    #[test]
    fn an_argument_without_an_adjoint_passes_whatever_the_caller_has() {
        let mut stack = Stack::new();
        let (mut x_bar, mut n_bar) = (0.0, super::super::zero(&3_usize));
        scaled_reverse(
            &mut stack,
            args((1.0, 3_usize)),
            2.0,
            args((&mut x_bar, &mut n_bar)),
        );
        assert_eq!(x_bar, 6.0);
        // A `#[constant] f64` argument's adjoint is an `f64`: left alone.
        let mut c_bar = 0.5;
        scaled_reverse(
            &mut stack,
            args((1.0, 3_usize)),
            2.0,
            args((&mut x_bar, &mut c_bar)),
        );
        assert_eq!((x_bar, c_bar), (12.0, 0.5));
        assert!(stack.finite());
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
        assert!(scaled_forward(&mut stack, args((1.5,))).is_nan());
        assert!(!stack.finite());
        let mut stack = Stack::new();
        let (mut bar, mut other) = (0.0, 0.0);
        sum_reverse(
            &mut stack,
            args((&[1.0][..], 2.0)),
            1.0,
            args((&mut bar, &mut other)),
        );
        assert!(!stack.finite());
        assert_eq!(bar, 0.0);
        let stand_in: Option<NotDifferentiable> = args((1.0, 2.0, 3.0));
        assert!(stand_in.is_none());
    }
}

/// What a caller passes as the cotangent of a vector-valued callee's
/// output `Out` in its reverse sweep: its adjoint of the binding, by
/// reference or by value. A caller that took the call for a number (the
/// macro cannot see the callee's type) passes an `f64`, which is no
/// cotangent: the pair then fails the sweep, and `f_grad` takes the tape.
pub trait Cotangent<Out> {
    /// The cotangent, or `None` for a number passed for a vector.
    fn cotangent(self) -> Option<Out>;
    /// The cotangent where the caller keeps it, for a compiled callee
    /// that only reads it; `None` for a number passed for a vector.
    fn cotangent_ref(&self) -> Option<&Out>;
}

impl<T> Cotangent<T> for T {
    #[inline(always)]
    fn cotangent(self) -> Option<T> {
        Some(self)
    }
    #[inline(always)]
    fn cotangent_ref(&self) -> Option<&T> {
        Some(self)
    }
}

impl<T: Clone> Cotangent<T> for &T {
    #[inline(always)]
    fn cotangent(self) -> Option<T> {
        Some(self.clone())
    }
    #[inline(always)]
    fn cotangent_ref(&self) -> Option<&T> {
        Some(*self)
    }
}

impl<A> Cotangent<Vec<A>> for f64 {
    fn cotangent(self) -> Option<Vec<A>> {
        None
    }
    fn cotangent_ref(&self) -> Option<&Vec<A>> {
        None
    }
}

impl<A, const N: usize> Cotangent<[A; N]> for f64 {
    fn cotangent(self) -> Option<[A; N]> {
        None
    }
    fn cotangent_ref(&self) -> Option<&[A; N]> {
        None
    }
}

macro_rules! number_for_tuple {
    ($(($($T:ident),+))*) => {$(
        impl<$($T),+> Cotangent<($($T,)+)> for f64 {
            fn cotangent(self) -> Option<($($T,)+)> {
                None
            }
            fn cotangent_ref(&self) -> Option<&($($T,)+)> {
                None
            }
        }
    )*};
}
number_for_tuple!((A)(A, B)(A, B, C)(A, B, C, D)(A, B, C, D, E)(
    A, B, C, D, E, F
));

/// The cotangent a caller passes for a call's value its body never reads
/// (`let p = v(x);` and no `p` after it), whose type the macro cannot see:
/// zeros shaped like the value, a number for a number, a vector for a
/// vector, so that a number-valued and a vector-valued callee's reverse
/// both take it (each pops or reruns what its forward left) and add
/// nothing.
pub trait Unread {
    /// Zeros shaped like `self`.
    fn unread(&self) -> Self;
}

impl Unread for f64 {
    #[inline(always)]
    fn unread(&self) -> Self {
        0.0
    }
}

impl<T: Unread> Unread for Vec<T> {
    fn unread(&self) -> Self {
        self.iter().map(Unread::unread).collect()
    }
}

impl<T: Unread, const N: usize> Unread for [T; N] {
    fn unread(&self) -> Self {
        std::array::from_fn(|k| self[k].unread())
    }
}

macro_rules! unread_tuple {
    ($(($($T:ident $k:tt),+))*) => {$(
        impl<$($T: Unread),+> Unread for ($($T,)+) {
            fn unread(&self) -> Self {
                ($(self.$k.unread(),)+)
            }
        }
    )*};
}
unread_tuple!((A 0)(A 0, B 1)(A 0, B 1, C 2)(A 0, B 1, C 2, D 3)(A 0, B 1, C 2, D 3, E 4)(
    A 0, B 1, C 2, D 3, E 4, F 5
));

/// [`Unread`] as a function, for generated code: `unread(&p)`.
#[inline(always)]
pub fn unread<T: Unread>(value: &T) -> T {
    value.unread()
}

/// The output of a vector-valued callee's forward when its arguments did
/// not convert (a call the plain twin rejects, so it never runs): NaN in
/// every number, no element in a `Vec`. Also what stands for a call's
/// saved value (and arguments) at the top of a body with `return` whose
/// reverse starts from an exit before the call: never read.
pub trait Poisoned {
    /// The poisoned value.
    fn poisoned() -> Self;
}

impl Poisoned for f64 {
    fn poisoned() -> Self {
        f64::NAN
    }
}

/// The dual sweep's saved value of a call (`f_hvp`'s), as `f64`'s.
impl Poisoned for autodiff_core::Dual {
    fn poisoned() -> Self {
        autodiff_core::Dual::new(f64::NAN, f64::NAN)
    }
}

/// An argument saved for a callee's rerun (a count, an index, a flag)
/// where the `let` that saved it never ran: never read.
macro_rules! poisoned_plain {
    ($($T:ty)*) => {$(
        impl Poisoned for $T {
            fn poisoned() -> Self {
                <$T>::default()
            }
        }
    )*};
}
poisoned_plain!(f32 usize isize u8 u16 u32 u64 i8 i16 i32 i64 bool);

/// The adjoint of an integer made after a call the reverse found unmade.
impl Poisoned for super::NoAdjoint {
    fn poisoned() -> Self {
        super::NoAdjoint
    }
}

impl<T> Poisoned for Vec<T> {
    fn poisoned() -> Self {
        Vec::new()
    }
}

impl<T: Poisoned, const N: usize> Poisoned for [T; N] {
    fn poisoned() -> Self {
        std::array::from_fn(|_| T::poisoned())
    }
}

macro_rules! poisoned_tuple {
    ($(($($T:ident),+))*) => {$(
        impl<$($T: Poisoned),+> Poisoned for ($($T,)+) {
            fn poisoned() -> Self {
                ($($T::poisoned(),)+)
            }
        }
    )*};
}
poisoned_tuple!((A)(A, B)(A, B, C)(A, B, C, D)(A, B, C, D, E)(
    A, B, C, D, E, F
));

/// A call's value where a caller's sweep reads it as a number: an `f64`
/// as it is; a vector-valued callee's output (which the caller's syntax
/// did not show to be a vector) fails the sweep, and the tape answers.
pub trait ScalarOf {
    /// The number, or NaN with the sweep failed.
    fn scalar_of(self, stack: &mut super::Stack) -> f64;
}

impl ScalarOf for f64 {
    #[inline(always)]
    fn scalar_of(self, _: &mut super::Stack) -> f64 {
        self
    }
}

impl<T> ScalarOf for Vec<T> {
    fn scalar_of(self, stack: &mut super::Stack) -> f64 {
        stack.failed()
    }
}

impl<T, const N: usize> ScalarOf for [T; N] {
    fn scalar_of(self, stack: &mut super::Stack) -> f64 {
        stack.failed()
    }
}

macro_rules! tuple_scalar_of {
    ($(($($T:ident),+))*) => {$(
        impl<$($T),+> ScalarOf for ($($T,)+) {
            fn scalar_of(self, stack: &mut super::Stack) -> f64 {
                stack.failed()
            }
        }
    )*};
}
tuple_scalar_of!((A)(A, B)(A, B, C)(A, B, C, D)(A, B, C, D, E)(
    A, B, C, D, E, F
));

/// [`ScalarOf`] as a function, for generated code.
#[inline(always)]
pub fn scalar_of<T: ScalarOf>(value: T, stack: &mut super::Stack) -> f64 {
    value.scalar_of(stack)
}
