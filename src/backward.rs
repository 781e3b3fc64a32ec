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

use std::fmt;

use autodiff_core::Iteration;

use crate::__private::{ExactAdjoint as Exact, StudentStatement, Write};

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

/// For each adjoint the student computes inside loops, the first
/// iteration of `f`'s binding (over the loop variables the student's
/// loops name) with no row of the student's.
fn missing_iterations(
    rows: &[BackwardRow],
    exact: &[Exact],
) -> Vec<(&'static str, Vec<Iteration>)> {
    let mut missing = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for row in rows {
        if row.kind != RowKind::Adjoint || row.indices.is_empty() || seen.contains(&row.name) {
            continue;
        }
        seen.push(row.name);
        let ours: Vec<&Vec<Iteration>> = rows
            .iter()
            .filter(|other| other.kind == RowKind::Adjoint && other.name == row.name)
            .map(|other| &other.indices)
            .collect();
        let names: Vec<&str> = row.indices.iter().map(|iteration| iteration.name).collect();
        let values = |iterations: &[Iteration]| -> Option<Vec<i64>> {
            names
                .iter()
                .map(|name| {
                    iterations
                        .iter()
                        .find(|iteration| iteration.name == *name && !iteration.counted)
                        .map(|iteration| iteration.value)
                })
                .collect()
        };
        let written: Vec<Vec<i64>> = ours.iter().filter_map(|ours| values(ours)).collect();
        let binding = binding_of(row.name);
        let first = exact
            .iter()
            .filter(|probe| probe.name == binding && probe.adjoint.is_some())
            .find_map(|probe| {
                let theirs = values(&probe.iterations)?;
                (!written.contains(&theirs)).then(|| {
                    names
                        .iter()
                        .zip(&theirs)
                        .map(|(name, value)| Iteration {
                            name,
                            value: *value,
                            counted: false,
                        })
                        .collect::<Vec<_>>()
                })
            });
        if let Some(first) = first {
            missing.push((row.name, first));
        }
    }
    missing
}

/// The latest write of every element, grouped into rows by declaration
/// and statement, in the order completed.
fn adjoint_rows(
    writes: Vec<Write>,
    declarations: &[Vec<Iteration>],
    exact: &[Exact],
) -> Vec<BackwardRow> {
    let mut latest: std::collections::BTreeMap<(usize, Vec<usize>), Write> = Default::default();
    for write in writes {
        latest.insert((write.declaration, write.path.clone()), write);
    }
    let mut rows: Vec<BackwardRow> = Vec::new();
    let mut groups: Vec<((usize, *const StudentStatement), usize)> = Vec::new();
    let mut by_sequence: Vec<Write> = latest.into_values().collect();
    by_sequence.sort_by_key(|write| write.sequence);
    // The `let`s of each name in each iteration, in order: the student's
    // second `let h_bar` there is the adjoint of `f`'s second-last `let h`
    // (see `Shadow`).
    let mut lets: Vec<(&str, &[Iteration], Vec<usize>)> = Vec::new();
    for write in &by_sequence {
        let context = declarations[write.declaration].as_slice();
        match lets
            .iter_mut()
            .find(|(name, around, _)| *name == write.name && *around == context)
        {
            Some((_, _, ids)) => {
                if !ids.contains(&write.declaration) {
                    ids.push(write.declaration);
                }
            }
            None => lets.push((write.name, context, vec![write.declaration])),
        }
    }
    let shadow = |write: &Write| {
        let context = declarations[write.declaration].as_slice();
        lets.iter()
            .find(|(name, around, _)| *name == write.name && *around == context)
            .map_or(
                Shadow {
                    ordinal: 0,
                    lets: 1,
                },
                |(_, _, ids)| {
                    let mut ids = ids.clone();
                    ids.sort_unstable();
                    Shadow {
                        ordinal: ids
                            .iter()
                            .position(|id| *id == write.declaration)
                            .unwrap_or(0),
                        lets: ids.len(),
                    }
                },
            )
    };
    for write in by_sequence {
        let shadow = shadow(&write);
        let key = (
            write.declaration,
            write.statement as *const StudentStatement,
        );
        let context = &declarations[write.declaration];
        let (found, note) = find_exact(exact, write.name, context, &write.path, shadow);
        let element = BackwardElement {
            path: write.path.clone(),
            iterations: write.iterations.clone(),
            yours: write.value,
            exact: found,
        };
        match groups.iter().find(|(other, _)| *other == key) {
            Some(&(_, index)) => {
                let row = &mut rows[index];
                row.elements.push(element);
                row.completed = row.completed.max(write.sequence);
                if row.note.is_none() {
                    row.note = note;
                }
            }
            None => {
                groups.push((key, rows.len()));
                rows.push(BackwardRow {
                    name: write.name,
                    line: write.statement.line,
                    kind: RowKind::Adjoint,
                    indices: context.clone(),
                    elements: vec![element],
                    reads: write.statement.reads,
                    note,
                    completed: write.sequence,
                });
            }
        }
    }
    for row in &mut rows {
        if row.elements.iter().any(|element| element.exact.is_some()) {
            row.note = None;
        }
    }
    rows.sort_by_key(|row| row.completed);
    rows
}

