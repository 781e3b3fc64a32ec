//! The `Parameters` trait: what a training loop needs from a model without
//! indexing it by hand — count its scalars, read and write every one, walk a
//! model and its gradient side by side, a zeroed copy, a norm.
//!
//! Implemented for `f64`, arrays and `Vec`s of parameters, and by
//! `#[derive(Parameters)]` for structs of them. Every walk visits scalars in
//! the same order (fields in declaration order, arrays and `Vec`s front to
//! back), which is also the order of [`Parameters::scalars`] and of the
//! components a gradient check reports.

use std::fmt;

/// A model's trainable numbers: `f64`, arrays and `Vec`s of them (nested
/// too), and structs with `#[derive(Parameters)]`.
///
/// A gradient returned by an annotated function has the model's own type, so
/// the model and its gradient are walked side by side:
///
/// ```
/// use autodiff::prelude::*;
///
/// let mut w = [[1.0, 2.0], [3.0, 4.0]];
/// let grad = [[0.5, 0.0], [0.0, -1.0]];
/// w.update(&grad, |p, g| *p -= 0.1 * g)?;
/// assert_eq!(w, [[0.95, 2.0], [3.0, 4.1]]);
/// assert_eq!(w.num_scalars(), 4);
/// assert_eq!(grad.norm(), 1.25_f64.sqrt());
/// assert_eq!(w.zeroed(), [[0.0; 2]; 2]);
/// # Ok::<(), autodiff::ShapeMismatch>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a model: derive `Parameters` for it, or mark the parameter `#[constant]`",
    label = "not a model",
    note = "models are `f64`, arrays and `Vec`s of them, and structs with `#[derive(Parameters)]`"
)]
pub trait Parameters: Clone {
    /// Calls `f` with every scalar, in order.
    fn visit(&self, f: &mut dyn FnMut(f64));

    /// Calls `f` with every scalar, in order, to change it.
    fn visit_mut(&mut self, f: &mut dyn FnMut(&mut f64));

    /// Whether `other` has exactly this shape: the same `Vec` lengths
    /// everywhere, so that a walk of both pairs every scalar.
    fn same_shape(&self, other: &Self) -> bool;

    /// Calls `f` with every scalar of `self` and the scalar of `other` in
    /// the same place. Call only after [`same_shape`](Self::same_shape): on
    /// a different shape the walk stops at the shorter `Vec`.
    #[doc(hidden)]
    fn zip_mut(&mut self, other: &Self, f: &mut dyn FnMut(&mut f64, f64));

    /// The number of scalars (not `Vec::len`, which counts elements).
    ///
    /// ```
    /// use autodiff::prelude::*;
    /// assert_eq!(vec![[0.0; 3]; 2].num_scalars(), 6);
    /// ```
    fn num_scalars(&self) -> usize {
        let mut count = 0;
        self.visit(&mut |_| count += 1);
        count
    }

