//! The `Vec` methods that move items, compiled: `pop`, `insert`,
//! `extend_from_slice`, `sort_by` and `concat` (with `swap`, `reverse` and
//! `truncate`, which `vec_growth` checks), at the top level and in loops,
//! with the `Vec` read and grown by `push` after the move. The reverse
//! sweep moves each item's adjoint back the way the item came.
//!
//! Each function is a module named for what it checks, written twice: as
//! the student writes it, `f` under `#[differentiable]`, and `twin` over
//! the shared oracle's dual numbers (`tests/support/oracle.rs`), with the
//! same moves on `Vec<Dual>`; `checked!()` writes its test. At
//! every point `f_grad` must take the compiled path (`f_adjoint` answers
//! and leaves its stack empty), return the plain function's value bit for
//! bit, and agree with the tape and with the dual tangents to `AGREE` of
//! the largest component: the functions are sums of a few products of
//! inputs of magnitude ≤ 3, so the three agree to a few ulps.

// Index loops, counted indices and `&x[..]` (the tape's `concat` takes
// no `Vec` beside a slice) on purpose: they are the constructs under test.
#![allow(
    clippy::needless_range_loop,
    clippy::useless_vec,
    clippy::explicit_counter_loop,
    clippy::redundant_slicing
)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use crate::oracle::{dual_value_and_gradient, Dual};
use crate::support::{assert_agree, compiled};

/// Points with no ties (a sort's order is the same nearby) and one with a
/// tie, where the stable sort keeps the tied items in order on every path.
const POINTS: [[f64; 4]; 5] = [
    [2.0, 3.0, -0.5, 1.25],
    [-1.25, 0.5, 1.5, -2.0],
    [0.75, -2.0, 0.25, 2.5],
    [1.0, -3.0, 2.0, 0.5],
    [1.5, 1.5, -1.0, 1.5],
];

/// `f_grad` against the plain function (bit for bit), its compiled
/// adjoint run alone, the tape and the dual twin, at every point.
#[track_caller]
pub(crate) fn check(
    name: &str,
    plain: impl Fn(&[f64]) -> f64,
    adjoint: impl Fn(&mut autodiff::__adjoint::Stack, &[f64]) -> Option<ValueAndGradient<Vec<f64>>>,
    grad: impl Fn(&[f64]) -> ValueAndGradient<Vec<f64>>,
    tape: impl Fn(&[f64]) -> ValueAndGradient<Vec<f64>>,
    twin: impl Fn(&[Dual]) -> Dual,
) {
    for at in POINTS {
        let named = format!("{name} at {at:?}");
        let alone = compiled(|stack| adjoint(stack, &at));
        let got = grad(&at);
        assert_eq!(got.value.to_bits(), plain(&at).to_bits(), "{named}: value");
        assert_eq!(alone.value.to_bits(), got.value.to_bits(), "{named}");
        assert_eq!(alone.gradient, got.gradient, "{named}");
        let tape = tape(&at);
        assert_eq!(tape.value.to_bits(), got.value.to_bits(), "{named}: tape");
        assert_agree(&named, &got.gradient, &tape.gradient);
        let (value, tangents) = dual_value_and_gradient(&at, &twin);
        assert_eq!(value.to_bits(), got.value.to_bits(), "{named}: dual");
        assert_agree(&named, &got.gradient, &tangents);
    }
}

/// The test of one module below, which holds `f` under
/// `#[differentiable]` and its dual twin `twin`: `check` at every point,
/// and `f_grad_path()` says `Compiled`.
macro_rules! checked {
    () => {
        #[test]
        fn against_the_tape_and_dual_numbers() {
            $crate::vec_moves::check(
                module_path!(),
                f,
                |stack, x| f_adjoint(stack, x),
                |x| f_grad(x).unwrap(),
                |x| f_grad_tape(x).unwrap(),
                twin,
            );
            assert_eq!(f_grad_path(), GradientPath::Compiled);
        }
    };
}
pub(crate) use checked;