/// The binding an adjoint's name stands for: `z` for `z_bar`, `dz`,
/// `d_z`, `dL_dz`.
pub(crate) fn binding_of(name: &str) -> &str {
    if let Some(base) = name.strip_suffix("_bar") {
        return base;
    }
    for prefix in ["dL_d", "dl_d", "d_"] {
        if let Some(base) = name.strip_prefix(prefix) {
            if !base.is_empty() {
                return base;
            }
        }
    }
    name.strip_prefix('d')
        .filter(|base| !base.is_empty())
        .unwrap_or(name)
}

/// Which of the student's `let`s of one adjoint name in one iteration a
/// write belongs to: the `ordinal`-th of `lets`.
#[derive(Clone, Copy)]
struct Shadow {
    ordinal: usize,
    lets: usize,
}

/// The exact adjoint of element `path` of the binding `name` stands for,
/// in the iteration the loops `context` around its `let` pick; or why
/// there is none.
///
/// Where `f` binds the name again in that iteration (`let h = ..; let h
/// = h.tanh();`) and the student declares its adjoint as many times, the
/// student's first `let h_bar` is the adjoint of `f`'s last `h`, the
/// second of the one before, and so on, as a backward pass walks the
/// statements in reverse; otherwise the last binding's.
fn find_exact(
    exact: &[Exact],
    name: &str,
    context: &[Iteration],
    path: &[usize],
    shadow: Shadow,
) -> (Option<f64>, Option<String>) {
    let binding = binding_of(name);
    let candidates: Vec<&Exact> = exact.iter().filter(|probe| probe.name == binding).collect();
    if candidates.is_empty() {
        return (
            None,
            Some(format!("`f` has no binding `{binding}` (for `{name}`)")),
        );
    }
    // Each binding of the name there, at its last write: a `let` starts
    // one, an assignment (`h = ..`, `h += ..`) writes the one before.
    let mut bindings: Vec<&Exact> = Vec::new();
    for probe in candidates
        .iter()
        .filter(|probe| probe.path == path && same_iteration(context, &probe.iterations, &[]))
    {
        match bindings.last_mut() {
            Some(last) if probe.reassigned => *last = probe,
            _ => bindings.push(probe),
        }
    }
    let same_element = match bindings.len() {
        0 => None,
        count if count > 1 && count == shadow.lets => Some(bindings[count - 1 - shadow.ordinal]),
        count => Some(bindings[count - 1]),
    };
    if let Some(probe) = same_element {
        if let Some(note) = recurrence_note(&candidates, probe, context, binding) {
            return (None, Some(note));
        }
        return (probe.adjoint, constant_note(probe, binding));
    }
    // A scalar binding inside loops, written by the student as an array
    // over them: the path is the loops' values.
    if !path.is_empty() && candidates.iter().all(|probe| probe.path.is_empty()) {
        if let Some(probe) = candidates
            .iter()
            .rev()
            .find(|probe| same_iteration(context, &probe.iterations, path))
        {
            return (probe.adjoint, constant_note(probe, binding));
        }
    }
    let at = if path.is_empty() {
        String::new()
    } else {
        format!(" element {path:?}")
    };
    (
        None,
        Some(format!("no iteration of `{binding}`{at} in `f` matches")),
    )
}

