//! Central-difference cross-checks of reverse-mode gradients.
//!
//! The numerical side only evaluates the plain function; it never reads the
//! tape. Agreement at a smooth point is evidence, not proof.
//!
//! The step: a central difference has truncation error O(h²) and rounding
//! error O(ε/h), smallest near h = ε^(1/3) ≈ 6e−6 times the input's scale,
//! which is [`default_step`]. The verdict uses the *scaled* error
//! `|a − n| / max(1, |a|, |n|)`: relative for large gradients, absolute near
//! zero, where a relative error means nothing. The lesson's relative error
//! `|a − n| / max(|a|, |n|)` is reported beside it.

use std::fmt;

use crate::error::ScalarAutodiffError;

/// The default pass threshold on the scaled error. Central differences at
/// [`default_step`] agree with exact gradients of smooth functions to about
/// 1e−10; 1e−6 leaves room for curvature while still catching any real
/// mistake in a derivative rule.
pub const DEFAULT_TOLERANCE: f64 = 1e-6;

/// ε^(1/3) · max(1, |x|): the step that balances truncation and rounding error.
pub fn default_step(x: f64) -> f64 {
    f64::EPSILON.cbrt() * x.abs().max(1.0)
}

/// `|a − b| / max(|a|, |b|)`, and 0 when both are 0 (lesson 15).
pub fn relative_error(a: f64, b: f64) -> f64 {
    let scale = a.abs().max(b.abs());
    if scale == 0.0 {
        0.0
    } else {
        (a - b).abs() / scale
    }
}

/// `|a − b| / max(1, |a|, |b|)` (chapter 14's scaled error).
pub fn scaled_error(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(1.0)
}

/// Why a gradient check could not be carried out.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GradientCheckError {
    /// The step was not a positive finite number.
    #[error("gradient-check step {step:?} must be positive and finite")]
    InvalidStep {
        /// The rejected step.
        step: f64,
    },
    /// The tolerance was negative or not finite.
    #[error("gradient-check tolerance {tolerance:?} must be non-negative and finite")]
    InvalidTolerance {
        /// The rejected tolerance.
        tolerance: f64,
    },
    /// An input component was NaN or infinite.
    #[error("gradient-check input {component} is {value:?}; it must be finite")]
    NonFiniteInput {
        /// The flat component index.
        component: usize,
        /// The rejected value.
        value: f64,
    },
    /// An analytic gradient component was NaN or infinite.
    #[error("analytic gradient component {component} is {value:?}; it must be finite")]
    NonFiniteAnalytic {
        /// The flat component index.
        component: usize,
        /// The rejected value.
        value: f64,
    },
    /// The function was not finite at a perturbed input.
    #[error(
        "function value {value:?} at component {component} perturbed to {input:?} is not finite; try a smaller step"
    )]
    NonFiniteEvaluation {
        /// The flat component index.
        component: usize,
        /// The perturbed input.
        input: f64,
        /// The function's value there.
        value: f64,
    },
    /// The inputs and the analytic gradient have different lengths.
    #[error("{inputs} inputs but {analytic} analytic gradient components")]
    LengthMismatch {
        /// Number of inputs.
        inputs: usize,
        /// Number of analytic components.
        analytic: usize,
    },
    /// Recording or differentiating the function failed.
    #[error(transparent)]
    Autodiff(#[from] ScalarAutodiffError),
}

/// Chapter 14's check of one derivative.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalarGradientCheck {
    /// Where the derivative was taken.
    pub input: f64,
    /// The reverse-mode derivative.
    pub analytic: f64,
    /// `(f(x + h) − f(x − h)) / 2h`.
    pub numerical: f64,
    /// The step `h`.
    pub step: f64,
    /// The pass threshold on `scaled_error`.
    pub tolerance: f64,
    /// `|a − n| / max(1, |a|, |n|)`.
    pub scaled_error: f64,
    /// `|a − n| / max(|a|, |n|)`.
    pub relative_error: f64,
}

impl ScalarGradientCheck {
    /// Whether the scaled error is within tolerance.
    pub fn passed(&self) -> bool {
        self.scaled_error <= self.tolerance
    }
}

fn check_settings(step: f64, tolerance: f64) -> Result<(), GradientCheckError> {
    if !(step.is_finite() && step > 0.0) {
        return Err(GradientCheckError::InvalidStep { step });
    }
    if !(tolerance.is_finite() && tolerance >= 0.0) {
        return Err(GradientCheckError::InvalidTolerance { tolerance });
    }
    Ok(())
}

/// Compares `analytic` with the central difference of `f` at `input`.
///
/// ```
/// use autodiff_core::scalar_gradient_check;
///
/// let check = scalar_gradient_check(2.0, 8.0, 1e-3, 1e-9, |x| 2.0 * x * x)?;
/// assert!(check.passed());
/// assert!((check.numerical - 8.0).abs() < 1e-9);
/// # Ok::<(), autodiff_core::GradientCheckError>(())
/// ```
pub fn scalar_gradient_check(
    input: f64,
    analytic: f64,
    step: f64,
    tolerance: f64,
    f: impl Fn(f64) -> f64,
) -> Result<ScalarGradientCheck, GradientCheckError> {
    let check = gradient_check(&[input], &[analytic], Some(step), tolerance, |x| f(x[0]))?;
    let component = check.components[0];
    Ok(ScalarGradientCheck {
        input,
        analytic,
        numerical: component.numerical,
        step,
        tolerance,
        scaled_error: component.scaled_error,
        relative_error: component.relative_error,
    })
}

