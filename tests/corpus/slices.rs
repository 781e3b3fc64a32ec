//! Slices passed straight on and references to vectors and arrays as
//! parameters: `inner(x)` with `x: &[f64]`, `&Vec<f64>`, `&[f64; N]`; the
//! `Vec` methods that move items (`swap`, `reverse`, `pop`, `insert`,
//! `extend_from_slice`, `truncate`, `sort_by`, `concat`).

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn energy(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for v in x {
        total += v * v;
    }
    total
}

#[differentiable]
fn doubled_energy(x: &[f64]) -> f64 {
    energy(x) * 2.0
}

#[test]
fn a_slice_parameter_passed_straight_on() -> TestResult {
    let got = doubled_energy_grad(&[1.0, -3.0])?;
    assert_eq!(got.value, 20.0);
    assert_eq!(got.gradient, vec![4.0, -12.0]);
    Ok(())
}

#[allow(clippy::ptr_arg)]
#[differentiable]
fn vec_ref_norm(v: &Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s.sqrt()
}

#[test]
fn a_reference_to_a_vec() -> TestResult {
    let v = vec![3.0, 4.0];
    let got = vec_ref_norm_grad(&v)?;
    assert_eq!(got.value, 5.0);
    assert_all_close(&got.gradient.flat(), &[0.6, 0.8], CLOSED);
    Ok(())
}

#[differentiable]
fn array_ref(v: &[f64; 3]) -> f64 {
    v[0] * v[1] * v[2]
}

#[test]
fn a_reference_to_an_array() -> TestResult {
    let got = array_ref_grad(&[2.0, 3.0, 4.0])?;
    assert_eq!(got.value, 24.0);
    assert_eq!(got.gradient.flat(), vec![12.0, 8.0, 6.0]);
    Ok(())
}

// The `Vec` methods that move items: recorded on the tape (each item
// keeps its node, so its gradient follows it), and compiled (the reverse
// moves each adjoint back the way its item came; more in
// tests/compiled/vec_growth.rs and tests/compiled/vec_moves.rs). Each is
// checked on both `f_grad` and `f_grad_tape` against its closed form.

/// Both paths, which must agree exactly (the same recording, or a
/// compiled sweep with the same few roundings).
fn both<G: Clone + PartialEq + std::fmt::Debug>(
    fast: Result<ValueAndGradient<G>, ScalarAutodiffError>,
    tape: Result<ValueAndGradient<G>, ScalarAutodiffError>,
) -> ValueAndGradient<G> {
    let (fast, tape) = (fast.unwrap(), tape.unwrap());
    assert_eq!(fast, tape);
    fast
}

#[differentiable]
fn swapped(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.swap(0, 2);
    v[0] * 2.0 + v[1] * v[2]
}

#[differentiable]
fn reversed(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.reverse();
    v[0] * 3.0 + v[2] * v[1]
}

#[differentiable]
fn popped(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let last = v.pop().unwrap();
    last * v[0] + v.len() as f64
}

#[differentiable]
fn inserted(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.insert(1, x[0] * x[2]);
    v.insert(0, 0.5);
    v[2] + v[3] * 2.0 + v[0] * v[4]
}

#[differentiable]
fn extended(x: &[f64], y: &[f64], #[constant] c: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.extend_from_slice(y);
    v.extend_from_slice(c);
    v[0] * v[3] + v[5] * v[1]
}

#[differentiable]
fn truncated(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.truncate(2);
    v.iter().map(|a| a * a).sum()
}

#[differentiable]
fn sorted_partial(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[0] + 2.0 * v[1] + 3.0 * v[2] * v[2]
}

#[differentiable]
fn sorted_total(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| b.total_cmp(a));
    v[0] + 2.0 * v[1] + 3.0 * v[2] * v[2]
}

#[differentiable]
fn concatenated(a: &[f64], b: &[f64]) -> f64 {
    let v = [a, b].concat();
    v[0] * v[3] + v[2]
}

// Students write `vec![..]` here; clippy prefers an array.
#[allow(clippy::useless_vec)]
#[differentiable]
fn concatenated_vecs(a: &[f64], b: &[f64]) -> f64 {
    let v = vec![b.to_vec(), a.to_vec()].concat();
    v[0] * v[3] + v[2]
}