fn c(v: f64) -> Dual {
    Dual::constant(v)
}

// ---------------------------------------------------------------------
// `pop`: the item's adjoint goes back onto the end.
// ---------------------------------------------------------------------

/// Popped, read after, pushed onto again: the `Vec` after the pop has
/// the length the pop left, and grows from there.
mod pop_then_read_and_push {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        let last = v.pop().unwrap();
        let s = last * v[0];
        v.push(last * 2.0 + v[1]);
        v.push(s);
        s + v[3] * v[1] + v.len() as f64 * v[4]
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut v = x.to_vec();
        let last = v.pop().unwrap();
        let s = last * v[0];
        v.push(last * 2.0 + v[1]);
        v.push(s);
        s + v[3] * v[1] + v[4] * v.len() as f64
    }

    checked!();
}

/// Pops in loops: a `while` on the length, a `for` whose body pops in a
/// compound assignment, a `pop` dropped as a statement and one unwrapped
/// and dropped.
mod pops_in_loops_and_as_statements {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        v.push(x[0] * x[1]);
        v.push(x[2].sin());
        let mut s = 0.0;
        while v.len() > 3 {
            let t = v.pop().unwrap();
            s += t * t;
        }
        for k in 0..2 {
            s += v.pop().unwrap() * (k as f64 + 2.0);
            v.push(s * 0.5);
        }
        v.pop();
        v.pop().unwrap();
        s * v[0]
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut v = x.to_vec();
        v.push(x[0] * x[1]);
        v.push(x[2].sin());
        let mut s = c(0.0);
        while v.len() > 3 {
            let t = v.pop().unwrap();
            s = s + t * t;
        }
        for k in 0..2 {
            s = s + v.pop().unwrap() * (k as f64 + 2.0);
            v.push(s * 0.5);
        }
        v.pop();
        v.pop().unwrap();
        s * v[0]
    }

    checked!();
}

/// A `pop` in a body with an early `return`, and one in the returned
/// value.
mod pop_in_a_body_with_returns {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        let a = v.pop().unwrap();
        if a > 1.0 {
            return v.pop().unwrap() * a;
        }
        v.push(a * x[0]);
        v[3] + v[0] * a
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut v = x.to_vec();
        let a = v.pop().unwrap();
        if a.value > 1.0 {
            return v.pop().unwrap() * a;
        }
        v.push(a * x[0]);
        v[3] + v[0] * a
    }

    checked!();
}

// ---------------------------------------------------------------------
// `insert`: the item's adjoint is taken out where it went.
// ---------------------------------------------------------------------

/// Inserted at the front in a loop, at a counted index that changes, of
/// a value read from the `Vec` itself, then pushed onto.
mod inserts_in_a_loop_at_a_counted_index {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut v = Vec::new();
        let mut at = 0;
        for k in 0..x.len() {
            v.insert(0, x[k] * (k as f64 + 1.0));
            v.insert(at, x[k] - 0.5);
            at += 1;
        }
        v.insert(2, v[0] * v[1]);
        v.push(x[3] * v[2]);
        v[0] * v[2] + v[4] - v[9] * v[1] + v[7] * v[8]
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut v = Vec::new();
        let mut at = 0;
        for k in 0..x.len() {
            v.insert(0, x[k] * (k as f64 + 1.0));
            v.insert(at, x[k] - 0.5);
            at += 1;
        }
        v.insert(2, v[0] * v[1]);
        v.push(x[3] * v[2]);
        v[0] * v[2] + v[4] - v[9] * v[1] + v[7] * v[8]
    }

    checked!();
}

// ---------------------------------------------------------------------
// `extend_from_slice`: the appended run's adjoints go back to the slice.
// ---------------------------------------------------------------------

