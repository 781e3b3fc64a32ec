//! The one error type of the engine, and the label that says where a node came from.

use std::fmt;

use crate::iteration::Iterations;
use crate::operation::ScalarOperation;

/// Where a node came from in the user's source: a binding name (`square`) or
/// the source text of an expression (`y.ln()`), and the line it is on.
///
/// `#[differentiable]` attaches one to every node it records; hand-built
/// graphs may attach their own with [`Scalar::labeled`](crate::Scalar::labeled).
/// A `line` of 0 means "no line known". Inside loops an error's label also
/// names the iterations (`i = 3, j = 1`): generated code enters them on the
/// tape ([`Tape::enter_loop`](crate::Tape::enter_loop)).
///
/// ```
/// use autodiff_core::{Iteration, Iterations, Label};
///
/// let i = Iteration { name: "i", value: 3, counted: false };
/// let label = Label { iterations: Iterations::from_frames(&[i]), ..Label::at_line("y.ln()", 12) };
/// assert_eq!(label.to_string(), "`y.ln()` (line 12, i = 3)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// The binding name or source text.
    pub text: &'static str,
    /// The 1-based source line, or 0 when unknown.
    pub line: u32,
    /// The loop iterations the node was recorded in, outermost first.
    pub iterations: Iterations,
}

impl Label {
    /// A label with no line, for hand-built graphs.
    pub const fn named(text: &'static str) -> Self {
        Self::at_line(text, 0)
    }

    /// A label with its source line.
    pub const fn at_line(text: &'static str, line: u32) -> Self {
        Self {
            text,
            line,
            iterations: Iterations::NONE,
        }
    }

    /// For generated code: the label of the operation whose node a `let`
    /// binds, named by the binding. On a probing tape
    /// ([`Tape::set_probing`](crate::Tape::set_probing)), labelling a node
    /// with it also logs the node as the binding's probe, so that such a
    /// statement needs no probe of its own. Labelling stores only its text
    /// and line; its `iterations` are a mark no other label has.
    #[doc(hidden)]
    pub const fn binding(text: &'static str, line: u32) -> Self {
        Self {
            text,
            line,
            iterations: Iterations::BINDING,
        }
    }
}

impl fmt::Display for Label {
    /// ``` `y.ln()` (line 12, i = 3) ```.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "`{}`", self.text)?;
        match (self.line, self.iterations.is_empty()) {
            (0, true) => Ok(()),
            (0, false) => write!(formatter, " ({})", self.iterations),
            (line, true) => write!(formatter, " (line {line})"),
            (line, false) => write!(formatter, " (line {line}, {})", self.iterations),
        }
    }
}

/// The values of an operation's operands, as a recording error names them:
/// ``ln of -0.5 produced non-finite scalar value NaN``, ``div of 1.0 and
/// 0.0 produced ...``. A plain `f64` operand is among them, in its slot
/// (`c − x` is `sub of c and x`); `powi`'s exponent is its second operand.
///
/// ```
/// use autodiff_core::Operands;
///
/// assert_eq!(Operands::one(-0.5).to_string(), " of -0.5");
/// assert_eq!(Operands::two(1.0, 0.0).to_string(), " of 1.0 and 0.0");
/// assert_eq!(Operands::two(1.0, 0.0).values(), &[1.0, 0.0]);
/// assert_eq!(Operands::NONE.to_string(), "");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Operands {
    values: [f64; 2],
    arity: u8,
}

impl Operands {
    /// No operand known (an output checked after recording).
    pub const NONE: Self = Self {
        values: [0.0; 2],
        arity: 0,
    };

    /// One operand.
    pub const fn one(a: f64) -> Self {
        Self {
            values: [a, 0.0],
            arity: 1,
        }
    }

    /// Two operands, in their slots' order.
    pub const fn two(a: f64, b: f64) -> Self {
        Self {
            values: [a, b],
            arity: 2,
        }
    }

    /// The values, in slot order: none, one or two.
    pub fn values(&self) -> &[f64] {
        &self.values[..usize::from(self.arity)]
    }
}

