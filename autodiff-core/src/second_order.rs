//! Forward mode and forward over reverse, on a recorded tape.
//!
//! A tape holds, for every node, its value, its operands and its local
//! derivatives. That is enough for two more passes:
//!
//! - **Forward mode** ([`Scalar::jvp`]): give each variable a rate of
//!   change (a *tangent*); every node's tangent is then
//!   `Σ local derivative × operand's tangent`, in creation order. The
//!   output's tangent is the directional derivative `∇f · v`.
//! - **Forward over reverse** ([`Scalar::hvp`]): the reverse pass, run on
//!   dual numbers. Each adjoint carries its own tangent, and so does each
//!   local derivative: the node's rule (from [`rules`](crate::rules),
//!   generic over [`Real`](crate::Real)) is rerun on its operands as
//!   [`Dual`]s `value + tangent·ε`, whose tangent part is the second
//!   derivative along `v`. The adjoints' tangent parts are then `H·v`
//!   (Pearlmutter, 1994), at the cost of a small constant times a gradient.
//!
//! The tape keeps what the rules read that is not a node: a plain operand
//! (`2.0` in `x * 2.0`) and `powi`'s exponent sit in the otherwise unused
//! derivative place of a node's second slot, with a flag for a plain left
//! operand (`1.0 - x`). The branch a program took is the one recorded: the
//! second derivative is the one of the piece of the function the point is
//! on, and a kink (`abs`, `relu`, `max`) has second derivative 0.

use crate::dual::Dual;
use crate::error::ScalarAutodiffError;
use crate::nodes::{Kept, Nodes, UNTRACKED};
use crate::operation::ScalarOperation;
use crate::rules;
use crate::tape::{Scalar, Tape};

/// What [`Scalar::hvp`] computes: for every node up to the output, its
/// adjoint (`∂output/∂node`, what [`Scalar::backward`] would store) and
/// that adjoint's derivative along the direction (for a variable, its
/// entry of `H·v`).
///
/// ```
/// use autodiff_core::Tape;
///
/// // f(x, y) = x²y: ∇f = (2xy, x²), H = [[2y, 2x], [2x, 0]].
/// let tape = Tape::new();
/// let x = tape.variable(3.0)?;
/// let y = tape.variable(2.0)?;
/// let f = x.mul(x)?.mul(y)?;
/// // Along v = (1, 0): H·v = (2y, 2x).
/// let pass = f.hvp(&[1.0, 0.0])?;
/// assert_eq!(pass.gradient(x), 12.0);
/// assert_eq!(pass.gradient(y), 9.0);
/// assert_eq!(pass.hvp(x), 4.0);
/// assert_eq!(pass.hvp(y), 6.0);
/// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SecondOrderPass {
    adjoints: Vec<f64>,
    hvp: Vec<f64>,
}

/// The arrays go back to the thread for the next pass (see `buffers`).
impl Drop for SecondOrderPass {
    fn drop(&mut self) {
        buffers::give_back(std::mem::take(&mut self.adjoints));
        buffers::give_back(std::mem::take(&mut self.hvp));
    }
}

impl SecondOrderPass {
    /// `∂output/∂node` (0 for a node the output does not reach or that
    /// was recorded after it).
    pub fn gradient(&self, node: Scalar<'_>) -> f64 {
        self.adjoints.get(node.index()).copied().unwrap_or(0.0)
    }

    /// The derivative of [`gradient`](Self::gradient) along the
    /// direction: for a variable, its component of `H·v`.
    pub fn hvp(&self, node: Scalar<'_>) -> f64 {
        self.hvp.get(node.index()).copied().unwrap_or(0.0)
    }

    /// Every node's adjoint, by tape index, up to the output.
    pub fn gradients(&self) -> &[f64] {
        &self.adjoints
    }

    /// Every node's adjoint tangent, by tape index, up to the output.
    pub fn hvps(&self) -> &[f64] {
        &self.hvp
    }
}

/// Checks the tangents a caller gives: finite, and on variables only (a
/// variable recorded after the output moves nothing).
fn check_seeds(nodes: &Nodes, seeds: &[f64]) -> Result<(), ScalarAutodiffError> {
    for (node, &tangent) in seeds.iter().enumerate() {
        if tangent == 0.0 {
            continue;
        }
        let reason = if !tangent.is_finite() {
            "it is not finite"
        } else if node >= nodes.len() {
            "the tape has no such node"
        } else if nodes.operation(node) != ScalarOperation::Variable {
            "the node is not a variable"
        } else {
            continue;
        };
        return Err(ScalarAutodiffError::InvalidTangent {
            node,
            tangent,
            reason,
        });
    }
    Ok(())
}