/// Extended in a loop by a parameter and by a range of one, then by a
/// local `Vec`, with pushes between.
mod extend_from_slices_of_parameters_and_locals {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let w = vec![x[0] * 2.0, x[1] * x[2]];
        let mut v = Vec::new();
        for k in 0..2 {
            v.extend_from_slice(&x[k..k + 2]);
            v.push(x[3] * (k as f64 + 1.0));
        }
        v.extend_from_slice(&w);
        v.extend_from_slice(x);
        v[0] * v[4] + v[6] * v[7] - v[2] * v[5] + v[11] * v[1]
    }

    fn twin(x: &[Dual]) -> Dual {
        let w = vec![x[0] * 2.0, x[1] * x[2]];
        let mut v = Vec::new();
        for k in 0..2 {
            v.extend_from_slice(&x[k..k + 2]);
            v.push(x[3] * (k as f64 + 1.0));
        }
        v.extend_from_slice(&w);
        v.extend_from_slice(x);
        v[0] * v[4] + v[6] * v[7] - v[2] * v[5] + v[11] * v[1]
    }

    checked!();
}

// ---------------------------------------------------------------------
// `sort_by`: the saved permutation moves each adjoint back.
// ---------------------------------------------------------------------

/// Sorted ascending by `partial_cmp`, read, written by element, sorted
/// descending by `total_cmp` in a loop, then pushed onto.
mod sort_by_either_order_in_a_loop {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let low = v[0] * v[1];
        for k in 0..2 {
            v[k] = v[k] * (k as f64 + 1.5) + low;
            v.sort_by(|a, b| b.total_cmp(a));
        }
        v.push(low * v[3]);
        v[0] + 2.0 * v[1] * v[2] + v[3] * v[4]
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut v = x.to_vec();
        v.sort_by(|a, b| a.value.partial_cmp(&b.value).unwrap());
        let low = v[0] * v[1];
        for k in 0..2 {
            v[k] = v[k] * (k as f64 + 1.5) + low;
            v.sort_by(|a, b| b.value.total_cmp(&a.value));
        }
        v.push(low * v[3]);
        v[0] + v[1] * 2.0 * v[2] + v[3] * v[4]
    }

    checked!();
}

// ---------------------------------------------------------------------
// `concat`: each part takes its run of the adjoint.
// ---------------------------------------------------------------------

/// Parts that are parameters, ranges, literals and a local `Vec`; a
/// `concat` in a loop; pushes onto a concatenation.
mod concat_of_parameters_ranges_literals_and_locals {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let head = vec![x[0] * x[1], x[2]];
        let mut v = [&x[1..3], &head[..]].concat();
        v.push(x[3] * v[0]);
        let w = vec![head.clone(), vec![x[3] * 2.0, 1.0], x.to_vec()].concat();
        let mut s = 0.0;
        for k in 0..2 {
            let p = [&x[..], &x[..2]].concat();
            s += p[k] * p[k + 4] + p[5 - k];
        }
        s + v[0] * v[3] + v[4] + w[2] * w[1] + w[3] * w[7]
    }

    fn twin(x: &[Dual]) -> Dual {
        let head = vec![x[0] * x[1], x[2]];
        let mut v = [&x[1..3], &head[..]].concat();
        v.push(x[3] * v[0]);
        let w = vec![head.clone(), vec![x[3] * 2.0, c(1.0)], x.to_vec()].concat();
        let mut s = c(0.0);
        for k in 0..2 {
            let p = [&x[..], &x[..2]].concat();
            s = s + p[k] * p[k + 4] + p[5 - k];
        }
        s + v[0] * v[3] + v[4] + w[2] * w[1] + w[3] * w[7]
    }

    checked!();
}

// ---------------------------------------------------------------------
// What keeps the tape, with the reason: a `pop` whose item is not read as
// a number with a derivative, and one in a statement that reads the `Vec`
// again (the reverse's order of the adjoints would then matter).
// ---------------------------------------------------------------------

#[differentiable]
fn popped_in_a_condition(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    if v.pop().unwrap() > 0.0 {
        v[0] * 2.0
    } else {
        v[1] * v[2]
    }
}

#[differentiable]
fn popped_and_read_again(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v[3] * v.pop().unwrap()
}

