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
    Add add, Sub sub, Mul mul, Div div, Remainder rem, Powf powf, Max max, Min min, Hypot hypot, Log log, Atan2 atan2
);

/// The outlined operations as methods of their first operand, which a
/// long body calls when that operand is itself an operation:
/// `a.record_mul(&(b), L).record_add(&(c), L)`. The receiver is taken by
/// value: it is the previous call's result, moved, not borrowed (a borrow
/// per operation, each live to the end of the statement, made borrow
/// checking of a 5,000-term sum quadratic). rustc types a method's receiver before
/// the method, so a left-deep chain (`x + x + … + x`) is typed one call
/// at a time; as nested generic calls, each level's pending trait
/// obligations were re-examined at every level below it (quadratic).
pub trait Record: Copy {
    /// [`super::add`], out of line.
    #[inline(never)]
    fn record_add<B: Copy>(self, b: &B, at: &'static Label) -> <Self as super::Add<B>>::Output
    where
        Self: super::Add<B>,
    {
        super::add(self, *b, *at)
    }
    /// [`super::sub`], out of line.
    #[inline(never)]
    fn record_sub<B: Copy>(self, b: &B, at: &'static Label) -> <Self as super::Sub<B>>::Output
    where
        Self: super::Sub<B>,
    {
        super::sub(self, *b, *at)
    }
    /// [`super::mul`], out of line.
    #[inline(never)]
    fn record_mul<B: Copy>(self, b: &B, at: &'static Label) -> <Self as super::Mul<B>>::Output
    where
        Self: super::Mul<B>,
    {
        super::mul(self, *b, *at)
    }
    /// [`super::div`], out of line.
    #[inline(never)]
    fn record_div<B: Copy>(self, b: &B, at: &'static Label) -> <Self as super::Div<B>>::Output
    where
        Self: super::Div<B>,
    {
        super::div(self, *b, *at)
    }
    /// [`super::rem`], out of line.
    #[inline(never)]
    fn record_rem<B: Copy>(self, b: &B, at: &'static Label) -> <Self as super::Remainder<B>>::Output
    where
        Self: super::Remainder<B>,
    {
        super::rem(self, *b, *at)
    }
    /// [`super::powf`], out of line.
    #[inline(never)]
    fn record_powf<B: Copy>(self, b: &B, at: &'static Label) -> <Self as super::Powf<B>>::Output
    where
        Self: super::Powf<B>,
    {
        super::powf(self, *b, *at)
    }
    /// [`super::max`], out of line.
    #[inline(never)]
    fn record_max<B: Copy>(self, b: &B, at: &'static Label) -> <Self as super::Max<B>>::Output
    where
        Self: super::Max<B>,
    {
        super::max(self, *b, *at)
    }
    /// [`super::min`], out of line.
    #[inline(never)]
    fn record_min<B: Copy>(self, b: &B, at: &'static Label) -> <Self as super::Min<B>>::Output
    where
        Self: super::Min<B>,
    {
        super::min(self, *b, *at)
    }
    /// [`super::hypot`], out of line.
    #[inline(never)]
    fn record_hypot<B: Copy>(self, b: &B, at: &'static Label) -> <Self as super::Hypot<B>>::Output
    where
        Self: super::Hypot<B>,
    {
        super::hypot(self, *b, *at)
    }
    /// [`super::log`], out of line.
    #[inline(never)]
    fn record_log<B: Copy>(self, b: &B, at: &'static Label) -> <Self as super::Log<B>>::Output
    where
        Self: super::Log<B>,
    {
        super::log(self, *b, *at)
    }
    /// [`super::atan2`], out of line.
    #[inline(never)]
    fn record_atan2<B: Copy>(self, b: &B, at: &'static Label) -> <Self as super::Atan2<B>>::Output
    where
        Self: super::Atan2<B>,
    {
        super::atan2(self, *b, *at)
    }
    /// [`super::neg`], out of line.
    #[inline(never)]
    fn record_neg(self, at: &'static Label) -> <Self as Signed>::Output
    where
        Self: Signed,
    {
        super::neg(self, *at)
    }
    /// [`super::abs`], out of line.
    #[inline(never)]
    fn record_abs(self, at: &'static Label) -> <Self as Signed>::Output
    where
        Self: Signed,
    {
        super::abs(self, *at)
    }
    /// [`super::powi`], out of line.
    #[inline(never)]
    fn record_powi(self, n: i32, at: &'static Label) -> <Self as Real>::Output
    where
        Self: Real,
    {
        super::powi(self, n, *at)
    }
}

impl<T: Copy> Record for T {}

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
