//! Checking a student's own backward pass, statement by statement:
//! [`BackwardReport`], what `#[backward(f)]`'s `_check` returns.
//!
//! ```
//! use autodiff::prelude::*;
//!
//! #[differentiable]
//! fn loss(w: [f64; 3], #[constant] x: [f64; 3]) -> f64 {
//!     let mut y = 0.0;
//!     for i in 0..3 {
//!         let z = w[i] * x[i];
//!         y += z.sin();
//!     }
//!     y * y
//! }
//!
//! #[backward(loss)]
//! fn loss_backward(w: [f64; 3], #[constant] x: [f64; 3]) -> [f64; 3] {
//!     let y: f64 = (0..3).map(|i| (w[i] * x[i]).sin()).sum();
//!     let y_bar = 2.0 * y;
//!     let mut w_bar = [0.0; 3];
//!     for i in 0..3 {
//!         let z_bar = y_bar * (w[i] * x[i]).cos();
//!         w_bar[i] = z_bar * x[i];
//!     }
//!     w_bar
//! }
//!
//! let report = loss_backward_check([0.5, -1.0, 2.0], [1.0, 0.3, -0.7])?;
//! assert!(report.passed());
//! // One row for `y_bar`, one for `z_bar` in each iteration (`i = 0, 1,
//! // 2`), one for `w_bar`'s three elements, one for the returned gradient.
//! assert_eq!(report.rows().len(), 6);
//! assert_eq!(report.rows()[1].indices()[0].to_string(), "i = 0");
//! assert!(report.first_wrong().is_none());
//! # Ok::<(), autodiff::ScalarAutodiffError>(())
//! ```
//!
//! # The matching rule
//!
//! The student's adjoint of `f`'s binding `z` is named `z_bar` (or, in a
//! function that uses no `_bar` name, `dz`, `d_z` or the lesson's
//! `dL_dz`). Each number a statement writes into an adjoint is compared
//! with the exact adjoint of the same element of `f`'s binding — the
//! gradient of the node that binding held, on `f`'s tape — found this way:
//!
//! 1. **Judged at its last write.** An element of an adjoint is judged
//!    once the student's code stops writing it within the `let` that
//!    declared it: an accumulation `x_bar[i] += ..` over a loop is judged
//!    complete, not at each partial sum; an adjoint declared inside a loop
//!    (`for j { let z_bar = ..; }`) is judged in each iteration. Zero
//!    initialisations are not judged.
//! 2. **The same iteration.** The loops around the student's `let` pick the
//!    iteration of `f`'s binding: by the loop variable's name and value
//!    (`j = 2` in both), or, where the student's loops name no variable of
//!    `f`'s, by nesting position. A binding `f` writes several times in that
//!    iteration is taken at its last write (`z += ..` over `i`: the sum).
//! 3. **The same element.** `w1_bar[i][j]` is `w1[i][j]`. A scalar binding
//!    inside `f`'s loops (`for j { let z = ..; }`) may be written by the
//!    student as an array over those loops: `z_bar[j]` is `z` at `j`.
//! 4. **A name bound again.** Where `f` binds a name several times in that
//!    iteration (`let h = w * x; let h = h.tanh();`) and the student
//!    declares its adjoint as many times there, the student's first `let
//!    h_bar` is the adjoint of `f`'s last `h`, the next of the one before,
//!    as a backward pass walks the statements in reverse. With another
//!    count, every `h_bar` is the last `h`'s.
//!
//! A binding `f` rewrites from itself in a loop (a recurrence, `a =
//! (w[j] * a).sin()` over `j`) has a different adjoint in every
//! iteration; an adjoint of it declared outside that loop is not judged
//! (its row says why), and the statements inside the loop are.
//!
//! A statement's row is *exact* when every number is within 1e-12 of the
//! exact adjoint (relative to it where it exceeds 1), *approximate* within
//! 1e-6, and *wrong* beyond. A name `f` has no binding for (a typo), or an
//! element no iteration of `f` matches, has no counterpart: its row says
//! so and is not judged. An element of `f` that is a constant (no
//! gradient flows to it: a masked entry never written) is not judged
//! either. The returned gradient is compared with `f_grad`'s, parameter by
//! parameter.
//!
//! The verdict names the first wrong statement whose inputs are right:
//! rows in the order they were completed, the first wrong one whose `_bar`
//! inputs (the adjoints its right-hand side reads) all agree. A wrong row
//! that reads a wrong adjoint only inherits its mistake.
//!
//! # Where the code is
//!
//! This file holds the report's types. `matching` pairs each number the
//! student's statements write with the exact adjoint of `f`'s binding by
//! the rule above, and names the culprit; `display` prints a report as a
//! table of its rows and the verdict.

