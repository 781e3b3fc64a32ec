//! Every way a `Vec` of tracked values is built and grown, through both
//! gradient paths: started empty, from `to_vec`, from `vec![a; n]`, with
//! capacity, a parameter taken by value; grown by `push` at the top level
//! and in loops, by `extend`, before and after reads; items moved by
//! `swap`, `reverse` and `truncate` (compiled: the adjoints move back).
//! Each function's gradient is checked against its closed form
//! (written out beside it) and against the tape (`f_grad_tape`), at
//! several points, and `f_grad_path()` says which path `f_grad` took: a
//! construct the compiled adjoint does not take keeps the tape, which is
//! slower but never wrong.
//!
//! Bound: each component is a sum of a few products of inputs of
//! magnitude ≤ 3, so the paths and the closed forms agree to a few ulps;
//! `AGREE` is 1e-12 of the largest component.

// Index loops on purpose: they are the constructs under test.
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::assert_agree;

const POINTS: [[f64; 3]; 4] = [
    [2.0, 3.0, -0.5],
    [-1.25, 0.5, 1.5],
    [0.75, -2.0, 0.25],
    [1.0, 1.0, -3.0],
];

/// `f_grad` against the closed form and the tape at every point; the
/// value against the plain function, bit for bit.
fn check(
    name: &str,
    plain: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> ValueAndGradient<Vec<f64>>,
    tape: impl Fn(&[f64]) -> ValueAndGradient<Vec<f64>>,
    want: impl Fn(&[f64]) -> Vec<f64>,
) {
    for at in POINTS {
        let got = grad(&at);
        assert_eq!(got.value.to_bits(), plain(&at).to_bits(), "{name}: value");
        assert_agree(&format!("{name} at {at:?}"), &got.gradient, &want(&at));
        let tape = tape(&at);
        assert_eq!(
            tape.value.to_bits(),
            got.value.to_bits(),
            "{name}: tape value"
        );
        assert_agree(&format!("{name} at {at:?}"), &got.gradient, &tape.gradient);
    }
}

macro_rules! check {
    ($f:ident, $grad:ident, $tape:ident, $want:expr) => {
        check(
            stringify!($f),
            |x| $f(x),
            |x| $grad(x).unwrap(),
            |x| $tape(x).unwrap(),
            $want,
        )
    };
}

// ---------------------------------------------------------------------
// Started empty.
// ---------------------------------------------------------------------

/// Filled in a loop, read by index: Σ (k+1)·x_k².
#[differentiable]
fn empty_then_loop(x: &[f64]) -> f64 {
    let mut v = Vec::new();
    for k in 0..x.len() {
        v.push(x[k] * x[k]);
    }
    let mut s = 0.0;
    for k in 0..v.len() {
        s += (k as f64 + 1.0) * v[k];
    }
    s
}

#[test]
fn a_vec_started_empty_and_filled_in_a_loop() {
    check!(
        empty_then_loop,
        empty_then_loop_grad,
        empty_then_loop_grad_tape,
        |x| {
            x.iter()
                .enumerate()
                .map(|(k, v)| 2.0 * (k as f64 + 1.0) * v)
                .collect()
        }
    );
    assert_eq!(empty_then_loop_grad_path(), GradientPath::Compiled);
}

/// With capacity, pushed at the top level, read before and after a push:
/// x0·x1 + (x0·x1)·x2 read back through the Vec.
#[differentiable]
fn with_capacity_reads_between(x: &[f64]) -> f64 {
    let mut v = Vec::with_capacity(3);
    v.push(x[0] * x[1]);
    let first = v[0];
    v.push(first * x[2]);
    v[0] + v[1]
}

#[test]
fn a_vec_with_capacity_read_between_pushes() {
    check!(
        with_capacity_reads_between,
        with_capacity_reads_between_grad,
        with_capacity_reads_between_grad_tape,
        |x| vec![x[1] + x[1] * x[2], x[0] + x[0] * x[2], x[0] * x[1]]
    );
    assert_eq!(
        with_capacity_reads_between_grad_path(),
        GradientPath::Compiled
    );
}

// ---------------------------------------------------------------------
// Started from values.
// ---------------------------------------------------------------------

/// `to_vec`, then pushes in a loop of what is already there: v grows to
/// [x0, x1, x2, x0·x1, x1·x2] and the sum of squares of the last two.
#[differentiable]
fn to_vec_then_loop(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for k in 0..2 {
        let p = v[k] * v[k + 1];
        v.push(p);
    }
    v[3] * v[3] + v[4] * v[4] + v[0]
}

