//! Random expression graphs recorded through the engine and checked against
//! two oracles that never look at the tape: forward-mode dual numbers (one
//! sweep per input direction) and central differences of the plain `f64`
//! function.
//!
//! A generated [`Program`] is a list of steps over earlier nodes; it is
//! evaluated three ways from the same description: recorded on a [`Tape`],
//! run on [`Dual`]s, and run on plain `f64`s. Every operation of the engine
//! appears, with plain-`f64` operands, reversed operands (`rsub`, `rdiv`,
//! `rpowf`), constants and detached values, and operands reused within one
//! operation (`x.mul(x)`) and across operations. Three shapes: random DAGs,
//! deep chains that always consume the previous node, and wide fans that
//! spread the inputs over many operations and sum them back.

// The dual numbers shared with the facade's tests (they use nothing of the
// facade, so this crate's tests include the one file).
#[path = "../../tests/support/oracle.rs"]
#[allow(dead_code)]
mod dual;

use std::ops::{Add, Div, Mul, Neg, Sub};

use autodiff_core::{Operand, Scalar, ScalarAutodiffError, Tape};
use dual::Dual;
use proptest::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Unary {
    Neg,
    Exp,
    Ln,
    Tanh,
    Sin,
    Cos,
    Sqrt,
    Abs,
    Recip,
    Relu,
    Sigmoid,
}

const UNARIES: [Unary; 11] = [
    Unary::Neg,
    Unary::Exp,
    Unary::Ln,
    Unary::Tanh,
    Unary::Sin,
    Unary::Cos,
    Unary::Sqrt,
    Unary::Abs,
    Unary::Recip,
    Unary::Relu,
    Unary::Sigmoid,
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Powf,
}

const BINARIES: [Binary; 7] = [
    Binary::Add,
    Binary::Sub,
    Binary::Mul,
    Binary::Div,
    Binary::Max,
    Binary::Min,
    Binary::Powf,
];

/// A plain `f64` on the left: `c - x`, `c / x`, `c^x`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Reversed {
    Rsub,
    Rdiv,
    Rpowf,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Arg {
    Node(usize),
    Plain(f64),
}

/// One node of a program; operands are indices of earlier nodes (the
/// inputs are nodes `0..inputs.len()`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    Constant(f64),
    Detach(usize),
    Unary(Unary, usize),
    Powi(usize, i32),
    Binary(Binary, usize, Arg),
    Reversed(Reversed, f64, usize),
}

#[derive(Clone, Debug)]
struct Program {
    inputs: Vec<f64>,
    steps: Vec<Step>,
}

/// What a program can be evaluated on besides the tape.
trait Num: Copy {
    fn constant(value: f64) -> Self;
    fn value(self) -> f64;
    fn unary(self, op: Unary) -> Self;
    fn binary(self, op: Binary, other: Self) -> Self;
    fn powi(self, n: i32) -> Self;
}

impl Num for f64 {
    fn constant(value: f64) -> Self {
        value
    }
    fn value(self) -> f64 {
        self
    }
    fn unary(self, op: Unary) -> Self {
        match op {
            Unary::Neg => -self,
            Unary::Exp => self.exp(),
            Unary::Ln => self.ln(),
            Unary::Tanh => self.tanh(),
            Unary::Sin => self.sin(),
            Unary::Cos => self.cos(),
            Unary::Sqrt => self.sqrt(),
            Unary::Abs => self.abs(),
            Unary::Recip => self.recip(),
            Unary::Relu => {
                if self > 0.0 {
                    self
                } else {
                    0.0
                }
            }
            Unary::Sigmoid => dual::sigmoid(self),
        }
    }
    fn binary(self, op: Binary, other: Self) -> Self {
        match op {
            Binary::Add => self + other,
            Binary::Sub => self - other,
            Binary::Mul => self * other,
            Binary::Div => self / other,
            Binary::Max => self.max(other),
            Binary::Min => self.min(other),
            Binary::Powf => self.powf(other),
        }
    }
    fn powi(self, n: i32) -> Self {
        self.powi(n)
    }
}

