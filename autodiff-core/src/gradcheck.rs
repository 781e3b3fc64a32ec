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
//!
//! The rounding term grows with the function's *value*: every component
//! reports an estimate of it, and a central difference that only this
//! rounding bound could excuse is replaced by a Richardson extrapolation at
//! a larger step, judged against `max(tolerance, its rounding bound)`.
//! [`gradient_check`] explains the bound.

use std::fmt;

use crate::error::ScalarAutodiffError;

/// The default pass threshold on the scaled error. Central differences at
/// [`default_step`] agree with exact gradients of smooth functions to about
/// 1e−10; 1e−6 leaves room for curvature while still catching any real
/// mistake in a derivative rule.
pub const DEFAULT_TOLERANCE: f64 = 1e-6;

/// η/ε in the estimate `η·F/h` of a central difference's rounding error (see
/// [`gradient_check`]): four standard deviations of the rounding of a
/// running sum of 1,500 terms.
const ROUNDING_FACTOR: f64 = 32.0;

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
    /// A vector-valued function returned another number of components at
    /// a perturbed point than its Jacobian has rows (a `Vec` whose length
    /// depends on the input).
    #[error("the function returned {found} components at a perturbed point, but the Jacobian has {expected} rows")]
    OutputLengthMismatch {
        /// Rows of the Jacobian.
        expected: usize,
        /// Components the function returned.
        found: usize,
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
    /// `(f(x + h) − f(x − h)) / 2h`, or its Richardson extrapolation when
    /// only rounding could excuse it (see [`ComponentCheck::extrapolated`]).
    pub numerical: f64,
    /// The step of `numerical`: the given `h`, or the larger step `H` of the
    /// extrapolation.
    pub step: f64,
    /// The pass threshold actually used on `scaled_error`: the requested
    /// tolerance, or the rounding bound of `numerical` where the verdict
    /// rests on it and it is larger ([`ComponentCheck::tolerance`]).
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
        step: component.step,
        tolerance: component.tolerance,
        scaled_error: component.scaled_error,
        relative_error: component.relative_error,
    })
}

/// One component of a [`GradientCheck`].
///
/// `numerical` is the central difference at `step`, unless that one missed
/// the requested tolerance by no more than its rounding bound: then it is
/// the Richardson extrapolation at a larger step and `extrapolated` is
/// `true` ([`gradient_check`] explains why).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComponentCheck {
    /// The flat index of the component (parameters in order, arrays row-major).
    pub component: usize,
    /// The input value of this component.
    pub input: f64,
    /// The reverse-mode derivative.
    pub analytic: f64,
    /// The numerical derivative the verdict is based on.
    pub numerical: f64,
    /// The step of `numerical`.
    pub step: f64,
    /// `|a − n| / max(1, |a|, |n|)`.
    pub scaled_error: f64,
    /// `|a − n| / max(|a|, |n|)`.
    pub relative_error: f64,
    /// The estimated rounding error of `numerical`, scaled like
    /// `scaled_error`: `32·ε·F/h / max(1, |a|, |n|)` for a central
    /// difference with `F = max |f(x ± h)|`, 1.5 times that (at `H`) for an
    /// extrapolation.
    pub rounding: f64,
    /// The threshold `scaled_error` was judged against: the requested
    /// tolerance, widened to `rounding` where that is larger only when the
    /// verdict rests on the rounding bound (an extrapolated estimate, or a
    /// central difference within its bound that could not be extrapolated).
    pub tolerance: f64,
    /// Whether `numerical` is the Richardson extrapolation
    /// `(4·D(H) − D(2H)) / 3` rather than the central difference `D(h)`.
    pub extrapolated: bool,
}

impl ComponentCheck {
    /// Whether `scaled_error` is within this component's `tolerance`.
    ///
    /// ```
    /// use autodiff_core::{gradient_check, DEFAULT_TOLERANCE};
    ///
    /// // f(x, y) = x² + y, ∇f = (2x, 1); the second component is wrong.
    /// let check = gradient_check(&[3.0, 1.0], &[6.0, 2.0], None, DEFAULT_TOLERANCE, |v| {
    ///     v[0] * v[0] + v[1]
    /// })?;
    /// assert!(check.components[0].passed());
    /// assert!(!check.components[1].passed());
    /// # Ok::<(), autodiff_core::GradientCheckError>(())
    /// ```
    pub fn passed(&self) -> bool {
        self.scaled_error <= self.tolerance
    }
}

/// A reverse gradient checked component by component against central
/// differences of the plain function.
#[derive(Clone, Debug, PartialEq)]
pub struct GradientCheck {
    /// The requested pass threshold on the scaled error; a component whose
    /// verdict rests on its rounding bound is judged against that where it
    /// is larger ([`ComponentCheck::tolerance`]).
    pub tolerance: f64,
    /// Every component, in flat order.
    pub components: Vec<ComponentCheck>,
}

