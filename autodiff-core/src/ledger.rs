//! The ledger of one reverse pass, derived on demand.
//!
//! A [`BackwardPass`] keeps only its output and seed; its adjoints, node
//! rows and edge rows are rebuilt from the tape by the textbook
//! [`replay`](crate::replay) when somebody asks, so a million-node pass
//! costs nothing extra when nobody reads the ledger.
//!
//! Each method reads the tape under one shared guard that lives inside the
//! method and calls no user code, which is what its `// SAFETY:` comments
//! say.

use std::cell::OnceCell;
use std::ops::ControlFlow;

use crate::error::Label;
use crate::operation::ScalarOperation;
use crate::replay::replay;
use crate::tape::Tape;

/// One reverse pass: the seed and its output, from which the pass-local
/// adjoints are derived again when first asked for.
pub struct BackwardPass<'t> {
    tape: &'t Tape,
    output: usize,
    seed: f64,
    /// Pass adjoint of every node up to the output; 0 where the pass did not
    /// reach. Replayed from the tape on the first question that needs it:
    /// the pass is a pure function of the edges up to the output, which no
    /// later recording changes and no `clear` can reach while the pass
    /// borrows the tape, so the replay is bit for bit the pass that ran.
    adjoints: OnceCell<Vec<f64>>,
    /// Which nodes the output reaches, found on the first question that
    /// needs it: asking `pass_adjoint` for every node stays linear.
    reach: OnceCell<Vec<bool>>,
}

/// One node the output reaches, in forward (creation) order.
#[derive(Clone, Debug, PartialEq)]
pub struct BackwardNode {
    /// The node's tape index (its forward order).
    pub index: usize,
    /// The operation that made it.
    pub operation: ScalarOperation,
    /// Its primal value.
    pub value: f64,
    /// Whether it tracks a gradient.
    pub tracked: bool,
    /// Its adjoint in this pass; `None` for constants and detached values.
    pub pass_adjoint: Option<f64>,
    /// Its stored gradient as the tape holds it when the ledger is read.
    pub stored_gradient: Option<f64>,
    /// Its label, if it has one.
    pub label: Option<Label>,
    /// The tape indices of its operands, one per operand edge, in slot order.
    pub operands: Vec<usize>,
}

/// One operand edge, in the order the reverse pass visited it.
#[derive(Clone, Debug, PartialEq)]
pub struct BackwardEdge {
    /// Position in the reverse visit (0 is the first edge processed).
    pub reverse_index: usize,
    /// The consuming node (tape index).
    pub child: usize,
    /// The operand slot in the consumer (0 or 1).
    pub operand: usize,
    /// The operand node (tape index).
    pub parent: usize,
    /// The consumer's local derivative with respect to this operand occurrence.
    pub local_derivative: f64,
    /// The consumer's pass adjoint.
    pub upstream: f64,
    /// `upstream * local_derivative`.
    pub contribution: f64,
    /// Whether the operand tracks a gradient (if not, nothing was added).
    pub parent_tracked: bool,
    /// The operand's pass adjoint before this edge added its contribution.
    pub parent_adjoint_before: Option<f64>,
    /// The operand's pass adjoint after it.
    pub parent_adjoint_after: Option<f64>,
}

impl<'t> BackwardPass<'t> {
    pub(crate) fn new(tape: &'t Tape, output: usize, seed: f64) -> Self {
        Self {
            tape,
            output,
            seed,
            adjoints: OnceCell::new(),
            reach: OnceCell::new(),
        }
    }

    /// The pass adjoints, replayed on first use.
    fn adjoints(&self) -> &[f64] {
        self.adjoints
            .get_or_init(|| self.tape.pass_adjoints(self.output, self.seed))
    }

    /// The seed installed at the output.
    pub fn seed(&self) -> f64 {
        self.seed
    }

    /// The output's tape index.
    pub fn output(&self) -> usize {
        self.output
    }