impl Num for Dual {
    fn constant(value: f64) -> Self {
        Dual::constant(value)
    }
    fn value(self) -> f64 {
        self.value
    }
    fn unary(self, op: Unary) -> Self {
        match op {
            Unary::Neg => self.neg(),
            Unary::Exp => self.exp(),
            Unary::Ln => self.ln(),
            Unary::Tanh => self.tanh(),
            Unary::Sin => self.sin(),
            Unary::Cos => self.cos(),
            Unary::Sqrt => self.sqrt(),
            Unary::Abs => self.abs(),
            Unary::Recip => self.recip(),
            Unary::Relu => self.relu(),
            Unary::Sigmoid => self.sigmoid(),
        }
    }
    fn binary(self, op: Binary, other: Self) -> Self {
        match op {
            Binary::Add => self.add(other),
            Binary::Sub => self.sub(other),
            Binary::Mul => self.mul(other),
            Binary::Div => self.div(other),
            Binary::Max => self.max(other),
            Binary::Min => self.min(other),
            Binary::Powf => self.powf(other),
        }
    }
    fn powi(self, n: i32) -> Self {
        Dual::powi(self, n)
    }
}

/// The value of `step` given the earlier nodes. `frozen` holds the
/// unperturbed values: a detached node keeps its value there when a central
/// difference moves the inputs, which is what "gradients stop here" means
/// for the plain function.
fn apply<N: Num>(step: Step, nodes: &[N], frozen: Option<&[f64]>) -> N {
    let arg = |arg: Arg| match arg {
        Arg::Node(j) => nodes[j],
        Arg::Plain(c) => N::constant(c),
    };
    match step {
        Step::Constant(c) => N::constant(c),
        Step::Detach(a) => N::constant(frozen.map_or(nodes[a].value(), |f| f[a])),
        Step::Unary(op, a) => nodes[a].unary(op),
        Step::Powi(a, n) => nodes[a].powi(n),
        Step::Binary(op, a, b) => nodes[a].binary(op, arg(b)),
        Step::Reversed(op, c, a) => {
            let op = match op {
                Reversed::Rsub => Binary::Sub,
                Reversed::Rdiv => Binary::Div,
                Reversed::Rpowf => Binary::Powf,
            };
            N::constant(c).binary(op, nodes[a])
        }
    }
}

impl Program {
    fn eval<N: Num>(&self, inputs: Vec<N>, frozen: Option<&[f64]>) -> Vec<N> {
        let mut nodes = inputs;
        for &step in &self.steps {
            let next = apply(step, &nodes, frozen);
            nodes.push(next);
        }
        nodes
    }

    /// ∂output/∂node with the node's own operands held fixed, which is what
    /// an intermediate node's stored gradient means: forward mode with the
    /// tangent injected at `node` and nowhere else.
    fn dual_from(&self, node: usize) -> Dual {
        let mut nodes: Vec<Dual> = self.inputs.iter().map(|&x| Dual::constant(x)).collect();
        if node < nodes.len() {
            nodes[node] = Dual::input(nodes[node].value, true);
        }
        for (i, &step) in self.steps.iter().enumerate() {
            let next = apply(step, &nodes, None);
            let index = self.inputs.len() + i;
            nodes.push(if index == node {
                Dual::input(next.value, true)
            } else {
                next
            });
        }
        nodes[self.output()]
    }

    fn output(&self) -> usize {
        self.inputs.len() + self.steps.len() - 1
    }

    /// Whether each node depends on an input through undetached edges.
    fn tracked(&self) -> Vec<bool> {
        let mut tracked = vec![true; self.inputs.len()];
        for &step in &self.steps {
            let t = match step {
                Step::Constant(_) | Step::Detach(_) => false,
                Step::Unary(_, a) | Step::Powi(a, _) | Step::Reversed(_, _, a) => tracked[a],
                Step::Binary(_, a, Arg::Node(b)) => tracked[a] || tracked[b],
                Step::Binary(_, a, Arg::Plain(_)) => tracked[a],
            };
            tracked.push(t);
        }
        tracked
    }