impl GradientCheck {
    /// Whether every component is within its tolerance.
    pub fn passed(&self) -> bool {
        self.components.iter().all(ComponentCheck::passed)
    }

    /// The largest scaled error over all components (0 for no components).
    pub fn max_scaled_error(&self) -> f64 {
        self.components
            .iter()
            .map(|c| c.scaled_error)
            .fold(0.0, f64::max)
    }

    /// The components whose scaled error exceeds their tolerance.
    pub fn failures(&self) -> impl Iterator<Item = &ComponentCheck> {
        self.components.iter().filter(|c| !c.passed())
    }
}

impl fmt::Display for GradientCheck {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            formatter,
            "gradient check ({}; tolerance {:e} on scaled error, or the rounding bound where larger)",
            if self.passed() { "passed" } else { "FAILED" },
            self.tolerance
        )?;
        writeln!(
            formatter,
            "{:>9} {:>14} {:>20} {:>20} {:>10} {:>12} {:>10} {:>10}  ",
            "component",
            "input",
            "analytic",
            "numerical",
            "step",
            "scaled err",
            "rounding",
            "tolerance"
        )?;
        for c in &self.components {
            writeln!(
                formatter,
                "{:>9} {:>14.6e} {:>20.12e} {:>20.12e} {:>10.3e} {:>12.3e} {:>10.3e} {:>10.3e}  {}{}",
                c.component,
                c.input,
                c.analytic,
                c.numerical,
                c.step,
                c.scaled_error,
                c.rounding,
                c.tolerance,
                if c.passed() { "ok" } else { "MISMATCH" },
                if c.extrapolated { " (extrapolated)" } else { "" }
            )?;
        }
        if self.components.iter().any(|c| c.extrapolated) {
            writeln!(
                formatter,
                "(extrapolated): the central difference was within its rounding bound but not the tolerance; \
                 numerical is (4·D(H) − D(2H))/3 at the step H shown"
            )?;
        }
        Ok(())
    }
}

/// `(f(x + h) − f(x − h)) / 2h` and `max |f(x ± h)|`, or the first
/// non-finite value and where it was found.
fn central_difference(
    at: &mut impl FnMut(f64) -> f64,
    input: f64,
    h: f64,
) -> Result<(f64, f64), (f64, f64)> {
    let (plus, minus) = (at(input + h), at(input - h));
    for (x, value) in [(input + h, plus), (input - h, minus)] {
        if !value.is_finite() {
            return Err((x, value));
        }
    }
    let numerical = (plus - minus) / (2.0 * h);
    if !numerical.is_finite() {
        return Err((input, numerical));
    }
    Ok((numerical, plus.abs().max(minus.abs())))
}

/// A numerical derivative, its step and its rounding estimate in
/// derivative units.
struct Estimate {
    numerical: f64,
    step: f64,
    rounding: f64,
    extrapolated: bool,
}

impl Estimate {
    fn component(
        &self,
        component: usize,
        input: f64,
        analytic: f64,
        tolerance: f64,
    ) -> ComponentCheck {
        let rounding = self.rounding / analytic.abs().max(self.numerical.abs()).max(1.0);
        ComponentCheck {
            component,
            input,
            analytic,
            numerical: self.numerical,
            step: self.step,
            scaled_error: scaled_error(analytic, self.numerical),
            relative_error: relative_error(analytic, self.numerical),
            rounding,
            tolerance: tolerance.max(rounding),
            extrapolated: self.extrapolated,
        }
    }
}

/// `(4·D(H) − D(2H)) / 3` at `H = max(h, ε^(1/5)·max(1, |x|))`, or `None`
/// if `f` is not finite at one of `x ± H`, `x ± 2H`.
fn richardson(at: &mut impl FnMut(f64) -> f64, input: f64, h: f64) -> Option<Estimate> {
    let big = h.max(f64::EPSILON.powf(0.2) * input.abs().max(1.0));
    let (near, near_size) = central_difference(at, input, big).ok()?;
    let (far, far_size) = central_difference(at, input, 2.0 * big).ok()?;
    let numerical = (4.0 * near - far) / 3.0;
    numerical.is_finite().then(|| Estimate {
        numerical,
        step: big,
        // |4·δ(H) − δ(2H)| / 3 ≤ (4·ηF/H + ηF/2H) / 3 = 1.5·ηF/H.
        rounding: 1.5 * ROUNDING_FACTOR * f64::EPSILON * near_size.max(far_size) / big,
        extrapolated: true,
    })
}

