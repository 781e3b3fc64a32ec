//! A gradient on dual numbers split back into its primal and tangent parts
//! ([`Split`]), through flat memory ([`DualFlat`]).

use autodiff_core::Dual;

use super::super::Observed;
use super::not_finite_bits;

/// A gradient on dual numbers taken apart: the primal parts (the
/// gradient) and the tangent parts (`H·v`), each in the `f64` shape, in
/// one pass that also sees whether every part is finite (the dual sweep
/// leaves its gradient unchecked for this).
///
/// ```
/// use autodiff::__adjoint::Split;
/// use autodiff::Dual;
///
/// // Five numbers: a run of four and one left over.
/// let g: Vec<Dual> = (0..5).map(|i| Dual::new(i as f64, -(i as f64))).collect();
/// let (primal, tangent) = g.split().unwrap();
/// assert_eq!(primal, [0.0, 1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(tangent, [0.0, -1.0, -2.0, -3.0, -4.0]);
/// let rows = vec![[Dual::new(1.0, 2.0), Dual::new(3.0, 4.0)]; 2];
/// assert_eq!(rows.split(), Some((vec![[1.0, 3.0]; 2], vec![[2.0, 4.0]; 2])));
/// // A part that is not finite, in the last item or in a row.
/// let mut bad = g.clone();
/// bad[4] = Dual::new(4.0, f64::INFINITY);
/// assert!(bad.split().is_none());
/// assert!(vec![[Dual::new(f64::NAN, 0.0)]].split().is_none());
/// ```
pub trait Split {
    /// The same shape of `f64`s.
    type Plain;
    /// `(primal parts, tangent parts)`, or `None` where a part is not
    /// finite.
    fn split(&self) -> Option<(Self::Plain, Self::Plain)>;
}

impl Split for Dual {
    type Plain = f64;
    #[inline(always)]
    fn split(&self) -> Option<(f64, f64)> {
        self.all_finite().then_some((self.value, self.tangent))
    }
}

/// The primal and tangent parts of a slice of gradient items.
pub type SplitRows<T> = (Vec<T>, Vec<T>);

/// An item of a gradient on duals, `Dual` or an array of items, seen as its
/// components in order (what [`Flat`](super::lifting::Flat) is to a parameter's items), so that
/// [`Split`] takes a slice of rows apart in one pass.
pub trait DualFlat: Copy {
    /// The same shape of `f64`s.
    type Plain: Copy;
    /// That shape with every component 0.
    const PLAIN_BLANK: Self::Plain;
    /// The components of `items`, in order.
    fn parts(items: &[Self]) -> &[Dual];
    /// The components of `items` on `f64`s, in order, to write.
    fn plain_parts_mut(items: &mut [Self::Plain]) -> &mut [f64];
    /// `(primal parts, tangent parts)` of `items`, item by item into
    /// `Vec`s made at their length (as [`Flat::lift_items`](super::lifting::Flat::lift_items) makes its
    /// items: `Vec`s of blanks written over took one more pass over
    /// memory, a sixth of a 64→64 MLP's `f_hvp`); `None` where a part is
    /// not finite.
    fn split_items(items: &[Self]) -> Option<SplitRows<Self::Plain>>;
}

impl DualFlat for Dual {
    type Plain = f64;
    const PLAIN_BLANK: f64 = 0.0;
    #[inline(always)]
    fn parts(items: &[Dual]) -> &[Dual] {
        items
    }
    #[inline(always)]
    fn plain_parts_mut(items: &mut [f64]) -> &mut [f64] {
        items
    }
    #[inline]
    fn split_items(items: &[Dual]) -> Option<(Vec<f64>, Vec<f64>)> {
        // Four at a time, as `[Dual; 4]` items are.
        let quads = items.chunks_exact(4);
        let rest = quads.remainder();
        let mut primals = Vec::with_capacity(items.len());
        let mut tangents = Vec::with_capacity(items.len());
        let mut finite = true;
        let (mut primal, mut tangent) = ([0.0; 4], [0.0; 4]);
        for quad in quads {
            finite &= split_parts(quad, &mut primal, &mut tangent);
            primals.extend_from_slice(&primal);
            tangents.extend_from_slice(&tangent);
        }
        let n = rest.len();
        finite &= split_parts(rest, &mut primal[..n], &mut tangent[..n]);
        primals.extend_from_slice(&primal[..n]);
        tangents.extend_from_slice(&tangent[..n]);
        finite.then_some((primals, tangents))
    }
}