    /// The program through the engine's public API.
    fn record<'t>(&self, tape: &'t Tape) -> Result<Vec<Scalar<'t>>, ScalarAutodiffError> {
        let mut nodes = Vec::with_capacity(self.inputs.len() + self.steps.len());
        for &x in &self.inputs {
            nodes.push(tape.variable(x)?);
        }
        for &step in &self.steps {
            let next = match step {
                Step::Constant(c) => tape.constant(c)?,
                Step::Detach(a) => nodes[a].detach()?,
                Step::Unary(op, a) => {
                    let x: Scalar<'t> = nodes[a];
                    match op {
                        Unary::Neg => x.neg(),
                        Unary::Exp => x.exp(),
                        Unary::Ln => x.ln(),
                        Unary::Tanh => x.tanh(),
                        Unary::Sin => x.sin(),
                        Unary::Cos => x.cos(),
                        Unary::Sqrt => x.sqrt(),
                        Unary::Abs => x.abs(),
                        Unary::Recip => x.recip(),
                        Unary::Relu => x.relu(),
                        Unary::Sigmoid => x.sigmoid(),
                    }?
                }
                Step::Powi(a, n) => nodes[a].powi(n)?,
                Step::Binary(op, a, b) => {
                    let x = nodes[a];
                    let rhs: Operand<'t> = match b {
                        Arg::Node(j) => nodes[j].into(),
                        Arg::Plain(c) => c.into(),
                    };
                    match op {
                        Binary::Add => x.add(rhs),
                        Binary::Sub => x.sub(rhs),
                        Binary::Mul => x.mul(rhs),
                        Binary::Div => x.div(rhs),
                        Binary::Max => x.max(rhs),
                        Binary::Min => x.min(rhs),
                        Binary::Powf => x.powf(rhs),
                    }?
                }
                Step::Reversed(op, c, a) => match op {
                    Reversed::Rsub => nodes[a].rsub(c),
                    Reversed::Rdiv => nodes[a].rdiv(c),
                    Reversed::Rpowf => nodes[a].rpowf(c),
                }?,
            };
            nodes.push(next);
        }
        Ok(nodes)
    }

    /// For every kinked step (abs, relu, max and min of two different
    /// nodes), which side of the kink its operands are on. A central
    /// difference is only evidence when this is the same at `x − h`, `x`
    /// and `x + h`.
    fn branches(&self, values: &[f64]) -> Vec<i8> {
        let side = |d: f64| (d > 0.0) as i8 - (d < 0.0) as i8;
        self.steps
            .iter()
            .filter_map(|&step| match step {
                Step::Unary(Unary::Abs | Unary::Relu, a) => Some(side(values[a])),
                Step::Binary(Binary::Max | Binary::Min, a, b) => match b {
                    Arg::Node(b) if b == a => None,
                    Arg::Node(b) => Some(side(values[a] - values[b])),
                    Arg::Plain(c) => Some(side(values[a] - c)),
                },
                _ => None,
            })
            .collect()
    }
}

/// Values stay below this in magnitude, so that no chain of products can
/// overflow and central differences keep their digits.
const VALUE_BOUND: f64 = 1e4;