/// Checks every component of `analytic` against central differences of `f`
/// at `inputs`. `step: None` uses [`default_step`] of each component.
///
/// `f` is called with a copy of `inputs` in which one component is moved
/// (by ±step, and by ±H, ±2H where the central difference is refined);
/// nothing else is perturbed.
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
///
/// # Tolerance and rounding
///
/// The central difference `D(h) = (f(x + h) − f(x − h)) / 2h` has
/// truncation error about `h²·|f'''|/6` and a rounding error that grows
/// with the function's *value*: if `f` is computed with relative error η,
/// `D(h)` is off by up to `η·(|f(x + h)| + |f(x − h)|) / 2h ≤ η·F/h`, with
/// `F = max |f(x ± h)|`, whatever the derivative is. A loop adding n terms
/// onto a running total of size F rounds each addition by up to half an
/// ulp (≤ ε·F/2); the two roundings of `D(h)` differ by about
/// `0.2·√n·ε·F/h` (one standard deviation). At F ≈ 2.6e4 and h ≈ 6e−6,
/// `ε·F/h` ≈ 1e−6: a 1,500-term sum the size of ADBench's GMM objective
/// fills [`DEFAULT_TOLERANCE`] eight times over although its gradient is
/// right to 1e−9.
///
/// So each component reports the estimate `rounding = 32·ε·F/h`, scaled
/// like the error (divided by `max(1, |a|, |n|)`); the factor 32 is four
/// standard deviations for n = 1,500. A central difference within
/// `tolerance` passes; one beyond both `tolerance` and `rounding` fails.
///
/// In between, rounding could explain the disagreement, but so could a
/// wrong gradient: the central difference is inconclusive, and is replaced
/// by the Richardson extrapolation `R = (4·D(H) − D(2H)) / 3` at
/// `H = max(h, ε^(1/5)·max(1, |x|))` (≈ 7e−4 for |x| ≤ 1). `R` cancels the
/// h² term, so its truncation error is O(H⁴), and its rounding error is at
/// most `(4·ηF/H + ηF/2H) / 3 = 1.5·ηF/H`, about 1/80 of the central
/// difference's. `R` is judged against `max(tolerance, 1.5·32·ε·F/H)`
/// (scaled alike), below 1e−6 again at F ≈ 2.6e4: a correct gradient
/// passes, one wrong by more than the tolerance still fails
/// ([`ComponentCheck::extrapolated`], [`ComponentCheck::tolerance`]). Should
/// `f` not be finite at `x ± H` or `x ± 2H`, the central difference stays
/// and is judged against `max(tolerance, rounding)`.
///
/// The estimate reads only the function's value. A function that cancels
/// large intermediate terms down to a small value (`(1e8 + x) − 1e8`)
/// rounds like its intermediates and can still raise a false alarm; a
/// longer sum than 1,500 terms may exceed four standard deviations.
///
/// ```
/// use autodiff_core::{gradient_check, DEFAULT_TOLERANCE};
///
/// // f(x) = 1e5 + Σ_{k ≤ 1000} x·k/500500: the value ≈ 1e5 is a running
/// // total of 1,000 terms, the derivative is exactly 1.
/// let f = |v: &[f64]| {
///     let mut total = 1e5;
///     for k in 1..=1000 {
///         total += v[0] * f64::from(k) / 500_500.0;
///     }
///     total
/// };
/// let right = gradient_check(&[0.7], &[1.0], None, DEFAULT_TOLERANCE, f)?;
/// assert!(right.passed(), "{right}");
/// let wrong = gradient_check(&[0.7], &[1.0 + 1e-4], None, DEFAULT_TOLERANCE, f)?;
/// assert!(!wrong.passed(), "{wrong}");
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
        let mut at = |x: f64| {
            point[component] = x;
            let value = f(&point);
            point[component] = input;
            value
        };
        let (numerical, size) = central_difference(&mut at, input, h).map_err(|(at, value)| {
            GradientCheckError::NonFiniteEvaluation {
                component,
                input: at,
                value,
            }
        })?;
        let central = Estimate {
            numerical,
            step: h,
            rounding: ROUNDING_FACTOR * f64::EPSILON * size / h,
            extrapolated: false,
        }
        .component(component, input, analytic, tolerance);
        components.push(if central.scaled_error <= tolerance || !central.passed() {
            // Decided without the rounding bound: held to the tolerance.
            ComponentCheck {
                tolerance,
                ..central
            }
        } else {
            // Within the rounding bound only: inconclusive, so refined.
            richardson(&mut at, input, h).map_or(central, |refined| {
                refined.component(component, input, analytic, tolerance)
            })
        });
    }
    Ok(GradientCheck {
        tolerance,
        components,
    })
}