/// Every node's tangent up to `output`, in creation order: a variable's
/// from `seeds` (by tape index; 0 past its end), any other node's
/// `Σ local derivative × operand tangent`. A tangent that is not finite is
/// an error naming the node, if the output depends on the node: one the
/// output does not read (a dead `let`, a value only printed) gets 0, as
/// its adjoint is 0 in the reverse pass, so that an overflow there fails
/// neither mode. Which nodes the output reads is worked out only when a
/// tangent is not finite: until then a node the output does not read
/// keeps its tangent, which no pass reads (its adjoint is 0, and the
/// nodes the output reads read only each other).
pub(crate) fn tangents(
    nodes: &Nodes,
    output: usize,
    seeds: &[f64],
) -> Result<Vec<f64>, ScalarAutodiffError> {
    check_seeds(nodes, seeds)?;
    let edges = &nodes.edges()[..=output];
    let mut read: Option<Vec<bool>> = None;
    let mut tangents = buffers::zeros(output + 1);
    for (node, edge) in edges.iter().enumerate() {
        if read.as_ref().is_some_and(|read| !read[node]) {
            continue;
        }
        let mut tangent = 0.0;
        let mut moved = false;
        for slot in 0..2 {
            if let Some((parent, true)) = edge.parent(slot) {
                let rate = tangents[parent];
                if rate != 0.0 {
                    tangent += edge.derivatives[slot] * rate;
                    moved = true;
                }
            }
        }
        if !moved {
            tangent = seeds.get(node).copied().unwrap_or(0.0);
        } else if !tangent.is_normal() {
            tangent = rescued_tangent(nodes, node, &tangents).unwrap_or(tangent);
        }
        if !tangent.is_finite() {
            let read = read.get_or_insert_with(|| nodes.reached_from(output, true));
            if read[node] {
                buffers::give_back(tangents);
                return Err(ScalarAutodiffError::NonFiniteTangent {
                    operation: nodes.operation(node),
                    operands: nodes.operands(node),
                    node,
                    tangent,
                    label: nodes.label(node),
                });
            }
            tangent = 0.0;
        }
        tangents[node] = tangent;
    }
    Ok(tangents)
}

/// Memory reuse across second-order passes: `f_hessian` runs one per
/// variable, and a training loop one per step. Each pass needs three
/// arrays of one `f64` per node (tangents, adjoints, adjoint tangents);
/// past glibc's mapping threshold, freeing them hands their pages back to
/// the system and the next pass pays for fresh, kernel-zeroed ones. The
/// thread keeps the last pass's arrays (up to [`SPARE_NODES`] entries
/// each), as it keeps a dropped tape's.
///
/// [`SPARE_NODES`]: crate::spare::SPARE_NODES
mod buffers {
    use std::cell::RefCell;

    use crate::spare::SPARE_NODES;

    /// How many arrays a thread keeps: one pass's three.
    const KEPT: usize = 3;

    thread_local! {
        static SPARE: RefCell<Vec<Vec<f64>>> = const { RefCell::new(Vec::new()) };
    }

    /// `len` zeros, in a kept array if the thread has one.
    pub(super) fn zeros(len: usize) -> Vec<f64> {
        let kept = SPARE
            .try_with(|spare| {
                spare
                    .try_borrow_mut()
                    .ok()
                    .and_then(|mut spare| spare.pop())
            })
            .ok()
            .flatten();
        match kept {
            Some(mut buffer) => {
                buffer.clear();
                buffer.resize(len, 0.0);
                buffer
            }
            None => vec![0.0; len],
        }
    }

    /// Keeps `buffer` for the next pass on this thread, if it is small
    /// enough and the thread keeps fewer than a pass's arrays.
    pub(super) fn give_back(buffer: Vec<f64>) {
        if buffer.capacity() == 0 || buffer.capacity() > SPARE_NODES {
            return;
        }
        // `try_with`: during thread exit the place may be gone already; the
        // buffer is then simply freed.
        let _ = SPARE.try_with(|spare| {
            if let Ok(mut spare) = spare.try_borrow_mut() {
                if spare.len() < KEPT {
                    spare.push(buffer);
                }
            }
        });
    }
}

