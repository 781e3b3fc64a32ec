//! `#[backward(f)]` beyond the corpus: the other adjoint notations, a name
//! `f` does not have, a returned gradient that no statement computes, the
//! random point that a symmetric one cannot replace, rows' loop indices,
//! `while` loops, and `f`'s own errors.

// Index loops and named results on purpose: as the lesson writes them.
#![allow(clippy::needless_range_loop, clippy::let_and_return)]

use autodiff::prelude::*;
use autodiff::{RowKind, RowVerdict};

#[differentiable]
fn neuron(w: [f64; 2], b: f64, #[constant] x: f64) -> f64 {
    let z = w[0] * x + w[1] * x * x + b;
    let h = z.tanh();
    h * h
}

/// Lesson 15's own notation, `dL_dz`.
#[backward(neuron)]
#[allow(non_snake_case)]
fn neuron_backward_dl(w: [f64; 2], b: f64, #[constant] x: f64) -> ([f64; 2], f64) {
    let z = w[0] * x + w[1] * x * x + b;
    let h = z.tanh();
    let dL_dh = 2.0 * h;
    let dL_dz = dL_dh * (1.0 - h * h);
    ([dL_dz * x, dL_dz * x * x], dL_dz)
}

/// `dz` in a function without any `_bar` name; `delta` is not an adjoint
/// of anything in `neuron` and is said so.
#[backward(neuron)]
fn neuron_backward_d(w: [f64; 2], b: f64, #[constant] x: f64) -> ([f64; 2], f64) {
    let z = w[0] * x + w[1] * x * x + b;
    let h = z.tanh();
    let dh = 2.0 * h;
    let dz = dh * (1.0 - h * h);
    let delta = 0.5;
    let dw = [dz * x, dz * x * x * (delta + 0.5)];
    (dw, dz)
}

#[test]
fn other_notations_are_matched() -> Result<(), ScalarAutodiffError> {
    let report = neuron_backward_dl_check([0.4, -0.7], 0.1, 1.3)?;
    assert!(report.passed(), "{report}");
    let names: Vec<&str> = report.rows().iter().map(|row| row.name()).collect();
    assert_eq!(names, ["dL_dh", "dL_dz", "w", "b"], "{report}");
    assert!(report.rows()[..2]
        .iter()
        .all(|row| row.verdict() == RowVerdict::Exact));

    let report = neuron_backward_d_check([0.4, -0.7], 0.1, 1.3)?;
    assert!(report.passed(), "{report}");
    let delta = report
        .rows()
        .iter()
        .find(|row| row.name() == "delta")
        .unwrap();
    assert_eq!(delta.verdict(), RowVerdict::NoCounterpart);
    assert!(
        delta.note().unwrap().contains("no binding `elta`"),
        "{report}"
    );
    let dw = report.rows().iter().find(|row| row.name() == "dw").unwrap();
    assert_eq!(dw.verdict(), RowVerdict::Exact, "{report}");
    assert_eq!(dw.yours().len(), 2);
    Ok(())
}

/// A typo: `hh_bar` has no counterpart, and says so; the rest is right.
#[backward(neuron)]
fn neuron_backward_typo(w: [f64; 2], b: f64, #[constant] x: f64) -> ([f64; 2], f64) {
    let z = w[0] * x + w[1] * x * x + b;
    let h = z.tanh();
    let hh_bar = 2.0 * h;
    let z_bar = hh_bar * (1.0 - h * h);
    ([z_bar * x, z_bar * x * x], z_bar)
}

/// Every adjoint statement right, but `b`'s gradient never returned.
#[backward(neuron)]
fn neuron_backward_forgets_b(w: [f64; 2], b: f64, #[constant] x: f64) -> ([f64; 2], f64) {
    let z = w[0] * x + w[1] * x * x + b;
    let h = z.tanh();
    let h_bar = 2.0 * h;
    let z_bar = h_bar * (1.0 - h * h);
    ([z_bar * x, z_bar * x * x], 0.0)
}