#[test]
fn a_vec_from_to_vec_grown_in_a_loop() {
    check!(
        to_vec_then_loop,
        to_vec_then_loop_grad,
        to_vec_then_loop_grad_tape,
        |x| {
            let (a, b) = (x[0] * x[1], x[1] * x[2]);
            vec![
                2.0 * a * x[1] + 1.0,
                2.0 * a * x[0] + 2.0 * b * x[2],
                2.0 * b * x[1],
            ]
        }
    );
    assert_eq!(to_vec_then_loop_grad_path(), GradientPath::Compiled);
}

/// `vec![a; n]` of a tracked value, then a push, each slot read.
#[differentiable]
fn repeated_then_push(x: &[f64]) -> f64 {
    let mut v = vec![x[0]; 2];
    v[1] *= x[1];
    v.push(x[2] * v[1]);
    v[0] + v[1] + v[2]
}

#[test]
fn a_vec_from_a_repeat_then_pushed() {
    check!(
        repeated_then_push,
        repeated_then_push_grad,
        repeated_then_push_grad_tape,
        |x| {
            // x0 + x0·x1 + x2·x0·x1
            vec![1.0 + x[1] + x[2] * x[1], x[0] + x[2] * x[0], x[0] * x[1]]
        }
    );
    assert_eq!(repeated_then_push_grad_path(), GradientPath::Compiled);
}

/// `[e; n]` of a tracked value, then written by element: every slot read
/// `e`, so its adjoint is the sum of theirs.
#[differentiable]
fn repeated_array(x: &[f64]) -> f64 {
    let mut a = [x[0] * x[1]; 3];
    a[1] *= x[2];
    a[2] = a[2].sin();
    a[0] + a[1] + a[2] * x[2]
}

/// `vec![y; n]` of a `loop`'s value, and `[z; 2]` of a binding that a
/// swap with `i as f64` binds again: both numbers.
#[differentiable]
fn repeated_values(x: &[f64]) -> f64 {
    let mut k = 0;
    let y = loop {
        if k >= 2 {
            break x[0] * x[1];
        }
        k += 1;
    };
    let v = vec![y; 3];
    let mut z = x[2].sin();
    let a = [z; 2];
    for i in 0..1 {
        let t = i as f64;
        let (t, z2) = (z, t);
        z = t + z2;
    }
    v[0] + v[2] * a[1] + z
}

/// A list with a helper's value in it, copied to a `Vec` and grown.
#[differentiable]
fn listed_call_then_push(x: &[f64]) -> f64 {
    let mut v = [x[0], cube(x[1]), x[2]].to_vec();
    v.push(v[1] * x[2]);
    v[3] + v[0] * v[2]
}

#[differentiable]
fn cube(t: f64) -> f64 {
    t * t * t
}

/// `vec![-e; n]` with a length from the input.
#[differentiable]
fn repeated_to_length(x: &[f64]) -> f64 {
    let v = vec![-x[0]; x.len()];
    let mut s = 0.0;
    for k in 0..v.len() {
        s += v[k] * x[k];
    }
    s
}

#[test]
fn a_repeat_of_a_tracked_value() {
    check!(
        repeated_array,
        repeated_array_grad,
        repeated_array_grad_tape,
        |x| {
            // p + p·x2 + sin(p)·x2 with p = x0·x1
            let p = x[0] * x[1];
            let dp = 1.0 + x[2] + p.cos() * x[2];
            vec![x[1] * dp, x[0] * dp, p + p.sin()]
        }
    );
    assert_eq!(repeated_array_grad_path(), GradientPath::Compiled);
    check!(
        repeated_to_length,
        repeated_to_length_grad,
        repeated_to_length_grad_tape,
        |x| {
            // −x0·Σ x_k
            let total: f64 = x.iter().sum();
            let mut g = vec![-x[0]; x.len()];
            g[0] = -total - x[0];
            g
        }
    );
    assert_eq!(repeated_to_length_grad_path(), GradientPath::Compiled);
    check!(
        listed_call_then_push,
        listed_call_then_push_grad,
        listed_call_then_push_grad_tape,
        // x1³·x2 + x0·x2
        |x| vec![x[2], 3.0 * x[1] * x[1] * x[2], x[1].powi(3) + x[0]]
    );
    assert_eq!(listed_call_then_push_grad_path(), GradientPath::Compiled);
    check!(
        repeated_values,
        repeated_values_grad,
        repeated_values_grad_tape,
        |x| {
            // y + y·sin(x2) + sin(x2), y = x0·x1
            let (y, s, c) = (x[0] * x[1], x[2].sin(), x[2].cos());
            vec![x[1] * (1.0 + s), x[0] * (1.0 + s), y * c + c]
        }
    );
    assert_eq!(repeated_values_grad_path(), GradientPath::Compiled);
}