#[test]
fn swap_reverse_pop_and_truncate_move_each_items_gradient() {
    let x = [1.5, -2.0, 0.25];
    // v = [x2, x1, x0]: 2·x2 + x1·x0.
    let got = both(swapped_grad(&x), swapped_grad_tape(&x));
    assert_eq!(got.value, swapped(&x));
    assert_eq!(got.gradient, vec![x[1], x[0], 2.0]);
    assert_eq!(swapped_grad_path(), autodiff::GradientPath::Compiled);
    // v = [x2, x1, x0]: 3·x2 + x0·x1.
    let got = both(reversed_grad(&x), reversed_grad_tape(&x));
    assert_eq!(got.value, 3.0 * x[2] + x[0] * x[1]);
    assert_eq!(got.gradient, vec![x[1], x[0], 3.0]);
    assert_eq!(reversed_grad_path(), autodiff::GradientPath::Compiled);
    // last = x2, v = [x0, x1]: x2·x0 + 2.
    let got = both(popped_grad(&x), popped_grad_tape(&x));
    assert_eq!(got.value, x[2] * x[0] + 2.0);
    assert_eq!(got.gradient, vec![x[2], 0.0, x[0]]);
    assert_eq!(popped_grad_path(), autodiff::GradientPath::Compiled);
    // v = [x0, x1]: x0² + x1².
    let got = both(truncated_grad(&x), truncated_grad_tape(&x));
    assert_eq!(got.value, x[0] * x[0] + x[1] * x[1]);
    assert_eq!(got.gradient, vec![2.0 * x[0], 2.0 * x[1], 0.0]);
    assert_eq!(truncated_grad_path(), autodiff::GradientPath::Compiled);
}

#[test]
fn insert_and_extend_from_slice_take_tracked_and_plain_items() {
    let x = [1.5, -2.0, 0.25];
    // v = [0.5, x0, x0·x2, x1, x2]: x0·x2 + 2·x1 + 0.5·x2.
    let got = both(inserted_grad(&x), inserted_grad_tape(&x));
    assert_eq!(got.value, inserted(&x));
    assert_close(got.value, x[0] * x[2] + 2.0 * x[1] + 0.5 * x[2], CLOSED);
    assert_eq!(got.gradient, vec![x[2], 2.0, x[0] + 0.5]);
    assert_eq!(inserted_grad_path(), autodiff::GradientPath::Compiled);
    // v = x ++ y ++ c: x0·y0 + c0·x1.
    let (y, c) = ([3.0, 4.0], [5.0]);
    let got = both(extended_grad(&x, &y, &c), extended_grad_tape(&x, &y, &c));
    assert_eq!(got.value, x[0] * y[0] + c[0] * x[1]);
    assert_eq!(got.gradient, (vec![y[0], c[0], 0.0], vec![x[0], 0.0]));
    assert_eq!(extended_grad_path(), autodiff::GradientPath::Compiled);
}

#[test]
fn sort_by_a_tracked_key_moves_each_gradient_with_its_item() {
    // Ascending: [x1, x2, x0] at x = [3, 1, 2]: x1 + 2·x2 + 3·x0².
    let x = [3.0, 1.0, 2.0];
    let got = both(sorted_partial_grad(&x), sorted_partial_grad_tape(&x));
    assert_eq!(got.value, 1.0 + 4.0 + 27.0);
    assert_eq!(got.gradient, vec![18.0, 1.0, 2.0]);
    assert_eq!(sorted_partial_grad_path(), autodiff::GradientPath::Compiled);
    // Descending by `total_cmp`: [x0, x2, x1]: x0 + 2·x2 + 3·x1².
    let got = both(sorted_total_grad(&x), sorted_total_grad_tape(&x));
    assert_eq!(got.value, 3.0 + 4.0 + 3.0);
    assert_eq!(got.gradient, vec![1.0, 6.0, 2.0]);
    assert_eq!(sorted_total_grad_path(), autodiff::GradientPath::Compiled);
}

#[test]
fn concat_of_slices_and_of_vecs() {
    let (a, b) = ([1.5, -2.0], [0.25, 4.0]);
    // v = a ++ b: a0·b1 + b0.
    let got = both(concatenated_grad(&a, &b), concatenated_grad_tape(&a, &b));
    assert_eq!(got.value, a[0] * b[1] + b[0]);
    assert_eq!(got.gradient, (vec![b[1], 0.0], vec![1.0, a[0]]));
    assert_eq!(concatenated_grad_path(), autodiff::GradientPath::Compiled);
    // v = b ++ a: b0·a1 + a0.
    let got = both(
        concatenated_vecs_grad(&a, &b),
        concatenated_vecs_grad_tape(&a, &b),
    );
    assert_eq!(got.value, b[0] * a[1] + a[0]);
    assert_eq!(got.gradient, (vec![1.0, b[0]], vec![a[1], 0.0]));
    assert_eq!(
        concatenated_vecs_grad_path(),
        autodiff::GradientPath::Compiled
    );
}
