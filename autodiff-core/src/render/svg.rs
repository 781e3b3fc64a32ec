//! Drawing SVG: the few pieces every picture is made
//! of (the page preamble, a title, text lines, rounded cards), the graph
//! picture of a pass drawn from its [`Layout`], and the summary card shown
//! past the limits. The [`Timeline`](super::Timeline) draws its cards with
//! the same pieces.

use std::fmt::Write as _;

use super::layout::{Item, Layout};
use super::numbers::Numbers;
use super::view::{escape_with, Model, TapeView};

use super::geometry::{BASELINE, CHAR, FONT, FONT_SIZE, LABEL_SIZE, LINE, MARGIN, PAD};
/// The colour of arrows and their heads.
pub(super) const INK: &str = "#4a5560";
const DASHED: &str = " stroke-dasharray=\"5,4\"";
const BOLD: &str = " font-weight=\"bold\"";

/// Starts a standalone `width` × `height` page on white; with `arrows`, it
/// defines the arrowhead that `marker-end="url(#arrow)"` draws.
pub(super) fn open(width: f64, height: f64, arrows: bool) -> String {
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"{FONT}\" font-size=\"{FONT_SIZE}\">\n"
    );
    if arrows {
        let _ = writeln!(
            out,
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"{INK}\"/></marker></defs>"
        );
    }
    out.push_str("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    out
}

/// Writes the bold title line at the top left of the page.
pub(super) fn title(out: &mut String, title: &str) {
    let _ = writeln!(
        out,
        "<text x=\"{MARGIN}\" y=\"{:.1}\"{BOLD}>{}</text>",
        MARGIN + 6.0,
        escape(title)
    );
}

/// Writes one line of text with its baseline at `(x, y)`; `attributes`
/// starts with a space.
pub(super) fn text(out: &mut String, x: f64, y: f64, attributes: &str, text: &str) {
    let _ = writeln!(
        out,
        "<text x=\"{x:.1}\" y=\"{y:.1}\"{attributes}>{}</text>",
        escape(text)
    );
}

/// Writes `lines` one under the other from the baseline `first`, the
/// first in bold as a heading.
fn text_block<'a>(
    out: &mut String,
    x: f64,
    first: f64,
    lines: impl IntoIterator<Item = &'a String>,
) {
    for (k, line) in lines.into_iter().enumerate() {
        let weight = if k == 0 { BOLD } else { "" };
        text(out, x, first + k as f64 * LINE, weight, line);
    }
}

/// A rounded box that opens a group: a node of the graph, a step of the
/// timeline.
pub(super) struct Card<'a> {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) width: f64,
    pub(super) height: f64,
    pub(super) fill: &'a str,
    pub(super) stroke: &'a str,
    pub(super) stroke_width: f64,
    pub(super) dashed: bool,
}

impl Card<'_> {
    /// Opens `<g {group}>` with the box in it; the caller writes the
    /// contents and closes the group.
    pub(super) fn open(&self, out: &mut String, group: &str) {
        let dash = if self.dashed { DASHED } else { "" };
        let _ = writeln!(
            out,
            "<g {group}><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"7\" fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{dash}/>",
            self.x, self.y, self.width, self.height, self.fill, self.stroke, self.stroke_width
        );
    }
}

/// Escapes what would end an attribute or start markup.
fn escape(text: &str) -> String {
    escape_with(text, |c| match c {
        '&' => Some("&amp;"),
        '<' => Some("&lt;"),
        '>' => Some("&gt;"),
        '"' => Some("&quot;"),
        _ => None,
    })
}

impl TapeView<'_, '_> {
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
        let numbers = self.picture_numbers();
        self.full_or_summary(
            numbers,
            |lines| summary_svg(&lines),
            |model, _| {
                // Routing a long edge around the columns it crosses costs one
                // bend point per column; a hub feeding a deep chain would need
                // nodes × edges of them, so past a budget long edges go direct.
                let bend_budget = self.limits.max_edges.saturating_mul(4);
                graph_svg(model, &Layout::new(model, numbers, bend_budget), numbers)
            },
        )
    }
}