/// A `vec!` list, a push of a constant (a bias feature), then a dot
/// product with the input.
#[differentiable]
fn listed_with_bias(x: &[f64]) -> f64 {
    let mut feats = vec![x[0] * x[1], x[2]];
    feats.push(1.0);
    let mut s = 0.0;
    for k in 0..feats.len() {
        s += feats[k] * x[k];
    }
    s
}

#[test]
fn a_listed_vec_with_a_bias_feature() {
    check!(
        listed_with_bias,
        listed_with_bias_grad,
        listed_with_bias_grad_tape,
        |x| {
            // x0·x1·x0 + x2·x1 + x2
            vec![2.0 * x[0] * x[1], x[0] * x[0] + x[2], x[1] + 1.0]
        }
    );
}

// ---------------------------------------------------------------------
// Grown by `extend`, and a parameter grown in place.
// ---------------------------------------------------------------------

#[differentiable]
fn extended_by_iterator(x: &[f64]) -> f64 {
    let mut v = Vec::new();
    v.extend(x.iter().map(|a| a * a));
    v.push(x[0]);
    v[1] + v[3] * v[2]
}

#[test]
fn a_vec_extended_by_an_iterator() {
    check!(
        extended_by_iterator,
        extended_by_iterator_grad,
        extended_by_iterator_grad_tape,
        |x| {
            // x1² + x0·x2²
            vec![x[2] * x[2], 2.0 * x[1], 2.0 * x[0] * x[2]]
        }
    );
}

/// A tracked `Vec` extended by plain items: each is lifted onto the tape
/// (the recording twin did not build, `Vec<Scalar>: Extend<f64>`, seed
/// 19237 f5_17). Of a `map` closure it is compiled; by references
/// (`halves.iter()`) it keeps the tape (README: only `extend` of a `map`).
#[differentiable]
fn extended_by_plain_items(x: &[f64]) -> f64 {
    let halves = [1.0, 3.0];
    let mut v = vec![x[0] * x[1]];
    v.extend(halves.iter().map(|t| t * 0.5));
    v.push(x[2]);
    v[0] * v[1] + v[2] * v[3]
}

#[differentiable]
fn extended_by_plain_references(x: &[f64]) -> f64 {
    let halves = [1.0, 3.0];
    let mut v = vec![x[0] * x[1]];
    v.extend(halves.iter());
    v.push(x[2]);
    v[0] * v[1] + v[2] * v[3]
}

#[test]
fn a_tracked_vec_extended_by_plain_items() {
    assert_eq!(extended_by_plain_items_grad_path(), GradientPath::Compiled);
    check!(
        extended_by_plain_items,
        extended_by_plain_items_grad,
        extended_by_plain_items_grad_tape,
        |x| {
            // 0.5·x0·x1 + 1.5·x2
            vec![0.5 * x[1], 0.5 * x[0], 1.5]
        }
    );
    check!(
        extended_by_plain_references,
        extended_by_plain_references_grad,
        extended_by_plain_references_grad_tape,
        |x| {
            // x0·x1 + 3·x2
            vec![x[1], x[0], 3.0]
        }
    );
}

/// A tracked `Vec` extended by a borrow of a slice parameter,
/// `extend_from_slice(&w)` of `w: &[f64]` (a `&&[f64]`, which the
/// recording twin did not lift: valid code that did not build, seed 19245).
// `&w` of a `&[f64]` on purpose: the borrow is what is under test.
#[allow(clippy::needless_borrow)]
#[differentiable]
fn extended_by_a_borrowed_slice(x: f64, w: &[f64]) -> f64 {
    let mut v = vec![x * x];
    v.extend_from_slice(&w);
    v[0] * v[1] + v[2]
}

