//! What every view of a pass shares: [`TapeView`] and its [`RenderLimits`],
//! the [`Model`] a full rendering reads, unique display names, and the words
//! written in a summary, a node box and on an edge arrow.
//!
//! The renderers add their own methods to [`TapeView`] in their files
//! (`table.rs`, `dot.rs`, `svg.rs`); each goes through [`TapeView::full_or_summary`],
//! which decides between the full drawing and the summary once.

use std::collections::HashMap;
use std::fmt;

use super::numbers::Numbers;
use crate::error::Label;
use crate::ledger::{BackwardEdge, BackwardNode, BackwardPass, PassSummary};

/// How large a graph a view draws in full before it prints a summary instead.
///
/// ```
/// use autodiff_core::{RenderLimits, Tape};
///
/// let tape = Tape::new();
/// let x = tape.variable(2.0)?;
/// let y = x.mul(x)?;
/// let pass = y.backward()?;
/// let tight = RenderLimits { max_nodes: 1, ..RenderLimits::default() };
/// assert!(pass.view().limits(tight).text().contains("too large to list"));
/// assert!(pass.to_text().contains("reverse ledger"));
/// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderLimits {
    /// The most reached nodes drawn in full.
    pub max_nodes: usize,
    /// The most operand edges drawn in full.
    pub max_edges: usize,
    /// How many of the largest pass adjoints a summary lists.
    pub largest_adjoints: usize,
}

impl RenderLimits {
    /// 200 nodes, 400 edges, 5 adjoints in a summary: a ledger a person can
    /// still scroll through, a picture a browser still draws at once.
    pub const DEFAULT: Self = Self {
        max_nodes: 200,
        max_edges: 400,
        largest_adjoints: 5,
    };
}

impl Default for RenderLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A bounded view of a [`BackwardPass`], made by [`BackwardPass::view`]:
/// set limits and number format, then ask for text, Markdown, DOT or SVG.
///
/// ```
/// use autodiff_core::{Label, Numbers, Tape};
///
/// let tape = Tape::new();
/// let x = tape.variable(2.0)?.labeled(Label::named("x"));
/// let square = x.mul(x)?.labeled(Label::named("square"));
/// let pass = square.backward()?;
/// let text = pass.view().numbers(Numbers::Significant(3)).text();
/// assert!(text.starts_with("reverse pass from square = 4, seed 1: 2 nodes, 2 operand edges"));
/// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TapeView<'p, 't> {
    pass: &'p BackwardPass<'t>,
    pub(super) limits: RenderLimits,
    numbers: Option<Numbers>,
}

impl<'t> BackwardPass<'t> {
    /// A view of this pass with the default limits and number formats.
    pub fn view(&self) -> TapeView<'_, 't> {
        TapeView {
            pass: self,
            limits: RenderLimits::DEFAULT,
            numbers: None,
        }
    }

    /// Node cards and reverse ledger as aligned plain text (see [`TapeView::text`]).
    pub fn to_text(&self) -> String {
        self.view().text()
    }

    /// Node cards and reverse ledger as Markdown tables (see [`TapeView::markdown`]).
    pub fn to_markdown(&self) -> String {
        self.view().markdown()
    }

    /// The graph as Graphviz DOT (see [`TapeView::dot`]).
    pub fn to_dot(&self) -> String {
        self.view().dot()
    }

    /// The graph as a self-contained SVG (see [`TapeView::svg`]).
    pub fn to_svg(&self) -> String {
        self.view().svg()
    }
}

/// The plain-text ledger with the default limits, so `println!("{pass}")`
/// shows the tape.
impl fmt::Display for BackwardPass<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.to_text())
    }
}

