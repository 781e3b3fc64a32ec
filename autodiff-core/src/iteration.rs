//! Which loop iteration a node was recorded in: the tape keeps the loops
//! the recording is inside (`i = 3`, then `j = 1` nested in it), so that an
//! error names the iteration where a NaN was born, not only the line.
//!
//! Generated code enters an iteration at the top of every loop body and
//! leaves it when the body ends (however it ends: `continue`, `break`,
//! `return`, `?`), through [`Tape::enter_iteration`]. The tape keeps the
//! loops entered now, for errors of the forward pass, and a log of where
//! each iteration began and ended among the nodes, so that an error of a
//! reverse pass can name the iteration its node was recorded in.

use std::fmt;

use crate::tape::Tape;

/// One loop iteration: the loop variable and its value (`i = 3`), or, for
/// a loop whose variable is not an integer (`for layer in &layers`,
/// `while`, `loop`), how many iterations came before this one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Iteration {
    /// The loop variable's name, or the loop's text when it has none that
    /// is an integer (`layer`, `while`, `loop`).
    pub name: &'static str,
    /// The variable's value, or the 0-based count of earlier iterations
    /// when [`counted`](Self::counted).
    pub value: i64,
    /// `value` counts iterations rather than being the variable's value.
    pub counted: bool,
}

impl Iteration {
    /// The iteration of a loop whose variable `name` has `value` (an
    /// integer), or, when `value` is `None`, the loop's `count`-th.
    pub fn of(name: &'static str, value: Option<i64>, count: i64) -> Self {
        match value {
            Some(value) => Self {
                name,
                value,
                counted: false,
            },
            None => Self {
                name,
                value: count,
                counted: true,
            },
        }
    }
}

impl fmt::Display for Iteration {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.counted {
            write!(formatter, "{} iteration {}", self.name, self.value)
        } else {
            write!(formatter, "{} = {}", self.name, self.value)
        }
    }
}

/// The loops a node was recorded in, outermost first: a small `Copy`
/// handle, so that a [`Label`](crate::Label) stays `Copy` and an error
/// stays small.
///
/// Each distinct list is stored once for the life of the program (they are
/// made only when an error or a label is read, and a program's loops have
/// few distinct iterations that fail).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Iterations(Option<&'static [Iteration]>);

impl Iterations {
    /// No loop.
    pub const NONE: Self = Self(None);

    /// Not a list: the mark of a label made by [`Label::binding`], which
    /// labelling reads and never stores ([`from_frames`](Self::from_frames)
    /// never makes an empty list).
    pub(crate) const BINDING: Self = Self(Some(&[]));

    /// Whether this is [`BINDING`](Self::BINDING)'s mark.
    #[inline(always)]
    pub(crate) fn marks_binding(self) -> bool {
        matches!(self.0, Some([]))
    }

    /// The list `frames`, outermost first.
    pub fn from_frames(frames: &[Iteration]) -> Self {
        if frames.is_empty() {
            return Self::NONE;
        }
        static INTERNED: std::sync::Mutex<Vec<&'static [Iteration]>> =
            std::sync::Mutex::new(Vec::new());
        let mut interned = INTERNED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(found) = interned.iter().find(|kept| **kept == frames) {
            return Self(Some(found));
        }
        let kept: &'static [Iteration] = Box::leak(frames.to_vec().into_boxed_slice());
        interned.push(kept);
        Self(Some(kept))
    }

    /// The loops, outermost first.
    pub fn as_slice(&self) -> &[Iteration] {
        self.0.unwrap_or_default()
    }

    /// Whether no loop is named.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }
}

impl fmt::Debug for Iterations {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.debug_list().entries(self.as_slice()).finish()
    }
}

impl fmt::Display for Iterations {
    /// `i = 3, j = 1`.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, iteration) in self.as_slice().iter().enumerate() {
            if n > 0 {
                formatter.write_str(", ")?;
            }
            write!(formatter, "{iteration}")?;
        }
        Ok(())
    }
}

/// An entry of the tape's log, 16 bytes: at node count `at`, loop `tag &
/// LOOP` began an iteration (`value`, counted when `tag & COUNTED`), or
/// ended (`tag & EXIT`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mark {
    at: u32,
    tag: u32,
    value: i64,
}

const EXIT: u32 = 1 << 31;
const COUNTED: u32 = 1 << 30;
const LOOP: u32 = COUNTED - 1;

/// The loops entered during a recording (their names, once per loop) and
/// the log of marks: one per iteration and one per loop's end, so that
/// recording pays one 16-byte push an iteration. Which loops a node (or
/// the recording now) is in is a replay of the log, made only for an error,
/// a label read or a probe.
#[derive(Default)]
pub(crate) struct Loops {
    names: Vec<&'static str>,
    marks: Vec<Mark>,
}