impl<T: DualFlat, const N: usize> DualFlat for [T; N] {
    type Plain = [T::Plain; N];
    const PLAIN_BLANK: Self::Plain = [T::PLAIN_BLANK; N];
    #[inline(always)]
    fn parts(items: &[Self]) -> &[Dual] {
        T::parts(items.as_flattened())
    }
    #[inline(always)]
    fn plain_parts_mut(items: &mut [Self::Plain]) -> &mut [f64] {
        T::plain_parts_mut(items.as_flattened_mut())
    }
    #[inline]
    fn split_items(items: &[Self]) -> Option<SplitRows<Self::Plain>> {
        let mut primals = Vec::with_capacity(items.len());
        let mut tangents = Vec::with_capacity(items.len());
        let mut finite = true;
        for row in items {
            // Blanks, then written while their lines are still in cache.
            primals.push(Self::PLAIN_BLANK);
            tangents.push(Self::PLAIN_BLANK);
            if let (Some(primal), Some(tangent)) = (primals.last_mut(), tangents.last_mut()) {
                finite &= split_parts(
                    T::parts(row),
                    T::plain_parts_mut(primal),
                    T::plain_parts_mut(tangent),
                );
            }
        }
        finite.then_some((primals, tangents))
    }
}

/// Each component of `primals` and `tangents` the matching part of
/// `duals` (the three the same length); whether every part is finite, in
/// the same pass (as [`lift_parts`](super::lifting::lift_parts) sees it).
#[inline]
fn split_parts(duals: &[Dual], primals: &mut [f64], tangents: &mut [f64]) -> bool {
    let mut bad = 0;
    for ((dual, primal), tangent) in duals.iter().zip(primals).zip(tangents) {
        *primal = dual.value;
        *tangent = dual.tangent;
        bad |= not_finite_bits(dual.value) | not_finite_bits(dual.tangent);
    }
    bad == 0
}

impl<T: DualFlat, const N: usize> Split for [T; N] {
    type Plain = [T::Plain; N];
    #[inline]
    fn split(&self) -> Option<(Self::Plain, Self::Plain)> {
        let (mut primals, mut tangents) = ([T::PLAIN_BLANK; N], [T::PLAIN_BLANK; N]);
        let finite = split_parts(
            T::parts(self),
            T::plain_parts_mut(&mut primals),
            T::plain_parts_mut(&mut tangents),
        );
        finite.then_some((primals, tangents))
    }
}

impl<T: DualFlat> Split for Vec<T> {
    type Plain = Vec<T::Plain>;
    #[inline]
    fn split(&self) -> Option<(Self::Plain, Self::Plain)> {
        T::split_items(self)
    }
}

/// Rows of rows, each row split as a `Vec` of items is.
impl<T: DualFlat> Split for Vec<Vec<T>> {
    type Plain = Vec<Vec<T::Plain>>;
    #[inline]
    fn split(&self) -> Option<(Self::Plain, Self::Plain)> {
        let mut primals = Vec::with_capacity(self.len());
        let mut tangents = Vec::with_capacity(self.len());
        for row in self {
            let (primal, tangent) = T::split_items(row)?;
            primals.push(primal);
            tangents.push(tangent);
        }
        Some((primals, tangents))
    }
}

macro_rules! split_tuple {
    ($(($($t:ident $k:tt),+))*) => {$(
        impl<$($t: Split),+> Split for ($($t,)+) {
            type Plain = ($($t::Plain,)+);
            #[inline]
            #[allow(non_snake_case)]
            fn split(&self) -> Option<(Self::Plain, Self::Plain)> {
                $(let $t = self.$k.split()?;)+
                Some((($($t.0,)+), ($($t.1,)+)))
            }
        }
    )*};
}
split_tuple!((A 0, B 1) (A 0, B 1, C 2) (A 0, B 1, C 2, D 3) (A 0, B 1, C 2, D 3, E 4) (A 0, B 1, C 2, D 3, E 4, F 5));
