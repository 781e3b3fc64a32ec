//! Optimisers over any [`Parameters`]: stochastic gradient descent (plain or
//! with momentum) and Adam. Each is a few numbers of settings and a flat
//! vector of state per scalar, in the order [`Parameters::visit`] walks a
//! model, so one optimiser type serves an `f64`, an array or a derived
//! struct alike. They live in the facade, not in the engine: the engine only
//! computes gradients.

use std::fmt;

use crate::parameters::{Parameters, ShapeMismatch};

/// Why an optimiser's step was refused; the model and the optimiser are
/// then as they were before it.
///
/// ```
/// use autodiff::prelude::*;
/// use autodiff::StepError;
///
/// let mut w = [1.0, 2.0];
/// let mut sgd = Sgd::new(0.1);
/// let err = sgd.step(&mut w, &[0.5, f64::INFINITY]).unwrap_err();
/// assert_eq!(err, StepError::NonFiniteGradient { index: 1, value: f64::INFINITY });
/// assert_eq!(w, [1.0, 2.0]);
/// assert_eq!(
///     err.to_string(),
///     "the gradient's component 1 is inf, not a finite number: a step along it would make the model's scalars inf or NaN (nothing was changed)"
/// );
/// ```
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum StepError {
    /// The gradient does not fit the model, or the model not the
    /// optimiser's state from its first step.
    Shape(ShapeMismatch),
    /// A component of the gradient is infinite or NaN (a gradient built or
    /// edited by hand; `f_grad` never returns one): the step would have
    /// made the model's scalars the same.
    NonFiniteGradient {
        /// The component's position, in the order `Parameters::visit`
        /// walks the model (the order `f_check` lists them).
        index: usize,
        /// What it was.
        value: f64,
    },
}

/// Equal when the same kind at the same place; a NaN `value` equals a
/// NaN (compared by its bits).
impl PartialEq for StepError {
    fn eq(&self, other: &StepError) -> bool {
        match (self, other) {
            (StepError::Shape(a), StepError::Shape(b)) => a == b,
            (
                StepError::NonFiniteGradient { index, value },
                StepError::NonFiniteGradient {
                    index: other_index,
                    value: other_value,
                },
            ) => index == other_index && value.to_bits() == other_value.to_bits(),
            _ => false,
        }
    }
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Shape(mismatch) => mismatch.fmt(f),
            StepError::NonFiniteGradient { index, value } => write!(
                f,
                "the gradient's component {index} is {value}, not a finite number: a step along it would make the model's scalars inf or NaN (nothing was changed)"
            ),
        }
    }
}

impl std::error::Error for StepError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StepError::Shape(mismatch) => Some(mismatch),
            StepError::NonFiniteGradient { .. } => None,
        }
    }
}

impl From<ShapeMismatch> for StepError {
    fn from(mismatch: ShapeMismatch) -> StepError {
        StepError::Shape(mismatch)
    }
}

/// Gradient descent: `v ← μ·v + g`, then `p ← p − lr·v` for every scalar
/// `p` with gradient `g` (the convention of PyTorch's `SGD`); with momentum
/// `μ = 0` (the default) that is plain `p ← p − lr·g`.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn loss(w: [f64; 2]) -> f64 {
///     (w[0] - 3.0) * (w[0] - 3.0) + (w[1] + 1.0) * (w[1] + 1.0)
/// }
///
/// let mut w = [0.0, 0.0];
/// let mut sgd = Sgd::new(0.1).with_momentum(0.5);
/// for _ in 0..100 {
///     let grad = loss_grad(w)?.gradient;
///     sgd.step(&mut w, &grad)?;
/// }
/// assert!((w[0] - 3.0).abs() < 1e-6 && (w[1] + 1.0).abs() < 1e-6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Sgd {
    /// The step size; a schedule may change it between steps.
    pub learning_rate: f64,
    /// How much of the previous step carries over, in `[0, 1)`.
    pub momentum: f64,
    velocity: Vec<f64>,
}

impl Sgd {
    /// Plain gradient descent with step size `learning_rate`.
    pub fn new(learning_rate: f64) -> Sgd {
        Sgd {
            learning_rate,
            momentum: 0.0,
            velocity: Vec::new(),
        }
    }

    /// The same with momentum `momentum` (0.9 is usual).
    pub fn with_momentum(self, momentum: f64) -> Sgd {
        Sgd { momentum, ..self }
    }