    /// The tape this pass ran on.
    pub fn tape(&self) -> &'t Tape {
        self.tape
    }

    /// The pass adjoint of the node at `index`: `None` if the node is not
    /// tracked or the output does not reach it.
    pub fn pass_adjoint(&self, index: usize) -> Option<f64> {
        if !*self.reach().get(index)? {
            return None;
        }
        let adjoint = self.adjoints()[index];
        // SAFETY: the guard lives for this expression, which calls only
        // `Nodes::tracked`.
        let tracked = unsafe { self.tape.read() }.tracked(index);
        tracked.then_some(adjoint)
    }

    /// Which nodes the output reaches through any edge, tracked or not.
    fn reach(&self) -> &[bool] {
        self.reach.get_or_init(|| self.find_reach())
    }

    fn find_reach(&self) -> Vec<bool> {
        // SAFETY: the guard lives for this function, which calls only
        // `Nodes` and `Edges` methods.
        unsafe { self.tape.read() }.reached_from(self.output, false)
    }

    /// Every node the output reaches (tracked or not), in forward order.
    pub fn nodes(&self) -> Vec<BackwardNode> {
        let reach = self.reach();
        let adjoints = self.adjoints();
        // SAFETY: the guard lives for this function, which calls only
        // `Nodes` and `Edges` methods.
        let nodes = unsafe { self.tape.read() };
        (0..=self.output)
            .filter(|&index| reach[index])
            .map(|index| {
                let info = nodes.info(index);
                let edges = nodes.edges()[index];
                BackwardNode {
                    index,
                    operation: info.operation,
                    value: info.value,
                    tracked: info.tracked,
                    pass_adjoint: info.tracked.then_some(adjoints[index]),
                    stored_gradient: info.tracked.then_some(info.gradient),
                    label: info.label(),
                    operands: (0..2)
                        .filter_map(|slot| edges.parent(slot).map(|(parent, _)| parent))
                        .collect(),
                }
            })
            .collect()
    }

    /// Every operand edge of every reached node, in the order the pass
    /// visited them (consumers from last to first, operand slots in order),
    /// replaying how each contribution moved its operand's adjoint.
    pub fn edges(&self) -> Vec<BackwardEdge> {
        let reach = self.reach();
        // SAFETY: the guard lives for this function, which calls only
        // `Nodes` methods and `replay` with a visitor that only pushes rows.
        let mut nodes = unsafe { self.tape.write() };
        let mut running = nodes.seeded_adjoints(self.output, self.seed);
        let mut rows = Vec::new();
        let _: ControlFlow<()> = replay(&nodes.edges()[..=self.output], &mut running, |step| {
            if reach[step.child] {
                let tracked = step.parent_tracked;
                rows.push(BackwardEdge {
                    reverse_index: rows.len(),
                    child: step.child,
                    operand: step.operand,
                    parent: step.parent,
                    local_derivative: step.local_derivative,
                    upstream: step.upstream,
                    contribution: step.contribution,
                    parent_tracked: tracked,
                    parent_adjoint_before: tracked.then_some(step.before),
                    parent_adjoint_after: tracked.then_some(step.after),
                });
            }
            ControlFlow::Continue(())
        });
        nodes.keep_adjoints(running);
        rows
    }
}

impl BackwardNode {
    /// How the ledger names this node: its label's text, or `#index operation`
    /// (`#1 mul`) when it has none.
    ///
    /// ```
    /// use autodiff_core::{Label, Tape};
    ///
    /// let tape = Tape::new();
    /// let x = tape.variable(2.0)?.labeled(Label::named("x"));
    /// let y = x.mul(x)?;
    /// let names: Vec<String> = y.backward()?.nodes().iter().map(|n| n.name()).collect();
    /// assert_eq!(names, ["x", "#1 mul"]);
    /// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
    /// ```
    pub fn name(&self) -> String {
        match self.label {
            Some(label) => label.text.to_owned(),
            None => format!("#{} {}", self.index, self.operation),
        }
    }
}