#[test]
fn a_name_f_does_not_have_is_said_plainly() -> Result<(), ScalarAutodiffError> {
    let report = neuron_backward_typo_check([0.4, -0.7], 0.1, 1.3)?;
    assert!(report.passed(), "{report}");
    let typo = &report.rows()[0];
    assert_eq!(typo.name(), "hh_bar");
    assert_eq!(typo.verdict(), RowVerdict::NoCounterpart);
    assert_eq!(typo.exact(), [None]);
    assert!(
        report
            .to_string()
            .contains("`f` has no binding `hh` (for `hh_bar`)"),
        "{report}"
    );
    Ok(())
}

#[test]
fn a_gradient_no_statement_computes_is_named_at_the_return() -> Result<(), ScalarAutodiffError> {
    let report = neuron_backward_forgets_b_check([0.4, -0.7], 0.1, 1.3)?;
    assert!(!report.passed());
    let wrong = report.first_wrong().unwrap();
    assert_eq!(
        (wrong.name(), wrong.kind()),
        ("b", RowKind::Returned),
        "{report}"
    );
    // The returned expression is the function's last line before `}`.
    let source = include_str!("backward.rs");
    let tail = source
        .lines()
        .position(|line| line.contains("([z_bar * x, z_bar * x * x], 0.0)"))
        .unwrap();
    assert_eq!(wrong.line() as usize, tail + 1);
    assert!(
        report.to_string().contains("the returned gradient of `b`"),
        "{report}"
    );
    Ok(())
}

#[differentiable]
fn product(w: [f64; 2]) -> f64 {
    let p = w[0] * w[1];
    p
}

/// Right only where w[0] = w[1]: the components are swapped.
#[backward(product)]
fn product_backward_swapped(w: [f64; 2]) -> [f64; 2] {
    let p_bar = 1.0;
    [p_bar * w[0], p_bar * w[1]]
}

#[test]
fn a_random_point_catches_what_a_symmetric_one_hides() -> Result<(), ScalarAutodiffError> {
    assert!(product_backward_swapped_check([0.5, 0.5])?.passed());
    assert!(product_backward_swapped_check([0.0, 0.0])?.passed());
    for seed in 0..20 {
        let report = product_backward_swapped_check_random(seed, [0.5, 0.5])?;
        assert!(!report.passed(), "seed {seed}:\n{report}");
        // The drawn point is non-zero and asymmetric.
        let returned = report.rows().iter().find(|row| row.name() == "w").unwrap();
        let yours = returned.yours();
        assert!(yours.iter().all(|v| v.abs() >= 0.25) && yours[0] != yours[1]);
    }
    Ok(())
}

#[differentiable]
fn layered(w: [f64; 3], x: f64) -> f64 {
    let mut total = 0.0;
    for j in 0..3 {
        let z = w[j] * x;
        total += z.sin();
    }
    total * total
}

/// `z_bar` in each iteration of a loop over `j`, as `f`'s `z` is.
#[backward(layered)]
fn layered_backward(w: [f64; 3], x: f64) -> ([f64; 3], f64) {
    let mut total = 0.0;
    for j in 0..3 {
        total += (w[j] * x).sin();
    }
    let total_bar = 2.0 * total;
    let mut w_bar = [0.0; 3];
    let mut x_bar = 0.0;
    for j in (0..3).rev() {
        let z_bar = total_bar * (w[j] * x).cos();
        w_bar[j] = z_bar * x;
        x_bar += z_bar * w[j];
    }
    (w_bar, x_bar)
}

#[test]
fn rows_carry_their_loop_indices() -> Result<(), ScalarAutodiffError> {
    let report = layered_backward_check([0.9, -1.1, 0.7], 0.8)?;
    assert!(report.passed(), "{report}");
    let z_rows: Vec<_> = report
        .rows()
        .iter()
        .filter(|row| row.name() == "z_bar")
        .collect();
    assert_eq!(z_rows.len(), 3, "{report}");
    let js: Vec<i64> = z_rows.iter().map(|row| row.indices()[0].value).collect();
    assert_eq!(js, [2, 1, 0]);
    assert!(z_rows.iter().all(|row| row.indices()[0].name == "j"));
    Ok(())
}

#[differentiable]
fn logs(x: [f64; 2]) -> f64 {
    x[0].ln() + x[1]
}

