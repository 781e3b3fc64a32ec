//! The graph as Graphviz DOT, for readers who have Graphviz or want to
//! restyle the picture: one box per reached node, one arrow per operand edge.

use std::fmt::Write as _;

use super::view::{escape_with, TapeView};

/// Graph-wide settings written before any node: left-to-right like the SVG,
/// rounded boxes in the SVG's colours.
const PREAMBLE: &str = "digraph tape {\n  rankdir=LR;\n  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eaf2fb\", fontname=\"monospace\"];\n  edge [fontname=\"monospace\", fontsize=10];\n";

impl TapeView<'_, '_> {
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
        let numbers = self.picture_numbers();
        let mut out = String::from(PREAMBLE);
        let body = self.full_or_summary(
            numbers,
            |lines| {
                format!(
                    "  summary [shape=note, label=\"{}\"];\n",
                    dot_escape(&lines.join("\n"))
                )
            },
            |model, _| {
                let mut out = String::new();
                for (node, name) in model.nodes.iter().zip(&model.names) {
                    let [first, second, third] = model.node_lines(node, name, numbers);
                    let mut attributes = format!(
                        "label=\"{}\"",
                        dot_escape(&format!("{first}\n{second}\n{third}"))
                    );
                    if !node.tracked {
                        attributes
                            .push_str(", style=\"rounded,dashed,filled\", fillcolor=\"#f2f2f2\"");
                    }
                    if node.index == model.output {
                        attributes.push_str(", penwidth=2");
                    }
                    let _ = writeln!(out, "  n{} [{attributes}];", node.index);
                }
                for edge in &model.edges {
                    let label = model.edge_label(edge, numbers);
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
                out
            },
        );
        out.push_str(&body);
        out.push_str("}\n");
        out
    }
}

/// Escapes what would end a DOT string or break its line.
fn dot_escape(text: &str) -> String {
    escape_with(text, |c| match c {
        '"' => Some("\\\""),
        '\\' => Some("\\\\"),
        '\n' => Some("\\n"),
        _ => None,
    })
}
