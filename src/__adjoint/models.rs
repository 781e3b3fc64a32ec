//! A model (`#[derive(Parameters)]`) in the compiled adjoint: its adjoint
//! is a value of the model's own type, as its gradient is, so that the
//! reverse sweep writes `model_bar.w[j] += ..` and `model_bar.layers[k]`
//! where the body reads `model.w[j]` and `model.layers[k]`.
//!
//! The derive implements the adjoint's traits ([`Adjoint`], [`Checked`],
//! [`Spread`], [`Observed`]) on the whole model with the walks of
//! [`Parameters`] below, never naming a field's type: a field that is not a
//! model stays the one error the derive already reports on that field.
//!
//! A `#[constant]` field is carried into the adjoint by [`Adjoint::zero_bar`]
//! (`Parameters::zeroed` keeps it) and may be written there by the sweep
//! (a constant `f64` read in arithmetic, whose adjoint the sweep cannot
//! tell from a trained one's); [`carried`] makes the gradient from the
//! model's own constants and the adjoint's trained scalars, so the
//! gradient carries constants exactly as the tape path does.

use super::Stack;
#[cfg(doc)]
use super::{Adjoint, Checked, Observed, Spread};
use crate::Parameters;

/// The zero adjoint of a model: its trained scalars zero, its constants
/// kept. What the derived [`Adjoint::zero_bar`] returns.
#[inline]
pub fn zero_model<M: Parameters>(model: &M) -> M {
    model.zeroed()
}

/// The gradient of `model` from its adjoint `bar`: the trained scalars of
/// `bar`, the constants of `model`. What the derived [`Adjoint::carry`]
/// returns.
///
/// ```
/// use autodiff::__adjoint::carried;
///
/// // A `Vec` of `f64` has no constants: the adjoint is the gradient.
/// assert_eq!(carried(&vec![1.0, 2.0], vec![0.5, -0.5]), vec![0.5, -0.5]);
/// ```
#[inline]
pub fn carried<M: Parameters>(model: &M, bar: M) -> M {
    let mut gradient = model.zeroed();
    gradient.zip_mut(&bar, &mut |g, b| *g = b);
    gradient
}

/// Whether every trained scalar of `model` and of its adjoint `bar` is
/// finite (constants are not checked: the tape never records them).
#[inline]
pub fn model_finite_with<M: Parameters>(model: &M, bar: &M) -> bool {
    model_all_finite(model) & model_all_finite(bar)
}

/// Whether every trained scalar of `model` is finite.
#[inline]
pub fn model_all_finite<M: Parameters>(model: &M) -> bool {
    let mut finite = true;
    model.visit(&mut |value| finite &= value.is_finite());
    finite
}

/// Pushes every trained scalar of `gradient`, in the order of
/// [`Parameters::scalars`].
#[inline]
pub fn push_model<M: Parameters>(gradient: &M, stack: &mut Stack) {
    gradient.visit(&mut |value| stack.push(value));
}

/// Pops what [`push_model`] pushed (the last scalar first) and adds
/// `scale ×` each to the scalar of `bar` it came from.
#[inline]
pub fn pop_model<M: Parameters>(bar: &mut M, stack: &mut Stack, scale: f64) {
    let mut values = stack.pop_run(bar.num_scalars());
    bar.visit_mut(&mut |b| {
        if let Some(value) = values.next() {
            *b += scale * value;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_adjoint_round_trips_through_the_stack() {
        let mut stack = Stack::new();
        let gradient = vec![[1.0, 2.0], [3.0, 4.0]];
        push_model(&gradient, &mut stack);
        let mut bar = vec![[0.5; 2]; 2];
        pop_model(&mut bar, &mut stack, 10.0);
        assert_eq!(bar, vec![[10.5, 20.5], [30.5, 40.5]]);
        assert!(stack.is_empty());
        assert!(model_finite_with(&gradient, &bar));
        bar[1][0] = f64::NAN;
        assert!(!model_finite_with(&gradient, &bar));
        assert!(!model_all_finite(&bar));
    }
}
