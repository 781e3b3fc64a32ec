//! The [`Timeline`]: stored gradients of chosen scalars snapshotted after
//! each step of a sequence of passes, as a table or as a row of cards.

use std::fmt::{self, Write as _};

use super::geometry::{BASELINE, CHAR, LINE, MARGIN, PAD, TITLE};
use super::numbers::Numbers;
use super::svg::{self, Card, INK};
use super::table::Table;
use super::view::unique_names;
use crate::tape::Scalar;

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

/// Cards per row of the picture; a longer timeline wraps like text.
const PER_ROW: usize = 5;
/// Horizontal and vertical space between cards, room for an arrow.
const CARD_GAP: f64 = 36.0;
/// Space between a card's caption and its first gradient.
const CAPTION_GAP: f64 = 6.0;

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

    fn table(&self) -> Table {
        let mut columns = vec![("step", false)];
        columns.extend(self.names.iter().map(|name| (name.as_str(), true)));
        columns.push(("outcome", false));
        let mut table = Table::new(&columns);
        let numbers = self.numbers.unwrap_or(Numbers::TABLE);
        for step in &self.steps {
            let mut row = vec![step.caption.clone()];
            row.extend(step.gradients.iter().map(|&g| numbers.format_tracked(g)));
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

    /// The lines of each step's card: `name  value` per watched scalar
    /// (and whether it changed since the previous step), then the error of
    /// a rejected step, wrapped.
    fn cards(&self, numbers: Numbers) -> Vec<Vec<(String, bool)>> {
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
            .map(|&g| numbers.format_tracked(g).chars().count())
            .max()
            .unwrap_or(0);
        let mut cards = Vec::with_capacity(self.steps.len());
        let mut previous: Option<&[Option<f64>]> = None;
        for step in &self.steps {
            let mut lines = Vec::new();
            for (k, (name, &gradient)) in self.names.iter().zip(&step.gradients).enumerate() {
                // Bits, not `==`: a NaN that stays NaN has not changed.
                let changed =
                    previous.is_some_and(|p| p[k].map(f64::to_bits) != gradient.map(f64::to_bits));
                let value = numbers.format_tracked(gradient);
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
        cards
    }

    /// One card per step, left to right, each listing the stored gradients;
    /// values that changed since the previous card are bold and coloured,
    /// rejected steps have a red border and their error underneath.
    pub fn to_svg(&self) -> String {
        let numbers = self.numbers.unwrap_or(Numbers::PICTURE);
        let cards = self.cards(numbers);
        let chars = self
            .steps
            .iter()
            .map(|s| s.caption.chars().count())
            .chain(cards.iter().flatten().map(|l| l.0.chars().count()))
            .max()
            .unwrap_or(1);
        let card_width = chars as f64 * CHAR + 2.0 * PAD;
        let rows = cards.iter().map(Vec::len).max().unwrap_or(0);
        let card_height = (rows + 1) as f64 * LINE + 2.0 * PAD + CAPTION_GAP;
        let columns = self.steps.len().clamp(1, PER_ROW);
        let card_rows = self.steps.len().div_ceil(PER_ROW);
        let title = "stored gradients after each step (changed values in bold)";
        let width = (2.0 * MARGIN + columns as f64 * (card_width + CARD_GAP) - CARD_GAP)
            .max(2.0 * MARGIN + title.len() as f64 * CHAR);
        let height = 2.0 * MARGIN + TITLE + card_rows as f64 * (card_height + CARD_GAP) - CARD_GAP;
        let mut out = svg::open(width, height, true);
        svg::title(&mut out, title);
        for (k, (step, lines)) in self.steps.iter().zip(&cards).enumerate() {
            let x = MARGIN + (k % PER_ROW) as f64 * (card_width + CARD_GAP);
            let top = MARGIN + TITLE + (k / PER_ROW) as f64 * (card_height + CARD_GAP);
            let (stroke, fill) = if step.rejected.is_some() {
                ("#b03030", "#fdeeee")
            } else {
                ("#2f5d8a", "#eaf2fb")
            };
            let card = Card {
                x,
                y: top,
                width: card_width,
                height: card_height,
                fill,
                stroke,
                stroke_width: 1.3,
                dashed: false,
            };
            card.open(&mut out, "class=\"step\"");
            let caption = top + PAD + BASELINE;
            svg::text(
                &mut out,
                x + PAD,
                caption,
                " font-weight=\"bold\"",
                &step.caption,
            );
            for (row, (line, changed)) in lines.iter().enumerate() {
                let style = if *changed {
                    " xml:space=\"preserve\" font-weight=\"bold\" fill=\"#a0522d\""
                } else {
                    " xml:space=\"preserve\""
                };
                let y = caption + (row + 1) as f64 * LINE + CAPTION_GAP;
                svg::text(&mut out, x + PAD, y, style, line);
            }
            out.push_str("</g>\n");
            // Arrows join cards within a row; a new row reads on like text.
            if k + 1 < self.steps.len() && (k + 1) % PER_ROW != 0 {
                let y = top + card_height / 2.0;
                let _ = writeln!(
                    out,
                    "<path d=\"M{:.1},{y:.1} L{:.1},{y:.1}\" stroke=\"{INK}\" stroke-width=\"1.4\" marker-end=\"url(#arrow)\"/>",
                    x + card_width + 6.0,
                    x + card_width + CARD_GAP - 6.0
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