impl fmt::Display for Operands {
    /// `" of a"`, `" of a and b"`, or nothing when none is known.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.values() {
            [a] => write!(formatter, " of {a:?}"),
            [a, b] => write!(formatter, " of {a:?} and {b:?}"),
            _ => Ok(()),
        }
    }
}

/// Renders `" of <label>"`, the forward operation whose local derivative a
/// reverse-pass error is about, when its label is known.
pub(crate) struct Of(pub(crate) Option<Label>);

impl fmt::Display for Of {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        after_word(formatter, "of", self.0)
    }
}

/// Renders `" at <label>"` when a label is known, and nothing otherwise.
pub(crate) struct At(pub(crate) Option<Label>);

impl fmt::Display for At {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        after_word(formatter, "at", self.0)
    }
}

/// `" <word> <label>"`, or nothing without a label.
fn after_word(formatter: &mut fmt::Formatter<'_>, word: &str, label: Option<Label>) -> fmt::Result {
    match label {
        Some(label) => write!(formatter, " {word} {label}"),
        None => Ok(()),
    }
}

/// A rejection from graph construction or a reverse pass.
///
/// The first seven variants and their messages are chapter 14's; a label,
/// when the node has one, is appended as `at `text` (line N)`. Every
/// operation that returns this error has changed nothing: no node was
/// recorded and no stored gradient moved.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ScalarAutodiffError {
    /// `variable`, `constant` or a plain `f64` operand was NaN or infinite.
    #[error("{operation} scalar value {value:?} must be finite{}", At(*label))]
    NonFiniteLeaf {
        /// `variable` or `constant`.
        operation: ScalarOperation,
        /// The rejected value.
        value: f64,
        /// Where the value came from, when known.
        label: Option<Label>,
    },
    /// A plain `f64` operand (`x.mul(f64::NAN)`, `x.rsub(f64::INFINITY)`) was
    /// NaN or infinite.
    #[error("{operation}{operands} got non-finite plain operand {value:?}{}", At(*label))]
    NonFiniteOperand {
        /// The operation the number was given to.
        operation: ScalarOperation,
        /// Its operand slot: 1 for `x.mul(c)`, 0 for `x.rsub(c)` (`c − x`).
        operand: usize,
        /// The rejected number.
        value: f64,
        /// Both operands' values, the rejected one in its slot.
        operands: Operands,
        /// Where the operation is in the user's source, when known.
        label: Option<Label>,
    },
    /// An operation's primal result was NaN or infinite (`ln(-1)`, `1/0`, `exp(1000)`).
    ///
    /// Inside a `#[differentiable]` function (its `f_tape`, `f_grad` and
    /// `f_grad_tape`) an infinite intermediate is allowed where every
    /// local derivative of the operation that made it is finite: lesson
    /// 15's mask, `s + f64::NEG_INFINITY`, is `-inf` with derivatives 1, and
    /// `exp` of it is 0 with derivative 0, so a masked entry's gradient is
    /// exactly 0. Still this error there: a NaN result (`inf - inf`,
    /// `0 * inf`), an infinite result with an infinite or NaN local
    /// derivative (`ln(0)`, `x / 0`, `exp(1000)`, `inf * s` in `s`), and an
    /// infinity that reaches the function's output (labelled with the
    /// output). A non-finite contribution in the reverse pass stays
    /// [`NonFiniteContribution`](Self::NonFiniteContribution). Direct use
    /// of a [`Tape`](crate::Tape) keeps chapter 14's rule: every recorded
    /// value finite.
    #[error("{operation}{operands} produced non-finite scalar value {value:?}{}", At(*label))]
    NonFiniteResult {
        /// The operation that failed.
        operation: ScalarOperation,
        /// The non-finite result.
        value: f64,
        /// The operands' values, plain ones included ([`Operands::NONE`]
        /// for an infinity found at a function's output).
        operands: Operands,
        /// Where the operation is in the user's source, when known.
        label: Option<Label>,
    },
    /// `backward` was called on a scalar that tracks no gradient.
    #[error("cannot backpropagate from untracked {operation} output{}", At(*label))]
    UntrackedOutput {
        /// How the output was made (`constant`, `detached`, or an operation on constants).
        operation: ScalarOperation,
        /// The output's label, when known.
        label: Option<Label>,
    },
    /// `backward_with_seed` was given NaN or an infinity.
    #[error("backward seed {seed:?} must be finite")]
    NonFiniteSeed {
        /// The rejected seed.
        seed: f64,
    },
    /// Upstream adjoint times local derivative overflowed.
    #[error(
        "edge {operand} from topology node {child} to {parent} produced a non-finite contribution from upstream {upstream:?} and local derivative {local_derivative:?}{}",
        Of(*label)
    )]
    NonFiniteContribution {
        /// The consuming node (tape index).
        child: usize,
        /// The operand node (tape index).
        parent: usize,
        /// The operand slot of the edge in the consumer (0 or 1).
        operand: usize,
        /// The consumer's pass adjoint.
        upstream: f64,
        /// The edge's local derivative.
        local_derivative: f64,
        /// The consumer's label, when known: the forward operation whose
        /// local derivative this is, with the loop iterations it ran in.
        label: Option<Label>,
    },
    /// Adding a contribution to a node's pass adjoint overflowed.
    #[error(
        "topology node {node}{} cannot accumulate pass adjoint {previous:?} plus contribution {contribution:?} from local derivative {local_derivative:?}{}",
        At(*label),
        Of(*consumer_label)
    )]
    NonFinitePassAdjoint {
        /// The node whose adjoint overflowed (tape index).
        node: usize,
        /// Its pass adjoint before this contribution.
        previous: f64,
        /// The contribution that overflowed it.
        contribution: f64,
        /// That edge's local derivative.
        local_derivative: f64,
        /// The consumer's label, when known: the forward operation whose
        /// local derivative made the contribution.
        consumer_label: Option<Label>,
        /// The node's label, when known.
        label: Option<Label>,
    },
    /// Adding this pass to a stored gradient would overflow.
    #[error(
        "topology node {node} cannot accumulate stored gradient {stored:?} plus pass adjoint {pass_adjoint:?}{}",
        At(*label)
    )]
    NonFiniteAccumulatedGradient {
        /// The node whose stored gradient would overflow (tape index).
        node: usize,
        /// Its stored gradient, unchanged.
        stored: f64,
        /// This pass's adjoint for it.
        pass_adjoint: f64,
        /// The node's label, when known.
        label: Option<Label>,
    },
    /// An operation's result is finite but its derivative is not
    /// (`sqrt` at 0, `powf` of a negative base with a tracked exponent).
    #[error(
        "{operation}{operands} has non-finite local derivative {local_derivative:?} for operand {operand}{}",
        At(*label)
    )]
    NonFiniteLocalDerivative {
        /// The operation.
        operation: ScalarOperation,
        /// The operand slot (0 or 1).
        operand: usize,
        /// That operand's primal value.
        input: f64,
        /// Every operand's value, plain ones included.
        operands: Operands,
        /// The non-finite derivative.
        local_derivative: f64,
        /// Where the operation is in the user's source, when known.
        label: Option<Label>,
    },
    /// An operation combined scalars recorded on two different tapes.
    #[error("{operation} combines scalars from two different tapes{}", At(*label))]
    MixedTapes {
        /// The operation.
        operation: ScalarOperation,
        /// Where the operation is in the user's source, when known.
        label: Option<Label>,
    },
    /// A tangent given to [`Scalar::jvp`](crate::Scalar::jvp) or
    /// [`Scalar::hvp`](crate::Scalar::hvp) is not finite, or is non-zero
    /// on a node that is not a variable recorded before the output.
    #[error("tangent {tangent:?} for topology node {node} is refused: {reason}")]
    InvalidTangent {
        /// The node the tangent was given for (tape index).
        node: usize,
        /// The refused tangent.
        tangent: f64,
        /// Why it was refused.
        reason: &'static str,
    },
    /// The direction (or tangent) given to a `#[differentiable]` function's
    /// `f_jvp` or `f_hvp` has not the shape of the parameter it goes with:
    /// a `Vec` of another length.
    #[error(
        "the direction for `{parameter}` has {found} components, but `{parameter}` has {expected}{}",
        other_lengths(*.expected, *.found)
    )]
    DirectionMismatch {
        /// The parameter, as the function names it.
        parameter: &'static str,
        /// Its number of components.
        expected: usize,
        /// The direction's.
        found: usize,
    },
    /// A component of the direction (or tangent) given to `f_jvp` or
    /// `f_hvp` is NaN or infinite.
    #[error("the direction for `{parameter}` has non-finite component {value:?} at index {index}")]
    NonFiniteDirection {
        /// The parameter, as the function names it.
        parameter: &'static str,
        /// The component's index within that parameter, in the order
        /// `f_check` lists components.
        index: usize,
        /// The refused value.
        value: f64,
    },
    /// Forward mode: a node's derivative along the direction overflowed.
    #[error(
        "{operation}{operands} produced non-finite tangent {tangent:?} (topology node {node}){}",
        At(*label)
    )]
    NonFiniteTangent {
        /// The operation that made the node.
        operation: ScalarOperation,
        /// The values the operation took.
        operands: Operands,
        /// The node (tape index).
        node: usize,
        /// The non-finite tangent.
        tangent: f64,
        /// Where the operation is in the user's source, when known.
        label: Option<Label>,
    },
    /// Second order: an operation's local derivative has a derivative that
    /// is not finite where the gradient flows through it (`x.powf(1.5)` at
    /// 0: the slope is 0, its rate of change infinite).
    #[error(
        "{operation} has non-finite second derivative {second_derivative:?} for operand {operand} at input {input:?}{}",
        At(*label)
    )]
    NonFiniteSecondDerivative {
        /// The operation.
        operation: ScalarOperation,
        /// The operand slot (0 or 1).
        operand: usize,
        /// That operand's primal value.
        input: f64,
        /// The local derivative's derivative along the direction.
        second_derivative: f64,
        /// Where the operation is in the user's source, when known.
        label: Option<Label>,
    },
    /// Second order: the derivative of a node's adjoint along the
    /// direction (its part of `H·v`) overflowed.
    #[error(
        "topology node {node} has non-finite second-order adjoint {adjoint_tangent:?}{}",
        At(*label)
    )]
    NonFiniteSecondOrderAdjoint {
        /// The node (tape index).
        node: usize,
        /// The non-finite adjoint tangent.
        adjoint_tangent: f64,
        /// The node's label, when known.
        label: Option<Label>,
    },
    /// The cotangent given to a vector-valued function's `f_vjp` has not
    /// the shape of the function's output: a `Vec` of another length.
    #[error(
        "the cotangent has {found} components, but the function's output has {expected}{}",
        other_lengths(*.expected, *.found)
    )]
    CotangentMismatch {
        /// The output's number of components.
        expected: usize,
        /// The cotangent's.
        found: usize,
    },
    /// A component of the cotangent given to `f_vjp` is NaN or infinite.
    #[error("the cotangent has non-finite component {value:?} at index {index}")]
    NonFiniteCotangent {
        /// The component's index in the output's flattened order.
        index: usize,
        /// The refused value.
        value: f64,
    },
    /// The tape already holds the largest number of nodes it can index.
    #[error("tape is full: it holds at most {capacity} nodes")]
    TapeFull {
        /// The most nodes a tape can hold.
        capacity: usize,
    },
}