/// One component of a [`GradientCheck`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComponentCheck {
    /// The flat index of the component (parameters in order, arrays row-major).
    pub component: usize,
    /// The input value of this component.
    pub input: f64,
    /// The reverse-mode derivative.
    pub analytic: f64,
    /// The central difference.
    pub numerical: f64,
    /// The step used for this component.
    pub step: f64,
    /// `|a − n| / max(1, |a|, |n|)`.
    pub scaled_error: f64,
    /// `|a − n| / max(|a|, |n|)`.
    pub relative_error: f64,
}

/// A reverse gradient checked component by component against central
/// differences of the plain function.
#[derive(Clone, Debug, PartialEq)]
pub struct GradientCheck {
    /// The pass threshold on every component's scaled error.
    pub tolerance: f64,
    /// Every component, in flat order.
    pub components: Vec<ComponentCheck>,
}

impl GradientCheck {
    /// Whether every component is within tolerance.
    pub fn passed(&self) -> bool {
        self.components
            .iter()
            .all(|c| c.scaled_error <= self.tolerance)
    }

    /// The largest scaled error over all components (0 for no components).
    pub fn max_scaled_error(&self) -> f64 {
        self.components
            .iter()
            .map(|c| c.scaled_error)
            .fold(0.0, f64::max)
    }

    /// The components whose scaled error exceeds the tolerance.
    pub fn failures(&self) -> impl Iterator<Item = &ComponentCheck> {
        self.components
            .iter()
            .filter(move |c| c.scaled_error > self.tolerance)
    }
}

impl fmt::Display for GradientCheck {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            formatter,
            "gradient check ({}; tolerance {:e} on scaled error)",
            if self.passed() { "passed" } else { "FAILED" },
            self.tolerance
        )?;
        writeln!(
            formatter,
            "{:>9} {:>14} {:>20} {:>20} {:>10} {:>12}  ",
            "component", "input", "analytic", "numerical", "step", "scaled err"
        )?;
        for c in &self.components {
            writeln!(
                formatter,
                "{:>9} {:>14.6e} {:>20.12e} {:>20.12e} {:>10.3e} {:>12.3e}  {}",
                c.component,
                c.input,
                c.analytic,
                c.numerical,
                c.step,
                c.scaled_error,
                if c.scaled_error <= self.tolerance {
                    "ok"
                } else {
                    "MISMATCH"
                }
            )?;
        }
        Ok(())
    }
}

/// Checks every component of `analytic` against central differences of `f`
/// at `inputs`. `step: None` uses [`default_step`] of each component.
///
/// `f` is called with a copy of `inputs` in which one component is moved by
/// ±step; nothing else is perturbed.
///
/// ```
/// use autodiff_core::{gradient_check, DEFAULT_TOLERANCE};
///
/// // f(a, b) = a·b², ∇f = (b², 2ab)
/// let check = gradient_check(&[3.0, 2.0], &[4.0, 12.0], None, DEFAULT_TOLERANCE, |v| {
///     v[0] * v[1] * v[1]
/// })?;
/// assert!(check.passed());
/// # Ok::<(), autodiff_core::GradientCheckError>(())
/// ```
pub fn gradient_check(
    inputs: &[f64],
    analytic: &[f64],
    step: Option<f64>,
    tolerance: f64,
    mut f: impl FnMut(&[f64]) -> f64,
) -> Result<GradientCheck, GradientCheckError> {
    check_settings(step.unwrap_or(1.0), tolerance)?;
    if inputs.len() != analytic.len() {
        return Err(GradientCheckError::LengthMismatch {
            inputs: inputs.len(),
            analytic: analytic.len(),
        });
    }
    for (component, (&value, &a)) in inputs.iter().zip(analytic).enumerate() {
        if !value.is_finite() {
            return Err(GradientCheckError::NonFiniteInput { component, value });
        }
        if !a.is_finite() {
            return Err(GradientCheckError::NonFiniteAnalytic {
                component,
                value: a,
            });
        }
    }
    let mut point = inputs.to_vec();
    let mut components = Vec::with_capacity(inputs.len());
    for (component, (&input, &analytic)) in inputs.iter().zip(analytic).enumerate() {
        let h = step.unwrap_or_else(|| default_step(input));
        let mut evaluate = |at: f64| {
            point[component] = at;
            let value = f(&point);
            point[component] = input;
            if value.is_finite() {
                Ok(value)
            } else {
                Err(GradientCheckError::NonFiniteEvaluation {
                    component,
                    input: at,
                    value,
                })
            }
        };
        let plus = evaluate(input + h)?;
        let minus = evaluate(input - h)?;
        let numerical = (plus - minus) / (2.0 * h);
        if !numerical.is_finite() {
            return Err(GradientCheckError::NonFiniteEvaluation {
                component,
                input,
                value: numerical,
            });
        }
        components.push(ComponentCheck {
            component,
            input,
            analytic,
            numerical,
            step: h,
            scaled_error: scaled_error(analytic, numerical),
            relative_error: relative_error(analytic, numerical),
        });
    }
    Ok(GradientCheck {
        tolerance,
        components,
    })
}