/// Whether `step` stays inside its operation's domain, with margin, at the
/// current values. `tanh` and `sigmoid` stop at |x| ≤ 5: beyond it their
/// derivatives (`1 − t²`, `σ(1 − σ)`) are differences of nearly equal
/// numbers in any implementation, and 1e−9 relative agreement would measure
/// that cancellation rather than the engine.
fn admissible(step: Step, values: &[f64]) -> bool {
    let result = apply::<f64>(step, values, None);
    if !result.is_finite() || result.abs() > VALUE_BOUND {
        return false;
    }
    let arg = |b: Arg| match b {
        Arg::Node(j) => values[j],
        Arg::Plain(c) => c,
    };
    match step {
        Step::Unary(op, a) => match op {
            Unary::Ln | Unary::Sqrt => values[a] >= 0.1,
            Unary::Recip => values[a].abs() >= 0.1,
            Unary::Tanh | Unary::Sigmoid => values[a].abs() <= 5.0,
            _ => true,
        },
        Step::Powi(a, n) => n >= 0 || values[a].abs() >= 0.1,
        Step::Binary(Binary::Div, _, b) => arg(b).abs() >= 0.1,
        Step::Binary(Binary::Powf, a, b) => {
            let base = values[a];
            match b {
                Arg::Node(_) => base >= 0.1,
                // A negative base is fine with an integral constant exponent.
                Arg::Plain(c) => base >= 0.1 || (c.fract() == 0.0 && base.abs() >= 0.1),
            }
        }
        Step::Reversed(Reversed::Rdiv, _, a) => values[a].abs() >= 0.1,
        _ => true,
    }
}

/// Proptest's raw material for one step; [`build`] turns it into a [`Step`]
/// once it knows how many nodes exist and their values.
#[derive(Clone, Copy, Debug)]
struct Raw {
    kind: u8,
    a: f64,
    b: f64,
    c: f64,
    n: i32,
    flags: u8,
}

const KINDS: u8 = 31;

fn raw() -> impl Strategy<Value = Raw> {
    (
        0..KINDS,
        0.0..1.0_f64,
        0.0..1.0_f64,
        -3.0..3.0_f64,
        -3..=4_i32,
        any::<u8>(),
    )
        .prop_map(|(kind, a, b, c, n, flags)| Raw {
            kind,
            a,
            b,
            c,
            n,
            flags,
        })
}

#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Operands anywhere among the earlier nodes.
    Dag,
    /// Each step consumes the previous node.
    Chain,
    /// Each step consumes inputs only; the steps are then summed.
    Fan,
}

fn pick(fraction: f64, len: usize) -> usize {
    ((fraction * len as f64) as usize).min(len - 1)
}

/// Turns raw choices into a program whose every step is admissible at the
/// given inputs; an inadmissible choice becomes `sin` of its first operand.
fn build(shape: Shape, inputs: Vec<f64>, raws: &[Raw]) -> Program {
    let mut values = inputs.clone();
    let mut steps = Vec::new();
    let mut fan = Vec::new();
    let push = |step: Step, values: &mut Vec<f64>, steps: &mut Vec<Step>| {
        let step = if admissible(step, values) {
            step
        } else {
            let a = match step {
                Step::Unary(_, a)
                | Step::Powi(a, _)
                | Step::Binary(_, a, _)
                | Step::Reversed(_, _, a)
                | Step::Detach(a) => a,
                Step::Constant(_) => 0,
            };
            Step::Unary(Unary::Sin, a)
        };
        values.push(apply::<f64>(step, values, None));
        steps.push(step);
    };
    for raw in raws {
        let len = values.len();
        let a = match shape {
            Shape::Dag => pick(raw.a, len),
            Shape::Chain => len - 1,
            Shape::Fan => pick(raw.a, inputs.len()),
        };
        let b = if raw.flags & 0b11000 == 0 {
            a // the same node twice in one operation
        } else {
            match shape {
                Shape::Fan => pick(raw.b, inputs.len()),
                _ => pick(raw.b, len),
            }
        };
        let c = if raw.flags & 2 != 0 {
            raw.c.round()
        } else {
            raw.c
        };
        // A chain that restarted from a fresh leaf would stop being deep.
        let kind = match shape {
            Shape::Chain if raw.kind >= 29 => 0,
            _ => raw.kind,
        };
        let step = match kind {
            k @ 0..=13 => {
                let op = BINARIES[usize::from(k / 2)];
                let rhs = if k % 2 == 0 {
                    Arg::Node(b)
                } else if raw.flags & 4 != 0 && matches!(op, Binary::Max | Binary::Min) {
                    Arg::Plain(values[a]) // a deliberate tie with a constant
                } else {
                    Arg::Plain(c)
                };
                Step::Binary(op, a, rhs)
            }
            14 => Step::Reversed(Reversed::Rsub, c, a),
            15 => Step::Reversed(Reversed::Rdiv, c, a),
            16 => Step::Reversed(Reversed::Rpowf, c.abs().max(0.2), a),
            17 => Step::Powi(a, raw.n),
            k @ 18..=28 => Step::Unary(UNARIES[usize::from(k - 18)], a),
            29 => Step::Constant(c),
            _ => Step::Detach(a),
        };
        push(step, &mut values, &mut steps);
        if matches!(shape, Shape::Fan) {
            fan.push(values.len() - 1);
        }
    }
    if let Some((&first, rest)) = fan.split_first() {
        let mut sum = first;
        for &next in rest {
            push(
                Step::Binary(Binary::Add, sum, Arg::Node(next)),
                &mut values,
                &mut steps,
            );
            sum = values.len() - 1;
        }
    }
    Program { inputs, steps }
}