/// Draws the laid-out graph: title, edges (curves through their bend
/// points), node boxes, edge labels on top, and a two-line legend.
fn graph_svg(model: &Model, layout: &Layout, numbers: Numbers) -> String {
    let mut out = open(layout.width, layout.height, true);
    let output_value = model.node(model.output).map_or(0.0, |n| n.value);
    title(
        &mut out,
        &model.headline(model.name(model.output), output_value, numbers),
    );

    let _ = writeln!(
        out,
        "<g fill=\"none\" stroke=\"{INK}\" stroke-width=\"1.4\">"
    );
    // Labels are written after the boxes so that no box hides one.
    let mut label_svg = String::new();
    for (edge_id, route) in layout.routes.iter().enumerate() {
        if route.len() < 2 {
            continue;
        }
        let edge = &model.edges[edge_id];
        let mut d = String::new();
        for (hop, pair) in route.windows(2).enumerate() {
            let (from, to) = (&layout.items[pair[0]], &layout.items[pair[1]]);
            let x0 = from.x + from.width;
            let y0 = layout.out_y.get(&(edge_id, hop)).copied().unwrap_or(from.y);
            let y1 = layout.in_y.get(&(edge_id, hop)).copied().unwrap_or(to.y);
            let x1 = to.x;
            let rail = layout.rail_x[to.layer];
            let command = if hop == 0 { 'M' } else { 'L' };
            let _ = write!(d, "{command}{x0:.1},{y0:.1} ");
            let bend = (rail - x0) / 2.0;
            let _ = write!(
                d,
                "C{:.1},{y0:.1} {:.1},{y1:.1} {rail:.1},{y1:.1} L{x1:.1},{y1:.1} ",
                x0 + bend,
                rail - bend
            );
            if hop + 2 == route.len() {
                let colour = if edge.parent_tracked {
                    "#1f3a5f"
                } else {
                    "#777777"
                };
                text(
                    &mut label_svg,
                    x1 - 8.0,
                    y1 - 5.0,
                    &format!(" text-anchor=\"end\" font-size=\"{LABEL_SIZE}\" fill=\"{colour}\" stroke=\"white\" stroke-width=\"4\" paint-order=\"stroke\""),
                    &layout.labels[edge_id],
                );
            }
        }
        let dash = if edge.parent_tracked { "" } else { DASHED };
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

    for &id in layout.layers.iter().flatten() {
        let item = &layout.items[id];
        let Item::Node(row) = item.item else { continue };
        let node = &model.nodes[row];
        let (fill, stroke) = if node.tracked {
            ("#eaf2fb", "#2f5d8a")
        } else {
            ("#f2f2f2", "#888888")
        };
        let card = Card {
            x: item.x,
            y: item.y,
            width: item.width,
            height: item.height,
            fill,
            stroke,
            stroke_width: if node.index == model.output { 2.6 } else { 1.3 },
            dashed: !node.tracked,
        };
        card.open(
            &mut out,
            &format!("class=\"node\" data-index=\"{}\"", node.index),
        );
        let first = item.y + item.height / 2.0 - 1.5 * LINE + BASELINE;
        text_block(&mut out, item.x + PAD, first, &layout.lines[row]);
        out.push_str("</g>\n");
    }
    out.push_str(&label_svg);

    let legend_y = layout.height - MARGIN - LINE;
    let direct = if layout.direct {
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

/// One card holding the summary lines, for a pass past the limits.
fn summary_svg(lines: &[String]) -> String {
    let chars = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let width = chars as f64 * CHAR + 2.0 * (MARGIN + PAD);
    let height = lines.len() as f64 * LINE + 2.0 * (MARGIN + PAD);
    let mut out = open(width, height, false);
    let _ = writeln!(
        out,
        "<rect x=\"{MARGIN}\" y=\"{MARGIN}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"7\" fill=\"#fff8e6\" stroke=\"#b08a2e\"/>",
        width - 2.0 * MARGIN,
        height - 2.0 * MARGIN
    );
    text_block(&mut out, MARGIN + PAD, MARGIN + PAD + BASELINE, lines);
    out.push_str("</svg>\n");
    out
}
