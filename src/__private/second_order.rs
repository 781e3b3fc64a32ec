//! The `_jvp`, `_hvp` and `_hessian` twins' side: a direction checked
//! against its parameter's shape and flattened, the tape they record on
//! (through the tape path, `f_grad_tape_on`, which keeps the output on it),
//! and the engine's second-order passes on what it recorded; and
//! `SecondOrder`, through which a free function's `f_jvp`, `f_hvp` and
//! `f_hessian` are one call each of library code.

use autodiff_core::{Hessian, Hvp, Jvp, Scalar, ScalarAutodiffError, Tape, ValueAndGradient};

use super::{Parameter, Result};

/// Appends `direction`'s components (the tangent of parameter `name`) to
/// `out`, in the order `components` lists the parameter's; a direction of
/// another shape (another count of components, or `Vec`s of other
/// lengths) or with a component that is not finite is an error naming the
/// parameter, and appends nothing.
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
    same_count(own.len(), out, start, name)?;
    same_shape(parameter.fits(direction), own.len(), out, start, name)
}

/// After [`same_count`]: a direction with the parameter's count of
/// components in `Vec`s of other lengths (a transposed matrix) is an
/// error too, and `out` is cut back to `start`.
pub(crate) fn same_shape(
    fits: bool,
    expected: usize,
    out: &mut Vec<f64>,
    start: usize,
    name: &'static str,
) -> Result<()> {
    if fits {
        return Ok(());
    }
    out.truncate(start);
    Err(ScalarAutodiffError::DirectionMismatch {
        parameter: name,
        expected,
        found: expected,
    })
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

/// A tape for `f_jvp`, `f_hvp` and `f_hessian`: the tape path
/// (`f_grad_tape_on`) records on it and keeps the output there instead of
/// running its reverse pass, for the functions below.
pub fn second_order_tape() -> Tape {
    let tape = Tape::new();
    tape.keep_output();
    tape
}

/// The output `f_grad_tape_on` kept on `tape` (made by
/// [`second_order_tape`]) and the number of variables, or its error.
fn kept<G>(recorded: Result<ValueAndGradient<G>>, tape: &Tape) -> Result<(Scalar<'_>, usize)> {
    recorded?;
    // `finish` keeps the output on every `Ok` of the tape path.
    Ok(tape
        .kept()
        .expect("the tape path keeps its output on a second-order tape"))
}

/// The value and the directional derivative along `tangents` (one per
/// variable, the tape's first nodes) of what `f_grad_tape_on` recorded.
pub fn jvp<G>(
    recorded: Result<ValueAndGradient<G>>,
    tape: &Tape,
    tangents: &[f64],
) -> Result<Jvp<f64>> {
    let (output, _) = kept(recorded, tape)?;
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

/// Forward over reverse along `direction` (one entry per variable) on what
/// `f_grad_tape_on` recorded.
pub fn hvp<G>(
    recorded: Result<ValueAndGradient<G>>,
    tape: &Tape,
    direction: &[f64],
) -> Result<FlatHvp> {
    let (output, _) = kept(recorded, tape)?;
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

/// The Hessian over the variables of what `f_grad_tape_on` recorded.
pub fn hessian<G>(recorded: Result<ValueAndGradient<G>>, tape: &Tape) -> Result<Hessian> {
    let (output, variables) = kept(recorded, tape)?;
    output.hessian(variables)
}

/// A function's differentiable parameters as `f_jvp` and `f_hvp` hand
/// them over: a reference to the one parameter, or a tuple of references
/// (up to twelve), with `f_grad`'s gradient type. Through it the
/// direction's checks and the result's shape are this library's code, not
/// code generated for each function.
pub trait Shapes {
    /// The gradient's type: the parameter's, or the tuple of theirs.
    type Gradient;
    /// Appends `direction`'s components, parameter by parameter (the
    /// `i`-th named `names[i]`), each checked as [`direction`] checks it.
    fn directions(
        &self,
        direction: &Self::Gradient,
        names: &[&'static str],
        out: &mut Vec<f64>,
    ) -> Result<()>;
    /// A gradient of the parameters' shape from the front of `from`.
    fn gradient_from(&self, from: &mut &[f64]) -> Self::Gradient;
    /// Appends the parameters' components, in the order `f_check` lists
    /// them.
    fn components(&self, out: &mut Vec<f64>);
    /// Appends a gradient's components, in the same order.
    fn gradient_components(&self, gradient: &Self::Gradient, out: &mut Vec<f64>);
}

impl<P: Parameter> Shapes for &P {
    type Gradient = P::Gradient;
    fn directions(
        &self,
        along: &P::Gradient,
        names: &[&'static str],
        out: &mut Vec<f64>,
    ) -> Result<()> {
        direction(*self, along, names[0], out)
    }
    fn gradient_from(&self, from: &mut &[f64]) -> P::Gradient {
        Parameter::gradient_from(*self, from)
    }
    fn components(&self, out: &mut Vec<f64>) {
        Parameter::components(*self, out);
    }
    fn gradient_components(&self, gradient: &P::Gradient, out: &mut Vec<f64>) {
        P::gradient_components(gradient, out);
    }
}

macro_rules! tuple_shapes {
    ($(($($P:ident $i:tt),+))*) => {$(
        impl<$($P: Parameter),+> Shapes for ($(&$P,)+) {
            type Gradient = ($($P::Gradient,)+);
            fn directions(
                &self,
                along: &Self::Gradient,
                names: &[&'static str],
                out: &mut Vec<f64>,
            ) -> Result<()> {
                $(direction(self.$i, &along.$i, names[$i], out)?;)+
                Ok(())
            }
            fn gradient_from(&self, from: &mut &[f64]) -> Self::Gradient {
                ($(Parameter::gradient_from(self.$i, from),)+)
            }
            fn components(&self, out: &mut Vec<f64>) {
                $(Parameter::components(self.$i, out);)+
            }
            fn gradient_components(&self, gradient: &Self::Gradient, out: &mut Vec<f64>) {
                $($P::gradient_components(&gradient.$i, out);)+
            }
        }
    )*};
}

tuple_shapes! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11)
}

/// `f_jvp` of a function whose parameters [`Shapes`] hands over:
/// `tangent` checked against them (before the recording's own error), then
/// [`jvp`] of what `f_grad_tape_on` recorded on `tape`.
pub fn jvp_of<S: Shapes, G>(
    recorded: Result<ValueAndGradient<G>>,
    tape: &Tape,
    parameters: S,
    tangent: S::Gradient,
    names: &[&'static str],
) -> Result<Jvp<f64>> {
    let mut flat = Vec::new();
    parameters.directions(&tangent, names, &mut flat)?;
    jvp(recorded, tape, &flat)
}

/// `f_hvp` of a function whose parameters [`Shapes`] hands over:
/// `direction` checked as in [`jvp_of`], [`hvp`], and the gradient and
/// `H·v` in the parameters' shape.
pub fn hvp_of<S: Shapes, G>(
    recorded: Result<ValueAndGradient<G>>,
    tape: &Tape,
    parameters: S,
    direction: S::Gradient,
    names: &[&'static str],
) -> Result<Hvp<S::Gradient>> {
    let mut flat = Vec::new();
    parameters.directions(&direction, names, &mut flat)?;
    let pass = hvp(recorded, tape, &flat)?;
    Ok(Hvp {
        value: pass.value,
        gradient: parameters.gradient_from(&mut pass.gradient.as_slice()),
        hvp: parameters.gradient_from(&mut pass.hvp.as_slice()),
    })
}

/// `direction` checked against the parameters as [`hvp_of`] checks it,
/// before `f_hvp` runs the compiled adjoint on dual numbers.
pub fn check_direction<S: Shapes>(
    parameters: S,
    direction: &S::Gradient,
    names: &[&'static str],
) -> Result<()> {
    parameters.directions(direction, names, &mut Vec::new())
}

/// What `f_adjoint_dual` computed, as `f_hvp` returns it: the value and
/// the gradient are the primal parts, `H·v` the tangent parts of the
/// adjoints (forward over reverse through the compiled adjoint); `None`
/// where a part is not finite (the dual sweep leaves its gradient to this
/// check), and `f_hvp` then reruns the tape, whose error names it.
pub fn compiled_hvp<D: crate::__adjoint::Split>(
    result: ValueAndGradient<D, autodiff_core::Dual>,
) -> Option<Hvp<D::Plain>> {
    let (gradient, hvp) = result.gradient.split()?;
    crate::__adjoint::hvp_compiled();
    Some(Hvp {
        value: result.value.value,
        gradient,
        hvp,
    })
}

/// What `f_adjoint_dual` computed on a stack made by
/// `DualStack::forward_only`, as `f_jvp` returns it: the value's primal
/// and tangent parts.
pub fn compiled_jvp<D>(result: ValueAndGradient<D, autodiff_core::Dual>) -> Option<Jvp<f64>> {
    crate::__adjoint::jvp_compiled();
    Some(Jvp {
        value: result.value.value,
        tangent: result.value.tangent,
    })
}

/// `f_hessian` through the compiled adjoint on dual numbers: column `i`
/// is `H·eᵢ`, the tangent parts of the adjoints of `column` run along the
/// `i`-th unit direction (shaped like the gradient), as the tape's
/// `Scalar::hessian` builds it (symmetry not forced). `None` where a
/// sweep gives up (a value not finite): `f_hessian` then reruns the tape,
/// whose errors are the labelled ones.
pub fn compiled_hessian<S: Shapes, D: crate::__adjoint::Split<Plain = S::Gradient>>(
    parameters: S,
    mut column: impl FnMut(S::Gradient) -> Option<ValueAndGradient<D, autodiff_core::Dual>>,
) -> Option<Hessian> {
    let mut own = Vec::new();
    parameters.components(&mut own);
    let size = own.len();
    let mut unit = vec![0.0; size];
    let mut rows = vec![vec![0.0; size]; size];
    let mut hvp = Vec::with_capacity(size);
    // With no component there is no column, but the body still runs: one
    // sweep along the empty direction, so an error of the value (`ln` of
    // an empty sum) is the tape's here too.
    if size == 0 {
        column(parameters.gradient_from(&mut unit.as_slice()))?;
    }
    for i in 0..size {
        unit[i] = 1.0;
        let direction = parameters.gradient_from(&mut unit.as_slice());
        unit[i] = 0.0;
        let (_, product) = column(direction)?.gradient.split()?;
        hvp.clear();
        parameters.gradient_components(&product, &mut hvp);
        for (row, &entry) in rows.iter_mut().zip(&hvp) {
            row[i] = entry;
        }
    }
    crate::__adjoint::hessian_compiled();
    Hessian::from_rows(rows)
}

/// [`compiled_hessian`] of a function taking a model, its parameters
/// `size` components in all: `column` takes the `i`-th unit direction as
/// components (in the order `f_check` lists them) and gives `H·eᵢ` the
/// same way, the generated code shaping and flattening through each
/// parameter's own type (so that a struct that is not a model is one error
/// on it, not one per generic call).
pub fn compiled_hessian_flat(
    size: usize,
    mut column: impl FnMut(&Vec<f64>) -> Option<Vec<f64>>,
) -> Option<Hessian> {
    let mut unit = vec![0.0; size];
    let mut rows = vec![vec![0.0; size]; size];
    // With no component, one sweep all the same (see `compiled_hessian`).
    if size == 0 {
        column(&unit)?;
    }
    for i in 0..size {
        unit[i] = 1.0;
        let product = column(&unit);
        unit[i] = 0.0;
        let product = product.filter(|product| product.len() == size)?;
        for (row, &entry) in rows.iter_mut().zip(&product) {
            row[i] = entry;
        }
    }
    crate::__adjoint::hessian_compiled();
    Hessian::from_rows(rows)
}

/// Appends the components of `parameter`, in the order `f_check` lists
/// them.
#[inline]
pub fn components_of<P: Parameter>(parameter: &P, out: &mut Vec<f64>) {
    parameter.components(out);
}

/// Appends the components of a gradient of `parameter`'s shape.
#[inline]
pub fn gradient_components_of<P: Parameter>(
    _parameter: &P,
    gradient: &P::Gradient,
    out: &mut Vec<f64>,
) {
    P::gradient_components(gradient, out);
}

/// A function's second-order items as one impl on its companion type,
/// for functions with a compiled adjoint on dual numbers whose
/// differentiable parameters [`Shapes`] takes (numbers, arrays, slices,
/// `Vec`s): `f_jvp`, `f_hvp` and `f_hessian` are one call each of the
/// provided methods here, which try that adjoint (`dual`) and fall back to
/// the tape (`tape`). The methods' bodies are this library's, type-checked
/// once, not once per function: a crate that never calls them pays for a
/// few small bodies per function ([`SecondOrder::dual`],
/// [`SecondOrder::tape`], [`SecondOrder::params`]) and the three calls. A
/// function with no dual sweep has its three items written out as calls
/// of the tape's ([`jvp_of`], [`hvp_of`], [`hessian`]), which cost a crate
/// less than an impl.
///
/// `'a` is the lifetime of the borrowed arguments and of the tuple that
/// holds them, which `f_jvp` builds from its own parameters.
pub trait SecondOrder<'a> {
    /// Every argument of the function, in order.
    type Args: 'a;
    /// The differentiable parameters borrowed from the arguments.
    type Params: Shapes<Gradient = Self::Gradient>;
    /// `f_grad`'s gradient type.
    type Gradient;
    /// The gradient of `f_adjoint_dual`.
    type Duals: crate::__adjoint::Split<Plain = Self::Gradient>;
    /// The differentiable parameters of `args`, and their names as the
    /// student wrote them (one item for both: each item of an impl costs
    /// a crate that never calls it).
    fn params(args: &'a Self::Args) -> (Self::Params, &'static [&'static str]);

    /// The compiled adjoint on dual numbers along `along`, each
    /// differentiable parameter lifted with its part as the tangent; `None`
    /// where a part does not fit its parameter or where the sweep meets a
    /// value that is not finite.
    fn dual(
        args: &Self::Args,
        stack: &mut crate::__adjoint::DualStack,
        along: &Self::Gradient,
    ) -> Option<ValueAndGradient<Self::Duals, autodiff_core::Dual>>;

    /// `f_grad_tape_on` on `tape` (made by [`second_order_tape`]), which
    /// keeps the output there.
    fn tape(args: &Self::Args, tape: &mut Tape) -> Result<ValueAndGradient<Self::Gradient>>;

    /// `f_jvp`.
    #[inline]
    fn jvp(args: &'a Self::Args, tangent: Self::Gradient) -> Result<Jvp<f64>> {
        if tape_only() {
            return Self::jvp_on_tape(args, tangent);
        }
        let stack = &mut crate::__adjoint::DualStack::forward_only();
        if let Some(answer) = Self::dual(args, stack, &tangent).and_then(compiled_jvp) {
            return Ok(answer);
        }
        Self::jvp_on_tape(args, tangent)
    }

    /// `f_jvp` on the tape alone (the tests' second path).
    fn jvp_on_tape(args: &'a Self::Args, tangent: Self::Gradient) -> Result<Jvp<f64>> {
        let (parameters, names) = Self::params(args);
        let mut flat = Vec::new();
        parameters.directions(&tangent, names, &mut flat)?;
        let tape = &mut second_order_tape();
        jvp(Self::tape(args, tape), tape, &flat)
    }

    /// `f_hvp`.
    #[inline]
    fn hvp(args: &'a Self::Args, direction: Self::Gradient) -> Result<Hvp<Self::Gradient>> {
        if tape_only() {
            return Self::hvp_on_tape(args, direction);
        }
        let stack = &mut crate::__adjoint::DualStack::new();
        if let Some(answer) = Self::dual(args, stack, &direction).and_then(compiled_hvp) {
            return Ok(answer);
        }
        Self::hvp_on_tape(args, direction)
    }

    /// `f_hvp` on the tape alone (the tests' second path).
    fn hvp_on_tape(args: &'a Self::Args, direction: Self::Gradient) -> Result<Hvp<Self::Gradient>> {
        let (parameters, names) = Self::params(args);
        let mut flat = Vec::new();
        parameters.directions(&direction, names, &mut flat)?;
        let tape = &mut second_order_tape();
        let pass = hvp(Self::tape(args, tape), tape, &flat)?;
        Ok(Hvp {
            value: pass.value,
            gradient: parameters.gradient_from(&mut pass.gradient.as_slice()),
            hvp: parameters.gradient_from(&mut pass.hvp.as_slice()),
        })
    }

    /// `f_hessian`.
    #[inline]
    fn hessian(args: &'a Self::Args) -> Result<Hessian> {
        if tape_only() {
            return Self::hessian_on_tape(args);
        }
        let stack = &mut crate::__adjoint::DualStack::new();
        if let Some(hessian) = compiled_hessian(Self::params(args).0, |direction| {
            Self::dual(args, stack, &direction)
        }) {
            return Ok(hessian);
        }
        Self::hessian_on_tape(args)
    }

    /// `f_hessian` on the tape alone (the tests' second path).
    fn hessian_on_tape(args: &'a Self::Args) -> Result<Hessian> {
        let tape = &mut second_order_tape();
        hessian(Self::tape(args, tape), tape)
    }
}

std::thread_local! {
    static TAPE_ONLY: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Whether [`second_order_on_tape`] is running on this thread.
fn tape_only() -> bool {
    TAPE_ONLY.with(core::cell::Cell::get)
}

/// Runs `body` with the `f_jvp`, `f_hvp` and `f_hessian` of the functions
/// that implement [`SecondOrder`] on the tape alone, skipping the compiled
/// adjoint on dual numbers (the tests' second path; a function whose items
/// are written out has `f_hvp_tape` and its kin instead). The setting
/// before is restored when `body` returns or unwinds.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn cube(x: f64) -> f64 {
///     x * x * x
/// }
///
/// let compiled = cube_hvp(2.0, 1.0)?;
/// let tape = autodiff::__private::second_order_on_tape(|| cube_hvp(2.0, 1.0))?;
/// assert_eq!(compiled.hvp, 12.0);
/// assert_eq!(tape.hvp, 12.0);
/// # Ok::<(), ScalarAutodiffError>(())
/// ```
pub fn second_order_on_tape<T>(body: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            TAPE_ONLY.with(|flag| flag.set(self.0));
        }
    }
    let _restore = Restore(TAPE_ONLY.with(|flag| flag.replace(true)));
    body()
}
