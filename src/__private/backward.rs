//! What `#[differentiable]` and `#[backward(f)]` generate code against to
//! check a student's backward pass: probes of `f`'s bindings on the tape
//! (whose gradients are the exact adjoints), and a log of the student's
//! adjoint statements.

use std::cell::RefCell;

use autodiff_core::{Iteration, Probe, Scalar, ScalarAutodiffError, Tape};

/// A value shown to [`__probe!`](crate::__probe): `(&Probing(&v)).probe(..)`
/// logs `v`'s nodes when `v` holds `Scalar`s, and nothing otherwise.
pub struct Probing<'a, T: ?Sized>(pub &'a T);

/// Values that hold nodes: a `Scalar` and containers of them.
pub trait Probed {
    /// Logs every node under `path`.
    fn probe_into(&self, tape: &Tape, name: &'static str, path: &mut Vec<usize>, reassigned: bool);
}

impl Probed for Scalar<'_> {
    fn probe_into(&self, tape: &Tape, name: &'static str, path: &mut Vec<usize>, reassigned: bool) {
        tape.probe(name, path, *self, reassigned);
    }
}

impl<T: Probed> Probed for [T] {
    fn probe_into(&self, tape: &Tape, name: &'static str, path: &mut Vec<usize>, reassigned: bool) {
        for (index, item) in self.iter().enumerate() {
            path.push(index);
            item.probe_into(tape, name, path, reassigned);
            path.pop();
        }
    }
}

impl<T: Probed, const N: usize> Probed for [T; N] {
    fn probe_into(&self, tape: &Tape, name: &'static str, path: &mut Vec<usize>, reassigned: bool) {
        self.as_slice().probe_into(tape, name, path, reassigned);
    }
}

impl<T: Probed> Probed for Vec<T> {
    fn probe_into(&self, tape: &Tape, name: &'static str, path: &mut Vec<usize>, reassigned: bool) {
        self.as_slice().probe_into(tape, name, path, reassigned);
    }
}

/// A slice parameter on the tape (`w: &[f64]` is recorded as a
/// `Cow<[Scalar]>`, see `Slice`): its items, as a slice's.
impl<T: Probed + Clone> Probed for std::borrow::Cow<'_, [T]> {
    fn probe_into(&self, tape: &Tape, name: &'static str, path: &mut Vec<usize>, reassigned: bool) {
        (**self).probe_into(tape, name, path, reassigned);
    }
}

impl<T: Probed + ?Sized> Probed for &T {
    fn probe_into(&self, tape: &Tape, name: &'static str, path: &mut Vec<usize>, reassigned: bool) {
        (**self).probe_into(tape, name, path, reassigned);
    }
}

/// Numbers without nodes, logged as nothing: an integer whose type rustc
/// infers only after the probe (`let k = if c { 0 } else { 1 }; x[k % 2]`)
/// takes the probing case, which then must hold for it.
macro_rules! probed_as_nothing {
    ($($t:ty),*) => {$(
        impl Probed for $t {
            #[inline(always)]
            fn probe_into(&self, _: &Tape, _: &'static str, _: &mut Vec<usize>, _: bool) {}
        }
    )*};
}
probed_as_nothing!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, bool);

/// The probing case, found first by autoref.
pub trait ProbeValue {
    /// Logs the value's nodes under `path`.
    fn probe(&self, tape: &Tape, name: &'static str, path: &[usize], reassigned: bool);
}

impl<T: Probed + ?Sized> ProbeValue for Probing<'_, T> {
    #[inline(never)]
    fn probe(&self, tape: &Tape, name: &'static str, path: &[usize], reassigned: bool) {
        self.0
            .probe_into(tape, name, &mut path.to_vec(), reassigned);
    }
}