#[test]
fn a_pop_the_reverse_cannot_follow_keeps_the_tape() {
    let x = [1.5, -2.0, 0.5, 3.0];
    let got = popped_in_a_condition_grad(&x).unwrap();
    assert_eq!(got.value, 3.0);
    assert_eq!(got.gradient, vec![2.0, 0.0, 0.0, 0.0]);
    assert_eq!(
        popped_in_a_condition_grad_path(),
        GradientPath::Tape {
            construct: ".pop() whose item is not read as a number",
            line: 361
        }
    );
    let got = popped_and_read_again_grad(&x).unwrap();
    assert_eq!(got.value, 9.0);
    assert_eq!(got.gradient, vec![0.0, 0.0, 0.0, 6.0]);
    assert_eq!(
        popped_and_read_again_grad_path(),
        GradientPath::Tape {
            construct: "a statement that pops a Vec and reads it again",
            line: 371
        }
    );
}

/// `[a, b].concat()` of local `Vec`s moves them into the list, so the
/// adjoint has no shape to take for them at the end of the forward sweep:
/// the tape computes it (this built nothing before).
#[differentiable]
fn concat_of_moved_locals(x: &[f64]) -> f64 {
    let a: Vec<f64> = x.iter().map(|v| v * 2.0).collect();
    let b = vec![x[0] * x[1], 3.0];
    let c = [a, b].concat();
    c[0] * c[3] + c[4]
}

#[test]
fn a_concat_of_moved_locals_keeps_the_tape() {
    let x = [0.5, 1.2, -0.7, 0.9];
    let got = concat_of_moved_locals_grad(&x).unwrap();
    // 4·x0·x3 + x0·x1.
    assert_eq!(got.value, concat_of_moved_locals(&x));
    assert_agree(
        "moved parts",
        &got.gradient,
        &[4.0 * x[3] + x[1], x[0], 0.0, 4.0 * x[0]],
    );
    assert!(matches!(
        concat_of_moved_locals_grad_path(),
        GradientPath::Tape { construct, .. } if construct.starts_with(".concat() of a local moved into it")
    ));
}

/// Extended by a literal of tracked values, in a loop and after a sort.
mod extend_from_slice_of_literals {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut v = vec![x[0]];
        for k in 1..3 {
            v.extend_from_slice(&[x[k] * x[k + 1], x[k].tanh(), 0.5]);
        }
        v.sort_by(|a, b| b.partial_cmp(a).unwrap());
        v.extend_from_slice(&[v[0] * x[3]]);
        v[0] * v[1] + v[2] * v[7] - v[3] * v[4] + v[5] + v[6]
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut v = vec![x[0]];
        for k in 1..3 {
            v.extend_from_slice(&[x[k] * x[k + 1], x[k].tanh(), c(0.5)]);
        }
        v.sort_by(|a, b| b.value.partial_cmp(&a.value).unwrap());
        let last = v[0] * x[3];
        v.extend_from_slice(&[last]);
        v[0] * v[1] + v[2] * v[7] - v[3] * v[4] + v[5] + v[6]
    }

    checked!();
}

// ---------------------------------------------------------------------
// `extend` of a mapped closure (the loop that pushes each item), and a
// `for` over a local `Vec` or array by value (walked as its copied items,
// so that it is still there for the reverse).
// ---------------------------------------------------------------------

/// Extended by closures over a slice, skipped in a loop, and filtered;
/// then walked by value.
mod extend_by_mapped_closures {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut out = vec![x[0] * x[1]];
        out.extend(x.iter().map(|v| v.tanh() * 2.0));
        for k in 0..2 {
            out.extend(x.iter().skip(k + 1).map(|v| v * x[3]));
            out.push(x[k]);
        }
        out.extend(x.iter().filter(|v| **v > 0.0).map(|v| v * v));
        let mut total = 0.0;
        for s in out {
            total += s * s;
        }
        total
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut out = vec![x[0] * x[1]];
        out.extend(x.iter().map(|v| v.tanh() * 2.0));
        for k in 0..2 {
            out.extend(x.iter().skip(k + 1).map(|v| *v * x[3]));
            out.push(x[k]);
        }
        out.extend(x.iter().filter(|v| v.value > 0.0).map(|v| *v * *v));
        let mut total = c(0.0);
        for s in out {
            total = total + s * s;
        }
        total
    }

    checked!();
}