/// Reverse gradients agree with dual numbers to this, relative to the
/// dual's magnitude (see `tests/support/oracle.rs` at the workspace root).
const DUAL_TOLERANCE: f64 = 1e-9;
/// Below this, path products have passed through the subnormal range, where
/// IEEE arithmetic keeps fewer bits, so the two orders of multiplication
/// (reverse and forward) may differ in relative terms; they still agree in
/// absolute terms far below anything a gradient step could notice.
const UNDERFLOW: f64 = 1e-250;

/// Whether a reverse-mode derivative agrees with the dual oracle. When the
/// dual's own chain products underflowed, it has no digits left to compare
/// against (the reverse pass, multiplying in the other order, may keep
/// them), and the comparison is skipped.
fn agrees(reverse: f64, dual: &Dual) -> bool {
    dual.underflow || (reverse - dual.tangent).abs() <= DUAL_TOLERANCE * dual.magnitude + UNDERFLOW
}
/// Central differences agree to this, relative to max(1, magnitude).
const CD_TOLERANCE: f64 = 1e-5;

/// Records `program`, runs the checks, and returns how many input
/// components were also checked by central differences.
fn check(program: &Program) -> Result<usize, TestCaseError> {
    let tape = Tape::new();
    let nodes = program
        .record(&tape)
        .map_err(|e| TestCaseError::fail(format!("admissible program rejected: {e}")))?;
    let n = program.inputs.len();
    let values = program.eval::<f64>(program.inputs.clone(), None);
    let tracked = program.tracked();
    prop_assert_eq!(tape.len(), values.len());
    for (i, node) in nodes.iter().enumerate() {
        // Same IEEE operations in the same order: identical bits.
        prop_assert_eq!(
            node.value().to_bits(),
            values[i].to_bits(),
            "value of node {}",
            i
        );
        prop_assert_eq!(node.tracks_gradient(), tracked[i], "tracking of node {}", i);
    }

    let duals: Vec<Dual> = (0..n)
        .map(|direction| {
            let seeded = (0..n)
                .map(|j| Dual::input(program.inputs[j], j == direction))
                .collect();
            program.eval::<Dual>(seeded, None)[program.output()]
        })
        .collect();

    let output = nodes[program.output()];
    if !tracked[program.output()] {
        let error = output.backward().unwrap_err();
        prop_assert!(
            matches!(error, ScalarAutodiffError::UntrackedOutput { .. }),
            "untracked output gave {:?}",
            error
        );
        for dual in &duals {
            prop_assert_eq!(dual.tangent, 0.0);
        }
        return Ok(0);
    }

    let pass = output
        .backward()
        .map_err(|e| TestCaseError::fail(format!("backward failed: {e}")))?;
    let first: Vec<Option<f64>> = nodes.iter().map(|s| s.gradient()).collect();
    for (i, dual) in duals.iter().enumerate() {
        let g = first[i].expect("inputs are variables");
        prop_assert!(
            agrees(g, dual),
            "input {}: reverse {} vs dual {} (magnitude {})",
            i,
            g,
            dual.tangent,
            dual.magnitude
        );
        prop_assert_eq!(pass.pass_adjoint(i).unwrap_or(0.0), g);
    }

    // Intermediate nodes: every one in short programs, fifty spread over
    // long ones (a forward sweep per node is quadratic).
    let stride = nodes.len().div_ceil(50).max(1);
    for k in (program.inputs.len()..nodes.len()).step_by(stride) {
        let dual = program.dual_from(k);
        match first[k] {
            None => prop_assert!(!tracked[k], "node {} lost its gradient", k),
            Some(g) => prop_assert!(
                agrees(g, &dual),
                "node {}: stored {} vs dual {} (magnitude {})",
                k,
                g,
                dual.tangent,
                dual.magnitude
            ),
        }
    }

    let mut checked = 0;
    for (i, dual) in duals.iter().enumerate() {
        let x = program.inputs[i];
        let h = f64::EPSILON.cbrt() * x.abs().max(1.0);
        let at = |x_i: f64| {
            let mut inputs = program.inputs.clone();
            inputs[i] = x_i;
            program.eval::<f64>(inputs, Some(&values))
        };
        let here = program.branches(&values);
        // Central differences at h, h/4, h/16, …: the first two successive
        // ones that agree to 0.1% show a step that resolves the function
        // here; before that, a pole or a steep wall within reach makes
        // them no evidence either way. A kink or a domain edge crossed by a
        // step, detected by the branch sides, ends the search.
        // A difference only counts if the output moved by well over its
        // rounding (else both sides can round to the same number and read
        // as a zero slope), or if it has not moved at all at any step so
        // far (locally constant).
        let mut previous: Option<f64> = None;
        let mut constant = true;
        let mut resolved = None;
        for k in 0..7 {
            let step = h / 4f64.powi(k);
            let (plus, minus) = (at(x + step), at(x - step));
            let finite = plus.iter().chain(&minus).all(|v| v.is_finite());
            if !finite || program.branches(&plus) != here || program.branches(&minus) != here {
                break;
            }
            let (up, down) = (plus[program.output()], minus[program.output()]);
            let moved = (up - down).abs();
            constant &= moved == 0.0;
            let cd = (up - down) / (2.0 * step);
            let visible = moved >= 1e4 * f64::EPSILON * up.abs().max(down.abs());
            match previous {
                Some(coarse) if constant => {
                    resolved = Some((coarse, cd, step));
                    break;
                }
                Some(coarse)
                    if visible && (cd - coarse).abs() <= 1e-3 * cd.abs().max(coarse.abs()) =>
                {
                    resolved = Some((coarse, cd, step));
                    break;
                }
                _ => {}
            }
            previous = visible.then_some(cd).or(constant.then_some(0.0));
        }
        let Some((coarse, fine, step)) = resolved else {
            continue;
        };
        // Richardson: with steps in ratio 4 the O(h²) truncation error
        // cancels in (16·fine − coarse)/15; the two differences'
        // disagreement bounds what is left.
        let extrapolated = (16.0 * fine - coarse) / 15.0;
        let g = first[i].unwrap();
        prop_assert!(
            (extrapolated - g).abs()
                <= CD_TOLERANCE * dual.magnitude.max(1.0) + (fine - coarse).abs(),
            "input {}: reverse {} vs central differences {} (step {}) and {} (step {})",
            i,
            g,
            coarse,
            4.0 * step,
            fine,
            step
        );
        checked += 1;
    }

    // A second pass recomputes the same adjoints and adds them: exactly 2×.
    output.backward().unwrap();
    for (node, &g) in nodes.iter().zip(&first) {
        prop_assert_eq!(node.gradient(), g.map(|g| 2.0 * g));
    }

    // zero_grad clears every tracked node the output reaches; a fresh pass
    // then reproduces the first bit for bit.
    output.zero_grad();
    for (i, node) in nodes.iter().enumerate() {
        if let Some(g) = node.gradient() {
            let reached = pass.pass_adjoint(i).is_some();
            prop_assert_eq!(
                g,
                if reached {
                    0.0
                } else {
                    2.0 * first[i].unwrap()
                }
            );
        }
    }
    output.backward().unwrap();
    for (node, &g) in nodes.iter().zip(&first) {
        prop_assert_eq!(node.gradient().map(f64::to_bits), g.map(f64::to_bits));
    }

    // The reverse pass is linear in its seed: a power of two scales every
    // adjoint exactly, any other seed up to rounding.
    for seed in [0.25, -8.0, 0.7, -1.3] {
        output.zero_grad();
        output.backward_with_seed(seed).unwrap();
        for (i, dual) in duals.iter().enumerate() {
            let g = nodes[i].gradient().unwrap();
            let want = seed * first[i].unwrap();
            let close = (g - want).abs()
                <= DUAL_TOLERANCE * seed.abs() * dual.magnitude + UNDERFLOW
                || dual.underflow;
            if seed.abs().log2().fract() == 0.0 {
                // Scaling by a power of two is exact unless an adjoint is
                // subnormal.
                prop_assert!(g == want || close, "{} vs {}", g, want);
            } else {
                prop_assert!(close, "{} vs {}", g, want);
            }
        }
    }
    Ok(checked)
}