#[backward(logs)]
fn logs_backward(x: [f64; 2]) -> [f64; 2] {
    [1.0 / x[0], 1.0]
}

#[test]
fn an_error_of_f_is_the_checks_error() {
    let error = logs_backward_check([-0.5, 1.0]).unwrap_err();
    assert_eq!(error.code(), "non-finite-result");
}

#[differentiable]
fn recurrence(w: [f64; 3], x: f64) -> f64 {
    let mut a = x;
    for j in 0..3 {
        let z = w[j] * a;
        a = z.sin();
    }
    a * a
}

/// Right: the adjoint of `a` changes in each iteration of the reverse loop.
#[backward(recurrence)]
fn recurrence_backward(w: [f64; 3], x: f64) -> ([f64; 3], f64) {
    let mut a = [x; 4];
    for j in 0..3 {
        a[j + 1] = (w[j] * a[j]).sin();
    }
    let mut a_bar = 2.0 * a[3];
    let mut w_bar = [0.0; 3];
    for j in (0..3).rev() {
        let z_bar = a_bar * (w[j] * a[j]).cos();
        w_bar[j] = z_bar * a[j];
        a_bar = z_bar * w[j];
    }
    (w_bar, a_bar)
}

/// A wrong local derivative inside the recurrence's loop.
#[backward(recurrence)]
fn recurrence_backward_wrong(w: [f64; 3], x: f64) -> ([f64; 3], f64) {
    let mut a = [x; 4];
    for j in 0..3 {
        a[j + 1] = (w[j] * a[j]).sin();
    }
    let mut a_bar = 2.0 * a[3];
    let mut w_bar = [0.0; 3];
    for j in (0..3).rev() {
        let z_bar = a_bar * (w[j] * a[j]).sin();
        w_bar[j] = z_bar * a[j];
        a_bar = z_bar * w[j];
    }
    (w_bar, a_bar)
}

#[test]
fn a_recurrence_is_judged_inside_its_loop_not_by_its_last_value() -> Result<(), ScalarAutodiffError>
{
    let report = recurrence_backward_check([0.9, -1.1, 0.7], 0.8)?;
    assert!(report.passed(), "{report}");
    let a_bar = report
        .rows()
        .iter()
        .find(|row| row.name() == "a_bar")
        .unwrap();
    assert_eq!(a_bar.verdict(), RowVerdict::NoCounterpart, "{report}");
    assert!(a_bar.note().unwrap().contains("recurrence"), "{report}");
    let compared = report
        .rows()
        .iter()
        .filter(|row| row.name() == "z_bar" && row.verdict() == RowVerdict::Exact)
        .count();
    assert_eq!(compared, 3, "{report}");

    let report = recurrence_backward_wrong_check([0.9, -1.1, 0.7], 0.8)?;
    let wrong = report.first_wrong().unwrap();
    assert_eq!(wrong.name(), "z_bar", "{report}");
    assert_eq!(
        wrong.indices()[0].value,
        2,
        "the first iteration of the reverse loop"
    );
    Ok(())
}

/// `f` builds `h` by `push`: the student's `h_bar` has nothing in `f` to
/// compare with, so the verdict may not say it agrees; it names it as a
/// place the mistake may be (here it is: `h_bar[1]` should be `h[0]`).
#[differentiable]
fn pushed(z: [f64; 3]) -> f64 {
    let mut h = Vec::new();
    for i in 0..3 {
        h.push(z[i].tanh());
    }
    h[0] * h[1] + h[2]
}

#[backward(pushed)]
fn pushed_backward_wrong(z: [f64; 3]) -> [f64; 3] {
    let h: Vec<f64> = z.iter().map(|v| v.tanh()).collect();
    let h_bar = vec![h[1], h[1], 1.0];
    let mut z_bar = [0.0; 3];
    for i in 0..3 {
        z_bar[i] = h_bar[i] * (1.0 - h[i] * h[i]);
    }
    z_bar
}

/// A slice parameter's adjoint written wrong (its first component
/// overwritten): `w_bar` is compared with `w`'s exact adjoint, and the
/// verdict names that statement.
#[differentiable]
fn weighted(w: &[f64], #[constant] x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += (w[i] * x[i]).sin();
    }
    s * s
}