/// Anything else (an integer, a model): nothing to log.
pub trait NoProbe {
    /// Does nothing.
    fn probe(&self, tape: &Tape, name: &'static str, path: &[usize], reassigned: bool);
}

impl<T: ?Sized> NoProbe for &Probing<'_, T> {
    #[inline(always)]
    fn probe(&self, _: &Tape, _: &'static str, _: &[usize], _: bool) {}
}

/// An index as a `usize`, whatever integer type it was written in (a
/// negative one, which indexing would have rejected, as `usize::MAX`).
#[inline(always)]
pub fn index_of<I: TryInto<usize>>(index: I) -> usize {
    index.try_into().unwrap_or(usize::MAX)
}

/// Reads every probed node's gradient after `f_grad_tape_on` recorded `f`
/// on `tape` (made by [`probing_tape`]) and ran its reverse pass: the exact
/// adjoint of that element of that binding at that iteration.
pub fn exact_adjoints<G>(
    recorded: Result<autodiff_core::ValueAndGradient<G>, ScalarAutodiffError>,
    tape: &Tape,
) -> Result<Vec<ExactAdjoint>, ScalarAutodiffError> {
    recorded?;
    let probes = tape.take_probes();
    tape.set_probing(false);
    Ok(probes
        .into_iter()
        .map(
            |Probe {
                 name,
                 path,
                 node,
                 iterations,
                 reassigned,
             }| ExactAdjoint {
                name,
                path,
                iterations,
                reassigned,
                adjoint: tape.gradient_at(node),
            },
        )
        .collect())
}

/// Asserts that a backward function returns `f`'s gradient type.
#[inline(always)]
pub fn same_gradient_type<G>(_yours: &G, _reverse: &autodiff_core::ValueAndGradient<G>) {}

/// A fresh tape with probing on, for `f_grad_tape_on` in `_check`.
pub fn probing_tape() -> Tape {
    let tape = Tape::new();
    tape.set_probing(true);
    tape
}

/// The log of a student's backward function, run once by `_check`.
#[derive(Default)]
pub struct StudentLog {
    inner: RefCell<LogInner>,
}

#[derive(Default)]
struct LogInner {
    loops: Vec<Iteration>,
    /// Each adjoint name's latest declaration: its index in `declarations`.
    current: Vec<(&'static str, usize)>,
    declarations: Vec<Vec<Iteration>>,
    writes: Vec<Write>,
}

/// Leaves the student's loop iteration when dropped.
pub struct InStudentIteration<'a> {
    log: &'a StudentLog,
}

impl Drop for InStudentIteration<'_> {
    fn drop(&mut self) {
        self.log.inner.borrow_mut().loops.pop();
    }
}

impl StudentLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// Enters a loop iteration (`value` as for the tape's iterations).
    pub fn iteration(
        &self,
        name: &'static str,
        value: Option<i64>,
        count: i64,
    ) -> InStudentIteration<'_> {
        self.inner
            .borrow_mut()
            .loops
            .push(Iteration::of(name, value, count));
        InStudentIteration { log: self }
    }

    /// A `let` of adjoint `name`: a new binding, in the loops entered now.
    pub fn declare(&self, name: &'static str) {
        let mut inner = self.inner.borrow_mut();
        let context = inner.loops.clone();
        inner.declarations.push(context);
        let id = inner.declarations.len() - 1;
        inner.current.retain(|(other, _)| *other != name);
        inner.current.push((name, id));
    }

    /// Logs the numbers `value` holds after `statement` wrote adjoint
    /// `name` at element `path`.
    pub fn write(
        &self,
        statement: &'static StudentStatement,
        name: &'static str,
        path: &[usize],
        values: Vec<(Vec<usize>, f64)>,
    ) {
        let mut inner = self.inner.borrow_mut();
        let declaration = match inner.current.iter().rev().find(|(other, _)| *other == name) {
            Some(&(_, id)) => id,
            None => {
                // Written without a `let` the log saw (a parameter): a
                // declaration at the top of the function.
                inner.declarations.push(Vec::new());
                let id = inner.declarations.len() - 1;
                inner.current.push((name, id));
                id
            }
        };
        let iterations = inner.loops.clone();
        for (sub, value) in values {
            let mut full = path.to_vec();
            full.extend(sub);
            let sequence = inner.writes.len();
            inner.writes.push(Write {
                sequence,
                statement,
                name,
                declaration,
                path: full,
                value,
                iterations: iterations.clone(),
            });
        }
    }

    /// The writes and each declaration's loops.
    pub fn finish(self) -> (Vec<Write>, Vec<Vec<Iteration>>) {
        let inner = self.inner.into_inner();
        (inner.writes, inner.declarations)
    }
}

/// A value an adjoint statement wrote, asked for its numbers by autoref:
/// `(&Logged(&v)).numbers()` is `Some` for `f64` and containers of it.
pub struct Logged<'a, T: ?Sized>(pub &'a T);