fn program(shape: Shape, steps: std::ops::Range<usize>) -> impl Strategy<Value = Program> {
    (
        prop::collection::vec(-2.0..2.0_f64, 1..=4),
        prop::collection::vec(raw(), steps),
    )
        .prop_map(move |(inputs, raws)| build(shape, inputs, &raws))
}

/// `full` cases when `AUTODIFF_LONG` is set (`.ci/run` does, in release),
/// a tenth of them in the default `cargo test`.
fn cases(full: u32) -> u32 {
    if std::env::var_os("AUTODIFF_LONG").is_some() {
        full
    } else {
        full / 10
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(5000)))]

    #[test]
    fn random_dags_match_dual_numbers_and_central_differences(p in program(Shape::Dag, 1..40)) {
        check(&p)?;
    }

    #[test]
    fn wide_fans_match_dual_numbers_and_central_differences(p in program(Shape::Fan, 2..80)) {
        check(&p)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(1000)))]

    #[test]
    fn deep_chains_match_dual_numbers_and_central_differences(p in program(Shape::Chain, 100..400)) {
        check(&p)?;
    }
}

/// The generators reach what the properties claim: every operation, reuse,
/// depth, untracked outputs, and central differences on most components.
#[test]
fn generated_programs_cover_every_operation_and_mostly_allow_central_differences() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let (mut components, mut differenced, mut untracked, mut reused) = (0, 0, 0, 0);
    let mut seen = std::collections::BTreeSet::new();
    let mut deepest = 0;
    for (shape, steps) in [
        (Shape::Dag, 1..40),
        (Shape::Fan, 2..80),
        (Shape::Chain, 100..400),
    ] {
        let strategy = program(shape, steps);
        for _ in 0..300 {
            let p = strategy.new_tree(&mut runner).unwrap().current();
            let tracked = p.tracked();
            if !tracked[p.output()] {
                untracked += 1;
            } else {
                components += p.inputs.len();
            }
            differenced += check(&p).unwrap();
            deepest = deepest.max(p.steps.len());
            for step in &p.steps {
                seen.insert(match *step {
                    Step::Constant(_) => "constant".to_owned(),
                    Step::Detach(_) => "detach".to_owned(),
                    Step::Powi(..) => "powi".to_owned(),
                    Step::Unary(op, _) => format!("{op:?}"),
                    Step::Binary(op, _, Arg::Node(_)) => format!("{op:?} node"),
                    Step::Binary(op, _, Arg::Plain(_)) => format!("{op:?} plain"),
                    Step::Reversed(op, _, _) => format!("{op:?}"),
                });
                if let Step::Binary(_, a, Arg::Node(b)) = *step {
                    reused += usize::from(a == b);
                }
            }
        }
    }
    eprintln!(
        "{components} components, {differenced} central-differenced, {untracked} untracked outputs, \
         {reused} same-node operations, deepest {deepest}, {} step kinds",
        seen.len()
    );
    // 11 unary + 7 binary × (node, plain) + 3 reversed + powi + constant + detach.
    assert_eq!(seen.len(), 11 + 14 + 3 + 3, "{seen:?}");
    assert!(differenced * 2 > components);
    assert!(untracked > 0 && reused > 100 && deepest >= 300);
}

