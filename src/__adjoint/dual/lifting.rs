//! A differentiable parameter lifted to dual numbers along a direction
//! ([`Lift`], [`lift`]), through flat memory ([`Flat`]).

use autodiff_core::Dual;

use super::super::Observed;
use super::not_finite_bits;

/// A differentiable parameter's shape on dual numbers: `f64` becomes
/// `Dual`, an array or a slice of them an array or a `Vec` of duals.
pub trait Lift {
    /// The same shape of duals.
    type Lifted;
    /// Each component with its tangent, the matching component of `along`;
    /// `None` where `along` is not of this shape (a slice of another
    /// length) or a component of either is not finite. The dual sweep
    /// leaves its parameters unchecked for this.
    fn lift_along(&self, along: &Self) -> Option<Self::Lifted>;
}

/// An item of a liftable slice, `f64` or an array of items, seen as its
/// components in order, so that lifting a slice of rows, and splitting the
/// gradient back, are one pass over flat memory (lifting 64 rows of 64
/// through `std::array::from_fn` a row took 2.5× the time of this).
pub trait Flat: Copy {
    /// The same shape of duals.
    type Duals: Copy;
    /// That shape with every component `0 + 0ε`.
    const BLANK: Self::Duals;
    /// The components of `items`, in order.
    fn parts(items: &[Self]) -> &[f64];
    /// The components of `items` on duals, in order, to write.
    fn dual_parts_mut(items: &mut [Self::Duals]) -> &mut [Dual];
    /// `values` with their tangents `along` (the same length), item by
    /// item into a `Vec` made at its length (an item is made on the stack
    /// and moved in: a `Vec` of blanks written over took one more pass
    /// over memory); `None` where a component is not finite.
    fn lift_items(values: &[Self], along: &[Self]) -> Option<Vec<Self::Duals>>;
}

impl Flat for f64 {
    type Duals = Dual;
    const BLANK: Dual = Dual::constant(0.0);
    #[inline(always)]
    fn parts(items: &[f64]) -> &[f64] {
        items
    }
    #[inline(always)]
    fn dual_parts_mut(items: &mut [Dual]) -> &mut [Dual] {
        items
    }
    #[inline]
    fn lift_items(values: &[f64], along: &[f64]) -> Option<Vec<Dual>> {
        // Four at a time, as `[f64; 4]` items are.
        let (quads, along_quads) = (values.chunks_exact(4), along.chunks_exact(4));
        let (rest, along_rest) = (quads.remainder(), along_quads.remainder());
        let mut out = Vec::with_capacity(values.len());
        let mut finite = true;
        let mut lifted = [Dual::constant(0.0); 4];
        for (quad, along) in quads.zip(along_quads) {
            finite &= lift_parts(quad, along, &mut lifted);
            out.extend_from_slice(&lifted);
        }
        finite &= lift_parts(rest, along_rest, &mut lifted[..rest.len()]);
        out.extend_from_slice(&lifted[..rest.len()]);
        finite.then_some(out)
    }
}

impl<T: Flat, const N: usize> Flat for [T; N] {
    type Duals = [T::Duals; N];
    const BLANK: Self::Duals = [T::BLANK; N];
    #[inline(always)]
    fn parts(items: &[Self]) -> &[f64] {
        T::parts(items.as_flattened())
    }
    #[inline(always)]
    fn dual_parts_mut(items: &mut [Self::Duals]) -> &mut [Dual] {
        T::dual_parts_mut(items.as_flattened_mut())
    }
    #[inline]
    fn lift_items(values: &[Self], along: &[Self]) -> Option<Vec<Self::Duals>> {
        let mut out = Vec::with_capacity(values.len());
        let mut finite = true;
        for (row, along) in values.iter().zip(along) {
            // Blank, then written while its lines are still in cache.
            out.push(Self::BLANK);
            if let Some(last) = out.last_mut() {
                finite &= lift_parts(T::parts(row), T::parts(along), T::dual_parts_mut(last));
            }
        }
        finite.then_some(out)
    }
}

/// `out`'s components, each a value of `values` with its tangent from
/// `along` (the three the same length); whether every one is finite, in
/// the same pass ([`not_finite_bits`]).
#[inline]
fn lift_parts(values: &[f64], along: &[f64], out: &mut [Dual]) -> bool {
    let mut bad = 0;
    for ((out, &value), &tangent) in out.iter_mut().zip(values).zip(along) {
        *out = Dual::new(value, tangent);
        bad |= not_finite_bits(value) | not_finite_bits(tangent);
    }
    bad == 0
}

impl Lift for f64 {
    type Lifted = Dual;
    #[inline(always)]
    fn lift_along(&self, along: &f64) -> Option<Dual> {
        let lifted = Dual::new(*self, *along);
        lifted.all_finite().then_some(lifted)
    }
}

impl<T: Flat, const N: usize> Lift for [T; N] {
    type Lifted = [T::Duals; N];
    #[inline]
    fn lift_along(&self, along: &Self) -> Option<Self::Lifted> {
        let mut out = [T::BLANK; N];
        lift_parts(T::parts(self), T::parts(along), T::dual_parts_mut(&mut out)).then_some(out)
    }
}

impl<T: Flat> Lift for [T] {
    type Lifted = Vec<T::Duals>;
    #[inline]
    fn lift_along(&self, along: &Self) -> Option<Self::Lifted> {
        if self.len() != along.len() {
            return None;
        }
        T::lift_items(self, along)
    }
}

/// Rows of rows (`&[Vec<f64>]`, a student's matrix): each row lifted as a
/// slice is, `None` where a row of `along` has another length.
impl<T: Flat> Lift for [Vec<T>] {
    type Lifted = Vec<Vec<T::Duals>>;
    #[inline]
    fn lift_along(&self, along: &Self) -> Option<Self::Lifted> {
        if self.len() != along.len() {
            return None;
        }
        self.iter()
            .zip(along)
            .map(|(row, along)| row.as_slice().lift_along(along))
            .collect()
    }
}

/// `parameter` on dual numbers, its tangent `along`; `None` where `along`
/// is not of the parameter's shape or a component of either is not finite
/// (the second-order items then run the direction's check, whose error
/// names the parameter, and the tape, whose error names a value).
///
/// ```
/// use autodiff::__adjoint::lift;
///
/// let w: &[[f64; 2]] = &[[1.0, 2.0]];
/// let lifted = lift(w, &[[0.5, 0.0]][..]).unwrap();
/// assert_eq!((lifted[0][0].value, lifted[0][0].tangent), (1.0, 0.5));
/// assert!(lift(w, &[][..]).is_none());
/// assert!(lift(&1.0, &f64::NAN).is_none());
/// assert!(lift(w, &[[0.5, f64::INFINITY]][..]).is_none());
/// assert!(lift(&[f64::NAN; 5], &[0.0; 5]).is_none());
/// ```
#[inline]
pub fn lift<P: Lift + ?Sized>(parameter: &P, along: &P) -> Option<P::Lifted> {
    parameter.lift_along(along)
}
