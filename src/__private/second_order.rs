//! The `_jvp`, `_hvp` and `_hessian` twins' side: a direction checked
//! against its parameter's shape and flattened, and the engine's
//! second-order passes on what the recording twin recorded.

use autodiff_core::{Hessian, Jvp, Scalar, ScalarAutodiffError};

use super::{Parameter, Result};

/// Appends `direction`'s components (the tangent of parameter `name`) to
/// `out`, in the order `components` lists the parameter's; a direction of
/// another shape (a `Vec` of another length) or with a component that is
/// not finite is an error naming the parameter, and appends nothing.
pub fn direction<P: Parameter>(
    parameter: &P,
    direction: &P::Gradient,
    name: &'static str,
    out: &mut Vec<f64>,
) -> Result<()> {
    let mut own = Vec::new();
    parameter.components(&mut own);
    let start = out.len();
    P::gradient_components(direction, out);
    same_count(own.len(), out, start, name)
}

/// Whether `out` grew by `expected` components from `start`, all finite;
/// if not, it is cut back and the error names the parameter.
pub(crate) fn same_count(
    expected: usize,
    out: &mut Vec<f64>,
    start: usize,
    name: &'static str,
) -> Result<()> {
    let found = out.len() - start;
    let error = if found != expected {
        Some(ScalarAutodiffError::DirectionMismatch {
            parameter: name,
            expected,
            found,
        })
    } else {
        out[start..]
            .iter()
            .position(|value| !value.is_finite())
            .map(|index| ScalarAutodiffError::NonFiniteDirection {
                parameter: name,
                index,
                value: out[start + index],
            })
    };
    match error {
        Some(error) => {
            out.truncate(start);
            Err(error)
        }
        None => Ok(()),
    }
}

/// The value and the directional derivative along `tangents` (one per
/// variable, the tape's first nodes).
pub fn jvp(recorded: Result<Scalar<'_>>, tangents: &[f64]) -> Result<Jvp<f64>> {
    let output = recorded?;
    Ok(Jvp {
        value: output.value(),
        tangent: output.jvp(tangents)?,
    })
}

/// What `_hvp` rebuilds into the parameters' shape.
pub struct FlatHvp {
    /// The function's value.
    pub value: f64,
    /// The gradient, one entry per variable.
    pub gradient: Vec<f64>,
    /// `H·v`, one entry per variable.
    pub hvp: Vec<f64>,
}

/// Forward over reverse along `direction` (one entry per variable).
pub fn hvp(recorded: Result<Scalar<'_>>, direction: &[f64]) -> Result<FlatHvp> {
    let output = recorded?;
    let pass = output.hvp(direction)?;
    // The output may be a variable itself, or come before the last one:
    // the passes stop at it, and the rest have derivative 0.
    let take = |all: &[f64]| -> Vec<f64> {
        (0..direction.len())
            .map(|i| all.get(i).copied().unwrap_or(0.0))
            .collect()
    };
    Ok(FlatHvp {
        value: output.value(),
        gradient: take(pass.gradients()),
        hvp: take(pass.hvps()),
    })
}

/// The Hessian over the first `variables` nodes.
pub fn hessian(recorded: Result<Scalar<'_>>, variables: usize) -> Result<Hessian> {
    recorded?.hessian(variables)
}