impl ScalarAutodiffError {
    /// A short, stable, kebab-case name for the error, as chapter 14's demo prints.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NonFiniteLeaf { .. } => "non-finite-leaf",
            Self::NonFiniteOperand { .. } => "non-finite-operand",
            Self::NonFiniteResult { .. } => "non-finite-result",
            Self::UntrackedOutput { operation, .. } => match operation {
                ScalarOperation::Constant => "constant-output",
                ScalarOperation::Detached => "detached-output",
                _ => "untracked-output",
            },
            Self::NonFiniteSeed { .. } => "non-finite-seed",
            Self::NonFiniteContribution { .. } => "non-finite-contribution",
            Self::NonFinitePassAdjoint { .. } => "non-finite-pass-adjoint",
            Self::NonFiniteAccumulatedGradient { .. } => "non-finite-accumulated-gradient",
            Self::NonFiniteLocalDerivative { .. } => "non-finite-local-derivative",
            Self::MixedTapes { .. } => "mixed-tapes",
            Self::TapeFull { .. } => "tape-full",
            Self::InvalidTangent { .. } => "invalid-tangent",
            Self::DirectionMismatch { .. } => "direction-mismatch",
            Self::NonFiniteDirection { .. } => "non-finite-direction",
            Self::CotangentMismatch { .. } => "cotangent-mismatch",
            Self::NonFiniteCotangent { .. } => "non-finite-cotangent",
            Self::NonFiniteTangent { .. } => "non-finite-tangent",
            Self::NonFiniteSecondDerivative { .. } => "non-finite-second-derivative",
            Self::NonFiniteSecondOrderAdjoint { .. } => "non-finite-second-order-adjoint",
        }
    }

    /// The source label the error names, if any.
    pub fn label(&self) -> Option<Label> {
        match self {
            Self::NonFiniteLeaf { label, .. }
            | Self::NonFiniteOperand { label, .. }
            | Self::NonFiniteResult { label, .. }
            | Self::UntrackedOutput { label, .. }
            | Self::NonFiniteContribution { label, .. }
            | Self::NonFinitePassAdjoint { label, .. }
            | Self::NonFiniteAccumulatedGradient { label, .. }
            | Self::NonFiniteLocalDerivative { label, .. }
            | Self::MixedTapes { label, .. }
            | Self::NonFiniteTangent { label, .. }
            | Self::NonFiniteSecondDerivative { label, .. }
            | Self::NonFiniteSecondOrderAdjoint { label, .. } => *label,
            Self::NonFiniteSeed { .. }
            | Self::TapeFull { .. }
            | Self::InvalidTangent { .. }
            | Self::DirectionMismatch { .. }
            | Self::NonFiniteDirection { .. }
            | Self::CotangentMismatch { .. }
            | Self::NonFiniteCotangent { .. } => None,
        }
    }

    /// Names the loop iterations `iterations` in the error's label, when it
    /// has a label that names none yet.
    #[must_use]
    pub fn in_iterations(mut self, iterations: Iterations) -> Self {
        if iterations.is_empty() {
            return self;
        }
        match &mut self {
            Self::NonFiniteLeaf { label, .. }
            | Self::NonFiniteOperand { label, .. }
            | Self::NonFiniteResult { label, .. }
            | Self::UntrackedOutput { label, .. }
            | Self::NonFiniteContribution { label, .. }
            | Self::NonFinitePassAdjoint { label, .. }
            | Self::NonFiniteAccumulatedGradient { label, .. }
            | Self::NonFiniteLocalDerivative { label, .. }
            | Self::MixedTapes { label, .. }
            | Self::NonFiniteTangent { label, .. }
            | Self::NonFiniteSecondDerivative { label, .. }
            | Self::NonFiniteSecondOrderAdjoint { label, .. } => {
                if let Some(label) = label.as_mut().filter(|label| label.iterations.is_empty()) {
                    label.iterations = iterations;
                }
            }
            _ => {}
        }
        self
    }

    /// Attaches `label` to an error raised while recording a node that had
    /// none yet; an error that already names a label keeps its own.
    ///
    /// `#[differentiable]` wraps every recording call with this, so a domain
    /// error names the expression that caused it.
    #[must_use]
    pub fn at(mut self, new: Label) -> Self {
        match &mut self {
            Self::NonFiniteLeaf { label, .. }
            | Self::NonFiniteOperand { label, .. }
            | Self::NonFiniteResult { label, .. }
            | Self::NonFiniteLocalDerivative { label, .. }
            | Self::MixedTapes { label, .. } => {
                label.get_or_insert(new);
            }
            _ => {}
        }
        self
    }
}

/// The end of a shape error whose counts agree: the `Vec`s inside have
/// other lengths (a transposed matrix, rows of other lengths).
fn other_lengths(expected: usize, found: usize) -> &'static str {
    if expected == found {
        " in `Vec`s of other lengths: it must have the same shape"
    } else {
        ""
    }
}
