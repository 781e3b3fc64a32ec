//! Seeing the tape: chapter 14's node cards and reverse ledger as aligned
//! text or Markdown, the graph as Graphviz DOT or a self-contained SVG, and a
//! [`Timeline`] of stored gradients across repeated passes.
//!
//! Every view of a [`BackwardPass`](crate::BackwardPass) is bounded by
//! [`RenderLimits`]: past the limit it prints a
//! [`PassSummary`](crate::PassSummary) (counts, the output, the largest
//! adjoints) instead of a multi-megabyte dump. The SVG comes from our own
//! small layered layout, so a fresh machine needs no Graphviz install.
//!
//! One file per product, in `render/`:
//!
//! | file | what it holds |
//! |---|---|
//! | `numbers.rs` | [`Numbers`]: fixed decimals or significant digits |
//! | `view.rs` | [`TapeView`], [`RenderLimits`], the model a view reads, the summary, the words in a box and on an arrow |
//! | `table.rs` | aligned-text and Markdown tables: node cards, reverse ledger |
//! | `dot.rs` | the graph as Graphviz DOT |
//! | `layout.rs` | the layered layout: columns, bend points, crossing order, ports |
//! | `svg.rs` | SVG pieces (page preamble, title, text, cards), the graph picture, the summary card |
//! | `timeline.rs` | [`Timeline`]: stored gradients step by step, as a table or cards |

mod dot;
mod geometry;
mod layout;
mod numbers;
mod svg;
mod table;
mod timeline;
mod view;

pub use numbers::Numbers;
pub use timeline::{Timeline, TimelineStep};
pub use view::{RenderLimits, TapeView};