#[test]
fn a_tracked_vec_extended_by_a_borrowed_slice() {
    assert_eq!(
        extended_by_a_borrowed_slice_grad_path(),
        GradientPath::Compiled
    );
    let flat = |g: (f64, Vec<f64>)| [vec![g.0], g.1].concat();
    check(
        "extended_by_a_borrowed_slice",
        |x| extended_by_a_borrowed_slice(x[0], &x[1..]),
        |x| {
            let got = extended_by_a_borrowed_slice_grad(x[0], &x[1..]).unwrap();
            ValueAndGradient {
                value: got.value,
                gradient: flat(got.gradient),
            }
        },
        |x| {
            let got = extended_by_a_borrowed_slice_grad_tape(x[0], &x[1..]).unwrap();
            ValueAndGradient {
                value: got.value,
                gradient: flat(got.gradient),
            }
        },
        // x²·w0 + w1
        |x| vec![2.0 * x[0] * x[1], x[0] * x[0], 1.0],
    );
}

#[differentiable]
fn parameter_grown(mut v: Vec<f64>) -> f64 {
    v.push(v[0] * v[2]);
    v.push(v[3] + v[1]);
    v[4] * v[1]
}

#[test]
fn a_parameter_taken_by_value_and_grown() {
    check(
        "parameter_grown",
        |x| parameter_grown(x.to_vec()),
        |x| parameter_grown_grad(x.to_vec()).unwrap(),
        |x| parameter_grown_grad_tape(x.to_vec()).unwrap(),
        // (x0·x2 + x1)·x1
        |x| vec![x[2] * x[1], x[0] * x[2] + 2.0 * x[1], x[0] * x[1]],
    );
}

// ---------------------------------------------------------------------
// Grown in a body with early `return`s: each exit records the `Vec`'s
// length, from which the reverse sizes its adjoint.
// ---------------------------------------------------------------------

#[differentiable]
fn grown_with_returns(x: f64, y: f64) -> f64 {
    if y > 6.0 {
        return x;
    }
    let mut v = vec![x; 2];
    if y > 5.0 {
        return y * v[1];
    }
    for k in 0..3 {
        v.push(x * y + k as f64);
        if v[k] > 4.0 {
            return v[k + 1];
        }
    }
    v[2] * v[0] + v[4]
}

#[test]
fn a_vec_grown_in_a_body_with_returns() {
    // (x, y) and the gradient of the exit each takes.
    let cases = [
        // y > 6: x.
        ((1.0, 7.0), [1.0, 0.0]),
        // y > 5: y·x.
        ((1.0, 5.5), [5.5, 1.0]),
        // v[0] = x > 4: v[1] = x.
        ((5.0, 1.0), [1.0, 0.0]),
        // v[2] = xy > 4: v[3] = xy + 1.
        ((2.0, 3.0), [3.0, 2.0]),
        // The end: xy·x + xy + 2.
        ((0.5, 1.5), [2.0 * 0.5 * 1.5 + 1.5, 0.25 + 0.5]),
    ];
    for ((x, y), want) in cases {
        let grad = grown_with_returns_grad(x, y).unwrap();
        assert_eq!(
            grad.value.to_bits(),
            grown_with_returns(x, y).to_bits(),
            "value at ({x}, {y})"
        );
        let got = [grad.gradient.0, grad.gradient.1];
        assert_agree(&format!("grown_with_returns at {:?}", [x, y]), &got, &want);
        let tape = grown_with_returns_grad_tape(x, y).unwrap();
        assert_agree(
            &format!("grown_with_returns vs tape at {:?}", [x, y]),
            &got,
            &[tape.gradient.0, tape.gradient.1],
        );
        let direct = autodiff::__adjoint::with_stack(|stack| {
            let direct = grown_with_returns_adjoint(stack, x, y).expect("compiled and finite");
            assert!(
                stack.is_empty(),
                "the reverse popped what the forward pushed"
            );
            direct
        });
        assert_eq!(direct.gradient, grad.gradient);
    }
    assert_eq!(grown_with_returns_grad_path(), GradientPath::Compiled);
}

// ---------------------------------------------------------------------
// Items moved: `swap`, `reverse`, `truncate`, compiled (the reverse moves
// the adjoints back; values read before the move are saved).
// ---------------------------------------------------------------------

/// Reads before and after a swap at constant indices:
/// x0·x1 (before) + v0·2 + v1·v2 with v = [x2, x1, x0] (after).
#[differentiable]
fn swap_between_reads(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let before = v[0] * v[1];
    v.swap(0, 2);
    before + v[0] * 2.0 + v[1] * v[2]
}

