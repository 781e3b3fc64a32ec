//! Matching the student's writes with `f`'s exact adjoints: the rows of a
//! report (the latest write of each element, grouped by statement), the
//! iteration and element of `f` each is compared with, the notes on what
//! is not judged, and the row the verdict names.

use autodiff_core::Iteration;

use super::{BackwardElement, BackwardRow, RowKind, RowVerdict};
use crate::__private::{ExactAdjoint as Exact, StudentStatement, Write};

/// For each adjoint the student computes inside loops, the first
/// iteration of `f`'s binding (over the loop variables the student's
/// loops name) with no row of the student's.
pub(super) fn missing_iterations(
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
pub(super) fn adjoint_rows(
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
pub(super) fn culprit(rows: &[BackwardRow]) -> Option<usize> {
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
pub(super) fn inputs(rows: &[BackwardRow], index: usize) -> Vec<usize> {
    let row = &rows[index];
    (0..index)
        .filter(|&other| row.reads.contains(&rows[other].name))
        .collect()
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
