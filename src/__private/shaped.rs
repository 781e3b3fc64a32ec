//! Vector-valued functions: the output of a recording twin that returns a
//! `Vec`, an array or a tuple of `Scalar`s ([`Recorded`]), its plain
//! counterpart ([`Returns`]), how a call of one inside another recording
//! goes on after an error ([`FailedRecording`], [`Called`]), and the passes of the
//! `_vjp`, `_jacobian` and `_jvp` twins.

use autodiff_core::{Jacobian, Jvp, Label, Scalar, ScalarAutodiffError, Tape};

use super::Result;

/// What a vector-valued function's recording twin returns: `Scalar`s in
/// `Vec`s, arrays and tuples, nested.
pub trait Recorded<'t>: Sized {
    /// The same shape of `f64`: what the plain twin returns.
    type Plain;
    /// Appends every scalar, in the output's flattened order (a `Vec`'s
    /// elements, arrays row-major, a tuple's components `.0` first).
    fn scalars(&self, out: &mut Vec<Scalar<'t>>);
    /// The same shape with every scalar an untracked NaN: what a caller
    /// records on with after this call failed, so that its lengths and
    /// indices stay the plain twin's.
    fn poisoned(self, tape: &'t Tape) -> Self;
    /// The values, in this shape.
    fn plain(&self) -> Self::Plain;
    /// This shape of `f64`, taken from the front of `from`.
    fn plain_from(&self, from: &mut &[f64]) -> Self::Plain;
}

impl<'t> Recorded<'t> for Scalar<'t> {
    type Plain = f64;
    #[inline]
    fn scalars(&self, out: &mut Vec<Scalar<'t>>) {
        out.push(*self);
    }
    fn poisoned(self, tape: &'t Tape) -> Self {
        tape.failed_constant(f64::NAN)
    }
    #[inline]
    fn plain(&self) -> f64 {
        self.value()
    }
    fn plain_from(&self, from: &mut &[f64]) -> f64 {
        match from.split_first() {
            Some((&first, rest)) => {
                *from = rest;
                first
            }
            None => f64::NAN,
        }
    }
}

impl<'t, T: Recorded<'t>> Recorded<'t> for Vec<T> {
    type Plain = Vec<T::Plain>;
    fn scalars(&self, out: &mut Vec<Scalar<'t>>) {
        for item in self {
            item.scalars(out);
        }
    }
    fn poisoned(self, tape: &'t Tape) -> Self {
        self.into_iter().map(|item| item.poisoned(tape)).collect()
    }
    fn plain(&self) -> Self::Plain {
        self.iter().map(T::plain).collect()
    }
    fn plain_from(&self, from: &mut &[f64]) -> Self::Plain {
        self.iter().map(|item| item.plain_from(from)).collect()
    }
}

impl<'t, T: Recorded<'t>, const N: usize> Recorded<'t> for [T; N] {
    type Plain = [T::Plain; N];
    fn scalars(&self, out: &mut Vec<Scalar<'t>>) {
        for item in self {
            item.scalars(out);
        }
    }
    fn poisoned(self, tape: &'t Tape) -> Self {
        self.map(|item| item.poisoned(tape))
    }
    fn plain(&self) -> Self::Plain {
        std::array::from_fn(|k| self[k].plain())
    }
    fn plain_from(&self, from: &mut &[f64]) -> Self::Plain {
        // In order: `from_fn` calls its closure for 0, 1, .. N − 1.
        std::array::from_fn(|k| self[k].plain_from(from))
    }
}

macro_rules! recorded_tuple {
    ($($T:ident $k:tt),+) => {
        impl<'t, $($T: Recorded<'t>),+> Recorded<'t> for ($($T,)+) {
            type Plain = ($($T::Plain,)+);
            fn scalars(&self, out: &mut Vec<Scalar<'t>>) {
                $(self.$k.scalars(out);)+
            }
            fn poisoned(self, tape: &'t Tape) -> Self {
                ($(self.$k.poisoned(tape),)+)
            }
            fn plain(&self) -> Self::Plain {
                ($(self.$k.plain(),)+)
            }
            fn plain_from(&self, from: &mut &[f64]) -> Self::Plain {
                ($(self.$k.plain_from(from),)+)
            }
        }
        impl<$($T: Returns),+> Returns for ($($T,)+) {
            fn components(&self, out: &mut Vec<f64>) {
                $(self.$k.components(out);)+
            }
            fn lengths(&self, out: &mut Vec<usize>) {
                $(self.$k.lengths(out);)+
            }
        }
    };
}

