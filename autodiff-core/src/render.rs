//! Seeing the tape: chapter 14's node cards and reverse ledger as aligned
//! text or Markdown, the graph as Graphviz DOT or a self-contained SVG, and a
//! [`Timeline`] of stored gradients across repeated passes.
//!
//! Every view of a [`BackwardPass`] is bounded by [`RenderLimits`]: past the
//! limit it prints a [`PassSummary`] (counts, the output, the largest
//! adjoints) instead of a multi-megabyte dump. The SVG comes from our own
//! small layered layout, so a fresh machine needs no Graphviz install.

use std::collections::HashMap;
use std::fmt::{self, Write as _};

use crate::ledger::{BackwardEdge, BackwardNode, BackwardPass, PassSummary};
use crate::tape::Scalar;

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

/// How numbers are written.
///
/// ```
/// use autodiff_core::Numbers;
///
/// assert_eq!(Numbers::Fixed(3).format(2.0), "2.000");
/// assert_eq!(Numbers::Significant(4).format(1.587431271430), "1.587");
/// assert_eq!(Numbers::Significant(4).format(8.0), "8");
/// assert_eq!(Numbers::Significant(3).format(1.5e-9), "1.5e-9");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbers {
    /// A fixed number of decimals, as chapter 14 prints (`8.000000000000`);
    /// at most 30.
    Fixed(usize),
    /// At most this many significant digits, trailing zeros dropped (`8`,
    /// `1.58743`), switching to exponent form for very large or small values;
    /// between 1 and 17 digits.
    Significant(usize),
}

impl Numbers {
    /// Writes `value` in this format. NaN and infinities print as Rust does.
    pub fn format(self, value: f64) -> String {
        match self {
            // Past these, digits only restate the binary expansion, and a
            // huge request would allocate without bound.
            Self::Fixed(decimals) => {
                let decimals = decimals.min(MAX_DECIMALS);
                format!("{value:.decimals$}")
            }
            Self::Significant(digits) => significant(value, digits.clamp(1, 17)),
        }
    }
}

/// The most decimals [`Numbers::Fixed`] writes.
const MAX_DECIMALS: usize = 30;

fn significant(value: f64, digits: usize) -> String {
    if value == 0.0 {
        return "0".to_owned();
    }
    if !value.is_finite() {
        return format!("{value}");
    }
    let magnitude = value.abs().log10().floor();
    if (-4.0..6.0).contains(&magnitude) {
        let decimals = (digits as f64 - 1.0 - magnitude).max(0.0) as usize;
        trim_zeros(format!("{value:.decimals$}"))
    } else {
        let text = format!("{value:.*e}", digits - 1);
        match text.split_once('e') {
            Some((mantissa, exponent)) => format!("{}e{exponent}", trim_zeros(mantissa.to_owned())),
            None => text,
        }
    }
}

