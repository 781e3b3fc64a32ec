//! The same runtime as `__private`, with each operation out of line: what a
//! recording twin of a long body calls (`emit::tape` picks it by the
//! body's size).
//!
//! The operations are `#[inline(always)]` so that a small function's tape
//! is written at the speed of hand-written calls. In a body of thousands of
//! operations, that puts every operation's whole recording path into one
//! function: some 700 lines of LLVM IR a statement, which LLVM optimises in
//! time that grows faster than the body. Here each operation is one call,
//! instantiated once per pair of operand types, so the body's code grows by
//! a call a statement.
//!
//! The call is made as cheap for LLVM as it can be: operands are passed by
//! reference (a `Scalar` is 24 bytes, passed through memory either way; by
//! value, each use of a binding is first copied, and removing thousands of
//! such copies from one function is LLVM's slowest pass on these bodies),
//! and the label is a reference to a constant (`&const { at(..) }`), not a
//! call building it at run time.

pub use super::*;

macro_rules! outlined_binary {
    ($($Trait:ident $method:ident),* $(,)?) => {$(
        #[doc = concat!("[`super::", stringify!($method), "`], out of line.")]
        #[inline(never)]
        pub fn $method<A: super::$Trait<B> + Copy, B: Copy>(
            a: &A,
            b: &B,
            at: &'static Label,
        ) -> A::Output {
            super::$method(*a, *b, *at)
        }
    )*};
}

outlined_binary!(
    Add add, Sub sub, Mul mul, Div div, Rem rem, Powf powf, Max max, Min min, Hypot hypot, Log log
);

/// [`super::neg`], out of line.
#[inline(never)]
pub fn neg<X: Signed + Copy>(x: &X, at: &'static Label) -> X::Output {
    super::neg(*x, *at)
}

/// [`super::abs`], out of line.
#[inline(never)]
pub fn abs<X: Signed + Copy>(x: &X, at: &'static Label) -> X::Output {
    super::abs(*x, *at)
}

/// [`super::powi`], out of line.
#[inline(never)]
pub fn powi<X: Real + Copy>(x: &X, n: i32, at: &'static Label) -> X::Output {
    super::powi(*x, n, *at)
}