mod display;
mod matching;

use std::fmt;

use autodiff_core::Iteration;

use crate::__private::{ExactAdjoint as Exact, Write};
use matching::{adjoint_rows, culprit, missing_iterations};

/// Numbers this close to the exact adjoint (relative above 1) are exact.
pub const EXACT_TOLERANCE: f64 = 1e-12;

/// Numbers this close to the exact adjoint (relative above 1) are
/// approximate; anything further is wrong.
pub const APPROXIMATE_TOLERANCE: f64 = 1e-6;

/// How one row of a [`BackwardReport`] compares with the exact adjoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowVerdict {
    /// Every number within [`EXACT_TOLERANCE`].
    Exact,
    /// Every number within [`APPROXIMATE_TOLERANCE`], some beyond exact.
    Approximate,
    /// Some number beyond [`APPROXIMATE_TOLERANCE`].
    Wrong,
    /// Nothing in `f` to compare with (see [`BackwardRow::note`]).
    NoCounterpart,
}

impl fmt::Display for RowVerdict {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Self::Exact => "exact",
            Self::Approximate => "approximate",
            Self::Wrong => "WRONG",
            Self::NoCounterpart => "no counterpart",
        })
    }
}

/// One number of a row: the element, where it was last written, the
/// student's value and the exact one (`None`: not compared).
#[derive(Clone, Debug, PartialEq)]
pub struct BackwardElement {
    path: Vec<usize>,
    iterations: Vec<Iteration>,
    yours: f64,
    exact: Option<f64>,
}

impl BackwardElement {
    /// The element's index path (`[2, 1]` for `w1_bar[2][1]`; empty for a scalar).
    pub fn path(&self) -> &[usize] {
        &self.path
    }

    /// The loop iterations of the element's last write, outermost first.
    pub fn iterations(&self) -> &[Iteration] {
        &self.iterations
    }

    /// The student's number.
    pub fn yours(&self) -> f64 {
        self.yours
    }

    /// The exact adjoint, `None` when there is nothing to compare with.
    pub fn exact(&self) -> Option<f64> {
        self.exact
    }

    /// `|yours − exact|`, when compared.
    pub fn difference(&self) -> Option<f64> {
        self.exact.map(|exact| (self.yours - exact).abs())
    }

    fn verdict(&self) -> Option<RowVerdict> {
        let exact = self.exact?;
        let difference = (self.yours - exact).abs();
        let scale = exact.abs().max(1.0);
        Some(if difference <= EXACT_TOLERANCE * scale {
            RowVerdict::Exact
        } else if difference <= APPROXIMATE_TOLERANCE * scale {
            RowVerdict::Approximate
        } else {
            RowVerdict::Wrong
        })
    }
}

/// What a row stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// An adjoint statement of the student's function.
    Adjoint,
    /// The returned gradient of one parameter, against `f_grad`'s.
    Returned,
}

/// One statement's adjoint (or one parameter's returned gradient) in a
/// [`BackwardReport`].
#[derive(Clone, Debug, PartialEq)]
pub struct BackwardRow {
    name: &'static str,
    line: u32,
    kind: RowKind,
    indices: Vec<Iteration>,
    elements: Vec<BackwardElement>,
    reads: &'static [&'static str],
    note: Option<String>,
    completed: usize,
}

impl BackwardRow {
    /// The adjoint as written (`z_bar`), or the parameter's name for a
    /// returned gradient.
    pub fn name(&self) -> &str {
        self.name
    }

    /// The 1-based source line where the student's statement starts (for
    /// a returned gradient, the line of the returned expression).
    pub fn line(&self) -> u32 {
        self.line
    }

    /// Whether this is an adjoint statement or a returned gradient.
    pub fn kind(&self) -> RowKind {
        self.kind
    }

    /// The loops around the adjoint's `let` and their values (`j = 2`),
    /// outermost first; empty for one declared outside every loop.
    pub fn indices(&self) -> &[Iteration] {
        &self.indices
    }

    /// Every number of the row.
    pub fn elements(&self) -> &[BackwardElement] {
        &self.elements
    }

    /// The student's numbers, element by element.
    pub fn yours(&self) -> Vec<f64> {
        self.elements.iter().map(|element| element.yours).collect()
    }

    /// The exact adjoints, element by element (`None`: not compared).
    pub fn exact(&self) -> Vec<Option<f64>> {
        self.elements.iter().map(|element| element.exact).collect()
    }

    /// The largest `|yours − exact|` over the compared elements.
    pub fn max_abs_difference(&self) -> Option<f64> {
        self.elements
            .iter()
            .filter_map(BackwardElement::difference)
            .reduce(f64::max)
    }