/// Adjacent swaps in a loop (a bubble of the first item to the end), an
/// accumulation that reads `v` each round: Σ_k v[0]·x_k during round k.
#[differentiable]
fn swaps_in_a_loop(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut s = 0.0;
    for k in 0..x.len() - 1 {
        s += v[0] * x[k];
        v.swap(k, k + 1);
    }
    s + v[x.len() - 1] * 3.0
}

/// A swap whose index is a counter that changes after it, so the reverse
/// needs the indices saved: swap(0, 1) then swap(1, 2).
#[differentiable]
fn swap_at_a_counter(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut i = 0;
    while i < 2 {
        v.swap(i, i + 1);
        i += 1;
    }
    v[0] * v[1] + v[2]
}

/// Element writes, a reverse, a push, then a truncation.
#[differentiable]
fn reversed_and_truncated(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for k in 0..x.len() {
        v[k] *= k as f64 + 1.0;
    }
    let first = v[0] * v[2];
    v.reverse();
    v.push(x[1] * x[1]);
    let mut s = first;
    for k in 0..x.len() + 1 {
        s += (k as f64 + 1.0) * v[k];
    }
    v.truncate(2);
    s + v[0] * v[1] + v.len() as f64
}

#[test]
fn swap_reverse_and_truncate_are_compiled() {
    check!(
        swap_between_reads,
        swap_between_reads_grad,
        swap_between_reads_grad_tape,
        |x| vec![x[1] + x[1], x[0] + x[0], 2.0]
    );
    // v walks [x0 x1 x2] → [x1 x0 x2] → [x1 x2 x0]: s = x0·x0 + x1·x1,
    // then 3·x0.
    check!(
        swaps_in_a_loop,
        swaps_in_a_loop_grad,
        swaps_in_a_loop_grad_tape,
        |x| vec![2.0 * x[0] + 3.0, 2.0 * x[1], 0.0]
    );
    // [x0 x1 x2] → [x1 x0 x2] → [x1 x2 x0]: x1·x2 + x0.
    check!(
        swap_at_a_counter,
        swap_at_a_counter_grad,
        swap_at_a_counter_grad_tape,
        |x| vec![1.0, x[2], x[1]]
    );
    // v = [x0, 2x1, 3x2]; first = 3·x0·x2; reversed [3x2, 2x1, x0], then
    // x1² pushed: s = first + 3x2 + 4x1 + 3x0 + 4x1²; truncated to
    // [3x2, 2x1]: + 6·x1·x2 + 2.
    check!(
        reversed_and_truncated,
        reversed_and_truncated_grad,
        reversed_and_truncated_grad_tape,
        |x| vec![
            3.0 * x[2] + 3.0,
            4.0 + 8.0 * x[1] + 6.0 * x[2],
            3.0 * x[0] + 3.0 + 6.0 * x[1]
        ]
    );
    for path in [
        swap_between_reads_grad_path(),
        swaps_in_a_loop_grad_path(),
        swap_at_a_counter_grad_path(),
        reversed_and_truncated_grad_path(),
    ] {
        assert_eq!(path, GradientPath::Compiled);
    }
    // The compiled adjoint answers itself.
    let x = POINTS[1];
    for compiled in [
        autodiff::__adjoint::with_stack(|stack| swap_between_reads_adjoint(stack, &x)),
        autodiff::__adjoint::with_stack(|stack| swaps_in_a_loop_adjoint(stack, &x)),
        autodiff::__adjoint::with_stack(|stack| swap_at_a_counter_adjoint(stack, &x)),
        autodiff::__adjoint::with_stack(|stack| reversed_and_truncated_adjoint(stack, &x)),
    ] {
        assert!(compiled.is_some());
    }
}

/// A truncation of a `Vec` grown from empty: its items are numbers, as
/// what is pushed onto it shows (the zeros the reverse puts back).
#[differentiable]
fn truncated_from_empty(x: &[f64]) -> f64 {
    let mut v = Vec::new();
    for k in 0..x.len() {
        v.push(x[k] * x[k]);
    }
    v.truncate(2);
    v[0] + v[1] * 3.0
}

#[test]
fn a_truncation_of_a_vec_grown_from_empty_is_compiled() {
    check!(
        truncated_from_empty,
        truncated_from_empty_grad,
        truncated_from_empty_grad_tape,
        |x| vec![2.0 * x[0], 6.0 * x[1], 0.0]
    );
    assert_eq!(truncated_from_empty_grad_path(), GradientPath::Compiled);
}

