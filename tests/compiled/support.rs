//! What every module of this binary checks with: the tolerance between
//! two ways of computing one gradient, the comparison at that tolerance,
//! and a run of a compiled adjoint that must take the compiled path.

use autodiff::__adjoint::{with_stack, Stack};
use autodiff::ValueAndGradient;

/// Two computations of one gradient (the compiled adjoint and the tape,
/// or either and an oracle) add the same terms in other orders: a few
/// ulps times the sum's condition, far below 1e-12 of the largest
/// component for the functions here, and far above any real mistake.
pub const AGREE: f64 = 1e-12;

/// Every component of `got` within `AGREE` of the largest of `want`.
pub fn assert_agree(name: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{name}: lengths");
    let scale = want.iter().fold(1e-300_f64, |m, g| m.max(g.abs()));
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= AGREE * scale,
            "{name}: component {k}: {a} vs {b}"
        );
    }
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