#[backward(weighted)]
fn weighted_backward_wrong(w: &[f64], #[constant] x: &[f64]) -> Vec<f64> {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += (w[i] * x[i]).sin();
    }
    let s_bar = 2.0 * s;
    let mut w_bar = vec![0.0; w.len()];
    for i in 0..w.len() {
        w_bar[i] = s_bar * (w[i] * x[i]).cos() * x[i];
    }
    w_bar[0] = s_bar;
    w_bar
}

/// An adjoint named for nothing in `f` (`t_bar`: `f` has no `t`), wrong,
/// and the gradient returned from it: the verdict may not say every
/// adjoint agrees, and names `t_bar` as a place the mistake may be.
#[differentiable]
fn squared_sine(x: f64) -> f64 {
    let s = x.sin();
    s * s
}

#[backward(squared_sine)]
fn squared_sine_backward_wrong(x: f64) -> f64 {
    let s = x.sin();
    let s_bar = 2.0 * s;
    let t_bar = s_bar * x.sin();
    t_bar
}

#[test]
fn an_adjoint_with_nothing_to_compare_with_is_never_said_to_agree(
) -> Result<(), ScalarAutodiffError> {
    let report = pushed_backward_wrong_check([0.3, -0.5, 0.8])?;
    assert!(!report.passed(), "{report}");
    let shown = report.to_string();
    assert!(
        shown.contains("it reads `h_bar`, which `f` has nothing to compare with — the mistake is in this statement or in that adjoint"),
        "{shown}"
    );
    assert!(!shown.contains("agrees — this statement"), "{shown}");

    let report = weighted_backward_wrong_check(&[0.4, -0.2, 0.9], &[1.5, 0.5, -1.0])?;
    let wrong = report.first_wrong().unwrap();
    assert_eq!(
        (wrong.name(), wrong.kind(), wrong.line()),
        ("w_bar", RowKind::Adjoint, 340),
        "{report}"
    );
    assert_eq!(
        report
            .rows()
            .iter()
            .filter(|row| row.name() == "w_bar" && row.verdict() == RowVerdict::Exact)
            .count(),
        1,
        "the loop's row is compared, and right: {report}"
    );

    let report = squared_sine_backward_wrong_check(0.7)?;
    assert!(!report.passed(), "{report}");
    let shown = report.to_string();
    assert!(
        shown.contains("every adjoint statement that could be compared agrees")
            && shown.contains(
                "a statement writing `t_bar`, which `f` has nothing to compare with, is wrong"
            ),
        "{shown}"
    );
    Ok(())
}

// A name bound again (`let h = ..; let h = h.tanh();`): the student's
// first `let h_bar` is the adjoint of the last `h`, the next of the one
// before, as a backward pass walks the statements in reverse. Every
// `h_bar` was compared with the last `h`'s adjoint, so a correct pass was
// reported wrong.

#[differentiable]
fn shadowed(w: [f64; 2], x: f64) -> f64 {
    let h = w[0] * x;
    let h = (h + w[1]).tanh();
    let h = h * h * 3.0;
    h.sin()
}

#[backward(shadowed)]
fn shadowed_backward(w: [f64; 2], x: f64) -> ([f64; 2], f64) {
    let a = w[0] * x;
    let b = (a + w[1]).tanh();
    let c = b * b * 3.0;
    let h_bar = c.cos();
    let h_bar = h_bar * 6.0 * b;
    let h_bar = h_bar * (1.0 - b * b);
    ([h_bar * x, h_bar], h_bar * w[0])
}

#[backward(shadowed)]
fn shadowed_backward_wrong(w: [f64; 2], x: f64) -> ([f64; 2], f64) {
    let a = w[0] * x;
    let b = (a + w[1]).tanh();
    let c = b * b * 3.0;
    let h_bar = c.cos();
    let h_bar = h_bar * 3.0 * b;
    let h_bar = h_bar * (1.0 - b * b);
    ([h_bar * x, h_bar], h_bar * w[0])
}

#[differentiable]
fn shadowed_in_a_loop(w: [f64; 3], x: f64) -> f64 {
    let mut y = 0.0;
    for j in 0..3 {
        let h = w[j] * x;
        let h = h.tanh();
        y += h * h;
    }
    y
}