/// A `Vec` bound in each round of a loop and swapped there, a swap in a
/// branch, and a local array reversed.
#[differentiable]
fn swaps_in_rounds_and_branches(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..2 {
        let mut v = x.to_vec();
        v.swap(0, k + 1);
        s += v[0] * v[1];
    }
    let mut w = [x[0], x[1] * 2.0, x[2]];
    if x[0] > x[1] {
        w.swap(1, 2);
    }
    w.reverse();
    s + w[0] * 3.0 + w[1] * w[2]
}

#[test]
fn swaps_in_loop_rounds_and_branches_and_an_array_reversed() {
    // Rounds: k = 0 → [x1 x0 x2]: x1·x0; k = 1 → [x2 x1 x0]: x2·x1.
    // w = [x0, 2x1, x2], swapped to [x0, x2, 2x1] when x0 > x1, then
    // reversed: [2x1, x2, x0] (swapped) or [x2, 2x1, x0].
    check!(
        swaps_in_rounds_and_branches,
        swaps_in_rounds_and_branches_grad,
        swaps_in_rounds_and_branches_grad_tape,
        |x| {
            let mut g = vec![x[1], x[0] + x[2], x[1]];
            if x[0] > x[1] {
                // + 6·x1 + x2·x0
                g[1] += 6.0;
                g[2] += x[0];
                g[0] += x[2];
            } else {
                // + 3·x2 + 2·x1·x0
                g[2] += 3.0;
                g[1] += 2.0 * x[0];
                g[0] += 2.0 * x[1];
            }
            g
        }
    );
    assert_eq!(
        swaps_in_rounds_and_branches_grad_path(),
        GradientPath::Compiled
    );
}

/// A truncation and then a reverse of a `Vec` never pushed: the adjoint
/// must have the truncated length when the reverse is undone.
#[differentiable]
fn truncated_then_reversed(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.truncate(2);
    v.reverse();
    v.swap(0, 1);
    v.reverse();
    v[0] * 3.0 + v[1] * x[2]
}

#[test]
fn a_truncation_then_a_reverse() {
    // [x0 x1] → [x1 x0] → [x0 x1] → [x1 x0]: 3·x1 + x0·x2.
    check!(
        truncated_then_reversed,
        truncated_then_reversed_grad,
        truncated_then_reversed_grad_tape,
        |x| vec![x[2], 3.0, x[0]]
    );
    assert_eq!(truncated_then_reversed_grad_path(), GradientPath::Compiled);
}

/// Grown by `extend`, then reversed: the reverse of the reverse needs the
/// adjoint at the extended length.
#[differentiable]
fn extended_then_reversed(x: &[f64]) -> f64 {
    let mut v = vec![x[0], x[1]];
    v.extend(x.iter().map(|t| t * 2.0));
    v.reverse();
    v[0] * v[4] + v[1]
}

/// The same grown by `extend` of a slice's items, no closure.
#[differentiable]
fn extended_by_items_then_reversed(x: &[f64]) -> f64 {
    let mut v = vec![x[0], x[1]];
    v.extend(x.iter());
    v.reverse();
    v[0] * v[4] + v[1]
}

#[test]
fn an_extend_then_a_reverse() {
    // [x0 x1 2x0 2x1 2x2] reversed: [2x2 2x1 2x0 x1 x0]: 2·x2·x0 + 2·x1.
    check!(
        extended_then_reversed,
        extended_then_reversed_grad,
        extended_then_reversed_grad_tape,
        |x| vec![2.0 * x[2], 2.0, 2.0 * x[0]]
    );
    // [x0 x1 x0 x1 x2] reversed: [x2 x1 x0 x1 x0]: x2·x0 + x1.
    check!(
        extended_by_items_then_reversed,
        extended_by_items_then_reversed_grad,
        extended_by_items_then_reversed_grad_tape,
        |x| vec![x[2], 1.0, x[0]]
    );
    // `extend` of a `map` closure is compiled (the loop that pushes each
    // item), and the reverse after it; `extend` of the items themselves
    // is not yet.
    assert_eq!(extended_then_reversed_grad_path(), GradientPath::Compiled);
    assert!(matches!(
        extended_by_items_then_reversed_grad_path(),
        GradientPath::Tape { .. }
    ));
}

/// A `Vec` bound again to a shorter one, then reversed.
#[differentiable]
fn rebound_then_reversed(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let last = v[2];
    v = vec![x[0], x[1] * 2.0];
    v.reverse();
    v[0] * 3.0 + v[1] * last
}