/// A `Vec` sorted, popped and walked by value; a local array walked by
/// value inside a loop.
mod for_over_a_local_vec_by_value {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut squares = Vec::with_capacity(x.len());
        for i in 0..x.len() {
            squares.push(x[i] * x[i] - x[(i + 1) % 4]);
        }
        squares.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let last = squares.pop().unwrap();
        let mut total = last;
        for s in squares {
            total += s * last;
        }
        let a = [x[0] * 2.0, x[1]];
        for k in 0..2 {
            for t in a {
                total += (t * (k as f64 + 1.0)).sin();
            }
        }
        total
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut squares = Vec::with_capacity(x.len());
        for i in 0..x.len() {
            squares.push(x[i] * x[i] - x[(i + 1) % 4]);
        }
        squares.sort_by(|a, b| a.value.partial_cmp(&b.value).unwrap());
        let last = squares.pop().unwrap();
        let mut total = last;
        for s in squares {
            total = total + s * last;
        }
        let a = [x[0] * 2.0, x[1]];
        for k in 0..2 {
            for t in a {
                total = total + (t * (k as f64 + 1.0)).sin();
            }
        }
        total
    }

    checked!();
}

// ---------------------------------------------------------------------
// A slice of a local (`&v[..2]`), whose adjoint goes back into the
// slice's run, and `while let Some(t) = it.next()` over `v.iter()`, read
// as the `for` over `v.iter()` it is.
// ---------------------------------------------------------------------

/// Slices of a parameter and of a local `Vec`, read by index and walked;
/// a `Vec` drained by `while let`, with a `let` between the iterator and
/// its loop.
mod slices_of_locals_and_while_let_over_iter {
    use super::*;

    // `while let` on purpose: the pattern under test.
    #[allow(clippy::while_let_on_iterator)]
    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let head = &x[..2];
        let mut v = x.to_vec();
        v.push(x[0] * x[3]);
        let tail = &v[2..];
        let mut s = head[0] * head[1] + tail[2] * tail[0];
        for t in tail.iter() {
            s += t * head[1];
        }
        let mut it = v.iter();
        let k = 0.5;
        while let Some(t) = it.next() {
            s += t * t * k;
        }
        s
    }

    fn twin(x: &[Dual]) -> Dual {
        let head = &x[..2];
        let mut v = x.to_vec();
        v.push(x[0] * x[3]);
        let tail = &v[2..];
        let mut s = head[0] * head[1] + tail[2] * tail[0];
        for t in tail.iter() {
            s = s + *t * head[1];
        }
        for t in v.iter() {
            s = s + *t * *t * 0.5;
        }
        s
    }

    checked!();
}

/// A `Vec` of constants into which a tracked item is inserted, and one
/// extended by a tracked literal: tracked on the tape from their `let`s
/// (random programs, seed 17005: neither built).
mod tracked_items_into_a_vec_of_constants {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut v = vec![0.5, 1.5];
        v.insert(1, x[0].tanh());
        let mut w = vec![2.0];
        w.extend_from_slice(&[x[1] * x[2]]);
        v[1] * w[1] + v[0] * x[3]
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut v = vec![c(0.5), c(1.5)];
        v.insert(1, x[0].tanh());
        let mut w = vec![c(2.0)];
        w.extend_from_slice(&[x[1] * x[2]]);
        v[1] * w[1] + v[0] * x[3]
    }

    checked!();
}

