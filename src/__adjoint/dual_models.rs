//! A model (`#[derive(Parameters)]`) on the dual sweep: the derive writes
//! a twin struct, `ModelOnDuals`, with the model's field names and every
//! `f64` of a field a [`Dual`], so that the student's `model.w[j] * x[j]`
//! reads on duals as written. A trained field's twin is
//! `Parameter::Duals` of its type (so nested models and type aliases
//! follow); a `#[constant]` field whose type is written with `f64`s
//! (`scale: f64`, `mask: Vec<f64>`) is one too, its tangent 0, so that it
//! mixes with tracked values as on `f64`s; any other constant (`relu:
//! bool`, `width: usize`) is carried as it is.
//!
//! The passes over a twin are methods of `__private::Parameter`, the trait
//! every model already answers for (so that a struct that is not a model
//! stays that trait's one error); this module holds their walks over items,
//! shared by `Vec`s, slices and arrays, and [`split_model`], which takes a
//! model's gradient on duals apart into the gradient and `H·v`, each of the
//! model's type with the model's constants.

use super::{DualStack, Observed};
use crate::__private::Parameter;
use crate::Dual;

/// A number with its tangent `along`; `None` where either is not finite.
#[inline]
pub(crate) fn lift_number(value: f64, along: f64) -> Option<Dual> {
    let lifted = Dual::new(value, along);
    lifted.all_finite().then_some(lifted)
}

/// The primal and tangent parts of `dual` into `gradient` and `tangent`;
/// whether both are finite.
#[inline]
pub(crate) fn split_number(dual: &Dual, gradient: &mut f64, tangent: &mut f64) -> bool {
    *gradient = dual.value;
    *tangent = dual.tangent;
    dual.all_finite()
}

/// Each item of `items` lifted along the matching item of `along` (the
/// same length, else `None`).
pub(crate) fn lift_items<T: Parameter>(
    items: &[T],
    along: &[T::Gradient],
) -> Option<Vec<T::Duals>> {
    if items.len() != along.len() {
        return None;
    }
    items
        .iter()
        .zip(along)
        .map(|(item, along)| item.lift_duals(along))
        .collect()
}

/// Each item of `items` with tangent 0.
pub(crate) fn constant_items<T: Parameter>(items: &[T]) -> Vec<T::Duals> {
    items.iter().map(T::constant_duals).collect()
}

/// Each item of `items` split into the matching items of `gradient` and
/// `tangent` (all the same length, else `false`); whether every part was
/// finite.
pub(crate) fn split_items<T: Parameter>(
    items: &[T],
    duals: &[T::Duals],
    gradient: &mut [T::Gradient],
    tangent: &mut [T::Gradient],
) -> bool {
    let same =
        duals.len() == items.len() && gradient.len() == items.len() && tangent.len() == items.len();
    same && items
        .iter()
        .zip(duals)
        .zip(gradient.iter_mut().zip(tangent.iter_mut()))
        .fold(true, |finite, ((item, duals), (gradient, tangent))| {
            item.split_duals(duals, gradient, tangent) & finite
        })
}

/// Every number of `duals`, pushed in order.
pub(crate) fn push_items<T: Parameter>(duals: &[T::Duals], stack: &mut DualStack) {
    duals.iter().for_each(|item| T::push_duals(item, stack));
}

/// What [`push_items`] pushed, popped (the last first) and added, scaled.
pub(crate) fn pop_items<T: Parameter>(duals: &mut [T::Duals], stack: &mut DualStack, scale: Dual) {
    duals
        .iter_mut()
        .rev()
        .for_each(|item| T::pop_duals(item, stack, scale));
}

/// A model's gradient and its tangent (`H·v`) from the twin adjoint `bar`
/// the dual sweep returns: two values of the model's type, its constants
/// the model's; `None` where a part is not finite.
///
/// ```
/// use autodiff::__adjoint::split_model;
/// use autodiff::__private::Parameter;
///
/// let w = vec![[1.0, 2.0]];
/// let lifted = w.lift_duals(&vec![[0.5, 0.0]]).unwrap();
/// assert_eq!((lifted[0][0].value, lifted[0][0].tangent), (1.0, 0.5));
/// // A direction of another shape, or a part that is not finite.
/// assert!(w.lift_duals(&vec![]).is_none());
/// assert!(w.lift_duals(&vec![[f64::NAN, 0.0]]).is_none());
/// assert_eq!(split_model(&w, &lifted), Some((w.clone(), vec![[0.5, 0.0]])));
/// ```
#[inline]
pub fn split_model<M: Parameter<Gradient = M, Owned = M>>(
    model: &M,
    bar: &M::Duals,
) -> Option<(M, M)> {
    model.split_model(bar)
}