/// `node`'s operand in `slot`, if recorded, as a dual number: its value
/// and its tangent (0 for an operand that tracks no gradient).
fn dual_operand(nodes: &Nodes, node: usize, slot: usize, tangents: &[f64]) -> Option<Dual> {
    nodes.edges()[node].parent(slot).map(|(parent, tracked)| {
        let tangent = if tracked { tangents[parent] } else { 0.0 };
        Dual::new(nodes.value(parent), tangent)
    })
}

/// A quotient's or reciprocal's tangent computed again on dual numbers
/// where the one from its recorded derivative lost its digits: `1/b` and
/// `a/b` of a large `b` record `−1/b²`, below `f64`'s range, where the
/// tangent `−ḃ/b²` is not (`b = eˣ` at `x = 400`, `ḃ = b·v`). `Dual`'s
/// `/` and `recip` keep them (see `Dual`'s `/`). `None` for any other
/// operation, whose tangent stands as recorded.
fn rescued_tangent(nodes: &Nodes, node: usize, tangents: &[f64]) -> Option<f64> {
    let edge = &nodes.edges()[node];
    let operand = |slot| dual_operand(nodes, node, slot, tangents);
    let x = operand(0)?;
    match nodes.operation(node) {
        ScalarOperation::Recip => Some(x.recip().tangent),
        ScalarOperation::Divide => {
            let plain = Dual::constant(edge.plain().unwrap_or(0.0));
            let quotient = match operand(1) {
                Some(b) => x / b,
                None if nodes.plain_left(node) => plain / x,
                None => x / plain,
            };
            Some(quotient.tangent)
        }
        _ => None,
    }
}

/// The local derivatives of `node` with respect to its two operand slots,
/// rerun by the node's rule on dual operands (each operand's value and
/// tangent): the value parts are the recorded derivatives, the tangent
/// parts their derivatives along the direction.
fn dual_partials(nodes: &Nodes, node: usize, tangents: &[f64]) -> [Dual; 2] {
    let edge = &nodes.edges()[node];
    let operand = |slot| dual_operand(nodes, node, slot, tangents);
    let inputs = Inputs {
        x: operand(0).unwrap_or_default(),
        other: operand(1),
        plain: edge.plain().unwrap_or(0.0),
        plain_left: nodes.plain_left(node),
        y: Dual::new(nodes.value(node), tangents[node]),
    };
    second_derivatives(nodes.operation(node), inputs)
}

/// What a node's rule may read, as dual numbers.
struct Inputs {
    /// The operand in slot 0.
    x: Dual,
    /// The operand in slot 1, if recorded.
    other: Option<Dual>,
    /// The plain operand or `powi`'s exponent, when slot 1 has no operand.
    plain: f64,
    /// Whether the plain operand is the left one.
    plain_left: bool,
    /// The node's result.
    y: Dual,
}

impl Inputs {
    /// A two-operand rule's partials in slot order: both operands recorded,
    /// or one recorded beside a plain one (on the side the flag says).
    fn operands(&self, rule: impl Fn(Dual, Dual) -> (Dual, Dual)) -> [Dual; 2] {
        let zero = Dual::constant(0.0);
        match self.other {
            Some(b) => {
                let (da, db) = rule(self.x, b);
                [da, db]
            }
            None if self.plain_left => [rule(Dual::constant(self.plain), self.x).1, zero],
            None => [rule(self.x, Dual::constant(self.plain)).0, zero],
        }
    }
}

/// Each operation's rule, called as the table of operations says: on the
/// operand, the result, both operands, or the operand and the exponent.
macro_rules! second_derivatives {
    ($($variant:ident $name:literal $spelling:ident $(($($how:tt),*))? $operands:literal $rule:ident $(($function:ident))? $absorbs:ident $computes:literal $derivative:literal;)*) => {
        fn second_derivatives(operation: ScalarOperation, inputs: Inputs) -> [Dual; 2] {
            let zero = Dual::constant(0.0);
            match operation {
                $(ScalarOperation::$variant => second_derivatives!(@rule inputs zero $rule $(($function))?),)*
            }
        }
    };
    (@rule $inputs:ident $zero:ident none) => { [$zero, $zero] };
    (@rule $inputs:ident $zero:ident zero) => { [$zero, $zero] };
    (@rule $inputs:ident $zero:ident operand($f:ident)) => { [rules::$f($inputs.x), $zero] };
    (@rule $inputs:ident $zero:ident result($f:ident)) => { [rules::$f($inputs.y), $zero] };
    (@rule $inputs:ident $zero:ident operands($f:ident)) => { $inputs.operands(rules::$f) };
    // The exponent is an integer kept as an `f64`: the cast is exact.
    (@rule $inputs:ident $zero:ident power($f:ident)) => {
        [rules::$f($inputs.x, $inputs.plain as i32), $zero]
    };
}