/// `concat` in a body with `return`: its adjoint's length is pushed at
/// each exit after it, as a grown `Vec`'s, and the reverse of the
/// `concat` splits it at the parts' lengths it saved. A part grows after
/// the `concat` (random programs, seeds 17505's f0_16 and 17509's f0_3
/// kept the tape: "`.concat()` of a part whose length changes").
mod concat_in_a_body_with_return {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let mut v = vec![x[0], x[1]];
        v.push(x[2] * x[3]);
        let w = [v.clone(), vec![x[3].sin()]].concat();
        v.push(w[0] * w[3]);
        v[0] += w[1];
        if x[0] > 1.0 {
            return w[2] * v[3] + w[3];
        }
        v[3] * w[1] + w[2] + v[0]
    }

    fn twin(x: &[Dual]) -> Dual {
        let mut v = vec![x[0], x[1]];
        v.push(x[2] * x[3]);
        let w = [v.clone(), vec![x[3].sin()]].concat();
        v.push(w[0] * w[3]);
        v[0] = v[0] + w[1];
        if x[0].value > 1.0 {
            return w[2] * v[3] + w[3];
        }
        v[3] * w[1] + w[2] + v[0]
    }

    checked!();
}

/// `Vec`s with no derivative taken by value by a `for` (`for t in v`),
/// after a `swap`, at the top level and inside a branch, beside a tracked
/// `Vec` summed the same way: run as written, the loop moved the `Vec`
/// that the adjoint still names after the forward (its adjoint is shaped
/// from it), and the generated code did not build (random programs, seed
/// 17501's f2_10).
mod constant_vecs_summed_by_value {
    use super::*;
    use crate::support::agree;

    #[differentiable]
    fn f(x: f64, y: f64) -> f64 {
        let mut acc = x;
        let c = 0.3125_f64.cos();
        let mut v = vec![0.25; 2];
        for k in 0..2 {
            v.push(c * c + k as f64);
        }
        v.swap(0, 2);
        let mut s = 0.0;
        for t in v {
            s += t * c;
        }
        let mut w = vec![1.5, c];
        w.push(0.5);
        if y > -10.0 {
            for t in w {
                s += t * t;
            }
        }
        let mut u = vec![x, y];
        u.push(x * y);
        u.swap(0, 2);
        for item in u {
            acc += item * y;
        }
        s + acc
    }

    fn twin(x: Dual, y: Dual) -> Dual {
        let mut acc = x;
        let c = 0.3125_f64.cos();
        let mut v = vec![0.25; 2];
        for k in 0..2 {
            v.push(c * c + k as f64);
        }
        v.swap(0, 2);
        let mut s = 0.0;
        for t in v {
            s += t * c;
        }
        let mut w = vec![1.5, c];
        w.push(0.5);
        if y.value > -10.0 {
            for t in w {
                s += t * t;
            }
        }
        let mut u = vec![x, y];
        u.push(x * y);
        u.swap(0, 2);
        for item in u {
            acc = acc + item * y;
        }
        acc + s
    }

    #[test]
    fn against_the_tape_and_dual_numbers() {
        for at in POINTS {
            let (x, y) = (at[0], at[1]);
            let named = format!("at {at:?}");
            let alone = compiled(|stack| f_adjoint(stack, x, y));
            let got = agree(&named, f_grad(x, y), f_grad_tape(x, y));
            assert_eq!(got.value.to_bits(), f(x, y).to_bits(), "{named}: value");
            assert_eq!(alone.gradient, got.gradient, "{named}");
            let (value, tangents) = dual_value_and_gradient(&[x, y], |d| twin(d[0], d[1]));
            assert_eq!(value.to_bits(), got.value.to_bits(), "{named}: dual");
            assert_agree(&named, &[got.gradient.0, got.gradient.1], &tangents);
        }
        assert_eq!(f_grad_path(), GradientPath::Compiled);
    }
}

// ---------------------------------------------------------------------
// A `Vec` the body moves away after a loop read it: the reverse of that
// loop reads its items again, so the forward sweep walks it by reference
// (`v.into_iter()`) or copies it (`let w = v;`, `w = v;`); random
// programs found the first (seed 20761 f8_11: the adjoint did not build).
// ---------------------------------------------------------------------