    /// Every scalar, in order.
    ///
    /// ```
    /// use autodiff::prelude::*;
    /// assert_eq!([[1.0, 2.0], [3.0, 4.0]].scalars(), [1.0, 2.0, 3.0, 4.0]);
    /// ```
    fn scalars(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.num_scalars());
        self.visit(&mut |x| out.push(x));
        out
    }

    /// Overwrites every scalar from `values`, in order; on a wrong count it
    /// returns the error and leaves `self` unchanged.
    ///
    /// ```
    /// use autodiff::prelude::*;
    /// let mut w = [0.0; 3];
    /// w.set_from_slice(&[1.0, 2.0, 3.0])?;
    /// assert_eq!(w, [1.0, 2.0, 3.0]);
    /// assert!(w.set_from_slice(&[1.0]).is_err());
    /// # Ok::<(), autodiff::ShapeMismatch>(())
    /// ```
    fn set_from_slice(&mut self, values: &[f64]) -> Result<(), ShapeMismatch> {
        let expected = self.num_scalars();
        if values.len() != expected {
            return Err(ShapeMismatch {
                expected,
                found: values.len(),
            });
        }
        let mut values = values.iter();
        self.visit_mut(&mut |p| {
            if let Some(&v) = values.next() {
                *p = v;
            }
        });
        Ok(())
    }

    /// A copy with every scalar zero and every constant field kept: a
    /// gradient accumulator, or an optimiser's velocity.
    fn zeroed(&self) -> Self {
        let mut zero = self.clone();
        zero.visit_mut(&mut |p| *p = 0.0);
        zero
    }

    /// The Euclidean norm of all scalars together: of a gradient, the
    /// number a training loop prints to see it vanish or explode.
    ///
    /// ```
    /// use autodiff::prelude::*;
    /// assert_eq!(vec![3.0, 4.0].norm(), 5.0);
    /// ```
    fn norm(&self) -> f64 {
        let mut squares = 0.0;
        self.visit(&mut |x| squares += x * x);
        squares.sqrt()
    }

    /// Calls `f(p, g)` with every scalar `p` of `self` (to change) and the
    /// scalar `g` in the same place of `other`, typically the gradient:
    /// `model.update(&grad, |p, g| *p -= lr * g)`. If `other` has another
    /// shape it returns the error and leaves `self` unchanged.
    ///
    /// ```
    /// use autodiff::prelude::*;
    /// let mut w = vec![1.0, 2.0];
    /// w.update(&vec![10.0, 20.0], |p, g| *p -= 0.1 * g)?;
    /// assert_eq!(w, [0.0, 0.0]);
    /// let err = w.update(&vec![1.0], |p, g| *p -= g).unwrap_err();
    /// assert_eq!((err.expected, err.found), (2, 1));
    /// assert_eq!(w, [0.0, 0.0]);
    /// # Ok::<(), autodiff::ShapeMismatch>(())
    /// ```
    fn update(
        &mut self,
        other: &Self,
        mut f: impl FnMut(&mut f64, f64),
    ) -> Result<(), ShapeMismatch>
    where
        Self: Sized,
    {
        if !self.same_shape(other) {
            return Err(ShapeMismatch {
                expected: self.num_scalars(),
                found: other.num_scalars(),
            });
        }
        self.zip_mut(other, &mut f);
        Ok(())
    }
}

/// Two models, or a model and a slice of numbers, that do not line up:
/// `Vec`s of different lengths somewhere, or a wrong count of scalars.
/// Counts are in scalars; they can be equal when only the nesting differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeMismatch {
    /// Scalars in the model being changed.
    pub expected: usize,
    /// Scalars in what was given.
    pub found: usize,
}

impl fmt::Display for ShapeMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "shapes differ: the model has {} scalars, the value given {}",
            self.expected, self.found
        )?;
        if self.expected == self.found {
            write!(f, " but the lengths of its `Vec`s differ")?;
        }
        Ok(())
    }
}

impl std::error::Error for ShapeMismatch {}

impl Parameters for f64 {
    #[inline]
    fn visit(&self, f: &mut dyn FnMut(f64)) {
        f(*self);
    }
    #[inline]
    fn visit_mut(&mut self, f: &mut dyn FnMut(&mut f64)) {
        f(self);
    }
    #[inline]
    fn same_shape(&self, _: &Self) -> bool {
        true
    }
    #[inline]
    fn zip_mut(&mut self, other: &Self, f: &mut dyn FnMut(&mut f64, f64)) {
        f(self, *other);
    }
}

impl<T: Parameters, const N: usize> Parameters for [T; N] {
    fn visit(&self, f: &mut dyn FnMut(f64)) {
        self.iter().for_each(|item| item.visit(f));
    }
    fn visit_mut(&mut self, f: &mut dyn FnMut(&mut f64)) {
        self.iter_mut().for_each(|item| item.visit_mut(f));
    }
    fn same_shape(&self, other: &Self) -> bool {
        self.iter().zip(other).all(|(a, b)| a.same_shape(b))
    }
    fn zip_mut(&mut self, other: &Self, f: &mut dyn FnMut(&mut f64, f64)) {
        self.iter_mut()
            .zip(other)
            .for_each(|(a, b)| a.zip_mut(b, f));
    }
}

impl<T: Parameters> Parameters for Vec<T> {
    fn visit(&self, f: &mut dyn FnMut(f64)) {
        self.iter().for_each(|item| item.visit(f));
    }
    fn visit_mut(&mut self, f: &mut dyn FnMut(&mut f64)) {
        self.iter_mut().for_each(|item| item.visit_mut(f));
    }
    fn same_shape(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.same_shape(b))
    }
    fn zip_mut(&mut self, other: &Self, f: &mut dyn FnMut(&mut f64, f64)) {
        self.iter_mut()
            .zip(other)
            .for_each(|(a, b)| a.zip_mut(b, f));
    }
}