autodiff_ops_table::operations!(second_derivatives);

/// Forward over reverse from `output`, with the variables' tangents
/// `seeds`: every node's adjoint and adjoint tangent. Errors: a tangent,
/// a second derivative on a path the output reaches, or an adjoint tangent
/// that is not finite, each naming its node; a first-order failure is
/// the one [`Scalar::backward`] would report.
pub(crate) fn hvp(
    nodes: &Nodes,
    output: usize,
    seeds: &[f64],
) -> Result<SecondOrderPass, ScalarAutodiffError> {
    let tangents = tangents(nodes, output, seeds)?;
    let mut pass = SecondOrderPass {
        adjoints: buffers::zeros(output + 1),
        hvp: buffers::zeros(output + 1),
    };
    let result = reverse(nodes, output, &tangents, &mut pass);
    buffers::give_back(tangents);
    result.map(|()| pass)
}

/// The reverse pass of [`hvp`] on dual numbers, into `pass`'s arrays
/// (zeros), with every node's tangent.
fn reverse(
    nodes: &Nodes,
    output: usize,
    tangents: &[f64],
    pass: &mut SecondOrderPass,
) -> Result<(), ScalarAutodiffError> {
    let edges = &nodes.edges()[..=output];
    let SecondOrderPass { adjoints, hvp } = pass;
    adjoints[output] = 1.0;
    for node in (0..=output).rev() {
        let (upstream, upstream_tangent) = (adjoints[node], hvp[node]);
        if !upstream_tangent.is_finite() {
            return Err(ScalarAutodiffError::NonFiniteSecondOrderAdjoint {
                node,
                adjoint_tangent: upstream_tangent,
                label: nodes.label(node),
            });
        }
        if upstream == 0.0 && upstream_tangent == 0.0 {
            continue;
        }
        let edge = &edges[node];
        if edge.parent(0).is_none() {
            continue;
        }
        let partials = dual_partials(nodes, node, tangents);
        for (slot, partial) in partials.iter().enumerate() {
            let Some((parent, true)) = edge.parent(slot) else {
                continue;
            };
            let derivative = edge.derivatives[slot];
            // The first-order step, checked as `backward` checks it.
            let first = upstream * derivative;
            let previous = adjoints[parent];
            if !first.is_finite() {
                return Err(ScalarAutodiffError::NonFiniteContribution {
                    child: node,
                    parent,
                    operand: slot,
                    upstream,
                    local_derivative: derivative,
                    label: nodes.label(node),
                });
            }
            if !(previous + first).is_finite() {
                return Err(ScalarAutodiffError::NonFinitePassAdjoint {
                    node: parent,
                    previous,
                    contribution: first,
                    local_derivative: derivative,
                    consumer_label: nodes.label(node),
                    label: nodes.label(parent),
                });
            }
            // The product rule: (ā·d)' = ā'·d + ā·d'. A factor that is 0
            // contributes nothing, even against an infinite partner.
            let mut contribution = 0.0;
            if upstream_tangent != 0.0 {
                contribution += upstream_tangent * derivative;
            }
            if upstream != 0.0 && partial.tangent != 0.0 {
                if !partial.tangent.is_finite() {
                    return Err(ScalarAutodiffError::NonFiniteSecondDerivative {
                        operation: nodes.operation(node),
                        operand: slot,
                        input: nodes.value(parent),
                        second_derivative: partial.tangent,
                        label: nodes.label(node),
                    });
                }
                contribution += upstream * partial.tangent;
            }
            adjoints[parent] = previous + first;
            hvp[parent] += contribution;
        }
    }
    Ok(())
}