/// A `Vec` of constants walked by `into_iter()` after a loop read it.
mod walked_by_into_iter_after_a_loop {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let v = vec![0.5, -1.5, 2.0];
        let mut c = 0.0;
        for t in v.iter() {
            c += t * x[0].sin() + x[1] * x[2];
        }
        let mut s = 0.0;
        for t in v.into_iter() {
            s += t * x[3];
        }
        c * s
    }

    fn twin(x: &[Dual]) -> Dual {
        let v = [0.5, -1.5, 2.0];
        let mut c = c(0.0);
        for t in v.iter() {
            c = c + (x[0].sin() * *t + x[1] * x[2]);
        }
        let mut s = super::c(0.0);
        for t in v.into_iter() {
            s = s + x[3] * t;
        }
        c * s
    }

    checked!();
}

/// A tracked `Vec` bound again whole (`let w = v;`) after a loop read it.
mod bound_again_whole_after_a_loop {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let v = x.to_vec();
        let mut c = 0.0;
        for t in v.iter() {
            c += t * x[0].sin();
        }
        let w = v;
        c + w[1] * w[3]
    }

    fn twin(x: &[Dual]) -> Dual {
        let v = x.to_vec();
        let mut c = c(0.0);
        for t in v.iter() {
            c = c + *t * x[0].sin();
        }
        let w = v;
        c + w[1] * w[3]
    }

    checked!();
}

/// A tracked `Vec` assigned whole to another (`w = v;`) after a loop read
/// it, the other read after.
mod assigned_whole_after_a_loop {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let v = vec![x[0] * x[1], x[2]];
        let mut w = vec![0.0, 0.0];
        let mut c = 0.0;
        for t in v.iter() {
            c += t * x[3].cos();
        }
        w = v;
        c + w[0] * x[2] + w[1]
    }

    fn twin(x: &[Dual]) -> Dual {
        let v = vec![x[0] * x[1], x[2]];
        let mut c = c(0.0);
        for t in v.iter() {
            c = c + *t * x[3].cos();
        }
        let w = v;
        c + w[0] * x[2] + w[1]
    }

    checked!();
}

/// A `Vec` of constants assigned whole (`w = v;`) after a loop read it.
mod constants_assigned_whole_after_a_loop {
    use super::*;

    #[differentiable]
    fn f(x: &[f64]) -> f64 {
        let v = vec![0.5, -1.5];
        let mut w = vec![0.0; 2];
        let mut c = 0.0;
        for t in v.iter() {
            c += t * x[0].sin();
        }
        w = v;
        c + w[1] * x[1]
    }

    fn twin(x: &[Dual]) -> Dual {
        let v = [0.5, -1.5];
        let mut c = c(0.0);
        for t in v.iter() {
            c = c + x[0].sin() * *t;
        }
        c + x[1] * v[1]
    }

    checked!();
}

/// A `Vec` of constants given to `drop` after a loop read it: as written
/// the forward would move it, so the body keeps the tape, with the
/// statement as the reason.
#[differentiable]
fn dropped_after_a_loop(x: f64, #[constant] z: f64) -> f64 {
    let v = vec![z, 2.0 * z];
    let mut c = 0.0;
    for t in v.iter() {
        c += t * x.sin();
    }
    drop(v);
    c
}

#[test]
fn a_vec_of_constants_given_away_after_a_loop_keeps_the_tape() -> Result<(), ScalarAutodiffError> {
    let path = dropped_after_a_loop_grad_path();
    // The `drop(v);` above.
    let line = line!() - 8;
    assert_eq!(
        path,
        GradientPath::Tape {
            construct: "drop(v)",
            line
        }
    );
    let (x, z) = (0.75, -1.25);
    let got = dropped_after_a_loop_grad(x, z)?;
    assert_eq!(got.value, dropped_after_a_loop(x, z));
    assert_agree("dropped", &[got.gradient], &[3.0 * z * x.cos()]);
    Ok(())
}