#[test]
fn a_vec_assigned_a_shorter_one_then_reversed() {
    // [x0, 2x1] reversed: [2x1, x0]: 6·x1 + x0·x2.
    check!(
        rebound_then_reversed,
        rebound_then_reversed_grad,
        rebound_then_reversed_grad_tape,
        |x| vec![x[2], 6.0, x[0]]
    );
    assert_eq!(
        rebound_then_reversed_grad_path(),
        GradientPath::Tape {
            construct: ".reverse() on a Vec assigned whole or bound again",
            // The line after `v = vec![..]`.
            line: include_str!("vec_growth.rs")
                .lines()
                .position(|l| l == "    v = vec![x[0], x[1] * 2.0];")
                .expect("the line") as u32
                + 2
        }
    );
}

/// A `Vec` grown by `push` and then moved into another binding (`let y =
/// out;`) built no adjoint at all (its adjoint was shaped from the moved
/// binding): it keeps the tape, named, with the right gradient.
#[differentiable]
fn grown_then_moved(x: f64) -> f64 {
    let mut out = Vec::new();
    for k in 0..2 {
        out.push(x * x * (k as f64 + 1.0));
    }
    let y = out;
    y[0] + y[1]
}

#[test]
fn a_grown_vec_moved_into_another_binding_keeps_the_tape() {
    // 3x², 6x at x = 0.5.
    let result = grown_then_moved_grad(0.5).unwrap();
    assert_eq!(result.value, 0.75);
    assert_eq!(result.gradient, 3.0);
    assert!(matches!(
        grown_then_moved_grad_path(),
        autodiff::GradientPath::Tape { .. }
    ));
}

// ---------------------------------------------------------------------
// A `Vec` whose `let` names its type and whose value does not show it
// (`let mut v: Vec<f64> = Vec::new();`, which a typed `collect` is read
// as): its items were not known to be numbers, so pushing one of them
// back (`v.push(v[0])`, or `let y = v[0]; v.push(y);`) kept the tape as
// "`.push()` of an array", named "a closure" for a `collect` (found by
// the random programs, seed 16005 `f7_5`). The `let`'s type says it.
// ---------------------------------------------------------------------

#[differentiable]
fn collected_then_own_items_pushed(x: &[f64]) -> f64 {
    let a = [x[0].exp(), x[1]];
    let mut v: Vec<f64> = a.iter().map(|t| t * 0.5).collect();
    for _ in 0..2 {
        v.push(v[0] * x[2]);
    }
    let last = v[3];
    v.push(last);
    v[1] + v[4]
}

#[differentiable]
fn typed_empty_then_own_item_pushed(x: &[f64]) -> f64 {
    let mut w: Vec<f64> = Vec::new();
    w.push(x[0] * x[1]);
    let z = w[0];
    w.push(z * x[2]);
    w[0] + w[1]
}

#[test]
fn a_typed_vec_takes_its_own_items_back() {
    check!(
        collected_then_own_items_pushed,
        collected_then_own_items_pushed_grad,
        collected_then_own_items_pushed_grad_tape,
        |x| {
            // x1/2 + e^x0·x2/2
            let e = x[0].exp();
            vec![e * x[2] / 2.0, 0.5, e / 2.0]
        }
    );
    assert_eq!(
        collected_then_own_items_pushed_grad_path(),
        GradientPath::Compiled
    );
    check!(
        typed_empty_then_own_item_pushed,
        typed_empty_then_own_item_pushed_grad,
        typed_empty_then_own_item_pushed_grad_tape,
        // x0·x1 + x0·x1·x2
        |x| vec![x[1] + x[1] * x[2], x[0] + x[0] * x[2], x[0] * x[1]]
    );
    assert_eq!(
        typed_empty_then_own_item_pushed_grad_path(),
        GradientPath::Compiled
    );
}

// ---------------------------------------------------------------------
// A typed `collect` of constants that takes a derivative later (a push of
// a tracked value, an element scaled by one): the closure carried none,
// so it was left as written, and the function kept the tape for "a
// closure" (found by the random programs, seed 16103 `g7_2`). A
// `collect` is read as its loop whatever its items.
// ---------------------------------------------------------------------

#[differentiable]
fn constants_collected_then_pushed(x: &[f64]) -> f64 {
    let a = [0.25_f64.sin(), 2.0];
    let mut v: Vec<f64> = a.iter().map(|t| t * 0.5).collect();
    v.push(x[0] * x[1]);
    v[1] *= x[2];
    v[0] + v[1] + v[2]
}

