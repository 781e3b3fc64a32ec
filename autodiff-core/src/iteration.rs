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

/// An entry of the tape's log: at node count `at`, an iteration began
/// (`Some`) or the innermost one ended (`None`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mark {
    pub(crate) at: u32,
    pub(crate) entered: Option<Iteration>,
}

/// The loops the recording is in now, and the log of marks.
#[derive(Default)]
pub(crate) struct Loops {
    pub(crate) current: Vec<Iteration>,
    pub(crate) marks: Vec<Mark>,
}

impl Loops {
    pub(crate) fn enter(&mut self, at: usize, iteration: Iteration) {
        self.current.push(iteration);
        self.marks.push(Mark {
            at: at as u32,
            entered: Some(iteration),
        });
    }

    pub(crate) fn leave(&mut self, at: usize) {
        if self.current.pop().is_some() {
            self.marks.push(Mark {
                at: at as u32,
                entered: None,
            });
        }
    }

    /// The loops now.
    pub(crate) fn now(&self) -> Iterations {
        Iterations::from_frames(&self.current)
    }

    /// The loops node `index` was recorded in: the marks replayed up to it.
    #[cold]
    pub(crate) fn at(&self, index: usize) -> Iterations {
        Iterations::from_frames(&self.replay(index))
    }

    /// Every frame entered and not left by the marks up to node `index`.
    fn replay(&self, index: usize) -> Vec<Iteration> {
        let mut frames = Vec::new();
        for mark in self
            .marks
            .iter()
            .take_while(|mark| mark.at as usize <= index)
        {
            match mark.entered {
                Some(iteration) => frames.push(iteration),
                None => {
                    frames.pop();
                }
            }
        }
        frames
    }

    /// Forgets the marks of nodes from `len` on (a rollback), keeping the
    /// loops the recording is in now: the log then says that at `len` the
    /// loops left since were left and the ones entered since were entered.
    pub(crate) fn truncate(&mut self, len: usize) {
        let keep = self.marks.partition_point(|mark| (mark.at as usize) < len);
        if keep == self.marks.len() {
            return;
        }
        self.marks.truncate(keep);
        let logged = self.replay(usize::MAX);
        let common = logged
            .iter()
            .zip(&self.current)
            .take_while(|(a, b)| a == b)
            .count();
        let at = len as u32;
        for _ in common..logged.len() {
            self.marks.push(Mark { at, entered: None });
        }
        for iteration in &self.current[common..] {
            self.marks.push(Mark {
                at,
                entered: Some(*iteration),
            });
        }
    }

    pub(crate) fn clear(&mut self) {
        self.current.clear();
        self.marks.clear();
    }
}

/// Leaves the iteration it was made for when dropped.
#[must_use = "the iteration ends when this guard is dropped"]
pub struct InIteration<'t> {
    tape: &'t Tape,
}

impl Drop for InIteration<'_> {
    fn drop(&mut self) {
        self.tape.leave_iteration();
    }
}

impl<'t> InIteration<'t> {
    pub(crate) fn new(tape: &'t Tape) -> Self {
        Self { tape }
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