/// A recurrence: `f` rewrites `binding` with a plain `=` in loops the
/// student's `let` is outside of (`a = (w[j] * a).sin()` over `j`). Its
/// adjoint changes from one iteration to the next, so the student's
/// last write (the adjoint of the value before the loop) and `f`'s last
/// value (after it) are not the same quantity: not judged, and said so.
fn recurrence_note(
    candidates: &[&Exact],
    found: &Exact,
    context: &[Iteration],
    binding: &str,
) -> Option<String> {
    let looped = |probe: &&&Exact| {
        probe.reassigned
            && probe
                .iterations
                .iter()
                .any(|iteration| !context.iter().any(|ours| ours.name == iteration.name))
    };
    let recurrent = candidates
        .iter()
        .filter(|probe| probe.path == found.path)
        .find(looped)?;
    let loops: Vec<&str> = recurrent
        .iterations
        .iter()
        .filter(|iteration| !context.iter().any(|ours| ours.name == iteration.name))
        .map(|iteration| iteration.name)
        .collect();
    Some(format!(
        "`f` rewrites `{binding}` in each iteration of `{}`: a recurrence, whose adjoint is checked through the statements inside that loop",
        loops.join("`, `")
    ))
}

fn constant_note(probe: &Exact, binding: &str) -> Option<String> {
    probe
        .adjoint
        .is_none()
        .then(|| format!("`{binding}` is a constant in `f` there (no gradient flows to it)"))
}

/// Whether `f`'s iterations `theirs` are the student's `ours` (the loops
/// around the student's `let`): shared variable names agree, or, with
/// none shared, the loops agree by position; the loops of `f` left over
/// then begin with the values `path`.
fn same_iteration(ours: &[Iteration], theirs: &[Iteration], path: &[usize]) -> bool {
    let shared = ours
        .iter()
        .any(|iteration| theirs.iter().any(|other| other.name == iteration.name));
    let mut used = vec![false; theirs.len()];
    if shared {
        for iteration in ours {
            if let Some(position) = theirs.iter().position(|other| other.name == iteration.name) {
                if theirs[position].value != iteration.value {
                    return false;
                }
                used[position] = true;
            }
        }
    } else {
        for (position, (iteration, other)) in ours.iter().zip(theirs).enumerate() {
            if iteration.value != other.value {
                return false;
            }
            used[position] = true;
        }
    }
    let left: Vec<i64> = theirs
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|(iteration, _)| iteration.value)
        .collect();
    path.len() <= left.len()
        && path
            .iter()
            .zip(&left)
            .all(|(index, value)| i64::try_from(*index).is_ok_and(|index| index == *value))
}

/// The first wrong row whose inputs agree, else the first wrong row.
fn culprit(rows: &[BackwardRow]) -> Option<usize> {
    let wrong: Vec<usize> = (0..rows.len())
        .filter(|&index| rows[index].verdict() == RowVerdict::Wrong)
        .collect();
    wrong
        .iter()
        .copied()
        .find(|&index| {
            inputs(rows, index)
                .iter()
                .all(|&input| rows[input].verdict() != RowVerdict::Wrong)
        })
        .or_else(|| wrong.first().copied())
}