impl Loops {
    /// A loop named `name` begins; returns its index for its marks.
    #[inline]
    pub(crate) fn enter_loop(&mut self, name: &'static str) -> u32 {
        self.names.push(name);
        (self.names.len() - 1) as u32 & LOOP
    }

    /// Loop `index` begins an iteration at node count `at`.
    #[inline]
    pub(crate) fn iterate(&mut self, at: usize, index: u32, value: Option<i64>, count: i64) {
        let (tag, value) = match value {
            Some(value) => (index, value),
            None => (index | COUNTED, count),
        };
        self.marks.push(Mark {
            at: at as u32,
            tag,
            value,
        });
    }

    /// Loop `index` ends at node count `at`.
    #[inline]
    pub(crate) fn exit_loop(&mut self, at: usize, index: u32) {
        self.marks.push(Mark {
            at: at as u32,
            tag: index | EXIT,
            value: 0,
        });
    }

    /// The loops now: the whole log replayed.
    #[cold]
    pub(crate) fn now(&self) -> Iterations {
        Iterations::from_frames(&self.replay(usize::MAX))
    }

    /// The loops node `index` was recorded in: the marks replayed up to it.
    #[cold]
    pub(crate) fn at(&self, index: usize) -> Iterations {
        Iterations::from_frames(&self.replay(index))
    }

    /// The iterations open after the marks up to node `index`.
    pub(crate) fn replay(&self, index: usize) -> Vec<Iteration> {
        let mut open: Vec<(u32, Iteration)> = Vec::new();
        for mark in self
            .marks
            .iter()
            .take_while(|mark| mark.at as usize <= index)
        {
            let which = mark.tag & LOOP;
            let position = open.iter().rposition(|(other, _)| *other == which);
            if mark.tag & EXIT != 0 {
                if let Some(position) = position {
                    open.truncate(position);
                }
                continue;
            }
            let iteration = Iteration {
                name: self.names.get(which as usize).copied().unwrap_or(""),
                value: mark.value,
                counted: mark.tag & COUNTED != 0,
            };
            match position {
                // The next iteration of an open loop: loops inside it ended.
                Some(position) => {
                    open.truncate(position);
                    open.push((which, iteration));
                }
                None => open.push((which, iteration)),
            }
        }
        open.into_iter().map(|(_, iteration)| iteration).collect()
    }

    /// Forgets the marks of nodes from `len` on (a rollback).
    pub(crate) fn truncate(&mut self, len: usize) {
        let keep = self.marks.partition_point(|mark| (mark.at as usize) < len);
        self.marks.truncate(keep);
    }

    pub(crate) fn clear(&mut self) {
        self.names.clear();
        self.marks.clear();
    }
}

/// A loop on the tape ([`Tape::enter_loop`]): call
/// [`iteration`](Self::iteration) at the top of each iteration; the loop
/// ends on the tape when this is dropped.
#[must_use = "the loop ends when this guard is dropped"]
pub struct InLoop<'t> {
    tape: &'t Tape,
    index: u32,
    count: i64,
}

impl Drop for InLoop<'_> {
    #[inline]
    fn drop(&mut self) {
        self.tape.exit_loop(self.index);
    }
}

impl<'t> InLoop<'t> {
    #[inline]
    pub(crate) fn new(tape: &'t Tape, index: u32) -> Self {
        Self {
            tape,
            index,
            count: 0,
        }
    }

    /// Begins the next iteration: the loop variable's `value` when it is an
    /// integer, else (`None`) counted from 0.
    #[inline]
    pub fn iteration(&mut self, value: Option<i64>) {
        self.tape.iterate(self.index, value, self.count);
        self.count += 1;
    }
}

/// A value generated code showed the tape while probing
/// ([`Tape::set_probing`]): the node a binding of the user's function held,
/// by name, element and loop iterations. `#[backward(f)]` reads the
/// gradients of these nodes as the exact adjoints of `f`'s bindings.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct Probe {
    /// The binding's name.
    pub name: &'static str,
    /// The element's index path (`[2, 1]` for `w[2][1]`; empty for a scalar).
    pub path: Vec<usize>,
    /// The node the element held.
    pub node: usize,
    /// The loop iterations the binding was written in.
    pub iterations: Vec<Iteration>,
    /// Written by a plain `=` to the binding (not `+=`, not its `let`):
    /// in a loop, a recurrence whose adjoint changes from one iteration to
    /// the next.
    pub reassigned: bool,
}