impl<'t> Scalar<'t> {
    /// Forward mode: the derivative of this node when each variable moves
    /// at the rate `tangents` gives it (`tangents[i]` for the node of tape
    /// index `i`, 0 past the end), that is `∇f · v`. One pass over the
    /// tape in creation order, from the local derivatives it recorded.
    ///
    /// A non-zero tangent on a node that is not a variable, or one that is
    /// not finite, is [`InvalidTangent`](ScalarAutodiffError::InvalidTangent);
    /// a node whose tangent overflows is
    /// [`NonFiniteTangent`](ScalarAutodiffError::NonFiniteTangent). The
    /// tape is not changed.
    ///
    /// ```
    /// use autodiff_core::Tape;
    ///
    /// let tape = Tape::new();
    /// let x = tape.variable(1.0)?;
    /// let y = tape.variable(2.0)?;
    /// let f = x.mul(y)?.sin()?;
    /// // ∇f = cos(xy)·(y, x); along (1, 1): cos 2 · 3.
    /// assert_eq!(f.jvp(&[1.0, 1.0])?, 2.0_f64.cos() * 3.0);
    /// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
    /// ```
    pub fn jvp(self, tangents: &[f64]) -> Result<f64, ScalarAutodiffError> {
        let output = self.index();
        // SAFETY: the guard lives for this expression, which calls only
        // `Nodes` reads.
        let nodes = unsafe { self.tape.read() };
        let tangents = self::tangents(&nodes, output, tangents)?;
        let tangent = tangents[output];
        buffers::give_back(tangents);
        Ok(tangent)
    }

    /// Forward over reverse: the gradient of this node and its derivative
    /// along `tangents` (given as for [`jvp`](Self::jvp)), which for the
    /// variables is the Hessian-vector product `H·v`. The tape is not
    /// changed (no gradient is stored).
    ///
    /// Errors are [`jvp`](Self::jvp)'s; a second derivative that is not
    /// finite on a path the output reaches
    /// ([`NonFiniteSecondDerivative`](ScalarAutodiffError::NonFiniteSecondDerivative),
    /// e.g. `x.powf(1.5)` at 0); an adjoint tangent that overflows
    /// ([`NonFiniteSecondOrderAdjoint`](ScalarAutodiffError::NonFiniteSecondOrderAdjoint));
    /// and, if the gradient itself overflows, the error a
    /// [`backward`](Self::backward) from here reports.
    pub fn hvp(self, tangents: &[f64]) -> Result<SecondOrderPass, ScalarAutodiffError> {
        let output = self.index();
        // SAFETY: the guard lives for this expression, which calls only
        // `Nodes` reads.
        let nodes = unsafe { self.tape.read() };
        hvp(&nodes, output, tangents)
    }
}

/// A tape made for a second-order pass. Generated `f_jvp`, `f_hvp` and
/// `f_hessian` record through the tape path (`f_grad_tape_on`) on such a
/// tape, which keeps the output where the path would run its reverse
/// pass, so that they need no recording code of their own.
impl Tape {
    /// Makes this tape one for a second-order pass: the tape path keeps
    /// the number of variables ([`keep_variables`](Self::keep_variables))
    /// and the output ([`Scalar::kept`]) instead of running its reverse
    /// pass. [`clear`](Self::clear) keeps the setting (and forgets what was
    /// kept); a new tape never has it.
    #[doc(hidden)]
    pub fn keep_output(&self) {
        // SAFETY: the guard lives for this statement, which only writes
        // `Nodes::kept`.
        unsafe { self.write() }.kept = Some(Kept::default());
    }

    /// On a tape for a second-order pass, notes that the nodes so far are
    /// the parameters' variables.
    #[doc(hidden)]
    #[inline]
    pub fn keep_variables(&self) {
        // SAFETY: the guard lives for this statement, which only reads
        // the node count and writes `Nodes::kept`.
        let mut nodes = unsafe { self.write() };
        let len = nodes.len();
        if let Some(kept) = &mut nodes.kept {
            kept.variables = len;
        }
    }

    /// What the last recording kept, on a tape for a second-order pass:
    /// the output and the number of variables.
    #[doc(hidden)]
    pub fn kept(&self) -> Option<(Scalar<'_>, usize)> {
        // SAFETY: the guard lives for this statement, which only reads
        // `Nodes::kept`.
        let kept = unsafe { self.read() }.kept?;
        let (entry, value) = kept.output?;
        Some((Scalar::new(self, entry, value), kept.variables))
    }
}

impl Scalar<'_> {
    /// Keeps this node as the output, if its tape is one for a
    /// second-order pass ([`Tape::keep_output`]); whether it did.
    #[doc(hidden)]
    #[inline]
    pub fn kept(self) -> bool {
        let entry = if self.tracks_gradient() {
            self.node()
        } else {
            self.node() | UNTRACKED
        };
        // SAFETY: the guard lives for this statement, which only writes
        // `Nodes::kept`.
        let mut nodes = unsafe { self.tape.write() };
        match &mut nodes.kept {
            Some(kept) => {
                kept.output = Some((entry, self.value));
                true
            }
            None => false,
        }
    }
}