/// A tuple of parameters is one, components `.0` first: the gradient of a
/// function of several differentiable parameters is such a tuple, so it
/// steps an optimiser directly.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn loss(w: [f64; 2], b: f64) -> f64 {
///     let e = w[0] * 2.0 + w[1] + b - 1.0;
///     e * e
/// }
///
/// let mut params = ([0.0, 0.0], 0.0);
/// let mut sgd = Sgd::new(0.05);
/// for _ in 0..200 {
///     let grad = loss_grad(params.0, params.1)?;
///     sgd.step(&mut params, &grad.gradient)?;
/// }
/// assert!(loss(params.0, params.1) < 1e-12);
/// assert_eq!(params.num_scalars(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
macro_rules! tuple_parameters {
    ($($t:ident $k:tt),+) => {
        impl<$($t: Parameters),+> Parameters for ($($t,)+) {
            fn visit(&self, f: &mut dyn FnMut(f64)) {
                $(self.$k.visit(f);)+
            }
            fn visit_mut(&mut self, f: &mut dyn FnMut(&mut f64)) {
                $(self.$k.visit_mut(f);)+
            }
            fn same_shape(&self, other: &Self) -> bool {
                true $(&& self.$k.same_shape(&other.$k))+
            }
            fn zip_mut(&mut self, other: &Self, f: &mut dyn FnMut(&mut f64, f64)) {
                $(self.$k.zip_mut(&other.$k, f);)+
            }
        }
    };
}

tuple_parameters!(A 0);
tuple_parameters!(A 0, B 1);
tuple_parameters!(A 0, B 1, C 2);
tuple_parameters!(A 0, B 1, C 2, D 3);
tuple_parameters!(A 0, B 1, C 2, D 3, E 4);
tuple_parameters!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_parameters!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_parameters!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_parameters!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_parameters!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_parameters!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_parameters!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_walks_in_row_major_order() {
        let mut w = vec![[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
        assert_eq!(w.num_scalars(), 6);
        assert_eq!(w.scalars(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let grad = vec![[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]];
        w.update(&grad, |p, g| *p -= 0.5 * g).unwrap();
        assert_eq!(w, [[0.5, 2.0], [3.0, 3.0], [5.0, 6.0]]);
        assert_eq!(grad.norm(), 5.0_f64.sqrt());
        assert_eq!(w.zeroed(), vec![[0.0; 2]; 3]);
    }

    #[test]
    fn a_gradient_of_another_shape_is_an_error_and_changes_nothing() {
        // Same scalar count, different nesting: caught by shape, not count.
        let mut w = vec![vec![1.0, 2.0], vec![3.0]];
        let other = vec![vec![1.0], vec![2.0, 3.0]];
        let err = w.update(&other, |p, g| *p += g).unwrap_err();
        assert_eq!(
            err,
            ShapeMismatch {
                expected: 3,
                found: 3
            }
        );
        assert!(err.to_string().contains("lengths"));
        assert_eq!(w, [vec![1.0, 2.0], vec![3.0]]);

        let err = w.set_from_slice(&[0.0; 4]).unwrap_err();
        assert_eq!((err.expected, err.found), (3, 4));
        assert_eq!(w, [vec![1.0, 2.0], vec![3.0]]);
    }

    #[test]
    fn a_tuple_walks_its_components_in_order() {
        let mut params = (vec![1.0, 2.0], 3.0, [[4.0], [5.0]]);
        assert_eq!(params.num_scalars(), 5);
        assert_eq!(params.scalars(), [1.0, 2.0, 3.0, 4.0, 5.0]);
        let grad = (vec![1.0, 1.0], 2.0, [[0.0], [4.0]]);
        params.update(&grad, |p, g| *p -= 0.5 * g).unwrap();
        assert_eq!(params, (vec![0.5, 1.5], 2.0, [[4.0], [3.0]]));
        // A component of another shape: an error, and nothing changes.
        let err = params
            .update(&(vec![1.0], 1.0, [[1.0], [1.0]]), |p, g| *p += g)
            .unwrap_err();
        assert_eq!((err.expected, err.found), (5, 4));
        assert_eq!(params, (vec![0.5, 1.5], 2.0, [[4.0], [3.0]]));
    }
}