#[test]
fn a_collect_of_constants_then_tracked_values_is_compiled() {
    check!(
        constants_collected_then_pushed,
        constants_collected_then_pushed_grad,
        constants_collected_then_pushed_grad_tape,
        // sin(1/4)/2 + x2 + x0·x1
        |x| vec![x[1], x[0], 1.0]
    );
    assert_eq!(
        constants_collected_then_pushed_grad_path(),
        GradientPath::Compiled
    );
}

// ---------------------------------------------------------------------
// A `Vec` started empty with no type on its `let` (`let mut v =
// Vec::new();`) takes the shape of what is pushed onto it: pushing one
// of its own items back (`v.push(v[0])`) kept the tape as "`.push()` of
// an array" (found by the random programs, seeds 16119 `f1_13` and 16117
// `f7_16`, drawn from compiled constructs).
// ---------------------------------------------------------------------

#[differentiable]
fn empty_then_own_item_pushed(x: &[f64]) -> f64 {
    let mut v = Vec::new();
    for k in 0..2 {
        v.push(x[k] * x[2]);
    }
    if x[0] < 10.0 {
        for _ in 0..2 {
            v.push(v[0]);
        }
    }
    v[1] * v[3]
}

#[test]
fn an_empty_vec_takes_its_own_items_back() {
    check!(
        empty_then_own_item_pushed,
        empty_then_own_item_pushed_grad,
        empty_then_own_item_pushed_grad_tape,
        // x1·x2 · x0·x2
        |x| vec![
            x[1] * x[2] * x[2],
            x[0] * x[2] * x[2],
            2.0 * x[0] * x[1] * x[2]
        ]
    );
    assert_eq!(
        empty_then_own_item_pushed_grad_path(),
        GradientPath::Compiled
    );
}

// ---------------------------------------------------------------------
// An empty row among tracked rows, its type left to rustc.
// ---------------------------------------------------------------------

/// `Vec::new()` listed beside a tracked row: its item type is its
/// sibling's. x0·(x1 + 2) through the rows and the count of them.
#[differentiable]
fn empty_row_listed(x: &[f64]) -> f64 {
    let m = vec![x.to_vec(), Vec::new()];
    m[0][0] * (m[0][1] + m.len() as f64)
}

/// `Vec::new()` pushed among tracked rows, then pushed into:
/// x1·(2·x0) + x2·x1. (Pushed on purpose: the push is what is tested.)
#[allow(clippy::vec_init_then_push)]
#[differentiable]
fn empty_row_pushed(x: &[f64]) -> f64 {
    let mut m = Vec::new();
    m.push(x.to_vec());
    m.push(Vec::new());
    m[1].push(x[0] * 2.0);
    m[1].push(x[2]);
    m[0][1] * m[1][0] + m[1][1] * x[1]
}

#[test]
fn an_empty_row_among_tracked_rows() {
    check!(
        empty_row_listed,
        empty_row_listed_grad,
        empty_row_listed_grad_tape,
        |x| vec![x[1] + 2.0, x[0], 0.0]
    );
    check!(
        empty_row_pushed,
        empty_row_pushed_grad,
        empty_row_pushed_grad_tape,
        |x| vec![2.0 * x[1], 2.0 * x[0] + x[2], x[1]]
    );
    assert_eq!(empty_row_pushed_grad_path(), GradientPath::Compiled);
}

/// A row declared before the loop, made again and filled in each trip,
/// then moved into the rows (`out.push(row)`): its shape after the loop
/// cannot be read, so it keeps the tape (it did not build). Value
/// out[0][0]·out[1][1] = x0·(2·x1).
#[allow(unused_assignments)]
#[differentiable]
fn row_moved_each_trip(x: &[f64]) -> f64 {
    let mut out: Vec<Vec<f64>> = Vec::new();
    let mut row = Vec::new();
    for i in 0..2 {
        row = Vec::new();
        for j in 0..x.len() {
            row.push(x[j] * (i as f64 + 1.0));
        }
        out.push(row);
    }
    out[0][0] * out[1][1]
}

#[test]
fn a_row_grown_and_moved_in_one_loop_keeps_the_tape() {
    check!(
        row_moved_each_trip,
        row_moved_each_trip_grad,
        row_moved_each_trip_grad_tape,
        |x| vec![2.0 * x[1], 2.0 * x[0], 0.0]
    );
    assert!(matches!(
        row_moved_each_trip_grad_path(),
        GradientPath::Tape { .. }
    ));
}