/// The numbers case.
pub trait LoggedNumbers {
    /// Every number with its index path.
    fn numbers(&self) -> Option<Vec<(Vec<usize>, f64)>>;
}

impl<T: Adjoint + ?Sized> LoggedNumbers for Logged<'_, T> {
    fn numbers(&self) -> Option<Vec<(Vec<usize>, f64)>> {
        let mut out = Vec::new();
        self.0.numbers_into(&mut Vec::new(), &mut out);
        Some(out)
    }
}

/// Anything else (an integer, a struct): not an adjoint.
pub trait NotNumbers {
    /// `None`.
    fn numbers(&self) -> Option<Vec<(Vec<usize>, f64)>>;
}

impl<T: ?Sized> NotNumbers for &Logged<'_, T> {
    fn numbers(&self) -> Option<Vec<(Vec<usize>, f64)>> {
        None
    }
}

/// Draws non-zero, asymmetric values for a check: magnitudes in
/// [0.25, 1.25), random signs, all different (xorshift from `seed`).
pub fn random_point(seed: u64, count: usize) -> Vec<f64> {
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    if state == 0 {
        state = 1;
    }
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut values: Vec<f64> = Vec::with_capacity(count);
    while values.len() < count {
        let bits = next();
        let magnitude = 0.25 + (bits >> 11) as f64 / (1u64 << 53) as f64;
        let value = if bits & 1 == 0 { magnitude } else { -magnitude };
        if values.iter().all(|other| (other - value).abs() > 1e-3) {
            values.push(value);
        }
    }
    values
}

/// An adjoint statement of the student's function, as the macro saw it.
#[derive(Debug)]
pub struct StudentStatement {
    /// The 1-based line it starts on.
    pub line: u32,
    /// The adjoints its right-hand side reads (`h_bar` in `z_bar = h_bar * ..`).
    pub reads: &'static [&'static str],
}

/// One number a student's statement wrote.
#[derive(Clone, Debug)]
pub struct Write {
    /// Its place in the order of writes.
    pub sequence: usize,
    /// The statement.
    pub statement: &'static StudentStatement,
    /// The adjoint as written (`z_bar`).
    pub name: &'static str,
    /// Which `let` of that name it belongs to.
    pub declaration: usize,
    /// The element's index path.
    pub path: Vec<usize>,
    /// The number.
    pub value: f64,
    /// The loop iterations it was written in.
    pub iterations: Vec<Iteration>,
}

/// The exact adjoint of one element of one of `f`'s bindings, written in
/// the loop iterations `iterations`; `None` for a constant (no gradient).
#[derive(Clone, Debug)]
pub struct ExactAdjoint {
    /// The binding's name.
    pub name: &'static str,
    /// The element's index path.
    pub path: Vec<usize>,
    /// The loop iterations the binding was written in.
    pub iterations: Vec<Iteration>,
    /// Written by a plain `=` to the binding.
    pub reassigned: bool,
    /// Its gradient, `None` when the node tracks none.
    pub adjoint: Option<f64>,
}

/// Numbers an adjoint holds: `f64` and arrays, slices and `Vec`s of them.
pub trait Adjoint {
    /// Appends every number with its index path under `path`.
    fn numbers_into(&self, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, f64)>);
}

impl Adjoint for f64 {
    fn numbers_into(&self, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, f64)>) {
        out.push((path.clone(), *self));
    }
}

impl<T: Adjoint> Adjoint for [T] {
    fn numbers_into(&self, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, f64)>) {
        for (index, item) in self.iter().enumerate() {
            path.push(index);
            item.numbers_into(path, out);
            path.pop();
        }
    }
}

impl<T: Adjoint, const N: usize> Adjoint for [T; N] {
    fn numbers_into(&self, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, f64)>) {
        self.as_slice().numbers_into(path, out);
    }
}

impl<T: Adjoint> Adjoint for Vec<T> {
    fn numbers_into(&self, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, f64)>) {
        self.as_slice().numbers_into(path, out);
    }
}

impl<T: Adjoint + ?Sized> Adjoint for &T {
    fn numbers_into(&self, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, f64)>) {
        (**self).numbers_into(path, out);
    }
}
