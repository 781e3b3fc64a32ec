//! What every module of this binary checks with: the tolerance between
//! two ways of computing one gradient, the comparison at that tolerance,
//! `f_grad` against `f_grad_tape`, and a run of a compiled adjoint that
//! must take the compiled path. The comparisons themselves are the shared
//! oracle's (`tests/support/oracle.rs`); what is here names the facade.

use autodiff::__adjoint::{with_stack, Stack};
use autodiff::{ScalarAutodiffError, ValueAndGradient};

use crate::oracle::{assert_near, close_to_scale, Flat};

/// Two computations of one gradient (the compiled adjoint and the tape,
/// or either and an oracle) add the same terms in other orders: a few
/// ulps times the sum's condition, far below 1e-12 of the largest
/// component for the functions here, and far above any real mistake.
pub const AGREE: f64 = 1e-12;

/// Every component of `got` within `AGREE` of the largest of `want`.
#[track_caller]
pub fn assert_agree(name: &str, got: &[f64], want: &[f64]) {
    assert_near(name, got, want, AGREE);
}

/// What `f_grad` and `f_grad_tape` return.
pub type Grad<G> = Result<ValueAndGradient<G>, ScalarAutodiffError>;

/// `f_grad` (compiled) against `f_grad_tape` at one point: both answer,
/// every gradient component is within [`AGREE`] of the tape's largest,
/// and the value within `AGREE` of the tape's. Returns `f_grad`'s result.
#[track_caller]
pub fn agree<G: Flat>(name: &str, compiled: Grad<G>, tape: Grad<G>) -> ValueAndGradient<G> {
    let compiled = compiled.unwrap_or_else(|e| panic!("{name}: compiled: {e}"));
    let tape = tape.unwrap_or_else(|e| panic!("{name}: tape: {e}"));
    assert_agree(
        name,
        &compiled.gradient.components(),
        &tape.gradient.components(),
    );
    assert!(
        close_to_scale(compiled.value, tape.value, AGREE, tape.value.abs()),
        "{name}: value {} vs {}",
        compiled.value,
        tape.value
    );
    compiled
}

/// Runs a compiled adjoint on a fresh stack: it must return `Some` (the
/// compiled path, all finite) and leave the stack empty (the reverse
/// popped exactly what the forward pushed).
pub fn compiled<G>(
    run: impl FnOnce(&mut Stack) -> Option<ValueAndGradient<G>>,
) -> ValueAndGradient<G> {
    with_stack(|stack| {
        let result = run(stack).expect("compiled and finite");
        assert!(
            stack.is_empty(),
            "the reverse popped what the forward pushed"
        );
        result
    })
}

/// Checks a function on the compiled path at `point` (its parameters'
/// components flattened, as its gradient is): `f_adjoint` answers on a
/// fresh stack and leaves it empty, `f_grad` agrees with the tape without
/// rerunning it, and both match the dual twin's value and gradient.
pub fn compiled_agrees<G: Flat>(
    name: &str,
    point: &[f64],
    adjoint: impl FnOnce(&mut Stack) -> Option<ValueAndGradient<G>>,
    grad: impl FnOnce() -> Grad<G>,
    tape: impl FnOnce() -> Grad<G>,
    dual: impl Fn(&[crate::oracle::Dual]) -> crate::oracle::Dual,
) {
    let reruns = autodiff::__adjoint::tape_reruns();
    let got = compiled(adjoint);
    let grad = agree(name, grad(), tape());
    assert_eq!(
        autodiff::__adjoint::tape_reruns(),
        reruns,
        "{name}: f_grad reran the tape"
    );
    let (value, gradient) = crate::oracle::dual_value_and_gradient(point, dual);
    for g in [&got, &grad] {
        assert_agree(name, &[g.value], &[value]);
        assert_agree(name, &g.gradient.components(), &gradient);
    }
}

/// A `rows × cols` matrix of smooth, distinct entries in [-0.8, 0.8],
/// another for each `seed`.
pub fn matrix(rows: usize, cols: usize, seed: f64) -> Vec<Vec<f64>> {
    (0..rows)
        .map(|i| {
            (0..cols)
                .map(|j| ((i * cols + j) as f64 * 0.37 + seed).sin() * 0.8)
                .collect()
        })
        .collect()
}