/// At a kink a central difference measures the average of the two one-sided
/// slopes, which is not what the engine documents; these are asserted
/// against the documented choices instead.
#[test]
fn kinks_take_the_documented_subgradients() -> Result<(), ScalarAutodiffError> {
    let tape = Tape::new();
    let zero = tape.variable(0.0)?;
    zero.abs()?.backward()?;
    assert_eq!(zero.gradient(), Some(0.0), "abs'(0) = 0");
    zero.zero_grad();
    zero.relu()?.backward()?;
    assert_eq!(zero.gradient(), Some(0.0), "relu'(0) = 0");

    let (x, y) = (tape.variable(1.5)?, tape.variable(1.5)?);
    x.max(y)?.backward()?;
    assert_eq!((x.gradient(), y.gradient()), (Some(0.5), Some(0.5)));
    x.min(y)?.backward()?;
    assert_eq!((x.gradient(), y.gradient()), (Some(1.0), Some(1.0)));

    // The same node on both sides: halves on two edges add back to 1.
    let z = tape.variable(-0.25)?;
    z.max(z)?.backward()?;
    z.min(z)?.backward()?;
    assert_eq!(z.gradient(), Some(2.0));

    // A tie with a plain number: the constant's half goes nowhere.
    let w = tape.variable(2.0)?;
    w.max(2.0)?.backward()?;
    w.min(2.0)?.backward()?;
    assert_eq!(w.gradient(), Some(1.0));

    // Just off the kink the ordinary derivatives apply again.
    let v = tape.variable(-1e-300)?;
    v.abs()?.backward()?;
    v.relu()?.backward()?;
    assert_eq!(v.gradient(), Some(-1.0));
    Ok(())
}