recorded_tuple!(A 0);
recorded_tuple!(A 0, B 1);
recorded_tuple!(A 0, B 1, C 2);
recorded_tuple!(A 0, B 1, C 2, D 3);
recorded_tuple!(A 0, B 1, C 2, D 3, E 4);
recorded_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);

/// What a vector-valued function returns, plain: `f64` in `Vec`s, arrays
/// and tuples. The cotangent `f_vjp` takes has this type.
pub trait Returns {
    /// Appends every component, in the flattened order of [`Recorded`].
    fn components(&self, out: &mut Vec<f64>);
    /// Appends the length of every `Vec` in it, in the same order: two
    /// values of one type have one shape when these agree.
    fn lengths(&self, out: &mut Vec<usize>);
}

impl Returns for f64 {
    fn components(&self, out: &mut Vec<f64>) {
        out.push(*self);
    }
    fn lengths(&self, _: &mut Vec<usize>) {}
}

impl<T: Returns> Returns for Vec<T> {
    fn components(&self, out: &mut Vec<f64>) {
        for item in self {
            item.components(out);
        }
    }
    fn lengths(&self, out: &mut Vec<usize>) {
        out.push(self.len());
        for item in self {
            item.lengths(out);
        }
    }
}

impl<T: Returns, const N: usize> Returns for [T; N] {
    fn components(&self, out: &mut Vec<f64>) {
        for item in self {
            item.components(out);
        }
    }
    fn lengths(&self, out: &mut Vec<usize>) {
        for item in self {
            item.lengths(out);
        }
    }
}

/// A vector-valued function's recording failed: the error, and the output
/// with every value NaN (see [`Recorded::poisoned`]), so that a recording
/// that called it goes on with the plain twin's lengths until it reports
/// the error. `?` converts it to the error.
#[derive(Debug)]
pub struct FailedRecording<T> {
    /// What went wrong, labelled where.
    pub error: ScalarAutodiffError,
    /// The output's shape, every value NaN.
    pub poisoned: T,
}

impl<T> From<FailedRecording<T>> for ScalarAutodiffError {
    fn from(failed: FailedRecording<T>) -> Self {
        failed.error
    }
}

/// The output of a vector-valued function's recording: every component
/// must be finite (the first that is not is an error naming `at` and the
/// component).
#[inline]
pub fn output_shaped<'t, T: Recorded<'t>>(tape: &'t Tape, nested: bool, value: T, at: Label) -> T {
    if nested {
        return value;
    }
    let mut scalars = Vec::new();
    value.scalars(&mut scalars);
    if let Some(bad) = scalars.iter().find(|scalar| !scalar.value().is_finite()) {
        tape.fail(super::non_finite_output(*bad, at));
    }
    value
}

/// [`leave`](super::leave) for a vector-valued function: on an error, the
/// nodes it recorded rolled back and its output poisoned.
#[inline]
pub fn leave_shaped<'t, T: Recorded<'t>>(
    tape: &'t Tape,
    entry: super::Entry,
    output: T,
) -> core::result::Result<T, FailedRecording<T>> {
    match super::leave_with(tape, entry) {
        None => Ok(output),
        Some(error) => Err(FailedRecording {
            error,
            poisoned: output.poisoned(tape),
        }),
    }
}

/// What a call of another annotated function's recording twin returns,
/// and how the caller goes on with it: the value, or, on an error (kept on
/// the tape for the caller to report), an untracked NaN of the same shape.
pub trait Called<'t> {
    /// The value the caller records on with.
    type Value;
    /// The value, the error kept on `tape`.
    fn called(self, tape: &'t Tape) -> Self::Value;
}

impl<'t> Called<'t> for Result<Scalar<'t>> {
    type Value = Scalar<'t>;
    #[inline]
    fn called(self, tape: &'t Tape) -> Scalar<'t> {
        match self {
            Ok(output) => output,
            Err(error) => super::failed(tape, error, f64::NAN),
        }
    }
}

impl<'t, T: Recorded<'t>> Called<'t> for core::result::Result<T, FailedRecording<T>> {
    type Value = T;
    #[inline]
    fn called(self, tape: &'t Tape) -> T {
        match self {
            Ok(output) => output,
            Err(FailedRecording { error, poisoned }) => {
                tape.fail(error);
                poisoned
            }
        }
    }
}