    /// One step on `model` along `gradient` (the model's own type, as an
    /// annotated function returns it). A gradient of another shape, a
    /// model of another size than the first step's, or a gradient with a
    /// component that is infinite or NaN is an error ([`StepError`]) that
    /// changes neither the model nor the optimiser.
    pub fn step<P: Parameters>(&mut self, model: &mut P, gradient: &P) -> Result<(), StepError> {
        check(model, gradient, &mut self.velocity)?;
        let (lr, mu) = (self.learning_rate, self.momentum);
        let mut velocity = self.velocity.iter_mut();
        model.zip_mut(gradient, &mut |p, g| {
            if let Some(v) = velocity.next() {
                *v = mu * *v + g;
                *p -= lr * *v;
            }
        });
        Ok(())
    }
}

/// Adam (Kingma and Ba, 2015): running means of the gradient `m` and of its
/// square `v`, corrected for their zero start, step `lr·m̂/(√v̂ + ε)`.
/// Defaults `β₁ = 0.9`, `β₂ = 0.999`, `ε = 1e−8`.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn loss(w: [f64; 2]) -> f64 {
///     (w[0] - 3.0) * (w[0] - 3.0) + 10.0 * (w[1] + 1.0) * (w[1] + 1.0)
/// }
///
/// let mut w = [0.0, 0.0];
/// let mut adam = Adam::new(0.05);
/// for _ in 0..2000 {
///     let grad = loss_grad(w)?.gradient;
///     adam.step(&mut w, &grad)?;
/// }
/// assert!((w[0] - 3.0).abs() < 1e-3 && (w[1] + 1.0).abs() < 1e-3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    /// The step size.
    pub learning_rate: f64,
    /// Decay of the running mean of the gradient.
    pub beta1: f64,
    /// Decay of the running mean of its square.
    pub beta2: f64,
    /// Keeps the step finite where the gradient has been zero.
    pub epsilon: f64,
    steps: i32,
    mean: Vec<f64>,
    square: Vec<f64>,
}

impl Adam {
    /// Adam with step size `learning_rate` and the usual defaults.
    pub fn new(learning_rate: f64) -> Adam {
        Adam {
            learning_rate,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            steps: 0,
            mean: Vec::new(),
            square: Vec::new(),
        }
    }

    /// The same with decays `beta1` and `beta2`.
    pub fn with_betas(self, beta1: f64, beta2: f64) -> Adam {
        Adam {
            beta1,
            beta2,
            ..self
        }
    }

    /// One step on `model` along `gradient`; errors as [`Sgd::step`].
    pub fn step<P: Parameters>(&mut self, model: &mut P, gradient: &P) -> Result<(), StepError> {
        check(model, gradient, &mut self.mean)?;
        self.square.resize(self.mean.len(), 0.0);
        self.steps = self.steps.saturating_add(1);
        let (b1, b2, eps, lr) = (self.beta1, self.beta2, self.epsilon, self.learning_rate);
        let (fix1, fix2) = (1.0 - b1.powi(self.steps), 1.0 - b2.powi(self.steps));
        let mut state = self.mean.iter_mut().zip(self.square.iter_mut());
        model.zip_mut(gradient, &mut |p, g| {
            if let Some((m, v)) = state.next() {
                *m = b1 * *m + (1.0 - b1) * g;
                *v = b2 * *v + (1.0 - b2) * g * g;
                *p -= lr * (*m / fix1) / ((*v / fix2).sqrt() + eps);
            }
        });
        Ok(())
    }
}

/// Checks that `gradient` fits `model`, `state` fits both, and every
/// component of `gradient` is finite (allocating `state` zeroed on the
/// first step), before anything changes.
fn check<P: Parameters>(model: &P, gradient: &P, state: &mut Vec<f64>) -> Result<(), StepError> {
    let expected = model.num_scalars();
    if !model.same_shape(gradient) {
        return Err(ShapeMismatch {
            expected,
            found: gradient.num_scalars(),
        }
        .into());
    }
    if !state.is_empty() && state.len() != expected {
        return Err(ShapeMismatch {
            expected: state.len(),
            found: expected,
        }
        .into());
    }
    let (mut index, mut found) = (0, None);
    gradient.visit(&mut |g| {
        if found.is_none() {
            if g.is_finite() {
                index += 1;
            } else {
                found = Some(g);
            }
        }
    });
    if let Some(value) = found {
        return Err(StepError::NonFiniteGradient { index, value });
    }
    if state.is_empty() {
        state.resize(expected, 0.0);
    }
    Ok(())
}