    /// Why there is nothing to compare with, for a row without counterpart.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// How the row compares.
    pub fn verdict(&self) -> RowVerdict {
        let verdicts: Vec<RowVerdict> = self
            .elements
            .iter()
            .filter_map(BackwardElement::verdict)
            .collect();
        if verdicts.is_empty() {
            RowVerdict::NoCounterpart
        } else if verdicts.contains(&RowVerdict::Wrong) {
            RowVerdict::Wrong
        } else if verdicts.contains(&RowVerdict::Approximate) {
            RowVerdict::Approximate
        } else {
            RowVerdict::Exact
        }
    }

    /// The element to show: the worst compared one, else the first.
    fn shown(&self) -> Option<&BackwardElement> {
        self.elements
            .iter()
            .filter(|element| element.exact.is_some())
            .max_by(|a, b| {
                a.difference()
                    .partial_cmp(&b.difference())
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .or_else(|| self.elements.first())
    }

    /// `z_bar`, `w1_bar[2][1]`.
    fn place(&self, element: Option<&BackwardElement>) -> String {
        let mut place = self.name.to_owned();
        if let Some(element) = element {
            for index in &element.path {
                place.push_str(&format!("[{index}]"));
            }
        }
        place
    }

    /// `at j = 2` for the element's iterations, or nothing.
    fn at(element: Option<&BackwardElement>, indices: &[Iteration]) -> String {
        let iterations = element.map_or(indices, |element| &element.iterations[..]);
        if iterations.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = iterations.iter().map(ToString::to_string).collect();
            list.join(", ")
        }
    }
}

/// The comparison of a student's backward pass with the exact adjoints of
/// `f`, one row per adjoint statement in the order computed, then one per
/// returned parameter gradient; made by `#[backward(f)]`'s `_check`.
///
/// See the [module](self) for how rows are matched and judged.
#[derive(Clone, Debug, PartialEq)]
pub struct BackwardReport {
    function: &'static str,
    rows: Vec<BackwardRow>,
    culprit: Option<usize>,
    /// An iteration of `f` that an adjoint computed in loops has no row
    /// for, per adjoint name (a loop that stops early: `1..3` for `0..3`).
    missing: Vec<(&'static str, Vec<Iteration>)>,
}

impl BackwardReport {
    /// Every row: adjoint statements in the order completed, then the
    /// returned gradient parameter by parameter.
    pub fn rows(&self) -> &[BackwardRow] {
        &self.rows
    }

    /// Whether no row is wrong.
    pub fn passed(&self) -> bool {
        self.rows
            .iter()
            .all(|row| row.verdict() != RowVerdict::Wrong)
    }

    /// The statement the verdict names: the first wrong row whose inputs
    /// (the adjoints it reads) agree, `None` when nothing is wrong.
    pub fn first_wrong(&self) -> Option<&BackwardRow> {
        self.culprit.map(|index| &self.rows[index])
    }

    /// Builds the report (generated code calls this).
    #[doc(hidden)]
    pub fn build(
        function: &'static str,
        writes: Vec<Write>,
        declarations: Vec<Vec<Iteration>>,
        exact: Vec<Exact>,
        returned: Vec<(&'static str, u32, Vec<f64>, Vec<f64>)>,
    ) -> Self {
        let mut rows = adjoint_rows(writes, &declarations, &exact);
        rows.extend(returned.into_iter().map(|(name, line, yours, exact)| {
            BackwardRow {
                name,
                line,
                kind: RowKind::Returned,
                indices: Vec::new(),
                elements: yours
                    .into_iter()
                    .zip(exact)
                    .enumerate()
                    .map(|(index, (yours, exact))| BackwardElement {
                        path: vec![index],
                        iterations: Vec::new(),
                        yours,
                        exact: Some(exact),
                    })
                    .collect(),
                reads: &[],
                note: None,
                completed: usize::MAX,
            }
        }));
        let culprit = culprit(&rows);
        let missing = missing_iterations(&rows, &exact);
        Self {
            function,
            rows,
            culprit,
            missing,
        }
    }

    /// The first iteration of `f` in which the adjoint `name` (as the
    /// student writes it, `d_bar`), computed inside loops, has no row: the
    /// student's loop stops early or starts late. `None` when every
    /// iteration of `f`'s loops named as the student's has one.
    pub fn missing_iteration(&self, name: &str) -> Option<&[Iteration]> {
        self.missing
            .iter()
            .find(|(missing, _)| *missing == name)
            .map(|(_, iterations)| iterations.as_slice())
    }
}