/// The recorded output of a vector-valued function, or its error.
pub type Shaped<T> = core::result::Result<T, FailedRecording<T>>;

/// `f_vjp`'s pass: `Σᵢ cotangentᵢ · outputᵢ` recorded and differentiated
/// once, so that the first `variables` nodes (the parameters) hold
/// `cotangentᵀ · J`; returns the output's values. A cotangent of another
/// shape, or with a component that is not finite, is an error.
pub fn vjp<'t, T: Recorded<'t>>(recorded: Result<T>, cotangent: &impl Returns) -> Result<T::Plain>
where
    T::Plain: Returns,
{
    let output = recorded?;
    let mut scalars = Vec::new();
    output.scalars(&mut scalars);
    let mut weights = Vec::new();
    cotangent.components(&mut weights);
    // The same count in `Vec`s of other lengths (a transposed matrix)
    // would pair the wrong components.
    let lengths = |value: &dyn Returns| {
        let mut out = Vec::new();
        value.lengths(&mut out);
        out
    };
    if weights.len() != scalars.len() || lengths(&output.plain()) != lengths(cotangent) {
        return Err(ScalarAutodiffError::CotangentMismatch {
            expected: scalars.len(),
            found: weights.len(),
        });
    }
    if let Some((index, &value)) = weights.iter().enumerate().find(|(_, w)| !w.is_finite()) {
        return Err(ScalarAutodiffError::NonFiniteCotangent { index, value });
    }
    let mut total: Option<Scalar<'t>> = None;
    for (scalar, &weight) in scalars.iter().zip(&weights) {
        if weight == 0.0 || !scalar.tracks_gradient() {
            continue;
        }
        let term = scalar
            .mul(weight)
            .map_err(|error| error.at(COTANGENT_LABEL))?;
        total = Some(match total {
            None => term,
            Some(sum) => sum.add(term).map_err(|error| error.at(COTANGENT_LABEL))?,
        });
    }
    if let Some(total) = total {
        total.backward()?;
    }
    Ok(output.plain())
}

/// The label of the nodes [`vjp`] adds.
const COTANGENT_LABEL: Label = Label::at_line("cotangent · output", 0);

/// `f_jacobian`'s passes: one reverse pass per output component, the
/// stored gradients zeroed before each; `row` reads the parameters'
/// gradients after it. A component that no parameter reaches has a zero
/// row.
pub fn jacobian<'t, T: Recorded<'t>>(
    recorded: Result<T>,
    row: &dyn Fn() -> Vec<f64>,
) -> Result<Jacobian> {
    let output = recorded?;
    let mut scalars = Vec::new();
    output.scalars(&mut scalars);
    let tape = scalars.first().map(|scalar| scalar.tape());
    if let Some(tape) = tape {
        tape.zero_grads();
    }
    let cols = row().len();
    let mut rows = Vec::with_capacity(scalars.len());
    for scalar in scalars {
        if scalar.tracks_gradient() {
            scalar.tape().zero_grads();
            scalar.backward()?;
            rows.push(row());
        } else {
            rows.push(vec![0.0; cols]);
        }
    }
    // Every row is read by the same `row`: one length. An empty output
    // has no rows and still `cols` columns.
    Ok(Jacobian::with_cols(rows, cols).unwrap_or_else(|| {
        Jacobian::with_cols(Vec::new(), cols)
            .unwrap_or_else(|| unreachable!("no rows fit any width"))
    }))
}

/// `f_jvp`'s pass for a vector-valued function: the output's values and
/// each component's derivative along `tangents` (one per variable), in the
/// output's shape.
pub fn jvp_shaped<'t, T: Recorded<'t>>(
    recorded: Result<T>,
    tangents: &[f64],
) -> Result<Jvp<T::Plain>> {
    let output = recorded?;
    let mut scalars = Vec::new();
    output.scalars(&mut scalars);
    let mut derivatives = Vec::with_capacity(scalars.len());
    for scalar in &scalars {
        derivatives.push(if scalar.tracks_gradient() {
            scalar.jvp(tangents)?
        } else {
            0.0
        });
    }
    Ok(Jvp {
        value: output.plain(),
        tangent: output.plain_from(&mut derivatives.as_slice()),
    })
}

/// Every component of a plain output, flattened: the check's evaluation
/// of the plain twin.
pub fn output_components(value: &impl Returns) -> Vec<f64> {
    let mut out = Vec::new();
    value.components(&mut out);
    out
}