/// The rows of the adjoints row `index` reads, completed before it.
fn inputs(rows: &[BackwardRow], index: usize) -> Vec<usize> {
    let row = &rows[index];
    (0..index)
        .filter(|&other| row.reads.contains(&rows[other].name))
        .collect()
}

impl fmt::Display for BackwardReport {
    /// A table of the rows, then the verdict.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let wrong = self
            .rows
            .iter()
            .filter(|row| row.verdict() == RowVerdict::Wrong)
            .count();
        writeln!(
            formatter,
            "your backward pass against the exact adjoints of `{}`: {} rows, {} wrong",
            self.function,
            self.rows.len(),
            wrong
        )?;
        writeln!(
            formatter,
            "{:>5}  {:<18} {:<14} {:>13} {:>13} {:>9}  verdict",
            "line", "adjoint", "at", "yours", "exact", "|diff|"
        )?;
        let mut returned_header = false;
        for row in &self.rows {
            if row.kind == RowKind::Returned && !returned_header {
                writeln!(formatter, "returned gradient, against f_grad:")?;
                returned_header = true;
            }
            let shown = row.shown();
            let mut place = row.place(shown);
            if row.kind == RowKind::Returned {
                place = format!("{}[{}]", row.name, shown.map_or(0, |e| e.path[0]));
            }
            if row.elements.len() > 1 {
                place.push_str(&format!(" ({})", row.elements.len()));
            }
            let at = BackwardRow::at(shown, &row.indices);
            let yours = shown.map_or(String::new(), |element| format!("{:.6}", element.yours));
            let exact = shown
                .and_then(|element| element.exact)
                .map_or("-".to_owned(), |exact| format!("{exact:.6}"));
            let difference = row
                .max_abs_difference()
                .map_or("-".to_owned(), |difference| format!("{difference:.1e}"));
            write!(
                formatter,
                "{:>5}  {:<18} {:<14} {:>13} {:>13} {:>9}  {}",
                row.line,
                place,
                at,
                yours,
                exact,
                difference,
                row.verdict()
            )?;
            if let Some(note) = &row.note {
                write!(formatter, " ({note})")?;
            }
            writeln!(formatter)?;
        }
        match self.first_wrong() {
            None => writeln!(
                formatter,
                "verdict: every adjoint and the returned gradient agree"
            ),
            Some(row) => {
                let shown = row
                    .elements
                    .iter()
                    .find(|element| element.verdict() == Some(RowVerdict::Wrong));
                let at = BackwardRow::at(shown, &row.indices);
                let at = if at.is_empty() {
                    String::new()
                } else {
                    format!(" at {at}")
                };
                let (yours, exact) = shown.map_or((0.0, 0.0), |element| {
                    (element.yours, element.exact.unwrap_or(f64::NAN))
                });
                let place = match row.kind {
                    RowKind::Adjoint => format!("`{}`", row.place(shown)),
                    RowKind::Returned => format!(
                        "the returned gradient of `{}`[{}]",
                        row.name,
                        shown.map_or(0, |e| e.path[0])
                    ),
                };
                write!(
                    formatter,
                    "verdict: line {}, {place}{at}: yours {yours:.6}, exact {exact:.6}",
                    row.line
                )?;
                let index = self.culprit.unwrap_or(0);
                let names = |inputs: &mut dyn Iterator<Item = usize>| -> Vec<&str> {
                    inputs
                        .map(|input| self.rows[input].name)
                        .fold(Vec::new(), |mut names, name| {
                            if !names.contains(&name) {
                                names.push(name);
                            }
                            names
                        })
                };
                let unchecked = |row: usize| self.rows[row].verdict() == RowVerdict::NoCounterpart;
                let inputs = inputs(&self.rows, index);
                let read = names(&mut inputs.iter().copied().filter(|&input| !unchecked(input)));
                // An adjoint `f` has nothing to compare with may be where
                // the mistake is: never said to agree.
                let uncompared =
                    names(&mut inputs.iter().copied().filter(|&input| unchecked(input)));
                let quoted = |names: &[&str]| {
                    names
                        .iter()
                        .map(|name| format!("`{name}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let all_uncompared = names(
                    &mut (0..self.rows.len())
                        .filter(|&row| self.rows[row].kind == RowKind::Adjoint && unchecked(row)),
                );
                match (row.kind, read.as_slice()) {
                    (RowKind::Returned, _) if !all_uncompared.is_empty() => writeln!(
                        formatter,
                        "; every adjoint statement that could be compared agrees — the returned value is not the adjoint computed, a contribution to it is missing, or a statement writing {}, which `f` has nothing to compare with, is wrong",
                        quoted(&all_uncompared)
                    ),
                    (RowKind::Returned, _) => writeln!(
                        formatter,
                        "; every adjoint statement agrees — the returned value is not the adjoint computed, or a contribution to it is missing"
                    ),
                    _ if !uncompared.is_empty() => writeln!(
                        formatter,
                        "; it reads {}, which `f` has nothing to compare with — the mistake is in this statement or in {}",
                        quoted(&uncompared),
                        if uncompared.len() == 1 { "that adjoint" } else { "those adjoints" }
                    ),
                    (_, []) => writeln!(
                        formatter,
                        "; it reads no other adjoint — this statement is wrong"
                    ),
                    (_, [one]) if self.missing_iteration(one).is_some() => {
                        let at = self.missing_iteration(one).unwrap_or_default();
                        writeln!(
                            formatter,
                            "; `{one}`, which it reads, agrees where you computed it, but has no row at {}, which `f` runs — a loop that stops early or starts late misses that contribution",
                            BackwardRow::at(None, at)
                        )
                    }
                    (_, [one]) => writeln!(
                        formatter,
                        "; `{one}`, which it reads, agrees — this statement's local derivative is wrong"
                    ),
                    (_, names)
                        if names.iter().any(|name| self.missing_iteration(name).is_some()) =>
                    {
                        let (name, at) = names
                            .iter()
                            .find_map(|name| Some((name, self.missing_iteration(name)?)))
                            .unwrap_or((&names[0], &[]));
                        writeln!(
                            formatter,
                            "; {}, which it reads, agree where you computed them, but `{name}` has no row at {}, which `f` runs — a loop that stops early or starts late misses that contribution",
                            quoted(names),
                            BackwardRow::at(None, at)
                        )
                    }
                    (_, names) => {
                        let names: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
                        writeln!(
                            formatter,
                            "; {}, which it reads, agree — this statement's local derivative is wrong",
                            names.join(", ")
                        )
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_bindings() {
        assert_eq!(binding_of("z_bar"), "z");
        assert_eq!(binding_of("y_hat_bar"), "y_hat");
        assert_eq!(binding_of("dL_dz1"), "z1");
        assert_eq!(binding_of("dw2"), "w2");
        assert_eq!(binding_of("d_w2"), "w2");
    }

    fn iteration(name: &'static str, value: i64) -> Iteration {
        Iteration {
            name,
            value,
            counted: false,
        }
    }

    #[test]
    fn iterations_match_by_name_then_by_position_then_by_path() {
        let (i, j) = (iteration("i", 1), iteration("j", 2));
        assert!(same_iteration(&[j], &[j, i], &[]));
        assert!(!same_iteration(&[iteration("j", 0)], &[j, i], &[]));
        // No shared name: by position.
        assert!(same_iteration(&[iteration("k", 2)], &[j, i], &[]));
        assert!(!same_iteration(&[iteration("k", 1)], &[j, i], &[]));
        // A scalar in loops j, i written as `z_bar[2]` outside every loop.
        assert!(same_iteration(&[], &[j, i], &[2]));
        assert!(!same_iteration(&[], &[j, i], &[1]));
        assert!(!same_iteration(&[], &[], &[0]));
    }
}
