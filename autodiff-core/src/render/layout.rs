//! A small layered graph layout, so the SVG needs no Graphviz: leaves in the
//! left column, each node one column right of its latest operand, bend
//! points where an edge crosses columns, layers ordered to cut crossings,
//! then items moved level with their neighbours. This file places boxes,
//! bend points and ports; `svg.rs` draws them.

use std::collections::HashMap;

use super::geometry::{CHAR, LABEL_CHAR, LINE, MARGIN, PAD, TITLE};
use super::numbers::Numbers;
use super::view::Model;

/// Vertical distance between the incoming ports of one node; room for a
/// label above each arrow.
const IN_PORT_GAP: f64 = 30.0;
const OUT_PORT_GAP: f64 = 12.0;
const NODE_GAP: f64 = 30.0;
const DUMMY_HEIGHT: f64 = 18.0;
/// Horizontal room for the curved part of an edge, left of its labels.
const CURVE: f64 = 60.0;
/// Space between the end of the longest label and the column it enters.
const LABEL_GAP: f64 = 14.0;
/// Incoming ports sit this much below the middle so that a label written
/// above its arrow stays clear of the one above.
const IN_PORT_NUDGE: f64 = 4.0;
/// Both layer passes settle within a few alternating sweeps; more move
/// nothing visible.
const SWEEPS: usize = 8;

/// One item in a layer: a node, or a bend point of an edge that spans layers.
#[derive(Clone, Copy)]
pub(super) enum Item {
    /// The node at this position of `Model::nodes`.
    Node(usize),
    Dummy,
}

pub(super) struct Placed {
    pub(super) item: Item,
    pub(super) layer: usize,
    /// Items of the previous and next layer this one is joined to.
    before: Vec<usize>,
    after: Vec<usize>,
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) width: f64,
    pub(super) height: f64,
}

impl Placed {
    fn new(item: Item, layer: usize, width: f64, height: f64) -> Self {
        Self {
            item,
            layer,
            before: Vec::new(),
            after: Vec::new(),
            x: 0.0,
            y: 0.0,
            width,
            height,
        }
    }

    /// The neighbours a sweep follows: those in the layer it came from.
    fn neighbours(&self, from_leaves: bool) -> &[usize] {
        if from_leaves {
            &self.before
        } else {
            &self.after
        }
    }
}

/// Where every box, bend point and port goes.
pub(super) struct Layout {
    /// Items, nodes first (aligned with `model.nodes`), then bend points.
    pub(super) items: Vec<Placed>,
    /// Per edge (aligned with `model.edges`): the chain of items from operand to consumer.
    pub(super) routes: Vec<Vec<usize>>,
    pub(super) layers: Vec<Vec<usize>>,
    /// x where each layer's edge labels start, and the label text per edge.
    pub(super) rail_x: Vec<f64>,
    pub(super) labels: Vec<String>,
    /// The text of each node's box, aligned with `model.nodes`.
    pub(super) lines: Vec<[String; 3]>,
    /// Heights where each `(edge, hop)` leaves and enters its items.
    pub(super) out_y: HashMap<(usize, usize), f64>,
    pub(super) in_y: HashMap<(usize, usize), f64>,
    pub(super) width: f64,
    pub(super) height: f64,
    /// Whether long edges skip the bend points (too many to route).
    pub(super) direct: bool,
}

impl Layout {
    /// Lays out `model` in the order a reader would do it by hand: columns
    /// by depth, one bend point per column an edge crosses, items ordered to
    /// cut crossings, columns placed left to right, items stacked and
    /// levelled, then ports spread along each side.
    pub(super) fn new(model: &Model, numbers: Numbers, bend_budget: usize) -> Self {
        let layer = assign_layers(model);
        let lines: Vec<[String; 3]> = model
            .nodes
            .iter()
            .zip(&model.names)
            .map(|(node, name)| model.node_lines(node, name, numbers))
            .collect();
        let mut items: Vec<Placed> = lines
            .iter()
            .enumerate()
            .map(|(row, text)| {
                let chars = text.iter().map(|l| l.chars().count()).max().unwrap_or(1);
                Placed::new(
                    Item::Node(row),
                    layer[row],
                    chars as f64 * CHAR + 2.0 * PAD,
                    0.0,
                )
            })
            .collect();
        let bends: usize = model
            .edges
            .iter()
            .filter_map(|edge| Some((*model.row.get(&edge.parent)?, *model.row.get(&edge.child)?)))
            .map(|(from, to)| layer[to].saturating_sub(layer[from] + 1))
            .sum();
        let direct = bends > bend_budget;
        let routes = route_edges(model, &layer, direct, &mut items);
        let labels: Vec<String> = model
            .edges
            .iter()
            .zip(&routes)
            .map(|(edge, route)| {
                if route.is_empty() {
                    String::new()
                } else {
                    model.edge_label(edge, numbers)
                }
            })
            .collect();

        let depth = items.iter().map(|i| i.layer).max().unwrap_or(0) + 1;
        let mut layers: Vec<Vec<usize>> = vec![Vec::new(); depth];
        for (id, item) in items.iter().enumerate() {
            layers[item.layer].push(id);
        }
        order_layers(&mut layers, &items);
        let (rail_x, width) = place_columns(&layers, &routes, &labels, &mut items);
        let height = place_rows(&layers, &mut items);
        let (out_y, in_y) = ports(model, &items, &routes);
        Self {
            items,
            routes,
            layers,
            rail_x,
            labels,
            lines,
            out_y,
            in_y,
            width,
            height,
            direct,
        }
    }
}

