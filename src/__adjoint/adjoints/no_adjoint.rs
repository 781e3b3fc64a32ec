//! The adjoint of something with none ([`NoAdjoint`]): zero-sized, taking
//! and giving nothing.

use super::*;

/// The adjoint of something with none (an integer, a `bool`, a
/// `#[constant]`): zero-sized; `+=`, `-=`, indexing and arithmetic accept
/// anything and do nothing, so one emitted line serves every type and the
/// optimiser deletes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoAdjoint;

impl<T> AddAssign<T> for NoAdjoint {
    #[inline(always)]
    fn add_assign(&mut self, _: T) {}
}

impl<T> SubAssign<T> for NoAdjoint {
    #[inline(always)]
    fn sub_assign(&mut self, _: T) {}
}

impl<T> Mul<T> for NoAdjoint {
    type Output = NoAdjoint;
    #[inline(always)]
    fn mul(self, _: T) -> NoAdjoint {
        NoAdjoint
    }
}

impl Neg for NoAdjoint {
    type Output = NoAdjoint;
    #[inline(always)]
    fn neg(self) -> NoAdjoint {
        NoAdjoint
    }
}

impl<I> Index<I> for NoAdjoint {
    type Output = NoAdjoint;
    #[inline(always)]
    fn index(&self, _: I) -> &NoAdjoint {
        self
    }
}

impl<I> IndexMut<I> for NoAdjoint {
    #[inline(always)]
    fn index_mut(&mut self, _: I) -> &mut NoAdjoint {
        self
    }
}

/// `x_bar += y_bar` where `y` turned out to be an integer: nothing flows.
///
/// Not recommended: a student's `s += n` with `n: usize` lists the impls
/// of `f64 += _`, and this one would name the adjoint's internals there.
#[diagnostic::do_not_recommend]
impl AddAssign<NoAdjoint> for f64 {
    #[inline(always)]
    fn add_assign(&mut self, _: NoAdjoint) {}
}

/// `n_bar += m_bar` of two integers: a model's integer field, whose
/// adjoint is the field itself (the model's adjoint is a model), receives
/// the adjoint of a binding it initialised (`let width = net.width;`).
macro_rules! integer_takes_no_adjoint {
    ($($t:ty),*) => {$(
        #[diagnostic::do_not_recommend]
        impl AddAssign<NoAdjoint> for $t {
            #[inline(always)]
            fn add_assign(&mut self, _: NoAdjoint) {}
        }
        #[diagnostic::do_not_recommend]
        impl SubAssign<NoAdjoint> for $t {
            #[inline(always)]
            fn sub_assign(&mut self, _: NoAdjoint) {}
        }
    )*};
}
integer_takes_no_adjoint!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// `x_bar -= y_bar` where `y` turned out to be an integer.
///
/// Not recommended: a student's `s += n` with `n: usize` lists the impls
/// of `f64 += _`, and this one would name the adjoint's internals there.
#[diagnostic::do_not_recommend]
impl SubAssign<NoAdjoint> for f64 {
    #[inline(always)]
    fn sub_assign(&mut self, _: NoAdjoint) {}
}
