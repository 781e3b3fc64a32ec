//! The pictures' geometry, in pixels, which the layout computes with and
//! the SVG writer draws with. The font is monospace so that text widths
//! can be computed from character counts without font metrics.

pub(super) const FONT: &str = "DejaVu Sans Mono, Menlo, Consolas, monospace";
pub(super) const FONT_SIZE: f64 = 13.0;
pub(super) const LABEL_SIZE: f64 = 12.0;
pub(super) const CHAR: f64 = 0.6 * FONT_SIZE;
pub(super) const LABEL_CHAR: f64 = 0.6 * LABEL_SIZE;
pub(super) const LINE: f64 = 17.0;
pub(super) const PAD: f64 = 9.0;
pub(super) const MARGIN: f64 = 20.0;
pub(super) const TITLE: f64 = 34.0;
/// The first baseline in a box sits one font size below its top.
pub(super) const BASELINE: f64 = FONT_SIZE;
