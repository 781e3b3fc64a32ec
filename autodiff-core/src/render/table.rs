//! Tables: a [`Table`] that prints as aligned text or as Markdown, and the
//! two tables of chapter 14 it holds for a pass (node cards in forward order,
//! the reverse ledger one row per operand edge). The [`Timeline`] prints
//! through the same [`Table`].
//!
//! [`Timeline`]: super::Timeline

use std::fmt::Write as _;

use super::numbers::Numbers;
use super::view::{Model, TapeView};

/// A table that prints as aligned text or as Markdown.
pub(super) struct Table {
    headers: Vec<String>,
    numeric: Vec<bool>,
    pub(super) rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these `(header, numeric)` columns; numeric ones are
    /// right-aligned.
    pub(super) fn new(columns: &[(&str, bool)]) -> Self {
        Self {
            headers: columns.iter().map(|c| c.0.to_owned()).collect(),
            numeric: columns.iter().map(|c| c.1).collect(),
            rows: Vec::new(),
        }
    }

    /// Writes the table as aligned plain text, two spaces between columns.
    pub(super) fn text(&self, out: &mut String) {
        let width = |text: &str| text.chars().count();
        let mut widths: Vec<usize> = self.headers.iter().map(|h| width(h)).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(width(cell));
            }
        }
        let mut line = |cells: &mut dyn Iterator<Item = &str>| {
            let mut text = String::new();
            for (column, cell) in cells.enumerate() {
                if column > 0 {
                    text.push_str("  ");
                }
                let pad = widths[column] - width(cell);
                if self.numeric[column] {
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
        line(&mut self.headers.iter().map(String::as_str));
        for row in &self.rows {
            line(&mut row.iter().map(String::as_str));
        }
    }

    /// Writes the table as GitHub-flavoured Markdown.
    pub(super) fn markdown(&self, out: &mut String) {
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

    /// Writes the table as Markdown or as aligned text.
    pub(super) fn write(&self, out: &mut String, markdown: bool) {
        if markdown {
            self.markdown(out);
        } else {
            self.text(out);
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

impl TapeView<'_, '_> {
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
        let numbers = self.table_numbers();
        let too_large = |lines: Vec<String>| {
            let mut out = String::new();
            for line in lines {
                if markdown {
                    let _ = writeln!(out, "{}  ", markdown_cell(&line));
                } else {
                    let _ = writeln!(out, "{line}");
                }
            }
            out
        };
        self.full_or_summary(numbers, too_large, |model, summary| {
            let name = model.name(model.output);
            let name = if markdown {
                format!("`{}`", name.replace('`', "'"))
            } else {
                name.to_owned()
            };
            let mut out = model.headline(&name, summary.output_value, numbers);
            out.push('\n');
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
            out.push_str(nodes_title);
            node_table(model, numbers).write(&mut out, markdown);
            out.push_str(edges_title);
            edge_table(model, numbers).write(&mut out, markdown);
            out
        })
    }
}

fn node_table(model: &Model, numbers: Numbers) -> Table {
    let mut table = Table::new(&[
        ("order", true),
        ("name", false),
        ("operation", false),
        ("value", true),
        ("pass adjoint", true),
        ("stored gradient", true),
        ("operand uses", false),
    ]);
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
            numbers.format_tracked(node.pass_adjoint),
            numbers.format_tracked(node.stored_gradient),
            uses.join(", "),
        ]);
    }
    table
}

fn edge_table(model: &Model, numbers: Numbers) -> Table {
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
        let tracked_child = model.tracked_child(edge);
        // Untracked ends carry no adjoint; a dash says nothing flowed.
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