/// The column of each node: one past its latest operand, so every operand
/// sits in an earlier column (longest path from the leaves).
fn assign_layers(model: &Model) -> Vec<usize> {
    let count = model.nodes.len();
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
    layer
}

/// The chain of items each edge passes, operand first: a bend point is
/// added per column it crosses (none when `direct`). Joins neighbours and
/// sizes each node tall enough for its ports.
fn route_edges(
    model: &Model,
    layer: &[usize],
    direct: bool,
    items: &mut Vec<Placed>,
) -> Vec<Vec<usize>> {
    let count = model.nodes.len();
    let mut routes = Vec::with_capacity(model.edges.len());
    let mut in_ports = vec![0usize; count];
    let mut out_ports = vec![0usize; count];
    for edge in &model.edges {
        let (Some(&from), Some(&to)) = (model.row.get(&edge.parent), model.row.get(&edge.child))
        else {
            routes.push(Vec::new());
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
            items.push(Placed::new(Item::Dummy, between, 0.0, DUMMY_HEIGHT));
            route.push(items.len() - 1);
        }
        route.push(to);
        for pair in route.windows(2) {
            items[pair[0]].after.push(pair[1]);
            items[pair[1]].before.push(pair[0]);
        }
        routes.push(route);
    }
    for row in 0..count {
        let text = 3.0 * LINE + 2.0 * PAD;
        let ins = in_ports[row] as f64 * IN_PORT_GAP;
        let outs = out_ports[row] as f64 * OUT_PORT_GAP + PAD;
        items[row].height = text.max(ins).max(outs);
    }
    routes
}

