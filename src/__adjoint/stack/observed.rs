//! What the sweeps observe for finiteness ([`Observed`]): numbers,
//! references, arrays, slices and `Vec`s of them, and the integers and
//! text that are always finite.

use super::*;

/// What a branch condition or an absorbing operation reads, observed by
/// [`Stack::observe`]: a number, a reference to one (a `for` over a
/// slice's items), or a whole array or slice (`if x.is_empty()`), which is
/// checked in every component.
pub trait Observed {
    /// Whether every `f64` in it is finite.
    fn all_finite(&self) -> bool;

    /// Whether every item of a run of them is finite: each in turn, or
    /// one vectorised pass for `f64` ([`finite_items`]).
    #[inline]
    fn all_finite_slice(items: &[Self]) -> bool
    where
        Self: Sized,
    {
        items.iter().fold(true, |ok, item| ok & item.all_finite())
    }

    /// Whether every item of every row is finite: each row's
    /// [`all_finite_slice`](Self::all_finite_slice), or one pass over
    /// all of them for `f64` ([`finite_rows`](crate::__adjoint::finite_rows)).
    #[inline]
    fn all_finite_rows(rows: &[Vec<Self>]) -> bool
    where
        Self: Sized,
    {
        rows.iter()
            .fold(true, |ok, row| ok & Self::all_finite_slice(row))
    }

    /// Whether no `f64` in it is NaN, for [`Stack::observe_infinite`];
    /// where not told otherwise, as strict as
    /// [`all_finite`](Self::all_finite).
    #[inline(always)]
    fn no_nan(&self) -> bool {
        self.all_finite()
    }
}

impl Observed for f64 {
    #[inline(always)]
    fn all_finite(&self) -> bool {
        self.is_finite()
    }

    #[inline]
    fn all_finite_slice(items: &[f64]) -> bool {
        finite_items(items)
    }

    #[inline]
    fn all_finite_rows(rows: &[Vec<f64>]) -> bool {
        crate::__adjoint::finite_rows(rows)
    }

    #[inline(always)]
    fn no_nan(&self) -> bool {
        !self.is_nan()
    }
}

macro_rules! always_finite {
    ($($t:ty),*) => {$(
        impl Observed for $t {
            #[inline(always)]
            fn all_finite(&self) -> bool {
                true
            }
        }
    )*};
}
always_finite!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool, char, str, String
);
// The adjoint of an integer (`(0, f64::NEG_INFINITY)`'s first part).
always_finite!(crate::__adjoint::NoAdjoint);

/// A tuple (`best = (i, x[i])`): every component.
macro_rules! observed_tuple {
    ($(($($t:ident $k:tt),+))*) => {$(
        impl<$($t: Observed),+> Observed for ($($t,)+) {
            #[inline]
            fn all_finite(&self) -> bool {
                true $(& self.$k.all_finite())+
            }
        }
    )*};
}
observed_tuple!((A 0) (A 0, B 1) (A 0, B 1, C 2) (A 0, B 1, C 2, D 3) (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5));

/// An `f32` is read only where the plain twin rejects it (`x / y` with `y:
/// f32`); observed as it is, so that the adjoint adds no second error.
impl Observed for f32 {
    #[inline(always)]
    fn all_finite(&self) -> bool {
        self.is_finite()
    }
}

impl<T: Observed + ?Sized> Observed for &T {
    #[inline(always)]
    fn all_finite(&self) -> bool {
        (**self).all_finite()
    }

    #[inline(always)]
    fn no_nan(&self) -> bool {
        (**self).no_nan()
    }
}

impl<T: Observed> Observed for [T] {
    #[inline]
    fn all_finite(&self) -> bool {
        T::all_finite_slice(self)
    }

    #[inline]
    fn no_nan(&self) -> bool {
        self.iter().fold(true, |ok, item| ok & item.no_nan())
    }
}

impl<T: Observed, const N: usize> Observed for [T; N] {
    #[inline]
    fn all_finite(&self) -> bool {
        self.as_slice().all_finite()
    }

    #[inline]
    fn all_finite_slice(items: &[[T; N]]) -> bool {
        T::all_finite_slice(items.as_flattened())
    }

    #[inline]
    fn no_nan(&self) -> bool {
        self.as_slice().no_nan()
    }
}

impl<T: Observed> Observed for Vec<T> {
    #[inline]
    fn all_finite(&self) -> bool {
        self.as_slice().all_finite()
    }

    #[inline]
    fn all_finite_slice(items: &[Vec<T>]) -> bool {
        T::all_finite_rows(items)
    }

    #[inline]
    fn no_nan(&self) -> bool {
        self.as_slice().no_nan()
    }
}