/// The size of a reverse pass and where its adjoints are largest: what a
/// renderer prints instead of the full ledger when a graph is too big to read.
#[derive(Clone, Debug, PartialEq)]
pub struct PassSummary {
    /// Nodes the output reaches, tracked or not.
    pub nodes: usize,
    /// How many of those track a gradient.
    pub tracked_nodes: usize,
    /// Operand edges of the reached nodes (one per operand occurrence).
    pub edges: usize,
    /// Reached leaves (variables, constants, detached values).
    pub leaves: usize,
    /// The output's tape index.
    pub output: usize,
    /// The output's operation.
    pub output_operation: ScalarOperation,
    /// The output's primal value.
    pub output_value: f64,
    /// The output's label, if any.
    pub output_label: Option<Label>,
    /// The seed of the pass.
    pub seed: f64,
    /// The tracked nodes with the largest pass adjoints in magnitude, largest
    /// first, as `(tape index, label, pass adjoint)`; ties keep forward order.
    pub largest_adjoints: Vec<(usize, Option<Label>, f64)>,
}

impl BackwardPass<'_> {
    /// Counts the reached nodes and edges and picks the `largest` tracked
    /// nodes by pass-adjoint magnitude, in one sweep that allocates one flag
    /// per node and never builds the row vectors, so it stays cheap on a
    /// million-node pass.
    ///
    /// ```
    /// use autodiff_core::Tape;
    ///
    /// let tape = Tape::new();
    /// let x = tape.variable(2.0)?;
    /// let square = x.mul(x)?;
    /// let loss = square.add(square)?;
    /// let summary = loss.backward()?.summary(1);
    /// assert_eq!((summary.nodes, summary.edges), (3, 4));
    /// assert_eq!(summary.largest_adjoints[0].2, 8.0); // dloss/dx = 4x
    /// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
    /// ```
    pub fn summary(&self, largest: usize) -> PassSummary {
        let reach = self.reach();
        let adjoints = self.adjoints();
        // SAFETY: the guard lives for this function, which calls only
        // `Nodes` and `Edges` methods.
        let nodes = unsafe { self.tape.read() };
        let out = nodes.info(self.output);
        let mut summary = PassSummary {
            nodes: 0,
            tracked_nodes: 0,
            edges: 0,
            leaves: 0,
            output: self.output,
            output_operation: out.operation,
            output_value: out.value,
            output_label: out.label(),
            seed: self.seed,
            largest_adjoints: Vec::with_capacity(largest.min(64)),
        };
        // Kept sorted by descending magnitude; `largest` is small, so an
        // insertion into a short vector beats a heap and keeps ties stable.
        let top = &mut summary.largest_adjoints;
        for (index, &reached) in reach.iter().enumerate() {
            if !reached {
                continue;
            }
            let info = nodes.info(index);
            let edges = nodes.edges()[index];
            summary.nodes += 1;
            let operands = (0..2).filter(|&slot| edges.parent(slot).is_some()).count();
            summary.edges += operands;
            summary.leaves += usize::from(operands == 0 && info.operation.is_leaf());
            if !info.tracked {
                continue;
            }
            summary.tracked_nodes += 1;
            let adjoint = adjoints[index];
            let position = top.partition_point(|entry| entry.2.abs() >= adjoint.abs());
            if position < largest {
                if top.len() == largest {
                    top.pop();
                }
                top.insert(position, (index, info.label(), adjoint));
            }
        }
        summary
    }
}

impl Drop for BackwardPass<'_> {
    /// Hands a replayed adjoint buffer back to the tape, so that the next
    /// pass fills memory it already has instead of fresh pages from the
    /// operating system.
    fn drop(&mut self) {
        if let Some(adjoints) = self.adjoints.take() {
            self.tape.recycle_adjoints(adjoints);
        }
    }
}

impl std::fmt::Debug for BackwardPass<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("BackwardPass")
            .field("output", &self.output)
            .field("seed", &self.seed)
            .finish_non_exhaustive()
    }
}