fn trim_zeros(text: String) -> String {
    if !text.contains('.') {
        return text;
    }
    let trimmed = text.trim_end_matches('0').trim_end_matches('.');
    // `-0.0000001` at 4 decimals rounds to `-0`, which reads as a sign error.
    if trimmed == "-0" {
        "0".to_owned()
    } else {
        trimmed.to_owned()
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
    limits: RenderLimits,
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

/// Everything a full rendering reads, gathered once.
struct Model {
    nodes: Vec<BackwardNode>,
    edges: Vec<BackwardEdge>,
    /// Display names aligned with `nodes`.
    names: Vec<String>,
    /// Tape index to position in `nodes`.
    row: HashMap<usize, usize>,
    output: usize,
    seed: f64,
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

    fn name(&self, index: usize) -> &str {
        self.row.get(&index).map_or("?", |&row| &self.names[row])
    }

    fn node(&self, index: usize) -> Option<&BackwardNode> {
        self.row.get(&index).map(|&row| &self.nodes[row])
    }
}

/// Labels as names, with `#index` appended where two nodes share a label
/// (a shadowed binding), so that every row names exactly one node.
fn unique_names(entries: impl Iterator<Item = (usize, String, bool)>) -> Vec<String> {
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

fn summary_name(index: usize, label: Option<crate::error::Label>, summary: &PassSummary) -> String {
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

/// A table that prints as aligned text or as Markdown.
struct Table {
    headers: Vec<String>,
    numeric: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn new(columns: &[(&str, bool)]) -> Self {
        Self {
            headers: columns.iter().map(|c| c.0.to_owned()).collect(),
            numeric: columns.iter().map(|c| c.1).collect(),
            rows: Vec::new(),
        }
    }

    fn text(&self, out: &mut String) {
        let width = |text: &str| text.chars().count();
        let mut widths: Vec<usize> = self.headers.iter().map(|h| width(h)).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(width(cell));
            }
        }
        let mut line = |cells: &mut dyn Iterator<Item = &str>, numeric_right: bool| {
            let mut text = String::new();
            for (column, cell) in cells.enumerate() {
                if column > 0 {
                    text.push_str("  ");
                }
                let pad = widths[column] - width(cell);
                if numeric_right && self.numeric[column] {
                    text.extend(std::iter::repeat_n(' ', pad));
                    text.push_str(cell);
                } else {
                    text.push_str(cell);
                    text.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push_str(text.trim_end());
            out.push('\n');
        };
        line(&mut self.headers.iter().map(String::as_str), true);
        for row in &self.rows {
            line(&mut row.iter().map(String::as_str), true);
        }
    }

    fn markdown(&self, out: &mut String) {
        out.push('|');
        for header in &self.headers {
            let _ = write!(out, " {} |", markdown_cell(header));
        }
        out.push_str("\n|");
        for &numeric in &self.numeric {
            out.push_str(if numeric { "---:|" } else { "---|" });
        }
        out.push('\n');
        for row in &self.rows {
            out.push('|');
            for cell in row {
                let _ = write!(out, " {} |", markdown_cell(cell));
            }
            out.push('\n');
        }
    }
}

/// Escapes what would end a Markdown table cell or start markup.
fn markdown_cell(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '|' | '\\' | '`' | '*' | '_' | '<' | '>' | '[' | ']') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

impl<'p, 't> TapeView<'p, 't> {
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

    fn table_numbers(&self) -> Numbers {
        self.numbers.unwrap_or(Numbers::Fixed(12))
    }

    fn picture_numbers(&self) -> Numbers {
        self.numbers.unwrap_or(Numbers::Significant(6))
    }

    /// Chapter 14's two views as aligned plain text: node cards in forward
    /// order (operation, value, pass adjoint, stored gradient, operand uses)
    /// and the reverse ledger, one row per operand edge in the order the pass
    /// visited them (consumer, operand use, operand, its value, local
    /// derivative, upstream adjoint, contribution, the operand's pass adjoint
    /// after adding it). Past the limits, a summary.
    ///
    /// ```
    /// use autodiff_core::{Label, Tape};
    ///
    /// let tape = Tape::new();
    /// let x = tape.variable(2.0)?.labeled(Label::named("x"));
    /// let square = x.mul(x)?.labeled(Label::named("square"));
    /// let loss = square.add(square)?.labeled(Label::named("loss"));
    /// let text = loss.backward()?.view().text();
    /// // The second edge from `square` into `x` lifts x's adjoint from 4 to 8.
    /// assert!(text.lines().any(|row| row.split_whitespace().collect::<Vec<_>>()
    ///     == ["3", "square", "1", "x", "2.000000000000", "2.000000000000",
    ///         "2.000000000000", "4.000000000000", "8.000000000000"]));
    /// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
    /// ```
    pub fn text(&self) -> String {
        self.tables(false)
    }

    /// The same two tables as [`text`](Self::text), as GitHub-flavoured
    /// Markdown (numeric columns right-aligned, markup in names escaped);
    /// past the limits, a summary.
    pub fn markdown(&self) -> String {
        self.tables(true)
    }

    /// Node cards and reverse ledger as plain text or Markdown, or the
    /// summary past the limits.
    fn tables(&self, markdown: bool) -> String {
        let (summary, fits) = self.summary();
        let mut out = String::new();
        if !fits {
            self.summary_text(&summary, &mut out, markdown);
            return out;
        }
        let model = Model::new(self.pass);
        let numbers = self.table_numbers();
        self.header(&model, &summary, numbers, &mut out, markdown);
        let (nodes_title, edges_title) = if markdown {
            (
                "\n**Node cards**, forward order\n\n",
                "\n**Reverse ledger**, one row per operand edge\n\n",
            )
        } else {
            (
                "\nnode cards, forward order\n",
                "\nreverse ledger, one row per operand edge\n",
            )
        };
        for (title, table) in [
            (nodes_title, self.node_table(&model, numbers)),
            (edges_title, self.edge_table(&model, numbers)),
        ] {
            out.push_str(title);
            if markdown {
                table.markdown(&mut out);
            } else {
                table.text(&mut out);
            }
        }
        out
    }

    fn header(
        &self,
        model: &Model,
        summary: &PassSummary,
        numbers: Numbers,
        out: &mut String,
        markdown: bool,
    ) {
        let name = model.name(model.output);
        let name = if markdown {
            format!("`{}`", name.replace('`', "'"))
        } else {
            name.to_owned()
        };
        let _ = writeln!(
            out,
            "reverse pass from {name} = {}, seed {}: {} nodes, {} operand edges",
            numbers.format(summary.output_value),
            numbers.format(model.seed),
            summary.nodes,
            summary.edges
        );
    }

    fn node_table(&self, model: &Model, numbers: Numbers) -> Table {
        let mut table = Table::new(&[
            ("order", true),
            ("name", false),
            ("operation", false),
            ("value", true),
            ("pass adjoint", true),
            ("stored gradient", true),
            ("operand uses", false),
        ]);
        let untracked = || "untracked".to_owned();
        for (node, name) in model.nodes.iter().zip(&model.names) {
            let uses: Vec<&str> = node
                .operands
                .iter()
                .map(|&parent| model.name(parent))
                .collect();
            table.rows.push(vec![
                node.index.to_string(),
                name.clone(),
                node.operation.to_string(),
                numbers.format(node.value),
                node.pass_adjoint
                    .map_or_else(untracked, |a| numbers.format(a)),
                node.stored_gradient
                    .map_or_else(untracked, |g| numbers.format(g)),
                uses.join(", "),
            ]);
        }
        table
    }

    fn edge_table(&self, model: &Model, numbers: Numbers) -> Table {
        let mut table = Table::new(&[
            ("reverse", true),
            ("consumer", false),
            ("use", true),
            ("operand", false),
            ("operand value", true),
            ("local derivative", true),
            ("upstream adjoint", true),
            ("contribution", true),
            ("operand adjoint after", true),
        ]);
        for edge in &model.edges {
            let tracked_child = model.node(edge.child).is_some_and(|n| n.tracked);
            let dash = |tracked: bool, value: f64| {
                if tracked {
                    numbers.format(value)
                } else {
                    "-".to_owned()
                }
            };
            table.rows.push(vec![
                edge.reverse_index.to_string(),
                model.name(edge.child).to_owned(),
                edge.operand.to_string(),
                model.name(edge.parent).to_owned(),
                model
                    .node(edge.parent)
                    .map_or_else(String::new, |n| numbers.format(n.value)),
                numbers.format(edge.local_derivative),
                dash(tracked_child, edge.upstream),
                dash(tracked_child && edge.parent_tracked, edge.contribution),
                edge.parent_adjoint_after
                    .map_or_else(|| "skipped: untracked".to_owned(), |a| numbers.format(a)),
            ]);
        }
        table
    }

    fn summary_lines(&self, summary: &PassSummary, numbers: Numbers) -> Vec<String> {
        let limits = self.limits;
        let output = summary_name(summary.output, summary.output_label, summary);
        let mut lines = vec![
            format!(
                "reverse pass from {output} = {}, seed {}",
                numbers.format(summary.output_value),
                numbers.format(summary.seed)
            ),
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

    fn summary_text(&self, summary: &PassSummary, out: &mut String, markdown: bool) {
        let numbers = self.table_numbers();
        for line in self.summary_lines(summary, numbers) {
            if markdown {
                let _ = writeln!(out, "{}  ", markdown_cell(&line));
            } else {
                let _ = writeln!(out, "{line}");
            }
        }
    }

    /// The graph as Graphviz DOT: one box per reached node (name, operation
    /// and value, adjoint in this pass) and one arrow per operand edge, from
    /// operand to consumer (`x * x` draws two), labelled
    /// `use k: local × upstream = contribution`. Untracked nodes and the
    /// edges that skip them are dashed. Past the limits, one note with the summary.
    ///
    /// ```
    /// use autodiff_core::Tape;
    ///
    /// let tape = Tape::new();
    /// let x = tape.variable(3.0)?;
    /// let dot = x.mul(x)?.backward()?.to_dot();
    /// assert_eq!(dot.matches("n0 -> n1").count(), 2);
    /// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
    /// ```
    pub fn dot(&self) -> String {
        let (summary, fits) = self.summary();
        let numbers = self.picture_numbers();
        let mut out = String::from("digraph tape {\n  rankdir=LR;\n");
        out.push_str("  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eaf2fb\", fontname=\"monospace\"];\n");
        out.push_str("  edge [fontname=\"monospace\", fontsize=10];\n");
        if !fits {
            let text = self.summary_lines(&summary, numbers).join("\n");
            let _ = writeln!(
                out,
                "  summary [shape=note, label=\"{}\"];",
                dot_escape(&text)
            );
            out.push_str("}\n");
            return out;
        }
        let model = Model::new(self.pass);
        for (node, name) in model.nodes.iter().zip(&model.names) {
            let [first, second, third] = node_lines(node, name, &model, numbers);
            let mut attributes = format!(
                "label=\"{}\"",
                dot_escape(&format!("{first}\n{second}\n{third}"))
            );
            if !node.tracked {
                attributes.push_str(", style=\"rounded,dashed,filled\", fillcolor=\"#f2f2f2\"");
            }
            if node.index == model.output {
                attributes.push_str(", penwidth=2");
            }
            let _ = writeln!(out, "  n{} [{attributes}];", node.index);
        }
        for edge in &model.edges {
            let label = edge_label(edge, &model, numbers);
            let style = if edge.parent_tracked {
                ""
            } else {
                ", style=dashed"
            };
            let _ = writeln!(
                out,
                "  n{} -> n{} [label=\"{}\"{style}];",
                edge.parent,
                edge.child,
                dot_escape(&label)
            );
        }
        out.push_str("}\n");
        out
    }

    /// The graph as a standalone SVG drawn by a small layered layout (leaves
    /// on the left, the output on the right, one arrow per operand edge with
    /// its own port and label), readable without Graphviz. Past the limits,
    /// a card with the summary.
    ///
    /// ```
    /// use autodiff_core::Tape;
    ///
    /// let tape = Tape::new();
    /// let x = tape.variable(3.0)?;
    /// let svg = x.mul(x)?.backward()?.to_svg();
    /// assert!(svg.starts_with("<svg"));
    /// assert_eq!(svg.matches("class=\"edge\"").count(), 2);
    /// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
    /// ```
    pub fn svg(&self) -> String {
        let (summary, fits) = self.summary();
        let numbers = self.picture_numbers();
        if !fits {
            return summary_svg(&self.summary_lines(&summary, numbers));
        }
        let model = Model::new(self.pass);
        // Routing a long edge around the columns it crosses costs one bend
        // point per column; a hub feeding a deep chain would need
        // nodes × edges of them, so past a budget long edges go direct.
        let bend_budget = self.limits.max_edges.saturating_mul(4);
        Layout::new(&model, numbers, bend_budget).svg(&model)
    }
}

fn node_lines(node: &BackwardNode, name: &str, model: &Model, numbers: Numbers) -> [String; 3] {
    let adjoint = match node.pass_adjoint {
        Some(adjoint) if node.index == model.output => {
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

fn edge_label(edge: &BackwardEdge, model: &Model, numbers: Numbers) -> String {
    let tracked_child = model.node(edge.child).is_some_and(|n| n.tracked);
    if edge.parent_tracked && tracked_child {
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

fn dot_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => escaped.push_str("\\\""),
            '\\' => escaped.push_str("\\\\"),
            '\n' => escaped.push_str("\\n"),
            c => escaped.push(c),
        }
    }
    escaped
}

fn xml_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            c => escaped.push(c),
        }
    }
    escaped
}

// SVG geometry, in pixels. The font is monospace so that text widths can be
// computed from character counts without font metrics.
const FONT: &str = "DejaVu Sans Mono, Menlo, Consolas, monospace";
const FONT_SIZE: f64 = 13.0;
const LABEL_SIZE: f64 = 12.0;
const CHAR: f64 = 0.6 * FONT_SIZE;
const LABEL_CHAR: f64 = 0.6 * LABEL_SIZE;
const LINE: f64 = 17.0;
const PAD: f64 = 9.0;
/// Vertical distance between the incoming ports of one node; room for a
/// label above each arrow.
const IN_PORT_GAP: f64 = 30.0;
const OUT_PORT_GAP: f64 = 12.0;
const NODE_GAP: f64 = 30.0;
const DUMMY_HEIGHT: f64 = 18.0;
/// Horizontal room for the curved part of an edge, left of its labels.
const CURVE: f64 = 60.0;
const MARGIN: f64 = 20.0;
const TITLE: f64 = 34.0;

/// One item in a layer: a node, or a bend point of an edge that spans layers.
#[derive(Clone, Copy)]
enum Item {
    Node(usize),
    Dummy,
}

struct Placed {
    item: Item,
    layer: usize,
    /// Items of the previous and next layer this one is joined to.
    before: Vec<usize>,
    after: Vec<usize>,
    x: f64,
    y: f64,
    width: f64,
    height: f64,
}

/// Spreads the `(edge, hop)` ports of one side of `item`, already in
/// top-to-bottom order, `gap` apart around the middle of that side and
/// `nudge` lower (a bend point has no height: its ports coincide).
fn spread_ports(
    item: &Placed,
    ports: impl ExactSizeIterator<Item = (usize, usize)>,
    gap: f64,
    nudge: f64,
    y: &mut HashMap<(usize, usize), f64>,
) {
    let gap = if matches!(item.item, Item::Dummy) {
        0.0
    } else {
        gap
    };
    let middle = (ports.len() as f64 - 1.0) / 2.0;
    for (k, port) in ports.enumerate() {
        y.insert(
            port,
            item.y + item.height / 2.0 + (k as f64 - middle) * gap + nudge,
        );
    }
}

struct Layout {
    /// Items, nodes first (aligned with `model.nodes`), then bend points.
    items: Vec<Placed>,
    /// Per edge (aligned with `model.edges`): the chain of items from operand to consumer.
    routes: Vec<Vec<usize>>,
    layers: Vec<Vec<usize>>,
    /// x where each layer's edge labels start, and the label text per edge.
    rail_x: Vec<f64>,
    labels: Vec<String>,
    lines: Vec<[String; 3]>,
    width: f64,
    height: f64,
    title: String,
    /// Whether long edges skip the bend points (too many to route).
    direct: bool,
}

impl Layout {
    fn new(model: &Model, numbers: Numbers, bend_budget: usize) -> Self {
        let count = model.nodes.len();
        // Longest path from the leaves: every operand sits in an earlier layer.
        let mut layer = vec![0usize; count];
        for (row, node) in model.nodes.iter().enumerate() {
            layer[row] = node
                .operands
                .iter()
                .filter_map(|parent| model.row.get(parent))
                .map(|&p| layer[p] + 1)
                .max()
                .unwrap_or(0);
        }
        // A leaf used late (a bias, a constant) moves next to its first
        // consumer instead of trailing a long edge from the left margin.
        let mut first_use = vec![usize::MAX; count];
        for (row, node) in model.nodes.iter().enumerate() {
            for parent in &node.operands {
                if let Some(&p) = model.row.get(parent) {
                    first_use[p] = first_use[p].min(layer[row]);
                }
            }
        }
        for (row, node) in model.nodes.iter().enumerate() {
            if node.operands.is_empty() && first_use[row] != usize::MAX {
                layer[row] = first_use[row] - 1;
            }
        }

        let lines: Vec<[String; 3]> = model
            .nodes
            .iter()
            .zip(&model.names)
            .map(|(node, name)| node_lines(node, name, model, numbers))
            .collect();
        let mut items: Vec<Placed> = (0..count)
            .map(|row| {
                let chars = lines[row]
                    .iter()
                    .map(|l| l.chars().count())
                    .max()
                    .unwrap_or(1);
                Placed {
                    item: Item::Node(row),
                    layer: layer[row],
                    before: Vec::new(),
                    after: Vec::new(),
                    x: 0.0,
                    y: 0.0,
                    width: chars as f64 * CHAR + 2.0 * PAD,
                    height: 0.0,
                }
            })
            .collect();

        let bends: usize = model
            .edges
            .iter()
            .filter_map(|edge| Some((*model.row.get(&edge.parent)?, *model.row.get(&edge.child)?)))
            .map(|(from, to)| layer[to].saturating_sub(layer[from] + 1))
            .sum();
        let direct = bends > bend_budget;
        let mut routes = Vec::with_capacity(model.edges.len());
        let mut labels = Vec::with_capacity(model.edges.len());
        let mut in_ports = vec![0usize; count];
        let mut out_ports = vec![0usize; count];
        for edge in &model.edges {
            let (Some(&from), Some(&to)) =
                (model.row.get(&edge.parent), model.row.get(&edge.child))
            else {
                routes.push(Vec::new());
                labels.push(String::new());
                continue;
            };
            in_ports[to] += 1;
            out_ports[from] += 1;
            let mut route = vec![from];
            let between = if direct {
                0..0
            } else {
                layer[from] + 1..layer[to]
            };
            for between in between {
                items.push(Placed {
                    item: Item::Dummy,
                    layer: between,
                    before: Vec::new(),
                    after: Vec::new(),
                    x: 0.0,
                    y: 0.0,
                    width: 0.0,
                    height: DUMMY_HEIGHT,
                });
                route.push(items.len() - 1);
            }
            route.push(to);
            for pair in route.windows(2) {
                items[pair[0]].after.push(pair[1]);
                items[pair[1]].before.push(pair[0]);
            }
            routes.push(route);
            labels.push(edge_label(edge, model, numbers));
        }
        for row in 0..count {
            let text = 3.0 * LINE + 2.0 * PAD;
            let ins = in_ports[row] as f64 * IN_PORT_GAP;
            let outs = out_ports[row] as f64 * OUT_PORT_GAP + PAD;
            items[row].height = text.max(ins).max(outs);
        }

        let depth = items.iter().map(|i| i.layer).max().unwrap_or(0) + 1;
        let mut layers: Vec<Vec<usize>> = vec![Vec::new(); depth];
        for (id, item) in items.iter().enumerate() {
            layers[item.layer].push(id);
        }
        order_layers(&mut layers, &items);

        // Columns: the widest item of each layer, preceded by room for the
        // curves and the longest label of the edges that enter it.
        let mut label_width = vec![0.0_f64; depth];
        for (route, label) in routes.iter().zip(&labels) {
            if let Some(&to) = route.last() {
                let w = label.chars().count() as f64 * LABEL_CHAR;
                label_width[items[to].layer] = label_width[items[to].layer].max(w);
            }
        }
        let mut rail_x = vec![0.0; depth];
        let mut x = MARGIN;
        for (column, ids) in layers.iter().enumerate() {
            if column > 0 {
                x += CURVE;
                rail_x[column] = x;
                x += label_width[column] + 14.0;
            }
            let width = ids.iter().map(|&id| items[id].width).fold(0.0, f64::max);
            for &id in ids {
                items[id].x = x + (width - items[id].width) / 2.0;
                if matches!(items[id].item, Item::Dummy) {
                    // A bend point spans its column so the edge runs straight through.
                    items[id].x = rail_x[column].min(x);
                    items[id].width = x + width - items[id].x;
                }
            }
            x += width;
        }
        let width = x + MARGIN;

        let heights: Vec<f64> = layers
            .iter()
            .map(|ids| {
                ids.iter().map(|&id| items[id].height).sum::<f64>()
                    + NODE_GAP * ids.len().saturating_sub(1) as f64
            })
            .collect();
        let tallest = heights.iter().copied().fold(0.0, f64::max);
        for (ids, column_height) in layers.iter().zip(&heights) {
            let mut y = (tallest - column_height) / 2.0;
            for &id in ids {
                items[id].y = y;
                y += items[id].height + NODE_GAP;
            }
        }
        straighten(&layers, &mut items);
        let top = items.iter().map(|i| i.y).fold(f64::INFINITY, f64::min);
        let bottom = items
            .iter()
            .map(|i| i.y + i.height)
            .fold(f64::NEG_INFINITY, f64::max);
        for item in &mut items {
            item.y += TITLE + MARGIN - top;
        }
        let height = TITLE + MARGIN + (bottom - top) + MARGIN + 2.0 * LINE + MARGIN;
        let title = format!(
            "reverse pass from {} = {}, seed {}: {} nodes, {} operand edges",
            model.name(model.output),
            numbers.format(model.node(model.output).map_or(0.0, |n| n.value)),
            numbers.format(model.seed),
            model.nodes.len(),
            model.edges.len()
        );
        Self {
            items,
            routes,
            layers,
            rail_x,
            labels,
            lines,
            width,
            height,
            title,
            direct,
        }
    }

    fn svg(&self, model: &Model) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"{FONT}\" font-size=\"{FONT_SIZE}\">",
            w = self.width,
            h = self.height
        );
        out.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#4a5560\"/></marker></defs>\n");
        out.push_str("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        let _ = writeln!(
            out,
            "<text x=\"{MARGIN}\" y=\"{:.1}\" font-weight=\"bold\">{}</text>",
            MARGIN + 6.0,
            xml_escape(&self.title)
        );

        // Ports: incoming in operand-slot order (use 0 on top); outgoing
        // sorted by where the edge goes, so parallel edges do not cross.
        let mut in_y: HashMap<(usize, usize), f64> = HashMap::new();
        let mut out_y: HashMap<(usize, usize), f64> = HashMap::new();
        let mut incoming: HashMap<usize, Vec<(usize, usize, usize)>> = HashMap::new();
        let mut outgoing: HashMap<usize, Vec<(f64, usize, usize)>> = HashMap::new();
        for (edge_id, route) in self.routes.iter().enumerate() {
            for (hop, pair) in route.windows(2).enumerate() {
                incoming.entry(pair[1]).or_default().push((
                    model.edges[edge_id].operand,
                    edge_id,
                    hop,
                ));
                outgoing
                    .entry(pair[0])
                    .or_default()
                    .push((self.items[pair[1]].y, edge_id, hop));
            }
        }
        for (&id, ports) in &mut incoming {
            ports.sort_unstable();
            let hops = ports.iter().map(|&(_, edge_id, hop)| (edge_id, hop));
            spread_ports(&self.items[id], hops, IN_PORT_GAP, 4.0, &mut in_y);
        }
        for (&id, ports) in &mut outgoing {
            ports.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let hops = ports.iter().map(|&(_, edge_id, hop)| (edge_id, hop));
            spread_ports(&self.items[id], hops, OUT_PORT_GAP, 0.0, &mut out_y);
        }
        // A bend point carries one edge: its in and out heights agree.
        for (edge_id, route) in self.routes.iter().enumerate() {
            for hop in 1..route.len().saturating_sub(1) {
                if let Some(&y) = in_y.get(&(edge_id, hop - 1)) {
                    out_y.insert((edge_id, hop), y);
                }
            }
        }

        out.push_str("<g fill=\"none\" stroke=\"#4a5560\" stroke-width=\"1.4\">\n");
        let mut label_svg = String::new();
        for (edge_id, route) in self.routes.iter().enumerate() {
            if route.len() < 2 {
                continue;
            }
            let edge = &model.edges[edge_id];
            let mut d = String::new();
            for (hop, pair) in route.windows(2).enumerate() {
                let (from, to) = (&self.items[pair[0]], &self.items[pair[1]]);
                let x0 = from.x + from.width;
                let y0 = out_y.get(&(edge_id, hop)).copied().unwrap_or(from.y);
                let y1 = in_y.get(&(edge_id, hop)).copied().unwrap_or(to.y);
                let x1 = to.x;
                let rail = self.rail_x[to.layer];
                if hop == 0 {
                    let _ = write!(d, "M{x0:.1},{y0:.1} ");
                } else {
                    let _ = write!(d, "L{x0:.1},{y0:.1} ");
                }
                let bend = (rail - x0) / 2.0;
                let _ = write!(
                    d,
                    "C{:.1},{y0:.1} {:.1},{y1:.1} {rail:.1},{y1:.1} L{x1:.1},{y1:.1} ",
                    x0 + bend,
                    rail - bend
                );
                if hop + 2 == route.len() {
                    let _ = writeln!(
                        label_svg,
                        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"{LABEL_SIZE}\" fill=\"{}\" stroke=\"white\" stroke-width=\"4\" paint-order=\"stroke\">{}</text>",
                        x1 - 8.0,
                        y1 - 5.0,
                        if edge.parent_tracked { "#1f3a5f" } else { "#777777" },
                        xml_escape(&self.labels[edge_id])
                    );
                }
            }
            let dash = if edge.parent_tracked {
                ""
            } else {
                " stroke-dasharray=\"5,4\""
            };
            let _ = writeln!(
                out,
                "<path class=\"edge\" data-from=\"{}\" data-to=\"{}\" data-use=\"{}\" d=\"{}\" marker-end=\"url(#arrow)\"{dash}/>",
                edge.parent,
                edge.child,
                edge.operand,
                d.trim_end()
            );
        }
        out.push_str("</g>\n");

        for ids in &self.layers {
            for &id in ids {
                let item = &self.items[id];
                let Item::Node(row) = item.item else { continue };
                let node = &model.nodes[row];
                let (fill, stroke, dash) = if node.tracked {
                    ("#eaf2fb", "#2f5d8a", "")
                } else {
                    ("#f2f2f2", "#888888", " stroke-dasharray=\"5,4\"")
                };
                let stroke_width = if node.index == model.output { 2.6 } else { 1.3 };
                let _ = writeln!(
                    out,
                    "<g class=\"node\" data-index=\"{}\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"7\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{stroke_width}\"{dash}/>",
                    node.index, item.x, item.y, item.width, item.height
                );
                let top = item.y + item.height / 2.0 - 1.5 * LINE + 13.0;
                for (k, line) in self.lines[row].iter().enumerate() {
                    let weight = if k == 0 { " font-weight=\"bold\"" } else { "" };
                    let _ = writeln!(
                        out,
                        "<text x=\"{:.1}\" y=\"{:.1}\"{weight}>{}</text>",
                        item.x + PAD,
                        top + k as f64 * LINE,
                        xml_escape(line)
                    );
                }
                out.push_str("</g>\n");
            }
        }
        out.push_str(&label_svg);
        let legend_y = self.height - MARGIN - LINE;
        let direct = if self.direct {
            "; long edges drawn direct (too many to route)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "<text x=\"{MARGIN}\" y=\"{legend_y:.1}\" font-size=\"{LABEL_SIZE}\" fill=\"#555555\">box: name / operation = value / adjoint in this pass; dashed: untracked{direct}</text>"
        );
        let _ = writeln!(
            out,
            "<text x=\"{MARGIN}\" y=\"{:.1}\" font-size=\"{LABEL_SIZE}\" fill=\"#555555\">arrow: one per operand use, labelled use k: local derivative × upstream adjoint = contribution</text>",
            legend_y + LINE
        );
        out.push_str("</svg>\n");
        out
    }
}

/// Moves items up or down, keeping each layer's order and gaps, so that each
/// sits level with the mean of its neighbours: chains run straight and a long
/// edge does not dip around the columns it crosses.
fn straighten(layers: &[Vec<usize>], items: &mut [Placed]) {
    let centre = |item: &Placed| item.y + item.height / 2.0;
    for sweep in 0..8 {
        let downward = sweep % 2 == 0;
        let order: Vec<usize> = if downward {
            (1..layers.len()).collect()
        } else {
            (0..layers.len().saturating_sub(1)).rev().collect()
        };
        for l in order {
            let ids = &layers[l];
            let desired: Vec<f64> = ids
                .iter()
                .map(|&id| {
                    let neighbours = if downward {
                        &items[id].before
                    } else {
                        &items[id].after
                    };
                    if neighbours.is_empty() {
                        items[id].y
                    } else {
                        neighbours.iter().map(|&n| centre(&items[n])).sum::<f64>()
                            / neighbours.len() as f64
                            - items[id].height / 2.0
                    }
                })
                .collect();
            // Push down from the top and up from the bottom; both keep every
            // gap, and so does their average, which favours neither end.
            let mut down = desired.clone();
            for k in 1..ids.len() {
                down[k] = down[k].max(down[k - 1] + items[ids[k - 1]].height + NODE_GAP);
            }
            let mut up = desired;
            for k in (0..ids.len().saturating_sub(1)).rev() {
                up[k] = up[k].min(up[k + 1] - items[ids[k]].height - NODE_GAP);
            }
            for (k, &id) in ids.iter().enumerate() {
                items[id].y = (down[k] + up[k]) / 2.0;
            }
        }
    }
}

/// Orders each layer to cut crossings: a few sweeps that sort items by the
/// mean position of their neighbours in the layer before, then after.
fn order_layers(layers: &mut [Vec<usize>], items: &[Placed]) {
    let mut position = vec![0.0_f64; items.len()];
    let place = |layer: &[usize], position: &mut [f64]| {
        for (k, &id) in layer.iter().enumerate() {
            position[id] = k as f64;
        }
    };
    for layer in layers.iter() {
        place(layer, &mut position);
    }
    for sweep in 0..8 {
        let downward = sweep % 2 == 0;
        let order: Vec<usize> = if downward {
            (1..layers.len()).collect()
        } else {
            (0..layers.len().saturating_sub(1)).rev().collect()
        };
        for l in order {
            let mut keyed: Vec<(f64, f64, usize)> = layers[l]
                .iter()
                .map(|&id| {
                    let neighbours = if downward {
                        &items[id].before
                    } else {
                        &items[id].after
                    };
                    let key = if neighbours.is_empty() {
                        position[id]
                    } else {
                        neighbours.iter().map(|&n| position[n]).sum::<f64>()
                            / neighbours.len() as f64
                    };
                    (key, position[id], id)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
            layers[l] = keyed.into_iter().map(|k| k.2).collect();
            place(&layers[l], &mut position);
        }
    }
}

fn summary_svg(lines: &[String]) -> String {
    let chars = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let width = chars as f64 * CHAR + 2.0 * (MARGIN + PAD);
    let height = lines.len() as f64 * LINE + 2.0 * (MARGIN + PAD);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"{FONT}\" font-size=\"{FONT_SIZE}\">\n"
    );
    out.push_str("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    let _ = writeln!(
        out,
        "<rect x=\"{MARGIN}\" y=\"{MARGIN}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"7\" fill=\"#fff8e6\" stroke=\"#b08a2e\"/>",
        width - 2.0 * MARGIN,
        height - 2.0 * MARGIN
    );
    for (k, line) in lines.iter().enumerate() {
        let weight = if k == 0 { " font-weight=\"bold\"" } else { "" };
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\"{weight}>{}</text>",
            MARGIN + PAD,
            MARGIN + PAD + 13.0 + k as f64 * LINE,
            xml_escape(line)
        );
    }
    out.push_str("</svg>\n");
    out
}

/// Stored gradients of chosen scalars, snapshotted after each step of a
/// sequence of passes: chapter 14's second diagram (commit, repeat, zero,
/// restore), where a fresh pass-local adjoint and an accumulated stored
/// gradient stop looking alike.
///
/// ```
/// use autodiff_core::{Label, Tape, Timeline};
///
/// let tape = Tape::new();
/// let x = tape.variable(2.0)?.labeled(Label::named("x"));
/// let square = x.mul(x)?.labeled(Label::named("square"));
/// let loss = square.add(square)?.labeled(Label::named("loss"));
/// let mut timeline = Timeline::new([x, square, loss]);
/// timeline.step("first pass committed", || loss.backward())?;
/// timeline.step("second pass accumulated", || loss.backward())?;
/// loss.zero_grad();
/// timeline.record("stored gradients zeroed");
/// timeline.step("one fresh pass restored", || loss.backward())?;
/// let x_over_time: Vec<_> = timeline.steps().iter().map(|s| s.gradients[0]).collect();
/// assert_eq!(x_over_time, [Some(8.0), Some(16.0), Some(0.0), Some(8.0)]);
/// println!("{}", timeline.to_text());
/// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Timeline<'t> {
    scalars: Vec<Scalar<'t>>,
    names: Vec<String>,
    steps: Vec<TimelineStep>,
    numbers: Option<Numbers>,
}

/// One snapshot of a [`Timeline`].
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineStep {
    /// What happened just before the snapshot.
    pub caption: String,
    /// `None` if the step succeeded (or was only recorded); the error
    /// message if it was rejected.
    pub rejected: Option<String>,
    /// The stored gradient of each watched scalar, in the order given to
    /// [`Timeline::new`]; `None` for untracked scalars.
    pub gradients: Vec<Option<f64>>,
}

impl<'t> Timeline<'t> {
    /// Watches `scalars`, named by their labels (or `#index operation`).
    pub fn new(scalars: impl IntoIterator<Item = Scalar<'t>>) -> Self {
        let scalars: Vec<Scalar<'t>> = scalars.into_iter().collect();
        let names = unique_names(scalars.iter().map(|s| match s.label() {
            Some(label) => (s.index(), label.text.to_owned(), true),
            None => (
                s.index(),
                format!("#{} {}", s.index(), s.operation()),
                false,
            ),
        }));
        Self {
            scalars,
            names,
            steps: Vec::new(),
            numbers: None,
        }
    }

    /// Sets how gradients are written (by default `Fixed(12)` in tables, as
    /// chapter 14 prints, and `Significant(6)` in the picture).
    #[must_use]
    pub fn numbers(mut self, numbers: Numbers) -> Self {
        self.numbers = Some(numbers);
        self
    }

    /// The names of the watched scalars, as column headers.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The snapshots so far, oldest first.
    pub fn steps(&self) -> &[TimelineStep] {
        &self.steps
    }

    /// Snapshots the stored gradients now, after something done outside the
    /// timeline (a `zero_grad`, an optimizer step).
    pub fn record(&mut self, caption: impl Into<String>) -> &TimelineStep {
        self.push(caption.into(), None)
    }

    /// Runs `action` (a backward pass, say), snapshots the stored gradients,
    /// and hands back its result. A rejected action is recorded with its
    /// error, so the timeline shows that nothing moved.
    pub fn step<T, E: fmt::Display>(
        &mut self,
        caption: impl Into<String>,
        action: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        let result = action();
        let rejected = result.as_ref().err().map(ToString::to_string);
        self.push(caption.into(), rejected);
        result
    }

    fn push(&mut self, caption: String, rejected: Option<String>) -> &TimelineStep {
        let gradients = self.scalars.iter().map(|s| s.gradient()).collect();
        self.steps.push(TimelineStep {
            caption,
            rejected,
            gradients,
        });
        &self.steps[self.steps.len() - 1]
    }

    fn cell(&self, gradient: Option<f64>, numbers: Numbers) -> String {
        gradient.map_or_else(|| "untracked".to_owned(), |g| numbers.format(g))
    }

    fn table(&self) -> Table {
        let mut columns = vec![("step", false)];
        columns.extend(self.names.iter().map(|name| (name.as_str(), true)));
        columns.push(("outcome", false));
        let mut table = Table::new(&columns);
        for step in &self.steps {
            let mut row = vec![step.caption.clone()];
            let numbers = self.numbers.unwrap_or(Numbers::Fixed(12));
            row.extend(step.gradients.iter().map(|&g| self.cell(g, numbers)));
            row.push(
                step.rejected
                    .as_ref()
                    .map_or_else(|| "ok".to_owned(), |e| format!("rejected: {e}")),
            );
            table.rows.push(row);
        }
        table
    }

    /// One row per step, one column per watched scalar, and the outcome.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.table().text(&mut out);
        out
    }

    /// The same table in Markdown.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        self.table().markdown(&mut out);
        out
    }

    /// One card per step, left to right, each listing the stored gradients;
    /// values that changed since the previous card are bold and coloured,
    /// rejected steps have a red border and their error underneath.
    pub fn to_svg(&self) -> String {
        const PER_ROW: usize = 5;
        let numbers = self.numbers.unwrap_or(Numbers::Significant(6));
        let name_width = self
            .names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(0);
        let value_width = self
            .steps
            .iter()
            .flat_map(|s| &s.gradients)
            .map(|&g| self.cell(g, numbers).chars().count())
            .max()
            .unwrap_or(0);
        let mut cards: Vec<Vec<(String, bool)>> = Vec::new();
        let mut previous: Option<&[Option<f64>]> = None;
        for step in &self.steps {
            let mut lines = Vec::new();
            for (k, (name, &gradient)) in self.names.iter().zip(&step.gradients).enumerate() {
                let changed =
                    previous.is_some_and(|p| p[k].map(f64::to_bits) != gradient.map(f64::to_bits));
                let value = self.cell(gradient, numbers);
                lines.push((
                    format!("{name:<name_width$}  {value:>value_width$}"),
                    changed,
                ));
            }
            if let Some(error) = &step.rejected {
                lines.push((String::new(), false));
                let wrap_at = (name_width + 2 + value_width)
                    .max(step.caption.chars().count())
                    .max(24);
                for chunk in wrap(&format!("rejected: {error}"), wrap_at) {
                    lines.push((chunk, false));
                }
            }
            previous = Some(&step.gradients);
            cards.push(lines);
        }
        let chars = self
            .steps
            .iter()
            .map(|s| s.caption.chars().count())
            .chain(cards.iter().flatten().map(|l| l.0.chars().count()))
            .max()
            .unwrap_or(1);
        let card_width = chars as f64 * CHAR + 2.0 * PAD;
        let rows = cards.iter().map(Vec::len).max().unwrap_or(0);
        let card_height = (rows + 1) as f64 * LINE + 2.0 * PAD + 6.0;
        let gap = 36.0;
        let columns = self.steps.len().clamp(1, PER_ROW);
        let card_rows = self.steps.len().div_ceil(PER_ROW);
        let title = "stored gradients after each step (changed values in bold)";
        let width = (2.0 * MARGIN + columns as f64 * (card_width + gap) - gap)
            .max(2.0 * MARGIN + title.len() as f64 * CHAR);
        let height = 2.0 * MARGIN + TITLE + card_rows as f64 * (card_height + gap) - gap;
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"{FONT}\" font-size=\"{FONT_SIZE}\">\n"
        );
        out.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#4a5560\"/></marker></defs>\n");
        out.push_str("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        let _ = writeln!(
            out,
            "<text x=\"{MARGIN}\" y=\"{:.1}\" font-weight=\"bold\">{title}</text>",
            MARGIN + 6.0
        );
        for (k, (step, lines)) in self.steps.iter().zip(&cards).enumerate() {
            let x = MARGIN + (k % PER_ROW) as f64 * (card_width + gap);
            let top = MARGIN + TITLE + (k / PER_ROW) as f64 * (card_height + gap);
            let (stroke, fill) = if step.rejected.is_some() {
                ("#b03030", "#fdeeee")
            } else {
                ("#2f5d8a", "#eaf2fb")
            };
            let _ = writeln!(
                out,
                "<g class=\"step\"><rect x=\"{x:.1}\" y=\"{top:.1}\" width=\"{card_width:.1}\" height=\"{card_height:.1}\" rx=\"7\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.3\"/>"
            );
            let _ = writeln!(
                out,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-weight=\"bold\">{}</text>",
                x + PAD,
                top + PAD + 13.0,
                xml_escape(&step.caption)
            );
            for (row, (line, changed)) in lines.iter().enumerate() {
                let style = if *changed {
                    " font-weight=\"bold\" fill=\"#a0522d\""
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "<text x=\"{:.1}\" y=\"{:.1}\" xml:space=\"preserve\"{style}>{}</text>",
                    x + PAD,
                    top + PAD + 13.0 + (row + 1) as f64 * LINE + 6.0,
                    xml_escape(line)
                );
            }
            out.push_str("</g>\n");
            // Arrows join cards within a row; a new row reads on like text.
            if k + 1 < self.steps.len() && (k + 1) % PER_ROW != 0 {
                let y = top + card_height / 2.0;
                let _ = writeln!(
                    out,
                    "<path d=\"M{:.1},{y:.1} L{:.1},{y:.1}\" stroke=\"#4a5560\" stroke-width=\"1.4\" marker-end=\"url(#arrow)\"/>",
                    x + card_width + 6.0,
                    x + card_width + gap - 6.0
                );
            }
        }
        out.push_str("</svg>\n");
        out
    }
}

/// Breaks `text` at spaces into lines of at most `width` characters (longer
/// words stay whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}
