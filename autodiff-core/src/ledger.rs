//! The ledger of one reverse pass, derived on demand.
//!
//! A [`BackwardPass`] keeps only the pass adjoints it computed anyway; its
//! node and edge rows are rebuilt from the tape when somebody asks, so a
//! million-node pass costs nothing extra when nobody reads the ledger.

use crate::error::Label;
use crate::operation::ScalarOperation;
use crate::tape::Tape;

/// One reverse pass: the seed, its output, and the pass-local adjoints.
pub struct BackwardPass<'t> {
    tape: &'t Tape,
    output: usize,
    seed: f64,
    /// Pass adjoint of every node up to the output; 0 where the pass did not reach.
    adjoints: Vec<f64>,
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
    pub(crate) fn new(tape: &'t Tape, output: usize, seed: f64, adjoints: Vec<f64>) -> Self {
        Self {
            tape,
            output,
            seed,
            adjoints,
        }
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
        let reach = self.reach();
        let info = self.tape.nodes.borrow();
        (*reach.get(index)? && info.info[index].tracked).then(|| self.adjoints[index])
    }

    /// Which nodes the output reaches through any edge, tracked or not.
    fn reach(&self) -> Vec<bool> {
        let nodes = self.tape.nodes.borrow();
        let mut reached = vec![false; self.output + 1];
        reached[self.output] = true;
        for node in (0..=self.output).rev() {
            if reached[node] {
                for slot in 0..2 {
                    if let Some((parent, _)) = nodes.edges[node].parent(slot) {
                        reached[parent] = true;
                    }
                }
            }
        }
        reached
    }

    /// Every node the output reaches (tracked or not), in forward order.
    pub fn nodes(&self) -> Vec<BackwardNode> {
        let reach = self.reach();
        let nodes = self.tape.nodes.borrow();
        (0..=self.output)
            .filter(|&index| reach[index])
            .map(|index| {
                let info = nodes.info[index];
                let edges = nodes.edges[index];
                BackwardNode {
                    index,
                    operation: info.operation,
                    value: info.value,
                    tracked: info.tracked,
                    pass_adjoint: info.tracked.then_some(self.adjoints[index]),
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
        let nodes = self.tape.nodes.borrow();
        let mut running = vec![0.0_f64; self.output + 1];
        running[self.output] = self.seed;
        let mut rows = Vec::new();
        for child in (0..=self.output).rev() {
            if !reach[child] {
                continue;
            }
            let edges = nodes.edges[child];
            let upstream = if nodes.info[child].tracked {
                self.adjoints[child]
            } else {
                0.0
            };
            for operand in 0..2 {
                let Some((parent, parent_tracked)) = edges.parent(operand) else {
                    continue;
                };
                let local_derivative = edges.derivatives[operand];
                let contribution = upstream * local_derivative;
                let (before, after) = if parent_tracked {
                    let before = running[parent];
                    running[parent] = before + contribution;
                    (Some(before), Some(running[parent]))
                } else {
                    (None, None)
                };
                rows.push(BackwardEdge {
                    reverse_index: rows.len(),
                    child,
                    operand,
                    parent,
                    local_derivative,
                    upstream,
                    contribution,
                    parent_tracked,
                    parent_adjoint_before: before,
                    parent_adjoint_after: after,
                });
            }
        }
        rows
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