#[backward(shadowed_in_a_loop)]
fn shadowed_in_a_loop_backward(w: [f64; 3], x: f64) -> ([f64; 3], f64) {
    let mut w_bar = [0.0; 3];
    let mut x_bar = 0.0;
    for j in 0..3 {
        let t = (w[j] * x).tanh();
        let h_bar = 2.0 * t;
        let h_bar = h_bar * (1.0 - t * t);
        w_bar[j] = h_bar * x;
        x_bar += h_bar * w[j];
    }
    (w_bar, x_bar)
}

#[test]
fn a_name_bound_again_is_matched_binding_by_binding() -> Result<(), ScalarAutodiffError> {
    let (w, x) = ([0.3, -0.2], 1.5);
    let report = shadowed_backward_check(w, x)?;
    assert!(report.passed(), "{report}");
    // The exact adjoints, by hand: of the third h, the second, the first.
    let (a, b) = (w[0] * x, (w[0] * x + w[1]).tanh());
    let third = (3.0 * b * b).cos();
    let second = third * 6.0 * b;
    let first = second * (1.0 - b * b);
    let _ = a;
    let exact: Vec<f64> = report.rows()[..3]
        .iter()
        .map(|row| row.exact()[0].expect("compared"))
        .collect();
    assert_eq!(exact.len(), 3);
    for (got, want) in exact.iter().zip([third, second, first]) {
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }
    // A factor 3 for 6 in the second: that statement, not the third.
    let report = shadowed_backward_wrong_check(w, x)?;
    assert!(!report.passed());
    let culprit = report.first_wrong().expect("a wrong row");
    assert_eq!(culprit.name(), "h_bar");
    assert_eq!(report.rows()[1].verdict(), RowVerdict::Wrong);
    assert_eq!(culprit.line(), report.rows()[1].line());
    // In a loop, each iteration's two `h`s.
    let report = shadowed_in_a_loop_backward_check([0.4, -0.8, 1.1], 0.9)?;
    assert!(report.passed(), "{report}");
    Ok(())
}

// A backward loop that starts late (`1..3` for `0..3`): the accumulation
// it misses was blamed on the statement's local derivative.

#[differentiable]
fn neighbours(x: [f64; 4]) -> f64 {
    let mut t = 0.0;
    for i in 0..3 {
        let d = x[i + 1] * x[i];
        t += d.sin();
    }
    t
}

#[backward(neighbours)]
#[allow(clippy::needless_range_loop)]
fn neighbours_backward_late(x: [f64; 4]) -> [f64; 4] {
    let mut x_bar = [0.0; 4];
    for i in 1..3 {
        let d = x[i + 1] * x[i];
        let d_bar = d.cos();
        x_bar[i + 1] += d_bar * x[i];
        x_bar[i] += d_bar * x[i + 1];
    }
    x_bar
}

#[backward(neighbours)]
#[allow(clippy::needless_range_loop)]
fn neighbours_backward(x: [f64; 4]) -> [f64; 4] {
    let mut x_bar = [0.0; 4];
    for i in 0..3 {
        let d = x[i + 1] * x[i];
        let d_bar = d.cos();
        x_bar[i + 1] += d_bar * x[i];
        x_bar[i] += d_bar * x[i + 1];
    }
    x_bar
}

#[test]
fn a_loop_that_starts_late_is_said_to_miss_an_iteration() -> Result<(), ScalarAutodiffError> {
    let x = [0.3, -0.7, 1.2, 0.5];
    let report = neighbours_backward_late_check(x)?;
    assert!(!report.passed());
    let missing = report.missing_iteration("d_bar").expect("i = 0 missing");
    assert_eq!(missing.len(), 1);
    assert_eq!((missing[0].name, missing[0].value), ("i", 0));
    let text = report.to_string();
    assert!(
        text.contains("has no row at i = 0, which `f` runs"),
        "{text}"
    );
    // The same pass over every iteration: nothing missing, all exact.
    let report = neighbours_backward_check(x)?;
    assert!(report.passed(), "{report}");
    assert!(report.missing_iteration("d_bar").is_none());
    Ok(())
}
