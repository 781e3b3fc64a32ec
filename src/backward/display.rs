//! A report printed as a table of its rows, then the verdict.

use std::fmt;

use super::matching::inputs;
use super::{BackwardReport, BackwardRow, RowKind, RowVerdict};

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