/// The oracle itself against derivatives worked out by hand.
#[test]
fn dual_matches_closed_forms() {
    // d/dx [x² sin x] = 2x sin x + x² cos x at x = 0.7.
    let x = Dual::input(0.7, true);
    let y = x.mul(x).mul(x.sin());
    let expected = 2.0 * 0.7 * 0.7_f64.sin() + 0.49 * 0.7_f64.cos();
    assert!((y.tangent - expected).abs() < 1e-15);
    // d/dx [x^x] = x^x (ln x + 1) at x = 1.3.
    let x = Dual::input(1.3, true);
    let y = x.powf(x);
    let expected = 1.3_f64.powf(1.3) * (1.3_f64.ln() + 1.0);
    assert!((y.tangent - expected).abs() < 1e-14);
    // σ'(x) = σ(x)(1 − σ(x)).
    for v in [-4.0, -0.3, 0.0, 2.5] {
        let s = 1.0 / (1.0 + f64::exp(-v));
        let y = Dual::input(v, true).sigmoid();
        assert!((y.tangent - s * (1.0 - s)).abs() < 1e-15);
    }
    // Cancellation: x − x has tangent 0 and magnitude 2.
    let x = Dual::input(3.0, true);
    let y = x.sub(x);
    assert_eq!((y.tangent, y.magnitude), (0.0, 2.0));
    // ∂hypot(x, y)/∂x = x / hypot(x, y) at (3, 4); an f64 operand is a constant.
    let y = Dual::input(3.0, true).hypot(Dual::constant(4.0));
    assert_eq!((y.value, y.tangent), (5.0, 0.6));
    let y = (Dual::input(3.0, true) * 2.0 - 1.0) / 5.0 + 1.0;
    assert_eq!((y.value, y.tangent), (2.0, 0.4));
}