impl TapeView<'_, '_> {
    /// Sets the size past which views print a summary.
    #[must_use]
    pub fn limits(mut self, limits: RenderLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the number format for every view (by default text and Markdown
    /// use `Fixed(12)` like chapter 14, pictures `Significant(6)`).
    #[must_use]
    pub fn numbers(mut self, numbers: Numbers) -> Self {
        self.numbers = Some(numbers);
        self
    }

    /// The counts and largest adjoints of the pass, and whether they fit the limits.
    pub fn summary(&self) -> (PassSummary, bool) {
        let summary = self.pass.summary(self.limits.largest_adjoints);
        let fits = summary.nodes <= self.limits.max_nodes && summary.edges <= self.limits.max_edges;
        (summary, fits)
    }

    pub(super) fn table_numbers(&self) -> Numbers {
        self.numbers.unwrap_or(Numbers::TABLE)
    }

    pub(super) fn picture_numbers(&self) -> Numbers {
        self.numbers.unwrap_or(Numbers::PICTURE)
    }

    /// The outline of every view: within the limits, `full` renders the
    /// gathered model; past them, `too_large` renders the summary's lines
    /// (and the model, which can be huge, is never gathered).
    pub(super) fn full_or_summary(
        &self,
        numbers: Numbers,
        too_large: impl FnOnce(Vec<String>) -> String,
        full: impl FnOnce(&Model, &PassSummary) -> String,
    ) -> String {
        let (summary, fits) = self.summary();
        if fits {
            full(&Model::new(self.pass), &summary)
        } else {
            too_large(self.summary_lines(&summary, numbers))
        }
    }

    fn summary_lines(&self, summary: &PassSummary, numbers: Numbers) -> Vec<String> {
        let limits = self.limits;
        let output = summary_name(summary.output, summary.output_label, summary);
        let mut lines = vec![
            headline(&output, summary.output_value, summary.seed, numbers),
            format!(
                "too large to list: {} nodes (limit {}), {} operand edges (limit {})",
                summary.nodes, limits.max_nodes, summary.edges, limits.max_edges
            ),
            format!(
                "reached: tracked nodes {}, leaves {}",
                summary.tracked_nodes, summary.leaves
            ),
        ];
        if !summary.largest_adjoints.is_empty() {
            lines.push(format!(
                "largest pass adjoints: {}",
                summary
                    .largest_adjoints
                    .iter()
                    .map(|&(index, label, adjoint)| format!(
                        "{} {}",
                        summary_name(index, label, summary),
                        numbers.format(adjoint)
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        lines.push("raise RenderLimits to see every row".to_owned());
        lines
    }
}

/// Everything a full rendering reads, gathered once.
pub(super) struct Model {
    pub(super) nodes: Vec<BackwardNode>,
    pub(super) edges: Vec<BackwardEdge>,
    /// Display names aligned with `nodes`.
    pub(super) names: Vec<String>,
    /// Tape index to position in `nodes`.
    pub(super) row: HashMap<usize, usize>,
    pub(super) output: usize,
    pub(super) seed: f64,
}

impl Model {
    fn new(pass: &BackwardPass<'_>) -> Self {
        let nodes = pass.nodes();
        let names = unique_names(
            nodes
                .iter()
                .map(|node| (node.index, node.name(), node.label.is_some())),
        );
        let row = nodes
            .iter()
            .enumerate()
            .map(|(row, node)| (node.index, row))
            .collect();
        Self {
            edges: pass.edges(),
            nodes,
            names,
            row,
            output: pass.output(),
            seed: pass.seed(),
        }
    }

    pub(super) fn name(&self, index: usize) -> &str {
        self.row.get(&index).map_or("?", |&row| &self.names[row])
    }

    pub(super) fn node(&self, index: usize) -> Option<&BackwardNode> {
        self.row.get(&index).map(|&row| &self.nodes[row])
    }

    /// The first line of the tables and the picture: which pass, and how large.
    pub(super) fn headline(&self, name: &str, output_value: f64, numbers: Numbers) -> String {
        format!(
            "{}: {} nodes, {} operand edges",
            headline(name, output_value, self.seed, numbers),
            self.nodes.len(),
            self.edges.len()
        )
    }

    /// What a node's box says: name, operation and value, adjoint.
    pub(super) fn node_lines(
        &self,
        node: &BackwardNode,
        name: &str,
        numbers: Numbers,
    ) -> [String; 3] {
        let adjoint = match node.pass_adjoint {
            Some(adjoint) if node.index == self.output => {
                format!("adjoint {} (seed)", numbers.format(adjoint))
            }
            Some(adjoint) => format!("adjoint {}", numbers.format(adjoint)),
            None => "untracked".to_owned(),
        };
        [
            name.to_owned(),
            format!("{} = {}", node.operation, numbers.format(node.value)),
            adjoint,
        ]
    }

    /// Whether the consumer of `edge` is tracked: only then did the pass
    /// send an upstream adjoint along it.
    pub(super) fn tracked_child(&self, edge: &BackwardEdge) -> bool {
        self.node(edge.child).is_some_and(|n| n.tracked)
    }

    /// What an edge's arrow says: `use k: local × upstream = contribution`.
    pub(super) fn edge_label(&self, edge: &BackwardEdge, numbers: Numbers) -> String {
        if edge.parent_tracked && self.tracked_child(edge) {
            format!(
                "use {}: {} × {} = {}",
                edge.operand,
                numbers.format(edge.local_derivative),
                numbers.format(edge.upstream),
                numbers.format(edge.contribution)
            )
        } else {
            format!(
                "use {}: {} (untracked, skipped)",
                edge.operand,
                numbers.format(edge.local_derivative)
            )
        }
    }
}

fn headline(name: &str, output_value: f64, seed: f64, numbers: Numbers) -> String {
    format!(
        "reverse pass from {name} = {}, seed {}",
        numbers.format(output_value),
        numbers.format(seed)
    )
}

/// Labels as names, with `#index` appended where two nodes share a label
/// (a shadowed binding), so that every row names exactly one node.
pub(super) fn unique_names(entries: impl Iterator<Item = (usize, String, bool)>) -> Vec<String> {
    let entries: Vec<_> = entries
        .map(|(index, name, labeled)| (index, one_line(&name), labeled))
        .collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (_, name, labeled) in &entries {
        if *labeled {
            *count.entry(name.as_str()).or_default() += 1;
        }
    }
    entries
        .iter()
        .map(|(index, name, labeled)| {
            if *labeled && count[name.as_str()] > 1 {
                format!("{name}#{index}")
            } else {
                name.clone()
            }
        })
        .collect()
}

fn summary_name(index: usize, label: Option<Label>, summary: &PassSummary) -> String {
    match label {
        Some(label) => format!("{} (#{index})", one_line(label.text)),
        None if index == summary.output => format!("#{index} {}", summary.output_operation),
        None => format!("#{index}"),
    }
}

/// A label may be multi-line source text; a table row or a box line needs it
/// on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Copies `text` with each character that `replace` names written as its
/// replacement: the one loop behind DOT's and XML's escaping.
pub(super) fn escape_with(text: &str, replace: impl Fn(char) -> Option<&'static str>) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match replace(c) {
            Some(replacement) => escaped.push_str(replacement),
            None => escaped.push(c),
        }
    }
    escaped
}