/// Places columns left to right: each as wide as its widest item, preceded
/// by room for the curves and the longest label of the edges that enter it.
/// Returns where each column's labels start and the page width.
fn place_columns(
    layers: &[Vec<usize>],
    routes: &[Vec<usize>],
    labels: &[String],
    items: &mut [Placed],
) -> (Vec<f64>, f64) {
    let mut label_width = vec![0.0_f64; layers.len()];
    for (route, label) in routes.iter().zip(labels) {
        if let Some(&to) = route.last() {
            let w = label.chars().count() as f64 * LABEL_CHAR;
            label_width[items[to].layer] = label_width[items[to].layer].max(w);
        }
    }
    let mut rail_x = vec![0.0; layers.len()];
    let mut x = MARGIN;
    for (column, ids) in layers.iter().enumerate() {
        if column > 0 {
            x += CURVE;
            rail_x[column] = x;
            x += label_width[column] + LABEL_GAP;
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
    (rail_x, x + MARGIN)
}

/// Stacks each column centred on the tallest, levels items with their
/// neighbours, and moves the whole below the title. Returns the page
/// height, with room for the two legend lines underneath.
fn place_rows(layers: &[Vec<usize>], items: &mut [Placed]) -> f64 {
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
    straighten(layers, items);
    let top = items.iter().map(|i| i.y).fold(f64::INFINITY, f64::min);
    let bottom = items
        .iter()
        .map(|i| i.y + i.height)
        .fold(f64::NEG_INFINITY, f64::max);
    for item in items.iter_mut() {
        item.y += TITLE + MARGIN - top;
    }
    TITLE + MARGIN + (bottom - top) + MARGIN + 2.0 * LINE + MARGIN
}

type Ports = HashMap<(usize, usize), f64>;

/// The heights where each `(edge, hop)` leaves and enters its items.
/// Incoming ports go in operand-slot order (use 0 on top); outgoing ones
/// are sorted by where the edge goes, so parallel edges do not cross.
fn ports(model: &Model, items: &[Placed], routes: &[Vec<usize>]) -> (Ports, Ports) {
    let mut in_y = Ports::new();
    let mut out_y = Ports::new();
    let mut incoming: HashMap<usize, Vec<(usize, usize, usize)>> = HashMap::new();
    let mut outgoing: HashMap<usize, Vec<(f64, usize, usize)>> = HashMap::new();
    for (edge_id, route) in routes.iter().enumerate() {
        for (hop, pair) in route.windows(2).enumerate() {
            incoming
                .entry(pair[1])
                .or_default()
                .push((model.edges[edge_id].operand, edge_id, hop));
            outgoing
                .entry(pair[0])
                .or_default()
                .push((items[pair[1]].y, edge_id, hop));
        }
    }
    for (&id, ports) in &mut incoming {
        ports.sort_unstable();
        let hops = ports.iter().map(|&(_, edge_id, hop)| (edge_id, hop));
        spread_ports(&items[id], hops, IN_PORT_GAP, IN_PORT_NUDGE, &mut in_y);
    }
    for (&id, ports) in &mut outgoing {
        ports.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let hops = ports.iter().map(|&(_, edge_id, hop)| (edge_id, hop));
        spread_ports(&items[id], hops, OUT_PORT_GAP, 0.0, &mut out_y);
    }
    // A bend point carries one edge: its in and out heights agree.
    for (edge_id, route) in routes.iter().enumerate() {
        for hop in 1..route.len().saturating_sub(1) {
            if let Some(&y) = in_y.get(&(edge_id, hop - 1)) {
                out_y.insert((edge_id, hop), y);
            }
        }
    }
    (out_y, in_y)
}

/// Spreads the `(edge, hop)` ports of one side of `item`, already in
/// top-to-bottom order, `gap` apart around the middle of that side and
/// `nudge` lower (a bend point has no height: its ports coincide).
fn spread_ports(
    item: &Placed,
    ports: impl ExactSizeIterator<Item = (usize, usize)>,
    gap: f64,
    nudge: f64,
    y: &mut Ports,
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

/// The walk both layer passes make: sweeps alternately from the leaves'
/// side and from the output's, each visiting every layer but the one it
/// starts from (which has no neighbours on the side it follows).
fn sweep_layers(layer_count: usize, mut visit: impl FnMut(usize, bool)) {
    for sweep in 0..SWEEPS {
        let from_leaves = sweep % 2 == 0;
        if from_leaves {
            for layer in 1..layer_count {
                visit(layer, from_leaves);
            }
        } else {
            for layer in (0..layer_count.saturating_sub(1)).rev() {
                visit(layer, from_leaves);
            }
        }
    }
}

/// The mean of `value` over `neighbours`; `None` when there are none.
fn mean(neighbours: &[usize], value: impl Fn(usize) -> f64) -> Option<f64> {
    (!neighbours.is_empty())
        .then(|| neighbours.iter().map(|&n| value(n)).sum::<f64>() / neighbours.len() as f64)
}

/// Moves items up or down, keeping each layer's order and gaps, so that each
/// sits level with the mean of its neighbours: chains run straight and a long
/// edge does not dip around the columns it crosses.
fn straighten(layers: &[Vec<usize>], items: &mut [Placed]) {
    let centre = |item: &Placed| item.y + item.height / 2.0;
    sweep_layers(layers.len(), |layer, from_leaves| {
        let ids = &layers[layer];
        let desired: Vec<f64> = ids
            .iter()
            .map(|&id| {
                let item = &items[id];
                mean(item.neighbours(from_leaves), |n| centre(&items[n]))
                    .map_or(item.y, |level| level - item.height / 2.0)
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
    });
}

/// Orders each layer to cut crossings: sweeps that sort items by the mean
/// position of their neighbours in the layer before, then after.
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
    sweep_layers(layers.len(), |layer, from_leaves| {
        let mut keyed: Vec<(f64, f64, usize)> = layers[layer]
            .iter()
            .map(|&id| {
                let key = mean(items[id].neighbours(from_leaves), |n| position[n])
                    .unwrap_or(position[id]);
                (key, position[id], id)
            })
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        layers[layer] = keyed.into_iter().map(|k| k.2).collect();
        place(&layers[layer], &mut position);
    });
}
